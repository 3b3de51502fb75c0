# SPDX-License-Identifier: Apache-2.0
"""A labgrid coordinator, spoken to through `labgrid-client`.

rtbench drives labgrid through its command-line client rather than importing
it: the client is labgrid's stable interface (its Python session class belongs
to the client's own implementation), each call runs in its own process, so
labgrid's gRPC threads and asyncio loop never meet rtbench's signal handling
and threads, and every call is bounded by a timeout here. The cost is under a
second per call, paid only when a place is reserved, acquired, released
or power-cycled.

`Lab` knows one coordinator (`-x HOST:PORT`) and the user rtbench acts as
(labgrid's own `host/user`, from LG_HOSTNAME/LG_USERNAME like labgrid-client).
`show` reads a place: its tags, who holds it and its resources with their
parameters (`labgrid-client show` prints each resource as a Python literal).
Every failure is a UsageError or RtbenchError in one sentence.
"""

from __future__ import annotations

import ast
import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError, UsageError

CLIENT_ENV = "RTBENCH_LABGRID_CLIENT"  # the labgrid-client to use (a path)
COORDINATOR_ENV = "LG_COORDINATOR"
DEFAULT_COORDINATOR = "127.0.0.1:20408"  # labgrid-client's own default
INSTALL = ".venv/bin/python -m pip install --require-hashes -r requirements/labgrid.txt"
# How long one labgrid-client call may take: a Python program that starts, talks
# to the coordinator and ends, which on a loaded 2-CPU machine was seen to take
# over 60 s (a release that then failed left the place held for the next run)
CALL_TIMEOUT_S = 120.0
POWER_DELAY_S = 2.0  # off, this long, on (labgrid's own default for a cycle)
_POLL_S = 0.2
# what labgrid-client's environment may hold that would make it act on another place
_DROPPED_ENV = ("LG_PLACE", "LG_TOKEN", "LG_ENV", "LG_STATE", "LG_INITIAL_STATE")


def client_path() -> str | None:
    """labgrid-client: RTBENCH_LABGRID_CLIENT, else the one installed beside this
    Python (rtbench's virtual environment), else the first on PATH."""
    given = os.environ.get(CLIENT_ENV)
    if given:
        return given if os.access(given, os.X_OK) and Path(given).is_file() else None
    beside = Path(sys.executable).parent / "labgrid-client"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("labgrid-client")


def ready() -> str | None:
    """None when labgrid-client can be run, else how to get it."""
    if client_path() is None:
        return f"labgrid is not installed (run {INSTALL})"
    return None


def identity() -> str:
    """Who rtbench acts as in the lab: labgrid's `host/user`."""
    host = os.environ.get("LG_HOSTNAME") or socket.gethostname()
    user = os.environ.get("LG_USERNAME") or getpass.getuser()
    return f"{host}/{user}"


@dataclass(frozen=True)
class Resource:
    """One resource of a place, as the coordinator has it from its exporter."""

    exporter: str
    group: str
    cls: str
    name: str
    params: dict[str, Any]
    extra: dict[str, Any]


@dataclass(frozen=True)
class Place:
    """What `labgrid-client show` says about a place."""

    name: str
    aliases: tuple[str, ...] = ()
    tags: dict[str, str] = field(default_factory=dict)
    holder: str | None = None  # "host/user" holding it, None when free
    reservation: str | None = None
    resources: tuple[Resource, ...] = ()

    def find(self, *classes: str) -> Resource | None:
        """The first resource of one of `classes`, in that order."""
        for cls in classes:
            for resource in self.resources:
                if resource.cls == cls:
                    return resource
        return None

    def exporters(self) -> list[str]:
        return sorted({r.exporter for r in self.resources})


