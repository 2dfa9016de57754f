/* farpred_forms.c: the far-mass prediction of farpred_forms.h
 * (docs/theory/farpred.md#far-mass-prediction). */
#include "farpred_forms.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

double complex rl_farpred_step_charfn(double c, double w, int n)
{
    const double x = n * w, sn = x == 0 ? 1.0 : sin(x) / x;
    return sn * cexp(I * (double)n * c);
}

/* Below this, a term of (F1) is dropped: relative to I_0, far under the
 * float rounding of the scores the prediction is compared with. */
#define TINY 1e-15

/* The harmonics worth computing for |A| = x: I_n(x)/I_0(x) <= (x/2)^n/n!
 * e^{x^2/4}, and the terms below e^{-40} I_0 (far under TINY) are left out
 * before GSL computes them: for a small x they underflow, which GSL reports
 * as an error (ending the process under its default handler). */
static int bessel_terms(double x, int nh)
{
    if (!(x > 0))
        return 0;
    int n = nh;
    while (n > 0 && n * log(x / 2) - lgamma(n + 1.0) + x * x / 4 < -40)
        n--;
    return n;
}

/* One block of one pair over delta = d0 .. d0+nd-1: adds log F(delta) of
 * (F1) into lp.  I_n scaled by e^{-|A|} (gsl: In_scaled), so
 * log F = |A| + log(I~_0 + 2 sum_n Re(w_n)), w_n = I~_n e^{i n arg A} chi(n)^delta,
 * each w_n advanced by one factor chi(n) per step and retired once it is
 * below TINY I~_0 (|chi(n)| <= 1: it cannot grow back). */
static rl_status block_random(const double complex *chi, int nh, double complex a, long d0, long nd,
                              double *lp, double *lq, double *In, double complex *w, rl_err *err)
{
    const double x = cabs(a), arg = carg(a);
    int N = bessel_terms(x, nh);
    rl_gsl_quiet(); /* the status is read here: GSL's handler would abort */
    if (gsl_sf_bessel_In_scaled_array(0, N, x, In) != GSL_SUCCESS)
        return rl_fail(err, RL_EINTERNAL, "Bessel I_n(%g) failed", x);
    /* the harmonics left out are below e^{-40} I~_0: 0 to double precision.  The
     * derivative term below reads I~_{n+1} of the last live n (and I~_1 when
     * none is live), so they are written, not left as whatever the scratch held */
    for (int n = N + 1; n <= nh; n++)
        In[n] = 0;
    while (N > 0 && In[N] < TINY * In[0])
        N--;
    int live = 0;
    for (int n = 1; n <= N; n++) {
        /* chi(n)^d0 through its log: d0 may be large */
        const double complex z = chi[n - 1];
        const double mz = cabs(z);
        double complex p = 0;
        if (mz > 0) {
            const double lm = d0 * log(mz);
            p = lm < -745 ? 0 : exp(lm) * cexp(I * (double)d0 * carg(z));
        } else if (d0 == 0)
            p = 1;
        w[n - 1] = In[n] * cexp(I * (double)n * arg) * p;
        live = n;
    }
    /* |w_n| >= TINY I~_0 compared in squares: cabs is hypot, which took half
     * of a farpred run (perf); I~_n <= 1, so the squares neither overflow
     * nor underflow above the threshold */
    const double tiny2 = TINY * In[0] * (TINY * In[0]);
    for (long t = 0; t < nd; t++) {
        double s = In[0], g = In[1];
        int last = 0;
        for (int n = 1; n <= live; n++) {
            const double re = 2 * creal(w[n - 1]);
            s += re;
            if (lq) /* I'_n / I_n = (I_{n-1} + I_{n+1}) / (2 I_n) */
                g += re * (In[n - 1] + In[n + 1 <= nh ? n + 1 : n]) / (2 * In[n]);
            w[n - 1] *= chi[n - 1];
            const double wr = creal(w[n - 1]), wi = cimag(w[n - 1]);
            if (wr * wr + wi * wi >= tiny2)
                last = n;
        }
        live = last;
        /* F > 0 exactly; a truncated sum can only miss by ~TINY I_0 */
        const double F = s > TINY * In[0] ? s : TINY * In[0];
        lp[t] += x + log(F);
        if (lq)
            lq[t] += x * g / F; /* E[X e^X]/E[e^X] of the block */
    }
    return RL_OK;
}

/* A deterministic block (|chi(1)| = 1, step c = arg chi(1)): adds
 * Re(A e^{i delta c}) into lp, e^{i c} advanced by multiplication and
 * re-anchored by cexp every 256 steps (the drift of a product stays at
 * rounding level). */
