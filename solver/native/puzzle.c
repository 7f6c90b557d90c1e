/* Shortest solutions of one-player puzzles in C: breadth-first search and A*, the inner loops of
 * solver/shortest_path.py, step for step (the same states expanded in the same order, the same parents,
 * the same goal). The states found are kept in a gr_ctx (graph.c: packed keys, the open-addressing table,
 * each state's parent and the move from it); no edges are kept. With symmetries a key is a canonical image, and
 * the state expanded is the one Python expands: the child that set its parent last (by BFS, the first found), so
 * the line from the root replays on the real states.
 *
 * Sources: Moore (1959), breadth-first search: states expanded in the order they were found (here, their
 * numbers), so the first goal expanded is at the least depth. Hart, Nilsson & Raphael (1968), A*: the
 * frontier ordered by f = g + h, h = max(0, -heuristic[0]), ties first in, first out; a state is closed when
 * first expanded, and a child is pushed again when it is reached by a shorter line.
 */

#define PZ_DONE 0      /* the search ended: a goal, or every state */
#define PZ_SLICE 1
#define PZ_DEAD_END 3  /* as GR_DEAD_END: the state is gdl_pz_stats()[3] */
#define PZ_ERROR 4
#define PZ_MEMORY 5
#define PZ_CHANCE 7    /* a chance node in a puzzle */

typedef struct { double f; int64_t tie; int32_t g; int32_t state; } pz_item;

typedef struct pz_ctx {
    gr_ctx *g;
    int astar, has_target;
    double target;
    int32_t *depth;
    uint8_t *closed;
    int64_t marks_cap;
    pz_item *heap;
    int64_t heap_n, heap_cap, tie, nodes, best, bad;
    double best_u;
} pz_ctx;

void gdl_pz_free(pz_ctx *c);

static int pz_marks(pz_ctx *c) { /* depth and closed for every state found so far */
    if (c->g->n <= c->marks_cap) return 0;
    int64_t m = c->marks_cap ? c->marks_cap : 1024;
    while (m < c->g->n) m *= 2;
    if (gr_grow((void **)&c->depth, m, 4) || gr_grow((void **)&c->closed, m, 1)) return -1;
    memset(c->closed + c->marks_cap, 0, (size_t)(m - c->marks_cap));
    c->marks_cap = m;
    return 0;
}

static inline int pz_less(const pz_item *a, const pz_item *b) { return a->f < b->f || (a->f == b->f && a->tie < b->tie); }

static int pz_push(pz_ctx *c, double f, int32_t g, int32_t state) {
    if (c->heap_n == c->heap_cap) {
        int64_t m = c->heap_cap ? 2 * c->heap_cap : 1024;
        if (gr_grow((void **)&c->heap, m, sizeof(pz_item))) return -1;
        c->heap_cap = m;
    }
    pz_item x = {f, c->tie++, g, state};
    int64_t i = c->heap_n++;
    while (i > 0 && pz_less(&x, &c->heap[(i - 1) / 2])) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = x;
    return 0;
}

static pz_item pz_pop(pz_ctx *c) {
    pz_item top = c->heap[0], last = c->heap[--c->heap_n];
    int64_t i = 0;
    for (;;) {
        int64_t k = 2 * i + 1;
        if (k >= c->heap_n) break;
        if (k + 1 < c->heap_n && pz_less(&c->heap[k + 1], &c->heap[k])) k++;
        if (!pz_less(&c->heap[k], &last)) break;
        c->heap[i] = c->heap[k];
        i = k;
    }
    if (c->heap_n > 0) c->heap[i] = last;
    return top;
}

static double pz_estimate(const g_cell *s, gdl_error *e, int *failed) {
    double h[G_PLAYERS];
    int written = g_heuristic(s, h, e);
    if (written < 0) { *failed = 1; return 0.0; }
    if (!written) return 0.0;
    return -h[0] > 0.0 ? -h[0] : 0.0;
}

/* A search from `root`: A* if `astar` (then `target` is the goal's utility), else breadth-first (`has_target`:
   stop at the first state whose utility reaches `target`; else visit every state). NULL: no memory. */
pz_ctx *gdl_pz_new(const int64_t *root, int32_t astar, int32_t has_target, double target, gdl_error *e) {
    g_cell s[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS];
    e->code = 0;
    pz_ctx *c = calloc(1, sizeof(pz_ctx));
    if (!c) return NULL;
    c->g = gdl_gr_new(INT32_MAX - 1);
    if (!c->g) { free(c); return NULL; }
    c->astar = astar; c->has_target = has_target; c->target = target; c->best = -1; c->bad = -1;
    if (gdl_import(root, s, e) < 0 || g_key(s, key, e) < 0) { /* the first run reports it */
        c->g->err = *e;
        c->bad = 0;
        return c;
    }
    uint64_t packed[G_KEY_WORDS];
    gdl_pack(s, packed);
    if (gr_add(c->g, key, gdl_hash_words(key, G_KEY_WORDS), -1, -1) < 0 || pz_marks(c)
        || (G_SYMMETRIC && gr_keep_rep(c->g, 0, packed))) {
        gdl_pz_free(c);
        return NULL;
    }
    c->depth[0] = 0;
    if (astar) {
        int failed = 0;
        double h = pz_estimate(s, e, &failed);
        if (failed) { c->g->err = *e; c->bad = 0; }
        else if (pz_push(c, h, 0, 0)) { gdl_pz_free(c); return NULL; }
    }
    return c;
}

