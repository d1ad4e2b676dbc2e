// tests/large_counts_test.cpp
//
// 64-bit counts over more than 2^31 elements: merge, mergesort, segmented sort, locality sort, bulk
// remove and insert, set operations, sorted search, load-balancing search, join, segmented
// reduce, reduce by key, SpMV, compaction, histogram and segmented scan. GPU only: on the
// simulator each would take minutes (the reduction's >2^31 test, in reduce_scan_test.cpp, runs on
// both).
//
// Sorts are checked on the device without a reference sort: keys are uint8 and every element
// carries its source position (uint32 suffices below 2^32) as its value. An output is a stable
// sort of its input within each segment exactly when, at every position i, the key is the key
// of the source named there, that source lies in i's segment, and (key, source) increases
// strictly from i - 1 to i inside a segment: then each segment's sources are distinct, as many
// as the segment holds, all from the segment (a permutation), in key order, and in source order
// among equal keys.
#include "test_util.hpp"

#include <limits>
#include <vector>

#if defined(MGPU_BACKEND_CUDA)

namespace {

using mgpu_test::quick;

const std::int64_t over_2_to_31 = (std::int64_t(1) << 31) + 1000003;

// A well-mixed uint8 key for source position i.
struct hashed_key {
  MGPU_HOST_DEVICE std::uint8_t operator()(std::int64_t i) const {
    std::uint64_t x = std::uint64_t(i) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return std::uint8_t(x >> 56);
  }
};

// Nearly sorted keys: i with its low 10 bits scrambled, over 2^24, so a key is displaced by less
// than 1024 positions.
struct nearly_sorted_key {
  MGPU_HOST_DEVICE std::uint8_t operator()(std::int64_t i) const {
    return std::uint8_t((i ^ (hashed_key()(i) * 4)) >> 24);
  }
};

// Every position in segment 0.
struct one_segment {
  MGPU_HOST_DEVICE int operator()(std::int64_t) const { return 0; }
};

// How many i in [0, n) fail ok(i), counted on the device.
template <typename Ok>
unsigned long long count_failing(std::int64_t n, Ok ok, mgpu::context& ctx) {
  mgpu::buffer<unsigned long long> failing(std::vector<unsigned long long>{0}, ctx);
  unsigned long long* f = failing.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        if (!ok(i)) atomicAdd(f, 1ull);
      },
      n, ctx);
  return failing.to_host()[0];
}

// The positions of an n-element output that break the rule above.
template <typename KeyOf, typename SegmentOf>
unsigned long long count_not_stably_sorted(const std::uint8_t* keys, const std::uint32_t* sources, std::int64_t n,
                                           KeyOf key_of, SegmentOf segment_of, mgpu::context& ctx) {
  return count_failing(
      n,
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::int64_t source = sources[i];
        if (source >= n || keys[i] != key_of(source) || segment_of(source) != segment_of(i)) return false;
        if (i == 0 || segment_of(i - 1) != segment_of(i)) return true;
        return keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && sources[i - 1] < sources[i]);
      },
      ctx);
}

// The positions where two n-element arrays differ.
template <typename T>
unsigned long long count_different(const T* x, const T* y, std::int64_t n, mgpu::context& ctx) {
  return count_failing(
      n, [=] MGPU_LAMBDA(std::int64_t i) { return x[i] == y[i]; }, ctx);
}

// n keys key_of(i) and their source positions i, on the device.
struct keyed_sources {
  mgpu::buffer<std::uint8_t> keys;
  mgpu::buffer<std::uint32_t> sources;
};
template <typename KeyOf>
keyed_sources make_keyed_sources(std::int64_t n, KeyOf key_of, mgpu::context& ctx) {
  keyed_sources input{mgpu::buffer<std::uint8_t>(n, ctx), mgpu::buffer<std::uint32_t>(n, ctx)};
  std::uint8_t* keys = input.keys.data();
  std::uint32_t* sources = input.sources.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        keys[i] = key_of(i);
        sources[i] = std::uint32_t(i);
      },
      n, ctx);
  return input;
}

}  // namespace

