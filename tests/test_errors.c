/* test_errors.c - bad input, table-driven (SPEC "Bad input and faults"; STYLE "Errors").

   One row per public function x invalid argument: the call, the documented error code it must
   return, and (inside the call) any further promise (nothing submitted, out parameter untouched,
   no task lost). Every row runs as its own cmocka test against a fresh fixture, and the fixture's
   teardown checks that no block of the counting allocator is left live.

   The fixture: executor with a per-group table ("solo": conc 1, threshold 0; "bulk": conc 1,
   in-flight 1, threshold 0), a task `parked` running in "p" on a latch, `queued` waiting behind it,
   and `done`, finished. */
#define GROUPCONC_IMPLEMENTATION
#include "faultutil.h" /* counting allocator, counter / latch; includes groupconc.h */

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <setjmp.h>
#include <cmocka.h>

#ifndef GROUPCONC_MAX_KEY_LEN
#error "GROUPCONC_MAX_KEY_LEN must be defined by the implementation"
#endif
#define KEYMAX GROUPCONC_MAX_KEY_LEN

/* ==== watchdog ================================================================================= */

/* A call that should return at once but might block: abort with a message instead of hanging. */
typedef struct watchdog {
    pthread_t thread;
    counter done;
    const char *what;
} watchdog;

static void *watchdog_main(void *arg) {
    watchdog *w = arg;
    struct timespec dl = deadline_after(INT64_C(5000000000));
    pthread_mutex_lock(&w->done.mu);
    int rc = 0;
    while (!w->done.open && rc == 0) rc = pthread_cond_timedwait(&w->done.cv, &w->done.mu, &dl);
    bool fired = !w->done.open;
    pthread_mutex_unlock(&w->done.mu);
    if (fired) {
        fprintf(stderr, "test_errors: %s blocked for 5 s instead of returning an error\n", w->what);
        abort();
    }
    return NULL;
}

static void watchdog_start(watchdog *w, const char *what) {
    counter_init(&w->done);
    w->what = what;
    pthread_create(&w->thread, NULL, watchdog_main, w);
}

static void watchdog_stop(watchdog *w) {
    latch_open(&w->done);
    pthread_join(w->thread, NULL);
}

/* ==== fixture ==================================================================================== */

#define MAX_EXTRA 4

typedef struct row row;

typedef struct fixture {
    const row *row;
    groupconc_executor *ex;
    groupconc_executor *tmp_ex; /* made by a create row */
    counter gate;
    groupconc_task *parked, *queued, *done;
    bool parked_released, queued_released, done_released;
    groupconc_task *extra[MAX_EXTRA];
    int nextra;
    atomic_int runs;      /* runs of task_count */
    atomic_int submitted; /* SUBMITTED listener events */
    atomic_int cb_calls;
    char max_key[KEYMAX + 1];
    char long_key[KEYMAX + 2];
} fixture;

struct row {
    const char *name;
    int (*call)(fixture *f, const row *r);
    int expect;
    int field;     /* policy / table rows: which field */
    int64_t value; /* policy / table rows: the value put there */
    int entry;     /* table rows: which entry */
};

static int task_count(groupconc_context *ctx, void **out_value, void *user_data) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add((atomic_int *)user_data, 1);
    return 0;
}

static void listener(const groupconc_event *ev, void *user_data) {
    fixture *f = user_data;
    if (ev->type == GROUPCONC_EVENT_SUBMITTED) atomic_fetch_add(&f->submitted, 1);
}

static const groupconc_group_limits fixture_table[] = {
    {"solo", 1, GROUPCONC_UNLIMITED, 0},
    {"bulk", 1, 1, 0},
};

static int fixture_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->row = *state;
    *state = f;
    counter_init(&f->gate);
    memset(f->max_key, 'm', KEYMAX);
    f->max_key[KEYMAX] = '\0';
    memset(f->long_key, 'l', KEYMAX + 1);
    f->long_key[KEYMAX + 1] = '\0';
    groupconc_policy p = groupconc_policy_default();
    p.groups = fixture_table;
    p.group_count = 2;
    p.max_threads = 4;
    p.keep_alive_ns = INT64_C(60000000000);
    p.listener = listener;
    p.listener_user_data = f;
    if (groupconc_executor_create(&p, &f->ex) != GROUPCONC_OK) return -1;
    if (groupconc_submit(f->ex, "p", "parked", task_park, &f->gate, &f->parked) != GROUPCONC_OK) return -1;
    if (!counter_wait(&f->gate, 1)) return -1;
    if (groupconc_submit(f->ex, "p", "queued", task_count, &f->runs, &f->queued) != GROUPCONC_OK) return -1;
    if (groupconc_submit(f->ex, "d", "done", task_count, &f->runs, &f->done) != GROUPCONC_OK) return -1;
    groupconc_result r;
    if (groupconc_task_wait_for(f->done, BOUND_NS, &r) != GROUPCONC_OK) return -1;
    atomic_store(&f->runs, 0);
    atomic_store(&f->submitted, 0);
    return 0;
}

static int fixture_teardown(void **state) {
    fixture *f = *state;
    int bad = 0;
    if (f->tmp_ex && groupconc_executor_destroy(f->tmp_ex) != GROUPCONC_OK) bad = 1;
    latch_open(&f->gate);
    if (f->ex && groupconc_executor_destroy(f->ex) != GROUPCONC_OK) bad = 1;
    if (!f->parked_released && groupconc_task_release(f->parked) != GROUPCONC_OK) bad = 1;
    if (!f->queued_released && groupconc_task_release(f->queued) != GROUPCONC_OK) bad = 1;
    if (!f->done_released && groupconc_task_release(f->done) != GROUPCONC_OK) bad = 1;
    for (int i = 0; i < f->nextra; i++)
        if (groupconc_task_release(f->extra[i]) != GROUPCONC_OK) bad = 1;
    long live = live_blocks();
    if (live != 0) {
        fprintf(stderr, "row \"%s\": %ld blocks live after destroy and release\n", f->row->name, live);
        bad = 1;
    }
    live_blocks_reset(); /* do not blame the next row */
    free(f);
    return bad ? -1 : 0;
}

static void run_row(void **state) {
    fixture *f = *state;
    int rc = f->row->call(f, f->row);
    if (rc != f->row->expect)
        fail_msg("%s: returned %s (%d), want %s (%d)", f->row->name, groupconc_errname(rc), rc,
                 groupconc_errname(f->row->expect), f->row->expect);
}

static void add_extra(fixture *f, groupconc_task *t) {
    assert_true(f->nextra < MAX_EXTRA);
    f->extra[f->nextra++] = t;
}

/* ==== executor create: policy fields ============================================================ */

enum { P_CONC, P_INFL, P_THR, P_GINFL, P_GTHR, P_THREADS, P_KEEPALIVE, P_REJECTION, P_NULL_POLICY,
       P_NULL_OUT, P_GROUPS_NULL, P_COUNT_ZERO };

static const groupconc_group_limits valid_table[] = {
    {"t0", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT},
    {"t1", GROUPCONC_DEFAULT, 1, 0},
};

/* A create that succeeded must give a working executor: one task runs in a table group. */
static int check_created(fixture *f, int rc) {
    if (rc != GROUPCONC_OK) {
        if (f->tmp_ex) fail_msg("create failed with %s but set *out_executor", groupconc_errname(rc));
        return rc;
    }
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->tmp_ex, "t0", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    add_extra(f, t);
    return rc;
}

