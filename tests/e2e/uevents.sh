#!/usr/bin/env bash
# uevents.sh RTRACE: the user_events check's host side (README.md, "The
# user_events check"), run by run.sh after the usbmon boot. It builds
# (once) the kernel with CONFIG_USER_EVENTS (uekernel.sh), our two
# programs statically, runs uevents_run.sh on the host under
# `RTRACE --user-events-emulate` (files in OUT/uevents/host/), packs a
# small initramfs and boots the kernel, whose console (OUT/uevents/
# console.log) holds the same files from the real kernel; then boots it
# again to trace the producer with the BPF engine (files `ub.*`).
# check.py judge compares them. Exit status non-zero when something could not be
# prepared (the judge then reports the check as failed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/target/e2e
UE=$OUT/uevents
RTRACE=$1
BOOT_TIMEOUT=${E2E_TIMEOUT:-900}
log() { echo "e2e: $*" >&2; }
START=$(date +%s)

# (a failed preparation must leave no report of an earlier run behind)
rm -rf "$UE"
mkdir -p "$UE/bin" "$UE/host"
# The kernel is cached outside the clone (a fresh clone reuses it):
# $RTRACE_E2E_CACHE, else the user's cache directory.
CACHE=${RTRACE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtrace-e2e}
BZIMAGE=$(bash "$HERE/uekernel.sh" "$CACHE")
# The fixture as the integration tests build it, but static (the guest
# has no C library).
gcc -static -O1 -pthread -Wall -I "$ROOT/tests/fixtures" -o "$UE/bin/uevents_producer" \
    "$ROOT/tests/fixtures/uevents_producer.c"
gcc -static -O2 -Wall -Werror -I "$ROOT/tests/fixtures" -o "$UE/bin/uevents_enable" \
    "$HERE/uevents_enable.c"

# The host: the same steps on the emulation. The outer rtrace traces only
# the shell (no -f); the emulation serves the shell's children too. An
# empty --user-events-enable list: as on a real kernel, no event is
# enabled until 1 is written to its enable file (uevents_enable does).
log "user_events: uevents_run.sh under rtrace --user-events-emulate on the host"
set +e
PATH=$UE/bin:$PATH "$RTRACE" --user-events-emulate --user-events-enable '' \
    -o "$UE/host/emulate.trace" \
    sh "$HERE/uevents_run.sh" "$UE/host" "$RTRACE" 2> "$UE/host/emulate.err"
echo $? > "$UE/host/emulate.rc"
set -e

# The guest's initramfs: busybox, rtrace with its libraries, our programs.
STAGE=$UE/initramfs
mkdir -p "$STAGE"/usr/{bin,lib,lib64,share/e2e} "$STAGE"/{proc,sys,dev,tmp,root}
for d in bin sbin lib lib64; do ln -s usr/$d "$STAGE/$d"; done
cp /bin/busybox "$STAGE/usr/bin/busybox"
for applet in $(/bin/busybox --list); do
    [ -e "$STAGE/usr/bin/$applet" ] || ln -s busybox "$STAGE/usr/bin/$applet"
done
# (without its debug info: a debug build's would make the image large)
cp -L "$RTRACE" "$STAGE/usr/bin/rtrace"
strip --strip-debug "$STAGE/usr/bin/rtrace"
for lib in $(ldd "$RTRACE" 2>/dev/null | awk '/=> \// {print $3} /^\t\// {print $1}'); do
    mkdir -p "$STAGE$(dirname "$lib")"
    cp -L "$lib" "$STAGE$lib"
done
cp "$UE/bin/uevents_producer" "$UE/bin/uevents_enable" "$STAGE/usr/bin/"
cp "$HERE/uevents_run.sh" "$STAGE/usr/share/e2e/"
install -m 0755 "$HERE/uevents_init.sh" "$STAGE/init"
chmod 1777 "$STAGE/tmp"
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$UE/initrd.cpio"
rm -rf "$STAGE"

# init_on_alloc=1: zeroed allocations, as Debian's kernels have them
# (CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y): the `format` file prints an array
# field's `len`, which user_events never sets (HACKING.md).
# Two boots from the same state, their reports one after the other in
# the console: the steps under ptrace, then the producer under the BPF
# engine (`e2e_engine=bpf`: uevents_init.sh, check U5).
log "user_events: booting $BZIMAGE under qemu (TCG); console in $UE/console.log"
: > "$UE/console.log"
for extra in '' ' e2e_engine=bpf'; do
    set +e
    timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
        -kernel "$BZIMAGE" -initrd "$UE/initrd.cpio" \
        -append "console=ttyS0 panic=-1 init_on_alloc=1$extra" \
        < /dev/null >> "$UE/console.log" 2>&1
    qrc=$?
    set -e
    [ $qrc -eq 124 ] && log "user_events: qemu did not finish within ${BOOT_TIMEOUT}s"
done
grep -a '^e2e: ' "$UE/console.log" | tr -d '\r' >&2 || true
log "user_events: qemu exited ($qrc); $(($(date +%s) - START))s for the check"
