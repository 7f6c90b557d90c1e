/* The state graph's breadth-first exploration on several threads: graph.c's gdl_gr_explore after
 * gdl_gr_threads(c, n > 1), giving the graph one thread gives -- the same states with the same numbers, edges,
 * distributions, the same slices, and the same first failure.
 *
 * Sources: Moore (1959) for the breadth-first exploration; the in-order commit of a reorder buffer (Smith &
 * Pleszkun 1985, "Implementation of precise interrupts in pipelined processors") for running it on several
 * threads with precise errors. Expanding a state (its turn, its utilities or distribution, its children's
 * packed keys and hashes: the rules and the keying, most of the work) reads nothing but the state, so worker
 * threads expand blocks of GR_BLOCK states ahead, out of order, each into the block's own buffers. This thread
 * takes the blocks back in breadth-first order and does what the serial loop does with a block once it is
 * expanded (graph.c's gr_block): the first failing state in the block stops the exploration, then the
 * distributions are kept and the children looked up and added in move order (gr_insert). So every state gets
 * the number the serial loop gives it. Pseudo-code:
 *
 *     loop, one block at a time, as the serial loop:
 *         publish blocks [end, end + GR_BLOCK) while the ring has room and n - end >= GR_BLOCK
 *         if no block is published for `expanded`: the serial block (fewer than GR_BLOCK states are known)
 *         else wait for that block (expanding published blocks meanwhile), then take it in order
 *
 * Only states already numbered are published (n only grows), and a published block's keys are copied into it,
 * so the workers never read what this thread writes. Blocks start where the serial loop's blocks start: a
 * block of GR_BLOCK states [lo, lo + GR_BLOCK) is the serial loop's next block whenever n >= lo + GR_BLOCK.
 * Workers live from the first block they are given to the end of the exploration, sleeping when no block is
 * left and between calls (slices).
 */

#include <pthread.h>
#include <signal.h>

#define GR_RING 64             /* blocks published ahead of the one being added (more: more cache misses) */
#define GR_AHEAD 2             /* blocks whose children's buckets are fetched ahead of the one being added */
#define GR_WAKE 8              /* blocks left to expand for which sleeping workers are woken */
#define GR_SPINS 512           /* checks for a block a worker is expanding before this thread expands it again */
#define GR_MIN_SHARE 0.4       /* workers only if expanding states took at least this share of the serial phase */
#define GR_IDLE 32             /* checks for a new block before a worker sleeps (spinning takes the caller's share) */

typedef struct gr_rec { /* a state as a worker expanded it */
    int32_t n;          /* its children (in the block's buffers from `at`), or a GR_ status negated */
    int32_t player;
    int64_t at;
    gdl_error err;
} gr_rec;

typedef struct gr_slot { /* a published block: GR_BLOCK states from `lo`, their keys copied (with symmetries, the
                            states as gr_state gives them: their keys are other images) */
    int64_t lo;
    int ready;           /* expanded, or free to publish into (atomic) */
    int looked;          /* its children's buckets fetched and lately added children found (gr_look) */
    uint64_t keys[GR_BLOCK * G_KEY_WORDS];
    gr_rec rec[GR_BLOCK];
    double u[GR_BLOCK * G_PLAYERS]; /* the terminal states' utilities */
    uint64_t *ckeys, *hashes;       /* the children in order (cap each), with their moves and, at chance */
    int32_t *moves, *known;         /* states, probabilities; known: filled by this thread when it adds them */
    double *probs;
    uint64_t *creps;                /* G_SYMMETRIC: the children themselves, packed (ckeys: their images) */
    int64_t cap;
} gr_slot;

struct gr_par {
    pthread_mutex_t mu;
    pthread_cond_t work;       /* sleeping workers wait for blocks to expand */
    int64_t published, grabbed, taken; /* blocks, numbered from 0: published, taken to expand, added */
    int64_t end;               /* the published states end here */
    int stop, sleepers, workers, waking; /* waking: the sleepers were woken and have not all run yet */
    pthread_t tid[GR_MAX_THREADS];
    gr_slot ring[GR_RING];
    gr_slot spare;             /* a block expanded again by this thread (gr_next_block) */
};

static void gr_wake(struct gr_par *q, int stop);

static void gr_par_free(gr_ctx *c) {
    struct gr_par *q = c->par;
    if (!q) return;
    if (q->workers) gr_wake(q, 1);
    for (int t = 0; t < q->workers; t++) pthread_join(q->tid[t], NULL);
    for (int b = 0; b <= GR_RING; b++) {
        gr_slot *s = b < GR_RING ? &q->ring[b] : &q->spare;
        free(s->ckeys); free(s->hashes); free(s->moves); free(s->known); free(s->probs); free(s->creps);
    }
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->work);
    free(q);
    c->par = NULL;
}

