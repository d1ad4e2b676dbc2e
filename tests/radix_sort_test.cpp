// radix_sort (keys, pairs; ascending, descending; bit ranges) against std::stable_sort with
// comparators written here, independently of the library: by value (NaNs by sign and payload,
// -0.0 equal to +0.0) for whole keys, and by the extracted bits of the ordered pattern for bit
// ranges. Values record original positions, so the pair sorts prove stability. Keys are compared
// bit for bit (NaN payloads, the sign of zero).
#include "references/merge_sort.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace mgpu_test;
using mgpu::radix_order;

namespace {

template <int bytes>
struct bits_of;
template <>
struct bits_of<1> {
  using type = std::uint8_t;
};
template <>
struct bits_of<2> {
  using type = std::uint16_t;
};
template <>
struct bits_of<4> {
  using type = std::uint32_t;
};
template <>
struct bits_of<8> {
  using type = std::uint64_t;
};
template <typename K>
using bits_t = typename bits_of<int(sizeof(K))>::type;

template <typename K>
bits_t<K> bits(K key) {
  bits_t<K> b;
  std::memcpy(&b, &key, sizeof(K));
  return b;
}
template <typename K>
K from_bits(std::uint64_t b) {
  bits_t<K> narrow = bits_t<K>(b);
  K key;
  std::memcpy(&key, &narrow, sizeof(K));
  return key;
}

// The order CUB documents, by value: integers by value; floating point by value with -0.0 and
// +0.0 equal, NaNs with the sign bit set first (larger payload first), other NaNs last (larger
// payload last).
template <typename K>
struct value_less {
  static int rank(K x) {
    if constexpr (std::is_floating_point<K>::value)
      if (std::isnan(x)) return std::signbit(x) ? 0 : 2;
    return 1;
  }
  bool operator()(K a, K b) const {
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    if (ra == 0) return bits(a) > bits(b);
    if (ra == 2) return bits(a) < bits(b);
    return a < b;
  }
};

// Bits [begin, end) of the ordered pattern: sign flipped for signed integers; for floats -0.0
// taken as +0.0, then the sign flipped for positives and every bit flipped for negatives.
template <typename K>
struct bit_range_less {
  int begin, end;
  std::uint64_t field(K x) const {
    constexpr int n = int(8 * sizeof(K));
    std::uint64_t b = bits(x), sign = std::uint64_t(1) << (n - 1), all = n == 64 ? ~0ull : (1ull << n) - 1;
    if constexpr (std::is_floating_point<K>::value) {
      if (b == sign) b = 0;
      b = (b & sign) ? ~b & all : b | sign;
    } else if constexpr (std::is_signed<K>::value) {
      b ^= sign;
    }
    std::uint64_t width_mask = end - begin == 64 ? ~0ull : (1ull << (end - begin)) - 1;
    return begin == end ? 0 : (b >> begin) & width_mask;
  }
  bool operator()(K a, K b) const { return field(a) < field(b); }
};

// Reverses a strict weak order; stable sorting by it keeps equal keys in input order.
template <typename Comp>
struct reversed {
  Comp comp;
  template <typename K>
  bool operator()(K a, K b) const {
    return comp(b, a);
  }
};

template <typename K>
std::string show(K x) {
  std::ostringstream os;
  if constexpr (std::is_floating_point<K>::value)
    os << std::setprecision(17) << x << " (0x" << std::hex << std::uint64_t(bits(x)) << ")";
  else
    os << +x;
  return os.str();
}

// Bit-for-bit comparison (NaN payloads and the sign of zero count).
template <typename K>
::testing::AssertionResult same_bits(const std::vector<K>& expected, const std::vector<K>& actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  std::size_t wrong = 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (bits(expected[i]) != bits(actual[i])) {
      if (wrong < 5) result << "\n  [" << i << "] = " << show(actual[i]) << ", expected " << show(expected[i]);
      ++wrong;
    }
  if (!wrong) return ::testing::AssertionSuccess();
  return result << "\n  " << wrong << " of " << expected.size() << " elements differ";
}

// Random bit patterns (every value of an integer type; for floats also NaNs, infinities,
// subnormals and both zeros), with one key in 8 replaced by a special value.
template <typename K>
std::vector<K> random_keys(std::int64_t n, std::mt19937_64& rng) {
  std::vector<K> specials;
  if constexpr (std::is_floating_point<K>::value) {
    using lim = std::numeric_limits<K>;
    specials = {K(0),
                -K(0),
                lim::infinity(),
                -lim::infinity(),
                lim::quiet_NaN(),
                -lim::quiet_NaN(),
                lim::denorm_min(),
                -lim::denorm_min(),
                lim::max(),
                lim::lowest(),
                K(1),
                K(-1)};
  } else {
    using lim = std::numeric_limits<K>;
    specials = {K(0), K(1), lim::max(), lim::min(), K(lim::max() - 1), K(lim::min() + 1)};
    if (std::is_signed<K>::value) specials.push_back(K(-1));
  }
  std::vector<K> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    std::uint64_t r = rng();
    x = r % 8 == 0 ? specials[(r >> 8) % specials.size()] : from_bits<K>(rng());
  }
  return v;
}

