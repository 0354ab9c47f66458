/* test_handles_integrity.c - handles, execute_all and graceful shutdown where features meet
   (issue 23, items 2, 5 and 8).

   Documented behaviour under test:
   - a handle is marked done only after the task's COMPLETED event and its completion callbacks ran:
     while a callback runs, is_done says false and wait_for(0) times out; a wait that returns (and
     a release right after it) never races a callback; inside its own completion callback (also one
     run at once by a late on_complete) a wait on the task returns GROUPCONC_EDEADLK; a callback may
     wait on another task; a callback registered from a callback runs after it, before done;
   - execute_all owns every element's argument once past its checks: each cleanup runs exactly once
     whatever happened (ran, refused in submit under ABORT / DISCARD / CALLER_RUNS / a handler,
     rejected later, cancelled at the deadline, ESHUTDOWN, EGROUPS_FULL, ETHREAD), an element
     refused in submit is REJECTED with the submit's code as its reason; a call refused before any
     submit (EINVAL, EKEYEMPTY, EKEYTOOLONG, ELIMIT, EDEADLK from a resolver) ran no cleanup,
     submitted nothing and left out_results untouched;
   - a graceful shutdown cancels at once the tasks a pause holds back (when it begins, and when the
     executor is paused during it), so that what they held goes to the other groups' waiters, which
     run; it then reports GROUPCONC_ETIMEDOUT; a paused group's ready task still runs. */
#define GROUPCONC_IMPLEMENTATION
#define GROUPCONC_TEST_THREAD_START_FAILS() hi_thread_start_fails()
static int hi_thread_start_fails(void);
#include "groupconc.h"
#include "testutil.h"

static atomic_int hi_fail_starts; /* non-zero: every worker start fails (the ETHREAD route) */
static int hi_thread_start_fails(void) { return atomic_load(&hi_fail_starts); }

/* ==== 5. a handle is done only after its callbacks ran ========================================== */

typedef struct cb_probe {
    tu_latch entered;         /* the callback started */
    tu_latch go;              /* the test lets it return */
    atomic_int calls, returned;
    atomic_int completed_before; /* COMPLETED events seen by the listener when it started */
    atomic_int rc_is_done, done_in_cb, rc_wait, rc_wait0;
    atomic_int *completed_events;
    groupconc_task *other;    /* a task to wait on from the callback (NULL: none) */
    atomic_int rc_other;
    groupconc_status other_status;
} cb_probe;

static void cb_probe_init(cb_probe *p, atomic_int *completed_events) {
    memset(p, 0, sizeof *p);
    tu_latch_init(&p->entered, 1);
    tu_latch_init(&p->go, 1);
    atomic_init(&p->calls, 0);
    atomic_init(&p->returned, 0);
    atomic_init(&p->completed_before, -1);
    atomic_init(&p->rc_is_done, 1);
    atomic_init(&p->done_in_cb, -1);
    atomic_init(&p->rc_wait, 1);
    atomic_init(&p->rc_wait0, 1);
    atomic_init(&p->rc_other, 1);
    p->completed_events = completed_events;
}

static void cb_probe_destroy(cb_probe *p) {
    tu_latch_destroy(&p->entered);
    tu_latch_destroy(&p->go);
}

static void count_completed(const groupconc_event *ev, void *user_data) {
    if (ev->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add((atomic_int *)user_data, 1);
}

/* Parks until the test opens `go`, then looks at its own handle. */
static void parking_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    cb_probe *p = ud;
    bool d = true;
    (void)r;
    atomic_fetch_add(&p->calls, 1);
    if (p->completed_events) atomic_store(&p->completed_before, atomic_load(p->completed_events));
    tu_latch_open(&p->entered);
    (void)tu_latch_wait(&p->go);
    atomic_store(&p->rc_is_done, groupconc_task_is_done(task, &d));
    atomic_store(&p->done_in_cb, d ? 1 : 0);
    atomic_store(&p->returned, 1); /* its last step: a wait that returned must see it */
}

/* While a completion callback runs, the task is not done: is_done says false, a poll times out; a
   wait returns only once it returned, so releasing the handle right after the wait never races
   the callback (on 8e71492 the handle was done before its callbacks ran: the callback's own
   is_done could get ERELEASED). The listener's COMPLETED event came before the callback. */
