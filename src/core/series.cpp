#include "core/series.hpp"

#include "core/command_template.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace perfsweep::core {

namespace {

std::vector<std::string> series_words(std::string_view text) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t')
            ++i;
        if (i > start)
            words.emplace_back(text.substr(start, i - start));
    }
    return words;
}

std::string_view series_base_name(std::string_view word) {
    const auto slash = word.find_last_of('/');
    return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_interpreter_word(std::string_view word) {
    static constexpr std::array<std::string_view, 16> names = {
        "sh",   "bash", "dash", "zsh",  "ksh",   "python",  "python2", "python3",
        "pypy", "node", "ruby", "perl", "julia", "Rscript", "pypy3",   "uv"};
    const std::string_view b = series_base_name(word);
    if (std::find(names.begin(), names.end(), b) != names.end())
        return true;
    // python3.11, python3.12, ...
    return b.starts_with("python") && b.size() > 6 &&
           b.find_first_not_of("0123456789.", 6) == std::string_view::npos;
}

bool is_env_assignment(std::string_view word) {
    const auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return false;
    for (std::size_t i = 0; i < eq; ++i) {
        const char c = word[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (i > 0 && c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

std::vector<std::string> test_command_words(std::string_view command) {
    try {
        return parse_command(command, "--test").words;
    } catch (const Error&) {
        return series_words(command);
    }
}

/// Index of the program word (past assignments, env, interpreters and their options), and
/// whether `-m MODULE` named it; words.size() when only launchers are there.
std::size_t program_word_index(const std::vector<std::string>& words, bool& module) {
    module = false;
    std::size_t i = 0;
    while (i < words.size() && is_env_assignment(words[i]))
        ++i;
    if (i < words.size() && series_base_name(words[i]) == "env") {
        ++i;
        while (i < words.size() && (is_env_assignment(words[i]) || words[i].starts_with("-")))
            ++i;
    }
    if (i < words.size() && is_interpreter_word(words[i])) {
        const bool uv = series_base_name(words[i]) == "uv";
        ++i;
        if (uv && i < words.size() && words[i] == "run")
            ++i;
        while (i < words.size() && words[i].starts_with("-")) {
            if (words[i] == "-m" && i + 1 < words.size()) {
                module = true;
                return i + 1;
            }
            ++i;
        }
    }
    return i;
}

} // namespace

std::string gpu_class(std::string_view gpu_name) {
    std::string out;
    for (const auto& w : series_words(gpu_name)) {
        if (w == "NVIDIA" || w == "Tesla" || w == "GeForce")
            continue;
        if (!out.empty())
            out += ' ';
        out += w;
    }
    return out;
}

std::string testbed_of(const std::string* testbed, const std::string* gpu) {
    if (testbed && !testbed->empty())
        return *testbed;
    return gpu ? gpu_class(*gpu) : std::string();
}

std::string testbed_of(const Measurement& m) {
    const auto testbed = m.runner.find("testbed");
    const auto gpu = m.runner.find("gpu");
    return testbed_of(testbed == m.runner.end() ? nullptr : &testbed->second,
                      gpu == m.runner.end() ? nullptr : &gpu->second);
}

SeriesKey series_key(const Measurement& m) {
    return SeriesKey{m.benchmark, m.metric, testbed_of(m)};
}

std::string to_string(const SeriesKey& key) {
    std::string out =
        (key.benchmark.empty() ? std::string("(unnamed)") : key.benchmark) + " · " + key.metric;
    if (!key.testbed.empty())
        out += " · " + key.testbed;
    return out;
}

std::string default_benchmark_name(std::string_view command) {
    const auto words = test_command_words(command);
    if (words.empty())
        return std::string(command);
    bool module = false;
    const std::size_t i = program_word_index(words, module);
    if (i >= words.size()) // only launchers: the last one is what runs
        return std::string(series_base_name(words.back()));
    if (module)
        return words[i];
    const std::string_view name = series_base_name(words[i]);
    return name.empty() ? words[i] : std::string(name);
}

bool is_legacy_command_name(std::string_view name) {
    const auto words = series_words(name);
    if (words.size() < 2)
        return false;
    if (is_interpreter_word(words[0]) || series_base_name(words[0]) == "env" ||
        is_env_assignment(words[0]))
        return true;
    const std::string_view first = words[0];
    if (first.find('/') != std::string_view::npos)
        return true;
    // a file name with an extension: "MLUPS3d.py", "bench.sh", "run.exe"
    const auto dot = first.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == first.size())
        return false;
    for (char c : first.substr(dot + 1))
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    return true;
}

bool SeriesSelector::matches(const SeriesKey& key) const {
    return (benchmark.empty() || key.benchmark == benchmark) &&
           (metric.empty() || key.metric == metric) && (testbed.empty() || key.testbed == testbed);
}

bool SeriesSelector::matches(const Series& series) const {
    if (matches(series.key))
        return true;
    if (benchmark.empty() || !series.stored_benchmarks.count(benchmark))
        return false; // a name the series' points were stored under also selects it
    SeriesKey as_stored = series.key;
    as_stored.benchmark = benchmark;
    return matches(as_stored);
}

bool SeriesSelector::may_hold(const SeriesKey& stored) const {
    // The folds keep the metric, give a point without a testbed a testbed and one without a
    // benchmark name a name, and a legacy command line its default name; a series is also
    // selected by a name its points were stored under, whose default name it may carry.
    if (!metric.empty() && stored.metric != metric)
        return false;
    if (!testbed.empty() && !stored.testbed.empty() && stored.testbed != testbed)
        return false;
    if (benchmark.empty() || stored.benchmark.empty() || stored.benchmark == benchmark)
        return true;
    const std::string as_default =
        is_legacy_command_name(benchmark) ? default_benchmark_name(benchmark) : benchmark;
    if (stored.benchmark == as_default)
        return true;
    if (!is_legacy_command_name(stored.benchmark))
        return false;
    const std::string to = default_benchmark_name(stored.benchmark);
    return to == benchmark || to == as_default;
}

namespace {

std::string joined_points_text(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " point" : " points");
}

struct StoredKey {
    SeriesKey stored; ///< as recorded
    SeriesKey key;    ///< after the folds
};

// Fold 1: a legacy command-line name joins its default name when points of that name exist
// (recorded since), unless two command lines of the same metric and testbed share it.
void fold_legacy_names(std::vector<StoredKey>& keys) {
    std::map<SeriesKey, std::set<std::string>> sources; // folded key → command lines
    std::set<SeriesKey> stored;
    for (const auto& k : keys)
        stored.insert(k.stored);
    for (const auto& k : keys)
        if (is_legacy_command_name(k.stored.benchmark))
            sources[{default_benchmark_name(k.stored.benchmark), k.stored.metric, k.stored.testbed}]
                .insert(k.stored.benchmark);
    for (auto& k : keys) {
        if (!is_legacy_command_name(k.stored.benchmark))
            continue;
        const SeriesKey to{default_benchmark_name(k.stored.benchmark), k.stored.metric,
                           k.stored.testbed};
        if (sources[to].size() == 1 && stored.count(to))
            k.key = to;
    }
}

// Fold 2: unnamed points join the one named benchmark of their metric (and known testbed).
void fold_unnamed(std::vector<StoredKey>& keys) {
    std::map<std::pair<std::string, std::string>, std::set<std::string>> named; // metric,testbed
    std::map<std::string, std::set<std::string>> named_any;                     // metric
    for (const auto& k : keys)
        if (!k.key.benchmark.empty()) {
            named[{k.key.metric, k.key.testbed}].insert(k.key.benchmark);
            named_any[k.key.metric].insert(k.key.benchmark);
        }
    for (auto& k : keys) {
        if (!k.key.benchmark.empty())
            continue;
        const auto& choices =
            k.key.testbed.empty() ? named_any[k.key.metric] : named[{k.key.metric, k.key.testbed}];
        if (choices.size() == 1)
            k.key.benchmark = *choices.begin();
    }
}

// Fold 3: points without a testbed join the one known testbed of their benchmark and metric.
void fold_unknown_testbed(std::vector<StoredKey>& keys) {
    std::map<std::pair<std::string, std::string>, std::set<std::string>> known;
    for (const auto& k : keys)
        if (!k.key.testbed.empty())
            known[{k.key.benchmark, k.key.metric}].insert(k.key.testbed);
    for (auto& k : keys) {
        if (!k.key.testbed.empty())
            continue;
        const auto& choices = known[{k.key.benchmark, k.key.metric}];
        if (choices.size() == 1)
            k.key.testbed = *choices.begin();
    }
}

} // namespace

std::map<SeriesKey, SeriesKey> fold_series_keys(const std::set<SeriesKey>& stored) {
    std::vector<StoredKey> keys;
    keys.reserve(stored.size());
    for (const auto& k : stored)
        keys.push_back({k, k});
    fold_legacy_names(keys);
    fold_unnamed(keys);
    fold_unknown_testbed(keys);
    std::map<SeriesKey, SeriesKey> out;
    for (auto& k : keys)
        out.emplace_hint(out.end(), std::move(k.stored), std::move(k.key));
    return out;
}

std::string joined_note(const SeriesKey& key, const SeriesKey& stored, std::size_t n) {
    std::vector<std::string> why;
    if (stored.benchmark != key.benchmark)
        why.push_back(stored.benchmark.empty() ? std::string("without a benchmark name")
                                               : "under the command line '" + stored.benchmark +
                                                     "' (the default name of earlier versions)");
    if (stored.testbed != key.testbed)
        why.push_back("without a testbed (no GPU recorded)");
    std::string text = joined_points_text(n) + " recorded ";
    for (std::size_t j = 0; j < why.size(); ++j)
        text += (j ? " and " : "") + why[j];
    return text + " joined this series (the only one they fit)";
}

std::vector<Series> group_series(std::vector<Measurement> all) {
    std::erase_if(all, [](const Measurement& m) {
        return m.stage == Stage::hourly || m.stage == Stage::commit;
    });
    std::vector<SeriesKey> stored;
    stored.reserve(all.size());
    for (const auto& m : all)
        stored.push_back(series_key(m));
    const auto fold = fold_series_keys(std::set<SeriesKey>(stored.begin(), stored.end()));
    std::map<SeriesKey, Series> by_key;
    // per series: how many points joined from each stored (benchmark, testbed) that differs
    std::map<SeriesKey, std::map<std::pair<std::string, std::string>, std::size_t>> joined;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const SeriesKey& key = fold.at(stored[i]);
        auto& s = by_key[key];
        s.key = key;
        s.stored_benchmarks.insert(stored[i].benchmark);
        s.points.push_back(std::move(all[i]));
        if (stored[i] != key)
            ++joined[key][{stored[i].benchmark, stored[i].testbed}];
    }
    std::vector<Series> out;
    out.reserve(by_key.size());
    for (auto& [key, s] : by_key) {
        for (const auto& [from, n] : joined[key])
            s.notes.push_back(joined_note(key, {from.first, key.metric, from.second}, n));
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<Measurement> points_of_series(std::vector<Measurement> all,
                                          const SeriesSelector& wanted) {
    auto series = group_series(std::move(all));
    std::vector<Measurement> out;
    auto take = [&](const SeriesSelector& select) {
        for (auto& s : series)
            if (select.matches(s))
                for (auto& m : s.points)
                    out.push_back(std::move(m));
    };
    bool named = wanted.benchmark.empty();
    for (const auto& s : series)
        named = named || wanted.matches(s);
    if (named) {
        take(wanted);
        return out;
    }
    std::set<std::string> legacy; // command lines whose default name is the benchmark
    for (const auto& s : series) {
        SeriesKey as_named = s.key;
        as_named.benchmark = wanted.benchmark;
        if (is_legacy_command_name(s.key.benchmark) &&
            default_benchmark_name(s.key.benchmark) == wanted.benchmark && wanted.matches(as_named))
            legacy.insert(s.key.benchmark);
    }
    if (legacy.size() == 1)
        take({*legacy.begin(), wanted.metric, wanted.testbed});
    return out;
}

namespace {
int verdict_badness(Verdict v) {
    switch (v) {
    case Verdict::regression:
        return 3;
    case Verdict::inconclusive:
        return 2;
    case Verdict::improvement:
        return 1;
    case Verdict::no_regression:
        return 0;
    }
    return 2;
}
} // namespace

Verdict worst_verdict(const std::vector<Verdict>& verdicts) {
    if (verdicts.empty())
        return Verdict::inconclusive;
    return *std::max_element(verdicts.begin(), verdicts.end(), [](Verdict a, Verdict b) {
        return verdict_badness(a) < verdict_badness(b);
    });
}

Verdict worst_verdict(const std::vector<SeriesDetect>& series) {
    std::vector<Verdict> v;
    v.reserve(series.size());
    for (const auto& s : series)
        v.push_back(s.result.verdict);
    return worst_verdict(v);
}

} // namespace perfsweep::core
