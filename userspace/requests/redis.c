/* RESP (the Redis serialization protocol, RESP2 and RESP3): every line ends
 * in CRLF; bulk strings and aggregates give their sizes first. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "redis.h"

#define BULK_MAX (512LL * 1024 * 1024)	/* redis' proto-max-bulk-len */
#define REQ_ARGS_MAX (1024 * 1024)	/* redis < 7 refused longer multibulk requests */
#define COUNT_MAX 2147483647LL		/* hiredis' bound on a reply's elements */
#define DEPTH_MAX 16			/* nested replies (EXEC, COMMAND) stay below */
#define INLINE_MAX (64 * 1024)		/* redis' PROTO_INLINE_MAX_SIZE */

/* Inline commands are accepted only for these first words, so that plain
 * text (and other protocols' lines) is not taken for Redis. HELLO is left
 * out: only RESP3 clients send it, as an array, and "Hello" starts text.
 * With their lengths: a line of unknown bytes is tried against each on every
 * message of a connection whose protocol is not known yet (a connect storm's
 * 16 letters: strlen was 4% of the agent's time). */
static const struct req_word inline_cmds[] = {
	REQ_WORD("PING"), REQ_WORD("ECHO"), REQ_WORD("AUTH"), REQ_WORD("SELECT"),
	REQ_WORD("QUIT"), REQ_WORD("INFO"), REQ_WORD("DBSIZE"), REQ_WORD("FLUSHDB"),
	REQ_WORD("FLUSHALL"), REQ_WORD("GET"), REQ_WORD("SET"), REQ_WORD("SETEX"),
	REQ_WORD("SETNX"), REQ_WORD("MGET"), REQ_WORD("MSET"), REQ_WORD("DEL"),
	REQ_WORD("EXISTS"), REQ_WORD("EXPIRE"), REQ_WORD("TTL"), REQ_WORD("TYPE"),
	REQ_WORD("KEYS"), REQ_WORD("SCAN"), REQ_WORD("INCR"), REQ_WORD("INCRBY"),
	REQ_WORD("DECR"), REQ_WORD("APPEND"), REQ_WORD("STRLEN"), REQ_WORD("HGET"),
	REQ_WORD("HSET"), REQ_WORD("HDEL"), REQ_WORD("HGETALL"), REQ_WORD("LPUSH"),
	REQ_WORD("RPUSH"), REQ_WORD("LPOP"), REQ_WORD("RPOP"), REQ_WORD("LRANGE"),
	REQ_WORD("LLEN"), REQ_WORD("SADD"), REQ_WORD("SREM"), REQ_WORD("SMEMBERS"),
	REQ_WORD("ZADD"), REQ_WORD("ZREM"), REQ_WORD("ZRANGE"), REQ_WORD("PUBLISH"),
	REQ_WORD("SUBSCRIBE"), REQ_WORD("MONITOR"), REQ_WORD("MULTI"), REQ_WORD("EXEC"),
	REQ_WORD("CONFIG"), REQ_WORD("CLIENT"), REQ_WORD("COMMAND"), REQ_WORD("SAVE"),
	REQ_WORD("SHUTDOWN"),
};
/* the longest of them (SUBSCRIBE; test_redis parses it inline) */
#define INLINE_CMD_MAX 9

enum { VAL_BAD = -1, VAL_CUT = -2 };

