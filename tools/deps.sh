#!/usr/bin/env bash
# Installs the Debian packages that building and testing the agent need.
# Idempotent; needs root (apt-get).
set -euo pipefail

# sysdig: only its capture-file reader, which the tests check our files against.
# libjson-c-dev: the container runtimes' files (userspace/container).
# libcurl4-openssl-dev: http(s) outputs; libmicrohttpd-dev: the --metrics server;
# prometheus: its promtool checks our metrics text (unit), it scrapes us (e2e).
# linux-perf: perf record of the scheduler, an oracle for --profile (e2e).
# libssl-dev, libgnutls28-dev: the TLS libraries the driver's TLS probes know,
# both ends of tests/live/test_tls.c's connection.
# libnghttp2-dev: HPACK, HTTP/2's header compression (userspace/requests).
# nghttp2-client (h2load), python3-grpcio: HTTP/2 and gRPC clients (e2e).
# libcapstone-dev: decodes Go programs' functions for the Go TLS probes' RETs;
# golang-go: the Go TLS programs the e2e test builds.
# librdkafka-dev: the Kafka client whose mock cluster (a broker inside the
# client's process) tests/e2e/kafka/kprod.c talks to (e2e_req_kafka).
pkgs=(meson ninja-build pkg-config python3 gcc clang llvm bpftool
      libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libcurl4-openssl-dev libmicrohttpd-dev
      libssl-dev libgnutls28-dev libnghttp2-dev libcapstone-dev golang-go nghttp2-client python3-grpcio valgrind sysdig prometheus linux-perf
      librdkafka-dev)

# Installs those of its arguments that are missing.
install_missing() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing packages: ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_missing "${pkgs[@]}"
# The real servers and clients the request-mode tests (tests/e2e/test_req_*)
# talk to, installed here rather than inside the tests' time bounds; their
# services are not started (policy-rc.d): each test starts its own on a port
# of its own.
servers=(nginx-light apache2 apache2-utils curl wget openssl redis-server redis-tools dnsmasq-base bind9-dnsutils bind9 dnsperf
	 mariadb-server mariadb-client postgresql postgresql-contrib python3-psycopg graphviz busybox-static runc
	 libmariadb-dev golang-github-go-sql-driver-mysql-dev)
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
install_missing "${servers[@]}"
# tools/fuzz.sh: libFuzzer and the sanitizers' runtimes are in the runtime
# package of clang's own version (libclang_rt.fuzzer-x86_64.a).
install_missing "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
