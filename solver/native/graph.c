/* The state graph in C: breadth-first exploration over packed keys, then value iteration one strongly
 * connected component at a time -- the inner loops of solver/graph.py and solver/value_iteration.py
 * (plain sweeps) for games whose values are scalar: one player, or two whose utilities sum to zero.
 *
 * Sources: Moore (1959) for the breadth-first exploration; Tarjan (1972) for the components, sinks
 * first, with an explicit path; Bellman (1957) for the backups; Dai & Goldsmith (2007) for solving the
 * components in reverse topological order. Pseudo-code (solve):
 *
 *     for C in components(graph), sinks first:
 *         if C is one state without a self-loop: V[s] <- backup(s); continue
 *         F <- the targets of depth-first back edges in C          (every cycle passes through one)
 *         repeat: for s in C in finishing order: V'[s] <- backup(s) (F read as x: their old values)
 *                 until no V'[f] moved by tolerance; then V[F] <- V'[F]
 *
 * Storage: every state is kept as its packed key (G_KEY_WORDS words) in an array indexed by discovery
 * number. With symmetries (G_SYMMETRIC) the key is the canonical image, which identifies the state, and the
 * state itself as first found (packed the same way) is kept beside it and expanded, as solver/graph.py keeps
 * and expands its first-found representative: the same moves in the same order, so the same graph. An
 * open-addressing table of indexes finds a key (a key of at most 32 bits is kept in its bucket,
 * so a probe reads the table alone; the children added last are looked up first, in a small table by
 * hash). Edges are in compressed rows (first[i] .. first[i+1]) in move order with their codes and, for
 * chance states, probabilities. Each state keeps its breadth-first parent and the code that led to it, so a
 * dead end or a rule error is reported with the moves from the root. Both phases run in slices: Python
 * checks time, nodes and Ctrl-C in between.
 *
 * Solving: one mark per state (index[]: discovery number, on the path, solved, or the position in the
 * component being solved) and a bit per state (feedback); the low links and next edges are kept only for
 * the states on the depth-first path, and a component is the states finished since its root was entered
 * (less solved components), so Tarjan's stack is not kept. The large arrays are read at random: on Linux
 * they are advised to use huge pages. The walk, the sweeps and their arithmetic are those of the Python
 * solver (the same values, sweeps and counts).
 */

#include <math.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define GR_DONE 0
#define GR_SLICE 1
#define GR_FULL 2      /* more states than the cap */
#define GR_DEAD_END 3  /* a non-terminal state without a move: gdl_gr_stats()[7] is its index */
#define GR_ERROR 4     /* a rule error: gdl_gr_error; its state's index as for a dead end */
#define GR_MEMORY 5
#define GR_NOT_SCALAR 6 /* a terminal state of a two-player game whose utilities do not sum to 0 */

#define GR_NEWTON_MAX 8    /* Newton steps only in components with at most this many feedback states (gr_copy) */
#define GR_NEWTON_STEPS 30 /* after this many Newton steps, plain sweeps */
#define GR_PIVOT_MIN 1e-9  /* a smaller pivot in I - A: a cycle that may never be left; plain sweeps */
#define GR_TIE 1e-9        /* solver.limits.TIE_TOLERANCE */
#define GR_BLOCK 16        /* states expanded before their children are added */
#define GR_MAX_THREADS 64  /* gdl_gr_threads */
#define GR_RECENT 2048     /* short keys: the children last added, by hash (buckets' format), looked up first */
#define GR_ACTIVE 0x80000000u     /* index[]: on the depth-first path; in the component being solved: | position */
#define GR_DONE_INDEX 0x7fffffffu /* index[]: in a component already solved */

typedef struct gr_frame {  /* a state on the depth-first path */
    int64_t edge, end;     /* its next edge to follow, and its last + 1 */
    int64_t nf;            /* finished states when it was entered: its component is finished[nf ..] */
    int32_t v;
    uint32_t low;          /* its low link (Tarjan) */
} gr_frame;

typedef struct gr_ctx {
    int64_t cap, n, expanded, edges, edges_cap, states_cap, slots_mask;
    uint64_t *keys;       /* n * G_KEY_WORDS */
    uint64_t *reps;       /* G_SYMMETRIC: n * G_KEY_WORDS, each state as first found (keys: its canonical image) */
    int64_t reps_cap;
    size_t slots_mapped, index_mapped; /* (gdl_table_alloc) */
    uint64_t *slots;      /* open addressing: the hash's top 32 bits (short keys: the key) << 32 | index + 1; 0 empty */
    int short_keys;       /* every key so far fits in 32 bits (gr_short_keys): the buckets hold the keys */
    int8_t *player;
    int64_t *first;       /* states_cap + 1 */
    int32_t *parent, *via;
    int32_t *succ;
    int32_t *dist;        /* a chance state's probabilities: pool[dist[i] ..], in edge order */
    double *pool, *val;   /* distributions, each kept once where chance states in a row share it */
    int64_t pool_n, pool_cap, last_dist, last_len;
    uint64_t *scratch, *hashes; /* a block of states' children: keys, hashes, moves and indexes if known */
    uint64_t *scratch_reps;     /* G_SYMMETRIC: those children themselves, packed */
    int32_t *moves, *known;
    uint64_t recent[GR_RECENT]; /* (most children were children of a state expanded shortly before) */
    int64_t scratch_n;
    gdl_error err;
    int64_t bad;          /* the state of a dead end or an error */
    int threads;          /* exploring: this thread and threads - 1 workers (explore.c), */
    int64_t serial;       /* once this many states are expanded */
    struct gr_par *par;   /* explore.c's blocks and workers (NULL: not yet used) */
    /* solve: Tarjan's walk, resumable */
    uint32_t *index;      /* discovery number (0: not seen; GR_DONE_INDEX: in a solved component), | GR_ACTIVE on
                             the path; a member of the component being solved: GR_ACTIVE | its position in it */
    int32_t *finished;    /* states in finishing order, but those of components already solved */
    gr_frame *path;       /* the depth-first path (path_cap frames) */
    int64_t path_cap;
    uint64_t *feedback;   /* a bit per state: the target of a back edge */
    double *fresh;        /* per member of the component being solved: a feedback state's new value in a sweep */
    double *slopes;       /* per member of that component, k slopes: d value / d x (Newton steps) */
    int64_t slopes_cap, fresh_cap;
    int k, newton, with_slopes, steps; /* the component's feedback states, and how it is being iterated */
    int32_t fb[GR_NEWTON_MAX];
    double rows[GR_NEWTON_MAX][GR_NEWTON_MAX];
    int64_t counter, root, nfinished, npath;
    int64_t comp_start, comp_size, sweeps, max_sweeps_seen, components, work;
    int comp_active, unconverged, solving;
    int vector, antisymmetric; /* vector: a value per player (max^n); antisymmetric: so far every end (u, -u) */
    double *vv;                /* vector: G_PLAYERS values per state */
} gr_ctx;

