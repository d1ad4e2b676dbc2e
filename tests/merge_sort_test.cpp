// merge against std::merge, mergesort (keys, pairs, indices) against std::stable_sort: stability
// through values that record original positions, tile-boundary sizes, several key types and
// comparators, duplicates and presorted inputs, bad arguments.
#include "references/merge_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mgpu_test;

template <typename T>
class MergeSortTyped : public ::testing::Test {};
using key_types = test_types<std::int32_t, double, std::int64_t, std::uint32_t, float>;
TYPED_TEST_SUITE(MergeSortTyped, key_types);

// Merges a and b, sorted by comp (keys, then pairs whose values record where each key came from:
// i for a[i], -1 - i for b[i]) and compares with std::merge: equal keys must come a first, each
// input in order.
template <typename params = void, typename T, typename Comp = mgpu::less<T>>
void check_merge(mgpu::context& ctx, const std::vector<T>& a, const std::vector<T>& b, Comp comp = Comp()) {
  std::int64_t a_count = std::int64_t(a.size()), b_count = std::int64_t(b.size());
  std::vector<std::int64_t> a_pos(a.size()), b_pos(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_pos[i] = std::int64_t(i);
  for (std::size_t i = 0; i < b.size(); ++i) b_pos[i] = -1 - std::int64_t(i);
  auto expected = mgpu_ref::merge_pairs(a, a_pos, b, b_pos, comp);

  mgpu::buffer<T> da(a, ctx), db(b, ctx), keys = poisoned<T>(a_count + b_count, ctx);
  mgpu::buffer<std::int64_t> dav(a_pos, ctx), dbv(b_pos, ctx), values = poisoned<std::int64_t>(a_count + b_count, ctx);
  mgpu::merge<params>(da.data(), a_count, db.data(), b_count, keys.data(), comp, ctx);
  EXPECT_TRUE(same(expected.first, keys.to_host())) << "keys only";
  keys = poisoned<T>(a_count + b_count, ctx);
  mgpu::merge<params>(da.data(), dav.data(), a_count, db.data(), dbv.data(), b_count, keys.data(), values.data(), comp,
                      ctx);
  EXPECT_TRUE(same(expected.first, keys.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(expected.second, values.to_host())) << "pairs: values";
}

template <typename params = void, typename K, typename Comp>
void check_mergesort(mgpu::context& ctx, const std::vector<K>& keys, Comp comp) {
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, comp);
  std::vector<K> sorted = mgpu_ref::permute(keys, order);

  mgpu::buffer<K> k(keys, ctx);
  mgpu::mergesort<params>(k.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k.to_host())) << "keys";

  // Values record original positions: the reference order proves stability.
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = i;
  mgpu::buffer<K> k2(keys, ctx);
  mgpu::buffer<std::int64_t> v(positions, ctx);
  mgpu::mergesort<params>(k2.data(), v.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k2.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(order, v.to_host())) << "pairs: values";

  mgpu::buffer<K> k3(keys, ctx);
  mgpu::buffer<int> indices = poisoned<int>(n, ctx);
  mgpu::mergesort_indices<params>(k3.data(), n, indices.data(), comp, ctx);
  std::vector<int> order32(order.begin(), order.end());
  EXPECT_TRUE(same(sorted, k3.to_host())) << "indices: keys";
  EXPECT_TRUE(same(order32, indices.to_host())) << "indices";
}

MGPU_TYPED_TEST(MergeSortTyped, MergesortMatchesStableSort) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  // The simulator sorts about a million keys a second: one large size per type keeps this quick.
  // The keys' tile edges, then the pairs' (check_mergesort's values are 64-bit positions).
  std::vector<std::int64_t> sizes = sizes_for(mgpu::mergesort_params<T>::nv, 300007);
  const std::int64_t pairs_nv = mgpu::mergesort_params<T, std::int64_t>::nv;
  if (pairs_nv != mgpu::mergesort_params<T>::nv) sizes.insert(sizes.end(), {pairs_nv - 1, pairs_nv, pairs_nv + 1});
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_mergesort(ctx, random_keys<T>(n, 1 << 30, rng), mgpu::less<T>());
    check_mergesort(ctx, random_keys<T>(n, 17, rng), mgpu::greater<T>());
  }
}

