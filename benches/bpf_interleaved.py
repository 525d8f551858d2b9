#!/usr/bin/env python3
"""The BPF engine's costs by hand, binaries side by side (session 11):
interleaved rounds of the getppid loop (200,000 calls traced to /dev/null,
2,000,000 under -c), `tar cf - /usr/include | cat`, and the start-up
(`true`), untraced and under `BIN --bpf -f` for each binary given; prints
medians with their ranges, and the medians of each round's ratio to that
round's untraced run (a shared machine's load moves both alike).

usage: BENCH_DIR=DIR benches/bpf_interleaved.py ROUNDS BIN...
DIR holds getppid_n (benches/side_by_side.rs's UNPINNED_WORKLOADS[0],
built with gcc -O2) and selftime (benches/bpf_selftime.c)."""
import subprocess, sys, time, statistics, os
rounds = int(sys.argv[1]); bins = sys.argv[2:]
D = os.environ.get('BENCH_DIR', '.')
gp = f'{D}/getppid_n'; st = f'{D}/selftime'; out = f'{D}/selftime.out'
TAR = ['sh', '-c', 'tar cf - /usr/include | cat >/dev/null']
def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    whole = time.perf_counter() - t
    own = cpu = None
    if os.path.exists(out):
        w, c = open(out).read().split()
        own, cpu = int(w) / 1e9, int(c) / 1e9
        os.unlink(out)
    return whole, own, cpu
cases = []
for label, args in [('untraced', [])] + [(f'bin{i}', [b, '--bpf', '-f', '-o', '/dev/null']) for i, b in enumerate(bins)]:
    cases.append((label, 'getppid200k', args + [st, out, gp, '200000']))
    cases.append((label, 'tar', args + [st, out] + TAR))
for i, b in enumerate(bins):
    cases.append((f'bin{i}', 'start', [b, '--bpf', '-f', '-o', '/dev/null', 'true']))
    cases.append((f'bin{i}', 'c2M', [b, '--bpf', '-f', '-c', '-o', '/dev/null', st, out, gp, '2000000']))
cases.append(('untraced', 'c2M', [st, out, gp, '2000000']))
res = {}
for r in range(rounds):
    for label, wl, cmd in cases:
        res.setdefault((label, wl), []).append(run(cmd))
    print(f'round {r+1} load {os.getloadavg()[0]:.1f}', file=sys.stderr)
def med(xs): return statistics.median(xs)
print('labels:', {f'bin{i}': b for i, b in enumerate(bins)})
for (label, wl), xs in sorted(res.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    whole = [x[0] for x in xs]; own = [x[1] for x in xs if x[1] is not None]; cpu = [x[2] for x in xs if x[2] is not None]
    s = f'{wl:12} {label:9} whole med {med(whole):.3f} [{min(whole):.3f}-{max(whole):.3f}]'
    if own: s += f'  own med {med(own):.3f} [{min(own):.3f}-{max(own):.3f}]  cpu med {med(cpu):.3f}'
    print(s)
# ratios per round, then medians
print('ratios to untraced (median of per-round ratios):')
for wl in ['getppid200k', 'tar', 'c2M']:
    for i in range(len(bins)):
        k = (f'bin{i}', wl); u = ('untraced', wl)
        if k not in res: continue
        rw = [a[0] / b[0] for a, b in zip(res[k], res[u])]
        ro = [a[1] / b[1] for a, b in zip(res[k], res[u])]
        print(f'{wl:12} bin{i}: whole {med(rw):.2f}x [{min(rw):.2f}-{max(rw):.2f}]  own {med(ro):.2f}x [{min(ro):.2f}-{max(ro):.2f}]')
