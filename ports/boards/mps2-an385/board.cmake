# SPDX-License-Identifier: Apache-2.0
# mps2-an385: ARM's Cortex-M3 FPGA image on the MPS2 board, as QEMU models it.
# Read by rtb_add_firmware (cmake/rtb_firmware.cmake) for every RTOS port.
set(RTB_BOARD_ARCH cortex-m)
set(RTB_BOARD_CPU cortex-m3)
set(RTB_BOARD_SOURCES ${CMAKE_CURRENT_LIST_DIR}/board.c ${CMAKE_CURRENT_LIST_DIR}/startup.c)
set(RTB_BOARD_LINKER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/mps2-an385.ld)
