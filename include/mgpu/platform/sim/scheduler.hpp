// mgpu/platform/sim/scheduler.hpp
//
// The CPU simulator's engine. A launch hands its CTAs, in increasing block order, to a persistent
// pool of OS threads. Each OS thread runs one CTA at a time; the CTA's NT threads are fibers
// (Boost.Context fcontext) on that OS thread, scheduled round-robin. A fiber runs until it blocks
// at a barrier or a warp collective; the last thread to arrive releases the others and carries on.
//
// Consequences that device code relies on:
//  - `__shared__` is `static thread_local` (see runtime.hpp): one copy per OS thread, so per CTA;
//    shared_storage variables hold only a pointer into the runner's per-CTA arena.
//  - A CTA may spin-wait on lower-numbered CTAs (decoupled look-back): every lower CTA has been
//    taken by some OS thread and either finished or is running.
//  - An exception (or __trap) in any thread aborts the launch: the CTA's other fibers are unwound,
//    spinning CTAs are cancelled at their next __nanosleep, no new CTA starts, and the launch
//    rethrows the first error.
#pragma once

#include "vector_types.hpp"

#include <sys/mman.h>
#include <unistd.h>
#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
  #define MGPU_SIM_ASAN 1
#elif defined(__has_feature)
  #if __has_feature(address_sanitizer)
    #define MGPU_SIM_ASAN 1
  #endif
#endif
#if defined(MGPU_SIM_ASAN)
  #include <sanitizer/common_interface_defs.h>
#endif

namespace mgpu {
namespace sim {

namespace fctx = boost::context::detail;

// A kernel broke a rule of the execution model (divergent barrier, bad warp mask, __trap).
class kernel_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown at a fiber's blocking point to unwind it when its launch aborts. Deliberately not a
// std::exception, so that a kernel's own catch (std::exception&) cannot swallow it.
struct fiber_cancel {};

// The collectives that meet in the per-warp exchange.
enum class warp_op : std::uint8_t { sync, vote, shfl, redux };
// The operation of a warp_op::redux collective (__reduce_*_sync), carried in its clamp field.
enum class redux_kind : std::uint32_t {
  add,
  min_signed,
  max_signed,
  min_unsigned,
  max_unsigned,
  bit_and,
  bit_or,
  bit_xor
};
enum class shfl_mode : std::uint8_t { idx, up, down, bfly };

namespace detail {

inline std::size_t env_size(const char* name, std::size_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  return (end && *end == '\0' && value > 0) ? std::size_t(value) : fallback;
}

// One fiber stack: mmap'ed with a guard page below it, so an overflow faults instead of
// silently corrupting a neighbour.
class fiber_stack {
 public:
  explicit fiber_stack(std::size_t size) {
    std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    size_ = (size + page - 1) / page * page;
    total_ = size_ + page;
    void* p = ::mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(p, page, PROT_NONE);
    base_ = static_cast<char*>(p);
    bottom_ = base_ + page;
  }
  fiber_stack(const fiber_stack&) = delete;
  fiber_stack& operator=(const fiber_stack&) = delete;
  ~fiber_stack() { ::munmap(base_, total_); }
  void* top() const { return bottom_ + size_; }
  void* bottom() const { return bottom_; }
  std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  char* bottom_ = nullptr;
  std::size_t size_ = 0, total_ = 0;
};

enum class fiber_state : std::uint8_t { not_started, runnable, blocked, finished };

struct fiber {
  fctx::fcontext_t context = nullptr;
  fiber_state state = fiber_state::not_started;
  uint3 thread_idx{0, 0, 0};
  int lane = 0, warp = 0;
  std::uint64_t collective_result = 0;  // written by whoever completes this lane's collective
  bool at_barrier = false;              // blocked in __syncthreads (else in a warp collective)
  void* asan_fake_stack = nullptr;
};

// A warp collective that some lanes have reached and others not yet.
struct pending_collective {
  std::uint32_t mask = 0;     // member mask given by the lanes
  std::uint32_t arrived = 0;  // lanes waiting in it
  warp_op op = warp_op::sync;
  shfl_mode mode = shfl_mode::idx;
  std::uint32_t clamp = 0;  // shfl's c operand (segment mask in bits 12:8, clamp in 4:0), or a redux_kind
  std::uint64_t value[32];
  std::uint32_t operand[32];  // shfl's b operand, or the vote predicate
};

struct warp_exchange {
  std::uint32_t alive = 0;           // lanes that exist and have not exited
  std::uint32_t active_waiting = 0;  // lanes waiting in __activemask
  std::vector<pending_collective> pending;
};

struct launch_job;

// Runs CTAs on one OS thread. Owns the fibers and their stacks; reused across launches.
class cta_runner {
 public:
  cta_runner() : stack_size_(env_size("MGPU_SIM_STACK_SIZE", 256 * 1024)) {}

