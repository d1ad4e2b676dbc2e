# scripts/setup.sh: sourced by demo.sh and test.sh (and so by .ci/run). Makes sure this machine has
# what the README's two commands need, installing what is missing on Debian or Ubuntu (apt-get as
# root, or through sudo where it asks no password), or stops with one line that names the command.
#
#   mgpu_setup demo|test   installs what that command needs; afterwards
#     MGPU_GPU=1           if nvidia-smi sees a GPU (run the CUDA build there)
#     MGPU_CMAKE_ARGS      an array of arguments for the CMake configure: the simulator off where
#                          Boost.Context is missing (a GPU machine), ccache as the compiler launcher
#
# What each purpose needs (found as a command or a header, however it was installed):
#   always        cmake 3.25 or newer, g++, make
#   simulator     Boost.Context  (libboost-context-dev; the demo or the tests without a GPU, optional with one)
#   tests         GoogleTest     (libgtest-dev)
#   builds        ccache         (optional: only makes rebuilds fast)
#   format check  clang-format   (optional: the tests check the sources' format with it)

mgpu_note() { echo "mgpu: $*" >&2; }

# Runs a command as root: directly, or through sudo when that needs no password. Fails otherwise.
mgpu_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}

# Installs the given Debian packages; returns non-zero (and says nothing) if that is not possible.
mgpu_apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  mgpu_note "installing $* ..."
  # A machine without a network (the GPU machine) fails here quickly rather than hanging.
  mgpu_as_root env DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -qq >/dev/null 2>&1 &&
    mgpu_as_root env DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends "$@" \
      >/dev/null 2>&1
}

# Whether a header is on the compiler's default include path (and, given, a library links).
mgpu_has_header() {
  local library=${2:+-l$2}
  printf '#include <%s>\nint main() { return 0; }\n' "$1" | ${CXX:-g++} -x c++ - $library -o /dev/null >/dev/null 2>&1
}

# Whether what a package provides is here: PACKAGE is the Debian package to install otherwise.
mgpu_present() {
  case "$1" in
    cmake | g++ | make | ccache | clang-format) command -v "$1" >/dev/null 2>&1 ;;
    libgtest-dev) mgpu_has_header gtest/gtest.h ;;
    libboost-context-dev) mgpu_has_header boost/context/continuation.hpp boost_context ;;
    *) dpkg -s "$1" >/dev/null 2>&1 ;;
  esac
}

# The missing ones of the given packages, installed; returns whether all are there now.
mgpu_install_missing() {
  local missing=() package
  for package in "$@"; do mgpu_present "$package" || missing+=("$package"); done
  ((${#missing[@]})) || return 0
  mgpu_apt_install "${missing[@]}" || return 1
  for package in "${missing[@]}"; do mgpu_present "$package" || return 1; done
}

# Required packages: installed, or a stop naming the command to run.
mgpu_require() {
  mgpu_install_missing "$@" && return 0
  local missing=() package
  for package in "$@"; do mgpu_present "$package" || missing+=("$package"); done
  mgpu_note "missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}"
  exit 1
}

mgpu_setup() {
  local purpose=$1
  command -v nvcc >/dev/null 2>&1 || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH="/usr/local/cuda/bin:$PATH"
  MGPU_GPU=0
  nvidia-smi -L >/dev/null 2>&1 && MGPU_GPU=1

  mgpu_require cmake g++ make
  [ "$purpose" = test ] && mgpu_require libgtest-dev
  if [ "$MGPU_GPU" = 1 ]; then
    # With a GPU the demo and the tests run on CUDA; the simulator is built only if Boost is there.
    mgpu_install_missing libboost-context-dev ||
      mgpu_note "no Boost.Context (sudo apt-get install -y libboost-context-dev): the simulator targets are not built"
  else
    mgpu_require libboost-context-dev
  fi
  mgpu_install_missing ccache || mgpu_note "no ccache: rebuilds compile everything again"
  if [ "$purpose" = test ]; then
    mgpu_install_missing clang-format || mgpu_note "no clang-format: the format check is skipped"
  fi

  local version
  version=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  if [ -z "$version" ] || [ "$(printf '%s\n' 3.25 "$version" | sort -V | head -1)" != 3.25 ]; then
    mgpu_note "needs CMake 3.25 or newer (found ${version:-none}); install with: python3 -m pip install --upgrade cmake"
    exit 1
  fi

  MGPU_CMAKE_ARGS=()
  if mgpu_present libboost-context-dev; then MGPU_CMAKE_ARGS+=(-DMGPU_BUILD_SIM=ON)
  else MGPU_CMAKE_ARGS+=(-DMGPU_BUILD_SIM=OFF)
  fi
  if command -v ccache >/dev/null 2>&1; then
    MGPU_CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
}
