/* agent: capture system calls with eBPF, filter them, print text or JSON lines.
 * The order of things; each mode's wiring is in a file of its own (agent.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "say.h"
#include "signals.h"

int main(int argc, char **argv)
{
	static struct agent a;
	char err[256];
	int rc;

	/* first: start-up is timed from here (-v) */
	a.startup = startup__new();
	if (options__parse(argc, argv, &a.o, err, sizeof(err))) {
		agent__say("%s", err);
		return EXIT_USAGE;
	}
	if (a.o.help) {
		fputs(options_usage, stdout);
		return 0;
	}
	if (a.o.version) {
		printf("agent %s\n", AGENT_VERSION);
		return 0;
	}
	if (a.o.print_format) {
		printf("%s\n", agent__format(&a.o));
		return 0;
	}
	if (a.o.list_fields || a.o.list_events) {
		if (a.o.list_fields)
			fields__list(stdout);
		if (a.o.list_events)
			events__list(stdout);
		return 0;
	}
	sbuf__init(&a.out);
	/* a bad filter or format is a usage error, as a bad flag: a service
	 * manager should not restart into it (systemd's RestartPreventExitStatus) */
	if ((rc = agent__compile(&a))) {
		agent__finish(&a, false);
		return rc == -EINVAL ? EXIT_USAGE : 1;
	}
	/* Before any thread starts, so that the outputs' and the metrics server's
	 * threads inherit the blocked set and the main thread gets the signals. */
	a.signals_blocked = !a.o.read_file;
	signals__setup(&a.wait_mask, a.signals_blocked);
	if ((rc = agent__open_outputs(&a))) {
		agent__finish(&a, false);
		return rc == -EINVAL ? EXIT_USAGE : 1;
	}
	if (agent__start(&a)) {
		agent__finish(&a, false);
		return 1;
	}
	rc = agent__run(&a);
	if (rc && !a.reported)
		agent__say("capture stopped: %s", strerror(-rc));
	if (agent__finish(&a, true))
		rc = -EIO;
	return rc ? 1 : 0;
}
