// The search family against serial references (tests/references/search.hpp): sorted_search with
// every bound and output kind, match counts and output types; sorted_equal_range; sorted_equality_count;
// load_balance_search, transform_lbs (with and without cached values); interval expand, gather,
// scatter and move; joins of every kind, both forms. Sizes around the tile, empty sides, all keys
// equal, no matches, empty and huge segments, float keys, a user struct, bad arguments.
#include "references/search.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace mgpu_test;
using mgpu::bounds;
using mgpu::search_output;

namespace {

constexpr int search_nv = mgpu::sorted_search_params<int>::nv;
constexpr int lbs_nv = mgpu::load_balance_params<>::nv;  // load_balance_search, transform_lbs without values
// The tiles of the load-balancing forms that cache a value of up to 8 bytes per segment (interval
// moves, joins, transform_lbs with values): a tile of their own.
constexpr int lbs_cached_nv = mgpu::load_balance_params<std::int64_t>::nv;
// interval_move's tiles for large inputs (check_intervals runs that shape on every input too).
constexpr int move_nv = mgpu::interval_move_large_params::nv;

// The expected output of one side: the bound, the match flag, or both with the flag in the most
// significant bit of R.
template <search_output kind, typename R>
std::vector<R> expected_output(const std::vector<std::int64_t>& bounds_, const std::vector<bool>& matches,
                               std::size_t n) {
  if (kind == search_output::none) return std::vector<R>(n, poison<R>());
  std::vector<R> out;
  for (std::size_t i = 0; i < n; ++i) {
    using U = std::make_unsigned_t<R>;
    if (kind == search_output::index) out.push_back(R(bounds_[i]));
    if (kind == search_output::match) out.push_back(R(matches[i]));
    if (kind == search_output::index_match) out.push_back(R(U(bounds_[i]) | (U(matches[i]) << (8 * sizeof(R) - 1))));
  }
  return out;
}

// One sorted_search call against the references, with match counts where a side has matches.
template <bounds B, search_output KA, search_output KB, typename R = int, typename params = void, typename K,
          typename Comp>
void check_search(mgpu::context& ctx, const std::vector<K>& a, const std::vector<K>& b, Comp comp,
                  const std::string& what) {
  SCOPED_TRACE(what + ": a_count=" + std::to_string(a.size()) + " b_count=" + std::to_string(b.size()) +
               " bounds=" + (B == bounds::lower ? "lower" : "upper") + " kinds=" + std::to_string(int(KA)) + "," +
               std::to_string(int(KB)));
  std::vector<bool> a_match, b_match;
  // bounds::lower: a's lower bounds in b, b's upper bounds in a.
  std::vector<std::int64_t> a_bound = mgpu_ref::bounds_of(a, b, B == bounds::upper, comp, &a_match);
  std::vector<std::int64_t> b_bound = mgpu_ref::bounds_of(b, a, B == bounds::lower, comp, &b_match);
  std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
  mgpu::buffer<K> da(a, ctx), db(b, ctx);
  mgpu::buffer<R> a_out = poisoned<R>(n, ctx), b_out = poisoned<R>(m, ctx);
  constexpr bool a_counts = KA == search_output::match || KA == search_output::index_match;
  constexpr bool b_counts = KB == search_output::match || KB == search_output::index_match;
  mgpu::buffer<std::int64_t> counts = poisoned<std::int64_t>(2, ctx);
  mgpu::sorted_search<B, KA, KB, params>(da.data(), n, db.data(), m, a_out.data(), b_out.data(),
                                         a_counts ? counts.data() : nullptr, b_counts ? counts.data() + 1 : nullptr,
                                         comp, ctx);
  EXPECT_TRUE(same(expected_output<KA, R>(a_bound, a_match, a.size()), a_out.to_host())) << "a's output";
  EXPECT_TRUE(same(expected_output<KB, R>(b_bound, b_match, b.size()), b_out.to_host())) << "b's output";
  std::vector<std::int64_t> got_counts = counts.to_host();
  if (a_counts) {
    EXPECT_EQ(got_counts[0], std::count(a_match.begin(), a_match.end(), true)) << "a's match count";
  }
  if (b_counts) {
    EXPECT_EQ(got_counts[1], std::count(b_match.begin(), b_match.end(), true)) << "b's match count";
  }
}

// Every output kind for both sides, both bounds.
template <typename K, typename Comp>
void check_every_kind(mgpu::context& ctx, const std::vector<K>& a, const std::vector<K>& b, Comp comp,
                      const std::string& what) {
  constexpr search_output none = search_output::none, index = search_output::index, match = search_output::match,
                          both = search_output::index_match;
  check_search<bounds::lower, index, none>(ctx, a, b, comp, what);
  check_search<bounds::upper, index, none>(ctx, a, b, comp, what);
  check_search<bounds::lower, both, both>(ctx, a, b, comp, what);
  check_search<bounds::upper, both, both>(ctx, a, b, comp, what);
  check_search<bounds::lower, match, index>(ctx, a, b, comp, what);
  check_search<bounds::upper, none, match>(ctx, a, b, comp, what);
  check_search<bounds::lower, none, both, std::int64_t>(ctx, a, b, comp, what);
  check_search<bounds::upper, match, none, std::int64_t>(ctx, a, b, comp, what);
  // 8-byte outputs on both sides (staged in shared memory as 32-bit offsets).
  check_search<bounds::lower, index, index, std::int64_t>(ctx, a, b, comp, what);
  check_search<bounds::upper, both, both, std::int64_t>(ctx, a, b, comp, what);
}

}  // namespace

MGPU_TEST(SortedSearch, SeedDemonstrations) {
  mgpu::context ctx;
  // The seeds' second demonstration, first rows: lower bounds of A into B and upper bounds of B
  // into A, with * for matches.
  std::vector<int> a{0, 3, 5, 13, 14, 15, 16, 18, 18, 21, 24, 26, 26, 30, 31, 32};
  std::vector<int> b{1, 2, 15, 23, 24, 25, 25, 25, 25, 27, 27, 29, 30, 31, 33, 33};
  mgpu::buffer<int> da(a, ctx), db(b, ctx), ai(16, ctx), bi(16, ctx);
  mgpu::sorted_search<bounds::lower, search_output::index_match, search_output::index_match>(
      da.data(), 16, db.data(), 16, ai.data(), bi.data(), mgpu::less<>(), ctx);
  const int m = int(0x80000000u);
  EXPECT_TRUE(same(std::vector<int>{0, 2, 2, 2, 2, m | 2, 3, 3, 3, 3, m | 4, 9, 9, m | 12, m | 13, 14}, ai.to_host()));
  EXPECT_TRUE(same(std::vector<int>{1, 1, m | 6, 10, m | 11, 11, 11, 11, 11, 13, 13, 13, m | 14, m | 15, 16, 16},
                   bi.to_host()));
}

