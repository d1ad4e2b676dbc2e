// Core: context, buffer, transform, cta_launch, iterators, operators, argument checks.
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mgpu_test;

MGPU_TEST(Context, DescribesItsDevice) {
  mgpu::context ctx;
  EXPECT_FALSE(ctx.props().name.empty());
  EXPECT_GT(ctx.props().sm_count, 0);
  EXPECT_GE(ctx.props().arch, 50);
  EXPECT_FALSE(ctx.checked());
  ctx.set_checked(true);
  EXPECT_TRUE(ctx.checked());
}

MGPU_TEST(Context, AllocatesStreamOrderedTemporaries) {
  mgpu::context ctx;
  EXPECT_EQ(ctx.allocate(0), nullptr);
  void* p = ctx.allocate(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
  ctx.deallocate(p, 1000);
  ctx.synchronize();
}

// A user allocator sees every temporary of the algorithms that run on its context.
struct counting_allocator : mgpu::allocator {
  mgpu::pool_allocator inner{mgpu::platform::current_device()};
  int live = 0, total = 0;
  void* allocate(std::size_t bytes, mgpu::stream_t s) override {
    ++live, ++total;
    return inner.allocate(bytes, s);
  }
  void deallocate(void* p, std::size_t bytes, mgpu::stream_t s) override {
    --live;
    inner.deallocate(p, bytes, s);
  }
};

MGPU_TEST(Context, UsesAPluggedInAllocator) {
  auto alloc = std::make_shared<counting_allocator>();
  {
    mgpu::context owner;  // borrow a real stream for the second context
    mgpu::context ctx(owner.stream(), alloc);
    mgpu::buffer<int> in(std::vector<int>(100000, 1), ctx), out(1, ctx);
    mgpu::reduce(in.data(), in.size(), out.data(), 0, mgpu::plus<>(), ctx);
    EXPECT_EQ(out.to_host()[0], 100000);
  }
  EXPECT_GE(alloc->total, 3);  // two buffers and the reduction's partials
  EXPECT_EQ(alloc->live, 0);
}

// The stack discipline, on a region that is never touched (host memory stands in for it).
MGPU_TEST(Context, WorkspaceAllocatorHandsOutAStack) {
  std::vector<unsigned char> region(4096);
  unsigned char* base = region.data();
  mgpu::workspace_allocator w(base, region.size());
  void* a = w.allocate(100, nullptr);
  void* b = w.allocate(1000, nullptr);
  EXPECT_EQ(a, base);
  EXPECT_EQ(b, base + 256);  // 256-byte aligned
  EXPECT_EQ(w.used(), std::size_t(1256));
  w.deallocate(a, 100, nullptr);  // not the top: kept until b comes back
  EXPECT_EQ(w.used(), std::size_t(1256));
  EXPECT_EQ(w.allocate(10, nullptr), base + 1280);
  EXPECT_THROW(w.allocate(4000, nullptr), std::bad_alloc);  // no fallback
  w.deallocate(base + 1280, 10, nullptr);
  w.deallocate(b, 1000, nullptr);
  EXPECT_EQ(w.used(), std::size_t(0));
  EXPECT_EQ(w.allocate(4096, nullptr), base);  // all of it, once everything came back
}

// Calls on a context whose temporaries come from a workspace: the same results, the workspace
// empty again after each call, requests past its end served by the fallback.
MGPU_TEST(Context, WorkspaceAllocatorServesTheAlgorithms) {
  mgpu::context pool_ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 5 * mgpu::scan_params<int>::nv + 3;
  std::vector<int> host = small_integers<int>(n, rng);
  std::vector<int> expected(host.size());
  std::exclusive_scan(host.begin(), host.end(), expected.begin(), 0);
  for (std::size_t bytes : {std::size_t(1) << 20, std::size_t(16)}) {
    SCOPED_TRACE("workspace of " + std::to_string(bytes) + " bytes");
    mgpu::buffer<unsigned char> region(std::int64_t(bytes), pool_ctx);
    pool_ctx.synchronize();
    auto w = std::make_shared<mgpu::workspace_allocator>(
        region.data(), bytes, std::make_shared<mgpu::pool_allocator>(mgpu::platform::current_device()));
    mgpu::context ctx(pool_ctx.stream(), w);
    mgpu::buffer<int> in(host, ctx), out(n, ctx), total(1, ctx);
    mgpu::exclusive_scan(in.data(), n, out.data(), 0, mgpu::plus<int>(), ctx);
    mgpu::reduce(in.data(), n, total.data(), 0, mgpu::plus<int>(), ctx);
    EXPECT_TRUE(same(expected, out.to_host()));
    EXPECT_EQ(total.to_host()[0], std::accumulate(host.begin(), host.end(), 0));
    mgpu::mergesort(in.data(), n, mgpu::less<>(), ctx);
    std::sort(host.begin(), host.end());
    EXPECT_TRUE(same(host, in.to_host()));
    std::exclusive_scan(host.begin(), host.end(), expected.begin(), 0);  // (host is sorted now)
    ctx.synchronize();
  }
}

MGPU_TEST(Buffer, RoundTripsAndFills) {
  mgpu::context ctx;
  std::vector<double> host{1.5, -2.0, 3.25, 7.0};
  mgpu::buffer<double> b(host, ctx);
  EXPECT_EQ(b.size(), 4);
  EXPECT_EQ(b.to_host(), host);
  b.fill(0.5);
  EXPECT_EQ(b.to_host(), std::vector<double>(4, 0.5));
  mgpu::buffer<double> moved = std::move(b);
  EXPECT_EQ(moved.size(), 4);
  EXPECT_EQ(b.data(), nullptr);
  mgpu::buffer<int> empty(0, ctx);
  EXPECT_TRUE(empty.to_host().empty());
}

MGPU_TEST(Buffer, RejectsBadCounts) {
  mgpu::context ctx;
  EXPECT_THROW(mgpu::buffer<int>(-1, ctx), std::invalid_argument);
  mgpu::buffer<int> b(4, ctx);
  std::vector<int> host(8);
  EXPECT_THROW(b.to_device(host.data(), 8), std::invalid_argument);
}

// Every index in [0, count) is visited exactly once: the output starts poisoned and counts visits.
MGPU_TEST(Transform, VisitsEveryIndexOnce) {
  mgpu::context ctx;
  using params = mgpu::launch_params<64, 3>;
  for (std::int64_t n : sizes_for(params::nv)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    mgpu::buffer<int> visits(std::vector<int>(std::size_t(n), 0), ctx);
    int* v = visits.data();
    mgpu::transform<params>([=] MGPU_LAMBDA(std::int64_t i, int k) { atomicAdd(v + i, k); }, n, ctx, 1);
    EXPECT_TRUE(same(std::vector<int>(std::size_t(n), 1), visits.to_host()));
  }
}

MGPU_TEST(CtaLaunch, RunsEveryThreadOfEveryCta) {
  mgpu::context ctx;
  const int num_ctas = 37;
  mgpu::buffer<int> out = poisoned<int>(num_ctas * 96, ctx);
  int* o = out.data();
  mgpu::cta_launch<96>([=] MGPU_LAMBDA(int tid, int cta, int scale) { o[cta * 96 + tid] = scale * (cta * 1000 + tid); },
                       num_ctas, ctx, 2);
  std::vector<int> expected(num_ctas * 96);
  for (int c = 0; c < num_ctas; ++c)
    for (int t = 0; t < 96; ++t) expected[std::size_t(c * 96 + t)] = 2 * (c * 1000 + t);
  EXPECT_TRUE(same(expected, out.to_host()));
  EXPECT_THROW(mgpu::cta_launch<32>([=] MGPU_LAMBDA(int, int) {}, -1, ctx), std::invalid_argument);
  mgpu::cta_launch<32>([=] MGPU_LAMBDA(int, int) {}, 0, ctx);  // no CTAs: nothing runs, no error
}

// One wave of CTAs visits every tile exactly once, and the barrier between a CTA's tiles lets each
// tile reuse the shared storage: every thread must read back its own tile's number.
MGPU_TEST(CtaLaunch, TilesVisitsEveryTileOnceWithOneWave) {
  mgpu::context ctx;
  for (int tiles : {0, 1, 5, 3000}) {
    SCOPED_TRACE("tiles=" + std::to_string(tiles));
    mgpu::buffer<int> visits(std::vector<int>(std::size_t(tiles) + 1, 0), ctx);
    mgpu::buffer<int> mismatches(std::vector<int>(1, 0), ctx);
    int* v = visits.data();
    int* bad = mismatches.data();
    mgpu::cta_launch_tiles<mgpu::launch_params<512, 1>>(
        [=] MGPU_LAMBDA(int tid, int tile, int k) {
          __shared__ int owner;
          if (tid == 0) owner = tile;
          __syncthreads();
          if (owner != tile) atomicAdd(bad, 1);
          if (tid == 511) atomicAdd(v + tile, k);
        },
        tiles, ctx, 1);
    std::vector<int> once(std::size_t(tiles), 1);
    once.push_back(0);
    EXPECT_TRUE(same(once, visits.to_host()));
    EXPECT_EQ(0, mismatches.to_host()[0]);
  }
  using small = mgpu::launch_params<32, 1>;
  EXPECT_THROW(mgpu::cta_launch_tiles<small>([=] MGPU_LAMBDA(int, int) {}, -1, ctx), std::invalid_argument);
}

// Only the listed tiles run, each once, and the list's length is read on the device: the last
// entries of the host-side array, past that length, must not run.
MGPU_TEST(CtaLaunch, ListedTilesRunsOnlyTheListedOnes) {
  mgpu::context ctx;
  const int tiles = 2000;
  std::vector<int> list;
  for (int t = tiles - 1; t >= 0; t -= 3) list.push_back(t);  // any order
  const int used = int(list.size()) - 5;
  mgpu::buffer<int> listed(list, ctx), num_listed(std::vector<int>(1, used), ctx);
  mgpu::buffer<int> visits(std::vector<int>(tiles, 0), ctx);
  int* v = visits.data();
  mgpu::cta_launch_listed_tiles<mgpu::launch_params<512, 1>>(
      [=] MGPU_LAMBDA(int tid, int tile) {
        if (tid == 0) atomicAdd(v + tile, 1);
      },
      listed.data(), num_listed.data(), int(list.size()), ctx);
  std::vector<int> expected(tiles, 0);
  for (int i = 0; i < used; ++i) expected[std::size_t(list[std::size_t(i)])] = 1;
  EXPECT_TRUE(same(expected, visits.to_host()));
}

MGPU_TEST(Iterators, ComputeTheirValues) {
  mgpu::context ctx;
  const std::int64_t n = 1000;
  mgpu::buffer<long long> out = poisoned<long long>(6 * n, ctx);
  long long* o = out.data();
  auto counting = mgpu::make_counting_iterator<long long>(5);
  auto step = mgpu::make_step_iterator<long long>(-3, 7);
  auto constant = mgpu::make_constant_iterator<long long>(42);
  auto squares = mgpu::make_transform_iterator(counting, [] MGPU_HOST_DEVICE_LAMBDA(long long x) { return x * x; });
  auto loaded = mgpu::make_load_iterator([] MGPU_HOST_DEVICE_LAMBDA(std::int64_t i) { return (long long)(3 * i + 1); });
  auto stored =
      mgpu::make_store_iterator([=] MGPU_HOST_DEVICE_LAMBDA(long long v, std::int64_t i) { o[5 * n + i] = -v; });
  mgpu::discard_iterator discard;
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        o[i] = counting[i];
        o[n + i] = (step + 2)[i - 2];
        o[2 * n + i] = constant[i];
        o[3 * n + i] = squares[i];
        o[4 * n + i] = loaded[i];
        stored[i] = i;
        discard[i] = i;
      },
      n, ctx);
  std::vector<long long> host = out.to_host();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(host[std::size_t(i)], 5 + i);
    ASSERT_EQ(host[std::size_t(n + i)], -3 + 7 * i);
    ASSERT_EQ(host[std::size_t(2 * n + i)], 42);
    ASSERT_EQ(host[std::size_t(3 * n + i)], (5 + i) * (5 + i));
    ASSERT_EQ(host[std::size_t(4 * n + i)], 3 * i + 1);
    ASSERT_EQ(host[std::size_t(5 * n + i)], -i);
  }
}

