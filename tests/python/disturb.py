# SPDX-License-Identifier: Apache-2.0
"""A disturbance of known identity: burn BURN_US of CPU every PERIOD_US on one CPU at
SCHED_FIFO priority PRIO, for at most COUNT periods or SECONDS seconds, then write the
measured burns (CLOCK_MONOTONIC start and end, ns) as JSON to OUT.

Usage: disturb.py CPU PRIO BURN_US PERIOD_US COUNT SECONDS OUT
The process names itself `rtb-disturb` so that a trace shows it under that name.
SIGTERM ends it early (the burns so far are written).
"""

import ctypes
import json
import os
import signal
import sys
import time
from pathlib import Path

PR_SET_NAME = 15


def main() -> int:
    cpu, prio, burn_us, period_us, count, seconds = (int(a) for a in sys.argv[1:7])
    out = sys.argv[7]
    ctypes.CDLL(None).prctl(PR_SET_NAME, b"rtb-disturb", 0, 0, 0)
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    burns: list[list[int]] = []
    clock = time.CLOCK_MONOTONIC
    start = time.clock_gettime_ns(clock)
    end_by = start + seconds * 1_000_000_000
    period = period_us * 1000
    next_at = start + period
    while len(burns) < count and not stop:
        now = time.clock_gettime_ns(clock)
        if now >= end_by:
            break
        if next_at > now:
            time.sleep((next_at - now) / 1e9)
        b0 = time.clock_gettime_ns(clock)
        b1 = b0
        while b1 - b0 < burn_us * 1000:
            b1 = time.clock_gettime_ns(clock)
        burns.append([b0, b1])
        next_at += period
        while next_at <= b1:
            next_at += period
    with Path(out).open("w", encoding="utf-8") as f:
        json.dump({"pid": os.getpid(), "cpu": cpu, "burns": burns}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
