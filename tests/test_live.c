/* test_live.c - live limits, pause and resume (groupconc_group_limits_set,
   groupconc_executor_limits_set, groupconc_group_pause / _resume, groupconc_executor_pause /
   _resume).

   What is checked, one state at a time, built with latches (never with sleeps):
     - raising a cap hands the freed permits at once, oldest waiters first, and nothing else;
     - lowering a cap never preempts and starts nothing until the count is under the new cap, then
       holds it exactly (concurrency, the bulkhead's max_in_flight, the global in-flight cap, the
       global running cap);
     - lowered queue thresholds refuse new arrivals with the layer's code and keep the waiters, also
       on an executor created without thresholds (its submits used the lock-free inbox);
     - a group's limits change in one step (a scenario where the two orders of applying two
       separate changes differ, and a control that shows the difference);
     - GROUPCONC_KEEP / GROUPCONC_DEFAULT, the resolver consulted again, limits for keys with no
       state yet and after an evict, executor defaults for later groups only;
     - bad input and shut-down executors;
     - pause / resume of a group and of the executor: nothing new starts, places are kept, queues
       still admit (thresholds apply), FIFO on resume (also across the concurrency and global
       running layers with a running cap), shutdown and evict of a paused group, executor gates
       refused, the global running queue passes over a paused group's waiters;
     - FIFO at the global running layer when one call raises the global in-flight and running caps
       together.
   A test whose verdict is a library-order check cleans up (releases its parked tasks, destroys the
   executor) before it fails, so that a failure leaves no thread or leak behind.
   Assertions run on the main thread; tasks record what they saw in atomics. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

/* A parked task that also enters a shared running counter (optional) and records the count it saw
   on entry: the number of tasks of the counter inside their bodies at that moment, itself
   included. It enters before it counts down `started`, and leaves after the test released it,
   before its permits go back, so `seen` is an exact lower bound of what the library let run. */
typedef struct live_task {
    tu_park park;
    tu_peak *peak;
    atomic_int seen;
} live_task;

static int live_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    live_task *lt = (live_task *)user_data;
    int v = lt->peak ? tu_peak_enter(lt->peak) : 0;
    atomic_store(&lt->seen, v);
    int rc = tu_park_fn(ctx, out_value, &lt->park);
    if (lt->peak) tu_peak_leave(lt->peak);
    return rc;
}

#define PS_MAX 48

/* A set of parked tasks sharing one `started` latch and one start-order counter. */
typedef struct parkset {
    live_task t[PS_MAX];
    groupconc_task *h[PS_MAX];
    groupconc_status want[PS_MAX]; /* the final status expected by ps_finish_all */
    int n;
    tu_latch started;
    atomic_int order;
    tu_peak *peak; /* entered by the tasks submitted while it is set */
} parkset;

static void ps_init(parkset *ps, long expect_started) {
    ps->n = 0;
    ps->peak = NULL;
    tu_latch_init(&ps->started, expect_started);
    atomic_init(&ps->order, 0);
}

static int ps_submit(parkset *ps, groupconc_executor *ex, const char *group) {
    int i = ps->n++;
    assert_true(i < PS_MAX);
    tu_park_init(&ps->t[i].park, &ps->started, &ps->order);
    ps->t[i].peak = ps->peak;
    atomic_init(&ps->t[i].seen, 0);
    ps->want[i] = GROUPCONC_STATUS_SUCCESS;
    ps->h[i] = tu_submit(ex, group, NULL, live_fn, &ps->t[i]);
    return i;
}

/* Wait for `n` more starts (re-arm, then wait). */
static void ps_expect(parkset *ps, long n) { tu_latch_add(&ps->started, n); }
static void ps_wait_started(parkset *ps) { assert_true(tu_latch_wait(&ps->started)); }

static int ps_ran(parkset *ps, int i) { return atomic_load(&ps->t[i].park.ran); }
static int ps_seq(parkset *ps, int i) { return atomic_load(&ps->t[i].park.start_seq); }
static int ps_seen(parkset *ps, int i) { return atomic_load(&ps->t[i].seen); }

/* Exactly the tasks lo..hi-1 (of those submitted) have started, and each once. */
static void ps_assert_started_range(parkset *ps, int lo, int hi) {
    for (int i = 0; i < ps->n; i++) {
        if (ps_ran(ps, i) != (i >= lo && i < hi ? 1 : 0)) fail_msg("task %d: ran %d times, want %d", i,
                                                                   ps_ran(ps, i), i >= lo && i < hi);
    }
}

/* Let task i return and wait for it: its permits are handed on before the wait returns. */
static void ps_finish(parkset *ps, int i) {
    tu_park_release(&ps->t[i].park);
    tu_wait_status(ps->h[i], GROUPCONC_STATUS_SUCCESS);
}

static void ps_finish_all(parkset *ps) {
    for (int i = 0; i < ps->n; i++) tu_park_release(&ps->t[i].park);
    for (int i = 0; i < ps->n; i++) {
        groupconc_result r = tu_wait(ps->h[i]);
        if (r.status != ps->want[i]) fail_msg("task %d: status %d, want %d", i, r.status, ps->want[i]);
        assert_false(atomic_load(&ps->t[i].park.timed_out));
        assert_int_equal(groupconc_task_release(ps->h[i]), GROUPCONC_OK);
        tu_park_destroy(&ps->t[i].park);
    }
    tu_latch_destroy(&ps->started);
    ps->n = 0;
}

static int group_set(groupconc_executor *ex, const char *group, int conc, int mif, int thr) {
    groupconc_group_limits l = groupconc_group_limits_keep(group);
    l.concurrency = conc;
    l.max_in_flight = mif;
    l.queue_threshold = thr;
    return groupconc_group_limits_set(ex, &l);
}

static void set_conc(groupconc_executor *ex, const char *group, int conc) {
    assert_int_equal(group_set(ex, group, conc, GROUPCONC_KEEP, GROUPCONC_KEEP), GROUPCONC_OK);
}

static groupconc_policy policy_with(groupconc_group_limits *table, size_t n) {
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = n;
    return p;
}

/* A short task entering a running counter (for caps under load). */
typedef struct probe {
    tu_peak *peak;
} probe;

static int probe_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    probe *pr = (probe *)user_data;
    tu_peak_enter(pr->peak);
    tu_sleep_ns(20000); /* overlap likely, not required */
    tu_peak_leave(pr->peak);
    return 0;
}

static void run_probes(groupconc_executor *ex, const char *group, tu_peak *peak, int n) {
    probe pr = {peak};
    groupconc_task *h[200];
    assert_true(n <= 200);
    for (int i = 0; i < n; i++) h[i] = tu_submit(ex, group, NULL, probe_fn, &pr);
    for (int i = 0; i < n; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
}

/* ---- 1. raising a group's concurrency ----------------------------------------------------------- */

static void test_raise_concurrency_starts_oldest(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);

    parkset ps;
    ps_init(&ps, 2);
    for (int i = 0; i < 12; i++) ps_submit(&ps, ex, "up");
    ps_wait_started(&ps);
    groupconc_group_stats s = tu_gstats(ex, "up");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.running, 2);
    assert_int_equal(s.waiting_concurrency, 10);
    ps_assert_started_range(&ps, 0, 2);

    /* 2 -> 5: three permits handed in the call itself (the snapshot right after it already has
       them: running or ready), to the three oldest waiters */
    ps_expect(&ps, 3);
    set_conc(ex, "up", 5);
    s = tu_gstats(ex, "up");
    assert_int_equal(s.concurrency, 5);
    assert_int_equal(s.running + s.ready, 5);
    assert_int_equal(s.waiting_concurrency, 7);
    ps_wait_started(&ps);
    s = tu_gstats(ex, "up");
    assert_int_equal(s.running, 5);
    assert_int_equal(s.ready, 0);
    assert_int_equal(s.waiting_concurrency, 7);
    assert_int_equal(s.in_flight, 12);
    assert_int_equal(s.admitted, 5);
    ps_assert_started_range(&ps, 0, 5);
    for (int i = 2; i < 5; i++) assert_in_range(ps_seq(&ps, i), 2, 4); /* after the first two */

    /* from here on exactly one waiter per finished task, in submission order */
    for (int i = 0; i < 7; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, 6 + i);
        assert_int_equal(ps_seq(&ps, 5 + i), 5 + i);
        s = tu_gstats(ex, "up");
        assert_int_equal(s.running, 5);
        assert_int_equal(s.waiting_concurrency, (size_t)(6 - i));
    }
    ps_finish_all(&ps);
    s = tu_gstats(ex, "up");
    assert_int_equal(s.succeeded, 12);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 2. lowering a group's concurrency ---------------------------------------------------------- */

