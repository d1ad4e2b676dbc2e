// mgpu/algorithms/bulk_insert.hpp
//
// bulk_insert: put a's elements into b before the positions named by sorted insertion indices.
// It is a merge: the insertion indices (keys of a) against the positions 0, 1, ... of b (a
// counting_iterator), a first on ties, so that a value inserted at k lands just before b[k].
// Partition: Merge Path at every tile's first output. Work: each CTA merges its slice of indices
// with its slice of positions (cta_merge_from_shared), which says where each of the tile's
// values goes, moves the values there through shared memory and stores them coalesced.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/merge.hpp"
#include "bulk_remove.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

namespace mgpu {

// Default shape, as bulk_remove's: 128 threads, about 60 bytes of values per thread, VT odd.
template <typename T>
using bulk_insert_params = launch_params<128, (sizeof(T) <= 4    ? 15
                                               : sizeof(T) <= 8  ? 11
                                               : sizeof(T) <= 16 ? 7
                                                                 : 3)>;

namespace detail {

template <int NV, typename T>
struct bulk_insert_storage {
  union {
    int keys[NV + 1];  // the merge: the tile's indices (relative to its first b), then 0, 1, ...
    int dest[NV];      // where each merge source (a's slice, then b's) goes in the tile's output
    T values[NV];      // the tile's output
  };
};

}  // namespace detail

// Writes output[0, a_count + b_count): b[0, b_count) with each a[i] inserted just before
// b[indices[i]] (after all of b when indices[i] == b_count). Elements of a that share an index
// keep their order, so output is the stable merge of a (keyed by indices) with b (keyed by
// position), a first on ties. Example: a_count 5, b_count 3, indices (1, 1, 2, 3, 3) gives
// B0 A0 A1 B1 A2 B2 A3 A4.
//
//   a, indices: the values to insert (random-access iterator) and where each goes: a_count
//               insertion indices (integer value type), sorted ascending (repeats allowed),
//               each in [0, b_count]. They share a_count, so both come before it.
//   b, b_count: the array inserted into.
//   output:     a_count + b_count elements; must not overlap a, indices or b.
// Values are converted to std::common_type_t of a's and b's value types (any copyable type).
//
// Stream-ordered on ctx's stream: the host does not wait, except in checked mode. Temporary
// memory (one 64-bit split per tile) comes from ctx. `params` overrides the tile shape
// (default bulk_insert_params<T>).
//
// Throws std::invalid_argument, before any work, for a negative count, a null pointer with a
// non-zero count, or an output that overlaps an input. With ctx.checked(), first validates the
// indices on the device and throws mgpu::precondition_error (naming the problems) if any is
// unsorted or outside [0, b_count]; outputs are then untouched. Unchecked, such indices give
// unspecified output (the call still reads and writes only inside the arrays).
template <typename params = void, typename AIt, typename IndicesIt, typename BIt, typename OutputIt>
void bulk_insert(AIt a, IndicesIt indices, std::int64_t a_count, BIt b, std::int64_t b_count, OutputIt output,
                 context& ctx) {
  constexpr const char* fn = "mgpu::bulk_insert";
  using T = std::common_type_t<iterator_value_t<AIt>, iterator_value_t<BIt>>;
  detail::check_count(fn, "a_count", a_count);
  detail::check_count(fn, "b_count", b_count);
  const std::int64_t total = detail::checked_sum(fn, "a_count", a_count, "b_count", b_count);
  detail::check_pointer(fn, "a", a, a_count);
  detail::check_pointer(fn, "indices", indices, a_count);
  detail::check_pointer(fn, "b", b, b_count);
  detail::check_pointer(fn, "output", output, total);
  detail::check_disjoint(fn, "output", a, a_count, output, total);
  detail::check_disjoint(fn, "output", indices, a_count, output, total);
  detail::check_disjoint(fn, "output", b, b_count, output, total);

  if (ctx.checked())
    detail::check_sorted_indices(fn, "indices", indices, a_count, 0, b_count, "[0, b_count]", false, ctx);
  if (total == 0) return;

  using P = params_or<params, bulk_insert_params<T>>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using storage_t = detail::bulk_insert_storage<NV, T>;
  int tiles = num_tiles<P>(total, fn);

  // partitions[t]: how many of a's elements precede tile t's first output. A single tile takes
  // them all: no partition pass.
  auto idx = detail::indices_as_int64(indices);
  buffer<std::int64_t> partitions =
      tiles > 1 ? merge_path_partitions<bounds::lower>(idx, a_count, counting_iterator<std::int64_t>(0), b_count, NV,
                                                       less<std::int64_t>(), ctx)
                : buffer<std::int64_t>();
  const std::int64_t* p = partitions.data();

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> shared;
    storage_t& s = shared.get();
    std::int64_t first = std::int64_t(tile) * NV;
    std::int64_t a_begin = p ? p[tile] : 0, a_end = p ? p[tile + 1] : a_count;
    std::int64_t b_begin = first - a_begin;
    int total_tile = int(total - first < NV ? total - first : NV);
    // Sorted indices never need the clamp; it keeps misuse (unchecked, unsorted) inside the arrays.
    std::int64_t a_span = a_end - a_begin;
    int a_tile = int(a_span < 0 ? 0 : a_span > total_tile ? total_tile : a_span);
    int b_tile = total_tile - a_tile;

    // The merge's sources in coalesced rows: a's slice then b's. Loaded first, so that their
    // latency hides behind the merge.
    array_t<T, VT> x{};  // (initialized only to quiet g++'s -Wmaybe-uninitialized)
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int j = NT * i + tid;
      if (j < a_tile)
        x[i] = T(a[a_begin + j]);
      else if (j < total_tile)  // (two branches rather than a select: 55 registers, not 80)
        x[i] = T(b[b_begin + j - a_tile]);
    }

