/* test_deadline.c - queue deadlines (max_wait_ns): the longest a task may wait for its permits.
   Expiry at each of the four layers with that layer's GROUPCONC_EEXPIRED_* reason, never before the
   deadline and within a generous bound; the permits an expired task held are handed on; a task that
   started (or holds every permit) never expires; precedence: per submit > group table (policy or
   groupconc_group_limits_set) > policy default, GROUPCONC_FOREVER; expiry in deadline order; cancel
   and admission end a deadline; the rejection policy and handler are not applied; bad values;
   shutdown, graceful shutdown and destroy with deadlines pending; the counters. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* How late an expiry may come on a loaded 2-core machine, under valgrind or TSan. An expiry before
   its deadline is always a failure. */
#define SLACK_NS (2 * TU_SEC)

/* ---- event recorder (the listener) --------------------------------------------------------------- */

enum { REC_MAX = 4096, ID_LEN = 16 };

typedef struct rec_event {
    groupconc_event_type type;
    char id[ID_LEN];
    int reason;        /* event.reason */
    int status;        /* COMPLETED: result->status */
    int result_reason; /* COMPLETED: result->reason */
    int64_t at;        /* tu_now_ns() when the listener saw it */
} rec_event;

typedef struct recorder recorder;
typedef void (*rec_hook_fn)(const groupconc_event *e, recorder *r);

struct recorder {
    tu_mutex m;
    tu_cond c;
    int n;
    bool overflow;
    rec_hook_fn hook; /* called after recording, no lock held */
    _Atomic(groupconc_task *) hook_task;
    atomic_int hook_calls;
    int hook_rc, hook_outcome;
    tu_latch hook_armed; /* opened once hook_task is set */
    tu_latch hook_done;
    rec_event ev[REC_MAX];
};

static recorder *rec_new(void) {
    recorder *r = (recorder *)calloc(1, sizeof *r);
    assert_non_null(r);
    tu_mutex_init(&r->m);
    tu_cond_init(&r->c);
    atomic_init(&r->hook_task, NULL);
    atomic_init(&r->hook_calls, 0);
    r->hook_rc = -100;
    r->hook_outcome = -1;
    tu_latch_init(&r->hook_armed, 1);
    tu_latch_init(&r->hook_done, 1);
    return r;
}

static void rec_free(recorder *r) {
    assert_false(r->overflow);
    tu_latch_destroy(&r->hook_done);
    tu_latch_destroy(&r->hook_armed);
    tu_cond_destroy(&r->c);
    tu_mutex_destroy(&r->m);
    free(r);
}

static void rec_listener(const groupconc_event *e, void *user_data) {
    recorder *r = (recorder *)user_data;
    rec_event x;
    memset(&x, 0, sizeof x);
    x.type = e->type;
    snprintf(x.id, sizeof x.id, "%s", e->task_id ? e->task_id : "");
    x.reason = e->reason;
    if (e->type == GROUPCONC_EVENT_COMPLETED && e->result) {
        x.status = (int)e->result->status;
        x.result_reason = e->result->reason;
    }
    x.at = tu_now_ns();
    tu_mutex_lock(&r->m);
    if (r->n < REC_MAX) r->ev[r->n++] = x;
    else r->overflow = true;
    tu_cond_broadcast(&r->c);
    tu_mutex_unlock(&r->m);
    if (r->hook) r->hook(e, r);
}

static int rec_index_locked(recorder *r, groupconc_event_type type, const char *id) {
    for (int i = 0; i < r->n; i++)
        if (r->ev[i].type == type && strcmp(r->ev[i].id, id) == 0) return i;
    return -1;
}

static int rec_index(recorder *r, groupconc_event_type type, const char *id) {
    tu_mutex_lock(&r->m);
    int i = rec_index_locked(r, type, id);
    tu_mutex_unlock(&r->m);
    return i;
}

static int rec_count(recorder *r, groupconc_event_type type, const char *id) {
    int n = 0;
    tu_mutex_lock(&r->m);
    for (int i = 0; i < r->n; i++)
        if (r->ev[i].type == type && strcmp(r->ev[i].id, id) == 0) n++;
    tu_mutex_unlock(&r->m);
    return n;
}

static rec_event rec_get(recorder *r, int i) {
    tu_mutex_lock(&r->m);
    assert_true(i >= 0 && i < r->n);
    rec_event e = r->ev[i];
    tu_mutex_unlock(&r->m);
    return e;
}

/* Wait (bounded) for the first event of `type` about task `id`; returns its index, -1 on timeout. */
static int rec_wait(recorder *r, groupconc_event_type type, const char *id, int64_t timeout_ns) {
    int64_t deadline = tu_now_ns() + timeout_ns;
    tu_mutex_lock(&r->m);
    int i;
    while ((i = rec_index_locked(r, type, id)) < 0 && tu_now_ns() < deadline)
        tu_cond_wait_until(&r->c, &r->m, deadline);
    tu_mutex_unlock(&r->m);
    return i;
}

static groupconc_policy rec_policy(recorder *r) {
    groupconc_policy p = groupconc_policy_default();
    p.listener = rec_listener;
    p.listener_user_data = r;
    return p;
}

/* ---- jobs: parked tasks with a cleanup counter ------------------------------------------------- */

typedef struct job {
    tu_park park;
    atomic_int cleanups;
    groupconc_task *h;
    char id[ID_LEN];
    int64_t before, after; /* tu_now_ns() around the submit call */
    int64_t wait;          /* the queue deadline the test expects (0: none) */
} job;

static int job_fn(groupconc_context *ctx, void **out_value, void *arg) {
    return tu_park_fn(ctx, out_value, &((job *)arg)->park);
}

static void job_cleanup(void *arg) { atomic_fetch_add(&((job *)arg)->cleanups, 1); }

static void job_init(job *j, tu_latch *started, atomic_int *order) {
    tu_park_init(&j->park, started, order);
    atomic_init(&j->cleanups, 0);
    j->h = NULL;
    j->id[0] = '\0';
    j->before = j->after = 0;
    j->wait = 0;
}

/* Submit j into `group` with spec.max_wait_ns = max_wait and a cleanup; `expect` is the deadline
   the test expects to apply (0: none). */
static void job_submit(groupconc_executor *ex, job *j, const char *group, const char *id,
                       int64_t max_wait, int64_t expect) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    snprintf(j->id, sizeof j->id, "%s", id);
    spec.group = group;
    spec.task_id = id;
    spec.fn = job_fn;
    spec.arg = j;
    spec.cleanup = job_cleanup;
    spec.max_wait_ns = max_wait;
    j->wait = expect;
    j->before = tu_now_ns();
    assert_int_equal(groupconc_submit_spec(ex, &spec, &j->h), GROUPCONC_OK);
    j->after = tu_now_ns();
    assert_non_null(j->h);
}

/* Let j return and wait for its SUCCESS. */
static void job_finish(job *j) {
    tu_park_release(&j->park);
    tu_wait_status(j->h, GROUPCONC_STATUS_SUCCESS);
}

/* After the task is done (and the executor possibly destroyed): the cleanup ran exactly once. */
static void job_done(job *j) {
    bool done = false;
    assert_int_equal(groupconc_task_is_done(j->h, &done), GROUPCONC_OK);
    assert_true(done);
    assert_false(atomic_load(&j->park.timed_out));
    assert_int_equal(atomic_load(&j->cleanups), 1);
    assert_int_equal(groupconc_task_release(j->h), GROUPCONC_OK);
    tu_park_destroy(&j->park);
}

/* j expired with `reason`: the result says so, the REJECTED event came once, never before the
   deadline and within SLACK_NS of it, then exactly one COMPLETED; it never ran; its cleanup ran
   once. Returns the REJECTED event's index. */
static int check_expired(recorder *rec, job *j, int reason) {
    groupconc_result r = tu_wait(j->h);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, reason);
    assert_int_equal(r.error, 0);
    assert_null(r.value);
    assert_true(r.start_ns == r.end_ns);
    assert_string_equal(r.task_id, j->id);
    assert_true(j->wait > 0);
    /* the library's own timestamp of the rejection (same monotonic clock) */
    assert_true((int64_t)r.start_ns >= j->before + j->wait);
    int i = rec_index(rec, GROUPCONC_EVENT_REJECTED, j->id);
    assert_true(i >= 0);
    rec_event e = rec_get(rec, i);
    assert_int_equal(e.reason, reason);
    if (e.at < j->before + j->wait || e.at > j->after + j->wait + SLACK_NS)
        print_error("%s: expired %lld ms after submit, deadline %lld ms\n", j->id,
                    (long long)((e.at - j->before) / TU_MS), (long long)(j->wait / TU_MS));
    assert_true(e.at >= j->before + j->wait);          /* never early */
    assert_true(e.at <= j->after + j->wait + SLACK_NS); /* not much late */
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, j->id), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, j->id), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, j->id), 1);
    int c = rec_index(rec, GROUPCONC_EVENT_COMPLETED, j->id);
    assert_true(c > i);
    rec_event ce = rec_get(rec, c);
    assert_int_equal(ce.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(ce.result_reason, reason);
    assert_int_equal(atomic_load(&j->park.ran), 0);
    assert_int_equal(atomic_load(&j->cleanups), 1);
    return i;
}

/* completed is the sum of the outcomes */
static void check_group_sums(groupconc_group_stats s) {
    assert_int_equal(s.completed, s.succeeded + s.failed + s.cancelled + s.rejected_global +
                                      s.rejected_bulkhead + s.rejected_concurrency +
                                      s.rejected_waiting + s.expired);
}

static void check_exec_sums(groupconc_executor_stats s) {
    assert_int_equal(s.completed, s.succeeded + s.failed + s.cancelled + s.rejected_global +
                                      s.rejected_bulkhead + s.rejected_concurrency +
                                      s.rejected_waiting + s.expired + s.rejected_other);
}

#define W_MS(n) ((int64_t)(n) * TU_MS)

/* ---- 1. expiry at each layer ------------------------------------------------------------------- */

/* Global in-flight: X waits for a global permit (global_max_in_flight full), Y behind it. X holds nothing:
   its expiry leaves Y first in line, and Y proceeds once the blocker ends. */
static void test_expire_global_in_flight(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    p.global_max_in_flight = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    job b, x, y;
    job_init(&b, &started, &order);
    job_submit(ex, &b, "blk", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, &started, &order);
    job_submit(ex, &x, "x", "x", W_MS(150), W_MS(150));
    job_init(&y, &started, &order);
    job_submit(ex, &y, "y", "y", 0, 0);
    groupconc_group_stats s = tu_gstats(ex, "x");
    if (tu_now_ns() < x.before + x.wait) assert_int_equal(s.waiting_global, 1); /* surely still waiting */

    check_expired(rec, &x, GROUPCONC_EEXPIRED_GLOBAL);
    s = tu_gstats(ex, "x");
    assert_int_equal(s.waiting_global, 0);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.submitted, 1);
    assert_int_equal(s.admitted, 0);
    assert_int_equal(s.completed, 1);
    assert_int_equal(s.max_wait_ns, GROUPCONC_FOREVER); /* its deadline was its own */
    check_group_sums(s);
    assert_int_equal(tu_gstats(ex, "y").waiting_global, 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 1);
    assert_int_equal(xs.waiting, 1);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.rejected_global, 0); /* an expiry is not a threshold rejection */
    assert_int_equal(atomic_load(&y.park.ran), 0);

    /* the blocker ends: its permit goes to Y, the next in line */
    tu_latch_add(&started, 1);
    job_finish(&b);
    assert_true(tu_latch_wait(&started));
    assert_int_equal(atomic_load(&y.park.start_seq), 1);
    job_finish(&y);
    xs = tu_xstats(ex);
    assert_int_equal(xs.completed, 3);
    assert_int_equal(xs.succeeded, 2);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.global_in_flight, 0);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&y);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Bulkhead: X holds a global permit and waits at its group's bulkhead; Y (another group) waits for a
   global permit. X's expiry hands its global permit to Y, which runs. */
static void test_expire_bulkhead(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"g", 4, 1, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    p.global_max_in_flight = 2;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    job b, x, y;
    job_init(&b, &started, &order);
    job_submit(ex, &b, "g", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, &started, &order);
    job_submit(ex, &x, "g", "x", W_MS(150), W_MS(150));
    job_init(&y, &started, &order);
    job_submit(ex, &y, "y", "y", 0, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    if (tu_now_ns() < x.before + x.wait) {
        assert_int_equal(xs.global_in_flight, 2);
        assert_int_equal(xs.waiting, 2);
    }
    tu_latch_add(&started, 1); /* Y's start */

    check_expired(rec, &x, GROUPCONC_EEXPIRED_BULKHEAD);
    assert_true(tu_latch_wait(&started)); /* Y got X's global permit */
    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.in_flight, 1);
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_bulkhead, 0);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.completed, 1);
    check_group_sums(s);
    s = tu_gstats(ex, "y");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_global, 0);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 2); /* B and Y */
    assert_int_equal(xs.running, 2);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.rejected_bulkhead, 0);
    job_finish(&y);
    job_finish(&b);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.completed, 3);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&y);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Concurrency: X holds a global and a bulkhead permit and waits for its group's concurrency; Y (same
   group) waits at the bulkhead, Z (another group) for a global permit. X's expiry hands its bulkhead
   permit to Y (which moves on to wait for concurrency) and its global permit to Z (which runs). */