static void block_constant(double complex z, double complex a, long d0, long nd, double *lp, double *lq)
{
    const double c = carg(z);
    double complex r = 0;
    for (long t = 0; t < nd; t++) {
        if (t % 256 == 0)
            r = a * cexp(I * c * (double)(d0 + t));
        lp[t] += creal(r);
        if (lq) /* a deterministic score: its own weighted mean */
            lq[t] += creal(r);
        r *= z;
    }
}

struct rl_farpred_ws {
    int nb;   /* blocks it holds */
    long nd;  /* distances it holds */
    int *det; /* per block: a deterministic step (|chi(1)| = 1) */
    double *lp, *mx, *sum, *lq, *sum1, *In;
    double complex *w;
};

rl_farpred_ws *rl_farpred_ws_alloc(int nb, long nd)
{
    if (nb < 0 || nd < 1)
        return NULL;
    rl_farpred_ws *ws = rl_xcalloc(1, sizeof *ws);
    ws->nb = nb;
    ws->nd = nd;
    ws->det = rl_xcalloc((size_t)(nb > 0 ? nb : 1), sizeof *ws->det);
    ws->lp = rl_xmalloc(sizeof(double) * nd);
    ws->mx = rl_xmalloc(sizeof(double) * nd);
    ws->sum = rl_xmalloc(sizeof(double) * nd);
    ws->lq = rl_xmalloc(sizeof(double) * nd);
    ws->sum1 = rl_xmalloc(sizeof(double) * nd);
    ws->In = rl_xmalloc(sizeof(double) * (RL_FARPRED_NH + 1));
    ws->w = rl_xmalloc(sizeof(double complex) * RL_FARPRED_NH);
    return ws;
}

void rl_farpred_ws_free(rl_farpred_ws *ws)
{
    if (!ws)
        return;
    free(ws->det);
    free(ws->lp);
    free(ws->mx);
    free(ws->sum);
    free(ws->lq);
    free(ws->sum1);
    free(ws->In);
    free(ws->w);
    free(ws);
}

/* The arguments both forms refuse (farpred_forms.h), before anything is allocated. */
static rl_status logmean_check(const rl_farpred_law *law, long np, long nd, long d0, double slope, rl_err *err)
{
    if (np < 1 || nd < 1 || d0 < 0)
        return rl_fail(err, RL_EINPUT, "need pairs >= 1, distances >= 1, d0 >= 0 (got %ld, %ld, %ld)",
                       np, nd, d0);
    if (law->nb < 0 || (law->nb > 0 && (law->nh < 1 || law->nh > RL_FARPRED_NH || !law->chi)))
        return rl_fail(err, RL_EINPUT, "a law needs 1 to %d harmonics per block", RL_FARPRED_NH);
    if (!isfinite(slope))
        return rl_fail(err, RL_EINPUT, "the ALiBi slope must be finite");
    return RL_OK;
}

rl_status rl_farpred_logmean(const rl_farpred_law *law, long np, const double *c,
                             const double complex *A, double slope, long d0, long nd, double *logm,
                             double *sbar, rl_err *err)
{
    RL_TRY(logmean_check(law, np, nd, d0, slope, err));
    rl_farpred_ws *ws = rl_farpred_ws_alloc(law->nb, nd);
    const rl_status st = rl_farpred_logmean_ws(ws, law, np, c, A, slope, d0, nd, logm, sbar, err);
    rl_farpred_ws_free(ws);
    return st;
}

