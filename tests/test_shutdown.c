/* test_shutdown.c - executor shutdown: refusing new work, idempotence, the immediate form
   (cancel queued and ready tasks, flag running ones), the graceful form (finish, or time out and
   cancel what is left), and, in rounds, that a graceful shutdown's wait is woken by the last task's
   retire with tasks in every shard. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

static void test_submit_after_shutdown(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *t = tu_submit(ex, "g", NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(t);

    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    atomic_int ran;
    atomic_init(&ran, 0);
    t = NULL;
    assert_int_equal(groupconc_submit(ex, "g", NULL, tu_count_fn, &ran, &t), GROUPCONC_ESHUTDOWN);
    assert_null(t);
    assert_int_equal(groupconc_submit(ex, "new", NULL, tu_count_fn, &ran, NULL), GROUPCONC_ESHUTDOWN);

    /* execute_all reports each task as refused for that reason */
    groupconc_task_spec specs[2] = {{"g", "x", tu_count_fn, &ran, NULL, 0}, {"h", "y", tu_count_fn, &ran, NULL, 0}};
    groupconc_result res[2];
    assert_int_equal(groupconc_execute_all(ex, specs, 2, GROUPCONC_FOREVER, res), GROUPCONC_ESHUTDOWN);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(res[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res[i].reason, GROUPCONC_ESHUTDOWN);
    }

    /* stats still report the groups as they are */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_true(xs.shutdown);
    assert_int_equal(xs.groups, 1);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.completed, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
}

static void test_shutdown_idempotent(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, 10 * TU_MS), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    assert_true(tu_xstats(ex).shutdown);
    assert_int_equal(groupconc_submit(ex, "g", NULL, tu_noop_fn, NULL, NULL), GROUPCONC_ESHUTDOWN);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    /* graceful first, then immediate */
    ex = tu_executor(&p);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    assert_int_equal(groupconc_executor_shutdown(NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_shutdown_graceful(NULL, 0), GROUPCONC_EINVAL);
}

/* Immediate shutdown: queued (at a layer) and ready (no thread yet) tasks are cancelled and never
   run; running tasks are flagged. */
static void test_shutdown_immediate(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park pa, pb;
    tu_park_init(&pa, &started, NULL);
    tu_park_init(&pb, &started, NULL);
    pa.cooperative = true; /* stops when flagged */
    groupconc_task *ha = tu_submit(ex, "A", NULL, tu_park_fn, &pa);
    groupconc_task *hb = tu_submit(ex, "B", NULL, tu_park_fn, &pb); /* ignores its flag */
    assert_true(tu_latch_wait(&started));
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *ready = tu_submit(ex, "C", NULL, tu_count_fn, &ran);  /* no thread free */
    groupconc_task *queued = tu_submit(ex, "A", NULL, tu_count_fn, &ran); /* waits at concurrency */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, 2);
    assert_int_equal(xs.ready, 1);
    assert_int_equal(xs.waiting, 1);

    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(ready, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(groupconc_task_wait_for(queued, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    r = tu_wait(ha);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_true(atomic_load(&pa.saw_cancel));
    /* B is flagged but finishes the way it wants */
    tu_park_release(&pb);
    r = tu_wait(hb);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_true(atomic_load(&pb.saw_cancel));
    xs = tu_xstats(ex);
    assert_true(xs.shutdown);
    assert_int_equal(xs.running, 0);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
    groupconc_task *all[] = {ha, hb, ready, queued};
    for (int i = 0; i < 4; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&pa);
    tu_park_destroy(&pb);
    tu_latch_destroy(&started);
}

/* ---- graceful ----------------------------------------------------------------------------------- */

typedef struct opener {
    groupconc_executor *ex;
    tu_park *park;
    atomic_bool saw_shutdown;
} opener;

/* Waits until the executor reports shutdown (a state, polled), then lets the blocker finish. */
static void opener_main(void *arg) {
    opener *o = (opener *)arg;
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    while (tu_now_ns() < deadline) {
        groupconc_executor_stats xs;
        if (groupconc_executor_stats_get(o->ex, &xs) == GROUPCONC_OK && xs.shutdown) {
            atomic_store(&o->saw_shutdown, true);
            break;
        }
        tu_sleep_ns(TU_MS);
    }
    tu_park_release(o->park);
}

static void test_shutdown_graceful_finishes(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "g", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    enum { N = 20 };
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) h[i] = tu_submit(ex, (i % 2) ? "g" : "h", NULL, tu_count_fn, &ran);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, N / 2); /* queued when graceful starts */

    opener o = {ex, &blocker, false};
    atomic_init(&o.saw_shutdown, false);
    tu_thread th;
    assert_true(tu_thread_start(&th, opener_main, &o));
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    tu_thread_join(th);
    assert_true(atomic_load(&o.saw_shutdown));
    /* every task finished normally */
    assert_int_equal(atomic_load(&ran), N);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    for (int i = 0; i < N; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(groupconc_submit(ex, "g", NULL, tu_noop_fn, NULL, NULL), GROUPCONC_ESHUTDOWN);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.running, 0);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_shutdown_graceful_with_timeout_finishes(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    for (int i = 0; i < 50; i++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", i % 5);
        assert_int_equal(groupconc_submit(ex, key, NULL, tu_count_fn, &ran, NULL), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 50);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_shutdown_graceful_times_out(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    blocker.cooperative = true; /* never released: ends only when flagged */
    groupconc_task *hb = tu_submit(ex, "slow", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *q[3];
    for (int i = 0; i < 3; i++) q[i] = tu_submit(ex, "slow", NULL, tu_count_fn, &ran);
    groupconc_task *fast = tu_submit(ex, "fast", NULL, tu_count_fn, &ran);
    tu_wait_status(fast, GROUPCONC_STATUS_SUCCESS); /* other groups are not held up */

    int64_t t0 = tu_now_ns();
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, 50 * TU_MS), GROUPCONC_ETIMEDOUT);
    int64_t took = tu_now_ns() - t0;
    assert_true(took >= 25 * TU_MS);
    assert_true(took < TU_TIMEOUT_NS);

    for (int i = 0; i < 3; i++) {
        groupconc_result r = tu_wait(q[i]);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    }
    groupconc_result r = tu_wait(hb);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED); /* flagged, returned ECANCELLED */
    assert_true(atomic_load(&blocker.saw_cancel));
    assert_false(atomic_load(&blocker.timed_out));
    assert_true(tu_xstats(ex).shutdown);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 1); /* only "fast" ran */
    for (int i = 0; i < 3; i++) groupconc_task_release(q[i]);
    groupconc_task_release(fast);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
}

