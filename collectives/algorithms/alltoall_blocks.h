#pragma once

// The blocks of an alltoall as the exchange algorithms (pairwise, linear) see them: block b of
// the input is for rank b, block b of the output came from rank b. In place, the blocks to send
// would be overwritten by the blocks received, so the input is read from a copy in scratch.

#include <cstddef>

#include "collectives/algorithms/algorithms.h"

namespace cclab {

class AlltoallBlocks {
 public:
  AlltoallBlocks(Context& ctx, const CollectiveArgs& args)
      : args_(args), bytes_(args.count * sizeOf(args.dtype)), input_(args.send) {
    const std::size_t all = bytes_ * static_cast<std::size_t>(ctx.size());
    if (args.send == args.recv) {
      void* copy = ctx.scratch(all);
      ctx.device().copy(copy, args.send, all);
      input_ = copy;
    }
  }
  std::size_t bytes() const { return bytes_; }
  const char* in(int b) const { return elementAt(input_, static_cast<std::size_t>(b) * args_.count, args_.dtype); }
  char* out(int b) const { return elementAt(args_.recv, static_cast<std::size_t>(b) * args_.count, args_.dtype); }

 private:
  const CollectiveArgs& args_;
  std::size_t bytes_;
  const void* input_;
};

}  // namespace cclab
