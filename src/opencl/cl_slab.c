/* Slabs of small SVM storage: see slab.h. */
#include "cl_slab.h"

#include "cl_buffer.h"
#include "cl_errors.h"
#include "fault.h"
#include "internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Chunks are multiples of UNIT bytes (the pool's small size classes are too),
   one list of slabs with room per chunk size. */
#define UNIT ((size_t)512)
#define CLASSES (CLB__SLAB_MAX / UNIT)
/* A slab holds at least 16 chunks and 64 KiB: 128 chunks of 512 bytes, 16 of
   64 KiB. 100,000 live 512-byte blocks take 782 slabs, so PoCL's list stays short. */
#define SLAB_MIN_CHUNKS 16
#define SLAB_MIN_BYTES ((size_t)64 << 10)

typedef struct slab {
    cl_mem mem;                /* the SVM buffer the chunks are sub-buffers of */
    size_t chunk;              /* bytes per chunk */
    uint32_t count, nfree;     /* chunks, and how many are free */
    struct slab *prev, *next;  /* the slabs of this chunk size with room */
    struct slab *hnext;        /* the next slab of the same hash bucket */
    uint32_t free_idx[];       /* a stack of the free chunks' indices */
} slab;

struct clb__slabs {
    pthread_mutex_t lock;
    size_t unit;               /* chunk granularity: UNIT, or the device's alignment if larger */
    slab *room[CLASSES];       /* per chunk size, the slabs with a free chunk */
    slab **buckets;            /* slabs by their buffer, for clb__slab_free */
    size_t nbuckets, count;
};

clb__slabs *clb__slabs_create(size_t align)
{
    /* A device wanting sub-buffers aligned beyond 4 KiB gets no slabs. */
    if (align > 4096) return NULL;
    clb__slabs *s = calloc(1, sizeof *s);
    CLB__FAULT_FREE(s, CLB__FAULT_HOST_ALLOC);
    if (!s) return NULL;
    s->unit = align > UNIT ? align : UNIT;
    s->nbuckets = 64;
    s->buckets = calloc(s->nbuckets, sizeof *s->buckets);
    if (!s->buckets || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s->buckets);
        free(s);
        return NULL;
    }
    return s;
}

void clb__slabs_destroy(clb__slabs *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (slab *b = s->buckets[i], *next; b; b = next) {
            next = b->hnext;
            clReleaseMemObject(b->mem);
            free(b);
        }
    }
    free(s->buckets);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static size_t bucket_of(size_t nbuckets, cl_mem mem)
{
    uint64_t h = (uint64_t)(uintptr_t)mem * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (nbuckets - 1);
}

/* Doubles the table once it holds twice as many slabs as buckets (a failed
   growth keeps the longer chains). Called with the lock held. */
static void grow_locked(clb__slabs *s)
{
    if (s->count < 2 * s->nbuckets) return;
    size_t n = 2 * s->nbuckets;
    slab **nb = calloc(n, sizeof *nb);
    if (!nb) return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (slab *b = s->buckets[i], *next; b; b = next) {
            next = b->hnext;
            size_t k = bucket_of(n, b->mem);
            b->hnext = nb[k];
            nb[k] = b;
        }
    }
    free(s->buckets);
    s->buckets = nb;
    s->nbuckets = n;
}

static slab *lookup_locked(clb__slabs *s, cl_mem mem)
{
    slab *b = s->buckets[bucket_of(s->nbuckets, mem)];
    while (b && b->mem != mem) b = b->hnext;
    return b;
}

static void unhash_locked(clb__slabs *s, slab *b)
{
    slab **p = &s->buckets[bucket_of(s->nbuckets, b->mem)];
    while (*p != b) p = &(*p)->hnext;
    *p = b->hnext;
    s->count--;
}

static slab **room_of(clb__slabs *s, size_t chunk)
{
    return &s->room[chunk / UNIT - 1];
}

static void link_room_locked(clb__slabs *s, slab *b)
{
    slab **head = room_of(s, b->chunk);
    b->prev = NULL;
    b->next = *head;
    if (*head) (*head)->prev = b;
    *head = b;
}

static void unlink_room_locked(clb__slabs *s, slab *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        *room_of(s, b->chunk) = b->next;
    if (b->next) b->next->prev = b->prev;
    b->prev = b->next = NULL;
}

/* Pops a free chunk of b (which has one); a full slab leaves its room list. */
static uint32_t take_locked(clb__slabs *s, slab *b)
{
    uint32_t idx = b->free_idx[--b->nfree];
    if (b->nfree == 0) unlink_room_locked(s, b);
    return idx;
}

