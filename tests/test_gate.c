/* test_gate.c - the admission gate (seed 003): standalone gates and executor gates that share a
   group's budget with its tasks. One invariant per test: an attempt is admitted at most once and a
   permit released exactly once; a refused attempt holds nothing and is never admitted later; a
   second release (of the permit or of a copy) is refused, never counted; the limit holds under 8
   contending threads; an executor gate's permit counts at all three layers, never overtakes a
   queued task, and hands its permits to the oldest waiter when released; releases racing with a
   shutdown release once; bad input. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct gate_tally {
    atomic_int ev[3];           /* by groupconc_gate_event_type */
    atomic_int by_reason_full, by_reason_conc, by_reason_bulkhead, by_reason_global,
        by_reason_shutdown;
    atomic_int released_kind[3];
    atomic_long error_sum;      /* RELEASED: the caller's codes, added up */
    atomic_int bad;             /* an event with fields that do not fit its type */
    groupconc_gate *reenter;    /* set: the ADMITTED listener tries to acquire here too */
    atomic_int reenter_rc;      /* what that attempt returned (first one only) */
    atomic_int reenter_done;
} gate_tally;

static void gate_tally_init(gate_tally *t) {
    memset(t, 0, sizeof *t);
    atomic_init(&t->reenter_rc, 1);
}

static void tally_listener(const groupconc_gate_event *ev, void *user_data) {
    gate_tally *t = (gate_tally *)user_data;
    if ((unsigned)ev->type > 2u) {
        atomic_fetch_add(&t->bad, 1);
        return;
    }
    atomic_fetch_add(&t->ev[ev->type], 1);
    switch (ev->type) {
    case GROUPCONC_GATE_ADMITTED:
        if (ev->reason != 0) atomic_fetch_add(&t->bad, 1);
        if (t->reenter && !atomic_exchange(&t->reenter_done, 1)) {
            groupconc_permit p;
            int rc = groupconc_gate_try_acquire(t->reenter, ev->group, &p);
            atomic_store(&t->reenter_rc, rc);
            if (rc == GROUPCONC_OK) groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0);
        }
        break;
    case GROUPCONC_GATE_REJECTED:
        switch (ev->reason) {
        case GROUPCONC_EGATE_FULL: atomic_fetch_add(&t->by_reason_full, 1); break;
        case GROUPCONC_EREJECTED_CONCURRENCY: atomic_fetch_add(&t->by_reason_conc, 1); break;
        case GROUPCONC_EREJECTED_BULKHEAD: atomic_fetch_add(&t->by_reason_bulkhead, 1); break;
        case GROUPCONC_EREJECTED_GLOBAL: atomic_fetch_add(&t->by_reason_global, 1); break;
        case GROUPCONC_ESHUTDOWN: atomic_fetch_add(&t->by_reason_shutdown, 1); break;
        default: atomic_fetch_add(&t->bad, 1);
        }
        break;
    case GROUPCONC_GATE_RELEASED:
        if ((unsigned)ev->kind > 2u) atomic_fetch_add(&t->bad, 1);
        else atomic_fetch_add(&t->released_kind[ev->kind], 1);
        atomic_fetch_add(&t->error_sum, ev->error);
        break;
    }
}

static groupconc_gate *standalone(int limit, gate_tally *t) {
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.limit = limit;
    if (t) {
        c.listener = tally_listener;
        c.listener_user_data = t;
    }
    groupconc_gate *g = NULL;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_OK);
    assert_non_null(g);
    return g;
}

static groupconc_gate *for_executor(groupconc_executor *ex, gate_tally *t) {
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.executor = ex;
    if (t) {
        c.listener = tally_listener;
        c.listener_user_data = t;
    }
    groupconc_gate *g = NULL;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_OK);
    return g;
}

static groupconc_gate_stats gstat(groupconc_gate *g, const char *group) {
    groupconc_gate_stats s;
    assert_int_equal(groupconc_gate_stats_get(g, group, &s), GROUPCONC_OK);
    return s;
}

static bool permit_is_empty(const groupconc_permit *p) {
    return p->gate == NULL && p->slot == 0 && p->generation == 0;
}

/* ---- standalone gates --------------------------------------------------------------------------- */

