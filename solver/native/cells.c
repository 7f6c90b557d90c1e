/* Moving states across the game's boundary: the generic key packing, and the checked import of cells from
 * outside (int64 arrays from Python, or a solver's root) and their export.
 *
 * Static helpers, in every translation unit of a split build (solver/native/units.py): each unit that uses
 * them compiles its own copy. A state from outside is checked cell by cell against g_lo/g_hi before the
 * game sees it, so no value from outside reaches the rules unchecked, and the rules' own range proofs hold.
 */
#include <stdlib.h>

/* Packing: cell i takes g_pack_bits[i] bits at bit g_pack_shift[i] of word g_pack_word[i] (value - g_lo[i]). */
static inline void gdl_pack(const g_cell *s, uint64_t *w) {
    for (int i = 0; i < G_KEY_WORDS; i++) w[i] = 0;
    for (int i = 0; i < G_STATE_LEN; i++)
        w[g_pack_word[i]] |= (uint64_t)((int64_t)s[i] - g_lo[i]) << g_pack_shift[i];
}

static inline void gdl_unpack(const uint64_t *w, g_cell *s) {
    for (int i = 0; i < G_STATE_LEN; i++) {
        uint64_t mask = g_pack_bits[i] >= 64 ? ~0ULL : ((1ULL << g_pack_bits[i]) - 1);
        s[i] = (g_cell)((int64_t)((w[g_pack_word[i]] >> g_pack_shift[i]) & mask) + g_lo[i]);
    }
}

static int gdl_import(const int64_t *in, g_cell *s, gdl_error *e) {
    for (int i = 0; i < G_STATE_LEN; i++) {
        if (in[i] < g_lo[i] || in[i] > g_hi[i]) return gdl_fail(e, GDL_E_STATE, 0, 0, i);
        s[i] = (g_cell)in[i];
    }
    return 0;
}

static void gdl_export(const g_cell *s, int64_t *out) {
    for (int i = 0; i < G_STATE_LEN; i++) out[i] = s[i];
}
