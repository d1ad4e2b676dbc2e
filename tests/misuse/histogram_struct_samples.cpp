// expect: mgpu::histogram: samples must be integers or floating point
// A histogram of records instead of numbers.
#include <mgpu/mgpu.hpp>
struct record {
  int id;
  float weight;
};
void misuse(record* records, int* bins, mgpu::context& ctx) { mgpu::histogram(records, 1000, bins, 10, 0, 100, ctx); }
