/* Prints what was captured and what was lost, so a drop is never silent. */
#include <inttypes.h>

#include "summary.h"

uint64_t summary__dropped(const struct capture_cpu_stats *s)
{
	return s->drv_drops_buffer + s->drv_drops_scratch + s->drv_drops_bug + s->n_lost +
	       s->n_corrupt;
}

static void line(FILE *out, const char *who, const struct capture_cpu_stats *s)
{
	fprintf(out, "  %-6s events %" PRIu64 ", dropped %" PRIu64 " (ring full %" PRIu64
		", too big %" PRIu64 ", driver bug %" PRIu64 ", lost %" PRIu64 ", corrupt %"
		PRIu64 "), unreadable user memory %" PRIu64 "\n", who, s->n_evts,
		summary__dropped(s), s->drv_drops_buffer, s->drv_drops_scratch,
		s->drv_drops_bug, s->n_lost, s->n_corrupt, s->drv_drops_pf);
}

void summary__print(FILE *out, const struct capture_stats *st, const struct agent_tally *t)
{
	char name[16];

	fprintf(out, "agent: %" PRIu64 " events read, %" PRIu64 " matched, %" PRIu64
		" printed, %" PRIu64 " dropped, %" PRIu64 " malformed (capture mode: %s)\n",
		st->total.n_evts, t->matched, t->printed, summary__dropped(&st->total),
		t->malformed, st->mode ? st->mode : "?");
	if (st->total.n_reordered)
		fprintf(out, "agent: %" PRIu64 " events came out of timestamp order (their "
			"producer was preempted longer than the order window)\n",
			st->total.n_reordered);
	line(out, "total", &st->total);
	for (uint32_t c = 0; c < st->ncpus && c < CAPTURE_MAX_CPUS; c++) {
		snprintf(name, sizeof(name), "cpu%u", c);
		line(out, name, &st->cpu[c]);
	}
}

void summary__containers(FILE *out, const struct container_counters *c)
{
	if (!c->n_seen && !c->n_bad_json && !c->n_full)
		return;
	fprintf(out, "agent: containers %" PRIu64 " seen, %" PRIu64 " now; lookups %" PRIu64
		": %" PRIu64 " named, %" PRIu64 " without a runtime file, %" PRIu64
		" bad files (unreadable, too big or invalid); %" PRIu64 " not named (too many), "
		"%" PRIu64 " not tracked (table full), %" PRIu64 " malformed container records\n",
		c->n_seen, c->n_containers, c->n_lookups, c->n_found, c->n_missing,
		c->n_bad_files, c->n_not_named, c->n_full, c->n_bad_json);
}
