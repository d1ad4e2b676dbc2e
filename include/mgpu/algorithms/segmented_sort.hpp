// mgpu/algorithms/segmented_sort.hpp
//
// segmented_sort: sorts each segment of an array independently (stable within each segment).
//
// 1. Blocksort: every tile sorts its segments (cta_segmented_sort; a tile with no head inside
//    lies in one segment and takes the plain cta_sort; where the segments average at most 16
//    keys, a tile whose segments are all that short takes cta_short_segment_sort, a thread a
//    segment, and skips the merge rounds), so every segment that lies inside one
//    tile is finished, in the caller's array, after one pass. A segment no longer than a tile
//    crosses at most one tile boundary: the CTA of the tile where it ends waits until the tile
//    before has stored its half (tiles wait only on lower-numbered tiles, as in a decoupled
//    look-back) and merges the two halves. Segments of up to NV keys are then done.
// 2. Merge levels, only for longer segments. Level k merges, in each pair of runs of 2^k tiles,
//    the one long segment (if any) that straddles the pair's middle, restricted to the pair
//    (Merge Path over that range only). Finished segments are never touched again: merges that
//    never cross a segment boundary are skipped, and so is all their data. All levels run in one
//    launch of one wave of CTAs, which claim the levels' work in order and plan their tiles, working
//    only on those with something to do; a level waits for the one before (on the device), and the
//    levels above the highest one any segment needs (found on the device) are skipped.
// 3. Ping-pong per segment, not per level: a segment is written at the blocksort and at every
//    level up to the last one at which it still straddles a middle (a multiple of NV << k inside
//    it); counting back from that last write, which goes to the caller's array, fixes for every
//    level which of the two arrays it reads and writes. A segment that is merely carried through
//    a level (it continues beyond the pair) is copied. Nothing is copied back at the end.
// A single segment therefore costs about what mergesort costs; segments of up to a tile cost one
// blocksort and a level launch that ends at once, whatever the size. An input of one tile is its
// blocksort alone: one launch, no temporaries (and the plain blocksort if it is one segment).
// By heads, an input of one tile or of at most NT tiles whose segments average at most
// warp_segment_max keys (256 for 4-byte keys and values) takes a CTA per NT / 32 segments in place of the
// blocksort: a warp sorts each segment of up to 32 keys in registers (warp_sort), one of up to
// warp_segment_max by a merge sort of its own, and only a CTA holding a longer one runs the
// blocksort's code on it. With several tiles the same kernel also finds the tiles' ends and sorts
// the tiles' parts of the segments longer than a tile (the levels merge them): two launches in all.
// Past 12 NT tiles (about 2^23 4-byte keys), segments that average 17 to group_segment_max keys
// (384 for 4-byte keys alone) take batches of segments instead, a few a warp, each sorted by a group
// of as few lanes as its length allows (1 to 32, up to 12 keys a lane), in a kernel of their own
// after the tiles' ends; a third launch sorts what they deferred (batches with a longer segment,
// tiles' parts of segments longer than a tile) with the blocksort's code.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/segments.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/cta_sort.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/search.hpp"
#include "merge.hpp"
#include "mergesort.hpp"
#include "partition.hpp"
#include "preconditions.hpp"
#include "scan.hpp"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace mgpu {

// The mergesort's tiles (bench/tune.cu segshapes: smaller CTAs, <128, 15>, sort short segments up to
// 15% faster but a single long segment 10% slower). Keys alone: no minimum of CTAs an SM (the
// blocksort takes its own, below). Pairs (and indices) of at most 8 bytes: 4 CTAs an SM (64
// registers) for the blocksort and the merge levels alike, where the blocksort took what it liked
// and the levels a cap for 5 CTAs: on an H200, 10^6 to 2^23 pairs in one segment, half in one,
// segments of 2^14 and 2^20, 0.83x-0.94x the time; 2^24 and 2^26, the levels alone at 4 CTAs, one
// segment 0.89x, segments of 2^14 0.97x-0.99x, at 6 CTAs 1.2x-1.5x
// (bench/results/2026-12-03_h200_segsort_level_grid_caps.txt).
template <typename K, typename V = empty_t>
using segmented_sort_params = launch_params<mergesort_params<K, V>::nt, mergesort_params<K, V>::vt,
                                            (has_values_v<V> && sizeof(K) + sizeof(V) <= 8 ? 4 : 0)>;

// The merge levels' CTAs of a segmented sort of more than segmented_sort_large_threshold 4-byte
// keys alone, when no shape is given: on sm_90 128 x 22 (the blocksort's tile, in half the
// threads: a thread merges twice the keys a Merge Path search, as mergesort_large_params's do);
// elsewhere segmented_sort_params. On an H200 (bench/results/2026-12-03_h200_segsort_level_shape.txt):
// 2^24 and 2^26 keys in one segment, half in one, segments of 2^20: 0.89x-0.94x the time, of 2^14
// 0.97x; 2^22 keys in half one segment 1.14x, hence the threshold; pairs 1.2x-1.9x; caps of 12-16
// CTAs an SM (spills) 1.15x-1.6x (..._segsort_level_grid_caps.txt).
template <typename K, typename V = empty_t>
using segmented_sort_large_level_params =
    std::conditional_t<(sizeof(K) <= 4 && !has_values_v<V>),
                       arch_params<segmented_sort_params<K, V>, launch_params<128, 22>>, segmented_sort_params<K, V>>;
constexpr std::int64_t segmented_sort_large_threshold = std::int64_t(1) << 23;

namespace detail {

// The segment [begin, end) that contains `position`.
struct segment_span {
  std::int64_t begin, end;
};
// The segments that hold a tile's first and last positions.
struct segment_ends {
  segment_span first, last;
};
// Indices [begin, end) into a list of heads: the heads a sorted range may hold.
struct head_range {
  std::int64_t begin, end;
};

// Device views that answer "which segment holds position p" and mark a tile's heads.
// By head indices: a binary search over the heads; each tile's heads come from the two searches
// that find its ends.
template <typename HeadIt>
struct head_index {
  static constexpr bool counts_heads = true;  // heads_of_tile's range holds every head of the tile
  HeadIt heads;
  std::int64_t num_heads, count;
  // Heads [tile_heads[t], tile_heads[t + 1]) lie in tile t (written by tile_ends); null for a
  // single tile (all of them).
  std::int64_t* tile_heads;

  MGPU_HOST_DEVICE segment_span around(std::int64_t position) const {
    return span_below(binary_search<bounds::upper>(heads, num_heads, position, less<>()), position);
  }
  // The segments at the two ends of tile `tile`, [t0, t1), of `tiles`: the heads after t1 - 1
  // start at the first head at or past t1, and those after t0 at the first at or past t0 or just
  // past the heads equal to t0. Two searches, which also make the tiles' partition: they record
  // tile_heads[tile] (and the last tile tile_heads[tiles] too), for the blocksort. By one thread,
  // or, ByWarp, by a whole warp (every lane calls, with the same arguments, and gets the answer):
  // the two searches side by side, each by 16 lanes (group_search, a 16-way split of the range
  // per dependent load), for sorts of a few tiles, on whose critical path the searches lie.
  template <bool ByWarp>
  MGPU_DEVICE segment_ends tile_ends(int tile, int tiles, std::int64_t t0, std::int64_t t1) const {
    std::int64_t i, next;
    if constexpr (ByWarp) {
      constexpr int group = warp_size / 2;
      bound_search<bounds::lower, HeadIt, std::int64_t, std::int64_t, less<>> search(
          heads, num_heads, lane_id() < group ? t0 : t1, less<>());
      group_search(search, group);
      i = shfl(search.begin, 0);
      next = shfl(search.begin, group);
    } else {
      next = binary_search<bounds::lower>(heads, num_heads, t1, less<>());
      i = binary_search<bounds::lower>(heads, num_heads, t0, less<>());
    }
    if (!ByWarp || lane_id() == 0) {
      tile_heads[tile] = i;
      if (tile + 1 == tiles) tile_heads[tiles] = next;
    }
    while (i < next && std::int64_t(heads[i]) <= t0) ++i;
    return segment_ends{span_below(i, t0), span_below(next, t1 - 1)};
  }
  // The segment holding `position`, given i, the number of heads at or before it.
  MGPU_HOST_DEVICE segment_span span_below(std::int64_t i, std::int64_t position) const {
    std::int64_t begin = i > 0 ? std::int64_t(heads[i - 1]) : 0;
    std::int64_t end = i < num_heads ? std::int64_t(heads[i]) : count;
    // Sorted heads in [0, count] need no clamping; unsorted ones (undefined behaviour in unchecked
    // mode) then still give a span around the position, inside the array.
    begin = begin < 0 ? 0 : begin > position ? position : begin;
    end = end > count ? count : end <= position ? position + 1 : end;
    return segment_span{begin, end};
  }
  // The heads of tile `tile`.
  MGPU_DEVICE head_range heads_of_tile(int tile) const {
    return tile_heads ? head_range{tile_heads[tile], tile_heads[tile + 1]} : head_range{0, num_heads};
  }
  // Sets head_at[p - t0] for every head p of `range` in [t0, t0 + valid). Returns whether this
  // thread marked a head past t0.
  template <int NT>
  MGPU_DEVICE bool mark_heads(int tid, head_range range, std::int64_t t0, int valid, int* head_at) const {
    // (The range check keeps unsorted heads, undefined in unchecked mode, inside the tile.)
    bool inside = false;
    for (std::int64_t h = range.begin + tid; h < range.end; h += NT) {
      std::int64_t p = std::int64_t(heads[h]) - t0;
      if (0 <= p && p < valid) head_at[p] = 1;
      inside |= 0 < p && p < valid;
    }
    return inside;
  }
};

// By a head-flag bitfield: within a word the bits answer directly; across words, two scans over
// the words (the last head at or before each word's end, the first head at or after each word's
// start) answer in O(1). A single tile needs only mark_heads (no scans: null arrays).
struct flag_index {
  static constexpr bool counts_heads = false;  // heads_of_tile says nothing
  const unsigned* flags;
  std::int64_t count, words;
  const std::int64_t* last_head_through;  // per word: the last head in this word or before, or -1
  const std::int64_t* first_head_from;    // per word: the first head in this word or after, or count

