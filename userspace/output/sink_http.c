/* http:// and https:// outputs: lines POSTed in batches (body = the lines,
 * each ending in "\n"; Content-Type application/x-ndjson) over one reused
 * libcurl handle (keep-alive). A batch goes when it holds batch_bytes (a
 * longer line goes alone), when its first line waited batch_ms, at a kick or
 * at stop. Its lines stay queued until a 2xx answer: a failure (no connection,
 * timeout, 5xx) sends the same batch again after a backoff; a 4xx answer (or a
 * 3xx: redirects are not followed) drops it (drop_error). The multi interface runs the transfer so the writer looks
 * at the stop deadline every tick, even when the server never answers. */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

#define HTTP_TIMEOUT_MS 10000
#define HTTP_CONNECT_TIMEOUT_MS 5000

enum { HT_OK = 1, HT_FAILING, HT_REFUSED };

struct http_sink {
	CURLM *multi;
	CURL *easy;
	struct curl_slist *headers;
	char *body;
	size_t len, cap;
	uint64_t end;		/* queue position after the batch's last record; 0: no batch */
	uint64_t lines, markers;
	uint64_t since_ms;	/* when the writer first saw the batch's first line */
	bool full;		/* the next record does not fit: send */
	bool retry;		/* sent and failed: send again after the backoff */
	char errbuf[CURL_ERROR_SIZE];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result;

/* curl_global_init is not thread-safe: once for the process */
static void http__global_init(void)
{
	curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t http__discard(char *ptr, size_t size, size_t nmemb, void *arg)
{
	return size * nmemb;
}

/* Also stops a transfer curl runs without returning to the writer loop. */
static int http__progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
			  curl_off_t ulnow)
{
	return writer__expired(arg) ? 1 : 0;
}

static int http__init(struct output *o, char *err, size_t errlen)
{
	struct http_sink *s;
	CURL *e;

	pthread_once(&curl_once, http__global_init);
	if (curl_init_result) {
		snprintf(err, errlen, "cannot initialize libcurl: %s",
			 curl_easy_strerror(curl_init_result));
		return -ENOMEM;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	o->sink = s;
	s->multi = curl_multi_init();
	s->easy = e = curl_easy_init();
	s->headers = curl_slist_append(NULL, "Content-Type: application/x-ndjson");
	if (s->headers) {
		/* no "Expect: 100-continue" round trip before large bodies */
		struct curl_slist *h = curl_slist_append(s->headers, "Expect:");

		if (h)
			s->headers = h;
	}
	if (!s->multi || !e || !s->headers)
		return -ENOMEM;
	curl_easy_setopt(e, CURLOPT_URL, o->url);
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, s->headers);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "agent");
	/* curl must not use signals (alarm for DNS timeouts) in our thread */
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)HTTP_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)HTTP_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http__discard);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, http__progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, o);
	return 0;
}

static void http__batch_reset(struct http_sink *s)
{
	s->len = 0;
	s->end = 0;
	s->lines = 0;
	s->markers = 0;
	s->since_ms = 0;
	s->full = false;
	s->retry = false;
}

/* Adds the records queued after the batch to it, while they fit. */
static void http__extend(struct output *o, struct http_sink *s)
{
	uint64_t head = queue__head(&o->q);
	uint64_t pos = s->end ? s->end : queue__tail(&o->q);
	size_t max = o->opts.batch_bytes;
	const struct queue_rec *rec;

	while (!s->full && (rec = queue__peek(&o->q, &pos, head))) {
		if (s->len && s->len + rec->len > max) {
			s->full = true;
			break;
		}
		if (s->len + rec->len > s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64 << 10;
			char *body;

			while (cap < s->len + rec->len)
				cap *= 2;
			body = realloc(s->body, cap);
			if (!body) {
				/* send what there is, try to grow later */
				s->full = s->len > 0;
				break;
			}
			s->body = body;
			s->cap = cap;
		}
		if (rec->len)
			memcpy(s->body + s->len, queue__data(rec), rec->len);
		s->len += rec->len;
		if (rec->kind == QUEUE_LINE)
			s->lines++;
		else
			s->markers++;
		pos = queue__after(pos, rec);
		s->end = pos;
		if (!s->since_ms)
			s->since_ms = output__now_ms();
		if (s->len >= max)
			s->full = true;
	}
}

