// Simulator: the execution model that device code relies on, checked kernel by kernel.
//
// This file builds into both test binaries. On the simulator it tests the simulator; on a GPU
// the same kernels run on the hardware, so a test that passes on both shows that the two agree.
// Every expected value comes from a host-side reference written from the CUDA Programming Guide
// or the PTX ISA, never from the simulator's own formulas. The tests at the end, under
// MGPU_BACKEND_SIM, cover what only the simulator can do: report exceptions, __trap and
// deadlocks from a kernel, cancel CTAs of a failed launch, and its worker pool.
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace mgpu_test;

namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr unsigned even_lanes = 0x55555555u;
constexpr unsigned odd_lanes = 0xaaaaaaaau;
constexpr int num_widths = 6;  // shuffle widths 1, 2, 4, ..., 32

template <typename T>
std::vector<T> random_bits(std::size_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = T(rng());
  return v;
}

// Distinct-looking values of any type the shuffles move.
template <typename T>
std::vector<T> random_values(std::size_t n, std::mt19937_64& rng) {
  if constexpr (std::is_floating_point<T>::value) {
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    std::vector<T> v(n);
    for (auto& x : v) x = T(d(rng));
    return v;
  } else {
    return random_bits<T>(n, rng);
  }
}

// ---- shuffle references: the CUDA Programming Guide, "Warp Shuffle Functions" ----
// With width < warpSize the warp splits into segments of `width` lanes, each of which behaves as
// a separate warp whose lanes are numbered from 0. Each function returns the lane (0..31) whose
// value the caller receives.

// __shfl_sync: "If srcLane is outside the range [0:width-1], the value returned corresponds to
// the value of var held by the srcLane modulo width (i.e. within the same subsection)."
int idx_source(int lane, int src_lane, int width) {
  int in_segment = ((src_lane % width) + width) % width;
  return lane / width * width + in_segment;
}
// __shfl_up_sync: shifted up by delta within the segment; "the lower delta lanes will be
// unchanged".
int up_source(int lane, int delta, int width) { return lane % width >= delta ? lane - delta : lane; }
// __shfl_down_sync: shifted down; "the upper delta lanes will remain unchanged".
int down_source(int lane, int delta, int width) { return lane % width + delta < width ? lane + delta : lane; }
// __shfl_xor_sync: butterfly by laneMask; "each group of width consecutive threads are able to
// access elements from earlier groups of threads, however if they attempt to access elements
// from later groups of threads their own value of var will be returned."
int xor_source(int lane, int lane_mask, int width) {
  int partner = lane ^ lane_mask;
  return partner / width <= lane / width ? partner : lane;
}

// Checks got[w * n + i] (w = log2 width) against values[warp base + source(lane, i, width)].
template <typename T, typename Source>
void expect_shuffled(const std::vector<T>& values, const std::vector<T>& got, int widths, Source source) {
  const std::size_t n = values.size();
  for (int w = 0; w < widths; ++w) {
    int width = 1 << w;
    std::vector<T> expected(n), actual(got.begin() + std::ptrdiff_t(w * n), got.begin() + std::ptrdiff_t((w + 1) * n));
    for (std::size_t i = 0; i < n; ++i) {
      int lane = int(i % 32);
      expected[i] = values[i - std::size_t(lane) + std::size_t(source(lane, i, width))];
    }
    EXPECT_TRUE(same(expected, actual)) << "width " << width;
  }
}

// ---- bit references: the CUDA Math API's integer intrinsics, bit by bit ----
int ref_popc(std::uint64_t x) {
  int n = 0;
  for (int b = 0; b < 64; ++b) n += int(x >> b & 1);
  return n;
}
// Leading zeros of a `bits`-wide word (the whole width for 0).
int ref_clz(std::uint64_t x, int bits) {
  int n = 0;
  for (int b = bits - 1; b >= 0 && !(x >> b & 1); --b) ++n;
  return n;
}
// Position of the least significant set bit, counting from 1; 0 if no bit is set.
int ref_ffs(std::uint64_t x, int bits) {
  for (int b = 0; b < bits; ++b)
    if (x >> b & 1) return b + 1;
  return 0;
}
// Bit b of the result is bit (bits - 1 - b) of x.
std::uint64_t ref_brev(std::uint64_t x, int bits) {
  std::uint64_t r = 0;
  for (int b = 0; b < bits; ++b)
    if (x >> b & 1) r |= std::uint64_t(1) << (bits - 1 - b);
  return r;
}

// A 12-byte value: mgpu::shfl moves it as three 4-byte words.
struct triple {
  int a;
  float b;
  unsigned c;
};
bool operator==(const triple& x, const triple& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
std::ostream& operator<<(std::ostream& os, const triple& t) {
  return os << "{" << t.a << ", " << t.b << ", " << t.c << "}";
}

#if defined(MGPU_BACKEND_SIM)
int worker_count() { return mgpu::sim::detail::device::instance().worker_count(); }
#endif

// How many back-off rounds a CTA waits for a partner CTA to run alongside it before going on
// alone. The simulator's single worker runs one CTA at a time, so there it does not wait.
int rendezvous_patience() {
#if defined(MGPU_BACKEND_SIM)
  return worker_count() >= 2 ? 1 << 22 : 0;
#else
  return 1 << 20;
#endif
}

}  // namespace

// A value every (cta, round, thread) writes: distinct enough that reading the wrong slot or a
// stale one shows.
MGPU_HOST_DEVICE unsigned stamp(int cta, int round, int tid) {
  return unsigned(cta) * 2654435761u + unsigned(round) * 40503u + unsigned(tid) * 9973u + 1u;
}

// ================================================================================================
// Launch geometry
// ================================================================================================

namespace geometry {
constexpr int nt = 96, ctas = 37, fields = 13;
}

MGPU_TEST(SimBuiltins, IndicesAndDimensionsDescribeTheLaunch) {
  using namespace geometry;
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(ctas * nt * fields, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        unsigned* f = o + (cta * nt + tid) * fields;
        f[0] = threadIdx.x, f[1] = threadIdx.y, f[2] = threadIdx.z;
        f[3] = blockIdx.x, f[4] = blockIdx.y, f[5] = blockIdx.z;
        f[6] = blockDim.x, f[7] = blockDim.y, f[8] = blockDim.z;
        f[9] = gridDim.x, f[10] = gridDim.y, f[11] = gridDim.z;
        f[12] = unsigned(warpSize);
      },
      ctas, ctx);
  std::vector<unsigned> expected;
  for (unsigned c = 0; c < unsigned(ctas); ++c)
    for (unsigned t = 0; t < unsigned(nt); ++t)
      for (unsigned v : {t, 0u, 0u, c, 0u, 0u, unsigned(nt), 1u, 1u, unsigned(ctas), 1u, 1u, unsigned(mgpu::warp_size)})
        expected.push_back(v);
  EXPECT_TRUE(same(expected, out.to_host())) << "per thread: threadIdx, blockIdx, blockDim, gridDim, warpSize";
}

// ================================================================================================
// __syncthreads and its reductions
// ================================================================================================

namespace barrier_loop {
constexpr int nt = 256, ctas = 6, rounds = 64;
}

// Each round every thread writes its slot, passes a barrier and reads a slot of another warp,
// then passes a second barrier before the slot is overwritten. A barrier that let a thread
// through early would read a stale or unwritten slot.
MGPU_TEST(SimBarrier, WritesBeforeABarrierAreVisibleAfterItAcrossWarps) {
  using namespace barrier_loop;
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(ctas * nt, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ unsigned slots[nt];
        unsigned digest = 0;
        for (int r = 0; r < rounds; ++r) {
          slots[tid] = stamp(cta, r, tid);
          __syncthreads();
          // Offsets in [32, 224) never land in the reader's own warp.
          int offset = 32 + (r * 37) % 192;
          digest = digest * 31u + slots[(tid + offset) % nt];
          __syncthreads();
        }
        o[cta * nt + tid] = digest;
      },
      ctas, ctx);
  std::vector<unsigned> expected;
  for (int c = 0; c < ctas; ++c)
    for (int t = 0; t < nt; ++t) {
      unsigned digest = 0;
      for (int r = 0; r < rounds; ++r) digest = digest * 31u + stamp(c, r, (t + 32 + (r * 37) % 192) % nt);
      expected.push_back(digest);
    }
  EXPECT_TRUE(same(expected, out.to_host()));
}

namespace barrier_votes {
constexpr int nt = 128, ctas = 4, rounds = 6;
}

