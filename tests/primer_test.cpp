// The primer patterns against serial references (tests/references/primer.hpp): compact,
// compact_by_flags and transform_compact (nothing, everything, half or a few selected; device and
// host counts; value types and predicate kinds); histogram (integer and floating-point samples,
// one bin, 256, 65,536 and 2^20 bins, samples outside the range, bins without samples, skewed
// samples that overflow 16-bit counters, every counter type, 64-bit levels); segmented exclusive
// and inclusive scans by heads and by flags (one segment, every element its own, positions before
// the first head, empty segments, a non-commutative operator, in place); the map family as
// documented uses of transform (gather, scatter, a stencil, array of structs to struct of
// arrays). Sizes around the tiles, poisoned outputs, bad arguments.
#include "references/primer.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using namespace mgpu_test;

namespace {

constexpr int compact_nv = mgpu::compact_params<int>::nv;
constexpr int scan_nv = mgpu::segmented_scan_params<int>::nv;

// Keeps values below a threshold: `fraction` of uniform values in [0, 1000) (0: none, 1000: all).
template <typename T>
struct below {
  T threshold;
  MGPU_HOST_DEVICE bool operator()(const T& x) const { return x < threshold; }
};
struct odd_key {
  MGPU_HOST_DEVICE bool operator()(const pair_value& p) const { return (p.key & 1) != 0; }
};

// Runs both forms of compact and checks the kept values, the count, and that nothing past the
// kept values was written.
template <typename T, typename Pred>
void check_compact(mgpu::context& ctx, const std::vector<T>& host, Pred pred, const std::string& what) {
  std::int64_t n = std::int64_t(host.size());
  SCOPED_TRACE(what + ": n=" + std::to_string(n));
  std::vector<T> expected = mgpu_ref::compact(host, [&](std::size_t i) { return pred(host[i]); });
  std::vector<T> expected_out = expected;
  expected_out.resize(host.size(), poison<T>());
  mgpu::buffer<T> in(host, ctx), out = poisoned<T>(n, ctx);
  mgpu::buffer<std::int64_t> selected = poisoned<std::int64_t>(1, ctx);
  mgpu::compact(in.data(), n, out.data(), selected.data(), pred, ctx);
  EXPECT_TRUE(same(expected_out, out.to_host())) << "device count form";
  EXPECT_EQ(selected.to_host()[0], std::int64_t(expected.size()));

  out = poisoned<T>(n, ctx);
  EXPECT_EQ(mgpu::compact(in.data(), n, out.data(), pred, ctx), std::int64_t(expected.size()));
  EXPECT_TRUE(same(expected_out, out.to_host())) << "host count form";
}

// Uniform values in [0, 1000) as T.
template <typename T>
std::vector<T> permille(std::int64_t n, std::mt19937_64& rng) {
  return random_keys<T>(n, 1000, rng);
}

}  // namespace

// ---- compact -------------------------------------------------------------------------------------

MGPU_TEST(Compact, EverySelectivityAroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(compact_nv)) {
    std::vector<int> host = permille<int>(n, rng);
    for (int threshold : {0, 10, 500, 1000})
      check_compact(ctx, host, below<int>{threshold}, "below " + std::to_string(threshold));
  }
}

MGPU_TEST(Compact, ValueTypesAndPredicates) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 5 * compact_nv + 7 : 100003;
  check_compact(ctx, permille<std::int64_t>(n, rng), below<std::int64_t>{300}, "int64");
  check_compact(ctx, random_vector<float>(n, rng, -1, 1), below<float>{0.25f}, "float");
  check_compact(ctx, permille<double>(n, rng), below<double>{700}, "double");
  check_compact(ctx, random_vector<std::uint8_t>(n, rng, 0, 255), below<std::uint8_t>{100}, "uint8");
  std::vector<pair_value> structs;
  for (int k : permille<int>(n, rng)) structs.push_back(pair_value{k, float(k) / 4});
  check_compact(ctx, structs, odd_key(), "struct");
  // A host-device lambda, and a device-only one (the predicate runs on the device only).
  std::vector<int> ints = permille<int>(n, rng);
  check_compact(
      ctx, ints, [] MGPU_HOST_DEVICE_LAMBDA(int x) { return x % 3 == 0; }, "lambda");
  mgpu::buffer<int> in(ints, ctx), out = poisoned<int>(n, ctx);
  std::int64_t k = mgpu::compact(
      in.data(), n, out.data(), [] MGPU_LAMBDA(int x) { return x % 7 == 1; }, ctx);
  std::vector<int> expected = mgpu_ref::compact(ints, [&](std::size_t i) { return ints[i] % 7 == 1; });
  EXPECT_EQ(k, std::int64_t(expected.size()));
  std::vector<int> got = out.to_host();
  got.resize(expected.size());
  EXPECT_TRUE(same(expected, got)) << "device lambda";
}