/* Pushes chunk idx back; returns b when it is now empty and has left the set
   (the caller releases it outside the lock), else NULL. */
static slab *put_locked(clb__slabs *s, slab *b, uint32_t idx)
{
    if (b->nfree == 0) link_room_locked(s, b);
    b->free_idx[b->nfree++] = idx;
    if (b->nfree < b->count) return NULL;
    unlink_room_locked(s, b);
    unhash_locked(s, b);
    return b;
}

/* A new slab of chunk-sized chunks, all free, not yet in the set. */
static clb_status new_slab(const clb__buffer_env *env, size_t chunk, slab **out)
{
    size_t count = SLAB_MIN_BYTES / chunk;
    if (count < SLAB_MIN_CHUNKS) count = SLAB_MIN_CHUNKS;
    slab *b = malloc(sizeof *b + count * sizeof b->free_idx[0]);
    CLB__FAULT_FREE(b, CLB__FAULT_HOST_ALLOC);
    if (!b) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a storage slab");
    clb_status st = clb__buffer_alloc(env, count * chunk, &b->mem);
    if (st != CLB_OK) {
        free(b);
        return st;
    }
    b->chunk = chunk;
    b->count = b->nfree = (uint32_t)count;
    b->prev = b->next = b->hnext = NULL;
    /* the lowest chunks first */
    for (uint32_t i = 0; i < b->count; i++) b->free_idx[i] = b->count - 1 - i;
    *out = b;
    return CLB_OK;
}

/* A chunk of a slab of this size: one with room, or a new one. */
static clb_status take_chunk(clb__slabs *s, const clb__buffer_env *env, size_t chunk, slab **out,
                             uint32_t *idx)
{
    pthread_mutex_lock(&s->lock);
    slab *b = *room_of(s, chunk);
    if (b) *idx = take_locked(s, b);
    pthread_mutex_unlock(&s->lock);
    if (!b) {
        clb_status st = new_slab(env, chunk, &b);
        if (st != CLB_OK) return st;
        pthread_mutex_lock(&s->lock);
        size_t k = bucket_of(s->nbuckets, b->mem);
        b->hnext = s->buckets[k];
        s->buckets[k] = b;
        s->count++;
        grow_locked(s);
        link_room_locked(s, b);
        *idx = take_locked(s, b);
        pthread_mutex_unlock(&s->lock);
    }
    *out = b;
    return CLB_OK;
}

/* Gives chunk idx of b back, releasing b once it is empty. */
static void give_back(clb__slabs *s, slab *b, uint32_t idx)
{
    pthread_mutex_lock(&s->lock);
    slab *dead = put_locked(s, b, idx);
    pthread_mutex_unlock(&s->lock);
    if (dead) {
        /* the SVM memory goes once the sub-buffers that still exist (an
           application may hold one) are gone: each retains its parent */
        clReleaseMemObject(dead->mem);
        free(dead);
    }
}

clb_status clb__slab_alloc(clb__slabs *s, const clb__buffer_env *env, size_t nbytes, cl_mem *out)
{
    *out = NULL;
    size_t want = nbytes ? nbytes : 1;
    size_t chunk = (want + s->unit - 1) / s->unit * s->unit;
    slab *b = NULL;
    uint32_t idx = 0;
    clb_status st = take_chunk(s, env, chunk, &b, &idx);
    if (st != CLB_OK) return st;
    cl_buffer_region region = {(size_t)idx * chunk, want};
    cl_int err = CL_SUCCESS;
    cl_mem mem = CLB__FAULT(CLB__FAULT_BUFFER)
                     ? (err = CL_MEM_OBJECT_ALLOCATION_FAILURE, NULL)
                     : clCreateSubBuffer(b->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                         &region, &err);
    if (err != CL_SUCCESS || !mem) {
        if (mem) clReleaseMemObject(mem);
        give_back(s, b, idx);
        return clb__cl_fail(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES, "clCreateSubBuffer");
    }
    *out = mem;
    return CLB_OK;
}

bool clb__slab_free(clb__slabs *s, cl_mem mem)
{
    cl_mem parent = NULL;
    size_t origin = 0;
    if (!s || clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) !=
                  CL_SUCCESS ||
        !parent ||
        clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof origin, &origin, NULL) != CL_SUCCESS)
        return false;
    pthread_mutex_lock(&s->lock);
    slab *b = lookup_locked(s, parent);
    pthread_mutex_unlock(&s->lock);
    if (!b) return false;
    clReleaseMemObject(mem);
    give_back(s, b, (uint32_t)(origin / b->chunk));
    return true;
}
