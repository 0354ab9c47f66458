/* test_cancel.c - cancelling tasks: waiting (dequeued at each layer and in the ready queue),
   running (cooperative flag), finished (too late), concurrent cancels of one handle. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

typedef struct cb_count {
    atomic_int calls;
    atomic_int last_status;
} cb_count;

static void count_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    cb_count *c = (cb_count *)user_data;
    atomic_store(&c->last_status, (int)result->status);
    atomic_fetch_add(&c->calls, 1);
}

/* One parked blocker in `group`, started. */
typedef struct blocker {
    tu_latch started;
    tu_park park;
    groupconc_task *h;
} blocker;

static void blocker_start(blocker *b, groupconc_executor *ex, const char *group, atomic_int *order) {
    tu_latch_init(&b->started, 1);
    tu_park_init(&b->park, &b->started, order);
    b->h = tu_submit(ex, group, "blocker", tu_park_fn, &b->park);
    assert_true(tu_latch_wait(&b->started));
}

static void blocker_finish(blocker *b) {
    tu_park_release(&b->park);
    tu_wait_status(b->h, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(b->h), GROUPCONC_OK);
    tu_park_destroy(&b->park);
    tu_latch_destroy(&b->started);
}

/* ---- waiting task ------------------------------------------------------------------------------- */

static void test_cancel_waiting_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int order;
    atomic_init(&order, 0);
    blocker b;
    blocker_start(&b, ex, "c", &order);

    atomic_int v_ran;
    atomic_init(&v_ran, 0);
    groupconc_task *v = tu_submit(ex, "c", "victim", tu_count_fn, &v_ran);
    tu_latch next_started;
    tu_latch_init(&next_started, 1);
    tu_park next;
    tu_park_init(&next, &next_started, &order);
    groupconc_task *n = tu_submit(ex, "c", "next", tu_park_fn, &next);
    cb_count cb;
    atomic_init(&cb.calls, 0);
    atomic_init(&cb.last_status, -1);
    assert_int_equal(groupconc_task_on_complete(v, count_cb, &cb), GROUPCONC_OK);

    groupconc_group_stats s = tu_gstats(ex, "c");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_concurrency, 2);
    assert_int_equal(s.in_flight, 3);
    assert_int_equal(tu_xstats(ex).global_in_flight, 3);

    groupconc_cancel_outcome oc = GROUPCONC_CANCEL_TOO_LATE;
    assert_int_equal(groupconc_task_cancel(v, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);

    /* done at once, CANCELLED, its permits returned */
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(v, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_string_equal(r.task_id, "victim");
    s = tu_gstats(ex, "c");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.cancelled, 1);
    assert_int_equal(tu_xstats(ex).global_in_flight, 2);
    assert_int_equal(atomic_load(&next.ran), 0);

    /* a second cancel changes nothing */
    assert_int_equal(groupconc_task_cancel(v, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_TOO_LATE);

    /* the next waiter starts when the blocker ends */
    tu_park_release(&b.park);
    assert_true(tu_latch_wait(&next_started));
    assert_int_equal(atomic_load(&next.start_seq), 1);
    tu_park_release(&next);
    tu_wait_status(n, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(b.h, GROUPCONC_STATUS_SUCCESS);

    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&v_ran), 0); /* never ran */
    assert_int_equal(atomic_load(&cb.calls), 1);
    assert_int_equal(atomic_load(&cb.last_status), GROUPCONC_STATUS_CANCELLED);
    groupconc_task_release(v);
    groupconc_task_release(n);
    groupconc_task_release(b.h);
    tu_park_destroy(&next);
    tu_park_destroy(&b.park);
    tu_latch_destroy(&next_started);
    tu_latch_destroy(&b.started);
}

