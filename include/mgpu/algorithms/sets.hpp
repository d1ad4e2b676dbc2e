// mgpu/algorithms/sets.hpp
//
// set_intersection, set_union, set_difference, set_symmetric_difference: std::set_*'s multiset
// operations on sorted keys, or key-value pairs, in one pass over the inputs.
//
// 1. Partition: Balanced Path cuts at every tile's diagonal (balanced_path_partitions), so that
//    each tile holds NV - 1 to NV + 1 elements of a and b and no matched pair is split between
//    two tiles.
// 2. Per tile: its parts of a and b go to shared memory; each thread finds its steps by Balanced
//    Path within the tile and runs the serial set operation (cta_set_op_from_shared). A CTA scan
//    of the threads' kept counts places each thread's keys within the tile's output, and warp 0
//    finds where the tile's output starts by decoupled look-back over the tiles before it, inside
//    that scan: every input is read once and every output written once, with no second pass to
//    count. The last tile writes the total.
// 3. The kept keys are compacted in shared memory and stored coalesced; a pair's value comes from
//    the tile's values, loaded into shared memory beside its keys at the start.
//
// Why one pass: a count pass, a scan of the tile counts and a write pass would read both inputs
// twice, a third more memory traffic than the union's one read and one write, and up to twice as
// much for an intersection or difference that keeps little. The look-back costs each tile a few
// loads of its predecessors' published counts, which overlap other tiles' work.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/balanced_path.hpp"
#include "../cta/count_lookback.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/sets.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

namespace detail {
// Values a thread for tiles of 256 threads whose elements (a key, and its value) take `bytes`: the
// most of 15, 7, 3, 1 for which a tile's two lists (VT + 1 rows) fit in 32 KiB of shared memory.
constexpr int set_tile_vt(int bytes) { return bytes <= 8 ? 15 : bytes <= 16 ? 7 : bytes <= 32 ? 3 : 1; }
}  // namespace detail

// The tile shape for keys of type K with values of type V (empty_t: keys only). Keys of 4 bytes
// alone: 128 x 31, measured on an H100 (bench/results/2026-11-25_h100_set_shapes.txt: 13-17%
// faster than 256 x 15 at 2^26 and 2^28; larger tiles amortize the Balanced Path searches). With
// values, 128 x 31 takes 139 registers a thread (the steps' positions stay live), so pairs and
// wider keys take 256 threads and as many values a thread as keep a tile's keys and values in
// 32 KiB (256 x 15 for 4-byte keys and values or 8-byte keys alone, x 7 up to 16 bytes). The keys'
// shape asks for 8 CTAs an SM (64 registers, 16-48 bytes spilled): uncapped, ptxas took 80
// registers (6 CTAs) and set operations on keys ran 1-5% slower at 2^24-2^28 than at 7 CTAs (72
// registers; bench/results/2026-11-26_h100_loads_first_ab.txt), which ran 1-2.5% slower than 8 at
// 2^26-2^28 (bench/results/2026-11-27_h100_set_writable_ab.txt; larger tiles, 9 CTAs an SM and
// CTAs of 64 threads were slower still: bench/results/2026-11-27_h100_set_tiles_vs_thrust.txt).
template <typename K, typename V = empty_t>
using set_params = std::conditional_t<
    (sizeof(K) <= 4 && !has_values_v<V>), launch_params<128, 31, 8>,
    launch_params<256, detail::set_tile_vt(int(sizeof(K)) + (has_values_v<V> ? int(sizeof(V)) : 0))>>;

