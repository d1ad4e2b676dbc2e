// tests/references/merge_sort.hpp: serial CPU references for the merge family.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace mgpu_ref {

// std::merge of (key, value) pairs by key: stable, a before b on ties.
template <typename K, typename V, typename Comp>
std::pair<std::vector<K>, std::vector<V>> merge_pairs(const std::vector<K>& a_keys, const std::vector<V>& a_values,
                                                      const std::vector<K>& b_keys, const std::vector<V>& b_values,
                                                      Comp comp) {
  std::vector<std::size_t> order(a_keys.size() + b_keys.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](std::size_t i) -> const K& { return i < a_keys.size() ? a_keys[i] : b_keys[i - a_keys.size()]; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return comp(key(x), key(y)); });
  std::pair<std::vector<K>, std::vector<V>> out;
  for (std::size_t i : order) {
    out.first.push_back(key(i));
    out.second.push_back(i < a_keys.size() ? a_values[i] : b_values[i - a_keys.size()]);
  }
  return out;
}

// The stable sorting permutation of keys.
template <typename K, typename Comp>
std::vector<std::int64_t> stable_order(const std::vector<K>& keys, Comp comp) {
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return comp(keys[std::size_t(x)], keys[std::size_t(y)]); });
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