void gdl_pz_free(pz_ctx *c) {
    if (!c) return;
    gdl_gr_free(c->g);
    free(c->depth); free(c->closed); free(c->heap); free(c);
}

/* Expands up to `slice` more states. PZ_DONE, PZ_SLICE, or a failure (the state: gdl_pz_stats()[3]). */
int gdl_pz_run(pz_ctx *c, int64_t slice, gdl_error *e) {
    gr_ctx *g = c->g;
    g_cell s[G_STATE_LEN], t[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS], packed[G_KEY_WORDS];
    int32_t moves[G_MAX_MOVES];
    double u[G_PLAYERS];
    e->code = 0;
    if (c->bad >= 0) { *e = c->g->err; return PZ_ERROR; }
    for (int64_t done = 0; done < slice; done++) {
        int64_t i;
        int32_t depth = 0;
        if (c->astar) {
            if (c->heap_n == 0) return PZ_DONE;
            pz_item x = pz_pop(c);
            if (c->closed[x.state]) { done--; continue; } /* (not counted, as in Python) */
            i = x.state;
            depth = x.g;
            c->closed[i] = 1;
        } else {
            if (g->expanded >= g->n) return PZ_DONE;
            i = g->expanded++;
        }
        c->nodes++;
        gr_state(g, i, s);
        int p = g_to_move(s, e);
        if (p == GDL_ERROR) { c->bad = i; return PZ_ERROR; }
        if (p == GDL_TERMINAL) {
            if (g_utilities(s, u, e) < 0) { c->bad = i; return PZ_ERROR; }
            if (c->best < 0 || u[0] > c->best_u) { c->best = i; c->best_u = u[0]; }
            if ((c->astar || c->has_target) && u[0] >= c->target) return PZ_DONE;
            continue;
        }
        if (p == GDL_CHANCE) { c->bad = i; return PZ_CHANCE; }
        int n = g_legal(s, moves, e);
        if (n < 0) { c->bad = i; return PZ_ERROR; }
        if (n == 0) { c->bad = i; return PZ_DEAD_END; }
        for (int j = 0; j < n; j++) {
            memcpy(t, s, sizeof s);
            if (g_apply(t, moves[j], e) < 0 || g_key(t, key, e) < 0) { c->bad = i; return PZ_ERROR; }
            uint64_t h = gdl_hash_words(key, G_KEY_WORDS);
            int64_t b = gr_probe(g, key, h);
            int64_t k = g->slots[b] ? (int64_t)(g->slots[b] & 0xffffffffULL) - 1 : -1;
            if (G_SYMMETRIC) gdl_pack(t, packed);
            if (!c->astar) {
                if (k < 0 && ((k = gr_add(g, key, h, i, moves[j])) < 0 || (G_SYMMETRIC && gr_keep_rep(g, k, packed))))
                    return PZ_MEMORY;
                continue;
            }
            if (k >= 0 && (c->closed[k] || c->depth[k] <= depth + 1)) continue;
            if (k < 0) {
                if ((k = gr_add(g, key, h, i, moves[j])) < 0 || pz_marks(c)) return PZ_MEMORY;
            } else {
                g->parent[k] = (int32_t)i;
                g->via[k] = moves[j];
            }
            /* (the child pushed last is popped first: a shorter line, a smaller f; Python expands it) */
            if (G_SYMMETRIC && gr_keep_rep(g, k, packed)) return PZ_MEMORY;
            c->depth[k] = depth + 1;
            int failed = 0;
            double est = pz_estimate(t, e, &failed);
            if (failed) { c->bad = i; return PZ_ERROR; }
            if (pz_push(c, (double)(depth + 1) + est, depth + 1, (int32_t)k)) return PZ_MEMORY;
        }
    }
    return PZ_SLICE;
}

/* out: states expanded, states found, the best terminal found (-1: none), the state of a failure (-1). */
void gdl_pz_stats(pz_ctx *c, int64_t *out, double *best_utility) {
    out[0] = c->nodes; out[1] = c->g->n; out[2] = c->best; out[3] = c->bad;
    *best_utility = c->best_u;
}

/* The moves from the root to state i (as codes), backwards from i; returns their number (at most cap). */
int64_t gdl_pz_line(pz_ctx *c, int64_t i, int32_t *codes, int64_t cap) {
    int64_t n = 0;
    while (i > 0 && n < cap) {
        codes[n++] = c->g->via[i];
        i = c->g->parent[i];
    }
    return n;
}