  MGPU_HOST_DEVICE segment_span around(std::int64_t position) const {
    std::int64_t w = position / 32;
    int bit = int(position % 32);
    unsigned through = bit == 31 ? ~0u : (2u << bit) - 1;  // bits 0..bit
    unsigned word = flags[w];
    std::int64_t begin = (word & through) ? w * 32 + highest_bit(word & through) : w > 0 ? last_head_through[w - 1] : 0;
    std::int64_t end = (word & ~through) ? w * 32 + trailing_zeros(word & ~through)
                       : w + 1 < words   ? first_head_from[w + 1]
                                         : count;
    return segment_span{begin > 0 ? begin : 0, end < count ? end : count};
  }
  // (ByWarp: every lane of a warp calls it, as head_index's; each finds the answer on its own.)
  template <bool ByWarp>
  MGPU_DEVICE segment_ends tile_ends(int, int, std::int64_t t0, std::int64_t t1) const {
    return segment_ends{around(t0), around(t1 - 1)};
  }
  MGPU_DEVICE head_range heads_of_tile(int) const { return head_range{0, 0}; }  // (the flags say)
  template <int NT>
  MGPU_DEVICE bool mark_heads(int tid, head_range, std::int64_t t0, int valid, int* head_at) const {
    bool inside = false;
    for (int j = tid; j < valid; j += NT) {
      head_at[j] = int(flags[(t0 + j) / 32] >> ((t0 + j) % 32) & 1);
      inside |= j > 0 && head_at[j];
    }
    return inside;
  }
};

// A segment index and the temporaries behind it.
template <typename View>
struct segment_index {
  View view;
  buffer<std::int64_t> a, b;
};

template <typename HeadIt>
segment_index<head_index<HeadIt>> make_segment_index(const char* fn, segment_heads<HeadIt> s, std::int64_t count,
                                                     int nv, context& ctx) {
  check_count(fn, "num_heads", s.num_heads);
  check_pointer(fn, "heads", s.heads, s.num_heads);
  if (ctx.checked()) check_sorted_indices(fn, "heads", s.heads, s.num_heads, 0, count, "[0, count]", false, ctx);
  // The tiles' partition of the heads, filled by the kernel that finds the tiles' ends.
  buffer<std::int64_t> tile_heads(count > nv ? div_up(count, std::int64_t(nv)) + 1 : 0, ctx);
  head_index<HeadIt> view{s.heads, s.num_heads, count, tile_heads.data()};
  return segment_index<head_index<HeadIt>>{view, std::move(tile_heads), buffer<std::int64_t>()};
}

// A word's own heads, with the bits at or past count cleared.
struct word_heads {
  const unsigned* flags;
  std::int64_t count;
  MGPU_HOST_DEVICE unsigned operator()(std::int64_t w) const {
    std::int64_t valid = count - 32 * w;
    return valid >= 32 ? flags[w] : flags[w] & ((1u << valid) - 1);
  }
};
// Per word w: its last head, or -1 if it has none.
struct last_head_in_word {
  word_heads heads;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t w) const {
    unsigned h = heads(w);
    return h ? 32 * w + highest_bit(h) : std::int64_t(-1);
  }
};
// Per word, counted from the right (i = 0 is the last word): its first head, or count if none.
struct first_head_in_word_from_right {
  word_heads heads;
  std::int64_t words;
  MGPU_HOST_DEVICE std::int64_t operator()(std::int64_t i) const {
    std::int64_t w = words - 1 - i;
    unsigned h = heads(w);
    return h ? 32 * w + trailing_zeros(h) : heads.count;
  }
};
// Stores the value for the i-th word from the right at its word.
struct store_from_right {
  std::int64_t* first;
  std::int64_t words;
  MGPU_HOST_DEVICE void operator()(std::int64_t v, std::int64_t i) const { first[words - 1 - i] = v; }
};

inline segment_index<flag_index> make_segment_index(const char* fn, segment_flags s, std::int64_t count, int nv,
                                                    context& ctx) {
  std::int64_t words = div_up(count, std::int64_t(32));
  check_pointer(fn, "flags", s.flags, words);
  if (count <= nv) return segment_index<flag_index>{flag_index{s.flags, count, words, nullptr, nullptr}, {}, {}};
  word_heads heads{s.flags, count};
  buffer<std::int64_t> last_through(words, ctx), first_from(words, ctx);
  inclusive_scan(make_load_iterator(last_head_in_word{heads}), words, last_through.data(), maximum<std::int64_t>(),
                 ctx);
  // First heads from the right: a scan over the words in reverse order.
  inclusive_scan(make_load_iterator(first_head_in_word_from_right{heads, words}), words,
                 make_store_iterator(store_from_right{first_from.data(), words}), minimum<std::int64_t>(), ctx);
  flag_index view{s.flags, count, words, last_through.data(), first_from.data()};
  return segment_index<flag_index>{view, std::move(last_through), std::move(first_from)};
}

// Whether a segment crosses a tile boundary but fits in one tile: the blocksort merges its halves.
MGPU_HOST_DEVICE bool short_crossing(segment_span s, int nv) {
  return s.end - s.begin <= nv && s.begin / nv != (s.end - 1) / nv;
}

// The last merge level that writes a segment: the largest k such that a multiple of NV << k lies
// strictly inside it (a pair's middle it straddles, or one it is carried across); -1 if it crosses
// no tile boundary (the blocksort finishes it). A short crossing is written twice by the
// blocksort kernel: its halves, then their merge, which counts as level 0 for the choice of arrays.
MGPU_HOST_DEVICE int last_level(segment_span s, int nv) {
  std::int64_t lo = s.begin / nv + 1, hi = (s.end - 1) / nv;  // tile boundaries inside, as indices
  if (s.end - s.begin < 2 || lo > hi) return -1;
  if (short_crossing(s, nv)) return 0;
  if (lo == hi) return trailing_zeros(std::uint64_t(lo));
  int differ = highest_bit(std::uint64_t(lo ^ hi));
  int lo_zeros = trailing_zeros(std::uint64_t(lo));
  return lo_zeros > differ ? lo_zeros : differ;
}

// Whether a segment whose last level is `last` is written to the caller's array at `level` (-1 is
// the blocksort): the last write is, and the array alternates back from there.
MGPU_HOST_DEVICE bool writes_caller(int last, int level) { return ((last - level) & 1) == 0; }

// The segments at a tile's two ends: the only ones that can cross its boundaries.
struct tile_segments {
  segment_span first, last;
  int first_level, last_level;
};

// What tile [t0, t1) with end segments e says of the merge levels: one more than the last level of
// the long segment that ends in it (each long segment is counted once, by the tile that holds its
// end), or 0.
MGPU_HOST_DEVICE unsigned top_level_from(const tile_segments& e, std::int64_t t0, std::int64_t t1, int nv) {
  return e.first.begin < t0 && e.first.end <= t1 && !short_crossing(e.first, nv) ? unsigned(e.first_level + 1) : 0u;
}

// Tile `tile`'s end segments (of `tiles` tiles of NV keys) and their last levels, from a segment
// index view (which, by heads, also records the tile's heads): by one thread, or, ByWarp, by
// every lane of a warp.
template <int NV, bool ByWarp, typename Index>
MGPU_DEVICE tile_segments find_tile_segments(const Index& index, int tile, int tiles, std::int64_t count) {
  const std::int64_t t0 = std::int64_t(tile) * NV, t1 = t0 + NV < count ? t0 + NV : count;
  const segment_ends found = index.template tile_ends<ByWarp>(tile, tiles, t0, t1);
  return tile_segments{found.first, found.last, last_level(found.first, NV), last_level(found.last, NV)};
}

