// mgpu/cta/cta_reduce.hpp
//
// Reduction of one value per thread across a CTA: warp shuffles, then one warp over the warp
// totals. The operator need only be associative: values are combined in thread order.
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

namespace mgpu {

namespace detail {
// Folds lanes [lane, valid) of a warp into `x` in lane order; lane 0 ends with the whole fold.
template <typename T, typename Op>
MGPU_DEVICE T warp_fold_down(T x, int lane, int valid, Op op) {
  MGPU_UNROLL
  for (int offset = 1; offset < warp_size; offset *= 2) {
    T y = shfl_down(x, unsigned(offset));
    if (lane + offset < valid) x = op(x, y);
  }
  return x;
}
}  // namespace detail

template <int NT, typename T>
struct cta_reduce {
  static_assert(NT % warp_size == 0, "cta_reduce needs whole warps");
  static constexpr int num_warps = NT / warp_size;
  struct storage_t {
    T warp_totals[num_warps];
    T total;
  };

  // x[0] op x[1] op ... op x[count - 1] over the first `count` threads (1 <= count <= NT), in
  // every thread. All NT threads must call it.
  template <typename Op>
  MGPU_DEVICE static T reduce(int tid, T x, storage_t& storage, Op op, int count = NT) {
    int lane = tid % warp_size, warp = tid / warp_size;
    int warp_valid = count - warp * warp_size;
    x = detail::warp_fold_down(x, lane, warp_valid, op);
    if (lane == 0 && warp_valid > 0) storage.warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
      int valid_warps = div_up(count, warp_size);
      T w = storage.warp_totals[lane < valid_warps ? lane : 0];
      w = detail::warp_fold_down(w, lane, valid_warps, op);
      if (lane == 0) storage.total = w;
    }
    __syncthreads();
    // No trailing barrier: a next call writes `total` only after its own first barrier, which
    // every thread reaches after reading this one.
    return storage.total;
  }
};

}  // namespace mgpu
