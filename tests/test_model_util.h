/* test_model_util.h: small helpers shared by the model tests. */
#ifndef RL_TEST_MODEL_UTIL_H
#define RL_TEST_MODEL_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../model/config.h"
#include "../model/gpt.h"
#include "../sampling/rng.h"

/* n normal draws of standard deviation sd from stream 0 of seed. */
static inline void tm_randn(float *x, long n, uint64_t seed, float sd)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed, 0);
    for (long i = 0; i < n; i++)
        x[i] = (float)(sd * rl_normal(r));
    gsl_rng_free(r);
}

/* One configuration per (scheme, ALiBi, mode) the registry (scheme.h)
 * allows, in the registry's order: what every-scheme tests iterate, so a
 * new scheme is tested by registering it. */
typedef struct {
    rl_pos_config pos;
} tm_scheme_case;

static inline size_t tm_registry_cases(tm_scheme_case *out, size_t max)
{
    size_t n = 0;
    for (const rl_scheme *const *s = rl_schemes; *s; s++)
        for (int a = 0; a < 2; a++)
            for (int m = 0; m < 2; m++)
                if ((*s)->names[a][m] && n < max)
                    out[n++] = (tm_scheme_case){ { (*s)->rot, m, a, (*s)->path } };
    return n;
}

/* Room for every configuration: 4 per scheme. */
#define TM_MAX_CASES 128

