/* test_model_schemes.c: the position schemes (scheme.h) through their
 * registry: names and configurations; for EVERY registered scheme, in
 * every mode it takes and with ALiBi where it composes with it
 * (tm_registry_cases), the finite-difference gradient of the whole model,
 * streaming evaluation equal to the training forward, evaluation
 * reproducible for a key (and changed by it when the scheme draws noise),
 * a checkpoint round trip; then properties of particular schemes: pemb at
 * zero equals RoPE, zero angles in qkv mode equal the plain model,
 * accumulated angles stay exact at 65,536 positions.  Elsewhere:
 * thread-count independence of every scheme (test_model_attn.c), the CLI
 * (test_model_cli.c), PaTH's kernel (test_model_path.c), random_pos
 * (test_model_random_pos.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/parameterized.h>

#include "../model/accum_rot.h"
#include "../model/ckpt.h"
#include "../model/gpt.h"
#include "../model/position.h"
#include "../model/scheme_rot.h"
#include "../sampling/rng.h"
#include "helpers.h"
#include "test_model_util.h"

static const char *const SCHEMES[] = { "none", "rope", "alibi", "fixed-rope", "random_qk",
                                       "random_qkv", "pemb_qk", "pemb_qkv", "pemb-shared_qk",
                                       "pemb-shared_qkv", "lf_qk", "lf_qkv", "alibi+random_qkv",
                                       "path", "random-hh" };
#define NSCHEMES (int)(sizeof SCHEMES / sizeof *SCHEMES)

/* Every study name parses to a configuration whose canonical name is the
 * name itself; aliases map to the study's spelling; contradictions, value
 * transport without a rotation and PaTH with value transport are refused. */
