// locality_sort (keys, pairs) against std::stable_sort: nearly sorted inputs (keys displaced
// locally), random, sorted, reversed, all equal; stability through values; small tiles for many
// levels; the mergesort below mergesort_below_bytes; bad arguments.
#include "references/merge_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace mgpu_test;

namespace {

// Position i as a value of type V (a pair_value records it in both fields).
template <typename V>
V value_at(std::int64_t i) {
  if constexpr (std::is_same<V, pair_value>::value)
    return pair_value{int(i), -float(i)};
  else
    return V(i);
}

// The default shapes with the locality path at every size: what these tests are about (below 16
// MiB the default is a mergesort, tested as such).
template <typename K, typename V = mgpu::empty_t>
using locality_path = mgpu::locality_sort_params<K, V, 0>;

// Keys only, then pairs whose values (of type V) record the original positions. No params: the
// default shapes on the locality path.
template <typename params = void, typename V = std::int64_t, typename K, typename Comp>
void check_locality_sort(mgpu::context& ctx, const std::vector<K>& keys, Comp comp) {
  using keys_params = std::conditional_t<std::is_void<params>::value, locality_path<K>, params>;
  using pairs_params = std::conditional_t<std::is_void<params>::value, locality_path<K, V>, params>;
  SCOPED_TRACE("n=" + std::to_string(keys.size()));
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, comp);
  std::vector<K> sorted = mgpu_ref::permute(keys, order);
  mgpu::buffer<K> k(keys, ctx);
  mgpu::locality_sort<keys_params>(k.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k.to_host())) << "keys";
  std::vector<V> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = value_at<V>(i);
  mgpu::buffer<K> k2(keys, ctx);
  mgpu::buffer<V> v(positions, ctx);
  mgpu::locality_sort<pairs_params>(k2.data(), v.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k2.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(mgpu_ref::permute(positions, order), v.to_host())) << "pairs: values (stability)";
}

}  // namespace

MGPU_TEST(LocalitySort, NearlySortedInputs) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : sizes_for(mgpu::locality_sort_params<int>::nv, 300007)) {
    check_locality_sort(ctx, nearly_sorted(n, 0.01, 64, rng), mgpu::less<int>());
    check_locality_sort(ctx, nearly_sorted(n, 0.2, 3000, rng), mgpu::less<int>());
  }
}

MGPU_TEST(LocalitySort, AnyInput) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 100003;
  std::vector<int> random = random_vector<int>(n, rng, 0, 1000), ascending(static_cast<std::size_t>(n)),
                   descending(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ascending[std::size_t(i)] = int(i), descending[std::size_t(i)] = int(n - i);
  check_locality_sort(ctx, random, mgpu::less<int>());
  check_locality_sort(ctx, random, mgpu::greater<int>());
  check_locality_sort(ctx, ascending, mgpu::less<int>());
  check_locality_sort(ctx, descending, mgpu::less<int>());
  check_locality_sort(ctx, std::vector<int>(static_cast<std::size_t>(n), 4), mgpu::less<int>());
  check_locality_sort(ctx, random_vector<double>(n, rng, -1, 1), mgpu::less<double>());
}

MGPU_TEST(LocalitySort, ManyLevelsWithSmallTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  check_locality_sort<small>(ctx, nearly_sorted(20011, 0.05, 200, rng), mgpu::less<int>());
  check_locality_sort<small>(ctx, random_vector<int>(20011, rng, 0, 50), mgpu::less<int>());
}

