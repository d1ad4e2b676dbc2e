// mgpu/core/segments.hpp
//
// Segment descriptions: how a caller says where the segments of an array begin. Every segmented
// function takes one of these (docs/conventions.md), and nothing else: is_segment_description_v
// lets each reject anything else at the call with a message that names the two.
#pragma once

#include <cstdint>
#include <type_traits>

namespace mgpu {

// Segments given by the sorted start position of each: segment i is [heads[i], heads[i + 1]),
// and the last ends at the array's end. Heads must be sorted and in [0, count]; repeated heads
// make empty segments. CSR offsets (offsets[0] = 0, ..., offsets[num_segments] = count) are
// segments_by_heads(offsets, num_segments). Positions before heads[0] belong to no segment; each
// function says what it does with them (segmented sort sorts them as one more segment,
// load_balance_search gives them -1, transform_lbs and the interval functions skip them).
template <typename HeadIt>
struct segment_heads {
  HeadIt heads;
  std::int64_t num_heads;
};
template <typename HeadIt>
segment_heads<HeadIt> segments_by_heads(HeadIt heads, std::int64_t num_heads) {
  return segment_heads<HeadIt>{heads, num_heads};
}

// Segments given by a bitfield: bit (i % 32) of flags[i / 32] set means element i starts a
// segment (element 0 always does). Bits at or past count are ignored.
struct segment_flags {
  const unsigned* flags;
};
inline segment_flags segments_by_flags(const unsigned* flags) { return segment_flags{flags}; }

// Whether T is one of the segment descriptions above.
template <typename T>
struct is_segment_description : std::false_type {};
template <typename HeadIt>
struct is_segment_description<segment_heads<HeadIt>> : std::true_type {};
template <>
struct is_segment_description<segment_flags> : std::true_type {};
template <typename T>
constexpr bool is_segment_description_v = is_segment_description<std::decay_t<T>>::value;

// Whether T is a segments_by_heads description: the one that numbers its segments by a scan of
// their item counts (load-balancing search and the functions on it take only this one).
template <typename T>
struct is_segment_heads : std::false_type {};
template <typename HeadIt>
struct is_segment_heads<segment_heads<HeadIt>> : std::true_type {};
template <typename T>
constexpr bool is_segment_heads_v = is_segment_heads<std::decay_t<T>>::value;

}  // namespace mgpu

// Rejects, at the call, an argument that is not a segment description, naming the fix.
#define MGPU_REQUIRE_SEGMENTS(Segments)                                                                        \
  static_assert(::mgpu::is_segment_description_v<Segments>,                                                    \
                "mgpu: the argument 'segments' must be a segment description: mgpu::segments_by_heads(heads, " \
                "num_heads) (for CSR offsets: segments_by_heads(offsets, num_segments)) or "                   \
                "mgpu::segments_by_flags(flags); see docs/conventions.md")

// Rejects, at the call, segments described otherwise than by heads, naming the fix.
#define MGPU_REQUIRE_SEGMENT_HEADS(Segments)                                                                     \
  static_assert(::mgpu::is_segment_heads_v<Segments>,                                                            \
                "mgpu: load-balancing search and the functions built on it take their segments as "              \
                "mgpu::segments_by_heads(heads, num_segments) (heads: the exclusive scan of the segments' item " \
                "counts); see docs/conventions.md")
