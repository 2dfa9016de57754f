/* test_edges.c: no call of the library's closed forms and family surface
 * (<routelab/bounds.h>, <routelab/family.h>) ends or hangs its caller
 * (docs/library-robustness.md#closed-forms-never-exit).  Every public function is driven with the
 * edge and bad values of each argument (NaN, +-inf, negative, zero, the smallest
 * and largest numbers, sizes beyond any buffer the header allows), every
 * combination of them, in a child process under an alarm: the test fails
 * when the child is ended by a signal (GSL's default handler aborts), exits
 * by itself (rl_fatal) or outlives the alarm (a loop that never ends), and
 * names the call that did it.  Each result must also be what its header
 * promises: NaN, or a number in the stated range (a probability in [0, 1], a
 * log <= 0, a window >= 1 or one of its two codes), or a refused status with
 * one line. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../api/include/routelab/bounds.h"
#include "../api/include/routelab/family.h"
#include "../api/include/routelab/mc.h"
#include "../api/include/routelab/model.h"
#include "helpers.h"

/* ---- the harness ---------------------------------------------------------- */

/* The seconds one call may take: every call below takes well under a
 * second when it does not loop (the slowest, a 64-dimensional family's
 * sampling, milliseconds); 20 leaves room for a loaded machine, and a loop
 * that never ends still outlives it. */
#define EDGE_ALARM_S 20

/* Shared with the child: the call it is in (written before each call) and,
 * when a promise is broken, what was wrong. */
typedef struct {
    char call[256];
    char broken[512];
} edge_note;
static edge_note *note_;

static void at(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note_->call, sizeof note_->call, fmt, ap);
    va_end(ap);
    alarm(EDGE_ALARM_S); /* each call its own time */
}

/* Record a broken promise of the current call; the child then stops. */
static int broke(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note_->broken, sizeof note_->broken, fmt, ap);
    va_end(ap);
    return 1;
}


/* Run sweep() in a child, each call under the alarm; fail with the call it was in when
 * it does not come back with 0. */
static void harness(const char *what, int (*sweep)(void))
{
    note_ = mmap(NULL, sizeof *note_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(note_ != MAP_FAILED);
    memset(note_, 0, sizeof *note_);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        _exit(sweep() ? 3 : 0);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFSIGNALED(st))
        cr_assert_fail("%s: %s ended the caller with signal %d (%s)", what, note_->call, WTERMSIG(st),
                WTERMSIG(st) == SIGALRM ? "it did not return within the alarm" : strsignal(WTERMSIG(st)));
    else if (WEXITSTATUS(st) == 3)
        cr_assert_fail("%s: %s broke its promise: %s", what, note_->call, note_->broken);
    else if (WEXITSTATUS(st) != 0)
        cr_assert_fail("%s: %s exited the caller with status %d", what, note_->call, WEXITSTATUS(st));
    munmap(note_, sizeof *note_);
}

/* ---- the edge values ------------------------------------------------------ */

static const double D[] = { NAN, INFINITY, -INFINITY, -1e300, -1.5, -1, -0.0, 0, 1e-300, 0.3, 1, 1.5, 1e6, 1e300 };
#define ND ((int)(sizeof D / sizeof D[0]))
static const int IV[] = { INT_MIN, -1, 0, 1, 2, 3, 64, 4096, 4097, INT_MAX };
#define NI ((int)(sizeof IV / sizeof IV[0]))
static const long L[] = { LONG_MIN, -1, 0, 1, 64, 1L << 40, LONG_MAX };
#define NL ((int)(sizeof L / sizeof L[0]))
/* every law, and two that are not */
static const int LAW[] = { -1, RL_ANG_CONSTANT, RL_ANG_UNIFORM, RL_ANG_PM, RL_ANG_GAUSS, RL_ANG_CIRCLE, RL_ANG_DRIFT,
                           RL_ANG_COUNT };
#define NLAW ((int)(sizeof LAW / sizeof LAW[0]))

static int prob(double p) /* NaN or in [0, 1] */
{
    return isnan(p) || (p >= 0 && p <= 1);
}
static int logprob(double p) /* NaN or in [-inf, 0] */
{
    return isnan(p) || p <= 0;
}

/* ---- bounds.h: frequencies, angle laws, windows ----------------------------- */

static int sweep_freqs(void)
{
    static double omega[4096 / 2 + 1];
    for (int a = 0; a < NI; a++)
        for (int b = 0; b < ND; b++)
            for (int c = 0; c < ND; c++) {
                for (int e = 0; e < NI; e++) {
                    at("rl_so2_freq(%d, %g, %g, %d)", IV[a], D[b], D[c], IV[e]);
                    (void)rl_so2_freq(IV[a], D[b], D[c], IV[e]);
                }
                if (IV[a] <= 4097) { /* the buffer holds d/2 frequencies */
                    at("rl_so2_freqs(%d, %g, %g, omega)", IV[a], D[b], D[c]);
                    rl_so2_freqs(IV[a], D[b], D[c], omega);
                }
            }
    return 0;
}

