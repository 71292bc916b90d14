#!/usr/bin/env python3
"""Regenerate xlb-mlups.csv: a synthetic but realistic nightly MLUPS history (seeded).

July-September 2023 nightlies of XLB `MLUPS3d.py 256 200` around 577.3 MLUPS with 0.25 % noise:
a 3 % dip on 07-12..07-14 that recovers, a 2.3 % drop from 08-03, a further drop on 08-24 to
about 537 (7 % below July), one failed night (08-16) and one timeout (09-05).
"""
import datetime
import random

random.seed(20230824)
rows = ["label,value,status,reason"]
day = datetime.date(2023, 7, 1)
while day <= datetime.date(2023, 9, 30):
    level = 577.3
    if datetime.date(2023, 7, 12) <= day <= datetime.date(2023, 7, 14):
        level *= 0.97
    if day >= datetime.date(2023, 8, 3):
        level *= 0.977
    if day >= datetime.date(2023, 8, 24):
        level = 537.0
    label = day.isoformat()
    if day == datetime.date(2023, 8, 16):
        rows.append(f"{label},,failed,Traceback: jaxlib.xla_extension.XlaRuntimeError")
    elif day == datetime.date(2023, 9, 5):
        rows.append(f"{label},,timeout,killed after 1800 s")
    else:
        rows.append(f"{label},{level * (1 + random.gauss(0, 0.0025)):.2f},ok,")
    day += datetime.timedelta(days=1)
with open(__file__.replace("make-xlb-mlups.py", "xlb-mlups.csv"), "w") as f:
    f.write("\n".join(rows) + "\n")
