// The CTA building blocks of the merge family: merge_path and binary_search (host calls) against
// brute-force definitions, group_search (device, every group width) and merge_path_partitions and
// binary_search_partitions (device) against the same definitions on the host, and user kernels written with cta_launch
// that run cta_sort on tiles, warp_sort on a warp's lanes and odd_even_sort on one thread's
// registers, against std::stable_sort; load_two_lists_to_shared (keys, and key-value lists) and load_rows in each of
// their forms.
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace mgpu_test;

namespace cta_merge_test {

// Temporaries handed out poisoned (every byte 0x5a, so poison<std::int64_t>() for 64-bit words):
// lets the tests see an element of a returned partition buffer that the kernel never wrote.
class poisoning_allocator final : public mgpu::allocator {
 public:
  void* allocate(std::size_t bytes, mgpu::stream_t stream) override {
    void* p = pool_.allocate(bytes, stream);
    mgpu::platform::memset_device(p, 0x5a, bytes, stream);
    return p;
  }
  void deallocate(void* p, std::size_t bytes, mgpu::stream_t stream) override { pool_.deallocate(p, bytes, stream); }

 private:
  mgpu::pool_allocator pool_{mgpu::platform::current_device()};
};

// The definition of merge_path, by brute force: a serial merge of sorted a and b that takes a's
// element on ties (lower) or b's (upper); element d of the result is how many of a's elements the
// first d outputs took, for every d in [0, a.size() + b.size()].
template <mgpu::bounds B, typename T, typename Comp>
std::vector<std::int64_t> brute_merge_paths(const std::vector<T>& a, const std::vector<T>& b, Comp comp) {
  std::vector<std::int64_t> taken_from_a{0};
  std::size_t i = 0, j = 0;
  while (i + j < a.size() + b.size()) {
    bool take_a;
    if (i == a.size())
      take_a = false;
    else if (j == b.size())
      take_a = true;
    else
      take_a = B == mgpu::bounds::lower ? !comp(b[j], a[i]) : comp(a[i], b[j]);
    if (take_a)
      ++i;
    else
      ++j;
    taken_from_a.push_back(std::int64_t(i));
  }
  return taken_from_a;
}

// keys[first, first + count) stably sorted by comp, with the original positions.
template <typename K, typename Comp>
void stable_sort_range(const std::vector<K>& keys, std::int64_t first, std::int64_t count, Comp comp,
                       std::vector<K>& sorted, std::vector<int>& positions) {
  std::vector<int> order(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) order[std::size_t(i)] = int(first + i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return comp(keys[std::size_t(x)], keys[std::size_t(y)]); });
  for (int p : order) {
    sorted.push_back(keys[std::size_t(p)]);
    positions.push_back(p);
  }
}

template <int NT, int VT, typename K>
struct tile_storage {
  union {
    typename mgpu::cta_sort<NT, VT, K, int>::storage_t sort;
    typename mgpu::cta_sort<NT, VT, K>::storage_t sort_keys;
    K keys[NT * VT];
    int values[NT * VT];
  };
};

// A user kernel: each CTA loads one tile of NT * VT keys (the last one partial) in thread order,
// sorts it with cta_sort (pairs whose values are the keys' positions in the input, or keys
// only), and stores it. Outputs are written only at [0, count).
template <int NT, int VT, typename K, typename Comp>
void sort_each_tile(const K* keys_in, std::int64_t count, K* keys_out, int* positions_out, Comp comp,
                    mgpu::context& ctx) {
  using P = mgpu::launch_params<NT, VT>;
  constexpr int NV = NT * VT;
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ mgpu::shared_storage<tile_storage<NT, VT, K>> shared;
    tile_storage<NT, VT, K>& s = shared.get();
    std::int64_t first = std::int64_t(tile) * NV;
    int valid = int(count - first < NV ? count - first : NV);
    mgpu::array_t<K, VT> keys = mgpu::mem_to_reg_thread<NT, VT, K>(keys_in + first, tid, valid, s.keys);
    if (positions_out) {
      mgpu::array_t<int, VT> positions;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) positions[i] = int(first) + VT * tid + i;
      mgpu::cta_sort<NT, VT, K, int>::sort(keys, positions, s.sort, tid, valid, comp);
      mgpu::reg_to_mem_thread<NT, VT>(keys, keys_out + first, tid, valid, s.keys);
      mgpu::reg_to_mem_thread<NT, VT>(positions, positions_out + first, tid, valid, s.values);
    } else {
      mgpu::array_t<mgpu::empty_t, VT> none;
      mgpu::cta_sort<NT, VT, K>::sort(keys, none, s.sort_keys, tid, valid, comp);
      mgpu::reg_to_mem_thread<NT, VT>(keys, keys_out + first, tid, valid, s.keys);
    }
  };
  mgpu::cta_launch<P>(kernel, mgpu::num_tiles<P>(count), ctx);
}

// Sorts tiles of random keys (few distinct values, so stability shows) with sort_each_tile and
// compares each tile with std::stable_sort; `guard` poisoned elements past count must stay so.
template <int NT, int VT, typename K, typename Comp>
void check_tile_sort(mgpu::context& ctx, std::int64_t count, std::int64_t distinct, Comp comp, std::mt19937_64& rng) {
  constexpr int NV = NT * VT;
  SCOPED_TRACE("NT=" + std::to_string(NT) + " VT=" + std::to_string(VT) + " count=" + std::to_string(count) +
               " distinct=" + std::to_string(distinct));
  const std::int64_t guard = 3 * NV;
  std::vector<K> keys = random_keys<K>(count, distinct, rng);
  std::vector<K> expected_keys;
  std::vector<int> expected_positions;
  for (std::int64_t first = 0; first < count; first += NV)
    stable_sort_range(keys, first, std::min<std::int64_t>(NV, count - first), comp, expected_keys, expected_positions);
  expected_keys.resize(std::size_t(count + guard), poison<K>());
  expected_positions.resize(std::size_t(count + guard), poison<int>());

  mgpu::buffer<K> in(keys, ctx), out = poisoned<K>(count + guard, ctx);
  mgpu::buffer<int> positions = poisoned<int>(count + guard, ctx);
  sort_each_tile<NT, VT>(in.data(), count, out.data(), positions.data(), comp, ctx);
  EXPECT_TRUE(same(expected_keys, out.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(expected_positions, positions.to_host())) << "pairs: positions (stability)";
  EXPECT_TRUE(same(keys, in.to_host())) << "input changed";

  mgpu::buffer<K> keys_only = poisoned<K>(count + guard, ctx);
  sort_each_tile<NT, VT>(in.data(), count, keys_only.data(), static_cast<int*>(nullptr), comp, ctx);
  EXPECT_TRUE(same(expected_keys, keys_only.to_host())) << "keys only";
}

// A user kernel: every thread sorts its own VT keys (and their positions) with odd_even_sort,
// only the first `valid` of them, in registers.
template <int VT, typename K, typename Comp>
void sort_each_thread(const K* keys_in, std::int64_t threads, int valid, K* keys_out, int* positions_out, Comp comp,
                      mgpu::context& ctx) {
  using P = mgpu::launch_params<64, 1>;
  auto kernel = [=] MGPU_LAMBDA(int tid, int cta) {
    std::int64_t thread = std::int64_t(cta) * 64 + tid;
    if (thread >= threads) return;
    mgpu::array_t<K, VT> keys;
    mgpu::array_t<int, VT> positions;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      keys[i] = keys_in[VT * thread + i];
      positions[i] = int(VT * thread + i);
    }
    mgpu::odd_even_sort(keys, positions, comp, valid);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      keys_out[VT * thread + i] = keys[i];
      positions_out[VT * thread + i] = positions[i];
    }
  };
  mgpu::cta_launch<P>(kernel, int(mgpu::div_up(threads, std::int64_t(64))), ctx);
}

// Per group of VT keys: the first `valid` stably sorted, the rest where they were.
template <int VT, typename K, typename Comp>
void odd_even_reference(const std::vector<K>& keys, int valid, Comp comp, std::vector<K>& sorted,
                        std::vector<int>& positions) {
  for (std::size_t first = 0; first < keys.size(); first += VT) {
    stable_sort_range(keys, std::int64_t(first), valid, comp, sorted, positions);
    for (std::size_t i = first + std::size_t(valid); i < first + VT; ++i) {
      sorted.push_back(keys[i]);
      positions.push_back(int(i));
    }
  }
}

