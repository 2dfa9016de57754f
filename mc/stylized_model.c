/* stylized_model.c: the one-layer retrieval model of `routelab stylized`:
 * keys, transports, the training window with its analytic gradient, the
 * query fit, and the evaluation walk shared by all schemes. */
#include "stylized_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "chain.h"

const sty_fit_spec sty_fits[STY_NFIT] = {
    { "nope", STY_TR_NONE, 0 },          { "rope", STY_TR_ROPE, 0 },  { "random", STY_TR_RANDOM, 0 },
    { "householder", STY_TR_HOUSEHOLDER, 0 }, { "alibi", STY_TR_NONE, 1 }, { "alibi+random", STY_TR_RANDOM, 1 },
};

/* random_qk and random_qkv share one score process (the same logits), so
 * they share the fitted query and, in the evaluation, every draw: the two
 * differ only in the output. */
const sty_scheme sty_schemes[STY_NSCHEME] = {
    { "nope", 0, 0 },  { "rope", 1, 0 },  { "random_qk", 2, 0 },        { "random_qkv", 2, 1 },
    { "haar", 3, 0 },  { "alibi", 4, 0 }, { "alibi+random_qkv", 5, 1 },
};

static double dot(const double *a, const double *b, int d)
{
    double s = 0;
    for (int i = 0; i < d; i++)
        s += a[i] * b[i];
    return s;
}

static void normalize(double *x, int d)
{
    double n = sqrt(dot(x, x, d));
    for (int i = 0; i < d; i++)
        x[i] /= n;
}

/* x <- unit(x - (x.y) y) for a unit y. */
static void orthonormalize(double *x, const double *y, int d)
{
    double c = dot(x, y, d);
    for (int i = 0; i < d; i++)
        x[i] -= c * y[i];
    normalize(x, d);
}

void sty_model_init(sty_model *m, int d, int k_near, double lambda, double key_noise, double value_noise,
                    double slope, unsigned long seed, unsigned long stream)
{
    memset(m, 0, sizeof *m);
    m->d = d;
    m->k_near = k_near;
    m->lambda = lambda;
    m->key_noise = key_noise;
    m->value_noise = value_noise;
    m->slope = slope;
    m->u = rl_xmalloc(sizeof(double) * 4 * d);
    m->w = m->u + d;
    m->vbar = m->u + 2 * d;
    m->vt = m->u + 3 * d;
    rl_ziggurat_init(&m->zig);
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    rl_rng_stream(r, seed, stream);
    rl_unit_vector(r, d, m->u);
    rl_unit_vector(r, d, m->w);
    orthonormalize(m->w, m->u, d);
    rl_unit_vector(r, d, m->vbar);
    rl_unit_vector(r, d, m->vt);
    orthonormalize(m->vt, m->vbar, d);
}

void sty_model_free(sty_model *m)
{
    free(m->u);
    m->u = m->w = m->vbar = m->vt = NULL;
}

int sty_transport_family(sty_transport tr, int d, rl_family *f)
{
    switch (tr) {
    case STY_TR_ROPE:
        *f = rl_family_default(RL_FAM_SO2, d);
        f->law = RL_ANG_CONSTANT; /* accumulated constant steps: angle delta * omega_b */
        return 1;
    case STY_TR_RANDOM:
        *f = rl_family_default(RL_FAM_SO2, d);
        f->law = RL_ANG_UNIFORM;
        return 1;
    case STY_TR_HOUSEHOLDER:
        *f = rl_family_default(RL_FAM_HOUSEHOLDER, d);
        return 1;
    default:
        return 0;
    }
}

/* Target distance, uniform in 1..k_near: drawn first from the data stream. */
static long draw_target(const sty_model *m, gsl_rng *rd)
{
    return 1 + (long)(gsl_rng_uniform(rd) * m->k_near);
}

