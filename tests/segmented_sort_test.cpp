// segmented_sort (keys, pairs, indices) against per-segment std::stable_sort: segment profiles
// (empty segments, segments of one, one segment, fixed sizes around the tile, random sizes, half
// the array in one segment), key types and comparators, small tiles for many merge levels, bad
// arguments.
#include "references/segmented_sort.hpp"
#include "references/merge_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
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

// Runs keys only, pairs (values record original positions) and indices with one description of
// the segments, which `heads` lists for the reference.
template <typename params = void, typename K, typename Segments, typename Head, typename Comp>
void check_segments(mgpu::context& ctx, const std::vector<K>& keys, Segments segments, const std::vector<Head>& heads,
                    Comp comp, const std::string& description) {
  SCOPED_TRACE(description + ": n=" + std::to_string(keys.size()) + " heads=" + std::to_string(heads.size()));
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> order = mgpu_ref::segmented_order(keys, heads, comp);
  std::vector<K> sorted = mgpu_ref::permute(keys, order);

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
}

// The head-flag bitfield of `heads`, with every bit past n set (they must be ignored).
template <typename Head>
std::vector<unsigned> flags_of(std::int64_t n, const std::vector<Head>& heads) {
  std::vector<unsigned> flags(static_cast<std::size_t>(n / 32 + 1), 0u);
  for (Head h : heads)
    if (std::int64_t(h) < n) flags[std::size_t(h / 32)] |= 1u << (h % 32);
  for (std::int64_t i = n; i < std::int64_t(flags.size()) * 32; ++i) flags[std::size_t(i / 32)] |= 1u << (i % 32);
  return flags;
}

template <typename params = void, typename K, typename Comp>
void check_segmented_sort(mgpu::context& ctx, const std::vector<K>& keys, const std::vector<int>& heads, Comp comp) {
  std::int64_t n = std::int64_t(keys.size());
  mgpu::buffer<int> h(heads, ctx);
  check_segments<params>(ctx, keys, mgpu::segments_by_heads(h.data(), std::int64_t(heads.size())), heads, comp,
                         "heads");
  mgpu::buffer<unsigned> f(flags_of(n, heads), ctx);
  check_segments<params>(ctx, keys, mgpu::segments_by_flags(f.data()), heads, comp, "flags");
}

}  // namespace

template <typename T>
class SegmentedSortTyped : public ::testing::Test {};
using segsort_types = test_types<std::int32_t, double, std::int64_t, float>;
TYPED_TEST_SUITE(SegmentedSortTyped, segsort_types);

