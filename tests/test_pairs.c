/* test_pairs.c - the pair matrix (CONTRIBUTING.md, "The pair matrix"; issue 23, "The pairs, tested
   on purpose"): for every pair of features that can meet on one task or group, a test
   pair_<a>_<b> that puts both in play on the same task or group and asserts the exact outcome
   (status, reason, counters, which callbacks ran once, cleanups counted: no leak).

   The features, in matrix order: tasks, execall, reject, listener, resolver, deferred, gate, scope,
   deadline, pause, live, bounded, runcap, fleet, groupshut, shutdown, dump, blocking.

   Every test starts from px_reset(): the shared counters (cleanups, listener events by type,
   completion callbacks, rejection handler and resolver calls, the in-process fleet provider) are
   zeroed, and each test destroys its executor before it returns. Known states are built with
   latches (tu_park) and the stats (the locked step admits the inbox: after a submit from this
   thread the stats see the task); short real deadlines are used only for queue deadlines and
   join_for / execute_all timeouts, with generous bounds.

   Cells that met a defect of issue 23 (items 1-8, 10) assert the fixed behaviour and name the
   item in a comment. PAIRS_TEST=<substring> runs only matching tests.

   With a module left out (GROUPCONC_NO_GATE / _SCOPES / _DUMP, meson -Dno_modules) its pairs are
   left out, and so, without the dump, are the pairs that wait for a deferring body to return to
   its worker (dfr_wait sees that in the dump). */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

#include <limits.h>

#define OK(x) assert_int_equal((x), GROUPCONC_OK)

/* ==== shared counters ============================================================================ */

static atomic_int g_cleanups;      /* cl_fn calls */
static atomic_int g_ev[5];         /* listener events by type */
static atomic_int g_ev_reason;     /* the last REJECTED event's reason */
static atomic_int g_ev_fleet_reason; /* the last FLEET event's reason */
static atomic_int g_oc;            /* oc_fn (completion callback) calls */
static atomic_int g_handler;       /* rejection handler calls */
static atomic_int g_resolver;      /* resolver calls */
static atomic_int g_res_conc;      /* what the resolver answers for "r*" keys */
static atomic_int g_started_order; /* STARTED events, numbered */
static tu_thread_id g_main;        /* the test's thread */
static atomic_bool g_completed_on_main; /* a COMPLETED event ran on the test's thread */

static inline void px_reset(void) {
    atomic_store(&g_cleanups, 0);
    for (int i = 0; i < 5; i++) atomic_store(&g_ev[i], 0);
    atomic_store(&g_ev_reason, 0);
    atomic_store(&g_ev_fleet_reason, 0);
    atomic_store(&g_oc, 0);
    atomic_store(&g_handler, 0);
    atomic_store(&g_resolver, 0);
    atomic_store(&g_res_conc, 3);
    atomic_store(&g_started_order, 0);
    atomic_store(&g_completed_on_main, false);
    g_main = tu_self();
}

static inline void cl_fn(void *arg) {
    (void)arg;
    atomic_fetch_add(&g_cleanups, 1);
}

static inline void oc_fn(groupconc_task *t, const groupconc_result *r, void *ud) {
    (void)t;
    (void)r;
    (void)ud;
    atomic_fetch_add(&g_oc, 1);
}

static inline void listener(const groupconc_event *e, void *ud) {
    (void)ud;
    if ((int)e->type >= 0 && (int)e->type < 5) atomic_fetch_add(&g_ev[e->type], 1);
    if (e->type == GROUPCONC_EVENT_REJECTED) atomic_store(&g_ev_reason, e->reason);
    if (e->type == GROUPCONC_EVENT_FLEET) atomic_store(&g_ev_fleet_reason, e->reason);
    if (e->type == GROUPCONC_EVENT_COMPLETED && tu_same_thread(tu_self(), g_main))
        atomic_store(&g_completed_on_main, true);
}

/* "r..." keys get g_res_conc; every call counted. */
static inline int resolver(const char *group, int *out, void *ud) {
    (void)ud;
    atomic_fetch_add(&g_resolver, 1);
    if (group[0] != 'r') return -1;
    *out = atomic_load(&g_res_conc);
    return 0;
}

/* The default policy with the counting listener. */
static inline groupconc_policy pol(void) {
    groupconc_policy p = groupconc_policy_default();
    p.listener = listener;
    p.max_threads = 8;
    return p;
}

static groupconc_task *sub_w(groupconc_executor *ex, const char *group, const char *id,
                             groupconc_task_fn fn, void *arg, int64_t max_wait) {
    groupconc_task_spec s;
    memset(&s, 0, sizeof s);
    s.group = group;
    s.task_id = id;
    s.fn = fn;
    s.arg = arg;
    s.cleanup = cl_fn;
    s.max_wait_ns = max_wait;
    groupconc_task *t = NULL;
    OK(groupconc_submit_spec(ex, &s, &t));
    assert_non_null(t);
    return t;
}
static groupconc_task *sub(groupconc_executor *ex, const char *group, const char *id,
                           groupconc_task_fn fn, void *arg) {
    return sub_w(ex, group, id, fn, arg, 0);
}
static inline groupconc_task_spec spec(const char *group, const char *id, groupconc_task_fn fn, void *arg,
                                int64_t max_wait) {
    groupconc_task_spec s;
    memset(&s, 0, sizeof s);
    s.group = group;
    s.task_id = id;
    s.fn = fn;
    s.arg = arg;
    s.cleanup = cl_fn;
    s.max_wait_ns = max_wait;
    return s;
}

static inline void done_rel(groupconc_task *t, groupconc_status want, int reason) {
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, want);
    assert_int_equal(r.reason, reason);
    OK(groupconc_task_release(t));
}

/* ---- a parked task with its own start latch ---------------------------------------------------- */

typedef struct pk {
    tu_park p;
    tu_latch st;
} pk;

static groupconc_task *pk_sub(pk *k, groupconc_executor *ex, const char *group, const char *id) {
    tu_latch_init(&k->st, 1);
    tu_park_init(&k->p, &k->st, NULL);
    return sub(ex, group, id, tu_park_fn, &k->p);
}
static inline void pk_init(pk *k) {
    tu_latch_init(&k->st, 1);
    tu_park_init(&k->p, &k->st, NULL);
}
static inline void pk_started(pk *k) { assert_true(tu_latch_wait(&k->st)); }
static inline bool pk_has_started(pk *k) { return atomic_load(&k->p.ran) > 0; }
static inline void pk_go(pk *k) { tu_park_release(&k->p); }
static inline void pk_free(pk *k) {
    tu_park_destroy(&k->p);
    tu_latch_destroy(&k->st);
}
/* Let it finish, wait for SUCCESS, release the handle, free. */
static inline void pk_finish(pk *k, groupconc_task *t) {
    pk_go(k);
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    pk_free(k);
}

/* ---- a deferring task -------------------------------------------------------------------------- */
/* (with the dump only: dfr_wait sees in it that the body returned to its worker) */
#ifndef GROUPCONC_NO_DUMP

typedef struct dfr {
    groupconc_deferred *d;
    tu_latch deferred;      /* opened once the body deferred */
    groupconc_executor *ex; /* the body's executor */
    char id[32];            /* the body's task id */
} dfr;

static inline void dfr_init(dfr *f) {
    f->d = NULL;
    f->ex = NULL;
    f->id[0] = '\0';
    tu_latch_init(&f->deferred, 1);
}
static inline int defer_fn(groupconc_context *ctx, void **out, void *arg) {
    dfr *f = (dfr *)arg;
    (void)out;
    f->ex = groupconc_context_executor(ctx);
    snprintf(f->id, sizeof f->id, "%s", groupconc_context_task_id(ctx) ? groupconc_context_task_id(ctx) : "");
    if (groupconc_context_defer(ctx, &f->d) != GROUPCONC_OK) return -1;
    tu_latch_count_down(&f->deferred);
    return GROUPCONC_TASK_PENDING;
}
static inline bool dump_has(groupconc_executor *ex, const char *s);
static inline char *dump(groupconc_executor *ex);

/* Wait until the body deferred and returned to its worker (the dump lists the task as deferred):
   from then on deferred_complete completes the task on the calling thread. */
static inline void dfr_wait(dfr *f) {
    assert_true(tu_latch_wait(&f->deferred));
    assert_true(f->id[0] != '\0');
    char pat[96];
    snprintf(pat, sizeof pat, "\"id\":\"%s\",\"state\":\"deferred\"", f->id);
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        char *d = dump(f->ex);
        bool has = strstr(d, pat) != NULL;
        free(d);
        if (has || tu_now_ns() > deadline) break;
        tu_sleep_ns(TU_MS / 2);
    }
    assert_true(dump_has(f->ex, pat));
}

/* ---- the JSON dump ---------------------------------------------------------------------------- */

static char *dump(groupconc_executor *ex) {
    size_t need = 0;
    int rc = groupconc_executor_dump(ex, NULL, 0, &need);
    assert_true(rc == GROUPCONC_ERANGE || rc == GROUPCONC_OK);
    for (;;) {
        size_t cap = need + 4096;
        char *b = (char *)malloc(cap);
        assert_non_null(b);
        rc = groupconc_executor_dump(ex, b, cap, &need);
        if (rc == GROUPCONC_OK) return b;
        assert_int_equal(rc, GROUPCONC_ERANGE);
        free(b);
    }
}
static inline bool dump_has(groupconc_executor *ex, const char *s) {
    char *d = dump(ex);
    bool has = strstr(d, s) != NULL;
    if (!has) fprintf(stderr, "dump lacks %s:\n%s\n", s, d);
    free(d);
    return has;
}
/* A field of the group object with that key (or of the executor object when key is NULL); -999
   when the field is absent. */
static inline long long dump_int(groupconc_executor *ex, const char *key, const char *field) {
    char *d = dump(ex), pat[128];
    const char *obj;
    long long v = -999;
    if (key) {
        snprintf(pat, sizeof pat, "{\"key\":\"%s\",", key);
        obj = strstr(d, pat);
    } else {
        obj = strstr(d, "\"executor\":{");
    }
    if (obj) {
        const char *end = strchr(obj, '}');
        snprintf(pat, sizeof pat, "\"%s\":", field);
        const char *f = strstr(obj, pat);
        if (f && f < end) v = strtoll(f + strlen(pat), NULL, 10);
    }
    free(d);
    return v;
}
#endif



/* ---- an in-process fleet provider --------------------------------------------------------------- */

enum { FP_GRANT, FP_HOLD, FP_REJECT, FP_OPEN };
typedef struct fp {
    tu_mutex m;
    tu_cond c;
    int mode;
    groupconc_fleet_request *held[32];
    int nheld;
    int asks, grants, releases, out; /* out: leases given and not yet back */
    uint64_t next;
} fp;
static fp g_fp;

static inline void fp_acquire(void *ud, groupconc_fleet_request *req, const char *group) {
    fp *f = (fp *)ud;
    (void)group;
    tu_mutex_lock(&f->m);
    f->asks++;
    int mode = f->mode;
    uint64_t lease = 0;
    if (mode == FP_HOLD) f->held[f->nheld++] = req;
    if (mode == FP_GRANT) {
        lease = ++f->next;
        f->grants++;
        f->out++;
    }
    tu_cond_broadcast(&f->c);
    tu_mutex_unlock(&f->m);
    if (mode == FP_GRANT) groupconc_fleet_answer(req, GROUPCONC_FLEET_GRANTED, lease);
    if (mode == FP_REJECT) groupconc_fleet_answer(req, GROUPCONC_FLEET_REJECT, 0);
    if (mode == FP_OPEN) groupconc_fleet_answer(req, GROUPCONC_FLEET_OPEN, 0);
}
static inline void fp_release(void *ud, const char *group, uint64_t lease) {
    fp *f = (fp *)ud;
    (void)group;
    (void)lease;
    tu_mutex_lock(&f->m);
    f->releases++;
    f->out--;
    tu_cond_broadcast(&f->c);
    tu_mutex_unlock(&f->m);
}
static inline groupconc_policy fpol(int mode) {
    static bool init;
    if (!init) {
        tu_mutex_init(&g_fp.m);
        tu_cond_init(&g_fp.c);
        init = true;
    }
    g_fp.mode = mode;
    g_fp.nheld = 0;
    g_fp.asks = g_fp.grants = g_fp.releases = g_fp.out = 0;
    groupconc_policy p = pol();
    p.fleet.acquire = fp_acquire;
    p.fleet.release = fp_release;
    p.fleet.user_data = &g_fp;
    return p;
}
static inline int fp_get(int *field) {
    tu_mutex_lock(&g_fp.m);
    int v = *field;
    tu_mutex_unlock(&g_fp.m);
    return v;
}
/* Wait (bounded) until the provider was asked n times in all. */
static inline void fp_wait_asks(int n) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    tu_mutex_lock(&g_fp.m);
    while (g_fp.asks < n && tu_now_ns() < deadline) tu_cond_wait_until(&g_fp.c, &g_fp.m, deadline);
    int asks = g_fp.asks;
    tu_mutex_unlock(&g_fp.m);
    assert_true(asks >= n);
}
/* Answer the oldest held request. */
static inline void fp_answer(groupconc_fleet_verdict v) {
    tu_mutex_lock(&g_fp.m);
    assert_true(g_fp.nheld > 0);
    groupconc_fleet_request *r = g_fp.held[0];
    memmove(&g_fp.held[0], &g_fp.held[1], (size_t)(g_fp.nheld - 1) * sizeof g_fp.held[0]);
    g_fp.nheld--;
    uint64_t lease = 0;
    if (v == GROUPCONC_FLEET_GRANTED) {
        lease = ++g_fp.next;
        g_fp.grants++;
        g_fp.out++;
    }
    tu_mutex_unlock(&g_fp.m);
    OK(groupconc_fleet_answer(r, v, lease));
}

/* ---- small task bodies ------------------------------------------------------------------------ */

static inline int fail_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)ctx;
    (void)out;
    (void)arg;
    return 42;
}
static inline int value_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)ctx;
    *out = arg;
    return 0;
}

/* A body that records the thread it ran on. */
typedef struct where {
    tu_thread_id th;
    atomic_int ran;
} where;
static inline int where_fn(groupconc_context *ctx, void **out, void *arg) {
    where *w = (where *)arg;
    (void)ctx;
    (void)out;
    w->th = tu_self();
    atomic_fetch_add(&w->ran, 1);
    return 0;
}

/* Peak of bodies running at once. */
static tu_peak g_peak;
static inline int peak_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)ctx;
    (void)out;
    (void)arg;
    tu_peak_enter(&g_peak);
    tu_sleep_ns(2 * TU_MS); /* overlap made likely, not relied upon */
    tu_peak_leave(&g_peak);
    return 0;
}

/* ==== tasks × ... ================================================================================ */

/* execute_all's timeout cancels an element that never started (a handle-held task has the group's
   only permit); the handle's own task is untouched and succeeds. */
static void pair_tasks_execall(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task_spec s[2] = {spec("g", "e0", tu_noop_fn, NULL, 0), spec("g", "e1", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    assert_int_equal(groupconc_execute_all(ex, s, 2, 30 * TU_MS, r), GROUPCONC_ETIMEDOUT);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(r[i].reason, GROUPCONC_ECANCELLED);
    }
    assert_int_equal(atomic_load(&g_cleanups), 2);
    pk_finish(&k, t);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.cancelled, 2);
    assert_int_equal(gs.succeeded, 1);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    OK(groupconc_executor_destroy(ex));
}

/* DISCARD: the refused task still gets a handle; it is done (REJECTED, concurrency), its completion
   callback runs at once on registration, a cancel is TOO_LATE, its cleanup ran once. */
static void pair_tasks_reject(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    bool d = false;
    OK(groupconc_task_is_done(x, &d));
    assert_true(d);
    OK(groupconc_task_on_complete(x, oc_fn, NULL));
    assert_int_equal(atomic_load(&g_oc), 1);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_TOO_LATE);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    pk_finish(&k, t);
    assert_int_equal(tu_gstats(ex, "g").rejected_concurrency, 1);
    OK(groupconc_executor_destroy(ex));
}

/* A completion callback that takes a while (it exposes a wait that returns before it ran). */
static inline void slow_oc_fn(groupconc_task *t, const groupconc_result *r, void *ud) {
    tu_sleep_ns(20 * TU_MS);
    oc_fn(t, r, ud);
}


/* A cancel that dequeues runs the task's COMPLETED event, its completion callback and its cleanup on
   the cancelling thread, each once, before cancel returns. */
static void pair_tasks_listener(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_task_on_complete(x, oc_fn, NULL));
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    assert_int_equal(atomic_load(&g_oc), 1);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 1);
    assert_true(atomic_load(&g_completed_on_main));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 2);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 2);
    {
        pk k2;
        groupconc_task *t2 = pk_sub(&k2, ex, "g", "slow-callback");
        OK(groupconc_task_on_complete(t2, slow_oc_fn, NULL));
        pk_started(&k2);
        pk_go(&k2);
        groupconc_result r = tu_wait(t2);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(atomic_load(&g_oc), 2); /* the slow callback had run before wait returned */
        OK(groupconc_task_release(t2));
        pk_free(&k2);
    }
    OK(groupconc_executor_destroy(ex));
}

/* The resolver's concurrency (3) is what the handles see: 3 run, the 4th waits at the concurrency
   layer and a cancel dequeues it; the resolver ran once for the group. */
static void pair_tasks_resolver(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.resolver = resolver;
    groupconc_executor *ex = tu_executor(&p);
    pk k[3];
    groupconc_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = pk_sub(&k[i], ex, "r1", NULL);
    for (int i = 0; i < 3; i++) pk_started(&k[i]);
    groupconc_task *x = sub(ex, "r1", "x", tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.waiting_concurrency, 1);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    for (int i = 0; i < 3; i++) pk_finish(&k[i], t[i]);
    assert_int_equal(atomic_load(&g_resolver), 1);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* A cancel of a deferred task flags it (FLAGGED, deferred_is_cancelled); it completes CANCELLED when
   the work says so; the cleanup runs once, after the completion call. */
static void pair_tasks_deferred(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *t = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    OK(groupconc_task_on_complete(t, oc_fn, NULL));
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(t, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_FLAGGED);
    assert_true(groupconc_deferred_is_cancelled(f.d));
    assert_int_equal(atomic_load(&g_cleanups), 0);
    assert_int_equal(atomic_load(&g_oc), 0);
    OK(groupconc_deferred_complete(f.d, GROUPCONC_TASK_CANCELLED, NULL));
    done_rel(t, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    assert_int_equal(atomic_load(&g_oc), 1);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 1);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* An executor gate permit holds the group's only permit: a task waits behind it (cancel dequeues
   one), the next runs when the permit is released. */
static void pair_tasks_gate(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    groupconc_task *y = sub(ex, "g", "y", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 2);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    bool d = true;
    OK(groupconc_task_is_done(y, &d));
    assert_false(d);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "g", &st));
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(st.released_success, 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* A fork waiting behind a plain task of its group is dequeued by scope_shutdown: CANCELLED, cleanup
   once; the plain task is untouched. */
static void pair_tasks_scope(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, NULL, &sc));
    groupconc_task_spec s = spec("g", "f", tu_noop_fn, NULL, 0);
    size_t i;
    OK(groupconc_scope_fork(sc, &s, &i));
    OK(groupconc_scope_shutdown(sc));
    OK(groupconc_scope_join(sc));
    groupconc_result r;
    OK(groupconc_scope_result(sc, i, &r));
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    OK(groupconc_scope_close(sc));
    assert_false(atomic_load(&k.p.saw_cancel));
    int want = 2;
    OK(groupconc_scope_open(ex, NULL, &sc));
    OK(groupconc_scope_fork(sc, &s, &i));
    assert_int_equal(groupconc_scope_close(sc), GROUPCONC_ENOTJOINED); /* does not wait for "held" */
    assert_int_equal(atomic_load(&g_cleanups), 2);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 2);
    want = 3;
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_cleanups), want);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* A handle whose queue deadline passes: REJECTED with the concurrency expiry, its completion
   callback once, its cleanup once; a later cancel is TOO_LATE. */
