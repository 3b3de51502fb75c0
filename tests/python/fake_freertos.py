#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for QEMU running the FreeRTOS image: speaks the serial line protocol
on standard input and output, as the image does on its UART.

The target starts it through RTBENCH_FIRMWARE_QEMU with QEMU's arguments. Each
`#rtb run ARG...` runs the real host core (FAKE_FREERTOS_CORE) with those
arguments and relays its records, its error output as `err` lines and its exit
status; `read /rtbench/freertos.json` answers a description in the image's shape.

FAKE_FREERTOS_MODE makes it misbehave:
  crash:NAME    exit (as a dead QEMU) after the first record of a run naming NAME
  hang:NAME     stop answering during a run naming NAME (ignores term and kill)
  noboot        never say ready
  wrong         say it is another machine
FAKE_FREERTOS_LOG: a file that gets its argument list, one line per start.
FAKE_FREERTOS_CONFIG=production|checked: the meta records say FreeRTOS and
carry the image's os_config of that kind, as the image's do (without it they
are the host core's, as they are).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

SAFE = frozenset(range(0x21, 0x7F)) - {ord("%")}
OUT_LOCK = threading.Lock()


def encode(data: bytes | str) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return "".join(chr(b) if b in SAFE else f"%{b:02X}" for b in raw)


def decode(field: str) -> str:
    out = bytearray()
    raw = field.encode()
    i = 0
    while i < len(raw):
        if raw[i] == ord("%") and i + 3 <= len(raw):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode()


def say(line: str) -> None:
    with OUT_LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def facts(icount: str | None) -> dict[str, object]:
    return {
        "kernel": "V11.1.0",
        "port": "GCC/ARM_CM3",
        "board": "mps2-an385",
        "cpu": "cortex-m3",
        "cpu_hz": 25000000,
        "counter": {"name": "cmsdk-timer0", "hz": 25000000, "bits": 32},
        "heap": {"scheme": "heap_4", "total_bytes": 65536},
        "config": {
            "configTICK_RATE_HZ": 1000,
            "configUSE_PREEMPTION": 1,
            "configUSE_TIME_SLICING": 1,
            "configMAX_PRIORITIES": 32,
            "configUSE_MUTEXES": 1,
        },
        "fake_icount": icount,
    }


def os_config(kind: str) -> dict[str, object]:
    """The meta record's os_config of the image built production or checked."""
    checked = kind == "checked"
    settings = [
        ("tick", "1000 Hz", "configTICK_RATE_HZ"),
        ("preemption", "on", "configUSE_PREEMPTION"),
        ("time slicing", "on", "configUSE_TIME_SLICING"),
        ("optimised task selection", "off", "configUSE_PORT_OPTIMISED_TASK_SELECTION"),
        ("tickless idle", "off", "configUSE_TICKLESS_IDLE"),
        ("run-time stats", "off", "configGENERATE_RUN_TIME_STATS"),
        ("asserts", "on" if checked else "off", "configASSERT"),
        ("stack check", "method 2" if checked else "off", "configCHECK_FOR_STACK_OVERFLOW"),
    ]
    return {
        "name": kind,
        "settings": [{"name": n, "value": v, "from": f} for n, v, f in settings],
    }


def as_image(line: str, kind: str) -> str:
    """A record line of the host core as the image would write it (meta only)."""
    if not kind or not line.startswith("{"):
        return line
    record = json.loads(line)
    if record.get("type") != "meta":
        return line
    record.update(os="FreeRTOS", os_release="V11.1.0", os_config=os_config(kind))
    return json.dumps(record)


class Image:
    def __init__(self, argv: list[str]) -> None:
        self.icount = argv[argv.index("-icount") + 1] if "-icount" in argv else None
        self.mode = os.environ.get("FAKE_FREERTOS_MODE", "")
        self.core = os.environ["FAKE_FREERTOS_CORE"]
        self.run: subprocess.Popen[bytes] | None = None
        self.hung = False

    def ready(self) -> None:
        machine = "cortex-m0" if self.mode == "wrong" else "mps2-an385"
        say(f"#rtb ready 1 {encode('FreeRTOS V11.1.0')} {machine}")

    def start_run(self, args: list[str]) -> None:
        if self.run is not None and self.run.poll() is None:
            say(f"#rtb fail 16 {encode('a run is under way')}")
            return
        crash = self.mode.startswith("crash:") and self.mode[6:] in " ".join(args)
        hang = self.mode.startswith("hang:") and self.mode[5:] in " ".join(args)
        self.run = subprocess.Popen(
            [self.core, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        process = self.run

        def errors() -> None:
            assert process.stderr is not None
            for raw in process.stderr:
                say("#rtb err " + encode(raw.rstrip(b"\n")))

        def records() -> None:
            assert process.stdout is not None
            for raw in process.stdout:
                line = raw.decode(errors="replace").rstrip("\n")
                if self.hung:
                    continue
                say(as_image(line, os.environ.get("FAKE_FREERTOS_CONFIG", "")))
                if crash:
                    process.kill()
                    os._exit(3)
                if hang:
                    self.hung = True
            status = process.wait()
            if not self.hung:
                say(f"#rtb exit {status}")

        err_thread = threading.Thread(target=errors, daemon=True)
        err_thread.start()
        threading.Thread(target=records, daemon=True).start()

    def stop_run(self, sig: int) -> None:
        if self.hung:
            return
        if self.run is not None and self.run.poll() is None:
            self.run.send_signal(sig)

    def serve(self) -> None:
        if self.mode != "noboot":
            time.sleep(0.05)
            self.ready()
        for raw in sys.stdin:
            fields = raw.strip().split(" ")
            if len(fields) < 2 or fields[0] != "#rtb":
                continue
            word, rest = fields[1], [decode(f) for f in fields[2:]]
            if self.hung:
                continue
            if word == "hello" and self.mode != "noboot":
                self.ready()
            elif word == "run":
                self.start_run(rest)
            elif word == "term":
                self.stop_run(signal.SIGTERM)
            elif word == "kill":
                self.stop_run(signal.SIGKILL)
            elif word == "read" and rest == ["/rtbench/freertos.json"]:
                text = json.dumps(facts(self.icount))
                for i in range(0, len(text), 40):
                    say(f"#rtb data {encode(text[i : i + 40])}")
                say("#rtb done")
            elif word == "off":
                if self.run is not None and self.run.poll() is None:
                    self.run.kill()
                sys.exit(0)
            else:
                say(f"#rtb fail 38 {encode(word + ' is not supported by the image')}")


def main() -> None:
    log = os.environ.get("FAKE_FREERTOS_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as f:
            f.write(json.dumps(sys.argv[1:]) + "\n")
    Image(sys.argv[1:]).serve()


if __name__ == "__main__":
    main()
