/* test_pool.c - the worker pool's size (issue 26, "right-sized pool").
     - short tasks under groupconc_policy_default() (max_threads 32) never take the pool past the
       CPUs this process may run on + 1 (sampled by a thread of the test while 200,000
       fire-and-forget no-op tasks run);
     - tasks that block still all run at once: 16 tasks, max_threads 16, each waiting on a latch
       that opens only when all 16 are inside, finish, with no hint (the housekeeper's watch sees
       them blocked and starts workers past the CPU count);
     - short sleeps that finish often (no stall: a task ends every fraction of a millisecond) still
       grow the pool: the CPUs idle while tasks wait (the watch's idle-CPU sign);
     - one task blocked past 10 ms while the others compute (no stall: the process is busy) gets a
       worker started for a task that waits;
     - a worker blocked after its task, in its COMPLETED event or a completion callback, is seen as
       blocked too: with every worker of the pool's size there, a later task that opens their
       latch gets a worker started (it waited behind them for good; hunt helper-78);
     - groupconc_context_blocking lets the pool start a worker at once: with every worker in a task
       that said it blocks, a new task gets a new worker inside its submit;
     - a serial run (issue 26: a worker hands a cap-1 group's permit to its next waiter in a short
       locked step) keeps every observer exact: while one key drains a long queue, the group's
       stats show one task running and the rest waiting, from inside the tasks and from a thread
       sampling them; a waiting task cancelled mid-drain never runs; a pause from inside a task
       stops the run before the next task starts; the tasks run in order, one at a time, with
       their times in order; another group's task submitted during the drain runs next, not
       after it; and queue deadlines still expire the waiters a drain of short tasks does not
       reach in time (an expired task never runs); a serial step after a batch that a waiting
       thread cut short keeps the batch's other claims (none is lost: every block the library
       took comes back at destroy, counted by a GROUPCONC_MALLOC of the test's own);
     - a task submitted while a worker is on its way (starting) and another may start gets that
       other worker from its submit, not from the first one once it runs: with the first held
       before its first look at the inbox (test hook GROUPCONC_TEST_WORKER_STARTING), two tasks
       run and finish (W6: tasks submitted a few microseconds apart ran one after the other);
     - chains meet the calls that take the executor lock mid-drain (each ends them first): live
       limits (concurrency 1 -> 2 -> 1), queue deadlines, group shutdown, graceful and immediate
       executor shutdown, the JSON dump: every task runs once or completes with the exact status,
       FIFO and one at a time where the cap is 1, the counters add up, at most the cap runs;
     - chains in shard 0 and in a second shard (at 16 shards; review helper-66), with one worker and
       with two drains at once, each stalled on a gate task: stats, the dump, a waiter, a live
       limit, a cancel, a pause and a graceful shutdown arriving then see and leave exact state
       (the tasks before the gate finished, the gate running, the rest waiting; nothing run twice
       or lost, FIFO, the cap kept); the housekeeper woken for queue deadlines of tasks that a
       chain ran expires none of them, and an idle worker woken from its nap ends the chain and
       completes what it finished;
     - no wake-up is lost across shards (an idle worker sleeps on work_cv with the pool's lock at
       more than one shard): 200 rounds of every worker asleep, then one task of a shard that is no
       worker's home, which must run within 5 s (keep_alive 10 min);
     - (white box, a debug build at more than one shard) the lock functions keep each shard's
       holder, which help's assertion reads;
     - (white box) the nodes a burst freed come back: every worker's lots are chained in transit,
       a second burst of that size allocates at most two lots' worth, and after a burst of four
       times GROUPCONC__NODE_TRANSIT_MAX the transit and the blocks kept stay within their bound;
       for both sizes of node (plain, and observed: a handle asked for and released at once), each
       in its own lots.
   The CPU count is computed here as the library computes it: on Linux the affinity mask
   (_GNU_SOURCE), on Windows the active processors (winpthreads' count under its backend),
   elsewhere the online count. Known states are built with latches, not sleeps. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: the library's CPU count sees them too */
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
/* The library's blocks, counted: a task node lost on the way back leaves one behind its executor.
   Each block's size sits in front of it, so that a freed block can be handed out again
   (test_memo_of_a_destroyed_executor): pool_free keeps the block named by pool_keep instead of
   freeing it, and the next allocation of its size gets it back. */
typedef union pool_header {
    size_t size;
    max_align_t align; /* the block after it keeps malloc's alignment */
} pool_header;
static atomic_long pool_live_blocks;
static void *_Atomic pool_keep; /* set by the test */
static void *_Atomic pool_kept; /* pool_keep's block, freed and kept */
static void *pool_malloc(size_t size) {
    void *k = atomic_load(&pool_kept);
    if (k && ((pool_header *)k - 1)->size == size && atomic_compare_exchange_strong(&pool_kept, &k, NULL)) {
        atomic_fetch_add(&pool_live_blocks, 1);
        return k;
    }
    if (size > (size_t)-1 - sizeof(pool_header)) return NULL;
    pool_header *h = malloc(sizeof *h + size);
    if (!h) return NULL;
    h->size = size;
    atomic_fetch_add(&pool_live_blocks, 1);
    return h + 1;
}
static void pool_free(void *p) {
    if (!p) return;
    atomic_fetch_sub(&pool_live_blocks, 1);
    if (p == atomic_load(&pool_keep)) {
        atomic_store(&pool_kept, p);
        return;
    }
    free((pool_header *)p - 1);
}
#define GROUPCONC_MALLOC(sz) pool_malloc(sz)
#define GROUPCONC_FREE(p) pool_free(p)
static void pool_worker_starting(void);
#define GROUPCONC_TEST_WORKER_STARTING() pool_worker_starting()
static void pool_chain_end(unsigned committed);
#define GROUPCONC_TEST_CHAIN_END(k) pool_chain_end(k)
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

#if defined(__linux__)
#include <sched.h>
#endif
#if !defined(_WIN32)
#include <unistd.h>
#endif

static size_t test_ncpu(void) {
#if defined(GROUPCONC_USE_WIN32) /* the header's backend on Windows: windows.h is in */
#if defined(ALL_PROCESSOR_GROUPS) && defined(_WIN32_WINNT) && _WIN32_WINNT >= 0x0601
    return (size_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
#else
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (size_t)si.dwNumberOfProcessors;
#endif
#elif defined(_WIN32) && defined(GROUPCONC_USE_PTHREADS)
    int n = pthread_num_processors_np();
    return n > 0 ? (size_t)n : 0;
#endif
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return (size_t)CPU_COUNT(&set);
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0) return (size_t)n;
#endif
    return 0; /* unknown: the pool is sized by max_threads */
}

/* ---- short tasks: at most CPUs + 1 workers ---------------------------------------------------- */

typedef struct sampler {
    groupconc_executor *ex;
    atomic_bool stop;
    atomic_long peak;
    atomic_long samples;
} sampler;

static void sample_main(void *arg) {
    sampler *s = arg;
    while (!atomic_load(&s->stop)) {
        groupconc_executor_stats st;
        if (groupconc_executor_stats_get(s->ex, &st) == GROUPCONC_OK) {
            tu_atomic_max(&s->peak, (long)st.threads);
            atomic_fetch_add(&s->samples, 1);
        }
        tu_sleep_ns(50000);
    }
}

#if defined(__SANITIZE_THREAD__)
#define POOL_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define POOL_UNDER_TSAN 1
#endif
#endif

/* A task that defers its own completion and completes it from its body (groupconc_deferred_complete
   takes ex->lock there, inside the worker's batch), then returns PENDING. */
static int deferring_count_fn(groupconc_context *ctx, void **out_value, void *arg) {
    groupconc_deferred *d;
    (void)out_value;
    if (groupconc_context_defer(ctx, &d) != GROUPCONC_OK) return 1;
    atomic_fetch_add((atomic_int *)arg, 1);
    if (groupconc_deferred_complete(d, 0, NULL) != GROUPCONC_OK) return 1;
    return GROUPCONC_TASK_PENDING;
}

/* n short tasks of `fn` to 8 groups, default policy: the pool never grows past CPUs + 1. */
static void run_short_tasks_stay_within_cpus(groupconc_task_fn fn) {
    size_t ncpu = test_ncpu();
    long n = (long)(200000 * tu_stress_scale());
    if (tu_under_valgrind()) n = 5000;
    groupconc_policy p = groupconc_policy_default();
    assert_int_equal(p.max_threads, 32);
    p.default_concurrency = 64; /* the group layer never holds them back */
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    sampler s = {.ex = ex};
    atomic_init(&s.stop, false);
    atomic_init(&s.peak, 0);
    atomic_init(&s.samples, 0);
    tu_thread th;
    assert_true(tu_thread_start(&th, sample_main, &s));
    for (long i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "g%ld", i % 8);
        assert_int_equal(groupconc_submit(ex, key, NULL, fn, &ran, NULL), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    atomic_store(&s.stop, true);
    tu_thread_join(th);
    assert_int_equal(atomic_load(&ran), (int)n);
    assert_true(atomic_load(&s.samples) > 0);
    print_message("ncpu %lu, peak threads %ld (%ld samples)\n", (unsigned long)ncpu, atomic_load(&s.peak),
                  atomic_load(&s.samples));
    /* valgrind runs one thread at a time: a worker waiting for its turn looks blocked there. Only on
       Linux can the pool tell a preempted worker from a blocked one (/proc): elsewhere a worker
       preempted for 10 ms counts as blocked (manual, LIMITATIONS), which a loaded machine does.
       On a loaded machine (beside a CPU hog) this failed with peak 32 in 7 of 16 runs under TSan
       and 2 of 30 in the debug+coverage build, before the watch read busy_since again after /proc
       (groupconc__asleep_in_task: a worker asleep on the lock the watch held, just out of its
       batch, looked asleep in its task); 0 of 16 and 0 of 40 after. The deferring tasks take the
       lock from inside the batch: beside the CI's load they read peak 32 in 10 of 16 runs of a
       helper's program before groupconc__exec_mutex_lock showed such a wait as NOT_BUSY, 0 after.
       Not under TSan: there a task's body can itself sleep, in the runtime's own lock
       (__sanitizer::FutexWait, read from the worker's /proc/self/task/<id>/syscall at the watch's
       look), held for 10-23 ms by a thread the load preempted: a task that blocks while the process
       uses under half a CPU, for which the pool grows as it should (peak 32 in 3 of 16 TSan runs
       beside two CPU hogs; 0 of 40, 20 and 16 in the -O2, debug+coverage and ASan builds) */
#if defined(__linux__) && !defined(POOL_UNDER_TSAN)
    if (ncpu && ncpu + 1 < 32 && !tu_under_valgrind()) assert_true(atomic_load(&s.peak) <= (long)ncpu + 1);
#endif
    assert_true(atomic_load(&s.peak) <= 32);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_noop_tasks_stay_within_cpus(void **state) {
    (void)state;
    run_short_tasks_stay_within_cpus(tu_count_fn);
}

static void test_deferring_tasks_stay_within_cpus(void **state) {
    (void)state;
    run_short_tasks_stay_within_cpus(deferring_count_fn);
}

/* ---- tasks that block: the pool grows without a hint ------------------------------------------ */

typedef struct rendezvous {
    tu_latch inside;       /* counted down by each task once it runs */
    atomic_int met;        /* tasks that saw all the others inside */
    bool hint;             /* call groupconc_context_blocking first */
    atomic_int hint_rc;    /* the first non-OK code it returned, or 0 */
} rendezvous;

static int rendezvous_fn(groupconc_context *ctx, void **out_value, void *arg) {
    rendezvous *r = arg;
    (void)out_value;
    if (r->hint) {
        int rc = groupconc_context_blocking(ctx);
        if (rc != GROUPCONC_OK) atomic_store(&r->hint_rc, rc);
    }
    tu_latch_count_down(&r->inside);
    if (tu_latch_wait(&r->inside)) atomic_fetch_add(&r->met, 1); /* blocks until all are in */
    return 0;
}

enum { RENDEZVOUS_N = 16 };

/* RENDEZVOUS_N tasks of as many keys on ex (max_threads >= RENDEZVOUS_N), each blocked until all
   are inside: they complete only if the pool grew to run them all at once. */
static void rendezvous_all(groupconc_executor *ex, rendezvous *r, bool hint) {
    enum { N = RENDEZVOUS_N };
    tu_latch_init(&r->inside, N);
    atomic_init(&r->met, 0);
    atomic_init(&r->hint_rc, 0);
    r->hint = hint;
    groupconc_task *t[N];
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d", i);
        t[i] = tu_submit(ex, key, NULL, rendezvous_fn, r);
    }
    for (int i = 0; i < N; i++) {
        tu_wait_status(t[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t[i]);
    }
    assert_int_equal(atomic_load(&r->met), N); /* none gave up: all were running at once */
    assert_int_equal(atomic_load(&r->hint_rc), 0);
    assert_true(tu_xstats(ex).threads >= N);
}

static void run_rendezvous(bool hint) {
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = RENDEZVOUS_N;
    groupconc_executor *ex = tu_executor(&p);
    rendezvous r;
    rendezvous_all(ex, &r, hint);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&r.inside);
}

static void test_blocked_tasks_grow_the_pool(void **state) {
    (void)state;
    run_rendezvous(false);
}

static void test_blocked_tasks_grow_the_pool_hinted(void **state) {
    (void)state;
    run_rendezvous(true);
}

/* ---- the grown pool shrinks back while work trickles in ---------------------------------------- */
/* After tasks that blocked grew the pool to max_threads, a trickle of short tasks (one every 2 ms)
   or bursts of 12 computing ones (every 10 ms) must not keep the extra workers: each is woken in
   turn for them, and its keep-alive started again every time, so they stayed for as long as the
   work came (and ran computing tasks beyond one per CPU); with the bursts, 4 stayed after the first
   fix, whose wake-ups for a burst counted as the pool needing them. Now a worker retires as it goes
   idle once the pool needed none beyond its size for tasks that block for keep_alive_ns: within a
   few keep-alives of the blocked tasks the pool is back at its size. */
static int spin_ms_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    int64_t until = tu_now_ns() + TU_MS;
    while (tu_now_ns() < until) {}
    return 0;
}

/* burst: 0, one no-op task at a time; else bursts of that many 1 ms computing tasks (woken idle
   workers take them: a wake-up for a burst must not count as the pool needing its extra ones) */