// Every tile's end segments into ends[t], by a thread or (ByWarp) a warp each; and the blocksort's
// flags zeroed (stored[t]), with the four counters after them (the levels' three, and
// sort_segment_batches's count of deferred work).
template <int NV, bool ByWarp, typename Index>
void find_all_tile_segments(const Index& index, int tiles, std::int64_t count, tile_segments* ends, unsigned* stored,
                            unsigned* counters, context& ctx) {
  using ends_params = launch_params<128, 1>;
  constexpr int per_cta = ByWarp ? ends_params::nt / warp_size : ends_params::nt;
  cta_launch<ends_params>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        const int t = per_cta * cta + (ByWarp ? tid / warp_size : tid);
        if (t >= tiles) return;  // (the same for the whole warp)
        const tile_segments e = find_tile_segments<NV, ByWarp>(index, t, tiles, count);
        if (!ByWarp || tid % warp_size == 0) {
          ends[t] = e;
          stored[t] = 0;
          if (t == 0)
            for (int i = 0; i < 4; ++i) counters[i] = 0;
        }
      },
      div_up(tiles, per_cta), ctx);
}

// The CTAs per SM that `threads` threads per SM make with CTAs of NT threads, within the
// hardware's limit of 32: a launch_params min_ctas, which caps a kernel's registers.
constexpr int ctas_per_sm_for(int threads, int nt) { return threads / nt < 32 ? threads / nt : 32; }

// What a tile does at one merge level: merge its part of the straddling segment's range
// [region_begin, region_end) around `middle`, whose a-side starts at a_begin and ends at a_end
// in this tile.
struct level_tile {
  std::int64_t region_begin, region_end, middle, a_begin, a_end;
  int level_of_region;  // last_level of the straddling segment
  int carry;            // bit 0: the tile's first segment is carried through the level; bit 1: its last

  // Whether tile [t0, t1) holds outputs of the region's merge.
  MGPU_HOST_DEVICE bool merges(std::int64_t t0, std::int64_t t1) const {
    return level_of_region >= 0 && region_begin < t1 && t0 < region_end;
  }
};

// A tile's part of merge level `level`, all but its Merge Path split (region_split, or for a
// batch of a few tiles level_split_search by groups of lanes): the segment straddling its run
// pair's middle (found in `ends`: the segment that holds the middle is the first segment of the
// tile starting there) and which of the tile's end segments are carried through the level.
template <int NV>
MGPU_HOST_DEVICE level_tile plan_level_tile(std::int64_t t, int level, std::int64_t count, const tile_segments* ends) {
  run_pair pair(t * NV, std::int64_t(NV) << level, count);
  std::int64_t middle = pair.a_end;
  level_tile lt{0, 0, middle, 0, 0, -1, 0};
  if (middle < count) {
    segment_span s = ends[middle / NV].first;
    if (s.begin < middle && !short_crossing(s, NV)) {
      lt.region_begin = s.begin > pair.first ? s.begin : pair.first;
      lt.region_end = s.end < pair.b_end ? s.end : pair.b_end;
      lt.level_of_region = last_level(s, NV);
    }
  }
  // Segments that continue beyond the pair are carried through the level: copied. (The
  // straddling segment's part of the tile lies in the region and is merged instead.)
  tile_segments e = ends[t];
  auto carried = [&](segment_span s, int last) {
    bool straddles = lt.level_of_region >= 0 && s.begin < middle && middle < s.end;
    return last >= level && !straddles && !short_crossing(s, NV);
  };
  lt.carry = (carried(e.first, e.first_level) ? 1 : 0) |
             (e.last.begin != e.first.begin && carried(e.last, e.last_level) ? 2 : 0);
  return lt;
}

// The Merge Path search for where tile [t0, t1)'s outputs of its region's merge start (end_side
// false) or end on the a side, over `keys`, or keys_alt where the region's segment is written to
// the caller's array at this level (those read from keys_alt). For a tile that does not merge, a
// search that is already done.
template <typename K, typename Comp>
MGPU_DEVICE merge_path_search<bounds::lower, const K*, const K*, std::int64_t, Comp> level_split_search(
    const level_tile& lt, bool end_side, std::int64_t t0, std::int64_t t1, int level, const K* keys, const K* keys_alt,
    Comp comp) {
  const bool merges = lt.merges(t0, t1);
  const K* src = writes_caller(lt.level_of_region, level) ? keys_alt : keys;
  const std::int64_t diag = region_diagonal(end_side ? t1 : t0, lt.region_begin, lt.region_end);
  return {src + lt.region_begin, merges ? lt.middle - lt.region_begin : 0,
          src + lt.middle,       merges ? lt.region_end - lt.middle : 0,
          merges ? diag : 0,     comp};
}

// The threads a level's Merge Path search gets in a batch of `batch` tiles (two searches a tile)
// of a CTA of NT threads: groups of lanes (group_search) where the batch leaves room for four or
// more each, else 1 (each thread runs its own tile's pair of searches, their loads overlapping).
template <int NT>
MGPU_HOST_DEVICE int level_split_lanes(int batch) {
  int lanes = warp_size;
  while (lanes > 1 && 2 * batch * lanes > NT) lanes /= 2;
  return lanes >= 4 ? lanes : 1;
}

// Keys a lane holds in the groups of lanes that sort short segments (sort_segment_group): 48 bytes
// of keys alone (12 of 4 bytes), 40 of the larger of key and value for pairs (10 of 4 bytes: the
// form measured; at least 1), so that a CTA's 8 warps keep their groups' runs in at most about
// 13 KiB of shared memory. Not a power of two: the runs' stores and merges meet fewer bank
// conflicts (on an H200, 2^26 keys in segments of 128 by groups of 16 lanes of 8 keys took 0.50
// ms, in segments of 160 by 16 lanes of 10, 0.34 ms:
// bench/results/2026-12-03_h200_segsort_groups_of_lanes.txt).
template <typename K, typename V>
constexpr int group_sort_vt() {
  constexpr int bytes = int(sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V));
  constexpr int vt = (has_values_v<V> ? 40 : 48) / bytes;
  return vt > 12 ? 12 : vt < 1 ? 1 : vt;
}
// The longest segment a group of lanes sorts: a whole warp's.
template <typename K, typename V>
constexpr int group_segment_max() {
  return warp_size * group_sort_vt<K, V>();
}
// Past group_min_tiles * NT tiles (about 2^23 keys with the default tiles of 4-byte keys: 12 * 256
// tiles of 2816), segments by heads that average more than group_min_average keys (shorter ones:
// the blocksort's tiles of a thread a segment) and at most group_segment_max take
// sort_segment_batches.
constexpr int group_min_tiles = 12;
constexpr std::int64_t group_min_average = 16;

// Keys a lane holds where a warp sorts a segment of 33 keys or more on its own (sort_short_segments):
// up to 8, fewer for larger keys or values, so that the 8 warps of a CTA keep their runs in about 8
// KiB of shared memory beside the blocksort's (within the 48 KiB a kernel may declare); below 2,
// none (segments of more than 32 keys then take the blocksort's code).
template <typename K, typename V>
constexpr int warp_merge_vt() {
  constexpr int bytes = int(sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V));
  constexpr int vt = 8 * 1024 / (8 * warp_size * bytes);
  return vt > 8 ? 8 : vt < 2 ? 1 : vt;
}
// The longest segment a warp sorts on its own in sort_short_segments.
template <typename K, typename V>
constexpr int warp_segment_max() {
  return warp_merge_vt<K, V>() > 1 ? warp_size * warp_merge_vt<K, V>() : warp_size;
}

// A warp's groups' shared memory: for groups of G lanes, 32 / G runs of G * VT + 1 keys (or
// values); a group of one lane merges nothing.
template <int VT, typename K, typename V>
union group_sort_storage {
  K keys[warp_size * VT + warp_size / 2];
  V values[warp_size * VT + warp_size / 2];
};

// One pass of a warp over segments [first, last) of a batch whose boundaries are bounds[]: lanes
// [G g, G g + G) sort segment first + g (for g < 32 / G), VT keys a lane in thread order (a merge
// sort of G lanes, log2(G) rounds in the group's shared memory: cta_sort::sort_group), and write
// it back in place (every load before the first store). Every lane of the warp calls, with the
// same arguments; each of those segments holds at most G * VT keys. (G is a run-time value: with
// one copy of the code per group size the kernel took 118 registers, with one, about 40.)
template <int VT, typename K, typename ValuesIn, typename V, typename Comp>
MGPU_DEVICE void sort_segment_group(int lane, int G, const std::int64_t* bounds, int first, int last, K* keys,
                                    ValuesIn values_in, V* values, group_sort_storage<VT, K, V>& storage, Comp comp) {
  const int g = lane / G, rank = lane % G, segment = first + g;
  const std::int64_t begin = segment < last ? bounds[segment] : 0;
  const int length = segment < last ? int(bounds[segment + 1] - begin) : 0;
  array_t<K, VT> k;
  array_t<V, VT> v;
  if (length > 0) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      const std::int64_t at = begin + (VT * rank + i < length ? VT * rank + i : 0);
      k[i] = keys[at];
      if constexpr (has_values_v<V>) v[i] = values_in[at];
    }
  }
  const int run = G > 1 ? g * (G * VT + 1) : 0;  // (a lane alone needs no shared memory)
  cta_sort<warp_size, VT, K, V>::sort_group(k, v, storage.keys + run, storage.values + run, rank, G, length, comp);
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) {
    if (VT * rank + i < length) {
      keys[begin + VT * rank + i] = k[i];
      if constexpr (has_values_v<V>) values[begin + VT * rank + i] = v[i];
    }
  }
}

