/* test_submit.c - the executor core: per-group caps, parallel groups, execute_all, FIFO start
   order, timed waits, completion callbacks, handle lifetime, large queues, many submitters, and
   the bad-input codes of the submit and handle functions. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- per-group cap never exceeded --------------------------------------------------------------- */

typedef struct cap_probe {
    tu_peak group;       /* running tasks of this group, as the tasks see it */
    tu_peak *global;     /* running tasks of all groups */
    int cap;
    atomic_int over;     /* times a task saw more than `cap` running in its group */
    atomic_int done;
} cap_probe;

static int cap_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    cap_probe *c = (cap_probe *)user_data;
    if (tu_peak_enter(&c->group) > c->cap) atomic_fetch_add(&c->over, 1);
    if (c->global) tu_peak_enter(c->global);
    tu_sleep_ns(20000); /* make overlap likely; not used to synchronise */
    if (c->global) tu_peak_leave(c->global);
    tu_peak_leave(&c->group);
    atomic_fetch_add(&c->done, 1);
    return 0;
}

static void test_group_cap_never_exceeded(void **state) {
    (void)state;
    groupconc_group_limits table[] = {
        {"two", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"three", 3, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"one", 1, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
    };
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 3;
    p.max_threads = 16;
    groupconc_executor *ex = tu_executor(&p);

    /* Deterministic part: with cap+1 parked tasks, exactly cap run and one waits. */
    for (int g = 0; g < 3; g++) {
        int cap = table[g].concurrency;
        tu_latch started;
        tu_latch_init(&started, cap);
        tu_park parks[4];
        groupconc_task *h[4];
        for (int i = 0; i <= cap; i++) {
            tu_park_init(&parks[i], &started, NULL);
            h[i] = tu_submit(ex, table[g].group, NULL, tu_park_fn, &parks[i]);
        }
        assert_true(tu_latch_wait(&started));
        groupconc_group_stats s = tu_gstats(ex, table[g].group);
        assert_int_equal(s.running, (size_t)cap);
        assert_int_equal(s.waiting_concurrency, 1);
        assert_int_equal(atomic_load(&parks[cap].ran), 0);
        for (int i = 0; i <= cap; i++) tu_park_release(&parks[i]);
        for (int i = 0; i <= cap; i++) {
            tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(h[i]);
            tu_park_destroy(&parks[i]);
        }
        tu_latch_destroy(&started);
    }

    /* Load part: many short tasks; the peak each group saw never exceeds its cap. */
    enum { PER_GROUP = 300 };
    cap_probe probes[3];
    tu_peak global;
    tu_peak_init(&global);
    for (int g = 0; g < 3; g++) {
        tu_peak_init(&probes[g].group);
        probes[g].global = &global;
        probes[g].cap = table[g].concurrency;
        atomic_init(&probes[g].over, 0);
        atomic_init(&probes[g].done, 0);
    }
    groupconc_task **all = (groupconc_task **)calloc(3 * PER_GROUP, sizeof *all);
    assert_non_null(all);
    for (int i = 0; i < PER_GROUP; i++) {
        for (int g = 0; g < 3; g++)
            all[i * 3 + g] = tu_submit(ex, table[g].group, NULL, cap_fn, &probes[g]);
        if (i % 50 == 0) {
            for (int g = 0; g < 3; g++) {
                groupconc_group_stats s = tu_gstats(ex, table[g].group);
                assert_true(s.running + s.ready <= (size_t)table[g].concurrency);
            }
        }
    }
    for (int i = 0; i < 3 * PER_GROUP; i++) {
        tu_wait_status(all[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(all[i]);
    }
    free(all);
    for (int g = 0; g < 3; g++) {
        assert_int_equal(atomic_load(&probes[g].done), PER_GROUP);
        assert_int_equal(atomic_load(&probes[g].over), 0);
        assert_true(tu_peak_max(&probes[g].group) <= table[g].concurrency);
        assert_true(tu_peak_max(&probes[g].group) >= 1);
    }
    assert_true(tu_peak_max(&global) <= 6);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- groups run in parallel --------------------------------------------------------------------- */

static void test_groups_run_in_parallel(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default(); /* every group: concurrency 1 */
    groupconc_executor *ex = tu_executor(&p);
    enum { G = 4 };
    tu_latch started;
    tu_latch_init(&started, G);
    tu_park parks[G];
    groupconc_task *h[G];
    const char *keys[G] = {"p0", "p1", "p2", "p3"};
    for (int i = 0; i < G; i++) {
        tu_park_init(&parks[i], &started, NULL);
        h[i] = tu_submit(ex, keys[i], NULL, tu_park_fn, &parks[i]);
    }
    /* All four are running at once although each group allows only one. */
    assert_true(tu_latch_wait(&started));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, G);
    assert_true(xs.running > 1); /* > one group's cap */
    assert_int_equal(xs.groups, G);
    for (int i = 0; i < G; i++) tu_park_release(&parks[i]);
    for (int i = 0; i < G; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
        tu_park_destroy(&parks[i]);
    }
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- execute_all -------------------------------------------------------------------------------- */

typedef struct ret_task {
    int code;         /* returned */
    void *value;      /* stored in *out_value (if set_value) */
    bool set_value;
    atomic_int ran;
} ret_task;

static int ret_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    ret_task *r = (ret_task *)user_data;
    atomic_fetch_add(&r->ran, 1);
    if (r->set_value) *out_value = r->value;
    return r->code;
}

static void ret_init(ret_task *r, int code, void *value, bool set_value) {
    r->code = code;
    r->value = value;
    r->set_value = set_value;
    atomic_init(&r->ran, 0);
}

static void test_execute_all_mixed(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"full", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);

    /* "full" is occupied and has queue threshold 0: a task for it is rejected in submit. */
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "full", "blocker", tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));

    int v0 = 10, v1 = 11, v2 = 12, v5 = 15;
    enum { N = 7 };
    ret_task r[N];
    ret_init(&r[0], 0, &v0, true);
    ret_init(&r[1], -1000, &v1, true);
    ret_init(&r[2], 0, &v2, true);
    ret_init(&r[3], GROUPCONC_TASK_CANCELLED, NULL, false);
    ret_init(&r[4], 0, NULL, false);
    ret_init(&r[5], 0, &v5, true);
    ret_init(&r[6], 77, NULL, false);
    groupconc_task_spec specs[N] = {
        {"ea", "ok-0", ret_fn, &r[0], NULL, 0},     {"eb", "fail-1", ret_fn, &r[1], NULL, 0},
        {"ea", "ok-2", ret_fn, &r[2], NULL, 0},     {"ec", "cancel-3", ret_fn, &r[3], NULL, 0},
        {"full", "rej-4", ret_fn, &r[4], NULL, 0},  {"eb", NULL, ret_fn, &r[5], NULL, 0},
        {"ed", "fail-6", ret_fn, &r[6], NULL, 0},
    };
    groupconc_result res[N];
    memset(res, 0xab, sizeof res);
    assert_int_equal(groupconc_execute_all(ex, specs, N, GROUPCONC_FOREVER, res), GROUPCONC_OK);

    const groupconc_status want_status[N] = {
        GROUPCONC_STATUS_SUCCESS, GROUPCONC_STATUS_FAILED,   GROUPCONC_STATUS_SUCCESS,
        GROUPCONC_STATUS_CANCELLED, GROUPCONC_STATUS_REJECTED, GROUPCONC_STATUS_SUCCESS,
        GROUPCONC_STATUS_FAILED,
    };
    const int want_error[N] = {0, -1000, 0, GROUPCONC_ECANCELLED, GROUPCONC_EREJECTED_CONCURRENCY,
                               0, 77};
    void *const want_value[N] = {&v0, &v1, &v2, NULL, NULL, &v5, NULL};
    const int want_ran[N] = {1, 1, 1, 1, 0, 1, 1};
    for (int i = 0; i < N; i++) {
        assert_int_equal(res[i].status, want_status[i]);
        /* the task's own code in error, the library's reason (CANCELLED, REJECTED) in reason */
        assert_int_equal(res[i].error ? res[i].error : res[i].reason, want_error[i]);
        if (want_status[i] != GROUPCONC_STATUS_FAILED) assert_int_equal(res[i].error, 0);
        assert_int_equal(atomic_load(&r[i].ran), want_ran[i]);
        assert_non_null(res[i].group);
        assert_string_equal(res[i].group, specs[i].group);
        if (specs[i].task_id) {
            assert_non_null(res[i].task_id);
            assert_string_equal(res[i].task_id, specs[i].task_id);
        } else {
            assert_null(res[i].task_id);
        }
        if (want_status[i] == GROUPCONC_STATUS_SUCCESS || want_status[i] == GROUPCONC_STATUS_FAILED)
            assert_ptr_equal(res[i].value, want_value[i]);
        assert_true(res[i].start_ns <= res[i].end_ns);
        if (want_status[i] == GROUPCONC_STATUS_REJECTED) assert_true(res[i].start_ns == res[i].end_ns);
    }

    tu_park_release(&blocker);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_execute_all_deadline(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "busy", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));

    ret_task r[3];
    for (int i = 0; i < 3; i++) ret_init(&r[i], 0, NULL, false);
    groupconc_task_spec specs[3] = {
        {"busy", "w0", ret_fn, &r[0], NULL, 0}, {"free", "f1", ret_fn, &r[1], NULL, 0}, {"busy", "w2", ret_fn, &r[2], NULL, 0}};
    groupconc_result res[3];
    int64_t t0 = tu_now_ns();
    assert_int_equal(groupconc_execute_all(ex, specs, 3, 50 * TU_MS, res), GROUPCONC_ETIMEDOUT);
    int64_t took = tu_now_ns() - t0;
    assert_true(took >= 25 * TU_MS);
    assert_true(took < TU_TIMEOUT_NS);
    assert_int_equal(res[0].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(res[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(res[2].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(tu_gstats(ex, "busy").waiting_concurrency, 0);

    tu_park_release(&blocker);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&r[0].ran), 0);
    assert_int_equal(atomic_load(&r[2].ran), 0);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
}

static void test_execute_all_bad_input(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task_spec specs[3] = {
        {"a", NULL, tu_count_fn, &ran, NULL, 0}, {"b", NULL, tu_count_fn, &ran, NULL, 0}, {"c", NULL, tu_count_fn, &ran, NULL, 0}};
    groupconc_result res[3];
    assert_int_equal(groupconc_execute_all(NULL, specs, 3, GROUPCONC_FOREVER, res), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_execute_all(ex, NULL, 3, GROUPCONC_FOREVER, res), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_execute_all(ex, specs, 3, GROUPCONC_FOREVER, NULL), GROUPCONC_EINVAL);
    specs[1].fn = NULL;
    assert_int_equal(groupconc_execute_all(ex, specs, 3, GROUPCONC_FOREVER, res), GROUPCONC_EINVAL);
    specs[1].fn = tu_count_fn;
    specs[2].group = NULL;
    assert_int_equal(groupconc_execute_all(ex, specs, 3, GROUPCONC_FOREVER, res), GROUPCONC_EINVAL);
    specs[2].group = "";
    assert_int_equal(groupconc_execute_all(ex, specs, 3, GROUPCONC_FOREVER, res), GROUPCONC_EKEYEMPTY);
    char longkey[300];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    specs[2].group = longkey;
    assert_int_equal(groupconc_execute_all(ex, specs, 3, GROUPCONC_FOREVER, res),
                     GROUPCONC_EKEYTOOLONG);
    /* nothing was submitted by any refused call */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 0);
    /* an empty batch is fine */
    assert_int_equal(groupconc_execute_all(ex, specs, 0, GROUPCONC_FOREVER, res), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

/* ---- FIFO start order --------------------------------------------------------------------------- */

typedef struct order_slot {
    atomic_int *counter;
    atomic_int seq;
} order_slot;

static int order_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    order_slot *o = (order_slot *)user_data;
    atomic_store(&o->seq, atomic_fetch_add(o->counter, 1));
    return 0;
}

static void test_fifo_within_group(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int counter;
    atomic_init(&counter, 0);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, &counter);
    groupconc_task *hb = tu_submit(ex, "fifo", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));

    enum { N = 64 };
    order_slot slots[N];
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        slots[i].counter = &counter;
        atomic_init(&slots[i].seq, -1);
        h[i] = tu_submit(ex, "fifo", NULL, order_fn, &slots[i]);
    }
    assert_int_equal(tu_gstats(ex, "fifo").waiting_concurrency, N);
    tu_park_release(&blocker);
    for (int i = 0; i < N; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&blocker.start_seq), 0);
    for (int i = 0; i < N; i++) assert_int_equal(atomic_load(&slots[i].seq), i + 1);
    for (int i = 0; i < N; i++) groupconc_task_release(h[i]);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- timed wait --------------------------------------------------------------------------------- */