template <int VT, typename K, typename Comp>
void check_thread_sort(mgpu::context& ctx, std::int64_t threads, int valid, std::int64_t distinct, Comp comp,
                       std::mt19937_64& rng) {
  SCOPED_TRACE("VT=" + std::to_string(VT) + " valid=" + std::to_string(valid) +
               " distinct=" + std::to_string(distinct));
  std::vector<K> keys = random_keys<K>(threads * VT, distinct, rng);
  std::vector<K> expected_keys;
  std::vector<int> expected_positions;
  odd_even_reference<VT>(keys, valid, comp, expected_keys, expected_positions);

  mgpu::buffer<K> in(keys, ctx), out = poisoned<K>(threads * VT, ctx);
  mgpu::buffer<int> positions = poisoned<int>(threads * VT, ctx);
  sort_each_thread<VT>(in.data(), threads, valid, out.data(), positions.data(), comp, ctx);
  EXPECT_TRUE(same(expected_keys, out.to_host())) << "device: keys";
  EXPECT_TRUE(same(expected_positions, positions.to_host())) << "device: positions (stability)";

  // odd_even_sort is host-callable too: the same groups on the host, keys only and pairs.
  std::vector<K> host_keys(keys.size()), host_keys_only(keys.size());
  std::vector<int> host_positions(keys.size());
  for (std::size_t first = 0; first < keys.size(); first += VT) {
    mgpu::array_t<K, VT> k, k2;
    mgpu::array_t<int, VT> p;
    for (int i = 0; i < VT; ++i) {
      k[i] = k2[i] = keys[first + std::size_t(i)];
      p[i] = int(first) + i;
    }
    mgpu::odd_even_sort(k, p, comp, valid);
    mgpu::odd_even_sort(k2, comp, valid);
    for (int i = 0; i < VT; ++i) {
      host_keys[first + std::size_t(i)] = k[i];
      host_positions[first + std::size_t(i)] = p[i];
      host_keys_only[first + std::size_t(i)] = k2[i];
    }
  }
  EXPECT_TRUE(same(expected_keys, host_keys)) << "host: keys";
  EXPECT_TRUE(same(expected_positions, host_positions)) << "host: positions";
  EXPECT_TRUE(same(expected_keys, host_keys_only)) << "host: keys only";
}

}  // namespace cta_merge_test

using namespace cta_merge_test;

// merge_path at every diagonal of random sorted inputs with heavy duplicates, both bounds, two
// comparators, 32- and 64-bit counts, against the serial merge that defines it.
TEST(CtaMerge, MergePathMatchesBruteForce) {
  MGPU_SEEDED_RNG(rng);
  std::uniform_int_distribution<std::int64_t> length(0, 40);
  for (int trial = 0; trial < 300; ++trial) {
    std::int64_t a_count = trial < 4 ? (trial & 1) * 5 : length(rng),
                 b_count = trial < 4 ? (trial >> 1) * 6 : length(rng);
    std::int64_t distinct = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 4 : 1000;
    bool descending = trial % 2 == 1;
    SCOPED_TRACE("trial " + std::to_string(trial) + ": a_count=" + std::to_string(a_count) +
                 " b_count=" + std::to_string(b_count) + (descending ? " greater" : " less"));
    auto check = [&](auto comp) {
      std::vector<int> a = sorted_random_keys<int>(a_count, distinct, rng, comp),
                       b = sorted_random_keys<int>(b_count, distinct, rng, comp);
      std::vector<std::int64_t> lowers = brute_merge_paths<mgpu::bounds::lower>(a, b, comp);
      std::vector<std::int64_t> uppers = brute_merge_paths<mgpu::bounds::upper>(a, b, comp);
      for (std::int64_t diag = 0; diag <= a_count + b_count; ++diag) {
        std::int64_t lower = lowers[std::size_t(diag)], upper = uppers[std::size_t(diag)];
        ASSERT_EQ(lower, mgpu::merge_path<mgpu::bounds::lower>(a.data(), a_count, b.data(), b_count, diag, comp))
            << "lower, diag " << diag;
        ASSERT_EQ(upper, mgpu::merge_path<mgpu::bounds::upper>(a.data(), a_count, b.data(), b_count, diag, comp))
            << "upper, diag " << diag;
        ASSERT_EQ(lower, mgpu::merge_path(a.data(), a_count, b.data(), b_count, diag, comp))
            << "default, diag " << diag;
        ASSERT_EQ(int(lower), mgpu::merge_path<mgpu::bounds::lower>(a.data(), int(a_count), b.data(), int(b_count),
                                                                    int(diag), comp))
            << "int counts, diag " << diag;
        ASSERT_EQ(int(upper), mgpu::merge_path<mgpu::bounds::upper>(a.data(), int(a_count), b.data(), int(b_count),
                                                                    int(diag), comp))
            << "int counts, diag " << diag;
        // Halving on a grid first (the partitions' searches): grids finer than, near and past the range.
        for (std::int64_t grid : {1, 2, 3, 7, 16, 100}) {
          mgpu::detail::merge_path_search<mgpu::bounds::lower, const int*, const int*, std::int64_t, decltype(comp)>
              on_grid(a.data(), a_count, b.data(), b_count, diag, comp);
          mgpu::detail::merge_path_search<mgpu::bounds::upper, const int*, const int*, std::int64_t, decltype(comp)>
              upper_on_grid(a.data(), a_count, b.data(), b_count, diag, comp);
          mgpu::detail::halve_on_grid(on_grid, grid);
          mgpu::detail::halve_on_grid(upper_on_grid, grid);
          ASSERT_EQ(lower, on_grid.begin) << "on a grid of " << grid << ", diag " << diag;
          ASSERT_EQ(upper, upper_on_grid.begin) << "upper, on a grid of " << grid << ", diag " << diag;
        }
      }
    };
    if (descending)
      check(mgpu::greater<int>());
    else
      check(mgpu::less<int>());
  }
}

// The documentation's worked example, exactly.
TEST(CtaMerge, MergePathDocumentedExample) {
  std::vector<int> a{1, 3, 4, 7, 9}, b{2, 4, 5, 6, 8};
  EXPECT_EQ(3, mgpu::merge_path(a.data(), 5, b.data(), 5, 4, mgpu::less<int>()));
  EXPECT_EQ(2, mgpu::merge_path<mgpu::bounds::upper>(a.data(), 5, b.data(), 5, 4, mgpu::less<int>()));
  const int expected[] = {0, 1, 1, 2, 3, 3, 3, 3, 4, 4, 5};
  for (int d = 0; d <= 10; ++d)
    EXPECT_EQ(expected[d], mgpu::merge_path(a.data(), 5, b.data(), 5, d, mgpu::less<int>())) << d;
}

// binary_search against std::lower_bound / std::upper_bound, keys below, between, on and above the
// data, with duplicates, for both comparators and both count types.
TEST(CtaMerge, BinarySearchMatchesStd) {
  MGPU_SEEDED_RNG(rng);
  std::uniform_int_distribution<std::int64_t> length(0, 60);
  for (int trial = 0; trial < 200; ++trial) {
    std::int64_t n = trial == 0 ? 0 : length(rng), distinct = trial % 2 ? 5 : 100;
    SCOPED_TRACE("trial " + std::to_string(trial) + ": n=" + std::to_string(n));
    auto check = [&](auto comp, const char* name) {
      SCOPED_TRACE(name);
      std::vector<std::int64_t> data = sorted_random_keys<std::int64_t>(n, distinct, rng, comp);
      for (std::int64_t key = -2; key <= distinct + 1; ++key) {
        std::int64_t lower = std::lower_bound(data.begin(), data.end(), key, comp) - data.begin();
        std::int64_t upper = std::upper_bound(data.begin(), data.end(), key, comp) - data.begin();
        ASSERT_EQ(lower, mgpu::binary_search<mgpu::bounds::lower>(data.data(), n, key, comp)) << "key " << key;
        ASSERT_EQ(upper, mgpu::binary_search<mgpu::bounds::upper>(data.data(), n, key, comp)) << "key " << key;
        ASSERT_EQ(int(lower), mgpu::binary_search<mgpu::bounds::lower>(data.data(), int(n), key, comp))
            << "key " << key;
        ASSERT_EQ(int(upper), mgpu::binary_search<mgpu::bounds::upper>(data.data(), int(n), key, comp))
            << "key " << key;
      }
    };
    check(mgpu::less<std::int64_t>(), "less");
    check(mgpu::greater<std::int64_t>(), "greater");
  }
}

// For every i in [0, searches), groups of `lanes` lanes (a kernel written with cta_launch) run
// group_search on the lower and upper bound of keys[i] in data[0, n), and on merge_path at diagonal
// diags[i] of data[0, n) and other[0, m).
void group_searches(const int* data, std::int64_t n, const int* other, std::int64_t m, const int* keys,
                    const std::int64_t* diags, std::int64_t searches, int lanes, std::int64_t* lower,
                    std::int64_t* upper, std::int64_t* path, mgpu::context& ctx) {
  using P = mgpu::launch_params<128, 1>;
  auto kernel = [=] MGPU_LAMBDA(int tid, int cta) {
    std::int64_t thread = std::int64_t(cta) * P::nt + tid;
    std::int64_t i = thread / lanes < searches ? thread / lanes : searches - 1;  // the whole warp searches
    mgpu::less<int> comp;
    mgpu::detail::bound_search<mgpu::bounds::lower, const int*, std::int64_t, int, mgpu::less<int>> lo(data, n, keys[i],
                                                                                                       comp);
    mgpu::detail::bound_search<mgpu::bounds::upper, const int*, std::int64_t, int, mgpu::less<int>> up(data, n, keys[i],
                                                                                                       comp);
    mgpu::detail::merge_path_search<mgpu::bounds::lower, const int*, const int*, std::int64_t, mgpu::less<int>> mp(
        data, n, other, m, diags[i], comp);
    mgpu::detail::group_search(lo, lanes);
    mgpu::detail::group_search(up, lanes);
    mgpu::detail::group_search(mp, lanes);
    if (thread / lanes < searches && thread % lanes == 0) {
      lower[i] = lo.begin;
      upper[i] = up.begin;
      path[i] = mp.begin;
    }
  };
  if (searches > 0) mgpu::cta_launch<P>(kernel, mgpu::num_tiles<P>(searches * lanes), ctx);
}

