// bulk_remove and bulk_insert against the serial references of references/bulk.hpp: sizes
// around tile boundaries, index patterns from none to all (runs, repeats, both ends), four
// arithmetic types and a user struct, iterator inputs, the seeds' examples, bad arguments, and
// checked mode catching unsorted, repeated and out-of-range indices.
#include "references/bulk.hpp"
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

template <typename T>
class BulkTyped : public ::testing::Test {};
using value_types = test_types<std::int32_t, pair_value, std::int64_t, float, double>;
TYPED_TEST_SUITE(BulkTyped, value_types);

// Index type used with value type T: 64-bit indices for 8-byte values, int otherwise, so both
// index widths are covered.
template <typename T>
using index_for = std::conditional_t<sizeof(T) == 8, std::int64_t, int>;

// Distinct-looking values: a misplaced element shows up as a difference.
template <typename T>
std::vector<T> make_values(std::int64_t n, std::mt19937_64& rng) {
  if constexpr (std::is_same<T, pair_value>::value) {
    std::vector<T> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = pair_value{int(rng() % 1000000), float(i)};
    return v;
  } else {
    return random_vector<T>(n, rng, -1e6, 1e6);
  }
}

enum class removal { none, all, every_other, sparse, dense, runs };
const char* name(removal r) {
  const char* names[] = {"none", "all", "every other", "random sparse", "random dense", "runs"};
  return names[int(r)];
}

// Sorted unique removal positions in [0, n). `run` sets the scale of the runs.
template <typename I>
std::vector<I> removal_indices(removal kind, std::int64_t n, int run, std::mt19937_64& rng) {
  std::vector<I> v;
  std::uniform_real_distribution<double> u(0, 1);
  switch (kind) {
    case removal::none:
      break;
    case removal::all:
      for (std::int64_t i = 0; i < n; ++i) v.push_back(I(i));
      break;
    case removal::every_other:
      for (std::int64_t i = 0; i < n; i += 2) v.push_back(I(i));
      break;
    case removal::sparse:
      for (std::int64_t i = 0; i < n; ++i)
        if (u(rng) < 0.02) v.push_back(I(i));
      break;
    case removal::dense:
      for (std::int64_t i = 0; i < n; ++i)
        if (u(rng) < 0.9) v.push_back(I(i));
      break;
    case removal::runs:
      // Alternating kept and removed runs of up to two tiles: whole tiles vanish or survive.
      for (std::int64_t i = std::int64_t(rng() % 3); i < n;) {
        std::int64_t removed = 1 + std::int64_t(rng() % (2 * run)), kept = 1 + std::int64_t(rng() % (2 * run));
        for (std::int64_t j = i; j < i + removed && j < n; ++j) v.push_back(I(j));
        i += removed + kept;
      }
      break;
  }
  return v;
}

enum class insertion { none, all_front, all_back, repeats, sparse, dense, every_position };
const char* name(insertion r) {
  const char* names[] = {"none",          "all at 0",     "all at b_count",       "few distinct (repeats)",
                         "random sparse", "random dense", "before every position"};
  return names[int(r)];
}

// Sorted insertion indices in [0, b_count].
template <typename I>
std::vector<I> insertion_indices(insertion kind, std::int64_t b_count, std::mt19937_64& rng) {
  std::vector<I> v;
  std::uniform_int_distribution<std::int64_t> position(0, b_count);
  switch (kind) {
    case insertion::none:
      break;
    case insertion::all_front:
      v.assign(static_cast<std::size_t>(b_count / 2 + 3), I(0));
      break;
    case insertion::all_back:
      v.assign(static_cast<std::size_t>(b_count / 2 + 3), I(b_count));
      break;
    case insertion::repeats: {
      std::int64_t p[4] = {position(rng), position(rng), position(rng), position(rng)};
      for (std::int64_t i = 0; i < b_count / 2 + 5; ++i) v.push_back(I(p[rng() % 4]));
      break;
    }
    case insertion::sparse:
      for (std::int64_t i = 0; i < b_count / 16 + 1; ++i) v.push_back(I(position(rng)));
      break;
    case insertion::dense:
      for (std::int64_t i = 0; i < 2 * b_count + 1; ++i) v.push_back(I(position(rng)));
      break;
    case insertion::every_position:
      for (std::int64_t i = 0; i <= b_count; ++i) v.push_back(I(i));
      break;
  }
  std::sort(v.begin(), v.end());
  return v;
}

