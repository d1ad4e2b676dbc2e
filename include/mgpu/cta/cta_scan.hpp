// mgpu/cta/cta_scan.hpp
//
// Prefix scan of one value per thread across a CTA: an inclusive shuffle scan in each warp, then
// warp 0 scans the warp totals. Needs only an associative operator (no identity, no
// commutativity). Two barriers per call; consecutive calls may reuse the same storage.
//
// The general form takes a tile-prefix callback, run by warp 0 once the CTA's reduction is
// known: it returns what precedes the CTA (from a decoupled look-back, a running total, ...), and
// every thread's result includes it. That is how a single-pass scan fuses its look-back into the
// CTA scan without extra barriers.
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

namespace mgpu {

template <int NT, typename T>
struct cta_scan {
  static_assert(NT % warp_size == 0 && NT / warp_size <= warp_size, "cta_scan needs 1 to 32 whole warps");
  static constexpr int num_warps = NT / warp_size;
  struct storage_t {
    T warp_totals[num_warps];
    maybe<T> warp_prefixes[num_warps];  // what precedes each warp, the tile prefix included
    T reduction;
  };
  struct result_t {
    T scan;       // this thread's prefix
    T reduction;  // x[0] op ... op x[count - 1], in every thread
  };
  struct prefix_result_t {
    maybe<T> prefix;  // absent where nothing precedes the thread
    T reduction;
  };

  // The general form. `tile_prefix(reduction)` is called by all 32 lanes of warp 0 with
  // x[0] op ... op x[count - 1] and returns maybe<T>, the same in every lane: the value that
  // precedes the CTA, or absent. Thread t gets tile_prefix op x[0] op ... op x[t - 1] (exclusive)
  // or ... op x[t] (inclusive); absent only where nothing precedes it. Threads at or past `count`
  // (1 <= count <= NT) get unspecified results.
  template <scan_kind kind, typename Op, typename PrefixOp>
  MGPU_DEVICE static prefix_result_t scan(int tid, T x, storage_t& storage, Op op, PrefixOp tile_prefix,
                                          int count = NT);

  // Inclusive: thread t gets x[0] op ... op x[t].
  template <typename Op>
  MGPU_DEVICE static result_t inclusive(int tid, T x, storage_t& storage, Op op, int count = NT) {
    prefix_result_t r = scan<scan_kind::inclusive>(tid, x, storage, op, no_prefix(), count);
    return result_t{r.prefix.value, r.reduction};
  }

  // Exclusive with a prefix: thread t gets init op x[0] op ... op x[t - 1] (thread 0: init).
  // `reduction` does not include init.
  template <typename Op>
  MGPU_DEVICE static result_t exclusive(int tid, T x, storage_t& storage, Op op, T init, int count = NT) {
    prefix_result_t r = scan<scan_kind::exclusive>(tid, x, storage, op, constant_prefix{init}, count);
    return result_t{r.prefix.value, r.reduction};
  }

  // Exclusive without an identity: thread t gets x[0] op ... op x[t - 1], absent in thread 0.
  template <typename Op>
  MGPU_DEVICE static prefix_result_t exclusive_prefix(int tid, T x, storage_t& storage, Op op, int count = NT) {
    return scan<scan_kind::exclusive>(tid, x, storage, op, no_prefix(), count);
  }

 private:
  struct no_prefix {
    MGPU_DEVICE maybe<T> operator()(const T&) const { return maybe<T>{T{}, false}; }
  };
  struct constant_prefix {
    T value;
    MGPU_DEVICE maybe<T> operator()(const T&) const { return maybe<T>{value, true}; }
  };
};

template <int NT, typename T>
template <scan_kind kind, typename Op, typename PrefixOp>
MGPU_DEVICE typename cta_scan<NT, T>::prefix_result_t cta_scan<NT, T>::scan(int tid, T x, storage_t& storage, Op op,
                                                                            PrefixOp tile_prefix, int count) {
  int lane = tid % warp_size, warp = tid / warp_size;
  MGPU_UNROLL
  for (int offset = 1; offset < warp_size; offset *= 2) {
    T y = shfl_up(x, unsigned(offset));
    if (lane >= offset) x = op(y, x);
  }
  // Each warp's total covers only its threads below `count`.
  int last_lane = count - 1 - warp * warp_size;
  if (lane == (last_lane < warp_size - 1 ? last_lane : warp_size - 1)) storage.warp_totals[warp] = x;
  __syncthreads();

  if (warp == 0) {
    int valid_warps = div_up(count, warp_size);
    T w = storage.warp_totals[lane < valid_warps ? lane : valid_warps - 1];
    MGPU_UNROLL
    for (int offset = 1; offset < num_warps; offset *= 2) {
      T y = shfl_up(w, unsigned(offset));
      if (lane >= offset) w = op(y, w);
    }
    T reduction = shfl(w, valid_warps - 1);
    maybe<T> before_tile = tile_prefix(reduction);
    T before_warp = shfl_up(w, 1u);  // inclusive scan of the warps before this lane's warp
    if (lane < num_warps) {
      maybe<T> p = before_tile;
      if (lane > 0) p = maybe<T>{before_tile.valid ? T(op(before_tile.value, before_warp)) : before_warp, true};
      storage.warp_prefixes[lane] = p;
    }
    if (lane == 0) storage.reduction = reduction;
  }
  __syncthreads();

  maybe<T> before = storage.warp_prefixes[warp];
  maybe<T> result;
  if (kind == scan_kind::inclusive) {
    result = maybe<T>{before.valid ? T(op(before.value, x)) : x, true};
  } else {
    T previous = shfl_up(x, 1u);  // the inclusive scan of lane - 1
    result = lane == 0 ? before : maybe<T>{before.valid ? T(op(before.value, previous)) : previous, true};
  }
  return prefix_result_t{result, storage.reduction};
}

}  // namespace mgpu
