/* The agent's exit summary (userspace/agent/summary.c) from counters set by
 * hand: the drops line adds its parts, and the line of the kernel's skipped
 * program runs is there when some were skipped, with each part, and only
 * then. */
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "t_check.h"

/* summary__print of C into a string (freed by the caller). */
static char *printed(const struct agent_counters *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	summary__print(f, c, NULL);
	fclose(f);
	return buf;
}

static void test_skipped(void)
{
	struct agent_counters *c = calloc(1, sizeof(*c));
	char *s;

	c->live = true;
	c->cap.mode = "double-map";
	s = printed(c);
	CHECK(strstr(s, "agent: dropped 0 = ring full 0") != NULL);
	CHECK(strstr(s, "skipped") == NULL);
	free(s);

	c->cap.total.drv_skipped_paired = 17;
	c->cap.total.drv_skipped_lost = 2;
	c->cap.total.drv_drops_buffer = 3;
	c->cap.total.n_corrupt = 1;
	s = printed(c);
	CHECK(strstr(s, "agent: dropped 4 = ring full 3 + too big 0 + driver bug 0 + corrupt records 1")
	      != NULL);
	CHECK(strstr(s, "agent: the kernel skipped 19 runs of the driver's tracepoint programs, "
			"each nested on a CPU where its program ran: 17 of TCP health's, made by "
			"their pair's other program; 2 lost") != NULL);
	free(s);

	/* only lost ones: still shown */
	c->cap.total.drv_skipped_paired = 0;
	s = printed(c);
	CHECK(strstr(s, "the kernel skipped 2 runs") != NULL);
	free(s);
	free(c);
}

int main(void)
{
	test_skipped();
	return t_report();
}