static void test_expire_concurrency(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"g", 1, 2, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    p.global_max_in_flight = 3;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    job b, x, y, z;
    job_init(&b, &started, &order);
    job_submit(ex, &b, "g", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, &started, &order);
    job_submit(ex, &x, "g", "x", W_MS(150), W_MS(150));
    job_init(&y, &started, &order);
    job_submit(ex, &y, "g", "y", 0, 0);
    job_init(&z, &started, &order);
    job_submit(ex, &z, "z", "z", 0, 0);
    groupconc_group_stats s = tu_gstats(ex, "g");
    if (tu_now_ns() < x.before + x.wait) {
        assert_int_equal(s.waiting_concurrency, 1);
        assert_int_equal(s.waiting_bulkhead, 1);
        assert_int_equal(s.in_flight, 2);
    }
    tu_latch_add(&started, 1); /* Z's start */

    check_expired(rec, &x, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_true(tu_latch_wait(&started));
    s = tu_gstats(ex, "g");
    assert_int_equal(s.waiting_concurrency, 1); /* Y, handed X's bulkhead permit */
    assert_int_equal(s.waiting_bulkhead, 0);
    assert_int_equal(s.in_flight, 2); /* B and Y */
    assert_int_equal(s.running, 1);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.rejected_concurrency, 0);
    check_group_sums(s);
    assert_int_equal(tu_gstats(ex, "z").running, 1); /* handed X's global permit */
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 3); /* B, Y, Z */
    assert_int_equal(xs.waiting, 1);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(atomic_load(&y.park.ran), 0);

    tu_latch_add(&started, 1);
    job_finish(&b);
    assert_true(tu_latch_wait(&started)); /* Y runs */
    job_finish(&y);
    job_finish(&z);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.completed, 4);
    assert_int_equal(xs.succeeded, 3);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&y);
    job_done(&z);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Global running: X holds its group's three permits and waits for the global running cap; Y (same group)
   waits for the concurrency permit, Z (another group) for a global one. X's expiry hands its
   concurrency permit to Y and its global permit to Z: both move on to wait for the running cap, Y
   first. */
static void test_expire_global_running(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"g", 1, GROUPCONC_UNLIMITED, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    p.global_max_in_flight = 3;
    p.global_max_running = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    job b, x, y, z;
    job_init(&b, &started, &order);
    job_submit(ex, &b, "a", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, &started, &order);
    job_submit(ex, &x, "g", "x", W_MS(150), W_MS(150));
    job_init(&y, &started, &order);
    job_submit(ex, &y, "g", "y", 0, 0);
    job_init(&z, &started, &order);
    job_submit(ex, &z, "z", "z", 0, 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    if (tu_now_ns() < x.before + x.wait) {
        assert_int_equal(xs.waiting_running, 1);
        assert_int_equal(xs.waiting, 3);
        assert_int_equal(xs.global_in_flight, 3);
    }

    check_expired(rec, &x, GROUPCONC_EEXPIRED_RUNNING);
    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.waiting_running, 1); /* Y, handed X's concurrency permit */
    assert_int_equal(s.waiting_concurrency, 0);
    assert_int_equal(s.in_flight, 1);
    assert_int_equal(s.expired, 1);
    check_group_sums(s);
    s = tu_gstats(ex, "z");
    assert_int_equal(s.waiting_running, 1); /* Z, handed X's global permit */
    assert_int_equal(s.waiting_global, 0);
    xs = tu_xstats(ex);
    assert_int_equal(xs.waiting_running, 2);
    assert_int_equal(xs.waiting, 2);
    assert_int_equal(xs.global_in_flight, 3); /* B, Y, Z */
    assert_int_equal(xs.global_running, 1);   /* B */
    assert_int_equal(xs.expired, 1);

    /* B ends: the running permit goes to Y (first in the running cap's queue), then to Z */
    tu_latch_add(&started, 1);
    job_finish(&b);
    assert_true(tu_latch_wait(&started));
    assert_int_equal(atomic_load(&y.park.start_seq), 1);
    assert_int_equal(atomic_load(&z.park.ran), 0);
    tu_latch_add(&started, 1);
    job_finish(&y);
    assert_true(tu_latch_wait(&started));
    assert_int_equal(atomic_load(&z.park.start_seq), 2);
    job_finish(&z);
    xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.completed, 4);
    assert_int_equal(xs.succeeded, 3);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&y);
    job_done(&z);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 2. never for a started task ---------------------------------------------------------------- */

/* Starts at once, runs well past its deadline: SUCCESS. Waits first, starts before its deadline,
   runs past it: SUCCESS. Holds every permit but waits for a worker thread past its deadline:
   SUCCESS. "Past its deadline" is proven by a sentinel with a later deadline expiring first. */
static void test_started_never_expires(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"s", 1, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, x, w, s1, s2;

    /* (a) no wait at all */
    job_init(&x, &started, NULL);
    job_submit(ex, &x, "free", "x", W_MS(100), 0);
    assert_true(tu_latch_wait(&started));
    job_init(&b, NULL, NULL);
    job_submit(ex, &b, "s", "b", 0, 0); /* occupies "s" */
    job_init(&s1, NULL, NULL);
    job_submit(ex, &s1, "s", "s1", W_MS(100), W_MS(100)); /* submitted after x: expires after it */
    check_expired(rec, &s1, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_true(tu_now_ns() > x.after + W_MS(100));
    bool done = true;
    assert_int_equal(groupconc_task_is_done(x.h, &done), GROUPCONC_OK);
    assert_false(done);
    job_finish(&x);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "x"), 0);

    /* (b) waits behind b, starts before its deadline, runs past it */
    tu_latch_add(&started, 1);
    job_init(&w, &started, NULL);
    job_submit(ex, &w, "s", "w", W_MS(500), 0);
    job_finish(&b);                       /* hands its concurrency permit to w at once */
    assert_true(tu_latch_wait(&started)); /* w started (well) within its 500 ms */
    job_init(&s2, NULL, NULL);
    job_submit(ex, &s2, "s", "s2", W_MS(500), W_MS(500)); /* waits behind w, expires after w's deadline */
    check_expired(rec, &s2, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(groupconc_task_is_done(w.h, &done), GROUPCONC_OK);
    assert_false(done);
    job_finish(&w);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "w"), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "w"), 1);

    groupconc_group_stats gs = tu_gstats(ex, "s");
    assert_int_equal(gs.expired, 2);
    assert_int_equal(gs.succeeded, 2);
    assert_int_equal(gs.admitted, 2);
    check_group_sums(gs);
    assert_int_equal(tu_gstats(ex, "free").expired, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&w);
    job_done(&s1);
    job_done(&s2);

    /* (c) one worker thread, busy: r holds every permit and waits in the ready queue past its
       deadline; it is not expired and runs when the worker is free */
    p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    p.max_threads = 1;
    ex = tu_executor(&p);
    job r, s3;
    tu_latch_add(&started, 1);
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "s", "b2", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&r, NULL, NULL);
    job_submit(ex, &r, "r", "r", W_MS(100), 0);
    job_init(&s3, NULL, NULL);
    job_submit(ex, &s3, "s", "s3", W_MS(100), W_MS(100));
    check_expired(rec, &s3, GROUPCONC_EEXPIRED_CONCURRENCY);
    gs = tu_gstats(ex, "r");
    assert_int_equal(gs.ready, 1);
    assert_int_equal(gs.admitted, 1);
    assert_int_equal(gs.expired, 0);
    job_finish(&b);
    tu_park_release(&r.park);
    tu_wait_status(r.h, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&r.park.ran), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "r"), 0);
    assert_int_equal(tu_xstats(ex).expired, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&r);
    job_done(&s3);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 3. precedence ----------------------------------------------------------------------------- */

typedef struct prec_case {
    const char *group;
    const char *id;
    int64_t spec;   /* spec.max_wait_ns */
    int64_t expect; /* the deadline that applies (0: none) */
} prec_case;

/* Every pair whose deadlines surely differ fired in that order. */
static void check_deadline_order(recorder *rec, job *const *jobs, int n) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++) {
            if (i == k || jobs[i]->wait <= 0 || jobs[k]->wait <= 0) continue;
            if (jobs[i]->after + jobs[i]->wait < jobs[k]->before + jobs[k]->wait) {
                int ei = rec_index(rec, GROUPCONC_EVENT_REJECTED, jobs[i]->id);
                int ek = rec_index(rec, GROUPCONC_EVENT_REJECTED, jobs[k]->id);
                if (!(ei >= 0 && ek >= 0 && ei < ek))
                    print_error("%s (%lld ms) should expire before %s (%lld ms): #%d, #%d\n",
                                jobs[i]->id, (long long)(jobs[i]->wait / TU_MS), jobs[k]->id,
                                (long long)(jobs[k]->wait / TU_MS), ei, ek);
                assert_true(ei >= 0 && ek >= 0 && ei < ek);
            }
        }
    }
}

static void test_precedence(void **state) {
    (void)state;
    recorder *rec = rec_new();
    const int64_t DEF = W_MS(600);
    groupconc_group_limits table[] = {
        {"T", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, W_MS(250)},
        {"F", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_FOREVER},
        {"Dflt", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT},
        {"Zero", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
    };
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 4;
    p.default_max_wait_ns = DEF;
    p.global_max_in_flight = 1; /* everyone below waits for a global in-flight permit */
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b;
    job_init(&b, &started, NULL);
    b.park.cooperative = true; /* destroy ends it */
    job_submit(ex, &b, "blk", "b", GROUPCONC_FOREVER, 0);
    assert_true(tu_latch_wait(&started));

    static const prec_case cases[] = {
        {"T", "t_own_short", W_MS(100), W_MS(100)},   /* own beats the table (shorter) */
        {"D", "d_own", W_MS(150), W_MS(150)},         /* own beats the policy default */
        {"F", "f_own", W_MS(200), W_MS(200)},         /* own beats a FOREVER table entry */
        {"T", "t_table", 0, W_MS(250)},               /* table beats the default */
        {"T", "t_own_long", W_MS(400), W_MS(400)},    /* own beats the table (longer) */
        {"D", "d_default", 0, W_MS(600)},             /* no entry: the default */
        {"Dflt", "dflt_default", 0, W_MS(600)},       /* entry GROUPCONC_DEFAULT: the default */
        {"Zero", "zero_default", 0, W_MS(600)},       /* entry 0: the default */
        {"D", "d_forever", GROUPCONC_FOREVER, 0},     /* FOREVER per submit beats the default */
        {"T", "t_forever", GROUPCONC_FOREVER, 0},     /* ... and the table */
        {"F", "f_table", 0, 0},                       /* table FOREVER beats the default */
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    job jobs[NC];
    job *ptrs[NC];
    for (int i = 0; i < NC; i++) {
        job_init(&jobs[i], NULL, NULL);
        job_submit(ex, &jobs[i], cases[i].group, cases[i].id, cases[i].spec, cases[i].expect);
        ptrs[i] = &jobs[i];
    }
    /* the resolved group deadlines */
    assert_int_equal(tu_gstats(ex, "T").max_wait_ns, W_MS(250));
    assert_int_equal(tu_gstats(ex, "D").max_wait_ns, DEF);
    assert_int_equal(tu_gstats(ex, "F").max_wait_ns, GROUPCONC_FOREVER);
    assert_int_equal(tu_gstats(ex, "Dflt").max_wait_ns, DEF);
    assert_int_equal(tu_gstats(ex, "Zero").max_wait_ns, DEF);

    int expiring = 0;
    for (int i = 0; i < NC; i++) {
        if (!cases[i].expect) continue;
        check_expired(rec, &jobs[i], GROUPCONC_EEXPIRED_GLOBAL);
        expiring++;
    }
    check_deadline_order(rec, ptrs, NC);
    /* the ones with no deadline are still waiting, after the longest deadline passed */
    for (int i = 0; i < NC; i++) {
        if (cases[i].expect) continue;
        bool done = true;
        assert_int_equal(groupconc_task_is_done(jobs[i].h, &done), GROUPCONC_OK);
        assert_false(done);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, (uint64_t)expiring);
    assert_int_equal(xs.waiting, (size_t)(NC - expiring));

    /* groupconc_group_limits_set: a table value for tasks submitted afterwards; a key with no state
       yet is recorded; GROUPCONC_FOREVER for the group overrides the default */
    groupconc_group_limits l = groupconc_group_limits_keep("D");
    l.max_wait_ns = W_MS(120);
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    l = groupconc_group_limits_keep("New");
    l.max_wait_ns = W_MS(80);
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    l = groupconc_group_limits_keep("Zero");
    l.max_wait_ns = GROUPCONC_FOREVER;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "D").max_wait_ns, W_MS(120));
    assert_int_equal(tu_gstats(ex, "Zero").max_wait_ns, GROUPCONC_FOREVER);
    job n1, n2, n3, n4;
    job_init(&n1, NULL, NULL);
    job_submit(ex, &n1, "D", "n_d", 0, W_MS(120));
    job_init(&n2, NULL, NULL);
    job_submit(ex, &n2, "New", "n_new", 0, W_MS(80));
    job_init(&n3, NULL, NULL);
    job_submit(ex, &n3, "Zero", "n_zero", 0, 0);
    job_init(&n4, NULL, NULL);
    job_submit(ex, &n4, "D", "n_d_own", W_MS(60), W_MS(60));
    assert_int_equal(tu_gstats(ex, "New").max_wait_ns, W_MS(80));
    check_expired(rec, &n4, GROUPCONC_EEXPIRED_GLOBAL);
    check_expired(rec, &n2, GROUPCONC_EEXPIRED_GLOBAL);
    check_expired(rec, &n1, GROUPCONC_EEXPIRED_GLOBAL);
    job *nptrs[3] = {&n1, &n2, &n4};
    check_deadline_order(rec, nptrs, 3);
    /* back to the default */
    l = groupconc_group_limits_keep("D");
    l.max_wait_ns = GROUPCONC_DEFAULT;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "D").max_wait_ns, DEF);

    /* what never expires is cancelled by destroy */
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    for (int i = 0; i < NC; i++) {
        if (cases[i].expect) continue;
        groupconc_result r = tu_wait(jobs[i].h);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
        assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, jobs[i].id), 0);
    }
    tu_wait_status(n3.h, GROUPCONC_STATUS_CANCELLED);
    for (int i = 0; i < NC; i++) job_done(&jobs[i]);
    job_done(&n1);
    job_done(&n2);
    job_done(&n3);
    job_done(&n4);
    tu_wait_status(b.h, GROUPCONC_STATUS_CANCELLED); /* flagged by destroy, cooperative */
    job_done(&b);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* A policy default applies when nothing else is set; a spec of GROUPCONC_FOREVER overrides it;
   groupconc_executor_limits_set changes it for later submits. */
