// Segmented reduction, reduction by key and SpMV against serial references
// (tests/references/segreduce.hpp): segment profiles (empty, 1, 4, 32, 1024, random, skewed, one
// huge segment, empty segments at both ends and in a crowd, items before the first head), sizes
// around the tile, every form (by heads and by flags, transform_segreduce, lbs_segreduce with and
// without cached values, the indirect form), a non-commutative operator (compose over affine) to
// catch ordering errors, float sums within a tolerance; reduce_by_key with runs of every length,
// all keys equal, a user key_equal; CSR SpMV in double against the reference on uniform,
// power-law, banded and one-dense-row matrices, the plan, a user semiring; bad arguments.
#include "references/segreduce.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace mgpu_test;

namespace {

constexpr int heads_nv = mgpu::segreduce_params<int>::nv;
constexpr int runs_nv = mgpu::reduce_by_key_params<mgpu::empty_t, int>::nv;

// The heads of segments of the given sizes (their exclusive scan), starting at `first`.
std::vector<int> heads_of(const std::vector<int>& sizes, std::int64_t& total, int first = 0) {
  std::vector<int> heads;
  total = first;
  for (int size : sizes) {
    heads.push_back(int(total));
    total += size;
  }
  return heads;
}

std::vector<int> fixed_sizes(std::int64_t segments, int size) { return std::vector<int>(std::size_t(segments), size); }

// Segments of `size` items each (the last one takes the remainder) whose steps, items plus
// segments, number exactly `steps` (>= 1): a tile of the segmented reductions by heads covers nv
// steps.
std::vector<int> sizes_for_steps(std::int64_t steps, int size) {
  const std::int64_t segments = std::max<std::int64_t>(1, steps / (size + 1));
  std::vector<int> sizes = fixed_sizes(segments, size);
  sizes.back() += int(steps - segments * (size + 1));
  return sizes;
}

// Segment sizes at a tile's edges: one segment of 0, 1, nv - 1, nv and nv + 1 items, and segments
// of 0, 1 and 7 items whose steps number 1, nv - 1, nv and nv + 1.
std::vector<std::vector<int>> sizes_around_tile(int nv) {
  std::vector<std::vector<int>> out;
  for (int n : {0, 1, nv - 1, nv, nv + 1}) out.push_back({n});
  for (int steps : {1, nv - 1, nv, nv + 1})
    for (int size : {0, 1, 7}) out.push_back(sizes_for_steps(steps, size));
  return out;
}

std::vector<int> random_sizes(std::int64_t segments, int max_size, std::mt19937_64& rng) {
  return random_keys<int>(segments, max_size + 1, rng);
}

// Most segments empty or of one item, one in 64 of 500 to 1500 items.
std::vector<int> skewed_sizes(std::int64_t segments, std::mt19937_64& rng) {
  std::vector<int> sizes;
  for (std::int64_t s = 0; s < segments; ++s)
    sizes.push_back(rng() % 64 == 0 ? 500 + int(rng() % 1000) : int(rng() % 2));
  return sizes;
}

// Head flags for heads that start at 0 and never repeat.
std::vector<unsigned> flags_of(const std::vector<int>& heads, std::int64_t count) {
  std::vector<unsigned> flags(std::size_t(count / 32 + 1), 0u);
  for (int h : heads)
    if (h < count) flags[std::size_t(h / 32)] |= 1u << (h % 32);
  return flags;
}

bool flags_can_say(const std::vector<int>& heads, std::int64_t count) {
  if (heads.empty() || heads[0] != 0) return false;
  for (std::size_t s = 0; s < heads.size(); ++s)
    if (mgpu_ref::segment_end(heads, s, count) <= heads[s]) return false;  // empty segments
  return true;
}

// Values that read an array: f(i), and f(index, segment, rank).
template <typename T>
struct read_at {
  const T* p;
  MGPU_HOST_DEVICE T operator()(std::int64_t i) const { return p[i]; }
};
template <typename T>
struct read_item {
  const T* p;
  MGPU_HOST_DEVICE T operator()(std::int64_t i, std::int64_t, std::int64_t) const { return p[i]; }
};

// Every form of segmented reduction over one input and one set of heads, against the reference:
// by heads, by flags (where flags can say it), transform_segreduce, lbs_segreduce and the indirect
// form (sources = heads, so it reads the same items). The output has one poisoned entry past the
// segments, which must stay so.
template <typename T, typename In, typename Op>
void check_every_form(mgpu::context& ctx, const std::vector<In>& input, const std::vector<int>& heads, T init, Op op,
                      const std::string& what) {
  const std::int64_t count = std::int64_t(input.size()), num = std::int64_t(heads.size());
  SCOPED_TRACE(what + ": count=" + std::to_string(count) + " segments=" + std::to_string(num));
  std::vector<T> expected = mgpu_ref::segmented_reduce(input, heads, init, op);
  expected.push_back(poison<T>());
  mgpu::buffer<In> din(input, ctx);
  mgpu::buffer<int> dh(heads, ctx);
  auto segs = mgpu::segments_by_heads(dh.data(), num);
  auto fresh = [&] { return poisoned<T>(num + 1, ctx); };

  mgpu::buffer<T> out = fresh();
  mgpu::segmented_reduce(din.data(), count, segs, out.data(), init, op, ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "segmented_reduce by heads";

  out = fresh();
  mgpu::transform_segreduce(read_at<In>{din.data()}, count, segs, out.data(), init, op, ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "transform_segreduce by heads";

  out = fresh();
  mgpu::lbs_segreduce(read_item<In>{din.data()}, count, segs, out.data(), init, op, ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "lbs_segreduce";

  out = fresh();
  mgpu::segmented_reduce_indirect(din.data(), count, segs, dh.data(), out.data(), init, op, ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "segmented_reduce_indirect";

  if (flags_can_say(heads, count)) {
    mgpu::buffer<unsigned> flags(flags_of(heads, count), ctx);
    out = fresh();
    mgpu::segmented_reduce(din.data(), count, mgpu::segments_by_flags(flags.data()), out.data(), init, op, ctx);
    EXPECT_TRUE(same(expected, out.to_host())) << "segmented_reduce by flags";
    out = fresh();
    mgpu::transform_segreduce(read_at<In>{din.data()}, count, mgpu::segments_by_flags(flags.data()), out.data(), init,
                              op, ctx);
    EXPECT_TRUE(same(expected, out.to_host())) << "transform_segreduce by flags";
  }
}

// Random affine maps: composing them in the wrong order gives a different map.
std::vector<affine> random_affines(std::int64_t n, std::mt19937_64& rng) {
  std::vector<affine> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(affine{unsigned(rng()) | 1u, unsigned(rng())});
  return v;
}

const affine identity_map{1u, 0u};

// The profiles every form runs on, for an input of about `n` items.
void check_profiles(mgpu::context& ctx, std::int64_t n, std::mt19937_64& rng) {
  std::int64_t total = 0;
  auto sums = [&](const std::vector<int>& heads, const std::string& what) {
    check_every_form(ctx, small_integers<int>(total, rng), heads, 7, mgpu::plus<>(), what + ", int sums");
  };
  auto maps = [&](const std::vector<int>& heads, const std::string& what) {
    check_every_form(ctx, random_affines(total, rng), heads, identity_map, compose(), what + ", compose");
  };
  for (int size : {1, 4, 32, 1024}) {
    std::vector<int> heads = heads_of(fixed_sizes(std::max<std::int64_t>(1, n / size), size), total);
    sums(heads, "segments of " + std::to_string(size));
    maps(heads, "segments of " + std::to_string(size));
    heads = heads_of(random_sizes(std::max<std::int64_t>(1, n / (size + 1)), 2 * size, rng), total);
    sums(heads, "sizes 0.." + std::to_string(2 * size));
  }
  std::vector<int> heads = heads_of({int(n)}, total);
  sums(heads, "one huge segment");
  maps(heads, "one huge segment");
  heads = heads_of(skewed_sizes(n / 16, rng), total);
  sums(heads, "skewed");
  maps(heads, "skewed");
  std::vector<int> sizes = random_sizes(n / 9, 16, rng);
  sizes.insert(sizes.begin(), 5, 0);
  sizes.insert(sizes.end(), 5, 0);
  heads = heads_of(sizes, total);
  sums(heads, "empty segments at both ends");
  maps(heads, "empty segments at both ends");
  sizes = fixed_sizes(3 * heads_nv + 5, 0);  // a crowd of empty segments, more than a tile
  sizes.push_back(heads_nv + 3);
  sizes.insert(sizes.end(), std::size_t(2 * heads_nv), 0);
  sizes.push_back(7);
  heads = heads_of(sizes, total);
  sums(heads, "a crowd of empty segments around one of a tile");
  maps(heads, "a crowd of empty segments around one of a tile");
  // Segments over several tiles, with empty ones between them: tiles that close nothing carry
  // their values through to the one that closes the segment, and the last tile closes none.
  heads = heads_of({2 * heads_nv + 5, 0, 0, 3 * heads_nv, 1, 0, heads_nv - 2, 4 * heads_nv + 9}, total);
  sums(heads, "segments over several tiles");
  maps(heads, "segments over several tiles");
  heads = heads_of(random_sizes(n / 8, 12, rng), total, int(heads_nv + 17));
  sums(heads, "items before the first head");
  maps(heads, "items before the first head");
}

}  // namespace

MGPU_TEST(SegmentedReduce, SmallExample) {
  mgpu::context ctx;
  // Segments [0, 3) [3, 3) [3, 5) [5, 10) [10, 10): sums start from init 100.
  std::vector<int> input{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  check_every_form(ctx, input, {0, 3, 3, 5, 10}, 100, mgpu::plus<>(), "small");
  // Before the first head: positions [0, 2) are in no segment.
  check_every_form(ctx, input, {2, 4}, 0, mgpu::plus<>(), "items before the first head");
  check_every_form(ctx, input, {0}, 0, mgpu::plus<>(), "a single segment");
  check_every_form(ctx, input, {10, 10, 10}, -1, mgpu::plus<>(), "only empty segments at the end");
}

MGPU_TEST(SegmentedReduce, EmptyInputs) {
  mgpu::context ctx;
  // No items: every segment receives init.
  check_every_form(ctx, std::vector<int>{}, {0, 0, 0, 0}, 42, mgpu::plus<>(), "no items, four segments");
  check_every_form(ctx, std::vector<int>{}, {}, 42, mgpu::plus<>(), "nothing");
  check_every_form(ctx, std::vector<affine>{}, std::vector<int>(std::size_t(2 * heads_nv + 1), 0), identity_map,
                   compose(), "no items, more segments than a tile");
  // Items but no segments: nothing is written.
  mgpu::buffer<int> in(std::vector<int>(100, 1), ctx), out = poisoned<int>(1, ctx);
  mgpu::segmented_reduce(in.data(), 100, mgpu::segments_by_heads(static_cast<int*>(nullptr), 0), out.data(), 0,
                         mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{poison<int>()}, out.to_host()));
  // By flags with no items: no segments, nothing written.
  mgpu::segmented_reduce(in.data(), 0, mgpu::segments_by_flags(nullptr), out.data(), 0, mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{poison<int>()}, out.to_host()));
}

MGPU_TEST(SegmentedReduce, SizesAroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (int nv : {heads_nv, runs_nv})
    for (std::int64_t n : sizes_for(nv, quick() ? 20 * std::int64_t(nv) : std::int64_t(200003))) {
      if (n == 0) continue;
      std::int64_t total = 0;
      for (int size : {1, 3, nv - 1, nv, nv + 1}) {
        // (The last segment is shorter: it ends at n.)
        std::vector<int> heads = heads_of(fixed_sizes(mgpu::div_up(n, std::int64_t(size)), size), total);
        std::vector<affine> input = random_affines(n, rng);
        check_every_form(ctx, input, heads, identity_map, compose(), "segments of " + std::to_string(size));
      }
      std::vector<int> heads = heads_of(random_sizes(n / 5 + 1, 9, rng), total);
      check_every_form(ctx, small_integers<int>(total, rng), heads, 0, mgpu::plus<>(), "random sizes");
    }
}

MGPU_TEST(SegmentedReduce, Profiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  check_profiles(ctx, quick() ? 12 * heads_nv : (1 << 17) + 11, rng);
}

MGPU_TEST(SegmentedReduce, LargeAndMixedTypes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 30 * heads_nv : (1 << 20) + 7, total = 0;
  std::vector<int> heads = heads_of(random_sizes(n / 40, 80, rng), total);
  // int input summed in int64; int64 maximum; unsigned bit_or.
  check_every_form(ctx, random_vector<int>(total, rng, -1000000, 1000000), heads, std::int64_t(0), mgpu::plus<>(),
                   "int into int64 sums");
  check_every_form(ctx, random_vector<std::int64_t>(total, rng, -1e15, 1e15), heads,
                   std::numeric_limits<std::int64_t>::min(), mgpu::maximum<>(), "int64 maximum");
  check_every_form(ctx, random_keys<unsigned>(total, 1u << 30, rng), heads, 0u, mgpu::bit_or<>(), "uint32 bit_or");
  check_every_form(ctx, random_affines(total, rng), heads, identity_map, compose(), "compose");
  check_every_form(ctx, small_integers<double>(total, rng), heads, 0.5, mgpu::plus<>(), "double (exact) sums");
}

namespace {

// |device - reference| within a tolerance that grows with the segment's size (values in [0, 1)).
::testing::AssertionResult close_sums(const std::vector<double>& expected, const std::vector<float>& actual,
                                      const std::vector<std::int64_t>& sizes) {
  if (expected.size() != actual.size()) return ::testing::AssertionFailure() << "size " << actual.size();
  for (std::size_t s = 0; s < expected.size(); ++s) {
    double tolerance = 1e-5 * double(sizes[s] + 1);
    if (!(std::fabs(double(actual[s]) - expected[s]) <= tolerance))
      return ::testing::AssertionFailure()
             << "[" << s << "] = " << actual[s] << ", expected " << expected[s] << " within " << tolerance;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

MGPU_TEST(SegmentedReduce, FloatSumsWithinTolerance) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 40 * heads_nv : (1 << 20) + 3, total = 0;
  std::vector<int> sizes = random_sizes(n / 100, 200, rng);
  sizes.push_back(int(n / 2));  // one segment of many tiles: its carry crosses every one
  sizes.push_back(0);
  std::vector<int> heads = heads_of(sizes, total);
  std::vector<float> input = random_vector<float>(total, rng, 0, 1);
  std::vector<double> wide(input.begin(), input.end());
  std::vector<double> expected = mgpu_ref::segmented_reduce(wide, heads, 0.0, mgpu::plus<double>());
  std::vector<std::int64_t> lengths;
  for (std::size_t s = 0; s < heads.size(); ++s) lengths.push_back(mgpu_ref::segment_end(heads, s, total) - heads[s]);
  mgpu::buffer<float> din(input, ctx), out = poisoned<float>(std::int64_t(heads.size()), ctx);
  mgpu::buffer<int> dh(heads, ctx);
  mgpu::segmented_reduce(din.data(), total, mgpu::segments_by_heads(dh.data(), std::int64_t(heads.size())), out.data(),
                         0.0f, mgpu::plus<>(), ctx);
  EXPECT_TRUE(close_sums(expected, out.to_host(), lengths));
}

namespace {

// f(index, segment, rank) as a map that names all three: composing them checks each argument and
// the order.
struct map_of_item {
  MGPU_HOST_DEVICE affine operator()(std::int64_t index, std::int64_t segment, std::int64_t rank) const {
    return affine{unsigned(2 * segment + 1), unsigned(rank * 7 + index * 13)};
  }
};
struct map_of_item_and_value {
  MGPU_HOST_DEVICE affine operator()(std::int64_t index, std::int64_t segment, std::int64_t rank,
                                     std::int64_t value) const {
    return affine{unsigned(2 * segment + 1), unsigned(rank * 7 + index * 13 + value)};
  }
};

// f(index, segment, rank, value) = value.
struct value_of_segment {
  MGPU_HOST_DEVICE int operator()(std::int64_t, std::int64_t, std::int64_t, std::int64_t value) const {
    return int(value);
  }
};

}  // namespace

namespace {

// lbs_segreduce over these segments (the first head at `first`), without and with cached values
// (5 * segment + 3), against the serial reference.
void check_lbs_segreduce(mgpu::context& ctx, const std::vector<int>& sizes, int first, const std::string& what) {
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(sizes, total, first);
  const std::int64_t num = std::int64_t(heads.size());
  SCOPED_TRACE(what + ", first head " + std::to_string(first) + ", " + std::to_string(total) + " items");
  mgpu::buffer<int> dh(heads, ctx);
  auto segs = mgpu::segments_by_heads(dh.data(), num);
  std::vector<affine> expected = mgpu_ref::segmented_reduce_of(
      total, heads, identity_map, compose(),
      [](std::int64_t i, std::int64_t s, std::int64_t r) { return map_of_item()(i, s, r); });
  mgpu::buffer<affine> out = poisoned<affine>(num, ctx);
  mgpu::lbs_segreduce(map_of_item(), total, segs, out.data(), identity_map, compose(), ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "lbs_segreduce";

  expected = mgpu_ref::segmented_reduce_of(
      total, heads, identity_map, compose(),
      [](std::int64_t i, std::int64_t s, std::int64_t r) { return map_of_item_and_value()(i, s, r, 5 * s + 3); });
  out = poisoned<affine>(num, ctx);
  mgpu::lbs_segreduce(map_of_item_and_value(), total, segs, mgpu::make_step_iterator<std::int64_t>(3, 5), out.data(),
                      identity_map, compose(), ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "lbs_segreduce with cached values";
}

}  // namespace

MGPU_TEST(SegmentedReduce, LbsSegreduceArguments) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 10 * heads_nv : 100003;
  for (int first : {0, 40}) {
    std::vector<int> sizes = random_sizes(n / 6, 10, rng);
    sizes.insert(sizes.begin(), 3, 0);
    sizes.push_back(heads_nv * 2 + 1);
    sizes.insert(sizes.end(), 4, 0);
    check_lbs_segreduce(ctx, sizes, first, "random sizes");
  }
  // The edges of both forms' tiles (labels; and a cached 64-bit value).
  for (int nv : {mgpu::segreduce_params<affine, mgpu::empty_t, true>::nv,
                 mgpu::segreduce_params<affine, std::int64_t, true>::nv})
    for (const std::vector<int>& sizes : sizes_around_tile(nv))
      check_lbs_segreduce(ctx, sizes, 0, std::to_string(sizes.size()) + " segments");
}

namespace {

// segmented_reduce_indirect: each segment reads its own stretch of a longer input, anywhere in it
// (stretches may overlap), against the serial reference.
void check_indirect(mgpu::context& ctx, const std::vector<int>& sizes, std::mt19937_64& rng, const std::string& what) {
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(sizes, total);
  const std::int64_t num = std::int64_t(heads.size());
  std::int64_t input_size = total + 5000;
  std::vector<affine> input = random_affines(input_size, rng);
  std::vector<std::int64_t> sources;
  for (int size : sizes) sources.push_back(std::int64_t(rng() % std::uint64_t(input_size - size + 1)));
  std::vector<affine> expected = mgpu_ref::segmented_reduce_of(
      total, heads, identity_map, compose(),
      [&](std::int64_t, std::int64_t s, std::int64_t r) { return input[std::size_t(sources[std::size_t(s)] + r)]; });
  mgpu::buffer<affine> din(input, ctx), out = poisoned<affine>(num, ctx);
  mgpu::buffer<int> dh(heads, ctx);
  mgpu::buffer<std::int64_t> ds(sources, ctx);
  mgpu::segmented_reduce_indirect(din.data(), total, mgpu::segments_by_heads(dh.data(), num), ds.data(), out.data(),
                                  identity_map, compose(), ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << what << ", " << num << " segments, " << total << " items";
}

}  // namespace

MGPU_TEST(SegmentedReduce, IndirectSources) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 10 * heads_nv : 200003;
  for (int max_size : {3, 40, 3000})
    check_indirect(ctx, random_sizes(n / (max_size / 2 + 1) + 1, max_size, rng), rng,
                   "sizes up to " + std::to_string(max_size));
  for (const std::vector<int>& sizes : sizes_around_tile(mgpu::segreduce_params<affine, std::int64_t, true>::nv))
    check_indirect(ctx, sizes, rng, "around the tile");
}

MGPU_TEST(SegmentedReduce, FlagsOfEveryWord) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  // Random flags (bit 0 unset: position 0 starts a segment anyway), and bits past count set.
  for (std::int64_t n : {std::int64_t(1), std::int64_t(31), std::int64_t(33), std::int64_t(runs_nv + 1),
                         std::int64_t(quick() ? 7 * runs_nv : 150001)}) {
    std::vector<unsigned> flags(std::size_t(n / 32 + 1));
    for (unsigned& w : flags) w = unsigned(rng()) & unsigned(rng());
    flags[0] &= ~1u;
    flags.back() |= ~((1u << (n % 32)) - 1u);
    std::vector<std::int64_t> heads = mgpu_ref::heads_of_flags(flags, n);
    std::vector<affine> input = random_affines(n, rng);
    std::vector<affine> expected = mgpu_ref::segmented_reduce(input, heads, affine{3u, 1u}, compose());
    expected.push_back(poison<affine>());
    mgpu::buffer<affine> din(input, ctx), out = poisoned<affine>(std::int64_t(expected.size()), ctx);
    mgpu::buffer<unsigned> df(flags, ctx);
    mgpu::segmented_reduce(din.data(), n, mgpu::segments_by_flags(df.data()), out.data(), affine{3u, 1u}, compose(),
                           ctx);
    EXPECT_TRUE(same(expected, out.to_host())) << "n=" << n;
  }
}

// Device-only lambdas (MGPU_LAMBDA) as f, with heads and with flags; a host-device lambda as
// key_equal. (nvcc: every kernel instantiated with a closure type of the caller's.)
MGPU_TEST(SegmentedReduce, DeviceLambdas) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t total = 0;
  std::vector<int> heads = heads_of(random_sizes(3000, 12, rng), total);
  std::vector<int> input = small_integers<int>(total, rng);
  const std::int64_t num = std::int64_t(heads.size());
  mgpu::buffer<int> din(input, ctx), dh(heads, ctx);
  const int* p = din.data();
  auto twice = [=] MGPU_LAMBDA(std::int64_t i) { return 2 * p[i]; };
  std::vector<int> doubled;
  for (int v : input) doubled.push_back(2 * v);
  std::vector<int> expected = mgpu_ref::segmented_reduce(doubled, heads, 1, mgpu::plus<>());
  mgpu::buffer<int> out = poisoned<int>(num, ctx);
  mgpu::transform_segreduce(twice, total, mgpu::segments_by_heads(dh.data(), num), out.data(), 1, mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "transform_segreduce by heads";
  out = poisoned<int>(num, ctx);
  mgpu::lbs_segreduce([=] MGPU_LAMBDA(std::int64_t i, std::int64_t, std::int64_t) { return 2 * p[i]; }, total,
                      mgpu::segments_by_heads(dh.data(), num), out.data(), 1, mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(expected, out.to_host())) << "lbs_segreduce";
  std::vector<int> nonempty;  // flags cannot say empty segments: heads of the non-empty ones
  for (std::size_t s = 0; s < heads.size(); ++s)
    if (mgpu_ref::segment_end(heads, s, total) > heads[s]) nonempty.push_back(heads[s]);
  std::vector<int> expected_flags = mgpu_ref::segmented_reduce(doubled, nonempty, 1, mgpu::plus<>());
  mgpu::buffer<unsigned> flags(flags_of(nonempty, total), ctx);
  out = poisoned<int>(num, ctx);
  mgpu::transform_segreduce(twice, total, mgpu::segments_by_flags(flags.data()), out.data(), 1, mgpu::plus<>(), ctx);
  std::vector<int> got = out.to_host();
  got.resize(expected_flags.size());
  EXPECT_TRUE(same(expected_flags, got)) << "transform_segreduce by flags";

  std::vector<int> keys = random_keys<int>(total, 40, rng);
  auto same_parity = [] MGPU_HOST_DEVICE_LAMBDA(int a, int b) { return (a & 1) == (b & 1); };
  auto runs = mgpu_ref::reduce_by_key(keys, input, same_parity, mgpu::plus<>());
  mgpu::buffer<int> dk(keys, ctx), keys_out(total, ctx), values_out(total, ctx);
  mgpu::buffer<std::int64_t> count(1, ctx);
  mgpu::reduce_by_key(dk.data(), din.data(), total, keys_out.data(), values_out.data(), count.data(), mgpu::plus<>(),
                      same_parity, ctx);
  const std::int64_t n_runs = count.to_host()[0];
  ASSERT_EQ(n_runs, std::int64_t(runs.first.size()));
  std::vector<int> got_keys = keys_out.to_host(), got_values = values_out.to_host();
  got_keys.resize(std::size_t(n_runs)), got_values.resize(std::size_t(n_runs));
  EXPECT_TRUE(same(runs.first, got_keys)) << "reduce_by_key keys";
  EXPECT_TRUE(same(runs.second, got_values)) << "reduce_by_key values";
}

// ---- reduce_by_key ----

namespace {

// Keys equal when they agree after division by 10.
struct same_tens {
  MGPU_HOST_DEVICE bool operator()(int a, int b) const { return a / 10 == b / 10; }
};

template <typename K, typename V, typename Op, typename Eq = mgpu::equal_to<>>
void check_reduce_by_key(mgpu::context& ctx, const std::vector<K>& keys, const std::vector<V>& values, Op op,
                         const std::string& what, Eq eq = Eq()) {
  const std::int64_t n = std::int64_t(keys.size());
  SCOPED_TRACE(what + ": count=" + std::to_string(n));
  auto expected = mgpu_ref::reduce_by_key(keys, values, eq, op);
  const std::int64_t runs = std::int64_t(expected.first.size());
  expected.first.push_back(poison<K>());
  expected.second.push_back(poison<V>());
  mgpu::buffer<K> dk(keys, ctx), keys_out = poisoned<K>(runs + 1, ctx);
  mgpu::buffer<V> dv(values, ctx), values_out = poisoned<V>(runs + 1, ctx);
  mgpu::buffer<std::int64_t> count = poisoned<std::int64_t>(1, ctx);
  if constexpr (std::is_same<Eq, mgpu::equal_to<>>::value)
    mgpu::reduce_by_key(dk.data(), dv.data(), n, keys_out.data(), values_out.data(), count.data(), op, ctx);
  else
    mgpu::reduce_by_key(dk.data(), dv.data(), n, keys_out.data(), values_out.data(), count.data(), op, eq, ctx);
  EXPECT_EQ(count.to_host()[0], runs) << "run count";
  EXPECT_TRUE(same(expected.first, keys_out.to_host())) << "keys";
  EXPECT_TRUE(same(expected.second, values_out.to_host())) << "values";
}

// Keys in runs whose lengths are random in [1, max_run].
std::vector<int> runs_of_keys(std::int64_t n, int max_run, std::mt19937_64& rng) {
  std::vector<int> keys;
  int key = 0;
  while (std::int64_t(keys.size()) < n) {
    int length = 1 + int(rng() % std::uint64_t(max_run));
    key += 1 + int(rng() % 3);
    for (int i = 0; i < length && std::int64_t(keys.size()) < n; ++i) keys.push_back(key);
  }
  return keys;
}

}  // namespace

MGPU_TEST(ReduceByKey, RunsOfEveryLength) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  check_reduce_by_key(ctx, std::vector<int>{1, 1, 2, 2, 2, 1, 3, 3}, std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8},
                      mgpu::plus<>(), "small");
  check_reduce_by_key(ctx, std::vector<int>{}, std::vector<int>{}, mgpu::plus<>(), "empty");
  check_reduce_by_key(ctx, std::vector<int>{5}, std::vector<int>{9}, mgpu::plus<>(), "one");
  for (std::int64_t n : sizes_for(runs_nv, quick() ? 20 * runs_nv : 300007)) {
    for (int max_run : {1, 4, 100, runs_nv + 3}) {
      std::vector<int> keys = runs_of_keys(n, max_run, rng);
      check_reduce_by_key(ctx, keys, random_affines(n, rng), compose(), "runs up to " + std::to_string(max_run));
    }
    check_reduce_by_key(ctx, std::vector<int>(std::size_t(n), 4), small_integers<int>(n, rng), mgpu::plus<>(),
                        "all keys equal");
    check_reduce_by_key(ctx, random_keys<int>(n, 3, rng), random_affines(n, rng), compose(), "3 distinct, unsorted");
  }
}

// Around the sizes where segmented_reduce of 4-byte values and reduce_by_key of 4-byte keys and
// values change shape: one small tile, one default tile (one launch each), then the few-tiles
// shape up to its limit (its own tile edges), then the default shape again.
MGPU_TEST(SegmentedReduce, AroundTheFewTilesShapes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t small = mgpu::segmented_small_tile_params::nv;
  const std::int64_t few = mgpu::segreduce_few_tiles_params::nv, limit = mgpu::segreduce_few_tiles_limit;
  for (std::int64_t steps :
       {small - 1, small, small + 1, heads_nv + std::int64_t(1), 4 * few - 1, 4 * few, 4 * few + 1, limit, limit + 1}) {
    for (int size : {1, 7, 300}) {
      std::int64_t total = 0;
      std::vector<int> heads = heads_of(sizes_for_steps(steps, size), total);
      check_every_form(ctx, small_integers<int>(total, rng), heads, 7, mgpu::plus<>(),
                       std::to_string(steps) + " steps, segments of " + std::to_string(size));
    }
  }
  const std::int64_t few_runs = mgpu::reduce_by_key_few_tiles_params::nv;
  const std::int64_t runs_limit = mgpu::reduce_by_key_few_tiles_limit;
  for (std::int64_t n : {small - 1, small, small + 1, runs_nv + std::int64_t(1), 4 * few_runs - 1, 4 * few_runs,
                         4 * few_runs + 1, runs_limit, runs_limit + 1}) {
    for (int max_run : {1, 4, 100})
      check_reduce_by_key(ctx, runs_of_keys(n, max_run, rng), small_integers<int>(n, rng), mgpu::plus<>(),
                          std::to_string(n) + " items, runs up to " + std::to_string(max_run));
  }
}

MGPU_TEST(ReduceByKey, TypesAndKeyEqual) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = quick() ? 9 * runs_nv : 100003;
  std::vector<int> keys = runs_of_keys(n, 30, rng);
  check_reduce_by_key(ctx, keys, small_integers<int>(n, rng), mgpu::plus<>(), "tens", same_tens());
  std::vector<std::int64_t> wide(keys.begin(), keys.end());
  for (auto& k : wide) k *= std::int64_t(1) << 33;
  check_reduce_by_key(ctx, wide, small_integers<double>(n, rng), mgpu::plus<>(), "int64 keys, double values");
  std::vector<pair_value> structs;
  for (int k : keys) structs.push_back(pair_value{k / 2, 1.5f});
  check_reduce_by_key(ctx, structs, random_vector<std::int64_t>(n, rng, -1e12, 1e12), mgpu::minimum<>(),
                      "struct keys, int64 minimum");
  // Float sums within a tolerance: runs of up to 1000.
  std::vector<int> long_runs = runs_of_keys(n, 1000, rng);
  std::vector<float> values = random_vector<float>(n, rng, 0, 1);
  auto expected = mgpu_ref::reduce_by_key(long_runs, std::vector<double>(values.begin(), values.end()),
                                          mgpu::equal_to<>(), mgpu::plus<>());
  mgpu::buffer<int> dk(long_runs, ctx), keys_out(n, ctx);
  mgpu::buffer<float> dv(values, ctx), sums(n, ctx);
  mgpu::buffer<int> count(1, ctx);  // an int count
  mgpu::reduce_by_key(dk.data(), dv.data(), n, keys_out.data(), sums.data(), count.data(), mgpu::plus<>(), ctx);
  const std::int64_t runs = count.to_host()[0];
  ASSERT_EQ(runs, std::int64_t(expected.first.size()));
  std::vector<float> got = sums.to_host();
  got.resize(std::size_t(runs));
  EXPECT_TRUE(close_sums(expected.second, got, std::vector<std::int64_t>(std::size_t(runs), 1000)));
}

// ---- spmv ----

namespace {

// A CSR matrix on the host.
struct host_csr {
  std::vector<int> offsets, columns;
  std::vector<double> values;
  std::int64_t num_columns = 0;
};

// Rows of the given sizes, random columns (or a band around the diagonal), small integer values
// (their products and sums are exact in double).
host_csr make_matrix(const std::vector<int>& row_sizes, std::int64_t num_columns, bool banded, std::mt19937_64& rng) {
  host_csr a;
  a.num_columns = num_columns;
  a.offsets.push_back(0);
  for (std::size_t r = 0; r < row_sizes.size(); ++r) {
    for (int k = 0; k < row_sizes[r]; ++k) {
      std::int64_t c = banded ? (std::int64_t(r) + k - row_sizes[r] / 2 + num_columns) % num_columns
                              : std::int64_t(rng() % std::uint64_t(num_columns));
      a.columns.push_back(int(c));
      a.values.push_back(double(int(rng() % 9) - 4));
    }
    a.offsets.push_back(int(a.columns.size()));
  }
  return a;
}

// Power-law row sizes: most rows short, a few very long.
std::vector<int> power_law_sizes(std::int64_t rows, int max_size, std::mt19937_64& rng) {
  std::vector<int> sizes;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t r = 0; r < rows; ++r) sizes.push_back(std::min(max_size, int(std::pow(1 - u(rng), -1.5)) - 1));
  return sizes;
}

void check_spmv(mgpu::context& ctx, const host_csr& a, std::mt19937_64& rng, const std::string& what) {
  const std::int64_t rows = std::int64_t(a.offsets.size()) - 1, nnz = std::int64_t(a.values.size());
  SCOPED_TRACE(what + ": rows=" + std::to_string(rows) + " nnz=" + std::to_string(nnz));
  std::vector<double> x = small_integers<double>(a.num_columns, rng);
  std::vector<double> expected = mgpu_ref::spmv(a.values, a.columns, a.offsets, x);
  mgpu::buffer<double> dv(a.values, ctx), dx(x, ctx);
  mgpu::buffer<int> dc(a.columns, ctx), doff(a.offsets, ctx);
  auto m = mgpu::make_csr_matrix(dv.data(), dc.data(), doff.data(), rows, a.num_columns, nnz);
  std::vector<double> expected_poisoned = expected;
  expected_poisoned.push_back(poison<double>());
  mgpu::buffer<double> y = poisoned<double>(rows + 1, ctx);
  mgpu::spmv(m, dx.data(), y.data(), ctx);
  EXPECT_TRUE(same(expected_poisoned, y.to_host())) << "spmv";

  // The plan, twice, with another x in between and new values in place.
  auto plan = mgpu::spmv_preprocess(m, ctx);
  y = poisoned<double>(rows + 1, ctx);
  mgpu::spmv(plan, dx.data(), y.data(), ctx);
  EXPECT_TRUE(same(expected_poisoned, y.to_host())) << "spmv with a plan";
  std::vector<double> x2 = small_integers<double>(a.num_columns, rng), values2 = small_integers<double>(nnz, rng);
  mgpu::buffer<double> dx2(x2, ctx);
  dv.to_device(values2.data(), nnz);
  std::vector<double> expected2 = mgpu_ref::spmv(values2, a.columns, a.offsets, x2);
  mgpu::spmv(plan, dx2.data(), y.data(), ctx);
  std::vector<double> got2 = y.to_host();
  got2.pop_back();
  EXPECT_TRUE(same(expected2, got2)) << "the plan again, new x and values";

  // Float, within a tolerance.
  std::vector<float> fv = random_vector<float>(nnz, rng, -1, 1), fx = random_vector<float>(a.num_columns, rng, -1, 1);
  std::vector<double> fexpected = mgpu_ref::spmv(fv, a.columns, a.offsets, fx);
  mgpu::buffer<float> dfv(fv, ctx), dfx(fx, ctx), fy = poisoned<float>(rows, ctx);
  mgpu::spmv(mgpu::make_csr_matrix(dfv.data(), dc.data(), doff.data(), rows, a.num_columns, nnz), dfx.data(), fy.data(),
             ctx);
  std::vector<std::int64_t> lengths;
  for (std::int64_t r = 0; r < rows; ++r) lengths.push_back(a.offsets[std::size_t(r + 1)] - a.offsets[std::size_t(r)]);
  EXPECT_TRUE(close_sums(fexpected, fy.to_host(), lengths)) << "float";
}

// The tropical semiring: y[r] = min over the row of (A[r][c] + x[c]), init "infinity".
struct add_weights {
  MGPU_HOST_DEVICE int operator()(int a, int b) const { return a + b; }
};

}  // namespace

MGPU_TEST(Spmv, GeneratedMatrices) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t rows = quick() ? 2000 : 30011;
  check_spmv(ctx, make_matrix(fixed_sizes(rows, 1), rows, false, rng), rng, "rows of 1");
  check_spmv(ctx, make_matrix(fixed_sizes(rows, 4), rows, false, rng), rng, "rows of 4");
  check_spmv(ctx, make_matrix(random_sizes(rows, 64, rng), rows, false, rng), rng, "uniform rows 0..64");
  check_spmv(ctx, make_matrix(power_law_sizes(rows, int(rows), rng), rows, false, rng), rng, "power-law rows");
  check_spmv(ctx, make_matrix(fixed_sizes(rows, 27), rows, true, rng), rng, "banded, 27 per row");
  std::vector<int> dense = random_sizes(rows, 3, rng);
  dense[std::size_t(rows / 3)] = int(rows);  // one dense row, about 3/4 of the non-zeros
  check_spmv(ctx, make_matrix(dense, rows, false, rng), rng, "one dense row");
  std::vector<int> sparse = random_sizes(rows, 10, rng);
  for (std::size_t r = 0; r < sparse.size(); ++r)
    if (r % 8) sparse[r] = 0;
  sparse.insert(sparse.begin(), 3, 0);
  sparse.insert(sparse.end(), 3, 0);
  check_spmv(ctx, make_matrix(sparse, 500, false, rng), rng, "7 of 8 rows empty, empty at both ends");
  check_spmv(ctx, make_matrix({}, 10, false, rng), rng, "no rows");
  check_spmv(ctx, make_matrix(fixed_sizes(20, 0), 10, false, rng), rng, "no non-zeros");
  check_spmv(ctx, make_matrix({5000}, 7000, false, rng), rng, "a single row");
  // Steps (non-zeros plus rows) at the edges of the double and float tiles.
  for (int nv : {mgpu::spmv_params<double>::nv, mgpu::spmv_params<float>::nv})
    for (const std::vector<int>& sizes : sizes_around_tile(nv))
      check_spmv(ctx, make_matrix(sizes, nv + 2, false, rng), rng, "around the tile");
}

