#!/usr/bin/env python3
"""Lint perfsweep's action.yml and every workflow file (python3 stdlib only).

Fails (exit 1, one line per problem naming file:line) when:
  - a `run:` script contains `${{` (expressions must reach scripts through `env:` only, so no
    input, issue body or branch name can inject shell);
  - required keys are missing: workflows need name, on, permissions, jobs; each job runs-on (or
    uses) and steps (or uses); each step uses or run; action.yml needs name, description, branding
    (icon, color), runs.using composite, runs.steps, each input a description, each output a
    description and a value, and each run step a shell;
  - a bash `run:` script does not parse (`bash -n`).

Usage: check_workflows.py [--root DIR] [FILE...]   (default: action.yml, .github/workflows/*.yml,
                                                    examples/workflows/*.yml under DIR)
       check_workflows.py --self-test               (the checks catch planted mistakes; the YAML
                                                    reader agrees with PyYAML when it is installed)
YAML is read by a small reader for the block-style subset these files use (mappings, sequences,
block scalars | and >, quoted and plain scalars, flow [..] and {..}); anything outside the subset
is reported as an error rather than guessed.
"""

import glob
import os
import re
import sys


class YamlError(Exception):
    def __init__(self, line, msg):
        super().__init__(f"line {line}: {msg}")
        self.line = line


class Node:
    """A parsed value with the 1-based line where it starts (for messages)."""

    __slots__ = ("value", "line")

    def __init__(self, value, line):
        self.value = value
        self.line = line


# ---------------------------------------------------------------------------- tiny YAML reader
KEY_RE = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},&*!|>%@`-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s+|$)(.*)$""")


def strip_comment(text):
    """Drop a trailing ` # comment` outside quotes."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"" and (i == 0 or text[i - 1] in " \t[{,:"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def split_flow(text, line):
    items, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if quote or depth:
        raise YamlError(line, f"unbalanced flow collection: {text!r}")
    if cur.strip():
        items.append(cur.strip())
    return items


def scalar(text, line):
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise YamlError(line, "flow sequence continues on another line (unsupported)")
        return [scalar(t, line) for t in split_flow(text[1:-1], line)]
    if text.startswith("{"):
        if not text.endswith("}"):
            raise YamlError(line, "flow mapping continues on another line (unsupported)")
        out = {}
        for item in split_flow(text[1:-1], line):
            m = KEY_RE.match(item)
            if not m:
                raise YamlError(line, f"bad flow mapping entry {item!r}")
            out[unquote(m.group(1), line)] = Node(scalar(m.group(2), line), line)
        return out
    return unquote(text, line)


def unquote(text, line):
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise YamlError(line, "double-quoted scalar continues on another line (unsupported)")
        body = text[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(
            m.group(1), "\\" + m.group(1)), body)
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise YamlError(line, "single-quoted scalar continues on another line (unsupported)")
        return text[1:-1].replace("''", "'")
    if text in ("~", "null"):
        return ""
    return text


