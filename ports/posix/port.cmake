# SPDX-License-Identifier: Apache-2.0
# The POSIX port: rtbench-core, a host program run once per scenario.
rtb_add_core(posix)
# Only rtbench-core is linked statically with RTB_STATIC, so only its engine says so.
target_compile_definitions(rtb_core_posix PRIVATE RTB_BUILD_STATIC=${RTB_BUILD_STATIC})
file(GLOB RTB_PORT_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(FILTER RTB_PORT_SOURCES EXCLUDE REGEX ".*/main\\.c$")
add_library(rtb_port_posix STATIC ${RTB_PORT_SOURCES}
  ${CMAKE_CURRENT_LIST_DIR}/../common/error_text.c
  ${CMAKE_CURRENT_LIST_DIR}/../common/posix_error.c
  ${CMAKE_CURRENT_LIST_DIR}/../common/pool_alloc.c)
target_include_directories(rtb_port_posix PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
target_compile_options(rtb_port_posix PRIVATE ${RTB_WARNINGS})
target_compile_definitions(rtb_port_posix PRIVATE RTB_BUILD_LIBC="${RTB_BUILD_LIBC}")
find_package(Threads REQUIRED)
target_link_libraries(rtb_port_posix PUBLIC rtb_core_posix Threads::Threads rt)

add_executable(rtbench-core ${CMAKE_CURRENT_LIST_DIR}/main.c)
target_compile_options(rtbench-core PRIVATE ${RTB_WARNINGS})
# Scenarios and port reference each other: link them as a group.
target_link_libraries(rtbench-core PRIVATE
  -Wl,--start-group rtb_scenarios_posix rtb_core_posix rtb_port_posix -Wl,--end-group)
if(RTB_STATIC)
  target_link_options(rtbench-core PRIVATE -static)
endif()
