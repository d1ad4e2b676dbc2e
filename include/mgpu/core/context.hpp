// mgpu/core/context.hpp
//
// mgpu::context: the device, the stream every call is ordered on, and where temporary memory
// comes from. Every host function takes one as its last argument.
#pragma once

#include "../platform/memory.hpp"

#include <cstddef>
#include <memory>

namespace mgpu {

// Supplies temporary device memory, ordered on a stream. Plug your own into a context to share
// a pool with the rest of an application.
class allocator {
 public:
  virtual ~allocator() = default;
  // Memory usable by work enqueued on `stream` after this call.
  virtual void* allocate(std::size_t bytes, stream_t stream) = 0;
  // Memory that work enqueued on `stream` before this call may still use.
  virtual void deallocate(void* p, std::size_t bytes, stream_t stream) = 0;
};

// The default: a stream-ordered pool (cudaMallocFromPoolAsync) owned by the allocator, which
// keeps freed memory cached for later calls until it is destroyed.
class pool_allocator final : public allocator {
 public:
  explicit pool_allocator(int device) : pool_(platform::create_pool(device)) {}
  ~pool_allocator() override { platform::destroy_pool(pool_); }
  pool_allocator(const pool_allocator&) = delete;
  pool_allocator& operator=(const pool_allocator&) = delete;
  void* allocate(std::size_t bytes, stream_t stream) override { return platform::pool_allocate(pool_, bytes, stream); }
  void deallocate(void* p, std::size_t, stream_t stream) override { platform::pool_deallocate(p, stream); }

 private:
  platform::memory_pool pool_;
};

class context {
 public:
  // The current device, a new non-blocking stream owned by the context, the default allocator.
  context() : context(nullptr, nullptr, true) {}
  // Work goes on `stream` (not owned); temporaries from `alloc` (default pool if null).
  explicit context(stream_t stream, std::shared_ptr<allocator> alloc = nullptr)
      : context(stream, std::move(alloc), false) {}

  ~context() {
    if (owns_stream_) {
      try {
        platform::synchronize(stream_);
      } catch (...) {
      }
      alloc_.reset();
      platform::destroy_stream(stream_);
    }
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  stream_t stream() const { return stream_; }
  const device_properties& props() const { return props_; }

  // Stream-ordered temporary memory (nullptr for 0 bytes).
  void* allocate(std::size_t bytes) { return bytes ? alloc_->allocate(bytes, stream_) : nullptr; }
  void deallocate(void* p, std::size_t bytes) {
    if (p) alloc_->deallocate(p, bytes, stream_);
  }

  // Waits for all work enqueued on the context's stream.
  void synchronize() { platform::synchronize(stream_); }

  // Checked mode: functions also validate the preconditions that cost a pass over the data
  // (sorted inputs, indices in range, ...) and throw mgpu::precondition_error before writing.
  bool checked() const { return checked_; }
  void set_checked(bool on) { checked_ = on; }

 private:
  context(stream_t stream, std::shared_ptr<allocator> alloc, bool own_stream)
      : props_(platform::query_device(platform::current_device())),
        stream_(own_stream ? platform::create_stream() : stream),
        owns_stream_(own_stream),
        alloc_(alloc ? std::move(alloc) : std::make_shared<pool_allocator>(props_.ordinal)) {}

  device_properties props_;
  stream_t stream_;
  bool owns_stream_;
  std::shared_ptr<allocator> alloc_;
  bool checked_ = false;
};

}  // namespace mgpu