static void test_lower_concurrency_drains_then_holds(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 5;
    groupconc_executor *ex = tu_executor(&p);
    tu_peak peak;
    tu_peak_init(&peak);

    parkset ps;
    ps_init(&ps, 5);
    ps.peak = &peak;
    for (int i = 0; i < 12; i++) ps_submit(&ps, ex, "down");
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 5);

    /* 5 -> 2: nothing is preempted, nothing starts */
    set_conc(ex, "down", 2);
    groupconc_group_stats s = tu_gstats(ex, "down");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.running, 5);
    assert_int_equal(s.waiting_concurrency, 7);

    /* three finish: running 4, 3, 2; no waiter is handed a permit (the count is not under 2) */
    for (int i = 0; i < 3; i++) {
        ps_finish(&ps, i);
        s = tu_gstats(ex, "down");
        assert_int_equal(s.running, (size_t)(4 - i));
        assert_int_equal(s.ready, 0);
        assert_int_equal(s.waiting_concurrency, 7);
    }
    ps_assert_started_range(&ps, 0, 5);

    /* now each finish lets exactly the oldest waiter in: 2 at a time, exactly */
    for (int i = 3; i < 10; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, i + 3);
        s = tu_gstats(ex, "down");
        assert_int_equal(s.running, 2);
        assert_int_equal(s.waiting_concurrency, (size_t)(9 - i));
    }
    int late_max = 0;
    for (int i = 5; i < 12; i++) late_max = ps_seen(&ps, i) > late_max ? ps_seen(&ps, i) : late_max;
    assert_int_equal(late_max, 2);           /* each late task started next to one other */
    assert_int_equal(tu_peak_max(&peak), 5); /* never grew past the old cap */
    ps_finish_all(&ps);

    /* under load the new cap holds */
    tu_peak load;
    tu_peak_init(&load);
    run_probes(ex, "down", &load, 120);
    assert_in_range(tu_peak_max(&load), 1, 2);
    assert_int_equal(tu_gstats(ex, "down").concurrency, 2);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 3. bulkhead (max_in_flight), global in-flight and global running caps, thresholds ---------- */