MGPU_TEST(SortedSearch, EveryKindAroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(search_nv - 1), std::int64_t(search_nv),
                         std::int64_t(search_nv + 1), std::int64_t(3 * search_nv + 5)})
    for (std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(search_nv), std::int64_t(2 * search_nv + 7)})
      check_every_kind(ctx, sorted_random_keys<int>(n, 50, rng, mgpu::less<>()),
                       sorted_random_keys<int>(m, 50, rng, mgpu::less<>()), mgpu::less<>(), "few distinct");
}

MGPU_TEST(SortedSearch, LargeAndSkewed) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t large = quick() ? 20 * search_nv : (1 << 19) + 3;
  auto lt = mgpu::less<>();
  check_every_kind(ctx, sorted_random_keys<int>(large, large, rng, lt),
                   sorted_random_keys<int>(large / 2, large, rng, lt), lt, "many distinct");
  check_every_kind(ctx, sorted_random_keys<int>(large, 7, rng, lt), sorted_random_keys<int>(large, 7, rng, lt), lt,
                   "7 distinct");
  check_every_kind(ctx, std::vector<int>(std::size_t(large / 3), 5), std::vector<int>(std::size_t(large / 5), 5), lt,
                   "all equal");
  std::vector<int> evens(std::size_t(large / 4)), odds(std::size_t(large / 4));
  for (std::size_t i = 0; i < evens.size(); ++i) evens[i] = int(2 * i), odds[i] = int(2 * i + 1);
  check_every_kind(ctx, evens, odds, lt, "no matches");
  check_every_kind(ctx, sorted_random_keys<int>(17, 1000, rng, lt), sorted_random_keys<int>(large, 1000, rng, lt), lt,
                   "few needles");
}

MGPU_TEST(SortedSearch, KeyTypesAndComparators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 5 * search_nv : 20011;
  check_every_kind(ctx, sorted_random_keys<std::int64_t>(n, 3 * n, rng, mgpu::less<>()),
                   sorted_random_keys<std::int64_t>(n, 3 * n, rng, mgpu::less<>()), mgpu::less<>(), "int64");
  check_every_kind(ctx, sorted_random_keys<unsigned>(n, 100, rng, mgpu::greater<>()),
                   sorted_random_keys<unsigned>(n + 9, 100, rng, mgpu::greater<>()), mgpu::greater<>(),
                   "uint32 greater");
  check_every_kind(ctx, sorted_random_keys<float>(n, n, rng, mgpu::less<>()),
                   sorted_random_keys<float>(n, n, rng, mgpu::less<>()), mgpu::less<>(), "float");
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& x, const pair_value& y) { return x.key < y.key; };
  std::vector<pair_value> a, b;
  for (int k : sorted_random_keys<int>(n, 500, rng, mgpu::less<>())) a.push_back(pair_value{k, float(k) / 2});
  for (int k : sorted_random_keys<int>(n / 2, 500, rng, mgpu::less<>())) b.push_back(pair_value{k, -1.0f});
  check_every_kind(ctx, a, b, by_key, "struct with a lambda comparator");
}

// Few needles in a large haystack with no output for the haystack take one binary search each:
// the same answers, and a haystack that is never read in full.
MGPU_TEST(SortedSearch, NeedlesByBinarySearch) {
  mgpu::context ctx;
  const std::int64_t huge = std::int64_t(1) << 40;
  auto haystack = mgpu::make_counting_iterator<std::int64_t>(0);
  std::vector<std::int64_t> needles{-5, 0, 1, 12345, huge - 1, huge, huge + 7};
  mgpu::buffer<std::int64_t> dn(needles, ctx), lower = poisoned<std::int64_t>(7, ctx), count(1, ctx);
  mgpu::sorted_search<bounds::lower, search_output::index_match, search_output::none>(
      dn.data(), 7, haystack, huge, lower.data(), mgpu::discard_iterator(), count.data(), nullptr, mgpu::less<>(), ctx);
  const std::int64_t m = std::numeric_limits<std::int64_t>::min();
  EXPECT_TRUE(same(std::vector<std::int64_t>{0, m | 0, m | 1, m | 12345, m | (huge - 1), huge, huge}, lower.to_host()));
  EXPECT_EQ(count.to_host()[0], 4);
}

MGPU_TEST(SortedSearch, ShortFormAndOutputIterators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::vector<int> a = sorted_random_keys<int>(3000, 900, rng, lt), b = sorted_random_keys<int>(2500, 900, rng, lt);
  mgpu::buffer<int> da(a, ctx), db(b, ctx);
  for (bool upper : {false, true}) {
    mgpu::buffer<std::int64_t> out = poisoned<std::int64_t>(3000, ctx);
    if (upper)
      mgpu::sorted_search<bounds::upper>(da.data(), 3000, db.data(), 2500, out.data(), lt, ctx);
    else
      mgpu::sorted_search(da.data(), 3000, db.data(), 2500, out.data(), lt, ctx);
    EXPECT_TRUE(same(mgpu_ref::bounds_of(a, b, upper, lt), out.to_host())) << (upper ? "upper" : "lower");
  }
  // A computed output: the bound plus 1000, stored through a store_iterator.
  mgpu::buffer<std::int64_t> shifted = poisoned<std::int64_t>(3000, ctx);
  std::int64_t* s = shifted.data();
  auto store = mgpu::make_store_iterator(
      [=] MGPU_HOST_DEVICE_LAMBDA(std::int64_t bound, std::int64_t i) { s[i] = bound + 1000; });
  mgpu::sorted_search(da.data(), 3000, db.data(), 2500, store, lt, ctx);
  std::vector<std::int64_t> expected = mgpu_ref::bounds_of(a, b, false, lt);
  for (std::int64_t& x : expected) x += 1000;
  EXPECT_TRUE(same(expected, shifted.to_host()));
}

