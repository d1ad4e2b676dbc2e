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

namespace mgpu {

enum class scan_kind { exclusive, inclusive };

// Default shape: 256 threads, about 32 bytes per thread (an odd count of 4-byte values, so the
// thread-order transposes through shared memory do not conflict on banks).
template <typename T>
using scan_params = launch_params<256, (sizeof(T) >= 32 ? 1 : sizeof(T) == 4 ? 9 : int(32 / sizeof(T)))>;

namespace detail {

template <scan_kind kind, typename params, typename T, typename It, typename Out, typename Op, typename TotalOut>
void scan_impl(const char* fn, It input, std::int64_t count, Out output, maybe<T> init, Op op,
               TotalOut total, context& ctx) {
  check_count(fn, "count", count);
  check_pointer(fn, "input", input, count);
  check_pointer(fn, "output", output, count);
  check_in_place_or_disjoint(fn, "output", input, count, output, count);
  using P = params_or<params, scan_params<T>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using cta_scan_t = cta_scan<NT, T>;
  struct storage_t {
    union {
      T values[NV];
      typename cta_scan_t::storage_t scan;
    };
    T carry;
  };

  if (count == 0) {
    if (init.valid) transform([=] MGPU_LAMBDA(std::int64_t) { total[0] = init.value; }, 1, ctx);
    return;
  }
  int tiles = num_tiles<P>(count, fn);
  buffer<unsigned char> state_memory(std::int64_t(lookback_state<T>::storage_bytes(tiles)), ctx);
  platform::memset_device(state_memory.data(), 0, std::size_t(state_memory.size()), ctx.stream());
  lookback_state<T> state(state_memory.data(), tiles);

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    std::int64_t base = std::int64_t(tile) * NV;
    int valid = int(std::min<std::int64_t>(NV, count - base));
    array_t<T, VT> x = mem_to_reg_thread<NT, VT, T>(input + base, tid, valid, s.values);

    int mine = std::min(VT, std::max(0, valid - VT * tid));
    T thread_total = x[0];
MGPU_UNROLL
    for (int i = 1; i < VT; ++i)
      if (i < mine) thread_total = op(thread_total, x[i]);
    auto cta = cta_scan_t::exclusive_prefix(tid, thread_total, s.scan, op, div_up(valid, VT));

    // The tile's carry-in: init for tile 0, the look-back fold of its predecessors otherwise.
    maybe<T> tile_carry = init;
    if (tile == 0) {
      if (tid == 0) {
        T inclusive = init.valid ? op(init.value, cta.reduction) : cta.reduction;
        state.publish(0, lookback_state<T>::status_prefix, inclusive);
        if (tiles == 1) total[0] = inclusive;
      }
    } else {
      if (tid < warp_size) {
        if (tid == 0) state.publish(tile, lookback_state<T>::status_aggregate, cta.reduction);
        T prefix = state.exclusive_prefix(tile, op);
        if (tid == 0) {
          T inclusive = op(prefix, cta.reduction);
          state.publish(tile, lookback_state<T>::status_prefix, inclusive);
          if (tile == tiles - 1) total[0] = inclusive;
          s.carry = prefix;
        }
      }
      __syncthreads();
      tile_carry = maybe<T>{s.carry, true};
    }

    maybe<T> carry = tile_carry;
    if (cta.prefix.valid) carry = maybe<T>{carry.valid ? T(op(carry.value, cta.prefix.value)) : cta.prefix.value, true};
    array_t<T, VT> y;
MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (kind == scan_kind::exclusive) {
        y[i] = carry.value;
        carry.value = op(carry.value, x[i]);
      } else {
        carry.value = carry.valid ? op(carry.value, x[i]) : x[i];
        carry.valid = true;
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
  detail::scan_impl<scan_kind::exclusive, params, T>("mgpu::exclusive_scan", input, count, output,
                                                     maybe<T>{init, true}, op, total, ctx);
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
  detail::scan_impl<scan_kind::inclusive, params, T>("mgpu::inclusive_scan", input, count, output,
                                                     maybe<T>{T{}, false}, op, total, ctx);
}
template <typename params = void, typename It, typename Out, typename Op>
void inclusive_scan(It input, std::int64_t count, Out output, Op op, context& ctx) {
  inclusive_scan<params>(input, count, output, op, discard_iterator(), ctx);
}

// exclusive_scan of f(input[i]): the map is fused into the load.
template <typename params = void, typename It, typename Out, typename T, typename Op, typename F>
void transform_exclusive_scan(It input, std::int64_t count, Out output, T init, Op op, F f, context& ctx) {
  exclusive_scan<params>(make_transform_iterator(input, f), count, output, init, op, ctx);
}

// inclusive_scan of f(input[i]): the map is fused into the load.
template <typename params = void, typename It, typename Out, typename Op, typename F>
void transform_inclusive_scan(It input, std::int64_t count, Out output, Op op, F f, context& ctx) {
  inclusive_scan<params>(make_transform_iterator(input, f), count, output, op, ctx);
}

}  // namespace mgpu