def parse_show(text: str) -> Place:
    """A place from `labgrid-client -p NAME show`; RtbenchError when unreadable."""
    name: str | None = None
    values: dict[str, str] = {}
    resources: list[Resource] = []
    header: tuple[str, ...] | None = None
    literal: list[str] = []

    def flush() -> None:
        if header is None:
            return
        try:
            data = ast.literal_eval("\n".join(literal))
        except (ValueError, SyntaxError):
            data = {}
        params = dict(data.get("params") or {}) if isinstance(data, dict) else {}
        extra = params.pop("extra", None) or {}
        exporter, group, cls, rname = header
        resources.append(Resource(exporter, group, cls, rname, params, dict(extra)))

    for line in text.splitlines():
        if line.startswith("Place '") and line.endswith("':"):
            name = line[len("Place '") : -2]
        elif line.startswith(("Acquired resource '", "Matching resource '")):
            flush()
            path = line[line.rfind("(") + 1 : line.rfind(")")].split("/")
            header = tuple(path) if len(path) == 4 else None
            literal = []
        elif header is not None and line.startswith("  "):
            literal.append(line)
        elif line.startswith("  ") and not line.startswith("    ") and ":" in line:
            key, _, value = line.strip().partition(":")
            values.setdefault(key, value.strip())
    flush()
    if name is None:
        raise RtbenchError("labgrid-client answered something rtbench cannot read.")
    tags = {}
    for pair in values.get("tags", "").split(", "):
        key, sep, value = pair.partition("=")
        if sep:
            tags[key] = value
    holder = values.get("acquired")
    reservation = values.get("reservation")
    return Place(
        name=name,
        aliases=tuple(a for a in values.get("aliases", "").split(", ") if a),
        tags=tags,
        holder=None if holder in (None, "", "None") else holder,
        reservation=reservation or None,
        resources=tuple(resources),
    )


def _said(done: subprocess.CompletedProcess[str]) -> str:
    """What a failed labgrid-client call said, in a few words."""
    lines = [ln.strip() for ln in (done.stderr + done.stdout).splitlines() if ln.strip()]
    errors = [ln for ln in lines if "rror:" in ln]
    text = (errors or lines or [f"exit status {done.returncode}"])[-1]
    for prefix in ("labgrid-client: Error: ", "Server error: Error: ", "Error: "):
        text = text.split(prefix, 1)[-1]
    return text.strip().rstrip(".")


