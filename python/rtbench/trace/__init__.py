# SPDX-License-Identifier: Apache-2.0
"""Tracing a run (`rtbench run --trace`, docs/tracing.md): `kernel/` traces a Linux
kernel through tracefs and explains the worst samples, `codepath/` follows the code
an emulated RTOS board executed for each kept sample, `export/` writes either for
Perfetto or Trace Compass (`rtbench trace export`); `choose` asks the target which
one it offers."""
