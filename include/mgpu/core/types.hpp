// mgpu/core/types.hpp
//
// Small value types used by host and device code alike.
#pragma once

#include "../platform/config.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

// A fixed-size array that lives in registers when indexed with compile-time constants
// (unrolled loops). std::array is not usable in device code without relaxed constexpr.
template <typename T, int N>
struct array_t {
  T data[N] MGPU_REGISTERS_INIT;
  MGPU_HOST_DEVICE T& operator[](int i) { return data[i]; }
  MGPU_HOST_DEVICE const T& operator[](int i) const { return data[i]; }
  static constexpr int size() { return N; }
};

// ceil(a / b) for non-negative a and positive b.
template <typename A, typename B>
MGPU_HOST_DEVICE constexpr A div_up(A a, B b) {
  return (a + A(b) - 1) / A(b);
}

// A value of no size: the value type of keys-only sorts and merges.
struct empty_t {};
// Whether V is a real value type (not empty_t).
template <typename V>
constexpr bool has_values_v = !std::is_same<V, empty_t>::value;

// Whether a scan's result for element i includes element i.
enum class scan_kind { exclusive, inclusive };

// The least k with 2^k >= n (n > 0): merge passes over n sorted runs.
MGPU_HOST_DEVICE constexpr int ceil_log2(std::int64_t n) {
  int k = 0;
  while (k < 63 && (std::int64_t(1) << k) < n) ++k;  // (1 << 63 would overflow: every n fits under it)
  return k;
}

// Index of the highest set bit of x (x > 0).
MGPU_HOST_DEVICE int highest_bit(std::uint64_t x) {
#if defined(MGPU_DEVICE_PASS)
  return 63 - __clzll((long long)x);
#else
  return 63 - __builtin_clzll(x);
#endif
}

// Number of trailing zero bits of x (x > 0).
MGPU_HOST_DEVICE int trailing_zeros(std::uint64_t x) {
#if defined(MGPU_DEVICE_PASS)
  return __ffsll((long long)x) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// A value that may be absent (device-friendly: trivially copyable when T is).
template <typename T>
struct maybe {
  T value;
  bool valid;
};

}  // namespace mgpu

namespace mgpu {

// Raw, suitably aligned bytes for a T in shared memory: __shared__ variables cannot run
// constructors, so CTA storage (often a union of per-phase layouts) is declared through this.
#if defined(MGPU_BACKEND_CUDA)
template <typename T>
struct alignas(alignof(T)) shared_storage {
  unsigned char bytes[sizeof(T)];
  MGPU_DEVICE T& get() { return *reinterpret_cast<T*>(bytes); }
};
#else
// On the simulator `__shared__` variables are thread-local statics; this one holds only a pointer
// into the running CTA's shared-memory arena, so that a program's threads do not each carry every
// kernel's storage.
template <typename T>
struct shared_storage {
  void* pointer;
  unsigned long long cta;
  MGPU_DEVICE T& get() { return *static_cast<T*>(sim::cta_static_shared(sizeof(T), alignof(T), pointer, cta)); }
};
#endif

}  // namespace mgpu
