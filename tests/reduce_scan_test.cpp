// reduce, transform_reduce, exclusive_scan, inclusive_scan, transform_*_scan against the serial
// references of references/reduce_scan.hpp: sizes around tile boundaries, five arithmetic types
// and a user struct, several operators (one of them non-commutative), poisoned outputs, bad input.
#include "references/reduce_scan.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mgpu_test;

template <typename T>
class ReduceScanTyped : public ::testing::Test {};
using arithmetic_types = test_types<std::int32_t, double, std::int64_t, std::uint32_t, float>;
TYPED_TEST_SUITE(ReduceScanTyped, arithmetic_types);

// Runs every scan form for one input and compares with the references. Outputs start poisoned.
template <typename params = void, typename T, typename Op>
void check_scans(mgpu::context& ctx, const std::vector<T>& host, T init, Op op) {
  std::int64_t n = std::int64_t(host.size());
  mgpu::buffer<T> in(host, ctx);
  mgpu::buffer<T> out = poisoned<T>(n, ctx), total = poisoned<T>(1, ctx);

  mgpu::exclusive_scan<params>(in.data(), n, out.data(), init, op, total.data(), ctx);
  EXPECT_TRUE(same(mgpu_ref::exclusive_scan(host, init, op), out.to_host())) << "exclusive";
  EXPECT_EQ(total.to_host()[0], mgpu_ref::reduce(host, init, op)) << "exclusive total";

  out = poisoned<T>(n, ctx);
  total = poisoned<T>(1, ctx);
  mgpu::inclusive_scan<params>(in.data(), n, out.data(), op, total.data(), ctx);
  std::vector<T> inclusive = mgpu_ref::inclusive_scan(host, op);
  EXPECT_TRUE(same(inclusive, out.to_host())) << "inclusive";
  EXPECT_EQ(total.to_host()[0], n ? inclusive.back() : poison<T>()) << "inclusive total";
}

MGPU_TYPED_TEST(ReduceScanTyped, SumsMatchTheReferenceAtEverySize) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(mgpu::scan_params<T>::nv)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<T> host = small_integers<T>(n, rng);
    check_scans(ctx, host, T(3), mgpu::plus<T>());

    mgpu::buffer<T> in(host, ctx), out = poisoned<T>(1, ctx);
    mgpu::reduce(in.data(), n, out.data(), T(3), mgpu::plus<T>(), ctx);
    EXPECT_EQ(out.to_host()[0], mgpu_ref::reduce(host, T(3), mgpu::plus<T>())) << "reduce";
  }
}

// Around the sizes where a scan of 4-byte values changes shape: one tile of scan_params (one
// launch), then scan_few_tiles_params up to scan_few_tiles_limit values (its own tile edges), then
// scan_params again, and past scan_large_threshold scan_large_params (a shape of its own where
// MGPU_TUNING_ARCH >= 90, the default, on either backend). int sums and float maxima (exact).
MGPU_TEST(ReduceScan, ScansAroundTheFewTilesShape) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t tile = mgpu::scan_params<int>::nv, few = mgpu::scan_few_tiles_params<int>::nv;
  const std::int64_t limit = mgpu::scan_few_tiles_limit, large = mgpu::scan_large_threshold;
  for (std::int64_t n :
       {tile, tile + 1, 4 * few - 1, 4 * few, 4 * few + 1, limit - 1, limit, limit + 1, large, large + 1}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_scans(ctx, small_integers<int>(n, rng), 3, mgpu::plus<int>());
    check_scans(ctx, random_vector<float>(n, rng, -1000.0f, 1000.0f), -1e30f, mgpu::maximum<float>());
  }
}

// Around the sizes where reduce changes shape: one CTA of few values (reduce_last_params), one
// tile of the main shape, several CTAs folded by the last step.
MGPU_TYPED_TEST(ReduceScanTyped, ReduceAroundItsShapes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t few = mgpu::reduce_last_params::nv, tile = mgpu::reduce_params<T>::nv;
  for (std::int64_t n : {few - 1, few, few + 1, tile - 1, tile, tile + 1, 3 * tile + 5}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<T> host = small_integers<T>(n, rng);
    mgpu::buffer<T> in(host, ctx), out = poisoned<T>(1, ctx);
    mgpu::reduce(in.data(), n, out.data(), T(3), mgpu::plus<T>(), ctx);
    EXPECT_EQ(out.to_host()[0], mgpu_ref::reduce(host, T(3), mgpu::plus<T>()));
  }
}

