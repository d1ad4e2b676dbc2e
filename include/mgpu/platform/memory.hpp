// mgpu/platform/memory.hpp
//
// Device memory, streams and device properties: the backend-specific calls that core/context.hpp
// builds on. On the simulator "device" memory is host memory and every copy is immediate.
#pragma once

#include "config.hpp"
#include "error.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace mgpu {

#if defined(MGPU_BACKEND_CUDA)
using stream_t = cudaStream_t;
#else
struct sim_stream;  // the simulator runs every launch to completion: streams are only names
using stream_t = sim_stream*;
#endif

// What the library needs to know of the device it runs on.
struct device_properties {
  std::string name;
  int ordinal = 0;
  int arch = 0;      // compute capability as major * 10 + minor (90 for Hopper)
  int sm_count = 0;  // multiprocessors
  int max_threads_per_sm = 0;
  std::size_t shared_per_block = 0;        // default dynamic + static limit per CTA
  std::size_t shared_per_block_optin = 0;  // after cudaFuncSetAttribute
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
};

namespace platform {

#if defined(MGPU_BACKEND_CUDA)

inline int current_device() {
  int device = 0;
  MGPU_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

inline device_properties query_device(int device) {
  cudaDeviceProp p{};
  MGPU_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  device_properties d;
  d.name = p.name;
  d.ordinal = device;
  d.arch = p.major * 10 + p.minor;
  d.sm_count = p.multiProcessorCount;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.shared_per_block = p.sharedMemPerBlock;
  d.shared_per_block_optin = p.sharedMemPerBlockOptin;
  d.l2_bytes = std::size_t(p.l2CacheSize);
  d.global_bytes = p.totalGlobalMem;
  return d;
}

inline stream_t create_stream() {
  cudaStream_t s = nullptr;
  MGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}
inline void destroy_stream(stream_t s) noexcept { cudaStreamDestroy(s); }
inline void synchronize(stream_t s) { MGPU_CUDA_CHECK(cudaStreamSynchronize(s)); }

// A memory pool owned by one context: stream-ordered allocations that stay cached in the pool
// between calls (release threshold: unlimited) until the context goes away.
using memory_pool = cudaMemPool_t;
inline memory_pool create_pool(int device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  MGPU_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep_all = ~std::uint64_t(0);
  MGPU_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  return pool;
}
inline void destroy_pool(memory_pool pool) noexcept { cudaMemPoolDestroy(pool); }
inline void* pool_allocate(memory_pool pool, std::size_t bytes, stream_t s) {
  void* p = nullptr;
  MGPU_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool, s));
  return p;
}
inline void pool_deallocate(void* p, stream_t s) { MGPU_CUDA_CHECK(cudaFreeAsync(p, s)); }

inline void copy_to_device(void* dst, const void* src, std::size_t bytes, stream_t s) {
  MGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
}
inline void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_t s) {
  MGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
}
inline void copy_device(void* dst, const void* src, std::size_t bytes, stream_t s) {
  MGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
}
inline void memset_device(void* dst, int value, std::size_t bytes, stream_t s) {
  MGPU_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, s));
}

#else  // simulator

inline int current_device() { return 0; }

inline device_properties query_device(int) {
  device_properties d;
  d.name = "mgpu CPU simulator";
  d.arch = 90;  // kernels use the sm_90 tuning tables
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.shared_per_block = 48 * 1024;
  d.shared_per_block_optin = 227 * 1024;
  d.l2_bytes = 50u << 20;
  d.global_bytes = std::size_t(1) << 34;
  return d;
}

inline stream_t create_stream() { return nullptr; }
inline void destroy_stream(stream_t) noexcept {}
inline void synchronize(stream_t) {}

struct memory_pool_tag;
using memory_pool = memory_pool_tag*;
inline memory_pool create_pool(int) { return nullptr; }
inline void destroy_pool(memory_pool) noexcept {}
inline void* pool_allocate(memory_pool, std::size_t bytes, stream_t) {
  // 256-byte alignment, as cudaMalloc gives.
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::bad_alloc();
  return p;
}
inline void pool_deallocate(void* p, stream_t) { std::free(p); }

// What the simulator has run since the program started: the stream operations a CUDA graph of
// the same calls would hold as nodes (launches of at least one CTA, memsets, copies). Tests read
// it to check what a call enqueues (tests/test_util.hpp, count_enqueued).
struct sim_operations {
  std::atomic<long> launches{0}, memsets{0}, copies{0};
};
inline sim_operations& sim_operations_run() {
  static sim_operations run;
  return run;
}

// Kept out of line, as the CUDA calls they stand for are: inlined, g++ traced "device" pointers
// back through the allocator's null return for 0 bytes and warned (-Warray-bounds) about a
// memset that no path reaches.
[[gnu::noinline]] inline void copy_to_device(void* dst, const void* src, std::size_t bytes, stream_t) {
  ++sim_operations_run().copies;
  if (bytes) std::memmove(dst, src, bytes);
}
[[gnu::noinline]] inline void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_t) {
  ++sim_operations_run().copies;
  if (bytes) std::memmove(dst, src, bytes);
}
[[gnu::noinline]] inline void copy_device(void* dst, const void* src, std::size_t bytes, stream_t) {
  ++sim_operations_run().copies;
  if (bytes) std::memmove(dst, src, bytes);
}
[[gnu::noinline]] inline void memset_device(void* dst, int value, std::size_t bytes, stream_t) {
  ++sim_operations_run().memsets;
  if (bytes) std::memset(dst, value, bytes);
}

#endif

}  // namespace platform
}  // namespace mgpu