// How sort_segment_batches cuts segments by heads into batches: segments
// [h(s - 1), h(s)) numbered s = 0 .. num_heads (h(-1) = 0, h(num_heads) = count), batches of
// `size` consecutive ones, per_warp a warp of a CTA of NT threads: the most, a power of two up to
// 32, whose average keys fit in a warp's 32 * VT, so that segments of 8 go 32 to a warp, of 96
// four, and a pass of groups of lanes (32 / G segments) is not left half empty by the warp's last
// (on an H200, 2^26 keys in segments of 64 took 0.62 ms six to a warp, the last pass's groups half
// idle; segments of 96, four to a warp, 0.35 ms).
struct segment_batching {
  int per_warp, size;
  std::int64_t batches;
  template <int NT, int VT>
  static segment_batching of(std::int64_t count, std::int64_t num_heads) {
    const std::int64_t average = count / (num_heads + 1);
    int per_warp = 1;
    while (per_warp < warp_size && 2 * per_warp * average <= warp_size * VT) per_warp *= 2;
    const int size = NT / warp_size * per_warp;
    return segment_batching{per_warp, size, div_up(num_heads + 1, std::int64_t(size))};
  }
};

// Batch `batch`'s segments: [first, last), and their boundaries in bounds[0, last - first], read
// from the heads once, kept inside [0, count] (unsorted heads, undefined in unchecked mode, must
// still leave every access inside the arrays). Returns, after a barrier, whether one of them is
// longer than Max keys (every thread of the CTA calls).
template <int NT, int Max, typename HeadIt>
MGPU_DEVICE bool load_batch(int tid, std::int64_t batch, int size, HeadIt heads, std::int64_t num_heads,
                            std::int64_t count, std::int64_t* bounds, std::int64_t& first, std::int64_t& last) {
  first = batch * size;
  last = first + size < num_heads + 1 ? first + size : num_heads + 1;
  for (int i = tid; i <= int(last - first); i += NT) {
    const std::int64_t s = first + i;
    const std::int64_t h = s <= 0 ? 0 : s > num_heads ? count : std::int64_t(heads[s - 1]);
    bounds[i] = h < 0 ? 0 : h > count ? count : h;
  }
  __syncthreads();
  return __syncthreads_or(tid < last - first && bounds[tid + 1] - bounds[tid] > Max);
}

// A warp's segments of a batch of n (bounds[0, n]), per_warp from the warp's first, in passes: each
// pass by groups of G lanes, G the least power of two for which the next 32 / G segments all fit in
// G * VT keys (sort_segment_group). Every lane of the warp calls; no segment is longer than 32 * VT.
template <int VT, typename K, typename ValuesIn, typename V, typename Comp>
MGPU_DEVICE void sort_warp_segments(int tid, const std::int64_t* bounds, int n, int per_warp, K* keys,
                                    ValuesIn values_in, V* values, group_sort_storage<VT, K, V>& storage, Comp comp) {
  const int lane = tid % warp_size, warp = tid / warp_size;
  const int w0 = warp * per_warp < n ? warp * per_warp : n, w1 = w0 + per_warp < n ? w0 + per_warp : n;
  for (int i = w0; i < w1;) {
    const int j = i + lane;
    const std::int64_t length = j < w1 ? bounds[j + 1] - bounds[j] : 0;
    int G = 1;
    while (G < warp_size && !__all_sync(0xffffffffu, lane >= warp_size / G || length <= G * VT)) G *= 2;
    sort_segment_group<VT>(lane, G, bounds, i, w1, keys, values_in, values, storage, comp);
    i += warp_size / G;
  }
}

// The next piece of a batch [first, last) with a segment too long for its warp, from
// segment s: [r0, r1), as many consecutive segments as fit in NV keys, and the heads it may hold;
// e, the segment after it. A segment longer than NV is, with several tiles (`tiled`), its tiles'
// parts' (an empty piece), else cut to NV (unsorted heads, undefined in unchecked mode).
struct batch_piece {
  std::int64_t r0, r1, e;
  head_range range;
};
template <int NV>
MGPU_DEVICE batch_piece next_batch_piece(const std::int64_t* bounds, std::int64_t s, std::int64_t first,
                                         std::int64_t last, std::int64_t num_heads, bool tiled) {
  const std::int64_t r0 = bounds[s - first];
  std::int64_t e = s + 1, r1 = r0;
  if (!tiled || bounds[e - first] - r0 <= NV) {
    for (; e < last && bounds[e + 1 - first] - r0 <= NV;) ++e;
    r1 = bounds[e - first];
  }
  return batch_piece{r0, r1, e, head_range{s > 0 ? s - 1 : 0, e < num_heads ? e : num_heads}};  // h(s - 1) = r0 ..
}
// Tile `tile`'s part of its first (which = 0) or last (1) end segment, one longer than a tile.
template <int NV>
MGPU_DEVICE batch_piece tile_part(const tile_segments& ends, int which, int tile, std::int64_t count) {
  const segment_span seg = which == 0 ? ends.first : ends.last;
  const std::int64_t t0 = std::int64_t(tile) * NV, t1 = t0 + NV < count ? t0 + NV : count;
  return batch_piece{seg.begin > t0 ? seg.begin : t0, seg.end < t1 ? seg.end : t1, 0, head_range{}};
}

// Segments by heads that average at most warp_segment_max keys, in one tile or at most NT tiles:
// CTAs of NT / 32 warps take NT / 32 consecutive segments, a warp each. A warp sorts a segment of at
// most 32 keys in registers (warp_sort), one of at most warp_segment_max keys by a merge sort of its
// own (sort_segment_group of the whole warp, warp_merge_vt keys a lane: up to five merge rounds in
// the warp's shared memory), and writes it back in place; a CTA with a longer segment among its own
// sorts their whole range with `sort_range`, in pieces of at most NV keys that begin and end on
// segment boundaries. Shared memory is touched only where a segment is longer than 32 keys. With
// several tiles (`ends` not null) CTA t also finds tile t's end segments, for the merge levels
// (ends[t]; CTA 0 zeroes the levels' two counters, level_counters[0, 2)), and sorts tile t's parts
// of the segments longer than a tile (`sort_range` on a part, before its segments), which the warps
// leave alone: no launch before this one and no decision across the grid, where finding the ends
// first took a launch whose host cost (about 3.4 us on the H100's host) showed in calls of 10^4
// keys. Returns false, launching nothing, where the grid for several tiles would take more than
// three waves of CTAs: on an H100 (2 CTAs an SM: the blocksort's code takes about 120 registers)
// 10^5 int keys in segments of 16 (2.96 waves) sorted 1.08x faster than by the blocksort, in
// segments of 8 (5.9 waves) 1.21x slower (bench/results/2026-11-27_h100_segsort_warp_tiles_ab.txt).
// (Up to 10^6 keys, these inputs are latency-bound: batches of several segments a warp, by groups
// of lanes, were 0.74x-0.87x as fast at 10^3-10^5 keys in segments of 32 to 256:
// bench/results/2026-12-03_h200_segsort_groups_of_lanes.txt.)
template <typename P, int NV, typename K, typename ValuesIn, typename V, typename HeadIt, typename SortRange,
          typename Comp>
