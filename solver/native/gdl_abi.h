/* The C game ABI: what a game compiled to C provides to the native solvers.
 *
 * A game is C that defines the macros and the static functions below; the solver sources
 * (solver/native/ *.c) follow it in the same translation unit: the solvers call the game
 * directly, so the compiler can inline the rules into the search loops. (A built module is
 * two such units, compiled in parallel: solver/native/units.py. The second has the game's
 * text only for its declarations and tables, and none of its solvers calls the rules.)
 *
 * The state is a fixed-size array of G_STATE_LEN cells of type g_cell (a signed integer
 * type of 8, 16, 32 or 64 bits that holds every cell's range: the game picks it). Every
 * cell has a declared range g_lo[i]..g_hi[i] (int64_t, or any integer type that holds them); states
 * are made only by g_initial and g_apply, which keep every cell in its range (checked
 * where it is written), or come from Python through the checked entry points of glue.c.
 * So a game may use a cell as an index once its range proves the index in bounds. Outside the
 * game (Python, a solver's root or its exported states) a state is an array of G_STATE_LEN
 * int64_t: every cell fits, whatever g_cell is.
 *
 * Errors: a rule that fails at run time (an index out of range, a value outside its
 * domain, a division by zero, more moves than G_MAX_MOVES) never crashes: the function
 * fills the gdl_error with a code and the rule file's line and column and returns
 * GDL_ERROR. Callers propagate it unchanged.
 *
 * What a game defines (macros):
 *   G_STATE_LEN      cells in a state (>= 1)
 *   G_PLAYERS        number of players (>= 1)
 *   G_MAX_MOVES      no state has more legal moves (>= 1)
 *   G_MAX_OUTCOMES   no chance state has more outcomes (>= 1)
 *   G_KEY_WORDS      64-bit words of a packed key (>= 1)
 *   G_HAS_CHANCE     1 if some state may be a chance node
 *   G_ZERO_SUM       1 if utilities sum to 0 in every terminal state
 *   G_HAS_BOUNDS     1 if G_UTIL_LOW..G_UTIL_HIGH bound every utility (and heuristic)
 *   G_UTIL_LOW, G_UTIL_HIGH
 *   G_HAS_HEURISTIC  1 if g_heuristic ever writes estimates
 *   G_SYMMETRIC      1 if g_key maps symmetric states to one key
 * and the type g_cell and the arrays g_lo[G_STATE_LEN], g_hi[G_STATE_LEN].
 *
 * Functions (all static; e is never NULL):
 *   void g_setup(void)                                      once, before any other (tables C cannot initialise)
 *   int g_initial(g_cell *s, gdl_error *e)                  the initial state; 0 or GDL_ERROR
 *   int g_to_move(const g_cell *s, gdl_error *e)            player index, GDL_CHANCE, GDL_TERMINAL or GDL_ERROR
 *   int g_legal(const g_cell *s, int32_t *moves, gdl_error *e)
 *       writes the legal move codes (>= 0) in the game's order into moves[0..n); returns n or GDL_ERROR
 *   int g_chance(const g_cell *s, int32_t *outcomes, double *probs, gdl_error *e)
 *       a chance state's outcome codes and probabilities (summing to 1); returns n or GDL_ERROR
 *   int g_apply(g_cell *s, int32_t move, gdl_error *e)      applies a legal move or outcome in place
 *   int g_utilities(const g_cell *s, double *u, gdl_error *e)   terminal state: one utility per player
 *   int g_heuristic(const g_cell *s, double *h, gdl_error *e)   1: h[0..G_PLAYERS) written; 0: no heuristic
 *   int g_key(const g_cell *s, uint64_t *words, gdl_error *e)
 *       the packed canonical image of s (the smallest image under the declared symmetries, compared
 *       cell by cell as Python compares tuples; s itself without symmetries); equal keys, equal values
 * and the packing of a key: cell i takes g_pack_bits[i] bits at bit g_pack_shift[i] of word g_pack_word[i]
 * (its value minus g_lo[i]); cells.c's gdl_unpack inverts it.
 * The 64-bit hash of a state is gdl_hash(words) of its key.
 */
#ifndef GDL_ABI_H
#define GDL_ABI_H

#include <stdint.h>
#include <string.h>

#define GDL_ABI_VERSION 2  /* 2: states cross the boundary as int64 arrays (1: int32) */

#define GDL_CHANCE (-1)
#define GDL_TERMINAL (-2)
#define GDL_ERROR (-100)

/* gdl_error.code */
#define GDL_E_INDEX 1     /* an index out of its array's range */
#define GDL_E_DOMAIN 2    /* a value written outside its declared range */
#define GDL_E_DIVISION 3  /* division or modulo by zero */
#define GDL_E_OVERFLOW 4  /* integer arithmetic out of 64-bit range */
#define GDL_E_MOVE 5      /* a move or outcome code that is not legal in the state */
#define GDL_E_CAPACITY 6  /* more moves or outcomes than G_MAX_MOVES / G_MAX_OUTCOMES */
#define GDL_E_STATE 7     /* a state from outside with a cell outside its range */
#define GDL_E_NONE 8      /* `none` used where a value is needed */
#define GDL_E_NO_UTILITY 9 /* a terminal state that no end rule gives utilities */
#define GDL_E_MEMORY 10   /* the solver could not allocate memory */
#define GDL_E_RULE 11     /* another rule failure (see the message table of the game) */

typedef struct gdl_error {
    int32_t code;   /* 0: no error */
    int32_t line;   /* rule-file line (1-based; 0: not from a rule) */
    int32_t col;    /* rule-file column (1-based; 0: unknown) */
    int32_t detail; /* code-specific: the offending index or value when it fits */
} gdl_error;

static inline int gdl_fail(gdl_error *e, int32_t code, int32_t line, int32_t col, int64_t detail) {
    e->code = code;
    e->line = line;
    e->col = col;
    e->detail = (detail > INT32_MAX || detail < INT32_MIN) ? INT32_MIN : (int32_t)detail;
    return GDL_ERROR;
}

/* A 64-bit hash of packed key words (a splitmix64-style mixer: every input bit affects every output bit). */
static inline uint64_t gdl_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static inline uint64_t gdl_hash_words(const uint64_t *w, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL * (uint64_t)(n + 1);
    for (int i = 0; i < n; i++) h = gdl_mix64(h ^ w[i]) + 0x9e3779b97f4a7c15ULL;
    return h;
}

#endif