MGPU_TEST(SortedSearch, EqualityCount) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  // a of 0, 1, nv - 1, nv and nv + 1 keys (b twice as long), then a + b of 0, 1, nv - 1, nv and
  // nv + 1 keys, then a large input.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  for (std::int64_t n : {0, 1, search_nv - 1, search_nv, search_nv + 1}) shapes.push_back({n, 2 * n + 3});
  for (std::int64_t total : {0, 1, search_nv - 1, search_nv, search_nv + 1})
    shapes.push_back({total / 3, total - total / 3});
  shapes.push_back({40001, 80005});
  for (auto [n, m] : shapes) {
    SCOPED_TRACE("a_count=" + std::to_string(n) + " b_count=" + std::to_string(m));
    std::vector<int> a = sorted_random_keys<int>(n, 300, rng, lt), b = sorted_random_keys<int>(m, 300, rng, lt);
    std::vector<std::int64_t> lower = mgpu_ref::bounds_of(a, b, false, lt), upper = mgpu_ref::bounds_of(a, b, true, lt);
    mgpu::buffer<int> da(a, ctx), db(b, ctx);
    mgpu::buffer<std::int64_t> dl(lower, ctx);
    mgpu::buffer<int> counts = poisoned<int>(n, ctx);
    mgpu::sorted_equality_count(da.data(), dl.data(), n, db.data(), m, counts.data(), lt, ctx);
    std::vector<int> expected;
    for (std::size_t i = 0; i < a.size(); ++i) expected.push_back(int(upper[i] - lower[i]));
    EXPECT_TRUE(same(expected, counts.to_host()));
    // A user operator: the upper bound itself.
    mgpu::buffer<int> uppers = poisoned<int>(n, ctx);
    mgpu::sorted_equality_count(
        da.data(), dl.data(), n, db.data(), m, uppers.data(), lt,
        [] MGPU_HOST_DEVICE_LAMBDA(std::int64_t, std::int64_t u) { return u; }, ctx);
    EXPECT_TRUE(same(std::vector<int>(upper.begin(), upper.end()), uppers.to_host()));
    // In place: the counts over the lower bounds they are computed from.
    mgpu::sorted_equality_count(da.data(), dl.data(), n, db.data(), m, dl.data(), lt, ctx);
    EXPECT_TRUE(same(std::vector<std::int64_t>(expected.begin(), expected.end()), dl.to_host()));
  }
}

// Both bounds of each a from one pass, against std::lower_bound and std::upper_bound: runs of
// equal keys in b that cross tiles (short ones, and ones longer than a warp's first probe of 32),
// every key equal, no matches, few needles (one binary search each), outputs of two types.
template <typename K, typename Comp>
void check_equal_range(mgpu::context& ctx, const std::vector<K>& a, const std::vector<K>& b, Comp comp,
                       const std::string& what) {
  SCOPED_TRACE(what + ": a_count=" + std::to_string(a.size()) + " b_count=" + std::to_string(b.size()));
  std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
  mgpu::buffer<K> da(a, ctx), db(b, ctx);
  mgpu::buffer<int> lower = poisoned<int>(n, ctx);
  mgpu::buffer<std::int64_t> upper = poisoned<std::int64_t>(n, ctx);
  mgpu::sorted_equal_range(da.data(), n, db.data(), m, lower.data(), upper.data(), comp, ctx);
  std::vector<std::int64_t> lo = mgpu_ref::bounds_of(a, b, false, comp), hi = mgpu_ref::bounds_of(a, b, true, comp);
  EXPECT_TRUE(same(std::vector<int>(lo.begin(), lo.end()), lower.to_host())) << "lower bounds";
  EXPECT_TRUE(same(hi, upper.to_host())) << "upper bounds";
}

MGPU_TEST(SortedSearch, EqualRange) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(search_nv - 1), std::int64_t(search_nv + 1),
                         std::int64_t(3 * search_nv + 5)})
    for (std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(search_nv), std::int64_t(2 * search_nv + 7)})
      check_equal_range(ctx, sorted_random_keys<int>(n, 50, rng, lt), sorted_random_keys<int>(m, 50, rng, lt), lt,
                        "few distinct");
  std::int64_t large = quick() ? 20 * search_nv : (1 << 19) + 3;
  check_equal_range(ctx, sorted_random_keys<int>(large, large / 4, rng, lt),
                    sorted_random_keys<int>(large, large / 4, rng, lt), lt, "runs of about 4");
  // Runs of about 40 and 3000 keys in b: past the warp's first 32 probes, and across tiles.
  check_equal_range(ctx, sorted_random_keys<int>(large / 8, large / 40, rng, lt),
                    sorted_random_keys<int>(large, large / 40, rng, lt), lt, "runs of about 40");
  check_equal_range(ctx, sorted_random_keys<int>(large / 4, large / 3000, rng, lt),
                    sorted_random_keys<int>(large, large / 3000, rng, lt), lt, "runs of about 3000");
  check_equal_range(ctx, std::vector<int>(std::size_t(large / 3), 5), std::vector<int>(std::size_t(large / 5), 5), lt,
                    "all equal");
  std::vector<int> evens(std::size_t(large / 4)), odds(std::size_t(large / 4));
  for (std::size_t i = 0; i < evens.size(); ++i) evens[i] = int(2 * i), odds[i] = int(2 * i + 1);
  check_equal_range(ctx, evens, odds, lt, "no matches");
  check_equal_range(ctx, sorted_random_keys<int>(17, 1000, rng, lt), sorted_random_keys<int>(large, 1000, rng, lt), lt,
                    "few needles");
  check_equal_range(ctx, sorted_random_keys<float>(5000, 700, rng, mgpu::greater<>()),
                    sorted_random_keys<float>(9000, 700, rng, mgpu::greater<>()), mgpu::greater<>(), "float greater");
}

