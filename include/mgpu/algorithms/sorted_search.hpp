// mgpu/algorithms/sorted_search.hpp
//
// sorted_search: vectorized search of sorted needles in a sorted haystack, as a merge. Merging
// a and b visits every element of both in order; when an element of a is taken, the elements of b
// taken before it are exactly those that bound it, and the other way round. So one Merge Path
// pass (partition, then a serial merge per thread that emits indices instead of keys) finds the
// bounds of every element of a in b and of every element of b in a, in O(a_count + b_count),
// with coalesced loads. With bounds::lower, a goes first on ties: a gets its lower bound in b
// and b its upper bound in a; bounds::upper is the reverse. Match flags compare an element with
// the neighbour the bound points at, so each tile also loads one element on either side of its
// ranges. Needles much fewer than the haystack (and no output for b) take one binary search each
// instead, which touches only O(a_count log b_count) of b.
//
// sorted_equal_range: both bounds of each element of a, from one lower-bound merge: an element's
// upper bound is the end of its run of equals in b, which starts at its lower bound and is
// usually short, so the tile gallops from there through its own part of b.
//
// sorted_equality_count: per element of a, how many elements of b equal it: an upper-bound search
// whose output, instead of being stored, is combined with the lower bounds the caller passes.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_reduce.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/search.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <type_traits>

