/* test_scope_integrity.c - structured scopes where they meet other features (issue 23, items 1, 3
   and 10):
   - a fork refused in submit under a rejection handler: the handler sees exactly what the caller
     passed (fn, arg, cleanup, task id, group), never the scope's wrapper; resubmitting them
     elsewhere with arg_taken (the README's pattern) runs the caller's function and cleanup once,
     after the scope is closed, with no use of the scope's memory; without arg_taken the caller's
     cleanup runs once; the listener, the dump and a refused fork's result show the fork's own id
     and group;
   - groupconc_scope_first_set outside CUSTOM (from the policy callback, as a user would) is refused
     with GROUPCONC_ESCOPE_POLICY and changes nothing: the policy still decides the join's result,
     the first fork and the shutdown;
   - groupconc_scope_close without a join shuts the scope down first (JEP 428), then waits: a
     waiting fork never runs, a running one is flagged; ENOTJOINED is still reported. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- the caller's fork: its function, argument and cleanup count what happens to them ---------- */

typedef struct payload {
    atomic_int runs, cleanups;
    atomic_int bad_arg; /* the function or cleanup got another argument */
    tu_latch cleaned;   /* opened by the cleanup */
} payload;

static void payload_init(payload *p) {
    atomic_init(&p->runs, 0);
    atomic_init(&p->cleanups, 0);
    atomic_init(&p->bad_arg, 0);
    tu_latch_init(&p->cleaned, 1);
}

static payload *the_payload; /* what the caller passes as arg */

static int user_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    if (arg != the_payload) atomic_fetch_add(&the_payload->bad_arg, 1);
    atomic_fetch_add(&the_payload->runs, 1);
    *out_value = arg;
    return 0;
}

static void user_cleanup(void *arg) {
    if (arg != the_payload) atomic_fetch_add(&the_payload->bad_arg, 1);
    atomic_fetch_add(&the_payload->cleanups, 1);
    tu_latch_open(&the_payload->cleaned);
}

static int fail_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value, (void)arg;
    return 7;
}

static int ok_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value, (void)arg;
    return 0;
}

static groupconc_executor *plain_executor(void) {
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    return tu_executor(&p);
}

/* ---- item 1: the rejection handler sees the caller's task --------------------------------------- */

typedef struct handler_rec {
    atomic_int calls;
    groupconc_task_fn fn;
    void *arg;
    groupconc_cleanup_fn cleanup;
    char task_id[32], group[32];
    int reason;
    bool in_submit;
    bool take;                  /* resubmit into `elsewhere` and set arg_taken (the README's pattern) */
    groupconc_executor *elsewhere;
    groupconc_task *resubmitted;
    int resubmit_rc;
} handler_rec;

static void on_rejected(const groupconc_rejection *rej, groupconc_reject_result *out, void *user_data) {
    handler_rec *h = (handler_rec *)user_data;
    atomic_fetch_add(&h->calls, 1);
    h->fn = rej->fn;
    h->arg = rej->arg;
    h->cleanup = rej->cleanup;
    snprintf(h->task_id, sizeof h->task_id, "%s", rej->task_id ? rej->task_id : "(null)");
    snprintf(h->group, sizeof h->group, "%s", rej->group ? rej->group : "(null)");
    h->reason = rej->reason;
    h->in_submit = rej->in_submit;
    /* The README's pattern: hand the task to another executor with its cleanup, take arg over. Only
       when the handler got the caller's task: the scope's wrapper resubmitted would run on a fork
       record that the scope's close frees (the use-after-free this test guards against). */
    if (h->take && rej->fn == user_fn && rej->arg == the_payload && rej->cleanup == user_cleanup) {
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = "elsewhere";
        spec.task_id = rej->task_id;
        spec.fn = rej->fn;
        spec.arg = rej->arg;
        spec.cleanup = rej->cleanup;
        h->resubmit_rc = groupconc_submit_spec(h->elsewhere, &spec, &h->resubmitted);
        if (h->resubmit_rc == GROUPCONC_OK) out->arg_taken = true;
    } else if (!h->take) {
        out->status = GROUPCONC_STATUS_SUCCESS; /* a fallback value; arg stays the task's */
        out->value = h;
    }
}

