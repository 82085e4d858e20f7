/* programs.c — the demo's tiny programs, and their results computed in C. */
#include "programs.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- binary trees: many short-lived trees, one long-lived tree that every
 * collection moves, and a result that depends on every node. */

static const char trees_source[] =
    "; Binary trees: build and check short-lived trees while a long-lived\n"
    "; tree stays reachable (and moves with every collection).\n"
    "(def (make depth)\n"
    "  (if (= depth 0)\n"
    "      (pair nil nil)\n"
    "      (pair (make (- depth 1)) (make (- depth 1)))))\n"
    "\n"
    "(def (check tree)\n"
    "  (if (nil? (head tree))\n"
    "      1\n"
    "      (+ 1 (+ (check (head tree)) (check (tail tree))))))\n"
    "\n"
    "(def (churn i count depth sum)\n"
    "  (if (= i count)\n"
    "      sum\n"
    "      (churn (+ i 1) count depth (+ sum (check (make depth))))))\n"
    "\n"
    "(def (main thread threads scale)\n"
    "  (let long-lived (make 12)\n"
    "    (let churned (churn 0 (* 40 scale) 8 0)\n"
    "      (let kept (check long-lived)\n"
    "        (+ churned (if (= thread 0) (print kept) kept))))))\n";

static int64_t tree_nodes(int depth)
{
    return (INT64_C(1) << (depth + 1)) - 1;
}

static int64_t trees_expected(const corpus *text, int share, int shares, int scale)
{
    (void)text, (void)share, (void)shares;
    return 40 * scale * tree_nodes(8) + tree_nodes(12);
}

static void trees_describe(int64_t result, char *out, size_t size)
{
    snprintf(out, size, "%" PRId64 " tree nodes checked", result);
}

/* ---- word count: split lines into words, count them in a binary search
 * tree, report words and distinct words. Strings, substrings, comparisons. */

static const char wordcount_source[] =
    "; Word count: this thread reads lines thread, thread+threads, ... of the\n"
    "; input, splits them at spaces and counts words in a binary search tree\n"
    "; whose nodes are (pair (pair word count) (pair left right)).\n"
    "(def (main thread threads scale)\n"
    "  (summary (count-lines thread threads nil)))\n"
    "\n"
    "(def (count-lines k step tree)\n"
    "  (let text (line k)\n"
    "    (if (nil? text)\n"
    "        tree\n"
    "        (count-lines (+ k step) step (count-words text 0 0 tree)))))\n"
    "\n"
    "(def (count-words text start i tree)\n"
    "  (if (= i (length text))\n"
    "      (add-word text start i tree)\n"
    "      (if (= (byte text i) 32)\n"
    "          (count-words text (+ i 1) (+ i 1) (add-word text start i tree))\n"
    "          (count-words text start (+ i 1) tree))))\n"
    "\n"
    "(def (add-word text start end tree)\n"
    "  (if (= start end) tree (insert (substring text start end) tree)))\n"
    "\n"
    "(def (insert word tree)\n"
    "  (if (nil? tree)\n"
    "      (pair (pair word 1) (pair nil nil))\n"
    "      (let entry (head tree)\n"
    "        (let order (compare word (head entry))\n"
    "          (if (= order 0)\n"
    "              (pair (pair word (+ (tail entry) 1)) (tail tree))\n"
    "              (let left (head (tail tree))\n"
    "                (let right (tail (tail tree))\n"
    "                  (if (< order 0)\n"
    "                      (pair entry (pair (insert word left) right))\n"
    "                      (pair entry (pair left (insert word right)))))))))))\n"
    "\n"
    "(def (distinct tree)\n"
    "  (if (nil? tree) 0 (+ 1 (+ (distinct (head (tail tree))) (distinct (tail (tail tree)))))))\n"
    "\n"
    "(def (total tree)\n"
    "  (if (nil? tree)\n"
    "      0\n"
    "      (+ (tail (head tree)) (+ (total (head (tail tree))) (total (tail (tail tree)))))))\n"
    "\n"
    "; Two numbers in one: distinct * 1000000 + total.\n"
    "(def (summary tree) (+ (* (distinct tree) 1000000) (total tree)))\n";

size_t demo_corpus_lines(int scale)
{
    return 960 * (size_t)scale;
}

static int64_t wordcount_expected(const corpus *text, int share, int shares, int scale)
{
    (void)scale;
    int64_t words, distinct;
    corpus_count(text, share, shares, &words, &distinct);
    return distinct * 1000000 + words;
}

static void wordcount_describe(int64_t result, char *out, size_t size)
{
    snprintf(out, size, "%" PRId64 " words, %" PRId64 " distinct", result % 1000000,
             result / 1000000);
}

const demo_program demo_programs[] = {
    {"trees", "binary trees: short-lived trees around a long-lived one", trees_source,
     trees_expected, trees_describe},
    {"wordcount", "word count over the input text in a binary search tree", wordcount_source,
     wordcount_expected, wordcount_describe},
};
const size_t demo_program_count = sizeof demo_programs / sizeof demo_programs[0];
