# lib.sh — sourced by the lent machine's scripts: the results log's header
# and one timed run appended to it. The caller sets $log first.

# The machine the figures come from, at the top of the log.
lent_header() {
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
