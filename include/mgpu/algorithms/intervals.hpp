// mgpu/algorithms/intervals.hpp
//
// Interval moves: many variable-length fills and copies at once, each output item handled by the
// thread that load-balancing search gives it (transform_lbs with the segments' values cached in
// shared memory). Segment s is an interval of heads[s + 1] - heads[s] items (the last ends at
// `count`); its values (the fill value, the gather and scatter starts) are read once per tile.
//   interval_expand:  output[i] = values[s]                         (fill)
//   interval_gather:  output[i] = input[gather[s] + rank]           (many copies into one array)
//   interval_scatter: output[scatter[s] + rank] = input[i]          (one array out to many places)
//   interval_move:    output[scatter[s] + rank] = input[gather[s] + rank]
// where i runs over [0, count), s is i's segment and rank = i - heads[s].
#pragma once

#include "../core/iterators.hpp"
#include "../core/segments.hpp"
#include "load_balance.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

namespace detail {

template <typename Out>
struct expand_writer {
  Out output;
  template <typename V>
  MGPU_DEVICE void operator()(std::int64_t index, std::int64_t, std::int64_t, const V& value) const {
    output[index] = value;
  }
};

// The copying writers read, then write (reads_then_writes): every read of a thread's items is in
// flight before its first write.
template <typename In, typename Out>
struct gather_writer {
  In input;
  Out output;
  using read_t = iterator_value_t<In>;
  template <typename Start>
  MGPU_DEVICE read_t read(std::int64_t, std::int64_t, std::int64_t rank, const Start& gather) const {
    return input[std::int64_t(gather) + rank];
  }
  MGPU_DEVICE void write(std::int64_t index, std::int64_t, const read_t& x) const { output[index] = x; }
};

// A value read and the place it goes.
template <typename T>
struct placed {
  T value;
  std::int64_t at;
};

template <typename In, typename Out>
struct scatter_writer {
  In input;
  Out output;
  using read_t = placed<iterator_value_t<In>>;
  template <typename Start>
  MGPU_DEVICE read_t read(std::int64_t index, std::int64_t, std::int64_t rank, const Start& scatter) const {
    return read_t{input[index], std::int64_t(scatter) + rank};
  }
  MGPU_DEVICE void write(std::int64_t, std::int64_t, const read_t& x) const { output[x.at] = x.value; }
};

// A segment's gather and scatter starts, cached together.
struct move_starts {
  std::int64_t gather, scatter;
};
template <typename GatherIt, typename ScatterIt>
struct move_starts_of {
  GatherIt gather;
  ScatterIt scatter;
  MGPU_HOST_DEVICE move_starts operator()(std::int64_t s) const {
    return move_starts{std::int64_t(gather[s]), std::int64_t(scatter[s])};
  }
};

template <typename In, typename Out>
struct move_writer {
  In input;
  Out output;
  using read_t = placed<iterator_value_t<In>>;
  MGPU_DEVICE read_t read(std::int64_t, std::int64_t, std::int64_t rank, const move_starts& m) const {
    return read_t{input[m.gather + rank], m.scatter + rank};
  }
  MGPU_DEVICE void write(std::int64_t, std::int64_t, const read_t& x) const { output[x.at] = x.value; }
};

}  // namespace detail

// output[i] = values[s] for every item i in [0, count), s its segment: each segment's value
// repeated once per item of the segment (the segments' item counts scanned give the heads).
// `segments` is segments_by_heads(heads, num_segments) with values[0, num_segments); items before
// heads[0] are not written. Stream-ordered; throws as load_balance_search does.
template <typename params = void, typename ValuesIt, typename Segments, typename Out>
void interval_expand(ValuesIt values, std::int64_t count, Segments segments, Out output, context& ctx) {
  detail::check_pointer("mgpu::interval_expand", "output", output, count);
  detail::lbs_call<params>("mgpu::interval_expand", detail::expand_writer<Out>{output}, count, segments, values,
                           "values", ctx);
}