static void test_policy_default_and_live_default(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    p.default_max_wait_ns = W_MS(100);
    p.default_concurrency = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, d, f, e;
    job_init(&b, &started, NULL);
    b.park.cooperative = true;
    job_submit(ex, &b, "g", "b", 0, 0); /* starts at once: its deadline never applies */
    assert_true(tu_latch_wait(&started));
    job_init(&d, NULL, NULL);
    job_submit(ex, &d, "g", "d", 0, W_MS(100));
    job_init(&f, NULL, NULL);
    job_submit(ex, &f, "g", "f", GROUPCONC_FOREVER, 0);
    check_expired(rec, &d, GROUPCONC_EEXPIRED_CONCURRENCY);

    groupconc_executor_limits el = groupconc_executor_limits_keep();
    el.default_max_wait_ns = W_MS(200);
    assert_int_equal(groupconc_executor_limits_set(ex, &el), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "g").max_wait_ns, W_MS(200));
    job_init(&e, NULL, NULL);
    job_submit(ex, &e, "g", "e", 0, W_MS(200));
    check_expired(rec, &e, GROUPCONC_EEXPIRED_CONCURRENCY);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(f.h, &done), GROUPCONC_OK);
    assert_false(done); /* FOREVER: still waiting, two deadlines later */
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "b"), 0);

    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.expired, 2);
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_wait_status(f.h, GROUPCONC_STATUS_CANCELLED);
    tu_wait_status(b.h, GROUPCONC_STATUS_CANCELLED); /* cooperative: it saw the shutdown */
    job_done(&b);
    job_done(&d);
    job_done(&f);
    job_done(&e);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* No deadline anywhere at creation (submits may take the lock-free inbox): a deadline set later
   by groupconc_group_limits_set or groupconc_executor_limits_set applies to the tasks submitted
   afterwards, and not to those already waiting. */
static void test_live_deadline_from_nothing(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    job b, bh, old, x, y;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "g", "b", 0, 0);
    job_init(&bh, &started, NULL);
    job_submit(ex, &bh, "h", "bh", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&old, NULL, NULL);
    job_submit(ex, &old, "g", "old", 0, 0); /* no deadline when submitted */
    assert_int_equal(tu_gstats(ex, "g").max_wait_ns, GROUPCONC_FOREVER);

    groupconc_group_limits l = groupconc_group_limits_keep("g");
    l.max_wait_ns = W_MS(100);
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "g").max_wait_ns, W_MS(100));
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", 0, W_MS(100));
    check_expired(rec, &x, GROUPCONC_EEXPIRED_CONCURRENCY);

    groupconc_executor_limits el = groupconc_executor_limits_keep();
    el.default_max_wait_ns = W_MS(100);
    assert_int_equal(groupconc_executor_limits_set(ex, &el), GROUPCONC_OK);
    assert_int_equal(tu_gstats(ex, "h").max_wait_ns, W_MS(100));
    job_init(&y, NULL, NULL);
    job_submit(ex, &y, "h", "y", 0, W_MS(100));
    check_expired(rec, &y, GROUPCONC_EEXPIRED_CONCURRENCY);

    bool done = true;
    assert_int_equal(groupconc_task_is_done(old.h, &done), GROUPCONC_OK);
    assert_false(done); /* its deadline was fixed (none) at submit */
    tu_park_release(&old.park);
    job_finish(&b);
    tu_wait_status(old.h, GROUPCONC_STATUS_SUCCESS);
    job_finish(&bh);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, 2);
    assert_int_equal(xs.succeeded, 3);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&bh);
    job_done(&old);
    job_done(&x);
    job_done(&y);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* The deadline counts from submit, across layers: x waits for a global in-flight permit, is handed
   one (after at least 200 ms) and waits on at the concurrency layer; it still expires 400 ms after
   its submit, before s2 (500 ms, submitted after it), which then takes x's global permit and
   expires at the concurrency layer in its turn. */
static void test_deadline_counts_from_submit(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    p.global_max_in_flight = 2;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    job b1, b2, x, s1, s2;
    job_init(&b1, &started, NULL);
    job_submit(ex, &b1, "g", "b1", 0, 0);
    job_init(&b2, &started, NULL);
    job_submit(ex, &b2, "h", "b2", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", W_MS(400), W_MS(400));
    job_init(&s1, NULL, NULL);
    job_submit(ex, &s1, "k", "s1", W_MS(200), W_MS(200));
    job_init(&s2, NULL, NULL);
    job_submit(ex, &s2, "g", "s2", W_MS(500), W_MS(500));
    check_expired(rec, &s1, GROUPCONC_EEXPIRED_GLOBAL);
    job_finish(&b2); /* its global permit goes to x, which moves on to wait for g's concurrency */
    groupconc_group_stats s = tu_gstats(ex, "g");
    if (tu_now_ns() < x.before + x.wait) {
        assert_int_equal(s.waiting_concurrency, 1);
        assert_int_equal(s.waiting_global, 1); /* s2 */
    }
    int ix = check_expired(rec, &x, GROUPCONC_EEXPIRED_CONCURRENCY);
    int is2 = check_expired(rec, &s2, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_true(ix < is2);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 1); /* b1 */
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.expired, 3);
    job_finish(&b1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b1);
    job_done(&b2);
    job_done(&x);
    job_done(&s1);
    job_done(&s2);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* groupconc_execute_all reports an expired element as REJECTED with its EEXPIRED reason. */
static void test_execute_all_reports_expiry(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, a0, a1;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "g", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&a0, NULL, NULL);
    job_init(&a1, NULL, NULL);
    tu_park_release(&a1.park);
    groupconc_task_spec specs[2];
    memset(specs, 0, sizeof specs);
    specs[0].group = "g";
    specs[0].task_id = "a0";
    specs[0].fn = job_fn;
    specs[0].arg = &a0;
    specs[0].cleanup = job_cleanup;
    specs[0].max_wait_ns = W_MS(100);
    specs[1].group = "free";
    specs[1].task_id = "a1";
    specs[1].fn = job_fn;
    specs[1].arg = &a1;
    specs[1].cleanup = job_cleanup;
    specs[1].max_wait_ns = W_MS(100);
    groupconc_result res[2];
    int64_t t0 = tu_now_ns();
    assert_int_equal(groupconc_execute_all(ex, specs, 2, TU_TIMEOUT_NS, res), GROUPCONC_OK);
    assert_int_equal(res[0].status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res[0].reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_true((int64_t)res[0].start_ns >= t0 + W_MS(100));
    assert_int_equal(res[1].status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&a0.park.ran), 0);
    assert_int_equal(atomic_load(&a0.cleanups), 1);
    assert_int_equal(atomic_load(&a1.cleanups), 1);
    assert_int_equal(tu_gstats(ex, "g").expired, 1);
    job_finish(&b);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    tu_park_destroy(&a0.park);
    tu_park_destroy(&a1.park);
    tu_latch_destroy(&started);
}

/* ---- 4. order ------------------------------------------------------------------------------------- */

/* Waiting tasks with shuffled deadlines expire in deadline order, not in FIFO order: NQ wait at
   group q's concurrency (holding global permits), NR for a global in-flight permit. An expiring q
   task (or an r task that had reached its concurrency layer) hands its global permit to the first
   r task still waiting for one, which moves on to wait for r's concurrency: its reason follows,
   exactly (simulated from the observed order). */
static void test_expiry_order(void **state) {
    (void)state;
    enum { NQ = 12, NR = 12, N = NQ + NR };
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"q", 1, GROUPCONC_UNLIMITED, GROUPCONC_DEFAULT, 0},
                                      {"r", 1, GROUPCONC_UNLIMITED, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 2;
    p.global_max_in_flight = 2 + NQ;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    job bq, br;
    job_init(&bq, &started, NULL);
    job_submit(ex, &bq, "q", "bq", 0, 0);
    job_init(&br, &started, NULL);
    job_submit(ex, &br, "r", "br", 0, 0);
    assert_true(tu_latch_wait(&started));

    int64_t waits[N];
    for (int i = 0; i < N; i++) waits[i] = W_MS(100) + i * W_MS(12);
    uint32_t seed = 20240607u;
    for (int i = N - 1; i > 0; i--) { /* shuffle */
        int k = (int)(tu_rand(&seed) % (uint32_t)(i + 1));
        int64_t t = waits[i];
        waits[i] = waits[k];
        waits[k] = t;
    }
    job jobs[N];
    job *ptrs[N];
    for (int i = 0; i < N; i++) {
        char id[ID_LEN];
        snprintf(id, sizeof id, "%c%d", i < NQ ? 'q' : 'r', i);
        job_init(&jobs[i], NULL, NULL);
        job_submit(ex, &jobs[i], i < NQ ? "q" : "r", id, waits[i], waits[i]);
        ptrs[i] = &jobs[i];
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    if (tu_now_ns() < jobs[0].before + W_MS(100)) { /* before the earliest deadline */
        assert_int_equal(xs.waiting, N);
        assert_int_equal(xs.global_in_flight, 2 + NQ);
    }
    for (int i = 0; i < N; i++) (void)tu_wait(jobs[i].h);

    /* the observed order, and the exact reasons it implies */
    int idx[N];
    for (int i = 0; i < N; i++) idx[i] = rec_index(rec, GROUPCONC_EVENT_REJECTED, jobs[i].id);
    int by_time[N];
    for (int i = 0; i < N; i++) by_time[i] = i;
    for (int i = 1; i < N; i++) /* insertion sort by event index */
        for (int k = i; k > 0 && idx[by_time[k - 1]] > idx[by_time[k]]; k--) {
            int t = by_time[k];
            by_time[k] = by_time[k - 1];
            by_time[k - 1] = t;
        }
    int expect_reason[N];
    bool at_conc[N];
    int next_r = NQ; /* the first r task still waiting for a global permit (FIFO = submit order) */
    bool gone[N];
    for (int i = 0; i < N; i++) {
        at_conc[i] = i < NQ;
        gone[i] = false;
    }
    for (int s = 0; s < N; s++) {
        int t = by_time[s];
        assert_true(idx[t] >= 0);
        expect_reason[t] = at_conc[t] ? GROUPCONC_EEXPIRED_CONCURRENCY : GROUPCONC_EEXPIRED_GLOBAL;
        gone[t] = true;
        if (at_conc[t]) { /* it held a global permit: the first r still waiting for one gets it */
            while (next_r < N && gone[next_r]) next_r++;
            if (next_r < N) at_conc[next_r++] = true;
        }
    }
    for (int i = 0; i < N; i++) check_expired(rec, &jobs[i], expect_reason[i]);
    check_deadline_order(rec, ptrs, N);
    /* sanity: the deadlines were not in FIFO order, and the expiries were not either */
    bool fifo = true;
    for (int s = 0; s < N; s++)
        if (by_time[s] != s) fifo = false;
    assert_false(fifo);

    xs = tu_xstats(ex);
    assert_int_equal(xs.expired, N);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.global_in_flight, 2);
    groupconc_group_stats s = tu_gstats(ex, "q");
    assert_int_equal(s.expired, NQ);
    check_group_sums(s);
    s = tu_gstats(ex, "r");
    assert_int_equal(s.expired, NR);
    assert_int_equal(s.in_flight, 1);
    job_finish(&bq);
    job_finish(&br);
    check_exec_sums(tu_xstats(ex));
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&bq);
    job_done(&br);
    for (int i = 0; i < N; i++) job_done(&jobs[i]);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Completion callbacks see the expiries in the same order as the listener. */