MGPU_TEST(Types, CeilLog2UpToTheLargestCount) {
  EXPECT_EQ(mgpu::ceil_log2(1), 0);
  EXPECT_EQ(mgpu::ceil_log2(2), 1);
  EXPECT_EQ(mgpu::ceil_log2(3), 2);
  EXPECT_EQ(mgpu::ceil_log2(std::int64_t(1) << 40), 40);
  EXPECT_EQ(mgpu::ceil_log2((std::int64_t(1) << 62) + 1), 63);  // looped forever (1 << 63 overflowed)
  EXPECT_EQ(mgpu::ceil_log2(std::numeric_limits<std::int64_t>::max()), 63);
}

MGPU_TEST(Operators, MatchTheirStandardMeanings) {
  EXPECT_EQ(mgpu::plus<int>()(3, 4), 7);
  EXPECT_EQ(mgpu::multiplies<>()(3, 4), 12);
  EXPECT_EQ(mgpu::minimum<>()(3, -4), -4);
  EXPECT_EQ(mgpu::maximum<double>()(3.0, -4.0), 3.0);
  EXPECT_EQ(mgpu::bit_and<>()(6u, 3u), 2u);
  EXPECT_EQ(mgpu::bit_or<>()(6u, 3u), 7u);
  EXPECT_EQ(mgpu::bit_xor<>()(6u, 3u), 5u);
  EXPECT_TRUE(mgpu::less<>()(1, 2));
  EXPECT_FALSE(mgpu::less<>()(2, 2));
  EXPECT_TRUE(mgpu::greater<>()(3, 2));
  EXPECT_TRUE(mgpu::less_equal<>()(2, 2));
  EXPECT_TRUE(mgpu::greater_equal<>()(2, 2));
  EXPECT_TRUE(mgpu::equal_to<>()(2, 2));
  EXPECT_TRUE(mgpu::not_equal_to<>()(2, 3));
}

