/* test_layers.c - the three admission layers: global in-flight cap, group bulkhead, group
   concurrency; queue thresholds; rejection policies (ABORT, DISCARD, CALLER_RUNS, custom
   handler); permits released before rejection handling; FIFO hand-off at each layer; no permit
   leaked after many rounds. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

/* The three admission layers the tests below step through, in the order a task meets them. */
enum { AT_GLOBAL = 1, AT_BULKHEAD, AT_CONCURRENCY };
static const char *const at_name[] = {"", "global in-flight", "bulkhead", "concurrency"};

/* Parked tasks: tu_parkset (testutil.h). */

static groupconc_policy policy_with(groupconc_group_limits *table, size_t n) {
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = n;
    return p;
}

/* Running counters checked from inside tasks. */
typedef struct probe {
    tu_peak *global;
    tu_peak *group;
    int global_cap, group_cap;
    atomic_int *over;
} probe;

static int probe_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    probe *p = (probe *)user_data;
    if (tu_peak_enter(p->global) > p->global_cap) atomic_fetch_add(p->over, 1);
    if (tu_peak_enter(p->group) > p->group_cap) atomic_fetch_add(p->over, 1);
    tu_sleep_ns(20000);
    tu_peak_leave(p->group);
    tu_peak_leave(p->global);
    return 0;
}

/* ---- global in-flight cap ----------------------------------------------------------------------- */

static void test_global_cap_never_exceeded(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 3;
    p.default_concurrency = 4;
    p.max_threads = 16;
    groupconc_executor *ex = tu_executor(&p);

    /* latched: 4 tasks in 4 groups, only 3 pass the global cap */
    tu_parkset ps;
    tu_ps_init(&ps, 3);
    const char *keys[4] = {"g0", "g1", "g2", "g3"};
    for (int i = 0; i < 4; i++) tu_ps_submit(&ps, ex, keys[i]);
    assert_true(tu_latch_wait(&ps.started));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 3);
    assert_int_equal(xs.global_max_in_flight, 3);
    assert_int_equal(xs.running, 3);
    assert_int_equal(xs.waiting, 1);
    assert_int_equal(tu_gstats(ex, "g3").waiting_global, 1);
    assert_int_equal(atomic_load(&ps.p[3].ran), 0);
    tu_ps_finish_all(&ps);

    /* load: 10 groups of concurrency 4 together never run more than 3 */
    enum { G = 10, PER = 60 };
    tu_peak global;
    tu_peak_init(&global);
    tu_peak groups[G];
    probe pr[G];
    atomic_int over;
    atomic_init(&over, 0);
    for (int g = 0; g < G; g++) {
        tu_peak_init(&groups[g]);
        pr[g] = (probe){&global, &groups[g], 3, 4, &over};
    }
    groupconc_task *h[G * PER];
    for (int i = 0; i < G * PER; i++) {
        char key[8];
        snprintf(key, sizeof key, "L%d", i % G);
        h[i] = tu_submit(ex, key, NULL, probe_fn, &pr[i % G]);
        if (i % 40 == 0) assert_true(tu_xstats(ex).global_in_flight <= 3);
    }
    for (int i = 0; i < G * PER; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(atomic_load(&over), 0);
    assert_true(tu_peak_max(&global) <= 3);
    assert_true(tu_peak_max(&global) >= 1);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- bulkhead ----------------------------------------------------------------------------------- */

static void test_bulkhead_caps_in_flight(void **state) {
    (void)state;
    groupconc_group_limits table[] = {
        {"wide", 4, 2, GROUPCONC_DEFAULT, 0},   /* bulkhead below concurrency: caps running at 2 */
        {"narrow", 1, 3, GROUPCONC_DEFAULT, 0}, /* 1 running + 2 waiting at concurrency, rest at the bulkhead */
    };
    groupconc_policy p = policy_with(table, 2);
    groupconc_executor *ex = tu_executor(&p);

    tu_parkset ps;
    tu_ps_init(&ps, 2);
    for (int i = 0; i < 5; i++) tu_ps_submit(&ps, ex, "wide");
    assert_true(tu_latch_wait(&ps.started));
    groupconc_group_stats s = tu_gstats(ex, "wide");
    assert_int_equal(s.running, 2);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.waiting_bulkhead, 3);
    assert_int_equal(s.waiting_concurrency, 0);
    for (int i = 2; i < 5; i++) assert_int_equal(atomic_load(&ps.p[i].ran), 0);
    tu_ps_finish_all(&ps);

    tu_ps_init(&ps, 1);
    for (int i = 0; i < 6; i++) tu_ps_submit(&ps, ex, "narrow");
    assert_true(tu_latch_wait(&ps.started));
    s = tu_gstats(ex, "narrow");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_concurrency, 2);
    assert_int_equal(s.waiting_bulkhead, 3);
    assert_int_equal(s.in_flight, 3);
    /* drain one at a time: in-flight stays at the cap while anyone waits at the bulkhead */
    for (int i = 0; i < 5; i++) {
        tu_ps_expect(&ps, 1);
        tu_ps_finish(&ps, i);
        assert_true(tu_latch_wait(&ps.started)); /* the next one is running */
        s = tu_gstats(ex, "narrow");
        int left = 5 - i; /* tasks not finished: i+1 .. 5 */
        assert_int_equal(s.running, 1);
        assert_int_equal(s.in_flight, (size_t)(left < 3 ? left : 3));
        assert_int_equal(s.waiting_concurrency, (size_t)((left < 3 ? left : 3) - 1));
        assert_int_equal(s.waiting_bulkhead, (size_t)(left > 3 ? left - 3 : 0));
        assert_true(s.in_flight <= 3);
    }
    tu_ps_finish_all(&ps);
    s = tu_gstats(ex, "narrow");
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.completed, 6);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- queue thresholds --------------------------------------------------------------------------- */

