// mgpu/algorithms/partition.hpp
//
// The partition phase of the two-phase idiom, as small kernels that write one split point per
// tile boundary. Each tile of the work phase then reads its own range in O(1).
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/balanced_path.hpp"
#include "../cta/search.hpp"

#include <cstdint>

namespace mgpu {

// Shape of the partition kernels. A search is a chain of dependent global loads, so it is
// latency-bound: one search per thread keeps as many chains in flight as there are searches
// (transform's default of 8 per thread ran them one after another, 8x the latency).
using search_params = launch_params<128, 1>;

// partitions[i] = merge_path<B>(a, a_count, b, b_count, min(i * spacing, a_count + b_count), comp)
// for i in [0, ceil((a_count + b_count) / spacing)]: how many of a's elements the merge's first
// i * spacing outputs take. Stream-ordered. Throws std::invalid_argument for negative counts, null
// pointers with non-zero counts, or a spacing that is not positive.
template <bounds B = bounds::lower, typename AIt, typename BIt, typename Comp>
buffer<std::int64_t> merge_path_partitions(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count,
                                           std::int64_t spacing, Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  const char* fn = "mgpu::merge_path_partitions";
  detail::check_count(fn, "a_count", a_count);
  detail::check_count(fn, "b_count", b_count);
  detail::check_pointer(fn, "a", a, a_count);
  detail::check_pointer(fn, "b", b, b_count);
  if (spacing <= 0) detail::throw_argument(fn, "spacing", "must be positive");
  const std::int64_t total = detail::checked_sum(fn, "a_count", a_count, "b_count", b_count);
  std::int64_t count = div_up(total, spacing) + 1;
  buffer<std::int64_t> partitions(count, ctx);
  std::int64_t* p = partitions.data();
  transform<search_params>(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t diag = i * spacing < total ? i * spacing : total;
        p[i] = merge_path<B>(a, a_count, b, b_count, diag, comp);
      },
      count, ctx);
  return partitions;
}

// partitions[i] = balanced_path(a, a_count, b, b_count, min(i * spacing, a_count + b_count), comp)
// for i in [0, ceil((a_count + b_count) / spacing)]: the cuts of a set operation's tiles, each
// holding spacing - 1 to spacing + 1 elements (see balanced_path). Stream-ordered. Throws
// std::invalid_argument as merge_path_partitions does.
template <typename AIt, typename BIt, typename Comp>
buffer<balanced_split<std::int64_t>> balanced_path_partitions(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count,
                                                              std::int64_t spacing, Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  const char* fn = "mgpu::balanced_path_partitions";
  detail::check_count(fn, "a_count", a_count);
  detail::check_count(fn, "b_count", b_count);
  detail::check_pointer(fn, "a", a, a_count);
  detail::check_pointer(fn, "b", b, b_count);
  if (spacing <= 0) detail::throw_argument(fn, "spacing", "must be positive");
  const std::int64_t total = detail::checked_sum(fn, "a_count", a_count, "b_count", b_count);
  std::int64_t count = div_up(total, spacing) + 1;
  buffer<balanced_split<std::int64_t>> partitions(count, ctx);
  balanced_split<std::int64_t>* p = partitions.data();
  transform<search_params>(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t diag = i * spacing < total ? i * spacing : total;
        p[i] = balanced_path(a, a_count, b, b_count, diag, comp);
      },
      count, ctx);
  return partitions;
}

// partitions[i] = binary_search<B>(keys, count, key_of(i * spacing), comp) for i in
// [0, ceil(items / spacing)], with the last boundary at `items`: where each tile of `items`
// positions starts in a sorted list of keys (positions, say, of removals or insertions). Throws
// std::invalid_argument as merge_path_partitions does.
template <bounds B = bounds::lower, typename KeyIt, typename Comp>
buffer<std::int64_t> binary_search_partitions(KeyIt keys, std::int64_t count, std::int64_t items, std::int64_t spacing,
                                              Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<KeyIt>);
  const char* fn = "mgpu::binary_search_partitions";
  detail::check_count(fn, "count", count);
  detail::check_count(fn, "items", items);
  detail::check_pointer(fn, "keys", keys, count);
  if (spacing <= 0) detail::throw_argument(fn, "spacing", "must be positive");
  std::int64_t partitions_count = div_up(items, spacing) + 1;
  buffer<std::int64_t> partitions(partitions_count, ctx);
  std::int64_t* p = partitions.data();
  using key_t = iterator_value_t<KeyIt>;
  transform<search_params>(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t position = i * spacing < items ? i * spacing : items;
        p[i] = binary_search<B>(keys, count, key_t(position), comp);
      },
      partitions_count, ctx);
  return partitions;
}

}  // namespace mgpu