// __syncthreads_count returns how many threads passed a non-zero predicate, _and whether all
// did, _or whether any did (Programming Guide, "Synchronization Functions"). Each round has its
// own predicate pattern, so consecutive barriers must not mix their counts.
MGPU_TEST(SimBarrier, CountAndOrReduceThePredicatesOfEveryThread) {
  using namespace barrier_votes;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  const int n = ctas * rounds * nt;
  // Predicate patterns: none, all, one thread, all but one, half at random, a tenth at random.
  // Non-zero predicates vary in sign and size: only "non-zero" may count.
  std::vector<int> preds(std::size_t(n), 0);
  std::uniform_int_distribution<int> magnitude(1, 1000);
  std::bernoulli_distribution half(0.5), tenth(0.1);
  for (int g = 0; g < ctas * rounds; ++g) {
    int lone = int(rng() % nt);
    for (int t = 0; t < nt; ++t) {
      bool on = false;
      switch (g % 6) {
        case 0:
          on = false;
          break;
        case 1:
          on = true;
          break;
        case 2:
          on = t == lone;
          break;
        case 3:
          on = t != lone;
          break;
        case 4:
          on = half(rng);
          break;
        case 5:
          on = tenth(rng);
          break;
      }
      preds[std::size_t(g * nt + t)] = on ? (half(rng) ? magnitude(rng) : -magnitude(rng)) : 0;
    }
  }
  mgpu::buffer<int> pred(preds, ctx);
  mgpu::buffer<int> out = poisoned<int>(3 * n, ctx);
  const int* p = pred.data();
  int* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        for (int r = 0; r < rounds; ++r) {
          int i = (cta * rounds + r) * nt + tid;
          o[3 * i + 0] = __syncthreads_count(p[i]);
          o[3 * i + 1] = __syncthreads_and(p[i]) != 0;
          o[3 * i + 2] = __syncthreads_or(p[i]) != 0;
        }
      },
      ctas, ctx);
  std::vector<int> expected(std::size_t(3 * n));
  for (int g = 0; g < ctas * rounds; ++g) {
    int count = 0;
    for (int t = 0; t < nt; ++t) count += preds[std::size_t(g * nt + t)] != 0;
    for (int t = 0; t < nt; ++t) {
      std::size_t i = std::size_t(g * nt + t);
      expected[3 * i] = count;
      expected[3 * i + 1] = count == nt;
      expected[3 * i + 2] = count > 0;
    }
  }
  EXPECT_TRUE(same(expected, out.to_host()));
}

// ================================================================================================
// __shared__ and dynamic shared memory
// ================================================================================================

namespace per_cta {
constexpr int nt = 64, ctas = 48, rounds = 20;
}

// Each CTA writes its own number into the same __shared__ variables and must only ever read back
// its own. After writing, CTAs 2k and 2k+1 meet (each publishes a flag and waits for the
// other's): they certainly run at the same time, on the simulator on two OS threads, and each
// reads after the other has written.
MGPU_TEST(SimShared, EachCTAHasItsOwnCopy) {
  using namespace per_cta;
  mgpu::context ctx;
  mgpu::buffer<int> wrong = poisoned<int>(ctas * nt, ctx);
  mgpu::buffer<int> started(std::vector<int>(ctas, 0), ctx);
  int* w = wrong.data();
  int* st = started.data();
  const int patience = rendezvous_patience();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ int owner;
        __shared__ int slots[nt];
        if (tid == 0) owner = cta;
        slots[tid] = cta * nt + tid;
        __syncthreads();
        if (tid == 0) {
          mgpu::store_relaxed(st + cta, 1);
          for (int i = 0; i < patience && mgpu::load_relaxed(st + (cta ^ 1)) == 0; ++i) mgpu::backoff(100);
        }
        __syncthreads();
        // The partner has written its values by now (or never runs alongside): ours must still
        // be there, round after round.
        int mismatches = 0;
        for (int r = 0; r < rounds; ++r) {
          int other = (tid + r + 1) % nt;
          mismatches += owner != cta;
          mismatches += slots[other] != cta * nt + other;
          __syncthreads();
        }
        w[cta * nt + tid] = mismatches;
      },
      ctas, ctx);
  EXPECT_TRUE(same(std::vector<int>(ctas * nt, 0), wrong.to_host()));
}

namespace shared_templates {
constexpr int nt = 128, ctas = 3;
}

// Each instantiation of a function template has its own __shared__ array.
template <int TAG>
MGPU_DEVICE int* tagged_slots() {
  __shared__ int slots[shared_templates::nt];
  return slots;
}

// Reverses the CTA's values through a __shared__ array of T.
template <typename T, int N>
MGPU_DEVICE T reverse_through_shared(T value, int tid) {
  __shared__ T slots[N];
  slots[tid] = value;
  __syncthreads();
  T reversed = slots[N - 1 - tid];
  __syncthreads();
  return reversed;
}

MGPU_TEST(SimShared, WorksInsideTemplatesAndLambdas) {
  using namespace shared_templates;
  mgpu::context ctx;
  const int n = ctas * nt;
  mgpu::buffer<int> out_int = poisoned<int>(3 * n, ctx);
  mgpu::buffer<double> out_double = poisoned<double>(n, ctx);
  int* oi = out_int.data();
  double* od = out_double.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int* a = tagged_slots<0>();
        int* b = tagged_slots<1>();
        __shared__ int local[nt];  // declared in the lambda itself
        a[tid] = 1000 * cta + tid;
        b[tid] = -1000 * cta - tid;
        local[tid] = 7 * tid + cta;
        __syncthreads();
        int other = (tid + 5) % nt;
        int g = cta * nt + tid;
        oi[3 * g + 0] = a[other];
        oi[3 * g + 1] = b[other];
        oi[3 * g + 2] = local[other] + reverse_through_shared<int, nt>(tid, tid);
        od[g] = reverse_through_shared<double, nt>(0.5 * tid + cta, tid);
      },
      ctas, ctx);
  std::vector<int> expected_int;
  std::vector<double> expected_double;
  for (int c = 0; c < ctas; ++c)
    for (int t = 0; t < nt; ++t) {
      int other = (t + 5) % nt;
      expected_int.push_back(1000 * c + other);
      expected_int.push_back(-1000 * c - other);
      expected_int.push_back(7 * other + c + (nt - 1 - t));
      expected_double.push_back(0.5 * (nt - 1 - t) + c);
    }
  EXPECT_TRUE(same(expected_int, out_int.to_host()));
  EXPECT_TRUE(same(expected_double, out_double.to_host()));
}

namespace dynamic_shared {
constexpr int nt = 128, ctas = 6;
constexpr int ints = 16384;  // 64 KiB: above the 48 KiB a launch gets without opting in
}  // namespace dynamic_shared

// MGPU_DYNAMIC_SHARED gives each CTA its own array of the size the launch asked for, aligned to
// at least 16 bytes. As in EachCTAHasItsOwnCopy, CTAs 2k and 2k+1 meet between writing their
// arrays and reading them back.
MGPU_TEST(SimShared, DynamicSharedMemoryIsPerCTAAndSizedByTheLaunch) {
  using namespace dynamic_shared;
  mgpu::context ctx;
  mgpu::buffer<int> out = poisoned<int>(ctas * ints, ctx);
  mgpu::buffer<int> misaligned = poisoned<int>(ctas, ctx);
  mgpu::buffer<int> started(std::vector<int>(ctas, 0), ctx);
  int* o = out.data();
  int* m = misaligned.data();
  int* st = started.data();
  const int patience = rendezvous_patience();
  mgpu::cta_launch_with_shared<mgpu::launch_params<nt, 1>>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        MGPU_DYNAMIC_SHARED(int, smem);
        if (tid == 0) m[cta] = int(reinterpret_cast<std::uintptr_t>(smem) % 16);
        for (int i = tid; i < ints; i += nt) smem[i] = cta * ints + i;
        __syncthreads();
        if (tid == 0) {
          mgpu::store_relaxed(st + cta, 1);
          for (int i = 0; i < patience && mgpu::load_relaxed(st + (cta ^ 1)) == 0; ++i) mgpu::backoff(100);
        }
        __syncthreads();
        for (int i = tid; i < ints; i += nt) o[cta * ints + i] = smem[ints - 1 - i];
      },
      ctas, ints * sizeof(int), ctx);
  std::vector<int> expected;
  for (int c = 0; c < ctas; ++c)
    for (int i = 0; i < ints; ++i) expected.push_back(c * ints + (ints - 1 - i));
  EXPECT_TRUE(same(expected, out.to_host()));
  EXPECT_TRUE(same(std::vector<int>(ctas, 0), misaligned.to_host()));
}

// ================================================================================================
// Warp shuffles
// ================================================================================================

namespace shuffle {
constexpr int nt = 64, ctas = 3, n = nt * ctas;
}

