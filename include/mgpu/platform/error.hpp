// mgpu/platform/error.hpp
//
// The library's exceptions. Every failing CUDA call throws mgpu::cuda_error; bad arguments throw
// std::invalid_argument (core/checks.hpp); preconditions that cost a pass over the data throw
// mgpu::precondition_error in checked mode.
#pragma once

#include "config.hpp"

#include <stdexcept>
#include <string>

namespace mgpu {

#if defined(MGPU_BACKEND_CUDA)
using error_code = cudaError_t;
#else
using error_code = int;
#endif

// A CUDA runtime call failed. what() names the call, the code and CUDA's message.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(error_code code, const std::string& call) : std::runtime_error(describe(code, call)), code_(code) {}
  error_code code() const noexcept { return code_; }

 private:
  static std::string describe(error_code code, const std::string& call) {
#if defined(MGPU_BACKEND_CUDA)
    return call + " failed: " + cudaGetErrorName(code) + " (" + std::to_string(int(code)) +
           "): " + cudaGetErrorString(code);
#else
    return call + " failed with code " + std::to_string(code);
#endif
  }
  error_code code_;
};

// A documented precondition of a function (sorted input, indices in range, ...) does not hold.
// Thrown only in checked mode (context::set_checked), before any output is written.
class precondition_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {
#if defined(MGPU_BACKEND_CUDA)
inline void throw_if_failed(cudaError_t code, const char* call) {
  if (code != cudaSuccess) throw cuda_error(code, call);
}
#endif
}  // namespace detail

}  // namespace mgpu

#if defined(MGPU_BACKEND_CUDA)
   // Throws mgpu::cuda_error naming `call` if it does not return cudaSuccess.
  #define MGPU_CUDA_CHECK(call) ::mgpu::detail::throw_if_failed((call), #call)
#endif
