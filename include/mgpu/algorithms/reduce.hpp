// mgpu/algorithms/reduce.hpp
//
// reduce and transform_reduce: a persistent grid of CTAs each folds an even, contiguous share of
// the tiles into registers, one cta_reduce per CTA, then one CTA folds the per-CTA partials.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_reduce.hpp"
#include "../cta/loadstore.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mgpu {

// Default shape: 128 threads, 128 bytes of input per thread per tile (measured on an H100:
// bench/tune.cu).
template <typename T>
using reduce_params = launch_params<128, (sizeof(T) >= 128 ? 1 : int(128 / sizeof(T)))>;

// The shape of a reduction's last step (the per-CTA partials) and of a whole reduction of at most
// its NV values: one CTA of 256 threads with up to 4 values each. A thread's serial fold is short;
// with the per-tile shape, its 32 predicated values, the one-CTA call took about 0.2 us more than
// CUB's single-tile kernel on an H100 (bench/results/2026-11-26_h100_reduce_last_ab.txt).
using reduce_last_params = launch_params<256, 4>;

namespace detail {

template <int VT, typename T, typename It>
constexpr bool reduce_vectorizes = vectorizable_v<VT, T> && sizeof(T) < 16 && is_pointer_to_v<It, T>;

// Folds tiles [first_tile, last_tile) of `input` and returns the CTA's total in every thread.
// With `vectors` (a 16-byte aligned raw array of T), full tiles load as 16-byte vectors.
template <typename P, typename T, typename It, typename Op>
MGPU_DEVICE T reduce_tiles(int tid, It input, std::int64_t count, std::int64_t first_tile, std::int64_t last_tile,
                           bool vectors, Op op, typename cta_reduce<P::nt, T>::storage_t& storage) {
  T acc{};
  bool any = false;
  auto fold = [&](const T& x) {
    acc = any ? T(op(acc, x)) : x;
    any = true;
  };
  for (std::int64_t tile = first_tile; tile < last_tile; ++tile) {
    std::int64_t base = tile * P::nv;
    int valid = int(std::min<std::int64_t>(P::nv, count - base));
    if constexpr (reduce_vectorizes<P::vt, T, It>) {
      if (vectors && valid == P::nv) {
        constexpr int per_vector = int(16 / sizeof(T)), vectors_per_thread = P::vt / per_vector;
        const int4* tile_vectors = reinterpret_cast<const int4*>(input + base);
        int4 v[vectors_per_thread];
        MGPU_UNROLL
        for (int i = 0; i < vectors_per_thread; ++i) v[i] = tile_vectors[P::nt * i + tid];
        MGPU_UNROLL
        for (int i = 0; i < vectors_per_thread; ++i) {
          T parts[per_vector];
          std::memcpy(parts, &v[i], 16);
          MGPU_UNROLL
          for (int j = 0; j < per_vector; ++j) fold(parts[j]);
        }
        continue;
      }
    }
    array_t<T, P::vt> x = mem_to_reg_strided<P::nt, P::vt, T>(input + base, tid, valid);
    MGPU_UNROLL
    for (int i = 0; i < P::vt; ++i)
      if (valid >= P::nv || P::nt * i + tid < valid) fold(x[i]);
  }
  std::int64_t elements = std::min(count, last_tile * P::nv) - first_tile * P::nv;
  int active = int(std::min<std::int64_t>(P::nt, elements));
  return cta_reduce<P::nt, T>::reduce(tid, acc, storage, op, active);
}

}  // namespace detail

// *output = init op input[0] op ... op input[count - 1], computed in T (the type of init).
//
// `op` must be associative and commutative (values are combined in an unspecified order, as
// std::reduce and cub::DeviceReduce do). `output` is any output iterator (a device pointer);
// nothing is written back to the host and the host never waits: the call is stream-ordered.
// count == 0 writes init.
//
// Throws std::invalid_argument for a negative count or a null input/output pointer.
template <typename params = void, typename It, typename Out, typename T, typename Op>
void reduce(It input, std::int64_t count, Out output, T init, Op op, context& ctx) {
  constexpr const char* fn = "mgpu::reduce";
  detail::check_count(fn, "count", count);
  detail::check_pointer(fn, "input", input, count);
  detail::check_pointer(fn, "output", output, 1);
  using P = params_or<params, reduce_params<T>>;
  using storage_t = typename cta_reduce<P::nt, T>::storage_t;

  std::int64_t tiles = div_up(count, std::int64_t(P::nv));
  if (tiles == 0) {
    transform([=] MGPU_LAMBDA(std::int64_t) { output[0] = init; }, 1, ctx);
    return;
  }
  using L = reduce_last_params;
  using last_storage_t = typename cta_reduce<L::nt, T>::storage_t;
  if (count <= L::nv) {
    auto fold_few = [=] MGPU_LAMBDA(int tid, int) {
      __shared__ shared_storage<last_storage_t> storage;
      T total = detail::reduce_tiles<L, T>(tid, input, count, 0, 1, false, op, storage.get());
      if (tid == 0) output[0] = op(init, total);
    };
    cta_launch<L>(fold_few, 1, ctx);
    return;
  }
  bool vectors = false;
  if constexpr (detail::reduce_vectorizes<P::vt, T, It>) vectors = aligned_16(input);
  auto fold_range = [=] MGPU_LAMBDA(int tid, int cta, T* partials) {
    __shared__ shared_storage<storage_t> storage;
    // The CTA's even share of the tiles. A 64-bit division is a long subroutine at the start of
    // every CTA, which a one-wave launch of a million values notices; 32 bits take most counts.
    std::int64_t first, last;
    if (std::uint64_t(tiles) * gridDim.x <= 0xffffffffu) {
      first = unsigned(tiles) * unsigned(cta) / gridDim.x;
      last = unsigned(tiles) * unsigned(cta + 1) / gridDim.x;
    } else {
      first = tiles * cta / gridDim.x;
      last = tiles * (cta + 1) / gridDim.x;
    }
    T total = detail::reduce_tiles<P, T>(tid, input, count, first, last, vectors, op, storage.get());
    if (tid == 0) {
      if (partials)
        partials[cta] = total;
      else
        output[0] = op(init, total);
    }
  };
  // One wave of CTAs: as many as fit on the device at once, each with an equal share of tiles.
  int grid = one_wave<P, decltype(fold_range), T*>(tiles, ctx);
  if (grid == 1) {
    cta_launch<P>(fold_range, 1, ctx, static_cast<T*>(nullptr));
    return;
  }
  buffer<T> partials(grid, ctx);
  cta_launch<P>(fold_range, grid, ctx, partials.data());
  const T* p = partials.data();
  auto fold_partials = [=] MGPU_LAMBDA(int tid, int) {
    __shared__ shared_storage<last_storage_t> storage;
    T total = detail::reduce_tiles<L, T>(tid, p, grid, 0, div_up(grid, L::nv), false, op, storage.get());
    if (tid == 0) output[0] = op(init, total);
  };
  cta_launch<L>(fold_partials, 1, ctx);
}

// *output = init op f(input[0]) op ... op f(input[count - 1]): reduce over a transform_iterator,
// so the map is fused into the load. Same requirements as reduce; f must be callable on the
// host's view of the types too (write a lambda as MGPU_HOST_DEVICE_LAMBDA).
template <typename params = void, typename It, typename Out, typename T, typename Op, typename F>
void transform_reduce(It input, std::int64_t count, Out output, T init, Op op, F f, context& ctx) {
  reduce<params>(make_transform_iterator(input, f), count, output, init, op, ctx);
}

}  // namespace mgpu
