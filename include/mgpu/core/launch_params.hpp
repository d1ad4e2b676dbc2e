// mgpu/core/launch_params.hpp
//
// A kernel's shape: NT threads per CTA, VT values per thread (NV = NT * VT per tile), and an
// optional minimum number of resident CTAs per SM. Every algorithm has a default per
// architecture and takes an override as its first template argument.
#pragma once

#include <type_traits>

#ifndef MGPU_TUNING_ARCH
  // The architecture whose tuning tables the defaults come from (90: Hopper). A build for another
  // architecture can define it (-DMGPU_TUNING_ARCH=80, say) to take that architecture's entries.
  #define MGPU_TUNING_ARCH 90
#endif

namespace mgpu {

template <int NT, int VT, int MIN_CTAS = 0>
struct launch_params {
  static_assert(NT > 0 && NT <= 1024 && NT % 32 == 0, "NT must be a multiple of 32 in [32, 1024]");
  static_assert(VT > 0, "VT must be positive");
  static constexpr int nt = NT;
  static constexpr int vt = VT;
  static constexpr int nv = NT * VT;
  static constexpr int min_ctas = MIN_CTAS;
};

// Chooses between a table entry for Hopper (sm_90 and newer) and one for older GPUs.
template <typename before_sm90, typename sm90>
using arch_params = std::conditional_t<(MGPU_TUNING_ARCH >= 90), sm90, before_sm90>;

// An algorithm's template argument `params`: void selects its default.
template <typename given, typename fallback>
using params_or = std::conditional_t<std::is_void<given>::value, fallback, given>;

}  // namespace mgpu
