#!/usr/bin/env python3
"""The new user's nightly job, end to end (issue: "from zero to a working nightly job").

Takes the quick-start workflow from README.md as a user copies it and runs its job night after
night with tests/e2e/workflow_runner.py: a simulated self-hosted runner (GITHUB_* variables, a
`schedule` event payload, RUNNER_TEMP fresh each night, RUNNER_TOOL_CACHE kept), the action from
this checkout (`uses: your-org/perfsweep@v1` resolves here; its binary comes from the actions/cache
stand-in, seeded with this build's perfsweep: building it is check_action_wrapper's part), the
stand-in JAX-Toolbox world (tests/support/jax_toolbox: nightlies run by tests/support/fake_docker
with a strict build-jax.sh and a planted XLA culprit), JAX and XLA cloned by the workflow's own
step (git's url.insteadOf points github.com at the world's repos), the history in a file:// git
repository standing in for the user's repository, and the loopback GitHub
(tests/support/fake_github, every request validated against GitHub's OpenAPI description).

Nights (perfsweep's clock is set per night with the test hook PERFSWEEP_TEST_NOW):
  five healthy nights      -> exit 0, nothing posted on GitHub
  the first bad nightly    -> one bad point, measured again in the same job: it reproduces, so
                              one issue, with the good->bad window and the culprit commit,
                              found by hourly rebuilds through the image's build-jax.sh
  the second bad nightly   -> the same issue is updated, no second one
Usage: test_nightly_quickstart.py --perfsweep BIN [--root SRC]; exit 77 = skipped (printed why).
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import workflow_runner as wr  # noqa: E402
from e2e_support import SKIP, FakeGitHub, check, clean_up, root_and_binary, verdict  # noqa: E402


def skip(why):
    print("SKIPPED:", why)
    sys.exit(SKIP)


def quickstart_workflow(readme):
    """The first ```yaml block under README's "Quick start" heading."""
    m = re.search(r"^## Quick start[^\n]*\n(.*?)^## ", readme, re.S | re.M)
    if not m:
        raise SystemExit("README.md: no '## Quick start' section")
    y = re.search(r"^```yaml\n(.*?)^```", m.group(1), re.S | re.M)
    if not y:
        raise SystemExit("README.md: the quick start holds no ```yaml block")
    return y.group(1)


def the_action_ref(workflow):
    refs = set()
    for job in workflow["jobs"].values():
        for step in job.get("steps", []):
            u = step.get("uses", "")
            if "/perfsweep@" in u:
                refs.add(u)
    if len(refs) != 1:
        raise SystemExit(f"quick start: expected one perfsweep action reference, got {refs}")
    return refs.pop()


def epoch(date, hhmm="07:30"):
    d = datetime.datetime.strptime(date + " " + hhmm, "%Y-%m-%d %H:%M").replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp())


def day(date, delta):
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=delta)).isoformat()


def add_nightly(docker_state, template, from_date, date):
    """Publish one more nightly: the image of `from_date`, tagged with `date`."""
    key = lambda d: template.replace("{date}", d).replace("/", "_").replace(":", "_")  # noqa: E731
    src, dst = os.path.join(docker_state, "rootfs", key(from_date)), os.path.join(docker_state, "rootfs", key(date))
    shutil.copytree(src, dst, symlinks=True)
    with open(os.path.join(docker_state, "images"), "a") as fh:
        fh.write(template.replace("{date}", date) + "\n")


