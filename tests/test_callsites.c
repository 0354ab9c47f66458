/* test_callsites.c - where a call may come from, and where user code runs (issue 23, items 4, 11).

   Calls from a resolver (item 4). The resolver runs under its executor's key-table lock (and, on
   some routes, its executor lock too). The rule, enforced in one place (GROUPCONC__NOT_IN_RESOLVER):
   from a resolver, every call that takes this executor or one of its gates, scopes, handles,
   deferred tasks, permits or fleet requests returns GROUPCONC_EDEADLK and does nothing; pure
   functions (names, strerror, version, policy default / check, the limits "keep" builders) work,
   and so do calls on another executor (and on a standalone gate, and on a finished task's handle,
   which belongs to no executor any more). One row per public function (a few functions have two:
   a live and a finished handle, a gate with and without a group), run from a resolver reached by
   each of the four routes that create a group: a plain submit (the inbox: key-table lock only), a
   submit under a queue threshold (executor lock too), an executor gate's try-acquire, and
   groupconc_group_pause of a new key. A row that hangs (the bug) is reported by a watchdog with its
   name; after each route the fixture is checked untouched (not shut down or paused, the parked,
   deferred and fleet tasks still pending, the gate permit still held, the scope open with no fork).

   Where callbacks run (item 11). The read-only calls (group_stats_get, executor_stats_get,
   group_keys_get, gate_stats_get, executor_dump, executor_dump_file) and gate_try_acquire never run
   another task's completion (its COMPLETED event, completion callbacks) on the calling thread. The
   state where they used to: a worker ran a task, published it in its batch and is held there (the
   test hook GROUPCONC_TEST_TASK_PUBLISHED blocks it) for longer than a batch lasts, with a task in
   the inbox. Each call is made on the main thread in that state: the held task's completion has not
   run there (nor anywhere: the only worker is held), and runs on the worker once the hook lets go.
   A last test checks that what such a call leaves is still finished promptly by an idle worker. */
#include <stdatomic.h>
static void cs_published(const void *task);
#define GROUPCONC_TEST_TASK_PUBLISHED(task) cs_published((const void *)(task))
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- the fixture of the resolver rows ------------------------------------------------------------ */

enum { R_SUBMIT, R_THRESHOLD, R_GATE, R_PAUSE, R_COUNT };
static const char *const route_name[R_COUNT] = {"plain submit", "submit under a queue threshold",
                                                "executor gate try-acquire", "group_pause of a new key"};

typedef struct cs_row cs_row;

typedef struct cs_fx {
    int route;
    groupconc_executor *ex;       /* its resolver runs the rows */
    groupconc_executor *other;    /* another executor: calls on it work */
#ifndef GROUPCONC_NO_GATE
    groupconc_gate *gate;         /* an executor gate of ex, holding `permit` in group "g" */
    groupconc_permit permit;
#endif
#ifndef GROUPCONC_NO_SCOPES
    groupconc_scope *scope;       /* opened by the main thread, no fork */
#endif
    groupconc_task *parked;       /* running in "p", parked on `go` */
    groupconc_context *parked_ctx;
    groupconc_task *done;         /* finished */
    groupconc_task *deferred_task;
    groupconc_deferred *deferred; /* not completed */
    groupconc_task *fleet_task;   /* in "held": its request kept by the provider, unanswered */
    _Atomic(groupconc_fleet_request *) request;
    atomic_int leases_granted, leases_back;
    tu_latch asked;               /* the provider got the request of "held" */
    atomic_int callbacks;         /* the on_complete rows' callback */
    tu_latch started;             /* parked and deferred bodies started */
    tu_latch go;
    FILE *file;                   /* for executor_dump_file */
    const cs_row *row;            /* the row the resolver runs (NULL: none) */
    atomic_int row_rc, row_ran;
} cs_fx;

struct cs_row {
    const char *name;
    int (*call)(cs_fx *f);
    int want;
};

#define CS_WRONG (-9999) /* a "works" row saw something else than it should */

#ifndef GROUPCONC_NO_DUMP
static char cs_buf[1 << 16];
#endif

static int cs_resolver(const char *group, int *out_concurrency, void *user_data) {
    cs_fx *f = (cs_fx *)user_data;
    *out_concurrency = 4;
    if (strncmp(group, "probe-", 6) == 0 && f->row) {
        atomic_store(&f->row_rc, f->row->call(f));
        atomic_fetch_add(&f->row_ran, 1);
    }
    return 0;
}

static void cs_acquire(void *user_data, groupconc_fleet_request *request, const char *group) {
    cs_fx *f = (cs_fx *)user_data;
    if (strcmp(group, "held") == 0) {
        atomic_store(&f->request, request);
        tu_latch_count_down(&f->asked);
        return;
    }
    atomic_fetch_add(&f->leases_granted, 1);
    (void)groupconc_fleet_answer(request, GROUPCONC_FLEET_GRANTED, 1);
}

static void cs_release(void *user_data, const char *group, uint64_t lease) {
    (void)group;
    (void)lease;
    atomic_fetch_add(&((cs_fx *)user_data)->leases_back, 1);
}

static int cs_parked_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    cs_fx *f = (cs_fx *)user_data;
    (void)out_value;
    f->parked_ctx = ctx;
    tu_latch_count_down(&f->started);
    (void)tu_latch_wait(&f->go);
    return 0;
}

static int cs_defer_fn(groupconc_context *ctx, void **out_value, void *user_data) {
    cs_fx *f = (cs_fx *)user_data;
    groupconc_deferred *d = NULL;
    (void)out_value;
    if (groupconc_context_defer(ctx, &d) != GROUPCONC_OK) return 1;
    f->deferred = d;
    tu_latch_count_down(&f->started);
    return GROUPCONC_TASK_PENDING;
}

static void cs_count_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)result;
    atomic_fetch_add(&((cs_fx *)user_data)->callbacks, 1);
}

static cs_fx F;

