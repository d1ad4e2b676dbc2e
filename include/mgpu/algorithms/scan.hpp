// mgpu/algorithms/scan.hpp
//
// exclusive_scan, inclusive_scan and their transform_ forms: a single pass over the data. Each
// CTA loads a tile into registers in thread order, folds each thread's VT values, scans the
// thread totals across the CTA, gets the tile's carry-in from its predecessors by decoupled
// look-back, and runs the serial scan of its VT values from that carry.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/lookback.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace mgpu {

// Default shape, measured on an H100 (bench/tune.cu): 128 threads with about 164 bytes each (41
// four-byte values): large tiles amortize the look-back. The count is odd so that the
// thread-order transposes through shared memory are free of bank conflicts, and at most 63.
// Values of 4 bytes ask for 8 CTAs an SM (64 registers, no spills): ptxas gave the inclusive scan
// of floats 72 registers, 7 CTAs, and 5% more time at 2^26-2^28
// (bench/results/2026-11-27_h100_scan_min_ctas_ab.txt); 8-byte values spill at 64.
template <typename T>
using scan_params =
    launch_params<128, (164 / sizeof(T) >= 63 ? 63 : int(164 / sizeof(T)) | 1), (sizeof(T) <= 4 ? 8 : 0)>;

// The shape of a scan of more than scan_large_threshold 4-byte values, when no shape is given:
// on sm_90, 57 values a thread at 6 CTAs an SM, larger tiles still for the look-back to amortize
// (elsewhere scan_params). Measured on an H200 with every 4-byte scan at 128 x 57 x 6 against
// 128 x 41 x 8 (bench/tune.cu scanshapes, bench/results/2026-11-29_h200_scan_shapes.txt; then
// the benchmark, two rounds, bench/results/2026-11-29_h200_join_index_scan_large_ab.txt):
// exclusive and inclusive scans of int32 and float 1.000x-1.022x as fast from 2^24 to 2^28, but
// 0.971x-0.997x at 2^20, 0.982x-1.002x at 2^22, and 0.92x-0.95x for one tile (10^3): hence the
// threshold.
template <typename T>
using scan_large_params = arch_params<scan_params<T>, launch_params<128, 57, 6>>;
constexpr std::int64_t scan_large_threshold = std::int64_t(1) << 23;

// The shape of a scan of 4-byte values between one tile of scan_params (which one launch takes)
// and scan_few_tiles_limit values, when no shape is given: smaller tiles, so that the few tiles
// there are spread over more SMs and each waits on less memory. On an H200, exclusive sums of
// int32 (bench/tune.cu scansmall, graph replays, two rounds;
// bench/results/2026-11-29_h200_scan_few_tiles_shapes.txt): 10^4 values 1.07x-1.12x faster than
// at 128 x 41 (3.64-3.68 us against 3.95), 10^5 1.01x-1.04x, 10^6 6-7% slower (so the limit).
template <typename T>
using scan_few_tiles_params = launch_params<128, 15, 8>;
constexpr std::int64_t scan_few_tiles_limit = std::int64_t(1) << 17;

