// A fixed CPU loop that prints its rounds per second over SECONDS (scripts/realdb/irq-cost.sh):
// run pinned to the vCPU that takes the block device's interrupts, alone and while fio does
// QD1 writes, it measures the CPU each completion interrupt takes from a busy vCPU.
//   gcc -O2 -o spin scripts/realdb/spin.c; ./spin SECONDS
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int c,char**v){ double secs=atof(v[1]); struct timespec t0,t; clock_gettime(CLOCK_MONOTONIC,&t0);
 unsigned long n=0; volatile unsigned long x=0;
 for(;;){ for(int i=0;i<100000;i++) x+=i; n++; clock_gettime(CLOCK_MONOTONIC,&t); if((t.tv_sec-t0.tv_sec)+(t.tv_nsec-t0.tv_nsec)/1e9>=secs) break; }
 double el=(t.tv_sec-t0.tv_sec)+(t.tv_nsec-t0.tv_nsec)/1e9; printf("%.1f\n", n/el); return 0; }
