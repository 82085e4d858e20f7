#!/bin/sh
# Runs the scaling, TTSP and peer benchmarks on a many-core machine from a
# statically linked build (the lent machine has no packages): build with
#   cmake -S . -B build-static -DCORRAL_STATIC_TOOLS=ON -DCORRAL_BENCH_MANAGED=ON
#   cmake --build build-static --target bench_programs
# then run: bench/lent/run-all.sh build-static/bench OUTDIR
set -u
. "$(dirname "$0")/lib.sh"
lent_start "$@"
run fullgc 120 "$bin/corral-fullgc" 512 1,2,4,8,16
run ttsp 120 "$bin/corral-ttsp" 1,2,4,8,16 1.5
# corral-gen is corral's programs with CORRAL_GC_GENERATIONAL=1 (as bench/run).
program() { echo "${1%-gen}"; }
generational() { if [ "$1" = corral-gen ]; then echo 1; else echo 0; fi; }
for impl in corral corral-gen boehm malloc; do
    run "binary-trees-$impl" 60 env CORRAL_GC_GENERATIONAL="$(generational $impl)" \
        "$bin/runstat" -- "$bin/$(program $impl)-binary-trees" 21
done
for impl in corral corral-gen boehm malloc; do
    run "gcbench-$impl" 60 env CORRAL_GC_GENERATIONAL="$(generational $impl)" \
        "$bin/runstat" -- "$bin/$(program $impl)-gcbench"
done
# mt-trees: 512 trees of depth 16 beside a live tree of depth 20, heap at
# 2.5x the live size (32-byte nodes: the live tree and one tree per mutator).
for threads in 1 2 4 8 16; do
    live=$(( 32 * ( (1 << 21) - 1 + threads * ((1 << 17) - 1) ) ))
    heap=$(( live * 5 / 2 ))
    for impl in corral corral-gen boehm; do
        run "mt-trees-$impl-$threads" 60 env CORRAL_GC_GENERATIONAL="$(generational $impl)" \
            "$bin/runstat" -- "$bin/$(program $impl)-mt-trees" "$threads" 512 20 16 "$heap"
    done
done
echo "done" >> "$log"
