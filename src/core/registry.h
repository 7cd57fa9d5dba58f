/* The records handed to the application that are alive: tensors and contexts,
 * by address (issue 26, finding 16). A public function asks the set before it
 * reads a record, so a double release or a use after release is an error that
 * names the function, and nothing reads freed memory (AddressSanitizer agrees).
 *
 * One set per kind of record, each split into stripes with a lock of their own
 * (64): an insert, lookup or removal locks one stripe and probes an open-
 * addressed table, tens of nanoseconds, and threads working on different
 * tensors rarely meet on a lock.
 *
 * A limit that no check of a pointer can lift: once a record is freed, the
 * allocator may hand its address to a later record, and a stale pointer then
 * names that one. */
#ifndef CLB_REGISTRY_H
#define CLB_REGISTRY_H

#include <stdbool.h>

typedef enum clb__live_kind { CLB__LIVE_TENSOR = 0, CLB__LIVE_CONTEXT, CLB__LIVE_KINDS } clb__live_kind;

/* Records p as alive; false when there is no host memory for it. */
bool clb__live_add(clb__live_kind kind, const void *p);
/* Forgets p; false when it was not alive. */
bool clb__live_remove(clb__live_kind kind, const void *p);
/* For a release: when p is alive, calls last(p) under the set's lock (p cannot
   go meanwhile) and forgets p when it returns true (the last reference went).
   One lock instead of a lookup and a removal. */
typedef enum clb__drop { CLB__DROP_NOT_LIVE = 0, CLB__DROP_KEPT, CLB__DROP_GONE } clb__drop;
clb__drop clb__live_drop(clb__live_kind kind, const void *p, bool (*last)(const void *p));
/* Whether p is alive. NULL never is. */
bool clb__live_has(clb__live_kind kind, const void *p);

#endif /* CLB_REGISTRY_H */
