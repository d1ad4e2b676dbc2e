// bench/tune.cu
//
// Times one primitive under several launch shapes against its CCCL baseline at one size, to
// choose the defaults in the tuning tables (METHOD: build here, carry, run all variants in one
// call). Usage: mgpu_tune [log2 n] [mode]; the modes (reduce, scan, merge, sort, the *shapes
// sweeps, compactstaging, the profile* runs for ncu, ...) are listed in main().
// Not part of the regular benchmark.
#include "bench_common.hpp"

#include <mgpu/mgpu.hpp>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// One line of a shape sweep: the shape, an optional label, its time, the ratio to CUB's time, and
// whether its output matched the reference.
template <class P>
void print_shape(double ms, double cub_ms, bool matches, const char* label = "") {
  std::printf("  <%4d,%3d,%d>%s%s %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, P::min_ctas, *label ? " " : "", label, ms,
              cub_ms / ms, matches ? "ok" : "MISMATCH");
}

template <class T>
const char* name_of() {
  return std::is_floating_point<T>::value ? "float" : sizeof(T) == 4 ? "int32" : "int64";
}

template <class T, class... Shapes>
void tune_scan(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  bench::device_array<T> in(n), out(n), ref(n);
  bench::fill_random<T>(in.data(), n, 7, T(-64), T(63), ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms =
      bench::median_ms([&] { cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); },
                       3, 15, ctx.stream(), &flush);
  std::printf("scan %s n=%lld: cub %.4f ms\n", name_of<T>(), (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms([&] { mgpu::exclusive_scan<P>(in.data(), n, out.data(), T(0), mgpu::plus<T>(), ctx); },
                                 3, 15, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), n, ctx.stream());
    print_shape<P>(ms, cub_ms, m.count == 0);
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

template <class T, class... Shapes>
void tune_reduce(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  bench::device_array<T> in(n), out(1), ref(1);
  bench::fill_random<T>(in.data(), n, 7, T(-64), T(63), ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms =
      bench::median_ms([&] { cub::DeviceReduce::Sum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); }, 3, 15,
                       ctx.stream(), &flush);
  std::printf("reduce %s n=%lld: cub %.4f ms\n", name_of<T>(), (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms([&] { mgpu::reduce<P>(in.data(), n, out.data(), T(0), mgpu::plus<T>(), ctx); }, 3, 15,
                                 ctx.stream(), &flush);
    T got = out.at(0, ctx.stream()), want = ref.at(0, ctx.stream());
    bool ok = std::is_floating_point<T>::value ? std::fabs(double(got) - double(want)) <= 1e-4 * std::fabs(double(want))
                                               : got == want;
    std::printf("  <%4d,%3d> %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, ms, cub_ms / ms, ok ? "ok" : "MISMATCH");
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// The per-call time of back-to-back calls and of a graph replay (warm L2, bench::per_call_ms) of
// cub_run, then of run(shape) for each shape, printed with CUB's time over the shape's; matches()
// says whether a shape's output equals CUB's. Issue 20's sizes: tune_reduce_small, tune_scan_small,
// tune_segmented_small.
template <class... Shapes, class CubRun, class Run, class Matches>
void time_small_shapes(const std::string& what, cudaStream_t stream, CubRun cub_run, Run run, Matches matches) {
  double cub_calls = bench::per_call_ms(cub_run, false, 20, 200, stream);
  double cub_graph = bench::per_call_ms(cub_run, true, 20, 200, stream);
  std::printf("%s: cub calls %.2f us, graph %.2f us\n", what.c_str(), cub_calls * 1e3, cub_graph * 1e3);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    auto call = [&] { run(shape); };
    double calls = bench::per_call_ms(call, false, 20, 200, stream);
    double graph = bench::per_call_ms(call, true, 20, 200, stream);
    std::printf("  <%4d,%3d,%d> calls %.2f us %.3fx  graph %.2f us %.3fx  %s\n", P::nt, P::vt, P::min_ctas, calls * 1e3,
                cub_calls / calls, graph * 1e3, cub_graph / graph, matches() ? "ok" : "MISMATCH");
  };
  (one(Shapes{}), ...);
}

// reduce of n int32 values at small n (issue 20's sizes): the per-call time of back-to-back calls
// and of a graph replay, warm L2 (bench::per_call_ms), shapes against cub::DeviceReduce::Sum.
template <class... Shapes>
void tune_reduce_small(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(1), ref(1);
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  time_small_shapes<Shapes...>(
      "reduce int32 n=" + std::to_string(n), ctx.stream(),
      [&] { cub::DeviceReduce::Sum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); },
      [&](auto shape) { mgpu::reduce<decltype(shape)>(in.data(), n, out.data(), 0, mgpu::plus<int>(), ctx); },
      [&] { return out.at(0, ctx.stream()) == ref.at(0, ctx.stream()); });
  cudaFree(temp);
}

// Exclusive scans of n int32 values (issue 20's sizes) under several tile shapes: per-call time of
// back-to-back calls and of a graph replay against cub::DeviceScan::ExclusiveSum. The context
// takes its temporaries from a workspace, as mgpu_bench --small does, so that the graphs hold no
// allocation nodes (CUB's temp storage is allocated beforehand too).
template <class... Shapes>
void tune_scan_small(std::int64_t n) {
  bench::device_array<unsigned char> workspace(std::int64_t(1) << 26);
  mgpu::context own_stream;
  mgpu::context ctx(own_stream.stream(),
                    std::make_shared<mgpu::workspace_allocator>(workspace.data(), std::size_t(1) << 26, nullptr));
  bench::device_array<int> in(n), out(n), ref(n);
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  time_small_shapes<Shapes...>(
      "exclusive scan int32 n=" + std::to_string(n), ctx.stream(),
      [&] { cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); },
      [&](auto shape) { mgpu::exclusive_scan<decltype(shape)>(in.data(), n, out.data(), 0, mgpu::plus<int>(), ctx); },
      [&] { return bench::compare_arrays(out.data(), ref.data(), n, ctx.stream()).count == 0; });
  cudaFree(temp);
}

// Two calls each of mgpu::reduce, cub::DeviceReduce::Sum, mgpu::exclusive_scan and
// cub::DeviceScan::ExclusiveSum of n int32 values (n itself, not a power of two: issue 20's
// sizes), for a per-kernel look under ncu.
void profile_small(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(n), sum(1);
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  void* temp = nullptr;
  std::size_t reduce_bytes = 0, scan_bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceReduce::Sum(temp, reduce_bytes, in.data(), sum.data(), int(n), ctx.stream()));
  MGPU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, scan_bytes, in.data(), out.data(), int(n), ctx.stream()));
  std::size_t bytes = std::max(reduce_bytes, scan_bytes);
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  for (int i = 0; i < 2; ++i) {
    mgpu::reduce(in.data(), n, sum.data(), 0, mgpu::plus<int>(), ctx);
    MGPU_CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in.data(), sum.data(), int(n), ctx.stream()));
    mgpu::exclusive_scan(in.data(), n, out.data(), 0, mgpu::plus<int>(), ctx);
    MGPU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), out.data(), int(n), ctx.stream()));
  }
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  cudaFree(temp);
}

