/* scheme.c: the registry of position schemes, their names (rl_pos_parse,
 * rl_pos_name), and the scheme-independent helpers of scheme.h. */
#include "scheme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "position.h"

/* The registry: one X(ID, "NAME") per scheme, defined in its own file as
 * `const rl_scheme rl_scheme_ID` whose .name is "NAME", the word --pos
 * takes (the test model_schemes/registry checks it); ID is NAME where NAME
 * is an identifier (pemb-shared's is pemb_shared, random-hh's random_hh).  The order is the order
 * of listings. */
#define RL_SCHEME_LIST(X)                                                                          \
    X(none, "none") X(rope, "rope") X(random, "random") X(random_pos, "random_pos")              \
    X(pemb, "pemb") X(pemb_shared, "pemb-shared") X(lf, "lf") X(path, "path")                    \
    X(random_hh, "random-hh")

#define RL_SCHEME_DECLARE(n, w) extern const rl_scheme rl_scheme_##n;
#define RL_SCHEME_ENTRY(n, w) &rl_scheme_##n,
#define RL_SCHEME_WORD(n, w) " " w
RL_SCHEME_LIST(RL_SCHEME_DECLARE)
const rl_scheme *const rl_schemes[] = { RL_SCHEME_LIST(RL_SCHEME_ENTRY) NULL };

/* A constant (the option table's help is a string of the program), so the
 * base names come from the registry's words rather than its objects. */
const char rl_pos_help[] =
    "position scheme [alibi+]NAME[_qk|_qkv], NAME one of" RL_SCHEME_LIST(RL_SCHEME_WORD)
    " (no suffix: the mode from --mode, default qk; _qk, _qkv for a rotation); also alibi "
    "(none with ALiBi), fixed-rope (rope_qkv); alibi+random = alibi+random_qkv (the study's "
    "remedy; likewise alibi+random_pos); random-hh = random_hh";

const rl_scheme *rl_scheme_of(rl_pos_config p)
{
    for (const rl_scheme *const *s = rl_schemes; *s; s++)
        if ((*s)->rot == p.rot && (*s)->path == p.path)
            return *s;
    return NULL;
}

static int valid_bits(rl_pos_config p)
{
    return (p.mode == RL_MODE_QK || p.mode == RL_MODE_QKV) && (p.alibi == 0 || p.alibi == 1);
}

const char *rl_pos_name(rl_pos_config p)
{
    const rl_scheme *s = rl_scheme_of(p);
    if (!s || !valid_bits(p) || !s->names[p.alibi][p.mode])
        return "?";
    return s->names[p.alibi][p.mode];
}

/* The base names of the registered schemes, "none, rope, ...", or of
 * those that rotate only. */
static void base_names(char *buf, size_t n, int rotating)
{
    size_t u = 0;
    buf[0] = 0;
    for (const rl_scheme *const *s = rl_schemes; *s; s++)
        if ((!rotating || (*s)->names[0][1]) && u < n)
            u += (size_t)snprintf(buf + u, n - u, "%s%s", u ? ", " : "", (*s)->name);
}

/* s (without alibi+) as a scheme's base name, BASE_qk or BASE_qkv; *fixed
 * receives the mode the suffix fixes, or -1. */
static const rl_scheme *parse_base(const char *s, int *fixed)
{
    for (const rl_scheme *const *r = rl_schemes; *r; r++) {
        size_t k = strlen((*r)->name);
        if (strncmp(s, (*r)->name, k))
            continue;
        if (!s[k] || !strcmp(s + k, "_qk") || !strcmp(s + k, "_qkv")) {
            *fixed = !s[k] ? -1 : strcmp(s + k, "_qk") ? RL_MODE_QKV : RL_MODE_QK;
            return *r;
        }
    }
    return NULL;
}

/* A name is [alibi+]BASE[_qk|_qkv], the mode from --mode when no suffix
 * gives it, or a canonical name (fixed-rope, alibi, random_qkv, path, ...),
 * which fixes the mode where the scheme has a choice.  alibi+BASE of a
 * scheme with alibi_qkv fixes qkv: alibi+random is the study's remedy,
 * far-mass control plus transport, alibi+random_qkv.  A base name that is
 * a prefix of another (random, random_pos; pemb, pemb-shared) is no ambiguity: parse_base
 * takes only an exact BASE, BASE_qk or BASE_qkv. */
