# SPDX-License-Identifier: Apache-2.0
# The FreeRTOS port: one firmware image per board,
# rtbench-freertos-<board>.elf, with the core, the scenarios, the port, the
# board's startup code and the FreeRTOS kernel taken from
# FREERTOS_KERNEL_PATH (a checkout of FreeRTOS-Kernel, e.g. V11.1.0; never
# copied into this repository).
#   cmake -S . -B build/frt -DRTB_PORT=freertos -DRTB_BOARD=mps2-an385 \
#     -DFREERTOS_KERNEL_PATH=<kernel> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-m3.cmake
set(RTB_BOARD "mps2-an385" CACHE STRING "Board folder under ports/freertos/boards/")
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
set(frt_board_dir ${frt_dir}/boards/${RTB_BOARD})
if(NOT EXISTS ${frt_board_dir}/board.c)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no ports/freertos/boards/${RTB_BOARD}")
endif()
# The Cortex-M3 port of the kernel; a board of another core names its own.
set(frt_kernel_port ${FREERTOS_KERNEL_PATH}/portable/GCC/ARM_CM3)
file(READ ${FREERTOS_KERNEL_PATH}/include/task.h frt_task_h)
string(REGEX MATCH "tskKERNEL_VERSION_NUMBER +\"([^\"]+)\"" _ "${frt_task_h}")
message(STATUS "FreeRTOS kernel ${CMAKE_MATCH_1} at ${FREERTOS_KERNEL_PATH}, board ${RTB_BOARD}")

set(frt_includes ${RTB_FREERTOS_CONFIG_DIR} ${frt_dir} ${frt_dir}/arch/cortex-m ${frt_board_dir}
    ${FREERTOS_KERNEL_PATH}/include ${frt_kernel_port})

# The kernel: its own warnings, never -Werror.
add_library(freertos_kernel STATIC
  ${FREERTOS_KERNEL_PATH}/tasks.c ${FREERTOS_KERNEL_PATH}/queue.c
  ${FREERTOS_KERNEL_PATH}/list.c ${FREERTOS_KERNEL_PATH}/event_groups.c
  ${FREERTOS_KERNEL_PATH}/timers.c ${frt_kernel_port}/port.c
  ${FREERTOS_KERNEL_PATH}/portable/MemMang/heap_4.c)
target_include_directories(freertos_kernel PUBLIC ${frt_includes})

rtb_add_core(freertos ${frt_dir})
target_include_directories(rtb_core_freertos PUBLIC ${frt_dir}/arch/cortex-m ${frt_board_dir})
target_compile_definitions(rtb_core_freertos PRIVATE RTB_BUILD_STATIC=1)

add_library(rtb_port_freertos STATIC
  ${frt_dir}/port.c ${frt_dir}/thread.c ${frt_dir}/sync.c ${frt_dir}/irq.c ${frt_dir}/console.c
  ${frt_dir}/../common/ipc_none.c ${frt_dir}/../common/serial_proto.c
  ${frt_dir}/../common/error_text.c
  ${frt_dir}/arch/cortex-m/fault.c ${frt_board_dir}/board.c ${frt_board_dir}/startup.c)
target_include_directories(rtb_port_freertos PUBLIC ${frt_includes})
target_include_directories(rtb_port_freertos PRIVATE ${frt_dir}/../common)
target_compile_options(rtb_port_freertos PRIVATE ${RTB_WARNINGS})
target_compile_definitions(rtb_port_freertos PRIVATE RTB_BUILD_LIBC="${RTB_BUILD_LIBC}")
target_link_libraries(rtb_port_freertos PUBLIC rtb_core_freertos freertos_kernel)

set(frt_image rtbench-freertos-${RTB_BOARD})
add_executable(${frt_image} ${frt_board_dir}/main.c)
set_target_properties(${frt_image} PROPERTIES SUFFIX ".elf")
target_compile_options(${frt_image} PRIVATE ${RTB_WARNINGS})
target_link_options(${frt_image} PRIVATE -nostartfiles -T${frt_board_dir}/${RTB_BOARD}.ld
  -Wl,--gc-sections -Wl,-Map=${CMAKE_BINARY_DIR}/${frt_image}.map)
set_target_properties(${frt_image} PROPERTIES LINK_DEPENDS ${frt_board_dir}/${RTB_BOARD}.ld)
target_link_libraries(${frt_image} PRIVATE
  -Wl,--start-group rtb_scenarios_freertos rtb_core_freertos rtb_port_freertos freertos_kernel
  -Wl,--end-group)
