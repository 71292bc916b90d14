#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/benchmark_action_json.hpp"
#include "adapters/json/measurement_json.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

using namespace perfsweep;

namespace {
core::Measurement point(const std::string& label, double v) {
    core::Measurement m;
    m.benchmark = "b";
    m.metric = "MLUPS";
    m.label = label;
    m.values = {v};
    return m;
}

/// A JSON Lines history "h.jsonl" in a fresh folder, for the test cases that start from one.
struct HistoryFile {
    test::TempDir dir;
    const std::string path = dir.file("h.jsonl");
    adapters::JsonlHistoryStore store{path};
};
} // namespace

TEST_CASE("JSON Lines store: append and load round trip", "[adapters][history]") {
    test::TempDir dir;
    adapters::JsonlHistoryStore store(dir.file("sub/h.jsonl"));
    CHECK(store.load().records.empty()); // missing file = empty history
    store.append({point("a", 1), point("b", 2)});
    store.append({point("c", 3)});
    auto load = store.load();
    REQUIRE(load.records.size() == 3);
    CHECK(load.records[2].label == "c");
    CHECK(load.warnings.empty());
    CHECK(test::read_file(dir.file("sub/h.jsonl")).back() == '\n');
}

TEST_CASE_METHOD(HistoryFile, "a torn last line is a warning and appends stay parseable",
                 "[adapters][history]") {
    store.append({point("a", 1), point("b", 2)});
    std::string text = test::read_file(path);
    const std::string third = test::read_file(path).substr(0, text.find('\n'));
    test::write_file(path, text + third.substr(0, third.size() / 2)); // crash mid-write
    auto load = store.load();
    CHECK(load.records.size() == 2);
    REQUIRE(load.warnings.size() == 1);
    CHECK_THAT(load.warnings[0], Catch::Contains(path + ":3") && Catch::Contains("torn"));

    // The append writes in place after the torn line (same inode, every earlier byte kept) and
    // starts a line of its own rather than glue onto it.
    struct stat was {
    }, is{};
    REQUIRE(::stat(path.c_str(), &was) == 0);
    const std::string torn = test::read_file(path);
    store.append({point("c", 3)});
    REQUIRE(::stat(path.c_str(), &is) == 0);
    CHECK(is.st_ino == was.st_ino);
    const std::string grown = test::read_file(path);
    REQUIRE(grown.size() > torn.size());
    CHECK(grown.compare(0, torn.size(), torn) == 0);
    CHECK(grown[torn.size()] == '\n');
    auto after = store.load();
    REQUIRE(after.records.size() == 3);
    CHECK(after.records[2].label == "c");
    REQUIRE(after.warnings.size() == 1);
    CHECK_THAT(after.warnings[0], Catch::Contains(path + ":3"));
}

TEST_CASE_METHOD(HistoryFile, "a malformed line in the middle is an error naming file:line",
                 "[adapters][history]") {
    store.append({point("a", 1)});
    const std::string good = test::read_file(path);
    test::write_file(path, good + "{\"metric\": 12, \"label\": \"x\"}\n" + good);
    try {
        store.load();
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains(path + ":2"));
    }
    test::write_file(path, good + "garbage\n" + good);
    CHECK_THROWS_WITH(store.load(), Catch::Contains(path + ":2"));
}