static int sweep_laws(void)
{
    for (int a = 0; a < NLAW; a++)
        for (int b = 0; b < ND; b++) {
            const rl_angle_law law = (rl_angle_law)LAW[a];
            const double w = D[b];
            at("rl_angle_charfn(%d, %g)", LAW[a], w);
            double complex c = rl_angle_charfn(law, w);
            if (!(isnan(creal(c)) || isnan(cimag(c)) || cabs(c) <= 1 + 1e-12))
                return broke("|chi| = %g > 1", cabs(c));
            at("rl_angle_charfn2(%d, %g)", LAW[a], w);
            c = rl_angle_charfn2(law, w);
            if (!(isnan(creal(c)) || isnan(cimag(c)) || cabs(c) <= 1 + 1e-12))
                return broke("|chi2| = %g > 1", cabs(c));
            at("rl_angle_log_norm(%d, %g)", LAW[a], w);
            if (!logprob(rl_angle_log_norm(law, w)))
                return broke("log |chi| = %g > 0", rl_angle_log_norm(law, w));
            at("rl_one_minus_sinc(%g)", w);
            const double s = rl_one_minus_sinc(w);
            if (!(isnan(s) || (s >= 0 && s < 1.3)))
                return broke("1 - sinc = %g outside [0, 1.22]", s);
            static double complex chi[64];
            for (int n = -1; n <= 64; n += 65) {
                at("rl_angle_harmonics(%d, %g, %d, chi)", LAW[a], w, n);
                rl_angle_harmonics(law, w, n, chi);
            }
        }
    return 0;
}

/* d up to INT_MAX: a sum of d terms must be refused or bounded, never a
 * run of hours */
static int sweep_brownian(void)
{
    for (int a = 0; a < NI; a++)
        for (int b = 0; b < ND; b++) {
            double e = 0;
            at("rl_brownian_mean(%d, %g, &err)", IV[a], D[b]);
            const double c = rl_brownian_mean(IV[a], D[b], &e);
            if (!(isnan(c) || (c >= -1 && c <= 1)))
                return broke("c = %g outside [-1, 1]", c);
        }
    return 0;
}

static int window_ok(long w)
{
    return w >= 1 || w == -1 || w == RL_WINDOW_UNDEFINED;
}

static int sweep_windows(void)
{
    /* norms within ulps of 1 (at 0.9999999999999999 the window once never returned):
     * the window is the least n, norm^n <= eps < norm^(n-1) */
    const double near1[] = { 0.9999999999999999, 1 - 1e-13, 1 - 1e-9, 0.99, 0.5 };
    const double eps[] = { 0.1, 0.01, 1e-300, 0.999999 };
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 4; b++) {
            at("rl_mixing_window(%.17g, %g)", near1[a], eps[b]);
            const long w = rl_mixing_window(near1[a], eps[b]);
            if (!(w >= 1 && pow(near1[a], (double)w) <= eps[b] && (w == 1 || pow(near1[a], (double)(w - 1)) > eps[b])))
                return broke("window %ld is not the least n with norm^n <= eps", w);
        }
    for (int a = 0; a < ND; a++)
        for (int b = 0; b < ND; b++) {
            at("rl_mixing_window(%g, %g)", D[a], D[b]);
            long w = rl_mixing_window(D[a], D[b]);
            if (!window_ok(w))
                return broke("window %ld", w);
            at("rl_mixing_window_log(%g, %g)", D[a], D[b]);
            w = rl_mixing_window_log(D[a], D[b]);
            if (!window_ok(w))
                return broke("window %ld", w);
        }
    return 0;
}

/* ---- bounds.h: concentration ---------------------------------------------- */

static int sweep_tails(void)
{
    for (int a = 0; a < NI; a++)
        for (int b = 0; b < ND; b++) {
            const int d = IV[a];
            const double t = D[b];
            at("rl_levy_tail(%d, %g)", d, t);
            if (!prob(rl_levy_tail(d, t)))
                return broke("%g", rl_levy_tail(d, t));
            at("rl_levy_so_tail(%d, %g)", d, t);
            if (!prob(rl_levy_so_tail(d, t)))
                return broke("%g", rl_levy_so_tail(d, t));
            at("rl_beta_tail(%d, %g)", d, t);
            if (!prob(rl_beta_tail(d, t)))
                return broke("%g", rl_beta_tail(d, t));
            at("rl_beta_coord_cdf(%d, %g)", d, t);
            if (!prob(rl_beta_coord_cdf(d, t)))
                return broke("%g", rl_beta_coord_cdf(d, t));
            /* log E e^{lambda <e,u>} lies in [-|lambda|, |lambda|] */
            at("rl_sphere_log_mgf(%d, %g)", d, t);
            const double m = rl_sphere_log_mgf(d, t);
            if (!(isnan(m) || fabs(m) <= fabs(t) * (1 + 1e-12) + 1e-12))
                return broke("%g outside [-|lambda|, |lambda|]", m);
        }
    for (int a = 0; a < ND; a++)
        for (int n = -1; n <= 3; n++) {
            const double s[3] = { D[a], D[(a + 5) % ND], 1 };
            at("rl_hoeffding_so2(%g, a, %d)", D[a], n);
            if (!prob(rl_hoeffding_so2(D[a], s, n)))
                return broke("%g", rl_hoeffding_so2(D[a], s, n));
        }
    return 0;
}

/* log E e^{z cos Phi} lies in [-z, z]; every n, every count, every law */
static int sweep_so2_mgf(void)
{
    double out[4];
    for (int a = 0; a < NLAW; a++)
        for (int b = 0; b < ND; b++)
            for (int c = 0; c < NL; c++)
                for (int e = 0; e < ND; e++) {
                    const double w = D[b], z = D[e];
                    const long n = L[c];
                    at("rl_so2_cos_log_mgf(%d, %g, %ld, %g)", LAW[a], w, n, z);
                    const double m = rl_so2_cos_log_mgf((rl_angle_law)LAW[a], w, n, z);
                    if (!(isnan(m) || fabs(m) <= fabs(z) * (1 + 1e-12) + 1e-12))
                        return broke("%g outside [-z, z]", m);
                    for (long count = -1; count <= 4; count += 5) {
                        at("rl_so2_cos_log_mgf_range(%d, %g, %ld, %ld, %g, out)", LAW[a], w, n, count, z);
                        rl_so2_cos_log_mgf_range((rl_angle_law)LAW[a], w, n, count, z, out);
                    }
                }
    return 0;
}

