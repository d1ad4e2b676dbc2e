// tests/multi_tu/second.cpp: the other source file of first.cpp's program.
#include "sort_by_flags.hpp"

bool sort_in_second() {
  flags_case c("second.cpp", 70001, 300);
  mgpu::segmented_sort(c.keys.data(), c.n, mgpu::segments_by_flags(c.flags.data()), mgpu::less<>(), c.ctx);
  return c.check();
}