static void test_group_threshold_exact(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"q", 2, GROUPCONC_DEFAULT, 3, 0}};
    groupconc_policy p = policy_with(table, 1);
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 2);
    tu_ps_submit(&ps, ex, "q");
    tu_ps_submit(&ps, ex, "q");
    assert_true(tu_latch_wait(&ps.started));
    for (int i = 0; i < 3; i++) tu_ps_submit(&ps, ex, "q"); /* 3 waiting: at the threshold */
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, "q", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    assert_null(t);
    assert_int_equal(groupconc_submit(ex, "q", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_group_stats s = tu_gstats(ex, "q");
    assert_int_equal(s.running, 2); /* running tasks do not count against the threshold */
    assert_int_equal(s.waiting_concurrency, 3);
    assert_int_equal(tu_rejected(s), 2);
    assert_true(s.submitted >= 5);

    /* one finishes: its permit goes to the oldest waiter, freeing exactly one queue slot */
    tu_ps_expect(&ps, 1);
    tu_ps_finish(&ps, 0);
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(atomic_load(&ps.p[2].ran), 1); /* the oldest waiter */
    assert_int_equal(tu_gstats(ex, "q").waiting_concurrency, 2);
    tu_ps_submit(&ps, ex, "q"); /* admitted into the freed slot */
    assert_int_equal(groupconc_submit(ex, "q", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY);
    s = tu_gstats(ex, "q");
    assert_int_equal(s.waiting_concurrency, 3);
    assert_int_equal(tu_rejected(s), 3);
    tu_ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

static void test_bulkhead_threshold_exact(void **state) {
    (void)state;
    groupconc_group_limits table[] = {
        {"bq", 1, 1, 2, 0}, /* all waiting happens at the bulkhead */
        {"sq", 1, 2, 2, 0}, /* one waits at concurrency, one at the bulkhead: they share the threshold */
    };
    groupconc_policy p = policy_with(table, 2);
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;

    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, "bq");
    assert_true(tu_latch_wait(&ps.started));
    tu_ps_submit(&ps, ex, "bq");
    tu_ps_submit(&ps, ex, "bq");
    assert_int_equal(groupconc_submit(ex, "bq", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_BULKHEAD);
    assert_null(t);
    groupconc_group_stats s = tu_gstats(ex, "bq");
    assert_int_equal(s.waiting_bulkhead, 2);
    assert_int_equal(s.in_flight, 1);
    assert_int_equal(tu_rejected(s), 1);
    tu_ps_finish_all(&ps);

    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, "sq");
    assert_true(tu_latch_wait(&ps.started));
    tu_ps_submit(&ps, ex, "sq"); /* concurrency */
    tu_ps_submit(&ps, ex, "sq"); /* bulkhead */
    s = tu_gstats(ex, "sq");
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.waiting_bulkhead, 1);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(groupconc_submit(ex, "sq", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_BULKHEAD);
    tu_ps_finish_all(&ps);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

static void test_global_threshold_exact(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 2;
    p.global_queue_threshold = 1;
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;
    tu_parkset ps;
    tu_ps_init(&ps, 2);
    tu_ps_submit(&ps, ex, "a");
    tu_ps_submit(&ps, ex, "b");
    assert_true(tu_latch_wait(&ps.started));
    tu_ps_submit(&ps, ex, "c"); /* waits for a global permit */
    assert_int_equal(groupconc_submit(ex, "d", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_GLOBAL);
    assert_null(t);
    assert_int_equal(tu_gstats(ex, "c").waiting_global, 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 2);
    assert_int_equal(xs.waiting, 1);

    /* "a" ends: its global permit goes to "c", the global queue is empty again */
    tu_ps_expect(&ps, 1);
    tu_ps_finish(&ps, 0);
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(atomic_load(&ps.p[2].ran), 1);
    tu_ps_submit(&ps, ex, "e"); /* admitted to wait */
    assert_int_equal(groupconc_submit(ex, "f", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_GLOBAL);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 2);
    assert_int_equal(xs.waiting, 1);
    tu_ps_finish_all(&ps);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

static void test_threshold_zero(void **state) {
    (void)state;
    /* group threshold 0 */
    groupconc_group_limits table[] = {{"z", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = policy_with(table, 1);
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = NULL;
    groupconc_task *quick = tu_submit(ex, "z", NULL, tu_count_fn, &ran); /* no wait needed */
    tu_wait_status(quick, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(quick);
    assert_int_equal(atomic_load(&ran), 1);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, "z"); /* no wait needed: admitted */
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(groupconc_submit(ex, "z", NULL, tu_count_fn, &ran, &t),
                     GROUPCONC_EREJECTED_CONCURRENCY); /* would wait */
    assert_int_equal(tu_gstats(ex, "z").waiting_concurrency, 0);
    tu_ps_finish_all(&ps);
    quick = tu_submit(ex, "z", NULL, tu_count_fn, &ran); /* free again */
    tu_wait_status(quick, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(quick);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 2);

    /* global threshold 0 */
    p = groupconc_policy_default();
    p.global_max_in_flight = 1;
    p.global_queue_threshold = 0;
    ex = tu_executor(&p);
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, "x");
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(groupconc_submit(ex, "y", NULL, tu_count_fn, &ran, &t), GROUPCONC_EREJECTED_GLOBAL);
    tu_ps_finish_all(&ps);
    quick = tu_submit(ex, "y", NULL, tu_count_fn, &ran);
    tu_wait_status(quick, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(quick);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 3);
}

/* ---- rejection policies ------------------------------------------------------------------------- */

/* Builds, in a fresh executor with policy `rej`, a state where the next submit to the returned
   group is refused at `layer` (AT_GLOBAL, AT_BULKHEAD or AT_CONCURRENCY). Blockers are parked in
   `ps`. */
static groupconc_executor *refusing_executor(int layer, groupconc_rejection_policy rej,
                                             groupconc_reject_fn handler, void *handler_data,
                                             tu_parkset *ps, const char **out_group) {
    static groupconc_group_limits table[] = {
        {"bh", 4, 1, 0, 0}, /* bulkhead 1, threshold 0 */
        {"cc", 1, GROUPCONC_UNLIMITED, 0, 0},
    };
    groupconc_policy p = policy_with(table, 2);
    p.rejection = rej;
    p.reject_handler = handler;
    p.reject_user_data = handler_data;
    if (layer == AT_GLOBAL) {
        p.global_max_in_flight = 1;
        p.global_queue_threshold = 0;
    }
    groupconc_executor *ex = tu_executor(&p);
    tu_ps_init(ps, 1);
    const char *g = layer == AT_GLOBAL ? "gl" : layer == AT_BULKHEAD ? "bh" : "cc";
    tu_ps_submit(ps, ex, layer == AT_GLOBAL ? "gl-blocker" : g);
    assert_true(tu_latch_wait(&ps->started));
    *out_group = g;
    return ex;
}

static const int layer_code[] = {0, GROUPCONC_EREJECTED_GLOBAL, GROUPCONC_EREJECTED_BULKHEAD,
                                  GROUPCONC_EREJECTED_CONCURRENCY};

static void test_reject_abort(void **state) {
    (void)state;
    for (int layer = AT_GLOBAL; layer <= AT_CONCURRENCY; layer++) {
        tu_parkset ps;
        const char *g;
        groupconc_executor *ex = refusing_executor(layer, GROUPCONC_REJECT_ABORT, NULL, NULL, &ps, &g);
        atomic_int ran;
        atomic_init(&ran, 0);
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(ex, g, "r", tu_count_fn, &ran, &t), layer_code[layer]);
        assert_null(t); /* no handle */
        assert_int_equal(groupconc_submit(ex, g, "r", tu_count_fn, &ran, NULL), layer_code[layer]);
        groupconc_group_stats s = tu_gstats(ex, g);
        assert_int_equal(tu_rejected(s), 2);
        assert_int_equal(s.waiting_global + s.waiting_bulkhead + s.waiting_concurrency, 0);
        tu_ps_finish_all(&ps);
        assert_int_equal(tu_xstats(ex).global_in_flight, 0);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(atomic_load(&ran), 0);
    }
}

static void test_reject_discard(void **state) {
    (void)state;
    for (int layer = AT_GLOBAL; layer <= AT_CONCURRENCY; layer++) {
        tu_parkset ps;
        const char *g;
        groupconc_executor *ex = refusing_executor(layer, GROUPCONC_REJECT_DISCARD, NULL, NULL, &ps, &g);
        atomic_int ran;
        atomic_init(&ran, 0);
        groupconc_task *t = tu_submit(ex, g, "d", tu_count_fn, &ran); /* OK, with a handle */
        groupconc_result r;
        assert_int_equal(groupconc_task_wait_for(t, 0, &r), GROUPCONC_OK); /* done at once */
        assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r.reason, layer_code[layer]);
        assert_string_equal(r.group, g);
        assert_string_equal(r.task_id, "d");
        assert_true(r.start_ns == r.end_ns); /* zero duration */
        assert_int_equal(tu_rejected(tu_gstats(ex, g)), 1);
        tu_ps_finish_all(&ps);
        assert_int_equal(tu_xstats(ex).global_in_flight, 0);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(atomic_load(&ran), 0);
        groupconc_task_release(t);
    }
}

typedef struct caller_probe {
    atomic_int ran;
    tu_thread_id thread;
    size_t group_running;    /* stats seen from inside the task */
    uint64_t group_submitted, group_completed;
    size_t global_in_flight;
    size_t exec_running;
    int stats_rc;
    const char *group;
} caller_probe;

static int caller_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    caller_probe *c = (caller_probe *)user_data;
    c->thread = tu_self();
    groupconc_executor *ex = groupconc_context_executor(ctx);
    groupconc_group_stats gs;
    groupconc_executor_stats xs;
    c->stats_rc = groupconc_group_stats_get(ex, c->group, &gs);
    if (c->stats_rc == GROUPCONC_OK) c->stats_rc = groupconc_executor_stats_get(ex, &xs);
    if (c->stats_rc == GROUPCONC_OK) {
        c->group_running = gs.running;
        c->group_submitted = gs.submitted;
        c->group_completed = gs.completed;
        c->global_in_flight = xs.global_in_flight;
        c->exec_running = xs.running;
    }
    atomic_fetch_add(&c->ran, 1);
    *out_value = c;
    return 0;
}

static void test_reject_caller_runs_in_submit(void **state) {
    (void)state;
    for (int layer = AT_GLOBAL; layer <= AT_CONCURRENCY; layer++) {
        tu_parkset ps;
        const char *g;
        groupconc_executor *ex =
            refusing_executor(layer, GROUPCONC_REJECT_CALLER_RUNS, NULL, NULL, &ps, &g);
        caller_probe c;
        memset(&c, 0, sizeof c);
        atomic_init(&c.ran, 0);
        c.group = g;
        groupconc_task *t = tu_submit(ex, g, "cr", caller_fn, &c);
        /* it already ran, synchronously, on this thread */
        assert_int_equal(atomic_load(&c.ran), 1);
        assert_true(tu_same_thread(c.thread, tu_self()));
        groupconc_result r = tu_wait(t);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(r.value, &c);
        /* it held no permits and did not count as running */
        assert_int_equal(c.stats_rc, GROUPCONC_OK);
        assert_int_equal(c.global_in_flight, 1); /* the blocker only */
        assert_int_equal(c.exec_running, 1);
        assert_int_equal(c.group_running, layer == AT_GLOBAL ? 0 : 1);
        /* it counts where its final status puts it: succeeded, not rejected */
        assert_int_equal(tu_rejected(tu_gstats(ex, g)), 0);
        assert_int_equal(tu_gstats(ex, g).succeeded, 1);
        /* and in caller_runs, outside completed's sum */
        assert_int_equal(tu_gstats(ex, g).caller_runs, 1);
        assert_int_equal(tu_xstats(ex).caller_runs, 1);
        tu_ps_finish_all(&ps);
        assert_int_equal(tu_xstats(ex).completed, tu_xstats(ex).submitted);
        assert_int_equal(tu_xstats(ex).global_in_flight, 0);
        groupconc_task_release(t);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    }
}

typedef struct handler_rec {
    atomic_int calls;
    groupconc_rejection seen; /* copy of the last call (pointers valid during the call only) */
    char group[16];
    char task_id[16];
    size_t global_in_flight_at_call; /* executor stats read inside the handler */
    size_t group_in_flight_at_call;
    int stats_rc;
    /* resubmit from inside the handler (only for task id "again") */
    const char *resubmit_group;
    groupconc_task *resubmitted;
    int resubmit_rc;
    atomic_int *resubmit_ran;
} handler_rec;

static void record_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    handler_rec *h = (handler_rec *)user_data;
    (void)out; /* REJECTED stays */
    h->seen = *rj;
    snprintf(h->group, sizeof h->group, "%s", rj->group ? rj->group : "(null)");
    snprintf(h->task_id, sizeof h->task_id, "%s", rj->task_id ? rj->task_id : "(null)");
    groupconc_executor_stats xs;
    groupconc_group_stats gs;
    h->stats_rc = groupconc_executor_stats_get(rj->executor, &xs);
    if (h->stats_rc == GROUPCONC_OK) h->stats_rc = groupconc_group_stats_get(rj->executor, rj->group, &gs);
    if (h->stats_rc == GROUPCONC_OK) {
        h->global_in_flight_at_call = xs.global_in_flight;
        h->group_in_flight_at_call = gs.in_flight;
    }
    if (h->resubmit_group && rj->task_id && strcmp(rj->task_id, "again") == 0)
        h->resubmit_rc = groupconc_submit(rj->executor, h->resubmit_group, "resubmitted", tu_count_fn,
                                          h->resubmit_ran, &h->resubmitted);
    atomic_fetch_add(&h->calls, 1);
}

static void handler_init(handler_rec *h) {
    memset(h, 0, sizeof *h);
    atomic_init(&h->calls, 0);
    h->resubmit_rc = -100;
}

static void test_custom_handler_wins(void **state) {
    (void)state;
    for (int layer = AT_GLOBAL; layer <= AT_CONCURRENCY; layer++) {
        handler_rec hr;
        handler_init(&hr);
        tu_parkset ps;
        const char *g;
        /* CALLER_RUNS is set, but the handler replaces it */
        groupconc_executor *ex =
            refusing_executor(layer, GROUPCONC_REJECT_CALLER_RUNS, record_handler, &hr, &ps, &g);
        atomic_int ran;
        atomic_init(&ran, 0);
        groupconc_task *t = tu_submit(ex, g, "h", tu_count_fn, &ran);
        assert_int_equal(atomic_load(&hr.calls), 1); /* in submit, on this thread */
        assert_true(hr.seen.in_submit);
        assert_int_equal(hr.seen.reason, layer_code[layer]);
        assert_ptr_equal(hr.seen.executor, ex);
        assert_true(hr.seen.fn == tu_count_fn);
        assert_ptr_equal(hr.seen.arg, &ran);
        assert_string_equal(hr.group, g);
        assert_string_equal(hr.task_id, "h");
        groupconc_result r = tu_wait(t);
        assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r.reason, layer_code[layer]);
        tu_ps_finish_all(&ps);
        groupconc_task_release(t);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(atomic_load(&ran), 0); /* the handler did not run it, nor did the policy */
    }
}

/* Rejected in submit after taking a global permit: the permit is back before the handler runs,
   so a submit from the handler is admitted although the global queue threshold is 0. */
static void test_permits_released_before_handler_sync(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"G", 1, GROUPCONC_DEFAULT, 0, 0}};
    handler_rec hr;
    handler_init(&hr);
    atomic_int resub_ran;
    atomic_init(&resub_ran, 0);
    hr.resubmit_group = "H";
    hr.resubmit_ran = &resub_ran;
    groupconc_policy p = policy_with(table, 1);
    p.global_max_in_flight = 2;
    p.global_queue_threshold = 0;
    p.reject_handler = record_handler;
    p.reject_user_data = &hr;
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, "G"); /* G busy; 1 of 2 global permits used */
    assert_true(tu_latch_wait(&ps.started));

    atomic_int ran;
    atomic_init(&ran, 0);
    /* takes the 2nd global permit, is refused at concurrency, gives the permit back, then the handler
       runs and resubmits into "H": with threshold 0 that only works if the permit is back */
    groupconc_task *t = tu_submit(ex, "G", "again", tu_count_fn, &ran);
    assert_int_equal(atomic_load(&hr.calls), 1);
    assert_int_equal(hr.seen.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(hr.stats_rc, GROUPCONC_OK);
    assert_int_equal(hr.global_in_flight_at_call, 1);
    assert_int_equal(hr.group_in_flight_at_call, 1);
    assert_int_equal(hr.resubmit_rc, GROUPCONC_OK);
    assert_non_null(hr.resubmitted);
    tu_wait_status(hr.resubmitted, GROUPCONC_STATUS_SUCCESS); /* while G is still busy */
    assert_int_equal(atomic_load(&resub_ran), 1);
    tu_wait_status(t, GROUPCONC_STATUS_REJECTED);
    tu_ps_finish_all(&ps);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    groupconc_task_release(t);
    groupconc_task_release(hr.resubmitted);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

/* Queued for a global permit, refused later at concurrency (asynchronously): the global permit it
   was handed is released before the handler runs, so the handler's resubmit runs while G is still
   busy. */
static void test_permits_released_before_handler_async(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"G", 1, GROUPCONC_DEFAULT, 0, 0}};
    handler_rec hr;
    handler_init(&hr);
    atomic_int resub_ran;
    atomic_init(&resub_ran, 0);
    hr.resubmit_group = "H2";
    hr.resubmit_ran = &resub_ran;
    groupconc_policy p = policy_with(table, 1);
    p.global_max_in_flight = 2;
    p.reject_handler = record_handler;
    p.reject_user_data = &hr;
    groupconc_executor *ex = tu_executor(&p);
    tu_parkset ps;
    tu_ps_init(&ps, 2);
    tu_ps_submit(&ps, ex, "G");
    tu_ps_submit(&ps, ex, "H");
    assert_true(tu_latch_wait(&ps.started)); /* both global permits used */
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = tu_submit(ex, "G", "again", tu_count_fn, &ran); /* waits for a global permit */
    assert_int_equal(tu_gstats(ex, "G").waiting_global, 1);
    assert_int_equal(atomic_load(&hr.calls), 0);

    tu_ps_finish(&ps, 1); /* H ends: its global permit is handed to "again", which G refuses */
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&hr.calls), 1); /* the handler ran before the task completed */
    assert_false(hr.seen.in_submit);
    assert_int_equal(hr.seen.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(hr.stats_rc, GROUPCONC_OK);
    assert_int_equal(hr.global_in_flight_at_call, 1); /* G's blocker only */
    assert_int_equal(hr.resubmit_rc, GROUPCONC_OK);
    tu_wait_status(hr.resubmitted, GROUPCONC_STATUS_SUCCESS); /* G still busy */
    assert_int_equal(atomic_load(&resub_ran), 1);
    tu_ps_finish_all(&ps);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    groupconc_task_release(t);
    groupconc_task_release(hr.resubmitted);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

/* The same asynchronous refusal under ABORT completes the handle REJECTED; under CALLER_RUNS the
   task runs on a worker, holding no permits. */
static void test_async_rejection_policies(void **state) {
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        groupconc_group_limits table[] = {{"G", 1, GROUPCONC_DEFAULT, 0, 0}};
        groupconc_policy p = policy_with(table, 1);
        p.global_max_in_flight = 2;
        p.rejection = mode == 0 ? GROUPCONC_REJECT_ABORT : GROUPCONC_REJECT_CALLER_RUNS;
        groupconc_executor *ex = tu_executor(&p);
        tu_parkset ps;
        tu_ps_init(&ps, 2);
        tu_ps_submit(&ps, ex, "G");
        tu_ps_submit(&ps, ex, "H");
        assert_true(tu_latch_wait(&ps.started));
        caller_probe c;
        memset(&c, 0, sizeof c);
        atomic_init(&c.ran, 0);
        c.group = "G";
        groupconc_task *t = tu_submit(ex, "G", "late", caller_fn, &c); /* OK: it waits */
        tu_ps_finish(&ps, 1);
        groupconc_result r = tu_wait(t);
        if (mode == 0) {
            assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
            assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
            assert_true(r.start_ns == r.end_ns);
            assert_int_equal(atomic_load(&c.ran), 0);
        } else {
            assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(atomic_load(&c.ran), 1);
            assert_false(tu_same_thread(c.thread, tu_self())); /* on a worker */
            assert_int_equal(c.stats_rc, GROUPCONC_OK);
            assert_int_equal(c.global_in_flight, 1); /* holds no global permit */
            assert_int_equal(c.group_running, 1);    /* not counted as running */
            assert_int_equal(c.group_submitted, 2);  /* but counted as submitted, not completed */
            assert_int_equal(c.group_completed, 0);
        }
        assert_int_equal(tu_rejected(tu_gstats(ex, "G")), mode == 0 ? 1 : 0);
        assert_int_equal(tu_gstats(ex, "G").succeeded, mode == 0 ? 0 : 1); /* the blocker still runs */
        assert_int_equal(tu_gstats(ex, "G").caller_runs, mode == 0 ? 0 : 1);
        assert_int_equal(tu_xstats(ex).caller_runs, mode == 0 ? 0 : 1);
        tu_ps_finish_all(&ps);
        assert_int_equal(tu_xstats(ex).global_in_flight, 0);
        groupconc_task_release(t);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    }
}

