// mgpu/core/cta_launch.hpp
//
// The kernel-authoring entry points. cta_launch runs a CTA lambda f(tid, cta, args...) over a
// grid; transform runs f(index, args...) once per index. With the CTA building blocks of cta/,
// these are all a user needs to write a two-phase kernel of their own.
#pragma once

#include "../platform/launch.hpp"
#include "checks.hpp"
#include "context.hpp"
#include "launch_params.hpp"
#include "types.hpp"

#include <cstdint>
#include <limits>

namespace mgpu {

// Runs f(tid, cta, args...) for every thread tid in [0, params::nt) of every CTA cta in
// [0, num_ctas), on ctx's stream. f is a device lambda or functor (MGPU_LAMBDA); it may declare
// __shared__ storage and use the cta/ building blocks. Asynchronous.
template <typename params, typename F, typename... Args>
void cta_launch(F f, int num_ctas, context& ctx, Args... args) {
  if (num_ctas < 0) detail::throw_argument("mgpu::cta_launch", "num_ctas", "must not be negative");
  platform::launch_ctas<params::nt, params::min_ctas>(num_ctas, 0, ctx.stream(), f, args...);
}
template <int NT, typename F, typename... Args>
void cta_launch(F f, int num_ctas, context& ctx, Args... args) {
  cta_launch<launch_params<NT, 1>>(f, num_ctas, ctx, args...);
}

// As cta_launch, with `shared_bytes` of dynamic shared memory per CTA (MGPU_DYNAMIC_SHARED).
template <typename params, typename F, typename... Args>
void cta_launch_with_shared(F f, int num_ctas, std::size_t shared_bytes, context& ctx, Args... args) {
  if (num_ctas < 0) detail::throw_argument("mgpu::cta_launch_with_shared", "num_ctas", "must not be negative");
  platform::launch_ctas<params::nt, params::min_ctas>(num_ctas, shared_bytes, ctx.stream(), f, args...);
}

// Tiles of params::nv items cover `count` items: how many CTAs that is. Throws if the grid
// would exceed CUDA's limit of 2^31 - 1 CTAs.
template <typename params>
int num_tiles(std::int64_t count, const char* function = "mgpu::num_tiles") {
  detail::check_count(function, "count", count);
  std::int64_t tiles = div_up(count, std::int64_t(params::nv));
  if (tiles > std::numeric_limits<int>::max())
    detail::throw_argument(function, "count", "needs more than 2^31 - 1 tiles");
  return int(tiles);
}

// How many CTAs of the CTA lambda f (launched with args of types Args) the device holds at once,
// capped at max_ctas: the grid for a kernel that makes one pass over its work in a single wave,
// each CTA looping over a share of the tiles.
template <typename params, typename F, typename... Args>
int one_wave(std::int64_t max_ctas, context& ctx) {
  std::int64_t resident = platform::resident_ctas_per_sm<params::nt, params::min_ctas, F, Args...>(0);
  std::int64_t wave = resident * ctx.props().sm_count;
  return int(max_ctas < wave ? max_ctas : wave);
}

// Runs f(tid, tile, args...) for every tile in [0, num_tiles), as cta_launch does, but with one
// wave of CTAs (one_wave), each looping over tiles cta, cta + grid, ...: for passes in which most
// tiles may have little or nothing to do, where a CTA per tile would cost more to schedule than
// to run. A barrier separates a CTA's tiles, so f may reuse its shared storage.
template <typename params, typename F, typename... Args>
void cta_launch_tiles(F f, int num_tiles, context& ctx, Args... args) {
  if (num_tiles < 0) detail::throw_argument("mgpu::cta_launch_tiles", "num_tiles", "must not be negative");
  auto loop = [=] MGPU_LAMBDA(int tid, int cta, Args... a) {
    for (int tile = cta; tile < num_tiles; tile += int(gridDim.x)) {
      f(tid, tile, a...);
      __syncthreads();
    }
  };
  cta_launch<params>(loop, one_wave<params, decltype(loop), Args...>(num_tiles, ctx), ctx, args...);
}

// As cta_launch_tiles, for the tiles listed on the device: f(tid, listed[i], args...) for every i
// in [0, *num_listed), with one wave of CTAs sized for at most max_listed entries. The list and its
// length are read when the kernel runs, so a pass can be given only the tiles that an earlier
// kernel found work for, without the host waiting to learn how many there are.
template <typename params, typename F, typename... Args>
void cta_launch_listed_tiles(F f, const int* listed, const int* num_listed, int max_listed, context& ctx,
                             Args... args) {
  if (max_listed < 0) detail::throw_argument("mgpu::cta_launch_listed_tiles", "max_listed", "must not be negative");
  detail::check_pointer("mgpu::cta_launch_listed_tiles", "num_listed", num_listed, 1);
  detail::check_pointer("mgpu::cta_launch_listed_tiles", "listed", listed, max_listed);
  auto loop = [=] MGPU_LAMBDA(int tid, int cta, Args... a) {
    int n = *num_listed < max_listed ? *num_listed : max_listed;  // a list longer than promised is cut
    for (int i = cta; i < n; i += int(gridDim.x)) {
      f(tid, listed[i], a...);
      __syncthreads();
    }
  };
  cta_launch<params>(loop, one_wave<params, decltype(loop), Args...>(max_listed, ctx), ctx, args...);
}

using transform_params = launch_params<128, 8>;

// Calls f(index, args...) for every index in [0, count), on ctx's stream; f takes the index as
// std::int64_t. Each thread handles params::vt indices, NT apart, so neighbouring threads touch
// neighbouring elements. Asynchronous.
template <typename params = transform_params, typename F, typename... Args>
void transform(F f, std::int64_t count, context& ctx, Args... args) {
  detail::check_count("mgpu::transform", "count", count);
  int tiles = num_tiles<params>(count, "mgpu::transform");
  auto body = [=] MGPU_LAMBDA(int tid, int cta, Args... a) {
    std::int64_t first = std::int64_t(cta) * params::nv + tid;
    int valid =
        int(count - std::int64_t(cta) * params::nv < params::nv ? count - std::int64_t(cta) * params::nv : params::nv);
    MGPU_UNROLL
    for (int i = 0; i < params::vt; ++i)
      if (tid + i * params::nt < valid) f(first + i * params::nt, a...);
  };
  cta_launch<params>(body, tiles, ctx, args...);
}

}  // namespace mgpu