/* The scheme of a study name ("rope", "random_qkv", "alibi", ...). */
static inline rl_pos_config tm_pos(const char *name)
{
    rl_pos_config p;
    char err[256];
    if (rl_pos_parse(name, -1, &p, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    return p;
}

static inline double tm_dot(const float *a, const float *b, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* The gradient check.  It compares the analytic gradient ana of a scalar
 * f(x) with (f(x + e) - f(x - e)) / 2e on the 8 coordinates of largest
 * analytic gradient plus 8 others, and the relative error
 * ||num - ana|| / ||num|| must stay below TM_GRAD_TOL.  Forward passes run
 * in float and f is summed in double; with e = 1e-2 the rounding noise of a
 * difference is about 1e-5 and the truncation error O(e^2) ~ 1e-4
 * relative, while a wrong sign gives an error of 2 and a missing term one
 * of order 1. */
#define TM_GRAD_TOL 1e-2
typedef double (*tm_loss_fn)(void *ctx);

static inline double tm_grad_err(tm_loss_fn f, void *ctx, float *x, const float *ana, long n,
                                 const char *what, float eps)
{
    long idx[16];
    int k = 0;
    char *used = calloc(n, 1);
    for (; k < 8 && k < n; k++) { /* largest analytic entries */
        long best = -1;
        for (long i = 0; i < n; i++)
            if (!used[i] && (best < 0 || fabsf(ana[i]) > fabsf(ana[best])))
                best = i;
        used[best] = 1;
        idx[k] = best;
    }
    for (int j = 0; j < 8 && k < 16 && k < n; j++) /* and a few anywhere */
        idx[k++] = (long)((j * 2654435761UL + 17) % (unsigned long)n);
    double num2 = 0, diff2 = 0;
    for (int j = 0; j < k; j++) {
        long i = idx[j];
        float keep = x[i];
        x[i] = keep + eps;
        double lp = f(ctx);
        x[i] = keep - eps;
        double lm = f(ctx);
        x[i] = keep;
        double num = (lp - lm) / (2.0 * eps);
        num2 += num * num;
        diff2 += (num - ana[i]) * (num - ana[i]);
    }
    free(used);
    double err = sqrt(diff2) / (sqrt(num2) + 1e-12);
    cr_log_info("%s: relative gradient error %.2e (norm %.3e)", what, err, sqrt(num2));
    return err;
}

typedef struct {
    rl_gpt *m;
    uint16_t *tok;
} tm_gpt_ctx;

static inline double tm_gpt_loss(void *v)
{
    tm_gpt_ctx *c = v;
    return rl_gpt_forward(c->m, c->tok, c->m->T + 1, c->m->B, c->m->T, 1, 1234);
}

/* The whole model (2 layers, width 16, 2 heads, 2 windows of 8) under
 * scheme pos: the gradient of the mean cross-entropy of every tensor.  The
 * noise of random and lf is held fixed by the forward's key; every
 * parameter is perturbed (sd 0.3, well above the finite-difference noise),
 * so pemb's tables sit away from 0 where tanh' = 1 would hide a missing
 * factor, and norms are away from (1, 0).  Step e = 1e-2; a tensor that
 * fails is checked again at e = 1e-3, since lf's f = |y| has a kink at
 * y = 0 that a difference with e = 1e-2 straddles for some of the 128 y's
 * of this model (errors 2-4e-2 there, all from that; at 1e-3 the rounding
 * noise stays ~1e-4 relative).  A wrong gradient fails at both steps. */
/* A model of cfg for B windows, every parameter N(0, 0.3) away from its
 * initial value and the norms' weights near 1 (so no tensor hides in a
 * flat spot); the test fails when the configuration is refused. */
static inline rl_gpt *tm_gpt_perturbed(const rl_gpt_config *cfg, int B)
{
    rl_gpt *m = rl_gpt_alloc(cfg, B);
    cr_assert(m, "%s: configuration refused", rl_pos_name(cfg->pos));
    rl_gpt_init(m, 5);
    tm_randn(m->params, m->nparams, 19, 0.3f);
    for (int i = 0; i < m->ntensors; i++)
        if (m->tensors[i].kind == RL_T_NORM_W)
            for (long j = 0; j < m->tensors[i].n; j++)
                m->params[m->tensors[i].off + j] += 1.0f;
    return m;
}

static inline void tm_check_model_base(rl_pos_config pos, float dropout, double base)
{
    omp_set_num_threads(1); /* thousands of tiny forwards: threads only contend */
    rl_gpt_config cfg = { 2, 16, 2, 8, 13, dropout, pos, base };
    rl_gpt *m = tm_gpt_perturbed(&cfg, 2);
    uint16_t tok[2 * 9];
    for (int i = 0; i < 18; i++)
        tok[i] = (uint16_t)((i * 7 + 3) % 13);
    tm_gpt_ctx c = { m, tok };
    tm_gpt_loss(&c);
    rl_gpt_zero_grad(m);
    rl_gpt_backward(m, 1.0f / (2 * 8));
    for (int i = 0; i < m->ntensors; i++) {
        const rl_tensor *t = &m->tensors[i];
        char what[64];
        snprintf(what, sizeof what, "%s %s p=%.1f base %g", rl_pos_name(pos), t->name, dropout,
                 base);
        double err = tm_grad_err(tm_gpt_loss, &c, m->params + t->off, m->grads + t->off, t->n,
                                 what, 1e-2f);
        if (err >= TM_GRAD_TOL)
            err = tm_grad_err(tm_gpt_loss, &c, m->params + t->off, m->grads + t->off, t->n, what,
                              1e-3f);
        cr_expect_lt(err, TM_GRAD_TOL, "%s", what);
    }
    rl_gpt_free(m);
}

/* ... with the study's rotation base */
static inline void tm_check_model(rl_pos_config pos, float dropout)
{
    tm_check_model_base(pos, dropout, RL_ROT_BASE_DEFAULT);
}

/* The last query block's scores of head h, layer 0, of one window of L
 * (rows i0 .. L-1, every key), for rl_gpt_eval_observe: S is (L - i0) x L. */
typedef struct {
    long L, i0;
    int h;
    double *S;
} tm_rows_obs;

static inline void tm_rows_observe(void *ctx, int layer, int b, int h, long i0, long i1, long j0, long j1,
                                   const float *S, long lds)
{
    tm_rows_obs *o = ctx;
    (void)b;
    if (layer != 0 || h != o->h || i0 != o->i0)
        return;
    for (long r = 0; r < i1 - i0; r++)
        for (long j = j0; j < j1; j++)
            o->S[r * o->L + j] = S[r * lds + (j - j0)];
}

#endif
