// Scans 1..1000 through an installed or embedded mgpu (on the simulator from a C++ compiler, on
// the GPU from nvcc: main.cu); exit code 0 if right.
#include <mgpu/mgpu.hpp>

#include <cstdio>

int main() {
  mgpu::context ctx;
  mgpu::buffer<long long> sums(1000, ctx), total(1, ctx);
  mgpu::inclusive_scan(mgpu::make_counting_iterator<long long>(1), 1000, sums.data(), mgpu::plus<>(), total.data(),
                       ctx);
  std::vector<long long> host = sums.to_host();
  bool ok = host[999] == 500500 && host[9] == 55 && total.to_host()[0] == 500500;
  std::printf("consumer: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