// group_search with every group width a warp allows, on sorted data with runs of equal keys, keys
// below, inside and above it, against std::lower_bound / std::upper_bound and brute_merge_paths
// (the partition tests above reach only the widths their numbers of searches choose).
MGPU_TEST(CtaMerge, GroupSearchMatchesStd) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {0, 1, 2, 31, 32, 33, 1000, 100003}) {
    std::int64_t distinct = n / 3 + 1;
    std::vector<int> data = sorted_random_keys<int, mgpu::less<int>>(n, distinct, rng);
    std::vector<int> other = sorted_random_keys<int, mgpu::less<int>>(n / 2 + 5, distinct, rng);
    std::int64_t m = std::int64_t(other.size());
    std::vector<std::int64_t> paths = brute_merge_paths<mgpu::bounds::lower>(data, other, mgpu::less<int>());
    std::vector<int> keys;
    std::vector<std::int64_t> diags;
    std::vector<std::int64_t> lower, upper, path;
    for (int i = 0; i < 300; ++i) {
      keys.push_back(int(std::int64_t(rng() % std::uint64_t(distinct + 2))) - 1);
      diags.push_back(std::int64_t(rng() % std::uint64_t(n + m + 1)));
      lower.push_back(std::lower_bound(data.begin(), data.end(), keys.back()) - data.begin());
      upper.push_back(std::upper_bound(data.begin(), data.end(), keys.back()) - data.begin());
      path.push_back(paths[std::size_t(diags.back())]);
    }
    mgpu::buffer<int> d_data(data, ctx), d_other(other, ctx), d_keys(keys, ctx);
    mgpu::buffer<std::int64_t> d_diags(diags, ctx);
    for (int lanes : {1, 2, 4, 8, 16, 32}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " lanes=" + std::to_string(lanes));
      mgpu::buffer<std::int64_t> d_lower = poisoned<std::int64_t>(300, ctx), d_upper = poisoned<std::int64_t>(300, ctx),
                                 d_path = poisoned<std::int64_t>(300, ctx);
      group_searches(d_data.data(), n, d_other.data(), m, d_keys.data(), d_diags.data(), 300, lanes, d_lower.data(),
                     d_upper.data(), d_path.data(), ctx);
      EXPECT_TRUE(same(lower, d_lower.to_host())) << "lower bounds";
      EXPECT_TRUE(same(upper, d_upper.to_host())) << "upper bounds";
      EXPECT_TRUE(same(path, d_path.to_host())) << "merge paths";
    }
  }
}

// merge_path_partitions on the device, both bounds, spacings that divide the total and ones that
// do not (1, a prime, one larger than the total), against brute_merge_paths at every boundary. The
// largest shape's spacing of 7 makes 50,000 searches: too many for groups of lanes, so each thread
// halves on the grid of the spacing first (halve_on_grid).
MGPU_TEST(CtaMerge, MergePathPartitionsMatchTheHost) {
  mgpu::context owner;
  mgpu::context ctx(owner.stream(), std::make_shared<poisoning_allocator>());
  MGPU_SEEDED_RNG(rng);
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{0, 0},    {1, 0},       {0, 7},          {1000, 777},
                                                          {3001, 5}, {4096, 4096}, {200000, 150000}};
  for (auto [a_count, b_count] : shapes) {
    std::int64_t total = a_count + b_count;
    for (std::int64_t distinct : {std::int64_t(3), std::int64_t(1) << 30}) {
      std::vector<int> a = sorted_random_keys<int>(a_count, distinct, rng, mgpu::less<int>());
      std::vector<int> b = sorted_random_keys<int>(b_count, distinct, rng, mgpu::less<int>());
      mgpu::buffer<int> da(a, ctx), db(b, ctx);
      std::vector<std::int64_t> lowers = brute_merge_paths<mgpu::bounds::lower>(a, b, mgpu::less<int>());
      std::vector<std::int64_t> uppers = brute_merge_paths<mgpu::bounds::upper>(a, b, mgpu::less<int>());
      for (std::int64_t spacing : {std::int64_t(1), std::int64_t(7), std::int64_t(256), std::int64_t(997),
                                   std::max<std::int64_t>(total, 1), total + 13}) {
        SCOPED_TRACE("a_count=" + std::to_string(a_count) + " b_count=" + std::to_string(b_count) +
                     " distinct=" + std::to_string(distinct) + " spacing=" + std::to_string(spacing));
        std::vector<std::int64_t> lower, upper;
        for (std::int64_t i = 0; i <= mgpu::div_up(total, spacing); ++i) {
          std::int64_t diag = std::min(i * spacing, total);
          lower.push_back(lowers[std::size_t(diag)]);
          upper.push_back(uppers[std::size_t(diag)]);
        }
        EXPECT_TRUE(same(
            lower, mgpu::merge_path_partitions(da.data(), a_count, db.data(), b_count, spacing, mgpu::less<int>(), ctx)
                       .to_host()))
            << "lower";
        EXPECT_TRUE(same(upper, mgpu::merge_path_partitions<mgpu::bounds::upper>(da.data(), a_count, db.data(), b_count,
                                                                                 spacing, mgpu::less<int>(), ctx)
                                    .to_host()))
            << "upper";
      }
    }
  }
  // Descending inputs, and a computed iterator for b (every key equal: the lower bound takes all
  // of a first, the upper all of b).
  std::vector<int> a = sorted_random_keys<int>(2000, 10, rng, mgpu::greater<int>()),
                   b = sorted_random_keys<int>(1500, 10, rng, mgpu::greater<int>());
  mgpu::buffer<int> da(a, ctx), db(b, ctx);
  std::vector<std::int64_t> descending = brute_merge_paths<mgpu::bounds::lower>(a, b, mgpu::greater<int>()), expected;
  for (std::int64_t d = 0; d <= 3500; d += 129) expected.push_back(descending[std::size_t(d)]);
  expected.push_back(2000);
  EXPECT_TRUE(
      same(expected,
           mgpu::merge_path_partitions(da.data(), 2000, db.data(), 1500, 129, mgpu::greater<int>(), ctx).to_host()))
      << "greater";
  std::vector<int> fives(1000, 5);
  mgpu::buffer<int> dfives(fives, ctx);
  std::vector<std::int64_t> all_a, all_b;
  for (std::int64_t d = 0; d <= 1800; d += 100)
    all_a.push_back(std::min<std::int64_t>(d, 1000)), all_b.push_back(std::max<std::int64_t>(d - 800, 0));
  EXPECT_TRUE(same(all_a, mgpu::merge_path_partitions(dfives.data(), 1000, mgpu::make_constant_iterator(5), 800, 100,
                                                      mgpu::less<int>(), ctx)
                              .to_host()))
      << "all equal, lower";
  EXPECT_TRUE(same(all_b, mgpu::merge_path_partitions<mgpu::bounds::upper>(
                              dfives.data(), 1000, mgpu::make_constant_iterator(5), 800, 100, mgpu::less<int>(), ctx)
                              .to_host()))
      << "all equal, upper";
  int* null = nullptr;
  EXPECT_THROW(mgpu::merge_path_partitions(null, 0, null, 0, 0, mgpu::less<int>(), ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge_path_partitions(null, 0, null, 0, -5, mgpu::less<int>(), ctx), std::invalid_argument);
}