// a (2^30 + 12345 keys) and b (1.5 * 2^30 + 777) hold 256 runs of equal keys each, so ties
// between the lists cover every value; sources: a's positions, then b's after a_count.
MGPU_TEST(LargeCounts, Merge2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t a_count = (std::int64_t(1) << 30) + 12345;
  const std::int64_t b_count = (std::int64_t(3) << 29) + 777, total = a_count + b_count;
  auto key_of = [=] MGPU_LAMBDA(std::int64_t source) {
    return source < a_count ? std::uint8_t(source * 256 / a_count) : std::uint8_t((source - a_count) * 256 / b_count);
  };
  mgpu::buffer<std::uint8_t> a(a_count, ctx), b(b_count, ctx), keys(total, ctx), keys_only(total, ctx);
  mgpu::buffer<std::uint32_t> sources(total, ctx);
  std::uint8_t *pa = a.data(), *pb = b.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { pa[i] = key_of(i); }, a_count, ctx);
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { pb[i] = key_of(a_count + i); }, b_count, ctx);
  mgpu::merge(pa, mgpu::make_counting_iterator<std::uint32_t>(0), a_count, pb,
              mgpu::make_counting_iterator<std::uint32_t>(std::uint32_t(a_count)), b_count, keys.data(), sources.data(),
              mgpu::less<>(), ctx);
  EXPECT_EQ(count_not_stably_sorted(keys.data(), sources.data(), total, key_of, one_segment(), ctx), 0ull);
  mgpu::merge(pa, a_count, pb, b_count, keys_only.data(), mgpu::less<>(), ctx);
  EXPECT_EQ(count_different(keys.data(), keys_only.data(), total, ctx), 0ull);
}

MGPU_TEST(LargeCounts, Mergesort2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  keyed_sources input = make_keyed_sources(n, hashed_key(), ctx);
  std::uint8_t* keys = input.keys.data();
  std::uint32_t* sources = input.sources.data();
  // The check can fail: about half the positions of the unsorted input break it.
  EXPECT_GT(count_not_stably_sorted(keys, sources, n, hashed_key(), one_segment(), ctx), (unsigned long long)(n / 4));
  mgpu::mergesort(keys, sources, n, mgpu::less<>(), ctx);
  EXPECT_EQ(count_not_stably_sorted(keys, sources, n, hashed_key(), one_segment(), ctx), 0ull);

  keyed_sources keys_only = make_keyed_sources(n, hashed_key(), ctx);
  mgpu::mergesort(keys_only.keys.data(), n, mgpu::less<>(), ctx);
  EXPECT_EQ(count_different(keys, keys_only.keys.data(), n, ctx), 0ull);
}

// Long segments (3 * 2^20 + 1: merged by the level passes) given by heads, and short ones (100:
// sorted by the blocksort, many crossing tile boundaries) given by head flags.
MGPU_TEST(LargeCounts, SegmentedSort2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;

  const std::int64_t long_segment = (std::int64_t(3) << 20) + 1;
  keyed_sources input = make_keyed_sources(n, hashed_key(), ctx);
  mgpu::segmented_sort(input.keys.data(), input.sources.data(), n,
                       mgpu::segments_by_heads(mgpu::make_step_iterator<std::int64_t>(0, long_segment),
                                               (n + long_segment - 1) / long_segment),
                       mgpu::less<>(), ctx);
  auto in_long = [=] MGPU_LAMBDA(std::int64_t i) { return i / long_segment; };
  EXPECT_EQ(count_not_stably_sorted(input.keys.data(), input.sources.data(), n, hashed_key(), in_long, ctx), 0ull);

  const std::int64_t short_segment = 100;
  mgpu::buffer<unsigned> flags((n + 31) / 32, ctx);
  unsigned* f = flags.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t word) {
        unsigned bits = 0;
        for (int bit = 0; bit < 32; ++bit)
          if ((32 * word + bit) % short_segment == 0) bits |= 1u << bit;
        f[word] = bits;
      },
      (n + 31) / 32, ctx);
  input = make_keyed_sources(n, hashed_key(), ctx);
  mgpu::segmented_sort(input.keys.data(), input.sources.data(), n, mgpu::segments_by_flags(f), mgpu::less<>(), ctx);
  auto in_short = [=] MGPU_LAMBDA(std::int64_t i) { return i / short_segment; };
  EXPECT_EQ(count_not_stably_sorted(input.keys.data(), input.sources.data(), n, hashed_key(), in_short, ctx), 0ull);
}

