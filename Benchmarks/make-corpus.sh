#!/usr/bin/env bash
# Builds the thumbnail benchmark corpus: real photographs taken from Debian
# packages (downloaded with `apt-get download` and unpacked with dpkg-deb into
# a temporary directory; nothing is installed), re-encoded into three sets.
#
#   Benchmarks/make-corpus.sh [DIR]          DIR defaults to Benchmarks/corpus
#
# Output:
#   DIR/baseline/NAME.jpg     baseline JPEG, quality 90, 4:2:0, Huffman-optimised
#   DIR/progressive/NAME.jpg  progressive JPEG, quality 90, 4:2:0
#   DIR/png/NAME.png          8-bit RGB PNG, ImageMagick's default compression
#   DIR/big/20mp.jpg          5472x3648 baseline JPEG (largest photo, Lanczos-scaled to fill)
#   DIR/SOURCES.tsv           where each photo came from (package, version, path, size)
#
# Every photo is normalised once (EXIF orientation applied, any ICC profile
# converted to sRGB, alpha flattened onto black, 8 bits per channel, all
# metadata dropped) and the three encodings are made from that same pixel data,
# so the sets differ only in how the pixels are stored.
#
# The script is idempotent: a photo whose three files already exist is skipped,
# and packages are only downloaded for photos still missing. Delete DIR (or a
# single file) to have it made again.
#
# Needs: apt-get and dpkg-deb (Debian/Ubuntu), ImageMagick 6 (/usr/bin/convert,
# /usr/bin/identify) and cjpeg from libjpeg-turbo-progs.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here/corpus}

CONVERT=/usr/bin/convert
IDENTIFY=/usr/bin/identify
CJPEG=$(command -v cjpeg || true)
JPEG_QUALITY=90
BIG_W=5472
BIG_H=3648

