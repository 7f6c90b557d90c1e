/* The distance to the end ("remoteness") over the C state graph (graph.c): solver/remoteness.py's graph_plies, rule
 * for rule, over a graph of any size (it is not copied out to Python).
 *
 * Source: the Gamesman project (Garcia et al., UC Berkeley) calls it remoteness: plies to the end under optimal
 * play, a winner hurrying, a loser holding out (a draw hurries too); a chance state is 1 + its outcomes' expected
 * plies; endless play is infinite. Tarjan (1972) for the components, sinks first; a component without chance is a
 * retrograde pass in order of distance (Dijkstra 1959's heap); one with chance is the least fixed point of its
 * equations: first the states where play may go on forever (de Alfaro, Henzinger & Kupferman 1998: almost-sure
 * reachability), then Newton steps on the feedback states (policy iteration), else Gauss-Seidel sweeps from 0:
 * remoteness_chance.c, appended after this file. Pseudo-code (as remoteness.py's):
 *
 *     for C in components(graph), sinks first:
 *         if C is one state without a self-loop: plies[s] <- 0 | 1 + sum p * plies[child] | 1 + min/max optimal child
 *         elif C has no chance state: heap from each member's best way out; a "min" state is done at its first
 *             child done, a "max" state once every optimal child is; members never done: inf
 *         else: inf where play may never end; Newton steps, checked by a sweep; else sweeps from 0 (the least
 *             fixed point; inf past ENDLESS, unknown after CHANCE_SWEEPS)
 *
 * The arithmetic is Python's, operation for operation (sums left to right from 0, the first of equal minima, the
 * same Gaussian elimination), so the distances are the Python ones to the last bit. An unknown distance (Python's
 * None: a component below could not be measured) is NaN here. The values read are the graph's own (gr_values:
 * backward induction, value iteration or retrograde analysis). It runs in slices of about `slice` units of work (a
 * state or an edge; the walk and a cycle without chance pause anywhere, a cycle through chance between
 * components), between which Python checks the time budget and sees Ctrl-C.
 */

#define RM_TIE 1e-9             /* solver.limits.TIE_TOLERANCE */
#define RM_CHANCE_SWEEPS 20000  /* remoteness.CHANCE_SWEEPS */
#define RM_ENDLESS 1e12         /* remoteness.ENDLESS */
#define RM_NEWTON_MAX 16        /* remoteness.NEWTON_MAX_FEEDBACK */
#define RM_NEWTON_STEPS 50      /* remoteness.NEWTON_MAX_STEPS */
#define RM_PIVOT_MIN 1e-9       /* value_iteration.PIVOT_MIN */
#define RM_MEMBER 0x80000000u   /* index[]: a member of the component being measured | its position */
#define RM_EMITTED 0xffffffffu  /* index[]: in a component already measured */
#define RM_ACTIVE 1             /* flags[]: on the depth-first path */
#define RM_BACK 2               /* flags[]: the target of a back edge (a feedback state) */

typedef struct rm_frame {
    int64_t edge, end, nf; /* its next edge, its last + 1, finished states when it was entered */
    int32_t v;
    uint32_t low;
} rm_frame;

typedef struct rm_heap_item { double d; int32_t s; } rm_heap_item;

typedef struct rm_ctx {
    gr_ctx *g;
    int64_t n, work, counter, root, nfinished, npath, path_cap;
    double *plies;       /* per state; NaN: unknown */
    uint32_t *index;     /* 0: not seen; discovery number; RM_MEMBER | position; RM_EMITTED */
    uint8_t *flags;
    int32_t *finished;
    rm_frame *path;
    /* per member of the component being measured (grown as needed) */
    int64_t mcap, ecap, hcap;
    int32_t *waiting, *slot, *stamp, *rlen, *pcount;
    int64_t *rbeg, *pfirst;
    uint8_t *mark;       /* bits: see RM_M_* */
    double *worst, *fconst, *fslopes;
    int32_t *rchild, *plist;
    double *rprob;
    rm_heap_item *heap;
    int64_t fslopes_cap;
    int64_t cnf, csize, cm, heap_n; /* a component without chance being measured: finished[cnf ..+ csize], ... */
    int cphase;                     /* ... its phase (RM_CY_NONE: none), member cursor and heap */
    int done;
} rm_ctx;

