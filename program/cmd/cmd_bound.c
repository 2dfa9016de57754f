/* cmd_bound.c: `routelab bound NAME`, the theory as a calculator. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../api/include/routelab/defaults.h"
#include "commands.h"
#include "../../base/core/util.h"
#include "../../sampling/family_cli.h"
#include "../../sampling/so2.h"
#include "../../sampling/tokens.h"
#include "../../theory/theory.h"
#include "../../theory/matched.h"
#include "../../theory/study.h"
#include "../../theory/moment2.h"
#include "../../theory/mixstay_forms.h"
#include "../../mc/moment2_brownian.h"
#include "../../mc/moment2_mc.h"

/* Everything a bound may read; each bound names the flags it takes. */
typedef struct {
    rl_family_args fa;
    int block;
    double t, eps, norm, ml, k, lambda, slope, rho, vnorm, c;
    const char *a;
    int best;
    int head_dim, harmonics;
    long ctx, mult, length;
    long samples;
    long seed;
    rl_opt *opts;
} bound_args;

typedef double (*bound_fn)(bound_args *);

/* A token-SO(2) family read with --text: the unigram law p_v of its tokens
 * (malloc'ed; NULL for any other family or without --text).  The tokens
 * go to *tok, *ntok when tok is given (freed by the caller), else are
 * freed here.  A file that cannot be read ends the command (status 2),
 * table freed first. */
static double *text_unigram(bound_args *x, rl_family *f, double *table, int **tok, long *ntok)
{
    if (f->kind != RL_FAM_TOKEN_SO2 || !x->fa.text)
        return NULL;
    rl_err err;
    int *t;
    long n;
    rl_status ts = rl_family_tokens(&x->fa, f, 0, 0, 0, &t, &n, &err);
    if (ts != RL_OK)
        free(table);
    rl_check_in("bound", ts, &err);
    double *probs = rl_xmalloc(sizeof(double) * f->vocab);
    rl_tokens_unigram(t, n, f->vocab, probs);
    if (tok) {
        *tok = t;
        *ntok = n;
    } else
        free(t);
    return probs;
}

/* ||E M|| (as_log 0) or log ||E M|| (as_log 1, exact for slow blocks) of
 * the family the flags name: the slowest block, or --block B.  A family
 * with no closed form, or a mean whose error bound is not below tol (norm:
 * 1e-9; window: 1e-7 (1 - |c|), since W divides by 1 - |c|), is refused
 * (rl_family_norm_certain). */
static double family_norm(bound_args *x, const char *cmd, int as_log)
{
    double *table, *probs = NULL, v;
    rl_family f;
    rl_err err;
    rl_check_in("bound", rl_family_from_args(&x->fa, x->opts, RL_BOUND_TABLE_SEED, RL_BOUND_TABLE_STREAM, &f,
                                             &table, &err), &err);
    probs = text_unigram(x, &f, table, NULL, NULL);
    /* the library's one computation (theory/family_window.c, also
     * rl_family_norm / rl_family_window's) */
    rl_status st = rl_family_norm_at(&f, probs, x->block, as_log, &v, &err);
    free(probs);
    free(table);
    if (st != RL_OK)
        rl_err_prefix(&err, "bound %s", cmd);
    rl_check(st, &err);
    return v;
}

static double b_norm(bound_args *x)
{
    return family_norm(x, "norm", 0);
}

/* norm2: the second-moment certificate (theory/moment2.h): closed form, the
 * sample estimate +- jackknife SE (d <= RL_MOMENT2_MAX_D), W2(eps), and per
 * SO(2) block the length at which it meets the hypothesis.  Prints lines
 * opening with '#', then W2 (of the closed form, else of the estimate) as
 * the one number. */