// binary_search_partitions: where each tile of `items` positions starts in a sorted list of
// positions (with repeats, and positions at `items`), against std::lower_bound/upper_bound.
MGPU_TEST(CtaMerge, BinarySearchPartitionsMatchTheHost) {
  mgpu::context owner;
  mgpu::context ctx(owner.stream(), std::make_shared<poisoning_allocator>());
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t items : {std::int64_t(0), std::int64_t(1), std::int64_t(5000), std::int64_t(20011)}) {
    for (std::int64_t count : {std::int64_t(0), items / 10 + 1, 2 * items + 3}) {
      std::vector<std::int64_t> positions = random_keys<std::int64_t>(count, items + 1, rng);  // in [0, items]
      std::sort(positions.begin(), positions.end());
      std::vector<int> positions32(positions.begin(), positions.end());
      mgpu::buffer<std::int64_t> d64(positions, ctx);
      mgpu::buffer<int> d32(positions32, ctx);
      for (std::int64_t spacing :
           {std::int64_t(1), std::int64_t(96), std::int64_t(1009), std::max<std::int64_t>(items, 1), items + 7}) {
        if (spacing == 1 && items > 5000) continue;
        SCOPED_TRACE("items=" + std::to_string(items) + " count=" + std::to_string(count) +
                     " spacing=" + std::to_string(spacing));
        std::vector<std::int64_t> lower, upper;
        for (std::int64_t i = 0; i <= mgpu::div_up(items, spacing); ++i) {
          std::int64_t key = std::min(i * spacing, items);
          lower.push_back(std::lower_bound(positions.begin(), positions.end(), key) - positions.begin());
          upper.push_back(std::upper_bound(positions.begin(), positions.end(), key) - positions.begin());
        }
        EXPECT_TRUE(same(
            lower, mgpu::binary_search_partitions(d64.data(), count, items, spacing, mgpu::less<std::int64_t>(), ctx)
                       .to_host()))
            << "lower, 64-bit";
        EXPECT_TRUE(same(upper, mgpu::binary_search_partitions<mgpu::bounds::upper>(d64.data(), count, items, spacing,
                                                                                    mgpu::less<std::int64_t>(), ctx)
                                    .to_host()))
            << "upper, 64-bit";
        EXPECT_TRUE(same(
            lower, mgpu::binary_search_partitions(d32.data(), count, items, spacing, mgpu::less<int>(), ctx).to_host()))
            << "lower, 32-bit";
        EXPECT_TRUE(same(upper, mgpu::binary_search_partitions<mgpu::bounds::upper>(d32.data(), count, items, spacing,
                                                                                    mgpu::less<int>(), ctx)
                                    .to_host()))
            << "upper, 32-bit";
      }
    }
  }
  // A step iterator of positions 0, 3, 6, ...: tile t of 10 items starts at ceil(10 t / 3).
  std::vector<std::int64_t> expected;
  for (std::int64_t t = 0; t <= 100; ++t)
    expected.push_back(mgpu::div_up(std::min<std::int64_t>(10 * t, 995), std::int64_t(3)));
  EXPECT_TRUE(same(expected, mgpu::binary_search_partitions(mgpu::make_step_iterator<std::int64_t>(0, 3), 400, 995, 10,
                                                            mgpu::less<std::int64_t>(), ctx)
                                 .to_host()))
      << "step iterator";
  int* null = nullptr;
  EXPECT_THROW(mgpu::binary_search_partitions(null, 0, 10, 0, mgpu::less<int>(), ctx), std::invalid_argument);
}

// cta_sort in a user kernel: tiles of random keys with a partial last tile, pairs (stability
// through the keys' positions) and keys only, several shapes (VT odd and even), comparators and
// key types.
MGPU_TEST(CtaMerge, CtaSortSortsEachTileStably) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t count : {std::int64_t(1), std::int64_t(5 * 32 - 1), std::int64_t(4 * 32 * 5 + 77)})
    check_tile_sort<32, 5, int>(ctx, count, 7, mgpu::less<int>(), rng);
  for (std::int64_t count : {std::int64_t(128 * 7), std::int64_t(3 * 128 * 7 + 1), std::int64_t(5 * 128 * 7 - 300)}) {
    check_tile_sort<128, 7, int>(ctx, count, 20, mgpu::less<int>(), rng);
    check_tile_sort<128, 7, double>(ctx, count, 1 << 20, mgpu::greater<double>(), rng);
  }
  check_tile_sort<64, 8, std::int64_t>(ctx, 6 * 64 * 8 + 13, 3, mgpu::greater<std::int64_t>(), rng);
  check_tile_sort<256, 11, std::uint32_t>(ctx, 2 * 256 * 11 + 1000, 50, mgpu::less<std::uint32_t>(), rng);
  check_tile_sort<64, 3, int>(ctx, 64 * 3 * 4 + 2, 1, mgpu::less<int>(), rng);  // all equal: the identity
}

// cta_sort of one warp (NT = 32: its barriers are __syncwarp) run by each warp of a CTA of four on
// its own chunk of 32 * VT keys with storage of its own, the warps taking different numbers of merge
// rounds (each chunk has its own count, from 0 to all of it): every chunk against std::stable_sort,
// keys and positions (stability).
MGPU_TEST(CtaMerge, CtaSortOfOneWarpSortsPerWarp) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  constexpr int VT = 8, NV = 32 * VT, warps = 4;
  const int chunks = 4 * warps + 3;  // a last CTA with warps that have no chunk
  std::vector<int> keys = random_keys<int>(std::int64_t(chunks) * NV, 9, rng), counts(chunks);
  for (int c = 0; c < chunks; ++c)
    counts[std::size_t(c)] = c == 0 ? 0 : c == 1 ? 1 : c == 2 ? NV : c == 3 ? VT + 1 : int(rng() % (NV + 1));
  mgpu::buffer<int> k(keys, ctx), n(counts, ctx), sorted = poisoned<int>(std::int64_t(chunks) * NV, ctx),
                                                  positions = poisoned<int>(std::int64_t(chunks) * NV, ctx);
  const int *pk = k.data(), *pn = n.data();
  int *ps = sorted.data(), *pp = positions.data();
  mgpu::cta_launch<32 * warps>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        using sort_t = mgpu::cta_sort<32, VT, int, int>;
        __shared__ typename sort_t::storage_t storage[warps];
        const int c = warps * cta + tid / 32, lane = tid % 32;
        if (c >= chunks) return;  // (a whole warp)
        const int count = pn[c];
        mgpu::array_t<int, VT> x, at;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          at[i] = VT * lane + i;
          x[i] = pk[c * NV + at[i]];
        }
        sort_t::sort(x, at, storage[tid / 32], lane, count, mgpu::less<int>());
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (VT * lane + i < count) ps[c * NV + VT * lane + i] = x[i], pp[c * NV + VT * lane + i] = at[i];
      },
      (chunks + warps - 1) / warps, ctx);
  std::vector<int> got_keys = sorted.to_host(), got_positions = positions.to_host();
  for (int c = 0; c < chunks; ++c) {
    std::vector<int> expected_keys, expected_positions;
    std::vector<int> chunk(keys.begin() + std::ptrdiff_t(c) * NV, keys.begin() + std::ptrdiff_t(c + 1) * NV);
    stable_sort_range(chunk, 0, counts[std::size_t(c)], mgpu::less<int>(), expected_keys, expected_positions);
    for (int i = 0; i < NV; ++i) {
      const std::size_t g = std::size_t(c) * NV + std::size_t(i);
      if (i < counts[std::size_t(c)]) {
        ASSERT_EQ(expected_keys[std::size_t(i)], got_keys[g]) << "chunk " << c << ", position " << i;
        ASSERT_EQ(expected_positions[std::size_t(i)], got_positions[g]) << "chunk " << c << ", position " << i;
      } else {
        ASSERT_EQ(poison<int>(), got_keys[g]) << "chunk " << c << ", past its count at " << i;
      }
    }
  }
}

// cta_sort<32>::sort_group: warps of groups of 1, 2, 4, ..., 32 lanes (one size a warp), each group
// sorting its own chunk of G * VT keys, with its own count (0, all of it, or random) and its own
// part of the warp's shared memory: every chunk against std::stable_sort, keys and positions.
MGPU_TEST(CtaMerge, CtaSortGroupsOfLanesSortPerGroup) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  constexpr int VT = 5, per_warp = 32 * VT, warps = 4, ctas = 3, total_warps = warps * ctas;
  std::vector<int> keys = random_keys<int>(std::int64_t(total_warps) * per_warp, 9, rng);
  std::vector<int> counts;  // per warp w (lanes of 1 << (w % 6)), per group
  for (int w = 0; w < total_warps; ++w) {
    const int G = 1 << (w % 6);
    for (int g = 0; g < 32 / G; ++g)
      counts.push_back(g == 0 ? G * VT : g == 1 ? 0 : int(rng() % std::uint64_t(G * VT + 1)));
  }
  mgpu::buffer<int> k(keys, ctx), n(counts, ctx), sorted = poisoned<int>(std::int64_t(keys.size()), ctx),
                                                  positions = poisoned<int>(std::int64_t(keys.size()), ctx);
  const int *pk = k.data(), *pn = n.data();
  int *ps = sorted.data(), *pp = positions.data();
  mgpu::cta_launch<32 * warps>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        using sort_t = mgpu::cta_sort<32, VT, int, int>;
        __shared__ int runs[warps][32 * VT + 32];  // per group: G * VT + 1 keys (or positions)
        const int w = warps * cta + tid / 32, lane = tid % 32, G = 1 << (w % 6), g = lane / G, rank = lane % G;
        int first_count = 0;  // the warp's first group's index among all groups
        for (int v = 0; v < w; ++v) first_count += 32 >> (v % 6);
        const int count = pn[first_count + g], base = w * per_warp + g * G * VT;
        mgpu::array_t<int, VT> x, at;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          at[i] = VT * rank + i;
          x[i] = pk[base + at[i]];
        }
        int* run = runs[tid / 32] + g * (G * VT + 1);
        sort_t::sort_group(x, at, run, run, rank, G, count, mgpu::less<int>());
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (VT * rank + i < count) ps[base + VT * rank + i] = x[i], pp[base + VT * rank + i] = at[i];
      },
      ctas, ctx);
  std::vector<int> got_keys = sorted.to_host(), got_positions = positions.to_host();
  std::size_t group_index = 0;
  for (int w = 0; w < total_warps; ++w) {
    const int G = 1 << (w % 6);
    for (int g = 0; g < 32 / G; ++g, ++group_index) {
      const int base = w * per_warp + g * G * VT, count = counts[group_index];
      std::vector<int> chunk(keys.begin() + base, keys.begin() + base + G * VT), expected_keys, expected_positions;
      stable_sort_range(chunk, 0, count, mgpu::less<int>(), expected_keys, expected_positions);
      for (int i = 0; i < G * VT; ++i) {
        const std::size_t at = std::size_t(base + i);
        if (i < count) {
          ASSERT_EQ(expected_keys[std::size_t(i)], got_keys[at]) << "warp " << w << ", group " << g << " at " << i;
          ASSERT_EQ(expected_positions[std::size_t(i)], got_positions[at]) << "warp " << w << ", group " << g;
        } else {
          ASSERT_EQ(poison<int>(), got_keys[at]) << "warp " << w << ", group " << g << ", past its count at " << i;
        }
      }
    }
  }
}