// One bulk_remove against the reference; the output starts poisoned.
template <typename params = void, typename T, typename I>
void check_remove(mgpu::context& ctx, const std::vector<T>& input, const std::vector<I>& indices) {
  std::int64_t n = std::int64_t(input.size()), r = std::int64_t(indices.size());
  mgpu::buffer<T> in(input, ctx), out = poisoned<T>(n - r, ctx);
  mgpu::buffer<I> idx(indices, ctx);
  mgpu::bulk_remove<params>(in.data(), n, idx.data(), r, out.data(), ctx);
  EXPECT_TRUE(same(mgpu_ref::bulk_remove(input, indices), out.to_host()));
}

template <typename params = void, typename T, typename I>
void check_insert(mgpu::context& ctx, const std::vector<T>& a, const std::vector<I>& indices, const std::vector<T>& b) {
  std::int64_t a_count = std::int64_t(a.size()), b_count = std::int64_t(b.size());
  mgpu::buffer<T> da(a, ctx), db(b, ctx), out = poisoned<T>(a_count + b_count, ctx);
  mgpu::buffer<I> idx(indices, ctx);
  mgpu::bulk_insert<params>(da.data(), idx.data(), a_count, db.data(), b_count, out.data(), ctx);
  EXPECT_TRUE(same(mgpu_ref::bulk_insert(a, indices, b), out.to_host()));
}

const removal all_removals[] = {removal::none,   removal::all,   removal::every_other,
                                removal::sparse, removal::dense, removal::runs};
// Half the default large size keeps the file's simulator run to a few seconds; it still spans
// hundreds of tiles.
const std::int64_t large = (1 << 19) + 7;

const insertion all_insertions[] = {insertion::none,          insertion::all_front, insertion::all_back,
                                    insertion::repeats,       insertion::sparse,    insertion::dense,
                                    insertion::every_position};

}  // namespace

MGPU_TYPED_TEST(BulkTyped, RemoveMatchesTheReference) {
  using I = index_for<T>;
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const int nv = mgpu::bulk_remove_params<T>::nv;
  for (std::int64_t n : sizes_for(nv, large)) {
    std::vector<T> input = make_values<T>(n, rng);
    for (removal kind : all_removals) {
      SCOPED_TRACE("n=" + std::to_string(n) + " removing " + name(kind));
      check_remove(ctx, input, removal_indices<I>(kind, n, nv, rng));
    }
  }
}

MGPU_TYPED_TEST(BulkTyped, InsertMatchesTheReference) {
  using I = index_for<T>;
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const int nv = mgpu::bulk_insert_params<T>::nv;
  for (std::int64_t n : sizes_for(nv, large)) {
    std::vector<T> b = make_values<T>(n, rng);
    for (insertion kind : all_insertions) {
      SCOPED_TRACE("b_count=" + std::to_string(n) + " inserting " + name(kind));
      std::vector<I> indices = insertion_indices<I>(kind, n, rng);
      check_insert(ctx, make_values<T>(std::int64_t(indices.size()), rng), indices, b);
    }
  }
}

// a_count and b_count around a tile boundary, with b empty or a empty among them.
MGPU_TYPED_TEST(BulkTyped, InsertShapesAroundATile) {
  using I = index_for<T>;
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t nv = mgpu::bulk_insert_params<T>::nv;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{0, 0},  {1, 0},           {0, 1},      {nv, 0},
                                                          {0, nv}, {nv - 1, 1},      {1, nv - 1}, {nv, 1},
                                                          {1, nv}, {nv + 1, nv + 1}, {3 * nv, 2}, {2, 3 * nv}};
  for (auto [a_count, b_count] : shapes) {
    SCOPED_TRACE("a_count=" + std::to_string(a_count) + " b_count=" + std::to_string(b_count));
    std::uniform_int_distribution<std::int64_t> position(0, b_count);
    std::vector<I> indices(static_cast<std::size_t>(a_count));
    for (I& i : indices) i = I(position(rng));
    std::sort(indices.begin(), indices.end());
    check_insert(ctx, make_values<T>(a_count, rng), indices, make_values<T>(b_count, rng));
  }
}

