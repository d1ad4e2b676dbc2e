// mgpu/algorithms/segmented_scan.hpp
//
// segmented_exclusive_scan and segmented_inclusive_scan: a scan that starts again at every segment
// head, in a single pass over the data, as the plain scan (algorithms/scan.hpp):
//
// 1. Each tile learns which of its positions are heads, as a bitfield in shared memory: copied
//    from the caller's flag words (segments_by_flags), or marked from the heads that fall in the
//    tile (segments_by_heads: two binary searches give each tile its range of heads, made by the
//    CTA itself for a grid of one or two waves, else by a partition pass).
// 2. Each thread folds its VT values in thread order into (the fold since its last head, whether
//    it has a head), and the CTA scans those pairs with the segmented operator
//        (a, a_head) . (b, b_head) = b_head ? (b, true) : (a op b, a_head),
//    which is associative when op is, so non-commutative operators work.
// 3. Decoupled look-back carries values between tiles. A tile with a head inside knows what it
//    hands on (the fold from its last head to its end) without asking: it publishes that as its
//    inclusive prefix at once, so the look-back of later tiles stops there; it still looks back
//    for the values before its first head, unless its first position is a head. A tile without a
//    head publishes its fold as an aggregate, as in the plain scan.
// 4. Each thread runs the serial scan of its values from its carry, starting again at its heads.
//
// Positions before the first head (segments_by_heads with heads[0] > 0) are scanned as a segment
// of their own, as segmented_sort sorts them: position 0 always starts a segment.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/segments.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/lookback.hpp"
#include "../cta/search.hpp"
#include "../platform/intrinsics.hpp"
#include "../platform/memory.hpp"
#include "partition.hpp"
#include "preconditions.hpp"
#include "scan.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

// 128 threads with about 124 bytes of values each (an odd count of at most 63): 31 four-byte
// values. On an H100 (int32 sums, 2^28 values, bench/results/2026-11-25_h100_segscan_shapes.txt),
// 128 x 31 against the plain scan's 128 x 41: segments of 1 0.89x -> 0.94x CUB, of 2 1.12x ->
// 1.19x, of 32 1.54x -> 1.58x, of 1024 1.40x -> 1.39x; smaller tiles lost on long segments.
template <typename T>
using segmented_scan_params = launch_params<128, (124 / sizeof(T) >= 63 ? 63 : int(124 / sizeof(T)) | 1)>;

