/* test_listener.c - lifecycle listener: per-task event order (SUBMITTED < STARTED < COMPLETED;
   REJECTED with the layer for refused tasks), COMPLETED before wait returns, and re-entrancy (the
   listener submits, cancels and reads stats without deadlock). */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

enum { MAXT = 256 };

typedef struct ev_log {
    atomic_long seq;                      /* global event counter */
    atomic_long at[4][MAXT];              /* per event type, per task: sequence number (0: never) */
    atomic_int count[4][MAXT];            /* per event type, per task: how many times */
    atomic_int reason[MAXT];              /* REJECTED reason */
    atomic_int completed_status[MAXT];    /* COMPLETED result status */
    atomic_int completed_error[MAXT];
    atomic_int bad;                       /* malformed events */
    atomic_int unknown;                   /* events for tasks without a "t<n>" id */
} ev_log;

static void ev_log_init(ev_log *l) {
    atomic_init(&l->seq, 0);
    for (int e = 0; e < 4; e++)
        for (int i = 0; i < MAXT; i++) {
            atomic_init(&l->at[e][i], 0);
            atomic_init(&l->count[e][i], 0);
        }
    for (int i = 0; i < MAXT; i++) {
        atomic_init(&l->reason[i], 0);
        atomic_init(&l->completed_status[i], -1);
        atomic_init(&l->completed_error[i], 0);
    }
    atomic_init(&l->bad, 0);
    atomic_init(&l->unknown, 0);
}

static void log_listener(const groupconc_event *ev, void *user_data) {
    ev_log *l = (ev_log *)user_data;
    /* widen the window: a COMPLETED event that ran after the handle was marked done would be found
       missing by the waiter's check (this is not synchronisation: the library must order it) */
    if (ev && ev->type == GROUPCONC_EVENT_COMPLETED) tu_sleep_ns(300000);
    long s = atomic_fetch_add(&l->seq, 1) + 1;
    if (!ev || !ev->group || (int)ev->type < 0 || (int)ev->type > 3) {
        atomic_fetch_add(&l->bad, 1);
        return;
    }
    if (!ev->task_id || ev->task_id[0] != 't') {
        atomic_fetch_add(&l->unknown, 1);
        return;
    }
    int i = atoi(ev->task_id + 1);
    if (i < 0 || i >= MAXT) {
        atomic_fetch_add(&l->bad, 1);
        return;
    }
    int e = (int)ev->type;
    atomic_store(&l->at[e][i], s);
    atomic_fetch_add(&l->count[e][i], 1);
    if (ev->type == GROUPCONC_EVENT_REJECTED) atomic_store(&l->reason[i], ev->reason);
    else if (ev->reason != 0) atomic_fetch_add(&l->bad, 1);
    if (ev->type == GROUPCONC_EVENT_COMPLETED) {
        if (!ev->result) {
            atomic_fetch_add(&l->bad, 1);
        } else {
            atomic_store(&l->completed_status[i], (int)ev->result->status);
            atomic_store(&l->completed_error[i], ev->result->error ? ev->result->error
                                                                  : ev->result->reason);
        }
    } else if (ev->result) {
        atomic_fetch_add(&l->bad, 1);
    }
}

static long at(ev_log *l, groupconc_event_type e, int i) { return atomic_load(&l->at[e][i]); }
static int cnt(ev_log *l, groupconc_event_type e, int i) { return atomic_load(&l->count[e][i]); }

/* A task that ran normally: SUBMITTED < STARTED < COMPLETED, each once, no REJECTED. */
static void assert_normal_order(ev_log *l, int i, groupconc_status status) {
    assert_int_equal(cnt(l, GROUPCONC_EVENT_SUBMITTED, i), 1);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_STARTED, i), 1);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_COMPLETED, i), 1);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_REJECTED, i), 0);
    assert_true(at(l, GROUPCONC_EVENT_SUBMITTED, i) < at(l, GROUPCONC_EVENT_STARTED, i));
    assert_true(at(l, GROUPCONC_EVENT_STARTED, i) < at(l, GROUPCONC_EVENT_COMPLETED, i));
    assert_int_equal(atomic_load(&l->completed_status[i]), status);
}

