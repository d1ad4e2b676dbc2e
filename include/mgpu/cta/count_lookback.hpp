// mgpu/cta/count_lookback.hpp
//
// Decoupled look-back over counts: what a kernel needs to give every tile its first output slot in
// a single pass, when tiles keep a data-dependent number of items (compaction, and any "allocate
// output slots in tile order" kernel). lookback_state<T> serves any associative operator; for sums
// of non-negative counts this class is the cheaper special case: the count and its status share
// one 64-bit word (status in the low 2 bits, the count above them), so one relaxed store publishes
// both and one relaxed load reads both, whatever the total (counts below 2^62). A 32-bit
// lookback_state would overflow past 2^32 items, and a 64-bit one takes a status word, two value
// words and acquire/release ordering per tile.
//
// As with lookback_state, a tile may only wait on lower-numbered tiles (CTAs start in increasing
// block order on both backends).
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

#include <cstddef>
#include <cstdint>

namespace mgpu {

class count_lookback {
 public:
  enum : unsigned { status_empty = 0, status_aggregate = 1, status_prefix = 2 };

  // Bytes of device memory for `num_tiles` tiles. Zero them before the kernel runs. A single tile
  // looks back on nothing: it needs none (a state on a null pointer, whose publish does nothing).
  static std::size_t storage_bytes(std::int64_t num_tiles) {
    return num_tiles > 1 ? std::size_t(num_tiles) * sizeof(std::uint64_t) : 0;
  }

  count_lookback() = default;
  explicit count_lookback(void* storage) : words_(static_cast<std::uint64_t*>(storage)) {}

  // Publishes `count` (>= 0, < 2^62) for `tile`: the tile's own count (status_aggregate) or the
  // count of every tile up to and including it (status_prefix). Called by one thread.
  MGPU_DEVICE void publish(int tile, unsigned status, std::int64_t count) const {
    if (!words_) return;  // a single tile's state
    store_relaxed(words_ + tile, (std::uint64_t(count) << 2) | status);
  }

  // The sum of the counts of every tile before `tile` (tile > 0), returned in every lane. Called by
  // all 32 lanes of one warp. Spins (with back-off) on predecessors that have published nothing.
  MGPU_DEVICE std::int64_t exclusive_prefix(int tile) const {
    const int lane = lane_id();
    std::int64_t prefix = 0;
    for (int nearest = tile - 1;; nearest -= warp_size) {
      // Lane i reads tile nearest - i; lanes past tile 0 read a zero prefix (tile 0 always
      // publishes its prefix, so the walk stops there at the latest).
      const int predecessor = nearest - lane;
      std::uint64_t word = status_prefix;
      for (unsigned sleep = 8;; sleep = sleep < 256 ? sleep * 2 : sleep) {
        if (predecessor >= 0) word = load_relaxed(words_ + predecessor);
        if (__all_sync(full_warp_mask, (word & 3) != status_empty)) break;
        backoff(sleep);
      }
      // Sum lanes [0, last]: up to and including the nearest tile that knows its prefix.
      const unsigned prefix_lanes = __ballot_sync(full_warp_mask, (word & 3) == status_prefix);
      const int last = prefix_lanes ? __ffs(int(prefix_lanes)) - 1 : warp_size - 1;
      std::int64_t value = lane <= last ? std::int64_t(word >> 2) : 0;
      MGPU_UNROLL
      for (int offset = warp_size / 2; offset > 0; offset /= 2) value += shfl_xor(value, offset);
      prefix += value;
      if (prefix_lanes) return prefix;
    }
  }

 private:
  std::uint64_t* words_ = nullptr;
};

}  // namespace mgpu
