// fresh_read KiB WRITER_CORE: a thread on WRITER_CORE writes a buffer, the main thread on core 1 copies it (fresh) and then a cold buffer; prints both rates.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
static size_t N; static char *buf,*dst,*cold[32]; static atomic_int phase;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static int wc;
static void* writer(void*a){pin(wc);for(int it=0;it<20;it++){while(atomic_load(&phase)!=2*it);memset(buf,it,N);atomic_store(&phase,2*it+1);}return 0;}
int main(int c,char**v){N=(size_t)atoi(v[1])<<10; wc=atoi(v[2]); pin(1);
 buf=aligned_alloc(4096,N);dst=aligned_alloc(4096,N);memset(dst,0,N);
 for(int i=0;i<32;i++){cold[i]=aligned_alloc(4096,N);memset(cold[i],1,N);}
 pthread_t t;pthread_create(&t,0,writer,0);double fr=0,cd=0;
 for(int it=0;it<20;it++){while(atomic_load(&phase)!=2*it+1);double s=now();memcpy(dst,buf,N);double e=now();if(it>=4)fr+=e-s;
   s=now();memcpy(dst,cold[it%32],N);e=now();if(it>=4)cd+=e-s;atomic_store(&phase,2*it+2);}
 pthread_join(t,0);
 printf("%zu KiB, writer on core %d, reader core 1: fresh %.1f GB/s, cold(DRAM-ish) %.1f GB/s\n",N>>10,wc,N*16/fr/1e9,N*16/cd/1e9);}
