#pragma once
// Shared helpers of the libFuzzer targets (tests/fuzz/fuzz_<name>.cpp): input slicing, invariant
// checks that abort with a message (libFuzzer then saves the input as a crash), and the rule that
// a parser may reject input only with perfsweep::Error.

#include "core/model.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <string_view>

namespace perfsweep::fuzz {

/// Abort with `what` unless `ok`: a broken invariant is a finding.
inline void check(bool ok, const char* what, const std::string& detail = {}) {
    if (ok)
        return;
    std::fprintf(stderr, "fuzz invariant broken: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// The fuzzer input as text.
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Split `text` at the first '\n' into (head, rest); rest is empty when there is none.
inline std::pair<std::string, std::string> split_first_line(const std::string& text) {
    const auto nl = text.find('\n');
    if (nl == std::string::npos)
        return {text, {}};
    return {text.substr(0, nl), text.substr(nl + 1)};
}

/// Run `f`; perfsweep::Error is the documented way to refuse input (its message must name the
/// input), any other exception is a finding. Returns whether `f` completed.
template <class F> bool accepts(F&& f, std::string_view must_name = {}) {
    try {
        f();
        return true;
    } catch (const Error& e) {
        const std::string msg = e.what();
        check(!msg.empty(), "perfsweep::Error without a message");
        if (!must_name.empty())
            check(msg.find(must_name) != std::string::npos, "error message does not name the input",
                  msg);
        return false;
    } catch (const std::exception& e) {
        check(false, "a parser threw something other than perfsweep::Error", e.what());
    }
    return false;
}

/// True when `b` (a measurement read back from `a`'s JSON) equals `a`: every field exactly, values
/// within a few ulp. RapidJSON 1.1 parses doubles in its normal-precision mode (up to ~3 ulp off;
/// its full-precision mode trips UBSan in internal/diyfp.h), so a stored value can move by an ulp
/// when read back; anything larger is a finding.
inline bool same_after_round_trip(core::Measurement a, core::Measurement b,
                                  const std::function<std::string(const core::Measurement&)>& enc) {
    if (a.values.size() != b.values.size())
        return false;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const double x = a.values[i], y = b.values[i];
        if (!(std::fabs(x - y) <= 1e-14 * std::max(std::fabs(x), std::fabs(y))))
            return false;
    }
    a.values.clear();
    b.values.clear();
    return enc(a) == enc(b);
}

} // namespace perfsweep::fuzz