static int gr_short_keys(void);
static void gr_par_free(gr_ctx *c);

static int gr_grow(void **p, int64_t count, size_t size) {
    void *q = realloc(*p, (size_t)count * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* gr_grow for the graph's large arrays (per state or per edge, read at random when solving): on Linux, the
   whole huge pages inside are advised as gdl_table_alloc's mappings are (realloc keeps the advice when it
   moves a mapping). */
static int gr_grow_big(void **p, int64_t count, size_t size) {
    if (gr_grow(p, count, size)) return -1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t bytes = (size_t)count * size;
    if (bytes >= 2 * GDL_HUGE_PAGE) {
        uintptr_t a = ((uintptr_t)*p + GDL_HUGE_PAGE - 1) & ~(uintptr_t)(GDL_HUGE_PAGE - 1);
        uintptr_t b = ((uintptr_t)*p + bytes) & ~(uintptr_t)(GDL_HUGE_PAGE - 1);
        if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#endif
    return 0;
}

static void gr_free_all(gr_ctx *c) {
    gr_par_free(c);
    gdl_table_free(c->slots, c->slots_mapped); gdl_table_free(c->index, c->index_mapped);
    free(c->keys); free(c->reps); free(c->scratch_reps); free(c->player); free(c->first); free(c->parent); free(c->via);
    free(c->vv); free(c->succ); free(c->dist); free(c->pool); free(c->scratch); free(c->hashes); free(c->moves); free(c->known); free(c->val);
    free(c->finished); free(c->path); free(c->feedback); free(c->fresh); free(c->slopes);
}

#define GR_EDGES_PER_STATE 8 /* gdl_gr_state_bytes: the edges a state is counted with */

/* The memory one state of a graph costs at most (--memory: solver/native/graph.py divides the bytes allowed by
   it), counted with GR_EDGES_PER_STATE edges: its packed key (with symmetries, and the state as first found),
   turn, first edge, parent and move from it, value and distribution (a value per player too, `vector`), and 4
   bytes an edge; then, at the larger of two peaks, exploring: six buckets of the table of indexes (it keeps two
   to four a state, and while it doubles, the old ones as well); or solving: four buckets, the solve's marks
   (index, finished, feedback), the distance's per-state arrays (remoteness.c; its scratch for one component at
   a time is not counted) and, `retrograde`, the retrograde analysis's arrays and reversed edges (retrograde.c).
   The arrays grow by doubling, but the pages not yet written are not resident. */
int64_t gdl_gr_state_bytes(int32_t vector, int32_t retrograde) {
    int64_t state = 8 * G_KEY_WORDS * (G_SYMMETRIC ? 2 : 1) + 1 + 8 + 4 + 4 + 8 + 4 + (vector ? 8 * G_PLAYERS : 0);
    int64_t edges = 4 * GR_EDGES_PER_STATE;
    int64_t exploring = 6 * 8;
    int64_t solving = 4 * 8 + (4 + 4 + 1) + (8 + 4 + 1 + 4)
                      + (retrograde ? 8 + 5 * 4 + 8 + 8 + 4 * GR_EDGES_PER_STATE : 0);
    return state + edges + (exploring > solving ? exploring : solving);
}

gr_ctx *gdl_gr_new(int64_t cap) {
    gr_ctx *c = calloc(1, sizeof(gr_ctx));
    if (!c) return NULL;
    c->cap = cap < 1 ? 1 : (cap > INT32_MAX - 1 ? INT32_MAX - 1 : cap);
    c->states_cap = 1024;
    c->edges_cap = 4096;
    c->slots_mask = 4095;
    c->keys = malloc(8 * G_KEY_WORDS * (size_t)c->states_cap);
    c->player = malloc((size_t)c->states_cap);
    c->first = malloc(8 * (size_t)(c->states_cap + 1));
    c->parent = malloc(4 * (size_t)c->states_cap);
    c->via = malloc(4 * (size_t)c->states_cap);
    c->val = malloc(8 * (size_t)c->states_cap);
    c->succ = malloc(4 * (size_t)c->edges_cap);
    c->dist = malloc(4 * (size_t)c->states_cap);
    c->pool_cap = 1024;
    c->pool = malloc(8 * (size_t)c->pool_cap);
    c->last_dist = -1;
    c->slots = gdl_table_alloc(8 * ((size_t)c->slots_mask + 1), SIZE_MAX, &c->slots_mapped);
    c->short_keys = gr_short_keys();
    if (!c->keys || !c->player || !c->first || !c->parent || !c->via || !c->val || !c->succ || !c->dist
        || !c->pool || !c->slots) {
        gr_free_all(c);
        free(c);
        return NULL;
    }
    c->bad = -1;
    c->threads = 1;
    return c;
}

/* Explores on `threads` threads (1: this one alone) once `serial` states are explored, giving the same graph
   (explore.c). */
int gdl_gr_threads(gr_ctx *c, int32_t threads, int64_t serial) {
    c->threads = threads < 1 ? 1 : (threads > GR_MAX_THREADS ? GR_MAX_THREADS : threads);
    c->serial = serial < 0 ? 0 : serial;
    return 0;
}

/* Values per player (max^n, the first best child), as solver/value_iteration.py's vector solver, unless every
   end turns out to pay (u, -u) to two players: then one value, as its scalar solver. Before exploring. */
int gdl_gr_vector(gr_ctx *c) {
    if (c->n > 1 || gr_grow((void **)&c->vv, c->states_cap * G_PLAYERS, 8)) return -1;
    for (int64_t i = 0; i < c->n * G_PLAYERS; i++) c->vv[i] = 0.0;
    c->vector = c->antisymmetric = 1;
    return 0;
}

void gdl_gr_free(gr_ctx *c) {
    if (!c) return;
    gr_free_all(c);
    free(c);
}

static inline uint64_t gr_tag(uint64_t h) { return h & 0xffffffff00000000ULL; }

/* Whether every key is one word of at most 32 bits (the packing's widths say so): then a bucket holds the key
   itself above the index, and a probe never reads the keys array. */
static int gr_short_keys(void) {
    if (G_KEY_WORDS != 1) return 0;
    for (int i = 0; i < G_STATE_LEN; i++)
        if (g_pack_word[i] != 0 || g_pack_shift[i] + g_pack_bits[i] > 32) return 0;
    return 1;
}

/* The bucket of a key: where it is, or the empty bucket where it would go. */
static int64_t gr_probe(gr_ctx *c, const uint64_t *key, uint64_t h) {
    if (c->short_keys) {
        uint64_t want = key[0] << 32, wide = key[0] >> 32; /* (a wider key is not there: its empty bucket) */
        for (int64_t b = (int64_t)(h & (uint64_t)c->slots_mask);; b = (b + 1) & c->slots_mask) {
            uint64_t s = c->slots[b];
            if (!s || ((s & 0xffffffff00000000ULL) == want && !wide)) return b;
        }
    }
    uint64_t tag = gr_tag(h);
    for (int64_t b = (int64_t)(h & (uint64_t)c->slots_mask);; b = (b + 1) & c->slots_mask) {
        uint64_t s = c->slots[b];
        if (!s) return b;
        if (gr_tag(s) == tag
            && memcmp(c->keys + (int64_t)((s & 0xffffffffULL) - 1) * G_KEY_WORDS, key, 8 * G_KEY_WORDS) == 0)
            return b;
    }
}

/* The table rebuilt with (mask + 1) buckets: each state put in the first empty bucket from its hash (the keys
   are distinct: nothing is compared). `short_keys`: the buckets' format (a key met that does not fit in 32
   bits turns it off). */
static int gr_rehash(gr_ctx *c, int64_t mask, int short_keys) {
    size_t mapped, old_mapped = c->slots_mapped;
    uint64_t *slots = gdl_table_alloc(8 * ((size_t)mask + 1), SIZE_MAX, &mapped), *old = c->slots;
    if (!slots) return -1;
    int64_t old_n = c->slots_mask + 1;
    c->slots_mapped = mapped;
    int was_short = c->short_keys;
    c->slots = slots;
    c->slots_mask = mask;
    c->short_keys = short_keys;
    if (was_short && short_keys) { /* the old buckets hold the keys: no need to read the keys array */
        for (int64_t b = 0; b < old_n; b++) {
            uint64_t s = old[b], k = s >> 32;
            if (!s) continue;
            int64_t t = (int64_t)(gdl_hash_words(&k, 1) & (uint64_t)mask);
            while (slots[t]) t = (t + 1) & mask;
            slots[t] = s;
        }
    } else {
        for (int64_t i = 0; i < c->n; i++) {
            const uint64_t *k = c->keys + i * G_KEY_WORDS;
            uint64_t h = gdl_hash_words(k, G_KEY_WORDS);
            int64_t t = (int64_t)(h & (uint64_t)mask);
            while (slots[t]) t = (t + 1) & mask;
            slots[t] = (short_keys ? k[0] << 32 : gr_tag(h)) | (uint64_t)(i + 1);
        }
    }
    gdl_table_free(old, old_mapped);
    return 0;
}

/* The index of a key, added (with its parent and move) when new; -1: the cap; -2: no memory. */
static int64_t gr_add(gr_ctx *c, const uint64_t *key, uint64_t h, int64_t parent, int32_t via) {
    int64_t b = gr_probe(c, key, h);
    if (c->slots[b]) return (int64_t)(c->slots[b] & 0xffffffffULL) - 1;
    if (c->n >= c->cap) return -1;
    if (c->short_keys && key[0] >> 32) { /* (not as the packing said): the buckets take hashes from now on */
        if (gr_rehash(c, c->slots_mask, 0)) return -2;
        b = gr_probe(c, key, h);
    }
    if (c->n == c->states_cap) {
        int64_t m = c->states_cap * 2;
        if (gr_grow_big((void **)&c->keys, m * G_KEY_WORDS, 8) || gr_grow_big((void **)&c->player, m, 1)
            || gr_grow_big((void **)&c->first, m + 1, 8) || gr_grow_big((void **)&c->parent, m, 4)
            || gr_grow_big((void **)&c->via, m, 4) || gr_grow_big((void **)&c->val, m, 8)
            || gr_grow_big((void **)&c->dist, m, 4) || (c->vector && gr_grow_big((void **)&c->vv, m * G_PLAYERS, 8)))
            return -2;
        c->states_cap = m;
    }
    int64_t i = c->n++;
    memcpy(c->keys + i * G_KEY_WORDS, key, 8 * G_KEY_WORDS);
    c->parent[i] = (int32_t)parent;
    c->via[i] = via;
    c->val[i] = 0.0;
    if (c->vector)
        for (int j = 0; j < G_PLAYERS; j++) c->vv[i * G_PLAYERS + j] = 0.0;
    c->slots[b] = (c->short_keys ? key[0] << 32 : gr_tag(h)) | (uint64_t)(i + 1);
    if (2 * c->n > c->slots_mask && gr_rehash(c, c->slots_mask * 2 + 1, c->short_keys)) return -2;
    return i;
}

/* G_SYMMETRIC: state i (just added by gr_add) is `rep`, packed; the keys array has its canonical image. -1: no
   memory. */
static int gr_keep_rep(gr_ctx *c, int64_t i, const uint64_t *rep) {
    if (i >= c->reps_cap) {
        if (gr_grow_big((void **)&c->reps, c->states_cap * G_KEY_WORDS, 8)) return -1;
        c->reps_cap = c->states_cap;
    }
    memcpy(c->reps + i * G_KEY_WORDS, rep, 8 * G_KEY_WORDS);
    return 0;
}

/* State i as it is expanded: as first found (with symmetries its key is another image of it). */
static inline void gr_state(const gr_ctx *c, int64_t i, g_cell *s) {
    gdl_unpack((G_SYMMETRIC ? c->reps : c->keys) + i * G_KEY_WORDS, s);
}

/* Where a chance state's probabilities are kept: the last distribution again when they equal it. */
static int64_t gr_distribution(gr_ctx *c, const double *probs, int n) {
    if (c->last_dist >= 0 && c->last_len == n && memcmp(c->pool + c->last_dist, probs, sizeof(double) * (size_t)n) == 0)
        return c->last_dist;
    if (c->pool_n + n > INT32_MAX) return -1;
    if (c->pool_n + n > c->pool_cap) {
        int64_t m = c->pool_cap;
        while (m < c->pool_n + n) m *= 2;
        if (gr_grow((void **)&c->pool, m, 8)) return -1;
        c->pool_cap = m;
    }
    memcpy(c->pool + c->pool_n, probs, sizeof(double) * (size_t)n);
    c->last_dist = c->pool_n;
    c->last_len = n;
    c->pool_n += n;
    return c->last_dist;
}

static int gr_fail(gr_ctx *c, int64_t state, int status) {
    c->bad = state;
    return status;
}

/* Room for `more` children's keys, hashes and moves in the scratch buffers (`used` taken). */
static int gr_scratch(gr_ctx *c, int64_t used, int64_t more) {
    if (used + more <= c->scratch_n) return 0;
    int64_t m = 2 * (used + more);
    if (gr_grow((void **)&c->scratch, m * G_KEY_WORDS, 8) || gr_grow((void **)&c->hashes, m, 8)
        || gr_grow((void **)&c->moves, m, 4) || gr_grow((void **)&c->known, m, 4)
        || (G_SYMMETRIC && gr_grow((void **)&c->scratch_reps, m * G_KEY_WORDS, 8)))
        return -1;
    c->scratch_n = m;
    return 0;
}

/* Expands state i: its turn, utilities or distribution, and its children's keys and hashes appended to the
   scratch buffers from `used` (their buckets prefetched). Returns the number of children, or a GR_ status
   (negated). */
static int gr_expand(gr_ctx *c, int64_t i, int64_t used) {
    g_cell s[G_STATE_LEN], t[G_STATE_LEN];
    int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES], u[G_PLAYERS];
    gdl_error *e = &c->err;
    gr_state(c, i, s);
    int p = g_to_move(s, e), n = 0;
    if (p == GDL_ERROR) return -gr_fail(c, i, GR_ERROR);
    c->player[i] = (int8_t)p;
    if (p == GDL_TERMINAL) {
        if (g_utilities(s, u, e) < 0) return -gr_fail(c, i, GR_ERROR);
        if (c->vector) {
            for (int j = 0; j < G_PLAYERS; j++) c->vv[i * G_PLAYERS + j] = u[j];
            if (G_PLAYERS != 2 || u[1] != -u[0]) c->antisymmetric = 0;
        } else if (G_PLAYERS == 2 && u[0] + u[1] != 0.0) {
            return -gr_fail(c, i, GR_NOT_SCALAR);
        }
        c->val[i] = u[0];
        return 0;
    }
    n = p == GDL_CHANCE ? g_chance(s, moves, probs, e) : g_legal(s, moves, e);
    if (n < 0) return -gr_fail(c, i, GR_ERROR);
    if (n == 0) return -gr_fail(c, i, GR_DEAD_END);
    if (p == GDL_CHANCE) {
        int64_t d = gr_distribution(c, probs, n);
        if (d < 0) return -GR_MEMORY;
        c->dist[i] = (int32_t)d;
    }
    if (gr_scratch(c, used, n)) return -GR_MEMORY;
    for (int j = 0; j < n; j++) {
        uint64_t *ck = c->scratch + (used + j) * G_KEY_WORDS;
        memcpy(t, s, sizeof s);
        if (g_apply(t, moves[j], e) < 0 || g_key(t, ck, e) < 0) return -gr_fail(c, i, GR_ERROR);
        if (G_SYMMETRIC) gdl_pack(t, c->scratch_reps + (used + j) * G_KEY_WORDS);
        uint64_t h = gdl_hash_words(ck, G_KEY_WORDS), r = c->recent[h & (GR_RECENT - 1)];
        c->hashes[used + j] = h;
        c->moves[used + j] = moves[j];
        if (c->short_keys && r && r >> 32 == ck[0]) { /* (a key of more than 32 bits is never equal) */
            c->known[used + j] = (int32_t)(r & 0xffffffffULL) - 1;
        } else {
            c->known[used + j] = -1;
            __builtin_prefetch(&c->slots[h & (uint64_t)c->slots_mask]);
        }
    }
    return n;
}

/* Adds the children of the expanded states lo .. hi - 1 (counts[i - lo] each; their keys, hashes and moves in
   order from keys, hashes, moves; known: a child's index when already known, else -1; with symmetries, reps:
   the children themselves, packed) in move order, as edges: the children new to the table numbered in this
   order. GR_DONE, GR_FULL or GR_MEMORY. */
static int gr_insert(gr_ctx *c, int64_t lo, int64_t hi, const int *counts, const uint64_t *keys,
                     const uint64_t *hashes, const int32_t *moves, const int32_t *known, const uint64_t *reps) {
    int64_t used = 0;
    for (int64_t i = lo; i < hi; i++) used += counts[i - lo];
    if (c->edges + used > c->edges_cap) {
        int64_t m = c->edges_cap;
        while (m < c->edges + used) m *= 2;
        if (gr_grow_big((void **)&c->succ, m, 4)) return GR_MEMORY;
        c->edges_cap = m;
    }
    used = 0;
    for (int64_t i = lo; i < hi; i++) {
        c->first[i] = c->edges;
        for (int j = 0; j < counts[i - lo]; j++, used++) {
            int64_t k = known[used];
            if (k < 0) {
                const uint64_t *ck = keys + used * G_KEY_WORDS;
                int64_t before = c->n;
                k = gr_add(c, ck, hashes[used], i, moves[used]);
                if (k == -1) return GR_FULL;
                if (k == -2) return GR_MEMORY;
                if (G_SYMMETRIC && c->n > before && gr_keep_rep(c, k, reps + used * G_KEY_WORDS)) return GR_MEMORY;
                if (c->short_keys) c->recent[hashes[used] & (GR_RECENT - 1)] = ck[0] << 32 | (uint64_t)(k + 1);
            }
            c->succ[c->edges++] = (int32_t)k;
        }
        c->expanded = i + 1;
        c->first[c->expanded] = c->edges;
    }
    return GR_DONE;
}

/* Expands the states lo .. hi - 1 on this thread, then adds their children: GR_DONE or what stopped it. */
static int gr_block(gr_ctx *c, int64_t lo, int64_t hi) {
    int counts[GR_BLOCK];
    int64_t used = 0;
    for (int64_t i = lo; i < hi; i++) {
        int n = gr_expand(c, i, used);
        if (n < 0) return -n;
        counts[i - lo] = n;
        used += n;
    }
    return gr_insert(c, lo, hi, counts, c->scratch, c->hashes, c->moves, c->known, c->scratch_reps);
}

static int gr_explore_threads(gr_ctx *c, int64_t slice); /* (explore.c: with gdl_gr_threads(c, n > 1)) */

/* Explores breadth-first from `root` (on the first call; NULL afterwards) until every state is expanded
   (GR_DONE) or about `slice` states were expanded in this call (GR_SLICE). States are expanded a block at a
   time, then their children added in order: the table's buckets are fetched while the block is expanded.
   With more threads (gdl_gr_threads), explore.c's loop: the same states, numbers and slices. */
int gdl_gr_explore(gr_ctx *c, const int32_t *root, int64_t slice) {
    g_cell s[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS];
    c->err.code = 0;
    if (root) {
        if (gdl_import(root, s, &c->err) < 0 || g_key(s, key, &c->err) < 0) return gr_fail(c, 0, GR_ERROR);
        if (gr_add(c, key, gdl_hash_words(key, G_KEY_WORDS), -1, -1) < 0) return GR_MEMORY;
        if (G_SYMMETRIC) {
            uint64_t packed[G_KEY_WORDS];
            gdl_pack(s, packed);
            if (gr_keep_rep(c, 0, packed)) return GR_MEMORY;
        }
    }
    if (c->threads > 1) return gr_explore_threads(c, slice);
    for (int64_t done = 0; c->expanded < c->n; done += GR_BLOCK) {
        if (done >= slice) return GR_SLICE;
        int64_t lo = c->expanded, hi = c->n < lo + GR_BLOCK ? c->n : lo + GR_BLOCK;
        int status = gr_block(c, lo, hi);
        if (status != GR_DONE) return status;
    }
    return GR_DONE;
}

/* ------------------------------------------------------------------------------------- solving */

static double gr_backup(const gr_ctx *c, int64_t s) {
    int p = c->player[s];
    int64_t a = c->first[s], b = c->first[s + 1];
    const double *val = c->val;
    if (p == GDL_TERMINAL) return val[s];
    if (p == GDL_CHANCE) {
        double v = 0.0;
        const double *pr = c->pool + c->dist[s] - a;
        for (int64_t k = a; k < b; k++) v += pr[k] * val[c->succ[k]];
        return v;
    }
    double v = val[c->succ[a]];
    if (p == 0) {
        for (int64_t k = a + 1; k < b; k++) if (val[c->succ[k]] > v) v = val[c->succ[k]];
    } else {
        for (int64_t k = a + 1; k < b; k++) if (val[c->succ[k]] < v) v = val[c->succ[k]];
    }
    return v;
}

static int gr_solve_setup(gr_ctx *c) {
    int64_t n = c->n;
    c->index = gdl_table_alloc(4 * (size_t)n, SIZE_MAX, &c->index_mapped);
    c->finished = malloc(4 * (size_t)n);
    c->path_cap = 1024;
    c->path = malloc(sizeof(gr_frame) * (size_t)c->path_cap);
    c->feedback = calloc((size_t)(n + 63) / 64, 8);
    if (!c->index || !c->finished || !c->path || !c->feedback) return -1;
    if (c->vector && G_PLAYERS == 2 && c->antisymmetric) c->vector = 0; /* (val holds player 0's utilities) */
    c->solving = 1;
    return 0;
}

/* The first k (at most GR_NEWTON_MAX) values of a slopes row copied (`from` NULL: zeros); not a loop, which the
   compiler would make a call to memcpy: k is mostly 1 or 2. */
static inline void gr_copy(double *to, const double *from, int k) {
    switch (k) {
    case 8: to[7] = from ? from[7] : 0.0; /* fall through */
    case 7: to[6] = from ? from[6] : 0.0; /* fall through */
    case 6: to[5] = from ? from[5] : 0.0; /* fall through */
    case 5: to[4] = from ? from[4] : 0.0; /* fall through */
    case 4: to[3] = from ? from[3] : 0.0; /* fall through */
    case 3: to[2] = from ? from[2] : 0.0; /* fall through */
    case 2: to[1] = from ? from[1] : 0.0; /* fall through */
    case 1: to[0] = from ? from[0] : 0.0; /* fall through */
    default: break;
    }
}

_Static_assert(GR_NEWTON_MAX <= 8, "gr_copy copies at most 8 slopes");

static inline int gr_is_feedback(const gr_ctx *c, int32_t s) { return (int)(c->feedback[s >> 6] >> (s & 63)) & 1; }

/* The slopes of state w as the current sweep reads them: its row if it is a member, else 0 (final). */
static const double gr_zero[GR_NEWTON_MAX];

static inline const double *gr_slope(const gr_ctx *c, int32_t w) {
    uint32_t iw = c->index[w];
    return iw & GR_ACTIVE ? c->slopes + (int64_t)(iw & ~GR_ACTIVE) * c->k : gr_zero;
}

/* One sweep of the current component (finished[comp_start ..+ comp_size], in finishing order): every
   member backed up once, feedback states reading as x (their values before the sweep) and writing their
   new values to fresh[]; with `slopes`, also each value's slopes in x (the feedback rows to rows[]). */
static void gr_sweep(gr_ctx *c, int slopes) {
    const int32_t *members = c->finished + c->comp_start;
    int k = c->k;
    for (int64_t m = 0; m < c->comp_size; m++) {
        int32_t s = members[m];
        double v, row[GR_NEWTON_MAX];
        if (!slopes) {
            v = gr_backup(c, s);
        } else if (c->player[s] == GDL_CHANCE) {
            v = 0.0;
            gr_copy(row, NULL, k);
            const double *pr = c->pool + c->dist[s] - c->first[s];
            for (int64_t e = c->first[s]; e < c->first[s + 1]; e++) {
                int32_t w = c->succ[e];
                const double *sw = gr_slope(c, w);
                v += pr[e] * c->val[w];
                for (int i = 0; i < k; i++) row[i] += pr[e] * sw[i];
            }
        } else { /* the first best child, as the Python solver picks it */
            int64_t a = c->first[s], b = c->first[s + 1];
            int32_t best = c->succ[a];
            for (int64_t e = a + 1; e < b; e++) {
                int32_t w = c->succ[e];
                if (c->player[s] == 0 ? c->val[w] > c->val[best] : c->val[w] < c->val[best]) best = w;
            }
            v = c->val[best];
            gr_copy(row, gr_slope(c, best), k);
        }
        if (gr_is_feedback(c, s)) {
            c->fresh[m] = v;
            if (slopes)
                for (int j = 0; j < k; j++)
                    if (c->fb[j] == s) gr_copy(c->rows[j], row, k);
        } else {
            c->val[s] = v;
            if (slopes) gr_copy(c->slopes + m * k, row, k);
        }
    }
    c->work += c->comp_size;
}

/* Solves (I - rows) d = r by Gaussian elimination with partial pivoting; 0 if (nearly) singular. */
static int gr_newton_step(const gr_ctx *c, const double *r, double *d) {
    int k = c->k;
    double m[GR_NEWTON_MAX][GR_NEWTON_MAX + 1];
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++) m[i][j] = (i == j ? 1.0 : 0.0) - c->rows[i][j];
        m[i][k] = r[i];
    }
    for (int col = 0; col < k; col++) {
        int pivot = col;
        for (int i = col + 1; i < k; i++) if (fabs(m[i][col]) > fabs(m[pivot][col])) pivot = i;
        if (fabs(m[pivot][col]) < GR_PIVOT_MIN) return 0;
        for (int j = 0; j <= k; j++) { double x = m[col][j]; m[col][j] = m[pivot][j]; m[pivot][j] = x; }
        for (int i = col + 1; i < k; i++) {
            double f = m[i][col] / m[col][col];
            if (f != 0.0) for (int j = col; j <= k; j++) m[i][j] -= f * m[col][j];
        }
    }
    for (int i = k - 1; i >= 0; i--) {
        double x = m[i][k];
        for (int j = i + 1; j < k; j++) x -= m[i][j] * d[j];
        d[i] = x / m[i][i];
    }
    return 1;
}

