# lib.sh — sourced by the lent machine's scripts: their arguments, the
# results log's header, one timed run appended to it, and how each
# implementation's program is run.

# lent_start BIN [OUTDIR]: sets $bin (the static build's bench/) and $log
# (OUTDIR/results.txt), and starts the log with the machine the figures
# come from.
lent_start() {
    bin=$1
    out=${2:-.}
    mkdir -p "$out"
    log="$out/results.txt"
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "nproc: $(nproc)"
        grep -m1 "model name" /proc/cpuinfo
        uname -srm
    } > "$log"
}

# run NAME SECONDS COMMAND...: the command's output and exit status, framed
# by its name, so a timeout or crash is a named line, not a hung script.
run() {
    name=$1; limit=$2; shift 2
    echo "== $name: $*" >> "$log"
    timeout "$limit" "$@" >> "$log" 2>&1
    echo "== $name: exit $?" >> "$log"
}

# impl_run NAME SECONDS IMPL WORKLOAD ARGS...: one run of IMPL's program under
# the environment bench/run gives that implementation.
impl_run() {
    name=$1; limit=$2; impl=$3; workload=$4; shift 4
    case $impl in
        corral | corral-hl) program=$impl; env="CORRAL_GC_GENERATIONAL=0" ;;
        corral-gen) program=corral; env="CORRAL_GC_GENERATIONAL=1" ;;
        corral-gen-hl) program=corral-hl; env="CORRAL_GC_GENERATIONAL=1" ;;
        corral-conc) program=corral-satb; env="CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1" ;;
        corral-conc-hl) program=corral-satb-hl; env="CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1" ;;
        *) program=$impl; env= ;;
    esac
    # $env is a list of words on purpose.
    # shellcheck disable=SC2086
    run "$name" "$limit" env $env "$bin/runstat" -- "$bin/$program-$workload" "$@"
}

# mt-trees' heap for THREADS mutators: 512 trees of depth 16 beside a live
# tree of depth 20, the heap at 2.5x the live size (32-byte nodes: the live
# tree and one tree per mutator).
mt_trees_heap() {
    live=$(( 32 * ( (1 << 21) - 1 + $1 * ((1 << 17) - 1) ) ))
    echo $(( live * 5 / 2 ))
}
