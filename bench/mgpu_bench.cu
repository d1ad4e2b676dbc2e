// bench/mgpu_bench.cu
//
// mgpu against its CCCL equivalent, side by side, on the GPU: the method of shared/PERFORMANCE.md
// (random data, CUDA events, warm-up, median, CUB temp storage allocated outside the timed region,
// bytes counted as the fewest the function must move). Usage: see usage() or bench/README.md.
//
// Adding a family: write a case struct (a name, all_types, and run<T>(env&, n) that builds the
// inputs, times the implementations through env::compare (env::compare_with_setup for in-place
// calls, env::time and env::add for other shapes) and checks through env::check), then add it
// with its sizes to `primitives()` below.
#include "bench_common.hpp"

#include <mgpu/mgpu.hpp>

#include <cusparse.h>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/set_operations.h>
#include <thrust/transform.h>
#include <cub/device/device_copy.cuh>
#include <cub/device/device_for.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <limits>
#include <memory>

using bench::case_id;
using bench::copy_async;
using bench::cub_call;
using bench::cub_count;
using bench::device_array;
using bench::env;
using bench::matrix_kind;
using bench::timed;
using bench::type_name;

namespace {

// Inputs for sums: integers in [-64, 63] never overflow (a signed overflow would be undefined and
// make exact checks meaningless); floats in [0, 1) keep partial sums away from cancellation, so a
// relative tolerance is meaningful.
template <class T>
device_array<T> summable_input(env& e, std::int64_t n) {
  device_array<T> a(n);
  if constexpr (std::is_floating_point_v<T>)
    bench::fill_random<T>(a.data(), n, e.seed, T(0), T(1), e.ctx);
  else
    bench::fill_random<T>(a.data(), n, e.seed, T(-64), T(63), e.ctx);
  return a;
}

// Random integers over the type's whole range (the keys of the sorts, the values of pairs).
template <class T>
device_array<T> random_input(env& e, std::int64_t n, std::uint64_t salt) {
  device_array<T> a(n);
  bench::fill_random<T>(a.data(), n, e.seed ^ salt, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                        e.ctx);
  return a;
}

// Runs one CUB call with its own temporary storage (setup only, never timed).
template <class F>
void cub_once(F f) {
  cub_call<F> call(f);
  call();
}

// Strictly increasing keys 2 * (g_0 + ... + g_i) + parity, the gaps g random in [1, 4]: the two
// inputs of a merge (parity 0 and 1) interleave evenly and share no key, so the merged order is
// unique and CUB's merge, documented as unstable, must produce exactly what mgpu's does, values
// included. The largest key, 2 * 4 * 2^27 + 1 at the 2^28-element merge, fits in int32.
template <class T>
device_array<T> sorted_distinct(env& e, std::int64_t n, std::uint64_t salt, int parity) {
  device_array<T> gaps(n), out(n);
  bench::fill_random<T>(gaps.data(), n, e.seed ^ salt, T(1), T(4), e.ctx);
  cub_once([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, gaps.data(), out.data(), cub_count(n), e.stream());
  });
  T* p = out.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { p[i] = T(2 * p[i] + parity); }, n, e.ctx);
  return out;
}

// ---- cases -------------------------------------------------------------------------------------

struct reduce_case {
  static constexpr const char* name = "reduce";
  static constexpr bool all_types = true;  // int32, int64 and float (the others: int32 only)
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> in = summable_input<T>(e, n), mgpu_out(1), cccl_out(1);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(temp, bytes, in.data(), cccl_out.data(), cub_count(n), e.stream());
    });
    auto mgpu_run = [&] { mgpu::reduce(in.data(), n, mgpu_out.data(), T(0), mgpu::plus<T>(), e.ctx); };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T), mgpu_run, cccl);
    e.check(c, mgpu_out, cccl_out, 1);
  }
};

// Exclusive (init 0) and inclusive sums: one case, the kind picks the calls.
template <mgpu::scan_kind kind>
struct scan_case {
  static constexpr bool exclusive = kind == mgpu::scan_kind::exclusive;
  static constexpr const char* name = exclusive ? "exclusive_scan" : "inclusive_scan";
  static constexpr bool all_types = true;
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> in = summable_input<T>(e, n), mgpu_out(n), cccl_out(n);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      if constexpr (exclusive)
        return cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), cccl_out.data(), cub_count(n), e.stream());
      else
        return cub::DeviceScan::InclusiveSum(temp, bytes, in.data(), cccl_out.data(), cub_count(n), e.stream());
    });
    auto mgpu_run = [&] {
      if constexpr (exclusive)
        mgpu::exclusive_scan(in.data(), n, mgpu_out.data(), T(0), mgpu::plus<T>(), e.ctx);
      else
        mgpu::inclusive_scan(in.data(), n, mgpu_out.data(), mgpu::plus<T>(), e.ctx);
    };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, 2.0 * double(n) * sizeof(T), mgpu_run, cccl);  // reads n, writes n
    e.check(c, mgpu_out, cccl_out, n);
  }
};

// Merges two sorted halves, a (n / 2 keys) and b (the rest), into n outputs. Keys are distinct
// (sorted_distinct), so the output is unique and checks exactly, values included.
template <bool pairs>
struct merge_case {
  static constexpr const char* name = pairs ? "merge_pairs" : "merge_keys";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    using V = std::int32_t;
    const std::int64_t na = n / 2, nb = n - na;
    device_array<T> a = sorted_distinct<T>(e, na, 0xa, 0), b = sorted_distinct<T>(e, nb, 0xb, 1);
    device_array<T> mgpu_keys(n), cccl_keys(n);
    device_array<V> a_values, b_values, mgpu_values, cccl_values;
    if constexpr (pairs) {
      a_values = random_input<V>(e, na, 0xc);
      b_values = random_input<V>(e, nb, 0xd);
      mgpu_values = device_array<V>(n);
      cccl_values = device_array<V>(n);
    }
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      if constexpr (pairs)
        return cub::DeviceMerge::MergePairs(temp, bytes, a.data(), a_values.data(), na, b.data(), b_values.data(), nb,
                                            cccl_keys.data(), cccl_values.data(), mgpu::less<T>(), e.stream());
      else
        return cub::DeviceMerge::MergeKeys(temp, bytes, a.data(), na, b.data(), nb, cccl_keys.data(), mgpu::less<T>(),
                                           e.stream());
    });
    auto mgpu_run = [&] {
      if constexpr (pairs)
        mgpu::merge(a.data(), a_values.data(), na, b.data(), b_values.data(), nb, mgpu_keys.data(), mgpu_values.data(),
                    mgpu::less<T>(), e.ctx);
      else
        mgpu::merge(a.data(), na, b.data(), nb, mgpu_keys.data(), mgpu::less<T>(), e.ctx);
    };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, 2.0 * double(n) * double(sizeof(T) + (pairs ? sizeof(V) : 0)), mgpu_run, cccl);  // reads n, writes n
    e.check(c, mgpu_keys, cccl_keys, n);
    if constexpr (pairs) e.check(c, mgpu_values, cccl_values, n);
  }
};

// Random keys (and values), sorted in place by both. Before every run, outside the timed region,
// each implementation's arrays are restored from the unsorted input. CUB: DeviceMergeSort's
// in-place StableSortKeys / StableSortPairs (the same code as SortKeys / SortPairs, documented
// stable), so that its output must equal mgpu's stable sort exactly.
template <bool pairs>
struct mergesort_case {
  static constexpr const char* name = pairs ? "mergesort_pairs" : "mergesort_keys";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    using V = std::int32_t;
    device_array<T> keys = random_input<T>(e, n, 0x50), mgpu_keys(n), cccl_keys(n);
    device_array<V> values, mgpu_values, cccl_values;
    if constexpr (pairs) {
      values = random_input<V>(e, n, 0x51);
      mgpu_values = device_array<V>(n);
      cccl_values = device_array<V>(n);
    }
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      if constexpr (pairs)
        return cub::DeviceMergeSort::StableSortPairs(temp, bytes, cccl_keys.data(), cccl_values.data(), cub_count(n),
                                                     mgpu::less<T>(), e.stream());
      else
        return cub::DeviceMergeSort::StableSortKeys(temp, bytes, cccl_keys.data(), cub_count(n), mgpu::less<T>(),
                                                    e.stream());
    });
    auto restore = [&](device_array<T>& k, device_array<V>& v) {
      copy_async(k.data(), keys.data(), n, e.stream());
      if constexpr (pairs) copy_async(v.data(), values.data(), n, e.stream());
    };
    auto mgpu_run = [&] {
      if constexpr (pairs)
        mgpu::mergesort(mgpu_keys.data(), mgpu_values.data(), n, mgpu::less<T>(), e.ctx);
      else
        mgpu::mergesort(mgpu_keys.data(), n, mgpu::less<T>(), e.ctx);
    };
    case_id c{name, type_name<T>::value, n};
    e.compare_with_setup(
        c, 2.0 * double(n) * double(sizeof(T) + (pairs ? sizeof(V) : 0)), [&] { restore(mgpu_keys, mgpu_values); },
        mgpu_run, [&] { restore(cccl_keys, cccl_values); }, cccl);
    e.check(c, mgpu_keys, cccl_keys, n);
    if constexpr (pairs) e.check(c, mgpu_values, cccl_values, n);
  }
};