static void pair_tasks_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 20 * TU_MS);
    OK(groupconc_task_on_complete(x, oc_fn, NULL));
    groupconc_result r = tu_wait(x);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_TOO_LATE);
    OK(groupconc_task_release(x));
    pk_finish(&k, t);
    /* the callback ran on the housekeeper; until issue 23 item 5 is fixed the wait may return
       before it did: a bounded poll */
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    while (atomic_load(&g_oc) < 1 && tu_now_ns() < deadline) tu_sleep_ns(TU_MS);
    assert_int_equal(atomic_load(&g_oc), 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    assert_int_equal(tu_gstats(ex, "g").expired, 1);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's task waits; cancel dequeues it; another one runs after resume. */
static void pair_tasks_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    groupconc_task *y = sub(ex, "g", "y", tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_true(gs.paused);
    assert_int_equal(gs.waiting_concurrency, 2);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    bool d = true;
    OK(groupconc_task_is_done(y, &d));
    assert_false(d);
    OK(groupconc_group_resume(ex, "g"));
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Raising a group's concurrency live starts its waiting task while the first still runs. */
static void pair_tasks_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk a, b;
    groupconc_task *ta = pk_sub(&a, ex, "g", "a");
    pk_started(&a);
    groupconc_task *tb = pk_sub(&b, ex, "g", "b");
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    pk_started(&b);
    assert_int_equal(tu_gstats(ex, "g").running, 2);
    pk_finish(&a, ta);
    pk_finish(&b, tb);
    OK(groupconc_executor_destroy(ex));
}

/* A handle outlives its group's state: the group is reclaimed for a new key (max_groups 1) and the
   handle still reads its result and key. */
static void pair_tasks_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *a = sub(ex, "a", "x", value_fn, (void *)&g_cleanups);
    tu_wait_status(a, GROUPCONC_STATUS_SUCCESS);
    groupconc_task *b = sub(ex, "b", "y", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs;
    assert_int_equal(groupconc_group_stats_get(ex, "a", &gs), GROUPCONC_ENOTFOUND);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 1);
    groupconc_result r = tu_wait(a);
    assert_string_equal(r.group, "a");
    assert_ptr_equal(r.value, (void *)&g_cleanups);
    OK(groupconc_task_release(a));
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A task waiting at the global running cap is dequeued by cancel: its group's concurrency
   permit goes back with it. */
static void pair_tasks_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "b");
    assert_int_equal(gs.waiting_running, 1);
    assert_int_equal(gs.in_flight, 1);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    gs = tu_gstats(ex, "b");
    assert_int_equal(gs.waiting_running, 0);
    assert_int_equal(gs.in_flight, 0);
    assert_int_equal(tu_xstats(ex).waiting_running, 0);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* A task whose fleet request is outstanding is cancelled: DEQUEUED at once; the GRANTED answer that
   comes later is given back at once (release called, no lease left out). */
static void pair_tasks_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    fp_wait_asks(1);
    assert_int_equal(tu_gstats(ex, "g").waiting_fleet, 1);
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(x, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_DEQUEUED);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    assert_int_equal(tu_gstats(ex, "g").waiting_fleet, 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown: the waiting handle completes CANCELLED on this thread (its callback once), the
   running one is flagged and reports what it returned. */
static void pair_tasks_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    k.p.cooperative = true;
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_task_on_complete(x, oc_fn, NULL));
    OK(groupconc_group_shutdown(ex, "g"));
    bool d = false;
    OK(groupconc_task_is_done(x, &d));
    assert_true(d);
    assert_int_equal(atomic_load(&g_oc), 1);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(t, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_true(atomic_load(&k.p.saw_cancel));
    pk_free(&k);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 2);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Handles stay valid after destroy: a queued task reads CANCELLED after the executor is gone. */
static void pair_tasks_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_executor_shutdown(ex));
    groupconc_task *y = NULL;
    assert_int_equal(groupconc_submit(ex, "g", "y", tu_noop_fn, NULL, &y), GROUPCONC_ESHUTDOWN);
    assert_null(y);
    pk_go(&k);
    OK(groupconc_executor_destroy(ex));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    assert_true(atomic_load(&k.p.saw_cancel)); /* the running task was flagged */
    pk_free(&k);
    assert_int_equal(atomic_load(&g_cleanups), 2);
}

#ifndef GROUPCONC_NO_DUMP
/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
static inline bool utf8_valid(const unsigned char *p) {
    while (*p) {
        unsigned c = *p++, n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
        if (n == 9 || c == 0xC0 || c == 0xC1 || c > 0xF4) return false;
        unsigned cp = n ? c & (0x3Fu >> n) : c;
        for (unsigned k = 0; k < n; k++, p++) {
            if ((*p & 0xC0) != 0x80) return false;
            cp = cp << 6 | (*p & 0x3Fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
    }
    return true;
}


/* The dump lists each handle's task by id and state (running, waiting_concurrency); a cancelled one
   is gone from it. */
static void pair_tasks_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "xid", tu_noop_fn, NULL);
    assert_true(dump_has(ex, "\"id\":\"held\",\"state\":\"running\""));
    assert_true(dump_has(ex, "\"id\":\"xid\",\"state\":\"waiting_concurrency\""));
    OK(groupconc_task_cancel(x, NULL));
    char *d = dump(ex);
    assert_null(strstr(d, "\"xid\""));
    free(d);
    assert_int_equal(dump_int(ex, "g", "cancelled"), 1);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    x = sub(ex, "\xff\xfe", "\xc3", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    char *d2 = dump(ex);
    assert_true(utf8_valid((const unsigned char *)d2));
    free(d2);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== execall × ... ============================================================================== */

/* An element of execute_all refused in its submit after its SUBMITTED event (ABORT at a queue
   threshold of 0, EGROUPS_FULL, ESHUTDOWN from a SUBMITTED listener) has its cleanup run before
   its COMPLETED event, as any task does (execute_all owns the argument). Before, submit sent the
   events and execute_all ran the cleanup after it returned (helper-69, defect 1). */
static atomic_int g_e_completed, g_e_early; /* COMPLETED events of "e*" elements; before their cleanup */
static atomic_bool g_e_shut;                /* v 2: e1's SUBMITTED shuts the executor down */
static void cleanup_first_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (!e->task_id || e->task_id[0] != 'e') return;
    if (e->type == GROUPCONC_EVENT_SUBMITTED && atomic_load(&g_e_shut) && strcmp(e->task_id, "e1") == 0)
        (void)groupconc_executor_shutdown(*(groupconc_executor **)ud);
    if (e->type == GROUPCONC_EVENT_COMPLETED &&
        atomic_fetch_add(&g_e_completed, 1) + 1 > atomic_load(&g_cleanups))
        atomic_fetch_add(&g_e_early, 1);
}
static void pair_execall_reject_cleanup_first(void **state) {
    (void)state;
    for (int v = 0; v < 3; v++) {
        px_reset();
        atomic_store(&g_e_completed, 0);
        atomic_store(&g_e_early, 0);
        atomic_store(&g_e_shut, v == 2);
        groupconc_policy p = pol();
        p.listener = cleanup_first_listener;
        p.default_queue_threshold = 0; /* ABORT (the default) refuses a second task of g in submit */
        if (v == 1) p.max_groups = 1;
        static groupconc_executor *ex_slot;
        p.listener_user_data = &ex_slot;
        groupconc_executor *ex = tu_executor(&p);
        ex_slot = ex;
        pk k;
        groupconc_task *t = pk_sub(&k, ex, "g", "held");
        pk_started(&k);
        groupconc_task_spec s[2] = {spec(v == 1 ? "other" : "g", "e0", tu_noop_fn, NULL, 0),
                                    spec("g", "e1", tu_noop_fn, NULL, 0)};
        groupconc_result r[2];
        int rc = groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r);
        assert_int_equal(rc, v == 2 ? GROUPCONC_ESHUTDOWN : GROUPCONC_OK);
        assert_int_equal(r[0].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r[0].reason, v == 1 ? GROUPCONC_EGROUPS_FULL : GROUPCONC_EREJECTED_CONCURRENCY);
        assert_int_equal(r[1].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r[1].reason, v == 2 ? GROUPCONC_ESHUTDOWN : GROUPCONC_EREJECTED_CONCURRENCY);
        assert_int_equal(atomic_load(&g_cleanups), 2);     /* each once */
        assert_int_equal(atomic_load(&g_e_completed), 2);
        assert_int_equal(atomic_load(&g_e_early), 0);      /* never a COMPLETED before its cleanup */
        pk_finish(&k, t);
        OK(groupconc_executor_destroy(ex));
    }
}

/* DISCARD: elements refused later (a held permit, threshold 0) are REJECTED at concurrency, each
   cleanup once. ABORT: an element refused in submit gets its cleanup too (item 2). */
static void pair_execall_reject(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task_spec s[2] = {spec("g", "e0", tu_noop_fn, NULL, 0), spec("g", "e1", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r[i].reason, GROUPCONC_EREJECTED_CONCURRENCY);
    }
    assert_int_equal(atomic_load(&g_cleanups), 2);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
    px_reset();
    p.rejection = GROUPCONC_REJECT_ABORT;
    ex = tu_executor(&p);
    t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r[i].reason, GROUPCONC_EREJECTED_CONCURRENCY);
    }
    assert_int_equal(atomic_load(&g_cleanups), 2);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* Each element's events, once: SUBMITTED, STARTED, COMPLETED; the results match. */
static void pair_execall_listener(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[3] = {spec("g", "e0", tu_noop_fn, NULL, 0), spec("h", "e1", fail_fn, NULL, 0),
                                spec("g", "e2", tu_noop_fn, NULL, 0)};
    groupconc_result r[3];
    OK(groupconc_execute_all(ex, s, 3, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r[1].error, 42);
    assert_int_equal(r[2].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 3);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 3);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 3);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_REJECTED]), 0);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    OK(groupconc_executor_destroy(ex));
}

/* The elements of one group run under the resolver's concurrency (2): never more at once. */
static void pair_execall_resolver(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_res_conc, 2);
    tu_peak_init(&g_peak);
    groupconc_policy p = pol();
    p.resolver = resolver;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[6];
    groupconc_result r[6];
    for (int i = 0; i < 6; i++) s[i] = spec("r1", NULL, peak_fn, NULL, 0);
    OK(groupconc_execute_all(ex, s, 6, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 6; i++) assert_int_equal(r[i].status, GROUPCONC_STATUS_SUCCESS);
    assert_true(tu_peak_max(&g_peak) <= 2);
    assert_int_equal(tu_gstats(ex, "r1").concurrency, 2);
    assert_int_equal(atomic_load(&g_resolver), 1);
    OK(groupconc_executor_destroy(ex));
}

/* An element that defers (and completes from its own body) is collected with its value; its cleanup
   once. */
static int defer_self_fn(groupconc_context *ctx, void **out, void *arg) {
    groupconc_deferred *d;
    (void)out;
    if (groupconc_context_defer(ctx, &d) != GROUPCONC_OK) return -1;
    if (groupconc_deferred_complete(d, 0, arg) != GROUPCONC_OK) return -1;
    return GROUPCONC_TASK_PENDING;
}
static void pair_execall_deferred(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    int v1, v2;
    groupconc_task_spec s[2] = {spec("g", "d0", defer_self_fn, &v1, 0), spec("g", "d1", defer_self_fn, &v2, 0)};
    groupconc_result r[2];
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r[0].value, &v1);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r[1].value, &v2);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    assert_int_equal(tu_gstats(ex, "g").succeeded, 2);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_GATE
/* A held executor-gate permit keeps an element from starting: the timeout cancels it. */
static void pair_execall_gate(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_task_spec s[2] = {spec("g", "e0", tu_noop_fn, NULL, 0), spec("h", "e1", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    assert_int_equal(groupconc_execute_all(ex, s, 2, TU_SEC, r), GROUPCONC_ETIMEDOUT);
    assert_int_equal(r[0].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "g", &st));
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* execute_all from inside a fork's body: it waits for its own elements only; the fork's value is
   what it computed from them. */
static int fork_execall_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)arg;
    groupconc_task_spec s[2] = {spec("g", "i0", tu_noop_fn, NULL, 0), spec("g", "i1", fail_fn, NULL, 0)};
    groupconc_result r[2];
    int rc = groupconc_execute_all(groupconc_context_executor(ctx), s, 2, GROUPCONC_FOREVER, r);
    *out = (void *)(intptr_t)(rc == GROUPCONC_OK && r[0].status == GROUPCONC_STATUS_SUCCESS &&
                              r[1].status == GROUPCONC_STATUS_FAILED && r[1].error == 42);
    return 0;
}
static void pair_execall_scope(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, NULL, &sc));
    groupconc_task_spec s = spec("f", "fork", fork_execall_fn, NULL, 0);
    OK(groupconc_scope_fork(sc, &s, NULL));
    OK(groupconc_scope_join(sc));
    groupconc_result r;
    OK(groupconc_scope_result(sc, 0, &r));
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, (void *)(intptr_t)1);
    OK(groupconc_scope_close(sc));
    assert_int_equal(atomic_load(&g_cleanups), 3);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* An element whose queue deadline passes is REJECTED with the concurrency expiry; execute_all's own
   deadline did not cut anything: OK. */
static void pair_execall_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task_spec s[2] = {spec("g", "late", tu_noop_fn, NULL, 20 * TU_MS), spec("h", "ok", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r[0].reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    pk_finish(&k, t);
    assert_int_equal(tu_gstats(ex, "g").expired, 1);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's element is cancelled at execute_all's deadline; the other group's runs. */
static void pair_execall_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task_spec s[2] = {spec("g", "p", tu_noop_fn, NULL, 0), spec("h", "ok", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    assert_int_equal(groupconc_execute_all(ex, s, 2, TU_SEC, r), GROUPCONC_ETIMEDOUT);
    assert_int_equal(r[0].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_SUCCESS);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_true(gs.paused);
    assert_int_equal(gs.cancelled, 1);
    assert_int_equal(gs.admitted, 0);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Element 0 raises its own group's concurrency to 2 from its body, then waits for element 1, which
   was queued behind it: the raise handed it the permit at once. */
typedef struct live_pair {
    tu_latch second_ran;
    atomic_int saw;
} live_pair;
static int raise_then_wait_fn(groupconc_context *ctx, void **out, void *arg) {
    live_pair *lp = (live_pair *)arg;
    (void)out;
    groupconc_group_limits l = groupconc_group_limits_keep(groupconc_context_group(ctx));
    l.concurrency = 2;
    if (groupconc_group_limits_set(groupconc_context_executor(ctx), &l) != GROUPCONC_OK) return -1;
    atomic_store(&lp->saw, tu_latch_wait(&lp->second_ran) ? 1 : 0);
    return 0;
}
static int count_down_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)ctx;
    (void)out;
    tu_latch_count_down(&((live_pair *)arg)->second_ran);
    return 0;
}
static void pair_execall_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    live_pair lp;
    tu_latch_init(&lp.second_ran, 1);
    atomic_init(&lp.saw, 0);
    groupconc_task_spec s[2] = {spec("g", "raise", raise_then_wait_fn, &lp, 0), spec("g", "second", count_down_fn, &lp, 0)};
    groupconc_result r[2];
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&lp.saw), 1);
    assert_int_equal(tu_gstats(ex, "g").concurrency, 2);
    tu_latch_destroy(&lp.second_ran);
    OK(groupconc_executor_destroy(ex));
}

/* max_groups 1, the only group busy: an element of a new key is refused in submit (EGROUPS_FULL),
   the others go on; execute_all owns and cleans every element up (item 2). */
static void pair_execall_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task_spec s[1] = {spec("b", "new", tu_noop_fn, NULL, 0)};
    groupconc_result r[1];
    OK(groupconc_execute_all(ex, s, 1, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r[0].reason, GROUPCONC_EGROUPS_FULL);
    assert_int_equal(r[0].error, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 1);
    assert_int_equal(xs.rejected_other, 1);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    pk_finish(&k, t);
    /* "a" idle now: the same element gets the slot */
    OK(groupconc_execute_all(ex, s, 1, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 1);
    OK(groupconc_executor_destroy(ex));
}

/* Elements of different groups under a global running cap of 1: never two at once; all admitted. */
static void pair_execall_runcap(void **state) {
    (void)state;
    px_reset();
    tu_peak_init(&g_peak);
    groupconc_policy p = pol();
    p.global_max_running = 1;
    p.default_concurrency = 4;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[4] = {spec("a", NULL, peak_fn, NULL, 0), spec("b", NULL, peak_fn, NULL, 0),
                                spec("c", NULL, peak_fn, NULL, 0), spec("a", NULL, peak_fn, NULL, 0)};
    groupconc_result r[4];
    OK(groupconc_execute_all(ex, s, 4, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 4; i++) assert_int_equal(r[i].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(tu_peak_max(&g_peak), 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.admitted, 4);
    assert_int_equal(xs.global_running, 0);
    OK(groupconc_executor_destroy(ex));
}

/* Each element takes a fleet lease and gives it back before execute_all returns. */
static void pair_execall_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_GRANT);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[3] = {spec("g", NULL, tu_noop_fn, NULL, 0), spec("g", NULL, tu_noop_fn, NULL, 0),
                                spec("h", NULL, tu_noop_fn, NULL, 0)};
    groupconc_result r[3];
    OK(groupconc_execute_all(ex, s, 3, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 3; i++) assert_int_equal(r[i].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(fp_get(&g_fp.grants), 3);
    assert_int_equal(fp_get(&g_fp.releases), 3);
    assert_int_equal(fp_get(&g_fp.out), 0);
    OK(groupconc_executor_destroy(ex));
}

/* Element 0 shuts its own group down from its body: element 1 (queued behind it) is CANCELLED,
   element 0 is flagged and returns CANCELLED; both cleanups once. */
static int groupshut_self_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)out;
    (void)arg;
    groupconc_executor *ex = groupconc_context_executor(ctx);
    groupconc_group_stats gs;
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS; /* until element 1 is queued behind this one */
    while (groupconc_group_stats_get(ex, "g", &gs) == GROUPCONC_OK && gs.waiting_concurrency < 1 &&
           tu_now_ns() < deadline)
        tu_sleep_ns(TU_MS / 2);
    if (groupconc_group_shutdown(ex, groupconc_context_group(ctx)) != GROUPCONC_OK) return -1;
    return groupconc_context_is_cancelled(ctx) ? GROUPCONC_TASK_CANCELLED : 0;
}
static void pair_execall_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[2] = {spec("g", "shut", groupshut_self_fn, NULL, 0), spec("g", "q", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    OK(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r[1].status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r[1].reason, GROUPCONC_ECANCELLED);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 2);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* On a shut-down executor: ESHUTDOWN, every element REJECTED with reason ESHUTDOWN; the cleanups run
   (item 2: ESHUTDOWN means "all owned"). */
static void pair_execall_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_executor_shutdown(ex));
    groupconc_task_spec s[2] = {spec("g", "a", tu_noop_fn, NULL, 0), spec("h", "b", tu_noop_fn, NULL, 0)};
    groupconc_result r[2];
    assert_int_equal(groupconc_execute_all(ex, s, 2, GROUPCONC_FOREVER, r), GROUPCONC_ESHUTDOWN);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r[i].reason, GROUPCONC_ESHUTDOWN);
    }
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* An element dumps the executor from its body: it sees itself running, by id, in its group. */
static int dump_self_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)arg;
    size_t need = 0;
    static char buf[1 << 16];
    int rc = groupconc_executor_dump(groupconc_context_executor(ctx), buf, sizeof buf, &need);
    *out = (void *)(intptr_t)(rc == GROUPCONC_OK && strstr(buf, "\"group\":\"g\",\"id\":\"me\",\"state\":\"running\"") != NULL);
    return 0;
}
static void pair_execall_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task_spec s[1] = {spec("g", "me", dump_self_fn, NULL, 0)};
    groupconc_result r[1];
    OK(groupconc_execute_all(ex, s, 1, GROUPCONC_FOREVER, r));
    assert_int_equal(r[0].status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r[0].value, (void *)(intptr_t)1);
    assert_int_equal(dump_int(ex, "g", "succeeded"), 1);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== reject × ... =============================================================================== */

