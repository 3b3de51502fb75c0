# SPDX-License-Identifier: Apache-2.0
# rtbench for a Cortex-A7 without an operating system of its own beyond the
# port's RTOS (QEMU's virt board), with Debian's bare-metal compiler and
# picolibc (multilib thumb/v7ve+simd/hard, which interworks with ARM code):
#   apt-get install gcc-arm-none-eabi picolibc-arm-none-eabi
# ARM state, the NEON/VFPv4 unit, hard-float calls: the board's start
# enables the FPU before any C code.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-a7)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_C_FLAGS_INIT
  "-marm -mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard --specs=picolibc.specs")
set(CMAKE_ASM_FLAGS_INIT "-marm -mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard")
# CMAKE_C_FLAGS reach the link line too (with picolibc.specs, given once).
set(CMAKE_EXE_LINKER_FLAGS_INIT "")
# No host program can run here: test compiles link static libraries only.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(RTB_LIBC_HINT picolibc)