Test(model_schemes, names_and_configurations)
{
    char err[512];
    rl_pos_config p;
    for (int i = 0; i < NSCHEMES; i++) {
        cr_assert_eq(rl_pos_parse(SCHEMES[i], -1, &p, err, sizeof err), 0, "%s: %s", SCHEMES[i], err);
        cr_expect_str_eq(rl_pos_name(p), SCHEMES[i]);
    }
    const char *alias[][3] = { /* name, --mode, canonical */
        { "random", "qkv", "random_qkv" }, { "random", "", "random_qk" },
        { "rope", "qkv", "fixed-rope" },   { "rope_qkv", "", "fixed-rope" },
        { "alibi+random", "", "alibi+random_qkv" }, { "alibi+random_qk", "", "alibi+random_qk" },
        { "lf", "qk", "lf_qk" },           { "pemb_qkv", "qkv", "pemb_qkv" },
        { "pemb-shared", "qkv", "pemb-shared_qkv" }, { "alibi+pemb-shared", "", "alibi+pemb-shared_qk" },
    };
    for (size_t i = 0; i < sizeof alias / sizeof *alias; i++) {
        int mode = !*alias[i][1] ? -1 : strcmp(alias[i][1], "qk") ? RL_MODE_QKV : RL_MODE_QK;
        cr_assert_eq(rl_pos_parse(alias[i][0], mode, &p, err, sizeof err), 0, "%s", err);
        cr_expect_str_eq(rl_pos_name(p), alias[i][2], "%s --mode %s", alias[i][0], alias[i][1]);
    }
    p = tm_pos("alibi+random");
    cr_expect(p.alibi == 1 && p.rot == RL_ROT_RANDOM && p.mode == RL_MODE_QKV);
    const char *bad[][2] = { { "random_qkv", "qk" }, { "fixed-rope", "qk" }, { "alibi", "qkv" },
                             { "none", "qkv" }, { "sinusoid", "" }, { "alibi+alibi", "" },
                             { "random_q", "" }, { "path", "qkv" }, { "alibi+path", "" },
                             { "random-hh", "qkv" }, { "alibi+random-hh", "" }, { "random-hh_qkv", "" } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int mode = !*bad[i][1] ? -1 : strcmp(bad[i][1], "qk") ? RL_MODE_QKV : RL_MODE_QK;
        cr_expect_eq(rl_pos_parse(bad[i][0], mode, &p, err, sizeof err), -1, "%s accepted",
                     bad[i][0]);
    }
    p = tm_pos("path");
    cr_expect(p.path == RL_PATH_PATH && p.rot == RL_ROT_NONE && p.mode == RL_MODE_QK && !p.alibi);
    p = tm_pos("random-hh");
    cr_expect(p.path == RL_PATH_RANDOM_HH && p.rot == RL_ROT_NONE && p.mode == RL_MODE_QK && !p.alibi);
    cr_expect_str_eq(rl_pos_name(p), "random-hh");
    /* the configuration check refuses what the parser cannot express */
    rl_gpt_config c = { 2, 12, 4, 8, 16, 0.0f, { RL_ROT_NONE, RL_MODE_QKV, 0, 0 }, RL_ROT_BASE_DEFAULT };
    c.width = 16;
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) != NULL, "qkv without rotation");
    c.pos = tm_pos("random_qk");
    c.width = 12; /* head dim 3: odd */
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) != NULL, "odd head dim");
    c.width = 16;
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) == NULL, "%s", err);
    c.pos.path = 1;
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) != NULL, "path with a rotation");
    c.pos = tm_pos("path");
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) == NULL, "%s", err);
    c.pos = (rl_pos_config){ RL_ROT_KINDS, 0, 0, 0 };
    cr_expect(rl_gpt_config_check(&c, err, sizeof err) != NULL, "rotation out of range");
    /* parameter counts: pemb L V H hd/2, pemb-shared L V hd/2, lf C C + C +
     * C/2 C + C/2 + C */
    c.pos = tm_pos("rope");
    long base = rl_gpt_param_count(&c);
    c.pos = tm_pos("pemb_qk");
    cr_expect_eq(rl_gpt_param_count(&c) - base, 2L * 16 * 4 * 2);
    c.pos = tm_pos("pemb-shared_qk");
    cr_expect_eq(rl_gpt_param_count(&c) - base, 2L * 16 * 2);
    c.pos = tm_pos("lf_qkv");
    cr_expect_eq(rl_gpt_param_count(&c) - base, 16L * 16 + 16 + 8 * 16 + 8 + 16);
}


/* Model FLOPs (config.h): RoPE's by PaLM's accounting; PaTH's adds its two
 * projections (6 (C^2 + H C) a layer) and its Householder products, 2 FLOPs
 * a multiply-add, forward + a 3x backward, of (T/64)(9 64^2 hd + 2 64^3) +
 * (T^2/2)(hd^2/64) per head and window (docs/model/path.md#path-flops), written out here
 * from the notes, not from the code; a window's forward FLOPs halve the
 * attention causally. */
Test(model_schemes, flops_count_the_schemes_own_arithmetic)
{
    rl_gpt_config c = { 2, 64, 2, 128, 256, 0.0f, tm_pos("rope"), RL_ROT_BASE_DEFAULT };
    const double L = 2, C = 64, H = 2, T = 128, V = 256, hd = 32;
    const double mw = L * 12 * C * C + V * C;
    cr_expect_float_eq(rl_gpt_flops_per_token(&c, 128), 6 * mw + 12 * L * C * T, 1e-9 * 6 * mw);
    cr_expect_float_eq(rl_gpt_eval_flops(&c, 4096), 2 * mw * 4096 + 4 * L * C * 4096.0 * 4097 / 2, 1e-3);
    c.pos = tm_pos("path");
    const double madds = T / 64 * (9 * 64 * 64 * hd + 2 * 64.0 * 64 * 64) + T * T / 2 * (hd * hd / 64);
    const double path = 6 * (mw + L * (C * C + H * C)) + 12 * L * C * T + 8 * L * H * madds / T;
    cr_expect_float_eq(rl_gpt_flops_per_token(&c, 128), path, 1e-9 * path);
    const double m4 = 4096.0 / 64 * (9 * 64 * 64 * hd + 2 * 64.0 * 64 * 64) + 4096.0 * 4096 / 2 * (hd * hd / 64);
    const double ev = 2 * (mw + L * (C * C + H * C)) * 4096 + 4 * L * C * 4096.0 * 4097 / 2 + 2 * L * H * m4;
    cr_expect_float_eq(rl_gpt_eval_flops(&c, 4096), ev, 1e-9 * ev);
}

