# SPDX-License-Identifier: Apache-2.0
# The FreeRTOS port: one firmware image per board,
# rtbench-freertos-<board>.elf, with the core, the scenarios, the port, the
# shared board and architecture code (ports/boards, ports/arch) and the
# FreeRTOS kernel taken from FREERTOS_KERNEL_PATH (a checkout of
# FreeRTOS-Kernel, e.g. V11.1.0; never copied into this repository).
#   cmake -S . -B build/frt -DRTB_PORT=freertos -DRTB_BOARD=mps2-an385 \
#     -DFREERTOS_KERNEL_PATH=<kernel> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-m3.cmake
include(${PROJECT_SOURCE_DIR}/cmake/rtb_firmware.cmake)
set(FREERTOS_KERNEL_PATH "$ENV{FREERTOS_KERNEL_PATH}" CACHE PATH "FreeRTOS-Kernel checkout")
set(RTB_FREERTOS_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
    "Directory holding the FreeRTOSConfig.h to build with")
if(NOT FREERTOS_KERNEL_PATH OR NOT EXISTS ${FREERTOS_KERNEL_PATH}/tasks.c)
  message(FATAL_ERROR "RTB_PORT=freertos needs FREERTOS_KERNEL_PATH: a checkout of "
    "https://github.com/FreeRTOS/FreeRTOS-Kernel (tag V11.1.0), given with "
    "-DFREERTOS_KERNEL_PATH=<dir> or in the environment")
endif()
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program
set(frt_dir ${CMAKE_CURRENT_LIST_DIR})
# The Cortex-M3 port of the kernel; a board of another core names its own.
set(frt_kernel_port ${FREERTOS_KERNEL_PATH}/portable/GCC/ARM_CM3)
file(READ ${FREERTOS_KERNEL_PATH}/include/task.h frt_task_h)
string(REGEX MATCH "tskKERNEL_VERSION_NUMBER +\"([^\"]+)\"" _ "${frt_task_h}")
message(STATUS "FreeRTOS kernel ${CMAKE_MATCH_1} at ${FREERTOS_KERNEL_PATH}, board ${RTB_BOARD}")

set(frt_includes ${RTB_FREERTOS_CONFIG_DIR} ${FREERTOS_KERNEL_PATH}/include ${frt_kernel_port})

# The kernel: its own warnings, never -Werror. It reads FreeRTOSConfig.h,
# which reads the board's facts (board_config.h).
add_library(freertos_kernel STATIC
  ${FREERTOS_KERNEL_PATH}/tasks.c ${FREERTOS_KERNEL_PATH}/queue.c
  ${FREERTOS_KERNEL_PATH}/list.c ${FREERTOS_KERNEL_PATH}/event_groups.c
  ${FREERTOS_KERNEL_PATH}/timers.c ${frt_kernel_port}/port.c
  ${FREERTOS_KERNEL_PATH}/portable/MemMang/heap_4.c)
target_include_directories(freertos_kernel PUBLIC ${frt_includes} ${frt_dir}
  ${PROJECT_SOURCE_DIR}/ports/boards/${RTB_BOARD})

rtb_add_firmware(freertos KERNEL freertos_kernel INCLUDES ${frt_includes}
  SOURCES ${frt_dir}/port.c ${frt_dir}/thread.c ${frt_dir}/sync.c ${frt_dir}/irq.c
  ${frt_dir}/console.c ${PROJECT_SOURCE_DIR}/ports/common/pool_alloc.c)
