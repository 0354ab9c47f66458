/* bench_dispatch.c - the libdispatch (GCD) peer, used the way its documentation shows: built only
   with `run.sh --with-dispatch PREFIX` (meson option dispatch_prefix; build_dispatch.sh builds
   swift-corelibs-libdispatch into PREFIX). The plain C API (the *_f functions), no blocks.

   Every task goes through one dispatch_group (dispatch_group_async_f), and waiting for all of them
   is dispatch_group_wait(group, DISPATCH_TIME_FOREVER): GCD's way to "run these and wait".
   - No per-key limit (W1, W6, W7a): dispatch_group_async_f on the default-priority global queue,
     the job number as the context pointer (no allocation per job). The global queue's pool is
     sized by the number of CPUs (libdispatch has no pool-size knob): 2 workers on a 2-CPU machine.
   - Per-key limit 1 (W2, W3, W5, W7b and the curves): a serial queue per key, created on the key's
     first job with dispatch_queue_create_with_target(NULL, DISPATCH_QUEUE_SERIAL, global queue), so
     every key's queue drains on the global queue's pool; jobs dispatch_group_async_f to their key's
     queue. Queues stay cached, like groupconc's groups (a string-keyed table, FNV-1a, chained).
     No label: the key is in the table already (a heap label would be copied: more bytes per queue).
   - Per-key limit above 1, or a global cap (W4, W9): a dispatch_semaphore per key (value = the
     cap) and one for the global cap, waited for by the submitting thread before it dispatches the
     job to the global queue (Apple's "regulate the use of finite resources" idiom); the job signals
     both when it ends. The submitter blocks while a key is at its cap (head-of-line: W9 submits host
     by host), and GCD on Linux adds a worker for blocked ones about once a second, so sleeping
     tasks run ~2 at a time at first.
   Several submitters (W7): the key table takes a mutex; everything else is thread-safe already. */
#ifndef __has_feature /* gcc < 14: the libdispatch headers use clang's feature tests */
#define __has_feature(x) 0
#endif
#ifndef __has_extension
#define __has_extension(x) 0
#endif
#include <dispatch/dispatch.h>

#include "bench.h"
#include "keyed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum { DMODE_PLAIN, DMODE_SERIAL, DMODE_SEM } dmode;

typedef struct dkey {
    struct dkey *hnext;
    union {
        dispatch_queue_t q;       /* DMODE_SERIAL */
        dispatch_semaphore_t sem; /* DMODE_SEM */
    } u;
    char name[];
} dkey;

typedef struct djob { /* DMODE_SEM only: the job must signal its key's semaphore */
    long id;
    dispatch_semaphore_t sem;
} djob;

static bench_cfg cfg;
static dmode mode;
static dispatch_queue_t gq;
static dispatch_group_t group;
static dispatch_semaphore_t gsem; /* global cap (DMODE_SEM), or NULL */
static dkey **buckets;
static size_t nbuckets, count;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static int locked; /* several submitters */

static void plain_fn(void *ctx) { bench_task_body((long)(intptr_t)ctx); }

static void sem_fn(void *ctx) {
    djob *j = ctx;
    bench_task_body(j->id);
    dispatch_semaphore_signal(j->sem);
    if (gsem) dispatch_semaphore_signal(gsem);
    free(j);
}

static void table_grow(void) {
    size_t nb = nbuckets * 2;
    dkey **b = calloc(nb, sizeof *b);
    if (!b) return; /* longer chains, still correct */
    for (size_t i = 0; i < nbuckets; i++) {
        dkey *k = buckets[i];
        while (k) {
            dkey *n = k->hnext;
            size_t j = (size_t)keyed_hash(k->name) & (nb - 1);
            k->hnext = b[j];
            b[j] = k;
            k = n;
        }
    }
    free(buckets);
    buckets = b;
    nbuckets = nb;
}

/* The key's queue or semaphore, created on first use; NULL when out of memory. */
static dkey *key_get(const char *name) {
    size_t i = (size_t)keyed_hash(name) & (nbuckets - 1);
    for (dkey *k = buckets[i]; k; k = k->hnext)
        if (strcmp(k->name, name) == 0) return k;
    size_t len = strlen(name);
    dkey *k = malloc(sizeof *k + len + 1);
    if (!k) return NULL;
    memcpy(k->name, name, len + 1);
    if (mode == DMODE_SERIAL)
        k->u.q = dispatch_queue_create_with_target(NULL, DISPATCH_QUEUE_SERIAL, gq);
    else
        k->u.sem = dispatch_semaphore_create(cfg.cap);
    if (!k->u.q) {
        free(k);
        return NULL;
    }
    k->hnext = buckets[i];
    buckets[i] = k;
    if (++count > nbuckets) table_grow();
    return k;
}

static int d_setup(const bench_cfg *c, bench_out *out) {
    cfg = *c;
    gq = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    group = dispatch_group_create();
    if (!gq || !group) {
        bench_fail(out, "dispatch_get_global_queue / dispatch_group_create failed");
        return -1;
    }
    int global = c->global ? c->global : c->run_cap;
    mode = c->cap == 0 ? DMODE_PLAIN : (c->cap == 1 && !global) ? DMODE_SERIAL : DMODE_SEM;
    gsem = mode == DMODE_SEM && global ? dispatch_semaphore_create(global) : NULL;
    locked = c->submitters > 1;
    count = 0;
    nbuckets = 64;
    buckets = mode == DMODE_PLAIN ? NULL : calloc(nbuckets, sizeof *buckets);
    if (mode != DMODE_PLAIN && !buckets) {
        bench_fail(out, "out of memory");
        return -1;
    }
    return 0;
}

static int d_submit(const char *key, long id) {
    if (mode == DMODE_PLAIN) {
        dispatch_group_async_f(group, gq, (void *)(intptr_t)id, plain_fn);
        return 0;
    }
    if (locked) pthread_mutex_lock(&table_mu);
    dkey *k = key_get(key);
    if (locked) pthread_mutex_unlock(&table_mu);
    if (!k) return -1;
    if (mode == DMODE_SERIAL) {
        dispatch_group_async_f(group, k->u.q, (void *)(intptr_t)id, plain_fn);
        return 0;
    }
    djob *j = malloc(sizeof *j);
    if (!j) return -1;
    j->id = id;
    j->sem = k->u.sem;
    dispatch_semaphore_wait(k->u.sem, DISPATCH_TIME_FOREVER); /* key first: never hold a global */
    if (gsem) dispatch_semaphore_wait(gsem, DISPATCH_TIME_FOREVER); /* slot while blocked */
    dispatch_group_async_f(group, gq, j, sem_fn);
    return 0;
}

static int d_wait_all(bench_out *out) {
    (void)out;
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    return 0;
}

static long d_groups(void) { return mode == DMODE_PLAIN ? -1 : (long)count; }

static void d_teardown(void) {
    if (group) {
        dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
        dispatch_release(group);
        group = NULL;
    }
    for (size_t i = 0; buckets && i < nbuckets; i++) {
        dkey *k = buckets[i];
        while (k) {
            dkey *n = k->hnext;
            if (mode == DMODE_SERIAL)
                dispatch_release(k->u.q);
            else
                dispatch_release(k->u.sem);
            free(k);
            k = n;
        }
    }
    free(buckets);
    buckets = NULL;
    nbuckets = count = 0;
    if (gsem) dispatch_release(gsem);
    gsem = NULL;
}

const bench_ops bench_ops_dispatch = {"libdispatch", d_setup,  d_submit,   d_wait_all, NULL,
                                      d_groups,      d_teardown, NULL,     NULL,       NULL};
