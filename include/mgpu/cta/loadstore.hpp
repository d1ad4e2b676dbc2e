// mgpu/cta/loadstore.hpp
//
// Moving a tile of NV = NT * VT values between global memory, shared memory and registers.
// Two register orders:
//   strided: value i of thread tid is tile element NT * i + tid (coalesced global access);
//   thread:  value i of thread tid is tile element VT * tid + i (what serial per-thread code wants).
// The *_thread global functions transpose through shared memory (NV values of scratch). `count`
// is the number of valid tile elements; with count < NV only those are read or written. Every
// function that writes shared memory ends with a barrier, so its caller may read it at once, and
// every function that reads shared memory into registers ends with a barrier, so the caller may
// overwrite it at once.
#pragma once

#include "../core/types.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mgpu {

template <int NT, int VT, typename T, typename It>
MGPU_DEVICE array_t<T, VT> mem_to_reg_strided(It input, int tid, int count) {
  array_t<T, VT> x;
  if (count >= NT * VT) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) x[i] = input[NT * i + tid];
  } else {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < count) x[i] = input[NT * i + tid];
  }
  return x;
}

template <int NT, int VT, typename T, typename It>
MGPU_DEVICE void reg_to_mem_strided(const array_t<T, VT>& x, It output, int tid, int count) {
  if (count >= NT * VT) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) output[NT * i + tid] = x[i];
  } else {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < count) output[NT * i + tid] = x[i];
  }
}

template <int NT, int VT, typename T>
MGPU_DEVICE void reg_to_shared_strided(const array_t<T, VT>& x, int tid, T* shared) {
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) shared[NT * i + tid] = x[i];
  __syncthreads();
}

template <int NT, int VT, typename T>
MGPU_DEVICE array_t<T, VT> shared_to_reg_strided(const T* shared, int tid) {
  array_t<T, VT> x;
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) x[i] = shared[NT * i + tid];
  __syncthreads();
  return x;
}

template <int VT, typename T>
MGPU_DEVICE void reg_to_shared_thread(const array_t<T, VT>& x, int tid, T* shared) {
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) shared[VT * tid + i] = x[i];
  __syncthreads();
}

template <int VT, typename T>
MGPU_DEVICE array_t<T, VT> shared_to_reg_thread(const T* shared, int tid) {
  array_t<T, VT> x;
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i) x[i] = shared[VT * tid + i];
  __syncthreads();
  return x;
}

// Global -> registers in thread order, through `shared` (NT * VT values).
template <int NT, int VT, typename T, typename It>
MGPU_DEVICE array_t<T, VT> mem_to_reg_thread(It input, int tid, int count, T* shared) {
  array_t<T, VT> x = mem_to_reg_strided<NT, VT, T>(input, tid, count);
  reg_to_shared_strided<NT, VT>(x, tid, shared);
  return shared_to_reg_thread<VT>(shared, tid);
}

// Registers in thread order -> global, through `shared` (NT * VT values).
template <int NT, int VT, typename T, typename It>
MGPU_DEVICE void reg_to_mem_thread(const array_t<T, VT>& x, It output, int tid, int count, T* shared) {
  reg_to_shared_thread<VT>(x, tid, shared);
  array_t<T, VT> y = shared_to_reg_strided<NT, VT>(shared, tid);
  reg_to_mem_strided<NT, VT>(y, output, tid, count);
}

// ---- when 16-byte vector loads apply ----

// True when VT values of T per thread make whole 16-byte vectors.
template <int VT, typename T>
constexpr bool vectorizable_v = std::is_arithmetic<T>::value && (VT * sizeof(T)) % 16 == 0;

// True when iterator type It is a pointer to T (const or not): the only inputs that vectorize.
template <typename It, typename T>
constexpr bool is_pointer_to_v =
    std::is_pointer<It>::value&& std::is_same<std::remove_cv_t<std::remove_pointer_t<It>>, T>::value;