/* k = normalize(dir + s g / sqrt(d)), g standard normal: a unit key. */
static void draw_key(const sty_model *m, gsl_rng *rd, const double *dir, double *k)
{
    const int d = m->d;
    const double a = m->key_noise / sqrt((double)d);
    rl_ziggurat_fill(&m->zig, rd, k, d);
    for (int i = 0; i < d; i++)
        k[i] = dir[i] + a * k[i];
    normalize(k, d);
}

/* ---------------- training window ---------------- */

struct sty_win_ws {
    rl_chain *chain; /* NULL for STY_TR_NONE */
    int so2;
    double *g;       /* T x d: P_delta k_delta */
    double *l;       /* T logits */
    double *k;
    long T;
};

sty_win_ws *sty_win_alloc(const sty_model *m, sty_transport tr, long T)
{
    sty_win_ws *ws = rl_xcalloc(1, sizeof *ws);
    rl_family f;
    if (sty_transport_family(tr, m->d, &f)) {
        ws->so2 = rl_family_is_so2(&f);
        /* SO(2) chains apply P to any vector from their angles; dense ones
         * need the identity rows tracked (O(d^2) per step, windows are short) */
        ws->chain = rl_chain_alloc(&f, ws->so2 ? 1 : m->d);
        if (!ws->chain) /* no public entry reaches here: the experiment's own end */
            rl_fatal("out of memory allocating a chain");
    }
    ws->g = rl_xmalloc(sizeof(double) * (size_t)T * m->d);
    ws->l = rl_xmalloc(sizeof(double) * T);
    ws->k = rl_xmalloc(sizeof(double) * m->d);
    ws->T = T;
    return ws;
}

void sty_win_free(sty_win_ws *ws)
{
    if (!ws)
        return;
    rl_chain_free(ws->chain);
    free(ws->g);
    free(ws->l);
    free(ws->k);
    free(ws);
}

rl_status sty_window(const sty_model *m, const sty_fit_spec *f, const double *q, long T, gsl_rng *rd, gsl_rng *rt,
                     sty_win_ws *ws, double *grad, double *logp, rl_err *err)
{
    const int d = m->d;
    if (T > ws->T)
        return rl_fail(err, RL_EINPUT, "stylized: window %ld longer than its workspace (%ld)", T, ws->T);
    const long dt = draw_target(m, rd);
    if (ws->chain && ws->so2)
        rl_chain_reset(ws->chain, q);
    else if (ws->chain)
        RL_TRY(rl_chain_reset_identity(ws->chain, err)); /* nvec = d: sty_win_alloc */
    double lmax = -INFINITY;
    for (long delta = 1; delta <= T; delta++) {
        double *g = ws->g + (delta - 1) * d;
        draw_key(m, rd, delta == dt ? m->w : m->u, ws->k);
        if (ws->chain) {
            rl_chain_step(ws->chain, rt, 0);
            rl_chain_apply(ws->chain, ws->k, g); /* P_delta k */
        } else {
            memcpy(g, ws->k, sizeof(double) * d);
        }
        double l = dot(q, g, d) - (f->alibi ? m->slope * (double)delta : 0.0);
        ws->l[delta - 1] = l;
        lmax = fmax(lmax, l);
    }
    if (ws->chain) /* a failed draw (sampling/steps.h) leaves NaN logits */
        RL_TRY(rl_chain_status(ws->chain, err));
    double z = 0;
    for (long j = 0; j < T; j++)
        z += exp(ws->l[j] - lmax);
    const double lse = lmax + log(z);
    if (grad) {
        /* grad log alpha_t = g_t - sum_j alpha_j g_j */
        const double *gt = ws->g + (dt - 1) * d;
        for (int i = 0; i < d; i++)
            grad[i] += gt[i];
        for (long j = 0; j < T; j++) {
            const double a = exp(ws->l[j] - lse);
            const double *gj = ws->g + j * d;
            for (int i = 0; i < d; i++)
                grad[i] -= a * gj[i];
        }
    }
    *logp = ws->l[dt - 1] - lse;
    return RL_OK;
}

/* ---------------- the fit ---------------- */

