#include "CHeifShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t cheifshims_once = PTHREAD_ONCE_INIT;
static int cheifshims_status = -1;
static char cheifshims_error[256] = "";

static struct heif_context* (*cheifshims_p_context_alloc)(void);
static void (*cheifshims_p_context_free)(struct heif_context* a);
static struct heif_error (*cheifshims_p_context_get_primary_image_handle)(struct heif_context* a, struct heif_image_handle** b);
static struct heif_error (*cheifshims_p_context_read_from_memory_without_copy)(struct heif_context* a, const void* b, size_t c, const struct heif_reading_options* d);
static void (*cheifshims_p_context_set_max_decoding_threads)(struct heif_context* a, int b);
static void (*cheifshims_p_context_set_maximum_image_size_limit)(struct heif_context* a, int b);
static struct heif_error (*cheifshims_p_decode_image)(const struct heif_image_handle* a, struct heif_image** b, enum heif_colorspace c, enum heif_chroma d, const struct heif_decoding_options* e);
static struct heif_decoding_options* (*cheifshims_p_decoding_options_alloc)(void);
static void (*cheifshims_p_decoding_options_free)(struct heif_decoding_options* a);
static int (*cheifshims_p_image_get_bits_per_pixel_range)(const struct heif_image* a, enum heif_channel b);
static int (*cheifshims_p_image_get_height)(const struct heif_image* a, enum heif_channel b);
static const uint8_t* (*cheifshims_p_image_get_plane_readonly)(const struct heif_image* a, enum heif_channel b, int* c);
static int (*cheifshims_p_image_get_width)(const struct heif_image* a, enum heif_channel b);
static enum heif_color_profile_type (*cheifshims_p_image_handle_get_color_profile_type)(const struct heif_image_handle* a);
static int (*cheifshims_p_image_handle_get_height)(const struct heif_image_handle* a);
static int (*cheifshims_p_image_handle_get_list_of_thumbnail_IDs)(const struct heif_image_handle* a, heif_item_id* b, int c);
static int (*cheifshims_p_image_handle_get_luma_bits_per_pixel)(const struct heif_image_handle* a);
static struct heif_error (*cheifshims_p_image_handle_get_nclx_color_profile)(const struct heif_image_handle* a, struct heif_color_profile_nclx** b);
static int (*cheifshims_p_image_handle_get_number_of_thumbnails)(const struct heif_image_handle* a);
static struct heif_error (*cheifshims_p_image_handle_get_raw_color_profile)(const struct heif_image_handle* a, void* b);
static size_t (*cheifshims_p_image_handle_get_raw_color_profile_size)(const struct heif_image_handle* a);
static struct heif_error (*cheifshims_p_image_handle_get_thumbnail)(const struct heif_image_handle* a, heif_item_id b, struct heif_image_handle** c);
static int (*cheifshims_p_image_handle_get_width)(const struct heif_image_handle* a);
static int (*cheifshims_p_image_handle_has_alpha_channel)(const struct heif_image_handle* a);
static void (*cheifshims_p_image_handle_release)(const struct heif_image_handle* a);
static void (*cheifshims_p_image_release)(const struct heif_image* a);
static void (*cheifshims_p_nclx_color_profile_free)(struct heif_color_profile_nclx* a);

static void *cheifshims_find(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  if (symbol == NULL && cheifshims_error[0] == '\0') {
    snprintf(cheifshims_error, sizeof cheifshims_error, "libheif has no %s", name);
  }
  return symbol;
}

static void cheifshims_open(void) {
  // RTLD_LOCAL: nothing of libheif's becomes visible to the rest of the process.
  void *library = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(cheifshims_error, sizeof cheifshims_error, "%s", reason ? reason : "libheif.so.1 not found");
    return;
  }
  *(void **)&cheifshims_p_context_alloc = cheifshims_find(library, "heif_context_alloc");
  *(void **)&cheifshims_p_context_free = cheifshims_find(library, "heif_context_free");
  *(void **)&cheifshims_p_context_get_primary_image_handle = cheifshims_find(library, "heif_context_get_primary_image_handle");
  *(void **)&cheifshims_p_context_read_from_memory_without_copy = cheifshims_find(library, "heif_context_read_from_memory_without_copy");
  *(void **)&cheifshims_p_context_set_max_decoding_threads = cheifshims_find(library, "heif_context_set_max_decoding_threads");
  *(void **)&cheifshims_p_context_set_maximum_image_size_limit = cheifshims_find(library, "heif_context_set_maximum_image_size_limit");
  *(void **)&cheifshims_p_decode_image = cheifshims_find(library, "heif_decode_image");
  *(void **)&cheifshims_p_decoding_options_alloc = cheifshims_find(library, "heif_decoding_options_alloc");
  *(void **)&cheifshims_p_decoding_options_free = cheifshims_find(library, "heif_decoding_options_free");
  *(void **)&cheifshims_p_image_get_bits_per_pixel_range = cheifshims_find(library, "heif_image_get_bits_per_pixel_range");
  *(void **)&cheifshims_p_image_get_height = cheifshims_find(library, "heif_image_get_height");
  *(void **)&cheifshims_p_image_get_plane_readonly = cheifshims_find(library, "heif_image_get_plane_readonly");
  *(void **)&cheifshims_p_image_get_width = cheifshims_find(library, "heif_image_get_width");
  *(void **)&cheifshims_p_image_handle_get_color_profile_type = cheifshims_find(library, "heif_image_handle_get_color_profile_type");
  *(void **)&cheifshims_p_image_handle_get_height = cheifshims_find(library, "heif_image_handle_get_height");
  *(void **)&cheifshims_p_image_handle_get_list_of_thumbnail_IDs = cheifshims_find(library, "heif_image_handle_get_list_of_thumbnail_IDs");
  *(void **)&cheifshims_p_image_handle_get_luma_bits_per_pixel = cheifshims_find(library, "heif_image_handle_get_luma_bits_per_pixel");
  *(void **)&cheifshims_p_image_handle_get_nclx_color_profile = cheifshims_find(library, "heif_image_handle_get_nclx_color_profile");
  *(void **)&cheifshims_p_image_handle_get_number_of_thumbnails = cheifshims_find(library, "heif_image_handle_get_number_of_thumbnails");
  *(void **)&cheifshims_p_image_handle_get_raw_color_profile = cheifshims_find(library, "heif_image_handle_get_raw_color_profile");
  *(void **)&cheifshims_p_image_handle_get_raw_color_profile_size = cheifshims_find(library, "heif_image_handle_get_raw_color_profile_size");
  *(void **)&cheifshims_p_image_handle_get_thumbnail = cheifshims_find(library, "heif_image_handle_get_thumbnail");
  *(void **)&cheifshims_p_image_handle_get_width = cheifshims_find(library, "heif_image_handle_get_width");
  *(void **)&cheifshims_p_image_handle_has_alpha_channel = cheifshims_find(library, "heif_image_handle_has_alpha_channel");
  *(void **)&cheifshims_p_image_handle_release = cheifshims_find(library, "heif_image_handle_release");
  *(void **)&cheifshims_p_image_release = cheifshims_find(library, "heif_image_release");
  *(void **)&cheifshims_p_nclx_color_profile_free = cheifshims_find(library, "heif_nclx_color_profile_free");
  cheifshims_status = cheifshims_error[0] == '\0' ? 0 : -1;
}