namespace detail {

// The most keys an operation can keep: the size its outputs need.
inline std::int64_t set_output_bound(set_kind kind, std::int64_t a_count, std::int64_t b_count) {
  switch (kind) {
    case set_kind::intersection:
      return a_count < b_count ? a_count : b_count;
    case set_kind::difference:
      return a_count;
    default:
      return a_count + b_count;  // union and symmetric difference (the sum was checked)
  }
}

template <int NT, int NV, typename K, typename V>
struct set_tile_storage {
  union {
    K keys[NV + 2];   // the tile's a and b (at most NV + 1, and one past), then its kept keys
    int indices[NV];  // the kept keys' positions in keys[] (pairs: where to read values)
  };
  // Pairs: the values of the tile's a and b, beside their keys.
  std::conditional_t<has_values_v<V>, V[NV + 1], empty_t> values;
  cta_set_op_storage<NT> starts;
  typename cta_scan<NT, int>::storage_t scan;
  std::int64_t tile_start;  // where the tile's output starts
};

// One tile of a set operation: the steps between the cuts lo and hi of a and b, its kept keys
// (and values) written at their place in the output, and the tile's count published for the tiles
// after it. Outputs at or past `bound` are never written, and the count written is at most
// `bound`: inputs that break the preconditions (not sorted) can give cuts that are not monotone;
// the parts' lengths are then clamped and the result is unspecified, but every access stays in
// the arrays.
template <typename P, set_kind kind, typename K, typename V, typename AKeys, typename AValues, typename BKeys,
          typename BValues, typename OutKeys, typename OutValues, typename Comp>
MGPU_DEVICE void set_tile(int tid, int tile, int tiles, balanced_split<std::int64_t> lo,
                          balanced_split<std::int64_t> hi, AKeys a_keys, AValues a_values, BKeys b_keys,
                          BValues b_values, OutKeys keys_out, OutValues values_out, std::int64_t* count_out,
                          std::int64_t bound, Comp comp, const count_lookback& state,
                          set_tile_storage<P::nt, P::nv, K, V>& s) {
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  std::int64_t a_given = hi.a - lo.a, b_given = hi.b - lo.b;
  int a_count = int(a_given < 0 ? 0 : a_given > NV + 1 ? NV + 1 : a_given);
  int b_count = int(b_given < 0 ? 0 : b_given > NV + 1 - a_count ? NV + 1 - a_count : b_given);
  // Pairs load their values with the keys, every load in flight at once, for the kept keys' values
  // to come from shared memory at the end (b's only where the operation can keep b's keys).
  if constexpr (has_values_v<V>) {
    constexpr list_values which = detail::keeps(kind, false, true) ? list_values::both : list_values::a_only;
    load_two_lists_to_shared<NT, VT + 1, which>(a_keys + lo.a, a_values + lo.a, a_count, b_keys + lo.b, b_values + lo.b,
                                                b_count, tid, s.keys, s.values);
  } else {
    load_two_lists_to_shared<NT, VT + 1>(a_keys + lo.a, a_count, b_keys + lo.b, b_count, tid, s.keys);
  }
  set_selection<K, VT> selected = cta_set_op_from_shared<kind, NT, VT>(s.keys, a_count, b_count, tid, comp, s.starts);

  // The thread's place in the tile's output, and (warp 0, inside the scan) the tile's place in
  // the whole output: its count goes out as an aggregate, the look-back adds up the counts before
  // it, and the sum goes out as its inclusive prefix.
  auto tile_prefix = [&](int kept) -> maybe<int> {
    std::int64_t start = 0;
    if (tile == 0) {
      if (lane_id() == 0) state.publish(0, count_lookback::status_prefix, kept);
    } else {
      if (lane_id() == 0) state.publish(tile, count_lookback::status_aggregate, kept);
      start = state.exclusive_prefix(tile);
      if (lane_id() == 0) state.publish(tile, count_lookback::status_prefix, start + kept);
    }
    if (lane_id() == 0) {
      s.tile_start = start;
      if (tile == tiles - 1) *count_out = start + kept < bound ? start + kept : bound;
    }
    return maybe<int>{0, true};
  };
  typename cta_scan<NT, int>::prefix_result_t place =
      cta_scan<NT, int>::template scan<scan_kind::exclusive>(tid, selected.count(), s.scan, plus<int>(), tile_prefix);
  const int first = place.prefix.value, tile_kept = place.reduction;
  const std::int64_t tile_start = s.tile_start;
  // The outputs the tile writes: its kept keys short of `bound`, tested once here rather than in
  // 64 bits at every output.
  const int writable = tile_start >= bound ? 0 : bound - tile_start < tile_kept ? int(bound - tile_start) : tile_kept;

  // The scan's barriers came after every thread's steps: the tile's inputs in keys[] are no
  // longer read, and the kept keys take their place, in order.
  int at = first;
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i)
    if ((selected.kept >> i) & 1u) s.keys[at++] = selected.keys[i];
  __syncthreads();
  // Pairs read every kept key and value before the first is stored: a store through the output
  // iterator, which as far as the compiler knows may point into shared memory, would otherwise hold
  // the next element's reads back until it is issued (SASS, sm_90). set_union of int pairs 1.07x-1.12x
  // faster at 2^24-2^28 on an H200 with both loops so; keys alone 1%-4% slower (a kernel at its
  // register cap), so they keep the plain loop (bench/results/2026-11-29_h200_lbs_batched_reads_ab.txt).
  if constexpr (has_values_v<V>) {
    reg_to_mem_strided<NT, VT>(mem_to_reg_strided<NT, VT, K>(s.keys, tid, writable), keys_out + tile_start, tid,
                               writable);
  } else {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int j = NT * i + tid;
      if (j < writable) keys_out[tile_start + j] = s.keys[j];
    }
  }

  if constexpr (has_values_v<V>) {
    __syncthreads();  // every kept key is read before the positions overwrite them
    at = first;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if ((selected.kept >> i) & 1u) s.indices[at++] = selected.indices[i];
    __syncthreads();
    const array_t<int, VT> kept = mem_to_reg_strided<NT, VT, int>(s.indices, tid, writable);
    array_t<V, VT> values;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < writable) values[i] = s.values[kept[i]];
    reg_to_mem_strided<NT, VT>(values, values_out + tile_start, tid, writable);
  }
}

