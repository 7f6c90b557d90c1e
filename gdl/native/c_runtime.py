"""The C helpers every generated game starts with: checked operations that report a rule error and jump to the
function's ``fail`` label (GNU C statement expressions), membership in a constant list, tuple order."""

RUNTIME = r"""
static inline void gdl_pack(const g_cell *s, uint64_t *w);
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
/* Python's floor division and modulo; a zero divisor is a rule error */
#define GDL_FLOORDIV(a, b, line, col) ({ int64_t _a = (a), _b = (b); \
    if (_b == 0) { gdl_fail(e, GDL_E_DIVISION, line, col, 0); goto fail; } \
    if (_a == INT64_MIN && _b == -1) { gdl_fail(e, GDL_E_OVERFLOW, line, col, 0); goto fail; } \
    int64_t _q = _a / _b; if ((_a % _b != 0) && ((_a < 0) != (_b < 0))) _q--; _q; })
#define GDL_MOD(a, b, line, col) ({ int64_t _a = (a), _b = (b); \
    if (_b == 0) { gdl_fail(e, GDL_E_DIVISION, line, col, 0); goto fail; } \
    int64_t _m = _b == -1 ? 0 : _a % _b; if (_m != 0 && ((_m < 0) != (_b < 0))) _m += _b; _m; })
static inline int gdl_member(int64_t v, const int64_t *items, int n) {
    for (int i = 0; i < n; i++) if (items[i] == v) return 1;
    return 0;
}
static inline int gdl_less(const g_cell *a, const g_cell *b, int n) {
    for (int i = 0; i < n; i++) if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}
"""
