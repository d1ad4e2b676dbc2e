// mgpu/algorithms/compact.hpp
//
// Stream compaction: compact (keep the values a predicate accepts), compact_by_flags (keep the
// values whose flag is set) and transform_compact (your functions decide per index and write per
// kept index), all stable and in a single pass over the input:
//
// 1. Each CTA loads a tile. Warp w owns the tile's w-th run of 32 * VT items and reads it one row
//    of 32 neighbours per load (coalesced), then decides which items to keep.
// 2. A ballot per row gives the warp each row's kept items, so a warp knows where every one of
//    its kept items goes relative to the warp's first; warp 0 scans the warps' counts.
// 3. The number kept before the tile comes from a decoupled look-back over tile counts
//    (cta/count_lookback.hpp): the counting pass and the scatter pass of a two-pass compaction
//    fused, so the input is read once and the host never waits.
// 4. The kept items are gathered in shared memory in output order, then stored from the aligned
//    group of 32 positions that holds the tile's first, so each store of a warp writes whole
//    sectors. (Stores straight from registers, a run of about 16 items at a random offset per
//    row, ran 5-8% slower on an H100: bench/results/2026-11-25_h100_compact_staging.txt.)
//    transform_compact calls write(index, position) straight from the deciding thread. The last
//    tile writes the total.
//
// compact_by_flags from a pointer reads every value with its flag, in the same round of loads (as
// CUB does); through any other iterator it reads a value only where its flag is set.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../cta/count_lookback.hpp"
#include "../platform/memory.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace mgpu {

// The tile shape of compact for values of type T: 128 threads with up to 256 bytes of values each
// (at most 32 values: a thread keeps one bit per value), 4,096 four- or eight-byte values per
// tile. Large tiles amortize the look-back; a thread holds its values in registers until the
// look-back answers. 4- and 8-byte values also cap registers for 10 (6) CTAs an SM: on an H100
// 128 x 32 was the fastest shape, and the cap made it 3-4% faster from 2^22 int32 (2^23 int64)
// values up, 1-2% slower below (bench/results/2026-11-25_h100_compact_staging.txt).
template <typename T>
using compact_params = launch_params<128, std::max(1, std::min(32, int(256 / sizeof(T)))),
                                     sizeof(T) == 4   ? 10
                                     : sizeof(T) == 8 ? 6
                                                      : 0>;

// The tile shape of compact_by_flags: 128 threads with up to 256 bytes of values each, no register
// cap. Its loads come in two dependent rounds (flags, then the values kept); on an H100 (int32) the
// caps of compact cost it 10-35%, and 256 x 24, 7% faster at 2^28, was 25-35% slower at 2^20-2^22.
template <typename T>
using compact_by_flags_params = launch_params<128, std::max(1, std::min(32, int(256 / sizeof(T))))>;

// Whether Pred can decide about a value of type T: pred(value) callable and convertible to bool.
// (A __device__-only lambda cannot be asked on the host; nvcc checks it where it is called.)
template <typename Pred, typename T>
constexpr bool is_predicate_v =
#if defined(MGPU_BACKEND_CUDA)
    __nv_is_extended_device_lambda_closure_type(Pred) ||
#endif
    std::is_invocable_r<bool, const Pred&, const T&>::value;

