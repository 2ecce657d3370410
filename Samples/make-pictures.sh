#!/usr/bin/env bash
# Draws the pictures of the sample library: one abstract "poster" per review in
# Samples/reviews/, named like the review (NN-slug.jpg or NN-slug.png).
#
#   Samples/make-pictures.sh OUTDIR
#
# Everything is synthesised with ImageMagick 6 from shapes, gradients and seeded
# noise: no fonts, no photos, no files from elsewhere. Random operators get a
# fixed -seed and the outputs are written with -strip, so two runs produce the
# same bytes.
#
# The set deliberately covers what the catalogue has to cope with:
#   - landscape (1600x1000) and portrait (1200x1600) JPEGs at quality 88;
#   - 02-avengers-endgame.jpg: stored rotated 90 degrees anticlockwise with EXIF
#     Orientation 6, so it is only upright when the orientation is applied;
#   - 05-morgans-reviews.png: an RGBA PNG (1000x1000) with a transparent background;
#   - second pictures NN-slug-2.webp and NN-slug-2.heic: WebP from the web, HEIC from a phone.
#
# Needs: imagemagick (6), libimage-exiftool-perl, webp, libheif-examples, awk.
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 64
fi
out=$1
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ImageMagick 6 itself; prefer the versioned binary over whatever `convert` is on PATH.
if [ -n "${CONVERT:-}" ]; then
  im=$CONVERT
elif [ -x /usr/bin/convert-im6.q16 ]; then
  im=/usr/bin/convert-im6.q16
elif [ -x /usr/bin/convert ]; then
  im=/usr/bin/convert
else
  echo "$0: ImageMagick 6 not found (apt-get install imagemagick)" >&2
  exit 69
fi
command -v exiftool >/dev/null || { echo "$0: exiftool not found (apt-get install libimage-exiftool-perl)" >&2; exit 69; }
command -v cwebp >/dev/null || { echo "$0: cwebp not found (apt-get install webp)" >&2; exit 69; }
command -v heif-enc >/dev/null || { echo "$0: heif-enc not found (apt-get install libheif-examples)" >&2; exit 69; }

export LC_ALL=C
# One thread: results must not depend on how the work is split.
export MAGICK_THREAD_LIMIT=1

jpeg_out=(-strip -colorspace sRGB -type TrueColor -interlace None -sampling-factor 2x2 -quality 88)

# Wide blurs are done at a quarter of the size (the canvases divide by 4): much
# faster, and a glow does not need the detail. Used unquoted: "$(soft 36)".
soft() {
  echo "-resize 25% -blur 0x$(($1 / 4)) -resize 400%"
}

# Darkens the corners towards EDGE: a radial gradient, wider than the picture,
# multiplied in. Used unquoted, like soft.
vignette() {  # WIDTH HEIGHT EDGE
  echo "( -size $(($1 * 3 / 2))x$(($2 * 3 / 2)) radial-gradient:white-$3 -gravity center -extent $1x$2 +repage -gravity NorthWest ) -compose multiply -composite"
}