static void test_timed_wait(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    groupconc_task *h = tu_submit(ex, "tw", NULL, tu_park_fn, &park);
    assert_true(tu_latch_wait(&started));

    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(h, 0, &r), GROUPCONC_ETIMEDOUT); /* poll */
    int64_t t0 = tu_now_ns();
    assert_int_equal(groupconc_task_wait_for(h, 50 * TU_MS, &r), GROUPCONC_ETIMEDOUT);
    int64_t took = tu_now_ns() - t0;
    assert_true(took >= 25 * TU_MS); /* generous: a wall-clock backend may be off a little */
    assert_true(took < TU_TIMEOUT_NS);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(h, &done), GROUPCONC_OK);
    assert_false(done);
    assert_false(atomic_load(&park.saw_cancel)); /* the timeout did not cancel it */

    tu_park_release(&park);
    r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &park);
    assert_false(atomic_load(&park.saw_cancel));
    assert_int_equal(groupconc_task_is_done(h, &done), GROUPCONC_OK);
    assert_true(done);
    assert_int_equal(groupconc_task_wait_for(h, 0, &r), GROUPCONC_OK); /* done: poll succeeds */
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(h), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- completion callbacks ----------------------------------------------------------------------- */

typedef struct cb_rec {
    atomic_int calls;
    atomic_int order;      /* position among callbacks of one task */
    atomic_int *seq;       /* shared position counter */
    atomic_int bad;        /* wrong task pointer or result */
    groupconc_task *expect_task;
    void *expect_value;
    tu_latch *latch;       /* counted down on each call (may be NULL) */
    tu_thread_id thread;
} cb_rec;