MGPU_TYPED_TEST(SegmentedSortTyped, EveryProfileMatchesPerSegmentStableSort) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  // The keys' tile edges and the pairs' (check_segmented_sort's values are 64-bit positions).
  const int nv = mgpu::segmented_sort_params<T>::nv, pairs_nv = mgpu::segmented_sort_params<T, std::int64_t>::nv;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(nv - 1), std::int64_t(nv + 1), std::int64_t(pairs_nv - 1),
                         std::int64_t(pairs_nv + 1), std::int64_t(7 * nv + 5), std::int64_t(100003)}) {
    std::vector<T> keys = random_keys<T>(n, 1000, rng);
    check_segmented_sort(ctx, keys, {}, mgpu::less<T>());                 // one segment, no heads
    check_segmented_sort(ctx, keys, {0}, mgpu::less<T>());                // one segment
    check_segmented_sort(ctx, keys, {0, 0, int(n)}, mgpu::less<T>());     // one, with empty ones at both ends
    check_segmented_sort(ctx, keys, fixed_heads(n, 1), mgpu::less<T>());  // segments of one
    check_segmented_sort(ctx, keys, fixed_heads(n, 8), mgpu::greater<T>());
    check_segmented_sort(ctx, keys, fixed_heads(n, nv), mgpu::less<T>());      // tile-aligned
    check_segmented_sort(ctx, keys, fixed_heads(n, nv + 3), mgpu::less<T>());  // just over a tile
    check_segmented_sort(ctx, keys, fixed_heads(n, 3 * nv - 1), mgpu::less<T>());
    check_segmented_sort(ctx, keys, random_heads(n, 200, rng), mgpu::less<T>());
    // Segments of a warp's width or less (one tile: a warp each), then some longer ones among them.
    check_segmented_sort(ctx, keys, fixed_heads(n, 32), mgpu::less<T>());
    check_segmented_sort(ctx, keys, random_heads(n, 20, rng), mgpu::greater<T>());
    check_segmented_sort(ctx, keys, random_heads(n, 44, rng), mgpu::less<T>());
    // Segments that a warp merge-sorts on its own (33 up to 256 keys where keys and values take 4
    // bytes, 128 where either takes 8), and just past that; random sizes around both.
    for (std::int64_t size : {33, 96, 256, 257}) check_segmented_sort(ctx, keys, fixed_heads(n, size), mgpu::less<T>());
    check_segmented_sort(ctx, keys, random_heads(n, 300, rng), mgpu::greater<T>());
    std::vector<int> long_first(7, 0);  // 7 empty segments, [0, 40), then segments of one
    for (std::int64_t h = 40; h < n; ++h) long_first.push_back(int(h));
    check_segmented_sort(ctx, keys, long_first, mgpu::less<T>());
    // A segment over two tile boundaries that ends 10, 32 or 33 keys into a tile, then segments
    // of 8.
    for (int tail : {10, 32, 33}) {
      std::vector<int> long_then_short{0};
      for (std::int64_t h = 2 * nv + tail; h < n; h += 8) long_then_short.push_back(int(h));
      check_segmented_sort(ctx, keys, long_then_short, mgpu::less<T>());
    }
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

// Past group_min_tiles * NT tiles (12 * 32 tiles of 96 keys here), segments averaging more than 16
// keys take batches sorted by groups of lanes (sort_segment_batches), which leave segments longer
// than a tile to the blocksort's code and the levels: of up to 60 keys; of up to 40 with one of 90
// to 400 every 30th (batches deferred whole); with one of 2000 every 100th (tiles' parts); pairs
// and indices too.
MGPU_TEST(SegmentedSort, ShortSegmentsPastManyTilesTakeGroupsOfLanes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  const std::int64_t n = (mgpu::detail::group_min_tiles * 32 + 7) * small::nv + 5;
  std::vector<int> keys = random_keys<int>(n, 50, rng);
  // (By heads only: the path is theirs; flags take the blocksort, which the tests above cover.)
  auto check = [&](const std::vector<int>& heads, auto comp) {
    mgpu::buffer<int> h(heads, ctx);
    check_segments<small>(ctx, keys, mgpu::segments_by_heads(h.data(), std::int64_t(heads.size())), heads, comp,
                          "heads");
  };
  check(random_heads(n, 60, rng), mgpu::greater<int>());
  for (int every : {30, 100}) {
    std::vector<int> mixed;
    std::uniform_int_distribution<int> short_length(0, 40), long_length(90, every == 30 ? 400 : 2000);
    for (int h = 0; h < n; h += mixed.size() % every == 0 ? long_length(rng) : short_length(rng)) mixed.push_back(h);
    check(mixed, mgpu::less<int>());
  }
}

// More tiles than a warp each can search for its end segments (lanes_per_search below 32: 32
// lanes a tile would pass a quarter of the device's resident threads): the ends kernel then gives
// each tile a thread, where the inputs above all take a warp a tile.
MGPU_TEST(SegmentedSort, ManyTilesFindTheirEndsAThreadEach) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  const std::int64_t warp_tiles = std::int64_t(ctx.props().sm_count) * ctx.props().max_threads_per_sm / 4 / 32;
  const std::int64_t n = (warp_tiles + 50) * small::nv;
  std::vector<int> keys = random_keys<int>(n, 50, rng);
  check_segmented_sort<small>(ctx, keys, random_heads(n, 1000, rng), mgpu::less<int>());
  check_segmented_sort<small>(ctx, keys, {0, int(n / 3) + 1}, mgpu::greater<int>());
}