// __shfl_sync at every width, with source lanes inside, beyond and below the segment.
template <typename T>
void check_shfl_idx() {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<T> values = random_values<T>(n, rng);
  std::vector<int> src = random_vector<int>(n, rng, -40, 80);
  mgpu::buffer<T> v(values, ctx), out = poisoned<T>(num_widths * n, ctx);
  mgpu::buffer<int> s(src, ctx);
  const T* vp = v.data();
  const int* sp = s.data();
  T* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        for (int w = 0; w < num_widths; ++w) o[w * n + g] = __shfl_sync(full_mask, vp[g], sp[g], 1 << w);
      },
      ctas, ctx);
  expect_shuffled(values, out.to_host(), num_widths,
                  [&](int lane, std::size_t i, int width) { return idx_source(lane, src[i], width); });
}

// __shfl_up_sync and __shfl_down_sync at every width, each lane with its own delta in [0, 32).
template <typename T>
void check_shfl_up_down() {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<T> values = random_values<T>(n, rng);
  std::vector<unsigned> delta = random_vector<unsigned>(n, rng, 0, 31);
  mgpu::buffer<T> v(values, ctx), up = poisoned<T>(num_widths * n, ctx), down = poisoned<T>(num_widths * n, ctx);
  mgpu::buffer<unsigned> d(delta, ctx);
  const T* vp = v.data();
  const unsigned* dp = d.data();
  T* u = up.data();
  T* dn = down.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        for (int w = 0; w < num_widths; ++w) {
          u[w * n + g] = __shfl_up_sync(full_mask, vp[g], dp[g], 1 << w);
          dn[w * n + g] = __shfl_down_sync(full_mask, vp[g], dp[g], 1 << w);
        }
      },
      ctas, ctx);
  {
    SCOPED_TRACE("__shfl_up_sync");
    expect_shuffled(values, up.to_host(), num_widths,
                    [&](int lane, std::size_t i, int width) { return up_source(lane, int(delta[i]), width); });
  }
  {
    SCOPED_TRACE("__shfl_down_sync");
    expect_shuffled(values, down.to_host(), num_widths,
                    [&](int lane, std::size_t i, int width) { return down_source(lane, int(delta[i]), width); });
  }
}

// __shfl_xor_sync at every width, lane masks in [0, 32): masks of width or more reach into
// other segments, earlier ones readable and later ones not.
template <typename T>
void check_shfl_xor() {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<T> values = random_values<T>(n, rng);
  std::vector<int> lane_mask = random_vector<int>(n, rng, 0, 31);
  mgpu::buffer<T> v(values, ctx), out = poisoned<T>(num_widths * n, ctx);
  mgpu::buffer<int> m(lane_mask, ctx);
  const T* vp = v.data();
  const int* mp = m.data();
  T* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        for (int w = 0; w < num_widths; ++w) o[w * n + g] = __shfl_xor_sync(full_mask, vp[g], mp[g], 1 << w);
      },
      ctas, ctx);
  expect_shuffled(values, out.to_host(), num_widths,
                  [&](int lane, std::size_t i, int width) { return xor_source(lane, lane_mask[i], width); });
}

MGPU_TEST(SimWarpShuffle, IdxReadsTheSourceLaneModuloTheWidth) {
  check_shfl_idx<int>();
  check_shfl_idx<double>();
}

MGPU_TEST(SimWarpShuffle, UpAndDownShiftWithinTheSegment) {
  check_shfl_up_down<unsigned>();
  check_shfl_up_down<float>();
  check_shfl_up_down<long long>();
}

MGPU_TEST(SimWarpShuffle, XorReadsEarlierSegmentsButNotLaterOnes) {
  check_shfl_xor<double>();
  check_shfl_xor<int>();
  check_shfl_xor<unsigned long long>();
}

// Shuffles among a subset of lanes, in divergent branches with disjoint member masks: even and
// odd lanes, then the two half-warps, each exchange among themselves at the same time.
MGPU_TEST(SimWarpShuffle, SubWarpMasksExchangeAmongTheirLanes) {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<int> values = random_values<int>(n, rng);
  std::vector<int> operand = random_vector<int>(n, rng, 0, 15);
  mgpu::buffer<int> v(values, ctx), op(operand, ctx);
  mgpu::buffer<int> parity = poisoned<int>(n, ctx), halves = poisoned<int>(n, ctx);
  const int* vp = v.data();
  const int* opp = op.data();
  int* par = parity.data();
  int* hal = halves.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid, lane = tid % 32;
        if (lane % 2 == 0)
          par[g] = __shfl_sync(even_lanes, vp[g], 2 * opp[g]);  // another even lane
        else
          par[g] = __shfl_down_sync(odd_lanes, vp[g], 2);  // the next odd lane
        if (lane < 16)
          hal[g] = __shfl_xor_sync(0x0000ffffu, vp[g], opp[g], 16);
        else
          hal[g] = __shfl_up_sync(0xffff0000u, vp[g], unsigned(opp[g]), 16);
      },
      ctas, ctx);
  std::vector<int> expected_parity(n), expected_halves(n);
  for (int i = 0; i < n; ++i) {
    int lane = i % 32, base = i - lane, k = operand[std::size_t(i)];
    expected_parity[std::size_t(i)] =
        values[std::size_t(base + (lane % 2 == 0 ? idx_source(lane, 2 * k, 32) : down_source(lane, 2, 32)))];
    expected_halves[std::size_t(i)] =
        values[std::size_t(base + (lane < 16 ? xor_source(lane, k, 16) : up_source(lane, k, 16)))];
  }
  EXPECT_TRUE(same(expected_parity, parity.to_host()));
  EXPECT_TRUE(same(expected_halves, halves.to_host()));
}

// mgpu::shfl, shfl_up, shfl_down and shfl_xor move values wider than a register (a 12-byte
// struct as three words, a double as one 8-byte word) exactly as the intrinsics move an int.
template <typename T>
void check_library_shuffles(const std::vector<T>& values) {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<int> operand = random_vector<int>(n, rng, 0, 31);
  const int widths = num_widths;
  mgpu::buffer<T> v(values, ctx);
  std::vector<mgpu::buffer<T>> outs;
  for (int k = 0; k < 4; ++k) outs.push_back(mgpu::buffer<T>(std::vector<T>(std::size_t(widths * n), values[0]), ctx));
  mgpu::buffer<int> op(operand, ctx);
  const T* vp = v.data();
  const int* opp = op.data();
  T *o_idx = outs[0].data(), *o_up = outs[1].data(), *o_down = outs[2].data(), *o_xor = outs[3].data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        for (int w = 0; w < widths; ++w) {
          int width = 1 << w;
          o_idx[w * n + g] = mgpu::shfl(vp[g], opp[g], width);
          o_up[w * n + g] = mgpu::shfl_up(vp[g], unsigned(opp[g]), width);
          o_down[w * n + g] = mgpu::shfl_down(vp[g], unsigned(opp[g]), width);
          o_xor[w * n + g] = mgpu::shfl_xor(vp[g], opp[g], width);
        }
      },
      ctas, ctx);
  auto k = [&](std::size_t i) { return operand[i]; };
  expect_shuffled(values, outs[0].to_host(), widths,
                  [&](int lane, std::size_t i, int w) { return idx_source(lane, k(i), w); });
  expect_shuffled(values, outs[1].to_host(), widths,
                  [&](int lane, std::size_t i, int w) { return up_source(lane, k(i), w); });
  expect_shuffled(values, outs[2].to_host(), widths,
                  [&](int lane, std::size_t i, int w) { return down_source(lane, k(i), w); });
  expect_shuffled(values, outs[3].to_host(), widths,
                  [&](int lane, std::size_t i, int w) { return xor_source(lane, k(i), w); });
}

MGPU_TEST(SimWarpShuffle, LibraryShufflesMoveStructsAndDoubles) {
  using namespace shuffle;
  MGPU_SEEDED_RNG(rng);
  static_assert(sizeof(triple) == 12, "triple must take three 4-byte words");
  std::vector<triple> triples(n);
  for (auto& t : triples) t = triple{int(rng()), float(int(rng() % 100000)) / 8.0f, unsigned(rng())};
  {
    SCOPED_TRACE("12-byte struct");
    check_library_shuffles(triples);
  }
  {
    SCOPED_TRACE("double");
    check_library_shuffles(random_values<double>(n, rng));
  }
}

// ================================================================================================
// Warp votes, __syncwarp, __activemask
// ================================================================================================

namespace votes {
constexpr int nt = 64, ctas = 6, n = nt * ctas, warps = n / 32;
}