/* Events of the fork (task id "fork-7"): their types, in order, and whether each named its group. */
typedef struct fork_events {
    tu_mutex mu;
    int types[16];
    int n;
    int wrong_group, completed_reason;
} fork_events;

static void on_event(const groupconc_event *ev, void *user_data) {
    fork_events *e = (fork_events *)user_data;
    if (!ev->task_id || strcmp(ev->task_id, "fork-7") != 0) return;
    tu_mutex_lock(&e->mu);
    if (e->n < 16) e->types[e->n++] = (int)ev->type;
    if (!ev->group || strcmp(ev->group, "tight") != 0) e->wrong_group++;
    if (ev->type == GROUPCONC_EVENT_COMPLETED && ev->result) e->completed_reason = ev->result->reason;
    tu_mutex_unlock(&e->mu);
}

/* "tight": concurrency 1, queue threshold 0, held by a parked plain task: a fork into it is refused
   in submit at concurrency, and the handler runs on the forking thread. */
static void handler_case(bool take) {
    payload pl;
    payload_init(&pl);
    the_payload = &pl;
    handler_rec h;
    memset(&h, 0, sizeof h);
    atomic_init(&h.calls, 0);
    h.take = take;
    fork_events ev;
    memset(&ev, 0, sizeof ev);
    tu_mutex_init(&ev.mu);

    groupconc_executor *elsewhere = NULL;
    if (take) {
        groupconc_policy q = groupconc_policy_default();
        q.max_threads = 2;
        elsewhere = tu_executor(&q);
        h.elsewhere = elsewhere;
    }
    groupconc_group_limits table[] = {{"tight", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.groups = table;
    p.group_count = 1;
    p.reject_handler = on_rejected;
    p.reject_user_data = &h;
    p.listener = on_event;
    p.listener_user_data = &ev;
    groupconc_executor *ex = tu_executor(&p);

    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *held = tu_submit(ex, "tight", "blocker", tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));

    groupconc_scope_config c;
    memset(&c, 0, sizeof c);
    c.policy = GROUPCONC_SCOPE_COLLECT_ALL;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &c, &s), GROUPCONC_OK);
    groupconc_task_spec spec = {"tight", "fork-7", user_fn, &pl, user_cleanup, 0};
    size_t idx = 99;
    assert_int_equal(groupconc_scope_fork(s, &spec, &idx), GROUPCONC_OK); /* a handler: submit says OK */
    assert_int_equal(idx, 0);

    /* the handler saw exactly what the caller passed */
    assert_int_equal(atomic_load(&h.calls), 1);
    assert_ptr_equal(h.fn, user_fn);
    assert_ptr_equal(h.arg, &pl);
    assert_ptr_equal(h.cleanup, user_cleanup);
    assert_string_equal(h.task_id, "fork-7");
    assert_string_equal(h.group, "tight");
    assert_int_equal(h.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_true(h.in_submit);

    assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_scope_result(s, 0, &r), GROUPCONC_OK);
    assert_string_equal(r.group, "tight");
    assert_string_equal(r.task_id, "fork-7");
    if (take) {
        assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
        assert_int_equal(h.resubmit_rc, GROUPCONC_OK);
    } else {
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(r.value, &h);
        /* the handler did not take arg: the caller's cleanup ran once (before the join returned) */
        assert_int_equal(atomic_load(&pl.cleanups), 1);
    }
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK); /* frees the fork records */

    if (take) { /* the resubmitted task runs the caller's function after the scope is gone */
        tu_wait_status(h.resubmitted, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(h.resubmitted), GROUPCONC_OK);
        assert_true(tu_latch_wait(&pl.cleaned));
        assert_int_equal(atomic_load(&pl.runs), 1);
        assert_int_equal(groupconc_executor_destroy(elsewhere), GROUPCONC_OK);
    } else {
        assert_int_equal(atomic_load(&pl.runs), 0);
    }
    assert_int_equal(atomic_load(&pl.cleanups), 1); /* exactly once, by one executor */
    assert_int_equal(atomic_load(&pl.bad_arg), 0);

    tu_park_release(&blocker);
    tu_wait_status(held, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(held), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

    /* the listener saw the fork as the caller's task: its id and group, SUBMITTED, REJECTED (the
       layer), COMPLETED */
    assert_int_equal(ev.n, 3);
    assert_int_equal(ev.types[0], GROUPCONC_EVENT_SUBMITTED);
    assert_int_equal(ev.types[1], GROUPCONC_EVENT_REJECTED);
    assert_int_equal(ev.types[2], GROUPCONC_EVENT_COMPLETED);
    assert_int_equal(ev.wrong_group, 0);
    assert_int_equal(ev.completed_reason, take ? GROUPCONC_EREJECTED_CONCURRENCY : 0);

    tu_mutex_destroy(&ev.mu);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    tu_latch_destroy(&pl.cleaned);
}