// SpMV (y = A x) on ~n non-zeros under several tile shapes, with a plan, on the benchmark's
// matrices (bench::matrix_kind). Checks every shape against the first (within float tolerance:
// the tiles' boundaries change the order of the sums).
template <class V, class... Shapes>
void tune_spmv(mgpu::context& ctx, std::int64_t n, bench::matrix_kind kind, bench::l2_flush& flush) {
  bench::csr_structure a = bench::make_csr_structure(kind, n, 0xc2, ctx);
  const std::int64_t rows = a.rows, cols = a.cols, nnz = a.nnz;
  bench::device_array<V> values(nnz), x(cols), y(rows), ref(rows);
  bench::fill_random<V>(values.data(), nnz, 79, V(0), V(1), ctx);
  bench::fill_random<V>(x.data(), cols, 80, V(0), V(1), ctx);
  auto matrix = mgpu::make_csr_matrix(values.data(), a.columns.data(), a.offsets.data(), rows, cols, nnz);
  double moved = double(nnz) * (sizeof(V) + 4) + double(rows + 1) * 4 + double(cols + rows) * sizeof(V);
  std::printf("spmv %s kind %d nnz=%lld rows=%lld\n", sizeof(V) == 4 ? "float" : "double", int(kind), (long long)nnz,
              (long long)rows);
  bool first = true;
  auto one = [&](auto shape) {
    using P = decltype(shape);
    auto plan = mgpu::spmv_preprocess<P>(matrix, ctx);
    double ms = bench::median_ms([&] { mgpu::spmv(plan, x.data(), y.data(), ctx); }, 2, 9, ctx.stream(), &flush);
    if (first) MGPU_CUDA_CHECK(cudaMemcpy(ref.data(), y.data(), rows * sizeof(V), cudaMemcpyDeviceToDevice));
    first = false;
    std::printf("  <%4d,%3d,%2d> %.4f ms %6.0f GB/s  %s\n", P::nt, P::vt, P::min_ctas, ms, moved / (ms * 1e6),
                bench::compare_arrays(y.data(), ref.data(), rows, ctx.stream()).count ? "MISMATCH" : "ok");
  };
  (one(Shapes{}), ...);
}