class Reader:
    def __init__(self, text):
        self.raw = text.split("\n")
        self.lines = []  # (indent, text, lineno) of meaningful lines; block scalars read raw
        for no, raw in enumerate(self.raw, 1):
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                raise YamlError(no, "tab in indentation")
            self.lines.append(raw)

    def meaningful(self, i):
        """Index of the next non-blank, non-comment line at or after i."""
        while i < len(self.lines):
            s = self.lines[i].strip()
            if s and not s.startswith("#") and s != "---":
                return i
            i += 1
        return i

    @staticmethod
    def indent(raw):
        return len(raw) - len(raw.lstrip(" "))

    def parse(self):
        i = self.meaningful(0)
        if i >= len(self.lines):
            return Node({}, 1), i
        node, i = self.node(i, self.indent(self.lines[i]))
        i = self.meaningful(i)
        if i < len(self.lines):
            raise YamlError(i + 1, "unexpected content (indentation?)")
        return node, i

    def node(self, i, ind, text=None):
        raw_text = text if text is not None else strip_comment(self.lines[i][ind:])
        if raw_text == "-" or raw_text.startswith("- "):
            return self.sequence(i, ind, raw_text)
        if KEY_RE.match(raw_text):
            return self.mapping(i, ind, raw_text)
        if raw_text.startswith(("|", ">")):
            raise YamlError(i + 1, "block scalar at top level (unsupported)")
        return Node(scalar(raw_text, i + 1), i + 1), i + 1

    def mapping(self, i, ind, first_text=None):
        out, line0, text = {}, i + 1, first_text
        while True:
            if text is None:
                i = self.meaningful(i)
                if i >= len(self.lines) or self.indent(self.lines[i]) != ind:
                    if i < len(self.lines) and self.indent(self.lines[i]) > ind:
                        raise YamlError(i + 1, "unexpected indentation")
                    break
                text = strip_comment(self.lines[i][ind:])
            m = KEY_RE.match(text)
            if not m:
                raise YamlError(i + 1, f"expected 'key: value', got {text!r}")
            key, rest = unquote(m.group(1), i + 1), m.group(2).strip()
            if key in out:
                raise YamlError(i + 1, f"duplicate key {key!r}")
            keyline = i + 1
            if rest.startswith(("|", ">")):
                value, i = self.block_scalar(i, ind, rest)
                out[key] = Node(value, keyline)
            elif rest and not rest.startswith(("&", "*", "!")):
                out[key] = Node(scalar(rest, keyline), keyline)
                i += 1
            elif rest:
                raise YamlError(keyline, "anchors, aliases and tags are unsupported")
            else:
                j = self.meaningful(i + 1)
                if j < len(self.lines) and (self.indent(self.lines[j]) > ind or (
                        self.indent(self.lines[j]) == ind and
                        re.match(r"-(\s|$)", self.lines[j][ind:]))):
                    child, i = self.node(j, self.indent(self.lines[j]))
                    child.line = keyline
                    out[key] = child
                else:
                    out[key] = Node("", keyline)
                    i += 1
            text = None
        return Node(out, line0), i

    def sequence(self, i, ind, first_text=None):
        out, line0, text = [], i + 1, first_text
        while True:
            if text is None:
                i = self.meaningful(i)
                if i >= len(self.lines) or self.indent(self.lines[i]) != ind:
                    break
                text = strip_comment(self.lines[i][ind:])
                if not (text == "-" or text.startswith("- ")):
                    break
            item = text[1:].lstrip(" ")
            if not item:
                j = self.meaningful(i + 1)
                if j < len(self.lines) and self.indent(self.lines[j]) > ind:
                    child, i = self.node(j, self.indent(self.lines[j]))
                else:
                    child, i = Node("", i + 1), i + 1
            else:
                if item.startswith(("|", ">")):
                    raise YamlError(i + 1, "block scalar as a sequence item (unsupported)")
                child, i = self.node(i, ind + (len(text) - len(item)), item)
            out.append(child)
            text = None
        return Node(out, line0), i

    def block_scalar(self, i, ind, header):
        m = re.match(r"^([|>])([+-]?)(\d?)([+-]?)$", header)
        if not m:
            raise YamlError(i + 1, f"bad block scalar header {header!r}")
        style, chomp = m.group(1), (m.group(2) or m.group(4))
        body, j, block_ind = [], i + 1, None
        if m.group(3):
            block_ind = ind + int(m.group(3))
        while j < len(self.raw):
            raw = self.raw[j]
            if raw.strip() == "":
                body.append("")
                j += 1
                continue
            cur = self.indent(raw)
            if block_ind is None:
                if cur <= ind:
                    break
                block_ind = cur
            if cur < block_ind:
                break
            body.append(raw[block_ind:])
            j += 1
        # trailing blank lines belong to the scalar only for chomping purposes
        while body and body[-1] == "":
            body.pop()
        if style == "|":
            text = "\n".join(body)
        else:
            text, prev_blank = "", True
            for ln in body:
                if ln == "":
                    text += "\n"
                    prev_blank = True
                elif ln.startswith((" ", "\t")):
                    text += ("" if prev_blank else "\n") + ln + "\n"
                    prev_blank = True
                else:
                    text += ("" if prev_blank else " ") + ln
                    prev_blank = False
            text = text.rstrip("\n")
        if chomp != "-" and body:
            text += "\n"
        return text, j


def load(text):
    return Reader(text).parse()[0]


def plain(node):
    """Node tree -> plain Python values (for comparing with PyYAML)."""
    v = node.value
    if isinstance(v, dict):
        return {k: plain(n) for k, n in v.items()}
    if isinstance(v, list):
        return [plain(x) if isinstance(x, Node) else x for x in v]
    return v


# ---------------------------------------------------------------------------- checks
def get(mapping, key):
    n = mapping.value.get(key) if isinstance(mapping.value, dict) else None
    return n


def require(problems, path, node, keys, what):
    if not isinstance(node.value, dict):
        problems.append(f"{path}:{node.line}: {what} must be a mapping")
        return False
    ok = True
    for k in keys:
        alts = k.split("|")
        if not any(a in node.value for a in alts):
            problems.append(f"{path}:{node.line}: {what} lacks required key '{' or '.join(alts)}'")
            ok = False
    return ok


def bash_syntax_error(script):
    """`bash -n` on a run: script (the runner's default shell on Linux); '' when it parses."""
    import subprocess

    p = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, timeout=30)
    return "" if p.returncode == 0 else p.stderr.strip().replace("\n", " | ")


