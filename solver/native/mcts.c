/* Monte Carlo tree search over the C game ABI: the algorithm of solver/mcts.py, step for step.
 *
 * UCT (UCB1 on returns scaled by the utility bounds), N players (every node keeps every player's total;
 * the player to move selects by its own mean), chance nodes (an outcome sampled by its probability; one
 * child per outcome met), random playouts (or the heuristic), MCTS-Solver proofs (a proven win of the
 * player to move proves a node; so does a node whose children are all expanded and proven). Moves are
 * expanded in the game's order. The tree is arrays indexed by node number; each node keeps its state.
 * gdl_mc_run runs a given number of iterations, so Python checks its budget between slices.
 */
#include <math.h>
#include <stdlib.h>

#define MC_DONE 0
#define MC_PROVEN 1
#define MC_ERROR 2
#define MC_DEAD_END 3
#define MC_MEMORY 4
#define MC_NODES 5

typedef struct mc_node {
    int32_t parent, move, first_child, next_sibling, last_child;
    int32_t expanded; /* children made so far (decision nodes: in move order) */
    int32_t nmoves;   /* -1: not yet listed; else the number of legal moves */
    int8_t player, proven;
    int64_t visits;
} mc_node;

typedef struct mc_ctx {
    mc_node *nodes;
    double *totals, *proof; /* G_PLAYERS per node */
    g_cell *states;         /* G_STATE_LEN per node */
    int64_t n, cap;
    double c, low, high, scale;
    int has_bounds;
    int32_t max_rollout;
    int solver, heuristic_rollout;
    uint64_t rng;
    int64_t nodes_count, iterations;
    gdl_error err;
    /* where an error or dead end happened: the tree node, then the playout's moves */
    int64_t err_node;
    int32_t *played;
    int32_t nplayed;
    g_cell err_state[G_STATE_LEN];
} mc_ctx;

