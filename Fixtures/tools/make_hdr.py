#!/usr/bin/env python3
"""The 10-bit HEIF grids as cameras write them, and the reference each is scored against.

    make_hdr.py WORK IMAGES

Writes, for each of `pq`, `hlg` and `srgb`, the tiles heif-enc encodes (WORK/KIND-tile-R-C.png,
16-bit) and IMAGES/hdr-reference-KIND.png: what the picture must look like as an 8-bit sRGB
thumbnail, computed here in float64 from the same scene; and for PQ, WORK/pq-signal.png (the
picture's samples, for avifenc) and WORK/pq-preview.png (at half size, for a stored thumbnail).
Needs numpy.

The scene is one picture in display light (cd/m², BT.2020 primaries): a grey ramp up to
1000 cd/m², patches at and above SDR reference white (203 cd/m², ITU-R BT.2408), BT.709 and
BT.2020 colours, a hue sweep reaching 600 cd/m², over a smooth background. `pq` codes it with
SMPTE ST 2084, `hlg` with BT.2100 HLG (for its nominal 1000 cd/m² display), both BT.2020
matrix, full range; `srgb` is the same scene as an SDR camera keeps it (reference white as
sRGB white, BT.709, what is brighter clipped), BT.601 matrix as Sony's SDR files have.

heif-enc 1.15 converts RGB to YCbCr with the BT.601 matrix whatever --matrix_coefficients says
(and writes no colr box), so for the BT.2020 matrix each tile holds the R'G'B' whose BT.601
YCbCr is the BT.2020 YCbCr of the picture: the inverse BT.601 matrix of the BT.2020 forward
one. This script refuses a scene for which that leaves [0, 1].

The reference is the conversion the pipeline promises (README, "Pictures"; Color/ToneMapping):
1. decode to display light: PQ's EOTF; HLG's inverse OETF and OOTF (1000 cd/m², gamma 1.2);
2. BT.2020 to BT.709 in linear light;
3. tone map each pixel by its largest component, in PQ, with the EETF of ITU-R BT.2390
   (source peak 1000 cd/m², target peak 203 cd/m²), scaling R, G and B alike (hue kept);
4. colours outside BT.709 desaturated towards their own luminance until no component is
   negative (none is above white after 3);
5. the sRGB curve, rounded to 8 bits.
For `srgb` it is the tile values rounded to 8 bits.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngwriter  # noqa: E402

WIDTH, HEIGHT = 368, 248
TILE_WIDTH, TILE_HEIGHT = 192, 128
COLUMNS, ROWS = 2, 2
REFERENCE_WHITE = 203.0
SOURCE_PEAK = 1000.0

# ---------------------------------------------------------------- transfer functions (BT.2100)
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32


def pq_eotf(signal):
    """PQ signal (0–1) to display light, cd/m²."""
    p = np.power(np.clip(signal, 0, 1), 1 / M2)
    return 10000 * np.power(np.maximum(p - C1, 0) / (C2 - C3 * p), 1 / M1)


def pq_inverse_eotf(light):
    y = np.power(np.clip(light / 10000, 0, 1), M1)
    return np.power((C1 + C2 * y) / (1 + C3 * y), M2)


HLG_A, HLG_B = 0.17883277, 1 - 4 * 0.17883277
HLG_C = 0.5 - HLG_A * np.log(4 * HLG_A)
HLG_GAMMA = 1.2
BT2020_LUMA = np.array([0.2627, 0.6780, 0.0593])


def hlg_oetf(scene):
    scene = np.clip(scene, 0, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        high = HLG_A * np.log(np.maximum(12 * scene - HLG_B, 1e-12)) + HLG_C
    return np.where(scene <= 1 / 12, np.sqrt(3 * scene), high)


def hlg_inverse_oetf(signal):
    signal = np.clip(signal, 0, 1)
    return np.where(signal <= 0.5, signal * signal / 3, (np.exp((signal - HLG_C) / HLG_A) + HLG_B) / 12)


def hlg_ootf(scene):
    """Scene light (0–1, BT.2020) to display light on the nominal 1000 cd/m² display."""
    luminance = scene @ BT2020_LUMA
    return SOURCE_PEAK * np.power(luminance, HLG_GAMMA - 1)[..., None] * scene


def hlg_inverse_ootf(display):
    luminance = display @ BT2020_LUMA / SOURCE_PEAK
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(luminance > 0, np.power(luminance, (1 - HLG_GAMMA) / HLG_GAMMA) / SOURCE_PEAK, 0)
    return display * scale[..., None]


def srgb_encode(linear):
    linear = np.clip(linear, 0, 1)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1 / 2.4) - 0.055)


def srgb_decode(signal):
    return np.where(signal <= 0.04045, signal / 12.92, np.power((signal + 0.055) / 1.055, 2.4))


# ---------------------------------------------------------------- primaries and matrices
def rgb_to_xyz(primaries, white=(0.3127, 0.3290)):
    def xyz(x, y):
        return np.array([x / y, 1, (1 - x - y) / y])

    m = np.stack([xyz(*p) for p in primaries], axis=1)
    return m * np.linalg.solve(m, xyz(*white))


BT709 = rgb_to_xyz([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)])
BT2020 = rgb_to_xyz([(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)])
BT2020_TO_BT709 = np.linalg.solve(BT709, BT2020)
BT709_TO_BT2020 = np.linalg.solve(BT2020, BT709)


def ycbcr_matrix(kr, kb):
    """Full-range R'G'B' to Y'CbCr (Cb, Cr centred on 0)."""
    kg = 1 - kr - kb
    return np.array([
        [kr, kg, kb],
        [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5],
        [0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))],
    ])


BT601_YCBCR = ycbcr_matrix(0.299, 0.114)
BT2020_YCBCR = ycbcr_matrix(0.2627, 0.0593)


# ---------------------------------------------------------------- the scene
def scene():
    """Display light in cd/m², BT.2020 primaries, HEIGHT x WIDTH x 3."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    u, v = x / (WIDTH - 1), y / (HEIGHT - 1)
    level = 2 + 120 * (0.3 + 0.7 * u) * (0.4 + 0.6 * v)
    light = np.stack([level * (0.55 + 0.45 * u), level * (0.55 + 0.45 * v), level * (1 - 0.5 * u)], axis=-1)
    # A grey ramp, even in PQ, from black to 1000 cd/m².
    ramp = pq_eotf(np.linspace(0, 1, WIDTH) * pq_inverse_eotf(SOURCE_PEAK))
    light[8:40, :, :] = ramp[None, :, None]

    def bt709(r, g, b):
        return BT709_TO_BT2020 @ np.array([r, g, b])

    rows = [
        # SDR grey (18 % of reference white), reference white, and whites above it.
        [np.full(3, 0.18 * REFERENCE_WHITE), np.full(3, REFERENCE_WHITE), np.full(3, 500.0), np.full(3, 1000.0),
         # BT.709's primaries at reference white, and a skin tone.
         REFERENCE_WHITE * bt709(1, 0, 0), REFERENCE_WHITE * bt709(0, 1, 0), REFERENCE_WHITE * bt709(0, 0, 1),
         REFERENCE_WHITE * bt709(0.6, 0.4, 0.3)],
        # Colours outside BT.709 and highlights with colour, a dim grey and black.
        [300 * np.array([0.1, 1, 0.1]), 600 * np.array([1, 0.35, 0.05]), 400 * np.array([0.05, 0.8, 1]),
         50 * np.array([0.1, 0.1, 1]), 800 * np.array([1, 0.9, 0.1]), np.full(3, 5.0), np.zeros(3),
         250 * np.array([0.9, 0.1, 0.9])],
    ]
    for row, top in zip(rows, (56, 120)):
        for index, colour in enumerate(row):
            # Even columns, as every edge here: 4:2:0 and 4:2:2 chroma pairs never straddle a
            # patch's edge, so the scores measure the colours, not the chroma subsampling.
            left = 4 + 46 * index
            light[top:top + 48, left:left + 40, :] = colour
    # A hue sweep: hue across, 20 to 600 cd/m² down.
    sweep_y, sweep_x = np.mgrid[184:240, 8:WIDTH - 8].astype(np.float64)
    hue = (sweep_x - 8) / (WIDTH - 17) * 6
    channel = lambda offset: np.clip(np.abs((hue + offset) % 6 - 3) - 1, 0, 1)  # noqa: E731
    colour = np.stack([channel(0), channel(4), channel(2)], axis=-1) * 0.9 + 0.1
    peak = 20 * np.power(30, (sweep_y - 184) / 55)
    light[184:240, 8:WIDTH - 8, :] = colour * peak[..., None]
    return light


