// bench/mgpu_bench.cu
//
// mgpu against its CCCL equivalent, side by side, on the GPU: the method of shared/PERFORMANCE.md
// (random data, CUDA events, warm-up, median, CUB temp storage allocated outside the timed region,
// bytes counted as the fewest the function must move). Usage: see usage() or bench/README.md.
//
// Adding a family: write a case struct (a name, and run<T>(env&, n) that builds the inputs, times
// both implementations through env::compare and checks through env::check), then add it to
// `primitives` below.
#include "bench_common.hpp"

#include <mgpu/mgpu.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdlib>
#include <ctime>
#include <exception>

using bench::case_id;
using bench::cub_call;
using bench::cub_count;
using bench::device_array;
using bench::env;
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

// ---- cases -------------------------------------------------------------------------------------

struct reduce_case {
  static constexpr const char* name = "reduce";
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

// ---- the registry ------------------------------------------------------------------------------

enum class elem { int32, int64, float32 };

const char* elem_name(elem t) {
  switch (t) {
    case elem::int32: return type_name<std::int32_t>::value;
    case elem::int64: return type_name<std::int64_t>::value;
    default: return type_name<float>::value;
  }
}

template <class Case>
void run_as(elem t, env& e, std::int64_t n) {
  switch (t) {
    case elem::int32: Case::template run<std::int32_t>(e, n); break;
    case elem::int64: Case::template run<std::int64_t>(e, n); break;
    case elem::float32: Case::template run<float>(e, n); break;
  }
}

struct primitive {
  const char* name;  // what --filter matches
  void (*run)(elem, env&, std::int64_t);
};

template <class Case>
primitive entry() {
  return {Case::name, &run_as<Case>};
}

// In report order.
const primitive primitives[] = {
    entry<reduce_case>(),
    entry<scan_case<mgpu::scan_kind::exclusive>>(),
    entry<scan_case<mgpu::scan_kind::inclusive>>(),
};

// ---- command line ------------------------------------------------------------------------------

struct options {
  std::string csv, filter;
  bool quick = false;
};

void usage(const char* argv0) {
  std::printf(
      "usage: %s [--csv PATH] [--quick] [--filter SUBSTRING]\n"
      "  --csv PATH          also write the results as CSV to PATH\n"
      "  --quick             2^24 and 2^28 only, int32 only, fewer repetitions\n"
      "  --filter SUBSTRING  only the primitives whose name contains SUBSTRING\n"
      "primitives:",
      argv0);
  for (const primitive& p : primitives) std::printf(" %s", p.name);
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
  const std::vector<int> log_sizes = opt.quick ? std::vector<int>{24, 28} : std::vector<int>{20, 22, 24, 26, 28};
  const std::vector<elem> types =
      opt.quick ? std::vector<elem>{elem::int32} : std::vector<elem>{elem::int32, elem::int64, elem::float32};
  const int warmup = opt.quick ? 2 : 3, reps = opt.quick ? 10 : 25;

  try {
    mgpu::context ctx;
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
    std::printf("method: median of %d runs after %d warm-ups, L2 flushed before each; GB/s counts the fewest bytes\n",
                reps, warmup);

    bench::report out(utc_now(), props.name, ceiling, opt.csv);
    bench::l2_flush flush(props.l2_bytes);
    env e{ctx, warmup, reps, flush, out};
    for (const primitive& p : primitives) {
      if (std::string(p.name).find(opt.filter) == std::string::npos) continue;
      for (elem t : types)
        for (int lg : log_sizes) {
          std::int64_t n = std::int64_t(1) << lg;
          try {
            p.run(t, e, n);
          } catch (const std::exception& ex) {
            out.error(case_id{p.name, elem_name(t), n}, ex.what());
            // Go on after a recoverable error (out of memory); stop once the context is broken.
            cudaGetLastError();
            if (cudaError_t sticky = cudaDeviceSynchronize(); sticky != cudaSuccess)
              throw mgpu::cuda_error(sticky, "cudaDeviceSynchronize after a failed case");
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
