/* Exact alpha-beta (fail-soft negamax) over the C game ABI, with a fixed-size transposition table.
 *
 * The same algorithm as solver/alphabeta.py's NegamaxSearch at unlimited depth (Python keeps MTD(f),
 * the root-move tests and the principal variation, calling this for each null-window search):
 *   - the transposition table keeps a lower and an upper bound per state (values from the side to
 *     move's point of view), so MTD(f)'s null-window passes narrow them instead of overwriting;
 *   - the first pass over the children ends the node at an immediate refutation: a terminal child, or
 *     a child whose table entry proves a bound >= beta (enhanced transposition cutoff);
 *   - move ordering: the table's move, two killers per ply, then the history heuristic;
 *   - a child's value is negated only when the side to move changes (a player may move twice).
 * The recursion is an explicit stack, so gdl_ab_run can stop after a slice of nodes and resume where
 * it stopped: Python checks its budget, reports progress and sees Ctrl-C between slices.
 *
 * Table: buckets of two entries, found by the 64-bit hash and confirmed by the whole packed key (no
 * hash collision can give a wrong value; the entry keeps the key, not the hash). Slot 0 keeps the entry whose subtree cost the most work;
 * slot 1 takes whatever slot 0 refuses (depth-preferred + always-replace, Breuker et al. 1994).
 * The table starts small (at most AB_FIRST_BUCKETS) and grows eightfold, its entries moved over, each time it
 * is half full, up to the size asked for (`--memory`): a search of a few thousand states never pays for
 * clearing a table of millions. The sizes are the size asked for divided by 8, 64, ... (rounded up), so that
 * while the last growth moves the entries over, the table it leaves is an eighth of the new one:
 * gdl_ab_entry_bytes counts that eighth, and a table sized by it never holds more memory than it was given.
 * Any number of buckets will do (a bucket is found by multiplying the hash, Lemire's "fastrange"), so the table
 * takes all of it, not the power of two below. It grows only while one context uses it; a helper's arrival
 * first grows it to its full size, so a shared table never moves.
 *
 * Threads (lazy SMP, Hyatt's "shared hash table" parallel search as in Stockfish): helper contexts made
 * by gdl_ab_new_helper share the owner's table and search the same root at the same time, each with its
 * own stack, killers and history, and a root-near move order of its own (`variant`), so that they fill
 * the table with what the owner will need next. Only the owner's value is used; every table entry is a
 * proven bound whoever stored it. A shared table is read and written under striped spin locks, each
 * access copying the entry, so no thread sees a half-written one.
 */
#include <math.h>
#include <stdlib.h>

#define AB_DONE 0
#define AB_SLICE 1
#define AB_DEAD_END 2
#define AB_CYCLE 3
#define AB_ERROR 4
#define AB_CHANCE 5
#define AB_MEMORY 6
#define AB_STACK 7 /* the path is deeper than --memory allows its frames */

#define AB_HISTORY 4096
#define AB_PATHSET 65536

typedef struct ab_entry {
    uint64_t key[G_KEY_WORDS]; /* the whole packed key, in the entry: one probe touches one place (the hash is
                                  not kept: the key decides, and a one-word key's bucket of two is one 64-byte
                                  cache line, which a 40-byte entry with its hash straddled) */
    double lo, hi;
    int32_t move;
    int8_t side;
    uint8_t used;
    uint16_t work;
} ab_entry;

typedef struct ab_frame {
    int phase;
    int player, side;
    double alpha, beta, alpha0, best;
    int32_t best_move, tt_move, cur_move;
    int npend, next, child_same;
    int64_t nodes0;
    uint64_t hash;
} ab_frame;

#define AB_LOCKS 4096

typedef struct ab_table {
    ab_entry *tt;
    size_t mapped;   /* the bytes mapped for tt by gdl_table_alloc (0: tt is from calloc) */
    int64_t buckets, used;
    int64_t max_buckets; /* the size asked for: the table grows up to it */
    uint32_t *locks; /* AB_LOCKS spin locks, made when a helper first shares the table */
    int sharers;     /* the owner and its helpers */
} ab_table;

