#!/bin/sh
# Rebuild bpf/rtrace.bpf.o, the BPF engine's kernel half, from
# bpf/rtrace.bpf.c. The object is committed so that building rtrace needs
# no clang; run this after changing the C source or bpf/rtrace.h (Debian:
# apt-get install clang libbpf-dev linux-libc-dev) and commit the result.
# tests/bpf.rs checks that the committed object is what this script builds
# when the same clang is installed (bpf/rtrace.bpf.o.clang names it).
set -eu
cd "$(dirname "$0")/.."
out=${1:-bpf/rtrace.bpf.o}
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
clang -O2 -g -target bpf -D__TARGET_ARCH_x86 \
    -I/usr/include/"$multiarch" -Ibpf \
    -fdebug-prefix-map="$PWD"=. \
    -c bpf/rtrace.bpf.c -o "$out"
# Debug line info would name the build directory; BTF must stay (maps,
# the loader's relocations), so only the DWARF sections go.
llvm-strip -g "$out"
# The compiler that built the committed object: the test that rebuilds it
# compares bytes only when the same one is installed.
if [ "$out" = bpf/rtrace.bpf.o ]; then
    clang --version | head -n 1 > bpf/rtrace.bpf.o.clang
fi
