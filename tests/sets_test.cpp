// The multiset operations against std::set_* (tests/references/sets.hpp): set_intersection,
// set_union, set_difference and set_symmetric_difference, keys and pairs, the count returned and
// the count on the device. The pairs' values are the source of each key (a[i]: i, b[j]: a_count +
// j), so a test sees which copy of a key was kept. Sizes around the tile, no duplicates, few,
// many, all keys equal, runs of equal keys across many tiles and threads (the Balanced Path
// corner cases, also with tiny tiles), disjoint and identical inputs, empty sides, int64, float, a
// user struct with a lambda comparator, greater; Balanced Path itself; bad arguments.
#include "references/sets.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace mgpu_test;
using mgpu_ref::set_op;

namespace {

constexpr int set_nv = mgpu::set_params<int>::nv;             // keys alone
constexpr int set_pairs_nv = mgpu::set_params<int, int>::nv;  // keys with check_sets' values
const set_op every_op[] = {set_op::intersection, set_op::union_, set_op::difference, set_op::symmetric_difference};

std::string name_of(set_op op) {
  const char* names[] = {"set_intersection", "set_union", "set_difference", "set_symmetric_difference"};
  return names[int(op)];
}

// The most keys an operation keeps: the size of its outputs.
std::int64_t bound_of(set_op op, std::int64_t a_count, std::int64_t b_count) {
  if (op == set_op::intersection) return std::min(a_count, b_count);
  if (op == set_op::difference) return a_count;
  return a_count + b_count;
}

// One operation, the form that returns the count.
template <typename params, typename... Args>
std::int64_t host_form(set_op op, Args&&... args) {
  switch (op) {
    case set_op::intersection:
      return mgpu::set_intersection<params>(std::forward<Args>(args)...);
    case set_op::union_:
      return mgpu::set_union<params>(std::forward<Args>(args)...);
    case set_op::difference:
      return mgpu::set_difference<params>(std::forward<Args>(args)...);
    default:
      return mgpu::set_symmetric_difference<params>(std::forward<Args>(args)...);
  }
}

// One operation, the form that writes the count to device memory.
template <typename params, typename... Args>
void device_form(set_op op, Args&&... args) {
  switch (op) {
    case set_op::intersection:
      mgpu::set_intersection<params>(std::forward<Args>(args)...);
      break;
    case set_op::union_:
      mgpu::set_union<params>(std::forward<Args>(args)...);
      break;
    case set_op::difference:
      mgpu::set_difference<params>(std::forward<Args>(args)...);
      break;
    default:
      mgpu::set_symmetric_difference<params>(std::forward<Args>(args)...);
  }
}

// The expected contents of an output of `size` elements: the reference's kept keys (or their
// sources), then poison.
template <typename T, typename K, typename Get>
std::vector<T> expected(const std::vector<std::pair<K, std::int64_t>>& kept, std::int64_t size, Get get) {
  std::vector<T> out;
  for (const auto& item : kept) out.push_back(get(item));
  out.resize(std::size_t(size), poison<T>());
  return out;
}

// Every operation in all four forms against std::set_*. The outputs have room for two elements
// past the operation's bound, which must stay poisoned, as must everything past the count.
template <typename params = void, typename K, typename Comp>
void check_sets(mgpu::context& ctx, const std::vector<K>& a, const std::vector<K>& b, Comp comp,
                const std::string& what) {
  const std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
  mgpu::buffer<K> da(a, ctx), db(b, ctx);
  // The values: each key's position in a followed by b (ints: the pairs' shape of int keys).
  std::vector<int> sources(std::size_t(n + m));
  for (std::int64_t i = 0; i < n + m; ++i) sources[std::size_t(i)] = int(i);
  mgpu::buffer<int> a_sources(std::vector<int>(sources.begin(), sources.begin() + n), ctx);
  mgpu::buffer<int> b_sources(std::vector<int>(sources.begin() + n, sources.end()), ctx);
  for (set_op op : every_op) {
    SCOPED_TRACE(what + ": " + name_of(op) + " a_count=" + std::to_string(n) + " b_count=" + std::to_string(m));
    auto kept = mgpu_ref::set_operation(op, a, b, comp);
    const std::int64_t size = bound_of(op, n, m) + 2;
    std::vector<K> keys = expected<K>(kept, size, [](const auto& item) { return item.first; });
    std::vector<int> values = expected<int>(kept, size, [](const auto& item) { return int(item.second); });
    const std::int64_t count = std::int64_t(kept.size());

    mgpu::buffer<K> keys_out = poisoned<K>(size, ctx);
    EXPECT_EQ(host_form<params>(op, da.data(), n, db.data(), m, keys_out.data(), comp, ctx), count) << "keys";
    EXPECT_TRUE(same(keys, keys_out.to_host())) << "keys";

    keys_out = poisoned<K>(size, ctx);
    mgpu::buffer<std::int64_t> count_out = poisoned<std::int64_t>(1, ctx);
    device_form<params>(op, da.data(), n, db.data(), m, keys_out.data(), count_out.data(), comp, ctx);
    EXPECT_EQ(count_out.to_host()[0], count) << "keys, count on the device";
    EXPECT_TRUE(same(keys, keys_out.to_host())) << "keys, count on the device";

    keys_out = poisoned<K>(size, ctx);
    mgpu::buffer<int> values_out = poisoned<int>(size, ctx);
    EXPECT_EQ(host_form<params>(op, da.data(), a_sources.data(), n, db.data(), b_sources.data(), m, keys_out.data(),
                                values_out.data(), comp, ctx),
              count)
        << "pairs";
    EXPECT_TRUE(same(keys, keys_out.to_host())) << "pairs' keys";
    EXPECT_TRUE(same(values, values_out.to_host())) << "pairs' values (the kept copies' sources)";

    keys_out = poisoned<K>(size, ctx);
    values_out = poisoned<int>(size, ctx);
    count_out = poisoned<std::int64_t>(1, ctx);
    device_form<params>(op, da.data(), a_sources.data(), n, db.data(), b_sources.data(), m, keys_out.data(),
                        values_out.data(), count_out.data(), comp, ctx);
    EXPECT_EQ(count_out.to_host()[0], count) << "pairs, count on the device";
    EXPECT_TRUE(same(keys, keys_out.to_host())) << "pairs' keys, count on the device";
    EXPECT_TRUE(same(values, values_out.to_host())) << "pairs' values, count on the device";
  }
}

template <typename K, typename Comp>
std::vector<K> sorted_random(std::int64_t n, std::int64_t distinct, std::mt19937_64& rng, Comp comp) {
  std::vector<K> v = random_keys<K>(n, distinct, rng);
  std::sort(v.begin(), v.end(), comp);
  return v;
}

// `before` random keys below `key`, `copies` copies of it, `after` random keys above it: a long
// run whose start falls anywhere in a tile.
std::vector<int> run_of(int key, std::int64_t copies, std::int64_t before, std::int64_t after, std::mt19937_64& rng) {
  std::vector<int> v = sorted_random<int>(before, key, rng, mgpu::less<>());
  v.insert(v.end(), std::size_t(copies), key);
  for (int k : sorted_random<int>(after, 1000, rng, mgpu::less<>())) v.push_back(key + 1 + k);
  return v;
}

}  // namespace

