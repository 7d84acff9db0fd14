// One core copies `bytes` out of a buffer another core owns, timed on the copying core: the source
// either unchanged since the last copy (fresh=0: its lines stay in the copier's cache, shared) or
// rewritten by its owner before each copy (fresh=1: every line Modified in the owner's cache).
// Two threads pinned to cores 0 and 1, handing turns over with an atomic counter.
#include <pthread.h>
#include <sched.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <algorithm>

static void pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int main(int argc, char** argv) {
  const std::size_t bytes = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 131072;
  const int fresh = argc > 2 ? std::atoi(argv[2]) : 0;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 2000;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  std::atomic<int> turn{0};  // even: the owner's turn, odd: the copier's
  std::vector<double> us;
  std::thread owner([&] {
    pin(0);
    for (int i = 0; i < iters; ++i) {
      while (turn.load(std::memory_order_acquire) != 2 * i) {}
      if (fresh) std::memset(src.data(), i & 0x7f, bytes);
      turn.store(2 * i + 1, std::memory_order_release);
    }
  });
  std::thread copier([&] {
    pin(1);
    for (int i = 0; i < iters; ++i) {
      while (turn.load(std::memory_order_acquire) != 2 * i + 1) {}
      const auto t0 = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), bytes);
      const auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      turn.store(2 * i + 2, std::memory_order_release);
    }
  });
  owner.join();
  copier.join();
  std::sort(us.begin(), us.end());
  const double med = us[us.size() / 2];
  std::printf("bytes %zu fresh %d median %.2f us  %.1f GB/s\n", bytes, fresh, med, bytes / med / 1e3);
}