/* Whether a decision member has two different children (nearly) equally good for its player. */
static int gr_tied(const gr_ctx *c) {
    const int32_t *members = c->finished + c->comp_start;
    for (int64_t m = 0; m < c->comp_size; m++) {
        int32_t s = members[m];
        int p = c->player[s];
        int64_t a = c->first[s], b = c->first[s + 1];
        if (p < 0 || b - a < 2) continue;
        int32_t best = -1, second = -1;
        for (int64_t e = a; e < b; e++) {
            int32_t w = c->succ[e];
            if (w == best || w == second) continue;
            double vw = p == 0 ? c->val[w] : -c->val[w];
            if (best < 0 || vw > (p == 0 ? c->val[best] : -c->val[best])) { second = best; best = w; }
            else if (second < 0 || vw > (p == 0 ? c->val[second] : -c->val[second])) second = w;
        }
        if (second >= 0) {
            double top = p == 0 ? c->val[best] : -c->val[best], next = p == 0 ? c->val[second] : -c->val[second];
            if (top - next <= GR_TIE) return 1;
        }
    }
    return 0;
}

/* A new component (finished[comp_start ..+ comp_size]) with a cycle: its feedback states and, when they
   are few, the slopes for Newton steps (a feedback state reads as its own variable x_j). */