// odd_even_sort on one thread's registers, in a user kernel and on the host: all VT keys and the
// first `valid` of them (the rest must not move), stability through positions.
MGPU_TEST(CtaMerge, OddEvenSortSortsOneThreadsRegisters) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (int valid : {0, 1, 4, 7}) check_thread_sort<7, int>(ctx, 1000, valid, 4, mgpu::less<int>(), rng);
  for (int valid : {2, 8}) check_thread_sort<8, int>(ctx, 1000, valid, 1000, mgpu::greater<int>(), rng);
  check_thread_sort<1, int>(ctx, 100, 1, 3, mgpu::less<int>(), rng);
  check_thread_sort<11, double>(ctx, 700, 11, 3, mgpu::less<double>(), rng);
  check_thread_sort<11, std::int64_t>(ctx, 700, 10, 1 << 30, mgpu::less<std::int64_t>(), rng);
}

namespace cta_merge_test {

// odd_even_merge_sort of VT keys on the host: every input of zeros and ones up to 16 keys (by the
// 0-1 principle, a proof that the network sorts), and random keys against std::sort; thread_sort
// of keys alone with valid < VT: the first valid keys sorted.
template <int VT>
void check_merge_network(std::mt19937_64& rng) {
  SCOPED_TRACE("VT=" + std::to_string(VT));
  if constexpr (VT <= 16) {
    for (unsigned bits = 0; bits < (1u << VT); ++bits) {
      mgpu::array_t<int, VT> k;
      for (int i = 0; i < VT; ++i) k[i] = int(bits >> i & 1);
      mgpu::odd_even_merge_sort(k, mgpu::less<int>());
      for (int i = 0; i + 1 < VT; ++i) ASSERT_LE(k[i], k[i + 1]) << "zeros and ones " << bits;
    }
  }
  for (int round = 0; round < 200; ++round) {
    const std::vector<int> keys = random_keys<int>(VT, round % 2 ? 5 : 1 << 30, rng);
    const int valid = int(rng() % (VT + 1));
    mgpu::array_t<int, VT> k, m;
    mgpu::array_t<mgpu::empty_t, VT> none;
    for (int i = 0; i < VT; ++i) k[i] = m[i] = keys[std::size_t(i)];
    mgpu::odd_even_merge_sort(m, mgpu::greater<>());
    std::vector<int> expected = keys;
    std::sort(expected.begin(), expected.end(), std::greater<int>());
    for (int i = 0; i < VT; ++i) ASSERT_EQ(expected[std::size_t(i)], m[i]) << "round " << round;
    mgpu::thread_sort(k, none, mgpu::less<int>(), valid);
    std::vector<int> first = keys;
    first.resize(std::size_t(valid));
    std::sort(first.begin(), first.end());
    for (int i = 0; i < valid; ++i) ASSERT_EQ(first[std::size_t(i)], k[i]) << "round " << round << ", valid " << valid;
  }
}

}  // namespace cta_merge_test

// odd_even_merge_sort (thread_sort's network for integer keys alone) at power-of-two sizes and
// others, whose networks drop the compare-and-swaps past VT.
MGPU_TEST(CtaMerge, OddEvenMergeSortSortsOneThreadsRegisters) {
  MGPU_SEEDED_RNG(rng);
  cta_merge_test::check_merge_network<1>(rng);
  cta_merge_test::check_merge_network<2>(rng);
  cta_merge_test::check_merge_network<3>(rng);
  cta_merge_test::check_merge_network<5>(rng);
  cta_merge_test::check_merge_network<8>(rng);
  cta_merge_test::check_merge_network<11>(rng);
  cta_merge_test::check_merge_network<15>(rng);
  cta_merge_test::check_merge_network<16>(rng);
  cta_merge_test::check_merge_network<23>(rng);
  cta_merge_test::check_merge_network<32>(rng);
}

namespace cta_merge_test {

// A user kernel of two warps a CTA: warp w of CTA c sorts keys [32 g, 32 g + 32), g = 2 c + w, of
// which the first valid[g] take part, with warp_sort; lane i writes its key and source lane.
template <typename K, typename Comp>
void warp_sort_groups(const K* keys, const int* valid, int groups, K* sorted, int* sources, Comp comp,
                      mgpu::context& ctx) {
  mgpu::cta_launch<64>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = 2 * cta + tid / 32, lane = tid % 32;
        if (g >= groups) return;  // (a whole warp)
        mgpu::warp_sorted<K> r = mgpu::warp_sort(keys[32 * g + lane], valid[g], comp);
        sorted[32 * g + lane] = r.key;
        sources[32 * g + lane] = r.source;
      },
      (groups + 1) / 2, ctx);
}

// Each group's first valid keys, against std::stable_sort of their lanes: keys in order, and
// the source lanes of equal keys increasing (stability).
template <typename K, typename Comp>
void check_warp_sort(mgpu::context& ctx, int key_range, Comp comp, std::mt19937_64& rng) {
  const int groups = 67;
  std::vector<K> keys = random_keys<K>(32 * groups, key_range, rng);
  std::vector<int> valid(groups);
  for (int g = 0; g < groups; ++g) valid[std::size_t(g)] = g < 33 ? g : int(rng() % 33);
  mgpu::buffer<K> k(keys, ctx), sorted = poisoned<K>(32 * groups, ctx);
  mgpu::buffer<int> v(valid, ctx), sources = poisoned<int>(32 * groups, ctx);
  warp_sort_groups(k.data(), v.data(), groups, sorted.data(), sources.data(), comp, ctx);
  std::vector<K> got = sorted.to_host();
  std::vector<int> got_sources = sources.to_host();
  for (int g = 0; g < groups; ++g) {
    SCOPED_TRACE("group " + std::to_string(g) + ", valid " + std::to_string(valid[std::size_t(g)]));
    std::vector<int> lanes(static_cast<std::size_t>(valid[std::size_t(g)]));
    for (std::size_t i = 0; i < lanes.size(); ++i) lanes[i] = int(i);
    std::stable_sort(lanes.begin(), lanes.end(),
                     [&](int x, int y) { return comp(keys[std::size_t(32 * g + x)], keys[std::size_t(32 * g + y)]); });
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      EXPECT_EQ(lanes[i], got_sources[std::size_t(32 * g) + i]);
      EXPECT_EQ(keys[std::size_t(32 * g + lanes[i])], got[std::size_t(32 * g) + i]);
    }
  }
}

}  // namespace cta_merge_test

// warp_sort: every valid count from 0 to 32, few distinct keys (ties) and many, both directions.
MGPU_TEST(CtaMerge, WarpSortSortsALanesKeysStably) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  cta_merge_test::check_warp_sort<int>(ctx, 3, mgpu::less<int>(), rng);
  cta_merge_test::check_warp_sort<int>(ctx, 1 << 30, mgpu::greater<int>(), rng);
  cta_merge_test::check_warp_sort<double>(ctx, 5, mgpu::less<double>(), rng);
  cta_merge_test::check_warp_sort<std::int64_t>(ctx, 1000, mgpu::greater<std::int64_t>(), rng);
}