typedef struct ab_ctx {
    /* the table (a helper's is its owner's) */
    ab_table *t;
    int32_t variant; /* a helper's own move order near the root (0: the owner's) */
    /* the stack: frames of frame_size bytes, each a header and its arrays */
    char *arena;
    int64_t frame_size, frames_cap;
    int64_t max_frames; /* the deepest stack --memory allows (gdl_ab_stack_limit; 0: no limit) */
    int64_t depth;
    /* results and statistics */
    double ret, result;
    int32_t root_best;
    int64_t nodes, tt_hits;
    gdl_error err;
    int64_t err_depth;
    /* ordering */
    int64_t history[AB_HISTORY];
    int32_t *killers; /* 2 per ply */
    int64_t killers_cap;
    uint32_t pathset[AB_PATHSET];
} ab_ctx;

/* A frame's arrays, in order: state, key, moves, pending child states, their keys, moves and players. */
#define F_HDR(c, d) ((ab_frame *)((c)->arena + (d) * (c)->frame_size))
#define F_STATE(f) ((g_cell *)((char *)(f) + sizeof(ab_frame)))
#define F_KEY(f) ((uint64_t *)((char *)(f) + sizeof(ab_frame) + AB_ALIGN8(G_STATE_LEN * sizeof(g_cell))))
#define F_MOVES(f) ((int32_t *)(F_KEY(f) + G_KEY_WORDS))
#define F_PKEYS(f) ((uint64_t *)(F_MOVES(f) + AB_ALIGN2(G_MAX_MOVES)))
#define F_PMOVES(f) ((int32_t *)(F_PKEYS(f) + (int64_t)G_MAX_MOVES * G_KEY_WORDS))
#define F_PPLAYERS(f) (F_PMOVES(f) + G_MAX_MOVES)
#define F_PSTATES(f) ((g_cell *)(F_PPLAYERS(f) + AB_ALIGN2(G_MAX_MOVES)))
#define AB_ALIGN8(n) (((n) + 7) / 8 * 8)
#define AB_ALIGN2(n) (((n) + 1) / 2 * 2)

static int64_t ab_frame_bytes(void) {
    int64_t n = sizeof(ab_frame) + AB_ALIGN8(G_STATE_LEN * sizeof(g_cell)) + 8 * G_KEY_WORDS;
    n += 4 * AB_ALIGN2(G_MAX_MOVES) + (int64_t)8 * G_MAX_MOVES * G_KEY_WORDS + 4 * G_MAX_MOVES + 4 * AB_ALIGN2(G_MAX_MOVES);
    n += (int64_t)G_MAX_MOVES * G_STATE_LEN * sizeof(g_cell);
    return AB_ALIGN8(n);
}

static ab_ctx *ab_ctx_new(void) {
    ab_ctx *c = calloc(1, sizeof(ab_ctx));
    if (!c) return NULL;
    c->frame_size = ab_frame_bytes();
    c->frames_cap = 64;
    c->arena = malloc((size_t)(c->frame_size * c->frames_cap));
    c->killers_cap = 64;
    c->killers = malloc(sizeof(int32_t) * 2 * c->killers_cap);
    if (!c->arena || !c->killers) {
        free(c->arena); free(c->killers); free(c);
        return NULL;
    }
    for (int64_t i = 0; i < 2 * c->killers_cap; i++) c->killers[i] = -1;
    c->depth = -1;
    return c;
}

/* (memory.c: huge pages, each 2 MB region written once first up to AB_TOUCH_BYTES; a bigger table, asked for
   with --memory, is left to fault in as it is used) */
#define AB_TOUCH_BYTES ((size_t)256 << 20)

static void ab_table_release(ab_table *t) { gdl_table_free(t->tt, t->mapped); }