static void cs_setup(int route) {
    groupconc_policy p = groupconc_policy_default();
#ifndef GROUPCONC_NO_GATE
    groupconc_gate_config gc;
#endif
    groupconc_result r;
    memset(&F, 0, sizeof F);
    F.route = route;
    atomic_init(&F.request, NULL);
    tu_latch_init(&F.started, 2);
    tu_latch_init(&F.go, 1);
    tu_latch_init(&F.asked, 1);
    p.max_threads = 4;
    p.resolver = cs_resolver;
    p.resolver_user_data = &F;
    p.fleet.acquire = cs_acquire;
    p.fleet.release = cs_release;
    p.fleet.user_data = &F;
    if (route == R_THRESHOLD) p.default_queue_threshold = 1000; /* every submit takes the lock */
    F.ex = tu_executor(&p);
    p = groupconc_policy_default();
    p.max_threads = 2;
    F.other = tu_executor(&p);
#ifndef GROUPCONC_NO_GATE
    memset(&gc, 0, sizeof gc);
    gc.executor = F.ex;
    assert_int_equal(groupconc_gate_create(&gc, &F.gate), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_try_acquire(F.gate, "g", &F.permit), GROUPCONC_OK);
#endif
#ifndef GROUPCONC_NO_SCOPES
    assert_int_equal(groupconc_scope_open(F.ex, NULL, &F.scope), GROUPCONC_OK);
#endif
    F.parked = tu_submit(F.ex, "p", "parked", cs_parked_fn, &F);
    F.deferred_task = tu_submit(F.ex, "d", "deferred", cs_defer_fn, &F);
    assert_true(tu_latch_wait(&F.started));
    F.done = tu_submit(F.ex, "x", "done", tu_noop_fn, NULL);
    r = tu_wait(F.done);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    F.fleet_task = tu_submit(F.ex, "held", "fleet", tu_noop_fn, NULL);
    assert_true(tu_latch_wait(&F.asked));
    assert_non_null(atomic_load(&F.request));
    F.file = tmpfile();
    assert_non_null(F.file);
}