MGPU_TYPED_TEST(ReduceScanTyped, MaxMinAndLambdaOperators) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const T lowest = std::numeric_limits<T>::lowest();
  auto max_abs_diff = [] MGPU_HOST_DEVICE_LAMBDA(T a, T b) { return a < b ? b : a; };
  for (std::int64_t n : {std::int64_t(1), std::int64_t(4099), std::int64_t(300001)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<T> host = random_vector<T>(n, rng, std::is_signed<T>::value ? -1e6 : 0, 1e6);
    check_scans(ctx, host, lowest, mgpu::maximum<T>());
    check_scans(ctx, host, std::numeric_limits<T>::max(), mgpu::minimum<T>());
    check_scans(ctx, host, lowest, max_abs_diff);

    mgpu::buffer<T> in(host, ctx), out = poisoned<T>(2, ctx);
    mgpu::reduce(in.data(), n, out.data(), lowest, mgpu::maximum<T>(), ctx);
    mgpu::reduce(in.data(), n, out.data() + 1, std::numeric_limits<T>::max(), mgpu::minimum<T>(), ctx);
    std::vector<T> got = out.to_host();
    EXPECT_EQ(got[0], mgpu_ref::reduce(host, lowest, mgpu::maximum<T>()));
    EXPECT_EQ(got[1], mgpu_ref::reduce(host, std::numeric_limits<T>::max(), mgpu::minimum<T>()));
  }
}

// Small tiles make many tiles, so the look-back crosses many windows of 32 predecessors.
MGPU_TYPED_TEST(ReduceScanTyped, ManySmallTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::vector<T> host = small_integers<T>(200003, rng);
  check_scans<mgpu::launch_params<32, 1>>(ctx, host, T(1), mgpu::plus<T>());
  check_scans<mgpu::launch_params<64, 3>>(ctx, host, T(1), mgpu::plus<T>());
  mgpu::buffer<T> in(host, ctx), out = poisoned<T>(1, ctx);
  mgpu::reduce<mgpu::launch_params<32, 1>>(in.data(), std::int64_t(host.size()), out.data(), T(1), mgpu::plus<T>(),
                                           ctx);
  EXPECT_EQ(out.to_host()[0], mgpu_ref::reduce(host, T(1), mgpu::plus<T>()));
}

// Pointers off 16-byte alignment take the shared-memory transposes instead of vector access.
MGPU_TYPED_TEST(ReduceScanTyped, UnalignedArrays) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 3 * mgpu::scan_params<T>::nv + 5;
  std::vector<T> host = small_integers<T>(n + 1, rng);
  mgpu::buffer<T> in(host, ctx), out = poisoned<T>(n + 1, ctx);
  mgpu::exclusive_scan(in.data() + 1, n, out.data() + 1, T(2), mgpu::plus<T>(), ctx);
  std::vector<T> expected =
      mgpu_ref::exclusive_scan(std::vector<T>(host.begin() + 1, host.end()), T(2), mgpu::plus<T>());
  expected.insert(expected.begin(), poison<T>());
  EXPECT_TRUE(same(expected, out.to_host()));
}

// Random real-valued floats: the device adds in another order, so compare with a tolerance
// relative to the sum of magnitudes.
MGPU_TEST(ReduceScan, RandomFloatsWithinRounding) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 1000003;
  std::vector<float> host = random_vector<float>(n, rng, -1.0, 1.0);
  mgpu::buffer<float> in(host, ctx), out(n, ctx), sum(1, ctx);
  mgpu::inclusive_scan(in.data(), n, out.data(), mgpu::plus<>(), ctx);
  mgpu::reduce(in.data(), n, sum.data(), 0.0f, mgpu::plus<>(), ctx);
  std::vector<float> got = out.to_host();
  double exact = 0, magnitude = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    exact += host[std::size_t(i)];
    magnitude += std::fabs(host[std::size_t(i)]);
    ASSERT_NEAR(got[std::size_t(i)], exact, 1e-5 * magnitude + 1e-4) << "i=" << i;
  }
  EXPECT_NEAR(sum.to_host()[0], exact, 1e-5 * magnitude);
}

// Composition of affine maps is associative but not commutative: any reordering shows.
MGPU_TEST(ReduceScan, NonCommutativeScanCombinesInOrder) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(mgpu::scan_params<affine>::nv)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<affine> host(static_cast<std::size_t>(n));
    for (affine& f : host) f = affine{unsigned(rng()) | 1u, unsigned(rng())};
    check_scans(ctx, host, affine{1, 0}, compose());
    check_scans<mgpu::launch_params<32, 2>>(ctx, host, affine{3, 5}, compose());
  }
}