namespace detail {

// What a tile reads and decides, one item at a time: load(index, item) fills `item` with what the
// sink will need and returns whether to keep it.
template <typename It, typename Pred>
struct select_if {
  using item_t = iterator_value_t<It>;
  It input;
  Pred pred;
  MGPU_DEVICE bool load(std::int64_t index, item_t& item) const {
    item = input[index];
    return bool(pred(item));
  }
};
template <typename It, typename FlagIt>
struct select_flagged {
  using item_t = iterator_value_t<It>;
  // A pointer's values are read whatever their flags: the value loads then need not wait for the
  // flags, and the tile's loads come in one round instead of two. An iterator may compute its
  // values or have effects: it is read only where a flag is set.
  static constexpr bool read_all = std::is_pointer<It>::value;
  It input;
  FlagIt flags;
  MGPU_DEVICE bool load(std::int64_t index, item_t& item) const {
    bool keep = bool(flags[index]);
    if (read_all || keep) item = input[index];
    return keep;
  }
};
template <typename Keep>
struct select_indices {
  using item_t = empty_t;
  Keep keep;
  MGPU_DEVICE bool load(std::int64_t index, empty_t&) const { return bool(keep(index)); }
};

// Where a kept item goes. store_items writes output[position], position being the number of items
// kept before it; with `staged`, the tile's kept items are first gathered in shared memory in
// output order, so that every store of a warp writes whole aligned lines. call_write calls
// write(index, position) straight from the thread that decided.
template <typename Out, bool Staged = true>
struct store_items {
  static constexpr bool staged = Staged;
  Out output;
  template <typename T>
  MGPU_DEVICE void operator()(const T& item, std::int64_t, std::int64_t position) const {
    output[position] = item;
  }
};
template <typename Write>
struct call_write {
  static constexpr bool staged = false;
  Write write;
  MGPU_DEVICE void operator()(empty_t, std::int64_t index, std::int64_t position) const { write(index, position); }
};

// The argument checks of compact and compact_by_flags (flags: empty_t for compact). The forms
// that return the count check before they allocate it.
template <typename It, typename FlagIt, typename Out>
void check_compact(const char* fn, std::int64_t count, const It& input, const FlagIt& flags, const Out& output) {
  (void)flags;  // (compact has none)
  check_count(fn, "count", count);
  check_pointer(fn, "input", input, count);
  if constexpr (!std::is_same<FlagIt, empty_t>::value) check_pointer(fn, "flags", flags, count);
  check_pointer(fn, "output", output, count);
  check_disjoint(fn, "output", input, count, output, count);
  if constexpr (!std::is_same<FlagIt, empty_t>::value) check_disjoint(fn, "output", flags, count, output, count);
}

// The single-pass compaction of the file comment: items [0, count) read through `source`, kept
// ones passed to `sink`, their number written to num_selected[0]. Allocates its look-back state
// before it writes anything.
template <typename P, typename Source, typename Sink, typename CountOut>
void compact_tiles(const char* fn, std::int64_t count, Source source, Sink sink, CountOut num_selected, context& ctx) {
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv, warps = NT / warp_size;
  static_assert(VT <= 32,
                "mgpu: compaction keeps a bit per value of a thread in 32 bits: at most 32 values per thread");
  using item_t = typename Source::item_t;
  if (count == 0) {
    transform([=] MGPU_LAMBDA(std::int64_t) { num_selected[0] = std::int64_t(0); }, 1, ctx);
    return;
  }
  const int tiles = num_tiles<P>(count, fn);
  buffer<unsigned char> state_memory = zeroed_bytes(count_lookback::storage_bytes(tiles), ctx);
  const count_lookback state(state_memory.data());

  struct storage_t {
    int warp_counts[warps];
    std::int64_t warp_first[warps];        // the output position of each warp's first kept item
    item_t staged[Sink::staged ? NV : 1];  // the tile's kept items, in output order
  };
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    const int lane = tid % warp_size, warp = tid / warp_size;
    const std::int64_t base = std::int64_t(tile) * NV;
    const int valid = int(count - base < NV ? count - base : NV);
    // This lane's item in the warp's first row; row i is 32 items further on.
    const int first = warp * warp_size * VT + lane;

    array_t<item_t, VT> items;
    unsigned kept = 0;  // bit i: item i is kept
    if (valid == NV) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (source.load(base + first + warp_size * i, items[i])) kept |= 1u << i;
    } else {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (first + warp_size * i < valid && source.load(base + first + warp_size * i, items[i])) kept |= 1u << i;
    }
    int warp_count = 0;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) warp_count += __popc(__ballot_sync(full_warp_mask, (kept >> i) & 1u));
    if (lane == 0) s.warp_counts[warp] = warp_count;
    __syncthreads();

    if (warp == 0) {
      // Inclusive scan of the warps' counts, then what precedes the tile.
      int own = lane < warps ? s.warp_counts[lane] : 0, inclusive = own;
      MGPU_UNROLL
      for (int offset = 1; offset < warps; offset *= 2) {
        int y = __shfl_up_sync(full_warp_mask, inclusive, unsigned(offset));
        if (lane >= offset) inclusive += y;
      }
      const int tile_count = __shfl_sync(full_warp_mask, inclusive, warps - 1);
      std::int64_t before = 0;
      if (tile == 0) {
        if (lane == 0) state.publish(0, count_lookback::status_prefix, tile_count);
      } else {
        if (lane == 0) state.publish(tile, count_lookback::status_aggregate, tile_count);
        before = state.exclusive_prefix(tile);
        if (lane == 0) state.publish(tile, count_lookback::status_prefix, before + tile_count);
      }
      if (lane < warps) s.warp_first[lane] = before + (inclusive - own);
      if (lane == 0 && tile == tiles - 1) num_selected[0] = before + tile_count;
    }
    __syncthreads();

    // Each row's kept items, in lane order, go to consecutive places: into shared memory at their
    // place in the tile's run (staged sinks), or to the sink at their output position.
    // (`if (Sink::staged)`, not `if constexpr`: nvcc's lambdas may not first capture `sink` there.)
    const std::int64_t tile_first = s.warp_first[0];
    std::int64_t position = s.warp_first[warp] - (Sink::staged ? tile_first : 0);
    const unsigned lanes_below = (1u << lane) - 1;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      unsigned row = __ballot_sync(full_warp_mask, (kept >> i) & 1u);
      if ((kept >> i) & 1u) {
        const std::int64_t place = position + __popc(row & lanes_below);
        if (Sink::staged)
          s.staged[place] = items[i];
        else
          sink(items[i], base + first + warp_size * i, place);
      }
      position += __popc(row);
    }
    if (Sink::staged) {
      // The tile's run [tile_first, tile_first + tile_kept), from the aligned group of 32 output
      // positions that holds its first: each store of a warp covers whole sectors.
      const int tile_kept = int(s.warp_first[warps - 1] - tile_first) + s.warp_counts[warps - 1];
      __syncthreads();
      const int skew = int(tile_first % warp_size);
      for (int j = tid - skew; j < tile_kept; j += NT)
        if (j >= 0) sink(s.staged[j], 0, tile_first + j);
    }
  };
  cta_launch<P>(kernel, tiles, ctx);
}

}  // namespace detail

