// mgpu/algorithms/join.hpp
//
// join: the sort-merge join of two sorted key arrays. Every pair of equal keys (a[i], b[j]) is one
// output row (i, j): a run of m equal keys in a against n in b gives m * n rows. Left and outer
// joins add a row (i, -1) for each a[i] with no equal key in b; right and outer joins add (-1, j)
// for each unmatched b[j], after all other rows.
//
// 1. Search: each a[i]'s lower bound in b and its upper bound, whose difference is the number of
//    b's keys equal to it (one pass: sorted_equal_range's); for right and outer joins, which b's
//    have a match (the b side of the same merge).
// 2. Scans: a[i]'s rows start at the exclusive scan of its row counts (max(1, matches) for left
//    and outer joins); unmatched b's get their positions after them the same way. Counts add with
//    saturation, so a join of more than 2^63 - 1 rows is detected rather than wrapped.
// 3. Rows: load-balancing search over the rows (a's row starts as segment heads) gives each row
//    its a index (the segment) and its b index (the lower bound plus the rank); a transform writes
//    the unmatched b's rows.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/segments.hpp"
#include "load_balance.hpp"
#include "scan.hpp"
#include "sorted_search.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mgpu {

// Which rows a join keeps besides the matches: unmatched a's (left), unmatched b's (right), both.
enum class join_kind { inner, left, right, outer };

// The host form's result: rows (a_indices[r], b_indices[r]) for r in [0, count).
struct join_result {
  buffer<std::int64_t> a_indices, b_indices;
  std::int64_t count = 0;
};

namespace detail {

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// Addition of non-negative counts that stops at the largest std::int64_t (still associative).
struct saturating_plus {
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return a > int64_max - b ? int64_max : a + b;
  }
};

// An a's rows: its matches, or one row for an unmatched a in left and outer joins.
struct rows_of_a {
  bool keep_unmatched;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t matches) const {
    return keep_unmatched && matches == 0 ? 1 : matches;
  }
};

// 1 for a b without a match (its row in right and outer joins).
struct unmatched {
  MGPU_HOST_DEVICE std::int64_t operator()(unsigned char matched) const { return matched ? 0 : 1; }
};

// What an a's rows need: where its equal keys start in b, and how many there are (in I, the
// join's index type: with_join_index).
template <typename I>
struct a_matches {
  I lower, count;
};
template <typename I>
struct a_matches_of {
  const I* lower;
  const I* count;
  MGPU_HOST_DEVICE a_matches<I> operator()(std::int64_t i) const { return a_matches<I>{lower[i], count[i]}; }
};
// The number of b's keys equal to a[i], as the search stores it: upper bound - lower bound.
template <typename I>
struct match_count {
  MGPU_HOST_DEVICE I operator()(std::int64_t lower, std::int64_t upper) const { return I(upper - lower); }
};

// Row `row` of a's rows: (segment, lower + rank), or (segment, -1) for an unmatched a. Rows at or
// past the number of a's rows (the load-balancing search ran over the capacity) are not written.
template <typename AOut, typename BOut, typename I>
struct a_row_writer {
  AOut a_out;
  BOut b_out;
  const std::int64_t* a_rows;
  MGPU_DEVICE void operator()(std::int64_t row, std::int64_t segment, std::int64_t rank, const a_matches<I>& m) const {
    if (row >= *a_rows) return;
    a_out[row] = segment;
    b_out[row] = m.count ? std::int64_t(m.lower) + rank : std::int64_t(-1);
  }
};

// The temporaries of a join and its counting passes (steps 1 and 2). totals[0]: a's rows, totals[1]:
// unmatched b's rows (0 for inner and left joins). The bounds, at most b_count, are kept in I; the
// row starts, which may pass 2^31 with any b_count, in 64 bits (or, for the host form, first in 32
// bits: narrow_join_rows).
template <typename I>
struct join_plan {
  buffer<I> lower, matches;  // each a's lower bound in b and its number of equal keys there
  buffer<std::int64_t> a_row_starts, b_row_starts, totals;
  buffer<std::int32_t> narrow_row_starts;  // a's row starts in 32 bits (the host form's, narrow_join_rows)
  buffer<unsigned char> b_matched;
};

// The index type of a join's bounds: 32 bits where b has fewer than 2^31 keys, which the join's
// passes then read and write at half the bytes (each is written once and read twice): an inner
// join of 2^26 int32 keys 1.22x faster on an H200 than with 64-bit ones
// (bench/results/2026-11-29_h200_join_index_scan_large_ab.txt).
template <typename F>
void with_join_index(std::int64_t b_count, F&& f) {
  if (b_count <= std::int64_t(std::numeric_limits<std::int32_t>::max()))
    f(std::int32_t());
  else
    f(std::int64_t());
}

