// tests/references/reduce_scan.hpp: serial CPU references for reduce and scan.
#pragma once

#include <cstdint>
#include <vector>

namespace mgpu_ref {

template <typename T, typename In, typename Op>
T reduce(const std::vector<In>& input, T init, Op op) {
  T acc = init;
  for (const In& x : input) acc = op(acc, T(x));
  return acc;
}

// output[i] = init op input[0] op ... op input[i - 1]
template <typename T, typename In, typename Op>
std::vector<T> exclusive_scan(const std::vector<In>& input, T init, Op op) {
  std::vector<T> out(input.size());
  T acc = init;
  for (std::size_t i = 0; i < input.size(); ++i) {
    out[i] = acc;
    acc = op(acc, T(input[i]));
  }
  return out;
}

// output[i] = input[0] op ... op input[i]
template <typename T, typename Op>
std::vector<T> inclusive_scan(const std::vector<T>& input, Op op) {
  std::vector<T> out(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) out[i] = i ? op(out[i - 1], input[i]) : input[i];
  return out;
}

}  // namespace mgpu_ref