MGPU_TEST(Compact, CountOutputsAndIterators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 3 * compact_nv + 17;
  std::vector<int> host = permille<int>(n, rng);
  std::vector<int> expected = mgpu_ref::compact(host, [&](std::size_t i) { return host[i] < 400; });
  mgpu::buffer<int> in(host, ctx), out = poisoned<int>(n, ctx), count32 = poisoned<int>(1, ctx);
  // An int count, and a computed input (the values plus 1000, kept below 1400).
  auto shifted = mgpu::make_transform_iterator(in.data(), [] MGPU_HOST_DEVICE_LAMBDA(int x) { return x + 1000; });
  mgpu::compact(shifted, n, out.data(), count32.data(), below<int>{1400}, ctx);
  EXPECT_EQ(count32.to_host()[0], int(expected.size()));
  std::vector<int> got = out.to_host();
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] += 1000;
  got.resize(expected.size());
  EXPECT_TRUE(same(expected, got));
  // No count at all.
  out = poisoned<int>(n, ctx);
  mgpu::compact(in.data(), n, out.data(), mgpu::discard_iterator(), below<int>{0}, ctx);
  EXPECT_TRUE(same(std::vector<int>(std::size_t(n), poison<int>()), out.to_host())) << "nothing selected";
}

MGPU_TEST(Compact, ByFlags) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(mgpu::compact_by_flags_params<std::int64_t>::nv)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<std::int64_t> host = random_vector<std::int64_t>(n, rng, -1e12, 1e12);
    for (int percent : {0, 3, 50, 100}) {
      SCOPED_TRACE("percent=" + std::to_string(percent));
      std::vector<std::uint8_t> flags = random_vector<std::uint8_t>(n, rng, 0, 99);
      for (std::uint8_t& f : flags) f = f < percent ? std::uint8_t(1 + f % 7) : 0;  // any non-zero value keeps
      std::vector<std::int64_t> expected = mgpu_ref::compact(host, [&](std::size_t i) { return flags[i] != 0; });
      std::vector<std::int64_t> expected_out = expected;
      expected_out.resize(host.size(), poison<std::int64_t>());
      mgpu::buffer<std::int64_t> in(host, ctx), out = poisoned<std::int64_t>(n, ctx), selected(1, ctx);
      mgpu::buffer<std::uint8_t> dflags(flags, ctx);
      mgpu::compact_by_flags(in.data(), dflags.data(), n, out.data(), selected.data(), ctx);
      EXPECT_TRUE(same(expected_out, out.to_host()));
      EXPECT_EQ(selected.to_host()[0], std::int64_t(expected.size()));
      out = poisoned<std::int64_t>(n, ctx);
      EXPECT_EQ(mgpu::compact_by_flags(in.data(), dflags.data(), n, out.data(), ctx), std::int64_t(expected.size()));
      EXPECT_TRUE(same(expected_out, out.to_host())) << "host count form";
    }
  }
  // bool flags from a computed sequence, over computed values.
  const std::int64_t n = 10007;
  auto every_third = mgpu::make_transform_iterator(mgpu::make_counting_iterator<std::int64_t>(0),
                                                   [] MGPU_HOST_DEVICE_LAMBDA(std::int64_t i) { return i % 3 == 0; });
  mgpu::buffer<std::int64_t> out = poisoned<std::int64_t>(n, ctx);
  EXPECT_EQ(mgpu::compact_by_flags(mgpu::make_counting_iterator<std::int64_t>(5), every_third, n, out.data(), ctx),
            (n + 2) / 3);
  std::vector<std::int64_t> got = out.to_host();
  for (std::int64_t j = 0; j < (n + 2) / 3; ++j) ASSERT_EQ(got[std::size_t(j)], 5 + 3 * j) << j;
}

// Values read through an iterator (not a pointer) are read only where the flag is set: here each
// read of a value whose flag is clear counts itself.
struct value_counting_clear_reads {
  const std::uint8_t* flags;
  int* clear_reads;
  MGPU_DEVICE int operator()(std::int64_t i) const {
    if (!flags[i]) atomicAdd(clear_reads, 1);
    return int(i);
  }
};

MGPU_TEST(Compact, ByFlagsReadsIteratorValuesOnlyWhereFlagged) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 3 * mgpu::compact_by_flags_params<int>::nv + 17;
  std::vector<std::uint8_t> flags = random_vector<std::uint8_t>(n, rng, 0, 9);
  for (std::uint8_t& f : flags) f = f == 0;  // about one in ten
  mgpu::buffer<std::uint8_t> dflags(flags, ctx);
  mgpu::buffer<int> clear_reads(std::vector<int>{0}, ctx), out = poisoned<int>(n, ctx);
  auto values = mgpu::make_transform_iterator(mgpu::make_counting_iterator<std::int64_t>(0),
                                              value_counting_clear_reads{dflags.data(), clear_reads.data()});
  std::int64_t kept = mgpu::compact_by_flags(values, dflags.data(), n, out.data(), ctx);
  std::vector<int> expected;
  for (std::int64_t i = 0; i < n; ++i)
    if (flags[std::size_t(i)]) expected.push_back(int(i));
  ASSERT_EQ(kept, std::int64_t(expected.size()));
  std::vector<int> got = out.to_host();
  got.resize(expected.size());
  EXPECT_TRUE(same(expected, got));
  EXPECT_EQ(clear_reads.to_host()[0], 0);
}

