// Debian's libhiredis-dev (0.14): the blocking client the cluster registry talks to Redis with.
#include <hiredis/hiredis.h>
