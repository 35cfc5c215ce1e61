/* tls_libs: which mappings name a TLS library, and a scan of a /proc tree
 * made here: each file handed out once by device and inode, whichever
 * process maps it; a file the callback refuses tried again at the next scan
 * through another process; no versionless link, NSS's libssl3.so, data
 * mapping or deleted file; a process without maps counted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t_check.h"
#include "tls_libs.h"

static char root[64];

static void put_maps(const char *pid, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/maps", root, pid);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

#define SSL_X "7f0000000000-7f0000010000 r-xp 00020000 fe:01 1001 /usr/lib/x86_64-linux-gnu/libssl.so.3\n"
#define SSL_R "7f0000010000-7f0000020000 r--p 00000000 fe:01 1001 /usr/lib/x86_64-linux-gnu/libssl.so.3\n"
#define GNUTLS_X "7f1000000000-7f1000010000 r-xp 00040000 fe:01 2002 /usr/lib/x86_64-linux-gnu/libgnutls.so.30.34.3\n"
#define COPY_X "7f2000000000-7f2000010000 r-xp 00020000 00:2a 3003 /opt/app/lib/libssl.so.1.1\n"
#define NSS_X "7f3000000000-7f3000010000 r-xp 00020000 fe:01 4004 /usr/lib/libssl3.so\n"
#define LINK_X "7f4000000000-7f4000010000 r-xp 00020000 fe:01 5005 /usr/lib/libssl.so\n"
#define GONE_X "7f5000000000-7f5000010000 r-xp 00020000 fe:01 6006 /usr/lib/libgnutls.so.30 (deleted)\n"
#define OTHER_X "55d000000000-55d000010000 r-xp 00001000 fe:01 7007 /usr/bin/curl\n"

struct seen {
	int n;
	char path[8][160];
	int kind[8];
	long long pid[8];
	int refuse;	/* refuse this many more */
};

static int on_lib(void *ctx, const struct tls_lib_found *f)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->path[s->n], sizeof(s->path[0]), "%s", f->path);
		s->kind[s->n] = f->kind;
		s->pid[s->n] = f->pid;
	}
	s->n++;
	if (s->refuse > 0) {
		s->refuse--;
		return -ENOENT;
	}
	return 0;
}

static void test_kind(void)
{
	CHECK_INT(tls_libs__kind("/usr/lib/x86_64-linux-gnu/libssl.so.3"), TLS_LIB_OPENSSL);
	CHECK_INT(tls_libs__kind("libssl.so.1.1"), TLS_LIB_OPENSSL);
	CHECK_INT(tls_libs__kind("/lib/libgnutls.so.30"), TLS_LIB_GNUTLS);
	CHECK_INT(tls_libs__kind("/usr/lib/libssl3.so"), 0);		/* NSS */
	CHECK_INT(tls_libs__kind("/usr/lib/libssl.so"), 0);		/* the -dev link */
	CHECK_INT(tls_libs__kind("/usr/lib/libssl.so.x"), 0);
	CHECK_INT(tls_libs__kind("/usr/lib/libgnutls-openssl.so.27"), 0);
	CHECK_INT(tls_libs__kind("/usr/lib/libcrypto.so.3"), 0);
	CHECK_INT(tls_libs__kind(""), 0);
}

static void test_scan(void)
{
	struct tls_libs_counters c;
	struct tls_libs *t;
	struct seen s = { 0 };
	char want[160];
	int taken;

	put_maps("100", OTHER_X SSL_X SSL_R GNUTLS_X NSS_X LINK_X GONE_X);
	put_maps("200", SSL_X COPY_X);
	put_maps("not-a-pid", SSL_X);
	mkdir(strcat(strcpy(want, root), "/300"), 0700);	/* no maps: gone */
	t = tls_libs__new(root);
	CHECK(t != NULL);
	if (!t)
		return;
	s.refuse = 1;	/* the first file handed out: tried again later */
	taken = tls_libs__scan(t, on_lib, &s);
	tls_libs__counters(t, &c);
	/* the refused file is taken in the same scan where another process
	 * maps it later in it (readdir's order is not the pids') */
	CHECK(taken == 2 || taken == 3);
	CHECK_INT(c.scans, 1);
	CHECK_INT(c.files, taken);
	CHECK_INT(c.refused, 1);
	CHECK_INT(c.unreadable, 1);
	CHECK_INT(s.n, taken + 1);
	/* each file named through the process it was found in */
	for (int i = 0; i < s.n && i < 8; i++) {
		const char *base = strrchr(s.path[i], '/') + 1;

		snprintf(want, sizeof(want), "%s/%lld/root/", root, s.pid[i]);
		CHECK(!strncmp(s.path[i], want, strlen(want)));
		CHECK(!strcmp(base, "libssl.so.3") || !strcmp(base, "libgnutls.so.30.34.3") ||
		      !strcmp(base, "libssl.so.1.1"));
		CHECK_INT(s.kind[i], base[3] == 'g' ? TLS_LIB_GNUTLS : TLS_LIB_OPENSSL);
	}
	/* the next scan hands out what is left, then nothing more */
	CHECK_INT(tls_libs__scan(t, on_lib, &s), 3 - taken);
	CHECK_INT(tls_libs__scan(t, on_lib, &s), 0);
	tls_libs__counters(t, &c);
	CHECK_INT(c.files, 3);
	CHECK_INT(c.refused, 1);
	CHECK_INT(c.scans, 3);
	tls_libs__free(t);
	/* a root that cannot be listed */
	t = tls_libs__new("/nonexistent/proc");
	CHECK_INT(tls_libs__scan(t, on_lib, &s), -ENOENT);
	tls_libs__free(t);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/tls_libs.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_kind();
	test_scan();
	if (system("rm -rf /tmp/tls_libs.??????") == -1)
		perror("rm");
	return t_report();
}
