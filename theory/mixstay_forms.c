/* mixstay_forms.c: routelab's mix-or-stay condition, the out-of-range distance
 * D_b(T, L) of a block and a law's score S(T, L) (mixstay_forms.h; formulas in
 * <routelab/bounds.h>, the distance in watson.c). */
#include "mixstay_forms.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/mem.h"
#include "../base/core/util.h"
#include "../sampling/family.h"

/* A power chi^delta below this in modulus is set to 0: its square (< 1e-300)
 * cannot move a sum of terms that start at 1 (delta' = 0), and the
 * subnormal range it would fall through next is slow arithmetic. */
#define MIXSTAY_TINY 1e-150
/* The most products with chi that bring the far step chi^gap up to a larger
 * gap; beyond, a fresh power by squaring (about 2 log2(gap) products) */
#define MIXSTAY_STEP_UP 8

struct rl_mixstay_ws {
    int n, k;       /* harmonics N; screen harmonics K = min(N, RL_MIXSTAY_SCREEN) */
    long t;         /* near laws delta' = 0 .. T-1 */
    double *near;   /* T rows of 2N: chi(k)^delta' / k, k = 1 .. N, (re, im) */
    double *near_s; /* T: sum_{k<=K} |row_k|^2 */
    double *far;    /* CHUNK rows of 2N: chi(k)^delta / k of a chunk of far lengths */
    double *far_s;  /* CHUNK: their screen norms */
    double *x;      /* CHUNK x T complex: the screen's cross terms sum_{k<=K} far_k conj(near_k) */
    double *step;   /* 2N: chi(k)^gap, the step between two far lengths */
    double *smin;   /* CHUNK: each far row's least screen value ... */
    long *sarg;     /* ... and its near length */
    int *order;     /* CHUNK: the rows by decreasing smin */
};

size_t rl_mixstay_ws_bytes(int n, long t, int *over)
{
    const size_t c = RL_MIXSTAY_CHUNK, row = rl_szmul(2 * sizeof(double), (size_t)n, over);
    size_t b = rl_szmul(row, (size_t)t, over);                               /* near */
    b = rl_szadd(b, rl_szmul(sizeof(double), (size_t)t, over), over);       /* near_s */
    b = rl_szadd(b, rl_szmul(row, c + 1, over), over);                      /* far, step */
    b = rl_szadd(b, rl_szmul(rl_szmul(2 * sizeof(double), (size_t)t, over), c, over), over); /* x */
    return rl_szadd(b, c * (2 * sizeof(double) + sizeof(long) + sizeof(int)), over);
}

void rl_mixstay_free(rl_mixstay_ws *ws)
{
    if (!ws)
        return;
    free(ws->near);
    free(ws->near_s);
    free(ws->far);
    free(ws->far_s);
    free(ws->x);
    free(ws->step);
    free(ws->smin);
    free(ws->sarg);
    free(ws->order);
    free(ws);
}

rl_status rl_mixstay_alloc(int n, long t, rl_mixstay_ws **ws, rl_err *err)
{
    if (!ws)
        return rl_fail(err, RL_EINPUT, "no workspace pointer (NULL)");
    *ws = NULL;
    RL_TRY(rl_mixstay_check(0, -1, 0, 0, t, t + 1, n, err)); /* n and T, as the search takes them */
    int over = 0;
    RL_TRY(rl_mem_check("the search's workspace", rl_mixstay_ws_bytes(n, t, &over), over, err));
    rl_mixstay_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    const size_t c = RL_MIXSTAY_CHUNK;
    w->n = n;
    w->k = n < RL_MIXSTAY_SCREEN ? n : RL_MIXSTAY_SCREEN;
    w->t = t;
    /* the sizes were checked for overflow above (rl_mixstay_ws_bytes) */
    if (!(w->near = rl_alloc(sizeof(double) * 2 * (size_t)n * (size_t)t, err)) ||
        !(w->near_s = rl_alloc(sizeof(double) * (size_t)t, err)) ||
        !(w->far = rl_alloc(sizeof(double) * 2 * (size_t)n * c, err)) ||
        !(w->far_s = rl_alloc(sizeof(double) * c, err)) ||
        !(w->x = rl_alloc(sizeof(double) * 2 * (size_t)t * c, err)) ||
        !(w->step = rl_alloc(sizeof(double) * 2 * (size_t)n, err)) ||
        !(w->smin = rl_alloc(sizeof(double) * c, err)) ||
        !(w->sarg = rl_alloc(sizeof(long) * c, err)) ||
        !(w->order = rl_alloc(sizeof(int) * c, err))) {
        rl_mixstay_free(w);
        return RL_ENOMEM;
    }
    *ws = w;
    return RL_OK;
}

