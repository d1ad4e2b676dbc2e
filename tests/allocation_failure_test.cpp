// Running out of memory: for every function, a user allocator that throws std::bad_alloc at its
// k-th allocation, for every k that a successful call reaches. The failed call must leave the
// caller's arrays (inputs, in-place arrays and outputs) byte-for-byte as they were and give every
// temporary back; a retry on the same context must then give the right result.
//
// One table (failure_cases) holds a case per function and shape: a name, a setup that makes the
// inputs and poisoned outputs, the call, and a check of the result against a serial reference.
// A new family adds its entries there.
#include "references/bulk.hpp"
#include "references/merge_sort.hpp"
#include "references/primer.hpp"
#include "references/reduce_scan.hpp"
#include "references/search.hpp"
#include "references/segmented_sort.hpp"
#include "references/segreduce.hpp"
#include "references/sets.hpp"
#include "test_util.hpp"

#include <mgpu/mgpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

using namespace mgpu_test;

namespace {

// Real memory from a default pool; counts allocations, keeps the outstanding ones by pointer,
// and, when armed, throws std::bad_alloc at the fail_at-th allocation since arming.
class failing_allocator final : public mgpu::allocator {
 public:
  void* allocate(std::size_t bytes, mgpu::stream_t stream) override {
    if (++allocations_ == fail_at_) throw std::bad_alloc();
    void* p = pool_.allocate(bytes, stream);
    outstanding_[p] = bytes;
    return p;
  }
  void deallocate(void* p, std::size_t bytes, mgpu::stream_t stream) override {
    auto it = outstanding_.find(p);
    if (it == outstanding_.end() || it->second != bytes)
      ++bad_deallocations_;
    else
      outstanding_.erase(it);
    pool_.deallocate(p, bytes, stream);
  }

  // Counts from zero again; throws at allocation k (0: never).
  void arm(std::int64_t k) {
    allocations_ = 0;
    fail_at_ = k;
  }
  std::int64_t allocations() const { return allocations_; }
  std::size_t outstanding() const { return outstanding_.size(); }
  std::int64_t bad_deallocations() const { return bad_deallocations_; }

 private:
  mgpu::pool_allocator pool_{mgpu::platform::current_device()};
  std::map<void*, std::size_t> outstanding_;
  std::int64_t allocations_ = 0, fail_at_ = 0, bad_deallocations_ = 0;
};

// The arrays a call reads and writes, in memory of a plain context (never the failing
// allocator's), each with the bytes it held before the call. Entries refer to them by the order
// in which the setup added them.
class caller_arrays {
 public:
  explicit caller_arrays(mgpu::context& ctx) : ctx_(ctx) {}

  // A device copy of `initial` (an input, an array sorted in place, or an output's poison).
  template <typename T>
  void add(const std::vector<T>& initial) {
    static_assert(std::is_trivially_copyable<T>::value, "arrays are compared byte for byte");
    std::vector<unsigned char> bytes(initial.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), initial.data(), bytes.size());
    arrays_.push_back(array{mgpu::buffer<unsigned char>(bytes, ctx_), std::move(bytes), sizeof(T)});
  }
  // An output of n poisoned elements.
  template <typename T>
  void add_output(std::int64_t n) {
    add(std::vector<T>(static_cast<std::size_t>(n), poison<T>()));
  }

  template <typename T>
  T* ptr(int i) {
    return reinterpret_cast<T*>(at<T>(i).device.data());
  }
  template <typename T>
  std::int64_t count(int i) {
    return std::int64_t(at<T>(i).initial.size() / sizeof(T));
  }
  // What array i held before the call.
  template <typename T>
  std::vector<T> initial(int i) {
    return as<T>(at<T>(i).initial);
  }
  // What it holds now.
  template <typename T>
  std::vector<T> now(int i) {
    return as<T>(at<T>(i).device.to_host());
  }

