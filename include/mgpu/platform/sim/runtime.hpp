// mgpu/platform/sim/runtime.hpp
//
// The CUDA device vocabulary for the simulator: function-space keywords, built-in variables,
// barriers, warp intrinsics with their PTX semantics, bit intrinsics, atomics and fences. Device
// code written for nvcc compiles unchanged with a host compiler against this header.
#pragma once

#include "scheduler.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// One copy per OS thread of the pool = one per running CTA, shared by its fibers.
#define __shared__ static thread_local

#define threadIdx (::mgpu::sim::runner().current().thread_idx)
#define blockIdx (::mgpu::sim::runner().block_idx())
#define blockDim (::mgpu::sim::runner().block_dim())
#define gridDim (::mgpu::sim::runner().grid_dim())

constexpr int warpSize = 32;

// ---- barriers ----
inline void __syncthreads() { ::mgpu::sim::runner().sync_threads(0, 0); }
inline int __syncthreads_count(int predicate) { return ::mgpu::sim::runner().sync_threads(predicate, 1); }
inline int __syncthreads_and(int predicate) { return ::mgpu::sim::runner().sync_threads(predicate, 2); }
inline int __syncthreads_or(int predicate) { return ::mgpu::sim::runner().sync_threads(predicate, 3); }

// ---- warp intrinsics ----
namespace mgpu {
namespace sim {
template <typename T>
T warp_shuffle(unsigned mask, T var, unsigned operand, shfl_mode mode, unsigned clamp) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "shuffle intrinsics take types of at most 8 bytes (use mgpu::shfl for others)");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = runner().warp_collective(warp_op::shfl, mask, bits, operand, mode, clamp);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}
inline unsigned shuffle_clamp(int width, bool up) { return (unsigned(32 - width) << 8) | (up ? 0u : 0x1fu); }
}  // namespace sim
}  // namespace mgpu

template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  return ::mgpu::sim::warp_shuffle(mask, var, unsigned(src_lane), ::mgpu::sim::shfl_mode::idx,
                                   ::mgpu::sim::shuffle_clamp(width, false));
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::mgpu::sim::warp_shuffle(mask, var, delta, ::mgpu::sim::shfl_mode::up,
                                   ::mgpu::sim::shuffle_clamp(width, true));
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::mgpu::sim::warp_shuffle(mask, var, delta, ::mgpu::sim::shfl_mode::down,
                                   ::mgpu::sim::shuffle_clamp(width, false));
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return ::mgpu::sim::warp_shuffle(mask, var, unsigned(lane_mask), ::mgpu::sim::shfl_mode::bfly,
                                   ::mgpu::sim::shuffle_clamp(width, false));
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return unsigned(::mgpu::sim::runner().warp_collective(::mgpu::sim::warp_op::vote, mask, 0, predicate != 0,
                                                        ::mgpu::sim::shfl_mode::idx, 0));
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
  // Lanes of the mask that have exited do not vote, as on the hardware: compare the ballot with
  // the lanes that voted (the high word of the vote's result).
  std::uint64_t vote = ::mgpu::sim::runner().warp_collective(::mgpu::sim::warp_op::vote, mask, 0, predicate != 0,
                                                             ::mgpu::sim::shfl_mode::idx, 0);
  return unsigned(vote) == unsigned(vote >> 32);
}
// __reduce_*_sync (sm_80 and newer): every lane of the mask receives the reduction of the values
// of the lanes of the mask.
namespace mgpu {
namespace sim {
inline unsigned warp_reduce(unsigned mask, unsigned value, redux_kind kind) {
  return unsigned(runner().warp_collective(warp_op::redux, mask, value, 0, shfl_mode::idx, unsigned(kind)));
}
}  // namespace sim
}  // namespace mgpu
inline unsigned __reduce_add_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::add);
}
inline int __reduce_add_sync(unsigned mask, int value) {
  return int(::mgpu::sim::warp_reduce(mask, unsigned(value), ::mgpu::sim::redux_kind::add));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::min_unsigned);
}
inline int __reduce_min_sync(unsigned mask, int value) {
  return int(::mgpu::sim::warp_reduce(mask, unsigned(value), ::mgpu::sim::redux_kind::min_signed));
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::max_unsigned);
}
inline int __reduce_max_sync(unsigned mask, int value) {
  return int(::mgpu::sim::warp_reduce(mask, unsigned(value), ::mgpu::sim::redux_kind::max_signed));
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::bit_and);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::bit_or);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value) {
  return ::mgpu::sim::warp_reduce(mask, value, ::mgpu::sim::redux_kind::bit_xor);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::mgpu::sim::runner().warp_collective(::mgpu::sim::warp_op::sync, mask, 0, 0, ::mgpu::sim::shfl_mode::idx, 0);
}
// The lanes of the warp that reach __activemask together (see cta_runner::active_mask).
inline unsigned __activemask() { return ::mgpu::sim::runner().active_mask(); }
inline unsigned __lanemask_lt() { return (1u << (threadIdx.x % 32)) - 1; }

// ---- bit intrinsics ----
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
template <typename T>
T __ldg(const T* p) {
  return *p;
}

// ---- fences, sleep, trap ----
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
// A spinning thread lets its CTA's other threads run (one may set what it waits for) and gives
// its OS thread away (another CTA may); it is cancelled here if its launch aborted, so a CTA
// waiting on a failed one does not spin forever.
inline void __nanosleep(unsigned) {
  ::mgpu::sim::detail::cta_runner* runner = ::mgpu::sim::detail::tls_runner;
  if (runner && runner->launch_aborted()) throw ::mgpu::sim::fiber_cancel{};
  std::this_thread::yield();
  if (runner) runner->pause();
}
inline void __trap() { throw ::mgpu::sim::kernel_error("kernel called __trap()"); }

// ---- atomics (real atomics: CTAs run concurrently on the pool's threads) ----
namespace mgpu {
namespace sim {
template <typename T, typename Op>
T atomic_update(T* address, Op op) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics take 4- or 8-byte types");
  T old = *address;
  while (!__atomic_compare_exchange(address, &old, &(const T&)op(old), true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
}  // namespace sim
}  // namespace mgpu

template <typename T>
T atomicAdd(T* address, T value) {
  if constexpr (std::is_integral<T>::value)
    return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST);
  else
    return ::mgpu::sim::atomic_update(address, [&](T old) { return T(old + value); });
}
template <typename T>
T atomicSub(T* address, T value) {
  return __atomic_fetch_sub(address, value, __ATOMIC_SEQ_CST);
}
template <typename T>
T atomicMin(T* address, T value) {
  return ::mgpu::sim::atomic_update(address, [&](T old) { return value < old ? value : old; });
}
template <typename T>
T atomicMax(T* address, T value) {
  return ::mgpu::sim::atomic_update(address, [&](T old) { return old < value ? value : old; });
}
template <typename T>
T atomicAnd(T* address, T value) {
  return __atomic_fetch_and(address, value, __ATOMIC_SEQ_CST);
}
template <typename T>
T atomicOr(T* address, T value) {
  return __atomic_fetch_or(address, value, __ATOMIC_SEQ_CST);
}
template <typename T>
T atomicXor(T* address, T value) {
  return __atomic_fetch_xor(address, value, __ATOMIC_SEQ_CST);
}
template <typename T>
T atomicExch(T* address, T value) {
  T old;
  __atomic_exchange(address, &value, &old, __ATOMIC_SEQ_CST);
  return old;
}
template <typename T>
T atomicCAS(T* address, T compare, T value) {
  __atomic_compare_exchange(address, &compare, &value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