TEST_CASE("two processes appending at once never interleave", "[adapters][history][slow]") {
    test::TempDir dir;
    const auto path = dir.file("h.jsonl");
    // Two real writer processes (forked children, each with its own store on the same file),
    // 50 appends of one record each, started together.
    std::vector<pid_t> writers;
    for (const std::string w : {"A", "B"}) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int status = 0;
            try {
                adapters::JsonlHistoryStore mine(path);
                for (int i = 1; i <= 50; ++i) {
                    auto m = point(w + "-" + std::to_string(i), i);
                    m.benchmark = "writer-" + w;
                    mine.append({m});
                }
            } catch (...) {
                status = 1;
            }
            ::_exit(status);
        }
        writers.push_back(pid);
    }
    for (const pid_t pid : writers) {
        int status = -1;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
    }
    adapters::JsonlHistoryStore store(path);
    auto load = store.load();
    CHECK(load.warnings.empty());
    REQUIRE(load.records.size() == 100);
    std::map<std::string, int> next{{"A", 1}, {"B", 1}};
    for (const auto& m : load.records) {
        const std::string w = m.label.substr(0, 1);
        CHECK(m.benchmark == "writer-" + w);
        CHECK(m.label == w + "-" + std::to_string(next[w]));
        CHECK(m.values == std::vector<double>{static_cast<double>(next[w])});
        ++next[w];
    }
    CHECK(next["A"] == 51);
    CHECK(next["B"] == 51);
}