bool sort_short_segments(K* keys, ValuesIn values_in, V* values, std::int64_t count, segment_heads<HeadIt> segments,
                         head_index<HeadIt> index, tile_segments* ends, unsigned* level_counters, int tiles,
                         SortRange sort_range, Comp comp, context& ctx) {
  constexpr int warps = P::nt / warp_size;
  constexpr int longest = warp_segment_max<K, V>() < NV ? warp_segment_max<K, V>() : NV;
  const HeadIt heads = segments.heads;
  const std::int64_t num_heads = segments.num_heads;
  const std::int64_t groups = num_heads / warps + 1;  // of `warps` segments: num_heads + 1 of them
  auto sort_group = [=] MGPU_LAMBDA(int tid, int cta) {
    // Copies read by every branch below (nvcc forbids a first capture inside `if constexpr`).
    ValuesIn group_values_in = values_in;
    V* group_values = values;
    K* group_keys = keys;
    const Comp group_comp = comp;
    // Several tiles: tile `cta`'s end segments, and how many of them are longer than a tile.
    __shared__ tile_segments tile_ends;
    int parts = 0;
    if (ends && cta < tiles) {
      if (tid < warp_size) {
        const tile_segments e = find_tile_segments<NV, true>(index, cta, tiles, count);
        if (tid == 0) {
          tile_ends = e;
          ends[cta] = e;
          if (cta == 0) level_counters[0] = level_counters[1] = 0;
        }
      }
      __syncthreads();
      const tile_segments e = tile_ends;
      parts =
          int(e.first.end - e.first.begin > NV) + int(e.last.begin != e.first.begin && e.last.end - e.last.begin > NV);
    }
    // The group's segment boundaries: read from shared memory, not as chains of dependent loads.
    __shared__ std::int64_t bounds[warps + 1];
    // Step k < parts sorts the tile's k-th part of a long segment; the steps after it, the CTA's
    // groups. (sort_range is called from one place only: with a second inlined copy of the
    // blocksort's code ptxas spilled in this kernel.)
    for (int k = 0;; ++k) {
      const bool part = k < parts;
      const std::int64_t group = cta + std::int64_t(k - parts) * gridDim.x;
      if (!part && group >= groups) break;
      std::int64_t first = 0, last = 0;
      if (part || load_batch<P::nt, longest>(tid, group, warps, heads, num_heads, count, bounds, first, last)) {
        // The blocksort's code, on the tile's part of a long segment, or on the group in pieces
        // (every thread computes the same ones).
        for (std::int64_t s = first, e = last; part || s < last; s = e) {
          batch_piece piece{};
          int which = -1;  // a part: 0 for the tile's first segment, 1 for its last
          if (part) {
            const tile_segments te = tile_ends;
            which = k == 0 && te.first.end - te.first.begin > NV ? 0 : 1;
            piece = tile_part<NV>(te, which, cta, count);
          } else {
            piece = next_batch_piece<NV>(bounds, s, first, last, num_heads, ends != nullptr);
            e = piece.e;
          }
          if (piece.r1 > piece.r0)
            sort_range(tid, cta, piece.r0, int(piece.r1 - piece.r0 < NV ? piece.r1 - piece.r0 : NV), !part, piece.range,
                       which);
          if (part) break;
        }
      } else {
        const int warp = tid / warp_size, lane = tid % warp_size;
        const std::int64_t begin = bounds[warp < last - first ? warp : 0];
        const int length = warp < last - first ? int(bounds[warp + 1] - begin) : 0;
        if (length > warp_size) {  // (the same for the whole warp)
          if constexpr (warp_merge_vt<K, V>() > 1) {
            constexpr int wvt = warp_merge_vt<K, V>();
            __shared__ group_sort_storage<wvt, K, V> warp_storage[warps];
            sort_segment_group<wvt>(lane, warp_size, bounds, warp, int(last - first), group_keys, group_values_in,
                                    group_values, warp_storage[warp], group_comp);
          }
        } else if (length > 0) {  // (the same for the whole warp; a segment of one still gets its value)
          warp_sorted<K> sorted = warp_sort(group_keys[begin + (lane < length ? lane : 0)], length, group_comp);
          if constexpr (has_values_v<V>) {
            // The values are fetched by source position, which the warp's writes would overwrite.
            V value = group_values_in[begin + (lane < length ? sorted.source : 0)];
            __syncwarp();
            if (lane < length) group_values[begin + lane] = value;
          }
          if (lane < length) group_keys[begin + lane] = sorted.key;
        }
      }
      __syncthreads();
    }
  };
  const std::int64_t grid = groups > tiles ? groups : tiles;
  if (ends && grid > 3 * std::int64_t(one_wave<P, decltype(sort_group)>(std::numeric_limits<int>::max(), ctx)))
    return false;
  // (A single tile may hold more than 2^34 segments, almost all empty: its CTAs then take several
  // groups each.)
  constexpr std::int64_t max_grid = std::numeric_limits<int>::max();
  cta_launch<P>(sort_group, int(grid < max_grid ? grid : max_grid), ctx);
  return true;
}

// Segments by heads that average at most group_segment_max keys, in more than NT tiles whose ends
// are known (ends[t], from find_all_tile_segments, which zeroed the counters): two launches, so
// that the groups of lanes run in a kernel of their own, without the blocksort's registers (on an
// H200, 2^26 keys in segments of 96: 0.35 ms so, 1.28 ms where the groups shared a kernel of 127
// registers with the blocksort's code, that form with a copy of the pass per group size). The
// first, a CTA a batch (segment_batching), sorts each batch by groups of lanes (sort_warp_segments)
// and, for tile t, records the highest merge level its ends need (counters[0]); it defers to the
// second the batches with a longer segment and the tiles' parts of segments longer than a tile,
// listing them in deferred[0, counters[3]). The second, one wave of CTAs, runs `sort_range` on
// those: the batches in pieces of at most NV keys, as sort_short_segments does.
template <typename P, int NV, typename K, typename ValuesIn, typename V, typename HeadIt, typename SortRange,
          typename Comp>
void sort_segment_batches(K* keys, ValuesIn values_in, V* values, std::int64_t count, segment_heads<HeadIt> segments,
                          const tile_segments* ends, unsigned* counters, int tiles, SortRange sort_range, Comp comp,
                          context& ctx) {
  constexpr int warps = P::nt / warp_size, VT = group_sort_vt<K, V>();
  constexpr int longest = group_segment_max<K, V>() < NV ? group_segment_max<K, V>() : NV;
  const HeadIt heads = segments.heads;
  const std::int64_t num_heads = segments.num_heads;
  const segment_batching batching = segment_batching::of<P::nt, VT>(count, num_heads);
  // Deferred work: a batch's index, or ~(2 t + which) for tile t's first (0) or last (1) segment.
  buffer<std::int64_t> deferred(batching.batches + 2 * std::int64_t(tiles), ctx);
  std::int64_t* deferred_p = deferred.data();
  unsigned* deferred_count = counters + 3;
  auto sort_batch = [=] MGPU_LAMBDA(int tid, int cta) {
    if (cta < tiles && tid == 0) {
      const tile_segments e = ends[cta];
      const std::int64_t t0 = std::int64_t(cta) * NV, t1 = t0 + NV < count ? t0 + NV : count;
      const unsigned top = top_level_from(e, t0, t1, NV);
      if (top) atomicMax(counters, top);
      if (e.first.end - e.first.begin > NV) deferred_p[atomicAdd(deferred_count, 1u)] = ~(2 * std::int64_t(cta));
      if (e.last.begin != e.first.begin && e.last.end - e.last.begin > NV)
        deferred_p[atomicAdd(deferred_count, 1u)] = ~(2 * std::int64_t(cta) + 1);
    }
    if (cta >= batching.batches) return;
    __shared__ std::int64_t bounds[P::nt + 1];
    __shared__ group_sort_storage<VT, K, V> group_storage[warps];
    std::int64_t first, last;
    if (load_batch<P::nt, longest>(tid, cta, batching.size, heads, num_heads, count, bounds, first, last)) {
      if (tid == 0) deferred_p[atomicAdd(deferred_count, 1u)] = cta;
      return;
    }
    sort_warp_segments<VT>(tid, bounds, int(last - first), batching.per_warp, keys, values_in, values,
                           group_storage[tid / warp_size], comp);
  };
  cta_launch<launch_params<P::nt, 1>>(sort_batch, int(batching.batches > tiles ? batching.batches : tiles), ctx);
  auto sort_deferred = [=] MGPU_LAMBDA(int tid, int cta) {
    __shared__ std::int64_t bounds[P::nt + 1];
    const unsigned items = *deferred_count;
    for (unsigned item = cta; item < items; item += gridDim.x) {
      const std::int64_t work = deferred_p[item];
      const bool part = work < 0;
      std::int64_t first = 0, last = 0;
      int tile = 0, which = -1;
      if (part) {
        tile = int(~work / 2);
        which = int(~work % 2);
      } else {
        load_batch<P::nt, longest>(tid, work, batching.size, heads, num_heads, count, bounds, first, last);
      }
      for (std::int64_t s = first, e = last; part || s < last; s = e) {
        batch_piece piece{};
        if (part) {
          piece = tile_part<NV>(ends[tile], which, tile, count);
        } else {
          piece = next_batch_piece<NV>(bounds, s, first, last, num_heads, true);
          e = piece.e;
        }
        if (piece.r1 > piece.r0)
          sort_range(tid, tile, piece.r0, int(piece.r1 - piece.r0 < NV ? piece.r1 - piece.r0 : NV), !part, piece.range,
                     which);
        if (part) break;
      }
      __syncthreads();
    }
  };
  cta_launch<P>(sort_deferred, one_wave<P, decltype(sort_deferred)>(batching.batches + 2 * std::int64_t(tiles), ctx),
                ctx);
}

