#!/usr/bin/env python3
"""Checks every fixture against README.md and prints one line per file.

Run through tools/verify.sh, which builds pngprobe first:

    verify.py --pngprobe PATH

Valid JPEGs are decoded with djpeg (stored pixels) and with ImageMagick
(-auto-orient, upright pixels); valid PNGs with pngcheck -v (colour type,
bit depth, interlace, chunks), with ImageMagick (every pixel compared) and
with libpng through pngprobe (the quadrant centres).  Hostile files are
checked for the defect they are named for and for what djpeg, libpng and
ImageMagick make of them.
"""

import glob
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_adler as adler  # noqa: E402
import exif  # noqa: E402
import jpegsegments as J  # noqa: E402
import pngwriter  # noqa: E402
import pictures as P  # noqa: E402
import pngwriter as W  # noqa: E402

IM = "/usr/bin/convert-im6.q16" if os.path.exists("/usr/bin/convert-im6.q16") else "/usr/bin/convert"
JPEG_TOLERANCE = 8  # per channel, at the sample points of the solid areas
MAX_FILE = 200 * 1024
MAX_TOTAL = 2 * 1024 * 1024

GRAY4 = tuple((v, v, v) for v in P.GRAY_LEVELS)
CENTRE_ORDER = ("TL", "TR", "BL", "BR")
LARGE_PATCH_CENTRES = [((x0 + x1) // 2, (y0 + y1) // 2) for x0, y0, x1, y1, _ in P.scene_patches(1600, 1200)]


# ---------------------------------------------------------------- helpers
def run(cmd, timeout=60):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


class Picture:
    """Decoded pixels as RGBA tuples, from PNM (P5/P6) or PAM (P7) bytes."""

    def __init__(self, data):
        if data[:2] == b"P7":
            end = data.index(b"ENDHDR\n") + 7
            fields = dict(line.split(None, 1) for line in data[3:end - 7].decode().split("\n") if line.strip())
            self.width, self.height = int(fields["WIDTH"]), int(fields["HEIGHT"])
            depth, maxval = int(fields["DEPTH"]), int(fields["MAXVAL"])
            body = data[end:]
        else:
            tokens = re.match(rb"(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
            self.width, self.height, maxval = int(tokens.group(2)), int(tokens.group(3)), int(tokens.group(4))
            depth = 1 if tokens.group(1) == b"P5" else 3
            body = data[tokens.end():]
        assert maxval == 255, "expected 8-bit output, got maxval %d" % maxval
        self.depth = depth
        self.body = body

    def __call__(self, x, y):
        i = (y * self.width + x) * self.depth
        px = tuple(self.body[i : i + self.depth])
        if self.depth == 1:
            return (px[0], px[0], px[0], 255)
        if self.depth == 2:
            return (px[0], px[0], px[0], px[1])
        if self.depth == 3:
            return px + (255,)
        return px


def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def fmt(c):
    return "(%s)" % ",".join(str(v) for v in c)


def djpeg(path):
    rc, out, err = run(["djpeg", "-pnm", path])
    return rc, (Picture(out) if out else None), err.strip()


def im_decode(path, *options):
    rc, out, err = run([IM, path, *options, "-depth", "8", "pam:-"])
    if rc != 0 or not out:
        return None, err.strip()
    return Picture(out), err.strip()


def exiftool(path):
    rc, out, err = run(["exiftool", "-j", "-n", "-a", "-G1", path])
    return json.loads(out)[0]


def centres(width, height):
    """Quadrant centres for a picture of this size, TL TR BL BR."""
    return [(width // 4, height // 4), (3 * width // 4, height // 4), (width // 4, 3 * height // 4), (3 * width // 4, 3 * height // 4)]


def corners(width, height):
    return [(4, 4), (width - 5, 4), (4, height - 5), (width - 5, height - 5)]


def adobe_transform(data):
    for off, marker, length in J.segments(data):
        if marker == 0xEE and data[off + 4 : off + 9] == b"Adobe":
            return data[off + 15]
    return None


def exif_segment(data):
    """(index among segments, TIFF blob) of the first APP1 Exif segment, or None."""
    for i, (off, marker, length) in enumerate(J.segments(data)):
        if marker == 0xE1 and data[off + 4 : off + 10] == b"Exif\x00\x00":
            return i, data[off + 10 : off + 2 + length]
    return None


# ---------------------------------------------------------------- report
class Report:
    def __init__(self):
        self.rows = []
        self.failures = 0

    def add(self, name, ok, note):
        self.rows.append((name, ok, note))
        if not ok:
            self.failures += 1

    def print(self):
        width = max(len(r[0]) for r in self.rows)
        for name, ok, note in self.rows:
            print("%-*s  %-4s  %s" % (width, name, "ok" if ok else "FAIL", note))
        print()
        print("%d files checked, %d failed" % (len(self.rows), self.failures))


class Checks:
    """Collects the failed expectations of one file."""

    def __init__(self):
        self.problems = []
        self.notes = []

    def expect(self, condition, problem):
        if not condition:
            self.problems.append(problem)
        return condition

    def note(self, text):
        self.notes.append(text)

    def result(self):
        return not self.problems, "; ".join(self.problems + self.notes) if self.problems else "; ".join(self.notes)


# ---------------------------------------------------------------- valid JPEGs
# name: (SOF marker, stored WxH, components as (h, v) sampling, Adobe transform, restart interval, EXIF orientation, EXIF byte order)
JPEGS = {
    "baseline.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(2, 2), (1, 1), (1, 1)]),
    "baseline-444.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(1, 1), (1, 1), (1, 1)]),
    "progressive.jpg": dict(sof=0xC2, size=(120, 80), sampling=[(2, 2), (1, 1), (1, 1)]),
    "restart-markers.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(2, 2), (1, 1), (1, 1)], restart=True),
    "grayscale.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(1, 1)], colours=GRAY4),
    "cmyk-adobe.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(1, 1)] * 4, adobe=0),
    "ycck-adobe.jpg": dict(sof=0xC0, size=(120, 80), sampling=[(2, 2), (1, 1), (1, 1), (2, 2)], adobe=2),
}
for n in range(1, 9):
    JPEGS["orientation-%d.jpg" % n] = dict(
        sof=0xC0, size=(80, 120) if n >= 5 else (120, 80), sampling=[(2, 2), (1, 1), (1, 1)], orientation=n, order="MM"
    )
for n in (3, 6):
    JPEGS["orientation-%d-intel.jpg" % n] = dict(
        sof=0xC0, size=(80, 120) if n >= 5 else (120, 80), sampling=[(2, 2), (1, 1), (1, 1)], orientation=n, order="II"
    )


def check_valid_jpeg(path, spec, measured):
    c = Checks()
    data = read_file(path)
    marker, height, width, comps = J.sof(data)
    c.expect(marker == spec["sof"], "SOF is %s" % J.name(marker))
    c.expect((width, height) == spec["size"], "stored size %dx%d" % (width, height))
    c.expect([(h, v) for _, h, v in comps] == spec["sampling"], "sampling %s" % [(h, v) for _, h, v in comps])
    transform = adobe_transform(data)
    c.expect(transform == spec.get("adobe"), "Adobe transform %s" % transform)

    markers = J.all_markers(data)
    rst = sum(1 for _, m in markers if 0xD0 <= m <= 0xD7)
    dri = [off for off, m in markers if m == 0xDD]
    if spec.get("restart"):
        interval = struct.unpack(">H", data[dri[0] + 4 : dri[0] + 6])[0] if dri else 0
        mcus_per_row = (width + 15) // 16
        rows = (height + 15) // 16
        c.expect(interval == mcus_per_row, "restart interval %d, want %d (one MCU row)" % (interval, mcus_per_row))
        c.expect(rst == rows - 1, "%d RST markers, want %d" % (rst, rows - 1))
        c.note("DRI %d MCUs, %d RST markers" % (interval, rst))
    else:
        c.expect(not dri and rst == 0, "unexpected restart markers")

    info = exiftool(path)
    want_orientation = spec.get("orientation")
    c.expect(info.get("IFD0:Orientation") == want_orientation, "exiftool Orientation %s" % info.get("IFD0:Orientation"))
    if want_orientation:
        c.expect(info.get("File:ExifByteOrder") == spec["order"], "byte order %s" % info.get("File:ExifByteOrder"))
        seg = exif_segment(data)
        c.expect(seg is not None and seg[1][:2] == spec["order"].encode(), "APP1 TIFF header not %s" % spec["order"])
    c.expect(not any(k.endswith(":Warning") for k in info), "exiftool warning: %s" % [info[k] for k in info if k.endswith(":Warning")])

    # Stored pixels, as djpeg gives them.
    colours = spec.get("colours", P.QUADRANT_COLOURS)
    rc, pic, err = djpeg(path)
    c.expect(rc == 0 and not err, "djpeg rc=%d %s" % (rc, err))
    if pic:
        c.expect((pic.width, pic.height) == spec["size"], "djpeg size %dx%d" % (pic.width, pic.height))
        # Which upright quadrant each stored pixel came from.
        stored = P.INVERSE[want_orientation or 1](P.quadrants(tuple((q,) for q in range(4))))
        got = []
        for (x, y) in centres(pic.width, pic.height):
            quadrant = stored[y][x][0]
            want = colours[quadrant]
            have = pic(x, y)[:3]
            got.append(have)
            c.expect(close(have, want, JPEG_TOLERANCE), "djpeg %d,%d %s want %s" % (x, y, fmt(have), fmt(want)))
        measured[os.path.basename(path)] = got
        c.note("djpeg " + " ".join(fmt(g) for g in got))

    # Upright pixels, as ImageMagick shows them.
    pic, err = im_decode(path, "-auto-orient", "-colorspace", "sRGB")
    if c.expect(pic is not None, "ImageMagick failed: %s" % err):
        c.expect((pic.width, pic.height) == (120, 80), "upright size %dx%d" % (pic.width, pic.height))
        for points in (centres(120, 80), corners(120, 80)):
            for q, (x, y) in enumerate(points):
                have = pic(x, y)[:3]
                c.expect(close(have, colours[q], JPEG_TOLERANCE), "IM upright %d,%d %s want %s" % (x, y, fmt(have), fmt(colours[q])))
    return c.result()


def check_large_jpeg(path, measured):
    c = Checks()
    data = read_file(path)
    marker, height, width, comps = J.sof(data)
    c.expect((marker, width, height) == (0xC0, 1600, 1200), "SOF %s %dx%d" % (J.name(marker), width, height))
    rc, pic, err = djpeg(path)
    c.expect(rc == 0 and not err, "djpeg rc=%d %s" % (rc, err))
    got = []
    for (x, y), colour in zip(LARGE_PATCH_CENTRES, P.QUADRANT_COLOURS):
        have = pic(x, y)[:3]
        got.append(have)
        c.expect(close(have, colour, JPEG_TOLERANCE), "patch %d,%d %s" % (x, y, fmt(have)))
    background = P.scene_background(800, 600, 1600, 1200)
    centre = pic(800, 600)[:3]
    c.expect(close(centre, background, JPEG_TOLERANCE), "background 800,600 %s want %s" % (fmt(centre), fmt(background)))
    # Scaled decoding, as the thumbnailer does it: each patch is still solid at 1/8.
    rc, small, err = run(["djpeg", "-scale", "1/8", "-pnm", path])
    small = Picture(small)
    c.expect((small.width, small.height) == (200, 150), "1/8 size %dx%d" % (small.width, small.height))
    for (x, y), colour in zip(LARGE_PATCH_CENTRES, P.QUADRANT_COLOURS):
        have = small(x // 8, y // 8)[:3]
        c.expect(close(have, colour, JPEG_TOLERANCE), "1/8 patch %d,%d %s" % (x // 8, y // 8, fmt(have)))
    measured[os.path.basename(path)] = got
    c.note("%d bytes; djpeg patches %s; 800,600 %s (generated %s)" % (len(data), " ".join(fmt(g) for g in got), fmt(centre), fmt(background)))
    return c.result()


# ---------------------------------------------------------------- valid PNGs
def rgba(picture, alpha_br=255):
    h, w = len(picture), len(picture[0])
    out = []
    for y, row in enumerate(picture):
        r = []
        for x, px in enumerate(row):
            rgb = px * 3 if len(px) == 1 else px
            r.append(tuple(rgb) + ((alpha_br if P.quadrant_of(x, y, w, h) == 3 else 255),))
        out.append(r)
    return out


def gamma_picture():
    pic = [list(row) for row in P.quadrants()]
    for y in range(30, 50):
        for x in range(50, 70):
            pic[y][x] = (128, 128, 128)
    return pic


QUAD = P.quadrants()
GRAYQ = P.quadrants(tuple((v,) for v in P.GRAY_LEVELS))
PNGS = {
    # name: (pngcheck IHDR description, required chunks, forbidden chunks, expected RGBA picture)
    "rgb-8.png": ("24-bit RGB, non-interlaced", [], [], rgba(QUAD)),
    "rgb-16.png": ("48-bit RGB, non-interlaced", [], [], rgba(QUAD)),
    "rgba-8.png": ("32-bit RGB+alpha, non-interlaced", [], [], rgba(QUAD, 128)),
    "rgba-16.png": ("64-bit RGB+alpha, non-interlaced", [], [], rgba(QUAD, 128)),
    "gray-1.png": ("1-bit grayscale, non-interlaced", [], [], rgba(P.quadrants(((0,), (255,), (255,), (0,))))),
    "gray-2.png": ("2-bit grayscale, non-interlaced", [], [], rgba(GRAYQ)),
    "gray-4.png": ("4-bit grayscale, non-interlaced", [], [], rgba(GRAYQ)),
    "gray-8.png": ("8-bit grayscale, non-interlaced", [], [], rgba(GRAYQ)),
    "gray-16.png": ("16-bit grayscale, non-interlaced", [], [], rgba(GRAYQ)),
    "gray-alpha-8.png": ("16-bit grayscale+alpha, non-interlaced", [], [], rgba(GRAYQ, 128)),
    "gray-alpha-16.png": ("32-bit grayscale+alpha, non-interlaced", [], [], rgba(GRAYQ, 128)),
    "palette-1.png": ("1-bit palette, non-interlaced", ["PLTE"], ["tRNS"],
                      rgba([[P.RED if x < 60 else P.BLUE for x in range(120)] for _ in range(80)])),
    "palette-2.png": ("2-bit palette, non-interlaced", ["PLTE"], ["tRNS"], rgba(QUAD)),
    "palette-4.png": ("4-bit palette, non-interlaced", ["PLTE"], ["tRNS"], rgba(QUAD)),
    "palette-8.png": ("8-bit palette, non-interlaced", ["PLTE"], ["tRNS"], rgba(QUAD)),
    "palette-trns.png": ("8-bit palette, non-interlaced", ["PLTE", "tRNS"], [], rgba(QUAD, 0)),
    "rgb-trns.png": ("24-bit RGB, non-interlaced", ["tRNS"], [], rgba(QUAD, 0)),
    "gray-trns.png": ("8-bit grayscale, non-interlaced", ["tRNS"], [], rgba(GRAYQ, 0)),
    "interlaced.png": ("24-bit RGB, interlaced", [], [], rgba(QUAD)),
    "interlaced-rgba-16.png": ("64-bit RGB+alpha, interlaced", [], [], rgba(QUAD, 128)),
    "interlaced-gray-1.png": ("1-bit grayscale, interlaced", [], [], rgba(P.quadrants(((0,), (255,), (255,), (0,))))),
    "interlaced-gray-4.png": ("4-bit grayscale, interlaced", [], [], rgba(GRAYQ)),
    "interlaced-gray-16.png": ("16-bit grayscale, interlaced", [], [], rgba(GRAYQ)),
    "interlaced-gray-alpha-16.png": ("32-bit grayscale+alpha, interlaced", [], [], rgba(GRAYQ, 128)),
    "interlaced-palette-4.png": ("4-bit palette, interlaced", ["PLTE"], ["tRNS"], rgba(QUAD)),
    "interlaced-palette-trns.png": ("8-bit palette, interlaced", ["PLTE", "tRNS"], [], rgba(QUAD, 0)),
    "interlaced-rgb-16.png": ("48-bit RGB, interlaced", [], [], rgba(QUAD)),
    "interlaced-rgb-trns.png": ("24-bit RGB, interlaced", ["tRNS"], [], rgba(QUAD, 0)),
    "gamma-1.0.png": ("24-bit RGB, non-interlaced", ["gAMA"], ["sRGB", "iCCP", "cHRM"], rgba(gamma_picture())),
    "srgb.png": ("24-bit RGB, non-interlaced", ["sRGB"], ["gAMA", "iCCP"], rgba(QUAD)),
    "orientation-6.png": ("24-bit RGB, non-interlaced", ["eXIf"], [], rgba(P.INVERSE[6](QUAD))),
}


def pngcheck(path):
    rc, out, err = run(["pngcheck", "-v", path])
    text = out.decode("utf-8", "replace")
    chunks = re.findall(r"chunk (\w{4}) at offset", text)
    ihdr = re.search(r"(\d+) x (\d+) image, (.*)", text)
    return rc, text, chunks, ihdr


def pngprobe(probe, path, points, *options):
    rc, out, err = run([probe, *options, path] + ["%d,%d" % p for p in points])
    lines = out.decode().splitlines()
    pixels = {}
    for line in lines:
        m = re.match(r"pixel (\d+),(\d+) (\d+) (\d+) (\d+) (\d+)", line)
        if m:
            pixels[(int(m.group(1)), int(m.group(2)))] = tuple(int(v) for v in m.group(3, 4, 5, 6))
    return rc, lines, pixels


def compare_all(c, pic, want, label, ignore_transparent_rgb=True):
    h, w = len(want), len(want[0])
    if not c.expect((pic.width, pic.height) == (w, h), "%s size %dx%d" % (label, pic.width, pic.height)):
        return
    bad = 0
    first = None
    for y in range(h):
        for x in range(w):
            have, expected = pic(x, y), want[y][x]
            if expected[3] == 0 and ignore_transparent_rgb:
                ok = have[3] == 0
            else:
                ok = have == expected
            if not ok:
                bad += 1
                first = first or (x, y, have, expected)
    c.expect(bad == 0, "%s: %d pixels differ, first %s" % (label, bad, first))


def check_valid_png(path, spec, probe):
    description, required, forbidden, want = spec
    c = Checks()
    rc, text, chunks, ihdr = pngcheck(path)
    c.expect(rc == 0 and "No errors detected" in text, "pngcheck: %s" % text.strip().splitlines()[-1])
    h, w = len(want), len(want[0])
    c.expect(ihdr and (int(ihdr.group(1)), int(ihdr.group(2))) == (w, h) and ihdr.group(3).strip() == description,
             "pngcheck says %s" % (ihdr.group(0) if ihdr else "no IHDR"))
    for kind in required:
        c.expect(kind in chunks, "no %s chunk" % kind)
        if kind in ("PLTE", "tRNS", "gAMA", "sRGB", "eXIf"):
            c.expect(chunks.index(kind) < chunks.index("IDAT"), "%s after IDAT" % kind)
    for kind in forbidden:
        c.expect(kind not in chunks, "unexpected %s chunk" % kind)

    pic, err = im_decode(path)
    if c.expect(pic is not None, "ImageMagick failed: %s" % err):
        compare_all(c, pic, want, "ImageMagick")

    points = centres(w, h)
    rc, lines, pixels = pngprobe(probe, path, points)
    c.expect(rc == 0 and lines[-1] == "decoded" and not any(l.startswith("warning") for l in lines), "libpng: %s" % lines)
    for (x, y) in points:
        have, expected = pixels.get((x, y)), want[y][x]
        if expected[3] == 0:
            c.expect(have is not None and have[3] == 0, "libpng %d,%d %s want transparent" % (x, y, have))
        else:
            c.expect(have == expected, "libpng %d,%d %s want %s" % (x, y, have, expected))
    c.note("%s, chunks %s" % (description, " ".join(chunks)))

    name = os.path.basename(path)
    if name == "gamma-1.0.png":
        rc, lines, pixels = pngprobe(probe, path, [(60, 40), (30, 20), (90, 60)], "--gamma")
        c.expect(pixels.get((60, 40)) == (186, 186, 186, 255), "libpng with gamma: patch %s" % (pixels.get((60, 40)),))
        c.expect(pixels.get((30, 20)) == (255, 0, 0, 255), "libpng with gamma: TL %s" % (pixels.get((30, 20)),))
        c.note("libpng gamma 1.0 -> 2.2: 128 -> %d" % pixels.get((60, 40), (0,))[0])
    if name == "orientation-6.png":
        info = exiftool(path)
        c.expect(info.get("IFD0:Orientation") == 6, "exiftool Orientation %s" % info.get("IFD0:Orientation"))
        c.expect(info.get("File:ExifByteOrder") == "MM", "byte order %s" % info.get("File:ExifByteOrder"))
        up, err = im_decode(path, "-auto-orient")
        if up is not None and (up.width, up.height) == (120, 80):
            c.note("ImageMagick -auto-orient honours eXIf")
        else:
            c.note("ImageMagick -auto-orient ignores eXIf (stays %dx%d)" % (up.width, up.height) if up else "IM failed")
    return c.result()


def check_large_png(path, probe):
    c = Checks()
    rc, text, chunks, ihdr = pngcheck(path)
    c.expect(rc == 0 and ihdr and ihdr.group(0).strip() == "1600 x 1200 image, 24-bit RGB, non-interlaced", "pngcheck %s" % text[-200:])
    want = P.scene(1600, 1200)
    rc, out, err = run([IM, path, "-depth", "8", "rgb:-"])
    expected = bytes(v for row in want for px in row for v in px)
    c.expect(out == expected, "pixels differ from tools/pictures.py scene(1600, 1200)")
    rc, lines, pixels = pngprobe(probe, path, LARGE_PATCH_CENTRES)
    for p, colour in zip(LARGE_PATCH_CENTRES, P.QUADRANT_COLOURS):
        c.expect(pixels.get(p) == colour + (255,), "libpng %s %s" % (p, pixels.get(p)))
    c.note("%d bytes; every pixel equals the generated scene" % os.path.getsize(path))
    return c.result()


# ---------------------------------------------------------------- hostile
def djpeg_summary(path):
    rc, pic, err = djpeg(path)
    msgs = [l for l in err.splitlines() if l.strip()]
    return rc, pic, msgs


LIBJPEG_MESSAGE = re.compile(r"^(Corrupt JPEG data|Premature end of JPEG file|Bogus|Not a JPEG file|Empty input file|Invalid|Unsupported)")


def djpeg_all_messages(path):
    """Every warning and error libjpeg issues.  djpeg prints only the first
    warning unless the trace level is 3 or more, which also prints trace lines."""
    rc, out, err = run(["djpeg", "-v", "-v", "-v", "-outfile", os.devnull, path])
    return [l.strip() for l in err.splitlines() if LIBJPEG_MESSAGE.match(l.strip())]


_sources = {}


def source(name):
    """The valid files the hostile ones were cut from, rebuilt the same way
    make-fixtures.sh builds them (the 640 x 480 ones are not kept)."""
    if name not in _sources:
        if name == "baseline":
            _sources[name] = read_file("images/baseline.jpg")
        elif name == "rgb-8":
            _sources[name] = read_file("images/rgb-8.png")
        elif name == "scene-png":
            _sources[name] = W.encode(P.scene(640, 480), 8, W.RGB, filtering="adaptive")
        else:
            ppm = "P6\n640 480\n255\n".encode() + bytes(v for row in P.scene(640, 480) for px in row for v in px)
            extra = ["-progressive"] if name == "scene-progressive" else []
            p = subprocess.run(["cjpeg", "-quality", "95", "-sample", "2x2", *extra], input=ppm, stdout=subprocess.PIPE, check=True)
            _sources[name] = p.stdout
    return _sources[name]


def check_heif(path):
    """The HEIF fixtures of tools/make_heif.sh (README.md, "HEIF"): the brand their name says;
    the valid ones read by heif-info. Their pixels are checked by the Swift tests."""
    data = read_file(path)
    c = Checks()
    brand = os.path.basename(path)[:4].encode()
    # A 10-bit HEIC is "heix" (HEVC's Main 10 and range extensions), as cameras write it.
    brands = (brand, b"heix") if brand == b"heic" else (brand,)
    c.expect(data[4:8] == b"ftyp" and data[8:12] in brands, "ftyp %r, want brand %r" % (data[:12], brands))
    if path.startswith("images/"):
        rc, out, err = run(["heif-info", path])
        c.expect(rc == 0, "heif-info rc=%d %s" % (rc, err.strip()[:200]))
        first = [l for l in out.decode(errors="replace").splitlines() if l.startswith("image:")]
        c.note("heif-info: %s" % (first[0] if first else "no image line"))
        if "-clap-" in path:
            check_heif_shows_quadrants(c, path, out.decode(errors="replace"))
        if "10bit-pq" in path or "10bit-hlg" in path or "10bit-srgb" in path:
            check_heif_samples(c, path, out.decode(errors="replace"))
    elif "ispe" in path:
        # What libheif makes of a size box that is not the coded picture's: it reports the box
        # and decodes the coded picture whatever the box says.
        wants = {"heic-thumbnail-ispe-larger.heic": (480, 320), "avif-grid-ispe-larger.avif": (256, 128)}
        want = wants.get(os.path.basename(path), (120, 80))
        rc, out, err = run(["heif-info", path])
        first = [l for l in out.decode(errors="replace").splitlines() if l.startswith("image:")]
        with tempfile.TemporaryDirectory() as work:
            rc, _, err = run(["heif-convert", path, os.path.join(work, "out.png")])
            rc, size, _ = run([IM.replace("convert", "identify"), "-format", "%w %h", os.path.join(work, "out.png")])
        decoded = tuple(int(v) for v in size.decode().split()) if size else None
        c.expect(decoded == want, "heif-convert decodes %s, want %s" % (decoded, want))
        c.note("heif-info: %s; heif-convert decodes %s" % (first[0] if first else "no image line", decoded))
    return c.result()


def check_heif_shows_quadrants(c, path, info):
    """A file with a clean aperture, a rotation and a mirroring (tools/heif_transform.py): what
    libheif shows (heif-convert) is the quadrants, 120 x 80, with none of the grey frame that
    the aperture leaves out; a stored thumbnail is half the coded picture."""
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.png")
        rc, _, err = run(["heif-convert", path, out])
        c.expect(rc == 0, "heif-convert rc=%d %s" % (rc, err.strip()[:200]))
        pic, err = im_decode(out) if rc == 0 else (None, err)
    if pic is None:
        c.expect(False, "heif-convert gave nothing: %s" % err)
        return
    c.expect((pic.width, pic.height) == (120, 80), "heif-convert shows %dx%d" % (pic.width, pic.height))
    for point, want in list(zip(centres(120, 80), P.QUADRANT_COLOURS)) + list(zip(corners(120, 80), P.QUADRANT_COLOURS)):
        got = pic(*point)[:3]
        c.expect(close(got, want, 8), "heif-convert at %s: %s, want %s" % (point, fmt(got), fmt(want)))
    if "preview" in path:
        thumbnails = [l.strip() for l in info.splitlines() if l.strip().startswith("thumbnail:")]
        want = "thumbnail: 60x40" if "untransformed" not in path else "thumbnail: 72x48"
        c.expect(thumbnails == [want], "heif-info: %s, want %r" % (thumbnails, want))
    c.note("heif-convert shows the quadrants, 120x80")


def hdr_kind(path):
    return next(kind for kind in ("pq", "hlg", "srgb") if "10bit-" + kind in path)


def check_heif_samples(c, path, info):
    """A 10-bit picture of tools/make_hdr.py: libheif decodes (heif-convert, 16-bit PNG, the
    nclx colour box's matrix) the samples make_hdr.py coded, within the codec's error (PSNR of
    at least 38 dB over the 10-bit signal); a stored thumbnail is 184 x 124."""
    import make_hdr  # needs numpy, as make_hdr.py does
    import numpy as np

    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.png")
        rc, _, err = run(["heif-convert", path, out])
        c.expect(rc == 0, "heif-convert rc=%d %s" % (rc, err.strip()[:200]))
        rc, raw, err = run([IM, out, "-depth", "16", "-endian", "MSB", "rgb:-"]) if rc == 0 else (rc, b"", err)
    if rc != 0 or len(raw) != make_hdr.WIDTH * make_hdr.HEIGHT * 6:
        c.expect(False, "no 16-bit %dx%d picture from heif-convert: %s" % (make_hdr.WIDTH, make_hdr.HEIGHT, err[:200]))
        return
    decoded = np.frombuffer(raw, dtype=">u2").reshape(make_hdr.HEIGHT, make_hdr.WIDTH, 3) / 65535
    kind = hdr_kind(path)
    coded = np.rint(np.clip(make_hdr.signal(kind, make_hdr.scene()), 0, 1) * 65535) / 65535
    psnr = 10 * np.log10(1 / np.mean((decoded - coded) ** 2))
    c.expect(psnr >= 38, "the decoded samples score %.1f dB against the coded ones" % psnr)
    if "preview" in path:
        thumbnails = [l.strip() for l in info.splitlines() if l.strip().startswith("thumbnail:")]
        c.expect(thumbnails == ["thumbnail: 184x124"], "heif-info: %s" % thumbnails)
    c.note("heif-convert decodes the coded samples: %.1f dB" % psnr)


def check_hdr_reference(path):
    """A reference of tools/make_hdr.py: the bytes it writes again, an 8-bit RGB PNG."""
    import make_hdr

    c = Checks()
    if not _hdr_references:
        with tempfile.TemporaryDirectory() as work:
            make_hdr.main(work, work)
            for kind in ("pq", "hlg", "srgb"):
                name = "hdr-reference-%s.png" % kind
                _hdr_references[name] = read_file(os.path.join(work, name))
    c.expect(read_file(path) == _hdr_references.get(os.path.basename(path)), "make_hdr.py writes other bytes now")
    rc, _, _, ihdr = pngcheck(path)
    size = (int(ihdr.group(1)), int(ihdr.group(2))) if ihdr else None
    c.expect(rc == 0 and size == (make_hdr.WIDTH, make_hdr.HEIGHT), "pngcheck rc=%d, size %s" % (rc, size))
    c.note("make_hdr.py writes these bytes again; %s" % (ihdr.group(3) if ihdr else "?"))
    return c.result()


_hdr_references = {}


def check_hostile(path, probe):
    name = os.path.basename(path)
    data = read_file(path)
    c = Checks()

    def expect_djpeg(rc_want, message, size=None, all_messages=None):
        """all_messages: the complete list of libjpeg warnings and errors, in order."""
        rc, pic, msgs = djpeg_summary(path)
        c.expect(rc == rc_want, "djpeg rc=%d (want %d)" % (rc, rc_want))
        c.expect(any(message in m for m in msgs), "djpeg said %s, want %r" % (msgs, message))
        if size:
            c.expect(pic is not None and (pic.width, pic.height) == size, "djpeg size %s" % (((pic.width, pic.height) if pic else None),))
        everything = djpeg_all_messages(path)
        if all_messages is not None:
            c.expect(everything == all_messages, "libjpeg messages %s, want %s" % (everything, all_messages))
        c.note("djpeg rc=%d: %s" % (rc, " / ".join(everything) or "no messages"))
        return pic

    def expect_probe(last, contains, *options, points=()):
        rc, lines, pixels = pngprobe(probe, path, points, *options)
        c.expect(lines and lines[-1].startswith(last), "libpng ended with %s, want %s" % (lines[-1:] or None, last))
        for text in contains:
            c.expect(any(text in l for l in lines), "libpng did not say %r: %s" % (text, lines))
        c.note("libpng: " + " / ".join(l for l in lines if not l.startswith("pixel")))
        return pixels

    def expect_identify(fmt_name, size=(120, 80)):
        rc, out, err = run([IM.replace("convert", "identify"), "-format", "%m %w %h", path])
        have = out.decode().split()
        c.expect(have == [fmt_name, str(size[0]), str(size[1])], "identify says %s %s" % (have, err.strip()))
        c.note("ImageMagick reads it: %s" % " ".join(have))

    def expect_quadrants_jpeg():
        rc, pic, msgs = djpeg_summary(path)
        for q, (x, y) in enumerate(centres(120, 80)):
            c.expect(pic and close(pic(x, y)[:3], P.QUADRANT_COLOURS[q], JPEG_TOLERANCE), "pixel %d,%d" % (x, y))

    def expect_exif(blob_want, orientation_seen):
        seg = exif_segment(data)
        c.expect(seg is not None and seg[0] == 1, "APP1 Exif is not the segment right after SOI")
        c.expect(seg is not None and seg[1] == blob_want, "EXIF blob differs from tools/exif.py")
        c.expect(data[:2] + data[2 + len(exif.app1(blob_want)):] == source("baseline"), "not baseline.jpg plus one APP1")
        rc, pic, msgs = djpeg_summary(path)
        c.expect(rc == 0 and not msgs and not djpeg_all_messages(path), "djpeg rc=%d %s" % (rc, msgs))
        expect_quadrants_jpeg()
        info = exiftool(path)
        seen = info.get("IFD0:Orientation")
        warning = [info[k] for k in info if k.endswith(":Warning")]
        c.expect(seen == orientation_seen, "exiftool Orientation %s, want %s" % (seen, orientation_seen))
        pic, err = im_decode(path, "-auto-orient")
        c.expect(pic is not None and (pic.width, pic.height) == (120, 80), "ImageMagick -auto-orient: %s %s" % ((pic.width, pic.height) if pic else None, err))
        c.note("decodes cleanly; exiftool Orientation=%s%s" % (seen, ("; exiftool: " + "; ".join(warning)) if warning else ""))

    if name == "empty.jpg":
        c.expect(len(data) == 0, "not empty")
        expect_djpeg(1, "Empty input file")
    elif name == "text.jpg":
        c.expect(all(32 <= b < 127 or b == 10 for b in data), "not plain text")
        expect_djpeg(1, "Not a JPEG file")
    elif name == "random.bin":
        c.expect(len(data) == 4096, "size %d" % len(data))
        magics = (b"\xff\xd8", b"\x89PNG", b"GIF8", b"RIFF", b"II*\x00", b"MM\x00*", b"BM", b"\x00\x00\x00")
        c.expect(not any(data.startswith(m) for m in magics), "starts with an image magic")
        c.note("starts %s" % data[:4].hex())
        expect_djpeg(1, "Not a JPEG file")
    elif name == "picture.gif":
        c.expect(data[:6] == b"GIF89a", "magic %r" % data[:6])
        expect_identify("GIF")
    elif name == "picture.webp":
        c.expect(data[:4] == b"RIFF" and data[8:12] == b"WEBP", "magic %r" % data[:16])
        c.note("chunk %s" % data[12:16].decode())
        expect_identify("WEBP")
    elif name in ("picture.heic", "picture.avif"):
        brand = name.split(".")[1].encode()
        c.expect(data[4:8] == b"ftyp" and data[8:12] == brand, "ftyp %r" % data[:16])
        expect_identify("HEIC")
    elif name == "picture-le.tif":
        c.expect(data[:4] == b"II*\x00", "magic %r" % data[:4])
        expect_identify("TIFF")
    elif name == "picture-be.tif":
        c.expect(data[:4] == b"MM\x00*", "magic %r" % data[:4])
        expect_identify("TIFF")
    elif name == "picture.bmp":
        c.expect(data[:2] == b"BM", "magic %r" % data[:2])
        expect_identify("BMP3")
    elif name in ("truncated-baseline.jpg", "truncated-progressive.jpg"):
        full = source("scene-" + name[len("truncated-"):-len(".jpg")])
        c.expect(data == full[: len(full) // 2], "not the first half of the 640x480 %s JPEG" % name)
        c.expect(J.sof(data)[0] == (0xC0 if "baseline" in name else 0xC2), "SOF")
        sos = [off for off, m in J.all_markers(full) if m == 0xDA]
        scan = sum(1 for off in sos if off < len(data))
        c.note("%d of %d bytes, cut inside scan %d of %d" % (len(data), len(full), scan, len(sos)))
        expect_djpeg(2, "Premature end of JPEG file", (640, 480),
                     ["Premature end of JPEG file", "Corrupt JPEG data: premature end of data segment"])
    elif name == "truncated-header.jpg":
        c.expect(source("baseline").startswith(data), "not a prefix of baseline.jpg")
        last = J.all_markers(data)[-1]
        c.expect(last[1] == 0xC4 and b"\xff\xda" not in data, "not cut inside DHT before SOS")
        c.note("baseline.jpg cut at byte %d, inside the first DHT (at %d)" % (len(data), last[0]))
        expect_djpeg(1, "Bogus Huffman table definition",
                     all_messages=["Premature end of JPEG file"] * 2 + ["Bogus Huffman table definition"])
    elif name == "huge-dimensions.jpg":
        marker, height, width, comps = J.sof(data)
        c.expect((width, height) == (30000, 30000), "SOF says %dx%d" % (width, height))
        diff = [i for i, (a, b) in enumerate(zip(data, source("baseline"))) if a != b]
        sof_at = next(off for off, m, n in J.segments(data) if m == 0xC0)
        c.expect(len(data) == len(source("baseline")) and all(sof_at + 5 <= i < sof_at + 9 for i in diff),
                 "differs from baseline.jpg outside the SOF dimensions")
        rc, out, err = run(["rdjpgcom", "-verbose", path])
        c.expect(b"30000w * 30000h" in out, "rdjpgcom: %s" % out)
        c.note("SOF0 30000x30000 = 900,000,000 pixels (not decoded here)")
    elif name == "garbage-in-scan.jpg":
        c.expect(J.sof(data)[1:3] == (480, 640), "size")
        full = source("scene-baseline")
        diff = [i for i, (a, b) in enumerate(zip(data, full)) if a != b]
        start, end = J.scan_data_range(full)
        c.expect(len(data) == len(full) and diff and diff[-1] - diff[0] < 32, "more than 32 bytes changed")
        c.expect(b"\xff" not in data[diff[0] : diff[-1] + 1] and data[diff[0] - 1] != 0xFF, "garbage makes a marker")
        c.expect(start < diff[0] and diff[-1] < end, "garbage outside the scan data")
        c.note("bytes %d..%d of scan data %d..%d overwritten" % (diff[0], diff[0] + 31, start, end))
        expect_djpeg(2, "Corrupt JPEG data", (640, 480), ["Corrupt JPEG data: premature end of data segment"])
    elif name == "extraneous-bytes.jpg":
        sof_at = data.index(b"\xff\xc0")
        c.expect(data[sof_at - 16 : sof_at] == b"extraneous bytes", "no junk before SOF0")
        c.expect(data[: sof_at - 16] + data[sof_at:] == source("baseline"), "not baseline.jpg plus 16 bytes")
        expect_djpeg(2, "16 extraneous bytes before marker 0xc0", (120, 80),
                     ["Corrupt JPEG data: 16 extraneous bytes before marker 0xc0"])
        expect_quadrants_jpeg()
    elif name == "exif-ifd-loop.jpg":
        expect_exif(exif.ifd_loop(), None)
    elif name == "exif-offset-out-of-bounds.jpg":
        expect_exif(exif.offset_out_of_bounds(), None)
    elif name == "exif-count-huge.jpg":
        expect_exif(exif.count_huge(), None)
    elif name == "exif-truncated.jpg":
        expect_exif(exif.truncated(), None)
    elif name == "exif-orientation-9.jpg":
        expect_exif(exif.orientation(9, ">"), 9)
    elif name == "exif-bad-byte-order.jpg":
        expect_exif(exif.bad_byte_order(), None)
    elif name == "truncated-idat.png":
        full = source("scene-png")
        idats = [(o, n) for o, n, k in W.chunks(full) if k == "IDAT"]
        payload = sum(n for o, n in idats)
        inside = sum(min(max(len(data) - (o + 8), 0), n) for o, n in idats)
        c.expect(full.startswith(data) and inside == payload // 2, "not cut half way through the IDAT data")
        c.note("%d of %d bytes; %d of %d IDAT data bytes kept" % (len(data), len(full), inside, payload))
        expect_probe("error", ["header 640x480", "Read Error"])
    elif name == "truncated-header.png":
        c.expect(len(data) == 21 and data[12:16] == b"IHDR" and source("rgb-8").startswith(data), "not cut inside IHDR")
        expect_probe("error", ["Read Error"])
    elif name == "no-iend.png":
        c.expect(data + W.chunk("IEND", b"") == source("rgb-8"), "not rgb-8.png without IEND")
        expect_probe("error", ["pixels read", "Read Error"], points=[(30, 20)])
    elif name == "bad-crc.png":
        diff = [i for i, (a, b) in enumerate(zip(data, source("rgb-8"))) if a != b]
        o, n, k = next(ch for ch in W.chunks(data) if ch[2] == "IDAT")
        c.expect(diff == [o + 8 + n], "not rgb-8.png with one IDAT CRC byte changed")
        expect_probe("error", ["IDAT: CRC error"])
    elif name.startswith("bad-adler32"):
        valid = read_file("images/rgb-8.png" if name == "bad-adler32.png" else "images/interlaced-palette-4.png")
        adler.check(data)
        c.expect(data == adler.damage_adler(valid), "not %s with its Adler-32 inverted" % ("rgb-8.png" if name == "bad-adler32.png" else "interlaced-palette-4.png"))
        expect_probe("error", ["IDAT: incorrect data check"])
    elif name == "bad-crc-ancillary.png":
        pixels = expect_probe("decoded", ["tEXt: CRC error"], points=centres(120, 80))
        c.expect([pixels.get(p, (0, 0, 0))[:3] for p in centres(120, 80)] == list(P.QUADRANT_COLOURS), "pixels %s" % pixels)
    elif name == "huge-dimensions.png":
        crc_ok = struct.unpack(">I", data[29:33])[0] == zlib.crc32(data[12:29]) & 0xFFFFFFFF
        c.expect(crc_ok, "IHDR CRC wrong")
        expect_probe("refused", ["header 20000x20000", "too many pixels (400000000)"])
    elif name == "decompression-bomb.png":
        idat = b"".join(data[o + 8 : o + 8 + n] for o, n, k in W.chunks(data) if k == "IDAT")
        d = zlib.decompressobj()
        total = 0
        buf = idat
        while buf:
            total += len(d.decompress(buf, 1 << 20))
            buf = d.unconsumed_tail
        total += len(d.flush())
        c.expect(total == 64 << 20, "inflates to %d" % total)
        c.note("IDAT %d bytes inflate to %d (image needs 10,100)" % (len(idat), total))
        expect_probe("decoded", ["Too much image data"], points=[(50, 50)])
    elif name.startswith("declared-huge-"):
        kind = name[len("declared-huge-") : -len(".png")]
        ihdr_end = W.chunks(source("rgb-8"))[1][0]
        c.expect(data[:ihdr_end] == source("rgb-8")[:ihdr_end], "not rgb-8.png's signature and IHDR")
        c.expect(struct.unpack(">I4s", data[ihdr_end : ihdr_end + 8]) == (1 << 30, kind.encode()), "no 1 GiB %s" % kind)
        c.expect(len(data) < 100, "%d bytes" % len(data))
        expect_probe("error", ["%s: chunk data is too large" % kind, "Read Error"])
    elif name in ("ztxt-bomb.png", "itxt-bomb.png", "iccp-bomb.png"):
        kind = {"ztxt-bomb.png": "zTXt", "itxt-bomb.png": "iTXt", "iccp-bomb.png": "iCCP"}[name]
        o, n, k = W.chunks(data)[1]
        c.expect(k == kind, "second chunk is %s" % k)
        body = data[o + 8 : o + 8 + n]
        stream = body[body.index(b"\x00") + (2 if kind != "iTXt" else 5) :]
        d = zlib.decompressobj()
        total, buf = 0, stream
        while buf:
            total += len(d.decompress(buf, 1 << 20))
            buf = d.unconsumed_tail
        c.expect(total == 64 << 20, "inflates to %d" % total)
        c.expect(data[:o] + data[o + 12 + n :] == source("rgb-8"), "not rgb-8.png with one chunk added")
        c.note("%s of %d bytes inflates to %d" % (kind, n, total))
        expect_probe("decoded", [kind], points=[(30, 20)])
    else:
        c.expect(False, "no check for this file")
    return c.result()


# ---------------------------------------------------------------- WebP (tools/make_webp.sh)
# name: (canvas WxH, what `webpmux -info` must say, what dwebp must say: None = decodes)
WEBPS = {
    "images/webp-lossy.webp": ((120, 80), "No features present", None),
    "images/webp-lossless.webp": ((120, 80), "No features present", None),
    "images/webp-lossy-alpha.webp": ((120, 80), "transparency", None),
    "images/webp-lossless-alpha.webp": ((120, 80), "transparency", None),
    "images/webp-large-1600x1200.webp": ((1600, 1200), "No features present", None),
    "images/webp-orientation-6.webp": ((80, 120), "EXIF metadata", None),
    "images/webp-orientation-3.webp": ((120, 80), "EXIF metadata", None),
    "images/webp-icc.webp": ((120, 80), "ICC profile", None),
    "images/webp-animated.webp": ((120, 80), "Number of frames: 3", "animated WebP file is not supported"),
    # Transparent through the palette; webpmux reads the headers, which say so only in the first.
    "images/webp-lossless-palette-alpha.webp": ((120, 80), "transparency", None),
    "images/webp-lossless-palette-alpha-no-hint.webp": ((120, 80), "No features present", None),
    "images/webp-lossless-palette-alpha-vp8x-no-flag.webp": ((120, 80), "No features present", None),
    "hostile/webp-truncated-lossy.webp": (None, None, "Status: 7(NOT_ENOUGH_DATA)"),
    "hostile/webp-truncated-lossless.webp": (None, None, "Status: 7(NOT_ENOUGH_DATA)"),
    "hostile/webp-riff-size-past-end.webp": (None, None, "Status: 7(NOT_ENOUGH_DATA)"),
    "hostile/webp-garbage-after-header.webp": ((120, 80), None, "Status: 3(BITSTREAM_ERROR)"),
    "hostile/webp-huge-canvas.webp": (None, None, "Status: 3(BITSTREAM_ERROR)"),
    "hostile/webp-iccp-garbage.webp": ((120, 80), "Size of the ICC profile data: 301", None),
    "hostile/webp-iccp-declared-huge.webp": (None, None, "Status: 3(BITSTREAM_ERROR)"),
    "hostile/webp-icc-flag-without-chunk.webp": (None, None, None),
}


def check_webp(path):
    """What webpmux and dwebp (libwebp's own tools) say of a WebP fixture."""
    c = Checks()
    if path not in WEBPS:
        c.expect(False, "not described in README.md")
        return c.result()
    size, info, dwebp = WEBPS[path]
    data = read_file(path)
    c.expect(data[:4] == b"RIFF" and data[8:12] == b"WEBP", "magic %r" % data[:16])
    mux = subprocess.run(["webpmux", "-info", path], capture_output=True, text=True)
    text = mux.stdout + mux.stderr
    if size:
        c.expect("Canvas size: %d x %d" % size in text, "webpmux: %r" % text[:80])
    if info:
        c.expect(info in text, "webpmux did not say %r" % info)
    run = subprocess.run(["dwebp", path, "-o", os.devnull], capture_output=True, text=True)
    said = (run.stdout + run.stderr).strip()
    if dwebp is None:
        c.expect(run.returncode == 0, "dwebp failed: %s" % said)
        c.note("dwebp decodes it")
        if "palette-alpha" in path:
            check_webp_palette_alpha(c, path, data)
    else:
        c.expect(run.returncode != 0 and dwebp in said, "dwebp said %r, want %r" % (said, dwebp))
        c.note("dwebp: %s" % dwebp)
    return c.result()


def check_webp_palette_alpha(c, path, data):
    """The palette-alpha files (tools/webp_alpha_hint.py): one VP8L picture using colour
    indexing (transform 3, the first the bitstream names), whose alpha_is_used hint is set only
    in the first file, behind a VP8X without its alpha flag in the last; libwebp decodes the
    palette's alpha (dwebp -pam, always RGBA) all the same: 255, 170, 85, 0 at the centres."""
    at = data.index(b"VP8L") + 8
    hint = struct.unpack("<I", data[at + 1:at + 5])[0] >> 28 & 1
    c.expect(hint == (0 if "hint" in path or "vp8x" in path else 1), "VP8L alpha_is_used = %d" % hint)
    # After the 5 header bytes: transform present (1 bit), then its type (2 bits), LSB first.
    c.expect(data[at + 5] & 1 == 1 and data[at + 5] >> 1 & 3 == 3, "the first transform is not colour indexing")
    if "vp8x" in path:
        c.expect(data[12:16] == b"VP8X" and data[20] & 0x10 == 0, "not a VP8X without its alpha flag")
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.pam")
        subprocess.run(["dwebp", path, "-pam", "-o", out], capture_output=True)
        pic = Picture(read_file(out))
    alphas = [pic(*point)[3] for point in centres(120, 80)]
    c.expect(alphas == [255, 170, 85, 0], "dwebp -pam gives alpha %s" % alphas)
    c.note("alpha hint %d, colour indexing, dwebp's alpha %s" % (hint, alphas))


# ---------------------------------------------------------------- colour
# APP2 ICC_PROFILE segments as (sequence, count) for the JPEGs, the colour chunks for the PNGs.
COLOURS = {
    "images/colour-p3.jpg": [(1, 1)],
    "images/colour-p3-untagged.jpg": [],
    "images/colour-adobe-rgb.jpg": [(1, 1)],
    "images/colour-prophoto.jpg": [(1, 2), (2, 2)],
    "images/colour-gray-linear.jpg": [(1, 1)],
    "images/colour-cmyk.jpg": [(1, 3), (2, 3), (3, 3)],
    "hostile/icc-segments-out-of-order.jpg": [(2, 2), (1, 2)],
    "hostile/icc-segment-missing.jpg": [(1, 2)],
    "hostile/icc-segment-repeated.jpg": [(1, 2), (1, 2), (2, 2)],
    "hostile/icc-garbage.jpg": [(1, 1)],
    "hostile/icc-truncated.jpg": [(1, 1)],
    "hostile/icc-declared-huge.jpg": [(1, 1)],
    "images/colour-p3.png": ["iCCP"],
    "images/colour-chrm-gama.png": ["gAMA", "cHRM"],
    "images/colour-srgb-chunk.png": ["sRGB", "gAMA"],
    "hostile/iccp-truncated.png": ["iCCP"],
    # What webpmux -info or heif-info says of the colour of the WebP, HEIC and AVIF patches.
    "images/colour-p3.webp": ["ICC profile"],
    "images/colour-p3.heic": ["color profile: prof"],
    "images/colour-p3.avif": ["color profile: prof"],
    "images/colour-p3-nclx.avif": ["color profile: nclx"],
}


def check_colour(path):
    """The colour fixtures: their profile segments or chunks are as listed, and the picture
    itself decodes with djpeg or pngcheck (the profile is no part of the image data)."""
    c = Checks()
    data = read_file(path)
    if path == "images/colour-expected.txt":
        names = [line.split()[0] for line in data.decode().splitlines() if line.strip()]
        c.expect(all(os.path.exists("images/" + n) for n in names), "names a missing file")
        c.expect(all(len(line.split()) == 4 for line in data.decode().splitlines()), "lines of NAME R G B")
        c.note("%d expected sRGB values" % len(names))
        return c.result()
    want = COLOURS[path]
    if path.endswith((".webp", ".heic", ".avif")):
        tool = ["webpmux", "-info", path] if path.endswith(".webp") else ["heif-info", path]
        run = subprocess.run(tool, capture_output=True, text=True)
        c.expect(run.returncode == 0 and want[0] in run.stdout, "%s said %r" % (tool[0], run.stdout[:200]))
        c.note("%s: %s" % (tool[0], want[0]))
    elif path.endswith(".jpg"):
        found = []
        for marker, start, end in _app_segments(data):
            if marker == 0xE2 and data[start:start + 12] == b"ICC_PROFILE\x00":
                found.append((data[start + 12], data[start + 13]))
        c.expect(found == want, "ICC segments %r, want %r" % (found, want))
        run = subprocess.run(["djpeg", "-outfile", os.devnull, path], capture_output=True, text=True)
        c.expect(run.returncode == 0, "djpeg: %s" % run.stderr.strip())
        c.note("ICC segments %s; djpeg decodes it" % (found or "none"))
    else:
        kinds = [kind for _, _, kind in pngwriter.chunks(data) if kind in ("iCCP", "gAMA", "cHRM", "sRGB")]
        c.expect(kinds == want, "colour chunks %r, want %r" % (kinds, want))
        run = subprocess.run(["pngcheck", path], capture_output=True, text=True)
        c.expect(run.returncode == 0, "pngcheck: %s" % run.stdout.strip())
        c.note("chunks %s; pngcheck ok" % " ".join(kinds))
    return c.result()


def _app_segments(data):
    """(marker, payload start, payload end) of the segments before the first scan."""
    at, out = 2, []
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xDA:
            break
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        out.append((marker, at + 4, at + 2 + length))
        at += 2 + length
    return out


# ---------------------------------------------------------------- main
def main():
    args = sys.argv[1:]
    probe = args[args.index("--pngprobe") + 1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    report = Report()
    measured = {}

    files = sorted(glob.glob("images/*")) + sorted(glob.glob("hostile/*"))
    known = set("images/" + n for n in list(JPEGS) + list(PNGS) + ["large-1600x1200.jpg", "large-1600x1200.png"])
    for name in sorted(known):
        if not os.path.exists(name):
            report.add(name, False, "missing")

    total = 0
    for path in files:
        size = os.path.getsize(path)
        total += size
        base = os.path.basename(path)
        try:
            if base.startswith("webp-"):
                ok, note = check_webp(path)
            elif path in COLOURS or path == "images/colour-expected.txt":
                ok, note = check_colour(path)
            elif base.startswith(("heic-", "avif-")):
                ok, note = check_heif(path)
            elif base.startswith("hdr-reference-"):
                ok, note = check_hdr_reference(path)
            elif path.startswith("images/"):
                if base in JPEGS:
                    ok, note = check_valid_jpeg(path, JPEGS[base], measured)
                elif base in PNGS:
                    ok, note = check_valid_png(path, PNGS[base], probe)
                elif base == "large-1600x1200.jpg":
                    ok, note = check_large_jpeg(path, measured)
                elif base == "large-1600x1200.png":
                    ok, note = check_large_png(path, probe)
                else:
                    ok, note = False, "not described in README.md"
            else:
                ok, note = check_hostile(path, probe)
        except Exception as e:  # a check that crashed is a failed check
            ok, note = False, "check crashed: %r" % e
        if size > MAX_FILE:
            ok, note = False, "%d bytes, over %d; %s" % (size, MAX_FILE, note)
        report.add(path, ok, note)

    report.print()
    print("total size %d bytes (limit %d)" % (total, MAX_TOTAL))
    if total > MAX_TOTAL:
        report.failures += 1
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