static int call_policy(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    p.groups = valid_table;
    p.group_count = 2;
    int v = (int)r->value;
    switch (r->field) {
    case P_CONC: p.default_concurrency = v; break;
    case P_INFL: p.default_max_in_flight = v; break;
    case P_THR: p.default_queue_threshold = v; break;
    case P_GINFL: p.global_max_in_flight = v; break;
    case P_GTHR: p.global_queue_threshold = v; break;
    case P_THREADS: p.max_threads = v; break;
    case P_KEEPALIVE: p.keep_alive_ns = r->value; break;
    case P_REJECTION: p.rejection = (groupconc_rejection_policy)v; break;
    case P_NULL_POLICY: return groupconc_executor_create(NULL, &f->tmp_ex);
    case P_NULL_OUT: return groupconc_executor_create(&p, NULL);
    case P_GROUPS_NULL: p.groups = NULL; break;
    case P_COUNT_ZERO: p.group_count = 0; break;
    default: fail();
    }
    return check_created(f, groupconc_executor_create(&p, &f->tmp_ex));
}

/* ==== executor create: per-group table entries ================================================== */

enum { T_KEY, T_CONC, T_INFL, T_THR };
enum { K_NULL, K_EMPTY, K_LONG, K_MAX, K_DUP_FIRST, K_DUP_PREV };

static int call_table(fixture *f, const row *r) {
    groupconc_group_limits tbl[3] = {
        {"t0", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT},
        {"t1", GROUPCONC_DEFAULT, 1, 0},
        {"t2", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED},
    };
    groupconc_group_limits *e = &tbl[r->entry];
    int v = (int)r->value;
    switch (r->field) {
    case T_KEY:
        switch (v) {
        case K_NULL: e->group = NULL; break;
        case K_EMPTY: e->group = ""; break;
        case K_LONG: e->group = f->long_key; break;
        case K_MAX: e->group = f->max_key; break;
        case K_DUP_FIRST: e->group = "t0"; break;
        case K_DUP_PREV: e->group = tbl[r->entry - 1].group; break;
        default: fail();
        }
        break;
    case T_CONC: e->concurrency = v; break;
    case T_INFL: e->max_in_flight = v; break;
    case T_THR: e->queue_threshold = v; break;
    default: fail();
    }
    groupconc_policy p = groupconc_policy_default();
    p.groups = tbl;
    p.group_count = 3;
    return check_created(f, groupconc_executor_create(&p, &f->tmp_ex));
}

/* The policy and its table are copied: the caller may free its copy at once. */
static int call_policy_copied(fixture *f, const row *r) {
    (void)r;
    groupconc_group_limits *tbl = malloc(sizeof *tbl);
    char *key = malloc(8);
    assert_non_null(tbl);
    assert_non_null(key);
    strcpy(key, "copied");
    tbl[0].group = key;
    tbl[0].concurrency = 3;
    tbl[0].max_in_flight = 7;
    tbl[0].queue_threshold = 5;
    groupconc_policy *p = malloc(sizeof *p);
    assert_non_null(p);
    *p = groupconc_policy_default();
    p->groups = tbl;
    p->group_count = 1;
    int rc = groupconc_executor_create(p, &f->tmp_ex);
    memset(key, 'x', 7);
    memset(tbl, 0xEE, sizeof *tbl);
    memset(p, 0xEE, sizeof *p);
    free(key);
    free(tbl);
    free(p);
    if (rc != GROUPCONC_OK) return rc;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->tmp_ex, "copied", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
    add_extra(f, t);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
    groupconc_group_stats gs;
    assert_int_equal(groupconc_group_stats_get(f->tmp_ex, "copied", &gs), GROUPCONC_OK);
    assert_int_equal(gs.concurrency, 3);
    assert_int_equal(gs.max_in_flight, 7);
    assert_int_equal(gs.queue_threshold, 5);
    return rc;
}

/* ==== executor lifecycle ========================================================================= */