// mgpu::radix_sort is cub::DeviceRadixSort on CUDA (with its alternate buffer and temporary
// storage from the context's pool, and a copy back when the passes end in the alternate): this
// case measures the wrapper. The baseline is CUB's DoubleBuffer form with both halves allocated
// outside the timed region; its result stays wherever the selector ends (no copy back). Inputs
// are restored before every run, as for mergesort.
template <bool pairs>
struct radix_sort_case {
  static constexpr const char* name = pairs ? "radix_sort_pairs" : "radix_sort_keys";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    using V = std::int32_t;
    device_array<T> keys = random_input<T>(e, n, 0x60), mgpu_keys(n), cccl_keys(n), cccl_keys_alt(n);
    device_array<V> values, mgpu_values, cccl_values, cccl_values_alt;
    if constexpr (pairs) {
      values = random_input<V>(e, n, 0x61);
      mgpu_values = device_array<V>(n);
      cccl_values = device_array<V>(n);
      cccl_values_alt = device_array<V>(n);
    }
    const T* cccl_keys_out = nullptr;
    const V* cccl_values_out = nullptr;
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      cub::DoubleBuffer<T> k(cccl_keys.data(), cccl_keys_alt.data());
      cudaError_t status;
      if constexpr (pairs) {
        cub::DoubleBuffer<V> v(cccl_values.data(), cccl_values_alt.data());
        status = cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, cub_count(n), 0, int(8 * sizeof(T)), e.stream());
        cccl_values_out = v.Current();
      } else {
        status = cub::DeviceRadixSort::SortKeys(temp, bytes, k, cub_count(n), 0, int(8 * sizeof(T)), e.stream());
      }
      cccl_keys_out = k.Current();
      return status;
    });
    auto restore = [&](device_array<T>& k, device_array<V>& v) {
      copy_async(k.data(), keys.data(), n, e.stream());
      if constexpr (pairs) copy_async(v.data(), values.data(), n, e.stream());
    };
    auto mgpu_run = [&] {
      if constexpr (pairs)
        mgpu::radix_sort(mgpu_keys.data(), mgpu_values.data(), n, e.ctx);
      else
        mgpu::radix_sort(mgpu_keys.data(), n, e.ctx);
    };
    case_id c{name, type_name<T>::value, n};
    e.compare_with_setup(
        c, 2.0 * double(n) * double(sizeof(T) + (pairs ? sizeof(V) : 0)), [&] { restore(mgpu_keys, mgpu_values); },
        mgpu_run, [&] { restore(cccl_keys, cccl_values); }, cccl);
    e.check(c, mgpu_keys.data(), cccl_keys_out, n);
    if constexpr (pairs) e.check(c, mgpu_values.data(), cccl_values_out, n);
  }
};

// Removes half of n random values: the odd positions (alternate), or each position with
// probability 1/2 (random). mgpu takes the sorted positions to remove (int32); the baseline,
// cub::DeviceSelect::Flagged, takes one keep flag per element (uint8). Both position list and flags
// are built before timing. Bytes: input read, positions read, survivors written.
enum class removal { alternate, random };

template <removal kind>
struct bulk_remove_case {
  static constexpr const char* name = kind == removal::alternate ? "bulk_remove_alternate" : "bulk_remove_random";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> in = random_input<T>(e, n, 0x70);
    device_array<std::uint8_t> keep(n), gone(n);
    device_array<int> positions(n), removed(n);
    device_array<std::int64_t> selected(1);
    std::uint8_t* keep_p = keep.data();
    std::uint8_t* gone_p = gone.data();
    int* positions_p = positions.data();
    const std::uint64_t seed = e.seed ^ 0x71;
    mgpu::transform(
        [=] MGPU_LAMBDA(std::int64_t i) {
          bool kept = kind == removal::alternate ? i % 2 == 0
                                                 : (bench::mix64(seed ^ bench::mix64(std::uint64_t(i))) >> 63) != 0;
          keep_p[i] = kept;
          gone_p[i] = !kept;
          positions_p[i] = int(i);
        },
        n, e.ctx);
    // The removed positions, in order: positions where gone is set.
    cub_once([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(temp, bytes, positions.data(), gone.data(), removed.data(), selected.data(), n,
                                        e.stream());
    });
    const std::int64_t r = selected.at(0, e.stream()), kept = n - r;
    device_array<T> mgpu_out(kept), cccl_out(kept);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(temp, bytes, in.data(), keep.data(), cccl_out.data(), selected.data(), n,
                                        e.stream());
    });
    auto mgpu_run = [&] { mgpu::bulk_remove(in.data(), n, removed.data(), r, mgpu_out.data(), e.ctx); };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + double(r) * sizeof(int) + double(kept) * sizeof(T), mgpu_run, cccl);
    e.check(c, mgpu_out, cccl_out, kept);
  }
};

// Inserts a (n / 2 random values) into b (the rest) before sorted random positions in
// [0, b_count] (int32). CCCL has no bulk insert: the case has no baseline (speedup "-"); the
// result is checked against a plain scatter computed before timing (a[i] goes to
// indices[i] + i, b[j] to j + the number of indices <= j). Bytes: a, indices and b read, the
// output written.
struct bulk_insert_case {
  static constexpr const char* name = "bulk_insert";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    const std::int64_t a_count = n / 2, b_count = n - a_count;
    device_array<T> a = random_input<T>(e, a_count, 0x80), b = random_input<T>(e, b_count, 0x81);
    device_array<int> unsorted(a_count), indices(a_count);
    bench::fill_random<int>(unsorted.data(), a_count, e.seed ^ 0x82, 0, int(b_count), e.ctx);
    cub_once([&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, unsorted.data(), indices.data(), cub_count(a_count), 0, 32,
                                            e.stream());
    });
    device_array<T> mgpu_out(n), expected(n);
    const T* a_p = a.data();
    const T* b_p = b.data();
    const int* idx = indices.data();
    T* expected_p = expected.data();
    mgpu::transform(
        [=] MGPU_LAMBDA(std::int64_t i) {
          if (i < a_count) {
            expected_p[idx[i] + i] = a_p[i];
          } else {
            std::int64_t j = i - a_count, lo = 0, hi = a_count;  // upper bound of j in the indices
            while (lo < hi) {
              std::int64_t mid = lo + (hi - lo) / 2;
              if (idx[mid] <= j)
                lo = mid + 1;
              else
                hi = mid;
            }
            expected_p[j + lo] = b_p[j];
          }
        },
        n, e.ctx);
    auto mgpu_run = [&] {
      mgpu::bulk_insert(a.data(), indices.data(), a_count, b.data(), b_count, mgpu_out.data(), e.ctx);
    };
    case_id c{name, type_name<T>::value, n};
    double bytes =
        double(a_count) * double(sizeof(T) + sizeof(int)) + double(b_count) * sizeof(T) + double(n) * sizeof(T);
    e.add(c, bytes, e.time("mgpu", mgpu_run), {});
    e.check(c, mgpu_out, expected, n);
  }
};

// ---- segmented sort ----------------------------------------------------------------------------

// How the n keys split into segments (shared/PERFORMANCE.md's profiles).
struct seg_profile {
  enum kind_t { fixed, random, one, half_one } kind;
  std::int64_t size;  // fixed: every segment's size (the last may be shorter); random: sizes in [0, size]
};

// The segments' offsets: element i < segments is the start of segment i, element segments is n.
// Every profile starts a segment at 0, so these are mgpu's heads (the first `segments` entries)
// and CUB's begin offsets (offsets) and end offsets (offsets + 1) alike.
std::vector<int> segment_offsets(seg_profile p, std::int64_t n, std::uint64_t seed) {
  std::vector<int> offsets;
  switch (p.kind) {
    case seg_profile::fixed:
      for (std::int64_t s = 0; s < n; s += p.size) offsets.push_back(int(s));
      break;
    case seg_profile::random: {
      std::int64_t s = 0;
      for (std::uint64_t i = 0; s < n; ++i) {
        offsets.push_back(int(s));  // sizes of 0 repeat a head: an empty segment
        s += std::int64_t(bench::mix64(seed ^ bench::mix64(i)) % std::uint64_t(p.size + 1));
      }
      break;
    }
    case seg_profile::one:
      offsets.push_back(0);
      break;
    case seg_profile::half_one:
      offsets.push_back(0);
      for (std::int64_t s = n / 2; s < n; s += 8) offsets.push_back(int(s));
      break;
  }
  offsets.push_back(int(n));
  return offsets;
}

// Random int32 keys (and values) sorted within each segment: mgpu::segmented_sort in place (input
// restored before every run, outside the timed region) against CUB's copying
// DeviceSegmentedSort::StableSortKeys / StableSortPairs (stable, so the outputs must be equal).
template <bool pairs>
void segsort_run(env& e, const std::string& name, seg_profile profile, std::int64_t n) {
  using T = std::int32_t;
  using V = std::int32_t;
  if (n > INT_MAX) throw std::invalid_argument("segsort: n does not fit in int32 offsets");
  std::vector<int> host_offsets = segment_offsets(profile, n, e.seed ^ 0x91);
  const std::int64_t segments = std::int64_t(host_offsets.size()) - 1;
  device_array<int> offsets(segments + 1);
  MGPU_CUDA_CHECK(cudaMemcpyAsync(offsets.data(), host_offsets.data(), host_offsets.size() * sizeof(int),
                                  cudaMemcpyHostToDevice, e.stream()));
  MGPU_CUDA_CHECK(cudaStreamSynchronize(e.stream()));
  device_array<T> keys = random_input<T>(e, n, 0x90), mgpu_keys(n), cccl_keys(n);
  device_array<V> values, mgpu_values, cccl_values;
  if constexpr (pairs) {
    values = random_input<V>(e, n, 0x92);
    mgpu_values = device_array<V>(n);
    cccl_values = device_array<V>(n);
  }
  const int* begins = offsets.data();
  const int* ends = offsets.data() + 1;
  cub_call cccl([&](void* temp, std::size_t& bytes) {
    if constexpr (pairs)
      return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys.data(), cccl_keys.data(), values.data(),
                                                       cccl_values.data(), n, segments, begins, ends, e.stream());
    else
      return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keys.data(), cccl_keys.data(), n, segments, begins,
                                                      ends, e.stream());
  });
  auto segs = mgpu::segments_by_heads(begins, segments);
  auto mgpu_setup = [&] {
    copy_async(mgpu_keys.data(), keys.data(), n, e.stream());
    if constexpr (pairs) copy_async(mgpu_values.data(), values.data(), n, e.stream());
  };
  auto mgpu_run = [&] {
    if constexpr (pairs)
      mgpu::segmented_sort(mgpu_keys.data(), mgpu_values.data(), n, segs, mgpu::less<T>(), e.ctx);
    else
      mgpu::segmented_sort(mgpu_keys.data(), n, segs, mgpu::less<T>(), e.ctx);
  };
  case_id c{name, type_name<T>::value, n};
  e.compare_with_setup(c, 2.0 * double(n) * double(sizeof(T) + (pairs ? sizeof(V) : 0)), mgpu_setup, mgpu_run,
                       bench::no_setup(), cccl);
  e.check(c, mgpu_keys, cccl_keys, n);
  if constexpr (pairs) e.check(c, mgpu_values, cccl_values, n);
}

