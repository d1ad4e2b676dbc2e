// mgpu/cta/sets.hpp
//
// The serial multiset operations (one thread's steps) and the CTA set operation over two sorted
// lists in shared memory: each thread finds where its steps start by Balanced Path, then runs the
// serial loop of std::set_union and its siblings, remembering which of its steps keep a key.
#pragma once

#include "../core/types.hpp"
#include "balanced_path.hpp"
#include "merge.hpp"

namespace mgpu {

// The four operations, with std::set_*'s multiset semantics. For a key with m copies in a and n
// in b, the output holds:
//   intersection          a's first min(m, n) copies
//   union_                a's m copies, then b's last max(n - m, 0)   ("union" is a keyword)
//   difference            a's last max(m - n, 0) copies
//   symmetric_difference  a's last max(m - n, 0) or b's last max(n - m, 0)
enum class set_kind { intersection, union_, difference, symmetric_difference };

namespace detail {
// Whether a step that took a's head (take_a), b's (take_b) or both (a matched pair) keeps a key.
constexpr bool keeps(set_kind k, bool take_a, bool take_b) {
  return k == set_kind::union_         ? take_a || take_b
         : k == set_kind::intersection ? take_a && take_b
         : k == set_kind::difference   ? take_a && !take_b
                                       : take_a != take_b;
}
}  // namespace detail

// A thread's steps of a set operation: step i looked at keys[i], found at position indices[i] of
// the shared array both lists are in (a's positions come first: to tell the sides apart, or to
// gather values), and the output keeps it when bit i of `kept` is set. Steps past the range's end
// keep nothing.
template <typename T, int VT>
struct set_selection {
  array_t<T, VT> keys;
  array_t<int, VT> indices;
  unsigned kept;
  MGPU_DEVICE int count() const { return __popc(kept); }
};

// The serial loop of a set operation over `range` of `keys` (a's and b's parts sorted by comp),
// at most VT steps: a step takes the head that goes first, or both heads when they are equal (a
// matched pair, reported as a's key). `range` must start and end at Balanced Path cuts
// (balanced_path), so that equal heads are always the same copy number of their key; it then
// needs at most VT steps when it holds at most VT elements, or VT + 1 ending in a starred pair.
// Reads stay within each list and the one position past its end: `keys` must be readable there.
template <set_kind kind, int VT, typename T, typename Comp>
MGPU_DEVICE set_selection<T, VT> serial_set_op(const T* keys, merge_range range, Comp comp) {
  static_assert(VT >= 1 && VT <= 32, "mgpu: a set operation's steps per thread (VT) must be 1 to 32");
  set_selection<T, VT> out;
  out.kept = 0;
  int a_at = range.a_begin, b_at = range.b_begin;
  T a_key = keys[a_at], b_key = keys[b_at];
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    // A step takes a's head unless b's goes first, and b's unless a's goes first: both when they
    // are equal (a matched pair).
    const bool take_a = a_at < range.a_end && (b_at >= range.b_end || !comp(b_key, a_key));
    const bool take_b = b_at < range.b_end && (a_at >= range.a_end || !comp(a_key, b_key));
    out.keys[i] = take_a ? a_key : b_key;
    out.indices[i] = take_a ? a_at : b_at;
    out.kept |= unsigned(detail::keeps(kind, take_a, take_b)) << i;
    // Each list taken from moves on and loads its next key, which may be the position just past
    // its end (read, never compared).
    if (take_a) a_key = keys[++a_at];
    if (take_b) b_key = keys[++b_at];
  }
  return out;
}

// What cta_set_op_from_shared shares between threads: where each thread's steps start.
template <int NT>
struct cta_set_op_storage {
  int a_begin[NT], b_begin[NT];
};

// The set operation over a = keys[0, a_count) and b = keys[a_count, a_count + b_count) (both
// sorted by comp; together at most NT * VT + 1 elements, the lists of one part between two
// Balanced Path cuts; `keys` one element longer than that). Thread tid takes the steps between
// the Balanced Path cuts at diagonals VT * tid and VT * (tid + 1) of the two lists, at most VT.
// Reads shared memory only: the caller syncs before. One barrier inside; `storage` may be reused
// after the caller's next barrier.
template <set_kind kind, int NT, int VT, typename T, typename Comp>
MGPU_DEVICE set_selection<T, VT> cta_set_op_from_shared(const T* keys, int a_count, int b_count, int tid, Comp comp,
                                                        cta_set_op_storage<NT>& storage) {
  int total = a_count + b_count;
  int diag = VT * tid < total ? VT * tid : total;
  balanced_split<int> start = balanced_path(keys, a_count, keys + a_count, b_count, diag, comp);
  storage.a_begin[tid] = start.a;
  storage.b_begin[tid] = start.b;
  __syncthreads();
  int a_end = tid + 1 < NT ? storage.a_begin[tid + 1] : a_count;
  int b_end = tid + 1 < NT ? storage.b_begin[tid + 1] : b_count;
  merge_range range{start.a, a_end, a_count + start.b, a_count + b_end};
  return serial_set_op<kind, VT>(keys, range, comp);
}

}  // namespace mgpu
