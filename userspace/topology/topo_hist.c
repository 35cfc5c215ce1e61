/* One series' sums and its duration histogram (Prometheus' le buckets). */
#include "req_record.h"
#include "topo_int.h"

const uint64_t topo_bound_ns[TOPO_NBOUNDS] = {
	500000, 1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
	100000000, 250000000, 500000000, 1000000000, 2500000000ULL, 5000000000ULL,
	10000000000ULL,
};

const char *const topo_bound_le[TOPO_NBUCKETS] = {
	"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
	"0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
};

void topo_stats__add(struct topo_stats *s, const struct req_record *r)
{
	unsigned i = 0;

	while (i < TOPO_NBOUNDS && r->duration > topo_bound_ns[i])
		i++;
	s->bucket[i]++;
	s->count++;
	s->errors += r->error;
	s->timeouts += r->timed_out;
	s->req_bytes += r->req_bytes;
	s->resp_bytes += r->resp_bytes;
	s->dur_ns += r->duration;
}

void topo_stats__merge(struct topo_stats *into, const struct topo_stats *s)
{
	into->count += s->count;
	into->errors += s->errors;
	into->timeouts += s->timeouts;
	into->req_bytes += s->req_bytes;
	into->resp_bytes += s->resp_bytes;
	into->dur_ns += s->dur_ns;
	for (unsigned i = 0; i < TOPO_NBUCKETS; i++)
		into->bucket[i] += s->bucket[i];

}

double topo_stats__quantile_ns(const struct topo_stats *s, double q)
{
	double rank = q * (double)s->count, below = 0, lo = 0;

	if (!s->count)
		return 0;
	for (unsigned i = 0; i < TOPO_NBOUNDS; i++) {
		double n = (double)s->bucket[i], hi = (double)topo_bound_ns[i];

		if (below + n >= rank && n > 0)
			return lo + (hi - lo) * (rank - below) / n;
		below += n;
		lo = hi;
	}
	return (double)topo_bound_ns[TOPO_NBOUNDS - 1];
}
