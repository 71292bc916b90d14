// Sanitizer builds with GCC only (CMakeLists.txt links this file into every executable of an
// ASan+UBSan build; it is compiled without instrumentation).
//
// GCC gives every UBSan check site a static data object (.Lubsan_data*: the source location and
// the operand types; .Lubsan_type*: a type descriptor) and AddressSanitizer treats each of them
// as a global to protect: a redzone after it, a 64-byte descriptor, and a registration at start
// up that poisons the redzone's shadow and keeps a list node. In perfsweep that is ~155,000 of
// the ~162,000 registered globals and 19 of the 20 MB of .data; registering them was about a
// third of the start-up of a sanitized process on the CI machine (page faults on the shadow and
// the list). Only the UBSan runtime ever reads these objects, through the pointer the check
// passes; instrumented code never addresses them, so a redzone around them can catch nothing.
// The registration calls of the program's constructors come here first; the UBSan data are left
// out and every other global (string literals, the program's variables) is registered with the
// ASan runtime as before, with the same descriptor, so the same overflows are found and
// reported the same way. PERFSWEEP_ASAN_REGISTER_UBSAN_DATA=1 registers them too (the cost
// figure in docs/development.md was measured with it, side by side).

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

/// GCC's __asan_global (gcc/asan.cc, asan_global_struct): the descriptor of one global.
struct AsanGlobal {
    const void* beg;
    std::size_t size;
    std::size_t size_with_redzone;
    const char* name;
    const char* module_name;
    std::size_t has_dynamic_init;
    const void* location;
    std::uintptr_t odr_indicator;
};

using GlobalsFn = void (*)(AsanGlobal*, std::size_t);

/// One translation unit's array as the runtime got it: the kept descriptors (mapped memory that
/// lives as long as the process, as the runtime requires) and the array they came from.
struct Registered {
    const AsanGlobal* original;
    AsanGlobal* kept;
    std::size_t count;
    Registered* next;
};

Registered* g_registered = nullptr;

/// The ASan runtime's function NAME (the next definition after this executable's).
GlobalsFn runtime_fn(const char* name) {
    auto* fn = reinterpret_cast<GlobalsFn>(::dlsym(RTLD_NEXT, name));
    if (fn == nullptr)
        std::abort(); // no ASan runtime: this file is linked only into sanitizer builds
    return fn;
}

/// Whether `g` is UBSan's static data (GCC names it *.Lubsan_data<N> or *.Lubsan_type<N>).
bool ubsan_data(const AsanGlobal& g) {
    static constexpr char k_prefix[] = "*.Lubsan_";
    if (g.name == nullptr)
        return false;
    for (std::size_t i = 0; i + 1 < sizeof k_prefix; ++i)
        if (g.name[i] != k_prefix[i])
            return false;
    return true;
}

/// Whether the UBSan data are registered too (PERFSWEEP_ASAN_REGISTER_UBSAN_DATA=1).
bool register_all() {
    static const bool all = [] {
        const char* v = std::getenv("PERFSWEEP_ASAN_REGISTER_UBSAN_DATA");
        return v != nullptr && v[0] == '1' && v[1] == '\0';
    }();
    return all;
}

} // namespace

/// Register the globals of one translation unit with the ASan runtime, less UBSan's data.
extern "C" void __asan_register_globals(AsanGlobal* globals, std::size_t n) {
    static const GlobalsFn runtime = runtime_fn("__asan_register_globals");
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i)
        kept += ubsan_data(globals[i]) ? 0 : 1;
    if (kept == n || register_all()) {
        runtime(globals, n);
        return;
    }
    const std::size_t bytes = kept * sizeof(AsanGlobal) + sizeof(Registered);
    void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        runtime(globals, n); // all of them, as without this file
        return;
    }
    auto* copy = static_cast<AsanGlobal*>(mem);
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!ubsan_data(globals[i]))
            copy[k++] = globals[i];
    g_registered = new (copy + kept) Registered{globals, copy, kept, g_registered};
    runtime(copy, kept);
}

/// Unregister the globals of one translation unit: the same ones its registration kept.
extern "C" void __asan_unregister_globals(AsanGlobal* globals, std::size_t n) {
    static const GlobalsFn runtime = runtime_fn("__asan_unregister_globals");
    for (const Registered* r = g_registered; r != nullptr; r = r->next)
        if (r->original == globals) {
            runtime(r->kept, r->count);
            return;
        }
    runtime(globals, n);
}
