// mgpu/cta/cta_sort.hpp
//
// cta_sort: a stable sort of one tile of NV = NT * VT keys (and values) held in registers in
// thread order. Each thread sorts its own VT keys with a sorting network, then log2(NT) rounds
// of merges in shared memory double the sorted runs (VT, 2 VT, ..., NV), each thread merging VT
// outputs of its pair of runs found by Merge Path; a partial tile stops once one run holds all of
// it. The first stage of mergesort. With NT = 32 it synchronizes as a warp (__syncwarp), so each
// warp of a larger CTA sorts on its own, with storage of its own, or, by sort_group, each group of
// 1 to 32 consecutive lanes (segmented_sort sorts short segments so, a group a segment).
//
// cta_segmented_sort: the same rounds for a tile cut into segments, each sorted on its own (the
// first stage of segmented_sort). In a round, the only elements that move are those of the one
// segment that straddles the middle of each pair of runs; only the threads whose outputs lie in
// that segment search and merge (Merge Path restricted to the segment), the others keep their
// registers, and a round in which no segment straddles a middle costs one barrier. The rounds
// end early: once no segment crosses two run boundaries, one flat round merges, around every
// boundary at once, the segment that straddles it. So a tile of segments of at most VT + 1 keys
// takes one round after the per-thread sort, and costs little more than loading and storing it.
//
// cta_short_segment_sort: a tile whose segments are all at most 16 keys long, each segment sorted
// whole by one thread (below).
#pragma once

#include "../core/operators.hpp"
#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"
#include "loadstore.hpp"
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
  MGPU_DEVICE static void sort(array_t<K, VT>& keys, array_t<V, VT>& values, storage_t& storage, int tid, int count,
                               Comp comp) {
    sort_group(keys, values, storage.keys, storage.values, tid, NT, count, comp);
  }

  // With NT = 32: the same sort by groups of `lanes` consecutive lanes of a warp (a power of two up
  // to 32, the same for the whole warp, which calls as a whole), each group its own tile of at most
  // lanes * VT elements (its own `count`; tid, the lane's index in its group), with its own shared
  // memory: lanes * VT + 1 keys at run_keys, values at run_values (which may alias run_keys). The
  // rounds end once every group's tile is one run. With NT > 32, lanes = NT: sort().
  template <typename Comp>
  MGPU_DEVICE static void sort_group(array_t<K, VT>& keys, array_t<V, VT>& values, K* run_keys, V* run_values, int tid,
                                     int lanes, int count, Comp comp) {
    int mine = VT * tid < count ? (count - VT * tid < VT ? count - VT * tid : VT) : 0;
    thread_sort(keys, values, comp, mine);
    MGPU_UNROLL
    for (int coop = 2; coop <= lanes; coop *= 2) {
      // One run already holds the whole (short) tile; groups of a warp stop together, their
      // barriers being the warp's.
      const bool done = VT * (coop / 2) >= count;
      if (NT <= warp_size && lanes < warp_size ? __all_sync(0xffffffffu, done) : done) break;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) run_keys[VT * tid + i] = keys[i];
      sync();
      // This thread's group of `coop` threads merges two runs of coop / 2 * VT keys.
      int first = tid & ~(coop - 1);
      int a_begin = min_of(VT * first, count), a_end = min_of(VT * (first + coop / 2), count);
      int b_end = min_of(VT * (first + coop), count);
      int diag = min_of(VT * (tid - first), b_end - a_begin);
      int mp = merge_path(run_keys + a_begin, a_end - a_begin, run_keys + a_end, b_end - a_end, diag, comp);
      merge_range range{a_begin + mp, a_end, a_end + diag - mp, b_end};
      merge_pair<K, VT> merged = serial_merge<VT>(run_keys, range, comp);
      sync();
      keys = merged.keys;
      if constexpr (has_values_v<V>) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) run_values[VT * tid + i] = values[i];
        sync();
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) values[i] = run_values[merged.indices[i]];
        sync();
      }
    }
  }

 private:
  MGPU_DEVICE static int min_of(int a, int b) { return a < b ? a : b; }
  MGPU_DEVICE static void sync() {
    if constexpr (NT <= warp_size)
      __syncwarp();
    else
      __syncthreads();
  }
};

