// mgpu/cta/search.hpp
//
// Binary search and Merge Path: the partitioning primitives every merge-like algorithm reuses.
// Usable on host and device, on any random-access range.
#pragma once

#include "../platform/config.hpp"
#include "../platform/intrinsics.hpp"

namespace mgpu {

// lower: the first position whose element is not less than the key (before any equal elements);
// upper: the first position whose element is greater than the key (after any equal elements).
enum class bounds { lower, upper };

namespace detail {
// A search in progress for the first position in [begin, end) at which go_right(position) is false
// (end when there is none), go_right being true on a prefix of the range: the answer lies in
// [begin, end] and is begin once begin == end. Each kind of search below provides go_right; the
// same object is then run by one thread (halve) or by a group of lanes (group_search).
template <typename Int>
struct search_range {
  Int begin, end;
  MGPU_HOST_DEVICE bool done() const { return begin >= end; }
};

// One step of a search by one thread: halves [begin, end).
template <typename Search>
MGPU_HOST_DEVICE void halve(Search& s) {
  auto mid = s.begin + (s.end - s.begin) / 2;
  if (s.go_right(mid))
    s.begin = mid + 1;
  else
    s.end = mid;
}

// std::lower_bound (lower) or std::upper_bound (upper) of key in data[0, count).
template <bounds B, typename It, typename Int, typename Key, typename Comp>
struct bound_search : search_range<Int> {
  It data;
  Key key;
  Comp comp;
  MGPU_HOST_DEVICE bound_search(It data_, Int count, const Key& key_, Comp comp_)
      : search_range<Int>{Int(0), count}, data(data_), key(key_), comp(comp_) {}
  MGPU_HOST_DEVICE bool go_right(Int mid) const {
    return B == bounds::upper ? !comp(key, data[mid]) : comp(data[mid], key);
  }
};
}  // namespace detail

// std::lower_bound / std::upper_bound over data[0, count).
template <bounds B, typename It, typename Int, typename Key, typename Comp>
MGPU_HOST_DEVICE Int binary_search(It data, Int count, const Key& key, Comp comp) {
  detail::bound_search<B, It, Int, Key, Comp> search(data, count, key, comp);
  while (!search.done()) detail::halve(search);
  return search.begin;
}

namespace detail {
// One Merge Path search in progress (see merge_path): how many of the diagonal's elements come
// from a.
template <bounds B, typename AIt, typename BIt, typename Int, typename Comp>
struct merge_path_search : search_range<Int> {
  AIt a;
  BIt b;
  Int diag;
  Comp comp;
  MGPU_HOST_DEVICE merge_path_search(AIt a_, Int a_count, BIt b_, Int b_count, Int diag_, Comp comp_)
      : search_range<Int>{diag_ > b_count ? diag_ - b_count : Int(0), diag_ < a_count ? diag_ : a_count},
        a(a_),
        b(b_),
        diag(diag_),
        comp(comp_) {}
  // Does a[mid] come out before b[diag - 1 - mid]?
  MGPU_HOST_DEVICE bool go_right(Int mid) const {
    return B == bounds::upper ? comp(a[mid], b[diag - 1 - mid]) : !comp(b[diag - 1 - mid], a[mid]);
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
  while (!search.done()) detail::halve(search);
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
    if (!first.done()) detail::halve(first);
    if (!second.done()) detail::halve(second);
  }
  x0 = first.begin;
  x1 = second.begin;
}

namespace detail {
// One thread's search that first halves over the multiples of `grid` in [begin, end) only, then
// over what is left (fewer than grid positions). Where many searches run at once, probes on a
// common grid are loads of the same few addresses, which stay in L2, and only the last
// log2(grid) steps of each search reach DRAM. So it is for the partitions of a merge: diagonals
// at multiples of the spacing S probe a[j S] and b[k S - 1] until the last steps; with plain
// halving every probe of every search is an address of its own (each search of a 2^28-element
// merge read 2.7 KB from DRAM on an H100). Same answer as halve()'s; grid >= 1.
template <typename Search, typename Int>
MGPU_HOST_DEVICE void halve_on_grid(Search& s, Int grid) {
  // Candidates j * grid in [begin, end): j in [lo, hi).
  Int lo = (s.begin + grid - 1) / grid, hi = (s.end + grid - 1) / grid;
  while (lo < hi) {
    Int mid = lo + (hi - lo) / 2;
    if (s.go_right(mid * grid)) {
      s.begin = mid * grid + 1;
      lo = mid + 1;
    } else {
      s.end = mid * grid;
      hi = mid;
    }
  }
  while (!s.done()) halve(s);
}

// A search (bound_search, merge_path_search, or any type with begin, end, done() and go_right as
// search_range describes) run by a group of `lanes` consecutive lanes of a warp together: each
// step the group probes lanes - 1 evenly spaced positions of [begin, end) at once, and a ballot
// keeps the one of the `lanes` pieces that holds the answer. A search of n positions takes
// log_lanes(n) steps instead of log_2(n): a warp settles 2^30 positions in 6 steps where one
// thread takes 30. A step's probes are independent loads, so it costs about one load latency, at
// lanes - 1 times the loads of a halving. (The pieces are a power of two in number so that the
// probes cost shifts: with 64-bit divisions, lanes + 1 pieces made a merge of 2^20 elements
// 1.32x faster than halving partitions did; with shifts, 1.53x.)
//
// Preconditions: lanes is a power of two in [1, 32]; every lane of the warp calls this (a
// ballot), each group of lanes aligned to a multiple of lanes holding copies of one search. With
// one lane, the search halves its range. On return each lane's copy has begin == end == the
// answer.
template <typename Search>
MGPU_DEVICE void group_search(Search& s, int lanes) {
  using Int = decltype(s.begin);
  if (lanes == 1) {
    while (!s.done()) halve(s);
    return;
  }
  const int lane = lane_id() & (lanes - 1), shift = __ffs(lanes) - 1;
  const int group_first = lane_id() - lane;
  const unsigned group_votes = lanes == warp_size ? full_warp_mask : (1u << lanes) - 1u;
  // The j-th probe (j < lanes - 1) of [begin, begin + size): begin + floor(size * (j + 1) / lanes),
  // computed without forming size * (j + 1).
  auto probe = [&](Int size, int j) {
    return s.begin + (size >> shift) * Int(j + 1) + (((size & Int(lanes - 1)) * Int(j + 1)) >> shift);
  };
  while (__any_sync(full_warp_mask, !s.done())) {
    Int size = s.end - s.begin;
    bool right = !s.done() && lane < lanes - 1 && s.go_right(probe(size, lane));
    // go_right holds on a prefix, so the group's votes are its first `passed` probes.
    int passed = __popc((__ballot_sync(full_warp_mask, right) >> group_first) & group_votes);
    if (!s.done()) {
      Int begin = passed > 0 ? probe(size, passed - 1) + 1 : s.begin;
      Int end = passed < lanes - 1 ? probe(size, passed) : s.end;
      s.begin = begin;
      s.end = end;
    }
  }
}
}  // namespace detail

namespace detail {
// Two searches (bound_search, merge_path_search, or any type that group_search runs) run by a CTA
// at once: two groups of lanes (32 each from the first two warps; 16 each in one warp when NT is
// 32) take one search each (group_search), and every thread receives both answers through
// `shared` (two Ints). A search of n positions costs the CTA about log_32(n) dependent loads
// before its real work starts, where a partition pass costs a launch and the wait for its end:
// cheaper while the grid's CTAs run in one or two waves, dearer beyond (search_in_ctas in
// algorithms/partition.hpp). Call with every thread of the CTA; it syncs the CTA. `shared` must
// not be written again before the CTA's next barrier.
template <int NT, typename Search, typename Int>
MGPU_DEVICE void cta_search_pair(int tid, const Search& first, const Search& second, Int* shared, Int& x0, Int& x1) {
  static_assert(NT % warp_size == 0, "CTAs of whole warps");
  constexpr int lanes = NT >= 2 * warp_size ? warp_size : warp_size / 2;
  if (tid < 2 * lanes) {
    Search search = tid < lanes ? first : second;
    group_search(search, lanes);
    if (tid % lanes == 0) shared[tid / lanes] = search.begin;
  }
  __syncthreads();
  x0 = shared[0];
  x1 = shared[1];
}
}  // namespace detail

// merge_path at a CTA's two diagonals (its outputs [diag0, diag1) of one merge, say), found by
// the CTA itself instead of a partition pass: two groups of lanes run the two searches side by
// side (detail::cta_search_pair above: about log_32(n) dependent loads for n positions), and
// every thread receives both answers through `shared` (two Ints of shared memory). Call with
// every thread of the CTA; it syncs the CTA. `shared` must not be written again before the CTA's
// next barrier.
template <int NT, bounds B = bounds::lower, typename AIt, typename BIt, typename Int, typename Comp>
MGPU_DEVICE void cta_merge_path_pair(int tid, AIt a, Int a_count, BIt b, Int b_count, Int diag0, Int diag1, Comp comp,
                                     Int* shared, Int& x0, Int& x1) {
  using search_t = detail::merge_path_search<B, AIt, BIt, Int, Comp>;
  detail::cta_search_pair<NT>(tid, search_t(a, a_count, b, b_count, diag0, comp),
                              search_t(a, a_count, b, b_count, diag1, comp), shared, x0, x1);
}

// binary_search<B> of two keys in data[0, count) (where a tile's range of sorted positions starts
// and ends, say), found by the CTA itself as cta_merge_path_pair finds its two splits, with the
// same requirements.
template <int NT, bounds B = bounds::lower, typename It, typename Int, typename Key, typename Comp>
MGPU_DEVICE void cta_binary_search_pair(int tid, It data, Int count, const Key& key0, const Key& key1, Comp comp,
                                        Int* shared, Int& x0, Int& x1) {
  using search_t = detail::bound_search<B, It, Int, Key, Comp>;
  detail::cta_search_pair<NT>(tid, search_t(data, count, key0, comp), search_t(data, count, key1, comp), shared, x0,
                              x1);
}

}  // namespace mgpu