MGPU_TEST(SortedSearch, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx), unsorted(std::vector<int>{3, 1, 2}, ctx);
  mgpu::buffer<int> out = poisoned<int>(3, ctx);
  mgpu::buffer<std::int64_t> count = poisoned<std::int64_t>(1, ctx);
  int* null = nullptr;
  const char* fn = "mgpu::sorted_search";
  auto lt = mgpu::less<>();
  expect_invalid_argument(fn, "a_count", [&] { mgpu::sorted_search(a.data(), -1, a.data(), 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "b_count", [&] { mgpu::sorted_search(a.data(), 3, a.data(), -3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "a", [&] { mgpu::sorted_search(null, 3, a.data(), 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "b", [&] { mgpu::sorted_search(a.data(), 3, null, 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "a_output", [&] { mgpu::sorted_search(a.data(), 3, a.data(), 3, null, lt, ctx); });
  expect_invalid_argument(fn, "a_match_count", [&] {
    mgpu::sorted_search<bounds::lower, search_output::index, search_output::none>(
        a.data(), 3, a.data(), 3, out.data(), nullptr, count.data(), nullptr, lt, ctx);
  });
  expect_invalid_argument("mgpu::sorted_equal_range", "lower",
                          [&] { mgpu::sorted_equal_range(a.data(), 3, a.data(), 3, null, out.data(), lt, ctx); });
  expect_invalid_argument("mgpu::sorted_equal_range", "upper",
                          [&] { mgpu::sorted_equal_range(a.data(), 3, a.data(), 3, out.data(), null, lt, ctx); });
  expect_invalid_argument("mgpu::sorted_equality_count", "lower_bounds",
                          [&] { mgpu::sorted_equality_count(a.data(), null, 3, a.data(), 3, out.data(), lt, ctx); });
  ctx.set_checked(true);
  EXPECT_THROW(mgpu::sorted_search(unsorted.data(), 3, a.data(), 3, out.data(), lt, ctx), mgpu::precondition_error);
  EXPECT_THROW(mgpu::sorted_search(a.data(), 3, unsorted.data(), 3, out.data(), lt, ctx), mgpu::precondition_error);
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<int>(3, poison<int>()), out.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>(1, poison<std::int64_t>()), count.to_host()));
}

namespace {

// Heads of segments with the given item counts (their exclusive scan), and the total.
std::vector<int> heads_of(const std::vector<int>& counts, std::int64_t& total) {
  std::vector<int> heads;
  total = 0;
  for (int c : counts) {
    heads.push_back(int(total));
    total += c;
  }
  return heads;
}

// Segment sizes in [0, max_size]; with `zeros`, half of them empty.
std::vector<int> random_counts(std::int64_t segments, int max_size, bool zeros, std::mt19937_64& rng) {
  std::vector<int> counts = random_keys<int>(segments, max_size + 1, rng);
  if (zeros)
    for (std::size_t i = 0; i < counts.size(); i += 2) counts[i] = 0;
  return counts;
}

// Segments of `size` items each (the last one takes the remainder) whose steps, items plus
// segments, number exactly `steps` (>= 1): a load-balancing tile covers nv steps.
std::vector<int> counts_for_steps(std::int64_t steps, int size) {
  const std::int64_t segments = std::max<std::int64_t>(1, steps / (size + 1));
  std::vector<int> counts(std::size_t(segments), size);
  counts.back() += int(steps - segments * (size + 1));
  return counts;
}

template <typename params = void>
void check_lbs(mgpu::context& ctx, std::int64_t count, const std::vector<int>& heads, const std::string& what) {
  SCOPED_TRACE(what + ": count=" + std::to_string(count) + " segments=" + std::to_string(heads.size()));
  std::int64_t num = std::int64_t(heads.size());
  std::vector<std::int64_t> expected = mgpu_ref::segments_of(count, heads);
  mgpu::buffer<int> dh(heads, ctx);
  mgpu::buffer<int> segments = poisoned<int>(count, ctx);
  mgpu::load_balance_search<params>(count, mgpu::segments_by_heads(dh.data(), num), segments.data(), ctx);
  EXPECT_TRUE(same(std::vector<int>(expected.begin(), expected.end()), segments.to_host())) << "load_balance_search";

  // transform_lbs: (segment, rank) per item in a segment; the others keep their poison.
  mgpu::buffer<std::int64_t> seg = poisoned<std::int64_t>(count, ctx), rank = poisoned<std::int64_t>(count, ctx);
  std::int64_t* s = seg.data();
  std::int64_t* r = rank.data();
  mgpu::transform_lbs<params>(
      [=] MGPU_LAMBDA(std::int64_t i, std::int64_t segment, std::int64_t k) {
        s[i] = segment;
        r[i] = k;
      },
      count, mgpu::segments_by_heads(dh.data(), num), ctx);
  std::vector<std::int64_t> expected_seg(expected), expected_rank;
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t g = expected[std::size_t(i)];
    if (g < 0) expected_seg[std::size_t(i)] = poison<std::int64_t>();
    expected_rank.push_back(g < 0 ? poison<std::int64_t>() : i - heads[std::size_t(g)]);
  }
  EXPECT_TRUE(same(expected_seg, seg.to_host())) << "transform_lbs segments";
  EXPECT_TRUE(same(expected_rank, rank.to_host())) << "transform_lbs ranks";

  // With cached values: the segment's value, here 7 * segment + 1.
  mgpu::buffer<std::int64_t> cached = poisoned<std::int64_t>(count, ctx);
  std::int64_t* c = cached.data();
  mgpu::transform_lbs<params>(
      [=] MGPU_LAMBDA(std::int64_t i, std::int64_t, std::int64_t, std::int64_t value) { c[i] = value; }, count,
      mgpu::segments_by_heads(dh.data(), num), mgpu::make_step_iterator<std::int64_t>(1, 7), ctx);
  std::vector<std::int64_t> expected_cached;
  for (std::int64_t g : expected) expected_cached.push_back(g < 0 ? poison<std::int64_t>() : 7 * g + 1);
  EXPECT_TRUE(same(expected_cached, cached.to_host())) << "transform_lbs with values";
}

}  // namespace

MGPU_TEST(LoadBalance, SegmentProfiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t total = 0;
  std::vector<int> heads = heads_of({3, 1, 0, 0, 7, 0, 2}, total);
  check_lbs(ctx, total, heads, "the seeds' counts");
  check_lbs(ctx, 0, {}, "nothing");
  check_lbs(ctx, 0, {0, 0, 0}, "empty segments only");
  check_lbs(ctx, 50, {}, "items in no segment");
  check_lbs(ctx, 3 * lbs_nv + 1, {5, 5, 40, lbs_nv}, "items before the first head");
  // Both tiles' edges: check_lbs runs the forms with and without cached values.
  for (std::int64_t nv : {lbs_nv, lbs_cached_nv}) {
    for (std::int64_t n : {nv - 1, nv, nv + 1}) check_lbs(ctx, n, {0}, "one segment");
    for (std::int64_t steps : {nv - 1, nv, nv + 1})
      for (int size : {0, 1, 7}) {
        heads = heads_of(counts_for_steps(steps, size), total);
        check_lbs(ctx, total, heads, "steps " + std::to_string(steps) + ", segments of " + std::to_string(size));
      }
  }
  check_lbs(ctx, 1, {0}, "one segment");
  std::int64_t large = quick() ? 10 * lbs_nv : 300007;
  check_lbs(ctx, large, {0}, "one huge segment");
  for (int max_size : {1, 8, 64, 1024}) {
    heads = heads_of(random_counts(large / (max_size / 2 + 1), max_size, false, rng), total);
    check_lbs(ctx, total, heads, "random sizes up to " + std::to_string(max_size));
    heads = heads_of(random_counts(large / (max_size / 4 + 1), max_size, true, rng), total);
    check_lbs(ctx, total, heads, "half empty, up to " + std::to_string(max_size));
  }
  std::vector<int> zeros(std::size_t(3 * lbs_nv + 5), 0);
  zeros.push_back(lbs_nv + 3);
  heads = heads_of(zeros, total);
  check_lbs(ctx, total, heads, "many empty segments, then one of a tile");
}

namespace {

// interval_expand, _gather, _scatter and _move over segments of these sizes, against serial loops:
// expand of random doubles; gather from the segments in reverse order; scatter of even segments
// before odd ones; move, both at once.
void check_intervals(mgpu::context& ctx, const std::vector<int>& counts, std::mt19937_64& rng,
                     const std::string& what) {
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(counts, total);
  const std::int64_t segments = std::int64_t(counts.size());
  SCOPED_TRACE(what + ", total " + std::to_string(total));
  std::vector<std::int64_t> seg = mgpu_ref::segments_of(total, heads);
  mgpu::buffer<int> d_heads(heads, ctx);
  auto segs = mgpu::segments_by_heads(d_heads.data(), segments);

  // Expand of random doubles, and of ints: values of 4 bytes or less take a load of their own in
  // the tiles (rows past the tile's last head skipped).
  auto check_expand = [&](auto value_type, const char* name) {
    using V = decltype(value_type);
    std::vector<V> values = random_vector<V>(segments, rng, V(-100), V(100));
    mgpu::buffer<V> dv(values, ctx), out = poisoned<V>(total, ctx);
    mgpu::interval_expand(dv.data(), total, segs, out.data(), ctx);
    std::vector<V> expected;
    for (std::int64_t s : seg) expected.push_back(values[std::size_t(s)]);
    EXPECT_TRUE(same(expected, out.to_host())) << name;
  };
  check_expand(double(), "expand");
  check_expand(int(), "expand of int");

  std::vector<std::int64_t> gather(static_cast<std::size_t>(segments)), scatter(static_cast<std::size_t>(segments));
  std::int64_t at = 0;
  for (std::int64_t s = segments - 1; s >= 0; --s) {
    gather[std::size_t(s)] = at;
    at += counts[std::size_t(s)];
  }
  at = 0;
  for (std::int64_t s = 0; s < segments; s += 2)
    scatter[std::size_t(s)] = (at += counts[std::size_t(s)]) - counts[std::size_t(s)];
  for (std::int64_t s = 1; s < segments; s += 2)
    scatter[std::size_t(s)] = (at += counts[std::size_t(s)]) - counts[std::size_t(s)];
  std::vector<int> input(static_cast<std::size_t>(total));
  std::iota(input.begin(), input.end(), 1000);
  mgpu::buffer<int> din(input, ctx), gathered = poisoned<int>(total, ctx), scattered = poisoned<int>(total, ctx),
                                     moved = poisoned<int>(total, ctx);
  mgpu::buffer<std::int64_t> dg(gather, ctx), ds(scatter, ctx);
  mgpu::interval_gather(din.data(), total, segs, dg.data(), gathered.data(), ctx);
  mgpu::interval_scatter(din.data(), total, segs, ds.data(), scattered.data(), ctx);
  mgpu::interval_move(din.data(), total, segs, dg.data(), ds.data(), moved.data(), ctx);
  mgpu::buffer<int> moved_large = poisoned<int>(total, ctx);
  mgpu::interval_move<mgpu::interval_move_large_params>(din.data(), total, segs, dg.data(), ds.data(),
                                                        moved_large.data(), ctx);
  const std::size_t items = static_cast<std::size_t>(total);
  std::vector<int> expect_gather(items), expect_scatter(items), expect_move(items);
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t s = seg[std::size_t(i)], rank = i - heads[std::size_t(s)];
    expect_gather[std::size_t(i)] = input[std::size_t(gather[std::size_t(s)] + rank)];
    expect_scatter[std::size_t(scatter[std::size_t(s)] + rank)] = input[std::size_t(i)];
    expect_move[std::size_t(scatter[std::size_t(s)] + rank)] = input[std::size_t(gather[std::size_t(s)] + rank)];
  }
  EXPECT_TRUE(same(expect_gather, gathered.to_host())) << "gather";
  EXPECT_TRUE(same(expect_scatter, scattered.to_host())) << "scatter";
  EXPECT_TRUE(same(expect_move, moved.to_host())) << "move";
  EXPECT_TRUE(same(expect_move, moved_large.to_host())) << "move in the large inputs' tiles";
}

}  // namespace

MGPU_TEST(Intervals, ExpandGatherScatterMove) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  // The seeds' alphabet example: counts 3, 1, 0, 0, 7, ... expanded from the letters.
  std::vector<int> counts{3, 1, 0, 0, 7, 2, 0, 1, 4};
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(counts, total);
  std::vector<char> letters{'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'};
  mgpu::buffer<int> dh(heads, ctx);
  mgpu::buffer<char> dl(letters, ctx), expanded = poisoned<char>(total, ctx);
  mgpu::interval_expand(dl.data(), total, mgpu::segments_by_heads(dh.data(), 9), expanded.data(), ctx);
  std::vector<char> got = expanded.to_host();
  EXPECT_EQ(std::string(got.begin(), got.end()), "AAABEEEEEEEFFHIIII");

  // Items before the first head keep what they held; with no heads no item is written and no value
  // read (the values may then be null).
  std::vector<int> late_heads{5, 5, 9}, late_values{7, 8, 9};
  mgpu::buffer<int> dlh(late_heads, ctx), dlv(late_values, ctx), late = poisoned<int>(12, ctx),
                                                                 headless = poisoned<int>(12, ctx);
  mgpu::interval_expand(dlv.data(), 12, mgpu::segments_by_heads(dlh.data(), 3), late.data(), ctx);
  std::vector<int> expect_late(12, poison<int>());
  for (int i = 5; i < 12; ++i) expect_late[std::size_t(i)] = i < 9 ? 8 : 9;
  EXPECT_TRUE(same(expect_late, late.to_host())) << "items before the first head";
  mgpu::interval_expand(static_cast<const int*>(nullptr), 12, mgpu::segments_by_heads(dlh.data(), 0), headless.data(),
                        ctx);
  EXPECT_TRUE(same(std::vector<int>(12, poison<int>()), headless.to_host())) << "no heads";

  for (int max_size : {1, 8, 64, 1024}) {
    std::int64_t segments = (quick() ? 4000 : 60000) / max_size + 3;
    check_intervals(ctx, random_counts(segments, max_size, max_size == 8, rng), rng,
                    "sizes up to " + std::to_string(max_size));
  }
  // Items and steps (items plus segments: what a tile covers) of 0, 1, nv - 1, nv and nv + 1, for
  // the tiles of expand, gather, scatter and move, and for interval_move's tiles of large inputs.
  auto check_steps = [&](std::int64_t steps) {
    for (int size : {0, 1, 7})
      check_intervals(ctx, counts_for_steps(steps, size), rng,
                      "steps " + std::to_string(steps) + ", segments of " + std::to_string(size));
  };
  for (std::int64_t n : {0, 1})
    check_intervals(ctx, std::vector<int>{int(n)}, rng, "one segment of " + std::to_string(n));
  check_steps(1);
  for (std::int64_t nv : {lbs_cached_nv, move_nv}) {
    for (std::int64_t n : {nv - 1, nv, nv + 1})
      check_intervals(ctx, std::vector<int>{int(n)}, rng, "one segment of " + std::to_string(n));
    for (std::int64_t steps : {nv - 1, nv, nv + 1}) check_steps(steps);
  }
}

// load_balance_partitions: entry t is the number of items among the first min(t * spacing,
// count + num_heads) steps of the merge of items [0, count) with the heads (a head first on a tie
// with its item), by a serial walk; ceil(steps / spacing) + 1 entries.
MGPU_TEST(LoadBalance, PartitionsMatchTheSerialMerge) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t total = 0;
  std::vector<std::vector<int>> profiles{{}, {0}, {5}, {0, 0, 0}, {3, 1, 0, 0, 7, 0, 2}};
  profiles.push_back(random_counts(3000, 9, true, rng));
  profiles.push_back(std::vector<int>{lbs_nv * 3 + 1});
  for (const std::vector<int>& counts : profiles) {
    std::vector<int> heads = heads_of(counts, total);
    const std::int64_t num = std::int64_t(heads.size()), steps = total + num;
    mgpu::buffer<int> dh(heads, ctx);
    for (std::int64_t spacing : {1, 7, lbs_nv}) {
      SCOPED_TRACE("items " + std::to_string(total) + ", heads " + std::to_string(num) + ", spacing " +
                   std::to_string(spacing));
      std::vector<std::int64_t> expected;
      std::int64_t item = 0, head = 0;
      for (std::int64_t step = 0;; ++step) {
        if (step % spacing == 0 || step == steps) expected.push_back(item);
        if (step == steps) break;
        if (head < num && heads[std::size_t(head)] <= item)
          ++head;
        else
          ++item;
      }
      mgpu::buffer<std::int64_t> got = mgpu::load_balance_partitions(total, dh.data(), num, spacing, ctx);
      EXPECT_TRUE(same(expected, got.to_host()));
    }
  }
}

MGPU_TEST(LoadBalance, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> heads(std::vector<int>{0, 2, 1}, ctx), out = poisoned<int>(4, ctx);
  int* null = nullptr;
  const char* fn = "mgpu::load_balance_search";
  expect_invalid_argument(
      fn, "count", [&] { mgpu::load_balance_search(-1, mgpu::segments_by_heads(heads.data(), 3), out.data(), ctx); });
  expect_invalid_argument(fn, "num_heads", [&] {
    mgpu::load_balance_search(4, mgpu::segments_by_heads(heads.data(), -3), out.data(), ctx);
  });
  expect_invalid_argument(fn, "heads",
                          [&] { mgpu::load_balance_search(4, mgpu::segments_by_heads(null, 3), out.data(), ctx); });
  expect_invalid_argument(fn, "output",
                          [&] { mgpu::load_balance_search(4, mgpu::segments_by_heads(heads.data(), 3), null, ctx); });
  expect_invalid_argument("mgpu::interval_expand", "values", [&] {
    mgpu::interval_expand(null, 4, mgpu::segments_by_heads(heads.data(), 3), out.data(), ctx);
  });
  expect_invalid_argument("mgpu::interval_move", "scatter", [&] {
    mgpu::interval_move(out.data(), 4, mgpu::segments_by_heads(heads.data(), 3), heads.data(), null, out.data(), ctx);
  });
  ctx.set_checked(true);
  EXPECT_THROW(mgpu::load_balance_search(4, mgpu::segments_by_heads(heads.data(), 3), out.data(), ctx),
               mgpu::precondition_error);
  mgpu::buffer<int> beyond(std::vector<int>{0, 5}, ctx);
  EXPECT_THROW(mgpu::load_balance_search(4, mgpu::segments_by_heads(beyond.data(), 2), out.data(), ctx),
               mgpu::precondition_error);
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<int>(4, poison<int>()), out.to_host()));
}