template <int NT, int VT, typename K, typename V = empty_t>
struct cta_segmented_sort {
  static_assert(NT > 0 && (NT & (NT - 1)) == 0, "cta_segmented_sort needs a power-of-two NT");
  static_assert(VT <= 33, "cta_segmented_sort takes at most 33 values per thread");
  static constexpr int nv = NT * VT;
  // With values, each key carries its tile position through the rounds, and the values are
  // gathered once at the end; keys-only sorts carry nothing.
  using index_t = std::conditional_t<has_values_v<V>, int, empty_t>;
  struct storage_t {
    int segment[nv];  // per tile position: where its segment starts (below 0: before the tile)
    int wide_runs;    // bit r (r a power of two): some segment crosses two multiples of VT * r
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
  // segment starts (one negative value, the same for all its elements, for a segment that starts
  // before the tile); those positions never decrease along the tile. Returns with each thread
  // holding the same positions of the sorted tile, after a barrier (the storage may be reused at
  // once); elements at or past `count` end up unspecified.
  template <typename Comp>
  MGPU_DEVICE static void sort(array_t<K, VT>& keys, array_t<V, VT>& values, const array_t<int, VT>& segment,
                               storage_t& storage, int tid, int count, Comp comp) {
    // Each thread's own keys: a network that never swaps across a segment boundary.
    array_t<index_t, VT> index;
    unsigned boundaries = 0;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if constexpr (has_values_v<V>) index[i] = VT * tid + i;
      storage.segment[VT * tid + i] = segment[i];
      if (i + 1 < VT && segment[i] != segment[i + 1]) boundaries |= 1u << i;
    }
    int mine = VT * tid < count ? (count - VT * tid < VT ? count - VT * tid : VT) : 0;
    odd_even_sort_runs(keys, index, boundaries, comp, mine);
    if (tid == 0) storage.wide_runs = 0;
    __syncthreads();
    int wide = wide_runs_at(storage, VT * tid, count);
    if (wide) atomicOr(&storage.wide_runs, wide);
    __syncthreads();
    // Runs of VT * r keys for the r whose bit is clear have no segment crossing two of their
    // boundaries (nor do longer runs). The round of 2 r threads, the first such, can be flat.
    wide = storage.wide_runs;
    int flat_coop = 2 * (~wide & (wide + 1));

    // Regular rounds: before the round of `coop` threads, runs of VT * coop / 2 keys are sorted per
    // segment; the round merges the segment straddling the middle of each pair of runs.
    MGPU_UNROLL
    for (int coop = 2; coop <= NT; coop *= 2) {
      if (coop >= flat_coop && coop < NT) break;  // (the last round is flat anyway)
      straddle s = straddling(storage, VT * ((tid & ~(coop - 1)) + coop / 2), VT * (coop / 2), count);
      bool involved = s.holds(VT * tid);
      if (!__syncthreads_or(involved)) continue;
      // (The barrier above also ended every read of the previous round.) The merge reads only
      // positions in [s.lo, s.hi), which belong to the involved threads.
      if (involved) store_own(keys, index, storage, tid);
      __syncthreads();
      if (involved) merge_own_outputs(keys, index, storage, tid, s, comp);
    }

    // The flat round: each thread's outputs lie in one run and may meet the segments straddling
    // both its ends, two different segments (none crosses two boundaries).
    if (flat_coop < NT) {
      int run = VT * (flat_coop / 2), run_begin = VT * (tid & ~(flat_coop / 2 - 1));
      straddle s0 = straddling(storage, run_begin, run, count);
      straddle s1 = straddling(storage, run_begin + run, run, count);
      bool in0 = s0.holds(VT * tid), in1 = s1.holds(VT * tid);
      if (__syncthreads_or(in0 || in1)) {
        if (in0 || in1) store_own(keys, index, storage, tid);
        __syncthreads();
        if (in0) merge_own_outputs(keys, index, storage, tid, s0, comp);
        if (in1) merge_own_outputs(keys, index, storage, tid, s1, comp);
      }
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

  // The segment straddling `middle` (a multiple of `run`), clipped to the runs on either side:
  // [lo, middle) and [middle, hi); empty (lo == hi) when no segment straddles it.
  struct straddle {
    int lo, middle, hi;
    // Whether the VT positions from q0 meet it.
    MGPU_DEVICE bool holds(int q0) const { return (q0 > lo ? q0 : lo) < min_of(q0 + VT, hi); }
  };
  MGPU_DEVICE static straddle straddling(const storage_t& storage, int middle, int run, int count) {
    straddle s{middle, middle, middle};
    if (0 < middle && middle < count && storage.segment[middle] < middle) {
      int head = storage.segment[middle];
      int end = min_of(middle + run, count);
      s.lo = head > middle - run ? head : middle - run;
      s.hi = middle + binary_search<bounds::upper>(storage.segment + middle, end - middle, head, less<int>());
    }
    return s;
  }

  // The bits r (powers of two below NT) for which a segment crosses both q0 and q0 + VT * r,
  // where q0 is a multiple of VT * r (the boundaries of runs of r threads that start here).
  MGPU_DEVICE static int wide_runs_at(const storage_t& storage, int q0, int count) {
    int wide = 0;
    if (q0 == 0 || q0 >= count || storage.segment[q0] >= q0) return 0;
    MGPU_UNROLL
    for (int r = 1; r < NT; r *= 2) {
      if ((q0 / VT) % r != 0) break;
      int next = q0 + VT * r;
      if (next < count && storage.segment[next] == storage.segment[q0]) wide |= r;
    }
    return wide;
  }

  MGPU_DEVICE static void store_own(const array_t<K, VT>& keys, const array_t<index_t, VT>& index, storage_t& storage,
                                    int tid) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      storage.merge.keys[VT * tid + i] = keys[i];
      if constexpr (has_values_v<V>) storage.merge.index[VT * tid + i] = index[i];
    }
  }