def check_steps(problems, path, steps, where, need_shell):
    if not isinstance(steps.value, list) or not steps.value:
        problems.append(f"{path}:{steps.line}: {where}.steps must be a non-empty list")
        return
    for idx, step in enumerate(steps.value):
        label = f"{where}.steps[{idx}]"
        if not require(problems, path, step, ["uses|run"], label):
            continue
        run = get(step, "run")
        if run is not None:
            script = run.value if isinstance(run.value, str) else ""
            if "${{" in script:
                off = script[: script.index("${{")].count("\n")
                # a block scalar starts on the line after `run: |`
                line = run.line + (1 + off if "\n" in script or off else 0)
                problems.append(f"{path}:{line}: {label}.run contains '${{{{' — pass the value "
                                f"through env: and use \"$VAR\" in the script")
            shell = get(step, "shell")
            if script and (shell is None or str(shell.value).startswith("bash")):
                syntax = bash_syntax_error(script)
                if syntax:
                    problems.append(f"{path}:{run.line}: {label}.run is not valid bash: {syntax}")
            if need_shell and "shell" not in step.value:
                problems.append(f"{path}:{step.line}: {label} has run but no shell (required in "
                                f"composite actions)")
        uses = get(step, "uses")
        if uses is not None and str(uses.value).startswith("actions/checkout@"):
            with_ = get(step, "with")
            persist = get(with_, "persist-credentials") if with_ is not None and isinstance(with_.value, dict) else None
            if persist is None or str(persist.value).lower() != "false":
                problems.append(f"{path}:{step.line}: {label} checks out without "
                                f"'persist-credentials: false' (the token would stay in .git/config, "
                                f"readable by every benchmark and build of the job)")
        if "uses" in step.value and "run" in step.value:
            problems.append(f"{path}:{step.line}: {label} has both uses and run")


def check_workflow(problems, path, doc):
    if not require(problems, path, doc, ["name", "on", "permissions", "jobs"], "workflow"):
        if not isinstance(doc.value, dict):
            return
    jobs = get(doc, "jobs")
    if jobs is None:
        return
    if not isinstance(jobs.value, dict) or not jobs.value:
        problems.append(f"{path}:{jobs.line}: jobs must be a non-empty mapping")
        return
    for name, job in jobs.value.items():
        if not isinstance(job.value, dict):
            problems.append(f"{path}:{job.line}: job '{name}' must be a mapping")
            continue
        if "uses" in job.value:  # a reusable-workflow call has no runs-on/steps
            continue
        if require(problems, path, job, ["runs-on", "steps"], f"job '{name}'"):
            check_steps(problems, path, job.value["steps"], f"jobs.{name}", need_shell=False)


def check_action(problems, path, doc):
    if not require(problems, path, doc, ["name", "description", "runs", "branding"], "action"):
        if not isinstance(doc.value, dict):
            return
    br = get(doc, "branding")
    if br is not None:
        require(problems, path, br, ["icon", "color"], "branding")
    for section, keys in (("inputs", ["description"]), ("outputs", ["description", "value"])):
        sec = get(doc, section)
        if sec is None:
            continue
        if not isinstance(sec.value, dict):
            problems.append(f"{path}:{sec.line}: {section} must be a mapping")
            continue
        for name, item in sec.value.items():
            require(problems, path, item, keys, f"{section}.{name}")
    runs = get(doc, "runs")
    if runs is None:
        return
    if require(problems, path, runs, ["using", "steps"], "runs"):
        if runs.value["using"].value != "composite":
            problems.append(f"{path}:{runs.line}: runs.using must be 'composite' (GPU access)")
        check_steps(problems, path, runs.value["steps"], "runs", need_shell=True)


def check_file(path, display=None):
    display = display or path
    problems = []
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        doc = load(text)
    except YamlError as e:
        return [f"{display}:{e.line}: YAML: {e}"]
    if os.path.basename(path) in ("action.yml", "action.yaml"):
        check_action(problems, display, doc)
    else:
        check_workflow(problems, display, doc)
    return problems


def default_files(root):
    files = [os.path.join(root, "action.yml")]
    for pattern in (".github/workflows/*.yml", ".github/workflows/*.yaml",
                    "examples/workflows/*.yml", "examples/workflows/*.yaml"):
        files += sorted(glob.glob(os.path.join(root, pattern)))
    return [f for f in files if os.path.exists(f)]


# ---------------------------------------------------------------------------- self-test
GOOD_WORKFLOW = """\
name: ok
on:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
      - name: fine
        env:
          TITLE: ${{ github.event.issue.title }}
        run: |
          echo "$TITLE" # comment-like text: ${ not an expression }
"""

