# SPDX-License-Identifier: Apache-2.0
"""A board in a shared lab, reserved through labgrid: `labgrid:PLACE` or
`labgrid:tags:KEY=VALUE[,KEY=VALUE...]`, each with `,coordinator=HOST:PORT` and
`,wait=SECONDS`.

`open` finds the place (by name, or by a reservation that waits up to `wait`
seconds for a free place carrying the tags; a named place with `wait=` is
reserved by its name the same way), acquires it unless the user already holds
it, and reads its resources from the coordinator:

- a NetworkService becomes an SSH target (targets.ssh.target) to its address, port and
  user, with rtbench's own client options and host-key checking;
- a NetworkSerialPort becomes the serial link of a board flashed with an rtbench
  image (targets.firmware.serial, `socket://host:port` for raw TCP, `rfc2217://host:port`
  for what the exporter's ser2net serves), and a NetworkPowerPort (or
  another power resource labgrid's `power` command drives) lets `recover`
  power-cycle a hung board: the lost unit is recorded, the next one runs on a
  fresh boot.

`close` releases only what rtbench acquired, on every path: the run command
closes its targets in `finally`, SIGTERM and SIGHUP raise KeyboardInterrupt in
the main thread while the target is open (the runner takes them over while it
measures), and a run of several targets at once cancels a waiting reservation
when a signal stops the run (`cancel`). Results record the coordinator, the
place, its exporters and tags in `target_info.labgrid`.

labgrid (PyPI) is an optional dependency: requirements/labgrid.txt.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from typing import Any

from rtbench.errors import RtbenchError, UsageError
from rtbench.targets.base import Say, Target, Tracing, Tuning
from rtbench.targets.lab.client import Lab, Place, Resource, ready
from rtbench.transport import Transport

DEFAULT_WAIT_S = 300.0  # how long a reservation waits for a free place
_TAG = re.compile(r"[a-z][a-z0-9_]+")  # labgrid's own rule for a tag's key
_TAG_VALUE = re.compile(r"[A-Za-z0-9_.\-]+")
_COORDINATOR = re.compile(r"[A-Za-z0-9_.\-\[\]:]+:\d{1,5}")
_SERIAL = ("NetworkSerialPort",)
_SERVICE = ("NetworkService",)
_POWER = (
    "NetworkPowerPort",
    "PDUDaemonPort",
    "TasmotaPowerPort",
    "NetworkUSBPowerPort",
    "NetworkSiSPMPowerPort",
    "NetworkYKUSHPowerPort",
)
_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _interrupt(signo: int, _frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signo).name)


class LabgridTarget:
    """A place in a labgrid lab, measured as the SSH or serial target its resources
    make; every Target call after `open` goes to that inner target."""

    kind = "labgrid"
    runs_here = False

    def __init__(self, spec: str, libc: str = "glibc") -> None:
        self.spec = spec
        self.libc = libc
        self.place_name, self.filters, coordinator, self.wait_s = parse_spec(spec)
        self.lab = Lab(coordinator)
        self.place: Place | None = None
        self.acquired = False  # by rtbench, so rtbench releases it
        self.power_cycles = 0
        self.inner: Target | None = None
        self._token: str | None = None
        self._cancelled = threading.Event()
        self._previous: dict[int, Any] = {}

    # -- open and close ----------------------------------------------------------------

    def open(self, say: Say) -> None:
        problem = ready()
        if problem is not None:
            raise UsageError(f"The {self.spec} target cannot be used here: {problem}.")
        self._take_signals()
        try:
            self._hold(say)
            self.inner = self._make_inner()
            self.inner.open(say)
        except BaseException:
            self.close()
            raise

    def _hold(self, say: Say) -> None:
        """Reserve or find the place, and acquire it unless the user holds it."""
        if self.filters is not None:
            self._reserve(self.filters, say)
            return
        assert self.place_name is not None
        place = self.lab.show(self.place_name)
        if place.holder == self.lab.me:
            say(f"rtbench: using the labgrid place {place.name}, which you hold already")
            self.place = place
            return
        if self.wait_s is not None:
            self._reserve({"name": place.name}, say)  # the scheduler knows places by name
            return
        if place.holder is not None:
            raise UsageError(
                f"The labgrid place {place.name} is held by {place.holder}; wait until it is "
                f"released, or add wait=SECONDS to wait for it."
            )
        say(f"rtbench: acquiring the labgrid place {place.name} at {self.lab.coordinator}")
        self.lab.acquire(place.name)
        self.acquired = True
        self.place = self.lab.show(place.name)

    def _reserve(self, filters: dict[str, str], say: Say) -> None:
        wanted = ", ".join(f"{k}={v}" for k, v in filters.items())
        limit = DEFAULT_WAIT_S if self.wait_s is None else self.wait_s
        say(
            f"rtbench: reserving a labgrid place with {wanted} at {self.lab.coordinator} "
            f"(waiting up to {limit:g} s)"
        )
        self._token = self.lab.reserve(filters)
        if not self.lab.wait(self._token, limit, self._cancelled):
            raise UsageError(
                f"No labgrid place with {wanted} became free at {self.lab.coordinator} within "
                f"{limit:g} s (see `labgrid-client -v places`; wait=SECONDS waits longer)."
            )
        place = self.lab.show("+", token=self._token)
        self.lab.acquire(f"+{self._token}")
        self.acquired = True
        # the place is held now; the reservation would otherwise keep it from others
        # for a while after the release
        self.lab.cancel(self._token)
        self._token = None
        self.place = self.lab.show(place.name)
        say(f"rtbench: acquired the labgrid place {place.name}")

    def _make_inner(self) -> Target:
        assert self.place is not None
        service = self.place.find(*_SERVICE)
        serial = self.place.find(*_SERIAL)
        if service is not None:
            return self._ssh(service)
        if serial is not None:
            return self._serial(serial)
        classes = ", ".join(sorted({r.cls for r in self.place.resources})) or "none"
        raise UsageError(
            f"The labgrid place {self.place.name} has neither a NetworkService nor a "
            f"NetworkSerialPort, so rtbench cannot reach its board (its resources: {classes})."
        )

    def _ssh(self, service: Resource) -> Target:
        from rtbench.targets.ssh.target import SshTarget  # noqa: PLC0415

        user = str(service.params.get("username") or "root")
        address = str(service.params.get("address") or "")
        port = int(service.params.get("port") or 22)
        host = f"[{address}]" if ":" in address else address
        extra: list[str] = []
        proxy = _proxy(service)
        if proxy is not None:
            extra = ["-J", proxy]
        return SshTarget(f"ssh://{user}@{host}:{port}", libc=self.libc, extra_options=extra)

    def _serial(self, serial: Resource) -> Target:
        from rtbench.targets.firmware.serial import SerialTarget  # noqa: PLC0415

        assert self.place is not None
        # the exporter's ser2net serves a local UART with RFC 2217 (labgrid's default);
        # a port already on the network is often raw TCP: pyserial opens both by URL
        protocol = str(serial.params.get("protocol") or "rfc2217")
        if protocol not in ("raw", "rfc2217"):
            raise UsageError(
                f"The serial port of the labgrid place {self.place.name} speaks {protocol}; "
                "rtbench reads raw TCP and RFC 2217 serial ports."
            )
        host = str(serial.params.get("host") or "")
        port = int(serial.params.get("port") or 0)
        scheme = "socket" if protocol == "raw" else "rfc2217"
        proxy = _proxy(serial)
        if proxy is not None:
            raise UsageError(
                f"The serial port of the labgrid place {self.place.name} is reachable only "
                f"through the proxy {proxy}, which rtbench cannot use for a serial port; "
                f"tunnel it (ssh -N -L 4001:{host}:{port} {proxy}), acquire the place with "
                f"labgrid-client and use --target serial:{scheme}://localhost:4001."
            )
        url = f"{scheme}://{host}:{port}"
        return SerialTarget(
            self.spec,
            libc=self.libc,
            url=url,
            baud=int(serial.params.get("speed") or 0) or None,
            where=f"{url} (labgrid place {self.place.name})",
        )

    def close(self) -> None:
        try:
            if self.inner is not None:
                self.inner.close()
        finally:
            try:
                if self._token is not None:
                    self.lab.cancel(self._token)
                    self._token = None
                if self.acquired and self.place is not None:
                    self.acquired = False
                    problem = self.lab.release(self.place.name)
                    if problem is not None:
                        raise RtbenchError(
                            f"Cannot release the labgrid place {self.place.name}: {problem} "
                            f"(release it with labgrid-client -p {self.place.name} release)."
                        )
            finally:
                self._give_back_signals()

    def cancel(self) -> None:
        """Stop waiting for a reservation (a signal stopped a run of several targets)."""
        self._cancelled.set()

    def _take_signals(self) -> None:
        """SIGTERM and SIGHUP end a wait or a run as Ctrl-C does, so `close` releases
        the place (only the main thread can take signals)."""
        if threading.current_thread() is not threading.main_thread() or self._previous:
            return
        self._previous = {signo: signal.signal(signo, _interrupt) for signo in _SIGNALS}

    def _give_back_signals(self) -> None:
        previous, self._previous = self._previous, {}
        for signo, handler in previous.items():
            signal.signal(signo, handler)

    # -- the Target protocol, through the inner target -------------------------------------

    def _opened(self) -> Target:
        if self.inner is None:
            raise RtbenchError(f"The target {self.spec} is not open.")
        return self.inner

    def shares_host_cpus(self) -> bool:
        return False  # a board in the lab

    def tracing(self) -> Tracing | None:
        # known only once the place's resources are read: an SSH board offers a kernel
        # trace, a serial board none
        return None if self.inner is None else self.inner.tracing()

    def transport(self) -> Transport:
        return self._opened().transport()

    def check_cpu(self, cpu: int | None) -> int:
        return self._opened().check_cpu(cpu)

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        snap = self._opened().snapshot(cpu, cpu_given)
        snap["labgrid"] = self._recorded()
        return snap

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return self._opened().caveats(snap)

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        text = self._opened().render_snapshot(snap, cavs)
        place = self.place.name if self.place else "?"
        return text.rstrip("\n") + f"\n  labgrid place: {place} at {self.lab.coordinator}\n"

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> Tuning:
        return self._opened().tuning(dma_latency, lift_rt_throttle, cpu)

    def recover(self, say: Say) -> bool:
        inner = self._opened()
        power = self.place.find(*_POWER) if self.place else None
        if power is None or self.place is None or self.place.find(*_SERIAL) is None:
            return inner.recover(say)
        inner.close()
        say(f"rtbench: power-cycling the board of the labgrid place {self.place.name}")
        try:
            self.lab.power_cycle(self.place.name)
        except RtbenchError as e:
            say(f"rtbench: {e}")
            return False
        self.power_cycles += 1
        return inner.recover(say)

    def _recorded(self) -> dict[str, Any]:
        place = self.place
        return {
            "coordinator": self.lab.coordinator,
            "place": place.name if place else self.place_name,
            "exporters": place.exporters() if place else [],
            "tags": dict(place.tags) if place else {},
            "reserved_with": self.filters,
            "resources": sorted({r.cls for r in place.resources}) if place else [],
            "acquired_by_rtbench": self.acquired,
            "user": self.lab.me,
            "power_cycles": self.power_cycles,
        }

    def describe(self) -> dict[str, Any]:
        info = self.inner.describe() if self.inner is not None else {}
        info["board_kind"] = info.get("kind")
        info.update(kind=self.kind, spec=self.spec, labgrid=self._recorded())
        return info


def parse_spec(
    spec: str,
) -> tuple[str | None, dict[str, str] | None, str | None, float | None]:
    """(place, tags, coordinator, wait) of a `labgrid:` target, or UsageError."""
    usage = (
        f"Cannot read the target '{spec}' (write labgrid:PLACE or labgrid:tags:KEY=VALUE"
        "[,KEY=VALUE...], each with optional ,coordinator=HOST:PORT and ,wait=SECONDS)."
    )
    body = spec.removeprefix("labgrid:")
    first, *rest = body.split(",")
    place: str | None = None
    tags: dict[str, str] | None = None
    if first.startswith("tags:"):
        tags = {}
        rest = [first.removeprefix("tags:"), *rest]
    elif first and "=" not in first and re.fullmatch(r"[A-Za-z0-9_.\-]+", first):
        place = first
    else:
        raise UsageError(usage)
    coordinator: str | None = None
    wait: float | None = None
    for pair in rest:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(usage)
        if key == "coordinator":
            if not _COORDINATOR.fullmatch(value):
                raise UsageError(f"The coordinator in '{spec}' is not HOST:PORT.")
            coordinator = value
        elif key == "wait":
            try:
                wait = float(value)
            except ValueError:
                wait = -1.0
            if not 0 <= wait <= 86400:
                raise UsageError(f"wait= in '{spec}' takes seconds, from 0 to 86400.")
        elif tags is not None:
            if not _TAG.fullmatch(key) or not _TAG_VALUE.fullmatch(value):
                raise UsageError(
                    f"The tag '{pair}' in '{spec}' is not one labgrid accepts (a key of two or "
                    "more lower-case letters, digits and '_'; a value of letters, digits, "
                    "'_', '.' and '-')."
                )
            tags[key] = value
        else:
            raise UsageError(
                f"Unknown option '{pair}' in '{spec}' (it takes coordinator= and wait=)."
            )
    if tags is not None and not tags:
        raise UsageError(usage)
    return place, tags, coordinator, wait


def _proxy(resource: Resource) -> str | None:
    """The host through which the resource must be reached, if any: LG_PROXY, as for
    labgrid's own client, else the proxy the exporter says the resource needs."""
    forced = os.environ.get("LG_PROXY")
    if forced:
        return forced
    if resource.extra.get("proxy_required") and resource.extra.get("proxy"):
        return str(resource.extra["proxy"])
    return None
