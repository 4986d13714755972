#define _GNU_SOURCE 1
#include "CMallocCounter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

// glibc's own entry points, which these wrappers forward to.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Thread_local int counting;
static _Thread_local int excluding;
static atomic_ulong allocations;
static atomic_ulong excluded;

static inline void note(void) {
    if (!counting) return;
    atomic_fetch_add_explicit(excluding ? &excluded : &allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { note(); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }

void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    note();
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *out = pointer;
    return 0;
}

void sluice_malloc_counting(int on) { counting = on; }
unsigned long sluice_malloc_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
void sluice_malloc_reset(void) {
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&excluded, 0, memory_order_relaxed);
}
void sluice_malloc_exclude(int on) { excluding = on; }
unsigned long sluice_malloc_excluded_count(void) { return atomic_load_explicit(&excluded, memory_order_relaxed); }