template <typename T>
MGPU_HOST_DEVICE bool aligned_16(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace mgpu

namespace mgpu {

// Loads input[0, count) (count <= NT * VT) into shared[0, count), converted to T, and syncs. As
// below, every load is issued before any store: the loads of one thread overlap.
template <int NT, int VT, typename T, typename It>
MGPU_DEVICE void load_to_shared(It input, int count, int tid, T* shared) {
  array_t<T, VT> x = mem_to_reg_strided<NT, VT, T>(input, tid, count);
  MGPU_UNROLL
  for (int i = 0; i < VT; ++i)
    if (NT * i + tid < count) shared[NT * i + tid] = x[i];
  __syncthreads();
}

// How load_rows treats a partial tile's rows. `predicated`: every row's load is issued under the
// (uniform) row test, straight-line code, and a thread whose row passes the end of the input
// (`end`) reads end - 1 instead, so every x[i] of a row i < rows is defined. `skipped`: a branch
// past the rows from `rows` on, and no load where a row passes `end` (that x[i] is left as it
// was), for callers that use few of their VT rows and test each element's index themselves (a
// load-balancing tile's heads and cached values: one row of a dozen or more for long segments). Branches
// in the heads' load cost the SpMV of doubles, whose gathers of x follow it, up to 14%
// (bench/results/2026-11-29_h200_lbs_rows_skipped_ab.txt), hence the choice.
enum class rows_past { predicated, skipped };

// x[i] = input[begin + NT * i + tid] for the rows i < rows (rows is the same for the whole CTA),
// the rows past the input's end as Past says. No shared memory: the caller stores the rows where
// it wants them once all their loads are issued (under one condition per row, ptxas pairs each
// load with its store, the store waiting on it).
template <int NT, rows_past Past = rows_past::predicated, typename T, int VT, typename It>
MGPU_DEVICE void load_rows(array_t<T, VT>& x, It input, std::int64_t begin, int rows, std::int64_t end, int tid) {
  if (begin + std::int64_t(NT) * rows <= end) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (i < rows) x[i] = input[begin + NT * i + tid];
  } else if (Past == rows_past::predicated) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      std::int64_t j = begin + NT * i + tid;
      if (i < rows) x[i] = input[j < end ? j : end - 1];
    }
  } else {
    const int n = int(end - begin);  // (< NT * rows here)
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (i >= rows) break;
      if (NT * i + tid < n) x[i] = input[begin + NT * i + tid];
    }
  }
}

// How load_two_lists_to_shared addresses element j of two lists that are pointers to one type:
// choose the list's base pointer, then index it (two selects and one address a row: about 10
// instructions a row of a set tile, where forming both lists' 64-bit addresses and choosing one
// took 20, and a merge tile's kernel a quarter shorter; SASS, sm_90), or form both addresses and
// choose (fewer registers live: the segmented blocksort, at its register cap, spilled more the
// other way). Other iterators always take the second form.
enum class list_addressing { choose_base, choose_address };

// How often a caller's tiles of load_two_lists_to_shared are partial: rare (a merge tile, full
// but for the input's last) or common (the set and sorted-search tiles: VT + 1 rows, the last
// partial). The partial path is tuned for its own case; see there.
enum class partial_tiles { rare, common };

namespace detail {
template <typename AIt, typename BIt>
constexpr bool same_pointee_v = std::is_pointer_v<AIt>&& std::is_pointer_v<BIt>&&
    std::is_same_v<std::remove_cv_t<std::remove_pointer_t<AIt>>, std::remove_cv_t<std::remove_pointer_t<BIt>>>;

// Element j of a[0, a_count) followed by b.
template <list_addressing L, typename T, typename AIt, typename BIt>
MGPU_DEVICE T element_of_two_lists(AIt a, int a_count, BIt b, int j) {
  if constexpr (L == list_addressing::choose_base && same_pointee_v<AIt, BIt>) {
    using U = const std::remove_cv_t<std::remove_pointer_t<AIt>>;
    const bool in_a = j < a_count;
    return T((in_a ? static_cast<U*>(a) : static_cast<U*>(b))[in_a ? j : j - a_count]);
  } else {
    return j < a_count ? T(a[j]) : T(b[j - a_count]);
  }
}

// load_two_lists_to_shared's loads: row i of thread tid is element NT * i + tid of the two lists.
template <int NT, int VT, list_addressing L, partial_tiles Partial, typename T, typename AIt, typename BIt>
MGPU_DEVICE array_t<T, VT> two_lists_rows(AIt a, int a_count, BIt b, int total, int tid) {
  array_t<T, VT> x;
  if (total == NT * VT) {
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) x[i] = element_of_two_lists<L, T>(a, a_count, b, NT * i + tid);
  } else {
    const int rows = (total + NT - 1) / NT, last = total - 1;
    constexpr bool every_row = Partial == partial_tiles::rare || sizeof(T) > 4;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      const int j = NT * i + tid;
      if (every_row ? total > 0 : i < rows) x[i] = element_of_two_lists<L, T>(a, a_count, b, j < last ? j : last);
    }
  }
  return x;
}
}  // namespace detail

