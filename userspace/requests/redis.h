/* Redis RESP2/RESP3: a request's command and key, a reply's type and error,
 * and the whole value's length so pipelined messages can be walked. */
#ifndef REQUESTS_REDIS_H
#define REQUESTS_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_head.h"

/* As req_head.h says. A request: an array of bulk strings (method: the first,
 * uppercased, only the first word of two-word commands such as CONFIG GET;
 * target: the second, the key, cut to size), or an inline command line whose
 * first word is a known command (redis-cli's and telnet's PING). Empty lines
 * before an array (Redis skips them; redis-cli --pipe sends one) count to its
 * bytes; empty lines alone are -EAGAIN. A reply: any
 * RESP2 or RESP3 value (no attributes); error for -ERR and !blob errors, code
 * their first word (ERR, WRONGTYPE cut to "WRONGTY"). -EAGAIN while the first
 * line (a request's command) is incomplete; a value cut by LEN gives 0 with
 * len_known false. total_len: the whole value, nested arrays included.
 * Pub/sub (req_head's pubsub, push, count): a (P|S)(UN)SUBSCRIBE request
 * and its channels; a reply shaped as a message or a confirmation, and
 * whether it is a RESP3 push. Which of them is a reply is the pairing's to
 * say: it alone knows what the connection asked and whether it subscribed. */
int redis__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out);

#endif