namespace detail {

// Whether a scan of `count` values of T with launch_params `params` (void: the defaults) takes
// scan_few_tiles_params.
template <typename params, typename T>
constexpr bool scan_takes_few_tiles_shape(std::int64_t count) {
  return std::is_void<params>::value && sizeof(T) == 4 && count > scan_params<T>::nv && count <= scan_few_tiles_limit;
}
// Whether it takes scan_large_params (only where that differs from scan_params).
template <typename params, typename T>
constexpr bool scan_takes_large_shape(std::int64_t count) {
  return std::is_void<params>::value && sizeof(T) == 4 && !std::is_same<scan_large_params<T>, scan_params<T>>::value &&
         count > scan_large_threshold;
}

// The temporary memory of a scan of `count` values of T (its look-back state), for a caller that
// allocates it up front and passes it to scan_impl (see radix_sort_lsd).
template <typename params, typename T>
std::size_t scan_temp_bytes(std::int64_t count) {
  if (scan_takes_few_tiles_shape<params, T>(count))
    return lookback_state<T>::storage_bytes(num_tiles<scan_few_tiles_params<T>>(count));
  if (scan_takes_large_shape<params, T>(count))
    return lookback_state<T>::storage_bytes(num_tiles<scan_large_params<T>>(count));
  using P = params_or<params, scan_params<T>>;
  return count ? lookback_state<T>::storage_bytes(num_tiles<P>(count)) : 0;
}

// `temp`: scan_temp_bytes<params, T>(count) bytes of the caller's, or nullptr to allocate them here.
template <scan_kind kind, typename params, typename T, typename It, typename Out, typename Op, typename TotalOut>
void scan_impl(const char* fn, It input, std::int64_t count, Out output, maybe<T> init, Op op, TotalOut total,
               void* temp, context& ctx) {
  // (Before the checks, which the call below makes.)
  if constexpr (std::is_void<params>::value && sizeof(T) == 4) {
    if (scan_takes_few_tiles_shape<params, T>(count)) {
      scan_impl<kind, scan_few_tiles_params<T>, T>(fn, input, count, output, init, op, total, temp, ctx);
      return;
    }
    if constexpr (!std::is_same<scan_large_params<T>, scan_params<T>>::value) {
      if (scan_takes_large_shape<params, T>(count)) {
        scan_impl<kind, scan_large_params<T>, T>(fn, input, count, output, init, op, total, temp, ctx);
        return;
      }
    }
  }
  check_count(fn, "count", count);
  check_pointer(fn, "input", input, count);
  check_pointer(fn, "output", output, count);
  check_in_place_or_disjoint(fn, "output", input, count, output, count);
  using P = params_or<params, scan_params<T>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using cta_scan_t = cta_scan<NT, T>;
  // Separate, not a union: threads may start storing their values to shared memory while others
  // still read the scan's storage.
  struct storage_t {
    T values[NV];
    typename cta_scan_t::storage_t scan;
  };

  if (count == 0) {
    if (init.valid) transform([=] MGPU_LAMBDA(std::int64_t) { total[0] = init.value; }, 1, ctx);
    return;
  }
  int tiles = num_tiles<P>(count, fn);
  // (A single tile needs no state: one launch.)
  std::size_t state_bytes = lookback_state<T>::storage_bytes(tiles);
  buffer<unsigned char> own_state(temp ? 0 : std::int64_t(state_bytes), ctx);
  void* state_memory = temp ? temp : own_state.data();
  zero_bytes(state_memory, state_bytes, ctx);
  lookback_state<T> state(state_memory, tiles);

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    std::int64_t base = std::int64_t(tile) * NV;
    int valid = int(count - base < NV ? count - base : NV);
    array_t<T, VT> x = mem_to_reg_thread<NT, VT, T>(input + base, tid, valid, s.values);

    int mine = VT * tid < valid ? (valid - VT * tid < VT ? valid - VT * tid : VT) : 0;
    T thread_total = x[0];
    MGPU_UNROLL
    for (int i = 1; i < VT; ++i)
      if (i < mine) thread_total = op(thread_total, x[i]);

    // Warp 0 learns the tile's reduction inside the CTA scan, publishes it and returns what
    // precedes the tile: init for tile 0, the look-back over the predecessors otherwise.
    auto tile_prefix = [&](const T& reduction) -> maybe<T> {
      if (tile == 0) {
        T inclusive = init.valid ? T(op(init.value, reduction)) : reduction;
        if (lane_id() == 0) {
          state.publish(0, lookback_state<T>::status_prefix, inclusive);
          if (tiles == 1) total[0] = inclusive;
        }
        return init;
      }
      if (lane_id() == 0) state.publish(tile, lookback_state<T>::status_aggregate, reduction);
      T prefix = state.exclusive_prefix(tile, op);
      if (lane_id() == 0) {
        T inclusive = op(prefix, reduction);
        state.publish(tile, lookback_state<T>::status_prefix, inclusive);
        if (tile == tiles - 1) total[0] = inclusive;
      }
      return maybe<T>{prefix, true};
    };
    maybe<T> carry =
        cta_scan_t::template scan<scan_kind::exclusive>(tid, thread_total, s.scan, op, tile_prefix, div_up(valid, VT))
            .prefix;

    // The serial scan of this thread's values.
    array_t<T, VT> y;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (kind == scan_kind::exclusive) {
        y[i] = carry.value;  // an exclusive scan always has init, so carry is present
        carry.value = op(carry.value, x[i]);
      } else {
        carry = maybe<T>{carry.valid ? T(op(carry.value, x[i])) : x[i], true};
        y[i] = carry.value;
      }
    }
    reg_to_mem_thread<NT, VT>(y, output + base, tid, valid, s.values);
  };
  cta_launch<P>(kernel, tiles, ctx);
}

}  // namespace detail

