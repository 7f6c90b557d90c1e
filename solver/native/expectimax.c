/* Expectiminimax with Star1/Star2 pruning in C: the recursion of solver/expectimax.py's _ExpectiMiniMax.value,
 * step for step, for two-player zero-sum games (the value is player 0's utility).
 *
 * The same children in the same order, the same windows and cut rules, the same arithmetic in the same
 * order (so the same doubles), the same node, hit and horizon counts, and the same transposition-table
 * semantics: one table per remaining depth keyed by the state's key, each entry (lower, upper, complete),
 * read before a node is searched and written after it (from what was read, as the Python code does: a
 * descendant that stored the same key at the same depth meanwhile is overwritten), at most `cap` entries
 * made. Here the tables are one open-addressing table keyed by (depth left, packed key); it grows, so it
 * never refuses an entry the Python dict would take.
 *
 * Python keeps the root loop (solver/expectimax.py) and calls gdl_ex_value once per root move. The budget
 * is Python's: when the node count reaches `next_check` (the Python search's check point), C calls the
 * `check` function Python gave (a cffi callback running Budget.check: node and time limits, progress,
 * Ctrl-C) and unwinds with EX_STOP when it says stop.
 *
 * Sources: Ballard (1983), "The *-minimax search procedure for trees containing chance nodes" (Star1,
 * Star2); Hauk, Buro & Schaeffer (2004), "Rediscovering *-minimax search" (the windows).
 *
 * Safety: the recursion is at most EX_MAX_LEVELS deep (EX_DEEP beyond, Python raises RecursionError as its
 * own recursion would); each level's arrays are on the heap, sized by G_MAX_MOVES / G_MAX_OUTCOMES, and the
 * rules never write past them (they report GDL_E_CAPACITY instead).
 */
#include <math.h>
#include <stdlib.h>

#define EX_OK 0
#define EX_STOP 1
#define EX_DEAD_END 2
#define EX_ERROR 3
#define EX_MEMORY 4
#define EX_DEEP 5

#define EX_MAX_LEVELS 3000
#define EX_NO_DEPTH INT32_MIN /* the table's depth of an unlimited search */

/* A product that is rounded before it is added (as in Python): no fused multiply-add where the target has it. */
#ifdef __FP_FAST_FMA
static double ex_mul(double a, double b) { volatile double r = a * b; return r; }
#else
#define ex_mul(a, b) ((a) * (b))
#endif

typedef struct ex_entry {
    uint64_t hash;
    uint64_t key[G_KEY_WORDS];
    double lower, upper;
    int32_t depth;
    uint8_t complete, used;
} ex_entry;

typedef struct ex_level { /* one recursion level's arrays */
    int32_t moves[G_MAX_MOVES];
    int32_t outcomes[G_MAX_OUTCOMES];
    int32_t players[G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES], lows[G_MAX_OUTCOMES], highs[G_MAX_OUTCOMES];
    g_cell kids[G_MAX_OUTCOMES][G_STATE_LEN];
    g_cell tmp[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS];
} ex_level;

typedef struct ex_ctx {
    int prune, probe, use_tt, limited;
    double low, high;
    int64_t cap;
    int64_t (*check)(int64_t);
    int64_t next_check;
    int64_t nodes, tt_hits, tt_size, horizon;
    ex_entry *tt;
    int64_t tt_slots, tt_used;
    ex_level *levels[EX_MAX_LEVELS];
    int32_t path[2 * EX_MAX_LEVELS + 2];
    int64_t path_len;
    gdl_error err;
} ex_ctx;

/* A search context: prune (Star1), probe (Star2), a table of at most `cap` entries if use_tt, the utility
   bounds, and Python's budget check (returns the next check point, or < 0: stop). NULL: no memory. */