typedef struct cb_order {
    tu_mutex m;
    tu_latch all;
    int n;
    int seq[64];
} cb_order;

static void order_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    cb_order *o = (cb_order *)user_data;
    tu_mutex_lock(&o->m);
    if (o->n < 64) o->seq[o->n++] = atoi(result->task_id);
    tu_mutex_unlock(&o->m);
    tu_latch_count_down(&o->all);
}

static void test_expiry_order_callbacks(void **state) {
    (void)state;
    enum { N = 30 };
    groupconc_policy p = groupconc_policy_default(); /* no listener */
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "q", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    cb_order o;
    tu_mutex_init(&o.m);
    tu_latch_init(&o.all, N);
    o.n = 0;
    int64_t waits[N];
    for (int i = 0; i < N; i++) waits[i] = W_MS(80) + i * W_MS(10);
    uint32_t seed = 777u;
    for (int i = N - 1; i > 0; i--) {
        int k = (int)(tu_rand(&seed) % (uint32_t)(i + 1));
        int64_t t = waits[i];
        waits[i] = waits[k];
        waits[k] = t;
    }
    job jobs[N];
    for (int i = 0; i < N; i++) {
        char id[ID_LEN];
        snprintf(id, sizeof id, "%d", i);
        job_init(&jobs[i], NULL, NULL);
        job_submit(ex, &jobs[i], "q", id, waits[i], waits[i]);
        assert_int_equal(groupconc_task_on_complete(jobs[i].h, order_cb, &o), GROUPCONC_OK);
    }
    for (int i = 0; i < N; i++) {
        groupconc_result r = tu_wait(jobs[i].h);
        assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
        assert_true((int64_t)r.start_ns >= jobs[i].before + waits[i]);
    }
    /* a wait may return before the callbacks ran: wait for them */
    assert_true(tu_latch_wait(&o.all));
    tu_mutex_lock(&o.m);
    assert_int_equal(o.n, N);
    tu_mutex_unlock(&o.m);
    int pos[N];
    for (int s = 0; s < N; s++) pos[o.seq[s]] = s;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++)
            if (jobs[i].after + waits[i] < jobs[k].before + waits[k]) assert_true(pos[i] < pos[k]);
    assert_int_equal(tu_xstats(ex).expired, N);
    job_finish(&b);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    for (int i = 0; i < N; i++) job_done(&jobs[i]);
    tu_latch_destroy(&o.all);
    tu_mutex_destroy(&o.m);
    tu_latch_destroy(&started);
}

/* ---- 5. cancelled or admitted before the deadline ------------------------------------------------ */

static void test_cancel_or_admit_ends_deadline(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    job b, bh, x, y, g1, s1;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "g", "b", 0, 0);
    job_init(&bh, &started, NULL);
    job_submit(ex, &bh, "h", "bh", 0, 0);
    assert_true(tu_latch_wait(&started));

    /* (a) cancelled: DEQUEUED at once, CANCELLED */
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", W_MS(150), 0);
    groupconc_cancel_outcome out = GROUPCONC_CANCEL_TOO_LATE;
    assert_int_equal(groupconc_task_cancel(x.h, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    groupconc_result r = tu_wait(x.h);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_int_equal(atomic_load(&x.cleanups), 1);
    /* (b) admitted at once (group k is free): its deadline never applies */
    job_init(&g1, NULL, NULL);
    job_submit(ex, &g1, "k", "g1", W_MS(150), 0);

    /* (c) admitted before its deadline: y waits behind bh, bh ends, y runs and succeeds */
    tu_latch_add(&started, 1);
    job_init(&y, &started, NULL);
    job_submit(ex, &y, "h", "y", W_MS(500), 0);
    job_finish(&bh);
    assert_true(tu_latch_wait(&started));
    job_finish(&y);

    /* a sentinel submitted after all of them (so with a later deadline) expires: had any of them
       kept its deadline, it would have expired first */
    job_init(&s1, NULL, NULL);
    job_submit(ex, &s1, "g", "s1", W_MS(500), W_MS(500));
    check_expired(rec, &s1, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "x"), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "x"), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "y"), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "y"), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "g1"), 0); /* still parked, running */
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, "g1"), 1);
    /* a second cancel is too late and changes nothing */
    assert_int_equal(groupconc_task_cancel(x.h, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_TOO_LATE);

    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.cancelled, 1);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.completed, 2);
    assert_int_equal(s.submitted, 3);
    check_group_sums(s);
    s = tu_gstats(ex, "h");
    assert_int_equal(s.succeeded, 2);
    assert_int_equal(s.expired, 0);
    assert_int_equal(s.completed, 2);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.cancelled, 1);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.succeeded, 2);
    tu_park_release(&g1.park);
    tu_wait_status(g1.h, GROUPCONC_STATUS_SUCCESS);
    job_finish(&b);
    xs = tu_xstats(ex);
    assert_int_equal(xs.completed, 6);
    assert_int_equal(xs.succeeded, 4);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&bh);
    job_done(&x);
    job_done(&y);
    job_done(&g1);
    job_done(&s1);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Removed by a group shutdown before its deadline: CANCELLED, never expired afterwards. */
static void test_group_shutdown_ends_deadline(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    job b, bs, x, s1;
    job_init(&b, &started, NULL);
    b.park.cooperative = true;
    job_submit(ex, &b, "g", "b", 0, 0);
    job_init(&bs, &started, NULL);
    job_submit(ex, &bs, "s", "bs", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", W_MS(100), 0);
    assert_int_equal(groupconc_group_shutdown(ex, "g"), GROUPCONC_OK);
    groupconc_result r = tu_wait(x.h);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    job_init(&s1, NULL, NULL);
    job_submit(ex, &s1, "s", "s1", W_MS(100), W_MS(100));
    check_expired(rec, &s1, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "x"), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "x"), 1);
    tu_wait_status(b.h, GROUPCONC_STATUS_CANCELLED); /* flagged, cooperative */
    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.cancelled, 2);
    assert_int_equal(s.expired, 0);
    check_group_sums(s);
    job_finish(&bs);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.cancelled, 2);
    assert_int_equal(xs.succeeded, 1);
    assert_int_equal(xs.completed, 4);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&bs);
    job_done(&x);
    job_done(&s1);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 6. no rejection policy, no handler ---------------------------------------------------------- */

typedef struct handler_count {
    atomic_int calls;
    atomic_int last_reason;
} handler_count;

static void counting_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    handler_count *h = (handler_count *)user_data;
    atomic_store(&h->last_reason, rj->reason);
    atomic_fetch_add(&h->calls, 1);
    out->status = GROUPCONC_STATUS_SUCCESS; /* would turn the rejection into a success */
}

static void test_expired_not_run_nor_handled(void **state) {
    (void)state;
    for (int mode = 0; mode < 4; mode++) { /* ABORT, DISCARD, CALLER_RUNS, handler */
        recorder *rec = rec_new();
        handler_count hc;
        atomic_init(&hc.calls, 0);
        atomic_init(&hc.last_reason, 0);
        groupconc_group_limits table[] = {{"g", 1, GROUPCONC_DEFAULT, 2, 0}}; /* threshold 2 */
        groupconc_policy p = rec_policy(rec);
        p.groups = table;
        p.group_count = 1;
        p.rejection = mode == 0   ? GROUPCONC_REJECT_ABORT
                      : mode == 1 ? GROUPCONC_REJECT_DISCARD
                                  : GROUPCONC_REJECT_CALLER_RUNS;
        if (mode == 3) {
            p.reject_handler = counting_handler;
            p.reject_user_data = &hc;
        }
        groupconc_executor *ex = tu_executor(&p);
        tu_latch started;
        tu_latch_init(&started, 1);
        job b, x1, x2;
        job_init(&b, &started, NULL);
        job_submit(ex, &b, "g", "b", 0, 0);
        assert_true(tu_latch_wait(&started));
        job_init(&x1, NULL, NULL);
        job_submit(ex, &x1, "g", "x1", W_MS(300), W_MS(300));
        job_init(&x2, NULL, NULL);
        job_submit(ex, &x2, "g", "x2", W_MS(350), W_MS(350));

        /* the policy is live: a threshold rejection in submit goes through it */
        atomic_int ran;
        atomic_init(&ran, 0);
        groupconc_task *t = NULL;
        int rc = groupconc_submit(ex, "g", "over", tu_count_fn, &ran, &t);
        if (mode == 0) {
            assert_int_equal(rc, GROUPCONC_EREJECTED_CONCURRENCY);
        } else {
            assert_int_equal(rc, GROUPCONC_OK);
            groupconc_result r = tu_wait(t);
            assert_int_equal(r.status, mode == 1 ? GROUPCONC_STATUS_REJECTED : GROUPCONC_STATUS_SUCCESS);
            assert_int_equal(atomic_load(&ran), mode == 2 ? 1 : 0);
            assert_int_equal(atomic_load(&hc.calls), mode == 3 ? 1 : 0);
            groupconc_task_release(t);
        }

        /* the expiries: not run, no handler, REJECTED with the layer's reason */
        check_expired(rec, &x1, GROUPCONC_EEXPIRED_CONCURRENCY);
        check_expired(rec, &x2, GROUPCONC_EEXPIRED_CONCURRENCY);
        assert_int_equal(atomic_load(&hc.calls), mode == 3 ? 1 : 0);
        /* they left the queue: its threshold admits two waiters again */
        job a1, a2;
        job_init(&a1, NULL, NULL);
        tu_park_release(&a1.park);
        job_submit(ex, &a1, "g", "a1", 0, 0);
        job_init(&a2, NULL, NULL);
        tu_park_release(&a2.park);
        job_submit(ex, &a2, "g", "a2", 0, 0);
        assert_int_equal(tu_gstats(ex, "g").waiting_concurrency, 2);
        assert_int_equal(atomic_load(&ran), mode == 2 ? 1 : 0);
        groupconc_group_stats s = tu_gstats(ex, "g");
        assert_int_equal(s.expired, 2);
        assert_int_equal(s.rejected_concurrency, mode <= 1 ? 1 : 0);
        assert_int_equal(s.succeeded, mode >= 2 ? 1 : 0);
        assert_int_equal(s.waiting_concurrency, 2);
        check_group_sums(s);
        job_finish(&b);
        tu_wait_status(a1.h, GROUPCONC_STATUS_SUCCESS);
        tu_wait_status(a2.h, GROUPCONC_STATUS_SUCCESS);
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.expired, 2);
        assert_int_equal(xs.completed, 6);
        check_exec_sums(xs);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        job_done(&a1);
        job_done(&a2);
        job_done(&b);
        job_done(&x1);
        job_done(&x2);
        tu_latch_destroy(&started);
        rec_free(rec);
    }
}

/* A cancel of the expiring task from inside its REJECTED event (under CALLER_RUNS, where a
   cancel may call off a rejected task's re-run): the task still completes exactly once, and the
   cancel's outcome agrees with the final status. */
static void cancel_hook(const groupconc_event *e, recorder *r) {
    if (e->type != GROUPCONC_EVENT_REJECTED || !e->task_id || strcmp(e->task_id, "x") != 0) return;
    (void)tu_latch_wait(&r->hook_armed); /* the submit has returned the handle */
    groupconc_task *t = atomic_load(&r->hook_task);
    groupconc_cancel_outcome out = GROUPCONC_CANCEL_TOO_LATE;
    r->hook_rc = groupconc_task_cancel(t, &out);
    r->hook_outcome = (int)out;
    atomic_fetch_add(&r->hook_calls, 1);
    tu_latch_count_down(&r->hook_done);
}