namespace mgpu {

// What sorted_search writes for each element of one input.
enum class search_output {
  none,         // nothing: the output is not touched (pass discard_iterator() or nullptr)
  index,        // the bound: an index into the other input
  match,        // 1 if the other input holds a key equal to it (neither orders before the other), else 0
  index_match,  // the bound, with the match flag in the most significant bit of the output's integer type
};

// Merge's tiles (measured on an H100, bench/results/2026-11-25_h100_search_tiles_ab.txt: tiles of
// 256 x 23 were 30% slower). A tile's keys and outputs share shared memory, so larger keys take
// fewer per thread.
template <typename K>
using sorted_search_params = launch_params<256, (sizeof(K) <= 4    ? 15
                                                 : sizeof(K) <= 16 ? 7
                                                                   : 3)>;

namespace detail {

constexpr bool writes_index(search_output k) { return k == search_output::index || k == search_output::index_match; }
constexpr bool writes_match(search_output k) { return k == search_output::match || k == search_output::index_match; }

// The type a search output holds: a pointer's element type, an iterator's value type, or
// std::int64_t where there is none (store_iterator, discard_iterator, nullptr). It must be an
// integer (sorted_search_impl checks).
template <typename Out, typename = void>
struct search_result {
  using type = std::int64_t;
};
template <typename Out>
struct search_result<Out, std::enable_if_t<!std::is_void<typename std::iterator_traits<Out>::value_type>::value>> {
  using type = std::remove_cv_t<typename std::iterator_traits<Out>::value_type>;
};
template <typename Out>
using search_result_t = typename search_result<Out>::type;

// The value written for one element: its bound, its match flag, or the bound with the flag in the
// most significant bit.
template <search_output kind, typename R>
MGPU_HOST_DEVICE R search_value(std::int64_t bound, bool match) {
  using U = std::make_unsigned_t<R>;
  if constexpr (kind == search_output::match) return R(match);
  if constexpr (kind == search_output::index) return R(bound);
  return R(U(bound) | (U(match) << (8 * sizeof(R) - 1)));
}

// How a tile's results wait in shared memory: in R, the wider of the two output types, or, where
// R is wider than 4 bytes, as the bound's 32-bit offset from the tile's start on the other side,
// with the match flag in bit 31 (a tile spans fewer than 2^31 positions): 8-byte outputs
// (sorted_equality_count's among them) then take half the shared memory, as 4-byte ones do.
template <typename R>
constexpr bool stages_offsets_v = sizeof(R) > 4;
template <typename R>
using staged_result_t = std::conditional_t<stages_offsets_v<R>, std::uint32_t, R>;

// The staged form of the result for a bound `offset` positions past `base`, the tile's start on
// the other side.
template <bool Offsets, search_output kind, typename RSide, typename S>
MGPU_HOST_DEVICE S stage_result(std::int64_t base, int offset, bool match) {
  if constexpr (Offsets)
    return S(std::uint32_t(offset) | (std::uint32_t(match) << 31));
  else
    return S(search_value<kind, RSide>(base + offset, match));
}

// The output value of a staged result.
template <bool Offsets, search_output kind, typename RSide, typename S>
MGPU_HOST_DEVICE RSide unstage_result(S staged, std::int64_t base) {
  if constexpr (Offsets)
    return search_value<kind, RSide>(base + std::int64_t(std::uint32_t(staged) & 0x7fffffffu),
                                     (std::uint32_t(staged) >> 31) != 0);
  else
    return RSide(staged);
}

// The bound of one needle in haystack[0, count) by binary search, with its match flag: lower
// bound, matching haystack[bound]; upper bound, matching haystack[bound - 1].
template <bounds B, typename It, typename Key, typename Comp>
MGPU_HOST_DEVICE std::int64_t search_one(It haystack, std::int64_t count, const Key& needle, Comp comp, bool& match) {
  std::int64_t bound = binary_search<B>(haystack, count, needle, comp);
  match = B == bounds::lower ? bound < count && !comp(needle, haystack[bound])
                             : bound > 0 && !comp(haystack[bound - 1], needle);
  return bound;
}

// Whether to search each needle by itself: about a_count * log2(b_count) reads instead of
// a_count + b_count.
inline bool binary_search_pays(std::int64_t a_count, std::int64_t b_count) {
  return a_count * (ceil_log2(b_count + 1) + 1) < (a_count + b_count) / 4;
}

// counts[i] = op(lower_bounds[i], upper_bound): stores an upper-bound search's output for a[i].
template <typename LowerIt, typename CountIt, typename Op>
struct equality_count_writer {
  LowerIt lower_bounds;
  CountIt counts;
  Op op;
  MGPU_HOST_DEVICE void operator()(std::int64_t upper_bound, std::int64_t i) const {
    counts[i] = op(std::int64_t(lower_bounds[i]), upper_bound);
  }
};

// A tile's outputs for one side, results[0, n) to out[first, first + n), in rows of NT; `base`:
// the tile's start on the other side (stage_result).
template <int NT, int VT, bool Offsets, search_output kind, typename RSide, typename Out, typename S>
MGPU_DEVICE void store_search_results(Out out, std::int64_t first, const S* results, int n, int tid,
                                      std::int64_t base) {
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    int j = NT * i + tid;
    if (j < n) out[first + j] = unstage_result<Offsets, kind, RSide>(results[j], base);
  }
}

// sorted_equality_count's output: the tile's lower bounds loaded first, all in flight, then
// combined with the upper bounds and stored. (Through the writer alone, each row's load waited
// for the previous row's store, which may alias it: 252 us against 141 us for the lower-bound
// search of 2^26 keys, ncu on an H200.) counts may be lower_bounds itself.
template <int NT, int VT, bool Offsets, search_output kind, typename RSide, typename LowerIt, typename CountIt,
          typename Op, typename S>
MGPU_DEVICE void store_search_results(store_iterator<equality_count_writer<LowerIt, CountIt, Op>> out,
                                      std::int64_t first, const S* results, int n, int tid, std::int64_t base) {
  const std::int64_t begin = out.offset + first;
  array_t<iterator_value_t<LowerIt>, VT> lower;
  load_rows<NT, rows_past::skipped>(lower, out.f.lower_bounds, begin, (n + NT - 1) / NT, begin + n, tid);
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    int j = NT * i + tid;
    if (j < n)
      out.f.counts[begin + j] =
          out.f.op(std::int64_t(lower[i]), std::int64_t(unstage_result<Offsets, kind, RSide>(results[j], base)));
  }
}