/* A refused task: REJECTED once with `reason`, never STARTED; SUBMITTED (if reported) before it,
   COMPLETED (if reported) after it, with status REJECTED. */
static void assert_rejected_order(ev_log *l, int i, int reason) {
    assert_int_equal(cnt(l, GROUPCONC_EVENT_REJECTED, i), 1);
    assert_int_equal(atomic_load(&l->reason[i]), reason);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_STARTED, i), 0);
    assert_true(cnt(l, GROUPCONC_EVENT_SUBMITTED, i) <= 1);
    assert_true(cnt(l, GROUPCONC_EVENT_COMPLETED, i) <= 1);
    if (cnt(l, GROUPCONC_EVENT_SUBMITTED, i))
        assert_true(at(l, GROUPCONC_EVENT_SUBMITTED, i) < at(l, GROUPCONC_EVENT_REJECTED, i));
    if (cnt(l, GROUPCONC_EVENT_COMPLETED, i)) {
        assert_true(at(l, GROUPCONC_EVENT_REJECTED, i) < at(l, GROUPCONC_EVENT_COMPLETED, i));
        assert_int_equal(atomic_load(&l->completed_status[i]), GROUPCONC_STATUS_REJECTED);
        assert_int_equal(atomic_load(&l->completed_error[i]), reason);
    }
}

static int fail_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    (void)user_data;
    return -31;
}

static void test_event_order(void **state) {
    (void)state;
    ev_log *l = (ev_log *)malloc(sizeof *l);
    assert_non_null(l);
    ev_log_init(l);
    groupconc_group_limits table[] = {{"rej", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    p.default_concurrency = 2;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    p.listener = log_listener;
    p.listener_user_data = l;
    groupconc_executor *ex = tu_executor(&p);

    enum { N = 40 };
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        char id[8];
        snprintf(id, sizeof id, "t%d", i);
        h[i] = tu_submit(ex, (i % 3) ? "work" : "other", id, (i % 7 == 3) ? fail_fn : tu_noop_fn, NULL);
    }
    for (int i = 0; i < N; i++) {
        groupconc_result r = tu_wait(h[i]);
        /* COMPLETED has run before wait returns */
        assert_int_equal(cnt(l, GROUPCONC_EVENT_COMPLETED, i), 1);
        assert_int_equal(r.status, (i % 7 == 3) ? GROUPCONC_STATUS_FAILED : GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }

    /* refused in submit (DISCARD): REJECTED naming the concurrency layer */
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "rej", "t100", tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    groupconc_task *hr = tu_submit(ex, "rej", "t101", tu_noop_fn, NULL);
    groupconc_result r = tu_wait(hr);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_REJECTED, 101), 1); /* before the handle was done */
    tu_park_release(&blocker);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    groupconc_task_release(hr);

    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    for (int i = 0; i < N; i++)
        assert_normal_order(l, i, (i % 7 == 3) ? GROUPCONC_STATUS_FAILED : GROUPCONC_STATUS_SUCCESS);
    assert_normal_order(l, 100, GROUPCONC_STATUS_SUCCESS);
    assert_rejected_order(l, 101, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&l->bad), 0);
    assert_int_equal(atomic_load(&l->unknown), 0);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    free(l);
}

/* Under ABORT: no handle, but the listener hears REJECTED with the layer; an asynchronous refusal
   (queued for a global permit, refused at the bulkhead) completes REJECTED after the REJECTED event. */
