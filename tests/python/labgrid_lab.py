# SPDX-License-Identifier: Apache-2.0
"""A labgrid lab on this machine's loopback, for the `labgrid:` target's tests.

`Lab` starts `labgrid-coordinator` and one `labgrid-exporter` on free loopback
ports, in a private folder (the coordinator keeps its places there), and makes
places with `labgrid-client`:

- `linux` (tags board=linux): a NetworkService whose address is the sshd of
  sshd_netns in its network namespace (reached from here through the veth pair,
  like any board on the lab's network);
- `freertos` (tags board=freertos): a NetworkSerialPort (raw TCP) and a
  NetworkPowerPort of labgrid's `simplerest` model. The port is served by a small
  relay in front of QEMU running the FreeRTOS image with its UART on a TCP
  socket; the power switch is a small HTTP server that starts QEMU when switched
  on and kills it when switched off.
- `freertos-rfc2217` (tags board=freertos-rfc2217), when ser2net is installed:
  the same with labgrid's default protocol, RFC 2217, served as in a real lab: a
  second QEMU has its UART on a pseudo-terminal, which ser2net serves
  (ser2net_serve); the same kind of relay in front of ser2net only passes the
  bytes on, so that a board can be made to hang at a chosen request.

`hang_on(word, place)` freezes the place's board (QEMU's monitor `stop`) the
first time rtbench sends a request naming `word`, as a board that hangs in a
scenario would; only a power cycle brings it back. `stop()` ends everything it started
and removes nothing it did not make; it is safe to call twice.

Run it by hand to try rtbench against it (prints LG_COORDINATOR and
RTBENCH_SSH_OPTIONS, waits for Enter)::

    python3 tests/python/labgrid_lab.py
"""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Protocol

import ser2net_serve
from ser2net_serve import BOARD_NICE, PtyBoard, Ser2net, SwitchedQemu, free_port

BIN = Path(sys.executable).parent
CLIENT = BIN / "labgrid-client"
EXPORTER_NAME = "rtbench-lab"
RFC2217_PLACE = "freertos-rfc2217"
QEMU_BOOT_S = 20.0


def why_unusable() -> str | None:
    """Why the lab cannot run here, or None."""
    for tool in ("labgrid-coordinator", "labgrid-exporter", "labgrid-client"):
        if not (BIN / tool).is_file():
            return (
                f"{tool} is not installed (python -m pip install --require-hashes "
                "-r requirements/labgrid.txt)"
            )
    return None


