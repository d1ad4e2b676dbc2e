// tests/references/merge_sort.hpp: serial CPU references for the merge family.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace mgpu_ref {

// std::merge of (key, value) pairs compared by key: stable, on ties a's pairs first, each input in
// its own order.
template <typename K, typename V, typename Comp>
std::pair<std::vector<K>, std::vector<V>> merge_pairs(const std::vector<K>& a_keys, const std::vector<V>& a_values,
                                                      const std::vector<K>& b_keys, const std::vector<V>& b_values,
                                                      Comp comp) {
  std::vector<std::pair<K, V>> a, b, merged(a_keys.size() + b_keys.size());
  for (std::size_t i = 0; i < a_keys.size(); ++i) a.emplace_back(a_keys[i], a_values[i]);
  for (std::size_t i = 0; i < b_keys.size(); ++i) b.emplace_back(b_keys[i], b_values[i]);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), merged.begin(),
             [&](const std::pair<K, V>& x, const std::pair<K, V>& y) { return comp(x.first, y.first); });
  std::pair<std::vector<K>, std::vector<V>> out;
  for (const auto& kv : merged) {
    out.first.push_back(kv.first);
    out.second.push_back(kv.second);
  }
  return out;
}

// The stable sorting permutation of keys.
template <typename K, typename Comp>
std::vector<std::int64_t> stable_order(const std::vector<K>& keys, Comp comp) {
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t x, std::int64_t y) { return comp(keys[std::size_t(x)], keys[std::size_t(y)]); });
  return order;
}

template <typename T>
std::vector<T> permute(const std::vector<T>& v, const std::vector<std::int64_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (std::int64_t i : order) out.push_back(v[std::size_t(i)]);
  return out;
}

}  // namespace mgpu_ref
