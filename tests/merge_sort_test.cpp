// merge, mergesort (keys, pairs, indices) against std::stable_sort-based references: stability
// through values that record original positions, tile-boundary sizes, several key types and
// comparators, duplicates and presorted inputs, bad arguments.
#include "references/merge_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mgpu_test;

template <typename T>
class MergeSortTyped : public ::testing::Test {};
using key_types = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, float, double>;
TYPED_TEST_SUITE(MergeSortTyped, key_types);

// Merges sorted a and b (keys, then pairs whose values record where each key came from) and
// compares with the reference merge: equal keys must come a first, each input in order.
template <typename params = void, typename T>
void check_merge(mgpu::context& ctx, const std::vector<T>& a, const std::vector<T>& b) {
  std::int64_t a_count = std::int64_t(a.size()), b_count = std::int64_t(b.size());
  std::vector<std::int64_t> a_pos(a.size()), b_pos(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_pos[i] = std::int64_t(i);
  for (std::size_t i = 0; i < b.size(); ++i) b_pos[i] = -1 - std::int64_t(i);
  auto expected = mgpu_ref::merge_pairs(a, a_pos, b, b_pos, mgpu::less<T>());

  mgpu::buffer<T> da(a, ctx), db(b, ctx), keys = poisoned<T>(a_count + b_count, ctx);
  mgpu::buffer<std::int64_t> dav(a_pos, ctx), dbv(b_pos, ctx), values = poisoned<std::int64_t>(a_count + b_count, ctx);
  mgpu::merge<params>(da.data(), a_count, db.data(), b_count, keys.data(), mgpu::less<T>(), ctx);
  EXPECT_TRUE(same(expected.first, keys.to_host())) << "keys only";
  keys = poisoned<T>(a_count + b_count, ctx);
  mgpu::merge<params>(da.data(), dav.data(), a_count, db.data(), dbv.data(), b_count, keys.data(), values.data(),
                      mgpu::less<T>(), ctx);
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
  for (std::int64_t n : sizes_for(mgpu::mergesort_params<T>::nv, 300007)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_mergesort(ctx, random_keys<T>(n, 1 << 30, rng), mgpu::less<T>());
    check_mergesort(ctx, random_keys<T>(n, 17, rng), mgpu::greater<T>());
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
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{0, 0}, {0, 5}, {7, 0}, {1, 1}, {nv, 1},
                                                            {nv - 1, nv + 1}, {10007, 3 * nv}, {300001, 299999}};
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
      {low, high}, {high, low}, {equal_a, equal_b}};
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