static void test_admits_up_to_limit_then_refuses(void **state) {
    (void)state;
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = standalone(3, &t);
    groupconc_permit p[4];
    for (int i = 0; i < 3; i++) assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p[i]), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p[3]), GROUPCONC_EGATE_FULL);
    assert_true(permit_is_empty(&p[3]));
    groupconc_gate_stats s = gstat(g, NULL);
    assert_int_equal(s.limit, 3);
    assert_int_equal(s.available, 0);
    assert_int_equal(s.in_flight, 3);
    assert_int_equal(s.admitted, 3);
    assert_int_equal(s.rejected, 1);
    assert_int_equal(groupconc_permit_release(&p[1], GROUPCONC_RELEASE_FAILURE, 42), GROUPCONC_OK);
    s = gstat(g, NULL);
    assert_int_equal(s.available, 1);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.released_failure, 1);
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p[1]), GROUPCONC_OK); /* capacity came back */
    assert_int_equal(groupconc_permit_release(&p[0], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&p[1], GROUPCONC_RELEASE_CANCELLED, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&p[2], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    s = gstat(g, NULL);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.available, 3);
    assert_int_equal(s.admitted, 4);
    assert_int_equal(s.released_success + s.released_failure + s.released_cancelled, 4);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_ADMITTED]), 4);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_REJECTED]), 1);
    assert_int_equal(atomic_load(&t.by_reason_full), 1);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_RELEASED]), 4);
    assert_int_equal(atomic_load(&t.released_kind[GROUPCONC_RELEASE_FAILURE]), 1);
    assert_int_equal(atomic_load(&t.released_kind[GROUPCONC_RELEASE_CANCELLED]), 1);
    assert_int_equal(atomic_load(&t.error_sum), 42);
    assert_int_equal(atomic_load(&t.bad), 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* A refused attempt takes no capacity, and freeing capacity later does not admit it: admission is
   decided once, at the call. */
static void test_rejected_attempt_holds_nothing(void **state) {
    (void)state;
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = standalone(1, &t);
    groupconc_permit held, refused;
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &held), GROUPCONC_OK);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(groupconc_gate_try_acquire(g, NULL, &refused), GROUPCONC_EGATE_FULL);
        assert_true(permit_is_empty(&refused));
    }
    assert_int_equal(gstat(g, NULL).in_flight, 1);
    assert_int_equal(groupconc_permit_release(&refused, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_permit_release(&held, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    groupconc_gate_stats s = gstat(g, NULL);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.available, 1);
    assert_int_equal(s.admitted, 1); /* none of the 100 refused attempts got in afterwards */
    assert_int_equal(s.rejected, 100);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_ADMITTED]), 1);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* A second release - of the permit itself, of a copy, or after its slot was reused - is refused
   with GROUPCONC_EPERMIT and changes nothing. */