/* The rejection handler: counts its calls, records what it saw, and decides g_h_status. */
static groupconc_rejection g_h_seen;
static groupconc_status g_h_status;
static void handler(const groupconc_rejection *rej, groupconc_reject_result *out, void *ud) {
    (void)ud;
    atomic_fetch_add(&g_handler, 1);
    g_h_seen = *rej;
    out->status = g_h_status;
    out->value = (void *)&g_h_seen;
}

/* A handler deciding a refusal: the task is in its group's refusing (and the executor's) while it
   decides, in submitted and not in completed; out of it once decided (helper-67, defect 1: the
   dump lists no such task; its stats count it now). */
static groupconc_group_stats g_h_gstats;
static groupconc_executor_stats g_h_xstats;
static void stats_handler(const groupconc_rejection *rej, groupconc_reject_result *out, void *ud) {
    (void)ud;
    (void)groupconc_group_stats_get(rej->executor, rej->group, &g_h_gstats);
    (void)groupconc_executor_stats_get(rej->executor, &g_h_xstats);
    out->status = GROUPCONC_STATUS_FAILED;
    out->error = 7;
}
static void pair_reject_handler_refusing(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.reject_handler = stats_handler;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_FAILED, 0); /* the handler's outcome */
    assert_int_equal(g_h_gstats.refusing, 1);
    assert_int_equal(g_h_xstats.refusing, 1);
    assert_int_equal(g_h_gstats.submitted - g_h_gstats.completed, g_h_gstats.running + g_h_gstats.refusing);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.refusing, 0);
    assert_int_equal(gs.failed, 1);
    assert_int_equal(tu_xstats(ex).refusing, 0);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* A refusal's slow callback does not hold back another task's completion (helper-72, defect 1).
   One step of a worker finishes g1 and refuses a2 (g1's end hands a2 the global permit, a2's group
   holds its only concurrency permit): that worker settles both. a2's rejection handler (v 0) or its
   REJECTED event (v 1 CALLER_RUNS, v 2 ABORT) blocks until the test lets go; meanwhile a wait on
   g1 from the test's thread must return, with g1's COMPLETED event seen. Before, the worker handled
   the rejections first: the wait timed out and g1 completed after the callback. */
static tu_latch g_slowrej_in, g_slowrej_go;
static atomic_int g_slowrej_g1_completed;
static void slowrej_block(void) {
    tu_latch_count_down(&g_slowrej_in);
    (void)tu_latch_wait(&g_slowrej_go);
}
static void slowrej_handler(const groupconc_rejection *rej, groupconc_reject_result *out, void *ud) {
    (void)ud;
    if (!rej->in_submit) slowrej_block();
    out->status = GROUPCONC_STATUS_SUCCESS;
}
static void slowrej_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (!e->task_id) return;
    if (e->type == GROUPCONC_EVENT_COMPLETED && strcmp(e->task_id, "g1") == 0)
        atomic_store(&g_slowrej_g1_completed, 1);
    if (e->type == GROUPCONC_EVENT_REJECTED && strcmp(e->task_id, "a2") == 0 && (intptr_t)ud != 0)
        slowrej_block();
}
static void pair_reject_slow_callback_not_before_completion(void **state) {
    (void)state;
    for (int v = 0; v < 3; v++) {
        px_reset();
        tu_latch_init(&g_slowrej_in, 1);
        tu_latch_init(&g_slowrej_go, 1);
        atomic_store(&g_slowrej_g1_completed, 0);
        groupconc_group_limits gl[1] = {{"a", 1, GROUPCONC_DEFAULT, 0, 0}};
        groupconc_policy p = pol();
        p.listener = slowrej_listener;
        p.listener_user_data = (void *)(intptr_t)(v != 0);
        p.global_max_in_flight = 2;
        p.groups = gl;
        p.group_count = 1;
        if (v == 0) p.reject_handler = slowrej_handler;
        p.rejection = v == 1 ? GROUPCONC_REJECT_CALLER_RUNS : GROUPCONC_REJECT_ABORT;
        groupconc_executor *ex = tu_executor(&p);
        pk ka, kg;
        groupconc_task *a1 = pk_sub(&ka, ex, "a", "a1");
        pk_started(&ka);
        groupconc_task *g1 = pk_sub(&kg, ex, "g", "g1");
        pk_started(&kg);
        groupconc_task *a2 = sub(ex, "a", "a2", tu_noop_fn, NULL); /* waits at the global layer */
        pk_go(&kg);
        assert_true(tu_latch_wait(&g_slowrej_in)); /* a2's callback runs, on g1's worker */
        groupconc_result r;
        int rc = groupconc_task_wait_for(g1, TU_TIMEOUT_NS / 3, &r);
        int completed_seen = atomic_load(&g_slowrej_g1_completed);
        tu_latch_open(&g_slowrej_go);
        assert_int_equal(rc, GROUPCONC_OK);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(completed_seen, 1);
        done_rel(a2, v == 2 ? GROUPCONC_STATUS_REJECTED : GROUPCONC_STATUS_SUCCESS,
                 v == 2 ? GROUPCONC_EREJECTED_CONCURRENCY : 0);
        OK(groupconc_task_release(g1));
        pk_free(&kg);
        pk_finish(&ka, a1);
        OK(groupconc_executor_destroy(ex));
        tu_latch_destroy(&g_slowrej_in);
        tu_latch_destroy(&g_slowrej_go);
    }
}

/* CALLER_RUNS refused in submit: REJECTED event (concurrency), then the task runs on the caller
   with no STARTED event, COMPLETED SUCCESS, counted as succeeded. */
static void pair_reject_listener(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    where w;
    atomic_init(&w.ran, 0);
    groupconc_task *x = sub(ex, "g", "cr", where_fn, &w);
    assert_int_equal(atomic_load(&w.ran), 1);
    assert_true(tu_same_thread(w.th, g_main));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_REJECTED]), 1);
    assert_int_equal(atomic_load(&g_ev_reason), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 2); /* CALLER_RUNS: STARTED with no permits */
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 2);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.succeeded, 2);
    assert_int_equal(gs.rejected_concurrency, 0);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* ABORT against the resolver's concurrency (1, default 5, threshold 0): the second submit is refused
   in submit (no handle) and counted rejected_concurrency. */
static void pair_reject_resolver(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_res_conc, 1);
    groupconc_policy p = pol();
    p.default_concurrency = 5;
    p.default_queue_threshold = 0;
    p.resolver = resolver;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "r1", "held");
    pk_started(&k);
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "r1", "x", tu_noop_fn, NULL, &x), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_null(x);
    pk_finish(&k, t);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.concurrency, 1);
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(atomic_load(&g_resolver), 1);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* A deferred task holds the group's permit: the handler is called in submit for the next one
   (reason: concurrency) and decides SUCCESS; after the deferred completes, a submit runs normally. */
static void pair_reject_deferred(void **state) {
    (void)state;
    px_reset();
    g_h_status = GROUPCONC_STATUS_SUCCESS;
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.reject_handler = handler;
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(atomic_load(&g_handler), 1);
    assert_true(g_h_seen.in_submit);
    assert_int_equal(g_h_seen.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_result r = tu_wait(x);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &g_h_seen);
    OK(groupconc_task_release(x));
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_task *y = sub(ex, "g", "y", tu_noop_fn, NULL);
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_handler), 1);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    assert_int_equal(tu_gstats(ex, "g").succeeded, 3);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* An executor gate permit fills the group (threshold 0, DISCARD): a task is REJECTED at concurrency;
   the permit's release lets the next one run. */
static void pair_reject_gate(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_CONCURRENCY);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    x = sub(ex, "g", "y", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(gs.gate_permits, 0);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

/* A fork refused in submit under DISCARD is a REJECTED fork, a failure under SHUTDOWN_ON_FAILURE
   (join EFAILED, scope_first names it). The handler sees the caller's fn / arg / cleanup, and
   arg_taken works for forks (item 1). */
#ifndef GROUPCONC_NO_SCOPES
static int g_fork_arg;
static void pair_reject_scope(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_scope_config c = {GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, NULL, NULL, "s"};
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, &c, &sc));
    groupconc_task_spec s = spec("g", "f", tu_noop_fn, &g_fork_arg, 0);
    size_t i;
    OK(groupconc_scope_fork(sc, &s, &i));
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED);
    size_t first;
    OK(groupconc_scope_first(sc, &first));
    assert_int_equal(first, i);
    groupconc_result r;
    OK(groupconc_scope_result(sc, i, &r));
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    OK(groupconc_scope_close(sc));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
    px_reset();
    g_h_status = GROUPCONC_STATUS_REJECTED;
    p.reject_handler = handler;
    ex = tu_executor(&p);
    t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    OK(groupconc_scope_open(ex, &c, &sc));
    OK(groupconc_scope_fork(sc, &s, &i));
    assert_int_equal(atomic_load(&g_handler), 1);
    assert_ptr_equal(g_h_seen.fn, tu_noop_fn);
    assert_ptr_equal(g_h_seen.arg, &g_fork_arg);
    assert_ptr_equal(g_h_seen.cleanup, cl_fn);
    assert_string_equal(g_h_seen.group, "g");
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED);
    OK(groupconc_scope_close(sc));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* CALLER_RUNS and a handler never apply to an expired task: REJECTED with the expiry, the body
   never ran, the handler was not called. */
static void pair_reject_deadline(void **state) {
    (void)state;
    px_reset();
    for (int v = 0; v < 2; v++) {
        groupconc_policy p = pol();
        if (v == 0) p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        else p.reject_handler = handler;
        g_h_status = GROUPCONC_STATUS_SUCCESS;
        groupconc_executor *ex = tu_executor(&p);
        pk k;
        groupconc_task *t = pk_sub(&k, ex, "g", "held");
        pk_started(&k);
        where w;
        atomic_init(&w.ran, 0);
        groupconc_task *x = sub_w(ex, "g", "x", where_fn, &w, 20 * TU_MS);
        done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
        pk_finish(&k, t);
        assert_int_equal(atomic_load(&w.ran), 0);
        assert_int_equal(atomic_load(&g_handler), 0);
        assert_int_equal(tu_gstats(ex, "g").expired, 1);
        OK(groupconc_executor_destroy(ex));
    }
    assert_int_equal(atomic_load(&g_cleanups), 4);
}

/* Thresholds still apply to a paused group: one waits (threshold 1), the next is REJECTED (DISCARD)
   at the concurrency layer; after resume the waiting one runs. */
static void pair_reject_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 1;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *a = sub(ex, "g", "a", tu_noop_fn, NULL);
    groupconc_task *b = sub(ex, "g", "b", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    OK(groupconc_group_resume(ex, "g"));
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(gs.succeeded, 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Lowering a group's queue threshold live to 0 makes ABORT refuse the next waiter in submit; raising
   it back lets one wait. */
static void pair_reject_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 4;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.queue_threshold = 0;
    OK(groupconc_group_limits_set(ex, &l));
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "g", "x", tu_noop_fn, NULL, &x), GROUPCONC_EREJECTED_CONCURRENCY);
    l.queue_threshold = 1;
    OK(groupconc_group_limits_set(ex, &l));
    x = sub(ex, "g", "y", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    pk_finish(&k, t);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.queue_threshold, 1);
    assert_int_equal(gs.rejected_concurrency, 1);
    OK(groupconc_executor_destroy(ex));
}

/* EGROUPS_FULL is a submit failure, not a layer's rejection: under DISCARD and with a handler, the
   submit still fails (no handle), the handler is not called; REJECTED event with EGROUPS_FULL,
   counted rejected_other. */
static void pair_reject_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    p.reject_handler = handler;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "x", tu_noop_fn, NULL, &x), GROUPCONC_EGROUPS_FULL);
    assert_null(x);
    assert_int_equal(atomic_load(&g_handler), 0);
    assert_int_equal(atomic_load(&g_ev_reason), GROUPCONC_EGROUPS_FULL);
    assert_int_equal(tu_xstats(ex).rejected_other, 1);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* max_waiting 0 with the running cap full: a task that would wait for a running permit is refused
   in submit (EREJECTED_WAITING) and, under CALLER_RUNS, runs on the caller, beside the running one. */
static void pair_reject_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    p.max_waiting = 0;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    where w;
    atomic_init(&w.ran, 0);
    groupconc_task *x = sub(ex, "b", "x", where_fn, &w);
    assert_int_equal(atomic_load(&w.ran), 1);
    assert_true(tu_same_thread(w.th, g_main));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev_reason), GROUPCONC_EREJECTED_WAITING);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 0);
    pk_finish(&k, t);
    assert_int_equal(tu_gstats(ex, "b").succeeded, 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* The fleet provider refuses: the handler sees EREJECTED_FLEET and decides SUCCESS; DISCARD: the
   task is REJECTED with EREJECTED_FLEET, counted rejected_fleet. */
static void pair_reject_fleet(void **state) {
    (void)state;
    px_reset();
    g_h_status = GROUPCONC_STATUS_SUCCESS;
    groupconc_policy p = fpol(FP_REJECT);
    p.reject_handler = handler;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    groupconc_result r = tu_wait(x);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &g_h_seen);
    OK(groupconc_task_release(x));
    assert_int_equal(atomic_load(&g_handler), 1);
    assert_int_equal(g_h_seen.reason, GROUPCONC_EREJECTED_FLEET);
    OK(groupconc_executor_destroy(ex));
    p = fpol(FP_REJECT);
    p.rejection = GROUPCONC_REJECT_DISCARD;
    ex = tu_executor(&p);
    x = sub(ex, "g", "y", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_FLEET);
    assert_int_equal(tu_gstats(ex, "g").rejected_fleet, 1);
    assert_int_equal(tu_xstats(ex).rejected_fleet, 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A callback waits for the task its own task's end handed the group's permit to (concurrency 1),
   which must then ask the fleet provider (helper-73, defect 1): v 0 a completion callback on the
   worker that ran x; v 1 a rejection handler run by a REJECT answer on the test's thread; v 2 the
   completion callback of a cancel of x (at the fleet layer, asked). Before, y's request was made
   only after the step's callbacks returned: the wait never saw it made (a plain wait hung). */
static groupconc_task *g_fcw_y;
static atomic_int g_fcw_rc;
static void fcw_wait_y(void) {
    groupconc_result r;
    atomic_store(&g_fcw_rc, groupconc_task_wait_for(g_fcw_y, TU_TIMEOUT_NS / 3, &r));
}
static void fcw_on_complete(groupconc_task *t, const groupconc_result *r, void *ud) {
    (void)t;
    (void)r;
    (void)ud;
    fcw_wait_y();
}
static void fcw_handler(const groupconc_rejection *rej, groupconc_reject_result *out, void *ud) {
    (void)rej;
    (void)ud;
    fcw_wait_y();
    out->status = GROUPCONC_STATUS_SUCCESS;
}
static void pair_fleet_callback_waits_for_next(void **state) {
    (void)state;
    for (int v = 0; v < 3; v++) {
        px_reset();
        atomic_store(&g_fcw_rc, 999);
        groupconc_policy p = fpol(v == 0 ? FP_GRANT : FP_HOLD);
        if (v == 1) p.reject_handler = fcw_handler;
        groupconc_executor *ex = tu_executor(&p);
        pk k;
        groupconc_task *x;
        if (v == 0) {
            x = pk_sub(&k, ex, "g", "x");
            pk_started(&k);
        } else {
            x = sub(ex, "g", "x", tu_noop_fn, NULL);
            fp_wait_asks(1);
        }
        g_fcw_y = sub(ex, "g", "y", tu_noop_fn, NULL); /* waits at concurrency */
        assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
        if (v != 1) OK(groupconc_task_on_complete(x, fcw_on_complete, NULL));
        if (v == 0) {
            pk_go(&k);
        } else {
            tu_mutex_lock(&g_fp.m);
            g_fp.mode = FP_GRANT; /* y's request is answered at once, when it is made */
            tu_mutex_unlock(&g_fp.m);
            if (v == 1) fp_answer(GROUPCONC_FLEET_REJECT);
            else OK(groupconc_task_cancel(x, NULL));
        }
        groupconc_result r = tu_wait(x);
        assert_int_equal(atomic_load(&g_fcw_rc), GROUPCONC_OK);
        assert_int_equal(r.status, v == 2 ? GROUPCONC_STATUS_CANCELLED : GROUPCONC_STATUS_SUCCESS);
        OK(groupconc_task_release(x));
        done_rel(g_fcw_y, GROUPCONC_STATUS_SUCCESS, 0);
        if (v == 0) pk_free(&k);
        if (v == 2) fp_answer(GROUPCONC_FLEET_GRANTED); /* x's request, answered late: given back */
        OK(groupconc_executor_destroy(ex));
        assert_int_equal(fp_get(&g_fp.out), 0);
    }
}

/* DISCARD rejects one task of the group, group_shutdown cancels its waiter: each counted where its
   status puts it; the group stays usable. */
static void pair_reject_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 1;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *q = sub(ex, "g", "q", tu_noop_fn, NULL);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_CONCURRENCY);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(q, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    x = sub(ex, "g", "after", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(gs.cancelled, 1);
    assert_int_equal(gs.succeeded, 2);
    assert_int_equal(atomic_load(&g_cleanups), 4);
    OK(groupconc_executor_destroy(ex));
}

/* CALLER_RUNS refusals made in one locked step of a worker wait in that worker's batch while the
   ones before them settle (their REJECTED events run first). A group shutdown (v 0) or evict (v 1)
   of such a task's group must still reach it: it completes CANCELLED, never run; and while its
   outcome is open its group is not idle (v 2: a bounded table at max_groups does not reclaim it).
   Before, the task was in no list the sweep or the idle check looked at: it ran after its group's
   shutdown, and its group was reclaimed (helper-63, defect 1). v 3: a group shutdown in the clock
   tick of an earlier sweep and of g3's refusal (a coarse clock: simulated by that sweep's stamp
   10 s ahead) must reach g3 too; before, its stamp fell behind g3's (helper-67, defect 2).
   Here g2 and g3 wait at the global
   in-flight cap; h1's end hands both a permit, and both are refused at their groups' concurrency;
   g2's REJECTED event holds the worker while the test acts on g3's group k. */
static tu_latch g_settle_in, g_settle_go;
static void settle_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_REJECTED && e->task_id && strcmp(e->task_id, "g2") == 0) {
        tu_latch_count_down(&g_settle_in);
        (void)tu_latch_wait(&g_settle_go);
    }
}
static int count_run_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)ctx;
    (void)out;
    atomic_fetch_add((atomic_int *)arg, 1);
    return 0;
}
/* The key table's hash of key (internal: groupconc__key_hash). */
static uint64_t hash_of(const char *key) {
    size_t len = 0;
    uint64_t hash = 0;
    (void)groupconc__key_hash(key, &len, &hash);
    return hash;
}