int rl_pos_parse(const char *name, int mode, rl_pos_config *out, char *err, size_t n)
{
    const char *base = name;
    int alibi = 0, fixed = -1;
    if (!strncmp(name, "alibi+", 6)) {
        alibi = 1;
        base = name + 6;
    }
    const rl_scheme *s = parse_base(base, &fixed);
    if (s && alibi && fixed < 0 && s->alibi_qkv)
        fixed = RL_MODE_QKV;
    /* else a canonical name; it fixes the mode where the scheme has a choice */
    for (const rl_scheme *const *r = rl_schemes; *r && !s; r++)
        for (int a = 0; a < 2 && !s; a++)
            for (int m = 0; m < 2 && !s; m++)
                if ((*r)->names[a][m] && !strcmp(name, (*r)->names[a][m])) {
                    s = *r;
                    alibi = a;
                    fixed = (*r)->names[a][1 - m] ? m : -1;
                }
    if (!s) {
        char all[256];
        base_names(all, sizeof all, 0);
        snprintf(err, n, "--pos %s: unknown position scheme (registered: %s; names: "
                 "[alibi+]NAME[_qk|_qkv], alibi, fixed-rope)", name, all);
        return -1;
    }
    if (fixed >= 0 && mode >= 0 && mode != fixed) {
        snprintf(err, n, "--pos %s fixes mode %s; --mode %s contradicts it", name,
                 fixed ? "qkv" : "qk", mode ? "qkv" : "qk");
        return -1;
    }
    const int m = fixed >= 0 ? fixed : mode >= 0 ? mode : RL_MODE_QK;
    if (m == RL_MODE_QKV && !s->names[0][1]) {
        char rot[256];
        base_names(rot, sizeof rot, 1);
        snprintf(err, n, "--pos %s takes no --mode qkv: value transport needs a rotation (%s)", name,
                 rot);
        return -1;
    }
    if (!s->names[alibi][m]) {
        snprintf(err, n, "--pos %s: %s takes no ALiBi bias", name, s->name);
        return -1;
    }
    *out = (rl_pos_config){ s->rot, m, alibi, s->path };
    return 0;
}

const char *rl_scheme_check(rl_pos_config p, int hd, char *buf, size_t n)
{
    const rl_scheme *s = rl_scheme_of(p);
    if (!s || !valid_bits(p))
        snprintf(buf, n, "unknown position scheme (rotation %d, mode %d, alibi %d, path %d)",
                 p.rot, p.mode, p.alibi, p.path);
    else if (p.mode == RL_MODE_QKV && !s->names[0][1])
        snprintf(buf, n, "mode qkv (value transport) needs a rotation; %s has none", s->name);
    else if (!s->names[p.alibi][p.mode])
        snprintf(buf, n, "%s takes no ALiBi bias", s->name);
    else if (s->names[0][1] && hd % 2)
        snprintf(buf, n, "%s needs an even head dimension, got %d", rl_pos_name(p), hd);
    else
        return NULL;
    return buf;
}

int rl_scheme_step_lanes(const rl_scheme_ctx *x)
{
    return x->s && x->s->step_lanes ? x->s->step_lanes(x) : 0;
}

rl_status rl_scheme_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                          double *center, double *halfw)
{
    if (x->s && x->s->steps)
        return x->s->steps(x, l, ln, tok, n, center, halfw);
    return RL_OK;
}

rl_scheme_ctx rl_scheme_ctx_make(const rl_gpt_config *c, float *const *w, float *const *g,
                                 float *slopes_buf)
{
    rl_alibi_slopes(slopes_buf, c->heads);
    rl_scheme_ctx x = { rl_scheme_of(c->pos), c, c->width / c->heads, w, g,
                        c->pos.alibi ? slopes_buf : NULL };
    return x;
}

typedef struct {
    int n;
    long floats;
} tensor_count;

static void count_tensor(void *ctx, const char *name, int layer, long rows, long cols, rl_tensor_kind kind)
{
    (void)name, (void)layer, (void)kind;
    tensor_count *c = ctx;
    c->n++;
    c->floats += cols ? rows * cols : rows;
}

static tensor_count count_tensors(const rl_gpt_config *c)
{
    tensor_count k = { 0, 0 };
    const rl_scheme *s = rl_scheme_of(c->pos);
    if (s && s->params)
        s->params(c, count_tensor, &k);
    return k;
}

int rl_scheme_ntensors(const rl_gpt_config *c)
{
    return count_tensors(c).n;
}

long rl_pos_param_count(const rl_gpt_config *c)
{
    return count_tensors(c).floats;
}

rl_status rl_scheme_state_alloc(rl_scheme_state *ss, const rl_scheme_ctx *x, long B, long T, int eval)
{
    const rl_scheme *s = x->s;
    memset(ss, 0, sizeof *ss);
    ss->st = rl_alloc_array(1, s->state_bytes, NULL);
    if (!ss->st)
        return RL_ENOMEM;
    rl_arena a = { NULL, 0 };
    if (s->layout)
        s->layout(ss->st, x, B, T, eval, &a);
    ss->n = a.used;
    ss->arena = rl_alloc_array(a.used, sizeof(float), NULL);
    if (!ss->arena) {
        rl_scheme_state_free(ss);
        ss->n = 0;
        return RL_ENOMEM;
    }
    a = (rl_arena){ ss->arena, 0 };
    if (s->layout)
        s->layout(ss->st, x, B, T, eval, &a);
    return RL_OK;
}

void rl_scheme_state_free(rl_scheme_state *ss)
{
    free(ss->st);
    free(ss->arena);
    ss->st = NULL;
    ss->arena = NULL;
}