static void test_rejected_events_abort(void **state) {
    (void)state;
    ev_log *l = (ev_log *)malloc(sizeof *l);
    assert_non_null(l);
    ev_log_init(l);
    groupconc_group_limits table[] = {{"B", 4, 1, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    p.global_max_in_flight = 2;
    p.global_queue_threshold = 1;
    p.listener = log_listener;
    p.listener_user_data = l;
    groupconc_executor *ex = tu_executor(&p);

    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park pb, px;
    tu_park_init(&pb, &started, NULL);
    tu_park_init(&px, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "B", "t0", tu_park_fn, &pb);
    groupconc_task *hx = tu_submit(ex, "X", "t1", tu_park_fn, &px);
    assert_true(tu_latch_wait(&started)); /* global 2/2 */
    groupconc_task *late = tu_submit(ex, "B", "t2", tu_noop_fn, NULL); /* waits for a global permit */
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, "Y", "t3", tu_noop_fn, NULL, &t), GROUPCONC_EREJECTED_GLOBAL);
    assert_null(t);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_REJECTED, 3), 1); /* reported before submit returned */

    tu_park_release(&px); /* X ends; its global permit goes to t2, which B's bulkhead refuses */
    tu_wait_status(hx, GROUPCONC_STATUS_SUCCESS);
    groupconc_result r = tu_wait(late);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_BULKHEAD);
    tu_park_release(&pb);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    groupconc_task_release(hx);
    groupconc_task_release(late);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    assert_normal_order(l, 0, GROUPCONC_STATUS_SUCCESS);
    assert_normal_order(l, 1, GROUPCONC_STATUS_SUCCESS);
    assert_rejected_order(l, 2, GROUPCONC_EREJECTED_BULKHEAD);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_SUBMITTED, 2), 1); /* it was accepted by submit */
    assert_int_equal(cnt(l, GROUPCONC_EVENT_COMPLETED, 2), 1); /* it has a result */
    assert_rejected_order(l, 3, GROUPCONC_EREJECTED_GLOBAL);
    assert_int_equal(atomic_load(&l->bad), 0);
    tu_park_destroy(&pb);
    tu_park_destroy(&px);
    tu_latch_destroy(&started);
    free(l);
}

/* CALLER_RUNS: REJECTED (with the layer) comes first, then COMPLETED with the run's outcome. */
static void test_caller_runs_events(void **state) {
    (void)state;
    ev_log *l = (ev_log *)malloc(sizeof *l);
    assert_non_null(l);
    ev_log_init(l);
    groupconc_group_limits table[] = {{"C", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    p.listener = log_listener;
    p.listener_user_data = l;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park pb;
    tu_park_init(&pb, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "C", "t0", tu_park_fn, &pb);
    assert_true(tu_latch_wait(&started));
    groupconc_task *hc = tu_submit(ex, "C", "t1", tu_noop_fn, NULL);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    tu_park_release(&pb);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    groupconc_task_release(hc);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_REJECTED, 1), 1);
    assert_int_equal(atomic_load(&l->reason[1]), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(cnt(l, GROUPCONC_EVENT_COMPLETED, 1), 1);
    assert_true(at(l, GROUPCONC_EVENT_REJECTED, 1) < at(l, GROUPCONC_EVENT_COMPLETED, 1));
    assert_int_equal(atomic_load(&l->completed_status[1]), GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&l->bad), 0);
    tu_park_destroy(&pb);
    tu_latch_destroy(&started);
    free(l);
}

/* ---- re-entrancy -------------------------------------------------------------------------------- */

typedef struct reentrant {
    groupconc_executor *ex;      /* set before the first submit */
    groupconc_task *victim;      /* set before the trigger is submitted */
    tu_latch *children;          /* counted down by each child task */
    int rc_submit_on_submitted;
    int rc_submit_on_started;
    int rc_submit_on_completed;
    int rc_cancel;
    groupconc_cancel_outcome outcome;
    int rc_gstats;
    size_t trigger_running;      /* group stats read inside STARTED */
    int rc_keys;
    size_t nkeys;
    groupconc_task *child2;
    atomic_int stats_calls;
    atomic_int stats_fail;
} reentrant;

static int child_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    tu_latch_count_down((tu_latch *)user_data);
    return 0;
}

static void reentrant_listener(const groupconc_event *ev, void *user_data) {
    reentrant *r = (reentrant *)user_data;
    groupconc_executor_stats xs;
    if (groupconc_executor_stats_get(r->ex, &xs) != GROUPCONC_OK) atomic_fetch_add(&r->stats_fail, 1);
    atomic_fetch_add(&r->stats_calls, 1);
    if (!ev->task_id || strcmp(ev->task_id, "trigger") != 0) return;
    switch (ev->type) {
    case GROUPCONC_EVENT_SUBMITTED: {
        r->rc_submit_on_submitted =
            groupconc_submit(r->ex, "child", "child-0", child_fn, r->children, NULL);
        char **keys = NULL;
        r->rc_keys = groupconc_group_keys_get(r->ex, &keys, &r->nkeys);
        if (r->rc_keys == GROUPCONC_OK) groupconc_group_keys_free(keys);
        break;
    }
    case GROUPCONC_EVENT_STARTED: {
        r->rc_submit_on_started = groupconc_submit(r->ex, "child", "child-1", child_fn, r->children, NULL);
        r->rc_cancel = groupconc_task_cancel(r->victim, &r->outcome);
        groupconc_group_stats gs;
        r->rc_gstats = groupconc_group_stats_get(r->ex, "trig", &gs);
        if (r->rc_gstats == GROUPCONC_OK) r->trigger_running = gs.running;
        break;
    }
    case GROUPCONC_EVENT_COMPLETED:
        r->rc_submit_on_completed =
            groupconc_submit(r->ex, "child", "child-2", child_fn, r->children, &r->child2);
        break;
    default:
        break;
    }
}