static int gr_component_begin(gr_ctx *c) {
    const int32_t *members = c->finished + c->comp_start;
    int k = 0;
    for (int64_t m = 0; m < c->comp_size; m++) {
        int32_t s = members[m];
        if (gr_is_feedback(c, s)) {
            if (k < GR_NEWTON_MAX) c->fb[k] = s;
            k++;
        }
    }
    c->sweeps = c->steps = 0;
    c->newton = c->with_slopes = k <= GR_NEWTON_MAX;
    c->k = c->newton ? k : 0;
    if (c->comp_size > c->fresh_cap) {
        int64_t want = c->comp_size * 2;
        if (gr_grow((void **)&c->fresh, want, 8)) return -1;
        c->fresh_cap = want;
    }
    if (!c->newton) return 0;
    if (c->comp_size * k > c->slopes_cap) {
        int64_t want = c->comp_size * k * 2;
        if (gr_grow((void **)&c->slopes, want, 8)) return -1;
        c->slopes_cap = want;
    }
    for (int j = 0; j < k; j++) { /* (a member's index is GR_ACTIVE | its position) */
        double *row = c->slopes + (int64_t)(c->index[c->fb[j]] & ~GR_ACTIVE) * k;
        for (int i = 0; i < k; i++) row[i] = i == j ? 1.0 : 0.0;
    }
    return 0;
}