MGPU_TEST(LargeCounts, LocalitySort2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  keyed_sources input = make_keyed_sources(n, nearly_sorted_key(), ctx);
  mgpu::locality_sort(input.keys.data(), input.sources.data(), n, mgpu::less<>(), ctx);
  EXPECT_EQ(
      count_not_stably_sorted(input.keys.data(), input.sources.data(), n, nearly_sorted_key(), one_segment(), ctx),
      0ull);
}

// Remove every third element of 0, 1, ..., n - 1; insert a's element i (source b_count + i)
// before b's element 2i (source 2i), for n outputs. Both outputs have closed forms.
MGPU_TEST(LargeCounts, BulkRemoveInsert2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31, removed = (n + 2) / 3, kept = n - removed;
  mgpu::buffer<std::uint32_t> out(n, ctx);
  const std::uint32_t* o = out.data();
  mgpu::bulk_remove(mgpu::make_counting_iterator<std::uint32_t>(0), n, mgpu::make_step_iterator<std::int64_t>(0, 3),
                    removed, out.data(), ctx);
  EXPECT_EQ(count_failing(
                kept, [=] MGPU_LAMBDA(std::int64_t j) { return o[j] == j / 2 * 3 + 1 + j % 2; }, ctx),
            0ull);

  // n is a multiple of 3: output group i is a's element i, then b's elements 2i and 2i + 1.
  ASSERT_EQ(n % 3, 0);
  const std::int64_t a_count = n / 3, b_count = n - a_count;
  mgpu::bulk_insert(mgpu::make_counting_iterator<std::uint32_t>(std::uint32_t(b_count)),
                    mgpu::make_step_iterator<std::int64_t>(0, 2), a_count,
                    mgpu::make_counting_iterator<std::uint32_t>(0), b_count, out.data(), ctx);
  EXPECT_EQ(count_failing(
                n,
                [=] MGPU_LAMBDA(std::int64_t p) {
                  std::int64_t group = p / 3, slot = p % 3;
                  return o[p] == (slot == 0 ? b_count + group : 2 * group + slot - 1);
                },
                ctx),
            0ull);
}

namespace {

// Counts, on the device, the outputs of a search that differ from a closed form: an output
// iterator that checks each value as it is written (no 2^31-element array).
template <typename Expected>
struct checked_output {
  Expected expected;
  unsigned long long* failures;
  MGPU_HOST_DEVICE void operator()(std::int64_t value, std::int64_t i) const {
  #if defined(MGPU_DEVICE_PASS)  // (a store_iterator's functor is host-device; it only runs on the device)
    if (value != expected(i)) atomicAdd(failures, 1ull);
  #endif
  }
};
template <typename Expected>
mgpu::store_iterator<checked_output<Expected>> checking(Expected expected, unsigned long long* failures) {
  return mgpu::make_store_iterator(checked_output<Expected>{expected, failures});
}

// a[i] = 2i, b[j] = 3j + 1. With bounds::lower, a[i]'s lower bound in b counts the j with
// 3j + 1 < 2i, and a[i] has a match when 2i = 3j + 1 for some j < b_count; b[j]'s upper bound in a
// counts the i with 2i <= 3j + 1, and b[j] has a match when 3j + 1 is even and half of it < a_count.
// The outputs are index_match in 64 bits: the match flag in bit 63.
constexpr std::int64_t match_bit = std::numeric_limits<std::int64_t>::min();
struct a_bound {
  std::int64_t b_count;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t i) const {
    std::int64_t bound = (2 * i + 1) / 3;
    bound = bound < b_count ? bound : b_count;
    bool match = (2 * i - 1) % 3 == 0 && i > 0 && (2 * i - 1) / 3 < b_count;
    return bound | (match ? match_bit : 0);
  }
};
struct b_bound {
  std::int64_t a_count;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t j) const {
    std::int64_t bound = (3 * j + 1) / 2 + 1;
    bound = bound < a_count ? bound : a_count;
    bool match = (3 * j + 1) % 2 == 0 && (3 * j + 1) / 2 < a_count;
    return bound | (match ? match_bit : 0);
  }
};