  void run(launch_job& job, int block);

  // --- called from inside a fiber ---
  fiber& current() { return fibers_[current_]; }
  const dim3& block_dim() const { return block_dim_; }
  const dim3& grid_dim() const { return grid_dim_; }
  const uint3& block_idx() const { return block_idx_; }
  void* dynamic_shared() { return dynamic_shared_.data(); }
  // The CTA's static shared memory (shared_storage): `bytes` at `align` from the CTA's arena,
  // handed out once per CTA and variable (see static_shared below).
  void* static_shared(std::size_t bytes, std::size_t align);
  // Which CTA this runner runs: a new number for every CTA (never 0).
  unsigned long long cta_serial() const { return cta_serial_; }
  int sync_threads(int predicate, int reduction);
  std::uint64_t warp_collective(warp_op op, std::uint32_t mask, std::uint64_t value, std::uint32_t operand,
                                shfl_mode mode, std::uint32_t clamp);
  // Back-off of a spin-wait: lets the CTA's other fibers run before this one continues.
  void pause() { suspend_current(fiber_state::runnable); }
  std::uint32_t active_mask();
  bool launch_aborted() const;

 private:
  static void fiber_entry(fctx::transfer_t from);
  void resume(int index);
  void block_current() { suspend_current(fiber_state::blocked); }
  void suspend_current(fiber_state state);
  void on_exit(fiber& f);
  void release_barrier();
  void complete(warp_exchange& w, std::size_t group);
  void try_complete_all(warp_exchange& w);
  void try_complete_active(warp_exchange& w);
  void cancel_all();

  std::size_t stack_size_;
  std::vector<std::unique_ptr<fiber_stack>> stacks_;
  std::vector<fiber> fibers_;
  std::vector<warp_exchange> warps_;
  std::vector<std::max_align_t> dynamic_shared_;
  std::vector<std::max_align_t> static_shared_;  // the arena, never resized once handed out
  std::size_t static_used_ = 0;
  unsigned long long cta_serial_ = 0;
  launch_job* job_ = nullptr;
  int current_ = -1;
  int nt_ = 0, live_ = 0, waiting_ = 0;
  unsigned phase_ = 0;
  int barrier_count_[2] = {0, 0};   // predicates counted by the barrier of each phase parity
  int barrier_result_[2] = {0, 0};  // the finished barrier's count, read by its waiters
  int barrier_members_[2] = {0, 0};
  bool aborting_ = false;
  std::exception_ptr error_;
  dim3 block_dim_, grid_dim_;
  uint3 block_idx_{0, 0, 0};
  fctx::fcontext_t scheduler_ = nullptr;
  void* scheduler_fake_stack_ = nullptr;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;

