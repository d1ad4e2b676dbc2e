// tests/references/primer.hpp: serial CPU references for the primer patterns (compaction,
// histogram, segmented scan and the map family), written the obvious way: one loop each, the
// histogram's integer bins by a 128-bit division.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

namespace mgpu_ref {

// The values whose keep[i] is true, in order.
template <typename T, typename Keep>
std::vector<T> compact(const std::vector<T>& input, Keep keep) {
  std::vector<T> out;
  for (std::size_t i = 0; i < input.size(); ++i)
    if (keep(i)) out.push_back(input[i]);
  return out;
}

// Even bins over [lower, upper), computed in C: integers exactly, floor((x - lower) * num_bins /
// (upper - lower)); floating point as (x - lower) * (num_bins / (upper - lower)), at most
// num_bins - 1. Samples outside the range are not counted.
template <typename C, typename Counter, typename T>
std::vector<Counter> histogram(const std::vector<T>& samples, std::int64_t num_bins, C lower, C upper) {
  std::vector<Counter> bins(static_cast<std::size_t>(num_bins), Counter(0));
  for (const T& sample : samples) {
    C x = C(sample);
    if (!(x >= lower) || !(x < upper)) continue;
    std::int64_t b;
    if constexpr (std::is_integral<C>::value) {
      __extension__ typedef unsigned __int128 u128;
      u128 d = u128(std::uint64_t(x) - std::uint64_t(lower)), range = u128(std::uint64_t(upper) - std::uint64_t(lower));
      b = std::int64_t(d * u128(num_bins) / range);
    } else {
      C scale = C(num_bins) / (upper - lower);
      b = std::int64_t((x - lower) * scale);
      if (b > num_bins - 1) b = num_bins - 1;
    }
    ++bins[static_cast<std::size_t>(b)];
  }
  return bins;
}

// Per position: does it start a segment? From heads (sorted, in [0, n]) and always position 0.
inline std::vector<bool> head_flags(std::int64_t n, const std::vector<std::int64_t>& heads) {
  std::vector<bool> starts(static_cast<std::size_t>(n), false);
  if (n) starts[0] = true;
  for (std::int64_t h : heads)
    if (h < n) starts[static_cast<std::size_t>(h)] = true;
  return starts;
}

// Segmented scans: out[i] = init op x[s] op ... op x[i - 1] (exclusive) or x[s] op ... op x[i]
// (inclusive), s the start of i's segment.
template <typename T, typename Op>
std::vector<T> segmented_exclusive_scan(const std::vector<T>& input, const std::vector<bool>& starts, T init, Op op) {
  std::vector<T> out(input.size());
  T acc = init;
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (starts[i]) acc = init;
    out[i] = acc;
    acc = op(acc, input[i]);
  }
  return out;
}
template <typename T, typename Op>
std::vector<T> segmented_inclusive_scan(const std::vector<T>& input, const std::vector<bool>& starts, Op op) {
  std::vector<T> out(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) out[i] = starts[i] ? input[i] : T(op(out[i - 1], input[i]));
  return out;
}

// The map family.
template <typename T, typename I>
std::vector<T> gather(const std::vector<T>& input, const std::vector<I>& indices) {
  std::vector<T> out;
  for (I i : indices) out.push_back(input[static_cast<std::size_t>(i)]);
  return out;
}
template <typename T, typename I>
std::vector<T> scatter(const std::vector<T>& input, const std::vector<I>& indices, std::vector<T> out) {
  for (std::size_t i = 0; i < input.size(); ++i) out[static_cast<std::size_t>(indices[i])] = input[i];
  return out;
}
// out[i] = (x[i - 1] + 2 x[i] + x[i + 1]) / 4, reading the edge value past either end.
inline std::vector<float> smooth(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float left = x[i ? i - 1 : 0], right = x[i + 1 < x.size() ? i + 1 : i];
    out[i] = (left + 2 * x[i] + right) / 4;
  }
  return out;
}

}  // namespace mgpu_ref