static void test_handler_resubmits_fork_arg_taken(void **state) {
    (void)state;
    handler_case(true);
}

static void test_handler_fallback_fork_cleanup_once(void **state) {
    (void)state;
    handler_case(false);
}

#ifndef GROUPCONC_NO_DUMP
/* The dump shows a running fork as the caller's task: its id and group. */
static void test_dump_shows_fork_id(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, NULL, &s), GROUPCONC_OK);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    groupconc_task_spec spec = {"dumped", "fork-in-dump", tu_park_fn, &park, NULL, 0};
    assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    static char buf[16384];
    size_t need = 0;
    assert_int_equal(groupconc_executor_dump(ex, buf, sizeof buf, &need), GROUPCONC_OK);
    assert_non_null(strstr(buf, "{\"group\":\"dumped\",\"id\":\"fork-in-dump\",\"state\":\"running\""));
    tu_park_release(&park);
    assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
}
#endif

/* A fork refused in submit (ABORT, no handler) keeps the caller's id and group in its result, as
   the policy callback and scope_result see it. */
typedef struct seen_id {
    char id[32], group[32];
    int status;
} seen_id;

static void record_id(groupconc_scope *s, size_t index, const groupconc_result *r, void *user_data) {
    seen_id *x = (seen_id *)user_data;
    (void)s, (void)index;
    snprintf(x->id, sizeof x->id, "%s", r->task_id ? r->task_id : "(null)");
    snprintf(x->group, sizeof x->group, "%s", r->group ? r->group : "(null)");
    x->status = (int)r->status;
}

