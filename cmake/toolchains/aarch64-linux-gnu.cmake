# SPDX-License-Identifier: Apache-2.0
# rtbench-core for 64-bit ARM Linux (AArch64), with Debian's cross compiler:
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(RTB_LIBC_HINT glibc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