// Heavy duplicates: 17 distinct values, negatives and (for floats) both zeros included.
template <typename K>
std::vector<K> few_distinct_keys(std::int64_t n, std::mt19937_64& rng) {
  std::vector<K> pool;
  for (int i = 0; i < 15; ++i) pool.push_back(std::is_signed<K>::value ? K(i - 7) : K(3 * i));
  if constexpr (std::is_floating_point<K>::value) {
    pool.push_back(-K(0));
    pool.push_back(K(-0.5));
  } else {
    pool.push_back(std::numeric_limits<K>::max());
    pool.push_back(std::numeric_limits<K>::min());
  }
  std::vector<K> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = pool[rng() % pool.size()];
  return v;
}

std::vector<std::int64_t> positions(std::int64_t n) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) p[std::size_t(i)] = i;
  return p;
}

// Sorts `keys` (keys only, then with their positions as values) and checks against the
// reference order `comp`, which must already include the direction.
template <typename params = void, typename K, typename Comp>
void check_radix_sort(mgpu::context& ctx, const std::vector<K>& keys, radix_order order, int begin_bit, int end_bit,
                      Comp comp) {
  std::int64_t n = std::int64_t(keys.size());
  std::vector<std::int64_t> expected_order = mgpu_ref::stable_order(keys, comp);
  std::vector<K> expected = mgpu_ref::permute(keys, expected_order);
  bool whole_key = begin_bit == 0 && end_bit == int(8 * sizeof(K));

  mgpu::buffer<K> k(keys, ctx);
  if (whole_key && order == radix_order::ascending)
    mgpu::radix_sort<params>(k.data(), n, ctx);
  else if (whole_key)
    mgpu::radix_sort<params>(k.data(), n, order, ctx);
  else
    mgpu::radix_sort<params>(k.data(), n, order, begin_bit, end_bit, ctx);
  EXPECT_TRUE(same_bits(expected, k.to_host())) << "keys only";

  mgpu::buffer<K> k2(keys, ctx);
  mgpu::buffer<std::int64_t> v(positions(n), ctx);
  if (whole_key && order == radix_order::ascending)
    mgpu::radix_sort<params>(k2.data(), v.data(), n, ctx);
  else if (whole_key)
    mgpu::radix_sort<params>(k2.data(), v.data(), n, order, ctx);
  else
    mgpu::radix_sort<params>(k2.data(), v.data(), n, order, begin_bit, end_bit, ctx);
  EXPECT_TRUE(same_bits(expected, k2.to_host())) << "pairs: keys";
  EXPECT_TRUE(same(expected_order, v.to_host())) << "pairs: values (stability)";
}

template <typename params = void, typename K>
void check_both_orders(mgpu::context& ctx, const std::vector<K>& keys) {
  constexpr int all = int(8 * sizeof(K));
  {
    SCOPED_TRACE("ascending");
    check_radix_sort<params>(ctx, keys, radix_order::ascending, 0, all, value_less<K>());
  }
  {
    SCOPED_TRACE("descending");
    check_radix_sort<params>(ctx, keys, radix_order::descending, 0, all, reversed<value_less<K>>{value_less<K>()});
  }
}

}  // namespace

template <typename T>
class RadixSortTyped : public ::testing::Test {};
using radix_key_types = test_types<std::int32_t, double, std::int8_t, std::uint8_t, std::int16_t, std::uint32_t,
                                   std::int64_t, std::uint64_t, float>;
TYPED_TEST_SUITE(RadixSortTyped, radix_key_types);

MGPU_TYPED_TEST(RadixSortTyped, MatchesStableSortBothOrders) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::vector<std::int64_t> sizes = sizes_for(mgpu::radix_sort_params<T>::nv, 200003);
  // Around where the one-tile path (a mergesort tile; pairs carry std::int64_t values) ends.
  for (std::int64_t nv : {mgpu::mergesort_params<T>::nv, mgpu::mergesort_params<T, std::int64_t>::nv})
    sizes.insert(sizes.end(), {nv - 1, nv, nv + 1});
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n=" + std::to_string(n));
    {
      SCOPED_TRACE("random bits");
      check_both_orders(ctx, random_keys<T>(n, rng));
    }
    {
      SCOPED_TRACE("few distinct");
      check_both_orders(ctx, few_distinct_keys<T>(n, rng));
    }
  }
}