// __ballot_sync sets bit i for lane i of the mask with a non-zero predicate; __any_sync says
// whether any lane's predicate is non-zero, __all_sync whether all are (Programming Guide, "Warp
// Vote Functions"). Each warp runs one predicate pattern with the full mask, and its even lanes
// also vote among themselves inside a branch, with the mask 0x55555555.
MGPU_TEST(SimWarpVote, BallotAnyAndAllMatchThePredicates) {
  using namespace votes;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  // Patterns by warp: none, all, lane 31 only, all but lane 0, random half, even lanes only.
  std::vector<int> preds(n);
  std::bernoulli_distribution half(0.5);
  for (int i = 0; i < n; ++i) {
    int lane = i % 32;
    bool on = false;
    switch (i / 32 % 6) {
      case 0:
        on = false;
        break;
      case 1:
        on = true;
        break;
      case 2:
        on = lane == 31;
        break;
      case 3:
        on = lane != 0;
        break;
      case 4:
        on = half(rng);
        break;
      case 5:
        on = lane % 2 == 0;
        break;
    }
    preds[std::size_t(i)] = on ? ((int(rng() % 2000) - 1000) | 1) : 0;  // odd, so never 0
  }
  mgpu::buffer<int> pred(preds, ctx);
  mgpu::buffer<unsigned> out = poisoned<unsigned>(6 * n, ctx);
  const int* p = pred.data();
  unsigned* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid, lane = tid % 32;
        o[6 * g + 0] = __ballot_sync(full_mask, p[g]);
        o[6 * g + 1] = __any_sync(full_mask, p[g]) != 0;
        o[6 * g + 2] = __all_sync(full_mask, p[g]) != 0;
        if (lane % 2 == 0) {
          o[6 * g + 3] = __ballot_sync(even_lanes, p[g]);
          o[6 * g + 4] = __any_sync(even_lanes, p[g]) != 0;
          o[6 * g + 5] = __all_sync(even_lanes, p[g]) != 0;
        } else {
          o[6 * g + 3] = o[6 * g + 4] = o[6 * g + 5] = 7u;  // odd lanes took no part
        }
      },
      ctas, ctx);
  std::vector<unsigned> expected;
  for (int w = 0; w < warps; ++w) {
    unsigned ballot = 0;
    for (int lane = 0; lane < 32; ++lane)
      if (preds[std::size_t(w * 32 + lane)] != 0) ballot |= 1u << lane;
    for (int lane = 0; lane < 32; ++lane) {
      expected.insert(expected.end(), {ballot, unsigned(ballot != 0), unsigned(ballot == full_mask)});
      if (lane % 2 == 0)
        expected.insert(expected.end(), {ballot & even_lanes, unsigned((ballot & even_lanes) != 0),
                                         unsigned((ballot & even_lanes) == even_lanes)});
      else
        expected.insert(expected.end(), {7u, 7u, 7u});
    }
  }
  EXPECT_TRUE(same(expected, out.to_host()));
}

namespace warp_reduce {
constexpr int nt = 64, ctas = 4, n = nt * ctas, results = 10;
}

// __reduce_{add,min,max}_sync (int and unsigned) and __reduce_{and,or,xor}_sync give every lane of
// the mask the reduction over the mask's lanes (Programming Guide, "Warp Reduce Functions"); the
// warp is split into groups of consecutive lanes of random lengths, each reducing with its own
// mask at the same time. mgpu::warp_or and mgpu::warp_max reduce over the whole warp.
MGPU_TEST(SimWarpReduce, ReduceIntrinsicsCombineTheLanesOfEachMask) {
  using namespace warp_reduce;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<unsigned> values(n), groups(n);
  for (unsigned& v : values) v = unsigned(rng());
  for (int w = 0; w < n / 32; ++w) {
    int lane = 0;
    while (lane < 32) {
      int length = std::min(32 - lane, 1 + int(rng() % (w == 0 ? 32 : 6)));  // warp 0: one or two groups
      unsigned mask = (length == 32 ? ~0u : ((1u << length) - 1u)) << lane;
      for (int i = 0; i < length; ++i) groups[std::size_t(w * 32 + lane + i)] = mask;
      lane += length;
    }
  }
  mgpu::buffer<unsigned> value(values, ctx), group(groups, ctx);
  mgpu::buffer<unsigned> out = poisoned<unsigned>(results * n, ctx);
  const unsigned *v = value.data(), *gm = group.data();
  unsigned* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        unsigned mask = gm[g], x = v[g];
        o[results * g + 0] = __reduce_add_sync(mask, x);
        o[results * g + 1] = unsigned(__reduce_add_sync(mask, int(x)));
        o[results * g + 2] = __reduce_min_sync(mask, x);
        o[results * g + 3] = unsigned(__reduce_min_sync(mask, int(x)));
        o[results * g + 4] = __reduce_max_sync(mask, x);
        o[results * g + 5] = unsigned(__reduce_max_sync(mask, int(x)));
        o[results * g + 6] = __reduce_and_sync(mask, x);
        o[results * g + 7] = __reduce_xor_sync(mask, x) ^ __reduce_or_sync(mask, x);
        o[results * g + 8] = mgpu::warp_or(x);
        o[results * g + 9] = unsigned(mgpu::warp_max(int(x)));
      },
      ctas, ctx);
  std::vector<unsigned> expected;
  for (int g = 0; g < n; ++g) {
    unsigned warp_any = 0;
    int warp_largest = INT32_MIN;
    for (int lane = 0; lane < 32; ++lane) {
      unsigned x = values[std::size_t(g / 32 * 32 + lane)];
      warp_any |= x, warp_largest = std::max(warp_largest, int(x));
    }
    unsigned mask = groups[std::size_t(g)], sum = 0, umin = ~0u, umax = 0, all = ~0u, any = 0, parity = 0;
    int smin = INT32_MAX, smax = INT32_MIN;
    for (int lane = 0; lane < 32; ++lane) {
      if (!((mask >> lane) & 1u)) continue;
      unsigned x = values[std::size_t(g / 32 * 32 + lane)];
      sum += x, umin = std::min(umin, x), umax = std::max(umax, x), all &= x, any |= x, parity ^= x;
      smin = std::min(smin, int(x)), smax = std::max(smax, int(x));
    }
    expected.insert(expected.end(), {sum, sum, umin, unsigned(smin), umax, unsigned(smax), all, parity ^ any, warp_any,
                                     unsigned(warp_largest)});
  }
  EXPECT_TRUE(same(expected, out.to_host()));
}

namespace warp_sync {
constexpr int nt = 128, ctas = 4, rounds = 16;
}

// __syncwarp orders shared-memory accesses among the lanes of its mask: each round a lane writes
// its slot, syncs, and reads a neighbour's. The lower half-warp then does the same on its own
// with the mask 0x0000ffff.
MGPU_TEST(SimWarpSync, SyncwarpOrdersSharedMemoryWithinTheMask) {
  using namespace warp_sync;
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(ctas * nt, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ unsigned slots[nt];
        int lane = tid % 32, base = tid - lane;
        unsigned digest = 0;
        for (int r = 0; r < rounds; ++r) {
          slots[tid] = stamp(cta, r, tid);
          __syncwarp();
          digest = digest * 31u + slots[base + (lane + 1 + r) % 32];
          __syncwarp();
        }
        if (lane < 16) {
          for (int r = 0; r < rounds / 2; ++r) {
            slots[tid] = stamp(cta, rounds + r, tid);
            __syncwarp(0x0000ffffu);
            digest = digest * 31u + slots[base + (lane + 1 + r) % 16];
            __syncwarp(0x0000ffffu);
          }
        }
        o[cta * nt + tid] = digest;
      },
      ctas, ctx);
  std::vector<unsigned> expected;
  for (int c = 0; c < ctas; ++c)
    for (int t = 0; t < nt; ++t) {
      int lane = t % 32, base = t - lane;
      unsigned digest = 0;
      for (int r = 0; r < rounds; ++r) digest = digest * 31u + stamp(c, r, base + (lane + 1 + r) % 32);
      if (lane < 16)
        for (int r = 0; r < rounds / 2; ++r) digest = digest * 31u + stamp(c, rounds + r, base + (lane + 1 + r) % 16);
      expected.push_back(digest);
    }
  EXPECT_TRUE(same(expected, out.to_host()));
}

// In converged code (after a full __syncwarp) every lane of the warp is active.
MGPU_TEST(SimWarpSync, ActiveMaskIsTheWholeWarpInConvergedCode) {
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(2 * 128, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<128>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __syncwarp();
        o[cta * 128 + tid] = __activemask();
      },
      2, ctx);
  EXPECT_TRUE(same(std::vector<unsigned>(2 * 128, full_mask), out.to_host()));
}

// ================================================================================================
// Bit intrinsics
// ================================================================================================

