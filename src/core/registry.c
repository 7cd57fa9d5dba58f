/* The sets of live records: see registry.h. */
#include "registry.h"

#include "fault.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define STRIPES 64

/* An open-addressed table of addresses (NULL: empty slot), linear probing,
   at most half full; removal shifts the run back, so there are no tombstones. */
typedef struct stripe {
    pthread_mutex_t lock;
    const void **slots;
    size_t cap, count; /* cap: 0 or a power of two */
} stripe;

#define STRIPE_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}
#define EIGHT STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT
#define SIXTY_FOUR EIGHT, EIGHT, EIGHT, EIGHT, EIGHT, EIGHT, EIGHT, EIGHT

static stripe sets[CLB__LIVE_KINDS][STRIPES] = {{SIXTY_FOUR}, {SIXTY_FOUR}};

static uint64_t hash_of(const void *p)
{
    return (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
}

static stripe *stripe_of(clb__live_kind kind, uint64_t h)
{
    return &sets[kind][h >> 58]; /* the top 6 bits */
}

static size_t home_of(const stripe *s, uint64_t h)
{
    return (size_t)(h >> 20) & (s->cap - 1);
}

/* The slot holding p, or the empty slot where it would go. */
static size_t find(const stripe *s, const void *p, uint64_t h)
{
    size_t i = home_of(s, h);
    while (s->slots[i] && s->slots[i] != p) i = (i + 1) & (s->cap - 1);
    return i;
}

/* Doubles the table (64 slots at first); false when out of host memory. */
static bool grow(stripe *s)
{
    size_t cap = s->cap ? 2 * s->cap : 64;
    const void **slots = calloc(cap, sizeof *slots);
    CLB__FAULT_FREE(slots, CLB__FAULT_HOST_ALLOC);
    if (!slots) return false;
    stripe bigger = {.slots = slots, .cap = cap};
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i]) slots[find(&bigger, s->slots[i], hash_of(s->slots[i]))] = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return true;
}

bool clb__live_add(clb__live_kind kind, const void *p)
{
    uint64_t h = hash_of(p);
    stripe *s = stripe_of(kind, h);
    pthread_mutex_lock(&s->lock);
    bool ok = 2 * (s->count + 1) <= s->cap || grow(s);
    if (ok) {
        size_t i = find(s, p, h);
        if (!s->slots[i]) s->count++;
        s->slots[i] = p;
    }
    pthread_mutex_unlock(&s->lock);
    return ok;
}

bool clb__live_has(clb__live_kind kind, const void *p)
{
    if (!p) return false;
    uint64_t h = hash_of(p);
    stripe *s = stripe_of(kind, h);
    pthread_mutex_lock(&s->lock);
    bool found = s->cap && s->slots[find(s, p, h)] == p;
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* Forgets the entry in slot i (which holds one). Backward shift: later entries
   of the run move into the hole when it lies between their home slot and where
   they sit. Called with the stripe's lock held. */
static void erase_locked(stripe *s, size_t i)
{
    size_t mask = s->cap - 1, hole = i;
    for (size_t j = (i + 1) & mask; s->slots[j]; j = (j + 1) & mask) {
        size_t home = home_of(s, hash_of(s->slots[j]));
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            s->slots[hole] = s->slots[j];
            hole = j;
        }
    }
    s->slots[hole] = NULL;
    s->count--;
}

clb__drop clb__live_drop(clb__live_kind kind, const void *p, bool (*last)(const void *p))
{
    if (!p) return CLB__DROP_NOT_LIVE;
    uint64_t h = hash_of(p);
    stripe *s = stripe_of(kind, h);
    clb__drop result = CLB__DROP_NOT_LIVE;
    pthread_mutex_lock(&s->lock);
    size_t i = s->cap ? find(s, p, h) : 0;
    if (s->cap && s->slots[i] == p) {
        result = CLB__DROP_KEPT;
        if (!last || last(p)) {
            erase_locked(s, i);
            result = CLB__DROP_GONE;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return result;
}

bool clb__live_remove(clb__live_kind kind, const void *p)
{
    return clb__live_drop(kind, p, NULL) == CLB__DROP_GONE;
}
