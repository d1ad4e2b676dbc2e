// mgpu/cta/cta_sort.hpp
//
// cta_sort: a stable sort of one tile of NV = NT * VT keys (and values) held in registers in
// thread order. Each thread sorts its own VT keys with a sorting network, then log2(NT) rounds
// of merges in shared memory double the sorted runs (VT, 2 VT, ..., NV), each thread merging VT
// outputs of its pair of runs found by Merge Path. The first stage of mergesort.
//
// cta_segmented_sort: the same rounds for a tile cut into segments, each sorted on its own (the
// first stage of segmented_sort). In a round, the only elements that move are those of the one
// segment that straddles the middle of each pair of runs; only the threads whose outputs lie in
// that segment search and merge (Merge Path restricted to the segment), the others keep their
// registers, and a round in which no segment straddles a middle costs one barrier. So a tile of
// tiny segments costs little more than loading and storing it.
#pragma once

#include "../core/operators.hpp"
#include "../core/types.hpp"
#include "merge.hpp"
#include "search.hpp"
#include "sort_networks.hpp"

#include <type_traits>

namespace mgpu {

template <int NT, int VT, typename K, typename V = empty_t>
struct cta_sort {
  static_assert(NT > 0 && (NT & (NT - 1)) == 0, "cta_sort needs a power-of-two NT");
  static constexpr int nv = NT * VT;
  struct storage_t {
    union {
      K keys[nv + 1];  // one past the end: serial_merge reads ahead
      V values[nv + 1];
    };
  };

  // Sorts the tile's first `count` elements (thread tid holds elements [VT * tid, VT * tid + VT));
  // returns with each thread holding the same positions of the sorted tile. Elements at or past
  // `count` end up unspecified. Stable.
  template <typename Comp>
  MGPU_DEVICE static void sort(array_t<K, VT>& keys, array_t<V, VT>& values, storage_t& storage, int tid,
                               int count, Comp comp) {
    int mine = VT * tid < count ? (count - VT * tid < VT ? count - VT * tid : VT) : 0;
    odd_even_sort(keys, values, comp, mine);
    MGPU_UNROLL
    for (int coop = 2; coop <= NT; coop *= 2) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) storage.keys[VT * tid + i] = keys[i];
      __syncthreads();
      // This thread's group of `coop` threads merges two runs of coop / 2 * VT keys.
      int first = tid & ~(coop - 1);
      int a_begin = min_of(VT * first, count), a_end = min_of(VT * (first + coop / 2), count);
      int b_end = min_of(VT * (first + coop), count);
      int diag = min_of(VT * (tid - first), b_end - a_begin);
      int mp = merge_path(storage.keys + a_begin, a_end - a_begin, storage.keys + a_end, b_end - a_end, diag, comp);
      merge_range range{a_begin + mp, a_end, a_end + diag - mp, b_end};
      merge_pair<K, VT> merged = serial_merge<VT>(storage.keys, range, comp);
      __syncthreads();
      keys = merged.keys;
      if constexpr (has_values_v<V>) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) storage.values[VT * tid + i] = values[i];
        __syncthreads();
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) values[i] = storage.values[merged.indices[i]];
        __syncthreads();
      }
    }
  }

 private:
  MGPU_DEVICE static int min_of(int a, int b) { return a < b ? a : b; }
};

template <int NT, int VT, typename K, typename V = empty_t>
struct cta_segmented_sort {
  static_assert(NT > 0 && (NT & (NT - 1)) == 0, "cta_segmented_sort needs a power-of-two NT");
  static constexpr int nv = NT * VT;
  // With values, each key carries its tile position through the rounds, and the values are
  // gathered once at the end; keys-only sorts carry nothing.
  using index_t = std::conditional_t<has_values_v<V>, int, empty_t>;
  struct storage_t {
    int segment[nv];  // per tile position: where its segment starts (below 0: before the tile)
    union {
      struct {
        K keys[nv + 1];  // one past the end: serial_merge reads ahead
        index_t index[nv];
      } merge;
      V values[nv];
    };
  };

