"""Hand-built EXIF (TIFF) blobs, well-formed and deliberately malformed.

A blob here is the TIFF structure alone (byte-order mark onwards).  In a JPEG
it goes in an APP1 segment after the "Exif\\0\\0" identifier; in a PNG it is the
body of the eXIf chunk."""

import struct

ORIENTATION = 0x0112
RESOLUTION_UNIT = 0x0128
EXIF_IFD_POINTER = 0x8769
SHORT, LONG = 3, 4


def entry(order, tag, kind, count, value):
    """One 12-byte IFD entry whose value fits in the 4-byte value field."""
    if kind == SHORT and count == 1:
        field = struct.pack(order + "HH", value, 0)
    else:
        field = struct.pack(order + "I", value)
    return struct.pack(order + "HHI", tag, kind, count) + field


def ifd(order, entries, next_offset=0, count=None):
    """An IFD: entry count, entries, next-IFD offset.  count overrides the
    stored entry count without changing the entries that follow."""
    n = len(entries) if count is None else count
    return struct.pack(order + "H", n) + b"".join(entries) + struct.pack(order + "I", next_offset)


def header(order, ifd0_offset=8, mark=None):
    mark = mark if mark is not None else (b"MM" if order == ">" else b"II")
    return mark + struct.pack(order + "HI", 42, ifd0_offset)


def orientation(value, order=">"):
    """Well-formed TIFF with IFD0 holding only Orientation = value."""
    return header(order) + ifd(order, [entry(order, ORIENTATION, SHORT, 1, value)])


def ifd_loop():
    """IFD0 (at offset 8) holds ResolutionUnit and an Exif IFD pointer that
    points at IFD0 itself, and IFD0's next-IFD offset points back at IFD0 too.
    A reader that follows either link without remembering where it has been
    never stops.  No Orientation tag anywhere."""
    o = ">"
    entries = [entry(o, RESOLUTION_UNIT, SHORT, 1, 2), entry(o, EXIF_IFD_POINTER, LONG, 1, 8)]
    return header(o) + ifd(o, entries, next_offset=8)


def offset_out_of_bounds():
    """TIFF header whose IFD0 offset is 0xFFFFFFF8: far past the segment, and
    offset + 8 wraps to 0 in 32-bit arithmetic.  An IFD with Orientation = 6
    follows at offset 8, where a reader that ignores the offset would look."""
    o = ">"
    return header(o, ifd0_offset=0xFFFFFFF8) + ifd(o, [entry(o, ORIENTATION, SHORT, 1, 6)])


def count_huge():
    """IFD0 claims 65535 entries (786,420 bytes of them) but the blob holds
    one ResolutionUnit entry and a next-IFD offset: 26 bytes in all.  No
    Orientation tag."""
    o = ">"
    return header(o) + ifd(o, [entry(o, RESOLUTION_UNIT, SHORT, 1, 2)], count=65535)


def truncated():
    """The TIFF header cut after three of its eight bytes: "MM" and half the 42."""
    return header(">")[:3]


def bad_byte_order():
    """Byte-order mark "XX", otherwise a big-endian TIFF with Orientation = 6:
    a reader that guesses the byte order instead of refusing sees 6."""
    o = ">"
    return header(o, mark=b"XX") + ifd(o, [entry(o, ORIENTATION, SHORT, 1, 6)])


def app1(blob):
    """A complete JPEG APP1 marker segment carrying the blob."""
    body = b"Exif\x00\x00" + blob
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
