// mgpu/algorithms/radix_sort.hpp
//
// radix_sort: a stable in-place sort of arithmetic keys (optionally with values) by the bits of
// the keys, in ascending or descending order, optionally by a range of bits only.
//
// The order is CUB's (cub::DeviceRadixSort) on both backends. Each key maps to an unsigned
// "ordered" bit pattern whose unsigned order is the sort order:
//   unsigned integers: the bits themselves;
//   signed integers:   the bits with the sign bit flipped;
//   float, double:     -0.0 first becomes +0.0 (the two zeros are equal keys); then positive
//                      values get the sign bit flipped and negative values get every bit flipped.
// So floats sort as -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN: NaNs with the sign bit
// set come first (larger payloads first), NaNs without it come last (larger payloads last).
// Descending order sorts by the complement of the ordered bits; stability still keeps equal keys
// in their input order. With a bit range [begin_bit, end_bit), keys compare by those bits of the
// ordered pattern only.
//
// Backends. On CUDA the sort is cub::DeviceRadixSort (onesweep; descending float sorts by a
// partial bit range excepted, see radix_sort_impl), given a cub::DoubleBuffer whose
// alternate half is one temporary copy of the keys (and values) from the context; when the
// passes end in that copy it is copied back. On the simulator (and available on CUDA as
// detail::radix_sort_lsd) it is the library's own least-significant-digit radix sort, one pass
// per 8 bits of the range. Each pass: (1) every tile counts its keys' digits into a 256-bin
// histogram, stored digit-major as counts[digit * tiles + tile]; (2) one exclusive scan of
// those counts gives each (digit, tile) its first output slot, in digit order and, within a
// digit, in tile order; (3) every tile sorts itself stably by the digit in shared memory (two
// 4-bit counting-sort steps: per-thread counters, a CTA scan over them in digit-major order,
// a scatter) and writes each key to its (digit, tile) slot plus its rank among the tile's keys of
// that digit. Keys and values ping-pong between the caller's arrays and one temporary copy.
// On both backends, counts up to a limit that depends on the key, value and bit-range widths
// (radix_merge_limit: a million 4-byte integer keys) are sorted by the library's mergesort with
// the radix order as comparator, which gives the same result: an input that fits one mergesort
// tile (2,816 four-byte keys) in one launch with no temporaries, larger ones faster than CUB's
// passes there (measured on an H100).
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/loadstore.hpp"
#include "mergesort.hpp"
#include "scan.hpp"

#if defined(MGPU_BACKEND_CUDA)
  #include <cub/device/device_radix_sort.cuh>
