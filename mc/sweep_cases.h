/* sweep_cases.h: the cases the experiments sweep over -- one table, owned
 * above the families (sampling/ knows no experiment).
 *
 * A case is a family with set parameters, a label and a random stream; the
 * table (mc/sweep_cases.c) lists every experiment's cases with the slot
 * each has always had, so that every committed TSV keeps its bytes.  A
 * claim that sweeps families adds rows here and touches no family file. */
#ifndef RL_SWEEP_CASES_H
#define RL_SWEEP_CASES_H

#include "../base/core/err.h"
#include "../sampling/family.h"

/* The sweeps (the order of their stream domains, streams.h). */
typedef enum {
    RL_SWEEP_MIXING,
    RL_SWEEP_CONCENTRATION,
    RL_SWEEP_FARMASS,
    RL_SWEEP_VALUES,
    RL_SWEEP_SCOREGAP,
    RL_SWEEP_COUNT
} rl_sweep;

/* One named case of a sweep: a family with set parameters and its stream. */
typedef struct {
    const char *label;    /* "path-beta1", "so2-circle", "none" (the identity family), ... */
    rl_family f;
    int slot;             /* its historic position in the sweep: the stream follows from it */
    unsigned long stream; /* its random-stream domain (rl_sweep_case_stream), the same in any subset */
    long n;               /* a set length: concentration's route length, scoregap's first far
                           * distance delta0 (0: from the family's mixing window) */
    int in_default;       /* whether the sweep runs it when no subset is named */
    int small;            /* values: O(d^3) per step, run at the experiment's small size */
    int baseline;         /* the experiment's own baseline (NoPE: the identity family), run in
                           * every subset as its first row */
} rl_sweep_case;

/* The most cases of one sweep. */
#define RL_SWEEP_CASES_MAX 16

/* The stream domain of the case at `slot` of sweep s: below 64 the
 * sweep's domain plus the slot (streams.h: RL_STREAM_MIX_FAMILY + slot,
 * ...), the numbers the experiments always used; a slot 64 + 4 k + j (a
 * case added after those, k < 64, j < 4) has the fresh domain
 * RL_STREAM_FAMILY_FRESH + 256 k + 16 s + j, no two alike. */
unsigned long rl_sweep_case_stream(rl_sweep s, int slot);

/* The cases of sweep s at dimension d, ordered by slot: every case of the
 * families named in `families` (comma-separated registry names, in or out
 * of the default), or the default cases when families is NULL or "".
 * RL_EINPUT naming an unknown family, one named twice or one without a case
 * in this sweep. */
rl_status rl_sweep_cases(rl_sweep s, int d, const char *families, rl_sweep_case *out, int max, int *n,
                         rl_err *err);

/* The case of sweep s whose label is `label`, or the first case of the
 * family of that registry name, at dimension d (the library's way to ask
 * for one row of a command's table).  RL_EINPUT listing the labels when
 * there is none. */
rl_status rl_sweep_case_named(rl_sweep s, const char *label, int d, rl_sweep_case *c, rl_err *err);

/* Whether family kind k has a case in sweep s (a baseline row aside; with
 * only_default, one the sweep runs by default). */
int rl_sweep_has_family(rl_sweep s, int k, int only_default);

/* The number of rows of the table for sweep s (all, in or out of the
 * default), and of its default cases: the counts tests read. */
int rl_sweep_rows(rl_sweep s, int only_default);

#endif
