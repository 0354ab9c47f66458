/* keyed.h - the per-key limit the peers need, built the natural way on top of a plain pool:
   a string-keyed table of key states, each with a FIFO of waiting jobs and a running count.
   Submitting a job to a key below its cap dispatches it to the pool at once; otherwise it is
   appended to the key's FIFO. A job that finishes hands its slot to the key's next job (FIFO order)
   and dispatches it, or decrements the running count when nothing waits.

   The caller does the locking (GLib: one mutex around the table; libuv: none, everything runs on
   the loop thread). Key states stay cached after their last job, like groupconc's groups. */
#ifndef BENCH_KEYED_H_INCLUDED
#define BENCH_KEYED_H_INCLUDED

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct keyed_key keyed_key;

typedef struct keyed_job {
    struct keyed_job *next; /* in its key's FIFO */
    keyed_key *key;
    long id;                /* what the job does (workload-specific) */
} keyed_job;

struct keyed_key {
    keyed_key *hnext;       /* hash chain */
    keyed_job *head, *tail; /* waiting jobs, oldest first */
    int running;
    char name[];
};

typedef struct keyed_table {
    keyed_key **buckets;
    size_t nbuckets; /* power of two */
    size_t count;
} keyed_table;

static inline uint64_t keyed_hash(const char *s) {
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static inline int keyed_table_init(keyed_table *t) {
    t->nbuckets = 64;
    t->count = 0;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    return t->buckets ? 0 : -1;
}

static inline void keyed_table_free(keyed_table *t) {
    for (size_t i = 0; i < t->nbuckets; i++) {
        keyed_key *k = t->buckets[i];
        while (k) {
            keyed_key *n = k->hnext;
            free(k);
            k = n;
        }
    }
    free(t->buckets);
    t->buckets = NULL;
}

static inline void keyed_table_grow(keyed_table *t) {
    size_t nb = t->nbuckets * 2;
    keyed_key **b = calloc(nb, sizeof *b);
    if (!b) return; /* keep the old table: longer chains, still correct */
    for (size_t i = 0; i < t->nbuckets; i++) {
        keyed_key *k = t->buckets[i];
        while (k) {
            keyed_key *n = k->hnext;
            size_t j = (size_t)keyed_hash(k->name) & (nb - 1);
            k->hnext = b[j];
            b[j] = k;
            k = n;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
}

/* The key's state, created on first use; NULL when out of memory. */
static inline keyed_key *keyed_table_get(keyed_table *t, const char *name) {
    size_t i = (size_t)keyed_hash(name) & (t->nbuckets - 1);
    for (keyed_key *k = t->buckets[i]; k; k = k->hnext)
        if (strcmp(k->name, name) == 0) return k;
    size_t len = strlen(name);
    keyed_key *k = malloc(sizeof *k + len + 1);
    if (!k) return NULL;
    memcpy(k->name, name, len + 1);
    k->head = k->tail = NULL;
    k->running = 0;
    k->hnext = t->buckets[i];
    t->buckets[i] = k;
    if (++t->count > t->nbuckets) keyed_table_grow(t);
    return k;
}

/* A new job for key k: returns it if it may run now (dispatch it), NULL if it was queued. */
static inline keyed_job *keyed_admit(keyed_key *k, keyed_job *j, int cap) {
    j->key = k;
    j->next = NULL;
    if (k->running < cap) {
        k->running++;
        return j;
    }
    if (k->tail)
        k->tail->next = j;
    else
        k->head = j;
    k->tail = j;
    return NULL;
}

/* A job of key k finished: returns the key's next job (it takes over the slot: dispatch it), or
   NULL when none waits. */
static inline keyed_job *keyed_finish(keyed_key *k) {
    keyed_job *n = k->head;
    if (n) {
        k->head = n->next;
        if (!k->head) k->tail = NULL;
        n->next = NULL;
        return n;
    }
    k->running--;
    return NULL;
}

#endif