// Copies the values of input[0, count) for which pred(value) is true to output[0, k), in their
// order (stable), and writes k to num_selected[0]. One pass over the input; the host does not wait.
//
// `pred` is called once per value, on the device: a functor with an MGPU_HOST_DEVICE operator() or
// an extended lambda (MGPU_HOST_DEVICE_LAMBDA or MGPU_LAMBDA after its capture list). `output`
// needs room for k values (count is always enough) and must not overlap the input: compaction in
// place is not supported.
// `num_selected` is a device pointer (its element type holds k) or an output iterator.
//
// Throws std::invalid_argument for a negative count, a null pointer, or an output that overlaps
// the input.
template <typename params = void, typename It, typename Out, typename CountOut, typename Pred>
void compact(It input, std::int64_t count, Out output, CountOut num_selected, Pred pred, context& ctx) {
  using T = iterator_value_t<It>;
  static_assert(is_predicate_v<Pred, T>,
                "mgpu::compact: the predicate 'pred' must be callable as pred(value) and return bool: a function "
                "object with an MGPU_HOST_DEVICE operator() or a lambda written [] MGPU_HOST_DEVICE_LAMBDA "
                "(const T& value) { ... }");
  const char* fn = "mgpu::compact";
  detail::check_compact(fn, count, input, empty_t(), output);
  detail::check_pointer(fn, "num_selected", num_selected, 1);
  if constexpr (is_predicate_v<Pred, T>)
    detail::compact_tiles<params_or<params, compact_params<T>>>(fn, count, detail::select_if<It, Pred>{input, pred},
                                                                detail::store_items<Out>{output}, num_selected, ctx);
}

