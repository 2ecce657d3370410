// libheif, opened the first time a HEIF or AVIF picture is met rather than when the process
// starts: libheif brings its codecs (x265, aom, libde265, dav1d), whose loading costs every
// command about 5 ms and 5 MiB of memory whether it reads a HEIF or not. Each function below is
// libheif's of the same name without the prefix, called through a pointer dlsym found; call
// cheifshims_load() first. Types and constants are libheif's own, from its header.
#ifndef CHEIFSHIMS_H
#define CHEIFSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <libheif/heif.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opens libheif (libheif.so.1) and finds its functions, once for the process; safe from any
/// thread. Returns 0, or -1 when the library or one of its functions is missing
/// (cheifshims_load_error() says which).
int cheifshims_load(void);

/// What went wrong in cheifshims_load(), or "" when nothing did.
const char *cheifshims_load_error(void);

struct heif_context* cheifshims_context_alloc(void);
void cheifshims_context_free(struct heif_context* a);
struct heif_error cheifshims_context_get_primary_image_handle(struct heif_context* a, struct heif_image_handle** b);
struct heif_error cheifshims_context_read_from_memory_without_copy(struct heif_context* a, const void* b, size_t c, const struct heif_reading_options* d);
void cheifshims_context_set_max_decoding_threads(struct heif_context* a, int b);
void cheifshims_context_set_maximum_image_size_limit(struct heif_context* a, int b);
struct heif_error cheifshims_decode_image(const struct heif_image_handle* a, struct heif_image** b, enum heif_colorspace c, enum heif_chroma d, const struct heif_decoding_options* e);
struct heif_decoding_options* cheifshims_decoding_options_alloc(void);
void cheifshims_decoding_options_free(struct heif_decoding_options* a);
int cheifshims_image_get_bits_per_pixel_range(const struct heif_image* a, enum heif_channel b);
int cheifshims_image_get_height(const struct heif_image* a, enum heif_channel b);
const uint8_t* cheifshims_image_get_plane_readonly(const struct heif_image* a, enum heif_channel b, int* c);
int cheifshims_image_get_width(const struct heif_image* a, enum heif_channel b);
enum heif_color_profile_type cheifshims_image_handle_get_color_profile_type(const struct heif_image_handle* a);
int cheifshims_image_handle_get_height(const struct heif_image_handle* a);
int cheifshims_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle* a, heif_item_id* b, int c);
int cheifshims_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle* a);
struct heif_error cheifshims_image_handle_get_nclx_color_profile(const struct heif_image_handle* a, struct heif_color_profile_nclx** b);
int cheifshims_image_handle_get_number_of_thumbnails(const struct heif_image_handle* a);
struct heif_error cheifshims_image_handle_get_raw_color_profile(const struct heif_image_handle* a, void* b);
size_t cheifshims_image_handle_get_raw_color_profile_size(const struct heif_image_handle* a);
struct heif_error cheifshims_image_handle_get_thumbnail(const struct heif_image_handle* a, heif_item_id b, struct heif_image_handle** c);
int cheifshims_image_handle_get_width(const struct heif_image_handle* a);
int cheifshims_image_handle_has_alpha_channel(const struct heif_image_handle* a);
void cheifshims_image_handle_release(const struct heif_image_handle* a);
void cheifshims_image_release(const struct heif_image* a);
void cheifshims_nclx_color_profile_free(struct heif_color_profile_nclx* a);

#ifdef __cplusplus
}
#endif

#endif
