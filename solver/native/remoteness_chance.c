/* The distance to the end inside a strongly connected component through chance states, over the C state graph:
 * solver/remoteness.py's _chance_cycle, rule for rule (remoteness.c walks the graph and calls it; this file is
 * appended after it, in the same translation unit).
 *
 * Sources: de Alfaro, Henzinger & Kupferman (1998), "Concurrent reachability games": the states from which play
 * may go on forever with some probability are the complement of the almost-sure reachability set of the way out
 * (a greatest fixed point); they are endless (inf). The others' expected plies are the least fixed point of their
 * equations: Newton steps on the component's few feedback states (the choices fixed, every distance is affine in
 * theirs: a small linear system is the policy's exact evaluation; then the choices again, as in policy iteration,
 * Howard 1960), checked by a plain sweep; else Gauss-Seidel sweeps from 0. Pseudo-code:
 *
 *     rules: per member its chosen children (chance: every outcome, with its probability; a decision: the moves
 *            that keep its value), hurrying (min) or holding out (max); unknown below: unknown here
 *     trapped <- members - greatest fixed point W of { s : s reaches a finite way out with positive probability
 *                staying in W, and never has to step out of W }           ->  plies = inf, out of the equations
 *     if at most NEWTON_MAX feedback states: x <- 0; repeat: an affine sweep (distances as c + slopes . x),
 *         x <- x + (I - rows)^-1 (constants + rows . x - x); x < 0 or singular: give up; a plain sweep moves
 *         nothing: done
 *     else (or given up): sweeps from 0 until nothing moves (past ENDLESS: inf; after CHANCE_SWEEPS: unknown)
 */

/* The rules: per member m its chosen children rchild[rbeg[m] ..+ rlen[m]] (all outcomes at chance, with rprob; the
   optimal moves at a decision), RM_M_MIN if it hurries, RM_M_CHANCE at chance. The members measured, in order:
   `order` (member positions), `count` of them. */

static inline int rm_outside_finite(const rm_ctx *r, int32_t c) {
    return !rm_inside(r, c) && r->plies[c] != INFINITY;
}

/* Whether some (*any) and whether every (*all) child of member m is finished outside the component or marked
 * `bit` inside it; counts the work. */
static void rm_children_marked(rm_ctx *r, int64_t m, uint8_t bit, int *any, int *all) {
    *any = 0;
    *all = 1;
    for (int64_t k = r->rbeg[m]; k < r->rbeg[m] + r->rlen[m]; k++) {
        int32_t c = r->rchild[k];
        int marked = rm_outside_finite(r, c) || (rm_inside(r, c) && (r->mark[rm_pos(r, c)] & bit));
        *any |= marked;
        *all &= marked;
    }
    r->work += 1 + r->rlen[m];
}

/* remoteness._trapped: clears RM_M_KEEP on the members from which play goes on forever with some probability. */
static void rm_trapped(rm_ctx *r, const int32_t *members, int64_t size) {
    for (int64_t m = 0; m < size; m++) r->mark[m] |= RM_M_KEEP;
    for (;;) {
        for (int64_t m = 0; m < size; m++) r->mark[m] &= (uint8_t)~(RM_M_REACH | RM_M_SAFE);
        for (int changed = 1; changed;) { /* reach a finite way out with positive probability, inside keep */
            changed = 0;
            for (int64_t m = 0; m < size; m++) {
                uint8_t mk = r->mark[m];
                if ((mk & RM_M_REACH) || !(mk & RM_M_KEEP)) continue;
                int any_rule = (mk & (RM_M_MIN | RM_M_CHANCE)) != 0, any, all;
                rm_children_marked(r, m, RM_M_REACH, &any, &all);
                if (any_rule ? any : all) {
                    r->mark[m] |= RM_M_REACH;
                    changed = 1;
                }
            }
        }
        for (int64_t m = 0; m < size; m++)
            if (r->mark[m] & RM_M_REACH) r->mark[m] |= RM_M_SAFE;
        for (int changed = 1; changed;) { /* ... and never have to step out of it */
            changed = 0;
            for (int64_t m = 0; m < size; m++) {
                uint8_t mk = r->mark[m];
                if (!(mk & RM_M_SAFE)) continue;
                int any_rule = (mk & RM_M_MIN) && !(mk & RM_M_CHANCE), any, all;
                rm_children_marked(r, m, RM_M_SAFE, &any, &all);
                if (!(any_rule ? any : all)) {
                    r->mark[m] &= (uint8_t)~RM_M_SAFE;
                    changed = 1;
                }
            }
        }
        int same = 1;
        for (int64_t m = 0; m < size; m++)
            if (!(r->mark[m] & RM_M_SAFE) != !(r->mark[m] & RM_M_KEEP)) same = 0;
        if (same) return;
        for (int64_t m = 0; m < size; m++) {
            if (r->mark[m] & RM_M_SAFE) r->mark[m] |= RM_M_KEEP;
            else r->mark[m] &= (uint8_t)~RM_M_KEEP;
        }
    }
}