MGPU_TEST(Sets, SmallExamples) {
  mgpu::context ctx;
  auto lt = mgpu::less<>();
  // Duplicates on both sides: 1 (a: 2, b: 1), 2 (a: 1, b: 3), 3 (a: 3, b: 3), 5 (a only), 6 (b only).
  std::vector<int> a{1, 1, 2, 3, 3, 3, 5}, b{1, 2, 2, 2, 3, 3, 3, 6};
  mgpu::buffer<int> da(a, ctx), db(b, ctx), out(15, ctx);
  std::int64_t n = mgpu::set_intersection(da.data(), 7, db.data(), 8, out.data(), lt, ctx);
  std::vector<int> got = out.to_host();
  EXPECT_TRUE(same(std::vector<int>{1, 2, 3, 3, 3}, std::vector<int>(got.begin(), got.begin() + n)));
  n = mgpu::set_union(da.data(), 7, db.data(), 8, out.data(), lt, ctx);
  got = out.to_host();
  EXPECT_TRUE(same(std::vector<int>{1, 1, 2, 2, 2, 3, 3, 3, 5, 6}, std::vector<int>(got.begin(), got.begin() + n)));
  n = mgpu::set_difference(da.data(), 7, db.data(), 8, out.data(), lt, ctx);
  got = out.to_host();
  EXPECT_TRUE(same(std::vector<int>{1, 5}, std::vector<int>(got.begin(), got.begin() + n)));
  n = mgpu::set_symmetric_difference(da.data(), 7, db.data(), 8, out.data(), lt, ctx);
  got = out.to_host();
  EXPECT_TRUE(same(std::vector<int>{1, 2, 2, 5, 6}, std::vector<int>(got.begin(), got.begin() + n)));
  check_sets(ctx, a, b, lt, "small");
}

