// expect: a_output must hold integers
// sorted_search writing its bounds to floats.
#include <mgpu/mgpu.hpp>
void misuse(int* needles, int* haystack, float* bounds, mgpu::context& ctx) {
  mgpu::sorted_search(needles, 10, haystack, 100, bounds, mgpu::less<>(), ctx);
}