/* ---- the registry --------------------------------------------------- */

typedef tm_scheme_case scheme_case;

/* Whether the word w is in the space-separated list of text. */
static int has_word(const char *text, const char *w)
{
    const size_t k = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
        if ((p == text || p[-1] == ' ') && (p[k] == ' ' || p[k] == 0))
            return 1;
    return 0;
}

/* Every scheme has its own code (below RL_ROT_KINDS: checkpoints store it),
 * the hooks a scheme must have, its base name among the words of --pos's
 * help, and a step law the theory can read: constant and closed laws name
 * an angle law (constant for CONSTANT), closed and measured ones have the
 * step hooks, the shared closed-law hooks a law with a centre; every
 * configuration the registry allows has a name that parses back to it,
 * passes the configuration check and allocates a model whose tensors add
 * up to rl_gpt_param_count; the study's names are all among them. */
Test(model_schemes, registry)
{
    scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    char err[512];
    int nschemes = 0;
    for (const rl_scheme *const *s = rl_schemes; *s; s++, nschemes++) {
        const rl_scheme *S = *s;
        cr_expect(S->name && S->attend && S->attend_backward && S->logits, "%s", S->name);
        cr_expect(rl_scheme_of((rl_pos_config){ S->rot, 0, 0, S->path }) == S,
                  "%s: its code is taken by another scheme", S->name);
        cr_expect(S->rot >= 0 && S->rot < RL_ROT_KINDS, "%s: code %d", S->name, S->rot);
        cr_expect(has_word(rl_pos_help, S->name), "%s is not a word of --pos's help: %s", S->name,
                  rl_pos_help);
        const int hooks = S->step_lanes && S->steps;
        switch (S->steps_kind) {
        case RL_STEPS_NONE:
            cr_expect(!S->step_lanes && !S->steps && !S->transport, "%s: steps without a law", S->name);
            break;
        case RL_STEPS_CONSTANT:
            cr_expect(S->step_law == RL_ANG_CONSTANT, "%s", S->name);
            break;
        case RL_STEPS_CLOSED:
            cr_expect(hooks && S->step_law != RL_ANG_CONSTANT && S->step_law < RL_ANG_COUNT, "%s",
                      S->name);
            break;
        case RL_STEPS_MEASURED:
            cr_expect(hooks, "%s", S->name);
            break;
        case RL_STEPS_TRANSPORT: /* no angles: the transport hook instead of the step hooks */
            cr_expect(S->transport && !S->step_lanes && !S->steps, "%s", S->name);
            break;
        default:
            cr_expect(0, "%s: steps kind %d", S->name, (int)S->steps_kind);
        }
        cr_expect(!S->transport_log_mean || S->steps_kind == RL_STEPS_TRANSPORT,
                  "%s: a closed mean transport without a transport", S->name);
        if (S->prepare == rl_acc_closed_prepare || S->steps == rl_acc_closed_steps)
            cr_expect(rl_acc_centre(S->step_law) >= 0, "%s: a closed law with no centre", S->name);
    }
    cr_expect(nschemes >= 1 && n >= (size_t)nschemes, "%d schemes, %zu configurations", nschemes, n);
    for (size_t i = 0; i < n; i++) {
        const char *name = rl_pos_name(c[i].pos);
        rl_pos_config p;
        cr_assert_eq(rl_pos_parse(name, -1, &p, err, sizeof err), 0, "%s: %s", name, err);
        cr_expect(rl_pos_equal(p, c[i].pos), "%s parses to another configuration", name);
        rl_gpt_config cfg = { 2, 16, 2, 8, 13, 0.0f, c[i].pos, RL_ROT_BASE_DEFAULT };
        cr_expect(rl_gpt_config_check(&cfg, err, sizeof err) == NULL, "%s: %s", name, err);
        rl_gpt *m = rl_gpt_alloc(&cfg, 1);
        cr_assert(m, "%s", name);
        long sum = 0;
        for (int t = 0; t < m->ntensors; t++)
            sum += m->tensors[t].n;
        cr_expect_eq(sum, rl_gpt_param_count(&cfg), "%s", name);
        cr_expect_eq(m->nparams, sum, "%s", name);
        rl_gpt_free(m);
    }
    for (int i = 0; i < NSCHEMES; i++) {
        int found = 0;
        for (size_t k = 0; k < n; k++)
            found |= rl_pos_equal(tm_pos(SCHEMES[i]), c[k].pos);
        cr_expect(found, "%s is not a registered configuration", SCHEMES[i]);
    }
    cr_log_info("%zu configurations of the %d registered schemes", n, nschemes);
}