static int call_shutdown_null(fixture *f, const row *r) {
    (void)f, (void)r;
    return groupconc_executor_shutdown(NULL);
}
static int call_graceful_null(fixture *f, const row *r) {
    (void)f, (void)r;
    return groupconc_executor_shutdown_graceful(NULL, 0);
}
static int call_destroy_null(fixture *f, const row *r) {
    (void)f, (void)r;
    return groupconc_executor_destroy(NULL);
}
static int call_shutdown_twice(fixture *f, const row *r) {
    (void)r;
    assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    return groupconc_executor_shutdown(f->ex);
}
static int call_graceful_after_shutdown(fixture *f, const row *r) {
    (void)r;
    latch_open(&f->gate);
    assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    return groupconc_executor_shutdown_graceful(f->ex, BOUND_NS);
}
static int call_graceful_twice(fixture *f, const row *r) {
    (void)r;
    latch_open(&f->gate);
    assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
    return groupconc_executor_shutdown_graceful(f->ex, 0);
}
/* shutdown after a graceful shutdown: nothing left to cancel */
static int call_shutdown_after_graceful(fixture *f, const row *r) {
    (void)r;
    latch_open(&f->gate);
    assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
    int rc = groupconc_executor_shutdown(f->ex);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(f->queued, 0, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    return rc;
}

/* ==== submit ===================================================================================== */

enum { S_NULL_EX, S_NULL_GROUP, S_NULL_FN, S_EMPTY, S_LONG, S_MAX, S_NULL_ID, S_NULL_OUT, S_AFTER_SHUTDOWN,
       S_AFTER_GRACEFUL, S_EMPTY_AFTER_SHUTDOWN, S_NULL_FN_AFTER_SHUTDOWN, S_NULL_SPEC };

/* The cleanup of groupconc_submit_spec rows: counts its calls (never for a refused task). */
static atomic_int spec_cleanups;
static void spec_cleanup(void *arg) {
    (void)arg;
    atomic_fetch_add(&spec_cleanups, 1);
}

static int call_submit(fixture *f, const row *r) {
    groupconc_executor *ex = f->ex;
    const char *group = "s";
    const char *id = "id";
    groupconc_task_fn fn = task_count;
    bool want_out = true;
    switch (r->field) {
    case S_NULL_EX: ex = NULL; break;
    case S_NULL_GROUP: group = NULL; break;
    case S_NULL_FN: fn = NULL; break;
    case S_EMPTY: group = ""; break;
    case S_LONG: group = f->long_key; break;
    case S_MAX: group = f->max_key; break;
    case S_NULL_ID: id = NULL; break;
    case S_NULL_OUT: want_out = false; break;
    case S_AFTER_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    case S_AFTER_GRACEFUL:
        latch_open(&f->gate);
        assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
        break;
    case S_EMPTY_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        group = "";
        break;
    case S_NULL_FN_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        fn = NULL;
        break;
    case S_NULL_SPEC: break;
    default: fail();
    }
    groupconc_task *t = NULL;
    int before = atomic_load(&f->submitted);
    int rc;
    atomic_store(&spec_cleanups, 0);
    if (r->value == 1) { /* the same call through groupconc_submit_spec, with a cleanup */
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = group;
        spec.task_id = id;
        spec.fn = fn;
        spec.arg = &f->runs;
        spec.cleanup = spec_cleanup;
        t = (groupconc_task *)(uintptr_t)1; /* must come back NULL on error */
        rc = groupconc_submit_spec(ex, r->field == S_NULL_SPEC ? NULL : &spec, want_out ? &t : NULL);
        if (!want_out) t = NULL;
    } else {
        rc = groupconc_submit(ex, group, id, fn, &f->runs, want_out ? &t : NULL);
    }
    if (rc != GROUPCONC_OK) {
        if (t) fail_msg("submit returned %s but gave a handle", groupconc_errname(rc));
        if (rc != GROUPCONC_ESHUTDOWN && atomic_load(&f->submitted) != before)
            fail_msg("submit refused an argument (%s) after firing SUBMITTED", groupconc_errname(rc));
        if (atomic_load(&spec_cleanups) != 0)
            fail_msg("submit_spec returned %s but called the cleanup (arg is still the caller's)",
                     groupconc_errname(rc));
        return rc;
    }
    if (want_out) {
        assert_non_null(t);
        add_extra(f, t);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_string_equal(res.group, group);
        if (id) assert_string_equal(res.task_id, id);
        else assert_null(res.task_id);
        if (r->value == 1) assert_int_equal(atomic_load(&spec_cleanups), 1); /* before it was done */
    }
    return rc;
}

/* groupconc_policy_check: the code executor_create returns, and the field it names. */
static int call_policy_check(fixture *f, const row *r) {
    (void)f;
    groupconc_policy p = groupconc_policy_default();
    groupconc_group_limits table[2] = {{"a", 1, 1, 1}, {"b", 1, 1, 1}};
    groupconc_policy_problem pr;
    const char *want_field = "";
    memset(&pr, 0x5a, sizeof pr);
    switch (r->field) {
    case 0: return groupconc_policy_check(NULL, &pr) == GROUPCONC_EINVAL && pr.code == GROUPCONC_EINVAL
                       ? GROUPCONC_EINVAL : 1;
    case 1: return groupconc_policy_check(&p, NULL);
    case 2: p.default_max_in_flight = 0; want_field = "default_max_in_flight"; break;
    case 3: p.default_queue_threshold = -3; want_field = "default_queue_threshold"; break;
    case 4: p.global_max_in_flight = -5; want_field = "global_max_in_flight"; break;
    case 5: p.global_queue_threshold = INT_MIN; want_field = "global_queue_threshold"; break;
    case 6: p.keep_alive_ns = -1; want_field = "keep_alive_ns"; break;
    case 7: p.groups = NULL; p.group_count = 2; want_field = "groups"; break;
    case 8: p.groups = table; p.group_count = 2; table[1].group = NULL; want_field = "groups[1].group"; break;
    case 9: p.groups = table; p.group_count = 2; table[1].max_in_flight = 0; want_field = "groups[1].max_in_flight"; break;
    case 10: p.groups = table; p.group_count = 2; table[1].group = "a"; want_field = "groups[1].group"; break;
    default: fail();
    }
    int rc = groupconc_policy_check(&p, &pr);
    if (pr.code != rc) fail_msg("problem.code %d, returned %d", pr.code, rc);
    if (strcmp(pr.field, want_field) != 0) fail_msg("problem.field \"%s\", want \"%s\"", pr.field, want_field);
    if (!memchr(pr.message, '\0', sizeof pr.message) || !strstr(pr.message, want_field))
        fail_msg("problem.message \"%.*s\" does not name %s", (int)sizeof pr.message, pr.message, want_field);
    groupconc_executor *ex = NULL; /* executor_create agrees */
    int crc = groupconc_executor_create(&p, &ex);
    if (crc != rc) fail_msg("executor_create returned %s, policy_check %s", groupconc_errname(crc), groupconc_errname(rc));
    assert_null(ex);
    return rc;
}

/* ABORT rejections: each layer has its own code; no handle. */
static int call_reject_concurrency(fixture *f, const row *r) {
    (void)r;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->ex, "solo", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
    add_extra(f, t);
    assert_true(counter_wait(&f->gate, 2));
    groupconc_task *u = NULL;
    int rc = groupconc_submit(f->ex, "solo", NULL, task_count, &f->runs, &u);
    if (u) {
        add_extra(f, u);
        fail_msg("rejected submit returned %s and gave a handle", groupconc_errname(rc));
    }
    return rc;
}
static int call_reject_bulkhead(fixture *f, const row *r) {
    (void)r;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->ex, "bulk", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
    add_extra(f, t);
    assert_true(counter_wait(&f->gate, 2));
    groupconc_task *u = NULL;
    int rc = groupconc_submit(f->ex, "bulk", NULL, task_count, &f->runs, &u);
    if (u) {
        add_extra(f, u);
        fail_msg("rejected submit returned %s and gave a handle", groupconc_errname(rc));
    }
    return rc;
}
static int call_reject_global(fixture *f, const row *r) {
    (void)r;
    groupconc_policy p = groupconc_policy_default();
    p.global_max_in_flight = 1;
    p.global_queue_threshold = 0;
    assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->tmp_ex, "x", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
    add_extra(f, t);
    assert_true(counter_wait(&f->gate, 2));
    groupconc_task *u = NULL;
    int rc = groupconc_submit(f->tmp_ex, "y", NULL, task_count, &f->runs, &u);
    if (u) {
        add_extra(f, u);
        fail_msg("rejected submit returned %s and gave a handle", groupconc_errname(rc));
    }
    latch_open(&f->gate);
    return rc;
}

/* ==== handles ==================================================================================== */

static int call_wait_null_task(fixture *f, const row *r) {
    (void)f, (void)r;
    groupconc_result res;
    return groupconc_task_wait(NULL, &res);
}
static int call_wait_null_out(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_wait(f->done, NULL);
}
static int call_wait_for_null_task(fixture *f, const row *r) {
    (void)f, (void)r;
    groupconc_result res;
    return groupconc_task_wait_for(NULL, 0, &res);
}
static int call_wait_for_null_out(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_wait_for(f->done, 0, NULL);
}
/* a timeout is reported distinctly and does not cancel the task */
static int call_wait_for_timeout(fixture *f, const row *r) {
    groupconc_result res;
    int rc = groupconc_task_wait_for(f->parked, r->value, &res);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(f->parked, &done), GROUPCONC_OK);
    assert_false(done);
    latch_open(&f->gate);
    assert_int_equal(groupconc_task_wait_for(f->parked, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    return rc;
}
static int call_is_done_null_task(fixture *f, const row *r) {
    (void)f, (void)r;
    bool d;
    return groupconc_task_is_done(NULL, &d);
}
static int call_is_done_null_out(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_is_done(f->done, NULL);
}
static int call_cancel_null_task(fixture *f, const row *r) {
    (void)f, (void)r;
    groupconc_cancel_outcome o;
    return groupconc_task_cancel(NULL, &o);
}
static int call_cancel_null_outcome(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_cancel(f->queued, NULL); /* NULL outcome is allowed */
}
static int call_cancel_done(fixture *f, const row *r) {
    (void)r;
    groupconc_cancel_outcome o = GROUPCONC_CANCEL_DEQUEUED;
    int rc = groupconc_task_cancel(f->done, &o);
    assert_int_equal(o, GROUPCONC_CANCEL_TOO_LATE);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(f->done, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    return rc;
}
static int call_on_complete_null_task(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_on_complete(NULL, count_cb, &f->cb_calls);
}
static int call_on_complete_null_fn(fixture *f, const row *r) {
    (void)r;
    return groupconc_task_on_complete(f->queued, NULL, NULL);
}
static int call_release_null(fixture *f, const row *r) {
    (void)f, (void)r;
    return groupconc_task_release(NULL);
}

/* Released handles while the executor still holds the task (parked on the latch, or waiting). */
enum { R_RELEASE, R_WAIT, R_WAIT_FOR, R_IS_DONE, R_CANCEL, R_ON_COMPLETE };

static int use_released(fixture *f, groupconc_task *t, int what) {
    groupconc_result res;
    bool d;
    groupconc_cancel_outcome o;
    watchdog w;
    int rc;
    switch (what) {
    case R_RELEASE: return groupconc_task_release(t);
    case R_WAIT:
        watchdog_start(&w, "groupconc_task_wait on a released handle");
        rc = groupconc_task_wait(t, &res);
        watchdog_stop(&w);
        return rc;
    case R_WAIT_FOR: return groupconc_task_wait_for(t, 1000000, &res);
    case R_IS_DONE: return groupconc_task_is_done(t, &d);
    case R_CANCEL: return groupconc_task_cancel(t, &o);
    case R_ON_COMPLETE: return groupconc_task_on_complete(t, count_cb, &f->cb_calls);
    default: fail();
    }
    return 0;
}

static int call_released_parked(fixture *f, const row *r) {
    assert_int_equal(groupconc_task_release(f->parked), GROUPCONC_OK);
    f->parked_released = true;
    int rc = use_released(f, f->parked, r->field);
    assert_int_equal(atomic_load(&f->cb_calls), 0);
    return rc;
}

static int call_released_queued(fixture *f, const row *r) {
    assert_int_equal(groupconc_task_release(f->queued), GROUPCONC_OK);
    f->queued_released = true;
    int rc = use_released(f, f->queued, r->field);
    /* the released task still runs to its end (its result is discarded) */
    latch_open(&f->gate);
    assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
    if (r->field != R_CANCEL) assert_int_equal(atomic_load(&f->runs), 1);
    return rc;
}

/* Handles stay valid after the executor is destroyed. */
static int call_handle_after_destroy(fixture *f, const row *r) {
    (void)r;
    latch_open(&f->gate);
    assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(f->ex), GROUPCONC_OK);
    f->ex = NULL;
    bool d = false;
    assert_int_equal(groupconc_task_is_done(f->parked, &d), GROUPCONC_OK);
    assert_true(d);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(f->queued, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    assert_string_equal(res.group, "p");
    assert_string_equal(res.task_id, "queued");
    groupconc_cancel_outcome o = GROUPCONC_CANCEL_DEQUEUED;
    assert_int_equal(groupconc_task_cancel(f->parked, &o), GROUPCONC_OK);
    assert_int_equal(o, GROUPCONC_CANCEL_TOO_LATE);
    assert_int_equal(groupconc_task_on_complete(f->done, count_cb, &f->cb_calls), GROUPCONC_OK);
    assert_int_equal(atomic_load(&f->cb_calls), 1);
    return groupconc_task_wait_for(f->done, 0, &res);
}

/* on_complete on a task cancelled by shutdown runs at once */
static int call_on_complete_after_shutdown(fixture *f, const row *r) {
    (void)r;
    assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    int rc = groupconc_task_on_complete(f->queued, count_cb, &f->cb_calls);
    assert_int_equal(atomic_load(&f->cb_calls), 1);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(f->queued, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_CANCELLED);
    return rc;
}

/* ==== context accessors accept NULL ============================================================== */

static int call_context_null(fixture *f, const row *r) {
    (void)f, (void)r;
    if (groupconc_context_is_cancelled(NULL)) fail_msg("is_cancelled(NULL) is true");
    if (groupconc_context_group(NULL)) fail_msg("group(NULL) is not NULL");
    if (groupconc_context_task_id(NULL)) fail_msg("task_id(NULL) is not NULL");
    if (groupconc_context_executor(NULL)) fail_msg("executor(NULL) is not NULL");
    return GROUPCONC_OK;
}

/* ==== execute_all ================================================================================ */

enum { X_NULL_EX, X_NULL_TASKS, X_NULL_OUT, X_NULL_GROUP, X_NULL_FN, X_EMPTY, X_LONG, X_MAX, X_COUNT_ZERO,
       X_AFTER_SHUTDOWN };

static int call_execute_all(fixture *f, const row *r) {
    groupconc_task_spec specs[3] = {
        {"e1", "a", task_count, &f->runs, NULL},
        {"e2", NULL, task_count, &f->runs, NULL},
        {"e1", "c", task_count, &f->runs, NULL},
    };
    groupconc_result res[3];
    groupconc_executor *ex = f->ex;
    const groupconc_task_spec *tasks = specs;
    groupconc_result *out = res;
    size_t count = 3;
    switch (r->field) {
    case X_NULL_EX: ex = NULL; break;
    case X_NULL_TASKS: tasks = NULL; break;
    case X_NULL_OUT: out = NULL; break;
    case X_NULL_GROUP: specs[2].group = NULL; break; /* the invalid one is last: nothing may be submitted */
    case X_NULL_FN: specs[2].fn = NULL; break;
    case X_EMPTY: specs[2].group = ""; break;
    case X_LONG: specs[2].group = f->long_key; break;
    case X_MAX: specs[2].group = f->max_key; break;
    case X_COUNT_ZERO: count = 0; break;
    case X_AFTER_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    default: fail();
    }
    int rc = groupconc_execute_all(ex, tasks, count, BOUND_NS, out);
    if (rc != GROUPCONC_OK) {
        if (atomic_load(&f->submitted) != 0 || atomic_load(&f->runs) != 0)
            fail_msg("execute_all returned %s after submitting %d element(s)", groupconc_errname(rc),
                     atomic_load(&f->submitted));
        return rc;
    }
    for (size_t i = 0; i < count; i++) {
        if (r->field == X_AFTER_SHUTDOWN) {
            if (res[i].status != GROUPCONC_STATUS_REJECTED || res[i].reason != GROUPCONC_ESHUTDOWN)
                fail_msg("element %zu after shutdown: %s / %s, want REJECTED / ESHUTDOWN", i,
                         groupconc_status_name(res[i].status), groupconc_errname(res[i].error));
            assert_true(res[i].start_ns == res[i].end_ns);
        } else {
            assert_int_equal(res[i].status, GROUPCONC_STATUS_SUCCESS);
        }
        assert_ptr_equal(res[i].group, specs[i].group);
        assert_ptr_equal(res[i].task_id, specs[i].task_id);
    }
    if (r->field == X_AFTER_SHUTDOWN) assert_int_equal(atomic_load(&f->runs), 0);
    return rc;
}

/* ==== group control and stats ==================================================================== */

enum { G_NULL_EX, G_NULL_GROUP, G_EMPTY, G_LONG, G_MAX_UNKNOWN, G_UNKNOWN, G_KNOWN, G_AFTER_SHUTDOWN };

static const char *group_arg(fixture *f, int field, groupconc_executor **ex) {
    *ex = f->ex;
    switch (field) {
    case G_NULL_EX: *ex = NULL; return "p";
    case G_NULL_GROUP: return NULL;
    case G_EMPTY: return "";
    case G_LONG: return f->long_key;
    case G_MAX_UNKNOWN: return f->max_key;
    case G_UNKNOWN: return "never-used";
    case G_KNOWN: return "d";
    case G_AFTER_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); return "p";
    default: fail();
    }
    return NULL;
}

static int call_shutdown_group(fixture *f, const row *r) {
    groupconc_executor *ex;
    const char *g = group_arg(f, r->field, &ex);
    int rc = groupconc_group_shutdown(ex, g);
    if (r->field == G_UNKNOWN || r->field == G_MAX_UNKNOWN) { /* a no-op: "p" untouched */
        bool d = true;
        assert_int_equal(groupconc_task_is_done(f->queued, &d), GROUPCONC_OK);
        assert_false(d);
    }
    return rc;
}

static int call_evict_group(fixture *f, const row *r) {
    groupconc_executor *ex;
    const char *g = group_arg(f, r->field, &ex);
    int rc = groupconc_group_evict(ex, g);
    if (r->field == G_UNKNOWN || r->field == G_MAX_UNKNOWN) {
        bool d = true;
        assert_int_equal(groupconc_task_is_done(f->queued, &d), GROUPCONC_OK);
        assert_false(d);
    }
    return rc;
}

static int call_group_stats(fixture *f, const row *r) {
    groupconc_executor *ex;
    const char *g = group_arg(f, r->field, &ex);
    groupconc_group_stats gs;
    int rc = groupconc_group_stats_get(ex, g, &gs);
    if (r->field == G_AFTER_SHUTDOWN && rc == GROUPCONC_OK) { /* still reported as it is */
        assert_int_equal(gs.running, 1);
        assert_int_equal(gs.concurrency, 1);
    }
    return rc;
}

static int call_group_stats_null_out(fixture *f, const row *r) {
    (void)r;
    return groupconc_group_stats_get(f->ex, "p", NULL);
}

static int call_executor_stats_null_ex(fixture *f, const row *r) {
    (void)f, (void)r;
    groupconc_executor_stats s;
    return groupconc_executor_stats_get(NULL, &s);
}
static int call_executor_stats_null_out(fixture *f, const row *r) {
    (void)r;
    return groupconc_executor_stats_get(f->ex, NULL);
}
static int call_executor_stats_after_shutdown(fixture *f, const row *r) {
    (void)r;
    assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    groupconc_executor_stats s;
    int rc = groupconc_executor_stats_get(f->ex, &s);
    assert_true(s.shutdown);
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting, 0);
    return rc;
}

enum { K_ARG_NULL_EX, K_ARG_NULL_KEYS, K_ARG_NULL_COUNT, K_ARG_EMPTY_EXECUTOR, K_ARG_FREE_NULL };

static int call_group_keys(fixture *f, const row *r) {
    char **keys = NULL;
    size_t n = 99;
    switch (r->field) {
    case K_ARG_NULL_EX: return groupconc_group_keys_get(NULL, &keys, &n);
    case K_ARG_NULL_KEYS: return groupconc_group_keys_get(f->ex, NULL, &n);
    case K_ARG_NULL_COUNT: return groupconc_group_keys_get(f->ex, &keys, NULL);
    case K_ARG_EMPTY_EXECUTOR: {
        groupconc_policy p = groupconc_policy_default();
        assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
        int rc = groupconc_group_keys_get(f->tmp_ex, &keys, &n);
        if (rc == GROUPCONC_OK) {
            assert_int_equal(n, 0);
            groupconc_group_keys_free(keys);
        }
        return rc;
    }
    case K_ARG_FREE_NULL: groupconc_group_keys_free(NULL); return GROUPCONC_OK;
    default: fail();
    }
    return 0;
}

/* ==== diagnostics ================================================================================ */

typedef struct code_info {
    const char *name;
    int value;
    const char *text;
} code_info;

static const code_info codes[] = {
#define CODE_ROW(name, value, text) {"GROUPCONC_" #name, value, text},
    GROUPCONC_ERRNO_MAP(CODE_ROW)
#undef CODE_ROW
};
#define NCODES (sizeof codes / sizeof codes[0])

static bool contains_unknown(const char *s) {
    char low[256];
    size_t i;
    for (i = 0; s[i] && i < sizeof low - 1; i++) low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
    low[i] = '\0';
    return strstr(low, "unknown") != NULL;
}

static int call_code_text(fixture *f, const row *r) {
    (void)f;
    const code_info *c = &codes[r->entry];
    const char *text = groupconc_strerror(c->value);
    const char *name = groupconc_errname(c->value);
    if (!text || strcmp(text, c->text) != 0) fail_msg("strerror(%d) = \"%s\", want \"%s\"", c->value, text ? text : "(null)", c->text);
    if (!name || strcmp(name, c->name) != 0) fail_msg("errname(%d) = \"%s\", want \"%s\"", c->value, name ? name : "(null)", c->name);
    return GROUPCONC_OK;
}

static int call_unknown_code(fixture *f, const row *r) {
    (void)f;
    int code = (int)r->value;
    const char *text = groupconc_strerror(code);
    const char *name = groupconc_errname(code);
    if (!text || !contains_unknown(text)) fail_msg("strerror(%d) = \"%s\", want an 'unknown' fallback", code, text ? text : "(null)");
    if (!name || !contains_unknown(name)) fail_msg("errname(%d) = \"%s\", want an 'unknown' fallback", code, name ? name : "(null)");
    return GROUPCONC_OK;
}

static int call_codes_distinct(fixture *f, const row *r) {
    (void)f, (void)r;
    for (size_t i = 0; i < NCODES; i++) {
        assert_true(codes[i].value <= 0);
        for (size_t j = 0; j < i; j++) {
            if (codes[i].value == codes[j].value) fail_msg("%s and %s share %d", codes[i].name, codes[j].name, codes[i].value);
            assert_string_not_equal(groupconc_strerror(codes[i].value), groupconc_strerror(codes[j].value));
            assert_string_not_equal(groupconc_errname(codes[i].value), groupconc_errname(codes[j].value));
        }
    }
    assert_int_equal(GROUPCONC_OK, 0);
    return GROUPCONC_OK;
}

static int call_status_names(fixture *f, const row *r) {
    (void)f, (void)r;
    const groupconc_status all[] = {GROUPCONC_STATUS_PENDING, GROUPCONC_STATUS_SUCCESS, GROUPCONC_STATUS_FAILED,
                                    GROUPCONC_STATUS_CANCELLED, GROUPCONC_STATUS_REJECTED};
    for (size_t i = 0; i < 5; i++) {
        const char *n = groupconc_status_name(all[i]);
        assert_non_null(n);
        assert_true(n[0] != '\0');
        for (size_t j = 0; j < i; j++) assert_string_not_equal(n, groupconc_status_name(all[j]));
    }
    assert_non_null(groupconc_status_name((groupconc_status)42));
    assert_non_null(groupconc_status_name((groupconc_status)-1));
    return GROUPCONC_OK;
}

/* Every *_name function: distinct non-empty names, "UNKNOWN" for any other value. */
static int call_enum_names(fixture *f, const row *r) {
    (void)f, (void)r;
    const char *names[3][4] = {
        {groupconc_cancel_outcome_name(GROUPCONC_CANCEL_DEQUEUED), groupconc_cancel_outcome_name(GROUPCONC_CANCEL_FLAGGED),
         groupconc_cancel_outcome_name(GROUPCONC_CANCEL_TOO_LATE), NULL},
        {groupconc_event_type_name(GROUPCONC_EVENT_SUBMITTED), groupconc_event_type_name(GROUPCONC_EVENT_STARTED),
         groupconc_event_type_name(GROUPCONC_EVENT_COMPLETED), groupconc_event_type_name(GROUPCONC_EVENT_REJECTED)},
        {groupconc_rejection_policy_name(GROUPCONC_REJECT_ABORT), groupconc_rejection_policy_name(GROUPCONC_REJECT_DISCARD),
         groupconc_rejection_policy_name(GROUPCONC_REJECT_CALLER_RUNS), NULL}};
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 4 && names[e][i]; i++) {
            assert_true(names[e][i][0] != '\0');
            assert_string_not_equal(names[e][i], "UNKNOWN");
            for (int j = 0; j < i; j++) assert_string_not_equal(names[e][i], names[e][j]);
        }
    assert_string_equal(groupconc_cancel_outcome_name((groupconc_cancel_outcome)-1), "UNKNOWN");
    assert_string_equal(groupconc_event_type_name((groupconc_event_type)4), "UNKNOWN");
    assert_string_equal(groupconc_rejection_policy_name((groupconc_rejection_policy)3), "UNKNOWN");
    return GROUPCONC_OK;
}

