#!/bin/bash
# The real-workload differential (issue 25, "The measure"): runs every
# workload below under `strace -f` and `rtrace -f` with the same options
# (plain, -v, -y), then compare.py aligns the calls per process and
# classifies each: same information, rtrace shows more, less (with a
# reason), not comparable. A local measure, not a CI test: run as root
# on a Debian-like machine; the traces go to $OUT, never into the repository.
#
#   tools/workload_diff/run.sh [OUT] [WORKLOAD...]
#
# With TRACERS="ptrace bpf" it runs rtrace's two engines instead (`rtrace
# -f` and `rtrace --bpf -f`) and ends with engines.py, which compares
# them line by line (issue 21: what --bpf shows is what ptrace shows);
# TRACERS="ptrace bpf ptrace2" adds a second ptrace run, which tells
# values of the moment from values only the engines disagree on.
#
# Needs target/debug/rtrace (cargo build). Installs what is missing with
# apt-get (the list is PACKAGES).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RTRACE=${RTRACE:-$REPO/target/debug/rtrace}
OUT=${1:-/tmp/rtrace-workload-diff}; shift || true
MODES=${MODES:-"plain v y"}
TRACERS=${TRACERS:-"strace rtrace"}
# Debian packages of the workloads' programs.
PACKAGES="strace git python3 perl gzip bzip2 xz-utils zstd tar findutils coreutils
util-linux acl attr iproute2 iputils-ping socat curl wget openssl openssh-client gcc
make sqlite3 bash inotify-tools locales rsync"
[ -x "$RTRACE" ] || { echo "run.sh: no $RTRACE: run cargo build first" >&2; exit 1; }
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    apt-get install -y $missing >/dev/null || { echo "run.sh: apt-get failed" >&2; exit 1; }
fi
mkdir -p "$OUT"
# Every workload runs in a fresh $W (the same path under both tracers, so
# paths compare); a local HTTP server serves $SRV for curl and wget.
W=/tmp/rtrace-wl-work
SRV=/tmp/rtrace-wl-srv
mkdir -p $SRV && echo "hello from the local server" > $SRV/index.html
python3 -m http.server 18765 --bind 127.0.0.1 --directory $SRV >/dev/null 2>&1 &
HTTP_PID=$!
trap 'kill $HTTP_PID 2>/dev/null' EXIT
sleep 0.5

