# SPDX-License-Identifier: Apache-2.0
# Writes compile_commands.json beside the NuttX image: for each object the
# linker map names (<archive>(<member>), NuttX's staging libraries and
# rtbench's libapps.a), the source it was compiled from, so that `--trace`
# splits a path into NuttX's code, the port's and the measurement's
# (python/rtbench/trace/codepath/origin.py). NuttX's sources are named by
# their place in NUTTX_PATH (the build compiles a copy of that tree), found
# through the dependency files NuttX's make writes (Make.dep: "obj: source
# headers"). rtbench's objects are named by port.cmake's rule (the source's
# path under rtbench, '/' made '_').
#   cmake -DNX_TREE=<copy> -DNUTTX_PATH=<tree> -DRTB_ROOT=<rtbench>
#     -DRTB_SOURCES_FILE=<list> -DAR=<ar> -DOUT=<json> -P compile_commands.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(NX_TREE ${NX_TREE} REALPATH)

set(entries "")
macro(add_entry source output)
  string(APPEND entries "  {\"directory\": \"${NX_TREE}\", \"file\": \"${source}\", "
    "\"output\": \"${output}\"},\n")
endmacro()

# rtbench's application
file(STRINGS ${RTB_SOURCES_FILE} rtb_sources)
foreach(source IN LISTS rtb_sources)
  file(RELATIVE_PATH rel ${RTB_ROOT} ${source})
  string(REPLACE "/" "_" member ${rel})
  string(REGEX REPLACE "\\.c$" ".o" member ${member})
  add_entry(${source} "${NX_TREE}/staging/libapps.a(${member})")
endforeach()

# NuttX: every object's source, by the object's file name
file(GLOB_RECURSE deps ${NX_TREE}/*/Make.dep)
foreach(dep IN LISTS deps)
  get_filename_component(dir ${dep} DIRECTORY)
  get_filename_component(parent ${dir} DIRECTORY)
  # one string per rule: a line's closing backslash escapes the list's
  # separator, so file(STRINGS) gives a rule's continued lines as one
  file(STRINGS ${dep} lines)
  foreach(line IN LISTS lines)
    # "obj: source headers", the source maybe on the rule's next line
    # (after "\;")
    if(NOT line MATCHES "^([^ :]+\\.o):[ \\\\;]*([^ \\\\;]+)")
      continue()
    endif()
    get_filename_component(member ${CMAKE_MATCH_1} NAME)
    set(src ${CMAKE_MATCH_2})
    if(NOT IS_ABSOLUTE ${src})
      if(EXISTS ${dir}/${src})
        set(src ${dir}/${src})
      else()
        set(src ${parent}/${src})
      endif()
    endif()
    list(APPEND "nx_src_${member}" ${src})
  endforeach()
endforeach()

# which folder of the tree an archive's objects come from, where two
# folders have objects of the same name (sched/sem_wait.o, libs/libc's)
set(folder_c libs/libc)
set(folder_m libs/libm)
set(folder_arch arch)
set(folder_board boards)
file(GLOB archives ${NX_TREE}/staging/lib*.a)
foreach(archive IN LISTS archives)
  get_filename_component(name ${archive} NAME_WE)
  string(REGEX REPLACE "^lib" "" stem ${name})
  if(stem STREQUAL "apps")
    continue()
  endif()
  set(folder ${stem})
  if(DEFINED folder_${stem})
    set(folder ${folder_${stem}})
  endif()
  execute_process(COMMAND ${AR} t ${archive} OUTPUT_VARIABLE members
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REPLACE "\n" ";" members "${members}")
  foreach(member IN LISTS members)
    set(candidates ${nx_src_${member}})
    list(LENGTH candidates n)
    if(n EQUAL 0)
      continue()
    endif()
    list(GET candidates 0 chosen)
    if(n GREATER 1)
      foreach(c IN LISTS candidates)
        if(c MATCHES "^${NX_TREE}/${folder}/")
          set(chosen ${c})
          break()
        endif()
      endforeach()
    endif()
    # through NuttX's folder links (arch/arm/src/chip, ...) to the file itself
    get_filename_component(chosen ${chosen} REALPATH)
    string(REPLACE "${NX_TREE}/" "${NUTTX_PATH}/" chosen ${chosen})
    add_entry(${chosen} "${archive}(${member})")
  endforeach()
endforeach()

string(REGEX REPLACE ",\n$" "\n" entries "${entries}")
file(WRITE ${OUT} "[\n${entries}]\n")
