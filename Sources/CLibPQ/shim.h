// libpq-fe.h is in /usr/include/postgresql, which pkg-config's `libpq` puts on the include path.
#include <libpq-fe.h>