// Every form of every operation. count_out: where the device form writes the count (its caller
// checked it); the host form passes nullptr and gets the count returned (the host waits).
template <set_kind kind, typename params, typename K, typename V, typename AKeys, typename AValues, typename BKeys,
          typename BValues, typename OutKeys, typename OutValues, typename Comp>
std::int64_t set_op_impl(const char* fn, AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys,
                         BValues b_values, std::int64_t b_count, OutKeys keys_out, OutValues values_out,
                         std::int64_t* count_out, Comp comp, context& ctx) {
  check_count(fn, "a_count", a_count);
  check_count(fn, "b_count", b_count);
  const std::int64_t total = checked_sum(fn, "a_count", a_count, "b_count", b_count);
  const std::int64_t bound = set_output_bound(kind, a_count, b_count);
  check_pointer(fn, "a_keys", a_keys, a_count);
  check_pointer(fn, "b_keys", b_keys, b_count);
  check_pointer(fn, "keys_out", keys_out, bound);
  check_disjoint(fn, "keys_out", a_keys, a_count, keys_out, bound);
  check_disjoint(fn, "keys_out", b_keys, b_count, keys_out, bound);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "a_values", a_values, a_count);
    check_pointer(fn, "b_values", b_values, b_count);
    check_pointer(fn, "values_out", values_out, bound);
    check_disjoint(fn, "values_out", a_values, a_count, values_out, bound);
    check_disjoint(fn, "values_out", b_values, b_count, values_out, bound);
  }
  if (ctx.checked()) {
    check_sorted(fn, "a_keys", a_keys, a_count, comp, ctx);
    check_sorted(fn, "b_keys", b_keys, b_count, comp, ctx);
  }
  using P = params_or<params, set_params<K, V>>;
  constexpr int NT = P::nt, NV = P::nv;
  static_assert(P::vt <= 32,
                "mgpu: a set operation's tuning takes at most 32 values per thread (launch_params<NT, VT> with VT <= "
                "32): each thread keeps one bit per step");
  static_assert(sizeof(set_tile_storage<NT, NV, K, V>) <= 47 * 1024,
                "mgpu: a set operation's tile of these keys takes too much shared memory: pass smaller "
                "launch_params (fewer values per thread) as the tuning template argument");

  // Temporaries first (a failed allocation writes nothing).
  buffer<std::int64_t> own_count(count_out ? 0 : 1, ctx);
  std::int64_t* count = count_out ? count_out : own_count.data();
  if (bound == 0) {  // nothing can be kept (an input is empty, or both)
    detail::zero_bytes(count, sizeof(std::int64_t), ctx);
  } else {
    int tiles = num_tiles<P>(total, fn);
    // A single tile takes both inputs whole: no partition pass, no look-back state.
    using split_t = balanced_split<std::int64_t>;
    buffer<split_t> partitions =
        tiles > 1 ? balanced_path_partitions(a_keys, a_count, b_keys, b_count, NV, comp, ctx) : buffer<split_t>();
    buffer<unsigned char> state_memory = zeroed_bytes(count_lookback::storage_bytes(tiles), ctx);
    const count_lookback state(state_memory.data());
    const split_t* p = partitions.data();
    auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
      __shared__ shared_storage<set_tile_storage<NT, NV, K, V>> storage;
      const split_t first = p ? p[tile] : split_t{0, 0, false};
      const split_t last = p ? p[tile + 1] : split_t{a_count, b_count, false};
      set_tile<P, kind, K, V>(tid, tile, tiles, first, last, a_keys, a_values, b_keys, b_values, keys_out, values_out,
                              count, bound, comp, state, storage.get());
    };
    cta_launch<P>(kernel, tiles, ctx);
  }
  return count_out ? 0 : own_count.to_host()[0];
}