#endif

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace mgpu {

// The order of a radix sort.
enum class radix_order { ascending, descending };

// Default shape of the portable LSD radix sort's kernels. The CUDA backend sorts with CUB and its
// own tuning, so these only matter where the portable sort runs: the simulator, which pays for
// every thread at every barrier and so runs fastest with few threads holding many keys
// (64 x 64: 1M 32-bit keys in about 0.1 s on 2 cores, 1.4x faster than 128 x 32), and
// detail::radix_sort_lsd called on a GPU, which wants more threads per CTA.
#if defined(MGPU_BACKEND_SIM)
template <typename K>
using radix_sort_params = launch_params<64, 64>;
#else
template <typename K>
using radix_sort_params = launch_params<128, (sizeof(K) > 4 ? 16 : 32)>;
#endif

namespace detail {

// The key types radix_sort takes: the standard integer types (char included, bool and the
// character types char16_t/char32_t/wchar_t excluded) and float and double: the primitive types
// that cub::DeviceRadixSort sorts.
template <typename K>
constexpr bool is_radix_key_v = (std::is_integral<K>::value && sizeof(K) <= 8 && !std::is_same<K, bool>::value &&
                                 !std::is_same<K, wchar_t>::value && !std::is_same<K, char16_t>::value &&
                                 !std::is_same<K, char32_t>::value) ||
                                std::is_same<K, float>::value || std::is_same<K, double>::value;

template <int bytes>
struct unsigned_of_size;
template <>
struct unsigned_of_size<1> {
  using type = std::uint8_t;
};
template <>
struct unsigned_of_size<2> {
  using type = std::uint16_t;
};
template <>
struct unsigned_of_size<4> {
  using type = std::uint32_t;
};
template <>
struct unsigned_of_size<8> {
  using type = std::uint64_t;
};

// The bit pattern of a key whose unsigned order is the sort order (see the top of the file).
template <typename K>
struct radix_key {
  using bits_t = typename unsigned_of_size<int(sizeof(K))>::type;
  static constexpr int bits = int(8 * sizeof(K));
  static constexpr bits_t sign = bits_t(bits_t(1) << (bits - 1));

  MGPU_HOST_DEVICE static bits_t ordered(K key) {
    bits_t b;
    std::memcpy(&b, &key, sizeof(K));
    if constexpr (std::is_floating_point<K>::value) {
      if (b == sign) b = 0;  // -0.0 sorts as +0.0, as in CUB
      return bits_t(b ^ ((b & sign) ? bits_t(~bits_t(0)) : sign));
    } else if constexpr (std::is_signed<K>::value) {
      return bits_t(b ^ sign);
    } else {
      return b;
    }
  }
};

// The radix order as a comparator: keys compare by bits [begin_bit, end_bit) of their ordered
// patterns, complemented for descending order. Sorting stably by it gives exactly what the radix
// sort gives (the order of equal keys is fixed by stability).
template <typename K>
struct radix_less {
  using bits_t = typename radix_key<K>::bits_t;
  bits_t flip, mask;  // mask: end_bit - begin_bit low bits
  int shift;          // begin_bit, below the key's width
  radix_less(radix_order order, int begin_bit, int end_bit)
      : flip(order == radix_order::descending ? bits_t(~bits_t(0)) : bits_t(0)),
        mask(end_bit - begin_bit >= radix_key<K>::bits ? bits_t(~bits_t(0))
                                                       : bits_t((std::uint64_t(1) << (end_bit - begin_bit)) - 1)),
        shift(begin_bit) {}
  MGPU_HOST_DEVICE bits_t sort_bits(K key) const {
    return bits_t(bits_t(bits_t(radix_key<K>::ordered(key) ^ flip) >> shift) & mask);
  }
  MGPU_HOST_DEVICE bool operator()(K a, K b) const { return sort_bits(a) < sort_bits(b); }
};

// Bits of the global digit of one LSD pass, and of the two counting-sort steps within a tile.
constexpr int radix_digit_bits = 8;
constexpr int radix_digits = 1 << radix_digit_bits;
constexpr int radix_step_bits = 4;
constexpr int radix_step_digits = 1 << radix_step_bits;

// The largest count that radix_sort sorts by merging, with mergesort in the radix order, rather
// than by radix passes; 0: never (beyond one mergesort tile). The merge sort's device time grows as
// n log n; the radix sort's is a pass over the keys and values per 8 bits of the range, plus the
// fixed cost of CUB's global histogram and per-pass launches, which dominates at these counts. On
// an H100 (bench/results/2026-11-27_h100_radix_by_merge_probe.txt, CCCL 3.0.1) the merge sort was
// the faster from past CUB's single tile up to about (passes x 2^20 / bytes per key and value)
// with a comparison of integers by value (`cheap`: the sorting network's min and max), and up to
// about a sixteenth of that with radix_less's mapping in every comparison (floats, bit ranges).
// Ranges of at most 24 bits (3 passes or fewer: 1- and 2-byte keys among them) were not measured;
// the radix passes, fewer there, keep them.
template <typename K, typename V>
constexpr std::int64_t radix_merge_limit(int range_bits, bool cheap) {
  int passes = (range_bits + radix_digit_bits - 1) / radix_digit_bits;
  if (passes < 4) return 0;
  std::int64_t item_bytes = std::int64_t(sizeof(K)) + (has_values_v<V> ? std::int64_t(sizeof(V)) : 0);
  return passes * (cheap ? std::int64_t(1) << 20 : std::int64_t(1) << 16) / item_bytes;
}

// One pass: the digit of a key is `bits_in_pass` bits of its (possibly complemented) ordered
// pattern starting at `shift`.
template <typename K>
struct radix_pass {
  using bits_t = typename radix_key<K>::bits_t;
  bits_t flip;  // all ones for descending order
  int shift;
  int bits_in_pass;
  MGPU_HOST_DEVICE unsigned digit(K key) const {
    return unsigned(bits_t(radix_key<K>::ordered(key) ^ flip) >> shift) & ((1u << bits_in_pass) - 1);
  }
  MGPU_HOST_DEVICE int digits() const { return 1 << bits_in_pass; }
};

// Step (1): counts[digit * tiles + tile] = keys of tile `tile` with that digit.
template <typename P, typename K>
void radix_histogram(const K* keys, std::int64_t count, int tiles, radix_pass<K> pass, std::int64_t* counts,
                     context& ctx) {
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ int bins[radix_digits];
    for (int d = tid; d < radix_digits; d += P::nt) bins[d] = 0;
    __syncthreads();
    std::int64_t first = std::int64_t(tile) * P::nv;
    int valid = int(count - first < P::nv ? count - first : P::nv);
    const K* tile_keys = keys + first;
    MGPU_UNROLL
    for (int i = 0; i < P::vt; ++i) {
      int j = P::nt * i + tid;
      if (j < valid) atomicAdd(&bins[pass.digit(tile_keys[j])], 1);
    }
    __syncthreads();
    for (int d = tid; d < pass.digits(); d += P::nt) counts[std::int64_t(d) * tiles + tile] = bins[d];
  };
  cta_launch<P>(kernel, tiles, ctx);
}

template <typename P, typename K, bool with_values>
struct radix_tile_storage {
  K keys[P::nv];
  std::uint16_t index[with_values ? P::nv : 1];  // where each sorted key sat in the tile
  int counters[radix_step_digits * P::nt];       // [digit][thread]
  int digit_start[radix_digits];                 // first sorted position of each digit
  typename cta_scan<P::nt, int>::storage_t scan;
};

// Step (3): each tile of keys_in (values_in) sorted stably by the pass's digit and scattered to
// keys_out (values_out) at offsets[digit * tiles + tile] + rank within the tile's digit.
template <typename P, typename K, typename V>
void radix_scatter(const K* keys_in, const V* values_in, std::int64_t count, int tiles, radix_pass<K> pass,
                   const std::int64_t* offsets, K* keys_out, V* values_out, context& ctx) {
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  static_assert(NV <= 65536, "radix_sort: a tile holds at most 65536 keys (16-bit tile positions)");
  using storage_t = radix_tile_storage<P, K, has_values_v<V>>;
  using scan_t = cta_scan<NT, int>;

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    // (nvcc: a device lambda must not first capture a variable inside `if constexpr`.)
    const V* tile_values_in = values_in;
    V* tile_values_out = values_out;
    std::int64_t first = std::int64_t(tile) * NV;
    int valid = int(count - first < NV ? count - first : NV);
    // Keys in thread order: this thread holds tile positions [VT * tid, VT * tid + mine).
    array_t<K, VT> keys = mem_to_reg_thread<NT, VT, K>(keys_in + first, tid, valid, s.keys);
    int mine = valid - VT * tid < 0 ? 0 : (valid - VT * tid < VT ? valid - VT * tid : VT);
    array_t<std::uint16_t, VT> index;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) index[i] = std::uint16_t(VT * tid + i);

    // Stable counting sorts of the tile by the digit's low, then high, radix_step_bits bits.
    // Only the valid keys take part: after each step they occupy positions [0, valid).
    for (int step = 0; step < pass.bits_in_pass; step += radix_step_bits) {
      int step_shift = step;
      unsigned step_mask =
          (1u << (pass.bits_in_pass - step < radix_step_bits ? pass.bits_in_pass - step : radix_step_bits)) - 1;
      bool last_step = step + radix_step_bits >= pass.bits_in_pass;

      // This thread's count of each step digit, in its own column of counters.
      MGPU_UNROLL
      for (int d = 0; d < radix_step_digits; ++d) s.counters[d * NT + tid] = 0;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (i < mine) ++s.counters[int(pass.digit(keys[i]) >> step_shift & step_mask) * NT + tid];
      __syncthreads();

      // Exclusive scan of the counters in [digit][thread] order: counters[d][t] becomes the
      // tile position of thread t's first key with step digit d. Thread t scans the
      // radix_step_digits counters at flat positions [radix_step_digits * t, ... + radix_step_digits).
      int local[radix_step_digits];
      int total = 0;
      MGPU_UNROLL
      for (int j = 0; j < radix_step_digits; ++j) {
        local[j] = s.counters[radix_step_digits * tid + j];
        total += local[j];
      }
      int running = scan_t::exclusive(tid, total, s.scan, plus<int>(), 0).scan;
      MGPU_UNROLL
      for (int j = 0; j < radix_step_digits; ++j) {
        s.counters[radix_step_digits * tid + j] = running;
        running += local[j];
      }
      __syncthreads();

      // Scatter into shared memory in sorted order (stable: this thread's keys in order, after
      // every earlier thread's keys of the same digit).
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (i < mine) {
          int position = s.counters[int(pass.digit(keys[i]) >> step_shift & step_mask) * NT + tid]++;
          s.keys[position] = keys[i];
          if constexpr (has_values_v<V>) s.index[position] = index[i];
        }
      __syncthreads();
      if (!last_step) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (i < mine) {
            keys[i] = s.keys[VT * tid + i];
            if constexpr (has_values_v<V>) index[i] = s.index[VT * tid + i];
          }
        __syncthreads();
      }
    }

    // The sorted tile is in s.keys[0, valid). Where each digit's run starts:
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int p = NT * i + tid;
      if (p < valid) {
        unsigned d = pass.digit(s.keys[p]);
        if (p == 0 || pass.digit(s.keys[p - 1]) != d) s.digit_start[d] = p;
      }
    }
    __syncthreads();
    // Neighbouring threads write neighbouring slots of a digit's run.
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int p = NT * i + tid;
      if (p < valid) {
        K key = s.keys[p];
        unsigned d = pass.digit(key);
        std::int64_t slot = offsets[std::int64_t(d) * tiles + tile] + (p - s.digit_start[d]);
        keys_out[slot] = key;
        if constexpr (has_values_v<V>) tile_values_out[slot] = tile_values_in[first + s.index[p]];
      }
    }
  };
  cta_launch<P>(kernel, tiles, ctx);
}

