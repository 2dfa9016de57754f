/* horizon.c: predicted against measured extrapolation horizons (horizon.h;
 * the prediction's definition: model/steplaw.h, docs/theory/claim1-mixing.md#mixing-window). */
#include "horizon.h"

#include "../../base/core/lock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/core/util.h"
#include "../../model/ckpt.h"
#include "../../model/data.h"
#include "../report/plot.h"
#include "../report/tsv.h"
#include "../../sampling/so2.h"
#include "prose_reproduce.h"

#define MAXLEN 64
/* the noise of lf's forward while its steps are read: seed ^ "HORIZON" */
#define RL_HORIZON_KEY 0x484f52495a4f4eULL

long rl_horizon_measured(const long *len, const double *loss, const double *se, int n)
{
    if (n < 1 || isnan(loss[0]) || isnan(se[0]))
        return -1;
    for (int i = 1; i < n; i++) {
        if (len[i] <= len[0] || isnan(loss[i]) || isnan(se[i]))
            continue;
        if (loss[i] - loss[0] > 2.0 * hypot(se[i], se[0]))
            return len[i];
    }
    return -1;
}

rl_status rl_horizon_measured_file(const char *path, long *H, long *top, rl_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rl_fail(err, RL_EINPUT, "cannot read %s", path);
    char line[1024];
    long len[MAXLEN];
    double loss[MAXLEN], se[MAXLEN];
    int n = 0;
    if (fgets(line, sizeof line, f))
        while (n < MAXLEN && fgets(line, sizeof line, f)) {
            long w;
            if (sscanf(line, "%ld\t%ld\t%lf\t%lf", &len[n], &w, &loss[n], &se[n]) == 4)
                n++;
        }
    fclose(f);
    if (n == 0)
        return rl_fail(err, RL_EINPUT, "%s holds no evaluated length", path);
    *H = rl_horizon_measured(len, loss, se, n);
    *top = 0;
    for (int i = 0; i < n; i++)
        *top = len[i] > *top ? len[i] : *top;
    return RL_OK;
}

rl_status rl_horizon_write(const char *path, const char *variant, const rl_steplaw *s, rl_err *err)
{
    rl_outfile *o;
    RL_TRY(rl_outfile_create(path, &o, err));
    FILE *f = o->f;
    fprintf(f, "variant\tkind\tT\teps\tbase\tblock\tlayer\thead\tpair\tomega\tlog_chi\tchi\twindow\tpredicted"
               "\tmixstay\tmixstay_hi\n");
    const int nb = s->layers * s->lanes, P = s->hd / 2;
    if (s->kind == RL_STEPS_TRANSPORT) /* one row per (layer, head): no pair or frequency; chi and
                                        * window only for a closed mean (random-hh) */
        for (int b = 0; b < nb; b++) {
            char lc[40] = "NA", ch[40] = "NA", wn[24] = "NA";
            if (!isnan(s->logchi[b])) {
                snprintf(lc, sizeof lc, "%.12g", s->logchi[b]);
                snprintf(ch, sizeof ch, "%.15f", exp(s->logchi[b]));
                snprintf(wn, sizeof wn, "%ld", s->window[b]);
            }
            fprintf(f, "%s\t%s\t%ld\t%g\tNA\t%d\t%d\t%d\tNA\tNA\t%s\t%s\t%s\t%ld\t%.6g\t%.6g\n", variant,
                    rl_steps_kind_name(s->kind), s->ctx, s->eps, b, b / s->lanes, b % s->lanes, lc, ch, wn, s->horizon,
                    s->mix[b], s->mix_hi[b]);
        }
    else if (nb == 0)
        fprintf(f, "%s\t%s\t%ld\t%g\tNA\t-1\tNA\tNA\tNA\tNA\tNA\tNA\tNA\t%ld\tNA\tNA\n", variant,
                rl_steps_kind_name(s->kind), s->ctx, s->eps, s->horizon);
    for (int b = 0; b < nb && s->kind != RL_STEPS_TRANSPORT; b++) {
        const int l = b / s->lanes, j = b % s->lanes, p = j % P, h = j / P;
        fprintf(f, "%s\t%s\t%ld\t%g\t%.10g\t%d\t%d\t%d\t%d\t%.10g\t%.12g\t%.15f\t%ld\t%ld\t%.6g\t%.6g\n", variant,
                rl_steps_kind_name(s->kind), s->ctx, s->eps, s->base, b, l, h, p, pow(s->base, -2.0 * p / s->hd),
                s->logchi[b], exp(s->logchi[b]), s->window[b], s->horizon, s->mix[b], s->mix_hi[b]);
    }
    return rl_outfile_close(o, err);
}

/* kind and predicted are read by the header's names: predicted is no
 * longer the last column since mixstay and mixstay_hi follow it */
