#!/bin/sh
# /init of the user_events check's initramfs (tests/e2e/uevents.sh): on
# the kernel built with CONFIG_USER_EVENTS, run uevents_run.sh and send
# its files on the console as init.sh does (`@@E2E file NAME`, gzip +
# base64), then `@@E2E done` and power off. It decides nothing.
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
chmod 1777 /tmp
dmesg -n 1

echo "e2e: user_events: kernel $(uname -r), running uevents_run.sh"
echo "@@E2E result u.kernel $(uname -r)"
mkdir -p /tmp/u
sh /usr/share/e2e/uevents_run.sh /tmp/u rtrace
for f in /tmp/u/*; do
    echo "@@E2E file u.$(basename "$f")"
    gzip -c "$f" | base64
    echo "@@E2E end u.$(basename "$f")"
done
echo "@@E2E done"
sync
# No ACPI in this kernel: a reboot, which -no-reboot turns into qemu's exit.
reboot -f