// Tiles of 96: many tiles and partitions for small inputs, and a shape other than the default.
MGPU_TEST(Bulk, SmallTilesAndOddShapes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 3>;
  using even = mgpu::launch_params<64, 4>;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(95), std::int64_t(96), std::int64_t(97), std::int64_t(5003)}) {
    std::vector<int> values = make_values<int>(n, rng);
    for (removal kind : all_removals) {
      SCOPED_TRACE("n=" + std::to_string(n) + " removing " + name(kind));
      std::vector<int> indices = removal_indices<int>(kind, n, 96, rng);
      check_remove<small>(ctx, values, indices);
      check_remove<even>(ctx, values, indices);
    }
    for (insertion kind : all_insertions) {
      SCOPED_TRACE("b_count=" + std::to_string(n) + " inserting " + name(kind));
      std::vector<int> indices = insertion_indices<int>(kind, n, rng);
      std::vector<int> a = make_values<int>(std::int64_t(indices.size()), rng);
      check_insert<small>(ctx, a, indices, values);
      check_insert<even>(ctx, a, indices, values);
    }
  }
}

// Other index types than the typed tests use: unsigned 32-bit and 16-bit.
MGPU_TEST(Bulk, OtherIndexTypes) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::vector<double> values = make_values<double>(20011, rng);
  check_remove(ctx, values, removal_indices<std::uint32_t>(removal::sparse, 20011, 1000, rng));
  std::vector<std::uint32_t> positions = insertion_indices<std::uint32_t>(insertion::dense, 20011, rng);
  check_insert(ctx, make_values<double>(std::int64_t(positions.size()), rng), positions, values);
  std::vector<double> few(3000, 1.5);
  check_remove(ctx, few, removal_indices<std::int16_t>(removal::dense, 3000, 1000, rng));
  std::vector<std::int16_t> front(9, 0);
  check_insert(ctx, std::vector<double>(9, -2.0), front, few);
}

// The seeds' demonstrations and example, exactly.
MGPU_TEST(Bulk, SeedExamples) {
  mgpu::context ctx;
  const int n = 100;
  std::vector<int> ascending(n);
  for (int i = 0; i < n; ++i) ascending[std::size_t(i)] = i;
  mgpu::buffer<int> data(ascending, ctx);

  // Remove every 3rd element, indices from an iterator.
  const int remove_count = int(mgpu::div_up(n, 3));
  mgpu::buffer<int> removed = poisoned<int>(n - remove_count, ctx);
  mgpu::bulk_remove(data.data(), n, mgpu::make_step_iterator(0, 3), remove_count, removed.data(), ctx);
  std::vector<int> expected_remove;
  for (int i = 0; i < n; ++i)
    if (i % 3) expected_remove.push_back(i);
  EXPECT_EQ(expected_remove.size(), std::size_t(66));
  EXPECT_EQ(expected_remove.back(), 98);
  EXPECT_TRUE(same(expected_remove, removed.to_host()));

  // Insert 1000, 1010, ... before every 5th element starting at 2: values and indices are
  // step_iterators, as in the seed.
  const int insert_count = int(mgpu::div_up(n - 2, 5));
  mgpu::buffer<int> inserted = poisoned<int>(n + insert_count, ctx);
  mgpu::bulk_insert(mgpu::make_step_iterator(1000, 10), mgpu::make_step_iterator(2, 5), insert_count, data.data(), n,
                    inserted.data(), ctx);
  std::vector<int> got = inserted.to_host();
  const std::vector<int> seed_first_rows = {0, 1, 1000, 2, 3, 4, 5, 6, 1010, 7, 8, 9, 10, 11, 1020, 12, 13, 14, 15, 16};
  const std::vector<int> seed_last_row = {1180, 92, 93, 94, 95, 96, 1190, 97, 98, 99};
  ASSERT_EQ(got.size(), std::size_t(120));
  EXPECT_TRUE(same(seed_first_rows, std::vector<int>(got.begin(), got.begin() + 20)));
  EXPECT_TRUE(same(seed_last_row, std::vector<int>(got.end() - 10, got.end())));
  std::vector<int> a(insert_count), indices(insert_count);
  for (int i = 0; i < insert_count; ++i) a[std::size_t(i)] = 1000 + 10 * i, indices[std::size_t(i)] = 2 + 5 * i;
  EXPECT_TRUE(same(mgpu_ref::bulk_insert(a, indices, ascending), got));

  // a_count 5, b_count 3, indices (1, 1, 2, 3, 3): B0 A0 A1 B1 A2 B2 A3 A4.
  mgpu::buffer<int> small_a(std::vector<int>{100, 101, 102, 103, 104}, ctx), small_b(std::vector<int>{0, 1, 2}, ctx);
  mgpu::buffer<int> small_indices(std::vector<int>{1, 1, 2, 3, 3}, ctx), small_out = poisoned<int>(8, ctx);
  mgpu::bulk_insert(small_a.data(), small_indices.data(), 5, small_b.data(), 3, small_out.data(), ctx);
  EXPECT_TRUE(same(std::vector<int>{0, 100, 101, 1, 102, 2, 103, 104}, small_out.to_host()));
}

