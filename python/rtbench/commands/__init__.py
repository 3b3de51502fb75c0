# SPDX-License-Identifier: Apache-2.0
"""The commands: each module parses one command's arguments, calls the engine
packages (run, compare, store, report, targets) and says what happened, with
its exit status. Nothing below this layer parses arguments or prints for a
command; the engine packages never import it.

- run: `rtbench run`, one target or several (then a comparison);
- compare: `rtbench compare`;
- store: `rtbench store` and the history database's options shared by run and
  import;
- history: `rtbench history`.
"""
