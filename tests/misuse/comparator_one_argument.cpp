// expect: must be callable as comp(key, key)
// A comparator that takes one key.
#include <mgpu/mgpu.hpp>
struct is_negative {
  MGPU_HOST_DEVICE bool operator()(int a) const { return a < 0; }
};
void misuse(int* keys, mgpu::context& ctx) { mgpu::mergesort(keys, 1000, is_negative(), ctx); }