#define AB_FIRST_BUCKETS ((int64_t)1 << 12)
#define AB_GROWTH 8

/* The memory one entry costs (--memory: solver/native/search.py divides the bytes allowed by it): the entry,
   and an eighth of one for the table it grew from, which is there too while its entries move over. */
int64_t gdl_ab_entry_bytes(void) { return (int64_t)(sizeof(ab_entry) + sizeof(ab_entry) / AB_GROWTH); }

/* The size the table grows to from `buckets`: the next of max, max / 8, max / 64, ... (rounded up) above it. */
static int64_t ab_next_size(const ab_table *t) {
    int64_t n = t->max_buckets;
    while ((n + AB_GROWTH - 1) / AB_GROWTH > t->buckets) n = (n + AB_GROWTH - 1) / AB_GROWTH;
    return n;
}

/* A search with a table of at most `entries` entries (buckets of two: an odd one is not used). */
ab_ctx *gdl_ab_new(int64_t entries) {
    ab_table *t = calloc(1, sizeof(ab_table));
    ab_ctx *c = ab_ctx_new();
    int64_t max_buckets = entries / 2 < 1 ? 1 : entries / 2;
    int64_t buckets = max_buckets;
    while (buckets > AB_FIRST_BUCKETS) buckets = (buckets + AB_GROWTH - 1) / AB_GROWTH;
    if (t) t->tt = gdl_table_alloc((size_t)buckets * 2 * sizeof(ab_entry), AB_TOUCH_BYTES, &t->mapped);
    if (!t || !t->tt || !c) {
        if (t && t->tt) ab_table_release(t);
        free(t);
        if (c) { free(c->arena); free(c->killers); free(c); }
        return NULL;
    }
    t->buckets = buckets;
    t->max_buckets = max_buckets;
    t->sharers = 1;
    c->t = t;
    return c;
}

static void ab_table_grow(ab_table *t, int64_t buckets);

/* A helper that searches with `owner`'s table (see the threads note above). */
ab_ctx *gdl_ab_new_helper(ab_ctx *owner, int32_t variant) {
    ab_table *t = owner->t;
    if (t->buckets < t->max_buckets) ab_table_grow(t, t->max_buckets); /* (a shared table never moves) */
    if (!t->locks) {
        t->locks = calloc(AB_LOCKS, sizeof(uint32_t));
        if (!t->locks) return NULL;
    }
    ab_ctx *c = ab_ctx_new();
    if (!c) return NULL;
    c->t = t;
    c->variant = variant;
    __atomic_add_fetch(&t->sharers, 1, __ATOMIC_SEQ_CST);
    return c;
}

/* Frees a context; the table goes with the last context that uses it (owner or helper, in any order). */
void gdl_ab_free(ab_ctx *c) {
    if (!c) return;
    ab_table *t = c->t;
    if (__atomic_sub_fetch(&t->sharers, 1, __ATOMIC_SEQ_CST) == 0) {
        ab_table_release(t); free(t->locks); free(t);
    }
    free(c->arena); free(c->killers); free(c);
}

int64_t gdl_ab_capacity(ab_ctx *c) { return c->t->buckets * 2; }

static inline void ab_lock(ab_table *t, int64_t b) {
    if (!t->locks) return;
    uint32_t *l = &t->locks[(uint64_t)b % AB_LOCKS];
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {}
}

static inline void ab_unlock(ab_table *t, int64_t b) {
    if (t->locks) __atomic_store_n(&t->locks[(uint64_t)b % AB_LOCKS], 0, __ATOMIC_RELEASE);
}

/* The first slot of the bucket of hash h: h scaled to the number of buckets (the hash's high bits decide). */
static inline int64_t ab_bucket(ab_table *t, uint64_t h) {
#if defined(__SIZEOF_INT128__)
    return (int64_t)(((unsigned __int128)h * (uint64_t)t->buckets) >> 64) * 2;
#else
    return (int64_t)((h >> 32) * (uint64_t)t->buckets >> 32) * 2; /* (fewer than 2^32 buckets) */
#endif
}

