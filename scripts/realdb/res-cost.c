// What a wake-up that preempts a busy remote vCPU costs (docs/realdb.md, "Reschedule
// interrupts"). A spinner pinned to vCPU X counts the rounds of a fixed loop for SECONDS; a
// sleeper pinned to X waits on a futex; a waker pinned to vCPU Y wakes it, spins until it has
// run, then spins GAP_US, so that Y never idles. Each wake-up preempts the spinner: the kernel
// sends X a reschedule IPI (RES in /proc/interrupts). MODE "remote" does that; MODE "nowaiter"
// is its baseline: the same waker loop, its futex_wake finding no one, and no sleeper.
// The spinner's lost rounds per wake-up against the baseline are what a wake-up takes from X
// (the IPI's exits and handler, two switches, the sleeper's few instructions); the waker's time
// in futex_wake beyond the baseline's is what the sender pays. One JSON object on stdout.
//   gcc -O2 -pthread -o res-cost scripts/realdb/res-cost.c; ./res-cost X Y SECONDS GAP_US MODE
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int turn, stop, ran, nobody;
static int X, Y, remote;
static double secs, gap_us;
static double rounds, spin_cpu, in_wake, sleeper_cpu;
static long wakes;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double tcpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static void spin_for(double us) { double g = now(); while (now() - g < us / 1e6) ; }

static void *spinner(void *a) {
	pin(X);
	double c0 = tcpu(), t0 = now(), t;
	unsigned long n = 0; volatile unsigned long x = 0;
	for (;;) { for (int i = 0; i < 20000; i++) x += i; n++; t = now(); if (t - t0 >= secs) break; }
	rounds = n / (t - t0); spin_cpu = (tcpu() - c0) / (t - t0);
	atomic_store(&stop, 1);
	return 0;
}

static void *sleeper(void *a) {
	pin(X);
	double c0 = tcpu();
	while (!atomic_load(&stop)) {
		while (atomic_load(&turn) == 0 && !atomic_load(&stop))
			syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		atomic_store(&turn, 0);
		atomic_fetch_add(&ran, 1);
	}
	sleeper_cpu = tcpu() - c0;
	return 0;
}

static void *waker(void *a) {
	pin(Y);
	while (!atomic_load(&stop)) {
		int r = atomic_load(&ran);
		atomic_store(&turn, 1);
		double t0 = now();
		syscall(SYS_futex, remote ? &turn : &nobody, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		in_wake += now() - t0;
		wakes++;
		if (remote)
			while (atomic_load(&ran) == r && !atomic_load(&stop)) ; // until the sleeper has run
		else
			spin_for(15); // about the sleeper's wake-up latency
		spin_for(gap_us);
	}
	atomic_store(&turn, 1);
	syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return 0;
}

int main(int c, char **v) {
	if (c != 6 || (strcmp(v[5], "remote") && strcmp(v[5], "nowaiter"))) {
		fprintf(stderr, "usage: res-cost X Y SECONDS GAP_US remote|nowaiter\n");
		return 2;
	}
	X = atoi(v[1]); Y = atoi(v[2]); secs = atof(v[3]); gap_us = atof(v[4]);
	remote = strcmp(v[5], "remote") == 0;
	pthread_t s, z, w;
	if (remote) { pthread_create(&z, 0, sleeper, 0); usleep(10000); }
	pthread_create(&s, 0, spinner, 0);
	pthread_create(&w, 0, waker, 0);
	pthread_join(s, 0); pthread_join(w, 0);
	if (remote) pthread_join(z, 0);
	printf("{\"mode\": \"%s\", \"rounds_per_s\": %.1f, \"spinner_cpu_share\": %.4f, \"wakes\": %ld, "
	       "\"us_in_futex_wake\": %.3f, \"sleeper_cpu_us\": %.3f}\n",
	       v[5], rounds, spin_cpu, wakes, in_wake / wakes * 1e6, remote ? sleeper_cpu / atomic_load(&ran) * 1e6 : 0.0);
	return 0;
}
