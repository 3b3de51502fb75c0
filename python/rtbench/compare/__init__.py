# SPDX-License-Identifier: Apache-2.0
"""`rtbench compare`: stored results side by side, and whether each difference is real.

`model` matches metrics and verdicts across results, `stats` tests each
difference, `rating` rates each family, and `text`, `export` and `html`
render the comparison. The constants of the rules live here so that the
command line can show them without loading scipy.
"""

ALPHA = 0.01
CONFIDENCE = 0.95
DEFAULT_MIN_CHANGE = 0.10
