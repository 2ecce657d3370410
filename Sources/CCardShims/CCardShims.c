#include "CCardShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Pango's and Cairo's headers need GLib's include folders, which pkg-config knows and a
// package's C target cannot be given; the few types and constants used here are declared as
// the libraries define them (pango 1.50, cairo 1.16), the types opaque.
typedef struct ccardshims_cairo cairo_t;
typedef struct ccardshims_cairo_surface cairo_surface_t;
typedef struct ccardshims_cairo_pattern cairo_pattern_t;
typedef struct ccardshims_cairo_font_options cairo_font_options_t;
typedef struct ccardshims_pango_layout PangoLayout;
typedef struct ccardshims_pango_layout_line PangoLayoutLine;
typedef struct ccardshims_pango_context PangoContext;
typedef struct ccardshims_pango_font_description PangoFontDescription;

enum {
  CAIRO_STATUS_SUCCESS = 0,
  CAIRO_FORMAT_ARGB32 = 0,
  CAIRO_ANTIALIAS_GRAY = 2,
  CAIRO_HINT_STYLE_NONE = 1,
  CAIRO_HINT_METRICS_OFF = 1,
  PANGO_SCALE = 1024,
  PANGO_WRAP_WORD_CHAR = 2,
  PANGO_ELLIPSIZE_NONE = 0,
  PANGO_ELLIPSIZE_END = 3,
  PANGO_ALIGN_LEFT = 0,
  PANGO_ALIGN_RIGHT = 2,
  PANGO_DIRECTION_RTL = 1,
};

static pthread_once_t ccardshims_once = PTHREAD_ONCE_INIT;
static int ccardshims_status = -1;
static char ccardshims_error[256] = "";

static cairo_surface_t *(*p_cairo_image_surface_create)(int format, int width, int height);
static unsigned char *(*p_cairo_image_surface_get_data)(cairo_surface_t *surface);
static int (*p_cairo_image_surface_get_stride)(cairo_surface_t *surface);
static int (*p_cairo_surface_status)(cairo_surface_t *surface);
static void (*p_cairo_surface_flush)(cairo_surface_t *surface);
static void (*p_cairo_surface_mark_dirty)(cairo_surface_t *surface);
static void (*p_cairo_surface_destroy)(cairo_surface_t *surface);
static cairo_t *(*p_cairo_create)(cairo_surface_t *target);
static int (*p_cairo_status)(cairo_t *cr);
static const char *(*p_cairo_status_to_string)(int status);
static void (*p_cairo_destroy)(cairo_t *cr);
static void (*p_cairo_set_source_rgb)(cairo_t *cr, double red, double green, double blue);
static void (*p_cairo_set_source_rgba)(cairo_t *cr, double red, double green, double blue, double alpha);
static void (*p_cairo_set_source)(cairo_t *cr, cairo_pattern_t *source);
static void (*p_cairo_paint)(cairo_t *cr);
static void (*p_cairo_rectangle)(cairo_t *cr, double x, double y, double width, double height);
static void (*p_cairo_fill)(cairo_t *cr);
static void (*p_cairo_move_to)(cairo_t *cr, double x, double y);
static cairo_pattern_t *(*p_cairo_pattern_create_linear)(double x0, double y0, double x1, double y1);
static void (*p_cairo_pattern_add_color_stop_rgba)(cairo_pattern_t *pattern, double offset, double red, double green,
                                                   double blue, double alpha);
static void (*p_cairo_pattern_destroy)(cairo_pattern_t *pattern);
static cairo_font_options_t *(*p_cairo_font_options_create)(void);
static void (*p_cairo_font_options_set_antialias)(cairo_font_options_t *options, int antialias);
static void (*p_cairo_font_options_set_hint_style)(cairo_font_options_t *options, int hint_style);
static void (*p_cairo_font_options_set_hint_metrics)(cairo_font_options_t *options, int hint_metrics);
static void (*p_cairo_font_options_destroy)(cairo_font_options_t *options);

