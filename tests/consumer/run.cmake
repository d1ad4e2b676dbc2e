# Builds and runs tests/consumer twice: against an install of MGPU_SOURCE, and with
# add_subdirectory. Run with cmake -DMGPU_SOURCE=... -DWORK=... -DGENERATOR=... -P run.cmake.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGV}")
  endif()
endfunction()
set(consumer ${MGPU_SOURCE}/tests/consumer)
# 1. install, then find_package
run(${CMAKE_COMMAND} -S ${MGPU_SOURCE} -B ${WORK}/lib -G ${GENERATOR} -DMGPU_BUILD_TESTS=OFF
    -DMGPU_BUILD_EXAMPLES=OFF -DMGPU_BUILD_BENCH=OFF -DMGPU_BUILD_CUDA=OFF
    -DCMAKE_INSTALL_PREFIX=${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${WORK}/lib)
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/installed -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run(${CMAKE_COMMAND} --build ${WORK}/installed)
run(${WORK}/installed/consumer)
# 2. add_subdirectory
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/embedded -G ${GENERATOR} -DUSE_SUBDIRECTORY=ON
    -DMGPU_SOURCE=${MGPU_SOURCE})
run(${CMAKE_COMMAND} --build ${WORK}/embedded)
run(${WORK}/embedded/consumer)