static double b_norm2(bound_args *x)
{
    double *table, *probs = NULL;
    int *tok = NULL;
    long ntok = 0;
    rl_family f;
    rl_err err;
    rl_check_in("bound", rl_family_from_args(&x->fa, x->opts, 1, 0, &f, &table, &err), &err);
    /* Brownian: --samples also sets the character estimate's draws, at any d;
     * the d^4 estimate beside it only where it fits */
    const int want = rl_opt_seen(x->opts, "samples")
                         ? x->samples > 0 && (f.kind != RL_FAM_BROWNIAN || f.d <= RL_MOMENT2_MAX_D)
                         : f.d <= RL_MOMENT2_MAX_D;
    if (want && f.d > RL_MOMENT2_MAX_D) {
        free(table);
        rl_die("bound norm2: --samples needs d <= %d (the estimate forms d^2 x d^2 matrices), got d = %d",
               RL_MOMENT2_MAX_D, f.d);
    }
    probs = text_unigram(x, &f, table, &tok, &ntok);
    const int h = rl_family_is_so2(&f) ? f.d / 2 : 0;
    double *diag = rl_xmalloc(sizeof(double) * (h + 1)), *brate = rl_xmalloc(sizeof(double) * (h + 1));
    rl_moment2 m;
    rl_moment2_closed(&f, probs, &m, diag, brate);
    /* Brownian without a closed form: the character estimate, at any d */
    const int chars = f.kind == RL_FAM_BROWNIAN && isnan(m.rate);
    rl_moment2_est ce;
    if (chars) {
        rl_status cs = rl_moment2_brownian(f.d, f.sigma, x->samples > 0 ? x->samples : 10000,
                                           (unsigned long)x->seed, &ce, &err);
        if (cs != RL_OK) {
            free(diag);
            free(brate);
            free(table);
            rl_check_in("bound", cs, &err);
        }
    }
    if (isnan(m.rate) && !want && !chars) { /* freed first: the sanitizer build counts what exit leaves */
        free(diag);
        free(brate);
        free(probs);
        free(tok);
        free(table);
        rl_die("bound norm2: %s at d = %d has no closed form and the estimate needs d <= %d",
               rl_family_name(f.kind), f.d, RL_MOMENT2_MAX_D);
    }
    rl_moment2_est e; /* drawn before any output: a failure leaves stdout empty */
    rl_status est = want ? rl_moment2_estimate_family(&f, tok, ntok, x->samples,
                                                     (unsigned long)x->seed, &e, &err) : RL_OK;
    if (est != RL_OK) {
        free(diag);
        free(brate);
        free(probs);
        free(tok);
        free(table);
        rl_check_in("bound", est, &err);
    }
    printf("# T(X) = E[M X M^T] of %s, d = %d: fixed space F of dim %d; E[(q^T P_n k)^2] settles "
           "at <= %.6g |q|^2 |k|^2 (Haar: 1/d = %.6g)\n",
           rl_family_name(f.kind), f.d, m.fixdim, m.limit_max, 1.0 / f.d);
    double mn;
    if (rl_family_closed_mean_norm(&f, probs, NULL, &mn, NULL))
        printf("# ||E M||_op closed form: %.6g\n", mn);
    else
        printf("# ||E M||_op: no closed form\n");
    if (!isnan(m.rate))
        printf("# rate ||T on F^perp||_op closed form: %.9g\n", m.rate);
    double rate = m.rate;
    if (chars) {
        /* the upper end certifies: a rate read low would certify too early */
        printf("# rate from characters (T is a scalar on the symmetric traceless and skew parts): %.6g +- %.2g, "
               "N = %ld; upper end (+5 SE) %.6g\n", ce.rate, ce.se, ce.n, rl_moment2_upper(&ce));
        rate = rl_moment2_upper(&ce);
    }
    if (want) {
        printf("# rate estimate: %.6g +- %.2g (jackknife SE, %d batches), noise floor %.2g, N = %ld; "
               "||mean M|| = %.4g\n", e.rate, e.se, RL_MOMENT2_BATCHES, e.noise, e.n, e.mean_norm);
        if (isnan(rate))
            rate = e.rate;
    }
    long w = rl_mixing_window(rate, x->eps);
    if (w < 0)
        printf("# W2(eps = %g) = never: no certificate (rate 1)\n", x->eps);
    else
        printf("# W2(eps = %g) = ceil(log(1/eps)/log(1/rate)) = %ld%s\n", x->eps, w,
               chars ? " (of the characters' upper end)" : isnan(m.rate) ? " (of the estimate)" : "");
    if (h) {
        double omega[h];
        rl_so2_freqs(f.d, f.base, f.scale, omega);
        /* n_hyp_b: the length from which block b meets claim 2's hypothesis,
         * rate_b^n <= 1/d (rl_moment2_unmet, theory/moment2.h) */
        printf("# block omega_b |E e^{2i theta_b}| rate_b(with cross terms) W2_b(eps) n_hyp_b(rate_b^n <= 1/d)\n");
        for (int b = 0; b < h; b++) {
            long wb = rl_mixing_window(brate[b], x->eps), hb = rl_mixing_window(brate[b], 1.0 / f.d);
            char wt[32], ht[32];
            snprintf(wt, sizeof wt, wb < 0 ? "never" : "%ld", wb);
            snprintf(ht, sizeof ht, hb < 0 ? "never" : "%ld", hb);
            printf("# %d %.6g %.6g %.6g %s %s\n", b, f.kind == RL_FAM_SO2 ? omega[b] : NAN, diag[b],
                   brate[b], wt, ht);
        }
    }
    free(diag);
    free(brate);
    free(probs);
    free(tok);
    free(table);
    return w < 0 ? INFINITY : (double)w;
}