static int call_version(fixture *f, const row *r) {
    (void)f, (void)r;
    assert_string_equal(groupconc_version(), GROUPCONC_VERSION_STRING);
    assert_int_equal(KEYMAX, 256); /* the documented default */
    return GROUPCONC_OK;
}

/* ==== the table ================================================================================== */

#define UNL GROUPCONC_UNLIMITED
#define DEF GROUPCONC_DEFAULT
#define OK_ GROUPCONC_OK
#define EINVAL_ GROUPCONC_EINVAL
#define ELIMIT_ GROUPCONC_ELIMIT

static const row rows[] = {
    /* executor_create: arguments */
    {"create: policy NULL", call_policy, EINVAL_, P_NULL_POLICY, 0, 0},
    {"create: out_executor NULL", call_policy, EINVAL_, P_NULL_OUT, 0, 0},
    {"create: group_count 2, groups NULL", call_policy, EINVAL_, P_GROUPS_NULL, 0, 0},
    {"create: groups set, group_count 0 (ignored)", call_policy, OK_, P_COUNT_ZERO, 0, 0},
    /* executor_create: policy limits */
    {"create: default_concurrency 0", call_policy, ELIMIT_, P_CONC, 0, 0},
    {"create: default_concurrency UNLIMITED", call_policy, ELIMIT_, P_CONC, UNL, 0},
    {"create: default_concurrency DEFAULT", call_policy, ELIMIT_, P_CONC, DEF, 0},
    {"create: default_concurrency INT_MIN", call_policy, ELIMIT_, P_CONC, INT_MIN, 0},
    {"create: default_concurrency 1", call_policy, OK_, P_CONC, 1, 0},
    {"create: default_concurrency INT_MAX", call_policy, OK_, P_CONC, INT_MAX, 0},
    {"create: default_max_in_flight 0", call_policy, ELIMIT_, P_INFL, 0, 0},
    {"create: default_max_in_flight DEFAULT", call_policy, ELIMIT_, P_INFL, DEF, 0},
    {"create: default_max_in_flight -3", call_policy, ELIMIT_, P_INFL, -3, 0},
    {"create: default_max_in_flight INT_MIN", call_policy, ELIMIT_, P_INFL, INT_MIN, 0},
    {"create: default_max_in_flight 1", call_policy, OK_, P_INFL, 1, 0},
    {"create: default_max_in_flight UNLIMITED", call_policy, OK_, P_INFL, UNL, 0},
    {"create: default_queue_threshold DEFAULT", call_policy, ELIMIT_, P_THR, DEF, 0},
    {"create: default_queue_threshold -3", call_policy, ELIMIT_, P_THR, -3, 0},
    {"create: default_queue_threshold INT_MIN", call_policy, ELIMIT_, P_THR, INT_MIN, 0},
    {"create: default_queue_threshold 0", call_policy, OK_, P_THR, 0, 0},
    {"create: default_queue_threshold UNLIMITED", call_policy, OK_, P_THR, UNL, 0},
    {"create: global_max_in_flight 0", call_policy, ELIMIT_, P_GINFL, 0, 0},
    {"create: global_max_in_flight DEFAULT", call_policy, ELIMIT_, P_GINFL, DEF, 0},
    {"create: global_max_in_flight -3", call_policy, ELIMIT_, P_GINFL, -3, 0},
    {"create: global_max_in_flight 1", call_policy, OK_, P_GINFL, 1, 0},
    {"create: global_queue_threshold DEFAULT", call_policy, ELIMIT_, P_GTHR, DEF, 0},
    {"create: global_queue_threshold -3", call_policy, ELIMIT_, P_GTHR, -3, 0},
    {"create: global_queue_threshold 0", call_policy, OK_, P_GTHR, 0, 0},
    {"create: max_threads 0", call_policy, ELIMIT_, P_THREADS, 0, 0},
    {"create: max_threads -1", call_policy, ELIMIT_, P_THREADS, -1, 0},
    {"create: max_threads INT_MIN", call_policy, ELIMIT_, P_THREADS, INT_MIN, 0},
    {"create: max_threads 1", call_policy, OK_, P_THREADS, 1, 0},
    {"create: keep_alive_ns -1", call_policy, ELIMIT_, P_KEEPALIVE, -1, 0},
    {"create: keep_alive_ns INT64_MIN", call_policy, ELIMIT_, P_KEEPALIVE, INT64_MIN, 0},
    {"create: keep_alive_ns 0", call_policy, OK_, P_KEEPALIVE, 0, 0},
    {"create: keep_alive_ns INT64_MAX", call_policy, OK_, P_KEEPALIVE, INT64_MAX, 0},
    {"create: rejection 3 (unknown)", call_policy, GROUPCONC_EPOLICY, P_REJECTION, 3, 0},
    {"create: rejection -1 (unknown)", call_policy, GROUPCONC_EPOLICY, P_REJECTION, -1, 0},
    {"create: rejection 1000 (unknown)", call_policy, GROUPCONC_EPOLICY, P_REJECTION, 1000, 0},
    {"create: rejection DISCARD", call_policy, OK_, P_REJECTION, GROUPCONC_REJECT_DISCARD, 0},
    {"create: rejection CALLER_RUNS", call_policy, OK_, P_REJECTION, GROUPCONC_REJECT_CALLER_RUNS, 0},
    {"create: policy and table are copied", call_policy_copied, OK_, 0, 0, 0},
    /* executor_create: per-group table */
    {"table: key NULL", call_table, EINVAL_, T_KEY, K_NULL, 1},
    {"table: key empty", call_table, GROUPCONC_EKEYEMPTY, T_KEY, K_EMPTY, 1},
    {"table: key MAX_KEY_LEN+1 bytes", call_table, GROUPCONC_EKEYTOOLONG, T_KEY, K_LONG, 1},
    {"table: key MAX_KEY_LEN bytes", call_table, OK_, T_KEY, K_MAX, 1},
    {"table: key duplicates entry 0", call_table, GROUPCONC_EDUPKEY, T_KEY, K_DUP_FIRST, 2},
    {"table: key duplicates the previous entry", call_table, GROUPCONC_EDUPKEY, T_KEY, K_DUP_PREV, 2},
    {"table: key NULL in entry 0", call_table, EINVAL_, T_KEY, K_NULL, 0},
    {"table: concurrency 0", call_table, ELIMIT_, T_CONC, 0, 1},
    {"table: concurrency UNLIMITED", call_table, ELIMIT_, T_CONC, UNL, 1},
    {"table: concurrency -3", call_table, ELIMIT_, T_CONC, -3, 1},
    {"table: concurrency INT_MIN", call_table, ELIMIT_, T_CONC, INT_MIN, 2},
    {"table: concurrency DEFAULT", call_table, OK_, T_CONC, DEF, 2},
    {"table: max_in_flight 0", call_table, ELIMIT_, T_INFL, 0, 1},
    {"table: max_in_flight -3", call_table, ELIMIT_, T_INFL, -3, 1},
    {"table: max_in_flight INT_MIN", call_table, ELIMIT_, T_INFL, INT_MIN, 0},
    {"table: max_in_flight UNLIMITED", call_table, OK_, T_INFL, UNL, 1},
    {"table: max_in_flight DEFAULT", call_table, OK_, T_INFL, DEF, 1},
    {"table: queue_threshold -3", call_table, ELIMIT_, T_THR, -3, 1},
    {"table: queue_threshold INT_MIN", call_table, ELIMIT_, T_THR, INT_MIN, 2},
    {"table: queue_threshold 0", call_table, OK_, T_THR, 0, 2},
    {"table: queue_threshold UNLIMITED", call_table, OK_, T_THR, UNL, 1},
    {"table: queue_threshold DEFAULT", call_table, OK_, T_THR, DEF, 1},
    /* policy_check */
    {"policy_check: policy NULL", call_policy_check, EINVAL_, 0, 0, 0},
    {"policy_check: out_problem NULL (allowed)", call_policy_check, OK_, 1, 0, 0},
    {"policy_check: default_max_in_flight 0", call_policy_check, ELIMIT_, 2, 0, 0},
    {"policy_check: default_queue_threshold -3", call_policy_check, ELIMIT_, 3, 0, 0},
    {"policy_check: global_max_in_flight -5", call_policy_check, ELIMIT_, 4, 0, 0},
    {"policy_check: global_queue_threshold INT_MIN", call_policy_check, ELIMIT_, 5, 0, 0},
    {"policy_check: keep_alive_ns -1", call_policy_check, ELIMIT_, 6, 0, 0},
    {"policy_check: groups NULL, count 2", call_policy_check, EINVAL_, 7, 0, 0},
    {"policy_check: an entry's key NULL", call_policy_check, EINVAL_, 8, 0, 0},
    {"policy_check: an entry's max_in_flight 0", call_policy_check, ELIMIT_, 9, 0, 0},
    {"policy_check: a key twice", call_policy_check, GROUPCONC_EDUPKEY, 10, 0, 0},
    /* lifecycle */
    {"shutdown: NULL", call_shutdown_null, EINVAL_, 0, 0, 0},
    {"shutdown_graceful: NULL", call_graceful_null, EINVAL_, 0, 0, 0},
    {"destroy: NULL", call_destroy_null, EINVAL_, 0, 0, 0},
    {"shutdown: twice (idempotent)", call_shutdown_twice, OK_, 0, 0, 0},
    {"shutdown_graceful: after shutdown", call_graceful_after_shutdown, OK_, 0, 0, 0},
    {"shutdown_graceful: twice", call_graceful_twice, OK_, 0, 0, 0},
    {"shutdown: after shutdown_graceful", call_shutdown_after_graceful, OK_, 0, 0, 0},
    /* submit */
    {"submit: executor NULL", call_submit, EINVAL_, S_NULL_EX, 0, 0},
    {"submit: group NULL", call_submit, EINVAL_, S_NULL_GROUP, 0, 0},
    {"submit: fn NULL", call_submit, EINVAL_, S_NULL_FN, 0, 0},
    {"submit: group empty", call_submit, GROUPCONC_EKEYEMPTY, S_EMPTY, 0, 0},
    {"submit: group MAX_KEY_LEN+1 bytes", call_submit, GROUPCONC_EKEYTOOLONG, S_LONG, 0, 0},
    {"submit: group MAX_KEY_LEN bytes", call_submit, OK_, S_MAX, 0, 0},
    {"submit: task_id NULL", call_submit, OK_, S_NULL_ID, 0, 0},
    {"submit: out_task NULL", call_submit, OK_, S_NULL_OUT, 0, 0},
    {"submit: after shutdown", call_submit, GROUPCONC_ESHUTDOWN, S_AFTER_SHUTDOWN, 0, 0},
    {"submit: after shutdown_graceful", call_submit, GROUPCONC_ESHUTDOWN, S_AFTER_GRACEFUL, 0, 0},
    {"submit: empty group after shutdown", call_submit, GROUPCONC_EKEYEMPTY, S_EMPTY_AFTER_SHUTDOWN, 0, 0},
    {"submit: fn NULL after shutdown", call_submit, EINVAL_, S_NULL_FN_AFTER_SHUTDOWN, 0, 0},
    {"submit_spec: spec NULL", call_submit, EINVAL_, S_NULL_SPEC, 1, 0},
    {"submit_spec: executor NULL", call_submit, EINVAL_, S_NULL_EX, 1, 0},
    {"submit_spec: group NULL", call_submit, EINVAL_, S_NULL_GROUP, 1, 0},
    {"submit_spec: fn NULL", call_submit, EINVAL_, S_NULL_FN, 1, 0},
    {"submit_spec: group empty", call_submit, GROUPCONC_EKEYEMPTY, S_EMPTY, 1, 0},
    {"submit_spec: group MAX_KEY_LEN+1 bytes", call_submit, GROUPCONC_EKEYTOOLONG, S_LONG, 1, 0},
    {"submit_spec: group MAX_KEY_LEN bytes", call_submit, OK_, S_MAX, 1, 0},
    {"submit_spec: task_id NULL", call_submit, OK_, S_NULL_ID, 1, 0},
    {"submit_spec: out_task NULL", call_submit, OK_, S_NULL_OUT, 1, 0},
    {"submit_spec: after shutdown", call_submit, GROUPCONC_ESHUTDOWN, S_AFTER_SHUTDOWN, 1, 0},
    {"submit_spec: after shutdown_graceful", call_submit, GROUPCONC_ESHUTDOWN, S_AFTER_GRACEFUL, 1, 0},
    {"submit: ABORT at layer 1 (global)", call_reject_global, GROUPCONC_EREJECTED_GLOBAL, 0, 0, 0},
    {"submit: ABORT at layer 2 (bulkhead)", call_reject_bulkhead, GROUPCONC_EREJECTED_BULKHEAD, 0, 0, 0},
    {"submit: ABORT at layer 3 (concurrency)", call_reject_concurrency, GROUPCONC_EREJECTED_CONCURRENCY, 0, 0, 0},
    /* handles */
    {"wait: task NULL", call_wait_null_task, EINVAL_, 0, 0, 0},
    {"wait: out_result NULL", call_wait_null_out, EINVAL_, 0, 0, 0},
    {"wait_for: task NULL", call_wait_for_null_task, EINVAL_, 0, 0, 0},
    {"wait_for: out_result NULL", call_wait_for_null_out, EINVAL_, 0, 0, 0},
    {"wait_for: poll (0) a running task", call_wait_for_timeout, GROUPCONC_ETIMEDOUT, 0, 0, 0},
    {"wait_for: 1 ms on a running task", call_wait_for_timeout, GROUPCONC_ETIMEDOUT, 0, 1000000, 0},
    {"is_done: task NULL", call_is_done_null_task, EINVAL_, 0, 0, 0},
    {"is_done: out_done NULL", call_is_done_null_out, EINVAL_, 0, 0, 0},
    {"cancel: task NULL", call_cancel_null_task, EINVAL_, 0, 0, 0},
    {"cancel: outcome NULL (allowed)", call_cancel_null_outcome, OK_, 0, 0, 0},
    {"cancel: finished task (too late)", call_cancel_done, OK_, 0, 0, 0},
    {"on_complete: task NULL", call_on_complete_null_task, EINVAL_, 0, 0, 0},
    {"on_complete: fn NULL", call_on_complete_null_fn, EINVAL_, 0, 0, 0},
    {"on_complete: task cancelled by shutdown", call_on_complete_after_shutdown, OK_, 0, 0, 0},
    {"release: NULL", call_release_null, EINVAL_, 0, 0, 0},
    {"released running handle: release", call_released_parked, GROUPCONC_ERELEASED, R_RELEASE, 0, 0},
    {"released running handle: wait_for", call_released_parked, GROUPCONC_ERELEASED, R_WAIT_FOR, 0, 0},
    {"released running handle: is_done", call_released_parked, GROUPCONC_ERELEASED, R_IS_DONE, 0, 0},
    {"released running handle: cancel", call_released_parked, GROUPCONC_ERELEASED, R_CANCEL, 0, 0},
    {"released running handle: on_complete", call_released_parked, GROUPCONC_ERELEASED, R_ON_COMPLETE, 0, 0},
    {"released waiting handle: release", call_released_queued, GROUPCONC_ERELEASED, R_RELEASE, 0, 0},
    {"released waiting handle: wait_for", call_released_queued, GROUPCONC_ERELEASED, R_WAIT_FOR, 0, 0},
    {"released waiting handle: cancel", call_released_queued, GROUPCONC_ERELEASED, R_CANCEL, 0, 0},
    {"released waiting handle: on_complete", call_released_queued, GROUPCONC_ERELEASED, R_ON_COMPLETE, 0, 0},
    {"handles after destroy", call_handle_after_destroy, OK_, 0, 0, 0},
    {"context accessors: NULL", call_context_null, OK_, 0, 0, 0},
    /* execute_all */
    {"execute_all: executor NULL", call_execute_all, EINVAL_, X_NULL_EX, 0, 0},
    {"execute_all: tasks NULL", call_execute_all, EINVAL_, X_NULL_TASKS, 0, 0},
    {"execute_all: out_results NULL", call_execute_all, EINVAL_, X_NULL_OUT, 0, 0},
    {"execute_all: an element's group NULL", call_execute_all, EINVAL_, X_NULL_GROUP, 0, 0},
    {"execute_all: an element's fn NULL", call_execute_all, EINVAL_, X_NULL_FN, 0, 0},
    {"execute_all: an element's group empty", call_execute_all, GROUPCONC_EKEYEMPTY, X_EMPTY, 0, 0},
    {"execute_all: an element's group too long", call_execute_all, GROUPCONC_EKEYTOOLONG, X_LONG, 0, 0},
    {"execute_all: an element's group MAX_KEY_LEN bytes", call_execute_all, OK_, X_MAX, 0, 0},
    {"execute_all: count 0", call_execute_all, OK_, X_COUNT_ZERO, 0, 0},
    {"execute_all: after shutdown (elements REJECTED/ESHUTDOWN)", call_execute_all, GROUPCONC_ESHUTDOWN, X_AFTER_SHUTDOWN, 0, 0},
    /* group control */
    {"group_shutdown: executor NULL", call_shutdown_group, EINVAL_, G_NULL_EX, 0, 0},
    {"group_shutdown: group NULL", call_shutdown_group, EINVAL_, G_NULL_GROUP, 0, 0},
    {"group_shutdown: group empty", call_shutdown_group, GROUPCONC_EKEYEMPTY, G_EMPTY, 0, 0},
    {"group_shutdown: group too long", call_shutdown_group, GROUPCONC_EKEYTOOLONG, G_LONG, 0, 0},
    {"group_shutdown: unknown MAX_KEY_LEN key (no-op)", call_shutdown_group, OK_, G_MAX_UNKNOWN, 0, 0},
    {"group_shutdown: unknown key (no-op)", call_shutdown_group, OK_, G_UNKNOWN, 0, 0},
    {"group_shutdown: after shutdown", call_shutdown_group, OK_, G_AFTER_SHUTDOWN, 0, 0},
    {"group_evict: executor NULL", call_evict_group, EINVAL_, G_NULL_EX, 0, 0},
    {"group_evict: group NULL", call_evict_group, EINVAL_, G_NULL_GROUP, 0, 0},
    {"group_evict: group empty", call_evict_group, GROUPCONC_EKEYEMPTY, G_EMPTY, 0, 0},
    {"group_evict: group too long", call_evict_group, GROUPCONC_EKEYTOOLONG, G_LONG, 0, 0},
    {"group_evict: unknown MAX_KEY_LEN key (no-op)", call_evict_group, OK_, G_MAX_UNKNOWN, 0, 0},
    {"group_evict: unknown key (no-op)", call_evict_group, OK_, G_UNKNOWN, 0, 0},
    {"group_evict: known idle group", call_evict_group, OK_, G_KNOWN, 0, 0},
    {"group_evict: after shutdown", call_evict_group, OK_, G_AFTER_SHUTDOWN, 0, 0},
    {"group_stats: executor NULL", call_group_stats, EINVAL_, G_NULL_EX, 0, 0},
    {"group_stats: group NULL", call_group_stats, EINVAL_, G_NULL_GROUP, 0, 0},
    {"group_stats: out NULL", call_group_stats_null_out, EINVAL_, 0, 0, 0},
    {"group_stats: group empty", call_group_stats, GROUPCONC_EKEYEMPTY, G_EMPTY, 0, 0},
    {"group_stats: group too long", call_group_stats, GROUPCONC_EKEYTOOLONG, G_LONG, 0, 0},
    {"group_stats: unknown MAX_KEY_LEN key", call_group_stats, GROUPCONC_ENOTFOUND, G_MAX_UNKNOWN, 0, 0},
    {"group_stats: unknown key", call_group_stats, GROUPCONC_ENOTFOUND, G_UNKNOWN, 0, 0},
    {"group_stats: known key", call_group_stats, OK_, G_KNOWN, 0, 0},
    {"group_stats: after shutdown", call_group_stats, OK_, G_AFTER_SHUTDOWN, 0, 0},
    {"executor_stats: executor NULL", call_executor_stats_null_ex, EINVAL_, 0, 0, 0},
    {"executor_stats: out NULL", call_executor_stats_null_out, EINVAL_, 0, 0, 0},
    {"executor_stats: after shutdown", call_executor_stats_after_shutdown, OK_, 0, 0, 0},
    {"group_keys_get: executor NULL", call_group_keys, EINVAL_, K_ARG_NULL_EX, 0, 0},
    {"group_keys_get: out_keys NULL", call_group_keys, EINVAL_, K_ARG_NULL_KEYS, 0, 0},
    {"group_keys_get: out_count NULL", call_group_keys, EINVAL_, K_ARG_NULL_COUNT, 0, 0},
    {"group_keys_get: no groups", call_group_keys, OK_, K_ARG_EMPTY_EXECUTOR, 0, 0},
    {"group_keys_free: NULL", call_group_keys, OK_, K_ARG_FREE_NULL, 0, 0},
    /* diagnostics */
    {"error codes: values, texts, names distinct", call_codes_distinct, OK_, 0, 0, 0},
    {"strerror/errname: unknown 1", call_unknown_code, OK_, 0, 1, 0},
    {"strerror/errname: unknown -18", call_unknown_code, OK_, 0, -18, 0},
    {"strerror/errname: unknown -1000", call_unknown_code, OK_, 0, -1000, 0},
    {"strerror/errname: unknown INT_MIN", call_unknown_code, OK_, 0, INT_MIN, 0},
    {"strerror/errname: unknown INT_MAX", call_unknown_code, OK_, 0, INT_MAX, 0},
    {"status_name: every status, unknown values", call_status_names, OK_, 0, 0, 0},
    {"cancel_outcome/event_type/rejection_policy names", call_enum_names, OK_, 0, 0, 0},
    {"version, MAX_KEY_LEN default", call_version, OK_, 0, 0, 0},
    /* last: if the release is not detected this blocks, and the watchdog aborts the program */
    {"released running handle: wait", call_released_parked, GROUPCONC_ERELEASED, R_WAIT, 0, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])

int main(void) {
    /* one cmocka test per row, plus one per error code (strerror/errname against the X-macro list) */
    static row code_rows[NCODES];
    static char code_names[NCODES][64];
    static struct CMUnitTest tests[NROWS + NCODES];
    size_t n = 0;
    for (size_t i = 0; i < NROWS; i++) {
        tests[n].name = rows[i].name;
        tests[n].test_func = run_row;
        tests[n].setup_func = fixture_setup;
        tests[n].teardown_func = fixture_teardown;
        tests[n].initial_state = (void *)(uintptr_t)&rows[i];
        n++;
    }
    for (size_t i = 0; i < NCODES; i++) {
        snprintf(code_names[i], sizeof code_names[i], "strerror/errname: %s", codes[i].name);
        code_rows[i].name = code_names[i];
        code_rows[i].call = call_code_text;
        code_rows[i].expect = GROUPCONC_OK;
        code_rows[i].entry = (int)i;
        tests[n].name = code_names[i];
        tests[n].test_func = run_row;
        tests[n].setup_func = fixture_setup;
        tests[n].teardown_func = fixture_teardown;
        tests[n].initial_state = &code_rows[i];
        n++;
    }
    return _cmocka_run_group_tests("errors", tests, n, NULL, NULL);
}
