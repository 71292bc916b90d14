#!/usr/bin/env python3
"""A small GitHub Actions runner for perfsweep's end-to-end tests (python3 stdlib only).

It runs one job of a workflow file the way the hosted runner does, as far as perfsweep's
workflows use it: the `${{ }}` expression language (contexts, literals, == != < > && || !, the
functions contains/startsWith/endsWith/format/fromJSON/toJSON/success/always/failure/cancelled),
with GitHub's rule of which contexts each key may use (a workflow that reads `runner` in a job's
`env:` fails here as it fails on GitHub); `run:` steps under bash with the runner's flags;
GITHUB_OUTPUT / GITHUB_ENV / GITHUB_STEP_SUMMARY / GITHUB_PATH files; local composite actions
(`uses: ./path`, with their inputs, defaults and outputs); and `actions/checkout` and
`actions/cache` through stand-ins the caller provides (checkout: a function; cache: a directory
store, restored before and saved after the job like the real action's post step).
Anything else (`uses:` of another action, an unknown function or context) is an error, never
skipped. The YAML is read by tests/lint/check_workflows.py's reader.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lint"))
import check_workflows  # noqa: E402


class WorkflowError(Exception):
    """The workflow does something the real runner would refuse."""


# --------------------------------------------------------------------------- expressions
TOKEN_RE = re.compile(r"""\s*(?:(?P<num>-?\d+(?:\.\d+)?)|(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\],.*])|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))""")

# Contexts each place may use (docs: "Contexts" → "Context availability").
JOB_ENV = {"github", "needs", "strategy", "matrix", "vars", "secrets", "inputs"}
STEP = {"github", "needs", "strategy", "matrix", "job", "runner", "env", "vars", "secrets",
        "steps", "inputs"}
STEP_IF = STEP - {"secrets"}
STATUS_FUNCS = {"success", "always", "failure", "cancelled"}


def tokenize(text):
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN_RE.match(text, pos)
        if not m or m.end() == pos:
            raise WorkflowError(f"expression '{text}': cannot read at '{text[pos:]}'")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def to_str(v):
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def to_num(v):
    if v is None or v == "":
        return 0
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, (int, float)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def truthy(v):
    return not (v is None or v is False or v == "" or v == 0)


def equal(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()  # GitHub compares strings ignoring case
    if type(a) is type(b):
        return a == b
    return to_num(a) == to_num(b)  # GitHub's loose equality: null is 0, '' is 0 (null == '')


class Expr:
    def __init__(self, text, contexts, allowed, status):
        self.text, self.toks, self.i = text, tokenize(text), 0
        self.contexts, self.allowed, self.status = contexts, allowed, status

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if tok[0] is None or (want and tok[1] != want):
            raise WorkflowError(f"expression '{self.text}': expected {want or 'more'}")
        self.i += 1
        return tok

    def parse(self):
        v = self.or_()
        if self.i != len(self.toks):
            raise WorkflowError(f"expression '{self.text}': unexpected '{self.peek()[1]}'")
        return v

    def or_(self):
        v = self.and_()
        while self.peek()[1] == "||":
            self.take()
            r = self.and_()
            v = v if truthy(v) else r
        return v

    def and_(self):
        v = self.cmp()
        while self.peek()[1] == "&&":
            self.take()
            r = self.cmp()
            v = r if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek()[1] in ("==", "!=", "<", ">", "<=", ">="):
            op = self.take()[1]
            r = self.unary()
            if op == "==":
                v = equal(v, r)
            elif op == "!=":
                v = not equal(v, r)
            else:
                a, b = to_num(v), to_num(r)
                v = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        return v

    def unary(self):
        if self.peek()[1] == "!":
            self.take()
            return not truthy(self.unary())
        return self.postfix(self.primary())

    def postfix(self, v):
        while self.peek()[1] in (".", "["):
            if self.take()[1] == ".":
                key = self.take()[1]
                v = v.get(key) if isinstance(v, dict) else None
            else:
                key = self.or_()
                self.take("]")
                v = (v.get(to_str(key)) if isinstance(v, dict) else
                     v[int(to_num(key))] if isinstance(v, list) and 0 <= to_num(key) < len(v) else None)
        return v

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            return float(val) if "." in val else int(val)
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if val == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind != "name":
            raise WorkflowError(f"expression '{self.text}': unexpected '{val}'")
        if val in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[val]
        if self.peek()[1] == "(":
            self.take()
            args = []
            while self.peek()[1] != ")":
                args.append(self.or_())
                if self.peek()[1] == ",":
                    self.take()
            self.take(")")
            return self.call(val, args)
        if val not in self.allowed:
            raise WorkflowError(f"expression '{self.text}': context '{val}' is not available here "
                                f"(available: {', '.join(sorted(self.allowed))})")
        return self.contexts.get(val, {})

    def call(self, name, args):
        if name in STATUS_FUNCS:
            if "status" not in self.allowed:
                raise WorkflowError(f"expression '{self.text}': {name}() is only for if:")
            return {"success": self.status == "success", "always": True,
                    "failure": self.status == "failure", "cancelled": False}[name]
        if name == "contains":
            hay, needle = args
            if isinstance(hay, list):
                return any(equal(x, needle) for x in hay)
            return to_str(needle).lower() in to_str(hay).lower()
        if name == "startsWith":
            return to_str(args[0]).lower().startswith(to_str(args[1]).lower())
        if name == "endsWith":
            return to_str(args[0]).lower().endswith(to_str(args[1]).lower())
        if name == "format":
            out = to_str(args[0])
            for k, a in enumerate(args[1:]):
                out = out.replace("{" + str(k) + "}", to_str(a))
            return out
        if name == "fromJSON":
            return json.loads(to_str(args[0]))
        if name == "toJSON":
            return json.dumps(args[0])
        raise WorkflowError(f"expression '{self.text}': unknown function {name}()")


def evaluate(text, contexts, allowed, status="success"):
    return Expr(text, contexts, allowed, status).parse()


def substitute(value, contexts, allowed):
    """A YAML value with `${{ }}` templates: the whole string is one expression → its value's text."""
    if not isinstance(value, str):
        return to_str(value)
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: to_str(evaluate(m.group(1), contexts, allowed)),
                  value, flags=re.S)


