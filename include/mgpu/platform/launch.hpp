// mgpu/platform/launch.hpp
//
// The one place that launches kernels. Every kernel of the library is a CTA function
// f(tid, cta, args...) run by a grid of `num_ctas` CTAs of NT threads; on CUDA through the
// `cta_kernel` template below, on the simulator through the fiber scheduler.
#pragma once

#include "config.hpp"
#include "error.hpp"
#include "memory.hpp"

#include <atomic>
#include <cstddef>

namespace mgpu {
namespace platform {

#if defined(MGPU_BACKEND_CUDA)

// Programmatic dependent launch (sm_90 and later): every kernel is launched allowed to start
// before the kernel ahead of it on the stream has finished, and waits for that kernel's
// completion (and its memory) as its first instruction. What overlaps is the launch itself, the
// gap between two dependent kernels, which is most of the cost of a small call's second and
// later launches. Kernels of other code before ours are waited for the same way; kernels after
// ours are launched as their code says.
MGPU_DEVICE void wait_for_prior_grids() {
  #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  #endif
}

template <int NT, typename F, typename... Args>
__global__ void __launch_bounds__(NT) cta_kernel(F f, Args... args) {
  wait_for_prior_grids();
  f(int(threadIdx.x), int(blockIdx.x), args...);
}
  // The threads one SM holds on the architecture the device pass compiles for: a tuning table's
  // MIN_CTAS is clamped to it, so that a build for another architecture than the one tuned for gets
  // the most that fits rather than ptxas's "threads per SM out of range" (an error under -Werror).
  #if !defined(__CUDA_ARCH__)
constexpr int max_threads_per_sm = 2048;  // (the host pass: launch bounds do not matter there)
  #elif __CUDA_ARCH__ == 750
constexpr int max_threads_per_sm = 1024;
  #elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
constexpr int max_threads_per_sm = 1536;
  #else
constexpr int max_threads_per_sm = 2048;
  #endif
constexpr int fitting_ctas(int nt, int min_ctas) {
  return min_ctas * nt <= max_threads_per_sm ? min_ctas : max_threads_per_sm / nt;
}

// MIN_CTAS > 0 asks the compiler to fit that many CTAs per SM (it caps registers to do so).
template <int NT, int MIN_CTAS, typename F, typename... Args>
__global__ void __launch_bounds__(NT, fitting_ctas(NT, MIN_CTAS)) cta_kernel_min(F f, Args... args) {
  wait_for_prior_grids();
  f(int(threadIdx.x), int(blockIdx.x), args...);
}

template <int NT, int MIN_CTAS, typename F, typename... Args>
constexpr auto kernel_for() {
  if constexpr (MIN_CTAS > 0)
    return &cta_kernel_min<NT, MIN_CTAS, F, Args...>;
  else
    return &cta_kernel<NT, F, Args...>;
}

// Whether the current device takes programmatic dependent launches (compute capability 9.0 and
// later), asked once per device.
inline bool dependent_launch_supported() {
  constexpr int max_devices = 64;
  static std::atomic<int> known[max_devices];  // 0: not asked yet, 1: no, 2: yes
  int device = 0;
  MGPU_CUDA_CHECK(cudaGetDevice(&device));
  auto ask = [&] {
    int major = 0;
    MGPU_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9;
  };
  if (device < 0 || device >= max_devices) return ask();
  int answer = known[device].load(std::memory_order_relaxed);
  if (answer == 0) {
    answer = ask() ? 2 : 1;
    known[device].store(answer, std::memory_order_relaxed);
  }
  return answer == 2;
}

template <int NT, int MIN_CTAS, typename F, typename... Args>
void launch_ctas(int num_ctas, std::size_t dynamic_shared_bytes, stream_t stream, const F& f, const Args&... args) {
  if (num_ctas <= 0) return;
  auto kernel = kernel_for<NT, MIN_CTAS, F, Args...>();
  if (dynamic_shared_bytes > 48 * 1024)
    MGPU_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic_shared_bytes)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(num_ctas));
  config.blockDim = dim3(unsigned(NT));
  config.dynamicSmemBytes = dynamic_shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute early;
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = dependent_launch_supported() ? 1 : 0;
  MGPU_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, f, args...));
}

// How many CTAs of this kernel fit on one SM at once. Without dynamic shared memory the answer
// depends only on the kernel and the device: it is asked once per device and kept (one_wave sizes
// every segmented-sort level with it).
template <int NT, int MIN_CTAS, typename F, typename... Args>
int resident_ctas_per_sm(std::size_t dynamic_shared_bytes) {
  auto ask = [&] {
    int ctas = 0;
    MGPU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, kernel_for<NT, MIN_CTAS, F, Args...>(), NT,
                                                                  dynamic_shared_bytes));
    return ctas > 0 ? ctas : 1;
  };
  constexpr int max_devices = 64;
  static std::atomic<int> known[max_devices];  // 0: not asked yet
  int device = 0;
  MGPU_CUDA_CHECK(cudaGetDevice(&device));
  if (dynamic_shared_bytes != 0 || device < 0 || device >= max_devices) return ask();
  int ctas = known[device].load(std::memory_order_relaxed);
  if (ctas == 0) {
    ctas = ask();
    known[device].store(ctas, std::memory_order_relaxed);
  }
  return ctas;
}

#else  // simulator

template <int NT, int MIN_CTAS, typename F, typename... Args>
void launch_ctas(int num_ctas, std::size_t dynamic_shared_bytes, stream_t, const F& f, const Args&... args) {
  if (num_ctas <= 0) return;
  ++sim_operations_run().launches;
  sim::launch(num_ctas, NT, dynamic_shared_bytes, [&](int tid, int cta) { f(tid, cta, args...); });
}

template <int NT, int MIN_CTAS, typename F, typename... Args>
int resident_ctas_per_sm(std::size_t) {
  return 2048 / NT > 0 ? 2048 / NT : 1;
}

#endif

}  // namespace platform
}  // namespace mgpu