enum { RM_CY_NONE, RM_CY_COUNT, RM_CY_FILL, RM_CY_HEAP, RM_CY_END };

#define RM_M_DONE 1
#define RM_M_SKIP 2   /* an optimal child outside is unknown: so is this member */
#define RM_M_KEEP 4
#define RM_M_REACH 8
#define RM_M_SAFE 16
#define RM_M_MIN 32   /* hurries */
#define RM_M_CHANCE 64

void gdl_rm_free(rm_ctx *r) {
    if (!r) return;
    free(r->plies); free(r->index); free(r->flags); free(r->finished); free(r->path);
    free(r->waiting); free(r->slot); free(r->stamp); free(r->rlen); free(r->pcount); free(r->rbeg); free(r->pfirst);
    free(r->mark); free(r->worst); free(r->fconst); free(r->fslopes); free(r->rchild); free(r->plist);
    free(r->rprob); free(r->heap);
    free(r);
}

/* The distance pass over the solved graph `g` (wholly explored). NULL: no memory, or the graph is not explored. */
rm_ctx *gdl_rm_new(gr_ctx *g) {
    if (g->expanded != g->n || g->n < 1) return NULL;
    rm_ctx *r = calloc(1, sizeof(rm_ctx));
    if (!r) return NULL;
    int64_t n = g->n;
    r->g = g;
    r->n = n;
    r->plies = malloc(8 * (size_t)n);
    r->index = calloc((size_t)n, 4);
    r->flags = calloc((size_t)n, 1);
    r->finished = malloc(4 * (size_t)n);
    r->path_cap = 1024;
    r->path = malloc(sizeof(rm_frame) * (size_t)r->path_cap);
    if (!r->plies || !r->index || !r->flags || !r->finished || !r->path) {
        gdl_rm_free(r);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) r->plies[i] = NAN;
    return r;
}

/* Room for a component of `m` members and `e` chosen edges. */
static int rm_room(rm_ctx *r, int64_t m, int64_t e) {
    if (m > r->mcap) {
        int64_t want = 2 * m;
        if (gr_grow((void **)&r->waiting, want, 4) || gr_grow((void **)&r->slot, want, 4)
            || gr_grow((void **)&r->stamp, want, 4) || gr_grow((void **)&r->rlen, want, 4)
            || gr_grow((void **)&r->pcount, want, 4) || gr_grow((void **)&r->rbeg, want, 8)
            || gr_grow((void **)&r->pfirst, want + 1, 8) || gr_grow((void **)&r->mark, want, 1)
            || gr_grow((void **)&r->worst, want, 8) || gr_grow((void **)&r->fconst, want, 8))
            return -1;
        r->mcap = want;
    }
    if (e > r->ecap) {
        int64_t want = 2 * e;
        if (gr_grow((void **)&r->rchild, want, 4) || gr_grow((void **)&r->plist, want, 4)
            || gr_grow((void **)&r->rprob, want, 8))
            return -1;
        r->ecap = want;
    }
    if (m + e > r->hcap) {
        int64_t want = 2 * (m + e);
        if (gr_grow((void **)&r->heap, want, sizeof(rm_heap_item))) return -1;
        r->hcap = want;
    }
    return 0;
}

static inline int rm_inside(const rm_ctx *r, int32_t c) {
    uint32_t i = r->index[c];
    return (i & RM_MEMBER) && i != RM_EMITTED;
}

static inline int64_t rm_pos(const rm_ctx *r, int32_t c) { return (int64_t)(r->index[c] & ~RM_MEMBER); }