/* ---- bounds.h: far mass and values ---------------------------------------- */

static int sweep_farmass(void)
{
    for (int a = 0; a < ND; a++)
        for (int b = 0; b < ND; b++)
            for (int c = 0; c < ND; c++) {
                const double m = D[a], k = D[b], x = D[c];
                at("rl_farmass_lower(%g, %g, %g)", m, k, x);
                if (!prob(rl_farmass_lower(m, k, x)) || !logprob(rl_farmass_lower_log(m, k, x)))
                    return broke("%g, log %g", rl_farmass_lower(m, k, x), rl_farmass_lower_log(m, k, x));
                at("rl_farmass_upper(%g, %g, %g)", m, k, x);
                if (!prob(rl_farmass_upper(m, k, x)))
                    return broke("%g", rl_farmass_upper(m, k, x));
                at("rl_farmass_range(%g, %g, %g)", m, k, x);
                if (!prob(rl_farmass_range(m, k, x)) || !logprob(rl_farmass_range_log(m, k, x)))
                    return broke("%g, log %g", rl_farmass_range(m, k, x), rl_farmass_range_log(m, k, x));
                at("rl_farmass_admissible(%g, %g, %g)", m, k, x);
                const double ad = rl_farmass_admissible(m, k, x);
                (void)rl_farmass_admissible_log(m, k, x);
                if (!(isnan(ad) || ad >= 0))
                    return broke("M* = %g < 0", ad);
                at("rl_farmass_half(%g, %g)", m, k);
                const double h = rl_farmass_half(m, k);
                (void)rl_farmass_half_log(m, k);
                if (!(isnan(h) || h >= 0))
                    return broke("M = %g < 0", h);
                for (int e = 0; e < ND; e++)
                    for (int best = 0; best <= 1; best++) {
                        at("rl_farmass_alibi(%g, %g, %g, %g, %d)", m, k, x, D[e], best);
                        if (!prob(rl_farmass_alibi(m, k, x, D[e], best)) ||
                            !logprob(rl_farmass_alibi_log(m, k, x, D[e], best)))
                            return broke("%g, log %g", rl_farmass_alibi(m, k, x, D[e], best),
                                         rl_farmass_alibi_log(m, k, x, D[e], best));
                    }
            }
    return 0;
}

static int sweep_values(void)
{
    for (int a = 0; a < ND; a++)
        for (int b = 0; b < ND; b++) {
            const double complex chi = D[a] + I * D[b] * 0.5;
            at("rl_value_coherent(%g, %g)", D[a], D[b]);
            (void)rl_value_coherent(D[a], D[b]);
            for (int c = 0; c < NL; c++) {
                at("rl_value_pair_sum(%g + %gi, %ld)", creal(chi), cimag(chi), L[c]);
                (void)rl_value_pair_sum(chi, L[c]);
                at("rl_cpow_n(%g + %gi, %ld)", creal(chi), cimag(chi), L[c]);
                (void)rl_cpow_n(chi, L[c]);
                const double complex chis[2] = { chi, 0.5 };
                const double v2[2] = { D[b], 1 };
                for (int nb = -1; nb <= 2; nb++) {
                    at("rl_value_incoherent(%g, %ld, %d, chi, v2)", D[a], L[c], nb);
                    const double r = rl_value_incoherent(D[a], L[c], nb, chis, v2);
                    if (!(isnan(r) || r >= 0))
                        return broke("norm %g < 0", r);
                }
            }
        }
    return 0;
}

/* ---- bounds.h: mix-or-stay -------------------------------------------------- */

static int status_ok(rl_status s, const rl_err *e)
{
    if (s == RL_OK)
        return 1;
    return (s == RL_EINPUT || s == RL_EINTERNAL) && e->msg[0] && !strchr(e->msg, '\n');
}