declare -A WL
WL[git]='git init -q r && cd r && echo a > f && git add f && git -c user.name=u -c user.email=u@x commit -qm m && git log --oneline >/dev/null && git status --short'
WL[py_sqlite]='python3 -c "import sqlite3; c=sqlite3.connect(\"d.db\"); c.execute(\"create table t(a)\"); c.executemany(\"insert into t values(?)\", [(i,) for i in range(50)]); c.commit(); print(c.execute(\"select count(*) from t\").fetchone())"'
WL[py_socket]='python3 -c "
import socket
s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(); p=s.getsockname()[1]
c=socket.create_connection((\"127.0.0.1\",p)); a,_=s.accept(); c.sendall(b\"ping\"); print(a.recv(4))
u=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); u.bind((\"127.0.0.1\",0)); u.sendto(b\"x\",u.getsockname()); print(u.recvfrom(10)[0])
x,y=socket.socketpair(); x.send(b\"q\"); print(y.recv(1))"'
WL[py_asyncio]='python3 -c "
import asyncio
async def h(r,w):
    w.write(await r.read(5)); await w.drain(); w.close()
async def m():
    s=await asyncio.start_server(h,\"127.0.0.1\",0); p=s.sockets[0].getsockname()[1]
    r,w=await asyncio.open_connection(\"127.0.0.1\",p); w.write(b\"hello\"); print(await r.read(5)); w.close(); s.close()
asyncio.run(m())"'
WL[py_multiprocessing]='python3 -c "
import multiprocessing as mp
def f(x): return x*x
if __name__==\"__main__\":
    with mp.Pool(2) as p: print(sum(p.map(f, range(20))))"'
WL[perl]='perl -e "opendir(D,\".\"); my @f=readdir(D); open(F,\">x\"); print F join(\",\",sort @f); close F; print -s \"x\", \"\n\"; system(\"true\")"'
WL[compressors]='seq 1 20000 > s && gzip -k s && bzip2 -k s && xz -k s && zstd -q -k s && gzip -dc s.gz | cmp - s && xz -dc s.xz | cmp - s'
WL[tar]='mkdir -p d/e && seq 1 500 > d/e/f && ln -s f d/e/l && tar czf a.tgz d && mkdir x && tar xzf a.tgz -C x && tar tvzf a.tgz >/dev/null'
WL[find]='mkdir -p a/b/c && touch a/1 a/b/2 a/b/c/3 && find . -name "[0-9]" -newer a -o -type d -print >/dev/null; find /usr/share/doc/bash -maxdepth 1 -type f -size +1k >/dev/null'
WL[sort]='seq 1 5000 | sort -r -S 100K -T . | sort -n -u | tail -1'
WL[dd]='dd if=/dev/zero of=z bs=4k count=64 conv=fsync status=none && dd if=z of=/dev/null bs=64k iflag=direct status=none 2>/dev/null; dd if=z of=y bs=1k skip=3 seek=2 count=5 status=none'
WL[cp_xattr_acl]='touch f && setfattr -n user.k -v val f && setfacl -m u:nobody:rw f && mkdir d && cp -a f d/ && getfattr -d d/f && getfacl d/f >/dev/null'
WL[flock]='touch l && flock l -c true && flock -n -x l true && flock -s l -c "flock -n -x l true || echo busy"'
WL[sched]='nice -n 5 true && ionice -c 3 true && ionice -c 2 -n 7 true && taskset -c 0 true && taskset -p 1 >/dev/null; chrt -b 0 true && chrt -p 1 >/dev/null'
WL[facl]='touch f && setfacl -m u:nobody:r,m::rw f && getfacl f >/dev/null && setfattr -n user.a -v 1 f && getfattr -n user.a f && getfattr -d -m - f >/dev/null && setfattr -x user.a f'
WL[ip]='ip link show && ip addr show && ip route show && ip -6 route show && ip neigh show && ip rule show && ip -s link show lo'
WL[ss]='ss -tan && ss -uan && ss -xa | head -5 && ss -s'
WL[ping]='ping -c 2 -i 0.2 127.0.0.1'
WL[socat]='(socat -u TCP-LISTEN:18766,reuseaddr OPEN:got,creat &) ; sleep 0.3; echo data | socat -u STDIN TCP:127.0.0.1:18766; sleep 0.3; socat -u UNIX-LISTEN:u.sock,fork - & sleep 0.2; echo x | socat - UNIX-CONNECT:u.sock; sleep 0.2; kill %1 2>/dev/null; true'
WL[curl_wget]='curl -s http://127.0.0.1:18765/index.html && wget -q -O w.html http://127.0.0.1:18765/index.html && cat w.html'
WL[openssl]='openssl genrsa -out k.pem 1024 2>/dev/null && openssl req -new -x509 -key k.pem -subj /CN=x -days 1 -out c.pem && openssl dgst -sha256 c.pem && openssl rand -hex 8'
WL[ssh_keygen]='ssh-keygen -q -t ed25519 -N "" -f k && ssh-keygen -l -f k.pub'
WL[gcc]='printf "#include <stdio.h>\nint main(void){puts(\"hi\");return 0;}\n" > h.c && gcc -O1 -o h h.c && ./h'
WL[make]='printf "all: b\nb: a\n\tcp a b\na:\n\techo x > a\n" > Makefile && make -s -j2 && make -s'
WL[sqlite3]='sqlite3 d.db "create table t(a,b); insert into t values(1,2),(3,4); select * from t; pragma journal_mode=wal; insert into t values(5,6);"'
WL[bash_jobs]='bash -c "set -m; sleep 0.2 & jobs >/dev/null; wait %1; (sleep 0.1; exit 3) & wait \$!; echo \$?; trap \"echo usr1\" USR1; kill -USR1 \$\$"'
WL[inotifywait]='(inotifywait -q -e create,modify . > ev &) ; sleep 0.5; echo x > newfile; sleep 0.3; cat ev'
WL[unshare_nsenter]='unshare -u -n sh -c "hostname inner; ip link show lo >/dev/null; hostname" && unshare -m -p -f --mount-proc true && nsenter -t 1 -u hostname'
WL[script_pty]='script -q -c "tty; stty -a >/dev/null; echo in-pty" /dev/null'
WL[locale_iconv]='locale >/dev/null && LC_ALL=C.UTF-8 locale -k LC_NUMERIC >/dev/null && printf "caf\xc3\xa9\n" | iconv -f UTF-8 -t ISO-8859-1 | iconv -f ISO-8859-1 -t UTF-16 | wc -c'
WL[rsync]='mkdir -p s/d && seq 1 300 > s/d/f && ln -s f s/d/l && touch s/e && rsync -a s/ t/ && echo y >> s/e && rsync -av --delete s/ t/ >/dev/null'

names=("$@"); [ ${#names[@]} -eq 0 ] && names=(${!WL[@]})
for n in "${names[@]}"; do
    cmd=${WL[$n]:-}; [ -n "$cmd" ] || { echo "run.sh: no workload $n" >&2; continue; }
    for m in $MODES; do
        case $m in plain) opt=();; v) opt=(-v);; y) opt=(-y);; yy) opt=(-yy);; dump) opt=(-e read=all -e write=all);; esac
        for t in $TRACERS; do
            rm -rf $W; mkdir -p $W
            case $t in
                strace) tracer=(strace -f);;
                rtrace|ptrace|ptrace2) tracer=("$RTRACE" -f);;
                bpf) tracer=("$RTRACE" --bpf -f);;
            esac
            (cd $W && timeout 120 "${tracer[@]}" "${opt[@]}" -o "$OUT/$n.$m.$t" bash -c "$cmd") >/dev/null 2>&1 </dev/null
            echo "$n $m $t rc=$?" >&2
        done
    done
done
rm -rf $W
case $TRACERS in
    *bpf*) python3 "$HERE/engines.py" "$OUT";;
    *) python3 "$HERE/compare.py" "$OUT";;
esac