// Segment lengths around multiples of VT, the run length of the blocksort's rounds: where one
// flat round can finish a tile (no segment crosses two run boundaries) and where it just cannot;
// and short segments of every length up to 17 and around a warp's width. Shifting the first head
// makes the first segment start before the array and moves every boundary crossing.
MGPU_TEST(SegmentedSort, SegmentLengthsAroundRunBoundaries) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using P = mgpu::segmented_sort_params<int>;
  const int vt = P::vt;
  const std::int64_t n = 2 * P::nv + 37;
  std::vector<int> keys = random_keys<int>(n, 100, rng);
  std::vector<int> sizes{1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33};
  for (int size : {vt - 1, vt, vt + 1, vt + 2, 2 * vt, 2 * vt + 1, 2 * vt + 2, 4 * vt + 1, 4 * vt + 2, 8 * vt + 2})
    sizes.push_back(size);
  for (int size : sizes) {
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
  // Short segments of random lengths up to 16 over keys with many ties (stability).
  std::vector<int> few = random_keys<int>(n, 3, rng);
  std::vector<int> short_heads;
  for (std::int64_t h = 0; h < n; h += 1 + coin(rng) % 16) short_heads.push_back(int(h));
  check_segmented_sort(ctx, few, short_heads, mgpu::less<int>());
}

// Tiles whose segments (as clipped to the tile) are all at most 16 keys long: a thread sorts each
// segment whole (cta_short_segment_sort), one network for the warp's longest, 2 to 16 keys; a tile
// with a longer one takes the merge rounds. By heads these inputs have more than NT tiles, past
// the warps' kernel, so the blocksort sees them, as it does every input by flags.
MGPU_TEST(SegmentedSort, ShortSegmentsSortedAThreadEach) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;  // 96 keys a tile: a segment of 16 spans up to 7 threads
  const std::int64_t n = 20000;
  std::vector<int> keys = random_keys<int>(n, 100, rng);
  std::vector<int> ties = random_keys<int>(n, 3, rng);  // stability
  for (int size = 1; size <= 18; ++size) {
    for (int shift : {0, 1, 5}) {
      SCOPED_TRACE("size=" + std::to_string(size) + " shift=" + std::to_string(shift));
      std::vector<int> heads;
      for (std::int64_t h = shift; h < n; h += size) heads.push_back(int(h));
      check_segmented_sort<small>(ctx, size % 2 ? ties : keys, heads, mgpu::less<int>());
    }
  }
  // Lengths mixed within a warp (networks of several sizes), empty segments, and now and then one
  // of 17 that sends its tile to the merge rounds.
  std::uniform_int_distribution<int> length(0, 16), coin(0, 30);
  std::vector<int> mixed;
  for (std::int64_t h = 0; h < n; h += coin(rng) == 0 ? 17 : length(rng)) mixed.push_back(int(h));
  check_segmented_sort<small>(ctx, ties, mixed, mgpu::greater<int>());
  check_segmented_sort<small>(ctx, ties, random_heads(n, 16, rng), mgpu::less<int>());

  // The default tiles, more of them than the warps' kernel takes.
  using P = mgpu::segmented_sort_params<int>;
  const std::int64_t big = std::int64_t(P::nt + 2) * P::nv + 37;
  std::vector<int> big_keys = random_keys<int>(big, 1000, rng);
  for (int size : {2, 16, 17}) check_segmented_sort(ctx, big_keys, fixed_heads(big, size), mgpu::less<int>());
  check_segmented_sort(ctx, big_keys, random_heads(big, 16, rng), mgpu::less<int>());
}

MGPU_TEST(SegmentedSort, UserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& a, const pair_value& b) { return a.key < b.key; };
  std::vector<pair_value> keys(30011);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = pair_value{int(rng() % 10), float(i)};
  check_segmented_sort(ctx, keys, random_heads(30011, 3000, rng), by_key);
}