# Prints MVG primitives; the random choices come from a fixed Park-Miller generator
# (exact in double precision, so every awk gives the same sequence).
mvg() {
  awk -v seed="$1" "
    function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
    function rint(lo, hi) { return lo + int(rnd() * (hi - lo + 1)) }
    function star(cx, cy, r1, r2, a0,   i, a, r, s) {
      s = \"polygon\"
      for (i = 0; i < 10; i++) {
        a = a0 + i * 3.14159265358979 / 5; r = (i % 2) ? r2 : r1
        s = s sprintf(\" %.1f,%.1f\", cx + r * sin(a), cy - r * cos(a))
      }
      print s
    }
    $2"
}

# --- 01 Shazam!: a lightning bolt on a red-to-gold sunburst --------------------------
rays=$(mvg 1 '
  BEGIN {
    cx = 800; cy = 500; R = 1400; n = 28
    for (i = 0; i < n; i += 2) {
      a1 = i * 2 * 3.14159265358979 / n; a2 = (i + 1) * 2 * 3.14159265358979 / n
      printf "polygon %d,%d %.1f,%.1f %.1f,%.1f\n", cx, cy, cx + R * cos(a1), cy + R * sin(a1), cx + R * cos(a2), cy + R * sin(a2)
    }
  }')
bolt="polygon 905,70 585,540 775,540 640,935 1060,385 860,385 1030,70"
"$im" -respect-parentheses -size 1600x1000 -define gradient:angle=135 gradient:'#5c0010-#e89a00' \
  \( -size 1600x1000 xc:none -fill 'rgba(255,200,90,0.14)' -draw "$rays" \) -compose over -composite \
  \( -size 1600x1000 radial-gradient:'#7a4a10-black' \) -compose screen -composite \
  $(vignette 1600 1000 '#702830') \
  \( -size 1600x1000 xc:black -fill '#ffb000' -draw "$bolt" $(soft 36) \) -compose screen -composite \
  \( -size 1600x1000 xc:black -fill '#fff0b0' -draw "$bolt" -blur 0x12 \) -compose screen -composite \
  \( -size 1600x1000 xc:none -fill '#ffd23f' -stroke '#fff6d8' -strokewidth 10 -draw "$bolt" \) -compose over -composite \
  \( -size 1600x1000 xc:none -fill 'rgba(255,255,255,0.45)' -draw "polygon 905,70 1030,70 985,153 848,153" \) -compose over -composite \
  "${jpeg_out[@]}" "$out/01-shazam.jpg"

# --- 02 Avengers: Endgame: a clock-face time portal over a dark horizon --------------
# Drawn upright (landscape), then stored rotated 90 degrees anticlockwise and tagged
# with EXIF Orientation 6 ("rotate 90 clockwise to display").
ticks=$(mvg 2 '
  BEGIN {
    cx = 800; cy = 430
    for (i = 0; i < 60; i++) {
      a = i * 3.14159265358979 / 30; r1 = (i % 5) ? 292 : 270; r2 = 305
      printf "line %.1f,%.1f %.1f,%.1f\n", cx + r1 * sin(a), cy - r1 * cos(a), cx + r2 * sin(a), cy - r2 * cos(a)
    }
  }')
portal="fill none stroke-width 14 stroke '#39d5ff' circle 800,430 800,110
stroke-width 6 stroke '#b57bff' circle 800,430 800,60
stroke-width 4 stroke '#ffc94a' circle 800,430 800,160
stroke-linecap round stroke-width 16 stroke '#ffe7a0' line 800,430 800,215
stroke-width 12 line 800,430 955,515"
horizon="polygon 0,1000 0,850 180,815 330,835 520,790 700,820 820,805 1010,840 1200,800 1390,830 1600,790 1600,1000"
"$im" -respect-parentheses -size 1600x1000 gradient:'#050111-#2c0d4f' \
  \( -size 1600x1000 xc:gray50 -seed 2002 +noise Random -channel G -separate +channel -threshold 99.7% -blur 0x0.8 \) -compose screen -composite \
  \( -size 1600x1000 xc:black -fill '#4a2aa8' -draw "circle 800,430 800,150" $(soft 60) \) -compose screen -composite \
  \( -size 1600x1000 xc:black -draw "$portal" -stroke '#d9f6ff' -strokewidth 5 -draw "$ticks" $(soft 16) \) -compose screen -composite \
  \( -size 1600x1000 xc:none -draw "$portal" -stroke '#d9f6ff' -strokewidth 5 -draw "$ticks" \) -compose over -composite \
  \( -size 1600x1000 xc:none -fill '#07040e' -draw "$horizon" \) -compose over -composite \
  -rotate 270 \
  "${jpeg_out[@]}" "$out/02-avengers-endgame.jpg"
exiftool -q -Orientation#=6 -overwrite_original "$out/02-avengers-endgame.jpg"

# --- 03 John Wick 3: neon signs in the rain, reflected in a wet street (portrait) ----
neon_pink="fill none stroke '#ff2bd6' stroke-width 12
rectangle 150,260 330,980
line 150,420 330,420
rectangle 820,180 1060,420
circle 940,300 940,230"
neon_cyan="fill none stroke '#1ee3ff' stroke-width 12
rectangle 470,520 730,1080
line 470,700 730,700
line 820,560 1060,560
line 820,640 1060,640
line 820,720 1000,720"
rain=$(mvg 3 '
  BEGIN {
    # Streaks falling slightly to the left, fainter the shorter they are.
    for (i = 0; i < 520; i++) {
      x = rint(-100, 1300); y = rint(-100, 1600); len = rint(30, 140)
      printf "stroke rgba(190,215,255,%.2f) stroke-width %.1f line %d,%d %.1f,%.1f\n", 0.08 + len / 900, 1 + rnd(), x, y, x - len * 0.27, y + len
    }
  }')
"$im" -respect-parentheses -size 1200x1600 gradient:'#05070f-#1b0a2c' \
  \( -size 1200x1600 xc:none -fill '#0b0c16' -draw "rectangle 100,140 380,1130 rectangle 420,440 780,1130 rectangle 790,100 1110,1130" \) -compose over -composite \
  \( -size 1200x1600 xc:black -draw "$neon_pink" -draw "$neon_cyan" -draw "${neon_pink/stroke-width 12/stroke-width 30}" -draw "${neon_cyan/stroke-width 12/stroke-width 30}" $(soft 40) \) -compose screen -composite \
  \( -size 1200x1600 xc:black -draw "$neon_pink" -draw "$neon_cyan" -blur 0x8 \) -compose screen -composite \
  \( -size 1200x1600 xc:none -draw "$neon_pink" -draw "$neon_cyan" -stroke white -strokewidth 3 -fill none \
     -draw "rectangle 150,260 330,980 rectangle 470,520 730,1080 rectangle 820,180 1060,420" \) -compose over -composite \
  \( +clone -crop 1200x470+0+660 +repage -flip -resize 300x24! -resize 1200x470! -blur 0x3 -brightness-contrast -35x-10 \) \
     -geometry +0+1130 -compose over -composite \
  \( -size 1200x1600 xc:none -fill 'rgba(0,0,0,0.35)' -draw "rectangle 0,1130 1200,1138" \) -compose over -composite \
  \( -size 1200x1600 xc:none -draw "$rain" \) -compose over -composite \
  $(vignette 1200 1600 '#505068') \
  "${jpeg_out[@]}" "$out/03-john-wick-3.jpg"

# --- 04 Black Ops 4: camouflage under a targeting reticle, repeated ---------------------
reticle() {  # cx cy r
  local cx=$1 cy=$2 r=$3
  echo "fill none stroke '#ff8a1c' stroke-width 7
circle $cx,$cy $((cx + r)),$cy
circle $cx,$cy $((cx + r / 8)),$cy
line $((cx - r - 60)),$cy $((cx - r / 3)),$cy
line $((cx + r / 3)),$cy $((cx + r + 60)),$cy
line $cx,$((cy - r - 60)) $cx,$((cy - r / 3))
line $cx,$((cy + r / 3)) $cx,$((cy + r + 60))"
}
ret="$(reticle 800 500 230)
$(reticle 260 230 70)
$(reticle 1340 230 70)
$(reticle 260 770 70)
$(reticle 1340 770 70)"
hud=$(mvg 4 '
  BEGIN {
    print "fill none stroke rgba(200,230,160,0.13) stroke-width 2"
    for (x = 0; x <= 1600; x += 80) printf "line %d,0 %d,1000\n", x, x
    for (y = 0; y <= 1000; y += 80) printf "line 0,%d 1600,%d\n", y, y
  }')
"$im" -respect-parentheses -seed 4004 -size 400x250 plasma:fractal -resize 1600x1000! -blur 0x10 -colorspace Gray -auto-level -posterize 4 \
  \( xc:'#1b1d12' xc:'#3e4528' xc:'#5f6238' xc:'#8a8354' +append \) -interpolate Integer -clut \
  -draw "$hud" \
  \( -size 1600x1000 xc:black -draw "$ret" $(soft 16) \) -compose screen -composite \
  \( -size 1600x1000 xc:none -draw "$ret" \) -compose over -composite \
  $(vignette 1600 1000 '#585840') \
  "${jpeg_out[@]}" "$out/04-black-ops-4.jpg"

# --- 05 Morgan's Reviews: a phone full of reviews, with stars, on transparency --------
stars=$(mvg 5 '
  BEGIN {
    print "fill #ffc83d stroke #b8860b stroke-width 5"
    star(170, 250, 70, 30, -0.3); star(830, 250, 70, 30, 0.3)
    star(125, 560, 52, 22, -0.2); star(875, 560, 52, 22, 0.2)
    star(230, 840, 40, 17, 0.1); star(770, 840, 40, 17, -0.1)
    print "stroke none"
    for (i = 0; i < 5; i++) star(400 + i * 50, 265, 20, 8.5, 0)
  }')
screen_rows=$(mvg 55 '
  BEGIN {
    split("#e4574c #4c8be4 #f0b43c #55b870 #9b6ae0", c, " ")
    for (i = 0; i < 5; i++) {
      y = 320 + i * 95
      printf "fill %s roundrectangle 370,%d 440,%d 10,10\n", c[i + 1], y, y + 70
      printf "fill #c9c3b8 roundrectangle 460,%d %d,%d 6,6\n", y + 10, 460 + rint(110, 170), y + 26
      printf "fill #ddd8cf roundrectangle 460,%d %d,%d 6,6\n", y + 42, 460 + rint(60, 130), y + 56
    }
  }')
"$im" -respect-parentheses -size 1000x1000 xc:none \
  -fill '#1f2636' -stroke '#0c111b' -strokewidth 10 -draw "roundrectangle 330,90 670,910 64,64" \
  -stroke none -fill '#f6f1e7' -draw "roundrectangle 352,165 648,820 18,18" \
  -fill '#0c111b' -draw "roundrectangle 455,118 545,132 7,7" \
  -fill none -stroke '#3a4458' -strokewidth 6 -draw "circle 500,865 500,843" \
  -stroke none -fill '#2b3a55' -draw "roundrectangle 352,165 648,235 18,18 rectangle 352,215 648,235" \
  -fill '#ffc83d' -draw "circle 390,200 390,184" \
  -draw "$screen_rows" -draw "$stars" \
  \( +clone -background black -shadow 55x18+0+18 \) +swap -background none -compose over -layers merge +repage \
  -gravity center -extent 1000x1000 \
  -strip -define png:exclude-chunks=date,time -depth 8 "PNG32:$out/05-morgans-reviews.png"

# --- 06 Computer Science: circuit traces around a chip (portrait) ----------------------
traces=$(mvg 6 '
  BEGIN {
    # Traces start at the chip pins and wander outwards in 90/45 degree steps.
    for (side = 0; side < 4; side++) {
      for (k = 0; k < 7; k++) {
        if (side == 0) { x = 440 + k * 53; y = 600; dx = 0; dy = -1 }
        if (side == 1) { x = 440 + k * 53; y = 1000; dx = 0; dy = 1 }
        if (side == 2) { x = 400; y = 640 + k * 53; dx = -1; dy = 0 }
        if (side == 3) { x = 800; y = 640 + k * 53; dx = 1; dy = 0 }
        s = sprintf("polyline %d,%d", x, y)
        for (seg = 0; seg < 4; seg++) {
          len = rint(40, 180)
          x += dx * len; y += dy * len
          if (x < 40) x = 40; if (x > 1160) x = 1160; if (y < 40) y = 40; if (y > 1560) y = 1560
          s = s sprintf(" %d,%d", x, y)
          r = rnd()
          if (dx == 0 && r < 0.5) { dx = (rnd() < 0.5) ? -1 : 1 }
          else if (dy == 0 && r < 0.5) { dy = (rnd() < 0.5) ? -1 : 1 }
          if (r < 0.5 && rnd() < 0.5) { if (dx == 0) dy = 0; else if (dy == 0) dx = 0 }
        }
        print s
        pads[++np] = x "," y
      }
    }
    print "stroke-width 5 fill #06251a"
    for (i = 1; i <= np; i++) { split(pads[i], p, ","); printf "circle %d,%d %d,%d\n", p[1], p[2], p[1] + 13, p[2] }
  }')
pins=$(mvg 66 '
  BEGIN {
    for (k = 0; k < 7; k++) {
      x = 440 + k * 53; y = 640 + k * 53
      printf "rectangle %d,585 %d,620 rectangle %d,980 %d,1015\n", x - 8, x + 8, x - 8, x + 8
      printf "rectangle 385,%d 420,%d rectangle 780,%d 815,%d\n", y - 8, y + 8, y - 8, y + 8
    }
  }')
"$im" -respect-parentheses -size 1200x1600 gradient:'#0a3a24-#03160d' \
  \( -size 1200x1600 xc:none -fill 'rgba(120,255,180,0.05)' -draw "$(mvg 60 'BEGIN { for (y = 0; y < 1600; y += 24) for (x = (y / 24 % 2) * 12; x < 1200; x += 24) printf "point %d,%d\n", x, y }')" \) -compose over -composite \
  \( -size 1200x1600 xc:black -fill none -stroke white -strokewidth 7 -draw "$traces" $(soft 16) -fill '#2cff9a' -tint 100 \) -compose screen -composite \
  \( -size 1200x1600 xc:none -fill none -stroke '#3df09a' -strokewidth 7 -draw "stroke-linejoin round $traces" \) -compose over -composite \
  \( -size 1200x1600 xc:none -fill '#d8c36a' -draw "$pins" \
     -fill '#15181c' -stroke '#2f353d' -strokewidth 6 -draw "roundrectangle 410,610 790,990 18,18" \
     -stroke none -fill '#2a3038' -draw "circle 460,660 460,645" \
     -fill none -stroke 'rgba(61,240,154,0.55)' -strokewidth 3 -draw "rectangle 500,700 700,900 line 500,800 700,800 line 600,700 600,900" \) \
     -compose over -composite \
  $(vignette 1200 1600 '#406050') \
  "${jpeg_out[@]}" "$out/06-computer-science.jpg"

# --- 07 Superstore: aisles of shelves stacked with colourful boxes ---------------------
shelves=$(mvg 7 '
  BEGIN {
    split("#e4574c #f0b43c #4c8be4 #55b870 #9b6ae0 #f07ab0 #3cc6d0 #f5e05a #ef8a3c #ffffff", c, " ")
    for (u = 0; u < 4; u++) {
      x0 = 90 + u * 360; x1 = x0 + 340
      for (s = 0; s < 5; s++) {
        base = 330 + s * 130
        x = x0 + 14
        while (1) {
          w = rint(24, 70); h = rint(45, 105)
          if (x + w > x1 - 14) break
          printf "fill %s rectangle %d,%d %d,%d\n", c[rint(1, 10)], x, base - h, x + w - 3, base
          printf "fill rgba(0,0,0,0.18) rectangle %d,%d %d,%d\n", x + w - 12, base - h, x + w - 3, base
          x += w
        }
        printf "fill #8d9aa8 rectangle %d,%d %d,%d\n", x0, base, x1, base + 14
        printf "fill #5f6b78 rectangle %d,%d %d,%d\n", x0, base + 14, x1, base + 18
      }
      printf "fill #2f5d8a rectangle %d,190 %d,960 rectangle %d,190 %d,960\n", x0 - 8, x0 + 6, x1 - 6, x1 + 8
    }
  }')
cloud="fill '#ffffff' circle 740,95 740,55 circle 800,78 800,25 circle 862,95 862,50 circle 900,112 900,82 circle 700,112 700,82 rectangle 700,95 900,142"
"$im" -respect-parentheses -size 1600x1000 gradient:'#eef2f6-#cfd8e2' \
  \( -size 1600x1000 xc:none -fill '#b9b1a3' -draw "rectangle 0,900 1600,1000" \
     -fill 'rgba(255,255,255,0.25)' -draw "polygon 0,1000 420,900 560,900 260,1000 polygon 900,1000 1060,900 1180,900 1120,1000" \) -compose over -composite \
  \( -size 1600x1000 xc:none -fill '#1d5fb0' -draw "rectangle 0,0 1600,170" -fill '#f5c518' -draw "rectangle 0,160 1600,175" -draw "$cloud" \) -compose over -composite \
  \( -size 1600x1000 xc:none -draw "$shelves" \) -compose over -composite \
  \( -size 1600x1000 xc:none -fill 'rgba(255,255,255,0.55)' -draw "rectangle 200,20 420,32 rectangle 1180,20 1400,32" \) -compose over -composite \
  "${jpeg_out[@]}" "$out/07-superstore.jpg"

# --- Second pictures in the formats phones and the web use ----------------------------
# 03-john-wick-3-2.webp: the neon street mirrored and cropped to a 1600x900 still, lossy
# WebP as a web page would serve it (cwebp -q 82). 07-superstore-2.heic: a close-up of the
# shelves, 1440x1080, HEVC-encoded as a phone saves its pictures (heif-enc -q 60).
"$im" "$out/03-john-wick-3.jpg" -flop -resize 1600x -gravity center -crop 1600x900+0+0 +repage -strip \
  "PNG24:$work/03-john-wick-3-2.png"
cwebp -quiet -q 82 -metadata none "$work/03-john-wick-3-2.png" -o "$out/03-john-wick-3-2.webp"
"$im" "$out/07-superstore.jpg" -gravity center -crop 1200x900+0+40 +repage -resize 1440x1080! -strip \
  "PNG24:$work/07-superstore-2.png"
heif-enc -q 60 -o "$out/07-superstore-2.heic" "$work/07-superstore-2.png" >/dev/null

ls -l "$out"