// Which copies std keeps, spelled out on one key with 3 copies in a and 5 in b (sources 0-2 and
// 3-7): the reference must agree with the documented rules before it judges anything.
TEST(Sets, ReferenceKeepsTheDocumentedCopies) {
  std::vector<int> a(3, 4), b(5, 4);
  auto sources = [](const std::vector<std::pair<int, std::int64_t>>& kept) {
    std::vector<std::int64_t> s;
    for (const auto& item : kept) s.push_back(item.second);
    return s;
  };
  auto lt = mgpu::less<>();
  EXPECT_TRUE(same({0, 1, 2}, sources(mgpu_ref::set_operation(set_op::intersection, a, b, lt))));
  EXPECT_TRUE(same({0, 1, 2, 6, 7}, sources(mgpu_ref::set_operation(set_op::union_, a, b, lt))));
  EXPECT_TRUE(same({}, sources(mgpu_ref::set_operation(set_op::difference, a, b, lt))));
  EXPECT_TRUE(same({6, 7}, sources(mgpu_ref::set_operation(set_op::symmetric_difference, a, b, lt))));
  // 5 copies in a (0-4) and 3 in b (5-7).
  std::vector<int> a5(5, 4), b3(3, 4);
  EXPECT_TRUE(same({0, 1, 2}, sources(mgpu_ref::set_operation(set_op::intersection, a5, b3, lt))));
  EXPECT_TRUE(same({0, 1, 2, 3, 4}, sources(mgpu_ref::set_operation(set_op::union_, a5, b3, lt))));
  EXPECT_TRUE(same({3, 4}, sources(mgpu_ref::set_operation(set_op::difference, a5, b3, lt))));
  EXPECT_TRUE(same({3, 4}, sources(mgpu_ref::set_operation(set_op::symmetric_difference, a5, b3, lt))));
}

MGPU_TEST(Sets, AroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::vector<std::int64_t> sizes = sizes_for(set_nv);
  if (set_pairs_nv != set_nv) sizes.insert(sizes.end(), {set_pairs_nv - 1, set_pairs_nv, set_pairs_nv + 1});
  for (std::int64_t n : sizes) {
    check_sets(ctx, sorted_random<int>(n, 4 * n + 1, rng, lt), sorted_random<int>(n, 4 * n + 1, rng, lt), lt,
               "few duplicates");
    check_sets(ctx, sorted_random<int>(n, n / 8 + 1, rng, lt), sorted_random<int>(2 * n / 3, n / 8 + 1, rng, lt), lt,
               "many duplicates");
  }
  // Both inputs together at the edge between one tile and a partition pass.
  for (std::int64_t nv : {set_nv, set_pairs_nv})
    for (std::int64_t total : {nv - 1, nv, nv + 1}) {
      const std::int64_t n = total / 2;
      check_sets(ctx, sorted_random<int>(n, total / 3 + 1, rng, lt),
                 sorted_random<int>(total - n, total / 3 + 1, rng, lt), lt, "a + b of " + std::to_string(total));
    }
}

MGPU_TEST(Sets, EmptyDisjointIdenticalAllEqual) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::int64_t n = quick() ? 3 * set_nv + 5 : 20011;
  std::vector<int> some = sorted_random<int>(n, n / 4, rng, lt), none;
  check_sets(ctx, none, none, lt, "both empty");
  check_sets(ctx, some, none, lt, "b empty");
  check_sets(ctx, none, some, lt, "a empty");
  check_sets(ctx, some, some, lt, "identical");
  std::vector<int> evens, odds;
  for (std::int64_t i = 0; i < n; ++i) evens.push_back(int(2 * i)), odds.push_back(int(2 * i + 1));
  check_sets(ctx, evens, odds, lt, "disjoint, interleaved");
  std::vector<int> high(odds);
  for (int& x : high) x += int(2 * n);
  check_sets(ctx, evens, high, lt, "disjoint, a before b");
  check_sets(ctx, high, evens, lt, "disjoint, b before a");
  for (std::int64_t copies : {std::int64_t(2 * set_nv + 7), std::int64_t(set_nv - 1)}) {
    check_sets(ctx, std::vector<int>(std::size_t(copies), 9), std::vector<int>(std::size_t(n), 9), lt, "all equal");
    check_sets(ctx, std::vector<int>(std::size_t(n), 9), std::vector<int>(std::size_t(copies), 9), lt, "all equal");
  }
  check_sets(ctx, std::vector<int>(std::size_t(n), 9), std::vector<int>(std::size_t(n), 9), lt,
             "all equal, same count");
  check_sets(ctx, std::vector<int>(std::size_t(n), 9), sorted_random<int>(n, 19, rng, lt), lt, "all equal against few");
}

