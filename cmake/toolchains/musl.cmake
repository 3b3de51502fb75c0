# SPDX-License-Identifier: Apache-2.0
# rtbench-core linked with musl instead of glibc, for the architecture of the
# build machine, through the musl-gcc wrapper of Debian's musl-tools:
#   apt-get install musl-tools
# musl has no version macro; the build records the C library as "musl".
set(CMAKE_C_COMPILER musl-gcc)
set(RTB_LIBC_HINT musl)
