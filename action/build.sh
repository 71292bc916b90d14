#!/usr/bin/env bash
# perfsweep GitHub Action, build step: provides a working perfsweep binary and writes its path to
# $GITHUB_OUTPUT as `path=...`.
#   PERFSWEEP_IN_PERFSWEEP_PATH  a prebuilt binary to use instead of building (optional)
#   PERFSWEEP_IN_INSTALL_DEPS    true (default): install missing Debian/Ubuntu packages with
#                                .ci/install-deps --build-only (runs apt-get only when one is absent)
#   PERFSWEEP_ACTION_PATH        the action's checkout (sources)
#   PERFSWEEP_BIN_DIR            where the binary lives; actions/cache restores/saves this folder
#   PERFSWEEP_BUILD_DIR          CMake build folder (default: $RUNNER_TEMP/perfsweep-build)
set -euo pipefail
set -f

out() { # out KEY VALUE: one output line; values with a newline are refused (no output injection)
  case "$2" in *$'\n'* | *$'\r'*) echo "::error::$1 contains a line break" >&2; exit 2 ;; esac
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
}
works() { "$1" --version >/dev/null 2>&1; }

prebuilt=${PERFSWEEP_IN_PERFSWEEP_PATH:-}
if [ -n "$prebuilt" ]; then
  if [ ! -x "$prebuilt" ] || ! works "$prebuilt"; then
    echo "::error title=perfsweep action::input 'perfsweep-path' does not name a working perfsweep executable (\`perfsweep --version\` failed)" >&2
    exit 2
  fi
  echo "perfsweep: using the prebuilt $("$prebuilt" --version)"
  out path "$(cd "$(dirname "$prebuilt")" && pwd)/$(basename "$prebuilt")"
  exit 0
fi

src=${PERFSWEEP_ACTION_PATH:?PERFSWEEP_ACTION_PATH must name the action directory}
bin_dir=${PERFSWEEP_BIN_DIR:?PERFSWEEP_BIN_DIR must name the binary folder}
build_dir=${PERFSWEEP_BUILD_DIR:-${RUNNER_TEMP:-/tmp}/perfsweep-build}

# Runtime libraries are needed even when the binary comes from the cache.
case "${PERFSWEEP_IN_INSTALL_DEPS:-true}" in
  true)
    if command -v dpkg-query >/dev/null 2>&1; then
      echo "::group::perfsweep: build dependencies"
      bash "$src/.ci/install-deps" --build-only
      echo "::endgroup::"
    else
      echo "perfsweep: not a Debian/Ubuntu system; expecting cmake, a C++20 compiler, libgit2, libcurl, RapidJSON and CLI11 to be installed"
    fi
    ;;
  false) ;;
  *) echo "::error title=perfsweep action::input 'install-deps' must be true or false" >&2; exit 2 ;;
esac

if [ -x "$bin_dir/perfsweep" ] && works "$bin_dir/perfsweep"; then
  echo "perfsweep: cached $("$bin_dir/perfsweep" --version)"
else
  echo "::group::perfsweep: build from source"
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  cmake -S "$src" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DPERFSWEEP_BUILD_TESTS=OFF -DPERFSWEEP_BUILD_BENCH=OFF -DPERFSWEEP_WARNINGS_AS_ERRORS=OFF
  cmake --build "$build_dir" --target perfsweep -j "$(nproc 2>/dev/null || echo 2)"
  mkdir -p "$bin_dir"
  cp "$build_dir/perfsweep" "$bin_dir/perfsweep.tmp"
  mv -f "$bin_dir/perfsweep.tmp" "$bin_dir/perfsweep"
  echo "::endgroup::"
  works "$bin_dir/perfsweep" || { echo "::error::the built perfsweep does not run" >&2; exit 3; }
  echo "perfsweep: built $("$bin_dir/perfsweep" --version)"
fi
out path "$bin_dir/perfsweep"