static void test_second_release_detected(void **state) {
    (void)state;
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = standalone(2, &t);
    groupconc_permit p, copy, again;
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p), GROUPCONC_OK);
    copy = p;
    assert_int_equal(groupconc_permit_release(&p, 7, 0), GROUPCONC_EINVAL); /* unknown kind */
    assert_int_equal(gstat(g, NULL).in_flight, 1);                          /* nothing done */
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_permit_release(&copy, GROUPCONC_RELEASE_FAILURE, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &again), GROUPCONC_OK); /* reuses the slot */
    assert_int_equal(again.slot, p.slot);
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(gstat(g, NULL).in_flight, 1); /* the stale copy did not free `again` */
    groupconc_permit zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(groupconc_permit_release(&zero, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    groupconc_permit forged = again;
    forged.slot = 1000;
    assert_int_equal(groupconc_permit_release(&forged, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_permit_release(&again, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    groupconc_gate_stats s = gstat(g, NULL);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.released_success + s.released_failure + s.released_cancelled, 2);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_RELEASED]), 2);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

static void test_unlimited_gate_grows(void **state) {
    (void)state;
    enum { N = 1000 };
    groupconc_gate *g = standalone(GROUPCONC_UNLIMITED, NULL);
    static groupconc_permit p[N];
    for (int i = 0; i < N; i++) assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p[i]), GROUPCONC_OK);
    groupconc_gate_stats s = gstat(g, NULL);
    assert_int_equal(s.limit, GROUPCONC_UNLIMITED);
    assert_int_equal(s.available, GROUPCONC_UNLIMITED);
    assert_int_equal(s.in_flight, N);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_EBUSY); /* permits out: nothing done */
    for (int i = N - 1; i >= 0; i--)
        assert_int_equal(groupconc_permit_release(&p[i], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(gstat(g, NULL).in_flight, 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* 8 threads x 100,000 attempts against a limit of 4: never more than 4 admitted at once, every
   admitted attempt released once, in-flight 0 at the end. */
typedef struct contend {
    groupconc_gate *gate;
    tu_peak *peak;
    atomic_long *admitted, *refused;
    atomic_int *errors;
    long attempts;
} contend;

static void contend_main(void *arg) {
    contend *c = (contend *)arg;
    long admitted = 0, refused = 0;
    for (long i = 0; i < c->attempts; i++) {
        groupconc_permit p;
        int rc = groupconc_gate_try_acquire(c->gate, NULL, &p);
        if (rc == GROUPCONC_OK) {
            tu_peak_enter(c->peak);
            admitted++;
            tu_peak_leave(c->peak);
            if (groupconc_permit_release(&p, (groupconc_release_kind)(i % 3), 0) != GROUPCONC_OK)
                atomic_fetch_add(c->errors, 1);
        } else if (rc == GROUPCONC_EGATE_FULL) {
            refused++;
        } else {
            atomic_fetch_add(c->errors, 1);
        }
    }
    atomic_fetch_add(c->admitted, admitted);
    atomic_fetch_add(c->refused, refused);
}

static void test_limit_holds_under_contention(void **state) {
    (void)state;
    enum { THREADS = 8, LIMIT = 4 };
    const long attempts = 100000;
    groupconc_gate *g = standalone(LIMIT, NULL);
    tu_peak peak;
    tu_peak_init(&peak);
    atomic_long admitted, refused;
    atomic_int errors;
    atomic_init(&admitted, 0);
    atomic_init(&refused, 0);
    atomic_init(&errors, 0);
    contend c = {g, &peak, &admitted, &refused, &errors, attempts};
    tu_thread th[THREADS];
    for (int i = 0; i < THREADS; i++) assert_true(tu_thread_start(&th[i], contend_main, &c));
    for (int i = 0; i < THREADS; i++) tu_thread_join(th[i]);
    assert_int_equal(atomic_load(&errors), 0);
    assert_true(tu_peak_max(&peak) <= LIMIT);
    assert_true(tu_peak_max(&peak) >= 1);
    groupconc_gate_stats s = gstat(g, NULL);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.admitted, (uint64_t)atomic_load(&admitted));
    assert_int_equal(s.rejected, (uint64_t)atomic_load(&refused));
    assert_int_equal(s.admitted + s.rejected, (uint64_t)THREADS * (uint64_t)attempts);
    assert_int_equal(s.released_success + s.released_failure + s.released_cancelled, s.admitted);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* Releasing on another thread than the acquirer's, and racing releases of one permit: exactly one
   wins. */
typedef struct racer {
    groupconc_permit permit;
    tu_latch *go;
    atomic_int *ok, *refused;
} racer;

static void racer_main(void *arg) {
    racer *r = (racer *)arg;
    (void)tu_latch_wait(r->go);
    int rc = groupconc_permit_release(&r->permit, GROUPCONC_RELEASE_SUCCESS, 0);
    if (rc == GROUPCONC_OK) atomic_fetch_add(r->ok, 1);
    else if (rc == GROUPCONC_EPERMIT) atomic_fetch_add(r->refused, 1);
}

static void test_racing_releases_release_once(void **state) {
    (void)state;
    groupconc_gate *g = standalone(1, NULL);
    for (int round = 0; round < 200; round++) {
        tu_latch go;
        tu_latch_init(&go, 1);
        atomic_int ok, refused;
        atomic_init(&ok, 0);
        atomic_init(&refused, 0);
        groupconc_permit p;
        assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p), GROUPCONC_OK);
        racer r[4];
        tu_thread th[4];
        for (int i = 0; i < 4; i++) {
            r[i].permit = p; /* four copies of one permit */
            r[i].go = &go;
            r[i].ok = &ok;
            r[i].refused = &refused;
            assert_true(tu_thread_start(&th[i], racer_main, &r[i]));
        }
        tu_latch_open(&go);
        for (int i = 0; i < 4; i++) tu_thread_join(th[i]);
        assert_int_equal(atomic_load(&ok), 1);
        assert_int_equal(atomic_load(&refused), 3);
        assert_int_equal(gstat(g, NULL).in_flight, 0);
        tu_latch_destroy(&go);
    }
    assert_int_equal(gstat(g, NULL).released_success, 200);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* A listener that calls back into the gate works, and cannot change a decision already taken. */
static void test_listener_reenters(void **state) {
    (void)state;
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = standalone(1, &t);
    t.reenter = g;
    groupconc_permit p;
    assert_int_equal(groupconc_gate_try_acquire(g, NULL, &p), GROUPCONC_OK);
    assert_int_equal(atomic_load(&t.reenter_rc), GROUPCONC_EGATE_FULL); /* the listener's own try */
    assert_int_equal(gstat(g, NULL).in_flight, 1);                       /* ours still holds */
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_REJECTED]), 1);
    assert_int_equal(atomic_load(&t.bad), 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
}

/* ---- executor gates: one budget with the group's tasks --------------------------------------- */

/* Group "t" of concurrency 2 with a gate permit held runs at most one task at once; releasing the
   permit starts the oldest waiting task. */