static void test_wait_returns_after_callbacks(void **state) {
    (void)state;
    atomic_int completed;
    atomic_init(&completed, 0);
    groupconc_policy pol = groupconc_policy_default();
    pol.listener = count_completed;
    pol.listener_user_data = &completed;
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    cb_probe p;
    cb_probe_init(&p, &completed);
    groupconc_task *t = tu_submit(ex, "g", "t", tu_park_fn, &park);
    assert_int_equal(groupconc_task_on_complete(t, parking_cb, &p), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&park);
    assert_true(tu_latch_wait(&p.entered)); /* the callback runs, and waits for us */
    bool done = true;
    assert_int_equal(groupconc_task_is_done(t, &done), GROUPCONC_OK);
    assert_false(done);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(t, 0, &r), GROUPCONC_ETIMEDOUT);
    assert_int_equal(atomic_load(&p.completed_before), 1); /* the COMPLETED event came first */
    tu_latch_open(&p.go);
    r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&p.returned), 1);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK); /* the callback is over: no race */
    assert_int_equal(atomic_load(&p.calls), 1);
    assert_int_equal(atomic_load(&p.rc_is_done), GROUPCONC_OK);
    assert_int_equal(atomic_load(&p.done_in_cb), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cb_probe_destroy(&p);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* Several waiters, from other threads: each returns only after the callback returned. */
typedef struct waiter_arg {
    groupconc_task *t;
    cb_probe *p;
    atomic_int rc, saw_returned;
    tu_latch *ready;
} waiter_arg;

static void waiter_main(void *arg) {
    waiter_arg *w = arg;
    groupconc_result r;
    tu_latch_count_down(w->ready);
    atomic_store(&w->rc, groupconc_task_wait_for(w->t, TU_TIMEOUT_NS, &r));
    atomic_store(&w->saw_returned, atomic_load(&w->p->returned));
}

static void test_blocked_waiters_return_after_callbacks(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started, ready;
    tu_latch_init(&started, 1);
    tu_latch_init(&ready, 3);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    cb_probe p;
    cb_probe_init(&p, NULL);
    groupconc_task *t = tu_submit(ex, "g", NULL, tu_park_fn, &park);
    assert_int_equal(groupconc_task_on_complete(t, parking_cb, &p), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    waiter_arg wa[3];
    tu_thread th[3];
    for (int i = 0; i < 3; i++) {
        wa[i].t = t;
        wa[i].p = &p;
        atomic_init(&wa[i].rc, 1);
        atomic_init(&wa[i].saw_returned, -1);
        wa[i].ready = &ready;
        assert_true(tu_thread_start(&th[i], waiter_main, &wa[i]));
    }
    assert_true(tu_latch_wait(&ready));
    tu_park_release(&park);
    assert_true(tu_latch_wait(&p.entered));
    tu_latch_open(&p.go);
    for (int i = 0; i < 3; i++) {
        tu_thread_join(th[i]);
        assert_int_equal(atomic_load(&wa[i].rc), GROUPCONC_OK);
        assert_int_equal(atomic_load(&wa[i].saw_returned), 1);
    }
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cb_probe_destroy(&p);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    tu_latch_destroy(&ready);
}

/* Inside its own completion callback a wait on the task would wait for itself: EDEADLK, from a
   callback run at completion and from one a late on_complete runs at once (same answer whatever
   the timing); is_done says false in the first, true in the second. */
static void self_wait_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    cb_probe *p = ud;
    groupconc_result again;
    bool d = false;
    (void)r;
    atomic_fetch_add(&p->calls, 1);
    atomic_store(&p->rc_wait, groupconc_task_wait(task, &again));
    atomic_store(&p->rc_wait0, groupconc_task_wait_for(task, 0, &again));
    atomic_store(&p->rc_is_done, groupconc_task_is_done(task, &d));
    atomic_store(&p->done_in_cb, d ? 1 : 0);
}

static void test_wait_on_own_task_in_callback(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    cb_probe at_completion, late;
    cb_probe_init(&at_completion, NULL);
    cb_probe_init(&late, NULL);
    groupconc_task *t = tu_submit(ex, "g", NULL, tu_park_fn, &park);
    assert_int_equal(groupconc_task_on_complete(t, self_wait_cb, &at_completion), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&park);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&at_completion.calls), 1);
    assert_int_equal(atomic_load(&at_completion.rc_wait), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&at_completion.rc_wait0), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&at_completion.rc_is_done), GROUPCONC_OK);
    assert_int_equal(atomic_load(&at_completion.done_in_cb), 0);
    /* registered on a finished task: it runs at once, here */
    assert_int_equal(groupconc_task_on_complete(t, self_wait_cb, &late), GROUPCONC_OK);
    assert_int_equal(atomic_load(&late.calls), 1);
    assert_int_equal(atomic_load(&late.rc_wait), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&late.rc_wait0), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&late.done_in_cb), 1);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cb_probe_destroy(&at_completion);
    cb_probe_destroy(&late);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* A completion callback may wait on another task: it waits (the pool grows by one for it), and the
   task whose callback waits is done only after that wait and the callback returned. */