// The public forms, for one operation: keys or pairs, count returned or left on the device.
template <set_kind kind, typename params, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
std::int64_t set_keys(const char* fn, AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count,
                      OutKeys keys_out, std::int64_t* count_out, Comp comp, context& ctx) {
  using K = iterator_value_t<AKeys>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  constant_iterator<empty_t> no_values;
  if constexpr (is_comparator_v<Comp, K>)
    return set_op_impl<kind, params, K, empty_t>(fn, a_keys, no_values, a_count, b_keys, no_values, b_count, keys_out,
                                                 discard_iterator(), count_out, comp, ctx);
  else
    return 0;
}

template <set_kind kind, typename params, typename AKeys, typename AValues, typename BKeys, typename BValues,
          typename OutKeys, typename OutValues, typename Comp>
std::int64_t set_pairs(const char* fn, AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys,
                       BValues b_values, std::int64_t b_count, OutKeys keys_out, OutValues values_out,
                       std::int64_t* count_out, Comp comp, context& ctx) {
  using K = iterator_value_t<AKeys>;
  using V = iterator_value_t<AValues>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    return set_op_impl<kind, params, K, V>(fn, a_keys, a_values, a_count, b_keys, b_values, b_count, keys_out,
                                           values_out, count_out, comp, ctx);
  else
    return 0;
}

inline void check_count_out(const char* fn, std::int64_t* count_out) { check_pointer(fn, "count_out", count_out, 1); }

}  // namespace detail