// transform_compact: the cells of a 2-D grid inside a disc, written as (x, y) pairs: no input array.
MGPU_TEST(Compact, TransformCompact) {
  mgpu::context ctx;
  for (int side : {1, 7, 64, 1000}) {
    SCOPED_TRACE("side=" + std::to_string(side));
    const std::int64_t cells = std::int64_t(side) * side;
    const std::int64_t r2 = std::int64_t(side) * side / 4;
    std::vector<int> expected_x, expected_y;
    for (std::int64_t i = 0; i < cells; ++i) {
      std::int64_t x = i % side - side / 2, y = i / side - side / 2;
      if (x * x + y * y <= r2) expected_x.push_back(int(i % side)), expected_y.push_back(int(i / side));
    }
    mgpu::buffer<int> xs = poisoned<int>(cells, ctx), ys = poisoned<int>(cells, ctx);
    mgpu::buffer<std::int64_t> selected = poisoned<std::int64_t>(1, ctx);
    int* px = xs.data();
    int* py = ys.data();
    auto inside = [=] MGPU_LAMBDA(std::int64_t i) {
      std::int64_t x = i % side - side / 2, y = i / side - side / 2;
      return x * x + y * y <= r2;
    };
    auto write = [=] MGPU_LAMBDA(std::int64_t i, std::int64_t position) {
      px[position] = int(i % side);
      py[position] = int(i / side);
    };
    mgpu::transform_compact(inside, write, cells, selected.data(), ctx);
    EXPECT_EQ(selected.to_host()[0], std::int64_t(expected_x.size()));
    std::vector<int> got_x = xs.to_host(), got_y = ys.to_host();
    expected_x.resize(std::size_t(cells), poison<int>());
    expected_y.resize(std::size_t(cells), poison<int>());
    EXPECT_TRUE(same(expected_x, got_x));
    EXPECT_TRUE(same(expected_y, got_y));
    EXPECT_EQ(mgpu::transform_compact(inside, write, cells, ctx), selected.to_host()[0]) << "host count form";
  }
  mgpu::buffer<std::int64_t> zero = poisoned<std::int64_t>(1, ctx);
  mgpu::transform_compact([] MGPU_LAMBDA(std::int64_t) { return true; }, [] MGPU_LAMBDA(std::int64_t, std::int64_t) {},
                          0, zero.data(), ctx);
  EXPECT_EQ(zero.to_host()[0], 0) << "count 0";
}

MGPU_TEST(Compact, BadArguments) {
  mgpu::context ctx;
  mgpu::buffer<int> a(100, ctx), b(100, ctx);
  mgpu::buffer<std::uint8_t> flags(100, ctx);
  mgpu::buffer<std::int64_t> k(1, ctx);
  int* null = nullptr;
  std::int64_t* no_count = nullptr;
  below<int> p{5};
  expect_invalid_argument("mgpu::compact", "count", [&] { mgpu::compact(a.data(), -1, b.data(), k.data(), p, ctx); });
  expect_invalid_argument("mgpu::compact", "count", [&] { mgpu::compact(a.data(), -1, b.data(), p, ctx); });
  expect_invalid_argument("mgpu::compact", "input", [&] { mgpu::compact(null, 10, b.data(), k.data(), p, ctx); });
  expect_invalid_argument("mgpu::compact", "output", [&] { mgpu::compact(a.data(), 10, null, p, ctx); });
  expect_invalid_argument("mgpu::compact", "num_selected",
                          [&] { mgpu::compact(a.data(), 10, b.data(), no_count, p, ctx); });
  expect_invalid_argument("mgpu::compact", "output", [&] { mgpu::compact(a.data(), 10, a.data() + 5, p, ctx); });
  expect_invalid_argument("mgpu::compact", "output", [&] { mgpu::compact(a.data(), 10, a.data(), p, ctx); });
  expect_invalid_argument("mgpu::compact_by_flags", "count",
                          [&] { mgpu::compact_by_flags(a.data(), flags.data(), -5, b.data(), ctx); });
  expect_invalid_argument("mgpu::compact_by_flags", "flags", [&] {
    mgpu::compact_by_flags(a.data(), static_cast<std::uint8_t*>(nullptr), 10, b.data(), k.data(), ctx);
  });
  expect_invalid_argument("mgpu::compact_by_flags", "output", [&] {
    mgpu::compact_by_flags(a.data(), flags.data(), 10, reinterpret_cast<int*>(flags.data()), ctx);
  });
  auto keep = [] MGPU_LAMBDA(std::int64_t) { return true; };
  auto write = [] MGPU_LAMBDA(std::int64_t, std::int64_t) {};
  expect_invalid_argument("mgpu::transform_compact", "count", [&] { mgpu::transform_compact(keep, write, -1, ctx); });
  expect_invalid_argument("mgpu::transform_compact", "num_selected",
                          [&] { mgpu::transform_compact(keep, write, 10, no_count, ctx); });
}

// ---- histogram -----------------------------------------------------------------------------------

namespace {

// Runs histogram into poisoned bins of type Counter and compares with the reference.
template <typename Counter = int, typename T, typename Level>
void check_histogram(mgpu::context& ctx, const std::vector<T>& samples, std::int64_t num_bins, Level lower, Level upper,
                     const std::string& what) {
  using C = std::common_type_t<T, Level>;
  std::int64_t n = std::int64_t(samples.size());
  SCOPED_TRACE(what + ": n=" + std::to_string(n) + " bins=" + std::to_string(num_bins));
  mgpu::buffer<T> in(samples, ctx);
  mgpu::buffer<Counter> bins = poisoned<Counter>(num_bins, ctx);
  mgpu::histogram(in.data(), n, bins.data(), num_bins, lower, upper, ctx);
  EXPECT_TRUE(same(mgpu_ref::histogram<C, Counter>(samples, num_bins, C(lower), C(upper)), bins.to_host()));
}

}  // namespace