MGPU_TEST(Spmv, UserSemiring) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  host_csr a = make_matrix(random_sizes(5000, 20, rng), 4000, false, rng);
  std::vector<int> weights, x = random_keys<int>(a.num_columns, 1000, rng);
  for (double v : a.values) weights.push_back(int(v) + 10);
  const int infinity = std::numeric_limits<int>::max() / 2;
  std::vector<int> expected;
  for (std::size_t r = 0; r + 1 < a.offsets.size(); ++r) {
    int best = infinity;
    for (int k = a.offsets[r]; k < a.offsets[r + 1]; ++k)
      best = std::min(best, weights[std::size_t(k)] + x[std::size_t(a.columns[std::size_t(k)])]);
    expected.push_back(best);
  }
  const std::int64_t rows = std::int64_t(expected.size()), nnz = std::int64_t(weights.size());
  mgpu::buffer<int> dw(weights, ctx), dc(a.columns, ctx), doff(a.offsets, ctx), dx(x, ctx),
      y = poisoned<int>(rows, ctx);
  auto m = mgpu::make_csr_matrix(dw.data(), dc.data(), doff.data(), rows, a.num_columns, nnz);
  mgpu::spmv(m, dx.data(), y.data(), infinity, add_weights(), mgpu::minimum<>(), ctx);
  EXPECT_TRUE(same(expected, y.to_host()));
  auto plan = mgpu::spmv_preprocess(m, ctx);
  y = poisoned<int>(rows, ctx);
  mgpu::spmv(plan, dx.data(), y.data(), infinity, add_weights(), mgpu::minimum<>(), ctx);
  EXPECT_TRUE(same(expected, y.to_host())) << "with a plan";
}