/* The window of --norm, or of a family when family flags or --block are
 * given (from log ||E M||, so that slow blocks come out exact). */
static double b_window(bound_args *x)
{
    const int fam = rl_family_flag_seen(x->opts) || rl_opt_seen(x->opts, "block");
    if (fam && rl_opt_seen(x->opts, "norm"))
        rl_die("bound window: --norm and the family flags exclude each other");
    long w = fam ? rl_mixing_window_log(family_norm(x, "window", 1), x->eps)
                 : rl_mixing_window(x->norm, x->eps);
    /* undefined (a NaN input): NaN, which the last guard refuses */
    return w == RL_WINDOW_UNDEFINED ? NAN : w < 0 ? INFINITY : (double)w;
}

static double b_levy(bound_args *x) { return rl_levy_tail(x->fa.d, x->t); }
static double b_levy_so(bound_args *x) { return rl_levy_so_tail(x->fa.d, x->t); }
static double b_beta_tail(bound_args *x) { return rl_beta_tail(x->fa.d, x->t); }

static double b_hoeffding(bound_args *x)
{
    if (x->a) {
        if (rl_opt_seen(x->opts, "d"))
            rl_die("bound hoeffding: --d does not apply with --a (the list gives the blocks)");
        double a[4096];
        int nb = rl_parse_doubles("--a", x->a, a, 4096);
        for (int b = 0; b < nb; b++)
            if (!(a[b] >= 0))
                rl_die("bound hoeffding: --a values must be non-negative, got %g", a[b]);
        return rl_hoeffding_so2(x->t, a, nb);
    }
    if (x->fa.d % 2)
        rl_die("bound hoeffding: --d must be even (d/2 SO(2) blocks), got %d", x->fa.d);
    /* unit q, k spread evenly: ||q_b|| = ||k_b|| = sqrt(2/d), a_b = 2/d */
    int nb = x->fa.d / 2;
    double a[nb];
    for (int b = 0; b < nb; b++)
        a[b] = 2.0 / x->fa.d;
    return rl_hoeffding_so2(x->t, a, nb);
}

static double b_farmass(bound_args *x) { return rl_farmass_lower(x->ml, x->k, x->lambda); }
static double b_farmass_upper(bound_args *x) { return rl_farmass_upper(x->ml, x->k, x->lambda); }
static double b_farmass_half(bound_args *x) { return rl_farmass_half(x->k, x->lambda); }
static double b_alibi(bound_args *x) { return rl_farmass_alibi(x->ml, x->k, x->lambda, x->slope, x->best); }
static double b_farmass_log(bound_args *x) { return rl_farmass_lower_log(x->ml, x->k, x->lambda); }
static double b_farmass_half_log(bound_args *x) { return rl_farmass_half_log(x->k, x->lambda); }
static double b_alibi_log(bound_args *x) { return rl_farmass_alibi_log(x->ml, x->k, x->lambda, x->slope, x->best); }
static double b_value_coherent(bound_args *x) { return rl_value_coherent(x->rho, x->vnorm); }

/* value-incoherent sums over M = --ml far tokens, a count: a whole number
 * that a double holds exactly (2^53), so that the cast to long is exact. */
#define VALUE_ML_MAX 9007199254740992.0

