# ctest bench_provenance_build: runs one short benchmark of bench_attention with JSON output and
# checks that the context's attention_build describes the attention code's own build -- the build
# type and its flags, the optimised paths' flags, and in a CUDA build nvcc's flags and the
# architectures -- rather than leaving the reader with Google Benchmark's library_build_type.
#   cmake -DBENCH=<bench_attention> -DBUILD_TYPE=<type> -DTYPE_FLAGS=<flags> -DCUDA=<ON|OFF> -P check_attention_build.cmake
execute_process(
  COMMAND ${BENCH} "--benchmark_filter=^cpu/sgemm_qk/N:512/d:64/" --benchmark_min_time=0.01 --benchmark_format=json
  OUTPUT_VARIABLE json ERROR_VARIABLE log RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_attention failed (${rc}): ${log}")
endif()
string(JSON build ERROR_VARIABLE missing GET "${json}" context attention_build)
if(missing)
  message(FATAL_ERROR "the JSON context has no attention_build: ${missing}")
endif()
set(expected "${BUILD_TYPE} (" "${TYPE_FLAGS}" "optimised CPU paths: -O3")
if(CUDA)
  list(APPEND expected "-Xptxas -v" "sm_80, sm_90")
  if(NOT build MATCHES "CUDA kernels: nvcc [0-9]+\\.[0-9]+")
    message(FATAL_ERROR "attention_build '${build}' does not name nvcc's version")
  endif()
endif()
foreach(part IN LISTS expected)
  string(FIND "${build}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "attention_build '${build}' does not contain '${part}'")
  endif()
endforeach()
message(STATUS "attention_build: ${build}")
