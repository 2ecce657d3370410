// PNG's row filters undone, for PNGStripDecoder: SSE2 for three- and four-byte pixels (RGB and
// RGBA), where a whole pixel fits in the lanes of one register and the Paeth choice is made
// without a branch; plain C for the others.
#include "CPNGShims.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>

#define INLINE static inline __attribute__((always_inline))

INLINE __m128i load_pixel(const uint8_t *p, int bpp) {
  uint32_t value = 0;
  memcpy(&value, p, (size_t)bpp);
  return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)value), _mm_setzero_si128());
}

INLINE void store_pixel(uint8_t *p, __m128i lanes, int bpp) {
  uint32_t value = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(lanes, lanes));
  memcpy(p, &value, (size_t)bpp);
}

static inline __m128i absolute(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

static inline __m128i choose(__m128i mask, __m128i yes, __m128i no) {
  return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

// Each function is inlined where it is called with a constant `bpp` (3 or 4), so that the loads
// and stores of a pixel are single moves. Each works on 16-bit lanes of one pixel; sums wrap at 256 as PNG requires (the lanes
// hold bytes, so an 8-bit add leaves the high bytes zero).
INLINE void sub_simd(uint8_t *row, size_t count, int bpp) {
  __m128i a = _mm_setzero_si128();
  for (size_t i = 0; i + (size_t)bpp <= count; i += (size_t)bpp) {
    a = _mm_add_epi8(a, load_pixel(row + i, bpp));
    store_pixel(row + i, a, bpp);
  }
}

INLINE void average_simd(uint8_t *row, const uint8_t *above, size_t count, int bpp) {
  __m128i a = _mm_setzero_si128();
  for (size_t i = 0; i + (size_t)bpp <= count; i += (size_t)bpp) {
    __m128i b = load_pixel(above + i, bpp);
    __m128i mean = _mm_srli_epi16(_mm_add_epi16(a, b), 1);
    a = _mm_add_epi8(mean, load_pixel(row + i, bpp));
    store_pixel(row + i, a, bpp);
  }
}

INLINE void paeth_simd(uint8_t *row, const uint8_t *above, size_t count, int bpp) {
  __m128i a = _mm_setzero_si128();
  __m128i c = _mm_setzero_si128();
  for (size_t i = 0; i + (size_t)bpp <= count; i += (size_t)bpp) {
    __m128i b = load_pixel(above + i, bpp);
    // With p = a + b - c: |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|.
    __m128i toA = _mm_sub_epi16(b, c);
    __m128i toB = _mm_sub_epi16(a, c);
    __m128i pa = absolute(toA);
    __m128i pb = absolute(toB);
    __m128i pc = absolute(_mm_add_epi16(toA, toB));
    __m128i least = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
    // a when pa is the least, else b when pb is, else c: PNG's order for ties.
    __m128i prediction = choose(_mm_cmpeq_epi16(pa, least), a, choose(_mm_cmpeq_epi16(pb, least), b, c));
    a = _mm_add_epi8(prediction, load_pixel(row + i, bpp));
    store_pixel(row + i, a, bpp);
    c = b;
  }
}
#endif

static inline int distance(int x) { return x < 0 ? -x : x; }

static void paeth_scalar(uint8_t *row, const uint8_t *above, size_t count, size_t bpp) {
  for (size_t i = 0; i < count; i++) {
    int a = i >= bpp ? row[i - bpp] : 0;
    int b = above[i];
    int c = i >= bpp ? above[i - bpp] : 0;
    int pa = distance(b - c);
    int pb = distance(a - c);
    int pc = distance(a + b - 2 * c);
    int prediction = pb <= pc ? b : c;
    prediction = pa <= pb && pa <= pc ? a : prediction;
    row[i] = (uint8_t)(row[i] + prediction);
  }
}

#ifdef __SSE2__
// Filters 1, 3 and 4 for three- or four-byte pixels; inlined once for each constant `bpp`.
INLINE void unfilter_simd(int filter, uint8_t *row, const uint8_t *above, size_t count, int bpp) {
  switch (filter) {
  case 1: sub_simd(row, count, bpp); break;
  case 3: average_simd(row, above, count, bpp); break;
  default: paeth_simd(row, above, count, bpp); break;
  }
}
#endif

int cpngshims_unfilter(int filter, uint8_t *row, const uint8_t *above, size_t count, int bpp) {
  size_t step = (size_t)bpp;
  if (filter < 0 || filter > 4) return -1;
#ifdef __SSE2__
  if (filter == 1 || filter >= 3) {
    if (bpp == 3) {
      unfilter_simd(filter, row, above, count, 3);
      return 0;
    }
    if (bpp == 4) {
      unfilter_simd(filter, row, above, count, 4);
      return 0;
    }
  }
#endif
  switch (filter) {
  case 1:
    for (size_t i = step; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - step]);
    break;
  case 2:
    for (size_t i = 0; i < count; i++) row[i] = (uint8_t)(row[i] + above[i]);
    break;
  case 3:
    for (size_t i = 0; i < count && i < step; i++) row[i] = (uint8_t)(row[i] + (above[i] >> 1));
    for (size_t i = step; i < count; i++) row[i] = (uint8_t)(row[i] + ((row[i - step] + above[i]) >> 1));
    break;
  case 4:
    paeth_scalar(row, above, count, step);
    break;
  default:
    break;
  }
  return 0;
}
