// expect: take their segments as mgpu::segments_by_heads
// A segmented reduction that numbers its segments (lbs_segreduce's f gets the segment) over flags.
#include <mgpu/mgpu.hpp>
struct segment_number {
  MGPU_HOST_DEVICE long long operator()(long long, long long segment, long long) const { return segment; }
};
void misuse(const unsigned* flags, long long* sums, mgpu::context& ctx) {
  mgpu::lbs_segreduce(segment_number(), 1000, mgpu::segments_by_flags(flags), sums, 0ll, mgpu::plus<>(), ctx);
}