// The host form scans a's row starts into 32 bits, and the rows pass reads them so, when a's rows
// number fewer than 2^31, which it learns before that pass: half the bytes of the scan's output and
// of the rows pass's heads (an inner join of 2^26 int32 keys 1.04x faster on an H200,
// bench/results/2026-11-29_h200_join_narrow_rows_ab.txt). Otherwise it scans them again in 64 bits.
inline bool narrow_join_rows(std::int64_t a_rows) { return a_rows <= std::numeric_limits<std::int32_t>::max(); }

// The exclusive scan of a's row counts into `starts`; its total, a's rows, to totals[0].
template <typename I, typename Starts>
void scan_join_rows(join_plan<I>& plan, std::int64_t a_count, bool left, Starts starts, context& ctx) {
  transform_exclusive_scan(plan.matches.data(), a_count, starts, std::int64_t(0), saturating_plus(), rows_of_a{left},
                           plan.totals.data(), ctx);
}

// Steps 1 and 2; `narrow`: a's row starts in 32 bits (narrow_row_starts), whatever their total (the
// host form, which scans them again if it must).
template <typename params, typename I, typename AIt, typename BIt, typename Comp>
join_plan<I> plan_join(const char* fn, AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, join_kind kind,
                       bool narrow, Comp comp, context& ctx) {
  check_count(fn, "a_count", a_count);
  check_count(fn, "b_count", b_count);
  check_pointer(fn, "a", a, a_count);
  check_pointer(fn, "b", b, b_count);
  if (kind != join_kind::inner && kind != join_kind::left && kind != join_kind::right && kind != join_kind::outer)
    throw_argument(fn, "kind", "is not a join_kind (inner, left, right or outer)");
  if (ctx.checked()) {
    check_sorted(fn, "a", a, a_count, comp, ctx);
    check_sorted(fn, "b", b, b_count, comp, ctx);
  }
  const bool left = kind == join_kind::left || kind == join_kind::outer;
  const bool right = kind == join_kind::right || kind == join_kind::outer;
  join_plan<I> plan{buffer<I>(a_count, ctx),
                    buffer<I>(a_count, ctx),
                    buffer<std::int64_t>(narrow ? 0 : a_count, ctx),
                    buffer<std::int64_t>(right ? b_count : 0, ctx),
                    buffer<std::int64_t>(2, ctx),
                    buffer<std::int32_t>(narrow ? a_count : 0, ctx),
                    buffer<unsigned char>(right ? b_count : 0, ctx)};
  zero_bytes(plan.totals.data(), 2 * sizeof(std::int64_t), ctx);
  // Both bounds in one pass, sorted_equal_range's, which stores the lower bounds and the match
  // counts (the inputs' order was checked above: the search does not check it again). (An
  // upper-bound pass beside the lower one read both inputs twice: the join of 2^26 keys took
  // 1.06x as long on an H200, bench/results/2026-11-29_h200_equal_range_ab.txt.)
  const combined_bounds<I*, match_count<I>> counts{plan.matches.data(), match_count<I>()};
  if (right)
    sorted_search_impl<bounds::lower, search_output::index, search_output::match, params>(
        fn, a, a_count, b, b_count, plan.lower.data(), plan.b_matched.data(), counts, nullptr, nullptr, comp, false,
        ctx);
  else
    sorted_search_impl<bounds::lower, search_output::index, search_output::none, params>(
        fn, a, a_count, b, b_count, plan.lower.data(), discard_iterator(), counts, nullptr, nullptr, comp, false, ctx);
  if (narrow)
    scan_join_rows(plan, a_count, left, plan.narrow_row_starts.data(), ctx);
  else
    scan_join_rows(plan, a_count, left, plan.a_row_starts.data(), ctx);
  if (right)
    transform_exclusive_scan(plan.b_matched.data(), b_count, plan.b_row_starts.data(), std::int64_t(0),
                             saturating_plus(), unmatched(), plan.totals.data() + 1, ctx);
  return plan;
}

// Step 3: writes rows [0, min(capacity, rows)) of a planned join, and the number of rows, from a's
// row starts (32- or 64-bit).
template <typename params, typename I, typename HeadIt, typename AOut, typename BOut>
void write_join(const char* fn, const join_plan<I>& plan, HeadIt a_row_starts, std::int64_t a_count,
                std::int64_t b_count, AOut a_indices, BOut b_indices, std::int64_t capacity, std::int64_t* row_count,
                context& ctx) {
  const std::int64_t* totals = plan.totals.data();
  // a's rows: segments are the a's, heads their first rows (they start at 0: every row has one).
  // The search runs over `capacity` rows; the writer drops those past the last a's row.
  load_balance_tiles<params_or<params, load_balance_params<a_matches<I>>>>(
      fn, a_row_writer<AOut, BOut, I>{a_indices, b_indices, totals}, capacity, a_row_starts, a_count,
      make_load_iterator(a_matches_of<I>{plan.lower.data(), plan.matches.data()}), ctx);
  if (plan.b_matched.size()) {
    const unsigned char* matched = plan.b_matched.data();
    const std::int64_t* starts = plan.b_row_starts.data();
    transform(
        [=] MGPU_LAMBDA(std::int64_t j) {
          std::int64_t row = saturating_plus()(totals[0], starts[j]);
          if (!matched[j] && row < capacity) {
            a_indices[row] = std::int64_t(-1);
            b_indices[row] = j;
          }
        },
        b_count, ctx);
  }
  transform([=] MGPU_LAMBDA(std::int64_t) { *row_count = saturating_plus()(totals[0], totals[1]); }, 1, ctx);
}

}  // namespace detail

