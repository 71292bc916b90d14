#!/usr/bin/env python3
"""Re-measured known states of one investigate run, from its JSON Lines history (issue 31).

    python3 examples/gpu/known_states.py HISTORY.jsonl RECORD_DATE

Every run is one record of the history (perfsweep appends the nightlies' runs and, with the
evidence store, every hourly and commit run with its recipe). The records before the first one of
RECORD_DATE (investigate --record) are the earlier nightly jobs'. A run of the investigation
re-measures a known state when its sources (commits) were measured before by another kind of build
(a nightly's own build vs a rebuilt state), or when it is a nightly the earlier jobs measured. The
first rebuilt run of a nightly's sources is the recipe's confirming run, counted apart. Every run
of the benchmark takes about as long, so the share of runs is the share of benchmark seconds.
"""
import json
import sys


def main():
    path, record_date = sys.argv[1], sys.argv[2]
    records = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    start = next(i for i, r in enumerate(records) if r.get("label") == record_date)
    kinds = {}  # commits -> kinds of build that measured them
    earlier_dates = set()
    for r in records[:start]:
        kinds.setdefault(tuple(sorted(r.get("commits", {}).items())), set()).add("nightly")
        earlier_dates.add(r.get("label"))
    runs = known = confirming = 0
    for r in records[start:]:
        if r.get("status") == "missing":
            continue
        kind = "rebuilt" if r.get("stage") in ("hourly", "commit") else "nightly"
        commits = tuple(sorted(r.get("commits", {}).items()))
        seen = kinds.setdefault(commits, set())
        runs += 1
        other = bool(commits) and bool(seen - {kind})
        if kind == "rebuilt" and other and confirming == 0:
            confirming += 1
        elif other or (kind == "nightly" and r.get("label") in earlier_dates):
            known += 1
        seen.add(kind)
    share = 100.0 * known / runs if runs else 0.0
    print(f"runs {runs}, re-measured known states {known} ({share:.1f} % of the benchmark "
          f"seconds), confirming runs {confirming}")


if __name__ == "__main__":
    main()
