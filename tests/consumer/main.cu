// The consumer of main.cpp, compiled by nvcc against mgpu::mgpu.
#include "main.cpp"