# The photographs: NAME, Debian package, path inside the package.
# Chosen by hand from the Debian 12 (bookworm) packages for being photographs
# (no vector art, renders or screenshots) of at least ~1 megapixel.
#   lomiri-wallpapers-16.04, lomiri-wallpapers-20.04   Ubuntu Touch wallpapers (CC BY-SA photos)
#   mate-backgrounds                                   MATE "nature" set
#   plasma-workspace-wallpapers                        KDE Plasma photographic wallpapers
#   python3-skimage                                    scikit-image sample data
#   stellarium-data                                    a museum photo, lunar mosaic, astrophotographs
SOURCES='
bridge          lomiri-wallpapers-16.04      usr/share/backgrounds/Bridge_by_Sander_Klootwijk.jpg
dragonfly       lomiri-wallpapers-16.04      usr/share/backgrounds/Dragonfly_by_Bolly.jpg
picture-0b      lomiri-wallpapers-16.04      usr/share/backgrounds/Picture_0B_by_freespace.jpg
picture-1a      lomiri-wallpapers-16.04      usr/share/backgrounds/Picture_1A_by_freespace.jpg
wine            lomiri-wallpapers-16.04      usr/share/backgrounds/Wine_by_Jakkub_Mede.jpg
aitzgorri       lomiri-wallpapers-16.04      usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg
analogpattern   lomiri-wallpapers-16.04      usr/share/backgrounds/analogpattern_by_Peter_Nerlich.jpg
free            lomiri-wallpapers-16.04      usr/share/backgrounds/free_by_Peter_Nerlich.jpg
friends         lomiri-wallpapers-16.04      usr/share/backgrounds/friends_by_Aitzol_Berasategi.jpg
greentock       lomiri-wallpapers-16.04      usr/share/backgrounds/greentock_by_Peter_Nerlich.jpg
life            lomiri-wallpapers-16.04      usr/share/backgrounds/life_by_Aitzol_Berasategi.jpg
picosdeeuropa   lomiri-wallpapers-16.04      usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg
seeding         lomiri-wallpapers-16.04      usr/share/backgrounds/seeding_by_Clements_Engelhardt.jpg
sunset          lomiri-wallpapers-16.04      usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg
kleiber         lomiri-wallpapers-20.04      usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg
aqua            mate-backgrounds             usr/share/backgrounds/mate/nature/Aqua.jpg
blinds          mate-backgrounds             usr/share/backgrounds/mate/nature/Blinds.jpg
dune            mate-backgrounds             usr/share/backgrounds/mate/nature/Dune.jpg
freshflower     mate-backgrounds             usr/share/backgrounds/mate/nature/FreshFlower.jpg
garden          mate-backgrounds             usr/share/backgrounds/mate/nature/Garden.jpg
greenmeadow     mate-backgrounds             usr/share/backgrounds/mate/nature/GreenMeadow.jpg
ladybird        mate-backgrounds             usr/share/backgrounds/mate/nature/LadyBird.jpg
raindrops       mate-backgrounds             usr/share/backgrounds/mate/nature/RainDrops.jpg
storm           mate-backgrounds             usr/share/backgrounds/mate/nature/Storm.jpg
twowings        mate-backgrounds             usr/share/backgrounds/mate/nature/TwoWings.jpg
wood            mate-backgrounds             usr/share/backgrounds/mate/nature/Wood.jpg
yellowflower    mate-backgrounds             usr/share/backgrounds/mate/nature/YellowFlower.jpg
bythewater      plasma-workspace-wallpapers  usr/share/wallpapers/BytheWater/contents/images/2560x1600.jpg
coldripple      plasma-workspace-wallpapers  usr/share/wallpapers/ColdRipple/contents/images/2560x1600.jpg
colorfulcups    plasma-workspace-wallpapers  usr/share/wallpapers/ColorfulCups/contents/images/2560x1600.jpg
darkesthour     plasma-workspace-wallpapers  usr/share/wallpapers/DarkestHour/contents/images/2560x1600.jpg
eveningglow     plasma-workspace-wallpapers  usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg
fallenleaf      plasma-workspace-wallpapers  usr/share/wallpapers/FallenLeaf/contents/images/2560x1600.jpg
grey            plasma-workspace-wallpapers  usr/share/wallpapers/Grey/contents/images/2560x1600.jpg
kite            plasma-workspace-wallpapers  usr/share/wallpapers/Kite/contents/images/2560x1600.jpg
onestandsout    plasma-workspace-wallpapers  usr/share/wallpapers/OneStandsOut/contents/images/2560x1600.jpg
path            plasma-workspace-wallpapers  usr/share/wallpapers/Path/contents/images/2560x1600.jpg
summer-1am      plasma-workspace-wallpapers  usr/share/wallpapers/summer_1am/contents/images/2560x1600.jpg
retina          python3-skimage              usr/lib/python3/dist-packages/skimage/data/retina.jpg
farnese-atlas   stellarium-data              usr/share/stellarium/skycultures/greek_farnese/Atlas_(Farnese_Globe).jpg
moon            stellarium-data              usr/share/stellarium/textures/moon_4k.jpg
m42             stellarium-data              usr/share/stellarium/nebulae/default/m42.png
m51             stellarium-data              usr/share/stellarium/nebulae/default/m51-vasey.png
pleiades        stellarium-data              usr/share/stellarium/nebulae/default/pleiades.png
eta-carinae     stellarium-data              usr/share/stellarium/nebulae/default/etaCarinae.png
'

die() { echo "make-corpus: $*" >&2; exit 1; }
note() { echo "make-corpus: $*" >&2; }

for tool in apt-get dpkg-deb tar; do
  command -v "$tool" >/dev/null || die "$tool not found (this script needs a Debian-based system)"
done
[[ -x $CONVERT && -x $IDENTIFY ]] || die "ImageMagick not found at $CONVERT (apt-get install imagemagick)"
[[ -n $CJPEG ]] || die "cjpeg not found (apt-get install libjpeg-turbo-progs)"

# An sRGB profile to convert embedded ICC profiles to. Without one, photos that
# carry a non-sRGB profile keep their pixel values (none of the current ones do).
SRGB_ICC=
for f in /usr/share/color/icc/ghostscript/srgb.icc /usr/share/color/icc/colord/sRGB.icc \
         /usr/share/color/icc/sRGB.icc; do
  if [[ -r $f ]]; then SRGB_ICC=$f; break; fi
