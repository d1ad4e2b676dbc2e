// tests/test_util.hpp
//
// Shared by every test file (both backends): random inputs with a reproducible seed, the
// standard size list, poisoned outputs, and the user types the DESIGN's coverage asks for.
#pragma once

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// TEST whose body is a free function. nvcc rejects device lambdas inside gtest's TestBody (a
// private member function), so every test that writes a device lambda is declared with this.
#define MGPU_TEST(suite, name)                   \
  static void suite##_##name##_body();           \
  TEST(suite, name) { suite##_##name##_body(); } \
  static void suite##_##name##_body()

// The typed form: the body is a function template of the type parameter T.
#define MGPU_TYPED_TEST(suite, name)                              \
  template <typename T>                                           \
  static void suite##_##name##_body();                            \
  TYPED_TEST(suite, name) { suite##_##name##_body<TypeParam>(); } \
  template <typename T>                                           \
  static void suite##_##name##_body()

namespace mgpu_test {

// The type list of a typed suite: test_types<A, B, ...>. Each list starts with a 4-byte and an
// 8-byte type. The AddressSanitizer build (MGPU_TEST_FEW_TYPES) keeps those two: it looks for
// memory errors, and the other types run mostly the same code at other widths, for as much
// compile time again in CI. The plain simulator build and the CUDA build take every type.
#if defined(MGPU_TEST_FEW_TYPES)
template <typename Four, typename Eight, typename...>
struct typed_suite_types {
  using type = ::testing::Types<Four, Eight>;
};
#else
template <typename... All>
struct typed_suite_types {
  using type = ::testing::Types<All...>;
};
#endif
template <typename... T>
using test_types = typename typed_suite_types<T...>::type;

// One seed per test: MGPU_TEST_SEED if set, else a fresh one. Tests put it in a SCOPED_TRACE so
// every failure prints it; rerun with MGPU_TEST_SEED=<seed> to reproduce.
inline std::uint64_t seed() {
  if (const char* s = std::getenv("MGPU_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}() * 0x9e3779b97f4a7c15ull + std::random_device{}();
}

#define MGPU_SEEDED_RNG(rng)                                    \
  const std::uint64_t rng##_seed = ::mgpu_test::seed();         \
  SCOPED_TRACE("MGPU_TEST_SEED=" + std::to_string(rng##_seed)); \
  std::mt19937_64 rng(rng##_seed)

// MGPU_TEST_QUICK=1 shrinks the large sizes (for compute-sanitizer runs, which are slow).
inline bool quick() {
  const char* q = std::getenv("MGPU_TEST_QUICK");
  return q && *q && *q != '0';
}

// Sizes around tile boundaries for a tile of nv elements, plus a prime, several tiles and a
// large size.
inline std::vector<std::int64_t> sizes_for(int nv, std::int64_t large = (1 << 20) + 7) {
  if (quick()) large = 20 * std::int64_t(nv) + 11;
  return {0, 1, 2, nv - 1, nv, nv + 1, 10007, 5 * std::int64_t(nv) + 3, large};
}

// A user-defined value type (8 bytes, not arithmetic).
struct pair_value {
  int key;
  float weight;
  MGPU_HOST_DEVICE friend bool operator==(const pair_value& a, const pair_value& b) {
    return a.key == b.key && a.weight == b.weight;
  }
};
inline std::ostream& operator<<(std::ostream& os, const pair_value& p) {
  return os << "{" << p.key << ", " << p.weight << "}";
}

// x -> a * x + b over unsigned 32-bit arithmetic. Composition is associative and exact but not
// commutative: the operator that proves a scan combines values in order.
struct affine {
  unsigned a, b;
  MGPU_HOST_DEVICE friend bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }
};
inline std::ostream& operator<<(std::ostream& os, const affine& f) { return os << "{" << f.a << "x+" << f.b << "}"; }
// compose(f, g) applies f first, then g.
struct compose {
  MGPU_HOST_DEVICE affine operator()(const affine& f, const affine& g) const {
    return affine{g.a * f.a, g.a * f.b + g.b};
  }
};

template <typename T>
std::vector<T> random_vector(std::int64_t n, std::mt19937_64& rng, double lo, double hi) {
  std::vector<T> v(static_cast<std::size_t>(n));
  if constexpr (std::is_floating_point<T>::value) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = T(d(rng));
  } else {
    std::uniform_int_distribution<long long> d((long long)lo, (long long)hi);
    for (auto& x : v) x = T(d(rng));
  }
  return v;
}

// Small whole numbers: sums of up to 2^21 of them are exact even in float, so floating-point
// results can be compared exactly whatever order the device adds in.
template <typename T>
std::vector<T> small_integers(std::int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> d(std::is_signed<T>::value ? -2 : 0, std::is_signed<T>::value ? 2 : 4);
  for (auto& x : v) x = T(d(rng));
  return v;
}

// Keys drawn from `distinct` values (few distinct values: heavy duplicates).
template <typename K>
std::vector<K> random_keys(std::int64_t n, std::int64_t distinct, std::mt19937_64& rng) {
  std::vector<K> v(static_cast<std::size_t>(n));
  std::uniform_int_distribution<std::int64_t> d(0, distinct - 1);
  for (auto& x : v) x = K(d(rng));
  return v;
}

// random_keys sorted by comp.
template <typename K, typename Comp = std::less<>>
std::vector<K> sorted_random_keys(std::int64_t n, std::int64_t distinct, std::mt19937_64& rng, Comp comp = Comp()) {
  std::vector<K> v = random_keys<K>(n, distinct, rng);
  std::sort(v.begin(), v.end(), comp);
  return v;
}

// Sorted keys (with duplicates), then `fraction` of them swapped with a key at most `reach`
// positions away: nearly sorted input, as locality sort wants.
inline std::vector<int> nearly_sorted(std::int64_t n, double fraction, int reach, std::mt19937_64& rng) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = int(i / 3);
  std::uniform_int_distribution<std::int64_t> where(0, n - 1), step(-reach, reach);
  for (std::int64_t swaps = std::int64_t(fraction * double(n)); swaps > 0; --swaps) {
    std::int64_t i = where(rng), j = std::min(n - 1, std::max<std::int64_t>(0, i + step(rng)));
    std::swap(v[std::size_t(i)], v[std::size_t(j)]);
  }
  return v;
}

// A value no correct output contains, written over outputs before a call.
template <typename T>
T poison() {
  if constexpr (std::is_same<T, pair_value>::value)
    return pair_value{-12345, -1.5f};
  else if constexpr (std::is_same<T, affine>::value)
    return affine{0xdeadbeefu, 0xdeadbeefu};
  else if constexpr (std::is_floating_point<T>::value)
    return T(-1.25e30);
  else
    return T(0x5a5a5a5a5a5a5a5aull);
}

// A device buffer of n poisoned elements.
template <typename T>
mgpu::buffer<T> poisoned(std::int64_t n, mgpu::context& ctx) {
  return mgpu::buffer<T>(std::vector<T>(static_cast<std::size_t>(n), poison<T>()), ctx);
}

// Compares a result to its reference and reports the first few differences.
template <typename T>
::testing::AssertionResult same(const std::vector<T>& expected, const std::vector<T>& actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  std::size_t wrong = 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(expected[i] == actual[i])) {
      if (wrong < 5) result << "\n  [" << i << "] = " << actual[i] << ", expected " << expected[i];
      ++wrong;
    }
  if (!wrong) return ::testing::AssertionSuccess();
  return result << "\n  " << wrong << " of " << expected.size() << " elements differ";
}

// Calls f and expects std::invalid_argument (not precondition_error) whose message names the
// function and the parameter.
inline void expect_invalid_argument(const char* function, const char* parameter, const std::function<void()>& f) {
  SCOPED_TRACE(std::string(function) + " '" + parameter + "'");
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const mgpu::precondition_error& e) {
    ADD_FAILURE() << "precondition_error instead of invalid_argument: " << e.what();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(function), std::string::npos) << what;
    EXPECT_NE(what.find(std::string("'") + parameter + "'"), std::string::npos) << what;
  }
}

// What one call puts on its stream: kernel launches, memsets, copies and temporary allocations.
struct enqueued {
  int kernels = 0, memsets = 0, copies = 0, allocations = 0;
  friend bool operator==(const enqueued& a, const enqueued& b) {
    return a.kernels == b.kernels && a.memsets == b.memsets && a.copies == b.copies && a.allocations == b.allocations;
  }
};
// Issue 20's rule for an input of at most one tile: one launch, nothing else.
constexpr enqueued one_launch{1, 0, 0, 0};
inline std::ostream& operator<<(std::ostream& os, const enqueued& e) {
  return os << "{kernels " << e.kernels << ", memsets " << e.memsets << ", copies " << e.copies << ", allocations "
            << e.allocations << "}";
}

// Runs call(ctx) once on a context of its own and reports what it enqueued: on CUDA, the nodes of
// a CUDA graph captured from the call (kernels, memsets, copies; allocations are the graph's
// allocation nodes); on the simulator, its operation counters and the context's allocator. The
// call must not wait for the device (no host copies): everything it does is captured.
template <typename Call>
enqueued count_enqueued(Call call) {
  enqueued e;
#if defined(MGPU_BACKEND_CUDA)
  cudaStream_t stream = nullptr;
  MGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    mgpu::context ctx(stream);
    MGPU_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    try {
      call(ctx);
    } catch (...) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(stream, &g);
      if (g) cudaGraphDestroy(g);
      throw;
    }
    cudaGraph_t graph = nullptr;
    MGPU_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    std::size_t n = 0;
    MGPU_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    if (n) MGPU_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type;
      MGPU_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
      e.kernels += type == cudaGraphNodeTypeKernel;
      e.memsets += type == cudaGraphNodeTypeMemset;
      e.copies += type == cudaGraphNodeTypeMemcpy;
      e.allocations += type == cudaGraphNodeTypeMemAlloc;
    }
    MGPU_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  MGPU_CUDA_CHECK(cudaStreamDestroy(stream));
#else
  struct counting_allocator final : mgpu::allocator {
    mgpu::pool_allocator pool{0};
    int allocations = 0;
    void* allocate(std::size_t bytes, mgpu::stream_t s) override {
      ++allocations;
      return pool.allocate(bytes, s);
    }
    void deallocate(void* p, std::size_t bytes, mgpu::stream_t s) override { pool.deallocate(p, bytes, s); }
  };
  auto alloc = std::make_shared<counting_allocator>();
  mgpu::context ctx(nullptr, alloc);
  mgpu::platform::sim_operations& run = mgpu::platform::sim_operations_run();
  const long launches = run.launches, memsets = run.memsets, copies = run.copies;
  call(ctx);
  e.kernels = int(run.launches - launches);
  e.memsets = int(run.memsets - memsets);
  e.copies = int(run.copies - copies);
  e.allocations = alloc->allocations;
#endif
  return e;
}

}  // namespace mgpu_test