static void test_live_max_in_flight(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"bh", 8, 2, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = policy_with(table, 1);
    groupconc_executor *ex = tu_executor(&p);
    tu_peak peak;
    tu_peak_init(&peak);

    parkset ps;
    ps_init(&ps, 2);
    ps.peak = &peak;
    for (int i = 0; i < 10; i++) ps_submit(&ps, ex, "bh");
    ps_wait_started(&ps);
    groupconc_group_stats s = tu_gstats(ex, "bh");
    assert_int_equal(s.max_in_flight, 2);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.waiting_bulkhead, 8);
    assert_int_equal(s.waiting_concurrency, 0);

    /* raise 2 -> 4: the two oldest start */
    ps_expect(&ps, 2);
    assert_int_equal(group_set(ex, "bh", GROUPCONC_KEEP, 4, GROUPCONC_KEEP), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 4);
    s = tu_gstats(ex, "bh");
    assert_int_equal(s.max_in_flight, 4);
    assert_int_equal(s.concurrency, 8); /* KEEP */
    assert_int_equal(s.in_flight, 4);
    assert_int_equal(s.running, 4);
    assert_int_equal(s.waiting_bulkhead, 6);

    /* lower 4 -> 1: no preemption; nothing passes the bulkhead until in_flight < 1 */
    assert_int_equal(group_set(ex, "bh", GROUPCONC_KEEP, 1, GROUPCONC_KEEP), GROUPCONC_OK);
    for (int i = 0; i < 3; i++) {
        ps_finish(&ps, i);
        s = tu_gstats(ex, "bh");
        assert_int_equal(s.in_flight, (size_t)(3 - i));
        assert_int_equal(s.running, (size_t)(3 - i));
        assert_int_equal(s.waiting_bulkhead, 6);
    }
    ps_assert_started_range(&ps, 0, 4);
    for (int i = 3; i < 9; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, i + 2);
        s = tu_gstats(ex, "bh");
        assert_int_equal(s.in_flight, 1);
        assert_int_equal(s.running, 1);
        assert_int_equal(s.waiting_bulkhead, (size_t)(8 - i));
    }
    for (int i = 4; i < 10; i++) assert_int_equal(ps_seen(&ps, i), 1); /* one at a time, exactly */
    assert_int_equal(tu_peak_max(&peak), 4);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_live_global_in_flight(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 2;
    groupconc_executor *ex = tu_executor(&p);
    tu_peak peak;
    tu_peak_init(&peak);
    const char *keys[10] = {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"};

    parkset ps;
    ps_init(&ps, 2);
    ps.peak = &peak;
    for (int i = 0; i < 10; i++) ps_submit(&ps, ex, keys[i]);
    ps_wait_started(&ps);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 2);
    assert_int_equal(xs.waiting, 8);

    /* raise 2 -> 4: g2 and g3, the oldest waiters for a global in-flight permit */
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_in_flight = 4;
    ps_expect(&ps, 2);
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 4);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_in_flight, 4);
    assert_int_equal(xs.global_in_flight, 4);
    assert_int_equal(xs.running, 4);
    assert_int_equal(xs.waiting, 6);

    /* lower 4 -> 1 */
    l.global_max_in_flight = 1;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    for (int i = 0; i < 3; i++) {
        ps_finish(&ps, i);
        xs = tu_xstats(ex);
        assert_int_equal(xs.global_in_flight, (size_t)(3 - i));
        assert_int_equal(xs.waiting, 6);
    }
    ps_assert_started_range(&ps, 0, 4);
    for (int i = 3; i < 9; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, i + 2);
        xs = tu_xstats(ex);
        assert_int_equal(xs.global_in_flight, 1);
        assert_int_equal(xs.running, 1);
        assert_int_equal(xs.waiting, (size_t)(8 - i));
        assert_int_equal(tu_gstats(ex, keys[i + 1]).running, 1);
    }
    for (int i = 4; i < 10; i++) assert_int_equal(ps_seen(&ps, i), 1);
    assert_int_equal(tu_peak_max(&peak), 4);
    ps_finish_all(&ps);

    /* back to unlimited: ten groups run together */
    l.global_max_in_flight = GROUPCONC_UNLIMITED;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(tu_xstats(ex).global_max_in_flight, GROUPCONC_UNLIMITED);
    ps_init(&ps, 10);
    for (int i = 0; i < 10; i++) ps_submit(&ps, ex, keys[i]);
    ps_wait_started(&ps);
    assert_int_equal(tu_xstats(ex).global_in_flight, 10);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_live_global_running(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 4; /* the groups never hold anyone back here: the running cap does */
    groupconc_executor *ex = tu_executor(&p);

    /* started with no running cap: 4 run; a cap of 2 set now preempts nothing */
    parkset ps;
    ps_init(&ps, 4);
    for (int i = 0; i < 4; i++) ps_submit(&ps, ex, "ra");
    ps_wait_started(&ps);
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_running = 2;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_running, 2);
    assert_int_equal(xs.global_running, 4);
    assert_int_equal(xs.running, 4);

    /* three newcomers, two groups: they take their group's concurrency permit and queue for the
       global running cap in submission order */
    ps_submit(&ps, ex, "rb"); /* 4 */
    ps_submit(&ps, ex, "rc"); /* 5 */
    ps_submit(&ps, ex, "rb"); /* 6 */
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 3);
    assert_int_equal(tu_gstats(ex, "rb").waiting_running, 2);
    assert_int_equal(tu_gstats(ex, "rc").waiting_running, 1);

    /* 4 -> 3 -> 2 running: nothing starts (not under the cap) */
    for (int i = 0; i < 2; i++) {
        ps_finish(&ps, i);
        xs = tu_xstats(ex);
        assert_int_equal(xs.global_running, (size_t)(3 - i));
        assert_int_equal(xs.waiting_running, 3);
    }
    ps_assert_started_range(&ps, 0, 4);
    /* the next one frees a permit under the cap: the oldest waiter for a running permit gets it */
    ps_expect(&ps, 1);
    ps_finish(&ps, 2);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 5);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(xs.waiting_running, 2);

    /* raise 2 -> 3: exactly the next oldest ("rc"), not the later "rb" */
    ps_expect(&ps, 1);
    l.global_max_running = 3;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 5), 1);
    assert_int_equal(ps_ran(&ps, 6), 0);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 3);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(tu_gstats(ex, "rb").waiting_running, 1);

    /* unlimited again: the last one starts */
    ps_expect(&ps, 1);
    l.global_max_running = GROUPCONC_UNLIMITED;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 6), 1);
    assert_int_equal(tu_xstats(ex).waiting_running, 0);
    ps_finish_all(&ps);

    /* a cap of 1 under load: one task body at a time, all groups together */
    l.global_max_running = 1;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    tu_peak load;
    tu_peak_init(&load);
    probe pr = {&load};
    groupconc_task *h[90];
    const char *keys[3] = {"ra", "rb", "rc"};
    for (int i = 0; i < 90; i++) h[i] = tu_submit(ex, keys[i % 3], NULL, probe_fn, &pr);
    for (int i = 0; i < 90; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    assert_int_equal(tu_peak_max(&load), 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* The executor starts with no queue threshold anywhere: its submits go through the lock-free inbox
   and can never be refused. A threshold set live must make the very next submit refusable (the
   locked path), with the code of the layer that refuses, while the tasks already waiting keep
   their places and run. */
static void test_live_thresholds_from_inbox(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default(); /* no threshold: the inbox path */
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;

    /* group threshold, waiting at the concurrency layer: EREJECTED_CONCURRENCY */
    parkset ps;
    ps_init(&ps, 1);
    for (int i = 0; i < 5; i++) ps_submit(&ps, ex, "tq"); /* 1 running, 4 waiting */
    ps_wait_started(&ps);
    assert_int_equal(group_set(ex, "tq", GROUPCONC_KEEP, GROUPCONC_KEEP, 2), GROUPCONC_OK);
    groupconc_group_stats s = tu_gstats(ex, "tq");
    assert_int_equal(s.queue_threshold, 2);
    assert_int_equal(s.waiting_concurrency, 4); /* kept, although above the new threshold */
    assert_int_equal(groupconc_submit(ex, "tq", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    assert_null(t);
    /* still refused while 3 and then 2 wait; accepted at 1 */
    for (int i = 0; i < 2; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        assert_int_equal(groupconc_submit(ex, "tq", NULL, tu_count_fn, &ran, &t),
                         GROUPCONC_EREJECTED_CONCURRENCY);
    }
    ps_expect(&ps, 1);
    ps_finish(&ps, 2);
    ps_wait_started(&ps);
    assert_int_equal(tu_gstats(ex, "tq").waiting_concurrency, 1);
    ps_submit(&ps, ex, "tq"); /* 5: accepted, 2 waiting */
    assert_int_equal(groupconc_submit(ex, "tq", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    s = tu_gstats(ex, "tq");
    assert_int_equal(s.waiting_concurrency, 2);
    assert_int_equal(s.rejected_concurrency, 4);
    ps_finish_all(&ps); /* every waiter that was kept ran */

    /* bulkhead: max_in_flight 1, so tasks wait at the bulkhead: EREJECTED_BULKHEAD */
    assert_int_equal(group_set(ex, "tb", GROUPCONC_KEEP, 1, GROUPCONC_KEEP), GROUPCONC_OK);
    ps_init(&ps, 1);
    for (int i = 0; i < 3; i++) ps_submit(&ps, ex, "tb");
    ps_wait_started(&ps);
    assert_int_equal(group_set(ex, "tb", GROUPCONC_KEEP, GROUPCONC_KEEP, 1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "tb", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_BULKHEAD);
    s = tu_gstats(ex, "tb");
    assert_int_equal(s.waiting_bulkhead, 2);
    assert_int_equal(s.rejected_bulkhead, 1);
    /* and back to unlimited: accepted again */
    assert_int_equal(group_set(ex, "tb", GROUPCONC_KEEP, GROUPCONC_KEEP, GROUPCONC_UNLIMITED), GROUPCONC_OK);
    ps_submit(&ps, ex, "tb");
    assert_int_equal(tu_gstats(ex, "tb").waiting_bulkhead, 3);
    ps_finish_all(&ps);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    /* global threshold and max_waiting, set through executor_limits_set on a fresh inbox executor */
    ex = tu_executor(&p);
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_in_flight = 1;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "x0");
    ps_submit(&ps, ex, "x1"); /* waits for a global in-flight permit */
    ps_submit(&ps, ex, "x2"); /* waits for a global in-flight permit */
    ps_wait_started(&ps);
    l = groupconc_executor_limits_keep();
    l.global_queue_threshold = 1;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "x3", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_GLOBAL);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 2);
    assert_int_equal(xs.rejected_global, 1);
    /* threshold off, a bound of 2 waiting tasks in all: the next waiter is refused by it */
    l.global_queue_threshold = GROUPCONC_UNLIMITED;
    l.max_waiting = 2;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "x3", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_WAITING);
    xs = tu_xstats(ex);
    assert_int_equal(xs.max_waiting, 2);
    assert_int_equal(xs.waiting, 2);
    assert_int_equal(xs.rejected_waiting, 1);
    /* unbounded again: admitted to wait */
    l.max_waiting = GROUPCONC_UNLIMITED;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_submit(&ps, ex, "x3");
    assert_int_equal(tu_xstats(ex).waiting, 3);
    /* the waiters run in order as the cap frees up */
    for (int i = 0; i < 3; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, i + 2);
    }
    ps_finish_all(&ps);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 4. one step per group ---------------------------------------------------------------------- */

/* Changing concurrency and max_in_flight in one call must act as one step. The state is chosen so
   that the two possible orders of two separate calls give different results:
     concurrency 4, max_in_flight 1: 1 task running, 7 waiting at the bulkhead.
     target: concurrency 1, max_in_flight 4.
   One step: the bulkhead opens 3 slots, the 3 oldest move on to the concurrency layer, where the
   cap is already 1 and taken: they wait there. Running stays 1, and the group never runs 2 at once
   afterwards.
   max_in_flight first, then concurrency (what a non-atomic change could do): with the old
   concurrency 4 the 3 start at once, and lowering concurrency afterwards preempts nothing: 4 run.
   The control group "sep" does exactly that with two calls and shows the 4. Then an observer
   check: tasks read their group's (concurrency, max_in_flight) while the main thread flips between
   the two pairs in single calls; a mixed pair would be a half-applied change. */
static void test_group_change_is_one_step(void **state) {
    (void)state;
    groupconc_group_limits table[] = {
        {"atom", 4, 1, GROUPCONC_DEFAULT, 0},
        {"sep", 4, 1, GROUPCONC_DEFAULT, 0},
    };
    groupconc_policy p = policy_with(table, 2);
    groupconc_executor *ex = tu_executor(&p);
    tu_peak peak;
    tu_peak_init(&peak);

    parkset ps;
    ps_init(&ps, 1);
    ps.peak = &peak;
    for (int i = 0; i < 8; i++) ps_submit(&ps, ex, "atom");
    ps_wait_started(&ps);
    assert_int_equal(tu_gstats(ex, "atom").waiting_bulkhead, 7);

    assert_int_equal(group_set(ex, "atom", 1, 4, GROUPCONC_KEEP), GROUPCONC_OK);
    groupconc_group_stats s = tu_gstats(ex, "atom");
    assert_int_equal(s.concurrency, 1);
    assert_int_equal(s.max_in_flight, 4);
    assert_int_equal(s.running + s.ready, 1);
    assert_int_equal(s.in_flight, 4);
    assert_int_equal(s.waiting_concurrency, 3);
    assert_int_equal(s.waiting_bulkhead, 4);
    ps_assert_started_range(&ps, 0, 1);
    for (int i = 0; i < 7; i++) {
        ps_expect(&ps, 1);
        ps_finish(&ps, i);
        ps_wait_started(&ps);
        ps_assert_started_range(&ps, 0, i + 2); /* FIFO, one at a time */
        s = tu_gstats(ex, "atom");
        assert_int_equal(s.running, 1);
        assert_int_equal(s.in_flight, (size_t)(7 - i < 4 ? 7 - i : 4));
    }
    assert_int_equal(tu_peak_max(&peak), 1);
    ps_finish_all(&ps);

    /* the control: the same two changes as two calls, max_in_flight first */
    ps_init(&ps, 1);
    for (int i = 0; i < 8; i++) ps_submit(&ps, ex, "sep");
    ps_wait_started(&ps);
    ps_expect(&ps, 3);
    assert_int_equal(group_set(ex, "sep", GROUPCONC_KEEP, 4, GROUPCONC_KEEP), GROUPCONC_OK);
    assert_int_equal(group_set(ex, "sep", 1, GROUPCONC_KEEP, GROUPCONC_KEEP), GROUPCONC_OK);
    ps_wait_started(&ps);
    s = tu_gstats(ex, "sep");
    assert_int_equal(s.running, 4); /* what the single call above did not let happen */
    assert_int_equal(s.concurrency, 1);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

typedef struct flip_obs {
    atomic_int seen_a, seen_b, mixed, errors;
} flip_obs;

static int flip_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)out_value;
    flip_obs *o = (flip_obs *)user_data;
    groupconc_group_stats s;
    if (groupconc_group_stats_get(groupconc_context_executor(ctx), groupconc_context_group(ctx), &s) !=
        GROUPCONC_OK) {
        atomic_fetch_add(&o->errors, 1);
        return 0;
    }
    if (s.concurrency == 4 && s.max_in_flight == 1) atomic_fetch_add(&o->seen_a, 1);
    else if (s.concurrency == 1 && s.max_in_flight == 4) atomic_fetch_add(&o->seen_b, 1);
    else atomic_fetch_add(&o->mixed, 1);
    tu_spin(2000);
    return 0;
}

static void test_group_change_observed_whole(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"flip", 4, 1, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = policy_with(table, 1);
    groupconc_executor *ex = tu_executor(&p);
    flip_obs o;
    memset(&o, 0, sizeof o);
    enum { N = 160 };
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        h[i] = tu_submit(ex, "flip", NULL, flip_fn, &o);
        if (i % 8 == 7) {
            bool b = (i / 8) % 2 == 0;
            assert_int_equal(group_set(ex, "flip", b ? 1 : 4, b ? 4 : 1, GROUPCONC_KEEP), GROUPCONC_OK);
        }
    }
    for (int i = 0; i < N; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    assert_int_equal(atomic_load(&o.errors), 0);
    assert_int_equal(atomic_load(&o.mixed), 0);
    assert_int_equal(atomic_load(&o.seen_a) + atomic_load(&o.seen_b), N);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 5. KEEP, DEFAULT, the resolver, keys without state, evict, executor defaults ----------------- */

typedef struct resolver_ctl {
    atomic_int calls;
    atomic_int value;
} resolver_ctl;

/* Keys starting with "fail" make it fail (the policy default is used). */
static int counting_resolver(const char *group, int *out_concurrency, void *user_data) {
    resolver_ctl *rc = (resolver_ctl *)user_data;
    atomic_fetch_add(&rc->calls, 1);
    if (strncmp(group, "fail", 4) == 0) return -1;
    *out_concurrency = atomic_load(&rc->value);
    return 0;
}

static void touch(groupconc_executor *ex, const char *group) {
    groupconc_task *t = tu_submit(ex, group, NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
}

static void assert_limits(groupconc_executor *ex, const char *group, int conc, int mif, int thr,
                          int64_t max_wait) {
    groupconc_group_stats s = tu_gstats(ex, group);
    assert_int_equal(s.concurrency, conc);
    assert_int_equal(s.max_in_flight, mif);
    assert_int_equal(s.queue_threshold, thr);
    assert_int_equal(s.max_wait_ns, max_wait);
}

static void test_keep_default_resolver(void **state) {
    (void)state;
    resolver_ctl rc;
    atomic_init(&rc.calls, 0);
    atomic_init(&rc.value, 3);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = counting_resolver;
    p.resolver_user_data = &rc;
    groupconc_executor *ex = tu_executor(&p);
    const int U = GROUPCONC_UNLIMITED;
    const int64_t F = GROUPCONC_FOREVER;

    touch(ex, "rg");
    assert_int_equal(atomic_load(&rc.calls), 1);
    assert_limits(ex, "rg", 3, U, U, F);

    /* every field KEEP: nothing changes, the resolver is not asked */
    groupconc_group_limits l = groupconc_group_limits_keep("rg");
    assert_int_equal(l.concurrency, GROUPCONC_KEEP);
    assert_int_equal(l.max_in_flight, GROUPCONC_KEEP);
    assert_int_equal(l.queue_threshold, GROUPCONC_KEEP);
    assert_int_equal(l.max_wait_ns, GROUPCONC_KEEP);
    assert_string_equal(l.group, "rg");
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_limits(ex, "rg", 3, U, U, F);

    /* one field at a time; the others are kept */
    l.concurrency = 5;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_limits(ex, "rg", 5, U, U, F);
    l = groupconc_group_limits_keep("rg");
    l.max_in_flight = 7;
    l.queue_threshold = 9;
    l.max_wait_ns = GROUPCONC_SEC(5);
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_limits(ex, "rg", 5, 7, 9, GROUPCONC_SEC(5));
    assert_int_equal(atomic_load(&rc.calls), 1);

    /* DEFAULT concurrency: the resolver is consulted again, now (and answers 4 now) */
    atomic_store(&rc.value, 4);
    l = groupconc_group_limits_keep("rg");
    l.concurrency = GROUPCONC_DEFAULT;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(atomic_load(&rc.calls), 2);
    assert_limits(ex, "rg", 4, 7, 9, GROUPCONC_SEC(5));
    /* DEFAULT for the others: the policy's defaults */
    l = groupconc_group_limits_keep("rg");
    l.max_in_flight = GROUPCONC_DEFAULT;
    l.queue_threshold = GROUPCONC_DEFAULT;
    l.max_wait_ns = GROUPCONC_DEFAULT;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_limits(ex, "rg", 4, U, U, F);
    assert_int_equal(atomic_load(&rc.calls), 2);

    /* a key with no state: recorded only; applied when the state is created (no resolver call:
       the concurrency is in the table) */
    l = groupconc_group_limits_keep("later");
    l.concurrency = 6;
    l.max_in_flight = 2;
    l.queue_threshold = 4;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    groupconc_group_stats s;
    assert_limits(ex, "later", 6, 2, 4, F); /* read back before any state (issue 23) */
    assert_int_equal(atomic_load(&rc.calls), 2);
    touch(ex, "later");
    assert_limits(ex, "later", 6, 2, 4, F);
    assert_int_equal(atomic_load(&rc.calls), 2);

    /* values survive an evict: the new state is created with them */
    l = groupconc_group_limits_keep("rg");
    l.concurrency = 8;
    l.max_in_flight = 3;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(groupconc_group_evict(ex, "rg"), GROUPCONC_OK);
    /* no state, limits recorded: read back; the concurrency is in the table (no resolver call) */
    assert_int_equal(groupconc_group_stats_get(ex, "rg", &s), GROUPCONC_OK);
    assert_int_equal(s.concurrency, 8);
    assert_int_equal(s.max_in_flight, 3);
    assert_int_equal(s.submitted, 0);
    touch(ex, "rg");
    assert_limits(ex, "rg", 8, 3, U, F);
    assert_int_equal(atomic_load(&rc.calls), 2);
    /* only max_in_flight recorded: the new state asks the resolver for its concurrency again */
    touch(ex, "ev");
    assert_int_equal(atomic_load(&rc.calls), 3);
    assert_int_equal(group_set(ex, "ev", GROUPCONC_KEEP, 2, GROUPCONC_KEEP), GROUPCONC_OK);
    assert_int_equal(groupconc_group_evict(ex, "ev"), GROUPCONC_OK);
    atomic_store(&rc.value, 6);
    touch(ex, "ev");
    assert_int_equal(atomic_load(&rc.calls), 4);
    assert_limits(ex, "ev", 6, 2, U, F);

    /* a failing resolver: the policy default */
    touch(ex, "fail-1");
    assert_int_equal(atomic_load(&rc.calls), 5);
    assert_limits(ex, "fail-1", 1, U, U, F);

    /* executor defaults: groups created afterwards only */
    groupconc_executor_limits xl = groupconc_executor_limits_keep();
    xl.default_concurrency = 2;
    xl.default_max_in_flight = 5;
    xl.default_queue_threshold = 6;
    assert_int_equal(groupconc_executor_limits_set(ex, &xl), GROUPCONC_OK);
    assert_limits(ex, "fail-1", 1, U, U, F); /* existing: unchanged */
    assert_limits(ex, "rg", 8, 3, U, F);
    touch(ex, "fail-2");
    assert_int_equal(atomic_load(&rc.calls), 6);
    assert_limits(ex, "fail-2", 2, 5, 6, F);
    touch(ex, "fresh"); /* the resolver still wins over the default concurrency */
    assert_limits(ex, "fresh", 6, 5, 6, F);
    /* DEFAULT on an existing group now re-resolves against the new defaults */
    assert_int_equal(group_set(ex, "fail-1", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT),
                     GROUPCONC_OK);
    assert_limits(ex, "fail-1", 2, 5, 6, F);
    /* default_max_wait_ns: reported for groups without their own (it applies to later tasks) */
    xl = groupconc_executor_limits_keep();
    xl.default_max_wait_ns = GROUPCONC_SEC(9);
    assert_int_equal(groupconc_executor_limits_set(ex, &xl), GROUPCONC_OK);
    assert_limits(ex, "fail-1", 2, 5, 6, GROUPCONC_SEC(9));
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 6. bad input ------------------------------------------------------------------------------- */

static void test_bad_input(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 3;
    groupconc_executor *ex = tu_executor(&p);
    touch(ex, "b");
    char long_key[GROUPCONC_MAX_KEY_LEN + 2];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';

    groupconc_group_limits l = groupconc_group_limits_keep("b");
    /* each bad field alone, and next to a good one: ELIMIT, nothing changed */
    struct {
        int conc, mif, thr;
        int64_t wait;
    } bad[] = {
        {0, GROUPCONC_KEEP, GROUPCONC_KEEP, GROUPCONC_KEEP},
        {-1, GROUPCONC_KEEP, GROUPCONC_KEEP, GROUPCONC_KEEP}, /* concurrency has no UNLIMITED */
        {GROUPCONC_KEEP, 0, GROUPCONC_KEEP, GROUPCONC_KEEP},
        {GROUPCONC_KEEP, -5, GROUPCONC_KEEP, GROUPCONC_KEEP},
        {GROUPCONC_KEEP, GROUPCONC_KEEP, -5, GROUPCONC_KEEP},
        {GROUPCONC_KEEP, GROUPCONC_KEEP, GROUPCONC_KEEP, -7},
        {7, 0, GROUPCONC_KEEP, GROUPCONC_KEEP},
        {7, 7, 7, -7},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l.concurrency = bad[i].conc;
        l.max_in_flight = bad[i].mif;
        l.queue_threshold = bad[i].thr;
        l.max_wait_ns = bad[i].wait;
        assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_ELIMIT);
        assert_limits(ex, "b", 3, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, GROUPCONC_FOREVER);
    }
    l = groupconc_group_limits_keep("b");
    assert_int_equal(groupconc_group_limits_set(NULL, &l), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_limits_set(ex, NULL), GROUPCONC_EINVAL);
    l.group = NULL;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_EINVAL);
    l.group = "";
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_EKEYEMPTY);
    l.group = long_key;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_EKEYTOOLONG);

    groupconc_executor_limits xl = groupconc_executor_limits_keep();
    assert_int_equal(xl.global_max_in_flight, GROUPCONC_KEEP);
    assert_int_equal(xl.default_max_wait_ns, GROUPCONC_KEEP);
    assert_int_equal(groupconc_executor_limits_set(NULL, &xl), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_limits_set(ex, NULL), GROUPCONC_EINVAL);
    groupconc_executor_limits xbad[9];
    for (int i = 0; i < 9; i++) xbad[i] = groupconc_executor_limits_keep();
    xbad[0].global_max_in_flight = 0;
    xbad[1].global_queue_threshold = -5;
    xbad[2].global_max_running = 0;
    xbad[3].max_waiting = GROUPCONC_DEFAULT; /* no DEFAULT at executor level */
    xbad[4].default_concurrency = 0;
    xbad[5].default_max_in_flight = 0;
    xbad[6].default_queue_threshold = -5;
    xbad[7].default_max_wait_ns = -7;
    xbad[8].default_max_wait_ns = 0;
    xbad[8].global_max_in_flight = 3; /* a good field next to a bad one: not applied either */
    for (int i = 0; i < 9; i++) {
        if (groupconc_executor_limits_set(ex, &xbad[i]) != GROUPCONC_ELIMIT) fail_msg("xbad[%d] accepted", i);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(xs.global_max_running, GROUPCONC_UNLIMITED);
    assert_int_equal(xs.max_waiting, GROUPCONC_UNLIMITED);

    assert_int_equal(groupconc_group_pause(NULL, "b"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_pause(ex, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_pause(ex, ""), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_group_pause(ex, long_key), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_group_resume(NULL, "b"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_resume(ex, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_resume(ex, ""), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_group_resume(ex, long_key), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_executor_pause(NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_resume(NULL), GROUPCONC_EINVAL);
    xs = tu_xstats(ex);
    assert_false(xs.paused);
    assert_int_equal(xs.paused_groups, 0);
    assert_int_equal(xs.groups, 1);

    /* after shutdown */
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    l = groupconc_group_limits_keep("b");
    l.concurrency = 2;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_ESHUTDOWN);
    l.group = "new-after-shutdown";
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_ESHUTDOWN);
    xl = groupconc_executor_limits_keep();
    xl.global_max_in_flight = 2;
    assert_int_equal(groupconc_executor_limits_set(ex, &xl), GROUPCONC_ESHUTDOWN);
    assert_int_equal(groupconc_group_pause(ex, "b"), GROUPCONC_ESHUTDOWN);
    /* the executor-wide pause creates nothing: allowed after shutdown (nothing left to start) */
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    /* argument checks come first */
    l.concurrency = 0;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_ELIMIT);
    assert_int_equal(groupconc_group_pause(ex, ""), GROUPCONC_EKEYEMPTY);
    /* resume is not refused (it lists no ESHUTDOWN): a no-op */
    assert_int_equal(groupconc_group_resume(ex, "b"), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    assert_limits(ex, "b", 3, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, GROUPCONC_FOREVER);
    xs = tu_xstats(ex);
    assert_false(xs.paused);
    assert_int_equal(xs.paused_groups, 0);
    assert_int_equal(xs.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 7. pausing a group ------------------------------------------------------------------------- */

static void test_group_pause_and_resume(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);

    parkset ps;
    ps_init(&ps, 2);
    for (int i = 0; i < 5; i++) ps_submit(&ps, ex, "pg"); /* 0, 1 run; 2, 3, 4 wait */
    ps_wait_started(&ps);
    assert_int_equal(groupconc_group_pause(ex, "pg"), GROUPCONC_OK);
    assert_int_equal(groupconc_group_pause(ex, "pg"), GROUPCONC_OK); /* idempotent */
    groupconc_group_stats s = tu_gstats(ex, "pg");
    assert_true(s.paused);
    assert_int_equal(s.running, 2); /* running tasks run on */
    assert_int_equal(s.waiting_concurrency, 3);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_false(xs.paused);
    assert_int_equal(xs.paused_groups, 1);

    /* one finishes: its permit is not handed on */
    ps_finish(&ps, 0);
    s = tu_gstats(ex, "pg");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.ready, 0);
    assert_int_equal(s.waiting_concurrency, 3);
    ps_assert_started_range(&ps, 0, 2);

    /* another group is not affected: its tasks start and complete */
    parkset other;
    ps_init(&other, 2);
    ps_submit(&other, ex, "og");
    ps_submit(&other, ex, "og");
    ps_wait_started(&other);
    atomic_int count;
    atomic_init(&count, 0);
    groupconc_task *h[20];
    for (int i = 0; i < 20; i++) h[i] = tu_submit(ex, "og2", NULL, tu_count_fn, &count);
    for (int i = 0; i < 20; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
    }
    assert_int_equal(atomic_load(&count), 20);
    ps_finish_all(&other);

    /* submits are still admitted to the paused group's queue, even with a free permit */
    ps_submit(&ps, ex, "pg"); /* 5 */
    s = tu_gstats(ex, "pg");
    assert_int_equal(s.waiting_concurrency, 4);
    assert_int_equal(s.running, 1);
    /* its queue threshold applies */
    assert_int_equal(group_set(ex, "pg", GROUPCONC_KEEP, GROUPCONC_KEEP, 4), GROUPCONC_OK);
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, "pg", NULL, tu_count_fn, &count, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    assert_null(t);
    /* raising its concurrency while paused starts nothing either */
    set_conc(ex, "pg", 3);
    s = tu_gstats(ex, "pg");
    assert_int_equal(s.concurrency, 3);
    assert_int_equal(s.running + s.ready, 1);
    assert_int_equal(s.waiting_concurrency, 4);
    ps_assert_started_range(&ps, 0, 2);

    /* resume: the two free permits go to the two oldest (2, 3) */
    ps_expect(&ps, 2);
    assert_int_equal(groupconc_group_resume(ex, "pg"), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 4);
    s = tu_gstats(ex, "pg");
    assert_false(s.paused);
    assert_int_equal(s.running, 3);
    assert_int_equal(s.waiting_concurrency, 2);
    assert_int_equal(tu_xstats(ex).paused_groups, 0);
    assert_int_equal(groupconc_group_resume(ex, "pg"), GROUPCONC_OK); /* idempotent */
    /* then FIFO */
    ps_expect(&ps, 1);
    ps_finish(&ps, 1);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 5);
    ps_expect(&ps, 1);
    ps_finish(&ps, 2);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 0, 6);
    assert_true(ps_seq(&ps, 4) < ps_seq(&ps, 5));
    ps_finish_all(&ps);
    assert_int_equal(atomic_load(&count), 20);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_group_pause_then_shutdown(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    for (int i = 0; i < 4; i++) ps_submit(&ps, ex, "sg");
    ps_wait_started(&ps);
    assert_int_equal(groupconc_group_pause(ex, "sg"), GROUPCONC_OK);
    assert_int_equal(groupconc_group_shutdown(ex, "sg"), GROUPCONC_OK);
    /* the waiters are cancelled (done when shutdown returns), the running one is flagged */
    for (int i = 1; i < 4; i++) {
        bool done = false;
        assert_int_equal(groupconc_task_is_done(ps.h[i], &done), GROUPCONC_OK);
        assert_true(done);
        groupconc_result r = tu_wait(ps.h[i]);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
        ps.want[i] = GROUPCONC_STATUS_CANCELLED;
    }
    groupconc_group_stats s = tu_gstats(ex, "sg");
    assert_int_equal(s.cancelled, 3);
    assert_int_equal(s.waiting_concurrency, 0);
    assert_int_equal(s.running, 1);
    ps_finish_all(&ps);
    assert_true(atomic_load(&ps.t[0].park.saw_cancel));
    for (int i = 1; i < 4; i++) assert_int_equal(atomic_load(&ps.t[i].park.ran), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_pause_unused_key_and_gate(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_group_stats s;

    /* resume of a key never used: a no-op that creates nothing */
    assert_int_equal(groupconc_group_resume(ex, "never"), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "never", &s), GROUPCONC_ENOTFOUND);
    /* pause of one: its state is created, paused */
    assert_int_equal(groupconc_group_pause(ex, "ghost"), GROUPCONC_OK);
    s = tu_gstats(ex, "ghost");
    assert_true(s.paused);
    assert_int_equal(s.concurrency, 2);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 1);
    assert_int_equal(xs.paused_groups, 1);

#ifndef GROUPCONC_NO_GATE
    /* an executor gate refuses the paused group, admits another */
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.executor = ex;
    groupconc_gate *gate = NULL;
    assert_int_equal(groupconc_gate_create(&c, &gate), GROUPCONC_OK);
    groupconc_permit pm;
    assert_int_equal(groupconc_gate_try_acquire(gate, "ghost", &pm), GROUPCONC_EPAUSED);
    assert_null(pm.gate);
    assert_int_equal(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_gate_try_acquire(gate, "awake", &pm), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
#endif

    /* a task submitted to it waits */
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "ghost");
    s = tu_gstats(ex, "ghost");
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.running + s.ready, 0);
    assert_int_equal(ps_ran(&ps, 0), 0);

    /* the executor's pause refuses gates too, for every group */
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_gate_try_acquire(gate, "awake", &pm), GROUPCONC_EPAUSED);
#endif
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    assert_int_equal(ps_ran(&ps, 0), 0); /* still paused by its group */
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_gate_try_acquire(gate, "ghost", &pm), GROUPCONC_EPAUSED);
#endif

    /* resumed: the task starts, and the gate admits (one permit left of 2) */
    assert_int_equal(groupconc_group_resume(ex, "ghost"), GROUPCONC_OK);
    ps_wait_started(&ps);
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_gate_try_acquire(gate, "ghost", &pm), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "ghost").running, 2);
    assert_int_equal(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
#endif
    ps_finish_all(&ps);
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_gate_destroy(gate), GROUPCONC_OK);
#endif
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A task that already holds every permit (ready: waiting only for a worker thread) is not stopped
   by a pause. Set up deterministically with one worker: it runs a parked task of another group, so
   the paused group's task sits in the ready queue with all its permits. */
