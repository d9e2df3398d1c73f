// What a redo-like sync adds before a binlog-like sync on this machine, with
// no database in between (docs/realdb.md, "The redo sync before a binlog
// sync, without MariaDB"). Each iteration spins SPIN us of CPU, then (mode
// 1) writes 4 KiB with O_DIRECT to DIR/syncpair-redo and fdatasyncs it, then
// appends 1,100 B to DIR/syncpair-binlog (buffered, growing) and fdatasyncs
// that: the 1-thread commit of sync_binlog=1 at flush=1 (mode 0: at flush=0).
// The modes alternate in ROUNDS rounds of N iterations (0 1 1 0 ...), so a
// pair shares the host's state. With HOPS > 0 a second thread plays the
// client: it hands the server thread HOPS queries through a futex, each
// SPIN/HOPS us of the server's CPU, spinning CLIENT_US of its own between
// them, and the syncs run in the last one (sysbench's round trips at 1
// thread). SYNCPAIR_MODE=0 or 1 runs every round in that mode, for perf stat's
// counts. One JSON object a round on stdout. The files are removed at the
// end.
//   gcc -O2 -pthread -o syncpair scripts/realdb/syncpair.c
//   ./syncpair DIR 250 3000 4          # one thread
//   ./syncpair DIR 250 3000 4 6 12     # a client thread, 6 queries, 12 us each
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void spin_for(double us)
{
	double s = now_us();
	while (now_us() - s < us) {
	}
}

// The hand-off between the client and the server thread: turn is 1 while
// the server has a query, 0 while the client has the reply.
static atomic_int turn;
static void fwait(int v)
{
	while (atomic_load(&turn) == v)
		syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
static void fset(int v)
{
	atomic_store(&turn, v);
	syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int hops, total;
static double client_us;
static void *client(void *x)
{
	(void)x;
	for (int i = 0; i < total * hops; i++) {
		spin_for(client_us);
		fset(1);
		fwait(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: syncpair DIR SPIN_US N ROUNDS [HOPS CLIENT_US]\n");
		return 2;
	}
	const char *dir = argv[1];
	int spin = atoi(argv[2]), n = atoi(argv[3]), rounds = atoi(argv[4]);
	if (argc == 7) {
		hops = atoi(argv[5]);
		client_us = atof(argv[6]);
	}
	total = n * rounds;
	// SYNCPAIR_MODE=0 or 1 runs every round in that mode (for perf stat).
	const char *m = getenv("SYNCPAIR_MODE");
	int only = m ? atoi(m) : -1;
	pthread_t ct;
	if (hops > 0 && pthread_create(&ct, NULL, client, NULL) != 0)
		return 1;
	char redo[4096], binlog[4096];
	snprintf(redo, sizeof redo, "%s/syncpair-redo", dir);
	snprintf(binlog, sizeof binlog, "%s/syncpair-binlog", dir);
	const off_t size = 64 << 20;
	int fa = open(redo, O_RDWR | O_CREAT | O_DIRECT, 0644);
	int fb = open(binlog, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fa < 0 || fb < 0 || ftruncate(fa, size) != 0) {
		perror("syncpair: open");
		return 1;
	}
	void *buf;
	if (posix_memalign(&buf, 4096, 4096) != 0)
		return 1;
	memset(buf, 1, 4096);
	char rec[1100];
	memset(rec, 2, sizeof rec);
	off_t off = 0;
	for (int r = 0; r < rounds; r++) {
		int mode = (r % 4 == 1 || r % 4 == 2); // 0 1 1 0 0 1 1 0 ...
		if (only >= 0)
			mode = only;
		double t0 = now_us(), tr = 0, tb = 0;
		for (int i = 0; i < n; i++) {
			if (hops == 0) {
				spin_for(spin);
			}
			for (int q = 0; q < hops; q++) {
				fwait(0);
				spin_for((double)spin / hops);
				if (q < hops - 1)
					fset(0);
			}
			double a = now_us();
			if (mode) {
				if (pwrite(fa, buf, 4096, off) != 4096 || fdatasync(fa) != 0) {
					perror("syncpair: redo");
					return 1;
				}
				off = (off + 4096) % size;
			}
			double b = now_us();
			if (write(fb, rec, sizeof rec) != sizeof rec || fdatasync(fb) != 0) {
				perror("syncpair: binlog");
				return 1;
			}
			double c = now_us();
			if (hops > 0)
				fset(0); // the reply to the commit
			tr += b - a;
			tb += c - b;
		}
		double t = now_us() - t0;
		printf("{\"round\": %d, \"redo_sync\": %d, \"spin_us\": %d, \"hops\": %d, \"client_us\": %.1f, "
		       "\"iterations\": %d, \"us_per_iteration\": %.1f, \"redo_us\": %.1f, \"binlog_us\": %.1f}\n",
		       r + 1, mode, spin, hops, client_us, n, t / n, tr / n, tb / n);
		fflush(stdout);
	}
	if (hops > 0)
		pthread_join(ct, NULL);
	unlink(redo);
	unlink(binlog);
	return 0;
}
