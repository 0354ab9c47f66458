/* faultutil.h - shared helpers for the fault-injection tests (test_oom, test_thread_fail, test_errors).

   Include it FIRST, in place of groupconc.h: define GROUPCONC_IMPLEMENTATION (and any other hook of
   the implementation TU, e.g. GROUPCONC_TEST_THREAD_START_FAILS) before it, and include nothing
   before it. It points GROUPCONC_MALLOC / GROUPCONC_FREE at its counting allocator, includes
   groupconc.h (so only <stddef.h> precedes the header: no system header may set feature-test macros
   first), and only then the system headers the helpers need. It gives the tests:
     - a thread-safe counting allocator (fault_malloc / fault_free): counts live blocks and, while
       armed, fails the N-th counted allocation. By default only allocations made on the arming thread
       are counted; "any thread" mode counts those of every thread; "sticky" mode makes every counted
       allocation after the first injected failure fail too;
     - counter: a pthread mutex + CLOCK_MONOTONIC condition variable holding a value main can wait on
       (bounded by BOUND_NS) and an `open` flag, so it doubles as a latch that parked tasks wait on;
     - task_park: a task that counts its arrival on a counter, then parks until the latch is opened;
     - deadline_after, cond_init_monotonic, count_cb.

   testutil.h is not used here: its latch counts down on C11 threads (POSIX only under TSan) with a
   30 s bound, while these tests need pthread primitives (they compare pthread_t, wait on a CLOCK_MONOTONIC
   condvar directly) and report failures against a 10 s bound.

   Nothing here asserts: cmocka asserts stay on each test's main thread. */
#ifndef GROUPCONC_FAULTUTIL_H
#define GROUPCONC_FAULTUTIL_H

#if defined(GROUPCONC_H_INCLUDED)
#error "include faultutil.h before groupconc.h: it must define GROUPCONC_MALLOC / GROUPCONC_FREE first"
#endif
#if !defined(GROUPCONC_IMPLEMENTATION)
#error "define GROUPCONC_IMPLEMENTATION before including faultutil.h"
#endif

#include <stddef.h> /* size_t for the two prototypes below; sets no feature-test macros */
static inline void *fault_malloc(size_t size);
static inline void fault_free(void *ptr);
#define GROUPCONC_MALLOC(sz) fault_malloc(sz)
#define GROUPCONC_FREE(p) fault_free(p)
#include "groupconc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* ==== counting allocator ======================================================================= */

static atomic_long fault_g_live;       /* blocks handed out and not yet freed */
static atomic_long fault_g_countdown;  /* > 0: armed; the allocation that takes it from 1 to 0 fails */
static atomic_int fault_g_sticky;      /* after the first injected failure every counted one fails */
static atomic_int fault_g_any_thread;  /* count allocations made on every thread */
static atomic_long fault_g_injected;   /* failures injected since the last arm */
static _Thread_local int fault_tl_armed;

static inline void *fault_malloc(size_t size) {
    if (fault_tl_armed || atomic_load(&fault_g_any_thread)) {
        if (atomic_load(&fault_g_sticky) && atomic_load(&fault_g_injected) > 0) {
            atomic_fetch_add(&fault_g_injected, 1);
            return NULL;
        }
        long c = atomic_load(&fault_g_countdown);
        while (c > 0 && !atomic_compare_exchange_weak(&fault_g_countdown, &c, c - 1)) {
        }
        if (c == 1) {
            atomic_fetch_add(&fault_g_injected, 1);
            return NULL;
        }
    }
    void *p = malloc(size ? size : 1);
    if (p) atomic_fetch_add(&fault_g_live, 1);
    return p;
}

static inline void fault_free(void *ptr) {
    if (!ptr) return;
    atomic_fetch_sub(&fault_g_live, 1);
    free(ptr);
}

/* Fail the n-th counted allocation from now on (counted: this thread's, or every thread's with
   any_thread); with sticky, every counted allocation after that fails too. */
static inline void oom_arm(long n, bool sticky, bool any_thread) {
    atomic_store(&fault_g_injected, 0);
    atomic_store(&fault_g_sticky, sticky ? 1 : 0);
    atomic_store(&fault_g_any_thread, any_thread ? 1 : 0);
    fault_tl_armed = 1;
    atomic_store(&fault_g_countdown, n);
}

