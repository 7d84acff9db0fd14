# Sourced by demo.sh and test.sh: installs the Debian packages cclab builds with (only those
# missing), then configures and builds into build/. Safe to run again: it does only what is needed.

set -euo pipefail
CCLAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$CCLAB_ROOT"

# g++ also brings GCC's sanitizer runtimes for scripts/sanitize.sh (libasan8, liblsan0, libubsan1,
# libtsan2: dependencies of gcc-12's libgcc-12-dev on Debian 12), so they need no entry here.
# python3: scripts/train_accuracy.sh and the training-step checks that run it.
CCLAB_PACKAGES=(
  g++ cmake ninja-build pkg-config git python3
  libopenmpi-dev openmpi-bin
  libcli11-dev nlohmann-json3-dev libfmt-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev fonts-dejavu-core
)

cclab_install_packages() {
  local missing=()
  for package in "${CCLAB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install: ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

cclab_build() {
  echo "== configuring and building in build/"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" | grep -E "^-- (cclab|  )" || true
  cmake --build build -j "$(nproc)"
}

# OpenMPI refuses to run as root unless told it is intended (containers, CI machines).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

cclab_install_packages