static ab_entry *ab_probe(ab_ctx *c, uint64_t h, const uint64_t *key) {
    int64_t b = ab_bucket(c->t, h);
    for (int i = 0; i < 2; i++) {
        ab_entry *e = &c->t->tt[b + i];
        if (e->used && memcmp(e->key, key, 8 * G_KEY_WORDS) == 0) return e;
    }
    return NULL;
}

/* The entry of `key` copied into *out (under the bucket's lock when the table is shared): 1, or 0 if none. */
static int ab_read(ab_ctx *c, uint64_t h, const uint64_t *key, ab_entry *out) {
    int64_t b = ab_bucket(c->t, h);
    ab_lock(c->t, b);
    ab_entry *e = ab_probe(c, h, key);
    if (e) *out = *e;
    ab_unlock(c->t, b);
    return e != NULL;
}

static uint16_t ab_work(int64_t nodes) {
    uint16_t w = 1;
    while (nodes > 1 && w < 60000) { nodes >>= 1; w++; }
    return w;
}

/* Stores a result (the caller holds the bucket's lock when the table is shared). */
static void ab_store(ab_ctx *c, uint64_t h, const uint64_t *key, double lo, double hi, int32_t move, int side,
                     int64_t nodes) {
    ab_table *t = c->t;
    int64_t b = ab_bucket(t, h);
    uint16_t work = ab_work(nodes);
    int64_t slot;
    ab_entry *e0 = &t->tt[b], *e1 = &t->tt[b + 1];
    if (e0->used && memcmp(e0->key, key, 8 * G_KEY_WORDS) == 0) slot = b;
    else if (e1->used && memcmp(e1->key, key, 8 * G_KEY_WORDS) == 0) slot = b + 1;
    else if (!e0->used) slot = b;
    else if (work >= e0->work) {
        /* the new entry cost more than slot 0's: slot 0 moves down to slot 1 (replacing it) */
        if (!e1->used) __atomic_add_fetch(&t->used, 1, __ATOMIC_RELAXED);
        *e1 = *e0;
        e0->used = 0;
        __atomic_sub_fetch(&t->used, 1, __ATOMIC_RELAXED);
        slot = b;
    } else slot = b + 1;
    ab_entry *e = &t->tt[slot];
    if (!e->used) __atomic_add_fetch(&t->used, 1, __ATOMIC_RELAXED);
    if (e->used && work < e->work) work = e->work;
    e->lo = lo;
    e->hi = hi;
    e->move = move;
    e->side = (int8_t)side;
    e->used = 1;
    e->work = work;
    memcpy(e->key, key, 8 * G_KEY_WORDS);
    if (t->used >= t->buckets && t->buckets < t->max_buckets && __atomic_load_n(&t->sharers, __ATOMIC_RELAXED) == 1)
        ab_table_grow(t, ab_next_size(t));
}

/* Puts a copy of an entry of the table being replaced into `t`, as ab_store would place it. */
static void ab_place(ab_table *t, const ab_entry *src) {
    int64_t b = ab_bucket(t, gdl_hash_words(src->key, G_KEY_WORDS));
    ab_entry *e0 = &t->tt[b], *e1 = &t->tt[b + 1];
    if (!e1->used) t->used++;
    else if (src->work <= e1->work) return; /* (both slots keep costlier entries: this one is dropped) */
    if (!e0->used) *e0 = *src;
    else if (src->work > e0->work) { *e1 = *e0; *e0 = *src; }
    else *e1 = *src;
}

/* Moves the table into one of `buckets` buckets (the owner's alone: see gdl_ab_new_helper). Without the memory,
   it stays as it is, and stops growing: it is a cache. */
