#!/bin/sh
# Issue 19's goals on a many-core machine, from the same static build as
# run-all.sh (bench_programs):
#   bench/lent/run-generational.sh build-static/bench OUTDIR
# binary-trees 18 and 21 and GCBench for the headerless programs (generational,
# concurrent, neither) beside Boehm; mt-trees at 2.5x live at 1-16 mutators;
# and the minor collections' speed-up per GC worker on binary-trees 21.
# Each program prints its own RESULT line (minor p50/p99) and runstat's
# RUNSTAT line (time, RSS). About 3 minutes on 16 cores.
set -u
. "$(dirname "$0")/lib.sh"
lent_start "$@"

# Two rounds, alternating implementations, so a slow minute hits all alike.
for round in 1 2; do
    for impl in corral-gen-hl corral-conc-hl corral-hl boehm; do
        impl_run "binary-trees-21-$impl-$round" 60 $impl binary-trees 21
        impl_run "binary-trees-18-$impl-$round" 30 $impl binary-trees 18
        impl_run "gcbench-$impl-$round" 30 $impl gcbench
    done
done
for threads in 1 2 4 8 16; do
    for impl in corral-gen corral-conc corral boehm; do
        impl_run "mt-trees-$impl-$threads" 60 $impl mt-trees "$threads" 512 20 16 \
            "$(mt_trees_heap "$threads")"
    done
done
# Minor collections per GC worker count: the pauses' total and p99 of the
# same program and nursery (the nursery is pinned, as its auto size grows
# with the worker count).
for workers in 1 2 4 8 16; do
    run "minor-workers-$workers" 60 env CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=$workers \
        CORRAL_GC_NURSERY=64M "$bin/runstat" -- "$bin/corral-hl-binary-trees" 21
done
echo "done" >> "$log"
