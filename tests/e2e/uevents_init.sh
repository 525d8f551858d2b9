#!/bin/sh
# /init of the user_events check's initramfs (tests/e2e/uevents.sh): on
# the kernel built with CONFIG_USER_EVENTS, run uevents_run.sh (with the
# BPF engine on the second boot) and send
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

# The second boot (uevents.sh: `e2e_engine=bpf` on the command line)
# traces the producer with the BPF engine; its files are `ub.*`.
engine=ptrace
prefix=u
if grep -q 'e2e_engine=bpf' /proc/cmdline; then
    engine=bpf
    prefix=ub
fi
echo "e2e: user_events: kernel $(uname -r), running uevents_run.sh ($engine)"
echo "@@E2E result $prefix.kernel $(uname -r)"
mkdir -p /tmp/u
sh /usr/share/e2e/uevents_run.sh /tmp/u rtrace $engine
for f in /tmp/u/*; do
    echo "@@E2E file $prefix.$(basename "$f")"
    gzip -c "$f" | base64
    echo "@@E2E end $prefix.$(basename "$f")"
done
echo "@@E2E result $prefix.done 1"
echo "@@E2E done"
sync
# No ACPI in this kernel: a reboot, which -no-reboot turns into qemu's exit.
reboot -f
