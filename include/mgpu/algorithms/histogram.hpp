// mgpu/algorithms/histogram.hpp
//
// histogram: counts samples in num_bins bins of equal width over [lower_level, upper_level).
// Three strategies, by how many bins there are:
//
// - Up to 11,776 bins (46 KiB of 32-bit counters): every CTA keeps a private histogram in shared
//   memory, counts its samples there with shared-memory atomics, and at the end adds each
//   non-zero counter to the output with one global atomic. One wave of CTAs, each looping over
//   tiles of the input, so the flush is paid once per CTA, not once per tile. A tier of 2,048
//   bins (8 KiB) keeps small histograms from limiting how many CTAs share an SM.
// - Up to 4 chunks of 23,552 bins (94,208 bins; 65,536 is 3 chunks): the bins are split into
//   chunks that fit in shared memory as 16-bit counters, two to a word. Each chunk has its own
//   CTAs, and the CTAs of all chunks for one slice of the input are launched side by side, so
//   they read the same tiles at about the same time: the data comes from DRAM once and from L2
//   for the other chunks. A CTA counts only the samples of its chunk. A 16-bit counter that
//   reaches 2^15 gives 2^15 to the output at once (the atomic's old value says which thread
//   crossed); a barrier per tile bounds what other threads add before that, so a counter never
//   overflows. CUB, which falls back to per-CTA histograms in global memory for bins that do not
//   fit in shared memory, is at its slowest here.
// - More bins than that, or fewer samples than 8 per bin: one global atomic per sample (the
//   output is typically in L2). Privatizing would then cost more in flushes than it saves.
//
// The bin of a sample: integer computation (the common type of the sample and level types is an
// integer) floor((x - lower) * num_bins / (upper - lower)) exactly, with num_bins and the range
// divided by their gcd, by a multiply-high with a precomputed reciprocal and one correction (no
// division per sample; 32-bit arithmetic in the usual cases); floating point:
// floor((x - lower) * scale), scale = num_bins / (upper - lower), in that type.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../cta/loadstore.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>

namespace mgpu {

// The tile shape: 256 threads with 64 bytes of samples each (at most 16 samples).
template <typename T>
using histogram_params = launch_params<256, std::max(1, std::min(16, int(64 / sizeof(T))))>;

namespace detail {

// Bins that shared memory holds: 32-bit counters (small tier, large tier), 16-bit counters per
// chunk, and the chunks worth splitting into before atomics on the output take over.
constexpr std::int64_t histogram_small_bins = 2048;
constexpr std::int64_t histogram_shared_bins = 11776;
constexpr std::int64_t histogram_chunk_bins = 23552;
constexpr std::int64_t histogram_max_chunks = 4;
// Privatized counters pay off only with at least this many samples per bin.
constexpr std::int64_t histogram_samples_per_bin = 8;

// The high 64 bits of a * b.
MGPU_HOST_DEVICE std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(MGPU_DEVICE_PASS)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 u128;
  return std::uint64_t((u128(a) * b) >> 64);
#endif
}

// The high 32 bits of a * b.
MGPU_HOST_DEVICE unsigned mul_hi(unsigned a, unsigned b) {
#if defined(MGPU_DEVICE_PASS)
  return __umulhi(a, b);
#else
  return unsigned((std::uint64_t(a) * b) >> 32);
#endif
}

// floor(d * n / divisor) by long division of the 128-bit product, for a quotient below 2^64: the
// slow path, for 64-bit levels whose range times the bin count exceeds 2^64.
MGPU_HOST_DEVICE std::uint64_t wide_quotient(std::uint64_t d, std::uint64_t n, std::uint64_t divisor) {
  std::uint64_t hi = mul_hi(d, n), lo = d * n, q = 0;  // hi < divisor, as the quotient fits
  for (int i = 0; i < 64; ++i) {
    bool carry = (hi >> 63) != 0;
    hi = (hi << 1) | (lo >> 63);
    lo <<= 1;
    q <<= 1;
    if (carry || hi >= divisor) {
      hi -= divisor;
      q |= 1;
    }
  }
  return q;
}

// The bin of a sample converted to C, or -1 outside [lower, upper).
template <typename C, bool integer = std::is_integral<C>::value>
struct even_bins;

template <typename C>
struct even_bins<C, true> {
  C lower, upper;
  // floor(d * num_bins / range) = floor(d * factor / divisor), both divided by their gcd: bins of
  // a whole number of values (256 bins over [0, 2^24), say) need no multiplication at all.
  std::uint64_t factor, divisor;
  std::uint64_t reciprocal;  // floor(2^W / divisor) + 1 (0 when divisor is 1), W = 32 or 64 by mode
  enum { multiply, narrow, regular, wide } mode;
  // With d < range: multiply: divisor 1 (bins no wider than a value); narrow: (range - 1) * factor
  // < 2^32 and divisor <= 2^31, all in 32 bits (the usual case); regular: the same in 64 bits;
  // wide: the rest (a long division).