static double b_value_incoherent(bound_args *x)
{
    if (!(x->ml <= VALUE_ML_MAX) || x->ml != floor(x->ml))
        rl_die("bound value-incoherent: --ml %g must be a whole number of far tokens, at most 2^53 = %.0f",
               x->ml, VALUE_ML_MAX);
    double complex chi = x->c;
    double v2 = x->vnorm * x->vnorm;
    return rl_value_incoherent(x->rho, (long)x->ml, 1, &chi, &v2);
}

/* match: the base at which a head of --head-dim at T = --ctx has the study's
 * fractions of blocks mixing within T and mult*T (theory/matched.h, with its
 * rule for "best"); the study's fractions, the study's base as the control,
 * then the chosen base as the one number. */
static double b_match(bound_args *x)
{
    rl_err err;
    rl_match_query q = { x->head_dim, x->ctx, x->mult, x->eps, 0, 0, RL_STUDY_BASE };
    rl_match m;
    int c1, c2;
    const long t0 = rl_study_lengths[0];
    rl_check_in("bound match", rl_match_study(x->eps, x->mult, &q.f_ctx, &q.f_far, &err), &err);
    rl_check_in("bound match", rl_match_choose(&q, &m, &err), &err);
    rl_check_in("bound match", rl_match_count(q.d, RL_STUDY_BASE, q.eps, q.ctx, &c1, &err), &err);
    rl_check_in("bound match", rl_match_count(q.d, RL_STUDY_BASE, q.eps, q.ctx * q.mult, &c2, &err), &err);
    const int snb = RL_STUDY_HEAD_DIM / 2;
    printf("# study: head dim %d, base %g, T = %ld, eps = %g: %.0f of %d blocks mix within T (%.4f), "
           "%.0f of %d within %ldT = %ld (%.4f)\n", RL_STUDY_HEAD_DIM, RL_STUDY_BASE, t0, q.eps,
           q.f_ctx * snb, snb, q.f_ctx, q.f_far * snb, snb, q.mult, t0 * q.mult, q.f_far);
    printf("# head dim %d, T = %ld, base %g (study's, control): %d of %d within T (%.4f), %d of %d within "
           "%ldT = %ld (%.4f)\n", q.d, q.ctx, RL_STUDY_BASE, c1, m.nb, (double)c1 / m.nb, c2, m.nb, q.mult,
           q.ctx * q.mult, (double)c2 / m.nb);
    printf("# matched: least |c_T - %d f_T| + |c_%ldT - %d f_%ldT| = %.4g blocks over bases [%g, %g] "
           "(%d interval%s at that cost; the nearest to %g taken); bases in (%.6g, %.6g) give the same counts\n",
           m.nb, q.mult, m.nb, q.mult, m.cost, RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX, m.ties,
           m.ties == 1 ? "" : "s", RL_STUDY_BASE, m.lo, m.hi);
    printf("# head dim %d, T = %ld, base %.6g (chosen): %d of %d within T (%.4f), %d of %d within %ldT = %ld (%.4f)\n",
           q.d, q.ctx, m.base, m.at_ctx, m.nb, (double)m.at_ctx / m.nb, m.at_far, m.nb, q.mult, q.ctx * q.mult,
           (double)m.at_far / m.nb);
    return m.base;
}

/* mixstay: routelab's mix-or-stay condition (theory/mixstay_forms.h) for the so2
 * head the flags name: per block D_b(T, L), its arg max far length and
 * nearest near length, the bracket of the truncated distance, then the
 * score S(T, L) (the lower end) as the one number. */