long rl_mixstay_grid(long t, long l, long *grid)
{
    if (t < 1 || l <= t || !((double)l <= RL_MIXSTAY_MAX_LEN))
        return -1;
    /* every delta while the (far, near) pairs are affordable; else every
     * delta below 4T and then the lengths round(a 2^{j/P}) from the last
     * dense one a (P per octave), each kept once, and L - 1 */
    const int exact = (double)(l - t) * (double)t <= (double)RL_MIXSTAY_EXACT_PAIRS;
    const long dense = exact || l <= 4 * t ? l : 4 * t;
    long c = 0;
    for (long d = t; d < dense; d++, c++)
        if (grid)
            grid[c] = d;
    if (dense == l)
        return c;
    const double a = (double)(dense - 1);
    long prev = dense - 1;
    for (int j = 1;; j++) {
        const double v = nearbyint(a * exp2((double)j / RL_MIXSTAY_PER_OCTAVE));
        if (!(v < (double)(l - 1)))
            break;
        if ((long)v > prev) {
            prev = (long)v;
            if (grid)
                grid[c] = prev;
            c++;
        }
    }
    if (grid)
        grid[c] = l - 1;
    return c + 1;
}

const char *rl_mixstay_grid_text(long t, long l, char *buf, size_t n)
{
    const long c = rl_mixstay_grid(t, l, NULL);
    if (c < 0)
        snprintf(buf, n, "no far lengths (T = %ld, L = %ld)", t, l);
    else if (c == l - t)
        snprintf(buf, n, "every delta in [%ld, %ld] (exact, %ld lengths)", t, l - 1, c);
    else
        snprintf(buf, n, "every delta in [%ld, %ld], then %d per octave to %ld: a grid of %ld of the %ld lengths",
                 t, 4 * t - 1, RL_MIXSTAY_PER_OCTAVE, l - 1, c, l - t);
    return buf;
}

rl_status rl_mixstay_check(rl_angle_law law, int d, double base, double scale, long t, long l, int n, rl_err *err)
{
    if (n < 1 || n > RL_MIXSTAY_MAX_HARMONICS)
        return rl_fail(err, RL_EINPUT, "harmonics N must be 1 to %d, got %d", RL_MIXSTAY_MAX_HARMONICS, n);
    if (t < 1)
        return rl_fail(err, RL_EINPUT, "the training length T must be at least 1, got %ld", t);
    if (l <= t || !((double)l <= RL_MIXSTAY_MAX_LEN))
        return rl_fail(err, RL_EINPUT, "the length L must lie in (T, %g] = (%ld, %g], got %ld",
                       RL_MIXSTAY_MAX_LEN, t, RL_MIXSTAY_MAX_LEN, l);
    const double pairs = (double)rl_mixstay_grid(t, l, NULL) * (double)t;
    if (pairs > (double)RL_MIXSTAY_MAX_PAIRS)
        return rl_fail(err, RL_EINPUT, "T = %ld and L = %ld give %.3g (far, near) pairs per block, more "
                                        "than %.3g (a smaller T)", t, l, pairs, (double)RL_MIXSTAY_MAX_PAIRS);
    if (d < 0)
        return RL_OK;
    if ((int)law < 0 || law >= RL_ANG_COUNT)
        return rl_fail(err, RL_EINPUT, "unknown angle law %d (one of %s)", (int)law, RL_ANGLE_NAMES);
    if (d < 2 || d > 4096 || d % 2)
        return rl_fail(err, RL_EINPUT, "the head dimension must be even, 2 to 4096 (d/2 SO(2) blocks), got %d", d);
    if (!(base > 1 && isfinite(base)))
        return rl_fail(err, RL_EINPUT, "the base must be a finite number above 1, got %g", base);
    if (!(scale > 0 && isfinite(scale)))
        return rl_fail(err, RL_EINPUT, "the frequency scale must be a finite number above 0, got %g", scale);
    return RL_OK;
}

