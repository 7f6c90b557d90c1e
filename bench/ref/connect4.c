/* Reference solver: Connect-Four on a COLS x ROWS board (k = 4), by hand, as a competent programmer would
 * write it in an afternoon: plain arrays (no bitboards), negamax alpha-beta with a transposition table
 * (Zobrist hashing, always-replace, the whole board kept to confirm a hit), centre-first move ordering,
 * the win checked around the last disc only. Usage: connect4 COLS ROWS. Prints the value for the first player
 * (1 win, 0 draw, -1 loss) and the node count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 8
#define MAXR 8
static int C, R;
static int8_t board[MAXR][MAXC];
static int height[MAXC];
static uint64_t zob[MAXR][MAXC][2], zside;
static long long nodes;

typedef struct { uint64_t hash; int8_t used, lo, hi; int8_t cells[MAXR * MAXC]; } entry;
static entry *tt;
static uint64_t tt_mask;

static uint64_t rnd(void) {
    static uint64_t x = 0x9e3779b97f4a7c15ULL;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return x;
}

static int count_dir(int r, int c, int dr, int dc, int p) {
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < R && c >= 0 && c < C && board[r][c] == p; r += dr, c += dc) n++;
    return n;
}

static int wins(int r, int c, int p) {
    static const int d[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int k = 0; k < 4; k++)
        if (1 + count_dir(r, c, d[k][0], d[k][1], p) + count_dir(r, c, -d[k][0], -d[k][1], p) >= 4) return 1;
    return 0;
}

static int order[MAXC];

static int negamax(int player, int moves_left, int alpha, int beta, uint64_t hash) {
    nodes++;
    if (moves_left == 0) return 0;
    for (int i = 0; i < C; i++) {  /* an immediate win */
        int c = order[i];
        if (height[c] < R && wins(height[c], c, player)) return 1;
    }
    entry *e = &tt[hash & tt_mask];
    int alpha0 = alpha;
    if (e->used && e->hash == hash && memcmp(e->cells, board, sizeof e->cells) == 0) {
        if (e->lo == e->hi) return e->lo;
        if (e->lo >= beta) return e->lo;
        if (e->hi <= alpha) return e->hi;
        if (e->lo > alpha) alpha = e->lo;
        if (e->hi < beta) beta = e->hi;
    }
    int best = -2;
    for (int i = 0; i < C && best < beta; i++) {
        int c = order[i];
        if (height[c] >= R) continue;
        int r = height[c]++;
        board[r][c] = (int8_t)player;
        int v = -negamax(3 - player, moves_left - 1, -beta, -(alpha > best ? alpha : best),
                         hash ^ zob[r][c][player - 1] ^ zside);
        board[r][c] = 0;
        height[c]--;
        if (v > best) best = v;
    }
    if (best > alpha) alpha = best;
    e->hash = hash;
    e->used = 1;
    memcpy(e->cells, board, sizeof e->cells);
    e->lo = -1;
    e->hi = 1;
    if (best <= alpha0) e->hi = (int8_t)best;
    else if (best >= beta) e->lo = (int8_t)best;
    else e->lo = e->hi = (int8_t)best;
    return best;
}

int main(int argc, char **argv) {
    C = argc > 1 ? atoi(argv[1]) : 7;
    R = argc > 2 ? atoi(argv[2]) : 6;
    if (C < 1 || C > MAXC || R < 1 || R > MAXR) return 2;
    for (int r = 0; r < MAXR; r++)
        for (int c = 0; c < MAXC; c++) zob[r][c][0] = rnd(), zob[r][c][1] = rnd();
    zside = rnd();
    for (int i = 0; i < C; i++) order[i] = C / 2 + (i % 2 ? (i + 1) / 2 : -(i / 2)) * (C % 2 ? 1 : -1);
    for (int i = 0; i < C; i++) if (order[i] < 0 || order[i] >= C) order[i] = C - 1 - order[i];
    tt_mask = (1ULL << 20) - 1;
    tt = calloc(tt_mask + 1, sizeof(entry));
    if (!tt) return 3;
    int v = negamax(1, C * R, -1, 1, 0);
    printf("connect4 %dx%d value %d nodes %lld\n", C, R, v, nodes);
    return 0;
}
