// The JAX-Toolbox mode end to end: the real binary rebuilds source states inside stand-in
// JAX-Toolbox images (tests/support/jax_toolbox: a strict build-jax.sh per image generation, the
// image's own clones, a benchmark that reads the installed build) run by the fake docker, and must
// find the planted culprit. The wrong build forms perfsweep's docs once showed are run against the
// same images to prove the stand-in catches them.

#include "adapters/slurm/held_allocation.hpp"
#include "core/jax_toolbox.hpp"
#include "support/env_guard.hpp"
#include "support/jax_toolbox_world.hpp"
#include "support/json_doc.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <regex>
#include <set>

using namespace perfsweep;
namespace fs = std::filesystem;

namespace {

#define SKIP_WITHOUT_IMAGES()                                                                      \
    if (const auto why = test::JaxToolboxWorld::unavailable(); !why.empty()) {                     \
        WARN("SKIPPED: " << why);                                                                  \
        return;                                                                                    \
    }

std::vector<std::string> hourly_args(const test::JaxToolboxWorld& w, const std::string& date,
                                     const std::vector<std::string>& extra,
                                     const std::string& logs = "logs") {
    std::vector<std::string> a{"hourly",
                               "--repo",
                               "jax=" + w.clone("jax"),
                               "--repo",
                               "xla=" + w.clone("xla"),
                               "--from",
                               w["GOOD_TIME"],
                               "--to",
                               w["BAD_TIME"],
                               "--image",
                               w.image(date),
                               "--test",
                               "standin-bench",
                               "--repeats",
                               "2",
                               "--logs",
                               w.file(logs),
                               "--json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

/// Every file named `name` under `dir`, its content.
std::vector<std::string> logs_named(const std::string& dir, const std::string& name) {
    std::vector<std::string> out;
    if (!fs::exists(dir))
        return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename() == name)
            out.push_back(test::read_file(e.path().string()));
    return out;
}

/// The culprit of an hourly JSON result ("" when there is none).
std::string culprit_of(const rapidjson::Document& d, std::string* repo = nullptr) {
    if (!d.HasMember("culprit"))
        return "";
    if (repo)
        *repo = d["culprit"]["repo"].GetString();
    return d["culprit"]["sha"].GetString();
}

/// A run of the search in the good nightly, asserting the culprit and how every build ran.
/// The first `perfsweep hourly --jax-toolbox` example of docs/jax-toolbox.md as arguments for the
/// world: its image, clones, window, benchmark and state directory replaced by the world's (its
/// --mount dropped), every other flag as the docs give it.
std::vector<std::string> docs_example(const test::JaxToolboxWorld& w) {
    const auto doc = test::read_file(std::string(PERFSWEEP_SOURCE_DIR) + "/docs/jax-toolbox.md");
    const auto at = doc.find("```sh\nperfsweep hourly --jax-toolbox");
    REQUIRE(at != std::string::npos);
    const auto block = doc.substr(at + 6, doc.find("```", at + 6) - at - 6);
    std::vector<std::string> words;
    std::string word;
    bool quoted = false, in_word = false;
    for (std::size_t i = 0; i < block.size(); ++i) {
        const char c = block[i];
        if (c == '\'') {
            quoted = !quoted;
            in_word = true;
        } else if (!quoted && c == '\\' && i + 1 < block.size() && block[i + 1] == '\n') {
            ++i;
        } else if (!quoted && (c == ' ' || c == '\n')) {
            if (in_word)
                words.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word)
        words.push_back(word);
    REQUIRE(words.size() > 2);
    std::vector<std::string> out;
    for (std::size_t i = 2; i < words.size(); ++i) { // after "perfsweep hourly"
        const auto& flag = words[i];
        const bool valued = i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0;
        const std::string value = valued ? words[i + 1] : "";
        std::string mine;
        if (flag == "--image")
            mine = w.image(w["GOOD_DATE"]);
        else if (flag == "--repo")
            mine = value.substr(0, value.find('=') + 1) + w.clone(value.substr(0, value.find('=')));
        else if (flag == "--from")
            mine = w["GOOD_TIME"];
        else if (flag == "--to")
            mine = w["BAD_TIME"];
        else if (flag == "--test")
            mine = "standin-bench";
        else if (flag == "--state")
            mine = w.file("state");
        if (flag == "--mount") {
            ++i;
            continue;
        }
        out.push_back(flag);
        if (valued) {
            out.push_back(mine.empty() ? value : mine);
            ++i;
        }
    }
    return out;
}

/// A run of the search in the good nightly (`args` after "hourly"), asserting the culprit and how
/// every build ran.
void finds_culprit(const test::JaxToolboxWorld& w, const std::string& generation,
                   std::vector<std::string> args) {
    args.insert(args.begin(), "hourly");
    for (const auto& a : {"--repeats", "2", "--logs", "LOGS", "--json"})
        args.push_back(a == std::string("LOGS") ? w.file("logs") : a);
    const auto r = test::run_perfsweep(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = test::parse_json_object(r.out);
    CHECK(std::string(d["conclusion"].GetString()) == "culprit");
    std::string repo;
    CHECK(culprit_of(d, &repo) == w["CULPRIT"]);
    CHECK(repo == "xla");

    // Every build went through build-jax.sh with the generation's own call, and every benchmark
    // measured the tree of its state (the installed build, not the image's nightly).
    const auto builds = logs_named(w.file("logs"), "build.log");
    REQUIRE(builds.size() >= 3);
    // Both generations' scripts take the cache and the source paths (the 2023 one since
    // 2023-04/05); the cache is mounted out of the way of clean().
    const std::string call = generation == "jax"
                                 ? "build-jax.sh --bazel-cache /perfsweep/bazel-cache "
                                   "--src-path-jax /opt/jax --src-path-xla /opt/xla"
                                 : "build-jax.sh --bazel-cache /perfsweep/bazel-cache "
                                   "--src-path-jax /opt/jax-source --src-path-xla /opt/xla-source";
    for (const auto& log : builds) {
        INFO(log);
        // Today's images keep each build (/opt/jaxlibs) and put it back on a revisit (the log
        // of a state's last build step is kept).
        if (log.find("perfsweep: kept build put back from /perfsweep/builds/") !=
            std::string::npos) {
            CHECK(generation == "jax");
            CHECK_THAT(log, !Catch::Contains("built: jax="));
            continue;
        }
        CHECK_THAT(log, Catch::Contains(call));
        if (generation == "nightly")
            CHECK_THAT(log, Catch::Contains("rm -f /opt/jax-source/dist/jax*.whl") &&
                                Catch::Contains("Successfully installed"));
        else
            CHECK_THAT(log, Catch::Contains("perfsweep: build kept in /perfsweep/builds/"));
        CHECK_THAT(log, Catch::Contains("built: jax="));
    }
    std::set<std::string> measured;
    const std::regex tree(R"(jaxlib: jax=([0-9a-f]{40}) xla=([0-9a-f]{40}))");
    for (const auto& log : logs_named(w.file("logs"), "run-1.log")) {
        std::smatch m;
        REQUIRE(std::regex_search(log, m, tree));
        measured.insert(m[1].str() + "," + m[2].str());
        // {path:jax} / PERFSWEEP_PATH_JAX is the tree the benchmark sees, not the host clone.
        CHECK_THAT(log, Catch::Contains("jax tree: " + std::string(generation == "jax"
                                                                       ? "/opt/jax\n"
                                                                       : "/opt/jax-source\n")));
    }
    CHECK(measured.count(w["GOOD_JAX"] + "," + w["GOOD_XLA"]) == 1);
    CHECK(measured.count(w["BAD_JAX"] + "," + w["BAD_XLA"]) == 1);
    CHECK(measured.size() <= builds.size());
    // Today's images: every distinct tree built is kept in the store, named in its index.
    if (generation == "jax") {
        const auto index = test::read_file(w.file("state/builds/index.tsv"));
        CHECK(static_cast<std::size_t>(std::count(index.begin(), index.end(), '\n')) ==
              measured.size() + 1);
    } else {
        CHECK_FALSE(fs::exists(w.file("state/builds/index.tsv")));
    }

    // One kept container for the whole search, with an init process as PID 1 (as
    // jax-toolbox-triage starts it: bazel's server hangs on shutdown without one).
    int started = 0;
    for (const auto& c : w.docker_calls())
        if (c.size() > 3 && c[1] == "run" && c[2] == "-d") {
            ++started;
            CHECK(c[3] == "--init");
        }
    CHECK(started == 1);
    // The bazel cache is the host directory (it survives the container and clean()): one entry
    // per distinct tree built.
    const auto cache = w.file("state/bazel-cache/standin");
    REQUIRE(fs::exists(cache));
    CHECK(static_cast<std::size_t>(std::distance(fs::directory_iterator(cache),
                                                 fs::directory_iterator())) == measured.size());
}

/// finds_culprit with the usual flags: the good nightly, --jax-toolbox auto, --to-commit, a state;
/// then `again` (when given) with the world and the arguments.
void finds_culprit(
    const std::string& generation, const std::vector<std::string>& extra,
    const std::function<void(const test::JaxToolboxWorld&, std::vector<std::string>)>& again = {}) {
    test::JaxToolboxWorld w(generation);
    std::vector<std::string> args = {"--repo",        "jax=" + w.clone("jax"),
                                     "--repo",        "xla=" + w.clone("xla"),
                                     "--from",        w["GOOD_TIME"],
                                     "--to",          w["BAD_TIME"],
                                     "--image",       w.image(w["GOOD_DATE"]),
                                     "--test",        "standin-bench",
                                     "--jax-toolbox", "auto",
                                     "--to-commit",   "--state",
                                     w.file("state")};
    args.insert(args.end(), extra.begin(), extra.end());
    finds_culprit(w, generation, args);
    if (again)
        again(w, args);
}

} // namespace

TEST_CASE("jax-toolbox: the docs' hourly example finds the culprit inside a jax- image, on the GPU "
          "it names",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    test::JaxToolboxWorld w("jax");
    auto args = docs_example(w);
    // The example names its GPU: without one a plain `docker run` has none (CPU numbers).
    CHECK(std::find(args.begin(), args.end(), "--gpus") != args.end());
    // The stand-in nightlies carry build-jax.sh ed544116, which has -r/--release (2025-12).
    args.push_back("--build-jax-arg=-r");
    finds_culprit(w, "jax", args);
    for (const auto& log : logs_named(w.file("logs"), "run-1.log"))
        CHECK_THAT(log, Catch::Contains("gpus: 0\n"));
}

TEST_CASE("jax-toolbox: the culprit is found inside a 2023 nightly- image (/opt/*-source)",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    // --clean: every build ends in the script's clean(), `rm -rf ~/.cache/bazel`; the cache
    // survives it (mounted elsewhere) and so does every build.
    finds_culprit("nightly", {"--build-jax-arg=--clean"});
}

TEST_CASE("jax-toolbox: the culprit is found with the host clones mounted over /opt; a second "
          "search over the same states puts every kept build back instead of building",
          "[jax-toolbox][cli][builds]") {
    SKIP_WITHOUT_IMAGES();
    finds_culprit("jax", {"--jax-toolbox-sources", "mounted"},
                  [](const test::JaxToolboxWorld& w, std::vector<std::string> args) {
                      // A new journal, the same store (STATE/builds) and a new container: the
                      // benchmark measures what was put back into /opt/jaxlibs (an editable
                      // install), so a put-back that did not happen names no culprit.
                      fs::remove(w.file("state") + "/journal.tsv");
                      args.insert(args.begin(), "hourly");
                      for (const auto& a : {"--repeats", "2", "--json", "--logs"})
                          args.push_back(a);
                      args.push_back(w.file("logs-again"));
                      const auto r = test::run_perfsweep(args);
                      INFO(r.err);
                      REQUIRE(r.exit_code == 0);
                      const auto d = test::parse_json_object(r.out);
                      CHECK(culprit_of(d) == w["CULPRIT"]);
                      CHECK(d["builds"].GetInt() == 0);
                      CHECK(d["restored_builds"].GetInt() >= 3);
                      const auto steps = logs_named(w.file("logs-again"), "build.log");
                      REQUIRE(steps.size() >= 3);
                      for (const auto& log : steps) {
                          INFO(log);
                          CHECK_THAT(log, Catch::Contains("kept build put back from "
                                                          "/perfsweep/builds/") &&
                                              !Catch::Contains("built: jax="));
                      }
                  });
}

TEST_CASE("jax-toolbox: daily over the stand-in nightlies reads their environment past the CUDA "
          "banner and calls a source change a source change",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    test::JaxToolboxWorld w("jax");
    // `docker run` of the nvidia/cuda-based nightlies prints the CUDA banner before the probe;
    // the nightlies' own jax and jaxlib (X.devDATE) are built from the swept sources.
    const auto r = test::run_perfsweep(
        {"daily", "--from", w["GOOD_DATE"], "--to", w["BAD_DATE"], "--runtime", "docker", "--image",
         w["IMAGE_TEMPLATE"], "--test", "standin-bench", "--repeats", "1", "--commits-probe",
         "cat /opt/manifest.d/git-clone.yaml", "--logs", w.file("logs"), "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("rejected") == std::string::npos);
    const auto d = test::parse_json_object(r.out);
    REQUIRE(d["boundaries"].Size() == 1);
    const auto& a = d["boundaries"][0]["attribution"];
    CHECK(std::string(a["cause"].GetString()) == "source");
    CHECK_THAT(a["summary"].GetString(),
               Catch::StartsWith("sources changed (jax, xla); the recorded environment is "
                                 "identical"));
    // The probe did read the nightly's environment (not the banner).
    const auto probe = logs_named(w.file("logs"), "env-probe.log");
    REQUIRE(!probe.empty());
    CHECK_THAT(probe.front(), Catch::Contains("== CUDA ==") &&
                                  Catch::Contains("jaxlib=0.5.4.dev" +
                                                  util::replace_all(w["GOOD_DATE"], "-", "")));
}

TEST_CASE("jax-toolbox: the build forms perfsweep's docs once showed fail against the stand-in",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    test::JaxToolboxWorld w("jax");
    // --xla-src/--jax-src (and --xla-source-dir/--jax-source-dir): getopt refuses them, every
    // build fails, the search is inconclusive.
    for (const std::string build : {"build-jax.sh --xla-src {path:xla} --jax-src {path:jax}",
                                    "build-jax.sh --xla-source-dir {path:xla} "
                                    "--jax-source-dir {path:jax}"}) {
        const auto r = test::run_perfsweep(
            hourly_args(w, w["GOOD_DATE"], {"--runtime", "docker", "--build", build}));
        INFO(r.err);
        CHECK(r.exit_code == 4);
        CHECK(std::string(test::parse_json_object(r.out)["conclusion"].GetString()) ==
              "inconclusive");
    }
    bool refused = false;
    for (const auto& log : logs_named(w.file("logs"), "build.log"))
        refused = refused || log.find("unrecognized option '--xla-src'") != std::string::npos;
    CHECK(refused);
    // A bare build-jax.sh with the host clones mounted at their host paths builds the image's own
    // /opt trees every time: both window ends measure the same code, a silent "no change".
    const auto r = test::run_perfsweep(
        hourly_args(w, w["GOOD_DATE"], {"--runtime", "docker", "--build", "build-jax.sh"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(std::string(test::parse_json_object(r.out)["conclusion"].GetString()) == "no_change");
    // The JAX-Toolbox mode refuses the same mistakes before anything runs.
    const auto bad = test::run_perfsweep(
        hourly_args(w, w["GOOD_DATE"], {"--jax-toolbox", "auto", "--build-jax-arg=--xla-src=/x"}));
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("unrecognized option '--xla-src'"));
    const auto both = test::run_perfsweep(
        hourly_args(w, w["GOOD_DATE"], {"--jax-toolbox", "auto", "--build", "build-jax.sh"}));
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.err, Catch::Contains("drop --build"));
    // --cpu-arch is still in the getopt list of today's script, but its case branch is gone
    // (2026-01): the script answers UNKNOWN OPTION and exits 1, and perfsweep says so up front.
    const auto arch = test::run_command(
        {"docker", "run", "--rm", w.image(w["GOOD_DATE"]), "build-jax.sh", "--cpu-arch", "amd64"});
    CHECK(arch.exit_code == 1);
    CHECK_THAT(arch.out, Catch::Contains("UNKNOWN OPTION --cpu-arch"));
    const auto no_arch = test::run_perfsweep(hourly_args(
        w, w["GOOD_DATE"], {"--jax-toolbox", "auto", "--build-jax-arg=--cpu-arch=amd64"}));
    CHECK(no_arch.exit_code == 2);
    CHECK_THAT(no_arch.err, Catch::Contains("build-jax.sh ed544116") &&
                                Catch::Contains("UNKNOWN OPTION --cpu-arch"));
}

namespace {

/// The argument lists both getopt checks run.
const std::vector<std::vector<std::string>> k_getopt_cases = {
    {"--sm", "9.0"},
    {"--sm=9.0"},
    {"--sm"},
    {"--src-path-jax", "/opt/jax", "--src-path-xla=/opt/xla"},
    {"--src-path", "/x"},
    {"--src-path-j", "/opt/jax"},
    {"--xla-src", "/x"},
    {"--bazel", "/c"},
    {"--bazel-cache", "/c"},
    {"--bazel-cache-n", "n"},
    {"--clean=1"},
    {"--clean"},
    {"-h"},
    {"-x"},
    {"-r"},
    {"-hr"},
    {"-,"},
    {"--release"},
    {"--rel"},
    {"--cpu-arch", "amd64"},
    {"--debug", "--no-install", "--install"},
    {"--jaxlib_only"},
    {"--dry"},
    {"--build-param", "--bazel_options=--jobs=2"},
    {"--extra-targets", "a,b"},
    {"--", "--whatever"},
    {"--no"},
    {"--no-c"},
};

/// One bash script that prints the exit status of `command "$@"` for every case, one a line (one
/// process for all cases instead of one each). Arguments are single-quoted (none has a quote).
std::string status_loop(const std::string& command) {
    std::string script;
    for (const auto& args : k_getopt_cases) {
        script += command;
        for (const auto& a : args)
            script += " '" + a + "'";
        script += " >/dev/null 2>&1; echo $?\n";
    }
    return script;
}

} // namespace

TEST_CASE("jax-toolbox: perfsweep's getopt check agrees with getopt(1) on every build-jax.sh spec",
          "[jax-toolbox]") {
    std::set<std::string> done;
    for (const auto& script : core::build_jax_scripts()) {
        std::string longs;
        for (const auto& o : script.options)
            longs += (longs.empty() ? "" : ",") + o.name + (o.takes_value ? ":" : "");
        if (!done.insert(script.short_options + " " + longs).second)
            continue; // the same getopt call as a version already checked
        const auto r = test::run_command(
            {"bash", "-c",
             status_loop("getopt -o '" + script.short_options + "' --long '" + longs + "' --")});
        const auto codes = util::split(util::trim(r.out), '\n');
        REQUIRE(codes.size() == k_getopt_cases.size());
        for (std::size_t i = 0; i < codes.size(); ++i) {
            const auto& args = k_getopt_cases[i];
            INFO(script.commit << ": " << util::join(args, " ") << " -> getopt " << codes[i]);
            // getopt(1) takes what the script's case then refuses: that is checked below.
            const auto mine = core::check_build_jax_args(script, args);
            CHECK((mine.empty() || mine.find("UNKNOWN OPTION") != std::string::npos) ==
                  (codes[i] == "0"));
        }
    }
}

TEST_CASE("jax-toolbox: the stand-in build-jax.sh of each nightly answers as perfsweep's table "
          "says that version does",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    for (const std::string generation : {"jax", "nightly"}) {
        test::JaxToolboxWorld w(generation);
        // Parse only: --dry stops the 2023 script after its configuration, --clean-only today's
        // after its clean().
        const std::string stop = generation == "jax" ? "--clean-only" : "--dry";
        { // the good nightly (the world's others carry the same option sets)
            const auto& date = w["GOOD_DATE"];
            // The version(s) the nightly may carry (the stand-in's 08-24 has 526436f1, the one
            // of that day; 1d80d188 of 08-24 20:39Z has the same options).
            const auto scripts =
                core::build_jax_scripts_of(*core::parse_jtb_generation(generation), date);
            REQUIRE(!scripts.empty());
            const auto r =
                test::run_command({"docker", "run", "--rm", "--entrypoint", "", w.image(date),
                                   "bash", "-c", status_loop("build-jax.sh " + stop)});
            const auto codes = util::split(util::trim(r.out), '\n');
            REQUIRE(codes.size() == k_getopt_cases.size());
            for (std::size_t i = 0; i < codes.size(); ++i) {
                auto args = k_getopt_cases[i];
                INFO(date << ": " << util::join(args, " ") << " -> stand-in " << codes[i]);
                // -h passes the parsing and then prints the usage and exits 1.
                const bool help = args[0] == "-h" || args[0] == "-hr";
                args.insert(args.begin(), stop);
                for (const auto* script : scripts)
                    CHECK((core::check_build_jax_args(*script, args).empty() && !help) ==
                          (codes[i] == "0"));
            }
        }
    }
}

namespace {

/// A real single-node Slurm (tests/support/slurm) that loads the pyxis stand-in plugin.
class PyxisCluster {
public:
    PyxisCluster(const std::string& plugin, const std::string& images) {
        const std::string support = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/slurm/";
        m_stop = support + "stop.sh";
        test::write_file(m_dir.file("plugstack.conf"), "required " + plugin + " images=" + images +
                                                           " state=" + m_dir.file("pyxis") + "\n");
        fs::create_directories(m_dir.file("pyxis"));
        auto r = test::run_command({"bash", support + "start.sh", m_dir.file("slurm")},
                                   {"PERFSWEEP_SLURM_PLUGSTACK=" + m_dir.file("plugstack.conf")});
        m_rc = r.exit_code;
        m_message = r.err;
        if (m_rc == 0)
            m_conf = std::make_unique<test::EnvGuard>("SLURM_CONF", m_dir.file("slurm/slurm.conf"));
    }
    ~PyxisCluster() { test::run_command({"bash", m_stop, m_dir.file("slurm")}); }
    PyxisCluster(const PyxisCluster&) = delete;
    PyxisCluster& operator=(const PyxisCluster&) = delete;
    int start_rc() const { return m_rc; }
    const std::string& message() const { return m_message; }
    /// The containers the plugin created, as "JOB/NAME".
    std::vector<std::string> containers() const {
        std::vector<std::string> out;
        for (const auto& job : fs::directory_iterator(m_dir.file("pyxis")))
            for (const auto& c : fs::directory_iterator(job.path()))
                out.push_back(job.path().filename().string() + "/" + c.path().filename().string());
        return out;
    }

private:
    test::TempDir m_dir{"perfsweep-pyxis"};
    std::string m_stop;
    int m_rc = -1;
    std::string m_message;
    std::unique_ptr<test::EnvGuard> m_conf;
};

} // namespace

TEST_CASE("jax-toolbox: hourly on Slurm holds one allocation, steps share one pyxis container",
          "[jax-toolbox][slurm][cli]") {
    if (!std::filesystem::exists(PERFSWEEP_PYXIS_STANDIN)) {
        WARN("SKIPPED: the pyxis stand-in was not built (Slurm's headers, libslurm-dev, are "
             "missing)");
        return;
    }
    SKIP_WITHOUT_IMAGES();
    test::JaxToolboxWorld w("jax");
    PyxisCluster cluster(PERFSWEEP_PYXIS_STANDIN, w.file("world/docker/rootfs"));
    if (cluster.start_rc() != 0) {
        // 77 = Slurm cannot run on this machine (not installed, no root); anything else is a bug.
        REQUIRE(cluster.start_rc() == 77);
        WARN("SKIPPED: " << cluster.message());
        return;
    }
    const auto r = test::run_perfsweep(hourly_args(w, w["GOOD_DATE"],
                                                   {"--runtime", "slurm", "--jax-toolbox", "auto",
                                                    "--to-commit", "--state", w.file("state")}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = test::parse_json_object(r.out);
    CHECK(std::string(d["conclusion"].GetString()) == "culprit");
    CHECK(culprit_of(d) == w["CULPRIT"]);
    // One allocation, one named container in it, reused by every build and run (a build's files
    // are still there when the test runs), and the allocation is released at the end.
    const auto containers = cluster.containers();
    REQUIRE(containers.size() == 1);
    CHECK_THAT(containers.front(), Catch::Matches("[0-9]+/perfsweep-[0-9]+"));
    CHECK_THAT(r.err,
               Catch::Contains("holding allocation") && Catch::Contains("released allocation"));
    const auto queue = test::run_command({"squeue", "-h"});
    CHECK(queue.out.empty());
    const auto builds = logs_named(w.file("logs"), "build.log");
    REQUIRE(builds.size() >= 3);
    for (const auto& log : builds)
        CHECK_THAT(log, Catch::Contains("build-jax.sh --bazel-cache /perfsweep/bazel-cache"));

    // An allocation Slurm refuses is asked for once, not once per state: the search ends
    // inconclusive with salloc's own words.
    const auto refused = test::run_perfsweep(hourly_args(
        w, w["GOOD_DATE"],
        {"--runtime", "slurm", "--jax-toolbox", "auto", "--salloc-arg=--partition=nope"},
        "logs-refused"));
    INFO(refused.err);
    CHECK(refused.exit_code == 4);
    std::size_t asked = 0;
    for (auto at = refused.err.find("slurm: salloc --no-shell"); at != std::string::npos;
         at = refused.err.find("slurm: salloc --no-shell", at + 1))
        ++asked;
    CHECK(asked == 1);
    CHECK_THAT(refused.err,
               Catch::Contains("salloc did not grant an allocation") && Catch::Contains("nope"));
}

TEST_CASE("jax-toolbox: salloc is asked for one node, the pool's GPUs and the user's options",
          "[jax-toolbox][slurm]") {
    ports::RunnerConfig c;
    c.runtime = "slurm";
    c.gpus = {"0", "1"};
    c.allocation_time_s = 3601;
    c.salloc_args = {"--partition=gpu"};
    CHECK(adapters::salloc_argv(c, "perfsweep-hourly-1") ==
          std::vector<std::string>{"salloc", "--no-shell", "--job-name=perfsweep-hourly-1", "-N1",
                                   "--gpus=2", "--time=61", "--partition=gpu"});
    CHECK(adapters::granted_job_id("salloc: Pending job allocation 17\nsalloc: job 17 queued and "
                                   "waiting for resources\nsalloc: Granted job allocation 17\n") ==
          "17");
    CHECK(adapters::granted_job_id("salloc: error: invalid partition specified: gpu").empty());
}

TEST_CASE("jax-toolbox: fix commits are cherry-picked onto states a newer toolchain cannot build",
          "[jax-toolbox][cli]") {
    SKIP_WITHOUT_IMAGES();
    test::JaxToolboxWorld w("jax");
    // In the newer nightly every XLA state of the window predates the toolchain fix: nothing
    // builds and the search cannot decide.
    const auto bare =
        test::run_perfsweep(hourly_args(w, w["NEWER_DATE"], {"--jax-toolbox", "auto"}));
    INFO(bare.err);
    CHECK(bare.exit_code == 4);
    CHECK(std::string(test::parse_json_object(bare.out)["conclusion"].GetString()) ==
          "inconclusive");
    bool toolchain = false;
    for (const auto& log : logs_named(w.file("logs"), "build.log"))
        toolchain = toolchain ||
                    log.find("does not compile with the image's toolchain 2") != std::string::npos;
    CHECK(toolchain);

    // With the fix (named by an abbreviated SHA, resolved in the host clone) picked onto every
    // state that lacks it, the culprit is found; each state keeps an output directory.
    const auto r = test::run_perfsweep(
        hourly_args(w, w["NEWER_DATE"],
                    {"--jax-toolbox", "auto", "--cherry-pick", "xla:" + w["FIX"].substr(0, 10),
                     "--to-commit", "--outputs", w.file("outputs")},
                    "logs-fixed"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = test::parse_json_object(r.out);
    CHECK(std::string(d["conclusion"].GetString()) == "culprit");
    CHECK(culprit_of(d) == w["CULPRIT"]);
    for (const auto& log : logs_named(w.file("logs-fixed"), "build.log"))
        CHECK_THAT(log, Catch::Contains("xla: fix " + w["FIX"] + " applied"));
    // last-good and first-bad point at the final pair's directories, which hold what the
    // benchmark wrote there (the stand-in writes one file per run).
    const auto first_bad = fs::read_symlink(w.file("outputs/first-bad")).string();
    CHECK_THAT(first_bad, Catch::Contains("_xla-" + w["CULPRIT"].substr(0, 10)));
    const auto last_good = fs::read_symlink(w.file("outputs/last-good")).string();
    CHECK_THAT(last_good, !Catch::Contains(w["CULPRIT"].substr(0, 10)));
    for (const auto* link : {"outputs/first-bad", "outputs/last-good"}) {
        INFO(link);
        REQUIRE(fs::exists(w.file(link) + "/dump-1.txt"));
        CHECK_THAT(test::read_file(w.file(link) + "/dump-1.txt"), Catch::Contains("toolchain=2"));
    }
}
