// tests/multi_tu/second.cu: second.cpp compiled by nvcc.
#include "second.cpp"
