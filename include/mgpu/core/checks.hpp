// mgpu/core/checks.hpp
//
// Argument validation shared by every public function: checks that cost no pass over the data
// and throw std::invalid_argument, naming the function and the parameter, before any launch.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mgpu {
namespace detail {

[[noreturn]] inline void throw_argument(const char* function, const char* parameter, const std::string& problem) {
  throw std::invalid_argument(std::string(function) + ": argument '" + parameter + "' " + problem);
}

template <typename Int>
void check_count(const char* function, const char* parameter, Int count) {
  static_assert(std::is_integral<Int>::value, "counts are integers");
  if constexpr (std::is_signed<Int>::value)
    if (count < 0) throw_argument(function, parameter, "must not be negative (got " + std::to_string(count) + ")");
  if (std::uint64_t(count) > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    throw_argument(function, parameter, "exceeds the largest std::int64_t");
}

// Raw pointers must not be null when they are read or written; iterators are not checked.
template <typename It>
void check_pointer(const char* function, const char* parameter, const It& it, std::int64_t count) {
  if constexpr (std::is_pointer<It>::value)
    if (count > 0 && it == nullptr) throw_argument(function, parameter, "is a null pointer");
}

// An output may alias its input exactly (in place) but must not overlap it otherwise.
template <typename In, typename Out>
void check_in_place_or_disjoint(const char* function, const char* parameter, const In& in,
                                std::int64_t in_count, const Out& out, std::int64_t out_count) {
  if constexpr (std::is_pointer<In>::value && std::is_pointer<Out>::value) {
    auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
    std::uintptr_t a_end = a + std::uintptr_t(in_count) * sizeof(*in);
    std::uintptr_t b_end = b + std::uintptr_t(out_count) * sizeof(*out);
    if (a != b && a < b_end && b < a_end)
      throw_argument(function, parameter, "partially overlaps the input (only exact in-place use is allowed)");
  }
}

}  // namespace detail
}  // namespace mgpu
