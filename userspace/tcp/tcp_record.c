/* Names of a TCP record's values (tcp_record.h). */
#include "tcp_record.h"

const char *tcp_outcome__name(unsigned outcome)
{
	static const char *const names[TCP_OUTCOME__COUNT] = {
		[TCP_OUTCOME_CLOSED] = "closed",
		[TCP_OUTCOME_RESET] = "reset",
		[TCP_OUTCOME_REFUSED] = "refused",
		[TCP_OUTCOME_TIMEDOUT] = "timedout",
		[TCP_OUTCOME_ABORTED] = "aborted",
		[TCP_OUTCOME_FAILED] = "failed",
	};

	return outcome < TCP_OUTCOME__COUNT ? names[outcome] : "?";
}
