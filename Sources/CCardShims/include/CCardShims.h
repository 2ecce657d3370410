// The share card's drawing: a review's title, stars and category set by Pango (HarfBuzz shapes
// right-to-left scripts, Chinese and Japanese, colour emoji) and drawn by Cairo over a cover.
//
// Pango and Cairo are not linked: ccardshims_render opens libpangocairo, libpango, libcairo and
// libgobject with dlopen the first time a card is drawn, since with them come GLib, HarfBuzz,
// fontconfig and FreeType, whose loading would cost every command a few milliseconds and a few
// MiB whether it draws a card or not. No Pango or Cairo type crosses this header: the card goes
// in as plain values, and its pixels come out as RGB bytes.
#ifndef CCARDSHIMS_H
#define CCARDSHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a card shows. Colours are 0xRRGGBB; text is UTF-8, NUL-terminated.
struct ccardshims_card {
  /// The card's size in pixels.
  int width;
  int height;
  /// The cover, already `width` × `height`, upright and sRGB, rows of `cover_channels` bytes a
  /// pixel (3: RGB; 4: RGBA, not premultiplied, drawn over `background`); NULL for a card
  /// without a picture, drawn in the site's colours.
  const uint8_t *cover;
  int cover_channels;
  const char *title;
  /// The category as it reads ("Movie"), and the site's name.
  const char *category;
  const char *site;
  /// Stars, 0 to 5: as many filled, the rest of five hollow.
  int rating;
  uint32_t background;
  uint32_t foreground;
  uint32_t muted;
  uint32_t star;
  uint32_t accent;
};

/// What the layout came to, for tests and for the caller's judgement.
struct ccardshims_result {
  /// The title's lines (at most 3) and whether its end was cut for an ellipsis.
  int title_lines;
  int title_ellipsized;
  /// Whether the title runs right to left (its first strong character is Arabic, Hebrew, …).
  int title_right_to_left;
  /// Characters no installed font has, drawn as boxes ("tofu"), in all the card's text.
  int unknown_glyphs;
};

/// Opens Pango and Cairo and finds their functions, once for the process; safe from any
/// thread. Returns 0, or -1 when a library or one of its functions is missing
/// (ccardshims_load_error() says which). ccardshims_render calls it.
int ccardshims_load(void);

/// What went wrong in ccardshims_load(), or "" when nothing did.
const char *ccardshims_load_error(void);

/// Draws `card` and writes its pixels to `rgb_out` (width × height × 3 bytes, rows top to
/// bottom, no padding). Returns 0, or -1 with a one-line reason in `error`. Safe from any
/// thread: each thread keeps Pango's font map of its own.
int ccardshims_render(const struct ccardshims_card *card, uint8_t *rgb_out, struct ccardshims_result *result,
                      char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