ParameterizedTestParameters(model_schemes, gradients)
{
    static scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    return cr_make_param_array(scheme_case, c, n);
}

/* The whole model against central differences (tm_check_model), every
 * tensor: the decoder's and the scheme's (pemb's tables, lf's shared MLP,
 * PaTH's projections), with every configuration's gradient through the
 * scheme's attend_backward and input_backward. */
ParameterizedTest(scheme_case *c, model_schemes, gradients, .timeout = 120)
{
    tm_check_model(c->pos, 0.0f);
}

ParameterizedTestParameters(model_schemes, streaming_equals_forward)
{
    static scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    return cr_make_param_array(scheme_case, c, n);
}

/* The chunked streaming evaluation equals the training forward on the same
 * window (loss sums agree to 1e-5 relative): a window longer than the
 * 256-row chunk and the 64-query block.  The forward and the evaluation get
 * the same key, so random and lf draw the same noise. */
ParameterizedTest(scheme_case *c, model_schemes, streaming_equals_forward, .timeout = 120)
{
    const int T = 300;
    uint16_t tok[301];
    for (int i = 0; i <= T; i++)
        tok[i] = (uint16_t)((i * 37 + i / 7) % 64);
    rl_gpt_config cfg = { 2, 32, 4, T, 64, 0.0f, c->pos, RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    cr_assert(m);
    rl_gpt_init(m, 3);
    tm_randn(m->params, m->nparams, 4, 0.1f); /* away from init: nontrivial attention */
    double a = rl_gpt_forward(m, tok, T + 1, 1, T, 0, 1234) * T;
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, T);
    double b = rl_gpt_eval_window(m, e, tok, T, 1234);
    const char *name = rl_pos_name(c->pos);
    cr_log_info("%s: forward %.9g eval %.9g", name, a, b);
    cr_expect_lt(fabs(a - b), 1e-5 * fabs(a), "%s: %g vs %g", name, a, b);
    rl_gpt_eval_free(e);
    rl_gpt_free(m);
}

/* ---- particular schemes ----------------------------------------------- */

/* A model of scheme pos with parameters away from initialisation (sd 0.1,
 * norms near 1); B windows of capacity T. */
static rl_gpt *model(const char *pos, int T, int B, uint64_t seed)
{
    rl_gpt_config cfg = { 2, 32, 4, T, 64, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, B);
    rl_gpt_init(m, seed);
    tm_randn(m->params, m->nparams, seed + 1, 0.1f);
    for (int i = 0; i < m->ntensors; i++)
        if (m->tensors[i].kind == RL_T_NORM_W)
            for (long j = 0; j < m->tensors[i].n; j++)
                m->params[m->tensors[i].off + j] += 1.0f;
    return m;
}

