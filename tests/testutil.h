/* testutil.h - shared helpers for the groupconc cmocka tests.

   Include it AFTER groupconc.h (which each test file includes first, with GROUPCONC_IMPLEMENTATION
   defined). It brings in cmocka and gives the tests:
     - a tiny thread layer of their own (tu_thread_*, tu_mutex, tu_cond) on C11 <threads.h>, or on
       POSIX threads when GROUPCONC_USE_PTHREADS is defined, the build runs under ThreadSanitizer
       (TSan does not see glibc's C11 threads) or the target is Windows (mingw-w64 has winpthreads
       but no <threads.h>; the library's own backend there is Win32 unless asked otherwise). The
       library's own primitives are private, so the tests never use them;
     - tu_latch: a count-down latch with timed waits, to build known states ("N running, M queued")
       instead of sleeping;
     - tu_park: a task that records that it started, then parks on its own latch until the test
       opens it (optionally leaving early, cooperatively, when its cancellation flag is set);
     - tu_peak: a running counter that remembers its maximum, to check caps from inside tasks;
     - small wrappers that assert on the test's main thread only;
     - TU_RUN_TESTS: cmocka_run_group_tests honouring GROUPCONC_TEST_ONLY=<pattern>.

   Rule for every test: cmocka asserts run on the test's main thread only. Worker tasks and
   callbacks record what they saw in atomics or per-task slots; the main thread asserts after a
   wait or a join. */
#ifndef GROUPCONC_TESTUTIL_H
#define GROUPCONC_TESTUTIL_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#if defined(GROUPCONC_USE_PTHREADS) || defined(__SANITIZE_THREAD__) || defined(_WIN32)
#define TU_PTHREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TU_PTHREADS 1
#endif
#endif

#if defined(TU_PTHREADS)
#include <pthread.h>
#include <sched.h>
#else
#include <threads.h>
#endif

#ifndef GROUPCONC_MAX_KEY_LEN
#define GROUPCONC_MAX_KEY_LEN 256 /* the header's default */
#endif

/* Generous bound for anything that should happen "soon": a failure, not a hang. */
#define TU_TIMEOUT_NS ((int64_t)30 * 1000000000)
#define TU_MS ((int64_t)1000000)
#define TU_SEC ((int64_t)1000000000)

/* ---- clock and sleep ---------------------------------------------------------------------------- */

/* Every cmocka test binary: GROUPCONC_TEST_ONLY=<pattern> (cmocka's test filter, '*' and '?'
   wildcards) runs only the matching tests, to rerun one. */
#define TU_RUN_TESTS(tests) (tu_test_filter(), cmocka_run_group_tests(tests, NULL, NULL))
static inline void tu_test_filter(void) {
    const char *only = getenv("GROUPCONC_TEST_ONLY");
    if (only && *only) cmocka_set_test_filter(only);
}

static inline int64_t tu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * TU_SEC + (int64_t)ts.tv_nsec;
}

/* Sleeping is used only to make overlap likely or to pace background threads, never to wait for a
   state. */
static inline void tu_sleep_ns(int64_t ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / TU_SEC);
    ts.tv_nsec = (long)(ns % TU_SEC);
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Hands the CPU to another runnable thread (under valgrind, which runs one thread at a time, the
   turn goes to the next thread). */
static inline void tu_yield(void) {
#if defined(TU_PTHREADS)
    sched_yield();
#else
    thrd_yield();
#endif
}

/* A little CPU work that the compiler cannot drop. */
static inline void tu_spin(unsigned n) {
    volatile unsigned x = 0;
    for (unsigned i = 0; i < n; i++) x = x + i;
}

/* ---- mutex, condition variable, threads --------------------------------------------------------- */

#if defined(TU_PTHREADS)
typedef pthread_mutex_t tu_mutex;
typedef pthread_cond_t tu_cond;
typedef pthread_t tu_thread;
typedef pthread_t tu_thread_id;