// The merge levels of a segmented sort (section 2 of segmented_sort_impl) by CTAs of shape LP,
// whose tile is the blocksort's (NV keys). The keys (values) of the blocksort's output are split
// between the caller's arrays and the alternate ones as the segments' last levels say; ends and the
// counters (top_level_p, then the work counter and the finished items) are the blocksort's.
// top_from_ends: the blocksort recorded no highest level (sort_short_segments ran).
template <typename LP, int NV, typename K, typename V, typename Comp>
void merge_levels(K* keys, V* values, K* keys_alt, V* values_alt, std::int64_t count, int tiles, int levels,
                  const tile_segments* ends_p, unsigned* top_level_p, bool top_from_ends, Comp comp, context& ctx) {
  static_assert(LP::nv == NV, "the level kernel merges the blocksort's tiles");
  unsigned* next_item_p = top_level_p + 1;
  unsigned* items_done_p = top_level_p + 2;
  // All levels in one launch of one wave of CTAs. A level is G work items (G the grid); item j
  // takes tiles j, j + G, j + 2G, ..., plans a batch of up to LNT of them at once (a thread each,
  // their Merge Path splits side by side, or for a batch of a few tiles by groups of lanes), then
  // merges and carries those with work. CTAs claim items in order, level by level, from a
  // counter, and an item of level k starts once all G items of level k - 1 have finished: a CTA
  // only waits on items already claimed by running CTAs, so the wait always ends, however many
  // CTAs the device runs at once. The levels above the highest one any segment needs are never
  // claimed, and a launch per level is not paid for either.
  // The level kernel plans and merges: left to itself the compiler gives it registers for both at
  // once (80 for <128, 15> int keys), which leaves room for few CTAs. Unless params say otherwise,
  // its registers are capped for 1280 threads per SM.
  constexpr int LNT = LP::nt;
  using level_params = launch_params<LNT, LP::vt, (LP::min_ctas ? LP::min_ctas : ctas_per_sm_for(1280, LNT))>;
  struct level_storage {
    level_tile plan[LNT];
    std::int64_t split[LNT / 4];  // the groups' search results, where level_split_lanes > 1
    int todo[LNT];
    int num_todo;
    unsigned item, top_level;
    merge_storage<NV, K, V> merge;
  };
  auto level_pass = [=] MGPU_LAMBDA(int tid, int) {
    __shared__ shared_storage<level_storage> storage;
    level_storage& s = storage.get();
    V* caller_values = values;  // (captured here: nvcc forbids a first capture inside `if constexpr`)
    V* alt_values = values_alt;
    const std::int64_t grid = gridDim.x;
    // One more than the highest level any segment needs: as the blocksort recorded it, or, after
    // the warps' kernel (which records none), from the tiles' ends (at most the blocksort's NT: LNT threads, a few
    // each). (Not after the blocksort too: graph replays of 10^4 keys were 1-3% slower with the scan.)
    unsigned top_level;
    if (top_from_ends) {
      if (tid == 0) s.top_level = 0;
      __syncthreads();
      for (int t = tid; t < tiles; t += LNT) {
        const tile_segments e = ends_p[t];
        const std::int64_t t0 = std::int64_t(t) * NV, t1 = t0 + NV < count ? t0 + NV : count;
        const unsigned top = top_level_from(e, t0, t1, NV);
        if (top) atomicMax(&s.top_level, top);
      }
      __syncthreads();
      top_level = s.top_level;
    } else {
      top_level = *top_level_p;
    }
    const int top = top_level < unsigned(levels) ? int(top_level) : levels;
    for (;;) {
      if (tid == 0) s.item = atomicAdd(next_item_p, 1u);
      __syncthreads();
      const int level = int(s.item / unsigned(grid));
      const std::int64_t first = s.item % unsigned(grid);
      if (level >= top) return;  // (the same for the whole CTA: every later item is of a higher level)
      if (level > 0) {
        // Every item of the levels below is done. (No item finishes before the levels below it, so
        // the count of finished items says so. Short sleeps: the whole grid waits here, once a level.)
        if (tid == 0)
          for (unsigned sleep = 32; load_acquire(items_done_p) < unsigned(level) * unsigned(grid);
               sleep = sleep < 256 ? 2 * sleep : sleep)
            backoff(sleep);
        __syncthreads();
      }
      for (std::int64_t base = first; base < tiles; base += grid * LNT) {
        if (tid == 0) s.num_todo = 0;
        __syncthreads();
        // The batch's plans, a thread a tile. Their Merge Path splits: by the same thread where the
        // batch has many tiles; for a few, by groups of lanes, in log_lanes of the region's length
        // in dependent loads where one thread takes log_2 (at 16384 keys a level of one tile took
        // 8.2 us, a merge pass 4.4, one thread searching).
        const std::int64_t left = (tiles - base + grid - 1) / grid;
        const int batch = int(left < LNT ? left : LNT);
        const int lanes = level_split_lanes<LNT>(batch);
        std::int64_t t = base + tid * grid;
        if (t < tiles) {
          level_tile lt = plan_level_tile<NV>(t, level, count, ends_p);
          std::int64_t t0 = t * NV, t1 = t0 + NV < count ? t0 + NV : count;
          if (lanes == 1 && lt.merges(t0, t1))
            region_split(writes_caller(lt.level_of_region, level) ? keys_alt : keys, lt.region_begin, lt.middle,
                         lt.region_end, t0, t1, comp, lt.a_begin, lt.a_end);
          s.plan[tid] = lt;
          if (lt.merges(t0, t1) || lt.carry) s.todo[atomicAdd(&s.num_todo, 1)] = tid;
        }
        __syncthreads();
        if (lanes > 1) {
          // Search q (of 2 batch) by threads [q lanes, (q + 1) lanes): tile q / 2's start or end.
          const int q = tid / lanes, j = q / 2;
          const std::int64_t t0 = (base + j * grid) * NV, t1 = t0 + NV < count ? t0 + NV : count;
          const level_tile lt = j < batch ? s.plan[j] : level_tile{0, 0, 0, 0, 0, -1, 0};
          auto search = level_split_search(lt, q & 1, t0, t1, level, keys, keys_alt, comp);
          group_search(search, lanes);
          if (tid % lanes == 0) s.split[q] = lt.region_begin + search.begin;
          __syncthreads();
        }
        int num_todo = s.num_todo;
        for (int i = 0; i < num_todo; ++i) {
          int j = s.todo[i];
          std::int64_t tile = base + j * grid;
          std::int64_t t0 = tile * NV, t1 = t0 + NV < count ? t0 + NV : count;
          level_tile lt = s.plan[j];
          if (lanes > 1) {
            lt.a_begin = s.split[2 * j];
            lt.a_end = s.split[2 * j + 1];
          }
          // Carried segments: copied, with a few loads in flight per thread (the copy loops), which
          // keeps this kernel's registers at the merge's.
          if (lt.carry) {
            tile_segments e = ends_p[tile];
            auto copy = [&](segment_span seg, int last) {
              bool to_caller = writes_caller(last, level);
              std::int64_t b = seg.begin > t0 ? seg.begin : t0, end = seg.end < t1 ? seg.end : t1;
              cta_copy<LNT, 4>(to_caller ? keys_alt : keys, to_caller ? keys : keys_alt, b, end, tid);
              if constexpr (has_values_v<V>)
                cta_copy<LNT, 4>(to_caller ? alt_values : caller_values, to_caller ? caller_values : alt_values, b, end,
                                 tid);
            };
            if (lt.carry & 1) copy(e.first, e.first_level);
            if (lt.carry & 2) copy(e.last, e.last_level);
          }
          std::int64_t m0 = lt.region_begin > t0 ? lt.region_begin : t0;
          std::int64_t m1 = lt.region_end < t1 ? lt.region_end : t1;
          if (lt.level_of_region >= 0 && m0 < m1) {
            bool to_caller = writes_caller(lt.level_of_region, level);
            const K* src_k = to_caller ? keys_alt : keys;
            K* dst_k = to_caller ? keys : keys_alt;
            const V* src_v = to_caller ? alt_values : caller_values;
            V* dst_v = to_caller ? caller_values : alt_values;
            merge_tile<level_params, K, V, list_addressing::choose_base, partial_tiles::common>(
                tid, src_k, src_v, lt.a_begin, lt.a_end, src_k, src_v, lt.middle + m0 - lt.a_begin,
                lt.middle + m1 - lt.a_end, dst_k, dst_v, m0, int(m1 - m0), comp, s.merge);
          }
          __syncthreads();
        }
      }
      // The item's writes, then its count: what the next level's items wait for.
      __syncthreads();
      if (tid == 0) {
        thread_fence();
        atomicAdd(items_done_p, 1u);
      }
    }
  };
  cta_launch<level_params>(level_pass, one_wave<level_params, decltype(level_pass)>(tiles, ctx), ctx);
}