// The end of b's run of keys equal to b[begin] (b[begin, count) sorted): the first position in
// [begin, count) whose key orders after `key` == b[begin], by one warp. A run shorter than 32 keys,
// the usual one, takes one round of loads; a longer one a warp's search of the rest (group_search).
// Call with every lane of a warp; each receives the answer.
template <typename It, typename Key, typename Comp>
MGPU_DEVICE std::int64_t warp_run_end(It b, std::int64_t begin, std::int64_t count, const Key& key, Comp comp) {
  const std::int64_t probe = begin + lane_id();
  // Keys equal to `key` come first, so the lanes past the run are a suffix of the warp.
  const unsigned past = __ballot_sync(full_warp_mask, probe >= count || comp(key, b[probe]));
  if (past) return begin + __ffs(past) - 1;
  bound_search<bounds::upper, It, std::int64_t, Key, Comp> rest(b + begin + warp_size, count - begin - warp_size, key,
                                                                comp);
  group_search(rest, warp_size);
  return begin + warp_size + rest.begin;
}

// The upper bound of key in keys[begin, end) (sorted, keys[begin - 1] not after key): galloping
// from begin, since a key's run of equals is usually short: O(log run) reads, one for no match.
template <typename K, typename Comp>
MGPU_DEVICE int gallop_upper_bound(const K* keys, int begin, int end, const K& key, Comp comp) {
  int lo = begin, hi = begin, step = 1;
  // Invariant: the answer is at least lo, and keys[lo, hi) do not order after key.
  while (hi < end && !comp(key, keys[hi])) {
    lo = hi + 1;
    hi = lo + step;
    step *= 2;
  }
  hi = hi < end ? hi : end;
  return lo + binary_search<bounds::upper>(keys + lo, hi - lo, key, comp);
}

// An upper-bound output of sorted_search_impl that receives op(lower, upper) in place of the upper
// bound: the join's match counts (upper - lower), stored as the tile finds them, where a pass of
// their own would read both bounds again.
template <typename Out, typename Op>
struct combined_bounds {
  Out out;
  Op op;
};
template <typename RU, typename UpperOut>
MGPU_DEVICE void store_upper_bound(UpperOut upper, std::int64_t i, std::int64_t, std::int64_t bound) {
  upper[i] = RU(bound);
}
template <typename RU, typename Out, typename Op>
MGPU_DEVICE void store_upper_bound(combined_bounds<Out, Op> upper, std::int64_t i, std::int64_t lower,
                                   std::int64_t bound) {
  upper.out[i] = upper.op(lower, bound);
}

// sorted_equal_range's output for a tile's n a's: each one's lower bound (staged in results, as
// for search_output::index) and its upper bound, the end of its run of equals in the tile's b
// range b_keys[0, b_n) (its start in b: base), or, for an a equal to the key after that range
// (b_keys[b_n], read only where runs_past), run_end: where b's run of that key ends.
template <int NT, int VT, bool Offsets, typename RA, typename RU, typename LowerOut, typename UpperOut, typename S,
          typename K, typename Comp>
MGPU_DEVICE void store_equal_ranges(LowerOut lower, UpperOut upper, std::int64_t first, const S* results, int n,
                                    int tid, std::int64_t base, const K* a_keys, const K* b_keys, int b_n,
                                    bool runs_past, std::int64_t run_end, Comp comp) {
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    int j = NT * i + tid;
    if (j < n) {
      const RA bound = unstage_result<Offsets, search_output::index, RA>(results[j], base);
      const K key = a_keys[j];
      const int end = gallop_upper_bound(b_keys, int(std::int64_t(bound) - base), b_n, key, comp);
      lower[first + j] = bound;
      store_upper_bound<RU>(upper, first + j, bound,
                            end < b_n || !runs_past || comp(key, b_keys[b_n]) ? base + end : run_end);
    }
  }
}

template <int NV, typename K, typename R>
struct sorted_search_storage {
  K keys[NV + 5];  // the tile's a and b ranges, one neighbour on either side of each, and one past
  R results[NV];   // a's outputs, then b's, in tile order
};

// validate_order: whether checked mode checks that a and b are sorted (a caller that checked them
// itself passes false).
// a_upper: where sorted_equal_range's upper bounds go (B == bounds::lower, A_OUT == index), or
// discard_iterator() for none.
template <bounds B, search_output A_OUT, search_output B_OUT, typename params, typename AIt, typename BIt,
          typename AOut, typename BOut, typename AUpperOut, typename Comp>
