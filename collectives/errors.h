#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cclab {

// Bad input from the user: a flag, a file, a field. Tools print the message on one line and exit 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// The exit codes every cclab tool shares (ccbench adds 3 for a timeout): 1 is a failed check (wrong
// results, a regression); 2 is bad input; 70 (sysexits' EX_SOFTWARE) is an error that is not the
// input's fault, i.e. a bug in cclab.
inline constexpr int kExitFailedCheck = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternalError = 70;

// The boundary of every tool's main: one line on stderr for an exception that reached it, and its
// exit code. "<tool>: error: <message>" and 2 for InputError; "<tool>: internal error: <what>
// (a bug in cclab: please report it with the command)" and 70 for anything else.
int reportError(std::string_view tool, std::exception_ptr error) noexcept;

}  // namespace cclab