MGPU_TYPED_TEST(RadixSortTyped, BitRanges) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  constexpr int all = int(8 * sizeof(T));
  // Empty, one bit, partial digits, odd and even numbers of 8-bit passes, the sign bit alone.
  std::vector<std::pair<int, int>> ranges{{0, 0},       {all, all}, {0, 1},         {3, std::min(11, all)},
                                          {0, all / 2}, {1, all},   {all - 1, all}, {all / 4, all - 3}};
  for (auto [begin, end] : ranges)
    for (std::int64_t n : {std::int64_t(2), std::int64_t(777), std::int64_t(30011)}) {
      SCOPED_TRACE("bits [" + std::to_string(begin) + ", " + std::to_string(end) + ") n=" + std::to_string(n));
      std::vector<T> keys = random_keys<T>(n, rng);
      bit_range_less<T> by_bits{begin, end};
      check_radix_sort(ctx, keys, radix_order::ascending, begin, end, by_bits);
      check_radix_sort(ctx, keys, radix_order::descending, begin, end, reversed<bit_range_less<T>>{by_bits});
    }
}

MGPU_TEST(RadixSort, LargeUnsignedPairs) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  std::int64_t n = sizes_for(mgpu::radix_sort_params<std::uint32_t>::nv).back();  // about 2^20
  SCOPED_TRACE("n=" + std::to_string(n));
  check_radix_sort(ctx, random_keys<std::uint32_t>(n, rng), radix_order::ascending, 0, 32, value_less<std::uint32_t>());
}

// Up to detail::radix_merge_limit keys radix_sort merges (mergesort in the radix order), past it
// it runs radix passes (CUB on CUDA, the LSD sort on the simulator): both sides of the limits of
// keys only and of pairs with 8-byte values (check_radix_sort sorts both), by value (integers,
// ascending) and by radix_less (descending, floats).
template <typename K>
void check_both_sides_of_merge_limits(mgpu::context& ctx, std::mt19937_64& rng, radix_order order) {
  constexpr int all = int(8 * sizeof(K));
  bool by_value = std::is_integral<K>::value && order == radix_order::ascending;
  for (std::int64_t limit : {mgpu::detail::radix_merge_limit<K, mgpu::empty_t>(all, by_value),
                             mgpu::detail::radix_merge_limit<K, std::int64_t>(all, by_value)}) {
    ASSERT_GT(limit, std::int64_t(5000));
    if (quick() && limit > (1 << 18)) continue;
    for (std::int64_t n : {limit, limit + 1}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      if (order == radix_order::ascending)
        check_radix_sort(ctx, random_keys<K>(n, rng), order, 0, all, value_less<K>());
      else
        check_radix_sort(ctx, random_keys<K>(n, rng), order, 0, all, reversed<value_less<K>>{value_less<K>()});
    }
  }
}

MGPU_TEST(RadixSort, BothSidesOfTheMergeLimits) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  check_both_sides_of_merge_limits<std::int32_t>(ctx, rng, radix_order::ascending);
  check_both_sides_of_merge_limits<std::uint64_t>(ctx, rng, radix_order::descending);
  check_both_sides_of_merge_limits<float>(ctx, rng, radix_order::ascending);
}