// Inputs of a few tiles whose segments average at most 32 keys: a CTA per 8 segments, a warp
// each, and the blocksort's code for the longer ones, in pieces of at most a tile of whole
// segments; a segment longer than a tile is sorted a tile's part at a time (by the CTA of that
// tile, in the same kernel) and merged by the levels, at the start, the middle or the end of the
// input, alone or beside another.
MGPU_TEST(SegmentedSort, ShortSegmentsOverSeveralTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const int nv = mgpu::segmented_sort_params<int>::nv;
  const std::int64_t n = 4 * std::int64_t(nv) + 77;
  std::vector<int> keys = random_keys<int>(n, 500, rng);
  // Runs of `long_count` segments of `length`, then 400 segments of one: a group of 8 long ones
  // spans more than a tile, and is sorted in pieces.
  auto long_runs = [&](int long_count, int length) {
    std::vector<int> heads;
    for (std::int64_t h = 0; h < n;) {
      for (int i = 0; i < long_count && h < n; ++i, h += length) heads.push_back(int(h));
      for (int i = 0; i < 400 && h < n; ++i, ++h) heads.push_back(int(h));
    }
    return heads;
  };
  check_segmented_sort(ctx, keys, long_runs(8, 700), mgpu::less<int>());
  check_segmented_sort(ctx, keys, long_runs(3, nv / 2 + 1), mgpu::greater<int>());  // pieces of one segment
  check_segmented_sort(ctx, keys, long_runs(1, nv), mgpu::less<int>());             // as long as a tile
  check_segmented_sort(ctx, keys, long_runs(1, nv + 1), mgpu::less<int>());         // longer: the levels
  // Segments of 8 around segments longer than a tile: first, in the middle (two of them, so that a
  // tile ends one and starts the other), last, and one covering more than two tiles.
  auto eights_around = [&](std::vector<std::pair<std::int64_t, std::int64_t>> longs) {
    std::vector<int> heads;
    std::int64_t h = 0;
    for (auto [begin, length] : longs) {
      for (; h < begin; h += 8) heads.push_back(int(h));
      heads.push_back(int(begin));
      h = begin + length;
    }
    for (; h < n; h += 8) heads.push_back(int(h));
    return heads;
  };
  check_segmented_sort(ctx, keys, eights_around({{0, nv + 100}}), mgpu::less<int>());
  check_segmented_sort(ctx, keys, eights_around({{nv / 2, nv + 1}, {nv / 2 + nv + 1, nv + 300}}), mgpu::less<int>());
  check_segmented_sort(ctx, keys, eights_around({{n - nv - 5, nv + 5}}), mgpu::greater<int>());
  check_segmented_sort(ctx, random_keys<int>(n, 4, rng), eights_around({{300, 2 * nv + 301}}), mgpu::less<int>());
  check_segmented_sort(ctx, keys, random_heads(n, 60, rng), mgpu::less<int>());
  std::vector<int> few_values = random_keys<int>(n, 4, rng);  // ties: stability
  check_segmented_sort(ctx, few_values, random_heads(n, 34, rng), mgpu::less<int>());
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

// Unsorted or out-of-range heads are undefined behaviour in unchecked mode, but the sort must still
// stay inside its arrays: guard zones around keys and values keep their poison. (Shared memory is
// kept in bounds by the blocksort's range check on heads; the simulator cannot observe it.)
MGPU_TEST(SegmentedSort, UncheckedBadHeadsStayInBounds) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  const std::int64_t guard = 1024;
  for (int trial = 0; trial < 8; ++trial) {
    // Many tiles of 96; one tile (a warp a segment); a few tiles of the default shape (a warp a
    // segment, with pieces of the blocksort).
    const std::int64_t n = trial < 4 ? 5000 : trial < 6 ? 90 : 3 * mgpu::segmented_sort_params<int>::nv;
    std::vector<int> bad(trial % 2 ? 40 : 400);
    if (trial >= 6) bad.resize(trial == 6 ? 400 : 2000);
    for (int& h : bad) h = int(rng() % (2 * n)) - int(n / 2);                       // unsorted, repeated, out of range
    if (trial >= 2 && trial != 4 && trial != 6) std::sort(bad.begin(), bad.end());  // sorted, but out of range
    mgpu::buffer<int> heads(bad, ctx);
    std::vector<int> host(n + 2 * guard, poison<int>());
    std::vector<int> inner = random_keys<int>(n, 100, rng);
    std::copy(inner.begin(), inner.end(), host.begin() + guard);
    mgpu::buffer<int> keys(host, ctx), values = poisoned<int>(n + 2 * guard, ctx);
    auto segments = mgpu::segments_by_heads(heads.data(), std::int64_t(bad.size()));
    if (trial < 6)
      mgpu::segmented_sort<small>(keys.data() + guard, values.data() + guard, n, segments, mgpu::less<int>(), ctx);
    else
      mgpu::segmented_sort(keys.data() + guard, values.data() + guard, n, segments, mgpu::less<int>(), ctx);
    for (const mgpu::buffer<int>* b : {&keys, &values}) {
      std::vector<int> got = b->to_host();
      EXPECT_TRUE(std::all_of(got.begin(), got.begin() + guard, [](int v) { return v == poison<int>(); }));
      EXPECT_TRUE(std::all_of(got.end() - guard, got.end(), [](int v) { return v == poison<int>(); }));
    }
  }
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

namespace {

// Random segment heads as 64-bit integers: sizes in [0, max_size] (repeats make empty segments).
std::vector<std::int64_t> random_heads64(std::int64_t n, std::int64_t max_size, std::mt19937_64& rng) {
  std::vector<std::int64_t> heads;
  std::uniform_int_distribution<std::int64_t> d(0, max_size);
  for (std::int64_t h = d(rng); h <= n; h += d(rng)) heads.push_back(h);
  return heads;
}

// Every way of giving one set of segments: 64-bit heads in device memory, head flags, and (where
// the heads are evenly spaced) a step_iterator; then counting_iterator heads (singletons, then
// one segment to the end; and one segment, then singletons).
template <typename params = void, typename K, typename Comp>
void check_every_description(mgpu::context& ctx, const std::vector<K>& keys, const std::vector<std::int64_t>& heads,
                             Comp comp, const std::string& description) {
  std::int64_t n = std::int64_t(keys.size());
  mgpu::buffer<std::int64_t> h(heads, ctx);
  check_segments<params>(ctx, keys, mgpu::segments_by_heads(h.data(), std::int64_t(heads.size())), heads, comp,
                         description + ", int64 heads");
  mgpu::buffer<unsigned> f(flags_of(n, heads), ctx);
  check_segments<params>(ctx, keys, mgpu::segments_by_flags(f.data()), heads, comp, description + ", flags");
}

template <typename params = void, typename K, typename Comp>
void check_iterator_heads(mgpu::context& ctx, const std::vector<K>& keys, std::int64_t first, std::int64_t step,
                          Comp comp) {
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> heads;
  for (std::int64_t h = first; h <= n; h += step) heads.push_back(h);
  check_segments<params>(
      ctx, keys,
      mgpu::segments_by_heads(mgpu::make_step_iterator<std::int64_t>(first, step), std::int64_t(heads.size())), heads,
      comp, "step_iterator heads from " + std::to_string(first) + " by " + std::to_string(step));
}

template <typename params = void, typename K, typename Comp>
void check_counting_heads(mgpu::context& ctx, const std::vector<K>& keys, std::int64_t first, std::int64_t num_heads,
                          Comp comp) {
  std::vector<int> heads;
  for (std::int64_t i = 0; i < num_heads; ++i) heads.push_back(int(first + i));
  check_segments<params>(ctx, keys, mgpu::segments_by_heads(mgpu::make_counting_iterator<int>(int(first)), num_heads),
                         heads, comp,
                         "counting_iterator heads from " + std::to_string(first) + ", " + std::to_string(num_heads));
}

}  // namespace

// uint32 keys over the whole 32-bit range (above 2^31 too), sizes 0, 2, exactly one tile of each
// form's default shape (keys only, pairs of 8-byte values, int indices) and a few tiles; heads as
// int64 pointers, flags, step and counting iterators.
MGPU_TEST(SegmentedSort, Uint32AroundATileWithEveryHeadDescription) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using K = std::uint32_t;
  const std::int64_t nv = mgpu::segmented_sort_params<K>::nv,
                     nv_pairs = mgpu::segmented_sort_params<K, std::int64_t>::nv,
                     nv_indices = mgpu::segmented_sort_params<K, int>::nv;
  std::vector<std::int64_t> sizes{0, 2, nv, nv_pairs, nv_indices, 3 * std::max(nv, nv_pairs) + 5};
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (std::int64_t n : sizes) {
    std::vector<K> keys = random_keys<K>(n, std::int64_t(1) << 32, rng);
    std::string size = "n=" + std::to_string(n);
    check_every_description(ctx, keys, {}, mgpu::less<K>(), size + " no heads");
    check_every_description(ctx, keys, {0, n / 2, n / 2, n}, mgpu::less<K>(), size + " halves");
    check_every_description(ctx, keys, random_heads64(n, 300, rng), mgpu::less<K>(), size + " random");
    check_every_description(ctx, keys, random_heads64(n, 2 * nv, rng), mgpu::greater<K>(), size + " long, greater");
    check_iterator_heads(ctx, keys, 0, 7, mgpu::less<K>());
    check_iterator_heads(ctx, keys, 3, nv_pairs - 1, mgpu::less<K>());
    check_counting_heads(ctx, keys, 0, std::min<std::int64_t>(n + 1, 100), mgpu::less<K>());
    check_counting_heads(ctx, keys, n / 2, n - n / 2 + 1, mgpu::less<K>());
  }
}

