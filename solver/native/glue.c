/* The checked entry points Python calls (one per ABI function).
 *
 * Included after the game's definitions and cells.c. States from Python arrive as int64 arrays and are
 * checked cell by cell against g_lo/g_hi (cells.c's gdl_import) before the game sees them; a move from
 * Python is applied only if g_legal (or g_chance) lists it. So no value from outside reaches the
 * rules unchecked, and the rules' own range proofs hold.
 */
#include <stdlib.h>

/* Once, before anything else (the game's tables that C cannot initialise statically). */
void gdl_setup(void) { g_setup(); }

/* info[]: abi version, state length, players, max moves, max outcomes, key words, has chance, zero sum,
   has bounds, has heuristic, symmetric, sizeof(g_cell) */
int gdl_info(int64_t *info, int n) {
    int64_t all[12] = {GDL_ABI_VERSION, G_STATE_LEN, G_PLAYERS, G_MAX_MOVES, G_MAX_OUTCOMES, G_KEY_WORDS,
                       G_HAS_CHANCE, G_ZERO_SUM, G_HAS_BOUNDS, G_HAS_HEURISTIC, G_SYMMETRIC, sizeof(g_cell)};
    for (int i = 0; i < n && i < 12; i++) info[i] = all[i];
    return 12;
}

double gdl_bound(int which) { return which ? (double)(G_UTIL_HIGH) : (double)(G_UTIL_LOW); }

void gdl_ranges(int64_t *lo, int64_t *hi) {
    for (int i = 0; i < G_STATE_LEN; i++) {
        lo[i] = g_lo[i];
        hi[i] = g_hi[i];
    }
}

int gdl_py_initial(int64_t *out, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    memset(s, 0, sizeof s);
    if (g_initial(s, e) < 0) return GDL_ERROR;
    gdl_export(s, out);
    return 0;
}

int gdl_py_to_move(const int64_t *in, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    return g_to_move(s, e);
}

int gdl_py_legal(const int64_t *in, int32_t *moves, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    int p = g_to_move(s, e);
    if (p == GDL_ERROR) return GDL_ERROR;
    if (p < 0) return 0;
    return g_legal(s, moves, e);
}

int gdl_py_chance(const int64_t *in, int32_t *outcomes, double *probs, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    int p = g_to_move(s, e);
    if (p == GDL_ERROR) return GDL_ERROR;
    if (p != GDL_CHANCE) return 0;
    return g_chance(s, outcomes, probs, e);
}

/* Applies `move` to the state in place if it is one of the state's moves (or outcomes). */
int gdl_py_apply(int64_t *inout, int32_t move, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES];
    if (gdl_import(inout, s, e) < 0) return GDL_ERROR;
    int p = g_to_move(s, e), n;
    if (p == GDL_ERROR) return GDL_ERROR;
    if (p == GDL_TERMINAL) return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
    n = p == GDL_CHANCE ? g_chance(s, moves, probs, e) : g_legal(s, moves, e);
    if (n < 0) return GDL_ERROR;
    int found = 0;
    for (int i = 0; i < n; i++) found |= moves[i] == move;
    if (!found) return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
    if (g_apply(s, move, e) < 0) return GDL_ERROR;
    gdl_export(s, inout);
    return 0;
}

int gdl_py_utilities(const int64_t *in, double *u, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    return g_utilities(s, u, e);
}

int gdl_py_heuristic(const int64_t *in, double *h, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    return g_heuristic(s, h, e);
}

/* The canonical image (cells) and the 64-bit hash of a state's key. */
int gdl_py_key(const int64_t *in, int64_t *canon, uint64_t *hash, gdl_error *e) {
    e->code = 0; /* a def call tests e->code: a failure left by an earlier call must not fail this one */
    g_cell s[G_STATE_LEN];
    uint64_t w[G_KEY_WORDS];
    if (gdl_import(in, s, e) < 0) return GDL_ERROR;
    if (g_key(s, w, e) < 0) return GDL_ERROR;
    *hash = gdl_hash_words(w, G_KEY_WORDS);
    gdl_unpack(w, s);
    gdl_export(s, canon);
    return 0;
}