static void test_listener_reentrancy(void **state) {
    (void)state;
    reentrant re;
    memset(&re, 0, sizeof re);
    atomic_init(&re.stats_calls, 0);
    atomic_init(&re.stats_fail, 0);
    re.rc_submit_on_submitted = re.rc_submit_on_started = re.rc_submit_on_completed = -100;
    re.rc_cancel = re.rc_gstats = re.rc_keys = -100;
    tu_latch children;
    tu_latch_init(&children, 3);
    re.children = &children;
    groupconc_policy p = groupconc_policy_default();
    p.listener = reentrant_listener;
    p.listener_user_data = &re;
    groupconc_executor *ex = tu_executor(&p);
    re.ex = ex;

    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "v", "blocker", tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    atomic_int victim_ran;
    atomic_init(&victim_ran, 0);
    re.victim = tu_submit(ex, "v", "victim", tu_count_fn, &victim_ran); /* queued behind blocker */

    groupconc_task *trig = tu_submit(ex, "trig", "trigger", tu_noop_fn, NULL);
    tu_wait_status(trig, GROUPCONC_STATUS_SUCCESS); /* COMPLETED listener has run */
    assert_true(tu_latch_wait(&children));          /* all three children ran */

    assert_int_equal(re.rc_submit_on_submitted, GROUPCONC_OK);
    assert_int_equal(re.rc_keys, GROUPCONC_OK);
    assert_true(re.nkeys >= 2);
    assert_int_equal(re.rc_submit_on_started, GROUPCONC_OK);
    assert_int_equal(re.rc_cancel, GROUPCONC_OK);
    assert_int_equal(re.outcome, GROUPCONC_CANCEL_DEQUEUED);
    assert_int_equal(re.rc_gstats, GROUPCONC_OK);
    assert_int_equal(re.trigger_running, 1);
    assert_int_equal(re.rc_submit_on_completed, GROUPCONC_OK);
    assert_non_null(re.child2);
    tu_wait_status(re.child2, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(re.victim, GROUPCONC_STATUS_CANCELLED);

    tu_park_release(&blocker);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&victim_ran), 0);
    assert_true(atomic_load(&re.stats_calls) > 0);
    assert_int_equal(atomic_load(&re.stats_fail), 0);
    groupconc_task_release(hb);
    groupconc_task_release(re.victim);
    groupconc_task_release(trig);
    groupconc_task_release(re.child2);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    tu_latch_destroy(&children);
}

/* CALLER_RUNS, no handler: A and B wait at the global in-flight layer and are both refused later,
   at their group's concurrency layer (threshold 0), in one locked step, and settled one after the
   other on that thread. Two defects met here (found by a hunt):
     - B cancelled while A's REJECTED event runs completed at once (COMPLETED, its waiter woken),
       and B's REJECTED event came after that. Now a cancel before B's event begins completes it
       with no REJECTED event at all; one during B's event only flags it, and B completes
       CANCELLED after its event (round 1 cancels A's successor that way: from B's listener).
     - caller_runs counted a re-run when it was queued, so one cancelled in the ready queue before
       it ran was counted as run. Now it counts once the re-run has run.
   Rounds 3 and 4 (found by a review): an executor or group shutdown from inside B's own REJECTED
   listener reached neither A (re-queued: it is cancelled in the ready queue) nor B (in no queue
   during its event: it was re-queued after it and ran). B is now listed while it is settled, and
   does not run. Round 5 (found by a review): from A's listener, a graceful shutdown (EDEADLK
   there, begun) then an immediate one; B, not yet listed, must not be re-queued either. */
