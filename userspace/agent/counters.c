/* The counters gathered in one snapshot, and the metrics text rebuilt from
 * them, off the per-event path. */
#include "agent.h"

/* Everything counted so far, off the per-event path (a few syscalls). */
void agent__gather(struct agent *a)
{
	struct agent_counters *c = &a->counters;
	struct driver *d;

	if (a->cap) {
		capture__stats(a->cap, &c->cap);
		d = capture__driver(a->cap);
		c->live = d != NULL;
		if (d && summary__dropped(&c->cap.total))
			driver__drops_by_type(d, c->drops_by_type, PPM_EVENT_MAX);
	}
	c->tally = a->tally;
	c->n_outputs = a->outs.n;
	for (int i = 0; i < a->outs.n; i++)
		c->output_url[i] = a->outs.url[i];
	outputs__stats(&a->outs, c->out);
	if (a->in) {
		struct inspector_counters ic;

		container_table__counters(inspector__containers(a->in), &c->containers);
		c->have_containers = true;
		inspector__counters(a->in, &ic);
		c->close_reused = ic.n_close_reused;
		c->clone_self = ic.n_clone_self;
	}
	if (a->prof)
		agent__profile_counters(a, &c->profile);
	if (a->tls)
		tls_watch__counters(a->tls, &a->tls_seen);
	c->have_tls = a->tls_on;
	c->tls = a->tls_seen;
	if (a->req) {
		req_mode__counters(a->req, &c->pairing);
		req_mode__profile_counters(a->req, &c->profile);
		c->have_pairing = true;
	}
	/* --requests' metrics, or --tcp's */
	c->topo = a->topo;
}

/* The metrics text, rebuilt at most every PUBLISH_MS. */
void agent__publish_due(struct agent *a, uint64_t now, bool running)
{
	if (!a->metrics || now < a->next_publish_ms)
		return;
	a->next_publish_ms = now + PUBLISH_MS;
	agent__gather(a);
	agent_metrics__publish(a->metrics, &a->counters, running);
}
