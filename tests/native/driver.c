/* A standalone driver for sanitizer builds (-fsanitize=address,undefined): a bounded corpus of seeded random
 * playouts through every ABI function (and the checked entry points, with out-of-range cells and moves), then
 * the C alpha-beta, the state graph (on one and on three threads) and MCTS on the initial state. Exit status 0 when every check holds; the sanitizers abort
 * on any memory or undefined-behaviour error. Usage: driver PLAYOUTS SEED */
#include <stdio.h>

static uint64_t drv_rng = 88172645463325252ULL;
static uint32_t drv_next(void) {
    drv_rng ^= drv_rng << 13; drv_rng ^= drv_rng >> 7; drv_rng ^= drv_rng << 17;
    return (uint32_t)(drv_rng >> 32);
}

#define DRV_CHECK(cond) do { if (!(cond)) { fprintf(stderr, "check failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

/* The state graph explored on `threads` threads (from its first state, in slices of `slice`): its status. */
static int drv_explore(gr_ctx *g, const int64_t *root, int threads, int64_t slice) {
    gdl_gr_threads(g, threads, 0);
    int gs = gdl_gr_explore(g, root, slice);
    while (gs == GR_SLICE) gs = gdl_gr_explore(g, NULL, slice);
    return gs;
}

/* Whether two explored graphs are the same: statistics, and per state its turn, edges, values and cells. */
static int drv_same_graph(gr_ctx *a, gr_ctx *b) {
    int64_t sa[9], sb[9];
    gdl_gr_stats(a, sa);
    gdl_gr_stats(b, sb);
    if (memcmp(sa, sb, sizeof sa) != 0) return 0;
    if (sa[1] != sa[0] || sa[0] > 50000) return 1; /* (stopped: the counts; a big graph: not copied) */
    int64_t n = sa[0], edges = sa[2];
    int ok = 1;
    void *buf[14];
    for (int k = 0; k < 2; k++) {
        buf[7 * k] = malloc(4 * (size_t)n); buf[7 * k + 1] = malloc(8 * (size_t)(n + 1));
        buf[7 * k + 2] = malloc(8 * (size_t)(n * G_PLAYERS)); buf[7 * k + 3] = malloc(8 * (size_t)(n * G_STATE_LEN));
        buf[7 * k + 4] = malloc(4 * (size_t)edges + 4); buf[7 * k + 5] = malloc(4 * (size_t)edges + 4);
        buf[7 * k + 6] = malloc(8 * (size_t)edges + 8);
        if (gdl_gr_export(k ? b : a, buf[7 * k], buf[7 * k + 1], buf[7 * k + 2], buf[7 * k + 3], buf[7 * k + 4],
                          buf[7 * k + 5], buf[7 * k + 6]) != 0) ok = 0;
    }
    size_t sizes[7] = {4 * (size_t)n, 8 * (size_t)(n + 1), 8 * (size_t)(n * G_PLAYERS), 8 * (size_t)(n * G_STATE_LEN),
                       4 * (size_t)edges, 4 * (size_t)edges, 8 * (size_t)edges};
    for (int j = 0; j < 7; j++) {
        if (memcmp(buf[j], buf[7 + j], sizes[j]) != 0) ok = 0;
        free(buf[j]);
        free(buf[7 + j]);
    }
    return ok;
}

static int drv_playout(void) {
    gdl_error e = {0, 0, 0, 0};
    g_cell s[G_STATE_LEN];
    int32_t moves[G_MAX_MOVES > G_MAX_OUTCOMES ? G_MAX_MOVES : G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES], u[G_PLAYERS];
    uint64_t key[G_KEY_WORDS];
    int64_t cells[G_STATE_LEN], canon[G_STATE_LEN];
    uint64_t hash;
    DRV_CHECK(g_initial(s, &e) == 0);
    for (int ply = 0; ply < 10000; ply++) {
        for (int i = 0; i < G_STATE_LEN; i++) DRV_CHECK(s[i] >= g_lo[i] && s[i] <= g_hi[i]);
        DRV_CHECK(g_key(s, key, &e) == 0);
        gdl_export(s, cells);
        DRV_CHECK(gdl_py_key(cells, canon, &hash, &e) == 0);
        DRV_CHECK(hash == gdl_hash_words(key, G_KEY_WORDS));
        int p = g_to_move(s, &e);
        if (p == GDL_ERROR) return 0; /* a rule error is reported, not a crash: the corpus may end here */
        if (p == GDL_TERMINAL) {
            DRV_CHECK(g_utilities(s, u, &e) == 0);
            return 0;
        }
        int n = p == GDL_CHANCE ? g_chance(s, moves, probs, &e) : g_legal(s, moves, &e);
        if (n == GDL_ERROR) return 0;
        DRV_CHECK(n >= 0 && n <= (p == GDL_CHANCE ? G_MAX_OUTCOMES : G_MAX_MOVES));
        if (n == 0) return 0;
        /* outside values through the checked entry points: refused, never crash */
        int64_t bad[G_STATE_LEN];
        memcpy(bad, cells, sizeof bad);
        bad[drv_next() % G_STATE_LEN] = (int64_t)(((uint64_t)drv_next() << 32) | drv_next());
        int32_t out[G_MAX_MOVES];
        gdl_error e2 = {0, 0, 0, 0};
        (void)gdl_py_legal(bad, out, &e2);
        memcpy(bad, cells, sizeof bad);
        (void)gdl_py_apply(bad, (int32_t)drv_next(), &e2);
        if (g_apply(s, moves[drv_next() % (uint32_t)n], &e) < 0) return 0;
    }
    return 0;
}