typedef struct late_refusals {
    tu_latch in_listener, go;     /* the listener of `hold_id` parks until go */
    const char *hold_id;
    groupconc_task *cancel_here;  /* cancelled from inside hold_id's REJECTED listener (round 1) */
    groupconc_executor *ex;
    int shutdown_here;            /* 1: executor shutdown there (round 3); 2: group shutdown (4);
                                     3: graceful (begun: EDEADLK there), then immediate (5) */
    groupconc_cancel_outcome inside_outcome;
    atomic_int order[2][8];       /* per task (A, B): event types in order */
    atomic_int nev[2];
    atomic_int after_completed;   /* an event of A or B after its COMPLETED */
} late_refusals;

static void late_listener(const groupconc_event *e, void *ud) {
    late_refusals *lr = (late_refusals *)ud;
    if (!e->task_id || (strcmp(e->task_id, "A") != 0 && strcmp(e->task_id, "B") != 0)) return;
    int i = e->task_id[0] - 'A';
    int n = atomic_fetch_add(&lr->nev[i], 1);
    for (int k = 0; k < n && k < 8; k++)
        if (atomic_load(&lr->order[i][k]) == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add(&lr->after_completed, 1);
    if (n < 8) atomic_store(&lr->order[i][n], (int)e->type);
    if (e->type == GROUPCONC_EVENT_REJECTED && strcmp(e->task_id, lr->hold_id) == 0) {
        if (lr->cancel_here)
            assert_int_equal(groupconc_task_cancel(lr->cancel_here, &lr->inside_outcome), GROUPCONC_OK);
        if (lr->shutdown_here == 1) assert_int_equal(groupconc_executor_shutdown(lr->ex), GROUPCONC_OK);
        if (lr->shutdown_here == 2) assert_int_equal(groupconc_group_shutdown(lr->ex, "g1"), GROUPCONC_OK);
        if (lr->shutdown_here == 3) {
            assert_int_equal(groupconc_executor_shutdown_graceful(lr->ex, 0), GROUPCONC_EDEADLK);
            assert_int_equal(groupconc_executor_shutdown(lr->ex), GROUPCONC_OK);
        }
        tu_latch_count_down(&lr->in_listener);
        (void)tu_latch_wait(&lr->go);
    }
}

static void test_caller_runs_late_refusals_and_cancel(void **state) {
    (void)state;
    for (int round = 0; round < 6; round++) {
        late_refusals lr;
        memset(&lr, 0, sizeof lr);
        tu_latch_init(&lr.in_listener, 1);
        tu_latch_init(&lr.go, 1);
        lr.hold_id = round == 0 || round == 5 ? "A" : "B";
        groupconc_policy p = groupconc_policy_default();
        p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        p.global_max_in_flight = 2;
        p.default_concurrency = 1;
        p.default_queue_threshold = 0; /* a group's tasks never wait at its own layers */
        p.max_threads = 2;
        p.listener = late_listener;
        p.listener_user_data = &lr;
        groupconc_executor *ex = tu_executor(&p);
        lr.ex = ex;
        if (round >= 3) lr.shutdown_here = round - 2;
        tu_latch started;
        tu_latch_init(&started, 2);
        tu_park x, y;
        tu_park_init(&x, &started, NULL);
        tu_park_init(&y, &started, NULL);
        groupconc_task *ty = tu_submit(ex, "g1", "Y", tu_park_fn, &y); /* g1's only permit */
        groupconc_task *tx = tu_submit(ex, "gx", "X", tu_park_fn, &x); /* the second global permit */
        assert_true(tu_latch_wait(&started));
        groupconc_task *a = tu_submit(ex, "g1", "A", tu_noop_fn, NULL); /* wait at the global layer */
        groupconc_task *b = tu_submit(ex, "g1", "B", tu_noop_fn, NULL);
        if (round == 1) lr.cancel_here = a; /* A is re-queued by then: cancelled in the ready queue */
        if (round == 2) lr.cancel_here = b; /* B's own event is under way: only flagged */
        tu_latch_open(&x.go); /* X ends: A and B get global permits and are refused at g1 */
        assert_true(tu_latch_wait(&lr.in_listener));
        groupconc_cancel_outcome oc;
        if (round == 0) { /* A's event under way on the settling worker: B not yet settled */
            assert_int_equal(groupconc_task_cancel(b, &oc), GROUPCONC_OK);
            assert_int_equal(oc, GROUPCONC_CANCEL_DEQUEUED);
            assert_int_equal(tu_wait(b).status, GROUPCONC_STATUS_CANCELLED);
        }
        tu_latch_open(&lr.go);
        tu_latch_open(&y.go);
        groupconc_result ra = tu_wait(a), rb = tu_wait(b);
        (void)tu_wait(tx);
        (void)tu_wait(ty);
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(atomic_load(&lr.after_completed), 0);
        if (round == 0) {
            assert_int_equal(ra.status, GROUPCONC_STATUS_SUCCESS); /* re-run on a worker */
            assert_int_equal(rb.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(atomic_load(&lr.nev[1]), 2); /* SUBMITTED, COMPLETED: called off first */
            assert_int_equal(xs.caller_runs, 1);
        } else if (round == 1) {
            assert_int_equal(lr.inside_outcome, GROUPCONC_CANCEL_DEQUEUED);
            assert_int_equal(ra.status, GROUPCONC_STATUS_CANCELLED); /* never ran */
            assert_int_equal(rb.status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(xs.caller_runs, 1); /* B only (before: 2) */
        } else if (round == 2) {
            assert_int_equal(lr.inside_outcome, GROUPCONC_CANCEL_FLAGGED);
            assert_int_equal(ra.status, GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(rb.status, GROUPCONC_STATUS_CANCELLED); /* after its REJECTED */
            assert_int_equal(atomic_load(&lr.nev[1]), 3); /* SUBMITTED, REJECTED, COMPLETED */
            assert_int_equal(atomic_load(&lr.order[1][1]), GROUPCONC_EVENT_REJECTED);
            assert_int_equal(xs.caller_runs, 1);
        } else { /* a shutdown from B's listener: A waits in the ready queue (the other worker is
                    in Y), B is being settled: neither runs */
            assert_int_equal(ra.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(rb.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(xs.caller_runs, 0);
        }
        assert_int_equal(xs.cancelled, round >= 3 ? 2 : 1);
        assert_int_equal(xs.completed, xs.submitted);
        assert_int_equal(xs.rejected_concurrency, 0); /* both refusals left the outcome counters */
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        groupconc_task *all[4] = {a, b, tx, ty};
        for (int i = 0; i < 4; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
        tu_park_destroy(&x);
        tu_park_destroy(&y);
        tu_latch_destroy(&started);
        tu_latch_destroy(&lr.in_listener);
        tu_latch_destroy(&lr.go);
    }
}

/* The counters never count an outcome still open, nor go down: a task refused in its
   submit whose outcome CALLER_RUNS or a rejection handler decides counts once it is decided, as
   that outcome. Checked from inside the CALLER_RUNS body and the handler (and every event of the
   task): completed equals the COMPLETED events so far, and rejected_concurrency stays 0. It counted
   the refusal at once (completed 2 with one COMPLETED event, rejected_concurrency 1) and took it
   back when the run ended (a counter that went down); the group's submitted (a sum of outcomes and
   gauges) must not dip meanwhile either. Round 0: CALLER_RUNS; round 1: a handler
   that decides SUCCESS; round 2: a handler that keeps REJECTED (counted then, once). */
typedef struct count_probe {
    groupconc_executor *ex;
    atomic_int completed_events;
    atomic_int checks, bad, group_went_down;
    atomic_long max_rejected, group_submitted, decider_saw; /* the group's submitted, in the body / handler */
} count_probe;

static void count_probe_check(count_probe *p) {
    groupconc_executor_stats xs;
    assert_int_equal(groupconc_executor_stats_get(p->ex, &xs), GROUPCONC_OK);
    atomic_fetch_add(&p->checks, 1);
    if (xs.completed != (uint64_t)atomic_load(&p->completed_events)) atomic_fetch_add(&p->bad, 1);
    if ((long)xs.rejected_concurrency > atomic_load(&p->max_rejected))
        atomic_store(&p->max_rejected, (long)xs.rejected_concurrency);
    groupconc_group_stats gs;
    assert_int_equal(groupconc_group_stats_get(p->ex, "g", &gs), GROUPCONC_OK);
    if ((long)gs.submitted < atomic_load(&p->group_submitted)) atomic_fetch_add(&p->group_went_down, 1);
    atomic_store(&p->group_submitted, (long)gs.submitted);
}

static void count_probe_listener(const groupconc_event *e, void *ud) {
    count_probe *p = ud;
    if (e->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add(&p->completed_events, 1);
    if (strcmp(e->task_id, "refused") == 0) count_probe_check(p);
}

static int count_probe_fn(groupconc_context *ctx, void **out_value, void *arg) {
    count_probe *p = arg;
    (void)ctx;
    (void)out_value;
    count_probe_check(p);
    atomic_store(&p->decider_saw, atomic_load(&p->group_submitted));
    return 0;
}

static void count_probe_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    (void)rj;
    count_probe *p = ud;
    (void)out; /* REJECTED stands */
    count_probe_check(p);
    atomic_store(&p->decider_saw, atomic_load(&p->group_submitted));
}

static void count_probe_success(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    count_probe_handler(rj, out, ud);
    out->status = GROUPCONC_STATUS_SUCCESS;
}

static void test_counters_wait_for_the_outcome(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) {
        count_probe p;
        memset(&p, 0, sizeof p);
        groupconc_policy pol = groupconc_policy_default();
        pol.default_concurrency = 1;
        pol.default_queue_threshold = 0; /* a second task of the group is refused at once */
        pol.listener = count_probe_listener;
        pol.listener_user_data = &p;
        if (round == 0) {
            pol.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        } else {
            pol.reject_handler = round == 1 ? count_probe_success : count_probe_handler;
            pol.reject_user_data = &p;
        }
        groupconc_executor *ex = p.ex = tu_executor(&pol);
        tu_latch started;
        tu_latch_init(&started, 1);
        tu_park park;
        tu_park_init(&park, &started, NULL);
        groupconc_task *holder = tu_submit(ex, "g", "holder", tu_park_fn, &park);
        assert_true(tu_latch_wait(&started));
        groupconc_task *refused = tu_submit(ex, "g", "refused", count_probe_fn, &p);
        groupconc_result r = tu_wait(refused);
        assert_int_equal(r.status, round == 2 ? GROUPCONC_STATUS_REJECTED : GROUPCONC_STATUS_SUCCESS);
        assert_true(atomic_load(&p.checks) >= 3); /* SUBMITTED, REJECTED, body or handler, ... */
        assert_int_equal(atomic_load(&p.bad), 0);
        assert_int_equal(atomic_load(&p.group_went_down), 0);
        assert_int_equal(atomic_load(&p.group_submitted), 2); /* the last look: its COMPLETED event */
        assert_int_equal(atomic_load(&p.decider_saw), 2);     /* both tasks, while its outcome is open */
        assert_int_equal(atomic_load(&p.max_rejected), round == 2 ? 1 : 0);
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.completed, 1);
        assert_int_equal(xs.succeeded, round == 2 ? 0 : 1);
        assert_int_equal(xs.rejected_concurrency, round == 2 ? 1 : 0);
        assert_int_equal(xs.caller_runs, round == 0 ? 1 : 0);
        groupconc_group_stats gs = tu_gstats(ex, "g");
        assert_int_equal(gs.rejected_concurrency, round == 2 ? 1 : 0);
        assert_int_equal(gs.caller_runs, round == 0 ? 1 : 0);
        tu_park_release(&park);
        tu_wait_status(holder, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(holder), GROUPCONC_OK);
        assert_int_equal(groupconc_task_release(refused), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        tu_park_destroy(&park);
        tu_latch_destroy(&started);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_order),
        cmocka_unit_test(test_rejected_events_abort),
        cmocka_unit_test(test_caller_runs_events),
        cmocka_unit_test(test_listener_reentrancy),
        cmocka_unit_test(test_caller_runs_late_refusals_and_cancel),
        cmocka_unit_test(test_counters_wait_for_the_outcome),
    };
    return TU_RUN_TESTS(tests);
}