/* Waiting for a global permit and at the bulkhead: dequeued, the layers' counts drop. */
static void test_cancel_waiting_at_each_layer(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"bh", 4, 1, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 3;
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);

    blocker b1, b2;
    blocker_start(&b1, ex, "bh", NULL);  /* holds the bulkhead permit of "bh" and a global one */
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *at_bh = tu_submit(ex, "bh", "at_bh", tu_count_fn, &ran); /* waits at the bulkhead */
    groupconc_group_stats s = tu_gstats(ex, "bh");
    assert_int_equal(s.waiting_bulkhead, 1);
    assert_int_equal(s.in_flight, 1);
    blocker_start(&b2, ex, "other", NULL); /* the global cap (3) is now full */
    groupconc_task *at_gl = tu_submit(ex, "third", "at_gl", tu_count_fn, &ran); /* waits at the global cap */
    assert_int_equal(tu_gstats(ex, "third").waiting_global, 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting, 2);
    assert_int_equal(xs.global_in_flight, 3); /* b1, at_bh (past the global cap), b2 */

    groupconc_cancel_outcome oc;
    assert_int_equal(groupconc_task_cancel(at_gl, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);
    tu_wait_status(at_gl, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(tu_gstats(ex, "third").waiting_global, 0);
    assert_int_equal(tu_xstats(ex).global_in_flight, 3); /* it held no global permit */

    assert_int_equal(groupconc_task_cancel(at_bh, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);
    tu_wait_status(at_bh, GROUPCONC_STATUS_CANCELLED);
    s = tu_gstats(ex, "bh");
    assert_int_equal(s.waiting_bulkhead, 0);
    assert_int_equal(s.in_flight, 1);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 2); /* its global permit came back */
    assert_int_equal(xs.waiting, 0);

    blocker_finish(&b1);
    blocker_finish(&b2);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
    groupconc_task_release(at_gl);
    groupconc_task_release(at_bh);
}

/* Cancelling a task waiting at concurrency hands its bulkhead permit to the bulkhead's waiter. */
static void test_cancel_hands_permit_on(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"x", 1, 2, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    blocker b;
    blocker_start(&b, ex, "x", NULL);
    atomic_int ran_v, ran_w;
    atomic_init(&ran_v, 0);
    atomic_init(&ran_w, 0);
    groupconc_task *v = tu_submit(ex, "x", "v", tu_count_fn, &ran_v); /* concurrency */
    groupconc_task *w = tu_submit(ex, "x", "w", tu_count_fn, &ran_w); /* bulkhead */
    groupconc_group_stats s = tu_gstats(ex, "x");
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.waiting_bulkhead, 1);
    assert_int_equal(s.in_flight, 2);

    groupconc_cancel_outcome oc;
    assert_int_equal(groupconc_task_cancel(v, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);
    s = tu_gstats(ex, "x");
    assert_int_equal(s.waiting_concurrency, 1); /* w moved up */
    assert_int_equal(s.waiting_bulkhead, 0);
    assert_int_equal(s.in_flight, 2);

    blocker_finish(&b);
    tu_wait_status(w, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(v, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(atomic_load(&ran_w), 1);
    assert_int_equal(atomic_load(&ran_v), 0);
    s = tu_gstats(ex, "x");
    assert_int_equal(s.in_flight, 0);
    groupconc_task_release(v);
    groupconc_task_release(w);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A task holding all permits but waiting for a worker thread is dequeued too. */
static void test_cancel_ready_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 1;
    groupconc_executor *ex = tu_executor(&p);
    blocker b;
    blocker_start(&b, ex, "a", NULL); /* takes the only worker */
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = tu_submit(ex, "b", "ready", tu_count_fn, &ran);
    groupconc_group_stats s = tu_gstats(ex, "b");
    assert_int_equal(s.ready, 1);
    assert_int_equal(s.running, 0);
    assert_int_equal(tu_xstats(ex).ready, 1);

    groupconc_cancel_outcome oc;
    assert_int_equal(groupconc_task_cancel(t, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);
    tu_wait_status(t, GROUPCONC_STATUS_CANCELLED);
    s = tu_gstats(ex, "b");
    assert_int_equal(s.ready, 0);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(tu_xstats(ex).global_in_flight, 1);

    blocker_finish(&b);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
    groupconc_task_release(t);
}

/* ---- running task ------------------------------------------------------------------------------- */

static void test_cancel_running_cooperative(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    park.cooperative = true;
    groupconc_task *h = tu_submit(ex, "run", NULL, tu_park_fn, &park);
    assert_true(tu_latch_wait(&started));
    assert_false(atomic_load(&park.saw_cancel));

    groupconc_cancel_outcome oc = GROUPCONC_CANCEL_TOO_LATE;
    assert_int_equal(groupconc_task_cancel(h, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_FLAGGED);
    /* the go latch is never opened: only the flag can end the task */
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_true(atomic_load(&park.saw_cancel));
    assert_false(atomic_load(&park.timed_out));
    assert_true(r.start_ns <= r.end_ns);
    assert_int_equal(tu_gstats(ex, "run").cancelled, 1);

    groupconc_task_release(h);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A flagged task that finishes anyway reports what it returned. */
static void test_cancel_running_result_is_what_it_returns(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park ok, bad;
    tu_park_init(&ok, &started, NULL);
    tu_park_init(&bad, &started, NULL);
    bad.ret = -4242;
    groupconc_task *h_ok = tu_submit(ex, "r1", NULL, tu_park_fn, &ok);
    groupconc_task *h_bad = tu_submit(ex, "r2", NULL, tu_park_fn, &bad);
    assert_true(tu_latch_wait(&started));
    groupconc_cancel_outcome oc;
    assert_int_equal(groupconc_task_cancel(h_ok, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_FLAGGED);
    assert_int_equal(groupconc_task_cancel(h_bad, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_FLAGGED);
    tu_park_release(&ok);
    tu_park_release(&bad);
    groupconc_result r = tu_wait(h_ok);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &ok);
    assert_true(atomic_load(&ok.saw_cancel)); /* the flag was visible to the task */
    r = tu_wait(h_bad);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, -4242);
    groupconc_task_release(h_ok);
    groupconc_task_release(h_bad);
    tu_park_destroy(&ok);
    tu_park_destroy(&bad);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- finished task ------------------------------------------------------------------------------ */

static void test_cancel_finished_too_late(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *h = tu_submit(ex, "f", NULL, tu_count_fn, &ran);
    tu_wait_status(h, GROUPCONC_STATUS_SUCCESS);
    groupconc_cancel_outcome oc = GROUPCONC_CANCEL_DEQUEUED;
    assert_int_equal(groupconc_task_cancel(h, &oc), GROUPCONC_OK);
    assert_int_equal(oc, GROUPCONC_CANCEL_TOO_LATE);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS); /* unaffected */
    assert_int_equal(r.error, 0);
    assert_int_equal(tu_gstats(ex, "f").cancelled, 0);
    assert_int_equal(groupconc_task_cancel(NULL, &oc), GROUPCONC_EINVAL);
    groupconc_task_release(h);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- concurrent cancels of one waiting handle: exactly one dequeues it ---------------------------- */

typedef struct canceller {
    groupconc_task *t;
    tu_latch *gate;
    int rc;
    groupconc_cancel_outcome oc;
} canceller;

static void canceller_main(void *arg) {
    canceller *c = (canceller *)arg;
    tu_latch_wait(c->gate);
    c->rc = groupconc_task_cancel(c->t, &c->oc);
}

static void test_concurrent_cancel_once(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    blocker b;
    blocker_start(&b, ex, "cc", NULL);
    enum { ROUNDS = 20, T = 6 };
    for (int round = 0; round < ROUNDS; round++) {
        atomic_int ran;
        atomic_init(&ran, 0);
        groupconc_task *t = tu_submit(ex, "cc", NULL, tu_count_fn, &ran);
        tu_latch gate;
        tu_latch_init(&gate, 1);
        canceller c[T];
        tu_thread th[T];
        for (int i = 0; i < T; i++) {
            c[i] = (canceller){t, &gate, -100, GROUPCONC_CANCEL_FLAGGED};
            assert_true(tu_thread_start(&th[i], canceller_main, &c[i]));
        }
        tu_latch_open(&gate);
        for (int i = 0; i < T; i++) tu_thread_join(th[i]);
        int dequeued = 0, too_late = 0;
        for (int i = 0; i < T; i++) {
            assert_int_equal(c[i].rc, GROUPCONC_OK);
            if (c[i].oc == GROUPCONC_CANCEL_DEQUEUED) dequeued++;
            if (c[i].oc == GROUPCONC_CANCEL_TOO_LATE) too_late++;
        }
        assert_int_equal(dequeued, 1);
        assert_int_equal(too_late, T - 1);
        tu_wait_status(t, GROUPCONC_STATUS_CANCELLED);
        groupconc_task_release(t);
        tu_latch_destroy(&gate);
        assert_int_equal(atomic_load(&ran), 0);
    }
    groupconc_group_stats s = tu_gstats(ex, "cc");
    assert_int_equal(s.cancelled, ROUNDS);
    assert_int_equal(s.waiting_concurrency, 0);
    assert_int_equal(s.in_flight, 1);
    blocker_finish(&b);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_waiting_task),
        cmocka_unit_test(test_cancel_waiting_at_each_layer),
        cmocka_unit_test(test_cancel_hands_permit_on),
        cmocka_unit_test(test_cancel_ready_task),
        cmocka_unit_test(test_cancel_running_cooperative),
        cmocka_unit_test(test_cancel_running_result_is_what_it_returns),
        cmocka_unit_test(test_cancel_finished_too_late),
        cmocka_unit_test(test_concurrent_cancel_once),
    };
    return TU_RUN_TESTS(tests);
}