// The float order spelled out: both zeros equal (input order kept), NaNs by sign and payload.
MGPU_TEST(RadixSort, FloatOrderOfSpecialValues) {
  mgpu::context ctx;
  const float inf = std::numeric_limits<float>::infinity();
  const float pos_nan1 = from_bits<float>(0x7fc00001), pos_nan3 = from_bits<float>(0x7fc00003);
  const float neg_nan1 = from_bits<float>(0xffc00001), neg_nan5 = from_bits<float>(0xffc00005);
  const float tiny = std::numeric_limits<float>::denorm_min();
  //                          0     1      2     3     4         5      6    7         8      9     10        11 12
  std::vector<float> keys{1.0f,     -0.0f, 0.0f, -inf,     pos_nan1, -1.0f, inf,
                          neg_nan1, -0.0f, tiny, neg_nan5, pos_nan3, 0.0f};
  std::vector<std::int64_t> ascending{10, 7, 3, 5, 1, 2, 8, 12, 9, 0, 6, 4, 11};
  std::vector<std::int64_t> descending{11, 4, 6, 0, 9, 1, 2, 8, 12, 5, 3, 7, 10};
  for (auto [order, expected_order] :
       {std::make_pair(radix_order::ascending, ascending), std::make_pair(radix_order::descending, descending)}) {
    SCOPED_TRACE(order == radix_order::ascending ? "ascending" : "descending");
    mgpu::buffer<float> k(keys, ctx);
    mgpu::buffer<std::int64_t> v(positions(std::int64_t(keys.size())), ctx);
    mgpu::radix_sort(k.data(), v.data(), std::int64_t(keys.size()), order, ctx);
    EXPECT_TRUE(same_bits(mgpu_ref::permute(keys, expected_order), k.to_host()));
    EXPECT_TRUE(same(expected_order, v.to_host()));
  }
  // The same keys as doubles.
  std::vector<double> wide;
  for (float x : keys)
    wide.push_back(std::isnan(x) ? from_bits<double>((std::uint64_t(bits(x) >> 31) << 63) | 0x7ff8000000000000ull |
                                                     (bits(x) & 0xff))
                                 : double(x));
  mgpu::buffer<double> k(wide, ctx);
  mgpu::buffer<std::int64_t> v(positions(std::int64_t(wide.size())), ctx);
  mgpu::radix_sort(k.data(), v.data(), std::int64_t(wide.size()), ctx);
  EXPECT_TRUE(same_bits(mgpu_ref::permute(wide, ascending), k.to_host()));
  EXPECT_TRUE(same(ascending, v.to_host()));
}

MGPU_TEST(RadixSort, PresortedReversedAndAllEqual) {
  mgpu::context ctx;
  const std::int64_t n = 100003;
  std::vector<int> ascending(static_cast<std::size_t>(n)), descending(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    ascending[std::size_t(i)] = int(i - n / 2), descending[std::size_t(i)] = int(n / 2 - i);
  check_both_orders(ctx, ascending);
  check_both_orders(ctx, descending);
  check_both_orders(ctx, std::vector<int>(static_cast<std::size_t>(n), -7));
  check_both_orders(ctx, std::vector<double>(static_cast<std::size_t>(n), -0.0));
}

// Small tiles: many tiles (and, on the simulator, many digit runs per tile) at small sizes.
MGPU_TEST(RadixSort, ManyTilesWithSmallTiles) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  using small = mgpu::launch_params<32, 4>;
  for (std::int64_t n :
       {std::int64_t(1), std::int64_t(127), std::int64_t(128), std::int64_t(129), std::int64_t(20011)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_both_orders<small>(ctx, random_keys<std::int32_t>(n, rng));
    check_both_orders<small>(ctx, few_distinct_keys<double>(n, rng));
  }
}

// Values of a user struct move with their keys.
MGPU_TEST(RadixSort, UserStructValues) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  const std::int64_t n = 50001;
  std::vector<std::uint16_t> keys = few_distinct_keys<std::uint16_t>(n, rng);
  std::vector<pair_value> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[std::size_t(i)] = pair_value{int(i), float(keys[std::size_t(i)])};
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, reversed<value_less<std::uint16_t>>{});
  mgpu::buffer<std::uint16_t> k(keys, ctx);
  mgpu::buffer<pair_value> v(values, ctx);
  mgpu::radix_sort(k.data(), v.data(), n, radix_order::descending, ctx);
  EXPECT_TRUE(same(mgpu_ref::permute(keys, order), k.to_host()));
  EXPECT_TRUE(same(mgpu_ref::permute(values, order), v.to_host()));
}