MGPU_TEST(Histogram, IntegersAroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(mgpu::histogram_params<int>::nv)) {
    // Samples in [-100, 1100): some below and some past the range [0, 1000).
    std::vector<int> samples = random_vector<int>(n, rng, -100, 1099);
    check_histogram(ctx, samples, 256, 0, 1000, "256 bins");
    check_histogram(ctx, samples, 1, 0, 1000, "one bin");
    check_histogram(ctx, samples, 7, -50, 20, "7 bins of a range that does not divide");
    check_histogram(ctx, samples, 3000, 0, 1000, "more bins than values: empty bins");
  }
}

// Integer bins: floor((x - lower) * bins / range) with bins and range divided by their gcd (factor
// and divisor), in 32-bit arithmetic while (range - 1) * factor < 2^32 and divisor <= 2^31, in
// 64-bit up to 2^64 and 2^63, and by a long division past that: each at its limits, where the
// estimate of the quotient is most often one too many.
MGPU_TEST(Histogram, IntegerBinsAtTheLimitsOfEachArithmetic) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 100003 : 1000003;
  std::vector<std::uint32_t> u = random_vector<std::uint32_t>(n, rng, 0, 4294967295.0);
  check_histogram(ctx, u, 2, 0u, 2147483647u, "32-bit: range 2^31 - 1, 2 bins");
  check_histogram(ctx, u, 3, 0u, 1431655765u, "32-bit: range (2^32 - 1) / 3, 3 bins");
  check_histogram(ctx, u, 1, 1u, 2147483649u, "32-bit: range 2^31, 1 bin (the largest 32-bit divisor)");
  check_histogram(ctx, u, 7, 1u, 2147483649u, "64-bit: range 2^31, 7 bins");
  check_histogram(ctx, u, 65536, 0u, 16777216u, "32-bit: bins of 256 values");
  check_histogram(ctx, u, 5, 0u, 4294967295u, "32-bit: range 2^32 - 1 = 5 bins of 858993459");
  check_histogram(ctx, u, 7, 0u, 4294967295u, "64-bit: range 2^32 - 1, 7 bins");
  check_histogram(ctx, u, 6, 0u, 2147483650u, "64-bit: range 2^31 + 2, 6 bins (factor 3)");
  std::vector<std::int64_t> w = random_vector<std::int64_t>(n, rng, -9.2e18, 9.2e18);
  const std::int64_t q = std::int64_t(1) << 62;
  check_histogram(ctx, w, 1, -q, q, "64-bit: range 2^63, 1 bin");
  check_histogram(ctx, w, 2, -q, q - 1, "64-bit: range 2^63 - 1, 2 bins (their product just under 2^64)");
  check_histogram(ctx, w, 3, -q, q, "long division: range 2^63, 3 bins");
  check_histogram(ctx, w, 1, -q, q + 1, "long division: range 2^63 + 1");
}

// The strategies by bin count: small and large shared-memory histograms, 16-bit chunks (one and
// three), and global atomics (2^20 bins, and fewer than 8 samples per bin).
MGPU_TEST(Histogram, ManyBins) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 600000 : 3000017;
  std::vector<std::uint32_t> samples = random_vector<std::uint32_t>(n, rng, 0, 4294967295.0);
  for (std::int64_t bins : {std::int64_t(2048), std::int64_t(2049), std::int64_t(11776), std::int64_t(11777),
                            std::int64_t(23552), std::int64_t(65536), std::int64_t(94208), std::int64_t(1) << 20})
    check_histogram(ctx, samples, bins, std::uint32_t(0), std::uint32_t(4294967295u), "uint32 over the type");
  check_histogram<std::int64_t>(ctx, samples, 65536, std::int64_t(1) << 30, std::int64_t(3) << 30,
                                "int64 levels, half the samples outside");
  std::vector<std::uint32_t> few(1000);
  std::iota(few.begin(), few.end(), 0u);
  check_histogram(ctx, few, 65536, 0u, 65536u, "fewer samples than bins");
}

// Every sample in one bin: a 16-bit counter passes 2^15 many times in each CTA (and the shared
// 32-bit counters take every add of a tile on one address).
MGPU_TEST(Histogram, SkewedSamples) {
  mgpu::context ctx;
  const std::int64_t n = quick() ? 700001 : 4000037;
  std::vector<int> same_value(std::size_t(n), 40000);
  check_histogram(ctx, same_value, 65536, 0, 65536, "one bin of three 16-bit chunks");
  check_histogram(ctx, same_value, 20000, 30000, 50000, "one bin of one 16-bit chunk");
  check_histogram<unsigned long long>(ctx, same_value, 256, 0, 65536, "256 bins");
  std::vector<int> two_values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) two_values[std::size_t(i)] = i % 3 ? 40000 : 40001;  // neighbours in a word
  check_histogram(ctx, two_values, 65536, 0, 65536, "two bins of one counter word");
}