namespace {
// A type with one comparison operator each: the std-named operators must use exactly that one.
struct only_greater {
  int v;
  MGPU_HOST_DEVICE friend bool operator>(const only_greater& a, const only_greater& b) { return a.v > b.v; }
};
struct only_comparisons {
  int v;
  MGPU_HOST_DEVICE friend bool operator<=(const only_comparisons& a, const only_comparisons& b) { return a.v <= b.v; }
  MGPU_HOST_DEVICE friend bool operator>=(const only_comparisons& a, const only_comparisons& b) { return a.v >= b.v; }
  MGPU_HOST_DEVICE friend bool operator!=(const only_comparisons& a, const only_comparisons& b) { return a.v != b.v; }
};
}  // namespace

MGPU_TEST(Operators, UseTheOperatorTheirNameSays) {
  EXPECT_TRUE(mgpu::greater<>()(only_greater{3}, only_greater{2}));
  EXPECT_FALSE(mgpu::greater<only_greater>()(only_greater{2}, only_greater{2}));
  EXPECT_TRUE(mgpu::less_equal<>()(only_comparisons{2}, only_comparisons{2}));
  EXPECT_FALSE(mgpu::greater_equal<>()(only_comparisons{1}, only_comparisons{2}));
  EXPECT_TRUE(mgpu::not_equal_to<>()(only_comparisons{1}, only_comparisons{2}));
  // Sorting descending by greater<> needs nothing but operator>.
  mgpu::context ctx;
  std::vector<only_greater> keys{{5}, {1}, {4}, {1}, {3}};
  mgpu::buffer<only_greater> d(keys, ctx);
  mgpu::mergesort(d.data(), 5, mgpu::greater<>(), ctx);
  std::vector<int> sorted;
  for (only_greater k : d.to_host()) sorted.push_back(k.v);
  EXPECT_EQ(sorted, (std::vector<int>{5, 4, 3, 1, 1}));
}

MGPU_TEST(Checks, NameTheFunctionAndTheParameter) {
  mgpu::context ctx;
  try {
    mgpu::transform([=] MGPU_LAMBDA(std::int64_t) {}, -5, ctx);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("mgpu::transform"), std::string::npos) << what;
    EXPECT_NE(what.find("'count'"), std::string::npos) << what;
    EXPECT_NE(what.find("-5"), std::string::npos) << what;
  }
}
