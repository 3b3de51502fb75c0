# SPDX-License-Identifier: Apache-2.0
# The ThreadX port: one firmware image per board,
# rtbench-threadx-<board>.elf, with the core, the scenarios, the port, the
# shared board and architecture code (ports/boards, ports/arch) and Eclipse
# ThreadX taken from THREADX_PATH (a checkout of eclipse-threadx/threadx,
# e.g. v6.4.2_rel; never copied into this repository): its common/ sources
# and the assembly files of its GNU port for the board's architecture
# (ports/cortex_m3/gnu or ports/cortex_a7/gnu), with rtbench's own low-level
# init instead of the example's.
#   cmake -S . -B build/tx -DRTB_PORT=threadx -DRTB_BOARD=mps2-an385 \
#     -DTHREADX_PATH=<threadx> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-m3.cmake
include(${PROJECT_SOURCE_DIR}/cmake/rtb_firmware.cmake)
rtb_port_sources(${CMAKE_CURRENT_LIST_DIR}) # THREADX_PATH
set(RTB_THREADX_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
    "Directory holding the tx_user.h to build with")
option(RTB_THREADX_SEM_PRIORITIZE
  "Call tx_semaphore_prioritize() before every tx_semaphore_put() (ThreadX releases semaphore waiters in arrival order otherwise); OFF leaves it to tx_user.h"
  OFF)
if(NOT EXISTS ${RTB_THREADX_CONFIG_DIR}/tx_user.h)
  message(FATAL_ERROR "RTB_THREADX_CONFIG_DIR=${RTB_THREADX_CONFIG_DIR} holds no tx_user.h")
endif()
enable_language(ASM)
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program
set(tx_dir ${CMAKE_CURRENT_LIST_DIR})
# ThreadX's port for the board's architecture (RTB_BOARD_ARCH, from its
# board.cmake), its assembly files, rtbench's low-level init for it, and the
# port's own folder for it (ports/threadx/<arch>: txp_arch.h, what differs
# between them):
# - cortex-m: cortex_m3/gnu, with lowlevel.c and tx_board.c (SysTick);
# - cortex-a: cortex_a7/gnu with TX_ENABLE_VFP_SUPPORT (in GNU C: its
#   tx_port.h writes `asm`), with txp_ca.c (the
#   board's tick, the GIC) and txp_irq.S (the IRQ entry, which saves the VFP
#   registers a C function may change around the board's dispatch: the
#   context save keeps none). The kernel and txp_ca.c are built with
#   -mgeneral-regs-only: they never touch the VFP registers, so ThreadX's
#   save of them follows the threads that enabled them alone. ThreadX
#   v6.4.2's tx_thread_schedule.S does not assemble with
#   TX_ENABLE_VFP_SUPPORT (its tx_thread_vfp_enable/disable test IRQ_MASK and
#   FIQ_MASK, which that file does not define): they are given to that file
#   alone (other files define them themselves).
if(RTB_BOARD_ARCH STREQUAL "cortex-m")
  set(tx_kernel_port_name cortex_m3/gnu)
  set(tx_port_asm tx_thread_context_restore tx_thread_context_save
    tx_thread_interrupt_control tx_thread_schedule tx_thread_stack_build
    tx_thread_system_return tx_timer_interrupt)
  set(tx_arch_sources ${tx_dir}/lowlevel.c ${tx_dir}/tx_board.c)
elseif(RTB_BOARD_ARCH STREQUAL "cortex-a")
  set(tx_kernel_port_name cortex_a7/gnu)
  set(tx_port_asm tx_thread_context_restore tx_thread_context_save
    tx_thread_interrupt_control tx_thread_interrupt_disable tx_thread_interrupt_restore
    tx_thread_schedule tx_thread_stack_build tx_thread_system_return tx_timer_interrupt)
  set(tx_arch_sources ${tx_dir}/cortex-a/txp_ca.c ${tx_dir}/cortex-a/txp_irq.S)
else()
  message(FATAL_ERROR "RTB_PORT=threadx has no kernel port for architecture ${RTB_BOARD_ARCH}")
endif()
set(tx_kernel_port ${THREADX_PATH}/ports/${tx_kernel_port_name})
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
list(TRANSFORM tx_port_asm PREPEND ${tx_kernel_port}/src/)
list(TRANSFORM tx_port_asm APPEND .S)
add_library(threadx_kernel STATIC ${tx_common_sources} ${tx_port_asm})
target_include_directories(threadx_kernel PUBLIC ${tx_includes})
target_compile_definitions(threadx_kernel PUBLIC TX_INCLUDE_USER_DEFINE_FILE)
if(RTB_BOARD_ARCH STREQUAL "cortex-a")
  target_compile_definitions(threadx_kernel PUBLIC TX_ENABLE_VFP_SUPPORT)
  target_compile_options(threadx_kernel PRIVATE $<$<COMPILE_LANGUAGE:C>:-mgeneral-regs-only>)
  # its tx_port.h masks interrupts with GNU C's `asm` keyword
  set_target_properties(threadx_kernel PROPERTIES C_EXTENSIONS ON)
  set_source_files_properties(${tx_kernel_port}/src/tx_thread_schedule.S PROPERTIES
    COMPILE_DEFINITIONS "IRQ_MASK=0x80;FIQ_MASK=0x40")
  set_source_files_properties(${tx_dir}/cortex-a/txp_ca.c PROPERTIES
    COMPILE_OPTIONS -mgeneral-regs-only)
endif()
if(RTB_THREADX_SEM_PRIORITIZE) # else tx_user.h's setting (rtbench's: 0)
  target_compile_definitions(threadx_kernel PUBLIC RTB_THREADX_SEM_PRIORITIZE=1)
endif()

rtb_add_firmware(threadx KERNEL threadx_kernel INCLUDES ${tx_includes}
  SOURCES ${tx_dir}/port.c ${tx_dir}/thread.c ${tx_dir}/sync.c ${tx_dir}/irq.c
  ${tx_arch_sources} ${tx_dir}/console.c)
target_include_directories(rtb_port_threadx PUBLIC ${tx_dir}/${RTB_BOARD_ARCH})
# The core inlines the port's semaphore calls where tx_user.h allows
# (rtb_port_inline.h): it reads the same tx_user.h and settings as the
# kernel, never ThreadX's own headers.
target_include_directories(rtb_core_threadx PUBLIC ${RTB_THREADX_CONFIG_DIR})
if(RTB_THREADX_SEM_PRIORITIZE)
  target_compile_definitions(rtb_core_threadx PUBLIC RTB_THREADX_SEM_PRIORITIZE=1)
endif()
