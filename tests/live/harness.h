/* Live driver tests: load the real driver, read its perf rings directly (simple
 * copying reader, independent of the capture layer) and find the test's events. */
#ifndef LIVE_HARNESS_H
#define LIVE_HARNESS_H

#include <stdint.h>
#include <stdio.h>

#include "loader.h"
#include "schema.h"

#define SKIP 77

struct harness;

struct hevt {
	struct ppm_evt_hdr hdr;
	struct schema_params p;
	uint8_t *frame;		/* owned copy */
	uint16_t cpu;
	uint32_t rec;		/* the ring record it came in, numbered per drain */
	/* An enter event exit-only capture left out, rebuilt here from its exit
	 * event (schema__eo_enter), as the capture layer rebuilds it. */
	bool rebuilt;
};

/* Opens, loads and attaches the driver capturing every process (the test's own
 * too). Exits 77 when not root or BPF is unavailable, 1 on any other failure.
 * CFG's syscalls (see harness__only) keep the load to what the test calls;
 * how many programs were loaded is said on stderr. */
struct harness *harness__open(uint32_t ring_pages, const struct driver_config *cfg);
/* A driver_config.syscalls set of the syscall numbers NRS, ended by -1: the
 * driver then loads only their programs (driver/plan.h). Allocated per call
 * and kept for the whole test. */
const uint8_t *harness__only(const int *nrs);
/* Whether the tests run in exit-only mode (AGENT_TEST_EXIT_ONLY=1): every
 * harness__open then loads the driver with driver_config.exit_only. */
bool harness__exit_only(void);
/* Whether exit-only capture keeps its dispatcher on the raw sys_exit
 * tracepoint (AGENT_TEST_RAW_EXIT=1: driver_config.no_syscall_tps), where it
 * would go on the test's syscalls' own tracepoints. */
bool harness__raw_exit(void);
/* Whether the driver writes into BPF ring buffers (AGENT_TEST_ENGINE=ringbuf),
 * read by this harness, instead of perf rings. */
bool harness__ringbuf(void);
struct driver *harness__driver(struct harness *h);
/* Drains every ring; keeps the events of TID (all if TID < 0). Returns how many
 * were kept (in timestamp order, see harness__get), or a negative errno. */
int harness__drain(struct harness *h, int64_t tid);
int harness__count(struct harness *h);
struct hevt *harness__get(struct harness *h, int i);
/* The first kept event of TYPE at or after index *from (updated), or NULL. */
struct hevt *harness__find(struct harness *h, uint16_t type, int *from);
uint64_t harness__lost(struct harness *h);
void harness__close(struct harness *h);

/* Checks with a message; the test's result is the count of failures. */
extern int harness_failures, harness_checks;
#define EXPECT(cond) do { harness_checks++; if (!(cond)) { harness_failures++; \
	fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
/* Integer param I of E equals V (sign-extended per its type). */
#define EXPECT_PARAM_INT(e, i, v) EXPECT(hevt__int(e, i) == (int64_t)(v))
#define EXPECT_PARAM_STR(e, i, s) EXPECT(hevt__str_eq(e, i, s))
#define EXPECT_PARAM_EMPTY(e, i) EXPECT((e)->p.n > (i) && (e)->p.len[i] == 0)

int64_t hevt__int(const struct hevt *e, uint32_t i);
int hevt__str_eq(const struct hevt *e, uint32_t i, const char *s);
/* Checks the header: type, tid, len == sum, nparams == the table's. */
void hevt__expect_header(const struct hevt *e, uint16_t type, int64_t tid);
int harness__report(const char *name);

#endif
