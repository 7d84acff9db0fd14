#pragma once

namespace cclab {

// cclab's release version and the git commit the binary was built from (generated at build time).
const char* version();
const char* gitCommit();

}  // namespace cclab
