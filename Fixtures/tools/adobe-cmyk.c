/*
 * adobe-cmyk: writes a 4-component JPEG the way Photoshop stores CMYK, from
 * a binary PPM, with an Adobe APP14 marker:
 *
 *     adobe-cmyk cmyk IN.ppm OUT.jpg QUALITY   CMYK stored as is, Adobe transform 0
 *     adobe-cmyk ycck IN.ppm OUT.jpg QUALITY   CMYK converted to YCCK, Adobe transform 2
 *
 * Each RGB pixel becomes naive CMYK ink (C = 255 - R and so on, K = the
 * common part of C, M and Y, taken out of each), then is stored Adobe-style,
 * inverted: stored value = 255 - ink.  In ycck mode libjpeg converts that
 * CMYK to YCCK while compressing.  Decoded "the usual way" (YCCK -> inverted
 * CMYK if transform is 2, then R = C * K / 255, G = M * K / 255,
 * B = Y * K / 255) the RGB input comes back.
 *
 * (ImageMagick 6's JPEG writer turns CMYK into YCCK itself, so it cannot make
 * the transform-0 file.)
 *
 * Built by make-fixtures.sh into a temporary directory:
 *     cc -O2 -o adobe-cmyk adobe-cmyk.c -ljpeg
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

static int read_token(FILE *f, char *buf, size_t size) {
  int c;
  size_t n = 0;
  do {
    c = fgetc(f);
    if (c == '#') {
      while (c != '\n' && c != EOF) c = fgetc(f);
    }
  } while (c == ' ' || c == '\t' || c == '\r' || c == '\n');
  while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
    if (n + 1 < size) buf[n++] = (char)c;
    c = fgetc(f);
  }
  buf[n] = '\0';
  return n > 0;
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[1], "cmyk") != 0 && strcmp(argv[1], "ycck") != 0)) {
    fprintf(stderr, "usage: adobe-cmyk cmyk|ycck IN.ppm OUT.jpg QUALITY\n");
    return 2;
  }
  int ycck = strcmp(argv[1], "ycck") == 0;
  FILE *in = fopen(argv[2], "rb");
  if (!in) { perror(argv[2]); return 1; }
  char tok[32];
  unsigned width, height, maxval;
  if (!read_token(in, tok, sizeof tok) || strcmp(tok, "P6") != 0) { fprintf(stderr, "not a binary PPM\n"); return 1; }
  if (!read_token(in, tok, sizeof tok)) return 1;
  width = (unsigned)strtoul(tok, NULL, 10);
  if (!read_token(in, tok, sizeof tok)) return 1;
  height = (unsigned)strtoul(tok, NULL, 10);
  if (!read_token(in, tok, sizeof tok)) return 1;
  maxval = (unsigned)strtoul(tok, NULL, 10);
  if (maxval != 255 || width == 0 || height == 0 || width > 10000 || height > 10000) {
    fprintf(stderr, "unsupported PPM\n");
    return 1;
  }
  size_t count = (size_t)width * height * 3;
  unsigned char *rgb = malloc(count);
  if (!rgb || fread(rgb, 1, count, in) != count) { fprintf(stderr, "short PPM\n"); return 1; }
  fclose(in);

  FILE *out = fopen(argv[3], "wb");
  if (!out) { perror(argv[3]); return 1; }

  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, out);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = 4;
  cinfo.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  jpeg_set_colorspace(&cinfo, ycck ? JCS_YCCK : JCS_CMYK);
  cinfo.write_JFIF_header = FALSE;
  cinfo.write_Adobe_marker = TRUE;
  jpeg_set_quality(&cinfo, atoi(argv[4]), TRUE);
  jpeg_start_compress(&cinfo, TRUE);

  unsigned char *row = malloc((size_t)width * 4);
  if (!row) return 1;
  while (cinfo.next_scanline < height) {
    const unsigned char *src = rgb + (size_t)cinfo.next_scanline * width * 3;
    for (unsigned x = 0; x < width; x++) {
      int c = 255 - src[3 * x], m = 255 - src[3 * x + 1], y = 255 - src[3 * x + 2];
      int k = c < m ? (c < y ? c : y) : (m < y ? m : y);
      c -= k; m -= k; y -= k;
      /* Scale what is left so that stored C * stored K / 255 gives R back. */
      int kk = 255 - k;
      if (kk > 0) {
        c = c * 255 / kk; m = m * 255 / kk; y = y * 255 / kk;
      }
      row[4 * x] = (unsigned char)(255 - c);
      row[4 * x + 1] = (unsigned char)(255 - m);
      row[4 * x + 2] = (unsigned char)(255 - y);
      row[4 * x + 3] = (unsigned char)(255 - k);
    }
    JSAMPROW rows[1] = { row };
    jpeg_write_scanlines(&cinfo, rows, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  fclose(out);
  free(row);
  free(rgb);
  return 0;
}
