# SPDX-License-Identifier: Apache-2.0
"""Settings held on an SSH target for a run, and put back there.

One long-lived shell on the target (the *holder*, a session over the master
connection) does both settings of `tuning.HostTuning`:

- it opens `/dev/cpu_dma_latency`, writes 0 and keeps the file open: the kernel
  keeps the request exactly as long as the descriptor lives;
- it reads `/proc/sys/kernel/sched_rt_runtime_us`, writes -1, and writes the
  original back when it ends.

It then waits for its standard input to close. rtbench closes it in `restore()`;
when rtbench dies or the connection ends, sshd closes it too, so the holder puts
the RT runtime back and releases the latency request on every path on which the
target learns that the session ended. (A link that silently stops carrying
packets ends the session only once the target's TCP gives up; `recover()` does
the work at once if the target comes back within the run.)
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from typing import IO, Any

from rtbench.targets.ssh.link import SshLink, remote_shell
from rtbench.tuning import CPU_DMA_LATENCY_PATH, RT_RUNTIME_PATH

_READY_WAIT_S = 15.0
_DONE_WAIT_S = 10.0

# $1: lift RT throttling (1/0), $2: hold cpu_dma_latency (1/0). Says what it did as
# `@name words` lines; restores before saying anything, as stdout may be gone by then.
HOLDER = f"""
trap '' PIPE
rt={RT_RUNTIME_PATH} dma={CPU_DMA_LATENCY_PATH} orig=
echo "@holder $$"
if [ "$1" = 1 ]; then
  if [ ! -e $rt ]; then echo "@rt-skip $rt does not exist"
  elif ! orig=$(cat $rt 2>/dev/null); then orig=; echo "@rt-skip cannot read $rt"
  else
    case $orig in
    -1) orig=; echo "@rt-skip RT throttling is already lifted (sched_rt_runtime_us is -1)" ;;
    ''|*[!0-9-]*) orig=; echo "@rt-skip $rt does not hold a number" ;;
    *) if (echo -1 > $rt) 2>/dev/null; then echo "@rt-set $orig $(cat $rt 2>/dev/null)"
       else orig=; echo "@rt-skip no permission to write $rt (run as root)"; fi ;;
    esac
  fi
fi
if [ "$2" = 1 ]; then
  if [ ! -e $dma ]; then echo "@dma-skip $dma does not exist"
  elif [ ! -w $dma ] || ! (exec 3>$dma) 2>/dev/null; then
    echo "@dma-skip no permission to write $dma (run as root)"
  else
    before=$(od -An -td4 -N4 $dma 2>/dev/null | tr -d ' ')
    exec 3>$dma
    printf 0 >&3
    echo "@dma-set ${{before:-?}} $(od -An -td4 -N4 $dma 2>/dev/null | tr -d ' ')"
  fi
fi
echo "@ready"
while read -r _line; do :; done
if [ -n "$orig" ]; then
  if (echo "$orig" > $rt) 2>/dev/null; then said=rt-restored; else said=rt-unrestored; fi