/* Everything as the setup left it: no row did anything. */
static void cs_check_untouched(void) {
    groupconc_executor_stats xs;
#ifndef GROUPCONC_NO_GATE
    groupconc_gate_stats gs;
#endif
    groupconc_group_stats ps;
    bool done = true;
    memset(&xs, 0, sizeof xs);
    assert_int_equal(groupconc_executor_stats_get(F.ex, &xs), GROUPCONC_OK);
    assert_false(xs.shutdown);
    assert_false(xs.paused);
    ps = tu_gstats(F.ex, "p");
    assert_false(ps.paused);
    assert_int_equal(ps.running, 1);
    assert_int_equal(groupconc_task_is_done(F.parked, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(groupconc_task_is_done(F.deferred_task, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(groupconc_task_is_done(F.fleet_task, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(groupconc_task_is_done(F.done, &done), GROUPCONC_OK);
    assert_true(done);
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_gate_stats_get(F.gate, NULL, &gs), GROUPCONC_OK);
    assert_int_equal(gs.in_flight, 1);
#endif
#ifndef GROUPCONC_NO_SCOPES
    assert_int_equal(groupconc_scope_fork_count(F.scope), 0);
#endif
}

static void cs_teardown(void) {
    groupconc_result r;
    atomic_fetch_add(&F.leases_granted, 1);
    assert_int_equal(groupconc_fleet_answer(atomic_load(&F.request), GROUPCONC_FLEET_GRANTED, 1),
                     GROUPCONC_OK);
    tu_latch_open(&F.go);
    assert_int_equal(groupconc_deferred_complete(F.deferred, 0, NULL), GROUPCONC_OK);
    r = tu_wait(F.parked);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    r = tu_wait(F.deferred_task);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    r = tu_wait(F.fleet_task);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(F.parked), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(F.deferred_task), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(F.fleet_task), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(F.done), GROUPCONC_OK);
#ifndef GROUPCONC_NO_GATE
    assert_int_equal(groupconc_permit_release(&F.permit, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_destroy(F.gate), GROUPCONC_OK);
#endif
#ifndef GROUPCONC_NO_SCOPES
    assert_int_equal(groupconc_scope_join(F.scope), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_close(F.scope), GROUPCONC_OK);
#endif
    assert_int_equal(groupconc_executor_destroy(F.ex), GROUPCONC_OK);
    if (F.other) assert_int_equal(groupconc_executor_destroy(F.other), GROUPCONC_OK);
    assert_int_equal(atomic_load(&F.leases_back), atomic_load(&F.leases_granted)); /* all came back */
    fclose(F.file);
    tu_latch_destroy(&F.asked);
    tu_latch_destroy(&F.started);
    tu_latch_destroy(&F.go);
}

/* ---- the rows: calls on this executor (EDEADLK) --------------------------------------------------- */

static groupconc_task_spec cs_spec(const char *group) {
    groupconc_task_spec s;
    memset(&s, 0, sizeof s);
    s.group = group;
    s.fn = tu_noop_fn;
    return s;
}

static int r_shutdown(cs_fx *f) { return groupconc_executor_shutdown(f->ex); }
static int r_graceful0(cs_fx *f) { return groupconc_executor_shutdown_graceful(f->ex, 0); }
static int r_graceful(cs_fx *f) { return groupconc_executor_shutdown_graceful(f->ex, GROUPCONC_FOREVER); }
static int r_destroy(cs_fx *f) { return groupconc_executor_destroy(f->ex); }
static int r_submit(cs_fx *f) { return groupconc_submit(f->ex, "p", NULL, tu_noop_fn, NULL, NULL); }
static int r_submit_spec(cs_fx *f) {
    groupconc_task_spec s = cs_spec("p");
    return groupconc_submit_spec(f->ex, &s, NULL);
}
static int r_execute_all(cs_fx *f) {
    groupconc_task_spec s = cs_spec("p");
    groupconc_result res;
    return groupconc_execute_all(f->ex, &s, 1, GROUPCONC_FOREVER, &res);
}
static int r_wait(cs_fx *f) {
    groupconc_result res;
    return groupconc_task_wait(f->parked, &res);
}
static int r_wait_for(cs_fx *f) {
    groupconc_result res;
    return groupconc_task_wait_for(f->parked, 0, &res);
}
static int r_is_done(cs_fx *f) {
    bool d;
    return groupconc_task_is_done(f->parked, &d);
}
static int r_cancel(cs_fx *f) { return groupconc_task_cancel(f->parked, NULL); }
static int r_on_complete(cs_fx *f) { return groupconc_task_on_complete(f->parked, cs_count_cb, f); }
static int r_release(cs_fx *f) { return groupconc_task_release(f->parked); }
static int r_defer(cs_fx *f) {
    groupconc_deferred *d = NULL;
    return groupconc_context_defer(f->parked_ctx, &d);
}
static int r_blocking(cs_fx *f) { return groupconc_context_blocking(f->parked_ctx); }
static int r_deferred_complete(cs_fx *f) { return groupconc_deferred_complete(f->deferred, 0, NULL); }
static int r_group_shutdown(cs_fx *f) { return groupconc_group_shutdown(f->ex, "p"); }
static int r_group_evict(cs_fx *f) { return groupconc_group_evict(f->ex, "p"); }
static int r_group_stats(cs_fx *f) {
    groupconc_group_stats s;
    return groupconc_group_stats_get(f->ex, "p", &s);
}
static int r_executor_stats(cs_fx *f) {
    groupconc_executor_stats s;
    return groupconc_executor_stats_get(f->ex, &s);
}
static int r_keys(cs_fx *f) {
    char **keys = NULL;
    size_t n = 0;
    return groupconc_group_keys_get(f->ex, &keys, &n);
}
static int r_group_limits(cs_fx *f) {
    groupconc_group_limits l = groupconc_group_limits_keep("p");
    return groupconc_group_limits_set(f->ex, &l);
}
static int r_executor_limits(cs_fx *f) {
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    return groupconc_executor_limits_set(f->ex, &l);
}
static int r_group_pause(cs_fx *f) { return groupconc_group_pause(f->ex, "p"); }
static int r_group_resume(cs_fx *f) { return groupconc_group_resume(f->ex, "p"); }
static int r_executor_pause(cs_fx *f) { return groupconc_executor_pause(f->ex); }
static int r_executor_resume(cs_fx *f) { return groupconc_executor_resume(f->ex); }
#ifndef GROUPCONC_NO_GATE
static int r_gate_create(cs_fx *f) {
    groupconc_gate_config gc;
    groupconc_gate *g = NULL;
    memset(&gc, 0, sizeof gc);
    gc.executor = f->ex;
    return groupconc_gate_create(&gc, &g);
}
static int r_gate_destroy(cs_fx *f) { return groupconc_gate_destroy(f->gate); }
static int r_gate_acquire(cs_fx *f) {
    groupconc_permit p;
    return groupconc_gate_try_acquire(f->gate, "g", &p);
}
static int r_permit_release(cs_fx *f) {
    return groupconc_permit_release(&f->permit, GROUPCONC_RELEASE_SUCCESS, 0);
}
static int r_gate_stats(cs_fx *f) {
    groupconc_gate_stats s;
    return groupconc_gate_stats_get(f->gate, NULL, &s);
}
static int r_gate_stats_group(cs_fx *f) {
    groupconc_gate_stats s;
    return groupconc_gate_stats_get(f->gate, "g", &s);
}
#endif
#ifndef GROUPCONC_NO_SCOPES
static int r_scope_open(cs_fx *f) {
    groupconc_scope *s = NULL;
    return groupconc_scope_open(f->ex, NULL, &s);
}
static int r_scope_fork(cs_fx *f) {
    groupconc_task_spec s = cs_spec("p");
    return groupconc_scope_fork(f->scope, &s, NULL);
}
static int r_scope_join(cs_fx *f) { return groupconc_scope_join(f->scope); }
static int r_scope_join_for(cs_fx *f) { return groupconc_scope_join_for(f->scope, 0); }
static int r_scope_shutdown(cs_fx *f) { return groupconc_scope_shutdown(f->scope); }
static int r_scope_close(cs_fx *f) { return groupconc_scope_close(f->scope); }
static int r_scope_result(cs_fx *f) {
    groupconc_result res;
    return groupconc_scope_result(f->scope, 0, &res);
}
static int r_scope_first(cs_fx *f) {
    size_t i;
    return groupconc_scope_first(f->scope, &i);
}
static int r_scope_first_set(cs_fx *f) { return groupconc_scope_first_set(f->scope, 0); }
#endif
#ifndef GROUPCONC_NO_DUMP
static int r_dump(cs_fx *f) { return groupconc_executor_dump(f->ex, cs_buf, sizeof cs_buf, NULL); }
static int r_dump_file(cs_fx *f) { return groupconc_executor_dump_file(f->ex, f->file); }
#endif
static int r_fleet_answer(cs_fx *f) {
    return groupconc_fleet_answer(atomic_load(&f->request), GROUPCONC_FLEET_GRANTED, 7);
}
static int r_fleet_notify(cs_fx *f) { return groupconc_fleet_notify(f->ex, "held"); }
static int r_fleet_notify_all(cs_fx *f) { return groupconc_fleet_notify(f->ex, NULL); }
static int r_fleet_report(cs_fx *f) { return groupconc_fleet_report(f->ex, "p", GROUPCONC_EFLEET_RENEW); }

/* ---- the rows that work: pure functions, finished handles, other executors, standalone gates ---- */

#define CS_CHECK(cond) ((cond) ? GROUPCONC_OK : CS_WRONG)

static int r_policy_default(cs_fx *f) {
    groupconc_policy p = groupconc_policy_default();
    (void)f;
    return CS_CHECK(p.default_concurrency == 1);
}
static int r_policy_check(cs_fx *f) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_policy_problem pr;
    (void)f;
    return groupconc_policy_check(&p, &pr);
}
#define CS_PURE(fn, cond) \
    static int fn(cs_fx *f) {   \
        (void)f;                \
        return CS_CHECK(cond);  \
    }
CS_PURE(r_strerror, strcmp(groupconc_strerror(GROUPCONC_EDEADLK), "unknown error code") != 0)
CS_PURE(r_errname, strcmp(groupconc_errname(GROUPCONC_EDEADLK), "GROUPCONC_EDEADLK") == 0)
CS_PURE(r_version, strcmp(groupconc_version(), GROUPCONC_VERSION_STRING) == 0)
CS_PURE(r_status_name, strcmp(groupconc_status_name(GROUPCONC_STATUS_SUCCESS), "SUCCESS") == 0)
CS_PURE(r_cancel_outcome_name, strcmp(groupconc_cancel_outcome_name(GROUPCONC_CANCEL_DEQUEUED), "DEQUEUED") == 0)
CS_PURE(r_event_type_name, strcmp(groupconc_event_type_name(GROUPCONC_EVENT_COMPLETED), "COMPLETED") == 0)
CS_PURE(r_rejection_policy_name,
        strcmp(groupconc_rejection_policy_name(GROUPCONC_REJECT_CALLER_RUNS), "CALLER_RUNS") == 0)
#ifndef GROUPCONC_NO_GATE
CS_PURE(r_release_kind_name, strcmp(groupconc_release_kind_name(GROUPCONC_RELEASE_FAILURE), "FAILURE") == 0)
CS_PURE(r_gate_event_type_name, strcmp(groupconc_gate_event_type_name(GROUPCONC_GATE_ADMITTED), "ADMITTED") == 0)
#endif
#ifndef GROUPCONC_NO_SCOPES
CS_PURE(r_scope_policy_name, strcmp(groupconc_scope_policy_name(GROUPCONC_SCOPE_CUSTOM), "CUSTOM") == 0)
#endif
CS_PURE(r_group_limits_keep, groupconc_group_limits_keep("p").concurrency == GROUPCONC_KEEP)
CS_PURE(r_executor_limits_keep, groupconc_executor_limits_keep().global_max_running == GROUPCONC_KEEP)
static int r_keys_free(cs_fx *f) {
    (void)f;
    groupconc_group_keys_free(NULL);
    return GROUPCONC_OK;
}
static int r_context_is_cancelled(cs_fx *f) { return CS_CHECK(!groupconc_context_is_cancelled(f->parked_ctx)); }
static int r_context_group(cs_fx *f) { return CS_CHECK(strcmp(groupconc_context_group(f->parked_ctx), "p") == 0); }
static int r_context_task_id(cs_fx *f) {
    return CS_CHECK(strcmp(groupconc_context_task_id(f->parked_ctx), "parked") == 0);
}
static int r_context_executor(cs_fx *f) { return CS_CHECK(groupconc_context_executor(f->parked_ctx) == f->ex); }
static int r_deferred_is_cancelled(cs_fx *f) { return CS_CHECK(!groupconc_deferred_is_cancelled(f->deferred)); }
#ifndef GROUPCONC_NO_SCOPES
static int r_fork_count(cs_fx *f) { return CS_CHECK(groupconc_scope_fork_count(f->scope) == 0); }
#endif
static int r_done_is_done(cs_fx *f) {
    bool d = false;
    int rc = groupconc_task_is_done(f->done, &d);
    return rc != GROUPCONC_OK ? rc : CS_CHECK(d);
}
static int r_done_wait(cs_fx *f) {
    groupconc_result res;
    int rc = groupconc_task_wait(f->done, &res);
    return rc != GROUPCONC_OK ? rc : CS_CHECK(res.status == GROUPCONC_STATUS_SUCCESS);
}
static int r_done_wait_for(cs_fx *f) {
    groupconc_result res;
    int rc = groupconc_task_wait_for(f->done, 0, &res);
    return rc != GROUPCONC_OK ? rc : CS_CHECK(res.status == GROUPCONC_STATUS_SUCCESS);
}
static int r_done_cancel(cs_fx *f) {
    groupconc_cancel_outcome out = GROUPCONC_CANCEL_DEQUEUED;
    int rc = groupconc_task_cancel(f->done, &out);
    return rc != GROUPCONC_OK ? rc : CS_CHECK(out == GROUPCONC_CANCEL_TOO_LATE);
}
static int r_done_on_complete(cs_fx *f) {
    int before = atomic_load(&f->callbacks);
    int rc = groupconc_task_on_complete(f->done, cs_count_cb, f); /* runs it at once, here */
    return rc != GROUPCONC_OK ? rc : CS_CHECK(atomic_load(&f->callbacks) == before + 1);
}
static int r_new_executor(cs_fx *f) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *x = NULL;
    int rc;
    (void)f;
    if ((rc = groupconc_executor_create(&p, &x)) != GROUPCONC_OK) return rc;
    return groupconc_executor_destroy(x);
}
static int r_other_tasks(cs_fx *f) {
    groupconc_task *t = NULL;
    groupconc_result res;
    groupconc_group_stats gs;
    groupconc_executor_stats xs;
    groupconc_task_spec s = cs_spec("y");
    char **keys = NULL;
    size_t n = 0;
    int rc;
    if ((rc = groupconc_submit(f->other, "y", "t", tu_noop_fn, NULL, &t)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_task_wait_for(t, TU_TIMEOUT_NS, &res)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_task_release(t)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_execute_all(f->other, &s, 1, TU_TIMEOUT_NS, &res)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_group_stats_get(f->other, "y", &gs)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_executor_stats_get(f->other, &xs)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_group_keys_get(f->other, &keys, &n)) != GROUPCONC_OK) return rc;
    groupconc_group_keys_free(keys);
    if ((rc = groupconc_group_pause(f->other, "y")) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_group_resume(f->other, "y")) != GROUPCONC_OK) return rc;
#ifndef GROUPCONC_NO_DUMP
    if ((rc = groupconc_executor_dump(f->other, cs_buf, sizeof cs_buf, NULL)) != GROUPCONC_OK) return rc;
#endif
    return CS_CHECK(gs.succeeded == 2 && xs.completed == 2 && n == 1);
}
static int r_other_gate_scope(cs_fx *f) {
#ifndef GROUPCONC_NO_GATE
    groupconc_gate_config gc;
    groupconc_gate *g = NULL;
    groupconc_permit p;
#endif
#ifndef GROUPCONC_NO_SCOPES
    groupconc_scope *s = NULL;
    groupconc_task_spec spec = cs_spec("z");
#endif
    int rc = GROUPCONC_OK;
    (void)f;
#ifndef GROUPCONC_NO_GATE
    memset(&gc, 0, sizeof gc);
    gc.executor = f->other;
    if ((rc = groupconc_gate_create(&gc, &g)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_gate_try_acquire(g, "z", &p)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_gate_destroy(g)) != GROUPCONC_OK) return rc;
#endif
#ifndef GROUPCONC_NO_SCOPES
    if ((rc = groupconc_scope_open(f->other, NULL, &s)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_scope_fork(s, &spec, NULL)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_scope_join(s)) != GROUPCONC_OK) return rc;
    rc = groupconc_scope_close(s);
#endif
    return rc;
}
static int r_other_shutdown_destroy(cs_fx *f) {
    int rc = groupconc_executor_shutdown_graceful(f->other, GROUPCONC_FOREVER);
    if (rc != GROUPCONC_OK) return rc;
    rc = groupconc_executor_destroy(f->other);
    if (rc == GROUPCONC_OK) f->other = NULL;
    return rc;
}
#ifndef GROUPCONC_NO_GATE
static int r_standalone_gate(cs_fx *f) {
    groupconc_gate_config gc;
    groupconc_gate *g = NULL;
    groupconc_gate_stats s;
    groupconc_permit p;
    int rc;
    (void)f;
    memset(&gc, 0, sizeof gc);
    gc.limit = 1;
    if ((rc = groupconc_gate_create(&gc, &g)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_gate_try_acquire(g, NULL, &p)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_gate_stats_get(g, NULL, &s)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0)) != GROUPCONC_OK) return rc;
    if ((rc = groupconc_gate_destroy(g)) != GROUPCONC_OK) return rc;
    return CS_CHECK(s.in_flight == 1);
}
#endif

static const cs_row cs_rows[] = {
    /* this executor, its handles, deferred tasks, gates, permits, scopes, requests: EDEADLK */
    {"executor_shutdown", r_shutdown, GROUPCONC_EDEADLK},
    {"executor_shutdown_graceful(0)", r_graceful0, GROUPCONC_EDEADLK},
    {"executor_shutdown_graceful(FOREVER)", r_graceful, GROUPCONC_EDEADLK},
    {"executor_destroy", r_destroy, GROUPCONC_EDEADLK},
    {"submit", r_submit, GROUPCONC_EDEADLK},
    {"submit_spec", r_submit_spec, GROUPCONC_EDEADLK},
    {"execute_all", r_execute_all, GROUPCONC_EDEADLK},
    {"task_wait (a running task)", r_wait, GROUPCONC_EDEADLK},
    {"task_wait_for (a running task)", r_wait_for, GROUPCONC_EDEADLK},
    {"task_is_done (a running task)", r_is_done, GROUPCONC_EDEADLK},
    {"task_cancel (a running task)", r_cancel, GROUPCONC_EDEADLK},
    {"task_on_complete (a running task)", r_on_complete, GROUPCONC_EDEADLK},
    {"task_release (a running task)", r_release, GROUPCONC_EDEADLK},
    {"context_defer", r_defer, GROUPCONC_EDEADLK},
    {"context_blocking", r_blocking, GROUPCONC_EDEADLK},
    {"deferred_complete", r_deferred_complete, GROUPCONC_EDEADLK},
    {"group_shutdown", r_group_shutdown, GROUPCONC_EDEADLK},
    {"group_evict", r_group_evict, GROUPCONC_EDEADLK},
    {"group_stats_get", r_group_stats, GROUPCONC_EDEADLK},
    {"executor_stats_get", r_executor_stats, GROUPCONC_EDEADLK},
    {"group_keys_get", r_keys, GROUPCONC_EDEADLK},
    {"group_limits_set", r_group_limits, GROUPCONC_EDEADLK},
    {"executor_limits_set", r_executor_limits, GROUPCONC_EDEADLK},
    {"group_pause", r_group_pause, GROUPCONC_EDEADLK},
    {"group_resume", r_group_resume, GROUPCONC_EDEADLK},
    {"executor_pause", r_executor_pause, GROUPCONC_EDEADLK},
    {"executor_resume", r_executor_resume, GROUPCONC_EDEADLK},
#ifndef GROUPCONC_NO_GATE
    {"gate_create (executor gate)", r_gate_create, GROUPCONC_EDEADLK},
    {"gate_destroy", r_gate_destroy, GROUPCONC_EDEADLK},
    {"gate_try_acquire", r_gate_acquire, GROUPCONC_EDEADLK},
    {"permit_release", r_permit_release, GROUPCONC_EDEADLK},
    {"gate_stats_get (whole gate)", r_gate_stats, GROUPCONC_EDEADLK},
    {"gate_stats_get (a group)", r_gate_stats_group, GROUPCONC_EDEADLK},
#endif
#ifndef GROUPCONC_NO_SCOPES
    {"scope_open", r_scope_open, GROUPCONC_EDEADLK},
    {"scope_fork", r_scope_fork, GROUPCONC_EDEADLK},
    {"scope_join", r_scope_join, GROUPCONC_EDEADLK},
    {"scope_join_for", r_scope_join_for, GROUPCONC_EDEADLK},
    {"scope_shutdown", r_scope_shutdown, GROUPCONC_EDEADLK},
    {"scope_close", r_scope_close, GROUPCONC_EDEADLK},
    {"scope_result", r_scope_result, GROUPCONC_EDEADLK},
    {"scope_first", r_scope_first, GROUPCONC_EDEADLK},
    {"scope_first_set", r_scope_first_set, GROUPCONC_EDEADLK},
#endif
#ifndef GROUPCONC_NO_DUMP
    {"executor_dump", r_dump, GROUPCONC_EDEADLK},
    {"executor_dump_file", r_dump_file, GROUPCONC_EDEADLK},
#endif
    {"fleet_answer", r_fleet_answer, GROUPCONC_EDEADLK},
    {"fleet_notify (a group)", r_fleet_notify, GROUPCONC_EDEADLK},
    {"fleet_notify (all)", r_fleet_notify_all, GROUPCONC_EDEADLK},
    {"fleet_report", r_fleet_report, GROUPCONC_EDEADLK},
    /* work */
    {"policy_default", r_policy_default, GROUPCONC_OK},
    {"policy_check", r_policy_check, GROUPCONC_OK},
    {"strerror", r_strerror, GROUPCONC_OK},
    {"errname", r_errname, GROUPCONC_OK},
    {"version", r_version, GROUPCONC_OK},
    {"status_name", r_status_name, GROUPCONC_OK},
    {"cancel_outcome_name", r_cancel_outcome_name, GROUPCONC_OK},
    {"event_type_name", r_event_type_name, GROUPCONC_OK},
    {"rejection_policy_name", r_rejection_policy_name, GROUPCONC_OK},
#ifndef GROUPCONC_NO_GATE
    {"release_kind_name", r_release_kind_name, GROUPCONC_OK},
    {"gate_event_type_name", r_gate_event_type_name, GROUPCONC_OK},
#endif
#ifndef GROUPCONC_NO_SCOPES
    {"scope_policy_name", r_scope_policy_name, GROUPCONC_OK},
#endif
    {"group_limits_keep", r_group_limits_keep, GROUPCONC_OK},
    {"executor_limits_keep", r_executor_limits_keep, GROUPCONC_OK},
    {"group_keys_free", r_keys_free, GROUPCONC_OK},
    {"context_is_cancelled", r_context_is_cancelled, GROUPCONC_OK},
    {"context_group", r_context_group, GROUPCONC_OK},
    {"context_task_id", r_context_task_id, GROUPCONC_OK},
    {"context_executor", r_context_executor, GROUPCONC_OK},
    {"deferred_is_cancelled", r_deferred_is_cancelled, GROUPCONC_OK},
#ifndef GROUPCONC_NO_SCOPES
    {"scope_fork_count", r_fork_count, GROUPCONC_OK},
#endif
    {"task_is_done (a finished task)", r_done_is_done, GROUPCONC_OK},
    {"task_wait (a finished task)", r_done_wait, GROUPCONC_OK},
    {"task_wait_for (a finished task)", r_done_wait_for, GROUPCONC_OK},
    {"task_cancel (a finished task: TOO_LATE)", r_done_cancel, GROUPCONC_OK},
    {"task_on_complete (a finished task: runs at once)", r_done_on_complete, GROUPCONC_OK},
    {"executor_create and destroy of a new executor", r_new_executor, GROUPCONC_OK},
    {"another executor: submit, wait, release, execute_all, stats, keys, pause, resume, dump",
     r_other_tasks, GROUPCONC_OK},
    {"another executor: gate create, try_acquire, permit_release, destroy; scope open, fork, join, close",
     r_other_gate_scope, GROUPCONC_OK},
#ifndef GROUPCONC_NO_GATE
    {"a standalone gate: create, try_acquire, stats, permit_release, destroy", r_standalone_gate, GROUPCONC_OK},
#endif
    {"another executor: shutdown_graceful, destroy", r_other_shutdown_destroy, GROUPCONC_OK},
};

/* ---- watchdog: a row that hangs is named, not waited for ------------------------------------------ */

static _Atomic(const char *) cs_wd_row;
static atomic_llong cs_wd_since;
static atomic_bool cs_wd_stop;

static int64_t cs_hang_ns(void) {
    const char *ms = getenv("CS_HANG_MS");
    return ms ? (int64_t)atoll(ms) * TU_MS : TU_TIMEOUT_NS;
}

static void cs_watchdog(void *arg) {
    (void)arg;
    while (!atomic_load(&cs_wd_stop)) {
        long long since = atomic_load(&cs_wd_since);
        if (since && tu_now_ns() - since > cs_hang_ns()) {
            fprintf(stderr, "test_callsites: hung in the resolver (route %s): %s\n", route_name[F.route],
                    atomic_load(&cs_wd_row));
            fflush(stderr);
            abort();
        }
        tu_sleep_ns(10 * TU_MS); /* paces the watchdog's look */
    }
}

static void cs_run_route(int route) {
    tu_thread wd;
    size_t i;
    char key[64];
    cs_setup(route);
    atomic_store(&cs_wd_stop, false);
    atomic_store(&cs_wd_since, 0);
    assert_true(tu_thread_start(&wd, cs_watchdog, NULL));
    for (i = 0; i < sizeof cs_rows / sizeof cs_rows[0]; i++) {
        const cs_row *r = &cs_rows[i];
#ifndef GROUPCONC_NO_GATE
        groupconc_permit permit;
#endif
        int rc = GROUPCONC_OK;
        if (getenv("CS_ROW") && (size_t)atoi(getenv("CS_ROW")) != i) continue;
        snprintf(key, sizeof key, "probe-%d-%zu", route, i);
        atomic_store(&F.row_ran, 0);
        atomic_store(&F.row_rc, 12345);
        F.row = r;
        atomic_store(&cs_wd_row, r->name);
        atomic_store(&cs_wd_since, tu_now_ns());
        switch (route) {
        case R_SUBMIT:
        case R_THRESHOLD:
            rc = groupconc_submit(F.ex, key, NULL, tu_noop_fn, NULL, NULL);
            break;
#ifndef GROUPCONC_NO_GATE
        case R_GATE:
            rc = groupconc_gate_try_acquire(F.gate, key, &permit);
            break;
#endif
        default:
            rc = groupconc_group_pause(F.ex, key);
            break;
        }
        atomic_store(&cs_wd_since, 0);
        F.row = NULL;
        if (rc != GROUPCONC_OK || atomic_load(&F.row_ran) != 1 || atomic_load(&F.row_rc) != r->want)
            fail_msg("route %s, row %s: route rc %s, resolver ran %d times, row returned %d (%s), want %s",
                     route_name[route], r->name, groupconc_errname(rc), atomic_load(&F.row_ran),
                     atomic_load(&F.row_rc), groupconc_errname(atomic_load(&F.row_rc)),
                     groupconc_errname(r->want));
#ifndef GROUPCONC_NO_GATE
        if (route == R_GATE)
            assert_int_equal(groupconc_permit_release(&permit, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
#endif
    }
    atomic_store(&cs_wd_stop, true);
    tu_thread_join(wd);
    cs_check_untouched();
    cs_teardown();
}

static void test_resolver_rows_plain_submit(void **state) {
    (void)state;
    cs_run_route(R_SUBMIT);
}
static void test_resolver_rows_threshold_submit(void **state) {
    (void)state;
    cs_run_route(R_THRESHOLD);
}
#ifndef GROUPCONC_NO_GATE
static void test_resolver_rows_gate_try_acquire(void **state) {
    (void)state;
    cs_run_route(R_GATE);
}
#endif
static void test_resolver_rows_group_pause(void **state) {
    (void)state;
    cs_run_route(R_PAUSE);
}

/* ---- where callbacks run: a batch left behind ----------------------------------------------------- */

static atomic_bool cs_hold_armed; /* the next task published is held in the hook */
static tu_latch cs_held, cs_let_go;

static void cs_published(const void *task) {
    (void)task;
    if (atomic_exchange(&cs_hold_armed, false)) {
        tu_latch_count_down(&cs_held);
        (void)tu_latch_wait(&cs_let_go);
    }
}

typedef struct cs_watch {
    tu_thread_id main, event_thread, callback_thread; /* where A's COMPLETED event and callback ran */
    atomic_int events, events_main, callbacks, callbacks_main;
    tu_latch event_done, callback_done;
} cs_watch;
static cs_watch W;

static void cs_listener(const groupconc_event *ev, void *user_data) {
    (void)user_data;
    if (ev->type != GROUPCONC_EVENT_COMPLETED || !ev->task_id || strcmp(ev->task_id, "A") != 0) return;
    if (tu_same_thread(tu_self(), W.main)) atomic_fetch_add(&W.events_main, 1);
    W.event_thread = tu_self(); /* read after the latch */
    atomic_fetch_add(&W.events, 1);
    tu_latch_count_down(&W.event_done);
}

static void cs_watch_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)result;
    (void)user_data;
    if (tu_same_thread(tu_self(), W.main)) atomic_fetch_add(&W.callbacks_main, 1);
    W.callback_thread = tu_self();
    atomic_fetch_add(&W.callbacks, 1);
    tu_latch_count_down(&W.callback_done);
}

enum { Q_GROUP_STATS, Q_EXECUTOR_STATS, Q_KEYS, Q_GATE_STATS, Q_DUMP, Q_DUMP_FILE, Q_GATE_ACQUIRE };

/* What a quiet case calls on: its executor, and its executor gate. */
typedef struct cs_quiet {
    groupconc_executor *ex;
#ifndef GROUPCONC_NO_GATE
    groupconc_gate *gate;
    groupconc_permit permit;
#endif
} cs_quiet;

/* The call under test, on the main thread. */
static int cs_quiet_call(int op, cs_quiet *q) {
    groupconc_executor *ex = q->ex;
    groupconc_group_stats gs;
    groupconc_executor_stats xs;
#ifndef GROUPCONC_NO_GATE
    groupconc_gate_stats ts;
#endif
#ifndef GROUPCONC_NO_DUMP
    FILE *file;
#endif
    char **keys = NULL;
    size_t n = 0;
    int rc;
    switch (op) {
    case Q_GROUP_STATS:
        return groupconc_group_stats_get(ex, "a", &gs);
    case Q_EXECUTOR_STATS:
        return groupconc_executor_stats_get(ex, &xs);
    case Q_KEYS:
        rc = groupconc_group_keys_get(ex, &keys, &n);
        groupconc_group_keys_free(keys);
        return rc;
#ifndef GROUPCONC_NO_GATE
    case Q_GATE_STATS:
        return groupconc_gate_stats_get(q->gate, NULL, &ts);
    case Q_GATE_ACQUIRE:
        return groupconc_gate_try_acquire(q->gate, "g", &q->permit);
#endif
#ifndef GROUPCONC_NO_DUMP
    case Q_DUMP:
        return groupconc_executor_dump(ex, cs_buf, sizeof cs_buf, NULL);
    case Q_DUMP_FILE:
        file = tmpfile();
        if (!file) return CS_WRONG;
        rc = groupconc_executor_dump_file(ex, file);
        fclose(file);
        return rc;
#endif
    default:
        return CS_WRONG;
    }
}

/* A worker ran task A, published it and is held there; with `inbox`, a task waits in the inbox
   (only where no other worker exists: a submit that finds none watching locks and helps itself). */
static groupconc_task *cs_hold_a_batch(groupconc_executor *ex, bool inbox) {
    groupconc_task *a;
    int64_t t0;
    /* A waits in its paused group while its callback is registered: registered after A ran, it
       could find A already finished by an idle napper (its worker held past a batch's length:
       seen under Wine), and run at once on this thread */
    assert_int_equal(groupconc_group_pause(ex, "a"), GROUPCONC_OK);
    a = tu_submit(ex, "a", "A", tu_noop_fn, NULL);
    assert_int_equal(groupconc_task_on_complete(a, cs_watch_cb, NULL), GROUPCONC_OK); /* not done */
    atomic_store(&cs_hold_armed, true);
    assert_int_equal(groupconc_group_resume(ex, "a"), GROUPCONC_OK);
    assert_true(tu_latch_wait(&cs_held));
    /* Longer than a batch lasts (20 us) since the worker's batch began: the worker now counts as
       stuck in a long task, whose batch a locked call used to finish itself. Not a synchronisation:
       the state is already built; only time must pass. */
    t0 = tu_now_ns();
    while (tu_now_ns() - t0 < 2 * TU_MS) {
    }
    /* the only worker is held: this one stays in the inbox until a locked call admits it */
    if (inbox) assert_int_equal(groupconc_submit(ex, "e", "E", tu_noop_fn, NULL, NULL), GROUPCONC_OK);
    return a;
}

static void cs_watch_init(void) {
    memset(&W, 0, sizeof W);
    W.main = tu_self();
    tu_latch_init(&W.event_done, 1);
    tu_latch_init(&W.callback_done, 1);
    tu_latch_init(&cs_held, 1);
    tu_latch_init(&cs_let_go, 1);
}

static void cs_watch_destroy(void) {
    tu_latch_destroy(&W.event_done);
    tu_latch_destroy(&W.callback_done);
    tu_latch_destroy(&cs_held);
    tu_latch_destroy(&cs_let_go);
}

static void cs_quiet_case(int op) {
    groupconc_policy p = groupconc_policy_default();
#ifndef GROUPCONC_NO_GATE
    groupconc_gate_config gc;
#endif
    cs_quiet q;
    groupconc_executor *ex;
    groupconc_task *a;
    groupconc_result r;
    bool done = true;
    cs_watch_init();
    p.max_threads = 1;
    p.listener = cs_listener;
    ex = tu_executor(&p);
    memset(&q, 0, sizeof q);
    q.ex = ex;
#ifndef GROUPCONC_NO_GATE
    memset(&gc, 0, sizeof gc);
    gc.executor = ex;
    assert_int_equal(groupconc_gate_create(&gc, &q.gate), GROUPCONC_OK);
#endif
    a = cs_hold_a_batch(ex, true);

    assert_int_equal(cs_quiet_call(op, &q), GROUPCONC_OK);
    /* A's completion ran nowhere: not here, and the only worker is held */
    assert_int_equal(atomic_load(&W.events), 0);
    assert_int_equal(atomic_load(&W.callbacks), 0);
    assert_int_equal(groupconc_task_is_done(a, &done), GROUPCONC_OK);
    assert_false(done);

    tu_latch_open(&cs_let_go); /* the worker finishes its batch itself */
    assert_true(tu_latch_wait(&W.event_done));
    assert_true(tu_latch_wait(&W.callback_done));
    assert_int_equal(atomic_load(&W.events), 1);
    assert_int_equal(atomic_load(&W.events_main), 0);
    assert_int_equal(atomic_load(&W.callbacks), 1);
    assert_int_equal(atomic_load(&W.callbacks_main), 0);
    r = tu_wait(a);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(a), GROUPCONC_OK);
#ifndef GROUPCONC_NO_GATE
    if (op == Q_GATE_ACQUIRE)
        assert_int_equal(groupconc_permit_release(&q.permit, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_destroy(q.gate), GROUPCONC_OK);
#endif
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK); /* E ran */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cs_watch_destroy();
}

