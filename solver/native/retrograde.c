/* Retrograde analysis over the C state graph (graph.c): solver/retrograde.py's algorithm, step for step, for a
 * deterministic two-player zero-sum game with cycles.
 *
 * Sources: Ströhlein (1970), the first endgame tables computed backwards from the ends; Thompson (1986), the
 * backward sweep with a counter of unrefuted moves per position; Zielonka (1998), attractors. Pseudo-code:
 *
 *     preds := the predecessor lists (compressed rows), once per edge, from the successor rows
 *     levels := the distinct utilities of player 0 at the ends, and 0, ascending; value[s] := levels[0]
 *     for t in levels[1:]:
 *         t > 0:  rank := attractor(player 0, ends worth >= t);  rank[s] >= 0: value[s] := t, rank_up[s] := rank[s]
 *         t <= 0: rank := attractor(player 1, ends worth < t);   rank[s] < 0: value[s] := t,
 *                 else the first such level: rank_down[s] := rank[s]
 *     attractor(p, targets): rank[t] := 0 for the targets, queued in index order; unrefuted[s] := moves of s;
 *         breadth-first from the targets: a predecessor of p's is ranked at once, another once every move of it
 *         is refuted (its counter reaches 0); rank := rank of the state it was reached from + 1
 *
 * Endless play is worth 0. An optimal move of a winner must make progress: gdl_rg_best lists, as retrograde.py's
 * `best`, the children with the state's value and (player 0 winning: rank_up; player 1 keeping the value below
 * the next level: rank_down) a lower rank. Optionally first a check for cycles: the attractor of the ends for
 * nobody (every state whose every move leads to a state already in it) is the whole graph iff it is acyclic.
 *
 * Every phase is resumable: gdl_rg_run does about `slice` units of work (a state, or an edge) and returns
 * GR_SLICE, so Python checks the budget and sees Ctrl-C in between. The values are written into the graph's
 * val[] at the end (gdl_gr_values, gdl_gr_node read them).
 */

enum { RG_COUNT, RG_FILL, RG_INIT, RG_BFS, RG_APPLY, RG_FINISH, RG_DONE };

typedef struct rg_ctx {
    gr_ctx *g;
    int64_t n, pos, head, tail, work;
    int64_t *pfirst;   /* predecessor rows: preds[pfirst[c] .. pfirst[c + 1]], in edge order (as in Python) */
    int32_t *preds, *rank, *unrefuted, *queue, *rank_up, *rank_down;
    double *value, *levels;
    int64_t nlevels, level; /* the level whose attractor is computed; 0: the check for cycles */
    int phase, check_cycles, acyclic;
} rg_ctx;

static int rg_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void gdl_rg_free(rg_ctx *r) {
    if (!r) return;
    free(r->pfirst); free(r->preds); free(r->rank); free(r->unrefuted); free(r->queue); free(r->rank_up);
    free(r->rank_down); free(r->value); free(r->levels);
    free(r);
}

/* A retrograde analysis of the explored graph `g` (scalar values: player 0's); `check_cycles`: first find whether
   the graph is acyclic (then nothing more is computed). NULL: no memory, or the graph is not wholly explored. */
