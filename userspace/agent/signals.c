/* Signal handlers that only set flags, and when they may run. */
#include <pthread.h>

#include "signals.h"

volatile sig_atomic_t signals_stop;
volatile sig_atomic_t signals_hup;
volatile sig_atomic_t signals_usr1;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		signals_hup = 1;
	else if (sig == SIGUSR1)
		signals_usr1 = 1;
	else
		signals_stop = sig;
}

void signals__setup(sigset_t *wait_mask, bool block)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	if (!block) {
		pthread_sigmask(SIG_BLOCK, NULL, wait_mask);
		return;
	}
	pthread_sigmask(SIG_BLOCK, &set, wait_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(wait_mask, sigs[i]);
}

void signals__poll(const sigset_t *wait_mask)
{
	sigset_t old;

	pthread_sigmask(SIG_SETMASK, wait_mask, &old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