/* With a group paused, a graceful shutdown gives up only on what a pause holds back: not on a task
   that is still on its way out of the library in no queue (its COMPLETED listener running, mode 0)
   or running under CALLER_RUNS inside its submit (mode 1). Before the fix it returned ETIMEDOUT at
   once there, nothing cancelled (and destroy spun until the task retired). Found by a hunt. */
typedef struct hold_listener {
    tu_latch in, go;
} hold_listener;

static void hold_listener_fn(const groupconc_event *e, void *ud) {
    hold_listener *h = (hold_listener *)ud;
    if (e->type == GROUPCONC_EVENT_COMPLETED && e->task_id && strcmp(e->task_id, "hold") == 0) {
        tu_latch_count_down(&h->in);
        (void)tu_latch_wait(&h->go);
    }
}

typedef struct submit_call {
    groupconc_executor *ex;
    tu_park *park;
    groupconc_task *t;
    int rc;
} submit_call;

static void submit_call_main(void *p) {
    submit_call *c = (submit_call *)p;
    c->rc = groupconc_submit(c->ex, "a", "refused", tu_park_fn, c->park, &c->t);
}

static void test_shutdown_graceful_paused_waits_for_unlisted(void **state) {
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        hold_listener h;
        tu_latch_init(&h.in, 1);
        tu_latch_init(&h.go, 1);
        groupconc_policy p = groupconc_policy_default();
        if (mode == 0) {
            p.listener = hold_listener_fn;
            p.listener_user_data = &h;
        } else {
            p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
            p.default_concurrency = 1;
            p.default_queue_threshold = 0; /* the second task of "a" is refused while one runs */
        }
        groupconc_executor *ex = tu_executor(&p);
        groupconc_task *t;
        tu_latch started1, started2;
        tu_latch_init(&started1, 1);
        tu_latch_init(&started2, 1);
        tu_park first, second;
        tu_park_init(&first, &started1, NULL);
        tu_park_init(&second, &started2, NULL);
        submit_call sc = {ex, &second, NULL, -1};
        tu_thread submitter;
        if (mode == 0) {
            t = tu_submit(ex, "a", "hold", tu_noop_fn, NULL);
            assert_true(tu_latch_wait(&h.in)); /* finished, its listener holds it in no queue */
        } else {
            t = tu_submit(ex, "a", "first", tu_park_fn, &first);
            assert_true(tu_latch_wait(&started1));
            assert_true(tu_thread_start(&submitter, submit_call_main, &sc));
            assert_true(tu_latch_wait(&started2)); /* refused, running inside its submit */
            tu_latch_open(&first.go);
            tu_wait_status(t, GROUPCONC_STATUS_SUCCESS); /* nothing runs on a worker now */
        }
        assert_int_equal(groupconc_group_pause(ex, "b"), GROUPCONC_OK); /* a pause elsewhere */
        tu_graceful g;
        tu_graceful_start(&g, ex);
        assert_false(tu_latch_wait_for(&g.done, 200 * TU_MS)); /* it waits */
        if (mode == 0) {
            tu_latch_open(&h.go);
        } else {
            tu_latch_open(&second.go);
            tu_thread_join(submitter);
            assert_int_equal(sc.rc, GROUPCONC_OK);
        }
        assert_true(tu_latch_wait(&g.done));
        assert_int_equal(tu_graceful_join(&g), GROUPCONC_OK); /* every task finished */
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.cancelled, 0);
        if (mode == 1) {
            assert_int_equal(tu_wait(sc.t).status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(groupconc_task_release(sc.t), GROUPCONC_OK);
        }
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
        tu_park_destroy(&first);
        tu_park_destroy(&second);
        tu_latch_destroy(&started1);
        tu_latch_destroy(&started2);
        tu_latch_destroy(&h.in);
        tu_latch_destroy(&h.go);
    }
}