// Item i of segments of 1000 items each: segment i / 1000, rank i % 1000.
struct check_segment_and_rank {
  unsigned long long* failures;
  MGPU_DEVICE void operator()(std::int64_t i, std::int64_t segment, std::int64_t rank) const {
    if (segment != i / 1000 || rank != i % 1000) atomicAdd(failures, 1ull);
  }
};

}  // namespace

// A merge-path sorted search over more than 2^31 keys (iterators, no arrays), both sides' bounds
// and match flags checked against their closed forms as they are written, and the match counts.
MGPU_TEST(LargeCounts, SortedSearch2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t a_count = (std::int64_t(1) << 30) + 12345, b_count = (std::int64_t(3) << 29) + 777;
  ASSERT_GT(a_count + b_count, std::int64_t(1) << 31);
  mgpu::buffer<unsigned long long> failures(std::vector<unsigned long long>{0, 0}, ctx);
  mgpu::buffer<std::int64_t> matches(2, ctx);
  unsigned long long* f = failures.data();
  mgpu::sorted_search<mgpu::bounds::lower, mgpu::search_output::index_match, mgpu::search_output::index_match>(
      mgpu::make_step_iterator<std::int64_t>(0, 2), a_count, mgpu::make_step_iterator<std::int64_t>(1, 3), b_count,
      checking(a_bound{b_count}, f), checking(b_bound{a_count}, f + 1), matches.data(), matches.data() + 1,
      mgpu::less<>(), ctx);
  std::vector<unsigned long long> failed = failures.to_host();
  EXPECT_EQ(failed[0], 0ull) << "a's bounds";
  EXPECT_EQ(failed[1], 0ull) << "b's bounds";
  // a's matches: i = 2 mod 3 with (2i - 1) / 3 < b_count; b's: odd j with (3j + 1) / 2 < a_count.
  std::int64_t a_matches = 0, b_matches = 0;
  for (std::int64_t i = 2; i < a_count && (2 * i - 1) / 3 < b_count; i += 3) ++a_matches;
  for (std::int64_t j = 1; j < b_count && (3 * j + 1) / 2 < a_count; j += 2) ++b_matches;
  std::vector<std::int64_t> counted = matches.to_host();
  EXPECT_EQ(counted[0], a_matches);
  EXPECT_EQ(counted[1], b_matches);
}

// Load-balancing search over more than 2^31 items in segments of 1000.
MGPU_TEST(LargeCounts, LoadBalance2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  mgpu::buffer<unsigned long long> failures(std::vector<unsigned long long>{0}, ctx);
  mgpu::transform_lbs(check_segment_and_rank{failures.data()}, n,
                      mgpu::segments_by_heads(mgpu::make_step_iterator<std::int64_t>(0, 1000), (n - 1) / 1000 + 1),
                      ctx);
  EXPECT_EQ(failures.to_host()[0], 0ull);
}

// A join of 2^16 + 1 equal keys with 2^15 + 3 of them: more than 2^31 rows, row r = (r / b_count,
// r % b_count).
MGPU_TEST(LargeCounts, Join2To31Rows) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t a_count = (1 << 16) + 1, b_count = (1 << 15) + 3;
  mgpu::join_result rows = mgpu::join(mgpu::make_constant_iterator(7), a_count, mgpu::make_constant_iterator(7),
                                      b_count, mgpu::join_kind::inner, mgpu::less<>(), ctx);
  ASSERT_EQ(rows.count, a_count * b_count);
  ASSERT_GT(rows.count, std::int64_t(1) << 31);
  const std::int64_t* ai = rows.a_indices.data();
  const std::int64_t* bi = rows.b_indices.data();
  EXPECT_EQ(
      count_failing(
          rows.count, [=] MGPU_LAMBDA(std::int64_t r) { return ai[r] == r / b_count && bi[r] == r % b_count; }, ctx),
      0ull);
}