static void test_quiet_group_stats_get(void **state) {
    (void)state;
    cs_quiet_case(Q_GROUP_STATS);
}
static void test_quiet_executor_stats_get(void **state) {
    (void)state;
    cs_quiet_case(Q_EXECUTOR_STATS);
}
static void test_quiet_group_keys_get(void **state) {
    (void)state;
    cs_quiet_case(Q_KEYS);
}
#ifndef GROUPCONC_NO_GATE
static void test_quiet_gate_stats_get(void **state) {
    (void)state;
    cs_quiet_case(Q_GATE_STATS);
}
#endif
#ifndef GROUPCONC_NO_DUMP
static void test_quiet_executor_dump(void **state) {
    (void)state;
    cs_quiet_case(Q_DUMP);
}
static void test_quiet_executor_dump_file(void **state) {
    (void)state;
    cs_quiet_case(Q_DUMP_FILE);
}
#endif
#ifndef GROUPCONC_NO_GATE
static void test_quiet_gate_try_acquire(void **state) {
    (void)state;
    cs_quiet_case(Q_GATE_ACQUIRE);
}
#endif

/* What a read-only call leaves behind is not lost: with an idle worker, the held batch's task
   completes on that worker (the call wakes it) while its own worker is still held. */
static void test_quiet_leftovers_finished_by_idle_worker(void **state) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor_stats xs;
    groupconc_executor *ex;
    groupconc_task *a, *w1, *w2;
    tu_latch started;
    tu_park p1, p2;
    (void)state;
    cs_watch_init();
    p.max_threads = 2;
    p.listener = cs_listener;
    ex = tu_executor(&p);
    /* two workers, both idle afterwards */
    tu_latch_init(&started, 2);
    tu_park_init(&p1, &started, NULL);
    tu_park_init(&p2, &started, NULL);
    w1 = tu_submit(ex, "w1", NULL, tu_park_fn, &p1);
    w2 = tu_submit(ex, "w2", NULL, tu_park_fn, &p2);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&p1);
    tu_park_release(&p2);
    tu_wait_status(w1, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(w2, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(w1), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(w2), GROUPCONC_OK);

    a = cs_hold_a_batch(ex, false);
    memset(&xs, 0, sizeof xs);
    assert_int_equal(groupconc_executor_stats_get(ex, &xs), GROUPCONC_OK);
    /* the held worker is still held: another one completes A, not this thread */
    assert_true(tu_latch_wait(&W.callback_done));
    assert_true(tu_latch_wait(&W.event_done));
    assert_int_equal(atomic_load(&W.events_main), 0);
    assert_int_equal(atomic_load(&W.callbacks_main), 0);
    assert_int_equal(atomic_load(&W.callbacks), 1);
    tu_latch_open(&cs_let_go);
    tu_wait_status(a, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(a), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&p1);
    tu_park_destroy(&p2);
    tu_latch_destroy(&started);
    cs_watch_destroy();
}