rg_ctx *gdl_rg_new(gr_ctx *g, int32_t check_cycles) {
    if (g->vector || g->expanded != g->n || g->n < 1) return NULL;
    rg_ctx *r = calloc(1, sizeof(rg_ctx));
    if (!r) return NULL;
    int64_t n = g->n, e = g->edges;
    r->g = g;
    r->n = n;
    r->pfirst = calloc((size_t)n + 1, 8);
    r->preds = malloc(4 * (size_t)(e > 0 ? e : 1));
    r->rank = malloc(4 * (size_t)n);
    r->unrefuted = malloc(4 * (size_t)n);
    r->queue = malloc(4 * (size_t)n);
    r->rank_up = malloc(4 * (size_t)n);
    r->rank_down = malloc(4 * (size_t)n);
    r->value = malloc(8 * (size_t)n);
    r->levels = malloc(8 * (size_t)(n + 1));
    if (!r->pfirst || !r->preds || !r->rank || !r->unrefuted || !r->queue || !r->rank_up || !r->rank_down
        || !r->value || !r->levels) {
        gdl_rg_free(r);
        return NULL;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (g->player[i] == GDL_TERMINAL) r->levels[m++] = g->val[i];
    r->levels[m++] = 0.0;
    qsort(r->levels, (size_t)m, sizeof(double), rg_cmp);
    int64_t k = 0;
    for (int64_t j = 0; j < m; j++)
        if (k == 0 || r->levels[j] != r->levels[k - 1]) r->levels[k++] = r->levels[j];
    r->nlevels = k;
    for (int64_t i = 0; i < n; i++) {
        r->value[i] = r->levels[0];
        r->rank_up[i] = r->rank_down[i] = -1;
    }
    r->check_cycles = check_cycles != 0;
    r->acyclic = -1;
    r->level = r->check_cycles ? 0 : 1;
    r->phase = RG_COUNT;
    return r;
}

/* Whether terminal state i is a target of the current level's attractor, and whose attractor it is (2: nobody's,
   the check for cycles: every end is a target). */
static inline int rg_target(const rg_ctx *r, int64_t i) {
    if (r->g->player[i] != GDL_TERMINAL) return 0;
    if (r->level == 0) return 1;
    double t = r->levels[r->level], u = r->g->val[i];
    return t > 0 ? u >= t : u < t;
}

static inline int rg_player(const rg_ctx *r) {
    return r->level == 0 ? 2 : r->levels[r->level] > 0 ? 0 : 1;
}

/* The next level (after the check for cycles, or an attractor applied): RG_INIT, or RG_FINISH after the last. */
static void rg_next_level(rg_ctx *r) {
    r->level++;
    r->pos = 0;
    r->phase = r->level < r->nlevels ? RG_INIT : RG_FINISH;
}

/* About `slice` units of work: GR_DONE when the analysis is complete, else GR_SLICE (call again). */
int gdl_rg_run(rg_ctx *r, int64_t slice) {
    gr_ctx *g = r->g;
    const int64_t *first = g->first;
    const int32_t *succ = g->succ;
    const int8_t *player = g->player;
    int64_t n = r->n, until = r->work + slice;
    for (;;) {
        if (r->phase == RG_DONE) return GR_DONE;
        if (r->work >= until) return GR_SLICE;
        switch (r->phase) {
        case RG_COUNT: /* predecessors per state (pfirst[c]: c's count, then its end) */
            for (; r->pos < n && r->work < until; r->pos++) {
                for (int64_t e = first[r->pos]; e < first[r->pos + 1]; e++) r->pfirst[succ[e]]++;
                r->work += 1 + first[r->pos + 1] - first[r->pos];
            }
            if (r->pos < n) break;
            for (int64_t c = 1; c < n; c++) r->pfirst[c] += r->pfirst[c - 1];
            r->pfirst[n] = g->edges;
            r->work += n;
            r->pos = n;
            r->phase = RG_FILL;
            break;
        case RG_FILL: /* backwards, each row filled from its end: every row in ascending edge order */
            for (; r->pos > 0 && r->work < until; r->pos--) {
                int64_t i = r->pos - 1;
                for (int64_t e = first[i + 1] - 1; e >= first[i]; e--) r->preds[--r->pfirst[succ[e]]] = (int32_t)i;
                r->work += 1 + first[i + 1] - first[i];
            }
            if (r->pos > 0) break;
            r->phase = RG_INIT;
            break;
        case RG_INIT: /* ranks unknown, counters full, the targets ranked 0 and queued in index order */
            if (r->pos == 0) r->head = r->tail = 0;
            for (; r->pos < n && r->work < until; r->pos++) {
                int64_t i = r->pos;
                r->unrefuted[i] = (int32_t)(first[i + 1] - first[i]);
                if (rg_target(r, i)) {
                    r->rank[i] = 0;
                    r->queue[r->tail++] = (int32_t)i;
                } else {
                    r->rank[i] = -1;
                }
                r->work++;
            }
            if (r->pos < n) break;
            r->phase = RG_BFS;
            break;
        case RG_BFS: {
            int who = rg_player(r);
            int32_t *rank = r->rank, *unrefuted = r->unrefuted, *queue = r->queue;
            const int32_t *preds = r->preds;
            const int64_t *pfirst = r->pfirst;
            while (r->head < r->tail && r->work < until) {
                int32_t c = queue[r->head++];
                int32_t next = rank[c] + 1;
                for (int64_t k = pfirst[c]; k < pfirst[c + 1]; k++) {
                    int32_t i = preds[k];
                    if (rank[i] >= 0) continue;
                    if (player[i] == who || --unrefuted[i] == 0) {
                        rank[i] = next;
                        queue[r->tail++] = i;
                    }
                }
                r->work += 1 + pfirst[c + 1] - pfirst[c];
            }
            if (r->head < r->tail) break;
            if (r->level == 0) {
                r->acyclic = r->tail == n;
                if (r->acyclic) {
                    r->phase = RG_DONE; /* (backward induction, in Python, solves it) */
                    break;
                }
                rg_next_level(r);
                break;
            }
            r->pos = 0;
            r->phase = RG_APPLY;
            break;
        }
        case RG_APPLY: {
            double t = r->levels[r->level];
            for (; r->pos < n && r->work < until; r->pos++) {
                int64_t i = r->pos;
                int32_t k = r->rank[i];
                if (t > 0) {
                    if (k >= 0) {
                        r->value[i] = t;
                        r->rank_up[i] = k;
                    }
                } else if (k < 0) {
                    r->value[i] = t;
                } else if (r->rank_down[i] < 0) {
                    r->rank_down[i] = k; /* the first (lowest) level it is kept below: its own value's next */
                }
                r->work++;
            }
            if (r->pos < n) break;
            rg_next_level(r);
            break;
        }
        case RG_FINISH: /* the values into the graph: (v + 0.0, 0.0 - v) as Python's */
            for (int64_t i = 0; i < n; i++) g->val[i] = r->value[i] + 0.0;
            r->work += n;
            r->phase = RG_DONE;
            break;
        default:
            return GR_DONE;
        }
    }
}

/* out: work done, acyclic (1, 0, or -1 not checked), levels */
void gdl_rg_stats(rg_ctx *r, int64_t *out) {
    out[0] = r->work;
    out[1] = r->acyclic;
    out[2] = r->nlevels;
}

/* Whether edge e (of state i, toward child c) is an optimal move as retrograde.py's `best` says: c keeps i's value
   and, when i's player must make progress, has a lower rank. */
static inline int rg_is_best(const rg_ctx *r, int64_t i, int32_t c, const int32_t *ranks) {
    return r->value[c] == r->value[i] && (!ranks || ranks[c] < ranks[i]);
}

static inline const int32_t *rg_ranks(const rg_ctx *r, int64_t i) {
    int p = r->g->player[i];
    if (p == 0 && r->value[i] > 0) return r->rank_up;
    if (p == 1 && r->rank_down[i] >= 0) return r->rank_down;
    return NULL; /* holding the value is enough */
}

/* The positions (in move order) of state i's optimal moves, at most `cap` of them written; returns how many there
   are (0 at an end), or -1 for an index out of range or an analysis not done. */
int64_t gdl_rg_best(rg_ctx *r, int64_t i, int32_t *positions, int64_t cap) {
    if (i < 0 || i >= r->n || r->phase != RG_DONE || r->acyclic == 1) return -1;
    const gr_ctx *g = r->g;
    if (g->player[i] < 0) return 0;
    const int32_t *ranks = rg_ranks(r, i);
    int64_t a = g->first[i], b = g->first[i + 1], k = 0;
    for (int64_t e = a; e < b; e++)
        if (rg_is_best(r, i, g->succ[e], ranks)) {
            if (k < cap) positions[k] = (int32_t)(e - a);
            k++;
        }
    return k;
}

/* Per edge (the graph's edge order) 1 if it is an optimal move, else 0; per state its first edge (n + 1 entries). 0,
   or -1 if the analysis is not done. */
int gdl_rg_flags(rg_ctx *r, int8_t *flags, int64_t *first) {
    if (r->phase != RG_DONE || r->acyclic == 1) return -1;
    const gr_ctx *g = r->g;
    first[r->n] = g->first[r->n];
    for (int64_t i = 0; i < r->n; i++) {
        int64_t a = g->first[i], b = g->first[i + 1];
        first[i] = a;
        if (g->player[i] < 0) {
            for (int64_t e = a; e < b; e++) flags[e] = 0;
            continue;
        }
        const int32_t *ranks = rg_ranks(r, i);
        for (int64_t e = a; e < b; e++) flags[e] = (int8_t)rg_is_best(r, i, g->succ[e], ranks);
    }
    return 0;
}