// The portable LSD sort is what the simulator runs; on CUDA this runs it on the GPU, against the
// same reference as CUB.
MGPU_TEST(RadixSort, PortableLsdSort) {
  mgpu::context ctx;
  MGPU_SEEDED_RNG(rng);
  for (std::int64_t n : {std::int64_t(5), std::int64_t(4097), std::int64_t(123457)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<float> keys = random_keys<float>(n, rng);
    for (radix_order order : {radix_order::ascending, radix_order::descending}) {
      std::vector<std::int64_t> expected_order = order == radix_order::ascending
                                                     ? mgpu_ref::stable_order(keys, value_less<float>())
                                                     : mgpu_ref::stable_order(keys, reversed<value_less<float>>{});
      mgpu::buffer<float> k(keys, ctx);
      mgpu::buffer<std::int64_t> v(positions(n), ctx);
      mgpu::detail::radix_sort_lsd<void>("test", k.data(), v.data(), n, order, 0, 32, ctx);
      EXPECT_TRUE(same_bits(mgpu_ref::permute(keys, expected_order), k.to_host()));
      EXPECT_TRUE(same(expected_order, v.to_host()));
    }
    std::vector<std::int32_t> ints = random_keys<std::int32_t>(n, rng);
    std::vector<std::int32_t> expected =
        mgpu_ref::permute(ints, mgpu_ref::stable_order(ints, value_less<std::int32_t>()));
    mgpu::buffer<std::int32_t> k(ints, ctx);
    mgpu::detail::radix_sort_lsd<void>("test", k.data(), static_cast<mgpu::empty_t*>(nullptr), n,
                                       radix_order::ascending, 0, 32, ctx);
    EXPECT_TRUE(same(expected, k.to_host())) << "keys only";
  }
}

MGPU_TEST(RadixSort, BadArgumentsThrowAndWriteNothing) {
  mgpu::context ctx;
  std::vector<int> original{3, 1, 2, 5, 4, 0};
  mgpu::buffer<int> keys(original, ctx), values(original, ctx);
  int* null = nullptr;
  EXPECT_THROW(mgpu::radix_sort(keys.data(), -1, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), values.data(), -3, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(null, 5, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(null, values.data(), 5, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), null, 5, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), keys.data(), 6, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), keys.data() + 1, 3, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), 6, radix_order::ascending, -1, 8, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), 6, radix_order::ascending, 0, 33, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), 6, radix_order::ascending, 9, 8, ctx), std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), values.data(), 6, radix_order::descending, 33, 33, ctx),
               std::invalid_argument);
  EXPECT_THROW(mgpu::radix_sort(keys.data(), 6, static_cast<radix_order>(7), ctx), std::invalid_argument);
  EXPECT_TRUE(same(original, keys.to_host()));
  EXPECT_TRUE(same(original, values.to_host()));
  // Null pointers with a count of zero are fine, and do nothing.
  EXPECT_NO_THROW(mgpu::radix_sort(null, 0, ctx));
  EXPECT_NO_THROW(mgpu::radix_sort(null, null, 0, radix_order::descending, ctx));
}

#if defined(MGPU_BACKEND_CUDA)
// More than 2^31 keys: CUB with 64-bit offsets. Keys 250 - i % 251 (uint8), checked on the device
// for order and for the count of every value.
MGPU_TEST(RadixSort, MoreThan2To31Keys) {
  if (quick()) GTEST_SKIP() << "MGPU_TEST_QUICK";
  mgpu::context ctx;
  const std::int64_t n = (std::int64_t(1) << 31) + 1000003;
  mgpu::buffer<std::uint8_t> keys(n, ctx);
  std::uint8_t* k = keys.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { k[i] = std::uint8_t(250 - i % 251); }, n, ctx);
  mgpu::radix_sort(k, n, ctx);
  // [0, 256): count of each key value; [256]: adjacent pairs out of order.
  mgpu::buffer<unsigned long long> tally(std::vector<unsigned long long>(257, 0), ctx);
  unsigned long long* t = tally.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        atomicAdd(&t[k[i]], 1ull);
        if (i > 0 && k[i - 1] > k[i]) atomicAdd(&t[256], 1ull);
      },
      n, ctx);
  std::vector<unsigned long long> expected(257, 0);
  for (int value = 0; value <= 250; ++value) {
    int residue = 250 - value;  // keys of this value sit at i with i % 251 == residue
    expected[std::size_t(value)] = (unsigned long long)(n / 251 + (residue < n % 251 ? 1 : 0));
  }
  EXPECT_TRUE(same(expected, tally.to_host()));
}
#endif

// Issue 20: keys that fit one mergesort tile are sorted by one launch in the radix order, with no
// temporaries, on both backends (their results: the typed tests above, at the tile's sizes).
MGPU_TEST(RadixSort, OneTileIsOneLaunch) {
  mgpu::context ctx;
  const std::int64_t keys_nv = mgpu::mergesort_params<float>::nv, pairs_nv = mgpu::mergesort_params<float, int>::nv;
  mgpu::buffer<float> keys(keys_nv, ctx);
  mgpu::buffer<int> values(pairs_nv, ctx);
  keys.fill(1.0f);
  float* k = keys.data();
  int* v = values.data();
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::radix_sort(k, keys_nv, c); }), one_launch);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::radix_sort(k, keys_nv, radix_order::descending, 3, 20, c); }),
            one_launch);
  EXPECT_EQ(count_enqueued([&](mgpu::context& c) { mgpu::radix_sort(k, v, pairs_nv, c); }), one_launch);
}