static int sweep_mixstay(void)
{
    static double complex a[64], b[64];
    for (int i = 0; i < 64; i++)
        a[i] = 0.5, b[i] = 0.25;
    const int ns[] = { INT_MIN, -1, 0, 1, 64, RL_MIXSTAY_MAX_HARMONICS + 1, INT_MAX };
    for (int i = 0; i < 7; i++) {
        rl_err e = { 0 };
        double lo, hi;
        at("rl_watson_dist(a, b, %d)", ns[i]);
        /* n beyond the arrays' 64 only where the header refuses it */
        if (ns[i] <= 64 || ns[i] > RL_MIXSTAY_MAX_HARMONICS) {
            rl_status s = rl_watson_dist(a, b, ns[i], &lo, &hi, &e);
            if (!status_ok(s, &e) || (s == RL_OK && !(lo >= 0 && lo <= hi && hi <= 0.5)))
                return broke("status %d (%s), [%g, %g]", s, e.msg, lo, hi);
        }
        at("rl_watson_dist(NULL, b, %d)", ns[i]);
        if (rl_watson_dist(NULL, b, ns[i], &lo, &hi, &e) != RL_EINPUT)
            return broke("a NULL array was not refused");
    }
    for (int x = 0; x < ND; x++) {
        rl_err e = { 0 };
        double lo, hi;
        double complex c[1] = { D[x] };
        at("rl_watson_dist(chi = %g, b, 1)", D[x]);
        rl_status s = rl_watson_dist(c, b, 1, &lo, &hi, &e);
        if (!status_ok(s, &e))
            return broke("status %d", s);
    }
    const long tl[] = { LONG_MIN, -1, 0, 1, 8, 64, 65, 1000000000000000L, 1000000000000001L, LONG_MAX };
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) {
            const long t = tl[i], l = tl[j];
            at("rl_mixstay_grid(%ld, %ld, NULL)", t, l);
            const long n = rl_mixstay_grid(t, l, NULL);
            if (n < -1)
                return broke("count %ld", n);
            rl_err e = { 0 };
            rl_mixstay_block blk;
            at("rl_mixstay_chi(a, 64, %ld, %ld)", t, l);
            if (t < 1e14 && l - t < 1e14) { /* the rest is the header's cost: pairs below its limit */
                /* a bounded run only: the pairs of (t, l) at most 2^16 or refused */
                if (n >= 0 && (double)n * (double)t > 65536.0 && n * (double)t <= (double)RL_MIXSTAY_MAX_PAIRS)
                    continue;
                rl_status s = rl_mixstay_chi(a, 64, t, l, &blk, NULL, &e);
                if (!status_ok(s, &e))
                    return broke("status %d (%s)", s, e.msg);
            }
        }
    for (int a2 = 0; a2 < NLAW; a2++)
        for (int di = 0; di < NI; di++)
            for (int x = 0; x < ND; x++) {
                static rl_mixstay_block blocks[4096 / 2 + 1];
                double score[2];
                rl_err e = { 0 };
                at("rl_mixstay_law(%d, %d, %g, %g, 8, 16, 16)", LAW[a2], IV[di], D[x], D[(x + 3) % ND]);
                rl_status s =
                    rl_mixstay_law((rl_angle_law)LAW[a2], IV[di], D[x], D[(x + 3) % ND], 8, 16, 16, blocks, score, &e);
                if (!status_ok(s, &e))
                    return broke("status %d (%s)", s, e.msg);
                if (s == RL_OK && !(score[0] >= 0 && score[0] <= score[1] && score[1] <= 0.5))
                    return broke("score [%g, %g]", score[0], score[1]);
            }
    return 0;
}

/* ---- family.h and the family forms of bounds.h ------------------------------- */

static const char *const FAM[] = { "so2", "haar", "haar-so", "token-so2", "householder", "path", "lazy-haar", "brownian", "cayley", "bogus", "" };
#define NFAMN ((int)(sizeof FAM / sizeof FAM[0]))
static const char *const VAL[] = { "nan", "inf", "-inf", "-1", "0", "1e-300", "0.3", "1", "1e300", "x", "", "9999999999" };
#define NVAL ((int)(sizeof VAL / sizeof VAL[0]))
static const char *const KEY[] = { "angles", "base", "scale", "beta", "p", "sigma", "vocab", "table", "text", "bogus", "" };
#define NKEY ((int)(sizeof KEY / sizeof KEY[0]))

static int sweep_family(void)
{
    rl_family *f = malloc(rl_family_sizeof());
    static double out[64 * 64 * 4];
    for (int a = 0; a < NFAMN; a++)
        for (int di = 0; di < NI; di++) {
            rl_err e = { 0 };
            at("rl_family_named(f, \"%s\", %d)", FAM[a], IV[di]);
            rl_status s = rl_family_named(f, FAM[a], IV[di], &e);
            if (!status_ok(s, &e))
                return broke("status %d (%s)", s, e.msg);
            if (s != RL_OK || IV[di] > 64)
                continue;
            for (int k = 0; k < NKEY; k++)
                for (int v = 0; v < NVAL; v++) {
                    rl_family_named(f, FAM[a], IV[di], &e);
                    at("rl_family_set(%s(%d), \"%s\", \"%s\")", FAM[a], IV[di], KEY[k], VAL[v]);
                    s = rl_family_set(f, KEY[k], VAL[v], &e);
                    if (!status_ok(s, &e))
                        return broke("status %d (%s)", s, e.msg);
                    const int blk[] = { INT_MIN, -1, 0, 1, 31, 32, INT_MAX };
                    for (int b = 0; b < 7; b++) {
                        double x = NAN;
                        at("rl_family_norm(%s(%d) %s=%s, %d)", FAM[a], IV[di], KEY[k], VAL[v], blk[b]);
                        s = rl_family_norm(f, blk[b], &x, &e);
                        if (!status_ok(s, &e) || (s == RL_OK && !(x >= 0 && x <= 1 + 1e-12)))
                            return broke("status %d (%s), norm %g", s, e.msg, x);
                        for (int ei = 0; ei < ND; ei++) {
                            at("rl_family_window(%s(%d) %s=%s, %d, %g)", FAM[a], IV[di], KEY[k], VAL[v], blk[b],
                               D[ei]);
                            s = rl_family_window(f, blk[b], D[ei], &x, &e);
                            if (!status_ok(s, &e) || (s == RL_OK && !(x >= 1)))
                                return broke("status %d (%s), window %g", s, e.msg, x);
                        }
                    }
                    const long counts[] = { LONG_MIN, -1, 0, 2 };
                    const int threads[] = { INT_MIN, 0, 1, 2, 100000 };
                    for (int c = 0; c < 4; c++)
                        for (int t = 0; t < 5; t++) {
                            at("rl_sample(%s(%d) %s=%s, %ld, 7, %d)", FAM[a], IV[di], KEY[k], VAL[v], counts[c],
                               threads[t]);
                            s = rl_sample(f, counts[c], 7, threads[t], out, &e);
                            if (!status_ok(s, &e))
                                return broke("status %d (%s)", s, e.msg);
                        }
                }
        }
    free(f);
    return 0;
}

