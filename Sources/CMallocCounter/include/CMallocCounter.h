// Counts heap allocations made by threads that opted in, for the test that holds the
// forwarding path at zero allocations per packet (docs/design.md hot-path rule 1). Linked only
// into test executables: it interposes malloc and friends for the whole process.
#ifndef SLUICE_MALLOC_COUNTER_H
#define SLUICE_MALLOC_COUNTER_H

// Starts or stops counting the calling thread's allocations.
void sluice_malloc_counting(int on);
// Allocations counted so far, over every counting thread.
unsigned long sluice_malloc_count(void);
void sluice_malloc_reset(void);
// While on, the calling thread's allocations go to the "excluded" count instead
// (an outside library's, e.g. libsrtp's crypto backend).
void sluice_malloc_exclude(int on);
unsigned long sluice_malloc_excluded_count(void);

#endif
