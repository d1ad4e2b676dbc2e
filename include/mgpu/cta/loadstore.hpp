// mgpu/cta/loadstore.hpp
//
// Moving a tile of NV = NT * VT values between global memory, shared memory and registers.
// Two register orders:
//   strided: value i of thread tid is tile element NT * i + tid (coalesced global access);
//   thread:  value i of thread tid is tile element VT * tid + i (what serial per-thread code wants).
// The *_thread global functions transpose through shared memory (NV values of scratch). `count`
// is the number of valid tile elements; with count < NV only those are read or written. Every
// function that writes shared memory ends with a barrier, so its caller may read it at once, and
// every function that reads shared memory into registers ends with a barrier, so the caller may
// overwrite it at once.
#pragma once

#include "../core/types.hpp"

namespace mgpu {

template <int NT, int VT, typename T, typename It>
MGPU_DEVICE array_t<T, VT> mem_to_reg_strided(It input, int tid, int count) {
  array_t<T, VT> x;
  if (count >= NT * VT) {
MGPU_UNROLL
    for (int i = 0; i < VT; ++i) x[i] = input[NT * i + tid];
  } else {
MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < count) x[i] = input[NT * i + tid];
  }
  return x;
}

template <int NT, int VT, typename T, typename It>
MGPU_DEVICE void reg_to_mem_strided(const array_t<T, VT>& x, It output, int tid, int count) {
  if (count >= NT * VT) {
MGPU_UNROLL
    for (int i = 0; i < VT; ++i) output[NT * i + tid] = x[i];
  } else {
MGPU_UNROLL
    for (int i = 0; i < VT; ++i)
      if (NT * i + tid < count) output[NT * i + tid] = x[i];
  }
}

template <int NT, int VT, typename T>
MGPU_DEVICE void reg_to_shared_strided(const array_t<T, VT>& x, int tid, T* shared) {
MGPU_UNROLL
  for (int i = 0; i < VT; ++i) shared[NT * i + tid] = x[i];
  __syncthreads();
}

template <int NT, int VT, typename T>
MGPU_DEVICE array_t<T, VT> shared_to_reg_strided(const T* shared, int tid) {
  array_t<T, VT> x;
MGPU_UNROLL
  for (int i = 0; i < VT; ++i) x[i] = shared[NT * i + tid];
  __syncthreads();
  return x;
}

template <int VT, typename T>
MGPU_DEVICE void reg_to_shared_thread(const array_t<T, VT>& x, int tid, T* shared) {
MGPU_UNROLL
  for (int i = 0; i < VT; ++i) shared[VT * tid + i] = x[i];
  __syncthreads();
}

template <int VT, typename T>
MGPU_DEVICE array_t<T, VT> shared_to_reg_thread(const T* shared, int tid) {
  array_t<T, VT> x;
MGPU_UNROLL
  for (int i = 0; i < VT; ++i) x[i] = shared[VT * tid + i];
  __syncthreads();
  return x;
}

// Global -> registers in thread order, through `shared` (NT * VT values).
template <int NT, int VT, typename T, typename It>
MGPU_DEVICE array_t<T, VT> mem_to_reg_thread(It input, int tid, int count, T* shared) {
  array_t<T, VT> x = mem_to_reg_strided<NT, VT, T>(input, tid, count);
  reg_to_shared_strided<NT, VT>(x, tid, shared);
  return shared_to_reg_thread<VT>(shared, tid);
}

// Registers in thread order -> global, through `shared` (NT * VT values).
template <int NT, int VT, typename T, typename It>
MGPU_DEVICE void reg_to_mem_thread(const array_t<T, VT>& x, It output, int tid, int count, T* shared) {
  reg_to_shared_thread<VT>(x, tid, shared);
  array_t<T, VT> y = shared_to_reg_strided<NT, VT>(shared, tid);
  reg_to_mem_strided<NT, VT>(y, output, tid, count);
}

}  // namespace mgpu
