#!/usr/bin/env python3
"""A generated history for the dashboard's render budget: SERIES series x POINTS nightly points
(default 200 x 2,000), three repeats each, with level shifts, broken nightlies, an environment
change and the fingerprints a nightly job records (commits, image, runner). Deterministic.

Usage: dashboard_history.py [--series N] [--points N] > history.jsonl
"""
import argparse
import datetime
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=200)
    ap.add_argument("--points", type=int, default=2000)
    a = ap.parse_args()
    rng = random.Random(20261205)
    start = datetime.date(2020, 1, 1)
    gpus = ["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"]
    metrics = [("MLUPS", "MLUPS", "higher"), ("step_time", "ms", "lower"), ("tokens_per_s", "tok/s", "higher"),
               ("memory", "GB", "lower"), ("throughput", "img/s", "higher")]
    out = sys.stdout
    for s in range(a.series):
        bench = f"model{s // 10:02d} {['fp32', 'bf16', 'fp8', 'int8', 'tf32'][s % 5]}"
        metric, unit, direction = metrics[s % len(metrics)]
        gpu = gpus[(s // 5) % 2]
        level = rng.uniform(50, 5000)
        noise = rng.uniform(0.002, 0.02)
        shifts = {rng.randrange(100, a.points): rng.choice([-0.08, -0.04, 0.03, 0.06])
                  for _ in range(rng.randrange(0, 4))}
        for i in range(a.points):
            level *= 1 + shifts.get(i, 0.0)
            date = start + datetime.timedelta(days=i)
            label = date.isoformat()
            rec = {
                "benchmark": bench, "metric": metric, "unit": unit, "direction": direction,
                "label": label, "timestamp": label + "T07:30:00Z", "stage": "record",
                "image": f"ghcr.io/nvidia/jax:jax-{label}",
                "commits": {"jax": f"{rng.getrandbits(160):040x}", "xla": f"{rng.getrandbits(160):040x}"},
                "runner": {"gpu": gpu, "driver": "535.104.05" if i < a.points // 2 else "550.54.15",
                           "hostname": f"gpu-node-{rng.randrange(1, 5)}"},
                "environment": {"cuda": "12.2" if i < a.points * 3 // 4 else "12.4"},
            }
            if rng.random() < 0.004:
                rec.update(values=[], status="failed", reason="exit 139 (SIGSEGV)")
            else:
                rec.update(values=[round(level * (1 + rng.gauss(0, noise)), 3) for _ in range(3)], status="ok")
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
