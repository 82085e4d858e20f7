// binary-trees (Benchmarks Game rules) on HotSpot.
//
//   java BinaryTrees [N [THREADS]]      defaults: 21 1
// Same algorithm, task split and output as bench/peers/boehm/binary_trees.c.

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

public final class BinaryTrees {
    static final String BENCH = "binary-trees";
    static final int MIN_DEPTH = 4;

    static final class Node {
        final Node left, right;

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }
    }

    static Node bottomUpTree(int depth) {
        Node left = null, right = null;
        if (depth > 0) {
            left = bottomUpTree(depth - 1);
            right = bottomUpTree(depth - 1);
        }
        return new Node(left, right);
    }

    static long itemCheck(Node node) {
        return node.left != null ? 1 + itemCheck(node.left) + itemCheck(node.right) : 1;
    }

    // The work list is built before the workers start, then read-only.
    static int[] taskDepth;
    static long[] taskIterations;
    static int taskCount;
    static final AtomicInteger nextTask = new AtomicInteger();
    static final AtomicLongArray depthChecks = new AtomicLongArray(64);

    static void worker() {
        try {
            for (;;) {
                int index = nextTask.getAndIncrement();
                if (index >= taskCount)
                    return;
                long check = 0;
                for (long i = 0; i < taskIterations[index]; i++)
                    check += itemCheck(bottomUpTree(taskDepth[index]));
                depthChecks.addAndGet(taskDepth[index], check);
            }
        } catch (OutOfMemoryError e) {
            Bench.outOfMemory(BENCH);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int n = (int) Bench.argLong(args, 0, "N", 21, 0, 30);
        int threads = (int) Bench.argLong(args, 1, "THREADS", 1, 1, 256);
        int maxDepth = Math.max(MIN_DEPTH + 2, n);
        int stretchDepth = maxDepth + 1;
        try {
            long start = System.nanoTime();
            System.out.printf("stretch tree of depth %d\t check: %d\n", stretchDepth,
                              itemCheck(bottomUpTree(stretchDepth)));

            Node longLived = bottomUpTree(maxDepth);

            taskDepth = new int[32 * threads];
            taskIterations = new long[32 * threads];
            for (int depth = MIN_DEPTH; depth <= maxDepth; depth += 2) {
                long iterations = 1L << (maxDepth - depth + MIN_DEPTH);
                long chunk = (iterations + threads - 1) / threads;
                for (long first = 0; first < iterations; first += chunk) {
                    taskDepth[taskCount] = depth;
                    taskIterations[taskCount++] = Math.min(chunk, iterations - first);
                }
            }
            if (threads == 1) {
                worker();
            } else {
                Thread[] workers = new Thread[threads];
                for (int t = 0; t < threads; t++) {
                    workers[t] = new Thread(BinaryTrees::worker);
                    workers[t].start();
                }
                for (Thread worker : workers)
                    worker.join();
            }

            for (int depth = MIN_DEPTH; depth <= maxDepth; depth += 2)
                System.out.printf("%d\t trees of depth %d\t check: %d\n", 1L << (maxDepth - depth + MIN_DEPTH), depth,
                                  depthChecks.get(depth));
            System.out.printf("long lived tree of depth %d\t check: %d\n", maxDepth, itemCheck(longLived));
            long wall = System.nanoTime() - start;
            Bench.printResult(BENCH, threads, "n:" + n, wall, "");
        } catch (OutOfMemoryError e) {
            Bench.outOfMemory(BENCH);
        }
    }
}