// Index i as a value, and its thousandth.
struct index_value {
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t i) const { return i; }
};
struct thousandth {
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t i) const { return i / 1000; }
};
struct column_of {
  MGPU_HOST_DEVICE int operator()(std::int64_t i) const { return int(i % 4096); }
};

// Sums of the indices in segments of 1000 over more than 2^31 items (checked against closed
// forms), and the sum of all of them in one segment, whose carry crosses every tile.
MGPU_TEST(LargeCounts, SegmentedReduce2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31, segments = (n - 1) / 1000 + 1;
  mgpu::buffer<std::int64_t> sums(segments, ctx);
  mgpu::transform_segreduce(index_value(), n,
                            mgpu::segments_by_heads(mgpu::make_step_iterator<std::int64_t>(0, 1000), segments),
                            sums.data(), std::int64_t(0), mgpu::plus<>(), ctx);
  const std::int64_t* s = sums.data();
  EXPECT_EQ(count_failing(
                segments,
                [=] MGPU_LAMBDA(std::int64_t k) {
                  std::int64_t b = 1000 * k, e = b + 1000 < n ? b + 1000 : n;
                  return s[k] == (b + e - 1) * (e - b) / 2;
                },
                ctx),
            0ull);
  mgpu::buffer<std::int64_t> all(1, ctx);
  mgpu::segmented_reduce(mgpu::make_counting_iterator<std::int64_t>(0), n,
                         mgpu::segments_by_heads(mgpu::make_constant_iterator<std::int64_t>(0), 1), all.data(),
                         std::int64_t(0), mgpu::plus<>(), ctx);
  EXPECT_EQ(all.to_host()[0], n * (n - 1) / 2);
}

// Runs of 1000 equal keys (i / 1000) over more than 2^31 items, and a CSR product with more than
// 2^31 non-zeros in rows of 1000 (all 1, x all 2): each row's value is twice its length.
MGPU_TEST(LargeCounts, ReduceByKeyAndSpmv2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31, runs = (n - 1) / 1000 + 1;
  mgpu::buffer<std::int64_t> keys_out(runs, ctx), count(1, ctx);
  mgpu::buffer<int> values_out(runs, ctx);
  mgpu::reduce_by_key(mgpu::make_transform_iterator(mgpu::make_counting_iterator<std::int64_t>(0), thousandth()),
                      mgpu::make_constant_iterator(1), n, keys_out.data(), values_out.data(), count.data(),
                      mgpu::plus<>(), ctx);
  ASSERT_EQ(count.to_host()[0], runs);
  const std::int64_t* k = keys_out.data();
  const int* v = values_out.data();
  EXPECT_EQ(
      count_failing(
          runs, [=] MGPU_LAMBDA(std::int64_t r) { return k[r] == r && v[r] == (r < runs - 1 ? 1000 : n - 1000 * r); },
          ctx),
      0ull);

  mgpu::buffer<double> x(std::vector<double>(4096, 2.0), ctx), y(runs, ctx);
  auto matrix =
      mgpu::make_csr_matrix(mgpu::make_constant_iterator(1.0),
                            mgpu::make_transform_iterator(mgpu::make_counting_iterator<std::int64_t>(0), column_of()),
                            mgpu::make_step_iterator<std::int64_t>(0, 1000), runs, 4096, n);
  auto plan = mgpu::spmv_preprocess(matrix, ctx);
  mgpu::spmv(plan, x.data(), y.data(), ctx);
  const double* yp = y.data();
  EXPECT_EQ(
      count_failing(
          runs, [=] MGPU_LAMBDA(std::int64_t r) { return yp[r] == 2.0 * double(r < runs - 1 ? 1000 : n - 1000 * r); },
          ctx),
      0ull);
}

namespace {

// The primer patterns over more than 2^31 items, checked against closed forms as they are written.
struct divisible_by_3 {
  MGPU_HOST_DEVICE bool operator()(std::int64_t i) const { return i % 3 == 0; }
};
struct three_times {
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t position) const { return 3 * position; }
};
struct remainder_of_5_is_1 {
  MGPU_DEVICE bool operator()(std::int64_t i) const { return i % 5 == 1; }
};
struct check_fifth {  // kept index i = 5p + 1 goes to position p
  unsigned long long* failures;
  MGPU_DEVICE void operator()(std::int64_t i, std::int64_t position) const {
    if (position != i / 5) atomicAdd(failures, 1ull);
  }
};
struct rank_in_1000 {  // position i of segments of 1000: its rank, plus `add`
  std::int64_t add;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t i) const { return i % 1000 + add; }
};

}  // namespace

