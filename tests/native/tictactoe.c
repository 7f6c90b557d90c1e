/* Tic-tac-toe written by hand against the C game ABI (solver/native/gdl_abi.h), with its 8 symmetries.
 * State: cells 0..8 (row-major from a1; 0 empty, 1 X, 2 O), cell 9 the player to move. Move code: the cell. */
#define G_STATE_LEN 10
#define G_PLAYERS 2
#define G_MAX_MOVES 9
#define G_MAX_OUTCOMES 1
#define G_KEY_WORDS 1
#define G_HAS_CHANCE 0
#define G_ZERO_SUM 1
#define G_HAS_BOUNDS 1
#define G_UTIL_LOW (-1)
#define G_UTIL_HIGH 1
#define G_HAS_HEURISTIC 0
#define G_SYMMETRIC 1
typedef int8_t g_cell;
static const int32_t g_lo[G_STATE_LEN] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const int32_t g_hi[G_STATE_LEN] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 1};
static const int g_pack_word[G_STATE_LEN] = {0};
static const int g_pack_shift[G_STATE_LEN] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18};
static const int g_pack_bits[G_STATE_LEN] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 1};

static const int ttt_lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
/* image[t][c]: where cell c goes under symmetry t (t = 0 is the identity) */
static int ttt_images[8][9];

static int ttt_winner(const g_cell *s) {
    for (int l = 0; l < 8; l++) {
        int a = s[ttt_lines[l][0]];
        if (a && a == s[ttt_lines[l][1]] && a == s[ttt_lines[l][2]]) return a;
    }
    return 0;
}

static void g_setup(void) {
    for (int c = 0; c < 9; c++) {
        int r = c / 3, k = c % 3;
        int pts[8][2] = {{r, k}, {r, 2 - k}, {2 - r, k}, {2 - r, 2 - k}, {k, r}, {k, 2 - r}, {2 - k, r}, {2 - k, 2 - r}};
        for (int t = 0; t < 8; t++) ttt_images[t][c] = pts[t][0] * 3 + pts[t][1];
    }
}

static int g_initial(g_cell *s, gdl_error *e) {
    (void)e;
    memset(s, 0, G_STATE_LEN);
    return 0;
}

static int g_to_move(const g_cell *s, gdl_error *e) {
    (void)e;
    if (ttt_winner(s)) return GDL_TERMINAL;
    for (int c = 0; c < 9; c++)
        if (!s[c]) return s[9];
    return GDL_TERMINAL;
}

static int g_legal(const g_cell *s, int32_t *moves, gdl_error *e) {
    (void)e;
    int n = 0;
    for (int c = 0; c < 9; c++)
        if (!s[c]) moves[n++] = c;
    return n;
}

static int g_chance(const g_cell *s, int32_t *outcomes, double *probs, gdl_error *e) {
    (void)s; (void)outcomes; (void)probs; (void)e;
    return 0;
}

static int g_apply(g_cell *s, int32_t move, gdl_error *e) {
    if (move < 0 || move >= 9) return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
    if (s[move]) return gdl_fail(e, GDL_E_MOVE, 0, 0, move);
    s[move] = (g_cell)(s[9] + 1);
    s[9] = (g_cell)(1 - s[9]);
    return 0;
}

static int g_utilities(const g_cell *s, double *u, gdl_error *e) {
    (void)e;
    int w = ttt_winner(s);
    u[0] = w == 1 ? 1.0 : w == 2 ? -1.0 : 0.0;
    u[1] = -u[0];
    return 0;
}

static int g_heuristic(const g_cell *s, double *h, gdl_error *e) {
    (void)s; (void)h; (void)e;
    return 0;
}

static int g_key(const g_cell *s, uint64_t *words, gdl_error *e) {
    (void)e;
    g_cell best[G_STATE_LEN], img[G_STATE_LEN];
    memcpy(best, s, G_STATE_LEN);
    for (int t = 1; t < 8; t++) {
        for (int c = 0; c < 9; c++) img[ttt_images[t][c]] = s[c];
        img[9] = s[9];
        if (memcmp(img, best, G_STATE_LEN) < 0) memcpy(best, img, G_STATE_LEN);
    }
    words[0] = 0;
    for (int i = 0; i < G_STATE_LEN; i++) words[0] |= (uint64_t)best[i] << (2 * i);
    return 0;
}