namespace cta_merge_test {

// A one-CTA user kernel: a = in[0, a_count), b = in[a_count, a_count + b_count) (both sorted) in
// shared memory; thread t merges outputs [VT t, VT t + VT) with serial_merge and, where both lists
// have at least VT elements left (the precondition), also with serial_merge_unchecked; then the
// values follow their keys through gather_merge_values. Results go to four arrays of NT * VT.
template <int NT, int VT>
void merge_in_one_cta(const int* in, const int* values, int a_count, int b_count, int* checked, int* unchecked,
                      int* gathered, int* roomy, mgpu::context& ctx) {
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int) {
        __shared__ int keys[NT * VT + 1];
        int total = a_count + b_count;
        for (int i = tid; i < total; i += NT) keys[i] = in[i];
        __syncthreads();
        int diag = VT * tid < total ? VT * tid : total;
        int mp = mgpu::merge_path(keys, a_count, keys + a_count, b_count, diag, mgpu::less<int>());
        mgpu::merge_range range{mp, a_count, a_count + diag - mp, total};
        mgpu::merge_pair<int, VT> m = mgpu::serial_merge<VT>(keys, range, mgpu::less<int>());
        bool room = range.a_count() >= VT && range.b_count() >= VT;
        mgpu::merge_pair<int, VT> u = m;
        if (room) u = mgpu::serial_merge_unchecked<VT>(keys, range, mgpu::less<int>());
        mgpu::array_t<int, VT> v =
            mgpu::gather_merge_values<VT, int>(m.indices, values, a_count, values + a_count, tid, total);
        roomy[tid] = room;
        for (int i = 0; i < VT; ++i) {
          int j = VT * tid + i;
          if (j < total) {
            checked[j] = m.keys[i];
            gathered[j] = v[i];
            if (room) unchecked[j] = u.keys[i];
          }
        }
      },
      1, ctx);
}

}  // namespace cta_merge_test

// serial_merge with and without range checks, and gather_merge_values, against std::merge of
// (key, value) pairs: stable (a first on ties), values following their keys.
MGPU_TEST(CtaMerge, SerialMergeWithAndWithoutRangeChecks) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  constexpr int NT = 32, VT = 7;
  for (auto [a_count, b_count] : {std::pair{112, 112}, {200, 24}, {5, 219}, {224, 0}, {0, 100}, {60, 61}}) {
    SCOPED_TRACE("a_count=" + std::to_string(a_count) + " b_count=" + std::to_string(b_count));
    std::vector<int> a = random_keys<int>(a_count, 30, rng), b = random_keys<int>(b_count, 30, rng);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<int> in = a, values;
    in.insert(in.end(), b.begin(), b.end());
    for (int i = 0; i < a_count + b_count; ++i) values.push_back(1000 + i);  // the position it started at
    std::vector<std::pair<int, int>> pa, pb, expected(std::size_t(a_count + b_count));
    for (int i = 0; i < a_count; ++i) pa.push_back({a[std::size_t(i)], values[std::size_t(i)]});
    for (int i = 0; i < b_count; ++i) pb.push_back({b[std::size_t(i)], values[std::size_t(a_count + i)]});
    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), expected.begin(),
               [](const auto& x, const auto& y) { return x.first < y.first; });
    int total = a_count + b_count;
    mgpu::buffer<int> in_d(in, ctx), values_d(values, ctx);
    mgpu::buffer<int> checked = poisoned<int>(NT * VT, ctx), unchecked = poisoned<int>(NT * VT, ctx),
                      gathered = poisoned<int>(NT * VT, ctx), roomy = poisoned<int>(NT, ctx);
    merge_in_one_cta<NT, VT>(in_d.data(), values_d.data(), a_count, b_count, checked.data(), unchecked.data(),
                             gathered.data(), roomy.data(), ctx);
    std::vector<int> c = checked.to_host(), u = unchecked.to_host(), g = gathered.to_host(), r = roomy.to_host();
    int roomy_threads = 0;
    for (int j = 0; j < total; ++j) {
      ASSERT_EQ(expected[std::size_t(j)].first, c[std::size_t(j)]) << "checked, output " << j;
      ASSERT_EQ(expected[std::size_t(j)].second, g[std::size_t(j)]) << "value of output " << j;
      if (r[std::size_t(j / VT)]) {
        ASSERT_EQ(expected[std::size_t(j)].first, u[std::size_t(j)]) << "unchecked, output " << j;
      }
    }
    for (int t = 0; t < NT; ++t) roomy_threads += r[std::size_t(t)];
    if (a_count == 112 && b_count == 112) {
      EXPECT_GT(roomy_threads, 0) << "no thread ran the unchecked merge";
    }
  }
}

// Runs a CTA of NT threads per pair of expected answers, each calling
// pair(tid, cta, splits, x0, x1) (a CTA-wide search of two answers through two words of shared
// memory), and checks that every thread holds both: thread NT - 1 reports x0, thread NT / 2 x1.
template <int NT, typename Pair>
void expect_pair_answers(const std::vector<std::int64_t>& expected, Pair pair, mgpu::context& ctx) {
  const int ctas = int(expected.size() / 2);
  mgpu::buffer<std::int64_t> got = poisoned<std::int64_t>(2 * ctas, ctx);
  std::int64_t* out = got.data();
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ std::int64_t splits[2];
        std::int64_t x0, x1;
        pair(tid, cta, splits, x0, x1);
        if (tid == NT - 1) out[2 * cta] = x0;
        if (tid == NT / 2) out[2 * cta + 1] = x1;
      },
      ctas, ctx);
  EXPECT_TRUE(same(expected, got.to_host()));
}

// cta_merge_path_pair: each CTA searches two random diagonals (the pair in either order, equal ones,
// the ends) of inputs with runs of equal keys, both bounds, in CTAs of 32 threads (two groups of 16
// lanes in one warp) and of 128 (two warps of 32), against brute_merge_paths.
template <int NT, mgpu::bounds B>
void check_cta_merge_path_pair(const std::vector<int>& a, const std::vector<int>& b, std::mt19937_64& rng,
                               mgpu::context& ctx) {
  const std::int64_t na = std::int64_t(a.size()), nb = std::int64_t(b.size());
  std::vector<std::int64_t> paths = brute_merge_paths<B>(a, b, mgpu::less<int>());
  const int ctas = 200;
  std::vector<std::int64_t> diags(2 * ctas), expected(2 * ctas);
  for (int i = 0; i < 2 * ctas; ++i) {
    std::uint64_t r = rng() % 8;
    diags[std::size_t(i)] = r == 0 ? 0 : r == 1 ? na + nb : std::int64_t(rng() % std::uint64_t(na + nb + 1));
    if (i % 2 && rng() % 5 == 0) diags[std::size_t(i)] = diags[std::size_t(i - 1)];
    expected[std::size_t(i)] = paths[std::size_t(diags[std::size_t(i)])];
  }
  mgpu::buffer<int> da(a, ctx), db(b, ctx);
  mgpu::buffer<std::int64_t> d_diags(diags, ctx);
  const int *pa = da.data(), *pb = db.data();
  const std::int64_t* pd = d_diags.data();
  expect_pair_answers<NT>(
      expected,
      [=] MGPU_LAMBDA(int tid, int cta, std::int64_t* splits, std::int64_t& x0, std::int64_t& x1) {
        mgpu::cta_merge_path_pair<NT, B>(tid, pa, na, pb, nb, pd[2 * cta], pd[2 * cta + 1], mgpu::less<int>(), splits,
                                         x0, x1);
      },
      ctx);
}

MGPU_TEST(CtaMerge, CtaMergePathPairMatchesTheHost) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {0, 1, 33, 1000, 100003}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::int64_t distinct = n / 3 + 1;
    std::vector<int> a = sorted_random_keys<int, mgpu::less<int>>(n, distinct, rng);
    std::vector<int> b = sorted_random_keys<int, mgpu::less<int>>(n / 2 + 5, distinct, rng);
    check_cta_merge_path_pair<32, mgpu::bounds::lower>(a, b, rng, ctx);
    check_cta_merge_path_pair<128, mgpu::bounds::lower>(a, b, rng, ctx);
    check_cta_merge_path_pair<128, mgpu::bounds::upper>(a, b, rng, ctx);
    check_cta_merge_path_pair<32, mgpu::bounds::upper>(b, a, rng, ctx);
  }
}