// ---- The four operations --------------------------------------------------------------------
//
// Each comes in four forms (std::set_*'s semantics, for a_keys[0, a_count) and b_keys[0, b_count)
// both sorted by comp, a strict weak order; the output sorted by comp, stable):
//
//   keys, count returned:    n = op(a_keys, a_count, b_keys, b_count, keys_out, comp, ctx)
//   keys, count on device:   op(a_keys, a_count, b_keys, b_count, keys_out, count_out, comp, ctx)
//   pairs, count returned:   n = op(a_keys, a_values, a_count, b_keys, b_values, b_count, keys_out,
//                                   values_out, comp, ctx)
//   pairs, count on device:  op(a_keys, a_values, a_count, b_keys, b_values, b_count, keys_out,
//                                values_out, count_out, comp, ctx)
//
// The outputs receive the kept keys (and the values that come with them) in [0, n). They need
// room for the most keys the operation can keep, whatever the inputs hold: a_count + b_count for
// set_union and set_symmetric_difference, min(a_count, b_count) for set_intersection, a_count for
// set_difference; nothing at or past n is written. The forms that return n wait for it (the host
// synchronizes); the others write it to *count_out (one std::int64_t in device memory) and never
// wait, for CUDA graphs and pipelines. The forms differ in their number of arguments, so every
// call names one of them.
//
// Throws std::invalid_argument for negative counts, null pointers (count_out included), outputs
// that overlap an input, or a_count + b_count past the largest std::int64_t; in checked mode,
// mgpu::precondition_error if an input is not sorted (otherwise unsorted inputs give an
// unspecified result, but no access outside the arrays). Template arguments: the tuning shape,
// then deduced ones.

// std::set_intersection: for a key with m copies in a and n in b, a's first min(m, n) copies.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
std::int64_t set_intersection(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                              Comp comp, context& ctx) {
  return detail::set_keys<set_kind::intersection, params>("mgpu::set_intersection", a_keys, a_count, b_keys, b_count,
                                                          keys_out, nullptr, comp, ctx);
}
// set_intersection of keys, the count written to *count_out.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
void set_intersection(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                      std::int64_t* count_out, Comp comp, context& ctx) {
  detail::check_count_out("mgpu::set_intersection", count_out);
  detail::set_keys<set_kind::intersection, params>("mgpu::set_intersection", a_keys, a_count, b_keys, b_count, keys_out,
                                                   count_out, comp, ctx);
}
// set_intersection of key-value pairs: each kept key's value (from a) goes with it.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
std::int64_t set_intersection(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                              std::int64_t b_count, OutKeys keys_out, OutValues values_out, Comp comp, context& ctx) {
  return detail::set_pairs<set_kind::intersection, params>("mgpu::set_intersection", a_keys, a_values, a_count, b_keys,
                                                           b_values, b_count, keys_out, values_out, nullptr, comp, ctx);
}
// set_intersection of key-value pairs, the count written to *count_out.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
void set_intersection(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                      std::int64_t b_count, OutKeys keys_out, OutValues values_out, std::int64_t* count_out, Comp comp,
                      context& ctx) {
  detail::check_count_out("mgpu::set_intersection", count_out);
  detail::set_pairs<set_kind::intersection, params>("mgpu::set_intersection", a_keys, a_values, a_count, b_keys,
                                                    b_values, b_count, keys_out, values_out, count_out, comp, ctx);
}

// std::set_union: for a key with m copies in a and n in b, a's m copies, then b's last
// max(n - m, 0).
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
std::int64_t set_union(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                       Comp comp, context& ctx) {
  return detail::set_keys<set_kind::union_, params>("mgpu::set_union", a_keys, a_count, b_keys, b_count, keys_out,
                                                    nullptr, comp, ctx);
}
// set_union of keys, the count written to *count_out.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
void set_union(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
               std::int64_t* count_out, Comp comp, context& ctx) {
  detail::check_count_out("mgpu::set_union", count_out);
  detail::set_keys<set_kind::union_, params>("mgpu::set_union", a_keys, a_count, b_keys, b_count, keys_out, count_out,
                                             comp, ctx);
}
// set_union of key-value pairs: each kept key's value, from the input the key was kept from.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
std::int64_t set_union(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                       std::int64_t b_count, OutKeys keys_out, OutValues values_out, Comp comp, context& ctx) {
  return detail::set_pairs<set_kind::union_, params>("mgpu::set_union", a_keys, a_values, a_count, b_keys, b_values,
                                                     b_count, keys_out, values_out, nullptr, comp, ctx);
}
// set_union of key-value pairs, the count written to *count_out.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
void set_union(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
               std::int64_t b_count, OutKeys keys_out, OutValues values_out, std::int64_t* count_out, Comp comp,
               context& ctx) {
  detail::check_count_out("mgpu::set_union", count_out);
  detail::set_pairs<set_kind::union_, params>("mgpu::set_union", a_keys, a_values, a_count, b_keys, b_values, b_count,
                                              keys_out, values_out, count_out, comp, ctx);
}