void sorted_search_impl(const char* fn, AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, AOut a_out,
                        BOut b_out, AUpperOut a_upper, std::int64_t* a_match_count, std::int64_t* b_match_count,
                        Comp comp, bool validate_order, context& ctx) {
  using K = iterator_value_t<AIt>;
  using RA = search_result_t<AOut>;
  using RB = search_result_t<BOut>;
  using RU = search_result_t<AUpperOut>;
  constexpr bool uppers = !std::is_same<AUpperOut, discard_iterator>::value;
  static_assert(!uppers || (B == bounds::lower && A_OUT == search_output::index),
                "upper bounds come with a's lower bounds (bounds::lower, search_output::index)");
  static_assert(!uppers || std::is_integral<RU>::value, "mgpu::sorted_equal_range: upper must hold integers");
  static_assert(A_OUT == search_output::none || std::is_integral<RA>::value,
                "mgpu::sorted_search: a_output must hold integers (indices or match flags)");
  static_assert(B_OUT == search_output::none || std::is_integral<RB>::value,
                "mgpu::sorted_search: b_output must hold integers (indices or match flags)");
  // Both sides' outputs wait in shared memory as the wider of the two types that are written, or
  // as 32-bit offsets where that is wider than 4 bytes (staged_result_t).
  using R = std::conditional_t<A_OUT == search_output::none, RB,
                               std::conditional_t<B_OUT == search_output::none || sizeof(RA) >= sizeof(RB), RA, RB>>;
  using S = staged_result_t<R>;
  check_count(fn, "a_count", a_count);
  check_count(fn, "b_count", b_count);
  const std::int64_t total = checked_sum(fn, "a_count", a_count, "b_count", b_count);
  check_pointer(fn, "a", a, a_count);
  check_pointer(fn, "b", b, b_count);
  if constexpr (A_OUT != search_output::none) check_pointer(fn, "a_output", a_out, a_count);
  if constexpr (B_OUT != search_output::none) check_pointer(fn, "b_output", b_out, b_count);
  if constexpr (uppers) check_pointer(fn, "upper", a_upper, a_count);
  if (a_match_count && !writes_match(A_OUT))
    throw_argument(fn, "a_match_count", "needs a match output for a (search_output::match or index_match)");
  if (b_match_count && !writes_match(B_OUT))
    throw_argument(fn, "b_match_count", "needs a match output for b (search_output::match or index_match)");
  if (ctx.checked() && validate_order) {
    check_sorted(fn, "a", a, a_count, comp, ctx);
    check_sorted(fn, "b", b, b_count, comp, ctx);
  }
  using P = params_or<params, sorted_search_params<K>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  static_assert(sizeof(sorted_search_storage<NV, K, S>) <= 47 * 1024,
                "mgpu::sorted_search: a tile of these keys and outputs takes too much shared memory: pass smaller "
                "launch_params (fewer values per thread) as the tuning template argument");

  const bool needle_by_needle = B_OUT == search_output::none && binary_search_pays(a_count, b_count);
  // Which neighbours the match flags compare with (see the file comment): with bounds::lower an a
  // matches b[bound] (past its range's end) and a b matches a[bound - 1] (before its range's start).
  // An upper bound may run past the tile's b range into b[b1], its neighbour there.
  constexpr bool neighbours = writes_match(A_OUT) || writes_match(B_OUT) || uppers;
  unsigned long long* a_matches = reinterpret_cast<unsigned long long*>(a_match_count);
  unsigned long long* b_matches = reinterpret_cast<unsigned long long*>(b_match_count);
  // The tile's ranges come from a partition pass, or, for a grid of one wave, from the CTA's own
  // searches (merge_tile_bounds); a single tile takes everything. (A needle-by-needle search has
  // no tiles: its haystack may be longer than any grid of tiles could cover.)
  const int tiles = needle_by_needle ? 0 : num_tiles<P>(total, fn);
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile, auto bounds_from) {
    __shared__ shared_storage<sorted_search_storage<NV, K, S>> storage;
    __shared__ std::int64_t splits[2];
    __shared__ typename cta_reduce<NT, unsigned long long>::storage_t reduce_storage;
    [[maybe_unused]] __shared__ std::int64_t run_end;  // with uppers: the upper bound of b[b1], where a's run into it
    sorted_search_storage<NV, K, S>& s = storage.get();
    // The tile's ranges a[a0, a1) and b[b0, b1), loaded with their neighbours a[a_lo, a_hi) and
    // b[b_lo, b_hi) as keys[0, a_len) and keys[a_len, a_len + b_len).
    std::int64_t first = std::int64_t(tile) * NV, last = first + NV < total ? first + NV : total;
    std::int64_t a0, a1;
    merge_tile_bounds<NT, B>(bounds_from, tid, tile, a, a_count, b, b_count, first, last, comp, splits, a0, a1);
    const std::int64_t b0 = first - a0, b1 = last - a1;
    std::int64_t a_lo = neighbours && a0 > 0 ? a0 - 1 : a0, a_hi = neighbours && a1 < a_count ? a1 + 1 : a1;
    std::int64_t b_lo = neighbours && b0 > 0 ? b0 - 1 : b0, b_hi = neighbours && b1 < b_count ? b1 + 1 : b1;
    int a_len = int(a_hi - a_lo), b_len = int(b_hi - b_lo);
    // The tile's loads, then its stores, each with a full-tile branch of its own (the two halves of
    // load_two_lists_to_shared, which keeps both in one branch): ptxas then forms the shared
    // window's address once, not again under each row's predicate (36 reads of SR_CgaCtaId): 884
    // instructions instead of 1010 in the partitioned kernel of int keys (SASS, sm_90), and 1.06x
    // faster at 2^24-2^28 for 4-byte keys (bench/results/2026-11-29_h200_search_sets_ab.txt). The
    // set tiles ran 10% slower with their load split this way.
    {
      const array_t<K, VT + 1> rows =
          detail::two_lists_rows<NT, VT + 1, list_addressing::choose_base, partial_tiles::common, K>(
              a + a_lo, a_len, b + b_lo, a_len + b_len, tid);
      reg_to_mem_strided<NT>(rows, s.keys, tid, a_len + b_len);
      __syncthreads();
    }
    // Positions in keys[] of the ranges' starts and ends.
    int a_begin = int(a0 - a_lo), a_end = a_begin + int(a1 - a0);
    int b_begin = a_len + int(b0 - b_lo), b_end = b_begin + int(b1 - b0);
    int a_n = a_end - a_begin, tile_total = a_n + (b_end - b_begin);
    // Upper bounds past the tile's b range are those of a's equal to b[b1] (b[b1] orders after
    // none of the tile's a's): the last a tells whether there are any. Warp 0 finds where b's run
    // of that key ends, while the other warps merge; the barrier after the merge publishes it.
    [[maybe_unused]] const bool runs_past =
        uppers && a_n > 0 && b1 < b_count && !comp(s.keys[a_end - 1], s.keys[b_end]);
    if constexpr (uppers)
      if (runs_past && tid < warp_size) run_end = warp_run_end(b, b1, b_count, s.keys[b_end], comp);

    // This thread's VT steps of the merge, from its Merge Path split.
    int diag = VT * tid < tile_total ? VT * tid : tile_total;
    int split = merge_path<B>(s.keys + a_begin, a_n, s.keys + b_begin, b_end - b_begin, diag, comp);
    int ai = a_begin + split, bi = b_begin + diag - split;
    unsigned long long matched = 0;  // a's in the low half, b's in the high half
    // The keys at ai and bi stay in registers: a step loads only the next key of the side it took.
    // (Loading both every step doubled the tile's shared-memory loads, whose bank conflicts kept
    // the shared pipe 91% busy on an H100: bench/results/2026-11-26_h100_search_loads_ab.txt.) A
    // side may be read one past its range: its neighbour, or a slot of keys[] never used.
    K a_key = s.keys[ai], b_key = s.keys[bi];
    MGPU_UNROLL
    for (int step = 0; step < VT; ++step) {
      if (diag + step >= tile_total) break;
      bool take_a = bi >= b_end || (ai < a_end && (B == bounds::lower ? !comp(b_key, a_key) : comp(a_key, b_key)));
      if (take_a) {
        // a's bound is the b position reached; its neighbour there was loaded if it exists.
        [[maybe_unused]] std::int64_t bound = b0 + (bi - b_begin);  // (unused when a has no output)
        bool match = false;
        if constexpr (writes_match(A_OUT))
          match =
              B == bounds::lower ? bound < b_count && !comp(a_key, b_key) : bound > 0 && !comp(s.keys[bi - 1], a_key);
        if constexpr (A_OUT != search_output::none)
          s.results[ai - a_begin] = stage_result<stages_offsets_v<R>, A_OUT, RA, S>(b0, bi - b_begin, match);
        matched += match;
        a_key = s.keys[++ai];
      } else {
        [[maybe_unused]] std::int64_t bound = a0 + (ai - a_begin);  // (unused when b has no output)
        bool match = false;
        if constexpr (writes_match(B_OUT))
          match =
              B == bounds::lower ? bound > 0 && !comp(s.keys[ai - 1], b_key) : bound < a_count && !comp(b_key, a_key);
        if constexpr (B_OUT != search_output::none)
          s.results[a_n + bi - b_begin] = stage_result<stages_offsets_v<R>, B_OUT, RB, S>(a0, ai - a_begin, match);
        matched += (unsigned long long)match << 32;
        b_key = s.keys[++bi];
      }
    }
    __syncthreads();
    // (Captured outside `if constexpr`, as nvcc requires; one of them is unused when a side has no
    // output, which nvcc reports in this generic lambda.)
    [[maybe_unused]] AOut a_dst = a_out;
    [[maybe_unused]] BOut b_dst = b_out;
    [[maybe_unused]] AUpperOut upper_dst = a_upper;
    // Each side's outputs, coalesced, in rows of NT: a side without output costs no steps (the
    // kernel is bound by its instruction issue, SM 85% busy at 2^28 on an H100).
    // (P::nt and P::vt: NT and VT would be first captured inside `if constexpr`, as nvcc forbids.)
    if constexpr (uppers)
      store_equal_ranges<P::nt, P::vt, stages_offsets_v<R>, RA, RU>(a_dst, upper_dst, a0, s.results, a_n, tid, b0,
                                                                    s.keys + a_begin, s.keys + b_begin, b_end - b_begin,
                                                                    runs_past, runs_past ? run_end : b1, comp);
    else if constexpr (A_OUT != search_output::none)
      store_search_results<P::nt, P::vt, stages_offsets_v<R>, A_OUT, RA>(a_dst, a0, s.results, a_n, tid, b0);
    if constexpr (B_OUT != search_output::none)
      store_search_results<P::nt, P::vt, stages_offsets_v<R>, B_OUT, RB>(b_dst, b0, s.results + a_n, tile_total - a_n,
                                                                         tid, a0);
    if (a_matches || b_matches) {
      unsigned long long both = cta_reduce<NT, unsigned long long>::reduce(tid, matched, reduce_storage, plus<>());
      if (tid == 0) {
        if (a_matches && (both & 0xffffffffull)) atomicAdd(a_matches, both & 0xffffffffull);
        if (b_matches && (both >> 32)) atomicAdd(b_matches, both >> 32);
      }
    }
  };
  // Within one wave, the searches of all tiles overlap. In two (2^22 int32 keys, 1.2 waves on an
  // H100) the CTAs that start late each wait out their own, and the call ran 1.07x slower than
  // with the partition pass, where merge and the load-balancing functions still gain.
  const bool searched =
      !needle_by_needle && tiles > 1 && search_in_ctas<P, decltype(kernel), search_bounds_t>(tiles, ctx, 1);
  // Temporaries first (a failed allocation writes nothing), then the counts start at zero.
  buffer<std::int64_t> partitions = needle_by_needle || searched || tiles <= 1
                                        ? buffer<std::int64_t>()
                                        : merge_path_partitions<B>(a, a_count, b, b_count, NV, comp, ctx);
  if (a_match_count) zero_bytes(a_match_count, sizeof(std::int64_t), ctx);
  if (b_match_count) zero_bytes(b_match_count, sizeof(std::int64_t), ctx);
  if (total == 0) return;

  if (needle_by_needle) {
    if constexpr (B_OUT == search_output::none) {
      unsigned long long* a_matches = reinterpret_cast<unsigned long long*>(a_match_count);
      transform(
          [=] MGPU_LAMBDA(std::int64_t i) {
            bool match;
            std::int64_t bound = search_one<B>(b, b_count, K(a[i]), comp, match);
            AOut a_dst = a_out;  // (captured outside `if constexpr`, as nvcc requires)
            [[maybe_unused]] AUpperOut upper_dst = a_upper;
            if constexpr (A_OUT != search_output::none) a_dst[i] = search_value<A_OUT, RA>(bound, match);
            // (uppers' condition spelled out: nvcc forbids a first capture inside `if constexpr`.)
            if constexpr (!std::is_same<AUpperOut, discard_iterator>::value)
              store_upper_bound<RU>(upper_dst, i, bound,
                                    bound + binary_search<bounds::upper>(b + bound, b_count - bound, K(a[i]), comp));
            if (a_matches && match) atomicAdd(a_matches, 1ull);
          },
          a_count, ctx);
    }
    return;
  }
  if (searched)
    cta_launch<P>(kernel, tiles, ctx, search_bounds_t());
  else
    cta_launch<P>(kernel, tiles, ctx, static_cast<const std::int64_t*>(partitions.data()));
}

