# SPDX-License-Identifier: Apache-2.0
"""Debian packages for QEMU guests (kernels, busybox): resolved, downloaded, verified, unpacked.

A guest names a Debian kernel meta-package (`linux-image-rt-amd64`, ...). Its
current dependency (the versioned image package, `linux-image-6.1.0-N-rt-amd64`)
is resolved from the architecture's `Packages` index of the Debian mirror this
host's apt uses, never hard-coded. The chain of trust is apt's own: the suite's
`InRelease` is checked with `gpgv` against Debian's archive keyring, the index
against the SHA-256 the signed `InRelease` lists, and the `.deb` against the
SHA-256 in the index. The package is unpacked with `dpkg-deb -x` into this
user's cache; nothing is installed on the host and apt's configuration is not
changed. A kernel once unpacked is reused without the network; removing its
folder under the cache fetches the current one again.

Environment: RTBENCH_DEBIAN_MIRROR (a mirror URL) and RTBENCH_DEBIAN_SUITE
(default bookworm) override where kernels come from; XDG_CACHE_HOME moves the
cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import lzma
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rtbench.build import file_sha256
from rtbench.errors import RtbenchError, UsageError

MIRROR_ENV = "RTBENCH_DEBIAN_MIRROR"
SUITE_ENV = "RTBENCH_DEBIAN_SUITE"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEFAULT_SUITE = "bookworm"
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
HTTP_TIMEOUT_S = 60.0
_CHUNK = 1 << 16
INDEX_MAX_AGE_S = 24 * 3600.0


class PackageError(RtbenchError):
    """A Debian package for a guest could not be had (the user can act on the sentence)."""

    exit_status = UsageError.exit_status


@dataclass(frozen=True)
class Kernel:
    """An unpacked Debian kernel package."""

    package: str  # linux-image-6.1.0-N-rt-amd64
    version: str  # the Debian package version
    meta_package: str  # linux-image-rt-amd64
    arch: str  # Debian architecture: amd64, arm64, armhf
    release: str  # the kernel release, as uname -r says it
    image: Path  # vmlinuz-<release>
    config: Path | None  # config-<release>, when the package has one
    sha256: str
    mirror: str
    suite: str

    def describe(self) -> dict[str, str]:
        return {
            "package": self.package,
            "version": self.version,
            "meta_package": self.meta_package,
            "arch": self.arch,
            "release": self.release,
            "sha256": self.sha256,
            "source": f"{self.mirror} {self.suite}",
        }


def cache_dir() -> Path:
    """Where guest kernels and images are kept (~/.cache/rtbench/guests)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rtbench" / "guests"


def mirror_and_suite() -> tuple[str, str]:
    """The Debian mirror this host's apt uses (or the override), and the suite."""
    mirror = os.environ.get(MIRROR_ENV) or _host_mirror() or DEFAULT_MIRROR
    return mirror.rstrip("/"), os.environ.get(SUITE_ENV) or DEFAULT_SUITE


def _host_mirror() -> str | None:
    """The first Debian archive URI of apt's sources (deb822 or one-line form)."""
    sources = sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))
    texts: list[str] = []
    for path in [*sources, Path("/etc/apt/sources.list")]:
        with contextlib.suppress(OSError):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    for text in texts:
        for raw in text.splitlines():
            line = raw.strip()
            match = re.match(r"^URIs:\s*(\S+)", line) or re.match(
                r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+", line
            )
            if match and re.search(r"/debian/?$", match.group(1)):
                return match.group(1)
    return None


def _download(url: str, dest: Path, what: str) -> None:
    tmp = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_S) as response, tmp.open("wb") as f:
            shutil.copyfileobj(response, f, _CHUNK)
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        tmp.unlink(missing_ok=True)
        reason = getattr(e, "reason", None) or getattr(e, "strerror", None) or e
        raise PackageError(
            f"Cannot download {what} from {url} ({reason}); check the network or set "
            f"{MIRROR_ENV} to a reachable Debian mirror."
        ) from None
    tmp.replace(dest)


