#ifndef STRATA_BENCH_ALLOCATION_COUNTER_H
#define STRATA_BENCH_ALLOCATION_COUNTER_H

#include <stdint.h>

/// The number of heap allocations (malloc, calloc, realloc of NULL, posix_memalign,
/// aligned_alloc, memalign) made by every thread of this process since it started.
uint64_t strata_bench_allocation_count(void);

#endif
