#pragma once

// What an algorithm runs with: a transport to its peers, a device for its buffers and kernels, the
// pipeline chunk size, and reusable scratch memory on that device.

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "collectives/device.h"
#include "collectives/transport.h"
#include "collectives/vocabulary.h"

namespace cclab {

class Context {
 public:
  // 1 MiB chunks keep a large message in flight while earlier chunks are being reduced.
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  Context(Transport& transport, Device& device, std::size_t chunkBytes = kDefaultChunkBytes);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Transport& transport() { return transport_; }
  Device& device() { return device_; }
  int rank() const { return transport_.rank(); }
  int size() const { return transport_.size(); }
  std::size_t chunkBytes() const { return chunkBytes_; }

  // Scratch of at least `bytes` on the device, valid until the next call (it grows, never shrinks).
  void* scratch(std::size_t bytes);

  // Ranks per node for the hierarchical algorithms: ranks k*i .. k*i+k-1 share node i. 0 (the
  // default): all ranks share one node.
  int ranksPerNode() const { return ranksPerNode_; }
  void setRanksPerNode(int k) { ranksPerNode_ = k; }

  // A context over the ranks `members` of this one (this rank among them; see GroupTransport),
  // kept with its scratch for the life of this context.
  Context& group(const std::vector<int>& members);

 private:
  Transport& transport_;
  Device& device_;
  std::size_t chunkBytes_;
  void* scratch_ = nullptr;
  std::size_t scratchBytes_ = 0;
  int ranksPerNode_ = 0;
  struct Group;
  std::map<std::vector<int>, std::unique_ptr<Group>> groups_;
};

// Byte address of element `index` of a buffer of `dtype` elements.
inline char* elementAt(void* base, std::size_t index, DataType dtype) {
  return static_cast<char*>(base) + index * sizeOf(dtype);
}
inline const char* elementAt(const void* base, std::size_t index, DataType dtype) {
  return static_cast<const char*>(base) + index * sizeOf(dtype);
}

}  // namespace cclab