static void test_pause_does_not_stop_ready_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "busy");
    ps_wait_started(&ps);
    ps_submit(&ps, ex, "rdy");
    groupconc_group_stats s = tu_gstats(ex, "rdy");
    assert_int_equal(s.ready, 1);
    assert_int_equal(s.running, 0);
    assert_int_equal(tu_xstats(ex).threads, 1);
    assert_int_equal(groupconc_group_pause(ex, "rdy"), GROUPCONC_OK);
    s = tu_gstats(ex, "rdy");
    assert_true(s.paused);
    assert_int_equal(s.ready, 1);
    /* the worker comes free: the ready task starts although its group is paused */
    ps_expect(&ps, 1);
    tu_park_release(&ps.t[0].park);
    ps_wait_started(&ps);
    s = tu_gstats(ex, "rdy");
    assert_int_equal(s.running, 1);
    assert_true(s.paused);
    /* but nothing after it */
    ps_submit(&ps, ex, "rdy");
    assert_int_equal(tu_gstats(ex, "rdy").waiting_concurrency, 1);
    ps_finish(&ps, 1);
    s = tu_gstats(ex, "rdy");
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.running + s.ready, 0);
    assert_int_equal(ps_ran(&ps, 2), 0);
    ps_expect(&ps, 1);
    assert_int_equal(groupconc_group_resume(ex, "rdy"), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* Evicting a paused group drops its state, the pause included (as its counters; unlike the limits
   recorded by groupconc_group_limits_set, a pause is not kept in the per-group table): its waiters
   are cancelled and the key's next state is created running. The executor's paused_groups must then
   count no group: no group with cached state is paused. */
static void test_evict_paused_group(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 0);
    assert_int_equal(groupconc_group_pause(ex, "ep"), GROUPCONC_OK);
    ps_submit(&ps, ex, "ep"); /* 0: waits, paused */
    assert_int_equal(tu_xstats(ex).paused_groups, 1);
    assert_int_equal(groupconc_group_evict(ex, "ep"), GROUPCONC_OK);
    groupconc_result r = tu_wait(ps.h[0]);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    ps.want[0] = GROUPCONC_STATUS_CANCELLED;
    groupconc_group_stats s;
    assert_int_equal(groupconc_group_stats_get(ex, "ep", &s), GROUPCONC_ENOTFOUND);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 0);
    size_t paused_after_evict = xs.paused_groups;

    ps_expect(&ps, 1);
    ps_submit(&ps, ex, "ep"); /* 1: the new state is not paused */
    ps_wait_started(&ps);
    assert_false(tu_gstats(ex, "ep").paused);
    size_t paused_after_new = tu_xstats(ex).paused_groups;
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    if (paused_after_evict != 0 || paused_after_new != 0)
        fail_msg("executor_stats.paused_groups counts an evicted paused group: %zu after the evict, %zu "
                 "with the key's new (running) state; no cached group is paused",
                 paused_after_evict, paused_after_new);
}

