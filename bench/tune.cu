// bench/tune.cu
//
// Times one primitive under several launch shapes against its CCCL baseline at one size, to
// choose the defaults in the tuning tables (METHOD: build here, carry, run all variants in one
// call). Usage: mgpu_tune [log2 n]. Not part of the regular benchmark.
#include "bench_common.hpp"

#include <mgpu/mgpu.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

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
  double cub_ms = bench::median_ms([&] { cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); },
                                   3, 15, ctx.stream(), &flush);
  std::printf("scan %s n=%lld: cub %.4f ms\n", name_of<T>(), (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms([&] { mgpu::exclusive_scan<P>(in.data(), n, out.data(), T(0), mgpu::plus<T>(), ctx); },
                                 3, 15, ctx.stream(), &flush);
    bench::mismatches m = bench::compare_arrays(out.data(), ref.data(), n, ctx.stream());
    std::printf("  <%4d,%3d,%d> %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, P::min_ctas, ms, cub_ms / ms, m.count ? "MISMATCH" : "ok");
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
  double cub_ms = bench::median_ms([&] { cub::DeviceReduce::Sum(temp, bytes, in.data(), ref.data(), int(n), ctx.stream()); },
                                   3, 15, ctx.stream(), &flush);
  std::printf("reduce %s n=%lld: cub %.4f ms\n", name_of<T>(), (long long)n, cub_ms);
  auto one = [&](auto shape) {
    using P = decltype(shape);
    double ms = bench::median_ms([&] { mgpu::reduce<P>(in.data(), n, out.data(), T(0), mgpu::plus<T>(), ctx); },
                                 3, 15, ctx.stream(), &flush);
    T got = out.at(0, ctx.stream()), want = ref.at(0, ctx.stream());
    bool ok = std::is_floating_point<T>::value ? std::fabs(double(got) - double(want)) <= 1e-4 * std::fabs(double(want))
                                               : got == want;
    std::printf("  <%4d,%3d> %.4f ms  %.3fx cub  %s\n", P::nt, P::vt, ms, cub_ms / ms, ok ? "ok" : "MISMATCH");
  };
  (one(Shapes{}), ...);
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
    tune_reduce<std::int32_t, lp<128, 32>, lp<256, 64>>(ctx, n, flush);
    tune_reduce<std::int64_t, lp<128, 16>, lp<256, 8>>(ctx, n, flush);
    tune_reduce<float, lp<128, 32>>(ctx, n, flush);
    tune_scan<std::int32_t, lp<128, 41>, lp<128, 45>, lp<128, 53>, lp<128, 61>, lp<64, 61>, lp<96, 41>, lp<192, 41>,
              lp<64, 83>, lpm<128, 41, 4>>(ctx, n, flush);
    tune_scan<std::int64_t, lp<128, 21>, lp<128, 25>, lp<128, 31>, lp<64, 41>, lp<96, 25>, lp<192, 21>>(ctx, n, flush);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
