#!/usr/bin/env bash
# uekernel.sh OUT: build (once) the user_events check's kernel and print
# (OUT is a cache outside the clone: uevents.sh passes $RTRACE_E2E_CACHE
# or ~/.cache/rtrace-e2e, so every clone on the machine reuses the kernel)
# the path of its bzImage. The source is Debian's linux-source-6.12
# package (the newest version apt offers, fetched with apt-get download
# into OUT/cache and unpacked with dpkg-deb -x); the config is `make
# allnoconfig` with exactly the options of uekernel.config. The kernel is
# kept in OUT/uekernel/VERSION-CONFIGHASH/, so a later run with the same
# source version and config builds nothing; the source tree is deleted
# after a build (1.5 GB). Progress goes to stderr, the build's log to
# OUT/uekernel/build.log.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1
PKG=linux-source-6.12
CONFIG=$HERE/uekernel.config
log() { echo "e2e: $*" >&2; }
die() {
    echo "e2e: error: $*" >&2
    exit 1
}
mkdir -p "$OUT/cache" "$OUT/uekernel"

# The version: apt's candidate, or (offline) the newest cached package.
ver=$(apt-cache policy "$PKG" 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
    deb=$(ls -t "$OUT"/cache/${PKG}_*.deb 2>/dev/null | head -1 || true)
    [ -n "$deb" ] || die "apt offers no $PKG and none is cached in $OUT/cache"
    ver=$(basename "$deb" | cut -d_ -f2)
fi
hash=$(sha256sum < "$CONFIG" | cut -c1-12)
KEY=$OUT/uekernel/$ver-$hash
if [ -e "$KEY/bzImage" ]; then
    echo "$KEY/bzImage"
    exit 0
fi

deb=$(ls "$OUT"/cache/${PKG}_"${ver/:/%3a}"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
    log "downloading $PKG $ver"
    (cd "$OUT/cache" && apt-get download -q "$PKG=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
    deb=$(ls "$OUT"/cache/${PKG}_*.deb 2>/dev/null | head -1 || true)
    [ -n "$deb" ] || die "apt-get download $PKG=$ver failed"
fi
for tool in flex bison bc make gcc; do
    command -v $tool >/dev/null 2>&1 || die "building the kernel needs $tool (apt-get install flex bison bc make gcc libelf-dev)"
done

SRC=$OUT/uekernel/src
START=$(date +%s)
log "unpacking $(basename "$deb")"
rm -rf "$SRC" "$OUT/uekernel/pkg"
mkdir -p "$OUT/uekernel/pkg"
dpkg-deb -x "$deb" "$OUT/uekernel/pkg"
mkdir -p "$SRC"
# Documentation is not built (only its Kconfig is read).
tar -xJf "$OUT"/uekernel/pkg/usr/src/$PKG.tar.xz -C "$SRC" --strip-components=1 \
    --exclude="$PKG/Documentation/[!K]*"
rm -rf "$OUT/uekernel/pkg"
log "building the kernel $ver (config $hash, $(nproc) jobs; log in $OUT/uekernel/build.log)"
(
    # (set -e does not act inside a `||` list: each step is chained.)
    cd "$SRC" &&
        make ARCH=x86_64 allnoconfig KCONFIG_ALLCONFIG="$CONFIG" &&
        # Every option asked for must be in the result (a dependency
        # missing from uekernel.config would drop it silently).
        missing=$(grep '^CONFIG_' "$CONFIG" | grep -vxF -f .config || true) &&
        { [ -z "$missing" ] || { echo "uekernel.config: not in the result: $missing" >&2; exit 1; }; } &&
        make ARCH=x86_64 -j"$(nproc)" bzImage
) > "$OUT/uekernel/build.log" 2>&1 || die "the kernel build failed: see the end of $OUT/uekernel/build.log"
mkdir -p "$KEY"
cp "$SRC/.config" "$KEY/config"
cp "$SRC/arch/x86/boot/bzImage" "$KEY/bzImage.tmp"
mv "$KEY/bzImage.tmp" "$KEY/bzImage"
rm -rf "$SRC"
log "kernel built in $(($(date +%s) - START))s: $KEY/bzImage"
echo "$KEY/bzImage"