// Already sorted, reverse sorted and all-equal keys (stability is all that decides the last).
MGPU_TEST(SegmentedSort, SortedReversedAndAllEqualUint32) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using K = std::uint32_t;
  const std::int64_t nv = mgpu::segmented_sort_params<K>::nv, n = 3 * nv + 17;
  std::vector<K> ascending(static_cast<std::size_t>(n)), descending(static_cast<std::size_t>(n)),
      equal(static_cast<std::size_t>(n), 0x80000001u);
  for (std::int64_t i = 0; i < n; ++i)
    ascending[std::size_t(i)] = K(i) * 3u, descending[std::size_t(i)] = K(0xffffffffu - K(i));
  for (const auto& [name, keys] : {std::make_pair("ascending", ascending), std::make_pair("descending", descending),
                                   std::make_pair("all equal", equal)}) {
    check_every_description(ctx, keys, {}, mgpu::less<K>(), std::string(name) + ", one segment");
    check_every_description(ctx, keys, random_heads64(n, nv + nv / 2, rng), mgpu::less<K>(),
                            std::string(name) + ", random");
    check_iterator_heads(ctx, keys, 0, nv + 3, mgpu::less<K>());
    check_iterator_heads(ctx, keys, 0, 5, mgpu::greater<K>());
  }
}