// sorted_equality_count's checks and its upper-bound search (validate_order: as sorted_search_impl).
template <typename params, typename AIt, typename LowerIt, typename BIt, typename CountIt, typename Comp, typename Op>
void equality_count_impl(const char* fn, AIt a, LowerIt lower_bounds, std::int64_t a_count, BIt b, std::int64_t b_count,
                         CountIt counts, Comp comp, Op op, bool validate_order, context& ctx) {
  check_count(fn, "a_count", a_count);
  check_pointer(fn, "lower_bounds", lower_bounds, a_count);
  check_pointer(fn, "counts", counts, a_count);
  sorted_search_impl<bounds::upper, search_output::index, search_output::none, params>(
      fn, a, a_count, b, b_count,
      make_store_iterator(equality_count_writer<LowerIt, CountIt, Op>{lower_bounds, counts, op}), discard_iterator(),
      discard_iterator(), nullptr, nullptr, comp, validate_order, ctx);
}

}  // namespace detail

// The number of equal keys from lower and upper bounds: upper - lower.
struct equal_range_size {
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t lower, std::int64_t upper) const { return upper - lower; }
};

// Vectorized sorted search: for every element of a, its bound in b, and for every element of b,
// its bound in a, in one linear pass (both must be sorted by comp, a strict weak order).
//   B = bounds::lower: a[i] gets its lower bound in b (the number of b's elements ordered before
//     it: std::lower_bound); b[j] gets its upper bound in a (the number of a's elements not
//     ordered after it: std::upper_bound).
//   B = bounds::upper: a[i] gets its upper bound in b, b[j] its lower bound in a.
// A_OUT and B_OUT choose what is written to a_output[i] and b_output[j] (search_output): the
// bound, the match flag (1 if the other input holds a key equal to it), both (the flag in the most
// significant bit of the output's integer type), or nothing. a_match_count and b_match_count, if
// not null, receive the number of a's (b's) elements that have a match; they need a match output
// on their side. Outputs are written to device memory; the host does not wait.
// Throws std::invalid_argument for negative counts, null pointers, or a count without a match
// output; in checked mode, mgpu::precondition_error if an input is not sorted.
// Template arguments: B, A_OUT, B_OUT (they say what is computed), then the tuning shape.
template <bounds B, search_output A_OUT, search_output B_OUT, typename params = void, typename AIt, typename BIt,
          typename AOut, typename BOut, typename Comp>
