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

// Merge Path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple",
// 2012): how many of the first `diag` outputs of merging sorted a[0, a_count) and b[0, b_count)
// come from a. With bounds::lower, a's elements go before equal elements of b (a stable merge,
// as std::merge); with bounds::upper, b's go first.
template <bounds B = bounds::lower, typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE Int merge_path(AIt a, Int a_count, BIt b, Int b_count, Int diag, Comp comp) {
  Int begin = diag > b_count ? diag - b_count : Int(0);
  Int end = diag < a_count ? diag : a_count;
  while (begin < end) {
    Int mid = begin + (end - begin) / 2;
    // Does a[mid] come out before b[diag - 1 - mid]?
    bool a_first = B == bounds::upper ? comp(a[mid], b[diag - 1 - mid]) : !comp(b[diag - 1 - mid], a[mid]);
    if (a_first)
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

// merge_path at two diagonals at once (the outputs [diag0, diag1) of one merge, say): both
// searches advance in one loop, so their loads overlap and the pair costs about the latency of
// one search. Sets x0 and x1 as merge_path would.
template <bounds B = bounds::lower, typename AIt, typename BIt, typename Int, typename Comp>
MGPU_HOST_DEVICE void merge_path_pair(AIt a, Int a_count, BIt b, Int b_count, Int diag0, Int diag1, Comp comp, Int& x0,
                                      Int& x1) {
  Int begin0 = diag0 > b_count ? diag0 - b_count : Int(0), end0 = diag0 < a_count ? diag0 : a_count;
  Int begin1 = diag1 > b_count ? diag1 - b_count : Int(0), end1 = diag1 < a_count ? diag1 : a_count;
  auto a_first = [&](Int mid, Int diag) {
    return B == bounds::upper ? comp(a[mid], b[diag - 1 - mid]) : !comp(b[diag - 1 - mid], a[mid]);
  };
  // One halving of a search's range [begin, end), unless it is done.
  auto step = [&](Int& begin, Int& end, Int diag) {
    if (begin >= end) return;
    Int mid = begin + (end - begin) / 2;
    if (a_first(mid, diag))
      begin = mid + 1;
    else
      end = mid;
  };
  while (begin0 < end0 || begin1 < end1) {
    step(begin0, end0, diag0);
    step(begin1, end1, diag1);
  }
  x0 = begin0;
  x1 = begin1;
}

}  // namespace mgpu