    // Keys relative to the tile's first b: a sorted index lies in [0, b_tile] (clamped, so that
    // unsorted input cannot leave the tile; in 32 bits, where any index lands in [0, b_tile]).
    // The indices are all loaded before the first key is stored, unpredicated (a thread past the
    // last reads it again): a load and its store under one condition were paired by the compiler,
    // the store waiting on the load, one memory latency after another (SASS, sm_90).
    const int a_rows = div_up(a_tile, NT);
    array_t<std::uint32_t, VT> index_low;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (i < a_rows) index_low[i] = std::uint32_t(idx[a_begin + (NT * i + tid < a_tile ? NT * i + tid : a_tile - 1)]);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int j = NT * i + tid;
      if (j < a_tile) {
        std::uint32_t key = index_low[i] - std::uint32_t(b_begin);
        s.keys[j] = int(key < std::uint32_t(b_tile) ? key : std::uint32_t(b_tile));
      } else if (j < total_tile) {
        s.keys[j] = j - a_tile;
      }
    }
    __syncthreads();
    merge_pair<int, VT> merged = cta_merge_from_shared<NT, VT>(s.keys, a_tile, b_tile, tid, less<int>());
    __syncthreads();

    // Output VT * tid + i comes from source merged.indices[i]: invert that map, so that each
    // thread can send its loaded values straight to their output slots.
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (VT * tid + i < total_tile) s.dest[merged.indices[i]] = VT * tid + i;
    __syncthreads();
    array_t<int, VT> dest;  // (slots past total_tile read stale values that go unused)
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) dest[i] = s.dest[NT * i + tid];
    __syncthreads();
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < total_tile) s.values[dest[i]] = x[i];
    __syncthreads();
    // Every row read before the first is stored (a store through `output`, which as far as the
    // compiler knows may point into shared memory, would hold the next row's read back).
    reg_to_mem_strided<NT, VT>(mem_to_reg_strided<NT, VT, T>(s.values, tid, total_tile), output + first, tid,
                               total_tile);
  };
  cta_launch<P>(kernel, tiles, ctx);
}

}  // namespace mgpu
