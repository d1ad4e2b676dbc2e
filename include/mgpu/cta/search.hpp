// mgpu/cta/search.hpp
//
// Binary search and Merge Path: the partitioning primitives every merge-like algorithm reuses.
// Usable on host and device, on any random-access range.
#pragma once

#include "../platform/config.hpp"

namespace mgpu {

// lower: the first position whose element is not less than the key (before any equal elements);
// upper: the first position whose element is greater than the key (after any equal elements).
enum class bounds { lower, upper };

// std::lower_bound / std::upper_bound over data[0, count).
template <bounds B, typename It, typename Int, typename Key, typename Comp>
MGPU_HOST_DEVICE Int binary_search(It data, Int count, const Key& key, Comp comp) {
  Int begin = 0, end = count;
  while (begin < end) {
    Int mid = begin + (end - begin) / 2;
    bool go_right = B == bounds::upper ? !comp(key, data[mid]) : comp(data[mid], key);
    if (go_right)
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

namespace detail {
// One Merge Path search in progress (see merge_path): its answer lies in [begin, end).
template <bounds B, typename AIt, typename BIt, typename Int, typename Comp>
struct merge_path_search {
  AIt a;
  BIt b;
  Int diag, begin, end;
  Comp comp;
  MGPU_HOST_DEVICE merge_path_search(AIt a_, Int a_count, BIt b_, Int b_count, Int diag_, Comp comp_)
      : a(a_),
        b(b_),
        diag(diag_),
        begin(diag_ > b_count ? diag_ - b_count : Int(0)),
        end(diag_ < a_count ? diag_ : a_count),
        comp(comp_) {}
  MGPU_HOST_DEVICE bool done() const { return begin >= end; }
  // One halving of [begin, end): does a[mid] come out before b[diag - 1 - mid]?
  MGPU_HOST_DEVICE void step() {
    Int mid = begin + (end - begin) / 2;
    bool a_first = B == bounds::upper ? comp(a[mid], b[diag - 1 - mid]) : !comp(b[diag - 1 - mid], a[mid]);
    if (a_first)
      begin = mid + 1;
    else
      end = mid;
  }
};
}  // namespace detail

// Merge Path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple",
// 2012): how many of the first `diag` outputs of merging sorted a[0, a_count) and b[0, b_count)
// come from a. With bounds::lower, a's elements go before equal elements of b (a stable merge,
// as std::merge); with bounds::upper, b's go first.
template <bounds B = bounds::lower, typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE Int merge_path(AIt a, Int a_count, BIt b, Int b_count, Int diag, Comp comp) {
  detail::merge_path_search<B, AIt, BIt, Int, Comp> search(a, a_count, b, b_count, diag, comp);
  while (!search.done()) search.step();
  return search.begin;
}

// merge_path at two diagonals at once (the outputs [diag0, diag1) of one merge, say): both
// searches advance in one loop, so their loads overlap and the pair costs about the latency of
// one search. Sets x0 and x1 as merge_path would.
template <bounds B = bounds::lower, typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE void merge_path_pair(AIt a, Int a_count, BIt b, Int b_count, Int diag0, Int diag1, Comp comp, Int& x0,
                                      Int& x1) {
  detail::merge_path_search<B, AIt, BIt, Int, Comp> first(a, a_count, b, b_count, diag0, comp);
  detail::merge_path_search<B, AIt, BIt, Int, Comp> second(a, a_count, b, b_count, diag1, comp);
  while (!first.done() || !second.done()) {
    if (!first.done()) first.step();
    if (!second.done()) second.step();
  }
  x0 = first.begin;
  x1 = second.begin;
}

}  // namespace mgpu