// Every input may be a computed iterator and the output a store_iterator.
MGPU_TEST(Bulk, IteratorInputsAndOutputs) {
  mgpu::context ctx;
  const std::int64_t n = 10000;
  mgpu::buffer<std::int64_t> out = poisoned<std::int64_t>(n, ctx);
  std::int64_t* o = out.data();
  auto store = mgpu::make_store_iterator([=] MGPU_LAMBDA(std::int64_t v, std::int64_t i) { o[i] = 2 * v; });
  // Remove the odd numbers of 0 .. 2n - 1.
  mgpu::bulk_remove(mgpu::make_counting_iterator<std::int64_t>(0), 2 * n, mgpu::make_step_iterator<std::int64_t>(1, 2),
                    n, store, ctx);
  std::vector<std::int64_t> expected(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) expected[std::size_t(i)] = 4 * i;
  EXPECT_TRUE(same(expected, out.to_host()));

  // Interleave: -1 - i before each i.
  mgpu::buffer<std::int64_t> merged = poisoned<std::int64_t>(2 * n, ctx);
  mgpu::bulk_insert(mgpu::make_step_iterator<std::int64_t>(-1, -1), mgpu::make_counting_iterator<std::int64_t>(0), n,
                    mgpu::make_counting_iterator<std::int64_t>(0), n, merged.data(), ctx);
  std::vector<std::int64_t> interleaved;
  for (std::int64_t i = 0; i < n; ++i) interleaved.push_back(-1 - i), interleaved.push_back(i);
  EXPECT_TRUE(same(interleaved, merged.to_host()));
}

namespace {

// Calls f in checked mode and expects precondition_error naming the function and `problem`.
void expect_precondition_error(mgpu::context& ctx, const char* function, const char* problem,
                               const std::function<void()>& f) {
  SCOPED_TRACE(std::string(function) + ": " + problem);
  ctx.set_checked(true);
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const mgpu::precondition_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(function), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
  ctx.set_checked(false);
}

}  // namespace