fi
exec 3>&-
[ -n "$said" ] && echo "@$said"
echo "@done"
"""


def _number(text: str) -> int | None:
    with contextlib.suppress(ValueError):
        return int(text)
    return None


class SshTuning:
    """`base.Tuning` on an SSH target, held by one remote shell."""

    def __init__(self, link: SshLink, dma_latency: bool, lift_rt_throttle: bool) -> None:
        self._link = link
        self.dma_latency = dma_latency
        self.lift_rt_throttle = lift_rt_throttle
        self.changes: list[dict[str, Any]] = []
        self.skipped: list[dict[str, str]] = []
        self.holder_pid: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._applied = False
        self._rt: dict[str, Any] | None = None
        self._dma: dict[str, Any] | None = None

    # -- apply ---------------------------------------------------------------------------

    def apply(self) -> None:
        if self._applied:
            return
        self._applied = True
        if not (self.dma_latency or self.lift_rt_throttle):
            return
        self._start()

    def _asked(self) -> list[str]:
        asked = []
        if self.lift_rt_throttle:
            asked.append("sched_rt_runtime_us")
        if self.dma_latency:
            asked.append("cpu_dma_latency")
        return asked

    def _start(self) -> None:
        command = remote_shell(
            HOLDER, "1" if self.lift_rt_throttle else "0", "1" if self.dma_latency else "0"
        )
        if not self._link.alive():
            for setting in self._asked():
                self._skip(setting, self._link.why_down())
            return
        process = self._link.popen(command, stdin=subprocess.PIPE)
        self._process = process
        self._lines = queue.Queue()
        assert process.stdout is not None
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()
        end_by = time.monotonic() + _READY_WAIT_S
        while True:
            line = self._next(end_by)
            if line is None:
                self._stop_process()
                for setting in self._asked():
                    if not self._handled(setting):
                        self._skip(setting, "the target did not answer in time over SSH")
                return
            if line == "@ready":
                return
            self._take(line)

    def _read(self, pipe: IO[bytes]) -> None:
        try:
            for raw in pipe:
                self._lines.put(raw.decode("utf-8", errors="replace").strip())
        finally:
            self._lines.put(None)

    def _next(self, end_by: float) -> str | None:
        try:
            return self._lines.get(timeout=max(end_by - time.monotonic(), 0.0))
        except queue.Empty:
            return None

    def _handled(self, setting: str) -> bool:
        return any(c["setting"] == setting for c in self.changes) or any(
            s["setting"] == setting for s in self.skipped
        )

    def _skip(self, setting: str, reason: str) -> None:
        self.skipped.append({"setting": setting, "reason": reason})

    def _take(self, line: str) -> None:
        key, _, rest = line.partition(" ")
        words = rest.split()
        if key == "@holder" and words and words[0].isdigit():
            self.holder_pid = int(words[0])
        elif key == "@rt-skip":
            self._skip("sched_rt_runtime_us", rest)
        elif key == "@dma-skip":
            self._skip("cpu_dma_latency", rest)
        elif key == "@rt-set" and words:
            if self._rt is not None:  # held again after a reconnection
                return
            note = "RT throttling lifted for the run, on the target"
            if len(words) > 1 and words[1] != "-1":
                note += f"; the kernel still reports {words[1]}"
            self._rt = {
                "setting": "sched_rt_runtime_us",
                "original": _number(words[0]),
                "applied": -1,
                "restored": False,
                "note": note,
            }
            self.changes.append(self._rt)
        elif key == "@dma-set":
            if self._dma is not None:
                return
            note = (
                "held open for the run by a shell on the target; closing it withdraws the request"
            )
            if len(words) > 1 and words[1] not in ("0", "?"):
                note += f"; the kernel still reports {words[1]} µs"
            self._dma = {
                "setting": "cpu_dma_latency",
                "original": _number(words[0]) if words else None,
                "applied": 0,
                "restored": False,
                "note": note,
            }
            self.changes.append(self._dma)
        elif key == "@rt-restored" and self._rt is not None:
            self._rt["restored"] = True
        elif key == "@rt-unrestored" and self._rt is not None:
            self._rt["note"] = (
                f"could not write {self._rt['original']} back to {RT_RUNTIME_PATH} on the target"
            )

    # -- restore ---------------------------------------------------------------------------

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def restore(self) -> None:
        """Close the holder's input and collect what it put back. Never raises."""
        process = self._process
        if process is None:
            return
        try:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            end_by = time.monotonic() + _DONE_WAIT_S
            done = False
            while not done:
                line = self._next(end_by)
                if line is None:
                    break
                done = line == "@done"
                self._take(line)
            if done and self._dma is not None:
                self._dma["restored"] = True
            if not done:
                self._unconfirmed()
        except Exception:  # restore never raises; what is not confirmed says so
            self._unconfirmed()
        finally:
            self._stop_process()

    def _unconfirmed(self) -> None:
        for change in (self._rt, self._dma):
            if change is not None and not change["restored"]:
                change["note"] += (
                    "; not confirmed restored: the SSH session ended first (the target "
                    "restores it when it sees the session end)"
                )

    def renew(self) -> None:
        """After a reconnection: end the old holder (putting the RT runtime back) and
        hold the settings again through a new one."""
        if not self._applied or not (self.dma_latency or self.lift_rt_throttle):
            return
        old = self.holder_pid
        self._stop_process()
        if old is not None:
            script = (
                'tr "\\000" " " < /proc/"$1"/cmdline 2>/dev/null | grep -q "@holder" '
                '&& kill -KILL "$1" 2>/dev/null; '
                'if [ -n "$2" ]; then echo "$2" > "$3"; fi; true'
            )
            original = "" if self._rt is None else str(self._rt["original"])
            self._link.run(remote_shell(script, str(old), original, RT_RUNTIME_PATH))
        self.holder_pid = None
        self._start()
