# SPDX-License-Identifier: Apache-2.0
# rtbench for a Cortex-M3 microcontroller (no operating system of its own
# beyond the port's RTOS), with Debian's bare-metal compiler and picolibc:
#   apt-get install gcc-arm-none-eabi picolibc-arm-none-eabi
# Used by the FreeRTOS port (RTB_PORT=freertos) and by the cross-build check
# of the core with the template port.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m3)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m3 -mthumb --specs=picolibc.specs")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
# CMAKE_C_FLAGS reach the link line too (with picolibc.specs, given once).
set(CMAKE_EXE_LINKER_FLAGS_INIT "")
# No host program can run here: test compiles link static libraries only.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(RTB_LIBC_HINT picolibc)