TEST_CASE_METHOD(HistoryFile, "an append waits for the writer holding the lock",
                 "[adapters][history]") {
    store.append({point("a", 1)});
    const std::string before = test::read_file(path);
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    // Another store on the same file (its own open file description, so flock excludes it as
    // it would another process).
    adapters::JsonlHistoryStore other(path);
    std::thread writer([&] { other.append({point("b", 2)}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(test::read_file(path) == before); // blocked behind our lock
    ::flock(fd, LOCK_UN);
    ::close(fd);
    writer.join();
    auto load = store.load();
    REQUIRE(load.records.size() == 2);
    CHECK(load.records[1].label == "b");
}

TEST_CASE_METHOD(HistoryFile,
                 "an append cut short is invisible to readers and removed by the next append",
                 "[adapters][history]") {
    // What a SIGKILL or a power loss in the middle of an append leaves: the marker with the size
    // before it, and part of the batch at the end of the file.
    store.append({point("a", 1), point("b", 2)});
    const std::string committed = test::read_file(path);
    test::write_file(path + ".perfsweep-pending",
                     "perfsweep-pending " + std::to_string(committed.size()) + " 400 0\n");
    test::write_file(
        path, committed + "{\"benchmark\":\"b\",\"metric\":\"MLUPS\",\"unit\":\"\","
                          "\"direction\":\"higher\",\"values\":[3.0],\"label\":\"c\"}\n{\"ben");
    CHECK(adapters::read_history_text(path) == committed);
    auto load = store.load();
    REQUIRE(load.records.size() == 2); // the whole first line of the cut batch is not read either
    CHECK(load.warnings.empty());
    store.append({point("d", 4)});
    const std::string after = test::read_file(path);
    CHECK(after.rfind(committed, 0) == 0);
    CHECK(after.find("\"label\":\"c\"") == std::string::npos);
    CHECK(after.find("\"label\":\"d\"") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(path + ".perfsweep-pending"));
    CHECK(store.load().records.size() == 3);
}

TEST_CASE_METHOD(HistoryFile,
                 "a batch that reached the disk whole counts even if its marker is still there",
                 "[adapters][history]") {
    // A crash after the fsync and before the marker was removed: the checksum says it is whole.
    store.append({point("a", 1)});
    const std::string before = test::read_file(path);
    store.append({point("b", 2)});
    const std::string batch = test::read_file(path).substr(before.size());
    // FNV-1a from the store's own basis (kept for the markers already on disk).
    const std::uint64_t h = util::fnv1a64(batch, 1469598103934665603ULL);
    char marker[128];
    std::snprintf(marker, sizeof marker, "perfsweep-pending %zu %zu %llx\n", before.size(),
                  batch.size(), static_cast<unsigned long long>(h));
    test::write_file(path + ".perfsweep-pending", marker);
    CHECK(store.load().records.size() == 2);
    store.append({point("c", 3)});
    CHECK(store.load().records.size() == 3);
}

TEST_CASE_METHOD(HistoryFile,
                 "a load of one series decodes only its lines; a scan visits every record",
                 "[adapters][history]") {
    std::vector<core::Measurement> batch;
    for (int i = 0; i < 30; ++i) {
        auto m = point("n" + std::to_string(i), i);
        m.benchmark = i % 3 == 0 ? "lbm" : (i % 3 == 1 ? "lbm-2d" : "other");
        m.metric = i % 2 == 0 ? "MLUPS" : "step_time";
        m.runner = {{"gpu", i % 5 == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200"}};
        batch.push_back(m);
    }
    store.append(batch);
    auto lbm = store.load_matching({"lbm", "MLUPS", ""});
    REQUIRE(lbm.records.size() == 5); // i = 0, 6, 12, 18, 24
    for (const auto& m : lbm.records)
        CHECK((m.benchmark == "lbm" && m.metric == "MLUPS"));
    CHECK(store.load_matching({"lbm", "MLUPS", "H100 80GB HBM3"}).records.size() == 1); // i = 0
    CHECK(store.load_matching({"nope", "", ""}).records.empty());
    std::size_t visited = 0;
    CHECK(store.scan([&](core::Measurement&&) { ++visited; }).empty());
    CHECK(visited == 30);
    // Another series' line that is not even an object is still an error naming file:line; a
    // record of the series spelled with escapes is still found.
    const std::string text = test::read_file(path);
    test::write_file(path, text +
                               "{\"benchmark\":\"\\u006cbm\",\"metric\":\"MLUPS\",\"values\":[9.0],"
                               "\"label\":\"esc\",\"status\":\"ok\"}\n");
    CHECK(store.load_matching({"lbm", "MLUPS", ""}).records.size() == 6);
    test::write_file(path, text + "garbage\n" + text);
    CHECK_THROWS_WITH(store.load_matching({"lbm", "MLUPS", ""}), Catch::Contains(path + ":31"));
    // A record of the metric but of another series is read for its key only (a well-formed
    // object): a bad field there is found by a load of its own series, not of this one.
    const std::string bad_other = R"({"benchmark":"other","metric":"MLUPS","values":[1.0],)"
                                  R"("label":"x","status":"bogus"})";
    test::write_file(path, text + bad_other + "\n");
    CHECK(store.load_matching({"lbm", "MLUPS", ""}).records.size() == 5);
    CHECK_THROWS_WITH(store.load_matching({"other", "MLUPS", ""}),
                      Catch::Contains(path + ":31") && Catch::Contains("status"));
    const std::string bad_lbm = R"({"benchmark":"lbm","metric":"MLUPS","values":[1.0],)"
                                R"("label":"x","status":"bogus"})";
    test::write_file(path, text + bad_lbm + "\n");
    CHECK_THROWS_WITH(store.load_matching({"lbm", "MLUPS", ""}), Catch::Contains(path + ":31"));
}

TEST_CASE("a record's key read quickly is the key of the decoded record, or not read at all",
          "[adapters][history]") {
    // record_key_from_json reads benchmark, metric, stage and the runner's testbed and gpu
    // without decoding the line; whenever it answers, its answer is measurement_from_json's.
    const std::vector<std::pair<std::string, bool>> lines = {
        {R"({"benchmark":"lbm","metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":{"gpu":"NVIDIA H200"}})",
         true},
        {R"({"benchmark":"\u006cbm","metric":"ML\"UPS","label":"a","status":"ok","values":[1],"stage":"daily"})",
         true},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":{"testbed":"","gpu":"Tesla V100"}})",
         true},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":{"testbed":"dgx","gpu":"H100"}})",
         true},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":null,"stage":""})",
         true},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"stage":"hourly","commits":{"gpu":"x"}})",
         true},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"environment":{"testbed":"x"},"runner":{}})",
         true},
        {R"({"benchmark":"a","benchmark":"b","metric":"MLUPS","label":"a","status":"ok","values":[1]})",
         false},
        {R"({"benchmark":1,"metric":"MLUPS","label":"a","status":"ok","values":[1]})", false},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":["gpu"]})", false},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":"H100"})", false},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":{"gpu":7}})", false},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"runner":{"gpu":"a"},"runner":{"gpu":"b"}})",
         false},
        {R"({"metric":"MLUPS","label":"a","status":"ok","values":[1],"stage":"nightly"})", false},
        {R"({"benchmark":"lbm","label":"a","status":"ok","values":[1]})", false},
        {R"({"benchmark":"lbm","metric":"MLUPS","label":"a")", false},
        {R"([{"benchmark":"lbm","metric":"MLUPS","label":"a","status":"ok","values":[1]}])", false},
        {R"("lbm")", false},
        {"{\"benchmark\":\"l\xff"
         "bm\",\"metric\":\"MLUPS\",\"label\":\"a\"}",
         false}, // not UTF-8
    };
    for (const auto& [line, readable] : lines) {
        INFO(line);
        const auto quick = adapters::record_key_from_json(line);
        CHECK(quick.has_value() == readable);
        if (!quick)
            continue;
        const auto m = adapters::measurement_from_json(line, "h:1");
        CHECK(quick->key == core::series_key(m));
        CHECK(quick->stage == m.stage);
    }
    // Nesting beyond the limit is refused, not recursed into.
    CHECK_FALSE(adapters::record_key_from_json(R"({"metric":"m","x":)" + std::string(100000, '[')));
}

