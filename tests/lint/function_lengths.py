#!/usr/bin/env python3
"""The longest functions of src/app and src/core (the charter: none over 120 lines, data tables aside).

Usage: python3 tests/lint/function_lengths.py [--top N] [--max LINES] [DIR ...]
Prints the N longest functions (lines from the signature to the closing brace, as Universal Ctags
sees them; lambdas count as part of the function that holds them). With --max, exits 1 when a
function is longer than LINES unless it is a data table (a function whose body is one
initializer list: its name ends in `_table` or it is listed in DATA_TABLES below).
"""
import argparse
import json
import pathlib
import subprocess
import sys

DATA_TABLES = {"make_options", "make_commands"}  # the option table (app/option_table.cpp)


def functions(dirs):
    files = sorted(str(p) for d in dirs for p in pathlib.Path(d).rglob("*") if p.suffix in (".cpp", ".hpp"))
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+ne", "--c++-kinds=f", "-o", "-", *files],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") != "function" or "end" not in tag:
            continue
        if tag["name"].startswith("__anon"):  # a lambda: counted inside its function
            continue
        yield tag["end"] - tag["line"] + 1, tag["path"], tag["line"], tag["name"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--max", type=int)
    ap.add_argument("dirs", nargs="*", default=["src/app", "src/core"])
    a = ap.parse_args()
    found = sorted(functions(a.dirs), reverse=True)
    for n, path, line, name in found[:a.top]:
        print(f"{n:5d}  {path}:{line}  {name}")
    if a.max is not None:
        over = [f for f in found if f[0] > a.max and f[3] not in DATA_TABLES and not f[3].endswith("_table")]
        for n, path, line, name in over:
            print(f"function_lengths: {path}:{line}: {name} is {n} lines (at most {a.max})", file=sys.stderr)
        return 1 if over else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