// ---- locality sort -----------------------------------------------------------------------------

// Sorted keys (strictly increasing, gaps random in [1, 4], so at most 4n) with 1% of them
// displaced locally: each position, with probability 1/200, swaps with one 1 to 64 places after
// it, unless either key has already moved (0.99% of the keys move, none by more than 64 places).
// Built on the host (a sequential pass), which takes a fraction of a second at 2^26.
template <class T>
device_array<T> nearly_sorted(env& e, std::int64_t n) {
  std::vector<T> h(static_cast<std::size_t>(n));
  T key = 0;
  for (std::int64_t i = 0; i < n; ++i) h[i] = key = T(key + 1 + T(bench::mix64(e.seed ^ bench::mix64(i)) % 4));
  std::vector<bool> moved(static_cast<std::size_t>(n));  // a key swaps at most once: no drift past 64
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t r = bench::mix64((e.seed ^ 0x10ca1) ^ bench::mix64(std::uint64_t(i)));
    if (r % 200 == 0 && !moved[i]) {
      std::int64_t j = i + 1 + std::int64_t((r >> 40) % 64);
      if (j < n && !moved[j]) {
        std::swap(h[i], h[j]);
        moved[i] = moved[j] = true;
      }
    }
  }
  device_array<T> d(n);
  MGPU_CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, e.stream()));
  MGPU_CUDA_CHECK(cudaStreamSynchronize(e.stream()));
  return d;
}

// mgpu::locality_sort against mgpu::mergesort of the same input (the primary baseline: the
// target is a ratio between the two), with CUB's DeviceMergeSort::StableSortKeys for reference.
// All three sort in place from the same input, restored before every run.
enum class presorted { nearly, random };

template <presorted kind>
struct locality_sort_case {
  static constexpr const char* name = kind == presorted::nearly ? "locality_sort_nearly" : "locality_sort_random";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> keys = kind == presorted::nearly ? nearly_sorted<T>(e, n) : random_input<T>(e, n, 0xa0);
    device_array<T> mgpu_keys(n), mergesort_keys(n), cccl_keys(n);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceMergeSort::StableSortKeys(temp, bytes, cccl_keys.data(), cub_count(n), mgpu::less<T>(),
                                                  e.stream());
    });
    auto restore = [&](device_array<T>& k) {
      T* to = k.data();
      return [&e, &keys, n, to] { copy_async(to, keys.data(), n, e.stream()); };
    };
    timed locality = e.time(
        "mgpu", [&] { mgpu::locality_sort(mgpu_keys.data(), n, mgpu::less<T>(), e.ctx); }, restore(mgpu_keys));
    timed mergesort = e.time(
        "mgpu_mergesort", [&] { mgpu::mergesort(mergesort_keys.data(), n, mgpu::less<T>(), e.ctx); },
        restore(mergesort_keys));
    timed cub = e.time("cccl", cccl, restore(cccl_keys));
    case_id c{name, type_name<T>::value, n};
    e.add(c, 2.0 * double(n) * sizeof(T), locality, {mergesort, cub});
    e.check(c, mgpu_keys, cccl_keys, n);
  }
};

// ---- the registry ------------------------------------------------------------------------------

enum class elem { int32, int64, float32 };

const char* elem_name(elem t) {
  switch (t) {
    case elem::int32:
      return type_name<std::int32_t>::value;
    case elem::int64:
      return type_name<std::int64_t>::value;
    default:
      return type_name<float>::value;
  }
}

template <class Case>
void run_as(elem t, env& e, std::int64_t n) {
  switch (t) {
    case elem::int32:
      Case::template run<std::int32_t>(e, n);
      break;
    case elem::int64:
      if constexpr (Case::all_types) Case::template run<std::int64_t>(e, n);
      break;
    case elem::float32:
      if constexpr (Case::all_types) Case::template run<float>(e, n);
      break;
  }
}

// The sizes a primitive runs at (log2 n): by default, with --quick, and the headline size whose
// int32 row goes into the closing summary.
struct size_plan {
  std::vector<int> full, quick;
  int headline;
};

struct primitive {
  std::string name;  // what --filter matches
  std::function<void(elem, env&, std::int64_t)> run;
  bool all_types;  // int32, int64 and float; otherwise int32 only
  size_plan sizes;
  // With --small, graph rows too: not for a call that returns its count to the host (it waits for
  // the device, so it cannot be captured by contract).
  bool graph_rows = true;
};

template <class Case, class = void>
struct returns_count_to_host : std::false_type {};
template <class Case>
struct returns_count_to_host<Case, std::void_t<decltype(Case::returns_count_to_host)>>
    : std::bool_constant<Case::returns_count_to_host> {};

template <class Case>
primitive entry(const size_plan& sizes) {
  return {Case::name, &run_as<Case>, Case::all_types, sizes, !returns_count_to_host<Case>::value};
}

template <bool pairs>
primitive segsort_entry(const std::string& name, seg_profile profile, const size_plan& sizes) {
  return {name, [name, profile](elem, env& e, std::int64_t n) { segsort_run<pairs>(e, name, profile, n); }, false,
          sizes};
}

// ---- the search family ----------------------------------------------------------------------------

// Sorted random keys in [0, range) (duplicates where n > range), by a radix sort of random ones.
template <class T>
device_array<T> sorted_random_keys(env& e, std::int64_t n, T range, std::uint64_t salt) {
  device_array<T> unsorted(n), out(n);
  bench::fill_random<T>(unsorted.data(), n, e.seed ^ salt, T(0), T(range - 1), e.ctx);
  cub_once([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, unsorted.data(), out.data(), cub_count(n), 0, int(8 * sizeof(T)),
                                          e.stream());
  });
  return out;
}

// The sorted searches' inputs: n/2 sorted needles (a) and n - n/2 sorted haystack keys (b), in
// [0, 2n): about half the needles have a match. (Every type here holds 2^29 exactly.)
template <class T>
struct search_inputs {
  std::int64_t a_count, b_count;
  device_array<T> a, b;
  search_inputs(env& e, std::int64_t n)
      : a_count(n / 2),
        b_count(n - n / 2),
        a(sorted_random_keys<T>(e, a_count, T(2 * n), 0x90)),
        b(sorted_random_keys<T>(e, b_count, T(2 * n), 0x91)) {}
};

// Lower bounds of n/2 sorted needles in n/2 sorted haystack keys, against thrust's vectorized
// binary search (thrust::lower_bound over the same sorted needles, the best case for it).
struct sorted_search_case {
  static constexpr const char* name = "sorted_search";
  static constexpr bool all_types = true;
  template <class T>
  static void run(env& e, std::int64_t n) {
    search_inputs<T> in(e, n);
    const std::int64_t a_count = in.a_count, b_count = in.b_count;
    T *a = in.a.data(), *b = in.b.data();
    device_array<int> mgpu_out(a_count), thrust_out(a_count);
    auto mgpu_run = [&] { mgpu::sorted_search(a, a_count, b, b_count, mgpu_out.data(), mgpu::less<>(), e.ctx); };
    auto thrust_run = [&] {
      thrust::lower_bound(thrust::cuda::par_nosync.on(e.stream()), b, b + b_count, a, a + a_count, thrust_out.data());
    };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + double(a_count) * sizeof(int), mgpu_run, thrust_run, "thrust");
    e.check(c, mgpu_out.data(), thrust_out.data(), a_count);
  }
};

// Both bounds of n/2 sorted needles in n/2 sorted haystack keys, against thrust's vectorized
// lower_bound and upper_bound over the same sorted needles.
struct sorted_equal_range_case {
  static constexpr const char* name = "sorted_equal_range";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    search_inputs<T> in(e, n);
    const std::int64_t a_count = in.a_count, b_count = in.b_count;
    T *a = in.a.data(), *b = in.b.data();
    device_array<int> mgpu_lower(a_count), mgpu_upper(a_count), thrust_lower(a_count), thrust_upper(a_count);
    auto mgpu_run = [&] {
      mgpu::sorted_equal_range(a, a_count, b, b_count, mgpu_lower.data(), mgpu_upper.data(), mgpu::less<>(), e.ctx);
    };
    auto thrust_run = [&] {
      auto policy = thrust::cuda::par_nosync.on(e.stream());
      thrust::lower_bound(policy, b, b + b_count, a, a + a_count, thrust_lower.data());
      thrust::upper_bound(policy, b, b + b_count, a, a + a_count, thrust_upper.data());
    };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + 2.0 * double(a_count) * sizeof(int), mgpu_run, thrust_run, "thrust");
    e.check(c, mgpu_lower.data(), thrust_lower.data(), a_count);
    e.check(c, mgpu_upper.data(), thrust_upper.data(), a_count);
  }
};