/* ---- 8. pausing the executor -------------------------------------------------------------------- */

static void test_executor_pause_and_resume(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "ea"); /* 0: runs */
    ps_wait_started(&ps);
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK); /* idempotent */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_true(xs.paused);
    assert_int_equal(xs.paused_groups, 0);
    assert_false(tu_gstats(ex, "ea").paused); /* the group's own flag */

    ps_submit(&ps, ex, "ea"); /* 1 */
    ps_submit(&ps, ex, "eb"); /* 2: its group has a free permit, still waits */
    ps_submit(&ps, ex, "eb"); /* 3 */
    ps_submit(&ps, ex, "ec"); /* 4 */
    xs = tu_xstats(ex);
    assert_int_equal(xs.running, 1);
    assert_int_equal(xs.waiting, 4);
    ps_finish(&ps, 0); /* the running one completes; its permit goes to nobody */
    xs = tu_xstats(ex);
    assert_int_equal(xs.running + xs.ready, 0);
    assert_int_equal(xs.waiting, 4);
    ps_assert_started_range(&ps, 0, 1);

    /* resume: one per group (concurrency 1), the oldest of each */
    ps_expect(&ps, 3);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 1) + ps_ran(&ps, 2) + ps_ran(&ps, 4), 3);
    assert_int_equal(ps_ran(&ps, 3), 0);
    xs = tu_xstats(ex);
    assert_false(xs.paused);
    assert_int_equal(xs.running, 3);
    assert_int_equal(xs.waiting, 1);
    ps_expect(&ps, 1);
    ps_finish(&ps, 2);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 3), 1);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_executor_resume_keeps_group_pause(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    assert_int_equal(groupconc_group_pause(ex, "gc"), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    parkset ps;
    ps_init(&ps, 0);
    ps_submit(&ps, ex, "gc"); /* 0 */
    ps_submit(&ps, ex, "gd"); /* 1 */
    assert_int_equal(tu_xstats(ex).waiting, 2);

    /* the group's resume while the executor is paused: still nothing starts */
    assert_int_equal(groupconc_group_resume(ex, "gc"), GROUPCONC_OK);
    assert_false(tu_gstats(ex, "gc").paused);
    assert_int_equal(tu_xstats(ex).waiting, 2);
    assert_int_equal(groupconc_group_pause(ex, "gc"), GROUPCONC_OK);

    /* the executor's resume: gd starts, gc stays paused */
    ps_expect(&ps, 1);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_assert_started_range(&ps, 1, 2);
    groupconc_group_stats s = tu_gstats(ex, "gc");
    assert_true(s.paused);
    assert_int_equal(s.waiting_concurrency, 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_false(xs.paused);
    assert_int_equal(xs.paused_groups, 1);
    ps_finish(&ps, 1);
    assert_int_equal(ps_ran(&ps, 0), 0);

    ps_expect(&ps, 1);
    assert_int_equal(groupconc_group_resume(ex, "gc"), GROUPCONC_OK);
    ps_wait_started(&ps);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* The global running cap is one FIFO for all groups. A paused group's tasks waiting there keep
   their places but do not hold back the tasks of other groups behind them. */
static void test_run_cap_passes_over_paused(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    p.global_max_running = 2;
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 2);
    ps_submit(&ps, ex, "x"); /* 0 */
    ps_submit(&ps, ex, "x"); /* 1 */
    ps_wait_started(&ps);
    ps_submit(&ps, ex, "pz"); /* 2: holds pz's concurrency permit, waits for a running permit */
    ps_submit(&ps, ex, "pz"); /* 3 */
    ps_submit(&ps, ex, "o");  /* 4: behind them */
    assert_int_equal(tu_xstats(ex).waiting_running, 3);
    assert_int_equal(tu_gstats(ex, "pz").waiting_running, 2);
    assert_int_equal(groupconc_group_pause(ex, "pz"), GROUPCONC_OK);

    /* a permit comes free: it goes past the paused pair to "o" */
    ps_expect(&ps, 1);
    ps_finish(&ps, 0);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 0) + ps_ran(&ps, 1) + ps_ran(&ps, 4), 3);
    assert_int_equal(ps_ran(&ps, 2) + ps_ran(&ps, 3), 0);
    groupconc_group_stats s = tu_gstats(ex, "pz");
    assert_int_equal(s.waiting_running, 2); /* kept */
    ps_submit(&ps, ex, "o"); /* 5: waits behind the paused ones */
    assert_int_equal(tu_xstats(ex).waiting_running, 3);
    ps_expect(&ps, 1);
    ps_finish(&ps, 1);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 5), 1);
    assert_int_equal(ps_ran(&ps, 2) + ps_ran(&ps, 3), 0);

    /* a permit freed with only paused waiters stays free; a newcomer takes it at once */
    ps_finish(&ps, 4);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 2);
    ps_expect(&ps, 1);
    ps_submit(&ps, ex, "o2"); /* 6 */
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 6), 1);
    assert_int_equal(tu_xstats(ex).global_running, 2);

    /* resume with no permit free: nothing starts; then the paused pair goes first, in order */
    assert_int_equal(groupconc_group_resume(ex, "pz"), GROUPCONC_OK);
    ps_submit(&ps, ex, "o3"); /* 7: behind the pair */
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(xs.waiting_running, 3);
    ps_expect(&ps, 1);
    ps_finish(&ps, 5);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 2), 1);
    assert_int_equal(ps_ran(&ps, 3) + ps_ran(&ps, 7), 0);
    ps_expect(&ps, 1);
    ps_finish(&ps, 6);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 3), 1);
    assert_int_equal(ps_ran(&ps, 7), 0);
    ps_expect(&ps, 1);
    ps_finish(&ps, 2);
    ps_wait_started(&ps);
    assert_int_equal(ps_ran(&ps, 7), 1);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* FIFO at the global running layer when a resume opens a group whose tasks wait at two layers.
   Group "pf" (concurrency 2) with a running cap of 1: task 1 holds pf's concurrency permit and
   waits for a running permit from before the pause; task 2, submitted while paused, waits at the
   concurrency layer. Then the running permit comes free while pf is paused (it stays free: its
   only waiter is paused). On resume the oldest waiter, task 1, must get the free running permit;
   task 2 gets the concurrency permit and queues for a running permit behind it. */
