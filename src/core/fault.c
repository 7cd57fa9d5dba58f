/* Fault injection counters (see fault.h). Atomics, because the threads test
   may run in a fault-injection build with nothing armed. */
#include "fault.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_uint armed_kinds;
static atomic_long target;  /* pass number that fails; 0 = disarmed */
static atomic_long passes;  /* passes of armed kinds since arming */
static atomic_int fired = -1; /* kind that fired */

void clb__fault_arm(unsigned kinds, long n)
{
    atomic_store(&target, 0);
    atomic_store(&passes, 0);
    atomic_store(&fired, -1);
    atomic_store(&armed_kinds, n > 0 ? kinds : 0u);
    atomic_store(&target, n > 0 ? n : 0);
}

long clb__fault_passes(void)
{
    return atomic_load(&passes);
}

int clb__fault_fired(void)
{
    return atomic_load(&fired);
}

bool clb__fault_hit(clb__fault_kind kind)
{
    if (!(atomic_load(&armed_kinds) & (1u << kind))) return false;
    long t = atomic_load(&target);
    if (t <= 0) return false;
    if (atomic_fetch_add(&passes, 1) + 1 != t) return false;
    atomic_store(&fired, (int)kind);
    return true;
}

bool clb__fault_force_index64(void)
{
    /* Read once per process (a test-build knob, not a per-context option). */
    static atomic_int cached = -1;
    int v = atomic_load(&cached);
    if (v < 0) {
        const char *e = getenv("CLB_TEST_INDEX64");
        v = e && e[0] && e[0] != '0';
        atomic_store(&cached, v);
    }
    return v != 0;
}
