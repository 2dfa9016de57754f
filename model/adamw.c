/* adamw.c: AdamW and gradient norm (equations in adamw.h). */
#include "adamw.h"

#include <math.h>

rl_adamw rl_adamw_default(void)
{
    rl_adamw o = { 0.9f, 0.95f, 1e-8f, 0.1f };
    return o;
}

int rl_tensor_decays(rl_tensor_kind kind)
{
    return kind == RL_T_EMBED || kind == RL_T_MATRIX || kind == RL_T_RESID_MATRIX;
}

#define NORM_CHUNKS 64

double rl_grad_norm(const float *g, long n)
{
    double part[NORM_CHUNKS];
    const long per = (n + NORM_CHUNKS - 1) / NORM_CHUNKS;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < NORM_CHUNKS; c++) {
        long i0 = c * per, i1 = i0 + per < n ? i0 + per : n;
        double s = 0;
        for (long i = i0; i < i1; i++)
            s += (double)g[i] * g[i];
        part[c] = s;
    }
    double s = 0;
    for (int c = 0; c < NORM_CHUNKS; c++)
        s += part[c];
    return sqrt(s);
}

void rl_adamw_step(rl_gpt *m, const rl_adamw *o, float lr, float gscale)
{
    const long t = ++m->adam_t;
    const float c1 = 1.0f - powf(o->beta1, (float)t), c2 = 1.0f - powf(o->beta2, (float)t);
    float *mom = m->adam, *var = m->adam + m->nparams;
    /* one parallel region for every tensor (a region each was 5 + 12 layers
     * wake-ups of the team per step); each element's update is its own */
#pragma omp parallel
    for (int k = 0; k < m->ntensors; k++) {
        const rl_tensor *tn = &m->tensors[k];
        const float wd = rl_tensor_decays(tn->kind) ? o->weight_decay : 0.0f;
#pragma omp for schedule(static) nowait
        for (long i = tn->off; i < tn->off + tn->n; i++) {
            float g = m->grads[i] * gscale;
            mom[i] = o->beta1 * mom[i] + (1.0f - o->beta1) * g;
            var[i] = o->beta2 * var[i] + (1.0f - o->beta2) * g * g;
            float mh = mom[i] / c1, vh = var[i] / c2;
            m->params[i] -= lr * (mh / (sqrtf(vh) + o->eps) + wd * m->params[i]);
        }
    }
}