/* Before a sweep of the current component: 1 to sweep (counted), 0 when the slice is spent (call again),
   -1 when `max_sweeps` (0: no limit) are done (the component stays unconverged). */
static int gr_next_sweep(gr_ctx *c, int64_t max_sweeps, int64_t until) {
    if (max_sweeps > 0 && c->sweeps >= max_sweeps) {
        c->unconverged = 1;
        return -1;
    }
    if (c->work >= until) return 0;
    c->sweeps++;
    if (c->sweeps > c->max_sweeps_seen) c->max_sweeps_seen = c->sweeps;
    return 1;
}

/* The current component is solved: its marks cleared, its members off the finished stack. */
static void gr_component_done(gr_ctx *c) {
    for (int64_t m = 0; m < c->comp_size; m++) {
        int32_t s = c->finished[c->comp_start + m];
        c->feedback[s >> 6] &= ~(1ULL << (s & 63));
        c->index[s] = GR_DONE_INDEX;
    }
    c->nfinished = c->comp_start;
    c->comp_active = 0;
}

/* Iterates the current component (value iteration, with Newton steps while they are sound: see
   solver/value_iteration.py, whose rules this follows step for step) until it converges, or `max_sweeps`
   sweeps (0: no limit), within `slice` states' work: 1 when the component is done, 0 when the slice ran
   out first (call again to go on). */
