// tests/references/segmented_sort.hpp: the serial reference of segmented sorts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace mgpu_ref {

// The permutation that stably sorts each segment [heads[i], heads[i + 1]) (plus [0, heads[0])
// and [heads.back(), n)) by comp.
template <typename K, typename Head, typename Comp>
std::vector<std::int64_t> segmented_order(const std::vector<K>& keys, const std::vector<Head>& heads, Comp comp) {
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> bounds{0};
  for (Head h : heads) bounds.push_back(std::int64_t(h));
  bounds.push_back(std::int64_t(keys.size()));
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i)
    std::stable_sort(order.begin() + bounds[i], order.begin() + bounds[i + 1],
                     [&](std::int64_t a, std::int64_t b) { return comp(keys[std::size_t(a)], keys[std::size_t(b)]); });
  return order;
}

}  // namespace mgpu_ref
