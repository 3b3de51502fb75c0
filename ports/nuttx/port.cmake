# SPDX-License-Identifier: Apache-2.0
# The NuttX port: one firmware image, rtbench-nuttx-virt-a7.elf, which is
# Apache NuttX built with rtbench as its application. NuttX builds in its own
# tree with its own make, so this file copies the tree NUTTX_PATH names (a
# NuttX release, e.g. nuttx-13.0.0; never copied into this repository) into
# the build folder, configures it there with rtbench's defconfig
# (ports/nuttx/config) and rtbench's application folder (ports/nuttx/apps,
# copied beside it with rtbench.mk naming the sources), runs make, and copies
# the ELF and its map to the names every firmware image has, with a
# compile_commands.json naming each object's source for `--trace`
# (compile_commands.cmake).
#   cmake -S . -B build/nx -DRTB_PORT=nuttx -DRTB_BOARD=virt-a7 \
#     -DNUTTX_PATH=<nuttx> \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-cortex-a7.cmake
set(RTB_NUTTX_CONFIG_DIR "${CMAKE_CURRENT_LIST_DIR}/config" CACHE PATH
    "Directory holding the NuttX defconfig to build with")
set(RTB_BOARD "virt-a7" CACHE STRING "Board folder under ports/boards/")
# the board's and architecture's folders (RTB_BOARD_DIR, RTB_ARCH_DIR)
include(${PROJECT_SOURCE_DIR}/cmake/rtb_firmware.cmake)
if(NOT RTB_BOARD STREQUAL "virt-a7")
  message(FATAL_ERROR "RTB_PORT=nuttx runs on the board virt-a7 only (NuttX's qemu-armv7a), "
    "not on ${RTB_BOARD}.")
endif()
rtb_port_sources(${CMAKE_CURRENT_LIST_DIR}) # NUTTX_PATH, and kconfig-tweak
if(NOT EXISTS ${RTB_NUTTX_CONFIG_DIR}/defconfig)
  message(FATAL_ERROR "RTB_NUTTX_CONFIG_DIR=${RTB_NUTTX_CONFIG_DIR} holds no defconfig.")
endif()
set(RTB_PORT_FIRMWARE ON) # builds an image, not a host program

# The release, for NuttX's version.h: its VERSION file ("nuttx-13.0.0 <commit>")
# or git; the tree is copied without .git, so it is given to NuttX's make.
set(nx_version "0.0.0")
set(nx_build "0")
if(EXISTS ${NUTTX_PATH}/VERSION)
  file(STRINGS ${NUTTX_PATH}/VERSION nx_version_line LIMIT_COUNT 1)
  if(nx_version_line MATCHES "nuttx-([0-9]+\\.[0-9]+\\.[0-9]+)[ \t]*([0-9a-f]*)")
    set(nx_version ${CMAKE_MATCH_1})
    if(CMAKE_MATCH_2)
      set(nx_build ${CMAKE_MATCH_2})
    endif()
  endif()