  even_bins(C lo, C hi, std::int64_t n) : lower(lo), upper(hi) {
    __extension__ typedef unsigned __int128 u128;
    const std::uint64_t range = std::uint64_t(hi) - std::uint64_t(lo), g = std::gcd(range, std::uint64_t(n));
    factor = std::uint64_t(n) / g;
    divisor = range / g;
    if (divisor == 1)
      mode = multiply;
    else if (divisor <= (std::uint64_t(1) << 31) &&
             range - 1 <= std::uint64_t(std::numeric_limits<unsigned>::max()) / factor)
      mode = narrow;
    else if (divisor <= (std::uint64_t(1) << 63) && range - 1 <= std::numeric_limits<std::uint64_t>::max() / factor)
      mode = regular;
    else
      mode = wide;
    reciprocal = divisor >= 2 ? std::uint64_t((u128(1) << (mode == narrow ? 32 : 64)) / divisor + 1) : 0;  // < 2^W
  }
  MGPU_HOST_DEVICE std::int64_t operator()(C x) const {
    if (x < lower || !(x < upper)) return -1;
    std::uint64_t d = std::uint64_t(x) - std::uint64_t(lower);  // exact: x >= lower
    // num = d * factor fits the word. With m = floor(2^W / divisor) + 1, num * m / 2^W exceeds
    // num / divisor by less than num / 2^W < 1: the estimate is the quotient or one more, and the
    // remainder says which (a negative one wraps to at least 2^W - divisor >= divisor).
    if (mode == multiply) return std::int64_t(d * factor);
    if (mode == narrow) {
      unsigned num = unsigned(d) * unsigned(factor), r = unsigned(divisor);
      unsigned q = mul_hi(num, unsigned(reciprocal));
      if (num - q * r >= r) --q;
      return std::int64_t(q);
    }
    if (mode == regular) {
      std::uint64_t num = d * factor;
      std::uint64_t q = mul_hi(num, reciprocal);
      if (num - q * divisor >= divisor) --q;
      return std::int64_t(q);
    }
    return std::int64_t(wide_quotient(d, factor, divisor));
  }
};

template <typename C>
struct even_bins<C, false> {
  C lower, upper, scale;
  std::int64_t last;
  even_bins(C lo, C hi, std::int64_t n) : lower(lo), upper(hi), scale(C(n) / (hi - lo)), last(n - 1) {}
  MGPU_HOST_DEVICE std::int64_t operator()(C x) const {
    if (!(x >= lower) || !(x < upper)) return -1;  // NaN: outside
    std::int64_t b = std::int64_t((x - lower) * scale);
    return b < last ? b : last;  // rounding may reach num_bins just below upper
  }
};

// Adds v to a counter of the output (4 or 8 bytes, signed or not: the same bits either way).
template <typename Counter>
MGPU_DEVICE void add_count(Counter* counter, std::uint64_t v) {
  if constexpr (sizeof(Counter) == 8)
    atomicAdd(reinterpret_cast<unsigned long long*>(counter), (unsigned long long)v);
  else
    atomicAdd(reinterpret_cast<unsigned*>(counter), unsigned(v));
}

template <int WORDS>
struct histogram_counters {
  unsigned words[WORDS];
};

// The privatized strategies: CAPACITY bins per CTA, 32-bit counters or (NARROW) 16-bit ones two
// to a word; `chunks` CTAs per slice of the input, CTA c counting chunk c % chunks.
template <typename P, int CAPACITY, bool NARROW, typename SampleIt, typename Bins, typename Counter>
void histogram_privatized(const char* fn, SampleIt samples, std::int64_t count, Bins bin_of, Counter* bins,
                          std::int64_t num_bins, int chunks, context& ctx) {
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  constexpr int words = NARROW ? CAPACITY / 2 : CAPACITY;
  static_assert(!NARROW || NV <= 0x4000,
                "mgpu::histogram: a tile may add at most 2^14 to a 16-bit counter between two barriers");
  using T = iterator_value_t<SampleIt>;
  using C = decltype(bin_of.lower);
  const int tiles = num_tiles<P>(count, fn);
  const int chunk_size = int(div_up(num_bins, std::int64_t(chunks)));

  auto kernel = [=] MGPU_LAMBDA(int tid, int cta) {
    __shared__ shared_storage<histogram_counters<words>> shared;
    unsigned* counters = shared.get().words;
    Counter* output = bins;  // (captured outside `if constexpr`, as nvcc requires)
    const int slices = int(gridDim.x) / chunks, slice = cta / chunks, chunk = cta % chunks;
    const std::int64_t chunk_first = std::int64_t(chunk) * chunk_size;
    const int chunk_bins = int(std::min<std::int64_t>(chunk_size, num_bins - chunk_first));
    const int used_words = NARROW ? (chunk_bins + 1) / 2 : chunk_bins;
    for (int j = tid; j < used_words; j += NT) counters[j] = 0;
    __syncthreads();

    for (int tile = slice; tile < tiles; tile += slices) {
      const std::int64_t base = std::int64_t(tile) * NV;
      const int valid = int(count - base < NV ? count - base : NV);
      array_t<T, VT> x = mem_to_reg_strided<NT, VT, T>(samples + base, tid, valid);
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        if (NT * i + tid >= valid) continue;
        const std::int64_t b = bin_of(C(x[i])) - chunk_first;
        if (b < 0 || b >= chunk_bins) continue;  // outside the range, or another chunk's
        const int local = int(b);
        if constexpr (NARROW) {
          const unsigned shift = 16u * unsigned(local & 1);
          const unsigned old = atomicAdd(counters + local / 2, 1u << shift);
          if (((old >> shift) & 0xffffu) == 0x7fffu) {  // this add made it 2^15: hand that over
            atomicSub(counters + local / 2, 0x8000u << shift);
            add_count(output + (chunk_first + local), 0x8000u);
          }
        } else {
          atomicAdd(counters + local, 1u);
        }
      }
      if constexpr (NARROW) __syncthreads();
    }
    __syncthreads();
    for (int j = tid; j < chunk_bins; j += NT) {
      const unsigned v = NARROW ? (counters[j / 2] >> (16 * (j & 1))) & 0xffffu : counters[j];
      if (v) add_count(output + (chunk_first + j), v);
    }
  };
  // One wave of slices, but no more slices than tiles, and few enough samples per CTA for 32-bit
  // counters. (Capping the slices to give each at least 8 samples per bin left 2^20 samples in
  // 65,536 bins to 6 CTAs: 392 us at every size up to 2^24, 0.31x CUB at 2^20; H100, 2026-11-25.)
  const std::int64_t wave = one_wave<P, decltype(kernel)>(std::numeric_limits<int>::max(), ctx);
  std::int64_t slices = std::min<std::int64_t>(std::max<std::int64_t>(1, wave / chunks), tiles);
  slices = std::max<std::int64_t>(slices, div_up(count, std::int64_t(1) << 30));
  if (slices * chunks > std::numeric_limits<int>::max()) throw_argument(fn, "count", "needs too many CTAs");
  cta_launch<P>(kernel, int(slices * chunks), ctx);
}

