/* corpus.h — the demo's input text: lines of made-up words drawn from a
 * fixed vocabulary with a skewed (Zipf-like) frequency, generated from a
 * seed, and the word counts the word-count program must find. */
#ifndef DEMO_CORPUS_H
#define DEMO_CORPUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct corpus {
    char **lines;
    size_t line_count;
    uint16_t **line_words; /* vocabulary index of each word, per line */
    size_t *line_word_counts;
} corpus;

void corpus_generate(corpus *text, size_t line_count, uint64_t seed);
void corpus_free(corpus *text);

/* Words and distinct words in lines share, share + shares, share + 2*shares... */
void corpus_count(const corpus *text, int share, int shares, int64_t *words, int64_t *distinct);

#endif /* DEMO_CORPUS_H */
