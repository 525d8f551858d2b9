#!/usr/bin/env bash
# End-to-end suite: boot Debian's Linux kernel under qemu (TCG) with usbmon
# and emulated USB devices, run real capture clients (tcpdump, tshark ->
# dumpcap, our usbmon_client) under rtrace inside the VM, and check rtrace's
# decoded usbmon events against the kernel's own text API. See README.md
# beside this file. One command: bash tests/e2e/run.sh
#
# Everything generated goes to target/e2e/ (the kernel .deb is cached
# there, so a rerun downloads nothing). Exit status: 0 when every check
# passed (or when qemu cannot run at all: then a SKIP line says why),
# 1 otherwise. E2E_RTRACE=PATH uses a prebuilt rtrace instead of building
# this tree; E2E_TIMEOUT (seconds, default 900) bounds the boot.
# The user_events check follows (its own kernel, built once from
# linux-source-6.12 and cached, and its own boot: uevents.sh);
# E2E_USER_EVENTS=0 leaves it out, E2E_ONLY=user_events runs it alone.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/target/e2e
BOOT_TIMEOUT=${E2E_TIMEOUT:-900}
mkdir -p "$OUT/cache"
log() { echo "e2e: $*" >&2; }
die() {
    echo "e2e: error: $*" >&2
    exit 1
}
skip() {
    echo "e2e: SKIP: $*"
    exit 0
}
START=$(date +%s)

# --- packages ---------------------------------------------------------------
is_static_busybox() {
    [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1
}
need=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
is_static_busybox || need+=(busybox-static)
command -v cpio >/dev/null 2>&1 || need+=(cpio)
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v dumpcap >/dev/null 2>&1 || need+=(wireshark-common)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(libc6-dev)
[ -e /usr/lib32/libc.a ] || need+=(gcc-multilib)
command -v python3 >/dev/null 2>&1 || need+=(python3)
ONLY=${E2E_ONLY:-}
case "$ONLY" in
"" | user_events) ;;
*) die "E2E_ONLY=$ONLY: the only check that runs alone is user_events" ;;
esac
USER_EVENTS=${E2E_USER_EVENTS:-1}
[ "$ONLY" = user_events ] && USER_EVENTS=1
if [ "$USER_EVENTS" = 1 ]; then
    # What the kernel's build needs (uekernel.sh).
    for tool in flex bison bc make; do
        command -v $tool >/dev/null 2>&1 || need+=($tool)
    done
    [ -e /usr/include/gelf.h ] || need+=(libelf-dev)
    # Its BTF, which the BPF engine's programs need (pahole encodes it).
    command -v pahole >/dev/null 2>&1 || need+=(dwarves)
fi
if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }; then
        command -v qemu-system-x86_64 >/dev/null 2>&1 ||
            skip "qemu-system-x86_64 is not installed and apt-get could not install it"
        die "apt-get could not install ${need[*]}"
    fi
fi

# Can qemu run here at all? A machine with no devices, stopped before its
# first instruction, must still be running when the timeout ends it.
set +e
probe=$(timeout 5 qemu-system-x86_64 -accel tcg -nodefaults \
    -display none -monitor none -serial none -S 2>&1)
rc=$?
set -e
[ $rc -eq 124 ] || skip "qemu-system-x86_64 cannot run here (exit $rc): $probe"

# --- rtrace and our client ---------------------------------------------------
if [ -n "${E2E_RTRACE:-}" ]; then
    # A prebuilt binary (say, of another checkout) instead of this tree's.
    RTRACE=$(realpath "$E2E_RTRACE")
    [ -x "$RTRACE" ] || die "E2E_RTRACE=$E2E_RTRACE is not an executable"
    log "using $RTRACE"
else
    command -v cargo >/dev/null 2>&1 || die "cargo is missing"
    log "building rtrace (release)"
    (cd "$ROOT" && cargo build --release --quiet)
    RTRACE=$ROOT/target/release/rtrace
fi

# The user_events check (its own kernel and boot, after the usbmon one):
# sets UEARGS, the judge's arguments for it.
UEARGS=()
user_events_check() {
    if bash "$HERE/uevents.sh" "$RTRACE"; then
        :
    else
        log "user_events: the check could not be prepared"
    fi
    UEARGS=(--uevents "$OUT/uevents/console.log" "$OUT/uevents/host")
}
if [ "$ONLY" = user_events ]; then
    user_events_check
    exec python3 "$HERE/check.py" judge none "$OUT/results" "${UEARGS[@]}"