// The same, returning k to the host: it waits for the device (the one form that does; the form
// above with a device count waits for nothing).
template <typename params = void, typename It, typename Out, typename Pred>
std::int64_t compact(It input, std::int64_t count, Out output, Pred pred, context& ctx) {
  detail::check_compact("mgpu::compact", count, input, empty_t(), output);
  buffer<std::int64_t> selected(1, ctx);
  compact<params>(input, count, output, selected.data(), pred, ctx);
  return selected.to_host()[0];
}

// Copies input[i] for every i in [0, count) whose flags[i] is true (non-zero) to output[0, k), in
// order, and writes k to num_selected[0]. flags has one entry per value (any type that converts to
// bool: bool, std::uint8_t, int, ...), so it shares count with input and comes before it. Input as
// a pointer: every value is read (input[0, count) must be readable); as any other iterator: a value
// whose flag is clear is never read. Output and flags must not overlap the input or each other.
// Throws as compact does.
template <typename params = void, typename It, typename FlagIt, typename Out, typename CountOut>
void compact_by_flags(It input, FlagIt flags, std::int64_t count, Out output, CountOut num_selected, context& ctx) {
  using T = iterator_value_t<It>;
  const char* fn = "mgpu::compact_by_flags";
  detail::check_compact(fn, count, input, flags, output);
  detail::check_pointer(fn, "num_selected", num_selected, 1);
  detail::compact_tiles<params_or<params, compact_by_flags_params<T>>>(
      fn, count, detail::select_flagged<It, FlagIt>{input, flags}, detail::store_items<Out>{output}, num_selected, ctx);
}

// The same, returning k to the host (waits for the device).
template <typename params = void, typename It, typename FlagIt, typename Out>
std::int64_t compact_by_flags(It input, FlagIt flags, std::int64_t count, Out output, context& ctx) {
  detail::check_compact("mgpu::compact_by_flags", count, input, flags, output);
  buffer<std::int64_t> selected(1, ctx);
  compact_by_flags<params>(input, flags, count, output, selected.data(), ctx);
  return selected.to_host()[0];
}

// Compaction of anything: for every index in [0, count), keep(index) decides (called once per
// index); for every kept index, write(index, position) is called once, where position is the
// number of kept indices before it: positions run over [0, k) in the order of the indices. k goes
// to num_selected[0]. Both functions take std::int64_t and run on the device (functors with
// MGPU_HOST_DEVICE or MGPU_DEVICE operator(), or MGPU_LAMBDA lambdas); writes of neighbouring
// positions come from neighbouring threads. Like transform, it takes its functions first.
// Throws std::invalid_argument for a negative count or a null num_selected.
template <typename params = void, typename Keep, typename Write, typename CountOut>
void transform_compact(Keep keep, Write write, std::int64_t count, CountOut num_selected, context& ctx) {
  const char* fn = "mgpu::transform_compact";
  detail::check_count(fn, "count", count);
  detail::check_pointer(fn, "num_selected", num_selected, 1);
  detail::compact_tiles<params_or<params, compact_params<empty_t>>>(
      fn, count, detail::select_indices<Keep>{keep}, detail::call_write<Write>{write}, num_selected, ctx);
}

// The same, returning k to the host (waits for the device).
template <typename params = void, typename Keep, typename Write>
std::int64_t transform_compact(Keep keep, Write write, std::int64_t count, context& ctx) {
  detail::check_count("mgpu::transform_compact", "count", count);
  buffer<std::int64_t> selected(1, ctx);
  transform_compact<params>(keep, write, count, selected.data(), ctx);
  return selected.to_host()[0];
}

}  // namespace mgpu
