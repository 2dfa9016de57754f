/* study.h: the study's reported perplexities (../shared/reference/study.md), typed once,
 * so that every report (reproduce's table, the stylized claim's ratios) prints them beside ours. */
#ifndef RL_STUDY_H
#define RL_STUDY_H

#define RL_STUDY_NLEN 8

/* Evaluation lengths of the study (trained at 512): 512 .. 65,536.  The
 * training length T is the first, the farthest is 128T. */
extern const long rl_study_lengths[RL_STUDY_NLEN];

/* The study's rotation setup: 8 heads of dimension 96 (48 SO(2) blocks),
 * base frequencies omega_b = 10000^(-2b/96), random angles U(-omega_b,
 * omega_b).  Its mixing regime (theory/matched.h) is computed from these. */
#define RL_STUDY_HEAD_DIM 96
#define RL_STUDY_BASE 10000.0

/* The farthest evaluation length as a multiple of the training length:
 * rl_study_lengths[last] / rl_study_lengths[0] (128). */
long rl_study_mult(void);

typedef struct {
    const char *name;              /* the study's variant name */
    double ppl[RL_STUDY_NLEN];     /* NAN where the study reports none */
    const char *reading;           /* NULL, or routelab's variant that read the study's
                                    * variant another way and is compared to this row
                                    * (pemb-shared_qk: docs/model/schemes.md#pemb-author) */
} rl_study_row;

extern const rl_study_row rl_study_rows[];
extern const int rl_study_nrows;

/* The study's row for a variant name (ours: "random_qkv", "fixed-rope",
 * ..., or a row's reading: "pemb-shared_qk"), or NULL when the study has
 * none (none, path, alibi+random_qkv). */
const rl_study_row *rl_study_find(const char *variant);

/* The study's ppl ratio ppl(512 * mult) / ppl(512) for mult = 1, 2, 4, ...,
 * 128; NAN when not reported or mult is not one of those. */
double rl_study_ratio(const rl_study_row *r, long mult);

#endif
