/* theory.c: closed forms of the study.  Each formula is derived in NOTES.md. */
#include "theory.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_bessel.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../sampling/family_ops.h"
#include "../sampling/so2.h"

/* ||E M|| and log ||E M|| through the family's object (family_ops.h): the
 * norm of c I is |c|, of a block-diagonal mean the largest |chi_b|. */
int rl_family_closed_mean_norm(const rl_family *f, const double *probs, double *blocks, double *norm,
                               double *err_bound)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    const int nb = rl_family_mean_blocks(f);
    double complex chi[nb];
    double e = 0, best = 0;
    if (!o || !o->mean || !o->mean(f, probs, chi, &e))
        return 0;
    for (int b = 0; b < nb; b++) {
        double m = cabs(chi[b]);
        if (blocks && rl_family_is_so2(f))
            blocks[b] = m;
        if (m > best)
            best = m;
    }
    *norm = best;
    if (err_bound)
        *err_bound = e;
    return 1;
}

double rl_family_mean_norm(const rl_family *f, const double *probs, double *blocks)
{
    double v;
    return rl_family_closed_mean_norm(f, probs, blocks, &v, NULL) ? v : NAN;
}

int rl_family_closed_log_mean_norm(const rl_family *f, const double *probs, double *logblocks, double *lognorm)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    if (!o || !o->mean || !rl_family_has_mean(f))
        return 0;
    if (o->log_mean) {
        *lognorm = o->log_mean(f, probs, logblocks);
        return 1;
    }
    /* no cancellation-free form: the log of the norms as they are */
    const int h = f->d / 2, so2 = rl_family_is_so2(f);
    double nb[so2 ? h : 1], top;
    if (!rl_family_closed_mean_norm(f, probs, nb, &top, NULL))
        return 0;
    if (logblocks && so2)
        for (int b = 0; b < h; b++)
            logblocks[b] = log(nb[b]);
    *lognorm = log(top);
    return 1;
}

double rl_family_log_mean_norm(const rl_family *f, const double *probs, double *logblocks)
{
    double v;
    return rl_family_closed_log_mean_norm(f, probs, logblocks, &v) ? v : NAN;
}

rl_status rl_family_norm_certain(const rl_family *f, int as_log, rl_err *err)
{
    double c, e;
    if (!rl_family_closed_mean_norm(f, NULL, NULL, &c, &e))
        return rl_fail(err, RL_EINPUT, "--family %s has no closed form for ||E M|| (at d = %d)",
                       rl_family_name(f->kind), f->d);
    /* W divides by 1 - |c|: the log needs e small against it */
    if (e > (as_log ? 1e-7 * (1 - c) : 1e-9))
        return rl_fail(err, RL_EINPUT, "the %s mean at d = %d, sigma = %g is not certain to %s (rounding "
                       "estimate %g)", rl_family_name(f->kind), f->d, f->sigma, as_log ? "1e-7 (1 - |E M|)" : "1e-9", e);
    return RL_OK;
}

long rl_mixing_window_log(double lognorm, double eps)
{
    if (isnan(lognorm) || isnan(eps))
        return RL_WINDOW_UNDEFINED;
    if (!(lognorm < 0))
        return -1;
    /* -log(eps), not log(1/eps): 1/eps would round first */
    double q = -log(eps) / -lognorm;
    if (!(q <= 9e18)) /* the cast below is in range */
        return -1;
    long n = (long)ceil(q);
    return n < 1 ? 1 : n;
}

long rl_mixing_window(double norm, double eps)
{
    if (isnan(norm) || isnan(eps))
        return RL_WINDOW_UNDEFINED;
    if (norm >= 1.0)
        return -1;
    if (norm <= 0.0)
        return 1;
    double w = ceil(log(1.0 / eps) / log(1.0 / norm));
    if (w < 1)
        w = 1;
    if (!(w <= 9e18)) /* the cast below is in range */
        return -1;
    /* guard the ceiling against rounding: least n with norm^n <= eps */
    long n = (long)w;
    while (n > 1 && pow(norm, n - 1) <= eps)
        n--;
    while (pow(norm, n) > eps)
        n++;
    return n;
}

