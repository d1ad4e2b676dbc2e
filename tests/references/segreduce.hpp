// tests/references/segreduce.hpp: serial CPU references for segmented reduction, reduction by key
// and CSR SpMV, written the obvious way: one loop per segment, run or row, folding left to right.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace mgpu_ref {

// The end of segment s of heads[0, num) over [0, count): the next head, or count for the last.
template <typename H>
std::int64_t segment_end(const std::vector<H>& heads, std::size_t s, std::int64_t count) {
  return s + 1 < heads.size() ? std::int64_t(heads[s + 1]) : count;
}

// out[s] = init op value(b) op ... op value(e - 1) for each segment [b, e) of the heads.
template <typename T, typename H, typename Value, typename Op>
std::vector<T> segmented_reduce_of(std::int64_t count, const std::vector<H>& heads, T init, Op op, Value value) {
  std::vector<T> out;
  for (std::size_t s = 0; s < heads.size(); ++s) {
    T acc = init;
    for (std::int64_t i = std::int64_t(heads[s]); i < segment_end(heads, s, count); ++i)
      acc = op(acc, T(value(i, std::int64_t(s), i - std::int64_t(heads[s]))));
    out.push_back(acc);
  }
  return out;
}

// The same over an array.
template <typename T, typename In, typename H, typename Op>
std::vector<T> segmented_reduce(const std::vector<In>& input, const std::vector<H>& heads, T init, Op op) {
  return segmented_reduce_of(std::int64_t(input.size()), heads, init, op,
                             [&](std::int64_t i, std::int64_t, std::int64_t) { return input[std::size_t(i)]; });
}

// The heads of the segments that head flags describe: position 0 and every set flag.
inline std::vector<std::int64_t> heads_of_flags(const std::vector<unsigned>& flags, std::int64_t count) {
  std::vector<std::int64_t> heads;
  for (std::int64_t i = 0; i < count; ++i)
    if (i == 0 || (flags[std::size_t(i / 32)] >> (i % 32) & 1u)) heads.push_back(i);
  return heads;
}

// Runs of consecutive keys that `equal` calls equal: their first keys and their values folded by op.
template <typename K, typename V, typename Eq, typename Op>
std::pair<std::vector<K>, std::vector<V>> reduce_by_key(const std::vector<K>& keys, const std::vector<V>& values,
                                                        Eq equal, Op op) {
  std::pair<std::vector<K>, std::vector<V>> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !equal(keys[i - 1], keys[i])) {
      out.first.push_back(keys[i]);
      out.second.push_back(values[i]);
    } else {
      out.second.back() = op(out.second.back(), values[i]);
    }
  }
  return out;
}

// y = A x in double, for a CSR matrix given by its num_rows + 1 offsets.
template <typename V, typename C, typename O, typename X>
std::vector<double> spmv(const std::vector<V>& values, const std::vector<C>& columns, const std::vector<O>& offsets,
                         const std::vector<X>& x) {
  std::vector<double> y;
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    double sum = 0;
    for (std::int64_t k = std::int64_t(offsets[r]); k < std::int64_t(offsets[r + 1]); ++k)
      sum += double(values[std::size_t(k)]) * double(x[std::size_t(columns[std::size_t(k)])]);
    y.push_back(sum);
  }
  return y;
}

}  // namespace mgpu_ref