Test(edges, frequencies)
{
    harness("so2 frequencies", sweep_freqs);
}
Test(edges, angle_laws)
{
    harness("angle laws", sweep_laws);
}
Test(edges, brownian_mean)
{
    harness("brownian mean", sweep_brownian);
}
Test(edges, mixing_windows)
{
    harness("mixing windows", sweep_windows);
}
Test(edges, concentration_tails)
{
    harness("concentration", sweep_tails);
}
Test(edges, so2_cos_mgf)
{
    harness("so2 cos mgf", sweep_so2_mgf);
}
Test(edges, far_mass)
{
    harness("far mass", sweep_farmass);
}
Test(edges, values)
{
    harness("values", sweep_values);
}
Test(edges, mixstay)
{
    harness("mix-or-stay", sweep_mixstay);
}
Test(edges, family_surface)
{
    harness("family surface", sweep_family);
}

/* rl_form_eval over arrays gives the scalar forms' numbers point by point
 * (the same bits), and refuses what it cannot read in one line each. */
Test(edges, forms_over_arrays_are_the_scalar_forms)
{
    enum { N = ND };
    double a[N], b[N], c[N], d[N], e[N], out[N];
    for (int i = 0; i < N; i++)
        a[i] = D[i], b[i] = D[(i + 3) % N], c[i] = D[(i + 7) % N], d[i] = D[(i + 5) % N], e[i] = i % 2;
    const double *args[5] = { a, b, c, d, e };
    rl_err err;
    cr_assert_eq(rl_form_eval("farmass_lower", args, 3, N, out, &err), RL_OK, "%s", err.msg);
    for (int i = 0; i < N; i++) {
        const double s = rl_farmass_lower(a[i], b[i], c[i]);
        cr_expect(memcmp(&s, &out[i], sizeof s) == 0, "point %d: %g against %g", i, out[i], s);
    }
    cr_assert_eq(rl_form_eval("farmass_alibi_log", args, 5, N, out, &err), RL_OK, "%s", err.msg);
    for (int i = 0; i < N; i++) {
        const double s = rl_farmass_alibi_log(a[i], b[i], c[i], d[i], (int)e[i]);
        cr_expect(memcmp(&s, &out[i], sizeof s) == 0, "point %d", i);
    }
    double ds[N];
    for (int i = 0; i < N; i++)
        ds[i] = IV[i % NI];
    const double *targs[2] = { ds, a };
    cr_assert_eq(rl_form_eval("beta_tail", targs, 2, NI, out, &err), RL_OK, "%s", err.msg);
    for (int i = 0; i < NI; i++) {
        const double s = rl_beta_tail(IV[i], a[i]);
        cr_expect(memcmp(&s, &out[i], sizeof s) == 0, "point %d", i);
    }
    cr_assert_eq(rl_form_eval("mixing_window", args, 2, N, out, &err), RL_OK, "%s", err.msg);
    for (int i = 0; i < N; i++)
        cr_expect_eq(out[i], (double)rl_mixing_window(a[i], b[i]), "point %d", i);
    /* refused, one line each */
    cr_expect_eq(rl_form_eval("farmass_nope", args, 3, N, out, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "no closed form named 'farmass_nope'"), "%s", err.msg);
    cr_expect_eq(rl_form_eval("farmass_lower", args, 2, N, out, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "takes 3 arguments, got 2"), "%s", err.msg);
    cr_expect_eq(rl_form_eval("beta_tail", args, 2, N, out, &err), RL_EINPUT); /* D[0] = NaN is no int */
    cr_expect(strstr(err.msg, "not a C int"), "%s", err.msg);
    cr_expect_eq(rl_form_eval("levy_tail", args, 2, -1, out, &err), RL_EINPUT);
    cr_expect_eq(rl_form_eval(NULL, args, 2, 1, out, &err), RL_EINPUT);
    const double *none[2] = { a, NULL };
    cr_expect_eq(rl_form_eval("farmass_half", none, 2, 1, out, &err), RL_EINPUT);
    cr_expect_eq(rl_hoeffding_so2_array(a, N, NULL, 1, out, &err), RL_EINPUT);
    const double ab[2] = { 1, 0.5 };
    cr_assert_eq(rl_hoeffding_so2_array(a, N, ab, 2, out, &err), RL_OK);
    for (int i = 0; i < N; i++) {
        const double s = rl_hoeffding_so2(a[i], ab, 2);
        cr_expect(memcmp(&s, &out[i], sizeof s) == 0, "point %d", i);
    }
}

/* ---- mc.h and model.h ---------------------------------------------------- */


/* The Monte Carlo entry points on edge sizes, counts, thread numbers and
 * labels.  The lengths and replicate counts stay small (a route of 1e15
 * steps is a run of years, not a hang: its cost is the caller's to choose). */