double rl_levy_tail(int d, double t)
{
    if (t <= 0)
        return 1.0;
    double b = 2.0 * exp(-0.5 * d * t * t);
    return b < 1.0 ? b : 1.0;
}

double rl_levy_so_tail(int d, double t)
{
    /* SO(d), d >= 3, with the Hilbert-Schmidt metric has Ricci curvature
     * (d-2)/4, so by Bakry-Emery a log-Sobolev constant 4/(d-2) and by
     * Herbst's argument P(f >= E f + t) <= exp(-(d-2) t^2 / 8) for 1-Lipschitz
     * f (Meckes, The Random Matrix Theory of the Classical Compact Groups,
     * 2019, Thms 5.16-5.17); both sides give the factor 2. */
    if (t <= 0 || d < 3)
        return 1.0;
    double b = 2.0 * exp(-(d - 2.0) * t * t / 8.0);
    return b < 1.0 ? b : 1.0;
}

double rl_beta_tail(int d, double t)
{
    if (t <= 0)
        return 1.0;
    if (t >= 1)
        return 0.0;
    /* <e,u>^2 ~ Beta(1/2, (d-1)/2): density of <e,u> proportional to (1-x^2)^{(d-3)/2} */
    return gsl_cdf_beta_Q(t * t, 0.5, 0.5 * (d - 1));
}

double rl_beta_coord_cdf(int d, double x)
{
    if (x <= -1)
        return 0.0;
    if (x >= 1)
        return 1.0;
    double half = 0.5 * gsl_cdf_beta_P(x * x, 0.5, 0.5 * (d - 1));
    return x >= 0 ? 0.5 + half : 0.5 - half;
}

double rl_hoeffding_so2(double t, const double *a, int nb)
{
    double s = 0;
    for (int b = 0; b < nb; b++)
        s += a[b] * a[b];
    if (t <= 0)
        return 1.0;
    if (s <= 0)
        return 0.0;
    /* each s_b ranges over an interval of length 2 a_b: 2 exp(-2t^2 / sum (2a_b)^2) */
    double v = 2.0 * exp(-t * t / (2.0 * s));
    return v < 1.0 ? v : 1.0;
}

/* log(e^a + e^b) without forming e^a or e^b */
static double logaddexp(double a, double b)
{
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi == -INFINITY ? hi : hi + log1p(exp(lo - hi));
}

double rl_farmass_lower_log(double m, double k, double lambda)
{
    return log(m) - logaddexp(log(m), log(k) + 2.0 * lambda);
}

double rl_farmass_lower(double m, double k, double lambda)
{
    /* the direct form where it is a normal number (outputs unchanged there);
     * past lambda ~ 354, e^{2 lambda} overflows and it gave 0 */
    double v = m / (m + k * exp(2.0 * lambda));
    return v >= DBL_MIN ? v : exp(rl_farmass_lower_log(m, k, lambda));
}

double rl_farmass_upper(double m, double k, double lambda)
{
    return m / (m + k * exp(-2.0 * lambda));
}

double rl_farmass_half(double k, double lambda)
{
    return k * exp(2.0 * lambda);
}

double rl_farmass_half_log(double k, double lambda)
{
    return log(k) + 2.0 * lambda;
}

double rl_farmass_alibi(double m, double k, double lambda, double slope, int best)
{
    /* N = sum_{delta<K} e^{-slope delta}, F = sum_{K<=delta<K+M} e^{-slope delta};
     * N/F = (1 - e^{-sK}) / (e^{-sK} (1 - e^{-sM})) = expm1(sK) / -expm1(-sM);
     * slope -> 0 gives K/M, the unbiased case. */
    double ratio = slope > 0 ? expm1(slope * k) / -expm1(-slope * m) : k / m;
    return 1.0 / (1.0 + exp((best ? 2.0 : -2.0) * lambda) * ratio);
}

