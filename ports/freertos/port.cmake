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
rtb_port_sources(${CMAKE_CURRENT_LIST_DIR}) # FREERTOS_KERNEL_PATH
set(RTB_FREERTOS_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
    "Directory holding the FreeRTOSConfig.h to build with")
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program
set(frt_dir ${CMAKE_CURRENT_LIST_DIR})
# The kernel's port for the board's architecture (RTB_BOARD_ARCH, from its
# board.cmake): ARM_CM3 on a Cortex-M3; ARM_CA9 on an ARMv7-A core with a GIC
# (its assembly, and the hooks it asks of the application: ca_hooks.c).
if(RTB_BOARD_ARCH STREQUAL "cortex-m")
  set(frt_kernel_port_name GCC/ARM_CM3)
  set(frt_arch_sources "")
elseif(RTB_BOARD_ARCH STREQUAL "cortex-a")
  enable_language(ASM)
  set(frt_kernel_port_name GCC/ARM_CA9)
  set(frt_arch_sources ${FREERTOS_KERNEL_PATH}/portable/${frt_kernel_port_name}/portASM.S)
else()
  message(FATAL_ERROR "RTB_PORT=freertos has no kernel port for architecture ${RTB_BOARD_ARCH}")
endif()
set(frt_kernel_port ${FREERTOS_KERNEL_PATH}/portable/${frt_kernel_port_name})
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
  ${FREERTOS_KERNEL_PATH}/portable/MemMang/heap_4.c ${frt_arch_sources})
target_include_directories(freertos_kernel PUBLIC ${frt_includes} ${frt_dir} ${RTB_BOARD_DIR})

rtb_add_firmware(freertos KERNEL freertos_kernel INCLUDES ${frt_includes}
  SOURCES ${frt_dir}/port.c ${frt_dir}/thread.c ${frt_dir}/sync.c ${frt_dir}/irq.c
  ${frt_dir}/console.c ${PROJECT_SOURCE_DIR}/ports/common/pool_alloc.c)
# The kernel port's name, for the facts file (console.c).
target_compile_definitions(rtb_port_freertos PRIVATE FRT_KERNEL_PORT="${frt_kernel_port_name}")
if(RTB_BOARD_ARCH STREQUAL "cortex-a")
  target_sources(rtb_port_freertos PRIVATE ${frt_dir}/ca_hooks.c)
endif()