static int sweep_mc(void)
{
    static long grid[64];
    int ng = 0;
    const long big[] = { LONG_MIN, -1, 0, 1, 64, 1000000000000000L, LONG_MAX };
    const int small[] = { INT_MIN, -1, 0, 1, 8, INT_MAX };
    for (int a = 0; a < 7; a++)
        for (int b = 0; b < 7; b++)
            for (int c = 0; c < 6; c++)
                for (int cap = -1; cap <= 64; cap += 65) {
                    rl_err e = { 0 };
                    at("rl_mc_route_grid(%ld, %ld, %d, grid, %d)", big[a], big[b], small[c], cap);
                    rl_status s = rl_mc_route_grid(big[a], big[b], small[c], grid, cap, &ng, &e);
                    if (!status_ok(s, &e) || (s == RL_OK && !(ng >= 0 && ng <= cap)))
                        return broke("status %d (%s), %d lengths", s, e.msg, ng);
                }
    rl_family *f = malloc(rl_family_sizeof());
    const char *labels[] = { "so2-uniform", "haar", "householder", "so2-study", "bogus", "", "none" };
    for (int l = 0; l < 7; l++)
        for (int di = 0; di < NI; di++) {
            rl_err e = { 0 };
            unsigned long stream;
            at("rl_mc_mixing_case(\"%s\", %d)", labels[l], IV[di]);
            rl_status s = rl_mc_mixing_case(labels[l], IV[di], f, &stream, &e);
            if (!status_ok(s, &e))
                return broke("status %d (%s)", s, e.msg);
            at("rl_mc_farmass_case(\"%s\", %d)", labels[l], IV[di]);
            s = rl_mc_farmass_case(labels[l], IV[di], f, &stream, &e);
            if (!status_ok(s, &e))
                return broke("status %d (%s)", s, e.msg);
        }
    rl_err e0 = { 0 };
    if (rl_family_named(f, "so2", 8, &e0) != RL_OK)
        return broke("so2(8): %s", e0.msg);
    static double tr[8], tr_se[8], op[8], coh[8], coh_se[8], sq[8], sq_se[8], chi[2 * 8 * 4], chi_se[8 * 4];
    const long g3[3] = { 1, 2, 4 }, gbad[3] = { 4, 2, -1 };
    const long reps[] = { LONG_MIN, -1, 0, 1, 16 };
    const int thr[] = { INT_MIN, 0, 1, 2, 100000 };
    for (int gi = 0; gi < 2; gi++)
        for (int n = -1; n <= 3; n++)
            for (int r = 0; r < 5; r++)
                for (int t = 0; t < 5; t++) {
                    rl_err e = { 0 };
                    at("rl_mc_routes(so2(8), %s grid, %d, %ld reps, threads %d)", gi ? "bad" : "good", n, reps[r],
                       thr[t]);
                    rl_status s = rl_mc_routes(f, gi ? gbad : g3, n, reps[r], 7, 0, thr[t], tr, tr_se, op, coh, coh_se,
                                               sq, sq_se, chi, chi_se, &e);
                    if (!status_ok(s, &e))
                        return broke("status %d (%s)", s, e.msg);
                }
    const long ns[] = { LONG_MIN, -1, 0, 1, 2, 64 };
    for (int i = 0; i < 6; i++) {
        rl_err e = { 0 };
        double nm, se, rate, noise, mn;
        at("rl_mc_family_mean(so2(8), %ld)", ns[i]);
        rl_status s = rl_mc_family_mean(f, ns[i], 7, 0, &nm, &se, &e);
        if (!status_ok(s, &e) || (s == RL_OK && !(nm >= 0 && nm <= 1 + 1e-12)))
            return broke("status %d (%s), norm %g", s, e.msg, nm);
        at("rl_mc_moment2(so2(8), %ld)", ns[i]);
        s = rl_mc_moment2(f, ns[i], 7, &rate, &se, &noise, &mn, &e);
        if (!status_ok(s, &e))
            return broke("status %d (%s)", s, e.msg);
    }
    free(f);
    return 0;
}

/* A trained model's calls on edge tokens, lengths, layers and threads, and
 * bad checkpoints (tools/fuzz/corpus/ckpt: a one-layer model). */