/* r <- q z elementwise (n complex numbers, (re, im) pairs; r may be q),
 * powers that fall below MIXSTAY_TINY set to 0.  Real arithmetic: C's
 * complex product checks every result for NaN (Annex G), which keeps the
 * loop scalar. */
static void row_mul(double *r, const double *q, const double *restrict z, int n)
{
    for (int k = 0; k < n; k++) {
        const double a = q[2 * k], b = q[2 * k + 1], c = z[2 * k], e = z[2 * k + 1];
        const double re = a * c - b * e, im = a * e + b * c;
        const int tiny = fabs(re) + fabs(im) < MIXSTAY_TINY;
        r[2 * k] = tiny ? 0.0 : re;
        r[2 * k + 1] = tiny ? 0.0 : im;
    }
}

/* sum_k |a_k - b_k|^2 over n complex numbers: the distance's sum, as
 * differences (no cancellation between |a|^2 + |b|^2 and the cross term).
 * Four partial sums, of the reals j = 0, 1, 2, 3 mod 4: four independent
 * chains of additions instead of one (a single chain waits on each add's
 * latency; it was most of the search's time), in a fixed order, so the same
 * bytes on every run. */
static double pair_sum(const double *restrict a, const double *restrict b, int n)
{
    double s[4] = { 0, 0, 0, 0 };
    int j = 0;
    for (; j + 4 <= 2 * n; j += 4)
        for (int q = 0; q < 4; q++) {
            const double e = a[j + q] - b[j + q];
            s[q] += e * e;
        }
    for (; j < 2 * n; j++) {
        const double e = a[j] - b[j];
        s[0] += e * e;
    }
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static double head_norm(const double *r, int k)
{
    double s = 0;
    for (int j = 0; j < 2 * k; j++)
        s += r[j] * r[j];
    return s;
}

/* The near rows: row delta' = (chi(k)^delta' / k)_k, delta' = 0 .. T-1, by
 * repeated multiplication (row 0 is 1/k: the point mass at angle 0, the
 * key at distance 0), and their screen norms. */
static void near_rows(rl_mixstay_ws *w, const double *chi)
{
    const int n = w->n;
    double *r = w->near;
    for (int k = 0; k < n; k++) {
        r[2 * k] = 1.0 / (k + 1);
        r[2 * k + 1] = 0;
    }
    for (long j = 1; j < w->t; j++)
        row_mul(r + 2L * n * j, r + 2L * n * (j - 1), chi, n);
    for (long j = 0; j < w->t; j++)
        w->near_s[j] = head_norm(r + 2L * n * j, w->k);
}

/* The far rows of lengths g[0 .. m-1]: the first from chi^g[0] by squaring
 * (rl_cpow_n), each next one from the last times chi^gap.  The step chi^gap
 * is kept between rows: in the dense part the gap is 1 (the step is chi);
 * on the geometric grid it grows by 0, 1 or a few from row to row, so the
 * step is brought up by as many products with chi (a fresh power by
 * squaring only when that would take more products, or the gap shrinks). */
static void far_rows(rl_mixstay_ws *w, const double *chi, const long *g, int m)
{
    const int n = w->n;
    const double complex *z = (const double complex *)chi;
    double *r = w->far;
    for (int k = 0; k < n; k++) {
        double complex p = rl_cpow_n(z[k], g[0]) / (k + 1);
        const int tiny = fabs(creal(p)) + fabs(cimag(p)) < MIXSTAY_TINY;
        r[2 * k] = tiny ? 0.0 : creal(p);
        r[2 * k + 1] = tiny ? 0.0 : cimag(p);
    }
    long gap = 0;
    for (int i = 1; i < m; i++) {
        const long want = g[i] - g[i - 1];
        if (gap > 0 && want >= gap && want - gap <= MIXSTAY_STEP_UP) {
            for (; gap < want; gap++)
                row_mul(w->step, w->step, chi, n);
        } else if (want != gap) {
            gap = want;
            for (int k = 0; k < n; k++) {
                double complex p = rl_cpow_n(z[k], gap);
                w->step[2 * k] = creal(p);
                w->step[2 * k + 1] = cimag(p);
            }
        }
        row_mul(r + 2L * n * i, r + 2L * n * (i - 1), w->step, n);
    }
    for (int i = 0; i < m; i++)
        w->far_s[i] = head_norm(r + 2L * n * i, w->k);
}

/* The running arg max: the least sum s of far length far, at its nearest
 * near length.  Ties: the far length met first (the search's order below). */
typedef struct {
    double s;
    long far, near;
} best_far;

/* Whether a far length whose least sum is at most s can no longer become
 * the arg max (it cannot exceed the running maximum). */
static int beaten(const best_far *b, double s)
{
    return s <= b->s;
}

/* The least sum over near lengths of far row i, exact for the truncated
 * sums, from the sum s0 at near length a0 already known: the screen's best
 * near law next, then every near law whose screen value (a lower bound: the
 * first K of the N nonnegative terms) is below the least sum found, in near
 * order (ties: the near length met first).  Without a curve to fill (whole
 * 0) it stops as soon as row i cannot become the arg max. */
static double row_min(const rl_mixstay_ws *w, int i, const best_far *b, int whole, double s0, long a0, long *arg)
{
    const int n = w->n;
    const double *fr = w->far + 2L * n * i, *xi = w->x + 2L * w->t * i, fs = w->far_s[i];
    long a = a0;
    double best = s0;
    const long j0 = w->sarg[i];
    if (j0 != a0) {
        const double e = pair_sum(fr, w->near + 2L * n * j0, n);
        if (e < best)
            best = e, a = j0;
    }
    for (long j = 0; j < w->t && best > 0 && (whole || !beaten(b, best)); j++) {
        if (j == j0 || j == a0)
            continue;
        const double sc = fs + w->near_s[j] - 2 * xi[2 * j];
        /* the screen's rounding (K terms, and |a|^2 + |b|^2 - 2 Re(a b*)):
         * far below 1e-12 of the magnitudes */
        if (sc - 1e-12 * (fs + w->near_s[j] + best) >= best)
            continue;
        const double e = pair_sum(fr, w->near + 2L * n * j, n);
        if (e < best)
            best = e, a = j;
    }
    *arg = a;
    return best;
}

/* The screen of the rows of a chunk: x = far[:, :K] near[:, :K]^H (the
 * first K terms of every cross term), each row's least screen value and its
 * near length, and the order of the rows by decreasing least value. */
static void screen(rl_mixstay_ws *w, int m)
{
    const double complex one = 1, zero = 0;
    const long t = w->t;
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, m, (int)t, w->k, &one, w->far, w->n, w->near, w->n,
                &zero, w->x, (int)t);
    for (int i = 0; i < m; i++) {
        const double *xi = w->x + 2L * t * i;
        double s = INFINITY;
        long a = 0;
        for (long j = 0; j < t; j++) {
            const double v = w->far_s[i] + w->near_s[j] - 2 * xi[2 * j];
            if (v < s)
                s = v, a = j;
        }
        w->smin[i] = s;
        w->sarg[i] = a;
        int p = i; /* insertion; among equal values the larger far length first */
        while (p > 0 && w->smin[w->order[p - 1]] <= s) {
            w->order[p] = w->order[p - 1];
            p--;
        }
        w->order[p] = i;
    }
}