// The portable LSD radix sort (arguments already validated). Used by the simulator backend;
// compiles and runs on CUDA too.
template <typename params, typename K, typename V>
void radix_sort_lsd(const char* fn, K* keys, V* values, std::int64_t count, radix_order order, int begin_bit,
                    int end_bit, context& ctx) {
  using P = params_or<params, radix_sort_params<K>>;
  if (count <= 1 || begin_bit == end_bit) return;
  int tiles = num_tiles<P>(count, fn);
  constexpr bool with_values = has_values_v<V>;
  // Temporaries first: a failed allocation must leave the caller's arrays untouched. So the
  // passes' scans share one look-back state, allocated here for the largest of them.
  buffer<K> keys_temp(count, ctx);
  buffer<V> values_temp(with_values ? count : 0, ctx);
  buffer<std::int64_t> offsets(std::int64_t(tiles) * radix_digits, ctx);
  buffer<unsigned char> scan_temp(std::int64_t(scan_temp_bytes<void, std::int64_t>(offsets.size())), ctx);

  using bits_t = typename radix_key<K>::bits_t;
  bits_t flip = order == radix_order::descending ? bits_t(~bits_t(0)) : bits_t(0);
  K* src_keys = keys;
  V* src_values = values;
  K* dst_keys = keys_temp.data();
  V* dst_values = values_temp.data();
  int passes = 0;
  for (int shift = begin_bit; shift < end_bit; shift += radix_digit_bits, ++passes) {
    radix_pass<K> pass{flip, shift, end_bit - shift < radix_digit_bits ? end_bit - shift : radix_digit_bits};
    std::int64_t slots = std::int64_t(pass.digits()) * tiles;
    radix_histogram<P>(src_keys, count, tiles, pass, offsets.data(), ctx);
    scan_impl<scan_kind::exclusive, void, std::int64_t>(fn, offsets.data(), slots, offsets.data(),
                                                        maybe<std::int64_t>{0, true}, plus<std::int64_t>(),
                                                        discard_iterator(), scan_temp.data(), ctx);
    radix_scatter<P>(src_keys, src_values, count, tiles, pass, offsets.data(), dst_keys, dst_values, ctx);
    std::swap(src_keys, dst_keys);
    std::swap(src_values, dst_values);
  }
  if (passes % 2) {
    platform::copy_device(keys, keys_temp.data(), std::size_t(count) * sizeof(K), ctx.stream());
    if constexpr (with_values)
      platform::copy_device(values, values_temp.data(), std::size_t(count) * sizeof(V), ctx.stream());
  }
}