static void pair_reject_groupshut_while_settling(void **state) {
    (void)state;
    for (int v = 0; v < 4; v++) {
        px_reset();
        groupconc_policy p = pol();
        p.listener = settle_listener;
        p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        p.global_max_in_flight = 3;
        p.default_queue_threshold = 0;
        if (v == 2) p.max_groups = 3;
        groupconc_executor *ex = tu_executor(&p);
        tu_latch_init(&g_settle_in, 1);
        tu_latch_init(&g_settle_go, 1);
        atomic_int ran;
        atomic_init(&ran, 0);
        pk kg, kh, kk;
        groupconc_task *tg = pk_sub(&kg, ex, "g", "g1");
        pk_started(&kg);
        groupconc_task *th = pk_sub(&kh, ex, "h", "h1");
        pk_started(&kh);
        groupconc_task *tk = pk_sub(&kk, ex, "k", "k1");
        pk_started(&kk);
        if (v == 2) OK(groupconc_group_pause(ex, "h")); /* h is not idle either once h1 ended */
        groupconc_task *g2 = sub(ex, "g", "g2", tu_noop_fn, NULL);
        groupconc_task *g3 = sub(ex, "k", "g3", count_run_fn, &ran);
        assert_int_equal(tu_xstats(ex).waiting, 2); /* both at the global cap */
        if (v == 3) { /* a sweep of k stamped 10 s ahead: as if it came in the clock tick that g3's
                         refusal and the group shutdown below come in (a coarse clock), or the
                         clock stepped back since (white-box) */
            groupconc__exec_lock(ex);
            groupconc__group *gk = groupconc__find_locked(ex, "k", 1, hash_of("k"));
            assert_non_null(gk);
            assert_non_null(groupconc__group_cold_get(gk));
            gk->cold->swept_ns = groupconc__now_ns() + INT64_C(10000000000);
            groupconc__exec_unlock(ex);
        }
        pk_go(&kh);
        assert_true(tu_latch_wait(&g_settle_in)); /* g3 refused, in the worker's batch */
        /* both refusals' outcomes are open: each is in its group's refusing (g2 in its event, g3
           waiting for its turn, in no list the dump shows), in submitted, not in completed */
        assert_int_equal(tu_gstats(ex, "g").refusing, 1);
        assert_int_equal(tu_gstats(ex, "k").refusing, 1);
        assert_int_equal(tu_xstats(ex).refusing, 2);
        assert_int_equal(tu_gstats(ex, "k").submitted - tu_gstats(ex, "k").completed,
                         tu_gstats(ex, "k").running + tu_gstats(ex, "k").refusing);
        if (v == 0 || v == 3) OK(groupconc_group_shutdown(ex, "k"));
        if (v == 1) OK(groupconc_group_evict(ex, "k"));
        if (v == 2) {
            pk_finish(&kk, tk); /* k's running task gone: only g3's open refusal keeps k */
            groupconc_task *n = NULL;
            assert_int_equal(groupconc_submit(ex, "n", "n1", tu_noop_fn, NULL, &n), GROUPCONC_EGROUPS_FULL);
            assert_int_equal(tu_xstats(ex).groups_reclaimed, 0);
            assert_int_equal(tu_gstats(ex, "k").submitted, 2);
        }
        tu_latch_count_down(&g_settle_go);
        groupconc_result r = tu_wait(g3);
        if (v != 2) {
            assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(atomic_load(&ran), 0);
        } else {
            assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS); /* its CALLER_RUNS re-run */
            assert_int_equal(atomic_load(&ran), 1);
            assert_int_equal(tu_gstats(ex, "k").caller_runs, 1);
        }
        OK(groupconc_task_release(g3));
        if (v == 0 || v == 3) assert_int_equal(tu_gstats(ex, "k").cancelled, 1);
        if (v != 1) assert_int_equal(tu_gstats(ex, "k").refusing, 0);
        done_rel(g2, GROUPCONC_STATUS_SUCCESS, 0); /* g's: run on a worker (CALLER_RUNS) */
        done_rel(th, GROUPCONC_STATUS_SUCCESS, 0);
        pk_free(&kh);
        if (v != 2) pk_finish(&kk, tk);
        pk_finish(&kg, tg);
        if (v == 2) OK(groupconc_group_resume(ex, "h"));
        OK(groupconc_executor_destroy(ex));
        tu_latch_destroy(&g_settle_in);
        tu_latch_destroy(&g_settle_go);
    }
}

/* After shutdown a submit fails with ESHUTDOWN under every rejection policy; the handler is not
   called and CALLER_RUNS runs nothing. */
static void pair_reject_shutdown(void **state) {
    (void)state;
    px_reset();
    for (int v = 0; v < 3; v++) {
        groupconc_policy p = pol();
        if (v == 0) p.rejection = GROUPCONC_REJECT_DISCARD;
        if (v == 1) p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        if (v == 2) p.reject_handler = handler;
        groupconc_executor *ex = tu_executor(&p);
        OK(groupconc_executor_shutdown(ex));
        where w;
        atomic_init(&w.ran, 0);
        groupconc_task *x = NULL;
        assert_int_equal(groupconc_submit(ex, "g", "x", where_fn, &w, &x), GROUPCONC_ESHUTDOWN);
        assert_null(x);
        assert_int_equal(atomic_load(&w.ran), 0);
        OK(groupconc_executor_destroy(ex));
    }
    assert_int_equal(atomic_load(&g_handler), 0);
}

#ifndef GROUPCONC_NO_DUMP
/* A CALLER_RUNS body dumps the executor from inside its submit: it is listed, by id, as caller_runs
   (no stats field counts it), and nowhere else. */
static int dump_caller_runs_fn(groupconc_context *ctx, void **out, void *arg) {
    (void)arg;
    size_t need = 0;
    static char buf[1 << 16];
    int rc = groupconc_executor_dump(groupconc_context_executor(ctx), buf, sizeof buf, &need);
    static const char listed[] = "\"group\":\"g\",\"id\":\"x\",\"state\":\"caller_runs\"";
    const char *me = strstr(buf, listed);
    *out = (void *)(intptr_t)(rc == GROUPCONC_OK && me && !strstr(me + sizeof listed - 1, "\"id\":\"x\"") &&
                              strstr(buf, "\"id\":\"x\"") == me + strlen("\"group\":\"g\","));
    return 0;
}

/* The dump's group counters show the rejection as the stats do; a refused task running under
   CALLER_RUNS inside its submit is in its task list. */
static void pair_reject_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(dump_int(ex, "g", "rejected_concurrency"), 1);
    assert_int_equal(dump_int(ex, NULL, "rejected_concurrency"), 1);
    assert_int_equal(dump_int(ex, "g", "completed"), 1);
    assert_int_equal(dump_int(ex, "g", "running"), 1);
    pk_finish(&k, t);
    assert_int_equal(dump_int(ex, "g", "completed"), (long long)tu_gstats(ex, "g").completed);
    OK(groupconc_executor_destroy(ex));

    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    ex = tu_executor(&p);
    t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    x = sub(ex, "g", "x", dump_caller_runs_fn, NULL);
    groupconc_result r = tu_wait(x);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, (void *)(intptr_t)1); /* it saw itself, once, as caller_runs */
    OK(groupconc_task_release(x));
    char *d = dump(ex);
    assert_null(strstr(d, "\"state\":\"caller_runs\"")); /* done: listed no more */
    free(d);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== listener × ... ============================================================================= */

/* The listener reads its group's stats from the SUBMITTED event: the resolver already fixed the
   concurrency (3), once. */
static atomic_int g_seen_conc;
static groupconc_executor *g_lex;
static void stats_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_STARTED) {
        groupconc_group_stats s;
        if (groupconc_group_stats_get(g_lex, e->group, &s) == GROUPCONC_OK)
            atomic_store(&g_seen_conc, s.concurrency);
    }
}
static void pair_listener_resolver(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_seen_conc, 0);
    groupconc_policy p = pol();
    p.resolver = resolver;
    p.listener = stats_listener;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    groupconc_task *x = sub(ex, "r1", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_seen_conc), 3);
    assert_int_equal(atomic_load(&g_resolver), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* STARTED when the body runs; no COMPLETED while deferred; COMPLETED and the completion callback
   once after deferred_complete. */
static void pair_listener_deferred(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *t = sub(ex, "g", "d", defer_fn, &f);
    OK(groupconc_task_on_complete(t, oc_fn, NULL));
    dfr_wait(&f);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 0);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 1);
    assert_true(atomic_load(&g_completed_on_main));
    assert_int_equal(atomic_load(&g_oc), 1);
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* An executor gate's permit makes no executor events; the task it held back gets its STARTED only
   after the release; the gate listener saw ADMITTED, REJECTED (concurrency) and RELEASED once each. */
static atomic_int g_gev[3];
static atomic_int g_gev_reason;
static void gate_listener(const groupconc_gate_event *e, void *ud) {
    (void)ud;
    atomic_fetch_add(&g_gev[e->type], 1);
    if (e->type == GROUPCONC_GATE_REJECTED) atomic_store(&g_gev_reason, e->reason);
}
static void pair_listener_gate(void **state) {
    (void)state;
    px_reset();
    for (int i = 0; i < 3; i++) atomic_store(&g_gev[i], 0);
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, gate_listener, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm2), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&g_gev_reason), GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 0);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_FAILURE, 7));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    assert_int_equal(atomic_load(&g_gev[GROUPCONC_GATE_ADMITTED]), 1);
    assert_int_equal(atomic_load(&g_gev[GROUPCONC_GATE_REJECTED]), 1);
    assert_int_equal(atomic_load(&g_gev[GROUPCONC_GATE_RELEASED]), 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* Every fork's COMPLETED event and its on_fork_complete, once each (CUSTOM). */
static atomic_int g_forks_seen;
static void on_fork(groupconc_scope *s, size_t i, const groupconc_result *r, void *ud) {
    (void)s;
    (void)i;
    (void)r;
    (void)ud;
    atomic_fetch_add(&g_forks_seen, 1);
}
static atomic_int g_first_set_rc;
static inline void first_set_cb(groupconc_scope *s, size_t i, const groupconc_result *r, void *ud) {
    (void)r;
    (void)ud;
    atomic_store(&g_first_set_rc, groupconc_scope_first_set(s, i));
}

static void pair_listener_scope(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_forks_seen, 0);
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope_config c = {GROUPCONC_SCOPE_CUSTOM, on_fork, NULL, "c"};
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, &c, &sc));
    for (int i = 0; i < 3; i++) {
        groupconc_task_spec s = spec(i == 1 ? "h" : "g", NULL, i == 2 ? fail_fn : tu_noop_fn, NULL, 0);
        OK(groupconc_scope_fork(sc, &s, NULL));
    }
    OK(groupconc_scope_join(sc));
    OK(groupconc_scope_close(sc));
    assert_int_equal(atomic_load(&g_forks_seen), 3);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 3);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 3);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    atomic_store(&g_first_set_rc, GROUPCONC_OK);
    groupconc_scope_config c2 = {GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, first_set_cb, NULL, "sos"};
    OK(groupconc_scope_open(ex, &c2, &sc));
    groupconc_task_spec sf = spec("g", NULL, fail_fn, NULL, 0);
    OK(groupconc_scope_fork(sc, &sf, NULL));
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED); /* no fork succeeded */
    assert_true(atomic_load(&g_first_set_rc) != GROUPCONC_OK);
    size_t first;
    assert_int_equal(groupconc_scope_first(sc, &first), GROUPCONC_ENOTFOUND);
    OK(groupconc_scope_close(sc));
    OK(groupconc_executor_destroy(ex));
}
#endif

/* An expired task: REJECTED event with the concurrency expiry, COMPLETED REJECTED, no STARTED, off
   the test's thread (the housekeeper). */
static void pair_listener_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 10 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_REJECTED]), 1);
    assert_int_equal(atomic_load(&g_ev_reason), GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 1);
    assert_false(atomic_load(&g_completed_on_main));
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's task: SUBMITTED, no STARTED; STARTED after resume. */
static void pair_listener_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 0);
    OK(groupconc_group_resume(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    OK(groupconc_executor_destroy(ex));
}

/* The listener raises the group's concurrency from the first STARTED event: the second task, queued
   behind the first, starts while the first is still parked. */
static void raising_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_STARTED && e->task_id && strcmp(e->task_id, "a") == 0) {
        groupconc_group_limits l = groupconc_group_limits_keep(e->group);
        l.concurrency = 2;
        groupconc_group_limits_set(g_lex, &l);
    }
}
static void pair_listener_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.listener = raising_listener;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    pk a, b;
    pk_init(&a);
    pk_init(&b);
    OK(groupconc_group_pause(ex, "g")); /* both queued before the first starts */
    groupconc_task *ta = sub(ex, "g", "a", tu_park_fn, &a.p);
    groupconc_task *tb = sub(ex, "g", "b", tu_park_fn, &b.p);
    OK(groupconc_group_resume(ex, "g"));
    pk_started(&a);
    pk_started(&b);
    assert_int_equal(tu_gstats(ex, "g").concurrency, 2);
    pk_finish(&a, ta);
    pk_finish(&b, tb);
    OK(groupconc_executor_destroy(ex));
}

/* A reclaimed group's COMPLETED event named its key; the state is gone afterwards and the next use
   makes it afresh (submitted 1 again). */
static void pair_listener_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *a = sub(ex, "a", "x", tu_noop_fn, NULL);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_task *b = sub(ex, "b", "y", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    a = sub(ex, "a", "z", tu_noop_fn, NULL);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 3);
    assert_int_equal(tu_gstats(ex, "a").submitted, 1);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 2);
    assert_int_equal(tu_xstats(ex).completed, 3);
    OK(groupconc_executor_destroy(ex));
}

/* Under a running cap of 1, a task of another group gets its STARTED only after the running one
   finished; STARTED order is submission order across groups. */
static atomic_int g_start_b;
static void order_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_STARTED) {
        int n = atomic_fetch_add(&g_started_order, 1);
        if (e->task_id && strcmp(e->task_id, "b") == 0) atomic_store(&g_start_b, n);
    }
}
static void pair_listener_runcap(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_start_b, -1);
    groupconc_policy p = pol();
    p.global_max_running = 1;
    p.listener = order_listener;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    groupconc_task *c = sub(ex, "c", "c", tu_noop_fn, NULL);
    assert_int_equal(tu_xstats(ex).waiting_running, 2);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    pk_finish(&k, t);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(c, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_start_b), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 3);
    OK(groupconc_executor_destroy(ex));
}

/* OPEN: a FLEET event (EFLEET_OPEN), the task runs, fleet_open 1; fleet_report RENEW: a FLEET event
   (EFLEET_RENEW), fleet_renew_failed 1. */
static void pair_listener_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_OPEN);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_FLEET]), 1);
    assert_int_equal(atomic_load(&g_ev_fleet_reason), GROUPCONC_EFLEET_OPEN);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    OK(groupconc_fleet_report(ex, "g", GROUPCONC_EFLEET_RENEW));
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_FLEET]), 2);
    assert_int_equal(atomic_load(&g_ev_fleet_reason), GROUPCONC_EFLEET_RENEW);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.fleet_open, 1);
    assert_int_equal(xs.fleet_renew_failed, 1);
    assert_int_equal(fp_get(&g_fp.releases), 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown: the cancelled waiter's COMPLETED runs on the calling thread, before it returns. */
static void pair_listener_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "g"));
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 1);
    assert_true(atomic_load(&g_completed_on_main));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* shutdown_graceful from the listener: EDEADLK at once, it stops accepting, the queued task still
   runs to SUCCESS. */
static atomic_int g_graceful_rc;
static void graceful_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_STARTED && e->task_id && strcmp(e->task_id, "held") == 0)
        atomic_store(&g_graceful_rc, groupconc_executor_shutdown_graceful(g_lex, GROUPCONC_FOREVER));
}
static void pair_listener_shutdown(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_graceful_rc, 1);
    groupconc_policy p = pol();
    p.listener = graceful_listener;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    pk k;
    pk_init(&k);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *t = sub(ex, "g", "held", tu_park_fn, &k.p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_resume(ex, "g"));
    pk_started(&k);
    assert_int_equal(atomic_load(&g_graceful_rc), GROUPCONC_EDEADLK);
    assert_true(tu_xstats(ex).shutdown);
    groupconc_task *y = NULL;
    assert_int_equal(groupconc_submit(ex, "g", "y", tu_noop_fn, NULL, &y), GROUPCONC_ESHUTDOWN);
    pk_finish(&k, t);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump from inside the COMPLETED event works (no lock held) and counts the task. */
static atomic_int g_dump_rc;
static atomic_bool g_dump_ok;
static void dump_listener(const groupconc_event *e, void *ud) {
    listener(e, ud);
    if (e->type == GROUPCONC_EVENT_COMPLETED) {
        static char buf[1 << 16];
        size_t need;
        atomic_store(&g_dump_rc, groupconc_executor_dump(g_lex, buf, sizeof buf, &need));
        atomic_store(&g_dump_ok, strstr(buf, "\"key\":\"g\"") != NULL && strstr(buf, "\"submitted\":1") != NULL);
    }
}
static void pair_listener_dump(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_dump_rc, 1);
    atomic_store(&g_dump_ok, false);
    groupconc_policy p = pol();
    p.listener = dump_listener;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_dump_rc), GROUPCONC_OK);
    assert_true(atomic_load(&g_dump_ok));
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== resolver × ... ============================================================================= */

static groupconc_policy rpol(int conc) {
    atomic_store(&g_res_conc, conc);
    groupconc_policy p = pol();
    p.resolver = resolver;
    return p;
}

#ifndef GROUPCONC_NO_DUMP
/* Two deferred tasks hold both of the resolver's permits (2); the third waits until one completes. */
static void pair_resolver_deferred(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(2);
    groupconc_executor *ex = tu_executor(&p);
    dfr f[2];
    groupconc_task *d[2];
    for (int i = 0; i < 2; i++) {
        dfr_init(&f[i]);
        d[i] = sub(ex, "r1", i ? "d1" : "d0", defer_fn, &f[i]);
        dfr_wait(&f[i]);
    }
    groupconc_task *x = sub(ex, "r1", "x", tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.concurrency, 2);
    assert_int_equal(gs.waiting_concurrency, 1);
    OK(groupconc_deferred_complete(f[0].d, 0, NULL));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_deferred_complete(f[1].d, 0, NULL));
    for (int i = 0; i < 2; i++) {
        done_rel(d[i], GROUPCONC_STATUS_SUCCESS, 0);
        tu_latch_destroy(&f[i].deferred);
    }
    assert_int_equal(atomic_load(&g_resolver), 1);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* An executor gate's try-acquire creates the group: the resolver runs once and its value (3) is
   the gate's limit for it; the 4th acquire is refused at concurrency. */