def signal(kind, light):
    """The R'G'B' a camera stores for `light`, 0–1."""
    if kind == "pq":
        return pq_inverse_eotf(light)
    if kind == "hlg":
        return hlg_oetf(hlg_inverse_ootf(light))
    # SDR: reference white is white, BT.709, clipped.
    return srgb_encode((light / REFERENCE_WHITE) @ BT2020_TO_BT709.T)


def tile_samples(kind, rgb):
    """What heif-enc is given so that its BT.601 conversion stores the YCbCr `kind` declares."""
    if kind == "srgb":
        return rgb
    ycbcr = rgb @ BT2020_YCBCR.T
    predistorted = ycbcr @ np.linalg.inv(BT601_YCBCR).T
    low, high = predistorted.min(), predistorted.max()
    if low < -0.5 / 65535 or high > 1 + 0.5 / 65535:
        sys.exit("make_hdr.py: the %s scene leaves [0, 1] through BT.601 (%.4f to %.4f)" % (kind, low, high))
    return predistorted


# ---------------------------------------------------------------- the reference
def eetf(light):
    """ITU-R BT.2390's EETF from [0, SOURCE_PEAK] to [0, REFERENCE_WHITE], in cd/m²."""
    source = pq_inverse_eotf(SOURCE_PEAK)
    e1 = pq_inverse_eotf(light) / source
    max_lum = pq_inverse_eotf(REFERENCE_WHITE) / source
    knee = 1.5 * max_lum - 0.5
    t = np.clip((e1 - knee) / (1 - knee), 0, 1)
    spline = (2 * t**3 - 3 * t**2 + 1) * knee + (t**3 - 2 * t**2 + t) * (1 - knee) + (-2 * t**3 + 3 * t**2) * max_lum
    e2 = np.where(e1 < knee, e1, np.where(e1 >= 1, max_lum, spline))
    return pq_eotf(e2 * source)


