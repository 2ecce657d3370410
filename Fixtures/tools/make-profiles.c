// Writes the ICC profiles of the colour fixtures with LittleCMS, and the sRGB value LittleCMS
// gives for each fixture's patch colour (relative colorimetric with black-point compensation,
// the pipeline's intent), so the tests compare against LittleCMS's own answer.
//
//   make-profiles OUTDIR          writes OUTDIR/*.icc
//   make-profiles --expect PROFILE.icc R G B [K]
//                                 prints the sRGB value of one colour (0-255, two decimals);
//                                 CMYK profiles take four values, in percent of ink
//
// Build: cc -O2 -Wall -o make-profiles make-profiles.c -llcms2 -lm
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
static cmsCIExyY d50 = {0.3457, 0.3585, 1.0};

static void describe(cmsHPROFILE profile, const char *text) {
  cmsMLU *mlu = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(mlu, "en", "US", text);
  cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
  cmsMLUfree(mlu);
  cmsMLU *copyright = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(copyright, "en", "US", "No copyright: made for the catalogue's test fixtures");
  cmsWriteTag(profile, cmsSigCopyrightTag, copyright);
  cmsMLUfree(copyright);
}

static void save(cmsHPROFILE profile, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  cmsUInt32Number size = 0;
  if (!cmsSaveProfileToMem(profile, NULL, &size)) {
    fprintf(stderr, "cannot encode %s\n", name);
    exit(1);
  }
  unsigned char *bytes = malloc(size);
  cmsSaveProfileToMem(profile, bytes, &size);
  // A fixed creation date (2026-01-01 00:00:00) in place of today's: the same bytes every run.
  static const unsigned char date[12] = {0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  memcpy(bytes + 24, date, sizeof date);
  FILE *file = fopen(path, "wb");
  if (file == NULL || fwrite(bytes, 1, size, file) != size || fclose(file) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  free(bytes);
  cmsCloseProfile(profile);
}

static cmsHPROFILE rgb(cmsCIExyY *white, double rx, double ry, double gx, double gy, double bx, double by,
                       cmsToneCurve *curve, const char *text) {
  cmsCIExyYTRIPLE primaries = {{rx, ry, 1.0}, {gx, gy, 1.0}, {bx, by, 1.0}};
  cmsToneCurve *curves[3] = {curve, curve, curve};
  cmsHPROFILE profile = cmsCreateRGBProfile(white, &primaries, curves);
  cmsSetProfileVersion(profile, 2.1);
  describe(profile, text);
  return profile;
}

static cmsToneCurve *srgb_curve(void) {
  double parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
  return cmsBuildParametricToneCurve(NULL, 4, parameters);
}

// A simple CMYK model for the printer profile: ink multiplies light, black on top; Lab through
// LittleCMS's sRGB. It is not any press's characterisation, only a profile whose colours are
// known and whose black point is not zero.
static int cmyk_to_lab(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
  cmsHTRANSFORM to_lab = (cmsHTRANSFORM)cargo;
  double c = in[0] / 65535.0, m = in[1] / 65535.0, y = in[2] / 65535.0, k = in[3] / 65535.0;
  double floor = 0.06;  // the paper's black is not perfectly black
  // Impure inks: magenta also takes some blue and red, cyan some green, so the profile's
  // colours differ from the naive 1 - ink that a decoder without the profile would show.
  double rgb[3] = {(1 - c) * (1 - 0.15 * m) * (1 - k), (1 - m) * (1 - 0.25 * c) * (1 - 0.1 * y) * (1 - k),
                   (1 - y) * (1 - 0.35 * m) * (1 - k)};
  for (int i = 0; i < 3; i++) rgb[i] = floor + (1 - floor) * rgb[i];
  cmsCIELab lab;
  cmsDoTransform(to_lab, rgb, &lab, 1);
  cmsFloat2LabEncoded(out, &lab);
  return 1;
}

static int lab_to_cmyk(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
  cmsHTRANSFORM to_rgb = (cmsHTRANSFORM)cargo;
  cmsCIELab lab;
  cmsLabEncoded2Float(&lab, in);
  double rgb[3];
  cmsDoTransform(to_rgb, &lab, rgb, 1);
  double floor = 0.06;
  for (int i = 0; i < 3; i++) {
    rgb[i] = (rgb[i] - floor) / (1 - floor);
    if (rgb[i] < 0) rgb[i] = 0;
    if (rgb[i] > 1) rgb[i] = 1;
  }
  double max = rgb[0] > rgb[1] ? (rgb[0] > rgb[2] ? rgb[0] : rgb[2]) : (rgb[1] > rgb[2] ? rgb[1] : rgb[2]);
  double k = 1 - max;
  for (int i = 0; i < 3; i++) out[i] = (cmsUInt16Number)(65535 * (max > 0 ? (max - rgb[i]) / max : 0) + 0.5);
  out[3] = (cmsUInt16Number)(65535 * k + 0.5);
  return 1;
}

static cmsHPROFILE cmyk(void) {
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  cmsHPROFILE lab = cmsCreateLab4Profile(NULL);
  cmsHTRANSFORM to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
  cmsHTRANSFORM to_rgb = cmsCreateTransform(lab, TYPE_Lab_DBL, srgb, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
  cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
  cmsSetProfileVersion(profile, 4.3);
  cmsSetDeviceClass(profile, cmsSigOutputClass);
  cmsSetColorSpace(profile, cmsSigCmykData);
  cmsSetPCS(profile, cmsSigLabData);
  cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ());

  cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3);
  cmsStage *forward = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
  cmsStageSampleCLut16bit(forward, cmyk_to_lab, to_lab, 0);
  // lutAtoBType wants curves around the grid: identity ones.
  cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
  cmsPipelineInsertStage(a2b, cmsAT_END, forward);
  cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
  cmsPipeline *b2a = cmsPipelineAlloc(NULL, 3, 4);
  cmsStage *backward = cmsStageAllocCLut16bit(NULL, 17, 3, 4, NULL);
  cmsStageSampleCLut16bit(backward, lab_to_cmyk, to_rgb, 0);
  cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
  cmsPipelineInsertStage(b2a, cmsAT_END, backward);
  cmsPipelineInsertStage(b2a, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
  cmsWriteTag(profile, cmsSigAToB0Tag, a2b);
  cmsWriteTag(profile, cmsSigAToB1Tag, a2b);
  cmsWriteTag(profile, cmsSigBToA0Tag, b2a);
  cmsWriteTag(profile, cmsSigBToA1Tag, b2a);
  describe(profile, "Simple CMYK (fixture)");
  cmsPipelineFree(a2b);
  cmsPipelineFree(b2a);
  cmsDeleteTransform(to_lab);
  cmsDeleteTransform(to_rgb);
  cmsCloseProfile(srgb);
  cmsCloseProfile(lab);
  return profile;
}

static int expect(int argc, char **argv) {
  cmsHPROFILE source = cmsOpenProfileFromFile(argv[2], "r");
  if (source == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  int is_cmyk = cmsGetColorSpace(source) == cmsSigCmykData;
  cmsUInt32Number format = is_cmyk ? TYPE_CMYK_DBL : (cmsGetColorSpace(source) == cmsSigGrayData ? TYPE_GRAY_DBL : TYPE_RGB_DBL);
  cmsHTRANSFORM transform = cmsCreateTransform(source, format, srgb, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_BLACKPOINTCOMPENSATION);
  double in[4] = {0, 0, 0, 0};
  int wanted = is_cmyk ? 4 : (format == TYPE_GRAY_DBL ? 1 : 3);
  if (argc < 3 + wanted) {
    fprintf(stderr, "%d values wanted\n", wanted);
    return 2;
  }
  for (int i = 0; i < wanted; i++) in[i] = atof(argv[3 + i]) / (is_cmyk ? 1.0 : 255.0);
  double out[3];
  cmsDoTransform(transform, in, out, 1);
  for (int i = 0; i < 3; i++) {
    double value = out[i] * 255;
    if (value < 0) value = 0;
    if (value > 255) value = 255;
    printf(i ? " %.2f" : "%.2f", value);
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--expect") == 0) return expect(argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: make-profiles OUTDIR | --expect PROFILE R G B [K]\n");
    return 2;
  }
  const char *dir = argv[1];
  save(rgb(&d65, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060, srgb_curve(), "Display P3"), dir, "display-p3.icc");
  save(rgb(&d65, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06, cmsBuildGamma(NULL, 563.0 / 256.0), "Adobe RGB (1998)"), dir,
       "adobe-rgb.icc");
  save(rgb(&d50, 0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001, cmsBuildGamma(NULL, 1.8), "ProPhoto RGB"), dir,
       "prophoto.icc");
  // The same ProPhoto with curves tabulated at 16384 points: about 100 KB, more than one JPEG
  // APP2 segment holds.
  // Three distinct tables, so that none is stored as a link to another.
  cmsToneCurve *tables[3];
  cmsUInt16Number *table = malloc(16384 * sizeof *table);
  for (int channel = 0; channel < 3; channel++) {
    for (int i = 0; i < 16384; i++) {
      double x = i / 16383.0;
      double y = x <= 0 ? 0 : exp(1.8 * log(x));
      table[i] = (cmsUInt16Number)(y * 65535 + 0.5 - (i % 3 == channel ? 1 : 0) * (y > 0.5 ? 1 : 0));
    }
    tables[channel] = cmsBuildTabulatedToneCurve16(NULL, 16384, table);
  }
  free(table);
  {
    cmsCIExyYTRIPLE primaries = {{0.7347, 0.2653, 1.0}, {0.1596, 0.8404, 1.0}, {0.0366, 0.0001, 1.0}};
    cmsHPROFILE large = cmsCreateRGBProfile(&d50, &primaries, tables);
    cmsSetProfileVersion(large, 2.1);
    describe(large, "ProPhoto RGB (tabulated)");
    save(large, dir, "prophoto-large.icc");
  }
  cmsHPROFILE gray = cmsCreateGrayProfile(cmsD50_xyY(), cmsBuildGamma(NULL, 1.0));
  cmsSetProfileVersion(gray, 2.1);
  describe(gray, "Gray, linear");
  save(gray, dir, "gray-linear.icc");
  save(cmyk(), dir, "cmyk.icc");
  return 0;
}