// Merge of two sorted int32 halves of n keys: shapes against cub::DeviceMerge::MergeKeys.
template <bool pairs, class... Shapes>
void tune_merge(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  std::int64_t half = n / 2;
  bench::device_array<int> a(half), b(half), out(n), ref(n);
  bench::device_array<int> a_values(pairs ? half : 0), b_values(pairs ? half : 0), out_values(pairs ? n : 0),
      ref_values(pairs ? n : 0);
  bench::fill_random<int>(a.data(), half, 5, 0, 1 << 30, ctx);
  bench::fill_random<int>(b.data(), half, 6, 0, 1 << 30, ctx);
  mgpu::radix_sort(a.data(), half, ctx);
  mgpu::radix_sort(b.data(), half, ctx);
  if constexpr (pairs) {
    bench::fill_random<int>(a_values.data(), half, 7, 0, 1 << 30, ctx);
    bench::fill_random<int>(b_values.data(), half, 8, 0, 1 << 30, ctx);
  }
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_merge = [&] {
    if constexpr (pairs)
      return cub::DeviceMerge::MergePairs(temp, bytes, a.data(), a_values.data(), half, b.data(), b_values.data(), half,
                                          ref.data(), ref_values.data(), mgpu::less<int>(), ctx.stream());
    return cub::DeviceMerge::MergeKeys(temp, bytes, a.data(), half, b.data(), half, ref.data(), mgpu::less<int>(),
                                       ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_merge());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms([&] { cub_merge(); }, 3, 15, ctx.stream(), &flush);
  std::printf("merge %s int32 n=%lld: cub %.4f ms\n", pairs ? "pairs" : "keys", (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms(
        [&] {
          if constexpr (pairs)
            mgpu::merge<P>(a.data(), a_values.data(), half, b.data(), b_values.data(), half, out.data(),
                           out_values.data(), mgpu::less<int>(), ctx);
          else
            mgpu::merge<P>(a.data(), half, b.data(), half, out.data(), mgpu::less<int>(), ctx);
        },
        3, 15, ctx.stream(), &flush);
    // Only keys are compared: these inputs may repeat keys, and CUB's merge is not documented as
    // stable, so its values for equal keys need not be in our order.
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), n, ctx.stream());
    print_shape<P>(ms, cub_ms, m.count == 0);
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// Mergesort of random int32 keys: shapes against cub::DeviceMergeSort::SortKeys.
template <class... Shapes>
void tune_mergesort(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  bench::device_array<int> source(n), keys(n), ref(n);
  bench::fill_random<int>(source.data(), n, 11, 0, 1 << 30, ctx);
  auto reset = [&](int* to) {
    cudaMemcpyAsync(to, source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
  };
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(temp, bytes, ref.data(), n, mgpu::less<int>(), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  // The copy that restores the input runs in both timings.
  double cub_ms = bench::median_ms(
      [&] {
        reset(ref.data());
        cub::DeviceMergeSort::SortKeys(temp, bytes, ref.data(), n, mgpu::less<int>(), ctx.stream());
      },
      2, 7, ctx.stream(), &flush);
  std::printf("mergesort int32 n=%lld: cub %.4f ms (with a reset copy)\n", (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms(
        [&] {
          reset(keys.data());
          mgpu::mergesort<P>(keys.data(), n, mgpu::less<int>(), ctx);
        },
        2, 7, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(keys.data(), ref.data(), n, ctx.stream());
    std::printf("  <%4d,%3d,%2d> %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, P::min_ctas, ms, cub_ms / ms,
                m.count ? "MISMATCH" : "ok");
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// Mergesort of random int32 key-value pairs: shapes against cub::DeviceMergeSort::SortPairs.
template <class... Shapes>
void tune_mergesort_pairs(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  bench::device_array<int> source(n), keys(n), values(n), ref(n), ref_values(n);
  bench::fill_random<int>(source.data(), n, 11, 0, 1 << 30, ctx);
  auto reset = [&](int* k, int* v) {
    cudaMemcpyAsync(k, source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
    cudaMemcpyAsync(v, source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
  };
  void* temp = nullptr;
  std::size_t bytes = 0;
  MGPU_CUDA_CHECK(
      cub::DeviceMergeSort::SortPairs(temp, bytes, ref.data(), ref_values.data(), n, mgpu::less<int>(), ctx.stream()));
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms(
      [&] {
        reset(ref.data(), ref_values.data());
        cub::DeviceMergeSort::SortPairs(temp, bytes, ref.data(), ref_values.data(), n, mgpu::less<int>(), ctx.stream());
      },
      2, 7, ctx.stream(), &flush);
  std::printf("mergesort pairs int32 n=%lld: cub %.4f ms (with two reset copies)\n", (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms(
        [&] {
          reset(keys.data(), values.data());
          mgpu::mergesort<P>(keys.data(), values.data(), n, mgpu::less<int>(), ctx);
        },
        2, 7, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(keys.data(), ref.data(), n, ctx.stream());
    std::printf("  <%4d,%3d> %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, ms, cub_ms / ms, m.count ? "MISMATCH" : "ok");
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// The segment heads of a profile: fixed sizes (size > 0), one segment (size 0), or half the keys
// in one segment and the rest in segments of 8 (size < 0); with `random`, sizes drawn from
// [0, size].
std::vector<int> profile_heads(std::int64_t n, int size, bool random = false) {
  std::vector<int> h;
  std::int64_t s = 0;
  if (random) {
    for (std::uint64_t i = 0; s < n; ++i) {
      h.push_back(int(s));
      s += std::int64_t(bench::mix64(77 ^ bench::mix64(i)) % std::uint64_t(size + 1));
    }
  } else if (size > 0) {
    for (; s < n; s += size) h.push_back(int(s));
  } else {
    h.push_back(0);
    if (size < 0)
      for (s = n / 2; s < n; s += 8) h.push_back(int(s));
  }
  return h;
}

// profile_heads(n, size) as CSR offsets on the device, n appended: `segments` offsets and the end.
struct device_offsets {
  bench::device_array<int> offsets;
  int segments;
};
device_offsets offsets_on_device(std::int64_t n, int size) {
  std::vector<int> h = profile_heads(n, size);
  const int segments = int(h.size());
  h.push_back(int(n));
  bench::device_array<int> offsets(std::int64_t(h.size()));
  MGPU_CUDA_CHECK(cudaMemcpy(offsets.data(), h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  return device_offsets{std::move(offsets), segments};
}

// Segmented sort of random int32 keys (and values) by profile_heads(n, size, random): against
// cub::DeviceSegmentedSort, under each launch shape.
template <bool pairs, class... Shapes>
void tune_segmented_sort(mgpu::context& ctx, std::int64_t n, int size, bool random, bench::l2_flush& flush) {
  bench::device_array<int> source(n), keys(n), values(pairs ? n : 0), ref(n), ref_out(n), ref_values(pairs ? n : 0),
      ref_values_out(pairs ? n : 0);
  bench::fill_random<int>(source.data(), n, 13, 0, 1 << 30, ctx);
  std::vector<int> host_heads = profile_heads(n, size, random);
  std::int64_t segments = std::int64_t(host_heads.size());
  host_heads.push_back(int(n));
  bench::device_array<int> heads(segments + 1);
  MGPU_CUDA_CHECK(cudaMemcpy(heads.data(), host_heads.data(), host_heads.size() * sizeof(int), cudaMemcpyHostToDevice));
  int* h = heads.data();
  auto reset = [&](int* k, int* v) {
    cudaMemcpyAsync(k, source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
    if (pairs) cudaMemcpyAsync(v, source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
  };
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_sort = [&] {
    if constexpr (pairs)
      return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, ref.data(), ref_out.data(), ref_values.data(),
                                                       ref_values_out.data(), int(n), int(segments), h, h + 1,
                                                       ctx.stream());
    else
      return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, ref.data(), ref_out.data(), int(n), int(segments), h,
                                                      h + 1, ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_sort());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  reset(ref.data(), ref_values.data());
  double cub_ms = bench::median_ms([&] { cub_sort(); }, 1, 5, ctx.stream(), &flush);
  double copy_ms = bench::median_ms([&] { reset(keys.data(), values.data()); }, 2, 7, ctx.stream(), &flush);
  std::printf("segmented sort %s int32 n=%lld, %s %d: cub %.4f ms, reset copy %.4f ms\n", pairs ? "pairs" : "keys",
              (long long)n,
              random      ? "random sizes 0.."
              : size > 0  ? "segments of"
              : size == 0 ? "one segment"
                          : "half in one",
              size, cub_ms, copy_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    auto segs = mgpu::segments_by_heads(h, segments);
    double mgpu_ms = bench::median_ms(
        [&] {
          reset(keys.data(), values.data());
          if constexpr (pairs)
            mgpu::segmented_sort<P>(keys.data(), values.data(), n, segs, mgpu::less<int>(), ctx);
          else
            mgpu::segmented_sort<P>(keys.data(), n, segs, mgpu::less<int>(), ctx);
        },
        2, 7, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(keys.data(), ref_out.data(), n, ctx.stream());
    if (pairs && !m.count) m = bench::compare_arrays(values.data(), ref_values_out.data(), n, ctx.stream());
    std::printf("  <%4d,%3d,%2d> %.4f ms (minus the reset copy)  %.3fx cub  %s\n", P::nt, P::vt, P::min_ctas,
                mgpu_ms - copy_ms, cub_ms / (mgpu_ms - copy_ms), m.count ? "MISMATCH" : "ok");
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// One run of each call below (after one warm-up run of it), each preceded by a marker kernel of
// 1000 + i CTAs, for a per-kernel breakdown under `ncu --metrics gpu__time_duration.sum`.
void marker_kernel(int ctas, mgpu::context& ctx) {
  mgpu::cta_launch<mgpu::launch_params<32, 1>>([] MGPU_LAMBDA(int, int) {}, ctas, ctx);
}

void profile_kernels(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> source(n), keys(n), other(n), out(n);
  bench::fill_random<int>(source.data(), n, 21, 0, 1 << 30, ctx);
  auto reset = [&] {
    cudaMemcpyAsync(keys.data(), source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
  };
  int id = 0;
  auto step = [&](const char* what, auto&& f) {
    for (int r = 0; r < 2; ++r) {
      reset();
      MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
      if (r == 1) {
        marker_kernel(1000 + id, ctx);
        std::printf("marker %d: %s\n", 1000 + id, what);
      }
      f();
      MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    }
    ++id;
  };
  void* temp = nullptr;
  std::size_t bytes = 0, most = 0;
  MGPU_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(temp, bytes, keys.data(), n, mgpu::less<int>(), ctx.stream()));
  most = bytes;
  MGPU_CUDA_CHECK(cudaMalloc(&temp, most + (std::size_t(1) << 20)));
  step("mgpu::mergesort keys", [&] { mgpu::mergesort(keys.data(), n, mgpu::less<int>(), ctx); });
  step("cub mergesort keys",
       [&] { cub::DeviceMergeSort::SortKeys(temp, bytes, keys.data(), n, mgpu::less<int>(), ctx.stream()); });
  // merge of the two sorted halves (sorted by the mergesort above, reset afterwards)
  cudaMemcpyAsync(other.data(), source.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream());
  mgpu::radix_sort(other.data(), n / 2, ctx);
  mgpu::radix_sort(other.data() + n / 2, n / 2, ctx);
  step("mgpu::merge keys",
       [&] { mgpu::merge(other.data(), n / 2, other.data() + n / 2, n / 2, out.data(), mgpu::less<int>(), ctx); });
  struct prof {
    const char* name;
    int size;
    bool random;
  };
  for (prof p :
       {prof{"segsort fixed 8", 8, false}, prof{"segsort fixed 96", 96, false}, prof{"segsort fixed 128", 128, false},
        prof{"segsort fixed 1024", 1024, false}, prof{"segsort random 0..128", 128, true},
        prof{"segsort one", 0, false}, prof{"segsort half one", -1, false}}) {
    std::vector<int> h = profile_heads(n, p.size, p.random);
    bench::device_array<int> heads(std::int64_t(h.size()));
    MGPU_CUDA_CHECK(cudaMemcpy(heads.data(), h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
    step(p.name, [&] {
      mgpu::segmented_sort(keys.data(), n, mgpu::segments_by_heads(heads.data(), std::int64_t(h.size())),
                           mgpu::less<int>(), ctx);
    });
  }
  cudaFree(temp);
}

// One merge of two sorted int32 halves by mgpu, then by CUB, twice (the first a warm-up), for a
// per-kernel breakdown under ncu.
void profile_merge(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(n);
  bench::fill_random<int>(in.data(), n, 5, 0, 1 << 30, ctx);
  mgpu::radix_sort(in.data(), n / 2, ctx);
  mgpu::radix_sort(in.data() + n / 2, n / 2, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_merge = [&] {
    return cub::DeviceMerge::MergeKeys(temp, bytes, in.data(), n / 2, in.data() + n / 2, n / 2, out.data(),
                                       mgpu::less<int>(), ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_merge());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  for (int r = 0; r < 2; ++r) {
    mgpu::merge(in.data(), n / 2, in.data() + n / 2, n / 2, out.data(), mgpu::less<int>(), ctx);
    MGPU_CUDA_CHECK(cub_merge());
  }
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  cudaFree(temp);
}

// Segmented reduce (int32 sums) over profile_heads(n, size): against
// cub::DeviceSegmentedReduce::Sum, under each launch shape. The heads are the CSR offsets.
template <class... Shapes>
void tune_segmented_reduce(mgpu::context& ctx, std::int64_t n, int size, bench::l2_flush& flush) {
  bench::device_array<int> in(n);
  bench::fill_random<int>(in.data(), n, 17, -64, 63, ctx);
  std::vector<int> host_heads = profile_heads(n, size);
  std::int64_t segments = std::int64_t(host_heads.size());
  host_heads.push_back(int(n));
  bench::device_array<int> heads(segments + 1), out(segments), ref(segments);
  MGPU_CUDA_CHECK(cudaMemcpy(heads.data(), host_heads.data(), host_heads.size() * sizeof(int), cudaMemcpyHostToDevice));
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_run = [&] {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in.data(), ref.data(), int(segments), heads.data(),
                                           heads.data() + 1, ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_run());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms(cub_run, 2, 9, ctx.stream(), &flush);
  double moved = double(n) * 4 + double(2 * segments + 1) * 4;
  std::printf("segmented_reduce int32 n=%lld segments of %d (%lld): cub %.4f ms (%.0f GB/s)\n", (long long)n, size,
              (long long)segments, cub_ms, moved / (cub_ms * 1e6));
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms(
        [&] {
          mgpu::segmented_reduce<P>(in.data(), n, mgpu::segments_by_heads(heads.data(), segments), out.data(), 0,
                                    mgpu::plus<int>(), ctx);
        },
        2, 9, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), segments, ctx.stream());
    std::printf("  <%4d,%3d,%d> %.4f ms %6.0f GB/s  %.3fx cub  %s\n", P::nt, P::vt, P::min_ctas, ms, moved / (ms * 1e6),
                cub_ms / ms, m.count ? "MISMATCH" : "ok");
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// reduce_by_key of int32 values by int32 keys in runs of `run` (the last shorter): shapes only
// (the benchmark has the CUB comparison).
template <class... Shapes>
void tune_reduce_by_key(mgpu::context& ctx, std::int64_t n, int run, bench::l2_flush& flush) {
  bench::device_array<int> keys(n), values(n), keys_out(n), values_out(n);
  bench::device_array<std::int64_t> count(1);
  int* k = keys.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { k[i] = int(i / run); }, n, ctx);
  bench::fill_random<int>(values.data(), n, 19, -64, 63, ctx);
  std::int64_t runs = (n + run - 1) / run;
  double moved = double(n) * 8 + double(runs) * 8;
  std::printf("reduce_by_key int32 n=%lld runs of %d\n", (long long)n, run);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms(
        [&] {
          mgpu::reduce_by_key<P>(keys.data(), values.data(), n, keys_out.data(), values_out.data(), count.data(),
                                 mgpu::plus<int>(), ctx);
        },
        2, 9, ctx.stream(), &flush);
    std::printf("  <%4d,%3d,%d> %.4f ms %6.0f GB/s  runs %s\n", P::nt, P::vt, P::min_ctas, ms, moved / (ms * 1e6),
                count.at(0, ctx.stream()) == runs ? "ok" : "MISMATCH");
  };
  (one(Shapes{}), ...);
}

// Sorted int32 keys in [0, range): random ones, radix sorted.
bench::device_array<int> sorted_keys(mgpu::context& ctx, std::int64_t n, int range, std::uint64_t seed) {
  bench::device_array<int> k(n);
  bench::fill_random<int>(k.data(), n, seed, 0, range - 1, ctx);
  mgpu::radix_sort(k.data(), n, ctx);
  return k;
}

// set_union and set_intersection of two sorted int32 halves of n keys (moderate duplicates, as
// the benchmark's inputs) under each shape, keys alone or with int32 values (Pairs); counts
// checked against the first shape's.
template <bool Pairs, class... Shapes>
void tune_sets(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  const std::int64_t half = n / 2;
  bench::device_array<int> a = sorted_keys(ctx, half, int(half), 0xc0), b = sorted_keys(ctx, half, int(half), 0xc1);
  bench::device_array<int> out(n), values(Pairs ? n : 0), values_out(Pairs ? n : 0);
  bench::device_array<std::int64_t> count(1);
  if (Pairs) bench::fill_random<int>(values.data(), n, 0xc2, 0, 1 << 30, ctx);
  const int *a_values = values.data(), *b_values = values.data() + (Pairs ? half : 0);
  for (int op = 0; op < 2; ++op) {
    std::int64_t first_count = -1;
    std::printf("%s int32 %s n=%lld\n", op ? "set_intersection" : "set_union", Pairs ? "pairs" : "keys", (long long)n);
    auto one = [&](auto shape) {
      using P = decltype(shape);
      auto run = [&] {
        if constexpr (Pairs) {
          if (op)
            mgpu::set_intersection<P>(a.data(), a_values, half, b.data(), b_values, half, out.data(), values_out.data(),
                                      count.data(), mgpu::less<int>(), ctx);
          else
            mgpu::set_union<P>(a.data(), a_values, half, b.data(), b_values, half, out.data(), values_out.data(),
                               count.data(), mgpu::less<int>(), ctx);
        } else {
          if (op)
            mgpu::set_intersection<P>(a.data(), half, b.data(), half, out.data(), count.data(), mgpu::less<int>(), ctx);
          else
            mgpu::set_union<P>(a.data(), half, b.data(), half, out.data(), count.data(), mgpu::less<int>(), ctx);
        }
      };
      double ms = bench::median_ms(run, 2, 9, ctx.stream(), &flush);
      std::int64_t c = count.at(0, ctx.stream());
      if (first_count < 0) first_count = c;
      double moved = (double(n) * 4 + double(c) * 4) * (Pairs ? 2 : 1);
      std::printf("  <%4d,%3d,%d> %.4f ms %6.0f GB/s  %s\n", P::nt, P::vt, P::min_ctas, ms, moved / (ms * 1e6),
                  c == first_count ? "ok" : "MISMATCH");
    };
    (one(Shapes{}), ...);
  }
}

struct below_500 {
  __host__ __device__ bool operator()(const int& x) const { return x < 500; }
};

// compact of n int32 values uniform in [0, 1000), keeping those below 500: shapes against
// cub::DeviceSelect::If.
template <class... Shapes>
void tune_compact(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush) {
  bench::device_array<int> in(n), out(n), ref(n);
  bench::device_array<std::int64_t> count(1);
  bench::device_array<int> ref_count(1);
  bench::fill_random<int>(in.data(), n, 23, 0, 999, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_run = [&] {
    return cub::DeviceSelect::If(temp, bytes, in.data(), ref.data(), ref_count.data(), n, below_500(), ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_run());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms(cub_run, 3, 15, ctx.stream(), &flush);
  std::int64_t kept = ref_count.at(0, ctx.stream());
  std::printf("compact int32 n=%lld (%lld kept): cub %.4f ms\n", (long long)n, (long long)kept, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms([&] { mgpu::compact<P>(in.data(), n, out.data(), count.data(), below_500(), ctx); }, 3,
                                 15, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), kept, ctx.stream());
    print_shape<P>(ms, cub_ms, m.count == 0 && count.at(0, ctx.stream()) == kept);
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

struct below_500_of_any {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return x < T(500);
  }
};

// compact of n values of T uniform in [0, 1000) (flags = false: keeping those below 500; flags =
// true: by a byte flag per value, set for those below 500) under each shape, with the kept items
// stored straight from registers ("direct") and gathered in shared memory and stored as whole
// lines ("staged", the library's way); CUB's DeviceSelect as the baseline.
template <class T, bool flags, class... Shapes>
void tune_compact_staging(mgpu::context& ctx, std::int64_t n, bench::l2_flush& flush, bool staged_only = false) {
  bench::device_array<T> in(n), out(n), ref(n);
  bench::device_array<unsigned char> flag(n);
  bench::device_array<std::int64_t> count(1);
  bench::device_array<int> ref_count(1);
  bench::fill_random<T>(in.data(), n, 23, T(0), T(999), ctx);
  mgpu::transform([=, f = flag.data(), x = in.data()] MGPU_LAMBDA(std::int64_t i) { f[i] = x[i] < T(500); }, n, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_run = [&] {
    if constexpr (flags)
      return cub::DeviceSelect::Flagged(temp, bytes, in.data(), flag.data(), ref.data(), ref_count.data(), n,
                                        ctx.stream());
    else
      return cub::DeviceSelect::If(temp, bytes, in.data(), ref.data(), ref_count.data(), n, below_500_of_any(),
                                   ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_run());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms(cub_run, 3, 15, ctx.stream(), &flush);
  std::int64_t kept = ref_count.at(0, ctx.stream());
  std::printf("compact%s %s n=%lld (%lld kept): cub %.4f ms\n", flags ? "_by_flags" : "", name_of<T>(), (long long)n,
              (long long)kept, cub_ms);
  auto one = [&](auto shape, auto variant) {
    using P = decltype(shape);
    constexpr int v = decltype(variant)::value;
    using sink_t = mgpu::detail::store_items<T*, v == 1>;
    auto run = [&] {
      if constexpr (flags)
        mgpu::detail::compact_tiles<P>("compact", n,
                                       mgpu::detail::select_flagged<T*, unsigned char*>{in.data(), flag.data()},
                                       sink_t{out.data()}, count.data(), ctx);
      else
        mgpu::detail::compact_tiles<P>("compact", n,
                                       mgpu::detail::select_if<T*, below_500_of_any>{in.data(), below_500_of_any()},
                                       sink_t{out.data()}, count.data(), ctx);
    };
    double ms = bench::median_ms(run, 3, 15, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), kept, ctx.stream());
    print_shape<P>(ms, cub_ms, m.count == 0 && count.at(0, ctx.stream()) == kept, v == 0 ? "direct" : "staged");
  };
  if (!staged_only) (one(Shapes{}, std::integral_constant<int, 0>{}), ...);
  (one(Shapes{}, std::integral_constant<int, 1>{}), ...);
  cudaFree(temp);
}

// Inclusive segmented scan (int32 sums) over profile_heads(n, size), under each shape, against
// CUB's InclusiveSumByKey over segment ids.
template <class... Shapes>
void tune_segmented_scan(mgpu::context& ctx, std::int64_t n, int size, bench::l2_flush& flush) {
  std::vector<int> h = profile_heads(n, size), ids(std::size_t(n), 0);
  for (std::size_t s = 0; s < h.size(); ++s)
    for (std::int64_t i = h[s]; i < (s + 1 < h.size() ? h[s + 1] : n); ++i) ids[std::size_t(i)] = int(s);
  bench::device_array<int> heads(std::int64_t(h.size())), keys(n), in(n), out(n), ref(n);
  MGPU_CUDA_CHECK(cudaMemcpy(heads.data(), h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  MGPU_CUDA_CHECK(cudaMemcpy(keys.data(), ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice));
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_run = [&] {
    return cub::DeviceScan::InclusiveSumByKey(temp, bytes, keys.data(), in.data(), ref.data(), int(n),
                                              ::cuda::std::equal_to<>(), ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_run());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  double cub_ms = bench::median_ms(cub_run, 3, 15, ctx.stream(), &flush);
  std::printf("segmented inclusive scan n=%lld segments of %d: cub %.4f ms\n", (long long)n, size, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    auto run = [&] {
      mgpu::segmented_inclusive_scan<P>(in.data(), n, mgpu::segments_by_heads(heads.data(), std::int64_t(h.size())),
                                        out.data(), mgpu::plus<int>(), ctx);
    };
    double ms = bench::median_ms(run, 3, 15, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), n, ctx.stream());
    print_shape<P>(ms, cub_ms, m.count == 0);
  };
  (one(Shapes{}), ...);
  cudaFree(temp);
}

// Over profile_heads(n, size) under each shape, outputs checked against the first shape's:
// load_balance_search and interval_expand of int values, or (Move) interval_move as the
// benchmark's, segment s copied from where the segments lie in reverse order to its head's place
// (its cached starts take 16 bytes a step: tiles that fit the others may not fit it).
template <bool Move, class... Shapes>
void tune_load_balance(mgpu::context& ctx, std::int64_t n, int size, bench::l2_flush& flush) {
  std::vector<int> host_heads = profile_heads(n, size);
  const std::int64_t segments = std::int64_t(host_heads.size());
  std::vector<int> host_gather(segments);
  for (std::int64_t s = 0; s < segments; ++s) host_gather[s] = int(n - (s + 1 < segments ? host_heads[s + 1] : n));
  bench::device_array<int> heads(segments), values(segments), gather(segments), in(n), out(n), first(n);
  MGPU_CUDA_CHECK(cudaMemcpy(heads.data(), host_heads.data(), segments * sizeof(int), cudaMemcpyHostToDevice));
  MGPU_CUDA_CHECK(cudaMemcpy(gather.data(), host_gather.data(), segments * sizeof(int), cudaMemcpyHostToDevice));
  bench::fill_random<int>(values.data(), segments, 29, 0, 1 << 30, ctx);
  bench::fill_random<int>(in.data(), n, 31, 0, 1 << 30, ctx);
  auto segs = mgpu::segments_by_heads(heads.data(), segments);
  static const char* const names[] = {"load_balance_search", "interval_expand", "interval_move"};
  for (int mode = Move ? 2 : 0; mode <= (Move ? 2 : 1); ++mode) {
    std::printf("%s n=%lld segments of %d\n", names[mode], (long long)n, size);
    bool have_first = false;
    auto one = [&](auto shape) {
      using P = decltype(shape);
      auto run = [&] {
        if constexpr (Move)
          mgpu::interval_move<P>(in.data(), n, segs, gather.data(), heads.data(), out.data(), ctx);
        else if (mode == 1)
          mgpu::interval_expand<P>(values.data(), n, segs, out.data(), ctx);
        else
          mgpu::load_balance_search<P>(n, segs, out.data(), ctx);
      };
      double ms = bench::median_ms(run, 2, 9, ctx.stream(), &flush);
      if (!have_first) {
        MGPU_CUDA_CHECK(
            cudaMemcpyAsync(first.data(), out.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, ctx.stream()));
        have_first = true;
      }
      bench::mismatches m = bench::compare_arrays(out.data(), first.data(), n, ctx.stream());
      double moved = double(n) * 4 * (mode == 2 ? 2 : 1) + double(segments) * 4 * (mode == 2 ? 3 : mode == 1 ? 2 : 1);
      std::printf("  <%4d,%3d,%d> %.4f ms %6.0f GB/s  %s\n", P::nt, P::vt, P::min_ctas, ms, moved / (ms * 1e6),
                  m.count ? "MISMATCH" : "ok");
    };
    (one(Shapes{}), ...);
  }
}

// One call each of set_union, segmented_reduce (segments of 1024), compact and
// load_balance_search (segments of 8), for a per-kernel look under ncu.
void profile_new_families(mgpu::context& ctx, std::int64_t n) {
  const std::int64_t half = n / 2;
  bench::device_array<int> a = sorted_keys(ctx, half, int(half), 0xc0), b = sorted_keys(ctx, half, int(half), 0xc1);
  bench::device_array<int> out(n), in(n);
  bench::device_array<std::int64_t> count(1);
  bench::fill_random<int>(in.data(), n, 23, 0, 999, ctx);
  mgpu::set_union(a.data(), half, b.data(), half, out.data(), count.data(), mgpu::less<int>(), ctx);
  device_offsets csr = offsets_on_device(n, 1024);
  mgpu::segmented_reduce(in.data(), n, mgpu::segments_by_heads(csr.offsets.data(), csr.segments), out.data(), 0,
                         mgpu::plus<int>(), ctx);
  mgpu::compact(in.data(), n, out.data(), count.data(), below_500(), ctx);
  std::vector<int> h8 = profile_heads(n, 8);
  bench::device_array<int> heads8(std::int64_t(h8.size()));
  MGPU_CUDA_CHECK(cudaMemcpy(heads8.data(), h8.data(), h8.size() * sizeof(int), cudaMemcpyHostToDevice));
  mgpu::load_balance_search(n, mgpu::segments_by_heads(heads8.data(), std::int64_t(h8.size())), out.data(), ctx);
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
}

// One call each of the segmented reduction by heads over segments of 65536 and of 4 items, and an
// inclusive scan of the same int32 input, for a per-kernel look under ncu.
void profile_segreduce(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(n);
  bench::fill_random<int>(in.data(), n, 23, 0, 999, ctx);
  for (int size : {65536, 4}) {
    device_offsets csr = offsets_on_device(n, size);
    mgpu::segmented_reduce(in.data(), n, mgpu::segments_by_heads(csr.offsets.data(), csr.segments), out.data(), 0,
                           mgpu::plus<int>(), ctx);
    MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }
  mgpu::inclusive_scan(in.data(), n, out.data(), mgpu::plus<int>(), ctx);
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
}

// One host-form inner join of two sorted int32 inputs of n / 2 keys each, every key twice on each
// side (4 rows a key, n rows in all, as the benchmark's join), for a per-kernel look under ncu.
void profile_join(mgpu::context& ctx, std::int64_t n) {
  const std::int64_t half = n / 2;
  bench::device_array<int> a(half), b(half);
  mgpu::transform([=, p = a.data(), q = b.data()] MGPU_LAMBDA(std::int64_t i) { p[i] = q[i] = int(i / 2); }, half, ctx);
  mgpu::join_result r = mgpu::join(a.data(), half, b.data(), half, mgpu::join_kind::inner, mgpu::less<>(), ctx);
  std::printf("join rows %lld\n", (long long)r.count);
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
}

// One call each of compact, compact_by_flags and an inclusive segmented scan of segments of 1,
// and their CUB counterparts (DeviceSelect::If / Flagged, DeviceScan::InclusiveSumByKey over
// segment ids), for a per-kernel look under ncu.
void profile_primer(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(n), ref(n), ids(n);
  bench::device_array<unsigned char> flags(n);
  bench::device_array<std::int64_t> count(1);
  bench::device_array<int> ref_count(1);
  bench::fill_random<int>(in.data(), n, 23, 0, 999, ctx);
  mgpu::transform([=, f = flags.data(), x = in.data()] MGPU_LAMBDA(std::int64_t i) { f[i] = x[i] < 500; }, n, ctx);
  mgpu::transform([=, k = ids.data()] MGPU_LAMBDA(std::int64_t i) { k[i] = int(i); }, n, ctx);
  void* temp = nullptr;
  std::size_t bytes = 0, most = 0;
  cub::DeviceSelect::If(temp, bytes, in.data(), ref.data(), ref_count.data(), n, below_500(), ctx.stream());
  most = std::max(most, bytes);
  cub::DeviceSelect::Flagged(temp, bytes, in.data(), flags.data(), ref.data(), ref_count.data(), n, ctx.stream());
  most = std::max(most, bytes);
  cub::DeviceScan::InclusiveSumByKey(temp, bytes, ids.data(), in.data(), ref.data(), int(n), ::cuda::std::equal_to<>(),
                                     ctx.stream());
  most = std::max(most, bytes);
  MGPU_CUDA_CHECK(cudaMalloc(&temp, most));
  mgpu::compact(in.data(), n, out.data(), count.data(), below_500(), ctx);
  cub::DeviceSelect::If(temp, most, in.data(), ref.data(), ref_count.data(), n, below_500(), ctx.stream());
  mgpu::compact_by_flags(in.data(), flags.data(), n, out.data(), count.data(), ctx);
  cub::DeviceSelect::Flagged(temp, most, in.data(), flags.data(), ref.data(), ref_count.data(), n, ctx.stream());
  mgpu::segmented_inclusive_scan(in.data(), n, mgpu::segments_by_heads(ids.data(), n), out.data(), mgpu::plus<int>(),
                                 ctx);
  cub::DeviceScan::InclusiveSumByKey(temp, most, ids.data(), in.data(), ref.data(), int(n), ::cuda::std::equal_to<>(),
                                     ctx.stream());
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  cudaFree(temp);
}

// Two calls each of mgpu::segmented_reduce (segments of 128, CSR offsets) against
// cub::DeviceSegmentedReduce::Sum, mgpu::reduce_by_key (runs of 4) against
// cub::DeviceReduce::ReduceByKey, and mgpu::segmented_inclusive_scan (the same segments) against
// cub::DeviceScan::InclusiveSumByKey, on n int32 values: issue 20's sizes, for a per-kernel look
// under ncu.
void profile_small_segmented(mgpu::context& ctx, std::int64_t n) {
  bench::device_array<int> in(n), out(n), ref(n), keys(n), ids(n), keys_out(n);
  bench::device_array<std::int64_t> runs(1);
  bench::device_array<int> ref_runs(1);
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  mgpu::transform([=, k = keys.data()] MGPU_LAMBDA(std::int64_t i) { k[i] = int(i / 4); }, n, ctx);
  mgpu::transform([=, k = ids.data()] MGPU_LAMBDA(std::int64_t i) { k[i] = int(i / 128); }, n, ctx);
  device_offsets csr = offsets_on_device(n, 128);
  const int segments = csr.segments;
  const int* heads = csr.offsets.data();
  void* temp = nullptr;
  std::size_t bytes = 0, most = 0;
  auto cub_segreduce = [&] {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in.data(), ref.data(), segments, heads, heads + 1,
                                           ctx.stream());
  };
  auto cub_by_key = [&] {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, keys.data(), keys_out.data(), in.data(), ref.data(),
                                          ref_runs.data(), mgpu::plus<int>(), int(n), ctx.stream());
  };
  auto cub_scan = [&] {
    return cub::DeviceScan::InclusiveSumByKey(temp, bytes, ids.data(), in.data(), ref.data(), int(n),
                                              ::cuda::std::equal_to<>(), ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_segreduce());
  most = std::max(most, bytes);
  MGPU_CUDA_CHECK(cub_by_key());
  most = std::max(most, bytes);
  MGPU_CUDA_CHECK(cub_scan());
  most = std::max(most, bytes);
  MGPU_CUDA_CHECK(cudaMalloc(&temp, most));
  bytes = most;
  for (int i = 0; i < 2; ++i) {
    mgpu::segmented_reduce(in.data(), n, mgpu::segments_by_heads(heads, segments), out.data(), 0, mgpu::plus<int>(),
                           ctx);
    MGPU_CUDA_CHECK(cub_segreduce());
    mgpu::reduce_by_key(keys.data(), in.data(), n, keys_out.data(), out.data(), runs.data(), mgpu::plus<int>(), ctx);
    MGPU_CUDA_CHECK(cub_by_key());
    mgpu::segmented_inclusive_scan(in.data(), n, mgpu::segments_by_heads(heads, segments), out.data(),
                                   mgpu::plus<int>(), ctx);
    MGPU_CUDA_CHECK(cub_scan());
  }
  MGPU_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  cudaFree(temp);
}

// reduce_by_key (int32 keys in runs of 4, int32 sums) and segmented_reduce (segments of 128 by
// CSR offsets) of n values under several tile shapes, per call: back-to-back calls and graph
// replays against CUB's (cub::DeviceReduce::ReduceByKey, cub::DeviceSegmentedReduce::Sum), with
// temporaries from a workspace as in tune_scan_small: whether inputs of a few tiles want smaller
// tiles, as the scans do.
template <bool by_key, class... Shapes>
void tune_segmented_small(std::int64_t n) {
  bench::device_array<unsigned char> workspace(std::int64_t(1) << 26);
  mgpu::context own_stream;
  mgpu::context ctx(own_stream.stream(),
                    std::make_shared<mgpu::workspace_allocator>(workspace.data(), std::size_t(1) << 26, nullptr));
  bench::device_array<int> in(n), out(n), ref(n), keys(n), keys_out(n), ref_keys(n);
  bench::device_array<std::int64_t> runs(1);
  bench::device_array<int> ref_runs(1);
  bench::fill_random<int>(in.data(), n, 7, -64, 63, ctx);
  mgpu::transform([=, k = keys.data()] MGPU_LAMBDA(std::int64_t i) { k[i] = int(i / 4); }, n, ctx);
  device_offsets csr = offsets_on_device(n, 128);
  const int segments = csr.segments;
  const int* heads = csr.offsets.data();
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto cub_call = [&] {
    if constexpr (by_key)
      return cub::DeviceReduce::ReduceByKey(temp, bytes, keys.data(), ref_keys.data(), in.data(), ref.data(),
                                            ref_runs.data(), mgpu::plus<int>(), int(n), ctx.stream());
    else
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, in.data(), ref.data(), segments, heads, heads + 1,
                                             ctx.stream());
  };
  MGPU_CUDA_CHECK(cub_call());
  MGPU_CUDA_CHECK(cudaMalloc(&temp, bytes));
  const std::int64_t outputs = by_key ? (n + 3) / 4 : segments;
  time_small_shapes<Shapes...>(
      std::string(by_key ? "reduce_by_key runs of 4" : "segmented_reduce segments of 128") +
          " int32 n=" + std::to_string(n),
      ctx.stream(), [&] { cub_call(); },
      [&](auto shape) {
        using P = decltype(shape);
        if constexpr (by_key)
          mgpu::reduce_by_key<P>(keys.data(), in.data(), n, keys_out.data(), out.data(), runs.data(), mgpu::plus<int>(),
                                 ctx);
        else
          mgpu::segmented_reduce<P>(in.data(), n, mgpu::segments_by_heads(heads, segments), out.data(), 0,
                                    mgpu::plus<int>(), ctx);
      },
      [&] { return bench::compare_arrays(out.data(), ref.data(), outputs, ctx.stream()).count == 0; });
  cudaFree(temp);
}

template <int NT, int VT>
using lp = mgpu::launch_params<NT, VT>;
template <int NT, int VT, int MIN_CTAS>
using lpm = mgpu::launch_params<NT, VT, MIN_CTAS>;

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = std::int64_t(1) << (argc > 1 ? std::atoi(argv[1]) : 28);
  try {
    mgpu::context ctx;
    bench::l2_flush flush(ctx.props().l2_bytes);
    std::string what = argc > 2 ? argv[2] : "all";
    if (what == "all" || what == "reduce") {
      tune_reduce<std::int32_t, lp<128, 32>, lp<256, 64>>(ctx, n, flush);
      tune_reduce<std::int64_t, lp<128, 16>, lp<256, 8>>(ctx, n, flush);
    }
    if (what == "reducesmall")  // mgpu_tune 0 reducesmall: n = 10^5, 10^6, 4 * 10^6
      for (std::int64_t m : {100000, 1000000, 4000000})
        tune_reduce_small<lp<128, 32>, lp<256, 16>, lp<256, 32>, lp<512, 8>, lp<128, 16>, lp<64, 64>, lp<256, 8>,
                          lp<512, 16>>(ctx, m);
    if (what == "segmentedsmall")  // mgpu_tune 0 segmentedsmall: n = 10^4, 10^5, 10^6, graph replays against CUB
      for (std::int64_t m : {10000, 100000, 1000000}) {
        tune_segmented_small<true, lp<256, 15>, lp<128, 15>, lp<128, 11>, lp<128, 7>, lp<128, 5>, lp<256, 7>,
                             lp<64, 15>, lp<64, 7>>(m);
        tune_segmented_small<false, lp<128, 15>, lp<128, 11>, lp<128, 7>, lp<128, 5>, lp<64, 15>, lp<64, 7>, lp<256, 7>,
                             lp<128, 3>>(m);
      }
    if (what == "segmentedone")  // mgpu_tune 0 segmentedone: inputs of one tile (10^3), graph replays against CUB
      for (int round = 0; round < 2; ++round) {
        tune_segmented_small<true, lp<256, 15>, lp<256, 7>, lp<256, 4>, lp<128, 8>, lp<512, 2>, lp<64, 16>, lp<512, 4>,
                             lp<128, 15>>(1000);
        tune_segmented_small<false, lp<128, 15>, lp<128, 8>, lp<256, 4>, lp<256, 8>, lp<512, 2>, lp<64, 16>, lp<512, 4>,
                             lp<128, 11>>(1000);
      }
    if (what == "segmentedonewide")  // mgpu_tune 0 segmentedonewide: past the small tile, up to one default tile
      for (int round = 0; round < 2; ++round) {
        tune_segmented_small<true, lp<256, 15>, lp<512, 8>, lp<1024, 4>, lp<512, 6>, lp<256, 4>>(3000);
        tune_segmented_small<false, lp<128, 15>, lp<256, 8>, lp<512, 4>, lp<1024, 2>, lp<256, 4>>(1800);
      }
    if (what == "scansmall")  // mgpu_tune 0 scansmall: n = 10^4, 10^5, 10^6 (graph replays against CUB)
      for (int round = 0; round < 2; ++round)
        for (std::int64_t m : {10000, 100000, 1000000})
          tune_scan_small<lpm<128, 41, 8>, lpm<128, 15, 8>, lpm<128, 23, 8>, lpm<128, 11, 8>, lpm<256, 15, 4>,
                          lpm<64, 41, 16>, lpm<128, 31, 8>, lpm<256, 23, 4>>(m);
    if (what == "scanshapes")  // 4-byte scans at large sizes: the first shape is scan_params<int> (sm_90)
      tune_scan<std::int32_t, lpm<128, 41, 8>, lpm<128, 33, 8>, lpm<128, 49, 8>, lpm<128, 41, 6>, lpm<256, 41, 4>,
                lpm<128, 57, 6>, lpm<64, 41, 16>, lpm<256, 31, 4>, lpm<128, 41, 0>>(ctx, n, flush);
    if (what == "all" || what == "scan") {
      tune_scan<std::int32_t, lp<128, 41>, lp<128, 53>>(ctx, n, flush);
      tune_scan<std::int64_t, lp<128, 21>, lp<128, 31>>(ctx, n, flush);
    }
    if (what == "all" || what == "merge") {
      tune_merge<false, lp<128, 15>, lp<256, 15>, lp<512, 11>, lp<512, 13>, lp<512, 15>, lpm<512, 15, 4>, lp<384, 15>,
                 lpm<256, 15, 8>, lp<256, 30>, lp<1024, 7>, lp<512, 17>>(ctx, n, flush);
      tune_merge<true, lp<128, 15>, lp<256, 15>, lp<512, 7>, lp<512, 11>, lp<512, 15>, lp<256, 11>>(ctx, n, flush);
    }
    if (what == "mergecaps")  // register caps (min CTAs an SM) of the keys' default tile
      tune_merge<false, lp<256, 15>, lpm<256, 15, 5>, lpm<256, 15, 6>, lpm<128, 15, 10>, lpm<512, 15, 3>>(ctx, n,
                                                                                                          flush);
    if (what == "all" || what == "sort")
      tune_mergesort<lp<256, 11>, lp<256, 15>, lp<128, 15>, lp<256, 7>, lp<512, 11>, lp<128, 23>>(ctx, n, flush);
    if (what == "profile") profile_kernels(ctx, n);
    if (what == "profilemerge") profile_merge(ctx, n);
    if (what == "sortshapes")
      tune_mergesort<lp<256, 11>, lp<256, 15>, lp<256, 17>, lp<128, 15>, lp<512, 11>, lp<512, 15>, lp<128, 23>,
                     lp<256, 23>, lp<256, 27>>(ctx, n, flush);
    if (what == "sortcaps")  // keys' tiles with register caps; the first is mergesort_params<int> (sm_90)
      for (int round = 0; round < 2; ++round)
        tune_mergesort<lpm<256, 11, 8>, lpm<256, 17, 0>, lpm<256, 17, 4>, lpm<256, 17, 5>, lpm<256, 15, 5>,
                       lpm<256, 15, 6>, lpm<256, 13, 6>, lpm<128, 23, 8>, lpm<128, 23, 6>, lpm<256, 19, 4>>(ctx, n,
                                                                                                            flush);
    if (what == "pairshapes")
      tune_mergesort_pairs<lp<256, 11>, lp<256, 7>, lp<256, 15>, lp<128, 15>, lp<512, 11>>(ctx, n, flush);
    // Segmented sort shapes over the benchmark's profiles: keys, then pairs.
    if (what == "segshape")  // one profile: mgpu_tune LOG2N segshape SIZE [random]
      tune_segmented_sort<false, lp<256, 11>, lpm<256, 11, 6>, lp<256, 15>, lpm<128, 15, 0>, lpm<128, 15, 8>>(
          ctx, n, argc > 3 ? std::atoi(argv[3]) : 8, argc > 4, flush);
    if (what == "segshapes")
      for (auto [size, random] :
           {std::pair{8, false}, {96, false}, {1024, false}, {128, true}, {0, false}, {-1, false}})
        tune_segmented_sort<false, lp<256, 11>, lpm<128, 15, 0>, lpm<128, 15, 8>, lpm<128, 15, 10>, lpm<128, 15, 12>>(
            ctx, n, size, random, flush);
    if (what == "segpairshapes")
      for (auto [size, random] : {std::pair{8, false}, {1024, false}, {128, true}, {0, false}})
        tune_segmented_sort<true, lp<256, 11>, lpm<128, 11, 8>, lpm<128, 15, 8>, lpm<128, 11, 10>, lpm<256, 7, 5>>(
            ctx, n, size, random, flush);
    // Segmented reduce shapes over segments of 1, 4, 32, 1024, 65536 and one segment; reduce_by_key's.
    if (what == "segreduceshapes")
      for (int size : {1, 4, 32, 1024, 65536, 0})
        tune_segmented_reduce<lp<128, 11>, lp<128, 15>, lp<128, 19>, lp<128, 23>, lp<128, 27>, lp<256, 11>, lp<192, 15>,
                              lp<96, 23>>(ctx, n, size, flush);
    if (what == "segreducecaps")  // register caps and smaller tiles for more CTAs an SM; first: the default
      for (int size : {32, 65536})
        tune_segmented_reduce<lp<128, 15>, lpm<128, 15, 9>, lpm<128, 11, 12>, lpm<128, 11, 13>, lpm<128, 7, 16>,
                              lpm<64, 15, 18>>(ctx, n, size, flush);
    if (what == "reducebykeyshapes")
      for (int run : {1, 4, 64, 1024})
        tune_reduce_by_key<lp<128, 7>, lp<128, 11>, lp<128, 15>, lp<128, 19>, lp<128, 23>, lp<256, 11>, lp<256, 15>>(
            ctx, n, run, flush);
    if (what == "setshapes")
      tune_sets<false, lp<256, 15>, lp<128, 15>, lp<256, 11>, lp<128, 11>, lp<256, 7>, lp<512, 11>, lpm<256, 15, 4>,
                lp<128, 23>, lp<512, 7>>(ctx, n, flush);
    if (what == "setshapes2")  // larger tiles, after setshapes found <128, 23> ahead of <256, 15>
      tune_sets<false, lp<256, 15>, lp<128, 23>, lp<128, 19>, lp<128, 27>, lp<128, 31>, lp<64, 31>, lp<256, 23>,
                lp<192, 23>, lp<96, 31>>(ctx, n, flush);
    if (what == "setshapes3")  // after the serial set loop lost a third of its instructions (cf2336b)
      tune_sets<false, lpm<128, 31, 8>, lpm<128, 31, 7>, lpm<256, 23, 4>, lpm<256, 31, 4>, lpm<256, 31, 3>, lp<256, 27>,
                lpm<256, 19, 5>, lpm<192, 31, 5>>(ctx, n, flush);
    if (what == "setpairshapes")  // pairs, once their values came through shared memory
      tune_sets<true, lp<256, 15>, lpm<256, 15, 3>, lp<128, 15>, lpm<128, 15, 6>, lp<256, 11>, lp<128, 23>,
                lpm<128, 23, 4>, lp<128, 31>, lp<512, 7>>(ctx, n, flush);
    if (what == "compactshapes")
      tune_compact<lp<128, 32>, lp<256, 32>, lp<128, 16>, lp<256, 16>, lp<512, 16>, lp<64, 32>, lp<512, 8>,
                   lpm<128, 32, 12>, lp<256, 24>>(ctx, n, flush);
    if (what == "lbsshapes")
      for (int size : {1, 8, 1024})
        tune_load_balance<false, lp<128, 11>, lp<128, 7>, lp<128, 15>, lp<256, 7>, lp<256, 11>, lp<64, 15>, lp<128, 19>,
                          lpm<128, 11, 16>>(ctx, n, size, flush);
    if (what == "moveshapes")  // interval_move; the first shape is load_balance_params<move_starts>
      for (int size : {8, 64, 1024})
        tune_load_balance<true, lp<128, 11>, lpm<128, 7, 12>, lpm<128, 7, 14>, lpm<128, 7, 16>, lpm<128, 5, 16>,
                          lpm<256, 7, 7>, lpm<128, 9, 12>, lpm<64, 7, 24>, lpm<256, 5, 8>>(ctx, n, size, flush);
    if (what == "profilenew") profile_new_families(ctx, n);
    if (what == "profileprimer") profile_primer(ctx, n);
    if (what == "profilesegreduce") profile_segreduce(ctx, n);
    if (what == "profilejoin") profile_join(ctx, n);
    // SpMV over the benchmark's matrices (printed as bench::matrix_kind: 0 uniform, 1 power law, 2
    // banded, 3 one dense row, 4 rows of 1, 5 sparse rows).
    const bench::matrix_kind matrices[] = {bench::matrix_kind::uniform,   bench::matrix_kind::power_law,
                                           bench::matrix_kind::banded,    bench::matrix_kind::dense_row,
                                           bench::matrix_kind::rows_of_1, bench::matrix_kind::sparse_rows};
    if (what == "spmvshapes")  // float; the first shape was spmv_params<float> on sm_90 until <128, 13, 7>
      for (bench::matrix_kind kind : matrices)
        tune_spmv<float, lpm<128, 15, 6>, lpm<128, 11, 9>, lpm<128, 11, 8>, lpm<128, 13, 8>, lpm<128, 15, 7>,
                  lpm<128, 15, 8>, lpm<128, 13, 7>, lpm<128, 11, 10>>(ctx, n, kind, flush);
    if (what == "spmvshapesdouble")  // the first shape is spmv_params<double>
      for (bench::matrix_kind kind : matrices)
        tune_spmv<double, lpm<128, 15, 4>, lpm<128, 11, 6>, lpm<128, 11, 8>, lpm<128, 9, 8>, lpm<128, 7, 10>,
                  lpm<128, 15, 5>, lpm<128, 11, 7>, lpm<128, 7, 12>>(ctx, n, kind, flush);
    if (what == "profilesegmented")  // mgpu_tune 0 profilesegmented N
      profile_small_segmented(ctx, argc > 3 ? std::atoll(argv[3]) : 10000);
    if (what == "profilesmall")  // mgpu_tune 0 profilesmall N
      profile_small(ctx, argc > 3 ? std::atoll(argv[3]) : 1000000);
    if (what == "segscanshapes")
      for (int size : {1, 2, 32, 1024})
        tune_segmented_scan<lp<128, 41>, lp<128, 31>, lp<128, 25>, lp<128, 23>, lp<128, 19>, lp<128, 15>, lp<256, 15>,
                            lp<128, 11>>(ctx, n, size, flush);
    if (what == "compactcaps") {  // register caps (min CTAs per SM), after compactshapes2
      tune_compact_staging<int, false, lp<128, 32>, lpm<128, 32, 10>, lpm<128, 32, 9>, lpm<128, 32, 11>>(ctx, n, flush,
                                                                                                         true);
      tune_compact_staging<int, true, lp<128, 32>, lpm<128, 32, 10>, lp<256, 24>, lpm<256, 24, 5>, lpm<128, 24, 12>,
                           lpm<128, 32, 9>>(ctx, n, flush, true);
      tune_compact_staging<std::int64_t, false, lp<128, 32>, lpm<128, 32, 6>, lpm<128, 32, 7>, lpm<128, 24, 8>>(
          ctx, n / 2, flush, true);
    }
    if (what == "compactshapes2") {  // staged shapes after compactstaging
      tune_compact_staging<int, false, lp<128, 32>, lpm<128, 32, 10>, lp<96, 32>, lp<160, 32>, lp<192, 32>>(
          ctx, n, flush, true);
      tune_compact_staging<int, true, lp<256, 24>, lp<192, 32>, lp<384, 16>, lp<256, 20>, lp<512, 12>, lp<128, 24>>(
          ctx, n, flush, true);
      tune_compact_staging<std::int64_t, false, lp<128, 32>, lp<96, 32>, lpm<128, 32, 6>, lp<160, 24>>(ctx, n / 2,
                                                                                                       flush, true);
    }
    if (what == "compactstaging") {
      tune_compact_staging<int, false, lp<128, 32>, lp<256, 32>, lp<256, 24>>(ctx, n, flush);
      tune_compact_staging<int, true, lp<128, 32>, lp<256, 32>, lp<128, 24>, lp<256, 24>>(ctx, n, flush);
      tune_compact_staging<std::int64_t, false, lp<128, 16>, lp<256, 16>, lp<128, 24>, lp<384, 11>, lp<128, 32>>(
          ctx, n / 2, flush);
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