int main(int argc, char **argv) {
    int playouts = argc > 1 ? atoi(argv[1]) : 200;
    drv_rng ^= argc > 2 ? (uint64_t)atoll(argv[2]) : 0;
    g_setup();
    for (int i = 0; i < playouts; i++)
        if (drv_playout()) return 1;
    gdl_error e = {0, 0, 0, 0};
    g_cell s[G_STATE_LEN];
    int64_t root[G_STATE_LEN];
    g_initial(s, &e);
    gdl_export(s, root);
    if (!G_HAS_CHANCE) {
        ab_ctx *c = gdl_ab_new(1 << 12); /* a small table: the replacement scheme runs */
        DRV_CHECK(c != NULL);
        int st = gdl_ab_start(c, root, -1e300, 1e300), slices = 0;
        while (st == AB_DONE && slices++ < 20 && (st = gdl_ab_run(c, 50000)) == AB_SLICE) {}
        if (!(st == AB_DONE || st == AB_CYCLE || st == AB_SLICE)) fprintf(stderr, "alpha-beta status %d\n", st);
        DRV_CHECK(st == AB_DONE || st == AB_CYCLE || st == AB_SLICE);
        gdl_ab_free(c);
    }
    for (int vector = 0; vector < 2; vector++) { /* the state graph, one value or a value per player: a capped
        exploration (a game too big for the cap stops with GR_FULL), then solving */
        gr_ctx *g = gdl_gr_new(200000);
        DRV_CHECK(g != NULL);
        if (vector) DRV_CHECK(gdl_gr_vector(g) == 0);
        int gs = gdl_gr_explore(g, root, 1000);
        while (gs == GR_SLICE) gs = gdl_gr_explore(g, NULL, 1000);
        DRV_CHECK(gs == GR_DONE || gs == GR_FULL || gs == GR_NOT_SCALAR || gs == GR_DEAD_END);
        if (gs == GR_DONE) {
            while ((gs = gdl_gr_solve(g, 1e-12, 0, 5000)) == GR_SLICE) {}
            DRV_CHECK(gs == GR_DONE);
            double v;
            int32_t player, codes[G_MAX_MOVES + G_MAX_OUTCOMES], via;
            int64_t children[G_MAX_MOVES + G_MAX_OUTCOMES], stats[9];
            gdl_gr_stats(g, stats);
            for (int64_t i = 0; i < stats[0]; i += 1 + stats[0] / 100) {
                double row[G_PLAYERS];
                DRV_CHECK(gdl_gr_values(g, i, row) == 0);
                DRV_CHECK(gdl_gr_node(g, i, &v, &player, codes, children, G_MAX_MOVES + G_MAX_OUTCOMES) >= 0);
                DRV_CHECK(gdl_gr_cells(g, i, root) == 0 && gdl_gr_find(g, root) == i);
                (void)gdl_gr_parent(g, i, &via);
            }
            DRV_CHECK(gdl_gr_node(g, stats[0], &v, &player, codes, children, 1) == -1); /* out of range */
        }
        gdl_gr_free(g);
        g_initial(s, &e);
        gdl_export(s, root);
        /* on several threads (explore.c), in slices: the graph one thread explores */
        gr_ctx *one = gdl_gr_new(60000), *many = gdl_gr_new(60000);
        DRV_CHECK(one != NULL && many != NULL);
        if (vector) DRV_CHECK(gdl_gr_vector(one) == 0 && gdl_gr_vector(many) == 0);
        int s1 = drv_explore(one, root, 1, 777), s3 = drv_explore(many, root, 3, 777);
        DRV_CHECK(s1 == s3 && drv_same_graph(one, many));
        gdl_gr_free(one);
        gdl_gr_free(many);
    }
    for (int astar = 0; astar < 2; astar++) { /* the puzzle searches (any game will do for memory safety) */
        pz_ctx *z = gdl_pz_new(root, astar, 1, 1e300, &e);
        DRV_CHECK(z != NULL);
        int zs = PZ_SLICE;
        for (int k = 0; k < 20 && zs == PZ_SLICE; k++) zs = gdl_pz_run(z, 1000, &e);
        int64_t zstats[4];
        double zbest;
        int32_t zline[4096];
        gdl_pz_stats(z, zstats, &zbest);
        if (zstats[2] >= 0) DRV_CHECK(gdl_pz_line(z, zstats[2], zline, 4096) >= 0);
        gdl_pz_free(z);
    }
    mc_ctx *m = gdl_mc_new(root, 1.4, 1000, 1, 42, 0, &e);
    DRV_CHECK(m != NULL);
    int st = gdl_mc_run(m, 20000, 0);
    DRV_CHECK(st == MC_DONE || st == MC_PROVEN);
    int32_t line[64];
    DRV_CHECK(gdl_mc_line(m, line, 64) >= 0);
    gdl_mc_free(m);
    printf("ok\n");
    return 0;
}