namespace {

const mgpu::join_kind every_join[] = {mgpu::join_kind::inner, mgpu::join_kind::left, mgpu::join_kind::right,
                                      mgpu::join_kind::outer};

std::string name_of(mgpu::join_kind kind) {
  const char* names[] = {"inner", "left", "right", "outer"};
  return names[int(kind)];
}

// Both forms of join against the nested-loop join.
template <typename K, typename Comp>
void check_join(mgpu::context& ctx, const std::vector<K>& a, const std::vector<K>& b, Comp comp,
                const std::string& what) {
  std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
  mgpu::buffer<K> da(a, ctx), db(b, ctx);
  for (mgpu::join_kind kind : every_join) {
    SCOPED_TRACE(what + ": " + name_of(kind) + " join, a_count=" + std::to_string(n) + " b_count=" + std::to_string(m));
    bool left = kind == mgpu::join_kind::left || kind == mgpu::join_kind::outer;
    bool right = kind == mgpu::join_kind::right || kind == mgpu::join_kind::outer;
    auto rows = mgpu_ref::join(a, b, left, right, comp);
    std::vector<std::int64_t> ea, eb;
    for (auto& r : rows) ea.push_back(r.first), eb.push_back(r.second);

    mgpu::join_result result = mgpu::join(da.data(), n, db.data(), m, kind, comp, ctx);
    EXPECT_EQ(result.count, std::int64_t(rows.size()));
    EXPECT_TRUE(same(ea, result.a_indices.to_host())) << "a indices";
    EXPECT_TRUE(same(eb, result.b_indices.to_host())) << "b indices";

    // The device form, with room for half the rows: the count says all, the rest stays poisoned.
    std::int64_t capacity = std::int64_t(rows.size()) / 2;
    mgpu::buffer<std::int64_t> ai = poisoned<std::int64_t>(capacity + 3, ctx),
                               bi = poisoned<std::int64_t>(capacity + 3, ctx);
    mgpu::buffer<std::int64_t> row_count = poisoned<std::int64_t>(1, ctx);
    mgpu::join(da.data(), n, db.data(), m, ai.data(), bi.data(), capacity, row_count.data(), kind, comp, ctx);
    EXPECT_EQ(row_count.to_host()[0], std::int64_t(rows.size())) << "device form's count";
    ea.resize(std::size_t(capacity)), eb.resize(std::size_t(capacity));
    for (int k = 0; k < 3; ++k) ea.push_back(poison<std::int64_t>()), eb.push_back(poison<std::int64_t>());
    EXPECT_TRUE(same(ea, ai.to_host())) << "device form's a indices";
    EXPECT_TRUE(same(eb, bi.to_host())) << "device form's b indices";

    // With room for more rows than there are (the search runs over the capacity, past the last
    // a's rows): the rows, and nothing after them.
    capacity = std::int64_t(rows.size()) + 2 * lbs_cached_nv + 5;
    ai = poisoned<std::int64_t>(capacity, ctx), bi = poisoned<std::int64_t>(capacity, ctx);
    mgpu::join(da.data(), n, db.data(), m, ai.data(), bi.data(), capacity, row_count.data(), kind, comp, ctx);
    EXPECT_EQ(row_count.to_host()[0], std::int64_t(rows.size())) << "device form's count, room to spare";
    ea.clear(), eb.clear();
    for (auto& r : rows) ea.push_back(r.first), eb.push_back(r.second);
    ea.resize(std::size_t(capacity), poison<std::int64_t>()), eb.resize(std::size_t(capacity), poison<std::int64_t>());
    EXPECT_TRUE(same(ea, ai.to_host())) << "device form's a indices, room to spare";
    EXPECT_TRUE(same(eb, bi.to_host())) << "device form's b indices, room to spare";
  }
}

}  // namespace

