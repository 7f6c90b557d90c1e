/* The state graph solved (graph.c describes the graph and the method): backward induction and value iteration one
 * strongly connected component at a time, sinks first, over the explored graph alone (no rule is called), so it
 * is compiled apart from the game in a split build (solver/native/units.py).
 */

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