static inline void tu_mutex_init(tu_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void tu_mutex_destroy(tu_mutex *m) { pthread_mutex_destroy(m); }
static inline void tu_mutex_lock(tu_mutex *m) { pthread_mutex_lock(m); }
static inline void tu_mutex_unlock(tu_mutex *m) { pthread_mutex_unlock(m); }
/* winpthreads (mingw-w64) condition variables take CLOCK_REALTIME deadlines only:
   pthread_condattr_setclock(CLOCK_MONOTONIC) fails there with EINVAL. */
static inline void tu_cond_init(tu_cond *c) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
#if !defined(_WIN32)
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
#endif
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}
static inline void tu_cond_destroy(tu_cond *c) { pthread_cond_destroy(c); }
static inline void tu_cond_broadcast(tu_cond *c) { pthread_cond_broadcast(c); }
/* Wait until signalled or the monotonic deadline passes (spurious returns allowed). */
static inline void tu_cond_wait_until(tu_cond *c, tu_mutex *m, int64_t deadline_ns) {
    struct timespec ts;
#if defined(_WIN32) /* the remaining monotonic time as a CLOCK_REALTIME deadline (see above) */
    int64_t left = deadline_ns - tu_now_ns();
    clock_gettime(CLOCK_REALTIME, &ts);
    deadline_ns = (int64_t)ts.tv_sec * TU_SEC + (int64_t)ts.tv_nsec + (left > 0 ? left : 0);
#endif
    ts.tv_sec = (time_t)(deadline_ns / TU_SEC);
    ts.tv_nsec = (long)(deadline_ns % TU_SEC);
    pthread_cond_timedwait(c, m, &ts);
}
static inline tu_thread_id tu_self(void) { return pthread_self(); }
static inline bool tu_same_thread(tu_thread_id a, tu_thread_id b) { return pthread_equal(a, b) != 0; }
#else
typedef mtx_t tu_mutex;
typedef cnd_t tu_cond;
typedef thrd_t tu_thread;
typedef thrd_t tu_thread_id;

static inline void tu_mutex_init(tu_mutex *m) { mtx_init(m, mtx_plain); }
static inline void tu_mutex_destroy(tu_mutex *m) { mtx_destroy(m); }
static inline void tu_mutex_lock(tu_mutex *m) { mtx_lock(m); }
static inline void tu_mutex_unlock(tu_mutex *m) { mtx_unlock(m); }
static inline void tu_cond_init(tu_cond *c) { cnd_init(c); }
static inline void tu_cond_destroy(tu_cond *c) { cnd_destroy(c); }
static inline void tu_cond_broadcast(tu_cond *c) { cnd_broadcast(c); }
static inline void tu_cond_wait_until(tu_cond *c, tu_mutex *m, int64_t deadline_ns) {
    /* C11 only has TIME_UTC deadlines: convert the remaining monotonic time. */
    int64_t left = deadline_ns - tu_now_ns();
    struct timespec ts;
    if (left < 0) left = 0;
    timespec_get(&ts, TIME_UTC);
    int64_t ns = (int64_t)ts.tv_nsec + left;
    ts.tv_sec += (time_t)(ns / TU_SEC);
    ts.tv_nsec = (long)(ns % TU_SEC);
    cnd_timedwait(c, m, &ts);
}
static inline tu_thread_id tu_self(void) { return thrd_current(); }
static inline bool tu_same_thread(tu_thread_id a, tu_thread_id b) { return thrd_equal(a, b) != 0; }
#endif

typedef void (*tu_thread_fn)(void *arg);
typedef struct tu_trampoline {
    tu_thread_fn fn;
    void *arg;
} tu_trampoline;

#if defined(TU_PTHREADS)
static inline void *tu__thread_main(void *p) {
    tu_trampoline t = *(tu_trampoline *)p;
    free(p);
    t.fn(t.arg);
    return NULL;
}
#else
static inline int tu__thread_main(void *p) {
    tu_trampoline t = *(tu_trampoline *)p;
    free(p);
    t.fn(t.arg);
    return 0;
}
#endif

/* Start a test thread; returns false on failure (the caller asserts). */
static inline bool tu_thread_start(tu_thread *th, tu_thread_fn fn, void *arg) {
    tu_trampoline *t = (tu_trampoline *)malloc(sizeof *t);
    if (!t) return false;
    t->fn = fn;
    t->arg = arg;
#if defined(TU_PTHREADS)
    if (pthread_create(th, NULL, tu__thread_main, t) != 0) {
        free(t);
        return false;
    }
#else
    if (thrd_create(th, tu__thread_main, t) != thrd_success) {
        free(t);
        return false;
    }
#endif
    return true;
}

static inline void tu_thread_join(tu_thread th) {
#if defined(TU_PTHREADS)
    pthread_join(th, NULL);
#else
    thrd_join(th, NULL);
#endif
}

/* ---- latch -------------------------------------------------------------------------------------- */

typedef struct tu_latch {
    tu_mutex m;
    tu_cond c;
    long count;
} tu_latch;

