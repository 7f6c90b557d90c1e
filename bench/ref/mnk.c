/* Reference solver: the m,n,k-game (k in a row on an m x n board, tic-tac-toe is 3,3,3), by hand (plain
 * arrays): negamax alpha-beta with a transposition table (Zobrist hashing, always-replace, the board kept
 * to confirm a hit), centre-first move ordering, the win checked around the last mark only.
 * Usage: mnk M N K. Prints the value for the first player and nodes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 8
static int M, N, K;
static int8_t board[MAXN][MAXN];
static uint64_t zob[MAXN][MAXN][2];
static long long nodes;
static int order[MAXN * MAXN][2];

typedef struct { uint64_t hash; int8_t used, lo, hi; int8_t cells[MAXN * MAXN]; } entry;
static entry *tt;
static uint64_t tt_mask;

static uint64_t rnd(void) {
    static uint64_t x = 0x9e3779b97f4a7c15ULL;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return x;
}

static int count_dir(int r, int c, int dr, int dc, int p) {
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < M && c >= 0 && c < N && board[r][c] == p; r += dr, c += dc) n++;
    return n;
}

static int wins(int r, int c, int p) {
    static const int d[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int k = 0; k < 4; k++)
        if (1 + count_dir(r, c, d[k][0], d[k][1], p) + count_dir(r, c, -d[k][0], -d[k][1], p) >= K) return 1;
    return 0;
}

static int negamax(int player, int left, int alpha, int beta, uint64_t hash) {
    nodes++;
    if (left == 0) return 0;
    for (int i = 0; i < M * N; i++) {
        int r = order[i][0], c = order[i][1];
        if (!board[r][c] && wins(r, c, player)) return 1;
    }
    entry *e = &tt[hash & tt_mask];
    int alpha0 = alpha;
    if (e->used && e->hash == hash && memcmp(e->cells, board, sizeof e->cells) == 0) {
        if (e->lo == e->hi || e->lo >= beta) return e->lo;
        if (e->hi <= alpha) return e->hi;
    }
    int best = -2;
    for (int i = 0; i < M * N && best < beta; i++) {
        int r = order[i][0], c = order[i][1];
        if (board[r][c]) continue;
        board[r][c] = (int8_t)player;
        int v = -negamax(3 - player, left - 1, -beta, -(alpha > best ? alpha : best), hash ^ zob[r][c][player - 1]);
        board[r][c] = 0;
        if (v > best) best = v;
    }
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
    M = argc > 1 ? atoi(argv[1]) : 4;
    N = argc > 2 ? atoi(argv[2]) : 4;
    K = argc > 3 ? atoi(argv[3]) : 4;
    if (M < 1 || M > MAXN || N < 1 || N > MAXN || K < 1) return 2;
    for (int r = 0; r < MAXN; r++)
        for (int c = 0; c < MAXN; c++) zob[r][c][0] = rnd(), zob[r][c][1] = rnd();
    /* centre first: cells by distance from the centre */
    int n = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) order[n][0] = r, order[n][1] = c, n++;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            double a = (order[j][0] - (M - 1) / 2.0) * (order[j][0] - (M - 1) / 2.0)
                     + (order[j][1] - (N - 1) / 2.0) * (order[j][1] - (N - 1) / 2.0);
            double b = (order[j - 1][0] - (M - 1) / 2.0) * (order[j - 1][0] - (M - 1) / 2.0)
                     + (order[j - 1][1] - (N - 1) / 2.0) * (order[j - 1][1] - (N - 1) / 2.0);
            if (a >= b) break;
            int t0 = order[j][0], t1 = order[j][1];
            order[j][0] = order[j - 1][0], order[j][1] = order[j - 1][1];
            order[j - 1][0] = t0, order[j - 1][1] = t1;
        }
    tt_mask = (1ULL << 20) - 1;
    tt = calloc(tt_mask + 1, sizeof(entry));
    if (!tt) return 3;
    int v = negamax(1, M * N, -1, 1, 0);
    printf("mnk %d,%d,%d value %d nodes %lld\n", M, N, K, v, nodes);
    return 0;
}
