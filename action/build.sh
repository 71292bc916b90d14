#!/usr/bin/env bash
# perfsweep GitHub Action, build step: provides a working perfsweep binary and writes its path to
# $GITHUB_OUTPUT as `path=...`. In order:
#   1. perfsweep-path given: check it runs and use it (nothing is built or installed);
#   2. a binary restored by actions/cache that runs: use it (nothing is built or installed);
#   3. otherwise build: install the missing build packages first (Debian/Ubuntu, only with
#      install-deps: true, only those missing), configure a Release build, strip the binary and put
#      it where actions/cache saves it.
# A cached binary that no longer runs (a shared library it links is gone) is rebuilt.
#   PERFSWEEP_IN_PERFSWEEP_PATH  a prebuilt binary to use instead of building (optional)
#   PERFSWEEP_IN_INSTALL_DEPS    true (default) | false
#   PERFSWEEP_ACTION_PATH        the action's checkout (sources)
#   PERFSWEEP_BIN_DIR            where the binary lives; actions/cache restores/saves this folder
#   PERFSWEEP_BUILD_DIR          CMake build folder (default: $RUNNER_TEMP/perfsweep-build)
set -euo pipefail
set -f

# shellcheck source=action/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh" # err()
out() { # out KEY VALUE: one output line; values with a line break are refused (no injection)
  case "$2" in *$'\n'* | *$'\r'*) err 2 "$1 contains a line break" ;; esac
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
}
works() { "$1" --version >/dev/null 2>&1; }

prebuilt=${PERFSWEEP_IN_PERFSWEEP_PATH:-}
if [ -n "$prebuilt" ]; then
  if [ ! -x "$prebuilt" ] || ! works "$prebuilt"; then
    err 2 "input 'perfsweep-path' does not name a working perfsweep executable (\`perfsweep --version\` failed)"
  fi
  echo "perfsweep: using the prebuilt $("$prebuilt" --version)"
  out path "$(cd "$(dirname "$prebuilt")" && pwd)/$(basename "$prebuilt")"
  exit 0
fi

src=${PERFSWEEP_ACTION_PATH:?PERFSWEEP_ACTION_PATH must name the action directory}
bin_dir=${PERFSWEEP_BIN_DIR:?PERFSWEEP_BIN_DIR must name the binary folder}
build_dir=${PERFSWEEP_BUILD_DIR:-${RUNNER_TEMP:-/tmp}/perfsweep-build}
install_deps=${PERFSWEEP_IN_INSTALL_DEPS:-true}
case "$install_deps" in
  true | false) ;;
  *) err 2 "input 'install-deps' is '$install_deps'; expected true or false" ;;
esac

if [ -x "$bin_dir/perfsweep" ]; then
  if works "$bin_dir/perfsweep"; then
    echo "perfsweep: cached $("$bin_dir/perfsweep" --version) (nothing built or installed)"
    out path "$bin_dir/perfsweep"
    exit 0
  fi
  missing_libs=$( (ldd "$bin_dir/perfsweep" 2>/dev/null || true) | awk '/not found/ { print $1 }' | tr '\n' ' ')
  echo "perfsweep: the cached binary does not run${missing_libs:+ (missing: $missing_libs)}; rebuilding"
fi

# Only a build needs packages.
if command -v dpkg-query >/dev/null 2>&1; then
  if [ "$install_deps" = true ]; then
    echo "::group::perfsweep: build packages"
    rc=0
    bash "$src/.ci/install-deps" --build-only || rc=$?
    echo "::endgroup::"
    case "$rc" in
      0) ;;
      3) err 3 "perfsweep must be built here and packages are missing, but this runner cannot install them (no root, no password-less sudo; the log above names them). Install them once on the runner, or build perfsweep elsewhere and pass it as perfsweep-path." ;;
      *) err 3 "installing the build packages failed (exit $rc; see the log above)" ;;
    esac
  elif ! bash "$src/.ci/install-deps" --build-only --check; then
    err 3 "perfsweep must be built here and packages are missing (listed above); install-deps is false, so install them on the runner or pass a prebuilt perfsweep-path"
  fi
else
  for tool in cmake c++ pkg-config; do
    command -v "$tool" >/dev/null 2>&1 ||
      err 3 "perfsweep must be built here and '$tool' is missing; this is not a Debian/Ubuntu runner, so nothing is installed: see docs/platforms.md for the packages (RHEL/Rocky 9: cmake gcc-c++ pkgconf libcurl-devel libgit2-devel rapidjson-devel cli11-devel)"
  done
fi

echo "::group::perfsweep: build from source (Release, stripped)"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$src" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DPERFSWEEP_BUILD_TESTS=OFF -DPERFSWEEP_BUILD_BENCH=OFF -DPERFSWEEP_WARNINGS_AS_ERRORS=OFF
cmake --build "$build_dir" --target perfsweep -j "$(nproc 2>/dev/null || echo 2)"
mkdir -p "$bin_dir"
cp "$build_dir/perfsweep" "$bin_dir/perfsweep.tmp"
if command -v strip >/dev/null 2>&1; then
  strip --strip-all "$bin_dir/perfsweep.tmp" 2>/dev/null || echo "perfsweep: strip failed; caching the binary unstripped"
fi
mv -f "$bin_dir/perfsweep.tmp" "$bin_dir/perfsweep"
echo "::endgroup::"
works "$bin_dir/perfsweep" || err 3 "the built perfsweep does not run"
echo "perfsweep: built $("$bin_dir/perfsweep" --version) ($(du -k "$bin_dir/perfsweep" | cut -f1) KiB)"
out path "$bin_dir/perfsweep"
