// jemalloc, linked into the `sluice` executable only: it becomes the process's malloc (it
// comes before libc in the executable's needed libraries), so every library's allocations go
// to it. Why: docs/design.md, "Memory under churn". Only the control interface is declared
// here; malloc and free keep their libc declarations.
#include <stddef.h>

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
