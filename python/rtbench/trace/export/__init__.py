# SPDX-License-Identifier: Apache-2.0
"""`rtbench trace export`: a traced run for Perfetto (both traces) or as CTF (the
kernel trace), read back from its results directory."""