static void tokens(uint16_t *tok, long n, int V)
{
    for (long i = 0; i < n; i++)
        tok[i] = (uint16_t)((i * 37 + i / 7 + (i * i) % 11) % V);
}

/* The parameters of tensors named alike copied from src (same shape). */
static void copy_shared(rl_gpt *dst, const rl_gpt *src)
{
    for (int i = 0; i < dst->ntensors; i++)
        for (int j = 0; j < src->ntensors; j++)
            if (!strcmp(dst->tensors[i].name, src->tensors[j].name))
                memcpy(dst->params + dst->tensors[i].off, src->params + src->tensors[j].off,
                       sizeof(float) * src->tensors[j].n);
}

static double max_abs_diff(const float *a, const float *b, long n)
{
    double d = 0;
    for (long i = 0; i < n; i++)
        d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

/* pemb with E = 0 has steps omega_p, so A_t = t omega_p: RoPE's angles,
 * only the rounding of the running sum differs (about 1e-15 rad).  Same
 * weights, same tokens: per-position losses agree to float rounding, in
 * both modes, in training and in the long-window evaluation. */
Test(model_schemes, pemb_at_zero_equals_rope)
{
    const int T = 64, B = 2, L = 1500;
    uint16_t tok[1501];
    tokens(tok, 1501, 64);
    const char *pairs[4][2] = { { "pemb_qk", "rope" }, { "pemb_qkv", "fixed-rope" },
                                { "pemb-shared_qk", "rope" }, { "pemb-shared_qkv", "fixed-rope" } };
    for (int k = 0; k < 4; k++) {
        rl_gpt *r = model(pairs[k][1], T, B, 3), *p = model(pairs[k][0], T, B, 3);
        copy_shared(p, r);
        for (int l = 0; l < 2; l++) /* E_l */
            memset(p->p.pos[l], 0, sizeof(float) * (size_t)(rl_pos_param_count(&p->cfg) / 2));
        double lr = rl_gpt_forward(r, tok, T + 1, B, T, 0, 7);
        double lp = rl_gpt_forward(p, tok, T + 1, B, T, 0, 7);
        double d = max_abs_diff(r->losses, p->losses, (long)B * T);
        cr_log_info("%s vs %s: losses %.9g %.9g, max per-position difference %.2e", pairs[k][0],
                    pairs[k][1], lp, lr, d);
        cr_expect_lt(d, 1e-5, "%s vs %s: %g", pairs[k][0], pairs[k][1], d);
        rl_gpt_eval *er = rl_gpt_eval_alloc(r, L), *ep = rl_gpt_eval_alloc(p, L);
        double sr = rl_gpt_eval_window(r, er, tok, L, 1), sp = rl_gpt_eval_window(p, ep, tok, L, 1);
        cr_log_info("%s eval L=%d: %.9g vs %.9g", pairs[k][0], L, sp, sr);
        cr_expect_lt(fabs(sp - sr), 1e-6 * fabs(sr), "eval %g vs %g", sp, sr);
        rl_gpt_eval_free(er);
        rl_gpt_eval_free(ep);
        rl_gpt_free(r);
        rl_gpt_free(p);
    }
}

/* lf with its LayerNorm's gain and bias at 0 has f = 0, so every angle is
 * 0: in qkv mode (values rotated, outputs inverse-rotated) the model is the
 * plain one, loss and the gradient of every shared tensor alike (a rotation
 * by cos 1, sin 0 is exact, so bit for bit). */
Test(model_schemes, qkv_with_zero_angles_equals_plain)
{
    const int T = 48, B = 2;
    uint16_t tok[2 * 49];
    tokens(tok, 98, 64);
    rl_gpt *n = model("none", T, B, 5), *q = model("lf_qkv", T, B, 5);
    copy_shared(q, n);
    memset(q->p.pos[RL_LF_LNW], 0, sizeof(float) * 16);
    memset(q->p.pos[RL_LF_LNB], 0, sizeof(float) * 16);
    double ln = rl_gpt_forward(n, tok, T + 1, B, T, 1, 9);
    double lq = rl_gpt_forward(q, tok, T + 1, B, T, 1, 9);
    cr_expect(ln == lq, "loss %.17g vs %.17g", lq, ln);
    rl_gpt_zero_grad(n);
    rl_gpt_zero_grad(q);
    rl_gpt_backward(n, 1.0f / (B * T));
    rl_gpt_backward(q, 1.0f / (B * T));
    for (int i = 0; i < n->ntensors; i++) {
        const rl_tensor *t = &n->tensors[i];
        double d = max_abs_diff(n->grads + t->off, q->grads + q->tensors[i].off, t->n);
        cr_expect_eq(d, 0.0, "%s: gradients differ by %g", t->name, d);
    }
    rl_gpt_free(n);
    rl_gpt_free(q);
}

/* Whether a transport scheme's steps (its transport hook, layer 0) change
 * with the forward's key: training forwards of m's B windows of ctx tokens
 * with keys 1 and 2 (random-hh: directions drawn from the key; path: w and
 * beta read from LN1 alone). */
static int transport_keyed(rl_gpt *m)
{
    const long T = m->cfg.ctx, C = m->cfg.width, H = m->cfg.heads, n = (long)m->B * T;
    uint16_t *tok = malloc(sizeof(uint16_t) * (size_t)(m->B * (T + 1)));
    for (long i = 0; i < m->B * (T + 1); i++)
        tok[i] = (uint16_t)(i % m->cfg.vocab);
    float *first = malloc(sizeof(float) * (size_t)(n * (C + H)));
    const float *w, *beta;
    int keyed = 0;
    for (uint64_t key = 1; key <= 2; key++) {
        rl_gpt_forward(m, tok, T + 1, m->B, (int)T, 0, key);
        m->sx.s->transport(m->ss.st, &m->sx, 0, &w, &beta);
        if (key == 1) {
            memcpy(first, w, sizeof(float) * n * C);
            memcpy(first + n * C, beta, sizeof(float) * n * H);
        } else {
            keyed = memcmp(first, w, sizeof(float) * n * C) || memcmp(first + n * C, beta, sizeof(float) * n * H);
        }
    }
    free(first);
    free(tok);
    return keyed;
}

/* Whether m's scheme draws noise: some step of its law (rl_scheme_steps)
 * has a positive half-width (random, random_pos, lf; at m's parameters and
 * LN1 rows of sd 1 for lf), or its transport's steps change with the key
 * (random-hh). */
static int draws_noise(rl_gpt *m)
{
    if (m->sx.s->transport)
        return transport_keyed(m);
    const int lanes = rl_scheme_step_lanes(&m->sx);
    if (lanes <= 0)
        return 0;
    const int C = m->cfg.width;
    float ln[2 * 64];
    uint16_t tok[2] = { 1, 2 };
    double c[2 * 64], w[2 * 64];
    cr_assert_leq(C, 64);
    tm_randn(ln, 2L * C, 29, 1.0f);
    rl_scheme_steps(&m->sx, 0, ln, tok, 2, c, w);
    int noisy = 0;
    for (int i = 0; i < 2 * lanes; i++)
        noisy |= w[i] > 0;
    return noisy;
}

/* Every configuration of the registry evaluates reproducibly for a key
 * (the eval command's seed and window index), and the noisy ones (random,
 * random_pos, lf: a step law of positive half-width; random-hh: its directions) change with it: the
 * noise is redrawn at every forward, from streams of the key, not from a
 * global generator; the others ignore the key. */
Test(model_schemes, noisy_eval_reproducible)
{
    const long L = 700;
    uint16_t tok[701];
    tokens(tok, 701, 64);
    scheme_case cs[TM_MAX_CASES];
    const size_t n = tm_registry_cases(cs, TM_MAX_CASES);
    int noisy = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = rl_pos_name(cs[i].pos);
        rl_gpt *m = model(name, 16, 1, 13);
        const int drawn = draws_noise(m);
        rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
        double a = rl_gpt_eval_window(m, e, tok, L, 42), b = rl_gpt_eval_window(m, e, tok, L, 42);
        double c = rl_gpt_eval_window(m, e, tok, L, 43);
        cr_log_info("%s (%s): key 42 %.12g twice %.12g, key 43 %.12g", name,
                    drawn ? "noisy" : "no noise", a, b, c);
        cr_expect(a == b, "%s: %.17g vs %.17g", name, a, b);
        if (drawn)
            cr_expect(a != c, "%s: another key, same loss %.17g", name, a);
        else
            cr_expect(a == c, "%s draws no noise, yet the key changed the loss", name);
        noisy += drawn;
        rl_gpt_eval_free(e);
        rl_gpt_free(m);
    }
    cr_expect_geq(noisy, 5, "random, random_pos, lf: at least their qk and qkv configurations; random-hh");
}