static void test_group_resume_fifo_with_run_cap(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "hold"); /* 0: holds the running permit */
    ps_wait_started(&ps);
    ps_submit(&ps, ex, "pf"); /* 1: global running */
    assert_int_equal(groupconc_group_pause(ex, "pf"), GROUPCONC_OK);
    ps_submit(&ps, ex, "pf"); /* 2: concurrency (paused) */
    groupconc_group_stats s = tu_gstats(ex, "pf");
    assert_int_equal(s.waiting_running, 1);
    assert_int_equal(s.waiting_concurrency, 1);
    ps_finish(&ps, 0);
    assert_int_equal(tu_xstats(ex).global_running, 0);

    ps_expect(&ps, 1);
    assert_int_equal(groupconc_group_resume(ex, "pf"), GROUPCONC_OK);
    ps_wait_started(&ps);
    s = tu_gstats(ex, "pf");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_running, 1);
    int ran1 = ps_ran(&ps, 1), ran2 = ps_ran(&ps, 2);
    ps_finish_all(&ps); /* clean up first: the verdict below must not leave parked tasks behind */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    if (ran2) fail_msg("resume: task 2 (waiting at the concurrency layer) started before task 1, the "
                       "older waiter for a running permit (ran: 1=%d 2=%d)", ran1, ran2);
    assert_int_equal(ran1, 1);
}