// __popc, __clz, __ffs, __brev and their 64-bit forms on edge values (0, 1, all ones, the high
// bit, alternating bits, ...) and random ones of every density.
MGPU_TEST(SimBitIntrinsics, MatchTheirDefinitions) {
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<unsigned> x32{0u,          1u,          2u,          3u,          0x80000000u,
                            0x7fffffffu, 0xffffffffu, 0xfffffffeu, 0x00010000u, 0x0000ffffu,
                            0xffff0000u, 0x55555555u, 0xaaaaaaaau, 0x12345678u, 0x40000000u};
  std::vector<unsigned long long> x64{0ull,
                                      1ull,
                                      2ull,
                                      3ull,
                                      1ull << 63,
                                      ~0ull >> 1,
                                      ~0ull,
                                      ~0ull - 1,
                                      1ull << 32,
                                      (1ull << 32) - 1,
                                      0xffffffff00000000ull,
                                      0x5555555555555555ull,
                                      0xaaaaaaaaaaaaaaaaull,
                                      0x0123456789abcdefull,
                                      1ull << 31};
  for (int i = 0; i < 1000; ++i) {
    // Sparse, dense and uniform random words.
    std::uint64_t r = rng(), s = rng() & rng() & rng(), d = rng() | rng() | rng();
    std::uint64_t pick = i % 3 == 0 ? r : i % 3 == 1 ? s : d;
    x64.push_back(pick);
    x32.push_back(unsigned(pick >> (i % 2 ? 32 : 0)));
  }
  x32.resize(x64.size(), 0u);
  const int n = int(x64.size());
  mgpu::buffer<unsigned> in32(x32, ctx);
  mgpu::buffer<unsigned long long> in64(x64, ctx);
  mgpu::buffer<int> counts = poisoned<int>(6 * n, ctx);
  mgpu::buffer<unsigned> rev32 = poisoned<unsigned>(n, ctx);
  mgpu::buffer<unsigned long long> rev64 = poisoned<unsigned long long>(n, ctx);
  const unsigned* a = in32.data();
  const unsigned long long* b = in64.data();
  int* c = counts.data();
  unsigned* r32 = rev32.data();
  unsigned long long* r64 = rev64.data();
  mgpu::cta_launch<128>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int i = cta * 128 + tid;
        if (i >= n) return;
        c[6 * i + 0] = __popc(a[i]);
        c[6 * i + 1] = __clz(int(a[i]));
        c[6 * i + 2] = __ffs(int(a[i]));
        c[6 * i + 3] = __popcll(b[i]);
        c[6 * i + 4] = __clzll((long long)b[i]);
        c[6 * i + 5] = __ffsll((long long)b[i]);
        r32[i] = __brev(a[i]);
        r64[i] = __brevll(b[i]);
      },
      (n + 127) / 128, ctx);
  std::vector<int> expected_counts;
  std::vector<unsigned> expected_rev32;
  std::vector<unsigned long long> expected_rev64;
  for (int i = 0; i < n; ++i) {
    std::uint64_t u = x32[std::size_t(i)], v = x64[std::size_t(i)];
    expected_counts.insert(expected_counts.end(),
                           {ref_popc(u), ref_clz(u, 32), ref_ffs(u, 32), ref_popc(v), ref_clz(v, 64), ref_ffs(v, 64)});
    expected_rev32.push_back(unsigned(ref_brev(u, 32)));
    expected_rev64.push_back(ref_brev(v, 64));
  }
  EXPECT_TRUE(same(expected_counts, counts.to_host())) << "per value: popc clz ffs popcll clzll ffsll";
  EXPECT_TRUE(same(expected_rev32, rev32.to_host()));
  EXPECT_TRUE(same(expected_rev64, rev64.to_host()));
}

// ================================================================================================
// Atomics from many CTAs
// ================================================================================================

namespace atomics {
constexpr int nt = 128, ctas = 64, n = nt * ctas, words = 64;
}

// Every atomicAdd returns a distinct old value: together they are 0..n-1. 64-bit and float sums
// (of multiples of 0.25, exact in any order) and atomicSub come out exact.
MGPU_TEST(SimAtomics, AddAndSubFromEveryThreadAreExact) {
  using namespace atomics;
  mgpu::context ctx;
  mgpu::buffer<int> counter(std::vector<int>{0}, ctx), down(std::vector<int>{n}, ctx), olds = poisoned<int>(n, ctx);
  mgpu::buffer<unsigned long long> wide(std::vector<unsigned long long>{0}, ctx);
  mgpu::buffer<float> real(std::vector<float>{0.0f}, ctx);
  int *cp = counter.data(), *dp = down.data(), *op = olds.data();
  unsigned long long* wp = wide.data();
  float* rp = real.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        op[g] = atomicAdd(cp, 1);
        atomicSub(dp, 1);
        atomicAdd(wp, (1ull << 33) + (unsigned long long)g);
        atomicAdd(rp, 0.25f * float(g % 8));
      },
      ctas, ctx);
  std::vector<int> sorted = olds.to_host();
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> every(n);
  std::iota(every.begin(), every.end(), 0);
  EXPECT_TRUE(same(every, sorted));
  EXPECT_EQ(counter.to_host()[0], n);
  EXPECT_EQ(down.to_host()[0], 0);
  EXPECT_EQ(wide.to_host()[0], (unsigned long long)n * (1ull << 33) + (unsigned long long)n * (n - 1) / 2);
  EXPECT_EQ(real.to_host()[0], 0.25f * float(n / 8 * 28));
}

// atomicMin and atomicMax leave the extreme of all values and return what was there before:
// never beyond the final extreme.
MGPU_TEST(SimAtomics, MinAndMaxKeepTheExtremes) {
  using namespace atomics;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<int> ints = random_bits<int>(n, rng);
  std::vector<unsigned> uints = random_bits<unsigned>(n, rng);
  std::vector<unsigned long long> wides = random_bits<unsigned long long>(n, rng);
  mgpu::buffer<int> vi(ints, ctx),
      ext_i(std::vector<int>{std::numeric_limits<int>::max(), std::numeric_limits<int>::min()}, ctx);
  mgpu::buffer<unsigned> vu(uints, ctx), ext_u(std::vector<unsigned>{~0u, 0u}, ctx);
  mgpu::buffer<unsigned long long> vw(wides, ctx), ext_w(std::vector<unsigned long long>{~0ull, 0ull}, ctx);
  mgpu::buffer<int> old_min = poisoned<int>(n, ctx), old_max = poisoned<int>(n, ctx);
  const int* pi = vi.data();
  const unsigned* pu = vu.data();
  const unsigned long long* pw = vw.data();
  int *ei = ext_i.data(), *omin = old_min.data(), *omax = old_max.data();
  unsigned* eu = ext_u.data();
  unsigned long long* ew = ext_w.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        omin[g] = atomicMin(ei + 0, pi[g]);
        omax[g] = atomicMax(ei + 1, pi[g]);
        atomicMin(eu + 0, pu[g]);
        atomicMax(eu + 1, pu[g]);
        atomicMin(ew + 0, pw[g]);
        atomicMax(ew + 1, pw[g]);
      },
      ctas, ctx);
  int lo = *std::min_element(ints.begin(), ints.end()), hi = *std::max_element(ints.begin(), ints.end());
  EXPECT_EQ(ext_i.to_host(), (std::vector<int>{lo, hi}));
  EXPECT_EQ(ext_u.to_host(), (std::vector<unsigned>{*std::min_element(uints.begin(), uints.end()),
                                                    *std::max_element(uints.begin(), uints.end())}));
  EXPECT_EQ(ext_w.to_host(), (std::vector<unsigned long long>{*std::min_element(wides.begin(), wides.end()),
                                                              *std::max_element(wides.begin(), wides.end())}));
  for (int v : old_min.to_host()) ASSERT_GE(v, lo);
  for (int v : old_max.to_host()) ASSERT_LE(v, hi);
}

// A counter built from atomicCAS retry loops: every successful compare-and-swap saw a distinct
// value, and a 64-bit CAS-built sum is exact.
MGPU_TEST(SimAtomics, CompareAndSwapLoopsNeverLoseAnUpdate) {
  using namespace atomics;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<unsigned long long> addends = random_bits<unsigned long long>(n, rng);
  for (auto& a : addends) a >>= 24;  // 40-bit addends: the sum fits in 64 bits
  mgpu::buffer<unsigned long long> add(addends, ctx), sum(std::vector<unsigned long long>{0}, ctx);
  mgpu::buffer<int> counter(std::vector<int>{0}, ctx), seen = poisoned<int>(n, ctx);
  const unsigned long long* ap = add.data();
  unsigned long long* sp = sum.data();
  int *cp = counter.data(), *seenp = seen.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        int old = mgpu::load_relaxed(cp), assumed;
        do {
          assumed = old;
          old = atomicCAS(cp, assumed, assumed + 1);
        } while (old != assumed);
        seenp[g] = assumed;
        unsigned long long s = mgpu::load_relaxed(sp), expected;
        do {
          expected = s;
          s = atomicCAS(sp, expected, expected + ap[g]);
        } while (s != expected);
      },
      ctas, ctx);
  std::vector<int> sorted = seen.to_host();
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> every(n);
  std::iota(every.begin(), every.end(), 0);
  EXPECT_TRUE(same(every, sorted));
  EXPECT_EQ(counter.to_host()[0], n);
  EXPECT_EQ(sum.to_host()[0], std::accumulate(addends.begin(), addends.end(), 0ull));
}