// About 2^20 uint32 keys (fewer under MGPU_TEST_QUICK): many merge levels for the long segments.
MGPU_TEST(SegmentedSort, LargeUint32) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using K = std::uint32_t;
  const std::int64_t nv = mgpu::segmented_sort_params<K>::nv;
  const std::int64_t n = quick() ? 20 * nv + 11 : (std::int64_t(1) << 20) + 3;
  std::vector<K> keys = random_keys<K>(n, std::int64_t(1) << 32, rng);
  // Segments from one to many tiles long, with short ones among them.
  std::vector<std::int64_t> heads;
  std::uniform_int_distribution<std::int64_t> length(0, 40 * nv), short_length(0, 50);
  for (std::int64_t h = 0; h < n; h += heads.size() % 4 == 3 ? length(rng) : short_length(rng)) heads.push_back(h);
  check_every_description(ctx, keys, heads, mgpu::less<K>(), "mixed lengths");
}

#if defined(MGPU_BACKEND_CUDA)
// Past segmented_sort_large_threshold, int keys alone merge their levels with CTAs of another shape
// (segmented_sort_large_level_params, on sm_90): one segment, half of the keys in one, long
// segments among short and empty ones. (The simulator compiles the portable shape, which
// LargeUint32 covers at a size it runs quickly.)
MGPU_TEST(SegmentedSort, Int32PastTheLargeThreshold) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t nv = mgpu::segmented_sort_params<int>::nv;
  const std::int64_t n = mgpu::segmented_sort_large_threshold + 5;
  std::vector<int> keys = random_keys<int>(n, std::int64_t(1) << 20, rng);  // (repeats: stability shows)
  check_every_description(ctx, keys, {0}, mgpu::less<int>(), "one segment");
  std::vector<std::int64_t> half{0};
  for (std::int64_t h = n / 2; h < n; h += 8) half.push_back(h);
  check_every_description(ctx, keys, half, mgpu::less<int>(), "half in one");
  std::vector<std::int64_t> mixed;
  std::uniform_int_distribution<std::int64_t> length(0, 300 * nv), short_length(0, 50);
  for (std::int64_t h = 7; h < n; h += mixed.size() % 4 == 3 ? length(rng) : short_length(rng)) mixed.push_back(h);
  check_every_description(ctx, keys, mixed, mgpu::greater<int>(), "mixed lengths");
  // Short segments (the batches of groups of lanes, past NT tiles) with a longer one every 50th
  // (a batch deferred to the blocksort's code) and one longer than a tile every 500th (its tiles'
  // parts and the levels).
  std::vector<std::int64_t> mostly_short;
  std::uniform_int_distribution<std::int64_t> up_to_200(0, 200), up_to_2000(385, 2000), past_a_tile(nv + 1, 5 * nv);
  for (std::int64_t h = 0; h < n; h += mostly_short.size() % 500 == 499 ? past_a_tile(rng)
                                       : mostly_short.size() % 50 == 49 ? up_to_2000(rng)
                                                                        : up_to_200(rng))
    mostly_short.push_back(h);
  check_every_description(ctx, keys, mostly_short, mgpu::less<int>(), "mostly short");
}
#endif

