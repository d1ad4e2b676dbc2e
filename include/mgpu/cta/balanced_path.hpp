// mgpu/cta/balanced_path.hpp
//
// Balanced Path: Merge Path for the multiset operations. A set operation walks two sorted inputs
// as a merge does, but it pairs the i-th copy of a key in a with the i-th copy of the same key in
// b (std::set_intersection keeps a's copy of such a pair, std::set_difference drops both, ...).
// Merge Path puts all of a's copies of a key before all of b's, so a cut inside a run of equal
// keys can leave a's i-th copy on one side and b's i-th copy on the other, and the work after the
// cut would pair the wrong copies. Balanced Path moves such a cut along the run until it takes as
// many copies from a as from b (or, past the shorter side's copies, all of them), and when that
// would split a pair, it takes the pair's b copy too: the cut is "starred" and the part before it
// holds one element more than the diagonal. Every part between two such cuts is then a set
// problem of its own, whose pairs are the pairs of the whole.
#pragma once

#include "search.hpp"

#include <iterator>

namespace mgpu {

// A cut of two sorted inputs: a[0, a) and b[0, b) lie before it. For a cut on diagonal `diag`,
// a + b == diag, or diag + 1 when `starred`.
template <typename Int>
struct balanced_split {
  Int a, b;
  bool starred;
};

namespace detail {
// How many of data[0, end) at its end are equal to key, when none of them goes after key: galloping
// back from the end (probes 1, 2, 4, ... elements back), then a binary search within the last
// stride, so the cost grows with the log of the answer, not of `end`.
template <typename It, typename Int, typename Key, typename Comp>
MGPU_HOST_DEVICE Int equal_run_before(It data, Int end, const Key& key, Comp comp) {
  Int begin = end, stride = 1;  // data[begin, end) all equal key
  while (begin > 0) {
    Int probe = begin > stride ? begin - stride : Int(0);
    if (comp(data[probe], key))  // the run starts in (probe, begin]
      return end - (probe + 1) - binary_search<bounds::lower>(data + (probe + 1), begin - (probe + 1), key, comp);
    begin = probe;
    if (stride <= begin / 2) stride *= 2;  // (never past `end`: no overflow)
  }
  return end;
}

// balanced_path's cut at `diag`, given x = merge_path(a, a_count, b, b_count, diag, comp): the
// part after the Merge Path search, for callers that ran that search another way (group_search).
template <typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE balanced_split<Int> balance_merge_path_cut(AIt a, Int a_count, BIt b, Int b_count, Int diag, Int x,
                                                            Comp comp) {
  using key_t = typename std::iterator_traits<AIt>::value_type;
  Int y = diag - x;
  balanced_split<Int> cut{x, y, false};
  if (x >= a_count && y >= b_count) return cut;  // nothing after the cut

  // The first element after the cut in merge order, and the copies of its key before the cut.
  // (When it is a's, Merge Path took no copy of it from b: those follow a's.)
  bool next_is_a = x < a_count && (y >= b_count || !comp(b[y], a[x]));
  key_t key = next_is_a ? key_t(a[x]) : key_t(b[y]);
  Int a_before = x > 0 && !comp(a[x - 1], key) ? equal_run_before(a, x, key, comp) : Int(0);
  Int b_before = y > 0 && !comp(b[y - 1], key) ? equal_run_before(b, y, key, comp) : Int(0);
  Int r = a_before + b_before;
  if (r == 0) return cut;  // the cut lies between two different keys

  // The run's copies in a and in b, counted up to r (more make no difference below).
  Int a_window = r - a_before < a_count - x ? r - a_before : a_count - x;
  Int b_window = r - b_before < b_count - y ? r - b_before : b_count - y;
  Int m = a_before + binary_search<bounds::upper>(a + x, a_window, key, comp);
  Int n = b_before + binary_search<bounds::upper>(b + y, b_window, key, comp);

  // The first r copies in pair order: half of them from a (rounded up) while pairs last; past the
  // pairs, n from b and the rest from a (a is the longer side), or m from a (b is).
  Int from_a = r - r / 2;
  if (r - n > from_a) from_a = r - n;
  if (from_a > m) from_a = m;
  Int from_b = r - from_a;
  cut.starred = from_a == from_b + 1 && from_a <= n;  // a's copy of pair from_a is taken, b's is not
  cut.a = x - a_before + from_a;
  cut.b = y - b_before + from_b + (cut.starred ? 1 : 0);
  return cut;
}
}  // namespace detail

// Balanced Path at diagonal `diag` of sorted a[0, a_count) and b[0, b_count) (diag in
// [0, a_count + b_count]): where a set operation's first `diag` steps of input end, with matched
// pairs kept together.
//
// In a run of equal keys (neither goes before the other under comp) with m copies in a and n in
// b, a set operation visits the copies in the order a1 b1 a2 b2 ... (the first min(m, n) pairs)
// and then the longer side's surplus. The cut takes the first r copies of the run in that order,
// where r is the number of the run's copies that Merge Path (a first on ties) puts before the
// diagonal: ceil(r / 2) from a and floor(r / 2) from b inside the pairs, all of the shorter
// side's copies and the rest from the longer side past them. When r is odd inside the pairs, the
// cut would separate a's copy of a pair from b's: b's copy goes before the cut too (starred).
// Cuts are monotone in diag, and the parts between the cuts at diagonals d0 < d1 hold
// d1 - d0 - 1 to d1 - d0 + 1 elements.
//
// Cost: one Merge Path search, and when the diagonal falls inside a run of equal keys a few more
// searches whose steps grow with the log of the run's length: where the run starts in a and in b
// (galloping back from the cut), and how many copies follow the cut on each side (looked at no
// further than the copies that matter). Usable on host and device, on any random-access range.
template <typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE balanced_split<Int> balanced_path(AIt a, Int a_count, BIt b, Int b_count, Int diag, Comp comp) {
  return detail::balance_merge_path_cut(a, a_count, b, b_count, diag, merge_path(a, a_count, b, b_count, diag, comp),
                                        comp);
}

}  // namespace mgpu