static int gr_slot_room(gr_slot *b, int64_t need) {
    if (need <= b->cap) return 0;
    int64_t m = 2 * need;
    if (gr_grow((void **)&b->ckeys, m * G_KEY_WORDS, 8) || gr_grow((void **)&b->hashes, m, 8)
        || gr_grow((void **)&b->moves, m, 4) || gr_grow((void **)&b->known, m, 4) || gr_grow((void **)&b->probs, m, 8)
        || (G_SYMMETRIC && gr_grow((void **)&b->creps, m * G_KEY_WORDS, 8)))
        return -1;
    b->cap = m;
    return 0;
}

/* State j of block b expanded into its buffers from `used`, as gr_expand does, but touching nothing shared:
   the number of children or a GR_ status negated (the error in *e). */
static int gr_expand_copy(gr_slot *b, int j, int64_t used, int32_t *player, gdl_error *e) {
    g_cell s[G_STATE_LEN], t[G_STATE_LEN];
    int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES];
    gdl_unpack(b->keys + j * G_KEY_WORDS, s);
    int p = g_to_move(s, e);
    *player = p;
    if (p == GDL_ERROR) return -GR_ERROR;
    if (p == GDL_TERMINAL) return g_utilities(s, b->u + j * G_PLAYERS, e) < 0 ? -GR_ERROR : 0;
    int n = p == GDL_CHANCE ? g_chance(s, moves, probs, e) : g_legal(s, moves, e);
    if (n < 0) return -GR_ERROR;
    if (n == 0) return -GR_DEAD_END;
    if (gr_slot_room(b, used + n)) return -GR_MEMORY;
    if (p == GDL_CHANCE) memcpy(b->probs + used, probs, sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
        uint64_t *ck = b->ckeys + (used + k) * G_KEY_WORDS;
        memcpy(t, s, sizeof s);
        if (g_apply(t, moves[k], e) < 0 || g_key(t, ck, e) < 0) return -GR_ERROR;
        if (G_SYMMETRIC) gdl_pack(t, b->creps + (used + k) * G_KEY_WORDS);
        b->hashes[used + k] = gdl_hash_words(ck, G_KEY_WORDS);
        b->moves[used + k] = moves[k];
    }
    return n;
}

/* A block's states expanded in order, up to the first failure (nothing after it is read). */
static void gr_expand_block(gr_slot *b) {
    int64_t used = 0;
    for (int j = 0; j < GR_BLOCK; j++) {
        gr_rec *r = &b->rec[j];
        r->err.code = 0;
        r->at = used;
        r->n = gr_expand_copy(b, j, used, &r->player, &r->err);
        if (r->n < 0) return;
        used += r->n;
    }
}