double rl_farmass_alibi_log(double m, double k, double lambda, double slope, int best)
{
    /* log(1 / (1 + e^z)) = -logaddexp(0, z), z = +-2 lambda + log(N/F), with
     * log expm1(y) = y + log1p(-e^{-y}) for large y (expm1 overflows past 709) */
    double sk = slope * k, lr = log(k / m);
    if (slope > 0)
        lr = (sk > 1 ? sk + log1p(-exp(-sk)) : log(expm1(sk))) - log(-expm1(-slope * m));
    return -logaddexp(0.0, (best ? 2.0 : -2.0) * lambda + lr);
}

double rl_value_coherent(double rho, double vnorm)
{
    return rho * vnorm;
}

double complex rl_cpow_n(double complex z, long n)
{
    double complex r = 1;
    for (; n > 0; n >>= 1, z *= z)
        if (n & 1)
            r *= z;
    return r;
}

/* expm1(x) - x, accurate near 0 (where expm1(x) and x cancel). */
static double complex expm1_less_x(double complex x)
{
    if (cabs(x) >= 0.5)
        return cexp(x) - 1.0 - x;
    /* sum_{k>=2} x^k/k!: each term below 0.5^k/k!, 2^-60 by k = 20 */
    double complex term = x * x / 2.0, sum = 0;
    for (int k = 3; k <= 24; k++) {
        sum += term;
        term *= x / k;
    }
    return sum + term;
}

double rl_value_pair_sum(double complex chi, long m)
{
    if (m <= RL_PAIR_SUM_DIRECT_MAX) {
        /* M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta, summed directly:
         * exact for chi near 1 where a naive closed form cancels. */
        double complex p = 1, acc = 0;
        for (long delta = 1; delta < m; delta++) {
            p *= chi;
            acc += (double)(m - delta) * p;
        }
        return (double)m + 2.0 * creal(acc);
    }
    if (chi == 0)
        return (double)m;
    /* The geometric closed form, O(1) at any M: with z = chi = e^u,
     *   sum_{delta=1}^{M-1} (M - delta) z^delta = z (M (1 - z) - (1 - z^M)) / (1 - z)^2,
     * and M (1 - z) - (1 - z^M) = g(M u) - M g(u), g(x) = expm1(x) - x, which
     * has no leading term to cancel (g(Mu) ~ M^2 u^2 / 2 >> M g(u) when u is
     * small).  z = 1 (u = 0) is the limit M (M - 1) / 2, so S = M^2. */
    const double complex u = clog(chi);
    if (u == 0)
        return (double)m * (double)m;
    const double md = (double)m;
    const double complex e1 = u + expm1_less_x(u); /* expm1(u) = z - 1 */
    const double complex num = expm1_less_x(md * u) - md * expm1_less_x(u);
    return md + 2.0 * creal(chi * num / (e1 * e1));
}

double rl_value_incoherent(double rho, long m, int nb, const double complex *chi, const double *vnorm2)
{
    double s = 0;
    for (int b = 0; b < nb; b++)
        s += vnorm2[b] * rl_value_pair_sum(chi[b], m);
    return rho / (double)m * sqrt(s > 0 ? s : 0);
}

double rl_sphere_log_mgf(int d, double lambda)
{
    /* The coordinate has density c (1 - x^2)^{(d-3)/2} on [-1, 1], and
     * DLMF 10.32.2, int_{-1}^{1} e^{lambda x} (1 - x^2)^{nu - 1/2} dx =
     * sqrt(pi) Gamma(nu + 1/2) (2/lambda)^nu I_nu(lambda), with nu = d/2 - 1,
     * gives Gamma(d/2) (2/lambda)^nu I_nu(lambda) = sum_k (lambda^2/4)^k /
     * (k! (d/2)_k).  The series has positive terms (no cancellation) and, unlike
     * I_nu itself, no underflow at large nu and small lambda. */
    const double q = 0.25 * lambda * lambda, a = 0.5 * d;
    double term = 1.0, sum = 1.0;
    for (int k = 0; k < 100000; k++) {
        term *= q / ((k + 1.0) * (a + k));
        sum += term;
        if (term < 1e-17 * sum && k > q)
            break;
    }
    return log(sum);
}