/* ---- FIFO hand-off at each layer ---------------------------------------------------------------- */

typedef struct seq_slot {
    atomic_int *counter;
    atomic_int seq;
} seq_slot;

static int seq_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    seq_slot *s = (seq_slot *)user_data;
    atomic_store(&s->seq, atomic_fetch_add(s->counter, 1));
    return 0;
}

static void fifo_check(int layer) {
    groupconc_group_limits table[] = {
        {"bh", 8, 1, GROUPCONC_DEFAULT, 0}, /* bulkhead 1: every waiter waits at the bulkhead */
        {"cc", 1, GROUPCONC_UNLIMITED, GROUPCONC_DEFAULT, 0},
    };
    groupconc_policy p = policy_with(table, 2);
    if (layer == AT_GLOBAL) {
        p.global_max_in_flight = 1;
        p.default_concurrency = 8;
    }
    groupconc_executor *ex = tu_executor(&p);
    atomic_int counter;
    atomic_init(&counter, 1);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, ex, layer == AT_GLOBAL ? "blk" : layer == AT_BULKHEAD ? "bh" : "cc");
    assert_true(tu_latch_wait(&ps.started));
    enum { N = 40 };
    seq_slot slots[N];
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        char key[16];
        /* global: every task in its own group, so only the global cap orders them */
        if (layer == AT_GLOBAL)
            snprintf(key, sizeof key, "f%d", i);
        else
            snprintf(key, sizeof key, "%s", layer == AT_BULKHEAD ? "bh" : "cc");
        slots[i].counter = &counter;
        atomic_init(&slots[i].seq, -1);
        h[i] = tu_submit(ex, key, NULL, seq_fn, &slots[i]);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, N);
    if (layer == AT_BULKHEAD) assert_int_equal(tu_gstats(ex, "bh").waiting_bulkhead, N);
    if (layer == AT_CONCURRENCY) assert_int_equal(tu_gstats(ex, "cc").waiting_concurrency, N);
    tu_ps_finish_all(&ps);
    for (int i = 0; i < N; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    for (int i = 0; i < N; i++) {
        if (atomic_load(&slots[i].seq) != i + 1)
            print_error("%s: task %d started as #%d\n", at_name[layer], i, atomic_load(&slots[i].seq));
        assert_int_equal(atomic_load(&slots[i].seq), i + 1);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_fifo_global_in_flight(void **state) {
    (void)state;
    fifo_check(AT_GLOBAL);
}
static void test_fifo_bulkhead(void **state) {
    (void)state;
    fifo_check(AT_BULKHEAD);
}
static void test_fifo_concurrency(void **state) {
    (void)state;
    fifo_check(AT_CONCURRENCY);
}

/* ---- no permit leaks ---------------------------------------------------------------------------- */

static int tiny_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)out_value;
    (void)user_data;
    tu_spin(2000);
    return groupconc_context_is_cancelled(ctx) ? GROUPCONC_TASK_CANCELLED : 0;
}