static double mc_random(mc_ctx *c) {
    uint64_t z = (c->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t mc_add(mc_ctx *c, int64_t parent, int32_t move, const g_cell *state, int player) {
    if (c->n >= c->cap) {
        int64_t cap = c->cap * 2;
        mc_node *nodes = realloc(c->nodes, sizeof(mc_node) * cap);
        if (!nodes) return -1;
        c->nodes = nodes;
        double *t = realloc(c->totals, sizeof(double) * G_PLAYERS * cap);
        if (!t) return -1;
        c->totals = t;
        double *p = realloc(c->proof, sizeof(double) * G_PLAYERS * cap);
        if (!p) return -1;
        c->proof = p;
        g_cell *s = realloc(c->states, sizeof(g_cell) * G_STATE_LEN * cap);
        if (!s) return -1;
        c->states = s;
        c->cap = cap;
    }
    int64_t i = c->n++;
    mc_node *nd = &c->nodes[i];
    nd->parent = (int32_t)parent;
    nd->move = move;
    nd->first_child = nd->next_sibling = nd->last_child = -1;
    nd->expanded = 0;
    nd->nmoves = -1;
    nd->player = (int8_t)player;
    nd->proven = 0;
    nd->visits = 0;
    for (int p = 0; p < G_PLAYERS; p++) c->totals[i * G_PLAYERS + p] = 0.0;
    memcpy(c->states + i * G_STATE_LEN, state, sizeof(g_cell) * G_STATE_LEN);
    if (parent >= 0) {
        mc_node *pa = &c->nodes[parent];
        if (pa->last_child < 0) pa->first_child = (int32_t)i;
        else c->nodes[pa->last_child].next_sibling = (int32_t)i;
        pa->last_child = (int32_t)i;
        pa->expanded++;
    }
    return i;
}

void gdl_mc_free(mc_ctx *c) {
    if (!c) return;
    free(c->nodes); free(c->totals); free(c->proof); free(c->states); free(c->played); free(c);
}

mc_ctx *gdl_mc_new(const int64_t *root, double exploration, int32_t max_rollout, int32_t solver, uint64_t seed,
                   int64_t heuristic_rollout, gdl_error *e) {
    e->code = 0; /* (a def call tests e->code: no failure left from an earlier call) */
    mc_ctx *c = calloc(1, sizeof(mc_ctx));
    if (!c) return NULL;
    c->cap = 1024;
    c->nodes = malloc(sizeof(mc_node) * c->cap);
    c->totals = malloc(sizeof(double) * G_PLAYERS * c->cap);
    c->proof = malloc(sizeof(double) * G_PLAYERS * c->cap);
    c->states = malloc(sizeof(g_cell) * G_STATE_LEN * c->cap);
    c->played = malloc(sizeof(int32_t) * (max_rollout > 0 ? max_rollout : 1));
    if (!c->nodes || !c->totals || !c->proof || !c->states || !c->played) {
        gdl_mc_free(c);
        return NULL;
    }
    c->c = exploration;
    c->has_bounds = G_HAS_BOUNDS;
    c->low = G_HAS_BOUNDS ? (double)(G_UTIL_LOW) : 0.0;
    c->high = G_HAS_BOUNDS ? (double)(G_UTIL_HIGH) : 1.0;
    c->scale = G_HAS_BOUNDS && c->high > c->low ? c->high - c->low : 1.0;
    c->max_rollout = max_rollout;
    c->solver = solver;
    c->heuristic_rollout = (int)heuristic_rollout;
    c->rng = seed;
    c->err_node = -1;
    g_cell s[G_STATE_LEN];
    if (gdl_import(root, s, e) < 0) { gdl_mc_free(c); return NULL; }
    int p = g_to_move(s, e);
    if (p == GDL_ERROR) { gdl_mc_free(c); return NULL; }
    mc_add(c, -1, -1, s, p);
    return c;
}

static int mc_sample(mc_ctx *c, const g_cell *s, int32_t *out) {
    int32_t outcomes[G_MAX_OUTCOMES];
    double probs[G_MAX_OUTCOMES];
    int n = g_chance(s, outcomes, probs, &c->err);
    if (n < 0) return MC_ERROR;
    if (n == 0) return MC_DEAD_END;
    double x = mc_random(c);
    for (int i = 0; i < n; i++) {
        x -= probs[i];
        if (x < 0) { *out = outcomes[i]; return MC_DONE; }
    }
    *out = outcomes[n - 1]; /* rounding: the probabilities summed to slightly less than 1 */
    return MC_DONE;
}

static int64_t mc_child_with_move(mc_ctx *c, int64_t node, int32_t move) {
    for (int64_t ch = c->nodes[node].first_child; ch >= 0; ch = c->nodes[ch].next_sibling)
        if (c->nodes[ch].move == move) return ch;
    return -1;
}

static int64_t mc_expand(mc_ctx *c, int64_t node, int32_t move, int *status) {
    g_cell s[G_STATE_LEN];
    memcpy(s, c->states + node * G_STATE_LEN, sizeof(g_cell) * G_STATE_LEN);
    if (g_apply(s, move, &c->err) < 0) { *status = MC_ERROR; return -1; }
    int p = g_to_move(s, &c->err);
    if (p == GDL_ERROR) { *status = MC_ERROR; return -1; }
    int64_t child = mc_add(c, node, move, s, p);
    if (child < 0) { *status = MC_MEMORY; return -1; }
    c->nodes_count++;
    return child;
}

static int64_t mc_best_child(mc_ctx *c, int64_t node) {
    int player = c->nodes[node].player;
    double explore = c->c * c->scale;
    double log_n = c->nodes[node].visits > 1 ? log((double)c->nodes[node].visits) : 0.0;
    int64_t best = -1;
    double best_score = -INFINITY;
    for (int64_t ch = c->nodes[node].first_child; ch >= 0; ch = c->nodes[ch].next_sibling) {
        double visits = (double)c->nodes[ch].visits;
        double mean = c->nodes[ch].proven ? c->proof[ch * G_PLAYERS + player]
                                          : c->totals[ch * G_PLAYERS + player] / visits;
        double score = mean + explore * sqrt(log_n / visits);
        if (score > best_score) { best = ch; best_score = score; }
    }
    return best;
}

/* Selection and expansion: the node to evaluate, or -1 with *status set. */
static int64_t mc_select(mc_ctx *c, int *status) {
    int64_t node = 0;
    for (;;) {
        mc_node *nd = &c->nodes[node];
        if (nd->player == GDL_TERMINAL || nd->proven) return node;
        const g_cell *s = c->states + node * G_STATE_LEN;
        if (nd->player == GDL_CHANCE) {
            int32_t outcome;
            int st = mc_sample(c, s, &outcome);
            if (st != MC_DONE) { c->err_node = node; *status = st; return -1; }
            int64_t child = mc_child_with_move(c, node, outcome);
            if (child < 0) return mc_expand(c, node, outcome, status);
            node = child;
            continue;
        }
        if (nd->nmoves < 0 || nd->expanded < nd->nmoves) {
            int32_t moves[G_MAX_MOVES];
            int n = g_legal(s, moves, &c->err);
            if (n < 0) { c->err_node = node; *status = MC_ERROR; return -1; }
            if (n == 0) { c->err_node = node; *status = MC_DEAD_END; return -1; }
            c->nodes[node].nmoves = n;
            int k = c->nodes[node].expanded;
            if (k < n) return mc_expand(c, node, moves[k], status);
        }
        node = mc_best_child(c, node);
    }
}

static int mc_simulate(mc_ctx *c, int64_t node, double *returns) {
    g_cell s[G_STATE_LEN];
    memcpy(s, c->states + node * G_STATE_LEN, sizeof(g_cell) * G_STATE_LEN);
    c->nplayed = 0;
    if (c->heuristic_rollout) {
        int h = g_heuristic(s, returns, &c->err);
        if (h < 0) goto fail;
        if (h > 0) return MC_DONE;
    }
    int32_t moves[G_MAX_MOVES];
    for (int32_t steps = 0; steps < c->max_rollout; steps++) {
        int p = g_to_move(s, &c->err);
        int32_t move;
        if (p == GDL_ERROR) goto fail;
        if (p == GDL_TERMINAL) {
            c->nodes_count += steps;
            if (g_utilities(s, returns, &c->err) < 0) goto fail;
            return MC_DONE;
        }
        if (p == GDL_CHANCE) {
            int st = mc_sample(c, s, &move);
            if (st != MC_DONE) {
                c->err_node = node;
                memcpy(c->err_state, s, sizeof s);
                return st;
            }
        } else {
            int n = g_legal(s, moves, &c->err);
            if (n < 0) goto fail;
            if (n == 0) {
                c->err_node = node;
                memcpy(c->err_state, s, sizeof s);
                return MC_DEAD_END;
            }
            int i = (int)(mc_random(c) * n);
            move = moves[i < n ? i : n - 1];
        }
        c->played[c->nplayed++] = move;
        if (g_apply(s, move, &c->err) < 0) goto fail;
    }
    c->nodes_count += c->max_rollout;
    {
        int p = g_to_move(s, &c->err);
        if (p == GDL_ERROR) goto fail;
        if (p == GDL_TERMINAL) return g_utilities(s, returns, &c->err) < 0 ? (c->err_node = node, MC_ERROR) : MC_DONE;
        int h = g_heuristic(s, returns, &c->err);
        if (h < 0) goto fail;
        if (!h)
            for (int i = 0; i < G_PLAYERS; i++) returns[i] = 0.0;
    }
    return MC_DONE;
fail:
    c->err_node = node;
    return MC_ERROR;
}

/* MCTS-Solver: the proven value of a node from its children's, into proof[]; 1 if proven. */
static int mc_proof(mc_ctx *c, int64_t node) {
    mc_node *nd = &c->nodes[node];
    double *out = c->proof + node * G_PLAYERS;
    if (nd->player == GDL_TERMINAL) return 0;
    if (nd->player == GDL_CHANCE) {
        int32_t outcomes[G_MAX_OUTCOMES];
        double probs[G_MAX_OUTCOMES];
        gdl_error e = {0, 0, 0, 0};
        int n = g_chance(c->states + node * G_STATE_LEN, outcomes, probs, &e);
        if (n <= 0 || nd->expanded < n) return 0;
        double total[G_PLAYERS];
        for (int p = 0; p < G_PLAYERS; p++) total[p] = 0.0;
        for (int i = 0; i < n; i++) {
            int64_t ch = mc_child_with_move(c, node, outcomes[i]);
            if (ch < 0 || !c->nodes[ch].proven) return 0;
            for (int p = 0; p < G_PLAYERS; p++) total[p] += probs[i] * c->proof[ch * G_PLAYERS + p];
        }
        memcpy(out, total, sizeof total);
        return 1;
    }
    int player = nd->player;
    if (c->has_bounds)
        for (int64_t ch = nd->first_child; ch >= 0; ch = c->nodes[ch].next_sibling)
            if (c->nodes[ch].proven && c->proof[ch * G_PLAYERS + player] >= c->high) {
                memcpy(out, c->proof + ch * G_PLAYERS, sizeof(double) * G_PLAYERS);
                return 1;
            }
    if (nd->nmoves < 0 || nd->expanded < nd->nmoves) return 0;
    int64_t best = -1;
    for (int64_t ch = nd->first_child; ch >= 0; ch = c->nodes[ch].next_sibling) {
        if (!c->nodes[ch].proven) return 0;
        if (best < 0 || c->proof[ch * G_PLAYERS + player] > c->proof[best * G_PLAYERS + player]) best = ch;
    }
    if (best < 0) return 0;
    memcpy(out, c->proof + best * G_PLAYERS, sizeof(double) * G_PLAYERS);
    return 1;
}

static void mc_backpropagate(mc_ctx *c, int64_t node, const double *returns) {
    while (node >= 0) {
        mc_node *nd = &c->nodes[node];
        nd->visits++;
        for (int p = 0; p < G_PLAYERS; p++) c->totals[node * G_PLAYERS + p] += returns[p];
        if (c->solver && !nd->proven) nd->proven = (int8_t)mc_proof(c, node);
        node = nd->parent;
    }
}

/* Runs up to `iterations` iterations, fewer when the root is proven (MC_PROVEN, with the solver) or the
   playouts' node count reaches `stop_nodes` (MC_NODES; 0: no such limit). */
int gdl_mc_run(mc_ctx *c, int64_t iterations, int64_t stop_nodes) {
    double returns[G_PLAYERS];
    for (int64_t it = 0; it < iterations; it++) {
        if (c->solver && c->nodes[0].proven) return MC_PROVEN;
        if (stop_nodes > 0 && c->nodes_count >= stop_nodes) return MC_NODES;
        int status = MC_DONE;
        c->err_node = -1;
        c->nplayed = 0;
        int64_t node = mc_select(c, &status);
        if (node < 0) return status;
        mc_node *nd = &c->nodes[node];
        if (nd->proven) memcpy(returns, c->proof + node * G_PLAYERS, sizeof returns);
        else if (nd->player == GDL_TERMINAL) {
            if (g_utilities(c->states + node * G_STATE_LEN, returns, &c->err) < 0) { c->err_node = node; return MC_ERROR; }
            memcpy(c->proof + node * G_PLAYERS, returns, sizeof returns);
            nd->proven = 1;
        } else {
            status = mc_simulate(c, node, returns);
            if (status != MC_DONE) return status;
        }
        mc_backpropagate(c, node, returns);
        c->iterations++;
    }
    return c->solver && c->nodes[0].proven ? MC_PROVEN : MC_DONE;
}

/* iterations, nodes (expansions and playout steps), tree size */
void gdl_mc_stats(mc_ctx *c, int64_t *out) {
    out[0] = c->iterations;
    out[1] = c->nodes_count;
    out[2] = c->n - 1;
}

/* The root's value (proven, or mean returns) into value[]; returns 1 if proven. *visits gets the root's. */
int gdl_mc_root(mc_ctx *c, double *value, int64_t *visits) {
    mc_node *nd = &c->nodes[0];
    *visits = nd->visits;
    for (int p = 0; p < G_PLAYERS; p++)
        value[p] = nd->proven ? c->proof[p] : nd->visits ? c->totals[p] / (double)nd->visits : 0.0;
    return nd->proven;
}

/* The children of node `node`: moves, visits, values (proven, or mean), proven flags; returns how many. */
int gdl_mc_children(mc_ctx *c, int64_t node, int32_t *moves, int64_t *visits, double *values, int32_t *proven,
                    int cap) {
    int n = 0;
    for (int64_t ch = c->nodes[node].first_child; ch >= 0 && n < cap; ch = c->nodes[ch].next_sibling, n++) {
        mc_node *nd = &c->nodes[ch];
        moves[n] = nd->move;
        visits[n] = nd->visits;
        proven[n] = nd->proven;
        for (int p = 0; p < G_PLAYERS; p++)
            values[n * G_PLAYERS + p] = nd->proven ? c->proof[ch * G_PLAYERS + p]
                                       : nd->visits ? c->totals[ch * G_PLAYERS + p] / (double)nd->visits : 0.0;
    }
    return n;
}

/* The move to play at a node: a proven best child of a proven node; else the most visited (ties: higher mean),
   a proven loss last. -1 without children. */
static int64_t mc_final_child(mc_ctx *c, int64_t node) {
    mc_node *nd = &c->nodes[node];
    int player = nd->player;
    if (nd->first_child < 0) return -1;
    if (nd->proven)
        for (int64_t ch = nd->first_child; ch >= 0; ch = c->nodes[ch].next_sibling)
            if (c->nodes[ch].proven && c->proof[ch * G_PLAYERS + player] >= c->proof[node * G_PLAYERS + player])
                return ch;
    int64_t best = -1;
    int best_ok = 0;
    int64_t best_visits = 0;
    double best_mean = 0;
    for (int64_t ch = nd->first_child; ch >= 0; ch = c->nodes[ch].next_sibling) {
        mc_node *x = &c->nodes[ch];
        int ok = !(x->proven && c->proof[ch * G_PLAYERS + player] <= c->low);
        double mean = x->visits ? c->totals[ch * G_PLAYERS + player] / (double)x->visits : 0.0;
        if (best < 0 || ok > best_ok || (ok == best_ok && (x->visits > best_visits ||
                                                           (x->visits == best_visits && mean > best_mean)))) {
            best = ch; best_ok = ok; best_visits = x->visits; best_mean = mean;
        }
    }
    return best;
}

/* The line of final children from the root (decision and chance nodes alike, to a terminal or a leaf). */
int gdl_mc_line(mc_ctx *c, int32_t *moves, int cap) {
    int n = 0;
    int64_t node = 0;
    while (n < cap && c->nodes[node].player >= 0) {
        node = mc_final_child(c, node);
        if (node < 0) break;
        moves[n++] = c->nodes[node].move;
    }
    return n;
}

void gdl_mc_error(mc_ctx *c, gdl_error *e) { *e = c->err; }

/* Where an error or dead end happened: the tree's moves from the root, then the playout's; their count
   (at most cap). *in_playout: whether the state is a playout's (then state is written), else a tree node's. */
int gdl_mc_path(mc_ctx *c, int32_t *moves, int cap, int64_t *state) {
    int32_t tree[4096];
    int n = 0;
    for (int64_t node = c->err_node; node > 0 && n < 4096; node = c->nodes[node].parent) tree[n++] = c->nodes[node].move;
    int k = 0;
    for (int i = n - 1; i >= 0 && k < cap; i--) moves[k++] = tree[i];
    for (int i = 0; i < c->nplayed && k < cap; i++) moves[k++] = c->played[i];
    gdl_export(c->err_node >= 0 ? c->states + c->err_node * G_STATE_LEN : c->states, state);
    return k;
}