rl_status sty_fit(const sty_model *m, const sty_fit_spec *f, const sty_fit_opts *o, double *q, double *curve,
                  rl_err *err)
{
    rl_status st = RL_OK;
    const int d = m->d;
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    double *mo = rl_xcalloc(3 * (size_t)d, sizeof(double)), *ve = mo + d, *g = mo + 2 * d;
    sty_win_ws *ws = sty_win_alloc(m, f->tr, o->T);
    rl_rng_local rd_l, rt_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *rd = rl_rng_local_init(&rd_l), *rt = rl_rng_local_init(&rt_l);
    memset(q, 0, sizeof(double) * d);
    for (int t = 0; t < o->steps; t++) {
        double obj = 0;
        memset(g, 0, sizeof(double) * d);
        for (int b = 0; b < o->batch; b++) {
            const uint64_t idx = (uint64_t)t * o->batch + b;
            rl_rng_stream(rd, o->seed, rl_stream_key(rl_stream_key(o->tag, o->rep), idx));
            rl_rng_stream(rt, o->seed, rl_stream_key(rl_stream_key(o->tag + 1 + f->tr, o->rep), idx));
            double lp = 0;
            if ((st = sty_window(m, f, q, o->T, rd, rt, ws, g, &lp, err)) != RL_OK)
                goto done;
            obj += lp;
        }
        if (curve)
            curve[t] = obj / o->batch;
        /* Adam ascent (Kingma & Ba 2015) with a linearly decaying step */
        const double lr = o->lr * (1.0 - 0.9 * t / (o->steps > 1 ? o->steps - 1 : 1));
        const double c1 = 1.0 - pow(b1, t + 1), c2 = 1.0 - pow(b2, t + 1);
        for (int i = 0; i < d; i++) {
            const double gi = g[i] / o->batch;
            mo[i] = b1 * mo[i] + (1 - b1) * gi;
            ve[i] = b2 * ve[i] + (1 - b2) * gi * gi;
            q[i] += lr * (mo[i] / c1) / (sqrt(ve[i] / c2) + eps);
        }
        /* projection on the ball |q| <= lambda: keeps |logit| <= lambda */
        const double n = sqrt(dot(q, q, d));
        if (n > m->lambda)
            for (int i = 0; i < d; i++)
                q[i] *= m->lambda / n;
    }
done:
    sty_win_free(ws);
    free(mo);
    return st;
}

/* ---------------- evaluation ---------------- */

struct sty_eval_ws {
    rl_chain *chain[STY_TR_COUNT];
    int slot[STY_NFIT];       /* row of fit f in its transport's chain */
    int values[STY_TR_COUNT]; /* some scheme transports values along tr */
    double *X;                /* queries of one chain, rows */
    double *k, *z, *o, *pv;   /* d each */
    double *pvt;              /* STY_TR_COUNT x d: P_{delta_t} v_t */
    double *acc;              /* STY_NSCHEME x d: sum_{j != t} e^{l_j} P_j vbar */
    double e[STY_NFIT];
    double Z[STY_NSCHEME], F[STY_NSCHEME], Z2[STY_NSCHEME], Et[STY_NSCHEME];
};

