// Wake-ups in a crowd (docs/realdb.md, "A host that pays for waking a vCPU"): PAIRS pairs of
// threads, unpinned, each pair handing a futex turn back and forth N times; prints the CPU
// (getrusage) and wall time a wake-up and how many vCPUs were busy. With one pair on two vCPUs
// each wake-up finds the other vCPU idle (an IPI); with more, the vCPUs are busy.
//   gcc -O2 -pthread -o wake-crowd scripts/realdb/wake-crowd.c
//   for p in 1 2 4 8; do ./wake-crowd $p 20000; done
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
typedef struct { atomic_int turn; int n; } pair_t;
static void fwait(atomic_int *a,int v){ while(atomic_load(a)==v) syscall(SYS_futex,a,FUTEX_WAIT_PRIVATE,v,NULL,NULL,0); }
static void fwake(atomic_int *a){ syscall(SYS_futex,a,FUTEX_WAKE_PRIVATE,1,NULL,NULL,0); }
static void *A(void *x){ pair_t *p=x; for(int i=0;i<p->n;i++){ atomic_store(&p->turn,1); fwake(&p->turn); fwait(&p->turn,1);} return 0; }
static void *B(void *x){ pair_t *p=x; for(int i=0;i<p->n;i++){ fwait(&p->turn,0); atomic_store(&p->turn,0); fwake(&p->turn);} return 0; }
int main(int c,char**v){ int P=atoi(v[1]), N=atoi(v[2]); int work=c>3?atoi(v[3]):0;
 pair_t *ps=calloc(P,sizeof *ps); pthread_t *t=calloc(2*P,sizeof *t);
 struct rusage r0,r1; struct timespec w0,w1; getrusage(RUSAGE_SELF,&r0); clock_gettime(CLOCK_MONOTONIC,&w0);
 for(int i=0;i<P;i++){ ps[i].n=N; pthread_create(&t[2*i],0,B,&ps[i]); pthread_create(&t[2*i+1],0,A,&ps[i]); }
 for(int i=0;i<2*P;i++) pthread_join(t[i],0);
 getrusage(RUSAGE_SELF,&r1); clock_gettime(CLOCK_MONOTONIC,&w1);
 double cpu=(r1.ru_utime.tv_sec-r0.ru_utime.tv_sec)+(r1.ru_utime.tv_usec-r0.ru_utime.tv_usec)/1e6+(r1.ru_stime.tv_sec-r0.ru_stime.tv_sec)+(r1.ru_stime.tv_usec-r0.ru_stime.tv_usec)/1e6;
 double wall=(w1.tv_sec-w0.tv_sec)+(w1.tv_nsec-w0.tv_nsec)/1e9; double wakes=2.0*P*N;
 printf("{\"pairs\": %d, \"wakes\": %.0f, \"cpu_us_per_wake\": %.3f, \"wall_us_per_wake\": %.3f, \"vcpus_busy\": %.2f}\n",P,wakes,cpu/wakes*1e6,wall/wakes*1e6,cpu/wall);
 return 0; }
