// segmented_sort (keys, pairs, indices) against per-segment std::stable_sort: segment profiles
// (empty segments, segments of one, one segment, fixed sizes around the tile, random sizes, half
// the array in one segment), key types and comparators, small tiles for many merge levels, bad
// arguments.
#include "references/merge_sort.hpp"
#include "references/segmented_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mgpu_test;

namespace {

// Heads of segments of `size` elements from 0 (the first head is 0).
std::vector<int> fixed_heads(std::int64_t n, std::int64_t size) {
  std::vector<int> heads;
  for (std::int64_t h = 0; h < n; h += size) heads.push_back(int(h));
  return heads;
}

// Segments of random sizes in [0, max_size]: repeated heads make empty segments.
std::vector<int> random_heads(std::int64_t n, int max_size, std::mt19937_64& rng) {
  std::vector<int> heads;
  std::uniform_int_distribution<int> d(0, max_size);
  for (std::int64_t h = d(rng); h <= n; h += d(rng)) heads.push_back(int(h));
  return heads;
}

template <typename params = void, typename K, typename Comp>
void check_segmented_sort(mgpu::context& ctx, const std::vector<K>& keys, const std::vector<int>& heads, Comp comp) {
  SCOPED_TRACE("n=" + std::to_string(keys.size()) + " segments=" + std::to_string(heads.size()));
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> order = mgpu_ref::segmented_order(keys, heads, comp);
  std::vector<K> sorted = mgpu_ref::permute(keys, order);
  mgpu::buffer<int> h(heads, ctx);
  auto segments = mgpu::segments_by_heads(h.data(), std::int64_t(heads.size()));

  mgpu::buffer<K> k(keys, ctx);
  mgpu::segmented_sort<params>(k.data(), n, segments, comp, ctx);
  EXPECT_TRUE(same(sorted, k.to_host())) << "keys";

  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = i;
  mgpu::buffer<K> k2(keys, ctx);
  mgpu::buffer<std::int64_t> v(positions, ctx);
  mgpu::segmented_sort<params>(k2.data(), v.data(), n, segments, comp, ctx);
  EXPECT_TRUE(same(sorted, k2.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(order, v.to_host())) << "pairs: values (stability)";

  mgpu::buffer<K> k3(keys, ctx);
  mgpu::buffer<int> indices = poisoned<int>(n, ctx);
  mgpu::segmented_sort_indices<params>(k3.data(), n, segments, indices.data(), comp, ctx);
  EXPECT_TRUE(same(sorted, k3.to_host())) << "indices: keys";
  EXPECT_TRUE(same(std::vector<int>(order.begin(), order.end()), indices.to_host())) << "indices";

  // The same segments as a head-flag bitfield; set bits past n must be ignored.
  std::vector<unsigned> flags(static_cast<std::size_t>(n / 32 + 1), 0u);
  for (int h : heads)
    if (h < n) flags[std::size_t(h / 32)] |= 1u << (h % 32);
  for (std::int64_t i = n; i < std::int64_t(flags.size()) * 32; ++i) flags[std::size_t(i / 32)] |= 1u << (i % 32);
  mgpu::buffer<unsigned> f(flags, ctx);
  mgpu::buffer<K> k4(keys, ctx);
  mgpu::buffer<std::int64_t> v4(positions, ctx);
  mgpu::segmented_sort<params>(k4.data(), v4.data(), n, mgpu::segments_by_flags(f.data()), comp, ctx);
  EXPECT_TRUE(same(sorted, k4.to_host())) << "flags: keys";
  EXPECT_TRUE(same(order, v4.to_host())) << "flags: values";
}

}  // namespace

template <typename T>
class SegmentedSortTyped : public ::testing::Test {};
using segsort_types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(SegmentedSortTyped, segsort_types);

MGPU_TYPED_TEST(SegmentedSortTyped, EveryProfileMatchesPerSegmentStableSort) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const int nv = mgpu::segmented_sort_params<T>::nv;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(nv - 1), std::int64_t(nv + 1), std::int64_t(7 * nv + 5), std::int64_t(100003)}) {
    std::vector<T> keys = random_keys<T>(n, 1000, rng);
    check_segmented_sort(ctx, keys, {}, mgpu::less<T>());                       // one segment, no heads
    check_segmented_sort(ctx, keys, {0}, mgpu::less<T>());                      // one segment
    check_segmented_sort(ctx, keys, fixed_heads(n, 1), mgpu::less<T>());        // segments of one
    check_segmented_sort(ctx, keys, fixed_heads(n, 8), mgpu::greater<T>());
    check_segmented_sort(ctx, keys, fixed_heads(n, nv), mgpu::less<T>());       // tile-aligned
    check_segmented_sort(ctx, keys, fixed_heads(n, nv + 3), mgpu::less<T>());   // just over a tile
    check_segmented_sort(ctx, keys, fixed_heads(n, 3 * nv - 1), mgpu::less<T>());
    check_segmented_sort(ctx, keys, random_heads(n, 200, rng), mgpu::less<T>());
    std::vector<int> half{int(n / 2)};  // [0, n/2) and [n/2, n), the second split in segments of 8
    for (std::int64_t h = n / 2 + 8; h < n; h += 8) half.push_back(int(h));
    check_segmented_sort(ctx, keys, half, mgpu::less<T>());
  }
}

