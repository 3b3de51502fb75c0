# SPDX-License-Identifier: Apache-2.0
# rtb_detect_libc(<var>): the C library the compiler builds against, as the
# core records it in its meta record ("glibc 2.36", "musl", "newlib 4.3.0",
# ...), read from the macros its headers define. The compiler only
# preprocesses, so this works for cross compilers too (nothing is run).
# musl defines no version macro: it is recognised by the __DEFINED_<type>
# guards of its bits/alltypes.h and recorded as "musl". A toolchain file may
# set RTB_LIBC_HINT for a library none of these macros identify.
function(rtb_detect_libc out)
  set(probe ${CMAKE_BINARY_DIR}/rtb_libc_probe.c)
  file(WRITE ${probe} "#include <stdlib.h>\n")
  separate_arguments(flags UNIX_COMMAND "${CMAKE_C_FLAGS}")
  execute_process(COMMAND ${CMAKE_C_COMPILER} ${flags} -E -dM ${probe}
                  OUTPUT_VARIABLE defs RESULT_VARIABLE rc ERROR_QUIET)
  set(libc "unknown")
  if(NOT rc EQUAL 0)
    set(libc "unknown")
  elseif(defs MATCHES "#define __UCLIBC__")
    set(libc "uClibc")
  elseif(defs MATCHES "#define __BIONIC__")
    set(libc "bionic")
  elseif(defs MATCHES "#define __GLIBC__ ([0-9]+)")
    set(major ${CMAKE_MATCH_1})
    if(defs MATCHES "#define __GLIBC_MINOR__ ([0-9]+)")
      set(libc "glibc ${major}.${CMAKE_MATCH_1}")
    else()
      set(libc "glibc ${major}")
    endif()
  elseif(defs MATCHES "#define __PICOLIBC_VERSION__ \"([^\"]+)\"")
    set(libc "picolibc ${CMAKE_MATCH_1}")
  elseif(defs MATCHES "#define _NEWLIB_VERSION \"([^\"]+)\"")
    set(libc "newlib ${CMAKE_MATCH_1}")
  elseif(defs MATCHES "#define __DEFINED_size_t")
    set(libc "musl")
  elseif(RTB_LIBC_HINT)
    set(libc "${RTB_LIBC_HINT}")
  endif()
  set(${out} "${libc}" PARENT_SCOPE)
endfunction()
