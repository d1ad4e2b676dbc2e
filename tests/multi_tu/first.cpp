// tests/multi_tu/first.cpp: one of two source files that sort segments by flags. The library's
// headers once defined extended __host__ __device__ lambdas on that path, which nvcc type-erases
// behind host function pointers filled in per translation unit: a program that called into the
// other file first crashed. main() runs the two files' sorts in the order its argument names.
#include "sort_by_flags.hpp"

#include <cstring>

bool sort_in_second();

static bool sort_in_first() {
  flags_case c("first.cpp", 100000, 77);
  mgpu::segmented_sort(c.keys.data(), c.n, mgpu::segments_by_flags(c.flags.data()), mgpu::less<>(), c.ctx);
  return c.check();
}

int main(int argc, char** argv) {
  bool second_first = argc > 1 && std::strcmp(argv[1], "second-first") == 0;
  bool ok = second_first ? sort_in_second() && sort_in_first() : sort_in_first() && sort_in_second();
  return ok ? 0 : 1;
}