MGPU_TEST(ReduceScan, UserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto add = [] MGPU_HOST_DEVICE_LAMBDA(pair_value a, pair_value b) {
    return pair_value{a.key + b.key, a.weight + b.weight};
  };
  for (std::int64_t n : sizes_for(mgpu::scan_params<pair_value>::nv)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<pair_value> host(static_cast<std::size_t>(n));
    for (pair_value& p : host) p = pair_value{int(rng() % 1000) - 500, float(int(rng() % 5) - 2)};
    check_scans(ctx, host, pair_value{7, 1.0f}, add);
    mgpu::buffer<pair_value> in(host, ctx), out = poisoned<pair_value>(1, ctx);
    mgpu::reduce(in.data(), n, out.data(), pair_value{7, 1.0f}, add, ctx);
    EXPECT_EQ(out.to_host()[0], mgpu_ref::reduce(host, pair_value{7, 1.0f}, add));
  }
}

MGPU_TEST(ReduceScan, InPlaceScan) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::vector<int> host = small_integers<int>(123457, rng);
  mgpu::buffer<int> data(host, ctx);
  mgpu::exclusive_scan(data.data(), data.size(), data.data(), 0, mgpu::plus<>(), ctx);
  EXPECT_TRUE(same(mgpu_ref::exclusive_scan(host, 0, mgpu::plus<>()), data.to_host()));
}

// Iterator inputs and outputs, and the transform_ forms that fuse a map into the load.
MGPU_TEST(ReduceScan, IteratorsAndTransforms) {
  mgpu::context ctx;
  const std::int64_t n = 77777;
  auto twice = [] MGPU_HOST_DEVICE_LAMBDA(int x) { return 2 * (long long)x; };
  std::vector<long long> doubled(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) doubled[std::size_t(i)] = 2 * i;

  mgpu::buffer<long long> out = poisoned<long long>(n, ctx), sum = poisoned<long long>(1, ctx);
  mgpu::transform_exclusive_scan(mgpu::make_counting_iterator(0), n, out.data(), 10ll, mgpu::plus<>(), twice, ctx);
  EXPECT_TRUE(same(mgpu_ref::exclusive_scan(doubled, 10ll, mgpu::plus<>()), out.to_host()));

  out = poisoned<long long>(n, ctx);
  mgpu::transform_inclusive_scan(mgpu::make_counting_iterator(0), n, out.data(), mgpu::plus<>(), twice, ctx);
  EXPECT_TRUE(same(mgpu_ref::inclusive_scan(doubled, mgpu::plus<>()), out.to_host()));

  mgpu::transform_inclusive_scan(mgpu::make_counting_iterator(0), n, mgpu::discard_iterator(), mgpu::plus<>(), twice,
                                 sum.data(), ctx);
  EXPECT_EQ(sum.to_host()[0], n * (n - 1));
  mgpu::transform_exclusive_scan(mgpu::make_counting_iterator(0), n, mgpu::discard_iterator(), 7ll, mgpu::plus<>(),
                                 twice, sum.data(), ctx);
  EXPECT_EQ(sum.to_host()[0], 7 + n * (n - 1));

  mgpu::transform_reduce(mgpu::make_counting_iterator(0), n, sum.data(), 10ll, mgpu::plus<>(), twice, ctx);
  EXPECT_EQ(sum.to_host()[0], 10 + n * (n - 1));

  // Results can go to a discard iterator (only the total is wanted).
  mgpu::exclusive_scan(mgpu::make_constant_iterator(1), n, mgpu::discard_iterator(), 0, mgpu::plus<>(), sum.data(),
                       ctx);
  EXPECT_EQ(sum.to_host()[0], n);
}

MGPU_TEST(ReduceScan, EmptyInputs) {
  mgpu::context ctx;
  mgpu::buffer<int> in(0, ctx), out = poisoned<int>(1, ctx), total = poisoned<int>(1, ctx);
  mgpu::reduce(in.data(), 0, out.data(), 9, mgpu::plus<>(), ctx);
  EXPECT_EQ(out.to_host()[0], 9);
  mgpu::exclusive_scan(in.data(), 0, in.data(), 5, mgpu::plus<>(), total.data(), ctx);
  EXPECT_EQ(total.to_host()[0], 5);
  total = poisoned<int>(1, ctx);
  mgpu::inclusive_scan(in.data(), 0, in.data(), mgpu::plus<>(), total.data(), ctx);
  EXPECT_EQ(total.to_host()[0], poison<int>()) << "an empty inclusive scan has no total to write";
}

