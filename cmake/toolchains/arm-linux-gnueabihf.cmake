# SPDX-License-Identifier: Apache-2.0
# rtbench-core for 32-bit ARM Linux, ARMv7-A hard-float (Debian's armhf), with
# Debian's cross compiler:
#   apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
# The compiler's defaults are Debian's armhf baseline (ARMv7-A, Thumb-2,
# VFPv3-D16, hard-float calling convention), which every ARMv7-A or ARMv8-A
# CPU running a 32-bit hard-float Linux executes.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(RTB_LIBC_HINT glibc)
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