static void ab_table_grow(ab_table *t, int64_t buckets) {
    size_t mapped;
    ab_entry *tt = gdl_table_alloc((size_t)buckets * 2 * sizeof(ab_entry), AB_TOUCH_BYTES, &mapped);
    if (!tt) {
        t->max_buckets = t->buckets;
        return;
    }
    ab_entry *old = t->tt;
    size_t old_mapped = t->mapped;
    int64_t old_size = t->buckets * 2;
    t->tt = tt;
    t->mapped = mapped;
    t->buckets = buckets;
    t->used = 0;
    for (int64_t i = 0; i < old_size; i++)
        if (old[i].used) ab_place(t, &old[i]);
    gdl_table_free(old, old_mapped);
}

/* A frame holds a state and every child of it: a state of 10,000 cells with ten moves makes 400 KB a ply, so a
   path thousands of plies deep outgrows any table. --memory bounds the stack too (gdl_ab_stack_limit). */
int64_t gdl_ab_frame_bytes(void) { return ab_frame_bytes(); }

void gdl_ab_stack_limit(ab_ctx *c, int64_t frames) { c->max_frames = frames < 1 ? 1 : frames; }

static int ab_grow(ab_ctx *c, int64_t depth) {
    if (c->max_frames && depth >= c->max_frames) return -2;
    if (depth >= c->frames_cap) {
        int64_t cap = c->frames_cap * 2;
        if (c->max_frames && cap > c->max_frames) cap = c->max_frames;
        char *arena = realloc(c->arena, (size_t)(c->frame_size * cap));
        if (!arena) return -1;
        c->arena = arena;
        c->frames_cap = cap;
    }
    if (depth >= c->killers_cap) {
        int64_t cap = c->killers_cap * 2;
        int32_t *k = realloc(c->killers, sizeof(int32_t) * 2 * cap);
        if (!k) return -1;
        for (int64_t i = 2 * c->killers_cap; i < 2 * cap; i++) k[i] = -1;
        c->killers = k;
        c->killers_cap = cap;
    }
    return 0;
}

/* Moves: by history, ties central first (the middle of the game's own order: the middle column, or the cells
   near the board's centre in row-major order), then killer 2, killer 1 and the table's move to the front. */