// Past mergesort_large_threshold, 4-byte keys alone take mergesort_large_params (a shape of its
// own where MGPU_TUNING_ARCH >= 90, the default, on either backend): the sizes on either side.
// (Keys only: pairs keep their shape.)
MGPU_TEST(MergeSort, AroundTheLargeShape) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t threshold = mgpu::mergesort_large_threshold;
  for (std::int64_t n : {threshold, threshold + 1}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<int> keys = random_keys<int>(n, 1 << 30, rng), sorted = keys;
    std::sort(sorted.begin(), sorted.end(), std::greater<int>());
    mgpu::buffer<int> k(keys, ctx);
    mgpu::mergesort(k.data(), n, mgpu::greater<int>(), ctx);
    EXPECT_TRUE(same(sorted, k.to_host()));
  }
}

MGPU_TEST(MergeSort, ManyPassesWithSmallTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(100), std::int64_t(3001), std::int64_t(70001)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_mergesort<mgpu::launch_params<32, 3>>(ctx, random_keys<int>(n, 50, rng), mgpu::less<int>());
  }
}

// Merge passes of more than two waves of CTAs search their tile boundaries in a partition pass
// first (the passes above, of fewer tiles, let each CTA search its own): 600,001 keys in tiles of
// 32 are 18,751 tiles, more than two waves on the simulator (2 x 132 SMs x 64 CTAs) and on any GPU
// of up to 292 SMs (32 CTAs an SM).
// Pairs whose values record original positions (stability); the simulator takes seconds here.
MGPU_TEST(MergeSort, ManyPassesOverManyWaves) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 600001;
  std::vector<int> keys = random_keys<int>(n, 1000, rng);
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, mgpu::less<int>());
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = i;
  mgpu::buffer<int> k(keys, ctx);
  mgpu::buffer<std::int64_t> v(positions, ctx);
  mgpu::mergesort<mgpu::launch_params<32, 1>>(k.data(), v.data(), n, mgpu::less<int>(), ctx);
  EXPECT_TRUE(same(mgpu_ref::permute(keys, order), k.to_host())) << "keys";
  EXPECT_TRUE(same(order, v.to_host())) << "values";
}

MGPU_TEST(MergeSort, PresortedReversedAndAllEqual) {
  mgpu::context ctx;
  const std::int64_t n = 100003;
  std::vector<int> ascending(static_cast<std::size_t>(n)), descending(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ascending[std::size_t(i)] = int(i), descending[std::size_t(i)] = int(n - i);
  check_mergesort(ctx, ascending, mgpu::less<int>());
  check_mergesort(ctx, descending, mgpu::less<int>());
  check_mergesort(ctx, std::vector<int>(static_cast<std::size_t>(n), 7), mgpu::less<int>());
}

// A user struct ordered by a lambda on one field; the other field shows stability.
MGPU_TEST(MergeSort, UserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& a, const pair_value& b) { return a.key < b.key; };
  std::vector<pair_value> keys(50001);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = pair_value{int(rng() % 100), float(i)};
  check_mergesort(ctx, keys, by_key);
}

MGPU_TYPED_TEST(MergeSortTyped, MergeMatchesStdMerge) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const int nv = mgpu::merge_params<T>::nv;
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes{
      {0, 0}, {0, 5}, {7, 0}, {1, 1}, {nv, 1}, {nv - 1, nv + 1}, {10007, 3 * nv}, {300001, 299999}};
  for (auto [a_count, b_count] : shapes) {
    SCOPED_TRACE("a=" + std::to_string(a_count) + " b=" + std::to_string(b_count));
    for (std::int64_t distinct : {std::int64_t(5), std::int64_t(1) << 30}) {
      std::vector<T> a = random_keys<T>(a_count, distinct, rng), b = random_keys<T>(b_count, distinct, rng);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      check_merge(ctx, a, b);
    }
  }
}