static int sweep_model(void)
{
    const char *paths[] = { "", "/", "/dev/zero", "/dev/null", "README.md", "/nonexistent", "tools/fuzz/corpus/ckpt/rope" };
    rl_model *m = NULL;
    for (int i = 0; i < 7; i++) {
        rl_err e = { 0 };
        at("rl_model_load(\"%s\")", paths[i]);
        rl_status s = rl_model_load(paths[i], &m, &e);
        if (!status_ok(s, &e))
            return broke("status %d (%s)", s, e.msg);
        if (s == RL_OK && i < 6)
            return broke("a bad checkpoint loaded");
    }
    if (!m)
        return broke("the fixture did not load");
    rl_model_info info;
    rl_model_get_info(m, &info);
    static uint16_t tok[600];
    for (int i = 0; i < 600; i++)
        tok[i] = (uint16_t)(i * 7 % info.vocab);
    uint16_t badtok[4] = { 0, 1, (uint16_t)info.vocab, 65535 };
    static float logits[600 * 256], att[4 * 64 * 64];
    const long ns[] = { LONG_MIN, -1, 0, 1, 2, 64 };
    const int thr[] = { INT_MIN, 0, 1, 2, 100000 };
    for (int i = 0; i < 6; i++)
        for (int t = 0; t < 5; t++) {
            rl_err e = { 0 };
            at("rl_model_forward(rope, %ld tokens, threads %d)", ns[i], thr[t]);
            rl_status s = rl_model_forward(m, tok, ns[i], 0, thr[t], logits, &e);
            if (!status_ok(s, &e))
                return broke("status %d (%s)", s, e.msg);
            at("rl_model_forward(rope, bad ids, %ld)", ns[i] < 4 ? ns[i] : 4);
            s = rl_model_forward(m, badtok, ns[i] < 4 ? ns[i] : 4, 0, 1, logits, &e);
            if (!status_ok(s, &e) || (s == RL_OK && ns[i] >= 3))
                return broke("status %d (%s) on ids beyond the vocabulary", s, e.msg);
            for (int layer = -1; layer <= info.layers; layer++) {
                at("rl_model_attention(rope, %ld tokens, layer %d, threads %d)", ns[i], layer, thr[t]);
                s = rl_model_attention(m, tok, ns[i], layer, 0, thr[t], att, &e);
                if (!status_ok(s, &e) || (s == RL_OK && (layer < 0 || layer >= info.layers)))
                    return broke("status %d (%s)", s, e.msg);
            }
        }
    const long lens[][3] = { { 8, 16, 32 }, { 0, 8, 16 }, { -1, 8, 16 }, { 16, 8, 32 }, { 8, 1000000, 16 },
                             { LONG_MAX, 8, 16 } };
    const long targets[] = { LONG_MIN, -1, 0, 1, 64 };
    for (int l = 0; l < 6; l++)
        for (int nl = -1; nl <= 3; nl += 2)
            for (int tg = 0; tg < 5; tg++)
                for (int t = 0; t < 5; t += 2) {
                    rl_err e = { 0 };
                    rl_model_eval_row rows[3];
                    at("rl_model_eval(rope, lengths %ld,%ld,%ld, nl %d, targets %ld, threads %d)", lens[l][0],
                       lens[l][1], lens[l][2], nl, targets[tg], thr[t]);
                    rl_status s = rl_model_eval(m, tok, 600, tok, 600, lens[l], nl, targets[tg], 7, thr[t], rows, &e);
                    if (!status_ok(s, &e))
                        return broke("status %d (%s)", s, e.msg);
                    char *p = NULL, *q = NULL;
                    at("rl_model_probe(rope, lengths %ld,%ld,%ld, nl %d, windows %ld, threads %d)", lens[l][0],
                       lens[l][1], lens[l][2], nl, targets[tg], thr[t]);
                    s = rl_model_probe(m, tok, 600, lens[l], nl, targets[tg], 7, thr[t], &p, &q, &e);
                    if (!status_ok(s, &e))
                        return broke("status %d (%s)", s, e.msg);
                    rl_model_buffer_free(p);
                    rl_model_buffer_free(q);
                }
    rl_model_free(m);
    return 0;
}

Test(edges, monte_carlo_entry_points)
{
    harness("mc.h", sweep_mc);
}

Test(edges, model_entry_points)
{
    th_to_root(); /* the fixture's path is the repository's */
    harness("model.h", sweep_model);
}

/* Every pointer argument of the public entry points NULL in turn (fifteen
 * of them once segfaulted where their siblings returned RL_EINPUT): a
 * one-line RL_EINPUT, never a crash.  err itself may be NULL (err.h). */