static void test_cancel_inside_expiry_event(void **state) {
    (void)state;
    for (int mode = 0; mode < 2; mode++) { /* ABORT, CALLER_RUNS */
        recorder *rec = rec_new();
        rec->hook = cancel_hook;
        groupconc_policy p = rec_policy(rec);
        p.rejection = mode == 0 ? GROUPCONC_REJECT_ABORT : GROUPCONC_REJECT_CALLER_RUNS;
        groupconc_executor *ex = tu_executor(&p);
        tu_latch started;
        tu_latch_init(&started, 1);
        job b, x;
        job_init(&b, &started, NULL);
        job_submit(ex, &b, "g", "b", 0, 0);
        assert_true(tu_latch_wait(&started));
        job_init(&x, NULL, NULL);
        job_submit(ex, &x, "g", "x", W_MS(100), W_MS(100));
        atomic_store(&rec->hook_task, x.h);
    tu_latch_open(&rec->hook_armed);
        groupconc_result r = tu_wait(x.h);
        assert_true(tu_latch_wait(&rec->hook_done)); /* the hook's results are written */
        assert_int_equal(atomic_load(&rec->hook_calls), 1);
        assert_int_equal(rec->hook_rc, GROUPCONC_OK);
        if (rec->hook_outcome != GROUPCONC_CANCEL_TOO_LATE)
            print_error("mode %d: cancel inside the expiry's REJECTED event returned %s, final status %s\n",
                        mode, groupconc_cancel_outcome_name((groupconc_cancel_outcome)rec->hook_outcome),
                        groupconc_status_name(r.status));
        /* whatever the cancel says, the task completes once, as it says */
        if (rec->hook_outcome == GROUPCONC_CANCEL_DEQUEUED) {
            assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        } else {
            assert_int_equal(rec->hook_outcome, GROUPCONC_CANCEL_TOO_LATE);
            assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
            assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
        }
        job_finish(&b);
        /* a later event would show up before the executor is gone */
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "x"), 1);
        assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, "x"), 1);
        assert_int_equal(atomic_load(&x.park.ran), 0);
        job_done(&x);
        job_done(&b);
        tu_latch_destroy(&started);
        rec_free(rec);
    }
}

/* The counters after the race above, checked with an executor still alive. */
static void test_cancel_inside_expiry_event_counts(void **state) {
    (void)state;
    recorder *rec = rec_new();
    rec->hook = cancel_hook;
    groupconc_policy p = rec_policy(rec);
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, x;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "g", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", W_MS(100), W_MS(100));
    atomic_store(&rec->hook_task, x.h);
    tu_latch_open(&rec->hook_armed);
    groupconc_result r = tu_wait(x.h);
    assert_true(tu_latch_wait(&rec->hook_done));
    job_finish(&b);
    groupconc_executor_stats xs = tu_xstats(ex);
    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(xs.completed, 2);
    assert_int_equal(s.completed, 2);
    assert_int_equal(xs.expired + xs.cancelled, 1);
    assert_int_equal(xs.expired, r.status == GROUPCONC_STATUS_REJECTED ? 1 : 0);
    check_exec_sums(xs);
    check_group_sums(s);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "x"), 1);
    job_done(&x);
    job_done(&b);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 7. bad values -------------------------------------------------------------------------------- */

static void test_bad_values(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    groupconc_policy_problem pr;
    groupconc_executor *ex = NULL;

    /* policy default: 0 and negatives other than FOREVER are refused */
    const int64_t bad_defaults[] = {0, -5, GROUPCONC_DEFAULT, GROUPCONC_KEEP, INT64_MIN};
    for (size_t i = 0; i < sizeof bad_defaults / sizeof bad_defaults[0]; i++) {
        p.default_max_wait_ns = bad_defaults[i];
        memset(&pr, 0, sizeof pr);
        assert_int_equal(groupconc_policy_check(&p, &pr), GROUPCONC_ELIMIT);
        assert_int_equal(pr.code, GROUPCONC_ELIMIT);
        assert_string_equal(pr.field, "default_max_wait_ns");
        assert_true(pr.value == (long long)bad_defaults[i]);
        assert_null(pr.group);
        assert_non_null(strstr(pr.message, "default_max_wait_ns"));
        ex = (groupconc_executor *)&pr;
        assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_ELIMIT);
        assert_null(ex);
    }
    p.default_max_wait_ns = GROUPCONC_FOREVER;
    assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_OK);
    p.default_max_wait_ns = 1;
    assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_OK);

    /* a table entry: -7 refused and named; 0, DEFAULT, FOREVER, > 0 accepted */
    groupconc_group_limits table[] = {
        {"ok0", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"bad", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, -7},
    };
    p = rec_policy(rec);
    p.groups = table;
    p.group_count = 2;
    memset(&pr, 0, sizeof pr);
    assert_int_equal(groupconc_policy_check(&p, &pr), GROUPCONC_ELIMIT);
    assert_string_equal(pr.field, "groups[1].max_wait_ns");
    assert_non_null(pr.group);
    assert_string_equal(pr.group, "bad");
    assert_true(pr.value == -7);
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_ELIMIT);
    assert_null(ex);
    const int64_t good_entries[] = {0, GROUPCONC_DEFAULT, GROUPCONC_FOREVER, 1, W_MS(5)};
    for (size_t i = 0; i < sizeof good_entries / sizeof good_entries[0]; i++) {
        table[1].max_wait_ns = good_entries[i];
        assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_OK);
    }
    table[1].max_wait_ns = GROUPCONC_KEEP; /* not a table value */
    assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_ELIMIT);
    table[1].max_wait_ns = W_MS(50);
    ex = tu_executor(&p);

    /* per submit: -5 (or DEFAULT, KEEP) refused before anything happens; the cleanup is not called */
    job j;
    job_init(&j, NULL, NULL);
    const int64_t bad_specs[] = {-5, GROUPCONC_DEFAULT, GROUPCONC_KEEP, INT64_MIN};
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = "bad";
        spec.task_id = "neg";
        spec.fn = job_fn;
        spec.arg = &j;
        spec.cleanup = job_cleanup;
        spec.max_wait_ns = bad_specs[i];
        groupconc_task *t = (groupconc_task *)&j;
        assert_int_equal(groupconc_submit_spec(ex, &spec, &t), GROUPCONC_ELIMIT);
        assert_null(t);
    }
    assert_int_equal(atomic_load(&j.cleanups), 0);
    assert_int_equal(atomic_load(&j.park.ran), 0);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 0);
    assert_int_equal(xs.completed, 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_SUBMITTED, "neg"), 0);
    tu_park_destroy(&j.park);

    /* live changes: refused, nothing changed */
    groupconc_group_limits l = groupconc_group_limits_keep("bad");
    l.max_wait_ns = -7;
    assert_int_equal(groupconc_group_limits_set(ex, &l), GROUPCONC_ELIMIT);
    groupconc_executor_limits el = groupconc_executor_limits_keep();
    el.default_max_wait_ns = 0;
    assert_int_equal(groupconc_executor_limits_set(ex, &el), GROUPCONC_ELIMIT);
    el.default_max_wait_ns = -5;
    assert_int_equal(groupconc_executor_limits_set(ex, &el), GROUPCONC_ELIMIT);
    job k;
    job_init(&k, NULL, NULL);
    job_submit(ex, &k, "bad", "k", 0, 0); /* creates the group; starts at once */
    tu_park_release(&k.park);
    tu_wait_status(k.h, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(tu_gstats(ex, "bad").max_wait_ns, W_MS(50));
    groupconc_executor_stats after = tu_xstats(ex);
    assert_int_equal(after.submitted, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&k);
    rec_free(rec);
}

/* ---- 8. shutdown, graceful shutdown and destroy with deadlines pending ----------------------------- */

static void test_destroy_with_waiting_deadlines(void **state) {
    (void)state;
    for (int how = 0; how < 2; how++) { /* 0: destroy, 1: shutdown then destroy */
        recorder *rec = rec_new();
        groupconc_group_limits table[] = {{"g2", 4, 1, GROUPCONC_DEFAULT, 0}};
        groupconc_policy p = rec_policy(rec);
        p.groups = table;
        p.group_count = 1;
        p.global_max_in_flight = 5; /* b1, b2, w0 (bulkhead), w1 (concurrency), w2 (running); the
                                       rest wait for a global in-flight permit */
        p.global_max_running = 2;
        groupconc_executor *ex = tu_executor(&p);
        tu_latch started;
        tu_latch_init(&started, 2);
        job b1, b2;
        job_init(&b1, &started, NULL);
        b1.park.cooperative = true;
        job_submit(ex, &b1, "g2", "b1", 0, 0); /* holds g2's bulkhead and a running permit */
        job_init(&b2, &started, NULL);
        b2.park.cooperative = true;
        job_submit(ex, &b2, "g3", "b2", 0, 0); /* holds g3's concurrency and the other running permit */
        assert_true(tu_latch_wait(&started));
        enum { N = 8 };
        job w[N];
        static const char *const groups[N] = {"g2", "g3", "g4", "g5", "g1", "g1", "g2", "g3"};
        for (int i = 0; i < N; i++) {
            char id[ID_LEN];
            snprintf(id, sizeof id, "w%d", i);
            job_init(&w[i], NULL, NULL);
            job_submit(ex, &w[i], groups[i], id, 60 * TU_SEC, 0); /* far away */
        }
        groupconc_executor_stats xs = tu_xstats(ex);
        assert_int_equal(xs.waiting, N);
        assert_int_equal(xs.waiting_running, 1);
        assert_int_equal(xs.global_in_flight, 5);
        int64_t t0 = tu_now_ns();
        if (how == 1) {
            assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
            /* the waiting tasks completed on this thread before it returned */
            for (int i = 0; i < N; i++) {
                bool done = false;
                assert_int_equal(groupconc_task_is_done(w[i].h, &done), GROUPCONC_OK);
                assert_true(done);
            }
            tu_wait_status(b1.h, GROUPCONC_STATUS_CANCELLED);
            tu_wait_status(b2.h, GROUPCONC_STATUS_CANCELLED);
            xs = tu_xstats(ex);
            assert_int_equal(xs.cancelled, N + 2);
            assert_int_equal(xs.expired, 0);
            assert_int_equal(xs.waiting, 0);
            assert_int_equal(xs.global_in_flight, 0);
            check_exec_sums(xs);
        }
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_true(tu_now_ns() - t0 < 20 * TU_SEC); /* no wait for the deadlines */
        for (int i = 0; i < N; i++) {
            groupconc_result r = tu_wait(w[i].h);
            assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
            assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, w[i].id), 1);
            assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, w[i].id), 0);
            job_done(&w[i]);
        }
        tu_wait_status(b1.h, GROUPCONC_STATUS_CANCELLED);
        tu_wait_status(b2.h, GROUPCONC_STATUS_CANCELLED);
        job_done(&b1);
        job_done(&b2);
        tu_latch_destroy(&started);
        rec_free(rec);
    }
}

/* Destroy while deadlines are due any moment: each task completes exactly once, either expired or
   cancelled, and the counters agree. */
static void test_destroy_races_expiry(void **state) {
    (void)state;
    for (int round = 0; round < 24; round++) {
        recorder *rec = rec_new();
        groupconc_policy p = rec_policy(rec);
        p.global_max_in_flight = 1;
        groupconc_executor *ex = tu_executor(&p);
        tu_latch started;
        tu_latch_init(&started, 1);
        job b;
        job_init(&b, &started, NULL);
        b.park.cooperative = true;
        job_submit(ex, &b, "blk", "b", 0, 0);
        assert_true(tu_latch_wait(&started));
        enum { N = 8 };
        job w[N];
        for (int i = 0; i < N; i++) {
            char id[ID_LEN], group[8];
            snprintf(id, sizeof id, "w%d", i);
            snprintf(group, sizeof group, "g%d", i % 3);
            job_init(&w[i], NULL, NULL);
            job_submit(ex, &w[i], group, id, TU_MS / 2 + (round % 4) * TU_MS + i * 100000, 0);
        }
        if (round % 2) tu_sleep_ns((round % 5) * TU_MS / 2);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        int expired = 0, cancelled = 0;
        for (int i = 0; i < N; i++) {
            groupconc_result r = tu_wait(w[i].h);
            if (r.status == GROUPCONC_STATUS_REJECTED) {
                assert_int_equal(r.reason, GROUPCONC_EEXPIRED_GLOBAL);
                assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, w[i].id), 1);
                expired++;
            } else {
                assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
                assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, w[i].id), 0);
                cancelled++;
            }
            assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, w[i].id), 1);
            assert_int_equal(atomic_load(&w[i].park.ran), 0);
            job_done(&w[i]);
        }
        assert_int_equal(expired + cancelled, N);
        tu_wait_status(b.h, GROUPCONC_STATUS_CANCELLED);
        job_done(&b);
        tu_latch_destroy(&started);
        rec_free(rec);
    }
}