static inline void tu_latch_init(tu_latch *l, long count) {
    tu_mutex_init(&l->m);
    tu_cond_init(&l->c);
    l->count = count;
}
static inline void tu_latch_destroy(tu_latch *l) {
    tu_cond_destroy(&l->c);
    tu_mutex_destroy(&l->m);
}
static inline void tu_latch_count_down(tu_latch *l) {
    tu_mutex_lock(&l->m);
    if (l->count > 0 && --l->count == 0) tu_cond_broadcast(&l->c);
    tu_mutex_unlock(&l->m);
}
static inline void tu_latch_open(tu_latch *l) {
    tu_mutex_lock(&l->m);
    l->count = 0;
    tu_cond_broadcast(&l->c);
    tu_mutex_unlock(&l->m);
}
/* Raise the count by n (to wait for n more events with the same latch). */
static inline void tu_latch_add(tu_latch *l, long n) {
    tu_mutex_lock(&l->m);
    l->count += n;
    tu_mutex_unlock(&l->m);
}
static inline long tu_latch_count(tu_latch *l) {
    tu_mutex_lock(&l->m);
    long n = l->count;
    tu_mutex_unlock(&l->m);
    return n;
}
/* true when the count reached zero within timeout_ns */
static inline bool tu_latch_wait_for(tu_latch *l, int64_t timeout_ns) {
    int64_t deadline = tu_now_ns() + timeout_ns;
    tu_mutex_lock(&l->m);
    while (l->count > 0 && tu_now_ns() < deadline) tu_cond_wait_until(&l->c, &l->m, deadline);
    bool done = l->count <= 0;
    tu_mutex_unlock(&l->m);
    return done;
}
static inline bool tu_latch_wait(tu_latch *l) { return tu_latch_wait_for(l, TU_TIMEOUT_NS); }

/* ---- peak counter ------------------------------------------------------------------------------- */

typedef struct tu_peak {
    atomic_int cur;
    atomic_int peak;
} tu_peak;

static inline void tu_peak_init(tu_peak *p) {
    atomic_init(&p->cur, 0);
    atomic_init(&p->peak, 0);
}
static inline int tu_peak_enter(tu_peak *p) {
    int v = atomic_fetch_add(&p->cur, 1) + 1;
    int old = atomic_load(&p->peak);
    while (v > old && !atomic_compare_exchange_weak(&p->peak, &old, v)) {
    }
    return v;
}
static inline void tu_peak_leave(tu_peak *p) { atomic_fetch_sub(&p->cur, 1); }
static inline int tu_peak_max(tu_peak *p) { return atomic_load(&p->peak); }

static inline void tu_atomic_max(atomic_long *a, long v) {
    long old = atomic_load(a);
    while (v > old && !atomic_compare_exchange_weak(a, &old, v)) {
    }
}
/* The same for nanoseconds: long is 32 bits on Windows. */
static inline void tu_atomic_max64(_Atomic(int64_t) *a, int64_t v) {
    int64_t old = atomic_load(a);
    while (v > old && !atomic_compare_exchange_weak(a, &old, v)) {
    }
}

/* ---- parked task -------------------------------------------------------------------------------- */

typedef struct tu_park {
    tu_latch go;             /* the test opens it to let the task return */
    tu_latch *started;       /* counted down when the task starts; may be NULL */
    atomic_int *order;       /* shared start counter; may be NULL */
    atomic_int ran;          /* how many times the task function was entered */
    atomic_int start_seq;    /* value taken from *order at start (-1: never started) */
    atomic_bool saw_cancel;  /* groupconc_context_is_cancelled() was true while parked */
    atomic_bool timed_out;   /* the safety timeout fired: the test never opened `go` */
    bool cooperative;        /* leave early and return GROUPCONC_TASK_CANCELLED when flagged */
    int ret;                 /* code to return when released normally (default 0) */
    void *value;             /* stored in *out_value */
    tu_thread_id thread;     /* thread that ran it (read after wait) */
} tu_park;

static inline void tu_park_init(tu_park *p, tu_latch *started, atomic_int *order) {
    tu_latch_init(&p->go, 1);
    p->started = started;
    p->order = order;
    atomic_init(&p->ran, 0);
    atomic_init(&p->start_seq, -1);
    atomic_init(&p->saw_cancel, false);
    atomic_init(&p->timed_out, false);
    p->cooperative = false;
    p->ret = 0;
    p->value = p;
}
static inline void tu_park_release(tu_park *p) { tu_latch_open(&p->go); }
static inline void tu_park_destroy(tu_park *p) { tu_latch_destroy(&p->go); }