/* remoteness.same_value: the value vectors equal, or each pair within TIE_TOLERANCE (relative past 1). */
static int rm_same(const double *a, const double *b) {
    int equal = 1;
    for (int j = 0; j < G_PLAYERS; j++)
        if (a[j] != b[j]) equal = 0;
    if (equal) return 1;
    for (int j = 0; j < G_PLAYERS; j++) {
        double x = fabs(a[j]), y = fabs(b[j]), m = 1.0;
        if (x > m) m = x;
        if (y > m) m = y;
        if (!(fabs(a[j] - b[j]) <= RM_TIE * m)) return 0;
    }
    return 1;
}

/* Whether edge e of decision state s (values `here`) is an optimal move: its child keeps the value. */
static inline int rm_optimal(const rm_ctx *r, int64_t e, const double *here) {
    double there[G_PLAYERS];
    gr_values(r->g, r->g->succ[e], there);
    return rm_same(there, here);
}

/* remoteness._acyclic: a state whose children are all measured (or unknown). */
static double rm_acyclic(rm_ctx *r, int32_t s) {
    const gr_ctx *g = r->g;
    int p = g->player[s];
    if (p == GDL_TERMINAL) return 0.0;
    int64_t a = g->first[s], b = g->first[s + 1];
    r->work += 1 + b - a;
    if (p == GDL_CHANCE) {
        const double *pr = g->pool + g->dist[s] - a;
        double sum = 0.0;
        for (int64_t e = a; e < b; e++)
            if (isnan(r->plies[g->succ[e]])) return NAN;
        for (int64_t e = a; e < b; e++) sum += pr[e] * r->plies[g->succ[e]];
        return 1.0 + sum;
    }
    double here[G_PLAYERS], best = NAN;
    gr_values(g, s, here);
    int hurry = here[p] >= -RM_TIE, any = 0;
    for (int64_t e = a; e < b; e++) {
        if (!rm_optimal(r, e, here)) continue;
        double k = r->plies[g->succ[e]];
        if (isnan(k)) return NAN;
        if (!any || (hurry ? k < best : k > best)) best = k;
        any = 1;
    }
    return any ? 1.0 + best : NAN;
}

/* ----------------------------------------------------------------- a component without chance (remoteness._cyclic) */

static inline int rm_before(rm_heap_item x, rm_heap_item y) { return x.d < y.d || (x.d == y.d && x.s < y.s); }

static void rm_push(rm_ctx *r, int64_t *size, double d, int32_t s) {
    rm_heap_item *h = r->heap, item = {d, s};
    int64_t i = (*size)++;
    while (i > 0) {
        int64_t up = (i - 1) / 2;
        if (!rm_before(item, h[up])) break;
        h[i] = h[up];
        i = up;
    }
    h[i] = item;
}

static rm_heap_item rm_pop(rm_ctx *r, int64_t *size) {
    rm_heap_item *h = r->heap, top = h[0], last = h[--*size];
    int64_t i = 0, n = *size;
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && rm_before(h[child + 1], h[child])) child++;
        if (!rm_before(h[child], last)) break;
        h[i] = h[child];
        i = child;
    }
    if (n > 0) h[i] = last;
    return top;
}

/* A component without chance, begun: room for it, no parents counted, an empty heap. */
static int rm_cyclic_begin(rm_ctx *r, int64_t nf, int64_t size) {
    const gr_ctx *g = r->g;
    const int32_t *members = r->finished + nf;
    int64_t inner = 0; /* (at most every edge is an optimal one inside: the parents lists' length) */
    for (int64_t m = 0; m < size; m++) inner += g->first[members[m] + 1] - g->first[members[m]];
    if (rm_room(r, size, inner)) return -1;
    for (int64_t m = 0; m < size; m++) r->pcount[m] = 0;
    r->cnf = nf;
    r->csize = size;
    r->cm = r->heap_n = 0;
    r->cphase = RM_CY_COUNT;
    return 0;
}