// atomicExch hands each value on exactly once: the values it returned plus the one left behind
// are the initial value plus every value written.
MGPU_TEST(SimAtomics, ExchangePassesEveryValueOnExactlyOnce) {
  using namespace atomics;
  mgpu::context ctx;
  mgpu::buffer<int> cell(std::vector<int>{-1}, ctx), got = poisoned<int>(n, ctx);
  mgpu::buffer<unsigned long long> wide_cell(std::vector<unsigned long long>{~0ull}, ctx),
      wide_got = poisoned<unsigned long long>(n, ctx);
  int *cp = cell.data(), *gp = got.data();
  unsigned long long *wcp = wide_cell.data(), *wgp = wide_got.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid;
        gp[g] = atomicExch(cp, g);
        wgp[g] = atomicExch(wcp, ((unsigned long long)g << 32) | 1u);
      },
      ctas, ctx);
  std::vector<int> all = got.to_host();
  all.push_back(cell.to_host()[0]);
  std::sort(all.begin(), all.end());
  std::vector<int> expected(n + 1);
  std::iota(expected.begin(), expected.end(), -1);
  EXPECT_TRUE(same(expected, all));
  std::vector<unsigned long long> wide_all = wide_got.to_host(), wide_expected{~0ull};
  wide_all.push_back(wide_cell.to_host()[0]);
  for (int g = 0; g < n; ++g) wide_expected.push_back(((unsigned long long)g << 32) | 1u);
  std::sort(wide_all.begin(), wide_all.end());
  std::sort(wide_expected.begin(), wide_expected.end());
  EXPECT_TRUE(same(wide_expected, wide_all));
}

// atomicOr sets one random bit per thread, atomicAnd clears one, atomicXor flips random ones, on
// 32- and 64-bit words shared by 128 threads each.
MGPU_TEST(SimAtomics, BitwiseOrAndXorCombineEveryOperand) {
  using namespace atomics;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<unsigned long long> r = random_bits<unsigned long long>(n, rng);
  mgpu::buffer<unsigned long long> rb(r, ctx);
  mgpu::buffer<unsigned> w32(std::vector<unsigned>(3 * words, 0u), ctx);
  mgpu::buffer<unsigned long long> w64(std::vector<unsigned long long>(3 * words, 0ull), ctx);
  std::vector<unsigned> init32(3 * words, 0u);
  std::vector<unsigned long long> init64(3 * words, 0ull);
  for (int k = 0; k < words; ++k) init32[std::size_t(words + k)] = ~0u, init64[std::size_t(words + k)] = ~0ull;
  w32.to_device(init32.data(), 3 * words);
  w64.to_device(init64.data(), 3 * words);
  const unsigned long long* rp = rb.data();
  unsigned* p32 = w32.data();
  unsigned long long* p64 = w64.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        int g = cta * nt + tid, k = g % words;
        unsigned long long x = rp[g];
        atomicOr(p32 + k, 1u << (x % 32));
        atomicAnd(p32 + words + k, ~(1u << (x >> 8) % 32));
        atomicXor(p32 + 2 * words + k, unsigned(x >> 16));
        atomicOr(p64 + k, 1ull << (x % 64));
        atomicAnd(p64 + words + k, ~(1ull << (x >> 8) % 64));
        atomicXor(p64 + 2 * words + k, x);
      },
      ctas, ctx);
  std::vector<unsigned> e32 = init32;
  std::vector<unsigned long long> e64 = init64;
  for (int g = 0; g < n; ++g) {
    int k = g % words;
    unsigned long long x = r[std::size_t(g)];
    e32[std::size_t(k)] |= 1u << (x % 32);
    e32[std::size_t(words + k)] &= ~(1u << (x >> 8) % 32);
    e32[std::size_t(2 * words + k)] ^= unsigned(x >> 16);
    e64[std::size_t(k)] |= 1ull << (x % 64);
    e64[std::size_t(words + k)] &= ~(1ull << (x >> 8) % 64);
    e64[std::size_t(2 * words + k)] ^= x;
  }
  EXPECT_TRUE(same(e32, w32.to_host())) << "words: or, and, xor";
  EXPECT_TRUE(same(e64, w64.to_host())) << "words: or, and, xor";
}

// ================================================================================================
// Look-back ordering
// ================================================================================================

namespace lookback {
constexpr int nt = 64, tiles = 2000, n = nt * tiles;
}

// A chained scan: each CTA waits for CTA (cta - 1) to publish its inclusive prefix (data, fence,
// flag), adds its own tile's sum and publishes in turn. It relies on what decoupled look-back
// relies on: lower-numbered CTAs make progress while a higher one spins, and a reader that sees
// the flag (then fences) sees the data written before it.
MGPU_TEST(SimLookBack, AChainedPrefixAcrossTwoThousandCTAsCompletes) {
  using namespace lookback;
  MGPU_SEEDED_RNG(rng);
  mgpu::context ctx;
  std::vector<int> values = random_vector<int>(n, rng, 0, 9);
  mgpu::buffer<int> in(values, ctx), flags(std::vector<int>(tiles, 0), ctx);
  mgpu::buffer<long long> inclusive = poisoned<long long>(tiles, ctx), out = poisoned<long long>(n, ctx);
  const int* ip = in.data();
  int* fp = flags.data();
  long long *incp = inclusive.data(), *op = out.data();
  mgpu::cta_launch<nt>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ int tile[nt];
        __shared__ long long tile_start;
        tile[tid] = ip[cta * nt + tid];
        __syncthreads();
        if (tid == 0) {
          long long sum = 0;
          for (int i = 0; i < nt; ++i) sum += tile[i];
          long long before = 0;
          if (cta > 0) {
            unsigned delay = 32;
            while (mgpu::load_relaxed(fp + cta - 1) == 0) {
              mgpu::backoff(delay);
              delay = delay < 1024 ? 2 * delay : delay;
            }
            mgpu::thread_fence();
            before = mgpu::load_relaxed(incp + cta - 1);
          }
          mgpu::store_relaxed(incp + cta, before + sum);
          mgpu::thread_fence();
          mgpu::store_relaxed(fp + cta, 1);
          tile_start = before;
        }
        __syncthreads();
        long long prefix = tile_start;
        for (int i = 0; i <= tid; ++i) prefix += tile[i];
        op[cta * nt + tid] = prefix;
      },
      tiles, ctx);
  std::vector<long long> expected(n);
  std::partial_sum(values.begin(), values.end(), expected.begin(), [](long long a, long long b) { return a + b; });
  EXPECT_TRUE(same(expected, out.to_host()));
  EXPECT_TRUE(same(std::vector<int>(tiles, 1), flags.to_host()));
}

// Within one CTA: warp 0 spins (with back-off) on a shared flag that warp 1 sets after some work.
// The hardware schedules warps independently; the simulator must let warp 1 run while warp 0
// spins, which its __nanosleep does.
MGPU_TEST(SimLookBack, ASpinWaitOnAnotherWarpOfTheSameCTACompletes) {
  mgpu::context ctx;
  mgpu::buffer<int> out = poisoned<int>(64, ctx);
  int* o = out.data();
  mgpu::cta_launch<64>(
      [=] MGPU_LAMBDA(int tid, int) {
        __shared__ int flag;
        __shared__ int payload[32];
        if (tid == 0) flag = 0;
        __syncthreads();
        // The flag goes through atomics: the synchronization racecheck recognizes.
        if (tid >= 32) {
          payload[tid - 32] = 3 * tid;
          __syncwarp();
          if (tid == 32) atomicExch(&flag, 1);
        } else {
          while (atomicAdd(&flag, 0) == 0) mgpu::backoff(64);
        }
        __syncthreads();
        o[tid] = tid < 32 ? payload[tid] : -tid;
      },
      1, ctx);
  std::vector<int> expected(64);
  for (int t = 0; t < 64; ++t) expected[std::size_t(t)] = t < 32 ? 3 * (t + 32) : -t;
  EXPECT_TRUE(same(expected, out.to_host()));
}

// ================================================================================================
// Launch sequences
// ================================================================================================

