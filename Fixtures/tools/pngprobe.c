/*
 * pngprobe: decodes a PNG with libpng the way an application would and
 * reports what libpng said, so the README's claims about each fixture can be
 * checked against the library the pipeline links.
 *
 *     pngprobe [--max-pixels N] [--gamma] FILE [X,Y ...]
 *
 * The header is read first; a picture of more than N pixels (default
 * 50,000,000) is refused before any image data is read.  Otherwise the whole
 * image is decoded to 8-bit RGBA (palette and low bit depths expanded, tRNS
 * turned into alpha, 16-bit samples scaled to 8) and the pixel at each X,Y
 * is printed.  With --gamma libpng also converts for a display gamma of 2.2
 * (sRGB's nominal gamma) from the file's gAMA chunk, or from 1/2.2 without one.
 *
 * Output, one item a line:
 *     header WxH depth=D colour-type=C interlace=I
 *     warning: MESSAGE            (each libpng warning, as issued)
 *     refused: too many pixels (N)
 *     error: MESSAGE              (libpng's fatal error; exit status 1)
 *     pixels read                 (png_read_image finished: every row is in)
 *     pixel X,Y R G B A
 *     decoded                     (png_read_end finished too: IEND was read)
 *
 * Built by tools/verify.sh into a temporary directory:
 *     cc -O2 -o pngprobe pngprobe.c -lpng
 */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_error(png_structp png, png_const_charp message) {
  printf("error: %s\n", message);
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
  (void)png;
  printf("warning: %s\n", message);
}

int main(int argc, char **argv) {
  static unsigned long long max_pixels = 50000000ULL; /* static: kept across the longjmp */
  static int gamma = 0;
  static int arg = 1;
  for (; arg < argc && strncmp(argv[arg], "--", 2) == 0; arg++) {
    if (strcmp(argv[arg], "--max-pixels") == 0 && arg + 1 < argc) {
      max_pixels = strtoull(argv[++arg], NULL, 10);
    } else if (strcmp(argv[arg], "--gamma") == 0) {
      gamma = 1;
    } else {
      fprintf(stderr, "unknown option %s\n", argv[arg]);
      return 2;
    }
  }
  if (arg >= argc) {
    fprintf(stderr, "usage: pngprobe [--max-pixels N] [--gamma] FILE [X,Y ...]\n");
    return 2;
  }
  const char *path = argv[arg++];
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); return 2; }

  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  png_infop info = png_create_info_struct(png);
  /* volatile: assigned after setjmp and read after a longjmp. */
  png_bytep volatile pixels = NULL;
  png_bytepp volatile rows = NULL;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    free(pixels);
    free(rows);
    fclose(f);
    return 1;
  }
  png_init_io(png, f);
  png_read_info(png, info);

  png_uint_32 width, height;
  int depth, colour_type, interlace;
  png_get_IHDR(png, info, &width, &height, &depth, &colour_type, &interlace, NULL, NULL);
  printf("header %lux%lu depth=%d colour-type=%d interlace=%d\n", (unsigned long)width, (unsigned long)height, depth,
         colour_type, interlace);
  unsigned long long count = (unsigned long long)width * height;
  if (count > max_pixels) {
    printf("refused: too many pixels (%llu)\n", count);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return 3;
  }

  png_set_expand(png);
  png_set_scale_16(png);
  png_set_gray_to_rgb(png);
  png_set_filler(png, 0xff, PNG_FILLER_AFTER);
  if (gamma) {
    /* The classic pattern from the libpng manual: the file's own gamma if it
       has a gAMA chunk (or sRGB, which libpng reports as 0.45455), else sRGB. */
    double file_gamma;
    if (!png_get_gAMA(png, info, &file_gamma)) file_gamma = 0.45455;
    png_set_gamma(png, 2.2, file_gamma);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  size_t stride = png_get_rowbytes(png, info);
  pixels = malloc(stride * height);
  rows = malloc(sizeof(png_bytep) * height);
  if (!pixels || !rows) { printf("error: out of memory\n"); return 1; }
  for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + stride * y;
  png_read_image(png, rows);
  printf("pixels read\n");

  for (; arg < argc; arg++) {
    unsigned x, y;
    if (sscanf(argv[arg], "%u,%u", &x, &y) != 2 || x >= width || y >= height) {
      printf("pixel %s outside\n", argv[arg]);
      continue;
    }
    png_bytep p = rows[y] + 4 * x;
    printf("pixel %u,%u %d %d %d %d\n", x, y, p[0], p[1], p[2], p[3]);
  }
  png_read_end(png, NULL); /* reads the chunks after the image data, through IEND */
  printf("decoded\n");
  png_destroy_read_struct(&png, &info, NULL);
  free(pixels);
  free(rows);
  fclose(f);
  return 0;
}