static int gr_iterate(gr_ctx *c, double tolerance, int64_t max_sweeps, int64_t slice) {
    int64_t until = c->work + slice;
    const int32_t *members = c->finished + c->comp_start;
    for (;;) {
        int next = gr_next_sweep(c, max_sweeps, until);
        if (next == 0) return 0;
        if (next < 0) break;
        gr_sweep(c, c->with_slopes);
        double moved = 0.0, r[GR_NEWTON_MAX], d[GR_NEWTON_MAX];
        for (int64_t m = 0; m < c->comp_size; m++) {
            int32_t s = members[m];
            if (gr_is_feedback(c, s)) {
                double x = fabs(c->fresh[m] - c->val[s]);
                if (x > moved) moved = x;
            }
        }
        int step = 0;
        if (c->with_slopes && c->steps < GR_NEWTON_STEPS) {
            for (int j = 0; j < c->k; j++) r[j] = c->fresh[c->index[c->fb[j]] & ~GR_ACTIVE] - c->val[c->fb[j]];
            step = gr_newton_step(c, r, d);
        }
        if (moved < tolerance) {
            /* after a Newton step, a fixed point is value iteration's from 0 only if no move ties for best
               and the choices leave every cycle; else the component is redone from 0 */
            if (!(c->newton && c->steps && (gr_tied(c) || (c->with_slopes && !step)))) break;
        } else if (c->with_slopes && step) { /* Newton; the next sweep, plain, checks it */
            c->steps++;
            for (int j = 0; j < c->k; j++) c->val[c->fb[j]] += d[j];
            c->with_slopes = 0;
            continue;
        } else if (!c->with_slopes) { /* a plain step; the next sweep takes fresh slopes */
            for (int64_t m = 0; m < c->comp_size; m++)
                if (gr_is_feedback(c, members[m])) c->val[members[m]] = c->fresh[m];
            c->with_slopes = c->newton;
            continue;
        }
        c->newton = c->with_slopes = 0; /* plain sweeps from 0 */
        for (int64_t m = 0; m < c->comp_size; m++) c->val[members[m]] = 0.0;
    }
    for (int64_t m = 0; m < c->comp_size; m++)
        if (gr_is_feedback(c, members[m])) c->val[members[m]] = c->fresh[m];
    gr_component_done(c);
    return 1;
}