// Runs of one key longer than several tiles, starting anywhere in a tile, with more copies in a,
// more in b, or as many: every tile and thread cut inside them is a Balanced Path cut. Also with
// tiles of 64 x 3 and 32 x 1 keys, so that runs cross hundreds of tiles and each thread's steps
// end in a pair or split one.
template <typename params>
static void check_long_runs(mgpu::context& ctx, std::mt19937_64& rng, std::int64_t tile) {
  auto lt = mgpu::less<>();
  const std::int64_t scale = quick() ? 2 : 5;
  for (int shape = 0; shape < 6; ++shape) {
    std::int64_t m = scale * tile + std::int64_t(rng() % std::uint64_t(tile)),
                 n = shape % 3 == 0 ? m : scale * tile / 2 + std::int64_t(rng() % std::uint64_t(tile));
    if (shape % 3 == 2) std::swap(m, n);
    std::int64_t before_a = std::int64_t(rng() % std::uint64_t(2 * tile)),
                 before_b = std::int64_t(rng() % std::uint64_t(2 * tile));
    std::vector<int> a = run_of(5000, m, before_a, 3 * tile, rng), b = run_of(5000, n, before_b, tile + 7, rng);
    if (shape >= 3) {  // a second run right after the first, on both sides
      std::vector<int> more_a(std::size_t(n / 3 + 1), 5001), more_b(std::size_t(m / 2 + 1), 5001);
      a.insert(std::upper_bound(a.begin(), a.end(), 5000), more_a.begin(), more_a.end());
      b.insert(std::upper_bound(b.begin(), b.end(), 5000), more_b.begin(), more_b.end());
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
    }
    check_sets<params>(ctx, a, b, lt, "long runs, shape " + std::to_string(shape));
  }
}

MGPU_TEST(Sets, LongRunsAcrossTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  check_long_runs<void>(ctx, rng, set_nv);
  check_long_runs<mgpu::launch_params<64, 3>>(ctx, rng, 64 * 3);
  check_long_runs<mgpu::launch_params<32, 1>>(ctx, rng, 32);
}

MGPU_TEST(Sets, SmallTilesManyDuplicates) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  for (std::int64_t distinct : {3, 40, 1000}) {
    std::string what = std::to_string(distinct) + " distinct keys";
    check_sets<mgpu::launch_params<32, 1>>(ctx, sorted_random<int>(700, distinct, rng, lt),
                                           sorted_random<int>(500, distinct, rng, lt), lt, what + ", tiles of 32 x 1");
    check_sets<mgpu::launch_params<64, 3>>(ctx, sorted_random<int>(3000, distinct, rng, lt),
                                           sorted_random<int>(4000, distinct, rng, lt), lt, what + ", tiles of 64 x 3");
    check_sets<mgpu::launch_params<128, 7>>(ctx, sorted_random<int>(9000, distinct, rng, lt),
                                            sorted_random<int>(8000, distinct, rng, lt), lt,
                                            what + ", tiles of 128 x 7");
  }
}