// compact and transform_compact of more than 2^31 indices: the multiples of 3 of a counting
// sequence, written through a checking output; every index 5p + 1, checked where it is written.
MGPU_TEST(LargeCounts, Compact2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  mgpu::buffer<unsigned long long> failures(std::vector<unsigned long long>{0, 0}, ctx);
  mgpu::buffer<std::int64_t> kept(2, ctx);
  mgpu::compact(mgpu::make_counting_iterator<std::int64_t>(0), n, checking(three_times(), failures.data()), kept.data(),
                divisible_by_3(), ctx);
  mgpu::transform_compact(remainder_of_5_is_1(), check_fifth{failures.data() + 1}, n, kept.data() + 1, ctx);
  std::vector<unsigned long long> failed = failures.to_host();
  EXPECT_EQ(failed[0], 0ull) << "compact";
  EXPECT_EQ(failed[1], 0ull) << "transform_compact";
  std::vector<std::int64_t> counts = kept.to_host();
  EXPECT_EQ(counts[0], (n + 2) / 3);
  EXPECT_EQ(counts[1], (n + 3) / 5);
}

// A histogram of the numbers [0, n), n > 2^31, in 1,000 bins (32-bit shared counters) and 65,536
// (16-bit chunks) over [0, n): bin b holds the i with floor(i * bins / n) = b, that is
// [ceil(b * n / bins), ceil((b + 1) * n / bins)).
MGPU_TEST(LargeCounts, Histogram2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  for (std::int64_t num_bins : {std::int64_t(1000), std::int64_t(65536)}) {
    mgpu::buffer<std::int64_t> bins(num_bins, ctx);
    mgpu::histogram(mgpu::make_counting_iterator<std::int64_t>(0), n, bins.data(), num_bins, std::int64_t(0), n, ctx);
    std::vector<std::int64_t> expected;
    auto first_of = [&](std::int64_t b) { return (b * n + num_bins - 1) / num_bins; };
    for (std::int64_t b = 0; b < num_bins; ++b) expected.push_back(first_of(b + 1) - first_of(b));
    EXPECT_TRUE(mgpu_test::same(expected, bins.to_host())) << num_bins << " bins";
  }
}

// Segmented scans of more than 2^31 ones in segments of 1000: each position's rank (exclusive) or
// rank + 1 (inclusive), checked as written.
MGPU_TEST(LargeCounts, SegmentedScan2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = over_2_to_31;
  mgpu::buffer<unsigned long long> failures(std::vector<unsigned long long>{0, 0}, ctx);
  auto segments = mgpu::segments_by_heads(mgpu::make_step_iterator<std::int64_t>(0, 1000), (n - 1) / 1000 + 1);
  mgpu::segmented_exclusive_scan(mgpu::make_constant_iterator(1), n, segments,
                                 checking(rank_in_1000{0}, failures.data()), 0, mgpu::plus<>(), ctx);
  mgpu::segmented_inclusive_scan(mgpu::make_constant_iterator(1), n, segments,
                                 checking(rank_in_1000{1}, failures.data() + 1), mgpu::plus<>(), ctx);
  std::vector<unsigned long long> failed = failures.to_host();
  EXPECT_EQ(failed[0], 0ull) << "exclusive";
  EXPECT_EQ(failed[1], 0ull) << "inclusive";
}

namespace {
// Where key v's copies start in a list of `count` keys uint8(i * 256 / count): run v holds the
// positions [ceil(v * count / 256), ceil((v + 1) * count / 256)).
std::int64_t run_start(std::int64_t count, int v) { return (std::int64_t(v) * count + 255) / 256; }

// The key whose run of an output holds position i, given the runs' first positions at[0..256]
// (at[256] the output's count; empty runs allowed).
struct run_of {
  const std::int64_t* at;
  MGPU_HOST_DEVICE int operator()(std::int64_t i) const {
    int lo = 0, hi = 256;  // at[lo] <= i < at[hi]
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (at[mid] <= i)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }
};

}  // namespace

