# SPDX-License-Identifier: Apache-2.0
"""A Source for another Linux machine, read through commands it runs.

`CommandSource(run_command)` needs one callable that runs an argv on the target and
returns (exit status, stdout bytes): an SSH target passes one that runs
`ssh HOST -- <argv joined with shlex.join>`, a guest one that writes to its console.
The callable must bound its own wait (`subprocess_runner` builds one that does).

Only portable tools are used on the target (POSIX `sh`, `head`, `cat`, `ls`, `test`,
`uname`, `date`, `sleep`; `chrt` and `getconf` when present). Many files are read in one
command: the shell expands the glob patterns and one `head` prints every file after a
`==> path <==` header (POSIX head does so for several files), so one round trip brings
back a whole batch. Files are never read a byte at a time (as the shell's `read` does):
/proc/sys and some /sys files answer only a read from offset 0. Process facts (limits,
capabilities, SCHED_FIFO) are those of a process started through the same channel, which
is how the core will be started.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import signal
import subprocess
from collections.abc import Callable, Sequence

from rtbench.system import parse
from rtbench.system.source import ProcessFacts, Sample, Uname

RunCommand = Callable[[Sequence[str]], tuple[int, bytes]]

# Status a runner returns for a command that is missing (as sh does) or timed out.
STATUS_MISSING = 127
STATUS_TIMEOUT = 124
# Status of every command once the channel is known to be broken (nothing was run).
STATUS_BROKEN = 255

# The shell functions every batch script starts with. g PATH... gets what the shell
# expanded from the glob patterns (a pattern that matched nothing stays as it is); it
# marks paths that exist but are no readable file (-) and the files it will read (?),
# keeps those in "$@" (the for list is expanded once, so shifting and appending inside
# the loop is safe) and has head print them; a file head cannot open stays marked ?.
# s NAME starts a named section of command output; t NAME is a section with the time
# (date's nanoseconds where supported, else /proc/uptime).
_FUNCTIONS = r"""
g() {
  for f in "$@"; do
    shift
    if [ -f "$f" ] && [ -r "$f" ]; then set -- "$@" "$f"; printf '%s ? %s\n' "$m" "$f"
    elif [ -e "$f" ]; then printf '%s - %s\n' "$m" "$f"; fi
  done
  [ "$#" -eq 0 ] || head -n 1000000 -- /dev/null "$@" 2>/dev/null; printf '\n'
}
s() { printf '%s + :%s\n' "$m" "$1"; }
t() { s "$1"; date +%s%N 2>/dev/null; head -n 1 /proc/uptime 2>/dev/null; }
"""


def shell_word(pattern: str) -> str:
    """A pattern as a shell word: wildcards left to the shell, everything else quoted."""
    out: list[str] = []
    literal = ""
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "[":
            end = pattern.find("]", i + 1)
            body = pattern[i + 1 : end] if end > i else ""
            if end > i and re.fullmatch(r"[!^]?[A-Za-z0-9-]+", body):
                out.extend([shlex.quote(literal)] if literal else [])
                out.append(pattern[i : end + 1])
                literal, i = "", end + 1
                continue
        if char in ("*", "?"):
            out.extend([shlex.quote(literal)] if literal else [])
            out.append(char)
            literal, i = "", i + 1
            continue
        literal += char
        i += 1
    if literal:
        out.append(shlex.quote(literal))
    return "".join(out)


_HEADER = re.compile(r"==> (/.*) <==")


def parse_batch(text: str, marker: str) -> tuple[dict[str, str | None], bool]:
    """The files (and ':sections') of a batch script's output, and whether it ended.

    A file starts at head's `==> path <==` header, a section at a `MARKER + :name`
    line; `MARKER - path` is a path that exists but is no readable file, `MARKER ? path`
    a file to be read (it stays None if head prints nothing of it)."""
    files: dict[str, str | None] = {}
    current: str | None = None
    lines: list[str] = []
    complete = False

    def close() -> None:
        if current is not None and current != "/dev/null":
            files[current] = "\n".join(lines).strip()

    for line in text.split("\n"):
        header = _HEADER.fullmatch(line)
        if header is None and not line.startswith(marker + " "):
            if current is not None:
                lines.append(line)
            continue
        close()
        current, lines = None, []
        if header is not None:
            current = header.group(1)
            continue
        kind, _, path = line[len(marker) + 1 :].partition(" ")
        if kind == "+":
            current = path
        elif kind in ("-", "?"):
            files[path] = None
        elif kind == "end":
            complete = True
    close()
    return files, complete


def subprocess_runner(
    prefix: Sequence[str] = (), timeout_s: float = 30.0, join: bool = False
) -> RunCommand:
    """A RunCommand that runs `prefix + argv` here; after `timeout_s` (or on Ctrl-C) it
    kills the command and everything it started (its own process group).

    With `join`, argv is passed as one shell-quoted string (what `ssh HOST --` needs,
    since the remote shell splits its command line again)."""

    def run(argv: Sequence[str]) -> tuple[int, bytes]:
        command = [*prefix, shlex.join(argv)] if join else [*prefix, *argv]
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            return STATUS_MISSING, b""
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            return STATUS_TIMEOUT, b""
        except BaseException:
            _kill_group(proc)
            raise
        return proc.returncode, out

    return run


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()  # the whole group is gone, so the pipe is closed


class CommandSource:
    """A Linux system reached by running commands on it (SSH, a guest's console).

    When a batch script comes back without its end marker, the channel is taken as
    broken: from then on every answer is unknown without asking again, so a dead
    connection costs one wait, not one per file. Make a new source after reconnecting.
    """

    def __init__(self, run_command: RunCommand) -> None:
        self.run_command = run_command
        self.broken = False

    # ---- single files and commands ------------------------------------------------

    def _run(self, argv: Sequence[str]) -> tuple[int, bytes]:
        if self.broken:
            return STATUS_BROKEN, b""
        return self.run_command(argv)

    def _sh(self, script: str, *args: str) -> tuple[int, bytes]:
        return self._run(["sh", "-c", script, "sh", *args])

    def _script(self, body: str) -> tuple[str, str]:
        """Run a batch script; its output and its marker."""
        marker = "RTB" + secrets.token_hex(8)
        script = f"m={marker}\n{_FUNCTIONS}\n{body}\nprintf '%s end\\n' \"$m\"\n"
        _status, out = self._sh(script)
        text = out.decode("utf-8", errors="replace")
        if f"\n{marker} end\n" not in "\n" + text:
            self.broken = True
        return text, marker

    def _batch(self, body: str) -> tuple[dict[str, str | None], bool]:
        text, marker = self._script(body)
        return parse_batch(text, marker)

    def read(self, path: str) -> str | None:
        files, _complete = self._batch(f"g {shlex.quote(path)}")
        return files.get(path)

    def read_bytes(self, path: str) -> bytes | None:
        status, out = self._run(["cat", "--", path])
        return out if status == 0 else None

    def listdir(self, path: str) -> list[str] | None:
        status, out = self._run(["ls", "-1A", "--", path])
        if status != 0:
            return None
        return [n for n in out.decode("utf-8", errors="replace").split("\n") if n]

    def exists(self, path: str) -> bool:
        return self._sh('test -e "$1"', path)[0] == 0

    def writable(self, path: str) -> bool:
        return self._sh('test -w "$1"', path)[0] == 0

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        script = (
            'command -v "$1" >/dev/null 2>&1 || exit 127\n'
            "t=$2; shift 2\n"
            'if command -v timeout >/dev/null 2>&1; then exec timeout "$t" "$@" 2>&1; fi\n'
            'exec "$@" 2>&1'
        )
        status, out = self._sh(script, argv[0], f"{timeout_s:g}", *argv)
        if status in (STATUS_MISSING, STATUS_TIMEOUT, STATUS_BROKEN, 126):
            return None
        return out.decode("utf-8", errors="replace").strip() or None

    # ---- batches --------------------------------------------------------------------

    def read_many(self, patterns: Sequence[str]) -> dict[str, str | None] | None:
        if not patterns:
            return {}
        files, complete = self._batch("g " + " ".join(shell_word(p) for p in patterns))
        return files if complete else None

    def sample(self, patterns: Sequence[str], window_s: float) -> Sample | None:
        words = " ".join(shell_word(p) for p in patterns)
        body = (
            f's pids; printf \'%s %s\\n\' "$$" "$PPID"\n'
            "s hz; getconf CLK_TCK 2>/dev/null\n"
            f"s before; g {words}\n"
            f"t start; sleep {window_s:g} 2>/dev/null || sleep 1\n"
            f"s after; g {words}\nt end"
        )
        text, marker = self._script(body)
        head, sep, rest = text.partition(f"{marker} + :after\n")
        before, _ = parse_batch(head, marker)
        after, complete = parse_batch(sep + rest, marker)
        window = _elapsed(before.pop(":start", None), after.pop(":end", None))
        if not (sep and complete) or window is None:
            return None
        pids = {int(p) for p in (before.pop(":pids", None) or "").split() if p.isdigit()}
        hz = parse.first_int(before.pop(":hz", None))
        before.pop(":before", None)
        after.pop(":after", None)
        return Sample(before, after, window, frozenset(pids), hz)

    # ---- identity and process facts -------------------------------------------------

    def uname(self) -> Uname:
        files, _complete = self._batch(
            "".join(f"s {flag}; uname -{flag}\n" for flag in ("s", "n", "r", "v", "m"))
        )
        return Uname(*(files.get(f":{flag}") or None for flag in ("s", "n", "r", "v", "m")))

    def affinity(self) -> list[int] | None:
        status = self.read("/proc/self/status")
        return parse.parse_cpu_list(parse.status_field(status, "Cpus_allowed_list"))

    def process(self) -> ProcessFacts:
        files, _complete = self._batch(
            "g /proc/self/status /proc/self/limits /proc/self/stat\n"
            "s fifo; if command -v chrt >/dev/null 2>&1; then chrt -f 1 true 2>&1 && echo ok; "
            "else echo missing; fi\n"
            "s fifomax; chrt -m 2>/dev/null\n"
            "s glibc; getconf GNU_LIBC_VERSION 2>/dev/null\n"
            's musl; for l in /lib/ld-musl-*.so.1; do [ -e "$l" ] && "$l" 2>&1; break; done'
        )
        status = files.get("/proc/self/status")
        limits = parse.parse_limits(files.get("/proc/self/limits"))
        uid, euid = parse.parse_uids(status)
        fifo, error = _fifo_outcome(files.get(":fifo"))
        name, version = parse.parse_gnu_libc(files.get(":glibc"))
        if name is None and files.get(":musl"):
            name, version = "musl", parse.parse_musl_version(files.get(":musl"))
        return ProcessFacts(
            uid=uid,
            euid=euid,
            cap_eff=parse.parse_capabilities(status),
            rlimit_rtprio=limits["rtprio"],
            rlimit_memlock=limits["memlock"],
            rlimit_rttime=limits["rttime"],
            sched_fifo=fifo,
            sched_fifo_error=error,
            fifo_priority_max=parse.parse_fifo_max(files.get(":fifomax")),
            policy=parse.parse_process_policy(files.get("/proc/self/stat")),
            libc_name=name,
            libc_version=version,
        )


def _fifo_outcome(text: str | None) -> tuple[bool | None, str | None]:
    """What `chrt -f 1 true` said: allowed, refused (with the system's reason), unknown."""
    if text is None:
        return None, "the target did not answer"
    if text == "ok":
        return True, None
    if text == "missing":
        return None, "chrt is not installed on the target, so SCHED_FIFO was not tried"
    reason = text.strip().splitlines()[-1] if text.strip() else "chrt failed"
    return False, reason.rsplit(": ", 1)[-1]


def _elapsed(start: str | None, end: str | None) -> float | None:
    """Seconds between two `t` stamps (a line of `date +%s%N`, then /proc/uptime's):
    date's nanoseconds where it has them, else the uptime (10 ms resolution)."""
    if start is None or end is None:
        return None
    first, last = start.strip().split("\n"), end.strip().split("\n")
    ns = [lines[0].strip() for lines in (first, last)]
    if len(first) == len(last) == 2 and all(len(n) > 12 and n.isdigit() for n in ns):
        return (int(ns[1]) - int(ns[0])) / 1e9
    try:
        return float(last[-1].split()[0]) - float(first[-1].split()[0])
    except (ValueError, IndexError):
        return None
