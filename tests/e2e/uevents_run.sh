#!/bin/sh
# uevents_run.sh OUT RTRACE [bpf]: the user_events check's steps
# (README.md, check U), the same on both sides: in the guest on the real
# kernel (uevents_init.sh runs it), and on the host as the command of
# `rtrace --user-events-emulate` (uevents.sh), where every open of
# /sys/kernel/tracing/... below is the emulation's. uevents_enable,
# uevents_producer and RTRACE must be on PATH or named by path. Each
# result goes to a file in OUT; nothing is judged here (check.py does).
# With `bpf` (the guest's second boot, check U5): the events made and
# enabled, and the producer traced by `RTRACE --bpf`, nothing else.
OUT=$1
RTRACE=$2
ENGINE=${3:-ptrace}
T=/sys/kernel/tracing
E=$T/events/user_events
PROBE='rtrace_probe u32 count;char[8] tag'
MULTI='rtrace_multi s64 a;u16 b;unsigned char c;__data_loc char[] msg;__rel_loc char[] note'

if [ "$ENGINE" = bpf ]; then
    uevents_enable "$PROBE" "$MULTI" 2> "$OUT/enable.err"
    echo $? > "$OUT/enable.rc"
    UEVENTS_EMU_ATTACHED=1 "$RTRACE" --bpf -o "$OUT/producer.trace" uevents_producer 2> "$OUT/producer.err"
    echo $? > "$OUT/producer.rc"
    exit 0
fi
# An empty buffer (a real kernel's holds nothing yet, but the same steps).
: > $T/trace
# Create both events and enable them, as a tracer would.
uevents_enable "$PROBE" "$MULTI" 2> "$OUT/enable.err"
echo $? > "$OUT/enable.rc"
cat $E/rtrace_probe/format > "$OUT/probe.format" 2>&1
cat $E/rtrace_multi/format > "$OUT/multi.format" 2>&1
cat $E/rtrace_probe/enable > "$OUT/probe.enable" 2>&1
cat $T/user_events_status > "$OUT/status.before" 2>&1
# The producer, traced: it checks its own results (exit 1 and the
# differences on stderr when one is not what it expects).
UEVENTS_EMU_ATTACHED=1 "$RTRACE" -o "$OUT/producer.trace" uevents_producer 2> "$OUT/producer.err"
echo $? > "$OUT/producer.rc"
cat $T/user_events_status > "$OUT/status.after" 2>&1
cat $T/trace > "$OUT/ftrace" 2>&1
# The producer deleted its events, so the trace file says `Unknown type
# ID` for their records. The same commands registered again get the
# freed IDs back (the lowest free), and the records read as ftrace
# renders their fields.
uevents_enable "$PROBE" "$MULTI" 2> "$OUT/enable2.err"
echo $? > "$OUT/enable2.rc"
cat $T/trace > "$OUT/ftrace.reused" 2>&1
