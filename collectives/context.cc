#include "collectives/context.h"

#include "collectives/errors.h"
#include "collectives/group_transport.h"

namespace cclab {

Context::Context(Transport& transport, Device& device, std::size_t chunkBytes)
    : transport_(transport), device_(device), chunkBytes_(chunkBytes) {
  if (chunkBytes_ == 0) throw InputError("chunk size must be at least 1 byte");
}

struct Context::Group {
  Group(Transport& parent, const std::vector<int>& members, Device& device, std::size_t chunkBytes)
      : transport(parent, members), context(transport, device, chunkBytes) {}
  GroupTransport transport;
  Context context;
};

Context::~Context() {
  groups_.clear();  // their scratch first, while the device is certainly alive
  if (scratch_ != nullptr) device_.release(scratch_);
}

Context& Context::group(const std::vector<int>& members) {
  auto& slot = groups_[members];
  if (!slot) slot = std::make_unique<Group>(transport_, members, device_, chunkBytes_);
  return slot->context;
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
