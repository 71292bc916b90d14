"""What the end-to-end tests share: the tally of failed checks, the command line, the scratch
folder's clean-up, the verdict line and the loopback GitHub (tests/support/fake_github).
python3 stdlib only."""

import json
import os
import shutil
import subprocess
import urllib.request

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests
failures = []  # what failed, in order; the exit code is 1 when any did


def check(cond, what):
    """Records `what` as failed unless `cond`; returns `cond`."""
    if not cond:
        failures.append(what)
        print("FAIL", what, flush=True)
    return cond


def root_and_binary(argv):
    """(source root, perfsweep binary) from `--root SRC` (default: the checkout holding this file)
    and `--perfsweep BIN`, both absolute."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(argv[argv.index("--root") + 1]) if "--root" in argv else \
        os.path.dirname(os.path.dirname(here))
    return root, os.path.abspath(argv[argv.index("--perfsweep") + 1])


def clean_up(scratch):
    """Removes the scratch folder when every check passed; else keeps it and says where."""
    if not failures:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print("kept", scratch)


def verdict(name):
    """Prints the last line ("NAME: ok (0 failures)") and returns the exit code."""
    print(f"{name}:", "failed" if failures else "ok", f"({len(failures)} failures)")
    return 1 if failures else 0


class FakeGitHub:
    """The loopback GitHub, started with node; `url` is its base URL."""

    def __init__(self, root):
        self.p = subprocess.Popen(["node", os.path.join(root, "tests/support/fake_github/server.js")],
                                  stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("PORT "):
            raise SystemExit(f"fake GitHub did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def control(self, what):
        with urllib.request.urlopen(self.url + "/_control/" + what) as r:
            return json.loads(r.read())

    def issues(self, repo):
        return [i for i in self.control("state")["issues"].values() if i["repo"] == repo]

    def writes(self):
        return [r for r in self.control("requests") if r["method"] in ("POST", "PATCH", "PUT", "DELETE")]

    def stop(self):
        self.p.terminate()
        self.p.wait()