rl_status sty_eval_alloc(const sty_model *m, sty_eval_ws **out, rl_err *err)
{
    const int d = m->d;
    *out = NULL;
    sty_eval_ws *ws = rl_xcalloc(1, sizeof *ws);
    int nvec[STY_TR_COUNT] = { 0 };
    for (int f = 0; f < STY_NFIT; f++)
        ws->slot[f] = nvec[sty_fits[f].tr]++;
    for (int s = 0; s < STY_NSCHEME; s++)
        if (sty_schemes[s].values)
            ws->values[sty_fits[sty_schemes[s].fit].tr] = 1;
    for (int t = 0; t < STY_TR_COUNT; t++) {
        rl_family f;
        if (!nvec[t] || !sty_transport_family((sty_transport)t, d, &f))
            continue;
        /* transported values need P v: only SO(2) chains give it from the
         * tracked query rows alone */
        if (ws->values[t] && !rl_family_is_so2(&f)) {
            sty_eval_free(ws);
            return rl_fail(err, RL_EINPUT, "stylized: value transport along a non-SO(2) chain is not supported");
        }
        ws->chain[t] = rl_chain_alloc(&f, nvec[t]);
        if (!ws->chain[t]) {
            sty_eval_free(ws);
            return rl_fail(err, RL_ENOMEM, "out of memory allocating a chain");
        }
    }
    ws->X = rl_xmalloc(sizeof(double) * STY_NFIT * d);
    ws->k = rl_xmalloc(sizeof(double) * 4 * d);
    ws->z = ws->k + d;
    ws->o = ws->k + 2 * d;
    ws->pv = ws->k + 3 * d;
    ws->pvt = rl_xmalloc(sizeof(double) * STY_TR_COUNT * d);
    ws->acc = rl_xmalloc(sizeof(double) * STY_NSCHEME * d);
    *out = ws;
    return RL_OK;
}

void sty_eval_free(sty_eval_ws *ws)
{
    if (!ws)
        return;
    for (int t = 0; t < STY_TR_COUNT; t++)
        rl_chain_free(ws->chain[t]);
    free(ws->X);
    free(ws->k);
    free(ws->pvt);
    free(ws->acc);
    free(ws);
}

/* The quantities of every scheme for the context of length L (the tokens
 * walked so far).  The value noise sum_j alpha_j P_j sigma_v g_j / sqrt(d) is
 * drawn in aggregate: given the logits (which do not depend on it) each term
 * is N(0, alpha_j^2 sigma_v^2 / d I) whatever the orthogonal P_j, independent
 * over j, so the sum is sigma_v sqrt(sum alpha_j^2 / d) times one standard
 * normal vector z, shared by the schemes (common random numbers). */
static void finalize(const sty_model *m, sty_eval_ws *ws, long L, gsl_rng *rd, double *out, int g, int ng)
{
    const int d = m->d;
    const double bound = rl_farmass_lower((double)(L - m->k_near), (double)m->k_near, m->lambda);
    rl_ziggurat_fill(&m->zig, rd, ws->z, d);
    for (int s = 0; s < STY_NSCHEME; s++) {
        const sty_scheme *sc = &sty_schemes[s];
        const sty_fit_spec *f = &sty_fits[sc->fit];
        const double Z = ws->Z[s], Et = ws->Et[s];
        double *res = out + ((long)s * ng + g) * STY_NQ;
        /* signal: the target's own term along v_t, alpha_t v_t.V_t (V_t = v_t,
         * or P_{delta_t} v_t when values are transported); noise: everything
         * else in o, background leakage along v_t included */
        double bg = 0, sig;
        if (sc->values) {
            const double *pvt = ws->pvt + (long)f->tr * d, *acc = ws->acc + (long)s * d;
            for (int i = 0; i < d; i++) {
                ws->o[i] = (Et * pvt[i] + acc[i]) / Z;
                bg += acc[i] * acc[i];
            }
            bg = sqrt(bg) / Z;
            sig = Et / Z * dot(pvt, m->vt, d);
        } else {
            for (int i = 0; i < d; i++)
                ws->o[i] = (Et * m->vt[i] + (Z - Et) * m->vbar[i]) / Z;
            bg = (Z - Et) / Z; /* |vbar| = 1 */
            sig = Et / Z;
        }
        const double sn = m->value_noise * sqrt(ws->Z2[s] / d) / Z;
        for (int i = 0; i < d; i++)
            ws->o[i] += sn * ws->z[i];
        double rest = 0;
        for (int i = 0; i < d; i++) {
            const double r = ws->o[i] - sig * m->vt[i];
            rest += r * r;
        }
        const double rho = ws->F[s] / Z;
        res[STY_Q_ALPHA] = Et / Z;
        res[STY_Q_RHO] = rho;
        res[STY_Q_NLL] = log(Z) - log(Et);
        res[STY_Q_SNR] = sig / sqrt(rest);
        res[STY_Q_BG] = bg;
        res[STY_Q_SIG] = sig;
        res[STY_Q_VIOL] = !f->alibi && rho < bound * (1 - 1e-9);
    }
}

