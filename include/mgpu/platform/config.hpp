// mgpu/platform/config.hpp
//
// Backend selection and the function-space macros. This and the rest of platform/ are the only
// code that knows whether it is compiled by nvcc (the CUDA backend) or by a host compiler (the
// CPU simulator). Everything above platform/ writes one source for both.
#pragma once

#if defined(__CUDACC__)
  #define MGPU_BACKEND_CUDA 1
  #include <cuda_runtime.h>
  #if defined(__CUDA_ARCH__)
    // True on the device pass only: guards inline PTX and Hopper-only instructions.
    #define MGPU_DEVICE_PASS 1
  #endif
  #define MGPU_HOST_DEVICE __host__ __device__ __forceinline__
  #define MGPU_DEVICE __device__ __forceinline__
  // Annotation for lambdas that run on the device: `[=] MGPU_LAMBDA (int tid, int cta) {...}`.
  // nvcc needs --extended-lambda for these.
  #define MGPU_LAMBDA __device__
  #define MGPU_HOST_DEVICE_LAMBDA __host__ __device__
#else
  #define MGPU_BACKEND_SIM 1
  #include "sim/runtime.hpp"
  #define MGPU_HOST_DEVICE inline
  #define MGPU_DEVICE inline
  #define MGPU_LAMBDA
  #define MGPU_HOST_DEVICE_LAMBDA
#endif

// The initializer of register arrays (array_t). Partial tiles write and read only the slots below
// their count, under the same guard in two loops; g++ cannot see that and warns (-Wmaybe-
// uninitialized) in every program that compiles the kernels for the simulator, so there the
// arrays start zeroed, at no measurable cost. nvcc's device code keeps them uninitialized.
#if defined(MGPU_BACKEND_CUDA)
  #define MGPU_REGISTERS_INIT
#else
  #define MGPU_REGISTERS_INIT = {}
#endif

// Allocates `type name[count]` in dynamic shared memory (sized by the launch). Use at most once
// per kernel; on CUDA the storage is the kernel's single `extern __shared__` array.
#if defined(MGPU_BACKEND_CUDA)
  #define MGPU_DYNAMIC_SHARED(type, name)                               \
    extern __shared__ __align__(16) unsigned char mgpu_dynamic_smem_[]; \
    type* name = reinterpret_cast<type*>(mgpu_dynamic_smem_)
#else
  #define MGPU_DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(::mgpu::sim::dynamic_shared_memory())
#endif

// Fully unrolls the loop that follows (register arrays must be indexed by constants). Each
// compiler gets its own spelling: nvcc's device pass and clang "unroll", GCC (the simulator)
// "GCC unroll". nvcc's host pass gets none: neither spelling is known to both its front end and
// the host compiler, and host code does not run the kernels. Defined beforehand (empty, say), it is
// left as given (the tests' AddressSanitizer build of the simulator defines it empty: it compiles
// several times faster without unrolling).
#if defined(MGPU_UNROLL)
#elif defined(MGPU_DEVICE_PASS) || (defined(__clang__) && !defined(MGPU_BACKEND_CUDA))
  #define MGPU_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(MGPU_BACKEND_CUDA)
  #define MGPU_UNROLL _Pragma("GCC unroll 64")
#else
  #define MGPU_UNROLL
#endif

namespace mgpu {
// Threads per warp on every supported device.
constexpr int warp_size = 32;
}  // namespace mgpu