static inline int tu_park_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    tu_park *p = (tu_park *)user_data;
    p->thread = tu_self();
    if (p->order) atomic_store(&p->start_seq, atomic_fetch_add(p->order, 1));
    atomic_fetch_add(&p->ran, 1);
    if (p->started) tu_latch_count_down(p->started);
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        if (tu_latch_wait_for(&p->go, p->cooperative ? TU_MS : 100 * TU_MS)) break;
        if (groupconc_context_is_cancelled(ctx)) {
            atomic_store(&p->saw_cancel, true);
            if (p->cooperative) return GROUPCONC_TASK_CANCELLED;
        }
        if (tu_now_ns() > deadline) {
            atomic_store(&p->timed_out, true);
            break;
        }
    }
    if (groupconc_context_is_cancelled(ctx)) atomic_store(&p->saw_cancel, true);
    *out_value = p->value;
    return p->ret;
}

/* ---- simple tasks ------------------------------------------------------------------------------- */

/* Counts its runs in *(atomic_int *)user_data. */
static inline int tu_count_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add((atomic_int *)user_data, 1);
    return 0;
}

/* Counts down the latch *(tu_latch *)user_data: a test that waits on it stays outside the library
   (a wait through the API would lock, admit and kick by itself). */
static inline int tu_count_down_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    tu_latch_count_down((tu_latch *)user_data);
    return 0;
}

/* Returns at once with success and no value. */
static inline int tu_noop_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    (void)user_data;
    return 0;
}

/* ---- main-thread wrappers (they assert) --------------------------------------------------------- */

static inline groupconc_executor *tu_executor(const groupconc_policy *policy) {
    groupconc_executor *ex = NULL;
    assert_int_equal(groupconc_executor_create(policy, &ex), GROUPCONC_OK);
    assert_non_null(ex);
    return ex;
}

static inline groupconc_task *tu_submit(groupconc_executor *ex, const char *group, const char *id,
                                        groupconc_task_fn fn, void *arg) {
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, group, id, fn, arg, &t), GROUPCONC_OK);
    assert_non_null(t);
    return t;
}

/* Wait (bounded) and return the result; a hang becomes a test failure. */
static inline groupconc_result tu_wait(groupconc_task *t) {
    groupconc_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(groupconc_task_wait_for(t, TU_TIMEOUT_NS, &r), GROUPCONC_OK);
    return r;
}

static inline void tu_wait_status(groupconc_task *t, groupconc_status want) {
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, want);
}

/* groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER) on a thread of its own (it waits):
   `begun` opens just before the call, `done` when it has returned `rc`. tu_graceful_join joins the
   thread, frees the latches and returns rc. */
typedef struct tu_graceful {
    groupconc_executor *ex;
    tu_latch begun, done;
    int rc;
    tu_thread th;
} tu_graceful;

static inline void tu__graceful_main(void *arg) {
    tu_graceful *g = (tu_graceful *)arg;
    tu_latch_open(&g->begun);
    g->rc = groupconc_executor_shutdown_graceful(g->ex, GROUPCONC_FOREVER);
    tu_latch_open(&g->done);
}

static inline void tu_graceful_start(tu_graceful *g, groupconc_executor *ex) {
    g->ex = ex;
    g->rc = INT_MIN;
    tu_latch_init(&g->begun, 1);
    tu_latch_init(&g->done, 1);
    assert_true(tu_thread_start(&g->th, tu__graceful_main, g));
}

static inline int tu_graceful_join(tu_graceful *g) {
    tu_thread_join(g->th);
    tu_latch_destroy(&g->begun);
    tu_latch_destroy(&g->done);
    return g->rc;
}

/* Tasks of a group whose final status is REJECTED, whatever layer refused them. */
static inline uint64_t tu_rejected(groupconc_group_stats s) {
    return s.rejected_global + s.rejected_bulkhead + s.rejected_concurrency;
}

static inline groupconc_group_stats tu_gstats(groupconc_executor *ex, const char *group) {
    groupconc_group_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(groupconc_group_stats_get(ex, group, &s), GROUPCONC_OK);
    return s;
}

/* The shard (GROUPCONC__SHARDS, "shards" in groupconc.h) of key's group; 0 with one shard. */
static inline unsigned tu_key_shard(const char *key) {
    size_t len = 0;
    uint64_t hash = 0;
    (void)groupconc__key_hash(key, &len, &hash);
    return GROUPCONC__SHARD_OF_HASH(hash);
}

