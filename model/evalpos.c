/* evalpos.c: per-position loss and prefix perplexity (evalpos.h). */
#include "evalpos.h"

#include <math.h>
#include <stdlib.h>

#include "../base/core/util.h"

int rl_evalpos_bins(long L, long *end)
{
    const int B = RL_EVALPOS_BINS;
    int nb = 0;
    long prev = 0;
    for (int k = 0; k < B && prev < L; k++) {
        /* L <= B: one position a bin; else the ends floor(L^((k + 1) / B)),
         * at least one position each, so the first bins are single positions */
        long e = L <= B ? prev + 1 : (long)floor(pow((double)L, (double)(k + 1) / B) + 1e-9);
        if (e <= prev)
            e = prev + 1;
        if (e > L || k == B - 1)
            e = L;
        end[nb++] = prev = e;
    }
    return nb;
}

void rl_evalpos_write(FILE *f, const float *loss, long nw, long L)
{
    long end[RL_EVALPOS_BINS];
    const int nb = rl_evalpos_bins(L, end);
    double *wsum = rl_xmalloc(sizeof(double) * (size_t)(nw ? nw : 1));
    double prefix = 0; /* sum over windows and positions < l */
    fputs(RL_EVALPOS_HEADER, f);
    for (int k = 0; k < nb; k++) {
        const long first = k ? end[k - 1] : 0, last = end[k] - 1, np = last - first + 1;
        double tot = 0, v = 0;
        for (long w = 0; w < nw; w++) {
            double s = 0;
            for (long i = first; i <= last; i++)
                s += loss[w * L + i];
            wsum[w] = s / np;
            tot += s;
        }
        /* the prefix in position order: position i's windows, then i + 1 */
        for (long i = first; i <= last; i++)
            for (long w = 0; w < nw; w++)
                prefix += loss[w * L + i];
        const double mean = tot / ((double)np * nw);
        for (long w = 0; w < nw; w++)
            v += (wsum[w] - mean) * (wsum[w] - mean);
        const double pl = prefix / ((double)(last + 1) * nw);
        fprintf(f, "%ld\t%ld\t%ld\t%ld\t%.6f\t", first, last, np, nw, mean);
        if (nw > 1)
            fprintf(f, "%.6f", sqrt(v / (nw - 1) / nw));
        else
            fputs("NA", f);
        fprintf(f, "\t%ld\t%.6f\t%.6f\n", last + 1, pl, exp(pl));
    }
    free(wsum);
}