// The number of keys of b equal to each key of a, given a's lower bounds in b (sorted_search's
// inputs), against thrust's vectorized upper_bound and a transform taking the difference.
struct sorted_equality_count_case {
  static constexpr const char* name = "sorted_equality_count";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    search_inputs<T> in(e, n);
    const std::int64_t a_count = in.a_count, b_count = in.b_count;
    T *a = in.a.data(), *b = in.b.data();
    device_array<int> lower(a_count), mgpu_out(a_count), thrust_out(a_count);
    mgpu::sorted_search(a, a_count, b, b_count, lower.data(), mgpu::less<>(), e.ctx);
    auto mgpu_run = [&] {
      mgpu::sorted_equality_count(a, lower.data(), a_count, b, b_count, mgpu_out.data(), mgpu::less<>(), e.ctx);
    };
    auto thrust_run = [&] {
      auto policy = thrust::cuda::par_nosync.on(e.stream());
      thrust::upper_bound(policy, b, b + b_count, a, a + a_count, thrust_out.data());
      thrust::transform(policy, thrust_out.data(), thrust_out.data() + a_count, lower.data(), thrust_out.data(),
                        thrust::minus<int>());
    };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + 2.0 * double(a_count) * sizeof(int), mgpu_run, thrust_run, "thrust");
    e.check(c, mgpu_out.data(), thrust_out.data(), a_count);
  }
};

// Segment sizes of a load-balancing benchmark: all `size` items, random in [0, 2 * size], or
// skewed (most segments empty or tiny, a few holding most items).
struct segment_profile {
  enum kind_t { fixed, random, skewed } kind;
  int size;
};

// The heads (exclusive scan of the sizes) of segments that generate about n items; the exact
// total is returned.
inline device_array<int> segment_heads(env& e, std::int64_t n, segment_profile profile, std::int64_t& num_segments,
                                       std::int64_t& total) {
  num_segments = profile.kind == segment_profile::skewed ? n / 16 : std::max<std::int64_t>(1, n / profile.size);
  device_array<int> sizes(num_segments), heads(num_segments), sum(1);
  int* s = sizes.data();
  std::uint64_t seed = e.seed;
  int size = profile.size;
  auto kind = profile.kind;
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::uint64_t r = bench::mix64(seed ^ bench::mix64(std::uint64_t(i)));
        if (kind == segment_profile::fixed)
          s[i] = size;
        else if (kind == segment_profile::random)
          s[i] = int(r % std::uint64_t(2 * size + 1));
        else  // 1 in 64 segments holds about 1000 items, the rest 0 or 1
          s[i] = r % 64 == 0 ? 500 + int((r >> 8) % 1000) : int((r >> 8) % 2);
      },
      num_segments, e.ctx);
  mgpu::exclusive_scan(s, num_segments, heads.data(), 0, mgpu::plus<>(), sum.data(), e.ctx);
  total = bench::value_at(sum.data(), 0, e.stream());
  return heads;
}

// Load-balancing search (segment of each item) and interval expand (each segment's value over
// its items), against thrust's upper_bound emulation and the CUB composition above.
template <bool expand>
struct lbs_case {
  static void run(env& e, const std::string& name, segment_profile profile, std::int64_t n) {
    std::int64_t num_segments = 0, total = 0;
    device_array<int> heads = segment_heads(e, n, profile, num_segments, total);
    device_array<int> values(num_segments), mgpu_out(total), thrust_out(total), cub_out(total), ids(total);
    bench::fill_random<int>(values.data(), num_segments, e.seed ^ 0xa0, 0, 1 << 30, e.ctx);
    const int* v = values.data();
    auto segs = mgpu::segments_by_heads(heads.data(), num_segments);
    auto mgpu_run = [&] {
      if constexpr (expand)
        mgpu::interval_expand(values.data(), total, segs, mgpu_out.data(), e.ctx);
      else
        mgpu::load_balance_search(total, segs, mgpu_out.data(), e.ctx);
    };
    auto thrust_run = [&] {
      auto policy = thrust::cuda::par_nosync.on(e.stream());
      thrust::upper_bound(policy, heads.data(), heads.data() + num_segments, thrust::counting_iterator<int>(0),
                          thrust::counting_iterator<int>(int(total)), thrust_out.data());
      int* o = thrust_out.data();
      thrust::transform(policy, o, o + total, o, [=] __host__ __device__(int u) { return expand ? v[u - 1] : u - 1; });
    };
    // CUB: each non-empty segment's id at its head, then a running maximum (DeviceFor, then
    // DeviceScan): the composition thrust's expand example uses; then the values gathered.
    cub_call cub_scan([&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(temp, bytes, cub_out.data(), cub_out.data(), mgpu::maximum<>(),
                                            cub_count(total), e.stream());
    });
    auto cub_run = [&] {
      int* o = cub_out.data();
      const int* h = heads.data();
      std::int64_t num = num_segments, t = total;
      MGPU_CUDA_CHECK(cudaMemsetAsync(o, 0, std::size_t(t) * sizeof(int), e.stream()));
      MGPU_CUDA_CHECK(cub::DeviceFor::ForEachN(
          thrust::counting_iterator<int>(0), cub_count(num),
          [=] __device__(int s) {
            int end = s + 1 < num ? h[s + 1] : int(t);
            if (h[s] < end) o[h[s]] = s;
          },
          e.stream()));
      cub_scan();
      if constexpr (expand)
        MGPU_CUDA_CHECK(cub::DeviceFor::ForEachN(
            thrust::counting_iterator<std::int64_t>(0), t, [=] __device__(std::int64_t i) { o[i] = v[o[i]]; },
            e.stream()));
    };
    case_id c{name, "int32", n};
    double bytes = double(total) * sizeof(int) + double(num_segments) * sizeof(int) * (expand ? 2 : 1);
    timed m = e.time("mgpu", mgpu_run);
    timed t = e.time("thrust", thrust_run);
    timed b = e.time("cub_composition", cub_run);
    e.add(c, bytes, m, {t, b});
    e.check(c, mgpu_out.data(), thrust_out.data(), total);
    e.check(c, mgpu_out.data(), cub_out.data(), total);
  }
};

// interval_move: many copies of a segment profile's sizes at once, each segment read from the
// source in reverse segment order (gather) and written where its head says (scatter), against
// cub::DeviceCopy::Batched given the same ranges as pointers and sizes. Bytes: the items read and
// written, and the heads, gathers and scatters read.
struct move_ranges {
  const int* heads;
  std::int64_t num_segments, total;
  MGPU_HOST_DEVICE std::int64_t begin(std::int64_t s) const { return heads[s]; }
  MGPU_HOST_DEVICE std::int64_t end(std::int64_t s) const { return s + 1 < num_segments ? heads[s + 1] : total; }
  MGPU_HOST_DEVICE std::int64_t gather(std::int64_t s) const { return total - end(s); }
};
struct move_sources {
  move_ranges r;
  const int* input;
  MGPU_HOST_DEVICE const int* operator()(std::int64_t s) const { return input + r.gather(s); }
};
struct move_destinations {
  move_ranges r;
  int* output;
  MGPU_HOST_DEVICE int* operator()(std::int64_t s) const { return output + r.begin(s); }
};
struct move_sizes {
  move_ranges r;
  MGPU_HOST_DEVICE int operator()(std::int64_t s) const { return int(r.end(s) - r.begin(s)); }
};

struct interval_move_case {
  static void run(env& e, const std::string& name, segment_profile profile, std::int64_t n) {
    std::int64_t num_segments = 0, total = 0;
    device_array<int> heads = segment_heads(e, n, profile, num_segments, total);
    device_array<int> input(total), gather(num_segments), mgpu_out(total), cub_out(total);
    bench::fill_random<int>(input.data(), total, e.seed ^ 0xb0, 0, 1 << 30, e.ctx);
    const move_ranges r{heads.data(), num_segments, total};
    int* g = gather.data();
    mgpu::transform([=] MGPU_LAMBDA(std::int64_t s) { g[s] = int(r.gather(s)); }, num_segments, e.ctx);
    auto mgpu_run = [&] {
      mgpu::interval_move(input.data(), total, mgpu::segments_by_heads(heads.data(), num_segments), gather.data(),
                          heads.data(), mgpu_out.data(), e.ctx);
    };
    auto segment = thrust::counting_iterator<std::int64_t>(0);
    cub_call cub_run([&](void* temp, std::size_t& bytes) {
      return cub::DeviceCopy::Batched(
          temp, bytes, thrust::make_transform_iterator(segment, move_sources{r, input.data()}),
          thrust::make_transform_iterator(segment, move_destinations{r, cub_out.data()}),
          thrust::make_transform_iterator(segment, move_sizes{r}), num_segments, e.stream());
    });
    case_id c{name, "int32", n};
    e.compare(c, 2.0 * double(total) * sizeof(int) + 3.0 * double(num_segments) * sizeof(int), mgpu_run, cub_run,
              "cub_batched");
    e.check(c, mgpu_out.data(), cub_out.data(), total);
  }
};