  // The thread's own positions [VT * tid, VT * tid + VT) after merging the shared keys
  // [s.lo, s.middle) with [s.middle, s.hi): those in [s.lo, s.hi) take their merge outputs (a
  // serial merge from the Merge Path split at the first of them), the others keep their
  // registers. Register indices stay static.
  template <typename Comp>
  MGPU_DEVICE static void merge_own_outputs(array_t<K, VT>& keys, array_t<index_t, VT>& index, const storage_t& storage,
                                            int tid, straddle s, Comp comp) {
    const K* shared = storage.merge.keys;
    int q0 = VT * tid;
    int diag = (q0 > s.lo ? q0 : s.lo) - s.lo;
    int mp = merge_path(shared + s.lo, s.middle - s.lo, shared + s.middle, s.hi - s.middle, diag, comp);
    serial_merge_slots<VT>(shared, merge_range{s.lo + mp, s.middle, s.middle + diag - mp, s.hi}, s.lo - q0, s.hi - q0,
                           comp, [&](int i, const K& key, int from) {
                             keys[i] = key;
                             if constexpr (has_values_v<V>) index[i] = storage.merge.index[from];
                           });
  }
};

// cta_short_segment_sort: a tile cut into segments of at most max_length keys, each sorted
// whole by one thread in registers (the thread holding the segment's first position): no merge
// rounds. Each lane sorts its segments one after another, with the transposition network (stable)
// of the smallest power of two that holds the longest segment of the warp's lanes at that step (2,
// 4, 8 or 16 keys), so uniform short segments run one small network. The tile lies in shared
// memory, padded by one slot per 32, so that segments of a power-of-two length starting side by
// side fall in different banks. segmented_sort's blocksort uses it for the tiles whose segments
// are all short, and cta_segmented_sort for the others. VT <= 32.
template <int NT, int VT, typename K, typename V = empty_t>
struct cta_short_segment_sort {
  static_assert(VT <= 32, "a bit per position of a thread");
  static constexpr int nv = NT * VT;
  static constexpr int max_length = 16;
  static constexpr int padded(int j) { return j + j / 32; }
  using value_slot = std::conditional_t<has_values_v<V>, V, empty_t>;
  struct storage_t {
    unsigned starts[NT];     // per thread: bit i set where position VT * tid + i starts a segment
    K keys[padded(nv) + 1];  // (and the idle slot, padded(nv))
    value_slot values[has_values_v<V> ? padded(nv) + 1 : 1];
  };

  // Whether every segment of the tile's first `count` positions is at most max_length long, the
  // same answer in every thread (all call it). `starts` has bit i set where position
  // VT * tid + i < count begins a segment (position 0 always does). Leaves the starts in `storage`
  // for sort; may overwrite anything else the storage shares memory with (after a barrier
  // that ends the caller's reads of it, which the caller provides).
  MGPU_DEVICE static bool fits(unsigned starts, storage_t& storage, int tid, int count) {
    if (tid == 0 && count > 0) starts |= 1u;
    storage.starts[tid] = starts;
    __syncthreads();
    bool too_long = false;
    for (unsigned rest = starts; rest; rest &= rest - 1) {
      const int i = trailing_zeros(rest);
      too_long |= segment_end(storage, tid, i, count) - (VT * tid + i) > max_length;
    }
    return !__syncthreads_or(too_long);
  }