// Below mergesort_below_bytes of keys (and values) the call is the mergesort, launch for launch;
// from there on the locality path. Both sides of a small limit, and the default's small side.
MGPU_TEST(LocalitySort, MergesortBelowTheLimit) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  constexpr std::int64_t limit_keys = 3 * mgpu::locality_sort_params<int>::nv + 7;
  using keys_limit = mgpu::locality_sort_params<int, mgpu::empty_t, 4 * limit_keys>;
  using pairs_limit = mgpu::locality_sort_params<int, std::int64_t, 12 * limit_keys>;
  for (std::int64_t n : {limit_keys - 1, limit_keys}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const bool merged = n < limit_keys;
    std::vector<int> keys = nearly_sorted(n, 0.05, 300, rng);
    std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = i;
    std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, mgpu::less<int>());
    mgpu::buffer<int> k(keys, ctx), k2(keys, ctx);
    mgpu::buffer<std::int64_t> v(positions, ctx);
    int* kp = k.data();
    int* k2p = k2.data();
    std::int64_t* vp = v.data();
    // (count_enqueued runs the calls on the simulator: the inputs go up again before the checked ones.)
    auto sort_keys = [&](mgpu::context& c) { mgpu::locality_sort<keys_limit>(kp, n, mgpu::less<int>(), c); };
    auto sort_pairs = [&](mgpu::context& c) { mgpu::locality_sort<pairs_limit>(k2p, vp, n, mgpu::less<int>(), c); };
    enqueued as_mergesort = count_enqueued([&](mgpu::context& c) { mgpu::mergesort(kp, n, mgpu::less<int>(), c); });
    enqueued pairs_as_mergesort =
        count_enqueued([&](mgpu::context& c) { mgpu::mergesort(k2p, vp, n, mgpu::less<int>(), c); });
    EXPECT_EQ(merged, count_enqueued(sort_keys) == as_mergesort);
    EXPECT_EQ(merged, count_enqueued(sort_pairs) == pairs_as_mergesort);
    k.to_device(keys.data(), n);
    k2.to_device(keys.data(), n);
    v.to_device(positions.data(), n);
    sort_keys(ctx);
    sort_pairs(ctx);
    EXPECT_TRUE(same(mgpu_ref::permute(keys, order), k.to_host()));
    EXPECT_TRUE(same(mgpu_ref::permute(keys, order), k2.to_host()));
    EXPECT_TRUE(same(order, v.to_host()));
  }
  // The default limit (16 MiB) is far above this size: the default call is the mergesort.
  const std::int64_t n = 100003;
  mgpu::buffer<int> k(nearly_sorted(n, 0.01, 64, rng), ctx);
  int* kp = k.data();
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::locality_sort(kp, n, mgpu::less<int>(), c); }),
            count_enqueued([&](mgpu::context& c) { mgpu::mergesort(kp, n, mgpu::less<int>(), c); }));
  EXPECT_FALSE(count_enqueued([&](mgpu::context& c) {
                 mgpu::locality_sort<locality_path<int>>(kp, n, mgpu::less<int>(), c);
               }) == count_enqueued([&](mgpu::context& c) { mgpu::mergesort(kp, n, mgpu::less<int>(), c); }));
}

MGPU_TEST(LocalitySort, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> keys(std::vector<int>{3, 2, 1}, ctx);
  int* null = nullptr;
  EXPECT_THROW(mgpu::locality_sort(keys.data(), -1, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::locality_sort(null, 3, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::locality_sort(keys.data(), keys.data(), 3, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_TRUE(same(std::vector<int>{3, 2, 1}, keys.to_host()));
}

namespace {

// Order-preserving maps of the small non-negative ints of nearly_sorted into each key type,
// away from zero: past 2^31 for uint32, past 2^32 for int64, negative and fractional for float.
template <typename T>
std::vector<T> as_keys(const std::vector<int>& v) {
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same<T, std::uint32_t>::value)
      out[i] = 0x7fffff00u + std::uint32_t(v[i]);
    else if constexpr (std::is_same<T, std::int64_t>::value)
      out[i] = (std::int64_t(v[i]) - 1000) * (std::int64_t(1) << 33);
    else
      out[i] = T(v[i]) * T(0.25) - T(500);
  }
  return out;
}

}  // namespace

template <typename T>
class LocalitySortTyped : public ::testing::Test {};
using locality_key_types = test_types<std::uint32_t, std::int64_t, float>;
TYPED_TEST_SUITE(LocalitySortTyped, locality_key_types);

// Nearly sorted and random keys of each type around tile boundaries and over a few tiles, keys only
// and pairs with 8-byte and 4-byte values (different default tiles), less and greater.
MGPU_TYPED_TEST(LocalitySortTyped, MatchesStableSort) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t nv = mgpu::locality_sort_params<T>::nv, nv_pairs = mgpu::locality_sort_params<T, std::int64_t>::nv;
  for (std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(2), nv_pairs - 1, nv_pairs, nv - 1, nv, nv + 1, 6 * nv + 5}) {
    check_locality_sort(ctx, as_keys<T>(nearly_sorted(n, 0.02, 100, rng)), mgpu::less<T>());
    check_locality_sort<void, int>(ctx, as_keys<T>(nearly_sorted(n, 0.2, 2000, rng)), mgpu::less<T>());
    std::vector<T> random = as_keys<T>(random_vector<int>(n, rng, 0, 300));
    check_locality_sort(ctx, random, mgpu::greater<T>());
    check_locality_sort<void, int>(ctx, random, mgpu::less<T>());
  }
}

