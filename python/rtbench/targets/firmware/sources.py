# SPDX-License-Identifier: Apache-2.0
"""An RTOS's sources as the user gave them: their release and their fingerprint.

The release is read from a `VERSION` file ("TAG COMMIT", as release extracts
carry), else from git, else from a version macro in a header (each RTOS says
which, targets.firmware.rtoses). The files the image is built from are
fingerprinted by a digest: the SHA-256 of their `sha256sum` listing (one line
`<sha256>  <relative path>` per file, in byte order), so a user can compute it
with `LC_ALL=C sort | xargs sha256sum | sha256sum` (docs/targets.md). They are
said to be modified or not: in a git checkout by `git status` of those files,
otherwise by comparing the digest with the release's published one; a release
rtbench has no digest of is "unknown whether modified".
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench import build

SOURCE_SUFFIXES = (".c", ".h", ".S", ".s")


@dataclass(frozen=True)
class Release:
    """A release read from the sources: its tag and commit, and where they were read."""

    tag: str | None
    commit: str | None
    read_from: str  # "VERSION", "git", "include/task.h", ...


@dataclass(frozen=True)
class SourceCheckout:
    """The folder an RTOS's sources were taken from, its release and fingerprint."""

    path: Path
    tag: str | None  # "V11.1.0"
    commit: str | None
    source: str  # where tag/commit were read: "VERSION", "git", a header
    digest: str | None = None  # digest() of the files built
    modified: bool | None = None  # None: unknown
    modified_reason: str = ""  # how `modified` was decided, one phrase
    files: tuple[tuple[str, str], ...] = ()  # (relative path, sha256) of each file built

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "tag": self.tag,
            "commit": self.commit,
            "read_from": self.source,
            "digest": self.digest,
            "modified": self.modified,
            "modified_reason": self.modified_reason,
            "files": dict(self.files),
        }


def git_output(path: Path, *args: str) -> str | None:
    """What `git -C path ARGS` prints, None when `path` is no git checkout or git fails."""
    if shutil.which("git") is None or not (path / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(path), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _git(path: Path, *args: str) -> str | None:
    out = git_output(path, *args)
    return (out.strip() or None) if out is not None else None


def version_file(path: Path, name: str = "VERSION") -> Release | None:
    """A `VERSION` file of the form "TAG [COMMIT]"."""
    try:
        words = (path / name).read_text(errors="replace").split()
    except OSError:
        return None
    if not words:
        return None
    commit = words[1] if len(words) > 1 and re.fullmatch(r"[0-9a-f]{7,40}", words[1]) else None
    return Release(words[0], commit, name)


def git_release(path: Path) -> Release | None:
    """`git describe` of a checkout, with its commit."""
    described = _git(path, "describe", "--tags", "--always")
    if described is None:
        return None
    return Release(described, _git(path, "rev-parse", "HEAD"), "git")


def version_macro(path: Path, header: str, pattern: str) -> Release:
    """The release a header's version macro states (`pattern`'s first group)."""
    tag = None
    try:
        match = re.search(pattern, (path / header).read_text(errors="replace"))
        tag = match.group(1) if match else None
    except OSError:
        pass
    return Release(tag, None, header)


def files_built(path: Path, files: Iterable[str], dirs: Iterable[str]) -> list[str]:
    """The files an image is built from, relative to `path`, in byte order: `files`
    and every C, header and assembly file under `dirs` (those that exist: sources
    that lack one do not build); a folder written `name/*` counts its own files,
    not its subfolders'."""
    names = {n for n in files if (path / n).is_file()}
    for folder in dirs:
        flat = folder.endswith("/*")
        base = path / folder.removesuffix("/*")
        if base.is_dir():
            names.update(
                p.relative_to(path).as_posix()
                for p in (base.glob("*") if flat else base.rglob("*"))
                if p.suffix in SOURCE_SUFFIXES and p.is_file()
            )
    return sorted(names, key=lambda n: n.encode())


def digest(path: Path, files: list[str]) -> str:
    """The SHA-256 of the `sha256sum` listing of `files` (relative to `path`):
    one line `<sha256 of the content>  <relative path>` per file, in byte order,
    as `LC_ALL=C sort | xargs sha256sum | sha256sum` computes it."""
    listing = "".join(f"{build.file_sha256(path / name)}  {name}\n" for name in files)
    return hashlib.sha256(listing.encode()).hexdigest()


def _modified_in_git(path: Path, files: list[str]) -> tuple[bool | None, str]:
    """Tracked changes to the files built, against the checkout's commit."""
    status = git_output(path, "status", "--porcelain", "--untracked-files=no", "--", *files)
    if status is None:
        return None, "unknown whether modified: git status failed"
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    if not changed:
        return False, "no tracked changes to the files built (git status)"
    stat = _git(path, "diff", "--shortstat", "HEAD", "--", *files)
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return True, f"tracked changes to {shown} (git status{': ' + stat if stat else ''})"


def _modified_from_table(
    display: str, known: Mapping[str, str], tag: str | None, value: str
) -> tuple[bool | None, str]:
    """An extract's digest against the release's known digest."""
    expected = known.get(tag or "")
    if expected is None:
        return None, (
            f"unknown whether modified: rtbench knows no digest of {display} "
            f"{tag or '(no release)'}"
        )
    if expected == value:
        return False, f"the digest is {display} {tag}'s"
    return True, f"the digest differs from {display} {tag}'s"


def identify(
    checkout: SourceCheckout,
    files: list[str],
    display: str,
    known: Mapping[str, str],
) -> SourceCheckout:
    """`checkout` with the digest of `files` and whether they are modified: git
    status in a git checkout whose release was read from git, otherwise the digest
    against `known` (release tag -> digest)."""
    hashes = tuple((name, build.file_sha256(checkout.path / name)) for name in files)
    value = hashlib.sha256("".join(f"{h}  {n}\n" for n, h in hashes).encode()).hexdigest()
    if checkout.source == "git":
        modified, reason = _modified_in_git(checkout.path, files)
    else:
        modified, reason = _modified_from_table(display, known, checkout.tag, value)
    return dataclasses.replace(
        checkout, digest=value, modified=modified, modified_reason=reason, files=hashes
    )