ex_ctx *gdl_ex_new(int32_t prune, int32_t probe, int32_t use_tt, int64_t cap, double low, double high,
                   int64_t (*check)(int64_t)) {
    ex_ctx *c = calloc(1, sizeof(ex_ctx));
    if (!c) return NULL;
    c->prune = prune; c->probe = probe; c->use_tt = use_tt; c->cap = cap;
    c->low = low; c->high = high; c->check = check;
    return c;
}

void gdl_ex_free(ex_ctx *c) {
    if (!c) return;
    for (int i = 0; i < EX_MAX_LEVELS; i++) free(c->levels[i]);
    free(c->tt);
    free(c);
}

/* out: nodes, table hits, table entries made, horizon hits (leaves and hits that depend on the horizon). */
void gdl_ex_stats(ex_ctx *c, int64_t *out) {
    out[0] = c->nodes; out[1] = c->tt_hits; out[2] = c->tt_size; out[3] = c->horizon;
}

void gdl_ex_error(ex_ctx *c, gdl_error *e) { *e = c->err; }

/* The moves from the searched state to where the last search failed (a dead end, or the state whose rule
   failed); returns their number (at most cap). */
int64_t gdl_ex_path(ex_ctx *c, int32_t *moves, int64_t cap) {
    int64_t n = c->path_len < cap ? c->path_len : cap;
    for (int64_t i = 0; i < n; i++) moves[i] = c->path[i];
    return n;
}

/* The memory one entry costs at most (--memory: solver/expectimax.py divides the bytes allowed by it): the
   table is kept at most half full and doubles, so an entry has up to four slots, and while the table doubles the
   old table's two besides. */
int64_t gdl_ex_entry_bytes(void) { return 6 * (int64_t)sizeof(ex_entry); }

static inline uint64_t ex_hash(const uint64_t *key, int32_t depth) {
    return gdl_hash_words(key, G_KEY_WORDS) ^ gdl_mix64((uint64_t)(uint32_t)depth + 0x632be59bd9b4e019ULL);
}

/* The slot of (depth, key): its entry, or the empty slot where it goes. The table is never full. */
static int64_t ex_slot(ex_ctx *c, uint64_t h, const uint64_t *key, int32_t depth) {
    int64_t mask = c->tt_slots - 1, i = (int64_t)(h & (uint64_t)mask);
    for (;;) {
        ex_entry *e = &c->tt[i];
        if (!e->used) return i;
        if (e->hash == h && e->depth == depth && memcmp(e->key, key, 8 * G_KEY_WORDS) == 0) return i;
        i = (i + 1) & mask;
    }
}

static int ex_grow(ex_ctx *c) { /* keeps the table at most half full */
    if (c->tt_slots && 2 * (c->tt_used + 1) <= c->tt_slots) return 0;
    int64_t slots = c->tt_slots ? 2 * c->tt_slots : 1024;
    ex_entry *old = c->tt;
    int64_t old_slots = c->tt_slots;
    c->tt = calloc((size_t)slots, sizeof(ex_entry));
    if (!c->tt) { c->tt = old; return -1; }
    c->tt_slots = slots;
    for (int64_t i = 0; i < old_slots; i++)
        if (old[i].used) c->tt[ex_slot(c, old[i].hash, old[i].key, old[i].depth)] = old[i];
    free(old);
    return 0;
}

static ex_level *ex_level_at(ex_ctx *c, int L) {
    if (!c->levels[L]) c->levels[L] = malloc(sizeof(ex_level));
    return c->levels[L];
}

static int ex_value(ex_ctx *c, int L, const g_cell *s, int32_t depth, double alpha, double beta, double *out);

static inline int32_t ex_next(ex_ctx *c, int32_t depth) { return c->limited ? depth - 1 : depth; }

static inline int ex_push(ex_ctx *c, int32_t move) {
    if (c->path_len >= 2 * EX_MAX_LEVELS + 2) return -1;
    c->path[c->path_len++] = move;
    return 0;
}

