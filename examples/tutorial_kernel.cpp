// examples/tutorial_kernel.cpp
//
// The worked example of docs/tutorial_write_your_own_kernel.md: stream compaction (keep the
// values that satisfy a predicate, in order) written from the library's CTA building blocks.
// It checks itself against a host loop and prints "ok", or exits with status 1.
//
// Two kernels and one library call, the two-phase idea at tile granularity:
//   1. count:   each CTA counts the kept values of its tile            (cta_reduce)
//   2.          an exclusive scan of the tile counts gives each tile's
//               first output slot, and the total                        (mgpu::exclusive_scan)
//   3. scatter: each CTA scans its threads' counts to place every kept
//               value, packs them in shared memory, stores them         (cta_scan)
#include <mgpu/mgpu.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

// NT = 128 threads, VT = 8 values per thread: tiles of NV = 1024 values.
using compact_params = mgpu::launch_params<128, 8>;

// Writes the values of input[0, count) for which pred is true to output, in order, and their
// number to num_kept[0]. output needs room for count values. Asynchronous, like the library.
template <typename T, typename Pred>
void compact_if(const T* input, std::int64_t count, T* output, Pred pred, std::int64_t* num_kept, mgpu::context& ctx) {
  using P = compact_params;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using reduce_t = mgpu::cta_reduce<NT, int>;
  using scan_t = mgpu::cta_scan<NT, int>;
  // Shared memory of the scatter kernel: the tile (for the transpose, then the packed values)
  // and the CTA scan's scratch. Separate fields, so neither waits for the other to be done.
  struct scatter_storage {
    T values[NV];
    typename scan_t::storage_t scan;
  };

  int tiles = mgpu::num_tiles<P>(count);
  mgpu::buffer<int> tile_counts(tiles, ctx);
  mgpu::buffer<std::int64_t> tile_offsets(tiles, ctx);
  int* counts = tile_counts.data();
  const std::int64_t* offsets = tile_offsets.data();

  // Phase 1: count. The order of the values does not matter here, so the coalesced strided load
  // is enough (value i of thread tid is tile element NT * i + tid).
  mgpu::cta_launch<P>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ mgpu::shared_storage<typename reduce_t::storage_t> storage;
        std::int64_t base = std::int64_t(cta) * NV;
        int valid = count - base < NV ? int(count - base) : NV;
        mgpu::array_t<T, VT> x = mgpu::mem_to_reg_strided<NT, VT, T>(input + base, tid, valid);
        int kept = 0;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (NT * i + tid < valid && pred(x[i])) ++kept;
        int tile_kept = reduce_t::reduce(tid, kept, storage.get(), mgpu::plus<>());
        if (tid == 0) counts[cta] = tile_kept;
      },
      tiles, ctx);

  // Each tile's first output slot, computed in std::int64_t (the type of init); the total goes
  // straight to num_kept, so the host never waits.
  mgpu::exclusive_scan(counts, tiles, tile_offsets.data(), std::int64_t(0), mgpu::plus<>(), num_kept, ctx);

  // Phase 2: scatter. Serial code wants thread order (thread tid holds tile elements
  // VT * tid ... VT * tid + VT - 1), so that a thread's kept values are neighbours in the output.
  mgpu::cta_launch<P>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ mgpu::shared_storage<scatter_storage> shared;
        scatter_storage& s = shared.get();
        std::int64_t base = std::int64_t(cta) * NV;
        int valid = count - base < NV ? int(count - base) : NV;
        mgpu::array_t<T, VT> x = mgpu::mem_to_reg_thread<NT, VT, T>(input + base, tid, valid, s.values);

        bool keep[VT];
        int kept = 0;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) {
          keep[i] = VT * tid + i < valid && pred(x[i]);
          kept += keep[i];
        }
        // Where this thread's values go within the tile, and how many the tile keeps.
        scan_t::result_t slot = scan_t::exclusive(tid, kept, s.scan, mgpu::plus<>(), 0);

        // The serial part. mem_to_reg_thread ended with a barrier, so s.values is free again.
        int next = slot.scan;
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i)
          if (keep[i]) s.values[next++] = x[i];
        __syncthreads();

        // The packed values leave in one coalesced sweep.
        std::int64_t first = offsets[cta];
        for (int i = tid; i < slot.reduction; i += NT) output[first + i] = s.values[i];
      },
      tiles, ctx);
  // tile_counts and tile_offsets go back to the context's stream-ordered pool here: the kernels
  // enqueued before still see them.
}

int main() {
  try {
    mgpu::context ctx;
    const std::int64_t n = 100000 + 37;  // many tiles and a partial last one
    std::mt19937 rng(42);
    std::vector<int> host(n);
    for (int& v : host) v = int(rng() % 1000);

    mgpu::buffer<int> input(host, ctx), output(n, ctx);
    mgpu::buffer<std::int64_t> num_kept(1, ctx);
    auto multiple_of_3 = [] MGPU_LAMBDA(int v) { return v % 3 == 0; };
    compact_if(input.data(), n, output.data(), multiple_of_3, num_kept.data(), ctx);

    std::vector<int> expected;
    for (int v : host)
      if (v % 3 == 0) expected.push_back(v);
    std::int64_t kept = num_kept.to_host()[0];
    std::vector<int> got = output.to_host();
    got.resize(std::size_t(kept));
    bool ok = got == expected;
    std::printf("compact_if on %s: kept %lld of %lld values: %s\n", ctx.props().name.c_str(), (long long)kept,
                (long long)n, ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tutorial kernel failed: %s\n", e.what());
    return 1;
  }
}