static void test_one_budget_with_tasks(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = for_executor(ex, &t);
    groupconc_permit permit;
    assert_int_equal(groupconc_gate_try_acquire(g, "t", &permit), GROUPCONC_OK);

    enum { N = 3 };
    atomic_int order;
    atomic_init(&order, 0);
    tu_latch started[N];
    tu_park park[N];
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        tu_latch_init(&started[i], 1);
        tu_park_init(&park[i], &started[i], &order);
        h[i] = tu_submit(ex, "t", NULL, tu_park_fn, &park[i]);
    }
    assert_true(tu_latch_wait(&started[0]));
    groupconc_group_stats gs = tu_gstats(ex, "t");
    assert_int_equal(gs.running, 2); /* task 0 and the gate permit */
    assert_int_equal(gs.gate_permits, 1);
    assert_int_equal(gs.waiting_concurrency, 2);
    assert_int_equal(gs.in_flight, 4); /* the permit and the three tasks are past the bulkhead */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.gate_permits, 1);
    assert_int_equal(xs.running, 2);
    assert_int_equal(xs.global_in_flight, 4);
    assert_false(tu_latch_wait_for(&started[1], 20 * TU_MS)); /* no second task beside the permit */
    groupconc_gate_stats s = gstat(g, "t");
    assert_int_equal(s.available, 0);
    assert_int_equal(s.in_flight, 1);
    assert_int_equal(s.limit, 2);

    assert_int_equal(groupconc_permit_release(&permit, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started[1])); /* the oldest waiter got the permit */
    assert_int_equal(atomic_load(&park[1].start_seq), 1); /* the second to start */
    assert_false(tu_latch_wait_for(&started[2], 20 * TU_MS));
    gs = tu_gstats(ex, "t");
    assert_int_equal(gs.running, 2);
    assert_int_equal(gs.gate_permits, 0);
    for (int i = 0; i < N; i++) tu_park_release(&park[i]);
    for (int i = 0; i < N; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(atomic_load(&t.ev[GROUPCONC_GATE_RELEASED]), 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_EBUSY); /* the gate still exists */
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    for (int i = 0; i < N; i++) {
        groupconc_task_release(h[i]);
        tu_park_destroy(&park[i]);
        tu_latch_destroy(&started[i]);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A gate permit never overtakes a task already waiting in the group, even when a permit frees. */
static void test_gate_never_overtakes_waiting_task(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default(); /* concurrency 1 */
    groupconc_executor *ex = tu_executor(&p);
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = for_executor(ex, &t);
    tu_latch sa, sb;
    tu_latch_init(&sa, 1);
    tu_latch_init(&sb, 1);
    tu_park a, b;
    tu_park_init(&a, &sa, NULL);
    tu_park_init(&b, &sb, NULL);
    groupconc_task *ha = tu_submit(ex, "k", NULL, tu_park_fn, &a);
    assert_true(tu_latch_wait(&sa));
    groupconc_task *hb = tu_submit(ex, "k", NULL, tu_park_fn, &b); /* waits for the permit */
    groupconc_permit permit;
    assert_int_equal(groupconc_gate_try_acquire(g, "k", &permit), GROUPCONC_EREJECTED_CONCURRENCY);
    tu_park_release(&a);
    assert_true(tu_latch_wait(&sb)); /* b, not the gate, got a's permit */
    assert_int_equal(groupconc_gate_try_acquire(g, "k", &permit), GROUPCONC_EREJECTED_CONCURRENCY);
    tu_park_release(&b);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_gate_try_acquire(g, "k", &permit), GROUPCONC_OK);
    /* a task submitted now waits behind the permit */
    tu_latch sc;
    tu_latch_init(&sc, 1);
    tu_park c;
    tu_park_init(&c, &sc, NULL);
    groupconc_task *hc = tu_submit(ex, "k", NULL, tu_park_fn, &c);
    assert_false(tu_latch_wait_for(&sc, 20 * TU_MS));
    assert_int_equal(tu_gstats(ex, "k").waiting_concurrency, 1);
    assert_int_equal(groupconc_permit_release(&permit, GROUPCONC_RELEASE_CANCELLED, -3), GROUPCONC_OK);
    assert_true(tu_latch_wait(&sc));
    tu_park_release(&c);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&t.by_reason_conc), 2);
    assert_int_equal(atomic_load(&t.error_sum), -3);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    groupconc_task_release(ha);
    groupconc_task_release(hb);
    groupconc_task_release(hc);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&c);
    tu_latch_destroy(&sa);
    tu_latch_destroy(&sb);
    tu_latch_destroy(&sc);
}