/* A call on the housekeeper does not finish a held batch either (hunt helper-80 D1; no test had it,
   helper-81's M13). X waits at the global in-flight layer (cap 1) behind A, which holds the permit
   while its group is paused; the resume lets the only worker run A, publish it and be held. X's
   deadline passes: X completes on the housekeeper, whose completion callback submits a retry R
   (into the inbox: the only worker is busy, the pool full) and cancels it. The cancel locks, and
   its drain (R is in the inbox) used to help a worker stuck past a batch's length, as any
   caller's does: A's COMPLETED event and callback then ran on the housekeeper. Now they run
   nowhere until the worker is let go, then on it. Nobody waits meanwhile (a waiter helps): X is
   polled. Tried again with a longer deadline if X expired before the worker was held. (With
   room for a second worker, that one helps A, X runs, and the shape is missed: seen under TSan.) */
static atomic_int cs_x_cb_ran, cs_x_retry_rc, cs_x_cancel_rc;
static groupconc_executor *cs_x_ex;
static tu_thread_id cs_x_cb_thread; /* the housekeeper */

static void cs_x_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)user_data;
    if (result->status == GROUPCONC_STATUS_REJECTED && result->reason == GROUPCONC_EEXPIRED_GLOBAL) {
        groupconc_task *retry = NULL;
        atomic_store(&cs_x_retry_rc, groupconc_submit(cs_x_ex, "x", "R", tu_noop_fn, NULL, &retry));
        if (retry) {
            groupconc_cancel_outcome how = GROUPCONC_CANCEL_TOO_LATE;
            int rc = groupconc_task_cancel(retry, &how);
            atomic_store(&cs_x_cancel_rc, rc == GROUPCONC_OK && how == GROUPCONC_CANCEL_DEQUEUED ? 0 : 1);
            (void)groupconc_task_release(retry);
        }
    }
    cs_x_cb_thread = tu_self();
    atomic_store(&cs_x_cb_ran, 1);
}

