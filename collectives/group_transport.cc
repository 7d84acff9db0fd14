#include "collectives/group_transport.h"

#include <algorithm>
#include <stdexcept>

namespace cclab {

GroupTransport::GroupTransport(Transport& parent, std::vector<int> members) : parent_(parent), members_(std::move(members)) {
  const auto self = std::find(members_.begin(), members_.end(), parent_.rank());
  if (self == members_.end()) throw std::logic_error("a group transport must include its own rank");
  rank_ = static_cast<int>(self - members_.begin());
}

}  // namespace cclab
