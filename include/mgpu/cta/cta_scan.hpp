// mgpu/cta/cta_scan.hpp
//
// Prefix scan of one value per thread across a CTA: an inclusive shuffle scan in each warp, then
// one warp scans the warp totals. Needs only an associative operator (no identity, no
// commutativity).
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

namespace mgpu {

template <int NT, typename T>
struct cta_scan {
  static_assert(NT % warp_size == 0, "cta_scan needs whole warps");
  static constexpr int num_warps = NT / warp_size;
  struct storage_t {
    T warp_totals[num_warps];  // after the scan: inclusive prefixes of the warp totals
    T reduction;
  };
  struct result_t {
    T scan;       // this thread's prefix
    T reduction;  // x[0] op ... op x[count - 1], in every thread
  };
  struct prefix_result_t {
    maybe<T> prefix;  // absent in thread 0
    T reduction;
  };

  // Inclusive: thread t gets x[0] op ... op x[t]. Threads at or past `count` get unspecified
  // scans; `reduction` covers the first `count` threads (1 <= count <= NT).
  template <typename Op>
  MGPU_DEVICE static result_t inclusive(int tid, T x, storage_t& storage, Op op, int count = NT) {
    T warp_prefix = x;  // overwritten when there is a prefix
    bool has_warp_prefix;
    T inc = scan_core(tid, x, storage, op, warp_prefix, has_warp_prefix);
    if (has_warp_prefix) inc = op(warp_prefix, inc);
    return result_t{inc, finish(tid, inc, storage, count)};
  }

  // Exclusive with a prefix: thread t gets init op x[0] op ... op x[t - 1] (thread 0: init).
  // `reduction` is x[0] op ... op x[count - 1], without init.
  template <typename Op>
  MGPU_DEVICE static result_t exclusive(int tid, T x, storage_t& storage, Op op, T init, int count = NT) {
    prefix_result_t r = exclusive_prefix(tid, x, storage, op, count);
    return result_t{r.prefix.valid ? op(init, r.prefix.value) : init, r.reduction};
  }

  // Exclusive without an identity: thread t gets x[0] op ... op x[t - 1], absent in thread 0.
  template <typename Op>
  MGPU_DEVICE static prefix_result_t exclusive_prefix(int tid, T x, storage_t& storage, Op op, int count = NT) {
    T warp_prefix = x;  // overwritten when there is a prefix
    bool has_warp_prefix;
    T inc = scan_core(tid, x, storage, op, warp_prefix, has_warp_prefix);
    int lane = tid % warp_size;
    T previous = shfl_up(inc, 1u);  // the inclusive scan of lane - 1
    maybe<T> result;
    if (lane > 0) {
      result.value = has_warp_prefix ? op(warp_prefix, previous) : previous;
      result.valid = true;
    } else {
      result.value = warp_prefix;
      result.valid = has_warp_prefix;
    }
    T full = has_warp_prefix ? op(warp_prefix, inc) : inc;
    return prefix_result_t{result, finish(tid, full, storage, count)};
  }

 private:
  // Warp-local inclusive scan of x, plus the inclusive prefix of the warps before this one.
  template <typename Op>
  MGPU_DEVICE static T scan_core(int tid, T x, storage_t& storage, Op op, T& warp_prefix, bool& has_warp_prefix) {
    int lane = tid % warp_size, warp = tid / warp_size;
MGPU_UNROLL
    for (int offset = 1; offset < warp_size; offset *= 2) {
      T y = shfl_up(x, unsigned(offset));
      if (lane >= offset) x = op(y, x);
    }
    if (num_warps > 1) {
      if (lane == warp_size - 1) storage.warp_totals[warp] = x;
      __syncthreads();
      if (warp == 0) {
        T w = storage.warp_totals[lane < num_warps ? lane : num_warps - 1];
MGPU_UNROLL
        for (int offset = 1; offset < num_warps; offset *= 2) {
          T y = shfl_up(w, unsigned(offset));
          if (lane >= offset) w = op(y, w);
        }
        if (lane < num_warps) storage.warp_totals[lane] = w;
      }
      __syncthreads();
      has_warp_prefix = warp > 0;
      if (has_warp_prefix) warp_prefix = storage.warp_totals[warp - 1];
    } else {
      has_warp_prefix = false;
    }
    return x;
  }

  // The reduction over the first `count` threads, given each thread's full inclusive scan.
  MGPU_DEVICE static T finish(int tid, const T& inclusive, storage_t& storage, int count) {
    if (count == NT && num_warps > 1) {
      T r = storage.warp_totals[num_warps - 1];
      __syncthreads();  // storage may be reused once every thread has read it
      return r;
    }
    if (tid == count - 1) storage.reduction = inclusive;
    __syncthreads();
    T r = storage.reduction;
    __syncthreads();
    return r;
  }
};

}  // namespace mgpu