static void cb_init(cb_rec *c, atomic_int *seq, tu_latch *latch) {
    atomic_init(&c->calls, 0);
    atomic_init(&c->order, -1);
    atomic_init(&c->bad, 0);
    c->seq = seq;
    c->latch = latch;
    c->expect_task = NULL;
    c->expect_value = NULL;
}

static void on_done(groupconc_task *task, const groupconc_result *result, void *user_data) {
    cb_rec *c = (cb_rec *)user_data;
    if (task != c->expect_task || !result || result->status != GROUPCONC_STATUS_SUCCESS ||
        result->value != c->expect_value)
        atomic_fetch_add(&c->bad, 1);
    if (c->seq) atomic_store(&c->order, atomic_fetch_add(c->seq, 1));
    c->thread = tu_self();
    atomic_fetch_add(&c->calls, 1);
    if (c->latch) tu_latch_count_down(c->latch);
}

static void test_completion_callback_once(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started, fired;
    tu_latch_init(&started, 1);
    tu_latch_init(&fired, 2);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    groupconc_task *h = tu_submit(ex, "cb", NULL, tu_park_fn, &park);
    assert_true(tu_latch_wait(&started));

    atomic_int seq;
    atomic_init(&seq, 0);
    cb_rec before1, before2, after;
    cb_init(&before1, &seq, &fired);
    cb_init(&before2, &seq, &fired);
    cb_init(&after, &seq, NULL);
    before1.expect_task = before2.expect_task = after.expect_task = h;
    before1.expect_value = before2.expect_value = after.expect_value = &park;

    /* registered while the task runs */
    assert_int_equal(groupconc_task_on_complete(h, on_done, &before1), GROUPCONC_OK);
    assert_int_equal(groupconc_task_on_complete(h, on_done, &before2), GROUPCONC_OK);
    assert_int_equal(atomic_load(&before1.calls), 0);
    tu_park_release(&park);
    tu_wait_status(h, GROUPCONC_STATUS_SUCCESS);
    assert_true(tu_latch_wait(&fired));
    assert_int_equal(atomic_load(&before1.order), 0); /* registration order */
    assert_int_equal(atomic_load(&before2.order), 1);

    /* registered after completion: runs at once, on this thread, before on_complete returns */
    assert_int_equal(groupconc_task_on_complete(h, on_done, &after), GROUPCONC_OK);
    assert_int_equal(atomic_load(&after.calls), 1);
    assert_true(tu_same_thread(after.thread, tu_self()));

    /* let everything settle (destroy joins the workers), then: exactly once each */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&before1.calls), 1);
    assert_int_equal(atomic_load(&before2.calls), 1);
    assert_int_equal(atomic_load(&after.calls), 1);
    assert_int_equal(atomic_load(&before1.bad), 0);
    assert_int_equal(atomic_load(&before2.bad), 0);
    assert_int_equal(atomic_load(&after.bad), 0);
    assert_int_equal(groupconc_task_release(h), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    tu_latch_destroy(&fired);
}

/* A completion callback may block on *another* task (only waiting on its own task is forbidden).
   Here A's callback waits for B, the next task of A's group: B must be able to start. */
typedef struct wait_next {
    groupconc_task *next;
    int rc;
    groupconc_status status;
    atomic_int calls;
} wait_next;

static void wait_next_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)result;
    wait_next *w = (wait_next *)user_data;
    groupconc_result r;
    w->rc = groupconc_task_wait_for(w->next, 5 * TU_SEC, &r);
    w->status = w->rc == GROUPCONC_OK ? r.status : GROUPCONC_STATUS_PENDING;
    atomic_fetch_add(&w->calls, 1);
}

