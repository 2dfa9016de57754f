/* failalloc.c: malloc, calloc and realloc of this test program, which can
 * refuse the k-th allocation that the program's own code makes
 * (docs/library-robustness.md#out-of-memory).
 *
 * The program links libroutelab statically (libroutelab.a), so every
 * allocation the library makes is a call from this executable's text, which
 * runs from __executable_start to etext (the linker's symbols).  Only those
 * are counted and refused: GSL's, OpenBLAS's, libgomp's and libc's own
 * allocations (calls from shared libraries) pass through untouched, so the
 * test exercises routelab's failure paths and nothing else.  Allocations
 * made while armed are also recorded until freed, so that a call that
 * failed can be checked to have freed everything it allocated.
 *
 * Test scaffolding only: the library itself keeps no such state. */
#include "failalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern char __executable_start[], etext[];

static atomic_long refuse_at = -1; /* the index of the allocation to refuse, -1: none */
static atomic_long counted;        /* this program's allocations since fa_arm */
static atomic_int armed, refused;

/* The live allocations made while armed: an open-addressed set of
 * pointers (0 empty, 1 deleted). */
#define FA_SLOTS 65536
static uintptr_t live[FA_SLOTS];
static long nlive;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(uintptr_t p)
{
    return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ULL >> 48) & (FA_SLOTS - 1);
}

static void live_add(void *p)
{
    pthread_mutex_lock(&live_lock);
    size_t i = slot_of((uintptr_t)p);
    while (live[i] > 1)
        i = (i + 1) & (FA_SLOTS - 1);
    live[i] = (uintptr_t)p;
    nlive++;
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(void *p)
{
    pthread_mutex_lock(&live_lock);
    if (nlive > 0)
        for (size_t i = slot_of((uintptr_t)p), k = 0; live[i] != 0 && k < FA_SLOTS; i = (i + 1) & (FA_SLOTS - 1), k++)
            if (live[i] == (uintptr_t)p) {
                live[i] = 1;
                nlive--;
                break;
            }
    pthread_mutex_unlock(&live_lock);
}

/* Whether this allocation, called from ra, is to be refused. */
static int refuse(void *ra)
{
    if (!atomic_load(&armed) || (char *)ra < __executable_start || (char *)ra >= etext)
        return 0;
    long k = atomic_fetch_add(&counted, 1);
    if (k != atomic_load(&refuse_at))
        return 0;
    atomic_store(&refused, 1);
    return 1;
}

static void *track(void *p)
{
    if (p && atomic_load(&armed))
        live_add(p);
    return p;
}

void *malloc(size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return track(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    return track(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
    if (refuse(__builtin_return_address(0)))
        return NULL;
    void *q = __libc_realloc(p, n);
    if (q && p)
        live_remove(p);
    return track(q);
}

void free(void *p)
{
    if (p)
        live_remove(p);
    __libc_free(p);
}

void fa_arm(long k)
{
    pthread_mutex_lock(&live_lock);
    memset(live, 0, sizeof live);
    nlive = 0;
    pthread_mutex_unlock(&live_lock);
    atomic_store(&counted, 0);
    atomic_store(&refused, 0);
    atomic_store(&refuse_at, k);
    atomic_store(&armed, 1);
}

int fa_disarm(long *count, long *leaked)
{
    atomic_store(&armed, 0);
    if (count)
        *count = atomic_load(&counted);
    if (leaked) {
        pthread_mutex_lock(&live_lock);
        *leaked = nlive;
        pthread_mutex_unlock(&live_lock);
    }
    return atomic_load(&refused);
}