#if defined(MGPU_BACKEND_CUDA)

template <typename K, typename V, typename N>
cudaError_t cub_radix_sort(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& keys,
                           cub::DoubleBuffer<V>& values, N count, radix_order order, int begin_bit, int end_bit,
                           cudaStream_t stream) {
  using sort = cub::DeviceRadixSort;
  bool descending = order == radix_order::descending;
  if constexpr (has_values_v<V>) {
    return descending ? sort::SortPairsDescending(temp, temp_bytes, keys, values, count, begin_bit, end_bit, stream)
                      : sort::SortPairs(temp, temp_bytes, keys, values, count, begin_bit, end_bit, stream);
  } else {
    (void)values;
    return descending ? sort::SortKeysDescending(temp, temp_bytes, keys, count, begin_bit, end_bit, stream)
                      : sort::SortKeys(temp, temp_bytes, keys, count, begin_bit, end_bit, stream);
  }
}

// cub::DeviceRadixSort on the caller's arrays plus one alternate copy from the context.
template <typename K, typename V>
void radix_sort_cub(K* keys, V* values, std::int64_t count, radix_order order, int begin_bit, int end_bit,
                    context& ctx) {
  if (count <= 1 || begin_bit == end_bit) return;
  constexpr bool with_values = has_values_v<V>;
  buffer<K> keys_alternate(count, ctx);
  buffer<V> values_alternate(with_values ? count : 0, ctx);
  // 32-bit offsets (CUB's fastest path) when they suffice; CCCL 3.0 takes 64-bit counts too.
  auto run = [&](void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& k, cub::DoubleBuffer<V>& v) {
    if (count <= std::int64_t(std::numeric_limits<int>::max()))
      return cub_radix_sort(temp, temp_bytes, k, v, int(count), order, begin_bit, end_bit, ctx.stream());
    return cub_radix_sort(temp, temp_bytes, k, v, count, order, begin_bit, end_bit, ctx.stream());
  };
  std::size_t temp_bytes = 0;
  {
    cub::DoubleBuffer<K> k(keys, keys_alternate.data());
    cub::DoubleBuffer<V> v(values, values_alternate.data());
    MGPU_CUDA_CHECK(run(nullptr, temp_bytes, k, v));
  }
  buffer<unsigned char> temp(std::int64_t(temp_bytes), ctx);
  cub::DoubleBuffer<K> k(keys, keys_alternate.data());
  cub::DoubleBuffer<V> v(values, values_alternate.data());
  MGPU_CUDA_CHECK(run(temp.data(), temp_bytes, k, v));
  // The selector says which half holds the result; it is known on the host without waiting.
  if (k.Current() != keys) platform::copy_device(keys, k.Current(), std::size_t(count) * sizeof(K), ctx.stream());
  if constexpr (with_values)
    if (v.Current() != values) platform::copy_device(values, v.Current(), std::size_t(count) * sizeof(V), ctx.stream());
}

