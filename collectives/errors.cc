#include "collectives/errors.h"

#include <cstdio>
#include <new>
#include <string>

namespace cclab {

int reportError(std::string_view tool, std::exception_ptr error) noexcept {
  const std::string name(tool);
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", name.c_str());
    return kExitInternalError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s (a bug in cclab: please report it with the command)\n", name.c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: an unknown exception (a bug in cclab: please report it with the command)\n", name.c_str());
  }
  return kExitInternalError;
}

}  // namespace cclab