static inline void gr_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The number of a published block no thread has taken yet, now this thread's to expand; -1 if none. */
static int64_t gr_grab(struct gr_par *q) {
    int64_t g = __atomic_load_n(&q->grabbed, __ATOMIC_SEQ_CST);
    while (g < __atomic_load_n(&q->published, __ATOMIC_SEQ_CST))
        if (__atomic_compare_exchange_n(&q->grabbed, &g, g + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return g;
    return -1;
}

/* Expands one published block if some is left: 1 if so. */
static int gr_expand_next(struct gr_par *q) {
    int64_t g = gr_grab(q);
    if (g < 0) return 0;
    gr_slot *b = &q->ring[g % GR_RING];
    gr_expand_block(b);
    __atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
    return 1;
}

/* A worker: expands blocks until told to stop, sleeping while none is left. */
static void *gr_worker(void *arg) {
    struct gr_par *q = arg;
    for (int idle = 0; !__atomic_load_n(&q->stop, __ATOMIC_SEQ_CST);) {
        if (gr_expand_next(q)) {
            idle = 0;
            continue;
        }
        if (idle++ < GR_IDLE) { /* (new blocks come as the children are added: one every few microseconds) */
            gr_pause();
            continue;
        }
        idle = 0;
        pthread_mutex_lock(&q->mu);
        __atomic_add_fetch(&q->sleepers, 1, __ATOMIC_SEQ_CST); /* (then published is read: see gr_publish) */
        while (!__atomic_load_n(&q->stop, __ATOMIC_SEQ_CST)
               && __atomic_load_n(&q->grabbed, __ATOMIC_SEQ_CST) >= __atomic_load_n(&q->published, __ATOMIC_SEQ_CST))
            pthread_cond_wait(&q->work, &q->mu);
        __atomic_sub_fetch(&q->sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&q->waking, 0, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&q->mu);
    }
    return NULL;
}

/* Wakes the sleeping workers (`stop`: for good). */
static void gr_wake(struct gr_par *q, int stop) {
    pthread_mutex_lock(&q->mu);
    if (stop) __atomic_store_n(&q->stop, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&q->waking, 1, __ATOMIC_SEQ_CST);
    pthread_cond_broadcast(&q->work);
    pthread_mutex_unlock(&q->mu);
}

/* Puts the next blocks of known states in the ring, once it is half empty (a sleeping worker is woken once a
   batch, not once a block), and starts the workers the first time in this call. */
static void gr_publish(gr_ctx *c, struct gr_par *q) {
    int64_t k = 0, published = q->published;
    if (published - q->taken > GR_RING / 2) return;
    while (published + k - q->taken < GR_RING && c->n - q->end >= GR_BLOCK) {
        gr_slot *b = &q->ring[(published + k) % GR_RING];
        if (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE)) break; /* its last block's worker is not done with it */
        b->lo = q->end;
        b->ready = b->looked = 0;
        memcpy(b->keys, (G_SYMMETRIC ? c->reps : c->keys) + q->end * G_KEY_WORDS, sizeof b->keys); /* (gr_state's) */
        q->end += GR_BLOCK;
        k++;
    }
    if (!k) return;
    if (!q->workers && !q->stop) { /* signals go to the caller's thread, which Python runs */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        for (int t = 1; t < c->threads; t++)
            if (pthread_create(&q->tid[q->workers], NULL, gr_worker, q) == 0) q->workers++;
        pthread_sigmask(SIG_SETMASK, &old, NULL); /* (no worker: this thread expands every block itself) */
    }
    /* sleeping workers are woken for GR_WAKE blocks or more (fewer: this thread expands them when it comes to
       them). A worker counts itself a sleeper, then reads `published`; this thread writes `published`, then reads
       the sleepers (all sequentially consistent): one of the two sees the other's write. */
    __atomic_store_n(&q->published, published + k, __ATOMIC_SEQ_CST);
    if (published + k - __atomic_load_n(&q->grabbed, __ATOMIC_SEQ_CST) >= GR_WAKE
        && __atomic_load_n(&q->sleepers, __ATOMIC_SEQ_CST) && !__atomic_load_n(&q->waking, __ATOMIC_SEQ_CST)) gr_wake(q, 0);
}

/* The block to add next, expanded: this thread expands the blocks left meanwhile; if its worker is still on it
   after that (its core is busy elsewhere: the machine is shared), this thread expands it again, into `spare`. */
static gr_slot *gr_next_block(struct gr_par *q) {
    gr_slot *b = &q->ring[q->taken % GR_RING];
    for (int spins = 0; !__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE);) {
        if (gr_expand_next(q)) continue;
        if (spins++ < GR_SPINS) {
            gr_pause();
            continue;
        }
        q->spare.lo = b->lo;
        q->spare.looked = 0;
        memcpy(q->spare.keys, b->keys, sizeof b->keys);
        gr_expand_block(&q->spare);
        return &q->spare;
    }
    return b;
}

/* Block b's children (`used`) that were added lately are found (known), and the others' buckets fetched: as
   gr_expand does, but for a block ahead of the one being added, so that the buckets arrive in time. */
static void gr_look(gr_ctx *c, gr_slot *b, int64_t used) {
    for (int64_t k = 0; k < used; k++) {
        uint64_t h = b->hashes[k], r = c->recent[h & (GR_RECENT - 1)];
        if (c->short_keys && r && r >> 32 == b->ckeys[k * G_KEY_WORDS]) {
            b->known[k] = (int32_t)(r & 0xffffffffULL) - 1;
        } else {
            b->known[k] = -1;
            __builtin_prefetch(&c->slots[h & (uint64_t)c->slots_mask]);
        }
    }
    b->looked = 1;
}

/* gr_look for the blocks after block `taken` already expanded, up to GR_AHEAD of them. */
static void gr_look_ahead(gr_ctx *c, struct gr_par *q) {
    for (int64_t a = q->taken + 1; a < q->published && a <= q->taken + GR_AHEAD; a++) {
        gr_slot *b = &q->ring[a % GR_RING];
        if (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE)) return;
        if (b->looked) continue;
        int64_t used = 0;
        for (int j = 0; j < GR_BLOCK && b->rec[j].n >= 0; j++) used += b->rec[j].n;
        gr_look(c, b, used);
    }
}

