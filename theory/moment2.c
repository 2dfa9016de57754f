/* moment2.c: closed forms of the second-moment operator T(X) = E[M X M^T]
 * (derivations in moment2.h and /work/wt/notes_moment2.md). */
#include "moment2.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "theory.h"
#include "../core/util.h"
#include "../sampling/so2.h"

double complex rl_angle_charfn2(rl_angle_law law, double omega)
{
    /* every law but circle is a scale family in omega: 2 theta ~ law(2 omega) */
    return law == RL_ANG_CIRCLE ? 0 : rl_angle_charfn(law, 2.0 * omega);
}

/* Whether F is span{I_b, J_b}: block-diagonal SO(2) steps (d = 2 Haar on
 * SO(2) and Brownian steps are rotations of the one block). */
static int so2_like(const rl_family *f)
{
    return rl_family_is_so2(f) ||
           (f->d == 2 && (f->kind == RL_FAM_HAAR_SO || f->kind == RL_FAM_BROWNIAN));
}

int rl_moment2_fixed_dim(const rl_family *f)
{
    if (so2_like(f))
        return f->d;
    /* PaTH with beta < 2 shrinks every X (T(I) = (1 - (2 beta - beta^2)/d) I) */
    return f->kind == RL_FAM_PATH && f->beta != 2.0 ? 0 : 1;
}

void rl_moment2_fixed_basis(const rl_family *f, double *basis)
{
    const int d = f->d, h = d / 2, k = rl_moment2_fixed_dim(f);
    const long n = (long)d * d;
    memset(basis, 0, sizeof(double) * (size_t)k * n);
    if (so2_like(f)) {
        const double r = 1.0 / sqrt(2.0);
        for (int b = 0; b < h; b++) {
            double *Ib = basis + (long)(2 * b) * n, *Jb = basis + (long)(2 * b + 1) * n;
            Ib[b * d + b] = Ib[(b + h) * d + b + h] = r;
            Jb[(b + h) * d + b] = r;
            Jb[b * d + b + h] = -r;
        }
    } else if (k == 1) {
        for (int i = 0; i < d; i++)
            basis[i * d + i] = 1.0 / sqrt((double)d);
    }
}

/* SO(2) blocks: on block b's symmetric traceless part T is E[rotation by
 * 2 theta_b] (norm |E e^{2i theta_b}|); on the 2x2 piece X_{bb'} (rows of
 * block b, columns of b'), the part commuting with rotations turns by
 * theta_b - theta_b' and the anticommuting part by theta_b + theta_b'. */
static double so2_rates(const rl_family *f, const double *probs, double *diag, double *rate)
{
    const int d = f->d, h = d / 2;
    double omega[h];
    double complex chi[h], chi2[h];
    if (f->kind == RL_FAM_TOKEN_SO2) {
        for (int b = 0; b < h; b++) {
            chi[b] = chi2[b] = 0;
            for (int v = 0; v < f->vocab; v++) {
                double pv = probs ? probs[v] : 1.0 / f->vocab, t = f->table[(long)v * h + b];
                chi[b] += pv * cexp(I * t);
                chi2[b] += pv * cexp(2.0 * I * t);
            }
        }
    } else if (f->kind == RL_FAM_SO2) {
        rl_so2_freqs(d, f->base, f->scale, omega);
        for (int b = 0; b < h; b++) {
            chi[b] = rl_angle_charfn(f->law, omega[b]);
            chi2[b] = rl_angle_charfn2(f->law, omega[b]);
        }
    } else if (f->kind == RL_FAM_BROWNIAN) { /* d = 2: theta = sigma g, g ~ N(0, 1) */
        chi[0] = exp(-0.5 * f->sigma * f->sigma);
        chi2[0] = exp(-2.0 * f->sigma * f->sigma);
    } else { /* Haar on SO(2): uniform angle */
        chi[0] = chi2[0] = 0;
    }
    double best = 0;
    for (int b = 0; b < h; b++) {
        double rb = cabs(chi2[b]);
        if (diag)
            diag[b] = rb;
        for (int c = 0; c < h; c++) {
            if (c == b)
                continue;
            double cross;
            if (f->kind == RL_FAM_TOKEN_SO2) { /* one token sets every block: joint law */
                double complex sp = 0, sm = 0;
                for (int v = 0; v < f->vocab; v++) {
                    double pv = probs ? probs[v] : 1.0 / f->vocab;
                    double tb = f->table[(long)v * h + b], tc = f->table[(long)v * h + c];
                    sp += pv * cexp(I * (tb + tc));
                    sm += pv * cexp(I * (tb - tc));
                }
                cross = fmax(cabs(sp), cabs(sm));
            } else { /* independent blocks */
                cross = cabs(chi[b]) * cabs(chi[c]);
            }
            if (cross > rb)
                rb = cross;
        }
        if (rate)
            rate[b] = rb;
        if (rb > best)
            best = rb;
    }
    return best;
}

