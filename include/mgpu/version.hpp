// mgpu/version.hpp
//
// The library's version. CMake reads it from here (project(mgpu VERSION ...)), so the header and
// the installed package always agree. MGPU_VERSION is major * 10000 + minor * 100 + patch.
#pragma once

#define MGPU_VERSION_MAJOR 0
#define MGPU_VERSION_MINOR 2
#define MGPU_VERSION_PATCH 0
#define MGPU_VERSION (MGPU_VERSION_MAJOR * 10000 + MGPU_VERSION_MINOR * 100 + MGPU_VERSION_PATCH)