// Tiles of 32 outputs, so that every kind of tile boundary occurs many times: inputs of uneven
// lengths with few distinct keys, one input wholly before the other (one side of every split is
// empty), and all keys equal (every split must put a's keys first).
MGPU_TEST(MergeSort, SkewedAndAllEqualInputsOverManyTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 1>;
  const int n = 1000003;
  std::vector<int> few = random_keys<int>(n, 40, rng), low(700001), high(n - 700001);
  std::sort(few.begin(), few.begin() + 700001);
  std::sort(few.begin() + 700001, few.end());
  for (std::size_t i = 0; i < low.size(); ++i) low[i] = int(i);
  for (std::size_t i = 0; i < high.size(); ++i) high[i] = int(low.size() + i);
  std::vector<int> equal_a(400000, 3), equal_b(n - 400000, 3);
  std::vector<std::pair<std::vector<int>, std::vector<int>>> cases{
      {std::vector<int>(few.begin(), few.begin() + 700001), std::vector<int>(few.begin() + 700001, few.end())},
      {low, high},
      {high, low},
      {equal_a, equal_b}};
  for (auto& [a, b] : cases) {
    SCOPED_TRACE("a=" + std::to_string(a.size()) + " front " + std::to_string(a.front()) + ", b front " +
                 std::to_string(b.front()));
    check_merge<small>(ctx, a, b);
  }
}

// Checked mode rejects unsorted merge inputs before writing anything.
MGPU_TEST(MergeSort, CheckedModeRejectsUnsortedInputs) {
  mgpu::context ctx;
  ctx.set_checked(true);
  mgpu::buffer<int> sorted(std::vector<int>{1, 2, 3}, ctx), unsorted(std::vector<int>{1, 5, 3}, ctx);
  mgpu::buffer<int> out = poisoned<int>(6, ctx);
  try {
    mgpu::merge(sorted.data(), 3, unsorted.data(), 3, out.data(), mgpu::less<>(), ctx);
    ADD_FAILURE() << "unsorted b accepted";
  } catch (const mgpu::precondition_error& e) {
    EXPECT_NE(std::string(e.what()).find("'b_keys'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), out.to_host()));
  mgpu::merge(sorted.data(), 3, sorted.data(), 3, out.data(), mgpu::less<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{1, 1, 2, 2, 3, 3}, out.to_host()));
}

MGPU_TEST(MergeSort, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx), out = poisoned<int>(6, ctx);
  int* null = nullptr;
  EXPECT_THROW(mgpu::mergesort(a.data(), -1, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::mergesort(null, 5, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::mergesort(a.data(), a.data(), 3, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge(a.data(), -2, a.data(), 3, out.data(), mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge(a.data(), 3, null, 3, out.data(), mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge(a.data(), 3, a.data(), 3, a.data(), mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_TRUE(same(std::vector<int>{1, 2, 3}, a.to_host()));
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), out.to_host()));
}

// Counts at the edge of int64: a sum or a byte size that overflows throws, naming the function,
// before anything runs (the sum once wrapped to a negative total and the call did nothing).
MGPU_TEST(MergeSort, CountsThatOverflowInt64Throw) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx), out = poisoned<int>(6, ctx);
  const std::int64_t max = std::numeric_limits<std::int64_t>::max(), half = std::int64_t(1) << 62;
  auto merge_counts = [&](std::int64_t a_count, std::int64_t b_count) {
    return
        [&, a_count, b_count] { mgpu::merge(a.data(), a_count, a.data(), b_count, out.data(), mgpu::less<>(), ctx); };
  };
  expect_invalid_argument("mgpu::merge", "b_count", merge_counts(max, max));
  expect_invalid_argument("mgpu::merge", "b_count", merge_counts(max, 1));
  expect_invalid_argument("mgpu::merge", "b_count", merge_counts(half, half));
  expect_invalid_argument("mgpu::merge", "a_keys", merge_counts(half, half - 1));  // 2^63 - 1 ints: too many bytes
  auto c = mgpu::make_counting_iterator<std::int64_t>(0);
  expect_invalid_argument("mgpu::merge_path_partitions", "b_count",
                          [&] { mgpu::merge_path_partitions(c, max, c, 1, 128, mgpu::less<>(), ctx); });
  expect_invalid_argument("mgpu::mergesort", "keys", [&] { mgpu::mergesort(a.data(), max / 2, mgpu::less<>(), ctx); });
  expect_invalid_argument("mgpu::buffer", "count", [&] { mgpu::buffer<double> b(max / 4, ctx); });
  EXPECT_TRUE(same(std::vector<int>{1, 2, 3}, a.to_host()));
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), out.to_host()));
}

