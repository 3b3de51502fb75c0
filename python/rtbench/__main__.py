# SPDX-License-Identifier: Apache-2.0
"""`python -m rtbench`: the command line."""

from rtbench.cli import main

raise SystemExit(main())