// cta_binary_search_pair: each CTA searches two keys (below, inside and above the data's range,
// present and absent, equal to each other at times) in sorted data with runs of equal keys, both
// bounds, in CTAs of 32 threads (two groups of 16 lanes) and of 128 (two warps), against
// std::lower_bound / std::upper_bound; every thread must hold both answers.
template <int NT, mgpu::bounds B>
void check_cta_binary_search_pair(const std::vector<int>& data, std::mt19937_64& rng, mgpu::context& ctx) {
  const std::int64_t n = std::int64_t(data.size());
  const int ctas = 200;
  std::vector<int> keys(2 * ctas);
  std::vector<std::int64_t> expected(2 * ctas);
  for (int i = 0; i < 2 * ctas; ++i) {
    int key = int(rng() % std::uint64_t(n + 3)) - 1;  // -1 .. n + 1; the data lie in [0, n / 3]
    if (i % 2 && rng() % 5 == 0) key = keys[std::size_t(i - 1)];
    keys[std::size_t(i)] = key;
    auto at = B == mgpu::bounds::lower ? std::lower_bound(data.begin(), data.end(), key)
                                       : std::upper_bound(data.begin(), data.end(), key);
    expected[std::size_t(i)] = at - data.begin();
  }
  mgpu::buffer<int> d_data(data, ctx), d_keys(keys, ctx);
  const int *pd = d_data.data(), *pk = d_keys.data();
  expect_pair_answers<NT>(
      expected,
      [=] MGPU_LAMBDA(int tid, int cta, std::int64_t* splits, std::int64_t& x0, std::int64_t& x1) {
        mgpu::cta_binary_search_pair<NT, B>(tid, pd, n, pk[2 * cta], pk[2 * cta + 1], mgpu::less<int>(), splits, x0,
                                            x1);
      },
      ctx);
}

MGPU_TEST(CtaMerge, CtaBinarySearchPairMatchesStd) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {0, 1, 33, 1000, 100003}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<int> data = sorted_random_keys<int, mgpu::less<int>>(n, n / 3 + 1, rng);
    check_cta_binary_search_pair<32, mgpu::bounds::lower>(data, rng, ctx);
    check_cta_binary_search_pair<128, mgpu::bounds::lower>(data, rng, ctx);
    check_cta_binary_search_pair<128, mgpu::bounds::upper>(data, rng, ctx);
    check_cta_binary_search_pair<32, mgpu::bounds::upper>(data, rng, ctx);
  }
}

// merge_path_pair gives what two merge_path calls give, at every pair of diagonals of small inputs.
TEST(CtaMerge, MergePathPairMatchesTwoSearches) {
  MGPU_SEEDED_RNG(rng);
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<int> a = random_keys<int>(std::int64_t(rng() % 20), 6, rng),
                     b = random_keys<int>(std::int64_t(rng() % 20), 6, rng);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    int na = int(a.size()), nb = int(b.size());
    for (int d0 = 0; d0 <= na + nb; ++d0)
      for (int d1 = d0; d1 <= na + nb; ++d1) {
        int x0 = -1, x1 = -1;
        mgpu::merge_path_pair(a.data(), na, b.data(), nb, d0, d1, mgpu::less<int>(), x0, x1);
        ASSERT_EQ(mgpu::merge_path(a.data(), na, b.data(), nb, d0, mgpu::less<int>()), x0) << d0;
        ASSERT_EQ(mgpu::merge_path(a.data(), na, b.data(), nb, d1, mgpu::less<int>()), x1) << d1;
        int u0 = -1, u1 = -1;
        mgpu::merge_path_pair<mgpu::bounds::upper>(a.data(), na, b.data(), nb, d0, d1, mgpu::less<int>(), u0, u1);
        ASSERT_EQ(mgpu::merge_path<mgpu::bounds::upper>(a.data(), na, b.data(), nb, d0, mgpu::less<int>()), u0);
        ASSERT_EQ(mgpu::merge_path<mgpu::bounds::upper>(a.data(), na, b.data(), nb, d1, mgpu::less<int>()), u1);
      }
  }
}

// odd_even_sort_runs (host): each run between boundary bits sorted on its own, stably, and
// nothing moves across a boundary or at or past `valid`.
TEST(CtaMerge, OddEvenSortRunsSortsEachRun) {
  MGPU_SEEDED_RNG(rng);
  constexpr int VT = 13;
  for (int trial = 0; trial < 200; ++trial) {
    unsigned boundaries = unsigned(rng()) & ((1u << (VT - 1)) - 1);
    int valid = int(rng() % (VT + 1));
    mgpu::array_t<int, VT> k, p;
    std::vector<std::pair<int, int>> expected;
    for (int i = 0; i < VT; ++i) {
      k[i] = int(rng() % 5);
      p[i] = i;
      expected.push_back({k[i], i});
    }
    // The reference: stable-sort each run of [0, valid) on its own.
    for (int begin = 0; begin < valid;) {
      int end = begin + 1;
      while (end < valid && !(boundaries >> (end - 1) & 1)) ++end;
      std::stable_sort(expected.begin() + begin, expected.begin() + end,
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      begin = end;
    }
    mgpu::odd_even_sort_runs(k, p, boundaries, mgpu::less<int>(), valid);
    for (int i = 0; i < VT; ++i) {
      ASSERT_EQ(expected[std::size_t(i)].first, k[i]) << "trial " << trial << " position " << i;
      ASSERT_EQ(expected[std::size_t(i)].second, p[i]) << "trial " << trial << " position " << i;
    }
  }
}

// The docs' cta_segmented_sort example (docs/merge_sort.md), as a test: one CTA sorts the segments
// of up to NV keys given head flags; against per-segment std::stable_sort, on its own example and
// on random keys and heads.
namespace cta_merge_test {
void sort_segments_in_one_cta(mgpu::buffer<int>& keys, const mgpu::buffer<int>& heads, mgpu::context& ctx) {
  constexpr int NT = 32, VT = 3, NV = NT * VT;
  using sort_t = mgpu::cta_segmented_sort<NT, VT, int>;
  using scan_t = mgpu::cta_scan<NT, int>;
  int* k = keys.data();
  const int* h = heads.data();
  int n = int(keys.size());
  if (n > NV) throw std::invalid_argument("at most NV keys");
  mgpu::cta_launch<mgpu::launch_params<NT, VT>>(
      [=] MGPU_LAMBDA(int tid, int) {
        __shared__ mgpu::shared_storage<sort_t::storage_t> sort_storage;
        __shared__ mgpu::shared_storage<scan_t::storage_t> scan_storage;
        __shared__ int transpose[NV];
        mgpu::array_t<int, VT> x = mgpu::mem_to_reg_thread<NT, VT, int>(k, tid, n, transpose);
        mgpu::array_t<int, VT> segment;
        int last_head = -1;
        for (int i = 0; i < VT; ++i) {
          int j = VT * tid + i;
          if (j < n && h[j]) last_head = j;
          segment[i] = last_head;
        }
        auto scan = scan_t::exclusive_prefix(tid, last_head, scan_storage.get(), mgpu::maximum<int>());
        int before = scan.prefix.valid ? scan.prefix.value : -1;
        for (int i = 0; i < VT; ++i) segment[i] = segment[i] > before ? segment[i] : before;
        mgpu::array_t<mgpu::empty_t, VT> no_values;
        sort_t::sort(x, no_values, segment, sort_storage.get(), tid, n, mgpu::less<>());
        mgpu::reg_to_mem_thread<NT, VT>(x, k, tid, n, transpose);
      },
      1, ctx);
}
}  // namespace cta_merge_test

MGPU_TEST(CtaMerge, CtaSegmentedSortDocumentedExample) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  mgpu::buffer<int> keys(std::vector<int>{5, 1, 4, 9, 8, 2, 7}, ctx), heads(std::vector<int>{1, 0, 0, 1, 0, 0, 1}, ctx);
  sort_segments_in_one_cta(keys, heads, ctx);
  EXPECT_TRUE(same(std::vector<int>{1, 4, 5, 2, 8, 9, 7}, keys.to_host()));
  for (int n : {1, 2, 40, 95, 96}) {
    std::vector<int> k = random_keys<int>(n, 7, rng), h(std::size_t(n), 0);
    for (int& f : h) f = rng() % 9 == 0;
    std::vector<int> expected = k;
    for (int begin = 0; begin < n;) {
      int end = begin + 1;
      while (end < n && !h[std::size_t(end)]) ++end;
      std::stable_sort(expected.begin() + begin, expected.begin() + end);
      begin = end;
    }
    mgpu::buffer<int> kd(k, ctx), hd(h, ctx);
    sort_segments_in_one_cta(kd, hd, ctx);
    EXPECT_TRUE(same(expected, kd.to_host())) << "n=" << n;
  }
}

