#include "CJPEGShims.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

// The error manager of one decoder or encoder: libjpeg's, plus where to jump on a fatal error,
// the message, and the warnings seen. `error_exit` must not return, so it jumps back to the
// `setjmp` of the entry point that is running.
typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char message[CJPEGSHIMS_MESSAGE_LENGTH];
  int warnings;
  int hit_end_of_data;
  int kept;
  char kept_messages[CJPEGSHIMS_MAX_WARNINGS][CJPEGSHIMS_MESSAGE_LENGTH];
} cjpegshims_errors;

_Static_assert(CJPEGSHIMS_MESSAGE_LENGTH >= JMSG_LENGTH_MAX, "message buffer too short");

static void cjpegshims_error_exit(j_common_ptr cinfo) {
  cjpegshims_errors *errors = (cjpegshims_errors *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, errors->message);
  longjmp(errors->jump, 1);
}

// libjpeg calls this for warnings (level -1) and trace messages (level >= 0). Its default prints
// to stderr; a library must not, so warnings are counted and kept, and traces dropped.
static void cjpegshims_emit_message(j_common_ptr cinfo, int msg_level) {
  if (msg_level >= 0) return;
  cjpegshims_errors *errors = (cjpegshims_errors *)cinfo->err;
  errors->warnings += 1;
  cinfo->err->num_warnings += 1;
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) errors->hit_end_of_data = 1;
  char text[CJPEGSHIMS_MESSAGE_LENGTH];
  (*cinfo->err->format_message)(cinfo, text);
  for (int i = 0; i < errors->kept; i++) {
    if (strcmp(errors->kept_messages[i], text) == 0) return;
  }
  if (errors->kept < CJPEGSHIMS_MAX_WARNINGS) {
    memcpy(errors->kept_messages[errors->kept], text, sizeof text);
    errors->kept += 1;
  }
}

static void cjpegshims_output_message(j_common_ptr cinfo) { (void)cinfo; }

static struct jpeg_error_mgr *cjpegshims_install_errors(cjpegshims_errors *errors) {
  struct jpeg_error_mgr *manager = jpeg_std_error(&errors->pub);
  manager->error_exit = cjpegshims_error_exit;
  manager->emit_message = cjpegshims_emit_message;
  manager->output_message = cjpegshims_output_message;
  return manager;
}

// MARK: - Decoding

struct cjpegshims_decoder {
  struct jpeg_decompress_struct cinfo;
  cjpegshims_errors errors;
  int created;
  int cmyk;
  int inverted;
  /// CMYK rows handed over as libjpeg gives them (4 samples a pixel), for a colour profile.
  int raw_cmyk;
  unsigned char *scratch;
};

cjpegshims_decoder *cjpegshims_decoder_create(void) {
  cjpegshims_decoder *decoder = calloc(1, sizeof *decoder);
  if (decoder == NULL) return NULL;
  decoder->cinfo.err = cjpegshims_install_errors(&decoder->errors);
  if (setjmp(decoder->errors.jump)) {
    free(decoder);
    return NULL;
  }
  jpeg_create_decompress(&decoder->cinfo);
  decoder->created = 1;
  return decoder;
}

void cjpegshims_decoder_destroy(cjpegshims_decoder *decoder) {
  if (decoder == NULL) return;
  if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
  free(decoder->scratch);
  free(decoder);
}

static cjpegshims_color cjpegshims_color_of(J_COLOR_SPACE space) {
  switch (space) {
    case JCS_GRAYSCALE: return CJPEGSHIMS_COLOR_GRAYSCALE;
    case JCS_RGB: return CJPEGSHIMS_COLOR_RGB;
    case JCS_YCbCr: return CJPEGSHIMS_COLOR_YCBCR;
    case JCS_CMYK: return CJPEGSHIMS_COLOR_CMYK;
    case JCS_YCCK: return CJPEGSHIMS_COLOR_YCCK;
    default: return CJPEGSHIMS_COLOR_UNKNOWN;
  }
}

// A source manager that asks its owner for the file a chunk at a time. At the end of the file it
// does what libjpeg's memory source (jdatasrc.c) does, so that a file read in chunks decodes,
// warns and fails exactly as the same file in memory.
typedef struct {
  struct jpeg_source_mgr pub;
  cjpegshims_fill fill;
  void *context;
} cjpegshims_source;