done

mkdir -p "$dir"/{baseline,progressive,png,big}
dir=$(cd "$dir" && pwd)

# Which photos still need making, and from which packages.
declare -a todo=()
declare -A need_pkg=()
while read -r name pkg path; do
  [[ -n $name ]] || continue
  if [[ -s $dir/baseline/$name.jpg && -s $dir/progressive/$name.jpg && -s $dir/png/$name.png ]]; then
    continue
  fi
  todo+=("$name $pkg $path")
  need_pkg[$pkg]=1
done <<<"$SOURCES"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# `apt-get download` fetches into the current directory as the _apt user when
# it can write there, as root (with a warning) otherwise.
download() {
  (cd "$tmp/debs" && apt-get download "$@") >"$tmp/apt.log" 2>&1
}

if ((${#todo[@]} > 0)); then
  pkgs=("${!need_pkg[@]}")
  note "${#todo[@]} photo(s) to make; downloading ${pkgs[*]}"
  mkdir -p "$tmp/debs"
  if id _apt >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]]; then chown _apt "$tmp/debs"; fi
  if ! download "${pkgs[@]}"; then
    # No package lists yet (fresh container) or stale ones (old version gone
    # from the mirror): refresh them once and try again.
    if grep -qE "Unable to locate package|has no installation candidate|Can't select candidate|Failed to fetch|404" "$tmp/apt.log"; then
      note "apt-get download failed for lack of package lists; running apt-get update"
      apt-get update -qq || die "apt-get update failed (run as root?)"
      download "${pkgs[@]}" || { cat "$tmp/apt.log" >&2; die "apt-get download failed"; }
    else
      cat "$tmp/apt.log" >&2
      die "apt-get download failed"
    fi
  fi

  # Unpack only the files we use (stellarium-data alone is ~250 MB of data).
  declare -A members=()
  for entry in "${todo[@]}"; do
    read -r _ pkg path <<<"$entry"
    members[$pkg]+="./$path"$'\n'
  done
  declare -A version=()
  for pkg in "${pkgs[@]}"; do
    debs=("$tmp/debs/${pkg}"_*.deb)
    deb=${debs[0]}
    [[ -f $deb ]] || die "no .deb for $pkg after download"
    version[$pkg]=$(dpkg-deb -f "$deb" Version)
    mkdir -p "$tmp/root/$pkg"
    printf '%s' "${members[$pkg]}" >"$tmp/members"
    # A path missing from a newer package version is reported below, not fatal here.
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/root/$pkg" --files-from="$tmp/members" 2>"$tmp/tar.log" || true
  done

  # One photo: normalise to an 8-bit sRGB PPM, then encode the three sets.
  # Runs in parallel (one job per core); writes go to temporary names first,
  # so an interrupted run never leaves a truncated file behind.
  encode_one() {
    local name=$1 src=$2 dir=$3 work
    work=$(mktemp -d "$TMP_ROOT/enc.XXXXXX")
    local -a icc=()
    if [[ -n $SRGB_ICC ]] && [[ -n $("$IDENTIFY" -quiet -ping -format '%[profile:icc]' "${src}[0]" 2>/dev/null) ]]; then
      icc=(-profile "$SRGB_ICC")
    fi
    "$CONVERT" -quiet "${src}[0]" -auto-orient "${icc[@]}" -colorspace sRGB \
      -background black -alpha remove -alpha off -type TrueColor -depth 8 -strip "ppm:$work/n.ppm"
    "$CJPEG" -quality "$JPEG_QUALITY" -sample 2x2 -optimize -outfile "$work/b.jpg" "$work/n.ppm"
    "$CJPEG" -quality "$JPEG_QUALITY" -sample 2x2 -progressive -outfile "$work/p.jpg" "$work/n.ppm"
    "$CONVERT" "$work/n.ppm" -strip "PNG24:$work/n.png"
    mv -f "$work/b.jpg" "$dir/baseline/$name.jpg"
    mv -f "$work/p.jpg" "$dir/progressive/$name.jpg"
    mv -f "$work/n.png" "$dir/png/$name.png"
    rm -rf "$work"
    echo "  $name"
  }
  export -f encode_one
  export CONVERT IDENTIFY CJPEG JPEG_QUALITY SRGB_ICC
  export TMP_ROOT=$tmp

  : >"$tmp/jobs"
  : >"$tmp/made.tsv"
  missing=0
  for entry in "${todo[@]}"; do
    read -r name pkg path <<<"$entry"
    src=$tmp/root/$pkg/$path
    if [[ ! -f $src ]]; then
      note "warning: $path not found in $pkg ${version[$pkg]}; skipping $name"
      missing=$((missing + 1))
      continue
    fi
    printf '%s\0%s\0' "$name" "$src" >>"$tmp/jobs"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$pkg" "${version[$pkg]}" "$path" \
      "$("$IDENTIFY" -quiet -ping -format '%wx%h' "${src}[0]")" >>"$tmp/made.tsv"
  done
  note "encoding (baseline, progressive, png) on $(nproc) cores"
  export CORPUS_DIR=$dir
  # shellcheck disable=SC2016  # expanded by the inner bash
  xargs -0 -n2 -P "$(nproc)" bash -c 'set -euo pipefail; encode_one "$1" "$2" "$CORPUS_DIR"' _ <"$tmp/jobs"

  # Record provenance: keep rows of photos made earlier, replace the rest.
  manifest=$dir/SOURCES.tsv
  {
    printf 'name\tpackage\tversion\tpath_in_package\toriginal_size\n'
    if [[ -f $manifest ]]; then
      awk -F'\t' 'NR==FNR { made[$1]=1; next } FNR>1 && !($1 in made)' "$tmp/made.tsv" "$manifest"
    fi
    cat "$tmp/made.tsv"
  } >"$tmp/manifest.tsv"
  { head -n1 "$tmp/manifest.tsv"; tail -n +2 "$tmp/manifest.tsv" | sort; } >"$manifest"
  ((missing == 0)) || note "warning: $missing photo(s) could not be found; the corpus is smaller than intended"
else
  note "all photos present"
fi

# The 20-megapixel file: the largest photo, scaled (Lanczos) to fill 5472x3648
# and centre-cropped, encoded like the baseline set. Made from the lossless set.
if [[ ! -s $dir/big/20mp.jpg ]]; then
  largest=$(for f in "$dir"/png/*.png; do
    "$IDENTIFY" -quiet -ping -format '%w %h %i\n' "$f"
  done | awk '{ a = $1 * $2; if (a > best) { best = a; $1 = $2 = ""; file = substr($0, 3) } } END { print file }')
  [[ -n $largest ]] || die "no photos in $dir/png"
  note "making big/20mp.jpg (${BIG_W}x${BIG_H}) from $(basename "$largest")"
  "$CONVERT" "$largest" -filter Lanczos -resize "${BIG_W}x${BIG_H}^" -gravity center \
    -extent "${BIG_W}x${BIG_H}" +repage -depth 8 -strip "ppm:$tmp/big.ppm"
  "$CJPEG" -quality "$JPEG_QUALITY" -sample 2x2 -optimize -outfile "$tmp/big.jpg" "$tmp/big.ppm"
  mv -f "$tmp/big.jpg" "$dir/big/20mp.jpg"
fi

# Summary.
echo
echo "corpus: $dir"
printf '%-12s %6s %9s %10s %9s\n' set files megapixels "MB on disk" "sizes"
for set in baseline progressive png big; do
  shopt -s nullglob
  files=("$dir/$set"/*)
  shopt -u nullglob
  ((${#files[@]} > 0)) || { printf '%-12s %6d\n' "$set" 0; continue; }
  "$IDENTIFY" -quiet -ping -format '%w %h\n' "${files[@]}" | awk -v set="$set" -v n="${#files[@]}" \
    -v bytes="$(du -cb "${files[@]}" | tail -n1 | cut -f1)" '
      { mp += $1 * $2 / 1e6; sizes[$1 "x" $2] = 1 }
      END { s = 0; for (k in sizes) s++
            printf "%-12s %6d %9.1f %10.1f %9d\n", set, n, mp, bytes / 1e6, s }'
done