/* Alpha-beta at a decision node: player 0 maximises, player 1 minimises. */
static int ex_decision(ex_ctx *c, int L, ex_level *f, const g_cell *s, int player, int32_t depth, double alpha,
                       double beta, double *out) {
    int32_t next = ex_next(c, depth);
    int n = g_legal(s, f->moves, &c->err);
    if (n < 0) return EX_ERROR;
    if (n == 0) return EX_DEAD_END;
    double best = player == 0 ? -INFINITY : INFINITY, v;
    for (int i = 0; i < n; i++) {
        memcpy(f->tmp, s, sizeof f->tmp);
        if (g_apply(f->tmp, f->moves[i], &c->err) < 0) return EX_ERROR;
        if (ex_push(c, f->moves[i])) return EX_DEEP;
        int status = ex_value(c, L + 1, f->tmp, next, alpha, beta, &v);
        if (status) return status;
        c->path_len--;
        if (player == 0) {
            if (v > best) {
                best = v;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        } else if (v < best) {
            best = v;
            if (v < beta) {
                beta = v;
                if (alpha >= beta) break;
            }
        }
    }
    *out = best;
    return EX_OK;
}

/* A chance node without pruning: every outcome, in order, with the open window. */
static int ex_average(ex_ctx *c, int L, ex_level *f, const g_cell *s, int32_t depth, double *out) {
    int n = g_chance(s, f->outcomes, f->probs, &c->err);
    if (n < 0) return EX_ERROR;
    if (n == 0) return EX_DEAD_END;
    double v = 0.0, w;
    for (int i = 0; i < n; i++) {
        memcpy(f->tmp, s, sizeof f->tmp);
        if (g_apply(f->tmp, f->outcomes[i], &c->err) < 0) return EX_ERROR;
        if (ex_push(c, f->outcomes[i])) return EX_DEEP;
        int status = ex_value(c, L + 1, f->tmp, depth, -INFINITY, INFINITY, &w);
        if (status) return status;
        c->path_len--;
        v += ex_mul(f->probs[i], w);
    }
    *out = v;
    return EX_OK;
}

/* Star2's probing phase over the n children of f (see solver/expectimax.py _probe): *cut = 1 and *out the
   cut value, or *cut = 0. */
static int ex_probe(ex_ctx *c, int L, ex_level *f, int n, int32_t depth, double alpha, double beta, int *cut,
                    double *out) {
    double low = c->low, high = c->high, best_low = 0.0, best_high = 0.0, v;
    *cut = 0;
    if (c->limited && depth <= 0) return EX_OK;
    for (int i = 0; i < n; i++) {
        int player = g_to_move(f->kids[i], &c->err);
        if (player == GDL_ERROR) return EX_ERROR;
        f->players[i] = player;
        double p = f->probs[i];
        best_low += ex_mul(p, player == 0 ? high : low);
        best_high += ex_mul(p, player == 1 ? low : high);
    }
    if (best_low < beta && best_high > alpha) return EX_OK;
    int32_t next = ex_next(c, depth);
    double sum_low = 0.0, sum_high = 0.0;
    for (int i = 0; i < n; i++) sum_low += ex_mul(f->probs[i], f->lows[i]);
    for (int i = 0; i < n; i++) sum_high += ex_mul(f->probs[i], f->highs[i]);
    for (int i = 0; i < n; i++) {
        int player = f->players[i];
        if (player < 0) continue;
        double p = f->probs[i];
        int k = g_legal(f->kids[i], f->moves, &c->err);
        if (ex_push(c, f->outcomes[i])) return EX_DEEP;
        if (k < 0) return EX_ERROR;
        if (k == 0) return EX_DEAD_END;
        memcpy(f->tmp, f->kids[i], sizeof f->tmp);
        if (g_apply(f->tmp, f->moves[0], &c->err) < 0) return EX_ERROR;
        if (ex_push(c, f->moves[0])) return EX_DEEP;
        int status;
        if (player == 0) {
            double b = (beta - (sum_low - ex_mul(p, f->lows[i]))) / p;
            status = ex_value(c, L + 1, f->tmp, next, low, b < high ? b : high, &v);
            if (status) return status;
            c->path_len -= 2;
            if (v > f->lows[i]) {
                sum_low += ex_mul(p, v - f->lows[i]);
                f->lows[i] = v;
                if (sum_low >= beta) { *cut = 1; *out = sum_low; return EX_OK; }
            }
        } else {
            double a = (alpha - (sum_high - ex_mul(p, f->highs[i]))) / p;
            status = ex_value(c, L + 1, f->tmp, next, a > low ? a : low, high, &v);
            if (status) return status;
            c->path_len -= 2;
            if (v < f->highs[i]) {
                sum_high += ex_mul(p, v - f->highs[i]);
                f->highs[i] = v;
                if (sum_high <= alpha) { *cut = 1; *out = sum_high; return EX_OK; }
            }
        }
    }
    return EX_OK;
}

/* Star1 at a chance node, after Star2's probes if enabled (solver/expectimax.py _chance). */
static int ex_chance(ex_ctx *c, int L, ex_level *f, const g_cell *s, int32_t depth, double alpha, double beta,
                     double *out) {
    double low = c->low, high = c->high;
    int m = g_chance(s, f->outcomes, f->probs, &c->err), n = 0;
    if (m < 0) return EX_ERROR;
    for (int i = 0; i < m; i++) /* the outcomes of positive probability, in order */
        if (f->probs[i] > 0) { f->outcomes[n] = f->outcomes[i]; f->probs[n] = f->probs[i]; n++; }
    if (n == 0) return EX_DEAD_END;
    for (int i = 0; i < n; i++) { /* every child is made before any is searched, as in Python */
        memcpy(f->kids[i], s, sizeof f->kids[i]);
        if (g_apply(f->kids[i], f->outcomes[i], &c->err) < 0) return EX_ERROR;
    }
    double after_low = 0.0, after_high = 0.0;
    for (int i = 0; i < n; i++) { f->lows[i] = low; f->highs[i] = high; }
    if (c->probe) {
        int cut;
        int status = ex_probe(c, L, f, n, depth, alpha, beta, &cut, out);
        if (status || cut) return status;
    }
    for (int i = 0; i < n; i++) after_low += ex_mul(f->probs[i], f->lows[i]);
    for (int i = 0; i < n; i++) after_high += ex_mul(f->probs[i], f->highs[i]);
    double done = 0.0, v;
    for (int i = 0; i < n; i++) {
        double p = f->probs[i];
        after_low -= ex_mul(p, f->lows[i]);
        after_high -= ex_mul(p, f->highs[i]);
        double a = (alpha - done - after_high) / p;
        double b = (beta - done - after_low) / p;
        if (ex_push(c, f->outcomes[i])) return EX_DEEP;
        int status = ex_value(c, L + 1, f->kids[i], depth, a > low ? a : low, b < high ? b : high, &v);
        if (status) return status;
        c->path_len--;
        if (v <= a) { *out = done + ex_mul(p, v) + after_high; return EX_OK; }
        if (v >= b) { *out = done + ex_mul(p, v) + after_low; return EX_OK; }
        done += ex_mul(p, v);
    }
    *out = done;
    return EX_OK;
}

/* _ExpectiMiniMax.value: the fail-soft value of s with `depth` decision plies left, within (alpha, beta). */
static int ex_value(ex_ctx *c, int L, const g_cell *s, int32_t depth, double alpha, double beta, double *out) {
    if (L >= EX_MAX_LEVELS) return EX_DEEP;
    int player = g_to_move(s, &c->err);
    if (player == GDL_ERROR) return EX_ERROR;
    if (player == GDL_TERMINAL) {
        double u[G_PLAYERS];
        c->nodes++;
        if (g_utilities(s, u, &c->err) < 0) return EX_ERROR;
        *out = u[0];
        return EX_OK;
    }
    if (c->limited && depth <= 0) { /* (quiescence is Python's: the C search is not used with it) */
        double h[G_PLAYERS];
        c->nodes++;
        c->horizon++;
        int written = g_heuristic(s, h, &c->err);
        if (written < 0) return EX_ERROR;
        *out = written ? h[0] : 0.0;
        return EX_OK;
    }
    ex_level *f = ex_level_at(c, L);
    if (!f) return EX_MEMORY;
    if (!c->prune) { alpha = -INFINITY; beta = INFINITY; }
    int32_t tdepth = c->limited ? depth : EX_NO_DEPTH;
    uint64_t h = 0;
    int found = 0;
    ex_entry entry = {0};
    if (c->use_tt) {
        if (g_key(s, f->key, &c->err) < 0) return EX_ERROR;
        h = ex_hash(f->key, tdepth);
        if (c->tt_slots) {
            ex_entry *e = &c->tt[ex_slot(c, h, f->key, tdepth)];
            if (e->used) {
                found = 1;
                entry = *e;
                if (entry.lower >= beta || entry.lower == entry.upper) {
                    c->tt_hits++;
                    if (!entry.complete) c->horizon++;
                    *out = entry.lower;
                    return EX_OK;
                }
                if (entry.upper <= alpha) {
                    c->tt_hits++;
                    if (!entry.complete) c->horizon++;
                    *out = entry.upper;
                    return EX_OK;
                }
            }
        }
    }
    c->nodes++;
    if (c->nodes >= c->next_check) {
        c->next_check = c->check(c->nodes);
        if (c->next_check < 0) return EX_STOP;
    }
    int64_t horizon_before = c->horizon;
    double v;
    int status;
    if (player == GDL_CHANCE)
        status = c->prune ? ex_chance(c, L, f, s, depth, alpha, beta, &v) : ex_average(c, L, f, s, depth, &v);
    else
        status = ex_decision(c, L, f, s, player, depth, alpha, beta, &v);
    if (status) return status;
    *out = v;
    if (!c->use_tt) return EX_OK;
    int complete = c->horizon == horizon_before;
    double lower, upper;
    if (!found) {
        if (c->tt_size >= c->cap) return EX_OK;
        c->tt_size++;
        lower = -INFINITY; upper = INFINITY;
    } else {
        complete = complete && entry.complete;
        lower = entry.lower; upper = entry.upper;
    }
    if (v <= alpha) { if (v < upper) upper = v; }
    else if (v >= beta) { if (v > lower) lower = v; }
    else lower = upper = v;
    /* The key is this level's (the children used other levels); the slot is found again: the table may have
       grown, and a descendant may have stored this key meanwhile (then it is overwritten, as in Python). */
    if (ex_grow(c)) return EX_MEMORY;
    ex_entry *e = &c->tt[ex_slot(c, h, f->key, tdepth)];
    if (!e->used) {
        c->tt_used++;
        e->used = 1;
        e->hash = h;
        e->depth = tdepth;
        memcpy(e->key, f->key, sizeof e->key);
    }
    e->lower = lower; e->upper = upper; e->complete = (uint8_t)complete;
    return EX_OK;
}

/* Searches the state `root` (cells from Python, checked) with `depth` plies left (unlimited if `limited` is 0)
   in the window (alpha, beta); the budget is checked when the node count reaches next_check. EX_OK and *out,
   or what stopped it (EX_ERROR: gdl_ex_error; EX_DEAD_END / EX_ERROR: gdl_ex_path gives the moves). */
int gdl_ex_value(ex_ctx *c, const int64_t *root, int32_t depth, int32_t limited, double alpha, double beta,
                 int64_t next_check, double *out) {
    g_cell s[G_STATE_LEN];
    c->err.code = 0;
    c->path_len = 0;
    c->limited = limited;
    c->next_check = next_check;
    *out = 0.0;
    if (gdl_import(root, s, &c->err) < 0) return EX_ERROR;
    return ex_value(c, 0, s, depth, alpha, beta, out);
}