MGPU_TEST(SegmentedSort, IndicesFlagsAndValuesBadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  const std::vector<int> original{3, 2, 1, 6, 5, 4};
  const std::vector<std::int64_t> original_values{10, 11, 12, 13, 14, 15};
  mgpu::buffer<int> keys(original, ctx), heads(std::vector<int>{0, 3}, ctx), indices = poisoned<int>(6, ctx);
  mgpu::buffer<std::int64_t> values(original_values, ctx);
  mgpu::buffer<unsigned> flags(std::vector<unsigned>{0x9u}, ctx);
  int *k = keys.data(), *i = indices.data(), *null = nullptr;
  std::int64_t* v = values.data();
  auto by_heads = mgpu::segments_by_heads(heads.data(), 2);
  auto by_flags = mgpu::segments_by_flags(flags.data());
  auto no_flags = mgpu::segments_by_flags(nullptr);
  auto less = mgpu::less<>();

  const char* ind = "mgpu::segmented_sort_indices";
  expect_invalid_argument(ind, "count", [&] { mgpu::segmented_sort_indices(k, -1, by_heads, i, less, ctx); });
  expect_invalid_argument(ind, "count", [&] { mgpu::segmented_sort_indices(null, -2, by_flags, null, less, ctx); });
  expect_invalid_argument(ind, "keys", [&] { mgpu::segmented_sort_indices(null, 6, by_heads, i, less, ctx); });
  expect_invalid_argument(ind, "values", [&] { mgpu::segmented_sort_indices(k, 6, by_heads, null, less, ctx); });
  expect_invalid_argument(ind, "values", [&] { mgpu::segmented_sort_indices(k, 6, by_flags, k + 2, less, ctx); });
  expect_invalid_argument(ind, "heads",
                          [&] { mgpu::segmented_sort_indices(k, 6, mgpu::segments_by_heads(null, 2), i, less, ctx); });
  expect_invalid_argument(ind, "num_heads", [&] {
    mgpu::segmented_sort_indices(k, 6, mgpu::segments_by_heads(heads.data(), -1), i, less, ctx);
  });
  expect_invalid_argument(ind, "flags", [&] { mgpu::segmented_sort_indices(k, 6, no_flags, i, less, ctx); });

  const char* seg = "mgpu::segmented_sort";
  expect_invalid_argument(seg, "flags", [&] { mgpu::segmented_sort(k, 6, no_flags, less, ctx); });
  expect_invalid_argument(seg, "flags", [&] { mgpu::segmented_sort(k, v, 6, no_flags, less, ctx); });
  expect_invalid_argument(
      seg, "values", [&] { mgpu::segmented_sort(k, static_cast<std::int64_t*>(nullptr), 6, by_heads, less, ctx); });
  expect_invalid_argument(
      seg, "values", [&] { mgpu::segmented_sort(k, static_cast<std::int64_t*>(nullptr), 6, by_flags, less, ctx); });
  expect_invalid_argument(seg, "keys", [&] { mgpu::segmented_sort(null, v, 6, by_flags, less, ctx); });
  expect_invalid_argument(seg, "count", [&] { mgpu::segmented_sort(k, v, -6, by_flags, less, ctx); });

  EXPECT_TRUE(same(original, keys.to_host()));
  EXPECT_TRUE(same(original_values, values.to_host()));
  EXPECT_TRUE(same(std::vector<int>(6, poison<int>()), indices.to_host()));

  // The valid calls on the same arrays: flags 0x9 are heads 0 and 3, as the head list.
  mgpu::segmented_sort_indices(k, 6, by_flags, i, less, ctx);
  EXPECT_TRUE(same(std::vector<int>{1, 2, 3, 4, 5, 6}, keys.to_host()));
  EXPECT_TRUE(same(std::vector<int>{2, 1, 0, 5, 4, 3}, indices.to_host()));
  mgpu::segmented_sort(k, v, 6, by_heads, mgpu::greater<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{3, 2, 1, 6, 5, 4}, keys.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>{12, 11, 10, 15, 14, 13}, values.to_host()));
}