static void test_callback_may_wait_for_next_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default(); /* 32 threads: plenty are free */
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a;
    tu_park_init(&a, &started, NULL);
    groupconc_task *ha = tu_submit(ex, "chain", "A", tu_park_fn, &a);
    assert_true(tu_latch_wait(&started));
    atomic_int ran;
    atomic_init(&ran, 0);
    wait_next w;
    w.rc = -100;
    w.status = GROUPCONC_STATUS_PENDING;
    atomic_init(&w.calls, 0);
    w.next = tu_submit(ex, "chain", "B", tu_count_fn, &ran); /* waits behind A */
    assert_int_equal(groupconc_task_on_complete(ha, wait_next_cb, &w), GROUPCONC_OK);
    tu_park_release(&a);
    tu_wait_status(w.next, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* callbacks have run */
    groupconc_task_release(ha);
    groupconc_task_release(w.next);
    tu_park_destroy(&a);
    tu_latch_destroy(&started);
    assert_int_equal(atomic_load(&w.calls), 1);
    assert_int_equal(atomic_load(&ran), 1);
    if (w.rc != GROUPCONC_OK)
        print_error("A's completion callback waited for B and got %s: B could not start while the "
                    "callback ran\n", groupconc_errname(w.rc));
    assert_int_equal(w.rc, GROUPCONC_OK); /* ETIMEDOUT if B cannot start meanwhile */
    assert_int_equal(w.status, GROUPCONC_STATUS_SUCCESS);
}

/* ---- handle lifetime ---------------------------------------------------------------------------- */

