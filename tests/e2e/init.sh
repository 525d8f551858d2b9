#!/bin/sh
# /init of the end-to-end suite's initramfs (run by busybox sh as PID 1 in
# the qemu guest). It loads the USB modules, runs each check's capture
# under rtrace while making USB traffic, and prints what the host needs to
# judge the check on the console:
#
#   e2e: TEXT                      progress, for people
#   @@E2E result NAME VALUE        one value (exit codes, states, counts)
#   @@E2E file NAME / base64 / @@E2E end NAME
#                                  a file, gzipped and base64-encoded
#   @@E2E done                     the end; the guest then powers off
#
# It decides nothing itself: tests/e2e/check.py on the host does.

export PATH=/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
chmod 1777 /tmp
# Kernel messages would cut into the report lines.
dmesg -n 1

say() { echo "e2e: [$(cut -d" " -f1 /proc/uptime)s] $*"; }
result() { echo "@@E2E result $1 $2"; }
sendfile() {
    if [ -f "$2" ]; then
        echo "@@E2E file $1"
        gzip -c "$2" | base64
        echo "@@E2E end $1"
    else
        echo "@@E2E missing $1"
    fi
}
finish() {
    echo "@@E2E done"
    sync
    poweroff -f
}

# wait_for FILE PATTERN SECONDS: until FILE contains PATTERN.
wait_for() {
    i=0
    while [ $i -lt $(($3 * 10)) ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        usleep 100000
        i=$((i + 1))
    done
    return 1
}

# wait_exists FILE SECONDS
wait_exists() {
    i=0
    while [ $i -lt $(($2 * 10)) ]; do
        [ -e "$1" ] && return 0
        usleep 100000
        i=$((i + 1))
    done
    return 1
}

# Bulk traffic on bus 2: read four 4 KiB blocks from the stick with O_DIRECT
# (each read is a command, data and status transfer: six events). Each round
# reads other blocks, so the data words differ from round to round.
round=0
bulk() {
    dd if=/dev/sda of=/dev/null bs=4096 count=4 skip=$(((round % 200) * 4)) \
        iflag=direct 2>/dev/null
    round=$((round + 1))
}

# bulk_until FILE MAXROUNDS: bulk rounds until FILE exists.
bulk_until() {
    n=0
    while [ ! -e "$1" ] && [ $n -lt "$2" ]; do
        bulk
        usleep 100000
        n=$((n + 1))
    done
}

# Control traffic on bus 1: re-enumerate the tablet.
reenumerate() {
    echo 0 > /sys/bus/usb/devices/1-1/authorized
    usleep 300000
    echo 1 > /sys/bus/usb/devices/1-1/authorized
    usleep 700000
}

# start_text BUS NAME: record the kernel's text API for BUS in /tmp/NAME.text.
start_text() {
    cat /sys/kernel/debug/usb/usbmon/"$1"u > /tmp/"$2".text &
    echo $! > /tmp/"$2".catpid
    usleep 300000
}
stop_text() {
    sleep 1
    kill "$(cat /tmp/"$1".catpid)" 2>/dev/null
}

say "booted: $(uname -r)"
for m in $(cat /etc/e2e/modules); do
    insmod /lib/modules/e2e/"$m".ko || say "insmod $m failed"
done
for f in /dev/usbmon0 /dev/usbmon1 /dev/usbmon2 /dev/sda /sys/bus/usb/devices/1-1; do
    wait_exists "$f" 60 || say "missing $f"
done
# Let enumeration and the disk's partition scan finish.
sleep 2
result kernel "$(uname -r)"
for d in /sys/bus/usb/devices/[0-9]-[0-9]; do
    result device "$(basename "$d") $(cat "$d"/idVendor):$(cat "$d"/idProduct) $(cat "$d"/product 2>/dev/null | tr ' ' _)"
done
result sda_size "$(cat /sys/block/sda/size 2>/dev/null)"
result rtrace_version "$(rtrace --version 2>&1)"

# --- 1: tcpdump through the mmapped ring (MFETCH, MFLUSH, STATS) ---------
say "check 1: rtrace -f tcpdump -i usbmon2 (bulk traffic)"
N1=48
start_text 2 t1
(
    timeout 180 rtrace -f -o /tmp/t1.trace tcpdump -n -i usbmon2 -c $N1 -w /tmp/t1.pcap 2> /tmp/t1.err
    echo $? > /tmp/t1.rc.tmp
    mv /tmp/t1.rc.tmp /tmp/t1.rc
) &
wait_for /tmp/t1.err "listening on" 120 || say "tcpdump did not start listening"
bulk_until /tmp/t1.rc 100
wait_exists /tmp/t1.rc 190
stop_text t1
result t1.n "$N1"
result t1.rc "$(cat /tmp/t1.rc)"
for f in trace text pcap err; do sendfile t1.$f /tmp/t1.$f; done

# --- 2: tshark -> dumpcap (one event per MFETCH) -------------------------
say "check 2: rtrace -f tshark -i usbmon1 (re-enumeration)"
N2=40
start_text 1 t2
(
    cd /tmp
    timeout 400 rtrace -f -o /tmp/t2.trace tshark -i usbmon1 -c $N2 \
        -T fields -e usb.urb_id -e usb.urb_type > /tmp/t2.out 2> /tmp/t2.err
    echo $? > /tmp/t2.rc.tmp
    mv /tmp/t2.rc.tmp /tmp/t2.rc
) &
wait_for /tmp/t2.err "Capturing on" 360 || say "tshark did not start capturing"
n=0
while [ ! -e /tmp/t2.rc ] && [ $n -lt 20 ]; do
    reenumerate
    n=$((n + 1))
done
wait_exists /tmp/t2.rc 400
stop_text t2
result t2.n "$N2"
result t2.rc "$(cat /tmp/t2.rc)"
for f in trace text out err; do sendfile t2.$f /tmp/t2.$f; done

# --- 3: our own client, under rtrace during bulk traffic -----------------
# client_check TAG COUNT FIRST_REQUEST CLIENT [ARGS...]: CLIENT BUS COUNT ARGS
# under rtrace $ENGINE (empty: ptrace; --bpf: the BPF engine).
ENGINE=
client_check() {
    # (cc_ names: the helpers above use n, count and i of their own)
    cc_tag=$1 cc_n=$2 cc_first=$3 cc_client=$4
    shift 4
    start_text 2 "$cc_tag"
    (
        # shellcheck disable=SC2086 # ENGINE is one word or none
        timeout 180 rtrace $ENGINE -o "/tmp/$cc_tag.trace" "$cc_client" 2 "$cc_n" "$@" > "/tmp/$cc_tag.out" 2>&1
        echo $? > "/tmp/$cc_tag.rc.tmp"
        mv "/tmp/$cc_tag.rc.tmp" "/tmp/$cc_tag.rc"
    ) &
    wait_for "/tmp/$cc_tag.trace" "$cc_first" 60 || say "$cc_client $* did not start"
    bulk_until "/tmp/$cc_tag.rc" 100
    wait_exists "/tmp/$cc_tag.rc" 190
    stop_text "$cc_tag"
    result "$cc_tag.n" "$cc_n"
    result "$cc_tag.rc" "$(cat "/tmp/$cc_tag.rc")"
    for f in trace text out; do sendfile "$cc_tag.$f" "/tmp/$cc_tag.$f"; done
}

say "check 3: rtrace usbmon_client (GETX, GET, read)"
client_check t3 30 MON_IOCQ_RING_SIZE usbmon_client
# 3b: the same client as a 32-bit program: the compat requests.
say "check 3b: rtrace usbmon_client32 (GETX32, GET32, read)"
client_check t3b 30 MON_IOCQ_RING_SIZE usbmon_client32
# 3c: the 32-bit client the libpcap way: MFETCH32 on the mapped ring.
say "check 3c: rtrace usbmon_client32 mmap (MFETCH32)"
client_check t3c 40 MON_IOCT_RING_SIZE usbmon_client32 mmap

# 5: a deliberately wrong client: rtrace's ABI diagnostics on the real
# kernel (MFETCH twice without a flush, then a flush of too many).
say "check 5: rtrace usbmon_client refetch (diagnostics)"
client_check t5 4 MON_IOCT_RING_SIZE usbmon_client refetch

# --- 4a: -f across tcpdump's privilege drop (-Z nobody) ------------------
say "check 4a: rtrace -f tcpdump -Z nobody"
N4=24
start_text 2 t4a
(
    timeout 180 rtrace -f -o /tmp/t4a.trace tcpdump -n -i usbmon2 -c $N4 -Z nobody -w /tmp/t4a.pcap 2> /tmp/t4a.err
    echo $? > /tmp/t4a.rc.tmp
    mv /tmp/t4a.rc.tmp /tmp/t4a.rc
) &
wait_for /tmp/t4a.err "listening on" 120 || say "tcpdump -Z did not start listening"
bulk_until /tmp/t4a.rc 100
wait_exists /tmp/t4a.rc 190
stop_text t4a
result t4a.n "$N4"
result t4a.rc "$(cat /tmp/t4a.rc)"
result t4a.pcap_owner "$(stat -c %U /tmp/t4a.pcap 2>/dev/null)"
for f in trace text pcap err; do sendfile t4a.$f /tmp/t4a.$f; done

# --- 4b: attach with -p to a running capture, detach with SIGINT ---------
say "check 4b: rtrace -p (running tcpdump), SIGINT detach"
start_text 2 t4b
tcpdump -n -i usbmon2 -w /tmp/t4b.pcap 2> /tmp/t4b.err &
TD=$!
wait_for /tmp/t4b.err "listening on" 120 || say "tcpdump did not start listening"
bulk
bulk
(
    timeout 180 rtrace -p $TD -o /tmp/t4b.trace 2> /tmp/t4b.rtrace_err
    echo $? > /tmp/t4b.rc.tmp
    mv /tmp/t4b.rc.tmp /tmp/t4b.rc
) &
sleep 2
RT=$(pidof rtrace)
result t4b.tracer_pid_attached "$(awk '/^TracerPid/ {print $2}' /proc/$TD/status)"
bulk
bulk
bulk
sleep 1
kill -INT $RT
wait_exists /tmp/t4b.rc 60
result t4b.rc "$(cat /tmp/t4b.rc)"
sleep 1
result t4b.alive_after_detach "$([ -d /proc/$TD ] && echo yes || echo no)"
result t4b.state_after_detach "$(awk '{print $3}' /proc/$TD/stat 2>/dev/null)"
result t4b.tracer_pid_after_detach "$(awk '/^TracerPid/ {print $2}' /proc/$TD/status 2>/dev/null)"
bulk
bulk
sleep 1
result t4b.alive_after_traffic "$([ -d /proc/$TD ] && echo yes || echo no)"
kill -INT $TD 2>/dev/null
wait $TD
result t4b.tcpdump_rc "$?"
stop_text t4b
for f in trace text pcap err rtrace_err; do sendfile t4b.$f /tmp/t4b.$f; done

# --- 4c: exit status ---------------------------------------------------------
say "check 4c: exit status"
tcpdump -n -i nosuchdevice -c 1 > /dev/null 2>&1
result t4c.plain_tcpdump_rc "$?"
rtrace -f -o /tmp/t4c1.trace tcpdump -n -i nosuchdevice -c 1 > /dev/null 2>&1
result t4c.traced_tcpdump_rc "$?"
rtrace -f -o /tmp/t4c2.trace sh -c 'exit 7'
result t4c.sh_exit7_rc "$?"
sh -c 'kill -TERM $$'
result t4c.plain_sigterm_rc "$?"
rtrace -f -o /tmp/t4c3.trace sh -c 'kill -TERM $$'
result t4c.traced_sigterm_rc "$?"
for f in t4c1 t4c2 t4c3; do sendfile $f.trace /tmp/$f.trace; done

# --- 6: the usbmon table's struct layouts against the kernel's BTF ----------
say "check 6: rtrace --explain-ioctl, usbmon layouts against the kernel's BTF"
ls /sys/kernel/btf > /tmp/t6.btf 2>&1
rtrace --list-ioctls usbmon > /tmp/t6.list 2>&1
: > /tmp/t6.explain
for code in $(grep -o '0x[0-9a-f]\{8\}' /tmp/t6.list); do
    rtrace --explain-ioctl "$code" >> /tmp/t6.explain 2>&1
done
for f in btf list explain; do sendfile t6.$f /tmp/t6.$f; done

# --- 7: the BPF engine (--bpf): the same captures, not stopped --------------
# 7.0: the program loads and attaches on this kernel at all; bpftool's
# libbpf log (the verifier's, when a program is refused) goes along.
say "check 7.0: rtrace --bpf true (the BPF program loads)"
mkdir -p /sys/fs/bpf
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
timeout 300 rtrace --bpf -o /tmp/b0.trace true > /tmp/b0.err 2>&1
b0rc=$?
result b0.rc "$b0rc"
say "rtrace --bpf true exited $b0rc"
if [ "$b0rc" != 0 ] && command -v bpftool > /dev/null; then
    timeout 300 bpftool -d prog loadall /usr/share/rtrace/rtrace.bpf.o /sys/fs/bpf/rtrace > /tmp/b0.bpftool 2>&1
    result b0.bpftool_rc "$?"
    rm -rf /sys/fs/bpf/rtrace
    sendfile b0.bpftool /tmp/b0.bpftool
fi
for f in trace err; do sendfile b0.$f /tmp/b0.$f; done

# 7a: check 1 under --bpf.
say "check 7a: rtrace --bpf -f tcpdump -i usbmon2 (bulk traffic)"
start_text 2 b1
(
    timeout 180 rtrace --bpf -f -o /tmp/b1.trace tcpdump -n -i usbmon2 -c $N1 -w /tmp/b1.pcap 2> /tmp/b1.err
    echo $? > /tmp/b1.rc.tmp
    mv /tmp/b1.rc.tmp /tmp/b1.rc
) &
wait_for /tmp/b1.err "listening on" 120 || say "tcpdump did not start listening"
bulk_until /tmp/b1.rc 100
wait_exists /tmp/b1.rc 190
stop_text b1
result b1.n "$N1"
result b1.rc "$(cat /tmp/b1.rc)"
for f in trace text pcap err; do sendfile b1.$f /tmp/b1.$f; done

# 7b-7e: checks 3, 3b, 3c and 5 under --bpf.
ENGINE=--bpf
say "check 7b: rtrace --bpf usbmon_client (GETX, GET, read)"
client_check b3 30 MON_IOCQ_RING_SIZE usbmon_client
say "check 7c: rtrace --bpf usbmon_client32 (GETX32, GET32, read)"
client_check b3b 30 MON_IOCQ_RING_SIZE usbmon_client32
say "check 7d: rtrace --bpf usbmon_client32 mmap (MFETCH32)"
client_check b3c 40 MON_IOCT_RING_SIZE usbmon_client32 mmap
say "check 7e: rtrace --bpf usbmon_client refetch (diagnostics)"
client_check b5 4 MON_IOCT_RING_SIZE usbmon_client refetch
ENGINE=

# 7f: check 2 under --bpf: -f follows tshark to dumpcap in the kernel.
say "check 7f: rtrace --bpf -f tshark -i usbmon1 (re-enumeration)"
start_text 1 b2
(
    cd /tmp
    timeout 400 rtrace --bpf -f -o /tmp/b2.trace tshark -i usbmon1 -c $N2 \
        -T fields -e usb.urb_id -e usb.urb_type > /tmp/b2.out 2> /tmp/b2.err
    echo $? > /tmp/b2.rc.tmp
    mv /tmp/b2.rc.tmp /tmp/b2.rc
) &
wait_for /tmp/b2.err "Capturing on" 360 || say "tshark did not start capturing"
n=0
while [ ! -e /tmp/b2.rc ] && [ $n -lt 20 ]; do
    reenumerate
    n=$((n + 1))
done
wait_exists /tmp/b2.rc 400
stop_text b2
result b2.n "$N2"
result b2.rc "$(cat /tmp/b2.rc)"
for f in trace text out err; do sendfile b2.$f /tmp/b2.$f; done

# 7g: calls a seccomp filter refuses: the kernel fires no sys_enter for
# them, and --bpf takes their memory at the exit, which finds that the
# entry did not fire. Both engines, the same lines.
say "check 7g: rtrace --bpf seccomp_errno (calls a seccomp filter refuses)"
timeout 120 rtrace --bpf -o /tmp/b7.trace seccomp_errno > /tmp/b7.err 2>&1
result b7.rc "$?"
timeout 120 rtrace -o /tmp/b7p.trace seccomp_errno > /tmp/b7p.err 2>&1
result b7p.rc "$?"
for f in b7.trace b7.err b7p.trace b7p.err; do sendfile $f /tmp/$f; done

# --- 8: the whole machine (--bpf -a): who is capturing? ---------------------
# all_check TAG RTRACE_OPTIONS...: rtrace --bpf -a OPTIONS watches the whole
# machine; then a tcpdump it is not told about starts and captures. The
# trace must name it with its pid.
all_check() {
    ac_tag=$1
    shift
    start_text 2 "$ac_tag"
    (
        timeout 300 rtrace --bpf -a "$@" -o "/tmp/$ac_tag.trace" 2> "/tmp/$ac_tag.rtrace_err"
        echo $? > "/tmp/$ac_tag.rc.tmp"
        mv "/tmp/$ac_tag.rc.tmp" "/tmp/$ac_tag.rc"
    ) &
    # Tracing has begun once the trace has a line (-a says nothing before
    # the first record). Meanwhile, probes: our client opening
    # /dev/usbmon0, asking its ring's size and statistics (no event), each
    # pid kept; the judge wants them in the trace too.
    : > "/tmp/$ac_tag.probes"
    n=0
    while [ ! -s "/tmp/$ac_tag.trace" ] && [ $n -lt 120 ] && [ ! -e "/tmp/$ac_tag.rc" ]; do
        usbmon_client 0 0 > /dev/null &
        echo $! >> "/tmp/$ac_tag.probes"
        wait $!
        usleep 500000
        n=$((n + 1))
    done
    usbmon_client 0 0 > /dev/null &
    echo $! >> "/tmp/$ac_tag.probes"
    wait $!
    (
        sh -c 'echo $$ > /tmp/'"$ac_tag"'.tdpid; exec tcpdump -n -i usbmon2 -c 24 -w /tmp/'"$ac_tag"'.pcap' 2> "/tmp/$ac_tag.err"
        echo $? > "/tmp/$ac_tag.tdrc.tmp"
        mv "/tmp/$ac_tag.tdrc.tmp" "/tmp/$ac_tag.tdrc"
    ) &
    wait_for "/tmp/$ac_tag.err" "listening on" 120 || say "tcpdump did not start listening"
    bulk_until "/tmp/$ac_tag.tdrc" 100
    wait_exists "/tmp/$ac_tag.tdrc" 190
    # rtrace reads the ring every 10 ms; the interrupt ends the trace.
    sleep 1
    kill -INT "$(pidof rtrace)"
    wait_exists "/tmp/$ac_tag.rc" 60
    stop_text "$ac_tag"
    result "$ac_tag.n" 24
    result "$ac_tag.capture_pid" "$(cat "/tmp/$ac_tag.tdpid")"
    result "$ac_tag.tcpdump_rc" "$(cat "/tmp/$ac_tag.tdrc")"
    result "$ac_tag.rc" "$(cat "/tmp/$ac_tag.rc" 2> /dev/null)"
    result "$ac_tag.probes" "$(tr '\n' ' ' < "/tmp/$ac_tag.probes")"
    for f in trace text pcap err rtrace_err; do sendfile "$ac_tag.$f" "/tmp/$ac_tag.$f"; done
}

say "check 8: rtrace --bpf -a -e trace=ioctl, a tcpdump it was not told about"
all_check b8 -e trace=ioctl
say "check 8b: the same with --filter 'fd.path ~ \"/dev/usbmon*\"'"
all_check b8f -e trace=ioctl --filter 'fd.path ~ "/dev/usbmon*"'

finish