def main(argv):
    root, perfsweep = root_and_binary(argv)
    world_script = os.path.join(root, "tests/support/jax_toolbox/world.sh")
    if not os.path.exists(world_script):
        skip("the stand-in JAX-Toolbox world (tests/support/jax_toolbox) is not in this tree")
    if os.geteuid() != 0:
        skip("the stand-in images need root (chroot and bind mounts in a mount namespace)")
    if not shutil.which("node"):
        skip("node is not installed (the loopback GitHub)")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        skip("mount namespaces are not available")

    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        text = quickstart_workflow(fh.read())
    with open(os.path.join(root, "examples/workflows/nightly.yml"), encoding="utf-8") as fh:
        check(fh.read() == text, "README's quick start differs from examples/workflows/nightly.yml")
    workflow = wr.check_workflows.plain(wr.check_workflows.load(text))
    check("schedule" in workflow.get("on", {}), "the quick start runs on a schedule")
    ref = the_action_ref(workflow)

    t = tempfile.mkdtemp(prefix="perfsweep-newuser-")
    gh = None
    try:
        # ---- the world: upstream JAX/XLA, the nightlies, a culprit in XLA (make-world.sh's, laid
        # out once per build directory, shared with test_jax_toolbox, and copied here)
        world = os.path.join(t, "world")
        worlds = os.path.join(os.path.dirname(perfsweep), "jax-toolbox-worlds")
        subprocess.run(["bash", world_script, worlds, world, "jax"], check=True, capture_output=True)
        env_world = dict(line.split("=", 1) for line in open(os.path.join(world, "world.env")).read().split("\n") if "=" in line)
        template, good, bad, newer = (env_world[k] for k in ("IMAGE_TEMPLATE", "GOOD_DATE", "BAD_DATE", "NEWER_DATE"))
        docker_state = os.path.join(world, "docker")
        for k in range(4, 0, -1):                 # four earlier healthy nightlies
            add_nightly(docker_state, template, good, day(good, -k))
        healthy = [day(good, -k) for k in range(4, 0, -1)] + [good]
        regression = [bad, newer]

        # ---- the user's repository: their benchmark script, and the history's remote
        user_repo = os.path.join(t, "user-repo")
        os.makedirs(os.path.join(user_repo, "bench"))
        with open(os.path.join(user_repo, "bench", "run.sh"), "w") as fh:
            # The user's benchmark: the stand-in image's, with a real benchmark's run-to-run noise
            # (+-0.15 %; the stand-in alone prints identical values, which detect cannot split).
            fh.write("#!/bin/sh\nr=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')\n"
                     "standin-bench | awk -v r=\"$r\" '/^MLUPS:/ { printf \"MLUPS: %.3f\\n\", "
                     "$2 * (1 + 0.003 * (r / 65535 - 0.5)); next } { print }'\n")
        server = os.path.join(t, "server")
        remote = os.path.join(server, "acme", "lbm.git")
        subprocess.run(["git", "init", "-q", "--bare", remote], check=True)

        # ---- the runner
        gh = FakeGitHub(root)
        bin_dir = os.path.join(t, "bin")
        os.makedirs(bin_dir)
        os.symlink(os.path.join(root, "tests/support/fake_docker"), os.path.join(bin_dir, "docker"))
        tool_cache = os.path.join(t, "tool-cache")
        cache_store = os.path.join(t, "actions-cache")
        os.makedirs(tool_cache)
        os.makedirs(cache_store)
        event = os.path.join(t, "event.json")
        with open(event, "w") as fh:
            json.dump({"schedule": workflow["on"]["schedule"][0]["cron"]}, fh)
        base = {
            "PATH": bin_dir + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(t, "home"), "LANG": "C.UTF-8",
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule",
            "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "acme/lbm",
            "GITHUB_SERVER_URL": "file://" + server, "GITHUB_API_URL": gh.url,
            "RUNNER_TOOL_CACHE": tool_cache, "RUNNER_OS": "Linux",
            "FAKE_DOCKER_STATE": docker_state, "FAKE_DOCKER_LOG": os.path.join(t, "docker-calls.jsonl"),
            "PERFSWEEP_GITHUB_BACKOFF_S": "0.05",
            # github.com points at the world's repos (git's own URL rewriting)
            "GIT_CONFIG_COUNT": "2",
            "GIT_CONFIG_KEY_0": f"url.{world}/upstream/jax.insteadOf",
            "GIT_CONFIG_VALUE_0": "https://github.com/jax-ml/jax.git",
            "GIT_CONFIG_KEY_1": f"url.{world}/upstream/xla.insteadOf",
            "GIT_CONFIG_VALUE_1": "https://github.com/openxla/xla.git",
        }
        os.makedirs(base["HOME"])

        # The binary in the actions/cache stand-in under the key the action computes.
        out = os.path.join(t, "key-output")
        subprocess.run(["bash", os.path.join(root, "action/cache-key.sh")], check=True, capture_output=True,
                       env={**os.environ, "PERFSWEEP_ACTION_PATH": root, "GITHUB_OUTPUT": out})
        key = wr.read_kv_file(out)["key"]
        entry = os.path.join(cache_store, re.sub(r"[^A-Za-z0-9._-]", "_", key))
        os.makedirs(entry)
        shutil.copy2(perfsweep, os.path.join(entry, "perfsweep"))

        def night(date, n):
            ws = os.path.join(t, f"night-{n}", "workspace")
            temp = os.path.join(t, f"night-{n}", "temp")
            os.makedirs(ws)
            os.makedirs(temp)
            env = dict(base, GITHUB_WORKSPACE=ws, RUNNER_TEMP=temp, PERFSWEEP_TEST_NOW=str(epoch(date)))
            github = {"event_name": "schedule", "repository": "acme/lbm", "server_url": base["GITHUB_SERVER_URL"],
                      "api_url": gh.url, "workspace": ws, "token": "ghs_actions_token",
                      "run_id": str(1000 + n), "event": {"schedule": workflow["on"]["schedule"][0]["cron"]}}
            runner = {"temp": temp, "tool_cache": tool_cache, "os": "Linux"}
            log = []
            job = wr.Job(github, runner, env, lambda w: shutil.copytree(user_repo, ws, dirs_exist_ok=True),
                         cache_store, log=log.append, actions={ref: root})
            started = time.time()
            status, steps = job.run(workflow, next(iter(workflow["jobs"])))
            print(f"night {n} ({date}): {status} in {time.time() - started:.1f} s", flush=True)
            if status != "success":
                print("\n".join(log)[-6000:])
            return status, steps, "\n".join(log)

        n = 0
        for date in healthy:
            n += 1
            status, steps, log = night(date, n)
            check(status == "success", f"healthy night {date}: the job failed")
            check(steps["perfsweep"]["outputs"].get("verdict") in ("no_regression", "inconclusive"),
                  f"healthy night {date}: verdict {steps['perfsweep']['outputs'].get('verdict')}")
            check(gh.writes() == [], f"healthy night {date}: something was posted: {gh.writes()}")
        check("perfsweep: cached" in log, "the action built perfsweep although the cache held it")

        # The first bad night is one new point: the job measures that nightly again and, as it
        # reproduces, narrows it to the culprit in the same run.
        n += 1
        status, steps, log = night(regression[0], n)
        outputs = steps["perfsweep"]["outputs"]
        check(status == "success", "regression night: the job failed (fail-on-alert is off)")
        check(outputs.get("verdict") == "regression", f"regression night: verdict {outputs.get('verdict')}")
        check(outputs.get("last-good") == good and outputs.get("first-bad") == bad,
              f"regression night: window {outputs.get('last-good')}..{outputs.get('first-bad')}, expected {good}..{bad}")
        check(outputs.get("culprit") == "xla@" + env_world["CULPRIT"],
              f"regression night: culprit {outputs.get('culprit')}, expected xla@{env_world['CULPRIT']}")
        check(outputs.get("issue-action") == "issue-created", f"issue-action {outputs.get('issue-action')}")
        issues = gh.issues("acme/lbm")
        if check(len(issues) == 1, f"regression night: {len(issues)} issues"):
            i = issues[0]
            check(i["title"] == "perfsweep: MLUPS regression", f"issue title {i['title']!r}")
            check(good in i["body"] and bad in i["body"], "the issue does not name the good and bad nightlies")
            check(env_world["CULPRIT"] in i["body"], "the issue does not name the culprit commit")
            check(i["state"] == "open" and i.get("login") == "github-actions[bot]", f"issue {i['state']} {i.get('login')}")
        # The hourly rebuilds went through the image's build-jax.sh with its real option set.
        calls = [json.loads(x) for x in open(base["FAKE_DOCKER_LOG"]).read().splitlines() if x] \
            if os.path.exists(base["FAKE_DOCKER_LOG"]) else []
        builds = [c for c in calls if len(c) > 1 and c[1] == "exec" and any("build-jax.sh" in a for a in c)]
        check(len(builds) >= 3, f"{len(builds)} build-jax.sh calls in the kept container")

        n += 1
        status, steps, log = night(regression[1], n)
        outputs = steps["perfsweep"]["outputs"]
        check(status == "success", "next regression night: the job failed")
        check(outputs.get("issue-action") in ("issue-updated", "unchanged"),
              f"next regression night: issue-action {outputs.get('issue-action')}")
        issues = gh.issues("acme/lbm")
        check(len(issues) == 1, f"next regression night: {len(issues)} issues (one is updated, none added)")
        posts = [r for r in gh.writes() if r["method"] == "POST" and r["path"].endswith("/issues")]
        check(len(posts) == 1, f"{len(posts)} issues created over all nights")
        invalid = [r for r in gh.control("requests") if r.get("invalid")]
        check(invalid == [], f"requests GitHub would refuse: {invalid}")

        # The history: one point per night, in the user's repository.
        log = subprocess.run(["git", "-C", remote, "log", "--oneline", "perfsweep-data"],
                             capture_output=True, text=True)
        check(log.returncode == 0 and len(log.stdout.splitlines()) >= len(healthy) + len(regression),
              f"history branch: {log.stdout!r} {log.stderr!r}")
    finally:
        if gh:
            gh.stop()
        clean_up(t)
    return verdict("test_nightly_quickstart")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