  // After fits returned true: loads the tile's first `count` keys (and values) from keys_in
  // (values_in) into the storage and sorts each segment by comp, stably. Returns after a barrier;
  // the sorted tile is then read with strided().
  template <typename KeysIn, typename ValuesIn, typename Comp>
  MGPU_DEVICE static void sort(KeysIn keys_in, ValuesIn values_in, storage_t& storage, int tid, int count, Comp comp) {
    const array_t<K, VT> k = mem_to_reg_strided<NT, VT, K>(keys_in, tid, count);
    array_t<value_slot, VT> v;
    if constexpr (has_values_v<V>) v = mem_to_reg_strided<NT, VT, V>(values_in, tid, count);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      const int j = NT * i + tid;
      if (j < count) {
        storage.keys[padded(j)] = k[i];
        if constexpr (has_values_v<V>) storage.values[padded(j)] = v[i];
      }
    }
    __syncthreads();
    // A segment a lane per step: as many steps as the warp's busiest lane has segments.
    for (unsigned mine = storage.starts[tid]; warp_or(mine);) {
      // A lane without a segment at this step reads the idle slot alone, which nobody writes (any
      // other slot may be another lane's, being written: racecheck saw such lanes read the tile's
      // first key while its lane sorted it). A choice of slot at each load instead read 0.343 ms
      // for segments of 16 on the H200 against this form's 0.337 (separate runs); a branch around
      // the loads spilled.
      int begin = nv, length = 0;  // (position nv: the idle slot)
      if (mine) {
        const int i = trailing_zeros(mine);
        mine &= mine - 1;
        begin = VT * tid + i;
        length = segment_end(storage, tid, i, count) - begin;
      }
      const int longest = warp_max(length);
      if (longest <= 2)
        sort_segment<2>(storage, begin, length, comp);
      else if (longest <= 4)
        sort_segment<4>(storage, begin, length, comp);
      else if (longest <= 8)
        sort_segment<8>(storage, begin, length, comp);
      else
        sort_segment<max_length>(storage, begin, length, comp);
    }
    __syncthreads();
  }

  // The sorted tile's keys (or values) NT * i + tid, i < VT (positions at or past count unspecified).
  template <typename T>
  MGPU_DEVICE static array_t<T, VT> strided(const T* tile, int tid) {
    array_t<T, VT> x;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) x[i] = tile[padded(NT * i + tid)];
    return x;
  }

 private:
  // One past the segment that starts at position VT * tid + i: the next start, or count, or (for
  // a segment found longer than max_length) any position past max_length from its start.
  MGPU_DEVICE static int segment_end(const storage_t& storage, int tid, int i, int count) {
    const int p = VT * tid + i;
    const unsigned later = i + 1 < 32 ? storage.starts[tid] >> (i + 1) : 0u;
    if (later) return p + 1 + trailing_zeros(later);  // (a start, so below count)
    for (int t = tid + 1;; ++t) {
      const int q = VT * t;
      if (q >= count) return count;
      if (q - p > max_length) return p + max_length + 1;
      if (storage.starts[t]) return q + trailing_zeros(storage.starts[t]);
    }
  }

  // The thread's segment [begin, begin + length), length <= S, sorted in registers; threads of
  // the warp whose lanes have no segment now pass length 0 (and the idle slot). The slots past the
  // segment hold copies of its largest key: the network needs no test of the length (which, with
  // 16 keys and values, had ptxas double the blocksort kernel's registers), and the copies stay
  // after every key of the segment (odd_even_sort is stable and they come last; thread_sort's
  // other network sorts keys alone whose ties are identical).
  template <int S, typename Comp>
  MGPU_DEVICE static void sort_segment(storage_t& storage, int begin, int length, Comp comp) {
    array_t<K, S> k;
    array_t<value_slot, S> v;
    const int last = length > 0 ? length - 1 : 0;
    MGPU_UNROLL
    for (int i = 0; i < S; ++i) {
      const int at = padded(begin + (i < length ? i : last));
      k[i] = storage.keys[at];
      if constexpr (has_values_v<V>) v[i] = storage.values[at];
    }
    K largest = k[0];
    MGPU_UNROLL
    for (int i = 1; i < S; ++i)
      if (comp(largest, k[i])) largest = k[i];
    MGPU_UNROLL
    for (int i = 1; i < S; ++i)
      if (i >= length) k[i] = largest;
    thread_sort(k, v, comp);
    MGPU_UNROLL
    for (int i = 0; i < S; ++i)
      if (i < length) {
        storage.keys[padded(begin + i)] = k[i];
        if constexpr (has_values_v<V>) storage.values[padded(begin + i)] = v[i];
      }
  }
};

}  // namespace mgpu
