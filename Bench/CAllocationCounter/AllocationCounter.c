// Counts heap allocations for strata-bench, the only executable linked with this file.
//
// glibc 2.34 removed the malloc hooks and mallinfo2 counts bytes, not calls, so the bench
// defines the allocation functions itself: a definition in the executable interposes libc's for
// every shared library (libswiftCore, Foundation, libssl), and each one counts, then forwards to
// the __libc_* entry points glibc exports for exactly this purpose. free is not wrapped.
#include "CAllocationCounter.h"

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t allocations;

static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

uint64_t strata_bench_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}

// A realloc that grows in place is not a new allocation; one of NULL is.
void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) count();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: a power of two multiple of sizeof(void *), else EINVAL and *result untouched.
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