/* Returns how many failures were injected while armed. */
static inline long oom_disarm(void) {
    fault_tl_armed = 0;
    atomic_store(&fault_g_any_thread, 0);
    atomic_store(&fault_g_countdown, 0);
    atomic_store(&fault_g_sticky, 0);
    return atomic_load(&fault_g_injected);
}

static inline long live_blocks(void) { return atomic_load(&fault_g_live); }

/* A failed test may leave blocks behind: start the next one from zero so failures do not cascade. */
static inline void live_blocks_reset(void) { atomic_store(&fault_g_live, 0); }

/* ==== time, counter / latch ===================================================================== */

#define BOUND_NS INT64_C(10000000000) /* 10 s: "must finish", never a timing assertion */

/* The clock of cond_init_monotonic's condition variables: CLOCK_MONOTONIC, except with winpthreads
   (mingw-w64), whose condition variables take CLOCK_REALTIME deadlines only (setclock fails). */
#if defined(_WIN32)
#define FAULT_CV_CLOCK CLOCK_REALTIME
#else
#define FAULT_CV_CLOCK CLOCK_MONOTONIC
#endif

/* The FAULT_CV_CLOCK time `ns` from now, for pthread_cond_timedwait on a cond_init_monotonic cv. */
static inline struct timespec deadline_after(int64_t ns) {
    struct timespec ts;
    clock_gettime(FAULT_CV_CLOCK, &ts);
    int64_t total = (int64_t)ts.tv_nsec + ns;
    ts.tv_sec += (time_t)(total / 1000000000);
    ts.tv_nsec = (long)(total % 1000000000);
    return ts;
}

/* Whether the FAULT_CV_CLOCK time `dl` (from deadline_after) has passed: for a bounded poll. Real
   time, not a sum of sleeps (a short nanosleep returns at once under Wine). */
static inline bool deadline_passed(const struct timespec *dl) {
    struct timespec ts;
    clock_gettime(FAULT_CV_CLOCK, &ts);
    return ts.tv_sec > dl->tv_sec || (ts.tv_sec == dl->tv_sec && ts.tv_nsec >= dl->tv_nsec);
}

static inline void cond_init_monotonic(pthread_cond_t *cv) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
#if !defined(_WIN32)
    pthread_condattr_setclock(&attr, FAULT_CV_CLOCK);
#endif
    pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
}

/* A counter main can wait on (bounded). Used as a latch too: `open` releases parked tasks. */
typedef struct counter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int value; /* e.g. how many tasks arrived */
    int open;
} counter;

static inline void counter_init(counter *c) {
    pthread_mutex_init(&c->mu, NULL);
    cond_init_monotonic(&c->cv);
    c->value = 0;
    c->open = 0;
}

static inline void counter_destroy(counter *c) {
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

static inline void counter_add(counter *c) {
    pthread_mutex_lock(&c->mu);
    c->value++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static inline int counter_get(counter *c) {
    pthread_mutex_lock(&c->mu);
    int v = c->value;
    pthread_mutex_unlock(&c->mu);
    return v;
}

/* true when value reached `n` within BOUND_NS */
static inline bool counter_wait(counter *c, int n) {
    struct timespec dl = deadline_after(BOUND_NS);
    pthread_mutex_lock(&c->mu);
    int rc = 0;
    while (c->value < n && rc == 0) rc = pthread_cond_timedwait(&c->cv, &c->mu, &dl);
    bool ok = c->value >= n;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static inline void latch_open(counter *c) {
    pthread_mutex_lock(&c->mu);
    c->open = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Block until the latch is opened (unbounded: the test opens it, or the process ends). */
static inline void latch_wait_open(counter *c) {
    pthread_mutex_lock(&c->mu);
    while (!c->open) pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* ==== tasks and callbacks ======================================================================= */

/* Counts its arrival on the counter `user_data`, then parks until that latch is opened. */
static inline int task_park(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    counter *gate = user_data;
    pthread_mutex_lock(&gate->mu);
    gate->value++;
    pthread_cond_broadcast(&gate->cv);
    while (!gate->open) pthread_cond_wait(&gate->cv, &gate->mu);
    pthread_mutex_unlock(&gate->mu);
    return 0;
}

/* Completion callback: counts its calls in *(atomic_int *)user_data. */
static inline void count_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)result;
    atomic_fetch_add((atomic_int *)user_data, 1);
}

#endif /* GROUPCONC_FAULTUTIL_H */