/* A state's values backed up (vector values): the expectation at chance, the first child best for the mover. */
static void gr_backup_vec(const gr_ctx *c, int64_t s, double *out) {
    int p = c->player[s];
    int64_t a = c->first[s], b = c->first[s + 1];
    const double *vv = c->vv;
    if (p == GDL_TERMINAL) {
        memcpy(out, vv + s * G_PLAYERS, sizeof(double) * G_PLAYERS);
        return;
    }
    if (p == GDL_CHANCE) {
        const double *pr = c->pool + c->dist[s] - a;
        for (int j = 0; j < G_PLAYERS; j++) out[j] = 0.0;
        for (int64_t k = a; k < b; k++)
            for (int j = 0; j < G_PLAYERS; j++) out[j] += pr[k] * vv[(int64_t)c->succ[k] * G_PLAYERS + j];
        return;
    }
    int64_t best = c->succ[a];
    for (int64_t k = a; k < b; k++)
        if (vv[(int64_t)c->succ[k] * G_PLAYERS + p] > vv[best * G_PLAYERS + p]) best = c->succ[k];
    memcpy(out, vv + best * G_PLAYERS, sizeof(double) * G_PLAYERS);
}

/* Gauss-Seidel sweeps of the current component (vector values), in finishing order, until no value moves by
   `tolerance` (or `max_sweeps`): 1 when the component is done, 0 when the slice ran out first. */
static int gr_iterate_vec(gr_ctx *c, double tolerance, int64_t max_sweeps, int64_t slice) {
    int64_t until = c->work + slice;
    const int32_t *members = c->finished + c->comp_start;
    double row[G_PLAYERS];
    for (;;) {
        int next = gr_next_sweep(c, max_sweeps, until);
        if (next == 0) return 0;
        if (next < 0) break;
        double delta = 0.0;
        for (int64_t m = 0; m < c->comp_size; m++) {
            int32_t s = members[m];
            double *old = c->vv + (int64_t)s * G_PLAYERS;
            gr_backup_vec(c, s, row);
            for (int j = 0; j < G_PLAYERS; j++) {
                double d = fabs(row[j] - old[j]);
                if (d > delta) delta = d;
            }
            memcpy(old, row, sizeof row);
        }
        c->work += c->comp_size;
        if (delta < tolerance) break;
    }
    gr_component_done(c);
    return 1;
}

/* Puts w on the depth-first path with the next discovery number: -1 when there is no memory for the path. */
static inline int gr_enter(gr_ctx *c, int32_t w) {
    if (c->npath == c->path_cap) {
        if (gr_grow((void **)&c->path, c->path_cap * 2, sizeof(gr_frame))) return -1;
        c->path_cap *= 2;
    }
    uint32_t d = (uint32_t)++c->counter;
    c->index[w] = d | GR_ACTIVE;
    gr_frame *f = c->path + c->npath++;
    f->v = w;
    f->low = d;
    f->edge = c->first[w];
    f->end = c->first[w + 1];
    f->nf = c->nfinished;
    /* w's children are read next: their marks, then (for those new) their edges */
    for (int64_t e = f->edge; e < f->end; e++) {
        int32_t x = c->succ[e];
        __builtin_prefetch(&c->index[x]);
        __builtin_prefetch(&c->first[x]);
    }
    return 0;
}

/* Tarjan's components, sinks first, each solved as it is found. GR_DONE, GR_SLICE or GR_MEMORY. The path
   keeps each state's low link and next edge (only states on it need them); a component is the states finished
   since its root was entered, but those of components already solved (Tarjan's stack is not needed). */
int gdl_gr_solve(gr_ctx *c, double tolerance, int64_t max_sweeps, int64_t slice) {
    if (!c->solving && gr_solve_setup(c)) return GR_MEMORY;
    int64_t until = c->work + slice;
    for (;;) {
        if (c->comp_active) { /* a component the last slice left unfinished */
            if (!(c->vector ? gr_iterate_vec : gr_iterate)(c, tolerance, max_sweeps, until - c->work)) return GR_SLICE;
        }
        if (c->work >= until) return GR_SLICE;
        if (c->npath == 0) { /* a new depth-first root */
            while (c->root < c->n && c->index[c->root]) c->root++;
            if (c->root >= c->n) return GR_DONE;
            if (gr_enter(c, (int32_t)c->root)) return GR_MEMORY;
        }
        const int32_t *succ = c->succ;
        uint32_t *index = c->index;
        while (c->npath > 0) {
            gr_frame *f = c->path + c->npath - 1;
            int descended = 0;
            while (f->edge < f->end) {
                int32_t w = succ[f->edge++];
                uint32_t iw = index[w]; /* one read tells whether w is new, on the path, or done */
                if (!iw) {
                    if (gr_enter(c, w)) return GR_MEMORY;
                    descended = 1;
                    break;
                }
                if ((iw & ~GR_ACTIVE) < f->low) f->low = iw & ~GR_ACTIVE;
                if (iw & GR_ACTIVE) c->feedback[w >> 6] |= 1ULL << (w & 63);
            }
            if (descended) continue;
            int32_t v = f->v;
            uint32_t low = f->low;
            int64_t nf = f->nf;
            c->npath--;
            index[v] &= ~GR_ACTIVE;
            c->finished[c->nfinished++] = v;
            if (c->npath > 0 && low < f[-1].low) f[-1].low = low;
            if (low != index[v]) continue;
            /* v roots a component: the states finished since it was entered (their index: GR_ACTIVE | position) */
            int64_t size = c->nfinished - nf;
            c->components++;
            c->comp_start = nf;
            c->comp_size = size;
            if (size == 1 && !gr_is_feedback(c, v)) {
                index[v] = GR_DONE_INDEX;
                if (c->vector) {
                    double row[G_PLAYERS];
                    gr_backup_vec(c, v, row);
                    memcpy(c->vv + (int64_t)v * G_PLAYERS, row, sizeof row);
                } else {
                    c->val[v] = gr_backup(c, v);
                }
                c->work++;
                c->nfinished = c->comp_start;
            } else {
                for (int64_t m = 0; m < size; m++) index[c->finished[nf + m]] = GR_ACTIVE | (uint32_t)m;
                if (c->vector) {
                    c->sweeps = 0;
                    c->comp_active = 1;
                    if (!gr_iterate_vec(c, tolerance, max_sweeps, until - c->work)) return GR_SLICE;
                } else {
                    if (gr_component_begin(c)) return GR_MEMORY;
                    c->comp_active = 1;
                    if (!gr_iterate(c, tolerance, max_sweeps, until - c->work)) return GR_SLICE;
                }
            }
            if (c->work >= until) return GR_SLICE;
        }
    }
}

