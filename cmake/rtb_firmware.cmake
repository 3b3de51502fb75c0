# SPDX-License-Identifier: Apache-2.0
# Firmware images: one RTOS port on one board, written once for every RTOS.
#
# A firmware port's port.cmake builds its kernel as a library and calls
#   rtb_add_firmware(<rtos> KERNEL <kernel library>
#                    SOURCES <the port's files> INCLUDES <its include folders>)
# which builds rtbench-<rtos>-<board>.elf from the core and scenarios, the
# port, the shared serial protocol and console (ports/common), the board
# (ports/boards/<board>/board.cmake) and its architecture
# (ports/arch/<arch>/arch.cmake). RTB_BOARD chooses the board; its
# board.cmake is read here, so that a port.cmake knows the board's
# architecture (RTB_BOARD_ARCH) before it builds its kernel.
set(RTB_BOARD "mps2-an385" CACHE STRING "Board folder under ports/boards/")
set(RTB_BOARD_DIR ${PROJECT_SOURCE_DIR}/ports/boards/${RTB_BOARD})
if(NOT EXISTS ${RTB_BOARD_DIR}/board.cmake)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no ports/boards/${RTB_BOARD}/board.cmake")
endif()
include(${RTB_BOARD_DIR}/board.cmake)
set(RTB_ARCH_DIR ${PROJECT_SOURCE_DIR}/ports/arch/${RTB_BOARD_ARCH})
include(${RTB_ARCH_DIR}/arch.cmake)
# The linker map (<image>.map) names the object file of every input section, and
# compile_commands.json the source file of every object: together they say, for
# each function of the image, which source it was compiled from (the code path
# trace splits its instructions into the kernel's, the port's and rtbench's own).
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

# rtb_port_sources(<port dir>): the RTOS's sources folder, as its manifest
# (<port dir>/port.json, shared with the Python package and CI) describes it.
# Sets the cache variable the manifest names (sources.cmake_var, e.g.
# FREERTOS_KERNEL_PATH) from -D or from the environment variable of the same
# manifest (sources.env), and stops with one sentence when the folder lacks a
# file the manifest requires.
function(rtb_port_sources port_dir)
  file(READ ${port_dir}/port.json manifest)
  string(JSON var GET "${manifest}" sources cmake_var)
  string(JSON env GET "${manifest}" sources env)
  string(JSON what GET "${manifest}" sources what)
  string(JSON url GET "${manifest}" sources url)
  string(JSON tag GET "${manifest}" sources tested_release)
  string(JSON name GET "${manifest}" name)
  string(JSON count LENGTH "${manifest}" sources required)
  set(${var} "$ENV{${env}}" CACHE PATH "${what}")
  set(folder "${${var}}")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON required GET "${manifest}" sources required ${i})
    if(NOT folder OR NOT EXISTS ${folder}/${required})
      message(FATAL_ERROR "RTB_PORT=${name} needs ${var}: ${what} (${url}, tag ${tag}; "
        "it must hold ${required}), given with -D${var}=<dir> or in the environment ${env}")
    endif()
  endforeach()
  # the programs its build needs beyond the compiler and CMake (tools: each
  # with the Debian package that installs it)
  string(JSON tools ERROR_VARIABLE no_tools LENGTH "${manifest}" tools)
  if(NOT no_tools AND tools GREATER 0)
    math(EXPR last "${tools} - 1")
    foreach(i RANGE ${last})
      string(JSON program GET "${manifest}" tools ${i} program)
      string(JSON package GET "${manifest}" tools ${i} debian)
      find_program(RTB_TOOL_${program} ${program})
      if(NOT RTB_TOOL_${program})
        message(FATAL_ERROR "RTB_PORT=${name}'s build needs ${program}, which is not "
          "installed: apt-get install ${package}.")
      endif()
    endforeach()
  endif()
endfunction()

function(rtb_add_firmware rtos)
  cmake_parse_arguments(PARSE_ARGV 1 fw "" "KERNEL" "SOURCES;INCLUDES")
  set(board_dir ${RTB_BOARD_DIR})
  set(arch_dir ${RTB_ARCH_DIR})
  set(port_dir ${PROJECT_SOURCE_DIR}/ports/${rtos})
  set(common_dir ${PROJECT_SOURCE_DIR}/ports/common)
  set(includes ${fw_INCLUDES} ${port_dir} ${arch_dir} ${board_dir})

  rtb_add_core(${rtos} ${port_dir})
  # the firmware ports' rtb_port_inline.h read fw_irq.h (ports/common)
  target_include_directories(rtb_core_${rtos} PUBLIC ${arch_dir} ${board_dir} ${common_dir})
  target_compile_definitions(rtb_core_${rtos} PRIVATE RTB_BUILD_STATIC=1)

  add_library(rtb_port_${rtos} STATIC ${fw_SOURCES}
    ${common_dir}/ipc_none.c ${common_dir}/serial_proto.c ${common_dir}/error_text.c
    ${common_dir}/fw_console.c ${common_dir}/fw_port.c
    ${RTB_ARCH_SOURCES} ${RTB_BOARD_SOURCES})
  target_include_directories(rtb_port_${rtos} PUBLIC ${includes})
  target_include_directories(rtb_port_${rtos} PRIVATE ${common_dir})
  target_compile_options(rtb_port_${rtos} PRIVATE ${RTB_WARNINGS})
  target_compile_definitions(rtb_port_${rtos} PRIVATE RTB_BUILD_LIBC="${RTB_BUILD_LIBC}")
  target_link_libraries(rtb_port_${rtos} PUBLIC rtb_core_${rtos} ${fw_KERNEL})

  set(image rtbench-${rtos}-${RTB_BOARD})
  add_executable(${image} ${port_dir}/main.c)
  set_target_properties(${image} PROPERTIES SUFFIX ".elf"
    LINK_DEPENDS ${RTB_BOARD_LINKER_SCRIPT})
  target_compile_options(${image} PRIVATE ${RTB_WARNINGS})
  target_link_options(${image} PRIVATE -nostartfiles -T${RTB_BOARD_LINKER_SCRIPT}
    -Wl,--gc-sections -Wl,-Map=${CMAKE_BINARY_DIR}/${image}.map)
  target_link_libraries(${image} PRIVATE
    -Wl,--start-group rtb_scenarios_${rtos} rtb_core_${rtos} rtb_port_${rtos} ${fw_KERNEL}
    -Wl,--end-group)
endfunction()