// std::set_difference: for a key with m copies in a and n in b, a's last max(m - n, 0) copies.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
std::int64_t set_difference(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                            Comp comp, context& ctx) {
  return detail::set_keys<set_kind::difference, params>("mgpu::set_difference", a_keys, a_count, b_keys, b_count,
                                                        keys_out, nullptr, comp, ctx);
}
// set_difference of keys, the count written to *count_out.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
void set_difference(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                    std::int64_t* count_out, Comp comp, context& ctx) {
  detail::check_count_out("mgpu::set_difference", count_out);
  detail::set_keys<set_kind::difference, params>("mgpu::set_difference", a_keys, a_count, b_keys, b_count, keys_out,
                                                 count_out, comp, ctx);
}
// set_difference of key-value pairs: each kept key's value (from a) goes with it.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
std::int64_t set_difference(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                            std::int64_t b_count, OutKeys keys_out, OutValues values_out, Comp comp, context& ctx) {
  return detail::set_pairs<set_kind::difference, params>("mgpu::set_difference", a_keys, a_values, a_count, b_keys,
                                                         b_values, b_count, keys_out, values_out, nullptr, comp, ctx);
}
// set_difference of key-value pairs, the count written to *count_out.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
void set_difference(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                    std::int64_t b_count, OutKeys keys_out, OutValues values_out, std::int64_t* count_out, Comp comp,
                    context& ctx) {
  detail::check_count_out("mgpu::set_difference", count_out);
  detail::set_pairs<set_kind::difference, params>("mgpu::set_difference", a_keys, a_values, a_count, b_keys, b_values,
                                                  b_count, keys_out, values_out, count_out, comp, ctx);
}

// std::set_symmetric_difference: for a key with m copies in a and n in b, a's last max(m - n, 0)
// copies or b's last max(n - m, 0).
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
std::int64_t set_symmetric_difference(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count,
                                      OutKeys keys_out, Comp comp, context& ctx) {
  return detail::set_keys<set_kind::symmetric_difference, params>("mgpu::set_symmetric_difference", a_keys, a_count,
                                                                  b_keys, b_count, keys_out, nullptr, comp, ctx);
}
// set_symmetric_difference of keys, the count written to *count_out.
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
void set_symmetric_difference(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out,
                              std::int64_t* count_out, Comp comp, context& ctx) {
  detail::check_count_out("mgpu::set_symmetric_difference", count_out);
  detail::set_keys<set_kind::symmetric_difference, params>("mgpu::set_symmetric_difference", a_keys, a_count, b_keys,
                                                           b_count, keys_out, count_out, comp, ctx);
}
// set_symmetric_difference of key-value pairs: each kept key's value, from the input the key was
// kept from.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
std::int64_t set_symmetric_difference(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys,
                                      BValues b_values, std::int64_t b_count, OutKeys keys_out, OutValues values_out,
                                      Comp comp, context& ctx) {
  return detail::set_pairs<set_kind::symmetric_difference, params>("mgpu::set_symmetric_difference", a_keys, a_values,
                                                                   a_count, b_keys, b_values, b_count, keys_out,
                                                                   values_out, nullptr, comp, ctx);
}
// set_symmetric_difference of key-value pairs, the count written to *count_out.
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
void set_symmetric_difference(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                              std::int64_t b_count, OutKeys keys_out, OutValues values_out, std::int64_t* count_out,
                              Comp comp, context& ctx) {
  detail::check_count_out("mgpu::set_symmetric_difference", count_out);
  detail::set_pairs<set_kind::symmetric_difference, params>("mgpu::set_symmetric_difference", a_keys, a_values, a_count,
                                                            b_keys, b_values, b_count, keys_out, values_out, count_out,
                                                            comp, ctx);
}

}  // namespace mgpu