MGPU_TEST(Join, EveryKind) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  check_join(ctx, std::vector<int>{1, 3, 3, 5, 7, 9}, std::vector<int>{0, 3, 3, 3, 4, 7, 7, 10}, lt, "small");
  check_join(ctx, std::vector<int>{}, std::vector<int>{1, 2}, lt, "empty a");
  check_join(ctx, std::vector<int>{1, 2}, std::vector<int>{}, lt, "empty b");
  check_join(ctx, std::vector<int>{}, std::vector<int>{}, lt, "both empty");
  check_join(ctx, std::vector<int>(60, 4), std::vector<int>(45, 4), lt, "all equal: the product");
  check_join(ctx, std::vector<int>{1, 3, 5}, std::vector<int>{0, 2, 4, 6}, lt, "no matches");
  check_join(ctx, std::vector<int>{5}, std::vector<int>{5}, lt, "one key each, equal");
  check_join(ctx, std::vector<int>{5}, std::vector<int>{3}, lt, "one key each, different");
  check_join(ctx, std::vector<int>{5}, std::vector<int>{}, lt, "one key, b empty");
  // The searches' tile edge (a + b keys) and the rows' (every key matched once: rows = a_count).
  for (std::int64_t total : {search_nv - 1, search_nv, search_nv + 1})
    check_join(ctx, sorted_random_keys<int>(total / 2, total / 4 + 1, rng, lt),
               sorted_random_keys<int>(total - total / 2, total / 4 + 1, rng, lt), lt,
               "a + b of " + std::to_string(total));
  for (std::int64_t rows :
       {lbs_cached_nv / 2 - 1, lbs_cached_nv / 2, lbs_cached_nv - 1, lbs_cached_nv, lbs_cached_nv + 1}) {
    std::vector<int> unique(static_cast<std::size_t>(rows));
    std::iota(unique.begin(), unique.end(), 0);
    check_join(ctx, unique, unique, lt, std::to_string(rows) + " rows");
  }
  std::int64_t n = quick() ? 700 : 2500;
  check_join(ctx, sorted_random_keys<int>(n, n / 3, rng, lt), sorted_random_keys<int>(n, n / 3, rng, lt), lt, "random");
  // Many search tiles: short runs, runs of equal keys longer than a tile (each tile's upper bounds
  // followed into b), and a without matches.
  std::int64_t many = 6 * search_nv + 17;
  check_join(ctx, sorted_random_keys<int>(many, many / 2, rng, lt), sorted_random_keys<int>(many, many / 2, rng, lt),
             lt, "many tiles");
  check_join(ctx, sorted_random_keys<int>(12, 3, rng, lt), sorted_random_keys<int>(many, 3, rng, lt), lt,
             "runs across tiles");
  check_join(ctx, sorted_random_keys<int>(many, 4 * many, rng, lt),
             sorted_random_keys<int>(many / 2, 4 * many, rng, lt), lt, "mostly unmatched");
  check_join(ctx, sorted_random_keys<float>(n, 2 * n, rng, lt), sorted_random_keys<float>(n / 2, 2 * n, rng, lt), lt,
             "float");
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& x, const pair_value& y) { return x.key < y.key; };
  std::vector<pair_value> a, b;
  for (int k : sorted_random_keys<int>(n / 2, 200, rng, lt)) a.push_back(pair_value{k, 1.0f});
  for (int k : sorted_random_keys<int>(n / 3, 200, rng, lt)) b.push_back(pair_value{k, 2.0f});
  check_join(ctx, a, b, by_key, "struct");
}

