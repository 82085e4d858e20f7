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
for impl in corral corral-gen boehm malloc; do
    impl_run "binary-trees-$impl" 60 $impl binary-trees 21
done
for impl in corral corral-gen boehm malloc; do
    impl_run "gcbench-$impl" 60 $impl gcbench
done
for threads in 1 2 4 8 16; do
    for impl in corral corral-gen boehm; do
        impl_run "mt-trees-$impl-$threads" 60 $impl mt-trees "$threads" 512 20 16 \
            "$(mt_trees_heap "$threads")"
    done
done
echo "done" >> "$log"