/* D_b over the far lengths grid[0 .. nf-1] (curve: each one's least sum,
 * as a distance, when not NULL).  Chunks from the far end, rows from the
 * far end (where drifting and spreading laws are farthest from the near
 * ones: the running maximum is high early).  Each row's sum at the near
 * length that was nearest to the row before it comes first: a row already
 * at or below the running maximum cannot be the arg max and is dropped
 * after that one sum.  The chunk's screen runs only when some row is left
 * (and for the curve, whose every row needs its exact minimum). */
static void search(rl_mixstay_ws *w, const double complex *chi, const long *grid, long nf, rl_mixstay_block *out,
                   double *curve)
{
    const double *z = (const double *)chi;
    const int n = w->n;
    near_rows(w, z);
    best_far b = { -1, -1, -1 };
    long guess = w->t - 1; /* the widest near law */
    double s0[RL_MIXSTAY_CHUNK];
    int left[RL_MIXSTAY_CHUNK];
    const long nchunk = (nf + RL_MIXSTAY_CHUNK - 1) / RL_MIXSTAY_CHUNK;
    for (long c = nchunk - 1; c >= 0; c--) {
        const long i0 = c * RL_MIXSTAY_CHUNK;
        const int m = (int)(nf - i0 < RL_MIXSTAY_CHUNK ? nf - i0 : RL_MIXSTAY_CHUNK);
        far_rows(w, z, grid + i0, m);
        int nleft = 0;
        const long g0 = guess; /* the near length of every s0[i] */
        for (int i = m - 1; i >= 0; i--) {
            s0[i] = pair_sum(w->far + 2L * n * i, w->near + 2L * n * g0, n);
            left[i] = curve || !beaten(&b, s0[i]);
            nleft += left[i];
        }
        if (!nleft)
            continue;
        screen(w, m);
        for (int q = 0; q < m; q++) {
            const int i = w->order[q];
            if (!left[i])
                continue;
            long a;
            const double s = row_min(w, i, &b, curve != NULL, s0[i], g0, &a);
            if (curve)
                curve[i0 + i] = rl_watson_from_sum(s, n, NULL);
            if (!beaten(&b, s)) {
                b = (best_far){ s, grid[i0 + i], a };
                guess = a;
            }
        }
    }
    out->lo = rl_watson_from_sum(b.s, n, &out->hi);
    out->far = b.far;
    out->near = b.near;
}

