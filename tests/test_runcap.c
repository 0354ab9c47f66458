/* test_runcap.c - the work-conserving global running cap (policy.global_max_running), and
   policy.max_waiting, the bound on all waiting tasks together.
     - the crawler case: 50 hosts of concurrency 2 submitted host by host under a running cap of 16
       keep exactly 16 running and finish within 1.1x the ideal makespan (the measured work / 16);
       the seed's global in-flight cap of 16 with the same order admits only 2 hosts (4 running) at
       first and takes about twice as long;
     - the running cap is one FIFO across groups; its gauges in the group and executor stats are
       exact;
     - executor gate permits count against the running cap (EREJECTED_RUNNING when it is full);
     - max_waiting refuses the waiter beyond it (ABORT: the code, DISCARD: a REJECTED handle, both
       counted in rejected_waiting) but never a task moving from one layer's queue to another;
     - the counters of a scripted scenario, exactly; CALLER_RUNS runs are not "admitted";
     - policy validation of both fields.
   Known states are built with latches; time is measured only where it is the point (the makespan)
   and there against the work the tasks measured themselves. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

/* Tasks that all park on one shared latch: they count `started` down, record the running peak,
   and return when the test opens `go`. */
typedef struct hold {
    tu_latch started;
    tu_latch go;
    tu_peak peak;
    int cap;               /* more than this running at once is counted in `over` */
    atomic_int over;
    atomic_int timed_out;  /* `go` was never opened (safety timeout) */
} hold;

static void hold_init(hold *h, long expect_started, int cap) {
    tu_latch_init(&h->started, expect_started);
    tu_latch_init(&h->go, 1);
    tu_peak_init(&h->peak);
    h->cap = cap;
    atomic_init(&h->over, 0);
    atomic_init(&h->timed_out, 0);
}

static void hold_destroy(hold *h) {
    tu_latch_destroy(&h->started);
    tu_latch_destroy(&h->go);
}

static int hold_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    hold *h = (hold *)arg;
    if (tu_peak_enter(&h->peak) > h->cap) atomic_fetch_add(&h->over, 1);
    tu_latch_count_down(&h->started);
    if (!tu_latch_wait(&h->go)) atomic_store(&h->timed_out, 1);
    tu_peak_leave(&h->peak);
    return 0;
}

/* Parked tasks: tu_parkset (testutil.h). Let task i return, wait for it; then wait for
   `next_starts` more starts. */
static void ps_finish_then(tu_parkset *ps, int i, long next_starts) {
    tu_ps_expect(ps, next_starts);
    tu_ps_finish(ps, i);
    assert_true(tu_latch_wait(&ps->started));
}

static bool started_yet(tu_park *p) { return atomic_load(&p->ran) != 0; }

/* The clock groupconc measures waiting ages with (oldest_wait_ns): CLOCK_MONOTONIC_COARSE where it
   exists. Waiting until it has moved on by `ns` since a moment after the waiter was queued makes
   oldest_wait_ns >= ns certain, whatever the clock's resolution. */
static int64_t coarse_now(void) {
    struct timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * TU_SEC + (int64_t)ts.tv_nsec;
}

static void coarse_advance(int64_t ns) {
    int64_t from = coarse_now();
    while (coarse_now() - from < ns) tu_sleep_ns(TU_MS);
}

/* ---- the crawler case: timed ----------------------------------------------------------------------- */

enum { CRAWL_PER_HOST = 8, CRAWL_CONC = 2, CRAWL_CAP = 16 };
#define CRAWL_TASK_NS (50 * TU_MS)

enum { CRAWL_MAX_TASKS = 400 };

typedef struct crawl {
    int64_t start[CRAWL_MAX_TASKS], end[CRAWL_MAX_TASKS]; /* for the report on a failure */
    atomic_int slot;
    tu_peak peak;
    int cap;
    atomic_int over;
    _Atomic(int64_t) work_ns;     /* sum of the run times the tasks measured */
    _Atomic(int64_t) last_end;    /* monotonic ns of the latest task end (int64_t: long is 32
                                     bits on Windows) */
    atomic_int first_done;
    atomic_int peak_at_first_end; /* the running peak when the first task ended */
} crawl;

static void crawl_init(crawl *c, int cap) {
    memset(c->start, 0, sizeof c->start);
    memset(c->end, 0, sizeof c->end);
    atomic_init(&c->slot, 0);
    tu_peak_init(&c->peak);
    c->cap = cap;
    atomic_init(&c->over, 0);
    atomic_init(&c->work_ns, 0);
    atomic_init(&c->last_end, 0);
    atomic_init(&c->first_done, 0);
    atomic_init(&c->peak_at_first_end, -1);
}

static int crawl_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    crawl *c = (crawl *)arg;
    int64_t start = tu_now_ns();
    if (tu_peak_enter(&c->peak) > c->cap) atomic_fetch_add(&c->over, 1);
    tu_sleep_ns(CRAWL_TASK_NS);
    int64_t end = tu_now_ns();
    /* no task starts before the first one returns (only a return frees a permit), so the peak
       read before the first exchange is the most that ran at once "at first". Read after it, it
       can count more: a thread preempted between the exchange and the read lets another task
       return, and one return under the in-flight cap starts two (its host's next waiter and the
       next host's first task) - seen once under TSan as "at first 5". */
    int peak_so_far = tu_peak_max(&c->peak);
    if (!atomic_exchange(&c->first_done, 1)) atomic_store(&c->peak_at_first_end, peak_so_far);
    tu_peak_leave(&c->peak);
    atomic_fetch_add(&c->work_ns, end - start);
    tu_atomic_max64(&c->last_end, end);
    int i = atomic_fetch_add(&c->slot, 1);
    if (i < CRAWL_MAX_TASKS) {
        c->start[i] = start; /* read by the main thread after every task was waited for */
        c->end[i] = end;
    }
    return 0;
}