def condition(text, contexts, allowed, status):
    if text is None:
        return status == "success"
    text = to_str(text).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    expr = Expr(text, contexts, allowed | {"status"}, status)
    used = any(k == "name" and v in STATUS_FUNCS for k, v in expr.toks)
    v = truthy(expr.parse())
    return v if used else (v and status == "success")


# --------------------------------------------------------------------------- runner files
def read_kv_file(path):
    """GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines and `name<<DELIM` blocks."""
    out = {}
    if not os.path.exists(path):
        return out
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        m = re.match(r"^([^=<]+)<<(.+)$", line)
        if m:
            name, delim, buf = m.group(1), m.group(2), []
            while i < len(lines) and lines[i] != delim:
                buf.append(lines[i])
                i += 1
            if i >= len(lines):
                raise WorkflowError(f"{path}: '{name}<<{delim}' is never closed")
            i += 1
            out[name] = "\n".join(buf)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise WorkflowError(f"{path}: line '{line}' is neither name=value nor name<<DELIM")
    return out


class Job:
    """One job run. `github`: the github context; `checkout(step, with_, job)` stands in for
    actions/checkout; `cache_store`: a directory holding actions/cache entries (one folder per
    key); `base_env`: the runner process environment (PATH, HOME, GITHUB_*); `actions`: what a
    `uses: OWNER/NAME@REF` of a composite action resolves to (a local directory per exact ref),
    as GitHub downloads the repository at REF."""

    def __init__(self, github, runner, base_env, checkout, cache_store, secrets=None, log=print,
                 actions=None):
        self.github, self.runner, self.base_env = github, runner, dict(base_env)
        self.actions = dict(actions or {})
        self.action_refs = {}  # action directory -> the `uses:` that named it
        self.checkout, self.cache_store, self.secrets = checkout, cache_store, secrets or {}
        self.log = log
        self.env = {}
        self.extra_path = []
        self.post = []  # actions/cache saves, run after the job (when it succeeded)
        self.saved = []  # entries actions/cache/save wrote
        self.summary = []
        self.status = "success"
        self.stdout = []

    def contexts(self, steps, inputs=None, action_path=None):
        gh = dict(self.github)
        if action_path:
            gh["action_path"] = action_path
            # github.action_repository / action_ref: the `uses: OWNER/NAME@REF` that named the
            # action ("" for a local `uses: ./path`), as the runner sets them inside an action
            used = self.action_refs.get(action_path, "")
            gh["action_repository"], _, gh["action_ref"] = used.partition("@")
        return {"github": gh, "runner": self.runner, "env": dict(self.env), "steps": steps,
                "inputs": inputs or {}, "secrets": self.secrets, "job": {"status": self.status},
                "needs": {}, "strategy": {}, "matrix": {}, "vars": {}}

    def process_env(self, step_env):
        env = dict(self.base_env)
        env.update(self.env)
        env.update(step_env)
        if self.extra_path:
            env["PATH"] = ":".join(self.extra_path + [env.get("PATH", "")])
        return env

    def run_script(self, script, shell, step_env, workdir, action_path=None):
        tmp = self.runner["temp"]
        files = {}
        for var in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"):
            fd, files[var] = tempfile.mkstemp(prefix=var.lower() + "-", dir=tmp)
            os.close(fd)
        env = self.process_env(step_env)
        env.update(files)
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        fd, script_path = tempfile.mkstemp(suffix=".sh", dir=tmp)
        with os.fdopen(fd, "w") as fh:
            fh.write(script)
        if shell in (None, "bash"):
            argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", script_path]
            if shell is None:  # the default shell of a run step without `shell:`
                argv = ["bash", "-e", script_path]
        elif shell == "sh":
            argv = ["sh", "-e", script_path]
        else:
            raise WorkflowError(f"shell '{shell}' is not supported here")
        p = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True)
        self.stdout.append(p.stdout + p.stderr)
        self.log(p.stdout + p.stderr)
        outputs = read_kv_file(files["GITHUB_OUTPUT"])
        self.env.update(read_kv_file(files["GITHUB_ENV"]))
        with open(files["GITHUB_PATH"], encoding="utf-8") as fh:
            self.extra_path = [ln for ln in fh.read().splitlines() if ln] + self.extra_path
        with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as fh:
            self.summary.append(fh.read())
        for f in list(files.values()) + [script_path]:
            os.remove(f)
        return p.returncode, outputs

    def run_steps(self, steps, inputs=None, action_path=None, allowed=None, if_allowed=None):
        """Run `steps` (a list of plain dicts); returns the steps context."""
        ctx_steps = {}
        allowed = allowed or STEP
        if_allowed = if_allowed or STEP_IF
        for n, step in enumerate(steps):
            sid = step.get("id") or f"__step{n}"
            ctx = self.contexts(ctx_steps, inputs, action_path)
            if not condition(step.get("if"), ctx, if_allowed, self.status):
                ctx_steps[sid] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
                continue
            step_env = {k: substitute(v, ctx, allowed) for k, v in (step.get("env") or {}).items()}
            with_ = {k: substitute(v, ctx, allowed) for k, v in (step.get("with") or {}).items()}
            name = step.get("name") or step.get("uses") or "run"
            self.log(f"--- step: {name}")
            if "run" in step:
                if "${{" in step["run"]:
                    raise WorkflowError(f"step '{name}': ${{{{ }}}} in run: (use env:)")
                workdir = substitute(step.get("working-directory", ""), ctx, allowed) or \
                    self.github["workspace"]
                rc, outputs = self.run_script(step["run"], step.get("shell"), step_env, workdir,
                                              action_path)
            else:
                rc, outputs = self.uses(step["uses"], with_, step_env, action_path)
            outcome = "success" if rc == 0 else "failure"
            ctx_steps[sid] = {"outputs": outputs, "outcome": outcome,
                              "conclusion": "success" if step.get("continue-on-error") else outcome}
            if rc != 0 and not step.get("continue-on-error"):
                self.status = "failure"
                self.log(f"--- step '{name}' failed (exit {rc})")
        return ctx_steps

    def uses(self, ref, with_, step_env, action_path):
        if ref.startswith("actions/checkout@"):
            self.checkout(with_)
            return 0, {}
        if ref.startswith("actions/cache@"):
            return self.cache(with_)
        if ref.startswith("actions/cache/restore@"):
            return self.cache(with_, save_after_job=False)
        if ref.startswith("actions/cache/save@"):
            return self.cache_save(with_)
        if ref.startswith("./"):
            return self.composite(os.path.join(self.github["workspace"], ref[2:]), with_)
        if ref in self.actions:
            self.action_refs[self.actions[ref]] = ref
            return self.composite(self.actions[ref], with_)
        raise WorkflowError(f"uses: {ref}: no stand-in for this action")

    def cache_entry(self, with_, what):
        key, path = with_.get("key", ""), with_.get("path", "")
        if not key or not path or "\n" in path.strip():
            raise WorkflowError(f"{what}: one path and a key are needed here")
        return path, os.path.join(self.cache_store, re.sub(r"[^A-Za-z0-9._-]", "_", key))

    def cache(self, with_, save_after_job=True):
        """actions/cache (restore now, save in the post step when the job succeeded) and
        actions/cache/restore (restore only)."""
        path, entry = self.cache_entry(with_, "actions/cache")
        if os.path.isdir(entry):
            if os.path.exists(path):
                shutil.rmtree(path)
            shutil.copytree(entry, path, symlinks=True)
            return 0, {"cache-hit": "true", "cache-matched-key": with_["key"]}
        if save_after_job:
            self.post.append((path, entry))
        return 0, {"cache-hit": "false"}

    def cache_save(self, with_):
        """actions/cache/save: saves now (an existing key is kept: caches are immutable)."""
        path, entry = self.cache_entry(with_, "actions/cache/save")
        if not os.path.isdir(path):
            raise WorkflowError(f"actions/cache/save: path {path} does not exist")
        if not os.path.exists(entry):
            shutil.copytree(path, entry, symlinks=True)
        self.saved.append(entry)
        return 0, {}

    def composite(self, path, with_):
        yml = os.path.join(path, "action.yml")
        if not os.path.exists(yml):
            raise WorkflowError(f"uses: ./{os.path.relpath(path, self.github['workspace'])}: no action.yml")
        with open(yml, encoding="utf-8") as fh:
            action = check_workflows.plain(check_workflows.load(fh.read()))
        declared = action.get("inputs") or {}
        for k in with_:
            if k not in declared:
                raise WorkflowError(f"action {path}: unexpected input '{k}'")
        inputs = {}
        ctx = self.contexts({}, {}, path)
        for k, spec in declared.items():
            default = (spec or {}).get("default", "")
            inputs[k] = with_[k] if k in with_ else substitute(default, ctx, STEP)
        if (action.get("runs") or {}).get("using") != "composite":
            raise WorkflowError(f"action {path}: only composite actions are run here")
        steps = self.run_steps(action["runs"]["steps"], inputs, path)
        ctx = self.contexts(steps, inputs, path)
        outputs = {k: substitute((spec or {}).get("value", ""), ctx, STEP)
                   for k, spec in (action.get("outputs") or {}).items()}
        return (0 if self.status == "success" else 1), outputs

    def run(self, workflow, job_id):
        """Run job `job_id` of `workflow` (plain dict); returns (conclusion, steps context)."""
        job = workflow["jobs"][job_id]
        ctx = self.contexts({})
        for k, v in (workflow.get("env") or {}).items():
            self.env[k] = substitute(v, ctx, JOB_ENV)
        for k, v in (job.get("env") or {}).items():
            self.env[k] = substitute(v, self.contexts({}), JOB_ENV)
        steps = self.run_steps(job["steps"])
        for path, entry in self.post:  # actions/cache's post step: saves only on success
            if self.status == "success" and os.path.isdir(path) and not os.path.exists(entry):
                shutil.copytree(path, entry, symlinks=True)
        return self.status, steps
