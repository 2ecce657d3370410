#include "CPNGShims.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct cpngshims_decoder {
  png_structp png;
  png_infop info;
  cpngshims_read_fn read;
  void *context;
  int ran_out;
  int bad_checksum;
  char message[CPNGSHIMS_MESSAGE_LENGTH];
  int kept;
  char warnings[CPNGSHIMS_MAX_WARNINGS][CPNGSHIMS_MESSAGE_LENGTH];
};

static void cpngshims_copy(char *target, const char *text) {
  strncpy(target, text != NULL ? text : "libpng gave no reason", CPNGSHIMS_MESSAGE_LENGTH - 1);
  target[CPNGSHIMS_MESSAGE_LENGTH - 1] = '\0';
}

// zlib's message when the Adler-32 at the end of a stream is not that of the data inflated.
static int cpngshims_is_bad_checksum(png_const_charp text) {
  return text != NULL && strstr(text, "incorrect data check") != NULL;
}

static void cpngshims_error(png_structp png, png_const_charp text) {
  cpngshims_decoder *decoder = png_get_error_ptr(png);
  if (cpngshims_is_bad_checksum(text)) decoder->bad_checksum = 1;
  cpngshims_copy(decoder->message, text);
  png_longjmp(png, 1);
}

// libpng's default prints warnings to stderr; a library must not, so they are kept.
static void cpngshims_warning(png_structp png, png_const_charp text) {
  cpngshims_decoder *decoder = png_get_error_ptr(png);
  // Damage found after the last row is only a warning to libpng ("benign"), but a wrong zlib
  // checksum says the image data is not what was written: the picture is refused.
  if (cpngshims_is_bad_checksum(text)) png_error(png, text);
  char copy[CPNGSHIMS_MESSAGE_LENGTH];
  cpngshims_copy(copy, text);
  for (int i = 0; i < decoder->kept; i++) {
    if (strcmp(decoder->warnings[i], copy) == 0) return;
  }
  if (decoder->kept < CPNGSHIMS_MAX_WARNINGS) {
    memcpy(decoder->warnings[decoder->kept], copy, sizeof copy);
    decoder->kept += 1;
  }
}

static void cpngshims_read(png_structp png, png_bytep target, size_t length) {
  cpngshims_decoder *decoder = png_get_io_ptr(png);
  if (decoder->read(decoder->context, target, length) < length) {
    decoder->ran_out = 1;
    png_error(png, "libpng read past the end of the file");
  }
}

// The ancillary chunks libpng knows but does not need here: skipped unread, so that none of
// them can make libpng allocate what its header declares. The colour chunks (iCCP, gAMA, cHRM,
// sRGB) are read by the Swift side, which warns about bad ones itself.
static const png_byte cpngshims_skipped[] = {
    't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0',
    's', 'P', 'L', 'T', '\0', 'p', 'C', 'A', 'L', '\0', 's', 'C', 'A', 'L', '\0',
    'h', 'I', 'S', 'T', '\0', 't', 'I', 'M', 'E', '\0', 'p', 'H', 'Y', 's', '\0',
    'o', 'F', 'F', 's', '\0', 's', 'B', 'I', 'T', '\0', 'b', 'K', 'G', 'D', '\0',
    'i', 'C', 'C', 'P', '\0', 'e', 'X', 'I', 'f', '\0', 's', 'T', 'E', 'R', '\0',
    'g', 'A', 'M', 'A', '\0', 'c', 'H', 'R', 'M', '\0', 's', 'R', 'G', 'B', '\0',
};

cpngshims_decoder *cpngshims_decoder_create(cpngshims_read_fn read, void *context) {
  cpngshims_decoder *decoder = calloc(1, sizeof *decoder);
  if (decoder == NULL) return NULL;
  decoder->read = read;
  decoder->context = context;
  decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, cpngshims_error,
                                        cpngshims_warning);
  if (decoder->png == NULL) {
    free(decoder);
    return NULL;
  }
  decoder->info = png_create_info_struct(decoder->png);
  if (decoder->info == NULL) {
    png_destroy_read_struct(&decoder->png, NULL, NULL);
    free(decoder);
    return NULL;
  }
  png_set_read_fn(decoder->png, decoder, cpngshims_read);
  png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
  png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, cpngshims_skipped,
                              (int)(sizeof cpngshims_skipped / 5));
  png_set_chunk_malloc_max(decoder->png, CPNGSHIMS_CHUNK_MALLOC_MAX);
  png_set_chunk_cache_max(decoder->png, CPNGSHIMS_CHUNK_CACHE_MAX);
  // zlib's Adler-32 of the image data is checked (libpng's default; PNG_IGNORE_ADLER32 is
  // not set): a chunk CRC only says the chunk was copied as written, and a writer that
  // computed its CRCs over damaged data leaves the checksum as the one witness.
  return decoder;
}

void cpngshims_decoder_destroy(cpngshims_decoder *decoder) {
  if (decoder == NULL) return;
  png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
  free(decoder);
}

int cpngshims_decoder_start(cpngshims_decoder *decoder, int *rgba, int *width, int *height,
                            int *passes) {
  png_structp png = decoder->png;
  png_infop info = decoder->info;
  if (setjmp(png_jmpbuf(png))) return -1;
  png_read_info(png, info);
  int color = png_get_color_type(png, info);
  int depth = png_get_bit_depth(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16) png_set_scale_16(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  *rgba = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
  // The samples come out as stored: gAMA, cHRM, sRGB and iCCP are read by the Swift side and
  // applied with the other colour profiles, through LittleCMS.
  *passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  size_t expected = (size_t)png_get_image_width(png, info) * (*rgba ? 4u : 3u);
  if (png_get_rowbytes(png, info) != expected) png_error(png, "unexpected row size after transforms");
  *width = (int)png_get_image_width(png, info);
  *height = (int)png_get_image_height(png, info);
  return 0;
}

int cpngshims_decoder_read_rows(cpngshims_decoder *decoder, unsigned char *pixels, size_t stride,
                                int rows) {
  if (setjmp(png_jmpbuf(decoder->png))) return -1;
  for (int i = 0; i < rows; i++) png_read_row(decoder->png, pixels + (size_t)i * stride, NULL);
  return 0;
}

const char *cpngshims_decoder_message(const cpngshims_decoder *decoder) {
  return decoder->message;
}

int cpngshims_decoder_ran_out(const cpngshims_decoder *decoder) { return decoder->ran_out; }

int cpngshims_decoder_bad_checksum(const cpngshims_decoder *decoder) { return decoder->bad_checksum; }

int cpngshims_decoder_warning_count(const cpngshims_decoder *decoder) { return decoder->kept; }

const char *cpngshims_decoder_warning(const cpngshims_decoder *decoder, int index) {
  if (index < 0 || index >= decoder->kept) return "";
  return decoder->warnings[index];
}