static void pair_resolver_gate(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm[4];
    for (int i = 0; i < 3; i++) OK(groupconc_gate_try_acquire(g, "r1", &pm[i]));
    assert_int_equal(groupconc_gate_try_acquire(g, "r1", &pm[3]), GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "r1", &st));
    assert_int_equal(st.limit, 3);
    assert_int_equal(st.in_flight, 3);
    assert_int_equal(st.available, 0);
    for (int i = 0; i < 3; i++) OK(groupconc_permit_release(&pm[i], GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(atomic_load(&g_resolver), 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* Forks into a resolved group (1) run one at a time; the resolver ran once. */
static void pair_resolver_scope(void **state) {
    (void)state;
    px_reset();
    tu_peak_init(&g_peak);
    groupconc_policy p = rpol(1);
    p.default_concurrency = 4;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, NULL, &sc));
    for (int i = 0; i < 4; i++) {
        groupconc_task_spec s = spec("r1", NULL, peak_fn, NULL, 0);
        OK(groupconc_scope_fork(sc, &s, NULL));
    }
    OK(groupconc_scope_join(sc));
    OK(groupconc_scope_close(sc));
    assert_int_equal(tu_peak_max(&g_peak), 1);
    assert_int_equal(atomic_load(&g_resolver), 1);
    assert_int_equal(tu_gstats(ex, "r1").succeeded, 4);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* The resolver's 1 (default 4) makes the second task wait at concurrency, where its deadline
   expires. */
static void pair_resolver_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(1);
    p.default_concurrency = 4;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "r1", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "r1", "x", tu_noop_fn, NULL, 10 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    pk_finish(&k, t);
    assert_int_equal(tu_gstats(ex, "r1").expired, 1);
    OK(groupconc_executor_destroy(ex));
}

/* Pausing a new key creates its state: the resolver runs (once) and the paused group already has
   its concurrency; resume runs 3 at once. */
static void pair_resolver_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "r1"));
    assert_int_equal(atomic_load(&g_resolver), 1);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_true(gs.paused);
    assert_int_equal(gs.concurrency, 3);
    pk k[3];
    groupconc_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = pk_sub(&k[i], ex, "r1", NULL);
    OK(groupconc_group_resume(ex, "r1"));
    for (int i = 0; i < 3; i++) pk_started(&k[i]);
    for (int i = 0; i < 3; i++) pk_finish(&k[i], t[i]);
    assert_int_equal(atomic_load(&g_resolver), 1);
    OK(groupconc_executor_destroy(ex));
}

/* group_limits_set: a value overrides the resolver; GROUPCONC_DEFAULT puts the resolver back (it
   runs again). */
static void pair_resolver_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_limits l = groupconc_group_limits_keep("r1");
    l.concurrency = 5;
    OK(groupconc_group_limits_set(ex, &l));
    assert_int_equal(tu_gstats(ex, "r1").concurrency, 5);
    atomic_store(&g_res_conc, 2);
    l.concurrency = GROUPCONC_DEFAULT;
    OK(groupconc_group_limits_set(ex, &l));
    assert_int_equal(tu_gstats(ex, "r1").concurrency, 2);
    assert_int_equal(atomic_load(&g_resolver), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A reclaimed group is resolved again on its next use (the resolver's new answer applies). */
static void pair_resolver_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    x = sub(ex, "r2", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    atomic_store(&g_res_conc, 4);
    x = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(tu_gstats(ex, "r1").concurrency, 4);
    assert_int_equal(atomic_load(&g_resolver), 3);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 2);
    OK(groupconc_executor_destroy(ex));
}

/* The resolver allows 3, the global running cap 1: one runs, two wait for a running permit holding
   their group's permits. */
static void pair_resolver_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "r1", "held");
    pk_started(&k);
    groupconc_task *a = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    groupconc_task *b = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.waiting_running, 2);
    assert_int_equal(gs.waiting_concurrency, 0);
    pk_finish(&k, t);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
}

/* Only tasks past the resolver's concurrency (2) reach the fleet layer: 3 submitted, 2 asked. */
static void pair_resolver_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    p.resolver = resolver;
    atomic_store(&g_res_conc, 2);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x[3];
    for (int i = 0; i < 3; i++) x[i] = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    fp_wait_asks(2);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.waiting_fleet, 2);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(fp_get(&g_fp.asks), 2);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    fp_wait_asks(3);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    for (int i = 0; i < 3; i++) done_rel(x[i], GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.releases), 3);
    OK(groupconc_executor_destroy(ex));
}

/* Evict drops the state: the next use resolves again. */
static void pair_resolver_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = rpol(3);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_group_shutdown(ex, "r1"));
    assert_int_equal(atomic_load(&g_resolver), 1); /* shutdown keeps the state */
    OK(groupconc_group_evict(ex, "r1"));
    atomic_store(&g_res_conc, 2);
    x = sub(ex, "r1", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_resolver), 2);
    assert_int_equal(tu_gstats(ex, "r1").concurrency, 2);
    OK(groupconc_executor_destroy(ex));
}

/* From inside the resolver, executor_shutdown and the dump return EDEADLK and change nothing. */
static atomic_int g_rs_shut, g_rs_graceful;
#ifndef GROUPCONC_NO_DUMP
static atomic_int g_rs_dump;
#endif
static int calling_resolver(const char *group, int *out, void *ud) {
    (void)group;
    (void)ud;
    atomic_fetch_add(&g_resolver, 1);
    atomic_store(&g_rs_shut, groupconc_executor_shutdown(g_lex));
#ifndef GROUPCONC_NO_DUMP
    size_t need;
    char buf[64];
    atomic_store(&g_rs_dump, groupconc_executor_dump(g_lex, buf, sizeof buf, &need));
#endif
    atomic_store(&g_rs_graceful, groupconc_executor_shutdown_graceful(g_lex, 0));
    *out = 2;
    return 0;
}
static void pair_resolver_shutdown(void **state) {
    (void)state;
    px_reset();
    atomic_store(&g_rs_graceful, GROUPCONC_EDEADLK);
    groupconc_policy p = pol();
    p.resolver = calling_resolver;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    groupconc_task *x = sub(ex, "g", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&g_rs_shut), GROUPCONC_EDEADLK);
    assert_int_equal(atomic_load(&g_rs_graceful), GROUPCONC_EDEADLK);
    assert_false(tu_xstats(ex).shutdown);
    assert_int_equal(tu_gstats(ex, "g").concurrency, 2);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump from the resolver: EDEADLK; afterwards the dump shows the resolved concurrency. */
static void pair_resolver_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.resolver = calling_resolver;
    groupconc_executor *ex = tu_executor(&p);
    g_lex = ex;
    OK(groupconc_group_pause(ex, "g")); /* the fourth route into a resolver: pause of a new key */
    assert_int_equal(atomic_load(&g_rs_dump), GROUPCONC_EDEADLK);
    assert_int_equal(dump_int(ex, "g", "concurrency"), 2);
    assert_int_equal(dump_int(ex, "g", "paused"), 1);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== deferred × ... ============================================================================= */

#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_GATE)
/* A deferred task holds its group's permit: the executor gate refuses at concurrency until it
   completes. */
static void pair_deferred_gate(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_permit pm;
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm), GROUPCONC_EREJECTED_CONCURRENCY);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, NULL, &st));
    assert_int_equal(st.admitted, 1);
    assert_int_equal(st.rejected, 1);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_SCOPES)
/* A fork that defers: join waits for its completion from this thread; its value is the fork's
   result (SHUTDOWN_ON_SUCCESS: it decides the scope). */
static void pair_deferred_scope(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope_config c = {GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, NULL, NULL, "s"};
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, &c, &sc));
    dfr f;
    dfr_init(&f);
    groupconc_task_spec s = spec("g", "d", defer_fn, &f, 0);
    size_t i;
    OK(groupconc_scope_fork(sc, &s, &i));
    dfr_wait(&f);
    groupconc_result r;
    assert_int_equal(groupconc_scope_result(sc, i, &r), GROUPCONC_ETIMEDOUT);
    OK(groupconc_deferred_complete(f.d, 0, &g_fork_arg));
    OK(groupconc_scope_join(sc));
    size_t first;
    OK(groupconc_scope_first(sc, &first));
    assert_int_equal(first, i);
    OK(groupconc_scope_result(sc, i, &r));
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, &g_fork_arg);
    OK(groupconc_scope_close(sc));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_DUMP
/* A deferred task is past its queue deadline (it holds every permit): it completes SUCCESS later,
   while a task waiting behind it expires at the concurrency layer. */
static void pair_deferred_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_max_wait_ns = 10 * TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.succeeded, 1);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* Pausing the group of a deferred task: it completes normally; its permit then goes to nobody until
   resume. */
static void pair_deferred_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_pause(ex, "g"));
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.running, 0);
    OK(groupconc_group_resume(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* Lowering the concurrency (2 -> 1) with two deferred tasks in flight preempts nothing: the waiter
   starts only when both completed. */
static void pair_deferred_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);
    dfr f[2];
    groupconc_task *d[2];
    for (int i = 0; i < 2; i++) {
        dfr_init(&f[i]);
        d[i] = sub(ex, "g", i ? "d1" : "d0", defer_fn, &f[i]);
        dfr_wait(&f[i]);
    }
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 1;
    OK(groupconc_group_limits_set(ex, &l));
    OK(groupconc_deferred_complete(f[0].d, 0, NULL));
    done_rel(d[0], GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.concurrency, 1);
    OK(groupconc_deferred_complete(f[1].d, 0, NULL));
    done_rel(d[1], GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    for (int i = 0; i < 2; i++) tu_latch_destroy(&f[i].deferred);
    OK(groupconc_executor_destroy(ex));
}

/* A group with a deferred task in flight is not reclaimed: a new key finds the table full
   (max_groups 1) until the deferred task completes. */
static void pair_deferred_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    p.group_idle_ns = TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "a", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "x", tu_noop_fn, NULL, &x), GROUPCONC_EGROUPS_FULL);
    assert_int_equal(tu_gstats(ex, "a").running, 1);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    x = sub(ex, "b", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    /* "a" was reclaimed (else "b" found the table full); "b" may be too, idle for 1 ms on a slow
       machine (CI's Wine run saw 2) */
    uint64_t reclaimed = tu_xstats(ex).groups_reclaimed;
    assert_true(reclaimed >= 1 && reclaimed <= 2);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* A deferred task holds a running permit: another group's task waits at the running cap until it
   completes. */
static void pair_deferred_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "a", "d", defer_fn, &f);
    dfr_wait(&f);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 1);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(tu_xstats(ex).global_running, 0);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* The fleet lease is held while the task is deferred and given back by deferred_complete. */
static void pair_deferred_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_GRANT);
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    assert_int_equal(fp_get(&g_fp.out), 1);
    assert_int_equal(fp_get(&g_fp.releases), 0);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    assert_int_equal(fp_get(&g_fp.releases), 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown flags a deferred task; it completes CANCELLED when its work says so. */
static void pair_deferred_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    assert_false(groupconc_deferred_is_cancelled(f.d));
    OK(groupconc_group_shutdown(ex, "g"));
    assert_true(groupconc_deferred_is_cancelled(f.d));
    OK(groupconc_deferred_complete(f.d, GROUPCONC_TASK_CANCELLED, NULL));
    done_rel(d, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 1);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}

/* A graceful shutdown waits for a deferred task like a running one: at its timeout it flags it
   (ETIMEDOUT); completion after the shutdown is accepted; destroy then succeeds. */
static void pair_deferred_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "d", defer_fn, &f);
    dfr_wait(&f);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, 20 * TU_MS), GROUPCONC_ETIMEDOUT);
    assert_true(groupconc_deferred_is_cancelled(f.d));
    bool done = true;
    OK(groupconc_task_is_done(d, &done));
    assert_false(done);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    tu_latch_destroy(&f.deferred);
}

/* The dump shows a deferred task by id in state "deferred", counted in the executor's "deferred". */
static void pair_deferred_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    dfr f;
    dfr_init(&f);
    groupconc_task *d = sub(ex, "g", "dd", defer_fn, &f);
    dfr_wait(&f);
    assert_true(dump_has(ex, "\"id\":\"dd\",\"state\":\"deferred\""));
    assert_int_equal(dump_int(ex, NULL, "deferred"), 1);
    OK(groupconc_deferred_complete(f.d, 0, NULL));
    done_rel(d, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(dump_int(ex, NULL, "deferred"), 0);
    tu_latch_destroy(&f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== gate × ... ================================================================================= */

#ifndef GROUPCONC_NO_GATE
static groupconc_gate *xgate(groupconc_executor *ex) {
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g = NULL;
    OK(groupconc_gate_create(&gc, &g));
    return g;
}
#endif

#if !defined(GROUPCONC_NO_GATE) && !defined(GROUPCONC_NO_SCOPES)
/* A held permit keeps a fork waiting; scope_shutdown dequeues it (CANCELLED); the permit is
   unaffected and released afterwards. */
static void pair_gate_scope(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_scope *sc;
    OK(groupconc_scope_open(ex, NULL, &sc));
    groupconc_task_spec s = spec("g", "f", tu_noop_fn, NULL, 0);
    OK(groupconc_scope_fork(sc, &s, NULL));
    assert_int_equal(groupconc_scope_join_for(sc, 20 * TU_MS), GROUPCONC_ETIMEDOUT);
    OK(groupconc_scope_join(sc));
    groupconc_result r;
    OK(groupconc_scope_result(sc, 0, &r));
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    assert_int_equal(tu_gstats(ex, "g").gate_permits, 1);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* A task waiting behind a held permit expires at the concurrency layer. */
static void pair_gate_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 10 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(tu_gstats(ex, "g").expired, 1);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* A paused group (or executor) refuses the gate: EPAUSED, the gate listener says so; a permit held
   before the pause is released normally. */
static void pair_gate_pause(void **state) {
    (void)state;
    px_reset();
    for (int i = 0; i < 3; i++) atomic_store(&g_gev[i], 0);
    groupconc_policy p = pol();
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate_config gc = {0, ex, gate_listener, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    OK(groupconc_group_pause(ex, "g"));
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm2), GROUPCONC_EPAUSED);
    assert_int_equal(atomic_load(&g_gev_reason), GROUPCONC_EPAUSED);
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "g", &st));
    assert_int_equal(st.available, 0);
    OK(groupconc_group_resume(ex, "g"));
    OK(groupconc_executor_pause(ex));
    assert_int_equal(groupconc_gate_try_acquire(g, "h", &pm2), GROUPCONC_EPAUSED);
    OK(groupconc_executor_resume(ex));
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(atomic_load(&g_gev[GROUPCONC_GATE_REJECTED]), 2);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* Raising the group's concurrency live admits a second permit; the gate's limit for the group
   follows. */
static void pair_gate_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm2), GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    OK(groupconc_gate_try_acquire(g, "g", &pm2));
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "g", &st));
    assert_int_equal(st.limit, 2);
    assert_int_equal(st.in_flight, 2);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_permit_release(&pm2, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* A group holding a gate permit is not idle: a new key finds the table full (max_groups 1), for a
   submit and for the gate; after the release it is reclaimed. */
static void pair_gate_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "a", &pm));
    assert_int_equal(groupconc_gate_try_acquire(g, "b", &pm2), GROUPCONC_EGROUPS_FULL);
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "x", tu_noop_fn, NULL, &x), GROUPCONC_EGROUPS_FULL);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_gate_try_acquire(g, "b", &pm2));
    OK(groupconc_permit_release(&pm2, GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* A gate permit holds a running permit: with a running cap of 1 another group's try-acquire is
   refused at the running cap and a task waits there until the release. */
static void pair_gate_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "a", &pm));
    assert_int_equal(groupconc_gate_try_acquire(g, "b", &pm2), GROUPCONC_EREJECTED_RUNNING);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.gate_permits, 1);
    assert_int_equal(xs.waiting_running, 1);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* Gate permits do not pass through the fleet layer: no ask, no lease; the group's tasks still do. */
static void pair_gate_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_GRANT);
    p.default_concurrency = 2;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    assert_int_equal(fp_get(&g_fp.asks), 0);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.asks), 1);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(fp_get(&g_fp.releases), 1);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown leaves a held permit alone; evict leaves it with the old state: the new state
   does not see it; its release still succeeds, once. */
static void pair_gate_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    OK(groupconc_group_shutdown(ex, "g"));
    assert_int_equal(tu_gstats(ex, "g").gate_permits, 1);
    OK(groupconc_group_evict(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(tu_gstats(ex, "g").gate_permits, 0);
    assert_int_equal(tu_xstats(ex).gate_permits, 1);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_CANCELLED, 0));
    assert_int_equal(groupconc_permit_release(&pm, GROUPCONC_RELEASE_CANCELLED, 0), GROUPCONC_EPERMIT);
    assert_int_equal(tu_xstats(ex).gate_permits, 0);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}

/* After executor shutdown: try-acquire ESHUTDOWN, destroy refused while the gate exists (EBUSY),
   the held permit is still released normally. */
static void pair_gate_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm, pm2;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    groupconc_gate_stats gs;
    OK(groupconc_gate_try_acquire(g, "h", &pm2)); /* h's state, its permit free again */
    OK(groupconc_permit_release(&pm2, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_gate_stats_get(g, "h", &gs));
    assert_int_equal(gs.available, 1);
    OK(groupconc_executor_shutdown(ex));
    assert_int_equal(groupconc_gate_try_acquire(g, "h", &pm2), GROUPCONC_ESHUTDOWN);
    OK(groupconc_gate_stats_get(g, "h", &gs)); /* what a try-acquire could take: none (helper-69) */
    assert_int_equal(gs.available, 0);
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm2), GROUPCONC_ESHUTDOWN);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_EBUSY);
    assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_EBUSY);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_GATE)
/* The dump shows a held permit: the group's in_flight; with item 7 fixed, running and gate_permits
   as the stats do. */
static void pair_gate_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_gate *g = xgate(ex);
    groupconc_permit pm;
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    assert_int_equal(dump_int(ex, "g", "in_flight"), 1);
    assert_int_equal(dump_int(ex, NULL, "global_running"), 1);
    assert_int_equal(dump_int(ex, "g", "gate_permits"), 1);
    assert_int_equal(dump_int(ex, "g", "running"), (long long)tu_gstats(ex, "g").running);
    assert_int_equal(dump_int(ex, NULL, "gate_permits"), 1);
    assert_int_equal(dump_int(ex, NULL, "running"), (long long)tu_xstats(ex).running);
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    assert_int_equal(dump_int(ex, "g", "in_flight"), 0);
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== scope × ... ================================================================================ */