// output[i] = input[gather[s] + rank] for every item i in [0, count) (s its segment, rank its
// position in it): segment s copies its heads[s + 1] - heads[s] items from input[gather[s], ...)
// to output[heads[s], ...). gather[0, num_segments) holds each segment's source start.
template <typename params = void, typename InputIt, typename Segments, typename GatherIt, typename Out>
void interval_gather(InputIt input, std::int64_t count, Segments segments, GatherIt gather, Out output, context& ctx) {
  detail::check_pointer("mgpu::interval_gather", "output", output, count);
  detail::lbs_call<params>("mgpu::interval_gather", detail::gather_writer<InputIt, Out>{input, output}, count, segments,
                           gather, "gather", ctx);
}

// output[scatter[s] + rank] = input[i] for every item i in [0, count): segment s copies
// input[heads[s], heads[s + 1]) to output[scatter[s], ...). Destinations must not overlap (as any
// scatter: which write lands is unspecified otherwise).
template <typename params = void, typename InputIt, typename Segments, typename ScatterIt, typename Out>
void interval_scatter(InputIt input, std::int64_t count, Segments segments, ScatterIt scatter, Out output,
                      context& ctx) {
  detail::check_pointer("mgpu::interval_scatter", "input", input, count);
  detail::lbs_call<params>("mgpu::interval_scatter", detail::scatter_writer<InputIt, Out>{input, output}, count,
                           segments, scatter, "scatter", ctx);
}

// The tile shapes of interval_move, whose tiles cache each segment's gather and scatter starts
// (16 bytes a step): load_balance_params' 128 x 11; and for more than interval_move_large_threshold
// items, on sm_90, 128 x 7 at 12 CTAs an SM (registers capped at 40 a thread), whose more warps
// keep more of the copies' dependent loads from DRAM in flight. Measured on an H200 (2^26 items,
// reversed sources, L2 flushed; bench/results/2026-12-01_h200_interval_move_shapes.txt): 1.10x-1.13x
// less time than 128 x 11 over segments of 8, 64 and 1024 (tighter caps, 14 and 16 CTAs an SM,
// 1.4x-1.6x slower); but at 10^3-10^6 items, calls whose data sit in the L2, 0.73x-0.96x: there a
// tile's fixed costs, not the loads' latency, bound the call. The threshold is where the copies' 8
// bytes an item outgrow the L2 (50-60 MB).
using interval_move_params = load_balance_params<detail::move_starts>;
using interval_move_large_params = arch_params<interval_move_params, launch_params<128, 7, 12>>;
constexpr std::int64_t interval_move_large_threshold = std::int64_t(1) << 23;

// output[scatter[s] + rank] = input[gather[s] + rank]: segment s moves heads[s + 1] - heads[s]
// items from input[gather[s], ...) to output[scatter[s], ...): a batch of memcpys of any lengths,
// balanced over threads by length. count is the total number of items moved. With no tuning
// given, inputs of more than interval_move_large_threshold items take interval_move_large_params.
template <typename params = void, typename InputIt, typename Segments, typename GatherIt, typename ScatterIt,
          typename Out>
void interval_move(InputIt input, std::int64_t count, Segments segments, GatherIt gather, ScatterIt scatter, Out output,
                   context& ctx) {
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    detail::check_pointer("mgpu::interval_move", "gather", gather, segments.num_heads);
    detail::check_pointer("mgpu::interval_move", "scatter", scatter, segments.num_heads);
    auto move_in_tiles = [&](auto shape) {
      detail::lbs_call<decltype(shape)>(
          "mgpu::interval_move", detail::move_writer<InputIt, Out>{input, output}, count, segments,
          make_load_iterator(detail::move_starts_of<GatherIt, ScatterIt>{gather, scatter}), "gather", ctx);
    };
    if constexpr (std::is_void<params>::value &&
                  !std::is_same<interval_move_large_params, interval_move_params>::value) {
      if (count > interval_move_large_threshold) {
        move_in_tiles(interval_move_large_params{});
        return;
      }
    }
    move_in_tiles(params_or<params, interval_move_params>{});
  }
}

}  // namespace mgpu