/* A graceful shutdown lets queued tasks run on: their deadlines still apply meanwhile. */
typedef struct releaser {
    recorder *rec;
    job *blocker;
    int found;
} releaser;

static void releaser_main(void *arg) {
    releaser *r = (releaser *)arg;
    r->found = rec_wait(r->rec, GROUPCONC_EVENT_REJECTED, "x", TU_TIMEOUT_NS);
    tu_park_release(&r->blocker->park);
}

static void test_graceful_shutdown_keeps_deadlines(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_policy p = rec_policy(rec);
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, x, y;
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "g", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    job_init(&x, NULL, NULL);
    job_submit(ex, &x, "g", "x", W_MS(150), W_MS(150));
    job_init(&y, NULL, NULL);
    job_submit(ex, &y, "g", "y", GROUPCONC_FOREVER, 0);
    tu_park_release(&y.park); /* y returns at once when it runs */
    releaser rl = {rec, &b, -1};
    tu_thread th;
    assert_true(tu_thread_start(&th, releaser_main, &rl));
    /* waits: x expires during it, then the releaser lets b end, then y runs */
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    tu_thread_join(th);
    assert_true(rl.found >= 0);
    check_expired(rec, &x, GROUPCONC_EEXPIRED_CONCURRENCY);
    tu_wait_status(b.h, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(y.h, GROUPCONC_STATUS_SUCCESS);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, 1);
    assert_int_equal(xs.succeeded, 2);
    assert_int_equal(xs.completed, 3);
    check_exec_sums(xs);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    job_done(&x);
    job_done(&y);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 9. counters ---------------------------------------------------------------------------------- */

static int fail_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 7;
}

static void test_counters(void **state) {
    (void)state;
    recorder *rec = rec_new();
    groupconc_group_limits table[] = {{"m", 1, GROUPCONC_DEFAULT, 8, 0}};
    groupconc_policy p = rec_policy(rec);
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    job b, e[3], c[2], s[2];
    job_init(&b, &started, NULL);
    job_submit(ex, &b, "m", "b", 0, 0);
    assert_true(tu_latch_wait(&started));
    for (int i = 0; i < 3; i++) {
        char id[ID_LEN];
        snprintf(id, sizeof id, "e%d", i);
        job_init(&e[i], NULL, NULL);
        job_submit(ex, &e[i], "m", id, W_MS(300) + i * W_MS(20), W_MS(300) + i * W_MS(20));
    }
    for (int i = 0; i < 2; i++) {
        char id[ID_LEN];
        snprintf(id, sizeof id, "c%d", i);
        job_init(&c[i], NULL, NULL);
        job_submit(ex, &c[i], "m", id, TU_SEC, 0);
    }
    for (int i = 0; i < 2; i++) {
        char id[ID_LEN];
        snprintf(id, sizeof id, "s%d", i);
        job_init(&s[i], NULL, NULL);
        tu_park_release(&s[i].park); /* returns at once when it runs */
        job_submit(ex, &s[i], "m", id, GROUPCONC_FOREVER, 0);
    }
    groupconc_task *f = tu_submit(ex, "m", "f", fail_fn, NULL);
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, "m", "r", tu_noop_fn, NULL, &t), GROUPCONC_EREJECTED_CONCURRENCY);
    for (int i = 0; i < 2; i++) assert_int_equal(groupconc_task_cancel(c[i].h, NULL), GROUPCONC_OK);
    for (int i = 0; i < 3; i++) check_expired(rec, &e[i], GROUPCONC_EEXPIRED_CONCURRENCY);
    groupconc_group_stats gs = tu_gstats(ex, "m");
    assert_int_equal(gs.submitted, 10);
    assert_int_equal(gs.completed, 6);
    assert_int_equal(gs.expired, 3);
    assert_int_equal(gs.cancelled, 2);
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(gs.waiting_concurrency, 3); /* s0, s1, f */
    check_group_sums(gs);
    job_finish(&b);
    for (int i = 0; i < 2; i++) tu_wait_status(s[i].h, GROUPCONC_STATUS_SUCCESS);
    groupconc_result r = tu_wait(f);
    assert_int_equal(r.status, GROUPCONC_STATUS_FAILED);
    assert_int_equal(r.error, 7);
    assert_int_equal(r.reason, 0);
    gs = tu_gstats(ex, "m");
    assert_int_equal(gs.submitted, 10);
    assert_int_equal(gs.admitted, 4);
    assert_int_equal(gs.completed, 10);
    assert_int_equal(gs.succeeded, 3);
    assert_int_equal(gs.failed, 1);
    assert_int_equal(gs.cancelled, 2);
    assert_int_equal(gs.rejected_global + gs.rejected_bulkhead, 0);
    assert_int_equal(gs.rejected_concurrency, 1);
    assert_int_equal(gs.rejected_waiting, 0);
    assert_int_equal(gs.expired, 3);
    assert_int_equal(gs.oldest_wait_ns, 0);
    check_group_sums(gs);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.submitted, 10);
    assert_int_equal(xs.admitted, 4);
    assert_int_equal(xs.completed, 10);
    assert_int_equal(xs.expired, 3);
    assert_int_equal(xs.cancelled, 2);
    assert_int_equal(xs.failed, 1);
    assert_int_equal(xs.succeeded, 3);
    assert_int_equal(xs.rejected_concurrency, 1);
    assert_int_equal(xs.rejected_other, 0);
    check_exec_sums(xs);
    /* the listener agrees: one COMPLETED per SUBMITTED, one REJECTED per expiry or refusal */
    int sub = 0, comp = 0, rej = 0, exp_ev = 0;
    tu_mutex_lock(&rec->m);
    for (int i = 0; i < rec->n; i++) {
        if (rec->ev[i].type == GROUPCONC_EVENT_SUBMITTED) sub++;
        if (rec->ev[i].type == GROUPCONC_EVENT_COMPLETED) comp++;
        if (rec->ev[i].type == GROUPCONC_EVENT_REJECTED) {
            rej++;
            if (rec->ev[i].reason <= GROUPCONC_EEXPIRED_GLOBAL && rec->ev[i].reason >= GROUPCONC_EEXPIRED_RUNNING)
                exp_ev++;
        }
    }
    tu_mutex_unlock(&rec->m);
    assert_int_equal(sub, 10);
    assert_int_equal(comp, 10);
    assert_int_equal(rej, 4);
    assert_int_equal(exp_ev, 3);
    groupconc_task_release(f);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    job_done(&b);
    for (int i = 0; i < 3; i++) job_done(&e[i]);
    for (int i = 0; i < 2; i++) job_done(&c[i]);
    for (int i = 0; i < 2; i++) job_done(&s[i]);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ---- 10. load: short deadlines racing hand-offs at all four layers ---------------------------------- */

typedef struct slot {
    atomic_int ran, cleanups, started_ev, rejected_ev, completed_ev, reject_reason;
    int64_t wait; /* 0: none */
    int64_t before;
    uint32_t sleep_us;
} slot;

enum { LOAD_N = 600 };

static void load_listener(const groupconc_event *e, void *user_data) {
    slot *slots = (slot *)user_data;
    if (!e->task_id) return;
    int i = atoi(e->task_id);
    if (i < 0 || i >= LOAD_N) return;
    if (e->type == GROUPCONC_EVENT_STARTED) atomic_fetch_add(&slots[i].started_ev, 1);
    if (e->type == GROUPCONC_EVENT_REJECTED) {
        atomic_store(&slots[i].reject_reason, e->reason);
        atomic_fetch_add(&slots[i].rejected_ev, 1);
    }
    if (e->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add(&slots[i].completed_ev, 1);
}

static int load_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    slot *s = (slot *)arg;
    atomic_fetch_add(&s->ran, 1);
    if (s->sleep_us) tu_sleep_ns((int64_t)s->sleep_us * 1000);
    return 0;
}

static void load_cleanup(void *arg) { atomic_fetch_add(&((slot *)arg)->cleanups, 1); }

static void test_load_deadlines_and_handoffs(void **state) {
    (void)state;
    slot *slots = (slot *)calloc(LOAD_N, sizeof *slots);
    assert_non_null(slots);
    groupconc_group_limits table[] = {{"a", 2, 3, GROUPCONC_DEFAULT, W_MS(4)},
                                      {"b", 1, 2, GROUPCONC_DEFAULT, 0},
                                      {"c", 2, GROUPCONC_UNLIMITED, GROUPCONC_DEFAULT, GROUPCONC_FOREVER}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 3;
    p.global_max_in_flight = 6;
    p.global_max_running = 3;
    p.max_threads = 4;
    p.default_max_wait_ns = W_MS(6);
    p.listener = load_listener;
    p.listener_user_data = slots;
    groupconc_executor *ex = tu_executor(&p);
    static const char *const keys[4] = {"a", "b", "c", "d"};
    uint32_t seed = 4242u;
    groupconc_task **h = (groupconc_task **)calloc(LOAD_N, sizeof *h);
    assert_non_null(h);
    for (int i = 0; i < LOAD_N; i++) {
        slot *s = &slots[i];
        atomic_init(&s->ran, 0);
        atomic_init(&s->cleanups, 0);
        atomic_init(&s->started_ev, 0);
        atomic_init(&s->rejected_ev, 0);
        atomic_init(&s->completed_ev, 0);
        atomic_init(&s->reject_reason, 0);
        s->sleep_us = tu_rand(&seed) % 1500;
        const char *g = keys[tu_rand(&seed) % 4];
        uint32_t kind = tu_rand(&seed) % 4;
        int64_t spec_wait = kind == 0 ? GROUPCONC_FOREVER : kind == 1 ? 0 : (int64_t)(1 + tu_rand(&seed) % 12) * TU_MS;
        int64_t wait = spec_wait;
        if (kind == 0) wait = 0;
        if (kind == 1) wait = g[0] == 'a' ? W_MS(4) : g[0] == 'c' ? 0 : W_MS(6);
        s->wait = wait;
        char id[ID_LEN];
        snprintf(id, sizeof id, "%d", i);
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = g;
        spec.task_id = id;
        spec.fn = load_fn;
        spec.arg = s;
        spec.cleanup = load_cleanup;
        spec.max_wait_ns = spec_wait;
        s->before = tu_now_ns();
        assert_int_equal(groupconc_submit_spec(ex, &spec, &h[i]), GROUPCONC_OK);
        if (i % 50 == 49) tu_sleep_ns(TU_MS);
    }
    int succeeded = 0, expired = 0;
    for (int i = 0; i < LOAD_N; i++) {
        groupconc_result r = tu_wait(h[i]);
        slot *s = &slots[i];
        if (r.status == GROUPCONC_STATUS_SUCCESS) {
            succeeded++;
            assert_int_equal(atomic_load(&s->ran), 1);
            assert_int_equal(atomic_load(&s->started_ev), 1);
            assert_int_equal(atomic_load(&s->rejected_ev), 0);
        } else {
            if (r.status != GROUPCONC_STATUS_REJECTED)
                print_error("task %d: status %s\n", i, groupconc_status_name(r.status));
            assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
            assert_true(r.reason <= GROUPCONC_EEXPIRED_GLOBAL && r.reason >= GROUPCONC_EEXPIRED_RUNNING);
            assert_true(s->wait > 0);                              /* only a task with a deadline */
            assert_true((int64_t)r.start_ns >= s->before + s->wait); /* never early */
            assert_int_equal(atomic_load(&s->ran), 0);
            assert_int_equal(atomic_load(&s->started_ev), 0);
            assert_int_equal(atomic_load(&s->rejected_ev), 1);
            assert_int_equal(atomic_load(&s->reject_reason), r.reason);
            expired++;
        }
        assert_int_equal(atomic_load(&s->completed_ev), 1);
        assert_int_equal(atomic_load(&s->cleanups), 1);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(succeeded + expired, LOAD_N);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.expired, (uint64_t)expired);
    assert_int_equal(xs.succeeded, (uint64_t)succeeded);
    assert_int_equal(xs.completed, LOAD_N);
    assert_int_equal(xs.submitted, LOAD_N);
    assert_int_equal(xs.admitted, (uint64_t)succeeded);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.global_running, 0);
    assert_int_equal(xs.waiting, 0);
    check_exec_sums(xs);
    uint64_t gexp = 0;
    for (int g = 0; g < 4; g++) {
        groupconc_group_stats gs = tu_gstats(ex, keys[g]);
        check_group_sums(gs);
        assert_int_equal(gs.in_flight, 0);
        gexp += gs.expired;
    }
    assert_int_equal(gexp, (uint64_t)expired);
    assert_true(expired > 0); /* the load did make tasks wait past their deadlines */
    assert_true(succeeded > 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    free(h);
    free(slots);
}


/* The completion callbacks of an expired task run on the housekeeper thread, which must not block
   (it would hold up every deadline, maybe the very one it waits for): a blocking wait there returns
   GROUPCONC_EDEADLK at once, a poll works; execute_all is refused before it owns anything (it would
   wait for what it submits: the wait's EDEADLK once left its results unfinished and its tasks
   running after it returned), and so is scope_open (a scope's join and close wait for its forks:
   a join there once blocked the housekeeper for good). */
typedef struct keeper_probe {
    groupconc_executor *ex;
    groupconc_task *other;
    atomic_int on_main;                  /* the callback ran inline, in on_complete: not probed */
    atomic_int wait_rc, poll_rc;
    atomic_int exec_rc, exec_cleanups;   /* execute_all there: refused, owns nothing */
    atomic_int scope_rc, scope_null;     /* scope_open there: refused, *out_scope NULL */
    tu_latch done;
} keeper_probe;

static _Thread_local int keeper_probe_main; /* set on the test's thread */

static void keeper_probe_cleanup(void *arg) { atomic_fetch_add(&((keeper_probe *)arg)->exec_cleanups, 1); }

static void keeper_probe_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    keeper_probe *k = (keeper_probe *)user_data;
    groupconc_result r, rs[1];
    groupconc_task_spec spec = {0};
    (void)task;
    (void)result;
    if (keeper_probe_main) { /* expired before on_complete was called: it runs here, at once */
        atomic_store(&k->on_main, 1);
        tu_latch_count_down(&k->done);
        return;
    }
    atomic_store(&k->wait_rc, groupconc_task_wait(k->other, &r));
    atomic_store(&k->poll_rc, groupconc_task_wait_for(k->other, 0, &r));
    spec.group = "q";
    spec.fn = tu_noop_fn;
    spec.arg = k;
    spec.cleanup = keeper_probe_cleanup;
    atomic_store(&k->exec_rc, groupconc_execute_all(k->ex, &spec, 1, GROUPCONC_FOREVER, rs));
#ifndef GROUPCONC_NO_SCOPES
    {
        groupconc_scope *s = (groupconc_scope *)(void *)k; /* not NULL: the call must clear it */
        atomic_store(&k->scope_rc, groupconc_scope_open(k->ex, NULL, &s));
        atomic_store(&k->scope_null, s == NULL);
    }
#endif
    tu_latch_count_down(&k->done);
}