#ifndef GROUPCONC_NO_SCOPES
static groupconc_scope *sopen(groupconc_executor *ex, groupconc_scope_policy pl) {
    groupconc_scope_config c = {pl, NULL, NULL, "pairs"};
    groupconc_scope *sc = NULL;
    OK(groupconc_scope_open(ex, &c, &sc));
    return sc;
}
static size_t sfork(groupconc_scope *sc, const char *group, const char *id, groupconc_task_fn fn, void *arg,
                    int64_t max_wait) {
    groupconc_task_spec s = spec(group, id, fn, arg, max_wait);
    size_t i = (size_t)-1;
    OK(groupconc_scope_fork(sc, &s, &i));
    return i;
}
static groupconc_result sres(groupconc_scope *sc, size_t i) {
    groupconc_result r;
    OK(groupconc_scope_result(sc, i, &r));
    return r;
}

/* An expired fork is a failure under SHUTDOWN_ON_FAILURE: join EFAILED, scope_first names it, the
   expiry reason is its result's. */
static void pair_scope_deadline(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE);
    size_t i = sfork(sc, "g", "f", tu_noop_fn, NULL, 10 * TU_MS);
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED);
    size_t first;
    OK(groupconc_scope_first(sc, &first));
    assert_int_equal(first, i);
    groupconc_result r = sres(sc, i);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    OK(groupconc_scope_close(sc));
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A fork into a paused group: join_for times out and shuts the scope down: the fork is CANCELLED. */
static void pair_scope_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_COLLECT_ALL);
    size_t i = sfork(sc, "g", "f", tu_noop_fn, NULL, 0);
    assert_int_equal(groupconc_scope_join_for(sc, 20 * TU_MS), GROUPCONC_ETIMEDOUT);
    OK(groupconc_scope_join(sc));
    assert_int_equal(sres(sc, i).status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_true(gs.paused);
    assert_int_equal(gs.cancelled, 1);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    OK(groupconc_executor_destroy(ex));
}

/* Raising the concurrency live starts the second fork while the first is parked. */
static void pair_scope_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_COLLECT_ALL);
    pk a, b;
    pk_init(&a);
    pk_init(&b);
    sfork(sc, "g", "a", tu_park_fn, &a.p, 0);
    pk_started(&a);
    sfork(sc, "g", "b", tu_park_fn, &b.p, 0);
    assert_false(pk_has_started(&b));
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    pk_started(&b);
    pk_go(&a);
    pk_go(&b);
    OK(groupconc_scope_join(sc));
    OK(groupconc_scope_close(sc));
    pk_free(&a);
    pk_free(&b);
    assert_int_equal(tu_gstats(ex, "g").succeeded, 2);
    OK(groupconc_executor_destroy(ex));
}

/* A fork into a new key while the only group is busy (max_groups 1) is refused in submit
   (EGROUPS_FULL) and still counts: a REJECTED fork with that reason, a failure. */
static void pair_scope_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE);
    pk a;
    pk_init(&a);
    sfork(sc, "a", "a", tu_park_fn, &a.p, 0);
    pk_started(&a);
    groupconc_task_spec s = spec("b", "b", tu_noop_fn, NULL, 0);
    size_t i = (size_t)-1;
    assert_int_equal(groupconc_scope_fork(sc, &s, &i), GROUPCONC_EGROUPS_FULL);
    assert_int_equal(i, 1);
    assert_int_equal(groupconc_scope_fork_count(sc), 2);
    groupconc_result r = sres(sc, 1);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EGROUPS_FULL);
    pk_go(&a);
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED);
    OK(groupconc_scope_close(sc));
    pk_free(&a);
    OK(groupconc_executor_destroy(ex));
}

/* A fork waiting at the running cap (behind a plain task holding the running cap of 1) holds its
   group's concurrency permit; scope_shutdown dequeues it (CANCELLED) and gives that permit back. (A
   fork's success cannot cancel a fork waiting for its running permit: the permit is handed on
   before the success is seen.) */
static void pair_scope_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS);
    size_t i1 = sfork(sc, "b", "b", tu_noop_fn, NULL, 0);
    groupconc_group_stats gs = tu_gstats(ex, "b");
    assert_int_equal(gs.waiting_running, 1);
    assert_int_equal(gs.in_flight, 1);
    OK(groupconc_scope_shutdown(sc));
    assert_int_equal(groupconc_scope_join(sc), GROUPCONC_EFAILED);
    assert_int_equal(sres(sc, i1).status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    gs = tu_gstats(ex, "b");
    assert_int_equal(gs.waiting_running, 0);
    assert_int_equal(gs.in_flight, 0);
    pk_finish(&k, t);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A fork at the fleet layer (request outstanding): scope_shutdown cancels it; the later GRANTED
   answer is given back at once. */
static void pair_scope_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_COLLECT_ALL);
    size_t i = sfork(sc, "g", "f", tu_noop_fn, NULL, 0);
    fp_wait_asks(1);
    OK(groupconc_scope_shutdown(sc));
    OK(groupconc_scope_join(sc));
    assert_int_equal(sres(sc, i).status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    fp_answer(GROUPCONC_FLEET_GRANTED);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown cancels a waiting fork and flags the running one (cooperative: CANCELLED);
   COLLECT_ALL join is OK. */
static void pair_scope_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_COLLECT_ALL);
    pk a;
    pk_init(&a);
    a.p.cooperative = true;
    size_t i0 = sfork(sc, "g", "a", tu_park_fn, &a.p, 0);
    pk_started(&a);
    size_t i1 = sfork(sc, "g", "b", tu_noop_fn, NULL, 0);
    OK(groupconc_group_shutdown(ex, "g"));
    OK(groupconc_scope_join(sc));
    assert_int_equal(sres(sc, i0).status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(sres(sc, i1).status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    pk_free(&a);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Executor shutdown with an open scope: the waiting fork is cancelled, a new fork is refused, destroy
   says EBUSY until the scope is closed. */
static void pair_scope_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_COLLECT_ALL);
    pk a;
    pk_init(&a);
    sfork(sc, "g", "a", tu_park_fn, &a.p, 0);
    pk_started(&a);
    size_t i1 = sfork(sc, "g", "b", tu_noop_fn, NULL, 0);
    OK(groupconc_executor_shutdown(ex));
    groupconc_task_spec s = spec("g", "c", tu_noop_fn, NULL, 0);
    int rc = groupconc_scope_fork(sc, &s, NULL);
    assert_true(rc == GROUPCONC_ESHUTDOWN || rc == GROUPCONC_ESCOPE_SHUTDOWN);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_EBUSY);
    pk_go(&a);
    OK(groupconc_scope_join(sc));
    assert_int_equal(sres(sc, i1).status, GROUPCONC_STATUS_CANCELLED);
    OK(groupconc_scope_close(sc));
    pk_free(&a);
    OK(groupconc_executor_destroy(ex));
}
#endif

#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_SCOPES)
/* The dump shows the open scope (name, policy) with its forks: PENDING while it runs, SUCCESS after
   the join. */
static void pair_scope_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *sc = sopen(ex, GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE);
    pk a;
    pk_init(&a);
    sfork(sc, "g", "a", tu_park_fn, &a.p, 0);
    pk_started(&a);
    assert_true(dump_has(ex, "\"name\":\"pairs\""));
    assert_true(dump_has(ex, "\"policy\":\"SHUTDOWN_ON_FAILURE\""));
    assert_true(dump_has(ex, "\"forks\":[{\"index\":0,\"group\":\"g\",\"id\":\"a\",\"status\":\"PENDING\"}]"));
    assert_true(dump_has(ex, "\"id\":\"a\",\"state\":\"running\""));
    pk_go(&a);
    OK(groupconc_scope_join(sc));
    assert_true(dump_has(ex, "\"status\":\"SUCCESS\""));
    assert_true(dump_has(ex, "\"joined\":1"));
    OK(groupconc_scope_close(sc));
    assert_true(dump_has(ex, "\"scopes\":[]"));
    pk_free(&a);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== deadline × ... ============================================================================= */

/* A paused group's waiter expires with the deadline reason naming its layer (concurrency); the group stays
   paused; a group deadline set live applies to tasks submitted afterwards. */
static void pair_deadline_pause(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 10 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_true(gs.paused);
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.waiting_concurrency, 0);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    OK(groupconc_executor_destroy(ex));
}

/* A group deadline set live expires the next waiter; raising the concurrency before a deadline
   hands the permit to the waiter, which then succeeds. */
static void pair_deadline_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.max_wait_ns = 10 * TU_MS;
    OK(groupconc_group_limits_set(ex, &l));
    assert_int_equal(tu_gstats(ex, "g").max_wait_ns, 10 * TU_MS);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    x = sub_w(ex, "g", "y", tu_noop_fn, NULL, 30 * TU_SEC);
    l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    pk_finish(&k, t);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.succeeded, 2);
    OK(groupconc_executor_destroy(ex));
}

/* A group with a waiter (with a deadline) is not idle; once the waiter expired and the runner
   finished, the idle group is reclaimed for a new key. */
static void pair_deadline_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "a"));
    groupconc_task *x = sub_w(ex, "a", "x", tu_noop_fn, NULL, 10 * TU_MS);
    groupconc_task *y = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "y", tu_noop_fn, NULL, &y), GROUPCONC_EGROUPS_FULL);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    OK(groupconc_group_resume(ex, "a"));
    y = sub(ex, "b", "y", tu_noop_fn, NULL);
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups_reclaimed, 1);
    assert_int_equal(xs.expired, 1);
    OK(groupconc_executor_destroy(ex));
}

/* A task waiting at the global running cap expires with EEXPIRED_RUNNING and gives its group's
   permit back. */
static void pair_deadline_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "b", "x", tu_noop_fn, NULL, 10 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_RUNNING);
    groupconc_group_stats gs = tu_gstats(ex, "b");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.in_flight, 0);
    assert_int_equal(gs.waiting_running, 0);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* A task whose fleet request is outstanding expires with EEXPIRED_FLEET; the late GRANTED answer is
   given back at once. */
static void pair_deadline_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 10 * TU_MS);
    fp_wait_asks(1);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_FLEET);
    assert_int_equal(tu_gstats(ex, "g").expired, 1);
    assert_int_equal(tu_gstats(ex, "g").waiting_fleet, 0);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown removes a waiter that has a deadline: CANCELLED, never expired later (one
   COMPLETED event). */
static void pair_deadline_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 15 * TU_MS);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    /* past the deadline: nothing expires (the heap entry went with the task) */
    groupconc_task *y = sub(ex, "h", "y", tu_noop_fn, NULL);
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    tu_sleep_ns(20 * TU_MS); /* lets a wrong expiry happen, if any (not a synchronisation) */
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.cancelled, 1);
    assert_int_equal(gs.expired, 0);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 2);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* Executor shutdown cancels a waiter with a deadline (CANCELLED, not expired); destroy joins the
   housekeeper. */
static void pair_deadline_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 10 * TU_SEC);
    OK(groupconc_executor_shutdown(ex));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, 0);
    assert_int_equal(xs.cancelled, 1);
    pk_go(&k);
    OK(groupconc_executor_destroy(ex));
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    pk_free(&k);
    assert_int_equal(atomic_load(&g_cleanups), 2);
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows the waiter with an age while it waits, and the group's expired count after. */
static void pair_deadline_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub_w(ex, "g", "late", tu_noop_fn, NULL, 200 * TU_MS);
    char *d = dump(ex);
    const char *w = strstr(d, "\"id\":\"late\",\"state\":\"waiting_concurrency\",\"age_ns\":");
    assert_non_null(w);
    free(d);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(dump_int(ex, "g", "expired"), 1);
    assert_int_equal(dump_int(ex, NULL, "expired"), 1);
    assert_int_equal(dump_int(ex, "g", "waiting_concurrency"), 0);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== pause × ... ================================================================================ */

/* Raising the concurrency of a paused group hands nothing out; resume starts both waiters. */
static void pair_pause_live(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    pk a, b;
    groupconc_task *ta = pk_sub(&a, ex, "g", "a");
    groupconc_task *tb = pk_sub(&b, ex, "g", "b");
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.concurrency, 2);
    assert_int_equal(gs.waiting_concurrency, 2);
    assert_int_equal(gs.running, 0);
    OK(groupconc_group_resume(ex, "g"));
    pk_started(&a);
    pk_started(&b);
    pk_finish(&a, ta);
    pk_finish(&b, tb);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group is never reclaimed, even with nothing in it: a new key finds the table full. */
static void pair_pause_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    p.group_idle_ns = TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "a"));
    groupconc_task *x = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "x", tu_noop_fn, NULL, &x), GROUPCONC_EGROUPS_FULL);
    assert_int_equal(groupconc_group_pause(ex, "c"), GROUPCONC_EGROUPS_FULL);
    assert_true(tu_gstats(ex, "a").paused);
    OK(groupconc_group_resume(ex, "a"));
    x = sub(ex, "b", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    /* "a" was reclaimed (else "b" found the table full); "b" may be too, idle for 1 ms on a slow
       machine (CI's Wine run saw 2) */
    uint64_t reclaimed = tu_xstats(ex).groups_reclaimed;
    assert_true(reclaimed >= 1 && reclaimed <= 2);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's waiters take no running permit: another group runs under a running cap of 1;
   under the executor pause nothing passes the concurrency layer at all. */
static void pair_pause_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "a"));
    groupconc_task *a = sub(ex, "a", "a", tu_noop_fn, NULL);
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.paused_groups, 1);
    OK(groupconc_executor_pause(ex));
    OK(groupconc_group_resume(ex, "a"));
    groupconc_task *c = sub(ex, "c", "c", tu_noop_fn, NULL);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_running, 0); /* the executor pause holds them at concurrency */
    assert_int_equal(xs.waiting, 2);
    OK(groupconc_executor_resume(ex));
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(c, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's tasks are never asked at the fleet layer; resume asks. */
static void pair_pause_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_GRANT);
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    assert_int_equal(fp_get(&g_fp.asks), 0);
    OK(groupconc_group_resume(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.asks), 1);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown cancels a paused group's waiters (it stays paused); evict drops the pause: the next
   task runs. */
static void pair_pause_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_true(tu_gstats(ex, "g").paused);
    OK(groupconc_group_evict(ex, "g"));
    assert_int_equal(tu_xstats(ex).paused_groups, 0);
    x = sub(ex, "g", "y", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_false(tu_gstats(ex, "g").paused);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A graceful shutdown does not wait for a paused group's task: once nothing else is left it is
   cancelled (ETIMEDOUT), the other group's task ran. Item 8: a paused task holding the only global
   in-flight permit is cancelled, which lets the other group's task run to SUCCESS. */
static void pair_pause_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "a"));
    groupconc_task *a = sub(ex, "a", "a", tu_noop_fn, NULL);
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_ETIMEDOUT);
    done_rel(a, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
    px_reset();
    p.global_max_in_flight = 1;
    ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "a"));
    a = sub(ex, "a", "a", tu_noop_fn, NULL);
    b = sub(ex, "b", "b", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "b").waiting_global, 1);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_ETIMEDOUT);
    done_rel(a, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows the pause of the group and of the executor (and, item 7, paused_groups). */
static void pair_pause_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_group_pause(ex, "g"));
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(dump_int(ex, "g", "paused"), 1);
    assert_int_equal(dump_int(ex, "g", "waiting_concurrency"), 1);
    assert_int_equal(dump_int(ex, NULL, "paused"), 0);
    OK(groupconc_executor_pause(ex));
    assert_int_equal(dump_int(ex, NULL, "paused"), 1);
    assert_int_equal(dump_int(ex, NULL, "paused_groups"), 1);
    OK(groupconc_executor_resume(ex));
    OK(groupconc_group_resume(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(dump_int(ex, "g", "paused"), 0);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== live × ... ================================================================================= */

/* Limits set for a key outlive its reclaimed state: the next state of the key has them. */
static void pair_live_bounded(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "a", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_limits l = groupconc_group_limits_keep("a");
    l.concurrency = 3;
    l.max_in_flight = 5;
    OK(groupconc_group_limits_set(ex, &l));
    x = sub(ex, "b", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs;
    /* "a" was reclaimed, its limits kept: the stats read them back with every count 0 */
    OK(groupconc_group_stats_get(ex, "a", &gs));
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.max_in_flight, 5);
    assert_int_equal(gs.submitted, 0);
    x = sub(ex, "a", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    gs = tu_gstats(ex, "a");
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.max_in_flight, 5);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 2);
    OK(groupconc_executor_destroy(ex));
}

/* Raising the global running cap hands the permit to the oldest waiter across groups (b before c). */
static void pair_live_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk a, b, c;
    groupconc_task *ta = pk_sub(&a, ex, "a", "a");
    pk_started(&a);
    groupconc_task *tb = pk_sub(&b, ex, "b", "b");
    groupconc_task *tc = pk_sub(&c, ex, "c", "c");
    assert_int_equal(tu_xstats(ex).waiting_running, 2);
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_running = 2;
    OK(groupconc_executor_limits_set(ex, &l));
    pk_started(&b);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 2);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(xs.global_max_running, 2);
    assert_false(pk_has_started(&c));
    pk_finish(&a, ta);
    pk_started(&c);
    pk_finish(&b, tb);
    pk_finish(&c, tc);
    OK(groupconc_executor_destroy(ex));
}

/* Raising the concurrency lets the waiter past the concurrency layer: it is asked at the fleet
   layer then. */
static void pair_live_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    groupconc_task *y = sub(ex, "g", "y", tu_noop_fn, NULL);
    fp_wait_asks(1);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.waiting_fleet, 1);
    assert_int_equal(gs.waiting_concurrency, 1);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    fp_wait_asks(2);
    assert_int_equal(tu_gstats(ex, "g").waiting_fleet, 2);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.releases), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Evict keeps the limits set live (they are in the executor's table): the new state has them. */
static void pair_live_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 3;
    OK(groupconc_group_limits_set(ex, &l));
    OK(groupconc_group_shutdown(ex, "g"));
    assert_int_equal(tu_gstats(ex, "g").concurrency, 3);
    OK(groupconc_group_evict(ex, "g"));
    x = sub(ex, "g", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.submitted, 1);
    OK(groupconc_executor_destroy(ex));
}

/* After shutdown the global limits cannot change (ESHUTDOWN, nothing changed). */
static void pair_live_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    OK(groupconc_executor_shutdown(ex));
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    l.global_max_running = 2;
    assert_int_equal(groupconc_executor_limits_set(ex, &l), GROUPCONC_ESHUTDOWN);
    assert_int_equal(tu_xstats(ex).global_max_running, GROUPCONC_UNLIMITED);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows limits changed live. */
static void pair_live_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", NULL, tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 4;
    l.queue_threshold = 7;
    OK(groupconc_group_limits_set(ex, &l));
    groupconc_executor_limits el = groupconc_executor_limits_keep();
    el.global_max_running = 3;
    el.global_max_in_flight = 9;
    OK(groupconc_executor_limits_set(ex, &el));
    assert_int_equal(dump_int(ex, "g", "concurrency"), 4);
    assert_int_equal(dump_int(ex, "g", "queue_threshold"), 7);
    assert_int_equal(dump_int(ex, NULL, "global_max_running"), 3);
    assert_int_equal(dump_int(ex, NULL, "global_max_in_flight"), 9);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== bounded × ... ============================================================================== */

