"""Walks the marker segments of a JPEG file, for the hostile-file patchers
and the verifier."""

import struct

# Markers that stand alone, without a length field.
STANDALONE = {0xD8, 0xD9, 0x01} | set(range(0xD0, 0xD8))

NAMES = {0xD8: "SOI", 0xD9: "EOI", 0xDA: "SOS", 0xDB: "DQT", 0xC4: "DHT", 0xDD: "DRI", 0xFE: "COM",
         0xC0: "SOF0", 0xC1: "SOF1", 0xC2: "SOF2", 0xEE: "APP14"}


def name(marker):
    if marker in NAMES:
        return NAMES[marker]
    if 0xE0 <= marker <= 0xEF:
        return "APP%d" % (marker - 0xE0)
    if 0xD0 <= marker <= 0xD7:
        return "RST%d" % (marker - 0xD0)
    return "0x%02X" % marker


def segments(data):
    """(offset, marker, length) for each marker segment up to and including
    the first SOS.  offset is where the 0xFF is; length is the segment length
    field (0 for stand-alone markers).  The entropy-coded data of the first
    scan starts at offset + 2 + length of the SOS entry."""
    out = []
    at = 0
    while at + 1 < len(data):
        if data[at] != 0xFF:
            raise ValueError("no marker at offset %d" % at)
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in STANDALONE:
            out.append((at, marker, 0))
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        out.append((at, marker, length))
        if marker == 0xDA:
            break
        at += 2 + length
    return out


def all_markers(data):
    """Every marker in the file, including those inside entropy-coded data
    (RSTn) and later scans: (offset, marker).  Stuffed 0xFF00 and fill bytes are skipped."""
    out = []
    at = 0
    for off, marker, length in segments(data):
        out.append((off, marker))
        at = off + 2 + length
    while at + 1 < len(data):
        if data[at] == 0xFF and data[at + 1] not in (0x00, 0xFF):
            marker = data[at + 1]
            out.append((at, marker))
            if marker not in STANDALONE:
                (length,) = struct.unpack(">H", data[at + 2 : at + 4])
                at += 2 + length
                continue
            at += 2
            continue
        at += 1
    return out


def sof(data):
    """(marker, height, width, components) from the first SOFn segment."""
    for off, marker, length in segments(data):
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            precision, height, width, ncomp = struct.unpack(">BHHB", data[off + 4 : off + 10])
            comps = []
            for i in range(ncomp):
                cid, hv, tq = struct.unpack(">BBB", data[off + 10 + 3 * i : off + 13 + 3 * i])
                comps.append((cid, hv >> 4, hv & 15))
            return marker, height, width, comps
    raise ValueError("no SOF")


def scan_data_range(data):
    """(start, end) of the first scan's entropy-coded data: from just after
    the SOS header to the next marker other than RSTn."""
    segs = segments(data)
    off, marker, length = segs[-1]
    assert marker == 0xDA
    start = off + 2 + length
    at = start
    while at + 1 < len(data):
        if data[at] == 0xFF and data[at + 1] != 0x00 and not (0xD0 <= data[at + 1] <= 0xD7):
            return start, at
        at += 1
    return start, len(data)
