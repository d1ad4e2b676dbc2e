// expect: must be a segment description
// A segmented scan given raw CSR offsets instead of a segment description.
#include <mgpu/mgpu.hpp>
void misuse(int* values, int* offsets, int* sums, mgpu::context& ctx) {
  mgpu::segmented_inclusive_scan(values, 1000, offsets, sums, mgpu::plus<>(), ctx);
}