else()
  execute_process(COMMAND git -C ${NUTTX_PATH} describe --match "nuttx-*"
    OUTPUT_VARIABLE nx_describe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(nx_describe MATCHES "nuttx-([0-9]+\\.[0-9]+\\.[0-9]+)")
    set(nx_version ${CMAKE_MATCH_1})
  endif()
endif()
message(STATUS "NuttX ${nx_version} at ${NUTTX_PATH}, configuration ${RTB_NUTTX_CONFIG_DIR}")

set(nx_port_dir ${CMAKE_CURRENT_LIST_DIR})
set(nx_tree ${CMAKE_BINARY_DIR}/nuttx)
set(nx_apps ${CMAKE_BINARY_DIR}/apps)
set(nx_config_name rtbench)
set(nx_board_configs ${nx_tree}/boards/arm/qemu/qemu-armv7a/configs)

# rtbench's application folder, and rtbench.mk: what its Makefile compiles.
foreach(f Kconfig Make.defs Makefile)
  configure_file(${nx_port_dir}/apps/${f} ${nx_apps}/${f} COPYONLY)
endforeach()
set(nx_common ${PROJECT_SOURCE_DIR}/ports/common)
set(nx_sources ${RTB_CORE_SOURCES} ${RTB_SCENARIO_SOURCES}
  ${nx_port_dir}/main.c ${nx_port_dir}/port.c ${nx_port_dir}/thread.c
  ${nx_port_dir}/irq.c ${nx_port_dir}/console.c ${nx_port_dir}/ipc.c
  ${PROJECT_SOURCE_DIR}/ports/posix/sync.c
  ${nx_common}/fw_console.c ${nx_common}/fw_port.c ${nx_common}/serial_proto.c
  ${nx_common}/error_text.c ${nx_common}/posix_error.c ${nx_common}/pool_alloc.c
  ${RTB_ARCH_DIR}/fw_time.c)
# the port's folder first: ports/posix has an rtb_port_inline.h of its own
set(nx_includes ${PROJECT_SOURCE_DIR}/core/include ${nx_port_dir} ${PROJECT_SOURCE_DIR}/ports
  ${nx_common} ${RTB_ARCH_DIR} ${RTB_BOARD_DIR} ${PROJECT_SOURCE_DIR}/ports/posix)
list(JOIN nx_sources " \\\n\t" nx_sources_text)
list(JOIN nx_includes " " nx_includes_text)
file(WRITE ${nx_apps}/rtbench.mk.new
  "# Written by ports/nuttx/port.cmake: what rtbench's application compiles.\n"
  "RTB_ROOT := ${PROJECT_SOURCE_DIR}\n"
  "RTB_SOURCES := ${nx_sources_text}\n"
  "RTB_INCLUDES := ${nx_includes_text}\n"
  "RTB_DEFINES := -DRTB_BUILD_TYPE=\\\"Release\\\" -DRTB_BUILD_LIBC=\\\"NuttX\\\" "
  "-DRTB_BUILD_STATIC=1 "
  "-DRTB_BUILD_FLAGS=\"\\\"$(strip $(ARCHOPTIMIZATION) $(ARCHCPUFLAGS))\\\"\"\n")
# rewritten only when it changes: every object depends on it
configure_file(${nx_apps}/rtbench.mk.new ${nx_apps}/rtbench.mk COPYONLY)
list(JOIN nx_sources "\n" nx_sources_lines)
file(WRITE ${nx_apps}/rtbench-sources.txt "${nx_sources_lines}\n")

# The tree, copied once per build folder (without .git); configured again
# whenever the defconfig changes (configure.sh -E: distclean first).
add_custom_command(OUTPUT ${nx_tree}/.rtbench-copied
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${nx_tree}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${nx_tree}
  COMMAND tar -C ${NUTTX_PATH} --exclude=.git -cf - . | tar -C ${nx_tree} -xf -
  COMMAND ${CMAKE_COMMAND} -E touch ${nx_tree}/.rtbench-copied
  COMMENT "Copying NuttX from ${NUTTX_PATH}"
  VERBATIM)
add_custom_command(OUTPUT ${nx_tree}/.config
  COMMAND ${CMAKE_COMMAND} -E make_directory ${nx_board_configs}/${nx_config_name}
  COMMAND ${CMAKE_COMMAND} -E copy ${RTB_NUTTX_CONFIG_DIR}/defconfig
    ${nx_board_configs}/${nx_config_name}/defconfig
  COMMAND ./tools/version.sh -v ${nx_version} -b ${nx_build} .version
  COMMAND ./tools/configure.sh -E -a ../apps qemu-armv7a:${nx_config_name}
  DEPENDS ${nx_tree}/.rtbench-copied ${RTB_NUTTX_CONFIG_DIR}/defconfig
  WORKING_DIRECTORY ${nx_tree}
  COMMENT "Configuring NuttX (qemu-armv7a, rtbench's defconfig)"
  VERBATIM)
# NuttX's make decides what to rebuild, rtbench's application included
# (ports/nuttx/apps/Makefile): it runs every time.
set(nx_image ${CMAKE_BINARY_DIR}/rtbench-nuttx-${RTB_BOARD}.elf)
add_custom_target(rtbench-nuttx ALL
  COMMAND make -j2
  COMMAND ${CMAKE_COMMAND} -E copy ${nx_tree}/nuttx ${nx_image}
  COMMAND ${CMAKE_COMMAND} -E copy ${nx_tree}/nuttx.map
    ${CMAKE_BINARY_DIR}/rtbench-nuttx-${RTB_BOARD}.map
  COMMAND ${CMAKE_COMMAND} -DNX_TREE=${nx_tree} -DNUTTX_PATH=${NUTTX_PATH}
    -DRTB_ROOT=${PROJECT_SOURCE_DIR} -DRTB_SOURCES_FILE=${nx_apps}/rtbench-sources.txt
    -DAR=${CMAKE_AR} -DOUT=${CMAKE_BINARY_DIR}/compile_commands.json
    -P ${nx_port_dir}/compile_commands.cmake
  DEPENDS ${nx_tree}/.config ${nx_apps}/rtbench.mk
  WORKING_DIRECTORY ${nx_tree}
  BYPRODUCTS ${nx_image}
  COMMENT "Building NuttX with rtbench"
  VERBATIM)
