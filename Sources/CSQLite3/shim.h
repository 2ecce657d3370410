#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro and does not import into Swift.
static inline sqlite3_destructor_type csqlite3_transient(void) { return SQLITE_TRANSIENT; }
