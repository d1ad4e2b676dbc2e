// expect: must be callable as comp(key, key)
// less<> on a key type that has no operator<.
#include <mgpu/mgpu.hpp>
struct record {
  int id;
  float weight;
};
void misuse(record* keys, mgpu::context& ctx) { mgpu::merge(keys, 10, keys + 10, 10, keys + 20, mgpu::less<>(), ctx); }
