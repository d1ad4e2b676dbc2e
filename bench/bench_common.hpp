// bench/bench_common.hpp
//
// The machinery every case of mgpu_bench shares: device arrays, random inputs, the timing method
// (shared/PERFORMANCE.md), the check of mgpu's output against the baseline's, and the report
// (stdout table, CSV, closing summary). A case only builds its inputs, says how to call each
// implementation and how many bytes the call must move (see mgpu_bench.cu).
#pragma once

#include <mgpu/algorithms/load_balance.hpp>
#include <mgpu/algorithms/scan.hpp>
#include <mgpu/core/context.hpp>
#include <mgpu/core/cta_launch.hpp>
#include <mgpu/core/segments.hpp>
#include <mgpu/platform/error.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace bench {

// ---- device memory -----------------------------------------------------------------------------

// An owning cudaMalloc array. Inputs and outputs are fixtures of the benchmark, not temporaries:
// keeping them out of the context's pool leaves that pool to what the library allocates itself.
template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::int64_t n) : n_(n) {
    if (n > 0) MGPU_CUDA_CHECK(cudaMalloc(&p_, std::size_t(n) * sizeof(T)));
  }
  ~device_array() {
    if (p_) cudaFree(p_);  // no check: may run while an exception unwinds
  }
  device_array(device_array&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_array& operator=(device_array&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  T* data() const { return p_; }
  std::int64_t size() const { return n_; }

  // One element, copied to the host (waits for `stream`).
  T at(std::int64_t i, cudaStream_t stream) const {
    T v;
    MGPU_CUDA_CHECK(cudaMemcpyAsync(&v, p_ + i, sizeof(T), cudaMemcpyDeviceToHost, stream));
    MGPU_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
  }

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
};

// ---- element types -----------------------------------------------------------------------------

// The name a type goes by in the table and the CSV. Specialize for each type a case uses.
template <class T>
struct type_name;
template <>
struct type_name<std::int32_t> {
  static constexpr const char* value = "int32";
};
template <>
struct type_name<std::int64_t> {
  static constexpr const char* value = "int64";
};
template <>
struct type_name<float> {
  static constexpr const char* value = "float";
};
template <>
struct type_name<double> {
  static constexpr const char* value = "double";
};

// ---- random inputs -----------------------------------------------------------------------------

// splitmix64's finalizer: a well-mixed hash of the index makes inputs reproducible and costs a
// fraction of a millisecond for 2^28 values, so nothing large crosses PCIe.
MGPU_HOST_DEVICE std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Maps 64 random bits to [lo, hi] (integers) or [lo, hi) (floating point). A separate function
// because nvcc rejects a device lambda whose captures first appear inside `if constexpr`.
template <class T>
MGPU_HOST_DEVICE T random_value(std::uint64_t bits, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(double(lo) + double(hi - lo) * (double(bits >> 11) * 0x1p-53));
  } else {
    std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo) + 1;  // 0: the full range
    return T(std::uint64_t(lo) + (span ? bits % span : bits));
  }
}

// p[i] = random_value(hash(seed, i), lo, hi) for i in [0, n), on ctx's stream.
template <class T>
void fill_random(T* p, std::int64_t n, std::uint64_t seed, T lo, T hi, mgpu::context& ctx) {
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) { p[i] = random_value(mix64(seed ^ mix64(std::uint64_t(i))), lo, hi); }, n, ctx);
}

// ---- sparse matrices (SpMV) ---------------------------------------------------------------------

// The generated matrices of the SpMV cases (square, about n non-zeros in all).
enum class matrix_kind {
  uniform,      // rows of 0 to 64 entries, random columns
  power_law,    // row sizes from a Pareto law (about 8 on average, a few rows of thousands), random columns
  banded,       // 27 entries per row, in the columns around the diagonal
  dense_row,    // rows of 0 to 7 entries, random columns, and one row holding half the non-zeros
  rows_of_1,    // one entry per row, in a random column
  sparse_rows,  // 7 of 8 rows empty, the others of 8 to 56 entries, random columns
};

