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
#include <limits>

namespace mgpu {

// Shape of the partition kernels: one search per thread, or per group of lanes (run_searches).
using search_params = launch_params<128, 1>;

namespace detail {
// How many lanes share a search: a search is a chain of dependent loads, so it is latency-bound,
// and a group of g lanes (group_search) takes log_g of the range's steps instead of log_2, at g - 1
// times the loads. The groups' lanes are kept to a quarter of the device's resident threads: a
// warp per search up to about 2,000 searches on an H100, narrower groups above, and one thread
// per search (a halving) where four lanes each would not fit. With all resident threads as the
// budget, merges and sorted searches of 2^24-2^26 elements ran 5-13% slower than with one thread
// per search (the extra probes' traffic); with a sixteenth, 2^24 gained nothing
// (bench/results/2026-11-26_h100_group_search_ab.txt).
inline int lanes_per_search(std::int64_t searches, context& ctx) {
  const std::int64_t budget = std::int64_t(ctx.props().sm_count) * ctx.props().max_threads_per_sm / 4;
  int lanes = warp_size;
  while (lanes > 4 && searches * lanes > budget) lanes /= 2;
  return searches * lanes > budget ? 1 : lanes;
}

// Whether a grid of `tiles` CTAs of the kernel F (launched with arguments of types Args) should
// find its tiles' boundaries itself (cta_merge_path_pair) rather than read them from a partition
// pass: when the grid runs in at most `max_waves` waves. Searching in the CTA costs each CTA a
// search's latency before its loads; within a wave or two the searches overlap, and the partition
// launch and the wait for it are saved. On an H100, int32 keys, searches in the CTAs against the
// partition pass (bench/results/2026-11-27_h100_search_in_ctas_ab.txt): merge of 2^22 keys (1.7
// waves) 1.07x faster, 2^23 (3.3 waves) 1.03x slower, 2^28 1.41x slower; mergesort of 2^22 (passes
// of 1.4 waves) 1.07x faster, 2^23 (2.8 waves) 1.09x slower.
template <typename P, typename F, typename... Args>
bool search_in_ctas(int tiles, context& ctx, int max_waves = 2) {
  return std::int64_t(tiles) <= max_waves * std::int64_t(one_wave<P, F, Args...>(std::numeric_limits<int>::max(), ctx));
}

// The launch argument of a tile kernel whose CTAs search their own bounds: an empty type, not a
// null partitions pointer, so that the kernel is compiled apart from its partitioned form (each
// without the other's code). A branch on the pointer in one kernel cost sorted_search of 2^28 int32
// 0.4% and the mergesort pass of int32 pairs 16 registers (H100).
struct search_bounds_t {};

// Where a merge-like tile's outputs [diag0, diag1) start and end on the a side (x0, x1): from the
// tile's partition entries p[tile], p[tile + 1], or, with p null (an input of one tile), 0 and
// a_count; or, given search_bounds_t, from the CTA's own Merge Path searches (cta_merge_path_pair,
// all threads calling; `shared` holds two std::int64_t).
template <int NT, bounds B, typename AIt, typename BIt, typename Comp>
MGPU_DEVICE void merge_tile_bounds(const std::int64_t* p, int, int tile, AIt, std::int64_t a_count, BIt, std::int64_t,
                                   std::int64_t, std::int64_t, Comp, std::int64_t*, std::int64_t& x0,
                                   std::int64_t& x1) {
  x0 = p ? p[tile] : 0;
  x1 = p ? p[tile + 1] : a_count;
}
template <int NT, bounds B, typename AIt, typename BIt, typename Comp>
MGPU_DEVICE void merge_tile_bounds(search_bounds_t, int tid, int, AIt a, std::int64_t a_count, BIt b,
                                   std::int64_t b_count, std::int64_t diag0, std::int64_t diag1, Comp comp,
                                   std::int64_t* shared, std::int64_t& x0, std::int64_t& x1) {
  cta_merge_path_pair<NT, B>(tid, a, a_count, b, b_count, diag0, diag1, comp, shared, x0, x1);
}

// Runs `count` independent searches: make_search(i) returns search i (a detail::search_range
// with its go_right, as group_search takes), and store(i, answer) receives its answer, called by
// one lane of its group. Searches run a thread each (where they are many) first halve on the
// multiples of `grid` (halve_on_grid; 0: plain halving): the Merge Path partitions pass their
// spacing. Stream-ordered; count >= 1.
template <typename MakeSearch, typename Store>
void run_searches(std::int64_t count, MakeSearch make_search, Store store, context& ctx, std::int64_t grid = 0) {
  const int lanes = lanes_per_search(count, ctx);
  auto kernel = [=] MGPU_LAMBDA(int tid, int cta) {
    std::int64_t thread = std::int64_t(cta) * search_params::nt + tid;
    std::int64_t i = thread / lanes;
    // Lanes past the last search run a copy of it: a group search needs the whole warp.
    auto search = make_search(i < count ? i : count - 1);
    if (lanes == 1 && grid > 1)
      halve_on_grid(search, decltype(search.begin)(grid));
    else
      group_search(search, lanes);
    if (i < count && thread % lanes == 0) store(i, search.begin);
  };
  cta_launch<search_params>(kernel, num_tiles<search_params>(count * lanes, "mgpu::detail::run_searches"), ctx);
}
}  // namespace detail

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
  auto diag = [=] MGPU_LAMBDA(std::int64_t i) { return i * spacing < total ? i * spacing : total; };
  detail::run_searches(
      count,
      [=] MGPU_LAMBDA(std::int64_t i) {
        return detail::merge_path_search<B, AIt, BIt, std::int64_t, Comp>(a, a_count, b, b_count, diag(i), comp);
      },
      [=] MGPU_LAMBDA(std::int64_t i, std::int64_t x) { p[i] = x; }, ctx, spacing);
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
  auto diag = [=] MGPU_LAMBDA(std::int64_t i) { return i * spacing < total ? i * spacing : total; };
  detail::run_searches(
      count,
      [=] MGPU_LAMBDA(std::int64_t i) {
        return detail::merge_path_search<bounds::lower, AIt, BIt, std::int64_t, Comp>(a, a_count, b, b_count, diag(i),
                                                                                      comp);
      },
      [=] MGPU_LAMBDA(std::int64_t i, std::int64_t x) {
        p[i] = detail::balance_merge_path_cut(a, a_count, b, b_count, diag(i), x, comp);
      },
      ctx, spacing);
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
  detail::run_searches(
      partitions_count,
      [=] MGPU_LAMBDA(std::int64_t i) {
        return detail::bound_search<B, KeyIt, std::int64_t, key_t, Comp>(
            keys, count, key_t(i * spacing < items ? i * spacing : items), comp);
      },
      [=] MGPU_LAMBDA(std::int64_t i, std::int64_t x) { p[i] = x; }, ctx);
  return partitions;
}

}  // namespace mgpu
