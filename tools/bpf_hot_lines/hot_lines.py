#!/usr/bin/env python3
"""Which source lines of rtrace's BPF programs a traced program spends
its time in: samples a running tracee with perf, and maps each sample in
a JIT image to the line of bpf/*.c that the kernel's line table says it
came from. For finding what a call's tracing costs (HACKING.md, "The BPF
engine", Measurements).

usage: hot_lines.py PID [SECONDS] [TOP]
PID is a process `rtrace --bpf` traces, running long enough to be
sampled for SECONDS (default 3); prints the TOP (default 30) lines and
functions. Needs root, perf, bpftool and a C compiler (jit_lines.c is
built next to a temporary copy)."""
import bisect, collections, json, os, re, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def rtrace_programs():
    """(id, name) of the programs an rtrace process holds: by the pids
    bpftool shows where it can, else the newest program of each of
    rtrace's names (the kernel keeps 15 characters of them)."""
    progs = json.loads(run(['bpftool', 'prog', 'show', '--json']))
    held = [(p['id'], p.get('name', '?')) for p in progs
            if any(h.get('comm') == 'rtrace' for h in p.get('pids', []))]
    if held:
        return held
    newest = {}
    for p in progs:
        name = p.get('name', '')
        if name.startswith('rtrace_'):
            newest[name] = max(newest.get(name, 0), p['id'])
    return [(prog_id, name) for name, prog_id in newest.items()]


def line_table(jit_lines, prog_id):
    """Each line's JIT address with the source text bpftool gives its
    first instruction."""
    source, text = {}, None
    for line in run(['bpftool', 'prog', 'dump', 'xlated', 'id', str(prog_id), 'linum']).splitlines():
        if line.startswith(';'):
            text = re.sub(r'\s+', ' ', line[1:]).strip()
        m = re.match(r'\s*(\d+):', line)
        if m:
            source[int(m.group(1))] = text
    table = []
    for line in run([jit_lines, str(prog_id)]).splitlines():
        addr, insn = line.split()
        table.append((int(addr, 16), source.get(int(insn), '?')))
    return table


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pid = sys.argv[1]
    seconds = sys.argv[2] if len(sys.argv) > 2 else '3'
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    with tempfile.TemporaryDirectory() as tmp:
        jit_lines = os.path.join(tmp, 'jit_lines')
        subprocess.run(['cc', '-O1', '-o', jit_lines, os.path.join(here, 'jit_lines.c')], check=True)
        programs = rtrace_programs()
        if not programs:
            sys.exit('hot_lines: no rtrace process holds a BPF program')
        lines = sorted(entry for prog_id, _ in programs for entry in line_table(jit_lines, prog_id))
        data = os.path.join(tmp, 'perf.data')
        subprocess.run(['perf', 'record', '-q', '-F', '20000', '-o', data, '-p', pid, '--', 'sleep', seconds],
                       check=True, stdout=subprocess.DEVNULL)
        samples = run(['perf', 'script', '-i', data, '-F', 'ip,sym'])
    by_line, by_sym, total = collections.Counter(), collections.Counter(), 0
    addrs = [a for a, _ in lines]
    for sample in samples.splitlines():
        fields = sample.split()
        if len(fields) < 2:
            continue
        total += 1
        ip, sym = int(fields[0], 16), fields[1]
        by_sym[sym] += 1
        if sym.startswith('bpf_prog_'):
            at = bisect.bisect_right(addrs, ip) - 1
            if at >= 0:
                by_line[lines[at][1]] += 1
    if not total:
        sys.exit('hot_lines: no samples (is PID running?)')
    print(f'{total} samples of pid {pid}; the functions:')
    for sym, n in by_sym.most_common(top):
        print(f'{100 * n / total:6.1f}%  {sym}')
    print('the BPF programs\' lines:')
    for text, n in by_line.most_common(top):
        print(f'{100 * n / total:6.1f}%  {text[:150]}')


try:
    main()
except subprocess.CalledProcessError as e:
    sys.exit(f'hot_lines: {" ".join(e.cmd[:3])} failed: {(e.stderr or "").strip()[:200]}')
except FileNotFoundError as e:
    sys.exit(f'hot_lines: {e.filename} is not installed')