MGPU_TEST(Histogram, FloatingPointAndOtherTypes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 50003 : 500009;
  std::vector<float> f = random_vector<float>(n, rng, -0.5, 1.5);
  f[0] = std::numeric_limits<float>::quiet_NaN();
  f[1] = std::numeric_limits<float>::infinity();
  f[2] = 1.0f;  // the upper level: outside
  f[3] = 0.0f;  // the lower level: bin 0
  check_histogram(ctx, f, 256, 0.0f, 1.0f, "float");
  check_histogram(ctx, f, 65536, 0.0f, 1.0f, "float, 65536 bins");
  check_histogram(ctx, f, 1, -1.0f, 2.0f, "float, one bin");
  check_histogram<std::int64_t>(ctx, random_vector<double>(n, rng, -10, 10), 1000, -5.0, 5.0, "double");
  check_histogram<unsigned>(ctx, random_vector<std::uint8_t>(n, rng, 0, 255), 256, 0, 256, "uint8 with int levels");
  check_histogram(ctx, random_vector<short>(n, rng, -3000, 3000), 100, -1000, 1000, "short");
  check_histogram(ctx, random_vector<int>(n, rng, -1000, 1000), 10, 0.0, 1000.0, "int with double levels");
  // 64-bit levels whose range exceeds 2^63: the exact slow path.
  std::vector<std::int64_t> wide = random_vector<std::int64_t>(n, rng, -9.2e18, 9.2e18);
  check_histogram<std::uint64_t>(ctx, wide, 1000, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max(), "int64, the whole range");
  check_histogram(ctx, wide, 3, std::int64_t(-5e18), std::int64_t(6e18), "int64, range times bins past 2^64");
}