/* One probe: "soon" expires after max_wait while group "p" is paused. Returns false when the
   callback ran inline on this thread (a loaded machine: the deadline passed before on_complete). */
static bool keeper_probe_run(int64_t max_wait) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_group_pause(ex, "p"), GROUPCONC_OK);
    keeper_probe k;
    k.ex = ex;
    atomic_init(&k.on_main, 0);
    atomic_init(&k.wait_rc, 1);
    atomic_init(&k.poll_rc, 1);
    atomic_init(&k.exec_rc, 1);
    atomic_init(&k.exec_cleanups, 0);
    atomic_init(&k.scope_rc, 1);
    atomic_init(&k.scope_null, 0);
    tu_latch_init(&k.done, 1);
    groupconc_task_spec later = {0}, soon = {0};
    later.group = soon.group = "p";
    later.fn = soon.fn = tu_noop_fn;
    later.max_wait_ns = GROUPCONC_SEC(60); /* only an expiry could finish it while "p" is paused */
    soon.max_wait_ns = max_wait;
    groupconc_task *t_soon;
    keeper_probe_main = 1;
    assert_int_equal(groupconc_submit_spec(ex, &later, &k.other), GROUPCONC_OK);
    assert_int_equal(groupconc_submit_spec(ex, &soon, &t_soon), GROUPCONC_OK);
    assert_int_equal(groupconc_task_on_complete(t_soon, keeper_probe_cb, &k), GROUPCONC_OK);
    assert_true(tu_latch_wait(&k.done)); /* a blocking wait there would have hung for 60 s */
    bool probed = !atomic_load(&k.on_main);
    if (probed) {
        assert_int_equal(atomic_load(&k.wait_rc), GROUPCONC_EDEADLK);
        assert_int_equal(atomic_load(&k.poll_rc), GROUPCONC_ETIMEDOUT);
        assert_int_equal(atomic_load(&k.exec_rc), GROUPCONC_EDEADLK);
        assert_int_equal(atomic_load(&k.exec_cleanups), 0); /* refused: the argument stayed the caller's */
#ifndef GROUPCONC_NO_SCOPES
        assert_int_equal(atomic_load(&k.scope_rc), GROUPCONC_EDEADLK);
        assert_true(atomic_load(&k.scope_null));
#endif
    }
    groupconc_result r;
    assert_int_equal(groupconc_task_wait(t_soon, &r), GROUPCONC_OK);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    groupconc_task_release(t_soon);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* cancels "later" */
    assert_int_equal(groupconc_task_wait(k.other, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    groupconc_task_release(k.other);
    tu_latch_destroy(&k.done);
    keeper_probe_main = 0;
    return probed;
}

static void test_keeper_callbacks_cannot_block(void **state) {
    (void)state;
    int64_t max_wait = GROUPCONC_MS(20);
    int tries = 0;
    while (!keeper_probe_run(max_wait)) { /* the deadline beat on_complete: a longer one */
        assert_true(++tries < 6);
        max_wait *= 4;
    }
}

/* An expiry hands the expired task's global permit to a task of another group, which that group's
   threshold then refuses: its rejection handler runs on a worker, not on the housekeeper (where a
   wait would be EDEADLK and a block would stop the pool's watch), so it may wait for a task of its
   own. Shape: global in-flight 3; b1 (group "b", concurrency 1, threshold 0) and e1 ("e",
   concurrency 1) run until S runs; e2 waits at e's concurrency with a 20 ms deadline, holding the
   third global permit; r ("b") waits at global. e2 expires, r is handed its permit and refused at
   b's concurrency; the handler submits S and waits for it. Should e2 expire before r's submit (a
   loaded machine, valgrind), r is refused in its submit instead: again with a longer deadline. */
static int64_t e2_max_wait;
static atomic_int r_in_submit; /* r was refused in its own submit: the shape was missed */
static bool e2_cb_submits;         /* e2's completion callback (on the housekeeper) submits */
static groupconc_executor *e2_ex;

/* A retry on expiry: its submit's drain on the housekeeper must leave r's refusal to a worker. */
static void e2_retry_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    (void)task;
    (void)result;
    (void)user_data;
    assert_int_equal(groupconc_submit(e2_ex, "z", "retry", tu_noop_fn, NULL, NULL), GROUPCONC_OK);
}

typedef struct expiry_refusal {
    tu_latch started;  /* b1 and e1 run */
    tu_latch release;  /* S ran: b1 and e1 may end */
    atomic_int handled, wait_rc, s_status;
} expiry_refusal;

static int held_until_s(groupconc_context *ctx, void **out_value, void *arg) {
    expiry_refusal *x = (expiry_refusal *)arg;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down(&x->started);
    assert_true(tu_latch_wait(&x->release));
    return 0;
}

static int s_body(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    tu_latch_open(&((expiry_refusal *)arg)->release);
    return 0;
}

static void expiry_refusal_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    expiry_refusal *x = (expiry_refusal *)user_data;
    groupconc_task *s;
    groupconc_result r;
    int rc;
    atomic_fetch_add(&x->handled, 1);
    assert_int_equal(rj->reason, GROUPCONC_EREJECTED_CONCURRENCY);
    if (rj->in_submit) atomic_store(&r_in_submit, 1);
    assert_int_equal(groupconc_submit(rj->executor, "s", "S", s_body, x, &s), GROUPCONC_OK);
    rc = groupconc_task_wait(s, &r);
    atomic_store(&x->wait_rc, rc);
    if (rc == GROUPCONC_OK) atomic_store(&x->s_status, (int)r.status);
    else tu_latch_open(&x->release); /* refused: let b1 and e1 end all the same */
    groupconc_task_release(s);
    out->status = GROUPCONC_STATUS_SUCCESS; /* a fallback */
}

/* e2: group "e", e2_max_wait for its permits, behind e1 at e's concurrency; then r: group "b", behind
   the full global in-flight cap. */
static void submit_e2_and_r(groupconc_executor *ex, groupconc_task **e2, groupconc_task **r) {
    groupconc_task_spec spec = {0};
    spec.group = "e";
    spec.task_id = "e2";
    spec.fn = tu_noop_fn;
    spec.max_wait_ns = e2_max_wait;
    assert_int_equal(groupconc_submit_spec(ex, &spec, e2), GROUPCONC_OK);
    e2_ex = ex;
    if (e2_cb_submits) assert_int_equal(groupconc_task_on_complete(*e2, e2_retry_cb, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "r", tu_noop_fn, NULL, r), GROUPCONC_OK);
}