// One global atomic per sample in range.
template <typename P, typename SampleIt, typename Bins, typename Counter>
void histogram_global(const char* fn, SampleIt samples, std::int64_t count, Bins bin_of, Counter* bins, context& ctx) {
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using T = iterator_value_t<SampleIt>;
  using C = decltype(bin_of.lower);
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    const std::int64_t base = std::int64_t(tile) * NV;
    const int valid = int(count - base < NV ? count - base : NV);
    array_t<T, VT> x = mem_to_reg_strided<NT, VT, T>(samples + base, tid, valid);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (NT * i + tid >= valid) continue;
      const std::int64_t b = bin_of(C(x[i]));
      if (b >= 0) add_count(bins + b, 1u);
    }
  };
  cta_launch<P>(kernel, num_tiles<P>(count, fn), ctx);
}

}  // namespace detail

// bins[b] = the number of samples[i], i in [0, count), that fall in bin b, for b in
// [0, num_bins): num_bins bins of equal width over [lower_level, upper_level), bin b holding
// [lower_level + b * w, lower_level + (b + 1) * w) with w = (upper_level - lower_level) / num_bins.
// Samples outside [lower_level, upper_level) (and NaNs) are not counted. The bins are set, not
// added to. Stream-ordered; the host does not wait.
//
// The bin of a sample x is computed in C, the common type of the sample type and Level (as CUB's
// HistogramEven): for integers, floor((x - lower_level) * num_bins / (upper_level -
// lower_level)) exactly, whatever the magnitudes; for floating point, (x - lower_level) * scale
// rounded down, scale = num_bins / (upper_level - lower_level) computed in C (at most num_bins - 1).
// Samples are any arithmetic type but bool; `bins` is a device pointer to 32- or 64-bit integers,
// which must hold the counts.
//
// Throws std::invalid_argument for a negative count, num_bins < 1, lower_level >= upper_level (or
// either a NaN), null pointers, or bins overlapping the samples.
template <typename params = void, typename SampleIt, typename Counter, typename Level>
void histogram(SampleIt samples, std::int64_t count, Counter* bins, std::int64_t num_bins, Level lower_level,
               Level upper_level, context& ctx) {
  using T = iterator_value_t<SampleIt>;
  static_assert(std::is_arithmetic<T>::value && !std::is_same<T, bool>::value,
                "mgpu::histogram: samples must be integers or floating point (not bool)");
  static_assert(std::is_arithmetic<Level>::value && !std::is_same<Level, bool>::value,
                "mgpu::histogram: lower_level and upper_level must be integers or floating point");
  static_assert(std::is_integral<Counter>::value && !std::is_same<Counter, bool>::value &&
                    (sizeof(Counter) == 4 || sizeof(Counter) == 8),
                "mgpu::histogram: bins must be 32- or 64-bit integers");
  const char* fn = "mgpu::histogram";
  detail::check_count(fn, "count", count);
  if (num_bins < 1) detail::throw_argument(fn, "num_bins", "must be at least 1 (got " + std::to_string(num_bins) + ")");
  if (!(lower_level < upper_level))
    detail::throw_argument(fn, "upper_level", "must be greater than lower_level (and neither a NaN)");
  detail::check_pointer(fn, "samples", samples, count);
  detail::check_pointer(fn, "bins", bins, num_bins);
  detail::check_disjoint(fn, "bins", samples, count, bins, num_bins);
  if constexpr (std::is_arithmetic<T>::value && !std::is_same<T, bool>::value && std::is_arithmetic<Level>::value) {
    using C = std::common_type_t<T, Level>;
    using P = params_or<params, histogram_params<T>>;
    const detail::even_bins<C> bin_of(C(lower_level), C(upper_level), num_bins);

    detail::zero_bytes(bins, std::size_t(num_bins) * sizeof(Counter), ctx);
    if (count == 0) return;
    const std::int64_t chunks = div_up(num_bins, detail::histogram_chunk_bins);
    if (count / detail::histogram_samples_per_bin < num_bins || chunks > detail::histogram_max_chunks)
      detail::histogram_global<P>(fn, samples, count, bin_of, bins, ctx);
    else if (num_bins <= detail::histogram_small_bins)
      detail::histogram_privatized<P, int(detail::histogram_small_bins), false>(fn, samples, count, bin_of, bins,
                                                                                num_bins, 1, ctx);
    else if (num_bins <= detail::histogram_shared_bins)
      detail::histogram_privatized<P, int(detail::histogram_shared_bins), false>(fn, samples, count, bin_of, bins,
                                                                                 num_bins, 1, ctx);
    else
      detail::histogram_privatized<P, int(detail::histogram_chunk_bins), true>(fn, samples, count, bin_of, bins,
                                                                               num_bins, int(chunks), ctx);
  }
}

}  // namespace mgpu