MGPU_TEST(Sets, KeyTypesAndComparators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 5 * set_nv : 30011;
  check_sets(ctx, sorted_random<std::int64_t>(n, n, rng, mgpu::less<>()),
             sorted_random<std::int64_t>(n + 17, n, rng, mgpu::less<>()), mgpu::less<>(), "int64");
  std::vector<std::int64_t> wide_a = sorted_random<std::int64_t>(n, n / 3, rng, mgpu::less<>()), wide_b = wide_a;
  for (auto* v : {&wide_a, &wide_b})
    for (std::int64_t& x : *v) x = x * 1000000007ll - (std::int64_t(1) << 40);
  wide_b.resize(wide_b.size() / 2);
  check_sets(ctx, wide_a, wide_b, mgpu::less<>(), "int64 beyond 32 bits");
  check_sets(ctx, sorted_random<float>(n, n / 5, rng, mgpu::less<>()),
             sorted_random<float>(n / 2, n / 5, rng, mgpu::less<>()), mgpu::less<>(), "float");
  check_sets(ctx, sorted_random<int>(n, n / 7, rng, mgpu::greater<>()),
             sorted_random<int>(n, n / 7, rng, mgpu::greater<>()), mgpu::greater<>(), "greater");
  // Keys equal by the comparator but told apart by their weight: keys-only outputs show which
  // copies were kept.
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& x, const pair_value& y) { return x.key < y.key; };
  std::vector<pair_value> a, b;
  for (int k : sorted_random<int>(n, n / 10, rng, mgpu::less<>())) a.push_back(pair_value{k, float(a.size())});
  for (int k : sorted_random<int>(n, n / 10, rng, mgpu::less<>())) b.push_back(pair_value{k, -float(b.size())});
  check_sets(ctx, a, b, by_key, "struct with a lambda comparator");
}

// Values through iterators: each side's sources computed by a counting iterator.
MGPU_TEST(Sets, ValueIterators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::vector<int> a = sorted_random<int>(9000, 2000, rng, lt), b = sorted_random<int>(7000, 2000, rng, lt);
  mgpu::buffer<int> da(a, ctx), db(b, ctx);
  for (set_op op : every_op) {
    SCOPED_TRACE(name_of(op));
    auto kept = mgpu_ref::set_operation(op, a, b, lt);
    std::int64_t size = bound_of(op, 9000, 7000);
    mgpu::buffer<int> keys_out = poisoned<int>(size, ctx);
    mgpu::buffer<std::int64_t> values_out = poisoned<std::int64_t>(size, ctx);
    std::int64_t count = host_form<void>(op, da.data(), mgpu::make_counting_iterator<std::int64_t>(0), 9000, db.data(),
                                         mgpu::make_counting_iterator<std::int64_t>(9000), 7000, keys_out.data(),
                                         values_out.data(), lt, ctx);
    EXPECT_EQ(count, std::int64_t(kept.size()));
    EXPECT_TRUE(
        same(expected<std::int64_t>(kept, size, [](const auto& item) { return item.second; }), values_out.to_host()));
  }
}

// Balanced Path on the host: at every diagonal the cut is in range, takes diag or diag + 1
// elements (diag + 1 only when starred), moves monotonically, and cutting a problem at every
// k-th diagonal gives parts whose set operations, concatenated, are the whole's.
TEST(BalancedPath, EveryDiagonalSplitsTheSetOperations) {
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  for (int trial = 0; trial < 200; ++trial) {
    std::int64_t distinct = 1 + std::int64_t(rng() % 5);
    std::vector<int> a = sorted_random<int>(std::int64_t(rng() % 40), distinct, rng, lt),
                     b = sorted_random<int>(std::int64_t(rng() % 40), distinct, rng, lt);
    std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
    SCOPED_TRACE("trial " + std::to_string(trial) + ": a_count=" + std::to_string(n) + " b_count=" + std::to_string(m));
    std::vector<mgpu::balanced_split<std::int64_t>> cuts;
    for (std::int64_t d = 0; d <= n + m; ++d) {
      mgpu::balanced_split<std::int64_t> cut = mgpu::balanced_path(a.data(), n, b.data(), m, d, lt);
      ASSERT_TRUE(cut.a >= 0 && cut.a <= n && cut.b >= 0 && cut.b <= m) << "diag " << d;
      ASSERT_EQ(cut.a + cut.b, d + (cut.starred ? 1 : 0)) << "diag " << d;
      if (d > 0) {
        ASSERT_TRUE(cut.a >= cuts.back().a && cut.b >= cuts.back().b) << "diag " << d;
      }
      cuts.push_back(cut);
    }
    EXPECT_FALSE(cuts.front().starred || cuts.back().starred);
    for (std::int64_t k : {1, 2, 3, 7}) {
      for (set_op op : every_op) {
        std::vector<std::pair<int, std::int64_t>> pieced;
        for (std::int64_t d = 0; d < n + m; d += k) {
          auto lo = cuts[std::size_t(d)], hi = cuts[std::size_t(std::min(d + k, n + m))];
          std::vector<int> pa(a.begin() + lo.a, a.begin() + hi.a), pb(b.begin() + lo.b, b.begin() + hi.b);
          for (auto item : mgpu_ref::set_operation(op, pa, pb, lt)) {
            // Sources back in the whole problem's numbering.
            item.second = item.second < std::int64_t(pa.size()) ? lo.a + item.second
                                                                : n + lo.b + item.second - std::int64_t(pa.size());
            pieced.push_back(item);
          }
        }
        auto whole = mgpu_ref::set_operation(op, a, b, lt);
        EXPECT_EQ(pieced, whole) << name_of(op) << ", a cut every " << k << " diagonals";
      }
    }
  }
}