rl_status rl_horizon_read(const char *path, char *kind, size_t nkind, long *H, rl_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rl_fail(err, RL_EINPUT, "cannot read %s", path);
    char head[1024], line[1024], *hc[64], *c[64];
    const int ok = fgets(head, sizeof head, f) && fgets(line, sizeof line, f);
    fclose(f);
    const int nh = ok ? rl_tsv_fields(head, hc, 64) : 0, n = ok ? rl_tsv_fields(line, c, 64) : 0;
    int ck = -1, cp = -1;
    for (int i = 0; i < nh; i++) {
        ck = strcmp(hc[i], "kind") ? ck : i;
        cp = strcmp(hc[i], "predicted") ? cp : i;
    }
    char *end = NULL;
    if (ck >= 0 && cp >= 0 && cp < n && ck < n)
        *H = strtol(c[cp], &end, 10);
    if (!end || end == c[cp] || *end)
        return rl_fail(err, RL_EINPUT, "%s is not a horizon table", path);
    snprintf(kind, nkind, "%s", c[ck]);
    return RL_OK;
}

rl_status rl_horizon_run(const char *ckpt, const char *data, long ntok, long seed, double eps,
                         const char *out, rl_steplaw *s, rl_err *err)
{
    memset(s, 0, sizeof *s);
    if (!(eps > 0 && eps < 1))
        return rl_fail(err, RL_EINPUT, "--eps must be in (0, 1), got %g", eps);
    if (ntok < 0)
        return rl_fail(err, RL_EINPUT, "--tokens must be at least 0, got %ld", ntok);
    rl_gpt *m;
    rl_ckpt_meta meta;
    RL_TRY(rl_ckpt_load(ckpt, 4, &m, &meta, err));
    rl_dataset ds;
    rl_status st = rl_data_load(data, m->cfg.vocab, &ds, err);
    if (st) {
        rl_gpt_free(m);
        return st;
    }
    if (ntok > ds.val.n)
        ntok = ds.val.n;
    st = rl_steplaw_of(m, &ds.val, ntok, (uint64_t)seed ^ RL_HORIZON_KEY, eps, s, err);
    if (!st && out)
        st = rl_horizon_write(out, rl_pos_name(m->cfg.pos), s, err);
    rl_data_free(&ds);
    rl_gpt_free(m);
    return st;
}

/* One model's row: predicted (kind, H) and measured (H, top). */
typedef struct {
    char kind[16];
    long pred, meas, top;
    int have_pred, have_meas;
    char why[600];
} hrow;

/* The model's horizon.tsv, written from its checkpoint when it is missing
 * (rl_horizon_run); a failure's message into why (n bytes), else left. */
static void ensure_horizon(const rl_repro *r, int v, int k, char *why, size_t n)
{
    char *d = rl_repro_model_dir(r, v, k), *hp = rl_path_join(d, "horizon.tsv"), *ck = rl_path_join(d, "ckpt.bin");
    rl_err err;
    if (access(hp, R_OK) != 0 && access(ck, R_OK) == 0) {
        /* horizon.tsv goes into the model's folder, whose writers hold its
         * lock: taking it also removes a temporary an interrupted run left
         * there (a rerun of a finished grid starts no child in it) */
        rl_lock *lk;
        if (rl_lock_dir(d, &lk, &err) != RL_OK) {
            snprintf(why, n, "%s", err.msg);
        } else {
            rl_steplaw s;
            if (rl_horizon_run(ck, r->g.data, RL_HORIZON_TOKENS, rl_repro_seed(r, k), RL_HORIZON_EPS, hp, &s, &err))
                snprintf(why, n, "%s", err.msg);
            rl_steplaw_free(&s);
            rl_unlock(lk);
        }
    }
    free(d);
    free(hp);
    free(ck);
}

double rl_repro_mixstay_score(const rl_repro *r, int v, int k)
{
    char why[600] = "";
    ensure_horizon(r, v, k, why, sizeof why);
    char *d = rl_repro_model_dir(r, v, k), *hp = rl_path_join(d, "horizon.tsv");
    const double s = rl_horizon_read_mixstay(hp);
    free(d);
    free(hp);
    return s;
}

static void model_row(const rl_repro *r, int v, int k, hrow *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->kind, sizeof h->kind, "?");
    char *d = rl_repro_model_dir(r, v, k), *ev = rl_path_join(d, "eval.tsv"),
         *hp = rl_path_join(d, "horizon.tsv"), *ck = rl_path_join(d, "ckpt.bin");
    rl_err err;
    h->have_meas = rl_horizon_measured_file(ev, &h->meas, &h->top, &err) == RL_OK;
    ensure_horizon(r, v, k, h->why, sizeof h->why);
    if (access(hp, R_OK) == 0)
        h->have_pred = rl_horizon_read(hp, h->kind, sizeof h->kind, &h->pred, &err) == RL_OK;
    else if (!h->why[0])
        snprintf(h->why, sizeof h->why, "no horizon.tsv and no checkpoint");
    free(d);
    free(ev);
    free(hp);
    free(ck);
}

static const char *fmt_h(char *buf, size_t n, long H, long T, const char *never)
{
    if (H < 0)
        return never;
    snprintf(buf, n, "%ld (%.3g T)", H, (double)H / T);
    return buf;
}

/* The first grid length (T, 2T, 4T, ... <= top) at or after H; -1 when
 * H is none or beyond top. */