/* remoteness._sweep: one Gauss-Seidel sweep of the measured members; the largest relative change. */
static double rm_sweep(rm_ctx *r, const int32_t *members, const int32_t *order, int64_t count) {
    double moved = 0.0;
    for (int64_t q = 0; q < count; q++) {
        int64_t m = order[q], a = r->rbeg[m], b = a + r->rlen[m];
        int32_t s = members[m];
        double v;
        if (r->mark[m] & RM_M_CHANCE) {
            double sum = 0.0;
            for (int64_t k = a; k < b; k++) sum += r->rprob[k] * r->plies[r->rchild[k]];
            v = 1.0 + sum;
        } else {
            double best = r->plies[r->rchild[a]];
            int is_min = (r->mark[m] & RM_M_MIN) != 0;
            for (int64_t k = a + 1; k < b; k++) {
                double d = r->plies[r->rchild[k]];
                if (is_min ? d < best : d > best) best = d;
            }
            v = 1.0 + best;
        }
        double old = isnan(r->plies[s]) ? 0.0 : r->plies[s];
        double change = fabs(v - old) / (v > 1.0 ? v : 1.0);
        if (change > moved) moved = change;
        r->plies[s] = v;
        r->work += 1 + b - a;
    }
    return moved;
}

/* A child's affine form during an affine sweep: a feedback state reads as its variable x_j; a member already swept
   this time as its form; anything else as its distance (no slopes). `unit`: -1, or the j of x_j. */
static inline const double *rm_form(const rm_ctx *r, int32_t c, int32_t stamp, double *cc, int *unit) {
    *unit = -1;
    if (rm_inside(r, c)) {
        int64_t m = rm_pos(r, c);
        if (r->slot[m] >= 0) {
            *cc = 0.0;
            *unit = r->slot[m];
            return NULL;
        }
        if (r->stamp[m] == stamp) {
            *cc = r->fconst[m];
            return r->fslopes + m * RM_NEWTON_MAX;
        }
    }
    *cc = r->plies[c];
    return NULL;
}

/* The slopes of a form: `slopes`, or the unit vector `unit`, or zero. */
static inline double rm_slope(const double *slopes, int unit, int i) {
    return slopes ? slopes[i] : (i == unit ? 1.0 : 0.0);
}

/* remoteness._affine_sweep: every measured member's distance as cc + slopes . x, choices made at x; the feedback
   states' forms into constants[] and rows[][]. */
static void rm_affine_sweep(rm_ctx *r, const int32_t *members, const int32_t *order, int64_t count, int k,
                            const double *x, int32_t stamp, double *constants, double rows[][RM_NEWTON_MAX]) {
    for (int64_t q = 0; q < count; q++) {
        int64_t m = order[q], a = r->rbeg[m], b = a + r->rlen[m];
        double cnew, snew[RM_NEWTON_MAX];
        if (r->mark[m] & RM_M_CHANCE) {
            cnew = 1.0;
            for (int i = 0; i < k; i++) snew[i] = 0.0;
            for (int64_t e = a; e < b; e++) {
                double cc, p = r->rprob[e];
                int unit;
                const double *cs = rm_form(r, r->rchild[e], stamp, &cc, &unit);
                cnew += p * cc;
                for (int i = 0; i < k; i++) snew[i] += p * rm_slope(cs, unit, i);
            }
        } else {
            int is_min = (r->mark[m] & RM_M_MIN) != 0, pick_unit = -1;
            double pick_at = 0.0, pick_cc = 0.0;
            const double *pick_cs = NULL;
            for (int64_t e = a; e < b; e++) {
                double cc, sum = 0.0;
                int unit;
                const double *cs = rm_form(r, r->rchild[e], stamp, &cc, &unit);
                for (int i = 0; i < k; i++) sum += rm_slope(cs, unit, i) * x[i];
                double at = cc + sum;
                if (e == a || (is_min ? at < pick_at : at > pick_at)) {
                    pick_at = at;
                    pick_cc = cc;
                    pick_cs = cs;
                    pick_unit = unit;
                }
            }
            cnew = 1.0 + pick_cc;
            for (int i = 0; i < k; i++) snew[i] = rm_slope(pick_cs, pick_unit, i);
        }
        r->work += 1 + (b - a) * (1 + k);
        if (r->slot[m] >= 0) {
            constants[r->slot[m]] = cnew;
            for (int i = 0; i < k; i++) rows[r->slot[m]][i] = snew[i];
        } else {
            r->fconst[m] = cnew;
            for (int i = 0; i < k; i++) r->fslopes[m * RM_NEWTON_MAX + i] = snew[i];
            r->stamp[m] = stamp;
        }
    }
}