// An inner join of two sorted inputs of n/2 keys with about two matches per key, against the
// thrust composition: both bounds, counts, their scan, then rows by the upper_bound emulation.
// Both forms return the row count to the host (the host form of mgpu::join).
struct join_case {
  static constexpr const char* name = "join_inner";
  static constexpr bool all_types = false;
  static constexpr bool returns_count_to_host = true;
  template <class T>
  static void run(env& e, std::int64_t n) {
    const std::int64_t a_count = n / 2, b_count = n - a_count;
    device_array<T> a = sorted_random_keys<T>(e, a_count, T(a_count / 2), 0xb0);
    device_array<T> b = sorted_random_keys<T>(e, b_count, T(b_count / 2), 0xb1);
    std::int64_t rows = 0;
    auto mgpu_run = [&] {
      rows = mgpu::join(a.data(), a_count, b.data(), b_count, mgpu::join_kind::inner, mgpu::less<>(), e.ctx).count;
    };
    device_array<int> lower(a_count), upper(a_count), offsets(a_count);
    device_array<std::int64_t> ta, tb;
    std::int64_t thrust_rows = 0;
    auto thrust_run = [&] {
      auto policy = thrust::cuda::par_nosync.on(e.stream());
      thrust::lower_bound(policy, b.data(), b.data() + b_count, a.data(), a.data() + a_count, lower.data());
      thrust::upper_bound(policy, b.data(), b.data() + b_count, a.data(), a.data() + a_count, upper.data());
      thrust::transform(policy, upper.data(), upper.data() + a_count, lower.data(), offsets.data(),
                        [] __host__ __device__(int u, int l) { return u - l; });
      int last_count = bench::value_at(offsets.data(), a_count - 1, e.stream());
      thrust::exclusive_scan(policy, offsets.data(), offsets.data() + a_count, offsets.data());
      thrust_rows = std::int64_t(bench::value_at(offsets.data(), a_count - 1, e.stream())) + last_count;
      if (ta.size() < thrust_rows)
        ta = device_array<std::int64_t>(thrust_rows), tb = device_array<std::int64_t>(thrust_rows);
      thrust::upper_bound(policy, offsets.data(), offsets.data() + a_count, thrust::counting_iterator<std::int64_t>(0),
                          thrust::counting_iterator<std::int64_t>(thrust_rows), ta.data());
      const int* off = offsets.data();
      const int* lo = lower.data();
      std::int64_t* ap = ta.data();
      std::int64_t* bp = tb.data();
      thrust::for_each_n(policy, thrust::counting_iterator<std::int64_t>(0), thrust_rows,
                         [=] __device__(std::int64_t r) {
                           std::int64_t i = ap[r] - 1;
                           ap[r] = i;
                           bp[r] = lo[i] + (r - off[i]);
                         });
      MGPU_CUDA_CHECK(cudaStreamSynchronize(e.stream()));
    };
    case_id c{name, type_name<T>::value, n};
    timed m = e.time("mgpu", mgpu_run);
    timed t = e.time("thrust", thrust_run);
    // Bytes: both inputs read, each row's two indices written.
    e.add(c, double(n) * sizeof(T) + double(rows) * 16, m, {t});
    mgpu::join_result r =
        mgpu::join(a.data(), a_count, b.data(), b_count, mgpu::join_kind::inner, mgpu::less<>(), e.ctx);
    if (r.count != thrust_rows) {
      e.out.mismatch(c, "rows " + std::to_string(r.count) + ", thrust " + std::to_string(thrust_rows));
    } else {
      e.check(c, r.a_indices.data(), ta.data(), r.count);
      e.check(c, r.b_indices.data(), tb.data(), r.count);
    }
  }
};

// ---- set operations --------------------------------------------------------------------------

// Calls mgpu's set operation `kind` with these arguments (any form).
template <mgpu::set_kind kind, class... Args>
auto mgpu_set(Args&&... args) {
  if constexpr (kind == mgpu::set_kind::intersection)
    return mgpu::set_intersection(std::forward<Args>(args)...);
  else if constexpr (kind == mgpu::set_kind::union_)
    return mgpu::set_union(std::forward<Args>(args)...);
  else if constexpr (kind == mgpu::set_kind::difference)
    return mgpu::set_difference(std::forward<Args>(args)...);
  else
    return mgpu::set_symmetric_difference(std::forward<Args>(args)...);
}

// thrust's set operation `kind` on keys, or with pairs on keys and values (set_intersection_by_key
// takes a's values only), on `policy`; returns the number of keys written.
template <mgpu::set_kind kind, bool pairs, class Policy, class K, class V>
std::int64_t thrust_set(Policy policy, const K* a, std::int64_t a_count, const K* b, std::int64_t b_count,
                        const V* a_values, const V* b_values, K* keys_out, V* values_out) {
  K* end = nullptr;
  if constexpr (kind == mgpu::set_kind::intersection && pairs)
    end = thrust::set_intersection_by_key(policy, a, a + a_count, b, b + b_count, a_values, keys_out, values_out).first;
  else if constexpr (kind == mgpu::set_kind::intersection)
    end = thrust::set_intersection(policy, a, a + a_count, b, b + b_count, keys_out);
  else if constexpr (kind == mgpu::set_kind::union_ && pairs)
    end = thrust::set_union_by_key(policy, a, a + a_count, b, b + b_count, a_values, b_values, keys_out, values_out)
              .first;
  else if constexpr (kind == mgpu::set_kind::union_)
    end = thrust::set_union(policy, a, a + a_count, b, b + b_count, keys_out);
  else if constexpr (kind == mgpu::set_kind::difference && pairs)
    end =
        thrust::set_difference_by_key(policy, a, a + a_count, b, b + b_count, a_values, b_values, keys_out, values_out)
            .first;
  else if constexpr (kind == mgpu::set_kind::difference)
    end = thrust::set_difference(policy, a, a + a_count, b, b + b_count, keys_out);
  else if constexpr (pairs)
    end = thrust::set_symmetric_difference_by_key(policy, a, a + a_count, b, b + b_count, a_values, b_values, keys_out,
                                                  values_out)
              .first;
  else
    end = thrust::set_symmetric_difference(policy, a, a + a_count, b, b + b_count, keys_out);
  return end - keys_out;
}

constexpr const char* set_case_name(mgpu::set_kind kind, bool pairs) {
  switch (kind) {
    case mgpu::set_kind::intersection:
      return pairs ? "set_intersection_pairs" : "set_intersection_keys";
    case mgpu::set_kind::union_:
      return pairs ? "set_union_pairs" : "set_union_keys";
    case mgpu::set_kind::difference:
      return pairs ? "set_difference_pairs" : "set_difference_keys";
    default:
      return pairs ? "set_symmetric_difference_pairs" : "set_symmetric_difference_keys";
  }
}

// A set operation on two sorted inputs of n/2 keys in [0, n/2) (each key has Poisson(1) copies on
// each side: moderate duplicates), against thrust::set_* (thrust::set_*_by_key for pairs). Both
// return the count to the host: mgpu's host form, and thrust's returned end. mgpu's device form,
// which leaves the count in device memory and does not wait, is timed as a reference
// (`mgpu_device_form`). Bytes: both inputs read, the output written.
template <mgpu::set_kind kind, bool pairs>
struct set_case {
  static constexpr const char* name = set_case_name(kind, pairs);
  static constexpr bool all_types = false;
  static constexpr bool returns_count_to_host = true;
  template <class T>
  static void run(env& e, std::int64_t n) {
    using V = std::int32_t;
    const std::int64_t a_count = n / 2, b_count = n - a_count;
    device_array<T> a = sorted_random_keys<T>(e, a_count, T(a_count), 0xc0),
                    b = sorted_random_keys<T>(e, b_count, T(a_count), 0xc1);
    device_array<T> mgpu_keys(n), thrust_keys(n);
    device_array<V> a_values, b_values, mgpu_values, thrust_values;
    if constexpr (pairs) {
      a_values = random_input<V>(e, a_count, 0xc2);
      b_values = random_input<V>(e, b_count, 0xc3);
      mgpu_values = device_array<V>(n);
      thrust_values = device_array<V>(n);
    }
    device_array<std::int64_t> count_out(1);
    std::int64_t count = 0, thrust_count = 0;
    auto mgpu_run = [&] {
      if constexpr (pairs)
        count = mgpu_set<kind>(a.data(), a_values.data(), a_count, b.data(), b_values.data(), b_count, mgpu_keys.data(),
                               mgpu_values.data(), mgpu::less<>(), e.ctx);
      else
        count = mgpu_set<kind>(a.data(), a_count, b.data(), b_count, mgpu_keys.data(), mgpu::less<>(), e.ctx);
    };
    auto mgpu_device_run = [&] {
      if constexpr (pairs)
        mgpu_set<kind>(a.data(), a_values.data(), a_count, b.data(), b_values.data(), b_count, mgpu_keys.data(),
                       mgpu_values.data(), count_out.data(), mgpu::less<>(), e.ctx);
      else
        mgpu_set<kind>(a.data(), a_count, b.data(), b_count, mgpu_keys.data(), count_out.data(), mgpu::less<>(), e.ctx);
    };
    auto thrust_run = [&] {
      thrust_count =
          thrust_set<kind, pairs>(thrust::cuda::par_nosync.on(e.stream()), a.data(), a_count, b.data(), b_count,
                                  a_values.data(), b_values.data(), thrust_keys.data(), thrust_values.data());
    };
    case_id c{name, type_name<T>::value, n};
    timed m = e.time("mgpu", mgpu_run);
    timed t = e.time("thrust", thrust_run);
    timed d = e.time("mgpu_device_form", mgpu_device_run);
    e.add(c, double(n) * sizeof(T) + double(count) * double(sizeof(T) + (pairs ? sizeof(V) : 0)), m, {t, d});
    std::int64_t device_count = count_out.at(0, e.stream());
    if (count != thrust_count || device_count != count) {
      e.out.mismatch(c, "count " + std::to_string(count) + " (device form " + std::to_string(device_count) +
                            "), thrust " + std::to_string(thrust_count));
    } else {
      e.check(c, mgpu_keys.data(), thrust_keys.data(), count);
      if constexpr (pairs) e.check(c, mgpu_values.data(), thrust_values.data(), count);
    }
  }
};

// ---- the primer patterns -------------------------------------------------------------------------

// Keeps values below a threshold: one namespace-scope functor that both CUB and mgpu call.
template <class T>
struct below_threshold {
  T threshold;
  __host__ __device__ bool operator()(const T& x) const { return x < threshold; }
};