/* Every configuration of the registry survives a checkpoint: the loaded
 * model has the same scheme (the code the file stores), name, parameters
 * and, evaluated with the same key, the same loss to the bit. */
Test(model_schemes, checkpoint_round_trip, .timeout = 120)
{
    scheme_case cs[TM_MAX_CASES];
    const size_t n = tm_registry_cases(cs, TM_MAX_CASES);
    char *d = th_tmpdir(), *path = th_path(d, "ck.bin");
    const long L = 40;
    uint16_t tok[41];
    tokens(tok, 41, 64);
    for (size_t i = 0; i < n; i++) {
        const char *name = rl_pos_name(cs[i].pos);
        rl_gpt *m = model(name, 16, 1, 23);
        rl_ckpt_meta meta = { 0, 10, 1, 1, 7, "1e-3", 1, 1, 100, 0 };
        rl_err err;
        cr_assert_eq(rl_ckpt_save(path, m, &meta, &err), RL_OK, "%s: %s", name, err.msg);
        rl_gpt *l;
        rl_ckpt_meta mt;
        cr_assert_eq(rl_ckpt_load(path, 0, &l, &mt, &err), RL_OK, "%s: %s", name, err.msg);
        cr_expect(rl_pos_equal(l->cfg.pos, m->cfg.pos), "%s: loaded as %s", name, rl_pos_name(l->cfg.pos));
        cr_expect_str_eq(rl_pos_name(l->cfg.pos), name);
        cr_expect(l->sx.s == m->sx.s, "%s: another scheme object", name);
        cr_assert_eq(l->nparams, m->nparams, "%s", name);
        cr_expect(!memcmp(l->params, m->params, sizeof(float) * m->nparams), "%s: parameters", name);
        rl_gpt_eval *em = rl_gpt_eval_alloc(m, L), *el = rl_gpt_eval_alloc(l, L);
        const double a = rl_gpt_eval_window(m, em, tok, L, 5), b = rl_gpt_eval_window(l, el, tok, L, 5);
        cr_expect(a == b, "%s: eval %.17g before, %.17g after", name, a, b);
        rl_gpt_eval_free(em);
        rl_gpt_eval_free(el);
        rl_gpt_free(l);
        rl_gpt_free(m);
    }
    cr_log_info("%zu configurations saved and loaded", n);
    free(path);
    th_rmdir(d);
    free(d);
}

