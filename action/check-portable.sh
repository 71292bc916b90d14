#!/usr/bin/env bash
# Checks that a perfsweep binary runs on any Linux of its architecture with glibc >= 2.35 and
# libcurl.so.4: its dynamic dependencies (ELF NEEDED entries) are only the C library's parts,
# libcurl.so.4 and three libraries libcurl.so.4 needs too: libssl.so.3, libcrypto.so.3 and
# libgssapi_krb5.so.2 (libgit2, libstdc++ and libgcc are linked in), and no symbol it imports needs a
# glibc newer than 2.35 (GLIBC_2.36 ...) or a libstdc++ (GLIBCXX_, CXXABI_). Used by the release
# workflow before a binary is published; `readelf` (binutils) reads the file, nothing is run.
#   bash action/check-portable.sh BINARY [MAX_GLIBC]     (MAX_GLIBC default 2.35)
set -euo pipefail
bin=${1:?usage: check-portable.sh BINARY [MAX_GLIBC]}
max=${2:-2.35}
[ -f "$bin" ] || { echo "check-portable: $bin: no such file" >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-portable: readelf (binutils) is missing" >&2; exit 2; }
fail=0
allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libcurl\.so\.4|libssl\.so\.3|libcrypto\.so\.3|libgssapi_krb5\.so\.2|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p')
echo "check-portable: $bin needs: $(tr '\n' ' ' <<<"$needed")"
while IFS= read -r lib; do
  [ -z "$lib" ] && continue
  if ! [[ "$lib" =~ $allowed ]]; then
    echo "check-portable: $bin needs $lib; only the C library, libcurl.so.4 and what libcurl.so.4 needs itself (libssl.so.3, libcrypto.so.3, libgssapi_krb5.so.2) may stay dynamic" >&2
    fail=1
  fi
done <<<"$needed"
versions=$(readelf -W --dyn-syms "$bin" | grep -o '@\(GLIBC\|GLIBCXX\|CXXABI\)_[0-9.]*' | sort -u || true)
if grep -q 'GLIBCXX\|CXXABI' <<<"$versions"; then
  echo "check-portable: $bin imports libstdc++ symbols ($(grep 'GLIBCXX\|CXXABI' <<<"$versions" | head -3 | tr '\n' ' ')); link it with -static-libstdc++" >&2
  fail=1
fi
newest=$(grep -o 'GLIBC_[0-9.]*' <<<"$versions" | sed 's/GLIBC_//' | sort -V | tail -1)
echo "check-portable: newest glibc symbol version: ${newest:-none} (at most $max)"
if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$max" | sort -V | tail -1)" != "$max" ]; then
  echo "check-portable: $bin needs glibc $newest ($(readelf -W --dyn-syms "$bin" | grep "GLIBC_$newest" | awk '{print $8}' | head -5 | tr '\n' ' ')); build it on a system with glibc $max (Ubuntu 22.04)" >&2
  fail=1
fi
exit "$fail"
