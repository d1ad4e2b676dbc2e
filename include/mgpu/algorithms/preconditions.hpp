// mgpu/algorithms/preconditions.hpp
//
// The checks of checked mode (context::set_checked) that cost a pass over the data: run before
// any output is written, and throw mgpu::precondition_error naming the function and argument.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../platform/error.hpp"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace mgpu {
namespace detail {

// Index values of any integer type, widened for comparisons with 64-bit positions.
struct index_to_int64 {
  template <typename I>
  MGPU_HOST_DEVICE std::int64_t operator()(const I& i) const {
    return std::int64_t(i);
  }
};

template <typename It>
transform_iterator<index_to_int64, It> indices_as_int64(It indices) {
  static_assert(std::is_integral<iterator_value_t<It>>::value, "indices must have an integer value type");
  return make_transform_iterator(indices, index_to_int64());
}

// Checked mode (bulk_remove, bulk_insert, segment heads): one pass over indices[0, count) counts the
// entries outside [lo, hi], those below their predecessor and (with `unique`) those equal to it,
// into device memory; the host reads the counts back and throws precondition_error naming `fn`
// if any is non-zero. Nothing else is written.
template <typename IndicesIt>
void check_sorted_indices(const char* fn, const char* parameter, IndicesIt indices, std::int64_t count, std::int64_t lo,
                          std::int64_t hi, const char* range_text, bool unique, context& ctx) {
  if (count == 0) return;
  buffer<unsigned long long> counters(3, ctx);
  zero_bytes(counters.data(), 3 * sizeof(unsigned long long), ctx);
  unsigned long long* c = counters.data();
  auto idx = indices_as_int64(indices);
  transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t v = idx[i];
        if (v < lo || v > hi) atomicAdd(c + 0, 1ull);
        if (i > 0) {
          std::int64_t previous = idx[i - 1];
          if (v < previous)
            atomicAdd(c + 1, 1ull);
          else if (unique && v == previous)
            atomicAdd(c + 2, 1ull);
        }
      },
      count, ctx);
  std::vector<unsigned long long> found = counters.to_host();
  if (!found[0] && !found[1] && !found[2]) return;
  std::string problems;
  auto add = [&](unsigned long long n, const std::string& what) {
    if (!n) return;
    problems += problems.empty() ? " " : "; ";
    problems += std::to_string(n) + " " + what;
  };
  add(found[0], std::string(found[0] == 1 ? "entry" : "entries") + " outside " + range_text);
  add(found[1], std::string(found[1] == 1 ? "entry" : "entries") +
                    " smaller than the one before (indices must be sorted ascending)");
  add(found[2], std::string(found[2] == 1 ? "entry" : "entries") + " equal to the one before (indices must be unique)");
  throw precondition_error(std::string(fn) + ": precondition violated: argument '" + parameter + "' has" + problems);
}

// Checked mode: throws precondition_error naming `fn` and `parameter` if keys[0, count) is not
// sorted by comp (some key is less than its predecessor).
template <typename KeysIt, typename Comp>
void check_sorted(const char* fn, const char* parameter, KeysIt keys, std::int64_t count, Comp comp, context& ctx) {
  if (count < 2) return;
  buffer<unsigned long long> unsorted(std::vector<unsigned long long>{0}, ctx);
  unsigned long long* u = unsorted.data();
  transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        if (comp(keys[i + 1], keys[i])) atomicAdd(u, 1ull);
      },
      count - 1, ctx);
  unsigned long long found = unsorted.to_host()[0];
  if (found)
    throw precondition_error(std::string(fn) + ": precondition violated: argument '" + parameter + "' is not sorted (" +
                             std::to_string(found) + (found == 1 ? " key is" : " keys are") +
                             " less than the one before)");
}

// Checked mode: throws precondition_error naming `fn` and `parameter` if an entry of
// indices[0, count) lies outside [lo, hi) (column indices of a sparse matrix, say).
template <typename IndicesIt>
void check_indices_in_range(const char* fn, const char* parameter, IndicesIt indices, std::int64_t count,
                            std::int64_t lo, std::int64_t hi, const char* range_text, context& ctx) {
  if (count == 0) return;
  buffer<unsigned long long> outside(std::vector<unsigned long long>{0}, ctx);
  unsigned long long* o = outside.data();
  auto idx = indices_as_int64(indices);
  transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t v = idx[i];
        if (v < lo || v >= hi) atomicAdd(o, 1ull);
      },
      count, ctx);
  unsigned long long found = outside.to_host()[0];
  if (found)
    throw precondition_error(std::string(fn) + ": precondition violated: argument '" + parameter + "' has " +
                             std::to_string(found) + (found == 1 ? " entry" : " entries") + " outside " + range_text);
}

}  // namespace detail
}  // namespace mgpu