// Set operations over more than 2^31 keys: a (2^30 + 12345 keys) and b (2^31 + 777) hold 256 runs
// of equal keys each, so every key is matched across the lists and the union keeps more than
// 2^31. The union of pairs (values: source positions, b's after a's), the intersection of keys
// and the difference b - a of keys are checked at every position against closed forms: for a key
// with m copies in a and n in b (m < n here), the union keeps a's m copies then b's last n - m,
// the intersection a's m, the difference b's last n - m.
MGPU_TEST(LargeCounts, Sets2To31) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t a_count = (std::int64_t(1) << 30) + 12345, b_count = (std::int64_t(1) << 31) + 777;
  std::vector<std::int64_t> a_at(257), b_at(257), union_at(257, 0), common_at(257, 0), excess_at(257, 0);
  for (int v = 0; v <= 256; ++v) {
    a_at[v] = run_start(a_count, v);
    b_at[v] = run_start(b_count, v);
  }
  for (int v = 0; v < 256; ++v) {
    std::int64_t m = a_at[v + 1] - a_at[v], n = b_at[v + 1] - b_at[v];
    ASSERT_LT(m, n);
    union_at[v + 1] = union_at[v] + n;
    common_at[v + 1] = common_at[v] + m;
    excess_at[v + 1] = excess_at[v] + (n - m);
  }
  ASSERT_GT(union_at[256], std::int64_t(1) << 31);
  mgpu::buffer<std::int64_t> runs_a(a_at, ctx), runs_b(b_at, ctx), runs_union(union_at, ctx),
      runs_common(common_at, ctx), runs_excess(excess_at, ctx);
  const std::int64_t *ra = runs_a.data(), *rb = runs_b.data();

  mgpu::buffer<std::uint8_t> a(a_count, ctx), b(b_count, ctx), keys(a_count + b_count, ctx);
  mgpu::buffer<std::uint32_t> sources(a_count + b_count, ctx);
  std::uint8_t *pa = a.data(), *pb = b.data(), *out = keys.data();
  const std::uint32_t* src = sources.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { pa[i] = std::uint8_t(i * 256 / a_count); }, a_count, ctx);
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { pb[i] = std::uint8_t(i * 256 / b_count); }, b_count, ctx);

  std::int64_t count = mgpu::set_union(pa, mgpu::make_counting_iterator<std::uint32_t>(0), a_count, pb,
                                       mgpu::make_counting_iterator<std::uint32_t>(std::uint32_t(a_count)), b_count,
                                       out, sources.data(), mgpu::less<>(), ctx);
  ASSERT_EQ(count, union_at[256]);
  const run_of union_run{runs_union.data()};
  const std::int64_t* ru = runs_union.data();
  EXPECT_EQ(count_failing(
                count,
                [=] MGPU_LAMBDA(std::int64_t i) {
                  int v = union_run(i);
                  std::int64_t r = i - ru[v], m = ra[v + 1] - ra[v];
                  std::int64_t source = r < m ? ra[v] + r : a_count + rb[v] + r;
                  return out[i] == v && src[i] == source;
                },
                ctx),
            0ull);

  count = mgpu::set_intersection(pa, a_count, pb, b_count, out, mgpu::less<>(), ctx);
  ASSERT_EQ(count, common_at[256]);
  const run_of common_run{runs_common.data()};
  EXPECT_EQ(count_failing(
                count, [=] MGPU_LAMBDA(std::int64_t i) { return out[i] == common_run(i); }, ctx),
            0ull);

  count = mgpu::set_difference(pb, b_count, pa, a_count, out, mgpu::less<>(), ctx);
  ASSERT_EQ(count, excess_at[256]);
  const run_of excess_run{runs_excess.data()};
  EXPECT_EQ(count_failing(
                count, [=] MGPU_LAMBDA(std::int64_t i) { return out[i] == excess_run(i); }, ctx),
            0ull);
}

#endif  // MGPU_BACKEND_CUDA