enum { CS_SHAPE, CS_EARLY, CS_RAN }; /* the shape was built; X expired too early; X ran */
static int cs_keeper_case(int64_t max_wait) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_task_spec spec;
    groupconc_executor *ex;
    groupconc_task *a, *x;
    groupconc_result r;
    bool done = true, early, shape;
    int64_t until;
    cs_watch_init();
    atomic_store(&cs_x_cb_ran, 0);
    atomic_store(&cs_x_retry_rc, 1);
    atomic_store(&cs_x_cancel_rc, 1);
    p.max_threads = 1;
    p.global_max_in_flight = 1;
    p.listener = cs_listener;
    ex = tu_executor(&p);
    cs_x_ex = ex;
    assert_int_equal(groupconc_group_pause(ex, "a"), GROUPCONC_OK);
    a = tu_submit(ex, "a", "A", tu_noop_fn, NULL); /* takes the global permit, waits in "a" */
    assert_int_equal(groupconc_task_on_complete(a, cs_watch_cb, NULL), GROUPCONC_OK);
    memset(&spec, 0, sizeof spec);
    spec.group = "x";
    spec.task_id = "X";
    spec.fn = tu_noop_fn;
    spec.max_wait_ns = max_wait;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &x), GROUPCONC_OK);
    assert_int_equal(groupconc_task_on_complete(x, cs_x_cb, NULL), GROUPCONC_OK);
    atomic_store(&cs_hold_armed, true);
    assert_int_equal(groupconc_group_resume(ex, "a"), GROUPCONC_OK);
    assert_true(tu_latch_wait(&cs_held));
    assert_int_equal(groupconc_task_is_done(x, &done), GROUPCONC_OK);
    early = done; /* else X still waits behind A, published and held */
    until = tu_now_ns() + 10 * TU_SEC;
    while (!atomic_load(&cs_x_cb_ran) && tu_now_ns() < until) tu_sleep_ns(TU_MS);
    assert_int_equal(atomic_load(&cs_x_cb_ran), 1);
    shape = !early && atomic_load(&cs_x_retry_rc) != 1; /* X expired: its callback submitted R */
    if (atomic_load(&cs_x_retry_rc) != 1) {
        assert_int_equal(atomic_load(&cs_x_retry_rc), GROUPCONC_OK);
        assert_int_equal(atomic_load(&cs_x_cancel_rc), GROUPCONC_OK); /* R waited behind A */
    }
    if (shape) { /* A's completion ran nowhere: not on the housekeeper, and its worker is held */
        assert_int_equal(atomic_load(&W.events), 0);
        assert_int_equal(atomic_load(&W.callbacks), 0);
        assert_int_equal(groupconc_task_is_done(a, &done), GROUPCONC_OK);
        assert_false(done);
    }
    tu_latch_open(&cs_let_go);
    assert_true(tu_latch_wait(&W.callback_done));
    assert_true(tu_latch_wait(&W.event_done));
    assert_int_equal(atomic_load(&W.callbacks), 1);
    assert_int_equal(atomic_load(&W.events), 1);
    assert_int_equal(atomic_load(&W.callbacks_main), 0);
    assert_int_equal(atomic_load(&W.events_main), 0);
    if (shape) { /* not on the housekeeper */
        assert_false(tu_same_thread(W.callback_thread, cs_x_cb_thread));
        assert_false(tu_same_thread(W.event_thread, cs_x_cb_thread));
    }
    r = tu_wait(a);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    r = tu_wait(x);
    if (shape) {
        assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r.reason, GROUPCONC_EEXPIRED_GLOBAL);
    }
    assert_int_equal(groupconc_task_release(a), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(x), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK); /* R ran */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    cs_watch_destroy();
    return shape ? CS_SHAPE : early ? CS_EARLY : CS_RAN;
}

