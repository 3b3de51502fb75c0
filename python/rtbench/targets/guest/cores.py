# SPDX-License-Identifier: Apache-2.0
"""The emulated cores a guest may run, by Debian architecture (`cpu=CORE` on a
`qemu:NAME` spec). The first of each is the default.

An armhf guest runs on QEMU's `virt` machine like the RTOSes' `virt-a7` board,
so `cpu=cortex-a7` puts Linux and those RTOSes on the same emulated core. Every
core listed boots the architecture's Debian kernels, standard and PREEMPT_RT
(on `virt` the armhf kernels tick from the generic timer, which the Cortex-A7
and A15 have and the A8 and A9 do not). amd64 guests run QEMU's `max` CPU only.

Small on purpose: `rtbench targets` reads it without loading the QEMU modules.
"""

from __future__ import annotations

CORES: dict[str, tuple[str, ...]] = {
    "armhf": ("cortex-a15", "cortex-a7"),
    "arm64": ("cortex-a53", "cortex-a57", "cortex-a72"),
    "amd64": ("max",),
}


def default_core(deb_arch: str) -> str:
    return CORES[deb_arch][0]


def choices(deb_arch: str) -> str:
    """`cortex-a15 (default)|cortex-a7`: what cpu= takes for an architecture."""
    first, *others = CORES[deb_arch]
    return "|".join((f"{first} (default)", *others))


def listed(deb_arch: str) -> str:
    """`cpu=cortex-a15 (the default) or cpu=cortex-a7`: the same, for a sentence."""
    first, *others = CORES[deb_arch]
    return " or ".join((f"cpu={first} (the default)", *(f"cpu={o}" for o in others)))


def summary() -> str:
    """What cpu= takes on the ARM guests, for `rtbench targets`."""
    return "; ".join(f"{arch} guests cpu={choices(arch)}" for arch in CORES if len(CORES[arch]) > 1)
