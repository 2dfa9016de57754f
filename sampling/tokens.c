/* tokens.c: byte token sequences and their unigram law. */
#include "tokens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int *rl_tokens_read_bytes(const char *path, long *len, char *err, size_t n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, used = 0;
    int *tok = malloc(sizeof(int) * cap);
    int c;
    while (tok && (c = fgetc(fp)) != EOF) {
        if (used == cap) {
            int *t = realloc(tok, sizeof(int) * (cap *= 2));
            if (!t) {
                free(tok);
                tok = NULL;
                break;
            }
            tok = t;
        }
        tok[used++] = c;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!tok || bad || used == 0) {
        snprintf(err, n, "%s: %s", path, !tok ? "out of memory" : bad ? "read error" : "file is empty");
        free(tok);
        return NULL;
    }
    *len = (long)used;
    return tok;
}

void rl_tokens_unigram(const int *tok, long n, int vocab, double *probs)
{
    for (int v = 0; v < vocab; v++)
        probs[v] = 0;
    for (long t = 0; t < n; t++)
        if (tok[t] >= 0 && tok[t] < vocab)
            probs[tok[t]] += 1.0;
    for (int v = 0; v < vocab; v++)
        probs[v] /= (double)n;
}