int cheifshims_load(void) {
  pthread_once(&cheifshims_once, cheifshims_open);
  return cheifshims_status;
}

const char *cheifshims_load_error(void) { return cheifshims_error; }

struct heif_context* cheifshims_context_alloc(void) { return cheifshims_p_context_alloc(); }
void cheifshims_context_free(struct heif_context* a) { cheifshims_p_context_free(a); }
struct heif_error cheifshims_context_get_primary_image_handle(struct heif_context* a, struct heif_image_handle** b) { return cheifshims_p_context_get_primary_image_handle(a, b); }
struct heif_error cheifshims_context_read_from_memory_without_copy(struct heif_context* a, const void* b, size_t c, const struct heif_reading_options* d) { return cheifshims_p_context_read_from_memory_without_copy(a, b, c, d); }
void cheifshims_context_set_max_decoding_threads(struct heif_context* a, int b) { cheifshims_p_context_set_max_decoding_threads(a, b); }
void cheifshims_context_set_maximum_image_size_limit(struct heif_context* a, int b) { cheifshims_p_context_set_maximum_image_size_limit(a, b); }
struct heif_error cheifshims_decode_image(const struct heif_image_handle* a, struct heif_image** b, enum heif_colorspace c, enum heif_chroma d, const struct heif_decoding_options* e) { return cheifshims_p_decode_image(a, b, c, d, e); }
struct heif_decoding_options* cheifshims_decoding_options_alloc(void) { return cheifshims_p_decoding_options_alloc(); }
void cheifshims_decoding_options_free(struct heif_decoding_options* a) { cheifshims_p_decoding_options_free(a); }
int cheifshims_image_get_bits_per_pixel_range(const struct heif_image* a, enum heif_channel b) { return cheifshims_p_image_get_bits_per_pixel_range(a, b); }
int cheifshims_image_get_height(const struct heif_image* a, enum heif_channel b) { return cheifshims_p_image_get_height(a, b); }
const uint8_t* cheifshims_image_get_plane_readonly(const struct heif_image* a, enum heif_channel b, int* c) { return cheifshims_p_image_get_plane_readonly(a, b, c); }
int cheifshims_image_get_width(const struct heif_image* a, enum heif_channel b) { return cheifshims_p_image_get_width(a, b); }
enum heif_color_profile_type cheifshims_image_handle_get_color_profile_type(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_color_profile_type(a); }
int cheifshims_image_handle_get_height(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_height(a); }
int cheifshims_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle* a, heif_item_id* b, int c) { return cheifshims_p_image_handle_get_list_of_thumbnail_IDs(a, b, c); }
int cheifshims_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_luma_bits_per_pixel(a); }
struct heif_error cheifshims_image_handle_get_nclx_color_profile(const struct heif_image_handle* a, struct heif_color_profile_nclx** b) { return cheifshims_p_image_handle_get_nclx_color_profile(a, b); }
int cheifshims_image_handle_get_number_of_thumbnails(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_number_of_thumbnails(a); }
struct heif_error cheifshims_image_handle_get_raw_color_profile(const struct heif_image_handle* a, void* b) { return cheifshims_p_image_handle_get_raw_color_profile(a, b); }
size_t cheifshims_image_handle_get_raw_color_profile_size(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_raw_color_profile_size(a); }
struct heif_error cheifshims_image_handle_get_thumbnail(const struct heif_image_handle* a, heif_item_id b, struct heif_image_handle** c) { return cheifshims_p_image_handle_get_thumbnail(a, b, c); }
int cheifshims_image_handle_get_width(const struct heif_image_handle* a) { return cheifshims_p_image_handle_get_width(a); }
int cheifshims_image_handle_has_alpha_channel(const struct heif_image_handle* a) { return cheifshims_p_image_handle_has_alpha_channel(a); }
void cheifshims_image_handle_release(const struct heif_image_handle* a) { cheifshims_p_image_handle_release(a); }
void cheifshims_image_release(const struct heif_image* a) { cheifshims_p_image_release(a); }
void cheifshims_nclx_color_profile_free(struct heif_color_profile_nclx* a) { cheifshims_p_nclx_color_profile_free(a); }
