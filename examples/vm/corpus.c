/* corpus.c — generated input text and its reference word counts. */
#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VOCABULARY = 584 }; /* every word of one to three syllables */

static const char *const syllables[8] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo"};

/* Word i in bijective base 8: distinct indexes give distinct words. */
static void word_text(unsigned index, char *out)
{
    char reversed[8][3];
    int count = 0;
    unsigned n = index + 1;
    while (n > 0) {
        n -= 1;
        strcpy(reversed[count++], syllables[n % 8]);
        n /= 8;
    }
    out[0] = '\0';
    while (count > 0)
        strcat(out, reversed[--count]);
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void *checked_malloc(size_t bytes)
{
    void *memory = malloc(bytes);
    if (!memory) {
        fputs("corral-demo: out of memory for the corpus\n", stderr);
        exit(2);
    }
    return memory;
}

void corpus_generate(corpus *text, size_t line_count, uint64_t seed)
{
    text->line_count = line_count;
    text->lines = checked_malloc(line_count * sizeof *text->lines);
    text->line_words = checked_malloc(line_count * sizeof *text->line_words);
    text->line_word_counts = checked_malloc(line_count * sizeof *text->line_word_counts);
    for (size_t k = 0; k < line_count; k++) {
        size_t words = 3 + next_random(&seed) % 10;
        text->line_words[k] = checked_malloc(words * sizeof **text->line_words);
        text->line_word_counts[k] = words;
        char *line = checked_malloc(words * 8);
        line[0] = '\0';
        for (size_t w = 0; w < words; w++) {
            /* Small indexes are much more frequent, as in real text. */
            uint64_t range = next_random(&seed) % VOCABULARY + 1;
            unsigned index = (unsigned)(next_random(&seed) % range);
            char word[8];
            word_text(index, word);
            text->line_words[k][w] = (uint16_t)index;
            if (w > 0)
                strcat(line, " ");
            strcat(line, word);
        }
        text->lines[k] = line;
    }
}

void corpus_free(corpus *text)
{
    for (size_t k = 0; k < text->line_count; k++) {
        free(text->lines[k]);
        free(text->line_words[k]);
    }
    free(text->lines);
    free(text->line_words);
    free(text->line_word_counts);
    *text = (corpus){0};
}

void corpus_count(const corpus *text, int share, int shares, int64_t *words, int64_t *distinct)
{
    char seen[VOCABULARY] = {0};
    *words = *distinct = 0;
    for (size_t k = (size_t)share; k < text->line_count; k += (size_t)shares)
        for (size_t w = 0; w < text->line_word_counts[k]; w++) {
            *words += 1;
            if (!seen[text->line_words[k][w]]) {
                seen[text->line_words[k][w]] = 1;
                *distinct += 1;
            }
        }
}