static void test_global_permits_returned(void **state) {
    (void)state;
    groupconc_group_limits table[] = {
        {"r0", 1, 2, 3, 0}, {"r1", 2, GROUPCONC_DEFAULT, 1, 0}, {"r2", 3, 3, 0, 0},
    };
    groupconc_policy p = policy_with(table, 3);
    p.global_max_in_flight = 3;
    p.global_queue_threshold = 12;
    p.default_concurrency = 2;
    p.rejection = GROUPCONC_REJECT_DISCARD; /* every submit gives a handle */
    p.max_threads = 4;
    groupconc_executor *ex = tu_executor(&p);
    enum { ROUNDS = 40, PER = 48 };
    const char *keys[6] = {"r0", "r1", "r2", "r3", "r4", "r5"};
    size_t counts[5] = {0, 0, 0, 0, 0};
    for (int round = 0; round < ROUNDS; round++) {
        groupconc_task *h[PER];
        for (int i = 0; i < PER; i++) {
            h[i] = tu_submit(ex, keys[(i + round) % 6], NULL, tiny_fn, NULL);
            if (i % 5 == 4) groupconc_task_cancel(h[i - 2], NULL);
        }
        for (int i = 0; i < PER; i++) {
            groupconc_result r = tu_wait(h[i]);
            assert_true(r.status >= GROUPCONC_STATUS_SUCCESS && r.status <= GROUPCONC_STATUS_REJECTED);
            counts[r.status]++;
            groupconc_task_release(h[i]);
        }
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.global_in_flight, 0);
        assert_int_equal(xs.running, 0);
        assert_int_equal(xs.ready, 0);
        assert_int_equal(xs.waiting, 0);
    }
    for (int g = 0; g < 6; g++) {
        groupconc_group_stats s = tu_gstats(ex, keys[g]);
        assert_int_equal(s.in_flight, 0);
        assert_int_equal(s.running + s.ready, 0);
        assert_int_equal(s.waiting_global + s.waiting_bulkhead + s.waiting_concurrency, 0);
    }
    /* all permits usable again: the cap is reachable, not shrunk by a leak */
    tu_parkset ps;
    tu_ps_init(&ps, 3);
    for (int i = 0; i < 3; i++) tu_ps_submit(&ps, ex, keys[3 + i]);
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(tu_xstats(ex).global_in_flight, 3);
    tu_ps_finish_all(&ps);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_true(counts[GROUPCONC_STATUS_SUCCESS] > 0);
    assert_int_equal(counts[GROUPCONC_STATUS_PENDING], 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_global_cap_never_exceeded),
        cmocka_unit_test(test_bulkhead_caps_in_flight),
        cmocka_unit_test(test_group_threshold_exact),
        cmocka_unit_test(test_bulkhead_threshold_exact),
        cmocka_unit_test(test_global_threshold_exact),
        cmocka_unit_test(test_threshold_zero),
        cmocka_unit_test(test_reject_abort),
        cmocka_unit_test(test_reject_discard),
        cmocka_unit_test(test_reject_caller_runs_in_submit),
        cmocka_unit_test(test_custom_handler_wins),
        cmocka_unit_test(test_permits_released_before_handler_sync),
        cmocka_unit_test(test_permits_released_before_handler_async),
        cmocka_unit_test(test_async_rejection_policies),
        cmocka_unit_test(test_fifo_global_in_flight),
        cmocka_unit_test(test_fifo_bulkhead),
        cmocka_unit_test(test_fifo_concurrency),
        cmocka_unit_test(test_global_permits_returned),
    };
    return TU_RUN_TESTS(tests);
}