/* The refusing layer is named: global, bulkhead, concurrency. */
static void test_gate_reasons_name_the_layer(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 2;
    p.default_max_in_flight = 1;
    p.global_max_in_flight = 2;
    groupconc_executor *ex = tu_executor(&p);
    gate_tally t;
    gate_tally_init(&t);
    groupconc_gate *g = for_executor(ex, &t);
    groupconc_permit a, b, c;
    assert_int_equal(groupconc_gate_try_acquire(g, "x", &a), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(g, "x", &b), GROUPCONC_EREJECTED_BULKHEAD);
    assert_true(permit_is_empty(&b));
    assert_int_equal(groupconc_gate_try_acquire(g, "y", &b), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(g, "z", &c), GROUPCONC_EREJECTED_GLOBAL);
    groupconc_gate_stats s = gstat(g, "x");
    assert_int_equal(s.available, 0);
    assert_int_equal(s.in_flight, 1);
    s = gstat(g, NULL);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.admitted, 2);
    assert_int_equal(s.rejected, 2);
    assert_int_equal(groupconc_gate_stats_get(g, "never", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_permit_release(&a, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(g, "z", &c), GROUPCONC_OK);
    assert_int_equal(gstat(g, "z").available, 0); /* the global cap is full again */
    assert_int_equal(groupconc_permit_release(&b, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(gstat(g, "z").available, 0); /* z's bulkhead (1) is held */
    assert_int_equal(gstat(g, "y").available, 1);
    assert_int_equal(groupconc_permit_release(&c, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(atomic_load(&t.by_reason_bulkhead), 1);
    assert_int_equal(atomic_load(&t.by_reason_global), 1);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* Releases racing with an executor shutdown and a group's shutdown release once each, and the
   executor's layers end empty. */
typedef struct releaser {
    groupconc_permit *permits;
    int count;
    tu_latch *go;
    atomic_int *ok, *bad;
} releaser;

static void releaser_main(void *arg) {
    releaser *r = (releaser *)arg;
    (void)tu_latch_wait(r->go);
    for (int i = 0; i < r->count; i++) {
        int rc = groupconc_permit_release(&r->permits[i], GROUPCONC_RELEASE_CANCELLED, 0);
        if (rc == GROUPCONC_OK) atomic_fetch_add(r->ok, 1);
        else atomic_fetch_add(r->bad, 1);
    }
}

static void test_release_races_with_shutdown(void **state) {
    (void)state;
    enum { N = 64 };
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = N;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = for_executor(ex, NULL);
    static groupconc_permit permits[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(groupconc_gate_try_acquire(g, i % 2 ? "odd" : "even", &permits[i]), GROUPCONC_OK);
    tu_latch go;
    tu_latch_init(&go, 1);
    atomic_int ok, bad;
    atomic_init(&ok, 0);
    atomic_init(&bad, 0);
    releaser r = {permits, N, &go, &ok, &bad};
    tu_thread th;
    assert_true(tu_thread_start(&th, releaser_main, &r));
    tu_latch_open(&go);
    assert_int_equal(groupconc_group_shutdown(ex, "odd"), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    tu_thread_join(th);
    assert_int_equal(atomic_load(&ok), N);
    assert_int_equal(atomic_load(&bad), 0);
    for (int i = 0; i < N; i++) /* all of them once more: every one refused */
        assert_int_equal(groupconc_permit_release(&permits[i], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.gate_permits, 0);
    groupconc_permit late;
    assert_int_equal(groupconc_gate_try_acquire(g, "even", &late), GROUPCONC_ESHUTDOWN);
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.executor = ex;
    groupconc_gate *g2 = NULL;
    assert_int_equal(groupconc_gate_create(&c, &g2), GROUPCONC_ESHUTDOWN);
    assert_null(g2);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&go);
}

/* An evicted group's permits still go back where they were taken. */
static void test_release_after_evict(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = for_executor(ex, NULL);
    groupconc_permit a;
    assert_int_equal(groupconc_gate_try_acquire(g, "e", &a), GROUPCONC_OK);
    groupconc_task *h = tu_submit(ex, "other", NULL, tu_noop_fn, NULL); /* waits for a global permit */
    assert_int_equal(groupconc_group_evict(ex, "e"), GROUPCONC_OK);
    assert_int_equal(groupconc_permit_release(&a, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    tu_wait_status(h, GROUPCONC_STATUS_SUCCESS); /* the global permit went to the waiter */
    groupconc_task_release(h);
    assert_int_equal(tu_xstats(ex).global_in_flight, 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- bad input ----------------------------------------------------------------------------------- */

static void test_gate_bad_input(void **state) {
    (void)state;
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    groupconc_gate *g = (groupconc_gate *)&c;
    assert_int_equal(groupconc_gate_create(NULL, &g), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_create(&c, NULL), GROUPCONC_EINVAL);
    g = (groupconc_gate *)&c;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_ELIMIT); /* limit 0, standalone */
    assert_null(g);
    c.limit = -5;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_ELIMIT);
    c.limit = 1;
    groupconc_policy dp = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&dp);
    c.executor = ex;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_ELIMIT); /* a limit on an executor gate */
    c.limit = 0;
    groupconc_gate *eg = NULL;
    assert_int_equal(groupconc_gate_create(&c, &eg), GROUPCONC_OK);
    groupconc_gate *sg = standalone(1, NULL);
    groupconc_permit p;
    assert_int_equal(groupconc_gate_try_acquire(NULL, NULL, &p), GROUPCONC_EINVAL);
    assert_true(permit_is_empty(&p));
    assert_int_equal(groupconc_gate_try_acquire(sg, NULL, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_try_acquire(sg, "g", &p), GROUPCONC_EINVAL); /* standalone: no group */
    assert_int_equal(groupconc_gate_try_acquire(eg, NULL, &p), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_try_acquire(eg, "", &p), GROUPCONC_EKEYEMPTY);
    char long_key[GROUPCONC_MAX_KEY_LEN + 2];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    assert_int_equal(groupconc_gate_try_acquire(eg, long_key, &p), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_permit_release(NULL, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_EPERMIT);
    assert_int_equal(groupconc_permit_release(&p, (groupconc_release_kind)-1, 0), GROUPCONC_EINVAL);
    groupconc_gate_stats s;
    assert_int_equal(groupconc_gate_stats_get(NULL, NULL, &s), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_stats_get(sg, NULL, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_stats_get(sg, "g", &s), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_gate_stats_get(eg, "", &s), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_gate_stats_get(eg, long_key, &s), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_gate_destroy(NULL), GROUPCONC_EINVAL);
    assert_string_equal(groupconc_release_kind_name(GROUPCONC_RELEASE_FAILURE), "FAILURE");
    assert_string_equal(groupconc_release_kind_name((groupconc_release_kind)9), "UNKNOWN");
    assert_string_equal(groupconc_gate_event_type_name(GROUPCONC_GATE_RELEASED), "RELEASED");
    assert_string_equal(groupconc_gate_event_type_name((groupconc_gate_event_type)9), "UNKNOWN");
    assert_string_equal(groupconc_errname(GROUPCONC_EPERMIT), "GROUPCONC_EPERMIT");
    assert_string_equal(groupconc_errname(GROUPCONC_EGATE_FULL), "GROUPCONC_EGATE_FULL");
    assert_string_equal(groupconc_errname(GROUPCONC_EBUSY), "GROUPCONC_EBUSY");
    assert_int_equal(groupconc_gate_destroy(sg), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_destroy(eg), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- deferred completion ------------------------------------------------------------------------ */

typedef struct deferring {
    groupconc_deferred *d;     /* what the body got */
    int defer_rc, second_rc;   /* groupconc_context_defer's codes (the second call: ESTATE) */
    int body_return;           /* what the body returns (PENDING unless set) */
    bool complete_in_body;     /* the body completes its own deferral before it returns */
    tu_latch deferred;         /* opened by the body once d is set */
    atomic_int cleanups;
    atomic_int cleanup_after_complete; /* the cleanup saw `completed` set */
    atomic_int completed;      /* set by the test just before it calls complete */
} deferring;

static void deferring_init(deferring *x) {
    memset(x, 0, sizeof *x);
    x->body_return = GROUPCONC_TASK_PENDING;
    tu_latch_init(&x->deferred, 1);
}

static int deferring_fn(groupconc_context *ctx, void **out_value, void *arg) {
    deferring *x = (deferring *)arg;
    (void)out_value;
    x->defer_rc = groupconc_context_defer(ctx, &x->d);
    x->second_rc = groupconc_context_defer(ctx, &(groupconc_deferred *){NULL});
    if (x->complete_in_body && x->defer_rc == GROUPCONC_OK) {
        atomic_store(&x->completed, 1);
        (void)groupconc_deferred_complete(x->d, 0, x);
    }
    tu_latch_open(&x->deferred);
    return x->body_return;
}

static void deferring_cleanup(void *arg) {
    deferring *x = (deferring *)arg;
    atomic_fetch_add(&x->cleanups, 1);
    if (atomic_load(&x->completed)) atomic_fetch_add(&x->cleanup_after_complete, 1);
}

static groupconc_task *submit_deferring(groupconc_executor *ex, const char *group, deferring *x) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = group;
    spec.fn = deferring_fn;
    spec.arg = x;
    spec.cleanup = deferring_cleanup;
    groupconc_task *h = NULL;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &h), GROUPCONC_OK);
    return h;
}

typedef struct completer {
    groupconc_deferred *d;
    int rc;
    void *value;
    atomic_int *completed;
    int result;
} completer;

static void completer_main(void *arg) {
    completer *c = (completer *)arg;
    if (c->completed) atomic_store(c->completed, 1);
    c->result = groupconc_deferred_complete(c->d, c->rc, c->value);
}

/* The body defers and returns; its worker runs other tasks (max_threads 1); the task keeps its
   permit (a second task of its group waits) and counts as running; a foreign thread completes it:
   SUCCESS with the value, cleanup after the completion, the waiting task then starts. */
static void test_deferred_completes_from_foreign_thread(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default(); /* concurrency 1 */
    p.max_threads = 1;
    groupconc_executor *ex = tu_executor(&p);
    deferring x;
    deferring_init(&x);
    groupconc_task *h = submit_deferring(ex, "io", &x);
    assert_true(tu_latch_wait(&x.deferred));
    assert_int_equal(x.defer_rc, GROUPCONC_OK);
    assert_int_equal(x.second_rc, GROUPCONC_ESTATE);
    groupconc_task *other = tu_submit(ex, "cpu", NULL, tu_noop_fn, NULL);
    tu_wait_status(other, GROUPCONC_STATUS_SUCCESS); /* the only worker is free again */
    groupconc_task *next = tu_submit(ex, "io", NULL, tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "io");
    assert_int_equal(gs.running, 1); /* the deferred task */
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.submitted, 2);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(h, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(atomic_load(&x.cleanups), 0); /* never while the work may use arg */
    assert_false(groupconc_deferred_is_cancelled(x.d));
    completer c = {x.d, 0, &x, &x.completed, -1};
    tu_thread th;
    assert_true(tu_thread_start(&th, completer_main, &c));
    tu_thread_join(th);
    assert_int_equal(c.result, GROUPCONC_OK);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &x);
    assert_true(r.end_ns >= r.start_ns);
    assert_int_equal(atomic_load(&x.cleanups), 1);
    assert_int_equal(atomic_load(&x.cleanup_after_complete), 1);
    tu_wait_status(next, GROUPCONC_STATUS_SUCCESS); /* it got the permit */
    gs = tu_gstats(ex, "io");
    assert_int_equal(gs.succeeded, 2);
    assert_int_equal(gs.running, 0);
    groupconc_task_release(h);
    groupconc_task_release(other);
    groupconc_task_release(next);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.deferred);
}

/* Completed before the body returned: its worker takes the result. */
static void test_deferred_completed_before_return(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    deferring x;
    deferring_init(&x);
    x.complete_in_body = true;
    groupconc_task *h = submit_deferring(ex, "io", &x);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &x);
    assert_int_equal(atomic_load(&x.cleanups), 1);
    assert_int_equal(tu_gstats(ex, "io").running, 0);
    groupconc_task_release(h);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.deferred);
}

/* A graceful shutdown waits for a deferred task; its completion from a foreign thread after the
   shutdown began still completes, is counted, and lets the shutdown return OK. */
static void test_deferred_completion_after_graceful_shutdown(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    deferring x;
    deferring_init(&x);
    groupconc_task *h = submit_deferring(ex, "io", &x);
    assert_true(tu_latch_wait(&x.deferred));
    tu_graceful g;
    tu_graceful_start(&g, ex);
    assert_true(tu_latch_wait(&g.begun));
    for (int i = 0; i < 1000 && !tu_xstats(ex).shutdown; i++) tu_sleep_ns(TU_MS);
    assert_true(tu_xstats(ex).shutdown);
    groupconc_task *late = NULL;
    assert_int_equal(groupconc_submit(ex, "io", NULL, tu_noop_fn, NULL, &late), GROUPCONC_ESHUTDOWN);
    completer c = {x.d, 7, NULL, &x.completed, -1};
    tu_thread ct;
    assert_true(tu_thread_start(&ct, completer_main, &c));
    tu_thread_join(ct);
    assert_int_equal(tu_graceful_join(&g), GROUPCONC_OK);
    assert_int_equal(c.result, GROUPCONC_OK);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, 7);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.failed, 1);
    assert_int_equal(xs.submitted, 1); /* the late submit was refused before it counted */
    assert_int_equal(xs.completed, 1);
    assert_int_equal(atomic_load(&x.cleanups), 1);
    groupconc_task_release(h);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.deferred);
}

/* A cancel, a group shutdown or an executor shutdown flags a deferred task; the work sees it and
   completes CANCELLED. */
static void test_deferred_task_is_flagged(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    deferring x;
    deferring_init(&x);
    groupconc_task *h = submit_deferring(ex, "io", &x);
    assert_true(tu_latch_wait(&x.deferred));
    for (int i = 0; i < 1000 && tu_gstats(ex, "io").running != 1; i++) tu_sleep_ns(TU_MS); /* parked */
    groupconc_cancel_outcome out;
    assert_int_equal(groupconc_task_cancel(h, &out), GROUPCONC_OK);
    assert_true(out == GROUPCONC_CANCEL_FLAGGED);
    assert_true(groupconc_deferred_is_cancelled(x.d));
    assert_int_equal(groupconc_deferred_complete(x.d, GROUPCONC_TASK_PENDING, NULL), GROUPCONC_EINVAL);
    atomic_store(&x.completed, 1);
    assert_int_equal(groupconc_deferred_complete(x.d, GROUPCONC_TASK_CANCELLED, NULL), GROUPCONC_OK);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_int_equal(tu_gstats(ex, "io").cancelled, 1);
    groupconc_task_release(h);

    deferring y; /* the executor's shutdown flags it too */
    deferring_init(&y);
    h = submit_deferring(ex, "io", &y);
    assert_true(tu_latch_wait(&y.deferred));
    assert_int_equal(groupconc_group_shutdown(ex, "io"), GROUPCONC_OK);
    for (int i = 0; i < 1000 && !groupconc_deferred_is_cancelled(y.d); i++) tu_sleep_ns(TU_MS);
    assert_true(groupconc_deferred_is_cancelled(y.d));
    assert_int_equal(groupconc_deferred_complete(y.d, 0, NULL), GROUPCONC_OK);
    tu_wait_status(h, GROUPCONC_STATUS_SUCCESS); /* flagged, but it finished: its own outcome */
    groupconc_task_release(h);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.deferred);
    tu_latch_destroy(&y.deferred);
}

/* PENDING without a deferral is a FAILED task; a deferral followed by another return is void. */
static int pending_without_defer_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return GROUPCONC_TASK_PENDING;
}

static void test_deferral_misuse(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 1;
    p.global_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *h = tu_submit(ex, "m", NULL, pending_without_defer_fn, NULL);
    groupconc_result r = tu_wait(h);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, GROUPCONC_TASK_PENDING);
    groupconc_task_release(h);

    deferring x; /* defers, then returns 5: FAILED 5 at once, the deferral is void */
    deferring_init(&x);
    x.body_return = 5;
    h = submit_deferring(ex, "m", &x);
    r = tu_wait(h);
    assert_int_equal(x.defer_rc, GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, 5);
    assert_int_equal(atomic_load(&x.cleanups), 1);
    groupconc_task_release(h);

    /* a CALLER_RUNS run inside submit has no worker to free: ESTATE, and it completes normally */
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *hb = tu_submit(ex, "m", NULL, tu_park_fn, &blocker); /* takes the global permit */
    assert_true(tu_latch_wait(&started));
    deferring y;
    deferring_init(&y);
    y.body_return = 0;
    h = submit_deferring(ex, "m", &y); /* refused at the global cap: runs here, on this thread */
    assert_int_equal(y.defer_rc, GROUPCONC_ESTATE);
    tu_wait_status(h, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(h);
    tu_park_release(&blocker);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);

    groupconc_deferred *d = (groupconc_deferred *)&x;
    assert_int_equal(groupconc_context_defer(NULL, &d), GROUPCONC_EINVAL);
    assert_null(d);
    assert_int_equal(groupconc_deferred_complete(NULL, 0, NULL), GROUPCONC_EINVAL);
    assert_false(groupconc_deferred_is_cancelled(NULL));
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.deferred);
    tu_latch_destroy(&y.deferred);
}

