#include <lcms2.h>

// The pixel-format macros are composite (shifts and ors) and do not import into Swift.
static inline cmsUInt32Number clcms2_type_rgb_8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number clcms2_type_rgba_8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number clcms2_type_cmyk_8(void) { return TYPE_CMYK_8; }
static inline cmsUInt32Number clcms2_type_cmyk_8_rev(void) { return TYPE_CMYK_8_REV; }
/// Gray read from the first of three samples (a gray picture expanded to RGB).
static inline cmsUInt32Number clcms2_type_gray_in_rgb_8(void) {
  return COLORSPACE_SH(PT_GRAY) | EXTRA_SH(2) | CHANNELS_SH(1) | BYTES_SH(1);
}
/// Gray read from the first of four samples, the fourth being alpha (gray expanded to RGBA).
static inline cmsUInt32Number clcms2_type_gray_in_rgba_8(void) {
  return COLORSPACE_SH(PT_GRAY) | EXTRA_SH(3) | CHANNELS_SH(1) | BYTES_SH(1);
}