namespace {

// Input shapes (a_count, b_count) whose totals are 1, nv - 1, nv and a few tiles: one side empty,
// one side a single key, and an even split.
std::vector<std::pair<std::int64_t, std::int64_t>> merge_shapes(std::int64_t nv) {
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{1, 0}, {0, 1}};
  for (std::int64_t total : {nv - 1, nv, 3 * nv + 5})
    for (std::pair<std::int64_t, std::int64_t> s :
         {std::make_pair(total, std::int64_t(0)), std::make_pair(std::int64_t(0), total),
          std::make_pair(std::int64_t(1), total - 1), std::make_pair(total - 1, std::int64_t(1)),
          std::make_pair(total / 2, total - total / 2)})
      shapes.push_back(s);
  return shapes;
}

}  // namespace

// Descending inputs merged with greater<>, over totals of 1, nv - 1, nv and a few tiles, with few
// and many distinct keys.
MGPU_TEST(MergeSort, MergeWithGreaterAroundATile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using T = std::int64_t;
  for (auto [a_count, b_count] : merge_shapes(mgpu::merge_params<T>::nv)) {
    for (std::int64_t distinct : {std::int64_t(3), std::int64_t(1) << 40}) {
      SCOPED_TRACE("a=" + std::to_string(a_count) + " b=" + std::to_string(b_count) +
                   " distinct=" + std::to_string(distinct));
      std::vector<T> a = random_keys<T>(a_count, distinct, rng), b = random_keys<T>(b_count, distinct, rng);
      std::sort(a.begin(), a.end(), std::greater<T>());
      std::sort(b.begin(), b.end(), std::greater<T>());
      check_merge(ctx, a, b, mgpu::greater<>());
    }
  }
}

// A user struct ordered by a lambda on one field; the other field records which input and
// position each key came from, so the keys themselves show stability.
MGPU_TEST(MergeSort, MergeUserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& x, const pair_value& y) { return x.key < y.key; };
  for (auto [a_count, b_count] : merge_shapes(mgpu::merge_params<pair_value>::nv)) {
    SCOPED_TRACE("a=" + std::to_string(a_count) + " b=" + std::to_string(b_count));
    std::vector<pair_value> a(static_cast<std::size_t>(a_count)), b(static_cast<std::size_t>(b_count));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = pair_value{int(rng() % 20), float(i)};
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = pair_value{int(rng() % 20), -1.0f - float(i)};
    std::stable_sort(a.begin(), a.end(), by_key);
    std::stable_sort(b.begin(), b.end(), by_key);
    check_merge(ctx, a, b, by_key);
  }
}