MGPU_TEST(Bulk, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> in(std::vector<int>{1, 2, 3, 4, 5, 6}, ctx), idx(std::vector<int>{0, 2, 4}, ctx);
  mgpu::buffer<int> out = poisoned<int>(9, ctx);
  int *i = in.data(), *x = idx.data(), *o = out.data(), *null = nullptr;
  const char* rm = "mgpu::bulk_remove";
  expect_invalid_argument(rm, "count", [&] { mgpu::bulk_remove(i, -1, x, 0, o, ctx); });
  expect_invalid_argument(rm, "indices_count", [&] { mgpu::bulk_remove(i, 6, x, -3, o, ctx); });
  expect_invalid_argument(rm, "indices_count", [&] { mgpu::bulk_remove(i, 2, x, 3, o, ctx); });
  expect_invalid_argument(rm, "input", [&] { mgpu::bulk_remove(null, 6, x, 3, o, ctx); });
  expect_invalid_argument(rm, "indices", [&] { mgpu::bulk_remove(i, 6, null, 3, o, ctx); });
  expect_invalid_argument(rm, "output", [&] { mgpu::bulk_remove(i, 6, x, 3, null, ctx); });
  expect_invalid_argument(rm, "output", [&] { mgpu::bulk_remove(i, 6, x, 3, i, ctx); });      // in place
  expect_invalid_argument(rm, "output", [&] { mgpu::bulk_remove(i, 6, x, 3, i + 2, ctx); });  // overlaps input
  expect_invalid_argument(rm, "output", [&] { mgpu::bulk_remove(i, 6, x, 3, x + 1, ctx); });  // overlaps indices

  const char* ins = "mgpu::bulk_insert";
  expect_invalid_argument(ins, "a_count", [&] { mgpu::bulk_insert(i, x, -1, i, 6, o, ctx); });
  expect_invalid_argument(ins, "b_count", [&] { mgpu::bulk_insert(i, x, 3, i, -6, o, ctx); });
  expect_invalid_argument(ins, "a", [&] { mgpu::bulk_insert(null, x, 3, i, 6, o, ctx); });
  expect_invalid_argument(ins, "indices", [&] { mgpu::bulk_insert(i, null, 3, i, 6, o, ctx); });
  expect_invalid_argument(ins, "b", [&] { mgpu::bulk_insert(i, x, 3, null, 6, o, ctx); });
  expect_invalid_argument(ins, "output", [&] { mgpu::bulk_insert(i, x, 3, i, 6, null, ctx); });
  expect_invalid_argument(ins, "output", [&] { mgpu::bulk_insert(o, x, 3, i, 6, o + 1, ctx); });  // overlaps a
  expect_invalid_argument(ins, "output", [&] { mgpu::bulk_insert(o, x, 3, i, 6, x, ctx); });      // overlaps indices
  expect_invalid_argument(ins, "output", [&] { mgpu::bulk_insert(o, x, 3, i, 6, i, ctx); });      // overlaps b

  // Zero counts with null pointers are fine and do nothing.
  mgpu::bulk_remove(null, 0, null, 0, null, ctx);
  mgpu::bulk_insert(null, null, 0, null, 0, null, ctx);

  EXPECT_TRUE(same(std::vector<int>{1, 2, 3, 4, 5, 6}, in.to_host()));
  EXPECT_TRUE(same(std::vector<int>{0, 2, 4}, idx.to_host()));
  EXPECT_TRUE(same(std::vector<int>(9, poison<int>()), out.to_host()));
}