/* Runs one POST of the batch. false when the stop deadline cut it. */
static bool http__perform(struct output *o, struct http_sink *s, CURLcode *res)
{
	bool done = false;
	int running = 1, left;
	CURLMsg *msg;

	/* never NULL (a batch of empty lines): curl would read stdin instead */
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body ? s->body : "");
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->len);
	s->errbuf[0] = 0;
	*res = CURLE_FAILED_INIT;
	if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK)
		return true;
	while (running && !writer__expired(o)) {
		if (curl_multi_perform(s->multi, &running) != CURLM_OK || !running)
			break;
		curl_multi_poll(s->multi, NULL, 0, writer__slice_ms(o), NULL);
	}
	while ((msg = curl_multi_info_read(s->multi, &left))) {
		if (msg->msg == CURLMSG_DONE) {
			*res = msg->data.result;
			done = true;
		}
	}
	curl_multi_remove_handle(s->multi, s->easy);
	return done || !writer__expired(o);
}

static enum step http__failed(struct output *o, struct http_sink *s, CURLcode res, long code)
{
	char why[CURL_ERROR_SIZE + 32];

	s->retry = true;
	if (res == CURLE_OK) {
		snprintf(why, sizeof(why), "HTTP %ld", code);
		STAT_ADD(o, write_errors, 1);
		STAT_SET(o, error, -EPROTO);
	} else {
		snprintf(why, sizeof(why), "%s", s->errbuf[0] ? s->errbuf : curl_easy_strerror(res));
		STAT_SET(o, connected, false);
		if (res == CURLE_COULDNT_CONNECT || res == CURLE_COULDNT_RESOLVE_HOST ||
		    res == CURLE_COULDNT_RESOLVE_PROXY) {
			STAT_ADD(o, connect_failures, 1);
			STAT_SET(o, error, res == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EHOSTUNREACH);
		} else {
			STAT_ADD(o, write_errors, 1);
			STAT_SET(o, error, res == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -EIO);
		}
	}
	writer__state(o, HT_FAILING, 1, "POST to %s failed: %s; retrying with backoff", o->url, why);
	return STEP_BACKOFF;
}

static enum step http__post(struct output *o, struct http_sink *s)
{
	long code = 0, conns = 0;
	CURLcode res;

	if (!http__perform(o, s, &res))
		return STEP_AGAIN;	/* deadline: the batch stays queued, drop_exit */
	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &conns);
	if (conns > 0)
		STAT_ADD(o, connects, (uint64_t)conns);
	if (res != CURLE_OK || code < 200 || code >= 500)
		return http__failed(o, s, res, code);
	STAT_SET(o, connected, true);
	if (code >= 300) {
		/* 4xx (and redirects, not followed): the server will not take
		 * these lines, ever; resending would block the queue behind them */
		STAT_ADD(o, write_errors, 1);
		STAT_ADD(o, drop_error, s->lines);
		STAT_SET(o, error, -EPROTO);
		writer__state(o, HT_REFUSED, 1, "%s refuses batches (HTTP %ld): their lines are "
			      "dropped", o->url, code);
	} else {
		STAT_ADD(o, bytes, s->len);
		STAT_ADD(o, emitted, s->lines);
		STAT_ADD(o, markers, s->markers);
		STAT_SET(o, error, 0);
		writer__backoff_reset(o);
		writer__state(o, HT_OK, 0, "connected to %s", o->url);
	}
	queue__release(&o->q, s->end, s->lines);
	http__batch_reset(s);
	return STEP_AGAIN;
}

static enum step http__step(struct output *o)
{
	struct http_sink *s = o->sink;
	uint64_t now, due;

	http__extend(o, s);
	if (!s->end)
		return STEP_IDLE;
	now = output__now_ms();
	due = s->since_ms + o->opts.batch_ms;
	if (s->full || s->retry || o->kicked || o->opts.unbuffered || now >= due ||
	    atomic_load(&o->stopping) || queue__bytes(&o->q) >= o->wake_bytes)
		return http__post(o, s);
	o->sleep_ms = due - now < OUTPUT_TICK_MS ? (int)(due - now) : OUTPUT_TICK_MS;
	return STEP_IDLE;
}

static void http__fini(struct output *o)
{
	struct http_sink *s = o->sink;

	if (!s)
		return;
	if (s->multi)
		curl_multi_cleanup(s->multi);
	if (s->easy)
		curl_easy_cleanup(s->easy);
	curl_slist_free_all(s->headers);
	free(s->body);
	free(s);
	o->sink = NULL;
}

const struct sink_ops sink_http_ops = {
	.init = http__init,
	.step = http__step,
	.fini = http__fini,
};