fi

gcc -static -O2 -Wall -Werror -o "$OUT/usbmon_client" "$HERE/usbmon_client.c"
gcc -m32 -static -O2 -Wall -Werror -o "$OUT/usbmon_client32" "$HERE/usbmon_client.c"
gcc -static -O2 -Wall -I "$ROOT/tests/fixtures" -o "$OUT/seccomp_errno" \
    "$ROOT/tests/fixtures/seccomp_errno.c"

# --- kernel ----------------------------------------------------------------
# The package linux-image-amd64 depends on (linux-image-VERSION-amd64).
kpkg() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ {print $2; exit}'
}
KPKG=$(kpkg)
if [ -z "$KPKG" ]; then
    apt-get update -qq || true
    KPKG=$(kpkg)
fi
if [ -z "$KPKG" ]; then
    # Offline with an empty package list: use what the cache holds.
    deb=$(ls -t "$OUT"/cache/linux-image-*-amd64_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || die "cannot find the package linux-image-amd64 depends on"
    KPKG=$(basename "$deb" | cut -d_ -f1)
fi
DEB=$(ls "$OUT"/cache/"$KPKG"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$DEB" ]; then
    log "downloading $KPKG"
    (cd "$OUT/cache" && apt-get download -q "$KPKG" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
    DEB=$(ls "$OUT"/cache/"$KPKG"_*.deb 2>/dev/null | head -1 || true)
    [ -n "$DEB" ] || die "apt-get download $KPKG failed"
fi
KDIR=$OUT/kernel/$(basename "$DEB" .deb)
if [ ! -e "$KDIR/.done" ]; then
    log "unpacking $(basename "$DEB")"
    rm -rf "$KDIR"
    mkdir -p "$KDIR"
    dpkg-deb -x "$DEB" "$KDIR"
    touch "$KDIR/.done"
fi
VMLINUZ=$(ls "$KDIR"/boot/vmlinuz-* | head -1)
MODDIR=$(ls -d "$KDIR"/lib/modules/*/kernel | head -1)

# --- initramfs ---------------------------------------------------------------
STAGE=$OUT/initramfs
rm -rf "$STAGE"
mkdir -p "$STAGE"/usr/{bin,sbin,lib,lib64} "$STAGE"/{proc,sys,dev,tmp,root,etc/e2e,lib/modules/e2e}
for d in bin sbin lib lib64; do ln -s usr/$d "$STAGE/$d"; done

# Modules, dependencies first (read from each module's .modinfo).
mods=$(python3 "$HERE/check.py" modules "$MODDIR" \
    '?crct10dif_generic' xhci_pci usbmon usbhid hid_generic sd_mod usb_storage)
: > "$STAGE/etc/e2e/modules"
for path in $mods; do
    name=$(basename "$path")
    name=${name%%.ko*}
    case "$path" in
    *.ko) cp "$path" "$STAGE/lib/modules/e2e/$name.ko" ;;
    *.ko.xz) xz -dc "$path" > "$STAGE/lib/modules/e2e/$name.ko" ;;
    *.ko.zst) zstd -qdc "$path" > "$STAGE/lib/modules/e2e/$name.ko" ;;
    *.ko.gz) gzip -dc "$path" > "$STAGE/lib/modules/e2e/$name.ko" ;;
    *) die "unknown module file $path" ;;
    esac
    echo "$name" >> "$STAGE/etc/e2e/modules"
done
log "modules: $(tr '\n' ' ' < "$STAGE/etc/e2e/modules")"

# install FILE [DEST]: copy a file (and, for ELF files, the shared
# libraries ldd names) to the same path in the initramfs.
install_file() {
    local src=$1 dest=${2:-$1}
    mkdir -p "$STAGE$(dirname "$dest")"
    cp -L "$src" "$STAGE$dest"
    local lib
    for lib in $(ldd "$src" 2>/dev/null | awk '/=> \// {print $3} /^\t\// {print $1}'); do
        [ -e "$STAGE$lib" ] && continue
        mkdir -p "$STAGE$(dirname "$lib")"
        cp -L "$lib" "$STAGE$lib"
    done
}
cp /bin/busybox "$STAGE/usr/bin/busybox"
for applet in $(/bin/busybox --list); do
    [ -e "$STAGE/usr/bin/$applet" ] || ln -s busybox "$STAGE/usr/bin/$applet"
done
install_file "$RTRACE" /usr/bin/rtrace
install_file "$OUT/usbmon_client" /usr/bin/usbmon_client
install_file "$OUT/usbmon_client32" /usr/bin/usbmon_client32
install_file "$OUT/seccomp_errno" /usr/bin/seccomp_errno
for b in tcpdump tshark dumpcap; do
    install_file "$(command -v $b)" "/usr/bin/$b"
done
# The BPF program rtrace embeds, for bpftool's log when the guest's
# verifier refuses it (check 7.0); bpftool is optional.
install_file "$ROOT/bpf/rtrace.bpf.o" /usr/share/rtrace/rtrace.bpf.o
if command -v bpftool >/dev/null 2>&1; then
    install_file "$(command -v bpftool)" /usr/bin/bpftool
fi
# tshark's dissectors read data files; its plugins are optional.
mkdir -p "$STAGE/usr/share"
cp -a /usr/share/wireshark "$STAGE/usr/share/"
if [ -d /usr/lib/x86_64-linux-gnu/wireshark/plugins ]; then
    mkdir -p "$STAGE/usr/lib/x86_64-linux-gnu/wireshark"
    cp -a /usr/lib/x86_64-linux-gnu/wireshark/plugins "$STAGE/usr/lib/x86_64-linux-gnu/wireshark/"
    for so in $(find "$STAGE/usr/lib/x86_64-linux-gnu/wireshark/plugins" -name '*.so'); do
        for lib in $(ldd "$so" 2>/dev/null | awk '/=> \// {print $3}'); do
            [ -e "$STAGE$lib" ] || { mkdir -p "$STAGE$(dirname "$lib")"; cp -L "$lib" "$STAGE$lib"; }
        done
    done
fi
# Debian's tcpdump drops privileges to the user tcpdump unless -Z names
# another.
cat > "$STAGE/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
tcpdump:x:100:101::/nonexistent:/bin/false
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat > "$STAGE/etc/group" <<'EOF'
root:x:0:
tcpdump:x:101:
nogroup:x:65534:
EOF
echo "passwd: files" > "$STAGE/etc/nsswitch.conf"
echo "group: files" >> "$STAGE/etc/nsswitch.conf"
install -m 0755 "$HERE/init.sh" "$STAGE/init"
chmod 1777 "$STAGE/tmp"
log "packing initramfs ($(du -sm "$STAGE" | cut -f1) MiB)"
# Uncompressed: unpacking a compressed image costs more under TCG than
# loading a larger file.
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$OUT/initrd.cpio"
rm -rf "$STAGE"

# --- the stick's disk image --------------------------------------------------
DISK=$OUT/disk.img
if [ ! -e "$DISK" ]; then
    python3 "$HERE/check.py" disk "$DISK" 4
fi

# --- boot --------------------------------------------------------------------
CONSOLE=$OUT/console.log
log "booting $(basename "$VMLINUZ") under qemu (TCG); console in $CONSOLE"
: > "$CONSOLE" # empty before tail starts reading it
set +e
timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1024 -nographic -no-reboot \
    -kernel "$VMLINUZ" -initrd "$OUT/initrd.cpio" \
    -append 'console=ttyS0 panic=-1' \
    -device qemu-xhci -device usb-tablet -device usb-kbd \
    -drive if=none,id=stick,format=raw,file="$DISK" \
    -device usb-storage,drive=stick \
    < /dev/null >> "$CONSOLE" 2>&1 &
QPID=$!
trap 'kill $QPID 2>/dev/null' INT TERM EXIT
# Show the guest's progress lines as they come.
tail -n +1 -F "$CONSOLE" --pid=$QPID 2>/dev/null | grep --line-buffered -a '^e2e: ' | tr -d '\r' >&2 &
TPID=$!
wait $QPID
qrc=$?
wait $TPID 2>/dev/null
set -e
trap - INT TERM EXIT
[ $qrc -eq 124 ] && log "qemu did not finish within ${BOOT_TIMEOUT}s"
log "qemu exited ($qrc); $(($(date +%s) - START))s since the start"

[ "$USER_EVENTS" = 1 ] && user_events_check

# --- judge (its last line, `N passed, M failed`, is the suite's last) --------
exec python3 "$HERE/check.py" judge "$CONSOLE" "$OUT/results" "${UEARGS[@]}"
