// Debian's libsqlite3-dev (3.40): the call log's embedded database.
#include <sqlite3.h>
