// mgpu/platform/intrinsics.hpp
//
// Portable device helpers over the warp intrinsics and the memory model: shuffles of any
// trivially copyable type, relaxed loads and stores for inter-CTA flags, back-off.
#pragma once

#include "config.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mgpu {

constexpr unsigned full_warp_mask = 0xffffffffu;

MGPU_DEVICE int lane_id() { return int(threadIdx.x) & (warp_size - 1); }

namespace detail {
// Moves a trivially copyable T through shuffles of 8-byte words (4-byte where T's size is not a
// multiple of 8): one warp exchange per word.
template <typename T, typename Shuffle>
MGPU_DEVICE T shuffle_words(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable<T>::value, "shuffled types must be trivially copyable");
  using word = std::conditional_t<sizeof(T) % 8 == 0, unsigned long long, unsigned>;
  constexpr int words = int((sizeof(T) + sizeof(word) - 1) / sizeof(word));
  word in[words] = {};
  word out[words];
  std::memcpy(in, &value, sizeof(T));
  MGPU_UNROLL
  for (int i = 0; i < words; ++i) out[i] = shuffle(in[i]);
  T result;
  std::memcpy(&result, out, sizeof(T));
  return result;
}
}  // namespace detail

// __shfl_sync for any trivially copyable type.
template <typename T>
MGPU_DEVICE T shfl(const T& value, int src_lane, int width = warp_size, unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [=](auto w) { return __shfl_sync(mask, w, src_lane, width); });
}
// __shfl_up_sync for any trivially copyable type.
template <typename T>
MGPU_DEVICE T shfl_up(const T& value, unsigned delta, int width = warp_size, unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [=](auto w) { return __shfl_up_sync(mask, w, delta, width); });
}
// __shfl_down_sync for any trivially copyable type.
template <typename T>
MGPU_DEVICE T shfl_down(const T& value, unsigned delta, int width = warp_size, unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [=](auto w) { return __shfl_down_sync(mask, w, delta, width); });
}
// __shfl_xor_sync for any trivially copyable type.
template <typename T>
MGPU_DEVICE T shfl_xor(const T& value, int lane_mask, int width = warp_size, unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [=](auto w) { return __shfl_xor_sync(mask, w, lane_mask, width); });
}

// The OR of `value` over the 32 lanes of the warp, which all call it. One REDUX on sm_80 and newer
// (and the simulator); five shuffles before.
MGPU_DEVICE unsigned warp_or(unsigned value) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  return __reduce_or_sync(full_warp_mask, value);
#else
  MGPU_UNROLL
  for (int offset = 1; offset < warp_size; offset *= 2) value |= __shfl_xor_sync(full_warp_mask, value, offset);
  return value;
#endif
}

// The largest `value` of the 32 lanes of the warp, which all call it (REDUX as warp_or).
MGPU_DEVICE int warp_max(int value) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  return __reduce_max_sync(full_warp_mask, value);
#else
  MGPU_UNROLL
  for (int offset = 1; offset < warp_size; offset *= 2) {
    int other = __shfl_xor_sync(full_warp_mask, value, offset);
    value = other > value ? other : value;
  }
  return value;
#endif
}

// Loads and stores of 4- and 8-byte words that other CTAs read or write concurrently
// (single-copy atomic, not cached in L1, no ordering of their own: pair with thread_fence()).
template <typename T>
MGPU_DEVICE T load_relaxed(const T* address) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "relaxed loads take 4- or 8-byte words");
#if defined(MGPU_BACKEND_CUDA)
  return *static_cast<const volatile T*>(address);
#else
  T value;
  __atomic_load(address, &value, __ATOMIC_RELAXED);
  return value;
#endif
}
template <typename T>
MGPU_DEVICE void store_relaxed(T* address, T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "relaxed stores take 4- or 8-byte words");
#if defined(MGPU_BACKEND_CUDA)
  *static_cast<volatile T*>(address) = value;
#else
  __atomic_store(address, &value, __ATOMIC_RELAXED);
#endif
}

// A 16-byte word that other CTAs read and write concurrently, as one access: a status and the
// value it announces travel together (CUDA backend only; see lookback_state).
struct alignas(16) word128 {
  unsigned w[4];
};

#if defined(MGPU_BACKEND_CUDA)
// One relaxed 16-byte store (st.relaxed.gpu.v4). The PTX memory model does not promise that a
// vector access is single-copy atomic; aligned 16-byte accesses are on every architecture this
// library targets, and CUB's look-back relies on the same (its 8-byte values travel with their
// status in 16 bytes).
MGPU_DEVICE void store_relaxed(word128* address, const word128& value) {
  #if defined(MGPU_DEVICE_PASS)
  asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(address), "r"(value.w[0]), "r"(value.w[1]),
               "r"(value.w[2]), "r"(value.w[3])
               : "memory");
  #else
  (void)address, (void)value;  // host pass: never called
  #endif
}

// One relaxed 16-byte load (ld.relaxed.gpu.v4): see store_relaxed(word128*, ...).
MGPU_DEVICE word128 load_relaxed(const word128* address) {
  word128 value{};
  #if defined(MGPU_DEVICE_PASS)
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(value.w[0]), "=r"(value.w[1]), "=r"(value.w[2]), "=r"(value.w[3])
               : "l"(address)
               : "memory");
  #else
  (void)address;               // host pass: never called
  #endif
  return value;
}
#endif

// A store that publishes: every write of this thread before it is visible to a thread that
// reads this value with load_acquire (st.release.gpu).
MGPU_DEVICE void store_release(unsigned* address, unsigned value) {
#if defined(MGPU_DEVICE_PASS)
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
#elif defined(MGPU_BACKEND_CUDA)
  (void)address, (void)value;  // host pass: never called
#else
  __atomic_store_n(address, value, __ATOMIC_RELEASE);
#endif
}
// A load that acquires: what the publishing thread wrote before its store_release is visible to
// this thread's later loads (ld.acquire.gpu).
MGPU_DEVICE unsigned load_acquire(const unsigned* address) {
#if defined(MGPU_DEVICE_PASS)
  unsigned value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
#elif defined(MGPU_BACKEND_CUDA)
  (void)address;
  return 0;  // host pass: never called
#else
  return __atomic_load_n(address, __ATOMIC_ACQUIRE);
#endif
}

// Orders this thread's memory accesses for every thread of the device.
MGPU_DEVICE void thread_fence() { __threadfence(); }

// Spin-wait back-off. On the simulator this also yields the OS thread and lets an aborted
// launch cancel the spinning CTA.
MGPU_DEVICE void backoff(unsigned nanoseconds) { __nanosleep(nanoseconds); }

}  // namespace mgpu