static void test_refused_fork_keeps_its_id(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"tight", 1, GROUPCONC_DEFAULT, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *held = tu_submit(ex, "tight", "blocker", tu_park_fn, &blocker);
    assert_true(tu_latch_wait(&started));
    seen_id x;
    memset(&x, 0, sizeof x);
    groupconc_scope_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.policy = GROUPCONC_SCOPE_COLLECT_ALL;
    cfg.on_fork_complete = record_id;
    cfg.user_data = &x;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &cfg, &s), GROUPCONC_OK);
    groupconc_task_spec spec = {"tight", "refused-1", ok_fn, NULL, NULL, 0};
    assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_string_equal(x.id, "refused-1");
    assert_string_equal(x.group, "tight");
    assert_int_equal(x.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_scope_result(s, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_non_null(r.task_id);
    assert_string_equal(r.task_id, "refused-1");
    assert_string_equal(r.group, "tight");
    spec.task_id = NULL; /* no id: none shown */
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_open(ex, &cfg, &s), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_EREJECTED_CONCURRENCY);
    assert_string_equal(x.id, "(null)");
    assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    tu_park_release(&blocker);
    tu_wait_status(held, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(held), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
}

/* ---- item 3: first_set outside CUSTOM is refused from the policy callback ----------------------- */

typedef struct first_cb {
    size_t trigger;             /* the fork whose completion calls first_set(trigger) */
    atomic_int set_rc;
    atomic_int calls;
    tu_latch trigger_done;      /* the trigger fork's callback returned */
} first_cb;

static void call_first_set(groupconc_scope *s, size_t index, const groupconc_result *r, void *user_data) {
    first_cb *c = (first_cb *)user_data;
    (void)r;
    atomic_fetch_add(&c->calls, 1);
    if (index != c->trigger) return;
    atomic_store(&c->set_rc, groupconc_scope_first_set(s, index));
    tu_latch_open(&c->trigger_done);
}

static groupconc_scope *open_with_cb(groupconc_executor *ex, groupconc_scope_policy policy, first_cb *c,
                                     size_t trigger) {
    atomic_init(&c->set_rc, INT_MIN);
    atomic_init(&c->calls, 0);
    c->trigger = trigger;
    tu_latch_init(&c->trigger_done, 1);
    groupconc_scope_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.policy = policy;
    cfg.on_fork_complete = call_first_set;
    cfg.user_data = c;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &cfg, &s), GROUPCONC_OK);
    return s;
}

static size_t fork_fn(groupconc_scope *s, const char *group, groupconc_task_fn fn, void *arg) {
    groupconc_task_spec spec = {group, NULL, fn, arg, NULL, 0};
    size_t idx = 99;
    assert_int_equal(groupconc_scope_fork(s, &spec, &idx), GROUPCONC_OK);
    return idx;
}

static groupconc_status fork_status(groupconc_scope *s, size_t i) {
    groupconc_result r;
    assert_int_equal(groupconc_scope_result(s, i, &r), GROUPCONC_OK);
    return r.status;
}

/* A join bounded so that a scope the policy no longer shuts down fails the test instead of hanging
   (the parked fork would wait for its 30 s safety timeout). */
#define JOIN_BOUND_NS (5 * TU_SEC)

/* SHUTDOWN_ON_SUCCESS, the only fork fails and its callback names it: refused; join says EFAILED. */
static void test_first_set_on_success_no_success(void **state) {
    (void)state;
    groupconc_executor *ex = plain_executor();
    first_cb c;
    groupconc_scope *s = open_with_cb(ex, GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, &c, 0);
    fork_fn(s, "a", fail_fn, NULL);
    assert_int_equal(groupconc_scope_join_for(s, JOIN_BOUND_NS), GROUPCONC_EFAILED);
    assert_int_equal(atomic_load(&c.set_rc), GROUPCONC_ESCOPE_POLICY);
    size_t first = 12345;
    assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_ENOTFOUND);
    assert_int_equal(first, 12345);
    assert_int_equal(atomic_load(&c.calls), 1);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&c.trigger_done);
}

/* policy, a parked cooperative fork 0, fork 1 that does not decide (a failure under ON_SUCCESS, a
   success under ON_FAILURE) whose callback calls first_set(1), then fork 2 that decides: it still
   shuts the scope down (fork 0 CANCELLED) and is the first. */