/* The same for the executor's resume: "a" waits for a running permit from before the pause; "b",
   submitted during the pause, waits at its group's concurrency layer; the running permit comes
   free during the pause. */
static void test_executor_resume_fifo_with_run_cap(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "hold"); /* 0 */
    ps_wait_started(&ps);
    ps_submit(&ps, ex, "a"); /* 1: global running */
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    ps_submit(&ps, ex, "b"); /* 2: concurrency (paused) */
    ps_finish(&ps, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(xs.waiting, 2);

    ps_expect(&ps, 1);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    ps_wait_started(&ps);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 1);
    int ran_a = ps_ran(&ps, 1), ran_b = ps_ran(&ps, 2);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    if (ran_b) fail_msg("executor resume: \"b\" (concurrency) started before \"a\", the older waiter "
                        "for a running permit (ran: a=%d b=%d)", ran_a, ran_b);
    assert_int_equal(ran_a, 1);
}

/* Raising the global in-flight cap and the running cap in one call: the task that waited for a
   running permit is older than the one let past the global in-flight cap by the raise, so it gets
   the new running permit. */
static void test_raise_global_caps_together_fifo(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 2;
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    parkset ps;
    ps_init(&ps, 1);
    ps_submit(&ps, ex, "k0"); /* 0: runs */
    ps_wait_started(&ps);
    ps_submit(&ps, ex, "k1"); /* 1: past global in-flight, waits for a running permit */
    ps_submit(&ps, ex, "k2"); /* 2: waits for a global in-flight permit */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(tu_gstats(ex, "k2").waiting_global, 1);

    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_in_flight = 3;
    l.global_max_running = 2;
    ps_expect(&ps, 1);
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_OK);
    ps_wait_started(&ps);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(xs.waiting_running, 1);
    int ran1 = ps_ran(&ps, 1), ran2 = ps_ran(&ps, 2);
    ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    if (ran2) fail_msg("k2 (just past global in-flight) took the raised running permit ahead of k1, "
                       "the older waiter for one (ran: k1=%d k2=%d)", ran1, ran2);
    assert_int_equal(ran1, 1);
}


/* A graceful shutdown cannot wait for a paused group's tasks (they never start): once nothing else
   is left it cancels them and returns GROUPCONC_ETIMEDOUT, also with no timeout; and destroy after
   a graceful shutdown begun from inside a task does not hang on them either. */
static void test_graceful_shutdown_with_paused_group(void **state) {
    (void)state;
    for (int round = 0; round < 2; round++) {
        groupconc_policy p = groupconc_policy_default();
        groupconc_executor *ex;
        assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
        tu_latch started;
        tu_latch_init(&started, 1);
        tu_park park;
        tu_park_init(&park, &started, NULL);
        groupconc_task *parked, *frozen;
        assert_int_equal(groupconc_group_pause(ex, "frozen"), GROUPCONC_OK);
        assert_int_equal(groupconc_submit(ex, "frozen", "f", tu_park_fn, &park, &frozen), GROUPCONC_OK);
        assert_int_equal(groupconc_submit(ex, "busy", "b", tu_park_fn, &park, &parked), GROUPCONC_OK);
        assert_true(tu_latch_wait(&started));
        if (round == 1) groupconc_executor_pause(ex); /* the executor's pause as well */
        tu_park_release(&park); /* "busy" finishes; only the paused task is left */
        int64_t t0 = tu_now_ns();
        assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_ETIMEDOUT);
        assert_true(tu_now_ns() - t0 < 10 * TU_SEC);
        groupconc_result r;
        assert_int_equal(groupconc_task_wait(frozen, &r), GROUPCONC_OK);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(groupconc_task_wait(parked, &r), GROUPCONC_OK);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(frozen);
        groupconc_task_release(parked);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
        tu_latch_destroy(&started);
    }
}

static int graceful_from_inside(groupconc_context *ctx, void **out_value, void *arg) {
    (void)out_value;
    (void)arg;
    return groupconc_executor_shutdown_graceful(groupconc_context_executor(ctx), GROUPCONC_FOREVER) ==
                   GROUPCONC_EDEADLK
               ? 0
               : 1;
}

