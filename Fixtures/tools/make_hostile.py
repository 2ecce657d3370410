#!/usr/bin/env python3
"""Writes the hostile JPEGs and the non-image files by patching valid JPEGs
made earlier by make-fixtures.sh.

    make_hostile.py BASELINE.jpg SCENE-BASELINE.jpg SCENE-PROGRESSIVE.jpg HOSTILE_DIR

BASELINE.jpg is images/baseline.jpg (the 120 x 80 quadrants picture); the
two scene files are 640 x 480 JPEGs of the gradient scene, baseline and
progressive, quality 95.
"""

import hashlib
import os
import struct
import sys

import exif
import jpegsegments as J

# Bytes of garbage written into the middle of the scan data of garbage-in-scan.jpg.
GARBAGE_LENGTH = 32
EXTRANEOUS = b"extraneous bytes"  # 16 bytes, no 0xFF among them


def stream(label, n):
    """n deterministic pseudo-random bytes: SHA-256 in counter mode."""
    out = bytearray()
    counter = 0
    while len(out) < n:
        out += hashlib.sha256(b"%s/%d" % (label.encode(), counter)).digest()
        counter += 1
    return bytes(out[:n])


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def with_exif(jpeg, blob):
    """The JPEG with an APP1 Exif segment spliced in right after SOI."""
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + exif.app1(blob) + jpeg[2:]


def main(baseline_path, scene_baseline_path, scene_progressive_path, d):
    os.makedirs(d, exist_ok=True)
    baseline = read(baseline_path)
    scene_baseline = read(scene_baseline_path)
    scene_progressive = read(scene_progressive_path)

    # Not images at all.
    write(d, "empty.jpg", b"")
    write(
        d,
        "text.jpg",
        b"This is not a JPEG.\n"
        b"It is a plain text file that was given a .jpg name,\n"
        b"so the decoder has to look at the bytes, not the extension.\n",
    )
    noise = stream("random.bin", 4096)
    magics = (b"\xff\xd8", b"\x89PNG", b"GIF8", b"RIFF", b"II*\x00", b"MM\x00*", b"BM", b"\x00\x00\x00")
    assert not any(noise.startswith(m) for m in magics), "random.bin starts like an image"
    write(d, "random.bin", noise)

    # Truncated JPEGs: half of the bytes of a 640 x 480 picture.
    write(d, "truncated-baseline.jpg", scene_baseline[: len(scene_baseline) // 2])
    write(d, "truncated-progressive.jpg", scene_progressive[: len(scene_progressive) // 2])

    # Cut in the middle of the first DHT segment, before SOS.
    off, marker, length = next(s for s in J.segments(baseline) if s[1] == 0xC4)
    write(d, "truncated-header.jpg", baseline[: off + 2 + length // 2])

    # SOF0 patched to declare 30000 x 30000; everything else unchanged.
    off, marker, length = next(s for s in J.segments(baseline) if s[1] == 0xC0)
    huge = bytearray(baseline)
    huge[off + 5 : off + 9] = struct.pack(">HH", 30000, 30000)
    write(d, "huge-dimensions.jpg", bytes(huge))

    # 32 bytes in the middle of the scan data overwritten with garbage, no 0xFF.
    start, end = J.scan_data_range(scene_baseline)
    at = (start + end) // 2
    while scene_baseline[at - 1] == 0xFF:  # never right after an 0xFF, which would make a marker
        at += 1
    garbage = bytes(b if b != 0xFF else 0x5A for b in stream("garbage-in-scan", GARBAGE_LENGTH))
    corrupt = bytearray(scene_baseline)
    corrupt[at : at + GARBAGE_LENGTH] = garbage
    write(d, "garbage-in-scan.jpg", bytes(corrupt))

    # Junk between the last DQT and SOF0.
    off, marker, length = next(s for s in J.segments(baseline) if s[1] == 0xC0)
    write(d, "extraneous-bytes.jpg", baseline[:off] + EXTRANEOUS + baseline[off:])

    # Malformed EXIF.
    write(d, "exif-ifd-loop.jpg", with_exif(baseline, exif.ifd_loop()))
    write(d, "exif-offset-out-of-bounds.jpg", with_exif(baseline, exif.offset_out_of_bounds()))
    write(d, "exif-count-huge.jpg", with_exif(baseline, exif.count_huge()))
    write(d, "exif-truncated.jpg", with_exif(baseline, exif.truncated()))
    write(d, "exif-orientation-9.jpg", with_exif(baseline, exif.orientation(9, ">")))
    write(d, "exif-bad-byte-order.jpg", with_exif(baseline, exif.bad_byte_order()))

    # Print where the cuts and patches landed, for the README.
    print("garbage-in-scan.jpg: %d bytes of garbage at offset %d (scan data %d..%d)" % (GARBAGE_LENGTH, at, start, end))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