  friend class device;
};

inline thread_local cta_runner* tls_runner = nullptr;

// What one launch shares among the worker threads.
struct launch_job {
  int grid = 0, block = 0;
  std::size_t dynamic_shared_bytes = 0;
  const void* body = nullptr;
  void (*invoke)(const void* body, int tid, int block) = nullptr;
  std::atomic<int> next_block{0};
  std::atomic<bool> aborted{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  int error_block = 0;

  void fail(std::exception_ptr e, int block) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (!error || block < error_block) {
      error = e;
      error_block = block;
    }
    aborted.store(true);
  }
};

inline bool cta_runner::launch_aborted() const { return job_ && job_->aborted.load(std::memory_order_relaxed); }

// ASan must be told about every stack switch, or it reports false stack overflows and
// use-after-returns (the fake-stack handshake of sanitizer/common_interface_defs.h).
inline void asan_start_switch(void** fake_save, const void* bottom, std::size_t size) {
#if defined(MGPU_SIM_ASAN)
  __sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
  (void)fake_save, (void)bottom, (void)size;
#endif
}
inline void asan_finish_switch(void* fake_save, const void** bottom_old, std::size_t* size_old) {
#if defined(MGPU_SIM_ASAN)
  __sanitizer_finish_switch_fiber(fake_save, bottom_old, size_old);
#else
  (void)fake_save, (void)bottom_old, (void)size_old;
#endif
}

inline void cta_runner::fiber_entry(fctx::transfer_t from) {
  cta_runner* self = static_cast<cta_runner*>(from.data);
  self->scheduler_ = from.fctx;
  asan_finish_switch(nullptr, &self->scheduler_stack_bottom_, &self->scheduler_stack_size_);
  fiber& f = self->current();
  try {
    self->job_->invoke(self->job_->body, int(f.thread_idx.x), int(self->block_idx_.x));
  } catch (const fiber_cancel&) {
    self->aborting_ = true;
  } catch (...) {
    if (!self->error_) self->error_ = std::current_exception();
    self->aborting_ = true;
  }
  self->on_exit(f);
  // nullptr: this fiber is done, so ASan may free its fake stack.
  asan_start_switch(nullptr, self->scheduler_stack_bottom_, self->scheduler_stack_size_);
  fctx::jump_fcontext(self->scheduler_, nullptr);
  std::abort();  // a finished fiber is never resumed
}

inline void cta_runner::resume(int index) {
  current_ = index;
  fiber& f = fibers_[index];
  f.state = fiber_state::runnable;
  const fiber_stack& stack = *stacks_[index];
  asan_start_switch(&scheduler_fake_stack_, stack.bottom(), stack.size());
  fctx::transfer_t back = fctx::jump_fcontext(f.context, this);
  asan_finish_switch(scheduler_fake_stack_, nullptr, nullptr);
  f.context = back.fctx;
  current_ = -1;
}

// Suspends the calling fiber until another fiber marks it runnable.
// Suspends the calling fiber: `blocked` until another fiber wakes it, or `runnable` to let the
// CTA's other fibers run first (a spin-wait's back-off).
inline void cta_runner::suspend_current(fiber_state state) {
  fiber& f = current();
  f.state = state;
  if (state == fiber_state::blocked)
    try_complete_active(warps_[f.warp]);  // a lane blocked here does not reach a pending __activemask
  asan_start_switch(&f.asan_fake_stack, scheduler_stack_bottom_, scheduler_stack_size_);
  fctx::transfer_t back = fctx::jump_fcontext(scheduler_, nullptr);
  scheduler_ = back.fctx;
  asan_finish_switch(f.asan_fake_stack, nullptr, nullptr);
  if (aborting_) throw fiber_cancel{};
}

inline void cta_runner::release_barrier() {
  unsigned slot = phase_ & 1;
  barrier_result_[slot] = barrier_count_[slot];
  barrier_members_[slot] = waiting_;
  barrier_count_[slot ^ 1] = 0;
  waiting_ = 0;
  ++phase_;
  for (fiber& f : fibers_)
    if (f.at_barrier) {
      f.at_barrier = false;
      f.state = fiber_state::runnable;
    }
}

// `reduction`: 0 plain, 1 count, 2 and, 3 or (the __syncthreads_* family).
inline int cta_runner::sync_threads(int predicate, int reduction) {
  fiber& f = current();
  unsigned slot = phase_ & 1;
  barrier_count_[slot] += predicate != 0;
  if (++waiting_ == live_) {
    release_barrier();
  } else {
    f.at_barrier = true;
    block_current();
  }
  int count = barrier_result_[slot];
  switch (reduction) {
    case 1:
      return count;
    case 2:
      return count == barrier_members_[slot];
    case 3:
      return count != 0;
    default:
      return 0;
  }
}

inline std::uint64_t cta_runner::warp_collective(warp_op op, std::uint32_t mask, std::uint64_t value,
                                                 std::uint32_t operand, shfl_mode mode, std::uint32_t clamp) {
  fiber& f = current();
  std::uint32_t bit = 1u << f.lane;
  if (!(mask & bit))
    throw kernel_error("warp intrinsic: the calling lane " + std::to_string(f.lane) + " is not in its member mask");
  warp_exchange& w = warps_[f.warp];
  auto it =
      std::find_if(w.pending.begin(), w.pending.end(), [&](const pending_collective& p) { return p.mask == mask; });
  if (it == w.pending.end()) {
    // Masks may overlap: a lane named by a pending collective may take part in another one first.
    // It is an error when this lane is named by a pending collective whose waiting lanes this
    // lane's mask names: each side waits for the other.
    for (const pending_collective& p : w.pending)
      if ((p.mask & bit) && (p.arrived & mask))
        throw kernel_error("warp intrinsic: lanes met with overlapping but different member masks");
    it = w.pending.emplace(w.pending.end());
    it->mask = mask;
    it->op = op;
    it->mode = mode;
    it->clamp = clamp;
  } else if (it->op != op || it->mode != mode || it->clamp != clamp) {
    throw kernel_error("warp intrinsic: lanes of one member mask met at different intrinsics");
  }
  it->arrived |= bit;
  it->value[f.lane] = value;
  it->operand[f.lane] = operand;
  std::size_t group = std::size_t(it - w.pending.begin());
  if ((it->arrived & w.alive) == (it->mask & w.alive)) {
    complete(w, group);
  } else {
    block_current();
  }
  return f.collective_result;
}

// Computes every waiting lane's result (PTX shfl.sync / vote.sync semantics) and wakes them.
inline void cta_runner::complete(warp_exchange& w, std::size_t group) {
  pending_collective p = w.pending[group];
  w.pending.erase(w.pending.begin() + std::ptrdiff_t(group));
  std::uint32_t ballot = 0;
  if (p.op == warp_op::vote)
    for (int lane = 0; lane < 32; ++lane)
      if ((p.arrived >> lane & 1) && p.operand[lane]) ballot |= 1u << lane;
  std::uint32_t reduction = 0;
  if (p.op == warp_op::redux) {
    bool first = true;
    for (int lane = 0; lane < 32; ++lane) {
      if (!(p.arrived >> lane & 1)) continue;
      std::uint32_t v = std::uint32_t(p.value[lane]);
      if (first) {
        reduction = v;
        first = false;
        continue;
      }
      switch (redux_kind(p.clamp)) {
        case redux_kind::add:
          reduction += v;
          break;
        case redux_kind::min_signed:
          reduction = std::int32_t(v) < std::int32_t(reduction) ? v : reduction;
          break;
        case redux_kind::max_signed:
          reduction = std::int32_t(v) > std::int32_t(reduction) ? v : reduction;
          break;
        case redux_kind::min_unsigned:
          reduction = v < reduction ? v : reduction;
          break;
        case redux_kind::max_unsigned:
          reduction = v > reduction ? v : reduction;
          break;
        case redux_kind::bit_and:
          reduction &= v;
          break;
        case redux_kind::bit_or:
          reduction |= v;
          break;
        case redux_kind::bit_xor:
          reduction ^= v;
          break;
      }
    }
  }
  int warp_base = int(&w - warps_.data()) * 32;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(p.arrived >> lane & 1)) continue;
    std::uint64_t result = 0;
    if (p.op == warp_op::vote) {
      result = ballot | std::uint64_t(p.arrived) << 32;  // the voters, for __all_sync
    } else if (p.op == warp_op::redux) {
      result = reduction;
    } else if (p.op == warp_op::shfl) {
      int b = int(p.operand[lane] & 31), c = int(p.clamp & 31), segmask = int(p.clamp >> 8 & 31);
      int max_lane = (lane & segmask) | (c & ~segmask), min_lane = lane & segmask;
      int j = lane;
      bool in_range = false;
      switch (p.mode) {
        case shfl_mode::up:
          j = lane - b;
          in_range = j >= max_lane;
          break;
        case shfl_mode::down:
          j = lane + b;
          in_range = j <= max_lane;
          break;
        case shfl_mode::bfly:
          j = lane ^ b;
          in_range = j <= max_lane;
          break;
        case shfl_mode::idx:
          j = min_lane | (b & ~segmask);
          in_range = j <= max_lane;
          break;
      }
      if (!in_range) j = lane;
      // Reading a lane that did not take part is undefined in PTX; the simulator returns the
      // reader's own value.
      result = (p.arrived >> j & 1) ? p.value[j] : p.value[lane];
    }
    fiber& target = fibers_[std::size_t(warp_base + lane)];
    target.collective_result = result;
    if (target.state == fiber_state::blocked) target.state = fiber_state::runnable;
  }
}

inline void cta_runner::try_complete_all(warp_exchange& w) {
  for (std::size_t g = 0; g < w.pending.size();) {
    const pending_collective& p = w.pending[g];
    if ((p.arrived & w.alive) == (p.mask & w.alive) && p.arrived)
      complete(w, g);
    else
      ++g;
  }
}

// __activemask: the lanes that reach it together. Fibers of a warp run one after another, so a
// lane waits until every other live lane of its warp has either reached it too or blocked
// elsewhere (a barrier, another collective); otherwise lanes that ran ahead to the end of the
// kernel would be missing from the mask of converged code.
inline std::uint32_t cta_runner::active_mask() {
  fiber& f = current();
  warp_exchange& w = warps_[f.warp];
  w.active_waiting |= 1u << f.lane;
  try_complete_active(w);
  if (w.active_waiting >> f.lane & 1) block_current();
  return std::uint32_t(f.collective_result);
}

inline void cta_runner::try_complete_active(warp_exchange& w) {
  if (!w.active_waiting) return;
  std::size_t warp_base = std::size_t(&w - warps_.data()) * 32;
  std::uint32_t others = w.alive & ~w.active_waiting;
  for (int lane = 0; lane < 32; ++lane)
    if ((others >> lane & 1) && fibers_[warp_base + std::size_t(lane)].state != fiber_state::blocked)
      return;  // it may still arrive
  std::uint32_t active = w.active_waiting;
  w.active_waiting = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(active >> lane & 1)) continue;
    fiber& target = fibers_[warp_base + std::size_t(lane)];
    target.collective_result = active;
    if (target.state == fiber_state::blocked) target.state = fiber_state::runnable;
  }
}

