// C entry points around libpng's progressive-row ("classic") reading API.
//
// libpng reports fatal errors by calling its error function, which must not return. Each entry
// point below calls `setjmp` in its own frame and the error function `longjmp`s back to it, so a
// fatal error becomes a -1 status and a message, and no `longjmp` ever crosses a Swift frame.
//
// Memory is bounded whatever a file declares: every ancillary chunk the pipeline does not use
// (text, sPLT, pCAL, sCAL, iCCP, eXIf and the rest, known or unknown) is skipped without being
// stored, no chunk may allocate more than CPNGSHIMS_CHUNK_MALLOC_MAX bytes, and at most
// CPNGSHIMS_CHUNK_CACHE_MAX ancillary chunks are kept.
#ifndef CPNGSHIMS_H
#define CPNGSHIMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The longest message kept, terminator included.
#define CPNGSHIMS_MESSAGE_LENGTH 200
/// How many distinct warning messages a decoder keeps.
#define CPNGSHIMS_MAX_WARNINGS 8
/// The most one chunk may make libpng allocate.
#define CPNGSHIMS_CHUNK_MALLOC_MAX (1024 * 1024)
/// The most ancillary chunks libpng keeps.
#define CPNGSHIMS_CHUNK_CACHE_MAX 32

/// Undoes PNG row filter `filter` (0–4) on the `count` bytes of `row`, in place, with `above`
/// the row above already undone (zeros for the first row) and `bpp` bytes per pixel (1–8).
/// Returns 0, or -1 for a filter type that is not 0–4.
int cpngshims_unfilter(int filter, unsigned char *row, const unsigned char *above, size_t count, int bpp);

typedef struct cpngshims_decoder cpngshims_decoder;

/// Where a decoder's bytes come from: copies the next `length` bytes of the file into `target`
/// and returns how many it copied, fewer only at the end of the file.
typedef size_t (*cpngshims_read_fn)(void *context, unsigned char *target, size_t length);

/// A new decoder reading the file `read` gives (`context` must outlive the decoder), or NULL
/// when memory is exhausted.
cpngshims_decoder *cpngshims_decoder_create(cpngshims_read_fn read, void *context);
void cpngshims_decoder_destroy(cpngshims_decoder *decoder);

/// Reads the chunks before the image data and sets up the output: 8-bit RGB, or RGBA when the
/// picture has alpha or a tRNS chunk libpng takes (palettes, low bit depths and grey expanded;
/// tRNS made alpha; 16-bit samples scaled with rounding; no gamma correction: colour is managed
/// by the caller). Gives whether the rows are RGBA, the size and the number of interlace passes
/// (1 or 7). Returns 0, or -1 with a message.
int cpngshims_decoder_start(cpngshims_decoder *decoder, int *rgba, int *width, int *height,
                            int *passes);

/// Reads the next `rows` rows of the current pass into `pixels`, `stride` bytes apart. For an
/// interlaced image every pass reads all `height` rows of the whole picture, each pass adding
/// its pixels. Returns 0, or -1 with a message.
int cpngshims_decoder_read_rows(cpngshims_decoder *decoder, unsigned char *pixels, size_t stride,
                                int rows);

/// The message of the last failure.
const char *cpngshims_decoder_message(const cpngshims_decoder *decoder);
/// Whether a failure came from reading past the end of the data (a cut-off file).
int cpngshims_decoder_ran_out(const cpngshims_decoder *decoder);
/// Whether a failure came from the zlib stream's Adler-32 checksum, which did not match the
/// data inflated (zlib's "incorrect data check").
int cpngshims_decoder_bad_checksum(const cpngshims_decoder *decoder);
/// The distinct warnings kept so far, and each one.
int cpngshims_decoder_warning_count(const cpngshims_decoder *decoder);
const char *cpngshims_decoder_warning(const cpngshims_decoder *decoder, int index);

#ifdef __cplusplus
}
#endif

#endif