static void copy_str(char *dst, size_t size, const uint8_t *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The line starting at P: *END the offset of its CR. VAL_CUT: no CRLF in
 * BUF yet; VAL_BAD: a CR without LF, a bare LF, or (TEXT) a control byte. */
static int find_line(const uint8_t *buf, size_t len, size_t p, bool text, size_t *end)
{
	for (; p < len; p++) {
		uint8_t c = buf[p];

		if (c == '\r') {
			if (p + 1 >= len)
				return VAL_CUT;
			if (buf[p + 1] != '\n')
				return VAL_BAD;
			*end = p;
			return 0;
		}
		if (c == '\n' || (text && ((c < 0x20 && c != '\t') || c == 0x7f)))
			return VAL_BAD;
	}
	return VAL_CUT;
}

/* A decimal integer line from P (after the type byte): *V its value, *AT the
 * offset after its CRLF. Only -1 is negative where MINUS1 allows it. */
static int int_line(const uint8_t *buf, size_t len, size_t p, long long max, bool minus1,
		    bool any_sign, long long *v, size_t *at)
{
	bool neg = false;
	unsigned long long n = 0;	/* 19 digits fit, unsigned */
	size_t d = 0;

	if (p < len && (buf[p] == '-' || (any_sign && buf[p] == '+'))) {
		neg = buf[p] == '-';
		p++;
	}
	for (; p < len && buf[p] >= '0' && buf[p] <= '9'; p++, d++) {
		if (d >= 19)
			return VAL_BAD;
		n = n * 10 + (buf[p] - '0');
	}
	if (p == len)
		return VAL_CUT;
	if (!d || buf[p] != '\r')
		return VAL_BAD;
	if (p + 1 == len)
		return VAL_CUT;
	if (buf[p + 1] != '\n')
		return VAL_BAD;
	if (n > (unsigned long long)INT64_MAX ||
	    (!any_sign && (neg ? !(minus1 && n == 1) : n > (unsigned long long)max)))
		return VAL_BAD;
	*v = neg ? -(long long)n : (long long)n;
	*at = p + 2;
	return 0;
}

/* A bulk string's body of N bytes from P and its CRLF: *AT the offset after. */
static int bulk_body(const uint8_t *buf, size_t len, size_t p, long long n, size_t *at)
{
	if ((unsigned long long)n > len - p)
		return VAL_CUT;
	p += (size_t)n;
	if (len - p < 2)
		return len - p == 1 && buf[p] != '\r' ? VAL_BAD : VAL_CUT;
	if (buf[p] != '\r' || buf[p + 1] != '\n')
		return VAL_BAD;
	*at = p + 2;
	return 0;
}

/* The value starting at P, DEPTH levels down: 0 and *AT the offset after it,
 * VAL_CUT when LEN ends inside it, VAL_BAD when it is not RESP. Every element
 * takes 3 bytes at least, so the walk is bounded by LEN whatever the counts. */
static int value(const uint8_t *buf, size_t len, size_t p, int depth, size_t *at)
{
	long long n;
	size_t e;
	int r;

	if (p >= len)
		return VAL_CUT;
	switch (buf[p]) {
	case '+': case '-':		/* simple string, error */
	case ',': case '(':		/* RESP3 double, big number */
		r = find_line(buf, len, p + 1, true, &e);
		if (r)
			return r;
		*at = e + 2;
		return 0;
	case ':':
		return int_line(buf, len, p + 1, 0, false, true, &n, at);
	case '_':			/* RESP3 null */
		if (len - p < 3)
			return len - p == 2 && buf[p + 1] != '\r' ? VAL_BAD : VAL_CUT;
		if (buf[p + 1] != '\r' || buf[p + 2] != '\n')
			return VAL_BAD;
		*at = p + 3;
		return 0;
	case '#':			/* RESP3 boolean */
		if (len - p < 4)
			return VAL_CUT;
		if ((buf[p + 1] != 't' && buf[p + 1] != 'f') || buf[p + 2] != '\r' ||
		    buf[p + 3] != '\n')
			return VAL_BAD;
		*at = p + 4;
		return 0;
	case '$': case '!': case '=':	/* bulk string, RESP3 blob error, verbatim */
		r = int_line(buf, len, p + 1, BULK_MAX, buf[p] == '$', false, &n, &e);
		if (r)
			return r;
		if (n < 0) {
			*at = e;
			return 0;
		}
		return bulk_body(buf, len, e, n, at);
	case '*': case '~': case '>': case '%':	/* array, RESP3 set, push, map */
		if (depth >= DEPTH_MAX)
			return VAL_BAD;
		r = int_line(buf, len, p + 1, COUNT_MAX, buf[p] == '*', false, &n, &e);
		if (r)
			return r;
		if (buf[p] == '%')
			n *= 2;
		for (long long i = 0; i < n; i++) {
			r = value(buf, len, e, depth + 1, &e);
			if (r)
				return r;
		}
		*at = e;
		return 0;
	}
	return VAL_BAD;
}

/* Pub/sub's commands answered by one confirmation per channel (the
 * confirmation's first element is the command's name, lowercased). */
static const struct req_word sub_words[] = {
	REQ_WORD("subscribe"), REQ_WORD("psubscribe"), REQ_WORD("ssubscribe"),
	REQ_WORD("unsubscribe"), REQ_WORD("punsubscribe"), REQ_WORD("sunsubscribe"),
};

static bool sub_word(const uint8_t *w, size_t n)
{
	for (size_t i = 0; i < sizeof(sub_words) / sizeof(sub_words[0]); i++)
		if (n == sub_words[i].len && !strncasecmp((const char *)w, sub_words[i].name, n))
			return true;
	return false;
}

/* Whether a command's first letter C may begin one pubsub__request reads
 * (most commands' is none of these: one test per command). */
static bool pubsub__letter(char c)
{
	return c == 'M' || c == 'R' || c == 'S' || c == 'P' || c == 'U';
}

/* A request of N words: a (un)subscribe command naming N - 1 channels is
 * answered by that many confirmations (none named: one per subscription,
 * or one); MONITOR and RESET begin and end MONITOR's lines. */
static void pubsub__request(struct req_head *out, long long n)
{
	const char *m = out->method;
	size_t len;

	if (!pubsub__letter(m[0]))
		return;
	/* one length for the rest (SET, PING), longer than every name here */
	len = strnlen(m, sizeof("PUNSUBSCRIBE"));
	if (len == 7 && !memcmp(m, "MONITOR", 7)) {
		out->pubsub = REQ_PUBSUB_MONITOR;
		return;
	}
	if (len == 5 && !memcmp(m, "RESET", 5)) {
		out->pubsub = REQ_PUBSUB_RESET;
		return;
	}
	if (!sub_word((const uint8_t *)m, len))
		return;
	out->pubsub = REQ_PUBSUB_CONFIRM;
	out->count = n > 1 ? (uint32_t)(n - 1 > UINT32_MAX ? UINT32_MAX : n - 1) : 0;
}

/* CLIENT REPLY's mode word (ON, OFF, SKIP) when OUT is a CLIENT REPLY. */
static void reply__mode(struct req_head *out, const uint8_t *w, size_t n)
{
	if (out->method[0] != 'C' || strcmp(out->method, "CLIENT") ||
	    strcasecmp(out->target, "REPLY"))
		return;
	if (n == 2 && !strncasecmp((const char *)w, "ON", 2))
		out->reply = REQ_REPLY_ON;
	else if (n == 3 && !strncasecmp((const char *)w, "OFF", 3))
		out->reply = REQ_REPLY_OFF;
	else if (n == 4 && !strncasecmp((const char *)w, "SKIP", 4))
		out->reply = REQ_REPLY_SKIP;
}

/* A bulk string at P: *W its bytes (N of them, all captured), *AT after it. */
static int bulk_at(const uint8_t *buf, size_t len, size_t p, const uint8_t **w, size_t *n,
		   size_t *at)
{
	long long blen;
	size_t e;
	int r;

	if (p >= len)
		return VAL_CUT;
	if (buf[p] != '$')
		return VAL_BAD;
	r = int_line(buf, len, p + 1, BULK_MAX, false, false, &blen, &e);
	if (r)
		return r;
	r = bulk_body(buf, len, e, blen, at);
	if (r)
		return r;
	*w = buf + e;
	*n = (size_t)blen;
	return 0;
}

/* A MONITOR line: "+SECONDS.MICROS [DB ADDR] ...": a status no command
 * answers with. */
static bool monitor__line(const uint8_t *buf, size_t len)
{
	size_t p = 1, d;

	for (d = 0; p < len && buf[p] >= '0' && buf[p] <= '9'; p++)
		d++;
	if (!d || p >= len || buf[p++] != '.')
		return false;
	for (d = 0; p < len && buf[p] >= '0' && buf[p] <= '9'; p++)
		d++;
	return d && len - p >= 2 && buf[p] == ' ' && buf[p + 1] == '[';
}

/* A message whose payload the captured LEN bytes cut: its length from the
 * payload's header, so that the pairing skips all of it. N bulk strings
 * from P, the payload last. */
static void message__len(const uint8_t *buf, size_t len, size_t p, long long n,
			 struct req_head *out)
{
	long long blen;
	size_t e;

	if (out->len_known)
		return;
	for (long long i = 0; i < n; i++) {
		if (p >= len || buf[p] != '$' ||
		    int_line(buf, len, p + 1, BULK_MAX, false, false, &blen, &e))
			return;
		if (i == n - 1) {
			out->total_len = e + (uint64_t)blen + 2;
			out->len_known = true;
		} else if (bulk_body(buf, len, e, blen, &p)) {
			return;
		}
	}
}

/* A reply that is an array (*) or a RESP3 push (>) shaped as a pub/sub
 * message or confirmation: its kind, and a confirmation's subscriptions
 * left in out->count (UINT32_MAX when cut before it). */
static void pubsub__reply(const uint8_t *buf, size_t len, struct req_head *out)
{
	const uint8_t *w;
	long long n, v;
	size_t p, wn;

	out->push = buf[0] == '>';
	if (int_line(buf, len, 1, COUNT_MAX, buf[0] == '*', false, &n, &p) ||
	    (n != 3 && n != 4) || bulk_at(buf, len, p, &w, &wn, &p))
		return;
	if ((n == 3 && ((wn == 7 && !memcmp(w, "message", 7)) ||
			(wn == 8 && !memcmp(w, "smessage", 8)))) ||
	    (n == 4 && wn == 8 && !memcmp(w, "pmessage", 8))) {
		out->pubsub = REQ_PUBSUB_MESSAGE;
		message__len(buf, len, p, n - 1, out);
		return;
	}
	if (n != 3 || !sub_word(w, wn))
		return;
	out->pubsub = REQ_PUBSUB_CONFIRM;
	out->count = UINT32_MAX;
	/* the channel (a null when an unsubscribe had none to leave), then
	 * the count */
	if (value(buf, len, p, 1, &p) == 0 && p < len && buf[p] == ':' &&
	    int_line(buf, len, p + 1, UINT32_MAX - 1, false, false, &v, &p) == 0)
		out->count = (uint32_t)v;
}

static void upper_word(char *dst, size_t size, const uint8_t *src, size_t n)
{
	copy_str(dst, size, src, n);
	for (char *c = dst; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c -= 'a' - 'A';
}

static bool is_cmd_char(uint8_t c, bool first)
{
	return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       (!first && ((c >= '0' && c <= '9') || c == '_' || c == '-'));
}

/* A request as an array of bulk strings: "*N\r\n$n\r\nCMD\r\n$n\r\nKEY\r\n...". */
static int parse_multibulk(const uint8_t *buf, size_t len, struct req_head *out)
{
	long long n, blen;
	size_t p, e;
	int r;

	r = int_line(buf, len, 1, REQ_ARGS_MAX, false, false, &n, &p);
	if (r == 0 && n < 1)
		r = VAL_BAD;
	for (long long i = 0; r == 0 && i < n; i++) {
		if (p >= len) {
			r = VAL_CUT;
			break;
		}
		if (buf[p] != '$')
			return -ENOMSG;
		r = int_line(buf, len, p + 1, BULK_MAX, false, false, &blen, &e);
		if (r)
			break;
		if (i == 0) {
			/* the command: letters first, 32 bytes at most */
			if (blen < 1 || blen > 32)
				return -ENOMSG;
			for (size_t k = 0; k < (size_t)blen && e + k < len; k++)
				if (!is_cmd_char(buf[e + k], k == 0))
					return -ENOMSG;
		}
		r = bulk_body(buf, len, e, blen, &p);
		if (r)
			break;
		if (i == 0)
			upper_word(out->method, sizeof(out->method), buf + e, (size_t)blen);
		else if (i == 1)
			copy_str(out->target, sizeof(out->target), buf + e, (size_t)blen);
		else if (i == 2)
			reply__mode(out, buf + e, (size_t)blen);
	}
	if (r == VAL_BAD)
		return -ENOMSG;
	if (!out->method[0])
		return -EAGAIN;
	if (r == 0) {
		out->total_len = p;
		out->len_known = true;
	}
	pubsub__request(out, n);
	return 0;
}

/* A request as an inline command line: "PING\r\n", "GET key\r\n". */
static int parse_inline(const uint8_t *buf, size_t len, struct req_head *out)
{
	size_t w = 0, end, a, b, e;
	bool prefix = false;

	while (w < len && is_cmd_char(buf[w], w == 0))
		w++;
	/* no command's name, nor the start of one */
	if (w == 0 || w > INLINE_CMD_MAX)
		return -ENOMSG;
	for (size_t i = 0; i < sizeof(inline_cmds) / sizeof(inline_cmds[0]); i++) {
		size_t n = inline_cmds[i].len;

		if (w == n && !strncasecmp((const char *)buf, inline_cmds[i].name, n))
			break;
		if (w == len && w < n && !strncasecmp((const char *)buf, inline_cmds[i].name, w))
			prefix = true;
		if (i + 1 == sizeof(inline_cmds) / sizeof(inline_cmds[0]))
			return prefix ? -EAGAIN : -ENOMSG;
	}
	if (w == len)
		return -EAGAIN;
	if (buf[w] != ' ' && buf[w] != '\r' && buf[w] != '\n')
		return -ENOMSG;
	/* the whole line, printable: an HTTP request line ("GET / HTTP/1.1") is not one */
	for (end = w; end < len && buf[end] != '\n'; end++)
		if ((buf[end] < 0x20 && buf[end] != '\t' && buf[end] != '\r') || buf[end] == 0x7f)
			return -ENOMSG;
	if (end == len)
		return len >= INLINE_MAX ? -ENOMSG : -EAGAIN;
	b = end > 0 && buf[end - 1] == '\r' ? end - 1 : end;
	if (b > w && memchr(buf + w, '\r', b - w))
		return -ENOMSG;
	for (size_t i = w; i + 5 <= b; i++)
		if (!memcmp(buf + i, "HTTP/", 5))
			return -ENOMSG;
	upper_word(out->method, sizeof(out->method), buf, w);
	for (a = w; a < b && (buf[a] == ' ' || buf[a] == '\t'); a++)
		;
	for (e = a; e < b && buf[e] != ' ' && buf[e] != '\t'; e++)
		;
	copy_str(out->target, sizeof(out->target), buf + a, e - a);
	if (out->method[0] == 'C') {
		for (a = e; a < b && (buf[a] == ' ' || buf[a] == '\t'); a++)
			;
		for (e = a; e < b && buf[e] != ' ' && buf[e] != '\t'; e++)
			;
		reply__mode(out, buf + a, e - a);
	}
	out->total_len = end + 1;
	out->len_known = true;
	/* (the words counted only for the commands pubsub__request reads) */
	if (pubsub__letter(out->method[0])) {
		long long words = 0;

		for (size_t i = 0; i < b; i++)
			if (buf[i] != ' ' && buf[i] != '\t' && (i == 0 || buf[i - 1] == ' ' ||
								buf[i - 1] == '\t'))
				words++;
		pubsub__request(out, words);
	}
	return 0;
}

/* The empty lines at BUF's start: Redis skips an empty inline command, and
 * redis-cli --pipe sends one before the ECHO that ends its run. They are
 * taken as the next command's bytes, when that is an array. */
static size_t blank_lines(const uint8_t *buf, size_t len)
{
	size_t at = 0;

	for (;;) {
		if (at < len && buf[at] == '\n')
			at++;
		else if (at + 1 < len && buf[at] == '\r' && buf[at + 1] == '\n')
			at += 2;
		else
			return at;
	}
}

int redis__parse(const uint8_t *buf, size_t len, bool request, struct req_head *out)
{
	size_t at, e;
	int r;

	req_head__clear(out);
	out->proto = REQ_PROTO_REDIS;
	out->request = request;
	if (len == 0)
		return -EAGAIN;
	if (request) {
		size_t skip = blank_lines(buf, len);

		/* (a CR at the end may be a blank line's) */
		if (skip == len || (skip + 1 == len && buf[skip] == '\r')) {
			r = -EAGAIN;
			goto done;
		}
		/* (inline commands after blank lines are not taken: an HTTP
		 * request after a stray CRLF would read as Redis' GET) */
		r = buf[skip] == '*' ? parse_multibulk(buf + skip, len - skip, out)
				     : parse_inline(buf, len, out);
		if (!r && out->len_known)
			out->total_len += skip;
		goto done;
	}
	r = value(buf, len, 0, 0, &at);
	if (r == VAL_BAD) {
		r = -ENOMSG;
		goto done;
	}
	/* the first line must be whole to tell */
	if (find_line(buf, len, 1, false, &e)) {
		r = -EAGAIN;
		goto done;
	}
	if (r == 0) {
		out->total_len = at;
		out->len_known = true;
	}
	if (buf[0] == '*' || buf[0] == '>')
		pubsub__reply(buf, len, out);
	else if (buf[0] == '+' && monitor__line(buf, len))
		out->pubsub = REQ_PUBSUB_MONITOR;
	if (buf[0] == '-' || buf[0] == '!') {
		size_t c = buf[0] == '-' ? 1 : e + 2, n = 0;

		out->error = true;
		while (c + n < len && buf[c + n] > 0x20 && buf[c + n] < 0x7f)
			n++;
		copy_str(out->code, sizeof(out->code), buf + c, n);
	}
	r = 0;
done:
	if (r)
		req_head__clear(out);
	return r;
}