class Lab:
    """One labgrid coordinator, as rtbench's user."""

    def __init__(self, coordinator: str | None) -> None:
        self.coordinator = coordinator or os.environ.get(COORDINATOR_ENV) or DEFAULT_COORDINATOR
        self.me = identity()

    def _env(self, token: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
        env["LG_COORDINATOR"] = self.coordinator
        if token is not None:
            env["LG_TOKEN"] = token
        return env

    def _argv(self, args: tuple[str, ...]) -> list[str]:
        client = client_path()
        if client is None:
            raise UsageError(f"labgrid is not installed (run {INSTALL}).")
        return [client, "-x", self.coordinator, *args]

    def call(
        self, *args: str, token: str | None = None, timeout_s: float = CALL_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        """labgrid-client with `args`; UsageError when the coordinator cannot be reached."""
        try:
            done = subprocess.run(
                self._argv(args),
                env=self._env(token),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
                start_new_session=True,  # a Ctrl-C is rtbench's to handle, not the client's
            )
        except subprocess.TimeoutExpired:
            raise RtbenchError(
                f"The labgrid coordinator at {self.coordinator} did not answer "
                f"`labgrid-client {args[-1]}` within {timeout_s:.0f} s."
            ) from None
        except OSError as e:
            raise UsageError(f"Cannot run labgrid-client: {e.strerror or e}.") from None
        if done.returncode != 0 and "connect to coordinator" in done.stderr + done.stdout:
            raise UsageError(
                f"No labgrid coordinator answers at {self.coordinator} (set {COORDINATOR_ENV} "
                "or give coordinator=HOST:PORT in the target)."
            )
        return done

    def must(self, *args: str, what: str, token: str | None = None) -> str:
        """A call that has to work: its output, or RtbenchError saying `what` failed."""
        done = self.call(*args, token=token)
        if done.returncode != 0:
            raise RtbenchError(f"Cannot {what} in the lab at {self.coordinator}: {_said(done)}.")
        return done.stdout

    # -- places ----------------------------------------------------------------------

    def show(self, place: str, token: str | None = None) -> Place:
        """The place named `place` (or `+` with a reservation's token), UsageError when
        the lab has none of that name."""
        done = self.call("-p", place, "show", token=token)
        if done.returncode != 0:
            said = _said(done)
            if "matches nothing" in said or "matches multiple" in said:
                raise UsageError(
                    f"The labgrid coordinator at {self.coordinator} has no place named "
                    f"'{place}' (see `labgrid-client places`)."
                )
            raise RtbenchError(f"Cannot read the place {place} at {self.coordinator}: {said}.")
        found = parse_show(done.stdout)
        if place not in ("+", found.name, *found.aliases):
            raise UsageError(
                f"The labgrid coordinator at {self.coordinator} has no place named '{place}' "
                f"(only '{found.name}' contains it; give the whole name)."
            )
        return found

    def acquire(self, place: str) -> None:
        done = self.call("-p", place, "acquire")
        if done.returncode != 0:
            said = _said(done)
            if "already acquired by" in said:
                holder = said.split("already acquired by ", 1)[1].split(". To work", 1)[0]
                raise UsageError(
                    f"The labgrid place {place} is held by {holder}; wait until it is "
                    "released, or reserve by tags to wait for it."
                )
            if "not reserved for" in said:
                raise UsageError(
                    f"The labgrid place {place} is reserved for another user; wait until the "
                    "reservation ends, or reserve by tags to wait for it."
                )
            raise RtbenchError(f"Cannot acquire the labgrid place {place}: {said}.")

    def release(self, place: str) -> str | None:
        """Release a place rtbench acquired; what went wrong, or None. Never raises."""
        try:
            done = self.call("-p", place, "release")
        except RtbenchError as e:
            return str(e)
        return None if done.returncode == 0 else _said(done)

    def power_cycle(self, place: str, delay_s: float = POWER_DELAY_S) -> None:
        self.must("-p", place, "power", "cycle", "-t", f"{delay_s:g}", what=f"power-cycle {place}")

    # -- reservations --------------------------------------------------------------------

    def reserve(self, filters: dict[str, str]) -> str:
        """A reservation of one place matching `filters`; its token."""
        pairs = [f"{k}={v}" for k, v in filters.items()]
        out = self.must("reserve", "--shell", *pairs, what="reserve a place")
        for line in out.splitlines():
            if line.startswith("export LG_TOKEN="):
                return line.split("=", 1)[1].strip()
        raise RtbenchError(f"labgrid-client reserve gave no token at {self.coordinator}.")

    def wait(self, token: str, limit_s: float, cancelled: threading.Event) -> bool:
        """Wait until the reservation is allocated a place: True; False when `limit_s`
        passed first. KeyboardInterrupt (or `cancelled`) ends the wait at once."""
        process = subprocess.Popen(
            self._argv(("wait", token)),
            env=self._env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        end_by = time.monotonic() + limit_s
        try:
            while process.poll() is None:
                if cancelled.is_set():
                    raise KeyboardInterrupt
                if time.monotonic() > end_by:
                    return False
                time.sleep(_POLL_S)
            if process.returncode != 0:
                said = (process.stderr.read() if process.stderr else "").strip().splitlines()
                raise RtbenchError(
                    f"Waiting for a labgrid reservation at {self.coordinator} failed: "
                    f"{said[-1] if said else f'exit status {process.returncode}'}."
                )
            return True
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                # killed, it cannot go on; a loaded machine may take a while to
                # end it, which is no reason for a traceback instead of the
                # interruption's own exit
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=60)
            if process.stderr is not None:
                process.stderr.close()

    def cancel(self, token: str) -> None:
        """Cancel a reservation; never raises."""
        with contextlib.suppress(RtbenchError):
            self.call("cancel-reservation", token)