/* remoteness._cyclic, resumable: 1 when the component is measured, 0 when `until` (work) came first. Phases: each
   member's way out and its optimal children inside counted; the parents lists filled (member then edge order); the
   heap emptied in order of distance; the members never done made endless (or left unknown). */
static int rm_cyclic(rm_ctx *r, int64_t until) {
    const gr_ctx *g = r->g;
    const int32_t *members = r->finished + r->cnf;
    int64_t size = r->csize;
    double here[G_PLAYERS];
    switch (r->cphase) {
    case RM_CY_COUNT:
        for (; r->cm < size; r->cm++) {
            if (r->work >= until) return 0;
            int64_t m = r->cm;
            int32_t s = members[m];
            int p = g->player[s];
            r->mark[m] = 0;
            r->waiting[m] = -1;
            if (p == GDL_TERMINAL) {
                rm_push(r, &r->heap_n, 0.0, s);
                continue;
            }
            gr_values(g, s, here);
            int64_t a = g->first[s], b = g->first[s + 1], count = 0, outside = 0;
            double low = 0.0, high = -INFINITY;
            r->work += 1 + b - a;
            for (int64_t e = a; e < b; e++) {
                if (!rm_optimal(r, e, here)) continue;
                int32_t c = g->succ[e];
                if (rm_inside(r, c)) {
                    count++;
                    continue;
                }
                double k = r->plies[c];
                if (isnan(k)) {
                    r->mark[m] = RM_M_SKIP; /* unknown below: unknown here */
                    break;
                }
                if (!outside || k < low) low = k;
                if (!outside || k > high) high = k;
                outside++;
            }
            if (r->mark[m] & RM_M_SKIP) continue;
            for (int64_t e = a; e < b; e++)
                if (rm_inside(r, g->succ[e]) && rm_optimal(r, e, here)) r->pcount[rm_pos(r, g->succ[e])]++;
            if (here[p] >= -RM_TIE) {
                if (outside) rm_push(r, &r->heap_n, 1.0 + low, s);
            } else {
                r->waiting[m] = (int32_t)count;
                r->worst[m] = high;
                if (count == 0) rm_push(r, &r->heap_n, 1.0 + high, s);
            }
        }
        r->pfirst[0] = 0;
        for (int64_t m = 0; m < size; m++) r->pfirst[m + 1] = r->pfirst[m] + r->pcount[m];
        for (int64_t m = 0; m < size; m++) r->pcount[m] = 0;
        r->cm = 0;
        r->cphase = RM_CY_FILL;
        /* fall through */
    case RM_CY_FILL:
        for (; r->cm < size; r->cm++) {
            if (r->work >= until) return 0;
            int32_t s = members[r->cm];
            if (g->player[s] == GDL_TERMINAL || (r->mark[r->cm] & RM_M_SKIP)) continue;
            gr_values(g, s, here);
            r->work += 1 + g->first[s + 1] - g->first[s];
            for (int64_t e = g->first[s]; e < g->first[s + 1]; e++) {
                int32_t c = g->succ[e];
                if (!rm_inside(r, c) || !rm_optimal(r, e, here)) continue;
                int64_t q = rm_pos(r, c);
                r->plist[r->pfirst[q] + r->pcount[q]++] = s;
            }
        }
        r->cphase = RM_CY_HEAP;
        /* fall through */
    case RM_CY_HEAP:
        while (r->heap_n > 0) {
            if (r->work >= until) return 0;
            rm_heap_item top = rm_pop(r, &r->heap_n);
            int64_t m = rm_pos(r, top.s);
            if (r->mark[m] & RM_M_DONE) continue;
            r->mark[m] |= RM_M_DONE;
            r->plies[top.s] = top.d;
            r->work += 1 + r->pfirst[m + 1] - r->pfirst[m];
            for (int64_t k = r->pfirst[m]; k < r->pfirst[m + 1]; k++) {
                int32_t parent = r->plist[k];
                int64_t q = rm_pos(r, parent);
                if (r->mark[q] & RM_M_DONE) continue;
                if (r->waiting[q] < 0) {
                    rm_push(r, &r->heap_n, top.d + 1.0, parent);
                } else {
                    r->waiting[q]--;
                    if (top.d > r->worst[q]) r->worst[q] = top.d;
                    if (r->waiting[q] == 0) rm_push(r, &r->heap_n, 1.0 + r->worst[q], parent);
                }
            }
        }
        r->cm = 0;
        r->cphase = RM_CY_END;
        /* fall through */
    default:
        for (; r->cm < size; r->cm++) { /* never done: endless play, unless something below is unknown */
            if (r->work >= until) return 0;
            int64_t m = r->cm;
            int32_t s = members[m];
            if ((r->mark[m] & RM_M_DONE) || g->player[s] == GDL_TERMINAL) continue;
            gr_values(g, s, here);
            int known = 1;
            r->work += 1 + g->first[s + 1] - g->first[s];
            for (int64_t e = g->first[s]; e < g->first[s + 1] && known; e++)
                if (!rm_inside(r, g->succ[e]) && isnan(r->plies[g->succ[e]]) && rm_optimal(r, e, here)) known = 0;
            if (known) r->plies[s] = INFINITY;
        }
        r->cphase = RM_CY_NONE;
        return 1;
    }
}