// Compaction of n values uniform in [0, 1000) keeping about half: by predicate (x < 500) against
// cub::DeviceSelect::If, or by random uint8 flags against cub::DeviceSelect::Flagged. Both write
// their count to device memory. Bytes: the values read, the flags read, the kept values written.
template <bool flagged>
struct compact_case {
  static constexpr const char* name = flagged ? "compact_flagged" : "compact_if";
  static constexpr bool all_types = !flagged;
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> in(n), mgpu_out(n), cccl_out(n);
    device_array<std::uint8_t> flags(flagged ? n : 0);
    device_array<std::int64_t> mgpu_count(1), cccl_count(1);
    bench::fill_random<T>(in.data(), n, e.seed ^ 0xc0, T(0), T(999), e.ctx);
    if constexpr (flagged) bench::fill_random<std::uint8_t>(flags.data(), n, e.seed ^ 0xc1, 0, 1, e.ctx);
    const below_threshold<T> keep{T(500)};
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      if constexpr (flagged)
        return cub::DeviceSelect::Flagged(temp, bytes, in.data(), flags.data(), cccl_out.data(), cccl_count.data(), n,
                                          e.stream());
      else
        return cub::DeviceSelect::If(temp, bytes, in.data(), cccl_out.data(), cccl_count.data(), n, keep, e.stream());
    });
    auto mgpu_run = [&] {
      if constexpr (flagged)
        mgpu::compact_by_flags(in.data(), flags.data(), n, mgpu_out.data(), mgpu_count.data(), e.ctx);
      else
        mgpu::compact(in.data(), n, mgpu_out.data(), mgpu_count.data(), keep, e.ctx);
    };
    cccl();
    const std::int64_t kept = bench::value_at(cccl_count.data(), 0, e.stream());
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + (flagged ? double(n) : 0.0) + double(kept) * sizeof(T), mgpu_run, cccl);
    const std::int64_t mgpu_kept = bench::value_at(mgpu_count.data(), 0, e.stream());
    if (mgpu_kept != kept)
      e.out.mismatch(c, "count " + std::to_string(mgpu_kept) + ", cccl " + std::to_string(kept));
    else
      e.check(c, mgpu_out, cccl_out, kept);
  }
};

// A histogram of n int32 samples uniform in [0, 2^24) in BINS even bins over that range, against
// cub::DeviceHistogram::HistogramEven (BINS + 1 levels). Bytes: the samples read, the bins written.
template <int BINS>
struct histogram_case {
  static constexpr const char* name = BINS == 256     ? "histogram_256"
                                      : BINS == 65536 ? "histogram_65536"
                                                      : "histogram_1048576";
  static constexpr bool all_types = false;
  template <class T>
  static void run(env& e, std::int64_t n) {
    device_array<T> samples(n);
    device_array<int> mgpu_bins(BINS), cccl_bins(BINS);
    const T upper = T(1) << 24;
    bench::fill_random<T>(samples.data(), n, e.seed ^ 0xd0, T(0), T(upper - 1), e.ctx);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceHistogram::HistogramEven(temp, bytes, samples.data(), cccl_bins.data(), BINS + 1, T(0), upper,
                                                 cub_count(n), e.stream());
    });
    auto mgpu_run = [&] { mgpu::histogram(samples.data(), n, mgpu_bins.data(), BINS, T(0), upper, e.ctx); };
    case_id c{name, type_name<T>::value, n};
    e.compare(c, double(n) * sizeof(T) + double(BINS) * sizeof(int), mgpu_run, cccl);
    e.check(c, mgpu_bins, cccl_bins, BINS);
  }
};

// Segmented sums of about n int32 values in [-64, 63] split by a segment profile (as the
// load-balancing cases), by segments_by_heads, against CUB's by-key scan whose keys are the
// segment ids (made by load_balance_search before timing). Bytes: mgpu's interface, the values
// and the heads read, the sums written (CUB reads a key per value instead of the heads).
template <bool inclusive>
struct segmented_scan_case {
  static void run(env& e, const std::string& name, segment_profile profile, std::int64_t n) {
    std::int64_t num_segments = 0, total = 0;
    device_array<int> heads = segment_heads(e, n, profile, num_segments, total);
    device_array<int> values = summable_input<int>(e, total), keys(total), mgpu_out(total), cccl_out(total);
    auto segs = mgpu::segments_by_heads(heads.data(), num_segments);
    mgpu::load_balance_search(total, segs, keys.data(), e.ctx);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      if constexpr (inclusive)
        return cub::DeviceScan::InclusiveSumByKey(temp, bytes, keys.data(), values.data(), cccl_out.data(),
                                                  cub_count(total), ::cuda::std::equal_to<>(), e.stream());
      else
        return cub::DeviceScan::ExclusiveSumByKey(temp, bytes, keys.data(), values.data(), cccl_out.data(),
                                                  cub_count(total), ::cuda::std::equal_to<>(), e.stream());
    });
    auto mgpu_run = [&] {
      if constexpr (inclusive)
        mgpu::segmented_inclusive_scan(values.data(), total, segs, mgpu_out.data(), mgpu::plus<int>(), e.ctx);
      else
        mgpu::segmented_exclusive_scan(values.data(), total, segs, mgpu_out.data(), 0, mgpu::plus<int>(), e.ctx);
    };
    case_id c{name, "int32", n};
    e.compare(c, 2.0 * double(total) * sizeof(int) + double(num_segments) * sizeof(int), mgpu_run, cccl);
    e.check(c, mgpu_out, cccl_out, total);
  }
};

template <bool inclusive>
primitive segmented_scan_entry(const std::string& name, segment_profile profile, const size_plan& sizes) {
  return {name,
          [name, profile](elem, env& e, std::int64_t n) { segmented_scan_case<inclusive>::run(e, name, profile, n); },
          false, sizes};
}

primitive interval_move_entry(const std::string& name, segment_profile profile, const size_plan& sizes) {
  return {name, [name, profile](elem, env& e, std::int64_t n) { interval_move_case::run(e, name, profile, n); }, false,
          sizes};
}

template <bool expand>
primitive lbs_entry(const std::string& name, segment_profile profile, const size_plan& sizes) {
  return {name, [name, profile](elem, env& e, std::int64_t n) { lbs_case<expand>::run(e, name, profile, n); }, false,
          sizes};
}

// ---- segmented reduce, reduce by key, spmv --------------------------------------------------------

// CSR offsets (num_segments + 1 entries, the last the total) of segments of about n items in all,
// sized by `profile` (fixed, or skewed as lbs_skewed); the sizes' exclusive scan, made on the device.
inline device_array<int> segment_offsets(env& e, std::int64_t n, segment_profile profile, std::int64_t& num_segments,
                                         std::int64_t& total) {
  num_segments = profile.kind == segment_profile::skewed ? n / 16 : std::max<std::int64_t>(1, n / profile.size);
  device_array<int> sizes(num_segments + 1), offsets(num_segments + 1);
  int* s = sizes.data();
  std::uint64_t seed = e.seed ^ 0xc0;
  int size = profile.size;
  auto kind = profile.kind;
  std::int64_t last = num_segments;
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        std::uint64_t r = bench::mix64(seed ^ bench::mix64(std::uint64_t(i)));
        if (i == last)
          s[i] = 0;
        else if (kind == segment_profile::skewed)
          s[i] = r % 64 == 0 ? 500 + int((r >> 8) % 1000) : int((r >> 8) % 2);
        else if (kind == segment_profile::random)
          s[i] = int(r % std::uint64_t(2 * size + 1));
        else
          s[i] = size;
      },
      num_segments + 1, e.ctx);
  mgpu::exclusive_scan(s, num_segments + 1, offsets.data(), 0, mgpu::plus<>(), e.ctx);
  total = offsets.at(num_segments, e.stream());
  return offsets;
}

// Sums of int32 values (in [-64, 63]) over segments given by CSR offsets: mgpu::segmented_reduce
// with segments_by_heads(offsets, num_segments) against cub::DeviceSegmentedReduce::Sum with the
// same offsets as begin (offsets) and end (offsets + 1) iterators.
struct segreduce_runner {
  static void run(env& e, const std::string& name, segment_profile profile, std::int64_t n) {
    std::int64_t num_segments = 0, total = 0;
    device_array<int> offsets = segment_offsets(e, n, profile, num_segments, total);
    device_array<int> in = summable_input<int>(e, total), mgpu_out(num_segments), cccl_out(num_segments);
    const int* begins = offsets.data();
    const int* ends = offsets.data() + 1;
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, in.data(), cccl_out.data(), cub_count(num_segments), begins,
                                             ends, e.stream());
    });
    auto mgpu_run = [&] {
      mgpu::segmented_reduce(in.data(), total, mgpu::segments_by_heads(begins, num_segments), mgpu_out.data(), 0,
                             mgpu::plus<int>(), e.ctx);
    };
    case_id c{name, "int32", n};
    // Bytes: the values and the offsets read, one sum per segment written.
    e.compare(c, double(total) * 4 + double(num_segments + 1) * 4 + double(num_segments) * 4, mgpu_run, cccl);
    e.check(c, mgpu_out, cccl_out, num_segments);
  }
};

// Sums of int32 values by runs of equal int32 keys, a run starting at each position with
// probability 1 / average_run (1: every key differs from the one before): mgpu::reduce_by_key
// against cub::DeviceReduce::ReduceByKey, both writing the run count to device memory.
struct reduce_by_key_runner {
  static void run(env& e, const std::string& name, int average_run, std::int64_t n) {
    device_array<int> starts(n), keys(n), values = summable_input<int>(e, n);
    device_array<int> mgpu_keys(n), mgpu_values(n), cccl_keys(n), cccl_values(n);
    device_array<std::int64_t> mgpu_runs(1), cccl_runs(1);
    int* st = starts.data();
    std::uint64_t seed = e.seed ^ 0xc1;
    mgpu::transform(
        [=] MGPU_LAMBDA(std::int64_t i) {
          st[i] = bench::mix64(seed ^ bench::mix64(std::uint64_t(i))) % std::uint64_t(average_run) == 0;
        },
        n, e.ctx);
    mgpu::inclusive_scan(st, n, keys.data(), mgpu::plus<>(), e.ctx);
    cub_call cccl([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(temp, bytes, keys.data(), cccl_keys.data(), values.data(),
                                            cccl_values.data(), cccl_runs.data(), mgpu::plus<int>(), cub_count(n),
                                            e.stream());
    });
    auto mgpu_run = [&] {
      mgpu::reduce_by_key(keys.data(), values.data(), n, mgpu_keys.data(), mgpu_values.data(), mgpu_runs.data(),
                          mgpu::plus<int>(), e.ctx);
    };
    timed m = e.time("mgpu", mgpu_run);
    timed b = e.time("cccl", cccl);
    const std::int64_t runs = cccl_runs.at(0, e.stream()), mgpu_count = mgpu_runs.at(0, e.stream());
    case_id c{name, "int32", n};
    // Bytes: keys and values read, a key and a sum per run written (and the count).
    e.add(c, double(n) * 8 + double(runs) * 8 + 8, m, {b});
    if (mgpu_count != runs) {
      e.out.mismatch(c, "runs " + std::to_string(mgpu_count) + ", cub " + std::to_string(runs));
    } else {
      e.check(c, mgpu_keys, cccl_keys, runs);
      e.check(c, mgpu_values, cccl_values, runs);
    }
  }
};

