// mgpu/core/operators.hpp
//
// Function objects for reductions, scans and comparisons, usable on host and device. Each means
// what the standard library's function object of the same name means (greater is a > b, as
// std::greater, and needs only operator>); minimum and maximum are std::min and std::max (on ties
// both return a). As with std::plus<>, the void specialization deduces its operand types.
#pragma once

#include "../platform/config.hpp"

#include <type_traits>

namespace mgpu {

// `result` is the typed form's return type: T for arithmetic, bool for comparisons (as std::).
// The void form's return type is spelled out, so that asking whether it can be called with two
// operands (is_comparator_v) answers false instead of failing inside the body.
#define MGPU_BINARY_OPERATOR(name, result, expression)                                                 \
  template <typename T = void>                                                                         \
  struct name {                                                                                        \
    MGPU_HOST_DEVICE constexpr result operator()(const T& a, const T& b) const { return expression; }  \
  };                                                                                                   \
  template <>                                                                                          \
  struct name<void> {                                                                                  \
    template <typename A, typename B>                                                                  \
    MGPU_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(expression) { \
      return expression;                                                                               \
    }                                                                                                  \
  };

// (clang-format would read a * b and a & b as declarations.)
// clang-format off
MGPU_BINARY_OPERATOR(plus, T, a + b)
MGPU_BINARY_OPERATOR(multiplies, T, a * b)
MGPU_BINARY_OPERATOR(minimum, T, b < a ? b : a)
MGPU_BINARY_OPERATOR(maximum, T, a < b ? b : a)
MGPU_BINARY_OPERATOR(bit_and, T, a & b)
MGPU_BINARY_OPERATOR(bit_or, T, a | b)
MGPU_BINARY_OPERATOR(bit_xor, T, a ^ b)
MGPU_BINARY_OPERATOR(less, bool, a < b)
MGPU_BINARY_OPERATOR(greater, bool, a > b)
MGPU_BINARY_OPERATOR(less_equal, bool, a <= b)
MGPU_BINARY_OPERATOR(greater_equal, bool, a >= b)
MGPU_BINARY_OPERATOR(equal_to, bool, a == b)
MGPU_BINARY_OPERATOR(not_equal_to, bool, a != b)
// clang-format on

#undef MGPU_BINARY_OPERATOR

// Whether Comp can order two keys of type K: comp(a, b) callable with two keys and convertible to
// bool. (A __device__-only lambda cannot be asked on the host; nvcc checks it where it is called.)
template <typename Comp, typename K>
constexpr bool is_comparator_v =
#if defined(MGPU_BACKEND_CUDA)
    __nv_is_extended_device_lambda_closure_type(Comp) ||
#endif
    std::is_invocable_r<bool, const Comp&, const K&, const K&>::value;

}  // namespace mgpu

// Rejects, at the call, a comparator that cannot order two keys, naming what one must be.
#define MGPU_REQUIRE_COMPARATOR(Comp, K)                                                                         \
  static_assert(::mgpu::is_comparator_v<Comp, K>,                                                                \
                "mgpu: the comparator 'comp' must be callable as comp(key, key) and return bool: a "             \
                "function object with an MGPU_HOST_DEVICE operator() (mgpu::less<>, mgpu::greater<>, ...) or a " \
                "lambda written [=] MGPU_HOST_DEVICE_LAMBDA (const K& a, const K& b) { ... }; see "              \
                "docs/conventions.md")