static PangoLayout *(*p_pango_cairo_create_layout)(cairo_t *cr);
static void (*p_pango_cairo_show_layout)(cairo_t *cr, PangoLayout *layout);
static void (*p_pango_cairo_context_set_font_options)(PangoContext *context, const cairo_font_options_t *options);
static PangoContext *(*p_pango_layout_get_context)(PangoLayout *layout);
static void (*p_pango_layout_context_changed)(PangoLayout *layout);
static void (*p_pango_layout_set_text)(PangoLayout *layout, const char *text, int length);
static void (*p_pango_layout_set_font_description)(PangoLayout *layout, const PangoFontDescription *desc);
static void (*p_pango_layout_set_width)(PangoLayout *layout, int width);
static void (*p_pango_layout_set_height)(PangoLayout *layout, int height);
static void (*p_pango_layout_set_wrap)(PangoLayout *layout, int wrap);
static void (*p_pango_layout_set_ellipsize)(PangoLayout *layout, int ellipsize);
static void (*p_pango_layout_set_alignment)(PangoLayout *layout, int alignment);
static void (*p_pango_layout_set_auto_dir)(PangoLayout *layout, int auto_dir);
static void (*p_pango_layout_set_single_paragraph_mode)(PangoLayout *layout, int setting);
static void (*p_pango_layout_get_pixel_size)(PangoLayout *layout, int *width, int *height);
static int (*p_pango_layout_get_baseline)(PangoLayout *layout);
static int (*p_pango_layout_get_line_count)(PangoLayout *layout);
static int (*p_pango_layout_is_ellipsized)(PangoLayout *layout);
static int (*p_pango_layout_get_unknown_glyphs_count)(PangoLayout *layout);
static PangoLayoutLine *(*p_pango_layout_get_line_readonly)(PangoLayout *layout, int line);
static int (*p_pango_layout_line_get_resolved_direction)(PangoLayoutLine *line);
static PangoFontDescription *(*p_pango_font_description_from_string)(const char *text);
static void (*p_pango_font_description_set_absolute_size)(PangoFontDescription *desc, double size);
static void (*p_pango_font_description_free)(PangoFontDescription *desc);
static void (*p_g_object_unref)(void *object);

static void *ccardshims_find(void *library, const char *library_name, const char *name) {
  void *symbol = library ? dlsym(library, name) : NULL;
  if (symbol == NULL && ccardshims_error[0] == '\0') {
    snprintf(ccardshims_error, sizeof ccardshims_error, "%s has no %s", library_name, name);
  }
  return symbol;
}

static void *ccardshims_open_library(const char *name) {
  if (ccardshims_error[0] != '\0') return NULL;
  // RTLD_LOCAL: nothing of these libraries becomes visible to the rest of the process.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(ccardshims_error, sizeof ccardshims_error, "%s", reason ? reason : name);
  }
  return library;
}

#define CCARDSHIMS_FIND(library, library_name, function) \
  *(void **)&p_##function = ccardshims_find(library, library_name, #function)

static void ccardshims_open(void) {
  void *cairo = ccardshims_open_library("libcairo.so.2");
  void *gobject = ccardshims_open_library("libgobject-2.0.so.0");
  void *pango = ccardshims_open_library("libpango-1.0.so.0");
  void *pangocairo = ccardshims_open_library("libpangocairo-1.0.so.0");
  if (ccardshims_error[0] != '\0') return;
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_image_surface_create);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_image_surface_get_data);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_image_surface_get_stride);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_surface_status);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_surface_flush);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_surface_mark_dirty);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_surface_destroy);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_create);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_status);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_status_to_string);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_destroy);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_set_source_rgb);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_set_source_rgba);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_set_source);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_paint);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_rectangle);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_fill);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_move_to);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_pattern_create_linear);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_pattern_add_color_stop_rgba);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_pattern_destroy);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_font_options_create);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_font_options_set_antialias);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_font_options_set_hint_style);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_font_options_set_hint_metrics);
  CCARDSHIMS_FIND(cairo, "libcairo", cairo_font_options_destroy);
  CCARDSHIMS_FIND(pangocairo, "libpangocairo", pango_cairo_create_layout);
  CCARDSHIMS_FIND(pangocairo, "libpangocairo", pango_cairo_show_layout);
  CCARDSHIMS_FIND(pangocairo, "libpangocairo", pango_cairo_context_set_font_options);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_context);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_context_changed);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_text);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_font_description);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_width);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_height);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_wrap);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_ellipsize);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_alignment);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_auto_dir);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_set_single_paragraph_mode);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_pixel_size);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_baseline);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_line_count);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_is_ellipsized);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_unknown_glyphs_count);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_get_line_readonly);
  CCARDSHIMS_FIND(pango, "libpango", pango_layout_line_get_resolved_direction);
  CCARDSHIMS_FIND(pango, "libpango", pango_font_description_from_string);
  CCARDSHIMS_FIND(pango, "libpango", pango_font_description_set_absolute_size);
  CCARDSHIMS_FIND(pango, "libpango", pango_font_description_free);
  CCARDSHIMS_FIND(gobject, "libgobject", g_object_unref);
  ccardshims_status = ccardshims_error[0] == '\0' ? 0 : -1;
}

