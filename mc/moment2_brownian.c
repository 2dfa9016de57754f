/* moment2_brownian.c: the Brownian second-moment rate from characters
 * (moment2_brownian.h). */
#include "moment2_brownian.h"

#include <gsl/gsl_randist.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"

double rl_moment2_upper(const rl_moment2_est *e)
{
    return fmin(e->rate + 5 * e->se, 1.0);
}

rl_status rl_moment2_brownian(int d, double sigma, long n, unsigned long seed, rl_moment2_est *out, rl_err *err)
{
    if (d < 2 || d > 4096)
        return rl_fail(err, RL_EINPUT, "the Brownian second-moment rate needs 2 <= d <= 4096, got d = %d", d);
    if (n < 2 || n > 100000000L)
        return rl_fail(err, RL_EINPUT, "the Brownian second-moment rate needs 2 to 1e8 samples, got %ld", n);
    if (!(sigma >= 0 && isfinite(sigma)))
        return rl_fail(err, RL_EINPUT, "sigma %g must be finite and non-negative", sigma);
    const double dimS = d * (d + 1) / 2.0 - 1, dimK = d * (d - 1) / 2.0;
    double *A = rl_xmalloc(sizeof(double) * d * d), *S = rl_xmalloc(sizeof(double) * d * d);
    double *mu = rl_xmalloc(sizeof(double) * d);
    double *xs = rl_xmalloc(sizeof(double) * n), *xk = rl_xmalloc(sizeof(double) * n), tr_sum = 0;
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    rl_rng_stream(r, seed, 0);
    rl_status st = RL_OK;
    for (long s = 0; s < n; s++) {
        for (int i = 0; i < d; i++) {
            A[i * d + i] = 0;
            for (int j = i + 1; j < d; j++) {
                double g = gsl_ran_gaussian_ziggurat(r, 1.0);
                A[i * d + j] = g;
                A[j * d + i] = -g;
            }
        }
        /* S = A^T A = -A^2 (symmetric, eigenvalues lambda^2 of A's pairs) */
        for (int i = 0; i < d; i++)
            for (int j = i; j < d; j++) {
                double v = 0;
                for (int k = 0; k < d; k++)
                    v += A[k * d + i] * A[k * d + j];
                S[i * d + j] = S[j * d + i] = v;
            }
        lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', d, S, d, mu);
        if (info != 0) {
            st = rl_fail(err, RL_EINTERNAL, "LAPACKE_dsyev failed (info %d, d = %d)", (int)info, d);
            break;
        }
        double t1 = 0, t2 = 0; /* tr M, tr M^2 */
        for (int i = 0; i < d; i++) {
            double lam = sqrt(fmax(mu[i], 0));
            t1 += cos(sigma * lam);
            t2 += cos(2 * sigma * lam);
        }
        tr_sum += t1;
        xs[s] = ((t1 * t1 + t2) / 2 - 1) / dimS;
        xk[s] = (t1 * t1 - t2) / 2 / dimK;
    }
    free(A);
    free(S);
    free(mu);
    if (st == RL_OK) {
        double ms, ses, mk, sek;
        rl_mean_se(xs, n, 1, &ms, &ses);
        rl_mean_se(xk, n, 1, &mk, &sek);
        int skew = d >= 3 && fabs(mk) > fabs(ms);
        out->rate = skew ? fabs(mk) : fabs(ms);
        out->se = skew ? sek : ses;
        out->noise = 0;
        out->mean_norm = fabs(tr_sum / n) / d;
        out->n = n;
    }
    free(xs);
    free(xk);
    return st;
}
