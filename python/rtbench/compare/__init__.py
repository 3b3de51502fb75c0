# SPDX-License-Identifier: Apache-2.0
"""`rtbench compare`: stored results side by side, and whether each difference is real.

`model` matches metrics and verdicts across results, `significance` tests each
difference, `exact` compares deterministic runs without statistics, `pathdiff`
tells which functions of a traced run's code path changed, `rating` rates
each family, and `text`, `tables` and `html` render the comparison. The
constants of the rules live here so that the command line can show them
without loading scipy.
"""

ALPHA = 0.01
CONFIDENCE = 0.95
DEFAULT_MIN_CHANGE = 0.10
