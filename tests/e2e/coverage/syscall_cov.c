/* Makes the system calls a typical process makes: the dynamic loader's start-up,
 * files, directories, fds, sockets (TCP, UDP, unix), a thread, timers, signals,
 * polling, and a few newer calls. Run under strace and the agent at once, it
 * gives the coverage test one run seen by both. Each call's result is whatever
 * the kernel says: the test compares, it does not expect. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

static void files(const char *dir)
{
	char path[256], lnk[256], buf[128];
	struct stat st;
	int fd, d, saved;

	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(lnk, sizeof(lnk), "%s/l", dir);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0640);
	write(fd, "hello\n", 6);
	pwrite(fd, "HE", 2, 0);
	lseek(fd, 0, SEEK_SET);
	read(fd, buf, sizeof(buf));
	pread(fd, buf, 2, 1);
	fstat(fd, &st);
	stat(path, &st);
	lstat(path, &st);
	fchmod(fd, 0600);
	chmod(path, 0644);
	flock(fd, LOCK_EX);
	flock(fd, LOCK_UN);
	/* a shell's redirection: stdout saved, replaced, restored */
	saved = fcntl(1, F_DUPFD_CLOEXEC, 10);
	dup2(fd, 1);
	write(1, "via stdout\n", 11);
	dup2(saved, 1);
	close(saved);
	fsync(fd);
	ftruncate(fd, 3);
	close(fd);
	symlink(path, lnk);
	readlink(lnk, buf, sizeof(buf));
	link(path, lnk);	/* EEXIST */
	unlink(lnk);
	access(path, R_OK);
	access("/nonexistent/cov", F_OK);
	rename(path, lnk);
	unlink(lnk);
	mkdir(lnk, 0700);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	syscall(SYS_getdents64, d, buf, sizeof(buf));
	fchdir(d);
	chdir("/");
	getcwd(buf, sizeof(buf));
	rmdir(lnk);
	close(d);
	open("/nonexistent/cov", O_RDONLY);
}

static void sockets(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	char buf[64];
	int l, c, s, u1, u2, sp[2], one = 1;

	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	bind(l, (struct sockaddr *)&a, sizeof(a));
	listen(l, 1);
	getsockname(l, (struct sockaddr *)&a, &len);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&a, sizeof(a));
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	send(c, "ping", 4, 0);
	recv(s, buf, sizeof(buf), 0);
	getpeername(c, (struct sockaddr *)&a, &len);
	getsockopt(c, SOL_SOCKET, SO_ERROR, &one, &len);
	shutdown(c, SHUT_WR);
	close(s);
	close(c);
	close(l);

	/* unconnected UDP: the tuple comes from the addresses */
	u1 = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_port = 0;
	bind(u1, (struct sockaddr *)&a, sizeof(a));
	len = sizeof(a);
	getsockname(u1, (struct sockaddr *)&a, &len);
	u2 = socket(AF_INET, SOCK_DGRAM, 0);
	sendto(u2, "dgram", 5, 0, (struct sockaddr *)&a, sizeof(a));
	recvfrom(u1, buf, sizeof(buf), 0, NULL, NULL);
	close(u1);
	close(u2);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
	write(sp[0], "x", 1);
	read(sp[1], buf, 1);
	close(sp[0]);
	close(sp[1]);
}

static void *worker(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	(void)arg;
	nanosleep(&ts, NULL);
	syscall(SYS_getpid);
	return NULL;
}

static void threads_timers_signals(void)
{
	struct itimerspec its = { .it_value = { 0, 2000000 } };
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd pfd;
	struct timespec ts = { 0, 0 };
	uint64_t v;
	sigset_t set;
	pthread_t t;
	fd_set rfds;
	struct timeval tv = { 0, 0 };
	int efd, tfd, sfd, ep, ifd, m, p[2];

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);

	efd = eventfd(1, EFD_CLOEXEC);
	read(efd, &v, sizeof(v));
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	timerfd_settime(tfd, 0, &its, NULL);
	pfd.fd = tfd;
	pfd.events = POLLIN;
	poll(&pfd, 1, 1000);
	read(tfd, &v, sizeof(v));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = efd;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	epoll_wait(ep, &ev, 1, 0);
	ppoll(&pfd, 1, &ts, NULL);
	FD_ZERO(&rfds);
	FD_SET(efd, &rfds);
	select(efd + 1, &rfds, NULL, NULL, &tv);
	ifd = inotify_init1(IN_CLOEXEC);
	pipe2(p, O_CLOEXEC);

	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);	/* the handler returns through rt_sigreturn */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	m = memfd_create("cov", MFD_CLOEXEC);
	ftruncate(m, 4096);
	mmap(NULL, 4096, PROT_READ, MAP_SHARED, m, 0);
	syscall(SYS_pidfd_open, getpid(), 0);
	close(efd);
	close(tfd);
	close(ep);
	close(ifd);
	close(sfd);
	close(m);
	close(p[0]);
	close(p[1]);
	syscall(SYS_close_range, 100, 200, 0);
}

static void process_info(void)
{
	struct utsname u;
	struct rlimit rl;
	char name[16];
	pid_t child;

	getuid();
	geteuid();
	getgid();
	getegid();
	getppid();
	uname(&u);
	getrlimit(RLIMIT_NOFILE, &rl);
	prctl(PR_GET_NAME, name);
	umask(022);
	child = fork();
	if (child == 0)
		_exit(3);
	waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: syscall_cov DIR\n");
		return 2;
	}
	files(argv[1]);
	sockets();
	threads_timers_signals();
	process_info();
	return got == SIGUSR1 ? 0 : 1;
}
