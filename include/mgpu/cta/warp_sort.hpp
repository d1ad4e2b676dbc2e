// mgpu/cta/warp_sort.hpp
//
// warp_sort: a stable sort of up to 32 keys held one a lane, in registers, by a bitonic network
// over the lanes (up to 15 compare-exchange steps, each a shuffle of the key and of its source lane).
// Ties are broken by source lane, which makes the order total and the sort stable; values do not
// travel through the network: each lane learns which lane its key came from and fetches the
// value itself. The short segments of segmented_sort are sorted this way, a warp a segment.
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

namespace mgpu {

template <typename K>
struct warp_sorted {
  K key;       // the key this lane holds after the sort
  int source;  // the lane that held it before
};

// Sorts the keys of lanes [0, valid) by comp, stably; every lane of the warp calls it, with the
// same `valid` (the keys of lanes at or past `valid` are ignored, and those lanes receive
// unspecified results). Lane i returns the i-th smallest key and the lane it came from.
// 0 <= valid <= 32. The network spans the lanes [0, w), w the power of two at or above valid:
// 1 step for 2 keys, 6 for 8, 10 for 16, 15 for 17 to 32.
template <typename K, typename Comp>
MGPU_DEVICE warp_sorted<K> warp_sort(K key, int valid, Comp comp) {
  const int lane = lane_id();
  warp_sorted<K> mine{key, lane};
  // Whether x precedes y: keys of lanes past `valid` come after every valid key, and equal keys
  // (or two invalid ones) keep their lanes' order.
  auto precedes = [&](const warp_sorted<K>& x, const warp_sorted<K>& y) {
    if (x.source >= valid) return y.source >= valid && x.source < y.source;
    if (y.source >= valid) return true;
    return comp(x.key, y.key) || (!comp(y.key, x.key) && x.source < y.source);
  };
  MGPU_UNROLL
  for (int size = 2; size <= warp_size; size *= 2) {
    if (size / 2 >= valid) break;  // lanes [0, size / 2) already hold every key, sorted
    MGPU_UNROLL
    for (int stride = size / 2; stride > 0; stride /= 2) {
      warp_sorted<K> other{shfl_xor(mine.key, stride), __shfl_xor_sync(full_warp_mask, mine.source, stride)};
      // In blocks of `size` lanes sorted alternately up and down, the upper lane of each pair keeps
      // the later element in an ascending block and the earlier one in a descending block.
      bool keep_later = ((lane & stride) != 0) != ((lane & size) != 0);
      if (keep_later != precedes(other, mine)) mine = other;
    }
  }
  return mine;
}

}  // namespace mgpu
