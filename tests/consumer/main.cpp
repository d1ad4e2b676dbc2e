// The three programs of a new user's first hour, built through an installed or embedded mgpu (on
// the simulator from a C++ compiler; on the GPU from nvcc: main.cu) with -Wall -Wextra -Werror:
//   1. a million records of a struct sorted by a descending comparator, with a payload;
//   2. 10,000 segments of random length 0..300 from CSR offsets made by the library's scan, then
//      segmented sort;
//   3. a kernel of the user's own from the tutorial's building blocks (cta_launch, loads, cta_reduce).
// Each checks itself against a host loop; the exit code is 0 if all are right.
#include <mgpu/mgpu.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

// A user's record and its comparator: namespace-scope types with MGPU_HOST_DEVICE members.
struct record {
  int id;
  float score;
};
struct by_score_descending {
  MGPU_HOST_DEVICE bool operator()(const record& a, const record& b) const { return a.score > b.score; }
};

bool sort_records(mgpu::context& ctx) {
  const int n = 1000000;
  std::mt19937 rng(1);
  std::vector<record> records(n);
  std::vector<int> payload(n);
  for (int i = 0; i < n; ++i)
    records[std::size_t(i)] = record{i, float(rng() % 1000) / 10}, payload[std::size_t(i)] = -i;
  mgpu::buffer<record> d_records(records, ctx);
  mgpu::buffer<int> d_payload(payload, ctx);
  mgpu::mergesort(d_records.data(), d_payload.data(), n, by_score_descending(), ctx);
  std::vector<record> sorted = d_records.to_host();
  std::vector<int> moved = d_payload.to_host();
  std::stable_sort(records.begin(), records.end(), by_score_descending());
  bool ok = true;
  for (int i = 0; i < n && ok; ++i)
    ok =
        sorted[std::size_t(i)].id == records[std::size_t(i)].id && moved[std::size_t(i)] == -records[std::size_t(i)].id;
  std::printf("1. mergesort of %d records, descending, with a payload: %s\n", n, ok ? "ok" : "WRONG");
  return ok;
}

bool sort_segments(mgpu::context& ctx) {
  const int segments = 10000;
  std::mt19937 rng(2);
  std::vector<int> lengths(segments);
  for (int& l : lengths) l = int(rng() % 301);
  // CSR offsets of the segments from the library's scan: offsets[0, segments) and the total.
  mgpu::buffer<int> d_lengths(lengths, ctx), d_offsets(segments, ctx), d_total(1, ctx);
  mgpu::exclusive_scan(d_lengths.data(), segments, d_offsets.data(), 0, mgpu::plus<>(), d_total.data(), ctx);
  const int n = d_total.to_host()[0];
  std::vector<int> keys(static_cast<std::size_t>(n));
  for (int& k : keys) k = int(rng() % 100000);
  mgpu::buffer<int> d_keys(keys, ctx);
  mgpu::segmented_sort(d_keys.data(), n, mgpu::segments_by_heads(d_offsets.data(), segments), mgpu::less<>(), ctx);
  std::vector<int> sorted = d_keys.to_host();
  int begin = 0;
  for (int l : lengths) {
    std::sort(keys.begin() + begin, keys.begin() + begin + l);
    begin += l;
  }
  bool ok = sorted == keys;
  std::printf("2. segmented sort of %d keys in %d segments from CSR offsets: %s\n", n, segments, ok ? "ok" : "WRONG");
  return ok;
}

// 3. Each CTA sums its tile of 1024 values (strided loads, cta_reduce) into tile_sums[cta].
using sum_params = mgpu::launch_params<128, 8>;

void tile_sums(const int* input, std::int64_t count, long long* sums, mgpu::context& ctx) {
  constexpr int NT = sum_params::nt, VT = sum_params::vt, NV = sum_params::nv;
  using reduce_t = mgpu::cta_reduce<NT, long long>;
  mgpu::cta_launch<sum_params>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ mgpu::shared_storage<typename reduce_t::storage_t> storage;
        std::int64_t base = std::int64_t(cta) * NV;
        int valid = count - base < NV ? int(count - base) : NV;
        mgpu::array_t<int, VT> x = mgpu::mem_to_reg_strided<NT, VT, int>(input + base, tid, valid);
        long long sum = 0;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (NT * i + tid < valid) sum += x[i];
        long long total = reduce_t::reduce(tid, sum, storage.get(), mgpu::plus<>());
        if (tid == 0) sums[cta] = total;
      },
      mgpu::num_tiles<sum_params>(count), ctx);
}

bool own_kernel(mgpu::context& ctx) {
  const std::int64_t n = 100003;
  std::vector<int> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[std::size_t(i)] = int(i % 97) - 40;
  const int tiles = mgpu::num_tiles<sum_params>(n);
  mgpu::buffer<int> d_values(values, ctx);
  mgpu::buffer<long long> d_sums(tiles, ctx);
  tile_sums(d_values.data(), n, d_sums.data(), ctx);
  std::vector<long long> sums = d_sums.to_host();
  bool ok = true;
  for (int t = 0; t < tiles; ++t) {
    long long expected = 0;
    for (std::int64_t i = std::int64_t(t) * sum_params::nv; i < std::min(n, std::int64_t(t + 1) * sum_params::nv); ++i)
      expected += values[std::size_t(i)];
    ok = ok && sums[std::size_t(t)] == expected;
  }
  std::printf("3. an own kernel (cta_launch, loads, cta_reduce) over %d tiles: %s\n", tiles, ok ? "ok" : "WRONG");
  return ok;
}

int main() {
  mgpu::context ctx;
  auto start = std::chrono::steady_clock::now();
  bool ok = sort_records(ctx) & sort_segments(ctx) & own_kernel(ctx);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("consumer (mgpu %d.%d.%d): %s in %.2f s\n", MGPU_VERSION_MAJOR, MGPU_VERSION_MINOR, MGPU_VERSION_PATCH,
              ok ? "ok" : "WRONG", seconds);
  return ok ? 0 : 1;
}
