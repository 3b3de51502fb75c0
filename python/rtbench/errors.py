# SPDX-License-Identifier: Apache-2.0
"""Errors the command line turns into one sentence and an exit status."""


class RtbenchError(Exception):
    """An error with a message meant for the user; `exit_status` is what the CLI returns."""

    exit_status = 1


class UsageError(RtbenchError):
    """Bad input from the user: a wrong option, a missing or unreadable file."""

    exit_status = 2


class BuildError(RtbenchError):
    """rtbench-core could not be configured or built."""


class CoreError(RtbenchError):
    """rtbench-core could not be started or answered something unusable."""


class ResultsError(UsageError):
    """A stored results file is missing, unreadable, invalid or of another version."""


class StorageError(RtbenchError):
    """Results could not be written (a full disk, a read-only or failing file system);
    what was stored before stays readable."""

    exit_status = 3