static bool expiry_refusal_run(void) {
    expiry_refusal x;
    groupconc_group_limits lim[2] = {{"b", 1, GROUPCONC_UNLIMITED, 0, 0}, {"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *b1, *e1, *e2, *r;
    groupconc_result res;
    atomic_store(&r_in_submit, 0);
    tu_latch_init(&x.started, 2);
    tu_latch_init(&x.release, 1);
    atomic_init(&x.handled, 0);
    atomic_init(&x.wait_rc, 1);
    atomic_init(&x.s_status, -1);
    p.max_threads = 4;
    p.global_max_in_flight = 3;
    p.groups = lim;
    p.group_count = 2;
    p.reject_handler = expiry_refusal_handler;
    p.reject_user_data = &x;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "b1", held_until_s, &x, &b1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", held_until_s, &x, &e1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&x.started));
    submit_e2_and_r(ex, &e2, &r);
    assert_int_equal(groupconc_task_wait(e2, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(groupconc_task_wait(r, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS); /* the handler's fallback */
    assert_int_equal(atomic_load(&x.handled), 1);
    assert_int_equal(atomic_load(&x.wait_rc), GROUPCONC_OK); /* EDEADLK on the housekeeper */
    assert_int_equal(atomic_load(&x.s_status), GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_wait(b1, &res), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(e1, &res), GROUPCONC_OK);
    groupconc_task_release(b1);
    groupconc_task_release(e1);
    groupconc_task_release(e2);
    groupconc_task_release(r);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.release);
    tu_latch_destroy(&x.started);
    return !atomic_load(&r_in_submit);
}

/* Runs `run` with a 20 ms deadline for e2, longer while the shape is missed. */
static void expiry_refusal_tries(bool (*run)(void)) {
    int tries = 0;
    e2_max_wait = GROUPCONC_MS(20);
    while (!run()) {
        assert_true(++tries < 5);
        e2_max_wait *= 4;
    }
}

static void test_expiry_refusal_handled_on_worker(void **state) {
    (void)state;
    expiry_refusal_tries(expiry_refusal_run);
}

/* The same with a callback of e2 that submits (hunt helper-80 D1: that submit's drain, on the
   housekeeper, took r's refusal and settled it there). */
static void test_expiry_refusal_callback_submits(void **state) {
    (void)state;
    e2_cb_submits = true;
    expiry_refusal_tries(expiry_refusal_run);
    e2_cb_submits = false;
}

/* The same refusal while every worker sleeps in a task that waits for what the handler does (here
   it opens their latch): the refusal is settled all the same, by a worker started for it (the
   pool's cap allows more; the watch sees the refusal wait for a worker). Global in-flight 5: b1,
   e1, x1 and x2 sleep, e2 waits at e's concurrency with a 20 ms deadline, r waits at global
   (tried again as above if r is refused in its submit). */
static atomic_int sleepers_handled;
static tu_latch sleepers_open;

static int sleeper(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    tu_latch_count_down((tu_latch *)arg);
    assert_true(tu_latch_wait(&sleepers_open));
    return 0;
}

static void open_sleepers_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    (void)user_data;
    (void)out;
    assert_int_equal(rj->reason, GROUPCONC_EREJECTED_CONCURRENCY);
    if (rj->in_submit) atomic_store(&r_in_submit, 1);
    atomic_fetch_add(&sleepers_handled, 1);
    tu_latch_open(&sleepers_open);
}

static int sleepers_max_threads;

static bool sleepers_run(void) {
    groupconc_group_limits lim[3] = {{"b", 1, GROUPCONC_UNLIMITED, 0, 0},
                                     {"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0},
                                     {"x", 2, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *e2, *r;
    groupconc_result res;
    tu_latch started;
    atomic_store(&r_in_submit, 0);
    tu_latch_init(&started, 4);
    tu_latch_init(&sleepers_open, 1);
    atomic_init(&sleepers_handled, 0);
    p.max_threads = sleepers_max_threads;
    p.global_max_in_flight = 5;
    p.groups = lim;
    p.group_count = 3;
    p.reject_handler = open_sleepers_handler;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "b1", sleeper, &started, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", sleeper, &started, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "x", "x1", sleeper, &started, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "x", "x2", sleeper, &started, NULL), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started)); /* every worker there is (at least 4) sleeps in one */
    submit_e2_and_r(ex, &e2, &r);
    /* polled: a wait on r would settle its refusal on this thread (a waiter finishes what it can) */
    int64_t until = tu_now_ns() + 10 * TU_SEC;
    bool done = false;
    while (assert_int_equal(groupconc_task_is_done(r, &done), GROUPCONC_OK), !done && tu_now_ns() < until)
        tu_sleep_ns(TU_MS);
    assert_true(done); /* else nobody settled it: the sleepers wait for its handler */
    assert_int_equal(groupconc_task_wait(r, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&sleepers_handled), 1);
    assert_int_equal(groupconc_task_wait(e2, &res), GROUPCONC_OK);
    assert_int_equal(res.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    groupconc_task_release(e2);
    groupconc_task_release(r);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK); /* waits for the sleepers */
    tu_latch_destroy(&sleepers_open);
    tu_latch_destroy(&started);
    return !atomic_load(&r_in_submit);
}

static void test_expiry_refusal_while_workers_sleep(void **state) {
    (void)state;
    sleepers_max_threads = 8;
    expiry_refusal_tries(sleepers_run);
}

/* The same at max_threads: no worker can come (all four sleep), so the housekeeper settles the
   refusal itself, as an expired task's completion (hunt helper-80 D2: it waited for the sleepers'
   timeout). */
static void test_expiry_refusal_at_max_threads(void **state) {
    (void)state;
    sleepers_max_threads = 4;
    expiry_refusal_tries(sleepers_run);
}

/* A hand-off made by a call on the housekeeper: e2's completion callback (e2 expired: it runs
   there) cancels c, whose global permit goes to r, which b's threshold refuses. r's handler runs
   on a worker all the same (hunt helper-82 F1: the cancel settled it where it ran). Global
   in-flight 4: b1 ("b": concurrency 1, threshold 0), e1 ("e") and o1 run until released; c ("e")
   holds the fourth global permit and waits at e's concurrency; e2 ("z", 20 ms) and r ("b") wait at
   global. */
static groupconc_task *cancel_c;
static atomic_int cancel_handled, cancel_wait_rc;
static tu_latch cancel_started, cancel_release;

static int cancel_held(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    tu_latch_count_down(&cancel_started);
    assert_true(tu_latch_wait(&cancel_release));
    return 0;
}

static void cancel_c_cb(groupconc_task *task, const groupconc_result *result, void *user_data) {
    groupconc_cancel_outcome oc;
    (void)task;
    (void)result;
    (void)user_data;
    assert_int_equal(groupconc_task_cancel(cancel_c, &oc), GROUPCONC_OK);
}

static void cancel_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    groupconc_task *f;
    groupconc_result res;
    (void)user_data;
    (void)out;
    if (rj->in_submit) atomic_store(&r_in_submit, 1);
    atomic_fetch_add(&cancel_handled, 1);
    assert_int_equal(groupconc_submit(rj->executor, "f", "f", tu_noop_fn, NULL, &f), GROUPCONC_OK);
    atomic_store(&cancel_wait_rc, groupconc_task_wait(f, &res)); /* EDEADLK on the housekeeper */
    groupconc_task_release(f);
}

static bool cancel_run(void) {
    groupconc_group_limits lim[2] = {{"b", 1, GROUPCONC_UNLIMITED, 0, 0},
                                     {"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *b1, *e1, *o1, *e2, *r;
    groupconc_task_spec spec = {0};
    groupconc_result res;
    atomic_store(&r_in_submit, 0);
    atomic_store(&cancel_handled, 0);
    atomic_store(&cancel_wait_rc, 1);
    tu_latch_init(&cancel_started, 3);
    tu_latch_init(&cancel_release, 1);
    p.max_threads = 8;
    p.global_max_in_flight = 4;
    p.groups = lim;
    p.group_count = 2;
    p.reject_handler = cancel_handler;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "b1", cancel_held, NULL, &b1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", cancel_held, NULL, &e1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "o", "o1", cancel_held, NULL, &o1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&cancel_started));
    assert_int_equal(groupconc_submit(ex, "e", "c", tu_noop_fn, NULL, &cancel_c), GROUPCONC_OK);
    spec.group = "z";
    spec.task_id = "e2";
    spec.fn = tu_noop_fn;
    spec.max_wait_ns = e2_max_wait;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &e2), GROUPCONC_OK);
    assert_int_equal(groupconc_task_on_complete(e2, cancel_c_cb, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "r", tu_noop_fn, NULL, &r), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(r, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED); /* the handler left it so */
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    assert_int_equal(atomic_load(&cancel_handled), 1);
    if (!atomic_load(&r_in_submit)) assert_int_equal(atomic_load(&cancel_wait_rc), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(cancel_c, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_CANCELLED);
    tu_latch_open(&cancel_release);
    groupconc_task_release(b1);
    groupconc_task_release(e1);
    groupconc_task_release(o1);
    groupconc_task_release(e2);
    groupconc_task_release(r);
    groupconc_task_release(cancel_c);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&cancel_release);
    tu_latch_destroy(&cancel_started);
    return !atomic_load(&r_in_submit);
}

static void test_expiry_callback_cancel_refusal_on_worker(void **state) {
    (void)state;
    expiry_refusal_tries(cancel_run);
}

/* Every worker the pool's size allows computes (no wait, no hint) for up to 5 s, below max_threads:
   the refusal an expiry causes gets a worker started for it at once (hunt helper-82 F4: it waited
   for a computing task to end), and its handler stops them. */
static atomic_int compute_stop;
static const int64_t compute_ns = 5 * TU_SEC; /* how long they compute at most */

static int computer(groupconc_context *ctx, void **out_value, void *arg) {
    int64_t until = tu_now_ns() + compute_ns;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down((tu_latch *)arg);
    while (!atomic_load(&compute_stop) && tu_now_ns() < until) tu_spin(64);
    return 0;
}

static void compute_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    (void)user_data;
    (void)out;
    if (rj->in_submit) atomic_store(&r_in_submit, 1);
    atomic_store(&compute_stop, 1);
}

static bool compute_run(void) {
    groupconc_group_limits lim[2] = {{"b", 1, GROUPCONC_UNLIMITED, 0, 0},
                                     {"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *b1, *e1, *e2, *r;
    groupconc_result res;
    tu_latch started;
    int64_t t0;
    atomic_store(&r_in_submit, 0);
    atomic_store(&compute_stop, 0);
    tu_latch_init(&started, 2);
    p.max_threads = 8;
    p.global_max_in_flight = 3;
    p.groups = lim;
    p.group_count = 2;
    p.reject_handler = compute_handler;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "b1", computer, &started, &b1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", computer, &started, &e1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    t0 = tu_now_ns();
    submit_e2_and_r(ex, &e2, &r);
    /* no wait until the handler ran: a waiting thread would settle the refusal itself */
    while (!atomic_load(&compute_stop) && tu_now_ns() - t0 < compute_ns - TU_SEC) tu_sleep_ns(TU_MS);
    if (atomic_load(&r_in_submit)) { /* the shape missed (see expiry_refusal_tries) */
        atomic_store(&compute_stop, 1);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        groupconc_task_release(b1);
        groupconc_task_release(e1);
        groupconc_task_release(e2);
        groupconc_task_release(r);
        tu_latch_destroy(&started);
        return false;
    }
    /* the handler came while they computed: well before their end (the expiry is at 20 ms) */
    assert_true(atomic_load(&compute_stop));
    assert_int_equal(groupconc_task_wait(e2, &res), GROUPCONC_OK);
    assert_int_equal(res.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    assert_int_equal(groupconc_task_wait(b1, &res), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(r, &res), GROUPCONC_OK);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_CONCURRENCY);
    groupconc_task_release(b1);
    groupconc_task_release(e1);
    groupconc_task_release(e2);
    groupconc_task_release(r);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&started);
    return !atomic_load(&r_in_submit);
}

static void test_expiry_refusal_while_workers_compute(void **state) {
    (void)state;
    if (tu_under_valgrind()) skip(); /* its scheduler may leave the keeper and a new worker waiting
                                        for seconds behind threads that compute */
    expiry_refusal_tries(compute_run);
}

/* At max_threads with one worker idle (a quick task ran on it): the refusal goes to that worker
   (nothing needs starting), whose handler may wait (hunt helper-81's mutant M06: counting only
   the room below max_threads left it on the housekeeper). b1, e1 and x1 run until S runs; q ran
   on the fourth worker, idle now (keep-alive 60 s). */
static bool idle_at_max_run(void) {
    expiry_refusal x;
    groupconc_group_limits lim[2] = {{"b", 1, GROUPCONC_UNLIMITED, 0, 0}, {"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *b1, *e1, *x1, *q, *e2, *r;
    groupconc_executor_stats st;
    groupconc_result res;
    int64_t until = tu_now_ns() + 10 * TU_SEC;
    atomic_store(&r_in_submit, 0);
    tu_latch_init(&x.started, 3);
    tu_latch_init(&x.release, 1);
    atomic_init(&x.handled, 0);
    atomic_init(&x.wait_rc, 1);
    atomic_init(&x.s_status, -1);
    p.max_threads = 4;
    p.keep_alive_ns = GROUPCONC_SEC(60);
    p.global_max_in_flight = 4;
    p.groups = lim;
    p.group_count = 2;
    p.reject_handler = expiry_refusal_handler;
    p.reject_user_data = &x;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "b", "b1", held_until_s, &x, &b1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", held_until_s, &x, &e1), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "x", "x1", held_until_s, &x, &x1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&x.started));
    assert_int_equal(groupconc_submit(ex, "q", "q", tu_noop_fn, NULL, &q), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(q, &res), GROUPCONC_OK); /* global permit 4 back */
    do { /* until its worker idles: every thread max_threads allows exists */
        assert_int_equal(groupconc_executor_stats_get(ex, &st), GROUPCONC_OK);
        if (st.threads == 4 && st.idle_threads >= 1) break;
        tu_sleep_ns(TU_MS);
    } while (tu_now_ns() < until);
    assert_int_equal(st.threads, 4);
    submit_e2_and_r(ex, &e2, &r);
    while (!atomic_load(&x.handled) && tu_now_ns() < until) tu_sleep_ns(TU_MS); /* no wait: see above */
    assert_int_equal(groupconc_task_wait(r, &res), GROUPCONC_OK);
    assert_int_equal(atomic_load(&x.handled), 1);
    if (!atomic_load(&r_in_submit)) assert_int_equal(atomic_load(&x.wait_rc), GROUPCONC_OK); /* not EDEADLK */
    assert_int_equal(groupconc_task_wait(b1, &res), GROUPCONC_OK);
    groupconc_task_release(b1);
    groupconc_task_release(e1);
    groupconc_task_release(x1);
    groupconc_task_release(q);
    groupconc_task_release(e2);
    groupconc_task_release(r);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&x.release);
    tu_latch_destroy(&x.started);
    return !atomic_load(&r_in_submit);
}

static void test_expiry_refusal_idle_worker_at_max_threads(void **state) {
    (void)state;
    expiry_refusal_tries(idle_at_max_run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expire_global_in_flight),
        cmocka_unit_test(test_expire_bulkhead),
        cmocka_unit_test(test_expire_concurrency),
        cmocka_unit_test(test_expire_global_running),
        cmocka_unit_test(test_started_never_expires),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_policy_default_and_live_default),
        cmocka_unit_test(test_live_deadline_from_nothing),
        cmocka_unit_test(test_deadline_counts_from_submit),
        cmocka_unit_test(test_execute_all_reports_expiry),
        cmocka_unit_test(test_expiry_order),
        cmocka_unit_test(test_expiry_order_callbacks),
        cmocka_unit_test(test_cancel_or_admit_ends_deadline),
        cmocka_unit_test(test_group_shutdown_ends_deadline),
        cmocka_unit_test(test_expired_not_run_nor_handled),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_destroy_with_waiting_deadlines),
        cmocka_unit_test(test_destroy_races_expiry),
        cmocka_unit_test(test_graceful_shutdown_keeps_deadlines),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_load_deadlines_and_handoffs),
        cmocka_unit_test(test_keeper_callbacks_cannot_block),
        cmocka_unit_test(test_expiry_refusal_handled_on_worker),
        cmocka_unit_test(test_expiry_refusal_while_workers_sleep),
        cmocka_unit_test(test_expiry_refusal_callback_submits),
        cmocka_unit_test(test_expiry_refusal_at_max_threads),
        cmocka_unit_test(test_expiry_callback_cancel_refusal_on_worker),
        cmocka_unit_test(test_expiry_refusal_while_workers_compute),
        cmocka_unit_test(test_expiry_refusal_idle_worker_at_max_threads),
        cmocka_unit_test(test_cancel_inside_expiry_event),
        cmocka_unit_test(test_cancel_inside_expiry_event_counts),
    };
    return TU_RUN_TESTS(tests);
}