static void test_destroy_after_graceful_with_paused_group(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    groupconc_task *frozen, *stopper;
    assert_int_equal(groupconc_group_pause(ex, "frozen"), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "frozen", NULL, graceful_from_inside, NULL, &frozen), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "q", NULL, graceful_from_inside, NULL, &stopper), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait(stopper, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS); /* it got EDEADLK: the shutdown began */
    int64_t t0 = tu_now_ns();
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* does not hang */
    assert_true(tu_now_ns() - t0 < 10 * TU_SEC);
    assert_int_equal(groupconc_task_wait(frozen, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    groupconc_task_release(frozen);
    groupconc_task_release(stopper);
}


/* The resolver runs under the executor's locks: a call into the same executor from there returns
   GROUPCONC_EDEADLK instead of waiting for itself (it used to hang). */
static groupconc_executor *resolver_ex;
static atomic_int resolver_stats_rc, resolver_submit_rc, resolver_pause_rc;
static int calling_resolver(const char *group, int *out_concurrency, void *user_data) {
    groupconc_executor_stats es;
    groupconc_group_stats gs;
    (void)user_data;
    atomic_store(&resolver_stats_rc, groupconc_executor_stats_get(resolver_ex, &es));
    if (groupconc_group_stats_get(resolver_ex, group, &gs) != GROUPCONC_EDEADLK)
        atomic_store(&resolver_stats_rc, 1);
    atomic_store(&resolver_submit_rc, groupconc_submit(resolver_ex, "other", NULL, tu_noop_fn, NULL, NULL));
    atomic_store(&resolver_pause_rc, groupconc_group_pause(resolver_ex, "other"));
    *out_concurrency = 2;
    return 0;
}

static void test_resolver_calls_refused(void **state) {
    (void)state;
    for (int thresholds = 0; thresholds < 2; thresholds++) { /* inbox path, locked path */
        groupconc_policy p = groupconc_policy_default();
        p.resolver = calling_resolver;
        if (thresholds) p.default_queue_threshold = 100;
        assert_int_equal(groupconc_executor_create(&p, &resolver_ex), GROUPCONC_OK);
        groupconc_task *t;
        groupconc_result r;
        assert_int_equal(groupconc_submit(resolver_ex, "k", NULL, tu_noop_fn, NULL, &t), GROUPCONC_OK);
        assert_int_equal(groupconc_task_wait(t, &r), GROUPCONC_OK);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t);
        assert_int_equal(atomic_load(&resolver_stats_rc), GROUPCONC_EDEADLK);
        assert_int_equal(atomic_load(&resolver_submit_rc), GROUPCONC_EDEADLK);
        assert_int_equal(atomic_load(&resolver_pause_rc), GROUPCONC_EDEADLK);
        groupconc_group_stats gs;
        assert_int_equal(groupconc_group_stats_get(resolver_ex, "k", &gs), GROUPCONC_OK);
        assert_int_equal(gs.concurrency, 2);
        assert_int_equal(groupconc_executor_destroy(resolver_ex), GROUPCONC_OK);
    }
}

/* Issue 23 item 12: group_stats_get of a key with limits set but no state (never used, or evicted)
   answers OK with the limits its state will start with and every count 0 (it answered ENOTFOUND,
   so the configured limits could not be read back); the resolver is not called (concurrency
   GROUPCONC_DEFAULT where it will decide); a key with no limits and no state is still ENOTFOUND. */
static void expect_no_state_stats(groupconc_executor *ex, const char *key, int conc, int mif, int thr, int64_t max_wait) {
    groupconc_group_stats s;
    memset(&s, 0xA5, sizeof s);
    assert_int_equal(groupconc_group_stats_get(ex, key, &s), GROUPCONC_OK);
    assert_int_equal(s.concurrency, conc);
    assert_int_equal(s.max_in_flight, mif);
    assert_int_equal(s.queue_threshold, thr);
    assert_int_equal(s.max_wait_ns, max_wait);
    assert_false(s.paused);
    assert_int_equal(s.running + s.ready + s.waiting_global + s.waiting_bulkhead + s.waiting_concurrency + s.in_flight +
                         s.gate_permits + s.waiting_running + s.waiting_fleet,
                     0);
    assert_int_equal(s.submitted + s.admitted + s.completed + s.succeeded + s.failed + s.cancelled + s.rejected_global +
                         s.rejected_bulkhead + s.rejected_concurrency + s.rejected_waiting + s.expired + s.rejected_fleet +
                         s.oldest_wait_ns,
                     0);
}

static void test_stats_of_limits_without_state(void **state) {
    (void)state;
    const int U = GROUPCONC_UNLIMITED;
    groupconc_group_limits table[] = {{"static", 4, GROUPCONC_DEFAULT, 7, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    p.default_max_in_flight = 9;
    p.default_max_wait_ns = GROUPCONC_SEC(60);
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_group_stats s;
    assert_int_equal(groupconc_group_stats_get(ex, "nothing", &s), GROUPCONC_ENOTFOUND);
    /* the policy's table: its values, the defaults for the rest */
    expect_no_state_stats(ex, "static", 4, 9, 7, GROUPCONC_SEC(60));
    /* set live, never used */
    groupconc_group_limits l = groupconc_group_limits_keep("live");
    l.max_in_flight = 3;
    l.queue_threshold = U;
    l.max_wait_ns = GROUPCONC_MS(250);
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    expect_no_state_stats(ex, "live", 2, 3, U, GROUPCONC_MS(250));
    /* its state, once made, starts with exactly these */
    touch(ex, "live");
    s = tu_gstats(ex, "live");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.max_in_flight, 3);
    assert_int_equal(s.queue_threshold, U);
    assert_int_equal(s.max_wait_ns, GROUPCONC_MS(250));
    assert_int_equal(s.submitted, 1);
    /* evicted: back to the recorded limits, counts 0 */
    assert_int_equal(groupconc_group_evict(ex, "live"), GROUPCONC_OK);
    expect_no_state_stats(ex, "live", 2, 3, U, GROUPCONC_MS(250));
    /* every field back to DEFAULT: the entry leaves the table, the key is unknown again */
    l = groupconc_group_limits_keep("live");
    l.concurrency = l.max_in_flight = l.queue_threshold = GROUPCONC_DEFAULT;
    l.max_wait_ns = GROUPCONC_DEFAULT;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "live", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    /* with a resolver: a recorded concurrency is read back; one left to the resolver reads
       GROUPCONC_DEFAULT, and the resolver is not called by the stats */
    resolver_ctl rc;
    atomic_init(&rc.calls, 0);
    atomic_init(&rc.value, 5);
    p = groupconc_policy_default();
    p.resolver = counting_resolver;
    p.resolver_user_data = &rc;
    ex = tu_executor(&p);
    l = groupconc_group_limits_keep("rset");
    l.concurrency = 6;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    l = groupconc_group_limits_keep("rres");
    l.max_in_flight = 2;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    expect_no_state_stats(ex, "rset", 6, U, U, GROUPCONC_FOREVER);
    expect_no_state_stats(ex, "rres", GROUPCONC_DEFAULT, 2, U, GROUPCONC_FOREVER);
    assert_int_equal(atomic_load(&rc.calls), 0);
    touch(ex, "rres");
    assert_int_equal(atomic_load(&rc.calls), 1);
    assert_int_equal(tu_gstats(ex, "rres").concurrency, 5);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise_concurrency_starts_oldest),
        cmocka_unit_test(test_lower_concurrency_drains_then_holds),
        cmocka_unit_test(test_live_max_in_flight),
        cmocka_unit_test(test_live_global_in_flight),
        cmocka_unit_test(test_live_global_running),
        cmocka_unit_test(test_live_thresholds_from_inbox),
        cmocka_unit_test(test_group_change_is_one_step),
        cmocka_unit_test(test_group_change_observed_whole),
        cmocka_unit_test(test_keep_default_resolver),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_group_pause_and_resume),
        cmocka_unit_test(test_group_pause_then_shutdown),
        cmocka_unit_test(test_pause_unused_key_and_gate),
        cmocka_unit_test(test_pause_does_not_stop_ready_task),
        cmocka_unit_test(test_evict_paused_group),
        cmocka_unit_test(test_executor_pause_and_resume),
        cmocka_unit_test(test_executor_resume_keeps_group_pause),
        cmocka_unit_test(test_run_cap_passes_over_paused),
        cmocka_unit_test(test_group_resume_fifo_with_run_cap),
        cmocka_unit_test(test_executor_resume_fifo_with_run_cap),
        cmocka_unit_test(test_raise_global_caps_together_fifo),
        cmocka_unit_test(test_graceful_shutdown_with_paused_group),
        cmocka_unit_test(test_destroy_after_graceful_with_paused_group),
        cmocka_unit_test(test_resolver_calls_refused),
        cmocka_unit_test(test_stats_of_limits_without_state),
    };
    return TU_RUN_TESTS(tests);
}
