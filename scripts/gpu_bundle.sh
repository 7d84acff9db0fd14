#!/usr/bin/env bash
# Carries a GPU build to a machine that has a GPU, CUDA, cuBLAS and NCCL but none of cclab's other
# build dependencies (no Open MPI, fmt, GoogleTest or Google Benchmark, and no way to install them):
# the device machines this project is lent now and then (docs/gpu.md, "On a GPU machine").
#
#   scripts/gpu_bundle.sh pack [build-dir]   here: writes .gpu/ (ignored by git, about 15 MB)
#       .gpu/root.tgz      Open MPI 4.1 as Debian installs it (mpirun, its plugins and help files) and
#                          every shared library the tools and the GPU tests need that is not part of
#                          the C/C++ runtime or the CUDA stack (those come from the GPU machine)
#       .gpu/<build-dir>/  the tools, the GPU tests and cuda_reduce_bench, with the CTest files
#   scripts/gpu_bundle.sh unpack             there, in the repository root, as root: unpacks root.tgz
#       into / without replacing any file already there (except the mpirun/mpiexec links), finds the
#       GPU machine's libnccl and libcublas, puts the build dir back at the repository root with its
#       CTest paths rewritten, and writes .gpu/env (source it: LD_LIBRARY_PATH, Open MPI as root).
# Then: CCLAB_GPU_BUILD_DIR=<build-dir> scripts/gpu_measure.sh <machine> test measure check
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case ${1:-} in
pack)
  build=${2:-build-dev}
  [ -x "$build/bin/ccbench" ] && [ -x "$build/tests/gpu_probe" ] ||
    { echo "$0: $build has no CUDA build of ccbench and gpu_probe (configure with CUDA found, build)" >&2; exit 2; }
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  # Open MPI's runtime as packaged (not hwloc's plugins: they pull in X11, OpenCL and ICU).
  packages="openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libfmt9"
  dpkg -L $packages | grep -v -E '^/usr/share/(man|doc|lintian)' |
    while read -r f; do if [ -L "$f" ] || [ -f "$f" ]; then echo "$f"; fi; done | sort -u >"$stage/files"
  # Each file goes where its folder really is (a merged /usr resolves /lib to /usr/lib).
  place() { local d; d="$stage/root$(readlink -f "$(dirname "$1")")"; mkdir -p "$d" && echo "$d"; }
  while read -r f; do cp -a "$f" "$(place "$f")/"; done <"$stage/files"
  # The launchers as the package names them (Debian: mpirun.openmpi behind the alternatives link).
  : >.gpu-launchers
  for name in mpirun mpiexec; do
    target=$(grep -E "/bin/$name\.[A-Za-z]+$" "$stage/files" | head -1)
    [ -n "$target" ] && echo "$(dirname "$target") $name $(basename "$target")" >>.gpu-launchers
  done
  # The shared libraries all of that needs, closed under ldd, minus what every Linux and every CUDA
  # machine has (the C/C++ runtime; libcuda, cudart, cuBLAS and NCCL come from the GPU machine).
  ours=("$build/bin/ccbench" "$build/bin/ccsim" "$build/bin/ccreport" "$build/tests/gpu_probe"
        "$build/tests/gpu_kernels_test" "$build/tests/nccl_library_test" "$build/benchmarks/cuda_reduce_bench")
  system='linux-vdso|/libc\.so|/libm\.so|libstdc\+\+|libgcc_s|ld-linux|/libdl\.so|libpthread|/librt\.so|/libz\.so|libcuda|libcublas|libnccl|libcudart|libnvidia'
  elfs=("${ours[@]}")
  while read -r f; do file -L "$f" | grep -q ELF && elfs+=("$f"); done < <(grep -v '^/usr/share' "$stage/files")
  : >"$stage/deps"
  for _ in 1 2 3; do
    for e in "${elfs[@]}"; do [ -f "$e" ] && ldd "$e" 2>/dev/null || true; done |
      awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -v -E "$system" | sort -u >"$stage/deps"
    mapfile -t more <"$stage/deps"
    elfs+=("${more[@]}")
  done
  while read -r f; do cp -L "$f" "$(place "$f")/$(basename "$f")"; done <"$stage/deps"
  rm -rf .gpu && mkdir -p .gpu
  mv .gpu-launchers .gpu/launchers
  tar -C "$stage/root" -czf .gpu/root.tgz .
  # The build: the binaries above and every CTestTestfile.cmake (ctest -L gpu runs from them).
  for f in "${ours[@]}"; do [ -f "$f" ] && install -D "$f" ".gpu/$f"; done
  (cd "$build" && find . -name CTestTestfile.cmake) | while read -r f; do install -D -m 644 "$build/$f" ".gpu/$build/$f"; done
  # The tools find the model descriptions at <build>/share/cclab/models (sim/descriptions.cc).
  mkdir -p ".gpu/$build/share/cclab" && ln -s ../../../models ".gpu/$build/share/cclab/models"
  echo "$PWD" >.gpu/source_root
  echo "$build" >.gpu/build_dir
  grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
  du -sh .gpu
  ;;
unpack)
  [ -f .gpu/root.tgz ] || { echo "$0: no .gpu/root.tgz (run '$0 pack' where cclab was built, carry .gpu)" >&2; exit 2; }
  tar -C / --skip-old-files -xzf .gpu/root.tgz
  # This Open MPI must answer mpirun and mpiexec (the CTest files name the build machine's mpiexec).
  while read -r dir name target; do ln -sfn "$target" "$dir/$name"; done <.gpu/launchers
  ldconfig
  build=$(cat .gpu/build_dir)
  from=$(cat .gpu/source_root)
  rm -rf "$build" && cp -a ".gpu/$build" "$build"
  find "$build" -name CTestTestfile.cmake -exec sed -i "s#$from#$PWD#g" {} +
  libdirs=$(find /usr/local /usr/lib /opt -xdev \( -name 'libnccl.so.2*' -o -name 'libcublas.so.13*' -o -name 'libcublasLt.so.13*' \) \
              2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  {
    echo "export LD_LIBRARY_PATH=${libdirs}\${LD_LIBRARY_PATH:-}"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    # Without ssh or rsh, Open MPI 4 refuses even a one-host launch unless the agent names a program.
    command -v ssh >/dev/null || command -v rsh >/dev/null || echo "export OMPI_MCA_plm_rsh_agent=false"
  } >.gpu/env
  cat .gpu/env
  ;;
*)
  echo "usage: $0 pack [build-dir] | unpack" >&2
  exit 2
  ;;
esac
