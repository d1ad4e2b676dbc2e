// expect: a set operation's tuning takes at most 32 values per thread
// A set operation tuned with 33 values per thread (each thread keeps one bit per step in 32 bits).
#include <mgpu/mgpu.hpp>
void misuse(const int* a, const int* b, int* out, mgpu::context& ctx) {
  mgpu::set_union<mgpu::launch_params<64, 33>>(a, 10, b, 10, out, mgpu::less<>(), ctx);
}
