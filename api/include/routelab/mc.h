/* routelab/mc.h: the Monte Carlo kernels of the study, with their seeds and
 * thread counts (docs/theory/claim1-mixing.md#claim-mixing, docs/sampling.md#sampling,
 * docs/library.md#library).
 *
 * Every kernel is deterministic: the same (family, sizes, seed, stream) give
 * the same bytes for any thread count (mc/sweep.h: item i draws from the
 * random stream keyed by i alone).  A stream is the experiment's domain of
 * random streams; the `routelab mixing` command's own stream of a family is
 * rl_mc_mixing_case's, so that these functions return the numbers of its
 * mixing_families.tsv for the same --seed.
 *
 * Every function returns RL_OK, RL_EINPUT (a bad argument: the one-line
 * reason in err), RL_EINTERNAL (LAPACK failed) or RL_ENOMEM (memory ran
 * out: nothing is kept); none exits the process.  Sizes are checked against
 * the machine's memory (base/core/mem.h) before anything is allocated.
 *
 * The long calls (rl_mc_routes, rl_mc_farmass, rl_mc_family_mean,
 * rl_mc_moment2) stop within about a second when the caller asks
 * (rl_cancel_request, err.h: another thread, Python's Ctrl-C): they read the
 * request between replicates, chunks of routes or batches, and every 1024
 * steps of a walk, and return RL_ECANCEL with "routes: cancelled" (or
 * "farmass", "family mean", "moment2"); the outputs are then unspecified.
 * Reading it changes nothing else: a call that is not cancelled gives the
 * same bytes. */
#ifndef ROUTELAB_MC_H
#define ROUTELAB_MC_H

#include "err.h"
#include "family.h"

/* The route-length grid of `routelab mixing`: n = 1 .. dense_to, then about
 * per_octave lengths per doubling up to nmax (nmax always included), in
 * ascending order into grid[0 .. *ng - 1] (at most cap).  RL_EINPUT when
 * nmax < 1, dense_to < 0, per_octave < 1 or the grid needs more than cap
 * entries (*ng then holds the count it needs). */
rl_status rl_mc_route_grid(long nmax, long dense_to, int per_octave, long *grid, int cap, int *ng,
                           rl_err *err);

/* The case `label` of routelab mixing's family sweep at dimension d
 * ("haar", "so2-uniform", "path-beta1", ...; the registry's sweep cases):
 * its family into *f (caller's buffer of rl_family_sizeof() bytes) and its
 * random-stream domain into *stream.  A registry name (haar, so2, ...)
 * takes that family's first case.  RL_EINPUT for an unknown label. */
rl_status rl_mc_mixing_case(const char *label, int d, rl_family *f, unsigned long *stream, rl_err *err);

/* The case `label` of `routelab farmass`'s sweep at dimension d ("none":
 * NoPE, the identity family; "householder", "so2-circle", "so2-study", ...):
 * its family and its stream domain.  RL_EINPUT for an unknown label. */
rl_status rl_mc_farmass_case(const char *label, int d, rl_family *f, unsigned long *stream, rl_err *err);

/* The stylized far-mass model of claim 3 (docs/theory/claim3-farmass.md#far-mass-design;
 * mc/farmass_walk.h): a unit query q, every key equal to q, the key at distance delta seen
 * through the route P_delta of f (the identity family: no transport, every
 * score 1), score
 * s_delta = q^T P_delta q; K near keys (delta <= K), the rest far.  For each
 * of `reps` replicates (replicate r on the stream keyed by (seed, stream,
 * r)), each length L = grid[g] (ascending, > K), each logit scale lam[l]
 * (logit = lam s) and each configuration c (0: no bias; c = 1..nslope: ALiBi
 * bias -slope[c-1] delta), the far share rho_D = F / (F + N) of the softmax
 * over the L keys: rho[((r ng + g) nlam + l) (1 + nslope) + c].
 * rho_mean / rho_se (ng nlam (1 + nslope) values each, may be NULL): its
 * mean and standard error over the replicates.  mom[2 r + {0, 1}]: the mean
 * of s and s^2 over delta >= far_from (NaN for the identity); srange[3 (r ng + g) +
 * {0, 1, 2}]: max near score, min far score, max |score| up to L.  With
 * rl_mc_farmass_case's family and stream, K = 16, lam = {1, 2, 4}, the
 * slopes 2^-h (h = 1..8), far_from 1024, 32 replicates and the grid
 * 64 * 2^(k/4) up to 65,536, these are `routelab farmass --seed S`'s
 * farmass.tsv (rho, rho_se: its rho and rho_se columns). */