MGPU_TEST(Join, BadArgumentsAndOverflow) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx), unsorted(std::vector<int>{2, 1, 3}, ctx);
  mgpu::buffer<std::int64_t> out = poisoned<std::int64_t>(4, ctx), count = poisoned<std::int64_t>(1, ctx);
  auto lt = mgpu::less<>();
  int* null = nullptr;
  auto inner = mgpu::join_kind::inner;
  expect_invalid_argument("mgpu::join", "a_count", [&] { mgpu::join(a.data(), -1, a.data(), 3, inner, lt, ctx); });
  expect_invalid_argument("mgpu::join", "b", [&] { mgpu::join(a.data(), 3, null, 3, inner, lt, ctx); });
  expect_invalid_argument("mgpu::join", "capacity", [&] {
    mgpu::join(a.data(), 3, a.data(), 3, out.data(), out.data(), -1, count.data(), inner, lt, ctx);
  });
  expect_invalid_argument("mgpu::join", "row_count", [&] {
    mgpu::join(a.data(), 3, a.data(), 3, out.data(), out.data(), 4, static_cast<std::int64_t*>(nullptr), inner, lt,
               ctx);
  });
  expect_invalid_argument("mgpu::join", "kind",
                          [&] { mgpu::join(a.data(), 3, a.data(), 3, mgpu::join_kind(7), lt, ctx); });
  ctx.set_checked(true);
  try {  // checked mode names the join, not the searches it runs
    mgpu::join(unsorted.data(), 3, a.data(), 3, out.data(), out.data(), 4, count.data(), inner, lt, ctx);
    ADD_FAILURE() << "no exception";
  } catch (const mgpu::precondition_error& e) {
    EXPECT_NE(std::string(e.what()).find("mgpu::join"), std::string::npos) << e.what();
  }
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<std::int64_t>(4, poison<std::int64_t>()), out.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>(1, poison<std::int64_t>()), count.to_host()));
  // Three keys, each equal to all 2^62 of b's: 3 * 2^62 rows do not fit in 64 bits. (The searches
  // take one binary search per key, so b is never read in full.)
  auto b = mgpu::make_constant_iterator(2);
  mgpu::buffer<int> twos(std::vector<int>{2, 2, 2}, ctx);
  expect_invalid_argument("mgpu::join", "b",
                          [&] { mgpu::join(twos.data(), 3, b, std::int64_t(1) << 62, inner, lt, ctx); });
  mgpu::join(twos.data(), 3, b, std::int64_t(1) << 62, out.data(), out.data(), 4, count.data(), inner, lt, ctx);
  EXPECT_EQ(count.to_host()[0], std::numeric_limits<std::int64_t>::max()) << "the device form saturates";
}