inline void cta_runner::on_exit(fiber& f) {
  f.state = fiber_state::finished;
  --live_;
  warp_exchange& w = warps_[f.warp];
  w.alive &= ~(1u << f.lane);
  if (aborting_) return;
  // An exited thread no longer holds back a barrier or a warp collective.
  if (waiting_ > 0 && waiting_ == live_) release_barrier();
  try_complete_all(w);
  try_complete_active(w);
}

inline void cta_runner::cancel_all() {
  aborting_ = true;
  for (int i = 0; i < nt_; ++i) {
    fiber& f = fibers_[std::size_t(i)];
    if (f.state == fiber_state::not_started) {
      f.state = fiber_state::finished;
      --live_;
    } else if (f.state != fiber_state::finished) {
      resume(i);  // its blocking call throws fiber_cancel and the fiber unwinds
    }
  }
}

// Static shared memory lives in one arena per runner (per worker thread), reset for every CTA:
// the size of an SM's shared memory on Hopper. (As `static thread_local` variables, CTA storage
// made every thread of a program carry the sum of all its kernels' storage as static TLS: 16 MiB
// in the test binary, more than a thread's stack under AddressSanitizer.)
inline void* cta_runner::static_shared(std::size_t bytes, std::size_t align) {
  constexpr std::size_t arena_bytes = 228 * 1024;
  if (static_shared_.empty()) static_shared_.resize(arena_bytes / sizeof(std::max_align_t));
  std::size_t start = (static_used_ + align - 1) / align * align;
  if (start + bytes > arena_bytes)
    throw kernel_error("mgpu simulator: a CTA's shared memory exceeds " + std::to_string(arena_bytes) + " bytes");
  static_used_ = start + bytes;
  return reinterpret_cast<unsigned char*>(static_shared_.data()) + start;
}

