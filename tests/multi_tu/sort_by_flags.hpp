// tests/multi_tu/sort_by_flags.hpp: the input and the check of a segmented sort by head flags.
// Each source file of the program makes the sort call itself, as two files of a user's program
// would.
#pragma once

#include <mgpu/mgpu.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

// `n` pseudo-random keys in segments of `segment` (a head flag every `segment` elements), on the
// device; check() compares them with per-segment std::sort of the input.
struct flags_case {
  const char* who;
  int n, segment;
  std::vector<int> input;
  mgpu::context ctx;
  mgpu::buffer<int> keys;
  mgpu::buffer<unsigned> flags;

  flags_case(const char* source, int count, int segment_size) : who(source), n(count), segment(segment_size) {
    unsigned x = 12345u + unsigned(segment);
    for (int i = 0; i < n; ++i) input.push_back(int((x = x * 1664525u + 1013904223u) >> 20));
    std::vector<unsigned> head_flags(std::size_t(n / 32 + 1), 0u);
    for (int h = 0; h < n; h += segment) head_flags[std::size_t(h / 32)] |= 1u << (h % 32);
    keys = mgpu::buffer<int>(input, ctx);
    flags = mgpu::buffer<unsigned>(head_flags, ctx);
  }

  bool check() {
    std::vector<int> expected = input;
    for (int h = 0; h < n; h += segment) std::sort(expected.begin() + h, expected.begin() + std::min(n, h + segment));
    bool ok = keys.to_host() == expected;
    std::printf("%s: segmented sort by flags of %d keys in segments of %d: %s\n", who, n, segment, ok ? "ok" : "WRONG");
    return ok;
  }
};