// Thousands of tiny launches in a row each run completely, in order, on the same stream.
MGPU_TEST(SimLaunches, TwoThousandTinyLaunchesInARow) {
  constexpr int launches = 2000;
  mgpu::context ctx;
  mgpu::buffer<int> stamps = poisoned<int>(launches, ctx);
  mgpu::buffer<int> threads_run(std::vector<int>{0}, ctx);
  int *sp = stamps.data(), *tp = threads_run.data();
  long long expected_threads = 0;
  for (int i = 0; i < launches; ++i) {
    int grid = 1 + i % 3;
    // Each launch reads what the previous one wrote: launches on a stream run in order.
    mgpu::cta_launch<32>(
        [=] MGPU_LAMBDA(int tid, int cta) {
          atomicAdd(tp, 1);
          if (tid == 0 && cta == 0) sp[i] = (i == 0 ? 0 : sp[i - 1]) + 1;
        },
        grid, ctx);
    expected_threads += 32 * grid;
  }
  std::vector<int> expected(launches);
  std::iota(expected.begin(), expected.end(), 1);
  EXPECT_TRUE(same(expected, stamps.to_host()));
  EXPECT_EQ(threads_run.to_host()[0], expected_threads);
}

// A launch of 0 CTAs runs nothing and leaves the backend usable.
MGPU_TEST(SimLaunches, ZeroCTAsRunNothing) {
  mgpu::context ctx;
  mgpu::buffer<int> out = poisoned<int>(64, ctx);
  int* o = out.data();
  mgpu::cta_launch<64>([=] MGPU_LAMBDA(int tid, int) { o[tid] = 1; }, 0, ctx);
  mgpu::cta_launch_with_shared<mgpu::launch_params<64, 1>>([=] MGPU_LAMBDA(int tid, int) { o[tid] = 2; }, 0, 1024, ctx);
  EXPECT_TRUE(same(std::vector<int>(64, poison<int>()), out.to_host()));
  mgpu::cta_launch<64>([=] MGPU_LAMBDA(int tid, int) { o[tid] = 3; }, 1, ctx);
  EXPECT_TRUE(same(std::vector<int>(64, 3), out.to_host()));
}

namespace host_threads {
constexpr int threads = 4, launches = 50, nt = 64;
}

// Each host thread launches on its own context; the launches may interleave in any way but every
// one runs completely.
static void launch_many(int id, mgpu::buffer<int>* out) {
  using namespace host_threads;
  int* o = out->data();
  for (int i = 0; i < launches; ++i)
    mgpu::cta_launch<nt>([=] MGPU_LAMBDA(int tid, int cta) { o[(i * 2 + cta) * nt + tid] = id * 100000 + i; }, 2,
                         out->ctx());
}

MGPU_TEST(SimLaunches, HostThreadsLaunchAtTheSameTime) {
  using namespace host_threads;
  std::vector<std::unique_ptr<mgpu::context>> contexts;
  std::vector<mgpu::buffer<int>> outs;
  for (int t = 0; t < threads; ++t) {
    contexts.push_back(std::make_unique<mgpu::context>());
    outs.push_back(poisoned<int>(launches * 2 * nt, *contexts.back()));
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(launch_many, t, &outs[std::size_t(t)]);
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    std::vector<int> expected;
    for (int i = 0; i < launches; ++i) expected.insert(expected.end(), 2 * nt, t * 100000 + i);
    EXPECT_TRUE(same(expected, outs[std::size_t(t)].to_host())) << "host thread " << t;
  }
}

// ================================================================================================
// Simulator only: what the hardware would report as a fault, a hang or undefined behaviour
// ================================================================================================
#if defined(MGPU_BACKEND_SIM)