/* A task running under CALLER_RUNS inside its submit (refused: its group's queue threshold is 0) is
   a running task too: a shutdown flags it, as it flags those on workers. Before, no list held it
   and a polling body never saw the flag. Found by a hunt. */
static void test_shutdown_flags_a_caller_run(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    p.default_concurrency = 1;
    p.default_queue_threshold = 0;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started1, started2;
    tu_latch_init(&started1, 1);
    tu_latch_init(&started2, 1);
    tu_park first, second;
    tu_park_init(&first, &started1, NULL);
    tu_park_init(&second, &started2, NULL);
    first.cooperative = second.cooperative = true; /* end when flagged */
    groupconc_task *t = tu_submit(ex, "a", "first", tu_park_fn, &first);
    assert_true(tu_latch_wait(&started1));
    submit_call sc = {ex, &second, NULL, -1};
    tu_thread submitter;
    assert_true(tu_thread_start(&submitter, submit_call_main, &sc));
    assert_true(tu_latch_wait(&started2)); /* refused, running inside its submit */
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    tu_thread_join(submitter);
    assert_int_equal(sc.rc, GROUPCONC_OK);
    assert_true(atomic_load(&second.saw_cancel));
    assert_false(atomic_load(&second.timed_out));
    assert_int_equal(tu_wait(sc.t).status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(tu_wait(t).status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(sc.t), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    tu_park_destroy(&first);
    tu_park_destroy(&second);
    tu_latch_destroy(&started1);
    tu_latch_destroy(&started2);
}

/* A group shutdown (or an executor shutdown) that comes during the REJECTED event of a task refused
   inside its submit under CALLER_RUNS, before its run: the task has not started, so it is
   cancelled and never runs. Before, it was listed only once it ran, and ran unflagged. Found by a
   review. */
typedef struct reject_shut {
    groupconc_executor *ex;
    int mode;                     /* 0: group shutdown, 1: executor shutdown */
    atomic_int ran;
} reject_shut;

static void reject_shut_listener(const groupconc_event *e, void *ud) {
    reject_shut *rs = (reject_shut *)ud;
    if (e->type == GROUPCONC_EVENT_REJECTED && e->task_id && strcmp(e->task_id, "refused") == 0) {
        if (rs->mode == 0) assert_int_equal(groupconc_group_shutdown(rs->ex, "a"), GROUPCONC_OK);
        else assert_int_equal(groupconc_executor_shutdown(rs->ex), GROUPCONC_OK);
    }
}

static int reject_shut_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add(&((reject_shut *)arg)->ran, 1);
    return 0;
}

static void test_shutdown_during_a_refusal_in_submit(void **state) {
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        reject_shut rs;
        memset(&rs, 0, sizeof rs);
        rs.mode = mode;
        groupconc_policy p = groupconc_policy_default();
        p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        p.default_concurrency = 1;
        p.default_queue_threshold = 0;
        p.listener = reject_shut_listener;
        p.listener_user_data = &rs;
        groupconc_executor *ex = tu_executor(&p);
        rs.ex = ex;
        tu_latch started;
        tu_latch_init(&started, 1);
        tu_park first;
        tu_park_init(&first, &started, NULL);
        first.cooperative = true;
        groupconc_task *t1 = tu_submit(ex, "a", "first", tu_park_fn, &first);
        assert_true(tu_latch_wait(&started));
        groupconc_task *t2 = NULL;
        assert_int_equal(groupconc_submit(ex, "a", "refused", reject_shut_fn, &rs, &t2), GROUPCONC_OK);
        assert_non_null(t2);
        groupconc_result r = tu_wait(t2);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(atomic_load(&rs.ran), 0);
        assert_int_equal(tu_wait(t1).status, GROUPCONC_STATUS_CANCELLED); /* flagged, it gave up */
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.caller_runs, 0);
        assert_int_equal(xs.cancelled, 2);
        assert_int_equal(xs.completed, xs.submitted);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(t1), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(t2), GROUPCONC_OK);
        tu_park_destroy(&first);
        tu_latch_destroy(&started);
    }
}

