// C entry points around libjpeg-turbo's classic API.
//
// libjpeg reports fatal errors by calling `error_exit`, which must not return. Each entry point
// below calls `setjmp` in its own frame and installs an `error_exit` that `longjmp`s back to it,
// so a fatal error becomes a non-zero status and a message, and no `longjmp` ever crosses a
// Swift frame. Handles are opaque; every symbol carries the module's prefix.
#ifndef CJPEGSHIMS_H
#define CJPEGSHIMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The longest message libjpeg formats (its `JMSG_LENGTH_MAX`).
#define CJPEGSHIMS_MESSAGE_LENGTH 200

/// How many distinct warning messages a decoder keeps.
#define CJPEGSHIMS_MAX_WARNINGS 8

/// Colour spaces of a JPEG file, as libjpeg names them (`J_COLOR_SPACE`).
typedef enum {
  CJPEGSHIMS_COLOR_UNKNOWN = 0,
  CJPEGSHIMS_COLOR_GRAYSCALE = 1,
  CJPEGSHIMS_COLOR_RGB = 2,
  CJPEGSHIMS_COLOR_YCBCR = 3,
  CJPEGSHIMS_COLOR_CMYK = 4,
  CJPEGSHIMS_COLOR_YCCK = 5,
} cjpegshims_color;

/// What the frame header says, read without decoding any pixels.
typedef struct {
  int width;
  int height;
  int components;
  int precision;
  cjpegshims_color color;
  int progressive;
  int arithmetic;
  /// The Adobe APP14 transform code, or -1 without an Adobe marker.
  int adobe_transform;
  /// 1 when the second or third component is stored at a lower resolution than the first
  /// (4:2:0, 4:2:2: a photograph's usual encoding), else 0.
  int chroma_subsampled;
} cjpegshims_header;

typedef struct cjpegshims_decoder cjpegshims_decoder;

/// A new decoder, or NULL when memory is exhausted.
cjpegshims_decoder *cjpegshims_decoder_create(void);
void cjpegshims_decoder_destroy(cjpegshims_decoder *decoder);

/// Where a decoder's bytes come from: called with `context` whenever libjpeg has used every byte
/// it was given, it points `*data` at the next bytes of the file (which must stay valid until the
/// next call) and returns how many, 0 at the end of the file.
typedef size_t (*cjpegshims_fill)(void *context, const unsigned char **data);

/// Reads the headers of the file `fill` gives, a chunk at a time (`context` must outlive the
/// decoder's use of it). At the end of the file, as libjpeg's memory source does, a warning and
/// an end-of-image marker stand in for the missing data. Returns 0, or -1 with a message.
int cjpegshims_decoder_read_header(cjpegshims_decoder *decoder, cjpegshims_fill fill, void *context,
                                   cjpegshims_header *header);

/// Starts decompression at DCT scale 1/`scale_denominator` (1, 2, 4 or 8), to 8-bit RGB
/// (grayscale is expanded; CMYK and YCCK are converted, Adobe-inverted when the file says so),
/// except that with `raw_cmyk` a CMYK or YCCK file gives its CMYK samples as they are (4 a
/// pixel, inverted when the Adobe marker says so), for a colour profile to convert.
/// Gives the scaled output size. Returns 0, or -1 with a message.
int cjpegshims_decoder_start(cjpegshims_decoder *decoder, int scale_denominator, int raw_cmyk,
                             int *output_width, int *output_height);

/// Decodes up to `rows` further rows of RGB (or raw CMYK) into `pixels` (`stride` bytes apart).
/// Returns the number of rows decoded (0 at the end), or -1 with a message.
int cjpegshims_decoder_read_rows(cjpegshims_decoder *decoder, unsigned char *pixels,
                                 size_t stride, int rows);

/// Reads the rest of the file after the last row. Returns 0, or -1 with a message.
int cjpegshims_decoder_finish(cjpegshims_decoder *decoder);

/// The message of the last failure.
const char *cjpegshims_decoder_message(const cjpegshims_decoder *decoder);

/// How many warnings libjpeg raised (corrupt data it decoded through), and whether one of them
/// was that the data ended before the image did.
int cjpegshims_decoder_warning_count(const cjpegshims_decoder *decoder);
int cjpegshims_decoder_hit_end_of_data(const cjpegshims_decoder *decoder);

/// The distinct warning messages kept (at most CJPEGSHIMS_MAX_WARNINGS).
int cjpegshims_decoder_kept_warnings(const cjpegshims_decoder *decoder);
const char *cjpegshims_decoder_warning(const cjpegshims_decoder *decoder, int index);

/// Encodes 8-bit pixels (`components` 1 = gray or 3 = RGB) as JFIF with optimised Huffman tables,
/// chroma at full resolution (4:4:4) when `full_chroma`, else at half in both directions (4:2:0).
/// On success returns 0 and a malloc'ed buffer in `*output` (free it with
/// `cjpegshims_free`); on failure returns -1 and fills `message`.
int cjpegshims_encode(const unsigned char *pixels, int width, int height, size_t stride,
                      int components, int quality, int progressive, int full_chroma,
                      unsigned char **output,
                      unsigned long *output_size, char message[CJPEGSHIMS_MESSAGE_LENGTH]);

void cjpegshims_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