namespace {

// An exception type of the test's own, to check that the launch rethrows the very same type.
struct injected_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `launch` and returns the message of the kernel_error it throws ("" if it throws none).
template <typename Launch>
std::string kernel_error_from(Launch launch) {
  try {
    launch();
  } catch (const mgpu::sim::kernel_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The pool still runs every thread of a launch after a failed one.
void expect_backend_still_works(mgpu::context& ctx) {
  mgpu::buffer<int> out = poisoned<int>(8 * 64, ctx);
  int* o = out.data();
  mgpu::cta_launch<64>([=](int tid, int cta) { o[cta * 64 + tid] = cta * 64 + tid; }, 8, ctx);
  std::vector<int> expected(8 * 64);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_TRUE(same(expected, out.to_host())) << "a launch after the failure";
}

}  // namespace

// Threads that have exited no longer take part in __syncthreads: the barrier and its counts
// cover the threads still running. Here threads 100.. exit at once and 90..99 after the first
// round.
MGPU_TEST(SimBarrier, ThreadsThatExitEarlyDoNotBlockABarrier) {
  constexpr int nt = 128, rounds = 3;
  mgpu::context ctx;
  mgpu::buffer<int> out = poisoned<int>(rounds * 3 * nt, ctx);
  int* o = out.data();
  mgpu::cta_launch<nt>(
      [=](int tid, int) {
        if (tid >= 100) return;
        for (int r = 0; r < rounds; ++r) {
          if (r == 1 && tid >= 90) return;
          int* f = o + (r * nt + tid) * 3;
          f[0] = __syncthreads_count(tid % 3 == 0);
          f[1] = __syncthreads_and(tid < 200) != 0;
          f[2] = __syncthreads_or(tid == 5 + r) != 0;
          __syncthreads();
        }
      },
      1, ctx);
  std::vector<int> expected(rounds * 3 * nt, poison<int>());
  for (int r = 0; r < rounds; ++r) {
    int live = r == 0 ? 100 : 90;
    for (int t = 0; t < live; ++t) {
      int* f = &expected[std::size_t((r * nt + t) * 3)];
      f[0] = (live + 2) / 3;  // multiples of 3 below `live`
      f[1] = 1;
      f[2] = 1;
    }
  }
  EXPECT_TRUE(same(expected, out.to_host()));
}

// Lanes that have exited no longer vote: a full-mask vote counts the lanes still running.
MGPU_TEST(SimWarpVote, LanesThatExitedDoNotVote) {
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(3 * 32, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<32>(
      [=](int tid, int) {
        if (tid >= 16) return;
        // __all_sync first: lanes 16..31 exit while lanes 0..15 are already waiting in it.
        o[3 * tid + 1] = unsigned(__all_sync(full_mask, 1));
        o[3 * tid + 0] = __ballot_sync(full_mask, 1);
        o[3 * tid + 2] = unsigned(__any_sync(full_mask, tid == 3));
      },
      1, ctx);
  std::vector<unsigned> expected(3 * 32, poison<unsigned>());
  for (int t = 0; t < 16; ++t)
    expected[std::size_t(3 * t)] = 0xffffu, expected[std::size_t(3 * t + 1)] = 1u,
                             expected[std::size_t(3 * t + 2)] = 1u;
  EXPECT_TRUE(same(expected, out.to_host()));
}

// __activemask names the lanes that reach it together: not those that exited before, nor those
// that wait elsewhere (here at the CTA barrier).
MGPU_TEST(SimWarpSync, ActiveMaskLeavesOutExitedAndWaitingLanes) {
  mgpu::context ctx;
  mgpu::buffer<unsigned> out = poisoned<unsigned>(2 * 32, ctx);
  unsigned* o = out.data();
  mgpu::cta_launch<32>(
      [=](int tid, int cta) {
        if (cta == 0) {
          if (tid >= 20) return;
          o[tid] = __activemask();
        } else {
          if (tid < 10) o[32 + tid] = __activemask();
          __syncthreads();
        }
      },
      2, ctx);
  std::vector<unsigned> expected(2 * 32, poison<unsigned>());
  for (int t = 0; t < 20; ++t) expected[std::size_t(t)] = 0x000fffffu;
  for (int t = 0; t < 10; ++t) expected[std::size_t(32 + t)] = 0x000003ffu;
  EXPECT_TRUE(same(expected, out.to_host()));
}

// An exception from one thread of one CTA aborts the launch, which rethrows it: same type, same
// message. Any type may be thrown. Later launches are unaffected.
MGPU_TEST(SimFailure, AnExceptionInAKernelIsRethrownByTheLaunch) {
  mgpu::context ctx;
  try {
    mgpu::cta_launch<64>(
        [=](int tid, int cta) {
          __syncthreads();
          if (cta == 5 && tid == 17) throw injected_failure("thread 17 of CTA 5 gave up");
          __syncthreads();
        },
        12, ctx);
    ADD_FAILURE() << "the launch did not rethrow";
  } catch (const injected_failure& e) {
    EXPECT_STREQ(e.what(), "thread 17 of CTA 5 gave up");
  }
  EXPECT_THROW(mgpu::cta_launch<32>(
                   [=](int tid, int) {
                     if (tid == 31) throw 42;
                   },
                   1, ctx),
               int);
  expect_backend_still_works(ctx);
}

// When several CTAs fail, the launch reports the lowest-numbered one's error (CTA 0 always runs,
// so the report does not depend on timing).
MGPU_TEST(SimFailure, TheLowestFailingCTAIsReported) {
  mgpu::context ctx;
  try {
    mgpu::cta_launch<32>(
        [=](int tid, int cta) {
          if (tid == 3) throw injected_failure("CTA " + std::to_string(cta));
        },
        64, ctx);
    ADD_FAILURE() << "the launch did not rethrow";
  } catch (const injected_failure& e) {
    EXPECT_STREQ(e.what(), "CTA 0");
  }
  expect_backend_still_works(ctx);
}

// The failing CTA's other threads, blocked at a barrier, are unwound (their destructors run) and
// none gets past the barrier the failed thread never reached.
MGPU_TEST(SimFailure, TheOtherThreadsOfAFailedCTAAreUnwound) {
  constexpr int nt = 64;
  std::atomic<int> destroyed{0}, passed{0};
  struct guard {
    std::atomic<int>* count;
    ~guard() { count->fetch_add(1); }
  };
  mgpu::context ctx;
  std::atomic<int>* d = &destroyed;
  std::atomic<int>* p = &passed;
  EXPECT_THROW(mgpu::cta_launch<nt>(
                   [=](int tid, int) {
                     guard g{d};
                     __syncthreads();
                     if (tid == 40) throw injected_failure("thread 40");
                     __syncthreads();
                     p->fetch_add(1);
                   },
                   1, ctx),
               injected_failure);
  EXPECT_EQ(destroyed.load(), nt);
  EXPECT_EQ(passed.load(), 0);
}

MGPU_TEST(SimFailure, TrapThrowsAKernelError) {
  mgpu::context ctx;
  std::string message = kernel_error_from([&] {
    mgpu::cta_launch<64>(
        [=](int tid, int cta) {
          if (cta == 2 && tid == 9) __trap();
        },
        4, ctx);
  });
  EXPECT_TRUE(contains(message, "__trap")) << message;
  expect_backend_still_works(ctx);
}

// Threads that wait for each other at different barriers: the scheduler finds every thread
// blocked and reports a deadlock instead of hanging.
MGPU_TEST(SimFailure, ADeadlockIsDetectedAndReported) {
  mgpu::context ctx;
  {
    SCOPED_TRACE("half a warp in __syncwarp, the other half at __syncthreads");
    std::string message = kernel_error_from([&] {
      mgpu::cta_launch<64>(
          [=](int tid, int) {
            if (tid < 16)
              __syncwarp();  // needs lanes 16..31, which wait at the CTA barrier for lanes 0..15
            else
              __syncthreads();
          },
          3, ctx);
    });
    EXPECT_TRUE(contains(message, "deadlock in block 0")) << message;
  }
  {
    SCOPED_TRACE("one lane in a full-warp ballot, the rest of the CTA at __syncthreads");
    std::string message = kernel_error_from([&] {
      mgpu::cta_launch<64>(
          [=](int tid, int) {
            if (tid == 37)
              (void)__ballot_sync(full_mask, 1);
            else
              __syncthreads();
          },
          1, ctx);
    });
    EXPECT_TRUE(contains(message, "deadlock")) << message;
  }
  expect_backend_still_works(ctx);
}

// Member masks that break the rules of the *_sync intrinsics are reported as kernel errors.
MGPU_TEST(SimFailure, InvalidWarpMasksAreReported) {
  mgpu::context ctx;
  std::string message = kernel_error_from([&] {
    mgpu::cta_launch<32>(
        [=](int tid, int) {
          if (tid == 0) __syncwarp(0x2u);
        },
        1, ctx);
  });
  EXPECT_TRUE(contains(message, "not in its member mask")) << message;
  message = kernel_error_from([&] {
    // Lanes 0..15 wait for lane 16 in their __syncwarp, while lanes 16..31 wait for lane 0 in
    // one with another mask: each side waits for the other.
    mgpu::cta_launch<32>([=](int tid, int) { __syncwarp(tid < 16 ? 0x0001ffffu : 0xffff0001u); }, 1, ctx);
  });
  EXPECT_TRUE(contains(message, "different member masks")) << message;
  message = kernel_error_from([&] {
    // One member mask, two different intrinsics.
    mgpu::cta_launch<32>(
        [=](int tid, int) {
          if (tid % 2)
            (void)__ballot_sync(full_mask, 1);
          else
            (void)__shfl_sync(full_mask, tid, 0);
        },
        1, ctx);
  });
  EXPECT_TRUE(contains(message, "different intrinsics")) << message;
  expect_backend_still_works(ctx);
}

// CTA 1 spins (with back-off) on a flag that CTA 0 would publish, but CTA 0 fails first: the
// spinning CTA is cancelled at its next back-off and the launch rethrows CTA 0's error instead of
// hanging. With two or more workers CTA 0 waits until CTA 1 is spinning, so the cancellation
// really happens.
MGPU_TEST(SimFailure, ACTASpinningOnAFailedCTAIsCancelled) {
  mgpu::context ctx;
  const bool handshake = worker_count() >= 2;
  mgpu::buffer<int> flags(std::vector<int>{0, 0}, ctx);  // [0]: CTA 0 done (never), [1]: someone spins
  int* f = flags.data();
  try {
    mgpu::cta_launch<64>(
        [=](int tid, int cta) {
          if (cta == 0) {
            if (tid == 0 && handshake)
              while (mgpu::load_relaxed(f + 1) == 0) mgpu::backoff(100);
            __syncthreads();
            if (tid == 0) throw injected_failure("CTA 0 failed before publishing");
          } else {
            if (tid == 0) {
              mgpu::store_relaxed(f + 1, 1);
              while (mgpu::load_relaxed(f + 0) == 0) mgpu::backoff(100);
            }
            __syncthreads();  // the rest of the CTA waits for the spinning thread
          }
        },
        4, ctx);
    ADD_FAILURE() << "the launch did not rethrow";
  } catch (const injected_failure& e) {
    EXPECT_STREQ(e.what(), "CTA 0 failed before publishing");
  }
  if (handshake) {
    EXPECT_EQ(flags.to_host()[1], 1) << "CTA 1 never started spinning";
  }
  expect_backend_still_works(ctx);
}

// Every thread of a CTA runs on one OS thread of the pool (that is what makes `__shared__`, a
// thread_local, per CTA), across barriers and warp collectives; all CTAs together use at most
// worker_count() OS threads.
MGPU_TEST(SimPool, ACTAStaysOnOneWorkerThread) {
  constexpr int nt = 64, ctas = 32;
  mgpu::context ctx;
  mgpu::buffer<unsigned long long> ids = poisoned<unsigned long long>(3 * ctas * nt, ctx);
  unsigned long long* ip = ids.data();
  mgpu::cta_launch<nt>(
      [=](int tid, int cta) {
        auto self = [] { return (unsigned long long)std::hash<std::thread::id>()(std::this_thread::get_id()); };
        int g = cta * nt + tid;
        ip[3 * g] = self();
        __syncthreads();
        ip[3 * g + 1] = self();
        __syncwarp();
        ip[3 * g + 2] = self();
      },
      ctas, ctx);
  std::vector<unsigned long long> host = ids.to_host();
  std::set<unsigned long long> workers;
  for (int c = 0; c < ctas; ++c) {
    for (int k = 0; k < 3 * nt; ++k)
      ASSERT_EQ(host[std::size_t(3 * c * nt + k)], host[std::size_t(3 * c * nt)]) << "CTA " << c;
    workers.insert(host[std::size_t(3 * c * nt)]);
  }
  EXPECT_LE(int(workers.size()), worker_count());
}

// With W workers, W CTAs run at the same time: each waits until all W have arrived, which only
// completes if they are all running at once.
MGPU_TEST(SimPool, AsManyCTAsAsWorkersRunAtOnce) {
  const int workers = worker_count();
  ASSERT_GE(workers, 1);
  mgpu::context ctx;
  mgpu::buffer<int> arrived(std::vector<int>{0}, ctx);
  int* a = arrived.data();
  mgpu::cta_launch<32>(
      [=](int tid, int) {
        if (tid == 0) {
          atomicAdd(a, 1);
          while (mgpu::load_relaxed(a) < workers) mgpu::backoff(100);
        }
        __syncthreads();
      },
      workers, ctx);
  EXPECT_EQ(arrived.to_host()[0], workers);
}

// A kernel cannot launch another kernel (no dynamic parallelism).
MGPU_TEST(SimPool, AKernelCannotLaunchAnother) {
  mgpu::context ctx;
  mgpu::context* inner = &ctx;
  std::string message = kernel_error_from([&] {
    mgpu::cta_launch<32>(
        [=](int tid, int) {
          if (tid == 0) mgpu::cta_launch<32>([](int, int) {}, 1, *inner);
        },
        1, ctx);
  });
  EXPECT_TRUE(contains(message, "cannot launch another kernel")) << message;
  expect_backend_still_works(ctx);
}

#endif  // MGPU_BACKEND_SIM