/* What gr_block does once its states are expanded, for a block the workers expanded: the first failure, or
   each state's turn, utilities or distribution kept and its children added. GR_DONE or what stopped it. */
static int gr_take(gr_ctx *c, gr_slot *b) {
    int counts[GR_BLOCK];
    int64_t used = 0;
    for (int j = 0; j < GR_BLOCK; j++) {
        const gr_rec *r = &b->rec[j];
        int64_t i = b->lo + j;
        if (r->n < 0) {
            if (r->n == -GR_MEMORY) return GR_MEMORY;
            c->err = r->err;
            return gr_fail(c, i, -r->n);
        }
        c->player[i] = (int8_t)r->player;
        if (r->player == GDL_TERMINAL) {
            const double *u = b->u + j * G_PLAYERS;
            if (c->vector) {
                for (int p = 0; p < G_PLAYERS; p++) c->vv[i * G_PLAYERS + p] = u[p];
                if (G_PLAYERS != 2 || u[1] != -u[0]) c->antisymmetric = 0;
            } else if (G_PLAYERS == 2 && u[0] + u[1] != 0.0) {
                return gr_fail(c, i, GR_NOT_SCALAR);
            }
            c->val[i] = u[0];
        } else if (r->player == GDL_CHANCE) {
            int64_t d = gr_distribution(c, b->probs + r->at, r->n);
            if (d < 0) return GR_MEMORY;
            c->dist[i] = (int32_t)d;
        }
        counts[j] = r->n;
        used += r->n;
    }
    if (!b->looked) gr_look(c, b, used);
    return gr_insert(c, b->lo, b->lo + GR_BLOCK, counts, b->ckeys, b->hashes, b->moves, b->known, b->creps);
}

/* Whether adding the children took more than 1 - GR_MIN_SHARE of the serial phase's time: then workers, which only
   expand states, would save less than the traffic between the cores costs (measured at 65,536 states, on two idle
   cores: Pig goal 100 spends 0.31 of its time expanding, and its exploration took 0.83x one thread's time on two;
   Connect-Four 5x4 0.47, 1.46x faster; m,n,k (4,4,4) 0.67, 1.53x faster: bench/explore_threads.py). */
static int gr_adding_dominates(const gr_ctx *c) {
    double expanding = c->serial_spent[0], adding = c->serial_spent[1];
    return expanding < GR_MIN_SHARE * (expanding + adding);
}

/* gdl_gr_explore's loop on c->threads threads (see the top of this file). The workers, started once c->serial
   states are expanded (a small graph needs none: they are explored as on one thread) unless the serial phase
   found adding the children to be most of the work (gr_adding_dominates: then this thread explores alone), sleep
   between calls; they are told to stop when the exploration ends, and joined when the graph is freed
   (gr_par_free), so no call waits for a thread to be scheduled. A serial phase of 0 states starts them at once
   (the tests). */
static int gr_explore_threads(gr_ctx *c, int64_t slice) {
    struct gr_par *q = c->par;
    if (!q) {
        if (!(q = calloc(1, sizeof *q))) return GR_MEMORY;
        if (pthread_mutex_init(&q->mu, NULL)) { free(q); return GR_MEMORY; }
        if (pthread_cond_init(&q->work, NULL)) { pthread_mutex_destroy(&q->mu); free(q); return GR_MEMORY; }
        for (int b = 0; b < GR_RING; b++) q->ring[b].ready = 1; /* (free to publish into) */
        q->end = c->expanded;
        c->par = q;
    }
    int status = GR_DONE;
    for (int64_t done = 0; c->expanded < c->n; done += GR_BLOCK) {
        if (done >= slice) {
            status = GR_SLICE;
            break;
        }
        int64_t lo = c->expanded;
        if (lo >= c->serial && c->serial > 0 && !q->published && gr_adding_dominates(c)) {
            c->threads = 1; /* the rest on this thread alone, as gdl_gr_explore's serial loop: the same graph */
            return gdl_gr_explore(c, NULL, slice - done);
        }
        if (lo >= c->serial) gr_publish(c, q);
        if (q->taken == q->published) { /* a small graph so far, or fewer than GR_BLOCK states known ahead */
            status = gr_block(c, lo, c->n < lo + GR_BLOCK ? c->n : lo + GR_BLOCK,
                              lo < c->serial ? c->serial_spent : NULL);
            q->end = c->expanded;
        } else {
            gr_slot *b = gr_next_block(q);
            gr_look_ahead(c, q);
            status = gr_take(c, b);
            q->taken++;
        }
        if (status != GR_DONE) break;
    }
    if (status != GR_SLICE && q->workers) gr_wake(q, 1);
    return status;
}