namespace detail {

// A fold of values since the last head, and whether a head was crossed.
template <typename T>
struct segment_fold {
  T value;
  bool head;
};

// The segmented operator of the file comment.
template <typename T, typename Op>
struct segmented_operator {
  Op op;
  MGPU_HOST_DEVICE segment_fold<T> operator()(const segment_fold<T>& a, const segment_fold<T>& b) const {
    return b.head ? b : segment_fold<T>{T(op(a.value, b.value)), a.head};
  }
};

// Bits [first, first + n) of a bitfield, n <= 64; the words up to two past the last one read must
// exist.
MGPU_HOST_DEVICE std::uint64_t bits_at(const unsigned* words, int first) {
  int w = first / 32, offset = first % 32;
  std::uint64_t v = (std::uint64_t(words[w]) | std::uint64_t(words[w + 1]) << 32) >> offset;
  if (offset) v |= std::uint64_t(words[w + 2]) << (64 - offset);
  return v;
}

// Each tile's heads as a bitfield in shared memory (bit j: position base + j starts a segment),
// from the two descriptions. mark(tid, tile, base, valid, words, scratch) fills words[0, NV / 32 +
// 2) and ends with a barrier; scratch is NV bytes of shared memory, 16-byte aligned, free until
// then.
struct flag_heads {
  static constexpr bool searched = false;
  const unsigned* flags;
  std::int64_t count;
  template <int NT, int NV>
  MGPU_DEVICE void mark(int tid, int tile, std::int64_t base, int valid, unsigned* words, unsigned char*,
                        std::int64_t*) const {
    for (int j = tid; j < NV / 32 + 2; j += NT) {
      int bits = valid - 32 * j;  // positions of word j inside the array
      unsigned w = bits > 0 ? flags[base / 32 + j] : 0u;
      if (bits < 32) w &= bits > 0 ? (1u << bits) - 1 : 0u;
      if (tile == 0 && j == 0) w |= 1u;
      words[j] = w;
    }
    __syncthreads();
  }
};
// Searched: each tile finds its heads itself (cta_search_pair: a kernel of its own, for grids of
// one or two waves); otherwise from a partition pass's entries, or all of them for a single tile.
template <typename HeadIt, bool Searched = false>
struct index_heads {
  static constexpr bool searched = Searched;
  HeadIt heads;
  std::int64_t num_heads;
  // Heads [tile_heads[t], tile_heads[t + 1]) fall in tile t; null for a single tile (all of them).
  const std::int64_t* tile_heads;
  index_heads<HeadIt, false> partitioned(const std::int64_t* partitions) const {
    return {heads, num_heads, partitions};
  }
  // `splits`: two std::int64_t of shared memory for the searches.
  template <int NT, int NV>
  MGPU_DEVICE void mark(int tid, int tile, std::int64_t base, int valid, unsigned* words, unsigned char* scratch,
                        std::int64_t* splits) const {
    // Each head stores a 1 at its position in a byte per position (scratch), then each thread
    // packs 32 of those bytes into a word. Plain stores: heads that share a word need neither
    // atomics nor shuffles, so a tile dense in heads (segments of 1: a head per position) costs
    // about what a sparse one does. (Shared atomics, each warp first OR-ing a word's bits together
    // by shuffles, took 1.5x-1.6x this time for segments of 1 from 10^4 to 10^6 values and 1.08x
    // at 2^24 on an H100, the shuffles' latency in every tile's way:
    // bench/results/2026-11-26_h100_segscan_ab.txt.)
    // A thread loads `batch` heads before it stores any, and the next batch before it stores
    // these: with one load at a time, a tile dense in heads waited out a memory latency per 128
    // of them. (The range check keeps unsorted heads, undefined in unchecked mode, inside the
    // tile; they are then marked or not, never written outside it.)
    static_assert(NV % 16 == 0, "mgpu: the head bytes are cleared and packed 16 at a time");
    for (int j = tid; j < NV / 16; j += NT) reinterpret_cast<uint4*>(scratch)[j] = uint4{0u, 0u, 0u, 0u};
    __syncthreads();
    constexpr int batch = 4;
    std::int64_t begin, end;
    if constexpr (Searched) {
      cta_binary_search_pair<NT>(tid, heads, num_heads, base, base + valid, less<>(), splits, begin, end);
    } else {
      begin = tile_heads ? tile_heads[tile] : 0;
      end = tile_heads ? tile_heads[tile + 1] : num_heads;
    }
    // (The heads stay raw until their batch is stored, so that nothing waits on the loads early.)
    using head_t = iterator_value_t<HeadIt>;
    auto load_batch = [&](std::int64_t h0, head_t(&raw)[batch]) {
      MGPU_UNROLL
      for (int k = 0; k < batch; ++k)
        if (h0 + NT * k < end) raw[k] = heads[h0 + NT * k];
    };
    head_t next[batch] = {};  // (g++ cannot see that only loaded entries are read)
    load_batch(begin + tid, next);
    for (std::int64_t h0 = begin + tid; h0 < end; h0 += NT * batch) {
      std::int64_t position[batch];
      MGPU_UNROLL
      for (int k = 0; k < batch; ++k) position[k] = h0 + NT * k < end ? std::int64_t(next[k]) - base : -1;
      if (h0 + NT * batch < end) load_batch(h0 + NT * batch, next);
      MGPU_UNROLL
      for (int k = 0; k < batch; ++k)
        if (0 <= position[k] && position[k] < valid) scratch[position[k]] = 1;
    }
    __syncthreads();
    // Four bytes of 0 or 1 times 0x01020408 put their four bits side by side in bits 24-27 (the
    // other partial products land in distinct lower bits, so nothing carries into them).
    for (int j = tid; j < NV / 32 + 2; j += NT) {
      unsigned w = tile == 0 && j == 0 ? 1u : 0u;
      if (j < NV / 32) {
        const uint4 low = reinterpret_cast<const uint4*>(scratch)[2 * j];
        const uint4 high = reinterpret_cast<const uint4*>(scratch)[2 * j + 1];
        const unsigned bytes[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
        MGPU_UNROLL
        for (int k = 0; k < 8; ++k) w |= ((bytes[k] * 0x01020408u) >> 24) << (4 * k);
      }
      words[j] = w;
    }
    __syncthreads();
  }
};

template <scan_kind kind, typename params, typename It, typename Heads, typename Out, typename T, typename Op>
void segmented_scan_tiles(const char* fn, It input, std::int64_t count, Heads heads, Out output, T init, Op op,
                          context& ctx) {
  using P = params_or<params, segmented_scan_params<T>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  static_assert(VT <= 63, "mgpu: a segmented scan keeps a bit per value of a thread in 64 bits: at most 63 values");
  static_assert(NV % 32 == 0, "mgpu: a segmented scan's tile must be a whole number of 32-position flag words");
  using fold_t = segment_fold<T>;
  using cta_scan_t = cta_scan<NT, fold_t>;
  struct storage_t {
    union {
      T values[NV];
      alignas(16) unsigned char head_bytes[NV];  // (the heads' marking, before the values arrive)
    };
    unsigned heads[NV / 32 + 2];
    std::int64_t splits[2];  // (index_heads<..., true>)
    typename cta_scan_t::storage_t scan;
  };

  const int tiles = num_tiles<P>(count, fn);
  const segmented_operator<T, Op> fold_op{op};

  // (The look-back state is an argument, not a capture: it is allocated once the kernel is chosen.)
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile, lookback_state<T> state) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    const std::int64_t base = std::int64_t(tile) * NV;
    const int valid = int(count - base < NV ? count - base : NV);
    // The values' loads go out first and stay in flight while the heads are marked.
    const array_t<T, VT> loaded = mem_to_reg_strided<NT, VT, T>(input + base, tid, valid);
    heads.template mark<NT, NV>(tid, tile, base, valid, s.heads, s.head_bytes, s.splits);
    reg_to_shared_strided<NT, VT>(loaded, tid, s.values);
    array_t<T, VT> x = shared_to_reg_thread<VT>(s.values, tid);
    const std::uint64_t head = bits_at(s.heads, VT * tid);