// A generated matrix's structure in CSR form (the values are the caller's, of its type).
struct csr_structure {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  device_array<int> offsets, columns;  // rows + 1 and nnz entries
};

// The structure of a matrix of `kind` with about n non-zeros, reproducible from `seed` (waits for
// ctx's stream once, for the number of non-zeros).
inline csr_structure make_csr_structure(matrix_kind kind, std::int64_t n, std::uint64_t seed, mgpu::context& ctx) {
  csr_structure m;
  const std::int64_t rows = kind == matrix_kind::uniform       ? n / 32
                            : kind == matrix_kind::banded      ? n / 27
                            : kind == matrix_kind::rows_of_1   ? n
                            : kind == matrix_kind::sparse_rows ? n / 4
                                                               : n / 8;
  // At least 1,024 columns: rows of up to 64 random columns in a matrix of fewer columns than that
  // (n = 10^3 of --small) could hold more entries than rows x cols, which cuSPARSE rejects.
  const std::int64_t cols = std::max<std::int64_t>(rows, 1024), dense = rows / 2, half = n / 2;
  m.rows = rows;
  m.cols = cols;
  m.offsets = device_array<int>(rows + 1);
  int* o = m.offsets.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t r) {
        std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(r)));
        int size = 0;
        if (r < rows) {
          if (kind == matrix_kind::uniform) {
            size = int(h % 65);
          } else if (kind == matrix_kind::banded) {
            size = 27;
          } else if (kind == matrix_kind::dense_row) {
            size = r == dense ? int(half) : int(h % 8);
          } else if (kind == matrix_kind::rows_of_1) {
            size = 1;
          } else if (kind == matrix_kind::sparse_rows) {
            size = h % 8 == 0 ? 8 + int((h >> 8) % 49) : 0;
          } else {  // Pareto: P(size >= k) falls as k^-1.3, scaled to a mean of about 8
            double u = double(h >> 11) * 0x1p-53;
            size = int(fmin(2.0 * pow(1.0 - u, -1.0 / 1.3), double(1 << 16))) - 1;
          }
        }
        o[r] = size;
      },
      rows + 1, ctx);
  mgpu::exclusive_scan(o, rows + 1, o, 0, mgpu::plus<>(), ctx);
  m.nnz = m.offsets.at(rows, ctx.stream());
  m.columns = device_array<int>(m.nnz);
  int* c = m.columns.data();
  mgpu::transform_lbs(
      [=] MGPU_LAMBDA(std::int64_t k, std::int64_t r, std::int64_t rank) {
        c[k] = kind == matrix_kind::banded ? int((r + rank - 13 + cols) % cols)
                                           : int(mix64((seed + 1) ^ mix64(std::uint64_t(k))) % std::uint64_t(cols));
      },
      m.nnz, mgpu::segments_by_heads(o, rows), ctx);
  return m;
}

// ---- timing ------------------------------------------------------------------------------------

// Holds the stream for `ns` nanoseconds. Enqueued before each timed run so that the host has
// enqueued the whole run before the start event fires: small sizes then measure GPU time, not
// the host's launch overhead. (A template only so that the header may be in several files.)
template <int = 0>
__global__ void spin_kernel(std::uint64_t ns) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Reads a scratch buffer (zeros) and never writes: the loads stay, the store never happens.
template <int = 0>
__global__ void read_kernel(const uint4* p, std::int64_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    uint4 v = p[i];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc) *sink = acc;
}