// ---- bad arguments ----

MGPU_TEST(SegmentedReduce, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> in(std::vector<int>{1, 2, 3, 4}, ctx), heads(std::vector<int>{0, 2, 1}, ctx);
  mgpu::buffer<int> good_heads(std::vector<int>{0, 1, 2}, ctx), beyond(std::vector<int>{0, 5}, ctx);
  mgpu::buffer<int> out = poisoned<int>(4, ctx);
  int* null = nullptr;
  auto plus = mgpu::plus<>();
  const char* fn = "mgpu::segmented_reduce";
  auto segs = mgpu::segments_by_heads(good_heads.data(), 3);
  expect_invalid_argument(fn, "count", [&] { mgpu::segmented_reduce(in.data(), -1, segs, out.data(), 0, plus, ctx); });
  expect_invalid_argument(fn, "num_heads", [&] {
    mgpu::segmented_reduce(in.data(), 4, mgpu::segments_by_heads(good_heads.data(), -1), out.data(), 0, plus, ctx);
  });
  expect_invalid_argument(fn, "input", [&] { mgpu::segmented_reduce(null, 4, segs, out.data(), 0, plus, ctx); });
  expect_invalid_argument(fn, "heads", [&] {
    mgpu::segmented_reduce(in.data(), 4, mgpu::segments_by_heads(null, 3), out.data(), 0, plus, ctx);
  });
  expect_invalid_argument(fn, "output", [&] { mgpu::segmented_reduce(in.data(), 4, segs, null, 0, plus, ctx); });
  expect_invalid_argument(fn, "output",
                          [&] { mgpu::segmented_reduce(in.data(), 4, segs, in.data() + 1, 0, plus, ctx); });
  expect_invalid_argument(fn, "flags", [&] {
    mgpu::segmented_reduce(in.data(), 4, mgpu::segments_by_flags(nullptr), out.data(), 0, plus, ctx);
  });
  expect_invalid_argument("mgpu::transform_segreduce", "count", [&] {
    mgpu::transform_segreduce(read_at<int>{in.data()}, -4, segs, out.data(), 0, plus, ctx);
  });
  expect_invalid_argument("mgpu::segmented_reduce_indirect", "sources",
                          [&] { mgpu::segmented_reduce_indirect(in.data(), 4, segs, null, out.data(), 0, plus, ctx); });
  expect_invalid_argument("mgpu::lbs_segreduce", "output",
                          [&] { mgpu::lbs_segreduce(read_item<int>{in.data()}, 4, segs, null, 0, plus, ctx); });
  expect_invalid_argument("mgpu::lbs_segreduce", "segment_values", [&] {
    mgpu::lbs_segreduce(value_of_segment(), 4, segs, static_cast<std::int64_t*>(nullptr), out.data(), 0, plus, ctx);
  });
  ctx.set_checked(true);
  EXPECT_THROW(mgpu::segmented_reduce(in.data(), 4, mgpu::segments_by_heads(heads.data(), 3), out.data(), 0, plus, ctx),
               mgpu::precondition_error)
      << "decreasing heads";
  EXPECT_THROW(
      mgpu::segmented_reduce(in.data(), 4, mgpu::segments_by_heads(beyond.data(), 2), out.data(), 0, plus, ctx),
      mgpu::precondition_error)
      << "a head past count";
  EXPECT_THROW(mgpu::lbs_segreduce(read_item<int>{in.data()}, 4, mgpu::segments_by_heads(heads.data(), 3), out.data(),
                                   0, plus, ctx),
               mgpu::precondition_error);
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<int>(4, poison<int>()), out.to_host()));
}

