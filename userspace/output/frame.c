/* Syslog headers for the syslog outputs, made from the record alone (its
 * timestamp and length), so a record's prefix is the same when a partly
 * written record is written again from its middle.
 * RFC 3164 (local socket): "<14>Mmm dd hh:mm:ss agent[PID]: MSG", local time.
 * RFC 5424 over TCP with RFC 6587 octet counting:
 *   "LEN <14>1 2026-11-22T11:10:03.123456Z HOST agent PID - - MSG", UTC.
 * <14> is facility user (1), severity informational (6). MSG is the line
 * without its newline. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "output_int.h"

static const char *const months[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

size_t frame__body_len(const struct output *o, const struct queue_rec *rec)
{
	size_t len = rec->len;

	if ((o->framing == FRAME_3164 || o->framing == FRAME_5424) && len &&
	    queue__data(rec)[len - 1] == '\n')
		len--;
	return len;
}

/* The second's text, formatted once per second of event time. */
static const char *frame__seconds(struct output *o, int64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (sec == o->frame_sec && o->frame_time[0])
		return o->frame_time;
	if (o->framing == FRAME_5424) {
		gmtime_r(&t, &tm);
		snprintf(o->frame_time, sizeof(o->frame_time), "%04d-%02d-%02dT%02d:%02d:%02d",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
	} else {
		/* by hand, not strftime's %b: the month names must not follow a locale */
		localtime_r(&t, &tm);
		snprintf(o->frame_time, sizeof(o->frame_time), "%s %2d %02d:%02d:%02d",
			 months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	}
	o->frame_sec = sec;
	return o->frame_time;
}

size_t frame__prefix(struct output *o, const struct queue_rec *rec, char *buf)
{
	uint64_t ts = rec->ts_ns;
	char hdr[FRAME_PREFIX_MAX];
	const char *sec;
	int n;

	if (o->framing == FRAME_RAW)
		return 0;
	sec = frame__seconds(o, (int64_t)(ts / 1000000000ull));
	if (o->framing != FRAME_5424) {
		n = snprintf(buf, FRAME_PREFIX_MAX, "<14>%s agent[%d]: ", sec, o->pid);
		return n < FRAME_PREFIX_MAX ? (size_t)n : FRAME_PREFIX_MAX - 1;
	}
	n = snprintf(hdr, sizeof(hdr), "<14>1 %s.%06uZ %s agent %d - - ", sec,
		     (unsigned)(ts % 1000000000ull / 1000), o->hostname, o->pid);
	if (n >= (int)sizeof(hdr))
		n = sizeof(hdr) - 1;
	/* the count covers the message after "LEN ": header and line */
	n = snprintf(buf, FRAME_PREFIX_MAX, "%zu %s", (size_t)n + frame__body_len(o, rec), hdr);
	return n < FRAME_PREFIX_MAX ? (size_t)n : FRAME_PREFIX_MAX - 1;
}
