// locality_sort (keys, pairs) against std::stable_sort: nearly sorted inputs (keys displaced
// locally), random, sorted, reversed, all equal; stability through values; small tiles for many
// levels; bad arguments.
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

namespace {

// Sorted keys (with duplicates), then `fraction` of them swapped with a key at most `reach`
// positions away.
std::vector<int> nearly_sorted(std::int64_t n, double fraction, int reach, std::mt19937_64& rng) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = int(i / 3);
  std::uniform_int_distribution<std::int64_t> where(0, n - 1), step(-reach, reach);
  for (std::int64_t swaps = std::int64_t(fraction * double(n)); swaps > 0; --swaps) {
    std::int64_t i = where(rng), j = std::min(n - 1, std::max<std::int64_t>(0, i + step(rng)));
    std::swap(v[std::size_t(i)], v[std::size_t(j)]);
  }
  return v;
}

template <typename params = void, typename K, typename Comp>
void check_locality_sort(mgpu::context& ctx, const std::vector<K>& keys, Comp comp) {
  SCOPED_TRACE("n=" + std::to_string(keys.size()));
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, comp);
  std::vector<K> sorted = mgpu_ref::permute(keys, order);
  mgpu::buffer<K> k(keys, ctx);
  mgpu::locality_sort<params>(k.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k.to_host())) << "keys";
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) positions[std::size_t(i)] = i;
  mgpu::buffer<K> k2(keys, ctx);
  mgpu::buffer<std::int64_t> v(positions, ctx);
  mgpu::locality_sort<params>(k2.data(), v.data(), n, comp, ctx);
  EXPECT_TRUE(same(sorted, k2.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(order, v.to_host())) << "pairs: values (stability)";
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

MGPU_TEST(LocalitySort, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> keys(std::vector<int>{3, 2, 1}, ctx);
  int* null = nullptr;
  EXPECT_THROW(mgpu::locality_sort(keys.data(), -1, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::locality_sort(null, 3, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::locality_sort(keys.data(), keys.data(), 3, mgpu::less<>(), ctx), std::invalid_argument);
  EXPECT_TRUE(same(std::vector<int>{3, 2, 1}, keys.to_host()));
}
