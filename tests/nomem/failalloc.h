/* failalloc.h: refuse the k-th allocation of this program's own code
 * (failalloc.c), to drive the library's out-of-memory paths. */
#ifndef RL_FAILALLOC_H
#define RL_FAILALLOC_H

/* From now on, count this program's allocations (0, 1, ...) and refuse the
 * one of index k (k < 0: none); record the live ones. */
void fa_arm(long k);

/* Stop counting.  Returns whether an allocation was refused; count: the
 * allocations counted, leaked: those made while armed and not yet freed. */
int fa_disarm(long *count, long *leaked);

#endif
