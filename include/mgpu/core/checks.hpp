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

// a_count + b_count, or an exception naming both if the sum exceeds the largest std::int64_t (both
// already checked non-negative).
inline std::int64_t checked_sum(const char* function, const char* a_parameter, std::int64_t a_count,
                                const char* b_parameter, std::int64_t b_count) {
  if (a_count > std::numeric_limits<std::int64_t>::max() - b_count)
    throw_argument(function, b_parameter,
                   std::string("plus '") + a_parameter + "' exceeds the largest std::int64_t (got " +
                       std::to_string(b_count) + " + " + std::to_string(a_count) + ")");
  return a_count + b_count;
}

// Raw pointers must not be null when they are read or written, and an array of `count` elements
// must fit in memory (its size in bytes in std::int64_t); iterators are not checked.
template <typename It>
void check_pointer(const char* function, const char* parameter, const It& it, std::int64_t count) {
  if constexpr (std::is_pointer<It>::value) {
    if (count > 0 && it == nullptr) throw_argument(function, parameter, "is a null pointer");
    constexpr std::int64_t element_bytes = std::int64_t(sizeof(*it));
    if (count > std::numeric_limits<std::int64_t>::max() / element_bytes)
      throw_argument(function, parameter,
                     "would hold " + std::to_string(count) + " elements, more bytes than std::int64_t counts");
  }
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
void check_in_place_or_disjoint(const char* function, const char* parameter, const In& in, std::int64_t in_count,
                                const Out& out, std::int64_t out_count) {
  bool same_start = false;
  if (arrays_overlap(in, in_count, out, out_count, &same_start) && !same_start)
    throw_argument(function, parameter, "partially overlaps the input (only exact in-place use is allowed)");
}

// An output must not overlap an input at all.
template <typename In, typename Out>
void check_disjoint(const char* function, const char* parameter, const In& in, std::int64_t in_count, const Out& out,
                    std::int64_t out_count) {
  if (arrays_overlap(in, in_count, out, out_count)) throw_argument(function, parameter, "overlaps an input");
}

}  // namespace detail
}  // namespace mgpu
