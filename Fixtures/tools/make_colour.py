#!/usr/bin/env python3
"""The colour-managed fixtures: flat patches tagged with the profiles that
make-profiles.c writes, in JPEG (APP2 ICC_PROFILE segments) and PNG (iCCP,
cHRM + gAMA, sRGB), and the hostile variants of the JPEG profile segments.

    make_colour.py PROFILES WORK IMAGES HOSTILE MAKE_PROFILES ADOBE_CMYK

PROFILES holds the .icc files; WORK is a scratch folder; MAKE_PROFILES and
ADOBE_CMYK are the built helper programs.  Writes IMAGES/colour-expected.txt:
one line per tagged fixture, "NAME R G B", the sRGB value LittleCMS gives for
its patch (relative colorimetric, black-point compensation), which the tests
compare with.
"""

import hashlib
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngwriter  # noqa: E402

SIZE = 64
ICC_SIGNATURE = b"ICC_PROFILE\x00"
SEGMENT_DATA = 65519 - len(ICC_SIGNATURE) - 2  # the most one APP2 segment holds


def ppm(path, colour, gray=False):
    with open(path, "wb") as f:
        if gray:
            f.write(b"P5\n%d %d\n255\n" % (SIZE, SIZE) + bytes([colour[0]]) * (SIZE * SIZE))
        else:
            f.write(b"P6\n%d %d\n255\n" % (SIZE, SIZE) + bytes(colour) * (SIZE * SIZE))


def cjpeg(source, target, gray=False):
    arguments = ["cjpeg", "-quality", "95", "-outfile", target]
    arguments[1:1] = ["-grayscale"] if gray else ["-sample", "1x1"]
    subprocess.run(arguments + [source], check=True)


def app2(sequence, count, data):
    payload = ICC_SIGNATURE + bytes([sequence, count]) + data
    return b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload


def segments_of(profile):
    parts = [profile[i : i + SEGMENT_DATA] for i in range(0, len(profile), SEGMENT_DATA)]
    return [(index + 1, len(parts), part) for index, part in enumerate(parts)]


def with_segments(jpeg, segments):
    """The JPEG with APP2 segments after its APP0 (JFIF wants APP0 first)."""
    assert jpeg[:2] == b"\xff\xd8"
    at = 2
    if jpeg[2:4] == b"\xff\xe0":
        at = 4 + struct.unpack(">H", jpeg[4:6])[0]
    return jpeg[:at] + b"".join(app2(*s) for s in segments) + jpeg[at:]


def expected(make_profiles, profile, values):
    out = subprocess.run([make_profiles, "--expect", profile] + [str(v) for v in values], check=True,
                         capture_output=True, text=True).stdout.split()
    return " ".join(out)


