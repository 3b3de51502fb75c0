# SPDX-License-Identifier: Apache-2.0
"""What every command of the command line shares: argparse with one-sentence
errors, numbers checked as they are parsed, signed values attached to their
option, the error stream's one style, and the terminal's colour and width."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from rtbench.errors import UsageError

_SIGNED = re.compile(r"^-\.?\d")  # a value such as -5s, -1,2 or -.5
RAW_MAX_LIMIT = 100_000_000  # the core's bound on --raw-max


class Parser(argparse.ArgumentParser):
    """argparse with one-sentence errors (raised, so main prints them)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(usage_sentence(self.prog, message))


def usage_sentence(prog: str, message: str) -> str:
    match = re.match(r"argument (\S+?)(?:/\S+)?: invalid choice: '([^']*)'", message)
    if match and match.group(1) == "--profile":
        return f"{prog}: unknown profile '{match.group(2)}' (use quick, standard or endurance)."
    if match and match.group(1).startswith(("command", "{run,")):
        return (
            f"{prog}: unknown command '{match.group(2)}' "
            "(use run, list, system, show, compare, import or targets)."
        )
    text = message[0].upper() + message[1:] if message else "Invalid arguments"
    return f"{prog}: {text.rstrip('.')}."


def color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def width(stream: TextIO) -> int:
    """Columns for one-line summaries: the terminal's, or 120 off a terminal."""
    if stream.isatty():
        return min(max(shutil.get_terminal_size((100, 24)).columns, 60), 200)
    return 120


def nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return value


def raw_max(text: str) -> int:
    value = nonnegative(text)
    if value > RAW_MAX_LIMIT:
        raise argparse.ArgumentTypeError(
            f"'{text}' is more than the core keeps ({RAW_MAX_LIMIT:,})"
        )
    return value


def _option_named(parser: argparse.ArgumentParser, word: str) -> argparse.Action | None:
    """The option a word names, whole or abbreviated as argparse allows (`--dur`)."""
    if word in parser._option_string_actions:
        return parser._option_string_actions[word]
    if not word.startswith("--") or "=" in word:
        return None
    found = {id(a): a for o, a in parser._option_string_actions.items() if o.startswith(word)}
    return next(iter(found.values())) if len(found) == 1 else None


def attach_signed_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """`--duration -5s` as `--duration=-5s`, for every option of every command that
    takes one value. argparse reads a word that starts with '-' as an option unless it
    looks like a plain negative number ('-5', but not '-5s' or '-1,2'), and then says
    only "expected one argument"; attached, the value reaches the option's own check,
    which says what is wrong with it."""
    out: list[str] = []
    current = parser
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return [*out, *argv[index:]]
        action = _option_named(current, word)
        following = argv[index + 1] if index + 1 < len(argv) else ""
        if action is not None and action.nargs is None and _SIGNED.match(following):
            out.append(f"{word}={following}")
            index += 2
            continue
        for sub in current._actions:
            if isinstance(sub, argparse._SubParsersAction) and word in sub.choices:
                current = sub.choices[word]  # the command's own options from here on
        out.append(word)
        index += 1
    return out


def err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def warn(text: str) -> None:
    prefix = "\x1b[33mwarning:\x1b[0m" if color(sys.stderr) else "warning:"
    err(f"{prefix} {text}")


def styled(command: str | None, message: str) -> str:
    """Every error in one style: `rtbench <command>: <sentence>`."""
    if message.startswith("rtbench"):
        return message
    prog = f"rtbench {command}" if command else "rtbench"
    return f"{prog}: {message}"
