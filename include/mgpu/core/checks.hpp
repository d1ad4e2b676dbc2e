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

// Whether the byte ranges of two raw-pointer arrays overlap (false for iterators), and whether
// they start at the same address.
template <typename A, typename B>
bool arrays_overlap(const A& a, std::int64_t a_count, const B& b, std::int64_t b_count, bool* same_start = nullptr) {
  if constexpr (std::is_pointer<A>::value && std::is_pointer<B>::value) {
    auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    if (same_start) *same_start = x == y;
    return a_count > 0 && b_count > 0 && x < y + std::uintptr_t(b_count) * sizeof(*b) &&
           y < x + std::uintptr_t(a_count) * sizeof(*a);
  }
  return false;
}

// An output may alias its input exactly (in place) but must not overlap it otherwise.
template <typename In, typename Out>
void check_in_place_or_disjoint(const char* function, const char* parameter, const In& in,
                                std::int64_t in_count, const Out& out, std::int64_t out_count) {
  bool same_start = false;
  if (arrays_overlap(in, in_count, out, out_count, &same_start) && !same_start)
    throw_argument(function, parameter, "partially overlaps the input (only exact in-place use is allowed)");
}

// An output must not overlap an input at all.
template <typename In, typename Out>
void check_disjoint(const char* function, const char* parameter, const In& in, std::int64_t in_count,
                    const Out& out, std::int64_t out_count) {
  if (arrays_overlap(in, in_count, out, out_count))
    throw_argument(function, parameter, "overlaps an input");
}

}  // namespace detail
}  // namespace mgpu