/* Issue 23 item 9: a cap of INT_MAX is a cap, not "no bound": with 5 permits held, `available` reads
   INT_MAX - 5 (it read GROUPCONC_UNLIMITED), and INT_MAX again after the releases. The standalone
   gate (limit INT_MAX) and an executor gate on a group whose concurrency is INT_MAX (the other
   layers unbounded); an UNLIMITED gate still reads GROUPCONC_UNLIMITED. */
static void test_gate_stats_int_max_cap(void **state) {
    (void)state;
    groupconc_permit held[5];
    groupconc_gate_stats st;
    groupconc_gate *g = standalone(INT_MAX, NULL);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_gate_try_acquire(g, NULL, &held[i]), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_stats_get(g, NULL, &st), GROUPCONC_OK);
    assert_int_equal(st.limit, INT_MAX);
    assert_int_equal(st.available, INT_MAX - 5);
    assert_int_equal(st.in_flight, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_permit_release(&held[i], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_stats_get(g, NULL, &st), GROUPCONC_OK);
    assert_int_equal(st.limit, INT_MAX);
    assert_int_equal(st.available, INT_MAX);
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);

    g = standalone(GROUPCONC_UNLIMITED, NULL);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_gate_try_acquire(g, NULL, &held[i]), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_stats_get(g, NULL, &st), GROUPCONC_OK);
    assert_int_equal(st.limit, GROUPCONC_UNLIMITED);
    assert_int_equal(st.available, GROUPCONC_UNLIMITED);
    assert_int_equal(st.in_flight, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_permit_release(&held[i], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);

    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = INT_MAX;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.executor = ex;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_gate_try_acquire(g, "big", &held[i]), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_stats_get(g, "big", &st), GROUPCONC_OK);
    assert_int_equal(st.limit, INT_MAX);
    assert_int_equal(st.available, INT_MAX - 5);
    assert_int_equal(st.in_flight, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(groupconc_permit_release(&held[i], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_stats_get(g, "big", &st), GROUPCONC_OK);
    assert_int_equal(st.limit, INT_MAX);
    assert_int_equal(st.available, INT_MAX);
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admits_up_to_limit_then_refuses),
        cmocka_unit_test(test_rejected_attempt_holds_nothing),
        cmocka_unit_test(test_second_release_detected),
        cmocka_unit_test(test_unlimited_gate_grows),
        cmocka_unit_test(test_limit_holds_under_contention),
        cmocka_unit_test(test_racing_releases_release_once),
        cmocka_unit_test(test_listener_reenters),
        cmocka_unit_test(test_one_budget_with_tasks),
        cmocka_unit_test(test_gate_never_overtakes_waiting_task),
        cmocka_unit_test(test_gate_reasons_name_the_layer),
        cmocka_unit_test(test_release_races_with_shutdown),
        cmocka_unit_test(test_release_after_evict),
        cmocka_unit_test(test_gate_bad_input),
        cmocka_unit_test(test_deferred_completes_from_foreign_thread),
        cmocka_unit_test(test_deferred_completed_before_return),
        cmocka_unit_test(test_deferred_completion_after_graceful_shutdown),
        cmocka_unit_test(test_deferred_task_is_flagged),
        cmocka_unit_test(test_deferral_misuse),
        cmocka_unit_test(test_gate_stats_int_max_cap),
    };
    return TU_RUN_TESTS(tests);
}