    // This thread's fold: from its last head (or its first value) to its last value.
    const int mine = VT * tid < valid ? (valid - VT * tid < VT ? valid - VT * tid : VT) : 0;
    fold_t fold{x[0], (head & 1u) != 0};
    MGPU_UNROLL
    for (int i = 1; i < VT; ++i)
      if (i < mine) fold = fold_op(fold, fold_t{x[i], ((head >> i) & 1u) != 0});

    // Warp 0, with the tile's fold: publish, and return what precedes the tile (see the file
    // comment). Lane 0 is thread 0, whose first bit says whether the tile starts with a head.
    auto tile_prefix = [&](const fold_t& reduction) -> maybe<fold_t> {
      const maybe<fold_t> none{fold_t{T{}, false}, false};
      const bool starts_with_head = shfl(int(head & 1u), 0) != 0;
      if (tile == 0) {
        if (lane_id() == 0) state.publish(0, lookback_state<T>::status_prefix, reduction.value);
        return none;
      }
      if (reduction.head) {
        if (lane_id() == 0) state.publish(tile, lookback_state<T>::status_prefix, reduction.value);
        if (starts_with_head) return none;
        return maybe<fold_t>{fold_t{state.exclusive_prefix(tile, op), false}, true};
      }
      if (lane_id() == 0) state.publish(tile, lookback_state<T>::status_aggregate, reduction.value);
      T prefix = state.exclusive_prefix(tile, op);
      if (lane_id() == 0) state.publish(tile, lookback_state<T>::status_prefix, T(op(prefix, reduction.value)));
      return maybe<fold_t>{fold_t{prefix, false}, true};
    };
    const maybe<fold_t> before =
        cta_scan_t::template scan<scan_kind::exclusive>(tid, fold, s.scan, fold_op, tile_prefix, div_up(valid, VT))
            .prefix;