/* A group whose task waits for a running permit is not idle: max_groups 2 full. */
static void pair_bounded_runcap(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 2;
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    assert_int_equal(tu_gstats(ex, "b").waiting_running, 1);
    groupconc_task *c = NULL;
    assert_int_equal(groupconc_submit(ex, "c", "c", tu_noop_fn, NULL, &c), GROUPCONC_EGROUPS_FULL);
    pk_finish(&k, t);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    c = sub(ex, "c", "c", tu_noop_fn, NULL);
    done_rel(c, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 1);
    OK(groupconc_executor_destroy(ex));
}

/* A group whose task is at the fleet layer is not idle. */
static void pair_bounded_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    p.max_groups = 1;
    p.group_idle_ns = TU_MS;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *a = sub(ex, "a", "a", tu_noop_fn, NULL);
    fp_wait_asks(1);
    groupconc_task *b = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "b", tu_noop_fn, NULL, &b), GROUPCONC_EGROUPS_FULL);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    g_fp.mode = FP_GRANT;
    b = sub(ex, "b", "b", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.releases), 2);
    OK(groupconc_executor_destroy(ex));
}

/* Evict frees a busy group's slot at once: the new key gets it; the old task finishes and counts in
   the executor's totals only. */
static void pair_bounded_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    OK(groupconc_group_evict(ex, "a"));
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    pk_finish(&k, t);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 1);
    assert_int_equal(xs.succeeded, 2);
    groupconc_group_stats gs;
    assert_int_equal(groupconc_group_stats_get(ex, "a", &gs), GROUPCONC_ENOTFOUND);
    OK(groupconc_executor_destroy(ex));
}

/* After shutdown a new key gets ESHUTDOWN (not EGROUPS_FULL) and the known groups are still listed. */
static void pair_bounded_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    p.group_idle_ns = 10 * TU_SEC;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *a = sub(ex, "a", "a", tu_noop_fn, NULL);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_shutdown(ex));
    groupconc_task *b = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "b", tu_noop_fn, NULL, &b), GROUPCONC_ESHUTDOWN);
    char **keys;
    size_t n;
    OK(groupconc_group_keys_get(ex, &keys, &n));
    assert_int_equal(n, 1);
    assert_string_equal(keys[0], "a");
    groupconc_group_keys_free(keys);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 0);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows max_groups and the reclaim count; the reclaimed key is gone from it. */
static void pair_bounded_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *a = sub(ex, "a", "a", tu_noop_fn, NULL);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    a = sub(ex, "b", "b", tu_noop_fn, NULL);
    done_rel(a, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(dump_int(ex, NULL, "max_groups"), 1);
    assert_int_equal(dump_int(ex, NULL, "groups_reclaimed"), 1);
    assert_int_equal(dump_int(ex, "a", "submitted"), -999);
    assert_int_equal(dump_int(ex, "b", "submitted"), 1);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== runcap × ... =============================================================================== */

/* Tasks at the fleet layer hold no running permit; a granted task waits for one holding its lease
   while the cap is full, and runs when it frees. */
static void pair_runcap_fleet(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk a;
    pk_init(&a);
    groupconc_task *ta = sub(ex, "a", "a", tu_park_fn, &a.p);
    groupconc_task *b = sub(ex, "b", "b", tu_noop_fn, NULL);
    fp_wait_asks(2);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting_fleet, 2);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    pk_started(&a);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(fp_get(&g_fp.out), 2);
    pk_finish(&a, ta);
    done_rel(b, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(fp_get(&g_fp.out), 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown cancels a task waiting for a running permit. */
static void pair_runcap_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "b"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.global_running, 1);
    assert_false(atomic_load(&k.p.saw_cancel));
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* Executor shutdown cancels the running cap's waiter; the runner keeps its permit until it returns. */
static void pair_runcap_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    OK(groupconc_executor_shutdown(ex));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 0);
    assert_int_equal(xs.global_running, 1);
    pk_go(&k);
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    pk_free(&k);
    assert_int_equal(tu_xstats(ex).global_running, 0);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows the running cap's waiter and the cap's use. */
static void pair_runcap_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "a", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    assert_true(dump_has(ex, "\"id\":\"x\",\"state\":\"waiting_running\""));
    assert_int_equal(dump_int(ex, NULL, "global_running"), 1);
    assert_int_equal(dump_int(ex, NULL, "global_max_running"), 1);
    assert_int_equal(dump_int(ex, NULL, "waiting_running"), 1);
    assert_int_equal(dump_int(ex, "b", "waiting_running"), 1);
    pk_finish(&k, t);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== fleet × ... ================================================================================ */

/* group_shutdown cancels a task whose request is outstanding; a late BUSY answer changes nothing. */
static void pair_fleet_groupshut(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    fp_wait_asks(1);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    fp_answer(GROUPCONC_FLEET_BUSY);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.waiting_fleet, 0);
    assert_int_equal(gs.cancelled, 1);
    assert_int_equal(fp_get(&g_fp.releases), 0);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    OK(groupconc_executor_destroy(ex));
}

/* Executor shutdown cancels a task at the fleet layer; the answer that comes after is accepted
   (GRANTED: given back at once); destroy then returns. */
static void pair_fleet_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    fp_wait_asks(1);
    OK(groupconc_executor_shutdown(ex));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    OK(groupconc_executor_destroy(ex));
    assert_int_equal(fp_get(&g_fp.out), 0);
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows a task at the fleet layer, and the gauges. */
static void pair_fleet_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_HOLD);
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *x = sub(ex, "g", "fx", tu_noop_fn, NULL);
    fp_wait_asks(1);
    assert_true(dump_has(ex, "\"id\":\"fx\",\"state\":\"waiting_fleet\""));
    assert_int_equal(dump_int(ex, "g", "waiting_fleet"), 1);
    assert_int_equal(dump_int(ex, NULL, "waiting_fleet"), 1);
    fp_answer(GROUPCONC_FLEET_GRANTED);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(dump_int(ex, "g", "waiting_fleet"), 0);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* ==== groupshut × shutdown, dump; shutdown × dump ================================================ */

/* A group shut down first, then a graceful shutdown: nothing is left, so it reports OK; group calls
   after the shutdown are harmless. */
static void pair_groupshut_shutdown(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    k.p.cooperative = true;
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(t, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_free(&k);
    OK(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER));
    OK(groupconc_group_shutdown(ex, "g"));
    OK(groupconc_group_evict(ex, "g"));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.cancelled, 2);
    assert_int_equal(xs.submitted, xs.completed);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* After evict the key's group is gone from the dump, while its still-running task is listed under
   its key; after group_shutdown the group's counters show the cancel. */
static void pair_groupshut_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "g"));
    assert_int_equal(dump_int(ex, "g", "cancelled"), 1);
    assert_int_equal(dump_int(ex, "g", "waiting_concurrency"), 0);
    OK(groupconc_group_evict(ex, "g"));
    assert_int_equal(dump_int(ex, "g", "submitted"), -999);
    assert_true(dump_has(ex, "\"group\":\"g\",\"id\":\"held\",\"state\":\"running\""));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}

/* After executor shutdown the dump says so, lists the still-running task and no waiter. */
static void pair_shutdown_dump(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = tu_executor(&p);
    pk k;
    groupconc_task *t = pk_sub(&k, ex, "g", "held");
    pk_started(&k);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(dump_int(ex, NULL, "shutdown"), 0);
    OK(groupconc_executor_shutdown(ex));
    assert_int_equal(dump_int(ex, NULL, "shutdown"), 1);
    assert_int_equal(dump_int(ex, NULL, "waiting"), 0);
    assert_int_equal(dump_int(ex, NULL, "cancelled"), 1);
    assert_true(dump_has(ex, "\"id\":\"held\",\"state\":\"running\""));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    pk_finish(&k, t);
    OK(groupconc_executor_destroy(ex));
}
#endif
/* ==== ... × blocking ============================================================================ */
/* groupconc_context_blocking: a task body says it is about to block; the pool may start one more
   worker at once, up to max_threads, until the body returns (ex->pool.nhinted). The executors here
   are sized as on one CPU (hx_executor: pool.size 1, as the library reads it at create, white-box,
   before the first submit), so that a second worker exists only through a hint (or a wait of the
   library, which counts in ex->pool.nblocked): the thread counts asserted below are exact. No task
   waits ready for a worker while a count is read, so the housekeeper's watch starts nothing. */

static groupconc_executor *hx_executor(const groupconc_policy *p) {
    groupconc_executor *ex = tu_executor(p);
    atomic_store_explicit(&ex->pool.size, (size_t)1, memory_order_relaxed);
    return ex;
}
static inline size_t hx_hinted(groupconc_executor *ex) {
    return atomic_load_explicit(&ex->pool.nhinted, memory_order_relaxed);
}
static inline size_t hx_blocked(groupconc_executor *ex) {
    return atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed);
}
static inline size_t hx_threads(groupconc_executor *ex) { return tu_xstats(ex).threads; }

/* A parked task that says it blocks, twice (the second call changes nothing), before it parks:
   both codes are visible once it started. */
typedef struct hk {
    pk k;
    atomic_int rc, rc2; /* 1 until the body set them */
} hk;
static inline int hint_park_fn(groupconc_context *ctx, void **out, void *arg) {
    hk *h = (hk *)arg;
    atomic_store(&h->rc, groupconc_context_blocking(ctx));
    atomic_store(&h->rc2, groupconc_context_blocking(ctx));
    return tu_park_fn(ctx, out, &h->k.p);
}
static groupconc_task *hk_sub(hk *h, groupconc_executor *ex, const char *group, const char *id) {
    pk_init(&h->k);
    atomic_init(&h->rc, 1);
    atomic_init(&h->rc2, 1);
    return sub(ex, group, id, hint_park_fn, h);
}
static inline void hk_started(hk *h) {
    pk_started(&h->k);
    assert_int_equal(atomic_load(&h->rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->rc2), GROUPCONC_OK);
}
static inline void hk_finish(hk *h, groupconc_task *t) { pk_finish(&h->k, t); }

/* A body that says it blocks and records the code in *(atomic_int *)arg; its value is arg. */
static inline int hint_rec_fn(groupconc_context *ctx, void **out, void *arg) {
    atomic_store((atomic_int *)arg, groupconc_context_blocking(ctx));
    *out = arg;
    return 0;
}

/* A hinted task that waits for a child of its own (task_wait inside a task: nblocked too). */
typedef struct hwait {
    groupconc_executor *ex;
    atomic_int hint_rc, wait_rc, child_status;
    atomic_long child_threads; /* worker threads the child saw (white-box: pool.nthreads) */
} hwait;
static inline int hwait_child_fn(groupconc_context *ctx, void **out, void *arg) {
    hwait *w = (hwait *)arg;
    (void)ctx;
    (void)out;
    atomic_store(&w->child_threads, (long)atomic_load(&w->ex->pool.nthreads));
    return 0;
}
static inline int hwait_fn(groupconc_context *ctx, void **out, void *arg) {
    hwait *w = (hwait *)arg;
    (void)out;
    atomic_store(&w->hint_rc, groupconc_context_blocking(ctx));
    groupconc_task *c = NULL;
    if (groupconc_submit(groupconc_context_executor(ctx), "c", "child", hwait_child_fn, w, &c) != GROUPCONC_OK)
        return -1;
    groupconc_result r;
    atomic_store(&w->wait_rc, groupconc_task_wait(c, &r));
    atomic_store(&w->child_status, (int)r.status);
    (void)groupconc_task_release(c);
    return 0;
}

/* A hinted task meets its handle: both calls OK, one unit of room (nhinted 1), a task of another
   group gets the hint's worker at once (threads 2); a cancel flags it (FLAGGED), it returns
   CANCELLED, its callback and cleanup run once, nhinted is back to 0 when the wait returns. Then a
   hinted task that waits for a child of its own (task_wait inside a task): the hint and the wait
   count once each (nhinted 1, nblocked 1), the threads stay within max_threads + 1, and both
   counts are 0 once it returned. */
static void pair_tasks_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_threads = 2;
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "a", "a");
    a.k.p.cooperative = true;
    hk_started(&a);
    assert_int_equal(hx_hinted(ex), 1);
    assert_int_equal(hx_threads(ex), 1);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(hx_threads(ex), 2); /* started for x while "a" runs: the hint's room */
    OK(groupconc_task_on_complete(ta, oc_fn, NULL));
    groupconc_cancel_outcome o;
    OK(groupconc_task_cancel(ta, &o));
    assert_int_equal(o, GROUPCONC_CANCEL_FLAGGED);
    done_rel(ta, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_true(atomic_load(&a.k.p.saw_cancel));
    pk_free(&a.k);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(atomic_load(&g_oc), 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);

    hwait w;
    w.ex = ex;
    atomic_init(&w.hint_rc, 1);
    atomic_init(&w.wait_rc, 1);
    atomic_init(&w.child_status, -1);
    atomic_init(&w.child_threads, 0);
    groupconc_task *tw = sub(ex, "w", "waiter", hwait_fn, &w);
    done_rel(tw, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&w.hint_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&w.wait_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&w.child_status), GROUPCONC_STATUS_SUCCESS);
    long seen = atomic_load(&w.child_threads);
    assert_true(seen >= 2 && seen <= p.max_threads + 1); /* max_threads + nblocked, never more */
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(hx_blocked(ex), 0);
    assert_true(hx_threads(ex) <= (size_t)p.max_threads + 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.succeeded, 3);
    assert_int_equal(xs.cancelled, 1);
    assert_int_equal(xs.running, 0);
    OK(groupconc_executor_destroy(ex));
}

/* execute_all's elements say they block: each call OK, their group's concurrency (1) still holds
   (peak 1) though each hint makes room for a worker; every value and cleanup exact, nhinted 0. */
static inline int hint_peak_fn(groupconc_context *ctx, void **out, void *arg) {
    tu_peak_enter(&g_peak);
    atomic_store((atomic_int *)arg, groupconc_context_blocking(ctx));
    *out = arg;
    tu_peak_leave(&g_peak);
    return 0;
}
static void pair_execall_blocking(void **state) {
    (void)state;
    px_reset();
    tu_peak_init(&g_peak);
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    atomic_int rc[3];
    groupconc_task_spec s[3];
    char id[3][8];
    for (int i = 0; i < 3; i++) {
        atomic_init(&rc[i], 1);
        snprintf(id[i], sizeof id[i], "e%d", i);
        s[i] = spec("g", id[i], hint_peak_fn, &rc[i], 0);
    }
    groupconc_result r[3];
    OK(groupconc_execute_all(ex, s, 3, GROUPCONC_FOREVER, r));
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r[i].status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(r[i].value, (void *)&rc[i]);
        assert_int_equal(atomic_load(&rc[i]), GROUPCONC_OK);
    }
    assert_int_equal(tu_peak_max(&g_peak), 1);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(tu_gstats(ex, "g").succeeded, 3);
    OK(groupconc_executor_destroy(ex));
}

/* CALLER_RUNS: a task refused in submit runs inside that submit, holding no permits, in no list of
   the executor: its call returns ESTATE and raises nothing (nhinted stays the held task's 1),
   whether the submit came from the test's thread or from a task body on a worker (its submitter
   blocks whatever the pool does). A rejection handler decides without running the body, so it
   never meets the call. */
typedef struct hnest {
    atomic_int inner_rc, submit_rc;
} hnest;
static inline int hnest_fn(groupconc_context *ctx, void **out, void *arg) {
    hnest *n = (hnest *)arg;
    (void)out;
    atomic_store(&n->submit_rc,
                 groupconc_submit(groupconc_context_executor(ctx), "g", "inner", hint_rec_fn, &n->inner_rc, NULL));
    return 0;
}
static void pair_reject_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.default_queue_threshold = 0;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "held");
    hk_started(&a);
    atomic_int rc;
    atomic_init(&rc, 1);
    groupconc_task *x = sub(ex, "g", "x", hint_rec_fn, &rc);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&rc), GROUPCONC_ESTATE);
    assert_int_equal(hx_hinted(ex), 1); /* "held"'s only */
    hnest n;
    atomic_init(&n.inner_rc, 1);
    atomic_init(&n.submit_rc, 1);
    groupconc_task *o = sub(ex, "o", "outer", hnest_fn, &n);
    done_rel(o, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&n.submit_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&n.inner_rc), GROUPCONC_ESTATE);
    assert_int_equal(hx_hinted(ex), 1);
    hk_finish(&a, ta);
    assert_int_equal(hx_hinted(ex), 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.caller_runs, 2);
    assert_int_equal(gs.succeeded, 3);
    assert_int_equal(atomic_load(&g_handler), 0);
    OK(groupconc_executor_destroy(ex));
}

/* A hinted task's events: SUBMITTED, STARTED, COMPLETED once each (the call emits none); its
   completion callback once. */
static void pair_listener_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    OK(groupconc_task_on_complete(ta, oc_fn, NULL));
    hk_started(&a);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 0);
    hk_finish(&a, ta);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_SUBMITTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_STARTED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_COMPLETED]), 1);
    assert_int_equal(atomic_load(&g_ev[GROUPCONC_EVENT_REJECTED]), 0);
    assert_int_equal(atomic_load(&g_oc), 1);
    assert_int_equal(atomic_load(&g_cleanups), 1);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_executor_destroy(ex));
}

/* The resolver's concurrency (3) holds for hinted tasks: 3 run, each with its unit of room
   (nhinted 3), the 4th waits at the concurrency layer; the resolver ran once. */
static void pair_resolver_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.resolver = resolver;
    groupconc_executor *ex = hx_executor(&p);
    hk h[4];
    groupconc_task *t[4];
    for (int i = 0; i < 4; i++) t[i] = hk_sub(&h[i], ex, "r1", NULL);
    for (int i = 0; i < 3; i++) hk_started(&h[i]);
    groupconc_group_stats gs = tu_gstats(ex, "r1");
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.running, 3);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(hx_hinted(ex), 3);
    assert_false(pk_has_started(&h[3].k));
    for (int i = 0; i < 3; i++) hk_finish(&h[i], t[i]);
    hk_started(&h[3]);
    hk_finish(&h[3], t[3]);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(atomic_load(&g_resolver), 1);
    assert_int_equal(tu_gstats(ex, "r1").succeeded, 4);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* A body that says it blocks, then defers: the room lasts until the body returns (nhinted 0 while
   the task is still running, deferred); the deferred completion then decides the result. */
typedef struct hdfr {
    dfr f;
    atomic_int rc;
} hdfr;
static inline int hint_defer_fn(groupconc_context *ctx, void **out, void *arg) {
    hdfr *h = (hdfr *)arg;
    atomic_store(&h->rc, groupconc_context_blocking(ctx));
    return defer_fn(ctx, out, &h->f);
}
static void pair_deferred_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hdfr h;
    dfr_init(&h.f);
    atomic_init(&h.rc, 1);
    groupconc_task *t = sub(ex, "g", "d", hint_defer_fn, &h);
    dfr_wait(&h.f);
    assert_int_equal(atomic_load(&h.rc), GROUPCONC_OK);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(tu_gstats(ex, "g").running, 1);
    OK(groupconc_deferred_complete(h.f.d, 0, (void *)&h));
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_ptr_equal(r.value, (void *)&h);
    OK(groupconc_task_release(t));
    assert_int_equal(atomic_load(&g_cleanups), 1);
    tu_latch_destroy(&h.f.deferred);
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_GATE
/* An executor gate and a hinted task share the group's budget: the hint makes room for a worker,
   not for a permit (try_acquire is refused at the concurrency layer while the task runs); a
   permit of another group counts as running beside it; once the task returned the permit is
   admitted. A permit holder is no task body: it has no context to say it blocks. */
