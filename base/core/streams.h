/* streams.h: the named random-stream domains of the Monte Carlo.
 *
 * Every random draw of an experiment comes from the stream
 * rl_stream_key(DOMAIN + offset, index) of the run's seed (sampling/rng.h),
 * so that a result does not depend on the thread count and no two parts of a
 * run share a stream.  The domains are listed here, once, with what each one
 * drives; the numbers are those the experiments always used (changing one
 * changes every output that depends on it).
 *
 * The transformer's domains (at the end) are 64-bit tags XORed into the seed
 * (their ASCII spells the name), kept as they were so that checkpoints stay
 * the same bytes. */
#ifndef RL_STREAMS_H
#define RL_STREAMS_H

enum {
    /* claim 2, concentration: Haar transport cells, key (domain, d) */
    RL_STREAM_CONC_HAAR = 1,
    /* claim 2, concentration: step family fi (0..5) far beyond its window, + fi */
    RL_STREAM_CONC_FAMILY = 10,
    /* claim 2, score gap: chain of the sweep's case at slot fi (0..2: the
     * registry's householder, so2-circle, so2-study), + fi, key (domain, d) */
    RL_STREAM_GAP_FAMILY = 20,
    /* claim 1, mixing: family k (0..15) of the sweep, + k */
    RL_STREAM_MIX_FAMILY = 100,
    /* claim 1, mixing: the study's U(-w_b, w_b) block by block, + d (64, 96) */
    RL_STREAM_MIX_STUDY = 200,
    /* claim 1, mixing: the random angle table of the text-driven steps */
    RL_STREAM_MIX_TEXT_TABLE = 300,
    /* claim 1, mixing: the zero-mean uniform law beside the drift law */
    RL_STREAM_MIX_UNIFORM = 400,
    /* claim 1, mixing: the positive-drift law U(0, 2w) */
    RL_STREAM_MIX_DRIFT = 401,
    /* claim 3, far mass: replicates of row k (0: none, the experiment's own;
     * 1..3: the registry's cases at those slots), + k */
    RL_STREAM_FARMASS = 500,
    /* claim 4, values: replicates of row k (0: none; 1..4: the registry's
     * cases at those slots), + k */
    RL_STREAM_VALUES = 600,
    /* claim 4, values: the near target's value vector, key (domain, d) */
    RL_STREAM_VALUES_TARGET = 700,
    /* claim 4, values: near route j (< 16) of the row at slot k, + 16 k + j
     * (slots below 100: a fresh slot would need its own domain here) */
    RL_STREAM_VALUES_NEAR = 710,
    /* claim 2, score gap: the query's block phases, key (domain, d) */
    RL_STREAM_GAP_QUERY = 0x9A9,
    /* claim 2, concentration: the orthonormal queries of the tail cells (mc/scoretails.c) */
    RL_STREAM_TAIL_QUERIES = 0xC0C0,
    /* claim 5, stylized: the model's directions (keys, values, target) */
    RL_STREAM_STY_DIRS = 0x57100,
    /* claim 5, stylized: the fitting batches of the queries (+ 1 + t: per transport) */
    RL_STREAM_STY_FIT = 0x57200,
    /* claim 5, stylized: the evaluation contexts (+ 1 + t: per transport) */
    RL_STREAM_STY_EVAL = 0x57300,
    /* the sweeps' cases of a family registered after the families above had
     * their slots (sampling/family_ops.h): + 256 kind + 16 sweep + case, so
     * kinds below 0x471 stay under RL_STREAM_STY_DIRS */
    RL_STREAM_FAMILY_FRESH = 0x10000,
    /* the Monte Carlo estimate of ||E M|| of a family with no closed form
     * (mc/family_mean.h), key (domain, the case's stream) */
    RL_STREAM_FAMILY_MEAN_MC = 0xFE00,
    /* claim 1, mixing: the top-up of a window row (experiments/mixing.c),
     * + e (0: eps = 0.1, 1: eps = 0.01), key (domain + e, the case's stream) */
    RL_STREAM_MIX_TOPUP = 0xFD00,
    /* claim 1, mix or stay: the Monte Carlo check j of Watson's distance
     * (experiments/mixstay.c), key (domain, j); its replicate r draws the far
     * samples from key(that, 2r), the near ones from key(that, 2r + 1) */
    RL_STREAM_MIXSTAY = 0xFC00,
};

/* The transformer (model/train.c, model/accum_rot.c): seed ^ domain, so that
 * training windows, dropout masks, validation windows and the rotation noise
 * of the same seed never share a stream (the noise and the dropout masks hash
 * the same key). */
#define RL_STREAM_TRAIN_WINDOWS 0x57494e44ULL       /* "WIND": training windows */
#define RL_STREAM_TRAIN_DROPOUT 0x44524f50ULL       /* "DROP": dropout masks */
#define RL_STREAM_TRAIN_VAL 0x56414cULL             /* "VAL": validation windows */
#define RL_STREAM_ROT_NOISE 0x524f544e4f495345ULL   /* "ROTNOISE": random/lf angle noise */
#define RL_STREAM_EVAL_WINDOWS 0x4556574eULL        /* "EVWN": eval's window layout (model/data.c) */
#define RL_STREAM_EVAL_SAMPLE 0x4556534dULL         /* "EVSM": eval's sampled spans, keyed by the windows' seed
                                                    * and Lmax, never the variant (model/evaluate.c) */
#define RL_STREAM_EVAL_REF 0x45565246ULL            /* "EVRF": rotation noise of eval's reference windows (model/evaluate.c) */
#define RL_STREAM_FARPRED_ROUTE 0x524f555445ULL     /* "ROUTE": farpred's simulated routes (model/farpred.c) */
#define RL_STREAM_TRANSPORT_WINDOWS 0x5452414e53504f52ULL  /* "TRANSPOR": the windows of PaTH's transport
                                                            * reading (model/path_transport.c) */
#define RL_STREAM_TRANSPORT_SEGMENTS 0x5345474d454e5453ULL /* "SEGMENTS": the segment orders of PaTH's transport
                                                            * routes, stream = route (model/path_transport.c) */
#define RL_STREAM_HH_DIRS 0x4848444952ULL           /* "HHDIR": random-hh's Householder directions
                                                     * (model/scheme_random_hh.c) */

#endif