template <typename P, typename LargeLP, typename K, typename V, typename Segments, typename ValuesIn, typename Comp>
void segmented_sort_impl(const char* fn, K* keys, ValuesIn values_in, V* values, std::int64_t count, Segments segments,
                         Comp comp, context& ctx) {
  check_count(fn, "count", count);
  check_pointer(fn, "keys", keys, count);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "values", values, count);
    check_disjoint(fn, "values", keys, count, values, count);
  }
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  auto index_owner = make_segment_index(fn, segments, count, NV, ctx);
  if (count == 0) return;
  auto index = index_owner.view;
  int tiles = num_tiles<P>(count, fn);
  int levels = ceil_log2(tiles);

  // Per tile: its end segments, and a flag it raises once its blocksort output is stored. Then one
  // more than the highest level that any long segment needs (0: none), the merge levels' work
  // counter, and the number of work items finished, of all levels. One allocation; the kernel that
  // finds the ends (and, by heads, the tiles' heads) zeroes the rest (the blocksort, after it,
  // records the highest level; the warps' kernel of sort_short_segments finds the ends itself and
  // zeroes the two counters, and the levels read the highest level from the ends). A single tile
  // needs none of it: its blocksort does everything.
  const bool single = tiles == 1;
  const std::size_t ends_bytes = sizeof(tile_segments) * std::size_t(tiles);
  const std::size_t counter_bytes = sizeof(unsigned) * (std::size_t(tiles) + 4);
  buffer<unsigned char> tile_state(single ? 0 : std::int64_t(ends_bytes + counter_bytes), ctx);
  tile_segments* ends_p = reinterpret_cast<tile_segments*>(tile_state.data());
  unsigned* stored_p = reinterpret_cast<unsigned*>(tile_state.data() + ends_bytes);
  unsigned* top_level_p = stored_p + tiles;
  unsigned* next_item_p = top_level_p + 1;  // (then the count of finished level items: merge_levels)
  // Temporaries first: a failed allocation must leave the caller's arrays untouched.
  buffer<K> keys_temp(levels ? count : 0, ctx);
  buffer<V> values_temp(levels && has_values_v<V> ? count : 0, ctx);
  K* keys_alt = keys_temp.data();
  V* values_alt = values_temp.data();

  // ---- 1. blocksort: each tile's segments sorted on their own; then short crossings merged ----
  // Unless params say otherwise (pairs of at most 8 bytes do: segmented_sort_params), keys-only
  // blocksorts are compiled for 1536 threads per SM: on the H100 that made every profile 2-5%
  // faster, where for pairs the spills it causes cost up to 20%; other pairs are left uncapped.
  using blocksort_params = launch_params<NT, VT,
                                         (P::min_ctas       ? P::min_ctas
                                          : has_values_v<V> ? 0
                                                            : ctas_per_sm_for(1536, NT))>;
  using sort_t = cta_segmented_sort<NT, VT, K, V>;
  using short_sort_t = cta_short_segment_sort<NT, (VT <= 32 ? VT : 32), K, V>;  // (used where VT <= 32)
  struct blocksort_storage {
    union {
      int head_at[NV];
      K keys[NV];
      V values[NV];
      typename sort_t::storage_t sort;
      typename short_sort_t::storage_t short_sort;
      typename cta_sort<NT, VT, K, V>::storage_t plain;
      merge_storage<NV, K, V> crossing;
    };
    typename cta_scan<NT, int>::storage_t scan;
  };
  // Sorts the segments of tile `tile`, the keys [t0, t0 + valid); or, `whole`, the segments of a
  // range of at most NV keys that begins and ends on segment boundaries, whose heads are among
  // heads[range] (by flags: the flags say), finished in the caller's array (a single tile is such
  // a range); or, `part` 0 or 1 (not whole), the keys [t0, t0 + valid) of tile `tile`'s first or
  // last segment, one longer than a tile, into the array its last merge level reads from (the
  // blocksort kernel passes -1: the compiler drops this case from it). `try_short`, a constant
  // at every call: whether tiles of short segments take cta_short_segment_sort (the kernels
  // without it are compiled without its code: inputs of long segments ran 3%-6% slower with it).
  auto blocksort_range = [=] MGPU_LAMBDA(int tid, int tile, std::int64_t t0, int valid, bool whole, head_range range,
                                         int part, bool try_short) {
    __shared__ shared_storage<blocksort_storage> storage;
    blocksort_storage& s = storage.get();
    const bool tiled = !whole && part < 0;
    // A whole range: as if one empty segment ended at 0, so that the range marks its heads (and
    // finds out whether it is one segment) and every segment writes the caller's array (level -1
    // is its last). A part: its segment alone, which covers it.
    tile_segments e = whole ? tile_segments{{0, 0}, {0, 0}, -1, -1} : ends_p[tile];
    if (part >= 0) {
      const segment_span seg = part == 0 ? e.first : e.last;
      const int level = part == 0 ? e.first_level : e.last_level;
      e = tile_segments{seg, seg, level, level};
    }
    if (tid == 0 && tiled) {
      const unsigned top = top_level_from(e, t0, t0 + valid, NV);
      if (top) atomicMax(top_level_p, top);
    }
    ValuesIn tile_values_in = values_in;  // (nvcc: no first capture inside `if constexpr`)
    // The sorted tile in thread order (or, short_segments, in shared memory).
    array_t<K, VT> k;
    array_t<V, VT> v;
    bool short_segments = false;
    // No head inside the tile: it lies in one segment, which the plain blocksort sorts faster. A
    // whole range finds out from its heads' marks.
    bool one_segment = e.first.end >= t0 + valid;
    const head_range heads_here = whole ? range : index.heads_of_tile(tile);
    if (!one_segment) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) s.head_at[NT * i + tid] = 0;
      __syncthreads();
      one_segment = !__syncthreads_or(index.template mark_heads<NT>(tid, heads_here, t0, valid, s.head_at));
    }
    if (one_segment) {
      k = mem_to_reg_thread<NT, VT, K>(keys + t0, tid, valid, s.keys);
      if constexpr (has_values_v<V>) v = mem_to_reg_thread<NT, VT, V>(tile_values_in + t0, tid, valid, s.values);
      cta_sort<NT, VT, K, V>::sort(k, v, s.plain, tid, valid, comp);
    } else {
      // The thread's heads, a bit per position (VT <= 32) or read again below.
      unsigned head_bits = 0;
      if constexpr (VT <= 32) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) head_bits |= s.head_at[VT * tid + i] ? 1u << i : 0u;
      }
      // Segments of at most max_length keys need at least valid / max_length - 1 heads inside:
      // by heads, tiles with fewer skip the check's barriers (by flags, every tile checks).
      if constexpr (VT <= 32) {
        if (try_short && (!std::decay_t<decltype(index)>::counts_heads ||
                          heads_here.end - heads_here.begin + 1 >= div_up(valid, short_sort_t::max_length))) {
          __syncthreads();  // head_at is about to be reused
          short_segments = short_sort_t::fits(head_bits, s.short_sort, tid, valid);
        }
      }
      if (short_segments) {
        // Every segment of the tile (as clipped to it) is short: a thread sorts each whole.
        short_sort_t::sort(keys + t0, tile_values_in + t0, s.short_sort, tid, valid, comp);
      } else {
        // Each element's segment, as the position of the last head at or before it (-1: none).
        array_t<int, VT> segment;
        int running = -1;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          bool head;
          if constexpr (VT <= 32)
            head = head_bits >> i & 1;
          else
            head = s.head_at[VT * tid + i];
          if (head) running = VT * tid + i;
          segment[i] = running;
        }
        auto scan = cta_scan<NT, int>::exclusive_prefix(tid, running, s.scan, maximum<int>());
        __syncthreads();  // head_at is about to be reused
        int before = scan.prefix.valid ? scan.prefix.value : -1;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) segment[i] = segment[i] > before ? segment[i] : before;
        k = mem_to_reg_thread<NT, VT, K>(keys + t0, tid, valid, s.keys);
        if constexpr (has_values_v<V>) v = mem_to_reg_thread<NT, VT, V>(tile_values_in + t0, tid, valid, s.values);
        sort_t::sort(k, v, segment, s.sort, tid, valid, comp);
      }
    }

    // Each element goes to the array its segment's parity picks for the blocksort (level -1): the
    // tile's first segment as its last level says, its last segment too, and the segments between
    // them, finished here, to the caller's. Decided in tile positions (32 bits), and once a tile
    // where every element goes to the caller's array, as with segments shorter than a tile.
    const int first_end = e.first.end - t0 < valid ? int(e.first.end - t0) : valid;
    const int last_begin = e.last.begin > t0 ? int(e.last.begin - t0) : 0;
    const bool first_to_caller = writes_caller(e.first_level, -1), last_to_caller = writes_caller(e.last_level, -1);
    // Strided (element NT * i + tid in x[i]), each element to its array.
    auto store_strided = [&](const auto& strided, auto* caller, auto* alt) {
      if (first_to_caller && last_to_caller) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (NT * i + tid < valid) caller[t0 + NT * i + tid] = strided[i];
      } else {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          int j = NT * i + tid;
          bool to_caller = j < first_end ? first_to_caller : j >= last_begin ? last_to_caller : true;
          if (j < valid) (to_caller ? caller : alt)[t0 + j] = strided[i];
        }
      }
    };
    V* caller_values = values;  // (captured here: nvcc forbids a first capture inside `if constexpr`)
    V* alt_values = values_alt;
    // Thread order -> strided through shared memory, then stored (the keys, then the values).
    auto store = [&](const auto& x, auto* transpose, auto* caller, auto* alt) {
      reg_to_shared_thread<VT>(x, tid, transpose);
      store_strided(shared_to_reg_strided<NT, VT>(transpose, tid), caller, alt);
    };
    if (short_segments) {
      store_strided(short_sort_t::strided(s.short_sort.keys, tid), keys, keys_alt);
      if constexpr (has_values_v<V>)
        store_strided(short_sort_t::strided(s.short_sort.values, tid), caller_values, alt_values);
    } else {
      store(k, s.keys, keys, keys_alt);
      if constexpr (has_values_v<V>) store(v, s.values, caller_values, alt_values);
    }

    // A segment of at most NV keys crosses at most one tile boundary; the tile where it ends
    // merges its two sorted halves (both written to the alternate array above) into the
    // caller's array, once the tile before has stored its half: tiles wait only on lower-numbered
    // tiles, which are running or done, as in a decoupled look-back.
    __syncthreads();
    if (tid == 0 && tiled) {
      thread_fence();
      store_release(stored_p + tile, 1u);
    }
    segment_span c = e.first;
    if (tiled && c.begin < t0 && short_crossing(c, NV)) {
      if (tid == 0)
        for (unsigned sleep = 32; !load_acquire(stored_p + tile - 1); sleep = sleep < 1024 ? 2 * sleep : sleep)
          backoff(sleep);
      __syncthreads();
      // (Both addresses formed, then one chosen: this kernel, at its register cap, spilled more
      // with the other form, and sorted segments of 16 0.4% slower.)
      merge_tile<P, K, V, list_addressing::choose_address, partial_tiles::common>(
          tid, keys_alt, alt_values, c.begin, t0, keys_alt, alt_values, t0, c.end, keys, caller_values, c.begin,
          int(c.end - c.begin), comp, s.crossing);
    }
  };
  // Segments by heads that average at most warp_segment_max keys, in at most NT tiles (every CTA of
  // the level kernel then reads all the tiles' ends for the highest level): a warp a segment, the
  // blocksort's code for longer ones (sort_short_segments; no register cap: under the blocksort's,
  // the blocksort's code spilled in this kernel); past three waves of its CTAs, the blocksort.
  // Past group_min_tiles * NT tiles, segments that average more than group_min_average
  // keys and at most group_segment_max: groups of lanes, in a kernel of their own, after the tiles'
  // ends (sort_segment_batches). (On an H200 that path sorted 2^26 keys 1.04x-2.22x as fast as the
  // blocksort, every profile of the benchmark; at 10^6 keys lengths of 32 to 256 1.02x-1.27x, but
  // random lengths up to 128 and pairs 0.90x-0.94x; sizes between are not compared:
  // bench/results/2026-12-03_h200_segsort_groups_of_lanes.txt.)
  bool sorted = false, top_from_ends = false;
  if constexpr (is_segment_heads_v<Segments>) {
    const std::int64_t num_segments = segments.num_heads + 1;
    auto sort_range = [=] MGPU_LAMBDA(int tid, int cta, std::int64_t t0, int valid, bool whole, head_range range,
                                      int part) { blocksort_range(tid, cta, t0, valid, whole, range, part, false); };
    if (tiles <= NT && num_segments > count / warp_segment_max<K, V>()) {
      sorted = top_from_ends = sort_short_segments<launch_params<NT, VT>, NV, K>(
          keys, values_in, values, count, segments, index, single ? nullptr : ends_p, next_item_p, tiles, sort_range,
          comp, ctx);
    } else if (tiles > group_min_tiles * NT && num_segments * group_min_average < count &&
               num_segments > count / group_segment_max<K, V>()) {
      find_all_tile_segments<NV, false>(index, tiles, count, ends_p, stored_p, top_level_p, ctx);
      sort_segment_batches<launch_params<NT, VT>, NV, K>(keys, values_in, values, count, segments, ends_p, top_level_p,
                                                         tiles, sort_range, comp, ctx);
      sorted = true;
    }
  }
  if (!sorted) {
    if (!single) {
      // A warp a tile where the tiles are few (as run_searches gives a search lanes), else a thread.
      if (lanes_per_search(tiles, ctx) == warp_size)
        find_all_tile_segments<NV, true>(index, tiles, count, ends_p, stored_p, top_level_p, ctx);
      else
        find_all_tile_segments<NV, false>(index, tiles, count, ends_p, stored_p, top_level_p, ctx);
    }
    auto blocksort = [=] MGPU_LAMBDA(int tid, int tile) {
      std::int64_t t0 = std::int64_t(tile) * NV;
      blocksort_range(tid, tile, t0, int(count - t0 < NV ? count - t0 : NV), single, index.heads_of_tile(tile), -1,
                      false);
    };
    auto blocksort_short = [=] MGPU_LAMBDA(int tid, int tile) {
      std::int64_t t0 = std::int64_t(tile) * NV;
      blocksort_range(tid, tile, t0, int(count - t0 < NV ? count - t0 : NV), single, index.heads_of_tile(tile), -1,
                      true);
    };
    // Tiles of short segments are likely where segments average at most max_length keys (by
    // flags, which do not say, always).
    bool try_short = VT <= 32;
    if constexpr (is_segment_heads_v<Segments>)
      try_short &= segments.num_heads >= count / cta_short_segment_sort<NT, 1, K, V>::max_length;
    if (try_short)
      cta_launch<blocksort_params>(blocksort_short, tiles, ctx);
    else
      cta_launch<blocksort_params>(blocksort, tiles, ctx);
  }
  if (levels == 0) return;

  // ---- 2. merge levels, for long segments ----
  if constexpr (!std::is_same<LargeLP, P>::value) {
    if (count > segmented_sort_large_threshold) {
      merge_levels<LargeLP, NV>(keys, values, keys_alt, values_alt, count, tiles, levels, ends_p, top_level_p,
                                top_from_ends, comp, ctx);
      return;
    }
  }
  merge_levels<P, NV>(keys, values, keys_alt, values_alt, count, tiles, levels, ends_p, top_level_p, top_from_ends,
                      comp, ctx);
}

}  // namespace detail

