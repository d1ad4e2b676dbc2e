// mgpu/cta/lookback.hpp
//
// Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): each tile publishes its aggregate as soon as it knows it, then one warp
// walks back over its predecessors, folding aggregates until it meets a tile that has published
// its inclusive prefix. Single-pass scans and every "allocate output slots in tile order"
// kernel (compaction, joins, ...) build on it.
//
// Tiles must be processed so that a tile only waits on lower-numbered tiles, which are
// guaranteed to be running or done (CTAs start in increasing block order on both backends).
// A single tile looks back on nothing: its state needs no memory (storage_bytes(1) is 0, and the
// state may be built on a null pointer), and publishing to it does nothing.
#pragma once

#include "../core/types.hpp"
#include "../platform/intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mgpu {

template <typename T>
class lookback_state {
  static_assert(std::is_trivially_copyable<T>::value, "look-back values must be trivially copyable");

 public:
  enum : unsigned { status_empty = 0, status_aggregate = 1, status_prefix = 2 };

  // Values of 4 bytes or fewer share one 64-bit word with their status, so one store publishes
  // both; on the GPU, values of up to 12 bytes (64-bit scans, a count with a 4-byte value) share
  // one 16-byte word with it the same way. A lone status word written with release semantics
  // and read with acquire semantics, its value in two arrays beside it (aggregates and prefixes,
  // written once each), takes the rest: larger values, and the simulator's values over 4 bytes.
  // (The one-word forms cost one round trip per look: measured on the H100, the split form
  // took 64-bit scans to 0.75x CUB and a segmented reduction to 20% of memcpy.)
  static constexpr bool packed = sizeof(T) <= 4;
#if defined(MGPU_BACKEND_CUDA)
  static constexpr bool wide = !packed && sizeof(T) <= 12;
#else
  static constexpr bool wide = false;
#endif

  // Bytes of device memory for `num_tiles` tiles (0 for one). Zero them before the kernel runs.
  static std::size_t storage_bytes(std::int64_t num_tiles) {
    std::size_t n = num_tiles > 1 ? std::size_t(num_tiles) : 0;
    if (packed) return n * sizeof(std::uint64_t);
    if (wide) return n * sizeof(word128);
    return round_up(n * sizeof(unsigned)) + 2 * round_up(n * words * sizeof(unsigned));
  }

  lookback_state() = default;
  lookback_state(void* storage, std::int64_t num_tiles) {
    char* p = static_cast<char*>(storage);
    std::size_t n = std::size_t(num_tiles);
    if (packed) {
      words_ = reinterpret_cast<std::uint64_t*>(p);
    } else if (wide) {
      wide_words_ = reinterpret_cast<word128*>(p);
    } else {
      status_ = reinterpret_cast<unsigned*>(p);
      aggregates_ = reinterpret_cast<unsigned*>(p + round_up(n * sizeof(unsigned)));
      prefixes_ =
          reinterpret_cast<unsigned*>(p + round_up(n * sizeof(unsigned)) + round_up(n * words * sizeof(unsigned)));
    }
  }

  // Publishes `value` for `tile` as its aggregate (status_aggregate) or its inclusive prefix
  // (status_prefix). Called by one thread.
  MGPU_DEVICE void publish(int tile, unsigned status, const T& value) const {
    if (!(packed ? static_cast<const void*>(words_) : wide ? static_cast<const void*>(wide_words_) : status_))
      return;  // a single tile's state
    if constexpr (packed) {
      unsigned bits = 0;
      std::memcpy(&bits, &value, sizeof(T));
      store_relaxed(words_ + tile, (std::uint64_t(bits) << 32) | status);
    } else if constexpr (wide) {
      word128 word{{status, 0, 0, 0}};
      std::memcpy(&word.w[1], &value, sizeof(T));
      store_relaxed(wide_words_ + tile, word);
    } else {
      unsigned w[words] = {};
      std::memcpy(w, &value, sizeof(T));
      unsigned* dst = (status == status_prefix ? prefixes_ : aggregates_) + std::size_t(tile) * words;
      MGPU_UNROLL
      for (int i = 0; i < words; ++i) store_relaxed(dst + i, w[i]);
      store_release(status_ + tile, status);  // the value is visible before the status announcing it
    }
  }

  // The inclusive prefix of every tile before `tile` (tile > 0), returned in every lane. Called by
  // all 32 lanes of one warp. Spins (with back-off) on predecessors that have published nothing.
  template <typename Op>
  MGPU_DEVICE T exclusive_prefix(int tile, Op op) const {
    int lane = lane_id();
    T prefix{};
    bool has_prefix = false;
    for (int nearest = tile - 1;; nearest -= warp_size) {
      // Lane i examines tile nearest - i. Lanes past tile 0 read nothing: tile 0 always
      // publishes its prefix, so the fold stops at or before it.
      int predecessor = nearest - lane;
      unsigned status;
      T value{};
      for (unsigned sleep = 8;; sleep = sleep < 256 ? sleep * 2 : sleep) {
        status = predecessor >= 0 ? load(predecessor, value) : unsigned(status_prefix);
        if (__all_sync(full_warp_mask, status != status_empty)) break;
        backoff(sleep);
      }
      unsigned prefix_lanes = __ballot_sync(full_warp_mask, status == status_prefix);
      int last = prefix_lanes ? __ffs(int(prefix_lanes)) - 1 : warp_size - 1;
      // Fold lanes [0, last]: farther tiles (higher lanes) come first in scan order.
      MGPU_UNROLL
      for (int offset = 1; offset < warp_size; offset *= 2) {
        T y = shfl_down(value, unsigned(offset));
        if (lane + offset <= last) value = op(y, value);
      }
      T window = shfl(value, 0);
      prefix = has_prefix ? op(window, prefix) : window;
      has_prefix = true;
      if (prefix_lanes) return prefix;
    }
  }

 private:
  static constexpr int words = int((sizeof(T) + 3) / 4);
  static std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  MGPU_DEVICE unsigned load(int tile, T& value) const {
    if constexpr (packed) {
      std::uint64_t word = load_relaxed(words_ + tile);
      unsigned bits = unsigned(word >> 32);
      std::memcpy(&value, &bits, sizeof(T));
      return unsigned(word);
    } else if constexpr (wide) {
      word128 word = load_relaxed(wide_words_ + tile);
      std::memcpy(&value, &word.w[1], sizeof(T));
      return word.w[0];
    } else {
      unsigned status = load_acquire(status_ + tile);  // the value is read after its status
      if (status != status_empty) {
        const unsigned* src = (status == status_prefix ? prefixes_ : aggregates_) + std::size_t(tile) * words;
        unsigned w[words];
        MGPU_UNROLL
        for (int i = 0; i < words; ++i) w[i] = load_relaxed(src + i);
        std::memcpy(&value, w, sizeof(T));
      }
      return status;
    }
  }

  std::uint64_t* words_ = nullptr;
  word128* wide_words_ = nullptr;
  unsigned* status_ = nullptr;
  unsigned* aggregates_ = nullptr;
  unsigned* prefixes_ = nullptr;
};

}  // namespace mgpu
