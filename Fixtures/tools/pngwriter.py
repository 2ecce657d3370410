"""A small, explicit PNG encoder: every chunk, colour type, bit depth and
interlace method is chosen by the caller, so a fixture is exactly what its
name says.  Standard library only (zlib, struct)."""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"

GRAY, RGB, PALETTE, GRAY_ALPHA, RGBA = 0, 2, 3, 4, 6
CHANNELS = {GRAY: 1, RGB: 3, PALETTE: 1, GRAY_ALPHA: 2, RGBA: 4}

# Adam7 passes: (x start, y start, x step, y step).
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def chunk(kind, data):
    """One chunk with a correct CRC."""
    kind = kind.encode("ascii") if isinstance(kind, str) else kind
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def ihdr(width, height, depth, colour_type, interlace=0):
    return chunk("IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, interlace))


def pack_row(samples, depth):
    """Samples (already flattened across channels) to the bytes of one row."""
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    per_byte = 8 // depth
    out = bytearray()
    for i in range(0, len(samples), per_byte):
        group = list(samples[i : i + per_byte]) + [0] * (per_byte - len(samples[i : i + per_byte]))
        b = 0
        for s in group:
            b = (b << depth) | s
        out.append(b)
    return bytes(out)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(rows, bpp, method):
    """Filter packed rows.  method: "none" (type 0 everywhere), or "adaptive":
    per row the cheapest of None/Sub/Up/Paeth by the usual sum-of-absolute-values rule."""
    out = bytearray()
    prior = None
    for row in rows:
        if method == "none":
            out.append(0)
            out += row
            prior = row
            continue
        n = len(row)
        up = prior if prior is not None else bytes(n)
        candidates = [(0, row)]
        candidates.append((1, bytes((row[i] - (row[i - bpp] if i >= bpp else 0)) & 255 for i in range(n))))
        candidates.append((2, bytes((row[i] - up[i]) & 255 for i in range(n))))
        candidates.append(
            (
                4,
                bytes(
                    (row[i] - _paeth(row[i - bpp] if i >= bpp else 0, up[i], up[i - bpp] if i >= bpp else 0)) & 255
                    for i in range(n)
                ),
            )
        )

        def cost(c):
            return sum(v if v < 128 else 256 - v for v in c[1])

        kind, data = min(candidates, key=cost)
        out.append(kind)
        out += data
        prior = row
    return bytes(out)


def image_data(picture, depth, colour_type, interlace=0, filtering="none"):
    """The uncompressed, filtered IDAT payload for a picture.

    picture: rows of pixel tuples holding sample values at the target depth
    (palette indices for colour type 3)."""
    channels = CHANNELS[colour_type]
    bpp = max(1, channels * depth // 8)
    height, width = len(picture), len(picture[0])

    def packed(rows_of_pixels):
        return [pack_row([v for px in r for v in px], depth) for r in rows_of_pixels]

    if not interlace:
        return filter_rows(packed(picture), bpp, filtering)
    out = bytearray()
    for x0, y0, dx, dy in ADAM7:
        sub = [[picture[y][x] for x in range(x0, width, dx)] for y in range(y0, height, dy)]
        if not sub or not sub[0]:
            continue  # an empty pass has no rows and no filter bytes
        out += filter_rows(packed(sub), bpp, filtering)
    return bytes(out)


def idat_chunks(compressed, max_chunk=8192):
    return b"".join(chunk("IDAT", compressed[i : i + max_chunk]) for i in range(0, len(compressed), max_chunk))


def encode(picture, depth, colour_type, interlace=0, before_idat=(), after_idat=(), filtering="none", level=9):
    """A complete PNG.  before_idat / after_idat: already-built chunks."""
    height, width = len(picture), len(picture[0])
    raw = image_data(picture, depth, colour_type, interlace, filtering)
    compressed = zlib.compress(raw, level)
    return (
        SIGNATURE
        + ihdr(width, height, depth, colour_type, interlace)
        + b"".join(before_idat)
        + idat_chunks(compressed)
        + b"".join(after_idat)
        + chunk("IEND", b"")
    )


def chunks(data):
    """(offset, length, kind) for every chunk of a PNG, for the hostile-file patchers."""
    at, out = 8, []
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        out.append((at, length, kind.decode("latin-1")))
        at += 12 + length
    return out
