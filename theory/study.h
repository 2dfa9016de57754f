/* study.h: the study's reported perplexities (../shared/reference/study.md), typed once,
 * so that every report (reproduce's table, the stylized claim's ratios) prints them beside ours. */
#ifndef RL_STUDY_H
#define RL_STUDY_H

#define RL_STUDY_NLEN 8

/* Evaluation lengths of the study (trained at 512): 512 .. 65,536. */
extern const long rl_study_lengths[RL_STUDY_NLEN];

typedef struct {
    const char *name;              /* the study's variant name */
    double ppl[RL_STUDY_NLEN];     /* NAN where the study reports none */
} rl_study_row;

extern const rl_study_row rl_study_rows[];
extern const int rl_study_nrows;

/* The study's row for a variant name (ours: "random_qkv", "fixed-rope",
 * ...), or NULL when the study has none (none, path, alibi+random_qkv). */
const rl_study_row *rl_study_find(const char *variant);

/* The study's ppl ratio ppl(512 * mult) / ppl(512) for mult = 1, 2, 4, ...,
 * 128; NAN when not reported or mult is not one of those. */
double rl_study_ratio(const rl_study_row *r, long mult);

#endif