static int sweep_nulls(void)
{
    rl_family *f = malloc(rl_family_sizeof());
    rl_err e = { 0 };
    double x, y, z, w;
    long g[8];
    int ng;
    unsigned long st;
#define NUL(call)                                                                                                  \
    do {                                                                                                           \
        at("%s", #call);                                                                                           \
        memset(&e, 0, sizeof e);                                                                                   \
        rl_status s_ = (call);                                                                                     \
        if (s_ != RL_EINPUT || !status_ok(s_, &e))                                                                 \
            return broke("status %d (%s)", s_, e.msg);                                                             \
    } while (0)
    rl_family_named(f, "so2", 8, &e);
    NUL(rl_family_named(NULL, "so2", 8, &e));
    NUL(rl_family_named(f, NULL, 8, &e));
    rl_family_named(f, "so2", 8, &e);
    NUL(rl_family_set(NULL, "base", "10", &e));
    NUL(rl_family_set(f, NULL, "10", &e));
    NUL(rl_family_set(f, "base", NULL, &e));
    NUL(rl_family_norm(NULL, -1, &x, &e));
    NUL(rl_family_norm(f, -1, NULL, &e));
    NUL(rl_family_window(NULL, -1, 0.1, &x, &e));
    NUL(rl_family_window(f, -1, 0.1, NULL, &e));
    double sbuf[64];
    NUL(rl_sample(NULL, 1, 1, 1, sbuf, &e));
    NUL(rl_sample(f, 1, 1, 1, NULL, &e));
    NUL(rl_mc_route_grid(8, 2, 2, NULL, 8, &ng, &e));
    NUL(rl_mc_route_grid(8, 2, 2, g, 8, NULL, &e));
    NUL(rl_mc_mixing_case("haar", 8, NULL, &st, &e));
    NUL(rl_mc_mixing_case("haar", 8, f, NULL, &e));
    NUL(rl_mc_farmass_case("haar", 8, NULL, &st, &e));
    NUL(rl_mc_farmass_case("haar", 8, f, NULL, &e));
    rl_family_named(f, "haar", 4, &e);
    NUL(rl_mc_family_mean(NULL, 4, 1, 0, &x, &y, &e));
    NUL(rl_mc_family_mean(f, 4, 1, 0, NULL, &y, &e));
    NUL(rl_mc_family_mean(f, 4, 1, 0, &x, NULL, &e));
    NUL(rl_mc_moment2(NULL, 100, 1, &x, &y, &z, &w, &e));
    /* moment2's and routes' outputs may be NULL: "not wanted" (mc.h) */
    at("rl_mc_moment2(f, 100, 1, NULL, NULL, NULL, NULL)");
    if (rl_mc_moment2(f, 100, 1, NULL, NULL, NULL, NULL, &e) != RL_OK)
        return broke("outputs not wanted: %s", e.msg);
    double b[8] = { 0 };
    const long g2[2] = { 1, 2 };
    NUL(rl_mc_routes(NULL, g2, 2, 4, 1, 0, 1, b, b, b, b, b, b, b, b, b, &e));
    NUL(rl_mc_routes(f, NULL, 2, 4, 1, 0, 1, b, b, b, b, b, b, b, b, b, &e));
    at("rl_mc_routes(f, g2, ..., every output NULL)");
    if (rl_mc_routes(f, g2, 2, 4, 1, 0, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &e) != RL_OK)
        return broke("outputs not wanted: %s", e.msg);
    rl_mixstay_block blk;
    double sc[2];
    const double complex ch[4] = { 0.5, 0.5, 0.5, 0.5 };
    NUL(rl_mixstay_chi(NULL, 4, 8, 16, &blk, NULL, &e));
    NUL(rl_mixstay_chi(ch, 4, 8, 16, NULL, NULL, &e));
    NUL(rl_mixstay_law(RL_ANG_UNIFORM, 8, 100, 1, 8, 16, 16, NULL, sc, &e));
    NUL(rl_mixstay_law(RL_ANG_UNIFORM, 8, 100, 1, 8, 16, 16, &blk, NULL, &e));
    rl_family_named(f, "so2", 8, &e);
    NUL(rl_mixstay_family(NULL, 8, 16, 16, &blk, sc, &e));
    NUL(rl_mixstay_family(f, 8, 16, 16, NULL, sc, &e));
    rl_model *m = NULL;
    NUL(rl_model_load(NULL, &m, &e));
    NUL(rl_model_load("tools/fuzz/corpus/ckpt/rope", NULL, &e));
    uint16_t *tr = NULL, *va = NULL;
    long ntr, nva;
    NUL(rl_model_data(NULL, 256, &tr, &ntr, &va, &nva, &e));
    NUL(rl_model_data("README.md", 256, NULL, &ntr, &va, &nva, &e));
    NUL(rl_model_data("README.md", 256, &tr, NULL, &va, &nva, &e));
    NUL(rl_model_data("README.md", 256, &tr, &ntr, NULL, &nva, &e));
    NUL(rl_model_data("README.md", 256, &tr, &ntr, &va, NULL, &e));
    if (rl_model_load("tools/fuzz/corpus/ckpt/rope", &m, &e) != RL_OK)
        return broke("the fixture: %s", e.msg);
    static uint16_t tok[64];
    float fl[64 * 256];
    const long lens[2] = { 8, 16 };
    rl_model_eval_row rows[2];
    const char *name;
    const float *data;
    long n;
    long shape[2];
    int nd;
    char *p, *q;
    NUL(rl_model_tensor(NULL, 0, &name, &data, &n, &e));
    NUL(rl_model_tensor(m, 0, NULL, &data, &n, &e));
    NUL(rl_model_tensor(m, 0, &name, NULL, &n, &e));
    NUL(rl_model_tensor(m, 0, &name, &data, NULL, &e));
    NUL(rl_model_tensor_shape(NULL, 0, shape, &nd, &e));
    NUL(rl_model_tensor_shape(m, 0, NULL, &nd, &e));
    NUL(rl_model_tensor_shape(m, 0, shape, NULL, &e));
    NUL(rl_model_eval(NULL, tok, 64, NULL, 0, lens, 2, 16, 1, 1, rows, &e));
    NUL(rl_model_eval(m, NULL, 64, NULL, 0, lens, 2, 16, 1, 1, rows, &e));
    NUL(rl_model_eval(m, tok, 64, NULL, 0, NULL, 2, 16, 1, 1, rows, &e));
    NUL(rl_model_eval(m, tok, 64, NULL, 0, lens, 2, 16, 1, 1, NULL, &e));
    NUL(rl_model_probe(NULL, tok, 64, lens, 2, 1, 1, 1, &p, &q, &e));
    NUL(rl_model_probe(m, NULL, 64, lens, 2, 1, 1, 1, &p, &q, &e));
    NUL(rl_model_probe(m, tok, 64, lens, 2, 1, 1, 1, NULL, &q, &e));
    NUL(rl_model_probe(m, tok, 64, lens, 2, 1, 1, 1, &p, NULL, &e));
    NUL(rl_model_forward(NULL, tok, 8, 0, 1, fl, &e));
    NUL(rl_model_forward(m, NULL, 8, 0, 1, fl, &e));
    NUL(rl_model_forward(m, tok, 8, 0, 1, NULL, &e));
    NUL(rl_model_attention(NULL, tok, 8, 0, 0, 1, fl, &e));
    NUL(rl_model_attention(m, NULL, 8, 0, 0, 1, fl, &e));
    NUL(rl_model_attention(m, tok, 8, 0, 0, 1, NULL, &e));
    rl_model_free(m);
    rl_model_free(NULL); /* a no-op, as free(NULL) */
    rl_model_buffer_free(NULL);
#undef NUL
    free(f);
    return 0;
}

Test(edges, null_pointers_are_bad_inputs)
{
    th_to_root();
    harness("NULL pointers", sweep_nulls);
}
