// mgpu/core/buffer.hpp
//
// mgpu::buffer<T>: an owning array in device memory, allocated from and ordered on a context.
#pragma once

#include "../platform/memory.hpp"
#include "context.hpp"
#include "cta_launch.hpp"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace mgpu {

template <typename T>
class buffer {
 public:
  buffer() = default;
  // `count` uninitialized elements.
  buffer(std::int64_t count, context& ctx) : ctx_(&ctx), count_(count) {
    detail::check_count("mgpu::buffer", "count", count);
    if (count > std::numeric_limits<std::int64_t>::max() / std::int64_t(sizeof(T)))
      detail::throw_argument("mgpu::buffer", "count",
                             "is too many elements: their size in bytes exceeds the largest std::int64_t");
    data_ = static_cast<T*>(ctx.allocate(std::size_t(count) * sizeof(T)));
  }
  // A copy of a host vector.
  buffer(const std::vector<T>& host, context& ctx) : buffer(std::int64_t(host.size()), ctx) {
    to_device(host.data(), count_);
  }
  buffer(buffer&& other) noexcept { swap(other); }
  buffer& operator=(buffer&& other) noexcept {
    buffer(std::move(other)).swap(*this);
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  // Gives the memory back, stream-ordered. A destructor must not throw: an allocator that fails
  // to take memory back (after a sticky CUDA error, say) leaves it lost rather than ending the
  // program; the error shows again at the next CUDA call.
  ~buffer() {
    if (data_) try {
        ctx_->deallocate(data_, std::size_t(count_) * sizeof(T));
      } catch (...) {
      }
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::int64_t size() const { return count_; }
  context& ctx() const { return *ctx_; }

  // Copies `count` elements from host memory into the start of the buffer (stream-ordered;
  // `host` must stay valid until the stream reaches the copy).
  void to_device(const T* host, std::int64_t count) {
    detail::check_count("mgpu::buffer::to_device", "count", count);
    if (count > count_) detail::throw_argument("mgpu::buffer::to_device", "count", "exceeds the buffer's size");
    platform::copy_to_device(data_, host, std::size_t(count) * sizeof(T), ctx_->stream());
  }
  // Copies the buffer to a host vector; waits for the stream.
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<std::size_t>(count_));
    if (count_) platform::copy_to_host(host.data(), data_, std::size_t(count_) * sizeof(T), ctx_->stream());
    ctx_->synchronize();
    return host;
  }
  // Sets every element to `value` (stream-ordered).
  void fill(const T& value) {
    T* p = data_;
    transform([=] MGPU_LAMBDA(std::int64_t i) { p[i] = value; }, count_, *ctx_);
  }

  void swap(buffer& other) noexcept {
    std::swap(ctx_, other.ctx_);
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

 private:
  context* ctx_ = nullptr;
  T* data_ = nullptr;
  std::int64_t count_ = 0;
};

namespace detail {
// Sets device memory [p, p + bytes) to zero, stream-ordered, with a kernel rather than
// cudaMemsetAsync: launched as the library's kernels are (programmatic dependent launch), its
// launch overlaps the kernel before it and the next kernel's launch overlaps it, where a memset
// node of a CUDA graph separates two kernels fully. (H100, graph replays of 10^4 to 10^6 values:
// exclusive scan 1.08x, segmented scan 1.17x-1.22x, segmented sort 1.05x-1.10x faster; full
// sizes within 3% or faster. Back-to-back calls without a graph pay a launch's host cost instead
// of a memset's, up to 1.25x more per small scan call: bench/results/2026-11-26_h100_zero_kernel_ab.txt.)
inline void zero_bytes(void* p, std::size_t bytes, context& ctx) {
  if (bytes == 0) return;
  using params = launch_params<256, 1>;
  // 16-byte stores where p is aligned for them, then single bytes: `work` stores in all, made by
  // at most two CTAs an SM in a grid-stride loop.
  const std::int64_t vectors = reinterpret_cast<std::uintptr_t>(p) % 16 == 0 ? std::int64_t(bytes / 16) : 0;
  const std::int64_t work = vectors + (std::int64_t(bytes) - 16 * vectors);
  const std::int64_t max_ctas = 2 * std::int64_t(ctx.props().sm_count);
  const std::int64_t needed = div_up(work, std::int64_t(params::nt));
  const int ctas = int(needed < max_ctas ? needed : max_ctas);
  unsigned char* out = static_cast<unsigned char*>(p);
  cta_launch<params>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        for (std::int64_t i = std::int64_t(cta) * params::nt + tid; i < work; i += std::int64_t(ctas) * params::nt) {
          if (i < vectors)
            reinterpret_cast<uint4*>(out)[i] = uint4{0u, 0u, 0u, 0u};
          else
            out[16 * vectors + (i - vectors)] = 0;
        }
      },
      ctas, ctx);
}
}  // namespace detail

// `bytes` of device memory set to zero, stream-ordered: the state a look-back kernel starts from.
// Nothing is allocated or set for 0 bytes (a look-back over a single tile needs no state).
inline buffer<unsigned char> zeroed_bytes(std::size_t bytes, context& ctx) {
  buffer<unsigned char> b(std::int64_t(bytes), ctx);
  detail::zero_bytes(b.data(), bytes, ctx);
  return b;
}

// A device copy of a host vector.
template <typename T>
buffer<T> to_device(const std::vector<T>& host, context& ctx) {
  return buffer<T>(host, ctx);
}

}  // namespace mgpu
