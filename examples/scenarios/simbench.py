#!/usr/bin/env python3
"""Simulated nightly benchmark for perfsweep's scenario suite (python3 stdlib only).

usage: simbench.py SCENARIO.json DATE [--seed N] [--counter-dir DIR] [--commits]
                   [--sleep GOOD_MIN,GOOD_MAX,BROKEN]

Prints "MLUPS: <value>" for DATE of the scenario (value = base * level(day) * (1 + noise * z)).
Broken days exit 1 after a fake traceback; "hang" days sleep for an hour (for --timeout); missing days print "image not found" and exit 2
(with --runtime none a missing image cannot be detected before the run, so perfsweep reports it
as a failed run; both are skipped, never compared). With --counter-dir each call for a day draws
the next repeat (a file per day counts them), so more repeats give new values. --commits prints
the dated build's fake source commits ("jax SHA TIME" lines), as a --commits-probe.
--sleep makes a run take time like a GPU run: GOOD_MIN s on even days, GOOD_MAX s on odd ones,
BROKEN s before a broken day fails (bench/gpus_wall.sh: uneven runs against a round barrier).
"""
import datetime
import hashlib
import json
import os
import random
import sys


def main(argv):
    args = [a for a in argv[1:]]
    seed, counter_dir, commits, sleep = 1, None, False, None
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--seed":
            seed = int(args[i + 1]); i += 2
        elif args[i] == "--counter-dir":
            counter_dir = args[i + 1]; i += 2
        elif args[i] == "--sleep":
            sleep = [float(x) for x in args[i + 1].split(",")]; i += 2
        elif args[i] == "--commits":
            commits = True; i += 1
        else:
            pos.append(args[i]); i += 1
    if len(pos) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    with open(pos[0]) as f:
        s = json.load(f)
    start = datetime.date.fromisoformat(s["start"])
    date = datetime.date.fromisoformat(pos[1])
    day = (date - start).days
    if day < 0 or day >= s["days"]:
        print(f"image for {pos[1]} not found (outside the scenario)")
        return 2
    if day in s.get("missing", []):
        print(f"image for {pos[1]} not found")
        return 2
    if commits:
        for repo in ("jax", "xla"):
            sha = hashlib.sha1(f"{repo}-{pos[1]}".encode()).hexdigest()
            t = datetime.datetime.combine(date, datetime.time(9, 30), datetime.timezone.utc)
            print(f"{repo} {sha} {t.strftime('%Y-%m-%dT%H:%M:%SZ')}")
        return 0
    if day in s.get("hang", []):
        import time
        time.sleep(3600)
        return 1
    if day in s.get("broken", []):
        if sleep:
            import time
            time.sleep(sleep[2])
        print("Traceback (most recent call last):\n  File \"bench.py\", line 1\nRuntimeError: XLA compilation failed")
        return 1
    repeat = 0
    if counter_dir:
        os.makedirs(counter_dir, exist_ok=True)
        path = os.path.join(counter_dir, pos[1])
        try:
            with open(path) as f:
                repeat = int(f.read().strip() or 0)
        except FileNotFoundError:
            repeat = 0
        with open(path + ".tmp", "w") as f:
            f.write(str(repeat + 1))
        os.replace(path + ".tmp", path)
    level = 1.0
    for step in s.get("levels", []):
        if day >= step["from"]:
            level = step["level"]
    noise = s["noise"]
    for n in s.get("noisy", []):
        if n["day"] == day:
            noise = n["noise"]
    z = random.Random(f"{seed}-{day}-{repeat}").gauss(0.0, 1.0)
    if sleep:
        import time
        time.sleep(sleep[1] if day % 2 else sleep[0])
    print(f"step 100/100 done")
    print(f"MLUPS: {s['base'] * level * (1 + noise * z):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
