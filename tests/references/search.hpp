// tests/references/search.hpp: serial CPU references for the search family (sorted search,
// load-balancing search, interval moves, joins), written the obvious way: one std::lower_bound or
// std::upper_bound per element, nested loops for joins.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace mgpu_ref {

// The bound of each needle in the haystack (std::lower_bound or std::upper_bound), and whether the
// haystack holds a key equal to it (neither orders before the other).
template <typename K, typename Comp>
std::vector<std::int64_t> bounds_of(const std::vector<K>& needles, const std::vector<K>& haystack, bool upper,
                                    Comp comp, std::vector<bool>* matches = nullptr) {
  std::vector<std::int64_t> out;
  if (matches) matches->clear();
  for (const K& k : needles) {
    auto it = upper ? std::upper_bound(haystack.begin(), haystack.end(), k, comp)
                    : std::lower_bound(haystack.begin(), haystack.end(), k, comp);
    out.push_back(std::int64_t(it - haystack.begin()));
    if (matches) {
      auto lo = std::lower_bound(haystack.begin(), haystack.end(), k, comp);
      matches->push_back(lo != haystack.end() && !comp(k, *lo));
    }
  }
  return out;
}

// The segment of each item: std::upper_bound(heads, i) - 1 (-1 before the first head).
template <typename H>
std::vector<std::int64_t> segments_of(std::int64_t count, const std::vector<H>& heads) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < count; ++i)
    out.push_back(std::int64_t(std::upper_bound(heads.begin(), heads.end(), H(i)) - heads.begin()) - 1);
  return out;
}

// Every pair (i, j) with a[i] equal to b[j], by nested loops, ordered by i then j; with
// `left`, (i, -1) for each a[i] without one; with `right`, (-1, j) for each unmatched b[j] at the end.
template <typename K, typename Comp>
std::vector<std::pair<std::int64_t, std::int64_t>> join(const std::vector<K>& a, const std::vector<K>& b, bool left,
                                                        bool right, Comp comp) {
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  std::vector<bool> b_matched(b.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool any = false;
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!comp(a[i], b[j]) && !comp(b[j], a[i])) {
        rows.emplace_back(std::int64_t(i), std::int64_t(j));
        b_matched[j] = any = true;
      }
    if (left && !any) rows.emplace_back(std::int64_t(i), std::int64_t(-1));
  }
  if (right)
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!b_matched[j]) rows.emplace_back(std::int64_t(-1), std::int64_t(j));
  return rows;
}

}  // namespace mgpu_ref