void sorted_search(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, AOut a_output, BOut b_output,
                   std::int64_t* a_match_count, std::int64_t* b_match_count, Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  if constexpr (is_comparator_v<Comp, iterator_value_t<AIt>>)
    detail::sorted_search_impl<B, A_OUT, B_OUT, params>("mgpu::sorted_search", a, a_count, b, b_count, a_output,
                                                        b_output, discard_iterator(), a_match_count, b_match_count,
                                                        comp, true, ctx);
}

// The same without match counts.
template <bounds B, search_output A_OUT, search_output B_OUT, typename params = void, typename AIt, typename BIt,
          typename AOut, typename BOut, typename Comp>
void sorted_search(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, AOut a_output, BOut b_output, Comp comp,
                   context& ctx) {
  sorted_search<B, A_OUT, B_OUT, params>(a, a_count, b, b_count, a_output, b_output, nullptr, nullptr, comp, ctx);
}

// The short form: indices[i] = the lower (or upper) bound of needles[i] in haystack, as
// std::lower_bound (std::upper_bound) would find it; both sorted by comp.
template <bounds B = bounds::lower, typename params = void, typename NeedleIt, typename HaystackIt, typename Out,
          typename Comp>
void sorted_search(NeedleIt needles, std::int64_t needles_count, HaystackIt haystack, std::int64_t haystack_count,
                   Out indices, Comp comp, context& ctx) {
  sorted_search<B, search_output::index, search_output::none, params>(needles, needles_count, haystack, haystack_count,
                                                                      indices, discard_iterator(), comp, ctx);
}