static void pair_gate_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    groupconc_gate_config gc = {0, ex, NULL, NULL};
    groupconc_gate *g;
    OK(groupconc_gate_create(&gc, &g));
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    hk_started(&a);
    groupconc_permit pm, ph;
    assert_int_equal(groupconc_gate_try_acquire(g, "g", &pm), GROUPCONC_EREJECTED_CONCURRENCY);
    OK(groupconc_gate_try_acquire(g, "h", &ph));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.running, 2);
    assert_int_equal(xs.gate_permits, 1);
    assert_int_equal(xs.threads, 1);
    assert_int_equal(hx_hinted(ex), 1);
    hk_finish(&a, ta);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_gate_try_acquire(g, "g", &pm));
    OK(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0));
    OK(groupconc_permit_release(&ph, GROUPCONC_RELEASE_SUCCESS, 0));
    groupconc_gate_stats st;
    OK(groupconc_gate_stats_get(g, "g", &st));
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(st.released_success, 2); /* the gate's totals: "g" and "h" */
    OK(groupconc_gate_destroy(g));
    OK(groupconc_executor_destroy(ex));
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* A hinted task opens a scope, forks two children that say they block, and joins (a wait inside a
   task: nblocked beside its nhinted): every code OK, the forks' results exact, and nhinted and
   nblocked back to 0 once it returned, the threads within max_threads + 1. */
typedef struct hscope {
    atomic_int hint_rc, join_rc, child_rc[2], results_ok;
} hscope;
static inline int hscope_fn(groupconc_context *ctx, void **out, void *arg) {
    hscope *h = (hscope *)arg;
    (void)out;
    atomic_store(&h->hint_rc, groupconc_context_blocking(ctx));
    groupconc_scope *sc;
    if (groupconc_scope_open(groupconc_context_executor(ctx), NULL, &sc) != GROUPCONC_OK) return -1;
    for (int i = 0; i < 2; i++) {
        groupconc_task_spec s = spec(i ? "s1" : "s0", NULL, hint_rec_fn, &h->child_rc[i], 0);
        if (groupconc_scope_fork(sc, &s, NULL) != GROUPCONC_OK) return -2;
    }
    atomic_store(&h->join_rc, groupconc_scope_join(sc));
    int ok = 0;
    for (size_t i = 0; i < 2; i++) {
        groupconc_result r;
        if (groupconc_scope_result(sc, i, &r) == GROUPCONC_OK && r.status == GROUPCONC_STATUS_SUCCESS &&
            r.value == (void *)&h->child_rc[i])
            ok++;
    }
    atomic_store(&h->results_ok, ok);
    return groupconc_scope_close(sc) == GROUPCONC_OK ? 0 : -3;
}
static void pair_scope_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_threads = 3;
    groupconc_executor *ex = hx_executor(&p);
    hscope h;
    atomic_init(&h.hint_rc, 1);
    atomic_init(&h.join_rc, 1);
    atomic_init(&h.child_rc[0], 1);
    atomic_init(&h.child_rc[1], 1);
    atomic_init(&h.results_ok, 0);
    groupconc_task *t = sub(ex, "o", "outer", hscope_fn, &h);
    done_rel(t, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(atomic_load(&h.hint_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h.join_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h.child_rc[0]), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h.child_rc[1]), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h.results_ok), 2);
    assert_int_equal(atomic_load(&g_cleanups), 3);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(hx_blocked(ex), 0);
    assert_true(hx_threads(ex) <= (size_t)p.max_threads + 1);
    assert_int_equal(tu_xstats(ex).succeeded, 3);
    OK(groupconc_executor_destroy(ex));
}
#endif

/* A queue deadline still expires behind a hinted task of its group: the hint makes room for a
   worker, not for a permit, and starts none for a task that waits for a permit (threads 1). */
static void pair_deadline_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "held");
    hk_started(&a);
    groupconc_task *x = sub_w(ex, "g", "x", tu_noop_fn, NULL, 20 * TU_MS);
    done_rel(x, GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(hx_threads(ex), 1);
    assert_int_equal(hx_hinted(ex), 1);
    hk_finish(&a, ta);
    assert_int_equal(hx_hinted(ex), 0);
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.succeeded, 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A paused group's task waits though a hint made room (no worker starts for it: threads 1); on
   resume it runs on the worker the hint allows while the hinted task still runs (threads 2). */
static void pair_pause_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "a", "a");
    hk_started(&a);
    OK(groupconc_group_pause(ex, "b"));
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    groupconc_group_stats gs = tu_gstats(ex, "b");
    assert_true(gs.paused);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(hx_threads(ex), 1);
    OK(groupconc_group_resume(ex, "b"));
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(hx_threads(ex), 2);
    assert_int_equal(hx_hinted(ex), 1);
    hk_finish(&a, ta);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_executor_destroy(ex));
}

/* Live limits over hinted tasks: raising the group's concurrency to 2 starts its waiting hinted
   task at once on the hint's worker (running 2, nhinted 2, threads 2); lowering it back to 1 lets
   both run on, and a third task waits until the running count is under the new cap. */
static void pair_live_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a, b;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    hk_started(&a);
    groupconc_task *tb = hk_sub(&b, ex, "g", "b");
    assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 1);
    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.concurrency = 2;
    OK(groupconc_group_limits_set(ex, &l));
    hk_started(&b);
    assert_int_equal(tu_gstats(ex, "g").running, 2);
    assert_int_equal(hx_hinted(ex), 2);
    assert_int_equal(hx_threads(ex), 2);
    l.concurrency = 1;
    OK(groupconc_group_limits_set(ex, &l));
    hk c;
    groupconc_task *tc = hk_sub(&c, ex, "g", "c");
    groupconc_group_stats gs = tu_gstats(ex, "g");
    assert_int_equal(gs.running, 2);
    assert_int_equal(gs.waiting_concurrency, 1);
    hk_finish(&a, ta);
    gs = tu_gstats(ex, "g");
    assert_int_equal(gs.running, 1);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_false(pk_has_started(&c.k));
    hk_finish(&b, tb);
    hk_started(&c);
    assert_int_equal(tu_gstats(ex, "g").running, 1);
    hk_finish(&c, tc);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_executor_destroy(ex));
}

/* max_groups 1: a group whose task said it blocks is busy, not reclaimed (a new key is refused in
   submit, EGROUPS_FULL); once the task returned, the new key reclaims it. */
static void pair_bounded_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.max_groups = 1;
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "a", "a");
    hk_started(&a);
    groupconc_task *y = NULL;
    assert_int_equal(groupconc_submit(ex, "b", "y", tu_noop_fn, NULL, &y), GROUPCONC_EGROUPS_FULL);
    assert_null(y);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 0);
    hk_finish(&a, ta);
    assert_int_equal(hx_hinted(ex), 0);
    y = sub(ex, "b", "y", tu_noop_fn, NULL);
    done_rel(y, GROUPCONC_STATUS_SUCCESS, 0);
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 1);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* The global running cap (1) holds beside a hinted task: a task of another group waits at the
   global running cap and no worker starts for it (threads 1); it runs once the hinted one
   returned. */
static void pair_runcap_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    p.global_max_running = 1;
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "a", "a");
    hk_started(&a);
    groupconc_task *x = sub(ex, "b", "x", tu_noop_fn, NULL);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 1);
    assert_int_equal(xs.global_running, 1);
    assert_int_equal(xs.threads, 1);
    hk_finish(&a, ta);
    done_rel(x, GROUPCONC_STATUS_SUCCESS, 0);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.succeeded, 2);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_executor_destroy(ex));
}

/* A hinted task holds its fleet lease while it blocks; it is given back once, when it completes. */
static void pair_fleet_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = fpol(FP_GRANT);
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    hk_started(&a);
    assert_int_equal(fp_get(&g_fp.grants), 1);
    assert_int_equal(fp_get(&g_fp.out), 1);
    assert_int_equal(hx_hinted(ex), 1);
    hk_finish(&a, ta);
    assert_int_equal(fp_get(&g_fp.releases), 1);
    assert_int_equal(fp_get(&g_fp.out), 0);
    assert_int_equal(hx_hinted(ex), 0);
    OK(groupconc_executor_destroy(ex));
}

/* group_shutdown: the waiting task completes CANCELLED at once, the hinted running one is flagged and
   returns CANCELLED; nhinted is back to 0. */
static void pair_groupshut_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    a.k.p.cooperative = true;
    hk_started(&a);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    OK(groupconc_group_shutdown(ex, "g"));
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    done_rel(ta, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_true(atomic_load(&a.k.p.saw_cancel));
    pk_free(&a.k);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(tu_gstats(ex, "g").cancelled, 2);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

/* A graceful shutdown runs out while a hinted task runs: ETIMEDOUT, the queued task CANCELLED, the
   hinted one flagged and still holding its room (nhinted 1); once it returns nhinted is 0 and
   destroy succeeds. */
static void pair_shutdown_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a;
    groupconc_task *ta = hk_sub(&a, ex, "g", "a");
    hk_started(&a);
    groupconc_task *x = sub(ex, "g", "x", tu_noop_fn, NULL);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, 20 * TU_MS), GROUPCONC_ETIMEDOUT);
    done_rel(x, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED);
    assert_int_equal(hx_hinted(ex), 1);
    pk_go(&a.k);
    done_rel(ta, GROUPCONC_STATUS_SUCCESS, 0);
    assert_true(atomic_load(&a.k.p.saw_cancel));
    pk_free(&a.k);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(atomic_load(&g_cleanups), 2);
    OK(groupconc_executor_destroy(ex));
}

#ifndef GROUPCONC_NO_DUMP
/* The dump lists a hinted task as running, and its "threads" shows the worker the hint allowed:
   1 with the hinted task alone, 2 once a task of another group runs beside it. */
static void pair_dump_blocking(void **state) {
    (void)state;
    px_reset();
    groupconc_policy p = pol();
    groupconc_executor *ex = hx_executor(&p);
    hk a, b;
    groupconc_task *ta = hk_sub(&a, ex, "a", "ha");
    hk_started(&a);
    assert_true(dump_has(ex, "\"id\":\"ha\",\"state\":\"running\""));
    assert_int_equal(dump_int(ex, NULL, "threads"), 1);
    groupconc_task *tb = hk_sub(&b, ex, "b", "hb");
    hk_started(&b);
    assert_true(dump_has(ex, "\"id\":\"hb\",\"state\":\"running\""));
    assert_int_equal(dump_int(ex, NULL, "threads"), 2);
    assert_int_equal(dump_int(ex, NULL, "running"), 2);
    hk_finish(&a, ta);
    hk_finish(&b, tb);
    assert_int_equal(hx_hinted(ex), 0);
    assert_int_equal(dump_int(ex, NULL, "running"), 0);
    OK(groupconc_executor_destroy(ex));
}
#endif
/* ==== main ===================================================================================== */

int main(void) {
    const struct CMUnitTest all[] = {
        cmocka_unit_test(pair_tasks_execall),
        cmocka_unit_test(pair_tasks_reject),
        cmocka_unit_test(pair_tasks_listener),
        cmocka_unit_test(pair_tasks_resolver),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_tasks_deferred),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_tasks_gate),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_tasks_scope),
#endif
        cmocka_unit_test(pair_tasks_deadline),
        cmocka_unit_test(pair_tasks_pause),
        cmocka_unit_test(pair_tasks_live),
        cmocka_unit_test(pair_tasks_bounded),
        cmocka_unit_test(pair_tasks_runcap),
        cmocka_unit_test(pair_tasks_fleet),
        cmocka_unit_test(pair_tasks_groupshut),
        cmocka_unit_test(pair_tasks_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_tasks_dump),
#endif
        cmocka_unit_test(pair_execall_reject),
        cmocka_unit_test(pair_execall_reject_cleanup_first),
        cmocka_unit_test(pair_execall_listener),
        cmocka_unit_test(pair_execall_resolver),
        cmocka_unit_test(pair_execall_deferred),
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_execall_gate),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_execall_scope),
#endif
        cmocka_unit_test(pair_execall_deadline),
        cmocka_unit_test(pair_execall_pause),
        cmocka_unit_test(pair_execall_live),
        cmocka_unit_test(pair_execall_bounded),
        cmocka_unit_test(pair_execall_runcap),
        cmocka_unit_test(pair_execall_fleet),
        cmocka_unit_test(pair_execall_groupshut),
        cmocka_unit_test(pair_execall_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_execall_dump),
#endif
        cmocka_unit_test(pair_reject_listener),
        cmocka_unit_test(pair_reject_resolver),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_reject_deferred),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_reject_gate),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_reject_scope),
#endif
        cmocka_unit_test(pair_reject_deadline),
        cmocka_unit_test(pair_reject_pause),
        cmocka_unit_test(pair_reject_live),
        cmocka_unit_test(pair_reject_bounded),
        cmocka_unit_test(pair_reject_runcap),
        cmocka_unit_test(pair_reject_fleet),
        cmocka_unit_test(pair_fleet_callback_waits_for_next),
        cmocka_unit_test(pair_reject_groupshut),
        cmocka_unit_test(pair_reject_groupshut_while_settling),
        cmocka_unit_test(pair_reject_handler_refusing),
        cmocka_unit_test(pair_reject_slow_callback_not_before_completion),
        cmocka_unit_test(pair_reject_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_reject_dump),
#endif
        cmocka_unit_test(pair_listener_resolver),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_listener_deferred),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_listener_gate),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_listener_scope),
#endif
        cmocka_unit_test(pair_listener_deadline),
        cmocka_unit_test(pair_listener_pause),
        cmocka_unit_test(pair_listener_live),
        cmocka_unit_test(pair_listener_bounded),
        cmocka_unit_test(pair_listener_runcap),
        cmocka_unit_test(pair_listener_fleet),
        cmocka_unit_test(pair_listener_groupshut),
        cmocka_unit_test(pair_listener_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_listener_dump),
        cmocka_unit_test(pair_resolver_deferred),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_resolver_gate),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_resolver_scope),
#endif
        cmocka_unit_test(pair_resolver_deadline),
        cmocka_unit_test(pair_resolver_pause),
        cmocka_unit_test(pair_resolver_live),
        cmocka_unit_test(pair_resolver_bounded),
        cmocka_unit_test(pair_resolver_runcap),
        cmocka_unit_test(pair_resolver_fleet),
        cmocka_unit_test(pair_resolver_groupshut),
        cmocka_unit_test(pair_resolver_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_resolver_dump),
#endif
#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_GATE)
        cmocka_unit_test(pair_deferred_gate),
#endif
#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_SCOPES)
        cmocka_unit_test(pair_deferred_scope),
#endif
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_deferred_deadline),
        cmocka_unit_test(pair_deferred_pause),
        cmocka_unit_test(pair_deferred_live),
        cmocka_unit_test(pair_deferred_bounded),
        cmocka_unit_test(pair_deferred_runcap),
        cmocka_unit_test(pair_deferred_fleet),
        cmocka_unit_test(pair_deferred_groupshut),
        cmocka_unit_test(pair_deferred_shutdown),
        cmocka_unit_test(pair_deferred_dump),
#endif
#if !defined(GROUPCONC_NO_GATE) && !defined(GROUPCONC_NO_SCOPES)
        cmocka_unit_test(pair_gate_scope),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_gate_deadline),
        cmocka_unit_test(pair_gate_pause),
        cmocka_unit_test(pair_gate_live),
        cmocka_unit_test(pair_gate_bounded),
        cmocka_unit_test(pair_gate_runcap),
        cmocka_unit_test(pair_gate_fleet),
        cmocka_unit_test(pair_gate_groupshut),
        cmocka_unit_test(pair_gate_shutdown),
#endif
#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_GATE)
        cmocka_unit_test(pair_gate_dump),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_scope_deadline),
        cmocka_unit_test(pair_scope_pause),
        cmocka_unit_test(pair_scope_live),
        cmocka_unit_test(pair_scope_bounded),
        cmocka_unit_test(pair_scope_runcap),
        cmocka_unit_test(pair_scope_fleet),
        cmocka_unit_test(pair_scope_groupshut),
        cmocka_unit_test(pair_scope_shutdown),
#endif
#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_SCOPES)
        cmocka_unit_test(pair_scope_dump),
#endif
        cmocka_unit_test(pair_deadline_pause),
        cmocka_unit_test(pair_deadline_live),
        cmocka_unit_test(pair_deadline_bounded),
        cmocka_unit_test(pair_deadline_runcap),
        cmocka_unit_test(pair_deadline_fleet),
        cmocka_unit_test(pair_deadline_groupshut),
        cmocka_unit_test(pair_deadline_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_deadline_dump),
#endif
        cmocka_unit_test(pair_pause_live),
        cmocka_unit_test(pair_pause_bounded),
        cmocka_unit_test(pair_pause_runcap),
        cmocka_unit_test(pair_pause_fleet),
        cmocka_unit_test(pair_pause_groupshut),
        cmocka_unit_test(pair_pause_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_pause_dump),
#endif
        cmocka_unit_test(pair_live_bounded),
        cmocka_unit_test(pair_live_runcap),
        cmocka_unit_test(pair_live_fleet),
        cmocka_unit_test(pair_live_groupshut),
        cmocka_unit_test(pair_live_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_live_dump),
#endif
        cmocka_unit_test(pair_bounded_runcap),
        cmocka_unit_test(pair_bounded_fleet),
        cmocka_unit_test(pair_bounded_groupshut),
        cmocka_unit_test(pair_bounded_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_bounded_dump),
#endif
        cmocka_unit_test(pair_runcap_fleet),
        cmocka_unit_test(pair_runcap_groupshut),
        cmocka_unit_test(pair_runcap_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_runcap_dump),
#endif
        cmocka_unit_test(pair_fleet_groupshut),
        cmocka_unit_test(pair_fleet_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_fleet_dump),
#endif
        cmocka_unit_test(pair_groupshut_shutdown),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_groupshut_dump),
        cmocka_unit_test(pair_shutdown_dump),
#endif
        cmocka_unit_test(pair_tasks_blocking),
        cmocka_unit_test(pair_execall_blocking),
        cmocka_unit_test(pair_reject_blocking),
        cmocka_unit_test(pair_listener_blocking),
        cmocka_unit_test(pair_resolver_blocking),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_deferred_blocking),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(pair_gate_blocking),
#endif
#ifndef GROUPCONC_NO_SCOPES
        cmocka_unit_test(pair_scope_blocking),
#endif
        cmocka_unit_test(pair_deadline_blocking),
        cmocka_unit_test(pair_pause_blocking),
        cmocka_unit_test(pair_live_blocking),
        cmocka_unit_test(pair_bounded_blocking),
        cmocka_unit_test(pair_runcap_blocking),
        cmocka_unit_test(pair_fleet_blocking),
        cmocka_unit_test(pair_groupshut_blocking),
        cmocka_unit_test(pair_shutdown_blocking),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(pair_dump_blocking),
#endif
    };
    const char *only = getenv("PAIRS_TEST");
    struct CMUnitTest run[sizeof all / sizeof all[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!only || !*only || strstr(all[i].name, only)) run[n++] = all[i];
    return _cmocka_run_group_tests("pairs", run, n, NULL, NULL);
}
