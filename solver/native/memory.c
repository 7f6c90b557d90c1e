/* Zeroed memory for the solvers' large tables (negamax.c's transposition table, graph.c's buckets and marks).
 *
 * They are probed at random, so with 4 kB pages nearly every page faults twice (its first read maps the shared
 * zero page, its first write copies it): m,n,k 4,4,4 spent a third of its solve there. On Linux a table of 2 MB
 * or more is mapped on its own, aligned to 2 MB and marked for transparent huge pages (when the kernel gives them
 * on request, its usual setting): a few dozen faults. One write to each 2 MB region first (up to touch_limit
 * bytes: a bigger table is left to fault in as it is used) makes each a huge page, which a read would map as
 * the shared zero page and a write then split into small ones. Stockfish maps its table the same way.
 * Elsewhere, or if the mapping fails: calloc.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define GDL_HUGE_PAGE ((size_t)2 << 20)

/* *mapped: the length mapped (0: calloc'd), for gdl_table_free. */
static void *gdl_table_alloc(size_t bytes, size_t touch_limit, size_t *mapped) {
    *mapped = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= GDL_HUGE_PAGE) {
        size_t len = (bytes + GDL_HUGE_PAGE - 1) / GDL_HUGE_PAGE * GDL_HUGE_PAGE;
        char *p = mmap(NULL, len + GDL_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            char *a = (char *)(((uintptr_t)p + GDL_HUGE_PAGE - 1) & ~(uintptr_t)(GDL_HUGE_PAGE - 1));
            if (a > p) munmap(p, (size_t)(a - p));
            if (p + len + GDL_HUGE_PAGE > a + len) munmap(a + len, (size_t)(p + len + GDL_HUGE_PAGE - (a + len)));
            madvise(a, len, MADV_HUGEPAGE); /* (advice: refused, the table has small pages) */
            if (len <= touch_limit)
                for (size_t off = 0; off < len; off += GDL_HUGE_PAGE) ((volatile char *)a)[off] = 0;
            *mapped = len;
            return a;
        }
    }
#endif
    (void)touch_limit;
    return calloc(1, bytes);
}

static void gdl_table_free(void *p, size_t mapped) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (mapped) {
        munmap(p, mapped);
        return;
    }
#endif
    (void)mapped;
    free(p);
}
