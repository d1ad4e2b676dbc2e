// expect: must be a segment description
// A raw CSR offsets pointer where a segment description is expected.
#include <mgpu/mgpu.hpp>
void misuse(int* keys, int* offsets, mgpu::context& ctx) {
  mgpu::segmented_sort(keys, 1000, offsets, mgpu::less<>(), ctx);
}