// Checked mode rejects an unsorted a_keys (one pair swapped deep inside, not in the first tile;
// and keys sorted the other way than comp) in both forms, before writing anything.
MGPU_TEST(MergeSort, CheckedModeRejectsUnsortedA) {
  mgpu::context ctx;
  ctx.set_checked(true);
  MGPU_SEEDED_RNG(rng);
  const std::int64_t nv = mgpu::merge_params<int>::nv, a_count = 3 * nv + 1, b_count = 1000;
  std::vector<int> a = random_keys<int>(a_count, 1 << 20, rng), b = random_keys<int>(b_count, 1 << 20, rng);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<int> unsorted = a;
  std::size_t k = std::size_t(2 * nv + 7);
  unsorted[k] = unsorted[k + 1] + 1;
  mgpu::buffer<int> da(a, ctx), dbad(unsorted, ctx), db(b, ctx);
  mgpu::buffer<int> keys = poisoned<int>(a_count + b_count, ctx), values = poisoned<int>(a_count + b_count, ctx);
  auto values_a = mgpu::make_counting_iterator(0), values_b = mgpu::make_counting_iterator(-int(b_count));
  auto expect_rejected = [&](const char* what, const std::function<void()>& f) {
    SCOPED_TRACE(what);
    try {
      f();
      ADD_FAILURE() << "unsorted a accepted";
    } catch (const mgpu::precondition_error& e) {
      EXPECT_NE(std::string(e.what()).find("mgpu::merge"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'a_keys'"), std::string::npos) << e.what();
    }
  };
  expect_rejected("keys",
                  [&] { mgpu::merge(dbad.data(), a_count, db.data(), b_count, keys.data(), mgpu::less<>(), ctx); });
  expect_rejected("pairs", [&] {
    mgpu::merge(dbad.data(), values_a, a_count, db.data(), values_b, b_count, keys.data(), values.data(),
                mgpu::less<>(), ctx);
  });
  expect_rejected("sorted the other way",
                  [&] { mgpu::merge(da.data(), a_count, db.data(), 0, keys.data(), mgpu::greater<>(), ctx); });
  EXPECT_TRUE(same(std::vector<int>(std::size_t(a_count + b_count), poison<int>()), keys.to_host()));
  EXPECT_TRUE(same(std::vector<int>(std::size_t(a_count + b_count), poison<int>()), values.to_host()));
  EXPECT_TRUE(same(unsorted, dbad.to_host()));

  // Sorted inputs pass in checked mode and give std::merge's result.
  mgpu::merge(da.data(), values_a, a_count, db.data(), values_b, b_count, keys.data(), values.data(), mgpu::less<>(),
              ctx);
  std::vector<int> pos_a(a.size()), pos_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) pos_a[i] = int(i);
  for (std::size_t i = 0; i < b.size(); ++i) pos_b[i] = int(i) - int(b_count);
  auto expected = mgpu_ref::merge_pairs(a, pos_a, b, pos_b, mgpu::less<int>());
  EXPECT_TRUE(same(expected.first, keys.to_host()));
  EXPECT_TRUE(same(expected.second, values.to_host()));
}

// The pair form's own arguments: null value arrays and values_out overlapping a value input.
// Every output keeps its poison and no input changes.
MGPU_TEST(MergeSort, PairMergeBadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  const std::vector<int> a_host{1, 3, 5}, b_host{2, 4, 6};
  const std::vector<std::int64_t> av_host{10, 11, 12}, bv_host{20, 21, 22, 23, 24, 25, 26, 27, 28};
  mgpu::buffer<int> a(a_host, ctx), b(b_host, ctx), keys = poisoned<int>(6, ctx);
  mgpu::buffer<std::int64_t> av(av_host, ctx), bv(bv_host, ctx), values = poisoned<std::int64_t>(6, ctx);
  int *ak = a.data(), *bk = b.data(), *ko = keys.data();
  std::int64_t *va = av.data(), *vb = bv.data(), *vo = values.data(), *null = nullptr;
  const char* fn = "mgpu::merge";
  auto less = mgpu::less<>();
  expect_invalid_argument(fn, "a_values", [&] { mgpu::merge(ak, null, 3, bk, vb, 3, ko, vo, less, ctx); });
  expect_invalid_argument(fn, "b_values", [&] { mgpu::merge(ak, va, 3, bk, null, 3, ko, vo, less, ctx); });
  expect_invalid_argument(fn, "values_out", [&] { mgpu::merge(ak, va, 3, bk, vb, 3, ko, null, less, ctx); });
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::merge(ak, va, 3, bk, vb, 3, ko, va, less, ctx); });  // a_values, exactly
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::merge(ak, vb + 5, 3, bk, va, 3, ko, vb, less, ctx); });  // a_values' start
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::merge(ak, va, 3, bk, vb, 3, ko, vb + 2, less, ctx); });  // b_values' end
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::merge(ak, va, 3, bk, vb + 3, 3, ko, vb, less, ctx); });  // b_values' start
  expect_invalid_argument(fn, "a_keys",
                          [&] { mgpu::merge(static_cast<int*>(nullptr), va, 3, bk, vb, 3, ko, vo, less, ctx); });
  expect_invalid_argument(fn, "keys_out",
                          [&] { mgpu::merge(ak, va, 3, bk, vb, 3, static_cast<int*>(nullptr), vo, less, ctx); });
  expect_invalid_argument(fn, "keys_out", [&] { mgpu::merge(ak, va, 3, bk, vb, 3, bk, vo, less, ctx); });
  expect_invalid_argument(fn, "b_count", [&] { mgpu::merge(ak, va, 3, bk, vb, -1, ko, vo, less, ctx); });
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), keys.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>(6, poison<std::int64_t>()), values.to_host()));
  EXPECT_TRUE(same(a_host, a.to_host()));
  EXPECT_TRUE(same(b_host, b.to_host()));
  EXPECT_TRUE(same(av_host, av.to_host()));
  EXPECT_TRUE(same(bv_host, bv.to_host()));

  // A null value array is fine where its count is zero.
  mgpu::merge(ak, null, 0, bk, vb, 3, ko, vo, less, ctx);
  EXPECT_TRUE(same(std::vector<int>{2, 4, 6, poison<int>(), poison<int>(), poison<int>()}, keys.to_host()));
  EXPECT_TRUE(same(
      std::vector<std::int64_t>{20, 21, 22, poison<std::int64_t>(), poison<std::int64_t>(), poison<std::int64_t>()},
      values.to_host()));
}