static void later_decision_case(groupconc_scope_policy policy) {
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 4;
    p.max_threads = 4;
    groupconc_executor *ex = tu_executor(&p);
    first_cb c;
    groupconc_scope *s = open_with_cb(ex, policy, &c, 1);
    bool on_success = policy == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS;
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    park.cooperative = true;
    assert_int_equal(fork_fn(s, "g", tu_park_fn, &park), 0);
    assert_true(tu_latch_wait(&started));
    assert_int_equal(fork_fn(s, "g", on_success ? fail_fn : ok_fn, NULL), 1);
    assert_true(tu_latch_wait(&c.trigger_done));
    assert_int_equal(atomic_load(&c.set_rc), GROUPCONC_ESCOPE_POLICY);
    size_t first = 12345;
    assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_ENOTFOUND); /* fork 1 did not decide */
    assert_int_equal(fork_fn(s, "g", on_success ? ok_fn : fail_fn, NULL), 2);
    int rc = groupconc_scope_join_for(s, JOIN_BOUND_NS);
    tu_park_release(&park); /* lets a fork the policy failed to cancel return */
    assert_int_equal(rc, on_success ? GROUPCONC_OK : GROUPCONC_EFAILED);
    assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_OK);
    assert_int_equal(first, 2);
    assert_int_equal(fork_status(s, 0), GROUPCONC_STATUS_CANCELLED);
    assert_true(atomic_load(&park.saw_cancel));
    assert_int_equal(fork_status(s, 1), on_success ? GROUPCONC_STATUS_FAILED : GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(fork_status(s, 2), on_success ? GROUPCONC_STATUS_SUCCESS : GROUPCONC_STATUS_FAILED);
    assert_int_equal(atomic_load(&c.calls), 3);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    tu_latch_destroy(&c.trigger_done);
}

static void test_first_set_on_success_later_success_shuts_down(void **state) {
    (void)state;
    later_decision_case(GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS);
}

static void test_first_set_on_failure_later_failure_shuts_down(void **state) {
    (void)state;
    later_decision_case(GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE);
}

/* COLLECT_ALL: refused too; no fork is named. */
static void test_first_set_collect_all(void **state) {
    (void)state;
    groupconc_executor *ex = plain_executor();
    first_cb c;
    groupconc_scope *s = open_with_cb(ex, GROUPCONC_SCOPE_COLLECT_ALL, &c, 0);
    fork_fn(s, "a", ok_fn, NULL);
    assert_int_equal(groupconc_scope_join_for(s, JOIN_BOUND_NS), GROUPCONC_OK);
    assert_int_equal(atomic_load(&c.set_rc), GROUPCONC_ESCOPE_POLICY);
    size_t first;
    assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_scope_first_set(s, 0), GROUPCONC_ESCOPE_POLICY); /* from the owner too */
    assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&c.trigger_done);
}

/* ---- item 10: close without a join shuts the scope down first ----------------------------------- */

typedef struct close_watch {
    atomic_int statuses[2];     /* each fork's status, as the policy callback saw it (-1: not yet) */
    atomic_int cleanups;
    atomic_int queued_runs;     /* fork 1 (waiting behind fork 0) ran */
    tu_latch close_returned;
    tu_park *park;
    atomic_bool rescued;        /* close did not return within the bound: the watcher released fork 0 */
} close_watch;

static void record_status(groupconc_scope *s, size_t index, const groupconc_result *r, void *user_data) {
    close_watch *w = (close_watch *)user_data;
    (void)s;
    if (index < 2) atomic_store(&w->statuses[index], (int)r->status);
}

static void count_cleanup(void *arg) { atomic_fetch_add(&((close_watch *)arg)->cleanups, 1); }

static int queued_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value;
    atomic_fetch_add(&((close_watch *)arg)->queued_runs, 1);
    return 0;
}

/* Fails the test instead of hanging: if close has not returned within the bound, fork 0 (which only
   a shutdown would flag) is released so that the old close's wait ends. */
static void rescuer_main(void *arg) {
    close_watch *w = (close_watch *)arg;
    if (!tu_latch_wait_for(&w->close_returned, 5 * TU_SEC)) {
        atomic_store(&w->rescued, true);
        tu_park_release(w->park);
    }
}

