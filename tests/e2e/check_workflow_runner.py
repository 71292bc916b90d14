#!/usr/bin/env python3
"""Self-test of tests/e2e/workflow_runner.py: the expression language, GitHub's context
availability rule, runner files, step conditions and a local composite action with the cache
stand-in behave as on GitHub (each check is a case the real runner was observed or documented to
handle that way). python3 stdlib only; registered with ctest."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workflow_runner as wr  # noqa: E402
from e2e_support import check, verdict  # noqa: E402


def raises(fn):
    try:
        fn()
    except wr.WorkflowError as e:
        return str(e)
    return None


ctx = {"github": {"event_name": "schedule", "repository": "acme/lbm"},
       "steps": {"detect": {"outputs": {"exit-code": "1"}}},
       "inputs": {"perfsweep-path": "", "cache": "true"}, "runner": {"temp": "/t"}, "env": {}}
E = lambda t, allowed=wr.STEP: wr.evaluate(t, ctx, allowed)  # noqa: E731
check(E("steps.detect.outputs.exit-code == '1'") is True, "dashed names and ==")
check(E("inputs.perfsweep-path == '' && inputs.cache == 'true'") is True, "&& of two ==")
check(E("github.event_name == 'SCHEDULE'") is True, "string == ignores case")
check(E("!(1 == 2) && 3 > 2") is True, "! () and >")
check(E("contains(fromJSON('[\"OWNER\",\"MEMBER\"]'), 'member')") is True, "contains on an array")
check(E("format('{0}-{1}', 'a', 2)") == "a-2", "format")
check(E("github.missing.deeper") is None, "a missing property is null")
check(E("'' || 'x'") == "x", "|| returns the first truthy operand")
msg = raises(lambda: E("runner.temp", wr.JOB_ENV))
check(msg is not None and "'runner' is not available" in msg, "runner is not available in job env")
check(raises(lambda: E("secrets.X", wr.STEP_IF)) is not None, "secrets are not available in if:")
check(raises(lambda: E("hashFiles('x')")) is not None, "unknown functions are errors")
check(wr.substitute("git+${{ github.repository }}.git#d", ctx, wr.STEP) == "git+acme/lbm.git#d",
      "templates inside text")
check(wr.condition(None, ctx, wr.STEP_IF, "failure") is False, "no if: skips after a failure")
check(wr.condition("always()", ctx, wr.STEP_IF, "failure") is True, "always() runs after a failure")
check(wr.condition("steps.detect.outputs.exit-code == '1'", ctx, wr.STEP_IF, "failure") is False,
      "an if: without a status function implies success()")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out")
    with open(out, "w") as fh:
        fh.write("a=1\nmulti<<EOF_x\nline1\nline2\nEOF_x\nb=x=y\n")
    check(wr.read_kv_file(out) == {"a": "1", "multi": "line1\nline2", "b": "x=y"}, "GITHUB_OUTPUT forms")

    ws, temp, store = (os.path.join(tmp, d) for d in ("ws", "temp", "store"))
    for d in (ws, temp, store, os.path.join(ws, "act")):
        os.makedirs(d)
    with open(os.path.join(ws, "act", "action.yml"), "w") as fh:
        fh.write("""name: t
description: t
inputs:
  who:
    description: w
    default: 'world'
  path:
    description: p
    default: '${{ runner.temp }}/c'
outputs:
  greeting:
    description: g
    value: ${{ steps.say.outputs.greeting }}
  hit:
    description: h
    value: ${{ steps.cache.outputs.cache-hit }}
runs:
  using: composite
  steps:
    - id: cache
      uses: actions/cache@v4
      with:
        path: ${{ inputs.path }}
        key: k-1
    - id: say
      shell: bash
      env:
        WHO: ${{ inputs.who }}
        WHERE: ${{ github.action_path }}
      run: |
        mkdir -p "$(dirname "$WHERE")/../temp/c" && echo kept > "$(dirname "$WHERE")/../temp/c/f"
        echo "greeting=hello $WHO" >> "$GITHUB_OUTPUT"
        echo "FROM_ACTION=1" >> "$GITHUB_ENV"
    - id: save
      if: always()
      uses: actions/cache/save@v4
      with:
        path: ${{ inputs.path }}
        key: k-2
""")
    wf = wr.check_workflows.plain(wr.check_workflows.load("""name: w
on: push
permissions: {}
jobs:
  j:
    runs-on: x
    steps:
      - id: a
        uses: ./act
        with:
          who: perfsweep
      - id: b
        if: steps.a.outputs.greeting == 'hello perfsweep'
        run: echo "env=$FROM_ACTION" >> "$GITHUB_OUTPUT"
      - id: c
        run: exit 3
      - id: d
        run: echo never
      - id: e
        if: failure()
        run: echo "ran=yes" >> "$GITHUB_OUTPUT"
"""))

    def job():
        return wr.Job({"workspace": ws, "repository": "acme/lbm"}, {"temp": temp}, dict(os.environ),
                      lambda w: None, store, log=lambda s: None)
    status, steps = job().run(wf, "j")
    check(steps["a"]["outputs"].get("greeting") == "hello perfsweep", f"composite output {steps['a']}")
    check(steps["a"]["outputs"].get("hit") == "false", "first run: cache miss")
    check(steps["b"]["outputs"].get("env") == "1", "GITHUB_ENV from a composite step persists")
    check(status == "failure" and steps["d"]["outcome"] == "skipped", "a failed step skips the rest")
    check(steps["e"]["outputs"].get("ran") == "yes", "failure() runs after a failure")
    # actions/cache's post step saves only when the job succeeded (this one failed);
    # actions/cache/save saves when its step runs
    check(not os.path.isdir(os.path.join(store, "k-1")), "actions/cache saved after a failed job")
    check(os.path.isdir(os.path.join(store, "k-2")), "actions/cache/save did not save")
    wf["jobs"]["j"]["steps"] = [s for s in wf["jobs"]["j"]["steps"] if s.get("id") not in ("c", "d")]
    status, steps = job().run(wf, "j")
    check(status == "success" and os.path.isdir(os.path.join(store, "k-1")),
          "the cache is saved after a successful job")
    _, steps = job().run(wf, "j")
    check(steps["a"]["outputs"].get("hit") == "true", "third run: cache hit")
    bad = wr.check_workflows.plain(wr.check_workflows.load(
        "name: w\non: push\npermissions: {}\njobs:\n  j:\n    runs-on: x\n    env:\n"
        "      X: ${{ runner.temp }}\n    steps:\n      - run: 'true'\n"))
    check(raises(lambda: job().run(bad, "j")) is not None, "runner in a job's env: fails like on GitHub")
    remote = wr.check_workflows.plain(wr.check_workflows.load(
        "name: w\non: push\npermissions: {}\njobs:\n  j:\n    runs-on: x\n    steps:\n"
        "      - id: a\n        uses: acme/act@v1\n        with:\n          who: remote\n"))
    check(raises(lambda: job().run(remote, "j")) is not None, "an unknown OWNER/NAME@REF is refused")
    mapped = wr.Job({"workspace": ws, "repository": "acme/lbm"}, {"temp": temp}, dict(os.environ),
                    lambda w: None, store, log=lambda s: None,
                    actions={"acme/act@v1": os.path.join(ws, "act")})
    _, steps = mapped.run(remote, "j")
    check(steps["a"]["outputs"].get("greeting") == "hello remote", "OWNER/NAME@REF mapped to a directory")

sys.exit(verdict("check_workflow_runner"))
