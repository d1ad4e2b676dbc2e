// expect: nothing (compiles)
// The same calls written right, so that the misuse cases fail for their own reason.
#include <mgpu/mgpu.hpp>
struct record {
  int id;
  float weight;
};
struct positive {
  MGPU_HOST_DEVICE bool operator()(int x) const { return x > 0; }
};
struct by_weight_descending {
  MGPU_HOST_DEVICE bool operator()(const record& a, const record& b) const { return a.weight > b.weight; }
};
void use(int* keys, int* offsets, record* records, long long* bounds, mgpu::context& ctx) {
  mgpu::segmented_sort(keys, 1000, mgpu::segments_by_heads(offsets, 10), mgpu::less<>(), ctx);
  mgpu::mergesort(keys, 1000, mgpu::greater<>(), ctx);
  mgpu::merge(records, 10, records + 10, 10, records + 20, by_weight_descending(), ctx);
  mgpu::sorted_search(keys, 10, keys + 10, 100, bounds, mgpu::less<>(), ctx);
  mgpu::load_balance_search(1000, mgpu::segments_by_heads(offsets, 10), keys, ctx);
  mgpu::set_union<mgpu::launch_params<64, 32>>(keys, 10, keys + 10, 10, keys + 20, mgpu::less<>(), ctx);
  mgpu::segmented_reduce(keys, 1000, mgpu::segments_by_heads(offsets, 10), bounds, 0ll, mgpu::plus<>(), ctx);
  mgpu::reduce_by_key(keys, keys, 1000, keys + 1000, keys + 2000, bounds, mgpu::plus<>(), mgpu::equal_to<>(), ctx);
  mgpu::histogram(keys, 1000, offsets, 10, 0, 100, ctx);
  mgpu::segmented_inclusive_scan(keys, 1000, mgpu::segments_by_heads(offsets, 10), keys, mgpu::plus<>(), ctx);
  mgpu::compact(keys, 1000, keys + 1000, bounds, positive(), ctx);
}