void rl_moment2_closed(const rl_family *f, const double *probs, rl_moment2 *m, double *block_diag,
                       double *block_rate)
{
    const double d = f->d;
    m->fixdim = rl_moment2_fixed_dim(f);
    m->limit_max = so2_like(f) ? 0.5 : m->fixdim ? 1.0 / d : 0.0;
    if (so2_like(f)) {
        m->rate = so2_rates(f, probs, block_diag, block_rate);
        return;
    }
    switch (f->kind) {
    case RL_FAM_HAAR:
    case RL_FAM_HAAR_SO:
        m->rate = 0; /* T(X) = tr(X)/d I: the projector onto F (d >= 3 for SO(d)) */
        break;
    case RL_FAM_LAZY_HAAR:
        m->rate = 1.0 - f->p; /* T = (1-p) Id + p Pi_F */
        break;
    case RL_FAM_HOUSEHOLDER:
    case RL_FAM_PATH: {
        /* M = I - beta w w^T: E[w w^T] = I/d, E[w_i w_j w_k w_l] = (d_ij d_kl +
         * d_ik d_jl + d_il d_jk)/(d(d+2)) give
         *   T(X) = (1 - 2 beta/d) X + beta^2 (X + X^T + tr(X) I)/(d(d+2)),
         * eigenvalues: antisymmetric 1 - 2 beta/d; symmetric traceless
         * 1 - 2 beta/d + 2 beta^2/(d(d+2)); I: 1 - (2 beta - beta^2)/d. */
        double beta = f->kind == RL_FAM_HOUSEHOLDER ? 2.0 : f->beta;
        double a = 1 - 2 * beta / d, s = a + 2 * beta * beta / (d * (d + 2));
        double c = 1 - (2 * beta - beta * beta) / d;
        m->rate = fmax(fabs(a), fabs(s));
        if (m->fixdim == 0)
            m->rate = fmax(m->rate, fabs(c));
        break;
    }
    default: /* brownian, d >= 3: no closed form here (the estimate only) */
        m->rate = NAN;
        break;
    }
}

rl_status rl_moment2_perp_norm(int d, const double *T, int k, const double *basis, double *out,
                               rl_err *err)
{
    const int n = d * d;
    double *P = rl_xmalloc(sizeof(double) * (size_t)n * n), *A = rl_xmalloc(sizeof(double) * (size_t)n * n);
    double *sv = rl_xmalloc(sizeof(double) * n), *sup = rl_xmalloc(sizeof(double) * n);
    /* Pi = I - B^T B */
    memset(P, 0, sizeof(double) * (size_t)n * n);
    for (int i = 0; i < n; i++)
        P[(long)i * n + i] = 1.0;
    if (k > 0)
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, n, k, -1.0, basis, n, basis, n, 1.0, P, n);
    double *TP = rl_xmalloc(sizeof(double) * (size_t)n * n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, T, n, P, n, 0.0, TP, n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, P, n, TP, n, 0.0, A, n);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', n, n, A, n, sv, NULL, 1, NULL, 1, sup);
    *out = sv[0];
    free(P);
    free(A);
    free(TP);
    free(sv);
    free(sup);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "LAPACKE_dgesvd failed (info %d)", (int)info);
    return RL_OK;
}

/* rate^n <= 1/d, in logs: n log rate <= -log d (rate 0 meets it at n >= 1). */
const char *rl_moment2_unmet(double rate, int d, long n, char *buf, size_t len)
{
    if (isnan(rate)) {
        snprintf(buf, len, "no second-moment certificate (no closed form for the rate at d = %d)", d);
        return buf;
    }
    if (rate <= 0 ? n >= 1 : (double)n * log(rate) <= -log((double)d))
        return NULL;
    long w = rl_mixing_window(rate, 1.0 / d);
    char r[48]; /* a rate near 1 as 1 - x: "%.6g" would print 1 */
    if (rate > 0.999 && rate < 1)
        snprintf(r, sizeof r, "1 - %.3g", 1 - rate);
    else
        snprintf(r, sizeof r, "%.6g", rate);
    if (w < 0)
        snprintf(buf, len, "second-moment rate %s at d = %d: rate^n > 1/d at n = %ld, and for every n", r, d, n);
    else
        snprintf(buf, len, "second-moment rate %s at d = %d: rate^n = %.3g > 1/d at n = %ld; met from n = %ld", r, d,
                 pow(rate, (double)n), n, w);
    return buf;
}