static void ab_order(ab_ctx *c, int32_t *moves, int n, int32_t first, int64_t ply) {
    int32_t centred[G_MAX_MOVES];
    int half = (n - 1) / 2, k = 0;
    for (int d = 0; k < n; d++) { /* the middle one, then alternately right and left of it */
        if (half + d < n) centred[k++] = moves[half + d];
        if (d > 0 && half - d >= 0) centred[k++] = moves[half - d];
    }
    memcpy(moves, centred, sizeof(int32_t) * (size_t)n);
    for (int i = 1; i < n; i++) {
        int32_t m = moves[i];
        int64_t hm = c->history[(uint32_t)m % AB_HISTORY];
        int j = i;
        while (j > 0 && c->history[(uint32_t)moves[j - 1] % AB_HISTORY] < hm) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
    if (c->variant && ply < 6 && n > 1) { /* a helper's own order near the root: another move first */
        int k = (int)(((uint32_t)c->variant + (uint32_t)ply) % (uint32_t)n);
        int32_t m = moves[k];
        memmove(moves + 1, moves, sizeof(int32_t) * k);
        moves[0] = m;
        return;
    }
    int32_t front[3] = {c->killers[2 * ply + 1], c->killers[2 * ply], first};
    for (int k = 0; k < 3; k++) {
        int32_t m = front[k];
        if (m < 0 || moves[0] == m) continue;
        for (int i = 1; i < n; i++)
            if (moves[i] == m) {
                memmove(moves + 1, moves, sizeof(int32_t) * i);
                moves[0] = m;
                break;
            }
    }
}

static int ab_on_path(ab_ctx *c, uint64_t h, const uint64_t *key) {
    if (!c->pathset[h % AB_PATHSET]) return 0;
    for (int64_t d = 0; d < c->depth; d++) {
        ab_frame *f = F_HDR(c, d);
        if (f->hash == h && memcmp(F_KEY(f), key, 8 * G_KEY_WORDS) == 0) return 1;
    }
    return 0;
}

/* Starts a search of `root` (player `player` to move) with the window (alpha, beta) for that side. */
int gdl_ab_start(ab_ctx *c, const int64_t *root, double alpha, double beta) {
    c->depth = -1;
    memset(c->pathset, 0, sizeof c->pathset);
    c->err.code = 0;
    ab_frame *f = F_HDR(c, 0);
    if (gdl_import(root, F_STATE(f), &c->err) < 0) return AB_ERROR;
    int p = g_to_move(F_STATE(f), &c->err);
    if (p == GDL_ERROR) return AB_ERROR;
    if (p < 0) return AB_CHANCE;
    if (g_key(F_STATE(f), F_KEY(f), &c->err) < 0) return AB_ERROR;
    f->phase = 0;
    f->player = p;
    f->side = p == 0 ? 1 : -1;
    f->alpha = alpha;
    f->beta = beta;
    c->depth = 0;
    c->root_best = -1;
    return AB_DONE;
}

static void ab_finish(ab_ctx *c, ab_frame *f) {
    const uint64_t *key = F_KEY(f);
    c->pathset[f->hash % AB_PATHSET]--;
    int64_t b = ab_bucket(c->t, f->hash);
    ab_lock(c->t, b); /* (read, merge and store as one step: another thread may store the same state) */
    ab_entry *e = ab_probe(c, f->hash, key);
    double lo = -INFINITY, hi = INFINITY;
    int32_t best_move = f->best_move;
    if (e) {
        lo = e->lo;
        hi = e->hi;
    }
    if (f->best <= f->alpha0) {
        hi = f->best;
        if (best_move < 0) best_move = f->tt_move;
    } else if (f->best >= f->beta) lo = f->best;
    else lo = hi = f->best;
    ab_store(c, f->hash, key, lo, hi, best_move, f->side, c->nodes - f->nodes0);
    ab_unlock(c->t, b);
    if (c->depth == 0) c->root_best = best_move;
    c->ret = f->best;
    c->depth--;
}

static void ab_push(ab_ctx *c, ab_frame *f, int i) {
    ab_frame *g = F_HDR(c, c->depth + 1);
    memcpy(F_STATE(g), F_PSTATES(f) + (int64_t)i * G_STATE_LEN, sizeof(g_cell) * G_STATE_LEN);
    memcpy(F_KEY(g), F_PKEYS(f) + (int64_t)i * G_KEY_WORDS, 8 * G_KEY_WORDS);
    g->player = F_PPLAYERS(f)[i];
    g->side = g->player == 0 ? 1 : -1;
    f->child_same = g->side == f->side;
    f->cur_move = F_PMOVES(f)[i];
    if (f->child_same) {
        g->alpha = f->alpha;
        g->beta = f->beta;
    } else {
        g->alpha = -f->beta;
        g->beta = -f->alpha;
    }
    g->phase = 0;
    c->depth++;
}

/* One node's entry: table, cycle check, moves, the first pass over the children. */
static int ab_enter(ab_ctx *c, ab_frame *f) {
    g_cell *s = F_STATE(f);
    const uint64_t *key = F_KEY(f);
    c->nodes++;
    f->nodes0 = c->nodes;
    f->hash = gdl_hash_words(key, G_KEY_WORDS);
    f->alpha0 = f->alpha;
    f->tt_move = -1;
    ab_entry found, *e = ab_read(c, f->hash, key, &found) ? &found : NULL;
    if (e) {
        f->tt_move = e->move;
        if (e->lo >= f->beta || e->hi <= f->alpha || e->lo == e->hi) {
            c->tt_hits++;
            if (c->depth == 0) c->root_best = e->move;
            c->ret = (e->lo >= f->beta || e->lo == e->hi) ? e->lo : e->hi;
            c->depth--;
            return AB_DONE;
        }
    }
    if (ab_on_path(c, f->hash, key)) return AB_CYCLE;
    c->pathset[f->hash % AB_PATHSET]++;
    int grown = ab_grow(c, c->depth + 1);
    if (grown < 0) return grown == -2 ? AB_STACK : AB_MEMORY;
    f = F_HDR(c, c->depth); /* the arena may have moved */
    s = F_STATE(f);
    int32_t *moves = F_MOVES(f);
    int n = g_legal(s, moves, &c->err);
    if (n < 0) return AB_ERROR;
    if (n == 0) return AB_DEAD_END;
    if (n > 1) ab_order(c, moves, n, f->tt_move, c->depth);
    f->best = -INFINITY;
    f->best_move = -1;
    f->npend = 0;
    int side = f->side;
    /* First pass, part one: make every child; a terminal child that refutes ends the node at once. The
       table buckets of the others are prefetched, so that their misses overlap. */
    for (int i = 0; i < n; i++) {
        g_cell *child = F_PSTATES(f) + (int64_t)f->npend * G_STATE_LEN;
        memcpy(child, s, sizeof(g_cell) * G_STATE_LEN);
        if (g_apply(child, moves[i], &c->err) < 0) return AB_ERROR;
        int p = g_to_move(child, &c->err);
        if (p == GDL_ERROR) return AB_ERROR;
        if (p == GDL_CHANCE) return AB_CHANCE;
        if (p == GDL_TERMINAL) {
            double u[G_PLAYERS];
            c->nodes++;
            if (g_utilities(child, u, &c->err) < 0) return AB_ERROR;
            double v = side * u[0];
            if (v > f->best) {
                f->best = v;
                f->best_move = moves[i];
                if (v >= f->beta) break;
            }
            continue;
        }
        uint64_t *ck = F_PKEYS(f) + (int64_t)f->npend * G_KEY_WORDS;
        if (g_key(child, ck, &c->err) < 0) return AB_ERROR;
        uint64_t ch = gdl_hash_words(ck, G_KEY_WORDS);
        __builtin_prefetch(&c->t->tt[ab_bucket(c->t, ch)]);
        __builtin_prefetch(&c->pathset[ch % AB_PATHSET]); /* (its cycle check reads this when it is entered) */
        F_PMOVES(f)[f->npend] = moves[i];
        F_PPLAYERS(f)[f->npend] = p;
        f->npend++;
    }
#ifndef AB_NO_ETC
    /* Part two: a child whose table entry proves a refutation ends the node (enhanced transposition cutoff). */
    for (int i = 0; i < f->npend && f->best < f->beta; i++) {
        uint64_t *ck = F_PKEYS(f) + (int64_t)i * G_KEY_WORDS;
        ab_entry copy, *known = ab_read(c, gdl_hash_words(ck, G_KEY_WORDS), ck, &copy) ? &copy : NULL;
        if (!known) continue;
        int child_side = F_PPLAYERS(f)[i] == 0 ? 1 : -1;
        double v = child_side != side ? -known->hi : known->lo;
        if (v < f->beta) continue;
        c->tt_hits++;
        f->best = v;
        f->best_move = F_PMOVES(f)[i];
    }
#endif
    if (f->best > f->alpha) f->alpha = f->best;
    if (f->best >= f->beta || f->npend == 0) {
        ab_finish(c, f);
        return AB_DONE;
    }
    f->phase = 1;
    f->next = 0;
    ab_push(c, f, 0);
    return AB_DONE;
}

/* Runs the search for at most about `slice` more nodes. AB_DONE: c->result holds the value for the
   root's side to move; AB_SLICE: call again; anything else: the search cannot go on. */
int gdl_ab_run(ab_ctx *c, int64_t slice) {
    int64_t stop_at = c->nodes + slice;
    while (c->depth >= 0) {
        ab_frame *f = F_HDR(c, c->depth);
        if (f->phase == 0) {
            if (c->nodes >= stop_at) return AB_SLICE;
            int status = ab_enter(c, f);
            if (status != AB_DONE) {
                c->err_depth = c->depth;
                return status;
            }
            continue;
        }
        double v = f->child_same ? c->ret : -c->ret;
        if (v > f->best) {
            f->best = v;
            f->best_move = f->cur_move;
            if (v > f->alpha) {
                f->alpha = v;
                if (f->alpha >= f->beta) {
                    int64_t ply = c->depth;
                    c->history[(uint32_t)f->cur_move % AB_HISTORY] += ply < 30 ? (1LL << (30 - ply)) : 1;
                    if (c->killers[2 * ply] != f->cur_move) {
                        c->killers[2 * ply + 1] = c->killers[2 * ply];
                        c->killers[2 * ply] = f->cur_move;
                    }
                    ab_finish(c, f);
                    continue;
                }
            }
        }
        f->next++;
        if (f->next < f->npend) ab_push(c, f, f->next);
        else ab_finish(c, f);
    }
    c->result = c->ret;
    return AB_DONE;
}

/* Statistics: nodes, table hits, entries in use, the stack depth, the root's best move. */
void gdl_ab_stats(ab_ctx *c, int64_t *out) {
    out[0] = c->nodes;
    out[1] = c->tt_hits;
    out[2] = __atomic_load_n(&c->t->used, __ATOMIC_RELAXED);
    out[3] = c->depth;
    out[4] = c->root_best;
}

double gdl_ab_result(ab_ctx *c) { return c->result; }

void gdl_ab_error(ab_ctx *c, gdl_error *e) { *e = c->err; }

/* The moves from the root to the frame where the search stopped (a dead end, cycle or error); their count. */
int64_t gdl_ab_path(ab_ctx *c, int32_t *moves, int64_t cap, int64_t *state) {
    int64_t n = c->err_depth < cap ? c->err_depth : cap;
    for (int64_t d = 0; d < n; d++) moves[d] = F_HDR(c, d)->cur_move;
    gdl_export(F_STATE(F_HDR(c, c->err_depth)), state);
    return n;
}

/* The table entry of a state (by its cells; the key is made here): 1 and its fields, or 0. */
int gdl_ab_lookup(ab_ctx *c, const int64_t *cells, double *lo, double *hi, int32_t *move, int32_t *side) {
    g_cell s[G_STATE_LEN];
    uint64_t key[G_KEY_WORDS];
    gdl_error e;
    if (gdl_import(cells, s, &e) < 0 || g_key(s, key, &e) < 0) return 0;
    ab_entry *en = ab_probe(c, gdl_hash_words(key, G_KEY_WORDS), key);
    if (!en) return 0;
    *lo = en->lo;
    *hi = en->hi;
    *move = en->move;
    *side = en->side;
    return 1;
}

/* Entries from slot `start` on, at most `cap`: canonical cells, bounds, moves, sides; returns the next slot
   (or -1 at the end) and the number written in *count. */
int64_t gdl_ab_entries(ab_ctx *c, int64_t start, int64_t cap, int64_t *cells, double *lo, double *hi,
                       int32_t *moves, int32_t *sides, int64_t *count) {
    int64_t n = 0, i = start, total = c->t->buckets * 2;
    g_cell s[G_STATE_LEN];
    for (; i < total && n < cap; i++) {
        ab_entry *e = &c->t->tt[i];
        if (!e->used) continue;
        gdl_unpack(e->key, s);
        gdl_export(s, cells + n * G_STATE_LEN);
        lo[n] = e->lo;
        hi[n] = e->hi;
        moves[n] = e->move;
        sides[n] = e->side;
        n++;
    }
    *count = n;
    return i < total ? i : -1;
}
