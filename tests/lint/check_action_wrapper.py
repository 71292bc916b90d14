#!/usr/bin/env python3
"""Runs the action's scripts (action/run.sh, action/build.sh, action/cache-key.sh) for real with a
fake perfsweep that records its argv (NUL-separated) and environment, and checks that hostile input
values arrive as literal argv words and execute nothing. python3 stdlib only.

Usage: check_action_wrapper.py [--root DIR] [--perfsweep PATH]
With --perfsweep (ctest passes the built binary) and a `run` subcommand in it, the wrapper also runs
the real `perfsweep run --runtime none` on a hostile template and label.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FAKE = """#!/bin/sh
# fake perfsweep: --version works; otherwise record argv and environment, exit with $FAKE_RC_FILE's code
if [ "$1" = "--version" ]; then echo "perfsweep 0.0-fake"; exit 0; fi
out=%(dir)s
for a in "$@"; do printf '%%s\\0' "$a"; done > "$out/argv"
for a in "$@"; do printf '%%s\\0' "$a"; done >> "$out/calls"; printf '\\n' >> "$out/calls"
env -0 > "$out/env"
if [ "$1" = dashboard ]; then exit "$(cat "$out/dashboard-rc" 2>/dev/null || echo 0)"; fi
exit "$(cat "$out/rc" 2>/dev/null || echo 0)"
"""

HOSTILE = [
    "$(touch {canary})",
    "`touch {canary}`",
    "; touch {canary} ;",
    "a'b\"c",
    "line1\nline2\n::set-output name=x::y",
    "  spaced  value  ",
    "*",
    "--help",
    "-rf",
    "x=y=z",
    "$HOME ${{ github.token }} %0A",
    "x | touch {canary} && touch {canary}",
    "c1\r::add-mask::INJ",
    "::error::INJ ##[set-output name=forged;]1",
    "@victim ```inj",
    "bidi \u202eINJ\u2066",
    "A" * 100 * 1024 + "$(touch {canary})",
]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


class Case:
    def __init__(self, tmp):
        self.tmp = tmp
        self.fake = os.path.join(tmp, "perfsweep")
        with open(self.fake, "w") as fh:
            fh.write(FAKE % {"dir": tmp})
        os.chmod(self.fake, 0o755)
        self.canary = os.path.join(tmp, "canary")

    def run(self, inputs, rc=0, script="run.sh", extra_env=None):
        for f in ("argv", "env", "output", "calls"):
            p = os.path.join(self.tmp, f)
            if os.path.exists(p):
                os.remove(p)
        with open(os.path.join(self.tmp, "rc"), "w") as fh:
            fh.write(str(rc))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.tmp,
               "PERFSWEEP_BIN": self.fake, "GITHUB_OUTPUT": os.path.join(self.tmp, "output"),
               "GITHUB_TOKEN": "ghs_secret_token_value"}
        for k, v in inputs.items():
            env["PERFSWEEP_IN_" + k.upper().replace("-", "_")] = v
        env.update(extra_env or {})
        p = subprocess.run(["bash", os.path.join(ROOT, "action", script)], env=env,
                           capture_output=True, text=True, cwd=self.tmp, timeout=60)
        return p

    def calls(self):
        """argv of every perfsweep call of the last run, in order."""
        p = os.path.join(self.tmp, "calls")
        if not os.path.exists(p):
            return []
        with open(p, "rb") as fh:
            return [[w.decode() for w in line.split(b"\0")[:-1]] for line in fh.read().split(b"\n")[:-1]]

    def argv(self):
        with open(os.path.join(self.tmp, "argv"), "rb") as fh:
            data = fh.read()
        return [w.decode() for w in data.split(b"\0")[:-1]]

    def env(self):
        with open(os.path.join(self.tmp, "env"), "rb") as fh:
            pairs = [e.decode().split("=", 1) for e in fh.read().split(b"\0") if e]
        return dict(p for p in pairs if len(p) == 2)

    def output(self):
        p = os.path.join(self.tmp, "output")
        return open(p).read() if os.path.exists(p) else ""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        c = Case(tmp)
        hostile = [h.replace("{canary}", c.canary) for h in HOSTILE]

        # 1. Every hostile value arrives as exactly one literal word, for several inputs at once.
        for i, h in enumerate(hostile):
            p = c.run({"mode": "investigate", "test": h, "image": h, "build": h, "history": h,
                       "metric": h, "from": h, "extra-args": h.replace("\n", " ")})
            check(p.returncode == 0, f"hostile #{i}: rc {p.returncode}, stderr {p.stderr!r}")
            if p.returncode != 0:
                continue
            argv = c.argv()
            # only the first line of a multi-line value is trimmed by extra-args; others verbatim,
            # but metric, one per line (several series), each line trimmed and blank ones skipped
            blanks = " \t\n\v\f\r"
            metrics = ["--metric=" + ln.rstrip("\r").strip(blanks) for ln in h.split("\n")
                       if ln.rstrip("\r").strip(blanks)]
            expected = ["investigate", *metrics, "--history=" + h, "--image=" + h,
                        "--test=" + h, "--build=" + h, "--from=" + h,
                        h.replace("\n", " ").strip()]
            check(argv == expected, f"hostile #{i}: argv {argv!r} != {expected!r}")
            check(not os.path.exists(c.canary), f"hostile #{i}: the canary file was created")

        # 2. repos: one --repo word per non-blank line, trimmed; optional flags only when set.
        p = c.run({"mode": "investigate", "repos": "  jax=/src/jax\n\n  xla=/src/x la  \n",
                   "mounts": "/w s/examples/jax:/bench:ro\n",
                   "alert-threshold": "5%", "fail-on-alert": "true", "comment-on-alert": "true",
                   "state-dir": "/state dir", "gpus": "0,1,2,3", "extra-args": "--any-parent\n--max-time=2h"})
        check(p.returncode == 0, f"repos: rc {p.returncode} {p.stderr!r}")
        check(c.argv() == ["investigate", "--repo=jax=/src/jax", "--repo=xla=/src/x la",
                           "--mount=/w s/examples/jax:/bench:ro", "--gpus=0,1,2,3", "--state=/state dir", "--threshold=5%",
                           "--fail-on-regression", "--comment", "--any-parent", "--max-time=2h"],
              f"repos/threshold argv {c.argv()!r}")
        check("exit-code=0\n" in c.output(), f"exit-code output missing: {c.output()!r}")

        # 2-nightly. The scheduled job's inputs: today's point, the sticky issue's title, labels
        #     and closing; alert-threshold passes as written (perfsweep knows the direction a
        #     ratio like 150% needs).
        p = c.run({"mode": "investigate", "record": "today", "comment-on-alert": "true", "commits-probe": "cat /opt/m f.yaml",
                   "issue-title": "MLUPS fell; see `report`", "issue-labels": "perf\n  nightly gpu \n",
                   "close-issue-on-recovery": "true", "alert-threshold": "150%", "to-commit": "true"})
        check(p.returncode == 0 and c.argv() == ["investigate", "--commits-probe=cat /opt/m f.yaml", "--new-issue=MLUPS fell; see `report`",
                                                 "--issue-label=perf", "--issue-label=nightly gpu", "--record=today",
                                                 "--threshold=150%", "--comment", "--close-on-recovery", "--to-commit"],
              f"nightly argv {c.argv() if p.returncode == 0 else p.stderr!r}")
        for thr in ("1.5x", "0.05", "5%", "200%"):
            p = c.run({"mode": "detect", "alert-threshold": thr})
            check(p.returncode == 0 and c.argv() == ["detect", "--threshold=" + thr], f"threshold {thr}: {p.stderr!r}")
        p = c.run({"mode": "investigate", "timeout": "1h30m"})
        check(p.returncode == 0 and c.argv() == ["investigate", "--timeout=1h30m"],
              f"timeout 1h30m: {p.stderr!r}")
        p = c.run({"mode": "investigate", "close-issue-on-recovery": "false", "record": "2024-02-29"})
        check(p.returncode == 0 and c.argv() == ["investigate", "--record=2024-02-29"],
              f"record date/close false argv {c.argv() if p.returncode == 0 else p.stderr!r}")

        # 2a. check: metric | exit-code becomes --mode (investigate and run only).
        p = c.run({"mode": "investigate", "check": "exit-code", "repeats": "6"})
        check(p.returncode == 0 and c.argv() == ["investigate", "--repeats=6", "--check=exit-code"],
              f"check argv {c.argv() if p.returncode == 0 else p.stderr!r}")

        # 2b. --config is a main-app option (CLI11 2.1 reads config files there only): it comes
        #     before the subcommand word.
        p = c.run({"mode": "investigate", "config": "cfg dir/perfsweep.toml", "metric": "MLUPS"})
        check(p.returncode == 0 and c.argv() == ["--config=cfg dir/perfsweep.toml", "investigate",
                                                 "--metric=MLUPS"], f"config argv {c.argv()!r}")

        # 3. Nothing set -> just the mode word; inputs stay out of perfsweep's environment, the
        #    token is in GITHUB_TOKEN and never on the command line.
        p = c.run({"mode": "demo", "test": ""})
        check(p.returncode == 0 and c.argv() == ["demo"], f"demo argv {p.returncode} {c.argv() if p.returncode == 0 else p.stderr}")
        p = c.run({"mode": "investigate", "metric": "MLUPS"})
        env = c.env()
        check(not [k for k in env if k.startswith("PERFSWEEP_IN_")], "PERFSWEEP_IN_* leaked into perfsweep's environment")
        check(env.get("GITHUB_TOKEN") == "ghs_secret_token_value", "GITHUB_TOKEN not passed through")
        check(all("ghs_secret" not in w for w in c.argv()), "token on the command line")
        check("ghs_secret" not in p.stdout + p.stderr, "token printed")

        # 4. Usage errors: exit 2, message names the input, a hostile value cannot start a
        #    workflow command on a new line; perfsweep is not started.
        for inputs, name in (({"mode": "x\n::add-mask::y"}, "'mode'"),
                             ({"mode": "demo", "image": "img"}, "'image'"),
                             ({"mode": "investigate", "alert-threshold": "$(id)"}, "'alert-threshold'"),
                             ({"mode": "investigate", "gpus": "0;1"}, "'gpus'"),
                             ({"mode": "investigate", "repeats": "-1"}, "'repeats'"),
                             ({"mode": "investigate", "fail-on-alert": "yes"}, "'fail-on-alert'"),
                             ({"mode": "investigate", "check": "exitcode"}, "'check'"),
                             ({"mode": "detect", "check": "exit-code"}, "'check'"),
                             ({"mode": "investigate", "record": "yesterday"}, "'record'"),
                             ({"mode": "investigate", "alert-threshold": "5 %"}, "'alert-threshold'"),
                             ({"mode": "detect", "record": "today"}, "'record'"),
                             ({"mode": "detect", "issue-title": "x"}, "'issue-title'"),
                             ({"mode": "run", "commits-probe": "cat x"}, "'commits-probe'"),
                             ({"mode": "investigate", "to-commit": "yes"}, "'to-commit'"),
                             ({"mode": "investigate", "close-issue-on-recovery": "1"}, "'close-issue-on-recovery'")):
            p = c.run(inputs)
            check(p.returncode == 2, f"{inputs}: rc {p.returncode}, expected 2")
            check(name in p.stderr, f"{inputs}: stderr {p.stderr!r} does not name {name}")
            lines = [ln for ln in p.stderr.splitlines() if ln.startswith("::")]
            check(len(lines) == 1, f"{inputs}: {len(lines)} workflow-command lines: {p.stderr!r}")
            check(not os.path.exists(os.path.join(tmp, "argv")), f"{inputs}: perfsweep ran")

        # 5. Exit codes: detect's regression fails only with fail-on-alert; 4/5 never fail; 2/3 do.
        for inputs, rc, want in (({"mode": "detect"}, 1, 0), ({"mode": "detect", "fail-on-alert": "true"}, 1, 1),
                                 ({"mode": "detect"}, 4, 0), ({"mode": "detect"}, 5, 0),
                                 ({"mode": "investigate"}, 1, 1), ({"mode": "investigate"}, 3, 3),
                                 ({"mode": "run"}, 2, 2)):
            p = c.run(inputs, rc=rc)
            check(p.returncode == want, f"{inputs} perfsweep rc {rc}: step rc {p.returncode}, expected {want}")
            check(f"exit-code={rc}\n" in c.output(), f"{inputs} rc {rc}: output {c.output()!r}")

        # 5a. dashboard: true runs `perfsweep dashboard` after the command (also after a
        #     regression), committed into gh-pages of the history's repository, and gives
        #     investigate that repository's GitHub Pages address for its report; the default
        #     dashboard-branch alone is no input set; bad values name their input.
        gh = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/other", "RUNNER_TEMP": tmp}
        hist = "git+https://github.com/Acme/lbm.git#perfsweep-data"
        p = c.run({"mode": "investigate", "history": hist, "dashboard": "true", "dashboard-branch": "gh-pages",
                   "fail-on-alert": "true"}, rc=1, extra_env=gh)
        site = os.path.join(tmp, "perfsweep-dashboard")
        check(p.returncode == 1 and c.calls() == [
            ["investigate", "--history=" + hist, "--fail-on-regression", "--dashboard-url=https://acme.github.io/lbm/"],
            ["dashboard", "--history=" + hist, "--output-dir=" + site, "--publish=git+https://github.com/Acme/lbm.git#gh-pages"]],
              f"dashboard calls {p.returncode} {c.calls()!r} {p.stderr!r}")
        check(f"dashboard-path={site}\n" in c.output() and "dashboard-url=https://acme.github.io/lbm/\n" in c.output(),
              f"dashboard outputs {c.output()!r}")
        p = c.run({"mode": "detect", "history": "h.jsonl", "dashboard": "true", "dashboard-branch": "perfsweep-data",
                   "dashboard-folder": "perf/dash"}, rc=4, extra_env=gh)
        check(p.returncode == 0 and c.calls() == [
            ["detect", "--history=h.jsonl"],
            ["dashboard", "--history=h.jsonl", "--output-dir=" + site,
             "--publish=git+https://github.com/acme/other.git#perfsweep-data", "--publish-dir=perf/dash"]],
              f"dashboard detect calls {p.returncode} {c.calls()!r} {p.stderr!r}")
        p = c.run({"mode": "record", "history": "git:data", "dashboard": "true", "dashboard-branch": "",
                   "dashboard-url": "https://perf.example.com/x/"}, extra_env=gh)
        check(p.returncode == 0 and c.calls()[1:] == [["dashboard", "--history=git:data", "--output-dir=" + site]],
              f"dashboard artifact calls {c.calls()!r} {p.stderr!r}")
        p = c.run({"mode": "investigate", "history": "git:data", "dashboard": "true"}, rc=3, extra_env=gh)
        check(p.returncode == 3 and len(c.calls()) == 1, f"no dashboard after an infrastructure error: {c.calls()!r}")
        with open(os.path.join(tmp, "dashboard-rc"), "w") as fh:
            fh.write("3")
        p = c.run({"mode": "investigate", "history": "git:data", "dashboard": "true"}, extra_env=gh)
        os.remove(os.path.join(tmp, "dashboard-rc"))
        check(p.returncode == 3 and "::error title=perfsweep dashboard::" in p.stdout, f"a failed dashboard fails the step: {p.returncode}")
        p = c.run({"mode": "demo", "dashboard-branch": "gh-pages", "dashboard": "false"})
        check(p.returncode == 0 and c.argv() == ["demo"], f"default dashboard-branch: {p.returncode} {p.stderr!r}")
        for inputs, name in (({"mode": "investigate", "dashboard": "true"}, "'history'"),
                             ({"mode": "investigate", "history": "h", "dashboard": "yes"}, "'dashboard'"),
                             ({"mode": "investigate", "history": "h", "dashboard": "true", "dashboard-folder": "../x"}, "'dashboard-folder'"),
                             ({"mode": "investigate", "history": "h", "dashboard": "true", "dashboard-branch": "a b"}, "'dashboard-branch'"),
                             ({"mode": "investigate", "history": "h", "dashboard": "true", "dashboard-url": "javascript:x"}, "'dashboard-url'"),
                             ({"mode": "run", "dashboard": "true"}, "'dashboard'")):
            p = c.run(inputs, extra_env=gh)
            check(p.returncode == 2 and name in p.stderr and not c.calls(), f"{inputs}: rc {p.returncode} {p.stderr!r}")

        # 6. build.sh with a prebuilt binary; a path that is not a working binary is refused.
        p = c.run({"perfsweep-path": c.fake}, script="build.sh")
        check(p.returncode == 0 and c.output() == f"path={c.fake}\n", f"build.sh prebuilt: {p.returncode} {c.output()!r} {p.stderr!r}")
        p = c.run({"perfsweep-path": c.fake + "\n::add-mask::x"}, script="build.sh")
        check(p.returncode == 2 and c.output() == "", f"build.sh bad path: {p.returncode} {c.output()!r}")

        # 6a. build.sh without a prebuilt binary, against a stand-in action checkout whose
        #     .ci/install-deps and a `cmake` on PATH record their calls: a cached binary that runs
        #     is used as is (no package installed, nothing built); otherwise packages are installed
        #     only for the build, a Release build is made, and a runner that cannot install
        #     packages gets an error that says so.
        act = os.path.join(tmp, "act")
        os.makedirs(os.path.join(act, ".ci"), exist_ok=True)
        fakebin = os.path.join(tmp, "fakebin")
        os.makedirs(fakebin, exist_ok=True)
        calls = os.path.join(tmp, "calls")
        with open(os.path.join(act, ".ci", "install-deps"), "w") as fh:
            fh.write('#!/bin/sh\necho "install-deps $*" >> %s\nexit "${FAKE_DEPS_RC:-0}"\n' % calls)
        with open(os.path.join(fakebin, "cmake"), "w") as fh:
            # configure records its argv; --build "copies" the fake perfsweep into the build dir
            fh.write('#!/bin/sh\necho "cmake $*" >> %s\nif [ "$1" = --build ]; then cp %s "$2/perfsweep"; fi\n'
                     % (calls, c.fake))
        os.chmod(os.path.join(fakebin, "cmake"), 0o755)
        bin_dir = os.path.join(tmp, "bin")

        def build(extra=None, deps_rc=0):
            if os.path.exists(calls):
                os.remove(calls)
            env = {"PERFSWEEP_ACTION_PATH": act, "PERFSWEEP_BIN_DIR": bin_dir,
                   "PERFSWEEP_BUILD_DIR": os.path.join(tmp, "bdir"), "FAKE_DEPS_RC": str(deps_rc),
                   "PATH": fakebin + ":" + os.environ.get("PATH", "/usr/bin:/bin")}
            env.update(extra or {})
            p = c.run({}, script="build.sh", extra_env=env)
            done = open(calls).read() if os.path.exists(calls) else ""
            return p, done

        os.makedirs(os.path.join(tmp, "bdir"), exist_ok=True)
        p, done = build()
        check(p.returncode == 0 and c.output() == f"path={bin_dir}/perfsweep\n",
              f"build.sh fresh build: {p.returncode} {c.output()!r} {p.stderr!r}")
        if shutil.which("dpkg-query"):
            check("install-deps --build-only" in done, f"build.sh fresh build: packages not checked: {done!r}")
        check("-DCMAKE_BUILD_TYPE=Release" in done and "--target perfsweep" in done,
              f"build.sh fresh build: not a Release build of perfsweep: {done!r}")
        p, done = build()
        check(p.returncode == 0 and done == "" and "cached" in p.stdout,
              f"build.sh cache hit: installed or built something: {done!r} {p.stdout!r} {p.stderr!r}")
        with open(os.path.join(bin_dir, "perfsweep"), "w") as fh:  # a cached binary that cannot run
            fh.write("#!/bin/sh\nexit 127\n")
        p, done = build()
        check(p.returncode == 0 and "--target perfsweep" in done and "does not run" in p.stdout,
              f"build.sh broken cache: not rebuilt: {done!r} {p.stdout!r}")
        if shutil.which("dpkg-query"):
            os.remove(os.path.join(bin_dir, "perfsweep"))
            p, done = build(deps_rc=3)
            check(p.returncode == 3 and "no password-less sudo" in p.stderr and "cmake" not in done,
                  f"build.sh without sudo: {p.returncode} {p.stderr!r} {done!r}")
            p, done = build({"PERFSWEEP_IN_INSTALL_DEPS": "false"}, deps_rc=1)
            check(p.returncode == 3 and "install-deps is false" in p.stderr and
                  "install-deps --build-only --check" in done and "cmake" not in done,
                  f"build.sh install-deps false, packages missing: {p.returncode} {p.stderr!r} {done!r}")
        p, done = build({"PERFSWEEP_IN_INSTALL_DEPS": "maybe"})
        check(p.returncode == 2 and "'install-deps'" in p.stderr, f"build.sh bad install-deps: {p.stderr!r}")

        # 7. cache-key.sh: deterministic, changes with the sources, safe characters only.
        def key(root):
            out = os.path.join(tmp, "output")
            if os.path.exists(out):
                os.remove(out)
            p = c.run({}, script="cache-key.sh", extra_env={"PERFSWEEP_ACTION_PATH": root})
            check(p.returncode == 0, f"cache-key rc {p.returncode} {p.stderr!r}")
            return c.output()
        src = os.path.join(tmp, "src-copy")
        os.makedirs(src)
        for d in ("src", "action"):
            subprocess.run(["cp", "-r", os.path.join(ROOT, d), src], check=True)
        subprocess.run(["cp", os.path.join(ROOT, "CMakeLists.txt"), src], check=True)
        k1, k2 = key(src), key(src)
        check(k1 == k2 and k1.startswith("key=perfsweep-bin-"), f"cache key not deterministic: {k1!r} {k2!r}")
        check(all(ch.isalnum() or ch in "._-=\n" for ch in k1), f"cache key has odd characters: {k1!r}")
        with open(os.path.join(src, "src", "util", "strings.cpp"), "a") as fh:
            fh.write("// changed\n")
        check(key(src) != k1, "cache key did not change with the sources")

        # 8. With the real perfsweep (--perfsweep PATH, from ctest): `run` through the wrapper,
        #    a hostile test template and label; CLI11 reads the --flag=value words literally.
        real = REAL_PERFSWEEP
        probe = subprocess.run([real, "run", "--help"], capture_output=True, text=True) if real else None
        if probe is not None and probe.returncode == 0 and "--runtime" in probe.stdout:
            bench = os.path.join(tmp, "bench.sh")
            with open(bench, "w") as fh:
                fh.write('#!/bin/sh\necho "args: $*"\necho "MLUPS: 577.3"\n')
            label = "-weird label;`touch " + c.canary + "`"
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
                   "PERFSWEEP_BIN": real, "PERFSWEEP_IN_MODE": "run", "PERFSWEEP_IN_RUNTIME": "none",
                   "PERFSWEEP_IN_TEST": f"sh {bench} -x $(touch {c.canary})",
                   "PERFSWEEP_IN_LABEL": label, "PERFSWEEP_IN_REPEATS": "2",
                   "PERFSWEEP_IN_METRIC": "MLUPS", "PERFSWEEP_IN_EXTRA_ARGS": "--json"}
            p = subprocess.run(["bash", os.path.join(ROOT, "action", "run.sh")], env=env, cwd=tmp,
                               capture_output=True, text=True, timeout=120)
            check(p.returncode == 0, f"real run: rc {p.returncode} {p.stderr[-1000:]!r}")
            import json
            try:
                m = json.loads(p.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                m = {}
            check(m.get("status") == "ok" and m.get("values") == [577.3, 577.3] and
                  m.get("label") == label, f"real run: measurement {p.stdout[-1000:]!r}")
            check(not os.path.exists(c.canary), "real run: the canary file was created")
        else:
            print("check_action_wrapper: no perfsweep with a `run` subcommand given; the real-binary "
                  "check is skipped")

        # 9. Every flag run.sh can pass to a mode is one that mode's `--help` lists under that
        #    name (a flag renamed in perfsweep fails here, not in a user's nightly job).
        if real:
            for mode, flag in wrapper_flags():
                # Only the option list: an old name, still accepted, is listed after "Old names".
                # One --help a mode (6 starts of the sanitized binary, not one a flag: 80).
                if mode not in helps:
                    helps[mode] = subprocess.run([real, mode, "--help"], capture_output=True,
                                                 text=True).stdout.split("Old names")[0]
                check(re.search(r"(^|[\s,])" + re.escape(flag) + r"\b(?!-)", helps[mode], re.M),
                      f"run.sh passes {flag} to `perfsweep {mode}`, whose --help does not list it")

    print("check_action_wrapper:", "failed" if failures else "ok", f"({len(failures)} failures)")
    return 1 if failures else 0


REAL_PERFSWEEP = ""
helps = {}


def wrapper_flags():
    """(mode, flag) for every flag action/run.sh can pass: `opt INPUT --flag` and `lines INPUT
    --flag` for each mode that accepts INPUT, and the literal flags it adds (threshold, the
    investigate switches)."""
    with open(os.path.join(ROOT, "action", "run.sh"), encoding="utf-8") as fh:
        text = fh.read()
    block = re.search(r"declare -A accepts=\((.*?)\n\)", text, re.S).group(1)
    accepts = {m: set(v.split()) for m, v in re.findall(r"\[([a-z]+)\]=\"([^\"]*)\"", block)}
    out = set()
    for name, flag in re.findall(r"^(?:opt|lines) ([a-z-]+) (--[a-z-]+)", text, re.M):
        if name == "config":
            continue  # a main-app option, before the subcommand
        out |= {(mode, flag) for mode, names in accepts.items() if name in names}
    out |= {(mode, "--threshold") for mode, names in accepts.items() if "alert-threshold" in names}
    invest = re.search(r'if \[ "\$mode" = investigate \]; then(.*?)\nfi', text, re.S).group(1)
    out |= {("investigate", f) for f in re.findall(r'args\+=\("(--[a-z-]+)"\)', invest)}
    return sorted(out)

if __name__ == "__main__":
    if "--root" in sys.argv:
        ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
    if "--perfsweep" in sys.argv:
        REAL_PERFSWEEP = os.path.abspath(sys.argv[sys.argv.index("--perfsweep") + 1])
    sys.exit(main())