def gamut_map(rgb):
    """Colours outside [0, 1]: desaturated towards their luminance, as little as needed."""
    luminance = (rgb @ (BT709[1])).clip(0, None)[..., None]
    low = rgb.min(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(low < 0, luminance / (luminance - low), 1)
    rgb = luminance + np.nan_to_num(keep, nan=0) * (rgb - luminance)
    high = rgb.max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(high > 1, (1 - luminance) / (high - luminance), 1)
    keep = np.where(luminance >= 1, 0, np.nan_to_num(keep, nan=0))
    return np.clip(np.minimum(luminance, 1) + keep * (rgb - np.minimum(luminance, 1)), 0, 1)


def reference(kind, coded):
    """The 8-bit sRGB picture, from the samples the file holds (`coded`, R'G'B' 0–1)."""
    if kind == "srgb":
        return np.rint(coded * 255).astype(np.uint8)
    light = pq_eotf(coded) if kind == "pq" else hlg_ootf(hlg_inverse_oetf(coded))
    bt709 = light @ BT2020_TO_BT709.T
    largest = bt709.max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(largest > 0, eetf(largest) / largest, 0)
    return np.rint(srgb_encode(gamut_map(bt709 * scale / REFERENCE_WHITE)) * 255).astype(np.uint8)


def write_png(path, samples, depth):
    rows = [[tuple(int(v) for v in pixel) for pixel in row] for row in samples]
    with open(path, "wb") as f:
        f.write(pngwriter.encode(rows, depth, pngwriter.RGB, filtering="adaptive"))


def main(work, images):
    light = scene()
    for kind in ("pq", "hlg", "srgb"):
        rgb = signal(kind, light)
        # The reference starts from the 16-bit samples the tiles hold, as the file does.
        coded = np.rint(np.clip(rgb, 0, 1) * 65535) / 65535
        samples = np.rint(np.clip(tile_samples(kind, coded), 0, 1) * 65535).astype(np.int64)
        padded = np.zeros((TILE_HEIGHT * ROWS, TILE_WIDTH * COLUMNS, 3), dtype=np.int64)
        padded[:HEIGHT, :WIDTH] = samples
        # The tiles past the picture's edge repeat its last column and row, as encoders pad.
        padded[HEIGHT:, :] = padded[HEIGHT - 1:HEIGHT, :]
        padded[:, WIDTH:] = padded[:, WIDTH - 1:WIDTH]
        for row in range(ROWS):
            for column in range(COLUMNS):
                tile = padded[row * TILE_HEIGHT:(row + 1) * TILE_HEIGHT, column * TILE_WIDTH:(column + 1) * TILE_WIDTH]
                write_png(os.path.join(work, "%s-tile-%d-%d.png" % (kind, row, column)), tile, 16)
        write_png(os.path.join(images, "hdr-reference-%s.png" % kind), reference(kind, coded), 8)
        if kind == "pq":
            # For avifenc, which converts to YCbCr with the matrix it is told: the samples as they are.
            write_png(os.path.join(work, "pq-signal.png"), np.rint(coded * 65535).astype(np.int64), 16)
            # A stored thumbnail as the camera might make it: the samples halved (2 x 2 means).
            half = coded.reshape(HEIGHT // 2, 2, WIDTH // 2, 2, 3).mean(axis=(1, 3))
            preview = np.rint(np.clip(tile_samples(kind, half), 0, 1) * 65535).astype(np.int64)
            write_png(os.path.join(work, "pq-preview.png"), preview, 16)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_hdr.py WORK IMAGES")
    main(sys.argv[1], sys.argv[2])