// A left join against more than 2^31 keys (b = 0, 1, 2, ...): the lower bounds and match counts
// then take 64 bits (below, 32), and b indices past 2^31 come back whole. Cheap on either backend:
// each of a's three keys is found by a binary search.
MGPU_TEST(Join, IndicesPast2To31) {
  mgpu::context ctx;
  const std::int64_t b_count = (std::int64_t(1) << 31) + 1000, past = (std::int64_t(1) << 31) + 7;
  mgpu::buffer<std::int64_t> a(std::vector<std::int64_t>{5, past, b_count + 10}, ctx);
  auto b = mgpu::make_counting_iterator<std::int64_t>(0);
  mgpu::join_result rows = mgpu::join(a.data(), 3, b, b_count, mgpu::join_kind::left, mgpu::less<>(), ctx);
  ASSERT_EQ(rows.count, 3);
  EXPECT_EQ(rows.a_indices.to_host(), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(rows.b_indices.to_host(), (std::vector<std::int64_t>{5, past, -1}));
  mgpu::buffer<std::int64_t> ai = poisoned<std::int64_t>(4, ctx), bi = poisoned<std::int64_t>(4, ctx),
                             count = poisoned<std::int64_t>(1, ctx);
  mgpu::join(a.data(), 3, b, b_count, ai.data(), bi.data(), 4, count.data(), mgpu::join_kind::inner, mgpu::less<>(),
             ctx);
  EXPECT_EQ(count.to_host()[0], 2);
  EXPECT_EQ(ai.to_host(), (std::vector<std::int64_t>{0, 1, poison<std::int64_t>(), poison<std::int64_t>()}));
  EXPECT_EQ(bi.to_host(), (std::vector<std::int64_t>{5, past, poison<std::int64_t>(), poison<std::int64_t>()}));
}

// Issue 20: inputs of at most one tile cost one launch, with no partition pass.
MGPU_TEST(Search, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t n_max = std::max(search_nv, lbs_nv);
  mgpu::buffer<int> a(n_max, ctx), b(n_max, ctx), out(n_max, ctx), b_out(n_max, ctx);
  a.fill(3);
  b.fill(4);
  mgpu::buffer<std::int64_t> heads(std::vector<std::int64_t>{0, 2, 2, 9}, ctx);
  const int *pa = a.data(), *pb = b.data();
  int *o = out.data(), *ob = b_out.data();
  for (std::int64_t n : {std::int64_t(2), std::int64_t(search_nv)}) {
    SCOPED_TRACE("sorted search, a and b together: " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) {
                mgpu::sorted_search<bounds::lower, search_output::index_match, search_output::match>(
                    pa, n / 2, pb, n - n / 2, o, ob, mgpu::less<>(), c);
              }),
              one_launch);
  }
  auto segments = mgpu::segments_by_heads(heads.data(), heads.size());
  // (A tile holds lbs_nv items and heads together, lbs_cached_nv with cached values.)
  for (std::int64_t n : {std::int64_t(9), std::int64_t(lbs_nv - heads.size())}) {
    SCOPED_TRACE("load-balancing search, items: " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::load_balance_search(n, segments, o, c); }), one_launch);
  }
  for (std::int64_t n : {std::int64_t(9), std::int64_t(lbs_cached_nv - heads.size())}) {
    SCOPED_TRACE("interval expand, items: " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::interval_expand(pa, n, segments, o, c); }), one_launch);
  }
  // A few tiles (one or two waves of CTAs): each CTA searches its own bounds, still one launch.
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::load_balance_search(lbs_nv, segments, o, c); }), one_launch);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) {
              mgpu::sorted_search<bounds::lower, search_output::index, search_output::index>(pa, n_max, pb, n_max, o,
                                                                                             ob, mgpu::less<>(), c);
            }),
            one_launch);
}

// Grids of more than two waves of CTAs search their tiles' bounds in a partition pass first (the
// tests above, with fewer tiles, let each CTA search its own): tiles of 32 steps, about 20,000 of
// them, more than two waves on the simulator (2 x 132 SMs x 64 CTAs) and on a GPU of up to 260
// SMs (32 CTAs an SM).
MGPU_TEST(Search, ManyWavesUseAPartitionPass) {
  using small = mgpu::launch_params<32, 1>;
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::vector<int> a = sorted_random_keys<int>(400003, 100000, rng, lt),
                   b = sorted_random_keys<int>(300001, 100000, rng, lt);
  check_search<bounds::lower, search_output::index_match, search_output::index_match, int, small>(ctx, a, b, lt,
                                                                                                  "many waves");
  check_search<bounds::upper, search_output::index, search_output::match, int, small>(ctx, a, b, lt, "many waves");
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(random_counts(150000, 16, true, rng), total);
  check_lbs<small>(ctx, total, heads, "many waves");
  mgpu::buffer<int> dh(heads, ctx), out(total, ctx);
  auto segments = mgpu::segments_by_heads(dh.data(), std::int64_t(heads.size()));
  int* o = out.data();
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::load_balance_search<small>(total, segments, o, c); }),
            (enqueued{2, 0, 0, 1}));
}
