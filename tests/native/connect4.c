/* Connect-Four written by hand against the C game ABI, C4_COLS x C4_ROWS (defined before this file), k = 4,
 * with the left-right mirror symmetry. State: cell r * C4_COLS + c (row 0 at the bottom; 0 empty, 1 and 2 the
 * players), then the player to move. Move code: the column. */
#define C4_CELLS (C4_COLS * C4_ROWS)
#define G_STATE_LEN (C4_CELLS + 1)
#define G_PLAYERS 2
#define G_MAX_MOVES C4_COLS
#define G_MAX_OUTCOMES 1
#define G_KEY_WORDS ((2 * C4_CELLS + 1 + 63) / 64)
#define G_HAS_CHANCE 0
#define G_ZERO_SUM 1
#define G_HAS_BOUNDS 1
#define G_UTIL_LOW (-1)
#define G_UTIL_HIGH 1
#define G_HAS_HEURISTIC 0
#define G_SYMMETRIC 1
typedef int8_t g_cell;
static int32_t g_lo[G_STATE_LEN];
static int32_t g_hi[G_STATE_LEN];
static int g_pack_word[G_STATE_LEN], g_pack_shift[G_STATE_LEN], g_pack_bits[G_STATE_LEN];

static int c4_winner(const g_cell *s) {
    static const int d[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int r = 0; r < C4_ROWS; r++)
        for (int c = 0; c < C4_COLS; c++) {
            int a = s[r * C4_COLS + c];
            if (!a) continue;
            for (int k = 0; k < 4; k++) {
                int n = 1, rr = r, cc = c;
                while (n < 4) {
                    rr += d[k][0];
                    cc += d[k][1];
                    if (rr < 0 || rr >= C4_ROWS || cc < 0 || cc >= C4_COLS || s[rr * C4_COLS + cc] != a) break;
                    n++;
                }
                if (n == 4) return a;
            }
        }
    return 0;
}

static void g_setup(void) {
    for (int i = 0; i < G_STATE_LEN; i++) {
        g_lo[i] = 0;
        g_hi[i] = i < C4_CELLS ? 2 : 1;
        g_pack_bits[i] = i < C4_CELLS ? 2 : 1;
        g_pack_word[i] = (2 * i) / 64;
        g_pack_shift[i] = (2 * i) % 64;
    }
}

static int g_initial(g_cell *s, gdl_error *e) {
    (void)e;
    memset(s, 0, G_STATE_LEN);
    return 0;
}

static int g_to_move(const g_cell *s, gdl_error *e) {
    (void)e;
    if (c4_winner(s)) return GDL_TERMINAL;
    for (int c = 0; c < C4_COLS; c++)
        if (!s[(C4_ROWS - 1) * C4_COLS + c]) return s[C4_CELLS];
    return GDL_TERMINAL;
}

static int g_legal(const g_cell *s, int32_t *moves, gdl_error *e) {
    (void)e;
    int n = 0;
    for (int c = 0; c < C4_COLS; c++)
        if (!s[(C4_ROWS - 1) * C4_COLS + c]) moves[n++] = c;
    return n;
}

static int g_chance(const g_cell *s, int32_t *outcomes, double *probs, gdl_error *e) {
    (void)s; (void)outcomes; (void)probs; (void)e;
    return 0;
}

static int g_apply(g_cell *s, int32_t move, gdl_error *e) {
    if (move < 0 || move >= C4_COLS) return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
    for (int r = 0; r < C4_ROWS; r++)
        if (!s[r * C4_COLS + move]) {
            s[r * C4_COLS + move] = (g_cell)(s[C4_CELLS] + 1);
            s[C4_CELLS] = (g_cell)(1 - s[C4_CELLS]);
            return 0;
        }
    return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
}

static int g_utilities(const g_cell *s, double *u, gdl_error *e) {
    (void)e;
    int w = c4_winner(s);
    u[0] = w == 1 ? 1.0 : w == 2 ? -1.0 : 0.0;
    u[1] = -u[0];
    return 0;
}

static int g_heuristic(const g_cell *s, double *h, gdl_error *e) {
    (void)s; (void)h; (void)e;
    return 0;
}

static void c4_pack(const g_cell *s, uint64_t *w) {
    for (int i = 0; i < G_KEY_WORDS; i++) w[i] = 0;
    for (int i = 0; i < G_STATE_LEN; i++) w[(2 * i) / 64] |= (uint64_t)s[i] << ((2 * i) % 64);
}

static int g_key(const g_cell *s, uint64_t *words, gdl_error *e) {
    (void)e;
    g_cell img[G_STATE_LEN];
    for (int r = 0; r < C4_ROWS; r++)
        for (int c = 0; c < C4_COLS; c++) img[r * C4_COLS + c] = s[r * C4_COLS + C4_COLS - 1 - c];
    img[C4_CELLS] = s[C4_CELLS];
    c4_pack(memcmp(img, s, G_STATE_LEN) < 0 ? img : s, words);
    return 0;
}
