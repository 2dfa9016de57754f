/* moment2_mc.c: sample estimate of T = E[M (x) M] with a jackknife SE. */
#include "moment2_mc.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"
#include "../theory/moment2.h"

/* S += M (x) M: row (i, j), column (k, l) holds M_ik M_jl, so that
 * vec(M X M^T) = (M (x) M) vec(X) in row-major vec. */
static void add_kron(int d, const double *M, double *S)
{
    const long n = (long)d * d;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double *row = S + (long)(i * d + j) * n;
            for (int k = 0; k < d; k++) {
                const double a = M[i * d + k];
                double *dst = row + k * d;
                const double *mj = M + j * d;
                for (int l = 0; l < d; l++)
                    dst[l] += a * mj[l];
            }
        }
}

static rl_status opnorm(int d, const double *A, double *out, rl_err *err)
{
    double *a = rl_alloc(sizeof(double) * d * d, err), sv[d], sup[d];
    if (!a)
        return RL_ENOMEM;
    memcpy(a, A, sizeof(double) * d * d);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', d, d, a, d, sv, NULL, 1, NULL, 1, sup);
    free(a);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "LAPACKE_dgesvd failed (info %d)", (int)info);
    *out = sv[0];
    return RL_OK;
}

rl_status rl_moment2_estimate(int d, rl_moment2_draw draw, void *ctx, long n, unsigned long seed,
                              int k, const double *basis, rl_moment2_est *out, rl_err *err)
{
    const int K = RL_MOMENT2_BATCHES;
    if (d < 2 || d > RL_MOMENT2_MAX_D)
        return rl_fail(err, RL_EINPUT, "the second-moment estimate needs 2 <= d <= %d (d^2 x d^2 "
                       "matrices), got d = %d", RL_MOMENT2_MAX_D, d);
    if (n < K || n > 100000000L)
        return rl_fail(err, RL_EINPUT, "the second-moment estimate needs %d to 1e8 samples, got %ld", K, n);
    const long nn = (long)d * d * d * d;
    double *S = rl_alloc_array((size_t)K * nn, sizeof(double), err), *tot = rl_alloc_array(nn, sizeof(double), err);
    double *T = rl_alloc(sizeof(double) * nn, err), *M = rl_alloc(sizeof(double) * d * d, err);
    double *Msum = rl_alloc_array((size_t)d * d, sizeof(double), err);
    double *B = rl_alloc(sizeof(double) * nn, err); /* a batch's matrices below */
    gsl_rng *r = rl_rng_alloc();
    rl_status st = RL_OK;
    if (!S || !tot || !T || !M || !Msum || !B || !r) {
        st = rl_fail(err, RL_ENOMEM, "moment2: out of memory for the %d batches' d^2 x d^2 sums", K);
        goto done;
    }
    long cnt[RL_MOMENT2_BATCHES]; /* a constant size: the gotos above jump past it */
    for (int j = 0; j < K; j++) {
        cnt[j] = n / K + (j < n % K);
        rl_rng_stream(r, seed, (unsigned long)j);
        for (long t = 0; t < cnt[j]; t++) {
            if ((t & 0x3ff) == 0 && rl_cancelled()) { /* the caller asked to stop (err.h) */
                st = rl_fail(err, RL_ECANCEL, "cancelled");
                goto done;
            }
            draw(ctx, r, M);
            add_kron(d, M, S + j * nn);
            for (int i = 0; i < d * d; i++)
                Msum[i] += M[i];
        }
        for (long i = 0; i < nn; i++)
            tot[i] += S[j * nn + i];
    }
    double loo[RL_MOMENT2_BATCHES], sum = 0, noise = 0, v;
    for (long i = 0; i < nn; i++)
        T[i] = tot[i] / n;
    st = rl_moment2_perp_norm(d, T, k, basis, &out->rate, err);
    for (int j = 0; j < K && st == RL_OK; j++) {
        /* leave batch j out (jackknife), and batch j alone minus the whole (noise) */
        for (long i = 0; i < nn; i++)
            B[i] = (tot[i] - S[j * nn + i]) / (n - cnt[j]);
        st = rl_moment2_perp_norm(d, B, k, basis, &loo[j], err);
        for (long i = 0; i < nn && st == RL_OK; i++)
            B[i] = S[j * nn + i] / cnt[j] - T[i];
        if (st == RL_OK)
            st = rl_moment2_perp_norm(d, B, k, basis, &v, err);
        sum += loo[j];
        noise += v;
    }
    if (st == RL_OK) {
        double mean = sum / K, ss = 0;
        for (int j = 0; j < K; j++)
            ss += (loo[j] - mean) * (loo[j] - mean);
        out->se = sqrt((K - 1.0) / K * ss);
        /* Var(T_j - T_hat) = (K - 1) Var(T_hat) for equal batches */
        out->noise = noise / K / sqrt(K - 1.0);
        out->n = n;
        for (int i = 0; i < d * d; i++)
            Msum[i] /= n;
        st = opnorm(d, Msum, &out->mean_norm, err);
    }
done:
    if (r)
        gsl_rng_free(r);
    free(S);
    free(tot);
    free(T);
    free(M);
    free(Msum);
    free(B);
    return st;
}

typedef struct {
    rl_stepper *s;
    const int *tokens;
    long ntok;
    int vocab;
} fam_ctx;

static void fam_draw(void *p, gsl_rng *r, double *M)
{
    fam_ctx *c = p;
    int tok = 0;
    if (rl_stepper_family(c->s)->kind == RL_FAM_TOKEN_SO2)
        tok = c->tokens ? c->tokens[gsl_rng_uniform_int(r, (unsigned long)c->ntok)]
                        : (int)gsl_rng_uniform_int(r, (unsigned long)c->vocab);
    rl_stepper_draw(c->s, r, tok);
    rl_stepper_matrix(c->s, M);
}

rl_status rl_moment2_estimate_family(const rl_family *f, const int *tokens, long ntok, long n,
                                     unsigned long seed, rl_moment2_est *out, rl_err *err)
{
    RL_TRY(rl_family_check(f, err));
    if (f->d > RL_MOMENT2_MAX_D)
        return rl_fail(err, RL_EINPUT, "the second-moment estimate needs d <= %d (d^2 x d^2 "
                       "matrices), got d = %d", RL_MOMENT2_MAX_D, f->d);
    if (tokens && ntok < 1)
        return rl_fail(err, RL_EINPUT, "no tokens to draw steps from");
    const int k = rl_moment2_fixed_dim(f);
    double *basis = rl_alloc(sizeof(double) * (size_t)(k ? k : 1) * f->d * f->d, err);
    fam_ctx c = { rl_stepper_alloc(f, 1), tokens, ntok, f->vocab };
    if (!basis || !c.s) {
        rl_stepper_free(c.s);
        free(basis);
        return rl_fail(err, RL_ENOMEM, "moment2: out of memory for the stepper and the fixed basis");
    }
    rl_moment2_fixed_basis(f, basis);
    rl_status st = rl_moment2_estimate(f->d, fam_draw, &c, n, seed, k, basis, out, err);
    if (st == RL_OK)
        st = rl_stepper_status(c.s, err);
    rl_stepper_free(c.s);
    free(basis);
    return st;
}