MGPU_TEST(MergeSort, IndicesBadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  const std::vector<int> original{3, 1, 2, 5, 4};
  mgpu::buffer<int> keys(original, ctx), indices = poisoned<int>(5, ctx);
  int *k = keys.data(), *i = indices.data(), *null = nullptr;
  const char* fn = "mgpu::mergesort_indices";
  expect_invalid_argument(fn, "count", [&] { mgpu::mergesort_indices(k, -1, i, mgpu::less<>(), ctx); });
  expect_invalid_argument(fn, "count", [&] { mgpu::mergesort_indices(null, -3, null, mgpu::less<>(), ctx); });
  expect_invalid_argument(fn, "keys", [&] { mgpu::mergesort_indices(null, 5, i, mgpu::less<>(), ctx); });
  expect_invalid_argument(fn, "values", [&] { mgpu::mergesort_indices(k, 5, null, mgpu::less<>(), ctx); });
  expect_invalid_argument(fn, "values",
                          [&] { mgpu::mergesort_indices(k, 5, k, mgpu::less<>(), ctx); });  // indices == keys
  expect_invalid_argument(fn, "values",
                          [&] { mgpu::mergesort_indices(k + 1, 4, k, mgpu::less<>(), ctx); });  // overlapping
  EXPECT_TRUE(same(original, keys.to_host()));
  EXPECT_TRUE(same(std::vector<int>(5, poison<int>()), indices.to_host()));
  mgpu::mergesort_indices(null, 0, null, mgpu::less<>(), ctx);  // nothing to do
  mgpu::mergesort_indices(k, 5, i, mgpu::less<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{1, 2, 3, 4, 5}, keys.to_host()));
  EXPECT_TRUE(same(std::vector<int>{1, 2, 0, 4, 3}, indices.to_host()));
}

