// busy.c: the work rate of one loop pinned to a vCPU (scripts/realdb/busy.sh runs it alone and
// with the same loop on the other vCPU; docs/realdb.md, "What grows from 1 to 16 threads").
//   busy c SECONDS           an integer ALU loop, M iterations/s
//   busy m SECONDS MIB       a pointer chase over a random cycle of MIB MiB, M loads/s
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  char mode=argv[1][0]; double secs=atof(argv[2]); size_t mib=argc>3?atol(argv[3]):0;
  uint64_t n=0; double t0=now(), end=t0+secs;
  if(mode=='c'){ uint64_t x=1; while(now()<end){ for(int i=0;i<1000000;i++){x=x*6364136223846793005ULL+1442695040888963407ULL;} n+=1000000;} if(x==7)puts(""); }
  else { size_t cnt=mib*1024*1024/sizeof(size_t); size_t*a=malloc(cnt*sizeof(size_t));
    for(size_t i=0;i<cnt;i++)a[i]=i; // Sattolo cycle
    uint64_t s=88172645463325252ULL; for(size_t i=cnt-1;i>0;i--){s^=s<<13;s^=s>>7;s^=s<<17;size_t j=s%i;size_t t=a[i];a[i]=a[j];a[j]=t;}
    t0=now(); end=t0+secs; size_t p=0; while(now()<end){for(int i=0;i<100000;i++)p=a[p]; n+=100000;} if(p==cnt)puts(""); }
  printf("%.2f\n", n/(now()-t0)/1e6); return 0; }