/* out: states, expanded, edges, components, most sweeps of a component, work, unconverged, bad state, vector */
void gdl_gr_stats(gr_ctx *c, int64_t *out) {
    out[0] = c->n; out[1] = c->expanded; out[2] = c->edges; out[3] = c->components;
    out[4] = c->max_sweeps_seen; out[5] = c->work; out[6] = c->unconverged; out[7] = c->bad; out[8] = c->vector;
}

/* State i's value per player: a row of the vector values, or player 0's value (and 0 - it for player 1). */
static void gr_values(const gr_ctx *c, int64_t i, double *out) {
    if (c->vector) {
        memcpy(out, c->vv + i * G_PLAYERS, sizeof(double) * G_PLAYERS);
        return;
    }
    out[0] = c->val[i];
    if (G_PLAYERS == 2) out[1] = 0.0 - c->val[i];
}

int gdl_gr_values(gr_ctx *c, int64_t i, double *out) {
    if (i < 0 || i >= c->n) return -1;
    gr_values(c, i, out);
    return 0;
}

void gdl_gr_error(gr_ctx *c, gdl_error *e) { *e = c->err; }

/* The index of a state (its key's), or -1 when the graph does not hold it (or the state is invalid). */
int64_t gdl_gr_find(gr_ctx *c, const int32_t *cells) {
    g_cell s[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS];
    gdl_error e = {0, 0, 0, 0};
    if (gdl_import(cells, s, &e) < 0 || g_key(s, key, &e) < 0) return -1;
    return (int64_t)(c->slots[gr_probe(c, key, gdl_hash_words(key, G_KEY_WORDS))] & 0xffffffffULL) - 1;
}

/* State i: its value (player 0's), its turn; its edges' move codes and children into the buffers (cap
   each; codes NULL: not wanted); returns the number of edges, or -1 for an index out of range or an error. */
int64_t gdl_gr_node(gr_ctx *c, int64_t i, double *value, int32_t *player, int32_t *codes, int64_t *children,
                    int64_t cap) {
    if (i < 0 || i >= c->n) return -1;
    *value = c->val[i];
    *player = i < c->expanded ? c->player[i] : GDL_TERMINAL;
    if (i >= c->expanded || !codes) return 0;
    int64_t a = c->first[i], b = c->first[i + 1];
    if (b > a) { /* the codes are not kept: the moves again, in the same order */
        g_cell s[G_STATE_LEN];
        int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
        double probs[G_MAX_OUTCOMES];
        gdl_error e = {0, 0, 0, 0};
        gr_state(c, i, s);
        int n = c->player[i] == GDL_CHANCE ? g_chance(s, moves, probs, &e) : g_legal(s, moves, &e);
        if (n != b - a) return -1;
        for (int64_t k = 0; k < n && k < cap; k++) {
            codes[k] = moves[k];
            children[k] = c->succ[a + k];
        }
    }
    return b - a;
}

/* State i's parent in the breadth-first tree and the move code from it (-1, -1 for the root). */
int64_t gdl_gr_parent(gr_ctx *c, int64_t i, int32_t *via) {
    if (i <= 0 || i >= c->n) { *via = -1; return -1; }
    *via = c->via[i];
    return c->parent[i];
}

/* The size of each ply of the breadth-first exploration so far (sizes[0] = 1, the root), the plies whose every
   state is known: a state's number is its discovery order, so the states first found from ply k are those
   numbered past ply k; ply k + 1 is known once ply k is expanded. Returns how many plies were written (at
   most cap); *complete is 1 when no ply follows the last (every reachable state is in the graph). */
int gdl_gr_levels(gr_ctx *c, int64_t *sizes, int cap, int32_t *complete) {
    int64_t start = 0, end = c->n > 0 ? 1 : 0;
    int k = 0;
    *complete = 0;
    if (cap < 1 || end == 0) return 0;
    sizes[k++] = 1;
    while (k < cap && end <= c->expanded) {
        int64_t next = end;
        for (int64_t e = c->first[start]; e < c->first[end]; e++)
            if ((int64_t)c->succ[e] + 1 > next) next = (int64_t)c->succ[e] + 1;
        if (next == end) { *complete = 1; break; }
        sizes[k++] = next - end;
        start = end;
        end = next;
    }
    return k;
}

/* The cells of every state as first found (n * G_STATE_LEN): with symmetries, what gdl_gr_cells's canonical
   images stand for, and whose moves gdl_gr_node and gdl_gr_export give. */
void gdl_gr_states(gr_ctx *c, int32_t *cells) {
    g_cell s[G_STATE_LEN];
    for (int64_t i = 0; i < c->n; i++) {
        gr_state(c, i, s);
        gdl_export(s, cells + i * G_STATE_LEN);
    }
}

/* The cells of state i (its canonical image). */
int gdl_gr_cells(gr_ctx *c, int64_t i, int32_t *cells) {
    g_cell s[G_STATE_LEN];
    if (i < 0 || i >= c->n) return -1;
    gdl_unpack(c->keys + i * G_KEY_WORDS, s);
    gdl_export(s, cells);
    return 0;
}

/* Copies the graph out for Python (a small graph whose distance to the end Python computes): per state its
   turn, first edge (n + 1 entries), values (n * G_PLAYERS) and cells (n * G_STATE_LEN: its canonical image;
   with symmetries the state itself is gdl_gr_states's); per edge its child, its move code (the
   moves made again: they are not kept) and probability (0 at a decision). 0, or -1 if moves differ. */
int gdl_gr_export(gr_ctx *c, int32_t *player, int64_t *first, double *vals, int32_t *cells, int32_t *succ,
                  int32_t *codes, double *probs) {
    g_cell s[G_STATE_LEN];
    int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
    double p[G_MAX_OUTCOMES];
    gdl_error e = {0, 0, 0, 0};
    for (int64_t i = 0; i < c->n; i++) {
        int64_t a = c->first[i], b = c->first[i + 1];
        player[i] = c->player[i];
        first[i] = a;
        gr_values(c, i, vals + i * G_PLAYERS);
        gdl_unpack(c->keys + i * G_KEY_WORDS, s);
        gdl_export(s, cells + i * G_STATE_LEN);
        if (b == a) continue;
        if (G_SYMMETRIC) gr_state(c, i, s); /* (its moves: the state's, not its key's) */
        int n = c->player[i] == GDL_CHANCE ? g_chance(s, moves, p, &e) : g_legal(s, moves, &e);
        if (n != b - a) return -1;
        for (int64_t k = 0; k < n; k++) {
            succ[a + k] = c->succ[a + k];
            codes[a + k] = moves[k];
            probs[a + k] = c->player[i] == GDL_CHANCE ? c->pool[c->dist[i] + k] : 0.0;
        }
    }
    first[c->n] = c->edges;
    return 0;
}