#define BENCH_CUSPARSE_CHECK(call)                                                                  \
  do {                                                                                              \
    cusparseStatus_t status_ = (call);                                                              \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                                         \
      throw std::runtime_error(std::string(#call) + " failed: " + cusparseGetErrorString(status_)); \
  } while (0)

// cusparseSpMV of a CSR matrix with 32-bit offsets and column indices, y = A x (alpha 1, beta 0),
// CUSPARSE_SPMV_CSR_ALG1, preprocessed: everything but the product is made at construction.
template <class V>
class cusparse_spmv {
 public:
  cusparse_spmv(const int* offsets, const int* columns, const V* values, std::int64_t rows, std::int64_t cols,
                std::int64_t nnz, const V* x, V* y, cudaStream_t stream) {
    constexpr cudaDataType type = std::is_same<V, double>::value ? CUDA_R_64F : CUDA_R_32F;
    BENCH_CUSPARSE_CHECK(cusparseCreate(&handle_));
    BENCH_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    BENCH_CUSPARSE_CHECK(cusparseCreateCsr(&a_, rows, cols, nnz, const_cast<int*>(offsets), const_cast<int*>(columns),
                                           const_cast<V*>(values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, type));
    BENCH_CUSPARSE_CHECK(cusparseCreateDnVec(&x_, cols, const_cast<V*>(x), type));
    BENCH_CUSPARSE_CHECK(cusparseCreateDnVec(&y_, rows, y, type));
    std::size_t bytes = 0;
    BENCH_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a_, x_, &beta_, y_,
                                                 type, CUSPARSE_SPMV_CSR_ALG1, &bytes));
    buffer_ = device_array<unsigned char>(std::int64_t(std::max<std::size_t>(bytes, 1)));
    BENCH_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a_, x_, &beta_, y_,
                                                 type, CUSPARSE_SPMV_CSR_ALG1, buffer_.data()));
  }
  ~cusparse_spmv() {
    if (y_) cusparseDestroyDnVec(y_);
    if (x_) cusparseDestroyDnVec(x_);
    if (a_) cusparseDestroySpMat(a_);
    if (handle_) cusparseDestroy(handle_);
  }
  cusparse_spmv(const cusparse_spmv&) = delete;
  cusparse_spmv& operator=(const cusparse_spmv&) = delete;
  void operator()() {
    constexpr cudaDataType type = std::is_same<V, double>::value ? CUDA_R_64F : CUDA_R_32F;
    BENCH_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a_, x_, &beta_, y_, type,
                                      CUSPARSE_SPMV_CSR_ALG1, buffer_.data()));
  }

 private:
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t a_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  V alpha_ = 1, beta_ = 0;
  device_array<unsigned char> buffer_;
};

// y = A x in float and double: mgpu::spmv on a plan made before timing, against cusparseSpMV
// (CSR_ALG1, preprocessed); mgpu::spmv without a plan (partitioning in every call) is a reference
// line. Values and x uniform in [0, 1). Bytes: values and column indices read, the offsets read, x
// read once (a gather, from cache for most entries), y written.
template <class V>
void spmv_run(env& e, const std::string& name, matrix_kind kind, std::int64_t n) {
  bench::csr_structure a = bench::make_csr_structure(kind, n, e.seed ^ 0xc2, e.ctx);
  const std::int64_t rows = a.rows, cols = a.cols, nnz = a.nnz;
  device_array<V> values(nnz), x(cols), mgpu_y(rows), cusparse_y(rows), unplanned_y(rows);
  bench::fill_random<V>(values.data(), nnz, e.seed ^ 0xc3, V(0), V(1), e.ctx);
  bench::fill_random<V>(x.data(), cols, e.seed ^ 0xc4, V(0), V(1), e.ctx);

  auto matrix = mgpu::make_csr_matrix(values.data(), a.columns.data(), a.offsets.data(), rows, cols, nnz);
  auto plan = mgpu::spmv_preprocess(matrix, e.ctx);
  cusparse_spmv<V> cusparse(a.offsets.data(), a.columns.data(), values.data(), rows, cols, nnz, x.data(),
                            cusparse_y.data(), e.stream());
  timed m = e.time("mgpu", [&] { mgpu::spmv(plan, x.data(), mgpu_y.data(), e.ctx); });
  timed b = e.time("cusparse", [&] { cusparse(); });
  timed u = e.time("mgpu_no_plan", [&] { mgpu::spmv(matrix, x.data(), unplanned_y.data(), e.ctx); });
  case_id id{name, type_name<V>::value, n};
  double bytes = double(nnz) * double(sizeof(V) + 4) + double(rows + 1) * 4 + double(cols + rows) * sizeof(V);
  e.add(id, bytes, m, {b, u});
  e.check(id, mgpu_y, cusparse_y, rows);
  e.check(id, unplanned_y, cusparse_y, rows);
}

primitive segreduce_entry(const std::string& name, segment_profile profile, const size_plan& sizes) {
  return {name, [name, profile](elem, env& e, std::int64_t n) { segreduce_runner::run(e, name, profile, n); }, false,
          sizes};
}
primitive reduce_by_key_entry(const std::string& name, int average_run, const size_plan& sizes) {
  return {name,
          [name, average_run](elem, env& e, std::int64_t n) { reduce_by_key_runner::run(e, name, average_run, n); },
          false, sizes};
}
primitive spmv_entry(const std::string& name, matrix_kind kind, const size_plan& sizes) {
  return {name,
          [name, kind](elem, env& e, std::int64_t n) {
            spmv_run<float>(e, name, kind, n);
            spmv_run<double>(e, name, kind, n);
          },
          false, sizes};
}

// In report order.
const std::vector<primitive>& primitives() {
  const size_plan streaming_all{{20, 22, 24, 26, 28}, {24, 28}, 28};  // reduce and scans
  const size_plan streaming{{20, 22, 24, 26, 28}, {28}, 28};          // merge, bulk remove and insert
  const size_plan sorting{{22, 26}, {26}, 26};                        // sorts
  const size_plan profile{{26}, {26}, 26};                            // segmented sort profiles
  const size_plan profile_28{{24, 28}, {28}, 28};                     // segmented scan profiles
  using sp = seg_profile;
  static const std::vector<primitive> list = {
      entry<reduce_case>(streaming_all),
      entry<scan_case<mgpu::scan_kind::exclusive>>(streaming_all),
      entry<scan_case<mgpu::scan_kind::inclusive>>(streaming_all),
      entry<merge_case<false>>(streaming),
      entry<merge_case<true>>(streaming),
      entry<mergesort_case<false>>(sorting),
      entry<mergesort_case<true>>(sorting),
      entry<radix_sort_case<false>>(sorting),
      entry<radix_sort_case<true>>(sorting),
      entry<bulk_remove_case<removal::alternate>>(streaming),
      entry<bulk_remove_case<removal::random>>(streaming),
      entry<bulk_insert_case>(streaming),
      segsort_entry<false>("segsort_fixed_2", {sp::fixed, 2}, profile),
      segsort_entry<false>("segsort_fixed_8", {sp::fixed, 8}, profile),
      segsort_entry<false>("segsort_fixed_16", {sp::fixed, 16}, profile),
      segsort_entry<false>("segsort_fixed_32", {sp::fixed, 32}, profile),  // the small-inputs issue's row
      segsort_entry<false>("segsort_fixed_96", {sp::fixed, 96}, profile),
      segsort_entry<false>("segsort_fixed_128", {sp::fixed, 128}, profile),
      segsort_entry<false>("segsort_fixed_256", {sp::fixed, 256}, profile),
      segsort_entry<false>("segsort_fixed_1024", {sp::fixed, 1024}, profile),
      segsort_entry<false>("segsort_fixed_16384", {sp::fixed, 1 << 14}, profile),
      segsort_entry<false>("segsort_fixed_1048576", {sp::fixed, 1 << 20}, profile),
      segsort_entry<false>("segsort_random_0_128", {sp::random, 128}, profile),
      segsort_entry<false>("segsort_one", {sp::one, 0}, profile),
      segsort_entry<false>("segsort_half_one", {sp::half_one, 0}, profile),
      segsort_entry<true>("segsort_pairs_fixed_8", {sp::fixed, 8}, profile),
      segsort_entry<true>("segsort_pairs_fixed_128", {sp::fixed, 128}, profile),
      segsort_entry<true>("segsort_pairs_fixed_1024", {sp::fixed, 1024}, profile),
      segsort_entry<true>("segsort_pairs_random_0_128", {sp::random, 128}, profile),
      entry<locality_sort_case<presorted::nearly>>(sorting),
      entry<locality_sort_case<presorted::random>>(sorting),
      entry<sorted_search_case>(streaming),
      entry<sorted_equal_range_case>(streaming),
      entry<sorted_equality_count_case>(streaming),
      lbs_entry<false>("lbs_fixed_1", {segment_profile::fixed, 1}, profile),
      lbs_entry<false>("lbs_fixed_8", {segment_profile::fixed, 8}, profile),
      lbs_entry<false>("lbs_random_64", {segment_profile::random, 64}, profile),
      lbs_entry<false>("lbs_fixed_1024", {segment_profile::fixed, 1024}, profile),
      lbs_entry<false>("lbs_skewed", {segment_profile::skewed, 0}, profile),
      lbs_entry<true>("interval_expand_fixed_1", {segment_profile::fixed, 1}, profile),
      lbs_entry<true>("interval_expand_fixed_8", {segment_profile::fixed, 8}, profile),
      lbs_entry<true>("interval_expand_random_64", {segment_profile::random, 64}, profile),
      lbs_entry<true>("interval_expand_fixed_1024", {segment_profile::fixed, 1024}, profile),
      lbs_entry<true>("interval_expand_skewed", {segment_profile::skewed, 0}, profile),
      interval_move_entry("interval_move_fixed_8", {segment_profile::fixed, 8}, profile),
      interval_move_entry("interval_move_random_64", {segment_profile::random, 64}, profile),
      interval_move_entry("interval_move_fixed_1024", {segment_profile::fixed, 1024}, profile),
      interval_move_entry("interval_move_skewed", {segment_profile::skewed, 0}, profile),
      entry<join_case>(sorting),
      entry<set_case<mgpu::set_kind::intersection, false>>(streaming),
      entry<set_case<mgpu::set_kind::union_, false>>(streaming),
      entry<set_case<mgpu::set_kind::difference, false>>(streaming),
      entry<set_case<mgpu::set_kind::symmetric_difference, false>>(streaming),
      entry<set_case<mgpu::set_kind::union_, true>>(streaming),
      segreduce_entry("segreduce_fixed_1", {segment_profile::fixed, 1}, profile),
      segreduce_entry("segreduce_fixed_4", {segment_profile::fixed, 4}, profile),
      segreduce_entry("segreduce_fixed_32", {segment_profile::fixed, 32}, profile),
      segreduce_entry("segreduce_fixed_128", {segment_profile::fixed, 128}, profile),
      segreduce_entry("segreduce_fixed_1024", {segment_profile::fixed, 1024}, profile),
      segreduce_entry("segreduce_fixed_65536", {segment_profile::fixed, 65536}, profile),
      segreduce_entry("segreduce_random_0_64", {segment_profile::random, 32}, profile),
      segreduce_entry("segreduce_skewed", {segment_profile::skewed, 0}, profile),
      reduce_by_key_entry("reduce_by_key_runs_1", 1, profile),
      reduce_by_key_entry("reduce_by_key_runs_4", 4, profile),
      reduce_by_key_entry("reduce_by_key_runs_64", 64, profile),
      reduce_by_key_entry("reduce_by_key_runs_1024", 1024, profile),
      spmv_entry("spmv_uniform", matrix_kind::uniform, profile),
      spmv_entry("spmv_power_law", matrix_kind::power_law, profile),
      spmv_entry("spmv_banded", matrix_kind::banded, profile),
      spmv_entry("spmv_dense_row", matrix_kind::dense_row, profile),
      spmv_entry("spmv_rows_of_1", matrix_kind::rows_of_1, profile),
      spmv_entry("spmv_sparse_rows", matrix_kind::sparse_rows, profile),
      entry<compact_case<false>>(streaming),
      entry<compact_case<true>>(streaming),
      entry<histogram_case<256>>(streaming),
      entry<histogram_case<65536>>(streaming),
      entry<histogram_case<1048576>>(profile_28),
      segmented_scan_entry<true>("segscan_inclusive_fixed_1", {segment_profile::fixed, 1}, profile_28),
      segmented_scan_entry<true>("segscan_inclusive_fixed_32", {segment_profile::fixed, 32}, profile_28),
      segmented_scan_entry<true>("segscan_inclusive_fixed_1024", {segment_profile::fixed, 1024}, profile_28),
      segmented_scan_entry<true>("segscan_inclusive_random_64", {segment_profile::random, 64}, profile_28),
      segmented_scan_entry<false>("segscan_exclusive_fixed_1", {segment_profile::fixed, 1}, profile_28),
      segmented_scan_entry<false>("segscan_exclusive_fixed_32", {segment_profile::fixed, 32}, profile_28),
      segmented_scan_entry<false>("segscan_exclusive_fixed_1024", {segment_profile::fixed, 1024}, profile_28),
      segmented_scan_entry<false>("segscan_exclusive_random_64", {segment_profile::random, 64}, profile_28),
  };
  return list;
}