MGPU_TEST(Histogram, BadArguments) {
  mgpu::context ctx;
  mgpu::buffer<int> samples(100, ctx), bins(10, ctx);
  mgpu::buffer<float> fsamples(100, ctx);
  int* null = nullptr;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  expect_invalid_argument("mgpu::histogram", "count",
                          [&] { mgpu::histogram(samples.data(), -1, bins.data(), 10, 0, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "num_bins",
                          [&] { mgpu::histogram(samples.data(), 100, bins.data(), 0, 0, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "num_bins",
                          [&] { mgpu::histogram(samples.data(), 100, bins.data(), -3, 0, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "upper_level",
                          [&] { mgpu::histogram(samples.data(), 100, bins.data(), 10, 10, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "upper_level",
                          [&] { mgpu::histogram(samples.data(), 100, bins.data(), 10, 11, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "upper_level",
                          [&] { mgpu::histogram(fsamples.data(), 100, bins.data(), 10, 0.0f, nan, ctx); });
  expect_invalid_argument("mgpu::histogram", "samples",
                          [&] { mgpu::histogram(null, 100, bins.data(), 10, 0, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "bins",
                          [&] { mgpu::histogram(samples.data(), 100, null, 10, 0, 10, ctx); });
  expect_invalid_argument("mgpu::histogram", "bins",
                          [&] { mgpu::histogram(samples.data(), 100, samples.data() + 50, 10, 0, 10, ctx); });
}

// ---- segmented scan ------------------------------------------------------------------------------

namespace {

// Both scans by heads and by flags (flags only where heads[0] == 0 or absent: flags cannot say
// "no segment"), against the references. Outputs start poisoned.
template <typename T, typename Op>
void check_segmented(mgpu::context& ctx, const std::vector<T>& host, const std::vector<std::int64_t>& heads, T init,
                     Op op, const std::string& what) {
  std::int64_t n = std::int64_t(host.size());
  SCOPED_TRACE(what + ": n=" + std::to_string(n) + " heads=" + std::to_string(heads.size()));
  std::vector<bool> starts = mgpu_ref::head_flags(n, heads);
  std::vector<T> exclusive = mgpu_ref::segmented_exclusive_scan(host, starts, init, op);
  std::vector<T> inclusive = mgpu_ref::segmented_inclusive_scan(host, starts, op);
  mgpu::buffer<T> in(host, ctx), out = poisoned<T>(n, ctx);
  mgpu::buffer<std::int64_t> dheads(heads, ctx);
  auto by_heads = mgpu::segments_by_heads(dheads.data(), std::int64_t(heads.size()));
  mgpu::segmented_exclusive_scan(in.data(), n, by_heads, out.data(), init, op, ctx);
  EXPECT_TRUE(same(exclusive, out.to_host())) << "exclusive by heads";
  out = poisoned<T>(n, ctx);
  mgpu::segmented_inclusive_scan(in.data(), n, by_heads, out.data(), op, ctx);
  EXPECT_TRUE(same(inclusive, out.to_host())) << "inclusive by heads";

  std::vector<unsigned> flags(std::size_t(n / 32 + 1), 0u);
  for (std::int64_t i = 0; i < n; ++i)
    if (starts[std::size_t(i)] && (i > 0 || (!heads.empty() && heads[0] == 0)))
      flags[std::size_t(i / 32)] |= 1u << (i % 32);
  for (std::size_t w = std::size_t(n / 32); w < flags.size(); ++w)
    flags[w] |= ~0u << (n % 32);  // bits past count: ignored
  mgpu::buffer<unsigned> dflags(flags, ctx);
  out = poisoned<T>(n, ctx);
  mgpu::segmented_exclusive_scan(in.data(), n, mgpu::segments_by_flags(dflags.data()), out.data(), init, op, ctx);
  EXPECT_TRUE(same(exclusive, out.to_host())) << "exclusive by flags";
  out = poisoned<T>(n, ctx);
  mgpu::segmented_inclusive_scan(in.data(), n, mgpu::segments_by_flags(dflags.data()), out.data(), op, ctx);
  EXPECT_TRUE(same(inclusive, out.to_host())) << "inclusive by flags";
}

// Sorted heads in [0, n]: segment sizes uniform in [0, 2 * average] (empty segments included).
std::vector<std::int64_t> random_heads(std::int64_t n, std::int64_t average, std::mt19937_64& rng,
                                       std::int64_t first = 0) {
  std::vector<std::int64_t> heads;
  std::uniform_int_distribution<std::int64_t> size(0, 2 * average);
  for (std::int64_t h = first; h <= n; h += size(rng)) heads.push_back(h);
  return heads;
}
std::vector<std::int64_t> every_position(std::int64_t n) {
  std::vector<std::int64_t> heads(static_cast<std::size_t>(n));
  std::iota(heads.begin(), heads.end(), std::int64_t(0));
  return heads;
}

}  // namespace

MGPU_TEST(SegmentedScan, SegmentShapesAroundTheTile) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(scan_nv)) {
    std::vector<int> host = small_integers<int>(n, rng);
    check_segmented(ctx, host, {0}, 5, mgpu::plus<int>(), "one segment");
    check_segmented(ctx, host, {}, 5, mgpu::plus<int>(), "no heads: one segment");
    check_segmented(ctx, host, every_position(n), 5, mgpu::plus<int>(), "every element its own segment");
    check_segmented(ctx, host, random_heads(n, 40, rng), 5, mgpu::plus<int>(), "segments of about 40");
    check_segmented(ctx, host, random_heads(n, 3 * scan_nv, rng), 5, mgpu::plus<int>(), "segments of several tiles");
    if (n > 10) {
      check_segmented(ctx, host, random_heads(n, 1000, rng, n / 3), -1, mgpu::plus<int>(),
                      "positions before the first head");
      check_segmented(ctx, host, {n / 2, n / 2, n / 2, n, n}, 2, mgpu::plus<int>(), "empty segments");
    }
  }
}

// compose is associative but not commutative: a scan that combines out of order fails.
MGPU_TEST(SegmentedScan, NonCommutativeOperator) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n :
       {std::int64_t(1), std::int64_t(mgpu::segmented_scan_params<affine>::nv) + 1, std::int64_t(100003)}) {
    std::vector<affine> host;
    for (std::uint64_t r : random_vector<std::uint64_t>(n, rng, 0, 1e18))
      host.push_back(affine{unsigned(r) | 1u, unsigned(r >> 32)});
    const affine identity{1, 0};
    check_segmented(ctx, host, random_heads(n, 500, rng), identity, compose(), "affine");
    check_segmented(ctx, host, {0}, identity, compose(), "affine, one segment");
    check_segmented(ctx, host, random_heads(n, 30000, rng, 1), affine{3, 7}, compose(),
                    "affine, a gap before the first head");
  }
}

MGPU_TEST(SegmentedScan, TypesAndInPlace) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 6 * scan_nv + 3 : 300007;
  std::vector<std::int64_t> heads = random_heads(n, 700, rng);
  check_segmented(ctx, small_integers<std::int64_t>(n, rng), heads, std::int64_t(-9), mgpu::plus<>(), "int64");
  check_segmented(ctx, small_integers<float>(n, rng), heads, 0.5f, mgpu::plus<float>(), "float");
  check_segmented(ctx, small_integers<double>(n, rng), heads, 0.0, mgpu::maximum<double>(), "double maximum");
  check_segmented(ctx, random_vector<std::uint32_t>(n, rng, 0, 1e9), heads, 0u, mgpu::bit_xor<>(), "uint32 xor");
  // In place: output == input.
  std::vector<int> host = small_integers<int>(n, rng);
  mgpu::buffer<int> data(host, ctx);
  mgpu::buffer<std::int64_t> dheads(heads, ctx);
  mgpu::segmented_inclusive_scan(data.data(), n, mgpu::segments_by_heads(dheads.data(), std::int64_t(heads.size())),
                                 data.data(), mgpu::plus<>(), ctx);
  EXPECT_TRUE(
      same(mgpu_ref::segmented_inclusive_scan(host, mgpu_ref::head_flags(n, heads), mgpu::plus<int>()), data.to_host()))
      << "in place";
  // int heads, and a computed input.
  std::vector<int> int_heads(heads.begin(), heads.end());
  mgpu::buffer<int> dint_heads(int_heads, ctx), out = poisoned<int>(n, ctx);
  mgpu::segmented_exclusive_scan(mgpu::make_constant_iterator(1), n,
                                 mgpu::segments_by_heads(dint_heads.data(), std::int64_t(int_heads.size())), out.data(),
                                 0, mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(mgpu_ref::segmented_exclusive_scan(std::vector<int>(std::size_t(n), 1),
                                                      mgpu_ref::head_flags(n, heads), 0, mgpu::plus<int>()),
                   out.to_host()))
      << "ranks within segments";
}

MGPU_TEST(SegmentedScan, CheckedModeAndBadArguments) {
  mgpu::context ctx;
  mgpu::buffer<int> a(100, ctx), b(100, ctx);
  mgpu::buffer<int> unsorted(std::vector<int>{0, 50, 20}, ctx), outside(std::vector<int>{0, 101}, ctx);
  mgpu::buffer<unsigned> flags(4, ctx);
  ctx.set_checked(true);
  std::vector<int> before = b.to_host();
  for (auto* heads : {&unsorted, &outside}) {
    auto segs = mgpu::segments_by_heads(heads->data(), heads->size());
    EXPECT_THROW(mgpu::segmented_inclusive_scan(a.data(), 100, segs, b.data(), mgpu::plus<>(), ctx),
                 mgpu::precondition_error);
    EXPECT_THROW(mgpu::segmented_exclusive_scan(a.data(), 100, segs, b.data(), 0, mgpu::plus<>(), ctx),
                 mgpu::precondition_error);
  }
  EXPECT_TRUE(same(before, b.to_host())) << "nothing written";
  ctx.set_checked(false);
  auto segs = mgpu::segments_by_heads(unsorted.data(), 3);
  const char* ex = "mgpu::segmented_exclusive_scan";
  const char* in = "mgpu::segmented_inclusive_scan";
  int* null = nullptr;
  expect_invalid_argument(
      ex, "count", [&] { mgpu::segmented_exclusive_scan(a.data(), -1, segs, b.data(), 0, mgpu::plus<>(), ctx); });
  expect_invalid_argument(in, "count",
                          [&] { mgpu::segmented_inclusive_scan(a.data(), -1, segs, b.data(), mgpu::plus<>(), ctx); });
  expect_invalid_argument(in, "num_heads", [&] {
    mgpu::segmented_inclusive_scan(a.data(), 100, mgpu::segments_by_heads(unsorted.data(), -1), b.data(),
                                   mgpu::plus<>(), ctx);
  });
  expect_invalid_argument(in, "heads", [&] {
    mgpu::segmented_inclusive_scan(a.data(), 100, mgpu::segments_by_heads(null, 3), b.data(), mgpu::plus<>(), ctx);
  });
  expect_invalid_argument(ex, "flags", [&] {
    mgpu::segmented_exclusive_scan(a.data(), 100, mgpu::segments_by_flags(nullptr), b.data(), 0, mgpu::plus<>(), ctx);
  });
  expect_invalid_argument(in, "input",
                          [&] { mgpu::segmented_inclusive_scan(null, 100, segs, b.data(), mgpu::plus<>(), ctx); });
  expect_invalid_argument(ex, "output",
                          [&] { mgpu::segmented_exclusive_scan(a.data(), 100, segs, null, 0, mgpu::plus<>(), ctx); });
  expect_invalid_argument(
      in, "output", [&] { mgpu::segmented_inclusive_scan(a.data(), 100, segs, a.data() + 1, mgpu::plus<>(), ctx); });
}

// ---- the map family: documented uses of transform (docs/primer.md) ---------------------------------

namespace {
struct particle {  // an array of these is transposed to a structure of arrays
  float mass;
  int id;
};
}  // namespace

MGPU_TEST(MapFamily, GatherScatterStencilTranspose) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = quick() ? 20011 : 300007;
  std::vector<float> values = random_vector<float>(n, rng, -100, 100);
  std::vector<int> permutation(static_cast<std::size_t>(n));
  std::iota(permutation.begin(), permutation.end(), 0);
  std::shuffle(permutation.begin(), permutation.end(), rng);
  mgpu::buffer<float> input(values, ctx), output = poisoned<float>(n, ctx);
  mgpu::buffer<int> indices(permutation, ctx);

  // Gather: output[i] = input[indices[i]].
  {
    const float* in = input.data();
    const int* idx = indices.data();
    float* out = output.data();
    mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { out[i] = in[idx[i]]; }, n, ctx);
  }
  EXPECT_TRUE(same(mgpu_ref::gather(values, permutation), output.to_host())) << "gather";

  // Scatter: output[indices[i]] = input[i].
  output = poisoned<float>(n, ctx);
  {
    const float* in = input.data();
    const int* idx = indices.data();
    float* out = output.data();
    mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { out[idx[i]] = in[i]; }, n, ctx);
  }
  EXPECT_TRUE(same(mgpu_ref::scatter(values, permutation, std::vector<float>(std::size_t(n))), output.to_host()))
      << "scatter";

  // Stencil: a three-point smoothing, the edge value repeated past either end.
  output = poisoned<float>(n, ctx);
  {
    const float* x = input.data();
    float* out = output.data();
    mgpu::transform(
        [=] MGPU_LAMBDA(std::int64_t i) {
          float left = x[i > 0 ? i - 1 : 0], right = x[i + 1 < n ? i + 1 : i];
          out[i] = (left + 2 * x[i] + right) / 4;
        },
        n, ctx);
  }
  EXPECT_TRUE(same(mgpu_ref::smooth(values), output.to_host())) << "stencil";

  // Transpose: an array of structs to a struct of arrays.
  std::vector<particle> particles;
  for (std::int64_t i = 0; i < n; ++i) particles.push_back(particle{values[std::size_t(i)], int(7 * i)});
  mgpu::buffer<particle> aos(particles, ctx);
  mgpu::buffer<float> masses = poisoned<float>(n, ctx);
  mgpu::buffer<int> ids = poisoned<int>(n, ctx);
  {
    const particle* p = aos.data();
    float* mass = masses.data();
    int* id = ids.data();
    mgpu::transform(
        [=] MGPU_LAMBDA(std::int64_t i) {
          particle q = p[i];
          mass[i] = q.mass;
          id[i] = q.id;
        },
        n, ctx);
  }
  std::vector<int> expected_ids;
  for (const particle& q : particles) expected_ids.push_back(q.id);
  EXPECT_TRUE(same(values, masses.to_host())) << "transpose: masses";
  EXPECT_TRUE(same(expected_ids, ids.to_host())) << "transpose: ids";

  // A gather through an iterator instead of a kernel: a reduction of the gathered values.
  mgpu::buffer<double> sum(1, ctx);
  {
    const float* in = input.data();
    auto gathered =
        mgpu::make_transform_iterator(indices.data(), [=] MGPU_HOST_DEVICE_LAMBDA(int j) { return double(in[j]); });
    mgpu::reduce(gathered, n, sum.data(), 0.0, mgpu::plus<>(), ctx);
  }
  double expected_sum = 0;
  for (int j : permutation) expected_sum += double(values[std::size_t(j)]);
  EXPECT_NEAR(sum.to_host()[0], expected_sum, 1e-6 * double(n) * 100);
}

// Issue 20: an input of at most one tile costs one launch (no look-back state, no partition of
// the heads); a histogram adds the kernel that zeroes its bins.
MGPU_TEST(Primer, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t flags_nv = mgpu::compact_by_flags_params<std::int64_t>::nv;
  const std::int64_t n_max = std::max<std::int64_t>({compact_nv, scan_nv, flags_nv});
  mgpu::buffer<int> in(n_max, ctx), out(n_max, ctx);
  mgpu::buffer<std::int64_t> wide_in(flags_nv, ctx), wide_out(flags_nv, ctx), selected(1, ctx);
  mgpu::buffer<std::uint8_t> keep(flags_nv, ctx);
  mgpu::buffer<std::int64_t> heads(std::vector<std::int64_t>{0, 3, 100}, ctx);
  mgpu::buffer<unsigned> flags(std::vector<unsigned>(std::size_t(scan_nv / 32 + 1), 0x101u), ctx);
  mgpu::buffer<unsigned> bins(256, ctx);
  in.fill(7);
  wide_in.fill(7);
  keep.fill(1);
  int *i = in.data(), *o = out.data();
  std::int64_t* s = selected.data();
  for (std::int64_t n : {std::int64_t(1), std::int64_t(compact_nv)})
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::compact(i, n, o, s, below<int>{500}, c); }), one_launch)
        << "compact, n = " << n;
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) {
              mgpu::compact_by_flags(wide_in.data(), keep.data(), flags_nv, wide_out.data(), s, c);
            }),
            one_launch);
  auto by_heads = mgpu::segments_by_heads(heads.data(), heads.size());
  auto by_flags = mgpu::segments_by_flags(flags.data());
  for (std::int64_t n : {std::int64_t(1), std::int64_t(scan_nv)}) {
    SCOPED_TRACE("segmented scan, n = " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) {
                mgpu::segmented_exclusive_scan(i, n, by_heads, o, 0, mgpu::plus<int>(), c);
              }),
              one_launch);
    EXPECT_EQ(count_enqueued(
                  [&](mgpu::context& c) { mgpu::segmented_inclusive_scan(i, n, by_flags, o, mgpu::plus<int>(), c); }),
              one_launch);
  }
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::histogram(i, 1000, bins.data(), 256, 0, 1000, c); }),
            (enqueued{2, 0, 0, 0}));
}

// Issue 20: a segmented scan by heads of a few tiles (a grid of at most two waves) runs no
// partition pass: the tiles find their heads themselves. Two launches (the look-back state's
// zeroing and the scan) and one temporary (that state). Its results are checked above, at sizes
// of several tiles.
MGPU_TEST(SegmentedScan, FewTilesSearchTheirOwnHeads) {
  const std::int64_t n = 5 * scan_nv + 3;
  mgpu::context ctx;
  std::vector<std::int64_t> host_heads;
  for (std::int64_t h = 0; h < n; h += 37) host_heads.push_back(h);
  mgpu::buffer<std::int64_t> heads(host_heads, ctx);
  mgpu::buffer<int> in(n, ctx), out(n, ctx);
  in.fill(1);
  const int* i = in.data();
  int* o = out.data();
  auto by_heads = mgpu::segments_by_heads(heads.data(), heads.size());
  EXPECT_EQ(count_enqueued(
                [&](mgpu::context& c) { mgpu::segmented_inclusive_scan(i, n, by_heads, o, mgpu::plus<int>(), c); }),
            (enqueued{2, 0, 0, 1}));
}
