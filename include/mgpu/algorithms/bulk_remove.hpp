// mgpu/algorithms/bulk_remove.hpp
//
// bulk_remove: drop the elements at a sorted list of positions, keeping the order of the rest.
// Partition: a binary search of every tile's first position in the removal indices says which
// indices fall in each tile (and so where the tile's survivors start in the output). Work: each
// CTA marks its removed slots in shared memory, ranks the survivors with a CTA scan, gathers them
// together in shared memory and stores them with coalesced writes.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/loadstore.hpp"
#include "../platform/error.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace mgpu {

// Default shape: 128 threads; about 60 bytes of values per thread, with VT odd so that the
// thread-order walks over the tile's int slots (stride VT) hit 32 different banks.
template <typename T>
using bulk_remove_params = launch_params<128, (sizeof(T) <= 4    ? 15
                                               : sizeof(T) <= 8  ? 11
                                               : sizeof(T) <= 16 ? 7
                                                                 : 3)>;

namespace detail {

template <int NT, int NV, typename T>
struct bulk_remove_storage {
  typename cta_scan<NT, int>::storage_t scan;
  union {
    int slots[NV];  // per tile slot: 1 kept, 0 removed; then the kept slots' ranks (-1 removed)
    T values[NV];   // the survivors, packed
  };
};

}  // namespace detail

// Copies input[0, count) to output[0, count - indices_count), leaving out the elements at the
// positions indices[0, indices_count); the survivors keep their order.
//
//   input:  random-access iterator of any copyable value type T (a user struct is fine).
//   indices: random-access iterator of an integer type: sorted ascending, no repeats, each in
//            [0, count) (so indices_count <= count).
//   output: random-access output iterator; count - indices_count elements are written. It must
//           not overlap input or indices (not even exactly: the call is not in place).
//
// Stream-ordered on ctx's stream: the host does not wait, except in checked mode. Temporary
// memory (one 64-bit split per tile) comes from ctx. `params` overrides the tile shape
// (default bulk_remove_params<T>).
//
// Throws std::invalid_argument, before any work, for a negative count or indices_count,
// indices_count > count, a null pointer with a non-zero count, or an output that overlaps an
// input. With ctx.checked(), first validates the indices on the device and throws
// mgpu::precondition_error (naming the problems) if any is unsorted, repeated or out of range;
// outputs are then untouched. Unchecked, such indices give unspecified output (the call still
// reads and writes only inside the arrays).
template <typename params = void, typename InputIt, typename IndicesIt, typename OutputIt>
void bulk_remove(InputIt input, std::int64_t count, IndicesIt indices, std::int64_t indices_count, OutputIt output,
                 context& ctx) {
  constexpr const char* fn = "mgpu::bulk_remove";
  using T = iterator_value_t<InputIt>;
  detail::check_count(fn, "count", count);
  detail::check_count(fn, "indices_count", indices_count);
  if (indices_count > count)
    detail::throw_argument(fn, "indices_count",
                           "exceeds count (" + std::to_string(indices_count) + " > " + std::to_string(count) + ")");
  const std::int64_t out_count = count - indices_count;
  detail::check_pointer(fn, "input", input, count);
  detail::check_pointer(fn, "indices", indices, indices_count);
  detail::check_pointer(fn, "output", output, out_count);
  detail::check_disjoint(fn, "output", input, count, output, out_count);
  detail::check_disjoint(fn, "output", indices, indices_count, output, out_count);

  if (ctx.checked())
    detail::check_sorted_indices(fn, "indices", indices, indices_count, 0, count - 1, "[0, count)", true, ctx);
  if (out_count == 0) return;

  using P = params_or<params, bulk_remove_params<T>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using scan_t = cta_scan<NT, int>;
  using storage_t = detail::bulk_remove_storage<NT, NV, T>;
  int tiles = num_tiles<P>(count, fn);

  // partitions[t]: how many indices fall before tile t's first position, which is also how far
  // tile t's survivors move left. A single tile takes them all: no partition pass.
  auto idx = detail::indices_as_int64(indices);
  buffer<std::int64_t> partitions =
      tiles > 1 ? binary_search_partitions(idx, indices_count, count, NV, less<std::int64_t>(), ctx)
                : buffer<std::int64_t>();
  const std::int64_t* p = partitions.data();

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    std::int64_t base = std::int64_t(tile) * NV;
    int valid = int(count - base < NV ? count - base : NV);
    std::int64_t removed_begin = p ? p[tile] : 0;
    int removed = int((p ? p[tile + 1] : indices_count) - removed_begin);

    // The loads go first, in coalesced rows: their latency hides behind the marking and the scan.
    auto tile_input = input + base;
    array_t<T, VT> x{};  // (initialized only to quiet g++'s -Wmaybe-uninitialized)
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < valid) x[i] = tile_input[NT * i + tid];

    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) s.slots[NT * i + tid] = NT * i + tid < valid;
    __syncthreads();
    // The tile's indices are all loaded before any is marked, unpredicated (a thread past the last
    // reads it again): a load and its store under one condition were paired by the compiler, the
    // store waiting on the load, one memory latency after another (SASS, sm_90).
    const int removed_rows = removed > 0 ? div_up(removed, NT) : 0;
    array_t<std::int64_t, VT> removed_at;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (i < removed_rows) removed_at[i] = idx[removed_begin + (NT * i + tid < removed ? NT * i + tid : removed - 1)];
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (NT * i + tid < removed) {
        std::int64_t slot = removed_at[i] - base;
        if (slot >= 0 && slot < valid) s.slots[slot] = 0;  // (only unsorted input fails this)
      }
    }
    __syncthreads();

    // Each thread counts the survivors among its VT consecutive slots; a CTA scan turns the
    // counts into each thread's first output rank, and the reduction is the tile's output size.
    array_t<int, VT> kept;
    int thread_kept = 0;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) thread_kept += kept[i] = s.slots[VT * tid + i];
    typename scan_t::result_t scan = scan_t::exclusive(tid, thread_kept, s.scan, plus<int>(), 0);
    int rank = scan.scan;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) s.slots[VT * tid + i] = kept[i] ? rank++ : -1;
    __syncthreads();

    // Survivors move to their ranks in shared memory, then out in coalesced rows.
    array_t<int, VT> dest;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) dest[i] = s.slots[NT * i + tid];
    __syncthreads();
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (dest[i] >= 0) s.values[dest[i]] = x[i];
    __syncthreads();
    std::int64_t out_first = base - removed_begin;
    int tile_out = scan.reduction;
    // Sorted indices always pass this test; it keeps misuse (unchecked, unsorted) inside output.
    if (out_first < 0 || out_first + tile_out > out_count) tile_out = 0;
    auto tile_output = output + out_first;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < tile_out) tile_output[NT * i + tid] = s.values[NT * i + tid];
  };
  cta_launch<P>(kernel, tiles, ctx);
}

}  // namespace mgpu
