// The CPU of a thread's wake-up on this machine (docs/model-engine.md,
// engine.cpu.wakeup): two threads hand a turn back and forth through a
// futex N times, each sleeping until the other wakes it; the process's CPU
// (user + system, getrusage) and the wall time are reported per wake-up,
// as one JSON object. scripts/realdb/wake.sh runs it five times a pinning.
//   gcc -O2 -pthread -o wake scripts/realdb/wake.c
//   ./wake 20000 0 1    # the two threads pinned to vCPUs 0 and 1 (an IPI a wake)
//   ./wake 20000 0 0    # both on vCPU 0 (a context switch, no IPI)
//   ./wake 20000 -1 -1  # unpinned, as the scheduler places them
//   ./wake 20000 0 0 p  # two processes instead of threads (a shared futex
//                       # word; each switch also changes the address space)
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static atomic_int turn0, *turnp = &turn0; static int N; static int cpuA, cpuB; static int shared;
#define turn (*turnp)
static void fwait(atomic_int *a, int v){ while (atomic_load(a)==v) syscall(SYS_futex, a, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0); }
static void fwake(atomic_int *a){ syscall(SYS_futex, a, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
static void pin(int c){ if(c<0) return; cpu_set_t s; CPU_ZERO(&s); CPU_SET(c,&s); pthread_setaffinity_np(pthread_self(),sizeof s,&s); }
static void *b(void *x){ pin(cpuB); for(int i=0;i<N;i++){ fwait(&turn,0); atomic_store(&turn,0); fwake(&turn);} return 0; }
static double secs(struct timeval t){ return t.tv_sec + t.tv_usec/1e6; }
int main(int argc,char**argv){ N=atoi(argv[1]); cpuA=atoi(argv[2]); cpuB=atoi(argv[3]); shared = argc > 4 && argv[4][0]=='p';
 pthread_t t; pid_t child = 0;
 if (shared) {
  turnp = mmap(0, sizeof *turnp, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1, 0);
  if (turnp == MAP_FAILED) { perror("mmap"); return 1; }
  atomic_store(turnp, 0);
  if ((child = fork()) == 0) { b(0); _exit(0); }
 } else pthread_create(&t,0,b,0);
 pin(cpuA);
 struct rusage r0,r1,c1; struct timespec w0,w1; getrusage(RUSAGE_SELF,&r0); clock_gettime(CLOCK_MONOTONIC,&w0);
 for(int i=0;i<N;i++){ atomic_store(&turn,1); fwake(&turn); fwait(&turn,1);}
 if (shared) { int st; waitpid(child,&st,0); } else pthread_join(t,0);
 getrusage(RUSAGE_SELF,&r1); clock_gettime(CLOCK_MONOTONIC,&w1);
 double cpu=secs(r1.ru_utime)-secs(r0.ru_utime)+secs(r1.ru_stime)-secs(r0.ru_stime);
 if (shared) { getrusage(RUSAGE_CHILDREN,&c1); cpu += secs(c1.ru_utime)+secs(c1.ru_stime); }
 double wall=(w1.tv_sec-w0.tv_sec)+(w1.tv_nsec-w0.tv_nsec)/1e9;
 printf("{\"pin\": \"%d/%d%s\", \"round_trips\": %d, \"wall_us_per_wake\": %.3f, \"cpu_us_per_wake\": %.3f}\n",cpuA,cpuB,shared?"p":"",N,wall/(2.0*N)*1e6,cpu/(2.0*N)*1e6); return 0; }