// Vectorized std::equal_range: lower[i] and upper[i] receive the lower and upper bounds of a[i] in b
// (b[lower[i], upper[i]) holds b's elements equal to a[i]), both sorted by comp, a strict weak
// order. One linear pass, as sorted_search's: each tile merges with lower bounds, then finds each
// upper bound from its lower one within the tile's part of b (a run of equals that continues past
// the tile is followed into b by one warp of the tile). Outputs are written to device memory; the
// host does not wait.
// Throws std::invalid_argument for negative counts or null pointers; in checked mode,
// mgpu::precondition_error if an input is not sorted.
template <typename params = void, typename AIt, typename BIt, typename LowerOut, typename UpperOut, typename Comp>
void sorted_equal_range(AIt a, std::int64_t a_count, BIt b, std::int64_t b_count, LowerOut lower, UpperOut upper,
                        Comp comp, context& ctx) {
  const char* fn = "mgpu::sorted_equal_range";
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  detail::check_pointer(fn, "lower", lower, a_count);
  if constexpr (is_comparator_v<Comp, iterator_value_t<AIt>>)
    detail::sorted_search_impl<bounds::lower, search_output::index, search_output::none, params>(
        fn, a, a_count, b, b_count, lower, discard_iterator(), upper, nullptr, nullptr, comp, true, ctx);
}