static double b_mixstay(bound_args *x)
{
    if (rl_opt_seen(x->opts, "length") && rl_opt_seen(x->opts, "mult"))
        rl_die("bound mixstay: --length and --mult exclude each other (L = --length, or L = mult*T)");
    const long t = x->ctx, mult = rl_opt_seen(x->opts, "mult") ? x->mult : RL_MIXSTAY_MULT;
    if (!rl_opt_seen(x->opts, "length") && (double)t * (double)mult > RL_MIXSTAY_MAX_LEN)
        rl_die("bound mixstay: T x mult = %ld x %ld is beyond %g", t, mult, RL_MIXSTAY_MAX_LEN);
    const long l = rl_opt_seen(x->opts, "length") ? x->length : t * mult;
    const int d = x->fa.d, n = x->harmonics;
    /* the so2 head of the flags (--angles, --base, --scale) */
    rl_family_args so2 = x->fa;
    so2.kind = RL_FAM_SO2;
    const rl_family h = rl_family_of_args(&so2);
    rl_err err;
    rl_check_in("bound mixstay", rl_mixstay_check(h.law, d, h.base, h.scale, t, l, n, &err), &err);
    const int nb = d / 2;
    rl_mixstay_block *bl = rl_xmalloc(sizeof *bl * nb);
    double score[2], *omega = rl_xmalloc(sizeof(double) * nb);
    rl_status st = rl_mixstay_law(h.law, d, h.base, h.scale, t, l, n, bl, score, &err);
    if (st != RL_OK) {
        free(bl);
        free(omega);
        rl_check_in("bound mixstay", st, &err);
    }
    rl_so2_freqs(d, h.base, h.scale, omega);
    char law[32], grid[200];
    printf("# routelab's mix-or-stay condition: so2 angles %s, head dim %d (%d blocks), omega_b = %g*%g^(-2b/%d)\n",
           rl_choice_name(RL_ANGLE_NAMES, h.law, law, sizeof law), d, nb, h.scale, h.base, d);
    printf("# T = %ld, L = %ld (%gT); far: %s; near: every delta' in [0, %ld]\n", t, l, (double)l / t,
           rl_mixstay_grid_text(t, l, grid, sizeof grid), t - 1);
    printf("# D_b = max_far min_near d_U(mu_delta, mu_delta'), Watson's distance truncated at N = %d harmonics "
           "(lo); the exact value lies in [lo, hi], hi = sqrt(lo^2 + 2/(pi^2 N)) (at most %.3g above lo)\n",
           n, sqrt(2.0 / (M_PI * M_PI * n)));
    printf("# block omega_b |chi_b(1)| D_b_lo D_b_hi far_delta near_delta\n");
    for (int b = 0; b < nb; b++)
        printf("# %d %.6g %.6g %.6g %.6g %ld %ld\n", b, omega[b], cabs(rl_angle_charfn(h.law, omega[b])), bl[b].lo,
               bl[b].hi, bl[b].far, bl[b].near);
    printf("# S(T, L) = mean_b D_b = %.6g (bracket [%.6g, %.6g])\n", score[0], score[0], score[1]);
    free(bl);
    free(omega);
    return score[0];
}

struct bound {
    const char *name;
    bound_fn fn;
    const char *flags; /* space-separated flags it takes (family flags: "FAMILY") */
    const char *what;
    int never; /* the result inf means "never" (a window with no certificate) */
};

static const struct bound bounds[] = {
    { "norm", b_norm, "FAMILY block", "||E[M]||_op of a step family (SO(2): max over blocks, or --block B)", 0 },
    { "norm2", b_norm2, "FAMILY samples seed eps",
      "second-moment certificate: ||E[M X M^T] on F^perp||, W2(eps) (prints # lines, then W2)", 1 },
    { "window", b_window, "FAMILY block norm eps", "mixing window W(eps) = ceil(log(1/eps)/log(1/norm)) (inf: never), "
                                                 "of --norm or of a family (slowest block, or --block B)", 1 },
    { "levy", b_levy, "d t", "cap bound (Ball) 2 exp(-d t^2/2) on P(|<e,u>| >= t), u uniform on S^{d-1}", 0 },
    { "cap", b_levy, "d t", "the same cap bound (Ball) under its own name", 0 },
    { "levy-so", b_levy_so, "d t", "Levy on SO(d): 2 exp(-(d-2) t^2/8) on P(|f - E f| >= t), f 1-Lipschitz (HS)", 0 },
    { "beta-tail", b_beta_tail, "d t", "exact P(|<e,u>| >= t): <e,u>^2 ~ Beta(1/2, (d-1)/2)", 0 },
    { "hoeffding", b_hoeffding, "d t a", "Hoeffding 2 exp(-t^2/(2 sum a_b^2)) for SO(2) block scores "
                                         "(--a a_b list, or unit q,k spread over d/2 blocks)", 0 },
    { "farmass", b_farmass, "ml k lambda", "far-mass lower bound M/(M + K e^{2 lambda}) (exp(LOG) when below 2.2e-308)", 0 },
    { "farmass-upper", b_farmass_upper, "ml k lambda", "far-mass upper bound M/(M + K e^{-2 lambda})", 0 },
    { "farmass-half", b_farmass_half, "k lambda", "far tokens at which the lower bound reaches 1/2: K e^{2 lambda} (exp(LOG) past 1.8e308)", 0 },
    { "alibi", b_alibi, "ml k lambda slope best", "far mass under an ALiBi bias: worst case (or --best)", 0 },
    { "value-coherent", b_value_coherent, "rho vnorm", "far value norm without transport: rho ||v||", 0 },
    { "value-incoherent", b_value_incoherent, "rho vnorm ml c",
      "rms far value norm with transport, E[M] = cI: rho ||v|| sqrt(S(c,M))/M", 0 },
    { "match", b_match, "head-dim ctx mult eps",
      "the rotation base at which the fractions of SO(2) blocks mixing within T and mult*T (eps "
      "default 0.1) best match the study's (prints # lines, then the base)", 0 },
    { "mixstay", b_mixstay, "d angles base scale ctx mult length harmonics",
      "routelab's mix-or-stay condition: per SO(2) block, the far angle laws' Watson distance to the "
      "nearest law met within T (prints # lines, then the score S)", 0 },
};

