/* theory.c: closed forms of the study.  Each formula is derived in NOTES.md. */
#include "theory.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdlib.h>

#include "../sampling/so2.h"

double complex rl_angle_charfn(rl_angle_law law, double w)
{
    /* sin(w)/w, written so that w = 0 gives 1 */
    double sinc = w == 0 ? 1.0 : sin(w) / w;
    switch (law) {
    case RL_ANG_CONSTANT: return cexp(I * w);
    case RL_ANG_UNIFORM: return sinc;                 /* (1/2w) int_{-w}^{w} e^{it} dt */
    case RL_ANG_PM: return cos(w);                    /* (e^{iw} + e^{-iw}) / 2 */
    case RL_ANG_GAUSS: return exp(-0.5 * w * w);      /* Gaussian characteristic function */
    case RL_ANG_CIRCLE: return 0;                     /* uniform on the circle */
    case RL_ANG_DRIFT: return cexp(I * w) * sinc;     /* U(0, 2w) = w + U(-w, w) */
    default: return NAN;
    }
}

double rl_family_mean_norm(const rl_family *f, const double *probs, double *blocks)
{
    const int d = f->d, h = d / 2;
    switch (f->kind) {
    case RL_FAM_HAAR:
    case RL_FAM_HAAR_SO:
        /* E[U] commutes with every rotation, so E[U] = cI; E[U] = E[-U] on O(d)
         * (U and -U are equal in law) and on SO(d) for d >= 3 (U and U J_ij,
         * two signs flipped, are equal in law); SO(2): uniform angle, chi = 0. */
        return 0.0;
    case RL_FAM_HOUSEHOLDER:
        return 1.0 - 2.0 / d; /* E[w w^T] = I/d */
    case RL_FAM_PATH:
        return fabs(1.0 - f->beta / d);
    case RL_FAM_LAZY_HAAR:
        return 1.0 - f->p;
    case RL_FAM_BROWNIAN:
        return NAN;
    case RL_FAM_SO2:
    case RL_FAM_TOKEN_SO2: {
        double omega[h], best = 0;
        rl_so2_freqs(d, f->base, f->scale, omega);
        for (int b = 0; b < h; b++) {
            double complex chi = 0;
            if (f->kind == RL_FAM_SO2) {
                chi = rl_angle_charfn(f->law, omega[b]);
            } else {
                /* chi_b = sum_v p_v e^{i table[v][b]} under the token law */
                for (int v = 0; v < f->vocab; v++)
                    chi += (probs ? probs[v] : 1.0 / f->vocab) * cexp(I * f->table[(long)v * h + b]);
            }
            double nb = cabs(chi);
            if (blocks)
                blocks[b] = nb;
            if (nb > best)
                best = nb;
        }
        return best;
    }
    default:
        return NAN;
    }
}

double rl_brownian_mean(int d, double sigma, double *err)
{
    /* E[exp(sigma A)] = c I with c = E[(1/d) tr cos(sigma B)], B = iA Hermitian
     * (the sine part is odd and averages out).  Taylor to x^4 with the
     * remainder |cos x - 1 + x^2/2 - x^4/24| <= x^6/720 for every real x:
     *   c = 1 - sigma^2 m_2/2 + sigma^4 m_4/24 +- sigma^6 m_6/720,
     * m_2k = E[(1/d) tr (A^T A)^k]: m_2 = d-1, m_4 = (d-1)(2d-1) (Wick pairings),
     * m_6 = 5(d-1)(d^2-d+1) (NOTES.md §1.1). */
    double s2 = sigma * sigma, dm = d - 1.0;
    double m4 = dm * (2.0 * d - 1.0), m6 = 5.0 * dm * ((double)d * d - d + 1.0);
    if (err)
        *err = s2 * s2 * s2 * m6 / 720.0;
    return 1.0 - s2 * dm / 2.0 + s2 * s2 * m4 / 24.0;
}

long rl_mixing_window(double norm, double eps)
{
    if (norm >= 1.0)
        return -1;
    if (norm <= 0.0)
        return 1;
    double w = ceil(log(1.0 / eps) / log(1.0 / norm));
    if (w < 1)
        w = 1;
    if (w > 9e18)
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

double rl_farmass_lower(double m, double k, double lambda)
{
    return m / (m + k * exp(2.0 * lambda));
}

double rl_farmass_upper(double m, double k, double lambda)
{
    return m / (m + k * exp(-2.0 * lambda));
}

double rl_farmass_half(double k, double lambda)
{
    return k * exp(2.0 * lambda);
}

double rl_farmass_alibi(double m, double k, double lambda, double slope, int best)
{
    /* N = sum_{delta<K} e^{-slope delta}, F = sum_{K<=delta<K+M} e^{-slope delta};
     * N/F = (1 - e^{-sK}) / (e^{-sK} (1 - e^{-sM})) = expm1(sK) / -expm1(-sM);
     * slope -> 0 gives K/M, the unbiased case. */
    double ratio = slope > 0 ? expm1(slope * k) / -expm1(-slope * m) : k / m;
    return 1.0 / (1.0 + exp((best ? 2.0 : -2.0) * lambda) * ratio);
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

double rl_value_pair_sum(double complex chi, long m)
{
    /* M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta, summed directly:
     * O(M), exact for chi near 1 where the closed form cancels. */
    double complex p = 1, acc = 0;
    for (long delta = 1; delta < m; delta++) {
        p *= chi;
        acc += (double)(m - delta) * p;
    }
    return (double)m + 2.0 * creal(acc);
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
    if (z < 0) {
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