// Reads a scratch buffer twice the size of L2 before each timed run, so that inputs smaller than
// L2 come from DRAM, as on the first call on fresh data, rather than from the previous run's
// cache lines. Reading (not memset, as nvbench does) leaves L2 clean: the timed run then pays no
// write-back of the flush's own lines.
class l2_flush {
 public:
  explicit l2_flush(std::size_t l2_bytes)
      : scratch_(std::int64_t(std::max<std::size_t>(2 * l2_bytes, 16) / 16)), sink_(1) {
    MGPU_CUDA_CHECK(cudaMemset(scratch_.data(), 0, std::size_t(scratch_.size()) * sizeof(uint4)));
    MGPU_CUDA_CHECK(cudaDeviceSynchronize());  // the context's stream does not wait for stream 0
  }
  void operator()(cudaStream_t stream) {
    read_kernel<><<<1024, 256, 0, stream>>>(scratch_.data(), scratch_.size(), sink_.data());
    MGPU_CUDA_CHECK(cudaGetLastError());
  }

 private:
  device_array<uint4> scratch_;
  device_array<unsigned> sink_;
};

class event {
 public:
  event() { MGPU_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~event() { cudaEventDestroy(e_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Does nothing: the default per-run setup of median_ms.
struct no_setup {
  void operator()() const {}
};

// The median time in milliseconds of `reps` runs of f() on `stream`, after `warmup` untimed runs
// (they load modules, fill the context's pool and settle clocks). Each run is bracketed by its own
// pair of events. Before each run, outside the events: setup() (it restores the input of an
// in-place call, say), then `flush`, when given.
//
// First the device idles for settle_ms: after cudaFree of gigabytes (the case before's arrays) the
// driver keeps working in the background for several milliseconds, and calls timed meanwhile run up
// to 10% slower (H100: a segmented scan of 2^24 ints 93 us instead of 85 for about 7 ms after 3 GB
// were freed; bench/results/2026-11-26_h100_free_settle.txt). Without the pause the first
// implementation timed after a large size paid for it and the second did not.
//
// budget_ms > 0 caps the cost of slow calls: once a warm-up run (from the second on, since the
// first may carry module loading) shows that the remaining runs would take longer than
// budget_ms, the warm-ups stop and the timed runs shrink to what fits in budget_ms, but never
// below min_reps. `runs`, when given, receives the number of timed runs.
constexpr int min_reps = 5;
constexpr int settle_ms = 100;

template <class F, class S = no_setup>
double median_ms(F&& f, int warmup, int reps, cudaStream_t stream, l2_flush* flush = nullptr, S&& setup = S(),
                 double budget_ms = 0, int* runs = nullptr) {
  MGPU_CUDA_CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  event start, stop;
  std::vector<double> times;
  for (int r = 0; r < warmup + reps; ++r) {
    setup();
    if (flush) (*flush)(stream);
    spin_kernel<><<<1, 1, 0, stream>>>(100'000);  // 0.1 ms
    MGPU_CUDA_CHECK(cudaGetLastError());
    MGPU_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    f();
    MGPU_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    MGPU_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    MGPU_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (r >= warmup) {
      times.push_back(ms);
    } else if (budget_ms > 0 && (r >= 1 || warmup == 1) && ms > 0 && double(warmup - r - 1 + reps) * ms > budget_ms) {
      int fit = int(budget_ms / ms);
      reps = std::max(std::min(reps, min_reps), std::min(reps, fit));
      warmup = r + 1;
    }
  }
  if (runs) *runs = int(times.size());
  std::sort(times.begin(), times.end());
  std::size_t m = times.size() / 2;
  return times.size() % 2 ? times[m] : (times[m - 1] + times[m]) / 2;
}

// The per-call time in milliseconds of small calls (no L2 flush: a caller of small functions runs
// them back to back, with warm caches): `calls` calls of f() one after another on `stream` after
// `warmup` untimed ones, or, with `graph`, as many replays of a CUDA graph captured from one call of
// f() (its host work gone: what is left is the device-side cost). Without a setup, one pair of
// events brackets all calls; with one (setup() restores an in-place call's input), each call has
// its own pair, setup() outside it, and the times are summed. A call that cannot be captured (it
// waits for the device, say) throws not_capturable.
struct not_capturable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class F, class S = no_setup>
double per_call_ms(F&& f, bool graph, int warmup, int calls, cudaStream_t stream, S&& setup = S()) {
  constexpr bool each = !std::is_same<std::decay_t<S>, no_setup>::value;
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    MGPU_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    cudaGraph_t g = nullptr;
    try {
      f();
    } catch (const std::exception& ex) {
      cudaStreamEndCapture(stream, &g);
      if (g) cudaGraphDestroy(g);
      cudaGetLastError();
      throw not_capturable(ex.what());
    }
    MGPU_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    cudaError_t made = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    MGPU_CUDA_CHECK(made);
  }
  auto call = [&] {
    if (graph)
      MGPU_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    else
      f();
  };
  event start, stop;
  for (int r = 0; r < warmup; ++r) {
    setup();
    call();
  }
  double total = 0;
  auto elapsed = [&] {
    MGPU_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    MGPU_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return double(ms);
  };
  MGPU_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (each) {
    for (int r = 0; r < calls; ++r) {
      setup();
      MGPU_CUDA_CHECK(cudaEventRecord(start.get(), stream));
      call();
      MGPU_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
      total += elapsed();
    }
  } else {
    MGPU_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    for (int r = 0; r < calls; ++r) call();
    MGPU_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    total = elapsed();
  }
  if (exec) cudaGraphExecDestroy(exec);
  return total / calls;
}

// The practical ceiling of a streaming function: device-to-device cudaMemcpyAsync of 1 GiB, in
// GB/s counting the bytes read plus the bytes written.
inline double memcpy_gbps(cudaStream_t stream) {
  const std::int64_t bytes = std::int64_t(1) << 30;
  device_array<unsigned char> src(bytes), dst(bytes);
  MGPU_CUDA_CHECK(cudaMemsetAsync(src.data(), 1, std::size_t(bytes), stream));
  double ms = median_ms(
      [&] {
        MGPU_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), std::size_t(bytes), cudaMemcpyDeviceToDevice, stream));
      },
      3, 10, stream);
  return 2.0 * double(bytes) / (ms * 1e6);
}

// ---- checking mgpu against the baseline --------------------------------------------------------

// Floating-point results differ by association order (tiles, look-back chains): for uniform
// [0, 1) inputs a model of both scans differs by under 1e-5 at 2^28 elements. Integers must match
// exactly.
constexpr double float_rel_tol = 2e-4;

template <class T>
MGPU_HOST_DEVICE bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    double x = double(a), y = double(b);
    double scale = fmax(1.0, fmax(fabs(x), fabs(y)));
    return fabs(x - y) <= float_rel_tol * scale;  // false for NaN
  } else {
    return a == b;
  }
}