static int rm_chance_cycle(rm_ctx *r, const int32_t *members, int64_t size); /* (remoteness_chance.c) */

/* ------------------------------------------------------------------------------------------------- the walk */

/* The component finished[nf ..+ size] measured and emitted. */
static void rm_component_end(rm_ctx *r, int64_t nf, int64_t size) {
    for (int64_t m = 0; m < size; m++) r->index[r->finished[nf + m]] = RM_EMITTED;
    r->nfinished = nf;
}

/* Measures the component finished[nf ..+ size]: 0 when done, 1 when a component without chance is paused at
   `until` (rm_cyclic goes on), -1 without memory. */
static int rm_component(rm_ctx *r, int64_t nf, int64_t size, int64_t until) {
    const int32_t *members = r->finished + nf;
    if (size == 1 && !(r->flags[members[0]] & RM_BACK)) {
        r->plies[members[0]] = rm_acyclic(r, members[0]);
        r->work++;
        rm_component_end(r, nf, size);
        return 0;
    }
    int chance = 0;
    for (int64_t m = 0; m < size; m++) {
        r->index[members[m]] = RM_MEMBER | (uint32_t)m;
        if (r->g->player[members[m]] == GDL_CHANCE) chance = 1;
    }
    if (chance) {
        if (rm_chance_cycle(r, members, size)) return -1;
    } else {
        if (rm_cyclic_begin(r, nf, size)) return -1;
        if (!rm_cyclic(r, until)) return 1;
    }
    rm_component_end(r, nf, size);
    return 0;
}

static int rm_enter(rm_ctx *r, int32_t w) {
    if (r->npath == r->path_cap) {
        if (gr_grow((void **)&r->path, r->path_cap * 2, sizeof(rm_frame))) return -1;
        r->path_cap *= 2;
    }
    uint32_t d = (uint32_t)++r->counter;
    r->index[w] = d;
    r->flags[w] |= RM_ACTIVE;
    rm_frame *f = r->path + r->npath++;
    f->v = w;
    f->low = d;
    f->edge = r->g->first[w];
    f->end = r->g->first[w + 1];
    f->nf = r->nfinished;
    return 0;
}

/* About `slice` units of work (a state or an edge): GR_DONE when every distance is known, GR_SLICE (call again), or
   GR_MEMORY. Tarjan's walk as solver.graph.components walks (roots in index order, edges in move order), each
   component measured as it is found. */