inline void cta_runner::run(launch_job& job, int block) {
  job_ = &job;
  nt_ = job.block;
  block_dim_ = dim3(unsigned(job.block));
  grid_dim_ = dim3(unsigned(job.grid));
  block_idx_ = uint3{unsigned(block), 0, 0};
  std::size_t smem_words = (job.dynamic_shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  if (dynamic_shared_.size() < smem_words) dynamic_shared_.resize(smem_words);
  ++cta_serial_;
  static_used_ = 0;
  while (stacks_.size() < std::size_t(nt_)) stacks_.push_back(std::make_unique<fiber_stack>(stack_size_));
  fibers_.assign(std::size_t(nt_), fiber{});
  int num_warps = (nt_ + 31) / 32;
  warps_.assign(std::size_t(num_warps), warp_exchange{});
  for (int i = 0; i < nt_; ++i) {
    fiber& f = fibers_[std::size_t(i)];
    f.thread_idx = uint3{unsigned(i), 0, 0};
    f.lane = i % 32;
    f.warp = i / 32;
    f.context =
        fctx::make_fcontext(stacks_[std::size_t(i)]->top(), stacks_[std::size_t(i)]->size(), &cta_runner::fiber_entry);
    warps_[std::size_t(f.warp)].alive |= 1u << f.lane;
  }
  live_ = nt_;
  waiting_ = 0;
  phase_ = 0;
  barrier_count_[0] = barrier_count_[1] = 0;
  aborting_ = false;
  error_ = nullptr;

  cta_runner* previous = tls_runner;
  tls_runner = this;
  while (live_ > 0 && !aborting_) {
    bool progressed = false;
    for (int i = 0; i < nt_ && !aborting_; ++i) {
      fiber_state s = fibers_[std::size_t(i)].state;
      if (s == fiber_state::not_started || s == fiber_state::runnable) {
        resume(i);
        progressed = true;
      }
    }
    if (!progressed) {
      error_ = std::make_exception_ptr(
          kernel_error("deadlock in block " + std::to_string(block) +
                       ": threads wait at a barrier or warp collective that the others never reach"));
      break;
    }
  }
  if (live_ > 0) cancel_all();
  tls_runner = previous;
  job_ = nullptr;
  if (error_) job.fail(error_, block);
}

// The persistent worker pool and the launch entry point.
class device {
 public:
  static device& instance() {
    static device d;
    return d;
  }

  int worker_count() const { return int(workers_.size()); }

  // Runs body(tid, block) for every thread of `grid` CTAs of `block` threads each.
  template <typename Body>
  void launch(int grid, int block, std::size_t dynamic_shared_bytes, const Body& body) {
    if (grid <= 0) return;
    if (block <= 0 || block > 1024)
      throw std::invalid_argument("mgpu simulator: block size must be in [1, 1024], got " + std::to_string(block));
    if (tls_runner) throw kernel_error("mgpu simulator: a kernel cannot launch another kernel");
    std::lock_guard<std::mutex> serialize(launch_mutex_);
    launch_job job;
    job.grid = grid;
    job.block = block;
    job.dynamic_shared_bytes = dynamic_shared_bytes;
    job.body = &body;
    job.invoke = [](const void* b, int tid, int cta) { (*static_cast<const Body*>(b))(tid, cta); };
    {
      std::unique_lock<std::mutex> lock(mutex_);
      job_ = &job;
      busy_ = int(workers_.size());
      ++generation_;
      start_.notify_all();
      done_.wait(lock, [&] { return busy_ == 0; });
      job_ = nullptr;
    }
    if (job.error) std::rethrow_exception(job.error);
  }

  ~device() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      start_.notify_all();
    }
    for (std::thread& t : workers_) t.join();
  }

 private:
  device() {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    std::size_t count = env_size("MGPU_SIM_THREADS", hw);
    for (std::size_t i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
  }

  void work() {
    cta_runner runner;
    unsigned long long seen = 0;
    for (;;) {
      launch_job* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      while (!job->aborted.load()) {
        int block = job->next_block.fetch_add(1);
        if (block >= job->grid) break;
        runner.run(*job, block);
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex launch_mutex_, mutex_;
  std::condition_variable start_, done_;
  launch_job* job_ = nullptr;
  unsigned long long generation_ = 0;
  int busy_ = 0;
  bool stop_ = false;
};

}  // namespace detail

// Runs body(tid, block) as a grid of `grid` CTAs of `block` threads on the simulator.
template <typename Body>
void launch(int grid, int block, std::size_t dynamic_shared_bytes, const Body& body) {
  detail::device::instance().launch(grid, block, dynamic_shared_bytes, body);
}

inline detail::cta_runner& runner() {
  if (!detail::tls_runner) throw kernel_error("mgpu simulator: device intrinsic called outside a kernel");
  return *detail::tls_runner;
}

inline void* dynamic_shared_memory() { return runner().dynamic_shared(); }

// The storage of one shared_storage variable in the running CTA: `pointer` and `cta` belong to
// the (thread-local) variable; the first of the CTA's threads to ask takes the bytes from the
// CTA's arena, and every other thread of the CTA (fibers of the same OS thread) gets the same.
inline void* cta_static_shared(std::size_t bytes, std::size_t align, void*& pointer, unsigned long long& cta) {
  detail::cta_runner& r = runner();
  if (cta != r.cta_serial()) {
    pointer = r.static_shared(bytes, align);
    cta = r.cta_serial();
  }
  return pointer;
}

}  // namespace sim
}  // namespace mgpu