// stats[0] += number of i with a[i] != b[i]; stats[1] = min(stats[1], first such i).
template <class T>
__global__ void mismatch_kernel(const T* a, const T* b, std::int64_t n, unsigned long long* stats) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    if (!same_value(a[i], b[i])) {
      atomicAdd(&stats[0], 1ull);
      atomicMin(&stats[1], (unsigned long long)i);
    }
}

struct mismatches {
  std::int64_t count = 0;
  std::int64_t first = -1;  // -1 when count is 0
};

// Compares a[0, n) with b[0, n) on the device (waits for `stream`).
template <class T>
mismatches compare_arrays(const T* a, const T* b, std::int64_t n, cudaStream_t stream) {
  device_array<unsigned long long> stats(2);
  unsigned long long host[2] = {0, ULLONG_MAX};
  MGPU_CUDA_CHECK(cudaMemcpyAsync(stats.data(), host, sizeof host, cudaMemcpyHostToDevice, stream));
  int blocks = int(std::min<std::int64_t>(4096, std::max<std::int64_t>(1, (n + 255) / 256)));
  mismatch_kernel<<<blocks, 256, 0, stream>>>(a, b, n, stats.data());
  MGPU_CUDA_CHECK(cudaGetLastError());
  MGPU_CUDA_CHECK(cudaMemcpyAsync(host, stats.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  MGPU_CUDA_CHECK(cudaStreamSynchronize(stream));
  mismatches m;
  m.count = std::int64_t(host[0]);
  if (m.count) m.first = std::int64_t(host[1]);
  return m;
}

// ---- the report --------------------------------------------------------------------------------

// A comma-separated file with a header row; fields with commas or quotes are quoted.
class csv_writer {
 public:
  csv_writer() = default;
  csv_writer(const std::string& path, const std::vector<std::string>& header) : file_(path) {
    if (!file_) throw std::runtime_error("cannot write " + path);
    row(header);
  }
  explicit operator bool() const { return file_.is_open(); }
  void row(const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) file_ << (i ? "," : "") << quoted(fields[i]);
    file_ << '\n';
    file_.flush();  // a crash later in the run keeps the rows so far
  }

 private:
  static std::string quoted(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  std::ofstream file_;
};

inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "2^24" for powers of two, the number otherwise.
inline std::string size_text(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int lg = 0;
    while ((std::int64_t(1) << lg) < n) ++lg;
    return "2^" + std::to_string(lg);
  }
  return std::to_string(n);
}

template <class T>
std::string value_text(T v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

// What one case measures: a primitive on one element type and size.
struct case_id {
  std::string primitive, type;
  std::int64_t n;
  std::string text() const { return primitive + " " + type + " n=" + size_text(n); }
};

// One implementation's measurement in a case.
struct timed {
  std::string impl;          // "mgpu", or the baseline's name ("cccl", "mgpu_mergesort")
  double ms = 0;             // median of one call
  int runs = 0;              // timed runs behind the median
  std::string not_captured;  // graph rows: why a baseline could not be captured (then no time)
};

// Collects the measurements: prints a table row per case, writes one CSV row per implementation,
// and closes with a summary that fits in the visible tail of a log.
//
// A case has mgpu's time and zero or more baselines. The first baseline is the case's primary
// one: the speedup column is its time over mgpu's (in the CSV, over each row's own time). Further
// baselines (reference points) get a line of their own under the case's row. A case with no
// baseline (nothing in CCCL computes it) shows "-" and leaves the CSV speedup empty.
class report {
 public:
  static constexpr int name_width = 26;

  report(std::string date, std::string device, double memcpy_gbps, const std::string& csv_path, int reps)
      : date_(std::move(date)), device_(std::move(device)), memcpy_gbps_(memcpy_gbps), reps_(reps) {
    if (!csv_path.empty())
      csv_ = csv_writer(csv_path, {"date", "device", "primitive", "type", "n", "impl", "ms", "gelems_per_s", "gb_per_s",
                                   "pct_memcpy", "speedup_vs_cccl"});
  }

  // `bytes`: the fewest bytes the call must move (inputs read once, outputs written once).
  // `headline`: the row goes into the closing summary.
  void add(const case_id& c, double bytes, const timed& mgpu, const std::vector<timed>& baselines, bool headline) {
    const timed* base = baselines.empty() ? nullptr : &baselines[0];
    if (c.primitive != last_primitive_) {
      std::string names;
      for (const timed& b : baselines) names += (names.empty() ? "  [baseline: " : ", also: ") + b.impl;
      if (!names.empty()) names += "]";
      std::printf("\n%-*s %-6s %5s | %s | %s | %s%s\n", name_width, "primitive", "type", "n", heading("mgpu").c_str(),
                  heading(base ? base->impl : "base").c_str(), "speedup", names.c_str());
      last_primitive_ = c.primitive;
    }
    std::printf("%-*s %-6s %5s | %s | %s | %s%s\n", name_width, c.primitive.c_str(), c.type.c_str(),
                size_text(c.n).c_str(), columns(c.n, bytes, mgpu.ms).c_str(),
                base ? columns(c.n, bytes, base->ms).c_str() : empty_columns().c_str(),
                base ? speedup_text(base->ms / mgpu.ms).c_str() : "      -", runs_note(mgpu, baselines).c_str());
    for (std::size_t i = 1; i < baselines.size(); ++i) {
      std::string label = "  (vs " + baselines[i].impl + ")";
      std::printf("%-*s %-6s %5s | %s | %s | %s\n", name_width, label.c_str(), "", "", empty_columns().c_str(),
                  columns(c.n, bytes, baselines[i].ms).c_str(), speedup_text(baselines[i].ms / mgpu.ms).c_str());
    }
    csv_row(c, mgpu.impl, bytes, mgpu.ms, base ? fixed(base->ms / mgpu.ms, 4) : std::string());
    for (const timed& b : baselines) csv_row(c, b.impl, bytes, b.ms, fixed(base->ms / b.ms, 4));
    rows_.push_back({c, bytes, mgpu, baselines, headline});
  }

  void mismatch(const case_id& c, const std::string& detail) {
    std::printf("!!!!!!!! MISMATCH %s: %s\n", c.text().c_str(), detail.c_str());
    failed_.push_back("MISMATCH " + c.text());
  }
  void error(const case_id& c, const std::string& what) {
    std::printf("!!!!!!!! ERROR %s: %s\n", c.text().c_str(), what.c_str());
    failed_.push_back("ERROR " + c.text());
    ++errors_;  // a case that threw has no row
  }
  bool failed() const { return !failed_.empty(); }

  // Every primitive's int32 row at its headline size (the sizes the targets of
  // shared/PERFORMANCE.md are stated at), then the failures.
  void summary() const {
    std::printf("\n== summary: int32 at each primitive's headline size (memcpy %.0f GB/s on %s)\n", memcpy_gbps_,
                device_.c_str());
    bool any = false;
    for (const row& r : rows_) {
      if (!r.headline) continue;
      std::printf("%-*s %5s  mgpu %9.4f ms %7.2f Gelem/s %5.1f%%cpy", name_width, r.c.primitive.c_str(),
                  size_text(r.c.n).c_str(), r.mgpu.ms, gelems(r.c.n, r.mgpu.ms), pct(r.bytes, r.mgpu.ms));
      if (r.baselines.empty()) std::printf(" | no CCCL equivalent");
      for (std::size_t i = 0; i < r.baselines.size(); ++i) {
        const timed& b = r.baselines[i];
        std::printf(" | %s%s %.4f ms %.1f%%cpy speedup %.3fx", i ? "also " : "", b.impl.c_str(), b.ms,
                    pct(r.bytes, b.ms), b.ms / r.mgpu.ms);
      }
      std::printf("\n");
      any = true;
    }
    if (!any) std::printf("(no int32 case at its headline size ran)\n");
    if (failed_.empty()) {
      std::printf("%zu cases, all mgpu results match the baseline\n", rows_.size());
    } else {
      std::printf("!!!!!!!! %zu of %zu cases FAILED:\n", failed_.size(), rows_.size() + errors_);
      for (const std::string& f : failed_) std::printf("  %s\n", f.c_str());
    }
  }

 private:
  struct row {
    case_id c;
    double bytes;
    timed mgpu;
    std::vector<timed> baselines;
    bool headline;
  };
  static double gelems(std::int64_t n, double ms) { return double(n) / (ms * 1e6); }
  double gbps(double bytes, double ms) const { return bytes / (ms * 1e6); }
  double pct(double bytes, double ms) const { return 100.0 * gbps(bytes, ms) / memcpy_gbps_; }
  static std::string heading(const std::string& impl) {
    std::string label = impl + " ms";
    if (label.size() > 9) label = "base ms";  // long names are listed at the end of the heading
    char buf[96];
    std::snprintf(buf, sizeof buf, "%9s %8s %8s %5s", label.c_str(), "Gelem/s", "GB/s", "%cpy");
    return buf;
  }
  std::string columns(std::int64_t n, double bytes, double ms) const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%9.5f %8.1f %8.1f %4.0f%%", ms, gelems(n, ms), gbps(bytes, ms), pct(bytes, ms));
    return buf;
  }
  static std::string empty_columns() {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%9s %8s %8s %5s", "-", "-", "-", "-");
    return buf;
  }
  static std::string speedup_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%6.3fx", s);
    return buf;
  }
  // Says when a slow call ran fewer timed runs than asked (see median_ms's budget).
  std::string runs_note(const timed& mgpu, const std::vector<timed>& baselines) const {
    std::string note;
    auto add = [&](const timed& t) {
      if (t.runs && t.runs < reps_) note += (note.empty() ? "  (runs: " : ", ") + t.impl + " " + std::to_string(t.runs);
    };
    add(mgpu);
    for (const timed& b : baselines) add(b);
    return note.empty() ? note : note + ")";
  }
  void csv_row(const case_id& c, const std::string& impl, double bytes, double ms, const std::string& speedup) {
    if (!csv_) return;
    csv_.row({date_, device_, c.primitive, c.type, std::to_string(c.n), impl, fixed(ms, 6), fixed(gelems(c.n, ms), 3),
              fixed(gbps(bytes, ms), 2), fixed(pct(bytes, ms), 2), speedup});
  }

  std::string date_, device_;
  double memcpy_gbps_;
  int reps_;
  csv_writer csv_;
  std::vector<row> rows_;
  std::vector<std::string> failed_;
  std::size_t errors_ = 0;
  std::string last_primitive_;
};