rl_status rl_mc_farmass(const rl_family *f, unsigned long stream, int K, const double *lam, int nlam,
                        const double *slope, int nslope, const long *grid, int ng, long far_from, long reps,
                        unsigned long seed, int threads, double *rho, double *rho_mean, double *rho_se,
                        double *mom, double *srange, rl_err *err);

/* Monte Carlo of route products P_n = M_n ... M_1 (docs/theory/claim1-mixing.md#mixing-window,
 * docs/sampling.md#sampling): `reps` routes of f drawn up to grid[ng - 1] (route k on the stream
 * keyed by (seed, stream, k)), and at each grid length g, with q uniform on the
 * sphere afresh for every route:
 *   tr[g]  = mean of tr(P_n)/d        (the scalar estimate of E[P_n] = cI), tr_se its SE
 *   op[g]  = ||mean of P_n||_op       (SVD of the mean matrix; dense families)
 *   coh[g] = mean of q^T P_n q        (coherence), coh_se its SE
 *   sq[g]  = mean of (q^T P_n q)^2,   sq_se its SE
 * and for block-diagonal SO(2) families (nb = d/2 blocks, else nothing is
 * written) chi[2 (g nb + b) + {0, 1}] = real and imaginary part of the mean of
 * e^{i Phi_b} (Phi_b: block b's accumulated angle) and chi_se[g nb + b] the
 * SE of its modulus.  Any output may be NULL.  The grid must be ascending,
 * lengths >= 1.  threads: OpenMP threads (>= 1; the bytes do not depend on
 * it).  token-so2 (which reads a token sequence) is refused here. */
rl_status rl_mc_routes(const rl_family *f, const long *grid, int ng, long reps, unsigned long seed,
                       unsigned long stream, int threads, double *tr, double *tr_se, double *op,
                       double *coh, double *coh_se, double *sq, double *sq_se, double *chi,
                       double *chi_se, rl_err *err);

/* Monte Carlo estimate of ||E M|| from n steps of f (stream `stream` of
 * seed): |mean tr(M)/d| (E[M] = cI) or max over SO(2) blocks of
 * |mean e^{i theta_b}|, into *norm with its standard error *se
 * (docs/sampling.md#sampling; the estimate `routelab mixing` uses for a family with no closed
 * form).  One thread: the steps are drawn in order from one stream. */
rl_status rl_mc_family_mean(const rl_family *f, long n, unsigned long seed, unsigned long stream,
                            double *norm, double *se, rl_err *err);

/* The second-moment operator T(X) = E[M X M^T] estimated from n sampled
 * steps of f (batch j of RL_MOMENT2_BATCHES = 20 from stream j of seed), and
 * its rate ||Pi T Pi||_op on the complement of the family's fixed space
 * (docs/theory/claim2-concentration.md#second-moment): *rate, its jackknife standard error *se, the
 * noise floor
 * *noise (the upward bias of a noisy norm), ||mean of the sampled M||_op
 * *mean_norm: the "# rate estimate" line of `routelab bound norm2
 * --samples N --seed S`.  d <= 16 (the estimate forms d^2 x d^2 matrices);
 * n >= 20.  Any output may be NULL.  No thread count: the batches run in
 * order on the calling thread. */
rl_status rl_mc_moment2(const rl_family *f, long n, unsigned long seed, double *rate, double *se,
                        double *noise, double *mean_norm, rl_err *err);

#endif