  // Every array back to what it held before the call.
  void restore() {
    for (array& a : arrays_) a.device.to_device(a.initial.data(), a.device.size());
    ctx_.synchronize();
  }
  ::testing::AssertionResult untouched() {
    for (std::size_t i = 0; i < arrays_.size(); ++i) {
      std::vector<unsigned char> bytes = arrays_[i].device.to_host();
      if (bytes != arrays_[i].initial) {
        std::size_t first = 0;
        while (bytes[first] == arrays_[i].initial[first]) ++first;
        return ::testing::AssertionFailure()
               << "array " << i << " changed (element " << first / arrays_[i].element_size << " first)";
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  struct array {
    mgpu::buffer<unsigned char> device;
    std::vector<unsigned char> initial;
    std::size_t element_size;
  };
  template <typename T>
  array& at(int i) {
    array& a = arrays_.at(std::size_t(i));
    if (a.element_size != sizeof(T)) throw std::logic_error("caller_arrays: array read as the wrong type");
    return a;
  }
  template <typename T>
  static std::vector<T> as(const std::vector<unsigned char>& bytes) {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }

  mgpu::context& ctx_;
  std::vector<array> arrays_;
};

struct failure_case {
  std::string name;  // the gtest parameter name: letters, digits and underscores
  std::function<void(caller_arrays&, std::mt19937_64&)> setup;
  std::function<void(caller_arrays&, mgpu::context&)> call;
  std::function<::testing::AssertionResult(caller_arrays&)> check;
};
std::ostream& operator<<(std::ostream& os, const failure_case& c) { return os << c.name; }

// Sizes: a few hundred thousand make several tiles and merge passes; MGPU_TEST_QUICK shrinks
// them by 4 (two passes fewer, same parity).
std::int64_t sized(std::int64_t n) { return quick() ? n / 4 : n; }

struct times_three {
  MGPU_HOST_DEVICE int operator()(int x) const { return 3 * x; }
};
struct square_of_index {
  int* out;
  MGPU_HOST_DEVICE void operator()(std::int64_t i) const { out[i] = int(i * i); }
};
// Values of the segmented reductions: p[i]; p[i] and the segment's cached value.
struct int_at {
  const int* p;
  MGPU_HOST_DEVICE int operator()(std::int64_t i) const { return p[i]; }
  MGPU_HOST_DEVICE int operator()(std::int64_t i, std::int64_t, std::int64_t) const { return p[i]; }
  MGPU_HOST_DEVICE int operator()(std::int64_t i, std::int64_t, std::int64_t, int cached) const {
    return p[i] + cached;
  }
};
// The primer patterns' functions: keep values below 400; keep multiples of 3, writing each kept
// index at its position.
struct below_400 {
  MGPU_HOST_DEVICE bool operator()(int x) const { return x < 400; }
};
struct multiple_of_3 {
  MGPU_HOST_DEVICE bool operator()(std::int64_t i) const { return i % 3 == 0; }
};
struct write_index {
  int* out;
  MGPU_HOST_DEVICE void operator()(std::int64_t i, std::int64_t position) const { out[position] = int(i); }
};

template <typename T>
std::vector<T> iota_of(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = T(i);
  return v;
}
// Sorted segment heads in [0, n]: a few long segments (several tiles, so merge levels run) and a
// cluster of short ones.
std::vector<int> segment_heads(std::int64_t n, std::mt19937_64& rng) {
  std::vector<int> heads = random_keys<int>(12, n + 1, rng);
  std::int64_t cluster = std::int64_t(rng() % std::uint64_t(n / 2));
  for (int h : random_keys<int>(200, 20000, rng)) heads.push_back(int(std::min<std::int64_t>(n, cluster + h)));
  std::sort(heads.begin(), heads.end());
  return heads;
}
std::vector<unsigned> flags_of(std::int64_t n, const std::vector<int>& heads) {
  std::vector<unsigned> flags(static_cast<std::size_t>(n / 32 + 1), 0u);
  for (int h : heads)
    if (h < n) flags[std::size_t(h / 32)] |= 1u << (h % 32);
  return flags;
}
// Sorted unique positions in [0, n), each taken with probability `p`.
std::vector<int> sorted_positions(std::int64_t n, double p, std::mt19937_64& rng) {
  std::vector<int> v;
  std::bernoulli_distribution take(p);
  for (std::int64_t i = 0; i < n; ++i)
    if (take(rng)) v.push_back(int(i));
  return v;
}
// The unsigned pattern whose order is radix_sort's order of floats (no NaNs here).
std::uint32_t float_order(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  if (b == 0x80000000u) b = 0;
  return b & 0x80000000u ? ~b : b | 0x80000000u;
}

// The stable sort of (keys, values) by comp, as the expected result of an in-place pairs sort.
template <typename K, typename V, typename Comp>
::testing::AssertionResult sorted_pairs(const std::vector<K>& keys, const std::vector<V>& values,
                                        const std::vector<K>& keys_now, const std::vector<V>& values_now, Comp comp) {
  std::vector<std::int64_t> order = mgpu_ref::stable_order(keys, comp);
  ::testing::AssertionResult k = same(mgpu_ref::permute(keys, order), keys_now);
  if (!k) return k << " (keys)";
  ::testing::AssertionResult v = same(mgpu_ref::permute(values, order), values_now);
  if (!v) return v << " (values)";
  return ::testing::AssertionSuccess();
}

// The set operations' output size, and one call of the operation named by `op` (any form).
std::int64_t set_bound(mgpu_ref::set_op op, std::int64_t a_count, std::int64_t b_count) {
  if (op == mgpu_ref::set_op::intersection) return std::min(a_count, b_count);
  return op == mgpu_ref::set_op::difference ? a_count : a_count + b_count;
}
template <typename... Args>
auto set_call(mgpu_ref::set_op op, Args&&... args) {
  switch (op) {
    case mgpu_ref::set_op::intersection:
      return mgpu::set_intersection(std::forward<Args>(args)...);
    case mgpu_ref::set_op::union_:
      return mgpu::set_union(std::forward<Args>(args)...);
    case mgpu_ref::set_op::difference:
      return mgpu::set_difference(std::forward<Args>(args)...);
    default:
      return mgpu::set_symmetric_difference(std::forward<Args>(args)...);
  }
}

std::vector<failure_case> failure_cases() {
  using mgpu::less;
  using mgpu::plus;
  using A = caller_arrays;
  using rng_t = std::mt19937_64;
  std::vector<failure_case> cases = {
      // ---- reduce and scan ----
      {"reduce",
       [](A& a, rng_t& rng) {
         a.add(small_integers<int>(sized(400000), rng));
         a.add_output<long long>(1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::reduce(a.ptr<int>(0), a.count<int>(0), a.ptr<long long>(1), 5ll, plus<long long>(), ctx);
       },
       [](A& a) { return same({mgpu_ref::reduce(a.initial<int>(0), 5ll, plus<long long>())}, a.now<long long>(1)); }},
      {"transform_reduce",
       [](A& a, rng_t& rng) {
         a.add(small_integers<int>(sized(400000), rng));
         a.add_output<int>(1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::transform_reduce(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), 0, plus<int>(), times_three(), ctx);
       },
       [](A& a) { return same({3 * mgpu_ref::reduce(a.initial<int>(0), 0, plus<int>())}, a.now<int>(1)); }},
      {"exclusive_scan_with_total",
       [](A& a, rng_t& rng) {
         a.add(small_integers<int>(sized(400000), rng));
         a.add_output<int>(a.count<int>(0));
         a.add_output<int>(1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::exclusive_scan(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), 7, plus<int>(), a.ptr<int>(2), ctx);
       },
       [](A& a) {
         std::vector<int> in = a.initial<int>(0);
         ::testing::AssertionResult r = same(mgpu_ref::exclusive_scan(in, 7, plus<int>()), a.now<int>(1));
         return r ? same({mgpu_ref::reduce(in, 7, plus<int>())}, a.now<int>(2)) : r;
       }},
      {"inclusive_scan_in_place", [](A& a, rng_t& rng) { a.add(small_integers<int>(sized(400000), rng)); },
       [](A& a, mgpu::context& ctx) {
         mgpu::inclusive_scan(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(0), plus<int>(), ctx);
       },
       [](A& a) { return same(mgpu_ref::inclusive_scan(a.initial<int>(0), plus<int>()), a.now<int>(0)); }},
      {"transform_exclusive_scan",
       [](A& a, rng_t& rng) {
         a.add(small_integers<int>(sized(400000), rng));
         a.add_output<int>(a.count<int>(0));
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::transform_exclusive_scan(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), 0, plus<int>(), times_three(),
                                        ctx);
       },
       [](A& a) {
         std::vector<int> in = a.initial<int>(0);
         for (int& x : in) x *= 3;
         return same(mgpu_ref::exclusive_scan(in, 0, plus<int>()), a.now<int>(1));
       }},
      {"transform_inclusive_scan_with_total",
       [](A& a, rng_t& rng) {
         a.add(small_integers<int>(sized(400000), rng));
         a.add_output<int>(a.count<int>(0));
         a.add_output<int>(1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::transform_inclusive_scan(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), plus<int>(), times_three(),
                                        a.ptr<int>(2), ctx);
       },
       [](A& a) {
         std::vector<int> in = a.initial<int>(0);
         for (int& x : in) x *= 3;
         std::vector<int> scan = mgpu_ref::inclusive_scan(in, plus<int>());
         ::testing::AssertionResult r = same(scan, a.now<int>(1));
         return r ? same({scan.back()}, a.now<int>(2)) : r;
       }},

      // ---- merge ----
      {"merge_keys",
       [](A& a, rng_t& rng) {
         a.add(sorted_random_keys<int>(sized(150001), 50000, rng));
         a.add(sorted_random_keys<int>(sized(120007), 50000, rng));
         a.add_output<int>(a.count<int>(0) + a.count<int>(1));
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::merge(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1), a.ptr<int>(2), less<int>(), ctx);
       },
       [](A& a) {
         std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1), merged(x.size() + y.size());
         std::merge(x.begin(), x.end(), y.begin(), y.end(), merged.begin());
         return same(merged, a.now<int>(2));
       }},
      // merge pairs, unchecked (0) and checked (1): the sortedness checks allocate too.
  };
  for (int checked = 0; checked < 2; ++checked)
    cases.push_back({checked ? "merge_pairs_checked" : "merge_pairs",
                     [](A& a, rng_t& rng) {
                       a.add(sorted_random_keys<int>(sized(150001), 50000, rng));
                       a.add(iota_of<std::int64_t>(sized(150001)));
                       a.add(sorted_random_keys<int>(sized(120007), 50000, rng));
                       a.add(iota_of<std::int64_t>(sized(120007)));
                       a.add_output<int>(a.count<int>(0) + a.count<int>(2));
                       a.add_output<std::int64_t>(a.count<int>(0) + a.count<int>(2));
                     },
                     [checked](A& a, mgpu::context& ctx) {
                       ctx.set_checked(checked);
                       mgpu::merge(a.ptr<int>(0), a.ptr<std::int64_t>(1), a.count<int>(0), a.ptr<int>(2),
                                   a.ptr<std::int64_t>(3), a.count<int>(2), a.ptr<int>(4), a.ptr<std::int64_t>(5),
                                   less<int>(), ctx);
                     },
                     [](A& a) {
                       auto merged = mgpu_ref::merge_pairs(a.initial<int>(0), a.initial<std::int64_t>(1),
                                                           a.initial<int>(2), a.initial<std::int64_t>(3), less<int>());
                       ::testing::AssertionResult r = same(merged.first, a.now<int>(4));
                       return r ? same(merged.second, a.now<std::int64_t>(5)) : r;
                     }});

  // ---- mergesort: sizes for an even number of merge passes (the blocksort then writes the
  // caller's keys), an odd one, and none (one tile) ----
  for (std::int64_t n : {std::int64_t(2000), sized(150001), sized(300007)})
    cases.push_back(
        {"mergesort_keys_" + std::to_string(n), [n](A& a, rng_t& rng) { a.add(random_keys<int>(n, 100000, rng)); },
         [](A& a, mgpu::context& ctx) { mgpu::mergesort(a.ptr<int>(0), a.count<int>(0), less<int>(), ctx); },
         [](A& a) {
           std::vector<int> keys = a.initial<int>(0);
           std::stable_sort(keys.begin(), keys.end());
           return same(keys, a.now<int>(0));
         }});
  cases.push_back({"mergesort_pairs",  // int keys, 64-bit values: 1792 per tile, 56 tiles, 6 passes
                   [](A& a, rng_t& rng) {
                     a.add(random_keys<int>(sized(100003), 1000, rng));
                     a.add(iota_of<std::int64_t>(a.count<int>(0)));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::mergesort(a.ptr<int>(0), a.ptr<std::int64_t>(1), a.count<int>(0), less<int>(), ctx);
                   },
                   [](A& a) {
                     return sorted_pairs(a.initial<int>(0), a.initial<std::int64_t>(1), a.now<int>(0),
                                         a.now<std::int64_t>(1), less<int>());
                   }});
  cases.push_back({"mergesort_indices",
                   [](A& a, rng_t& rng) {
                     a.add(random_keys<int>(sized(150001), 1000, rng));
                     a.add_output<int>(a.count<int>(0));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::mergesort_indices(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), mgpu::greater<int>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> keys = a.initial<int>(0);
                     return sorted_pairs(keys, iota_of<int>(std::int64_t(keys.size())), a.now<int>(0), a.now<int>(1),
                                         mgpu::greater<int>());
                   }});

  // ---- segmented sort: keys by heads, pairs by flags, indices by heads, checked pairs by heads.
  // Arrays: keys, then heads (or flags), then values (or indices) where there are any.
  auto segmented_check = [](A& a) {
    std::vector<int> keys = a.initial<int>(0), heads = a.initial<int>(1);
    std::vector<std::int64_t> order = mgpu_ref::segmented_order(keys, heads, less<int>());
    return same(mgpu_ref::permute(keys, order), a.now<int>(0));
  };
  cases.push_back({"segmented_sort_keys_by_heads",
                   [](A& a, rng_t& rng) {
                     std::int64_t n = sized(300007);
                     a.add(random_keys<int>(n, 100000, rng));
                     a.add(segment_heads(n, rng));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::segmented_sort(a.ptr<int>(0), a.count<int>(0),
                                          mgpu::segments_by_heads(a.ptr<int>(1), a.count<int>(1)), less<int>(), ctx);
                   },
                   segmented_check});
  cases.push_back({"segmented_sort_pairs_by_flags",
                   [](A& a, rng_t& rng) {
                     std::int64_t n = sized(200003);
                     std::vector<int> heads = segment_heads(n, rng);
                     a.add(random_keys<int>(n, 1000, rng));
                     a.add(heads);  // (for the reference only)
                     a.add(iota_of<std::int64_t>(n));
                     a.add(flags_of(n, heads));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::segmented_sort(a.ptr<int>(0), a.ptr<std::int64_t>(2), a.count<int>(0),
                                          mgpu::segments_by_flags(a.ptr<unsigned>(3)), less<int>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> keys = a.initial<int>(0);
                     std::vector<std::int64_t> values = a.initial<std::int64_t>(2);
                     std::vector<std::int64_t> order = mgpu_ref::segmented_order(keys, a.initial<int>(1), less<int>());
                     ::testing::AssertionResult r = same(mgpu_ref::permute(keys, order), a.now<int>(0));
                     return r ? same(mgpu_ref::permute(values, order), a.now<std::int64_t>(2)) : r;
                   }});
  for (int checked = 0; checked < 2; ++checked)
    cases.push_back({checked ? "segmented_sort_indices_by_heads_checked" : "segmented_sort_indices_by_heads",
                     [checked](A& a, rng_t& rng) {
                       std::int64_t n = checked ? sized(60001) : sized(150001);
                       a.add(random_keys<int>(n, 1000, rng));
                       a.add(segment_heads(n, rng));
                       a.add_output<int>(n);
                     },
                     [checked](A& a, mgpu::context& ctx) {
                       ctx.set_checked(checked);
                       mgpu::segmented_sort_indices(a.ptr<int>(0), a.count<int>(0),
                                                    mgpu::segments_by_heads(a.ptr<int>(1), a.count<int>(1)),
                                                    a.ptr<int>(2), less<int>(), ctx);
                     },
                     [](A& a) {
                       std::vector<int> keys = a.initial<int>(0);
                       std::vector<std::int64_t> order =
                           mgpu_ref::segmented_order(keys, a.initial<int>(1), less<int>());
                       std::vector<int> indices(order.begin(), order.end());
                       ::testing::AssertionResult r = same(mgpu_ref::permute(keys, order), a.now<int>(0));
                       return r ? same(indices, a.now<int>(2)) : r;
                     }});

  // ---- locality sort: nearly sorted, so that merge levels find windows; the locality path at
  // these sizes (the default mergesorts below 16 MiB) ----
  using locality_path = mgpu::locality_sort_params<int, mgpu::empty_t, 0>;
  using locality_path_pairs = mgpu::locality_sort_params<int, std::int64_t, 0>;
  cases.push_back({"locality_sort_keys", [](A& a, rng_t& rng) { a.add(nearly_sorted(sized(300007), 0.01, 3000, rng)); },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::locality_sort<locality_path>(a.ptr<int>(0), a.count<int>(0), less<int>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> keys = a.initial<int>(0);
                     std::stable_sort(keys.begin(), keys.end());
                     return same(keys, a.now<int>(0));
                   }});
  cases.push_back({"locality_sort_pairs",
                   [](A& a, rng_t& rng) {
                     a.add(nearly_sorted(sized(200003), 0.05, 5000, rng));
                     a.add(iota_of<std::int64_t>(a.count<int>(0)));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::locality_sort<locality_path_pairs>(a.ptr<int>(0), a.ptr<std::int64_t>(1), a.count<int>(0),
                                                              less<int>(), ctx);
                   },
                   [](A& a) {
                     return sorted_pairs(a.initial<int>(0), a.initial<std::int64_t>(1), a.now<int>(0),
                                         a.now<std::int64_t>(1), less<int>());
                   }});

  // ---- radix sort: the first merges (fewer keys than detail::radix_merge_limit); on CUDA the
  // second runs CUB, the third the portable sort (descending floats by a partial bit range); on
  // the simulator both run the portable sort ----
  cases.push_back({"radix_sort_keys",
                   [](A& a, rng_t& rng) { a.add(random_vector<int>(sized(200003), rng, -2e9, 2e9)); },
                   [](A& a, mgpu::context& ctx) { mgpu::radix_sort(a.ptr<int>(0), a.count<int>(0), ctx); },
                   [](A& a) {
                     std::vector<int> keys = a.initial<int>(0);
                     std::sort(keys.begin(), keys.end());
                     return same(keys, a.now<int>(0));
                   }});
  cases.push_back({"radix_sort_pairs",
                   [](A& a, rng_t& rng) {
                     a.add(random_keys<std::uint32_t>(sized(200003), 5000, rng));
                     a.add(iota_of<std::int64_t>(a.count<std::uint32_t>(0)));
                   },
                   [](A& a, mgpu::context& ctx) {  // keys below 5000: 24 bits sort them (3 passes)
                     mgpu::radix_sort(a.ptr<std::uint32_t>(0), a.ptr<std::int64_t>(1), a.count<std::uint32_t>(0),
                                      mgpu::radix_order::ascending, 0, 24, ctx);
                   },
                   [](A& a) {
                     return sorted_pairs(a.initial<std::uint32_t>(0), a.initial<std::int64_t>(1),
                                         a.now<std::uint32_t>(0), a.now<std::int64_t>(1), less<std::uint32_t>());
                   }});
  cases.push_back(
      {"radix_sort_pairs_descending_float_bits_8_to_32",  // 3 passes: ends with a copy back
       [](A& a, rng_t& rng) {
         a.add(random_vector<float>(sized(200003), rng, -1e3, 1e3));
         a.add(iota_of<int>(a.count<float>(0)));
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::radix_sort(a.ptr<float>(0), a.ptr<int>(1), a.count<float>(0), mgpu::radix_order::descending, 8, 32, ctx);
       },
       [](A& a) {
         auto by_bits = [](float x, float y) { return (~float_order(x) >> 8) < (~float_order(y) >> 8); };
         return sorted_pairs(a.initial<float>(0), a.initial<int>(1), a.now<float>(0), a.now<int>(1), by_bits);
       }});

  // ---- bulk array surgery, unchecked and checked ----
  for (int checked = 0; checked < 2; ++checked) {
    cases.push_back(
        {checked ? "bulk_remove_checked" : "bulk_remove",
         [](A& a, rng_t& rng) {
           std::int64_t n = sized(300007);
           a.add(random_vector<int>(n, rng, -1e6, 1e6));
           a.add(sorted_positions(n, 0.3, rng));
           a.add_output<int>(n - a.count<int>(1));
         },
         [checked](A& a, mgpu::context& ctx) {
           ctx.set_checked(checked);
           mgpu::bulk_remove(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1), a.ptr<int>(2), ctx);
         },
         [](A& a) { return same(mgpu_ref::bulk_remove(a.initial<int>(0), a.initial<int>(1)), a.now<int>(2)); }});
    cases.push_back({checked ? "bulk_insert_checked" : "bulk_insert",
                     [](A& a, rng_t& rng) {
                       std::int64_t b_count = sized(200003), a_count = sized(100003);
                       a.add(random_vector<int>(a_count, rng, -1e6, 1e6));
                       a.add(sorted_random_keys<int>(a_count, b_count + 1, rng));
                       a.add(random_vector<int>(b_count, rng, -1e6, 1e6));
                       a.add_output<int>(a_count + b_count);
                     },
                     [checked](A& a, mgpu::context& ctx) {
                       ctx.set_checked(checked);
                       mgpu::bulk_insert(a.ptr<int>(0), a.ptr<int>(1), a.count<int>(0), a.ptr<int>(2), a.count<int>(2),
                                         a.ptr<int>(3), ctx);
                     },
                     [](A& a) {
                       return same(mgpu_ref::bulk_insert(a.initial<int>(0), a.initial<int>(1), a.initial<int>(2)),
                                   a.now<int>(3));
                     }});
  }

  // ---- partitions and core: the returned buffer (from the context) is copied to an output and
  // given back inside the call ----
  cases.push_back(
      {"merge_path_partitions",
       [](A& a, rng_t& rng) {
         a.add(sorted_random_keys<int>(sized(100003), 1000, rng));
         a.add(sorted_random_keys<int>(sized(70001), 1000, rng));
         a.add_output<std::int64_t>(mgpu::div_up(a.count<int>(0) + a.count<int>(1), std::int64_t(1000)) + 1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::buffer<std::int64_t> p = mgpu::merge_path_partitions(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1),
                                                                    a.count<int>(1), 1000, less<int>(), ctx);
         mgpu::platform::copy_device(a.ptr<std::int64_t>(2), p.data(), std::size_t(p.size()) * 8, ctx.stream());
       },
       [](A& a) {
         std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1);
         // Of the merge's first d outputs (a first on ties), how many come from a.
         std::vector<std::int64_t> expected;
         std::int64_t total = std::int64_t(x.size() + y.size());
         for (std::int64_t i = 0; i < a.count<std::int64_t>(2); ++i) {
           std::int64_t d = std::min(i * 1000, total), lo = std::max<std::int64_t>(0, d - std::int64_t(y.size())),
                        hi = std::min<std::int64_t>(d, std::int64_t(x.size()));
           while (lo < hi) {  // the fewest a's such that a[m] > b[d - 1 - m] does not hold
             std::int64_t m = (lo + hi) / 2;
             if (!(y[std::size_t(d - 1 - m)] < x[std::size_t(m)]))
               lo = m + 1;
             else
               hi = m;
           }
           expected.push_back(lo);
         }
         return same(expected, a.now<std::int64_t>(2));
       }});
  cases.push_back(
      {"balanced_path_partitions",  // cuts as bytes (a struct per cut), compared field by field
       [](A& a, rng_t& rng) {
         a.add(sorted_random_keys<int>(sized(100003), 1000, rng));
         a.add(sorted_random_keys<int>(sized(70001), 1000, rng));
         std::int64_t cuts = mgpu::div_up(a.count<int>(0) + a.count<int>(1), std::int64_t(1000)) + 1;
         a.add_output<unsigned char>(cuts * std::int64_t(sizeof(mgpu::balanced_split<std::int64_t>)));
       },
       [](A& a, mgpu::context& ctx) {
         auto p = mgpu::balanced_path_partitions(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1), 1000,
                                                 less<int>(), ctx);
         mgpu::platform::copy_device(a.ptr<unsigned char>(2), p.data(),
                                     std::size_t(p.size()) * sizeof(mgpu::balanced_split<std::int64_t>), ctx.stream());
       },
       [](A& a) {
         std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1);
         std::vector<unsigned char> bytes = a.now<unsigned char>(2);
         std::int64_t n = std::int64_t(x.size()), m = std::int64_t(y.size());
         for (std::size_t i = 0; i * sizeof(mgpu::balanced_split<std::int64_t>) < bytes.size(); ++i) {
           mgpu::balanced_split<std::int64_t> got;
           std::memcpy(&got, bytes.data() + i * sizeof got, sizeof got);
           auto cut = mgpu::balanced_path(x.data(), n, y.data(), m,
                                          std::min<std::int64_t>(std::int64_t(i) * 1000, n + m), less<int>());
           if (got.a != cut.a || got.b != cut.b || got.starred != cut.starred)
             return ::testing::AssertionFailure() << "cut " << i << " differs";
         }
         return ::testing::AssertionSuccess();
       }});
  cases.push_back(
      {"binary_search_partitions",
       [](A& a, rng_t& rng) {
         a.add(sorted_random_keys<int>(sized(100003), 300000, rng));
         a.add_output<std::int64_t>(mgpu::div_up(std::int64_t(300000), std::int64_t(777)) + 1);
       },
       [](A& a, mgpu::context& ctx) {
         mgpu::buffer<std::int64_t> p =
             mgpu::binary_search_partitions(a.ptr<int>(0), a.count<int>(0), 300000, 777, less<int>(), ctx);
         mgpu::platform::copy_device(a.ptr<std::int64_t>(1), p.data(), std::size_t(p.size()) * 8, ctx.stream());
       },
       [](A& a) {
         std::vector<int> keys = a.initial<int>(0);
         std::vector<std::int64_t> expected;
         for (std::int64_t i = 0; i < a.count<std::int64_t>(1); ++i)
           expected.push_back(std::lower_bound(keys.begin(), keys.end(), int(std::min<std::int64_t>(i * 777, 300000))) -
                              keys.begin());
         return same(expected, a.now<std::int64_t>(1));
       }});
  // ---- the search family ----
  cases.push_back({"sorted_search_both_sides_with_counts",
                   [](A& a, rng_t& rng) {
                     a.add(sorted_random_keys<int>(sized(200000), 100000, rng));
                     a.add(sorted_random_keys<int>(sized(150000), 100000, rng));
                     a.add_output<std::int64_t>(a.count<int>(0));
                     a.add_output<std::int64_t>(a.count<int>(1));
                     a.add_output<std::int64_t>(2);
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::sorted_search<mgpu::bounds::lower, mgpu::search_output::index, mgpu::search_output::match>(
                         a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1), a.ptr<std::int64_t>(2),
                         a.ptr<std::int64_t>(3), nullptr, a.ptr<std::int64_t>(4) + 1, less<>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1);
                     std::vector<bool> y_matched;
                     mgpu_ref::bounds_of(y, x, true, less<>(), &y_matched);
                     std::vector<std::int64_t> flags(y_matched.begin(), y_matched.end());
                     ::testing::AssertionResult r =
                         same(mgpu_ref::bounds_of(x, y, false, less<>()), a.now<std::int64_t>(2));
                     if (r) r = same(flags, a.now<std::int64_t>(3));
                     if (r)
                       r = same(std::vector<std::int64_t>{std::count(flags.begin(), flags.end(), 1)},
                                std::vector<std::int64_t>{a.now<std::int64_t>(4)[1]});
                     return r;
                   }});
  cases.push_back({"sorted_equal_range",
                   [](A& a, rng_t& rng) {
                     a.add(sorted_random_keys<int>(sized(200000), 50000, rng));
                     a.add(sorted_random_keys<int>(sized(200000), 50000, rng));
                     a.add_output<int>(a.count<int>(0));
                     a.add_output<std::int64_t>(a.count<int>(0));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::sorted_equal_range(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1),
                                              a.ptr<int>(2), a.ptr<std::int64_t>(3), less<>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1);
                     std::vector<std::int64_t> lower = mgpu_ref::bounds_of(x, y, false, less<>());
                     ::testing::AssertionResult r = same(std::vector<int>(lower.begin(), lower.end()), a.now<int>(2));
                     if (r) r = same(mgpu_ref::bounds_of(x, y, true, less<>()), a.now<std::int64_t>(3));
                     return r;
                   }});
  cases.push_back({"sorted_equality_count",
                   [](A& a, rng_t& rng) {
                     a.add(sorted_random_keys<int>(sized(200000), 50000, rng));
                     a.add(sorted_random_keys<int>(sized(200000), 50000, rng));
                     a.add(mgpu_ref::bounds_of(a.initial<int>(0), a.initial<int>(1), false, less<>()));
                     a.add_output<int>(a.count<int>(0));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::sorted_equality_count(a.ptr<int>(0), a.ptr<std::int64_t>(2), a.count<int>(0), a.ptr<int>(1),
                                                 a.count<int>(1), a.ptr<int>(3), less<>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> x = a.initial<int>(0), y = a.initial<int>(1), expected;
                     std::vector<std::int64_t> lower = mgpu_ref::bounds_of(x, y, false, less<>()),
                                               upper = mgpu_ref::bounds_of(x, y, true, less<>());
                     for (std::size_t i = 0; i < x.size(); ++i) expected.push_back(int(upper[i] - lower[i]));
                     return same(expected, a.now<int>(3));
                   }});
  // Heads of segments of random sizes in [0, 40] (many empty), and their total.
  auto random_heads = [](std::int64_t segments, rng_t& rng, std::int64_t& total) {
    std::vector<int> heads, sizes = random_keys<int>(segments, 41, rng);
    total = 0;
    for (int size : sizes) heads.push_back(int(total)), total += size % 3 ? size : 0;
    return heads;
  };
  cases.push_back({"load_balance_search",
                   [random_heads](A& a, rng_t& rng) {
                     std::int64_t total = 0;
                     a.add(random_heads(sized(20000), rng, total));
                     a.add_output<int>(total);
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::load_balance_search(a.count<int>(1), mgpu::segments_by_heads(a.ptr<int>(0), a.count<int>(0)),
                                               a.ptr<int>(1), ctx);
                   },
                   [](A& a) {
                     std::vector<std::int64_t> expected = mgpu_ref::segments_of(a.count<int>(1), a.initial<int>(0));
                     return same(std::vector<int>(expected.begin(), expected.end()), a.now<int>(1));
                   }});
  cases.push_back({"interval_expand",  // transform_lbs with cached values
                   [random_heads](A& a, rng_t& rng) {
                     std::int64_t total = 0;
                     a.add(random_heads(sized(20000), rng, total));
                     a.add(iota_of<int>(a.count<int>(0)));
                     a.add_output<int>(total);
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::interval_expand(a.ptr<int>(1), a.count<int>(2),
                                           mgpu::segments_by_heads(a.ptr<int>(0), a.count<int>(0)), a.ptr<int>(2), ctx);
                   },
                   [](A& a) {
                     std::vector<std::int64_t> expected = mgpu_ref::segments_of(a.count<int>(2), a.initial<int>(0));
                     return same(std::vector<int>(expected.begin(), expected.end()), a.now<int>(2));
                   }});
  for (mgpu::join_kind kind : {mgpu::join_kind::inner, mgpu::join_kind::outer}) {
    bool outer = kind == mgpu::join_kind::outer;
    auto setup = [](A& a, rng_t& rng) {
      // (Small: the reference is a nested-loop join, run after every failed allocation.)
      a.add(sorted_random_keys<int>(sized(8000), 3000, rng));
      a.add(sorted_random_keys<int>(sized(6000), 3000, rng));
      a.add_output<std::int64_t>(sized(60000));
      a.add_output<std::int64_t>(sized(60000));
      a.add_output<std::int64_t>(1);
    };
    // The rows, stored in the caller's arrays 2 and 3, and their number in array 4.
    auto check = [outer](A& a) {
      auto rows = mgpu_ref::join(a.initial<int>(0), a.initial<int>(1), outer, outer, less<>());
      std::vector<std::int64_t> ai = a.now<std::int64_t>(2), bi = a.now<std::int64_t>(3);
      if (std::int64_t(rows.size()) > std::int64_t(ai.size()))
        return ::testing::AssertionFailure() << "rows do not fit";
      std::vector<std::int64_t> ea, eb;
      for (auto& r : rows) ea.push_back(r.first), eb.push_back(r.second);
      ai.resize(rows.size()), bi.resize(rows.size());
      ::testing::AssertionResult r = same(ea, ai);
      if (r) r = same(eb, bi);
      if (r) r = same({std::int64_t(rows.size())}, a.now<std::int64_t>(4));
      return r;
    };
    cases.push_back({outer ? "join_outer_device_form" : "join_inner_device_form", setup,
                     [kind](A& a, mgpu::context& ctx) {
                       mgpu::join(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1),
                                  a.ptr<std::int64_t>(2), a.ptr<std::int64_t>(3), a.count<std::int64_t>(2),
                                  a.ptr<std::int64_t>(4), kind, less<>(), ctx);
                     },
                     check});
    cases.push_back({outer ? "join_outer_host_form" : "join_inner_host_form", setup,
                     [kind](A& a, mgpu::context& ctx) {
                       mgpu::join_result r = mgpu::join(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1),
                                                        kind, less<>(), ctx);
                       std::size_t bytes = std::size_t(r.count) * sizeof(std::int64_t);
                       mgpu::platform::copy_device(a.ptr<std::int64_t>(2), r.a_indices.data(), bytes, ctx.stream());
                       mgpu::platform::copy_device(a.ptr<std::int64_t>(3), r.b_indices.data(), bytes, ctx.stream());
                       mgpu::platform::copy_to_device(a.ptr<std::int64_t>(4), &r.count, sizeof r.count, ctx.stream());
                       ctx.synchronize();
                     },
                     check});
  }
  // ---- set operations: each operation in all four forms ----
  const std::pair<mgpu_ref::set_op, std::string> set_ops[] = {
      {mgpu_ref::set_op::intersection, "set_intersection"},
      {mgpu_ref::set_op::union_, "set_union"},
      {mgpu_ref::set_op::difference, "set_difference"},
      {mgpu_ref::set_op::symmetric_difference, "set_symmetric_difference"}};
  for (const auto& [op, op_name] : set_ops) {
    for (int form = 0; form < 4; ++form) {
      const bool pairs = form >= 2, on_device = form % 2 == 1;
      // Arrays: a's keys and sources, b's keys and sources (a_count + j), the keys, values and count out.
      auto setup = [op = op](A& a, rng_t& rng) {
        a.add(sorted_random_keys<int>(sized(120001), 40000, rng));
        a.add(iota_of<std::int64_t>(a.count<int>(0)));
        a.add(sorted_random_keys<int>(sized(90007), 40000, rng));
        std::vector<std::int64_t> b_sources = iota_of<std::int64_t>(a.count<int>(2));
        for (std::int64_t& s : b_sources) s += a.count<int>(0);
        a.add(b_sources);
        std::int64_t bound = set_bound(op, a.count<int>(0), a.count<int>(2));
        a.add_output<int>(bound);
        a.add_output<std::int64_t>(bound);
        a.add_output<std::int64_t>(1);
      };
      auto call = [op = op, pairs, on_device](A& a, mgpu::context& ctx) {
        int* ak = a.ptr<int>(0);
        int* bk = a.ptr<int>(2);
        std::int64_t* av = a.ptr<std::int64_t>(1);
        std::int64_t* bv = a.ptr<std::int64_t>(3);
        std::int64_t n = a.count<int>(0), m = a.count<int>(2), count = 0;
        int* keys_out = a.ptr<int>(4);
        std::int64_t* values_out = a.ptr<std::int64_t>(5);
        std::int64_t* count_out = a.ptr<std::int64_t>(6);
        if (pairs && on_device)
          set_call(op, ak, av, n, bk, bv, m, keys_out, values_out, count_out, less<>(), ctx);
        else if (pairs)
          count = set_call(op, ak, av, n, bk, bv, m, keys_out, values_out, less<>(), ctx);
        else if (on_device)
          set_call(op, ak, n, bk, m, keys_out, count_out, less<>(), ctx);
        else
          count = set_call(op, ak, n, bk, m, keys_out, less<>(), ctx);
        if (!on_device) {
          mgpu::platform::copy_to_device(count_out, &count, sizeof count, ctx.stream());
          ctx.synchronize();
        }
      };
      auto check = [op = op, pairs](A& a) {
        auto kept = mgpu_ref::set_operation(op, a.initial<int>(0), a.initial<int>(2), less<>());
        std::vector<int> keys = a.initial<int>(4);
        std::vector<std::int64_t> values = a.initial<std::int64_t>(5);
        for (std::size_t i = 0; i < kept.size(); ++i) {
          keys[i] = kept[i].first;
          if (pairs) values[i] = kept[i].second;
        }
        ::testing::AssertionResult r = same(keys, a.now<int>(4));
        if (r) r = same(values, a.now<std::int64_t>(5));
        if (r) r = same({std::int64_t(kept.size())}, a.now<std::int64_t>(6));
        return r;
      };
      cases.push_back(
          {op_name + (pairs ? "_pairs" : "_keys") + (on_device ? "_device_form" : "_host_form"), setup, call, check});
    }
  }
  cases.push_back({"set_union_keys_checked",  // checked mode allocates for its checks too
                   [](A& a, rng_t& rng) {
                     a.add(sorted_random_keys<int>(sized(50001), 9000, rng));
                     a.add(sorted_random_keys<int>(sized(40009), 9000, rng));
                     a.add_output<int>(a.count<int>(0) + a.count<int>(1));
                     a.add_output<std::int64_t>(1);
                   },
                   [](A& a, mgpu::context& ctx) {
                     ctx.set_checked(true);
                     mgpu::set_union(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.count<int>(1), a.ptr<int>(2),
                                     a.ptr<std::int64_t>(3), less<>(), ctx);
                   },
                   [](A& a) {
                     auto kept = mgpu_ref::set_operation(mgpu_ref::set_op::union_, a.initial<int>(0), a.initial<int>(1),
                                                         less<>());
                     std::vector<int> keys = a.initial<int>(2);
                     for (std::size_t i = 0; i < kept.size(); ++i) keys[i] = kept[i].first;
                     ::testing::AssertionResult r = same(keys, a.now<int>(2));
                     return r ? same({std::int64_t(kept.size())}, a.now<std::int64_t>(3)) : r;
                   }});
  // ---- segmented reduce, reduce by key, spmv. Arrays: the input, the heads (segments of 0 to 40
  // items, a third of them empty), then the output, one per segment.
  auto segreduce_setup = [random_heads](A& a, rng_t& rng) {
    std::int64_t total = 0;
    std::vector<int> heads = random_heads(sized(40000), rng, total);
    a.add(small_integers<int>(total, rng));
    a.add(heads);
    a.add_output<int>(a.count<int>(1));
  };
  auto segreduce_check = [](A& a) {
    return same(mgpu_ref::segmented_reduce(a.initial<int>(0), a.initial<int>(1), 3, plus<int>()), a.now<int>(2));
  };
  auto segments_of = [](A& a) { return mgpu::segments_by_heads(a.ptr<int>(1), a.count<int>(1)); };
  for (int checked = 0; checked < 2; ++checked)
    cases.push_back({checked ? "segmented_reduce_by_heads_checked" : "segmented_reduce_by_heads", segreduce_setup,
                     [checked, segments_of](A& a, mgpu::context& ctx) {
                       ctx.set_checked(checked);
                       mgpu::segmented_reduce(a.ptr<int>(0), a.count<int>(0), segments_of(a), a.ptr<int>(2), 3,
                                              plus<int>(), ctx);
                     },
                     segreduce_check});
  cases.push_back({"transform_segreduce", segreduce_setup,
                   [segments_of](A& a, mgpu::context& ctx) {
                     mgpu::transform_segreduce(int_at{a.ptr<int>(0)}, a.count<int>(0), segments_of(a), a.ptr<int>(2), 3,
                                               plus<int>(), ctx);
                   },
                   segreduce_check});
  cases.push_back({"segmented_reduce_indirect", segreduce_setup,  // sources = heads: the same stretches
                   [segments_of](A& a, mgpu::context& ctx) {
                     mgpu::segmented_reduce_indirect(a.ptr<int>(0), a.count<int>(0), segments_of(a), a.ptr<int>(1),
                                                     a.ptr<int>(2), 3, plus<int>(), ctx);
                   },
                   segreduce_check});
  cases.push_back({"lbs_segreduce", segreduce_setup,
                   [segments_of](A& a, mgpu::context& ctx) {
                     mgpu::lbs_segreduce(int_at{a.ptr<int>(0)}, a.count<int>(0), segments_of(a), a.ptr<int>(2), 3,
                                         plus<int>(), ctx);
                   },
                   segreduce_check});
  cases.push_back({"lbs_segreduce_cached", segreduce_setup,  // each value plus its segment's head
                   [segments_of](A& a, mgpu::context& ctx) {
                     mgpu::lbs_segreduce(int_at{a.ptr<int>(0)}, a.count<int>(0), segments_of(a), a.ptr<int>(1),
                                         a.ptr<int>(2), 3, plus<int>(), ctx);
                   },
                   [](A& a) {
                     std::vector<int> in = a.initial<int>(0), heads = a.initial<int>(1);
                     return same(mgpu_ref::segmented_reduce_of(std::int64_t(in.size()), heads, 3, plus<int>(),
                                                               [&](std::int64_t i, std::int64_t s, std::int64_t) {
                                                                 return in[std::size_t(i)] + heads[std::size_t(s)];
                                                               }),
                                 a.now<int>(2));
                   }});
  cases.push_back({"segmented_reduce_by_flags",  // input, heads (for the reference), flags, output
                   [](A& a, rng_t& rng) {
                     std::int64_t n = sized(200000);
                     std::vector<int> heads = sorted_positions(n, 0.05, rng);
                     if (heads.empty() || heads[0] != 0) heads.insert(heads.begin(), 0);
                     a.add(small_integers<int>(n, rng));
                     a.add(heads);
                     a.add(flags_of(n, heads));
                     a.add_output<int>(a.count<int>(1));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::segmented_reduce(a.ptr<int>(0), a.count<int>(0), mgpu::segments_by_flags(a.ptr<unsigned>(2)),
                                            a.ptr<int>(3), 3, plus<int>(), ctx);
                   },
                   [](A& a) {
                     return same(mgpu_ref::segmented_reduce(a.initial<int>(0), a.initial<int>(1), 3, plus<int>()),
                                 a.now<int>(3));
                   }});
  cases.push_back({"reduce_by_key",  // keys, values, keys_out, values_out, count_out
                   [](A& a, rng_t& rng) {
                     std::int64_t n = sized(200000);
                     a.add(random_keys<int>(n, 3, rng));
                     a.add(small_integers<int>(n, rng));
                     a.add_output<int>(n);
                     a.add_output<int>(n);
                     a.add_output<std::int64_t>(1);
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::reduce_by_key(a.ptr<int>(0), a.ptr<int>(1), a.count<int>(0), a.ptr<int>(2), a.ptr<int>(3),
                                         a.ptr<std::int64_t>(4), plus<int>(), ctx);
                   },
                   [](A& a) {
                     auto runs =
                         mgpu_ref::reduce_by_key(a.initial<int>(0), a.initial<int>(1), mgpu::equal_to<>(), plus<int>());
                     std::vector<int> keys = a.now<int>(2), values = a.now<int>(3);
                     keys.resize(runs.first.size()), values.resize(runs.second.size());
                     ::testing::AssertionResult r = same(runs.first, keys);
                     if (r) r = same(runs.second, values);
                     if (r) r = same({std::int64_t(runs.first.size())}, a.now<std::int64_t>(4));
                     return r;
                   }});
  // SpMV: values, column indices, row offsets (num_rows + 1), x, y. Rows of 0 to 40 entries.
  auto spmv_setup = [random_heads](A& a, rng_t& rng) {
    std::int64_t nnz = 0;
    std::vector<int> offsets = random_heads(sized(30000), rng, nnz);
    offsets.push_back(int(nnz));
    a.add(small_integers<double>(nnz, rng));
    a.add(random_keys<int>(nnz, 5000, rng));
    a.add(offsets);
    a.add(small_integers<double>(5000, rng));
    a.add_output<double>(a.count<int>(2) - 1);
  };
  auto matrix_of = [](A& a) {
    return mgpu::make_csr_matrix(a.ptr<double>(0), a.ptr<int>(1), a.ptr<int>(2), a.count<int>(2) - 1, 5000,
                                 a.count<double>(0));
  };
  auto spmv_check = [](A& a) {
    return same(mgpu_ref::spmv(a.initial<double>(0), a.initial<int>(1), a.initial<int>(2), a.initial<double>(3)),
                a.now<double>(4));
  };
  cases.push_back({"spmv_checked", spmv_setup,
                   [matrix_of](A& a, mgpu::context& ctx) {
                     ctx.set_checked(true);
                     mgpu::spmv(matrix_of(a), a.ptr<double>(3), a.ptr<double>(4), ctx);
                   },
                   spmv_check});
  cases.push_back({"spmv_preprocess_and_plan", spmv_setup,
                   [matrix_of](A& a, mgpu::context& ctx) {
                     ctx.set_checked(false);
                     auto plan = mgpu::spmv_preprocess(matrix_of(a), ctx);
                     mgpu::spmv(plan, a.ptr<double>(3), a.ptr<double>(4), ctx);
                   },
                   spmv_check});
  // ---- the primer patterns. Compaction: values below 400 of [0, 1000), or flagged; arrays:
  // input, output, count (then flags) ----
  auto compacted = [](A& a, const std::vector<bool>& keep) {
    std::vector<int> in = a.initial<int>(0);
    std::vector<int> expected = mgpu_ref::compact(in, [&](std::size_t i) { return keep[i]; });
    std::int64_t k = std::int64_t(expected.size());
    expected.resize(in.size(), poison<int>());
    ::testing::AssertionResult r = same(expected, a.now<int>(1));
    return r ? same({k}, a.now<std::int64_t>(2)) : r;
  };
  auto below_400_of = [compacted](A& a) {
    std::vector<bool> keep;
    for (int x : a.initial<int>(0)) keep.push_back(x < 400);
    return compacted(a, keep);
  };
  auto compact_setup = [](A& a, rng_t& rng) {
    a.add(random_keys<int>(sized(300007), 1000, rng));
    a.add_output<int>(a.count<int>(0));
    a.add_output<std::int64_t>(1);
  };
  cases.push_back({"compact_device_count", compact_setup,
                   [](A& a, mgpu::context& ctx) {
                     mgpu::compact(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), a.ptr<std::int64_t>(2), below_400(),
                                   ctx);
                   },
                   below_400_of});
  cases.push_back({"compact_host_count", compact_setup,
                   [](A& a, mgpu::context& ctx) {
                     std::int64_t k = mgpu::compact(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), below_400(), ctx);
                     mgpu::platform::copy_to_device(a.ptr<std::int64_t>(2), &k, sizeof k, ctx.stream());
                     ctx.synchronize();
                   },
                   below_400_of});
  cases.push_back({"compact_by_flags",
                   [compact_setup](A& a, rng_t& rng) {
                     compact_setup(a, rng);
                     a.add(random_keys<std::uint8_t>(a.count<int>(0), 2, rng));
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::compact_by_flags(a.ptr<int>(0), a.ptr<std::uint8_t>(3), a.count<int>(0), a.ptr<int>(1),
                                            a.ptr<std::int64_t>(2), ctx);
                   },
                   [compacted](A& a) {
                     std::vector<std::uint8_t> flags = a.initial<std::uint8_t>(3);
                     return compacted(a, std::vector<bool>(flags.begin(), flags.end()));
                   }});
  cases.push_back({"transform_compact",
                   [](A& a, rng_t&) {
                     a.add(iota_of<int>(sized(300007)));  // (the indices, for the reference only)
                     a.add_output<int>(a.count<int>(0));
                     a.add_output<std::int64_t>(1);
                   },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::transform_compact(multiple_of_3(), write_index{a.ptr<int>(1)}, a.count<int>(0),
                                             a.ptr<std::int64_t>(2), ctx);
                   },
                   [compacted](A& a) {
                     std::vector<bool> keep;
                     for (int i : a.initial<int>(0)) keep.push_back(i % 3 == 0);
                     return compacted(a, keep);
                   }});
  // Histograms allocate nothing: the 256-bin shared-memory path and the 65,536-bin 16-bit chunks.
  for (std::int64_t bins : {std::int64_t(256), std::int64_t(65536)})
    cases.push_back({"histogram_" + std::to_string(bins) + "_bins",
                     [](A& a, rng_t& rng) {
                       a.add(random_vector<int>(sized(2000000), rng, -1000, 70000));
                       a.add_output<int>(65536);
                     },
                     [bins](A& a, mgpu::context& ctx) {
                       mgpu::histogram(a.ptr<int>(0), a.count<int>(0), a.ptr<int>(1), bins, 0, 65536, ctx);
                     },
                     [bins](A& a) {
                       std::vector<int> expected = mgpu_ref::histogram<int, int>(a.initial<int>(0), bins, 0, 65536);
                       expected.resize(65536, poison<int>());
                       return same(expected, a.now<int>(1));
                     }});
  // Segmented scans: by heads (the partition and the look-back state; checked: the heads' check
  // too) and by flags (the state only). Arrays: input, heads, output, flags.
  auto segmented_setup = [](A& a, rng_t& rng) {
    std::int64_t n = sized(300007);
    a.add(small_integers<int>(n, rng));
    std::vector<std::int64_t> heads;
    for (int h : segment_heads(n, rng)) heads.push_back(h);
    a.add(heads);
    a.add_output<int>(n);
    std::vector<unsigned> flags(std::size_t(n / 32 + 1), 0u);
    for (std::int64_t h : heads)
      if (h < n) flags[std::size_t(h / 32)] |= 1u << (h % 32);
    flags[0] |= 1u;  // (flags cannot leave [0, heads[0]) out of every segment; it starts one anyway)
    a.add(flags);
  };
  auto segmented_expected = [](A& a, bool exclusive) {
    std::vector<int> in = a.initial<int>(0);
    std::vector<bool> starts = mgpu_ref::head_flags(std::int64_t(in.size()), a.initial<std::int64_t>(1));
    return exclusive ? mgpu_ref::segmented_exclusive_scan(in, starts, 7, plus<int>())
                     : mgpu_ref::segmented_inclusive_scan(in, starts, plus<int>());
  };
  for (int checked = 0; checked < 2; ++checked)
    cases.push_back(
        {checked ? "segmented_exclusive_scan_by_heads_checked" : "segmented_exclusive_scan_by_heads", segmented_setup,
         [checked](A& a, mgpu::context& ctx) {
           ctx.set_checked(checked);
           mgpu::segmented_exclusive_scan(a.ptr<int>(0), a.count<int>(0),
                                          mgpu::segments_by_heads(a.ptr<std::int64_t>(1), a.count<std::int64_t>(1)),
                                          a.ptr<int>(2), 7, plus<int>(), ctx);
         },
         [segmented_expected](A& a) { return same(segmented_expected(a, true), a.now<int>(2)); }});
  cases.push_back({"segmented_inclusive_scan_by_flags", segmented_setup,
                   [](A& a, mgpu::context& ctx) {
                     mgpu::segmented_inclusive_scan(a.ptr<int>(0), a.count<int>(0),
                                                    mgpu::segments_by_flags(a.ptr<unsigned>(3)), a.ptr<int>(2),
                                                    plus<int>(), ctx);
                   },
                   [segmented_expected](A& a) { return same(segmented_expected(a, false), a.now<int>(2)); }});
  cases.push_back({"buffer_from_host", [](A& a, rng_t&) { a.add_output<int>(1000); },
                   [](A& a, mgpu::context& ctx) {
                     mgpu::buffer<int> b(iota_of<int>(1000), ctx);
                     mgpu::platform::copy_device(a.ptr<int>(0), b.data(), 1000 * sizeof(int), ctx.stream());
                   },
                   [](A& a) { return same(iota_of<int>(1000), a.now<int>(0)); }});
  cases.push_back({"transform",  // allocates nothing
                   [](A& a, rng_t&) { a.add_output<int>(1000); },
                   [](A& a, mgpu::context& ctx) { mgpu::transform(square_of_index{a.ptr<int>(0)}, 1000, ctx); },
                   [](A& a) {
                     std::vector<int> squares(1000);
                     for (int i = 0; i < 1000; ++i) squares[std::size_t(i)] = i * i;
                     return same(squares, a.now<int>(0));
                   }});
  return cases;
}