// Loads a[0, a_count) followed by b[0, b_count) (a_count + b_count <= NT * VT) into
// shared[0, a_count + b_count), with coalesced reads, and syncs: the two lists of a merge tile.
// All VT loads are issued before any store. A full tile loads whole rows; a partial one loads
// unpredicated too (a thread past the lists' end reads the last element again; an empty tile
// reads nothing): under one condition (j < total) ptxas paired each load with its store, the
// store waiting on the load, and a thread of the set and sorted-search kernels (VT + 1 rows, the
// last partial) had a few loads in flight instead of VT (SASS, sm_90). Where partial tiles are
// common, the rows past the tile's are skipped for elements of 4 bytes or less and loaded
// (clamped) for wider ones: the other way round, ptxas again interleaved stores with the loads,
// and sorted search ran 4-5% slower (int64 with the rows skipped, int32 with them loaded). Where
// they are rare, every row is loaded: skipping cost the mergesort pairs merge pass a spill and 1%
// (bench/results/2026-11-28_h100_two_lists_load_ab.txt).
template <int NT, int VT, list_addressing L = list_addressing::choose_base,
          partial_tiles Partial = partial_tiles::common, typename T, typename AIt, typename BIt>
MGPU_DEVICE void load_two_lists_to_shared(AIt a, int a_count, BIt b, int b_count, int tid, T* shared) {
  const int total = a_count + b_count;
  // (The rows' own test of a full tile folds into this one: loads and stores in one branch.)
  if (total == NT * VT) {
    const array_t<T, VT> x = detail::two_lists_rows<NT, VT, L, Partial, T>(a, a_count, b, total, tid);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) shared[NT * i + tid] = x[i];
  } else {
    const array_t<T, VT> x = detail::two_lists_rows<NT, VT, L, Partial, T>(a, a_count, b, total, tid);
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < total) shared[NT * i + tid] = x[i];
  }
  __syncthreads();
}

// Which values load_two_lists_to_shared loads with the keys of two lists: both lists', or a's only
// (for callers that never read b's: a set intersection or difference).
enum class list_values { both, a_only };

// The same for key-value pairs: the keys of the two lists into keys_shared and their values (a's
// only, for list_values::a_only) into values_shared, at the keys' positions, with every load of
// both issued before any store, and one barrier.
template <int NT, int VT, list_values Values = list_values::both, typename K, typename V, typename AKeys,
          typename AValues, typename BKeys, typename BValues>
MGPU_DEVICE void load_two_lists_to_shared(AKeys a_keys, AValues a_values, int a_count, BKeys b_keys, BValues b_values,
                                          int b_count, int tid, K* keys_shared, V* values_shared) {
  constexpr list_addressing L = list_addressing::choose_base;
  const int total = a_count + b_count, values_total = Values == list_values::both ? total : a_count;
  const array_t<K, VT> keys =
      detail::two_lists_rows<NT, VT, L, partial_tiles::common, K>(a_keys, a_count, b_keys, total, tid);
  const array_t<V, VT> values =
      detail::two_lists_rows<NT, VT, L, partial_tiles::common, V>(a_values, a_count, b_values, values_total, tid);
  reg_to_mem_strided<NT>(keys, keys_shared, tid, total);
  reg_to_mem_strided<NT>(values, values_shared, tid, values_total);
  __syncthreads();
}

// Copies src[begin, end) to dst[begin, end) (not overlapping) with the CTA's NT threads, VT
// loads in flight per thread, coalesced. No barrier.
template <int NT, int VT, typename T>
MGPU_DEVICE void cta_copy(const T* src, T* dst, std::int64_t begin, std::int64_t end, int tid) {
  for (std::int64_t chunk = begin; chunk < end; chunk += NT * VT) {
    array_t<T, VT> x;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (chunk + NT * i + tid < end) x[i] = src[chunk + NT * i + tid];
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (chunk + NT * i + tid < end) dst[chunk + NT * i + tid] = x[i];
  }
}

}  // namespace mgpu