// The partition kernels reject bad arguments before launching anything.
MGPU_TEST(CtaMerge, PartitionsRejectBadArguments) {
  mgpu::context ctx;
  mgpu::buffer<int> a(std::vector<int>{1, 2, 3}, ctx);
  const int* null = nullptr;
  auto less = mgpu::less<int>();
  EXPECT_THROW(mgpu::merge_path_partitions(a.data(), 3, a.data(), 3, 0, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge_path_partitions(a.data(), -1, a.data(), 3, 2, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge_path_partitions(a.data(), 3, a.data(), -2, 2, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge_path_partitions(null, 3, a.data(), 3, 2, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::merge_path_partitions(a.data(), 3, null, 3, 2, less, ctx), std::invalid_argument);
  EXPECT_NO_THROW(mgpu::merge_path_partitions(null, 0, a.data(), 3, 2, less, ctx));
  EXPECT_THROW(mgpu::binary_search_partitions(a.data(), 3, 10, 0, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::binary_search_partitions(a.data(), -1, 10, 4, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::binary_search_partitions(a.data(), 3, -10, 4, less, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::binary_search_partitions(null, 3, 10, 4, less, ctx), std::invalid_argument);
  try {
    mgpu::merge_path_partitions(null, 3, a.data(), 3, 2, less, ctx);
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("mgpu::merge_path_partitions"), std::string::npos) << what;
    EXPECT_NE(what.find("'a'"), std::string::npos) << what;
  }
}

// load_two_lists_to_shared in each of its forms (addressing by base or by address; tuned for rare
// or common partial tiles), elements of 4 and 8 bytes, in one CTA of 32 x 7: shared[0, total) is
// a followed by b, and nothing past it is written. The lists live in buffers of exactly their
// size (an empty one is a null pointer), so a read outside them shows up (an error on the
// device, a crash in the simulator): full tiles, partial ones of any row count, empty ones.
template <mgpu::list_addressing L, mgpu::partial_tiles Partial, typename T>
void check_load_two_lists(int a_count, int b_count, mgpu::context& ctx) {
  constexpr int NT = 32, VT = 7;
  std::vector<T> a, b;
  for (int i = 0; i < a_count; ++i) a.push_back(T(1000 + i));
  for (int i = 0; i < b_count; ++i) b.push_back(T(5000 + i));
  mgpu::buffer<T> da(a, ctx), db(b, ctx), out = poisoned<T>(NT * VT, ctx);
  const T* pa = a_count ? da.data() : nullptr;
  T* pb = b_count ? db.data() : nullptr;
  T* po = out.data();
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int) {
        __shared__ T shared[NT * VT];
        for (int i = tid; i < NT * VT; i += NT) shared[i] = T(-1);
        __syncthreads();
        mgpu::load_two_lists_to_shared<NT, VT, L, Partial>(pa, a_count, pb, b_count, tid, shared);
        for (int i = tid; i < NT * VT; i += NT) po[i] = shared[i];
      },
      1, ctx);
  std::vector<T> got = out.to_host(), expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  expected.resize(NT * VT, T(-1));
  EXPECT_TRUE(same(expected, got)) << "a_count=" << a_count << " b_count=" << b_count << " element of " << sizeof(T)
                                   << " bytes, addressing " << int(L) << ", partial tiles " << int(Partial);
}

MGPU_TEST(CtaMerge, LoadTwoListsToSharedEveryForm) {
  mgpu::context ctx;
  constexpr auto base = mgpu::list_addressing::choose_base, address = mgpu::list_addressing::choose_address;
  constexpr auto rare = mgpu::partial_tiles::rare, common = mgpu::partial_tiles::common;
  for (auto [a_count, b_count] :
       {std::pair{0, 0}, {1, 0}, {0, 1}, {112, 112}, {224, 0}, {0, 224}, {31, 1}, {32, 1}, {100, 93}, {0, 200}}) {
    check_load_two_lists<base, common, int>(a_count, b_count, ctx);
    check_load_two_lists<base, rare, int>(a_count, b_count, ctx);
    check_load_two_lists<address, common, int>(a_count, b_count, ctx);
    check_load_two_lists<address, rare, int>(a_count, b_count, ctx);
    check_load_two_lists<base, common, std::int64_t>(a_count, b_count, ctx);
    check_load_two_lists<address, rare, std::int64_t>(a_count, b_count, ctx);
  }
}

// load_two_lists_to_shared of key-value lists, int keys with int64 values (both lists' values, or
// a's only), in one CTA of 32 x 7: keys and values land at the same positions, a's followed by
// b's, and nothing else is written (b's values not at all with list_values::a_only). Lists in
// buffers of exactly their size, as above.
template <mgpu::list_values Values>
void check_load_two_lists_of_pairs(int a_count, int b_count, mgpu::context& ctx) {
  constexpr int NT = 32, VT = 7;
  std::vector<int> a, b;
  std::vector<std::int64_t> av, bv;
  for (int i = 0; i < a_count; ++i) a.push_back(1000 + i), av.push_back(-3000000000ll - i);
  for (int i = 0; i < b_count; ++i) b.push_back(5000 + i), bv.push_back(7000000000ll + i);
  mgpu::buffer<int> da(a, ctx), db(b, ctx), keys_out = poisoned<int>(NT * VT, ctx);
  mgpu::buffer<std::int64_t> dav(av, ctx), dbv(bv, ctx), values_out = poisoned<std::int64_t>(NT * VT, ctx);
  const int* pa = a_count ? da.data() : nullptr;
  const int* pb = b_count ? db.data() : nullptr;
  const std::int64_t* pav = a_count ? dav.data() : nullptr;
  const std::int64_t* pbv = b_count ? dbv.data() : nullptr;
  int* pk = keys_out.data();
  std::int64_t* pv = values_out.data();
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int) {
        __shared__ int keys[NT * VT];
        __shared__ std::int64_t values[NT * VT];
        for (int i = tid; i < NT * VT; i += NT) keys[i] = -1, values[i] = -1;
        __syncthreads();
        mgpu::load_two_lists_to_shared<NT, VT, Values>(pa, pav, a_count, pb, pbv, b_count, tid, keys, values);
        for (int i = tid; i < NT * VT; i += NT) pk[i] = keys[i], pv[i] = values[i];
      },
      1, ctx);
  std::vector<int> expected_keys = a;
  expected_keys.insert(expected_keys.end(), b.begin(), b.end());
  expected_keys.resize(NT * VT, -1);
  std::vector<std::int64_t> expected_values = av;
  if (Values == mgpu::list_values::both) expected_values.insert(expected_values.end(), bv.begin(), bv.end());
  expected_values.resize(NT * VT, -1);
  EXPECT_TRUE(same(expected_keys, keys_out.to_host())) << "keys, a_count=" << a_count << " b_count=" << b_count;
  EXPECT_TRUE(same(expected_values, values_out.to_host()))
      << "values, a_count=" << a_count << " b_count=" << b_count << " values of " << (int(Values) ? "a" : "both");
}

MGPU_TEST(CtaMerge, LoadTwoListsOfPairs) {
  mgpu::context ctx;
  for (auto [a_count, b_count] :
       {std::pair{0, 0}, {1, 0}, {0, 1}, {112, 112}, {224, 0}, {0, 224}, {31, 1}, {32, 1}, {100, 93}, {0, 200}}) {
    check_load_two_lists_of_pairs<mgpu::list_values::both>(a_count, b_count, ctx);
    check_load_two_lists_of_pairs<mgpu::list_values::a_only>(a_count, b_count, ctx);
  }
}

// load_rows in both of its forms, in one CTA of 32 threads and 5 rows: for the rows i < rows,
// x[i] = input[begin + 32 i + tid] where that index is before `end`; past `end` the predicated form
// reads end - 1 again and the skipped form reads nothing (x[i] keeps its -1); the rows from `rows`
// on are never read. The input is a buffer of exactly `end` elements, so a read past it shows up.
template <mgpu::rows_past Past>
void check_load_rows(int begin, int rows, int end, mgpu::context& ctx) {
  constexpr int NT = 32, VT = 5;
  std::vector<int> in;
  for (int i = 0; i < end; ++i) in.push_back(100 + i);
  mgpu::buffer<int> din(in, ctx), out = poisoned<int>(NT * VT, ctx);
  const int* pin = end ? din.data() : nullptr;
  int* po = out.data();
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int) {
        mgpu::array_t<int, VT> x;
        for (int i = 0; i < VT; ++i) x[i] = -1;
        mgpu::load_rows<NT, Past>(x, pin, begin, rows, end, tid);
        for (int i = 0; i < VT; ++i) po[NT * i + tid] = x[i];
      },
      1, ctx);
  std::vector<int> expected(NT * VT, -1);
  for (int i = 0; i < rows; ++i)
    for (int t = 0; t < NT; ++t) {
      int j = begin + NT * i + t;
      if (j < end)
        expected[std::size_t(NT * i + t)] = 100 + j;
      else if (Past == mgpu::rows_past::predicated)
        expected[std::size_t(NT * i + t)] = 100 + end - 1;
    }
  EXPECT_TRUE(same(expected, out.to_host()))
      << "begin=" << begin << " rows=" << rows << " end=" << end << ", rows past: " << int(Past);
}

MGPU_TEST(CtaMerge, LoadRowsEveryForm) {
  mgpu::context ctx;
  // Full rows (both forms alike), partial last rows, one element, rows that start past nothing.
  for (auto [begin, rows, end] : {std::tuple{0, 0, 0},
                                  {0, 1, 1},
                                  {0, 5, 160},
                                  {0, 5, 150},
                                  {10, 2, 100},
                                  {10, 3, 100},
                                  {64, 1, 65},
                                  {0, 4, 97},
                                  {3, 5, 40}}) {
    check_load_rows<mgpu::rows_past::predicated>(begin, rows, end, ctx);
    check_load_rows<mgpu::rows_past::skipped>(begin, rows, end, ctx);
  }
}
