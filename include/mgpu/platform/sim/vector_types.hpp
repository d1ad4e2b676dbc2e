// mgpu/platform/sim/vector_types.hpp
//
// The CUDA vector types (int2, float4, ...) and dim3 for the simulator, with CUDA's sizes and
// alignments so that code reinterpreting memory as vectors behaves as on the device.
#pragma once

#include <cstdint>

#define MGPU_SIM_VECTOR2(name, type, align) \
  struct alignas(align) name {              \
    type x, y;                              \
  };                                        \
  inline name make_##name(type x, type y) { return name{x, y}; }
#define MGPU_SIM_VECTOR3(name, type) \
  struct name {                      \
    type x, y, z;                    \
  };                                 \
  inline name make_##name(type x, type y, type z) { return name{x, y, z}; }
#define MGPU_SIM_VECTOR4(name, type, align) \
  struct alignas(align) name {              \
    type x, y, z, w;                        \
  };                                        \
  inline name make_##name(type x, type y, type z, type w) { return name{x, y, z, w}; }

MGPU_SIM_VECTOR2(char2, signed char, 2)
MGPU_SIM_VECTOR2(uchar2, unsigned char, 2)
MGPU_SIM_VECTOR4(char4, signed char, 4)
MGPU_SIM_VECTOR4(uchar4, unsigned char, 4)
MGPU_SIM_VECTOR2(short2, short, 4)
MGPU_SIM_VECTOR2(ushort2, unsigned short, 4)
MGPU_SIM_VECTOR4(short4, short, 8)
MGPU_SIM_VECTOR4(ushort4, unsigned short, 8)
MGPU_SIM_VECTOR2(int2, int, 8)
MGPU_SIM_VECTOR3(int3, int)
MGPU_SIM_VECTOR4(int4, int, 16)
MGPU_SIM_VECTOR2(uint2, unsigned int, 8)
MGPU_SIM_VECTOR3(uint3, unsigned int)
MGPU_SIM_VECTOR4(uint4, unsigned int, 16)
MGPU_SIM_VECTOR2(float2, float, 8)
MGPU_SIM_VECTOR3(float3, float)
MGPU_SIM_VECTOR4(float4, float, 16)
MGPU_SIM_VECTOR2(longlong2, long long, 16)
MGPU_SIM_VECTOR2(ulonglong2, unsigned long long, 16)
MGPU_SIM_VECTOR2(double2, double, 16)

#undef MGPU_SIM_VECTOR2
#undef MGPU_SIM_VECTOR3
#undef MGPU_SIM_VECTOR4

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};
