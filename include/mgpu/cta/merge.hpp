// mgpu/cta/merge.hpp
//
// Serial merge (one thread's VT outputs) and the CTA merge of two sorted lists held in shared
// memory: each thread finds where its VT outputs start by Merge Path, then merges serially.
#pragma once

#include "../core/types.hpp"
#include "search.hpp"

namespace mgpu {

// Where a thread's (or a CTA's) share of a merge reads: a[a_begin, a_end) and b[b_begin, b_end),
// as positions in one array that holds both lists.
struct merge_range {
  int a_begin, a_end, b_begin, b_end;
  MGPU_HOST_DEVICE int a_count() const { return a_end - a_begin; }
  MGPU_HOST_DEVICE int b_count() const { return b_end - b_begin; }
  MGPU_HOST_DEVICE int total() const { return a_count() + b_count(); }
};

// A thread's merged keys, and for each the position it came from in the shared array (to gather
// values, or to tell a from b: positions below the a list's end are a's).
template <typename T, int VT>
struct merge_pair {
  array_t<T, VT> keys;
  array_t<int, VT> indices;
};

// The serial merge loop: the next outputs of `range` from `keys` (stable: a first on ties), one
// per slot i in [first, last) of [0, VT), each handed to emit(i, key, position it came from);
// slots outside [first, last) are skipped. Reads stay within each list and the one position past
// its end: `keys` must be readable there. One load per output, with no divergent branches.
template <int VT, typename T, typename Comp, typename Emit>
MGPU_DEVICE void serial_merge_slots(const T* keys, merge_range range, int first, int last, Comp comp, Emit emit) {
  T a_key = keys[range.a_begin];
  T b_key = keys[range.b_begin];
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    if (i < first || i >= last) continue;
    bool take_a = range.b_begin >= range.b_end || (range.a_begin < range.a_end && !comp(b_key, a_key));
    int index = take_a ? range.a_begin : range.b_begin;
    emit(i, take_a ? a_key : b_key, index);
    // The next key of the list taken from, which may be the position just past its end (read,
    // never used); an exhausted list stays put.
    int next = index < (take_a ? range.a_end : range.b_end) ? index + 1 : index;
    T next_key = keys[next];
    if (take_a) {
      range.a_begin = next;
      a_key = next_key;
    } else {
      range.b_begin = next;
      b_key = next_key;
    }
  }
}

// Merges the next VT outputs of `range` from `keys` (stable: a first on ties). Outputs past the
// range's total hold unspecified values. Reads as serial_merge_slots.
template <int VT, typename T, typename Comp>
MGPU_DEVICE merge_pair<T, VT> serial_merge(const T* keys, merge_range range, Comp comp) {
  merge_pair<T, VT> out;
  serial_merge_slots<VT>(keys, range, 0, VT, comp, [&](int i, const T& key, int index) {
    out.keys[i] = key;
    out.indices[i] = index;
  });
  return out;
}

// serial_merge without range checks, for outputs that cannot run either list out: each list has at
// least VT elements from the range's start (range.a_count() >= VT and range.b_count() >= VT).
// One comparison and one load per output; reads at most VT positions into each list (the last may
// be one past a list's end).
template <int VT, typename T, typename Comp>
MGPU_DEVICE merge_pair<T, VT> serial_merge_unchecked(const T* keys, merge_range range, Comp comp) {
  merge_pair<T, VT> out;
  T a_key = keys[range.a_begin];
  T b_key = keys[range.b_begin];
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    bool take_a = !comp(b_key, a_key);
    int index = take_a ? range.a_begin : range.b_begin;
    out.keys[i] = take_a ? a_key : b_key;
    out.indices[i] = index;
    T next_key = keys[index + 1];
    if (take_a) {
      range.a_begin = index + 1;
      a_key = next_key;
    } else {
      range.b_begin = index + 1;
      b_key = next_key;
    }
  }
  return out;
}

// The values of a thread's merged outputs: slot i (of those below `total`, counted from VT * tid)
// came from position indices[i] of the a ++ b lists that serial_merge or cta_merge_from_shared
// merged, so its value is a_values[indices[i]] or b_values[indices[i] - a_count]. Slots at or
// past `total` are left unset.
template <int VT, typename V, typename AValues, typename BValues>
MGPU_DEVICE array_t<V, VT> gather_merge_values(const array_t<int, VT>& indices, AValues a_values, int a_count,
                                               BValues b_values, int tid, int total) {
  array_t<V, VT> values;
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    int index = indices[i];
    if (VT * tid + i < total) values[i] = index < a_count ? V(a_values[index]) : V(b_values[index - a_count]);
  }
  return values;
}

// Merges a = shared[0, a_count) and b = shared[a_count, a_count + b_count) (both sorted; at most
// NT * VT together; `shared` one element longer than that). Thread tid gets outputs
// [VT * tid, VT * tid + VT) in thread order. Reads shared memory only: the caller syncs before.
template <int NT, int VT, typename T, typename Comp>
MGPU_DEVICE merge_pair<T, VT> cta_merge_from_shared(const T* shared, int a_count, int b_count, int tid, Comp comp) {
  int diag = VT * tid < a_count + b_count ? VT * tid : a_count + b_count;
  int mp = merge_path(shared, a_count, shared + a_count, b_count, diag, comp);
  merge_range range{mp, a_count, a_count + diag - mp, a_count + b_count};
  return serial_merge<VT>(shared, range, comp);
}

}  // namespace mgpu