/* value_iteration._newton_step: (I - a) d = residual by Gaussian elimination with partial pivoting; 0 if (nearly)
   singular. */
static int rm_newton_step(int k, double a[][RM_NEWTON_MAX], const double *residual, double *d) {
    double m[RM_NEWTON_MAX][RM_NEWTON_MAX + 1];
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++) m[i][j] = (i == j ? 1.0 : 0.0) - a[i][j];
        m[i][k] = residual[i];
    }
    for (int col = 0; col < k; col++) {
        int pivot = col;
        for (int i = col + 1; i < k; i++)
            if (fabs(m[i][col]) > fabs(m[pivot][col])) pivot = i;
        if (fabs(m[pivot][col]) < RM_PIVOT_MIN) return 0;
        for (int j = 0; j <= k; j++) {
            double t = m[col][j];
            m[col][j] = m[pivot][j];
            m[pivot][j] = t;
        }
        for (int i = col + 1; i < k; i++) {
            double factor = m[i][col] / m[col][col];
            if (factor != 0.0)
                for (int j = 0; j <= k; j++) m[i][j] = m[i][j] - factor * m[col][j];
        }
    }
    for (int i = k - 1; i >= 0; i--) {
        double sum = 0.0;
        for (int j = i + 1; j < k; j++) sum += m[i][j] * d[j];
        d[i] = (m[i][k] - sum) / m[i][i];
    }
    return 1;
}

/* remoteness._newton: Newton steps on the `k` feedback states (slot[] set); 1 once a plain sweep after one moves no
   distance by TIE_TOLERANCE. */
static int rm_newton(rm_ctx *r, const int32_t *members, const int32_t *order, int64_t count, int k,
                     const int32_t *feedback) {
    double x[RM_NEWTON_MAX], constants[RM_NEWTON_MAX], rows[RM_NEWTON_MAX][RM_NEWTON_MAX], residual[RM_NEWTON_MAX];
    double step[RM_NEWTON_MAX];
    for (int j = 0; j < k; j++) x[j] = 0.0;
    for (int64_t q = 0; q < count; q++) {
        r->plies[members[order[q]]] = 0.0;
        r->stamp[order[q]] = -1;
    }
    for (int32_t t = 0; t < RM_NEWTON_STEPS; t++) {
        rm_affine_sweep(r, members, order, count, k, x, t, constants, rows);
        for (int j = 0; j < k; j++) {
            double sum = 0.0;
            for (int i = 0; i < k; i++) sum += rows[j][i] * x[i];
            residual[j] = constants[j] + sum - x[j];
        }
        if (!rm_newton_step(k, rows, residual, step)) return 0;
        for (int j = 0; j < k; j++)
            if (!isfinite(step[j])) return 0;
        int negative = 0;
        for (int j = 0; j < k; j++) {
            x[j] = x[j] + step[j];
            if (x[j] < 0) negative = 1;
        }
        if (negative) return 0; /* not the least fixed point of a proper policy: the sweeps decide */
        for (int64_t q = 0; q < count; q++) {
            int64_t m = order[q];
            if (r->slot[m] >= 0) continue;
            double sum = 0.0;
            for (int i = 0; i < k; i++) sum += r->fslopes[m * RM_NEWTON_MAX + i] * x[i];
            r->plies[members[m]] = r->fconst[m] + sum;
        }
        for (int j = 0; j < k; j++) r->plies[feedback[j]] = x[j];
        if (rm_sweep(r, members, order, count) <= RM_TIE) return 1;
    }
    return 0;
}