rl_status rl_farpred_logmean_ws(rl_farpred_ws *ws, const rl_farpred_law *law, long np, const double *c,
                                const double complex *A, double slope, long d0, long nd, double *logm,
                                double *sbar, rl_err *err)
{
    RL_TRY(logmean_check(law, np, nd, d0, slope, err));
    if (!ws || law->nb > ws->nb || nd > ws->nd)
        return rl_fail(err, RL_EINPUT, "the workspace holds %d blocks and %ld distances, the law asks %d and %ld",
                       ws ? ws->nb : 0, ws ? ws->nd : 0L, law->nb, nd);
    const int nb = law->nb, nh = law->nh;
    int *det = ws->det;
    for (int b = 0; b < nb; b++)
        for (int n = 0; n < nh; n++) {
            const double mz = cabs(law->chi[b * nh + n]);
            if (!isfinite(mz) || mz > 1 + 1e-12)
                return rl_fail(err, RL_EINPUT, "|chi| must be finite and <= 1 (block %d, n = %d: %g)",
                               b, n + 1, mz);
            if (n == 0)
                det[b] = fabs(mz - 1) <= 1e-15;
        }
    double *lp = ws->lp, *mx = ws->mx, *sum = ws->sum;
    /* with sbar: each pair's weighted mean score lq, and sum1 = sum of e^{lp - mx} lq */
    double *lq = sbar ? ws->lq : NULL, *sum1 = sbar ? ws->sum1 : NULL;
    rl_status st = RL_OK;
    for (long t = 0; t < nd; t++) {
        mx[t] = -INFINITY;
        sum[t] = 0;
        if (sum1)
            sum1[t] = 0;
    }
    for (long p = 0; p < np && st == RL_OK; p++) {
        const double cp = c ? c[p] : 0;
        if (!isfinite(cp)) {
            st = rl_fail(err, RL_EINPUT, "pair %ld has a non-finite score", p);
            break;
        }
        for (long t = 0; t < nd; t++)
            lp[t] = cp - slope * (double)(d0 + t);
        if (lq)
            memcpy(lq, lp, sizeof(double) * nd);
        for (int b = 0; b < nb && st == RL_OK; b++) {
            const double complex a = A[p * nb + b];
            if (!isfinite(creal(a)) || !isfinite(cimag(a))) {
                st = rl_fail(err, RL_EINPUT, "pair %ld block %d has a non-finite alignment", p, b);
                break;
            }
            if (det[b])
                block_constant(law->chi[b * nh], a, d0, nd, lp, lq);
            else
                st = block_random(law->chi + (long)b * nh, nh, a, d0, nd, lp, lq, ws->In, ws->w, err);
        }
        /* the mean over pairs in log form: a running log-sum-exp per delta */
        for (long t = 0; t < nd && st == RL_OK; t++) {
            if (lp[t] > mx[t]) {
                const double sc = exp(mx[t] - lp[t]);
                sum[t] = sum[t] * sc + 1;
                if (sum1)
                    sum1[t] = sum1[t] * sc + lq[t];
                mx[t] = lp[t];
            } else {
                const double e = exp(lp[t] - mx[t]);
                sum[t] += e;
                if (sum1)
                    sum1[t] += e * lq[t];
            }
        }
    }
    if (st == RL_OK)
        for (long t = 0; t < nd; t++) {
            logm[t] = mx[t] + log(sum[t] / (double)np);
            if (sbar)
                sbar[t] = sum1[t] / sum[t];
        }
    return st;
}

double rl_farpred_rho(const double *N, const double *q, const double *qs, long R, const double *m,
                      const double *m0, long T, long i0, long i1)
{
    double acc = 0, f = 0;
    long rows = 0, next = T; /* f = sum of m over delta = T .. next - 1 */
    for (long i = i0; i < i1; i++) {
        if (i < T)
            continue;
        while (next < i)
            f += m[next++ - T];
        const double f0 = m0 ? m0[i - T] : 0;
        double s = 0;
        for (long r = 0; r < R; r++) {
            const double fi = (q ? q[r] : 1) * f + (qs ? qs[r] : 1) * f0;
            s += fi > 0 ? fi / (N[r] + fi) : 0;
        }
        acc += s / (double)R;
        rows++;
    }
    return rows ? acc / (double)rows : 0;
}

double rl_farpred_entropy(const double *N, const double *NS, const double *q, const double *qs, long R,
                          const double *m, const double *sbar, const double *m0, const double *sbar0, long T,
                          long i0, long i1)
{
    double acc = 0, f = 0, f1 = 0; /* sums of m and m sbar over delta = T .. next - 1 */
    long rows = 0, next = T;
    for (long i = i0; i < i1; i++) {
        if (i < T)
            continue;
        for (; next < i; next++) {
            f += m[next - T];
            f1 += m[next - T] * sbar[next - T];
        }
        double s = 0;
        for (long r = 0; r < R; r++) {
            const double qr = q ? q[r] : 1, qsr = qs ? qs[r] : 1;
            /* a level q shifts every score by log q: s e^s -> q e^s (s + log q) */
            double Z = N[r] + qr * f, S = NS[r] + qr * (f1 + log(qr) * f);
            if (m0) {
                Z += qsr * m0[i - T];
                S += qsr * m0[i - T] * (sbar0[i - T] + log(qsr));
            }
            s += log(Z) - S / Z;
        }
        acc += s / (double)R;
        rows++;
    }
    return rows ? acc / (double)rows : 0;
}