// ---- command line ------------------------------------------------------------------------------

struct options {
  std::string csv, filter;
  bool quick = false, small = false, pool = false;
};

void usage(const char* argv0) {
  std::printf(
      "usage: %s [--csv PATH] [--quick | --small [--pool]] [--filter SUBSTRING]\n"
      "  --csv PATH          also write the results as CSV to PATH\n"
      "  --quick             int32 only, one size per primitive (2^24 and 2^28 for reduce and scans),\n"
      "                      fewer repetitions\n"
      "  --small             the fixed cost of a call: int32, n = 10^3, 10^4, 10^5, 10^6; per-call time\n"
      "                      of 200 calls back to back (rows <primitive>/calls) and of 200 replays of\n"
      "                      a CUDA graph holding one call (<primitive>/graph), L2 not flushed; mgpu's\n"
      "                      temporaries from a workspace allocated beforehand, as CUB's temp storage is\n"
      "  --pool              with --small: mgpu's temporaries from the default stream-ordered pool instead\n"
      "  --filter SUBSTRING  only the primitives whose name contains SUBSTRING\n"
      "primitives:",
      argv0);
  for (const primitive& p : primitives()) std::printf(" %s", p.name.c_str());
  std::printf("\n");
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--csv" && has_value) {
      o.csv = argv[++i];
    } else if (a == "--filter" && has_value) {
      o.filter = argv[++i];
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--small") {
      o.small = true;
    } else if (a == "--pool") {
      o.pool = true;
    } else if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "mgpu_bench: bad argument '%s'\n", a.c_str());
      usage(argv[0]);
      std::exit(2);
    }
  }
  return o;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows in a log as it happens
  options opt = parse(argc, argv);
  const std::vector<elem> types = opt.quick || opt.small ? std::vector<elem>{elem::int32}
                                                         : std::vector<elem>{elem::int32, elem::int64, elem::float32};
  const int warmup = opt.quick ? 2 : 3, reps = opt.quick ? 10 : 25;
  // Slow calls (CUB's segmented sort of large segments: 40 ms to 0.3 s) get fewer runs: each
  // implementation of a case spends about this long in its timed runs (see bench::median_ms).
  const double budget_ms = opt.quick ? 400 : 1000;

  try {
    mgpu::context own_stream;
    // --small: mgpu's temporaries come from a workspace allocated here, outside the timed region, as
    // CUB's temp storage is (mgpu::workspace_allocator: no allocation calls, and no memory nodes in
    // the graphs of <primitive>/graph); the pool serves what does not fit. --pool: the default.
    const std::int64_t workspace_bytes = opt.small && !opt.pool ? std::int64_t(1) << 30 : 0;
    bench::device_array<unsigned char> workspace(workspace_bytes);
    mgpu::context ctx(own_stream.stream(), workspace_bytes
                                               ? std::make_shared<mgpu::workspace_allocator>(
                                                     workspace.data(), std::size_t(workspace_bytes),
                                                     std::make_shared<mgpu::pool_allocator>(own_stream.props().ordinal))
                                               : nullptr);
    const mgpu::device_properties& props = ctx.props();
    int runtime = 0, driver = 0;
    MGPU_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    MGPU_CUDA_CHECK(cudaDriverGetVersion(&driver));
    std::printf("device: %s, sm_%d, %d SMs, L2 %.0f MiB, %.1f GiB; CUDA runtime %d, driver %d, CUB %d.%d.%d\n",
                props.name.c_str(), props.arch, props.sm_count, double(props.l2_bytes) / (1 << 20),
                double(props.global_bytes) / (1 << 30), runtime, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                CUB_SUBMINOR_VERSION);
    double ceiling = bench::memcpy_gbps(ctx.stream());
    std::printf("memcpy ceiling (device-to-device 1 GiB, read + write): %.1f GB/s\n", ceiling);
    if (opt.small)
      std::printf(
          "method (--small): per-call time of 200 calls back to back (<primitive>/calls) and of 200 replays of a "
          "CUDA graph of one call (<primitive>/graph), after %d warm-ups, L2 not flushed; mgpu's temporaries from %s\n",
          warmup, workspace_bytes ? "a workspace allocated beforehand (as CUB's temp storage)" : "the default pool");
    else
      std::printf(
          "method: median of %d runs after %d warm-ups (slow calls: fewer, at least %d, about %.0f ms of runs), "
          "L2 flushed before each; GB/s counts the fewest bytes\n",
          reps, warmup, bench::min_reps, budget_ms);

    bench::report out(utc_now(), props.name, ceiling, opt.csv, reps);
    bench::l2_flush flush(props.l2_bytes);
    env e{ctx, warmup, reps, flush, out, budget_ms};
    e.small = opt.small;
    const std::vector<std::int64_t> small_sizes = {1000, 10000, 100000, 1000000};
    for (const primitive& p : primitives()) {
      if (p.name.find(opt.filter) == std::string::npos) continue;
      e.headline_n = std::int64_t(1) << p.sizes.headline;
      std::vector<std::int64_t> sizes;
      for (int lg : opt.quick ? p.sizes.quick : p.sizes.full) sizes.push_back(std::int64_t(1) << lg);
      if (opt.small) sizes = small_sizes;
      for (elem t : types) {
        if (!p.all_types && t != elem::int32) continue;
        for (std::int64_t n : sizes) {
          for (bool graph : opt.small&& p.graph_rows ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
            e.small_graph = graph;
            try {
              p.run(t, e, n);
            } catch (const std::exception& ex) {
              out.error(case_id{p.name + (opt.small ? graph ? "/graph" : "/calls" : ""), elem_name(t), n}, ex.what());
              // Go on after a recoverable error (out of memory, a call that cannot be captured);
              // stop once the context is broken.
              cudaGetLastError();
              if (cudaError_t sticky = cudaDeviceSynchronize(); sticky != cudaSuccess)
                throw mgpu::cuda_error(sticky, "cudaDeviceSynchronize after a failed case");
            }
          }
        }
      }
    }
    out.summary();
    return out.failed() ? 1 : 0;
  } catch (const std::exception& ex) {
    std::printf("!!!!!!!! mgpu_bench: %s\n", ex.what());
    return 2;
  }
}
