// tests/references/sets.hpp: the serial references of the set operations are the standard
// library's: std::set_* over (key, source) pairs ordered by the key alone, so that the source
// says which copy of a key std keeps (a[i] has source i, b[j] has source a.size() + j).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace mgpu_ref {

enum class set_op { intersection, union_, difference, symmetric_difference };

// What std::set_* keeps of sorted a and b: each kept key with its source.
template <typename K, typename Comp>
std::vector<std::pair<K, std::int64_t>> set_operation(set_op op, const std::vector<K>& a, const std::vector<K>& b,
                                                      Comp comp) {
  using item = std::pair<K, std::int64_t>;
  std::vector<item> x, y, out;
  for (std::size_t i = 0; i < a.size(); ++i) x.emplace_back(a[i], std::int64_t(i));
  for (std::size_t j = 0; j < b.size(); ++j) y.emplace_back(b[j], std::int64_t(a.size() + j));
  auto by_key = [comp](const item& p, const item& q) { return comp(p.first, q.first); };
  auto to = std::back_inserter(out);
  switch (op) {
    case set_op::intersection:
      std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), to, by_key);
      break;
    case set_op::union_:
      std::set_union(x.begin(), x.end(), y.begin(), y.end(), to, by_key);
      break;
    case set_op::difference:
      std::set_difference(x.begin(), x.end(), y.begin(), y.end(), to, by_key);
      break;
    case set_op::symmetric_difference:
      std::set_symmetric_difference(x.begin(), x.end(), y.begin(), y.end(), to, by_key);
      break;
  }
  return out;
}

}  // namespace mgpu_ref