int ccardshims_load(void) {
  pthread_once(&ccardshims_once, ccardshims_open);
  return ccardshims_status;
}

const char *ccardshims_load_error(void) { return ccardshims_error; }

// MARK: Drawing

/// The margin around everything, and the sizes of the text, in pixels of a 1200 × 630 card
/// (scaled with the card's width).
static const double ccardshims_margin = 64;
static const double ccardshims_title_size = 68;
static const double ccardshims_long_title_size = 56;
static const double ccardshims_meta_size = 34;
static const double ccardshims_site_size = 30;
static const int ccardshims_title_lines = 3;

static double ccardshims_channel(uint32_t colour, int shift) { return (double)((colour >> shift) & 0xff) / 255.0; }

static void ccardshims_set_colour(cairo_t *cr, uint32_t colour) {
  p_cairo_set_source_rgb(cr, ccardshims_channel(colour, 16), ccardshims_channel(colour, 8), ccardshims_channel(colour, 0));
}

/// A layout of `text` in `font` at `size` pixels, with the card's font options (grey
/// antialiasing, no hinting: the same shapes whatever the system's fontconfig prefers).
static PangoLayout *ccardshims_layout(cairo_t *cr, const cairo_font_options_t *options, const char *font, double size,
                                      const char *text) {
  PangoLayout *layout = p_pango_cairo_create_layout(cr);
  if (layout == NULL) return NULL;
  p_pango_cairo_context_set_font_options(p_pango_layout_get_context(layout), options);
  p_pango_layout_context_changed(layout);
  PangoFontDescription *description = p_pango_font_description_from_string(font);
  p_pango_font_description_set_absolute_size(description, size * PANGO_SCALE);
  p_pango_layout_set_font_description(layout, description);
  p_pango_font_description_free(description);
  p_pango_layout_set_single_paragraph_mode(layout, 1);
  p_pango_layout_set_text(layout, text, -1);
  return layout;
}

/// The title, wrapped to `width` pixels and at most three lines, its end ellipsized; each
/// paragraph's direction from its first strong character, so that Arabic and Hebrew run right
/// to left and align right.
static PangoLayout *ccardshims_title_layout(cairo_t *cr, const cairo_font_options_t *options, const char *title,
                                            double size, double width) {
  PangoLayout *layout = ccardshims_layout(cr, options, "DejaVu Sans Bold", size, title);
  if (layout == NULL) return NULL;
  p_pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
  p_pango_layout_set_height(layout, -ccardshims_title_lines);
  p_pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
  p_pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
  p_pango_layout_set_auto_dir(layout, 1);
  p_pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT);
  return layout;
}

/// Copies the cover into the surface, over the background where it is transparent.
static void ccardshims_draw_cover(cairo_surface_t *surface, const struct ccardshims_card *card) {
  p_cairo_surface_flush(surface);
  unsigned char *data = p_cairo_image_surface_get_data(surface);
  int stride = p_cairo_image_surface_get_stride(surface);
  int channels = card->cover_channels;
  uint32_t background = card->background;
  for (int y = 0; y < card->height; y++) {
    const uint8_t *in = card->cover + (size_t)y * card->width * channels;
    uint32_t *out = (uint32_t *)(data + (size_t)y * stride);
    for (int x = 0; x < card->width; x++, in += channels) {
      uint32_t r = in[0], g = in[1], b = in[2];
      if (channels == 4 && in[3] != 255) {
        uint32_t a = in[3];
        r = (r * a + ((background >> 16) & 0xff) * (255 - a) + 127) / 255;
        g = (g * a + ((background >> 8) & 0xff) * (255 - a) + 127) / 255;
        b = (b * a + (background & 0xff) * (255 - a) + 127) / 255;
      }
      out[x] = 0xff000000u | (r << 16) | (g << 8) | b;
    }
  }
  p_cairo_surface_mark_dirty(surface);
}

