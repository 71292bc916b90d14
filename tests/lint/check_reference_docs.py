#!/usr/bin/env python3
"""Checks the reference pages against the code they describe, so they cannot go stale
(python3 stdlib only; registered with ctest):
  - docs/action.md lists every input and output of action.yml, and nothing else: the first column
    of its "Inputs" and "Outputs" tables names them in backticks (several per row allowed);
  - every input action.yml declares reaches perfsweep: action/run.sh knows it (all_inputs) or it
    is one the build step reads (perfsweep-path, install-deps, cache, github-token);
  - the "perfsweep flag" column of that inputs table names the flag action/run.sh passes for each
    input ("same names" = --INPUT);
  - README.md and docs/*.md link only to files that exist;
  - README.md's quick-start workflow is examples/workflows/nightly.yml, byte for byte (the
    end-to-end test tests/e2e/test_nightly_quickstart.py runs the README's copy).
Usage: check_reference_docs.py [--root DIR]      --self-test: the checks catch planted mistakes
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_workflows  # noqa: E402  (the small YAML reader)

BUILD_STEP_INPUTS = {"perfsweep-path", "install-deps", "cache", "github-token", "mode"}


def table_names(markdown, heading):
    """Backticked names in the first column of the first table under `heading` (a ## or ###)."""
    lines = markdown.splitlines()
    names, in_section, in_table = [], False, False
    for line in lines:
        if re.match(r"^#{2,3} ", line):
            if in_section and in_table:
                break
            in_section = line.lstrip("#").strip().lower() == heading.lower()
            in_table = False
            continue
        if not in_section:
            continue
        if line.startswith("|"):
            in_table = True
            first = line.split("|")[1]
            if set(first.strip()) <= set("-: "):
                continue
            names += re.findall(r"`([^`]+)`", first)
        elif in_table:
            break
    return names


def check_action_docs(action_yml, action_md, run_sh):
    problems = []
    doc = check_workflows.plain(check_workflows.load(action_yml))
    inputs, outputs = set(doc.get("inputs") or {}), set(doc.get("outputs") or {})
    listed_in = table_names(action_md, "Inputs")
    listed_out = table_names(action_md, "Outputs")
    if not listed_in:
        problems.append("docs/action.md: no '## Inputs' table found")
    if not listed_out:
        problems.append("docs/action.md: no '## Outputs' table found")
    for kind, have, listed in (("input", inputs, listed_in), ("output", outputs, listed_out)):
        for name in sorted(have - set(listed)):
            problems.append(f"docs/action.md: action.yml {kind} '{name}' is not in the {kind}s table")
        for name in sorted(set(listed) - have):
            problems.append(f"docs/action.md: the {kind}s table names '{name}', which action.yml "
                            f"does not declare")
    m = re.search(r"^all_inputs=\(([^)]*)\)", run_sh, re.M)
    known = set(m.group(1).split()) if m else set()
    if not m:
        problems.append("action/run.sh: no all_inputs=(...) list found")
    for name in sorted(inputs - known - BUILD_STEP_INPUTS):
        problems.append(f"action/run.sh: action.yml input '{name}' never reaches perfsweep "
                        f"(not in all_inputs)")
    for name in sorted(known - inputs):
        problems.append(f"action/run.sh: all_inputs names '{name}', which action.yml does not "
                        f"declare")
    return problems


# Inputs run.sh turns into a fixed flag rather than `opt`/`lines`.
LITERAL_FLAGS = {"alert-threshold": "--threshold", "fail-on-alert": "--fail-on-regression",
                 "comment-on-alert": "--comment", "close-issue-on-recovery": "--close-on-recovery",
                 "to-commit": "--to-commit"}


def input_rows(markdown):
    """(inputs, flag column) of each row of the "Inputs" table."""
    rows, in_section = [], False
    for line in markdown.splitlines():
        if re.match(r"^#{2,3} ", line):
            in_section = line.lstrip("#").strip().lower() == "inputs"
            continue
        if in_section and line.startswith("|"):
            cells = line.split("|")
            if len(cells) > 3 and not set(cells[1].strip()) <= set("-: "):
                rows.append((re.findall(r"`([^`]+)`", cells[1]), cells[2]))
    return rows


def check_flag_column(action_md, run_sh):
    problems = []
    flag_of = dict(re.findall(r"^(?:opt|lines) ([a-z-]+) (--[a-z-]+)", run_sh, re.M))
    flag_of.update(LITERAL_FLAGS)
    for names, column in input_rows(action_md):
        mapped = [n for n in names if n in flag_of]
        if not mapped:
            continue
        want = {flag_of[n] for n in mapped}
        have = {"--" + n for n in mapped} if "same names" in column else \
            set(re.findall(r"--[a-z][a-z-]*", column))
        if have != want:
            problems.append(f"docs/action.md: the inputs row of {', '.join(names)} names "
                            f"{sorted(have)}, action/run.sh passes {sorted(want)}")
    return problems


def check_links(root):
    problems = []
    pages = [os.path.join(root, "README.md")] + [
        os.path.join(root, "docs", f) for f in sorted(os.listdir(os.path.join(root, "docs")))
        if f.endswith(".md")]
    for page in pages:
        text = open(page, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
            if not os.path.exists(path):
                problems.append(f"{os.path.relpath(page, root)}: link to '{target}', which does "
                                f"not exist")
    return problems


def check_quickstart(readme, nightly):
    m = re.search(r"^## Quick start[^\n]*\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    if not m:
        return ["README.md: no '## Quick start' section"]
    y = re.search(r"^```yaml\n(.*?)^```", m.group(1), re.S | re.M)
    if not y:
        return ["README.md: the quick start holds no ```yaml block"]
    if y.group(1) != nightly:
        return ["README.md: the quick-start workflow differs from examples/workflows/nightly.yml "
                "(copy the file into the README)"]
    return []


def self_test():
    yml = ("name: x\ndescription: y\ninputs:\n  mode:\n    description: m\n  metric:\n"
           "    description: m\noutputs:\n  verdict:\n    description: v\n    value: x\n")
    md = ("# A\n## Inputs\n| input | flag |\n| --- | --- |\n| `mode` | sub |\n| `metric` | --metric |\n"
          "## Outputs\n| output | meaning |\n| --- | --- |\n| `verdict` | v |\n")
    run = "all_inputs=(metric)\n"
    ok = check_action_docs(yml, md, run) == []
    missing = check_action_docs(yml, md.replace("| `metric` | --metric |\n", ""), run)
    extra = check_action_docs(yml, md.replace("`verdict`", "`verdict`, `culprit`"), run)
    unmapped = check_action_docs(yml, md, "all_inputs=()\n")
    flag_md = "## Inputs\n| input | flag |\n| --- | --- |\n| `check` | `--check` |\n| `a`, `b` | same names |\n"
    flag_run = "opt check --check\nopt a --a\nlines b --b\n"
    wf = "name: n\non: push\n"
    readme = "# R\n## Quick start: x\ntext\n```yaml\n" + wf + "```\n## Commands\n"
    results = {"clean": ok, "missing input": len(missing) == 1 and "'metric'" in missing[0],
               "extra output": len(extra) == 1 and "'culprit'" in extra[0],
               "unmapped input": len(unmapped) == 1 and "never reaches" in unmapped[0],
               "quick start as the file": check_quickstart(readme, wf) == [],
               "quick start drifted": len(check_quickstart(readme, wf + "x: 1\n")) == 1,
               "no quick start": len(check_quickstart("# R\n", wf)) == 1,
               "flag column matches": check_flag_column(flag_md, flag_run) == [],
               "renamed flag": len(check_flag_column(flag_md, flag_run.replace("--check", "--mode"))) == 1,
               "same names that are not": len(check_flag_column(flag_md, flag_run.replace("--b", "--bee"))) == 1}
    for what, good in results.items():
        print(("ok  " if good else "FAIL") + " self-test: " + what)
    return 0 if all(results.values()) else 1


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = os.path.abspath(argv[argv.index("--root") + 1]) if "--root" in argv else \
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def read(rel):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            return fh.read()

    problems = check_action_docs(read("action.yml"), read("docs/action.md"), read("action/run.sh"))
    problems += check_flag_column(read("docs/action.md"), read("action/run.sh"))
    problems += check_links(root)
    problems += check_quickstart(read("README.md"), read("examples/workflows/nightly.yml"))
    for p in problems:
        print(p)
    print("check_reference_docs:", "failed" if problems else "ok", f"({len(problems)} problems)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
