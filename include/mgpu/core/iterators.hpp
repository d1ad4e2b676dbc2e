// mgpu/core/iterators.hpp
//
// Random-access iterators that compute their values instead of reading memory, and output
// iterators that do not store. Every algorithm takes them wherever it takes a pointer; the
// library only uses it[i], *it and it + n on its inputs.
#pragma once

#include "../platform/config.hpp"

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace mgpu {

namespace detail {
// nvcc cannot deduce, in host code, the return type of a __device__-only lambda (it silently
// gets it wrong), and these iterators need it on the host for their value_type.
template <typename F>
constexpr void require_host_visible_functor() {
#if defined(MGPU_BACKEND_CUDA)
  static_assert(!__nv_is_extended_device_lambda_closure_type(F),
                "computed iterators need a functor whose type the host can see: write the lambda "
                "as [=] MGPU_HOST_DEVICE_LAMBDA (...) rather than MGPU_LAMBDA");
#endif
}

// Supplies the iterator vocabulary from `Derived::operator[]`.
template <typename Derived, typename Value>
struct computed_iterator {
  using value_type = Value;
  using difference_type = std::int64_t;
  using pointer = void;
  using reference = Value;
  using iterator_category = std::random_access_iterator_tag;

  MGPU_HOST_DEVICE Value operator*() const { return self()[0]; }
  MGPU_HOST_DEVICE Derived operator+(std::int64_t n) const { return self().advanced(n); }
  MGPU_HOST_DEVICE Derived operator-(std::int64_t n) const { return self().advanced(-n); }
  MGPU_HOST_DEVICE Derived& operator+=(std::int64_t n) { return mut() = self().advanced(n); }
  MGPU_HOST_DEVICE Derived& operator++() { return mut() = self().advanced(1); }

 private:
  MGPU_HOST_DEVICE const Derived& self() const { return static_cast<const Derived&>(*this); }
  MGPU_HOST_DEVICE Derived& mut() { return static_cast<Derived&>(*this); }
};
}  // namespace detail

// it[i] == first + i.
template <typename T>
struct counting_iterator : detail::computed_iterator<counting_iterator<T>, T> {
  T first;
  MGPU_HOST_DEVICE explicit counting_iterator(T f = T()) : first(f) {}
  MGPU_HOST_DEVICE T operator[](std::int64_t i) const { return T(first + T(i)); }
  MGPU_HOST_DEVICE counting_iterator advanced(std::int64_t n) const { return counting_iterator(T(first + T(n))); }
};
template <typename T>
MGPU_HOST_DEVICE counting_iterator<T> make_counting_iterator(T first) {
  return counting_iterator<T>(first);
}

// it[i] == first + i * step.
template <typename T>
struct step_iterator : detail::computed_iterator<step_iterator<T>, T> {
  T first, step;
  MGPU_HOST_DEVICE step_iterator(T f = T(), T s = T(1)) : first(f), step(s) {}
  MGPU_HOST_DEVICE T operator[](std::int64_t i) const { return T(first + T(i) * step); }
  MGPU_HOST_DEVICE step_iterator advanced(std::int64_t n) const { return step_iterator(T(first + T(n) * step), step); }
};
template <typename T>
MGPU_HOST_DEVICE step_iterator<T> make_step_iterator(T first, T step) {
  return step_iterator<T>(first, step);
}

// it[i] == value.
template <typename T>
struct constant_iterator : detail::computed_iterator<constant_iterator<T>, T> {
  T value;
  MGPU_HOST_DEVICE explicit constant_iterator(T v = T()) : value(v) {}
  MGPU_HOST_DEVICE T operator[](std::int64_t) const { return value; }
  MGPU_HOST_DEVICE constant_iterator advanced(std::int64_t) const { return *this; }
};
template <typename T>
MGPU_HOST_DEVICE constant_iterator<T> make_constant_iterator(T value) {
  return constant_iterator<T>(value);
}

// it[i] == f(base[i]): a fused map in front of any algorithm's input.
template <typename F, typename It>
struct transform_iterator
    : detail::computed_iterator<transform_iterator<F, It>,
                                std::decay_t<decltype(std::declval<F>()(std::declval<It>()[0]))>> {
  F f;
  It base;
  MGPU_HOST_DEVICE transform_iterator(It b, F fn) : f(fn), base(b) { detail::require_host_visible_functor<F>(); }
  MGPU_HOST_DEVICE auto operator[](std::int64_t i) const { return f(base[i]); }
  MGPU_HOST_DEVICE transform_iterator advanced(std::int64_t n) const { return transform_iterator(base + n, f); }
};
template <typename It, typename F>
MGPU_HOST_DEVICE transform_iterator<F, It> make_transform_iterator(It base, F f) {
  return transform_iterator<F, It>(base, f);
}

// it[i] == f(i): an input computed from its index (a "load" functor).
template <typename F>
struct load_iterator
    : detail::computed_iterator<load_iterator<F>, std::decay_t<decltype(std::declval<F>()(std::int64_t()))>> {
  F f;
  std::int64_t offset;
  MGPU_HOST_DEVICE explicit load_iterator(F fn, std::int64_t o = 0) : f(fn), offset(o) {
    detail::require_host_visible_functor<F>();
  }
  MGPU_HOST_DEVICE auto operator[](std::int64_t i) const { return f(offset + i); }
  MGPU_HOST_DEVICE load_iterator advanced(std::int64_t n) const { return load_iterator(f, offset + n); }
};
template <typename F>
MGPU_HOST_DEVICE load_iterator<F> make_load_iterator(F f) {
  return load_iterator<F>(f);
}

// it[i] = v calls f(v, i): an output that goes wherever the functor sends it.
template <typename F>
struct store_iterator {
  struct proxy {
    F f;
    std::int64_t index;
    template <typename V>
    MGPU_HOST_DEVICE const proxy& operator=(const V& v) const {
      f(v, index);
      return *this;
    }
  };
  using value_type = void;
  using difference_type = std::int64_t;
  using pointer = void;
  using reference = proxy;
  using iterator_category = std::random_access_iterator_tag;
  F f;
  std::int64_t offset;
  MGPU_HOST_DEVICE explicit store_iterator(F fn, std::int64_t o = 0) : f(fn), offset(o) {}
  MGPU_HOST_DEVICE proxy operator[](std::int64_t i) const { return proxy{f, offset + i}; }
  MGPU_HOST_DEVICE proxy operator*() const { return proxy{f, offset}; }
  MGPU_HOST_DEVICE store_iterator operator+(std::int64_t n) const { return store_iterator(f, offset + n); }
};
template <typename F>
MGPU_HOST_DEVICE store_iterator<F> make_store_iterator(F f) {
  return store_iterator<F>(f);
}

// An output that drops what is written to it.
struct discard_iterator {
  struct proxy {
    template <typename V>
    MGPU_HOST_DEVICE const proxy& operator=(const V&) const {
      return *this;
    }
  };
  using value_type = void;
  using difference_type = std::int64_t;
  using pointer = void;
  using reference = proxy;
  using iterator_category = std::random_access_iterator_tag;
  MGPU_HOST_DEVICE proxy operator[](std::int64_t) const { return proxy{}; }
  MGPU_HOST_DEVICE proxy operator*() const { return proxy{}; }
  MGPU_HOST_DEVICE discard_iterator operator+(std::int64_t) const { return *this; }
};
MGPU_HOST_DEVICE discard_iterator make_discard_iterator() { return discard_iterator(); }

// The type an input iterator yields.
template <typename It>
using iterator_value_t = typename std::iterator_traits<It>::value_type;

}  // namespace mgpu
