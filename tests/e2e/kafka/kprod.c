/* A Kafka exchange for tests/e2e/test_req_kafka.sh, against librdkafka's
 * mock cluster (test.mock.num.brokers: a broker speaking Kafka's protocol on
 * loopback TCP, inside this process): a producer sends N messages to topic
 * agent-test in batches of 10, one more whose Produce the broker fails (MSG_SIZE_TOO_LARGE,
 * 10, pushed on the mock's error stack), one to agent-missing, which the
 * broker's Metadata says is unknown (UNKNOWN_TOPIC_OR_PART, 3); a consumer
 * reads agent-test back from the start. Each client's last statistics (its
 * per-broker request counters) go to STATS, one JSON object a line,
 * producer first, taken once neither sends any more Produce or Fetch.
 *
 *   kprod STATS N
 *
 * Prints what it did; exits 0 when every message went as planned. Bounded:
 * every wait has a timeout (about 20 s in all at most). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define TOPIC "agent-test"
#define MISSING "agent-missing"

/* One client's last statistics JSON. */
struct stats {
	char *json;
};

static int delivered, failed_size, failed_missing, failed_other;

static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
	struct stats *s = opaque;

	(void)rk;
	(void)len;
	free(s->json);
	s->json = strdup(json);
	return 0;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	(void)opaque;
	if (!m->err)
		delivered++;
	else if (m->err == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
		failed_size++;
	else if (!strcmp(rd_kafka_topic_name(m->rkt), MISSING))
		failed_missing++;
	else
		failed_other++;
}

static void set(rd_kafka_conf_t *conf, const char *k, const char *v)
{
	char err[256];

	if (rd_kafka_conf_set(conf, k, v, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "kprod: %s=%s: %s\n", k, v, err);
		exit(2);
	}
}

static rd_kafka_t *client(rd_kafka_type_t type, rd_kafka_conf_t *conf, struct stats *s)
{
	char err[256];
	rd_kafka_t *rk;

	set(conf, "statistics.interval.ms", "100");
	rd_kafka_conf_set_stats_cb(conf, on_stats);
	rd_kafka_conf_set_opaque(conf, s);
	rk = rd_kafka_new(type, conf, err, sizeof(err));
	if (!rk) {
		fprintf(stderr, "kprod: %s\n", err);
		exit(2);
	}
	return rk;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Serves RK's callbacks for MS: statistics taken after what came before. */
static void settle(rd_kafka_t *rk, int ms)
{
	for (double end = now() + ms / 1000.0; now() < end;)
		rd_kafka_poll(rk, 20);
}

static int produce(rd_kafka_t *rk, const char *topic, int i)
{
	char v[64];
	int n = snprintf(v, sizeof(v), "message %d", i);

	return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
				 RD_KAFKA_V_VALUE(v, (size_t)n), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				 RD_KAFKA_V_END);
}

int main(int argc, char **argv)
{
	struct stats ps = { 0 }, cs = { 0 };
	rd_kafka_conf_t *conf;
	rd_kafka_mock_cluster_t *mc;
	rd_kafka_topic_t *rkt;
	rd_kafka_t *prod, *cons;
	int n, got = 0, rc = 0;
	FILE *f;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: kprod STATS N\n");
		return 2;
	}
	conf = rd_kafka_conf_new();
	set(conf, "test.mock.num.brokers", "1");
	set(conf, "client.id", "kprod-producer");
	/* many Produce requests, several in flight at once (pipelined) */
	set(conf, "linger.ms", "5");
	set(conf, "batch.num.messages", "10");
	/* within the pairing's 16 followed in flight a connection */
	set(conf, "max.in.flight.requests.per.connection", "8");
	set(conf, "message.timeout.ms", "4000");
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	prod = client(RD_KAFKA_PRODUCER, conf, &ps);
	mc = rd_kafka_handle_mock_cluster(prod);
	if (!mc || rd_kafka_mock_topic_create(mc, TOPIC, 1, 1)) {
		fprintf(stderr, "kprod: no mock cluster\n");
		return 2;
	}
	rd_kafka_mock_topic_set_error(mc, MISSING, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
	printf("mock cluster at %s\n", rd_kafka_mock_cluster_bootstraps(mc));

	for (int i = 0; i < n; i++)
		if (produce(prod, TOPIC, i))
			rc = 1;
	rd_kafka_flush(prod, 10000);
	/* the next Produce fails, for good: no retry */
	rd_kafka_mock_push_request_errors(mc, 0 /* Produce's api key */, 1,
					  RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE);
	if (produce(prod, TOPIC, n) || produce(prod, MISSING, 0))
		rc = 1;
	rd_kafka_flush(prod, 10000);

	conf = rd_kafka_conf_new();
	set(conf, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mc));
	set(conf, "client.id", "kprod-consumer");
	set(conf, "fetch.wait.max.ms", "100");
	/* a batch or two a Fetch: many of them */
	set(conf, "fetch.message.max.bytes", "300");
	cons = client(RD_KAFKA_CONSUMER, conf, &cs);
	rkt = rd_kafka_topic_new(cons, TOPIC, NULL);
	if (rd_kafka_consume_start(rkt, 0, RD_KAFKA_OFFSET_BEGINNING)) {
		fprintf(stderr, "kprod: consume_start: %s\n", rd_kafka_err2str(rd_kafka_last_error()));
		return 2;
	}
	for (double end = now() + 10; got < n && now() < end;) {
		rd_kafka_message_t *m = rd_kafka_consume(rkt, 0, 200);

		if (!m)
			continue;
		if (!m->err)
			got++;
		rd_kafka_message_destroy(m);
	}
	rd_kafka_consume_stop(rkt, 0);
	/* a Fetch in flight is answered within fetch.wait.max.ms; then the
	 * counters stand still for Produce and Fetch */
	settle(cons, 400);
	settle(prod, 200);
	f = fopen(argv[1], "w");
	if (!f || !ps.json || !cs.json || fprintf(f, "%s\n%s\n", ps.json, cs.json) < 0 || fclose(f)) {
		fprintf(stderr, "kprod: no statistics written to %s\n", argv[1]);
		rc = 1;
	}
	printf("delivered %d, failed: too large %d, missing topic %d, other %d; consumed %d\n",
	       delivered, failed_size, failed_missing, failed_other, got);
	if (delivered != n || failed_size != 1 || failed_missing != 1 || failed_other || got != n)
		rc = 1;
	rd_kafka_topic_destroy(rkt);
	rd_kafka_destroy(cons);
	rd_kafka_destroy(prod);
	free(ps.json);
	free(cs.json);
	return rc;
}