BAD_CASES = {
    "expression in block run": (GOOD_WORKFLOW.replace('echo "$TITLE"', 'echo "${{ github.event.issue.title }}"'), "contains '${{'"),
    "expression in inline run": (GOOD_WORKFLOW.replace("run: |\n          echo \"$TITLE\" # comment-like text: ${ not an expression }",
                                                       "run: echo ${{ inputs.x }}"), "contains '${{'"),
    "expression in folded run": (GOOD_WORKFLOW.replace('run: |\n          echo "$TITLE"', 'run: >-\n          echo\n          ${{github.head_ref}}'), "contains '${{'"),
    "missing permissions": (GOOD_WORKFLOW.replace("permissions:\n  contents: read\n", ""), "'permissions'"),
    "missing runs-on": (GOOD_WORKFLOW.replace("    runs-on: ubuntu-latest\n", ""), "'runs-on'"),
    "step without uses or run": (GOOD_WORKFLOW.replace("      - uses: actions/checkout@v4\n        with:\n          persist-credentials: false\n", "      - name: nothing\n"), "'uses or run'"),
    "checkout persisting the token": (GOOD_WORKFLOW.replace("          persist-credentials: false\n", "          fetch-depth: 0\n"), "persist-credentials: false"),
    "run script with a bash syntax error": (GOOD_WORKFLOW.replace('echo "$TITLE"', 'if [ -n "$TITLE" ]; then echo'), "not valid bash"),
}

GOOD_ACTION = """\
name: x
description: y
branding: { icon: 'activity', color: 'blue' }
inputs:
  a:
    description: 'an input'
    default: ''
outputs:
  o:
    description: 'an output'
    value: ${{ steps.r.outputs.o }}
runs:
  using: composite
  steps:
    - id: r
      shell: bash
      env:
        A: ${{ inputs.a }}
      run: echo "$A"
"""

BAD_ACTIONS = {
    "action expression in run": (GOOD_ACTION.replace('run: echo "$A"', 'run: echo "${{ inputs.a }}"'), "contains '${{'"),
    "action run without shell": (GOOD_ACTION.replace("      shell: bash\n", ""), "no shell"),
    "output without value": (GOOD_ACTION.replace("    value: ${{ steps.r.outputs.o }}\n", ""), "'value'"),
    "not composite": (GOOD_ACTION.replace("using: composite", "using: docker"), "composite"),
    "no branding": (GOOD_ACTION.replace("branding: { icon: 'activity', color: 'blue' }\n", ""), "'branding'"),
}


def self_test():
    import tempfile

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        def run(name, text, filename):
            p = os.path.join(tmp, filename)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)
            return check_file(p, name)

        for name, text, fn in (("good workflow", GOOD_WORKFLOW, "w.yml"),
                               ("good action", GOOD_ACTION, "action.yml")):
            probs = run(name, text, fn)
            if probs:
                failures.append(f"{name}: unexpected problems {probs}")
        for cases, fn in ((BAD_CASES, "w.yml"), (BAD_ACTIONS, "action.yml")):
            for name, (text, expect) in cases.items():
                probs = run(name, text, fn)
                if not any(expect in p for p in probs):
                    failures.append(f"{name}: expected a problem containing {expect!r}, got {probs}")
    # The reader agrees with PyYAML on the real files, where PyYAML is installed.
    try:
        import yaml  # noqa: F401
    except ImportError:
        print("self-test: PyYAML not installed; reader cross-check skipped")
        yaml = None
    if yaml is not None:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        files = default_files(root)
        for path in files + ["<good workflow>", "<good action>"]:
            text = {"<good workflow>": GOOD_WORKFLOW, "<good action>": GOOD_ACTION}.get(path)
            if text is None:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            mine = plain(load(text))
            theirs = normalize(yaml.safe_load(text))
            if mine != theirs:
                failures.append(f"{path}: reader disagrees with PyYAML:\n  mine:   {mine}\n  pyyaml: {theirs}")
        print(f"self-test: reader matches PyYAML on {len(files) + 2} files")
    for f in failures:
        print("FAIL", f)
    print("self-test:", "failed" if failures else "ok")
    return 1 if failures else 0


def normalize(v):
    if isinstance(v, dict):
        return {("on" if k is True else str(k)): normalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize(x) for x in v]
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = os.getcwd()
    files = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root":
            if not args:
                print("check_workflows: --root needs a directory", file=sys.stderr)
                return 2
            root = args.pop(0)
        else:
            files.append(a)
    files = files or default_files(root)
    if not files:
        print(f"check_workflows: no action.yml or workflow files under {root}", file=sys.stderr)
        return 2
    problems = []
    for f in files:
        problems += check_file(f, os.path.relpath(f, root))
    for p in problems:
        print(p)
    print(f"check_workflows: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