class AllocationFailure : public ::testing::TestWithParam<failure_case> {};

// For every allocation k of a successful call: fail it, and check that the call threw
// std::bad_alloc at exactly that allocation, left the caller's arrays as they were, gave every
// temporary back, and that a retry on the same context gives the right result.
TEST_P(AllocationFailure, EveryAllocationLeavesTheCallersArraysUntouched) {
  const failure_case& c = GetParam();
  MGPU_SEEDED_RNG(rng);
  mgpu::context plain;  // the caller's arrays
  auto alloc = std::make_shared<failing_allocator>();
  mgpu::context ctx(plain.stream(), alloc);  // the same stream: no ordering between the two
  caller_arrays arrays(plain);
  c.setup(arrays, rng);

  alloc->arm(0);
  c.call(arrays, ctx);
  ctx.synchronize();
  const std::int64_t n = alloc->allocations();
  ASSERT_TRUE(c.check(arrays)) << "a call without failures";
  ASSERT_EQ(alloc->outstanding(), 0u);

  for (std::int64_t k = 1; k <= n; ++k) {
    SCOPED_TRACE("failing allocation " + std::to_string(k) + " of " + std::to_string(n));
    arrays.restore();
    alloc->arm(k);
    EXPECT_THROW(c.call(arrays, ctx), std::bad_alloc);
    ctx.synchronize();
    EXPECT_EQ(alloc->allocations(), k) << "the call went on after the failed allocation";
    EXPECT_TRUE(arrays.untouched());
    EXPECT_EQ(alloc->outstanding(), 0u) << "temporaries not given back";

    alloc->arm(0);
    c.call(arrays, ctx);
    ctx.synchronize();
    EXPECT_EQ(alloc->allocations(), n) << "the retry";
    EXPECT_TRUE(c.check(arrays)) << "the retry";
    EXPECT_EQ(alloc->outstanding(), 0u) << "the retry";
    if (HasFailure()) break;  // one k's report is enough
  }
  EXPECT_EQ(alloc->bad_deallocations(), 0) << "deallocations of unknown pointers or with the wrong size";
}

INSTANTIATE_TEST_SUITE_P(EveryFunction, AllocationFailure, ::testing::ValuesIn(failure_cases()),
                         [](const ::testing::TestParamInfo<failure_case>& info) { return info.param.name; });

}  // namespace
