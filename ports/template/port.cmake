# SPDX-License-Identifier: Apache-2.0
# The template port as the selected port (RTB_PORT=template): the core, the
# scenarios and the template's stubs, e.g. cross-built for a microcontroller
# to check that the core still compiles there (tests/cross/). Nothing runs.
rtb_add_core(template)
target_compile_definitions(rtb_core_template PRIVATE RTB_BUILD_STATIC=${RTB_BUILD_STATIC})
add_library(rtb_port_template STATIC ${CMAKE_CURRENT_LIST_DIR}/port.c
  ${CMAKE_CURRENT_LIST_DIR}/../common/ipc_none.c
  ${CMAKE_CURRENT_LIST_DIR}/../common/pool_alloc.c)
target_compile_options(rtb_port_template PRIVATE ${RTB_FREESTANDING} ${RTB_WARNINGS})
target_link_libraries(rtb_port_template PUBLIC rtb_core_template)
add_executable(rtbench-core ${CMAKE_CURRENT_LIST_DIR}/main.c)
target_compile_options(rtbench-core PRIVATE ${RTB_WARNINGS})
target_link_libraries(rtbench-core PRIVATE
  -Wl,--start-group rtb_scenarios_template rtb_core_template rtb_port_template -Wl,--end-group)