static void wait_other_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    cb_probe *p = ud;
    groupconc_result ro;
    (void)task;
    (void)r;
    atomic_fetch_add(&p->calls, 1);
    tu_latch_open(&p->entered);
    atomic_store(&p->rc_other, groupconc_task_wait_for(p->other, TU_TIMEOUT_NS, &ro));
    p->other_status = ro.status;
    atomic_store(&p->returned, 1);
}

static void test_callback_waits_on_other_task(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    pol.max_threads = 1; /* the other task runs only if the callback's wait lets one more start */
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park pa;
    tu_park_init(&pa, &started, NULL);
    cb_probe p;
    cb_probe_init(&p, NULL);
    groupconc_task *a = tu_submit(ex, "a", "a", tu_park_fn, &pa);
    atomic_int ran;
    atomic_init(&ran, 0);
    assert_true(tu_latch_wait(&started)); /* a holds the only worker: b waits for a thread */
    groupconc_task *b = tu_submit(ex, "b", "b", tu_count_fn, &ran);
    p.other = b;
    assert_int_equal(groupconc_task_on_complete(a, wait_other_cb, &p), GROUPCONC_OK);
    tu_park_release(&pa);
    assert_true(tu_latch_wait(&p.entered));
    groupconc_result r = tu_wait(a);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&p.returned), 1);
    assert_int_equal(atomic_load(&p.rc_other), GROUPCONC_OK);
    assert_int_equal(p.other_status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(groupconc_task_release(a), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(b), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cb_probe_destroy(&p);
    tu_park_destroy(&pa);
    tu_latch_destroy(&started);
}

/* A callback that registers another one on its own task: the new one runs after it returned, on
   the same thread, and both ran before a wait returns. */
typedef struct chain {
    atomic_int first_returned, second_calls, second_saw_first_returned, rc_register;
    tu_thread_id first_thread, second_thread;
} chain;

static void second_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    chain *c = ud;
    (void)task;
    (void)r;
    c->second_thread = tu_self();
    atomic_store(&c->second_saw_first_returned, atomic_load(&c->first_returned));
    atomic_fetch_add(&c->second_calls, 1);
}

static void first_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    chain *c = ud;
    (void)r;
    c->first_thread = tu_self();
    atomic_store(&c->rc_register, groupconc_task_on_complete(task, second_cb, c));
    atomic_store(&c->first_returned, 1);
}

static void test_callback_registered_from_callback(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    chain c;
    memset(&c, 0, sizeof c);
    atomic_init(&c.first_returned, 0);
    atomic_init(&c.second_calls, 0);
    atomic_init(&c.second_saw_first_returned, -1);
    atomic_init(&c.rc_register, 1);
    groupconc_task *t = tu_submit(ex, "g", NULL, tu_park_fn, &park);
    assert_int_equal(groupconc_task_on_complete(t, first_cb, &c), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&park);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&c.rc_register), GROUPCONC_OK);
    assert_int_equal(atomic_load(&c.second_calls), 1);
    assert_int_equal(atomic_load(&c.second_saw_first_returned), 1);
    assert_true(tu_same_thread(c.first_thread, c.second_thread));
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* ==== 2. execute_all owns every element's argument ============================================== */

/* An element's argument: its cleanup counts, its body may park. */
typedef struct elem {
    atomic_int cleaned, ran;
    tu_park *park;             /* park in the body (NULL: return at once) */
} elem;

