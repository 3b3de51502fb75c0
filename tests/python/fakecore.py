#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for rtbench-core that misbehaves on purpose, for runner tests.

It passes every command to the real core (FAKECORE_REAL) except `run` of the
scenario named by FAKECORE_TARGET, where FAKECORE_MODE decides:
  crash       write a meta record and a log line, then die by SIGSEGV
  badrecord   run the real core but drop `stats` from its first result record
  badversion  write a meta record of protocol version 2
  norealtime  run the real core with --no-realtime (any scenario)
  hide        `list` leaves out the run unit named by FAKECORE_TARGET, as a
              build that does not implement it would
"""

import json
import os
import signal
import subprocess
import sys

real = os.environ["FAKECORE_REAL"]
mode = os.environ.get("FAKECORE_MODE", "")
target = os.environ.get("FAKECORE_TARGET", "")
args = sys.argv[1:]
running = bool(args) and args[0] == "run"
targeted = running and target in args

if mode == "hide" and args[:1] == ["list"]:
    listing = subprocess.run([real, *args], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines(keepends=True):
        if json.loads(line).get("scenario") != target:
            sys.stdout.write(line)
    sys.exit(0)
if running and mode == "norealtime":
    os.execv(real, [real, *args, "--no-realtime"])
if not targeted:
    os.execv(real, [real, *args])

meta_line = subprocess.run(
    [real, "run", "--scenario", "cal.timestamp", "--raw-max", "0"],
    capture_output=True,
    text=True,
    check=True,
).stdout.splitlines()[0]

if mode == "crash":
    print(meta_line, flush=True)
    log = {"v": 1, "type": "log", "scenario": target, "level": "info", "message": "starting"}
    print(json.dumps(log), flush=True)
    sys.stderr.write("fakecore: about to crash\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "badversion":
    meta = json.loads(meta_line)
    meta["v"] = 2
    print(json.dumps(meta), flush=True)
elif mode == "badrecord":
    done = False
    child = subprocess.Popen([real, *args], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    for line in child.stdout:
        record = json.loads(line)
        text = line
        if record.get("type") == "result" and not done:
            del record["stats"]
            done = True
            text = json.dumps(record) + "\n"
        sys.stdout.write(text)
        sys.stdout.flush()
    sys.exit(child.wait())
sys.exit(3)
