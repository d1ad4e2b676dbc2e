// expect: take their segments as mgpu::segments_by_heads
// Load-balancing search over segments described by head flags.
#include <mgpu/mgpu.hpp>
void misuse(const unsigned* flags, int* segment_of, mgpu::context& ctx) {
  mgpu::load_balance_search(1000, mgpu::segments_by_flags(flags), segment_of, ctx);
}