MGPU_TEST(ReduceByKey, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> keys(std::vector<int>{1, 1, 2}, ctx), values(std::vector<int>{1, 2, 3}, ctx);
  mgpu::buffer<int> keys_out = poisoned<int>(3, ctx), values_out = poisoned<int>(3, ctx);
  mgpu::buffer<std::int64_t> count = poisoned<std::int64_t>(1, ctx);
  int* null = nullptr;
  auto plus = mgpu::plus<>();
  const char* fn = "mgpu::reduce_by_key";
  int* ko = keys_out.data();
  int* vo = values_out.data();
  std::int64_t* c = count.data();
  expect_invalid_argument(fn, "count",
                          [&] { mgpu::reduce_by_key(keys.data(), values.data(), -1, ko, vo, c, plus, ctx); });
  expect_invalid_argument(fn, "keys", [&] { mgpu::reduce_by_key(null, values.data(), 3, ko, vo, c, plus, ctx); });
  expect_invalid_argument(fn, "values", [&] { mgpu::reduce_by_key(keys.data(), null, 3, ko, vo, c, plus, ctx); });
  expect_invalid_argument(fn, "keys_out",
                          [&] { mgpu::reduce_by_key(keys.data(), values.data(), 3, null, vo, c, plus, ctx); });
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::reduce_by_key(keys.data(), values.data(), 3, ko, null, c, plus, ctx); });
  expect_invalid_argument(fn, "count_out", [&] {
    mgpu::reduce_by_key(keys.data(), values.data(), 3, ko, vo, static_cast<std::int64_t*>(nullptr), plus, ctx);
  });
  expect_invalid_argument(fn, "values_out",
                          [&] { mgpu::reduce_by_key(keys.data(), values.data(), 3, ko, values.data(), c, plus, ctx); });
  EXPECT_TRUE(same(std::vector<int>(3, poison<int>()), keys_out.to_host()));
  EXPECT_TRUE(same(std::vector<int>(3, poison<int>()), values_out.to_host()));
  EXPECT_TRUE(same(std::vector<std::int64_t>(1, poison<std::int64_t>()), count.to_host()));
}

