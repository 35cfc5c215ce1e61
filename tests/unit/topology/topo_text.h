/* Checks of Prometheus text for the topology tests: a whole line present,
 * lines counted by prefix, and promtool's reading of it (PATH "" or NULL:
 * not installed, the check is skipped). After t_check.h. */
#ifndef TOPO_TEXT_H
#define TOPO_TEXT_H

#include <stdio.h>
#include <string.h>

static inline void check_line(const char *text, const char *line)
{
	char want[1024];
	const char *p;

	snprintf(want, sizeof(want), "%s\n", line);
	p = strstr(text, want);
	/* the whole line: at the start of the text or after a newline */
	while (p && p != text && p[-1] != '\n')
		p = strstr(p + 1, want);
	if (p)
		t_passed++;
	else {
		t_failed++;
		fprintf(stderr, "missing line: %s\n", line);
	}
}

static inline int count_prefix(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

static inline void promtool(const char *path, const char *text)
{
	char cmd[4200];
	FILE *f;

	if (!path || !*path) {
		printf("promtool not installed: its check of the text is skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' check metrics", path);
	f = popen(cmd, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	CHECK_INT(pclose(f), 0);
}

#endif
