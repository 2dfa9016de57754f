/* study.c: the study's table of validation perplexities by evaluation length. */
#include "study.h"

#include <math.h>
#include <string.h>

const long rl_study_lengths[RL_STUDY_NLEN] = { 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536 };

const rl_study_row rl_study_rows[] = {
    { "rope", { 23.54, 42.75, 106.96, 223.88, 381.82, 600.53, 808.35, 905.18 }, NULL },
    { "fixed-rope", { 23.17, 33.17, 70.11, 127.81, 214.18, 306.73, 404.45, 485.66 }, NULL },
    { "random_qk", { 24.19, 22.75, 22.41, 25.90, 38.81, 70.63, 107.51, 181.27 }, NULL },
    { "random_qkv", { 24.18, 22.70, 21.93, 22.58, 24.83, 27.54, 28.83, 38.54 }, NULL },
    /* the study's pemb is routelab's pemb (the author's code: a table per
     * head, the key's token on the path); pemb-shared, routelab's first
     * reading of it, is compared to the same row (docs/model/schemes.md#pemb-author) */
    { "pemb_qk", { 23.56, 22.20, 21.47, 22.56, 27.62, 38.93, 67.13, 139.63 }, "pemb-shared_qk" },
    { "pemb_qkv", { 23.60, 22.20, 21.49, 22.82, 27.89, 37.58, 57.57, 102.53 }, "pemb-shared_qkv" },
    { "lf_qk", { 24.90, 23.37, 22.23, 22.44, 23.89, 25.57, 27.27, 40.91 }, NULL },
    { "lf_qkv", { 23.70, NAN, NAN, 21.23, 23.77, 32.58, 49.40, 125.24 }, NULL },
    { "alibi", { 23.87, 21.58, 21.38, 21.75, 22.46, 23.19, 21.06, 22.84 }, NULL },
};
const int rl_study_nrows = sizeof rl_study_rows / sizeof *rl_study_rows;

const rl_study_row *rl_study_find(const char *variant)
{
    for (int i = 0; i < rl_study_nrows; i++)
        if (!strcmp(rl_study_rows[i].name, variant) ||
            (rl_study_rows[i].reading && !strcmp(rl_study_rows[i].reading, variant)))
            return &rl_study_rows[i];
    return NULL;
}

double rl_study_ratio(const rl_study_row *r, long mult)
{
    if (!r)
        return NAN;
    for (int i = 0; i < RL_STUDY_NLEN; i++)
        if (rl_study_lengths[i] == 512 * mult)
            return r->ppl[i] / r->ppl[0];
    return NAN;
}

long rl_study_mult(void)
{
    return rl_study_lengths[RL_STUDY_NLEN - 1] / rl_study_lengths[0];
}