// Inputs that break the preconditions give an unspecified result, but every read and write stays
// inside the arrays (on the GPU an access outside a CTA's shared memory would fault): unsorted
// merge inputs in unchecked mode, and a "comparator" that is no strict weak order (a hash coin flip
// per ordered pair, so that a < b and b < a may both hold) for every sort. Guard zones around every
// output keep their poison.
MGPU_TEST(MergeSort, BrokenPreconditionsStayInBounds) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  const std::int64_t n = 3001, guard = 512;
  auto coin = [] MGPU_HOST_DEVICE_LAMBDA(int a, int b) {
    return ((unsigned(a) * 2654435761u) ^ unsigned(b) * 40503u) >> 31 != 0;
  };
  auto guarded = [&](const std::vector<int>& inner) {
    std::vector<int> host(std::size_t(n + 2 * guard), poison<int>());
    std::copy(inner.begin(), inner.end(), host.begin() + guard);
    return mgpu::buffer<int>(host, ctx);
  };
  auto guards_intact = [&](const mgpu::buffer<int>& b, const char* what) {
    std::vector<int> got = b.to_host();
    EXPECT_TRUE(std::all_of(got.begin(), got.begin() + guard, [](int v) { return v == poison<int>(); })) << what;
    EXPECT_TRUE(std::all_of(got.end() - guard, got.end(), [](int v) { return v == poison<int>(); })) << what;
  };
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<int> inner = random_keys<int>(n, 1000, rng);
    {  // unsorted merge inputs (unchecked mode), keys and pairs
      mgpu::buffer<int> a(inner, ctx), out = guarded({}), values_out = guarded({});
      mgpu::merge<small>(a.data(), n / 3, a.data() + n / 3, n - n / 3, out.data() + guard, mgpu::less<int>(), ctx);
      guards_intact(out, "merge keys");
      mgpu::merge<small>(a.data(), a.data(), n / 3, a.data() + n / 3, a.data() + n / 3, n - n / 3, out.data() + guard,
                         values_out.data() + guard, mgpu::less<int>(), ctx);
      guards_intact(out, "merge pairs: keys");
      guards_intact(values_out, "merge pairs: values");
    }
    {
      mgpu::buffer<int> keys = guarded(inner), values = guarded(inner);
      mgpu::mergesort<small>(keys.data() + guard, values.data() + guard, n, coin, ctx);
      guards_intact(keys, "mergesort keys");
      guards_intact(values, "mergesort values");
    }
    {
      mgpu::buffer<int> keys = guarded(inner), values = guarded(inner);
      mgpu::locality_sort<small>(keys.data() + guard, values.data() + guard, n, coin, ctx);
      guards_intact(keys, "locality_sort keys");
      guards_intact(values, "locality_sort values");
    }
    {
      std::vector<int> heads{0, 7, 100, 101, 1000, 1500, 2999};
      mgpu::buffer<int> keys = guarded(inner), values = guarded(inner), h(heads, ctx);
      mgpu::segmented_sort<small>(keys.data() + guard, values.data() + guard, n,
                                  mgpu::segments_by_heads(h.data(), std::int64_t(heads.size())), coin, ctx);
      guards_intact(keys, "segmented_sort keys");
      guards_intact(values, "segmented_sort values");
    }
  }
}

// Issue 20: an input of at most one tile costs one launch (no partition pass, no temporaries).
MGPU_TEST(MergeSort, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t merge_nv = mgpu::merge_params<int>::nv, sort_nv = mgpu::mergesort_params<int>::nv;
  const std::int64_t pairs_nv = mgpu::mergesort_params<int, int>::nv;
  mgpu::buffer<int> a(merge_nv, ctx), b(merge_nv, ctx), out(2 * merge_nv, ctx), values_out(2 * merge_nv, ctx);
  a.fill(1);
  b.fill(2);
  const int *pa = a.data(), *pb = b.data();
  int *o = out.data(), *v = values_out.data();
  for (std::int64_t n : {std::int64_t(1), merge_nv}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::merge(pa, n / 2, pb, n - n / 2, o, mgpu::less<>(), c); }),
              one_launch);
    EXPECT_EQ(count_enqueued(
                  [&](mgpu::context& c) { mgpu::merge(pa, pb, n / 2, pb, pa, n - n / 2, o, v, mgpu::less<>(), c); }),
              one_launch);
  }
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::mergesort(o, sort_nv, mgpu::less<>(), c); }), one_launch);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::mergesort(o, v, pairs_nv, mgpu::less<>(), c); }), one_launch);
  // Two tiles, one wave: each CTA finds its own bounds, still one launch. Mergesort of two tiles:
  // the blocksort and one merge pass, with the keys' temporary copy alone.
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::merge(pa, merge_nv, pb, 1, o, mgpu::less<>(), c); }),
            one_launch);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::mergesort(o, sort_nv + 1, mgpu::less<>(), c); }),
            (enqueued{2, 0, 0, 1}));
}

// Beyond two waves of CTAs, a partition pass (its array allocated) searches the tile bounds
// before the merge: 40,000 tiles of 32 outputs (more than two waves on the simulator and on any
// GPU of up to 625 SMs).
MGPU_TEST(MergeSort, ManyWavesMergeHasAPartitionPass) {
  mgpu::context ctx;
  const std::int64_t half = 20000 * 32;
  mgpu::buffer<int> a(half, ctx), b(half, ctx), out(2 * half, ctx);
  a.fill(1);
  b.fill(2);
  const int *pa = a.data(), *pb = b.data();
  int* o = out.data();
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) {
              mgpu::merge<mgpu::launch_params<32, 1>>(pa, half, pb, half, o, mgpu::less<>(), c);
            }),
            (enqueued{2, 0, 0, 1}));
}