def main(profiles, work, images, hostile, make_profiles, adobe_cmyk):
    def profile(name):
        return open(os.path.join(profiles, name), "rb").read()

    def tagged_jpeg(name, colour, icc, gray=False, segments=None, folder=images):
        source, plain = os.path.join(work, name + ".pnm"), os.path.join(work, name + ".jpg")
        ppm(source, colour, gray)
        cjpeg(source, plain, gray)
        data = open(plain, "rb").read()
        if icc is not None:
            data = with_segments(data, segments if segments is not None else segments_of(icc))
        open(os.path.join(folder, name), "wb").write(data)

    lines = []

    # A saturated red of Display P3, inside sRGB's gamut, and the same pixels untagged.
    p3 = (220, 60, 40)
    tagged_jpeg("colour-p3.jpg", p3, profile("display-p3.icc"))
    tagged_jpeg("colour-p3-untagged.jpg", p3, None)
    lines.append("colour-p3.jpg " + expected(make_profiles, os.path.join(profiles, "display-p3.icc"), p3))
    adobe = (40, 200, 60)
    tagged_jpeg("colour-adobe-rgb.jpg", adobe, profile("adobe-rgb.icc"))
    lines.append("colour-adobe-rgb.jpg " + expected(make_profiles, os.path.join(profiles, "adobe-rgb.icc"), adobe))
    # ProPhoto with tabulated curves: about 99 KB, two APP2 segments.
    pro = (120, 60, 160)
    large = profile("prophoto-large.icc")
    tagged_jpeg("colour-prophoto.jpg", pro, large)
    lines.append("colour-prophoto.jpg " + expected(make_profiles, os.path.join(profiles, "prophoto-large.icc"), pro))
    # A gray JPEG with a linear gray profile.
    tagged_jpeg("colour-gray-linear.jpg", (128,), profile("gray-linear.icc"), gray=True)
    lines.append("colour-gray-linear.jpg " + expected(make_profiles, os.path.join(profiles, "gray-linear.icc"), [128]))

    # Adobe CMYK with the CMYK profile: adobe-cmyk turns RGB into naive ink (see its comment).
    rgb = (184, 69, 207)
    source = os.path.join(work, "cmyk.ppm")
    ppm(source, rgb)
    plain = os.path.join(work, "cmyk.jpg")
    subprocess.run([adobe_cmyk, "cmyk", source, plain, "95"], check=True)
    # adobe-cmyk's own arithmetic: ink less the common black, scaled by 255 / (255 - black).
    ink = [255 - v for v in rgb]
    black = min(ink)
    ink = [(v - black) * 255 // (255 - black) for v in ink] + [black]
    cmyk = profile("cmyk.icc")
    data = with_segments(open(plain, "rb").read(), segments_of(cmyk))
    open(os.path.join(images, "colour-cmyk.jpg"), "wb").write(data)
    percent = ["%.4f" % (v * 100 / 255) for v in ink]
    lines.append("colour-cmyk.jpg " + expected(make_profiles, os.path.join(profiles, "cmyk.icc"), percent))

    # PNG: iCCP; cHRM with Adobe RGB's primaries and gAMA 1/2.2; the sRGB chunk.
    picture = [[p3] * SIZE for _ in range(SIZE)]
    iccp = pngwriter.chunk("iCCP", b"Display P3\x00\x00" + zlib.compress(profile("display-p3.icc"), 9))
    open(os.path.join(images, "colour-p3.png"), "wb").write(pngwriter.encode(picture, 8, pngwriter.RGB, before_idat=[iccp]))
    lines.append("colour-p3.png " + expected(make_profiles, os.path.join(profiles, "display-p3.icc"), p3))
    chrm = pngwriter.chunk("cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000))
    gama = pngwriter.chunk("gAMA", struct.pack(">I", 45455))
    adobe_picture = [[adobe] * SIZE for _ in range(SIZE)]
    open(os.path.join(images, "colour-chrm-gama.png"), "wb").write(
        pngwriter.encode(adobe_picture, 8, pngwriter.RGB, before_idat=[gama, chrm]))
    lines.append("colour-chrm-gama.png " + expected(make_profiles, os.path.join(profiles, "adobe-rgb.icc"), adobe))
    srgb = pngwriter.chunk("sRGB", b"\x00")
    open(os.path.join(images, "colour-srgb-chunk.png"), "wb").write(
        pngwriter.encode(picture, 8, pngwriter.RGB, before_idat=[srgb, gama]))

    # The P3 patch in WebP, HEIC and AVIF, all lossless so that the tolerance is the colour
    # management's alone: WebP with an ICCP chunk (webpmux), HEIC with the PNG's profile
    # (heif-enc copies iCCP into a colr box), AVIF once with the profile and once with nclx
    # 12/13/0 (Display P3's primaries and sRGB's curve, RGB stored as is).
    plain_png = os.path.join(work, "p3-plain.png")
    open(plain_png, "wb").write(pngwriter.encode(picture, 8, pngwriter.RGB))
    p3_icc = os.path.join(profiles, "display-p3.icc")
    lossless_webp = os.path.join(work, "p3.webp")
    subprocess.run(["cwebp", "-quiet", "-lossless", "-exact", plain_png, "-o", lossless_webp], check=True)
    subprocess.run(["webpmux", "-set", "icc", p3_icc, lossless_webp, "-o", os.path.join(images, "colour-p3.webp")],
                   check=True, capture_output=True)
    subprocess.run(["heif-enc", "-L", "-p", "chroma=444", "--matrix_coefficients=0", "-o",
                    os.path.join(images, "colour-p3.heic"), os.path.join(images, "colour-p3.png")],
                   check=True, capture_output=True)
    subprocess.run(["avifenc", "-j", "1", "-l", "--icc", p3_icc, plain_png, os.path.join(images, "colour-p3.avif")],
                   check=True, capture_output=True)
    subprocess.run(["avifenc", "-j", "1", "-l", "--cicp", "12/13/0", plain_png,
                    os.path.join(images, "colour-p3-nclx.avif")], check=True, capture_output=True)
    for name in ("colour-p3.webp", "colour-p3.heic", "colour-p3.avif", "colour-p3-nclx.avif"):
        lines.append(name + " " + expected(make_profiles, p3_icc, p3))

    with open(os.path.join(images, "colour-expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    # Hostile profile segments, all on the ProPhoto patch.
    two = segments_of(large)
    assert len(two) == 2
    tagged_jpeg("icc-segments-out-of-order.jpg", pro, large, segments=[two[1], two[0]], folder=hostile)
    tagged_jpeg("icc-segment-missing.jpg", pro, large, segments=[two[0]], folder=hostile)
    tagged_jpeg("icc-segment-repeated.jpg", pro, large, segments=[two[0], two[0], two[1]], folder=hostile)
    # Random bytes whose first four give their true size: only LittleCMS can tell it is no profile.
    garbage = b"".join(hashlib.sha256(b"icc-garbage %d" % i).digest() for i in range(64))
    garbage = struct.pack(">I", len(garbage)) + garbage[4:]
    tagged_jpeg("icc-garbage.jpg", p3, garbage, folder=hostile)
    p3_profile = profile("display-p3.icc")
    tagged_jpeg("icc-truncated.jpg", p3, p3_profile[: len(p3_profile) // 2], folder=hostile)
    huge = struct.pack(">I", 50 * 1024 * 1024) + p3_profile[4:]
    tagged_jpeg("icc-declared-huge.jpg", p3, huge, folder=hostile)
    broken = pngwriter.chunk("iCCP", b"Display P3\x00\x00" + zlib.compress(profile("display-p3.icc"), 9)[:200])
    open(os.path.join(hostile, "iccp-truncated.png"), "wb").write(
        pngwriter.encode(picture, 8, pngwriter.RGB, before_idat=[broken]))


if __name__ == "__main__":
    main(*sys.argv[1:])
