// expect: key_equal must be callable as key_equal(key, key) and return bool
// Thrust's order (the key predicate, then the operator) in reduce_by_key, whose key_equal comes last.
#include <mgpu/mgpu.hpp>
void misuse(const int* keys, const int* values, int* keys_out, int* values_out, long long* runs, mgpu::context& ctx) {
  mgpu::reduce_by_key(keys, values, 1000, keys_out, values_out, runs, mgpu::equal_to<>(), mgpu::plus<>(), ctx);
}
