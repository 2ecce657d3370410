#include <zlib.h>

// inflateInit is a macro over inflateInit_ and does not import into Swift.
static inline int czlib_inflate_init(z_stream *stream) { return inflateInit(stream); }