static void test_handle_valid_after_destroy(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);

    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *done = tu_submit(ex, "life", "done", tu_count_fn, &ran);
    tu_wait_status(done, GROUPCONC_STATUS_SUCCESS);

    /* a running (cooperative) task and one queued behind it when destroy is called */
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    park.cooperative = true;
    groupconc_task *running = tu_submit(ex, "life", "running", tu_park_fn, &park);
    assert_true(tu_latch_wait(&started));
    atomic_int queued_ran;
    atomic_init(&queued_ran, 0);
    groupconc_task *queued = tu_submit(ex, "life", "queued", tu_count_fn, &queued_ran);

    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    groupconc_result r;
    bool is_done = false;
    assert_int_equal(groupconc_task_wait(done, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_string_equal(r.group, "life");
    assert_string_equal(r.task_id, "done");
    assert_int_equal(groupconc_task_is_done(done, &is_done), GROUPCONC_OK);
    assert_true(is_done);

    assert_int_equal(groupconc_task_wait(running, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED); /* flagged, returned ECANCELLED */
    assert_true(atomic_load(&park.saw_cancel));
    assert_int_equal(groupconc_task_is_done(running, &is_done), GROUPCONC_OK);
    assert_true(is_done);

    assert_int_equal(groupconc_task_wait_for(queued, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_string_equal(r.task_id, "queued");
    assert_int_equal(atomic_load(&queued_ran), 0);

    groupconc_cancel_outcome oc = GROUPCONC_CANCEL_DEQUEUED;
    assert_int_equal(groupconc_task_cancel(done, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_TOO_LATE);
    cb_rec cb;
    cb_init(&cb, NULL, NULL);
    cb.expect_task = done;
    assert_int_equal(groupconc_task_on_complete(done, on_done, &cb), GROUPCONC_OK);
    assert_int_equal(atomic_load(&cb.calls), 1);
    assert_int_equal(atomic_load(&cb.bad), 0);

    assert_int_equal(groupconc_task_release(done), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(running), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(queued), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* ---- 100,000 waiting tasks in one group --------------------------------------------------------- */

typedef struct big_ctx {
    atomic_int done;
    atomic_long max_threads_seen;
} big_ctx;

static int big_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)out_value;
    big_ctx *b = (big_ctx *)user_data;
    int n = atomic_fetch_add(&b->done, 1);
    if ((n & 1023) == 0) {
        groupconc_executor_stats s;
        if (groupconc_executor_stats_get(groupconc_context_executor(ctx), &s) == GROUPCONC_OK)
            tu_atomic_max(&b->max_threads_seen, (long)s.threads);
        else
            tu_atomic_max(&b->max_threads_seen, 1000000);
    }
    return 0;
}

static void test_100k_waiting_in_one_group(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 4;
    groupconc_executor *ex = tu_executor(&p);
    big_ctx b;
    atomic_init(&b.done, 0);
    atomic_init(&b.max_threads_seen, 0);
    long max_seen = 0;

    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "one", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));

    enum { N = 100000 };
    groupconc_task *last = NULL;
    for (int i = 0; i < N; i++) {
        groupconc_task **out = (i == N - 1) ? &last : NULL; /* the rest are fire-and-forget */
        assert_int_equal(groupconc_submit(ex, "one", NULL, big_fn, &b, out), GROUPCONC_OK);
        if (i % 1000 == 0) {
            groupconc_executor_stats xs = tu_xstats(ex);
            if ((long)xs.threads > max_seen) max_seen = (long)xs.threads;
        }
    }
    /* all of them wait, as queue nodes, behind the blocker */
    groupconc_group_stats gs = tu_gstats(ex, "one");
    assert_int_equal(gs.waiting_concurrency, N);
    assert_int_equal(gs.running, 1);
    assert_int_equal(atomic_load(&b.done), 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, N);
    assert_true(xs.threads <= 4);

    tu_park_release(&blocker);
    groupconc_result r;
    int64_t deadline = tu_now_ns() + 120 * TU_SEC;
    int rc;
    while ((rc = groupconc_task_wait_for(last, 2 * TU_MS, &r)) == GROUPCONC_ETIMEDOUT &&
           tu_now_ns() < deadline) {
        xs = tu_xstats(ex);
        if ((long)xs.threads > max_seen) max_seen = (long)xs.threads;
    }
    assert_int_equal(rc, GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&b.done), N);
    tu_atomic_max(&b.max_threads_seen, max_seen);
    assert_true(atomic_load(&b.max_threads_seen) >= 1);
    assert_true(atomic_load(&b.max_threads_seen) <= 4);
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.global_in_flight, 0);

    groupconc_task_release(last);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- 50,000 tasks over 1,000 groups from 4 submitting threads ----------------------------------- */

typedef struct slot {
    atomic_int ran;
    atomic_int completed;
    atomic_int bad;
    groupconc_task *h;
    int rc;
} slot;

typedef struct many_ctx {
    groupconc_executor *ex;
    slot *slots;
    int n;
    int stride;
    int first;
    tu_latch *gate;
} many_ctx;

static int slot_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    slot *s = (slot *)user_data;
    atomic_fetch_add(&s->ran, 1);
    *out_value = s;
    return 0;
}

static void slot_done(groupconc_task *task, const groupconc_result *result, void *user_data) {
    slot *s = (slot *)user_data;
    if (!result || result->status != GROUPCONC_STATUS_SUCCESS || result->value != s || !task)
        atomic_fetch_add(&s->bad, 1);
    atomic_fetch_add(&s->completed, 1);
}

static void many_submitter(void *arg) {
    many_ctx *m = (many_ctx *)arg;
    tu_latch_wait(m->gate);
    for (int i = m->first; i < m->n; i += m->stride) {
        char key[16];
        snprintf(key, sizeof key, "g%d", i % 1000);
        slot *s = &m->slots[i];
        s->rc = groupconc_submit(m->ex, key, NULL, slot_fn, s, &s->h);
        if (s->rc == GROUPCONC_OK && groupconc_task_on_complete(s->h, slot_done, s) != GROUPCONC_OK)
            atomic_fetch_add(&s->bad, 1);
    }
}

static void test_50k_over_1000_groups(void **state) {
    (void)state;
    enum { N = 50000, T = 4 };
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 8;
    groupconc_executor *ex = tu_executor(&p);
    slot *slots = (slot *)calloc(N, sizeof *slots);
    assert_non_null(slots);
    for (int i = 0; i < N; i++) {
        atomic_init(&slots[i].ran, 0);
        atomic_init(&slots[i].completed, 0);
        atomic_init(&slots[i].bad, 0);
        slots[i].rc = -100;
    }
    tu_latch gate;
    tu_latch_init(&gate, 1);
    many_ctx m[T];
    tu_thread th[T];
    for (int t = 0; t < T; t++) {
        m[t] = (many_ctx){ex, slots, N, T, t, &gate};
        assert_true(tu_thread_start(&th[t], many_submitter, &m[t]));
    }
    tu_latch_open(&gate);
    for (int t = 0; t < T; t++) tu_thread_join(th[t]);

    for (int i = 0; i < N; i++) {
        assert_int_equal(slots[i].rc, GROUPCONC_OK);
        groupconc_result r = tu_wait(slots[i].h);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(r.value, &slots[i]);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 1000);
    assert_int_equal(xs.global_in_flight, 0);
    /* destroy joins the workers, so every callback that will ever run has run */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    for (int i = 0; i < N; i++) {
        assert_int_equal(atomic_load(&slots[i].ran), 1);
        assert_int_equal(atomic_load(&slots[i].completed), 1);
        assert_int_equal(atomic_load(&slots[i].bad), 0);
        assert_int_equal(groupconc_task_release(slots[i].h), GROUPCONC_OK);
    }
    tu_latch_destroy(&gate);
    free(slots);
}

/* ---- worker pool: max_threads, FIFO ready queue, idle retirement -------------------------------- */

static void test_ready_queue_fifo(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    groupconc_executor *ex = tu_executor(&p);
    enum { N = 6 };
    atomic_int order;
    atomic_init(&order, 0);
    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park parks[N];
    groupconc_task *h[N];
    char keys[N][16];
    for (int i = 0; i < N; i++) {
        /* own group each: only the thread cap holds them; one shard (FIFO across groups holds there) */
        tu_shard_key(keys[i], sizeof keys[i], "r", i);
        tu_park_init(&parks[i], &started, &order);
        h[i] = tu_submit(ex, keys[i], NULL, tu_park_fn, &parks[i]);
    }
    assert_true(tu_latch_wait(&started));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, 2);
    assert_int_equal(xs.ready, N - 2);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.threads, 2);
    assert_int_equal(tu_gstats(ex, keys[2]).ready, 1);
    assert_int_equal(tu_gstats(ex, keys[2]).running, 0);
    /* one at a time: each freed thread takes the oldest ready task */
    for (int i = 0; i < N - 2; i++) {
        tu_latch_add(&started, 1);
        tu_park_release(&parks[i]);
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_true(tu_latch_wait(&started));
        assert_int_equal(atomic_load(&parks[i + 2].start_seq), i + 2);
        assert_true(tu_xstats(ex).threads <= 2);
    }
    for (int i = 0; i < N; i++) tu_park_release(&parks[i]);
    for (int i = 0; i < N; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        if (i >= 2) assert_int_equal(atomic_load(&parks[i].start_seq), i);
        else assert_true(atomic_load(&parks[i].start_seq) < 2); /* the first two raced to start */
        groupconc_task_release(h[i]);
        tu_park_destroy(&parks[i]);
    }
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- a task may wait on a task submitted after it --------------------------------------------
   Workers take short tasks in batches. A task that blocks must not hold the rest of its worker's
   batch hostage: here X waits for Y, submitted right after it in a stream of short tasks, so that
   the same worker often takes both. Another worker must take Y over. */
typedef struct joiner {
    tu_latch published;               /* Y's handle is in `other` */
    _Atomic(groupconc_task *) other;
    _Atomic int status;               /* Y's status as X saw it, or -1 */
} joiner;

static int join_fn(groupconc_context *ctx, void **out_value, void *arg) {
    joiner *j = (joiner *)arg;
    groupconc_result r;
    (void)ctx;
    (void)out_value;
    if (!tu_latch_wait_for(&j->published, 5 * TU_SEC)) return -100;
    if (groupconc_task_wait_for(atomic_load(&j->other), 3 * TU_SEC, &r) != GROUPCONC_OK) return -101;
    atomic_store(&j->status, (int)r.status);
    return 0;
}