static void cjpegshims_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean cjpegshims_fill_input_buffer(j_decompress_ptr cinfo) {
  static const JOCTET end_of_image[2] = {(JOCTET)0xFF, (JOCTET)JPEG_EOI};
  cjpegshims_source *source = (cjpegshims_source *)cinfo->src;
  const unsigned char *data = NULL;
  size_t count = source->fill(source->context, &data);
  if (count == 0 || data == NULL) {
    // The file ends: warn, and insert a fake EOI marker.
    WARNMS(cinfo, JWRN_JPEG_EOF);
    source->pub.next_input_byte = end_of_image;
    source->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  source->pub.next_input_byte = data;
  source->pub.bytes_in_buffer = count;
  return TRUE;
}

static void cjpegshims_skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
  struct jpeg_source_mgr *source = cinfo->src;
  if (num_bytes <= 0) return;
  while (num_bytes > (long)source->bytes_in_buffer) {
    num_bytes -= (long)source->bytes_in_buffer;
    (void)(*source->fill_input_buffer)(cinfo);
  }
  source->next_input_byte += (size_t)num_bytes;
  source->bytes_in_buffer -= (size_t)num_bytes;
}

static void cjpegshims_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

int cjpegshims_decoder_read_header(cjpegshims_decoder *decoder, cjpegshims_fill fill, void *context,
                                   cjpegshims_header *header) {
  if (setjmp(decoder->errors.jump)) return -1;
  struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
  if (cinfo->src == NULL) {
    cinfo->src = (struct jpeg_source_mgr *)(*cinfo->mem->alloc_small)(
        (j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(cjpegshims_source));
  }
  cjpegshims_source *source = (cjpegshims_source *)cinfo->src;
  source->pub.init_source = cjpegshims_init_source;
  source->pub.fill_input_buffer = cjpegshims_fill_input_buffer;
  source->pub.skip_input_data = cjpegshims_skip_input_data;
  source->pub.resync_to_restart = jpeg_resync_to_restart;
  source->pub.term_source = cjpegshims_term_source;
  source->pub.bytes_in_buffer = 0;
  source->pub.next_input_byte = NULL;
  source->fill = fill;
  source->context = context;
  jpeg_read_header(cinfo, TRUE);
  header->width = (int)cinfo->image_width;
  header->height = (int)cinfo->image_height;
  header->components = cinfo->num_components;
  header->precision = cinfo->data_precision;
  header->color = cjpegshims_color_of(cinfo->jpeg_color_space);
  header->progressive = cinfo->progressive_mode ? 1 : 0;
  header->arithmetic = cinfo->arith_code ? 1 : 0;
  header->adobe_transform = cinfo->saw_Adobe_marker ? cinfo->Adobe_transform : -1;
  header->chroma_subsampled = 0;
  for (int i = 1; i < cinfo->num_components && i < 3; i++) {
    if (cinfo->comp_info[i].h_samp_factor < cinfo->comp_info[0].h_samp_factor ||
        cinfo->comp_info[i].v_samp_factor < cinfo->comp_info[0].v_samp_factor) {
      header->chroma_subsampled = 1;
    }
  }
  return 0;
}

int cjpegshims_decoder_start(cjpegshims_decoder *decoder, int scale_denominator, int raw_cmyk,
                             int *output_width, int *output_height) {
  if (setjmp(decoder->errors.jump)) return -1;
  struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
  cinfo->scale_num = 1;
  cinfo->scale_denom = (unsigned int)scale_denominator;
  cinfo->dct_method = JDCT_ISLOW;
  if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
    // libjpeg converts YCCK to CMYK but not CMYK to RGB: that is done per row below.
    cinfo->out_color_space = JCS_CMYK;
    decoder->cmyk = 1;
    decoder->inverted = cinfo->saw_Adobe_marker ? 1 : 0;
    decoder->raw_cmyk = raw_cmyk ? 1 : 0;
  } else {
    cinfo->out_color_space = JCS_EXT_RGB;
  }
  jpeg_start_decompress(cinfo);
  if (decoder->cmyk && !decoder->raw_cmyk) {
    decoder->scratch = malloc((size_t)cinfo->output_width * 4u * 16u);
    if (decoder->scratch == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
  }
  *output_width = (int)cinfo->output_width;
  *output_height = (int)cinfo->output_height;
  return 0;
}

// Adobe applications write CMYK inverted (255 means no ink); others write it plain.
static void cjpegshims_cmyk_to_rgb(const unsigned char *cmyk, unsigned char *rgb, size_t width,
                                   int inverted) {
  for (size_t x = 0; x < width; x++) {
    unsigned int c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    if (!inverted) {
      c = 255u - c;
      m = 255u - m;
      y = 255u - y;
      k = 255u - k;
    }
    rgb[0] = (unsigned char)((c * k + 127u) / 255u);
    rgb[1] = (unsigned char)((m * k + 127u) / 255u);
    rgb[2] = (unsigned char)((y * k + 127u) / 255u);
    cmyk += 4;
    rgb += 3;
  }
}

int cjpegshims_decoder_read_rows(cjpegshims_decoder *decoder, unsigned char *pixels,
                                 size_t stride, int rows) {
  if (setjmp(decoder->errors.jump)) return -1;
  struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
  size_t cmyk_stride = (size_t)cinfo->output_width * 4u;
  int done = 0;
  while (done < rows && cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW pointers[16];
    int batch = rows - done < 16 ? rows - done : 16;
    for (int i = 0; i < batch; i++) {
      pointers[i] = decoder->cmyk && !decoder->raw_cmyk ? decoder->scratch + (size_t)i * cmyk_stride
                                                        : pixels + (size_t)(done + i) * stride;
    }
    JDIMENSION got = jpeg_read_scanlines(cinfo, pointers, (JDIMENSION)batch);
    if (got == 0) break;
    if (decoder->cmyk && !decoder->raw_cmyk) {
      for (JDIMENSION i = 0; i < got; i++) {
        cjpegshims_cmyk_to_rgb(decoder->scratch + (size_t)i * cmyk_stride,
                               pixels + (size_t)(done + (int)i) * stride, cinfo->output_width,
                               decoder->inverted);
      }
    }
    done += (int)got;
  }
  return done;
}

int cjpegshims_decoder_finish(cjpegshims_decoder *decoder) {
  if (setjmp(decoder->errors.jump)) return -1;
  jpeg_finish_decompress(&decoder->cinfo);
  return 0;
}

const char *cjpegshims_decoder_message(const cjpegshims_decoder *decoder) {
  return decoder->errors.message;
}

int cjpegshims_decoder_warning_count(const cjpegshims_decoder *decoder) {
  return decoder->errors.warnings;
}

int cjpegshims_decoder_hit_end_of_data(const cjpegshims_decoder *decoder) {
  return decoder->errors.hit_end_of_data;
}

int cjpegshims_decoder_kept_warnings(const cjpegshims_decoder *decoder) {
  return decoder->errors.kept;
}

const char *cjpegshims_decoder_warning(const cjpegshims_decoder *decoder, int index) {
  if (index < 0 || index >= decoder->errors.kept) return "";
  return decoder->errors.kept_messages[index];
}

// MARK: - Encoding

typedef struct {
  struct jpeg_compress_struct cinfo;
  cjpegshims_errors errors;
  int created;
  unsigned char *buffer;
  unsigned long size;
} cjpegshims_encoder;

int cjpegshims_encode(const unsigned char *pixels, int width, int height, size_t stride,
                      int components, int quality, int progressive, int full_chroma,
                      unsigned char **output,
                      unsigned long *output_size, char message[CJPEGSHIMS_MESSAGE_LENGTH]) {
  cjpegshims_encoder *encoder = calloc(1, sizeof *encoder);
  if (encoder == NULL) {
    snprintf(message, CJPEGSHIMS_MESSAGE_LENGTH, "out of memory");
    return -1;
  }
  encoder->cinfo.err = cjpegshims_install_errors(&encoder->errors);
  if (setjmp(encoder->errors.jump)) {
    memcpy(message, encoder->errors.message, CJPEGSHIMS_MESSAGE_LENGTH);
    if (encoder->created) jpeg_destroy_compress(&encoder->cinfo);
    free(encoder->buffer);
    free(encoder);
    return -1;
  }
  struct jpeg_compress_struct *cinfo = &encoder->cinfo;
  jpeg_create_compress(cinfo);
  encoder->created = 1;
  jpeg_mem_dest(cinfo, &encoder->buffer, &encoder->size);
  cinfo->image_width = (JDIMENSION)width;
  cinfo->image_height = (JDIMENSION)height;
  cinfo->input_components = components;
  cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality, TRUE);
  cinfo->optimize_coding = TRUE;
  if (full_chroma) {
    // 4:4:4: every component at full resolution (jpeg_set_defaults gives luma 2x2, i.e. 4:2:0).
    for (int i = 0; i < cinfo->num_components; i++) {
      cinfo->comp_info[i].h_samp_factor = 1;
      cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
  if (progressive) jpeg_simple_progression(cinfo);
  jpeg_start_compress(cinfo, TRUE);
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo->next_scanline * stride);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  jpeg_destroy_compress(cinfo);
  *output = encoder->buffer;
  *output_size = encoder->size;
  free(encoder);
  return 0;
}

void cjpegshims_free(void *pointer) { free(pointer); }
