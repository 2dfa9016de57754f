/* watson.c: the circular Cramér–von Mises (Watson) distance between two
 * laws on the circle, from their characteristic functions, and the angle
 * laws' characteristic functions at integer harmonics (<routelab/bounds.h>;
 * routelab's mix-or-stay condition, theory/mixstay_forms.h): libm alone, so that a
 * program that only measures distances links with -lm (docs/library.md#library-splits). */
#include "mixstay_forms.h"

#include <complex.h>
#include <math.h>

void rl_angle_harmonics(rl_angle_law law, double omega, int n, double complex *chi)
{
    /* theta ~ law(omega) is omega times a fixed law for every law but
     * circle, so k theta ~ law(k omega) and E e^{i k theta} is the one
     * characteristic function evaluated at k omega; circle (theta uniform on
     * the circle) has E e^{i k theta} = 0 for every integer k >= 1, which
     * rl_angle_charfn also returns.  No second formula. */
    for (int k = 1; k <= n; k++)
        chi[k - 1] = rl_angle_charfn(law, (double)k * omega);
}

rl_status rl_watson_check(const char *what, const double complex *phi, int n, rl_err *err)
{
    if (!phi)
        return rl_fail(err, RL_EINPUT, "%s: no array (NULL)", what);
    if (n < 1 || n > RL_MIXSTAY_MAX_HARMONICS)
        return rl_fail(err, RL_EINPUT, "%s: harmonics N must be 1 to %d, got %d", what, RL_MIXSTAY_MAX_HARMONICS, n);
    for (int k = 0; k < n; k++) {
        const double a = cabs(phi[k]);
        /* a characteristic function has |phi(n)| <= 1; rounding of a closed
         * form may put a modulus-one value a few ulps above */
        if (!(a <= 1.0 + RL_MIXSTAY_CHI_TOL))
            return rl_fail(err, RL_EINPUT, "%s(%d) = %g%+gi is not a characteristic function's value (|.| = %g, "
                                            "must be finite and at most 1)", what, k + 1, creal(phi[k]),
                           cimag(phi[k]), a);
    }
    return RL_OK;
}

double rl_watson_from_sum(double s, int n, double *hi)
{
    /* d_U = sqrt(S) / (pi sqrt 2), S = sum_{k>=1} |phi_mu(k) - phi_nu(k)|^2 / k^2
     * (Parseval on G - mean G, G = F_mu - F_nu: its k-th Fourier coefficient
     * is i c_k / (2 pi k), c_k = phi_mu(k) - phi_nu(k), so (1/2pi) int (G -
     * mean)^2 = sum_{k != 0} |c_k|^2 / (4 pi^2 k^2) = S / (2 pi^2)).  The
     * terms past N add at most sum_{k>N} (|phi_mu(k)| + |phi_nu(k)|)^2 / k^2
     * <= 4 sum_{k>N} 1/k^2 < 4/N to S, so the truncated s gives the bracket
     * [sqrt(s), sqrt(s + 4/N)] / (pi sqrt 2); and d_U <= 1/2 always (G has
     * oscillation at most 1: Popoviciu's variance bound). */
    const double c = 1.0 / (M_PI * M_SQRT2);
    if (hi) {
        const double h = sqrt(s + 4.0 / n) * c;
        *hi = h < 0.5 ? h : 0.5;
    }
    return sqrt(s) * c;
}

rl_status rl_watson_dist(const double complex *phi_mu, const double complex *phi_nu, int n, double *lo, double *hi,
                         rl_err *err)
{
    RL_TRY(rl_watson_check("phi_mu", phi_mu, n, err));
    RL_TRY(rl_watson_check("phi_nu", phi_nu, n, err));
    if (!lo)
        return rl_fail(err, RL_EINPUT, "watson distance: no output (lo is NULL)");
    /* the differences themselves, not |a|^2 + |b|^2 - 2 Re(a conj b): two
     * equal laws give exactly 0, two close ones lose no digits */
    double s = 0;
    for (int k = n; k >= 1; k--) { /* smallest terms first */
        const double complex c = phi_mu[k - 1] - phi_nu[k - 1];
        s += (creal(c) * creal(c) + cimag(c) * cimag(c)) / ((double)k * k);
    }
    *lo = rl_watson_from_sum(s, n, hi);
    return RL_OK;
}