// ---- what a case sees ------------------------------------------------------------------------

// CUB's two-call protocol: the first call only sizes the temporary storage. Sizing and
// allocating it here, when the case is built, keeps both out of the timed region.
// f(void* temp, std::size_t& temp_bytes) makes the CUB call and returns its cudaError_t.
template <class F>
class cub_call {
 public:
  explicit cub_call(F f) : f_(f) {
    MGPU_CUDA_CHECK(f_(nullptr, bytes_));
    temp_ = device_array<unsigned char>(std::int64_t(std::max<std::size_t>(bytes_, 1)));
  }
  void operator()() { MGPU_CUDA_CHECK(f_(temp_.data(), bytes_)); }

 private:
  F f_;
  std::size_t bytes_ = 0;
  device_array<unsigned char> temp_;
};

// CUB picks its offset type from the type of the count: an int count selects 32-bit offsets,
// its fastest path and what a caller with fewer than 2^31 items passes.
inline int cub_count(std::int64_t n) {
  if (n > INT_MAX) throw std::invalid_argument("cub_count: n does not fit in int");
  return int(n);
}

// One element of a device array, copied to the host (waits for `stream`).
template <class T>
T value_at(const T* p, std::int64_t i, cudaStream_t stream) {
  T v;
  MGPU_CUDA_CHECK(cudaMemcpyAsync(&v, p + i, sizeof(T), cudaMemcpyDeviceToHost, stream));
  MGPU_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

// dst[0, n) = src[0, n), device to device, on `stream`. The setup of in-place calls: it restores
// their input before each run, outside the timed region.
template <class T>
void copy_async(T* dst, const T* src, std::int64_t n, cudaStream_t stream) {
  if (n > 0) MGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

struct env {
  mgpu::context& ctx;
  int warmup, reps;
  l2_flush& flush;
  report& out;
  double budget_ms = 0;         // per implementation and case: see median_ms
  std::int64_t headline_n = 0;  // the current primitive's headline size (set by main)
  std::uint64_t seed = 0x6d677075;
  // Small-input mode (--small): time() gives the per-call time of `small_calls` calls back to back
  // (rows "<primitive>/calls"), or with small_graph of as many replays of a CUDA graph of one call
  // ("<primitive>/graph"), instead of a median with L2 flushed; see per_call_ms. main runs each
  // case once per mode.
  bool small = false, small_graph = false;
  int small_calls = 200;

  cudaStream_t stream() const { return ctx.stream(); }

  // The median time of run() (setup() before each run, outside the timed region), as `impl`.
  template <class R, class S = no_setup>
  timed time(const std::string& impl, R&& run, S&& setup = S()) {
    timed t;
    t.impl = impl;
    if (small) {
      // A baseline that cannot be captured in a graph (it waits for the device: CUB's segmented
      // sort of more than a few hundred segments) leaves the graph row, and runs once uncaptured
      // for the check of mgpu's output; mgpu's forms must be capturable.
      try {
        t.ms = per_call_ms(run, small_graph, warmup, small_calls, stream(), setup);
      } catch (const not_capturable& ex) {
        if (impl == "mgpu") throw;
        t.not_captured = ex.what();
        setup();
        run();
      }
      t.runs = small_calls;
    } else {
      t.ms = median_ms(run, warmup, reps, stream(), &flush, setup, budget_ms, &t.runs);
    }
    return t;
  }

  // Reports mgpu's time against the baselines' (the first is the primary one; none: no CCCL
  // equivalent). int32 rows at the primitive's headline size go into the summary.
  void add(const case_id& c, double bytes, const timed& mgpu, const std::vector<timed>& baselines) {
    if (small) {
      std::vector<timed> captured;
      for (const timed& b : baselines) {
        if (b.not_captured.empty())
          captured.push_back(b);
        else
          std::printf("  (%s %s n=%lld: %s cannot be captured in a graph, left out: %s)\n", c.primitive.c_str(),
                      c.type.c_str(), static_cast<long long>(c.n), b.impl.c_str(), b.not_captured.c_str());
      }
      out.add(case_id{c.primitive + (small_graph ? "/graph" : "/calls"), c.type, c.n}, bytes, mgpu, captured, false);
    } else
      out.add(c, bytes, mgpu, baselines, c.type == "int32" && c.n == headline_n);
  }

  // Times mgpu_run() and base_run() (same inputs, separate outputs) and reports both.
  template <class M, class B>
  void compare(const case_id& c, double bytes, M&& mgpu_run, B&& base_run, const std::string& base = "cccl") {
    timed m = time("mgpu", mgpu_run);
    timed b = time(base, base_run);
    add(c, bytes, m, {b});
  }

  // As compare, for calls that change their input (in-place sorts): each setup restores the
  // input of its implementation before every run, outside the timed region. Both sides are timed
  // the same way even where one needs no setup (an out-of-place baseline, bench::no_setup()):
  // with --small a setup makes each call timed between its own events, which costs more than
  // calls back to back.
  template <class MS, class M, class BS, class B>
  void compare_with_setup(const case_id& c, double bytes, MS&& mgpu_setup, M&& mgpu_run, BS&& base_setup, B&& base_run,
                          const std::string& base = "cccl") {
    timed m = time("mgpu", mgpu_run, [&] { mgpu_setup(); });
    timed b = time(base, base_run, [&] { base_setup(); });
    add(c, bytes, m, {b});
  }

  // Reports a MISMATCH unless mgpu_out[0, n) equals base_out[0, n) (see same_value).
  template <class T>
  void check(const case_id& c, const T* mgpu_out, const T* base_out, std::int64_t n) {
    mismatches m = compare_arrays(mgpu_out, base_out, n, stream());
    if (m.count)
      out.mismatch(c, std::to_string(m.count) + " of " + std::to_string(n) + " elements differ; first at " +
                          std::to_string(m.first) + ": mgpu " + value_text(value_at(mgpu_out, m.first, stream())) +
                          ", baseline " + value_text(value_at(base_out, m.first, stream())));
  }
  template <class T>
  void check(const case_id& c, const device_array<T>& mgpu_out, const device_array<T>& base_out, std::int64_t n) {
    check(c, mgpu_out.data(), base_out.data(), n);
  }
};

}  // namespace bench