/* destroy without a prior shutdown: queued tasks are cancelled, running ones flagged and awaited */
static void test_destroy_shuts_down(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    blocker.cooperative = true;
    groupconc_task *hb = tu_submit(ex, "d", NULL, tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    atomic_int ran;
    atomic_init(&ran, 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(groupconc_submit(ex, "d", NULL, tu_count_fn, &ran, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(hb, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
}

/* Graceful shutdown's wait is not lost across shards (at more than one shard `unfinished` is an
   atomic, and idle_cv's mutex the pool's lock: the retirer that takes it to 0 broadcasts under
   that lock): rounds of a graceful shutdown that begins while one task is parked and 48 more of
   as many keys (every shard at 16) are queued or running; the park is let go of once the call
   began, so the last retire, on a worker, wakes the waiter. Each call must return OK within 5 s
   having run every task (a lost broadcast would leave it waiting for ever). */
static void test_shutdown_graceful_rounds_across_shards(void **state) {
    (void)state;
    enum { ROUNDS = 30, G = 48 };
    for (int round = 0; round < ROUNDS; round++) {
        groupconc_policy p = groupconc_policy_default();
        p.max_threads = 4;
        groupconc_executor *ex = tu_executor(&p);
        tu_latch started;
        tu_latch_init(&started, 1);
        tu_park park;
        tu_park_init(&park, &started, NULL);
        assert_int_equal(groupconc_submit(ex, "park", NULL, tu_park_fn, &park, NULL), GROUPCONC_OK);
        assert_true(tu_latch_wait(&started));
        atomic_int ran;
        atomic_init(&ran, 0);
        for (int i = 0; i < G; i++) {
            char key[16];
            snprintf(key, sizeof key, "gs%d", i);
            assert_int_equal(groupconc_submit(ex, key, NULL, tu_count_fn, &ran, NULL), GROUPCONC_OK);
        }
        tu_graceful g;
        tu_graceful_start(&g, ex);
        assert_true(tu_latch_wait(&g.begun));
        if (round & 1) tu_spin(1000u * (unsigned)round); /* the call's wait begun, or not yet */
        tu_park_release(&park);
        bool done = tu_latch_wait_for(&g.done, 5 * 1000000000LL);
        if (!done) fprintf(stderr, "round %d: graceful shutdown still waiting after 5 s\n", round);
        assert_true(done);
        assert_int_equal(tu_graceful_join(&g), GROUPCONC_OK);
        assert_int_equal(atomic_load(&ran), G);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
        tu_latch_destroy(&started);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submit_after_shutdown),
        cmocka_unit_test(test_shutdown_idempotent),
        cmocka_unit_test(test_shutdown_immediate),
        cmocka_unit_test(test_shutdown_graceful_finishes),
        cmocka_unit_test(test_shutdown_graceful_with_timeout_finishes),
        cmocka_unit_test(test_shutdown_graceful_times_out),
        cmocka_unit_test(test_shutdown_graceful_paused_waits_for_unlisted),
        cmocka_unit_test(test_shutdown_flags_a_caller_run),
        cmocka_unit_test(test_shutdown_during_a_refusal_in_submit),
        cmocka_unit_test(test_destroy_shuts_down),
        cmocka_unit_test(test_shutdown_graceful_rounds_across_shards),
    };
    return TU_RUN_TESTS(tests);
}