/* The longest run time a task measured. */
static int64_t crawl_longest(crawl *c) {
    int n = atomic_load(&c->slot);
    int64_t longest = 0;
    for (int i = 0; i < n && i < CRAWL_MAX_TASKS; i++)
        if (c->end[i] - c->start[i] > longest) longest = c->end[i] - c->start[i];
    return longest;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Where the time went, for a failure report: when the 16th task started, and the hand-offs that
   took longest (the k-th start after the (k-16)-th end: the slot stood idle in between). */
static void crawl_report(crawl *c, int64_t t0) {
    int n = atomic_load(&c->slot);
    if (n > CRAWL_MAX_TASKS) n = CRAWL_MAX_TASKS;
    if (n <= CRAWL_CAP) return;
    int64_t *st = (int64_t *)malloc((size_t)n * sizeof *st), *en = (int64_t *)malloc((size_t)n * sizeof *en);
    if (!st || !en) {
        free(st);
        free(en);
        return;
    }
    memcpy(st, c->start, (size_t)n * sizeof *st);
    memcpy(en, c->end, (size_t)n * sizeof *en);
    qsort(st, (size_t)n, sizeof *st, cmp_i64);
    qsort(en, (size_t)n, sizeof *en, cmp_i64);
    double idle = 0;
    int64_t longest = crawl_longest(c);
    for (int k = CRAWL_CAP; k < n; k++) idle += (double)(st[k] - en[k - CRAWL_CAP]);
    print_message("  first start %.1f ms, 16th start %.1f ms, hand-off idle %.1f slot-ms, last start %.1f ms, "
                  "last end %.1f ms, longest task %.1f ms\n",
                  (double)(st[0] - t0) / 1e6, (double)(st[CRAWL_CAP - 1] - t0) / 1e6, idle / 1e6,
                  (double)(st[n - 1] - t0) / 1e6, (double)(en[n - 1] - t0) / 1e6, (double)longest / 1e6);
    for (int k = CRAWL_CAP; k < n; k++)
        if (st[k] - en[k - CRAWL_CAP] > 5 * TU_MS)
            print_message("  slot idle %.1f ms from %.1f ms (start #%d)\n",
                          (double)(st[k] - en[k - CRAWL_CAP]) / 1e6, (double)(en[k - CRAWL_CAP] - t0) / 1e6, k);
    free(st);
    free(en);
}

typedef struct crawl_run {
    int64_t t0;          /* the first submit */
    int64_t makespan_ns; /* first submit to the latest task end */
    int64_t ideal_ns;    /* measured work / 16 */
} crawl_run;

/* Start CRAWL_CAP worker threads before the clock starts: CRAWL_CAP tasks in as many groups run
   at once, then return; the threads stay (keep_alive_ns, 10 s). Starting threads on demand is the
   pool's cost, not the running cap's, and under valgrind it is large: the 16th of 16 tasks started
   on a fresh executor 260-850 ms after the first (natively 0.3 ms). */
static void warm_pool(groupconc_executor *ex) {
    hold hd;
    groupconc_task *h[CRAWL_CAP];
    hold_init(&hd, CRAWL_CAP, CRAWL_CAP);
    for (int i = 0; i < CRAWL_CAP; i++) {
        char key[16];
        snprintf(key, sizeof key, "warm-%d", i);
        h[i] = tu_submit(ex, key, NULL, hold_fn, &hd);
    }
    assert_true(tu_latch_wait(&hd.started));
    assert_true(tu_xstats(ex).threads >= CRAWL_CAP);
    tu_latch_open(&hd.go);
    for (int i = 0; i < CRAWL_CAP; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    assert_int_equal(atomic_load(&hd.over), 0);
    hold_destroy(&hd);
}

/* With a warm pool: submit hosts x CRAWL_PER_HOST tasks host by host, wait for all. */
static crawl_run crawl_submit_all(groupconc_executor *ex, crawl *c, int hosts) {
    int n = hosts * CRAWL_PER_HOST;
    assert_true(n <= CRAWL_MAX_TASKS);
    warm_pool(ex);
    groupconc_task **h = (groupconc_task **)calloc((size_t)n, sizeof *h);
    assert_non_null(h);
    int64_t t0 = tu_now_ns();
    for (int host = 0, i = 0; host < hosts; host++) {
        char key[32];
        snprintf(key, sizeof key, "host-%02d.example", host);
        for (int k = 0; k < CRAWL_PER_HOST; k++, i++) h[i] = tu_submit(ex, key, NULL, crawl_fn, c);
    }
    for (int i = 0; i < n; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    free(h);
    crawl_run r;
    r.t0 = t0;
    r.makespan_ns = (int64_t)atomic_load(&c->last_end) - t0;
    r.ideal_ns = (int64_t)atomic_load(&c->work_ns) / CRAWL_CAP;
    return r;
}

/* The running cap: 50 hosts x 8 tasks of 50 ms, concurrency 2 per host, at most 16 running overall.
   The bound: the work W is what the tasks measured themselves (a late wake-up from a sleep on a
   loaded machine is work, not scheduling), and W/16 is the best any scheduler can do. A
   work-conserving cap keeps 16 running while 16 tasks hold their host's permit, which is true until
   the last round (hosts are served round-robin by the FIFO, so they all run out together): a list
   schedule of equal tasks then ends within one task (50 ms, 4% of the 1.25 s ideal) of W/16 - a
   simulation of this exact schedule with +-20% task jitter gives 1.6%. What is left of the 10% (60+ ms
   over 25 rounds) is for the hand-offs: a worker finishing a task takes the next ready one without
   sleeping (measured under valgrind: 0.01-0.03 ms on average, ratio 1.002-1.018 over 5 runs). The
   pool is warmed first (warm_pool): thread start-up is not what the running cap is about.
   One allowance, measured too: the last round can end late by as much as its longest task (the
   tail of a list schedule), and the 10% covers a 50 ms task. A task that a loaded machine stalls
   (its sleep ends 100+ ms late, it is preempted) can end the whole run late by its excess, and no
   scheduler hides that; so the bound is 1.1 x W/16 plus (longest measured task - 50 ms), which is
   0-20 ms in a normal run. (Observed ratios: 1.000-1.005 plain and ASan, up to 1.04 under TSan or
   valgrind with two CPU hogs on 2 cores.) */
static void test_crawler_running_cap_work_conserving(void **state) {
    (void)state;
    enum { HOSTS = 50 };
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = CRAWL_CONC;
    p.global_max_running = CRAWL_CAP;
    p.max_threads = 32;
    groupconc_executor *ex = tu_executor(&p);
    crawl c;
    crawl_init(&c, CRAWL_CAP);
    crawl_run r = crawl_submit_all(ex, &c, HOSTS);
    print_message("running cap 16: makespan %.1f ms, ideal %.1f ms (ratio %.3f), peak %d, longest task %.1f ms\n",
                  (double)r.makespan_ns / 1e6, (double)r.ideal_ns / 1e6,
                  (double)r.makespan_ns / (double)r.ideal_ns, tu_peak_max(&c.peak),
                  (double)crawl_longest(&c) / 1e6);
    assert_int_equal(atomic_load(&c.over), 0);
    assert_int_equal(tu_peak_max(&c.peak), CRAWL_CAP);
    assert_true(atomic_load(&c.peak_at_first_end) <= CRAWL_CAP);
    assert_true(r.ideal_ns >= (int64_t)HOSTS * CRAWL_PER_HOST * CRAWL_TASK_NS / CRAWL_CAP);
    int64_t overrun = crawl_longest(&c) - CRAWL_TASK_NS; /* see above: a stalled task's excess */
    if (overrun < 0) overrun = 0;
    int64_t bound = r.ideal_ns * 11 / 10 + overrun;
    if (r.makespan_ns > bound || getenv("RUNCAP_REPORT")) crawl_report(&c, r.t0);
    assert_true(r.makespan_ns <= bound);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.submitted, HOSTS * CRAWL_PER_HOST + CRAWL_CAP); /* with the warm-up's */
    assert_int_equal(xs.admitted, HOSTS * CRAWL_PER_HOST + CRAWL_CAP);
    assert_int_equal(xs.succeeded, HOSTS * CRAWL_PER_HOST + CRAWL_CAP);
    assert_int_equal(xs.completed, HOSTS * CRAWL_PER_HOST + CRAWL_CAP);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* The seed's cap, global_max_in_flight = 16, same order: the global in-flight cap counts the tasks
   waiting at their host's concurrency, so the first 2 hosts take all 16 permits and only 4 tasks
   run until one returns. Later the permits spread over more hosts, but the 16 are mostly held by
   waiting tasks: the same work takes about twice the work-conserving makespan (a simulation of
   this schedule: 2.25x; the bound asserted is 1.5x). 16 hosts keep the test short. */
static void test_crawler_in_flight_contrast_timed(void **state) {
    (void)state;
    enum { HOSTS = 16 };
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = CRAWL_CONC;
    p.global_max_in_flight = CRAWL_CAP;
    p.max_threads = 32;
    groupconc_executor *ex = tu_executor(&p);
    crawl c;
    crawl_init(&c, CRAWL_CAP);
    crawl_run r = crawl_submit_all(ex, &c, HOSTS);
    print_message("in-flight cap 16: makespan %.1f ms, ideal %.1f ms (ratio %.3f), peak %d, at first %d\n",
                  (double)r.makespan_ns / 1e6, (double)r.ideal_ns / 1e6,
                  (double)r.makespan_ns / (double)r.ideal_ns, tu_peak_max(&c.peak),
                  atomic_load(&c.peak_at_first_end));
    assert_int_equal(atomic_load(&c.over), 0);
    assert_true(atomic_load(&c.peak_at_first_end) >= 1);
    assert_true(atomic_load(&c.peak_at_first_end) <= 2 * CRAWL_CONC); /* 2 hosts' worth */
    assert_true(r.makespan_ns * 2 >= r.ideal_ns * 3);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- the crawler case: latched states, exact ----------------------------------------------------- */

static groupconc_task **submit_hosts(groupconc_executor *ex, hold *hd, int hosts) {
    int n = hosts * CRAWL_PER_HOST;
    groupconc_task **h = (groupconc_task **)calloc((size_t)n, sizeof *h);
    assert_non_null(h);
    for (int host = 0, i = 0; host < hosts; host++) {
        char key[32];
        snprintf(key, sizeof key, "host-%02d.example", host);
        for (int k = 0; k < CRAWL_PER_HOST; k++, i++) h[i] = tu_submit(ex, key, NULL, hold_fn, hd);
    }
    return h;
}

static void release_hosts(groupconc_task **h, hold *hd, int n) {
    tu_latch_open(&hd->go);
    for (int i = 0; i < n; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    free(h);
    assert_int_equal(atomic_load(&hd->timed_out), 0);
    assert_int_equal(atomic_load(&hd->over), 0);
}

static groupconc_group_stats host_stats(groupconc_executor *ex, int host) {
    char key[32];
    snprintf(key, sizeof key, "host-%02d.example", host);
    return tu_gstats(ex, key);
}

static void test_crawler_running_cap_latched_state(void **state) {
    (void)state;
    enum { HOSTS = 50, N = HOSTS * CRAWL_PER_HOST };
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = CRAWL_CONC;
    p.global_max_running = CRAWL_CAP;
    groupconc_executor *ex = tu_executor(&p);
    hold hd;
    hold_init(&hd, CRAWL_CAP, CRAWL_CAP);
    groupconc_task **h = submit_hosts(ex, &hd, HOSTS);
    assert_true(tu_latch_wait(&hd.started));

    /* hosts 0-7 run 2 each; hosts 8-49 hold their 2 concurrency permits and wait for a running
       permit, in submission order; every host's other 6 wait at the concurrency layer */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, 16);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.global_running, 16);
    assert_int_equal(xs.global_max_running, 16);
    assert_int_equal(xs.waiting_running, (HOSTS - 8) * 2);
    assert_int_equal(xs.waiting, (HOSTS - 8) * 2 + HOSTS * 6);
    assert_int_equal(xs.global_in_flight, N); /* no in-flight cap: all past global in-flight */
    assert_int_equal(xs.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(xs.submitted, N);
    assert_int_equal(xs.admitted, 16);
    assert_int_equal(xs.completed, 0);
    for (int host = 0; host < HOSTS; host++) {
        groupconc_group_stats s = host_stats(ex, host);
        assert_int_equal(s.concurrency, CRAWL_CONC);
        assert_int_equal(s.running, host < 8 ? 2 : 0);
        assert_int_equal(s.waiting_running, host < 8 ? 0 : 2);
        assert_int_equal(s.waiting_concurrency, 6);
        assert_int_equal(s.waiting_global + s.waiting_bulkhead, 0);
        assert_int_equal(s.in_flight, CRAWL_PER_HOST);
        assert_int_equal(s.submitted, CRAWL_PER_HOST);
        assert_int_equal(s.admitted, host < 8 ? 2 : 0);
    }
    assert_int_equal(tu_peak_max(&hd.peak), 16);
    release_hosts(h, &hd, N);
    assert_int_equal(tu_peak_max(&hd.peak), 16);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.admitted, N);
    hold_destroy(&hd);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_crawler_in_flight_contrast_latched(void **state) {
    (void)state;
    enum { HOSTS = 50, N = HOSTS * CRAWL_PER_HOST };
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = CRAWL_CONC;
    p.global_max_in_flight = CRAWL_CAP;
    groupconc_executor *ex = tu_executor(&p);
    hold hd;
    hold_init(&hd, 2 * CRAWL_CONC, CRAWL_CAP);
    groupconc_task **h = submit_hosts(ex, &hd, HOSTS);
    assert_true(tu_latch_wait(&hd.started));

    /* hosts 0 and 1 took all 16 in-flight permits (8 each): 2 running each, 6 each waiting at
       the concurrency layer while holding a global in-flight permit; everything else waits for
       one */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, 4);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.global_in_flight, 16);
    assert_int_equal(xs.global_running, 4); /* counted even with no running cap */
    assert_int_equal(xs.global_max_running, GROUPCONC_UNLIMITED);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.waiting, N - 4);
    for (int host = 0; host < HOSTS; host++) {
        groupconc_group_stats s = host_stats(ex, host);
        assert_int_equal(s.running, host < 2 ? 2 : 0);
        assert_int_equal(s.waiting_concurrency, host < 2 ? 6 : 0);
        assert_int_equal(s.waiting_global, host < 2 ? 0 : CRAWL_PER_HOST);
        assert_int_equal(s.waiting_running, 0);
    }
    assert_int_equal(tu_peak_max(&hd.peak), 4);
    release_hosts(h, &hd, N); /* checks the in-flight cap (16) held all along: hd.over == 0 */
    hold_destroy(&hd);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- FIFO across groups at the running cap, and its gauges ---------------------------------------- */

static void test_running_fifo_across_groups(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    int64_t before_queue = tu_now_ns();
    int a0 = tu_ps_submit(&ps, ex, "A");
    assert_true(tu_latch_wait(&ps.started));
    /* each takes its group's concurrency permit (2 per group) and waits for a running permit, in
       this order; A's third waits at the concurrency layer */
    int b0 = tu_ps_submit(&ps, ex, "B");
    int a1 = tu_ps_submit(&ps, ex, "A");
    int c0 = tu_ps_submit(&ps, ex, "C");
    int b1 = tu_ps_submit(&ps, ex, "B");
    int c1 = tu_ps_submit(&ps, ex, "C");
    int a2 = tu_ps_submit(&ps, ex, "A");

    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_running, 1);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.running, 1);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.waiting_running, 5);
    assert_int_equal(xs.waiting, 6);
    groupconc_group_stats sa = tu_gstats(ex, "A"), sb = tu_gstats(ex, "B"), sc = tu_gstats(ex, "C");
    assert_int_equal(sa.running, 1);
    assert_int_equal(sa.waiting_running, 1);
    assert_int_equal(sa.waiting_concurrency, 1);
    assert_int_equal(sa.in_flight, 3);
    assert_int_equal(sb.running, 0);
    assert_int_equal(sb.waiting_running, 2);
    assert_int_equal(sb.waiting_concurrency, 0);
    assert_int_equal(sc.waiting_running, 2);
    assert_int_equal(sc.running + sc.ready, 0);

    /* oldest_wait_ns: > 0 while B waits for a running permit (its coarse clock is a few ms) */
    coarse_advance(20 * TU_MS);
    sb = tu_gstats(ex, "B");
    assert_true(sb.oldest_wait_ns >= (uint64_t)(20 * TU_MS));
    assert_true(sb.oldest_wait_ns <= (uint64_t)(tu_now_ns() - before_queue + 50 * TU_MS));
    assert_true(tu_gstats(ex, "A").oldest_wait_ns > 0); /* a1 at global running, a2 at concurrency */

    /* a0 returns: its running permit goes to b0 (the oldest waiter for one), its concurrency permit
       to a2, which queues for a running permit behind c1 */
    for (int i = 1; i < 7; i++) assert_false(started_yet(&ps.p[i]));
    ps_finish_then(&ps, a0, 1);
    assert_true(started_yet(&ps.p[b0]));
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 5);
    assert_int_equal(xs.waiting, 5);
    sa = tu_gstats(ex, "A");
    assert_int_equal(sa.waiting_running, 2);
    assert_int_equal(sa.waiting_concurrency, 0);

    int order[6] = {b0, a1, c0, b1, c1, a2};
    for (int k = 0; k < 5; k++) {
        ps_finish_then(&ps, order[k], 1);
        assert_true(started_yet(&ps.p[order[k + 1]]));
        for (int j = k + 2; j < 6; j++) assert_false(started_yet(&ps.p[order[j]]));
        xs = tu_xstats(ex);
        assert_int_equal(xs.global_running, 1);
        assert_int_equal(xs.waiting_running, (size_t)(4 - k));
        assert_int_equal(xs.waiting, (size_t)(4 - k));
    }
    /* start order = submission order across groups, a2 last (it queued for a running permit last) */
    assert_int_equal(atomic_load(&ps.p[a0].start_seq), 0);
    for (int k = 0; k < 6; k++) assert_int_equal(atomic_load(&ps.p[order[k]].start_seq), k + 1);
    tu_ps_finish_all(&ps);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.admitted, 7);
    assert_int_equal(tu_gstats(ex, "B").oldest_wait_ns, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- executor gate permits under the running cap ------------------------------------------------- */
#ifndef GROUPCONC_NO_GATE

typedef struct gate_log {
    atomic_int rejected;
    atomic_int last_reason;
} gate_log;

static void gate_log_fn(const groupconc_gate_event *ev, void *user_data) {
    gate_log *l = (gate_log *)user_data;
    if (ev->type == GROUPCONC_GATE_REJECTED) {
        atomic_fetch_add(&l->rejected, 1);
        atomic_store(&l->last_reason, ev->reason);
    }
}

static void test_gate_permits_count_at_running_cap(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 4;
    p.global_max_running = 2;
    groupconc_executor *ex = tu_executor(&p);
    gate_log log;
    atomic_init(&log.rejected, 0);
    atomic_init(&log.last_reason, 0);
    groupconc_gate_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.executor = ex;
    cfg.listener = gate_log_fn;
    cfg.listener_user_data = &log;
    groupconc_gate *gate = NULL;
    assert_int_equal(groupconc_gate_create(&cfg, &gate), GROUPCONC_OK);

    groupconc_permit p1, p2, px;
    assert_int_equal(groupconc_gate_try_acquire(gate, "ga", &p1), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(gate, "gb", &p2), GROUPCONC_OK);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(xs.gate_permits, 2);
    assert_int_equal(xs.running, 2);
    /* the running cap full: refused there, in another group and in a group holding a permit */
    assert_int_equal(groupconc_gate_try_acquire(gate, "gc", &px), GROUPCONC_EREJECTED_RUNNING);
    assert_null(px.gate);
    assert_int_equal(groupconc_gate_try_acquire(gate, "ga", &px), GROUPCONC_EREJECTED_RUNNING);
    assert_int_equal(atomic_load(&log.rejected), 2);
    assert_int_equal(atomic_load(&log.last_reason), GROUPCONC_EREJECTED_RUNNING);

    /* a task waits for a running permit behind the two permits, holding its group's concurrency
       permit */
    hold hd;
    hold_init(&hd, 1, 2);
    groupconc_task *t = tu_submit(ex, "tq", NULL, hold_fn, &hd);
    groupconc_group_stats s = tu_gstats(ex, "tq");
    assert_int_equal(s.waiting_running, 1);
    assert_int_equal(s.running, 0);
    assert_int_equal(s.in_flight, 1);
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(xs.waiting, 1);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(tu_latch_count(&hd.started), 1);
    groupconc_gate_stats gs;
    assert_int_equal(groupconc_gate_stats_get(gate, "tq", &gs), GROUPCONC_OK);
    assert_int_equal(gs.available, 0);
    assert_int_equal(groupconc_gate_try_acquire(gate, "tq", &px), GROUPCONC_EREJECTED_RUNNING);

    /* a permit comes back: the waiting task gets its running permit */
    assert_int_equal(groupconc_permit_release(&p1, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_true(tu_latch_wait(&hd.started));
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.global_running, 2); /* the task and p2 */
    assert_int_equal(xs.gate_permits, 1);
    assert_int_equal(xs.running, 2);
    assert_int_equal(tu_gstats(ex, "tq").running, 1);
    assert_int_equal(groupconc_gate_try_acquire(gate, "gc", &px), GROUPCONC_EREJECTED_RUNNING);

    /* the task returns: one free running permit, a gate takes it */
    tu_latch_open(&hd.go);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(tu_xstats(ex).global_running, 1);
    assert_int_equal(groupconc_gate_try_acquire(gate, "gc", &px), GROUPCONC_OK);
    assert_int_equal(tu_xstats(ex).global_running, 2);
    assert_int_equal(groupconc_gate_stats_get(gate, NULL, &gs), GROUPCONC_OK);
    assert_int_equal(gs.admitted, 3);
    assert_int_equal(gs.rejected, 4);
    assert_int_equal(gs.in_flight, 2);
    assert_int_equal(atomic_load(&log.rejected), 4);
    assert_int_equal(groupconc_permit_release(&p2, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&px, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.gate_permits, 0);
    assert_int_equal(groupconc_gate_destroy(gate), GROUPCONC_OK);
    hold_destroy(&hd);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}
#endif /* !GROUPCONC_NO_GATE */

/* ---- max_waiting ----------------------------------------------------------------------------------- */

static void test_max_waiting_abort_and_moves(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 1;
    p.global_max_running = 1;
    p.max_waiting = 4;
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    int a0 = tu_ps_submit(&ps, ex, "A");
    assert_true(tu_latch_wait(&ps.started));
    int a1 = tu_ps_submit(&ps, ex, "A"); /* concurrency */
    int a2 = tu_ps_submit(&ps, ex, "A"); /* concurrency */
    int b0 = tu_ps_submit(&ps, ex, "B"); /* global running */
    int c0 = tu_ps_submit(&ps, ex, "C"); /* global running: 4 waiting, the bound */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 4);
    assert_int_equal(xs.max_waiting, 4);
    /* the fifth waiter is refused, whichever layer it would wait at */
    assert_int_equal(groupconc_submit(ex, "D", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_WAITING);
    assert_null(t);
    assert_int_equal(groupconc_submit(ex, "A", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_WAITING);
    assert_null(t);
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 4);
    assert_int_equal(xs.rejected_waiting, 2);
    assert_int_equal(xs.rejected_concurrency + xs.rejected_bulkhead + xs.rejected_global, 0);
    groupconc_group_stats sd = tu_gstats(ex, "D");
    assert_int_equal(sd.rejected_waiting, 1);
    assert_int_equal(sd.submitted, 1);
    assert_int_equal(sd.completed, 1);
    assert_int_equal(sd.concurrency, 1);
    assert_int_equal(sd.in_flight + sd.waiting_running + sd.waiting_concurrency, 0);
    assert_int_equal(tu_gstats(ex, "A").rejected_waiting, 1);

    /* lowered live to 1 with 4 waiting: when a0 returns, b0 starts and a1 moves from the
       concurrency layer to the running cap's queue with 2 others waiting - a move is never refused
       by the bound */
    groupconc_executor_limits lim = groupconc_executor_limits_keep();
    lim.max_waiting = 1;
    assert_int_equal(groupconc_executor_limits_set(ex, &lim), GROUPCONC_OK);
    ps_finish_then(&ps, a0, 1);
    assert_true(started_yet(&ps.p[b0]));
    groupconc_group_stats sa = tu_gstats(ex, "A");
    assert_int_equal(sa.waiting_running, 1);      /* a1 */
    assert_int_equal(sa.waiting_concurrency, 1);  /* a2 */
    assert_int_equal(sa.rejected_waiting, 1);     /* still only the refused submit */
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 3);
    assert_int_equal(xs.waiting_running, 2);
    assert_int_equal(xs.max_waiting, 1);
    assert_int_equal(xs.rejected_waiting, 2);
    /* a new waiter is refused at the new bound */
    assert_int_equal(groupconc_submit(ex, "E", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_WAITING);
    assert_int_equal(tu_xstats(ex).rejected_waiting, 3);

    ps_finish_then(&ps, b0, 1);
    assert_true(started_yet(&ps.p[c0]));
    ps_finish_then(&ps, c0, 1);
    assert_true(started_yet(&ps.p[a1]));
    ps_finish_then(&ps, a1, 1);
    assert_true(started_yet(&ps.p[a2]));
    int want[5] = {a0, b0, c0, a1, a2};
    for (int k = 0; k < 5; k++) assert_int_equal(atomic_load(&ps.p[want[k]].start_seq), k);
    tu_ps_finish_all(&ps);
    xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 8);
    assert_int_equal(xs.completed, 8);
    assert_int_equal(xs.succeeded, 5);
    assert_int_equal(xs.rejected_waiting, 3);
    assert_int_equal(xs.admitted, 5);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A task argument that tells running from cleaning up. */
typedef struct two_counts {
    atomic_int ran;
    atomic_int cleaned;
} two_counts;

static int two_counts_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add(&((two_counts *)arg)->ran, 1);
    return 0;
}

static void two_counts_cleanup(void *arg) { atomic_fetch_add(&((two_counts *)arg)->cleaned, 1); }

typedef struct event_log {
    atomic_int rejected_waiting_events;
    atomic_int completed_events;
} event_log;

static void event_log_fn(const groupconc_event *ev, void *user_data) {
    event_log *l = (event_log *)user_data;
    if (ev->type == GROUPCONC_EVENT_REJECTED && ev->reason == GROUPCONC_EREJECTED_WAITING)
        atomic_fetch_add(&l->rejected_waiting_events, 1);
    if (ev->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add(&l->completed_events, 1);
}

static void test_max_waiting_discard(void **state) {
    (void)state;
    event_log log;
    atomic_init(&log.rejected_waiting_events, 0);
    atomic_init(&log.completed_events, 0);
    groupconc_policy p = groupconc_policy_default();
    p.global_max_running = 1;
    p.max_waiting = 1;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    p.listener = event_log_fn;
    p.listener_user_data = &log;
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    int r0 = tu_ps_submit(&ps, ex, "run");
    assert_true(tu_latch_wait(&ps.started));
    int w0 = tu_ps_submit(&ps, ex, "wait"); /* the one waiter allowed */
    two_counts tc;
    atomic_init(&tc.ran, 0);
    atomic_init(&tc.cleaned, 0);
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = "refused";
    spec.task_id = "x0";
    spec.fn = two_counts_fn;
    spec.arg = &tc;
    spec.cleanup = two_counts_cleanup;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &t), GROUPCONC_OK); /* DISCARD: a handle */
    assert_non_null(t);
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_WAITING);
    assert_int_equal(r.error, 0);
    assert_string_equal(r.task_id, "x0");
    assert_string_equal(r.group, "refused");
    assert_int_equal(r.end_ns, r.start_ns);
    assert_int_equal(atomic_load(&tc.cleaned), 1); /* accepted: its cleanup ran, exactly once */
    assert_int_equal(atomic_load(&log.rejected_waiting_events), 1);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);

    groupconc_group_stats s = tu_gstats(ex, "refused");
    assert_int_equal(s.rejected_waiting, 1);
    assert_int_equal(s.submitted, 1);
    assert_int_equal(s.completed, 1);
    assert_int_equal(s.admitted, 0);
    assert_int_equal(tu_rejected(s), 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.rejected_waiting, 1);
    assert_int_equal(xs.waiting, 1);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(tu_gstats(ex, "wait").waiting_running, 1);

    ps_finish_then(&ps, r0, 1);
    assert_true(started_yet(&ps.p[w0]));
    tu_ps_finish_all(&ps);
    xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 3);
    assert_int_equal(xs.completed, 3);
    assert_int_equal(xs.succeeded, 2);
    assert_int_equal(xs.rejected_waiting, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&tc.ran), 0);
    assert_int_equal(atomic_load(&tc.cleaned), 1);
    assert_int_equal(atomic_load(&log.completed_events), 3);
}

