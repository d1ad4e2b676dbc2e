// mgpu/mgpu.hpp: the whole library.
#pragma once

#include "platform/config.hpp"
#include "platform/error.hpp"
#include "platform/intrinsics.hpp"
#include "platform/launch.hpp"
#include "platform/memory.hpp"

#include "core/buffer.hpp"
#include "core/checks.hpp"
#include "core/context.hpp"
#include "core/cta_launch.hpp"
#include "core/iterators.hpp"
#include "core/launch_params.hpp"
#include "core/operators.hpp"
#include "core/types.hpp"

#include "cta/cta_reduce.hpp"
#include "cta/cta_sort.hpp"
#include "cta/cta_scan.hpp"
#include "cta/loadstore.hpp"
#include "cta/lookback.hpp"
#include "cta/merge.hpp"
#include "cta/search.hpp"
#include "cta/sort_networks.hpp"

#include "algorithms/reduce.hpp"
#include "algorithms/scan.hpp"
#include "algorithms/merge.hpp"
#include "algorithms/mergesort.hpp"
#include "algorithms/bulk_remove.hpp"
#include "algorithms/bulk_insert.hpp"
#include "algorithms/partition.hpp"
