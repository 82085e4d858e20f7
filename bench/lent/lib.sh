# lib.sh — sourced by the lent machine's scripts: their arguments, the
# results log's header and one timed run appended to it.

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