// balanced_path_partitions: the cuts at every spacing-th diagonal, as balanced_path finds them.
MGPU_TEST(BalancedPath, Partitions) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  std::vector<int> a = sorted_random<int>(5000, 30, rng, lt), b = sorted_random<int>(3000, 30, rng, lt);
  mgpu::buffer<int> da(a, ctx), db(b, ctx);
  for (std::int64_t spacing : {1, 7, 100, 9000}) {
    auto partitions = mgpu::balanced_path_partitions(da.data(), 5000, db.data(), 3000, spacing, lt, ctx).to_host();
    ASSERT_EQ(std::int64_t(partitions.size()), mgpu::div_up(std::int64_t(8000), spacing) + 1);
    for (std::size_t i = 0; i < partitions.size(); ++i) {
      auto cut = mgpu::balanced_path(a.data(), std::int64_t(5000), b.data(), std::int64_t(3000),
                                     std::min<std::int64_t>(std::int64_t(i) * spacing, 8000), lt);
      EXPECT_TRUE(partitions[i].a == cut.a && partitions[i].b == cut.b && partitions[i].starred == cut.starred)
          << "spacing " << spacing << ", partition " << i;
    }
  }
}

MGPU_TEST(Sets, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx), unsorted(std::vector<int>{2, 1, 3}, ctx);
  mgpu::buffer<int> out = poisoned<int>(6, ctx), values = poisoned<int>(6, ctx);
  mgpu::buffer<std::int64_t> count = poisoned<std::int64_t>(1, ctx);
  auto lt = mgpu::less<>();
  int* null = nullptr;
  std::int64_t* no_count = nullptr;
  const char* fn = "mgpu::set_union";
  expect_invalid_argument(fn, "a_count", [&] { mgpu::set_union(a.data(), -1, a.data(), 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "b_count", [&] { mgpu::set_union(a.data(), 3, a.data(), -2, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "a_keys", [&] { mgpu::set_union(null, 3, a.data(), 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "b_keys", [&] { mgpu::set_union(a.data(), 3, null, 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "keys_out", [&] { mgpu::set_union(a.data(), 3, a.data(), 3, null, lt, ctx); });
  expect_invalid_argument(fn, "keys_out", [&] { mgpu::set_union(out.data(), 3, a.data(), 3, out.data(), lt, ctx); });
  expect_invalid_argument(fn, "count_out",
                          [&] { mgpu::set_union(a.data(), 3, a.data(), 3, out.data(), no_count, lt, ctx); });
  expect_invalid_argument(fn, "a_values", [&] {
    mgpu::set_union(a.data(), null, 3, a.data(), a.data(), 3, out.data(), values.data(), lt, ctx);
  });
  expect_invalid_argument(fn, "values_out", [&] {
    mgpu::set_union(a.data(), a.data(), 3, a.data(), a.data(), 3, out.data(), null, count.data(), lt, ctx);
  });
  expect_invalid_argument(fn, "values_out", [&] {
    mgpu::set_union(a.data(), values.data(), 3, a.data(), a.data(), 3, out.data(), values.data(), lt, ctx);
  });
  // a_count + b_count past 2^63 - 1 (computed inputs: nothing is read).
  auto big = mgpu::make_counting_iterator<std::int64_t>(0);
  const std::int64_t half = std::int64_t(1) << 62;
  expect_invalid_argument("mgpu::set_symmetric_difference", "b_count", [&] {
    mgpu::set_symmetric_difference(big, half, big, half, mgpu::discard_iterator(), lt, ctx);
  });
  expect_invalid_argument("mgpu::set_intersection", "b_count",
                          [&] { mgpu::set_intersection(big, half, big, half, mgpu::discard_iterator(), lt, ctx); });
  expect_invalid_argument("mgpu::set_difference", "a_keys",
                          [&] { mgpu::set_difference(null, 3, a.data(), 3, out.data(), count.data(), lt, ctx); });
  // Outputs of no size may be null: an intersection with an empty side, a difference of an empty a.
  EXPECT_EQ(mgpu::set_intersection(a.data(), 3, null, 0, null, lt, ctx), 0);
  EXPECT_EQ(mgpu::set_difference(null, 0, a.data(), 3, null, lt, ctx), 0);

  ctx.set_checked(true);
  for (set_op op : every_op) {
    SCOPED_TRACE(name_of(op));
    try {
      host_form<void>(op, unsorted.data(), 3, a.data(), 3, out.data(), lt, ctx);
      ADD_FAILURE() << "no exception";
    } catch (const mgpu::precondition_error& e) {
      EXPECT_NE(std::string(e.what()).find("mgpu::" + name_of(op)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'a_keys'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(device_form<void>(op, a.data(), 3, unsorted.data(), 3, out.data(), count.data(), lt, ctx),
                 mgpu::precondition_error);
    EXPECT_THROW(device_form<void>(op, a.data(), a.data(), 3, unsorted.data(), a.data(), 3, out.data(), values.data(),
                                   count.data(), lt, ctx),
                 mgpu::precondition_error);
  }
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), out.to_host()));
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), values.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>(1, poison<std::int64_t>()), count.to_host()));
}

// Unsorted inputs outside checked mode: the result is unspecified, but nothing is written past
// the operation's bound and the count does not exceed it.
MGPU_TEST(Sets, UnsortedInputsStayInBounds) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto lt = mgpu::less<>();
  for (std::int64_t distinct : {3, 1000000}) {
    std::vector<int> a = random_keys<int>(5 * set_nv + 17, distinct, rng),
                     b = random_keys<int>(3 * set_nv, distinct, rng);
    std::int64_t n = std::int64_t(a.size()), m = std::int64_t(b.size());
    mgpu::buffer<int> da(a, ctx), db(b, ctx);
    for (set_op op : every_op) {
      SCOPED_TRACE(name_of(op) + ", " + std::to_string(distinct) + " distinct");
      std::int64_t bound = bound_of(op, n, m);
      mgpu::buffer<int> keys_out = poisoned<int>(bound + 100, ctx), values_out = poisoned<int>(bound + 100, ctx);
      mgpu::buffer<std::int64_t> count = poisoned<std::int64_t>(1, ctx);
      device_form<void>(op, da.data(), da.data(), n, db.data(), db.data(), m, keys_out.data(), values_out.data(),
                        count.data(), lt, ctx);
      std::int64_t kept = count.to_host()[0];
      EXPECT_TRUE(kept >= 0 && kept <= bound) << kept;
      std::vector<int> keys = keys_out.to_host(), vals = values_out.to_host();
      EXPECT_TRUE(same(std::vector<int>(100, poison<int>()), std::vector<int>(keys.begin() + bound, keys.end())));
      EXPECT_TRUE(same(std::vector<int>(100, poison<int>()), std::vector<int>(vals.begin() + bound, vals.end())));
    }
  }
}

// Issue 20: inputs of at most one tile cost one launch (no partition pass, no look-back state).
MGPU_TEST(Sets, OneTileIsOneLaunch) {
  mgpu::context ctx;
  mgpu::buffer<int> a(set_nv, ctx), b(set_nv, ctx), out(2 * set_nv, ctx);
  mgpu::buffer<std::int64_t> count(1, ctx);
  a.fill(1);
  b.fill(2);
  const int *pa = a.data(), *pb = b.data();
  int* o = out.data();
  std::int64_t* k = count.data();
  for (std::int64_t n : {std::int64_t(2), std::int64_t(set_nv)}) {
    SCOPED_TRACE("a and b together: " + std::to_string(n));
    EXPECT_EQ(count_enqueued(
                  [&](mgpu::context& c) { mgpu::set_intersection(pa, n / 2, pb, n - n / 2, o, k, mgpu::less<>(), c); }),
              one_launch);
    EXPECT_EQ(
        count_enqueued([&](mgpu::context& c) { mgpu::set_union(pa, n / 2, pb, n - n / 2, o, k, mgpu::less<>(), c); }),
        one_launch);
  }
}
