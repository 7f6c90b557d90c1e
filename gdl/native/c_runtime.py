"""The C helpers every generated game starts with: checked operations that report a rule error and jump to the
function's ``fail`` label (GNU C statement expressions), membership in a constant list, tuple order."""

RUNTIME = r"""
static inline void gdl_pack(const g_cell *s, uint64_t *w);
/* a run of consecutive cells: none equal to v, some equal to v */
static inline int gdl_none_eq(const g_cell *s, int first, int n, int64_t v) {
    for (int i = first; i < first + n; i++) if (s[i] == v) return 0;
    return 1;
}
static inline int gdl_any_eq(const g_cell *s, int first, int n, int64_t v) { return !gdl_none_eq(s, first, n, v); }
/* kept out of its caller: an optimising compiler's time grows faster than a function's size */
#define GDL_NOINLINE __attribute__((noinline))
/* a function that may be compiled in the other unit of a split build (solver/native/units.py): there it has
   external, hidden linkage, defined in the solver unit (GDL_SPLIT) and only declared in the game unit (GDL_SPLIT
   and GDL_GAME_UNIT: the emitter skips its definition there); in one unit, a static function as any other */
#if defined(GDL_SPLIT)
#define GDL_APART __attribute__((visibility("hidden"))) GDL_NOINLINE
#else
#define GDL_APART static GDL_NOINLINE
#endif
/* checked operations: a failure records the rule file's position and jumps to the function's `fail` */
#define GDL_CHECK(v, lo, hi, code, line, col) ({ int64_t _c = (v); \
    if (_c < (lo) || _c > (hi)) { gdl_fail(e, code, line, col, _c); goto fail; } _c; })
#define GDL_SOME(v, line, col) ({ int64_t _c = (v); \
    if (_c == -1) { gdl_fail(e, GDL_E_NONE, line, col, 0); goto fail; } _c; })
#define GDL_ADD(a, b, line, col) ({ int64_t _r; if (__builtin_add_overflow((int64_t)(a), (int64_t)(b), &_r)) \
    { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } _r; })
#define GDL_SUB(a, b, line, col) ({ int64_t _r; if (__builtin_sub_overflow((int64_t)(a), (int64_t)(b), &_r)) \
    { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } _r; })
#define GDL_MUL(a, b, line, col) ({ int64_t _r; if (__builtin_mul_overflow((int64_t)(a), (int64_t)(b), &_r)) \
    { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } _r; })
#define GDL_NEG(a, line, col) GDL_SUB(0, a, line, col)
/* |a|: of the smallest int64 it is 2^63, past 64 bits (a rule error, not the negative number it wraps to) */
#define GDL_ABS(a, line, col) ({ int64_t _x = (a); \
    if (_x == INT64_MIN) { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } _x < 0 ? -_x : _x; })
/* Python's floor division and modulo; a zero divisor is a rule error */
#define GDL_FLOORDIV(a, b, line, col) ({ int64_t _a = (a), _b = (b); \
    if (_b == 0) { gdl_fail(e, GDL_E_DIVISION, line, col, 0); goto fail; } \
    if (_a == INT64_MIN && _b == -1) { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } \
    int64_t _q = _a / _b; if ((_a % _b != 0) && ((_a < 0) != (_b < 0))) _q--; _q; })
#define GDL_MOD(a, b, line, col) ({ int64_t _a = (a), _b = (b); \
    if (_b == 0) { gdl_fail(e, GDL_E_DIVISION, line, col, 0); goto fail; } \
    int64_t _m = _b == -1 ? 0 : _a % _b; if (_m != 0 && ((_m < 0) != (_b < 0))) _m += _b; _m; })
/* Exact fractions (`/`, real numbers) as in Python's Fraction: lowest terms, a positive denominator, each part
   within 64 bits (past that a rule error, GDL_E_OVERFLOW, as for whole numbers); the products in 128 bits. */
typedef struct { int64_t n, d; } gdl_q;
static inline int gdl_q_make(__int128 n, __int128 d, gdl_q *r) {
    if (d < 0) { n = -n; d = -d; }
    __int128 a = n < 0 ? -n : n, b = d;
    while (b) { __int128 t = a % b; a = b; b = t; }
    if (a > 1) { n /= a; d /= a; }
    if (n > INT64_MAX || n < -INT64_MAX || d > INT64_MAX) return 1;
    r->n = (int64_t)n; r->d = (int64_t)d;
    return 0;
}
#define GDL_QMAKE(num, den, line, col) ({ gdl_q _r; if (gdl_q_make((num), (den), &_r)) \
    { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } _r; })
#define GDL_QINT(v, line, col) GDL_QMAKE((__int128)(int64_t)(v), 1, line, col)
#define GDL_QADD(a, b, line, col) ({ gdl_q _x = (a), _y = (b); \
    GDL_QMAKE((__int128)_x.n * _y.d + (__int128)_y.n * _x.d, (__int128)_x.d * _y.d, line, col); })
#define GDL_QSUB(a, b, line, col) ({ gdl_q _x = (a), _y = (b); \
    GDL_QMAKE((__int128)_x.n * _y.d - (__int128)_y.n * _x.d, (__int128)_x.d * _y.d, line, col); })
#define GDL_QMUL(a, b, line, col) ({ gdl_q _x = (a), _y = (b); \
    GDL_QMAKE((__int128)_x.n * _y.n, (__int128)_x.d * _y.d, line, col); })
#define GDL_QDIV(a, b, line, col) ({ gdl_q _x = (a), _y = (b); \
    if (_y.n == 0) { gdl_fail(e, GDL_E_DIVISION, line, col, 0); goto fail; } \
    GDL_QMAKE((__int128)_x.n * _y.d, (__int128)_x.d * _y.n, line, col); })
#define GDL_QNEG(a) ({ gdl_q _x = (a); _x.n = -_x.n; _x; })
static inline int gdl_q_cmp(gdl_q a, gdl_q b) {
    __int128 l = (__int128)a.n * b.d, r = (__int128)b.n * a.d;
    return (l > r) - (l < r);
}
/* A fraction as a double, rounded as Python's float(Fraction) is: exact operands below 2^53 make IEEE division
   correctly rounded; larger parts are a rule error here (GDL_E_OVERFLOW), not a differently rounded value. */
#define GDL_QDBL(a, line, col) ({ gdl_q _x = (a); \
    if (_x.n > (1LL << 53) || _x.n < -(1LL << 53) || _x.d > (1LL << 53)) \
    { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } (double)_x.n / (double)_x.d; })
static inline int gdl_member(int64_t v, const int64_t *items, int n) {
    for (int i = 0; i < n; i++) if (items[i] == v) return 1;
    return 0;
}
static inline int gdl_less(const g_cell *a, const g_cell *b, int n) {
    for (int i = 0; i < n; i++) if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}
"""
