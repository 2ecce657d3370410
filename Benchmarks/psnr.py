#!/usr/bin/env python3
"""Scores thumbnails against ImageMagick Lanczos references (PSNR, dB).

    psnr.py --sources DIR --refs DIR [--size 256] [--jobs N] [--json FILE] LABEL=DIR...

For every image NAME.ext in --sources, the reference --refs/NAME.png is made once
(and again only when the source is newer) with

    convert SRC -filter Lanczos -resize 256x256> REF

i.e. from the full-size decode, never upscaled. Each candidate directory holds
thumbnails named NAME.jpg (or NAME.png); each is decoded with ImageMagick to
8-bit RGB and compared with its reference over all R, G and B samples:

    PSNR = 10 * log10(255^2 / MSE)

Tools may round the thumbnail size differently (e.g. 256x170 against 256x171);
such a candidate is first resized to the reference's exact size with
`-resize WxH!`, and these are counted. Identical images score PSNR_CAP.

Prints one line per LABEL and, with --json, writes the figures to FILE.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

CONVERT = "/usr/bin/convert"
PSNR_CAP = 99.0
IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".avif")


def read_ppm(data: bytes) -> tuple[int, int, bytes]:
    """Parses binary PPM (P6, maxval 255) as written by ImageMagick."""
    fields: list[bytes] = []
    pos = 0
    while len(fields) < 4:
        while data[pos : pos + 1].isspace():
            pos += 1
        if data[pos : pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"unexpected PPM header {fields!r}")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1 : pos + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError("truncated PPM")
    return width, height, pixels


def decode(path: str, resize: tuple[int, int] | None = None) -> tuple[int, int, bytes]:
    args = [CONVERT, "-quiet", path + "[0]", "-alpha", "off", "-colorspace", "sRGB"]
    if resize:
        args += ["-resize", f"{resize[0]}x{resize[1]}!"]
    args += ["-depth", "8", "ppm:-"]
    out = subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
    return read_ppm(out)


def psnr(a: bytes, b: bytes) -> float:
    sse = sum((x - y) * (x - y) for x, y in zip(a, b))
    if sse == 0:
        return PSNR_CAP
    mse = sse / len(a)
    return min(PSNR_CAP, 10.0 * math.log10(255.0 * 255.0 / mse))


def make_reference(src: str, ref: str, size: int) -> None:
    if os.path.exists(ref) and os.path.getmtime(ref) >= os.path.getmtime(src):
        return
    tmp = f"{ref}.tmp{os.getpid()}.png"
    subprocess.run(
        [CONVERT, "-quiet", src + "[0]", "-filter", "Lanczos", "-resize", f"{size}x{size}>", tmp],
        check=True,
        stderr=subprocess.PIPE,
    )
    os.replace(tmp, ref)


def find_candidate(directory: str, name: str) -> str | None:
    for ext in (".jpg", ".png"):
        path = os.path.join(directory, name + ext)
        if os.path.exists(path):
            return path
    return None


def score_one(job: tuple[str, str, int, list[tuple[str, str]]]) -> dict:
    """Makes the reference for one source and scores every candidate for it."""
    src, ref, size, candidates = job
    name = os.path.splitext(os.path.basename(src))[0]
    result: dict = {"name": name, "scores": {}}
    make_reference(src, ref, size)
    rw, rh, rpix = decode(ref)
    for label, directory in candidates:
        path = find_candidate(directory, name)
        if path is None:
            result["scores"][label] = {"missing": True}
            continue
        w, h, pix = decode(path)
        resized = (w, h) != (rw, rh)
        if resized:
            _, _, pix = decode(path, (rw, rh))
        result["scores"][label] = {
            "psnr": psnr(rpix, pix),
            "resized": resized,
            "size": f"{w}x{h}",
            "ref_size": f"{rw}x{rh}",
        }
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", required=True, help="directory of source images")
    ap.add_argument("--refs", required=True, help="directory for the cached references")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("candidates", nargs="+", metavar="LABEL=DIR")
    args = ap.parse_args()

    candidates: list[tuple[str, str]] = []
    for item in args.candidates:
        label, sep, directory = item.partition("=")
        if not sep or not label:
            ap.error(f"expected LABEL=DIR, got {item!r}")
        candidates.append((label, directory))

    sources = sorted(
        os.path.join(args.sources, f)
        for f in os.listdir(args.sources)
        if f.lower().endswith(IMAGE_EXTS)
    )
    if not sources:
        print(f"psnr.py: no images in {args.sources}", file=sys.stderr)
        return 1
    os.makedirs(args.refs, exist_ok=True)
    jobs = [
        (src, os.path.join(args.refs, os.path.splitext(os.path.basename(src))[0] + ".png"), args.size, candidates)
        for src in sources
    ]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(score_one, jobs))

    summary: dict = {}
    for label, _ in candidates:
        scored = [(r["name"], r["scores"][label]) for r in results if not r["scores"][label].get("missing")]
        values = [s["psnr"] for _, s in scored]
        worst = min(scored, key=lambda item: item[1]["psnr"]) if scored else None
        summary[label] = {
            "files": len(sources),
            "scored": len(values),
            "missing": len(sources) - len(values),
            "resized": sum(1 for _, s in scored if s["resized"]),
            "mean_psnr": sum(values) / len(values) if values else None,
            "min_psnr": worst[1]["psnr"] if worst else None,
            "min_name": worst[0] if worst else None,
        }
        s = summary[label]
        mean = f"{s['mean_psnr']:.2f}" if values else "n/a"
        low = f"{s['min_psnr']:.2f} ({s['min_name']})" if worst else "n/a"
        print(
            f"{label}: mean PSNR {mean} dB, min {low}, scored {s['scored']}/{s['files']}, "
            f"resized {s['resized']}, missing {s['missing']}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "images": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