// Invalid arguments throw std::invalid_argument before any work, and outputs stay untouched.
MGPU_TEST(ReduceScan, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  std::vector<int> host(1000, 1);
  mgpu::buffer<int> in(host, ctx), out = poisoned<int>(1000, ctx);
  int* o = out.data();
  int* null = nullptr;
  auto plus = mgpu::plus<>();
  auto expect_invalid = [&](auto call, const char* function, const char* parameter) {
    try {
      call();
      ADD_FAILURE() << function << " accepted a bad '" << parameter << "'";
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(function), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("'") + parameter + "'"), std::string::npos) << what;
    }
  };
  expect_invalid([&] { mgpu::reduce(in.data(), -1, o, 0, plus, ctx); }, "mgpu::reduce", "count");
  expect_invalid([&] { mgpu::reduce(null, 10, o, 0, plus, ctx); }, "mgpu::reduce", "input");
  expect_invalid([&] { mgpu::reduce(in.data(), 10, null, 0, plus, ctx); }, "mgpu::reduce", "output");
  expect_invalid([&] { mgpu::exclusive_scan(in.data(), -3, o, 0, plus, ctx); }, "mgpu::exclusive_scan", "count");
  expect_invalid([&] { mgpu::exclusive_scan(null, 3, o, 0, plus, ctx); }, "mgpu::exclusive_scan", "input");
  expect_invalid([&] { mgpu::inclusive_scan(in.data(), 3, null, plus, ctx); }, "mgpu::inclusive_scan", "output");
  expect_invalid([&] { mgpu::inclusive_scan(o, 500, o + 1, plus, ctx); }, "mgpu::inclusive_scan", "output");
  expect_invalid([&] { mgpu::exclusive_scan(o + 10, 500, o, 0, plus, ctx); }, "mgpu::exclusive_scan", "output");
  EXPECT_TRUE(same(std::vector<int>(1000, poison<int>()), out.to_host()));
}

// 64-bit counts: more than 2^31 elements. The reduction runs on both backends (about a second
// on the simulator); the scans only on the GPU, where they take milliseconds (on the simulator,
// minutes).
MGPU_TEST(ReduceScan, MoreThan2To31Elements) {
  mgpu::context ctx;
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  mgpu::buffer<long long> sum = poisoned<long long>(1, ctx);
  mgpu::reduce(mgpu::make_step_iterator<long long>(0, 1), n, sum.data(), 0ll, mgpu::plus<>(), ctx);
  EXPECT_EQ(sum.to_host()[0], n * (n - 1) / 2);
#if defined(MGPU_BACKEND_CUDA)
  // uint8 sums wrap mod 256, so an exclusive scan of ones gives output[i] == i mod 256; checked
  // on the device.

  mgpu::buffer<std::uint8_t> out(n, ctx);
  mgpu::buffer<unsigned long long> wrong(std::vector<unsigned long long>{0}, ctx), total(1, ctx);
  mgpu::exclusive_scan(mgpu::make_constant_iterator<std::uint8_t>(1), n, out.data(), std::uint8_t(0),
                       mgpu::plus<std::uint8_t>(), ctx);
  const std::uint8_t* o = out.data();
  unsigned long long* w = wrong.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        if (o[i] != std::uint8_t(i)) atomicAdd(w, 1ull);
      },
      n, ctx);
  EXPECT_EQ(wrong.to_host()[0], 0ull);
  mgpu::inclusive_scan(mgpu::make_constant_iterator<long long>(1), n, mgpu::discard_iterator(), mgpu::plus<>(),
                       total.data(), ctx);
  EXPECT_EQ((long long)total.to_host()[0], n);
#endif
}

// Issue 20: an input of at most one tile costs one launch and nothing else (no zeroing, no
// temporaries); past one tile a scan adds its look-back state and the kernel that zeroes it
// (a kernel, not a memset: detail::zero_bytes), a reduce its per-CTA partials and the launch
// that folds them.
MGPU_TEST(ReduceScan, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t scan_nv = mgpu::scan_params<int>::nv, reduce_nv = mgpu::reduce_params<int>::nv;
  mgpu::buffer<int> in(2 * scan_nv, ctx), out(2 * scan_nv, ctx), total(1, ctx);
  in.fill(1);
  const int* i = in.data();
  int *o = out.data(), *t = total.data();
  for (std::int64_t n : {std::int64_t(1), scan_nv}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::exclusive_scan(i, n, o, 0, mgpu::plus<int>(), t, c); }),
              one_launch);
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::inclusive_scan(i, n, o, mgpu::plus<int>(), c); }),
              one_launch);
  }
  for (std::int64_t n : {std::int64_t(1), reduce_nv})
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::reduce(i, n, t, 0, mgpu::plus<int>(), c); }), one_launch)
        << "n = " << n;
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::inclusive_scan(i, scan_nv + 1, o, mgpu::plus<int>(), c); }),
            (enqueued{2, 0, 0, 1}));
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::reduce(i, reduce_nv + 1, t, 0, mgpu::plus<int>(), c); }),
            (enqueued{2, 0, 0, 1}));
}
