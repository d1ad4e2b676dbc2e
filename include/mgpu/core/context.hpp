// mgpu/core/context.hpp
//
// mgpu::context: the device, the stream every call is ordered on, and where temporary memory
// comes from. Every host function takes one as its last argument.
#pragma once

#include "../platform/memory.hpp"

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

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

// Temporaries from one region of device memory that the caller owns, as CUB's temp storage: no
// allocation calls at all, so a CUDA graph captured from calls on such a context holds no memory
// nodes, only the work. Blocks are handed out as a stack from the region's start (256-byte
// aligned); a block given back becomes reusable once every block above it has come back too
// (the library gives temporaries back in reverse order). Reuse is stream-ordered, as the pool's
// is: all the context's work runs on its one stream. A request that does not fit goes to
// `fallback` (default: std::bad_alloc). The caller keeps the region alive while work or a graph
// that uses it may run, and runs no two such graphs, or a graph and the context's own calls,
// at the same time.
class workspace_allocator final : public allocator {
 public:
  workspace_allocator(void* base, std::size_t bytes, std::shared_ptr<allocator> fallback = nullptr)
      : base_(static_cast<unsigned char*>(base)), size_(bytes), fallback_(std::move(fallback)) {}
  void* allocate(std::size_t bytes, stream_t stream) override {
    std::size_t top = blocks_.empty() ? 0 : blocks_.back().end;
    std::size_t start = (top + 255) / 256 * 256;
    if (start <= size_ && bytes <= size_ - start) {
      blocks_.push_back(block{start, start + bytes, false});
      return base_ + start;
    }
    if (!fallback_) throw std::bad_alloc();
    return fallback_->allocate(bytes, stream);
  }
  void deallocate(void* p, std::size_t bytes, stream_t stream) override {
    unsigned char* c = static_cast<unsigned char*>(p);
    if (c < base_ || c >= base_ + size_) {
      if (fallback_) fallback_->deallocate(p, bytes, stream);
      return;
    }
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it)
      if (base_ + it->start == c && !it->free) {
        it->free = true;
        break;
      }
    while (!blocks_.empty() && blocks_.back().free) blocks_.pop_back();
  }
  // Bytes of the region in use (the top of the stack).
  std::size_t used() const { return blocks_.empty() ? 0 : blocks_.back().end; }

 private:
  struct block {
    std::size_t start, end;
    bool free;
  };
  unsigned char* base_;
  std::size_t size_;
  std::shared_ptr<allocator> fallback_;
  std::vector<block> blocks_;
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