void rl_so2_cos_log_mgf_range(rl_angle_law law, double omega, long n0, long count, double z, double *out)
{
    if (!(z >= 0 && z <= 1e6)) { /* NaN, negative or beyond any use: kmax's cast stays in range */
        for (long j = 0; j < count; j++)
            out[j] = NAN;
        return;
    }
    /* scaled Bessel functions e^{-z} I_k(z): I_k(z)/I_0(z) ~ e^{-k^2/(2z)} for
     * large z and ~ (z/2)^k/k! for small z, so k <= 25 + 10 sqrt(z) leaves a
     * tail below 1e-20 relative */
    int kmax = 25 + (int)(10 * sqrt(z));
    double *in = malloc(sizeof(double) * (kmax + 1));
    double complex *chi = malloc(sizeof(double complex) * 2 * (kmax + 1)), *p = chi + kmax + 1;
    if (!in || !chi || gsl_sf_bessel_In_scaled_array(0, kmax, z, in) != 0) {
        for (long j = 0; j < count; j++)
            out[j] = NAN;
        free(in);
        free(chi);
        return;
    }
    /* p_k = chi(k omega)^n, started at n0 by squaring, then one factor per n */
    for (int k = 1; k <= kmax; k++) {
        chi[k] = rl_angle_charfn(law, k * omega);
        double complex c = chi[k], r = 1;
        for (long e = n0; e; e >>= 1, c *= c)
            if (e & 1)
                r *= c;
        p[k] = r;
    }
    for (long j = 0; j < count; j++) {
        double s = in[0];
        for (int k = 1; k <= kmax; k++) {
            s += 2.0 * in[k] * creal(p[k]);
            p[k] *= chi[k];
        }
        out[j] = z + log(s);
    }
    free(in);
    free(chi);
}

double rl_so2_cos_log_mgf(rl_angle_law law, double omega, long n, double z)
{
    double v;
    rl_so2_cos_log_mgf_range(law, omega, n, 1, z, &v);
    return v;
}

/* The far-mass bound in its data-dependent forms (issue 12).  Softmax is
 * shift-invariant: subtracting min_far from every logit changes no weight.
 * Then every far weight is >= e^{0} and every near one <= e^{Delta}, with
 * Delta = max near logit - min far logit, so
 *   rho_D = F/(F + N) >= M e^{min far} / (M e^{min far} + K e^{max near})
 *        = M / (M + K e^{Delta})
 * (x/(x + N) increases in x and decreases in N).  Equality when every near
 * logit equals the max and every far one the min.  With |logit| <= lambda,
 * Delta <= 2 lambda gives rl_farmass_lower; the observed max |logit|
 * lambda_obs gives Delta <= 2 lambda_obs: three bounds, ordered
 * range >= observed >= as set.  Computed in log space,
 *   log rho = log M - logaddexp(log M, log K + Delta),
 * so no finite Delta overflows. */
double rl_farmass_range_log(double m, double k, double delta_range)
{
    const double a = log(m), b = log(k) + delta_range;
    const double hi = fmax(a, b), lo = fmin(a, b);
    return a - (hi + log1p(exp(lo - hi)));
}

double rl_farmass_range(double m, double k, double delta_range)
{
    return exp(rl_farmass_range_log(m, k, delta_range));
}

/* M / (M + K e^Delta) >= p  <=>  M (1 - p) >= p K e^Delta
 *                            <=>  M >= K p e^Delta / (1 - p). */
double rl_farmass_admissible_log(double k, double p, double delta_range)
{
    return log(k) + log(p) - log1p(-p) + delta_range;
}

double rl_farmass_admissible(double k, double p, double delta_range)
{
    return exp(rl_farmass_admissible_log(k, p, delta_range));
}
