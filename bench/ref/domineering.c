/* Reference solver: Domineering on a ROWS x COLS board, by hand (plain arrays, no bitboards): negamax
 * alpha-beta with a transposition table (Zobrist hashing, always-replace, the board kept to confirm a hit).
 * The player who cannot place a domino loses. Usage: domineering ROWS COLS FIRST (FIRST: v or h, who
 * moves first; vertical dominoes cover (r,c),(r+1,c)). Prints the value for the first player and nodes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 8
static int R, C;
static int8_t board[MAXN][MAXN];
static uint64_t zob[MAXN][MAXN], zside;
static long long nodes;

typedef struct { uint64_t hash; int8_t used, lo, hi, side; int8_t cells[MAXN * MAXN]; } entry;
static entry *tt;
static uint64_t tt_mask;

static uint64_t rnd(void) {
    static uint64_t x = 0x9e3779b97f4a7c15ULL;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return x;
}

/* side 0: vertical, 1: horizontal */
static int negamax(int side, int alpha, int beta, uint64_t hash) {
    nodes++;
    entry *e = &tt[hash & tt_mask];
    int alpha0 = alpha;
    if (e->used && e->hash == hash && e->side == side && memcmp(e->cells, board, sizeof e->cells) == 0) {
        if (e->lo == e->hi || e->lo >= beta) return e->lo;
        if (e->hi <= alpha) return e->hi;
    }
    int dr = side == 0, dc = side == 1, best = -2, any = 0;
    for (int r = 0; r + dr < R && best < beta; r++)
        for (int c = 0; c + dc < C && best < beta; c++) {
            if (board[r][c] || board[r + dr][c + dc]) continue;
            any = 1;
            board[r][c] = board[r + dr][c + dc] = 1;
            int v = -negamax(1 - side, -beta, -(alpha > best ? alpha : best),
                             hash ^ zob[r][c] ^ zob[r + dr][c + dc] ^ zside);
            board[r][c] = board[r + dr][c + dc] = 0;
            if (v > best) best = v;
        }
    if (!any) best = -1;
    e->hash = hash;
    e->used = 1;
    e->side = (int8_t)side;
    memcpy(e->cells, board, sizeof e->cells);
    e->lo = -1;
    e->hi = 1;
    if (best <= alpha0) e->hi = (int8_t)best;
    else if (best >= beta) e->lo = (int8_t)best;
    else e->lo = e->hi = (int8_t)best;
    return best;
}

int main(int argc, char **argv) {
    R = argc > 1 ? atoi(argv[1]) : 6;
    C = argc > 2 ? atoi(argv[2]) : 6;
    int first = argc > 3 && argv[3][0] == 'h';
    if (R < 1 || R > MAXN || C < 1 || C > MAXN) return 2;
    for (int r = 0; r < MAXN; r++)
        for (int c = 0; c < MAXN; c++) zob[r][c] = rnd();
    zside = rnd();
    tt_mask = (1ULL << 20) - 1;
    tt = calloc(tt_mask + 1, sizeof(entry));
    if (!tt) return 3;
    int v = negamax(first, -1, 1, 0);
    printf("domineering %dx%d first %s value %d nodes %lld\n", R, C, first ? "h" : "v", v, nodes);
    return 0;
}
