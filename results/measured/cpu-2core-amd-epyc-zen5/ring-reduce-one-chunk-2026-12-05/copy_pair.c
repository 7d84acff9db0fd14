// copy_pair T KiB: T threads (1 or 2) each memcpy a KiB-sized buffer out of 16 (off the caches) at the same moment (a barrier before each), 32 timed; prints each thread's mean time and rate.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
static size_t N; static int T; static pthread_barrier_t b;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void* run(void*a){
  /* off-cache: rotate through 16 buffer pairs spanning > L3 */
  int P=16; char**s=malloc(P*sizeof(char*)),**d=malloc(P*sizeof(char*));
  for(int i=0;i<P;i++){s[i]=malloc(N);d[i]=malloc(N);memset(s[i],1,N);memset(d[i],2,N);}
  double tot=0;
  for(int it=0;it<40;it++){pthread_barrier_wait(&b);double t=now();memcpy(d[it%P],s[it%P],N);t=now()-t;if(it>=8)tot+=t;pthread_barrier_wait(&b);}
  *(double*)a=tot/32; return 0;}
int main(int c,char**v){T=atoi(v[1]);N=(size_t)atoi(v[2])<<10;pthread_barrier_init(&b,0,T);pthread_t th[8];double r[8];
 for(int i=0;i<T;i++)pthread_create(&th[i],0,run,&r[i]);for(int i=0;i<T;i++){pthread_join(th[i],0);printf("T=%d size %zu KiB thread %d: %.1f us, %.1f GB/s copied\n",T,N>>10,i,r[i]*1e6,N/r[i]/1e9);}}