/* ---- counters: a scripted scenario ----------------------------------------------------------------- */

static int fail7_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 7;
}

static groupconc_task *submit_spec(groupconc_executor *ex, const char *group, groupconc_task_fn fn,
                                   void *arg, int64_t max_wait_ns) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = group;
    spec.fn = fn;
    spec.arg = arg;
    spec.max_wait_ns = max_wait_ns;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &t), GROUPCONC_OK);
    assert_non_null(t);
    return t;
}

static void test_counters_scripted(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"thr", 1, GROUPCONC_DEFAULT, 0, 0}}; /* run now or be refused */
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    p.default_concurrency = 1;
    p.global_max_running = 1;
    p.max_waiting = 3;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    tu_park pr0, ps0, pw0, pc0;
    tu_park_init(&pr0, &started, &order);
    tu_park_init(&ps0, NULL, &order);
    tu_park_init(&pw0, NULL, &order);
    tu_park_init(&pc0, NULL, &order);
    tu_park_release(&ps0); /* s0 and w0 return at once when they run */
    tu_park_release(&pw0);

    int64_t before_queue = tu_now_ns();
    groupconc_task *r0 = tu_submit(ex, "thr", "r0", tu_park_fn, &pr0); /* runs */
    assert_true(tu_latch_wait(&started));
    groupconc_task *t0 = tu_submit(ex, "thr", "t0", tu_count_fn, &ran); /* threshold 0: refused */
    groupconc_task *s0 = tu_submit(ex, "ok", "s0", tu_park_fn, &ps0);    /* global running */
    groupconc_task *f0 = tu_submit(ex, "bad", "f0", fail7_fn, NULL);     /* global running */
    groupconc_task *c0 = tu_submit(ex, "can", "c0", tu_park_fn, &pc0);   /* global running: 3 waiting */
    groupconc_task *w1 = tu_submit(ex, "full", "w1", tu_count_fn, &ran); /* refused: max_waiting */
    groupconc_result r = tu_wait(t0);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    r = tu_wait(w1);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_WAITING);
    groupconc_cancel_outcome out;
    assert_int_equal(groupconc_task_cancel(c0, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    r = tu_wait(c0);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    /* a queue deadline of 1 ms at the running cap: expires (the housekeeper), holding nothing after */
    groupconc_task *x0 = submit_spec(ex, "exp", tu_count_fn, &ran, TU_MS);
    r = tu_wait(x0);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_RUNNING);
    groupconc_task *w0 = tu_submit(ex, "ok", "w0", tu_park_fn, &pw0); /* concurrency, behind s0 */

    /* latched: r0 running; s0, f0 at global running; w0 at concurrency; 4 completed */
    coarse_advance(20 * TU_MS);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 8);
    assert_int_equal(xs.completed, 4);
    assert_int_equal(xs.running, 1);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.waiting, 3);
    assert_int_equal(xs.waiting_running, 2);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.submitted, xs.completed + xs.running + xs.ready + xs.waiting);
    assert_int_equal(xs.admitted, 1);
    assert_int_equal(xs.succeeded, 0);
    assert_int_equal(xs.failed, 0);
    assert_int_equal(xs.cancelled, 1);
    assert_int_equal(xs.rejected_concurrency, 1);
    assert_int_equal(xs.rejected_waiting, 1);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.rejected_global + xs.rejected_bulkhead + xs.rejected_other, 0);
    groupconc_group_stats sok = tu_gstats(ex, "ok");
    assert_int_equal(sok.submitted, 2);
    assert_int_equal(sok.completed, 0);
    assert_int_equal(sok.admitted, 0);
    assert_int_equal(sok.waiting_running, 1);
    assert_int_equal(sok.waiting_concurrency, 1);
    assert_true(sok.oldest_wait_ns >= (uint64_t)(20 * TU_MS));
    assert_true(sok.oldest_wait_ns <= (uint64_t)(tu_now_ns() - before_queue + 50 * TU_MS));
    groupconc_group_stats sthr = tu_gstats(ex, "thr");
    assert_int_equal(sthr.submitted, 2);
    assert_int_equal(sthr.completed, 1);
    assert_int_equal(sthr.admitted, 1);
    assert_int_equal(sthr.running, 1);
    assert_int_equal(sthr.rejected_concurrency, 1);
    assert_int_equal(sthr.queue_threshold, 0);
    assert_int_equal(sthr.oldest_wait_ns, 0);
    groupconc_group_stats sexp = tu_gstats(ex, "exp");
    assert_int_equal(sexp.expired, 1);
    assert_int_equal(sexp.submitted, 1);
    assert_int_equal(sexp.completed, 1);
    assert_int_equal(sexp.admitted, 0);
    assert_int_equal(sexp.in_flight + sexp.waiting_running, 0);
    assert_int_equal(tu_rejected(sexp) + sexp.rejected_waiting, 0);
    groupconc_group_stats scan = tu_gstats(ex, "can");
    assert_int_equal(scan.cancelled, 1);
    assert_int_equal(scan.completed, 1);
    assert_int_equal(scan.admitted, 0);
    groupconc_group_stats sfull = tu_gstats(ex, "full");
    assert_int_equal(sfull.rejected_waiting, 1);
    assert_int_equal(sfull.completed, 1);
    assert_int_equal(tu_gstats(ex, "bad").waiting_running, 1);

    /* r0 returns: s0, f0, w0 run in that order */
    tu_park_release(&pr0);
    tu_wait_status(r0, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(s0, GROUPCONC_STATUS_SUCCESS);
    r = tu_wait(f0);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, 7);
    assert_int_equal(r.reason, 0);
    tu_wait_status(w0, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&pr0.start_seq), 0);
    assert_int_equal(atomic_load(&ps0.start_seq), 1);
    assert_int_equal(atomic_load(&pw0.start_seq), 2); /* f0 has no park; it ran between */
    assert_int_equal(atomic_load(&pc0.ran), 0);

    xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 8);
    assert_int_equal(xs.completed, 8);
    assert_int_equal(xs.admitted, 4);
    assert_int_equal(xs.succeeded, 3);
    assert_int_equal(xs.failed, 1);
    assert_int_equal(xs.cancelled, 1);
    assert_int_equal(xs.rejected_concurrency, 1);
    assert_int_equal(xs.rejected_waiting, 1);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.rejected_global + xs.rejected_bulkhead + xs.rejected_other, 0);
    assert_int_equal(xs.completed, xs.succeeded + xs.failed + xs.cancelled + xs.rejected_global +
                                       xs.rejected_bulkhead + xs.rejected_concurrency +
                                       xs.rejected_waiting + xs.expired + xs.rejected_other);
    assert_int_equal(xs.waiting + xs.running + xs.ready + xs.global_running, 0);
    sok = tu_gstats(ex, "ok");
    assert_int_equal(sok.submitted, 2);
    assert_int_equal(sok.completed, 2);
    assert_int_equal(sok.succeeded, 2);
    assert_int_equal(sok.admitted, 2);
    assert_int_equal(sok.oldest_wait_ns, 0);
    groupconc_group_stats sbad = tu_gstats(ex, "bad");
    assert_int_equal(sbad.failed, 1);
    assert_int_equal(sbad.admitted, 1);
    assert_int_equal(sbad.completed, 1);
    sthr = tu_gstats(ex, "thr");
    assert_int_equal(sthr.succeeded, 1);
    assert_int_equal(sthr.completed, 2);
    assert_int_equal(atomic_load(&ran), 0);

    groupconc_task *all[8] = {r0, t0, s0, f0, c0, w1, x0, w0};
    for (int i = 0; i < 8; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&pr0);
    tu_park_destroy(&ps0);
    tu_park_destroy(&pw0);
    tu_park_destroy(&pc0);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