    // The serial scan from the carry, starting again at each head. Absent carries occur only
    // where the thread's first value is a head.
    array_t<T, VT> y;
    const T first = init;  // (captured outside `if constexpr`, as nvcc requires)
    if constexpr (kind == scan_kind::exclusive) {
      T carry = before.valid ? T(op(first, before.value.value)) : first;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        if ((head >> i) & 1u) carry = first;
        y[i] = carry;
        carry = op(carry, x[i]);
      }
    } else {
      T carry = before.value.value;
      bool restart = !before.valid;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        carry = restart || ((head >> i) & 1u) ? x[i] : T(op(carry, x[i]));
        restart = false;
        y[i] = carry;
      }
    }
    reg_to_mem_thread<NT, VT>(y, output + base, tid, valid, s.values);
  };
  if constexpr (Heads::searched) {
    if (!search_in_ctas<P, decltype(kernel), lookback_state<T>>(tiles, ctx)) {
      buffer<std::int64_t> partitions = binary_search_partitions<bounds::lower>(
          indices_as_int64(heads.heads), heads.num_heads, count, P::nv, less<>(), ctx);
      segmented_scan_tiles<kind, P>(fn, input, count, heads.partitioned(partitions.data()), output, init, op, ctx);
      return;
    }
  }
  buffer<unsigned char> state_memory = zeroed_bytes(lookback_state<T>::storage_bytes(tiles), ctx);
  cta_launch<P>(kernel, tiles, ctx, lookback_state<T>(state_memory.data(), tiles));
}

// The checks and the heads' partition, then the scan. `init` is unused by inclusive scans.
template <scan_kind kind, typename params, typename It, typename Segments, typename Out, typename T, typename Op>
void segmented_scan_impl(const char* fn, It input, std::int64_t count, Segments segments, Out output, T init, Op op,
                         context& ctx) {
  MGPU_REQUIRE_SEGMENTS(Segments);
  check_count(fn, "count", count);
  check_pointer(fn, "input", input, count);
  check_pointer(fn, "output", output, count);
  check_in_place_or_disjoint(fn, "output", input, count, output, count);
  using P = params_or<params, segmented_scan_params<T>>;
  if constexpr (is_segment_heads_v<Segments>) {
    check_count(fn, "num_heads", segments.num_heads);
    check_pointer(fn, "heads", segments.heads, segments.num_heads);
    if (ctx.checked())
      check_sorted_indices(fn, "heads", segments.heads, segments.num_heads, 0, count, "[0, count]", false, ctx);
    if (count == 0) return;
    // A single tile takes all the heads; more search their own, or read a partition pass's.
    using head_it = decltype(segments.heads);
    if (count <= P::nv)
      segmented_scan_tiles<kind, P>(fn, input, count, index_heads<head_it>{segments.heads, segments.num_heads, nullptr},
                                    output, init, op, ctx);
    else
      segmented_scan_tiles<kind, P>(fn, input, count,
                                    index_heads<head_it, true>{segments.heads, segments.num_heads, nullptr}, output,
                                    init, op, ctx);
  } else if constexpr (is_segment_description_v<Segments>) {
    check_pointer(fn, "flags", segments.flags, div_up(count, std::int64_t(32)));
    if (count == 0) return;
    segmented_scan_tiles<kind, P>(fn, input, count, flag_heads{segments.flags, count}, output, init, op, ctx);
  }
}

}  // namespace detail

// output[i] = init op input[s] op ... op input[i - 1], where s is the first position of the segment
// that holds i (output[s] = init), computed in T. `segments` is segments_by_heads(heads,
// num_heads) or segments_by_flags(flags) (docs/conventions.md); positions before heads[0] are
// scanned as a segment of their own (position 0 always starts a segment).
//
// `op` must be associative; it need not be commutative (values are combined in order). Single
// pass (decoupled look-back). output may equal input (in place) but must not otherwise overlap it.
// Stream-ordered; the host does not wait (except for checked mode's check of the heads).
//
// Throws std::invalid_argument for a negative count or num_heads, null pointers, or partial
// overlap; in checked mode, mgpu::precondition_error if the heads are not sorted or not in
// [0, count].
template <typename params = void, typename It, typename Segments, typename Out, typename T, typename Op>
void segmented_exclusive_scan(It input, std::int64_t count, Segments segments, Out output, T init, Op op,
                              context& ctx) {
  detail::segmented_scan_impl<scan_kind::exclusive, params>("mgpu::segmented_exclusive_scan", input, count, segments,
                                                            output, init, op, ctx);
}

// output[i] = input[s] op ... op input[i], where s is the first position of the segment that holds
// i, computed in the input's value type. Requirements and errors as for segmented_exclusive_scan.
template <typename params = void, typename It, typename Segments, typename Out, typename Op>
void segmented_inclusive_scan(It input, std::int64_t count, Segments segments, Out output, Op op, context& ctx) {
  using T = iterator_value_t<It>;
  detail::segmented_scan_impl<scan_kind::inclusive, params>("mgpu::segmented_inclusive_scan", input, count, segments,
                                                            output, T{}, op, ctx);
}

}  // namespace mgpu
