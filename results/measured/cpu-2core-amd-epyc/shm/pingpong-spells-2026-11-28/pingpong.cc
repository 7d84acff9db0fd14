// Cache-line ping-pong between threads pinned to cpu 0 and cpu 1: round-trip ns (median of 9 runs).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <vector>
#include <algorithm>
alignas(64) std::atomic<long> flag{0};
void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
int main(){
  const long N=200000; std::vector<double> r;
  for(int rep=0;rep<9;++rep){
    flag=0;
    std::thread t([&]{pin(1);for(long i=0;i<N;++i){while(flag.load(std::memory_order_acquire)!=2*i+1){}flag.store(2*i+2,std::memory_order_release);}});
    pin(0); auto a=std::chrono::steady_clock::now();
    for(long i=0;i<N;++i){flag.store(2*i+1,std::memory_order_release);while(flag.load(std::memory_order_acquire)!=2*i+2){}}
    auto b=std::chrono::steady_clock::now(); t.join();
    r.push_back(std::chrono::duration<double,std::nano>(b-a).count()/N);
  }
  std::sort(r.begin(),r.end()); std::printf("%.0f\n",r[4]);
}