/* The bounds that underflow (or overflow) a double, with their logs: printed
 * as exp(LOG) when the value is not a normal double. */
static bound_fn log_form(const char *name)
{
    static const struct { const char *name; bound_fn fn; } logs[] = {
        { "farmass", b_farmass_log }, { "farmass-half", b_farmass_half_log }, { "alibi", b_alibi_log }
    };
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++)
        if (!strcmp(name, logs[i].name))
            return logs[i].fn;
    return NULL;
}

static int takes(const struct bound *b, const char *flag)
{
    /* the family flags: those of the shared option table (family_cli.h) */
    rl_family_args fa = rl_family_args_default();
    rl_opt fam[RL_FAMILY_OPTS_MAX];
    const int nf = rl_family_opts(&fa, fam);
    if (strstr(b->flags, "FAMILY"))
        for (int i = 0; i < nf; i++)
            if (!strcmp(flag, fam[i].name))
                return 1;
    size_t n = strlen(flag);
    for (const char *p = b->flags; (p = strstr(p, flag)); p += n)
        if ((p == b->flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

int cmd_bound(int argc, char **argv)
{
    /* eps and block: the table the Python module reads too (<routelab/defaults.h>) */
    bound_args x = { .fa = rl_family_args_default(), .block = (int)rl_default("block"), .t = 0.5,
                     .eps = rl_default("eps"), .norm = 0.9,
                     .ml = 1000, .k = 8, .lambda = 1, .slope = 0.0625, .rho = 1, .vnorm = 1, .c = 0,
                     .samples = 10000, .seed = 1, .head_dim = 32, .ctx = 128, .mult = rl_study_mult(),
                     .harmonics = RL_MIXSTAY_HARMONICS, .length = 0 };
    const rl_opt rest[] = {
        RL_OPT_BLOCK_(&x.block),
        RL_OPT_DBL_("t", &x.t, "threshold t", 0, 0, RL_LO),
        RL_OPT_EPS_(&x.eps),
        RL_OPT_DBL_("norm", &x.norm, "spectral norm ||E[M]|| (of an orthogonal step: at most 1)", 0, 1, RL_LO | RL_HI),
        RL_OPT_STR_("a", &x.a, "hoeffding: comma-separated block ranges a_b = ||q_b|| ||k_b||"),
        RL_OPT_DBL_("ml", &x.ml, "far tokens M_L", 1, 0, RL_LO),
        RL_OPT_DBL_("k", &x.k, "near tokens K", 0, 0, RL_LO_OPEN),
        RL_OPT_DBL_("lambda", &x.lambda, "logit bound lambda", 0, 0, RL_LO),
        RL_OPT_DBL_("slope", &x.slope, "ALiBi slope m", 0, 0, RL_LO),
        RL_OPT_FLAG_("best", &x.best, "alibi: the lower bound (far -lambda, near +lambda)"),
        RL_OPT_DBL_("rho", &x.rho, "far attention mass rho_D", 0, 1, RL_LO | RL_HI),
        RL_OPT_DBL_("vnorm", &x.vnorm, "norm of the shared value component", 0, 0, RL_LO),
        RL_OPT_LONG_("samples", &x.samples, "norm2: steps drawn for the estimate (0: closed form only; brownian: also the character estimate's draws, any d)", 0, 100000000),
        RL_OPT_SEED_(&x.seed),
        RL_OPT_DBL_("c", &x.c, "scalar mean step E[M] = cI", -1, 1, RL_LO | RL_HI),
        RL_OPT_INT_("head-dim", &x.head_dim, "match: head dimension (even; d/2 SO(2) blocks)", 2, RL_MATCH_MAX_D),
        RL_OPT_LONG_("ctx", &x.ctx, "match, mixstay: training length T", 1, 1e12),
        RL_OPT_LONG_("mult", &x.mult, "match, mixstay: the far length is mult*T (default: match the study's 65,536 / "
                                      "512, mixstay 16)", 1, 1e6),
        RL_OPT_LONG_("length", &x.length, "mixstay: the length L itself (instead of --mult)", 2, RL_MIXSTAY_MAX_LEN),
        RL_OPT_INT_("harmonics", &x.harmonics, "mixstay: harmonics N of Watson's distance (bracket width "
                                               "sqrt(2/(pi^2 N)))", 1, RL_MIXSTAY_MAX_HARMONICS),
        RL_OPT_END_
    };
    rl_opt optbuf[RL_FAMILY_OPTS_MAX + sizeof rest / sizeof *rest];
    rl_opt *opts = rl_family_opts_join(&x.fa, rest, optbuf, (int)(sizeof optbuf / sizeof *optbuf));
    if (!opts) { /* optbuf is sized for the family's entries and rest: never here */
        rl_err e;
        rl_check_in("bound", rl_fail(&e, RL_EINTERNAL, "the flag table does not fit its buffer"), &e);
    }
    x.opts = opts;
    char desc[4096];
    int off = snprintf(desc, sizeof desc, "Print one closed form or bound as a number (%%.17g; far-mass values beyond a double as exp(LOG)).  NAME is one of:\n");
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
        off += snprintf(desc + off, sizeof desc - off, "  %-17s %s\n", bounds[i].name, bounds[i].what);
    snprintf(desc + off, sizeof desc - off, "Example: routelab bound farmass --ml 65024 --k 8 --lambda 2");
    char *pos[1];
    int npos = rl_opts_parse("bound", "NAME [flags]", desc, opts, argc, argv, pos, 1);
    if (npos != 1)
        rl_die("bound: which bound? (see routelab bound --help)");
    const struct bound *b = NULL;
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
        if (!strcmp(pos[0], bounds[i].name))
            b = &bounds[i];
    if (!b)
        rl_die("bound: unknown bound '%s' (see routelab bound --help)", pos[0]);
    for (rl_opt *o = opts; o->type != RL_OPT_END; o++)
        if (o->seen && !takes(b, o->name))
            rl_die("bound %s: --%s does not apply (it takes: %s)", b->name, o->name, b->flags);
    if (!strcmp(b->name, "match") && !rl_opt_seen(opts, "eps"))
        x.eps = RL_MATCH_STUDY_EPS; /* the study's mixing regime is quoted at eps = 0.1 */
    double v = b->fn(&x);
    bound_fn logfn = log_form(b->name);
    /* the last guard: no NaN (nor exp(+-inf)) is printed as a result; inf
     * is a result only where it means "never" (the windows) */
    const int as_log = logfn && !(v >= DBL_MIN && v <= DBL_MAX);
    const double shown = as_log ? logfn(&x) : v;
    if (isnan(shown) || (isinf(shown) && (as_log || !(b->never && shown > 0))))
        rl_die("bound %s: the result at these inputs is not a finite number (%g): an input is "
               "outside the range the formula can be evaluated in", b->name, shown);
    if (as_log)
        printf("exp(%.17g)\n", shown);
    else
        printf("%.17g\n", v);
    return 0;
}