int gdl_rm_run(rm_ctx *r, int64_t slice) {
    if (r->done) return GR_DONE;
    int64_t until = r->work + slice;
    const int32_t *succ = r->g->succ;
    if (r->cphase != RM_CY_NONE) { /* a component the last slice left unfinished */
        if (!rm_cyclic(r, until)) return GR_SLICE;
        rm_component_end(r, r->cnf, r->csize);
        if (r->work >= until) return GR_SLICE;
    }
    for (;;) {
        if (r->npath == 0) {
            while (r->root < r->n && r->index[r->root]) r->root++;
            if (r->root >= r->n) {
                r->done = 1;
                return GR_DONE;
            }
            if (rm_enter(r, (int32_t)r->root)) return GR_MEMORY;
        }
        while (r->npath > 0) {
            if (r->work >= until) return GR_SLICE; /* (the walk itself can be paused anywhere: its path is kept) */
            rm_frame *f = r->path + r->npath - 1;
            int descended = 0;
            while (f->edge < f->end) {
                int32_t w = succ[f->edge++];
                uint32_t iw = r->index[w];
                r->work++;
                if (!iw) {
                    if (rm_enter(r, w)) return GR_MEMORY;
                    descended = 1;
                    break;
                }
                if (iw < f->low) f->low = iw;
                if (r->flags[w] & RM_ACTIVE) r->flags[w] |= RM_BACK;
            }
            if (descended) continue;
            int32_t v = f->v;
            uint32_t low = f->low;
            int64_t nf = f->nf;
            r->npath--;
            r->flags[v] &= (uint8_t)~RM_ACTIVE;
            r->finished[r->nfinished++] = v;
            if (r->npath > 0 && low < f[-1].low) f[-1].low = low;
            if (low != r->index[v]) continue;
            int status = rm_component(r, nf, r->nfinished - nf, until);
            if (status < 0) return GR_MEMORY;
            if (status > 0 || r->work >= until) return GR_SLICE;
        }
    }
}

/* out: work done, done (1 or 0) */
void gdl_rm_stats(rm_ctx *r, int64_t *out) {
    out[0] = r->work;
    out[1] = r->done;
}

/* Distances of states start .. start + count - 1 (NaN: unknown); -1 when out of range or not done. */
int gdl_rm_plies(rm_ctx *r, int64_t start, int64_t count, double *out) {
    if (!r->done || start < 0 || count < 0 || start + count > r->n) return -1;
    memcpy(out, r->plies + start, sizeof(double) * (size_t)count);
    return 0;
}

/* math.isclose(a, b, rel_tol=abs_tol=TIE_TOLERANCE), as CPython computes it. */
static int rm_isclose(double a, double b) {
    if (a == b) return 1;
    if (isinf(a) || isinf(b)) return 0;
    double diff = fabs(b - a);
    return diff <= fabs(RM_TIE * b) || diff <= fabs(RM_TIE * a) || diff <= RM_TIE;
}

/* remoteness.fastest: the positions (in move order) of decision state i's optimal moves one ply nearer the end, at
   most `cap` written; returns how many there are (0: none, or i's distance unknown or endless: the caller keeps
   its optimal moves), or -1 for an index out of range or a pass not done. */
int64_t gdl_rm_fastest(rm_ctx *r, int64_t i, int32_t *positions, int64_t cap) {
    if (!r->done || i < 0 || i >= r->n) return -1;
    const gr_ctx *g = r->g;
    double d = r->plies[i], here[G_PLAYERS];
    if (g->player[i] < 0 || isnan(d) || d == INFINITY) return 0;
    gr_values(g, i, here);
    int64_t a = g->first[i], b = g->first[i + 1], k = 0;
    for (int64_t e = a; e < b; e++) {
        double c = r->plies[g->succ[e]];
        if (!rm_optimal(r, e, here) || isnan(c) || !rm_isclose(c + 1.0, d)) continue;
        if (k < cap) positions[k] = (int32_t)(e - a);
        k++;
    }
    return k;
}
