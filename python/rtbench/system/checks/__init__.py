# SPDX-License-Identifier: Apache-2.0
"""The caveat checks, one module per subject; importing them registers them."""
