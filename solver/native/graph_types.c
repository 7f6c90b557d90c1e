/* The state graph's types, limits and small helpers (graph.c describes the graph): in both translation units of a
 * split build (solver/native/units.py), so that graph.c (exploring: the game's functions in its inner loops) is
 * compiled with the game and graph_solve.c, retrograde.c and remoteness*.c (over the graph alone) apart.
 */

#include <math.h>
#include <stdlib.h>
#include <time.h>
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
    double serial_spent[2]; /* the serial phase's seconds expanding states and adding their children (explore.c) */
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

/* State i's value per player: a row of the vector values, or player 0's value (and 0 - it for player 1). */
static void gr_values(const gr_ctx *c, int64_t i, double *out) {
    if (c->vector) {
        memcpy(out, c->vv + i * G_PLAYERS, sizeof(double) * G_PLAYERS);
        return;
    }
    out[0] = c->val[i];
    if (G_PLAYERS == 2) out[1] = 0.0 - c->val[i];
}

/* (graph.c's, for retrograde.c in the other unit of a split build) */
int64_t gdl_gr_node(gr_ctx *c, int64_t i, double *value, int32_t *player, int32_t *codes, int64_t *children,
                    int64_t cap);
int gdl_gr_values(gr_ctx *c, int64_t i, double *out);
