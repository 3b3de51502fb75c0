# SPDX-License-Identifier: Apache-2.0
"""model.target.TargetView: the one reading of a run's target description that
reports, comparisons and the history store share."""

from __future__ import annotations

from rtbench.model.target import TargetView

BOARD = {
    "kind": "qemu",
    "board": "virt-a7",
    "arch": "armv7l",
    "emulator": "qemu-system-arm",
    "emulator_version": "7.2.22",
    "emulated": True,
    "cpu": "cortex-a7",
    "deterministic": {"icount_shift": 5, "ns_per_instruction": 32},
    "code_size": {"image": {"text": 40000, "data": 100, "bss": 9000}},
    "freertos_kernel": {"tag": "V11.1.0", "digest": "47a55324dbbd"},
    "freertos_config_dir": "/tmp/variant-config",
}


def test_a_deterministic_board_is_read_whole() -> None:
    view = TargetView(BOARD)
    assert view.emulated and view.is_board and view.board == "virt-a7"
    assert view.icount_shift == 5 and view.deterministic is not None
    assert view.image_size is not None and view.image_size["image"]["text"] == 40000
    assert view.kernel_source == {"tag": "V11.1.0", "digest": "47a55324dbbd"}
    assert view.config_dir == "/tmp/variant-config"
    assert view.machine() == {
        "board": "virt-a7",
        "architecture": "armv7l",
        "emulator": "qemu-system-arm",
        "emulator version": "7.2.22",
    }
    assert not view.wall_clock_chosen
    assert view.core == "cortex-a7"
    assert TargetView({"cpu": "host"}).core is None  # KVM: the host's own core


def test_a_local_run_knows_none_of_it() -> None:
    view = TargetView({})
    assert not view.emulated and not view.is_board and view.board is None
    assert view.icount_shift is None and view.deterministic is None
    assert view.image_size is None and view.kernel_source is None and view.config_dir is None


def test_malformed_entries_are_not_known() -> None:
    """A shift that is not a whole number, a size without its image sections and an
    empty board name are treated as not recorded, never half read."""
    view = TargetView(
        {"board": "", "deterministic": {"icount_shift": "5"}, "code_size": {"note": "no nm"},
         "icount_choice": "off", "emulated": True}
    )  # fmt: skip
    assert view.board is None and view.icount_shift is None and view.image_size is None
    assert view.wall_clock_chosen and view.emulated