// Zeros of both signs are equal keys: only their positions show that the sort is stable.
MGPU_TEST(LocalitySort, FloatSignedZerosAreStable) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 3 * mgpu::locality_sort_params<float>::nv + 11;
  std::vector<float> keys = as_keys<float>(nearly_sorted(n, 0.05, 500, rng));
  for (float& k : keys)
    if (rng() % 4 == 0) k = rng() % 2 ? 0.0f : -0.0f;
  check_locality_sort(ctx, keys, mgpu::less<float>());
  check_locality_sort<void, int>(ctx, keys, mgpu::greater<float>());
}

// A user struct ordered by a lambda on one field (the other records the original position, so
// the keys show stability), nearly sorted and random; values of the struct type too.
MGPU_TEST(LocalitySort, UserStructWithLambda) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  auto by_key = [] MGPU_HOST_DEVICE_LAMBDA(const pair_value& a, const pair_value& b) { return a.key < b.key; };
  const std::int64_t nv = mgpu::locality_sort_params<pair_value>::nv;
  for (std::int64_t n : {std::int64_t(1), nv, 5 * nv + 3}) {
    std::vector<int> nearly = nearly_sorted(n, 0.05, 300, rng);
    std::vector<pair_value> keys(nearly.size()), random(nearly.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = pair_value{nearly[i], float(i)};
      random[i] = pair_value{int(rng() % 50), float(i)};
    }
    check_locality_sort(ctx, keys, by_key);
    check_locality_sort<void, pair_value>(ctx, random, by_key);
  }
}

MGPU_TEST(LocalitySort, PairsBadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  const std::vector<int> original{3, 2, 1, 0};
  const std::vector<double> original_values{0.5, 1.5, 2.5, 3.5};
  mgpu::buffer<int> keys(original, ctx);
  mgpu::buffer<double> values(original_values, ctx);
  expect_invalid_argument("mgpu::locality_sort", "values", [&] {
    mgpu::locality_sort(keys.data(), static_cast<double*>(nullptr), 4, mgpu::less<>(), ctx);
  });
  expect_invalid_argument("mgpu::locality_sort", "values",
                          [&] { mgpu::locality_sort(keys.data(), keys.data() + 1, 3, mgpu::less<>(), ctx); });
  expect_invalid_argument("mgpu::locality_sort", "keys", [&] {
    mgpu::locality_sort(static_cast<int*>(nullptr), values.data(), 4, mgpu::less<>(), ctx);
  });
  expect_invalid_argument("mgpu::locality_sort", "count",
                          [&] { mgpu::locality_sort(keys.data(), values.data(), -4, mgpu::less<>(), ctx); });
  EXPECT_TRUE(same(original, keys.to_host()));
  EXPECT_TRUE(same(original_values, values.to_host()));
  mgpu::locality_sort(keys.data(), static_cast<double*>(nullptr), 0, mgpu::less<>(), ctx);  // nothing to do
  mgpu::locality_sort(keys.data(), values.data(), 4, mgpu::less<>(), ctx);
  EXPECT_TRUE(same(std::vector<int>{0, 1, 2, 3}, keys.to_host()));
  EXPECT_TRUE(same(std::vector<double>{3.5, 2.5, 1.5, 0.5}, values.to_host()));
}