/* Exactness of accumulated angles at 65,536 positions.  (1) rl_angle_add
 * against a compensated long-double sum of the same steps, reduced mod 2 pi
 * in long double: random's steps (|theta| < 1), pemb-like (up to pi + 1)
 * and lf-like (up to 20 rad); the error bound 1e-9 rad is 200x below a
 * float's resolution of an angle near pi (2.4e-7).  (2) pemb's table of a
 * model at L = 65,536 with a nonzero table E (pemb and pemb-shared): cos
 * and sin against a long-double recomputation, within 3e-7 (float
 * rounding of cos, sin). */
Test(model_schemes, angles_exact_at_65536)
{
    const long n = 65536;
    const long double twopi = 2 * 3.14159265358979323846264338327950288L;
    gsl_rng *r = rl_rng_alloc();
    const double scale[3] = { 1.0, M_PI + 1, 20.0 };
    for (int k = 0; k < 3; k++) {
        rl_rng_stream(r, 17, (uint64_t)k);
        double a = 0, worst = 0;
        long double s = 0, comp = 0;
        float naive = 0;
        for (long t = 1; t <= n; t++) {
            double th = scale[k] * (2 * gsl_rng_uniform(r) - 1) + (k == 1 ? 0.3 : 0);
            a = rl_angle_add(a, th);
            long double y = th - comp, u = s + y; /* Kahan */
            comp = (u - s) - y;
            s = u;
            naive += (float)th;
            long double ref = remainderl(s, twopi);
            double e = fabs((double)remainderl((long double)a - ref, twopi));
            worst = fmax(worst, e);
        }
        double nerr = fabs((double)remainderl((long double)naive - s, twopi));
        cr_log_info("steps up to %.2f rad: max |angle - exact| %.2e rad (float running sum: %.2e)",
                    scale[k], worst, nerr);
        cr_expect_lt(worst, 1e-9, "scale %g: %g", scale[k], worst);
    }
    gsl_rng_free(r);

    /* (2) pemb's table through the model's own evaluation path, in both
     * conventions (docs/model/schemes.md#pemb-author): position t steps by theta(x_{t-k}), the
     * key's token (pemb, k = 1) or the query's (pemb-shared, k = 0) */
    const char *names[2] = { "pemb_qk", "pemb-shared_qk" };
    for (int k = 1; k >= 0; k--) {
        rl_gpt_config cfg = { 1, 8, 1, 8, 5, 0.0f, tm_pos(names[1 - k]), RL_ROT_BASE_DEFAULT };
        rl_gpt *m = rl_gpt_alloc(&cfg, 1);
        rl_gpt_init(m, 1);
        tm_randn(m->p.pos[0], 5 * 4, 19, 0.5f);
        uint16_t *tok = malloc(sizeof(uint16_t) * n);
        float *ln = calloc(1, sizeof(float)); /* pemb ignores the LN1 output */
        tokens(tok, n, 5);
        /* the streaming evaluation's table of layer 0 (scheme.h: prepare) */
        rl_scheme_state ss;
        rl_scheme_state_alloc(&ss, &m->sx, 1, n, 1);
        m->sx.s->prepare(ss.st, &m->sx, 0, ln, tok, n, 1, (int)n, 0, NULL); /* pemb needs no scratch */
        const rl_rot_state *rs = ss.st;
        const float *cs = rs->tab.cos, *sn = rs->tab.sin;
        double worst = 0;
        for (int p = 0; p < 4; p++) {
            long double om = powl(10000.0L, -2.0L * p / 8), a = 0;
            for (long t = 0; t < n; t++) {
                if (t)
                    a += 3.14159265358979323846264338327950288L * tanhl(m->p.pos[0][tok[t - k] * 4 + p]) + om;
                long double ar = remainderl(a, twopi);
                worst = fmax(worst, fabs((double)(cosl(ar) - cs[t * 4 + p])));
                worst = fmax(worst, fabs((double)(sinl(ar) - sn[t * 4 + p])));
            }
        }
        cr_log_info("%s table at 65,536 positions: max |cos, sin - long double| = %.2e", names[1 - k], worst);
        cr_expect_lt(worst, 3e-7, "%s: %g", names[1 - k], worst);
        rl_scheme_state_free(&ss);
        free(tok);
        free(ln);
        rl_gpt_free(m);
    }
}
