# SPDX-License-Identifier: Apache-2.0
# The ThreadX port: one firmware image per board,
# rtbench-threadx-<board>.elf, with the core, the scenarios, the port, the
# shared board and architecture code (ports/boards, ports/arch) and Eclipse
# ThreadX taken from THREADX_PATH (a checkout of eclipse-threadx/threadx,
# e.g. v6.4.2_rel; never copied into this repository): its common/ sources
# and its Cortex-M3 GNU port's assembly files (ports/cortex_m3/gnu), with
# rtbench's own low-level init (lowlevel.c, tx_board.c) instead of the
# example's.
#   cmake -S . -B build/tx -DRTB_PORT=threadx -DRTB_BOARD=mps2-an385 \
#     -DTHREADX_PATH=<threadx> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-m3.cmake
include(${PROJECT_SOURCE_DIR}/cmake/rtb_firmware.cmake)
set(THREADX_PATH "$ENV{THREADX_PATH}" CACHE PATH "Eclipse ThreadX checkout")
set(RTB_THREADX_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
    "Directory holding the tx_user.h to build with")
option(RTB_THREADX_SEM_PRIORITIZE
  "Call tx_semaphore_prioritize() before every tx_semaphore_put() (ThreadX releases semaphore waiters in arrival order otherwise); OFF leaves it to tx_user.h"
  OFF)
if(NOT THREADX_PATH OR NOT EXISTS ${THREADX_PATH}/common/inc/tx_api.h)
  message(FATAL_ERROR "RTB_PORT=threadx needs THREADX_PATH: a checkout of "
    "https://github.com/eclipse-threadx/threadx (tag v6.4.2_rel), given with "
    "-DTHREADX_PATH=<dir> or in the environment")
endif()
if(NOT EXISTS ${RTB_THREADX_CONFIG_DIR}/tx_user.h)
  message(FATAL_ERROR "RTB_THREADX_CONFIG_DIR=${RTB_THREADX_CONFIG_DIR} holds no tx_user.h")
endif()
enable_language(ASM)
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program
set(tx_dir ${CMAKE_CURRENT_LIST_DIR})
# ThreadX's port for the board's core; a board of another core names its own.
set(tx_kernel_port ${THREADX_PATH}/ports/cortex_m3/gnu)
file(READ ${THREADX_PATH}/common/inc/tx_api.h tx_api_h)
string(REGEX MATCH "THREADX_MAJOR_VERSION +([0-9]+)" _ "${tx_api_h}")
set(tx_version ${CMAKE_MATCH_1})
string(REGEX MATCH "THREADX_MINOR_VERSION +([0-9]+)" _ "${tx_api_h}")
string(APPEND tx_version ".${CMAKE_MATCH_1}")
string(REGEX MATCH "THREADX_PATCH_VERSION +([0-9]+)" _ "${tx_api_h}")
string(APPEND tx_version ".${CMAKE_MATCH_1}")
message(STATUS "ThreadX ${tx_version} at ${THREADX_PATH}, board ${RTB_BOARD}, "
  "semaphore prioritize ${RTB_THREADX_SEM_PRIORITIZE}")

set(tx_includes ${RTB_THREADX_CONFIG_DIR} ${THREADX_PATH}/common/inc ${tx_kernel_port}/inc)

# The kernel: every common source (the linker keeps what is called) and the
# port's assembly, with its own warnings, never -Werror. Every file that
# includes tx_api.h, rtbench's too, reads tx_user.h.
file(GLOB tx_common_sources ${THREADX_PATH}/common/src/*.c)
add_library(threadx_kernel STATIC ${tx_common_sources}
  ${tx_kernel_port}/src/tx_thread_context_restore.S
  ${tx_kernel_port}/src/tx_thread_context_save.S
  ${tx_kernel_port}/src/tx_thread_interrupt_control.S
  ${tx_kernel_port}/src/tx_thread_schedule.S
  ${tx_kernel_port}/src/tx_thread_stack_build.S
  ${tx_kernel_port}/src/tx_thread_system_return.S
  ${tx_kernel_port}/src/tx_timer_interrupt.S)
target_include_directories(threadx_kernel PUBLIC ${tx_includes})
target_compile_definitions(threadx_kernel PUBLIC TX_INCLUDE_USER_DEFINE_FILE)
if(RTB_THREADX_SEM_PRIORITIZE) # else tx_user.h's setting (rtbench's: 0)
  target_compile_definitions(threadx_kernel PUBLIC RTB_THREADX_SEM_PRIORITIZE=1)
endif()

rtb_add_firmware(threadx KERNEL threadx_kernel INCLUDES ${tx_includes}
  SOURCES ${tx_dir}/port.c ${tx_dir}/thread.c ${tx_dir}/sync.c ${tx_dir}/irq.c
  ${tx_dir}/lowlevel.c ${tx_dir}/tx_board.c ${tx_dir}/console.c)
