#include <png.h>

// Composite macros of the simplified API do not import into Swift.
static inline png_uint_32 clibpng_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 clibpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 clibpng_image_version(void) { return PNG_IMAGE_VERSION; }