  // Sorts each segment of the tile's first `count` elements by comp, stably. Thread tid holds
  // elements [VT * tid, VT * tid + VT) and, in `segment`, the tile position where each one's
  // segment starts (any negative value for a segment that starts before the tile); those
  // positions never decrease along the tile. Returns with each thread holding the same positions
  // of the sorted tile, after a barrier (the storage may be reused at once); elements at or past
  // `count` end up unspecified.
  template <typename Comp>
  MGPU_DEVICE static void sort(array_t<K, VT>& keys, array_t<V, VT>& values, const array_t<int, VT>& segment,
                               storage_t& storage, int tid, int count, Comp comp) {
    // Each thread's own keys: a network on (segment, key), which never swaps across segments.
    struct keyed {
      int segment;
      K key;
    };
    array_t<keyed, VT> own;
    array_t<index_t, VT> index;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      own[i] = keyed{segment[i], keys[i]};
      if constexpr (has_values_v<V>) index[i] = VT * tid + i;
      storage.segment[VT * tid + i] = segment[i];
    }
    int mine = VT * tid < count ? (count - VT * tid < VT ? count - VT * tid : VT) : 0;
    odd_even_sort(own, index, [=](const keyed& a, const keyed& b) {
      return a.segment == b.segment && comp(a.key, b.key);
    }, mine);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) keys[i] = own[i].key;
    __syncthreads();

    MGPU_UNROLL
    for (int coop = 2; coop <= NT; coop *= 2) {
      // The segment that straddles the middle of this thread's pair of runs, as [lo, hi).
      int first = tid & ~(coop - 1);
      int a_begin = min_of(VT * first, count), middle = min_of(VT * (first + coop / 2), count);
      int b_end = min_of(VT * (first + coop), count);
      int lo = middle, hi = middle;
      if (a_begin < middle && middle < b_end && storage.segment[middle] < middle) {
        int head = storage.segment[middle];
        lo = head > a_begin ? head : a_begin;
        hi = middle + binary_search<bounds::upper>(storage.segment + middle, b_end - middle, head, less<int>());
      }
      int p0 = VT * tid > lo ? VT * tid : lo, p1 = min_of(VT * tid + VT, hi);
      bool involved = p0 < p1;
      if (!__syncthreads_or(involved)) continue;

      // (The barrier above also ended every read of the previous round.) The merge reads only
      // positions in [lo, hi), which belong to the involved threads.
      if (involved) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          storage.merge.keys[VT * tid + i] = keys[i];
          if constexpr (has_values_v<V>) storage.merge.index[VT * tid + i] = index[i];
        }
      }
      __syncthreads();
      if (involved) merge_own_outputs(keys, index, storage, VT * tid, lo, middle, hi, comp);
    }

    // The last round's reads finish before anyone overwrites the storage (the values here, or the
    // caller, which may reuse it at once).
    __syncthreads();
    if constexpr (has_values_v<V>) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) storage.values[VT * tid + i] = values[i];
      __syncthreads();
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) values[i] = storage.values[index[i]];
      __syncthreads();
    }
  }

 private:
  MGPU_DEVICE static int min_of(int a, int b) { return a < b ? a : b; }

  // The thread's own positions [q0, q0 + VT) after merging the shared keys [lo, middle) with
  // [middle, hi): those in [lo, hi) take their merge outputs (a serial merge from the Merge Path
  // split at the first of them), the others keep their registers. Register indices stay static.
  template <typename Comp>
  MGPU_DEVICE static void merge_own_outputs(array_t<K, VT>& keys, array_t<index_t, VT>& index, const storage_t& storage,
                                            int q0, int lo, int middle, int hi, Comp comp) {
    const K* shared = storage.merge.keys;
    int diag = (q0 > lo ? q0 : lo) - lo;
    int mp = merge_path(shared + lo, middle - lo, shared + middle, hi - middle, diag, comp);
    serial_merge_slots<VT>(shared, merge_range{lo + mp, middle, middle + diag - mp, hi}, lo - q0, hi - q0, comp,
                           [&](int i, const K& key, int from) {
                             keys[i] = key;
                             if constexpr (has_values_v<V>) index[i] = storage.merge.index[from];
                           });
  }
};

}  // namespace mgpu