// counts[i] = op(lower_bounds[i], u) for each a[i], where u is the upper bound of a[i] in b and
// lower_bounds[i] is its lower bound (from sorted_search): with the default op, the number of
// b's elements equal to a[i]. lower_bounds shares a_count with a, so it comes before it. counts
// may be lower_bounds itself (the counts replace the bounds).
template <typename params = void, typename AIt, typename LowerIt, typename BIt, typename CountIt, typename Comp,
          typename Op>
void sorted_equality_count(AIt a, LowerIt lower_bounds, std::int64_t a_count, BIt b, std::int64_t b_count,
                           CountIt counts, Comp comp, Op op, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, iterator_value_t<AIt>);
  if constexpr (is_comparator_v<Comp, iterator_value_t<AIt>>)
    detail::equality_count_impl<params>("mgpu::sorted_equality_count", a, lower_bounds, a_count, b, b_count, counts,
                                        comp, op, true, ctx);
}

// The same with op = equal_range_size (upper - lower).
template <typename params = void, typename AIt, typename LowerIt, typename BIt, typename CountIt, typename Comp>
void sorted_equality_count(AIt a, LowerIt lower_bounds, std::int64_t a_count, BIt b, std::int64_t b_count,
                           CountIt counts, Comp comp, context& ctx) {
  sorted_equality_count<params>(a, lower_bounds, a_count, b, b_count, counts, comp, equal_range_size(), ctx);
}

}  // namespace mgpu
