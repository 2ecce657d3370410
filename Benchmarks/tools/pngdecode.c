/* Decodes each PNG named on the command line in full, to 8-bit RGB(A), with libpng's
 * simplified API, and throws the pixels away: the C yardstick for the PNG part of
 * `catalogue check` (Benchmarks/check-bench.sh). Exit status 1 if any file fails. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int status = 0;
  for (int i = 1; i < argc; i++) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, argv[i])) {
      fprintf(stderr, "%s: %s\n", argv[i], image.message);
      status = 1;
      continue;
    }
    image.format = (image.format & PNG_FORMAT_FLAG_ALPHA) ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_bytep buffer = malloc(PNG_IMAGE_SIZE(image));
    if (buffer == NULL || !png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
      fprintf(stderr, "%s: %s\n", argv[i], buffer == NULL ? "out of memory" : image.message);
      status = 1;
    }
    free(buffer);
    png_image_free(&image);
  }
  return status;
}
