#!/usr/bin/env bash
# perfsweep GitHub Action, first step: the release binary of the action's own ref, when there is
# one. Used as `uses: OWNER/perfsweep@v0.2.0`, the action downloads perfsweep-linux-ARCH and its
# .sha256 from that tag's GitHub release (.github/workflows/release.yml attaches them), checks the
# sum and that it runs, and writes its path to $GITHUB_OUTPUT as `path=...`. No release for the ref
# (a branch, a commit SHA, `uses: ./`, a tag without binaries), another architecture, or a binary
# that does not run here (no libcurl.so.4): nothing is written and the next steps build from
# source, as before. A sum that does not match fails the step: the download is not what was
# released.
#   PERFSWEEP_ACTION_REPOSITORY  github.action_repository (OWNER/NAME; empty for a local action)
#   PERFSWEEP_ACTION_REF         github.action_ref (the tag)
#   PERFSWEEP_BIN_DIR            where the binary goes
#   GITHUB_SERVER_URL            https://github.com (or the GitHub Enterprise server)
set -euo pipefail
set -f

# shellcheck source=action/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh" # err()
skip() { echo "perfsweep: $1; building from source"; exit 0; }

repo=${PERFSWEEP_ACTION_REPOSITORY:-}
ref=${PERFSWEEP_ACTION_REF:-}
server=${GITHUB_SERVER_URL:-https://github.com}
bin_dir=${PERFSWEEP_BIN_DIR:?PERFSWEEP_BIN_DIR must name the binary folder}
[ -n "$repo" ] && [ -n "$ref" ] || skip "no release binary for a local action (uses: ./)"
[[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || skip "action repository '$repo' is not OWNER/NAME"
[[ "$ref" =~ ^[0-9a-f]{40}$ ]] && skip "ref $ref is a commit, not a release tag"
[[ "$ref" =~ ^[A-Za-z0-9._/-]+$ ]] || skip "ref '$ref' cannot name a release"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64 | Linux-amd64) arch=x86_64 ;;
  Linux-aarch64 | Linux-arm64) arch=aarch64 ;;
  *) skip "no release binary for $(uname -s) $(uname -m)" ;;
esac
command -v curl >/dev/null 2>&1 || skip "curl is missing"
asset="perfsweep-linux-$arch"
url="$server/$repo/releases/download/$ref/$asset"
mkdir -p "$bin_dir"
tmp="$bin_dir/$asset.download"
# -f: a missing release or asset (404) is an error, not a file; -L: GitHub redirects the asset
# to its storage host; the token is not sent (release assets of a public repository need none).
if ! curl -fsSL --proto '=https,http' --proto-redir '=https,http' --retry 2 --connect-timeout 10 --max-time 300 -o "$tmp.sha256" "$url.sha256"; then
  rm -f "$tmp.sha256"
  skip "no release binary at $url"
fi
if ! curl -fsSL --proto '=https,http' --proto-redir '=https,http' --retry 2 --connect-timeout 10 --max-time 300 -o "$tmp" "$url"; then
  rm -f "$tmp" "$tmp.sha256"
  skip "the release of $ref has a sum but no binary at $url"
fi
expected=$(awk 'NR == 1 { print $1 }' "$tmp.sha256")
actual=$(sha256sum "$tmp" | cut -d' ' -f1)
[[ "$expected" =~ ^[0-9a-f]{64}$ ]] || err 3 "$url.sha256 holds no SHA-256 sum"
if [ "$expected" != "$actual" ]; then
  rm -f "$tmp"
  err 3 "the downloaded $asset has SHA-256 $actual, but its release says $expected: refusing to run it"
fi
chmod +x "$tmp"
if ! "$tmp" --version >/dev/null 2>&1; then
  missing=$( (ldd "$tmp" 2>/dev/null || true) | awk '/not found/ { print $1 }' | tr '\n' ' ')
  rm -f "$tmp"
  skip "the release binary does not run here${missing:+ (missing: $missing)}"
fi
mv -f "$tmp" "$bin_dir/perfsweep"
rm -f "$tmp.sha256"
echo "perfsweep: release binary $("$bin_dir/perfsweep" --version) of $ref (sha256 $actual)"
if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'path=%s\n' "$bin_dir/perfsweep" >>"$GITHUB_OUTPUT"; fi