def _wait_port(port: int, process: subprocess.Popen[bytes] | None, what: str, log: Path) -> None:
    end_by = time.monotonic() + 20
    while time.monotonic() < end_by:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} ended: {log.read_text(errors='replace')[-800:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port} within 20 s")


def _end(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


class Board(SwitchedQemu):
    """QEMU running the FreeRTOS image, its UART on a TCP port, switched on and off."""

    def __init__(self, image: Path, folder: Path) -> None:
        super().__init__(image, folder)
        self.uart_port = free_port()

    def on(self) -> None:
        with self._lock:
            self.switches.append("on")
            if self.process is not None and self.process.poll() is None:
                return
            self.monitor.unlink(missing_ok=True)
            log = (self.folder / "qemu.log").open("ab")
            self.process = subprocess.Popen(
                [
                    *BOARD_NICE,
                    "qemu-system-arm", "-machine", "mps2-an385", "-cpu", "cortex-m3",
                    "-nographic", "-no-reboot", "-kernel", str(self.image),
                    "-monitor", f"unix:{self.monitor},server=on,wait=off",
                    "-serial", f"tcp:127.0.0.1:{self.uart_port},server=on,wait=off",
                ],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            )  # fmt: skip
            log.close()
            self.boots += 1
            _wait_port(self.uart_port, self.process, "QEMU", self.folder / "qemu.log")

    def off(self) -> None:
        with self._lock:
            self.switches.append("off")
            self._kill()


class Switched(Protocol):
    """A board behind a power switch (Board, ser2net_serve.PtyBoard)."""

    def on(self) -> None: ...
    def off(self) -> None: ...
    def powered(self) -> bool: ...
    def freeze(self) -> None: ...


class SerialRelay:
    """A TCP port in front of the board's serial port (`upstream`: the board's UART
    on a TCP socket, or ser2net serving it): one client at a time, each connected
    upstream afresh once the board is powered, every byte passed on unchanged."""

    def __init__(self, board: Switched, upstream: int) -> None:
        self.board = board
        self.upstream = upstream
        self.port = free_port()
        self.hang_word: bytes | None = None
        self.hung = 0
        self._server = socket.create_server(("127.0.0.1", self.port))
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            uart = self._connect_uart()
            if uart is None:
                client.close()
                continue
            self._pump(client, uart)

    def _connect_uart(self) -> socket.socket | None:
        end_by = time.monotonic() + QEMU_BOOT_S
        while time.monotonic() < end_by and not self._closing.is_set():
            if self.board.powered():
                with contextlib.suppress(OSError):
                    uart = socket.create_connection(("127.0.0.1", self.upstream), 1)
                    uart.settimeout(None)
                    return uart
            time.sleep(0.1)
        return None

    def _pump(self, client: socket.socket, uart: socket.socket) -> None:
        def copy(src: socket.socket, dst: socket.socket, watch: bool) -> None:
            with contextlib.suppress(OSError):
                while data := src.recv(4096):
                    if watch and self.hang_word is not None and self.hang_word in data:
                        self.hang_word = None
                        self.hung += 1
                        self.board.freeze()
                    dst.sendall(data)
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

        back = threading.Thread(target=copy, args=(uart, client, False), daemon=True)
        back.start()
        copy(client, uart, True)
        back.join(timeout=10)
        client.close()
        uart.close()

    def close(self) -> None:
        self._closing.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self._thread.join(timeout=10)


class PowerSwitch:
    """A network power switch in labgrid's `simplerest` model: GET /relay/0/1 switches
    the board on, /relay/0/0 off, /relay/0 says "1" or "0"."""

    def __init__(self, board: Switched) -> None:
        board_ = board

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                if parts[:2] != ["relay", "0"] or len(parts) > 3:
                    self.send_error(404)
                    return
                if len(parts) == 3:
                    if parts[2] == "1":
                        board_.on()
                    elif parts[2] == "0":
                        board_.off()
                    else:
                        self.send_error(400)
                        return
                body = b"1" if board_.powered() else b"0"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/relay/{{index}}/{{value}}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=10)


class Lab:
    """A coordinator, an exporter, the places; use as a context manager."""

    def __init__(self, folder: Path, ssh_address: str | None, image: Path | None) -> None:
        self.folder = folder
        self.ssh_address = ssh_address
        self.image = image
        self.port = free_port()
        self.coordinator = f"127.0.0.1:{self.port}"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.board: Board | None = None
        self.relay: SerialRelay | None = None
        self.power: PowerSwitch | None = None
        # the place served by ser2net over RFC 2217
        self.rfc_board: PtyBoard | None = None
        self.ser2net: Ser2net | None = None
        self.rfc_relay: SerialRelay | None = None
        self.rfc_power: PowerSwitch | None = None

    # -- setting up ----------------------------------------------------------------------

    def start(self) -> None:
        try:
            self._coordinator()
            if self.image is not None:
                self.board = Board(self.image, self.folder)
                self.board.on()
                self.relay = SerialRelay(self.board, self.board.uart_port)
                self.power = PowerSwitch(self.board)
            if self.image is not None and ser2net_serve.why_unusable() is None:
                self._ser2net_board(self.image)
            self._exporter()
            self._places()
        except BaseException:
            self.stop()
            raise

    def _ser2net_board(self, image: Path) -> None:
        folder = self.folder / RFC2217_PLACE
        folder.mkdir()
        self.rfc_board = PtyBoard(image, folder)
        self.rfc_board.on()
        self.ser2net = Ser2net(self.rfc_board.tty, folder)
        self.ser2net.start()
        self.rfc_relay = SerialRelay(self.rfc_board, self.ser2net.port)
        self.rfc_power = PowerSwitch(self.rfc_board)

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = (self.folder / f"{name}.log").open("wb")
        process = subprocess.Popen(
            argv, cwd=self.folder, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        log.close()
        self.processes[name] = process
        return process

    def _coordinator(self) -> None:
        process = self._start(
            "coordinator", [str(BIN / "labgrid-coordinator"), "-l", self.coordinator]
        )
        _wait_port(self.port, process, "labgrid-coordinator", self.folder / "coordinator.log")

    def _exporter(self) -> None:
        lines = []
        if self.ssh_address is not None:
            lines += [
                "linux:",
                "  NetworkService:",
                f"    address: '{self.ssh_address}'",
                "    username: root",
                "    port: 22",
            ]
        if self.relay is not None and self.power is not None:
            lines += [
                "freertos:",
                "  NetworkSerialPort:",
                "    host: 127.0.0.1",
                f"    port: {self.relay.port}",
                "    speed: 115200",
                "    protocol: raw",
                "  NetworkPowerPort:",
                "    model: simplerest",
                f"    host: '{self.power.url}'",
                "    index: 0",
            ]
        if self.rfc_relay is not None and self.rfc_power is not None:
            lines += [
                f"{RFC2217_PLACE}:",
                "  NetworkSerialPort:",  # no protocol: labgrid's default, rfc2217
                "    host: 127.0.0.1",
                f"    port: {self.rfc_relay.port}",
                "    speed: 115200",
                "  NetworkPowerPort:",
                "    model: simplerest",
                f"    host: '{self.rfc_power.url}'",
                "    index: 0",
            ]
        config = self.folder / "exporter.yaml"
        config.write_text("\n".join(lines) + "\n")
        self._start(
            "exporter",
            [
                str(BIN / "labgrid-exporter"), "-c", self.coordinator, "--hostname", "127.0.0.1",
                "-n", EXPORTER_NAME, str(config),
            ],
        )  # fmt: skip

    def _places(self) -> None:
        wanted = []
        if self.ssh_address is not None:
            wanted.append("linux")
        if self.image is not None:
            wanted.append("freertos")
        if self.rfc_relay is not None:
            wanted.append(RFC2217_PLACE)
        for name in wanted:
            self.client("-p", name, "create")
            self.client("-p", name, "add-match", f"{EXPORTER_NAME}/{name}/*")
            self.client("-p", name, "set-tags", f"board={name}")
        # the exporter's resources reach the coordinator a moment after it starts
        end_by = time.monotonic() + 30
        while time.monotonic() < end_by:
            listed = self.client("resources", check=False).stdout
            if all(f"{EXPORTER_NAME}/{name}/" in listed for name in wanted):
                return
            if self.processes["exporter"].poll() is not None:
                log = (self.folder / "exporter.log").read_text(errors="replace")
                raise RuntimeError(f"labgrid-exporter ended: {log[-800:]}")
            time.sleep(0.3)
        raise RuntimeError("the exporter's resources did not reach the coordinator in 30 s")

    # -- what the tests use --------------------------------------------------------------

    def env(self) -> dict[str, str]:
        """The environment rtbench needs to find this lab."""
        return {"LG_COORDINATOR": self.coordinator}

    def client(
        self, *args: str, user: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """labgrid-client against this lab (as `user`, a name of the lab's, when given)."""
        env = {**os.environ, "LG_COORDINATOR": self.coordinator}
        env.pop("LG_TOKEN", None)
        env.pop("LG_PLACE", None)
        if user is not None:
            env["LG_USERNAME"] = user
        done = subprocess.run(
            [str(CLIENT), *args], env=env, capture_output=True, text=True, timeout=60, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"labgrid-client {' '.join(args)}: {done.stderr.strip()}")
        return done

    def holder(self, place: str) -> str | None:
        """Who holds a place ("host/user"), or None."""
        for line in self.client("-p", place, "show").stdout.splitlines():
            if line.strip().startswith("acquired:"):
                held = line.split(":", 1)[1].strip()
                return None if held == "None" else held
        return None

    def reservations(self) -> str:
        return self.client("reservations").stdout

    def hang_on(self, word: str, place: str = "freertos") -> None:
        relay = self.rfc_relay if place == RFC2217_PLACE else self.relay
        assert relay is not None
        relay.hang_word = word.encode()

    def boards(self) -> dict[str, Switched]:
        """The boards behind power switches, by place."""
        found: dict[str, Switched] = {}
        if self.board is not None:
            found["freertos"] = self.board
        if self.rfc_board is not None:
            found[RFC2217_PLACE] = self.rfc_board
        return found

    def running(self) -> dict[str, bool]:
        """Which of the lab's own processes still run."""
        found = {name: p.poll() is None for name, p in self.processes.items()}
        if self.board is not None:
            found["qemu"] = self.board.powered()
        if self.rfc_board is not None:
            found["qemu-rfc2217"] = self.rfc_board.powered()
        if self.ser2net is not None:
            found["ser2net"] = self.ser2net.running()
        return found

    # -- tearing down ----------------------------------------------------------------------

    def stop(self) -> None:
        for name in ("exporter", "coordinator"):
            _end(self.processes.get(name))
        if self.power is not None:
            self.power.close()
            self.power = None
        if self.relay is not None:
            self.relay.close()
            self.relay = None
        if self.board is not None:
            self.board.off()
        for closing in (self.rfc_power, self.rfc_relay):
            if closing is not None:
                closing.close()
        self.rfc_power = self.rfc_relay = None
        if self.ser2net is not None:
            self.ser2net.stop()
        if self.rfc_board is not None:
            self.rfc_board.off()

    def __enter__(self) -> Lab:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def main() -> int:
    """Start a lab with both places by hand, to try rtbench against it."""
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    sys.path.insert(0, str(here.parents[1] / "python"))
    import freertos_image  # noqa: PLC0415
    from rtbench.paths import ROOT  # noqa: PLC0415
    from rtbench.targets.firmware import image as fw_image  # noqa: PLC0415
    from rtbench.targets.firmware.rtoses import FREERTOS  # noqa: PLC0415
    from sshd_netns import NamespaceSshd  # noqa: PLC0415

    for why in (why_unusable(), freertos_image.missing()):
        if why is not None:
            print(why, file=sys.stderr)
            return 2
    image = fw_image.ensure_image(ROOT, FREERTOS, freertos_image.BOARD, print).path
    folder = Path(tempfile.mkdtemp(prefix="rtbench-lab-"))
    try:
        (folder / "sshd").mkdir()
        with NamespaceSshd(folder / "sshd") as sshd, Lab(folder, sshd.address, image) as lab:
            print(f"export LG_COORDINATOR={lab.coordinator}")
            print(f"export RTBENCH_SSH_OPTIONS='{sshd.options()}'")
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                input("The lab runs; press Enter to stop it. ")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