#endif  // MGPU_BACKEND_CUDA

template <typename params, typename K, typename V>
void radix_sort_impl(K* keys, V* values, std::int64_t count, radix_order order, int begin_bit, int end_bit,
                     context& ctx) {
  static_assert(is_radix_key_v<K>,
                "radix_sort sorts integer (not bool or character-type), float and double keys: use mergesort "
                "for other types");
  static_assert(std::is_trivially_copyable<V>::value, "radix_sort values must be trivially copyable");
  const char* fn = "mgpu::radix_sort";
  check_count(fn, "count", count);
  check_pointer(fn, "keys", keys, count);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "values", values, count);
    check_disjoint(fn, "values", keys, count, values, count);
  }
  if (order != radix_order::ascending && order != radix_order::descending)
    throw_argument(fn, "order", "is not radix_order::ascending or radix_order::descending");
  constexpr int key_bits = int(8 * sizeof(K));
  if (begin_bit < 0 || begin_bit > key_bits)
    throw_argument(fn, "begin_bit",
                   "must be in [0, " + std::to_string(key_bits) + "] (got " + std::to_string(begin_bit) + ")");
  if (end_bit < begin_bit || end_bit > key_bits)
    throw_argument(fn, "end_bit",
                   "must be in [begin_bit, " + std::to_string(key_bits) + "] (got " + std::to_string(end_bit) + ")");
  if (count <= 1 || begin_bit == end_bit) return;
  // Up to radix_merge_limit keys, the library's mergesort in the radix order sorts them (the same
  // result: both are stable and order keys alike). One mergesort tile is one launch with no
  // temporaries, where CUB takes temporaries and a copy back when its passes end in the alternate
  // buffer. Between that and the end of CUB's single tile (256 x 19 keys and values of 4 bytes on
  // sm_90: one launch, about 6% faster than our sort of two tiles on an H100) CUB sorts; beyond it
  // CUB runs a histogram and a launch per pass, and merging was the faster up to the limit (2.9x at
  // 5,000 four-byte keys, 1.04x at 2^20).
  // Integer keys by all their bits, ascending, compare by value (less): the sorting network turns
  // it into min and max (radix_less took the one-tile sort from 10 to 16 us at 10^3). Other orders
  // and bit ranges, and floats (whose NaNs only radix_less places), take radix_less.
  using tile_params = mergesort_params<K, V>;
  constexpr std::int64_t cub_single_tile = sizeof(K) <= 4 && (!has_values_v<V> || sizeof(V) <= 4) ? 256 * 19 : 0;
  bool by_value =
      std::is_integral<K>::value && begin_bit == 0 && end_bit == key_bits && order == radix_order::ascending;
  bool merges = count <= tile_params::nv ||
                (count > cub_single_tile && count <= radix_merge_limit<K, V>(end_bit - begin_bit, by_value));
  if (merges) {
    auto merge_sort = [&](auto comp) {
      if constexpr (has_values_v<V>)
        mergesort_impl<tile_params, K, V>(fn, keys, values, values, count, comp, ctx);
      else
        mergesort_impl<tile_params, K, V>(fn, keys, constant_iterator<empty_t>(), values, count, comp, ctx);
    };
    if constexpr (std::is_integral<K>::value) {
      if (by_value) {
        merge_sort(less<K>());
        return;
      }
    }
    merge_sort(radix_less<K>(order, begin_bit, end_bit));
    return;
  }