rl_status sty_eval(const sty_model *m, const double *Q, const long *grid, int ng, gsl_rng *rd, gsl_rng *const *rt,
                   sty_eval_ws *ws, double *out, rl_err *err)
{
    const int d = m->d;
    const long dt = draw_target(m, rd), lmax = grid[ng - 1];
    /* the grid increases: every context holds the target when the first does */
    if (grid[0] < dt)
        return rl_fail(err, RL_EINPUT, "stylized: context %ld shorter than the target distance %ld", grid[0], dt);
    for (int t = 0; t < STY_TR_COUNT; t++) {
        if (!ws->chain[t])
            continue;
        for (int f = 0; f < STY_NFIT; f++)
            if (sty_fits[f].tr == (sty_transport)t)
                memcpy(ws->X + (long)ws->slot[f] * d, Q + (long)f * d, sizeof(double) * d);
        rl_chain_reset(ws->chain[t], ws->X);
    }
    for (int s = 0; s < STY_NSCHEME; s++)
        ws->Z[s] = ws->F[s] = ws->Z2[s] = ws->Et[s] = 0;
    memset(ws->acc, 0, sizeof(double) * STY_NSCHEME * d);
    const double *rows[STY_TR_COUNT] = { 0 };
    int g = 0;
    for (long delta = 1; delta <= lmax; delta++) {
        const int is_t = delta == dt;
        draw_key(m, rd, is_t ? m->w : m->u, ws->k);
        for (int t = 0; t < STY_TR_COUNT; t++) {
            if (!ws->chain[t])
                continue;
            rl_chain_step(ws->chain[t], rt[t], 0);
            rows[t] = rl_chain_rows(ws->chain[t]); /* P_delta^T q for each query */
        }
        /* logits: q^T P_delta k = (P_delta^T q)^T k */
        for (int f = 0; f < STY_NFIT; f++) {
            const sty_transport t = sty_fits[f].tr;
            const double *qf = t == STY_TR_NONE ? Q + (long)f * d : rows[t] + (long)ws->slot[f] * d;
            double l = dot(qf, ws->k, d) - (sty_fits[f].alibi ? m->slope * (double)delta : 0.0);
            ws->e[f] = exp(l);
        }
        for (int t = 0; t < STY_TR_COUNT; t++) {
            if (!ws->values[t])
                continue;
            if (is_t) {
                rl_chain_apply(ws->chain[t], m->vt, ws->pvt + (long)t * d);
                continue;
            }
            rl_chain_apply(ws->chain[t], m->vbar, ws->pv);
            for (int s = 0; s < STY_NSCHEME; s++) {
                if (!sty_schemes[s].values || sty_fits[sty_schemes[s].fit].tr != (sty_transport)t)
                    continue;
                const double e = ws->e[sty_schemes[s].fit];
                double *acc = ws->acc + (long)s * d;
                for (int i = 0; i < d; i++)
                    acc[i] += e * ws->pv[i];
            }
        }
        for (int s = 0; s < STY_NSCHEME; s++) {
            const double e = ws->e[sty_schemes[s].fit];
            ws->Z[s] += e;
            ws->Z2[s] += e * e;
            if (delta > m->k_near)
                ws->F[s] += e;
            if (is_t)
                ws->Et[s] = e;
        }
        if (delta == grid[g]) {
            finalize(m, ws, delta, rd, out, g, ng);
            g++;
        }
    }
    for (int t = 0; t < STY_TR_COUNT; t++) /* a failed draw (sampling/steps.h) left NaN in out */
        if (ws->chain[t])
            RL_TRY(rl_chain_status(ws->chain[t], err));
    return RL_OK;
}