// Tiles of 96 keys: a 20000-key array makes 209 tiles and 8 merge levels.
MGPU_TEST(SegmentedSort, ManyLevelsWithSmallTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  const std::int64_t n = 20000;
  std::vector<int> keys = random_keys<int>(n, 50, rng);
  check_segmented_sort<small>(ctx, keys, {}, mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, {0, 5000, 5001, 5001, 12345}, mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, random_heads(n, 1000, rng), mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, random_heads(n, 5, rng), mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, fixed_heads(n, 96 * 4 + 1), mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, random_heads(n, 250, rng), mgpu::less<int>());  // short and long crossings
  std::vector<int> shifted;  // segments of exactly one tile, each across a tile boundary
  for (int h = 5; h < n; h += 96) shifted.push_back(h);
  check_segmented_sort<small>(ctx, keys, shifted, mgpu::less<int>());
  std::vector<int> late{3, 19999, 20000, 20000};  // heads at the very end: empty trailing segments
  check_segmented_sort<small>(ctx, keys, late, mgpu::less<int>());
}

// Segment lengths around multiples of VT, the run length of the blocksort's rounds: where one
// flat round can finish a tile (no segment crosses two run boundaries) and where it just cannot.
// Shifting the first head makes the first segment start before the array and moves every
// boundary crossing.
MGPU_TEST(SegmentedSort, SegmentLengthsAroundRunBoundaries) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using P = mgpu::segmented_sort_params<int>;
  const int vt = P::vt;
  const std::int64_t n = 2 * P::nv + 37;
  std::vector<int> keys = random_keys<int>(n, 100, rng);
  for (int size : {2, vt - 1, vt, vt + 1, vt + 2, 2 * vt, 2 * vt + 1, 2 * vt + 2, 4 * vt + 1, 4 * vt + 2, 8 * vt + 2}) {
    for (int shift : {0, 1, vt / 2, vt - 1}) {
      SCOPED_TRACE("size=" + std::to_string(size) + " shift=" + std::to_string(shift));
      std::vector<int> heads;
      for (std::int64_t h = shift; h < n; h += size) heads.push_back(int(h));
      check_segmented_sort(ctx, keys, heads, mgpu::less<int>());
    }
  }
  // Mixed: mostly short segments, and now and then one long enough to block the flat round.
  std::vector<int> mixed;
  std::uniform_int_distribution<int> coin(0, 40);
  for (std::int64_t h = 0; h < n; h += coin(rng) == 0 ? 3 * vt + 5 : 1 + coin(rng) % (vt + 1)) mixed.push_back(int(h));
  check_segmented_sort(ctx, keys, mixed, mgpu::less<int>());
}

MGPU_TEST(SegmentedSort, UserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& a, const pair_value& b) { return a.key < b.key; };
  std::vector<pair_value> keys(30011);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = pair_value{int(rng() % 10), float(i)};
  check_segmented_sort(ctx, keys, random_heads(30011, 3000, rng), by_key);
}

// Checked mode validates the heads (sorted, in [0, count]) before anything is written.
MGPU_TEST(SegmentedSort, CheckedModeRejectsBadHeads) {
  mgpu::context ctx;
  ctx.set_checked(true);
  std::vector<int> original{5, 4, 3, 2, 1, 0};
  mgpu::buffer<int> keys(original, ctx);
  for (std::vector<int> bad : {std::vector<int>{0, 3, 2}, std::vector<int>{0, 7}, std::vector<int>{-1, 2}}) {
    mgpu::buffer<int> heads(bad, ctx);
    try {
      mgpu::segmented_sort(keys.data(), 6, mgpu::segments_by_heads(heads.data(), std::int64_t(bad.size())),
                           mgpu::less<>(), ctx);
      ADD_FAILURE() << "bad heads accepted";
    } catch (const mgpu::precondition_error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("mgpu::segmented_sort"), std::string::npos) << what;
      EXPECT_NE(what.find("'heads'"), std::string::npos) << what;
    }
  }
  EXPECT_TRUE(same(original, keys.to_host()));
  mgpu::buffer<int> good(std::vector<int>{0, 3, 3, 6}, ctx);  // repeats and count itself are fine
  mgpu::segmented_sort(keys.data(), 6, mgpu::segments_by_heads(good.data(), 4), mgpu::less<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{3, 4, 5, 0, 1, 2}, keys.to_host()));
}

MGPU_TEST(SegmentedSort, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> keys(std::vector<int>{3, 2, 1}, ctx), heads(std::vector<int>{0, 2}, ctx);
  int* null = nullptr;
  auto segments = mgpu::segments_by_heads(heads.data(), 2);
  EXPECT_THROW(mgpu::segmented_sort(keys.data(), -1, segments, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::segmented_sort(null, 3, segments, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::segmented_sort(keys.data(), 3, mgpu::segments_by_heads(null, 2), mgpu::less<>(), ctx),
               std::invalid_argument);
  EXPECT_THROW(mgpu::segmented_sort(keys.data(), 3, mgpu::segments_by_heads(heads.data(), -1), mgpu::less<>(), ctx),
               std::invalid_argument);
  EXPECT_THROW(mgpu::segmented_sort(keys.data(), keys.data(), 3, segments, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_TRUE(same(std::vector<int>{3, 2, 1}, keys.to_host()));
}