rl_status rl_mixstay_chi_ws(rl_mixstay_ws *ws, const double complex *chi, long l, rl_mixstay_block *out,
                            double *curve, rl_err *err)
{
    if (!ws || !out)
        return rl_fail(err, RL_EINPUT, "no workspace or output (NULL)");
    RL_TRY(rl_watson_check("chi", chi, ws->n, err));
    RL_TRY(rl_mixstay_check(0, -1, 0, 0, ws->t, l, ws->n, err));
    const long nf = rl_mixstay_grid(ws->t, l, NULL);
    long *grid = rl_alloc_array((size_t)nf, sizeof(long), err);
    if (!grid)
        return RL_ENOMEM;
    rl_mixstay_grid(ws->t, l, grid);
    search(ws, chi, grid, nf, out, curve);
    free(grid);
    return RL_OK;
}

size_t rl_mixstay_block_sizeof(void)
{
    return sizeof(rl_mixstay_block);
}

rl_status rl_mixstay_chi(const double complex *chi, int n, long t, long l, rl_mixstay_block *out, double *curve,
                         rl_err *err)
{
    RL_TRY(rl_watson_check("chi", chi, n, err));
    RL_TRY(rl_mixstay_check(0, -1, 0, 0, t, l, n, err));
    if (!out)
        return rl_fail(err, RL_EINPUT, "no output (NULL)");
    rl_mixstay_ws *ws;
    RL_TRY(rl_mixstay_alloc(n, t, &ws, err));
    rl_status s = rl_mixstay_chi_ws(ws, chi, l, out, curve, err);
    rl_mixstay_free(ws);
    return s;
}

