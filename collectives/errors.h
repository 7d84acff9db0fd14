#pragma once

#include <stdexcept>
#include <string>

namespace cclab {

// Bad input from the user: a flag, a file, a field. Tools print the message on one line and exit 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace cclab