/// Darkens the cover where text goes: a little at the top, for the site's name, and more
/// towards the bottom, for the title, stars and category.
static void ccardshims_draw_scrim(cairo_t *cr, double height) {
  cairo_pattern_t *scrim = p_cairo_pattern_create_linear(0, 0, 0, height);
  p_cairo_pattern_add_color_stop_rgba(scrim, 0.0, 0, 0, 0, 0.55);
  p_cairo_pattern_add_color_stop_rgba(scrim, 0.22, 0, 0, 0, 0.0);
  p_cairo_pattern_add_color_stop_rgba(scrim, 0.30, 0, 0, 0, 0.0);
  p_cairo_pattern_add_color_stop_rgba(scrim, 0.50, 0, 0, 0, 0.58);
  p_cairo_pattern_add_color_stop_rgba(scrim, 0.75, 0, 0, 0, 0.76);
  p_cairo_pattern_add_color_stop_rgba(scrim, 1.0, 0, 0, 0, 0.88);
  p_cairo_set_source(cr, scrim);
  p_cairo_paint(cr);
  p_cairo_pattern_destroy(scrim);
}

static void ccardshims_say(char *error, size_t error_size, const char *what, const char *detail) {
  if (error != NULL && error_size > 0) snprintf(error, error_size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

int ccardshims_render(const struct ccardshims_card *card, uint8_t *rgb_out, struct ccardshims_result *result,
                      char *error, size_t error_size) {
  if (ccardshims_load() != 0) {
    ccardshims_say(error, error_size, "Pango and Cairo cannot be loaded", ccardshims_load_error());
    return -1;
  }
  if (card->width <= 0 || card->height <= 0 || card->width > 4096 || card->height > 4096 ||
      (card->cover != NULL && card->cover_channels != 3 && card->cover_channels != 4)) {
    ccardshims_say(error, error_size, "a card's size or cover is not one the card can draw", NULL);
    return -1;
  }
  memset(result, 0, sizeof *result);
  cairo_surface_t *surface = p_cairo_image_surface_create(CAIRO_FORMAT_ARGB32, card->width, card->height);
  if (p_cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    ccardshims_say(error, error_size, "Cairo cannot make the card's surface",
                   p_cairo_status_to_string(p_cairo_surface_status(surface)));
    p_cairo_surface_destroy(surface);
    return -1;
  }
  cairo_t *cr = p_cairo_create(surface);
  cairo_font_options_t *options = p_cairo_font_options_create();
  p_cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  p_cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  p_cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);

  double scale = card->width / 1200.0;
  double margin = ccardshims_margin * scale;
  double text_width = card->width - 2 * margin;

  ccardshims_set_colour(cr, card->background);
  p_cairo_paint(cr);
  if (card->cover != NULL) {
    ccardshims_draw_cover(surface, card);
    ccardshims_draw_scrim(cr, card->height);
  } else {
    // The site's look: its background, with a band of its accent down the leading edge.
    ccardshims_set_colour(cr, card->accent);
    p_cairo_rectangle(cr, 0, 0, 16 * scale, card->height);
    p_cairo_fill(cr);
  }

  // The title first: its direction decides which side everything aligns to.
  PangoLayout *title = ccardshims_title_layout(cr, options, card->title, ccardshims_title_size * scale, text_width);
  if (title != NULL && p_pango_layout_get_line_count(title) > 2) {
    // A title of three lines or more is set smaller, to say more of it before the ellipsis.
    p_g_object_unref(title);
    title = ccardshims_title_layout(cr, options, card->title, ccardshims_long_title_size * scale, text_width);
  }
  char stars[5 * 3 + 1];
  size_t used = 0;
  for (int index = 0; index < 5; index++) {
    // U+2605 BLACK STAR and U+2606 WHITE STAR, in UTF-8.
    const char *glyph = index < card->rating ? "\xe2\x98\x85" : "\xe2\x98\x86";
    memcpy(stars + used, glyph, 3);
    used += 3;
  }
  stars[used] = '\0';
  PangoLayout *star_layout = ccardshims_layout(cr, options, "DejaVu Sans", ccardshims_meta_size * scale, stars);
  PangoLayout *category = ccardshims_layout(cr, options, "DejaVu Sans", ccardshims_meta_size * scale, card->category);
  PangoLayout *site = ccardshims_layout(cr, options, "DejaVu Sans Bold", ccardshims_site_size * scale, card->site);
  if (title == NULL || star_layout == NULL || category == NULL || site == NULL) {
    ccardshims_say(error, error_size, "Pango cannot make a layout", NULL);
    if (title) p_g_object_unref(title);
    if (star_layout) p_g_object_unref(star_layout);
    if (category) p_g_object_unref(category);
    if (site) p_g_object_unref(site);
    p_cairo_font_options_destroy(options);
    p_cairo_destroy(cr);
    p_cairo_surface_destroy(surface);
    return -1;
  }
  PangoLayoutLine *first = p_pango_layout_get_line_readonly(title, 0);
  int right_to_left = first != NULL && p_pango_layout_line_get_resolved_direction(first) == PANGO_DIRECTION_RTL;

  // The site's name, at the top on the leading side: over a cover, on a dark plate of its
  // own, since the accent colour over a light picture would hardly show.
  int site_width, site_height;
  p_pango_layout_get_pixel_size(site, &site_width, &site_height);
  double site_x = right_to_left ? card->width - margin - site_width : margin;
  double site_y = margin * 0.75;
  if (card->cover != NULL) {
    double pad = 12 * scale;
    p_cairo_set_source_rgba(cr, 0, 0, 0, 0.62);
    p_cairo_rectangle(cr, site_x - pad, site_y - pad / 2, site_width + 2 * pad, site_height + pad);
    p_cairo_fill(cr);
  }
  ccardshims_set_colour(cr, card->accent);
  p_cairo_move_to(cr, site_x, site_y);
  p_pango_cairo_show_layout(cr, site);

  // The stars and the category on one baseline at the bottom; the title above them.
  int stars_width, stars_height, category_width, category_height;
  p_pango_layout_get_pixel_size(star_layout, &stars_width, &stars_height);
  p_pango_layout_get_pixel_size(category, &category_width, &category_height);
  double gap = 24 * scale;
  double baseline = card->height - margin;
  double stars_baseline = (double)p_pango_layout_get_baseline(star_layout) / PANGO_SCALE;
  double category_baseline = (double)p_pango_layout_get_baseline(category) / PANGO_SCALE;
  double row_width = stars_width + gap + category_width;
  double row_x = right_to_left ? card->width - margin - row_width : margin;
  ccardshims_set_colour(cr, card->star);
  p_cairo_move_to(cr, row_x, baseline - stars_baseline);
  p_pango_cairo_show_layout(cr, star_layout);
  ccardshims_set_colour(cr, card->cover != NULL ? card->foreground : card->muted);
  p_cairo_move_to(cr, row_x + stars_width + gap, baseline - category_baseline);
  p_pango_cairo_show_layout(cr, category);

  int title_width, title_height;
  p_pango_layout_get_pixel_size(title, &title_width, &title_height);
  double row_top = baseline - (stars_baseline > category_baseline ? stars_baseline : category_baseline);
  ccardshims_set_colour(cr, card->foreground);
  p_cairo_move_to(cr, margin, row_top - 20 * scale - title_height);
  p_pango_cairo_show_layout(cr, title);

  result->title_lines = p_pango_layout_get_line_count(title);
  result->title_ellipsized = p_pango_layout_is_ellipsized(title) != 0;
  result->title_right_to_left = right_to_left;
  result->unknown_glyphs = p_pango_layout_get_unknown_glyphs_count(title) +
                           p_pango_layout_get_unknown_glyphs_count(star_layout) +
                           p_pango_layout_get_unknown_glyphs_count(category) +
                           p_pango_layout_get_unknown_glyphs_count(site);
  p_g_object_unref(title);
  p_g_object_unref(star_layout);
  p_g_object_unref(category);
  p_g_object_unref(site);
  p_cairo_font_options_destroy(options);

  int status = p_cairo_status(cr);
  p_cairo_destroy(cr);
  if (status != CAIRO_STATUS_SUCCESS) {
    ccardshims_say(error, error_size, "Cairo could not draw the card", p_cairo_status_to_string(status));
    p_cairo_surface_destroy(surface);
    return -1;
  }
  p_cairo_surface_flush(surface);
  const unsigned char *data = p_cairo_image_surface_get_data(surface);
  int stride = p_cairo_image_surface_get_stride(surface);
  // Every pixel is opaque (the background was painted first), so premultiplied is plain.
  for (int y = 0; y < card->height; y++) {
    const uint32_t *in = (const uint32_t *)(data + (size_t)y * stride);
    uint8_t *out = rgb_out + (size_t)y * card->width * 3;
    for (int x = 0; x < card->width; x++) {
      uint32_t pixel = in[x];
      out[3 * x] = (uint8_t)(pixel >> 16);
      out[3 * x + 1] = (uint8_t)(pixel >> 8);
      out[3 * x + 2] = (uint8_t)pixel;
    }
  }
  p_cairo_surface_destroy(surface);
  return 0;
}