rl_status rl_mixstay_law(rl_angle_law law, int d, double base, double scale, long t, long l, int n,
                         rl_mixstay_block *blocks, double *score, rl_err *err)
{
    /* rl_mixstay_check reads d < 0 as "no law to check" (the search alone) */
    if (d < 0)
        return rl_fail(err, RL_EINPUT, "the head dimension must be even, 2 to 4096 (d/2 SO(2) blocks), got %d", d);
    RL_TRY(rl_mixstay_check(law, d, base, scale, t, l, n, err));
    if (!blocks || !score)
        return rl_fail(err, RL_EINPUT, "no output (NULL)");
    const int nb = d / 2;
    /* one workspace per thread, planned together (blocks run in parallel;
     * each block's numbers do not depend on the thread that runs it) */
    const int nt = omp_get_max_threads() < nb ? omp_get_max_threads() : nb;
    int over = 0;
    size_t need = rl_szmul(rl_mixstay_ws_bytes(n, t, &over), (size_t)nt, &over);
    need = rl_szadd(need, rl_szmul(sizeof(double complex) * (size_t)n, (size_t)nt, &over), &over);
    RL_TRY(rl_mem_check("the search's workspaces", need, over, err));
    rl_mixstay_ws *ws[nt];
    for (int i = 0; i < nt; i++) {
        rl_status s = rl_mixstay_alloc(n, t, &ws[i], err);
        if (s != RL_OK) {
            while (i-- > 0)
                rl_mixstay_free(ws[i]);
            return s;
        }
    }
    const long nf = rl_mixstay_grid(t, l, NULL);
    double *omega = rl_alloc_array((size_t)nb, sizeof(double), err);
    double complex *chi = omega ? rl_alloc_array((size_t)n * (size_t)nt, sizeof(double complex), err) : NULL;
    long *grid = chi ? rl_alloc_array((size_t)nf, sizeof(long), err) : NULL;
    if (!grid) {
        free(chi);
        free(omega);
        for (int i = 0; i < nt; i++)
            rl_mixstay_free(ws[i]);
        return RL_ENOMEM;
    }
    rl_mixstay_grid(t, l, grid);
    rl_so2_freqs(d, base, scale, omega);
#pragma omp parallel for num_threads(nt) schedule(dynamic)
    for (int b = 0; b < nb; b++) {
        const int i = omp_get_thread_num();
        double complex *c = chi + (size_t)n * i;
        rl_angle_harmonics(law, omega[b], n, c);
        search(ws[i], c, grid, nf, &blocks[b], NULL);
    }
    double lo = 0, hi = 0;
    for (int b = 0; b < nb; b++) /* in block order: the same sum for any thread count */
        lo += blocks[b].lo, hi += blocks[b].hi;
    score[0] = lo / nb;
    score[1] = hi / nb;
    free(grid);
    free(chi);
    free(omega);
    for (int i = 0; i < nt; i++)
        rl_mixstay_free(ws[i]);
    return RL_OK;
}

rl_status rl_mixstay_family(const rl_family *f, long t, long l, int n, rl_mixstay_block *blocks, double *score,
                            rl_err *err)
{
    if (!f)
        return rl_fail(err, RL_EINPUT, "no family (NULL)");
    if (f->kind != RL_FAM_SO2)
        return rl_fail(err, RL_EINPUT, "the mix-or-stay condition takes an so2 family (block-diagonal SO(2) "
                                       "steps), got %s", rl_family_name(f->kind));
    return rl_mixstay_law(f->law, f->d, f->base, f->scale, t, l, n, blocks, score, err);
}