TEST_CASE("github-action-benchmark data.js is imported", "[adapters][import]") {
    const std::string js = R"(window.BENCHMARK_DATA = {
  "lastUpdate": 1693000000000,
  "repoUrl": "https://github.com/x/y",
  "entries": {
    "XLB": [
      {"commit": {"id": "bbbbbbbbbbbbbbbbbbbb", "timestamp": "2023-08-24T10:00:00+02:00"},
       "date": 1692870000000, "tool": "customBiggerIsBetter",
       "benches": [{"name": "MLUPS", "value": 537.1, "unit": "MLUPS", "range": "1.2"},
                   {"name": "GB/s", "value": "n/a", "unit": "GB/s"}]},
      {"commit": {"id": "aaaaaaaaaaaaaaaaaaaa", "timestamp": "2023-08-23T10:00:00Z"},
       "date": 1692780000000,
       "benches": [{"name": "MLUPS", "value": 577.3, "unit": "MLUPS"}]}
    ]
  }
};
)";
    auto ms = adapters::parse_benchmark_action(js, "data.js", {});
    REQUIRE(ms.size() == 3);
    CHECK(ms[0].label == "aaaaaaaaaaaa"); // ordered by date, not file order
    CHECK(ms[0].benchmark == "XLB");
    CHECK(ms[0].metric == "MLUPS");
    CHECK(ms[0].values == std::vector<double>{577.3});
    CHECK(ms[0].commits.at("repo") == "aaaaaaaaaaaaaaaaaaaa");
    CHECK(ms[1].unit == "MLUPS");
    CHECK(ms[2].metric == "GB/s");
    CHECK(ms[2].status == core::Status::failed);
}

TEST_CASE("malformed benchmark-action data names file and line", "[adapters][import]") {
    CHECK_THROWS_WITH(adapters::parse_benchmark_action(
                          "window.BENCHMARK_DATA = {\n\"entries\": {\n,}\n}", "data.js", {}),
                      Catch::Contains("data.js:3"));
    CHECK_THROWS_WITH(adapters::parse_benchmark_action("{\"entries\": {\"s\": [{\"benches\": "
                                                       "[]}]}}",
                                                       "d.json", {}),
                      Catch::Contains("d.json") && Catch::Contains("commit.id"));
    CHECK_THROWS_WITH(adapters::parse_benchmark_action("{\"x\": 1}", "d.json", {}),
                      Catch::Contains("entries"));
}