// The sort-merge join of a[0, a_count) and b[0, b_count), both sorted by comp (a strict weak
// order), leaving everything on the device: rows (a_indices[r], b_indices[r]) ordered by a, then
// by b (each a's matches in b's order); left and outer joins put (i, -1) where a[i] has no match;
// right and outer joins append (-1, j) for each unmatched b[j], in b's order, after the other
// rows. Writes the number of rows to *row_count (device memory), and rows [0, min(capacity,
// rows)) to the outputs: never more than `capacity`. A caller that finds *row_count > capacity
// runs it again with room enough. (A join of more than 2^63 - 1 rows reports 2^63 - 1.)
// The host does not wait: the form for CUDA graphs and pipelines.
// Throws std::invalid_argument for negative counts or capacity, or null pointers; in checked mode,
// mgpu::precondition_error if an input is not sorted.
template <typename params = void, typename AIt, typename BIt, typename AOut, typename BOut, typename Comp>
void join(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, AOut a_indices, BOut b_indices,
          std::int64_t capacity, std::int64_t* row_count, join_kind kind, Comp comp, context& ctx) {
  const char* fn = "mgpu::join";
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  detail::check_count(fn, "capacity", capacity);
  detail::checked_sum(fn, "capacity", capacity, "a_count", a_count);
  detail::check_pointer(fn, "a_indices", a_indices, capacity);
  detail::check_pointer(fn, "b_indices", b_indices, capacity);
  detail::check_pointer(fn, "row_count", row_count, 1);
  if constexpr (is_comparator_v<Comp, iterator_value_t<AIt>>) {
    detail::with_join_index(b_count, [&](auto index) {
      using I = decltype(index);
      detail::join_plan<I> plan = detail::plan_join<params, I>(fn, a, a_count, b, b_count, kind, false, comp, ctx);
      detail::write_join<params>(fn, plan, plan.a_row_starts.data(), a_count, b_count, a_indices, b_indices, capacity,
                                 row_count, ctx);
    });
  }
}

// The same, with the rows returned in buffers of exactly their number, which the host waits for
// (the one call in the library that synchronizes). Throws std::invalid_argument as above, and if
// the join has more than 2^63 - 1 rows (after the counting passes; nothing else is written).
template <typename params = void, typename AIt, typename BIt, typename Comp>
join_result join(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, join_kind kind, Comp comp, context& ctx) {
  const char* fn = "mgpu::join";
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  join_result result;
  if constexpr (is_comparator_v<Comp, iterator_value_t<AIt>>) {
    detail::with_join_index(b_count, [&](auto index) {
      using I = decltype(index);
      detail::join_plan<I> plan = detail::plan_join<params, I>(fn, a, a_count, b, b_count, kind, true, comp, ctx);
      std::vector<std::int64_t> totals = plan.totals.to_host();
      std::int64_t rows = detail::saturating_plus()(totals[0], totals[1]);
      if (rows == detail::int64_max)
        detail::throw_argument(fn, "b", "joined with a gives 2^63 - 1 rows or more: more than std::int64_t counts");
      if (rows > detail::int64_max / std::int64_t(sizeof(std::int64_t)))
        detail::throw_argument(fn, "b",
                               "joined with a gives " + std::to_string(rows) +
                                   " rows: their indices would take more bytes than std::int64_t counts");
      result.a_indices = buffer<std::int64_t>(rows, ctx);
      result.b_indices = buffer<std::int64_t>(rows, ctx);
      buffer<std::int64_t> row_count(1, ctx);
      if (detail::narrow_join_rows(totals[0])) {
        detail::write_join<params>(fn, plan, plan.narrow_row_starts.data(), a_count, b_count, result.a_indices.data(),
                                   result.b_indices.data(), rows, row_count.data(), ctx);
      } else {
        plan.a_row_starts = buffer<std::int64_t>(a_count, ctx);
        detail::scan_join_rows(plan, a_count, kind == join_kind::left || kind == join_kind::outer,
                               plan.a_row_starts.data(), ctx);
        detail::write_join<params>(fn, plan, plan.a_row_starts.data(), a_count, b_count, result.a_indices.data(),
                                   result.b_indices.data(), rows, row_count.data(), ctx);
      }
      result.count = rows;
    });
  }
  return result;
}

}  // namespace mgpu