static void elem_init(elem *e, tu_park *park) {
    atomic_init(&e->cleaned, 0);
    atomic_init(&e->ran, 0);
    e->park = park;
}

static int elem_fn(groupconc_context *ctx, void **out_value, void *arg) {
    elem *e = arg;
    atomic_fetch_add(&e->ran, 1);
    if (e->park) return tu_park_fn(ctx, out_value, e->park);
    return 0;
}

static void elem_cleanup(void *arg) { atomic_fetch_add(&((elem *)arg)->cleaned, 1); }

static groupconc_task_spec elem_spec(const char *group, const char *id, elem *e) {
    groupconc_task_spec s;
    memset(&s, 0, sizeof s);
    s.group = group;
    s.task_id = id;
    s.fn = elem_fn;
    s.arg = e;
    s.cleanup = elem_cleanup;
    return s;
}

/* The listener opens `open` when the task `id` is rejected (in submit or later), and counts events. */
typedef struct opener {
    const char *id;
    tu_park *open;
    atomic_int submitted, rejected, completed;
} opener;

static void opener_listener(const groupconc_event *ev, void *ud) {
    opener *o = ud;
    if (ev->type == GROUPCONC_EVENT_SUBMITTED) atomic_fetch_add(&o->submitted, 1);
    if (ev->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add(&o->completed, 1);
    if (ev->type != GROUPCONC_EVENT_REJECTED) return;
    atomic_fetch_add(&o->rejected, 1);
    if (o->open && ev->task_id && o->id && strcmp(ev->task_id, o->id) == 0) tu_park_release(o->open);
}

static void opener_init(opener *o, const char *id, tu_park *open) {
    o->id = id;
    o->open = open;
    atomic_init(&o->submitted, 0);
    atomic_init(&o->rejected, 0);
    atomic_init(&o->completed, 0);
}

/* A rejection handler that takes the argument over and releases it itself. */
static void taking_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    (void)ud;
    out->arg_taken = true;
    if (rj->cleanup) rj->cleanup(rj->arg);
}

/* Refused in submit (a full group, queue threshold 0) under each policy: the element's cleanup ran
   exactly once before execute_all returned, its result says what happened (ABORT, DISCARD:
   REJECTED with the layer's code, error 0, zero duration; CALLER_RUNS: it ran; a handler that took
   the argument released it once). On 8e71492 an element refused under ABORT never got its cleanup. */