static void test_close_without_join_shuts_down_first(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"one", 1, GROUPCONC_DEFAULT, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 4;
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    close_watch w;
    memset(&w, 0, sizeof w);
    atomic_init(&w.statuses[0], -1);
    atomic_init(&w.statuses[1], -1);
    tu_latch_init(&w.close_returned, 1);
    groupconc_scope_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.policy = GROUPCONC_SCOPE_COLLECT_ALL;
    cfg.on_fork_complete = record_status;
    cfg.user_data = &w;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &cfg, &s), GROUPCONC_OK);

    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park park;
    tu_park_init(&park, &started, NULL);
    park.cooperative = true; /* returns CANCELLED once flagged */
    w.park = &park;
    groupconc_task_spec running = {"one", "running", tu_park_fn, &park, NULL, 0};
    groupconc_task_spec waiting = {"one", "waiting", queued_fn, &w, count_cleanup, 0};
    assert_int_equal(groupconc_scope_fork(s, &running, NULL), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    assert_int_equal(groupconc_scope_fork(s, &waiting, NULL), GROUPCONC_OK); /* waits behind fork 0 */

    tu_thread th;
    assert_true(tu_thread_start(&th, rescuer_main, &w));
    int rc = groupconc_scope_close(s); /* no join: an error path */
    tu_latch_open(&w.close_returned);
    tu_thread_join(th);
    assert_int_equal(rc, GROUPCONC_ENOTJOINED);
    assert_false(atomic_load(&w.rescued));          /* close did not wait for unread work */
    assert_true(atomic_load(&park.saw_cancel));     /* the running fork was flagged */
    assert_int_equal(atomic_load(&w.statuses[0]), GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(atomic_load(&w.statuses[1]), GROUPCONC_STATUS_CANCELLED); /* dequeued */
    assert_int_equal(atomic_load(&w.queued_runs), 0);                        /* never ran */
    assert_int_equal(atomic_load(&w.cleanups), 1);                           /* its cleanup once */
    assert_int_equal(atomic_load(&park.ran), 1);
    groupconc_group_stats g = tu_gstats(ex, "one");
    assert_int_equal(g.cancelled, 2);
    assert_int_equal(g.running, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_park_destroy(&park);
    tu_latch_destroy(&started);
    tu_latch_destroy(&w.close_returned);
}

/* After a join, close shuts nothing down: it only frees (a join's results stay what they were). */
static void test_close_after_join_only_frees(void **state) {
    (void)state;
    groupconc_executor *ex = plain_executor();
    close_watch w;
    memset(&w, 0, sizeof w);
    atomic_init(&w.statuses[0], -1);
    atomic_init(&w.statuses[1], -1);
    groupconc_scope_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.policy = GROUPCONC_SCOPE_COLLECT_ALL;
    cfg.on_fork_complete = record_status;
    cfg.user_data = &w;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &cfg, &s), GROUPCONC_OK);
    groupconc_task_spec spec = {"a", "done", queued_fn, &w, count_cleanup, 0};
    assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
    assert_int_equal(atomic_load(&w.statuses[0]), GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&w.queued_runs), 1);
    assert_int_equal(atomic_load(&w.cleanups), 1);
    assert_int_equal(tu_gstats(ex, "a").cancelled, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handler_resubmits_fork_arg_taken),
        cmocka_unit_test(test_handler_fallback_fork_cleanup_once),
#ifndef GROUPCONC_NO_DUMP
        cmocka_unit_test(test_dump_shows_fork_id),
#endif
        cmocka_unit_test(test_refused_fork_keeps_its_id),
        cmocka_unit_test(test_first_set_on_success_no_success),
        cmocka_unit_test(test_first_set_on_success_later_success_shuts_down),
        cmocka_unit_test(test_first_set_on_failure_later_failure_shuts_down),
        cmocka_unit_test(test_first_set_collect_all),
        cmocka_unit_test(test_close_without_join_shuts_down_first),
        cmocka_unit_test(test_close_after_join_only_frees),
    };
    return TU_RUN_TESTS(tests);
}
