#include "collectives/context.h"

#include "collectives/errors.h"

namespace cclab {

Context::Context(Transport& transport, Device& device, std::size_t chunkBytes)
    : transport_(transport), device_(device), chunkBytes_(chunkBytes) {
  if (chunkBytes_ == 0) throw InputError("chunk size must be at least 1 byte");
}

Context::~Context() {
  if (scratch_ != nullptr) device_.release(scratch_);
}

void* Context::scratch(std::size_t bytes) {
  if (bytes > scratchBytes_) {
    if (scratch_ != nullptr) device_.release(scratch_);
    scratch_ = nullptr;
    scratchBytes_ = 0;
    scratch_ = device_.allocate(bytes);
    scratchBytes_ = bytes;
  }
  return scratch_;
}

}  // namespace cclab
