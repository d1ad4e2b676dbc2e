// expect: mgpu::compact: the predicate 'pred' must be callable as pred(value)
// A comparator (two arguments) where compact takes a predicate of one value.
#include <mgpu/mgpu.hpp>
void misuse(int* values, int* kept, long long* count, mgpu::context& ctx) {
  mgpu::compact(values, 1000, kept, count, mgpu::less<>(), ctx);
}