MGPU_TEST(Spmv, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  // [[1, 0, 2], [0, 0, 0], [0, 3, 0]]
  mgpu::buffer<double> values(std::vector<double>{1, 2, 3}, ctx), x(std::vector<double>{1, 1, 1}, ctx);
  mgpu::buffer<int> columns(std::vector<int>{0, 2, 1}, ctx), offsets(std::vector<int>{0, 2, 2, 3}, ctx);
  mgpu::buffer<int> wide_columns(std::vector<int>{0, 3, 1}, ctx), negative_columns(std::vector<int>{0, -1, 1}, ctx);
  mgpu::buffer<int> decreasing(std::vector<int>{0, 2, 1, 3}, ctx), short_end(std::vector<int>{0, 2, 2, 2}, ctx);
  mgpu::buffer<double> y = poisoned<double>(3, ctx);
  double* null = nullptr;
  const char* fn = "mgpu::spmv";
  auto matrix = [&](int* c, int* o, std::int64_t nnz = 3) {
    return mgpu::make_csr_matrix(values.data(), c, o, 3, 3, nnz);
  };
  expect_invalid_argument(fn, "nnz",
                          [&] { mgpu::spmv(matrix(columns.data(), offsets.data(), -3), x.data(), y.data(), ctx); });
  expect_invalid_argument(fn, "num_rows", [&] {
    mgpu::spmv(mgpu::make_csr_matrix(values.data(), columns.data(), offsets.data(), -1, 3, 3), x.data(), y.data(), ctx);
  });
  expect_invalid_argument(fn, "values", [&] {
    mgpu::spmv(mgpu::make_csr_matrix(null, columns.data(), offsets.data(), 3, 3, 3), x.data(), y.data(), ctx);
  });
  expect_invalid_argument(fn, "column_indices",
                          [&] { mgpu::spmv(matrix(nullptr, offsets.data()), x.data(), y.data(), ctx); });
  expect_invalid_argument(fn, "row_offsets",
                          [&] { mgpu::spmv(matrix(columns.data(), nullptr), x.data(), y.data(), ctx); });
  expect_invalid_argument(fn, "x", [&] { mgpu::spmv(matrix(columns.data(), offsets.data()), null, y.data(), ctx); });
  expect_invalid_argument(fn, "y", [&] { mgpu::spmv(matrix(columns.data(), offsets.data()), x.data(), null, ctx); });
  expect_invalid_argument(fn, "y",
                          [&] { mgpu::spmv(matrix(columns.data(), offsets.data()), x.data(), x.data(), ctx); });
  expect_invalid_argument("mgpu::spmv_preprocess", "nnz",
                          [&] { mgpu::spmv_preprocess(matrix(columns.data(), offsets.data(), -1), ctx); });
  ctx.set_checked(true);
  for (int* bad : {wide_columns.data(), negative_columns.data()}) {
    try {
      mgpu::spmv(matrix(bad, offsets.data()), x.data(), y.data(), ctx);
      ADD_FAILURE() << "no exception for a column out of range";
    } catch (const mgpu::precondition_error& e) {
      EXPECT_NE(std::string(e.what()).find("'column_indices'"), std::string::npos) << e.what();
    }
  }
  for (int* bad : {decreasing.data(), short_end.data()}) {
    try {
      mgpu::spmv(matrix(columns.data(), bad), x.data(), y.data(), ctx);
      ADD_FAILURE() << "no exception for bad row offsets";
    } catch (const mgpu::precondition_error& e) {
      EXPECT_NE(std::string(e.what()).find("'row_offsets'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(mgpu::spmv_preprocess(matrix(wide_columns.data(), offsets.data()), ctx), mgpu::precondition_error);
  auto plan = mgpu::spmv_preprocess(matrix(columns.data(), offsets.data()), ctx);
  const std::vector<int> out_of_range{0, 5, 1};
  columns.to_device(out_of_range.data(), 3);  // the plan's matrix goes bad afterwards
  ctx.synchronize();
  EXPECT_THROW(mgpu::spmv(plan, x.data(), y.data(), ctx), mgpu::precondition_error);
  ctx.set_checked(false);
  EXPECT_TRUE(same(std::vector<double>(3, poison<double>()), y.to_host()));
}

// Issue 20: inputs of at most one tile cost one launch (no partition pass, no look-back state).
MGPU_TEST(SegmentedReduce, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t keys_nv = mgpu::reduce_by_key_params<int, int>::nv;
  const std::int64_t n_max = std::max<std::int64_t>(heads_nv, keys_nv);
  mgpu::buffer<int> in(n_max, ctx), keys(n_max, ctx), out(n_max, ctx), keys_out(n_max, ctx);
  mgpu::buffer<std::int64_t> heads(std::vector<std::int64_t>{0, 4, 4, 30}, ctx), runs(1, ctx);
  in.fill(1);
  keys.fill(5);
  const int *i = in.data(), *k = keys.data();
  int *o = out.data(), *ko = keys_out.data();
  auto segments = mgpu::segments_by_heads(heads.data(), heads.size());
  // (A tile holds heads_nv items and heads together.)
  for (std::int64_t n : {std::int64_t(30), heads_nv - heads.size()})
    EXPECT_EQ(
        count_enqueued([&](mgpu::context& c) { mgpu::segmented_reduce(i, n, segments, o, 0, mgpu::plus<int>(), c); }),
        one_launch)
        << "segmented_reduce, n = " << n;
  for (std::int64_t n : {std::int64_t(1), keys_nv})
    EXPECT_EQ(count_enqueued(
                  [&](mgpu::context& c) { mgpu::reduce_by_key(k, i, n, ko, o, runs.data(), mgpu::plus<int>(), c); }),
              one_launch)
        << "reduce_by_key, n = " << n;
  // An SpMV plan of one tile: its products are one launch too, as without a plan.
  mgpu::buffer<int> columns(std::vector<int>(30, 0), ctx), x(std::vector<int>{2}, ctx), y(3, ctx);
  mgpu::buffer<std::int64_t> row_offsets(std::vector<std::int64_t>{0, 4, 4, 30}, ctx);
  auto one_tile = mgpu::make_csr_matrix(i, columns.data(), row_offsets.data(), 3, 1, 30);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::spmv_preprocess(one_tile, c); }), enqueued{})
      << "spmv_preprocess of one tile";
  auto plan = mgpu::spmv_preprocess(one_tile, ctx);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::spmv(plan, x.data(), y.data(), c); }), one_launch)
      << "spmv with a plan";
  y.fill(poison<int>());
  mgpu::spmv(plan, x.data(), y.data(), ctx);
  EXPECT_EQ(y.to_host(), (std::vector<int>{8, 0, 52}));
}

// Issue 20: an input of a few tiles (a grid of at most two waves) costs two launches, the tiles
// finding their own ranges (no partition pass) and the fix-up, and one temporary (the tiles'
// records). Its result is checked by the profiles above, which run at such sizes.
MGPU_TEST(SegmentedReduce, FewTilesSearchTheirOwnRanges) {
  const std::int64_t n = 5 * heads_nv + 3;
  std::int64_t total = 0;
  mgpu::context ctx;
  mgpu::buffer<int> heads(heads_of(fixed_sizes(n / 32, 32), total), ctx), in(total, ctx), out(heads.size(), ctx);
  in.fill(1);
  const int* i = in.data();
  int* o = out.data();
  auto segments = mgpu::segments_by_heads(heads.data(), heads.size());
  EXPECT_EQ(
      count_enqueued([&](mgpu::context& c) { mgpu::segmented_reduce(i, total, segments, o, 0, mgpu::plus<int>(), c); }),
      (enqueued{2, 0, 0, 1}));
}
