# SPDX-License-Identifier: Apache-2.0
# rtbench-core for x86-64 Linux from another architecture, with Debian's
# cross compiler:
#   apt-get install gcc-x86-64-linux-gnu libc6-dev-amd64-cross
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-linux-gnu-gcc)
set(RTB_LIBC_HINT glibc)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
