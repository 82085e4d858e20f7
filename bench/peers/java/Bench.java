// Bench.java — the Java side of bench/common/bench.h: arguments, checks and
// the RESULT line. GC count and pauses are not measured here: bench/run reads
// them from HotSpot's own -Xlog:gc output, which times every pause (ms
// resolution from the management beans would be too coarse).

final class Bench {
    static final int EXIT_USAGE = 64, EXIT_CHECK = 2, EXIT_OOM = 3;
    static final int MT_NODE_BYTES = 32;

    private Bench() {}

    // The implementation name bench/run passes: hotspot-parallel, hotspot-g1.
    static String impl() {
        return System.getProperty("bench.impl", "hotspot");
    }

    static long treeSize(int depth) {
        return (1L << (depth + 1)) - 1;
    }

    static long valuedTreeCheck(int depth, long salt) {
        long check = 0;
        for (int level = 0; level <= depth; level++)
            check += (1L << level) * (1 + (depth - level) + salt);
        return check;
    }

    static long mtLiveBytes(int threads, int liveDepth, int treeDepth) {
        return (treeSize(liveDepth) + threads * treeSize(treeDepth)) * MT_NODE_BYTES;
    }

    static long argLong(String[] args, int index, String name, long fallback, long min, long max) {
        if (index >= args.length)
            return fallback;
        try {
            long value = Long.parseLong(args[index]);
            if (value >= min && value <= max)
                return value;
        } catch (NumberFormatException e) {
            // reported below, like an out-of-range value
        }
        System.err.printf("argument %d (%s) is '%s'; expected an integer in [%d, %d]%n", index + 1, name, args[index],
                          min, max);
        System.exit(EXIT_USAGE);
        return fallback;
    }

    static void checkLong(String bench, String what, long got, long expected) {
        if (got == expected)
            return;
        System.err.printf("%s/%s: check failed: %s is %d, expected %d%n", bench, impl(), what, got, expected);
        System.out.printf("RESULT bench=%s impl=%s status=fail%n", bench, impl());
        System.out.flush();
        Runtime.getRuntime().halt(EXIT_CHECK);
    }

    static void outOfMemory(String bench) {
        System.err.printf("%s/%s: out of memory (heap limit too small)%n", bench, impl());
        System.out.printf("RESULT bench=%s impl=%s status=oom%n", bench, impl());
        System.out.flush();
        Runtime.getRuntime().halt(EXIT_OOM);
    }

    static void printResult(String bench, int threads, String params, long wallNs, String extra) {
        System.out.printf("RESULT bench=%s impl=%s threads=%d params=%s status=ok wall_ms=%.3f gc_count=- "
                              + "pause_total_ms=- pause_max_ms=- pause_p99_ms=- max_heap_bytes=%d%s%n",
                          bench, impl(), threads, params, wallNs / 1e6, Runtime.getRuntime().maxMemory(),
                          extra.isEmpty() ? "" : " " + extra);
        System.out.flush();
    }
}