// Sorts each segment of keys[0, count) in place by comp, stably (equal keys keep their order).
// `segments` comes from segments_by_heads or segments_by_flags. Temporaries: a copy of the keys
// (and values), and a few words per tile (per 32 keys with flags). Stream-ordered.
// Throws std::invalid_argument for negative counts or null pointers; in checked mode,
// mgpu::precondition_error if heads are not sorted or not in [0, count].
template <typename params = void, typename K, typename Segments, typename Comp>
void segmented_sort(K* keys, std::int64_t count, Segments segments, Comp comp, context& ctx) {
  using P = params_or<params, segmented_sort_params<K>>;
  using LargeLP = params_or<params, segmented_sort_large_level_params<K>>;
  MGPU_REQUIRE_SEGMENTS(Segments);
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_segment_description_v<Segments> && is_comparator_v<Comp, K>)
    detail::segmented_sort_impl<P, LargeLP, K, empty_t>("mgpu::segmented_sort", keys, constant_iterator<empty_t>(),
                                                        static_cast<empty_t*>(nullptr), count, segments, comp, ctx);
}

// Key-value pairs: values[i] moves with keys[i].
template <typename params = void, typename K, typename V, typename Segments, typename Comp>
void segmented_sort(K* keys, V* values, std::int64_t count, Segments segments, Comp comp, context& ctx) {
  using P = params_or<params, segmented_sort_params<K, V>>;
  using LargeLP = params_or<params, segmented_sort_large_level_params<K, V>>;
  MGPU_REQUIRE_SEGMENTS(Segments);
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_segment_description_v<Segments> && is_comparator_v<Comp, K>)
    detail::segmented_sort_impl<P, LargeLP, K, V>("mgpu::segmented_sort", keys, values, values, count, segments, comp,
                                                  ctx);
}

// Sorts keys as segmented_sort does and writes the permutation: indices[i] is the original
// position of the key now at keys[i].
template <typename params = void, typename K, typename Index, typename Segments, typename Comp>
void segmented_sort_indices(K* keys, std::int64_t count, Segments segments, Index* indices, Comp comp, context& ctx) {
  static_assert(std::is_integral<Index>::value, "indices are integers");
  using P = params_or<params, segmented_sort_params<K, Index>>;
  using LargeLP = params_or<params, segmented_sort_large_level_params<K, Index>>;
  MGPU_REQUIRE_SEGMENTS(Segments);
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_segment_description_v<Segments> && is_comparator_v<Comp, K>)
    detail::segmented_sort_impl<P, LargeLP, K, Index>(
        "mgpu::segmented_sort_indices", keys, make_counting_iterator<Index>(0), indices, count, segments, comp, ctx);
}

}  // namespace mgpu
