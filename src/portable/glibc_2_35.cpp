// Compiled into the release binary only (-DPERFSWEEP_PORTABLE=ON), which links libstdc++ in and
// must run on glibc 2.35 (Ubuntu 22.04; action/check-portable.sh checks it). Debian 12's
// libstdc++.a was built against glibc 2.36: its std::random_device (pulled in by every binary,
// through the copy-on-write string instantiations that std::logic_error needs) calls arc4random,
// new in glibc 2.36. This definition satisfies that reference inside the binary, so it imports no
// GLIBC_2.36 symbol; it draws from the kernel as glibc's arc4random does.

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

/// 32 random bits from getrandom(2), as glibc 2.36's arc4random; aborts if the kernel gives none.
extern "C" std::uint32_t arc4random(void) {
    std::uint32_t value = 0;
    for (;;) {
        const ssize_t n = ::getrandom(&value, sizeof value, 0);
        if (n == static_cast<ssize_t>(sizeof value))
            return value;
        if (n < 0 && errno != EINTR)
            std::abort();
    }
}
