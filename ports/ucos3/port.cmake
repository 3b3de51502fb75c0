# SPDX-License-Identifier: Apache-2.0
# The uC/OS-III port: one firmware image per board, rtbench-ucos3-<board>.elf,
# with the core, the scenarios, the port, the shared board and architecture
# code (ports/boards, ports/arch) and uC/OS-III with uC/CPU and uC/LIB taken
# from UCOS3_PATH: the folder holding the three releases side by side, as
# uC-OS3/, uC-CPU/ and uC-LIB/ (v3.08.02, v1.32.01, v1.39.01; never copied
# into this repository).
#   cmake -S . -B build/ucos3 -DRTB_PORT=ucos3 -DRTB_BOARD=mps2-an385 \
#     -DUCOS3_PATH=<folder> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-m3.cmake
include(${PROJECT_SOURCE_DIR}/cmake/rtb_firmware.cmake)
rtb_port_sources(${CMAKE_CURRENT_LIST_DIR}) # UCOS3_PATH
set(RTB_UCOS3_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
  "Folder holding the os_cfg.h, os_cfg_app.h, cpu_cfg.h and lib_cfg.h to build with")
foreach(cfg os_cfg.h os_cfg_app.h cpu_cfg.h lib_cfg.h)
  if(NOT EXISTS ${RTB_UCOS3_CONFIG_DIR}/${cfg})
    message(FATAL_ERROR "RTB_UCOS3_CONFIG_DIR=${RTB_UCOS3_CONFIG_DIR} holds no ${cfg} "
      "(it needs os_cfg.h, os_cfg_app.h, cpu_cfg.h and lib_cfg.h: copy ports/ucos3/config)")
  endif()
endforeach()
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program
enable_language(ASM)
set(ucos3_dir ${CMAKE_CURRENT_LIST_DIR})
set(ucos3_os ${UCOS3_PATH}/uC-OS3)
set(ucos3_cpu ${UCOS3_PATH}/uC-CPU)
# The GNU ports of the kernel and of uC/CPU for the board's architecture
# (RTB_BOARD_ARCH, from its board.cmake), and the port's own folder for it
# (ports/ucos3/<arch>: ucos3_arch.h, what differs between them):
# - cortex-m: ARM-Cortex-M/ARMv7-M (Cortex-M3/M4/M7);
# - cortex-a: ARM-Cortex-A/ARMv7-A, its assembly that saves all 32 VFP/NEON
#   double registers in every task's context and around every interrupt
#   (os_cpu_a_vfp-d32.S: GCC uses them in plain C at -O2, the kernel's
#   code included), and the interrupt glue the kernel port asks of the
#   application (ucos3_ca.c: OS_CPU_ExceptHndlr, the tick).
if(RTB_BOARD_ARCH STREQUAL "cortex-m")
  set(ucos3_kernel_port_name ARM-Cortex-M/ARMv7-M/GNU)
  set(ucos3_os_port ${ucos3_os}/Ports/ARM-Cortex-M/ARMv7-M)
  set(ucos3_os_asm ${ucos3_os_port}/GNU/os_cpu_a.S)
  set(ucos3_cpu_port ${ucos3_cpu}/ARM-Cortex-M/ARMv7-M/GNU)
  set(ucos3_cpu_asm ${ucos3_cpu_port}/cpu_a.s)
  set(ucos3_arch_sources "")
elseif(RTB_BOARD_ARCH STREQUAL "cortex-a")
  set(ucos3_kernel_port_name ARM-Cortex-A/ARMv7-A/GNU)
  set(ucos3_os_port ${ucos3_os}/Ports/ARM-Cortex-A/ARMv7-A)
  set(ucos3_os_asm ${ucos3_os_port}/GNU/os_cpu_a_vfp-d32.S)
  set(ucos3_cpu_port ${ucos3_cpu}/ARM-Cortex-A/ARMv7-A/GNU)
  set(ucos3_cpu_asm ${ucos3_cpu_port}/cpu_a.S)
  set(ucos3_arch_sources ${ucos3_dir}/cortex-a/ucos3_ca.c)
else()
  message(FATAL_ERROR "RTB_PORT=ucos3 has no kernel port for architecture ${RTB_BOARD_ARCH}")
endif()
file(READ ${ucos3_os}/Source/os.h ucos3_os_h)
string(REGEX MATCH "define +OS_VERSION +([0-9]+)u" _ "${ucos3_os_h}")
message(STATUS "uC/OS-III ${CMAKE_MATCH_1} at ${UCOS3_PATH}, board ${RTB_BOARD}")

# The configuration first: it shadows the templates beside the sources.
set(ucos3_includes ${RTB_UCOS3_CONFIG_DIR} ${ucos3_os}/Source ${ucos3_os_port}/GNU
  ${ucos3_cpu} ${ucos3_cpu_port} ${UCOS3_PATH}/uC-LIB)

# The kernel, uC/CPU's core and their assembly: their own warnings, never
# -Werror.
add_library(ucos3_kernel STATIC
  ${ucos3_os}/Source/os_cfg_app.c ${ucos3_os}/Source/os_core.c ${ucos3_os}/Source/os_flag.c
  ${ucos3_os}/Source/os_mem.c ${ucos3_os}/Source/os_msg.c ${ucos3_os}/Source/os_mutex.c
  ${ucos3_os}/Source/os_prio.c ${ucos3_os}/Source/os_q.c ${ucos3_os}/Source/os_sem.c
  ${ucos3_os}/Source/os_stat.c ${ucos3_os}/Source/os_task.c ${ucos3_os}/Source/os_tick.c
  ${ucos3_os}/Source/os_time.c ${ucos3_os}/Source/os_tmr.c ${ucos3_os}/Source/os_var.c
  ${ucos3_os_port}/os_cpu_c.c ${ucos3_os_asm} ${ucos3_cpu}/cpu_core.c ${ucos3_cpu_asm})
target_include_directories(ucos3_kernel PRIVATE ${ucos3_includes})

# rtbench's files read the kernel's headers as a system's: their warnings
# are the kernel's, not rtbench's.
rtb_add_firmware(ucos3 KERNEL ucos3_kernel
  SOURCES ${ucos3_dir}/port.c ${ucos3_dir}/thread.c ${ucos3_dir}/sync.c ${ucos3_dir}/mq.c
  ${ucos3_dir}/irq.c ${ucos3_dir}/mem.c ${ucos3_dir}/console.c ${ucos3_arch_sources})
target_include_directories(rtb_port_ucos3 SYSTEM PUBLIC ${ucos3_includes})
target_include_directories(rtb_port_ucos3 PUBLIC ${ucos3_dir}/${RTB_BOARD_ARCH})
# The kernel port's name, for the facts file (console.c).
target_compile_definitions(rtb_port_ucos3 PRIVATE UCOS3_KERNEL_PORT="${ucos3_kernel_port_name}")