static void run_grown_pool_shrinks(int burst) {
    enum { N = RENDEZVOUS_N };
    size_t ncpu = test_ncpu();
    if (ncpu == 0 || ncpu + 2 > N || tu_under_valgrind()) skip(); /* the pool is max_threads already */
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = N;
    p.keep_alive_ns = 100 * TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    rendezvous r;
    rendezvous_all(ex, &r, true); /* hinted: grows at once, no watch needed */
    int64_t until = tu_now_ns() + 10 * p.keep_alive_ns;
    size_t threads = N;
    while (tu_now_ns() < until) {
        groupconc_task *u[N];
        int n = burst ? burst : 1;
        for (int i = 0; i < n; i++) {
            char key[32];
            snprintf(key, sizeof key, "w%d", i);
            u[i] = tu_submit(ex, key, NULL, burst ? spin_ms_fn : tu_noop_fn, NULL);
        }
        for (int i = 0; i < n; i++) {
            tu_wait_status(u[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(u[i]);
        }
        threads = tu_xstats(ex).threads;
        tu_sleep_ns((burst ? 10 : 2) * TU_MS);
    }
    print_message("after the %s: %zu threads (CPUs %zu)\n", burst ? "bursts" : "trickle", threads, ncpu);
#if !defined(__linux__) /* no /proc: 1 ms computing tasks waiting in a burst look like blocked ones
                           to the watch (the manual: only Linux tells them apart), which may grow
                           the pool again (seen once under wine); the trickle's no-op tasks do not */
    if (burst == 0)
#endif
        assert_true(threads <= ncpu);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&r.inside);
}

static void test_grown_pool_shrinks_under_a_trickle(void **state) {
    (void)state;
    run_grown_pool_shrinks(0);
}

static void test_grown_pool_shrinks_under_bursts(void **state) {
    (void)state;
    run_grown_pool_shrinks(12);
}

/* ---- a worker blocked in user code after its task: a COMPLETED event, a completion callback ---- */
/* Every worker the pool's size allows finished a task and blocks in its COMPLETED event (or its
   completion callback) on a latch that only a later task of another group opens, with no hint.
   The watch must see those workers as blocked and start one for that task: while they showed
   "between batches" it never did, and the setter waited behind them for good (hunt helper-78: 24
   of 24 runs hung, COMPLETED event and on_complete, max_threads 3 and 32). */
typedef struct cb_block {
    tu_latch inside;      /* counted down by each blocked event or callback */
    tu_latch open;        /* opened by the setter task */
    tu_latch go;          /* the tasks' bodies wait for it: their callbacks are registered first */
    atomic_int timeouts;  /* waits on `open` that ran out */
    bool in_callback;     /* block in on_complete, else in the COMPLETED event */
} cb_block;

static cb_block cbb;

static void cb_block_here(void) {
    tu_latch_count_down(&cbb.inside);
    if (!tu_latch_wait(&cbb.open)) atomic_fetch_add(&cbb.timeouts, 1);
}

static void cb_block_listener(const groupconc_event *e, void *user_data) {
    (void)user_data;
    if (!cbb.in_callback && e->type == GROUPCONC_EVENT_COMPLETED && strcmp(e->group, "w") == 0) cb_block_here();
}

static void cb_block_on_complete(groupconc_task *t, const groupconc_result *r, void *user_data) {
    (void)t;
    (void)r;
    (void)user_data;
    cb_block_here();
}

static int cb_block_body(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    (void)tu_latch_wait(&cbb.go);
    return 0;
}

static int cb_block_setter(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    tu_latch_open(&cbb.open);
    return 0;
}

static void run_blocked_in_completion(bool in_callback) {
    size_t ncpu = test_ncpu();
    if (ncpu == 0 || ncpu > 16) skip(); /* K = the pool's size: every worker blocked */
    int k = (int)ncpu;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = k + 2;
    p.default_concurrency = k + 2;
    p.listener = cb_block_listener;
    cbb.in_callback = in_callback;
    atomic_init(&cbb.timeouts, 0);
    tu_latch_init(&cbb.inside, k);
    tu_latch_init(&cbb.open, 1);
    tu_latch_init(&cbb.go, 1);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *w[16], *setter;
    for (int i = 0; i < k; i++) {
        w[i] = tu_submit(ex, "w", NULL, cb_block_body, NULL);
        if (in_callback) assert_int_equal(groupconc_task_on_complete(w[i], cb_block_on_complete, NULL), GROUPCONC_OK);
    }
    tu_latch_open(&cbb.go);
    assert_true(tu_latch_wait(&cbb.inside)); /* every one of the pool's workers blocked after its task */
    setter = tu_submit(ex, "s", NULL, cb_block_setter, NULL);
    groupconc_result r;
    int rc = groupconc_task_wait_for(setter, 10000 * TU_MS, &r);
    if (rc != GROUPCONC_OK) tu_latch_open(&cbb.open); /* let the workers go, to end the test */
    assert_int_equal(rc, GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    for (int i = 0; i < k; i++) {
        tu_wait_status(w[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(w[i]);
    }
    groupconc_task_release(setter);
    assert_int_equal(atomic_load(&cbb.timeouts), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&cbb.inside);
    tu_latch_destroy(&cbb.open);
    tu_latch_destroy(&cbb.go);
}

static void test_blocked_completed_event_grows_the_pool(void **state) {
    (void)state;
    run_blocked_in_completion(false);
}

static void test_blocked_completion_callback_grows_the_pool(void **state) {
    (void)state;
    run_blocked_in_completion(true);
}

/* ---- a long blocked task among busy ones -------------------------------------------------------- */
/* One task sleeps (on a latch) while the others compute: tasks still finish nowhere, but the process
   is busy, so this is no stall; the blocked task's age (past GROUPCONC__STUCK_NS) gets a worker
   started for the task that waits. The computing ones spin until that task has run. */

typedef struct mixed {
    tu_latch in;           /* every worker the pool's size allows is in a task */
    tu_latch release;      /* opened by the test: the sleeper returns */
    atomic_bool waiter_ran;
    atomic_int spin_timeouts;
} mixed;

static int sleeper_fn(groupconc_context *ctx, void **out_value, void *arg) {
    mixed *m = arg;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down(&m->in);
    (void)tu_latch_wait(&m->release);
    return 0;
}

static int spinner_fn(groupconc_context *ctx, void **out_value, void *arg) {
    mixed *m = arg;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down(&m->in);
    int64_t until = tu_now_ns() + TU_TIMEOUT_NS;
    while (!atomic_load(&m->waiter_ran))
        if (tu_now_ns() > until) {
            atomic_fetch_add(&m->spin_timeouts, 1);
            break;
        }
    return 0;
}

static int waiter_fn(groupconc_context *ctx, void **out_value, void *arg) {
    mixed *m = arg;
    (void)ctx;
    (void)out_value;
    atomic_store(&m->waiter_ran, true);
    return 0;
}

/* ---- short sleeps: tasks finish all the time, but the CPUs idle ------------------------------- */

static atomic_int short_inside, short_peak;

static int short_sleep_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    int now = atomic_fetch_add(&short_inside, 1) + 1;
    int peak = atomic_load(&short_peak);
    while (now > peak && !atomic_compare_exchange_weak(&short_peak, &peak, now)) {}
    tu_sleep_ns(300 * 1000); /* a short I/O wait: 300 us, below a stall's 1 ms */
    atomic_fetch_sub(&short_inside, 1);
    return 0;
}

static void test_short_sleeps_grow_the_pool(void **state) {
    (void)state;
    enum { N = 2000, THREADS = 16 };
    size_t ncpu = test_ncpu();
    if (ncpu == 0 || ncpu + 1 >= THREADS) skip(); /* the pool is max_threads from the start */
#if !defined(__linux__)
    skip(); /* the idle-CPU sign needs a worker's state (Linux: /proc); elsewhere only a stall counts */
#endif
    atomic_init(&short_inside, 0);
    atomic_init(&short_peak, 0);
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = THREADS;
    p.default_concurrency = THREADS;
    groupconc_executor *ex = tu_executor(&p);
    for (int i = 0; i < N; i++)
        assert_int_equal(groupconc_submit(ex, "io", NULL, short_sleep_fn, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    /* at ncpu workers 2000 x 300 us take 300 / ncpu ms; grown, the peak passes the CPU count */
    print_message("short sleeps: peak %d tasks at once (CPUs %zu, max_threads %d)\n", atomic_load(&short_peak),
                  ncpu, THREADS);
    assert_true((size_t)atomic_load(&short_peak) > ncpu + 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_long_blocked_task_among_busy_ones(void **state) {
    (void)state;
    size_t ncpu = test_ncpu();
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 64;
    if (ncpu == 0 || ncpu + 2 > (size_t)p.max_threads || tu_under_valgrind()) skip();
    groupconc_executor *ex = tu_executor(&p);
    mixed m;
    tu_latch_init(&m.in, (long)ncpu);
    tu_latch_init(&m.release, 1);
    atomic_init(&m.waiter_ran, false);
    atomic_init(&m.spin_timeouts, 0);
    groupconc_task **t = calloc(ncpu, sizeof *t);
    assert_non_null(t);
    t[0] = tu_submit(ex, "sleeper", NULL, sleeper_fn, &m);
    for (size_t i = 1; i < ncpu; i++) {
        char key[32];
        snprintf(key, sizeof key, "spin%lu", (unsigned long)i);
        t[i] = tu_submit(ex, key, NULL, spinner_fn, &m);
    }
    assert_true(tu_latch_wait(&m.in));
    groupconc_task *w = tu_submit(ex, "waiter", NULL, waiter_fn, &m);
    tu_wait_status(w, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(w);
    tu_latch_open(&m.release);
    for (size_t i = 0; i < ncpu; i++) {
        tu_wait_status(t[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t[i]);
    }
    assert_int_equal(atomic_load(&m.spin_timeouts), 0); /* the waiter ran while they computed */
    assert_true(tu_xstats(ex).threads > ncpu);
    free(t);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&m.in);
    tu_latch_destroy(&m.release);
}

/* ---- the hint starts a worker at once --------------------------------------------------------- */

typedef struct hinted {
    tu_latch hinted;       /* counted down after groupconc_context_blocking returned */
    tu_latch go;           /* opened by the test */
    atomic_int rc;
} hinted;

static int hinted_fn(groupconc_context *ctx, void **out_value, void *arg) {
    hinted *h = arg;
    (void)out_value;
    int rc = groupconc_context_blocking(ctx);
    if (rc != GROUPCONC_OK) atomic_store(&h->rc, rc);
    tu_latch_count_down(&h->hinted);
    (void)tu_latch_wait(&h->go);
    return 0;
}

static void test_hint_starts_a_worker_at_once(void **state) {
    (void)state;
    size_t ncpu = test_ncpu();
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 64;
    if (ncpu == 0 || ncpu + 2 > (size_t)p.max_threads) skip(); /* the pool is not CPU-sized here */
    groupconc_executor *ex = tu_executor(&p);
    hinted h;
    long k = (long)ncpu;
    tu_latch_init(&h.hinted, k);
    tu_latch_init(&h.go, 1);
    atomic_init(&h.rc, 0);
    groupconc_task **t = calloc((size_t)k, sizeof *t);
    assert_non_null(t);
    for (long i = 0; i < k; i++) {
        char key[32];
        snprintf(key, sizeof key, "h%ld", i);
        t[i] = tu_submit(ex, key, NULL, hinted_fn, &h);
    }
    assert_true(tu_latch_wait(&h.hinted)); /* every worker the pool's size allows is in a hinted task */
    assert_int_equal(atomic_load(&h.rc), 0);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *extra = tu_submit(ex, "extra", NULL, tu_count_fn, &ran);
    /* the submit started its worker (the watch would need a blocked task's millisecond) */
    assert_true(tu_xstats(ex).threads >= (size_t)k + 1);
    tu_wait_status(extra, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran), 1);
    groupconc_task_release(extra);
    tu_latch_open(&h.go);
    for (long i = 0; i < k; i++) {
        tu_wait_status(t[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t[i]);
    }
    free(t);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&h.hinted);
    tu_latch_destroy(&h.go);
}

/* ---- a submit during a worker's start-up starts the next one itself (issue 26, W6) ------------ */

static atomic_int pool_hold_next; /* 1: the next worker to start waits at pool_go, first */
static tu_latch pool_held, pool_go;

static void pool_worker_starting(void) {
    int one = 1;
    if (atomic_load(&pool_hold_next) && atomic_compare_exchange_strong(&pool_hold_next, &one, 0)) {
        tu_latch_count_down(&pool_held);
        (void)tu_latch_wait(&pool_go);
    }
}

static void test_submit_while_starting_starts_another(void **state) {
    (void)state;
    size_t ncpu = test_ncpu();
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 2; /* both ready at once */
    if (ncpu < 2) skip();      /* a pool of one: nothing more may start */
    tu_latch done;
    tu_latch_init(&done, 2);
    tu_latch_init(&pool_held, 1);
    tu_latch_init(&pool_go, 1);
    atomic_store(&pool_hold_next, 1);
    groupconc_executor *ex = tu_executor(&p);
    /* the first submit starts the first worker, held before its first look at the inbox */
    assert_int_equal(groupconc_submit(ex, "k", NULL, tu_count_down_fn, &done, NULL), GROUPCONC_OK);
    assert_true(tu_latch_wait(&pool_held));
    assert_int_equal(atomic_load(&ex->pool.nstarting), 1); /* white box: on its way */
    /* pushed onto the inbox with a worker on its way and room for one more: this submit starts it */
    assert_int_equal(groupconc_submit(ex, "k", NULL, tu_count_down_fn, &done, NULL), GROUPCONC_OK);
    /* waited for outside the library (a wait would lock, and its admission would start a worker) */
    assert_true(tu_latch_wait(&done));
    assert_int_equal(atomic_load(&ex->pool.nstarting), 1); /* the first is still held: another ran both */
    tu_latch_open(&pool_go);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&done);
    tu_latch_destroy(&pool_held);
    tu_latch_destroy(&pool_go);
}

/* ---- serial runs: one key drains a long queue (issue 26) ---------------------------------------- */

enum { SERIAL_N = 3000, SERIAL_CANCEL = SERIAL_N / 2, SERIAL_CANCELLER = SERIAL_N / 2 - 10,
       SERIAL_PAUSER = 3 * SERIAL_N / 4 };

typedef struct serial_run {
    groupconc_executor *ex;
    groupconc_task *h[SERIAL_N];
    atomic_int seq[SERIAL_N];       /* the order it started in, from 1 (0: never ran) */
    atomic_int next_seq;
    atomic_int ran;
    atomic_int bad_stats;           /* a task saw its group other than "me running, the rest waiting" */
    atomic_int cancel_rc;
    tu_peak peak;
    tu_latch paused;
} serial_run;

static serial_run *serial;

static int serial_fn(groupconc_context *ctx, void **out_value, void *arg) {
    long i = (long)(intptr_t)arg;
    groupconc_group_stats st;
    (void)ctx;
    (void)out_value;
    tu_peak_enter(&serial->peak);
    atomic_store(&serial->seq[i], atomic_fetch_add(&serial->next_seq, 1) + 1);
    if (groupconc_group_stats_get(serial->ex, "s", &st) != GROUPCONC_OK || st.running != 1 || st.ready != 0 ||
        st.completed + st.running + st.waiting_concurrency != SERIAL_N + 1)
        atomic_fetch_add(&serial->bad_stats, 1);
    if (i == SERIAL_CANCELLER) atomic_store(&serial->cancel_rc, groupconc_task_cancel(serial->h[SERIAL_CANCEL], NULL));
    if (i == SERIAL_PAUSER) {
        if (groupconc_group_pause(serial->ex, "s") != GROUPCONC_OK) atomic_fetch_add(&serial->bad_stats, 1);
        tu_latch_count_down(&serial->paused);
    }
    atomic_fetch_add(&serial->ran, 1);
    tu_peak_leave(&serial->peak);
    return 0;
}

static void test_serial_run_keeps_observers_exact(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1;
    serial = calloc(1, sizeof *serial);
    assert_non_null(serial);
    groupconc_executor *ex = serial->ex = tu_executor(&p);
    tu_peak_init(&serial->peak);
    tu_latch_init(&serial->paused, 1);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *b = tu_submit(ex, "s", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    for (long i = 0; i < SERIAL_N; i++) serial->h[i] = tu_submit(ex, "s", NULL, serial_fn, (void *)(intptr_t)i);
    groupconc_group_stats st = tu_gstats(ex, "s");
    assert_int_equal(st.running, 1);
    assert_int_equal(st.waiting_concurrency, SERIAL_N);
    tu_park_release(&blocker);
    /* meanwhile, from this thread: never two at once, nothing lost between the gauges */
    long samples = 0;
    while (!tu_latch_wait_for(&serial->paused, 0)) {
        st = tu_gstats(ex, "s");
        assert_true(st.running + st.ready <= 1);
        assert_int_equal(st.completed + st.running + st.ready + st.waiting_concurrency, SERIAL_N + 1);
        samples++;
    }
    assert_true(tu_latch_wait(&serial->paused));
    /* the pause came from inside task PAUSER: the run stops there, the rest keep waiting */
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    while ((st = tu_gstats(ex, "s")).running != 0 && tu_now_ns() < deadline) tu_sleep_ns(TU_MS);
    assert_int_equal(st.running, 0);
    int ran = atomic_load(&serial->ran);
    assert_int_equal(ran, SERIAL_PAUSER); /* tasks 0..PAUSER but the cancelled one */
    tu_sleep_ns(20 * TU_MS);
    assert_int_equal(atomic_load(&serial->ran), ran);
    st = tu_gstats(ex, "s");
    assert_int_equal(st.running + st.ready, 0);
    assert_int_equal(st.waiting_concurrency, SERIAL_N - 1 - SERIAL_PAUSER);
    assert_int_equal(st.completed, (uint64_t)SERIAL_PAUSER + 2); /* + the blocker, + the cancelled one */
    assert_int_equal(st.cancelled, 1);
    assert_int_equal(groupconc_group_resume(ex, "s"), GROUPCONC_OK);
    tu_wait_status(b, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(b);
    groupconc_result prev;
    memset(&prev, 0, sizeof prev);
    int last_seq = 0;
    for (long i = 0; i < SERIAL_N; i++) {
        groupconc_result r = tu_wait(serial->h[i]);
        groupconc_task_release(serial->h[i]);
        if (i == SERIAL_CANCEL) {
            assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(atomic_load(&serial->seq[i]), 0); /* never ran */
            continue;
        }
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_true(atomic_load(&serial->seq[i]) > last_seq); /* FIFO, one at a time */
        last_seq = atomic_load(&serial->seq[i]);
        assert_true(r.start_ns <= r.end_ns);
        if (prev.status == GROUPCONC_STATUS_SUCCESS) assert_true(prev.end_ns <= r.start_ns);
        prev = r;
    }
    assert_int_equal(atomic_load(&serial->cancel_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&serial->ran), SERIAL_N - 1);
    assert_int_equal(atomic_load(&serial->bad_stats), 0);
    assert_int_equal(tu_peak_max(&serial->peak), 1);
    st = tu_gstats(ex, "s");
    assert_int_equal(st.succeeded, SERIAL_N);
    assert_int_equal(st.completed, SERIAL_N + 1);
    (void)samples;
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    tu_latch_destroy(&serial->paused);
    free(serial);
    serial = NULL;
}

/* One worker drains key "s"; task 100 of it submits a task of key "o", which must run next. */
enum { OTHER_N = 2000, OTHER_AT = 100 };
static groupconc_executor *other_ex;
static atomic_int other_s_ran, other_saw, other_rc;
static tu_latch other_done; /* the last task of "s" and the one of "o" */

static int other_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    atomic_store(&other_saw, atomic_load(&other_s_ran));
    tu_latch_count_down(&other_done);
    return 0;
}

static int other_s_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    if ((long)(intptr_t)arg == OTHER_AT)
        atomic_store(&other_rc, groupconc_submit(other_ex, "o", NULL, other_fn, NULL, NULL));
    if (atomic_fetch_add(&other_s_ran, 1) + 1 == OTHER_N) tu_latch_count_down(&other_done);
    return 0;
}

static void test_serial_run_lets_other_groups_in(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1; /* the draining worker itself must let the other group in */
    p.default_concurrency = 1;
    groupconc_executor *ex = other_ex = tu_executor(&p);
    atomic_init(&other_s_ran, 0);
    atomic_init(&other_saw, -1);
    atomic_init(&other_rc, -1);
    tu_latch_init(&other_done, 2);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *b = tu_submit(ex, "s", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    for (long i = 0; i < OTHER_N; i++)
        assert_int_equal(groupconc_submit(ex, "s", NULL, other_s_fn, (void *)(intptr_t)i, NULL), GROUPCONC_OK);
    tu_park_release(&blocker);
    tu_wait_status(b, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(b);
    assert_true(tu_latch_wait(&other_done)); /* then no task submits any more */
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(atomic_load(&other_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&other_s_ran), OTHER_N);
    /* it ran right after the task that submitted it (one more at most), not after the drain */
    assert_true(atomic_load(&other_saw) >= OTHER_AT + 1);
    assert_true(atomic_load(&other_saw) <= OTHER_AT + 2);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    tu_latch_destroy(&other_done);
}

/* A drain of short tasks with a queue deadline: those it reaches in time run, the others expire
   while waiting and never run. */
enum { EXPIRE_N = 20000 };
static atomic_char expire_ran[EXPIRE_N];

static int expire_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    atomic_store(&expire_ran[(long)(intptr_t)arg], 1);
    int64_t until = tu_now_ns() + 10000; /* 10 us: short, the run goes on */
    while (tu_now_ns() < until) tu_spin(16);
    return 0;
}

static void test_serial_run_keeps_deadlines(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1;
    p.default_max_wait_ns = 100 * TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task **h = calloc(EXPIRE_N, sizeof *h);
    assert_non_null(h);
    for (long i = 0; i < EXPIRE_N; i++) atomic_init(&expire_ran[i], 0);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *b = tu_submit(ex, "d", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    int64_t first_in = tu_now_ns();
    for (long i = 0; i < EXPIRE_N; i++) h[i] = tu_submit(ex, "d", NULL, expire_fn, (void *)(intptr_t)i);
    tu_park_release(&blocker);
    /* released within half of the first waiter's 100 ms: the run reaches it in time unless the
       machine holds the worker off for 50 ms (valgrind, or a starved VM, may take longer to submit) */
    bool in_time = tu_now_ns() - first_in < 50 * TU_MS;
    tu_wait_status(b, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(b);
    long ran = 0, expired = 0;
    for (long i = 0; i < EXPIRE_N; i++) {
        groupconc_result r = tu_wait(h[i]);
        groupconc_task_release(h[i]);
        if (r.status == GROUPCONC_STATUS_SUCCESS) {
            assert_int_equal(atomic_load(&expire_ran[i]), 1);
            ran++;
        } else {
            assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
            assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
            assert_int_equal(atomic_load(&expire_ran[i]), 0); /* expired while waiting: never ran */
            expired++;
        }
    }
    groupconc_group_stats st = tu_gstats(ex, "d");
    assert_int_equal(st.succeeded, (uint64_t)ran + 1);
    assert_int_equal(st.expired, (uint64_t)expired);
    assert_int_equal(st.completed, EXPIRE_N + 1);
    if (in_time && !tu_under_valgrind()) assert_true(ran > 0);
    print_message("deadline drain: %ld ran, %ld expired%s\n", ran, expired, in_time ? "" : " (released late)");
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    free(h);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
}

/* A batch cut short by a waiter, then a serial run (the hunt's leak): the worker claimed two tasks
   at once, ran the first (whose cap-1 group has a waiter), and saw a thread waiting when it
   published it, so it stopped with the second claimed and not started. A serial step there
   replaced its claims with the group's next waiter: the second, taken meanwhile by a cancel,
   was never let go (its claim reference kept its node and group alive after destroy), and one not
   taken sat in the running list, unstarted, until a worker stole it. Here: four cap-1 groups of two
   tasks each go ready together (an executor resume) to one worker that claims more than one at a
   time; the first task it runs cancels every other group's two tasks (the one the worker claimed
   with it is taken, the rest leave the ready queue), so its serial step finds nothing else ready; a
   thread waits meanwhile on a task of a paused group. Every block the library took is given back
   by destroy. Repeated: the worker must claim two, and the first task must end within a batch. */
enum { CUT_GROUPS = 4, CUT_ROUNDS = 6 };
static groupconc_task *cut_first[CUT_GROUPS], *cut_second[CUT_GROUPS];
static atomic_int cut_firsts_ran;

static int cut_first_fn(groupconc_context *ctx, void **out, void *arg) {
    int me = (int)(intptr_t)arg;
    (void)ctx;
    (void)out;
    atomic_fetch_add(&cut_firsts_ran, 1);
    for (int k = 0; k < CUT_GROUPS; k++) {
        if (k == me) continue;
        (void)groupconc_task_cancel(cut_second[k], NULL); /* first: no permit is handed to it */
        (void)groupconc_task_cancel(cut_first[k], NULL);
    }
    return 0;
}

typedef struct cut_waiter {
    groupconc_task *task;
    int rc;
} cut_waiter;

static void cut_wait_main(void *arg) {
    cut_waiter *w = arg;
    groupconc_result r;
    w->rc = groupconc_task_wait_for(w->task, TU_TIMEOUT_NS, &r);
}

static void test_serial_run_after_a_cut_batch(void **state) {
    (void)state;
    for (int round = 0; round < CUT_ROUNDS; round++) {
        long live_before = atomic_load(&pool_live_blocks);
        groupconc_policy p = groupconc_policy_default();
        p.max_threads = 1;
        p.default_concurrency = 1;
        groupconc_executor *ex = tu_executor(&p);
        /* short tasks first: the worker learns to claim more than one at a time */
        char key[16];
        for (int i = 0; i < 256; i++) {
            snprintf(key, sizeof key, "w%d", i % 64);
            assert_int_equal(groupconc_submit(ex, key, NULL, tu_noop_fn, NULL, NULL), GROUPCONC_OK);
        }
        groupconc_task *last = tu_submit(ex, "w-last", NULL, tu_noop_fn, NULL);
        tu_wait_status(last, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(last);
        /* with more than one shard (GROUPCONC__SHARDS) the worker runs its home shard's ready tasks
           first: "w-last" may end before the others, so wait for every one */
        int64_t quiet_by = tu_now_ns() + TU_TIMEOUT_NS;
        while (tu_xstats(ex).completed != 257 && tu_now_ns() < quiet_by) tu_sleep_ns(TU_MS / 10);
        assert_int_equal(tu_xstats(ex).completed, 257);

        assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
        assert_int_equal(groupconc_group_pause(ex, "z"), GROUPCONC_OK);
        atomic_store(&cut_firsts_ran, 0);
        for (int k = 0; k < CUT_GROUPS; k++) {
            tu_shard_key(key, sizeof key, "c", k); /* one shard: a batch claims from one */
            cut_first[k] = tu_submit(ex, key, NULL, cut_first_fn, (void *)(intptr_t)k);
            cut_second[k] = tu_submit(ex, key, NULL, tu_noop_fn, NULL);
        }
        cut_waiter waiter = {tu_submit(ex, "z", NULL, tu_noop_fn, NULL), -1};
        tu_thread th;
        assert_true(tu_thread_start(&th, cut_wait_main, &waiter));
        int64_t until = tu_now_ns() + TU_TIMEOUT_NS; /* white box: the waiter is in its wait */
        while (atomic_load(&ex->pool.nwaiters) == 0 && tu_now_ns() < until) tu_sleep_ns(TU_MS / 10);
        assert_true(atomic_load(&ex->pool.nwaiters) > 0);
        assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK); /* "z" stays paused */

        int survivors = 0;
        for (int k = 0; k < CUT_GROUPS; k++) {
            groupconc_result a = tu_wait(cut_first[k]), b = tu_wait(cut_second[k]);
            if (a.status == GROUPCONC_STATUS_SUCCESS) {
                assert_int_equal(b.status, GROUPCONC_STATUS_SUCCESS); /* its group's next waiter */
                survivors++;
            } else {
                assert_int_equal(a.status, GROUPCONC_STATUS_CANCELLED);
                assert_int_equal(b.status, GROUPCONC_STATUS_CANCELLED);
            }
            groupconc_task_release(cut_first[k]);
            groupconc_task_release(cut_second[k]);
        }
        assert_int_equal(survivors, 1);
        assert_int_equal(atomic_load(&cut_firsts_ran), 1);
        assert_int_equal(groupconc_group_resume(ex, "z"), GROUPCONC_OK);
        tu_thread_join(th);
        assert_int_equal(waiter.rc, GROUPCONC_OK);
        groupconc_task_release(waiter.task);
        groupconc_executor_stats es;
        assert_int_equal(groupconc_executor_stats_get(ex, &es), GROUPCONC_OK);
        assert_int_equal(es.running, 0);
        assert_int_equal(es.submitted, es.completed);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(atomic_load(&pool_live_blocks), live_before); /* nothing kept alive */
    }
}

/* ---- chains: a serial run of short tasks without a locked step per task (issue 26) ------------- */

static atomic_long chain_ends_committed; /* chains that ended with chained tasks committed to */
/* Whether a test's rounds surely meet a chain: not under valgrind (one thread at a time), nor
   under TSan at the header's own times, where an instrumented task often takes more than
   GROUPCONC__SHORT_NS (2 us) and a serial run of tasks that are not short does not chain (on a
   2-vCPU EPYC VM, 2026-12-04: 1 to 4 of the deadline, group and executor shutdown, dump and
   two-drains tests met no chain in 14 of 18 TSan runs: 6 of 10 with 8 spin tries, 8 of 8 with 32;
   in 0 of 5 plain runs). The plain, ASan and coverage builds assert it, and so does CI's TSan
   build of this file with GROUPCONC__TIME_SCALE=20 (.ci/run, section tsan), where a short task
   is one of 40 us. */
static bool chains_assured(void) {
#if defined(POOL_UNDER_TSAN) && GROUPCONC__TIME_SCALE == 1
    return false;
#else
    return !tu_under_valgrind();
#endif
}
/* the same, ended by this thread's lock entries (a test's own calls: test_chain_shards_*) */
static GROUPCONC__TLS long chain_ends_here;
static void pool_chain_end(unsigned committed) {
    if (committed) {
        atomic_fetch_add(&chain_ends_committed, 1);
        chain_ends_here++;
    }
}

enum { CHAIN_N = 20000 };

typedef struct chain_run {
    groupconc_executor *ex;
    groupconc_task *h[CHAIN_N];
    atomic_int seq[CHAIN_N];        /* the order it started in, from 1 (0: never ran) */
    atomic_int next_seq;
    atomic_int cancel_rc[CHAIN_N];  /* groupconc_task_cancel's code (1: not cancelled) */
    atomic_int outcome[CHAIN_N];
    atomic_bool done;
    tu_peak peak;
} chain_run;

static chain_run *chain;

static int chain_fn(groupconc_context *ctx, void **out_value, void *arg) {
    long i = (long)(intptr_t)arg;
    (void)ctx;
    (void)out_value;
    tu_peak_enter(&chain->peak);
    atomic_store(&chain->seq[i], atomic_fetch_add(&chain->next_seq, 1) + 1);
    tu_peak_leave(&chain->peak);
    return 0;
}

/* Cancels tasks a few places ahead of the drain: chained ones, committed to or not, and plain
   waiters. */
static void chain_cancel_main(void *arg) {
    uint32_t rnd = 0x2545f491u;
    bool vg = tu_under_valgrind();
    (void)arg;
    for (long i = 40; i < CHAIN_N; i += 1 + (long)(tu_rand(&rnd) % 300)) {
        long ahead = 1 + (long)(tu_rand(&rnd) % 24);
        if (i == CHAIN_N / 2 + 1) continue; /* cancelled before the drain */
        groupconc_cancel_outcome o = GROUPCONC_CANCEL_DEQUEUED;
        while (atomic_load(&chain->next_seq) + ahead < i && !atomic_load(&chain->done)) {
            if (vg) tu_sleep_ns(20000); /* under valgrind a spin holds the only running turn: nap */
            else tu_spin(20);
        }
        atomic_store(&chain->cancel_rc[i], groupconc_task_cancel(chain->h[i], &o));
        atomic_store(&chain->outcome[i], (int)o);
    }
}

/* One key drains 20,000 no-op tasks in chains while this thread samples the group's stats and
   another cancels tasks just ahead of the drain: every sample shows at most one running and
   nothing lost; a task cancelled while it waited never runs, one flagged had started; the rest
   run in order, one at a time, with their times in order. */
static void test_chain_keeps_observers_exact(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1;
    chain = calloc(1, sizeof *chain);
    assert_non_null(chain);
    groupconc_executor *ex = chain->ex = tu_executor(&p);
    tu_peak_init(&chain->peak);
    for (long i = 0; i < CHAIN_N; i++) atomic_init(&chain->cancel_rc[i], 1);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *b = tu_submit(ex, "c", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    for (long i = 0; i < CHAIN_N; i++) chain->h[i] = tu_submit(ex, "c", NULL, chain_fn, (void *)(intptr_t)i);
    /* one cancelled for sure while it waits; the canceller's depend on the threads' timing */
    groupconc_cancel_outcome first = GROUPCONC_CANCEL_FLAGGED;
    atomic_store(&chain->cancel_rc[CHAIN_N / 2 + 1], groupconc_task_cancel(chain->h[CHAIN_N / 2 + 1], &first));
    atomic_store(&chain->outcome[CHAIN_N / 2 + 1], (int)first);
    assert_int_equal(first, GROUPCONC_CANCEL_DEQUEUED);
    long ends_before = atomic_load(&chain_ends_committed);
    tu_thread th;
    assert_true(tu_thread_start(&th, chain_cancel_main, NULL));
    tu_park_release(&blocker);
    bool done = false, vg = tu_under_valgrind();
    long samples = 0;
    while (!done) {
        groupconc_group_stats st = tu_gstats(ex, "c");
        assert_true(st.running + st.ready <= 1);
        assert_int_equal(st.completed + st.running + st.ready + st.waiting_concurrency, CHAIN_N + 1);
        assert_int_equal(groupconc_task_is_done(chain->h[CHAIN_N - 1], &done), GROUPCONC_OK);
        samples++;
        /* valgrind runs one thread at a time: a sampler that never sleeps takes most of the turns
           (24 M samples and ~300 s in one CI run, the drain's workers starved); a yield every 256
           samples hands the turn on and still samples the drain tens of thousands of times */
        if (vg && samples % 256 == 0) tu_yield();
    }
    atomic_store(&chain->done, true);
    tu_thread_join(th);
    tu_wait_status(b, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(b);
    int last_seq = 0, dequeued = 0, flagged = 0;
    groupconc_result prev;
    memset(&prev, 0, sizeof prev);
    for (long i = 0; i < CHAIN_N; i++) {
        groupconc_result r = tu_wait(chain->h[i]);
        int seq = atomic_load(&chain->seq[i]);
        groupconc_task_release(chain->h[i]);
        if (atomic_load(&chain->cancel_rc[i]) == GROUPCONC_OK &&
            atomic_load(&chain->outcome[i]) == GROUPCONC_CANCEL_DEQUEUED) {
            assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(seq, 0); /* never ran */
            dequeued++;
            continue;
        }
        if (atomic_load(&chain->cancel_rc[i]) == GROUPCONC_OK) { /* it had started, or finished */
            int o = atomic_load(&chain->outcome[i]);
            assert_true(o == GROUPCONC_CANCEL_FLAGGED || o == GROUPCONC_CANCEL_TOO_LATE);
            flagged += o == GROUPCONC_CANCEL_FLAGGED;
        }
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_true(seq > last_seq); /* FIFO, one at a time */
        last_seq = seq;
        assert_true(r.start_ns <= r.end_ns);
        if (prev.status == GROUPCONC_STATUS_SUCCESS) assert_true(prev.end_ns <= r.start_ns);
        prev = r;
    }
    assert_int_equal(last_seq, CHAIN_N - dequeued);
    assert_true(dequeued >= 1);
    (void)flagged;
    assert_int_equal(tu_peak_max(&chain->peak), 1);
    groupconc_group_stats st = tu_gstats(ex, "c");
    assert_int_equal(st.succeeded, (uint64_t)(CHAIN_N - dequeued) + 1);
    assert_int_equal(st.cancelled, (uint64_t)dequeued);
    assert_int_equal(st.running + st.waiting_concurrency, 0);
    /* how many chains this thread's samples and the canceller ended with tasks committed to
       depends on the threads' timing; test_chain_waiter_takes_over asserts that chains run */
    printf("chain drain: %ld samples, %ld chains ended after a task\n", samples,
           atomic_load(&chain_ends_committed) - ends_before);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    free(chain);
    chain = NULL;
}

/* The last task of a round, G, starts (a chained task, usually) and waits; meanwhile this thread
   waits for the task just before it, which a chain's end finished but whose worker (the only one)
   is in G: the waiter completes it itself. From inside G, a chained task: its group's stats show
   it running, and groupconc_context_blocking or groupconc_context_defer works (odd rounds defer:
   G returns PENDING, this thread completes it). */
enum { GATE_ROUNDS = 60 };

typedef struct chain_gate {
    tu_latch started, go;
    groupconc_executor *ex;
    groupconc_deferred *deferred;
    bool defer;
    atomic_int rc, bad_stats;
} chain_gate;

static int chain_gate_fn(groupconc_context *ctx, void **out_value, void *arg) {
    chain_gate *g = arg;
    groupconc_group_stats st;
    if (groupconc_group_stats_get(g->ex, "g", &st) != GROUPCONC_OK || st.running != 1 ||
        st.waiting_concurrency != 0)
        atomic_fetch_add(&g->bad_stats, 1);
    if (g->defer) {
        atomic_store(&g->rc, groupconc_context_defer(ctx, &g->deferred));
        tu_latch_count_down(&g->started);
        return GROUPCONC_TASK_PENDING;
    }
    atomic_store(&g->rc, groupconc_context_blocking(ctx));
    tu_latch_count_down(&g->started);
    (void)tu_latch_wait(&g->go);
    *out_value = g;
    return 0;
}

static void test_chain_waiter_takes_over(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    p.default_concurrency = 1;
    groupconc_executor *ex = tu_executor(&p);
    long ends_before = atomic_load(&chain_ends_committed);
    for (int round = 0; round < GATE_ROUNDS; round++) {
        enum { MAX_BEFORE = 40 };
        groupconc_task *before[MAX_BEFORE];
        int nbefore = 20 + round % 17;
        chain_gate g;
        memset(&g, 0, sizeof g);
        tu_latch_init(&g.started, 1);
        tu_latch_init(&g.go, 1);
        g.ex = ex;
        g.defer = round % 2 == 1;
        atomic_init(&g.rc, -1);
        tu_latch blocked;
        tu_latch_init(&blocked, 1);
        tu_park blocker;
        tu_park_init(&blocker, &blocked, NULL);
        groupconc_task *bt = tu_submit(ex, "g", NULL, tu_park_fn, &blocker);
        assert_true(tu_latch_wait(&blocked));
        for (int i = 0; i < nbefore; i++) before[i] = tu_submit(ex, "g", NULL, tu_noop_fn, NULL);
        groupconc_task *gt = tu_submit(ex, "g", NULL, chain_gate_fn, &g);
        tu_park_release(&blocker);
        assert_true(tu_latch_wait(&g.started));
        assert_int_equal(atomic_load(&g.rc), GROUPCONC_OK);
        tu_wait_status(before[nbefore - 1], GROUPCONC_STATUS_SUCCESS); /* while G holds the worker */
        if (g.defer) {
            assert_int_equal(groupconc_deferred_complete(g.deferred, 0, &g), GROUPCONC_OK);
        } else {
            tu_latch_open(&g.go);
        }
        groupconc_result r = tu_wait(gt);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(r.value, &g);
        assert_int_equal(atomic_load(&g.bad_stats), 0);
        for (int i = 0; i < nbefore; i++) {
            tu_wait_status(before[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(before[i]);
        }
        tu_wait_status(bt, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(bt);
        groupconc_task_release(gt);
        tu_park_destroy(&blocker);
        tu_latch_destroy(&blocked);
        tu_latch_destroy(&g.started);
        tu_latch_destroy(&g.go);
    }
    /* chains form only while tasks take under GROUPCONC__SHORT_NS (2 us) a round: not under
       valgrind */
    if (!tu_under_valgrind()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
    groupconc_group_stats st = tu_gstats(ex, "g");
    assert_int_equal(st.running + st.waiting_concurrency, 0);
    assert_int_equal(st.succeeded, st.completed);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* Short tasks chained ahead of a long one: those with a completion callback complete while it
   runs. Their worker wins the long task in its chain before it knows it is long; a watched task
   (a callback, a blocked waiter) ends the chain when it returns, so its callback does not wait
   for the long one (helper-32's finding: the chain went on, and with one worker nothing ended it).
   A task nobody watches may be completed only after the long one (documented in LIMITATIONS);
   its stats are exact all the same. */
enum { AHEAD_N = 60 };

typedef struct long_task {
    tu_latch started, go;
} long_task;

static int long_task_fn(groupconc_context *ctx, void **out_value, void *arg) {
    long_task *l = arg;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down(&l->started);
    (void)tu_latch_wait(&l->go);
    return 0;
}

static void ahead_done(groupconc_task *task, const groupconc_result *r, void *user_data) {
    (void)task;
    (void)r;
    tu_latch_count_down((tu_latch *)user_data);
}

static void test_chain_completes_before_a_long_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    p.default_concurrency = 1;
    groupconc_executor *ex = tu_executor(&p);
    for (int round = 0; round < 20; round++) {
        groupconc_task *ahead[AHEAD_N];
        long_task l;
        tu_latch_init(&l.started, 1);
        tu_latch_init(&l.go, 1);
        tu_latch called, blocked;
        tu_latch_init(&called, AHEAD_N);
        tu_latch_init(&blocked, 1);
        tu_park blocker;
        tu_park_init(&blocker, &blocked, NULL);
        groupconc_task *bt = tu_submit(ex, "L", NULL, tu_park_fn, &blocker);
        assert_true(tu_latch_wait(&blocked));
        for (int i = 0; i < AHEAD_N; i++) {
            ahead[i] = tu_submit(ex, "L", NULL, tu_noop_fn, NULL);
            assert_int_equal(groupconc_task_on_complete(ahead[i], ahead_done, &called), GROUPCONC_OK);
        }
        groupconc_task *lt = tu_submit(ex, "L", NULL, long_task_fn, &l);
        tu_park_release(&blocker);
        assert_true(tu_latch_wait(&l.started));
        assert_true(tu_latch_wait(&called)); /* while the long one runs: the only worker is in it */
        groupconc_group_stats st = tu_gstats(ex, "L");
        assert_int_equal(st.running, 1);
        assert_int_equal(st.succeeded, (uint64_t)(round * (AHEAD_N + 2) + 1 + AHEAD_N));
        tu_latch_open(&l.go);
        tu_wait_status(lt, GROUPCONC_STATUS_SUCCESS);
        tu_wait_status(bt, GROUPCONC_STATUS_SUCCESS);
        for (int i = 0; i < AHEAD_N; i++) {
            tu_wait_status(ahead[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(ahead[i]);
        }
        groupconc_task_release(lt);
        groupconc_task_release(bt);
        tu_park_destroy(&blocker);
        tu_latch_destroy(&blocked);
        tu_latch_destroy(&called);
        tu_latch_destroy(&l.started);
        tu_latch_destroy(&l.go);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A completion callback registered on a chained task after it returned (too late to stop the chain:
   only a task watched before it returns is completed at once) waits on the task that ran after it
   in the same chain. The worker completes both from one list after the chain ends; the wait must
   find the later task owed there and complete it first (manual, section 5: "a task whose
   completion this thread runs next is completed first"). Before the fix the serial step's list was
   owed in no frame: the wait slept for a completion only this thread would run (a hang; here the
   bounded wait's ETIMEDOUT), in the first round of every run. */
enum { CBWAIT_N = 400, CBWAIT_ROUNDS = 5 };
static _Atomic(groupconc_task *) cbwait_h[CBWAIT_N];
static atomic_int cbwait_registered, cbwait_run, cbwait_timeouts;

static void cbwait_cb(groupconc_task *t, const groupconc_result *res, void *user_data) {
    groupconc_result r;
    (void)t;
    (void)res;
    atomic_fetch_add(&cbwait_run, 1);
    /* EDEADLK: the task before had completed already, so the callback runs at once, inside the
       body of the very task it would wait on */
    int rc = groupconc_task_wait_for(atomic_load(&cbwait_h[(intptr_t)user_data]), GROUPCONC_SEC(5), &r);
    if (rc != GROUPCONC_OK && rc != GROUPCONC_EDEADLK) atomic_fetch_add(&cbwait_timeouts, 1);
}

static int cbwait_fn(groupconc_context *ctx, void **out_value, void *arg) {
    long i = (long)(intptr_t)arg;
    (void)ctx;
    (void)out_value;
    if (i > 0 && i % 8 == 0) { /* the task before this one has returned: watch it now */
        atomic_fetch_add(&cbwait_registered, 1);
        assert_int_equal(groupconc_task_on_complete(atomic_load(&cbwait_h[i - 1]), cbwait_cb, (void *)(intptr_t)i),
                         GROUPCONC_OK);
    }
    return 0;
}

static void test_chain_callback_waits_on_a_later_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1; /* no listener: a listener turns serial runs off */
    groupconc_executor *ex = tu_executor(&p);
    long ends_before = atomic_load(&chain_ends_committed);
    for (int round = 0; round < CBWAIT_ROUNDS; round++) {
        assert_int_equal(groupconc_group_pause(ex, "s"), GROUPCONC_OK); /* every handle stored first */
        for (long i = 0; i < CBWAIT_N; i++) atomic_store(&cbwait_h[i], tu_submit(ex, "s", NULL, cbwait_fn, (void *)(intptr_t)i));
        assert_int_equal(groupconc_group_resume(ex, "s"), GROUPCONC_OK);
        int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
        for (bool done = false; !done;) { /* poll: a waiter would keep chains from forming */
            assert_int_equal(groupconc_task_is_done(atomic_load(&cbwait_h[CBWAIT_N - 1]), &done), GROUPCONC_OK);
            assert_true(tu_now_ns() < deadline);
            if (!done) tu_sleep_ns(TU_MS);
        }
        for (long i = 0; i < CBWAIT_N; i++) {
            tu_wait_status(atomic_load(&cbwait_h[i]), GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(groupconc_task_release(atomic_exchange(&cbwait_h[i], NULL)), GROUPCONC_OK);
        }
        assert_int_equal(atomic_load(&cbwait_timeouts), 0);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* every callback has run */
    assert_int_equal(atomic_load(&cbwait_run), atomic_load(&cbwait_registered));
    assert_int_equal(atomic_load(&cbwait_timeouts), 0);
    print_message("callback waits: %d callbacks, %ld chains ended with tasks committed\n", atomic_load(&cbwait_run),
                  atomic_load(&chain_ends_committed) - ends_before);
    if (!tu_under_valgrind()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
}

/* ---- chains meeting the features that take the lock mid-drain --------------------------------- */
/* One cap-1 key drains a queue of no-op tasks in chains (one blocker holds the key while they
   queue, then lets go) while this thread, mid-drain, changes the key's concurrency, lets queue
   deadlines expire, shuts the group or the executor down, or dumps the state: each takes the
   executor lock, which ends the chain first, so each must see (and leave) exact state. A gate task
   in the queue (index mix->gate, and every gate_step after it up to MIX_GATES) stalls a chain on a
   task it committed to, until this thread opens it: what waits behind it is then known, whatever
   the timing. */
enum { MIX_MAX = 20000, MIX_GATES = 16 };

typedef struct mix_run mix_run;

/* A task's argument: its run and index (not the global `mix`: after a failed test, whose executor
   runs on, its tasks must not write into the next test's run). */
typedef struct mix_slot {
    mix_run *run;
    long i;
} mix_slot;

struct mix_run {
    groupconc_executor *ex;
    long n, gate, gate_step;          /* tasks; the first gate's index (-1: none); 0: one gate */
    int ngates;
    groupconc_task *h[MIX_MAX];
    mix_slot slot[MIX_MAX];
    groupconc_result r[MIX_MAX];
    int64_t max_wait[MIX_MAX];        /* its spec's max_wait_ns (0: the group's) */
    atomic_int ran[MIX_MAX];          /* times its function was entered */
    atomic_int seq[MIX_MAX];          /* the order it started in, from 1 (0: never ran) */
    atomic_int cur[MIX_MAX];          /* tasks of the key inside their function as it entered */
    atomic_int next_seq;
    atomic_int entered;               /* tasks that stored their cur (each took its seq first) */
    atomic_bool gate_saw_cancel;
    tu_peak peak;
    tu_latch gate_in[MIX_GATES], gate_go[MIX_GATES]; /* gate j started; let it return */
    tu_latch blocked;
    tu_park blocker;
    groupconc_task *b;
};

static mix_run *mix;

/* Which gate task i of run m is (-1: none). */
static long mix_gate_of(const mix_run *m, long i) {
    if (m->gate < 0 || i < m->gate) return -1;
    if (m->gate_step == 0) return i == m->gate ? 0 : -1;
    if ((i - m->gate) % m->gate_step != 0 || (i - m->gate) / m->gate_step >= m->ngates) return -1;
    return (i - m->gate) / m->gate_step;
}

static int mix_fn(groupconc_context *ctx, void **out_value, void *arg) {
    mix_run *m = ((mix_slot *)arg)->run;
    long i = ((mix_slot *)arg)->i;
    (void)out_value;
    atomic_fetch_add(&m->ran[i], 1);
    /* its place in the start order first, then the count of tasks inside: a task that counted
       itself in beside one still running under a cap of 2, then took its place only after the test
       read next_seq for the lowered cap, was judged as started at cap 1 (seen once under TSan and
       once under valgrind: "2 != 1"); `entered` then says the count was taken (the test waits for
       it before it raises the cap: see test_chain_meets_live_limits) */
    atomic_store(&m->seq[i], atomic_fetch_add(&m->next_seq, 1) + 1);
    atomic_store(&m->cur[i], tu_peak_enter(&m->peak));
    atomic_fetch_add(&m->entered, 1);
    long j = mix_gate_of(m, i);
    if (j >= 0) {
        tu_latch_count_down(&m->gate_in[j]);
        (void)tu_latch_wait(&m->gate_go[j]);
        if (groupconc_context_is_cancelled(ctx)) atomic_store(&m->gate_saw_cancel, true);
    }
    tu_peak_leave(&m->peak);
    return 0;
}

/* An executor (max_threads, concurrency 1) whose key "c" is held by a blocker while n tasks queue
   (the gates, if any, have id "gate"); max_wait: each task's spec (NULL: the group's). */
static void mix_begin_gates(int max_threads, long n, long gate, long gate_step, int ngates,
                            const int64_t *max_wait) {
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = max_threads;
    p.default_concurrency = 1;
    assert_true(n <= MIX_MAX);
    mix = calloc(1, sizeof *mix);
    assert_non_null(mix);
    mix->ex = tu_executor(&p);
    mix->n = n;
    mix->gate = gate;
    mix->gate_step = gate_step;
    mix->ngates = gate_step ? ngates : 1;
    assert_true(mix->ngates <= MIX_GATES);
    tu_peak_init(&mix->peak);
    for (int j = 0; j < MIX_GATES; j++) {
        tu_latch_init(&mix->gate_in[j], 1);
        tu_latch_init(&mix->gate_go[j], 1);
    }
    tu_latch_init(&mix->blocked, 1);
    tu_park_init(&mix->blocker, &mix->blocked, NULL);
    mix->b = tu_submit(mix->ex, "c", NULL, tu_park_fn, &mix->blocker);
    assert_true(tu_latch_wait(&mix->blocked));
    for (long i = 0; i < n; i++) {
        groupconc_task_spec s;
        memset(&s, 0, sizeof s);
        s.group = "c";
        s.task_id = mix_gate_of(mix, i) >= 0 ? "gate" : NULL;
        s.fn = mix_fn;
        mix->slot[i].run = mix;
        mix->slot[i].i = i;
        s.arg = &mix->slot[i];
        s.max_wait_ns = mix->max_wait[i] = max_wait ? max_wait[i] : 0;
        assert_int_equal(groupconc_submit_spec(mix->ex, &s, &mix->h[i]), GROUPCONC_OK);
    }
}

/* The same with at most one gate (gate -1: none). */
static void mix_begin(int max_threads, long n, long gate, const int64_t *max_wait) {
    mix_begin_gates(max_threads, n, gate, 0, 1, max_wait);
}

/* Let the drain go. */
static void mix_release(void) { tu_park_release(&mix->blocker); }

/* Until `count` tasks started (or every task is done), outside the library (a thread blocked in a
   wait would keep chains from forming); false at TU_TIMEOUT_NS. The clock is read before the
   count: false means the count was short after the deadline, not that this thread was kept off the
   CPU past it (under valgrind's one thread at a time, the landing CI of c785614 failed so: a round
   there takes up to 10 s). Under valgrind it yields its turn rather than spin through it. */
static bool mix_wait_seq(long count) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    bool done = false, vg = tu_under_valgrind();
    for (;;) {
        bool late = tu_now_ns() > deadline;
        if (atomic_load(&mix->next_seq) >= count) return true;
        if (groupconc_task_is_done(mix->h[mix->n - 1], &done) != GROUPCONC_OK || done) return true;
        if (late) return false;
        if (vg) tu_yield();
        else tu_spin(200); /* a sleep would let a drain of short tasks finish meanwhile */
    }
}

/* Every task done, its result in mix->r (the handles are released by mix_end). */
static void mix_collect(void) {
    for (long i = 0; i < mix->n; i++) mix->r[i] = tu_wait(mix->h[i]);
    tu_wait_status(mix->b, GROUPCONC_STATUS_SUCCESS);
}

/* Each task either ran exactly once and succeeded, or never ran and completed with `other` /
   `reason`; those that ran started in FIFO order, one at a time (unless gates are spaced: see
   test_chain_meets_live_limits). Returns how many ran. */
static long mix_check(groupconc_status other, int reason) {
    int last = 0;
    long ran = 0;
    for (long i = 0; i < mix->n; i++) {
        int seq = atomic_load(&mix->seq[i]);
        if (mix->r[i].status == GROUPCONC_STATUS_SUCCESS) {
            assert_int_equal(atomic_load(&mix->ran[i]), 1);
            assert_true(seq > last);
            if (mix->gate_step == 0) assert_int_equal(atomic_load(&mix->cur[i]), 1);
            last = seq;
            ran++;
        } else {
            assert_int_equal(mix->r[i].status, other);
            assert_int_equal(mix->r[i].reason, reason);
            assert_int_equal(atomic_load(&mix->ran[i]), 0);
            assert_int_equal(seq, 0);
        }
    }
    assert_int_equal(atomic_load(&mix->next_seq), ran);
    return ran;
}

/* Release the handles, destroy the executor, free the run. */
static void mix_end(void) {
    for (long i = 0; i < mix->n; i++) assert_int_equal(groupconc_task_release(mix->h[i]), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(mix->b), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(mix->ex), GROUPCONC_OK);
    tu_park_destroy(&mix->blocker);
    tu_latch_destroy(&mix->blocked);
    for (int j = 0; j < MIX_GATES; j++) {
        tu_latch_destroy(&mix->gate_in[j]);
        tu_latch_destroy(&mix->gate_go[j]);
    }
    free(mix);
    mix = NULL;
}

static void mix_set_concurrency(int c) {
    groupconc_group_limits l = groupconc_group_limits_keep("c");
    l.concurrency = c;
    assert_int_equal(groupconc_group_limits_set(mix->ex, &l), GROUPCONC_OK);
}

/* (1) Live limits, mid-drain: the key's concurrency goes to 2 and back to 1, over and over, as
   fast as this thread can while the drain runs free (phase 1), then at known points (phase 2: a
   gate stalls the chain it runs in; the raise lets the next tasks run beside it, in a chain of the
   other worker, up to the next gate; the lowering then preempts nothing, and nothing starts until
   the second gate returns). Every sample of the group's stats shows at most the cap in effect running
   (after a lowering, once the tasks past the new cap have finished), nothing lost; the tasks that
   started while the cap was 1 started in FIFO order, alone; every task ran exactly once. */
enum { LIMIT_DRAINS = 5, LIMIT_GATES = 12, LIMIT_GATE_STEP = 400 };

static unsigned char limit_cap1[MIX_MAX + 1]; /* phase 1: the seqs started with the cap at 1 */

static void limit_mark(int lo, int hi) {
    for (int s = lo < 1 ? 1 : lo; s <= hi && s <= MIX_MAX; s++) limit_cap1[s] = 1;
}

static void test_chain_meets_live_limits(void **state) {
    (void)state;
    long ends_before = atomic_load(&chain_ends_committed);
    /* phase 1, over several drains */
    long rounds = 0, mid_drain = 0, samples = 0, at_cap1 = 0;
    for (int drain = 0; drain < LIMIT_DRAINS; drain++) {
        memset(limit_cap1, 0, sizeof limit_cap1);
        mix_begin(2, MIX_MAX, -1, NULL);
        int lo = 1;
        bool done = false;
        mix_release();
        while (!done) {
            groupconc_group_stats st;
            assert_int_equal(groupconc_task_is_done(mix->h[mix->n - 1], &done), GROUPCONC_OK);
            /* every task with seq <= before started at cap 1, and counted the tasks inside at cap 1:
               one that took its seq before this read but counted only after the raise below found the
               next task, started at cap 2, beside it ("2 != 1" under TSan, 1 run in 6). entered <=
               next_seq always; equal at the first read (and no seq taken up to the second): every
               task with a seq had counted by then */
            int before;
            for (;;) {
                int entered = atomic_load(&mix->entered);
                before = atomic_load(&mix->next_seq);
                if (entered == before) break;
                tu_spin(200); /* a task between its seq and its count: a few instructions */
            }
            limit_mark(lo, before);
            mid_drain += before < mix->n;
            rounds++;
            mix_set_concurrency(2);
            st = tu_gstats(mix->ex, "c");
            assert_int_equal(st.concurrency, 2);
            assert_true(st.running + st.ready <= 2);
            assert_int_equal(st.completed + st.running + st.ready + st.waiting_concurrency, (uint64_t)mix->n + 1);
            mix_set_concurrency(1);
            int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
            for (long tries = 0;; tries++) { /* lowering never preempts: wait for the tasks past the new cap to finish */
                /* after a few samples, back off: each sample takes the lock, and a poll that never
                   blocks kept the workers from it for 30 s under valgrind (one thread at a time) */
                if (tries >= 64) tu_sleep_ns(20000);
                st = tu_gstats(mix->ex, "c");
                samples++;
                assert_int_equal(st.concurrency, 1);
                assert_true(st.running + st.ready <= 2);
                assert_int_equal(st.completed + st.running + st.ready + st.waiting_concurrency, (uint64_t)mix->n + 1);
                if (st.running + st.ready <= 1) break;
                if (tu_now_ns() >= deadline)
                    fail_msg("cap 1 never reached: running %u ready %u waiting %u (running layer %u) completed %llu, seq %d",
                             (unsigned)st.running, (unsigned)st.ready, (unsigned)st.waiting_concurrency, (unsigned)st.waiting_running,
                             (unsigned long long)st.completed, atomic_load(&mix->next_seq));
            }
            lo = atomic_load(&mix->next_seq) + 1; /* only the one running then may start before this */
            for (int k = 0; k < 4; k++) {
                st = tu_gstats(mix->ex, "c");
                samples++;
                assert_true(st.running + st.ready <= 1);
                assert_int_equal(st.completed + st.running + st.ready + st.waiting_concurrency, (uint64_t)mix->n + 1);
            }
        }
        limit_mark(lo, MIX_MAX);
        mix_collect();
        int last = 0;
        for (long i = 0; i < mix->n; i++) {
            int seq = atomic_load(&mix->seq[i]);
            assert_int_equal(mix->r[i].status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(atomic_load(&mix->ran[i]), 1);
            assert_true(seq >= 1 && seq <= mix->n);
            if (!limit_cap1[seq]) continue;
            assert_true(seq > last); /* FIFO among those that started at cap 1 ... */
            last = seq;
            assert_int_equal(atomic_load(&mix->cur[i]), 1); /* ... alone */
            at_cap1++;
        }
        assert_int_equal(atomic_load(&mix->next_seq), mix->n);
        assert_true(tu_peak_max(&mix->peak) <= 2);
        groupconc_group_stats st = tu_gstats(mix->ex, "c");
        assert_int_equal(st.succeeded, (uint64_t)mix->n + 1);
        assert_int_equal(st.completed, st.submitted);
        assert_int_equal(st.running + st.ready + st.waiting_concurrency, 0);
        mix_end();
    }
    print_message("live limits, free: %ld rounds (%ld mid-drain), %ld samples, %ld tasks at cap 1\n",
                  rounds, mid_drain, samples, at_cap1);

    /* phase 2: gates g0, g1, ... every LIMIT_GATE_STEP tasks; round r uses g(2r) and g(2r+1) */
    long n = LIMIT_GATE_STEP * (LIMIT_GATES + 1);
    mix_begin_gates(2, n, LIMIT_GATE_STEP / 2, LIMIT_GATE_STEP, LIMIT_GATES, NULL);
    mix_release();
    for (int j = 0; j < LIMIT_GATES; j += 2) {
        long g0 = mix->gate + j * mix->gate_step, g1 = g0 + mix->gate_step;
        assert_true(tu_latch_wait(&mix->gate_in[j])); /* its chain stalls on it, at cap 1 */
        groupconc_group_stats gs = tu_gstats(mix->ex, "c");
        assert_int_equal(gs.running, 1);
        assert_int_equal(gs.waiting_concurrency, (uint64_t)(n - g0 - 1));
        mix_set_concurrency(2); /* the next ones run beside it, up to g1 */
        assert_true(tu_latch_wait(&mix->gate_in[j + 1]));
        gs = tu_gstats(mix->ex, "c");
        assert_int_equal(gs.running, 2);
        assert_int_equal(gs.waiting_concurrency, (uint64_t)(n - g1 - 1));
        mix_set_concurrency(1);
        gs = tu_gstats(mix->ex, "c");
        assert_int_equal(gs.concurrency, 1);
        assert_int_equal(gs.running, 2); /* nothing preempted */
        tu_latch_open(&mix->gate_go[j]);
        bool g0_done = false;
        int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
        for (long tries = 0; !g0_done; tries++) {
            assert_int_equal(groupconc_task_is_done(mix->h[g0], &g0_done), GROUPCONC_OK);
            assert_true(tu_now_ns() < deadline);
            if (tries >= 64) tu_sleep_ns(20000); /* as above: let the workers have the CPU */
        }
        for (int k = 0; k < 20; k++) { /* g1 holds the only permit: nothing starts */
            gs = tu_gstats(mix->ex, "c");
            assert_int_equal(gs.running, 1);
            assert_int_equal(gs.waiting_concurrency, (uint64_t)(n - g1 - 1));
        }
        assert_int_equal(atomic_load(&mix->next_seq), g1 + 1);
        tu_latch_open(&mix->gate_go[j + 1]);
    }
    mix_collect();
    assert_int_equal(mix_check(GROUPCONC_STATUS_SUCCESS, 0), n);
    for (long i = 0; i < n; i++) { /* two at once exactly from after g(2r) to g(2r + 1) */
        long j = (i - 1 - mix->gate) / mix->gate_step;
        bool beside = i > mix->gate && j % 2 == 0 && j < LIMIT_GATES;
        assert_int_equal(atomic_load(&mix->cur[i]), beside ? 2 : 1);
    }
    groupconc_group_stats st = tu_gstats(mix->ex, "c");
    assert_int_equal(st.succeeded, (uint64_t)n + 1);
    assert_int_equal(st.completed, st.submitted);
    mix_end();
    if (!tu_under_valgrind()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
    print_message("live limits: %ld chains ended after a task\n", atomic_load(&chain_ends_committed) - ends_before);
}

/* (2) Queue deadlines: one task in three has a 3 ms deadline; a gate half-way stalls the chain it
   runs in, so the deadlined tasks behind it surely expire while they wait behind the chain (the
   housekeeper ends it). Each task ran exactly once or completed REJECTED / EEXPIRED_CONCURRENCY,
   never both; succeeded + expired == submitted. */
enum { DEADLINE_N = 8000 };

static void test_chain_meets_deadlines(void **state) {
    (void)state;
    /* under valgrind its 3 ms deadlines and bounded polls are timing, not behaviour: one CI run
       ran out of its bound there (note10) */
    if (tu_under_valgrind()) skip();
    static int64_t max_wait[DEADLINE_N];
    long gate = DEADLINE_N / 2, behind = 0;
    for (long i = 0; i < DEADLINE_N; i++) {
        max_wait[i] = i % 3 == 1 && i != gate ? 3 * TU_MS : GROUPCONC_FOREVER;
        behind += i > gate && max_wait[i] != GROUPCONC_FOREVER;
    }
    mix_begin(2, DEADLINE_N, gate, max_wait);
    long ends_before = atomic_load(&chain_ends_committed);
    mix_release();
    assert_true(tu_latch_wait(&mix->gate_in[0]));
    /* every deadlined task behind the gate expires while the gate holds the key */
    for (long i = gate + 1; i < mix->n; i++) {
        if (mix->max_wait[i] == GROUPCONC_FOREVER) continue;
        int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
        bool done = false;
        for (;;) {
            assert_int_equal(groupconc_task_is_done(mix->h[i], &done), GROUPCONC_OK);
            if (done) break;
            assert_true(tu_now_ns() < deadline);
            tu_sleep_ns(100000);
        }
    }
    groupconc_group_stats st = tu_gstats(mix->ex, "c");
    assert_int_equal(st.running, 1); /* the gate */
    assert_int_equal(st.ready, 0);
    assert_int_equal(st.completed + st.running + st.waiting_concurrency, (uint64_t)mix->n + 1);
    tu_latch_open(&mix->gate_go[0]);
    mix_collect();
    long ran = mix_check(GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    long expired = mix->n - ran;
    for (long i = 0; i < mix->n; i++) {
        if (mix->r[i].status != GROUPCONC_STATUS_SUCCESS) assert_true(mix->max_wait[i] != GROUPCONC_FOREVER);
        if (i > gate && mix->max_wait[i] != GROUPCONC_FOREVER)
            assert_int_equal(mix->r[i].status, GROUPCONC_STATUS_REJECTED);
    }
    assert_true(expired >= behind);
    st = tu_gstats(mix->ex, "c");
    assert_int_equal(st.succeeded, (uint64_t)ran + 1);
    assert_int_equal(st.expired, (uint64_t)expired);
    assert_int_equal(st.succeeded + st.expired, st.submitted);
    assert_int_equal(st.completed, st.submitted);
    assert_int_equal(st.submitted, (uint64_t)mix->n + 1);
    assert_int_equal(st.running + st.ready + st.waiting_concurrency, 0);
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
    print_message("deadlines: %ld ran, %ld expired (%ld behind the gate)\n", ran, expired, behind);
    mix_end();
}

/* (3) Group shutdown mid-drain: at a point of the drain (round 0), and with a gate stalling the
   chain it runs in (round 1: the gate is flagged, everything behind it cancelled). The waiters
   complete CANCELLED / ECANCELLED, none starts after the call but the one running then, the
   counters add up, and the group takes new tasks afterwards. */
enum { SHUT_N = MIX_MAX };

static void test_chain_meets_group_shutdown(void **state) {
    (void)state;
    long ends_before = atomic_load(&chain_ends_committed);
    for (int round = 0, retries = 0; round < 2; round++) {
        long gate = round == 1 ? SHUT_N / 2 : -1;
        mix_begin(2, SHUT_N, gate, NULL);
        mix_release();
        if (gate >= 0) assert_true(tu_latch_wait(&mix->gate_in[0]));
        else assert_true(mix_wait_seq(SHUT_N / 10));
        int at_call = atomic_load(&mix->next_seq);
        assert_int_equal(groupconc_group_shutdown(mix->ex, "c"), GROUPCONC_OK);
        int after = atomic_load(&mix->next_seq);
        if (gate >= 0) tu_latch_open(&mix->gate_go[0]);
        mix_collect();
        long ran = mix_check(GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
        assert_true(ran <= after + 1); /* only the task running at the call may start after it */
        if (gate >= 0) {
            assert_int_equal(ran, gate + 1);
            assert_true(atomic_load(&mix->gate_saw_cancel));
        }
        groupconc_group_stats st = tu_gstats(mix->ex, "c");
        assert_int_equal(st.succeeded, (uint64_t)ran + 1);
        assert_int_equal(st.cancelled, (uint64_t)(mix->n - ran));
        assert_int_equal(st.completed, st.submitted);
        assert_int_equal(st.running + st.ready + st.waiting_concurrency, 0);
        groupconc_task *t = tu_submit(mix->ex, "c", NULL, tu_noop_fn, NULL); /* the key's permit is back */
        tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t);
        print_message("group shutdown round %d: %ld ran, %ld cancelled\n", round, ran, mix->n - ran);
        mix_end();
        if (at_call >= SHUT_N && ++retries < 5) round--; /* the drain ended first: again */
    }
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
}

/* (4) Executor shutdown mid-drain: graceful (everything runs, once, in order), immediate at a
   point of the drain, and immediate with a gate stalling the chain it runs in. No task lost or run
   twice, the counters add up, destroy returns OK and gives every block back. */
static void test_chain_meets_executor_shutdown(void **state) {
    (void)state;
    long ends_before = atomic_load(&chain_ends_committed);
    for (int round = 0, retries = 0; round < 3; round++) {
        long live_before = atomic_load(&pool_live_blocks);
        long gate = round == 2 ? SHUT_N / 2 : -1;
        mix_begin(2, SHUT_N, gate, NULL);
        mix_release();
        if (gate >= 0) assert_true(tu_latch_wait(&mix->gate_in[0]));
        else assert_true(mix_wait_seq(SHUT_N / 10));
        int after, at_call = atomic_load(&mix->next_seq);
        if (round == 0) {
            assert_int_equal(groupconc_executor_shutdown_graceful(mix->ex, GROUPCONC_FOREVER), GROUPCONC_OK);
            after = atomic_load(&mix->next_seq);
            assert_int_equal(after, mix->n); /* everything ran before it returned */
        } else {
            assert_int_equal(groupconc_executor_shutdown(mix->ex), GROUPCONC_OK);
            after = atomic_load(&mix->next_seq);
        }
        if (gate >= 0) tu_latch_open(&mix->gate_go[0]);
        mix_collect();
        long ran = mix_check(GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
        assert_true(ran <= after + 1);
        if (round == 0) assert_int_equal(ran, mix->n);
        if (gate >= 0) {
            assert_int_equal(ran, gate + 1);
            assert_true(atomic_load(&mix->gate_saw_cancel));
        }
        groupconc_executor_stats xs = tu_xstats(mix->ex);
        assert_int_equal(xs.submitted, (uint64_t)mix->n + 1);
        assert_int_equal(xs.succeeded, (uint64_t)ran + 1);
        assert_int_equal(xs.cancelled, (uint64_t)(mix->n - ran));
        assert_int_equal(xs.completed, xs.submitted);
        assert_int_equal(xs.running + xs.ready + xs.waiting, 0);
        print_message("executor shutdown round %d: %ld ran, %ld cancelled\n", round, ran, mix->n - ran);
        mix_end();
        assert_int_equal(atomic_load(&pool_live_blocks), live_before); /* nothing kept alive */
        if (at_call >= SHUT_N && ++retries < 5) round--; /* the drain ended first: again */
    }
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
}

#ifndef GROUPCONC_NO_DUMP
/* Occurrences of needle in s. */
static long count_str(const char *s, const char *needle) {
    long n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The key's group object's field `name` (",\"name\":" after "\"key\":\"c\""). */
static long dump_group_field(const char *s, const char *name) {
    char pat[64];
    const char *g = strstr(s, "{\"key\":\"c\"");
    assert_non_null(g);
    (void)snprintf(pat, sizeof pat, ",\"%s\":", name);
    const char *f = strstr(g, pat);
    assert_non_null(f);
    return strtol(f + strlen(pat), NULL, 10);
}

static char *mix_dump(char *buf, size_t *size) {
    size_t need = 0;
    int rc;
    while ((rc = groupconc_executor_dump(mix->ex, buf, *size, &need)) == GROUPCONC_ERANGE) {
        free(buf);
        *size = need * 2;
        buf = malloc(*size);
        assert_non_null(buf);
    }
    assert_int_equal(rc, GROUPCONC_OK);
    return buf;
}

/* (5) The JSON dump mid-drain: at most one task of the key running (or ready), in its task list
   and in its group object, and nothing lost; with a gate stalling the chain it runs in, exactly the
   gate runs and everything behind it waits at concurrency. */
enum { DUMP_N = 3000, DUMP_ROUNDS = 8 };

static void test_chain_meets_dump(void **state) {
    (void)state;
    long ends_before = atomic_load(&chain_ends_committed);
    size_t size = 1 << 20;
    char *buf = malloc(size);
    assert_non_null(buf);
    long samples = 0, mid_drain = 0;
    for (int round = 0; round < DUMP_ROUNDS; round++) { /* the last with a gate */
        long gate = round == DUMP_ROUNDS - 1 ? DUMP_N / 2 : -1;
        mix_begin(2, DUMP_N, gate, NULL);
        mix_release();
        if (gate >= 0) {
            assert_true(tu_latch_wait(&mix->gate_in[0]));
            buf = mix_dump(buf, &size);
            assert_int_equal(count_str(buf, "\"state\":\"running\""), 1);
            assert_int_equal(count_str(buf, "{\"group\":\"c\",\"id\":\"gate\",\"state\":\"running\""), 1);
            assert_int_equal(count_str(buf, "\"state\":\"ready\""), 0);
            assert_int_equal(count_str(buf, "\"state\":\"waiting_concurrency\""), mix->n - gate - 1);
            assert_int_equal(dump_group_field(buf, "running"), 1);
            assert_int_equal(dump_group_field(buf, "waiting_concurrency"), mix->n - gate - 1);
            assert_int_equal(dump_group_field(buf, "succeeded"), gate + 1);
            samples++;
            tu_latch_open(&mix->gate_go[0]);
        }
        bool done = false;
        while (!done) {
            assert_int_equal(groupconc_task_is_done(mix->h[mix->n - 1], &done), GROUPCONC_OK);
            buf = mix_dump(buf, &size);
            long running = count_str(buf, "\"state\":\"running\"");
            long ready = count_str(buf, "\"state\":\"ready\"");
            long waiting = count_str(buf, "\"state\":\"waiting_concurrency\"");
            assert_true(running + ready <= 1);
            assert_int_equal(dump_group_field(buf, "running"), running);
            assert_int_equal(dump_group_field(buf, "ready"), ready);
            assert_int_equal(dump_group_field(buf, "waiting_concurrency"), waiting);
            assert_int_equal(dump_group_field(buf, "completed") + running + ready + waiting, mix->n + 1);
            samples++;
            mid_drain += waiting > 0;
            /* a breath between dumps: back to back, each taking the executor lock for a dump of
               3000 tasks, they kept the workers from it (the coverage build, -O0, beside other
               suites: 2 minutes, once past the suite's 300 s) */
            tu_sleep_ns(100 * 1000);
        }
        mix_collect();
        assert_int_equal(mix_check(GROUPCONC_STATUS_SUCCESS, 0), mix->n);
        mix_end();
    }
    print_message("dump: %ld samples, %ld with tasks waiting\n", samples, mid_drain);
    free(buf);
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
}
#endif

/* ---- chains in shard 0 and in a second shard, met by each kind of lock entry (review helper-66) - */
/* At 16 shards the tests above chain one key, "c", in one shard (5), never shard 0, never two chains
   at once, and their napper ends most chains before another lock entry meets one. Here cap-1 keys in
   shard 0 and in shard XC_SHARD2 (9: no worker's home; at one shard both keys are in shard 0) drain
   XC_N tasks each behind a blocker; a gate task (index gate) stalls the drain, in a chain when the
   worker chained up to it. With one worker the keys drain one after the other; with two, at once,
   in two shards (while every lock entry takes every shard and ends every chain, the drain that
   reaches its gate first loses its chain to the other worker's next step: one chain is left to
   meet; once 5b narrows the lock both stay). While every drain is stalled this thread makes one
   call that takes the lock (stats, dump, a wait, a live limit, a cancel, a pause, a graceful
   shutdown), which must end the chains first: what it sees and does is checked exactly (the tasks
   before the gate finished, the gate running, the rest waiting; nothing run twice, nothing lost,
   FIFO, the cap kept). The chain-end hook counts, per thread, the ends with tasks committed to
   that this thread's calls made (chain_ends_here): such a call met a chain. The tests print how
   many did and assert only that chains formed (as the tests above): how far they reach is timing.
   In a plain build the calls meet a chain 14 times in 16 at one worker; under TSan almost never (a
   locked step takes longer than GROUPCONC__SHORT_NS there: a chain commits to one task at most),
   unless the pacing times are scaled up (GROUPCONC__TIME_SCALE=20: CI's tsan section). */
enum { XC_N = 40, XC_SHARD2 = GROUPCONC__SHARDS > 1 ? 9 : 0 };

typedef struct xc_group xc_group;

typedef struct xc_slot {
    xc_group *g;
    int i;
} xc_slot;

struct xc_group {
    char key[32];
    int gate;                         /* the gate task's index */
    groupconc_task *h[XC_N];
    xc_slot slot[XC_N];
    groupconc_result r[XC_N];
    atomic_int ran[XC_N];             /* times its function was entered */
    atomic_int seq[XC_N];             /* the order it started in, from 1 (0: never ran) */
    atomic_int next_seq;
    atomic_bool gate_saw_cancel;
    tu_peak peak;
    tu_latch gate_in, gate_go, blocked;
    tu_park blocker;
    groupconc_task *b;
};

static int xc_fn(groupconc_context *ctx, void **out_value, void *arg) {
    xc_group *g = ((xc_slot *)arg)->g;
    int i = ((xc_slot *)arg)->i;
    (void)out_value;
    tu_peak_enter(&g->peak);
    atomic_fetch_add(&g->ran[i], 1);
    atomic_store(&g->seq[i], atomic_fetch_add(&g->next_seq, 1) + 1);
    if (i == g->gate) {
        tu_latch_count_down(&g->gate_in);
        (void)tu_latch_wait(&g->gate_go);
        if (groupconc_context_is_cancelled(ctx)) atomic_store(&g->gate_saw_cancel, true);
    }
    tu_peak_leave(&g->peak);
    return 0;
}

/* The first key "<prefix><j>" whose group falls in shard `shard`. */
static void xc_key(char *buf, size_t size, const char *prefix, unsigned shard) {
    for (int j = 0;; j++) {
        snprintf(buf, size, "%s%d", prefix, j);
        if (tu_key_shard(buf) == shard) return;
    }
}

/* Key `prefix` in `shard`, held by a parked blocker while XC_N tasks queue (max_wait: each one's
   queue deadline, NULL: none); the drain waits for xc_release. */
static void xc_begin(groupconc_executor *ex, xc_group *g, const char *prefix, unsigned shard, int gate,
                     const int64_t *max_wait) {
    memset(g, 0, sizeof *g);
    xc_key(g->key, sizeof g->key, prefix, shard);
    assert_int_equal(tu_key_shard(g->key), shard);
    g->gate = gate;
    tu_peak_init(&g->peak);
    tu_latch_init(&g->gate_in, 1);
    tu_latch_init(&g->gate_go, 1);
    tu_latch_init(&g->blocked, 1);
    tu_park_init(&g->blocker, &g->blocked, NULL);
    g->b = tu_submit(ex, g->key, NULL, tu_park_fn, &g->blocker);
    assert_true(tu_latch_wait(&g->blocked));
    for (int i = 0; i < XC_N; i++) {
        groupconc_task_spec s;
        memset(&s, 0, sizeof s);
        s.group = g->key;
        s.task_id = i == gate ? "gate" : NULL;
        s.fn = xc_fn;
        g->slot[i].g = g;
        g->slot[i].i = i;
        s.arg = &g->slot[i];
        s.max_wait_ns = max_wait ? max_wait[i] : 0;
        assert_int_equal(groupconc_submit_spec(ex, &s, &g->h[i]), GROUPCONC_OK);
    }
}

static void xc_release(xc_group *g) { tu_park_release(&g->blocker); }

/* Every task done, its result in g->r; the handles released. */
static void xc_collect(xc_group *g) {
    for (int i = 0; i < XC_N; i++) {
        g->r[i] = tu_wait(g->h[i]);
        assert_int_equal(groupconc_task_release(g->h[i]), GROUPCONC_OK);
    }
    tu_wait_status(g->b, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(g->b), GROUPCONC_OK);
}

/* Each task ran exactly once and succeeded, except those in [lo, hi), which never ran and completed
   with `other` / `reason`; those that ran started in FIFO order, and at most `cap` at a time. */
static void xc_check(xc_group *g, int lo, int hi, groupconc_status other, int reason, int cap) {
    int last = 0, ran = 0;
    for (int i = 0; i < XC_N; i++) {
        int seq = atomic_load(&g->seq[i]);
        if (i >= lo && i < hi) {
            assert_int_equal(g->r[i].status, other);
            assert_int_equal(g->r[i].reason, reason);
            assert_int_equal(atomic_load(&g->ran[i]), 0);
            assert_int_equal(seq, 0);
            continue;
        }
        assert_int_equal(g->r[i].status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(atomic_load(&g->ran[i]), 1);
        assert_true(seq > last);
        last = seq;
        ran++;
    }
    assert_int_equal(atomic_load(&g->next_seq), ran);
    assert_true(tu_peak_max(&g->peak) <= cap);
}

static void xc_end(xc_group *g) {
    tu_park_destroy(&g->blocker);
    tu_latch_destroy(&g->blocked);
    tu_latch_destroy(&g->gate_in);
    tu_latch_destroy(&g->gate_go);
}

/* The group's counts while its drain is stalled on the gate, with `ready` tasks after it admitted:
   the blocker and the tasks before the gate finished (a chain's end finished them), the gate
   running, the rest waiting at concurrency. */
static void xc_stalled_stats(groupconc_executor *ex, const xc_group *g, int ready) {
    groupconc_group_stats st = tu_gstats(ex, g->key);
    assert_int_equal(st.running, 1);
    assert_int_equal(st.ready, (uint64_t)ready);
    assert_int_equal(st.waiting_concurrency, (uint64_t)(XC_N - g->gate - 1 - ready));
    assert_int_equal(st.succeeded, (uint64_t)g->gate + 1);
    assert_int_equal(st.completed, (uint64_t)g->gate + 1);
    assert_int_equal(st.submitted, (uint64_t)XC_N + 1);
}

#ifndef GROUPCONC_NO_DUMP
/* Group `key`'s object's field `name` in a dump. */
static long xc_dump_field(const char *s, const char *key, const char *name) {
    char pat[64];
    (void)snprintf(pat, sizeof pat, "{\"key\":\"%s\"", key);
    const char *g = strstr(s, pat);
    assert_non_null(g);
    (void)snprintf(pat, sizeof pat, ",\"%s\":", name);
    const char *f = strstr(g, pat);
    assert_non_null(f);
    return strtol(f + strlen(pat), NULL, 10);
}
#endif

enum { XC_STATS, XC_DUMP, XC_WAITER, XC_LIMITS, XC_CANCEL, XC_PAUSE, XC_GRACEFUL, XC_KINDS };
static const char *const xc_kind_name[XC_KINDS] = {"stats", "dump", "waiter", "limits", "cancel", "pause",
                                                   "graceful"};

/* The call of kind `kind` while the drains of g[0 .. n) are stalled on their gates, and its checks;
   then the gates open and every task's outcome is checked. Returns how many chains with tasks
   committed to the call (this thread) ended: with two workers, up to two at once. */
static long xc_observe(groupconc_executor *ex, xc_group *g, int n, int kind) {
    long before = chain_ends_here;
    int lo = XC_N, hi = XC_N, cap = 1;
    groupconc_status other = GROUPCONC_STATUS_SUCCESS;
    int reason = 0;
    switch (kind) {
    case XC_STATS: {
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.running, (uint64_t)n);
        assert_int_equal(xs.ready, 0);
        for (int k = 0; k < n; k++) xc_stalled_stats(ex, &g[k], 0);
        break;
    }
#ifndef GROUPCONC_NO_DUMP
    case XC_DUMP: {
        size_t size = 1 << 16, need = 0;
        char *buf = malloc(size);
        assert_non_null(buf);
        int rc;
        while ((rc = groupconc_executor_dump(ex, buf, size, &need)) == GROUPCONC_ERANGE) {
            free(buf);
            size = need * 2;
            buf = malloc(size);
            assert_non_null(buf);
        }
        assert_int_equal(rc, GROUPCONC_OK);
        assert_int_equal(count_str(buf, "\"state\":\"running\""), n);
        assert_int_equal(count_str(buf, "\"id\":\"gate\",\"state\":\"running\""), n);
        assert_int_equal(count_str(buf, "\"state\":\"ready\""), 0);
        long waiting = 0;
        for (int k = 0; k < n; k++) {
            waiting += XC_N - g[k].gate - 1;
            assert_int_equal(xc_dump_field(buf, g[k].key, "running"), 1);
            assert_int_equal(xc_dump_field(buf, g[k].key, "waiting_concurrency"), XC_N - g[k].gate - 1);
            assert_int_equal(xc_dump_field(buf, g[k].key, "succeeded"), g[k].gate + 1);
        }
        assert_int_equal(count_str(buf, "\"state\":\"waiting_concurrency\""), waiting);
        free(buf);
        break;
    }
#endif
    case XC_WAITER: /* the task before the gate completes (its worker is in the gate: this waiter
                       completes it), the one after waits */
        for (int k = 0; k < n; k++) {
            groupconc_result r;
            assert_int_equal(groupconc_task_wait_for(g[k].h[g[k].gate - 1], TU_TIMEOUT_NS, &r), GROUPCONC_OK);
            assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(groupconc_task_wait_for(g[k].h[g[k].gate + 1], TU_MS, &r), GROUPCONC_ETIMEDOUT);
            xc_stalled_stats(ex, &g[k], 0);
        }
        break;
    case XC_LIMITS: /* a raise admits the task after the gate (no worker is free to start it), the
                       lowering back preempts nothing */
        for (int k = 0; k < n; k++) {
            groupconc_group_limits l = groupconc_group_limits_keep(g[k].key);
            l.concurrency = 2;
            assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
            xc_stalled_stats(ex, &g[k], 1);
            l.concurrency = 1;
            assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
            xc_stalled_stats(ex, &g[k], 1);
        }
        cap = 2;
        break;
    case XC_CANCEL: /* the task before the gate finished (too late), the gate is flagged, the one
                       after it dequeued */
        for (int k = 0; k < n; k++) {
            groupconc_cancel_outcome o = GROUPCONC_CANCEL_DEQUEUED;
            assert_int_equal(groupconc_task_cancel(g[k].h[g[k].gate - 1], &o), GROUPCONC_OK);
            assert_int_equal(o, GROUPCONC_CANCEL_TOO_LATE);
            assert_int_equal(groupconc_task_cancel(g[k].h[g[k].gate], &o), GROUPCONC_OK);
            assert_int_equal(o, GROUPCONC_CANCEL_FLAGGED);
            assert_int_equal(groupconc_task_cancel(g[k].h[g[k].gate + 1], &o), GROUPCONC_OK);
            assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
        }
        lo = g[0].gate + 1;
        hi = lo + 1;
        other = GROUPCONC_STATUS_CANCELLED;
        reason = GROUPCONC_ECANCELLED;
        break;
    case XC_PAUSE: /* once the gate returns, nothing more of the key starts until the resume */
        for (int k = 0; k < n; k++) assert_int_equal(groupconc_group_pause(ex, g[k].key), GROUPCONC_OK);
        for (int k = 0; k < n; k++) xc_stalled_stats(ex, &g[k], 0);
        break;
    case XC_GRACEFUL: /* it times out on the gates, then cancels what waits behind them */
        assert_int_equal(groupconc_executor_shutdown_graceful(ex, 2 * TU_MS), GROUPCONC_ETIMEDOUT);
        lo = g[0].gate + 1;
        hi = XC_N;
        other = GROUPCONC_STATUS_CANCELLED;
        reason = GROUPCONC_ECANCELLED;
        break;
    default:
        fail();
    }
    long met = chain_ends_here - before;
    for (int k = 0; k < n; k++) tu_latch_open(&g[k].gate_go);
    if (kind == XC_PAUSE) {
        for (int k = 0; k < n; k++) { /* the gate done (polled: a waiter would end the chain) */
            int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
            for (bool done = false; !done;) {
                assert_int_equal(groupconc_task_is_done(g[k].h[g[k].gate], &done), GROUPCONC_OK);
                assert_true(tu_now_ns() < deadline);
                /* valgrind runs one thread at a time, and a spinning poll may keep the worker from
                   its turn for the whole bound (seen once in CI, 30 s): it sleeps there */
                if (!done && tu_under_valgrind()) tu_sleep_ns(TU_MS / 10);
                else if (!done) tu_spin(200);
            }
        }
        for (int k = 0; k < n; k++) {
            groupconc_group_stats st = tu_gstats(ex, g[k].key);
            assert_int_equal(st.running + st.ready, 0);
            assert_int_equal(st.waiting_concurrency, (uint64_t)(XC_N - g[k].gate - 1));
            assert_int_equal(atomic_load(&g[k].seq[g[k].gate + 1]), 0);
            assert_int_equal(atomic_load(&g[k].next_seq), g[k].gate + 1);
            assert_int_equal(groupconc_group_resume(ex, g[k].key), GROUPCONC_OK);
        }
    }
    for (int k = 0; k < n; k++) {
        xc_collect(&g[k]);
        xc_check(&g[k], lo, hi, other, reason, cap);
        if (kind == XC_CANCEL) assert_true(atomic_load(&g[k].gate_saw_cancel));
        if (kind == XC_GRACEFUL) assert_true(atomic_load(&g[k].gate_saw_cancel));
        if (kind != XC_GRACEFUL) {
            groupconc_group_stats st = tu_gstats(ex, g[k].key);
            assert_int_equal(st.completed, st.submitted);
            assert_int_equal(st.running + st.ready + st.waiting_concurrency, 0);
        }
    }
    return met;
}

/* One executor of W workers (1 or 2), keys in shard 0 and XC_SHARD2, each stalled on its gate
   (index `gate`), met by a call of kind `kind`: with one worker each key in turn (a graceful
   shutdown at the last one, stats before), with two both at once. Returns how many chains the calls
   met. */
static long xc_round(int W, int kind, int gate) {
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = W;
    p.default_concurrency = 1;
    p.keep_alive_ns = 600 * 1000000000LL;
    groupconc_executor *ex = tu_executor(&p);
    static xc_group g[2];
    const unsigned shard[2] = {0, XC_SHARD2};
    long met = 0;
    if (W == 1) {
        for (int k = 0; k < 2; k++) {
            xc_begin(ex, &g[k], k ? "xb" : "xa", shard[k], gate, NULL);
            xc_release(&g[k]);
            assert_true(tu_latch_wait(&g[k].gate_in));
            met += xc_observe(ex, &g[k], 1, kind == XC_GRACEFUL && k == 0 ? XC_STATS : kind);
            xc_end(&g[k]);
        }
    } else {
        for (int k = 0; k < 2; k++) xc_begin(ex, &g[k], k ? "xb" : "xa", shard[k], gate, NULL);
        for (int k = 0; k < 2; k++) xc_release(&g[k]);
        for (int k = 0; k < 2; k++) assert_true(tu_latch_wait(&g[k].gate_in));
        met += xc_observe(ex, g, 2, kind);
        for (int k = 0; k < 2; k++) xc_end(&g[k]);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    return met;
}

/* Every kind of call, with one worker and with two, the gate at 8 places (a chain of up to
   GROUPCONC_BATCH_MAX tasks starts at some task of the drain: the gate falls at various places of
   one). */
static void xc_kinds(int W) {
    long met[XC_KINDS] = {0};
    int rounds = 0;
    int64_t t0 = tu_now_ns();
    long g0 = atomic_load(&chain_ends_committed);
    for (int kind = 0; kind < XC_KINDS; kind++) {
#ifdef GROUPCONC_NO_DUMP
        if (kind == XC_DUMP) continue;
#endif
        for (int gate = 13; gate < 37; gate += 3, rounds++) met[kind] += xc_round(W, kind, gate);
    }
    print_message("chains across shards, %d worker(s): %d rounds in %.0f ms; chains the calls met:", W, rounds,
                  (double)(tu_now_ns() - t0) / 1e6);
    for (int kind = 0; kind < XC_KINDS; kind++) print_message(" %s %ld", xc_kind_name[kind], met[kind]);
    print_message(" (all threads %ld)\n", atomic_load(&chain_ends_committed) - g0);
    /* chains form only while tasks are short: not under valgrind. How many the calls meet depends on
       how far they reach (printed: see above) */
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > g0);
}

static void test_chain_shards_one_worker(void **state) {
    (void)state;
    xc_kinds(1);
}

static void test_chain_shards_two_at_once(void **state) {
    (void)state;
    xc_kinds(2);
}

/* The housekeeper's wake-up meets a chain (its wait's lock entry must end it): one worker, a key in
   shard 0, then one in XC_SHARD2, whose tasks before the gate have a queue deadline (XC_WAIT_NS)
   that passes while the gate stalls the drain; nobody else takes the lock meanwhile (this thread
   only sleeps). Those tasks ran long before: the housekeeper, woken for their deadlines, must find
   them finished, not expire them (an expired task that ran, or the chain's end finding it expired,
   is the failure). A task that really waited past its deadline before the drain reached it may
   expire, and then never runs. */
enum { XC_WAIT_NS = 100 * TU_MS };

static void test_chain_shards_meet_the_housekeeper(void **state) {
    (void)state;
    static int64_t max_wait[XC_N];
    static xc_group g;
    const unsigned shard[2] = {0, XC_SHARD2};
    long met = 0, ends_before = atomic_load(&chain_ends_committed);
    int64_t t0 = tu_now_ns();
    for (int round = 0; round < 8; round++) {
        groupconc_policy p = groupconc_policy_default();
        p.max_threads = 1;
        p.default_concurrency = 1;
        groupconc_executor *ex = tu_executor(&p);
        int gate = 13 + 3 * (round / 2);
        for (int i = 0; i < XC_N; i++) max_wait[i] = i < gate ? XC_WAIT_NS : GROUPCONC_FOREVER;
        xc_begin(ex, &g, "xk", shard[round % 2], gate, max_wait);
        int64_t submitted = tu_now_ns();
        xc_release(&g);
        assert_true(tu_latch_wait(&g.gate_in));
        long before = atomic_load(&chain_ends_committed);
        while (tu_now_ns() < submitted + XC_WAIT_NS + 20 * TU_MS) tu_sleep_ns(TU_MS); /* the deadlines pass */
        met += atomic_load(&chain_ends_committed) > before; /* only the housekeeper can end it */
        tu_latch_open(&g.gate_go);
        xc_collect(&g);
        int expired = 0, last = 0;
        for (int i = 0; i < XC_N; i++) {
            int seq = atomic_load(&g.seq[i]);
            if (g.r[i].status != GROUPCONC_STATUS_SUCCESS) { /* expired while it waited: never ran */
                assert_int_equal(g.r[i].status, GROUPCONC_STATUS_REJECTED);
                assert_int_equal(g.r[i].reason, GROUPCONC_EEXPIRED_CONCURRENCY);
                assert_int_equal(atomic_load(&g.ran[i]), 0);
                assert_true(i < gate);
                expired++;
                continue;
            }
            assert_int_equal(atomic_load(&g.ran[i]), 1);
            assert_true(seq > last);
            last = seq;
        }
        assert_int_equal(tu_peak_max(&g.peak), 1);
        groupconc_group_stats st = tu_gstats(ex, g.key);
        assert_int_equal(st.expired, (uint64_t)expired);
        assert_int_equal(st.succeeded, (uint64_t)(XC_N - expired) + 1);
        assert_int_equal(st.completed, st.submitted);
        xc_end(&g);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    }
    print_message("housekeeper: 8 rounds in %.0f ms, %ld met a chain\n", (double)(tu_now_ns() - t0) / 1e6, met);
    /* under TSan at the header's own times a few hundred tasks may form no chain at all (they
       commit to one task at most) */
    if (chains_assured()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
}

/* An idle worker's wake-up meets a chain (the lock entry after its sleep must end it): two workers,
   one key at a time (shard 0, then XC_SHARD2), its drain stalled on the gate. The other worker naps
   (a chain's start calls it) and, woken, ends the chain and completes what the chain finished: the
   task before the gate is done within 5 s while the gate holds, with nobody else taking the lock
   (this thread polls groupconc_task_is_done, which does not lock). Many rounds (under 1 ms each):
   under TSan the gate is in a chain only about one round in 150, as the chain's second task. */
enum { XC_WOKEN_ROUNDS = 512 };

static void test_chain_shards_meet_a_woken_worker(void **state) {
    (void)state;
    static xc_group g;
    const unsigned shard[2] = {0, XC_SHARD2};
    long met = 0, ends_before = atomic_load(&chain_ends_committed);
    int64_t t0 = tu_now_ns();
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1;
    p.keep_alive_ns = 600 * 1000000000LL;
    groupconc_executor *ex = tu_executor(&p);
    { /* both workers alive: two tasks parked side by side */
        tu_latch started;
        tu_latch_init(&started, 2);
        tu_park park[2];
        groupconc_task *parked[2];
        for (int i = 0; i < 2; i++) {
            tu_park_init(&park[i], &started, NULL);
            parked[i] = tu_submit(ex, i ? "xp1" : "xp0", NULL, tu_park_fn, &park[i]);
        }
        assert_true(tu_latch_wait(&started));
        for (int i = 0; i < 2; i++) tu_park_release(&park[i]);
        for (int i = 0; i < 2; i++) {
            tu_wait_status(parked[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(parked[i]);
            tu_park_destroy(&park[i]);
        }
        tu_latch_destroy(&started);
    }
    for (int round = 0; round < XC_WOKEN_ROUNDS; round++) {
        int gate = 13 + 3 * (round / 2 % 8);
        xc_begin(ex, &g, round % 2 ? "xwb" : "xwa", shard[round % 2], gate, NULL);
        xc_release(&g);
        assert_true(tu_latch_wait(&g.gate_in));
        long before = atomic_load(&chain_ends_committed);
        int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
        for (bool done = false; !done;) {
            assert_int_equal(groupconc_task_is_done(g.h[gate - 1], &done), GROUPCONC_OK);
            if (!done && tu_now_ns() > deadline)
                fail_msg("round %d: the task before the gate (shard %u) not done within TU_TIMEOUT_NS", round,
                         tu_key_shard(g.key));
            if (!done && tu_under_valgrind()) tu_sleep_ns(TU_MS / 10); /* as in xc_observe */
            else if (!done) tu_spin(200);
        }
        met += atomic_load(&chain_ends_committed) > before;
        assert_int_equal(atomic_load(&g.next_seq), gate + 1); /* the gate still holds the key */
        tu_latch_open(&g.gate_go);
        xc_collect(&g);
        xc_check(&g, XC_N, XC_N, GROUPCONC_STATUS_SUCCESS, 0, 1);
        xc_end(&g);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    print_message("woken worker: %d rounds in %.0f ms, %ld met a chain\n", XC_WOKEN_ROUNDS,
                  (double)(tu_now_ns() - t0) / 1e6, met);
#if !defined(POOL_UNDER_TSAN)
    if (!tu_under_valgrind()) assert_true(atomic_load(&chain_ends_committed) > ends_before);
#else
    (void)ends_before;
#endif
}

/* ---- shards (GROUPCONC__SHARDS): every shard's ready tasks served ---------------------------------- */

/* A group that submits again from its own tasks keeps its shard's ready queue from running dry; a
   task of another group, in another shard, must still run (review helper-61: with a worker that
   looked at its home shard first it never did, 22,000 hog runs in 3 s). One worker; the victim is
   submitted behind the hog's first tasks. At one shard, FIFO serves it at once. */
static groupconc_executor *hog_ex;
static atomic_int hog_stop;
static atomic_long hog_runs;
static char hog_key[32];

static int hog_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    atomic_fetch_add(&hog_runs, 1);
    tu_sleep_ns(50000);
    if (!atomic_load(&hog_stop)) (void)groupconc_submit(hog_ex, hog_key, NULL, hog_fn, NULL, NULL);
    return 0;
}

static void test_busy_shard_starves_no_other(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    hog_ex = tu_executor(&p);
    atomic_init(&hog_stop, 0);
    atomic_init(&hog_runs, 0);
    char vkey[32] = "victim";
    for (int j = 0;; j++) {
        snprintf(hog_key, sizeof hog_key, "hog%d", j);
        if (tu_key_shard(hog_key) == 0) break; /* the one worker's home shard */
    }
    for (int j = 0; GROUPCONC__SHARDS > 1; j++) {
        snprintf(vkey, sizeof vkey, "v%d", j);
        if (tu_key_shard(vkey) != 0) break;
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(groupconc_submit(hog_ex, hog_key, NULL, hog_fn, NULL, NULL), GROUPCONC_OK);
    groupconc_task *v = tu_submit(hog_ex, vkey, NULL, tu_noop_fn, NULL);
    groupconc_result r;
    int rc = groupconc_task_wait_for(v, TU_TIMEOUT_NS, &r);
    atomic_store(&hog_stop, 1);
    assert_int_equal(rc, GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(v), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(hog_ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(hog_ex), GROUPCONC_OK);
}

/* One worker, parked, while one task of each of 64 groups goes ready: the groups fall in many shards
   (every one of 16), and the stats sum them; released, the worker, whose home shard is one of them,
   runs every task (it takes from the other shards once its own is empty, and never sleeps while
   one has a ready task). Each group is in its key's shard. At one shard the same test, all in
   shard 0. */
static void test_shards_every_ready_task_served(void **state) {
    (void)state;
    enum { G = 64 };
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    groupconc_task *parked = tu_submit(ex, "park", NULL, tu_park_fn, &park), *h[G];
    assert_true(tu_latch_wait(&started));
    bool seen[GROUPCONC__SHARDS] = {false};
    unsigned nseen = 0;
    for (int i = 0; i < G; i++) {
        char key[16];
        snprintf(key, sizeof key, "s%d", i);
        h[i] = tu_submit(ex, key, NULL, tu_noop_fn, NULL);
        unsigned sh = tu_key_shard(key);
        if (!seen[sh]) nseen++;
        seen[sh] = true;
    }
    assert_true(nseen == GROUPCONC__SHARDS || nseen > 8); /* 64 keys over 16 shards: most of them */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.ready, G);
    assert_int_equal(xs.running, 1);
#if GROUPCONC__SHARDS > 1
    { /* white box: each group in its key's shard, every ready task in its group's shard's queue */
        size_t ready = 0;
        for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) {
            groupconc__exec_lock(ex);
            for (groupconc_task *t = ex->shards[s].ready.head; t; t = t->next) {
                assert_int_equal(t->group->shard, s);
                assert_int_equal(tu_key_shard(t->group->key), s);
                ready++;
            }
            groupconc__exec_unlock(ex);
        }
        assert_int_equal(ready, G);
    }
#endif
    tu_park_release(&park);
    tu_wait_status(parked, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(parked);
    for (int i = 0; i < G; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    xs = tu_xstats(ex);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.threads, 1);
    assert_int_equal(xs.submitted, G + 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* No wake-up is lost across shards (P1 across shards: an idle worker sleeps on work_cv with the
   pool's lock, and whoever signals it holds that lock): many rounds of every worker asleep, then one
   task of a key in a shard none of them calls home (with one shard, any key); it must run within
   5 s. keep_alive is long and the task has no deadline, so only the kick that its submit makes
   (inbox_look: idle workers, none napping, so the submitter locks and kicks) can wake a worker: a
   lost one would leave the task until a napper's HELP_NS look at best, or the keep-alive. The
   workers' idleness is waited for through the stats (every thread idle), not assumed after a sleep,
   and the task submitted right after the first look that sees it (a worker counts as idle from
   before its last look: the submit may meet it on its way into the wait). With one worker (w 1)
   no other sleeper can take a signal sent outside the pool lock (review helper-64: with two, a
   signal during one worker's way into the wait woke the other, and the test passed). */
static bool pool_all_idle(groupconc_executor *ex, size_t want) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        groupconc_executor_stats xs = tu_xstats(ex);
        if (xs.threads >= want && xs.idle_threads == xs.threads && xs.ready == 0 && xs.running == 0)
            return true;
        if (tu_now_ns() > deadline) return false;
        tu_sleep_ns(100000);
    }
}

static void run_idle_workers_woken(int W) {
    enum { ROUNDS = 150, WMAX = 2 };
    assert_true(W >= 1 && W <= WMAX);
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = W;
    p.keep_alive_ns = 600 * 1000000000LL;
    groupconc_executor *ex = tu_executor(&p);
    /* W workers alive (homes 0 .. W-1 at more than one shard): W tasks parked side by side */
    tu_latch started;
    tu_latch_init(&started, W);
    tu_park park[WMAX];
    groupconc_task *parked[WMAX];
    char key[32];
    for (int i = 0; i < W; i++) {
        tu_park_init(&park[i], &started, NULL);
        snprintf(key, sizeof key, "park%d", i);
        parked[i] = tu_submit(ex, key, NULL, tu_park_fn, &park[i]);
    }
    assert_true(tu_latch_wait(&started));
    for (int i = 0; i < W; i++) tu_park_release(&park[i]);
    for (int i = 0; i < W; i++) {
        tu_wait_status(parked[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(parked[i]);
    }
    size_t threads = tu_xstats(ex).threads;
    assert_true(threads >= 1);
    for (int round = 0; round < ROUNDS; round++) {
        /* a shard that is no worker's home (the homes are the spawn count masked: 0 .. threads-1) */
        unsigned want = GROUPCONC__SHARDS > threads ? (unsigned)(threads + (size_t)round % (GROUPCONC__SHARDS - threads)) : 0;
        for (int j = 0;; j++) {
            snprintf(key, sizeof key, "w%d_%d", round, j);
            if (tu_key_shard(key) == want) break;
        }
        assert_true(pool_all_idle(ex, threads));
        tu_latch ran;
        tu_latch_init(&ran, 1);
        assert_int_equal(groupconc_submit(ex, key, NULL, tu_count_down_fn, &ran, NULL), GROUPCONC_OK);
        bool ok = tu_latch_wait_for(&ran, TU_TIMEOUT_NS);
        if (!ok) fprintf(stderr, "round %d: the task of shard %u did not run within TU_TIMEOUT_NS\n", round, want);
        assert_true(ok);
        tu_latch_destroy(&ran);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.threads, threads); /* none retired, none started: only wake-ups served */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    for (int i = 0; i < W; i++) tu_park_destroy(&park[i]);
    tu_latch_destroy(&started);
}

/* A thread's memos (its node cache, its last group: "task nodes", "key table") name their
   executor by its number, not its address: an executor made at the address of a destroyed one,
   with the same key, stripe and removal count, must find neither memo current. The allocator
   hands the destroyed executor's block to the next one of its size; a memo taken as current would
   put the task in the destroyed executor's freed group (ASan: use after free; else the group is
   not in the new table and its stats fail). */
static void test_memo_of_a_destroyed_executor(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    for (int round = 0; round < 3; round++) {
        groupconc_executor *a = tu_executor(&p);
        groupconc_task *t = tu_submit(a, "k", NULL, tu_noop_fn, NULL); /* both memos now name a */
        tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t);
        atomic_store(&pool_keep, (void *)a);
        assert_int_equal(groupconc_executor_destroy(a), GROUPCONC_OK);
        assert_ptr_equal(atomic_load(&pool_kept), (void *)a);
        groupconc_executor *b = tu_executor(&p);
        atomic_store(&pool_keep, NULL);
        assert_ptr_equal((void *)b, (void *)a); /* made where a was */
        for (int i = 0; i < 2; i++) {
            t = tu_submit(b, "k", NULL, tu_noop_fn, NULL);
            tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(t);
        }
        assert_int_equal(tu_gstats(b, "k").submitted, 2);
        assert_int_equal(tu_gstats(b, "k").succeeded, 2);
        assert_int_equal(tu_xstats(b).groups, 1);
        assert_int_equal(groupconc_executor_destroy(b), GROUPCONC_OK);
    }
    assert_null(atomic_load(&pool_kept));
}

/* White box ("task nodes"): the nodes a burst freed come back to the submitter, every worker's lots
   chained in transit, so that the next burst of that size allocates almost none (with one lot in
   transit at a time, a lot per worker waited and the rest went back to malloc: a quarter of W1's
   nodes under callgrind); and what is kept stays bounded: a burst of four times the transit's
   bound leaves at most the bound plus a lot per worker behind its executor. Bursts are submitted
   while the executor is paused, so that the tasks finish after the submitter took its nodes. The
   same for both sizes of node: plain (fire-and-forget) and observed (a handle asked for, released
   at once, so that the worker frees the node at the task's end). */
static long nodes_in_transit(groupconc_executor *ex, int observed) {
    long n = 0;
    for (groupconc_task *t = atomic_load(&ex->inbox.node_returns[observed]); t; t = t->next) n++;
    return n;
}

/* -> blocks allocated by its submits */
static long node_burst(groupconc_executor *ex, long n, int observed) {
    tu_latch done;
    tu_latch_init(&done, n);
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    long before = atomic_load(&pool_live_blocks);
    for (long i = 0; i < n; i++) {
        char key[8];
        groupconc_task *h = NULL;
        (void)snprintf(key, sizeof key, "k%ld", i % 16);
        assert_int_equal(groupconc_submit(ex, key, NULL, tu_count_down_fn, &done, observed ? &h : NULL),
                         GROUPCONC_OK);
        if (observed) {
            assert_non_null(h);
            groupconc_task_release(h); /* before its end (paused): the worker frees the node */
        }
    }
    long made = atomic_load(&pool_live_blocks) - before;
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    assert_true(tu_latch_wait_for(&done, TU_TIMEOUT_NS));
    tu_latch_destroy(&done);
    return made;
}

static void test_node_lots_recycled_and_bounded(void **state) {
    const int observed = *(int *)*state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 4;
    long live_before = atomic_load(&pool_live_blocks);
    groupconc_executor *ex = tu_executor(&p);
    long base = atomic_load(&pool_live_blocks);
    const long burst = GROUPCONC__NODE_TRANSIT_MAX - GROUPCONC__NODE_CACHE_MAX;
    long first = node_burst(ex, burst, observed);
    assert_true(first >= burst / 2); /* a fresh executor: its nodes are new */
    for (int round = 0; round < 3; round++) {
        /* the last tasks' nodes may still be on their way (a worker hands its lot on at its next
           locked step): the next burst may allocate those, not more */
        long again = node_burst(ex, burst, observed);
        if (again > 2 * GROUPCONC__NODE_CACHE_MAX)
            fprintf(stderr, "%s round %d: a burst of %ld allocated %ld nodes after one of the same size\n",
                    observed ? "observed" : "plain", round, burst, again);
        assert_true(again <= 2 * GROUPCONC__NODE_CACHE_MAX);
    }
    (void)node_burst(ex, 4 * GROUPCONC__NODE_TRANSIT_MAX, observed);
    long transit = nodes_in_transit(ex, observed);
    long kept = atomic_load(&pool_live_blocks) - base;
    /* lots are added while fewer than the bound are there (none is taken meanwhile: the submitter
       is done), and a worker's lot is at most GROUPCONC__NODE_CACHE_MAX; kept: the transit, each
       worker's lot, the groups and their queues (1024: room for those); no take is under way
       (the one submitter is done), else a lot per take could be uncounted */
    if (transit > GROUPCONC__NODE_TRANSIT_MAX + GROUPCONC__NODE_CACHE_MAX ||
        kept > GROUPCONC__NODE_TRANSIT_MAX + 3 * GROUPCONC__NODE_CACHE_MAX + 1024)
        fprintf(stderr, "%s, after a burst of %d: %ld nodes in transit, %ld blocks kept\n",
                observed ? "observed" : "plain", 4 * GROUPCONC__NODE_TRANSIT_MAX, transit, kept);
    assert_true(transit >= GROUPCONC__NODE_TRANSIT_MAX - GROUPCONC__NODE_CACHE_MAX); /* they were kept */
    assert_true(transit <= GROUPCONC__NODE_TRANSIT_MAX + GROUPCONC__NODE_CACHE_MAX);
    assert_int_equal(nodes_in_transit(ex, !observed), 0); /* each size its own lots */
    assert_true(kept <= GROUPCONC__NODE_TRANSIT_MAX + 3 * GROUPCONC__NODE_CACHE_MAX + 1024);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&pool_live_blocks), live_before); /* destroy frees every lot */
}

static void test_idle_workers_woken_in_any_shard(void **state) {
    (void)state;
    run_idle_workers_woken(1);
    run_idle_workers_woken(2);
}

#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
/* White box (a debug build at more than one shard): the lock functions keep each shard's holder
   (sh->held_by), which help_locked's assertion reads (a helper finishes only tasks of the shards it
   holds): every shard held after exec_lock and after a wait with it, none after exec_unlock, and
   none while another thread holds them. */
static void shard_holds_probe(void *arg) {
    groupconc_executor *ex = arg;
    for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) assert_false(GROUPCONC__SHARD_HELD(&ex->shards[s]));
}

static void test_shard_holds_tracked(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    groupconc__exec_lock(ex);
    for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) assert_true(GROUPCONC__SHARD_HELD(&ex->shards[s]));
    tu_thread th; /* another thread sees none of them as its own */
    assert_true(tu_thread_start(&th, shard_holds_probe, ex));
    tu_thread_join(th);
    (void)groupconc__exec_wait(ex, &ex->keeper.cv, groupconc__now_ns() + 1000000); /* 1 ms */
    for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) assert_true(GROUPCONC__SHARD_HELD(&ex->shards[s]));
    groupconc__exec_unlock(ex);
    for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) assert_false(GROUPCONC__SHARD_HELD(&ex->shards[s]));
    assert_true(groupconc__exec_trylock(ex));
    for (unsigned s = 0; s < GROUPCONC__SHARDS; s++) assert_true(GROUPCONC__SHARD_HELD(&ex->shards[s]));
    groupconc__exec_unlock(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}
#endif

int main(void) {
    static int pool_plain = 0, pool_observed = 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noop_tasks_stay_within_cpus),
        cmocka_unit_test(test_deferring_tasks_stay_within_cpus),
        cmocka_unit_test(test_blocked_tasks_grow_the_pool),
        cmocka_unit_test(test_blocked_tasks_grow_the_pool_hinted),
        cmocka_unit_test(test_grown_pool_shrinks_under_a_trickle),
        cmocka_unit_test(test_grown_pool_shrinks_under_bursts),
        cmocka_unit_test(test_short_sleeps_grow_the_pool),
        cmocka_unit_test(test_long_blocked_task_among_busy_ones),
        cmocka_unit_test(test_blocked_completed_event_grows_the_pool),
        cmocka_unit_test(test_blocked_completion_callback_grows_the_pool),
        cmocka_unit_test(test_hint_starts_a_worker_at_once),
        cmocka_unit_test(test_submit_while_starting_starts_another),
        cmocka_unit_test(test_memo_of_a_destroyed_executor),
        {"test_node_lots_recycled_and_bounded", test_node_lots_recycled_and_bounded, NULL, NULL, &pool_plain},
        {"test_node_lots_recycled_and_bounded_observed", test_node_lots_recycled_and_bounded, NULL, NULL,
         &pool_observed},
        cmocka_unit_test(test_serial_run_keeps_observers_exact),
        cmocka_unit_test(test_serial_run_lets_other_groups_in),
        cmocka_unit_test(test_serial_run_keeps_deadlines),
        cmocka_unit_test(test_serial_run_after_a_cut_batch),
        cmocka_unit_test(test_chain_keeps_observers_exact),
        cmocka_unit_test(test_chain_waiter_takes_over),
        cmocka_unit_test(test_chain_completes_before_a_long_task),
        cmocka_unit_test(test_chain_callback_waits_on_a_later_task),
        cmocka_unit_test(test_chain_meets_live_limits),
        cmocka_unit_test(test_chain_meets_deadlines),
        cmocka_unit_test(test_chain_meets_group_shutdown),
        cmocka_unit_test(test_chain_meets_executor_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(test_chain_meets_dump),
#endif
        cmocka_unit_test(test_chain_shards_one_worker),
        cmocka_unit_test(test_chain_shards_two_at_once),
        cmocka_unit_test(test_chain_shards_meet_the_housekeeper),
        cmocka_unit_test(test_chain_shards_meet_a_woken_worker),
        cmocka_unit_test(test_shards_every_ready_task_served),
        cmocka_unit_test(test_busy_shard_starves_no_other),
        cmocka_unit_test(test_idle_workers_woken_in_any_shard),
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
        cmocka_unit_test(test_shard_holds_tracked),
#endif
    };
    const char *only = getenv("GROUPCONC_TEST_ONLY"); /* a cmocka test-name pattern, to rerun one */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
