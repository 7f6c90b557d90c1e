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
 *
 * Files: graph_types.c (the types, shared), graph.c (exploring and reading the graph: the rules in its loops),
 * graph_solve.c (solving: the graph alone), compiled apart in a split build (solver/native/units.py).
 */

static int gr_short_keys(void);
static void gr_par_free(gr_ctx *c);

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

/* A monotonic clock in seconds (the threaded exploration's serial phase times its two halves). */
static double gr_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Expands the states lo .. hi - 1 on this thread, then adds their children: GR_DONE or what stopped it. With
   `spent`, the seconds of each half are added to spent[0] and spent[1]. */
static int gr_block(gr_ctx *c, int64_t lo, int64_t hi, double *spent) {
    int counts[GR_BLOCK];
    int64_t used = 0;
    double started = spent ? gr_seconds() : 0.0;
    for (int64_t i = lo; i < hi; i++) {
        int n = gr_expand(c, i, used);
        if (n < 0) return -n;
        counts[i - lo] = n;
        used += n;
    }
    double expanded = spent ? gr_seconds() : 0.0;
    int status = gr_insert(c, lo, hi, counts, c->scratch, c->hashes, c->moves, c->known, c->scratch_reps);
    if (spent) {
        spent[0] += expanded - started;
        spent[1] += gr_seconds() - expanded;
    }
    return status;
}

static int gr_explore_threads(gr_ctx *c, int64_t slice); /* (explore.c: with gdl_gr_threads(c, n > 1)) */

/* Explores breadth-first from `root` (on the first call; NULL afterwards) until every state is expanded
   (GR_DONE) or about `slice` states were expanded in this call (GR_SLICE). States are expanded a block at a
   time, then their children added in order: the table's buckets are fetched while the block is expanded.
   With more threads (gdl_gr_threads), explore.c's loop: the same states, numbers and slices. */
int gdl_gr_explore(gr_ctx *c, const int64_t *root, int64_t slice) {
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
        int status = gr_block(c, lo, hi, NULL);
        if (status != GR_DONE) return status;
    }
    return GR_DONE;
}

/* out: states, expanded, edges, components, most sweeps of a component, work, unconverged, bad state, vector */
void gdl_gr_stats(gr_ctx *c, int64_t *out) {
    out[0] = c->n; out[1] = c->expanded; out[2] = c->edges; out[3] = c->components;
    out[4] = c->max_sweeps_seen; out[5] = c->work; out[6] = c->unconverged; out[7] = c->bad; out[8] = c->vector;
}

int gdl_gr_values(gr_ctx *c, int64_t i, double *out) {
    if (i < 0 || i >= c->n) return -1;
    gr_values(c, i, out);
    return 0;
}

void gdl_gr_error(gr_ctx *c, gdl_error *e) { *e = c->err; }

/* The index of a state (its key's), or -1 when the graph does not hold it (or the state is invalid). */
int64_t gdl_gr_find(gr_ctx *c, const int64_t *cells) {
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
void gdl_gr_states(gr_ctx *c, int64_t *cells) {
    g_cell s[G_STATE_LEN];
    for (int64_t i = 0; i < c->n; i++) {
        gr_state(c, i, s);
        gdl_export(s, cells + i * G_STATE_LEN);
    }
}

/* The cells of state i (its canonical image). */
int gdl_gr_cells(gr_ctx *c, int64_t i, int64_t *cells) {
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
int gdl_gr_export(gr_ctx *c, int32_t *player, int64_t *first, double *vals, int64_t *cells, int32_t *succ,
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