// Issue 20: the merge levels take one launch however many there are: sorts of 5 and of 40 tiles
// (3 and 6 levels) enqueue the same work, for short segments (no level has any) and for one
// segment (every level merges): the tiles' ends (by heads they also find the tiles' heads, and
// they zero the counters), the blocksort and the levels. (Segments of 500: longer than a warp
// sorts on its own.) Segments of 8 or 100 by heads in 5 tiles take a warp a segment, in a kernel
// that also finds the tiles' ends: two launches. (Segments of 8 in 40 tiles make more than three
// waves of those CTAs on an H100, and the blocksort runs.)
MGPU_TEST(SegmentedSort, MergeLevelsAreOneLaunch) {
  mgpu::context ctx;
  const std::int64_t nv = mgpu::segmented_sort_params<int>::nv;
  const std::int64_t most = 40 * nv;
  mgpu::buffer<int> keys(most, ctx);
  keys.fill(1);
  mgpu::buffer<int> short_heads(fixed_heads(most, 500), ctx), one_head(std::vector<int>{0}, ctx),
      warp_heads(fixed_heads(most, 8), ctx), warp_merge_heads(fixed_heads(most, 100), ctx);
  int* k = keys.data();
  auto call = [&](const mgpu::buffer<int>& heads, std::int64_t length, std::int64_t n) {
    // The heads in [0, n): segments of `length` from 0, or the one head.
    auto segments = mgpu::segments_by_heads(heads.data(), heads.size() == 1 ? 1 : (n + length - 1) / length);
    return count_enqueued([&](mgpu::context& c) { mgpu::segmented_sort(k, n, segments, mgpu::less<>(), c); });
  };
  for (const mgpu::buffer<int>* heads : {&short_heads, &one_head}) {
    enqueued few = call(*heads, 500, 5 * nv), many = call(*heads, 500, most);
    EXPECT_EQ(few, many);
    EXPECT_EQ(few.kernels, 3);
  }
  EXPECT_EQ(call(warp_heads, 8, 5 * nv).kernels, 2);
  EXPECT_EQ(call(warp_merge_heads, 100, 5 * nv).kernels, 2);
}

// Issue 20: an input of one tile is its blocksort alone, one launch with no temporaries, whichever
// way its segments are described.
MGPU_TEST(SegmentedSort, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t nv = mgpu::segmented_sort_params<int>::nv;
  mgpu::buffer<int> keys(nv, ctx), values(nv, ctx);
  keys.fill(1);
  mgpu::buffer<std::int64_t> heads(std::vector<std::int64_t>{0, 5, 40, nv - 1}, ctx);
  mgpu::buffer<unsigned> flags(std::vector<unsigned>(std::size_t(nv / 32 + 1), 0x10001u), ctx);
  int *k = keys.data(), *v = values.data();
  auto by_heads = mgpu::segments_by_heads(heads.data(), heads.size());
  auto by_flags = mgpu::segments_by_flags(flags.data());
  for (std::int64_t n : {std::int64_t(1), nv}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::segmented_sort(k, n, by_heads, mgpu::less<>(), c); }),
              one_launch);
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::segmented_sort(k, n, by_flags, mgpu::less<>(), c); }),
              one_launch);
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::segmented_sort(k, v, n, by_heads, mgpu::less<>(), c); }),
              one_launch);
  }
}