#if defined(MGPU_BACKEND_CUDA)
  // CUB (CCCL 3.0) places zeros inconsistently in one case: descending float/double sorts by a
  // partial bit range. Its multi-tile path extracts the digits of both zeros from -0.0's ordered
  // pattern (0x7f..f) instead of +0.0's (0x80..0), its single-tile path does not, so the result
  // depends on the count (measured on an H100). A whole-key sort cannot tell the difference
  // (no key lies between those two patterns); a bit range can. That case runs our own sort.
  bool partial_range = begin_bit != 0 || end_bit != key_bits;
  if (std::is_floating_point<K>::value && order == radix_order::descending && partial_range)
    radix_sort_lsd<params>(fn, keys, values, count, order, begin_bit, end_bit, ctx);
  else
    radix_sort_cub(keys, values, count, order, begin_bit, end_bit, ctx);
#else
  radix_sort_lsd<params>(fn, keys, values, count, order, begin_bit, end_bit, ctx);
#endif
}

}  // namespace detail

// Sorts keys[0, count) in place, stably, by the keys' bits, in `order` (ascending unless given).
// Only bits [begin_bit, end_bit) of each key's ordered pattern take part (default: all of them);
// keys equal in those bits keep their input order.
//
// K is an integer type (not bool or a character type such as char32_t), float or double; `keys`
// is a raw device pointer. The order is cub::DeviceRadixSort's: integers by value; floats by
// value with -0.0 and +0.0 equal (they keep their input order), NaNs with the sign bit set
// before -inf and the others after +inf (see docs/radix_sort.md). Descending order is the
// reverse of the key order, still stable.
//
// Temporaries from the context: one copy of the keys (and, on the simulator, a few bytes per
// tile); none for an input of one mergesort tile. Stream-ordered on ctx.stream(); the host never waits. Counts above
// 2^31 work on both backends. `params` tunes the portable kernels (simulator); CUDA uses CUB's own tuning.
//
// Throws std::invalid_argument, before any work, for a negative count, a null `keys` with a
// positive count, or a bit range outside 0 <= begin_bit <= end_bit <= 8 * sizeof(K); throws
// mgpu::cuda_error when a CUDA call fails.
template <typename params = void, typename K>
void radix_sort(K* keys, std::int64_t count, radix_order order, int begin_bit, int end_bit, context& ctx) {
  detail::radix_sort_impl<params>(keys, static_cast<empty_t*>(nullptr), count, order, begin_bit, end_bit, ctx);
}
template <typename params = void, typename K>
void radix_sort(K* keys, std::int64_t count, radix_order order, context& ctx) {
  radix_sort<params>(keys, count, order, 0, int(8 * sizeof(K)), ctx);
}
template <typename params = void, typename K>
void radix_sort(K* keys, std::int64_t count, context& ctx) {
  radix_sort<params>(keys, count, radix_order::ascending, 0, int(8 * sizeof(K)), ctx);
}

// Sorts key-value pairs in place by key, stably, as the keys-only radix_sort: values[i] moves
// with keys[i]. V is any trivially copyable type; `values` is a raw device pointer that must not
// overlap `keys`. Temporaries: one copy of the keys and one of the values.
//
// Throws std::invalid_argument as the keys-only form, and also for a null `values` with a
// positive count or `values` overlapping `keys`.
template <typename params = void, typename K, typename V>
void radix_sort(K* keys, V* values, std::int64_t count, radix_order order, int begin_bit, int end_bit, context& ctx) {
  detail::radix_sort_impl<params>(keys, values, count, order, begin_bit, end_bit, ctx);
}
template <typename params = void, typename K, typename V>
void radix_sort(K* keys, V* values, std::int64_t count, radix_order order, context& ctx) {
  radix_sort<params>(keys, values, count, order, 0, int(8 * sizeof(K)), ctx);
}
template <typename params = void, typename K, typename V>
void radix_sort(K* keys, V* values, std::int64_t count, context& ctx) {
  radix_sort<params>(keys, values, count, radix_order::ascending, 0, int(8 * sizeof(K)), ctx);
}

}  // namespace mgpu
