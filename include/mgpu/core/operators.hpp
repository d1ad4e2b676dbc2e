// mgpu/core/operators.hpp
//
// Function objects for reductions, scans and comparisons, usable on host and device. As with
// std::plus<>, the void specialization deduces its operand types.
#pragma once

#include "../platform/config.hpp"

namespace mgpu {

// `result` is the typed form's return type: T for arithmetic, bool for comparisons (as std::).
#define MGPU_BINARY_OPERATOR(name, result, expression)                                      \
  template <typename T = void>                                                              \
  struct name {                                                                             \
    MGPU_HOST_DEVICE constexpr result operator()(const T& a, const T& b) const { return expression; } \
  };                                                                                        \
  template <>                                                                               \
  struct name<void> {                                                                       \
    template <typename A, typename B>                                                       \
    MGPU_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const { return expression; } \
  };

MGPU_BINARY_OPERATOR(plus, T, a + b)
MGPU_BINARY_OPERATOR(multiplies, T, a * b)
MGPU_BINARY_OPERATOR(minimum, T, b < a ? b : a)
MGPU_BINARY_OPERATOR(maximum, T, a < b ? b : a)
MGPU_BINARY_OPERATOR(bit_and, T, a & b)
MGPU_BINARY_OPERATOR(bit_or, T, a | b)
MGPU_BINARY_OPERATOR(bit_xor, T, a ^ b)
MGPU_BINARY_OPERATOR(less, bool, a < b)
MGPU_BINARY_OPERATOR(greater, bool, b < a)
MGPU_BINARY_OPERATOR(less_equal, bool, !(b < a))
MGPU_BINARY_OPERATOR(greater_equal, bool, !(a < b))
MGPU_BINARY_OPERATOR(equal_to, bool, a == b)
MGPU_BINARY_OPERATOR(not_equal_to, bool, !(a == b))

#undef MGPU_BINARY_OPERATOR

}  // namespace mgpu