def _verified_release(signed: Path, keyring: Path) -> str:
    """The text of an InRelease whose signature gpgv accepted."""
    if shutil.which("gpgv") is None:
        raise PackageError("gpgv is not installed; install it (apt-get install gpgv).")
    if not keyring.is_file():
        raise PackageError(
            f"Debian's archive keyring {keyring} is missing; install debian-archive-keyring."
        )
    plain = signed.with_name(signed.name + ".verified")
    done = subprocess.run(
        ["gpgv", "--keyring", str(keyring), "--output", str(plain), str(signed)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise PackageError(
            f"The signature of {signed.name} from the Debian mirror does not verify "
            "with Debian's archive keyring; not using it."
        )
    return plain.read_text(encoding="utf-8", errors="replace")


def _index_entry(release: str, name: str) -> tuple[str, int]:
    """The SHA-256 and size the signed Release lists for `name`."""
    in_sha256 = False
    for line in release.splitlines():
        if not line.startswith(" "):
            in_sha256 = line.strip() == "SHA256:"
            continue
        if in_sha256:
            parts = line.split()
            if len(parts) == 3 and parts[2] == name:
                return parts[0], int(parts[1])
    raise PackageError(f"The Debian suite's Release file does not list {name}.")


def stanzas(text: str) -> Iterator[dict[str, str]]:
    """The paragraphs of a Debian control file (continuation lines joined)."""
    fields: dict[str, str] = {}
    key = ""
    for line in text.splitlines():
        if not line.strip():
            if fields:
                yield fields
            fields, key = {}, ""
        elif line[0] in " \t" and key:
            fields[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    if fields:
        yield fields


def resolve(index: str, meta_package: str) -> dict[str, str]:
    """The image package a kernel meta-package depends on now, from a Packages index.

    Returns the stanza of that image package (Package, Version, Filename, SHA256, ...).
    """
    packages: dict[str, list[dict[str, str]]] = {}
    for stanza in stanzas(index):
        name = stanza.get("Package", "")
        if name.startswith("linux-image-"):
            packages.setdefault(name, []).append(stanza)
    metas = packages.get(meta_package)
    if not metas:
        raise PackageError(f"The Debian index has no package {meta_package}.")
    meta = max(metas, key=lambda s: _version_key(s.get("Version", "")))
    depends = [d.strip() for d in meta.get("Depends", "").split(",")]
    for dep in depends:
        name = dep.split()[0] if dep else ""
        if re.match(r"^linux-image-\d", name) and name in packages:
            found = packages[name]
            want = re.search(r"\(=\s*([^)]+)\)", dep)
            for stanza in found:
                if want is None or stanza.get("Version") == want.group(1).strip():
                    return stanza
            return max(found, key=lambda s: _version_key(s.get("Version", "")))
    raise PackageError(f"{meta_package} depends on no kernel image package in the index.")


def _version_key(version: str) -> list[tuple[int, str]]:
    """A rough ordering of Debian versions: enough to pick the newest of a few."""
    return [(int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+~:-]", version)]


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _from_record(path: Path, root: Path) -> Kernel | None:
    try:
        data = json.loads(path.read_text())
        kernel = Kernel(
            package=data["package"],
            version=data["version"],
            meta_package=data["meta_package"],
            arch=data["arch"],
            release=data["release"],
            image=root / data["image"],
            config=(root / data["config"]) if data.get("config") else None,
            sha256=data["sha256"],
            mirror=data["mirror"],
            suite=data["suite"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return kernel if kernel.image.is_file() else None


def _index(mirror: str, suite: str, arch: str, base: Path, say: Callable[[str], None]) -> str:
    """The verified Packages index of `arch` (kept for a day in the cache)."""
    folder = base / "index" / suite / arch
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / "Packages"
    source = folder / "source"
    fresh = kept.is_file() and time.time() - kept.stat().st_mtime < INDEX_MAX_AGE_S
    if fresh and source.is_file() and source.read_text() == mirror:
        return kept.read_text(encoding="utf-8", errors="replace")
    say(f"Reading the Debian {suite} index for {arch} from {mirror}...")
    with tempfile.TemporaryDirectory(dir=base, prefix=".index-") as tmp_name:
        tmp = Path(tmp_name)
        signed = tmp / "InRelease"
        _download(f"{mirror}/dists/{suite}/InRelease", signed, "the suite's InRelease")
        release = _verified_release(signed, KEYRING)
        index_name = f"main/binary-{arch}/Packages.xz"
        sha, _size = _index_entry(release, index_name)
        packed = tmp / "Packages.xz"
        _download(f"{mirror}/dists/{suite}/{index_name}", packed, f"the {arch} index")
        if file_sha256(packed) != sha:
            raise PackageError(f"The {arch} package index does not match its signed hash.")
        text = lzma.decompress(packed.read_bytes()).decode("utf-8", errors="replace")
    tmp_kept = kept.with_name(f"Packages.{os.getpid()}.tmp")
    tmp_kept.write_text(text, encoding="utf-8")
    tmp_kept.replace(kept)
    source.write_text(mirror)
    return text


def _unpacked(stanza: dict[str, str], mirror: str, base: Path, say: Callable[[str], None]) -> Path:
    """The package of an index stanza, downloaded, checked and unpacked (cached)."""
    name = f"{stanza['Package']}_{stanza['Version']}_{stanza.get('Architecture', '')}"
    folder = base / "packages" / name
    if (folder / ".complete").is_file():
        return folder
    if shutil.which("dpkg-deb") is None:
        raise PackageError("dpkg-deb is not installed; install dpkg.")
    say(f"Downloading {stanza['Package']} {stanza['Version']}...")
    with tempfile.TemporaryDirectory(dir=base, prefix=".fetch-") as tmp_name:
        tmp = Path(tmp_name)
        deb = tmp / "package.deb"
        _download(f"{mirror}/{stanza['Filename']}", deb, stanza["Package"])
        if file_sha256(deb) != stanza.get("SHA256"):
            raise PackageError(f"{stanza['Package']} does not match its indexed SHA-256.")
        unpack = tmp / "unpacked"
        done = subprocess.run(
            ["dpkg-deb", "-x", str(deb), str(unpack)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            raise PackageError(f"dpkg-deb could not unpack {stanza['Package']}.")
        # A guest boots without modules: what rtbench uses is /boot and /bin.
        for entry in unpack.iterdir():
            if entry.name not in ("boot", "bin"):
                shutil.rmtree(entry, ignore_errors=True)
        (unpack / ".complete").write_text(stanza["SHA256"] + "\n")
        if folder.exists():
            shutil.rmtree(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        unpack.rename(folder)
    return folder


def ensure_package(package: str, arch: str, say: Callable[[str], None]) -> Path:
    """The unpacked current version of a Debian package (busybox-static, ...)."""
    base = cache_dir()
    with _locked(base):
        mirror, suite = mirror_and_suite()
        index = _index(mirror, suite, arch, base, say)
        stanzas_found = [s for s in stanzas(index) if s.get("Package") == package]
        if not stanzas_found:
            raise PackageError(f"The Debian {suite} index for {arch} has no package {package}.")
        newest = max(stanzas_found, key=lambda s: _version_key(s.get("Version", "")))
        return _unpacked(newest, mirror, base, say)


def ensure_kernel(meta_package: str, arch: str, say: Callable[[str], None]) -> Kernel:
    """The unpacked current kernel of `meta_package` for Debian architecture `arch`.
    Once fetched, the same kernel is used without the network."""
    base = cache_dir()
    chosen = base / "kernels" / f"{meta_package}_{arch}.json"
    with _locked(base):
        kernel = _from_record(chosen, base)
        if kernel is not None:
            return kernel
        mirror, suite = mirror_and_suite()
        say(f"Fetching the {meta_package} kernel ({arch}) from {mirror} {suite}...")
        stanza = resolve(_index(mirror, suite, arch, base, say), meta_package)
        folder = _unpacked(stanza, mirror, base, say)
        images = sorted((folder / "boot").glob("vmlinuz-*"))
        if not images:
            raise PackageError(f"{stanza['Package']} holds no /boot/vmlinuz-* image.")
        kernel_release = images[0].name.removeprefix("vmlinuz-")
        config = folder / "boot" / f"config-{kernel_release}"
        record = {
            "package": stanza["Package"],
            "version": stanza["Version"],
            "meta_package": meta_package,
            "arch": arch,
            "release": kernel_release,
            "image": str(images[0].relative_to(base)),
            "config": str(config.relative_to(base)) if config.is_file() else None,
            "sha256": stanza["SHA256"],
            "mirror": mirror,
            "suite": suite,
        }
        chosen.parent.mkdir(parents=True, exist_ok=True)
        chosen.write_text(json.dumps(record, indent=1) + "\n")
        kernel = _from_record(chosen, base)
        assert kernel is not None
        return kernel


def config_value(kernel: Kernel, key: str) -> str | None:
    """One option of the kernel's shipped configuration (`y`, `m`, a value), or None."""
    if kernel.config is None:
        return None
    with contextlib.suppress(OSError):
        for line in kernel.config.read_text(errors="replace").splitlines():
            if line.startswith(key + "="):
                return line.split("=", 1)[1].strip('"')
    return None
