// Debian's libpq-dev (PostgreSQL 15): the call log's client for PostgreSQL, shared by a cluster.
#include <libpq-fe.h>
