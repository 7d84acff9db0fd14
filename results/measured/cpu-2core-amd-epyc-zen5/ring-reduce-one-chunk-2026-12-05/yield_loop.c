// yield_loop CORE MODE: pinned to CORE, loops forever: MODE 0 a busy loop, 1 sched_yield() in a loop (a waiting rank on more ranks than cores).
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
int main(int c,char**v){cpu_set_t s;CPU_ZERO(&s);CPU_SET(atoi(v[1]),&s);sched_setaffinity(0,sizeof s,&s);int mode=atoi(v[2]);volatile long x=0;for(;;){if(mode)sched_yield();else x++;}}
