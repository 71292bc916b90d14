#!/usr/bin/env python3
"""The everyday benchmark job through the action, end to end (issue 25).

1. The PR example (examples/workflows/pr.yml) as a user copies it, run by tests/e2e/workflow_runner.py
   on a simulated self-hosted runner against a user repository whose PR makes the benchmark 6 %
   slower: the job fails (a red check) and one sticky PR comment holds the table; a later push that
   fixes it passes and updates the same comment (the loopback GitHub, tests/support/fake_github).
2. Loud failures through action/run.sh with the real binary: a mistyped history, a benchmark output
   without the metric, a series that does not exist, a run without a value each exit non-zero with
   an error naming the input (a red step); the first night's empty history passes, said as such;
   every mode writes a job summary.
3. A binary without a build: `uses: OWNER/perfsweep@TAG` downloads the release binary of its ref
   from a loopback stand-in of GitHub's release endpoints (the real asset URL, a 302 to the storage
   host, application/octet-stream), checks its SHA-256 and uses it; a wrong sum fails the step; a
   ref without a release falls back to the (here: cached) build. Prints the time from `uses:` to a
   ready binary (goal < 15 s).
Usage: test_everyday_action.py --perfsweep BIN [--root SRC]; exit 77 = skipped (printed why).
"""

import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import workflow_runner as wr  # noqa: E402
from e2e_support import SKIP, FakeGitHub, check, clean_up, root_and_binary, verdict  # noqa: E402


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@example.com",
               GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@example.com")
    return subprocess.run(["git", "-C", cwd, *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


BENCH = """#!/bin/sh
# stand-in for examples/jax/test.sh: MLUPS with 0.3 % noise around LEVEL
r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
awk -v r="$r" -v level="$(cat "$(dirname "$0")/level")" 'BEGIN { printf "MLUPS: %.3f\\n", level * (1 + 0.006 * (r / 65535 - 0.5)) }'
"""


def seeded_cache(root, perfsweep, cache_store):
    """The actions/cache stand-in (the folder `cache_store`, created here) holding this build's
    binary under the key the action computes; returns `cache_store`."""
    os.makedirs(cache_store)
    out = os.path.join(cache_store, "key-output")
    subprocess.run(["bash", os.path.join(root, "action/cache-key.sh")], check=True, capture_output=True,
                   env={**os.environ, "PERFSWEEP_ACTION_PATH": root, "GITHUB_OUTPUT": out})
    key = wr.read_kv_file(out)["key"]
    os.remove(out)
    entry = os.path.join(cache_store, re.sub(r"[^A-Za-z0-9._-]", "_", key))
    os.makedirs(entry, exist_ok=True)
    shutil.copy2(perfsweep, os.path.join(entry, "perfsweep"))
    return cache_store


def runner_dirs(t, name):
    """(GITHUB_WORKSPACE, RUNNER_TEMP) of the job `name` under `t`: the temp folder is created, the
    workspace is not (the job's checkout makes it)."""
    temp = os.path.join(t, name, "temp")
    os.makedirs(temp)
    return os.path.join(t, name, "ws"), temp


def pr_example(root, perfsweep, t):
    with open(os.path.join(root, "examples/workflows/pr.yml"), encoding="utf-8") as fh:
        workflow = wr.check_workflows.plain(wr.check_workflows.load(fh.read()))
    refs = {s["uses"] for j in workflow["jobs"].values() for s in j["steps"] if "/perfsweep@" in s.get("uses", "")}
    check(len(refs) == 1, f"pr.yml: one perfsweep action reference, got {refs}")
    ref = refs.pop()
    repo = os.path.join(t, "user-repo")
    os.makedirs(os.path.join(repo, "examples/jax"))
    with open(os.path.join(repo, "examples/jax/test.sh"), "w") as fh:
        fh.write(BENCH)
    with open(os.path.join(repo, "examples/jax/level"), "w") as fh:
        fh.write("5600\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    base_sha = git(repo, "rev-parse", "HEAD")
    gh = FakeGitHub(root)
    cache_store = seeded_cache(root, perfsweep, os.path.join(t, "actions-cache"))
    try:
        def push(level, n):
            with open(os.path.join(repo, "examples/jax/level"), "w") as fh:
                fh.write(f"{level}\n")
            git(repo, "commit", "-qam", f"PR change {n}")
            ws, temp = runner_dirs(t, f"pr-{n}")
            event_path = os.path.join(t, f"event-{n}.json")
            event = {"number": 7, "pull_request": {"number": 7, "base": {"sha": base_sha},
                                                  "head": {"repo": {"full_name": "acme/lbm"}}}}
            with open(event_path, "w") as fh:
                json.dump(event, fh)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": t, "LANG": "C.UTF-8",
                   "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
                   "GITHUB_EVENT_PATH": event_path, "GITHUB_REPOSITORY": "acme/lbm",
                   "GITHUB_API_URL": gh.url, "GITHUB_SERVER_URL": "https://github.example",
                   "GITHUB_WORKSPACE": ws, "RUNNER_TEMP": temp, "PERFSWEEP_GITHUB_BACKOFF_S": "0.05"}
            github = {"event_name": "pull_request", "repository": "acme/lbm", "workspace": ws,
                      "token": "ghs_actions_token", "event": event, "server_url": env["GITHUB_SERVER_URL"]}
            log = []
            job = wr.Job(github, {"temp": temp, "os": "Linux"}, env,
                         lambda w: shutil.copytree(repo, ws, symlinks=True), cache_store,
                         log=log.append, actions={ref: root})
            status, steps = job.run(workflow, "compare")
            return status, steps, "\n".join(log), job

        status, steps, log, job = push(5264, 1)  # -6 %
        out = next(s for s in steps.values() if "verdict" in s["outputs"])["outputs"]
        check(status == "failure", f"a PR 6 % slower: the job {status} (expected a red check)\n{log[-3000:]}")
        check(out.get("verdict") == "regression", f"verdict {out.get('verdict')}")
        check(out.get("exit-code") == "1", f"exit-code {out.get('exit-code')}")
        print(f"pr.yml, -6 %: {status}, {out.get('pairs')} pairs, {out.get('runs')} runs", flush=True)
        check(any("Regression" in s for s in job.summary), "no job summary with the table")
        issue = gh.control("state")["issues"].get("acme/lbm#7", {})
        comments = issue.get("comments", [])
        check(len(comments) == 1 and "Regression" in comments[0]["body"] and "MLUPS" in comments[0]["body"],
              f"the PR comment: {comments}")
        status, steps, log, job = push(5600, 2)  # fixed
        out = next(s for s in steps.values() if "verdict" in s["outputs"])["outputs"]
        check(status == "success", f"the fixed PR: the job {status}\n{log[-3000:]}")
        check(out.get("verdict") == "same", f"fixed PR verdict {out.get('verdict')}")
        comments = gh.control("state")["issues"].get("acme/lbm#7", {}).get("comments", [])
        check(len(comments) == 1 and "No change" in comments[0]["body"], f"sticky comment updated: {comments}")
        invalid = [r for r in gh.control("requests") if r.get("invalid")]
        check(invalid == [], f"requests GitHub would refuse: {invalid}")
    finally:
        gh.stop()


def run_sh(root, perfsweep, t, inputs, name):
    d = os.path.join(t, "action-" + name)
    os.makedirs(d, exist_ok=True)
    out, summary = os.path.join(d, "output"), os.path.join(d, "summary")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "PERFSWEEP_BIN": perfsweep,
           "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": summary}
    for k, v in inputs.items():
        env["PERFSWEEP_IN_" + k.upper().replace("-", "_")] = v
    p = subprocess.run(["bash", os.path.join(root, "action/run.sh")], env=env, cwd=d,
                       capture_output=True, text=True, timeout=120)
    text = p.stdout + p.stderr
    return p.returncode, text, wr.read_kv_file(out), open(summary).read() if os.path.exists(summary) else ""


def loud_failures(root, perfsweep, t):
    hist = os.path.join(t, "noir.jsonl")
    subprocess.run([perfsweep, "import", "--history", hist, os.path.join(root, "bench/data/noir.data.js")],
                   check=True, capture_output=True)
    rc, text, out, summary = run_sh(root, perfsweep, t, {"mode": "detect", "history": hist}, "all")
    check(rc in (0, 1) and out.get("series") == "26", f"detect over 26 series: rc {rc}, outputs {out}")
    check("| series | points | latest level | change | verdict |" in summary, "detect wrote no summary table")
    cases = [
        ("mistyped history", {"mode": "detect", "history": os.path.join(t, "histroy.jsonl")},
         [2], "histroy.jsonl' does not exist"),
        ("series that does not exist", {"mode": "detect", "history": hist, "metric": "MLUPZ"},
         [2], "matches --metric 'MLUPZ'"),
        ("output without the metric", {"mode": "record", "history": os.path.join(t, "r.jsonl"),
                                       "metric": "MLUPS", "benchmark-output": os.path.join(t, "crash.out")},
         [4], "no value of MLUPS"),
        ("run without a value", {"mode": "run", "history": os.path.join(t, "run.jsonl"), "metric": "MLUPS",
                                 "test": "sh -c 'echo Segmentation fault'"},
         [4], "no value of MLUPS"),
    ]
    with open(os.path.join(t, "crash.out"), "w") as fh:
        fh.write("Segmentation fault (core dumped)\n")
    for what, inputs, codes, message in cases:
        rc, text, out, summary = run_sh(root, perfsweep, t, inputs, what.replace(" ", "-"))
        check(rc in codes, f"{what}: exit {rc}, expected {codes} (a red step)\n{text}")
        check(message in text, f"{what}: the error does not say {message!r}:\n{text}")
        check("::error" in text, f"{what}: no ::error annotation (red)\n{text}")
        check("too little data" not in text, f"{what}: explained as 'too little data'\n{text}")
    empty = os.path.join(t, "empty.jsonl")
    open(empty, "w").close()
    rc, text, out, summary = run_sh(root, perfsweep, t, {"mode": "detect", "history": empty}, "first-night")
    check(rc == 0 and "first night" in text, f"the first night's empty history: rc {rc}\n{text}")
    check("first night" in summary, "the first night wrote no summary")
    rc, text, out, summary = run_sh(root, perfsweep, t, {"mode": "record", "history": os.path.join(t, "ok.jsonl"),
                                                        "metric": "MLUPS", "benchmark-output": os.path.join(t, "ok.out")}, "record-ok")
    check(rc == 2, f"record of a missing output file: rc {rc}")
    with open(os.path.join(t, "ok.out"), "w") as fh:
        fh.write("MLUPS: 5600.5\nGFLOPS: 12.5\n")
    rc, text, out, summary = run_sh(root, perfsweep, t, {"mode": "record", "history": os.path.join(t, "ok.jsonl"),
                                                        "metric": "MLUPS\nGFLOPS", "benchmark-output": os.path.join(t, "ok.out")}, "record-two")
    check(rc == 0 and out.get("points") == "2" and "GFLOPS" in summary, f"record of two metrics: rc {rc} {out}\n{text}")


class ReleaseServer:
    """GitHub's release download endpoints, strictly: GET /OWNER/REPO/releases/download/TAG/NAME
    answers 302 to the storage host's signed URL (here the same loopback server), which serves the
    bytes as application/octet-stream; anything else is 404 Not Found."""

    def __init__(self, assets):
        self.assets = assets  # "OWNER/REPO/TAG/NAME" -> bytes
        self.requests = []
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.requests.append(self.path)
                m = re.fullmatch(r"/([^/]+)/([^/]+)/releases/download/([^/]+)/([^/?]+)", self.path)
                if m and "/".join(m.groups()) in outer.assets:
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{outer.port}/github-production-release-asset-2e65be/"
                                     f"{abs(hash(self.path))}?X-Amz-Algorithm=AWS4-HMAC-SHA256&response-content-disposition="
                                     f"attachment%3B%20filename%3D{m.group(4)}&response-content-type=application%2Foctet-stream"
                                     f"&key={'/'.join(m.groups())}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                m = re.fullmatch(r"/github-production-release-asset-2e65be/\d+\?.*&key=([^&]+)", self.path)
                if m and m.group(1) in outer.assets:
                    body = outer.assets[m.group(1)]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                body = b"Not Found"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


def release_binary(root, perfsweep, t):
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(os.uname().machine)
    if not arch:
        print("release binary: skipped on", os.uname().machine)
        return
    data = open(perfsweep, "rb").read()
    name = f"perfsweep-linux-{arch}"
    good = {f"acme/perfsweep/v9.1.0/{name}": data,
            f"acme/perfsweep/v9.1.0/{name}.sha256": f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode(),
            f"acme/perfsweep/v9.2.0/{name}": data + b"tampered",
            f"acme/perfsweep/v9.2.0/{name}.sha256": f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode()}
    srv = ReleaseServer(good)
    cache_store = seeded_cache(root, perfsweep, os.path.join(t, "release-cache"))
    try:
        def job(tag, n):
            ref = f"acme/perfsweep@{tag}"
            workflow = {"name": "w", "on": {"push": {}}, "permissions": {}, "jobs": {"j": {
                "runs-on": "x", "steps": [{"id": "ps", "uses": ref, "with": {"mode": "setup"}}]}}}
            ws, temp = runner_dirs(t, f"rel-{n}")
            os.makedirs(ws)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": t, "GITHUB_ACTIONS": "true",
                   "GITHUB_SERVER_URL": f"http://127.0.0.1:{srv.port}", "RUNNER_TEMP": temp}
            log = []
            j = wr.Job({"event_name": "push", "repository": "acme/lbm", "workspace": ws, "token": "x",
                        "server_url": env["GITHUB_SERVER_URL"]}, {"temp": temp, "os": "Linux"}, env,
                       lambda w: None, cache_store, log=(print if os.environ.get("E2E_VERBOSE") else log.append), actions={ref: root})
            started = time.time()
            status, steps = j.run(workflow, "j")
            return status, steps["ps"]["outputs"].get("perfsweep-path", ""), time.time() - started, "\n".join(log)

        status, path, seconds, log = job("v9.1.0", 1)
        check(status == "success" and path.endswith("perfsweep-release/perfsweep"),
              f"release v9.1.0: {status} {path}\n{log[-2000:]}")
        check("release binary" in log and "building" not in log, f"release v9.1.0 was not used:\n{log[-2000:]}")
        print(f"from uses: to a ready binary with a release: {seconds:.2f} s (goal < 15 s)", flush=True)
        check(seconds < 15, f"{seconds:.1f} s from uses: to a ready binary")
        status, path, seconds, log = job("v9.2.0", 2)
        check(status == "failure" and "refusing to run it" in log, f"a tampered binary: {status}\n{log[-2000:]}")
        status, path, seconds, log = job("v9.3.0", 3)  # no release: the (cached) build
        check(status == "success" and path.endswith("perfsweep-bin/perfsweep") and "no release binary" in log,
              f"no release: {status} {path}\n{log[-2000:]}")
        check(any(p.startswith("/acme/perfsweep/releases/download/v9.1.0/") for p in srv.requests),
              f"requests: {srv.requests}")
    finally:
        srv.stop()


def main(argv):
    root, perfsweep = root_and_binary(argv)
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    if not shutil.which("node") and only in ("", "pr"):
        print("SKIPPED: node is not installed (the loopback GitHub)")
        return SKIP
    t = tempfile.mkdtemp(prefix="perfsweep-everyday-")
    try:
        for name, part in (("loud", loud_failures), ("release", release_binary), ("pr", pr_example)):
            if only in ("", name):
                started = time.time()
                part(root, perfsweep, t)
                print(f"{name}: {time.time() - started:.1f} s", flush=True)
    finally:
        clean_up(t)
    return verdict("test_everyday_action")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