/* remoteness._sweeps: Gauss-Seidel sweeps from 0 until no distance moves by TIE_TOLERANCE (relative). */
static void rm_sweeps(rm_ctx *r, const int32_t *members, const int32_t *order, int64_t count) {
    for (int64_t q = 0; q < count; q++) r->plies[members[order[q]]] = 0.0;
    double result = NAN;
    for (int t = 0; t < RM_CHANCE_SWEEPS; t++) {
        if (rm_sweep(r, members, order, count) <= RM_TIE) return;
        int endless = 0;
        for (int64_t q = 0; q < count && !endless; q++)
            if (r->plies[members[order[q]]] > RM_ENDLESS) endless = 1;
        if (endless) {
            result = INFINITY;
            break;
        }
    }
    for (int64_t q = 0; q < count; q++) r->plies[members[order[q]]] = result;
}

static int rm_chance_cycle(rm_ctx *r, const int32_t *members, int64_t size) {
    const gr_ctx *g = r->g;
    int64_t edges = 0;
    for (int64_t m = 0; m < size; m++) edges += g->first[members[m] + 1] - g->first[members[m]];
    if (rm_room(r, size, edges)) return -1;
    double here[G_PLAYERS];
    int64_t used = 0;
    for (int64_t m = 0; m < size; m++) { /* the rules */
        int32_t s = members[m];
        int p = g->player[s];
        int64_t a = g->first[s], b = g->first[s + 1];
        r->rbeg[m] = used;
        r->mark[m] = 0;
        r->slot[m] = r->stamp[m] = -1;
        r->work += 1 + b - a;
        if (p == GDL_CHANCE) {
            const double *pr = g->pool + g->dist[s] - a;
            r->mark[m] = RM_M_CHANCE;
            for (int64_t e = a; e < b; e++) {
                r->rchild[used] = g->succ[e];
                r->rprob[used++] = pr[e];
            }
        } else {
            gr_values(g, s, here);
            if (here[p] >= -RM_TIE) r->mark[m] = RM_M_MIN;
            for (int64_t e = a; e < b; e++)
                if (rm_optimal(r, e, here)) r->rchild[used++] = g->succ[e];
        }
        r->rlen[m] = (int32_t)(used - r->rbeg[m]);
        for (int64_t k = r->rbeg[m]; k < used; k++)
            if (!rm_inside(r, r->rchild[k]) && isnan(r->plies[r->rchild[k]])) return 0; /* unknown below */
    }
    rm_trapped(r, members, size);
    int32_t *order = r->pcount; /* (free in this kind of component) */
    int64_t count = 0;
    int trapped = 0;
    for (int64_t m = 0; m < size; m++) {
        if (r->mark[m] & RM_M_KEEP) {
            order[count++] = (int32_t)m;
        } else {
            r->plies[members[m]] = INFINITY;
            trapped = 1;
        }
    }
    if (trapped) /* out of the equations: a hurrying member's children that never end */
        for (int64_t q = 0; q < count; q++) {
            int64_t m = order[q], a = r->rbeg[m], kept = a;
            if (!(r->mark[m] & RM_M_MIN) || (r->mark[m] & RM_M_CHANCE)) continue;
            for (int64_t k = a; k < a + r->rlen[m]; k++)
                if (r->plies[r->rchild[k]] != INFINITY) r->rchild[kept++] = r->rchild[k];
            r->rlen[m] = (int32_t)(kept - a);
        }
    int32_t feedback[RM_NEWTON_MAX];
    int k = 0;
    for (int64_t q = 0; q < count; q++) {
        int64_t m = order[q];
        if (!(r->flags[members[m]] & RM_BACK)) continue;
        if (k < RM_NEWTON_MAX) {
            feedback[k] = members[m];
            r->slot[m] = k;
        }
        k++;
    }
    if (k <= RM_NEWTON_MAX && size > r->fslopes_cap) { /* (the slopes only for Newton steps: few feedback states) */
        if (gr_grow((void **)&r->fslopes, 2 * size * RM_NEWTON_MAX, 8)) return -1;
        r->fslopes_cap = 2 * size;
    }
    if (k <= RM_NEWTON_MAX && rm_newton(r, members, order, count, k, feedback)) return 0;
    rm_sweeps(r, members, order, count);
    return 0;
}

