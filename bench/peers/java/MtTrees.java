// mt-trees on HotSpot: the multi-mutator throughput and pause test.
//
//   java -Xmx<HEAP_BYTES> MtTrees [THREADS [TREES [LIVE_DEPTH [TREE_DEPTH [HEAP_BYTES]]]]]
//   defaults: 1 512 20 16 0
// Same algorithm and parameters as bench/peers/boehm/mt_trees.c. A node (12-byte
// header, two compressed references, a long) is 32 bytes, like the C peers'.
// HEAP_BYTES is only recorded here: bench/run passes the limit as -Xmx.

public final class MtTrees {
    static final String BENCH = "mt-trees";
    static final int LIVE_SALT = 1000; // the long-lived tree's tag; mutator t uses t

    static final class Node {
        final Node left, right;
        final long value;

        Node(Node left, Node right, long value) {
            this.left = left;
            this.right = right;
            this.value = value;
        }
    }

    static Node makeTree(int height, long salt) {
        Node left = null, right = null;
        if (height > 0) {
            left = makeTree(height - 1, salt);
            right = makeTree(height - 1, salt);
        }
        return new Node(left, right, height + salt);
    }

    static long treeCheck(Node node) {
        long check = 1 + node.value;
        if (node.left != null)
            check += treeCheck(node.left) + treeCheck(node.right);
        return check;
    }

    static final class Mutator extends Thread {
        final int index;
        final long trees;
        final int treeDepth;
        long treesDone; // read by main after join

        Mutator(int index, long trees, int treeDepth) {
            this.index = index;
            this.trees = trees;
            this.treeDepth = treeDepth;
        }

        @Override
        public void run() {
            try {
                long expected = Bench.valuedTreeCheck(treeDepth, index);
                for (long i = 0; i < trees; i++) {
                    Node tree = makeTree(treeDepth, index);
                    Bench.checkLong(BENCH, "mutator tree check", treeCheck(tree), expected);
                    treesDone++;
                }
            } catch (OutOfMemoryError e) {
                Bench.outOfMemory(BENCH);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = (int) Bench.argLong(args, 0, "THREADS", 1, 1, 256);
        long trees = Bench.argLong(args, 1, "TREES", 512, 1, 1L << 30);
        int liveDepth = (int) Bench.argLong(args, 2, "LIVE_DEPTH", 20, 0, 26);
        int treeDepth = (int) Bench.argLong(args, 3, "TREE_DEPTH", 16, 0, 26);
        long heapBytes = Bench.argLong(args, 4, "HEAP_BYTES", 0, 0, 1L << 40);
        try {
            Node live = makeTree(liveDepth, LIVE_SALT);
            Mutator[] mutators = new Mutator[threads];
            for (int t = 0; t < threads; t++)
                mutators[t] = new Mutator(t, trees / threads + (t < trees % threads ? 1 : 0), treeDepth);
            long start = System.nanoTime();
            for (Mutator mutator : mutators)
                mutator.start();
            long treesDone = 0;
            for (Mutator mutator : mutators) {
                mutator.join();
                treesDone += mutator.treesDone;
            }
            long wall = System.nanoTime() - start;

            Bench.checkLong(BENCH, "trees built", treesDone, trees);
            Bench.checkLong(BENCH, "long-lived tree check", treeCheck(live), Bench.valuedTreeCheck(liveDepth, LIVE_SALT));
            System.out.printf("%d mutators built %d trees of depth %d beside a live tree of depth %d: ok\n", threads,
                              treesDone, treeDepth, liveDepth);
            Bench.printResult(BENCH, threads,
                              String.format("trees:%d,live_depth:%d,tree_depth:%d,heap_max:%d", trees, liveDepth,
                                            treeDepth, heapBytes),
                              wall,
                              String.format("live_bytes=%d trees_per_s=%.1f",
                                            Bench.mtLiveBytes(threads, liveDepth, treeDepth), treesDone / (wall / 1e9)));
        } catch (OutOfMemoryError e) {
            Bench.outOfMemory(BENCH);
        }
    }
}
