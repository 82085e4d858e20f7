// GCBench (Hans Boehm, John Ellis, William Kovac) on HotSpot.
//
//   java GCBench [STRETCH_DEPTH LONG_LIVED_DEPTH ARRAY_SIZE MIN_DEPTH MAX_DEPTH]
// defaults 18 16 500000 4 16. Same algorithm, parameters and output as
// bench/peers/boehm/gcbench.c.

public final class GCBench {
    static final String BENCH = "gcbench";

    static final class Node {
        Node left, right;
        int i, j; // GCBench's payload, never read: it sizes the node

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }
    }

    static void populate(int depth, Node node) {
        if (depth <= 0)
            return;
        depth--;
        node.left = new Node(null, null);
        node.right = new Node(null, null);
        populate(depth, node.left);
        populate(depth, node.right);
    }

    static Node makeTree(int depth) {
        if (depth <= 0)
            return new Node(null, null);
        Node left = makeTree(depth - 1);
        Node right = makeTree(depth - 1);
        return new Node(left, right);
    }

    static long countNodes(Node node) {
        return node == null ? 0 : 1 + countNodes(node.left) + countNodes(node.right);
    }

    static void timeConstruction(int stretchDepth, int depth) {
        long iterations = 2 * Bench.treeSize(stretchDepth) / Bench.treeSize(depth);
        long topDownCheck = 0, bottomUpCheck = 0;
        for (long i = 0; i < iterations; i++) {
            Node tree = new Node(null, null);
            populate(depth, tree);
            if (i == iterations - 1)
                topDownCheck = countNodes(tree);
        }
        for (long i = 0; i < iterations; i++) {
            Node tree = makeTree(depth);
            if (i == iterations - 1)
                bottomUpCheck = countNodes(tree);
        }
        Bench.checkLong(BENCH, "top-down tree size", topDownCheck, Bench.treeSize(depth));
        Bench.checkLong(BENCH, "bottom-up tree size", bottomUpCheck, Bench.treeSize(depth));
        System.out.printf("Creating %d trees of depth %d\t top-down check: %d\t bottom-up check: %d\n", iterations,
                          depth, topDownCheck, bottomUpCheck);
    }

    public static void main(String[] args) {
        int stretchDepth = (int) Bench.argLong(args, 0, "STRETCH_DEPTH", 18, 1, 26);
        int longLivedDepth = (int) Bench.argLong(args, 1, "LONG_LIVED_DEPTH", 16, 1, 26);
        int arraySize = (int) Bench.argLong(args, 2, "ARRAY_SIZE", 500000, 1001, 1L << 28);
        int minDepth = (int) Bench.argLong(args, 3, "MIN_DEPTH", 4, 0, 26);
        int maxDepth = (int) Bench.argLong(args, 4, "MAX_DEPTH", 16, minDepth, 26);
        try {
            long start = System.nanoTime();
            System.out.print("Garbage Collector Test\n");

            Node stretch = makeTree(stretchDepth);
            System.out.printf(" Stretching memory with a binary tree of depth %d\t check: %d\n", stretchDepth,
                              countNodes(stretch));
            stretch = null;

            System.out.printf(" Creating a long-lived binary tree of depth %d\n", longLivedDepth);
            Node longLived = new Node(null, null);
            populate(longLivedDepth, longLived);

            System.out.printf(" Creating a long-lived array of %d doubles\n", arraySize);
            double[] array = new double[arraySize];
            for (int i = 0; i < arraySize / 2; i++)
                array[i] = 1.0 / i;

            for (int depth = minDepth; depth <= maxDepth; depth += 2)
                timeConstruction(stretchDepth, depth);

            long longLivedCheck = countNodes(longLived);
            Bench.checkLong(BENCH, "long-lived tree size", longLivedCheck, Bench.treeSize(longLivedDepth));
            Bench.checkLong(BENCH, "array[1000] == 1.0/1000", array[1000] == 1.0 / 1000 ? 1 : 0, 1);
            System.out.printf("long-lived tree of depth %d\t check: %d\t array check: ok\n", longLivedDepth,
                              longLivedCheck);
            long wall = System.nanoTime() - start;
            Bench.printResult(BENCH, 1,
                              String.format("stretch:%d,long_lived:%d,array:%d,depths:%d-%d", stretchDepth,
                                            longLivedDepth, arraySize, minDepth, maxDepth),
                              wall, "");
        } catch (OutOfMemoryError e) {
            Bench.outOfMemory(BENCH);
        }
    }
}