typedef struct on_thread {
    tu_thread_id thread;
    atomic_int ran;
} on_thread;

static int record_thread_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    on_thread *o = (on_thread *)arg;
    o->thread = tu_self();
    atomic_fetch_add(&o->ran, 1);
    return 0;
}

/* A task refused by max_waiting under CALLER_RUNS runs on the submitting thread with no permits:
   it counts as succeeded, not as admitted, and not as rejected_waiting. */
static void test_counters_caller_runs_not_admitted(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_running = 1;
    p.max_waiting = 0; /* run now or be refused */
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    int r0 = tu_ps_submit(&ps, ex, "a");
    assert_true(tu_latch_wait(&ps.started));
    on_thread o;
    atomic_init(&o.ran, 0);
    groupconc_task *t = tu_submit(ex, "b", NULL, record_thread_fn, &o);
    assert_int_equal(atomic_load(&o.ran), 1); /* ran inside submit */
    assert_true(tu_same_thread(o.thread, tu_self()));
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_group_stats sb = tu_gstats(ex, "b");
    assert_int_equal(sb.submitted, 1);
    assert_int_equal(sb.completed, 1);
    assert_int_equal(sb.succeeded, 1);
    assert_int_equal(sb.admitted, 0);
    assert_int_equal(sb.rejected_waiting, 0);
    assert_int_equal(sb.running + sb.in_flight + sb.waiting_running, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 2);
    assert_int_equal(xs.admitted, 1);
    assert_int_equal(xs.completed, 1);
    assert_int_equal(xs.succeeded, 1);
    assert_int_equal(xs.rejected_waiting, 0);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);

    ps_finish_then(&ps, r0, 0);
    tu_ps_finish_all(&ps);
    /* with the running permit free, the same submit is admitted and runs on a worker */
    atomic_int ran;
    atomic_init(&ran, 0);
    t = tu_submit(ex, "b", NULL, tu_count_fn, &ran);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 3);
    assert_int_equal(xs.admitted, 2);
    assert_int_equal(xs.completed, 3);
    assert_int_equal(xs.succeeded, 3);
    assert_int_equal(tu_gstats(ex, "b").admitted, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- policy validation ----------------------------------------------------------------------------- */

static void expect_elimit(const groupconc_policy *p, const char *field, long long value) {
    groupconc_policy_problem pr;
    memset(&pr, 0x5a, sizeof pr);
    assert_int_equal(groupconc_policy_check(p, &pr), GROUPCONC_ELIMIT);
    assert_int_equal(pr.code, GROUPCONC_ELIMIT);
    assert_string_equal(pr.field, field);
    assert_int_equal(pr.value, value);
    assert_null(pr.group);
    assert_non_null(strstr(pr.message, field));
    assert_int_equal(groupconc_policy_check(p, NULL), GROUPCONC_ELIMIT);
    groupconc_executor *ex = (groupconc_executor *)(void *)&pr; /* must be set to NULL */
    assert_int_equal(groupconc_executor_create(p, &ex), GROUPCONC_ELIMIT);
    assert_null(ex);
}

static void test_policy_rejects_bad_values(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    assert_int_equal(p.global_max_running, GROUPCONC_UNLIMITED);
    assert_int_equal(p.max_waiting, GROUPCONC_UNLIMITED);

    p.global_max_running = 0;
    expect_elimit(&p, "global_max_running", 0);
    p.global_max_running = GROUPCONC_DEFAULT; /* -2: not a value here */
    expect_elimit(&p, "global_max_running", -2);
    p.global_max_running = 1;
    assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_OK);

    p.max_waiting = -2;
    expect_elimit(&p, "max_waiting", -2);
    p.max_waiting = 0; /* valid: "run now or be refused" */
    groupconc_policy_problem pr;
    assert_int_equal(groupconc_policy_check(&p, &pr), GROUPCONC_OK);
    assert_int_equal(pr.code, GROUPCONC_OK);
    assert_string_equal(pr.field, "");

    /* both wrong: the first one found is named */
    p.global_max_running = 0;
    p.max_waiting = -2;
    expect_elimit(&p, "global_max_running", 0);

    /* and live: refused, nothing changed */
    p = groupconc_policy_default();
    p.global_max_running = 3;
    p.max_waiting = 5;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_executor_limits lim = groupconc_executor_limits_keep();
    lim.global_max_running = 0;
    assert_int_equal(groupconc_executor_limits_set(ex, &lim), GROUPCONC_ELIMIT);
    lim = groupconc_executor_limits_keep();
    lim.max_waiting = -2;
    assert_int_equal(groupconc_executor_limits_set(ex, &lim), GROUPCONC_ELIMIT);
    lim.global_max_running = 7; /* with a bad field beside it: nothing changed either */
    assert_int_equal(groupconc_executor_limits_set(ex, &lim), GROUPCONC_ELIMIT);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_running, 3);
    assert_int_equal(xs.max_waiting, 5);
    lim = groupconc_executor_limits_keep();
    lim.global_max_running = GROUPCONC_UNLIMITED;
    lim.max_waiting = 0;
    assert_int_equal(groupconc_executor_limits_set(ex, &lim), GROUPCONC_OK);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_running, GROUPCONC_UNLIMITED);
    assert_int_equal(xs.max_waiting, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_rejects_bad_values),
        cmocka_unit_test(test_crawler_running_cap_latched_state),
        cmocka_unit_test(test_crawler_in_flight_contrast_latched),
        cmocka_unit_test(test_running_fifo_across_groups),
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(test_gate_permits_count_at_running_cap),
#endif
        cmocka_unit_test(test_max_waiting_abort_and_moves),
        cmocka_unit_test(test_max_waiting_discard),
        cmocka_unit_test(test_counters_scripted),
        cmocka_unit_test(test_counters_caller_runs_not_admitted),
        cmocka_unit_test(test_crawler_running_cap_work_conserving),
        cmocka_unit_test(test_crawler_in_flight_contrast_timed),
    };
    return TU_RUN_TESTS(tests);
}
