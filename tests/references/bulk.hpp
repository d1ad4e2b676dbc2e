// tests/references/bulk.hpp: serial CPU references for bulk_remove and bulk_insert.
#pragma once

#include <cstdint>
#include <vector>

namespace mgpu_ref {

// input without the elements at `indices` (sorted ascending, unique, in range).
template <typename T, typename I>
std::vector<T> bulk_remove(const std::vector<T>& input, const std::vector<I>& indices) {
  std::vector<T> out;
  out.reserve(input.size() - indices.size());
  std::size_t next = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (next < indices.size() && std::size_t(indices[next]) == i) {
      ++next;
      continue;
    }
    out.push_back(input[i]);
  }
  return out;
}

// b with each a[i] placed just before b[indices[i]] (at the end for indices[i] == b.size());
// indices sorted ascending, each in [0, b.size()].
template <typename T, typename I>
std::vector<T> bulk_insert(const std::vector<T>& a, const std::vector<I>& indices, const std::vector<T>& b) {
  std::vector<T> out;
  out.reserve(a.size() + b.size());
  std::size_t next = 0;
  for (std::size_t j = 0; j <= b.size(); ++j) {
    while (next < a.size() && std::size_t(indices[next]) == j) out.push_back(a[next++]);
    if (j < b.size()) out.push_back(b[j]);
  }
  return out;
}

}  // namespace mgpu_ref
