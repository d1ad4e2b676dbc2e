# Builds and runs tests/consumer twice: against an install of MGPU_SOURCE (find_package), and
# with add_subdirectory. SIM and CUDA pick the consumers (the targets this build of mgpu made);
# RUN_CUDA runs the CUDA one too (where a GPU is). Run with
#   cmake -DMGPU_SOURCE=... -DWORK=... -DGENERATOR=... -DSIM=ON|OFF -DCUDA=ON|OFF -DRUN_CUDA=ON|OFF -P run.cmake
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGV}")
  endif()
endfunction()
set(consumer ${MGPU_SOURCE}/tests/consumer)
set(options -G ${GENERATOR} -DCONSUMER_SIM=${SIM} -DCONSUMER_CUDA=${CUDA})
# 1. install (a plain configure: what a user runs), then find_package
run(${CMAKE_COMMAND} -S ${MGPU_SOURCE} -B ${WORK}/lib -G ${GENERATOR} -DCMAKE_INSTALL_PREFIX=${WORK}/prefix
    -DMGPU_BUILD_TESTS=OFF -DMGPU_BUILD_EXAMPLES=OFF -DMGPU_BUILD_BENCH=OFF)
run(${CMAKE_COMMAND} --install ${WORK}/lib)
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/installed ${options} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
# 2. add_subdirectory
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/embedded ${options} -DUSE_SUBDIRECTORY=ON -DMGPU_SOURCE=${MGPU_SOURCE})
# 3. without Boost.Context, a simulator consumer is stopped at configure time by a message that
#    names the package, both ways.
if(SIM)
  foreach(way installed embedded)
    set(how -DCMAKE_PREFIX_PATH=${WORK}/prefix)
    if(way STREQUAL embedded)
      set(how -DUSE_SUBDIRECTORY=ON -DMGPU_SOURCE=${MGPU_SOURCE})
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/no_boost_${way} ${options} ${how}
                            -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(code EQUAL 0 OR NOT "${out}${err}" MATCHES "libboost-context-dev")
      message(FATAL_ERROR "${way}: a consumer of mgpu::sim without Boost.Context configured (${code}) "
                          "or was not told the package:\n${out}${err}")
    endif()
  endforeach()
endif()
foreach(build installed embedded)
  run(${CMAKE_COMMAND} --build ${WORK}/${build})
  if(SIM)
    run(${WORK}/${build}/consumer_sim)
  endif()
  if(CUDA AND RUN_CUDA)
    run(${WORK}/${build}/consumer_cuda)
  endif()
endforeach()