/* n fire-and-forget no-op tasks to group "g": a queue for workers to batch through */
static void submit_noops(groupconc_executor *ex, int n) {
    for (int i = 0; i < n; i++) assert_int_equal(groupconc_submit(ex, "g", NULL, tu_noop_fn, NULL, NULL), GROUPCONC_OK);
}

static void test_task_waits_on_later_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1000000; /* no effective cap: only the workers bound it */
    groupconc_executor *ex = tu_executor(&p);
    for (int round = 0; round < 40; round++) {
        joiner j;
        tu_latch_init(&j.published, 1);
        atomic_init(&j.other, NULL);
        atomic_init(&j.status, -1);
        submit_noops(ex, 300);
        groupconc_task *x = tu_submit(ex, "g", NULL, join_fn, &j);
        groupconc_task *y = tu_submit(ex, "g", NULL, tu_noop_fn, NULL);
        atomic_store(&j.other, y);
        tu_latch_open(&j.published);
        submit_noops(ex, 300);
        tu_wait_status(x, GROUPCONC_STATUS_SUCCESS); /* join_fn returns non-zero if Y never ran */
        assert_int_equal(atomic_load(&j.status), GROUPCONC_STATUS_SUCCESS);
        tu_wait_status(y, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(x);
        groupconc_task_release(y);
        tu_latch_destroy(&j.published);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- a task submitted while the busy worker is stuck still runs ------------------------------
   A worker runs short tasks, then X, which blocks until Z, submitted only after X started, has run.
   Z's submit may wake nobody (while one worker runs short tasks, the idle one naps and counts as
   watching the inbox): the napper must start Z itself, within its nap, not after X. */
typedef struct {
    tu_latch started, z_ran;
    int64_t z_submitted_ns, z_started_ns;
} stuck_pair;

static int stuck_fn(groupconc_context *ctx, void **out_value, void *arg) {
    stuck_pair *sp = (stuck_pair *)arg;
    (void)ctx;
    (void)out_value;
    tu_latch_open(&sp->started);
    return tu_latch_wait_for(&sp->z_ran, 5 * TU_SEC) ? 0 : -100;
}

static int z_fn(groupconc_context *ctx, void **out_value, void *arg) {
    stuck_pair *sp = (stuck_pair *)arg;
    (void)ctx;
    (void)out_value;
    sp->z_started_ns = tu_now_ns();
    tu_latch_open(&sp->z_ran);
    return 0;
}

static void test_task_submitted_while_worker_stuck(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.default_concurrency = 1000000;
    groupconc_executor *ex = tu_executor(&p);
    int64_t worst = 0;
    for (int round = 0; round < 20; round++) {
        stuck_pair sp;
        tu_latch_init(&sp.started, 1);
        tu_latch_init(&sp.z_ran, 1);
        submit_noops(ex, 300);
        groupconc_task *x = tu_submit(ex, "g", NULL, stuck_fn, &sp);
        assert_true(tu_latch_wait(&sp.started));
        sp.z_submitted_ns = tu_now_ns();
        assert_int_equal(groupconc_submit(ex, "g", NULL, z_fn, &sp, NULL), GROUPCONC_OK);
        tu_wait_status(x, GROUPCONC_STATUS_SUCCESS); /* stuck_fn fails if Z did not run */
        if (sp.z_started_ns - sp.z_submitted_ns > worst) worst = sp.z_started_ns - sp.z_submitted_ns;
        groupconc_task_release(x);
        tu_latch_destroy(&sp.started);
        tu_latch_destroy(&sp.z_ran);
    }
    /* a nap is 100 us; a loaded 2-core machine may add scheduling delays, not seconds */
    assert_true(worst < 2 * TU_SEC);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- no task is stranded in the inbox across idle gaps ---------------------------------------
   Short bursts with gaps of every length: no gap (workers busy), shorter than the spin, longer
   than it (workers asleep: a submit must wake one, or count on one already waking), and longer
   than keep_alive (workers retire: a submit must start one, or count on one starting). Each task
   signals a latch itself: waiting through the API would lock and help, and could rescue a task
   that no worker would ever look at. */
static void test_no_task_stranded_across_idle_gaps(void **state) {
    (void)state;
    static const int64_t gaps_ns[] = {0, 10000, 30000, 120000, 400000, 0, 2500000};
    static const int threads[] = {2, 3};
    for (int config = 0; config < 2; config++) {
        groupconc_policy p = groupconc_policy_default();
        p.max_threads = threads[config];
        p.default_concurrency = 1000000;
        p.keep_alive_ns = config == 0 ? 60 * TU_SEC : 2 * TU_MS;
        groupconc_executor *ex = tu_executor(&p);
        for (int round = 0; round < 700; round++) {
            tu_latch ran;
            int burst = 1 + round % 3;
            tu_latch_init(&ran, burst);
            for (int i = 0; i < burst; i++)
                assert_int_equal(groupconc_submit(ex, i % 2 ? "a" : "b", NULL, tu_count_down_fn, &ran, NULL),
                                 GROUPCONC_OK);
            /* a stranded task waits until the next submit or a keep_alive timeout: neither comes */
            if (!tu_latch_wait_for(&ran, 5 * TU_SEC))
                fail_msg("config %d round %d: %ld of %d tasks never ran", config, round,
                         tu_latch_count(&ran), burst);
            tu_latch_destroy(&ran);
            tu_sleep_ns(gaps_ns[(size_t)round % (sizeof gaps_ns / sizeof gaps_ns[0])]);
        }
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    }
}

/* ---- a finished task is not held up by a long task its worker runs next -----------------------
   With one worker, short tasks run in batches; E (short) and then L (parks until released) are
   submitted back to back so that they often share a batch. Waiting for E must return while L is
   still parked: the worker finishes E before it starts L when someone waits, or the waiter
   finishes it. */
static void test_done_task_not_held_by_next(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    p.default_concurrency = 1000000;
    groupconc_executor *ex = tu_executor(&p);
    for (int round = 0; round < 20; round++) {
        tu_latch started, first_started;
        tu_park park, first;
        tu_latch_init(&started, 1);
        tu_latch_init(&first_started, 1);
        tu_park_init(&park, &started, NULL);
        tu_park_init(&first, &first_started, NULL);
        /* the worker is held while the queue builds up, then runs it in growing batches */
        groupconc_task *f = tu_submit(ex, "g", NULL, tu_park_fn, &first);
        assert_true(tu_latch_wait(&first_started));
        submit_noops(ex, 300);
        groupconc_task *e = tu_submit(ex, "g", NULL, tu_noop_fn, NULL);
        groupconc_task *l = tu_submit(ex, "g", NULL, tu_park_fn, &park);
        submit_noops(ex, 30);
        tu_park_release(&first);
        tu_wait_status(f, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(f);
        tu_park_destroy(&first);
        tu_latch_destroy(&first_started);
        assert_true(tu_latch_wait(&started)); /* L is running: E returned before it */
        groupconc_result r;
        assert_int_equal(groupconc_task_wait_for(e, 5 * TU_SEC, &r), GROUPCONC_OK);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        tu_park_release(&park);
        tu_wait_status(l, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(e);
        groupconc_task_release(l);
        tu_park_destroy(&park);
        tu_latch_destroy(&started);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_idle_workers_retire(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 4;
    p.keep_alive_ns = TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    assert_int_equal(tu_xstats(ex).threads, 0); /* nothing started before the first submit */
    for (int round = 0; round < 3; round++) {
        tu_latch started;
        tu_latch_init(&started, 4);
        tu_park parks[4];
        groupconc_task *h[4];
        for (int i = 0; i < 4; i++) {
            char key[8];
            snprintf(key, sizeof key, "w%d", i);
            tu_park_init(&parks[i], &started, NULL);
            h[i] = tu_submit(ex, key, NULL, tu_park_fn, &parks[i]);
        }
        assert_true(tu_latch_wait(&started));
        assert_int_equal(tu_xstats(ex).threads, 4);
        for (int i = 0; i < 4; i++) tu_park_release(&parks[i]);
        for (int i = 0; i < 4; i++) {
            tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(h[i]);
            tu_park_destroy(&parks[i]);
        }
        tu_latch_destroy(&started);
        /* idle for longer than keep_alive: the pool shrinks to nothing (polled state, bounded) */
        int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
        groupconc_executor_stats xs = tu_xstats(ex);
        while (xs.threads > 0 && tu_now_ns() < deadline) {
            tu_sleep_ns(TU_MS);
            xs = tu_xstats(ex);
        }
        assert_int_equal(xs.threads, 0);
        assert_int_equal(xs.idle_threads, 0);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- bad input ---------------------------------------------------------------------------------- */

static void test_bad_input(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *t = NULL;
    char longkey[GROUPCONC_MAX_KEY_LEN + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0'; /* MAX_KEY_LEN + 1 bytes */
    char maxkey[GROUPCONC_MAX_KEY_LEN + 1];
    memset(maxkey, 'm', sizeof maxkey - 1);
    maxkey[sizeof maxkey - 1] = '\0'; /* exactly MAX_KEY_LEN bytes */

    assert_int_equal(groupconc_submit(NULL, "g", NULL, tu_noop_fn, NULL, &t), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_submit(ex, NULL, NULL, tu_noop_fn, NULL, &t), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_submit(ex, "g", NULL, NULL, NULL, &t), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_submit(ex, "", NULL, tu_noop_fn, NULL, &t), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_submit(ex, longkey, NULL, tu_noop_fn, NULL, &t), GROUPCONC_EKEYTOOLONG);
    assert_null(t);
    assert_int_equal(tu_xstats(ex).groups, 0); /* refused calls created no group */

    t = tu_submit(ex, maxkey, NULL, tu_noop_fn, NULL);
    groupconc_result r;
    bool done;
    groupconc_cancel_outcome oc;
    assert_int_equal(groupconc_task_wait(NULL, &r), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_wait_for(NULL, 0, &r), GROUPCONC_EINVAL);
    /* out_result NULL is refused, before any waiting */
    assert_int_equal(groupconc_task_wait(t, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_wait_for(t, 0, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_is_done(NULL, &done), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_is_done(t, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_cancel(NULL, &oc), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_on_complete(NULL, on_done, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_on_complete(t, NULL, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_task_release(NULL), GROUPCONC_EINVAL);
    r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_string_equal(r.group, maxkey);
    assert_null(r.task_id);
    assert_int_equal(groupconc_task_cancel(t, NULL), GROUPCONC_OK); /* out_outcome may be NULL */
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);

    /* fire-and-forget */
    atomic_int ran;
    atomic_init(&ran, 0);
    assert_int_equal(groupconc_submit(ex, "ff", NULL, tu_count_fn, &ran, NULL), GROUPCONC_OK);

    /* context accessors accept NULL */
    assert_false(groupconc_context_is_cancelled(NULL));
    assert_null(groupconc_context_group(NULL));
    assert_null(groupconc_context_task_id(NULL));
    assert_null(groupconc_context_executor(NULL));

    /* diagnostics never return NULL */
    assert_non_null(groupconc_strerror(GROUPCONC_EINVAL));
    assert_non_null(groupconc_strerror(12345));
    assert_non_null(groupconc_errname(-999));
    assert_string_equal(groupconc_errname(GROUPCONC_EREJECTED_BULKHEAD), "GROUPCONC_EREJECTED_BULKHEAD");
    assert_string_equal(groupconc_version(), GROUPCONC_VERSION_STRING);
    assert_non_null(groupconc_status_name(GROUPCONC_STATUS_REJECTED));

    /* the fire-and-forget task ran (graceful: destroy alone would cancel it if not started yet) */
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(NULL), GROUPCONC_EINVAL);
}

/* ---- the context a task sees -------------------------------------------------------------------- */

typedef struct ctx_seen {
    char group[32];
    char task_id[32];
    bool id_null;
    groupconc_executor *ex;
    bool cancelled;
} ctx_seen;

static int ctx_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)out_value;
    ctx_seen *c = (ctx_seen *)user_data;
    const char *g = groupconc_context_group(ctx);
    const char *id = groupconc_context_task_id(ctx);
    snprintf(c->group, sizeof c->group, "%s", g ? g : "(null)");
    c->id_null = id == NULL;
    snprintf(c->task_id, sizeof c->task_id, "%s", id ? id : "");
    c->ex = groupconc_context_executor(ctx);
    c->cancelled = groupconc_context_is_cancelled(ctx);
    return 0;
}

static void test_context_accessors(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    ctx_seen a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    char id[16] = "job-7";
    groupconc_task *ha = tu_submit(ex, "ctx-group", id, ctx_fn, &a);
    strcpy(id, "XXXXX"); /* the id was copied */
    groupconc_task *hb = tu_submit(ex, "ctx-group", NULL, ctx_fn, &b);
    groupconc_result r = tu_wait(ha);
    assert_string_equal(r.task_id, "job-7");
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_string_equal(a.group, "ctx-group");
    assert_string_equal(a.task_id, "job-7");
    assert_false(a.id_null);
    assert_true(b.id_null);
    assert_ptr_equal(a.ex, ex);
    assert_false(a.cancelled);
    groupconc_task_release(ha);
    groupconc_task_release(hb);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- task nodes: a cache per submitting thread -------------------------------------------------- */
/* Recycled nodes sit in a cache per submitting thread and executor, found through a thread-local
   memo (groupconc.h, "task nodes"). What must hold: an executor destroyed and another made (maybe
   at the same address) never sees the first one's cache; one thread alternating between two
   executors keeps each one's nodes apart; more submitting threads than an executor has caches for
   (64) still submit. Every task runs once; ASan and valgrind check the memory. */
enum { CACHE_THREADS = 80, CACHE_PER_THREAD = 50, CACHE_ROUNDS = 3000 };
typedef struct cache_submitter {
    groupconc_executor *ex;
    atomic_int *ran;
    atomic_int rc;
} cache_submitter;

static void cache_submit_main(void *arg) {
    cache_submitter *c = arg;
    for (int i = 0; i < CACHE_PER_THREAD; i++) {
        int rc = groupconc_submit(c->ex, i % 2 ? "a" : "b", NULL, tu_count_fn, c->ran, NULL);
        if (rc != GROUPCONC_OK) atomic_store(&c->rc, rc);
    }
}

static void test_node_caches_per_thread(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    atomic_int ran;
    atomic_init(&ran, 0);
    for (int round = 0; round < 3; round++) { /* made and destroyed: a stale memo must not match */
        groupconc_executor *ex = tu_executor(&p);
        for (int i = 0; i < CACHE_ROUNDS; i++)
            assert_int_equal(groupconc_submit(ex, "g", NULL, tu_count_fn, &ran, NULL), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    }
    assert_int_equal(atomic_load(&ran), 3 * CACHE_ROUNDS);
    groupconc_executor *x = tu_executor(&p), *y = tu_executor(&p);
    atomic_int ran_x, ran_y;
    atomic_init(&ran_x, 0);
    atomic_init(&ran_y, 0);
    for (int i = 0; i < CACHE_ROUNDS; i++) { /* one thread, two executors in turn */
        assert_int_equal(groupconc_submit(x, "g", NULL, tu_count_fn, &ran_x, NULL), GROUPCONC_OK);
        assert_int_equal(groupconc_submit(y, "g", NULL, tu_count_fn, &ran_y, NULL), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_shutdown_graceful(x, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(x), GROUPCONC_OK); /* y's nodes are not x's */
    for (int i = 0; i < CACHE_ROUNDS; i++)
        assert_int_equal(groupconc_submit(y, "g", NULL, tu_count_fn, &ran_y, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(y, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran_x), CACHE_ROUNDS);
    assert_int_equal(atomic_load(&ran_y), 2 * CACHE_ROUNDS);
    assert_int_equal(groupconc_executor_destroy(y), GROUPCONC_OK);
    /* more submitting threads than caches: the ones past 64 allocate their nodes */
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran_t;
    atomic_init(&ran_t, 0);
    cache_submitter *c = calloc(CACHE_THREADS, sizeof *c);
    tu_thread *th = calloc(CACHE_THREADS, sizeof *th);
    assert_non_null(c);
    assert_non_null(th);
    for (int i = 0; i < CACHE_THREADS; i++) {
        c[i].ex = ex;
        c[i].ran = &ran_t;
        atomic_init(&c[i].rc, GROUPCONC_OK);
        assert_true(tu_thread_start(&th[i], cache_submit_main, &c[i]));
    }
    for (int i = 0; i < CACHE_THREADS; i++) {
        tu_thread_join(th[i]);
        assert_int_equal(atomic_load(&c[i].rc), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran_t), CACHE_THREADS * CACHE_PER_THREAD);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    free(c);
    free(th);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_cap_never_exceeded),
        cmocka_unit_test(test_groups_run_in_parallel),
        cmocka_unit_test(test_execute_all_mixed),
        cmocka_unit_test(test_execute_all_deadline),
        cmocka_unit_test(test_execute_all_bad_input),
        cmocka_unit_test(test_fifo_within_group),
        cmocka_unit_test(test_timed_wait),
        cmocka_unit_test(test_completion_callback_once),
        cmocka_unit_test(test_callback_may_wait_for_next_task),
        cmocka_unit_test(test_handle_valid_after_destroy),
        cmocka_unit_test(test_100k_waiting_in_one_group),
        cmocka_unit_test(test_50k_over_1000_groups),
        cmocka_unit_test(test_ready_queue_fifo),
        cmocka_unit_test(test_task_waits_on_later_task),
        cmocka_unit_test(test_task_submitted_while_worker_stuck),
        cmocka_unit_test(test_no_task_stranded_across_idle_gaps),
        cmocka_unit_test(test_done_task_not_held_by_next),
        cmocka_unit_test(test_idle_workers_retire),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_context_accessors),
        cmocka_unit_test(test_node_caches_per_thread),
    };
    return TU_RUN_TESTS(tests);
}
