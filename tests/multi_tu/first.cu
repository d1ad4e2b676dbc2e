// tests/multi_tu/first.cu: first.cpp compiled by nvcc.
#include "first.cpp"