static void test_keeper_submit_finishes_no_batch(void **state) {
    int64_t max_wait = 20 * TU_MS;
    (void)state;
    int how, tries = 0;
    while ((how = cs_keeper_case(max_wait)) != CS_SHAPE) {
        assert_true(++tries < 10);
        if (how == CS_EARLY && max_wait < 2 * TU_SEC) max_wait *= 4;
    }
}

/* CS_TESTS=<pattern> runs only the matching tests (cmocka's filter), CS_ROW=<i> only row i of the
   resolver rows, CS_HANG_MS=<ms> names a hung row sooner than the default 30 s: for diagnosis (the
   header of 8e71492 hangs in several rows, and the watchdog ends the process at the first). */
int main(void) {
    const char *filter = getenv("CS_TESTS");
    if (filter) cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolver_rows_plain_submit),
        cmocka_unit_test(test_resolver_rows_threshold_submit),
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(test_resolver_rows_gate_try_acquire),
#endif
        cmocka_unit_test(test_resolver_rows_group_pause),
        cmocka_unit_test(test_quiet_group_stats_get),
        cmocka_unit_test(test_quiet_executor_stats_get),
        cmocka_unit_test(test_quiet_group_keys_get),
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(test_quiet_gate_stats_get),
#endif
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(test_quiet_executor_dump),
        cmocka_unit_test(test_quiet_executor_dump_file),
#endif
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(test_quiet_gate_try_acquire),
#endif
        cmocka_unit_test(test_quiet_leftovers_finished_by_idle_worker),
        cmocka_unit_test(test_keeper_submit_finishes_no_batch),
    };
    return TU_RUN_TESTS(tests);
}
