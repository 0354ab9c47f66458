/* bench_gate.c - the admission gate's cost (issue 13): one try-acquire + release pair, in ns,
   beside the two things a C programmer would write by hand for "at most N at once, reject beyond":
   a counter under a C11 mutex, and a POSIX semaphore (sem_trywait / sem_post). Uncontended (one
   thread) and with 2 threads hammering the same limit. Every implementation runs in the same
   process, interleaved, RUNS times; the table shows the median [min..max] ns per pair and the
   gate / mutex-counter ratio (target: <= 1.5).

   Run: tests/bench/run.sh (after the main table), or build-bench/tests/bench/groupconc-gate-bench
   [pairs per thread] [runs]. Each measured loop also checks what it did: no more than LIMIT
   admitted at once, every admitted attempt released, the final count 0. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

enum { LIMIT = 4, MAX_RUNS = 15, IMPLS = 3, SHAPES = 2 };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the three implementations: try(), release() on shared state ---- */

typedef struct mutex_counter {
    mtx_t lock;
    int in_flight, limit;
} mutex_counter;

static int mc_try(mutex_counter *c) {
    int ok;
    mtx_lock(&c->lock);
    ok = c->in_flight < c->limit;
    if (ok) c->in_flight++;
    mtx_unlock(&c->lock);
    return ok;
}
static void mc_release(mutex_counter *c) {
    mtx_lock(&c->lock);
    c->in_flight--;
    mtx_unlock(&c->lock);
}

typedef struct shared {
    int impl; /* 0 gate, 1 mutex counter, 2 semaphore */
    groupconc_gate *gate;
    mutex_counter mc;
    sem_t sem;
    long pairs;
    atomic_int inside, peak;
    atomic_long admitted, errors;
} shared;

static const char *impl_name[IMPLS] = {"groupconc gate", "C11 mutex + counter", "sem_trywait/sem_post"};

static int one_thread(void *arg) {
    shared *s = (shared *)arg;
    long admitted = 0, errors = 0, i;
    for (i = 0; i < s->pairs; i++) {
        int ok;
        groupconc_permit p;
        switch (s->impl) {
        case 0: ok = groupconc_gate_try_acquire(s->gate, NULL, &p) == GROUPCONC_OK; break;
        case 1: ok = mc_try(&s->mc); break;
        default: ok = sem_trywait(&s->sem) == 0; break;
        }
        if (!ok) continue;
        admitted++;
        if ((i & 1023) == 0) { /* a sampled check that the limit holds (cheap enough not to skew) */
            int in = atomic_fetch_add_explicit(&s->inside, 1, memory_order_relaxed) + 1;
            int pk = atomic_load_explicit(&s->peak, memory_order_relaxed);
            while (in > pk && !atomic_compare_exchange_weak(&s->peak, &pk, in)) {}
            atomic_fetch_sub_explicit(&s->inside, 1, memory_order_relaxed);
        }
        switch (s->impl) {
        case 0:
            if (groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0) != GROUPCONC_OK) errors++;
            break;
        case 1: mc_release(&s->mc); break;
        default: sem_post(&s->sem); break;
        }
    }
    atomic_fetch_add(&s->admitted, admitted);
    atomic_fetch_add(&s->errors, errors);
    return 0;
}

/* ns per pair for one implementation and thread count; negative on a failed check. */
static double measure(int impl, int threads, long pairs) {
    shared s;
    thrd_t th[2];
    groupconc_gate_config cfg;
    uint64_t t0, t1;
    int i, bad = 0;
    memset(&s, 0, sizeof s);
    s.impl = impl;
    s.pairs = pairs;
    memset(&cfg, 0, sizeof cfg);
    cfg.limit = LIMIT;
    if (groupconc_gate_create(&cfg, &s.gate) != GROUPCONC_OK) return -1;
    mtx_init(&s.mc.lock, mtx_plain);
    s.mc.limit = LIMIT;
    sem_init(&s.sem, 0, LIMIT);
    t0 = now_ns();
    for (i = 0; i < threads; i++) thrd_create(&th[i], one_thread, &s);
    for (i = 0; i < threads; i++) thrd_join(th[i], NULL);
    t1 = now_ns();
    {
        groupconc_gate_stats st;
        int sv = -1;
        groupconc_gate_stats_get(s.gate, NULL, &st);
        sem_getvalue(&s.sem, &sv);
        if (atomic_load(&s.errors) || atomic_load(&s.peak) > LIMIT || st.in_flight != 0 ||
            s.mc.in_flight != 0 || sv != LIMIT || atomic_load(&s.admitted) == 0)
            bad = 1;
        if (impl == 0 && st.admitted != (uint64_t)atomic_load(&s.admitted)) bad = 1;
    }
    groupconc_gate_destroy(s.gate);
    mtx_destroy(&s.mc.lock);
    sem_destroy(&s.sem);
    if (bad) return -1;
    return (double)(t1 - t0) / ((double)pairs * threads); /* wall time per pair, all threads */
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    long pairs = argc > 1 ? atol(argv[1]) : 2000000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    static double v[SHAPES][IMPLS][MAX_RUNS], ratio[SHAPES][MAX_RUNS];
    int shape, impl, r, failed = 0, met = 0, missed = 0;
    if (pairs < 1000 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: %s [pairs per thread >= 1000] [runs 1..%d]\n", argv[0], MAX_RUNS);
        return 2;
    }
    for (r = 0; r < runs; r++)
        for (shape = 0; shape < SHAPES; shape++) {
            for (impl = 0; impl < IMPLS; impl++) { /* rotated, so no one always goes first */
                int k = (impl + r) % IMPLS;
                v[shape][k][r] = measure(k, shape + 1, pairs);
                if (v[shape][k][r] < 0) failed++;
            }
            ratio[shape][r] = v[shape][0][r] / v[shape][1][r];
        }
    printf("\nadmission gate: ns per try-acquire + release pair (limit %d; %ld pairs per thread; "
           "median [min..max] of %d runs; 2 CPUs)\n", LIMIT, pairs, runs);
    printf("%-24s | %-26s | %-26s\n", "implementation", "1 thread", "2 threads contending");
    printf("-------------------------+----------------------------+---------------------------\n");
    for (impl = 0; impl < IMPLS; impl++) {
        char cell[SHAPES][64];
        for (shape = 0; shape < SHAPES; shape++) {
            double tmp[MAX_RUNS];
            memcpy(tmp, v[shape][impl], sizeof(double) * (size_t)runs);
            qsort(tmp, (size_t)runs, sizeof(double), cmp_double);
            snprintf(cell[shape], sizeof cell[shape], "%.1f [%.1f..%.1f]", tmp[runs / 2], tmp[0],
                     tmp[runs - 1]);
        }
        printf("%-24s | %-26s | %-26s\n", impl_name[impl], cell[0], cell[1]);
    }
    for (shape = 0; shape < SHAPES; shape++) {
        double tmp[MAX_RUNS], med;
        memcpy(tmp, ratio[shape], sizeof(double) * (size_t)runs);
        qsort(tmp, (size_t)runs, sizeof(double), cmp_double);
        med = tmp[runs / 2];
        if (med <= 1.5) met++;
        else missed++;
        printf("gate / mutex counter, %s: %.2f (median of per-run ratios) -> target <= 1.5: %s\n",
               shape ? "2 threads" : "1 thread ", med, med <= 1.5 ? "MET" : "MISSED");
    }
    printf("gate targets: %d met, %d missed; failed checks: %d\n", met, missed, failed);
    return failed ? 1 : 0;
}