MGPU_TEST(Bulk, CheckedModeCatchesBadIndices) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 20000;
  std::vector<pair_value> values = make_values<pair_value>(n, rng);
  mgpu::buffer<pair_value> in(values, ctx), out = poisoned<pair_value>(n + 5000, ctx);
  std::vector<int> good = removal_indices<int>(removal::sparse, n, 1000, rng);
  ASSERT_GT(good.size(), std::size_t(10));

  // Each bad list differs from a good one in one place, deep inside (not in the first tile).
  auto remove_with = [&](std::vector<int> indices) {
    return [&, indices] {
      mgpu::buffer<int> idx(indices, ctx);
      mgpu::bulk_remove(in.data(), n, idx.data(), std::int64_t(indices.size()), out.data(), ctx);
    };
  };
  const char* rm = "mgpu::bulk_remove";
  std::size_t k = good.size() - 3;
  std::vector<int> unsorted = good, repeated = good, too_big = good, negative = good;
  std::swap(unsorted[k], unsorted[k + 1]);
  repeated[k] = repeated[k + 1];
  too_big.back() = int(n);
  negative.front() = -1;
  expect_precondition_error(ctx, rm, "sorted", remove_with(unsorted));
  expect_precondition_error(ctx, rm, "unique", remove_with(repeated));
  expect_precondition_error(ctx, rm, "outside [0, count)", remove_with(too_big));
  expect_precondition_error(ctx, rm, "outside [0, count)", remove_with(negative));

  const char* ins = "mgpu::bulk_insert";
  std::vector<int> positions = insertion_indices<int>(insertion::sparse, n, rng);
  mgpu::buffer<pair_value> a(make_values<pair_value>(std::int64_t(positions.size()), rng), ctx);
  auto insert_with = [&](std::vector<int> indices) {
    return [&, indices] {
      mgpu::buffer<int> idx(indices, ctx);
      mgpu::bulk_insert(a.data(), idx.data(), std::int64_t(indices.size()), in.data(), n, out.data(), ctx);
    };
  };
  std::size_t m = positions.size() / 2;
  std::vector<int> ins_unsorted = positions, ins_big = positions, ins_negative = positions;
  ins_unsorted[m] = ins_unsorted[m + 1] + 1;
  ins_big.back() = int(n + 1);
  ins_negative.front() = -5;
  expect_precondition_error(ctx, ins, "sorted", insert_with(ins_unsorted));
  expect_precondition_error(ctx, ins, "outside [0, b_count]", insert_with(ins_big));
  expect_precondition_error(ctx, ins, "outside [0, b_count]", insert_with(ins_negative));
  EXPECT_TRUE(same(std::vector<pair_value>(std::size_t(n + 5000), poison<pair_value>()), out.to_host()));

  // Good indices pass in checked mode and give the normal result; repeats are fine for insert,
  // and so is an index equal to b_count.
  ctx.set_checked(true);
  check_remove(ctx, values, good);
  positions.back() = int(n);
  positions[1] = positions[0];
  check_insert(ctx, make_values<pair_value>(std::int64_t(positions.size()), rng), positions, values);
}

// Without checked mode, bad indices give unspecified results but stay inside the arrays: the
// guard elements around the output keep their poison.
MGPU_TEST(Bulk, UncheckedMisuseStaysInBounds) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 30000, guard = 4096;
  std::vector<int> values = make_values<int>(n, rng);
  mgpu::buffer<int> in(values, ctx);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<int> indices(5000);
    for (int& i : indices) i = int(rng() % (2 * n)) - int(n / 2);  // unsorted, repeated, out of range
    mgpu::buffer<int> idx(indices, ctx);
    std::int64_t r = std::int64_t(indices.size());
    mgpu::buffer<int> out = poisoned<int>(n + r + 2 * guard, ctx);
    mgpu::bulk_remove(in.data(), n, idx.data(), r, out.data() + guard, ctx);
    mgpu::bulk_insert(in.data(), idx.data(), r, in.data(), n, out.data() + guard, ctx);
    std::vector<int> got = out.to_host();
    EXPECT_TRUE(std::all_of(got.begin(), got.begin() + guard, [](int v) { return v == poison<int>(); }));
    EXPECT_TRUE(std::all_of(got.end() - guard, got.end(), [](int v) { return v == poison<int>(); }));
  }
}

// Issue 20: an input of at most one tile costs one launch, with no partition pass.
MGPU_TEST(Bulk, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t remove_nv = mgpu::bulk_remove_params<int>::nv, insert_nv = mgpu::bulk_insert_params<int>::nv;
  const std::int64_t n_max = std::max(remove_nv, insert_nv);
  mgpu::buffer<int> in(n_max, ctx), out(n_max, ctx), indices(std::vector<int>{0, 1, 1}, ctx);
  in.fill(1);
  const int *i = in.data(), *x = indices.data();
  int* o = out.data();
  for (std::int64_t n : {std::int64_t(3), remove_nv})
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::bulk_remove(i, n, x, 2, o, c); }), one_launch)
        << "bulk_remove, n = " << n;
  for (std::int64_t n : {std::int64_t(4), insert_nv})
    EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::bulk_insert(i, x, 3, i, n - 3, o, c); }), one_launch)
        << "bulk_insert, n = " << n;
}