/* The i-th (from 0) of the keys "<prefix>0", "<prefix>1", ... whose group falls in the shard of
   "<prefix>0": with one shard (the default build) simply "<prefix><i>". For the tests of the ready
   queue's FIFO order across groups, which a sharded build keeps only within a shard (a worker takes
   its home shard's ready tasks first: docs/lock-measurements.md). */
static inline void tu_shard_key(char *buf, size_t size, const char *prefix, int i) {
    char first[64];
    snprintf(first, sizeof first, "%s0", prefix);
    unsigned want = tu_key_shard(first);
    for (int j = 0;; j++) {
        snprintf(buf, size, "%s%d", prefix, j);
        if (tu_key_shard(buf) == want && i-- == 0) return;
    }
}

static inline groupconc_executor_stats tu_xstats(groupconc_executor *ex) {
    groupconc_executor_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(groupconc_executor_stats_get(ex, &s), GROUPCONC_OK);
    return s;
}

/* Whether the test runs under valgrind (`meson test --setup valgrind` sets GROUPCONC_TEST_VALGRIND):
   valgrind runs one thread at a time, so a bound that shows tasks running side by side (a makespan
   near ideal) cannot hold there; such a bound is checked in every other run (plain, sanitizers). */
static inline bool tu_under_valgrind(void) {
    const char *s = getenv("GROUPCONC_TEST_VALGRIND");
    return s && *s && strcmp(s, "0") != 0;
}

/* Scale factor for stress tests: GROUPCONC_STRESS_SCALE (default 1; fractions allowed). */
static inline double tu_stress_scale(void) {
    const char *s = getenv("GROUPCONC_STRESS_SCALE");
    if (!s || !*s) return 1.0;
    double v = strtod(s, NULL);
    return v > 0 ? v : 1.0;
}

/* A tiny xorshift PRNG per thread (rand() is not thread-safe). */
static inline uint32_t tu_rand(uint32_t *state) {
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* ---- a set of parked tasks ---------------------------------------------------------------------- */
/* Up to 32 tu_park tasks that count down one shared `started` latch and number their starts in one
   `order` counter (FIFO checks). Build a state with tu_ps_submit / tu_latch_wait(&ps->started),
   then let tasks go one by one (tu_ps_finish) or all at once (tu_ps_finish_all, which also frees). */
#define TU_PARKSET_MAX 32
typedef struct tu_parkset {
    tu_park p[TU_PARKSET_MAX];
    groupconc_task *h[TU_PARKSET_MAX];
    int n;
    tu_latch started;
    atomic_int order;
} tu_parkset;

static inline void tu_ps_init(tu_parkset *ps, long expect_started) {
    ps->n = 0;
    tu_latch_init(&ps->started, expect_started);
    atomic_init(&ps->order, 0);
}

/* Submit a parked task to `group`; returns its index. */
static inline int tu_ps_submit(tu_parkset *ps, groupconc_executor *ex, const char *group) {
    int i = ps->n++;
    assert_true(i < TU_PARKSET_MAX);
    tu_park_init(&ps->p[i], &ps->started, &ps->order);
    ps->h[i] = tu_submit(ex, group, NULL, tu_park_fn, &ps->p[i]);
    return i;
}

/* Re-arm the started latch: wait for `n` more starts. */
static inline void tu_ps_expect(tu_parkset *ps, long n) { tu_latch_add(&ps->started, n); }

/* Let task i finish and wait for it: its permits are handed on before the wait returns. */
static inline void tu_ps_finish(tu_parkset *ps, int i) {
    tu_park_release(&ps->p[i]);
    tu_wait_status(ps->h[i], GROUPCONC_STATUS_SUCCESS);
}

/* Let every task finish, check each succeeded without timing out, release and free them. */
static inline void tu_ps_finish_all(tu_parkset *ps) {
    for (int i = 0; i < ps->n; i++) tu_park_release(&ps->p[i]);
    for (int i = 0; i < ps->n; i++) {
        tu_wait_status(ps->h[i], GROUPCONC_STATUS_SUCCESS);
        assert_false(atomic_load(&ps->p[i].timed_out));
        assert_int_equal(groupconc_task_release(ps->h[i]), GROUPCONC_OK);
        tu_park_destroy(&ps->p[i]);
    }
    tu_latch_destroy(&ps->started);
    ps->n = 0;
}

#endif /* GROUPCONC_TESTUTIL_H */