// output[i] = init op input[0] op ... op input[i - 1] (output[0] = init), computed in T.
//
// `op` must be associative; it need not be commutative (values are combined in order). Runs
// in a single pass (decoupled look-back). output may equal input (in place) but must not
// otherwise overlap it. The 7-argument form also writes init op input[0] op ... op
// input[count - 1] to total[0] (init when count is 0). Stream-ordered; the host never waits.
//
// Throws std::invalid_argument for a negative count, null pointers, or partial overlap.
template <typename params = void, typename It, typename Out, typename T, typename Op, typename TotalOut>
void exclusive_scan(It input, std::int64_t count, Out output, T init, Op op, TotalOut total, context& ctx) {
  detail::scan_impl<scan_kind::exclusive, params, T>("mgpu::exclusive_scan", input, count, output, maybe<T>{init, true},
                                                     op, total, nullptr, ctx);
}
template <typename params = void, typename It, typename Out, typename T, typename Op>
void exclusive_scan(It input, std::int64_t count, Out output, T init, Op op, context& ctx) {
  exclusive_scan<params>(input, count, output, init, op, discard_iterator(), ctx);
}

// output[i] = input[0] op ... op input[i], computed in the input's value type. Requirements as
// for exclusive_scan. The 6-argument form also writes the reduction of the whole input to
// total[0] (nothing when count is 0).
template <typename params = void, typename It, typename Out, typename Op, typename TotalOut>
void inclusive_scan(It input, std::int64_t count, Out output, Op op, TotalOut total, context& ctx) {
  using T = iterator_value_t<It>;
  detail::scan_impl<scan_kind::inclusive, params, T>("mgpu::inclusive_scan", input, count, output, maybe<T>{T{}, false},
                                                     op, total, nullptr, ctx);
}
template <typename params = void, typename It, typename Out, typename Op>
void inclusive_scan(It input, std::int64_t count, Out output, Op op, context& ctx) {
  inclusive_scan<params>(input, count, output, op, discard_iterator(), ctx);
}

// exclusive_scan of f(input[i]): the map is fused into the load. The 8-argument form also writes
// the total, as exclusive_scan does. f must be callable on the host's view of the types: write a
// lambda as MGPU_HOST_DEVICE_LAMBDA.
template <typename params = void, typename It, typename Out, typename T, typename Op, typename F, typename TotalOut>
void transform_exclusive_scan(It input, std::int64_t count, Out output, T init, Op op, F f, TotalOut total,
                              context& ctx) {
  exclusive_scan<params>(make_transform_iterator(input, f), count, output, init, op, total, ctx);
}
template <typename params = void, typename It, typename Out, typename T, typename Op, typename F>
void transform_exclusive_scan(It input, std::int64_t count, Out output, T init, Op op, F f, context& ctx) {
  exclusive_scan<params>(make_transform_iterator(input, f), count, output, init, op, ctx);
}

// inclusive_scan of f(input[i]), computed in f's result type. The 7-argument form also writes the
// total, as inclusive_scan does.
template <typename params = void, typename It, typename Out, typename Op, typename F, typename TotalOut>
void transform_inclusive_scan(It input, std::int64_t count, Out output, Op op, F f, TotalOut total, context& ctx) {
  inclusive_scan<params>(make_transform_iterator(input, f), count, output, op, total, ctx);
}
template <typename params = void, typename It, typename Out, typename Op, typename F>
void transform_inclusive_scan(It input, std::int64_t count, Out output, Op op, F f, context& ctx) {
  inclusive_scan<params>(make_transform_iterator(input, f), count, output, op, ctx);
}

}  // namespace mgpu