static long grid_at(long H, long T, long top)
{
    if (H < 0)
        return -1;
    long L = T;
    while (L < H && L <= top / 2)
        L *= 2;
    return L >= H ? L : -1;
}

/* What a row says: no prediction, or the measured horizon against the grid
 * length the prediction names. */
static const char *reading(const hrow *h, long T, long top, int *cls)
{
    *cls = 0;
    if (!h->have_pred || !h->have_meas)
        return "–";
    if (!strcmp(h->kind, "none") || !strcmp(h->kind, "constant") || !strcmp(h->kind, "transport"))
        return "no prediction from mixing";
    const long want = grid_at(h->pred, T, top);
    if (want == h->meas) {
        *cls = 1;
        return want < 0 ? "agrees (nothing within the grid)" : "agrees";
    }
    if (h->meas < 0 || (want > 0 && h->meas > want)) {
        *cls = 3;
        return "later than predicted";
    }
    *cls = 2;
    return "earlier than predicted";
}

void rl_repro_horizon_section(const rl_repro *r, FILE *fp)
{
    const int nv = r->nvar, K = r->g.seeds;
    const long T = r->g.train.ctx, top = T * r->g.max_mult;
    const rl_outdir od = { r->out };
    hrow *rows = rl_xcalloc((size_t)nv * K, sizeof *rows);
    long cap = 2 * top;
    for (int i = 0; i < nv * K; i++) {
        model_row(r, i / K, i % K, &rows[i]);
        if (rows[i].have_pred && rows[i].pred > cap / 2)
            cap = 2 * rows[i].pred;
    }
    rl_tsv *t = rl_tsv_open(&od, "horizons.tsv", "variant\tseed\tkind\tpredicted\tgrid_length\tmeasured\ttop"
                                                 "\treading\tpredicted_plot\tmeasured_plot");
    fprintf(fp, "## The window horizon H = min{W_b > T} (info)\n\n" RL_PROSE_HORIZON_INTRO
                "\n\n| variant | seed | step law | predicted H | grid length | measured | reading |\n"
                "|---|---|---|---|---|---|---|\n",
            RL_HORIZON_EPS, RL_HORIZON_TOKENS, top);
    int n[4] = { 0 };
    for (int i = 0; i < nv * K; i++) {
        const hrow *h = &rows[i];
        const int v = i / K, k = i % K;
        char b1[64], b2[64], b3[640], b4[64];
        const char *ps = !h->have_pred ? (snprintf(b3, sizeof b3, "– (%s)", h->why), b3)
                                       : fmt_h(b1, sizeof b1, h->pred, T, "none");
        const char *ms = h->have_meas ? fmt_h(b2, sizeof b2, h->meas, T, "beyond the grid") : "– (no eval.tsv)";
        const long want = h->have_pred ? grid_at(h->pred, T, top) : -1;
        const char *ws = !h->have_pred || h->pred < 0 ? "–" : fmt_h(b4, sizeof b4, want, T, "beyond the grid");
        int cls;
        const char *rd = reading(h, T, top, &cls);
        n[cls]++;
        fprintf(fp, "| %s | %ld | %s | %s | %s | %s | %s |\n", r->var[v], rl_repro_seed(r, k), h->kind, ps, ws, ms,
                rd);
        const double pp = h->have_pred ? (h->pred < 0 ? cap : (double)h->pred) : NAN;
        const double mp = h->have_meas ? (h->meas < 0 ? cap : (double)h->meas) : NAN;
        rl_tsv_row(t, "%s\t%ld\t%s\t%ld\t%ld\t%ld\t%ld\t%s\t%.6g\t%.6g", r->var[v], rl_repro_seed(r, k),
                   h->kind, h->pred, want, h->meas, h->top, rd, pp, mp);
    }
    rl_tsv_close(t);
    free(rows);
    char names[2048];
    int off = 0;
    names[0] = 0;
    for (int v = 0; v < nv && off < (int)sizeof names; v++)
        off += snprintf(names + off, sizeof names - off, v ? " %s" : "%s", r->var[v]);
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_I("ctx", T), RL_PV_I("cap", cap),
                                RL_PV_I("top", top), RL_PV_I("bytes", r->g.train.vocab == 256) };
    rl_plot(&od, "reproduce_horizon", "horizon", vars, RL_NVARS(vars));
    fprintf(fp, "\n" RL_PROSE_HORIZON_SUMMARY "\n\n![Predicted against measured horizon](horizon.png)\n\n*"
                RL_PROSE_HORIZON_FIG_HORIZON "*\n\n",
            n[1], n[2], n[3], cap, top);
}

double rl_horizon_read_mixstay(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    char line[4096], *c[64];
    int col = -1;
    double s = 0;
    long n = 0;
    if (fgets(line, sizeof line, f)) {
        const int m = rl_tsv_fields(line, c, 64);
        for (int i = 0; i < m; i++)
            if (!strcmp(c[i], "mixstay"))
                col = i;
    }
    while (col >= 0 && fgets(line, sizeof line, f)) {
        const int m = rl_tsv_fields(line, c, 64);
        s += col < m ? rl_tsv_num(c[col]) : NAN;
        n++;
    }
    fclose(f);
    return n ? s / n : NAN;
}
