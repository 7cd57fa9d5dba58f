/* Transparent huge pages for large host-memory storage.
 *
 * Streaming kernels on CPU devices read and write hundreds of MiB per call;
 * with 4 KiB pages every 4 KiB costs a TLB miss and a page walk. Linux backs
 * an anonymous mapping with 2 MiB pages where the mapping asks for it
 * (madvise(MADV_HUGEPAGE)) and the system's policy
 * (/sys/kernel/mm/transparent_hugepage/enabled) is "madvise" or "always".
 * NumPy asks the same for arrays of 4 MiB and more.
 *
 * The hint is advice: where the kernel has no THP, the system says "never",
 * or the platform is not Linux, storage stays on ordinary pages and nothing
 * else changes. CLB_HUGE_PAGES=0 (the context's options) turns it off. */
#ifndef CLB_CORE_HUGE_PAGES_H
#define CLB_CORE_HUGE_PAGES_H

#include <stddef.h>

/* Storage below this size keeps ordinary pages (NumPy's threshold). */
#define CLB__HUGE_PAGES_MIN ((size_t)4 << 20)

/* Asks for huge pages on the 2 MiB-aligned interior of [ptr, ptr + nbytes),
   before its first touch; storage under CLB__HUGE_PAGES_MIN is left alone.
   Returns 1 when the advice was taken, 0 otherwise (the storage is as good,
   on ordinary pages). */
int clb__huge_pages_advise(void *ptr, size_t nbytes);

#endif