static void test_execute_all_refused_in_submit(void **state) {
    (void)state;
    enum { M_ABORT, M_DISCARD, M_CALLER_RUNS, M_HANDLER, M_COUNT };
    for (int m = 0; m < M_COUNT; m++) {
        tu_park park;
        tu_park_init(&park, NULL, NULL);
        opener o;
        opener_init(&o, "refused", &park);
        groupconc_policy pol = groupconc_policy_default();
        pol.default_concurrency = 1;
        pol.default_queue_threshold = 0; /* run now or be refused */
        pol.rejection = m == M_DISCARD       ? GROUPCONC_REJECT_DISCARD
                        : m == M_CALLER_RUNS ? GROUPCONC_REJECT_CALLER_RUNS
                                             : GROUPCONC_REJECT_ABORT;
        if (m == M_HANDLER) pol.reject_handler = taking_handler;
        pol.listener = opener_listener;
        pol.listener_user_data = &o;
        groupconc_executor *ex = tu_executor(&pol);
        elem e[3];
        elem_init(&e[0], &park); /* holds g's only permit until [1] is refused */
        elem_init(&e[1], NULL);
        elem_init(&e[2], NULL);
        groupconc_task_spec specs[3] = {elem_spec("g", "holder", &e[0]), elem_spec("g", "refused", &e[1]),
                                        elem_spec("h", "other", &e[2])};
        groupconc_result res[3];
        assert_int_equal(groupconc_execute_all(ex, specs, 3, TU_TIMEOUT_NS, res), GROUPCONC_OK);
        for (int i = 0; i < 3; i++) {
            if (atomic_load(&e[i].cleaned) != 1)
                fail_msg("mode %d: element %d's cleanup ran %d times, want once", m, i, atomic_load(&e[i].cleaned));
            assert_ptr_equal(res[i].group, specs[i].group);
            assert_ptr_equal(res[i].task_id, specs[i].task_id);
        }
        assert_int_equal(res[0].status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(res[2].status, GROUPCONC_STATUS_SUCCESS);
        if (m == M_CALLER_RUNS) {
            assert_int_equal(res[1].status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(atomic_load(&e[1].ran), 1);
        } else {
            assert_int_equal(res[1].status, GROUPCONC_STATUS_REJECTED);
            assert_int_equal(res[1].reason, GROUPCONC_EREJECTED_CONCURRENCY);
            assert_int_equal(res[1].error, 0);
            assert_true(res[1].start_ns == res[1].end_ns);
            assert_int_equal(atomic_load(&e[1].ran), 0);
        }
        assert_int_equal(atomic_load(&o.rejected), 1);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
    }
}

/* Rejected later (its queue deadline passed while it waited), cancelled at the deadline (never
   started), flagged at the deadline (ran, cooperatively): one cleanup each. */
static void test_execute_all_rejected_later_and_cancelled(void **state) {
    (void)state;
    /* rejected later: the holder parks until the waiter's REJECTED event */
    {
        tu_park park;
        tu_park_init(&park, NULL, NULL);
        opener o;
        opener_init(&o, "late", &park);
        groupconc_policy pol = groupconc_policy_default();
        pol.default_concurrency = 1;
        pol.listener = opener_listener;
        pol.listener_user_data = &o;
        groupconc_executor *ex = tu_executor(&pol);
        elem e[2];
        elem_init(&e[0], &park);
        elem_init(&e[1], NULL);
        groupconc_task_spec specs[2] = {elem_spec("g", "holder", &e[0]), elem_spec("g", "late", &e[1])};
        specs[1].max_wait_ns = 20 * TU_MS;
        groupconc_result res[2];
        assert_int_equal(groupconc_execute_all(ex, specs, 2, TU_TIMEOUT_NS, res), GROUPCONC_OK);
        assert_int_equal(res[0].status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(res[1].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res[1].reason, GROUPCONC_EEXPIRED_CONCURRENCY);
        for (int i = 0; i < 2; i++) assert_int_equal(atomic_load(&e[i].cleaned), 1);
        assert_int_equal(atomic_load(&e[1].ran), 0);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
    }
    /* the deadline: the queued one is cancelled, the running one flagged (it stops, cooperatively) */
    {
        tu_park park;
        tu_park_init(&park, NULL, NULL);
        park.cooperative = true;
        groupconc_policy pol = groupconc_policy_default();
        pol.default_concurrency = 1;
        groupconc_executor *ex = tu_executor(&pol);
        elem e[2];
        elem_init(&e[0], &park);
        elem_init(&e[1], NULL);
        groupconc_task_spec specs[2] = {elem_spec("g", "running", &e[0]), elem_spec("g", "queued", &e[1])};
        groupconc_result res[2];
        assert_int_equal(groupconc_execute_all(ex, specs, 2, 50 * TU_MS, res), GROUPCONC_ETIMEDOUT);
        assert_int_equal(res[0].status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(res[1].status, GROUPCONC_STATUS_CANCELLED);
        /* the first one was running (flagged: it stopped) or, on a slow machine (valgrind), not
           started yet at the deadline (dequeued): CANCELLED and one cleanup either way */
        assert_true(atomic_load(&e[0].ran) <= 1);
        assert_int_equal(atomic_load(&e[1].ran), 0);
        for (int i = 0; i < 2; i++) assert_int_equal(atomic_load(&e[i].cleaned), 1);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
    }
}

/* On an executor shut down: ESHUTDOWN, every element REJECTED with reason ESHUTDOWN, each cleanup
   once (on 8e71492: none). */
static void test_execute_all_after_shutdown(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&pol);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    elem e[3];
    for (int i = 0; i < 3; i++) elem_init(&e[i], NULL);
    groupconc_task_spec specs[3] = {elem_spec("a", NULL, &e[0]), elem_spec("b", "b", &e[1]),
                                    elem_spec("a", "a2", &e[2])};
    groupconc_result res[3];
    assert_int_equal(groupconc_execute_all(ex, specs, 3, TU_TIMEOUT_NS, res), GROUPCONC_ESHUTDOWN);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(res[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res[i].reason, GROUPCONC_ESHUTDOWN);
        assert_int_equal(res[i].error, 0);
        assert_ptr_equal(res[i].group, specs[i].group);
        assert_int_equal(atomic_load(&e[i].cleaned), 1);
        assert_int_equal(atomic_load(&e[i].ran), 0);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A new key with the table full (max_groups 1, its one group busy): REJECTED, reason EGROUPS_FULL,
   its cleanup once; the element of the existing group runs. */
static void test_execute_all_groups_full(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    pol.max_groups = 1;
    pol.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&pol);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    groupconc_task *busy = tu_submit(ex, "a", NULL, tu_park_fn, &park); /* "a" is not idle */
    assert_true(tu_latch_wait(&started));
    elem e[2];
    elem_init(&e[0], NULL);
    elem_init(&e[1], NULL);
    groupconc_task_spec specs[2] = {elem_spec("b", "new", &e[0]), elem_spec("a", "known", &e[1])};
    groupconc_result res[2];
    assert_int_equal(groupconc_execute_all(ex, specs, 2, TU_TIMEOUT_NS, res), GROUPCONC_OK);
    assert_int_equal(res[0].status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res[0].reason, GROUPCONC_EGROUPS_FULL);
    assert_int_equal(res[0].error, 0);
    assert_true(res[0].start_ns == res[0].end_ns);
    assert_int_equal(res[1].status, GROUPCONC_STATUS_SUCCESS);
    for (int i = 0; i < 2; i++) assert_int_equal(atomic_load(&e[i].cleaned), 1);
    assert_int_equal(atomic_load(&e[0].ran), 0);
    tu_park_release(&park);
    tu_wait_status(busy, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(busy), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* No worker exists and none can start: each element REJECTED with reason ETHREAD, its cleanup once. */
static void test_execute_all_no_thread(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&pol);
    elem e[2];
    elem_init(&e[0], NULL);
    elem_init(&e[1], NULL);
    groupconc_task_spec specs[2] = {elem_spec("a", NULL, &e[0]), elem_spec("b", NULL, &e[1])};
    groupconc_result res[2];
    atomic_store(&hi_fail_starts, 1);
    int rc = groupconc_execute_all(ex, specs, 2, TU_TIMEOUT_NS, res);
    atomic_store(&hi_fail_starts, 0);
    assert_int_equal(rc, GROUPCONC_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(res[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res[i].reason, GROUPCONC_ETHREAD);
        assert_int_equal(atomic_load(&e[i].cleaned), 1);
        assert_int_equal(atomic_load(&e[i].ran), 0);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A call refused before any submit owns nothing: no cleanup ran, nothing was submitted (no SUBMITTED
   event), out_results untouched. */
static void test_execute_all_refused_call_owns_nothing(void **state) {
    (void)state;
    static char long_key[GROUPCONC_MAX_KEY_LEN + 2];
    memset(long_key, 'k', GROUPCONC_MAX_KEY_LEN + 1);
    opener o;
    opener_init(&o, NULL, NULL);
    groupconc_policy pol = groupconc_policy_default();
    pol.listener = opener_listener;
    pol.listener_user_data = &o;
    groupconc_executor *ex = tu_executor(&pol);
    enum { R_NULL_FN, R_NULL_GROUP, R_EMPTY_KEY, R_LONG_KEY, R_LIMIT, R_COUNT };
    static const int want[R_COUNT] = {GROUPCONC_EINVAL, GROUPCONC_EINVAL, GROUPCONC_EKEYEMPTY,
                                      GROUPCONC_EKEYTOOLONG, GROUPCONC_ELIMIT};
    for (int row = 0; row < R_COUNT; row++) {
        elem e[2];
        elem_init(&e[0], NULL);
        elem_init(&e[1], NULL);
        groupconc_task_spec specs[2] = {elem_spec("fine", NULL, &e[0]), elem_spec("bad", NULL, &e[1])};
        switch (row) {
        case R_NULL_FN: specs[1].fn = NULL; break;
        case R_NULL_GROUP: specs[1].group = NULL; break;
        case R_EMPTY_KEY: specs[1].group = ""; break;
        case R_LONG_KEY: specs[1].group = long_key; break;
        case R_LIMIT: specs[1].max_wait_ns = -5; break;
        }
        groupconc_result res[2], before[2];
        memset(res, 0xA5, sizeof res);
        memcpy(before, res, sizeof res);
        int rc = groupconc_execute_all(ex, specs, 2, TU_TIMEOUT_NS, res);
        if (rc != want[row]) fail_msg("row %d: %s, want %s", row, groupconc_errname(rc), groupconc_errname(want[row]));
        for (int i = 0; i < 2; i++) {
            assert_int_equal(atomic_load(&e[i].cleaned), 0);
            assert_int_equal(atomic_load(&e[i].ran), 0);
        }
        assert_memory_equal(res, before, sizeof res);
    }
    assert_int_equal(atomic_load(&o.submitted), 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* From the resolver (under the key table's lock): EDEADLK, nothing submitted, no cleanup. */
static groupconc_executor *resolver_ex;
static elem resolver_elem;
static atomic_int resolver_rc;
static int exec_resolver(const char *group, int *out_concurrency, void *user_data) {
    (void)group;
    (void)user_data;
    if (strcmp(group, "trigger") == 0) {
        groupconc_task_spec s = elem_spec("inner", NULL, &resolver_elem);
        groupconc_result r;
        atomic_store(&resolver_rc, groupconc_execute_all(resolver_ex, &s, 1, TU_TIMEOUT_NS, &r));
    }
    *out_concurrency = 1;
    return 0;
}

static void test_execute_all_from_resolver_owns_nothing(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    pol.resolver = exec_resolver;
    groupconc_executor *ex = tu_executor(&pol);
    resolver_ex = ex;
    elem_init(&resolver_elem, NULL);
    atomic_init(&resolver_rc, 1);
    groupconc_task *t = tu_submit(ex, "trigger", NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&resolver_rc), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&resolver_elem.cleaned), 0);
    assert_int_equal(atomic_load(&resolver_elem.ran), 0);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ==== 8. graceful shutdown and a paused group ================================================== */

/* A graceful shutdown begun from inside the executor, where it returns EDEADLK at once: a completion
   callback registered on a finished task runs on this thread, as a callback of the executor. */
typedef struct beginner {
    groupconc_executor *ex;
    atomic_int rc;
} beginner;

static void begin_graceful_cb(groupconc_task *task, const groupconc_result *r, void *ud) {
    beginner *b = ud;
    (void)task;
    (void)r;
    atomic_store(&b->rc, groupconc_executor_shutdown_graceful(b->ex, GROUPCONC_FOREVER));
}

static void begin_graceful_inside(groupconc_executor *ex, groupconc_task *finished) {
    beginner b = {ex, 1};
    assert_int_equal(groupconc_task_on_complete(finished, begin_graceful_cb, &b), GROUPCONC_OK);
    assert_int_equal(atomic_load(&b.rc), GROUPCONC_EDEADLK); /* begun, not waited for */
}

/* A paused group's task holds the only global in-flight permit; another group's task waits for it.
   The graceful shutdown cancels the paused one at once, which frees the permit: the other runs to
   SUCCESS, and the call reports ETIMEDOUT (not everything finished). Round 1: the shutdown begun
   from inside the executor, then destroy: the same. On 8e71492 both tasks were cancelled. */
static void test_graceful_cancels_paused_holder(void **state) {
    (void)state;
    for (int round = 0; round < 2; round++) {
        groupconc_policy pol = groupconc_policy_default();
        pol.global_max_in_flight = 1;
        pol.default_concurrency = 1;
        groupconc_executor *ex = tu_executor(&pol);
        groupconc_task *first = tu_submit(ex, "first", NULL, tu_noop_fn, NULL); /* done before */
        tu_wait_status(first, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_group_pause(ex, "frozen"), GROUPCONC_OK);
        atomic_int ran_frozen, ran_other;
        atomic_init(&ran_frozen, 0);
        atomic_init(&ran_other, 0);
        groupconc_task *frozen = tu_submit(ex, "frozen", "f", tu_count_fn, &ran_frozen);
        groupconc_task *other = tu_submit(ex, "other", "o", tu_count_fn, &ran_other);
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.global_in_flight, 1); /* the paused task holds it */
        assert_int_equal(tu_gstats(ex, "other").waiting_global, 1);
        if (round == 0) {
            int64_t t0 = tu_now_ns();
            assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_ETIMEDOUT);
            assert_true(tu_now_ns() - t0 < 10 * TU_SEC);
            bool done = false;
            assert_int_equal(groupconc_task_is_done(other, &done), GROUPCONC_OK);
            assert_true(done); /* it ran while the shutdown waited */
        } else {
            begin_graceful_inside(ex, first);
        }
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* handles stay valid */
        groupconc_result r = tu_wait(frozen);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        r = tu_wait(other);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(atomic_load(&ran_other), 1);
        assert_int_equal(atomic_load(&ran_frozen), 0);
        assert_int_equal(groupconc_task_release(frozen), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(other), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(first), GROUPCONC_OK);
    }
}

/* The executor paused while a graceful shutdown is under way: the tasks it now holds back are
   cancelled at once (done when the pause returns), the running one finishes. */
static void test_executor_pause_during_graceful(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    pol.default_concurrency = 1;
    groupconc_executor *ex = tu_executor(&pol);
    groupconc_task *first = tu_submit(ex, "first", NULL, tu_noop_fn, NULL);
    tu_wait_status(first, GROUPCONC_STATUS_SUCCESS);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *running = tu_submit(ex, "g", "p", tu_park_fn, &park);
    assert_true(tu_latch_wait(&started));
    groupconc_task *queued = tu_submit(ex, "g", "q", tu_count_fn, &ran); /* behind it */
    begin_graceful_inside(ex, first);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(queued, &done), GROUPCONC_OK);
    assert_false(done); /* not paused yet: it would run */
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_task_is_done(queued, &done), GROUPCONC_OK);
    assert_true(done);
    tu_wait_status(queued, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(groupconc_task_is_done(running, &done), GROUPCONC_OK);
    assert_false(done);
    tu_park_release(&park);
    tu_wait_status(running, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&ran), 0);
    groupconc_task_release(first);
    groupconc_task_release(running);
    groupconc_task_release(queued);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

/* A paused group's task that already holds every permit (ready, waiting for the only worker) is not
   held back: the graceful shutdown lets it run. */
static void test_graceful_runs_paused_ready_task(void **state) {
    (void)state;
    groupconc_policy pol = groupconc_policy_default();
    pol.max_threads = 1;
    groupconc_executor *ex = tu_executor(&pol);
    groupconc_task *first = tu_submit(ex, "first", NULL, tu_noop_fn, NULL);
    tu_wait_status(first, GROUPCONC_STATUS_SUCCESS);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *busy = tu_submit(ex, "busy", NULL, tu_park_fn, &park);
    assert_true(tu_latch_wait(&started)); /* the only worker is taken */
    groupconc_task *ready = tu_submit(ex, "frozen", NULL, tu_count_fn, &ran);
    assert_int_equal(groupconc_group_pause(ex, "frozen"), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "frozen").ready, 1);
    begin_graceful_inside(ex, first);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(ready, &done), GROUPCONC_OK);
    assert_false(done);
    tu_park_release(&park);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_wait_status(ready, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran), 1);
    tu_wait_status(busy, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(first);
    groupconc_task_release(busy);
    groupconc_task_release(ready);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_returns_after_callbacks),
        cmocka_unit_test(test_blocked_waiters_return_after_callbacks),
        cmocka_unit_test(test_wait_on_own_task_in_callback),
        cmocka_unit_test(test_callback_waits_on_other_task),
        cmocka_unit_test(test_callback_registered_from_callback),
        cmocka_unit_test(test_execute_all_refused_in_submit),
        cmocka_unit_test(test_execute_all_rejected_later_and_cancelled),
        cmocka_unit_test(test_execute_all_after_shutdown),
        cmocka_unit_test(test_execute_all_groups_full),
        cmocka_unit_test(test_execute_all_no_thread),
        cmocka_unit_test(test_execute_all_refused_call_owns_nothing),
        cmocka_unit_test(test_execute_all_from_resolver_owns_nothing),
        cmocka_unit_test(test_graceful_cancels_paused_holder),
        cmocka_unit_test(test_executor_pause_during_graceful),
        cmocka_unit_test(test_graceful_runs_paused_ready_task),
    };
    return TU_RUN_TESTS(tests);
}
