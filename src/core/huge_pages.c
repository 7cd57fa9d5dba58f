/* Transparent huge pages for large host-memory storage (huge_pages.h). */
#include "huge_pages.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

int clb__huge_pages_advise(void *ptr, size_t nbytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!ptr || nbytes < CLB__HUGE_PAGES_MIN) return 0;
    const uintptr_t lo = ((uintptr_t)ptr + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const uintptr_t hi = ((uintptr_t)ptr + nbytes) & ~(HUGE_PAGE - 1);
    if (hi <= lo) return 0;
    /* EINVAL where the kernel has no THP: the storage keeps ordinary pages. */
    return madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE) == 0;
#else
    (void)ptr, (void)nbytes;
    return 0;
#endif
}
