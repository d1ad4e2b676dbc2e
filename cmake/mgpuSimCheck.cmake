# cmake/mgpuSimCheck.cmake: at the end of the consumer's configure, tells the projects that link
# mgpu::sim what the simulator needs: Boost.Context (an error naming the package if it is missing)
# and optimization (a warning for a Debug build; with no build type at all, mgpu::sim itself adds
# -O2). Included by mgpu's CMakeLists.txt (add_subdirectory) and by its package config.

# The targets of `dir` and of every directory below it that link mgpu::sim, in `out`.
function(_mgpu_sim_consumers dir out)
  set(found)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_property(links TARGET ${target} PROPERTY LINK_LIBRARIES)
    if(NOT target STREQUAL "mgpu_sim" AND ("mgpu::sim" IN_LIST links OR "mgpu_sim" IN_LIST links))
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _mgpu_sim_consumers("${subdir}" below)
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(_mgpu_check_sim_consumers)
  get_property(boost_found GLOBAL PROPERTY _MGPU_SIM_BOOST_FOUND)
  _mgpu_sim_consumers("${CMAKE_SOURCE_DIR}" consumers)
  if(NOT consumers)
    return()
  endif()
  list(JOIN consumers ", " names)
  list(LENGTH consumers how_many)
  if(how_many EQUAL 1)
    set(names "target ${names} links")
  else()
    set(names "targets ${names} link")
  endif()
  if(NOT boost_found)
    message(FATAL_ERROR "mgpu: ${names} mgpu::sim, the CPU simulator, which needs Boost.Context "
                        "1.71 or newer: install it (Debian/Ubuntu: sudo apt-get install libboost-context-dev)")
  endif()
  if(CMAKE_BUILD_TYPE MATCHES "^[Dd][Ee][Bb][Uu][Gg]$")
    message(WARNING "mgpu: ${names} mgpu::sim in a Debug build: the simulator runs kernels about "
                    "five times slower without optimization (configure with -DCMAKE_BUILD_TYPE=Release "
                    "or RelWithDebInfo to run it at speed)")
  endif()
endfunction()

# Schedules the check for the end of the top-level directory, once per configure.
function(mgpu_check_sim_consumers_at_end boost_found)
  get_property(scheduled GLOBAL PROPERTY _MGPU_SIM_CHECK_SCHEDULED)
  if(scheduled)
    return()
  endif()
  set_property(GLOBAL PROPERTY _MGPU_SIM_CHECK_SCHEDULED TRUE)
  set_property(GLOBAL PROPERTY _MGPU_SIM_BOOST_FOUND "${boost_found}")
  # (A deferred call's arguments are expanded when it runs, in the top directory: hence the property.)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _mgpu_check_sim_consumers)
endfunction()
