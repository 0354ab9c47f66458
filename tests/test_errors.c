/* test_errors.c - the bad-input matrix: every public function called with each invalid argument.

   One row per public function x invalid argument: the call, the documented error code it must
   return, and (inside the call) any further promise (nothing submitted, out parameter untouched,
   no task lost). groupconc_policy_check has a row for every field it validates, each checking the
   code and the field it names; every executor_create row with a bad policy or table also runs
   groupconc_policy_check on the same policy, so that the two cannot disagree. Timeouts: any
   negative value means GROUPCONC_FOREVER. Every row runs as its own cmocka test against a fresh
   fixture, and the fixture's teardown checks that no block of the counting allocator is left live.

   The admission gate and deferred completion have rows of their own: every gate function and the
   three deferral functions, each invalid argument with its code, and what must hold after the error
   (the empty permit / a NULL gate / a NULL deferral written, nothing counted or held, no listener
   event for a bad argument, a refused destroy doing nothing). Gates a row makes are destroyed by the
   teardown, which must succeed: a permit lost or released twice shows there as EBUSY.

   Structured scopes and the dump have rows of their own: every scope function with each invalid
   argument, and each refusal by thread or state (a foreign thread: ENOTOWNER; one of the scope's
   own forks or its policy callback: EDEADLK; a later scope open on this thread: EORDER; shut down
   or joined: ESCOPE_SHUTDOWN; first_set outside CUSTOM: ESCOPE_POLICY), each checking that nothing
   was done (the scope still open, listed in the dump, neither joined nor shut down; a refused fork
   not counted, never run, its cleanup never called) and every row auditing its scope after a join (runs and cleanups against the results);
   executor_destroy with a scope open (EBUSY, nothing done); the dump's size contract on a fresh
   executor (exact *out_needed, a NUL-terminated prefix, nothing written on EINVAL) and dump_file's
   EINVAL / EIO. Scopes a row leaves open are joined and closed by the teardown.

   Live limits, pause and resume have rows of their own: groupconc_group_limits_set and
   groupconc_executor_limits_set with each NULL argument, each bad key, each field out of range
   (ELIMIT, and nothing changed: a valid field beside the bad one is not applied either), each field
   GROUPCONC_KEEP / DEFAULT / a valid value (applied: read back from the stats, a raised cap hands
   its permit to the fixture's queued task), after shutdown; group / executor pause and resume
   likewise, a new key at max_groups with every group busy or paused (EGROUPS_FULL, no state made)
   and with one idle (reclaimed). The new policy fields and the table's max_wait_ns have create and
   policy_check rows (code, field, value), submit_spec and execute_all rows for max_wait_ns, and the
   eight new error codes a row with their names and values written out.

   The fleet layer has rows of its own, against an in-file provider (acquire keeps the request for
   the row to answer, or answers GRANTED at once for a create row; release, attach and detach are
   counted): groupconc_fleet_answer (request NULL, a verdict outside the enum), groupconc_fleet_notify
   (ex NULL, an executor without a provider, bad keys, group NULL / a key nothing waits in) and
   groupconc_fleet_report (ex NULL, any reason but GROUPCONC_EFLEET_RENEW, bad keys, group NULL),
   each also called from the resolver (EDEADLK; the resolver is run again on the row's thread by
   putting a group's concurrency back to GROUPCONC_DEFAULT). After an error nothing happened: the
   task the provider holds still waits at the fleet layer (unanswered, or BUSY and not asked again),
   nothing ran, no lease was granted or given back, fleet_renew_failed / fleet_open / rejected_fleet
   are 0 and no FLEET event came; then the row answers GRANTED (or notifies properly) and checks the
   task runs once and its lease comes back. policy.fleet with only acquire or only release set has
   create and policy_check rows (EINVAL, naming the NULL one; attach never called). The teardown
   answers a request a failed row left held, and checks every GRANTED lease came back and every
   attach had its detach. The thirteen-codes row also checks each new code's text names its subject.

   With a module left out (GROUPCONC_NO_GATE / _SCOPES / _DUMP) its rows are left out, and so are
   the scope rows' looks into the dump without the dump.

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
#define MAX_GATES 4
#define MAX_PERMITS 8
#define MAX_SCOPES 4

typedef struct row row;

#ifndef GROUPCONC_NO_SCOPES
/* What a scope row's fork body did (see "structured scopes" below). */
typedef struct scope_probe {
    int mode, op;
    bool fork_late;
    groupconc_scope *s, *child;
    int rc1, rc2, rc3, rc4;
} scope_probe;
#endif

/* The fleet rows' provider (see "fleet layer" below). Requests, groups, the last lease and the last
   FLEET event under asked.mu; the counts are atomic. */
#define MAX_FLEET_REQS 4
#define PROBE_LEASE UINT64_C(0x7e57000000)
typedef struct fleet_probe {
    counter asked;                                 /* acquire calls */
    groupconc_fleet_request *reqs[MAX_FLEET_REQS]; /* held, in the order asked; NULL once answered */
    char groups[MAX_FLEET_REQS][32];               /* the group each was asked for */
    int nreqs;
    bool grant;                                    /* answer GRANTED inside acquire instead (create rows) */
    atomic_int grants, releases, attaches, detaches, errors;
    atomic_int attach_rc, refused; /* what probe_attach returns; the attaches it refused */
    uint64_t last_lease;                           /* the last lease given back, and its group */
    char released_group[32];
    atomic_int events;                             /* GROUPCONC_EVENT_FLEET, all executors */
    int ev_reason;
    bool ev_group_null;
    char ev_group[KEYMAX + 1];
    atomic_int resolver_op, resolver_calls, resolver_rc; /* fleet_resolver: what it calls, and got */
    groupconc_fleet_request *resolver_req;
} fleet_probe;

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
    /* admission gate rows: gates made by a row (destroyed by the teardown, which must succeed: every
       permit released), permits a row holds (released by the teardown if the row did not), the
       gates' listener events by type */
#ifndef GROUPCONC_NO_GATE
    groupconc_gate *gates[MAX_GATES];
    int ngates;
    groupconc_permit permits[MAX_PERMITS];
    int npermits;
    atomic_int gate_events[3];
#endif
    /* deferred completion rows: what the deferring body saw; a deferral the row has not completed
       yet (the teardown completes it, or the executor's destroy would wait for it) */
    struct defer_probe *probe;
    groupconc_deferred *pending;
    counter arrived; /* the deferring body ran its calls; a scope row's fork body arrived */
    /* structured scope rows: scopes a row opened and has not closed (the teardown joins and closes
       them, newest first, before it destroys the executors); what a fork body saw; the latch
       parked forks wait on; fork cleanups and CUSTOM policy callbacks; a dump_file row's stream */
#ifndef GROUPCONC_NO_SCOPES
    groupconc_scope *scopes[MAX_SCOPES];
    int nscopes;
    scope_probe sprobe;
#endif
    counter go;
    atomic_int cleanups;
    atomic_int scope_cb_calls;
    FILE *file;
    /* fleet layer rows: the in-file provider (its executor is tmp_ex) */
    fleet_probe fleet;
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
    if (ev->type == GROUPCONC_EVENT_FLEET) {
        pthread_mutex_lock(&f->fleet.asked.mu);
        f->fleet.ev_reason = ev->reason;
        f->fleet.ev_group_null = ev->group == NULL;
        snprintf(f->fleet.ev_group, sizeof f->fleet.ev_group, "%s", ev->group ? ev->group : "");
        pthread_mutex_unlock(&f->fleet.asked.mu);
        atomic_fetch_add(&f->fleet.events, 1);
    }
}

/* The fleet rows' provider: acquire keeps the request for the row to answer (probe_answer), or, in
   `grant` mode, answers GRANTED from inside the call. A request beyond MAX_FLEET_REQS is refused at
   once and counted as an error (the teardown fails). */
static void probe_acquire(void *user_data, groupconc_fleet_request *request, const char *group) {
    fixture *f = user_data;
    fleet_probe *fp = &f->fleet;
    bool grant, overflow = false;
    pthread_mutex_lock(&fp->asked.mu);
    grant = fp->grant;
    if (!grant && fp->nreqs < MAX_FLEET_REQS) {
        fp->reqs[fp->nreqs] = request;
        snprintf(fp->groups[fp->nreqs], sizeof fp->groups[0], "%s", group);
        fp->nreqs++;
    } else if (!grant) {
        overflow = true;
    }
    fp->asked.value++;
    pthread_cond_broadcast(&fp->asked.cv);
    pthread_mutex_unlock(&fp->asked.mu);
    if (grant) {
        if (groupconc_fleet_answer(request, GROUPCONC_FLEET_GRANTED, PROBE_LEASE) == GROUPCONC_OK)
            atomic_fetch_add(&fp->grants, 1);
        else
            atomic_fetch_add(&fp->errors, 1);
    } else if (overflow) {
        atomic_fetch_add(&fp->errors, 1);
        (void)groupconc_fleet_answer(request, GROUPCONC_FLEET_REJECT, 0);
    }
}

static void probe_release(void *user_data, const char *group, uint64_t lease) {
    fixture *f = user_data;
    pthread_mutex_lock(&f->fleet.asked.mu);
    f->fleet.last_lease = lease;
    snprintf(f->fleet.released_group, sizeof f->fleet.released_group, "%s", group);
    pthread_mutex_unlock(&f->fleet.asked.mu);
    atomic_fetch_add(&f->fleet.releases, 1);
}

static int probe_attach(void *user_data, groupconc_executor *ex) {
    fixture *f = user_data;
    (void)ex;
    int rc = atomic_load(&f->fleet.attach_rc);
    atomic_fetch_add(rc == GROUPCONC_OK ? &f->fleet.attaches : &f->fleet.refused, 1);
    return rc;
}

static void probe_detach(void *user_data, groupconc_executor *ex) {
    (void)ex;
    atomic_fetch_add(&((fixture *)user_data)->fleet.detaches, 1);
}

static groupconc_fleet_provider probe_provider(fixture *f) {
    groupconc_fleet_provider fp = {probe_acquire, probe_release, f, probe_attach, probe_detach};
    return fp;
}

static const groupconc_group_limits fixture_table[] = {
    {"solo", 1, GROUPCONC_UNLIMITED, 0, 0},
    {"bulk", 1, 1, 0, 0},
};

static int fixture_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->row = *state;
    *state = f;
    counter_init(&f->gate);
    counter_init(&f->arrived);
    counter_init(&f->go);
    counter_init(&f->fleet.asked);
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
    latch_open(&f->gate); /* first: a row that failed half-way may have parked a task on tmp_ex */
    latch_open(&f->go);
    if (f->pending && groupconc_deferred_complete(f->pending, 0, NULL) != GROUPCONC_OK) bad = 1;
#ifndef GROUPCONC_NO_SCOPES
    for (int i = f->nscopes - 1; i >= 0; i--) { /* joined first: a fork body may still close its child */
        if (!f->scopes[i]) continue;
        (void)groupconc_scope_join(f->scopes[i]);
        int rc = groupconc_scope_close(f->scopes[i]);
        if (rc != GROUPCONC_OK) {
            fprintf(stderr, "row \"%s\": scope_close in the teardown: %s\n", f->row->name, groupconc_errname(rc));
            bad = 1;
        }
    }
#endif
    if (f->file) fclose(f->file);
#ifndef GROUPCONC_NO_GATE
    for (int i = 0; i < f->npermits; i++) { /* those the row released already: EPERMIT, nothing done */
        int rc = groupconc_permit_release(&f->permits[i], GROUPCONC_RELEASE_CANCELLED, 0);
        if (rc != GROUPCONC_OK && rc != GROUPCONC_EPERMIT) bad = 1;
    }
    for (int i = 0; i < f->ngates; i++) {
        int rc = f->gates[i] ? groupconc_gate_destroy(f->gates[i]) : GROUPCONC_OK;
        if (rc != GROUPCONC_OK) {
            fprintf(stderr, "row \"%s\": gate_destroy in the teardown: %s\n", f->row->name, groupconc_errname(rc));
            bad = 1;
        }
    }
#endif
    for (int i = 0; i < f->fleet.nreqs; i++) { /* a fleet row that failed half-way: its destroy waits for them */
        if (!f->fleet.reqs[i]) continue;
        fprintf(stderr, "row \"%s\": fleet request %d left unanswered\n", f->row->name, i);
        bad = 1;
        if (groupconc_fleet_answer(f->fleet.reqs[i], GROUPCONC_FLEET_REJECT, 0) == GROUPCONC_OK) f->fleet.reqs[i] = NULL;
    }
    if (f->tmp_ex && groupconc_executor_destroy(f->tmp_ex) != GROUPCONC_OK) bad = 1;
    if (f->ex && groupconc_executor_destroy(f->ex) != GROUPCONC_OK) bad = 1;
    { /* every GRANTED lease came back through release, every attach had its detach */
        int grants = atomic_load(&f->fleet.grants), releases = atomic_load(&f->fleet.releases);
        int attaches = atomic_load(&f->fleet.attaches), detaches = atomic_load(&f->fleet.detaches);
        if (grants != releases || attaches != detaches || atomic_load(&f->fleet.errors) != 0) {
            fprintf(stderr, "row \"%s\": fleet provider: %d granted, %d released, %d attach, %d detach, %d errors\n",
                    f->row->name, grants, releases, attaches, detaches, atomic_load(&f->fleet.errors));
            bad = 1;
        }
    }
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
       P_NULL_OUT, P_GROUPS_NULL, P_COUNT_ZERO, P_GRUN, P_MAXWAITING, P_DEFWAIT, P_MAXGROUPS, P_IDLE, P_FLEET };
/* P_FLEET rows: which of policy.fleet's two functions are set (attach and detach always are) */
enum { FL_ACQUIRE_ONLY = 1, FL_RELEASE_ONLY, FL_BOTH };

static const groupconc_group_limits valid_table[] = {
    {"t0", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
    {"t1", GROUPCONC_DEFAULT, 1, 0, 0},
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

/* groupconc_policy_check on the policy an executor_create row just used: the same code, in the
   problem too, and for an error the field it names (want_field) and a message; for OK, no field.
   So create and check can never disagree. */
static void check_agrees(const groupconc_policy *p, int create_rc, const char *want_field) {
    groupconc_policy_problem pr;
    memset(&pr, 0x5a, sizeof pr);
    int rc = groupconc_policy_check(p, &pr);
    if (rc != create_rc)
        fail_msg("executor_create returned %s, policy_check on the same policy %s (field \"%.*s\")",
                 groupconc_errname(create_rc), groupconc_errname(rc), (int)sizeof pr.field, pr.field);
    if (pr.code != rc) fail_msg("policy_check returned %s, problem.code %d", groupconc_errname(rc), pr.code);
    if (!memchr(pr.field, '\0', sizeof pr.field) || !memchr(pr.message, '\0', sizeof pr.message))
        fail_msg("problem.field / problem.message not NUL-terminated");
    if (rc == GROUPCONC_OK) {
        if (pr.field[0] != '\0') fail_msg("valid policy, yet problem.field \"%s\"", pr.field);
        return;
    }
    if (pr.field[0] == '\0' || pr.message[0] == '\0')
        fail_msg("policy_check returned %s with field \"%s\", message \"%s\"", groupconc_errname(rc), pr.field,
                 pr.message);
    if (want_field && strcmp(pr.field, want_field) != 0)
        fail_msg("policy_check returned %s naming \"%s\", want \"%s\"", groupconc_errname(rc), pr.field, want_field);
}

static int call_policy(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    p.groups = valid_table;
    p.group_count = 2;
    int v = (int)r->value;
    const char *field = NULL;
    switch (r->field) {
    case P_CONC: p.default_concurrency = v; field = "default_concurrency"; break;
    case P_INFL: p.default_max_in_flight = v; field = "default_max_in_flight"; break;
    case P_THR: p.default_queue_threshold = v; field = "default_queue_threshold"; break;
    case P_GINFL: p.global_max_in_flight = v; field = "global_max_in_flight"; break;
    case P_GTHR: p.global_queue_threshold = v; field = "global_queue_threshold"; break;
    case P_THREADS: p.max_threads = v; field = "max_threads"; break;
    case P_KEEPALIVE: p.keep_alive_ns = r->value; field = "keep_alive_ns"; break;
    case P_REJECTION: p.rejection = (groupconc_rejection_policy)v; field = "rejection"; break;
    case P_NULL_POLICY: {
        int rc = groupconc_executor_create(NULL, &f->tmp_ex);
        check_agrees(NULL, rc, "policy");
        return rc;
    }
    case P_NULL_OUT: return groupconc_executor_create(&p, NULL); /* the policy is fine: no check */
    case P_GROUPS_NULL: p.groups = NULL; field = "groups"; break;
    case P_COUNT_ZERO: p.group_count = 0; break;
    case P_GRUN: p.global_max_running = v; field = "global_max_running"; break;
    case P_MAXWAITING: p.max_waiting = v; field = "max_waiting"; break;
    case P_DEFWAIT: p.default_max_wait_ns = r->value; field = "default_max_wait_ns"; break;
    case P_MAXGROUPS: p.max_groups = v; field = "max_groups"; break;
    case P_IDLE: p.group_idle_ns = r->value; field = "group_idle_ns"; break;
    case P_FLEET: /* the provider answers GRANTED inside acquire: check_created's task runs */
        p.fleet = probe_provider(f);
        f->fleet.grant = true;
        if (v == FL_ACQUIRE_ONLY) p.fleet.release = NULL;
        if (v == FL_RELEASE_ONLY) p.fleet.acquire = NULL;
        field = v == FL_ACQUIRE_ONLY ? "fleet.release" : "fleet.acquire"; /* the one that is NULL */
        break;
    default: fail();
    }
    int rc = groupconc_executor_create(&p, &f->tmp_ex);
    check_agrees(&p, rc, field);
    if (r->field == P_FLEET && rc == GROUPCONC_OK && v != FL_BOTH) /* before a task calls the NULL one */
        fail_msg("create accepted a provider with %s NULL", field);
    rc = check_created(f, rc);
    if (r->field == P_FLEET) { /* refused: the provider never heard of it; made: attached, asked once,
                                  its lease given back before the wait returned */
        int want = rc == GROUPCONC_OK ? 1 : 0;
        if (atomic_load(&f->fleet.attaches) != want || counter_get(&f->fleet.asked) != want ||
            atomic_load(&f->fleet.grants) != want || atomic_load(&f->fleet.releases) != want ||
            atomic_load(&f->fleet.detaches) != 0)
            fail_msg("create returned %s: provider attached %d, asked %d, granted %d, released %d, detached %d (want %d)",
                     groupconc_errname(rc), atomic_load(&f->fleet.attaches), counter_get(&f->fleet.asked),
                     atomic_load(&f->fleet.grants), atomic_load(&f->fleet.releases), atomic_load(&f->fleet.detaches),
                     want);
    }
    if (rc == GROUPCONC_OK && r->field >= P_GRUN) { /* the new fields are in effect: read back */
        groupconc_executor_stats s;
        groupconc_group_stats gs;
        assert_int_equal(groupconc_executor_stats_get(f->tmp_ex, &s), GROUPCONC_OK);
        if (r->field == P_GRUN) assert_int_equal(s.global_max_running, v);
        if (r->field == P_MAXWAITING) assert_int_equal(s.max_waiting, v);
        if (r->field == P_MAXGROUPS) assert_int_equal(s.max_groups, v);
        if (r->field == P_DEFWAIT) { /* t0's entry has max_wait_ns 0: the policy default */
            assert_int_equal(groupconc_group_stats_get(f->tmp_ex, "t0", &gs), GROUPCONC_OK);
            assert_true(gs.max_wait_ns == r->value);
        }
    }
    return rc;
}

/* ==== executor create: per-group table entries ================================================== */

enum { T_KEY, T_CONC, T_INFL, T_THR, T_WAIT };
enum { K_NULL, K_EMPTY, K_LONG, K_MAX, K_DUP_FIRST, K_DUP_PREV };

static int call_table(fixture *f, const row *r) {
    groupconc_group_limits tbl[3] = {
        {"t0", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"t1", GROUPCONC_DEFAULT, 1, 0, 0},
        {"t2", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0},
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
    case T_WAIT: e->max_wait_ns = r->value; break;
    default: fail();
    }
    groupconc_policy p = groupconc_policy_default();
    p.groups = tbl;
    p.group_count = 3;
    /* the field policy_check must name: the row's entry (a duplicate is reported at its second use,
       which the rows put at `entry`) */
    static const char *const names[] = {"group", "concurrency", "max_in_flight", "queue_threshold", "max_wait_ns"};
    char field[48];
    snprintf(field, sizeof field, "groups[%d].%s", r->entry, names[r->field]);
    int rc = groupconc_executor_create(&p, &f->tmp_ex);
    check_agrees(&p, rc, field);
    return check_created(f, rc);
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
    tbl[0].max_wait_ns = INT64_C(7000000000);
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
    assert_true(gs.max_wait_ns == INT64_C(7000000000));
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

/* groupconc_submit_spec with a queue deadline: spec->max_wait_ns > 0, 0 (the group's / the policy's)
   or GROUPCONC_FOREVER; anything else negative is ELIMIT (GROUPCONC_DEFAULT and GROUPCONC_KEEP too:
   neither is documented for a task). A refused call fires no SUBMITTED, gives no handle and never
   calls the cleanup; an accepted one runs (the group "sw" is new: it is admitted at once, so even a
   1 ns deadline cannot expire) with its cleanup called once. */
enum { SW_PLAIN, SW_AFTER_SHUTDOWN, SW_NULL_OUT };

static int call_submit_wait(fixture *f, const row *r) {
    if (r->field == SW_AFTER_SHUTDOWN) assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = "sw";
    spec.task_id = "w";
    spec.fn = task_count;
    spec.arg = &f->runs;
    spec.cleanup = spec_cleanup;
    spec.max_wait_ns = r->value;
    atomic_store(&spec_cleanups, 0);
    int before = atomic_load(&f->submitted);
    groupconc_task *t = (groupconc_task *)(uintptr_t)1; /* must come back NULL on error */
    int rc = groupconc_submit_spec(f->ex, &spec, r->field == SW_NULL_OUT ? NULL : &t);
    if (r->field == SW_NULL_OUT) t = NULL;
    if (rc != GROUPCONC_OK) {
        if (t) fail_msg("submit_spec returned %s but gave a handle", groupconc_errname(rc));
        if (rc != GROUPCONC_ESHUTDOWN && atomic_load(&f->submitted) != before)
            fail_msg("submit_spec refused an argument (%s) after firing SUBMITTED", groupconc_errname(rc));
        if (atomic_load(&spec_cleanups) != 0) fail_msg("submit_spec returned %s but called the cleanup", groupconc_errname(rc));
        if (groupconc_group_stats_get(f->ex, "sw", &(groupconc_group_stats){0}) != GROUPCONC_ENOTFOUND)
            fail_msg("submit_spec returned %s but made the group's state", groupconc_errname(rc));
        assert_int_equal(atomic_load(&f->runs), 0);
        return rc;
    }
    if (r->field == SW_NULL_OUT) { /* fire-and-forget: it runs, its cleanup once */
        for (int i = 0; i < 10000 && atomic_load(&spec_cleanups) == 0; i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
        assert_int_equal(atomic_load(&spec_cleanups), 1);
        assert_int_equal(atomic_load(&f->runs), 1);
        return rc;
    }
    assert_non_null(t);
    add_extra(f, t);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
    if (res.status != GROUPCONC_STATUS_SUCCESS)
        fail_msg("submit_spec(max_wait_ns %lld) into a new group: %s (reason %s), want SUCCESS", (long long)r->value,
                 groupconc_status_name(res.status), groupconc_errname(res.reason));
    assert_int_equal(atomic_load(&spec_cleanups), 1);
    assert_int_equal(atomic_load(&f->runs), 1);
    return rc;
}

/* groupconc_policy_check: a row for every field it validates. Each row sets one field (or, for the
   C_FIRST_* rows, several: the first one in the documented order is reported) of a policy that has a
   three-entry table, and checks the code, problem.code, the field named, problem.group (an entry's
   key, pointing into the caller's table, or NULL for a policy field), problem.value for a numeric
   field, a non-empty message that names the field, and that executor_create returns the same code. */
enum { C_POLICY_NULL, C_OUT_NULL, C_OUT_NULL_BAD, C_CONC, C_INFL, C_THR, C_GINFL, C_GTHR, C_THREADS,
       C_KEEPALIVE, C_REJECTION, C_REJECTION_WITH_HANDLER, C_GROUPS_NULL, C_KEY_NULL, C_KEY_EMPTY,
       C_KEY_LONG, C_KEY_MAX, C_KEY_DUP_FIRST, C_KEY_DUP_PREV, C_ENTRY_CONC, C_ENTRY_INFL, C_ENTRY_THR,
       C_CALLBACKS_SET, C_MINIMA, C_FIRST_POLICY, C_FIRST_TABLE, C_GRUN, C_MAXWAITING, C_DEFWAIT, C_MAXGROUPS,
       C_IDLE, C_ENTRY_WAIT, C_MINIMA_NEW, C_FIRST_NEW, C_FLEET_ACQUIRE_ONLY, C_FLEET_RELEASE_ONLY, C_FLEET_BOTH,
       C_FIRST_FLEET, C_BEFORE_FLEET };

static int check_resolver(const char *group, int *out_concurrency, void *user_data) {
    (void)group, (void)user_data;
    *out_concurrency = 2;
    return 0;
}
static void check_reject_handler(const groupconc_rejection *rejection, groupconc_reject_result *out_result,
                                 void *user_data) {
    (void)rejection, (void)out_result, (void)user_data;
}

static int call_policy_check(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_group_limits table[3] = {{"a", 1, 1, 1, 0}, {"b", 2, GROUPCONC_UNLIMITED, 0, 0},
                                       {"c", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0}};
    p.groups = table;
    p.group_count = 3;
    groupconc_policy_problem pr;
    char want_field[48] = "";
    bool entry_field = false; /* the field is in table[r->entry]: problem.group is its key */
    bool numeric = true;      /* problem.value is r->value */
    int v = (int)r->value;
    memset(&pr, 0x5a, sizeof pr);
#define ENTRY_FIELD(name) (snprintf(want_field, sizeof want_field, "groups[%d].%s", r->entry, name), entry_field = true)
#define POLICY_FIELD(name) snprintf(want_field, sizeof want_field, "%s", name)
    switch (r->field) {
    case C_POLICY_NULL: {
        int rc = groupconc_policy_check(NULL, &pr);
        if (pr.code != rc) fail_msg("problem.code %d, returned %d", pr.code, rc);
        if (strcmp(pr.field, "policy") != 0) fail_msg("problem.field \"%s\", want \"policy\"", pr.field);
        if (pr.message[0] == '\0') fail_msg("empty problem.message");
        groupconc_executor *ex = (groupconc_executor *)(uintptr_t)1;
        int crc = groupconc_executor_create(NULL, &ex);
        if (crc != rc) fail_msg("executor_create returned %s, policy_check %s", groupconc_errname(crc), groupconc_errname(rc));
        assert_null(ex);
        return rc;
    }
    case C_OUT_NULL: return groupconc_policy_check(&p, NULL);
    case C_OUT_NULL_BAD: p.default_concurrency = v; return groupconc_policy_check(&p, NULL);
    case C_CONC: p.default_concurrency = v; POLICY_FIELD("default_concurrency"); break;
    case C_INFL: p.default_max_in_flight = v; POLICY_FIELD("default_max_in_flight"); break;
    case C_THR: p.default_queue_threshold = v; POLICY_FIELD("default_queue_threshold"); break;
    case C_GINFL: p.global_max_in_flight = v; POLICY_FIELD("global_max_in_flight"); break;
    case C_GTHR: p.global_queue_threshold = v; POLICY_FIELD("global_queue_threshold"); break;
    case C_THREADS: p.max_threads = v; POLICY_FIELD("max_threads"); break;
    case C_KEEPALIVE: p.keep_alive_ns = r->value; POLICY_FIELD("keep_alive_ns"); break;
    case C_REJECTION: p.rejection = (groupconc_rejection_policy)v; POLICY_FIELD("rejection"); break;
    case C_REJECTION_WITH_HANDLER: /* a handler replaces `rejection`, which must still be a valid value */
        p.rejection = (groupconc_rejection_policy)v;
        p.reject_handler = check_reject_handler;
        POLICY_FIELD("rejection");
        break;
    case C_GROUPS_NULL: p.groups = NULL; p.group_count = 2; POLICY_FIELD("groups"); numeric = false; break;
    case C_KEY_NULL: table[r->entry].group = NULL; ENTRY_FIELD("group"); entry_field = false; break;
    case C_KEY_EMPTY: table[r->entry].group = ""; ENTRY_FIELD("group"); entry_field = numeric = false; break;
    case C_KEY_LONG: table[r->entry].group = f->long_key; ENTRY_FIELD("group"); entry_field = numeric = false; break;
    case C_KEY_MAX: table[r->entry].group = f->max_key; break;
    case C_KEY_DUP_FIRST: table[r->entry].group = "a"; ENTRY_FIELD("group"); numeric = false; break;
    case C_KEY_DUP_PREV: table[r->entry].group = table[r->entry - 1].group; ENTRY_FIELD("group"); numeric = false; break;
    case C_ENTRY_CONC: table[r->entry].concurrency = v; ENTRY_FIELD("concurrency"); break;
    case C_ENTRY_INFL: table[r->entry].max_in_flight = v; ENTRY_FIELD("max_in_flight"); break;
    case C_ENTRY_THR: table[r->entry].queue_threshold = v; ENTRY_FIELD("queue_threshold"); break;
    case C_CALLBACKS_SET: /* no combination of resolver, handler, listener and table is refused */
        p.resolver = check_resolver;
        p.reject_handler = check_reject_handler;
        p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        p.listener = listener;
        p.listener_user_data = f;
        break;
    case C_MINIMA: /* every limit at its smallest valid value */
        p.default_concurrency = 1;
        p.default_max_in_flight = 1;
        p.default_queue_threshold = 0;
        p.global_max_in_flight = 1;
        p.global_queue_threshold = 0;
        p.max_threads = 1;
        p.keep_alive_ns = 0;
        table[0].concurrency = 1;
        table[0].max_in_flight = 1;
        table[0].queue_threshold = 0;
        break;
    case C_FIRST_POLICY: /* limits, max_threads, keep_alive_ns, rejection, then the table */
        p.max_threads = v;
        p.keep_alive_ns = -1;
        p.rejection = (groupconc_rejection_policy)77;
        table[0].group = "";
        table[1].concurrency = 0;
        POLICY_FIELD("max_threads");
        break;
    case C_FIRST_TABLE: /* the table in order: entry 1's limit before entry 2's key */
        table[1].queue_threshold = v;
        table[2].group = NULL;
        ENTRY_FIELD("queue_threshold");
        break;
    case C_GRUN: p.global_max_running = v; POLICY_FIELD("global_max_running"); break;
    case C_MAXWAITING: p.max_waiting = v; POLICY_FIELD("max_waiting"); break;
    case C_DEFWAIT: p.default_max_wait_ns = r->value; POLICY_FIELD("default_max_wait_ns"); break;
    case C_MAXGROUPS: p.max_groups = v; POLICY_FIELD("max_groups"); break;
    case C_IDLE: p.group_idle_ns = r->value; POLICY_FIELD("group_idle_ns"); break;
    case C_ENTRY_WAIT: table[r->entry].max_wait_ns = r->value; ENTRY_FIELD("max_wait_ns"); break;
    case C_MINIMA_NEW: /* every new limit at its smallest valid value */
        p.global_max_running = 1;
        p.max_waiting = 0;
        p.default_max_wait_ns = 1;
        p.max_groups = 1;
        p.group_idle_ns = 1;
        table[0].max_wait_ns = 1;
        table[1].max_wait_ns = GROUPCONC_FOREVER;
        table[2].max_wait_ns = GROUPCONC_DEFAULT;
        break;
    case C_FIRST_NEW: /* a new limit (max_groups) before rejection, then the table */
        p.max_groups = v;
        p.rejection = (groupconc_rejection_policy)77;
        table[0].max_wait_ns = -7;
        POLICY_FIELD("max_groups");
        break;
    case C_FLEET_ACQUIRE_ONLY: /* the field named is the NULL one; value 0 (a NULL pointer) */
        p.fleet = probe_provider(f);
        p.fleet.release = NULL;
        POLICY_FIELD("fleet.release");
        break;
    case C_FLEET_RELEASE_ONLY:
        p.fleet = probe_provider(f);
        p.fleet.acquire = NULL;
        POLICY_FIELD("fleet.acquire");
        break;
    case C_FLEET_BOTH: p.fleet = probe_provider(f); break;
    case C_FIRST_FLEET: /* fleet before rejection, then the table */
        p.fleet = probe_provider(f);
        p.fleet.release = NULL;
        p.rejection = (groupconc_rejection_policy)77;
        table[0].group = "";
        POLICY_FIELD("fleet.release");
        break;
    case C_BEFORE_FLEET: /* group_idle_ns before fleet */
        p.group_idle_ns = r->value;
        p.fleet = probe_provider(f);
        p.fleet.acquire = NULL;
        POLICY_FIELD("group_idle_ns");
        break;
    default: fail();
    }
#undef ENTRY_FIELD
#undef POLICY_FIELD
    if (r->expect == GROUPCONC_OK) want_field[0] = '\0'; /* a valid value: no field named */
    int rc = groupconc_policy_check(&p, &pr);
    if (pr.code != rc) fail_msg("problem.code %d, returned %d", pr.code, rc);
    if (!memchr(pr.field, '\0', sizeof pr.field) || !memchr(pr.message, '\0', sizeof pr.message))
        fail_msg("problem.field / problem.message not NUL-terminated");
    if (strcmp(pr.field, want_field) != 0) fail_msg("problem.field \"%s\", want \"%s\"", pr.field, want_field);
    if (rc != GROUPCONC_OK) {
        if (pr.message[0] == '\0' || !strstr(pr.message, want_field))
            fail_msg("problem.message \"%s\" does not name %s", pr.message, want_field);
        if (entry_field && pr.group != table[r->entry].group)
            fail_msg("problem.group %p (\"%s\"), want table[%d].group %p", (const void *)pr.group,
                     pr.group ? pr.group : "(null)", r->entry, (const void *)table[r->entry].group);
        if (!entry_field && !(r->field >= C_KEY_NULL && r->field <= C_KEY_LONG) && pr.group)
            fail_msg("problem.group \"%s\" for a policy field", pr.group);
        if (numeric && pr.value != (long long)r->value)
            fail_msg("problem.value %lld, want %lld", pr.value, (long long)r->value);
    }
    groupconc_executor *ex = (groupconc_executor *)(uintptr_t)1; /* executor_create agrees */
    int crc = groupconc_executor_create(&p, &ex);
    if (crc != rc) fail_msg("executor_create returned %s, policy_check %s", groupconc_errname(crc), groupconc_errname(rc));
    if (crc == GROUPCONC_OK) {
        assert_non_null(ex);
        f->tmp_ex = ex; /* the teardown destroys it */
    } else {
        assert_null(ex);
    }
    if (atomic_load(&f->fleet.attaches) != (crc == GROUPCONC_OK && p.fleet.acquire ? 1 : 0))
        fail_msg("executor_create returned %s, fleet provider attached %d times", groupconc_errname(crc),
                 atomic_load(&f->fleet.attaches));
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
/* Any negative timeout means GROUPCONC_FOREVER (not only -1): not EINVAL, not a poll. The running
   task is released by a helper thread 50 ms after the call starts, so a negative value taken as
   "poll" or as an already passed deadline returns ETIMEDOUT; taken as forever it returns OK once
   the task finished. (If the helper were late the row could only pass wrongly, never fail.) */
static void *open_gate_later(void *arg) {
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    latch_open(arg);
    return NULL;
}

enum { NEG_WAIT_RUNNING, NEG_WAIT_DONE, NEG_GRACEFUL };

static int call_negative_timeout(fixture *f, const row *r) {
    groupconc_result res;
    memset(&res, 0, sizeof res);
    if (r->field == NEG_WAIT_DONE) {
        int rc = groupconc_task_wait_for(f->done, r->value, &res);
        if (rc == GROUPCONC_OK) assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        return rc;
    }
    pthread_t opener;
    watchdog w;
    watchdog_start(&w, "a wait with a negative timeout whose task finished");
    assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &f->gate), 0);
    int rc;
    if (r->field == NEG_WAIT_RUNNING) {
        rc = groupconc_task_wait_for(f->parked, r->value, &res);
        if (rc == GROUPCONC_OK) {
            assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
            assert_string_equal(res.task_id, "parked");
        }
    } else {
        rc = groupconc_executor_shutdown_graceful(f->ex, r->value);
        if (rc == GROUPCONC_OK) { /* every task finished: the queued one ran, nothing was cancelled */
            assert_int_equal(groupconc_task_wait_for(f->queued, 0, &res), GROUPCONC_OK);
            assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        }
    }
    watchdog_stop(&w);
    pthread_join(opener, NULL);
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
       X_AFTER_SHUTDOWN, X_NEGATIVE_TIMEOUT, X_MAX_WAIT };

static int call_execute_all(fixture *f, const row *r) {
    groupconc_task_spec specs[3] = {
        {"e1", "a", task_count, &f->runs, NULL, 0},
        {"e2", NULL, task_count, &f->runs, NULL, 0},
        {"e1", "c", task_count, &f->runs, NULL, 0},
    };
    groupconc_result res[3];
    groupconc_executor *ex = f->ex;
    const groupconc_task_spec *tasks = specs;
    groupconc_result *out = res;
    size_t count = 3;
    int64_t timeout = BOUND_NS;
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
    case X_NEGATIVE_TIMEOUT: timeout = r->value; break; /* as GROUPCONC_FOREVER: every element SUCCESS */
    case X_MAX_WAIT: specs[2].max_wait_ns = r->value; break; /* the last: nothing may be submitted */
    default: fail();
    }
    int rc = groupconc_execute_all(ex, tasks, count, timeout, out);
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
                         groupconc_status_name(res[i].status), groupconc_errname(res[i].reason));
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

static int call_group_shutdown(fixture *f, const row *r) {
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

static int call_group_evict(fixture *f, const row *r) {
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

#ifndef GROUPCONC_NO_GATE
/* ==== admission gate ============================================================================= */
/* Gates made here are tracked in the fixture: the teardown releases the permits a row still holds,
   then destroys every gate (which must return OK: a permit lost or counted twice makes it EBUSY),
   then the executors (EBUSY there: a gate left linked to its executor). */

static void gate_listener(const groupconc_gate_event *ev, void *user_data) {
    fixture *f = user_data;
    if ((unsigned)ev->type < 3u) atomic_fetch_add(&f->gate_events[ev->type], 1);
}

static int gate_events(fixture *f) {
    return atomic_load(&f->gate_events[0]) + atomic_load(&f->gate_events[1]) + atomic_load(&f->gate_events[2]);
}

static groupconc_gate *track_gate(fixture *f, groupconc_gate *g) {
    assert_true(f->ngates < MAX_GATES);
    f->gates[f->ngates++] = g;
    return g;
}

/* The gate was destroyed by the row itself: forget it and its permits (a permit is valid only
   until its gate is destroyed). */
static void untrack_gate(fixture *f, groupconc_gate *g) {
    for (int i = 0; i < f->ngates; i++)
        if (f->gates[i] == g) f->gates[i] = NULL;
    int n = 0;
    for (int i = 0; i < f->npermits; i++)
        if (f->permits[i].gate != g) f->permits[n++] = f->permits[i];
    f->npermits = n;
}

/* A gate with the fixture's listener: standalone (ex NULL, `limit`) or an executor gate (limit 0). */
static groupconc_gate *add_gate(fixture *f, groupconc_executor *ex, int limit) {
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.limit = limit;
    c.executor = ex;
    c.listener = gate_listener;
    c.listener_user_data = f;
    groupconc_gate *g = NULL;
    assert_int_equal(groupconc_gate_create(&c, &g), GROUPCONC_OK);
    assert_non_null(g);
    return track_gate(f, g);
}

static void acquire_held(fixture *f, groupconc_gate *g, const char *group, groupconc_permit *p) {
    assert_int_equal(groupconc_gate_try_acquire(g, group, p), GROUPCONC_OK);
    assert_true(f->npermits < MAX_PERMITS);
    f->permits[f->npermits++] = *p;
}

static bool permit_empty(const groupconc_permit *p) { return p->gate == NULL && p->slot == 0 && p->generation == 0; }

/* The whole gate's stats (group NULL). */
static groupconc_gate_stats gate_stats(groupconc_gate *g) {
    groupconc_gate_stats s;
    assert_int_equal(groupconc_gate_stats_get(g, NULL, &s), GROUPCONC_OK);
    return s;
}

static uint64_t released_total(const groupconc_gate_stats *s) {
    return s->released_success + s->released_failure + s->released_cancelled;
}

static void assert_gate_stats_equal(const groupconc_gate_stats *a, const groupconc_gate_stats *b) {
    if (a->in_flight != b->in_flight || a->admitted != b->admitted || a->rejected != b->rejected ||
        released_total(a) != released_total(b) || a->available != b->available)
        fail_msg("gate stats changed: in_flight %zu -> %zu, admitted %llu -> %llu, rejected %llu -> %llu, released %llu -> "
                 "%llu, available %d -> %d",
                 a->in_flight, b->in_flight, (unsigned long long)a->admitted, (unsigned long long)b->admitted,
                 (unsigned long long)a->rejected, (unsigned long long)b->rejected,
                 (unsigned long long)released_total(a), (unsigned long long)released_total(b), a->available,
                 b->available);
}
#endif

static groupconc_executor_stats xstats(groupconc_executor *ex) {
    groupconc_executor_stats s;
    assert_int_equal(groupconc_executor_stats_get(ex, &s), GROUPCONC_OK);
    return s;
}

#ifndef GROUPCONC_NO_GATE
/* ---- groupconc_gate_create ---------------------------------------------------------------------- */

enum { GC_NULL_CONFIG, GC_NULL_OUT, GC_NULL_OUT_EXEC, GC_NULL_OUT_BAD_LIMIT, GC_LIMIT, GC_EXEC_LIMIT, GC_EXEC,
       GC_EXEC_SHUTDOWN, GC_EXEC_GRACEFUL, GC_EXEC_LIMIT_AFTER_SHUTDOWN, GC_COPIED };

static int call_gate_create(fixture *f, const row *r) {
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.limit = 1;
    c.listener = gate_listener;
    c.listener_user_data = f;
    const groupconc_gate_config *cfg = &c;
    groupconc_gate *g = (groupconc_gate *)(uintptr_t)1; /* must come back NULL on error */
    groupconc_gate **out = &g;
    switch (r->field) {
    case GC_NULL_CONFIG: cfg = NULL; break;
    case GC_NULL_OUT: out = NULL; break;
    case GC_NULL_OUT_EXEC: out = NULL; c.executor = f->ex; c.limit = 0; break; /* linked, it would block destroy */
    case GC_NULL_OUT_BAD_LIMIT: out = NULL; c.limit = (int)r->value; break;
    case GC_LIMIT: c.limit = (int)r->value; break;
    case GC_EXEC_LIMIT: c.executor = f->ex; c.limit = (int)r->value; break;
    case GC_EXEC: c.executor = f->ex; c.limit = 0; break;
    case GC_EXEC_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        c.executor = f->ex;
        c.limit = 0;
        break;
    case GC_EXEC_GRACEFUL:
        latch_open(&f->gate);
        assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
        c.executor = f->ex;
        c.limit = 0;
        break;
    case GC_EXEC_LIMIT_AFTER_SHUTDOWN: /* the argument is checked first */
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        c.executor = f->ex;
        c.limit = 1;
        break;
    case GC_COPIED: { /* the config may be freed at once: its listener still runs */
        groupconc_gate_config *heap = malloc(sizeof *heap);
        assert_non_null(heap);
        *heap = c;
        heap->limit = 2;
        int rc = groupconc_gate_create(heap, &g);
        memset(heap, 0xEE, sizeof *heap);
        free(heap);
        if (rc != GROUPCONC_OK) return rc;
        track_gate(f, g);
        groupconc_permit p;
        acquire_held(f, g, NULL, &p);
        assert_int_equal(gate_stats(g).limit, 2);
        assert_int_equal(atomic_load(&f->gate_events[GROUPCONC_GATE_ADMITTED]), 1);
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        assert_int_equal(atomic_load(&f->gate_events[GROUPCONC_GATE_RELEASED]), 1);
        return rc;
    }
    default: fail();
    }
    int rc = groupconc_gate_create(cfg, out);
    if (rc != GROUPCONC_OK) {
        if (out && g) fail_msg("gate_create returned %s but *out_gate is %p", groupconc_errname(rc), (void *)g);
        if (gate_events(f) != 0) fail_msg("gate_create returned %s and a listener ran", groupconc_errname(rc));
        /* an executor gate left linked to its executor: the teardown's executor_destroy says EBUSY */
        return rc;
    }
    assert_non_null(g);
    track_gate(f, g);
    /* a gate made: it works, with the limit it was given */
    groupconc_permit p;
    acquire_held(f, g, c.executor ? "gc" : NULL, &p);
    groupconc_gate_stats s = gate_stats(g);
    /* limit INT_MAX is reported as GROUPCONC_UNLIMITED (the two are one value inside: no 2^31
       permits can be out at once) */
    if (!(s.limit == (c.executor ? GROUPCONC_UNLIMITED : c.limit) ||
          (c.limit == INT_MAX && s.limit == GROUPCONC_UNLIMITED)))
        fail_msg("gate_create(limit %d): stats limit %d", c.limit, s.limit);
    assert_int_equal(s.in_flight, 1);
    if (c.executor) assert_int_equal(xstats(c.executor).gate_permits, 1);
    assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    return rc;
}
#endif

#if !defined(GROUPCONC_NO_GATE) || !defined(GROUPCONC_NO_SCOPES) /* destroy_or_rescue: both */
/* ---- groupconc_gate_destroy --------------------------------------------------------------------- */

/* executor_destroy that should refuse at once: were it to go ahead, it would wait for the fixture's
   parked task, so a helper opens the latch if the call has not returned within 2 s (the row then
   fails on the wrong code instead of hanging). */
typedef struct rescue {
    counter returned;
    counter *latch;
} rescue;

static void *rescue_main(void *arg) {
    rescue *r = arg;
    struct timespec dl = deadline_after(INT64_C(2000000000));
    pthread_mutex_lock(&r->returned.mu);
    int rc = 0;
    while (!r->returned.open && rc == 0) rc = pthread_cond_timedwait(&r->returned.cv, &r->returned.mu, &dl);
    bool late = !r->returned.open;
    pthread_mutex_unlock(&r->returned.mu);
    if (late) latch_open(r->latch);
    return NULL;
}

static int destroy_or_rescue(fixture *f, groupconc_executor *ex) {
    rescue r;
    pthread_t th;
    counter_init(&r.returned);
    r.latch = &f->gate;
    assert_int_equal(pthread_create(&th, NULL, rescue_main, &r), 0);
    int rc = groupconc_executor_destroy(ex);
    latch_open(&r.returned);
    pthread_join(th, NULL);
    counter_destroy(&r.returned);
    return rc;
}
#endif

#ifndef GROUPCONC_NO_GATE
enum { GD_NULL, GD_BUSY_STANDALONE, GD_BUSY_EXEC, GD_BUSY_AFTER_SHUTDOWN, GD_IDLE_AFTER_SHUTDOWN };

static int call_gate_destroy(fixture *f, const row *r) {
    switch (r->field) {
    case GD_NULL: return groupconc_gate_destroy(NULL);
    case GD_BUSY_STANDALONE: { /* nothing done: the gate keeps its permit and still works */
        groupconc_gate *g = add_gate(f, NULL, 2);
        groupconc_permit p, q;
        acquire_held(f, g, NULL, &p);
        groupconc_gate_stats before = gate_stats(g);
        int rc = groupconc_gate_destroy(g);
        if (rc != GROUPCONC_OK) {
            groupconc_gate_stats after = gate_stats(g);
            assert_gate_stats_equal(&before, &after);
            acquire_held(f, g, NULL, &q);
            assert_int_equal(groupconc_gate_try_acquire(g, NULL, &q), GROUPCONC_EGATE_FULL); /* still limit 2 */
            assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
            assert_int_equal(groupconc_permit_release(&f->permits[1], GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
            assert_int_equal(gate_stats(g).in_flight, 0);
        } else {
            untrack_gate(f, g);
        }
        return rc;
    }
    case GD_BUSY_EXEC: { /* nothing done: still linked (the executor refuses destroy), permit held */
        groupconc_gate *g = add_gate(f, f->ex, 0);
        groupconc_permit p;
        acquire_held(f, g, "gd", &p);
        int rc = groupconc_gate_destroy(g);
        if (rc != GROUPCONC_OK) {
            if (destroy_or_rescue(f, f->ex) == GROUPCONC_OK) { /* the gate is no longer linked */
                f->ex = NULL;
                untrack_gate(f, g);
                fail_msg("gate_destroy returned %s, yet executor_destroy then went ahead", groupconc_errname(rc));
            }
            groupconc_group_stats gs;
            assert_int_equal(groupconc_group_stats_get(f->ex, "gd", &gs), GROUPCONC_OK);
            assert_int_equal(gs.gate_permits, 1);
            assert_int_equal(gs.in_flight, 1);
            assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
            assert_int_equal(groupconc_group_stats_get(f->ex, "gd", &gs), GROUPCONC_OK);
            assert_int_equal(gs.in_flight, 0);
        } else {
            untrack_gate(f, g);
        }
        return rc;
    }
    case GD_BUSY_AFTER_SHUTDOWN: { /* a shutdown does not take the permits back */
        groupconc_gate *g = add_gate(f, f->ex, 0);
        groupconc_permit p;
        acquire_held(f, g, "gd", &p);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        int rc = groupconc_gate_destroy(g);
        if (rc == GROUPCONC_OK) {
            untrack_gate(f, g);
            return rc;
        }
        assert_int_equal(gate_stats(g).in_flight, 1);
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_CANCELLED, 0), GROUPCONC_OK);
        return rc;
    }
    case GD_IDLE_AFTER_SHUTDOWN: {
        groupconc_gate *g = add_gate(f, f->ex, 0);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        int rc = groupconc_gate_destroy(g);
        if (rc == GROUPCONC_OK) untrack_gate(f, g);
        return rc;
    }
    default: fail();
    }
    return 0;
}

/* ---- groupconc_gate_try_acquire ----------------------------------------------------------------- */
/* A standalone gate (limit 1) and an executor gate on the fixture's executor. After every error
   *out_permit is the empty permit, neither gate holds more, and only a refusal (full, a layer,
   shutdown) counts as rejected and fires REJECTED; a bad argument counts nothing and fires nothing. */

enum { GA_NULL_GATE, GA_NULL_OUT_S, GA_NULL_OUT_E, GA_GROUP_NULL_E, GA_GROUP_SET_S, GA_LONG_GROUP_S, GA_EMPTY,
       GA_LONG, GA_MAX, GA_AFTER_SHUTDOWN, GA_AFTER_GRACEFUL, GA_EMPTY_AFTER_SHUTDOWN, GA_NULL_OUT_AFTER_SHUTDOWN,
       GA_FULL, GA_CONCURRENCY, GA_BULKHEAD };

static int call_gate_acquire(fixture *f, const row *r) {
    groupconc_gate *sg = add_gate(f, NULL, 1);
    groupconc_gate *eg = add_gate(f, f->ex, 0);
    groupconc_gate *g = eg;
    const char *group = "ga"; /* a key never used: a refused call must not create its state */
    groupconc_permit p = {(groupconc_gate *)(uintptr_t)1, 77, 77}, *out = &p;
    switch (r->field) {
    case GA_NULL_GATE: g = NULL; break;
    case GA_NULL_OUT_S: g = sg; group = NULL; out = NULL; break;
    case GA_NULL_OUT_E: out = NULL; break;
    case GA_GROUP_NULL_E: group = NULL; break;
    case GA_GROUP_SET_S: g = sg; break;
    case GA_LONG_GROUP_S: g = sg; group = f->long_key; break;
    case GA_EMPTY: group = ""; break;
    case GA_LONG: group = f->long_key; break;
    case GA_MAX: group = f->max_key; break;
    case GA_AFTER_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    case GA_AFTER_GRACEFUL:
        latch_open(&f->gate);
        assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
        break;
    case GA_EMPTY_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        group = "";
        break;
    case GA_NULL_OUT_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        out = NULL;
        break;
    case GA_FULL: {
        groupconc_permit held;
        acquire_held(f, sg, NULL, &held);
        g = sg;
        group = NULL;
        break;
    }
    case GA_CONCURRENCY: group = "p"; break; /* "parked" runs, "queued" waits at concurrency */
    case GA_BULKHEAD: {                      /* "bulk": in-flight 1, held by a parked task */
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "bulk", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
        add_extra(f, t);
        assert_true(counter_wait(&f->gate, 2));
        group = "bulk";
        break;
    }
    default: fail();
    }
    groupconc_gate_stats s_before = gate_stats(sg), e_before = gate_stats(eg);
    groupconc_executor_stats x_before = xstats(f->ex);
    int events_before = gate_events(f);
    int rc = groupconc_gate_try_acquire(g, group, out);
    if (rc == GROUPCONC_OK) {
        assert_true(f->npermits < MAX_PERMITS);
        f->permits[f->npermits++] = p;
        assert_ptr_equal(p.gate, g);
        assert_true(p.generation & 1u);
        assert_int_equal(gate_stats(g).in_flight, 1);
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        return rc;
    }
    if (out && !permit_empty(&p))
        fail_msg("try_acquire returned %s, permit {%p, %u, %u}, want the empty permit", groupconc_errname(rc),
                 (void *)p.gate, p.slot, p.generation);
    bool refusal = rc == GROUPCONC_EGATE_FULL || rc == GROUPCONC_ESHUTDOWN || rc == GROUPCONC_EREJECTED_GLOBAL ||
                   rc == GROUPCONC_EREJECTED_BULKHEAD || rc == GROUPCONC_EREJECTED_CONCURRENCY;
    groupconc_gate_stats s_after = gate_stats(sg), e_after = gate_stats(eg);
    if (refusal) { /* counted once, by the gate asked, with one REJECTED event */
        groupconc_gate_stats *asked = g == sg ? &s_before : &e_before;
        asked->rejected++;
        if (gate_events(f) != events_before + 1 || atomic_load(&f->gate_events[GROUPCONC_GATE_REJECTED]) != 1)
            fail_msg("try_acquire refused (%s): %d gate events, want one REJECTED", groupconc_errname(rc),
                     gate_events(f) - events_before);
    } else if (gate_events(f) != events_before) {
        fail_msg("try_acquire returned %s and fired %d gate events", groupconc_errname(rc), gate_events(f) - events_before);
    }
    assert_gate_stats_equal(&s_before, &s_after);
    assert_gate_stats_equal(&e_before, &e_after);
    groupconc_executor_stats x_after = xstats(f->ex);
    assert_int_equal(x_after.gate_permits, x_before.gate_permits);
    assert_int_equal(x_after.global_in_flight, x_before.global_in_flight);
    assert_int_equal(x_after.groups, x_before.groups); /* no group state made for a refused call */
    groupconc_group_stats gs;
    if (group && strcmp(group, "ga") == 0)
        assert_int_equal(groupconc_group_stats_get(f->ex, "ga", &gs), GROUPCONC_ENOTFOUND);
    return rc;
}

/* ---- groupconc_permit_release ------------------------------------------------------------------- */
/* One permit p of a standalone gate (limit 4), or of an executor gate in group "pr". Whatever the
   row does, nothing may be counted twice: the releases that returned OK are exactly the released
   totals, the RELEASED events and what in_flight went down by; an executor gate's layers likewise. */

enum { PR_NULL, PR_KIND, PR_EMPTY_FROM_ERROR, PR_ZERO, PR_TWICE, PR_COPY, PR_STALE_REUSED, PR_FORGED_SLOT,
       PR_FORGED_GEN, PR_EXEC_TWICE, PR_EXEC_STALE_REUSED, PR_EXEC_KIND };

static int call_permit_release(fixture *f, const row *r) {
    bool exec = r->field >= PR_EXEC_TWICE;
    groupconc_gate *g = exec ? add_gate(f, f->ex, 0) : add_gate(f, NULL, 4);
    const char *group = exec ? "pr" : NULL;
    groupconc_executor_stats x0 = xstats(f->ex);
    groupconc_permit p, q, copy;
    acquire_held(f, g, group, &p);
    copy = p;
    int oks = 0; /* releases that returned OK */
    int rc = GROUPCONC_OK;
    switch (r->field) {
    case PR_NULL: rc = groupconc_permit_release(NULL, GROUPCONC_RELEASE_SUCCESS, 0); break;
    case PR_KIND:
    case PR_EXEC_KIND:
        rc = groupconc_permit_release(&p, (groupconc_release_kind)r->value, 0);
        if (rc == GROUPCONC_OK) oks++;
        else assert_int_equal(gate_stats(g).in_flight, 1); /* still held */
        break;
    case PR_EMPTY_FROM_ERROR: /* what a failed try_acquire wrote */
        assert_int_equal(groupconc_gate_try_acquire(g, "x", &q), GROUPCONC_EINVAL);
        rc = groupconc_permit_release(&q, GROUPCONC_RELEASE_SUCCESS, 0);
        break;
    case PR_ZERO:
        memset(&q, 0, sizeof q);
        rc = groupconc_permit_release(&q, GROUPCONC_RELEASE_SUCCESS, 0);
        break;
    case PR_TWICE:
    case PR_EXEC_TWICE:
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        oks++;
        rc = groupconc_permit_release(&p, GROUPCONC_RELEASE_FAILURE, 0);
        break;
    case PR_COPY:
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        oks++;
        rc = groupconc_permit_release(&copy, GROUPCONC_RELEASE_SUCCESS, 0);
        break;
    case PR_STALE_REUSED: /* the slot is held again by q: the stale copy must not free q */
    case PR_EXEC_STALE_REUSED:
        assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        oks++;
        acquire_held(f, g, group, &q);
        assert_int_equal(q.slot, p.slot);
        rc = groupconc_permit_release(&copy, GROUPCONC_RELEASE_SUCCESS, 0);
        assert_int_equal(gate_stats(g).in_flight, 1); /* q still held */
        if (exec) assert_int_equal(xstats(f->ex).gate_permits, 1);
        break;
    case PR_FORGED_SLOT: /* another slot: past the table, or inside it but free */
        copy.slot = (uint32_t)r->value;
        rc = groupconc_permit_release(&copy, GROUPCONC_RELEASE_SUCCESS, 0);
        assert_int_equal(gate_stats(g).in_flight, 1);
        break;
    case PR_FORGED_GEN: /* p's slot, another generation (even: "free"; odd: another holding) */
        copy.generation = p.generation + (uint32_t)r->value;
        rc = groupconc_permit_release(&copy, GROUPCONC_RELEASE_SUCCESS, 0);
        assert_int_equal(gate_stats(g).in_flight, 1);
        break;
    default: fail();
    }
    if (rc == GROUPCONC_OK && r->field != PR_KIND && r->field != PR_EXEC_KIND) oks++;
    groupconc_gate_stats s = gate_stats(g);
    int held = 1 + (r->field == PR_STALE_REUSED || r->field == PR_EXEC_STALE_REUSED) - oks;
    if (released_total(&s) != (uint64_t)oks || atomic_load(&f->gate_events[GROUPCONC_GATE_RELEASED]) != oks ||
        s.in_flight != (size_t)held)
        fail_msg("%d release(s) returned OK; released totals %llu, RELEASED events %d, in_flight %zu (want %d)", oks,
                 (unsigned long long)released_total(&s), atomic_load(&f->gate_events[GROUPCONC_GATE_RELEASED]),
                 s.in_flight, held);
    if (exec) { /* the group's layers went down once per OK release */
        groupconc_executor_stats x = xstats(f->ex);
        groupconc_group_stats gs;
        assert_int_equal(groupconc_group_stats_get(f->ex, "pr", &gs), GROUPCONC_OK);
        if (x.gate_permits != (size_t)held || gs.in_flight != (size_t)held ||
            x.global_in_flight != x0.global_in_flight + (size_t)held)
            fail_msg("executor gate: gate_permits %zu, group in_flight %zu, global in-flight %zu (was %zu), want %d held",
                     x.gate_permits, gs.in_flight, x.global_in_flight, x0.global_in_flight, held);
    }
    return rc;
}

/* ---- groupconc_gate_stats_get ------------------------------------------------------------------- */

enum { GS_NULL_GATE, GS_NULL_OUT_S, GS_NULL_OUT_E, GS_GROUP_ON_S, GS_EMPTY_ON_S, GS_EMPTY, GS_LONG, GS_UNKNOWN,
       GS_MAX_UNKNOWN, GS_KNOWN, GS_WHOLE, GS_STANDALONE, GS_AFTER_SHUTDOWN };

static int call_gate_stats(fixture *f, const row *r) {
    groupconc_gate *sg = add_gate(f, NULL, 3);
    groupconc_gate *eg = add_gate(f, f->ex, 0);
    groupconc_gate *g = eg;
    const char *group = NULL;
    groupconc_gate_stats s, *out = &s;
    memset(&s, 0x5a, sizeof s);
    switch (r->field) {
    case GS_NULL_GATE: g = NULL; break;
    case GS_NULL_OUT_S: g = sg; out = NULL; break;
    case GS_NULL_OUT_E: group = "p"; out = NULL; break;
    case GS_GROUP_ON_S: g = sg; group = "p"; break;
    case GS_EMPTY_ON_S: g = sg; group = ""; break; /* a group on a standalone gate: EINVAL first */
    case GS_EMPTY: group = ""; break;
    case GS_LONG: group = f->long_key; break;
    case GS_UNKNOWN: group = "never-used"; break;
    case GS_MAX_UNKNOWN: group = f->max_key; break;
    case GS_KNOWN: group = "p"; break; /* made by the fixture's tasks, not by the gate */
    case GS_WHOLE: break;
    case GS_STANDALONE: g = sg; break;
    case GS_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        group = "p";
        break;
    default: fail();
    }
    int rc = groupconc_gate_stats_get(g, group, out);
    if (rc != GROUPCONC_OK) return rc;
    switch (r->field) {
    case GS_KNOWN:
    case GS_AFTER_SHUTDOWN:
        assert_int_equal(s.limit, 1);     /* the group's concurrency */
        assert_int_equal(s.available, 0); /* "queued" waits there */
        assert_int_equal(s.in_flight, 0);
        break;
    case GS_WHOLE:
        assert_int_equal(s.limit, GROUPCONC_UNLIMITED);
        assert_int_equal(s.available, GROUPCONC_UNLIMITED);
        assert_int_equal(s.in_flight, 0);
        break;
    case GS_STANDALONE:
        assert_int_equal(s.limit, 3);
        assert_int_equal(s.available, 3);
        break;
    default: break;
    }
    assert_int_equal(s.admitted + s.rejected + released_total(&s), 0);
    return rc;
}

/* ---- groupconc_executor_destroy with gates ------------------------------------------------------ */

enum { XD_GATE, XD_GATE_PERMIT, XD_GATE_AFTER_SHUTDOWN, XD_GATE_DESTROYED, XD_STANDALONE_ALIVE, XD_OTHER_EXECUTORS_GATE };

static int call_destroy_with_gate(fixture *f, const row *r) {
    switch (r->field) {
    case XD_GATE:
    case XD_GATE_PERMIT: { /* nothing done: not shut down, the queued task still waits, submit works */
        groupconc_gate *g = add_gate(f, f->ex, 0);
        groupconc_permit p;
        if (r->field == XD_GATE_PERMIT) acquire_held(f, g, "xd", &p);
        int rc = destroy_or_rescue(f, f->ex);
        if (rc == GROUPCONC_OK) {
            f->ex = NULL; /* the gate points at freed memory now: leave it */
            untrack_gate(f, g);
            f->npermits = 0;
            fail_msg("executor_destroy with an executor gate alive returned OK");
        }
        assert_false(xstats(f->ex).shutdown);
        bool d = true;
        assert_int_equal(groupconc_task_is_done(f->queued, &d), GROUPCONC_OK);
        assert_false(d);
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "xd-task", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
        add_extra(f, t);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        groupconc_permit q;
        acquire_held(f, g, "xd2", &q); /* the gate works too */
        assert_int_equal(groupconc_permit_release(&q, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        if (r->field == XD_GATE_PERMIT)
            assert_int_equal(groupconc_permit_release(&p, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        return rc;
    }
    case XD_GATE_AFTER_SHUTDOWN: {
        groupconc_gate *g = add_gate(f, f->ex, 0);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        latch_open(&f->gate);
        int rc = groupconc_executor_destroy(f->ex);
        if (rc == GROUPCONC_OK) {
            f->ex = NULL;
            untrack_gate(f, g);
            fail_msg("executor_destroy with an executor gate alive returned OK");
        }
        groupconc_gate_stats s;
        assert_int_equal(groupconc_gate_stats_get(g, NULL, &s), GROUPCONC_OK);
        return rc;
    }
    case XD_GATE_DESTROYED:
    case XD_STANDALONE_ALIVE:
    case XD_OTHER_EXECUTORS_GATE: {
        groupconc_policy p = groupconc_policy_default();
        assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
        groupconc_gate *g = r->field == XD_GATE_DESTROYED ? add_gate(f, f->tmp_ex, 0)
                            : r->field == XD_STANDALONE_ALIVE ? add_gate(f, NULL, 1)
                                                              : add_gate(f, f->ex, 0);
        groupconc_permit q;
        if (r->field == XD_GATE_DESTROYED) {
            acquire_held(f, g, "xd", &q);
            assert_int_equal(groupconc_permit_release(&q, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
            assert_int_equal(groupconc_gate_destroy(g), GROUPCONC_OK);
            untrack_gate(f, g);
        }
        int rc = groupconc_executor_destroy(f->tmp_ex);
        if (rc == GROUPCONC_OK) f->tmp_ex = NULL;
        if (r->field != XD_GATE_DESTROYED) { /* the other gate still works */
            acquire_held(f, g, r->field == XD_STANDALONE_ALIVE ? NULL : "xd", &q);
            assert_int_equal(groupconc_permit_release(&q, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
        }
        return rc;
    }
    default: fail();
    }
    return 0;
}
#endif

/* ==== deferred completion ======================================================================== */
/* A task body in group "dfr" of the fixture's executor makes the calls of its row and records the
   codes; main waits for `arrived`, completes what must be completed, and checks the outcome. */

typedef struct defer_probe {
    int mode;
    int rc1, rc2, rc3;
    groupconc_deferred *d, *d2;
} defer_probe;

enum { D_NULL_OUT, D_TWICE, D_PENDING_RC, D_PENDING_IN_BODY, D_PLAIN, D_BLOCKING_TWICE, D_BLOCKING_PLAIN };

static int defer_body(groupconc_context *ctx, void **out_value, void *arg) {
    fixture *f = arg;
    defer_probe *x = f->probe;
    int ret = 0;
    *out_value = x;
    switch (x->mode) {
    case D_NULL_OUT: x->rc1 = groupconc_context_defer(ctx, NULL); break;
    case D_TWICE:
        x->rc1 = groupconc_context_defer(ctx, &x->d);
        x->d2 = (groupconc_deferred *)(uintptr_t)1;
        x->rc2 = groupconc_context_defer(ctx, &x->d2);
        if (x->rc1 == GROUPCONC_OK) ret = GROUPCONC_TASK_PENDING;
        break;
    case D_PENDING_RC:
        x->rc1 = groupconc_context_defer(ctx, &x->d);
        if (x->rc1 == GROUPCONC_OK) ret = GROUPCONC_TASK_PENDING;
        break;
    case D_PENDING_IN_BODY: /* completes its own deferral before it returns */
        x->rc1 = groupconc_context_defer(ctx, &x->d);
        if (x->rc1 == GROUPCONC_OK) {
            x->rc2 = groupconc_deferred_complete(x->d, GROUPCONC_TASK_PENDING, NULL);
            x->rc3 = groupconc_deferred_complete(x->d, 0, x);
            ret = GROUPCONC_TASK_PENDING;
        }
        break;
    case D_BLOCKING_TWICE: /* groupconc_context_blocking: the second call changes nothing */
        x->rc1 = groupconc_context_blocking(ctx);
        x->rc2 = groupconc_context_blocking(ctx);
        break;
    case D_BLOCKING_PLAIN: x->rc1 = groupconc_context_blocking(ctx); break; /* CALLER_RUNS: ESTATE */
    case D_PLAIN: /* a CALLER_RUNS run in submit: ESTATE; if it were deferred, returning 0 voids it */
        x->d = (groupconc_deferred *)(uintptr_t)1;
        x->rc1 = groupconc_context_defer(ctx, &x->d);
        break;
    default: break;
    }
    counter_add(&f->arrived);
    return ret;
}

enum { DF_NULL_CTX, DF_NULL_OUT, DF_TWICE, DF_CALLER_RUNS, DC_NULL, DC_NULL_PENDING, DC_PENDING, DC_PENDING_IN_BODY,
       DI_NULL, DB_NULL, DB_TWICE, DB_CALLER_RUNS };

static groupconc_task *submit_deferring(fixture *f, groupconc_executor *ex, int mode) {
    static defer_probe probe; /* rows run one at a time */
    f->probe = &probe;
    memset(f->probe, 0, sizeof *f->probe);
    f->probe->mode = mode;
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, "dfr", "deferring", defer_body, f, &t), GROUPCONC_OK);
    add_extra(f, t);
    return t;
}

static groupconc_result wait_done(groupconc_task *t) {
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
    return res;
}

static int call_deferred(fixture *f, const row *r) {
    switch (r->field) {
    case DF_NULL_CTX: {
        groupconc_deferred *d = (groupconc_deferred *)(uintptr_t)1;
        int rc = groupconc_context_defer(NULL, &d);
        if (rc != GROUPCONC_OK) assert_null(d);
        return rc;
    }
    case DF_NULL_OUT: { /* refused, nothing deferred: the body's return is the task's result */
        groupconc_task *t = submit_deferring(f, f->ex, D_NULL_OUT);
        groupconc_result res = wait_done(t);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(res.value, f->probe);
        return f->probe->rc1;
    }
    case DF_TWICE: { /* the second call is refused; the first deferral stands */
        groupconc_task *t = submit_deferring(f, f->ex, D_TWICE);
        assert_true(counter_wait(&f->arrived, 1));
        defer_probe *x = f->probe;
        assert_int_equal(x->rc1, GROUPCONC_OK);
        assert_non_null(x->d);
        f->pending = x->d;
        if (x->rc2 != GROUPCONC_OK) assert_null(x->d2);
        bool d = true;
        assert_int_equal(groupconc_task_is_done(t, &d), GROUPCONC_OK);
        assert_false(d);
        f->pending = NULL;
        assert_int_equal(groupconc_deferred_complete(x->d, 0, f), GROUPCONC_OK);
        groupconc_result res = wait_done(t);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(res.value, f);
        return x->rc2;
    }
    case DB_NULL: return groupconc_context_blocking(NULL);
    case DB_TWICE: { /* both calls succeed, the task runs to its end */
        groupconc_task *t = submit_deferring(f, f->ex, D_BLOCKING_TWICE);
        groupconc_result res = wait_done(t);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(f->probe->rc1, GROUPCONC_OK);
        return f->probe->rc2;
    }
    case DB_CALLER_RUNS: /* as DF_CALLER_RUNS, the body calling groupconc_context_blocking */
    case DF_CALLER_RUNS: { /* refused at the global cap under CALLER_RUNS: runs in submit, on this thread */
        groupconc_policy p = groupconc_policy_default();
        p.global_max_in_flight = 1;
        p.global_queue_threshold = 0;
        p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
        assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
        groupconc_task *b = NULL;
        assert_int_equal(groupconc_submit(f->tmp_ex, "x", NULL, task_park, &f->gate, &b), GROUPCONC_OK);
        add_extra(f, b);
        assert_true(counter_wait(&f->gate, 2)); /* it holds the only global permit */
        groupconc_task *t =
            submit_deferring(f, f->tmp_ex, r->field == DB_CALLER_RUNS ? D_BLOCKING_PLAIN : D_PLAIN);
        assert_int_equal(counter_get(&f->arrived), 1); /* ran inside submit */
        int rc = f->probe->rc1;
        if (rc != GROUPCONC_OK && r->field == DF_CALLER_RUNS) assert_null(f->probe->d);
        groupconc_result res = wait_done(t);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        latch_open(&f->gate);
        return rc;
    }
    case DC_NULL: return groupconc_deferred_complete(NULL, 0, NULL);
    case DC_NULL_PENDING: return groupconc_deferred_complete(NULL, GROUPCONC_TASK_PENDING, NULL);
    case DC_PENDING: { /* refused, and the handle is still good: the task still runs, then completes */
        groupconc_task *t = submit_deferring(f, f->ex, D_PENDING_RC);
        assert_true(counter_wait(&f->arrived, 1));
        defer_probe *x = f->probe;
        assert_int_equal(x->rc1, GROUPCONC_OK);
        f->pending = x->d;
        int rc = groupconc_deferred_complete(x->d, GROUPCONC_TASK_PENDING, NULL);
        if (rc == GROUPCONC_OK) {
            f->pending = NULL;
            return rc;
        }
        bool d = true;
        assert_int_equal(groupconc_task_is_done(t, &d), GROUPCONC_OK);
        assert_false(d);
        assert_false(groupconc_deferred_is_cancelled(x->d));
        groupconc_group_stats gs;
        assert_int_equal(groupconc_group_stats_get(f->ex, "dfr", &gs), GROUPCONC_OK);
        assert_int_equal(gs.completed, 0);
        f->pending = NULL;
        assert_int_equal(groupconc_deferred_complete(x->d, 7, NULL), GROUPCONC_OK);
        groupconc_result res = wait_done(t);
        assert_int_equal(res.status, GROUPCONC_STATUS_FAILED);
        assert_int_equal(res.error, 7);
        assert_int_equal(groupconc_group_stats_get(f->ex, "dfr", &gs), GROUPCONC_OK);
        assert_int_equal(gs.completed, 1);
        assert_int_equal(gs.running, 0);
        return rc;
    }
    case DC_PENDING_IN_BODY: { /* the same, before the body returned */
        groupconc_task *t = submit_deferring(f, f->ex, D_PENDING_IN_BODY);
        groupconc_result res = wait_done(t);
        defer_probe *x = f->probe;
        assert_int_equal(x->rc1, GROUPCONC_OK);
        assert_int_equal(x->rc3, GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_ptr_equal(res.value, x);
        return x->rc2;
    }
    case DI_NULL:
        if (groupconc_deferred_is_cancelled(NULL)) fail_msg("deferred_is_cancelled(NULL) is true");
        return GROUPCONC_OK;
    default: fail();
    }
    return 0;
}

#ifndef GROUPCONC_NO_SCOPES
/* ==== structured scopes and the dump ============================================================= */
/* Scopes a row opens are tracked in the fixture; the teardown joins and closes them (newest first)
   before it destroys the executors, which must then succeed (a scope left open makes destroy
   EBUSY). Forks run fork_run or fork_fail (each counts f->runs) with fork_cleanup (counts
   f->cleanups), so every row ends with the same audit: after a join, every fork has a result, the
   forks that ran are exactly the SUCCESS and FAILED results and the cleanups are exactly the
   accepted forks (all but the REJECTED ones, which the ABORT fixture refused in submit). A fork
   body that must stay running parks on f->go (opened by the teardown too); tasks that hold "solo"
   / "bulk" park on f->gate. */

static int fork_run(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add(&((fixture *)arg)->runs, 1);
    return 0;
}

static int fork_fail(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    atomic_fetch_add(&((fixture *)arg)->runs, 1);
    return 7;
}

/* Counts its arrival, parks on f->go (ignoring a cancellation flag), then counts its run. */
static int fork_park(groupconc_context *ctx, void **out_value, void *arg) {
    fixture *f = arg;
    (void)ctx;
    (void)out_value;
    counter_add(&f->arrived);
    latch_wait_open(&f->go);
    atomic_fetch_add(&f->runs, 1);
    return 0;
}

static void fork_cleanup(void *arg) { atomic_fetch_add(&((fixture *)arg)->cleanups, 1); }

static void scope_cb(groupconc_scope *s, size_t index, const groupconc_result *r, void *user_data) {
    (void)s, (void)index, (void)r;
    atomic_fetch_add(&((fixture *)user_data)->scope_cb_calls, 1);
}

static groupconc_task_spec scope_spec(fixture *f, const char *group, groupconc_task_fn fn) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = group;
    spec.task_id = "fk";
    spec.fn = fn ? fn : fork_run;
    spec.arg = f;
    spec.cleanup = fork_cleanup;
    return spec;
}

static groupconc_scope *track_scope(fixture *f, groupconc_scope *s) {
    assert_true(f->nscopes < MAX_SCOPES);
    f->scopes[f->nscopes++] = s;
    return s;
}

static void untrack_scope(fixture *f, groupconc_scope *s) {
    for (int i = 0; i < f->nscopes; i++)
        if (f->scopes[i] == s) f->scopes[i] = NULL;
}

static groupconc_scope *open_scope(fixture *f, groupconc_executor *ex, groupconc_scope_policy policy) {
    groupconc_scope_config c;
    memset(&c, 0, sizeof c);
    c.policy = policy;
    if (policy == GROUPCONC_SCOPE_CUSTOM) c.on_fork_complete = scope_cb;
    c.user_data = f;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(ex, &c, &s), GROUPCONC_OK);
    assert_non_null(s);
    return track_scope(f, s);
}

static void close_scope(fixture *f, groupconc_scope *s, int want) {
    int rc = groupconc_scope_close(s);
    if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) untrack_scope(f, s); /* freed */
    if (rc != want) fail_msg("scope_close returned %s, want %s", groupconc_errname(rc), groupconc_errname(want));
}

static size_t fork_ok(fixture *f, groupconc_scope *s, const char *group, groupconc_task_fn fn) {
    groupconc_task_spec spec = scope_spec(f, group, fn);
    size_t idx = SIZE_MAX;
    size_t before = groupconc_scope_fork_count(s);
    int rc = groupconc_scope_fork(s, &spec, &idx);
    if (rc != GROUPCONC_OK) fail_msg("scope_fork(\"%s\") returned %s", group, groupconc_errname(rc));
    assert_int_equal(idx, before);
    return idx;
}

/* A fork body that must be running: fork it and wait for its arrival. */
static void fork_parked(fixture *f, groupconc_scope *s, const char *group) {
    int arrived = counter_get(&f->arrived);
    fork_ok(f, s, group, fork_park);
    assert_true(counter_wait(&f->arrived, arrived + 1));
}

/* Join (want: its code), then the audit described above; returns the number of forks. */
static size_t join_audit(fixture *f, groupconc_scope *s, int want) {
    int rc = groupconc_scope_join(s);
    if (rc != want) fail_msg("scope_join returned %s, want %s", groupconc_errname(rc), groupconc_errname(want));
    size_t n = groupconc_scope_fork_count(s);
    int ran = 0, accepted = 0;
    for (size_t i = 0; i < n; i++) {
        groupconc_result r;
        rc = groupconc_scope_result(s, i, &r);
        if (rc != GROUPCONC_OK) fail_msg("after join, scope_result(%zu) returned %s", i, groupconc_errname(rc));
        if (r.status == GROUPCONC_STATUS_PENDING) fail_msg("after join, fork %zu is PENDING", i);
        ran += r.status == GROUPCONC_STATUS_SUCCESS || r.status == GROUPCONC_STATUS_FAILED;
        accepted += r.status != GROUPCONC_STATUS_REJECTED;
    }
    if (atomic_load(&f->runs) != ran || atomic_load(&f->cleanups) != accepted)
        fail_msg("%zu forks: %d SUCCESS or FAILED, %d accepted; yet %d runs and %d cleanups", n, ran, accepted,
                 atomic_load(&f->runs), atomic_load(&f->cleanups));
    return n;
}

#endif /* !GROUPCONC_NO_SCOPES */

#ifndef GROUPCONC_NO_DUMP
/* The whole dump, in a buffer of its own (free it). */
static char *dump_alloc(groupconc_executor *ex) {
    size_t need = 0;
    assert_int_equal(groupconc_executor_dump(ex, NULL, 0, &need), GROUPCONC_ERANGE);
    for (;;) { /* the state may grow between two calls (an age gaining a digit) */
        char *buf = malloc(need + 256);
        assert_non_null(buf);
        size_t got = 0;
        int rc = groupconc_executor_dump(ex, buf, need + 256, &got);
        if (rc == GROUPCONC_OK) {
            assert_int_equal(strlen(buf) + 1, got);
            return buf;
        }
        assert_int_equal(rc, GROUPCONC_ERANGE);
        free(buf);
        need = got;
    }
}

#ifndef GROUPCONC_NO_SCOPES
/* The number of open scopes in the executor's dump (each scope is one {"id": in "scopes"). */
static int dump_scope_count(groupconc_executor *ex) {
    char *d = dump_alloc(ex);
    const char *p = strstr(d, "\"scopes\":[");
    int n = 0;
    assert_non_null(p);
    while ((p = strstr(p + 1, "{\"id\":")) != NULL) n++;
    free(d);
    return n;
}

static bool dump_has(groupconc_executor *ex, const char *what) {
    char *d = dump_alloc(ex);
    bool has = strstr(d, what) != NULL;
    free(d);
    return has;
}
#endif
#endif /* !GROUPCONC_NO_DUMP */

#ifndef GROUPCONC_NO_SCOPES
/* ---- calls on another thread, and from inside a fork ------------------------------------------- */

enum { SOP_FORK, SOP_FORK_EMPTY, SOP_JOIN, SOP_JOIN_FOR0, SOP_CLOSE, SOP_SHUTDOWN };

static int scope_op(fixture *f, groupconc_scope *s, int op) {
    groupconc_task_spec spec = scope_spec(f, "sf", NULL);
    switch (op) {
    case SOP_FORK: return groupconc_scope_fork(s, &spec, NULL);
    case SOP_FORK_EMPTY: spec.group = ""; return groupconc_scope_fork(s, &spec, NULL);
    case SOP_JOIN: return groupconc_scope_join(s);
    case SOP_JOIN_FOR0: return groupconc_scope_join_for(s, 0);
    case SOP_CLOSE: return groupconc_scope_close(s);
    case SOP_SHUTDOWN: return groupconc_scope_shutdown(s);
    default: return INT_MIN;
    }
}

typedef struct foreign_call {
    fixture *f;
    groupconc_scope *s;
    int op, rc;
    counter done;
} foreign_call;

static void *foreign_main(void *arg) {
    foreign_call *c = arg;
    c->rc = scope_op(c->f, c->s, c->op);
    latch_open(&c->done);
    return NULL;
}

/* The call on a thread that is neither the owner nor inside a fork. A call that should return at
   once but waits for a parked fork is freed after 2 s (the latches opened): the row then fails on
   the code instead of hanging. */
static int foreign(fixture *f, groupconc_scope *s, int op) {
    foreign_call c;
    pthread_t th;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.s = s;
    c.op = op;
    c.rc = INT_MIN;
    counter_init(&c.done);
    assert_int_equal(pthread_create(&th, NULL, foreign_main, &c), 0);
    struct timespec dl = deadline_after(INT64_C(2000000000));
    pthread_mutex_lock(&c.done.mu);
    int rc = 0;
    while (!c.done.open && rc == 0) rc = pthread_cond_timedwait(&c.done.cv, &c.done.mu, &dl);
    bool late = !c.done.open;
    pthread_mutex_unlock(&c.done.mu);
    if (late) {
        fprintf(stderr, "test_errors: a scope call from a foreign thread blocked (op %d)\n", op);
        latch_open(&f->go);
        latch_open(&f->gate);
    }
    pthread_join(th, NULL);
    counter_destroy(&c.done);
    return c.rc;
}

/* scope_close on the owner thread where it must refuse at once (EORDER): were it to go ahead it
   would wait for a fork parked on f->go, so a helper opens the latches if the call has not returned
   within 2 s (the row then fails on the code instead of hanging). */
typedef struct unblocker {
    counter returned;
    fixture *f;
} unblocker;

static void *unblocker_main(void *arg) {
    unblocker *u = arg;
    struct timespec dl = deadline_after(INT64_C(2000000000));
    pthread_mutex_lock(&u->returned.mu);
    int rc = 0;
    while (!u->returned.open && rc == 0) rc = pthread_cond_timedwait(&u->returned.cv, &u->returned.mu, &dl);
    bool late = !u->returned.open;
    pthread_mutex_unlock(&u->returned.mu);
    if (late) {
        fprintf(stderr, "test_errors: row \"%s\": scope_close waited instead of refusing\n", u->f->row->name);
        latch_open(&u->f->go);
        latch_open(&u->f->gate);
    }
    return NULL;
}

static int close_or_unblock(fixture *f, groupconc_scope *s) {
    unblocker u;
    pthread_t th;
    counter_init(&u.returned);
    u.f = f;
    assert_int_equal(pthread_create(&th, NULL, unblocker_main, &u), 0);
    int rc = groupconc_scope_close(s);
    latch_open(&u.returned);
    pthread_join(th, NULL);
    counter_destroy(&u.returned);
    return rc;
}

/* What a fork body does (f->sprobe): B_OP: op on its own scope; B_OPEN_LATE: open a scope once
   f->go opens (its scope shut down by then); B_CHILD: open a child scope, wait for f->go, then
   (fork_late) fork into the child, join and close it. Each counts its arrival on f->arrived (once
   before it waits, once when done) and its run on f->runs. */
enum { B_OP, B_OPEN_LATE, B_CHILD };

static int scope_body(groupconc_context *ctx, void **out_value, void *arg) {
    fixture *f = arg;
    scope_probe *p = &f->sprobe;
    groupconc_executor *ex = f->ex;
    (void)ctx;
    (void)out_value;
    switch (p->mode) {
    case B_OP:
        p->rc1 = scope_op(f, p->s, p->op);
        break;
    case B_OPEN_LATE:
        counter_add(&f->arrived);
        latch_wait_open(&f->go);
        p->child = (groupconc_scope *)(uintptr_t)1;
        p->rc1 = groupconc_scope_open(ex, NULL, &p->child);
        if (p->rc1 == GROUPCONC_OK) {
            p->rc2 = groupconc_scope_join(p->child);
            p->rc3 = groupconc_scope_close(p->child);
        }
        break;
    case B_CHILD:
        p->rc1 = groupconc_scope_open(ex, NULL, &p->child);
        counter_add(&f->arrived);
        latch_wait_open(&f->go);
        if (p->rc1 != GROUPCONC_OK) break;
        if (p->fork_late) {
            groupconc_task_spec spec = scope_spec(f, "sc", NULL);
            p->rc4 = groupconc_scope_fork(p->child, &spec, NULL);
        }
        p->rc2 = groupconc_scope_join(p->child);
        p->rc3 = groupconc_scope_close(p->child);
        break;
    default: break;
    }
    counter_add(&f->arrived);
    atomic_fetch_add(&f->runs, 1);
    return 0;
}

/* Fork scope_body into s in mode `mode` and wait until it made its first calls (arrived once);
   a body that blocks in a call it should have refused would hang the teardown: abort instead. */
static void fork_probe(fixture *f, groupconc_scope *s, int mode, int op) {
    memset(&f->sprobe, 0, sizeof f->sprobe);
    f->sprobe.mode = mode;
    f->sprobe.op = op;
    f->sprobe.s = s;
    int arrived = counter_get(&f->arrived);
    fork_ok(f, s, "sb", scope_body);
    if (!counter_wait(&f->arrived, arrived + 1)) {
        fprintf(stderr, "test_errors: row \"%s\": the fork body blocked in a scope call (op %d)\n", f->row->name, op);
        abort();
    }
}

/* ---- groupconc_scope_open ----------------------------------------------------------------------- */
/* After an error *out_scope is NULL and no scope is open (the dump lists none); a scope made works:
   a fork runs, join and close return OK. */

enum { SO_NULL_EX, SO_NULL_OUT, SO_ALL_NULL, SO_POLICY, SO_POLICY_NULL_OUT, SO_CUSTOM_NO_CB, SO_CUSTOM_NO_CB_NULL_EX,
       SO_CUSTOM, SO_CONFIG_NULL, SO_NAME_COPIED, SO_SHUTDOWN, SO_GRACEFUL, SO_SHUTDOWN_BAD_POLICY, SO_IN_SHUT_FORK };

static int call_scope_open(fixture *f, const row *r) {
    groupconc_scope_config c;
    memset(&c, 0, sizeof c);
    c.user_data = f;
    const groupconc_scope_config *cfg = &c;
    groupconc_executor *ex = f->ex;
    groupconc_scope *s = (groupconc_scope *)(uintptr_t)1, **out = &s;
    char *heap_name = NULL;
    switch (r->field) {
    case SO_NULL_EX: ex = NULL; break;
    case SO_NULL_OUT: out = NULL; break;
    case SO_ALL_NULL: ex = NULL; cfg = NULL; out = NULL; break;
    case SO_POLICY: c.policy = (groupconc_scope_policy)r->value; break;
    case SO_POLICY_NULL_OUT: c.policy = (groupconc_scope_policy)r->value; out = NULL; break;
    case SO_CUSTOM_NO_CB: c.policy = GROUPCONC_SCOPE_CUSTOM; break;
    case SO_CUSTOM_NO_CB_NULL_EX: c.policy = GROUPCONC_SCOPE_CUSTOM; ex = NULL; break;
    case SO_CUSTOM: c.policy = GROUPCONC_SCOPE_CUSTOM; c.on_fork_complete = scope_cb; break;
    case SO_CONFIG_NULL: cfg = NULL; break;
    case SO_NAME_COPIED: /* freed right after the call: the dump still shows it */
        heap_name = malloc(16);
        assert_non_null(heap_name);
        strcpy(heap_name, "scope-\"n\"");
        c.name = heap_name;
        c.policy = GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS;
        break;
    case SO_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    case SO_GRACEFUL:
        latch_open(&f->gate);
        assert_int_equal(groupconc_executor_shutdown_graceful(f->ex, BOUND_NS), GROUPCONC_OK);
        break;
    case SO_SHUTDOWN_BAD_POLICY: /* the argument is checked first */
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        c.policy = (groupconc_scope_policy)4;
        break;
    case SO_IN_SHUT_FORK: { /* a fork's body opens a scope after its own scope was shut down */
        groupconc_scope *p = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
        fork_probe(f, p, B_OPEN_LATE, 0);
        assert_int_equal(groupconc_scope_shutdown(p), GROUPCONC_OK);
        latch_open(&f->go);
        assert_true(counter_wait(&f->arrived, 2));
        int rc = f->sprobe.rc1;
        if (rc != GROUPCONC_OK && f->sprobe.child)
            fail_msg("scope_open in a fork returned %s, yet *out_scope %p", groupconc_errname(rc), (void *)f->sprobe.child);
        if (rc == GROUPCONC_OK) assert_int_equal(f->sprobe.rc3, GROUPCONC_OK);
        join_audit(f, p, GROUPCONC_OK);
        close_scope(f, p, GROUPCONC_OK); /* not EORDER: the refused child was not counted */
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 0);
#endif
        return rc;
    }
    default: fail();
    }
    int rc = groupconc_scope_open(ex, cfg, out);
    if (heap_name) {
        memset(heap_name, 'x', 15);
        free(heap_name);
    }
    if (rc != GROUPCONC_OK) {
        if (out && s) fail_msg("scope_open returned %s, yet *out_scope %p", groupconc_errname(rc), (void *)s);
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 0);
#endif
        return rc;
    }
    assert_non_null(s);
    track_scope(f, s);
#ifndef GROUPCONC_NO_DUMP
    assert_int_equal(dump_scope_count(f->ex), 1);
    if (r->field == SO_NAME_COPIED) {
        assert_true(dump_has(f->ex, "\"name\":\"scope-\\\"n\\\"\""));
        assert_true(dump_has(f->ex, "\"policy\":\"SHUTDOWN_ON_SUCCESS\""));
    }
    if (r->field == SO_CONFIG_NULL) assert_true(dump_has(f->ex, "\"name\":null,\"parent\":null,\"policy\":\"COLLECT_ALL\""));
#endif
    fork_ok(f, s, "so", NULL);
    join_audit(f, s, GROUPCONC_OK);
    assert_int_equal(atomic_load(&f->runs), 1);
    if (r->field == SO_CUSTOM) assert_int_equal(atomic_load(&f->scope_cb_calls), 1);
    close_scope(f, s, GROUPCONC_OK);
#ifndef GROUPCONC_NO_DUMP
    assert_int_equal(dump_scope_count(f->ex), 0);
#endif
    return rc;
}

/* ---- groupconc_scope_fork ----------------------------------------------------------------------- */
/* A refused fork (a bad argument, a foreign thread, a scope shut down or joined) is not counted,
   fires no SUBMITTED event, never runs and its cleanup is never called; a fork refused in submit
   (ABORT, executor shut down) is counted: its index is written and its result is REJECTED with the
   code as reason (a failure under SHUTDOWN_ON_FAILURE). */

enum { SF_NULL_SCOPE, SF_NULL_SPEC, SF_NULL_GROUP, SF_NULL_FN, SF_EMPTY, SF_LONG, SF_MAX, SF_NULL_INDEX, SF_FOREIGN,
       SF_FOREIGN_EMPTY, SF_AFTER_SHUTDOWN, SF_AFTER_JOIN, SF_AFTER_EXPIRED_JOIN, SF_AFTER_PARENT_SHUTDOWN,
       SF_REJECTED_CONC, SF_REJECTED_BULK, SF_EXEC_SHUTDOWN, SF_FROM_OWN_FORK };

static int call_scope_fork(fixture *f, const row *r) {
    bool on_failure = r->field == SF_REJECTED_CONC;
    groupconc_scope *s = open_scope(f, f->ex, on_failure ? GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE : GROUPCONC_SCOPE_COLLECT_ALL);
    groupconc_scope *target = s;
    groupconc_task_spec spec = scope_spec(f, "sf", NULL), *sp = &spec;
    size_t idx = 12345, *pidx = &idx;
    int join_want = GROUPCONC_OK;
    int rc = INT_MIN;
    switch (r->field) {
    case SF_NULL_SCOPE: target = NULL; break;
    case SF_NULL_SPEC: sp = NULL; break;
    case SF_NULL_GROUP: spec.group = NULL; break;
    case SF_NULL_FN: spec.fn = NULL; break;
    case SF_EMPTY: spec.group = ""; break;
    case SF_LONG: spec.group = f->long_key; break;
    case SF_MAX: spec.group = f->max_key; break;
    case SF_NULL_INDEX: pidx = NULL; break;
    case SF_FOREIGN:
    case SF_FOREIGN_EMPTY: fork_parked(f, s, "sp"); break; /* a fork of s runs meanwhile */
    case SF_AFTER_SHUTDOWN: assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK); break;
    case SF_AFTER_JOIN: assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK); break;
    case SF_AFTER_EXPIRED_JOIN:
        fork_parked(f, s, "sp");
        assert_int_equal(groupconc_scope_join_for(s, 0), GROUPCONC_ETIMEDOUT);
        break;
    case SF_AFTER_PARENT_SHUTDOWN: /* into a child scope (opened in a fork) after its parent's shutdown */
        memset(&f->sprobe, 0, sizeof f->sprobe);
        f->sprobe.mode = B_CHILD;
        f->sprobe.fork_late = true;
        f->sprobe.s = s;
        fork_ok(f, s, "sb", scope_body);
        assert_true(counter_wait(&f->arrived, 1));
        assert_int_equal(f->sprobe.rc1, GROUPCONC_OK);
        assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK);
        latch_open(&f->go);
        assert_true(counter_wait(&f->arrived, 2));
        assert_int_equal(f->sprobe.rc2, GROUPCONC_OK); /* the child's join, */
        assert_int_equal(f->sprobe.rc3, GROUPCONC_OK); /* its close: it had no fork */
        rc = f->sprobe.rc4;
        break;
    case SF_REJECTED_CONC:
    case SF_REJECTED_BULK: { /* "solo": concurrency 1, threshold 0; "bulk": in-flight 1, threshold 0 */
        const char *g = r->field == SF_REJECTED_CONC ? "solo" : "bulk";
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, g, NULL, task_park, &f->gate, &t), GROUPCONC_OK);
        add_extra(f, t);
        assert_true(counter_wait(&f->gate, 2));
        atomic_store(&f->submitted, 0);
        spec.group = g;
        if (on_failure) join_want = GROUPCONC_EFAILED;
        break;
    }
    case SF_EXEC_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    case SF_FROM_OWN_FORK: break;
    default: fail();
    }
    size_t before = groupconc_scope_fork_count(s);
    int submitted = atomic_load(&f->submitted);
    if (r->field == SF_FOREIGN) rc = foreign(f, s, SOP_FORK);
    else if (r->field == SF_FOREIGN_EMPTY) rc = foreign(f, s, SOP_FORK_EMPTY);
    else if (r->field == SF_FROM_OWN_FORK) {
        fork_probe(f, s, B_OP, SOP_FORK);
        before = 1; /* the probe itself */
        rc = f->sprobe.rc1;
        pidx = NULL;
    } else if (r->field != SF_AFTER_PARENT_SHUTDOWN) rc = groupconc_scope_fork(target, sp, pidx);
    bool counted = rc == GROUPCONC_OK || rc == GROUPCONC_EREJECTED_CONCURRENCY || rc == GROUPCONC_EREJECTED_BULKHEAD ||
                   rc == GROUPCONC_EREJECTED_GLOBAL || rc == GROUPCONC_ESHUTDOWN;
    size_t after = groupconc_scope_fork_count(s);
    if (r->field == SF_AFTER_PARENT_SHUTDOWN) {
        /* the child is closed: nothing to count there; s has the probe only */
    } else if (after != before + (counted ? 1 : 0)) {
        fail_msg("scope_fork returned %s: fork_count %zu -> %zu", groupconc_errname(rc), before, after);
    }
    if (counted && pidx && idx != before) fail_msg("scope_fork returned %s: index %zu, want %zu", groupconc_errname(rc), idx, before);
    if (!counted && atomic_load(&f->submitted) != submitted)
        fail_msg("scope_fork returned %s, yet %d SUBMITTED event(s)", groupconc_errname(rc), atomic_load(&f->submitted) - submitted);
    if (counted && rc != GROUPCONC_OK) { /* refused in submit: a REJECTED fork, done at once */
        groupconc_result res;
        assert_int_equal(groupconc_scope_result(s, before, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res.reason, rc);
        assert_string_equal(res.group, spec.group);
        assert_int_equal(atomic_load(&f->cleanups), 0); /* not accepted: the arg is still the caller's */
        size_t first = 99;
        if (on_failure) { /* a failure: it decided the scope and shut it down */
            assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_OK);
            assert_int_equal(first, before);
            groupconc_task_spec later = scope_spec(f, "sf", NULL);
            assert_int_equal(groupconc_scope_fork(s, &later, NULL), GROUPCONC_ESCOPE_SHUTDOWN);
        } else {
            assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_ENOTFOUND);
        }
    }
    latch_open(&f->go);
    size_t n = join_audit(f, s, join_want);
    if (rc == GROUPCONC_ESCOPE_SHUTDOWN || rc == GROUPCONC_ENOTOWNER || rc == GROUPCONC_EINVAL ||
        rc == GROUPCONC_EKEYEMPTY || rc == GROUPCONC_EKEYTOOLONG) {
        /* the refused task never ran: only the forks made before it (parked ones, the probe) did */
        assert_int_equal(atomic_load(&f->runs), (int)n);
    }
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

/* ---- groupconc_scope_join / join_for ------------------------------------------------------------ */
/* A refused join (foreign thread, own fork) does nothing: the scope is neither joined nor shut down
   (a later fork is taken). join_for that expires shuts the scope down. */

enum { SJ_NULL, SJ_FOR_NULL, SJ_FOR_NULL_NEG, SJ_FOREIGN, SJ_FOR_FOREIGN, SJ_IN_FORK, SJ_FOR_IN_FORK, SJ_FOR_EXPIRES,
       SJ_FOR_NEG, SJ_TWICE, SJ_EMPTY, SJ_EMPTY_ON_SUCCESS, SJ_FAILED, SJ_FOR_ZERO_ALL_DONE };

static int call_scope_join(fixture *f, const row *r) {
    switch (r->field) {
    case SJ_NULL: return groupconc_scope_join(NULL);
    case SJ_FOR_NULL: return groupconc_scope_join_for(NULL, 0);
    case SJ_FOR_NULL_NEG: return groupconc_scope_join_for(NULL, GROUPCONC_FOREVER);
    default: break;
    }
    groupconc_scope_policy pol = r->field == SJ_EMPTY_ON_SUCCESS ? GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS
                                 : r->field == SJ_FAILED         ? GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE
                                                                 : GROUPCONC_SCOPE_COLLECT_ALL;
    groupconc_scope *s = open_scope(f, f->ex, pol);
    int rc = INT_MIN;
    switch (r->field) {
    case SJ_FOREIGN:
    case SJ_FOR_FOREIGN:
    case SJ_IN_FORK:
    case SJ_FOR_IN_FORK: {
        fork_parked(f, s, "sp");
        bool in_fork = r->field == SJ_IN_FORK || r->field == SJ_FOR_IN_FORK;
        int op = r->field == SJ_FOREIGN || r->field == SJ_IN_FORK ? SOP_JOIN : SOP_JOIN_FOR0;
        if (in_fork) {
            fork_probe(f, s, B_OP, op);
            rc = f->sprobe.rc1;
        } else {
            rc = foreign(f, s, op);
        }
        fork_ok(f, s, "sf", NULL); /* nothing done: neither joined nor shut down */
        latch_open(&f->go);
        join_audit(f, s, GROUPCONC_OK);
        break;
    }
    case SJ_FOR_EXPIRES: {
        fork_parked(f, s, "sp");
        rc = groupconc_scope_join_for(s, 1000000);
        groupconc_task_spec later = scope_spec(f, "sf", NULL);
        if (rc == GROUPCONC_ETIMEDOUT) /* shut down: no more forks */
            assert_int_equal(groupconc_scope_fork(s, &later, NULL), GROUPCONC_ESCOPE_SHUTDOWN);
        latch_open(&f->go);
        join_audit(f, s, GROUPCONC_OK);
        break;
    }
    case SJ_FOR_NEG: { /* any negative timeout waits: the parked fork is released 50 ms later */
        fork_parked(f, s, "sp");
        pthread_t opener;
        watchdog w;
        watchdog_start(&w, "scope_join_for with a negative timeout");
        assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &f->go), 0);
        rc = groupconc_scope_join_for(s, -2);
        watchdog_stop(&w);
        pthread_join(opener, NULL);
        if (rc == GROUPCONC_OK) assert_int_equal(atomic_load(&f->runs), 1);
        join_audit(f, s, GROUPCONC_OK);
        break;
    }
    case SJ_TWICE:
        fork_ok(f, s, "sf", NULL);
        join_audit(f, s, GROUPCONC_OK);
        rc = groupconc_scope_join(s);
        break;
    case SJ_EMPTY:
    case SJ_EMPTY_ON_SUCCESS: rc = groupconc_scope_join(s); break; /* on success: none succeeded */
    case SJ_FAILED: {
        fork_ok(f, s, "sf", fork_fail);
        rc = groupconc_scope_join(s);
        size_t first = 99;
        assert_int_equal(groupconc_scope_first(s, &first), GROUPCONC_OK);
        assert_int_equal(first, 0);
        break;
    }
    case SJ_FOR_ZERO_ALL_DONE: { /* nothing left to wait for: a poll joins */
        fork_ok(f, s, "sf", NULL);
        groupconc_result res;
        for (int i = 0; i < 10000 && groupconc_scope_result(s, 0, &res) == GROUPCONC_ETIMEDOUT; i++) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        rc = groupconc_scope_join_for(s, 0);
        groupconc_task_spec later = scope_spec(f, "sf", NULL);
        if (rc == GROUPCONC_OK) assert_int_equal(groupconc_scope_fork(s, &later, NULL), GROUPCONC_ESCOPE_SHUTDOWN);
        break;
    }
    default: fail();
    }
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

/* ---- groupconc_scope_shutdown ------------------------------------------------------------------- */

enum { SS_NULL, SS_TWICE, SS_FOREIGN, SS_AFTER_JOIN };

static int call_scope_shutdown(fixture *f, const row *r) {
    if (r->field == SS_NULL) return groupconc_scope_shutdown(NULL);
    groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
    int rc = INT_MIN;
    switch (r->field) {
    case SS_TWICE:
    case SS_FOREIGN: { /* a running fork (flagged, it finishes) and one queued behind it (dequeued once) */
        fork_parked(f, s, "sq");
        fork_ok(f, s, "sq", NULL);
        if (r->field == SS_TWICE) {
            assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK);
            rc = groupconc_scope_shutdown(s);
        } else {
            rc = foreign(f, s, SOP_SHUTDOWN);
        }
        groupconc_result res;
        if (rc == GROUPCONC_OK) {
            assert_int_equal(groupconc_scope_result(s, 1, &res), GROUPCONC_OK); /* dequeued at once */
            assert_int_equal(res.status, GROUPCONC_STATUS_CANCELLED);
            assert_int_equal(atomic_load(&f->cleanups), 1);
            assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK);
            assert_int_equal(atomic_load(&f->cleanups), 1);
        }
        latch_open(&f->go);
        join_audit(f, s, GROUPCONC_OK);
        assert_int_equal(atomic_load(&f->runs), 1);
        break;
    }
    case SS_AFTER_JOIN:
        fork_ok(f, s, "sf", NULL);
        join_audit(f, s, GROUPCONC_OK);
        rc = groupconc_scope_shutdown(s);
        break;
    default: fail();
    }
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

/* ---- groupconc_scope_close ---------------------------------------------------------------------- */
/* A refused close (foreign thread, a later scope open, own fork) does nothing: the scope is
   still open and listed, not joined (a fork is taken), and closes later with OK. A close without a
   join shuts the scope down first (a fork not started yet is cancelled: its cleanup still runs),
   then waits for every fork (also one that ignores its flag) and frees the scope. */

enum { SC_NULL, SC_FOREIGN, SC_CHILD_OPEN, SC_OUT_OF_ORDER, SC_OUT_OF_ORDER_JOINED, SC_IN_FORK, SC_NOT_JOINED,
       SC_NOT_JOINED_EMPTY, SC_NOT_JOINED_WAITS, SC_NOT_JOINED_SHUT, SC_JOINED };

static int call_scope_close(fixture *f, const row *r) {
    if (r->field == SC_NULL) return groupconc_scope_close(NULL);
    groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
    int rc = INT_MIN;
    switch (r->field) {
    case SC_FOREIGN:
    case SC_IN_FORK:
        fork_parked(f, s, "sp");
        if (r->field == SC_FOREIGN) {
            rc = foreign(f, s, SOP_CLOSE);
        } else {
            fork_probe(f, s, B_OP, SOP_CLOSE);
            rc = f->sprobe.rc1;
        }
        if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) {
            untrack_scope(f, s);
            return rc;
        }
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 1);
#endif
        fork_ok(f, s, "sf", NULL);
        latch_open(&f->go);
        join_audit(f, s, GROUPCONC_OK);
        close_scope(f, s, GROUPCONC_OK);
        return rc;
    case SC_CHILD_OPEN: { /* a running fork's child scope (on its worker): close goes ahead */
        memset(&f->sprobe, 0, sizeof f->sprobe);
        f->sprobe.mode = B_CHILD;
        f->sprobe.s = s;
        fork_ok(f, s, "sb", scope_body);
        assert_true(counter_wait(&f->arrived, 1));
        assert_int_equal(f->sprobe.rc1, GROUPCONC_OK);
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 2);
#endif
        latch_open(&f->go); /* the body joins and closes its child: before the shutdown or after */
        rc = close_or_unblock(f, s);
        if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) {
            untrack_scope(f, s);
            assert_int_equal(f->sprobe.rc2, GROUPCONC_OK); /* the fork returned before close did */
            assert_int_equal(f->sprobe.rc3, GROUPCONC_OK);
#ifndef GROUPCONC_NO_DUMP
            assert_int_equal(dump_scope_count(f->ex), 0);
#endif
            return rc;
        }
        join_audit(f, s, GROUPCONC_OK);
        close_scope(f, s, GROUPCONC_OK);
        return rc;
    }
    case SC_OUT_OF_ORDER:
    case SC_OUT_OF_ORDER_JOINED: {
        groupconc_scope *later = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
        if (r->field == SC_OUT_OF_ORDER_JOINED) assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
        rc = groupconc_scope_close(s);
        if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) {
            untrack_scope(f, s);
            return rc;
        }
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 2);
#endif
        if (r->field == SC_OUT_OF_ORDER) fork_ok(f, s, "sf", NULL); /* not joined by the refused close */
        assert_int_equal(groupconc_scope_join(later), GROUPCONC_OK);
        close_scope(f, later, GROUPCONC_OK);
        if (r->field == SC_OUT_OF_ORDER) join_audit(f, s, GROUPCONC_OK);
        close_scope(f, s, GROUPCONC_OK); /* joined (before or after): OK, not ENOTJOINED */
        return rc;
    }
    case SC_NOT_JOINED:
    case SC_NOT_JOINED_SHUT:
        fork_ok(f, s, "sf", NULL);
        if (r->field == SC_NOT_JOINED_SHUT) assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK);
        break;
    case SC_NOT_JOINED_WAITS: { /* the fork is released 50 ms after close began: close waits for it */
        fork_parked(f, s, "sp");
        pthread_t opener;
        assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &f->go), 0);
        rc = groupconc_scope_close(s);
        if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) untrack_scope(f, s);
        assert_int_equal(atomic_load(&f->runs), 1);
        assert_int_equal(atomic_load(&f->cleanups), 1);
        pthread_join(opener, NULL);
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 0);
#endif
        return rc;
    }
    case SC_NOT_JOINED_EMPTY: break;
    case SC_JOINED:
        fork_ok(f, s, "sf", NULL);
        join_audit(f, s, GROUPCONC_OK);
        break;
    default: fail();
    }
    int forks = (int)groupconc_scope_fork_count(s);
    rc = groupconc_scope_close(s);
    if (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED) untrack_scope(f, s);
    /* freed after waiting for every fork: it ran (or was cancelled) and was cleaned up */
    assert_int_equal(atomic_load(&f->cleanups), forks);
    if (r->field == SC_JOINED) assert_int_equal(atomic_load(&f->runs), forks);
    else assert_true(atomic_load(&f->runs) <= forks); /* not joined: shut down first, ran or cancelled */
#ifndef GROUPCONC_NO_DUMP
    assert_int_equal(dump_scope_count(f->ex), 0);
#endif
    return rc;
}

/* ---- join, join_for and close from the policy callback ------------------------------------------ */
/* A CUSTOM scope whose on_fork_complete makes the call (the first time it runs) on its own scope:
   a callback of its forks, so EDEADLK at once (nothing done: the scope still closes later with OK).
   value: where the callback runs: 0 on the worker that completed the fork, 1 on the owner thread
   (the fork dequeued by its scope_shutdown), 2 on the owner thread inside scope_fork (a fork refused
   in submit). A call that waits instead would wait for the fork whose completion it is reporting:
   the watchdog aborts. */

static void blocking_cb(groupconc_scope *s, size_t index, const groupconc_result *r, void *user_data) {
    fixture *f = user_data;
    (void)index, (void)r;
    if (atomic_fetch_add(&f->scope_cb_calls, 1) != 0) return;
    f->sprobe.rc1 = scope_op(f, s, f->sprobe.op);
    counter_add(&f->arrived);
}

static int call_scope_in_callback(fixture *f, const row *r) {
    groupconc_scope_config c;
    memset(&c, 0, sizeof c);
    c.policy = GROUPCONC_SCOPE_CUSTOM;
    c.on_fork_complete = blocking_cb;
    c.user_data = f;
    memset(&f->sprobe, 0, sizeof f->sprobe);
    f->sprobe.op = r->field;
    f->sprobe.rc1 = INT_MIN;
    groupconc_scope *s = NULL;
    assert_int_equal(groupconc_scope_open(f->ex, &c, &s), GROUPCONC_OK);
    track_scope(f, s);
    watchdog w;
    watchdog_start(&w, "a scope call from on_fork_complete");
    switch (r->value) {
    case 0: fork_ok(f, s, "cbw", NULL); break;
    case 1:
        fork_parked(f, s, "cbq");
        fork_ok(f, s, "cbq", NULL);
        assert_int_equal(groupconc_scope_shutdown(s), GROUPCONC_OK);
        break;
    case 2: { /* refused in submit (ABORT): reported inside scope_fork, on the owner thread */
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "solo", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
        add_extra(f, t);
        assert_true(counter_wait(&f->gate, 2));
        groupconc_task_spec spec = scope_spec(f, "solo", NULL);
        assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_EREJECTED_CONCURRENCY);
        break;
    }
    default: fail();
    }
    assert_true(counter_wait(&f->arrived, r->value == 1 ? 2 : 1));
    watchdog_stop(&w);
    int rc = f->sprobe.rc1;
    if (r->field == SOP_CLOSE && (rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED)) {
        untrack_scope(f, s);
        return rc;
    }
    if (r->value != 1) fork_ok(f, s, "cbw", NULL); /* neither joined nor shut down */
    latch_open(&f->go);
    join_audit(f, s, GROUPCONC_OK);
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

/* ---- groupconc_scope_result / first / first_set / fork_count / policy_name ---------------------- */
/* After an error the output is untouched. */

enum { SR_NULL_SCOPE, SR_NULL_OUT, SR_RANGE, SR_EMPTY, SR_NOT_DONE, SR_DONE, SR_REJECTED };

static int call_scope_result(fixture *f, const row *r) {
    groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
    groupconc_scope *target = s;
    groupconc_result res, *out = &res, untouched;
    memset(&res, 0x5a, sizeof res);
    untouched = res;
    size_t index = 0;
    switch (r->field) {
    case SR_NULL_SCOPE: target = NULL; fork_ok(f, s, "sf", NULL); break;
    case SR_NULL_OUT: fork_ok(f, s, "sf", NULL); out = NULL; break;
    case SR_RANGE: /* value 0: the fork count; 1: SIZE_MAX; 2: count + 1 */
        fork_ok(f, s, "sf", NULL);
        fork_ok(f, s, "sf", NULL);
        index = r->value == 0 ? 2 : r->value == 1 ? SIZE_MAX : 3;
        break;
    case SR_EMPTY: break;
    case SR_NOT_DONE: fork_parked(f, s, "sp"); break;
    case SR_DONE: fork_ok(f, s, "sf", NULL); break;
    case SR_REJECTED: { /* refused in submit: a result with the key, REJECTED, its reason */
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "solo", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
        add_extra(f, t);
        assert_true(counter_wait(&f->gate, 2));
        groupconc_task_spec spec = scope_spec(f, "solo", NULL);
        assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_EREJECTED_CONCURRENCY);
        break;
    }
    default: fail();
    }
    if (r->field == SR_DONE) assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
    int rc = groupconc_scope_result(target, index, out);
    if (rc != GROUPCONC_OK && memcmp(&res, &untouched, sizeof res) != 0)
        fail_msg("scope_result returned %s and wrote *out_result", groupconc_errname(rc));
    if (rc == GROUPCONC_OK) {
        assert_string_equal(res.group, r->field == SR_REJECTED ? "solo" : "sf");
        if (r->field == SR_REJECTED) {
            assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
            assert_int_equal(res.reason, GROUPCONC_EREJECTED_CONCURRENCY);
        } else {
            assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
            assert_string_equal(res.task_id, "fk");
        }
    }
    latch_open(&f->go);
    join_audit(f, s, GROUPCONC_OK);
    if (rc == GROUPCONC_ETIMEDOUT) /* done now */
        assert_int_equal(groupconc_scope_result(s, index, &res), GROUPCONC_OK);
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

enum { FI_NULL_SCOPE, FI_NULL_OUT, FI_NONE_COLLECT, FI_NONE_ON_SUCCESS, FI_EMPTY, FI_ON_FAILURE, FI_ON_SUCCESS };

static int call_scope_first(fixture *f, const row *r) {
    groupconc_scope_policy pol = r->field == FI_NONE_ON_SUCCESS || r->field == FI_ON_SUCCESS
                                     ? GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS
                                 : r->field == FI_ON_FAILURE ? GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE
                                                             : GROUPCONC_SCOPE_COLLECT_ALL;
    groupconc_scope *s = open_scope(f, f->ex, pol), *target = s;
    size_t idx = 12345, *out = &idx;
    int join_want = GROUPCONC_OK;
    switch (r->field) {
    case FI_NULL_SCOPE: target = NULL; break;
    case FI_NULL_OUT: out = NULL; break;
    case FI_NONE_COLLECT: /* COLLECT_ALL names no fork, failed or not */
        fork_ok(f, s, "sf", fork_fail);
        fork_ok(f, s, "sg", NULL);
        break;
    case FI_NONE_ON_SUCCESS:
        fork_ok(f, s, "sf", fork_fail);
        fork_ok(f, s, "sg", fork_fail);
        join_want = GROUPCONC_EFAILED;
        break;
    case FI_EMPTY: join_want = pol == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS ? GROUPCONC_EFAILED : GROUPCONC_OK; break;
    case FI_ON_FAILURE:
        fork_ok(f, s, "sf", fork_fail);
        join_want = GROUPCONC_EFAILED;
        break;
    case FI_ON_SUCCESS: fork_ok(f, s, "sf", NULL); break;
    default: fail();
    }
    join_audit(f, s, join_want);
    int rc = groupconc_scope_first(target, out);
    if (rc != GROUPCONC_OK && idx != 12345) fail_msg("scope_first returned %s and wrote %zu", groupconc_errname(rc), idx);
    if (rc == GROUPCONC_OK) assert_int_equal(idx, 0);
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

enum { FS_NULL, FS_RANGE, FS_EMPTY, FS_FIRST_WINS, FS_NOT_CUSTOM };

/* Outside CUSTOM (value: the policy) the policy names the first fork: first_set is refused
   (GROUPCONC_ESCOPE_POLICY) and changes nothing: two forks that do not decide (they succeed, or
   fail under SHUTDOWN_ON_SUCCESS), a call naming fork 1, then join returns what the policy says
   (EFAILED under SHUTDOWN_ON_SUCCESS: none succeeded) and scope_first still finds none. */
static int call_scope_first_set_policy(fixture *f, const row *r) {
    groupconc_scope_policy pol = (groupconc_scope_policy)r->value;
    groupconc_scope *s = open_scope(f, f->ex, pol);
    groupconc_task_fn fn = pol == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS ? fork_fail : fork_run;
    size_t idx = 12345;
    fork_ok(f, s, "sf", fn);
    fork_ok(f, s, "sg", fn);
    int rc = groupconc_scope_first_set(s, 1);
    if (rc == GROUPCONC_ESCOPE_POLICY) /* also for an index that does not exist */
        assert_int_equal(groupconc_scope_first_set(s, SIZE_MAX), GROUPCONC_ESCOPE_POLICY);
    join_audit(f, s, pol == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS ? GROUPCONC_EFAILED : GROUPCONC_OK);
    int frc = groupconc_scope_first(s, &idx);
    if (frc != GROUPCONC_ENOTFOUND)
        fail_msg("%s scope: first_set returned %s, then scope_first %s (index %zu): the call decided",
                 groupconc_scope_policy_name(pol), groupconc_errname(rc), groupconc_errname(frc), idx);
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

static int call_scope_first_set(fixture *f, const row *r) {
    if (r->field == FS_NULL) return groupconc_scope_first_set(NULL, 0);
    if (r->field == FS_NOT_CUSTOM) return call_scope_first_set_policy(f, r);
    groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_CUSTOM);
    int rc = INT_MIN;
    size_t idx = 12345;
    if (r->field != FS_EMPTY) {
        fork_ok(f, s, "sf", NULL);
        fork_ok(f, s, "sg", NULL);
    }
    switch (r->field) {
    case FS_RANGE: rc = groupconc_scope_first_set(s, r->value ? SIZE_MAX : 2); break;
    case FS_EMPTY: rc = groupconc_scope_first_set(s, 0); break;
    case FS_FIRST_WINS:
        rc = groupconc_scope_first_set(s, 1);
        assert_int_equal(groupconc_scope_first_set(s, 0), GROUPCONC_OK);
        break;
    default: fail();
    }
    join_audit(f, s, GROUPCONC_OK);
    int frc = groupconc_scope_first(s, &idx);
    if (rc == GROUPCONC_OK) {
        assert_int_equal(frc, GROUPCONC_OK);
        assert_int_equal(idx, 1); /* the first call won */
    } else if (frc != GROUPCONC_ENOTFOUND) {
        fail_msg("scope_first_set returned %s, yet scope_first %s (index %zu)", groupconc_errname(rc), groupconc_errname(frc), idx);
    }
    /* a refused call leaves it free: a valid one after it still decides */
    if (rc != GROUPCONC_OK && r->field != FS_EMPTY) {
        assert_int_equal(groupconc_scope_first_set(s, 0), GROUPCONC_OK);
        assert_int_equal(groupconc_scope_first(s, &idx), GROUPCONC_OK);
        assert_int_equal(idx, 0);
    }
    close_scope(f, s, GROUPCONC_OK);
    return rc;
}

static int call_scope_fork_count(fixture *f, const row *r) {
    (void)r;
    if (groupconc_scope_fork_count(NULL) != 0) fail_msg("scope_fork_count(NULL) = %zu", groupconc_scope_fork_count(NULL));
    groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
    assert_int_equal(groupconc_scope_fork_count(s), 0);
    groupconc_task_spec bad = scope_spec(f, "", NULL);
    assert_int_equal(groupconc_scope_fork(s, &bad, NULL), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_scope_fork_count(s), 0);
    fork_ok(f, s, "sf", NULL);
    fork_ok(f, s, "sf", NULL);
    assert_int_equal(groupconc_scope_fork_count(s), 2);
    join_audit(f, s, GROUPCONC_OK);
    assert_int_equal(groupconc_scope_fork_count(s), 2);
    close_scope(f, s, GROUPCONC_OK);
    return GROUPCONC_OK;
}

static int call_scope_policy_name(fixture *f, const row *r) {
    (void)f, (void)r;
    assert_string_equal(groupconc_scope_policy_name(GROUPCONC_SCOPE_COLLECT_ALL), "COLLECT_ALL");
    assert_string_equal(groupconc_scope_policy_name(GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE), "SHUTDOWN_ON_FAILURE");
    assert_string_equal(groupconc_scope_policy_name(GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS), "SHUTDOWN_ON_SUCCESS");
    assert_string_equal(groupconc_scope_policy_name(GROUPCONC_SCOPE_CUSTOM), "CUSTOM");
    static const int out_of_range[] = {4, -1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++)
        assert_string_equal(groupconc_scope_policy_name((groupconc_scope_policy)out_of_range[i]), "UNKNOWN");
    return GROUPCONC_OK;
}

/* ---- groupconc_executor_destroy with scopes ----------------------------------------------------- */
/* An open scope makes destroy refuse at once with nothing done: not shut down, the fixture's queued
   task still waits, submit and fork still work; the scope closes later and destroy then succeeds
   (the teardown). */

enum { XS_OPEN, XS_PARKED_FORK, XS_JOINED, XS_AFTER_SHUTDOWN, XS_CLOSED, XS_OTHER_EXECUTORS_SCOPE };

static int call_destroy_with_scope(fixture *f, const row *r) {
    switch (r->field) {
    case XS_OPEN:
    case XS_PARKED_FORK:
    case XS_JOINED: {
        groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
        if (r->field == XS_PARKED_FORK) { /* parked on f->gate: the rescue frees it if destroy waits */
            groupconc_task_spec spec = {"xs", NULL, task_park, &f->gate, NULL, 0};
            assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_OK);
            assert_true(counter_wait(&f->gate, 2));
        }
        if (r->field == XS_JOINED) assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
        int rc = destroy_or_rescue(f, f->ex);
        if (rc == GROUPCONC_OK) {
            f->ex = NULL; /* the scope points at freed memory now: leave it */
            untrack_scope(f, s);
            fail_msg("executor_destroy with a scope open returned OK");
        }
        assert_false(xstats(f->ex).shutdown);
        bool d = true;
        assert_int_equal(groupconc_task_is_done(f->queued, &d), GROUPCONC_OK);
        assert_false(d);
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "xs-task", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
        add_extra(f, t);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 1);
#endif
        if (r->field != XS_JOINED) { /* the scope still takes forks */
            groupconc_task_spec spec = scope_spec(f, "xs2", NULL);
            assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_OK);
        }
        latch_open(&f->gate);
        assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
        close_scope(f, s, GROUPCONC_OK);
        return rc;
    }
    case XS_AFTER_SHUTDOWN: {
        groupconc_scope *s = open_scope(f, f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        latch_open(&f->gate);
        int rc = groupconc_executor_destroy(f->ex);
        if (rc == GROUPCONC_OK) {
            f->ex = NULL;
            untrack_scope(f, s);
            fail_msg("executor_destroy with a scope open returned OK");
        }
#ifndef GROUPCONC_NO_DUMP
        assert_int_equal(dump_scope_count(f->ex), 1);
#endif
        assert_int_equal(groupconc_scope_join(s), GROUPCONC_OK);
        close_scope(f, s, GROUPCONC_OK);
        return rc;
    }
    case XS_CLOSED:
    case XS_OTHER_EXECUTORS_SCOPE: {
        groupconc_policy p = groupconc_policy_default();
        assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
        groupconc_scope *s = open_scope(f, r->field == XS_CLOSED ? f->tmp_ex : f->ex, GROUPCONC_SCOPE_COLLECT_ALL);
        fork_ok(f, s, "xs", NULL);
        if (r->field == XS_CLOSED) {
            join_audit(f, s, GROUPCONC_OK);
            close_scope(f, s, GROUPCONC_OK);
        }
        int rc = groupconc_executor_destroy(f->tmp_ex);
        if (rc == GROUPCONC_OK) f->tmp_ex = NULL;
        if (r->field == XS_OTHER_EXECUTORS_SCOPE) { /* the other scope still works */
            fork_ok(f, s, "xs", NULL);
            join_audit(f, s, GROUPCONC_OK);
            close_scope(f, s, GROUPCONC_OK);
        }
        return rc;
    }
    default: fail();
    }
    return 0;
}
#endif

#ifndef GROUPCONC_NO_DUMP
/* ---- groupconc_executor_dump / dump_file -------------------------------------------------------- */
/* On a fresh executor (no task, no scope: the same dump every call) the sizes can be checked
   exactly: *out_needed is the whole dump's length + 1 whatever the buffer, a short buffer gets the
   dump's NUL-terminated prefix, an argument error writes nothing into buf. */

enum { DU_NULL_EX, DU_NULL_EX_NULL_BUF, DU_NULL_BUF_SIZE, DU_NULL_BUF_ZERO, DU_ZERO_SIZE, DU_SIZE, DU_ONE_SHORT,
       DU_EXACT, DU_NULL_NEEDED_SHORT, DU_NULL_NEEDED_EXACT, DU_LIVE };

static int call_dump(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
    groupconc_executor *ex = f->tmp_ex;
#ifndef GROUPCONC_NO_SCOPES
    if (r->field == DU_LIVE) { /* the fixture's executor, a scope with a running and a queued fork */
        ex = f->ex;
        groupconc_scope_config c;
        memset(&c, 0, sizeof c);
        c.name = "live";
        groupconc_scope *s = NULL;
        assert_int_equal(groupconc_scope_open(f->ex, &c, &s), GROUPCONC_OK);
        track_scope(f, s);
        fork_parked(f, s, "du");
        fork_ok(f, s, "du", NULL);
    }
#endif
    char *full = dump_alloc(ex);
    size_t full_need = strlen(full) + 1;
    char *buf = malloc(full_need + 64);
    assert_non_null(buf);
    memset(buf, 'x', full_need + 64);
    size_t need = 12345, *pneed = &need, size = 0;
    char *b = buf;
    groupconc_executor *target = ex;
    switch (r->field) {
    case DU_NULL_EX: target = NULL; size = full_need; break;
    case DU_NULL_EX_NULL_BUF: target = NULL; b = NULL; break;
    case DU_NULL_BUF_SIZE: b = NULL; size = (size_t)r->value; break;
    case DU_NULL_BUF_ZERO: b = NULL; break;
    case DU_ZERO_SIZE: break;
    case DU_SIZE: size = (size_t)r->value; break;
    case DU_ONE_SHORT: size = full_need - 1; break;
    case DU_EXACT: size = full_need; break;
    case DU_NULL_NEEDED_SHORT: size = 16; pneed = NULL; break;
    case DU_NULL_NEEDED_EXACT: size = full_need; pneed = NULL; break;
    case DU_LIVE: size = 40; break;
    default: fail();
    }
    int rc = groupconc_executor_dump(target, b, size, pneed);
    size_t written = 0; /* bytes of buf the call may have written */
    if (rc == GROUPCONC_OK || rc == GROUPCONC_ERANGE) {
        if (size > 0) {
            size_t len = strnlen(buf, size);
            if (len == size) fail_msg("dump returned %s into %zu bytes without a NUL", groupconc_errname(rc), size);
            size_t want_len = rc == GROUPCONC_OK ? full_need - 1 : size - 1;
            if (r->field != DU_LIVE && len != want_len)
                fail_msg("dump returned %s into %zu bytes: %zu bytes before the NUL, want %zu", groupconc_errname(rc), size, len, want_len);
            if (memcmp(buf, full, len) != 0) fail_msg("dump into %zu bytes: not a prefix of the whole dump", size);
            written = len + 1;
        }
        if (pneed && r->field != DU_LIVE && need != full_need)
            fail_msg("dump returned %s: *out_needed %zu, want %zu", groupconc_errname(rc), need, full_need);
        if (pneed && r->field == DU_LIVE && need <= size) fail_msg("dump ERANGE: *out_needed %zu", need);
    }
    for (size_t i = written; i < full_need + 64; i++)
        if (buf[i] != 'x') fail_msg("dump returned %s and wrote byte %zu of the buffer (size %zu)", groupconc_errname(rc), i, size);
    free(buf);
    free(full);
#ifndef GROUPCONC_NO_SCOPES
    if (r->field == DU_LIVE) {
        latch_open(&f->go);
        join_audit(f, f->scopes[0], GROUPCONC_OK);
        close_scope(f, f->scopes[0], GROUPCONC_OK);
    }
#endif
    return rc;
}

enum { DFL_NULL_EX, DFL_NULL_FILE, DFL_BOTH_NULL, DFL_DEV_FULL, DFL_READ_ONLY, DFL_OK };

static int call_dump_file(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
    groupconc_executor *ex = f->tmp_ex;
    FILE *out = NULL;
    switch (r->field) {
    case DFL_NULL_EX: ex = NULL; out = f->file = tmpfile(); break;
    case DFL_NULL_FILE: break;
    case DFL_BOTH_NULL: ex = NULL; break;
    case DFL_DEV_FULL: /* every write fails with ENOSPC */
        out = f->file = fopen("/dev/full", "w");
        if (!out) {
            print_message("no /dev/full: row skipped\n");
            return GROUPCONC_EIO;
        }
        ex = f->ex;
        break;
    case DFL_READ_ONLY: out = f->file = fopen("/dev/null", "r"); break;
    case DFL_OK: out = f->file = tmpfile(); break;
    default: fail();
    }
    if (r->field != DFL_NULL_FILE && r->field != DFL_BOTH_NULL) assert_non_null(out);
    int rc = groupconc_executor_dump_file(ex, out);
    if (r->field == DFL_NULL_EX || r->field == DFL_OK) { /* an error writes nothing; OK the whole dump */
        long len = ftell(out);
        if (rc != GROUPCONC_OK) {
            if (len != 0) fail_msg("dump_file returned %s and wrote %ld bytes", groupconc_errname(rc), len);
            return rc;
        }
        char *full = dump_alloc(f->tmp_ex);
        char *got = calloc(1, strlen(full) + 64);
        assert_non_null(got);
        rewind(out);
        size_t n = fread(got, 1, strlen(full) + 63, out);
        if (n != strlen(full) || strcmp(got, full) != 0) fail_msg("dump_file wrote %zu bytes, not the dump (%zu bytes)", n, strlen(full));
        free(got);
        free(full);
    }
    return rc;
}
#endif

/* ==== live limits, pause and resume ============================================================== */
/* The fixture's group "p" (concurrency 1, nothing in the table: in-flight and threshold UNLIMITED,
   no deadline) has `parked` running and `queued` waiting at concurrency. A refused call changes nothing:
   "p" reads back as it was and `queued` still waits; a valid field next to the bad one is not
   applied either, and a key the call named gets no state and no table entry (the state a later
   submit creates has the defaults). An accepted call is read back: from "p"'s stats (raising its
   concurrency hands `queued` its permit at once), or, for a key without state (only recorded), from
   the state a submit then creates. */

static groupconc_group_stats gstats(groupconc_executor *ex, const char *group) {
    groupconc_group_stats s;
    int rc = groupconc_group_stats_get(ex, group, &s);
    if (rc != GROUPCONC_OK) fail_msg("group_stats_get(\"%s\"): %s", group, groupconc_errname(rc));
    return s;
}

/* By the keys with state: group_stats_get also answers OK for a key with limits set and no state. */
static bool has_state(groupconc_executor *ex, const char *group) {
    char **keys = NULL;
    size_t n = 0;
    bool has = false;
    int rc = groupconc_group_keys_get(ex, &keys, &n);
    if (rc != GROUPCONC_OK) fail_msg("group_keys_get: %s", groupconc_errname(rc));
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], group) == 0) has = true;
    groupconc_group_keys_free(keys);
    return has;
}

/* "p" as the fixture made it, `queued` still waiting at concurrency behind `parked` (never run). Its
   queue deadline is the policy default's (`want_wait`): a live default_max_wait_ns applies to every
   task submitted afterwards, existing groups' included. */
static void assert_p_untouched_wait(fixture *f, int64_t want_wait) {
    groupconc_group_stats gs = gstats(f->ex, "p");
    if (gs.concurrency != 1 || gs.max_in_flight != GROUPCONC_UNLIMITED || gs.queue_threshold != GROUPCONC_UNLIMITED ||
        gs.max_wait_ns != want_wait)
        fail_msg("\"p\" changed: concurrency %d, max_in_flight %d, queue_threshold %d, max_wait_ns %lld", gs.concurrency,
                 gs.max_in_flight, gs.queue_threshold, (long long)gs.max_wait_ns);
    assert_int_equal(gs.running, 1);
    assert_int_equal(gs.waiting_concurrency, 1);
    bool d = true;
    assert_int_equal(groupconc_task_is_done(f->queued, &d), GROUPCONC_OK);
    assert_false(d);
}

static void assert_p_untouched(fixture *f) { assert_p_untouched_wait(f, GROUPCONC_FOREVER); }

/* Submit one task into `group` on ex and wait for it: the group's state now exists; its stats. */
static groupconc_group_stats make_state(fixture *f, groupconc_executor *ex, const char *group) {
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(ex, group, NULL, task_count, &f->runs, &t), GROUPCONC_OK);
    add_extra(f, t);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    return gstats(ex, group);
}

/* The defaults of the fixture's policy: what a group with no table entry gets. */
static void assert_default_limits(const groupconc_group_stats *gs, const char *group) {
    if (gs->concurrency != 1 || gs->max_in_flight != GROUPCONC_UNLIMITED || gs->queue_threshold != GROUPCONC_UNLIMITED ||
        gs->max_wait_ns != GROUPCONC_FOREVER)
        fail_msg("\"%s\" was created with concurrency %d, max_in_flight %d, queue_threshold %d, max_wait_ns %lld: "
                 "a refused limits_set recorded something", group, gs->concurrency, gs->max_in_flight,
                 gs->queue_threshold, (long long)gs->max_wait_ns);
}

/* ---- groupconc_group_limits_set ----------------------------------------------------------------- */

enum { GL_NULL_EX, GL_NULL_LIMITS, GL_NULL_GROUP, GL_EMPTY, GL_LONG, GL_MAX_NEW, GL_CONC, GL_INFL, GL_THR, GL_WAIT,
       GL_ALL_KEEP, GL_NEW_KEY, GL_NEW_KEY_BAD, GL_AFTER_SHUTDOWN, GL_BAD_AFTER_SHUTDOWN, GL_EMPTY_AFTER_SHUTDOWN,
       GL_NULL_AFTER_SHUTDOWN, GL_KEEP_NULL_GROUP, GL_CONC_COMPANION };

static int call_group_limits_set(fixture *f, const row *r) {
    groupconc_group_limits l = groupconc_group_limits_keep("p");
    const groupconc_group_limits *lp = &l;
    groupconc_executor *ex = f->ex;
    const char *other = NULL; /* a key without state the call names (must stay without a table entry on error) */
    int v = (int)r->value;
    bool shut = false;
    switch (r->field) {
    case GL_NULL_EX: ex = NULL; l.concurrency = 2; break;
    case GL_NULL_LIMITS: lp = NULL; break;
    case GL_NULL_GROUP: l.group = NULL; l.concurrency = 2; break;
    case GL_KEEP_NULL_GROUP: l = groupconc_group_limits_keep(NULL); break;
    case GL_EMPTY: l.group = ""; l.concurrency = 2; break;
    case GL_LONG: l.group = f->long_key; l.concurrency = 2; break;
    case GL_MAX_NEW: l.group = other = f->max_key; l.concurrency = 3; break;
    case GL_CONC: l.concurrency = v; break;
    case GL_CONC_COMPANION: l.concurrency = v; l.max_in_flight = 5; break;
    case GL_INFL: l.max_in_flight = v; l.concurrency = 2; break;
    case GL_THR: l.queue_threshold = v; l.concurrency = 2; break;
    case GL_WAIT: l.max_wait_ns = r->value; l.concurrency = 2; break;
    case GL_ALL_KEEP: break;
    case GL_NEW_KEY: /* a key with no state: only recorded */
        l.group = other = "gl-new";
        l.concurrency = 3;
        l.max_in_flight = 5;
        l.queue_threshold = 4;
        l.max_wait_ns = INT64_C(30000000000);
        break;
    case GL_NEW_KEY_BAD: /* valid fields beside the bad one: nothing recorded */
        l.group = other = "gl-new";
        l.concurrency = 3;
        l.queue_threshold = 4;
        l.max_wait_ns = INT64_C(30000000000);
        l.max_in_flight = v;
        break;
    case GL_AFTER_SHUTDOWN: shut = true; l.concurrency = 2; break;
    case GL_BAD_AFTER_SHUTDOWN: shut = true; l.concurrency = 0; break;
    case GL_EMPTY_AFTER_SHUTDOWN: shut = true; l.group = ""; break;
    case GL_NULL_AFTER_SHUTDOWN: shut = true; lp = NULL; break;
    default: fail();
    }
    if (shut) assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    int rc = groupconc_group_limits_set(ex, lp);
    if (shut) return rc; /* shutdown cancelled `queued`: nothing left to compare */
    if (rc != GROUPCONC_OK) {
        assert_p_untouched(f);
        if (other) { /* no state made, and nothing recorded for the key */
            assert_false(has_state(f->ex, other));
            groupconc_group_stats gs = make_state(f, f->ex, other);
            assert_default_limits(&gs, other);
        }
        return rc;
    }
    if (other) { /* recorded only; a state made now has them */
        assert_false(has_state(f->ex, other));
        groupconc_group_stats gs = make_state(f, f->ex, other);
        if (gs.concurrency != l.concurrency || (r->field == GL_NEW_KEY && (gs.max_in_flight != 5 || gs.queue_threshold != 4 ||
                                                                           gs.max_wait_ns != INT64_C(30000000000))))
            fail_msg("\"%s\" created after limits_set: concurrency %d, max_in_flight %d, queue_threshold %d, max_wait_ns %lld",
                     other, gs.concurrency, gs.max_in_flight, gs.queue_threshold, (long long)gs.max_wait_ns);
        assert_p_untouched(f);
        return rc;
    }
    /* "p" changed now: each field as given (KEEP: as it was; DEFAULT: the policy's default) */
    groupconc_group_stats gs = gstats(f->ex, "p");
    int want_conc = l.concurrency == GROUPCONC_KEEP || l.concurrency == GROUPCONC_DEFAULT ? 1 : l.concurrency;
    int want_infl = l.max_in_flight == GROUPCONC_KEEP || l.max_in_flight == GROUPCONC_DEFAULT ? GROUPCONC_UNLIMITED
                                                                                               : l.max_in_flight;
    int want_thr = l.queue_threshold == GROUPCONC_KEEP || l.queue_threshold == GROUPCONC_DEFAULT ? GROUPCONC_UNLIMITED
                                                                                                 : l.queue_threshold;
    int64_t want_wait = l.max_wait_ns == GROUPCONC_KEEP || l.max_wait_ns == GROUPCONC_DEFAULT || l.max_wait_ns == 0
                            ? GROUPCONC_FOREVER
                            : l.max_wait_ns;
    if (gs.concurrency != want_conc || gs.max_in_flight != want_infl || gs.queue_threshold != want_thr ||
        gs.max_wait_ns != want_wait)
        fail_msg("\"p\" after limits_set: concurrency %d (want %d), max_in_flight %d (want %d), queue_threshold %d "
                 "(want %d), max_wait_ns %lld (want %lld)", gs.concurrency, want_conc, gs.max_in_flight, want_infl,
                 gs.queue_threshold, want_thr, (long long)gs.max_wait_ns, (long long)want_wait);
    if (want_conc >= 2) { /* raised: `queued` was handed its permit at once */
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(f->queued, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        bool d = true;
        assert_int_equal(groupconc_task_is_done(f->parked, &d), GROUPCONC_OK);
        assert_false(d); /* never preempted */
    } else {
        assert_p_untouched(f);
    }
    return rc;
}

/* ---- groupconc_executor_limits_set -------------------------------------------------------------- */

enum { XL_NULL_EX, XL_NULL_LIMITS, XL_GINFL, XL_GTHR, XL_GRUN, XL_MAXWAITING, XL_CONC, XL_INFL, XL_THR, XL_WAIT,
       XL_ALL_KEEP, XL_AFTER_SHUTDOWN, XL_BAD_AFTER_SHUTDOWN, XL_NULL_AFTER_SHUTDOWN };

static int call_executor_limits_set(fixture *f, const row *r) {
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    const groupconc_executor_limits *lp = &l;
    groupconc_executor *ex = f->ex;
    int v = (int)r->value;
    bool shut = false;
    switch (r->field) {
    case XL_NULL_EX: ex = NULL; l.global_max_running = 7; break;
    case XL_NULL_LIMITS: lp = NULL; break;
    case XL_GINFL: l.global_max_in_flight = v; break;
    case XL_GTHR: l.global_queue_threshold = v; break;
    case XL_GRUN: l.global_max_running = v; break;
    case XL_MAXWAITING: l.max_waiting = v; break;
    case XL_CONC: l.default_concurrency = v; break;
    case XL_INFL: l.default_max_in_flight = v; break;
    case XL_THR: l.default_queue_threshold = v; break;
    case XL_WAIT: l.default_max_wait_ns = r->value; break;
    case XL_ALL_KEEP: break;
    case XL_AFTER_SHUTDOWN: shut = true; l.global_max_running = 7; break;
    case XL_BAD_AFTER_SHUTDOWN: shut = true; l.global_max_running = 0; break;
    case XL_NULL_AFTER_SHUTDOWN: shut = true; lp = NULL; break;
    default: fail();
    }
    /* a valid change beside the field under test: applied with it, or (ELIMIT) not at all */
    bool companion = r->field >= XL_GINFL && r->field <= XL_WAIT;
    if (companion) {
        if (r->field == XL_GRUN) l.max_waiting = 9;
        else l.global_max_running = 9;
    }
    if (shut) assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    int rc = groupconc_executor_limits_set(ex, lp);
    if (shut) return rc;
    groupconc_executor_stats s = xstats(f->ex);
    if (rc != GROUPCONC_OK) { /* nothing changed: the caps, the defaults a new group gets */
        if (s.global_max_in_flight != GROUPCONC_UNLIMITED || s.global_max_running != GROUPCONC_UNLIMITED ||
            s.max_waiting != GROUPCONC_UNLIMITED)
            fail_msg("executor_limits_set returned %s, yet global_max_in_flight %d, global_max_running %d, max_waiting %d",
                     groupconc_errname(rc), s.global_max_in_flight, s.global_max_running, s.max_waiting);
        assert_p_untouched(f);
        groupconc_group_stats gs = make_state(f, f->ex, "xl-new");
        assert_default_limits(&gs, "xl-new");
        return rc;
    }
    /* applied: each field read back (KEEP: as it was) */
    int want_ginfl = l.global_max_in_flight == GROUPCONC_KEEP ? GROUPCONC_UNLIMITED : l.global_max_in_flight;
    int want_grun = l.global_max_running == GROUPCONC_KEEP ? GROUPCONC_UNLIMITED : l.global_max_running;
    int want_maxw = l.max_waiting == GROUPCONC_KEEP ? GROUPCONC_UNLIMITED : l.max_waiting;
    if (s.global_max_in_flight != want_ginfl || s.global_max_running != want_grun || s.max_waiting != want_maxw)
        fail_msg("after executor_limits_set: global_max_in_flight %d (want %d), global_max_running %d (want %d), "
                 "max_waiting %d (want %d)", s.global_max_in_flight, want_ginfl, s.global_max_running, want_grun,
                 s.max_waiting, want_maxw);
    /* existing groups keep their resolved limits; the default deadline applies to their later tasks */
    assert_p_untouched_wait(f, l.default_max_wait_ns == GROUPCONC_KEEP ? GROUPCONC_FOREVER : l.default_max_wait_ns);
    if (r->field >= XL_CONC && r->field <= XL_ALL_KEEP) { /* the defaults: a group created now gets them */
        groupconc_group_stats gs = make_state(f, f->ex, "xl-new");
        int want_conc = l.default_concurrency == GROUPCONC_KEEP ? 1 : l.default_concurrency;
        int want_infl = l.default_max_in_flight == GROUPCONC_KEEP ? GROUPCONC_UNLIMITED : l.default_max_in_flight;
        int want_thr = l.default_queue_threshold == GROUPCONC_KEEP ? GROUPCONC_UNLIMITED : l.default_queue_threshold;
        int64_t want_wait = l.default_max_wait_ns == GROUPCONC_KEEP ? GROUPCONC_FOREVER : l.default_max_wait_ns;
        if (gs.concurrency != want_conc || gs.max_in_flight != want_infl || gs.queue_threshold != want_thr ||
            gs.max_wait_ns != want_wait)
            fail_msg("a group created after executor_limits_set: concurrency %d (want %d), max_in_flight %d (want %d), "
                     "queue_threshold %d (want %d), max_wait_ns %lld (want %lld)", gs.concurrency, want_conc,
                     gs.max_in_flight, want_infl, gs.queue_threshold, want_thr, (long long)gs.max_wait_ns,
                     (long long)want_wait);
    }
    return rc;
}

/* The two _keep constructors: every field GROUPCONC_KEEP (the group pointer as given). */
static int call_limits_keep(fixture *f, const row *r) {
    (void)f, (void)r;
    const char *key = "k";
    groupconc_group_limits g = groupconc_group_limits_keep(key);
    assert_ptr_equal(g.group, key);
    assert_int_equal(g.concurrency, GROUPCONC_KEEP);
    assert_int_equal(g.max_in_flight, GROUPCONC_KEEP);
    assert_int_equal(g.queue_threshold, GROUPCONC_KEEP);
    assert_true(g.max_wait_ns == GROUPCONC_KEEP);
    g = groupconc_group_limits_keep(NULL);
    assert_null(g.group);
    groupconc_executor_limits x = groupconc_executor_limits_keep();
    const int ints[] = {x.global_max_in_flight, x.global_queue_threshold, x.global_max_running, x.max_waiting,
                        x.default_concurrency, x.default_max_in_flight, x.default_queue_threshold};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) assert_int_equal(ints[i], GROUPCONC_KEEP);
    assert_true(x.default_max_wait_ns == GROUPCONC_KEEP);
    /* KEEP is a value of its own: not UNLIMITED / FOREVER, not DEFAULT */
    assert_true(GROUPCONC_KEEP != GROUPCONC_UNLIMITED && GROUPCONC_KEEP != GROUPCONC_DEFAULT &&
                GROUPCONC_KEEP != GROUPCONC_FOREVER);
    return GROUPCONC_OK;
}

/* ---- pause and resume --------------------------------------------------------------------------- */

enum { PA_NULL_EX, PA_NULL_GROUP, PA_EMPTY, PA_LONG, PA_MAX_NEW, PA_KNOWN, PA_TWICE, PA_AFTER_SHUTDOWN,
       PA_EMPTY_AFTER_SHUTDOWN, PA_NULL_AFTER_SHUTDOWN, PA_FULL_BUSY, PA_FULL_PAUSED, PA_FULL_IDLE, PA_FULL_KNOWN,
       PA_SUBMIT_FULL };

/* An executor of its own with max_groups `max`: the fixture's stays as it is. */
static groupconc_executor *bounded_ex(fixture *f, int max) {
    groupconc_policy p = groupconc_policy_default();
    p.max_groups = max;
    p.max_threads = 4;
    assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
    return f->tmp_ex;
}

static int call_group_pause(fixture *f, const row *r) {
    groupconc_executor *ex = f->ex;
    const char *g = "p";
    bool shut = false, fresh = false; /* fresh: a key with no state before the call */
    switch (r->field) {
    case PA_NULL_EX: ex = NULL; break;
    case PA_NULL_GROUP: g = NULL; break;
    case PA_EMPTY: g = ""; break;
    case PA_LONG: g = f->long_key; break;
    case PA_MAX_NEW: g = f->max_key; fresh = true; break;
    case PA_KNOWN: break;
    case PA_TWICE: assert_int_equal(groupconc_group_pause(f->ex, "p"), GROUPCONC_OK); break;
    case PA_AFTER_SHUTDOWN: shut = true; break;
    case PA_EMPTY_AFTER_SHUTDOWN: shut = true; g = ""; break;
    case PA_NULL_AFTER_SHUTDOWN: shut = true; g = NULL; break;
    case PA_FULL_BUSY:
    case PA_FULL_PAUSED:
    case PA_FULL_IDLE:
    case PA_FULL_KNOWN:
    case PA_SUBMIT_FULL: {
        ex = bounded_ex(f, 1);
        if (r->field == PA_FULL_BUSY || r->field == PA_SUBMIT_FULL || r->field == PA_FULL_KNOWN) { /* "g1" runs a task */
            groupconc_task *t = NULL;
            assert_int_equal(groupconc_submit(ex, "g1", NULL, task_park, &f->gate, &t), GROUPCONC_OK);
            add_extra(f, t);
            assert_true(counter_wait(&f->gate, 2));
        } else if (r->field == PA_FULL_PAUSED) { /* "g1" is paused: never reclaimed */
            assert_int_equal(groupconc_group_pause(ex, "g1"), GROUPCONC_OK);
        } else { /* "g1" is idle: its one task finished */
            make_state(f, ex, "g1");
        }
        g = r->field == PA_FULL_KNOWN ? "g1" : "g2";
        fresh = r->field != PA_FULL_KNOWN;
        break;
    }
    default: fail();
    }
    if (shut) assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
    groupconc_executor_stats before = xstats(ex ? ex : f->ex);
    int rc;
    if (r->field == PA_SUBMIT_FULL) { /* submit documents EGROUPS_FULL too: not accepted, no handle */
        groupconc_task *t = (groupconc_task *)(uintptr_t)1;
        rc = groupconc_submit(ex, g, NULL, task_count, &f->runs, &t);
        if (rc == GROUPCONC_OK) add_extra(f, t);
        else if (t) fail_msg("submit returned %s and gave a handle", groupconc_errname(rc));
    } else {
        rc = groupconc_group_pause(ex, g);
    }
    if (!ex) return rc;
    groupconc_executor_stats after = xstats(ex);
    if (rc != GROUPCONC_OK) { /* nothing done: no state made, nothing paused, nothing reclaimed */
        if (fresh && has_state(ex, g)) fail_msg("group_pause returned %s, yet \"%s\" has state", groupconc_errname(rc), g);
        if (after.groups != before.groups || after.paused_groups != before.paused_groups ||
            after.groups_reclaimed != before.groups_reclaimed)
            fail_msg("group_pause returned %s: groups %zu -> %zu, paused %zu -> %zu, reclaimed %llu -> %llu",
                     groupconc_errname(rc), before.groups, after.groups, before.paused_groups, after.paused_groups,
                     (unsigned long long)before.groups_reclaimed, (unsigned long long)after.groups_reclaimed);
        if (ex == f->tmp_ex) assert_true(has_state(ex, "g1"));
        if (!shut && ex == f->ex) assert_p_untouched(f);
        return rc;
    }
    if (r->field == PA_SUBMIT_FULL) return rc;
    groupconc_group_stats gs = gstats(ex, g);
    assert_true(gs.paused);
    assert_int_equal(after.paused_groups, before.paused_groups + (r->field == PA_TWICE ? 0 : 1));
    if (fresh) { /* created paused, empty */
        assert_int_equal(gs.running + gs.waiting_concurrency + gs.in_flight, 0);
        assert_int_equal(gs.concurrency, 1);
    }
    if (r->field == PA_FULL_IDLE) { /* the idle group made room */
        assert_int_equal(after.groups, 1);
        assert_int_equal(after.groups_reclaimed, before.groups_reclaimed + 1);
        assert_false(has_state(ex, "g1"));
    }
    if (r->field == PA_FULL_KNOWN) assert_int_equal(gs.running, 1);
    if (ex == f->ex && (r->field == PA_KNOWN || r->field == PA_TWICE)) {
        /* paused: nothing new starts, even with the running task gone */
        latch_open(&f->gate);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(f->parked, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(groupconc_task_wait_for(f->queued, 50000000, &res), GROUPCONC_ETIMEDOUT);
        gs = gstats(ex, "p");
        assert_int_equal(gs.waiting_concurrency, 1);
        assert_int_equal(gs.running, 0);
        assert_int_equal(groupconc_group_resume(ex, "p"), GROUPCONC_OK); /* and it runs */
        assert_int_equal(groupconc_task_wait_for(f->queued, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    }
    return rc;
}

enum { RS_NULL_EX, RS_NULL_GROUP, RS_EMPTY, RS_LONG, RS_UNKNOWN, RS_MAX_UNKNOWN, RS_NOT_PAUSED, RS_PAUSED, RS_TWICE,
       RS_AFTER_SHUTDOWN, RS_PAUSED_AFTER_SHUTDOWN, RS_EMPTY_AFTER_SHUTDOWN };

static int call_group_resume(fixture *f, const row *r) {
    groupconc_executor *ex = f->ex;
    const char *g = "p";
    switch (r->field) {
    case RS_NULL_EX: ex = NULL; break;
    case RS_NULL_GROUP: g = NULL; break;
    case RS_EMPTY: g = ""; break;
    case RS_LONG: g = f->long_key; break;
    case RS_UNKNOWN: g = "never-used"; break;
    case RS_MAX_UNKNOWN: g = f->max_key; break;
    case RS_NOT_PAUSED: break;
    case RS_PAUSED:
    case RS_TWICE: { /* "r" paused, one task waiting in it (admitted to its queue, handed nothing) */
        g = "r";
        assert_int_equal(groupconc_group_pause(f->ex, "r"), GROUPCONC_OK);
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "r", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
        add_extra(f, t);
        groupconc_group_stats gs = gstats(f->ex, "r");
        assert_int_equal(gs.waiting_concurrency, 1);
        if (r->field == RS_TWICE) assert_int_equal(groupconc_group_resume(f->ex, "r"), GROUPCONC_OK);
        break;
    }
    case RS_AFTER_SHUTDOWN: assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK); break;
    case RS_PAUSED_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_group_pause(f->ex, "p"), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        break;
    case RS_EMPTY_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        g = "";
        break;
    default: fail();
    }
    size_t groups = xstats(f->ex).groups;
    int rc = groupconc_group_resume(ex, g);
    if (!ex || !g) return rc;
    if (rc == GROUPCONC_OK && (r->field == RS_UNKNOWN || r->field == RS_MAX_UNKNOWN)) { /* a no-op: no state made */
        assert_false(has_state(f->ex, g));
        assert_int_equal(xstats(f->ex).groups, groups);
    }
    if (rc == GROUPCONC_OK && r->field == RS_NOT_PAUSED) assert_p_untouched(f);
    if (rc == GROUPCONC_OK && (r->field == RS_PAUSED || r->field == RS_TWICE)) { /* the waiting task runs */
        assert_false(gstats(f->ex, "r").paused);
        assert_int_equal(xstats(f->ex).paused_groups, 0);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(f->extra[f->nextra - 1], BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    }
    if (rc == GROUPCONC_OK && r->field == RS_PAUSED_AFTER_SHUTDOWN) {
        assert_false(gstats(f->ex, "p").paused);
        assert_int_equal(xstats(f->ex).paused_groups, 0);
    }
    return rc;
}

enum { EP_NULL, EP_PAUSE, EP_TWICE, EP_AFTER_SHUTDOWN, ER_NULL, ER_NOT_PAUSED, ER_PAUSED, ER_AFTER_SHUTDOWN,
       ER_PAUSED_AFTER_SHUTDOWN, ER_GROUP_STAYS_PAUSED };

static int call_executor_pause(fixture *f, const row *r) {
    int rc;
    switch (r->field) {
    case EP_NULL: return groupconc_executor_pause(NULL);
    case ER_NULL: return groupconc_executor_resume(NULL);
    case EP_PAUSE:
    case EP_TWICE: {
        if (r->field == EP_TWICE) assert_int_equal(groupconc_executor_pause(f->ex), GROUPCONC_OK);
        rc = groupconc_executor_pause(f->ex);
        if (rc != GROUPCONC_OK) return rc;
        assert_true(xstats(f->ex).paused);
        assert_int_equal(xstats(f->ex).paused_groups, 0); /* the executor's pause is its own */
        /* nothing new starts: a task of a new group waits, and runs on resume */
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(f->ex, "ep", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
        add_extra(f, t);
        groupconc_result res;
        assert_int_equal(groupconc_task_wait_for(t, 50000000, &res), GROUPCONC_ETIMEDOUT);
        assert_int_equal(groupconc_executor_resume(f->ex), GROUPCONC_OK);
        assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
        assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        assert_false(xstats(f->ex).paused);
        return rc;
    }
    case EP_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        return groupconc_executor_pause(f->ex);
    case ER_NOT_PAUSED:
        rc = groupconc_executor_resume(f->ex);
        assert_false(xstats(f->ex).paused);
        assert_p_untouched(f);
        return rc;
    case ER_PAUSED: /* "p"'s queued task is handed its permit once the running one ends */
        assert_int_equal(groupconc_executor_pause(f->ex), GROUPCONC_OK);
        rc = groupconc_executor_resume(f->ex);
        assert_false(xstats(f->ex).paused);
        latch_open(&f->gate);
        {
            groupconc_result res;
            assert_int_equal(groupconc_task_wait_for(f->queued, BOUND_NS, &res), GROUPCONC_OK);
            assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
        }
        return rc;
    case ER_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        return groupconc_executor_resume(f->ex);
    case ER_PAUSED_AFTER_SHUTDOWN:
        assert_int_equal(groupconc_executor_pause(f->ex), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_shutdown(f->ex), GROUPCONC_OK);
        rc = groupconc_executor_resume(f->ex);
        if (rc == GROUPCONC_OK) assert_false(xstats(f->ex).paused);
        return rc;
    case ER_GROUP_STAYS_PAUSED: /* a group paused on its own stays paused after executor_resume */
        assert_int_equal(groupconc_group_pause(f->ex, "p"), GROUPCONC_OK);
        assert_int_equal(groupconc_executor_pause(f->ex), GROUPCONC_OK);
        rc = groupconc_executor_resume(f->ex);
        assert_true(gstats(f->ex, "p").paused);
        assert_int_equal(xstats(f->ex).paused_groups, 1);
        return rc;
    default: fail();
    }
    return 0;
}

/* ==== fleet layer ================================================================================ */
/* The fleet executor (tmp_ex): policy.fleet is the in-file provider (probe_*), the fixture's listener,
   and for the resolver rows fleet_resolver. Its task in "fl" asks the provider, which holds the
   request (index 0); a refused call must leave that task where it was: at the fleet layer, not
   completed, not run, the provider asked only as often as before, no lease granted or given back,
   nothing counted (fleet_open, rejected_fleet, fleet_renew_failed) and no FLEET event. Then the row
   answers GRANTED itself (finish_granted): the task runs once, and its lease comes back through
   release before the wait returns. A notify asks again on the calling thread before it returns (see
   groupconc_fleet_notify), so "not asked again" is read right after the call. */

enum { RO_NONE, RO_ANSWER, RO_NOTIFY, RO_REPORT };

/* A resolver that, when a row sets resolver_op, calls into its own executor: EDEADLK is promised. */
static int fleet_resolver(const char *group, int *out_concurrency, void *user_data) {
    fixture *f = user_data;
    (void)group;
    *out_concurrency = 1;
    int op = atomic_load(&f->fleet.resolver_op), rc;
    if (op == RO_NONE) return 0;
    atomic_fetch_add(&f->fleet.resolver_calls, 1);
    switch (op) {
    case RO_ANSWER: rc = groupconc_fleet_answer(f->fleet.resolver_req, GROUPCONC_FLEET_GRANTED, PROBE_LEASE); break;
    case RO_NOTIFY: rc = groupconc_fleet_notify(f->tmp_ex, "fl"); break;
    default: rc = groupconc_fleet_report(f->tmp_ex, "fl", GROUPCONC_EFLEET_RENEW); break;
    }
    atomic_store(&f->fleet.resolver_rc, rc);
    return 0;
}

static groupconc_executor *make_fleet_ex(fixture *f, bool with_resolver) {
    groupconc_policy p = groupconc_policy_default();
    p.max_threads = 2;
    p.listener = listener;
    p.listener_user_data = f;
    p.fleet = probe_provider(f);
    if (with_resolver) {
        p.resolver = fleet_resolver;
        p.resolver_user_data = f;
    }
    assert_int_equal(groupconc_executor_create(&p, &f->tmp_ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&f->fleet.attaches), 1);
    return f->tmp_ex;
}

/* Request i the provider holds (it was asked for "fl"). */
static groupconc_fleet_request *probe_req(fixture *f, int i) {
    if (!counter_wait(&f->fleet.asked, i + 1)) fail_msg("the provider was not asked for request %d", i);
    pthread_mutex_lock(&f->fleet.asked.mu);
    groupconc_fleet_request *req = i < f->fleet.nreqs ? f->fleet.reqs[i] : NULL;
    bool fl = i < f->fleet.nreqs && strcmp(f->fleet.groups[i], "fl") == 0;
    pthread_mutex_unlock(&f->fleet.asked.mu);
    if (!req || !fl) fail_msg("request %d: not held, or not for \"fl\"", i);
    return req;
}

/* The request was answered (by the row, or by a call that should have refused): forget it, so the
   teardown does not answer it twice; a GRANTED lease must come back. */
static void probe_forget(fixture *f, int i, groupconc_fleet_verdict verdict) {
    pthread_mutex_lock(&f->fleet.asked.mu);
    f->fleet.reqs[i] = NULL;
    pthread_mutex_unlock(&f->fleet.asked.mu);
    if (verdict == GROUPCONC_FLEET_GRANTED) atomic_fetch_add(&f->fleet.grants, 1);
}

static void probe_answer(fixture *f, int i, groupconc_fleet_verdict verdict, uint64_t lease) {
    int rc = groupconc_fleet_answer(probe_req(f, i), verdict, lease);
    if (rc != GROUPCONC_OK) fail_msg("fleet_answer(request %d, %d): %s", i, (int)verdict, groupconc_errname(rc));
    probe_forget(f, i, verdict);
}

/* A task in "fl" on the fleet executor, asking: the provider holds its request 0. */
static groupconc_task *submit_asking(fixture *f) {
    groupconc_task *t = NULL;
    assert_int_equal(groupconc_submit(f->tmp_ex, "fl", NULL, task_count, &f->runs, &t), GROUPCONC_OK);
    add_extra(f, t);
    (void)probe_req(f, 0);
    return t;
}

/* Nothing happened at the fleet layer: t still waits there (asked, or BUSY), the provider was asked
   `asked` times, no lease granted or given back, nothing counted, no FLEET event, nothing ran. */
static void assert_fleet_waiting(fixture *f, groupconc_task *t, int asked) {
    bool d = true;
    assert_int_equal(groupconc_task_is_done(t, &d), GROUPCONC_OK);
    if (d) fail_msg("the task at the fleet layer completed");
    groupconc_executor_stats s;
    assert_int_equal(groupconc_executor_stats_get(f->tmp_ex, &s), GROUPCONC_OK);
    if (s.waiting_fleet != 1 || s.rejected_fleet != 0 || s.fleet_open != 0 || s.fleet_renew_failed != 0)
        fail_msg("stats: waiting_fleet %zu (want 1), rejected_fleet %llu, fleet_open %llu, fleet_renew_failed %llu",
                 s.waiting_fleet, (unsigned long long)s.rejected_fleet, (unsigned long long)s.fleet_open,
                 (unsigned long long)s.fleet_renew_failed);
    if (counter_get(&f->fleet.asked) != asked) fail_msg("provider asked %d times, want %d", counter_get(&f->fleet.asked), asked);
    if (atomic_load(&f->fleet.grants) || atomic_load(&f->fleet.releases) || atomic_load(&f->fleet.events) ||
        atomic_load(&f->runs))
        fail_msg("granted %d, released %d, FLEET events %d, runs %d: want none", atomic_load(&f->fleet.grants),
                 atomic_load(&f->fleet.releases), atomic_load(&f->fleet.events), atomic_load(&f->runs));
}

/* Answer request i GRANTED: t runs once and succeeds, its lease came back (for "fl") before the wait
   returned, and nothing waits at the fleet layer any more. */
static void finish_granted(fixture *f, groupconc_task *t, int i) {
    uint64_t lease = PROBE_LEASE + (uint64_t)i;
    probe_answer(f, i, GROUPCONC_FLEET_GRANTED, lease);
    groupconc_result res;
    assert_int_equal(groupconc_task_wait_for(t, BOUND_NS, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&f->runs), 1);
    assert_int_equal(atomic_load(&f->fleet.releases), 1);
    pthread_mutex_lock(&f->fleet.asked.mu);
    uint64_t got = f->fleet.last_lease;
    bool fl = strcmp(f->fleet.released_group, "fl") == 0;
    pthread_mutex_unlock(&f->fleet.asked.mu);
    if (got != lease || !fl) fail_msg("release got lease %llx, want %llx for \"fl\"", (unsigned long long)got,
                                      (unsigned long long)lease);
    groupconc_executor_stats s;
    assert_int_equal(groupconc_executor_stats_get(f->tmp_ex, &s), GROUPCONC_OK);
    assert_int_equal(s.waiting_fleet, 0);
}

/* Run fleet_resolver with `op` on this thread, once: put "fl"'s concurrency back to GROUPCONC_DEFAULT
   (the resolver runs again, under the executor's locks: a call that waited for them would hang, so
   the watchdog aborts instead). What op's call returned there. */
static int in_resolver(fixture *f, int op, groupconc_fleet_request *req) {
    static const char *const what[] = {"", "groupconc_fleet_answer from the resolver",
                                       "groupconc_fleet_notify from the resolver",
                                       "groupconc_fleet_report from the resolver"};
    f->fleet.resolver_req = req;
    atomic_store(&f->fleet.resolver_rc, INT_MIN);
    atomic_store(&f->fleet.resolver_op, op);
    groupconc_group_limits l = groupconc_group_limits_keep("fl");
    l.concurrency = GROUPCONC_DEFAULT;
    watchdog w;
    watchdog_start(&w, what[op]);
    int rc = groupconc_group_limits_set(f->tmp_ex, &l);
    watchdog_stop(&w);
    atomic_store(&f->fleet.resolver_op, RO_NONE);
    assert_int_equal(rc, GROUPCONC_OK);
    assert_int_equal(atomic_load(&f->fleet.resolver_calls), 1);
    return atomic_load(&f->fleet.resolver_rc);
}

/* ---- groupconc_fleet_answer --------------------------------------------------------------------- */

enum { FA_NULL, FA_VERDICT, FA_IN_RESOLVER };

static int call_fleet_answer(fixture *f, const row *r) {
    make_fleet_ex(f, r->field == FA_IN_RESOLVER);
    groupconc_task *t = submit_asking(f);
    groupconc_fleet_request *req = probe_req(f, 0);
    int rc = INT_MIN; /* every case sets it (fail() is not noreturn) */
    switch (r->field) {
    case FA_NULL: rc = groupconc_fleet_answer(NULL, GROUPCONC_FLEET_GRANTED, PROBE_LEASE); break;
    case FA_VERDICT: rc = groupconc_fleet_answer(req, (groupconc_fleet_verdict)r->value, PROBE_LEASE); break;
    case FA_IN_RESOLVER: rc = in_resolver(f, RO_ANSWER, req); break;
    default: fail();
    }
    if (rc == GROUPCONC_OK && r->field != FA_NULL) { /* answered after all: never answer it again */
        probe_forget(f, 0, r->field == FA_IN_RESOLVER ? GROUPCONC_FLEET_GRANTED : (groupconc_fleet_verdict)r->value);
        return rc;
    }
    assert_fleet_waiting(f, t, 1); /* unanswered: still asking */
    finish_granted(f, t, 0);
    return rc;
}

/* ---- groupconc_fleet_notify --------------------------------------------------------------------- */

enum { FN_NULL_EX, FN_NO_PROVIDER, FN_EMPTY, FN_LONG, FN_NULL_GROUP, FN_MAX_KEY, FN_IN_RESOLVER };

static int call_fleet_notify(fixture *f, const row *r) {
    if (r->field == FN_NO_PROVIDER) { /* the fixture's executor; value 1: group NULL */
        int rc = groupconc_fleet_notify(f->ex, r->value ? NULL : "p");
        assert_p_untouched(f);
        assert_int_equal(counter_get(&f->fleet.asked), 0);
        assert_int_equal(atomic_load(&f->fleet.events), 0);
        return rc;
    }
    make_fleet_ex(f, r->field == FN_IN_RESOLVER);
    groupconc_task *t = submit_asking(f);
    probe_answer(f, 0, GROUPCONC_FLEET_BUSY, 0); /* t waits for a notify of "fl" */
    assert_fleet_waiting(f, t, 1);
    groupconc_executor *ex = f->tmp_ex;
    int rc = INT_MIN; /* every case sets it (fail() is not noreturn) */
    switch (r->field) {
    case FN_NULL_EX: rc = groupconc_fleet_notify(NULL, "fl"); break;
    case FN_EMPTY: rc = groupconc_fleet_notify(ex, ""); break;
    case FN_LONG: rc = groupconc_fleet_notify(ex, f->long_key); break;
    case FN_NULL_GROUP: rc = groupconc_fleet_notify(ex, NULL); break;
    case FN_MAX_KEY: rc = groupconc_fleet_notify(ex, f->max_key); break;
    case FN_IN_RESOLVER: rc = in_resolver(f, RO_NOTIFY, NULL); break;
    default: fail();
    }
    if (r->field != FN_NULL_GROUP) {
        assert_fleet_waiting(f, t, 1); /* not asked again */
        if (r->field == FN_MAX_KEY) assert_false(has_state(ex, f->max_key));
        assert_int_equal(groupconc_fleet_notify(ex, "fl"), GROUPCONC_OK); /* now the right one */
    }
    if (counter_get(&f->fleet.asked) != 2) /* asked again on this thread, before the notify returned */
        fail_msg("after the notify of \"fl\" the provider was asked %d times, want 2", counter_get(&f->fleet.asked));
    finish_granted(f, t, 1);
    return rc;
}

/* executor_create whose provider's attach refuses: create returns its code (a positive one as
   GROUPCONC_EINVAL), makes nothing (*out NULL, no detach, nothing leaked: the teardown checks). */
static int call_create_attach_refuses(fixture *f, const row *r) {
    groupconc_policy p = groupconc_policy_default();
    p.fleet = probe_provider(f);
    atomic_store(&f->fleet.attach_rc, (int)r->value);
    groupconc_executor *ex = (groupconc_executor *)(uintptr_t)1;
    int rc = groupconc_executor_create(&p, &ex);
    atomic_store(&f->fleet.attach_rc, GROUPCONC_OK);
    assert_null(ex);
    if (atomic_load(&f->fleet.refused) != 1 || atomic_load(&f->fleet.attaches) != 0 ||
        atomic_load(&f->fleet.detaches) != 0)
        fail_msg("attach refused %d times, attached %d, detached %d", atomic_load(&f->fleet.refused),
                 atomic_load(&f->fleet.attaches), atomic_load(&f->fleet.detaches));
    return rc;
}

/* ---- groupconc_fleet_report --------------------------------------------------------------------- */

enum { FP_NULL_EX, FP_REASON, FP_EMPTY, FP_LONG, FP_NULL_GROUP, FP_MAX_KEY, FP_IN_RESOLVER, FP_NO_PROVIDER };

static int call_fleet_report(fixture *f, const row *r) {
    groupconc_executor *ex = make_fleet_ex(f, r->field == FP_IN_RESOLVER);
    groupconc_task *t = NULL;
    if (r->field == FP_IN_RESOLVER) t = submit_asking(f); /* "fl" has state: the resolver can run again */
    int rc = INT_MIN; /* every case sets it */
    const char *group = "fl";
    switch (r->field) {
    case FP_NULL_EX: rc = groupconc_fleet_report(NULL, group, GROUPCONC_EFLEET_RENEW); break;
    case FP_REASON: rc = groupconc_fleet_report(ex, group, (int)r->value); break;
    case FP_EMPTY: rc = groupconc_fleet_report(ex, group = "", GROUPCONC_EFLEET_RENEW); break;
    case FP_LONG: rc = groupconc_fleet_report(ex, group = f->long_key, GROUPCONC_EFLEET_RENEW); break;
    case FP_NULL_GROUP: rc = groupconc_fleet_report(ex, group = NULL, GROUPCONC_EFLEET_RENEW); break;
    case FP_MAX_KEY: rc = groupconc_fleet_report(ex, group = f->max_key, GROUPCONC_EFLEET_RENEW); break;
    case FP_IN_RESOLVER: rc = in_resolver(f, RO_REPORT, NULL); break;
    case FP_NO_PROVIDER: { /* the fixture's executor has no fleet layer: nothing counted there */
        rc = groupconc_fleet_report(f->ex, group, GROUPCONC_EFLEET_RENEW);
        groupconc_executor_stats fs;
        assert_int_equal(groupconc_executor_stats_get(f->ex, &fs), GROUPCONC_OK);
        assert_int_equal(fs.fleet_renew_failed, 0);
        break;
    }
    default: fail();
    }
    groupconc_executor_stats s;
    assert_int_equal(groupconc_executor_stats_get(ex, &s), GROUPCONC_OK);
    int want = rc == GROUPCONC_OK ? 1 : 0; /* accepted: counted once, one FLEET event (on this thread) */
    if (s.fleet_renew_failed != (uint64_t)want || atomic_load(&f->fleet.events) != want)
        fail_msg("report returned %s: fleet_renew_failed %llu, FLEET events %d, want %d", groupconc_errname(rc),
                 (unsigned long long)s.fleet_renew_failed, atomic_load(&f->fleet.events), want);
    if (rc == GROUPCONC_OK) { /* the event carries the reason and the group as given */
        pthread_mutex_lock(&f->fleet.asked.mu);
        int reason = f->fleet.ev_reason;
        bool same = group ? !f->fleet.ev_group_null && strcmp(f->fleet.ev_group, group) == 0 : f->fleet.ev_group_null;
        pthread_mutex_unlock(&f->fleet.asked.mu);
        if (reason != GROUPCONC_EFLEET_RENEW || !same)
            fail_msg("FLEET event: reason %s, group %s", groupconc_errname(reason), same ? "as given" : "not as given");
        if (group) assert_false(has_state(ex, group)); /* a report makes no group state */
    }
    if (s.fleet_open != 0 || s.rejected_fleet != 0 || atomic_load(&f->fleet.grants) || atomic_load(&f->fleet.releases))
        fail_msg("report changed the fleet counts");
    if (t) {
        assert_fleet_waiting(f, t, 1);
        finish_granted(f, t, 0);
    } else {
        assert_int_equal(counter_get(&f->fleet.asked), 0);
    }
    return rc;
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

/* The thirteen codes added with the live limits, queue deadlines, the bounded table, the fleet layer
   and the scope policy's refusal, written out (not taken from GROUPCONC_ERRNO_MAP, as the per-code
   rows are): value, name, a text that is not the unknown fallback, that no other code shares and
   that names its subject (the layer, the bound, the fleet layer's refusal, failing open, the
   renewal or the scope's policy); the codes stay contiguous (0 .. -41), so -42 is the first unknown
   value (its own row above). */
static int call_new_codes(fixture *f, const row *r) {
    (void)f, (void)r;
    static const struct {
        int code, value;
        const char *name;
        const char *subject; /* in its text */
    } added[] = {
        {GROUPCONC_EREJECTED_RUNNING, -29, "GROUPCONC_EREJECTED_RUNNING", "global running layer"},
        {GROUPCONC_EREJECTED_WAITING, -30, "GROUPCONC_EREJECTED_WAITING", "waiting"},
        {GROUPCONC_EEXPIRED_GLOBAL, -31, "GROUPCONC_EEXPIRED_GLOBAL", "global in-flight layer"},
        {GROUPCONC_EEXPIRED_BULKHEAD, -32, "GROUPCONC_EEXPIRED_BULKHEAD", "group bulkhead layer"},
        {GROUPCONC_EEXPIRED_CONCURRENCY, -33, "GROUPCONC_EEXPIRED_CONCURRENCY", "group concurrency layer"},
        {GROUPCONC_EEXPIRED_RUNNING, -34, "GROUPCONC_EEXPIRED_RUNNING", "global running layer"},
        {GROUPCONC_EGROUPS_FULL, -35, "GROUPCONC_EGROUPS_FULL", "max_groups"},
        {GROUPCONC_EPAUSED, -36, "GROUPCONC_EPAUSED", "paused"},
        {GROUPCONC_EREJECTED_FLEET, -37, "GROUPCONC_EREJECTED_FLEET", "rejected at the fleet layer"},
        {GROUPCONC_EEXPIRED_FLEET, -38, "GROUPCONC_EEXPIRED_FLEET", "at the fleet layer"},
        {GROUPCONC_EFLEET_OPEN, -39, "GROUPCONC_EFLEET_OPEN", "fleet layer failed open"},
        {GROUPCONC_EFLEET_RENEW, -40, "GROUPCONC_EFLEET_RENEW", "fleet lease renewal"},
        {GROUPCONC_ESCOPE_POLICY, -41, "GROUPCONC_ESCOPE_POLICY", "scope's policy"},
    };
    const char *unknown_text = groupconc_strerror(-42), *unknown_name = groupconc_errname(-42);
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
        int c = added[i].code;
        if (c != added[i].value) fail_msg("%s is %d, want %d (codes are never renumbered)", added[i].name, c, added[i].value);
        const char *name = groupconc_errname(c), *text = groupconc_strerror(c);
        if (!name || strcmp(name, added[i].name) != 0) fail_msg("errname(%d) = \"%s\", want \"%s\"", c, name ? name : "(null)", added[i].name);
        if (!text || text[0] == '\0' || contains_unknown(text) || strcmp(text, unknown_text) == 0)
            fail_msg("strerror(%s) = \"%s\": the unknown fallback", added[i].name, text ? text : "(null)");
        if (!strstr(text, added[i].subject))
            fail_msg("strerror(%s) = \"%s\" does not say \"%s\"", added[i].name, text, added[i].subject);
        assert_string_not_equal(name, unknown_name);
        for (int other = 0; other >= -41; other--)
            if (other != c && strcmp(groupconc_strerror(other), text) == 0)
                fail_msg("strerror(%s) and strerror(%d) share \"%s\"", added[i].name, other, text);
    }
    /* contiguous: every value 0 .. -41 is a code (the X-macro list has exactly these) */
    assert_int_equal(NCODES, 42);
    for (int v = 0; v >= -41; v--)
        if (contains_unknown(groupconc_errname(v))) fail_msg("%d has no name", v);
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
    const char *names[][4] = {
        {groupconc_cancel_outcome_name(GROUPCONC_CANCEL_DEQUEUED), groupconc_cancel_outcome_name(GROUPCONC_CANCEL_FLAGGED),
         groupconc_cancel_outcome_name(GROUPCONC_CANCEL_TOO_LATE), NULL},
        {groupconc_event_type_name(GROUPCONC_EVENT_SUBMITTED), groupconc_event_type_name(GROUPCONC_EVENT_STARTED),
         groupconc_event_type_name(GROUPCONC_EVENT_COMPLETED), groupconc_event_type_name(GROUPCONC_EVENT_REJECTED)},
        {groupconc_rejection_policy_name(GROUPCONC_REJECT_ABORT), groupconc_rejection_policy_name(GROUPCONC_REJECT_DISCARD),
         groupconc_rejection_policy_name(GROUPCONC_REJECT_CALLER_RUNS), NULL},
#ifndef GROUPCONC_NO_GATE
        {groupconc_release_kind_name(GROUPCONC_RELEASE_SUCCESS), groupconc_release_kind_name(GROUPCONC_RELEASE_FAILURE),
         groupconc_release_kind_name(GROUPCONC_RELEASE_CANCELLED), NULL},
        {groupconc_gate_event_type_name(GROUPCONC_GATE_ADMITTED), groupconc_gate_event_type_name(GROUPCONC_GATE_REJECTED),
         groupconc_gate_event_type_name(GROUPCONC_GATE_RELEASED), NULL},
#endif
    };
    for (size_t e = 0; e < sizeof names / sizeof names[0]; e++)
        for (int i = 0; i < 4 && names[e][i]; i++) {
            assert_true(names[e][i][0] != '\0');
            assert_string_not_equal(names[e][i], "UNKNOWN");
            for (int j = 0; j < i; j++) assert_string_not_equal(names[e][i], names[e][j]);
        }
    assert_string_equal(groupconc_cancel_outcome_name((groupconc_cancel_outcome)-1), "UNKNOWN");
    assert_string_equal(groupconc_event_type_name(GROUPCONC_EVENT_FLEET), "FLEET");
    assert_string_equal(groupconc_event_type_name((groupconc_event_type)5), "UNKNOWN");
    assert_string_equal(groupconc_rejection_policy_name((groupconc_rejection_policy)3), "UNKNOWN");
#ifndef GROUPCONC_NO_GATE
    /* the gate's enums: the documented names, "UNKNOWN" just past either end and far out */
    assert_string_equal(groupconc_release_kind_name(GROUPCONC_RELEASE_SUCCESS), "SUCCESS");
    assert_string_equal(groupconc_release_kind_name(GROUPCONC_RELEASE_FAILURE), "FAILURE");
    assert_string_equal(groupconc_release_kind_name(GROUPCONC_RELEASE_CANCELLED), "CANCELLED");
    assert_string_equal(groupconc_gate_event_type_name(GROUPCONC_GATE_ADMITTED), "ADMITTED");
    assert_string_equal(groupconc_gate_event_type_name(GROUPCONC_GATE_REJECTED), "REJECTED");
    assert_string_equal(groupconc_gate_event_type_name(GROUPCONC_GATE_RELEASED), "RELEASED");
    static const int out_of_range[] = {3, -1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        assert_string_equal(groupconc_release_kind_name((groupconc_release_kind)out_of_range[i]), "UNKNOWN");
        assert_string_equal(groupconc_gate_event_type_name((groupconc_gate_event_type)out_of_range[i]), "UNKNOWN");
    }
#endif
    return GROUPCONC_OK;
}

/* groupconc_fleet_verdict_name (issue 23 item 12: every enum has a *_name): the documented names,
   "UNKNOWN" just past either end and far out. */
static int call_fleet_verdict_names(fixture *f, const row *r) {
    (void)f, (void)r;
    assert_string_equal(groupconc_fleet_verdict_name(GROUPCONC_FLEET_GRANTED), "GRANTED");
    assert_string_equal(groupconc_fleet_verdict_name(GROUPCONC_FLEET_BUSY), "BUSY");
    assert_string_equal(groupconc_fleet_verdict_name(GROUPCONC_FLEET_REJECT), "REJECT");
    assert_string_equal(groupconc_fleet_verdict_name(GROUPCONC_FLEET_OPEN), "OPEN");
    static const int out_of_range[] = {4, -1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++)
        assert_string_equal(groupconc_fleet_verdict_name((groupconc_fleet_verdict)out_of_range[i]), "UNKNOWN");
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
#define KEEP_ GROUPCONC_KEEP

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
    {"create: global_max_running 0", call_policy, ELIMIT_, P_GRUN, 0, 0},
    {"create: global_max_running DEFAULT", call_policy, ELIMIT_, P_GRUN, DEF, 0},
    {"create: global_max_running KEEP", call_policy, ELIMIT_, P_GRUN, KEEP_, 0},
    {"create: global_max_running INT_MIN", call_policy, ELIMIT_, P_GRUN, INT_MIN, 0},
    {"create: global_max_running 1", call_policy, OK_, P_GRUN, 1, 0},
    {"create: global_max_running UNLIMITED", call_policy, OK_, P_GRUN, UNL, 0},
    {"create: max_waiting DEFAULT", call_policy, ELIMIT_, P_MAXWAITING, DEF, 0},
    {"create: max_waiting -4", call_policy, ELIMIT_, P_MAXWAITING, -4, 0},
    {"create: max_waiting INT_MIN", call_policy, ELIMIT_, P_MAXWAITING, INT_MIN, 0},
    {"create: max_waiting 0", call_policy, OK_, P_MAXWAITING, 0, 0},
    {"create: max_waiting UNLIMITED", call_policy, OK_, P_MAXWAITING, UNL, 0},
    {"create: default_max_wait_ns 0", call_policy, ELIMIT_, P_DEFWAIT, 0, 0},
    {"create: default_max_wait_ns DEFAULT", call_policy, ELIMIT_, P_DEFWAIT, DEF, 0},
    {"create: default_max_wait_ns -7", call_policy, ELIMIT_, P_DEFWAIT, -7, 0},
    {"create: default_max_wait_ns INT64_MIN", call_policy, ELIMIT_, P_DEFWAIT, INT64_MIN, 0},
    {"create: default_max_wait_ns 1", call_policy, OK_, P_DEFWAIT, 1, 0},
    {"create: default_max_wait_ns 5 s", call_policy, OK_, P_DEFWAIT, INT64_C(5000000000), 0},
    {"create: default_max_wait_ns INT64_MAX", call_policy, OK_, P_DEFWAIT, INT64_MAX, 0},
    {"create: default_max_wait_ns FOREVER", call_policy, OK_, P_DEFWAIT, GROUPCONC_FOREVER, 0},
    {"create: max_groups 0", call_policy, ELIMIT_, P_MAXGROUPS, 0, 0},
    {"create: max_groups DEFAULT", call_policy, ELIMIT_, P_MAXGROUPS, DEF, 0},
    {"create: max_groups INT_MIN", call_policy, ELIMIT_, P_MAXGROUPS, INT_MIN, 0},
    {"create: max_groups 1", call_policy, OK_, P_MAXGROUPS, 1, 0},
    {"create: max_groups UNLIMITED", call_policy, OK_, P_MAXGROUPS, UNL, 0},
    {"create: group_idle_ns 0", call_policy, ELIMIT_, P_IDLE, 0, 0},
    {"create: group_idle_ns DEFAULT", call_policy, ELIMIT_, P_IDLE, DEF, 0},
    {"create: group_idle_ns -7", call_policy, ELIMIT_, P_IDLE, -7, 0},
    {"create: group_idle_ns INT64_MIN", call_policy, ELIMIT_, P_IDLE, INT64_MIN, 0},
    {"create: group_idle_ns 1 ms", call_policy, OK_, P_IDLE, 1000000, 0},
    {"create: group_idle_ns FOREVER", call_policy, OK_, P_IDLE, GROUPCONC_FOREVER, 0},
    {"create: fleet.acquire set, fleet.release NULL (never attached)", call_policy, EINVAL_, P_FLEET, FL_ACQUIRE_ONLY, 0},
    {"create: fleet.release set, fleet.acquire NULL (never attached)", call_policy, EINVAL_, P_FLEET, FL_RELEASE_ONLY, 0},
    {"create: fleet.acquire and fleet.release set", call_policy, OK_, P_FLEET, FL_BOTH, 0},
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
    {"table: concurrency KEEP (not a policy value)", call_table, ELIMIT_, T_CONC, KEEP_, 1},
    {"table: max_in_flight KEEP", call_table, ELIMIT_, T_INFL, KEEP_, 1},
    {"table: queue_threshold KEEP", call_table, ELIMIT_, T_THR, KEEP_, 1},
    {"table: max_wait_ns -7", call_table, ELIMIT_, T_WAIT, -7, 1},
    {"table: max_wait_ns KEEP", call_table, ELIMIT_, T_WAIT, KEEP_, 1},
    {"table: max_wait_ns INT64_MIN", call_table, ELIMIT_, T_WAIT, INT64_MIN, 2},
    {"table: max_wait_ns -7 in entry 0", call_table, ELIMIT_, T_WAIT, -7, 0},
    {"table: max_wait_ns 0 (the policy default)", call_table, OK_, T_WAIT, 0, 1},
    {"table: max_wait_ns DEFAULT", call_table, OK_, T_WAIT, DEF, 1},
    {"table: max_wait_ns FOREVER", call_table, OK_, T_WAIT, GROUPCONC_FOREVER, 1},
    {"table: max_wait_ns 5 s", call_table, OK_, T_WAIT, INT64_C(5000000000), 0},
    {"table: max_wait_ns INT64_MAX", call_table, OK_, T_WAIT, INT64_MAX, 2},
    /* policy_check */
    {"policy_check: policy NULL", call_policy_check, EINVAL_, C_POLICY_NULL, 0, 0},
    {"policy_check: out_problem NULL (allowed)", call_policy_check, OK_, C_OUT_NULL, 0, 0},
    {"policy_check: out_problem NULL, default_concurrency 0", call_policy_check, ELIMIT_, C_OUT_NULL_BAD, 0, 0},
    {"policy_check: default_concurrency 0", call_policy_check, ELIMIT_, C_CONC, 0, 0},
    {"policy_check: default_concurrency UNLIMITED", call_policy_check, ELIMIT_, C_CONC, UNL, 0},
    {"policy_check: default_concurrency INT_MIN", call_policy_check, ELIMIT_, C_CONC, INT_MIN, 0},
    {"policy_check: default_concurrency INT_MAX", call_policy_check, OK_, C_CONC, INT_MAX, 0},
    {"policy_check: default_max_in_flight 0", call_policy_check, ELIMIT_, C_INFL, 0, 0},
    {"policy_check: default_max_in_flight DEFAULT", call_policy_check, ELIMIT_, C_INFL, DEF, 0},
    {"policy_check: default_queue_threshold -3", call_policy_check, ELIMIT_, C_THR, -3, 0},
    {"policy_check: default_queue_threshold DEFAULT", call_policy_check, ELIMIT_, C_THR, DEF, 0},
    {"policy_check: global_max_in_flight -5", call_policy_check, ELIMIT_, C_GINFL, -5, 0},
    {"policy_check: global_max_in_flight 0", call_policy_check, ELIMIT_, C_GINFL, 0, 0},
    {"policy_check: global_queue_threshold INT_MIN", call_policy_check, ELIMIT_, C_GTHR, INT_MIN, 0},
    {"policy_check: global_queue_threshold DEFAULT", call_policy_check, ELIMIT_, C_GTHR, DEF, 0},
    {"policy_check: max_threads 0", call_policy_check, ELIMIT_, C_THREADS, 0, 0},
    {"policy_check: max_threads INT_MIN", call_policy_check, ELIMIT_, C_THREADS, INT_MIN, 0},
    {"policy_check: keep_alive_ns -1", call_policy_check, ELIMIT_, C_KEEPALIVE, -1, 0},
    {"policy_check: keep_alive_ns INT64_MIN", call_policy_check, ELIMIT_, C_KEEPALIVE, INT64_MIN, 0},
    {"policy_check: rejection 3 (unknown)", call_policy_check, GROUPCONC_EPOLICY, C_REJECTION, 3, 0},
    {"policy_check: rejection -1 (unknown)", call_policy_check, GROUPCONC_EPOLICY, C_REJECTION, -1, 0},
    {"policy_check: rejection 1000 with a reject_handler", call_policy_check, GROUPCONC_EPOLICY,
     C_REJECTION_WITH_HANDLER, 1000, 0},
    {"policy_check: groups NULL, count 2", call_policy_check, EINVAL_, C_GROUPS_NULL, 0, 0},
    {"policy_check: groups[1] key NULL", call_policy_check, EINVAL_, C_KEY_NULL, 0, 1},
    {"policy_check: groups[1] key empty", call_policy_check, GROUPCONC_EKEYEMPTY, C_KEY_EMPTY, 0, 1},
    {"policy_check: groups[2] key MAX_KEY_LEN+1 bytes", call_policy_check, GROUPCONC_EKEYTOOLONG, C_KEY_LONG, 0, 2},
    {"policy_check: groups[0] key MAX_KEY_LEN+1 bytes", call_policy_check, GROUPCONC_EKEYTOOLONG, C_KEY_LONG, 0, 0},
    {"policy_check: groups[2] key MAX_KEY_LEN bytes", call_policy_check, OK_, C_KEY_MAX, 0, 2},
    {"policy_check: groups[1] key same as groups[0]", call_policy_check, GROUPCONC_EDUPKEY, C_KEY_DUP_FIRST, 0, 1},
    {"policy_check: groups[2] key same as groups[0]", call_policy_check, GROUPCONC_EDUPKEY, C_KEY_DUP_FIRST, 0, 2},
    {"policy_check: groups[2] key same as groups[1]", call_policy_check, GROUPCONC_EDUPKEY, C_KEY_DUP_PREV, 0, 2},
    {"policy_check: groups[1].concurrency 0", call_policy_check, ELIMIT_, C_ENTRY_CONC, 0, 1},
    {"policy_check: groups[2].concurrency UNLIMITED", call_policy_check, ELIMIT_, C_ENTRY_CONC, UNL, 2},
    {"policy_check: groups[0].concurrency INT_MIN", call_policy_check, ELIMIT_, C_ENTRY_CONC, INT_MIN, 0},
    {"policy_check: groups[1].max_in_flight 0", call_policy_check, ELIMIT_, C_ENTRY_INFL, 0, 1},
    {"policy_check: groups[0].max_in_flight -3", call_policy_check, ELIMIT_, C_ENTRY_INFL, -3, 0},
    {"policy_check: groups[2].queue_threshold -3", call_policy_check, ELIMIT_, C_ENTRY_THR, -3, 2},
    {"policy_check: groups[1].queue_threshold INT_MIN", call_policy_check, ELIMIT_, C_ENTRY_THR, INT_MIN, 1},
    {"policy_check: resolver, reject_handler, listener set (valid)", call_policy_check, OK_, C_CALLBACKS_SET, 0, 0},
    {"policy_check: every limit at its minimum (valid)", call_policy_check, OK_, C_MINIMA, 0, 0},
    {"policy_check: several bad fields: max_threads reported first", call_policy_check, ELIMIT_, C_FIRST_POLICY, 0, 0},
    {"policy_check: several bad entries: the first in table order", call_policy_check, ELIMIT_, C_FIRST_TABLE, -7, 1},
    {"policy_check: global_max_running 0", call_policy_check, ELIMIT_, C_GRUN, 0, 0},
    {"policy_check: global_max_running -4", call_policy_check, ELIMIT_, C_GRUN, -4, 0},
    {"policy_check: global_max_running KEEP", call_policy_check, ELIMIT_, C_GRUN, KEEP_, 0},
    {"policy_check: global_max_running UNLIMITED", call_policy_check, OK_, C_GRUN, UNL, 0},
    {"policy_check: max_waiting -4", call_policy_check, ELIMIT_, C_MAXWAITING, -4, 0},
    {"policy_check: max_waiting DEFAULT", call_policy_check, ELIMIT_, C_MAXWAITING, DEF, 0},
    {"policy_check: max_waiting 0", call_policy_check, OK_, C_MAXWAITING, 0, 0},
    {"policy_check: default_max_wait_ns 0", call_policy_check, ELIMIT_, C_DEFWAIT, 0, 0},
    {"policy_check: default_max_wait_ns -7", call_policy_check, ELIMIT_, C_DEFWAIT, -7, 0},
    {"policy_check: default_max_wait_ns DEFAULT", call_policy_check, ELIMIT_, C_DEFWAIT, DEF, 0},
    {"policy_check: default_max_wait_ns INT64_MIN", call_policy_check, ELIMIT_, C_DEFWAIT, INT64_MIN, 0},
    {"policy_check: default_max_wait_ns FOREVER", call_policy_check, OK_, C_DEFWAIT, GROUPCONC_FOREVER, 0},
    {"policy_check: max_groups 0", call_policy_check, ELIMIT_, C_MAXGROUPS, 0, 0},
    {"policy_check: max_groups -4", call_policy_check, ELIMIT_, C_MAXGROUPS, -4, 0},
    {"policy_check: max_groups KEEP", call_policy_check, ELIMIT_, C_MAXGROUPS, KEEP_, 0},
    {"policy_check: group_idle_ns 0", call_policy_check, ELIMIT_, C_IDLE, 0, 0},
    {"policy_check: group_idle_ns -7", call_policy_check, ELIMIT_, C_IDLE, -7, 0},
    {"policy_check: group_idle_ns INT64_MIN", call_policy_check, ELIMIT_, C_IDLE, INT64_MIN, 0},
    {"policy_check: groups[1].max_wait_ns -7", call_policy_check, ELIMIT_, C_ENTRY_WAIT, -7, 1},
    {"policy_check: groups[0].max_wait_ns KEEP", call_policy_check, ELIMIT_, C_ENTRY_WAIT, KEEP_, 0},
    {"policy_check: groups[2].max_wait_ns INT64_MIN", call_policy_check, ELIMIT_, C_ENTRY_WAIT, INT64_MIN, 2},
    {"policy_check: groups[1].max_wait_ns DEFAULT", call_policy_check, OK_, C_ENTRY_WAIT, DEF, 1},
    {"executor_create: fleet.attach returns EBUSY", call_create_attach_refuses, GROUPCONC_EBUSY, 0, GROUPCONC_EBUSY, 0},
    {"executor_create: fleet.attach returns 5 (not a code: EINVAL)", call_create_attach_refuses, EINVAL_, 0, 5, 0},
    {"policy_check: fleet.acquire set, fleet.release NULL", call_policy_check, EINVAL_, C_FLEET_ACQUIRE_ONLY, 0, 0},
    {"policy_check: fleet.release set, fleet.acquire NULL", call_policy_check, EINVAL_, C_FLEET_RELEASE_ONLY, 0, 0},
    {"policy_check: fleet.acquire and fleet.release set (valid)", call_policy_check, OK_, C_FLEET_BOTH, 0, 0},
    {"policy_check: fleet.release NULL, rejection and a key bad: fleet reported first", call_policy_check, EINVAL_,
     C_FIRST_FLEET, 0, 0},
    {"policy_check: group_idle_ns 0 and fleet.acquire NULL: group_idle_ns first", call_policy_check, ELIMIT_,
     C_BEFORE_FLEET, 0, 0},
    {"policy_check: every new limit at its minimum (valid)", call_policy_check, OK_, C_MINIMA_NEW, 0, 0},
    {"policy_check: max_groups 0 before rejection and the table", call_policy_check, ELIMIT_, C_FIRST_NEW, 0, 0},
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
    {"submit: ABORT at the global in-flight cap", call_reject_global, GROUPCONC_EREJECTED_GLOBAL, 0, 0, 0},
    {"submit: ABORT at the bulkhead", call_reject_bulkhead, GROUPCONC_EREJECTED_BULKHEAD, 0, 0, 0},
    {"submit: ABORT at concurrency", call_reject_concurrency, GROUPCONC_EREJECTED_CONCURRENCY, 0, 0, 0},
    {"submit_spec: max_wait_ns -5", call_submit_wait, ELIMIT_, SW_PLAIN, -5, 0},
    {"submit_spec: max_wait_ns DEFAULT (not a task's value)", call_submit_wait, ELIMIT_, SW_PLAIN, DEF, 0},
    {"submit_spec: max_wait_ns KEEP (not a task's value)", call_submit_wait, ELIMIT_, SW_PLAIN, KEEP_, 0},
    {"submit_spec: max_wait_ns INT64_MIN", call_submit_wait, ELIMIT_, SW_PLAIN, INT64_MIN, 0},
    {"submit_spec: max_wait_ns -5, out_task NULL", call_submit_wait, ELIMIT_, SW_NULL_OUT, -5, 0},
    {"submit_spec: max_wait_ns -5 after shutdown", call_submit_wait, ELIMIT_, SW_AFTER_SHUTDOWN, -5, 0},
    {"submit_spec: max_wait_ns 5 s after shutdown", call_submit_wait, GROUPCONC_ESHUTDOWN, SW_AFTER_SHUTDOWN,
     INT64_C(5000000000), 0},
    {"submit_spec: max_wait_ns FOREVER", call_submit_wait, OK_, SW_PLAIN, GROUPCONC_FOREVER, 0},
    {"submit_spec: max_wait_ns 0 (the group's)", call_submit_wait, OK_, SW_PLAIN, 0, 0},
    {"submit_spec: max_wait_ns 1 ns (admitted at once)", call_submit_wait, OK_, SW_PLAIN, 1, 0},
    {"submit_spec: max_wait_ns 5 s", call_submit_wait, OK_, SW_PLAIN, INT64_C(5000000000), 0},
    {"submit_spec: max_wait_ns INT64_MAX", call_submit_wait, OK_, SW_PLAIN, INT64_MAX, 0},
    {"submit_spec: max_wait_ns 5 s, out_task NULL", call_submit_wait, OK_, SW_NULL_OUT, INT64_C(5000000000), 0},
    /* handles */
    {"wait: task NULL", call_wait_null_task, EINVAL_, 0, 0, 0},
    {"wait: out_result NULL", call_wait_null_out, EINVAL_, 0, 0, 0},
    {"wait_for: task NULL", call_wait_for_null_task, EINVAL_, 0, 0, 0},
    {"wait_for: out_result NULL", call_wait_for_null_out, EINVAL_, 0, 0, 0},
    {"wait_for: poll (0) a running task", call_wait_for_timeout, GROUPCONC_ETIMEDOUT, 0, 0, 0},
    {"wait_for: 1 ms on a running task", call_wait_for_timeout, GROUPCONC_ETIMEDOUT, 0, 1000000, 0},
    {"wait_for: timeout -2 on a running task waits (as FOREVER)", call_negative_timeout, OK_, NEG_WAIT_RUNNING, -2, 0},
    {"wait_for: timeout INT64_MIN on a running task waits (as FOREVER)", call_negative_timeout, OK_, NEG_WAIT_RUNNING,
     INT64_MIN, 0},
    {"wait_for: timeout -1000 on a finished task", call_negative_timeout, OK_, NEG_WAIT_DONE, -1000, 0},
    {"shutdown_graceful: timeout -2 waits (as FOREVER)", call_negative_timeout, OK_, NEG_GRACEFUL, -2, 0},
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
    {"execute_all: timeout -2 (as FOREVER)", call_execute_all, OK_, X_NEGATIVE_TIMEOUT, -2, 0},
    {"execute_all: an element's max_wait_ns -7 (nothing submitted)", call_execute_all, ELIMIT_, X_MAX_WAIT, -7, 0},
    {"execute_all: an element's max_wait_ns DEFAULT", call_execute_all, ELIMIT_, X_MAX_WAIT, DEF, 0},
    {"execute_all: an element's max_wait_ns INT64_MIN", call_execute_all, ELIMIT_, X_MAX_WAIT, INT64_MIN, 0},
    {"execute_all: an element's max_wait_ns FOREVER", call_execute_all, OK_, X_MAX_WAIT, GROUPCONC_FOREVER, 0},
    {"execute_all: an element's max_wait_ns 5 s", call_execute_all, OK_, X_MAX_WAIT, INT64_C(5000000000), 0},
    /* group control */
    {"group_shutdown: executor NULL", call_group_shutdown, EINVAL_, G_NULL_EX, 0, 0},
    {"group_shutdown: group NULL", call_group_shutdown, EINVAL_, G_NULL_GROUP, 0, 0},
    {"group_shutdown: group empty", call_group_shutdown, GROUPCONC_EKEYEMPTY, G_EMPTY, 0, 0},
    {"group_shutdown: group too long", call_group_shutdown, GROUPCONC_EKEYTOOLONG, G_LONG, 0, 0},
    {"group_shutdown: unknown MAX_KEY_LEN key (no-op)", call_group_shutdown, OK_, G_MAX_UNKNOWN, 0, 0},
    {"group_shutdown: unknown key (no-op)", call_group_shutdown, OK_, G_UNKNOWN, 0, 0},
    {"group_shutdown: after shutdown", call_group_shutdown, OK_, G_AFTER_SHUTDOWN, 0, 0},
    {"group_evict: executor NULL", call_group_evict, EINVAL_, G_NULL_EX, 0, 0},
    {"group_evict: group NULL", call_group_evict, EINVAL_, G_NULL_GROUP, 0, 0},
    {"group_evict: group empty", call_group_evict, GROUPCONC_EKEYEMPTY, G_EMPTY, 0, 0},
    {"group_evict: group too long", call_group_evict, GROUPCONC_EKEYTOOLONG, G_LONG, 0, 0},
    {"group_evict: unknown MAX_KEY_LEN key (no-op)", call_group_evict, OK_, G_MAX_UNKNOWN, 0, 0},
    {"group_evict: unknown key (no-op)", call_group_evict, OK_, G_UNKNOWN, 0, 0},
    {"group_evict: known idle group", call_group_evict, OK_, G_KNOWN, 0, 0},
    {"group_evict: after shutdown", call_group_evict, OK_, G_AFTER_SHUTDOWN, 0, 0},
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
    /* live limits: group_limits_set */
    {"group_limits_set: executor NULL", call_group_limits_set, EINVAL_, GL_NULL_EX, 0, 0},
    {"group_limits_set: limits NULL", call_group_limits_set, EINVAL_, GL_NULL_LIMITS, 0, 0},
    {"group_limits_set: limits->group NULL", call_group_limits_set, EINVAL_, GL_NULL_GROUP, 0, 0},
    {"group_limits_set: limits_keep(NULL)", call_group_limits_set, EINVAL_, GL_KEEP_NULL_GROUP, 0, 0},
    {"group_limits_set: group empty", call_group_limits_set, GROUPCONC_EKEYEMPTY, GL_EMPTY, 0, 0},
    {"group_limits_set: group MAX_KEY_LEN+1 bytes", call_group_limits_set, GROUPCONC_EKEYTOOLONG, GL_LONG, 0, 0},
    {"group_limits_set: new MAX_KEY_LEN key (recorded only)", call_group_limits_set, OK_, GL_MAX_NEW, 0, 0},
    {"group_limits_set: concurrency 0 (nothing changed)", call_group_limits_set, ELIMIT_, GL_CONC_COMPANION, 0, 0},
    {"group_limits_set: concurrency -4 (nothing changed)", call_group_limits_set, ELIMIT_, GL_CONC_COMPANION, -4, 0},
    {"group_limits_set: concurrency UNLIMITED", call_group_limits_set, ELIMIT_, GL_CONC_COMPANION, UNL, 0},
    {"group_limits_set: concurrency INT_MIN", call_group_limits_set, ELIMIT_, GL_CONC, INT_MIN, 0},
    {"group_limits_set: concurrency KEEP", call_group_limits_set, OK_, GL_CONC, KEEP_, 0},
    {"group_limits_set: concurrency DEFAULT", call_group_limits_set, OK_, GL_CONC, DEF, 0},
    {"group_limits_set: concurrency 1", call_group_limits_set, OK_, GL_CONC, 1, 0},
    {"group_limits_set: concurrency 2 (the queued task starts)", call_group_limits_set, OK_, GL_CONC, 2, 0},
    {"group_limits_set: concurrency INT_MAX, max_in_flight 5", call_group_limits_set, OK_, GL_CONC_COMPANION, INT_MAX, 0},
    {"group_limits_set: max_in_flight 0 (nothing changed)", call_group_limits_set, ELIMIT_, GL_INFL, 0, 0},
    {"group_limits_set: max_in_flight -4", call_group_limits_set, ELIMIT_, GL_INFL, -4, 0},
    {"group_limits_set: max_in_flight INT_MIN", call_group_limits_set, ELIMIT_, GL_INFL, INT_MIN, 0},
    {"group_limits_set: max_in_flight 1 (below in-flight: no preemption)", call_group_limits_set, OK_, GL_INFL, 1, 0},
    {"group_limits_set: max_in_flight UNLIMITED", call_group_limits_set, OK_, GL_INFL, UNL, 0},
    {"group_limits_set: max_in_flight DEFAULT", call_group_limits_set, OK_, GL_INFL, DEF, 0},
    {"group_limits_set: max_in_flight KEEP", call_group_limits_set, OK_, GL_INFL, KEEP_, 0},
    {"group_limits_set: queue_threshold -5 (nothing changed)", call_group_limits_set, ELIMIT_, GL_THR, -5, 0},
    {"group_limits_set: queue_threshold -4", call_group_limits_set, ELIMIT_, GL_THR, -4, 0},
    {"group_limits_set: queue_threshold INT_MIN", call_group_limits_set, ELIMIT_, GL_THR, INT_MIN, 0},
    {"group_limits_set: queue_threshold 0", call_group_limits_set, OK_, GL_THR, 0, 0},
    {"group_limits_set: queue_threshold UNLIMITED", call_group_limits_set, OK_, GL_THR, UNL, 0},
    {"group_limits_set: queue_threshold DEFAULT", call_group_limits_set, OK_, GL_THR, DEF, 0},
    {"group_limits_set: queue_threshold KEEP", call_group_limits_set, OK_, GL_THR, KEEP_, 0},
    {"group_limits_set: max_wait_ns -7 (nothing changed)", call_group_limits_set, ELIMIT_, GL_WAIT, -7, 0},
    {"group_limits_set: max_wait_ns -4", call_group_limits_set, ELIMIT_, GL_WAIT, -4, 0},
    {"group_limits_set: max_wait_ns INT64_MIN", call_group_limits_set, ELIMIT_, GL_WAIT, INT64_MIN, 0},
    {"group_limits_set: max_wait_ns 5 s", call_group_limits_set, OK_, GL_WAIT, INT64_C(5000000000), 0},
    {"group_limits_set: max_wait_ns 1 ns", call_group_limits_set, OK_, GL_WAIT, 1, 0},
    {"group_limits_set: max_wait_ns 0 (the policy default)", call_group_limits_set, OK_, GL_WAIT, 0, 0},
    {"group_limits_set: max_wait_ns FOREVER", call_group_limits_set, OK_, GL_WAIT, GROUPCONC_FOREVER, 0},
    {"group_limits_set: max_wait_ns DEFAULT", call_group_limits_set, OK_, GL_WAIT, DEF, 0},
    {"group_limits_set: max_wait_ns KEEP", call_group_limits_set, OK_, GL_WAIT, KEEP_, 0},
    {"group_limits_set: every field KEEP (nothing changed)", call_group_limits_set, OK_, GL_ALL_KEEP, 0, 0},
    {"group_limits_set: a key with no state (recorded only)", call_group_limits_set, OK_, GL_NEW_KEY, 0, 0},
    {"group_limits_set: a key with no state, max_in_flight 0 (nothing recorded)", call_group_limits_set, ELIMIT_,
     GL_NEW_KEY_BAD, 0, 0},
    {"group_limits_set: a key with no state, max_in_flight -4 (nothing recorded)", call_group_limits_set, ELIMIT_,
     GL_NEW_KEY_BAD, -4, 0},
    {"group_limits_set: after shutdown", call_group_limits_set, GROUPCONC_ESHUTDOWN, GL_AFTER_SHUTDOWN, 0, 0},
    {"group_limits_set: concurrency 0 after shutdown", call_group_limits_set, ELIMIT_, GL_BAD_AFTER_SHUTDOWN, 0, 0},
    {"group_limits_set: group empty after shutdown", call_group_limits_set, GROUPCONC_EKEYEMPTY, GL_EMPTY_AFTER_SHUTDOWN, 0, 0},
    {"group_limits_set: limits NULL after shutdown", call_group_limits_set, EINVAL_, GL_NULL_AFTER_SHUTDOWN, 0, 0},
    /* live limits: executor_limits_set (each bad field beside a valid change that must not apply) */
    {"executor_limits_set: executor NULL", call_executor_limits_set, EINVAL_, XL_NULL_EX, 0, 0},
    {"executor_limits_set: limits NULL", call_executor_limits_set, EINVAL_, XL_NULL_LIMITS, 0, 0},
    {"executor_limits_set: global_max_in_flight 0", call_executor_limits_set, ELIMIT_, XL_GINFL, 0, 0},
    {"executor_limits_set: global_max_in_flight DEFAULT", call_executor_limits_set, ELIMIT_, XL_GINFL, DEF, 0},
    {"executor_limits_set: global_max_in_flight -4", call_executor_limits_set, ELIMIT_, XL_GINFL, -4, 0},
    {"executor_limits_set: global_max_in_flight INT_MIN", call_executor_limits_set, ELIMIT_, XL_GINFL, INT_MIN, 0},
    {"executor_limits_set: global_max_in_flight 1 (below in-flight)", call_executor_limits_set, OK_, XL_GINFL, 1, 0},
    {"executor_limits_set: global_max_in_flight UNLIMITED", call_executor_limits_set, OK_, XL_GINFL, UNL, 0},
    {"executor_limits_set: global_max_in_flight KEEP", call_executor_limits_set, OK_, XL_GINFL, KEEP_, 0},
    {"executor_limits_set: global_queue_threshold DEFAULT", call_executor_limits_set, ELIMIT_, XL_GTHR, DEF, 0},
    {"executor_limits_set: global_queue_threshold -4", call_executor_limits_set, ELIMIT_, XL_GTHR, -4, 0},
    {"executor_limits_set: global_queue_threshold INT_MIN", call_executor_limits_set, ELIMIT_, XL_GTHR, INT_MIN, 0},
    {"executor_limits_set: global_queue_threshold 0", call_executor_limits_set, OK_, XL_GTHR, 0, 0},
    {"executor_limits_set: global_queue_threshold UNLIMITED", call_executor_limits_set, OK_, XL_GTHR, UNL, 0},
    {"executor_limits_set: global_queue_threshold KEEP", call_executor_limits_set, OK_, XL_GTHR, KEEP_, 0},
    {"executor_limits_set: global_max_running 0", call_executor_limits_set, ELIMIT_, XL_GRUN, 0, 0},
    {"executor_limits_set: global_max_running DEFAULT", call_executor_limits_set, ELIMIT_, XL_GRUN, DEF, 0},
    {"executor_limits_set: global_max_running -4", call_executor_limits_set, ELIMIT_, XL_GRUN, -4, 0},
    {"executor_limits_set: global_max_running INT_MIN", call_executor_limits_set, ELIMIT_, XL_GRUN, INT_MIN, 0},
    {"executor_limits_set: global_max_running 1 (below running)", call_executor_limits_set, OK_, XL_GRUN, 1, 0},
    {"executor_limits_set: global_max_running UNLIMITED", call_executor_limits_set, OK_, XL_GRUN, UNL, 0},
    {"executor_limits_set: global_max_running KEEP", call_executor_limits_set, OK_, XL_GRUN, KEEP_, 0},
    {"executor_limits_set: max_waiting DEFAULT", call_executor_limits_set, ELIMIT_, XL_MAXWAITING, DEF, 0},
    {"executor_limits_set: max_waiting -4", call_executor_limits_set, ELIMIT_, XL_MAXWAITING, -4, 0},
    {"executor_limits_set: max_waiting INT_MIN", call_executor_limits_set, ELIMIT_, XL_MAXWAITING, INT_MIN, 0},
    {"executor_limits_set: max_waiting 0 (below waiting)", call_executor_limits_set, OK_, XL_MAXWAITING, 0, 0},
    {"executor_limits_set: max_waiting UNLIMITED", call_executor_limits_set, OK_, XL_MAXWAITING, UNL, 0},
    {"executor_limits_set: max_waiting KEEP", call_executor_limits_set, OK_, XL_MAXWAITING, KEEP_, 0},
    {"executor_limits_set: default_concurrency 0", call_executor_limits_set, ELIMIT_, XL_CONC, 0, 0},
    {"executor_limits_set: default_concurrency UNLIMITED", call_executor_limits_set, ELIMIT_, XL_CONC, UNL, 0},
    {"executor_limits_set: default_concurrency DEFAULT", call_executor_limits_set, ELIMIT_, XL_CONC, DEF, 0},
    {"executor_limits_set: default_concurrency -4", call_executor_limits_set, ELIMIT_, XL_CONC, -4, 0},
    {"executor_limits_set: default_concurrency 3", call_executor_limits_set, OK_, XL_CONC, 3, 0},
    {"executor_limits_set: default_concurrency KEEP", call_executor_limits_set, OK_, XL_CONC, KEEP_, 0},
    {"executor_limits_set: default_max_in_flight 0", call_executor_limits_set, ELIMIT_, XL_INFL, 0, 0},
    {"executor_limits_set: default_max_in_flight DEFAULT", call_executor_limits_set, ELIMIT_, XL_INFL, DEF, 0},
    {"executor_limits_set: default_max_in_flight -4", call_executor_limits_set, ELIMIT_, XL_INFL, -4, 0},
    {"executor_limits_set: default_max_in_flight 4", call_executor_limits_set, OK_, XL_INFL, 4, 0},
    {"executor_limits_set: default_max_in_flight KEEP", call_executor_limits_set, OK_, XL_INFL, KEEP_, 0},
    {"executor_limits_set: default_queue_threshold DEFAULT", call_executor_limits_set, ELIMIT_, XL_THR, DEF, 0},
    {"executor_limits_set: default_queue_threshold -4", call_executor_limits_set, ELIMIT_, XL_THR, -4, 0},
    {"executor_limits_set: default_queue_threshold INT_MIN", call_executor_limits_set, ELIMIT_, XL_THR, INT_MIN, 0},
    {"executor_limits_set: default_queue_threshold 0", call_executor_limits_set, OK_, XL_THR, 0, 0},
    {"executor_limits_set: default_queue_threshold KEEP", call_executor_limits_set, OK_, XL_THR, KEEP_, 0},
    {"executor_limits_set: default_max_wait_ns 0", call_executor_limits_set, ELIMIT_, XL_WAIT, 0, 0},
    {"executor_limits_set: default_max_wait_ns DEFAULT", call_executor_limits_set, ELIMIT_, XL_WAIT, DEF, 0},
    {"executor_limits_set: default_max_wait_ns -7", call_executor_limits_set, ELIMIT_, XL_WAIT, -7, 0},
    {"executor_limits_set: default_max_wait_ns INT64_MIN", call_executor_limits_set, ELIMIT_, XL_WAIT, INT64_MIN, 0},
    {"executor_limits_set: default_max_wait_ns 5 s", call_executor_limits_set, OK_, XL_WAIT, INT64_C(5000000000), 0},
    {"executor_limits_set: default_max_wait_ns FOREVER", call_executor_limits_set, OK_, XL_WAIT, GROUPCONC_FOREVER, 0},
    {"executor_limits_set: default_max_wait_ns KEEP", call_executor_limits_set, OK_, XL_WAIT, KEEP_, 0},
    {"executor_limits_set: every field KEEP (nothing changed)", call_executor_limits_set, OK_, XL_ALL_KEEP, 0, 0},
    {"executor_limits_set: after shutdown", call_executor_limits_set, GROUPCONC_ESHUTDOWN, XL_AFTER_SHUTDOWN, 0, 0},
    {"executor_limits_set: global_max_running 0 after shutdown", call_executor_limits_set, ELIMIT_, XL_BAD_AFTER_SHUTDOWN, 0, 0},
    {"executor_limits_set: limits NULL after shutdown", call_executor_limits_set, EINVAL_, XL_NULL_AFTER_SHUTDOWN, 0, 0},
    {"group_limits_keep / executor_limits_keep: every field KEEP", call_limits_keep, OK_, 0, 0, 0},
    /* pause and resume */
    {"group_pause: executor NULL", call_group_pause, EINVAL_, PA_NULL_EX, 0, 0},
    {"group_pause: group NULL", call_group_pause, EINVAL_, PA_NULL_GROUP, 0, 0},
    {"group_pause: group empty", call_group_pause, GROUPCONC_EKEYEMPTY, PA_EMPTY, 0, 0},
    {"group_pause: group MAX_KEY_LEN+1 bytes", call_group_pause, GROUPCONC_EKEYTOOLONG, PA_LONG, 0, 0},
    {"group_pause: new MAX_KEY_LEN key (created paused)", call_group_pause, OK_, PA_MAX_NEW, 0, 0},
    {"group_pause: known group (nothing new starts)", call_group_pause, OK_, PA_KNOWN, 0, 0},
    {"group_pause: twice (idempotent)", call_group_pause, OK_, PA_TWICE, 0, 0},
    {"group_pause: after shutdown", call_group_pause, GROUPCONC_ESHUTDOWN, PA_AFTER_SHUTDOWN, 0, 0},
    {"group_pause: group empty after shutdown", call_group_pause, GROUPCONC_EKEYEMPTY, PA_EMPTY_AFTER_SHUTDOWN, 0, 0},
    {"group_pause: group NULL after shutdown", call_group_pause, EINVAL_, PA_NULL_AFTER_SHUTDOWN, 0, 0},
    {"group_pause: new key at max_groups, every group busy", call_group_pause, GROUPCONC_EGROUPS_FULL, PA_FULL_BUSY, 0, 0},
    {"group_pause: new key at max_groups, the group paused", call_group_pause, GROUPCONC_EGROUPS_FULL, PA_FULL_PAUSED, 0, 0},
    {"group_pause: new key at max_groups, the group idle (reclaimed)", call_group_pause, OK_, PA_FULL_IDLE, 0, 0},
    {"group_pause: known busy key at max_groups", call_group_pause, OK_, PA_FULL_KNOWN, 0, 0},
    {"submit: new key at max_groups, every group busy", call_group_pause, GROUPCONC_EGROUPS_FULL, PA_SUBMIT_FULL, 0, 0},
    {"group_resume: executor NULL", call_group_resume, EINVAL_, RS_NULL_EX, 0, 0},
    {"group_resume: group NULL", call_group_resume, EINVAL_, RS_NULL_GROUP, 0, 0},
    {"group_resume: group empty", call_group_resume, GROUPCONC_EKEYEMPTY, RS_EMPTY, 0, 0},
    {"group_resume: group MAX_KEY_LEN+1 bytes", call_group_resume, GROUPCONC_EKEYTOOLONG, RS_LONG, 0, 0},
    {"group_resume: unknown key (no-op, no state made)", call_group_resume, OK_, RS_UNKNOWN, 0, 0},
    {"group_resume: unknown MAX_KEY_LEN key (no-op)", call_group_resume, OK_, RS_MAX_UNKNOWN, 0, 0},
    {"group_resume: known group, not paused (no-op)", call_group_resume, OK_, RS_NOT_PAUSED, 0, 0},
    {"group_resume: paused group (its waiting task runs)", call_group_resume, OK_, RS_PAUSED, 0, 0},
    {"group_resume: twice", call_group_resume, OK_, RS_TWICE, 0, 0},
    {"group_resume: after shutdown", call_group_resume, OK_, RS_AFTER_SHUTDOWN, 0, 0},
    {"group_resume: paused group after shutdown", call_group_resume, OK_, RS_PAUSED_AFTER_SHUTDOWN, 0, 0},
    {"group_resume: group empty after shutdown", call_group_resume, GROUPCONC_EKEYEMPTY, RS_EMPTY_AFTER_SHUTDOWN, 0, 0},
    {"executor_pause: NULL", call_executor_pause, EINVAL_, EP_NULL, 0, 0},
    {"executor_pause: nothing new starts until resume", call_executor_pause, OK_, EP_PAUSE, 0, 0},
    {"executor_pause: twice (idempotent)", call_executor_pause, OK_, EP_TWICE, 0, 0},
    {"executor_pause: after shutdown (documented: OK)", call_executor_pause, OK_, EP_AFTER_SHUTDOWN, 0, 0},
    {"executor_resume: NULL", call_executor_pause, EINVAL_, ER_NULL, 0, 0},
    {"executor_resume: not paused (no-op)", call_executor_pause, OK_, ER_NOT_PAUSED, 0, 0},
    {"executor_resume: paused", call_executor_pause, OK_, ER_PAUSED, 0, 0},
    {"executor_resume: after shutdown", call_executor_pause, OK_, ER_AFTER_SHUTDOWN, 0, 0},
    {"executor_resume: paused, after shutdown", call_executor_pause, OK_, ER_PAUSED_AFTER_SHUTDOWN, 0, 0},
    {"executor_resume: a group paused on its own stays paused", call_executor_pause, OK_, ER_GROUP_STAYS_PAUSED, 0, 0},
    /* admission gate: create */
#ifndef GROUPCONC_NO_GATE
    {"gate_create: config NULL", call_gate_create, EINVAL_, GC_NULL_CONFIG, 0, 0},
    {"gate_create: out_gate NULL", call_gate_create, EINVAL_, GC_NULL_OUT, 0, 0},
    {"gate_create: out_gate NULL, executor gate (not linked)", call_gate_create, EINVAL_, GC_NULL_OUT_EXEC, 0, 0},
    {"gate_create: out_gate NULL, limit 0", call_gate_create, EINVAL_, GC_NULL_OUT_BAD_LIMIT, 0, 0},
    {"gate_create: standalone limit 0", call_gate_create, ELIMIT_, GC_LIMIT, 0, 0},
    {"gate_create: standalone limit -5", call_gate_create, ELIMIT_, GC_LIMIT, -5, 0},
    {"gate_create: standalone limit INT_MIN", call_gate_create, ELIMIT_, GC_LIMIT, INT_MIN, 0},
    {"gate_create: standalone limit DEFAULT", call_gate_create, ELIMIT_, GC_LIMIT, DEF, 0},
    {"gate_create: standalone limit 1", call_gate_create, OK_, GC_LIMIT, 1, 0},
    {"gate_create: standalone limit UNLIMITED", call_gate_create, OK_, GC_LIMIT, UNL, 0},
    {"gate_create: standalone limit INT_MAX", call_gate_create, OK_, GC_LIMIT, INT_MAX, 0},
    {"gate_create: executor gate, limit 1", call_gate_create, ELIMIT_, GC_EXEC_LIMIT, 1, 0},
    {"gate_create: executor gate, limit UNLIMITED", call_gate_create, ELIMIT_, GC_EXEC_LIMIT, UNL, 0},
    {"gate_create: executor gate, limit -5", call_gate_create, ELIMIT_, GC_EXEC_LIMIT, -5, 0},
    {"gate_create: executor gate, limit INT_MIN", call_gate_create, ELIMIT_, GC_EXEC_LIMIT, INT_MIN, 0},
    {"gate_create: executor gate, limit 0", call_gate_create, OK_, GC_EXEC, 0, 0},
    {"gate_create: executor shut down", call_gate_create, GROUPCONC_ESHUTDOWN, GC_EXEC_SHUTDOWN, 0, 0},
    {"gate_create: executor after shutdown_graceful", call_gate_create, GROUPCONC_ESHUTDOWN, GC_EXEC_GRACEFUL, 0, 0},
    {"gate_create: executor shut down, limit 1", call_gate_create, ELIMIT_, GC_EXEC_LIMIT_AFTER_SHUTDOWN, 0, 0},
    {"gate_create: config is copied", call_gate_create, OK_, GC_COPIED, 0, 0},
#endif
    /* admission gate: destroy */
#ifndef GROUPCONC_NO_GATE
    {"gate_destroy: NULL", call_gate_destroy, EINVAL_, GD_NULL, 0, 0},
    {"gate_destroy: standalone, permit out (nothing done)", call_gate_destroy, GROUPCONC_EBUSY, GD_BUSY_STANDALONE, 0, 0},
    {"gate_destroy: executor gate, permit out (nothing done)", call_gate_destroy, GROUPCONC_EBUSY, GD_BUSY_EXEC, 0, 0},
    {"gate_destroy: permit out, executor shut down", call_gate_destroy, GROUPCONC_EBUSY, GD_BUSY_AFTER_SHUTDOWN, 0, 0},
    {"gate_destroy: no permit out, executor shut down", call_gate_destroy, OK_, GD_IDLE_AFTER_SHUTDOWN, 0, 0},
#endif
    /* admission gate: try_acquire */
#ifndef GROUPCONC_NO_GATE
    {"gate_try_acquire: gate NULL", call_gate_acquire, EINVAL_, GA_NULL_GATE, 0, 0},
    {"gate_try_acquire: out_permit NULL, standalone (nothing taken)", call_gate_acquire, EINVAL_, GA_NULL_OUT_S, 0, 0},
    {"gate_try_acquire: out_permit NULL, executor gate (nothing taken)", call_gate_acquire, EINVAL_, GA_NULL_OUT_E, 0, 0},
    {"gate_try_acquire: executor gate, group NULL", call_gate_acquire, EINVAL_, GA_GROUP_NULL_E, 0, 0},
    {"gate_try_acquire: standalone, group set", call_gate_acquire, EINVAL_, GA_GROUP_SET_S, 0, 0},
    {"gate_try_acquire: standalone, group MAX_KEY_LEN+1 bytes", call_gate_acquire, EINVAL_, GA_LONG_GROUP_S, 0, 0},
    {"gate_try_acquire: group empty", call_gate_acquire, GROUPCONC_EKEYEMPTY, GA_EMPTY, 0, 0},
    {"gate_try_acquire: group MAX_KEY_LEN+1 bytes", call_gate_acquire, GROUPCONC_EKEYTOOLONG, GA_LONG, 0, 0},
    {"gate_try_acquire: group MAX_KEY_LEN bytes", call_gate_acquire, OK_, GA_MAX, 0, 0},
    {"gate_try_acquire: after shutdown", call_gate_acquire, GROUPCONC_ESHUTDOWN, GA_AFTER_SHUTDOWN, 0, 0},
    {"gate_try_acquire: after shutdown_graceful", call_gate_acquire, GROUPCONC_ESHUTDOWN, GA_AFTER_GRACEFUL, 0, 0},
    {"gate_try_acquire: group empty after shutdown", call_gate_acquire, GROUPCONC_EKEYEMPTY, GA_EMPTY_AFTER_SHUTDOWN, 0, 0},
    {"gate_try_acquire: out_permit NULL after shutdown", call_gate_acquire, EINVAL_, GA_NULL_OUT_AFTER_SHUTDOWN, 0, 0},
    {"gate_try_acquire: standalone at its limit", call_gate_acquire, GROUPCONC_EGATE_FULL, GA_FULL, 0, 0},
    {"gate_try_acquire: a task waits at concurrency", call_gate_acquire, GROUPCONC_EREJECTED_CONCURRENCY, GA_CONCURRENCY, 0, 0},
    {"gate_try_acquire: the bulkhead full", call_gate_acquire, GROUPCONC_EREJECTED_BULKHEAD, GA_BULKHEAD, 0, 0},
#endif
    /* admission gate: permit_release */
#ifndef GROUPCONC_NO_GATE
    {"permit_release: NULL", call_permit_release, EINVAL_, PR_NULL, 0, 0},
    {"permit_release: kind 3 (unknown; still held)", call_permit_release, EINVAL_, PR_KIND, 3, 0},
    {"permit_release: kind -1 (unknown; still held)", call_permit_release, EINVAL_, PR_KIND, -1, 0},
    {"permit_release: kind INT_MAX (unknown; still held)", call_permit_release, EINVAL_, PR_KIND, INT_MAX, 0},
    {"permit_release: executor gate, kind 3 (unknown; still held)", call_permit_release, EINVAL_, PR_EXEC_KIND, 3, 0},
    {"permit_release: kind CANCELLED", call_permit_release, OK_, PR_KIND, GROUPCONC_RELEASE_CANCELLED, 0},
    {"permit_release: the empty permit of a failed try_acquire", call_permit_release, GROUPCONC_EPERMIT, PR_EMPTY_FROM_ERROR, 0, 0},
    {"permit_release: a zeroed permit", call_permit_release, GROUPCONC_EPERMIT, PR_ZERO, 0, 0},
    {"permit_release: released twice", call_permit_release, GROUPCONC_EPERMIT, PR_TWICE, 0, 0},
    {"permit_release: a copy of a released permit", call_permit_release, GROUPCONC_EPERMIT, PR_COPY, 0, 0},
    {"permit_release: a stale copy, its slot held again", call_permit_release, GROUPCONC_EPERMIT, PR_STALE_REUSED, 0, 0},
    {"permit_release: forged slot 1000 (past the table)", call_permit_release, GROUPCONC_EPERMIT, PR_FORGED_SLOT, 1000, 0},
    {"permit_release: forged slot UINT32_MAX", call_permit_release, GROUPCONC_EPERMIT, PR_FORGED_SLOT, UINT32_MAX, 0},
    {"permit_release: forged slot 7 (in the table, free)", call_permit_release, GROUPCONC_EPERMIT, PR_FORGED_SLOT, 7, 0},
    {"permit_release: forged generation +1 (even)", call_permit_release, GROUPCONC_EPERMIT, PR_FORGED_GEN, 1, 0},
    {"permit_release: forged generation +2 (odd)", call_permit_release, GROUPCONC_EPERMIT, PR_FORGED_GEN, 2, 0},
    {"permit_release: executor gate, released twice", call_permit_release, GROUPCONC_EPERMIT, PR_EXEC_TWICE, 0, 0},
    {"permit_release: executor gate, a stale copy, its slot held again", call_permit_release, GROUPCONC_EPERMIT,
     PR_EXEC_STALE_REUSED, 0, 0},
#endif
    /* admission gate: stats */
#ifndef GROUPCONC_NO_GATE
    {"gate_stats: gate NULL", call_gate_stats, EINVAL_, GS_NULL_GATE, 0, 0},
    {"gate_stats: out NULL, standalone", call_gate_stats, EINVAL_, GS_NULL_OUT_S, 0, 0},
    {"gate_stats: out NULL, executor gate", call_gate_stats, EINVAL_, GS_NULL_OUT_E, 0, 0},
    {"gate_stats: standalone, group set", call_gate_stats, EINVAL_, GS_GROUP_ON_S, 0, 0},
    {"gate_stats: standalone, group empty", call_gate_stats, EINVAL_, GS_EMPTY_ON_S, 0, 0},
    {"gate_stats: group empty", call_gate_stats, GROUPCONC_EKEYEMPTY, GS_EMPTY, 0, 0},
    {"gate_stats: group MAX_KEY_LEN+1 bytes", call_gate_stats, GROUPCONC_EKEYTOOLONG, GS_LONG, 0, 0},
    {"gate_stats: unknown group", call_gate_stats, GROUPCONC_ENOTFOUND, GS_UNKNOWN, 0, 0},
    {"gate_stats: unknown MAX_KEY_LEN group", call_gate_stats, GROUPCONC_ENOTFOUND, GS_MAX_UNKNOWN, 0, 0},
    {"gate_stats: a group of the executor's tasks", call_gate_stats, OK_, GS_KNOWN, 0, 0},
    {"gate_stats: executor gate, group NULL (whole gate)", call_gate_stats, OK_, GS_WHOLE, 0, 0},
    {"gate_stats: standalone", call_gate_stats, OK_, GS_STANDALONE, 0, 0},
    {"gate_stats: after shutdown", call_gate_stats, OK_, GS_AFTER_SHUTDOWN, 0, 0},
#endif
    /* admission gate: executor_destroy */
#ifndef GROUPCONC_NO_GATE
    {"executor_destroy: an executor gate alive (nothing done)", call_destroy_with_gate, GROUPCONC_EBUSY, XD_GATE, 0, 0},
    {"executor_destroy: an executor gate with a permit out (nothing done)", call_destroy_with_gate, GROUPCONC_EBUSY,
     XD_GATE_PERMIT, 0, 0},
    {"executor_destroy: an executor gate alive, after shutdown", call_destroy_with_gate, GROUPCONC_EBUSY,
     XD_GATE_AFTER_SHUTDOWN, 0, 0},
    {"executor_destroy: its gate destroyed first", call_destroy_with_gate, OK_, XD_GATE_DESTROYED, 0, 0},
    {"executor_destroy: a standalone gate alive", call_destroy_with_gate, OK_, XD_STANDALONE_ALIVE, 0, 0},
    {"executor_destroy: another executor's gate alive", call_destroy_with_gate, OK_, XD_OTHER_EXECUTORS_GATE, 0, 0},
#endif
    /* deferred completion */
    {"context_defer: ctx NULL", call_deferred, EINVAL_, DF_NULL_CTX, 0, 0},
    {"context_defer: out_deferred NULL (the body's return stands)", call_deferred, EINVAL_, DF_NULL_OUT, 0, 0},
    {"context_defer: twice in one body", call_deferred, GROUPCONC_ESTATE, DF_TWICE, 0, 0},
    {"context_defer: a CALLER_RUNS run inside submit", call_deferred, GROUPCONC_ESTATE, DF_CALLER_RUNS, 0, 0},
    {"context_blocking: ctx NULL", call_deferred, EINVAL_, DB_NULL, 0, 0},
    {"context_blocking: twice in one body (the second changes nothing)", call_deferred, OK_, DB_TWICE, 0, 0},
    {"context_blocking: a CALLER_RUNS run inside submit", call_deferred, GROUPCONC_ESTATE, DB_CALLER_RUNS, 0, 0},
    {"deferred_complete: NULL", call_deferred, EINVAL_, DC_NULL, 0, 0},
    {"deferred_complete: NULL, rc PENDING", call_deferred, EINVAL_, DC_NULL_PENDING, 0, 0},
    {"deferred_complete: rc PENDING (the handle still usable)", call_deferred, EINVAL_, DC_PENDING, 0, 0},
    {"deferred_complete: rc PENDING from the body (the handle still usable)", call_deferred, EINVAL_,
     DC_PENDING_IN_BODY, 0, 0},
    {"deferred_is_cancelled: NULL is false", call_deferred, OK_, DI_NULL, 0, 0},
    /* structured scopes: open */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_open: executor NULL (*out_scope NULL)", call_scope_open, EINVAL_, SO_NULL_EX, 0, 0},
    {"scope_open: out_scope NULL (nothing opened)", call_scope_open, EINVAL_, SO_NULL_OUT, 0, 0},
    {"scope_open: every argument NULL", call_scope_open, EINVAL_, SO_ALL_NULL, 0, 0},
    {"scope_open: policy 4 (unknown)", call_scope_open, GROUPCONC_EPOLICY, SO_POLICY, 4, 0},
    {"scope_open: policy -1 (unknown)", call_scope_open, GROUPCONC_EPOLICY, SO_POLICY, -1, 0},
    {"scope_open: policy INT_MAX (unknown)", call_scope_open, GROUPCONC_EPOLICY, SO_POLICY, INT_MAX, 0},
    {"scope_open: policy INT_MIN (unknown)", call_scope_open, GROUPCONC_EPOLICY, SO_POLICY, INT_MIN, 0},
    {"scope_open: out_scope NULL, policy unknown", call_scope_open, EINVAL_, SO_POLICY_NULL_OUT, 9, 0},
    {"scope_open: CUSTOM without on_fork_complete", call_scope_open, EINVAL_, SO_CUSTOM_NO_CB, 0, 0},
    {"scope_open: CUSTOM without on_fork_complete, executor NULL", call_scope_open, EINVAL_, SO_CUSTOM_NO_CB_NULL_EX, 0, 0},
    {"scope_open: CUSTOM with on_fork_complete", call_scope_open, OK_, SO_CUSTOM, 0, 0},
    {"scope_open: config NULL (COLLECT_ALL, no name)", call_scope_open, OK_, SO_CONFIG_NULL, 0, 0},
    {"scope_open: name is copied", call_scope_open, OK_, SO_NAME_COPIED, 0, 0},
    {"scope_open: executor shut down", call_scope_open, GROUPCONC_ESHUTDOWN, SO_SHUTDOWN, 0, 0},
    {"scope_open: executor after shutdown_graceful", call_scope_open, GROUPCONC_ESHUTDOWN, SO_GRACEFUL, 0, 0},
    {"scope_open: executor shut down, policy unknown", call_scope_open, GROUPCONC_EPOLICY, SO_SHUTDOWN_BAD_POLICY, 0, 0},
    {"scope_open: in a fork of a shut-down scope (parent still closes OK)", call_scope_open, GROUPCONC_ESHUTDOWN,
     SO_IN_SHUT_FORK, 0, 0},
#endif
    /* structured scopes: fork */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_fork: scope NULL", call_scope_fork, EINVAL_, SF_NULL_SCOPE, 0, 0},
    {"scope_fork: spec NULL", call_scope_fork, EINVAL_, SF_NULL_SPEC, 0, 0},
    {"scope_fork: spec->group NULL", call_scope_fork, EINVAL_, SF_NULL_GROUP, 0, 0},
    {"scope_fork: spec->fn NULL", call_scope_fork, EINVAL_, SF_NULL_FN, 0, 0},
    {"scope_fork: group empty", call_scope_fork, GROUPCONC_EKEYEMPTY, SF_EMPTY, 0, 0},
    {"scope_fork: group MAX_KEY_LEN+1 bytes", call_scope_fork, GROUPCONC_EKEYTOOLONG, SF_LONG, 0, 0},
    {"scope_fork: group MAX_KEY_LEN bytes", call_scope_fork, OK_, SF_MAX, 0, 0},
    {"scope_fork: out_index NULL", call_scope_fork, OK_, SF_NULL_INDEX, 0, 0},
    {"scope_fork: from a foreign thread (not counted, never runs)", call_scope_fork, GROUPCONC_ENOTOWNER, SF_FOREIGN, 0, 0},
    {"scope_fork: group empty from a foreign thread", call_scope_fork, GROUPCONC_EKEYEMPTY, SF_FOREIGN_EMPTY, 0, 0},
    {"scope_fork: after scope_shutdown (never runs, no cleanup)", call_scope_fork, GROUPCONC_ESCOPE_SHUTDOWN,
     SF_AFTER_SHUTDOWN, 0, 0},
    {"scope_fork: after join (never runs, no cleanup)", call_scope_fork, GROUPCONC_ESCOPE_SHUTDOWN, SF_AFTER_JOIN, 0, 0},
    {"scope_fork: after an expired join_for", call_scope_fork, GROUPCONC_ESCOPE_SHUTDOWN, SF_AFTER_EXPIRED_JOIN, 0, 0},
    {"scope_fork: into a child scope after its parent's shutdown", call_scope_fork, GROUPCONC_ESCOPE_SHUTDOWN,
     SF_AFTER_PARENT_SHUTDOWN, 0, 0},
    {"scope_fork: refused at concurrency (ABORT): a REJECTED fork, a failure", call_scope_fork,
     GROUPCONC_EREJECTED_CONCURRENCY, SF_REJECTED_CONC, 0, 0},
    {"scope_fork: refused at the bulkhead (ABORT): a REJECTED fork", call_scope_fork, GROUPCONC_EREJECTED_BULKHEAD,
     SF_REJECTED_BULK, 0, 0},
    {"scope_fork: executor shut down: a REJECTED fork", call_scope_fork, GROUPCONC_ESHUTDOWN, SF_EXEC_SHUTDOWN, 0, 0},
    {"scope_fork: from one of its own forks", call_scope_fork, OK_, SF_FROM_OWN_FORK, 0, 0},
#endif
    /* structured scopes: join, join_for */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_join: NULL", call_scope_join, EINVAL_, SJ_NULL, 0, 0},
    {"scope_join_for: NULL", call_scope_join, EINVAL_, SJ_FOR_NULL, 0, 0},
    {"scope_join_for: NULL, FOREVER", call_scope_join, EINVAL_, SJ_FOR_NULL_NEG, 0, 0},
    {"scope_join: from a foreign thread (nothing done)", call_scope_join, GROUPCONC_ENOTOWNER, SJ_FOREIGN, 0, 0},
    {"scope_join_for: from a foreign thread (not shut down)", call_scope_join, GROUPCONC_ENOTOWNER, SJ_FOR_FOREIGN, 0, 0},
    {"scope_join: from one of its own forks (nothing done)", call_scope_join, GROUPCONC_EDEADLK, SJ_IN_FORK, 0, 0},
    {"scope_join_for: from one of its own forks (not shut down)", call_scope_join, GROUPCONC_EDEADLK, SJ_FOR_IN_FORK, 0, 0},
    {"scope_join_for: 1 ms on a running fork (shut down)", call_scope_join, GROUPCONC_ETIMEDOUT, SJ_FOR_EXPIRES, 0, 0},
    {"scope_join_for: timeout -2 waits (as FOREVER)", call_scope_join, OK_, SJ_FOR_NEG, 0, 0},
    {"scope_join_for: poll (0) with every fork done", call_scope_join, OK_, SJ_FOR_ZERO_ALL_DONE, 0, 0},
    {"scope_join: twice", call_scope_join, OK_, SJ_TWICE, 0, 0},
    {"scope_join: no forks", call_scope_join, OK_, SJ_EMPTY, 0, 0},
    {"scope_join: SHUTDOWN_ON_SUCCESS, no forks (none succeeded)", call_scope_join, GROUPCONC_EFAILED, SJ_EMPTY_ON_SUCCESS, 0, 0},
    {"scope_join: SHUTDOWN_ON_FAILURE, a fork failed", call_scope_join, GROUPCONC_EFAILED, SJ_FAILED, 0, 0},
#endif
    /* structured scopes: shutdown */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_shutdown: NULL", call_scope_shutdown, EINVAL_, SS_NULL, 0, 0},
    {"scope_shutdown: twice (a queued fork cancelled once)", call_scope_shutdown, OK_, SS_TWICE, 0, 0},
    {"scope_shutdown: from a foreign thread", call_scope_shutdown, OK_, SS_FOREIGN, 0, 0},
    {"scope_shutdown: after join", call_scope_shutdown, OK_, SS_AFTER_JOIN, 0, 0},
#endif
    /* structured scopes: close */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_close: NULL", call_scope_close, EINVAL_, SC_NULL, 0, 0},
    {"scope_close: from a foreign thread (nothing done)", call_scope_close, GROUPCONC_ENOTOWNER, SC_FOREIGN, 0, 0},
    {"scope_close: a running fork's child scope open (shut down, waited for)", call_scope_close,
     GROUPCONC_ENOTJOINED, SC_CHILD_OPEN, 0, 0},
    {"scope_close: a later scope open (nothing done)", call_scope_close, GROUPCONC_EORDER, SC_OUT_OF_ORDER, 0, 0},
    {"scope_close: joined, a later scope open (still joined after)", call_scope_close, GROUPCONC_EORDER,
     SC_OUT_OF_ORDER_JOINED, 0, 0},
    {"scope_close: from one of its own forks (nothing done)", call_scope_close, GROUPCONC_EDEADLK, SC_IN_FORK, 0, 0},
    {"scope_close: without join (waited, freed)", call_scope_close, GROUPCONC_ENOTJOINED, SC_NOT_JOINED, 0, 0},
    {"scope_close: without join, no forks", call_scope_close, GROUPCONC_ENOTJOINED, SC_NOT_JOINED_EMPTY, 0, 0},
    {"scope_close: without join, waits for a running fork", call_scope_close, GROUPCONC_ENOTJOINED, SC_NOT_JOINED_WAITS, 0, 0},
    {"scope_close: shut down, not joined", call_scope_close, GROUPCONC_ENOTJOINED, SC_NOT_JOINED_SHUT, 0, 0},
    {"scope_close: joined", call_scope_close, OK_, SC_JOINED, 0, 0},
    {"scope_join: from on_fork_complete on a worker", call_scope_in_callback, GROUPCONC_EDEADLK, SOP_JOIN, 0, 0},
    {"scope_join_for: from on_fork_complete on a worker (not shut down)", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_JOIN_FOR0, 0, 0},
    {"scope_close: from on_fork_complete on a worker (nothing done)", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_CLOSE, 0, 0},
    {"scope_join: from on_fork_complete on the owner (its shutdown)", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_JOIN, 1, 0},
    {"scope_join_for: from on_fork_complete on the owner (its shutdown)", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_JOIN_FOR0, 1, 0},
    {"scope_close: from on_fork_complete on the owner (its shutdown)", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_CLOSE, 1, 0},
    {"scope_join: from on_fork_complete of a fork refused in submit", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_JOIN, 2, 0},
    {"scope_join_for: from on_fork_complete of a fork refused in submit", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_JOIN_FOR0, 2, 0},
    {"scope_close: from on_fork_complete of a fork refused in submit", call_scope_in_callback, GROUPCONC_EDEADLK,
     SOP_CLOSE, 2, 0},
#endif
    /* structured scopes: result, first, first_set, fork_count, policy names */
#ifndef GROUPCONC_NO_SCOPES
    {"scope_result: scope NULL", call_scope_result, EINVAL_, SR_NULL_SCOPE, 0, 0},
    {"scope_result: out_result NULL", call_scope_result, EINVAL_, SR_NULL_OUT, 0, 0},
    {"scope_result: index == fork count", call_scope_result, GROUPCONC_ENOTFOUND, SR_RANGE, 0, 0},
    {"scope_result: index SIZE_MAX", call_scope_result, GROUPCONC_ENOTFOUND, SR_RANGE, 1, 0},
    {"scope_result: index fork count + 1", call_scope_result, GROUPCONC_ENOTFOUND, SR_RANGE, 2, 0},
    {"scope_result: index 0, no forks", call_scope_result, GROUPCONC_ENOTFOUND, SR_EMPTY, 0, 0},
    {"scope_result: fork not done", call_scope_result, GROUPCONC_ETIMEDOUT, SR_NOT_DONE, 0, 0},
    {"scope_result: fork done", call_scope_result, OK_, SR_DONE, 0, 0},
    {"scope_result: a fork refused in submit", call_scope_result, OK_, SR_REJECTED, 0, 0},
    {"scope_first: scope NULL", call_scope_first, EINVAL_, FI_NULL_SCOPE, 0, 0},
    {"scope_first: out_index NULL", call_scope_first, EINVAL_, FI_NULL_OUT, 0, 0},
    {"scope_first: COLLECT_ALL (none, a fork failed)", call_scope_first, GROUPCONC_ENOTFOUND, FI_NONE_COLLECT, 0, 0},
    {"scope_first: SHUTDOWN_ON_SUCCESS, none succeeded", call_scope_first, GROUPCONC_ENOTFOUND, FI_NONE_ON_SUCCESS, 0, 0},
    {"scope_first: no forks", call_scope_first, GROUPCONC_ENOTFOUND, FI_EMPTY, 0, 0},
    {"scope_first: SHUTDOWN_ON_FAILURE, the failure", call_scope_first, OK_, FI_ON_FAILURE, 0, 0},
    {"scope_first: SHUTDOWN_ON_SUCCESS, the success", call_scope_first, OK_, FI_ON_SUCCESS, 0, 0},
    {"scope_first_set: NULL", call_scope_first_set, EINVAL_, FS_NULL, 0, 0},
    {"scope_first_set: index == fork count (nothing set)", call_scope_first_set, GROUPCONC_ENOTFOUND, FS_RANGE, 0, 0},
    {"scope_first_set: index SIZE_MAX (nothing set)", call_scope_first_set, GROUPCONC_ENOTFOUND, FS_RANGE, 1, 0},
    {"scope_first_set: index 0, no forks", call_scope_first_set, GROUPCONC_ENOTFOUND, FS_EMPTY, 0, 0},
    {"scope_first_set: twice (the first call wins)", call_scope_first_set, OK_, FS_FIRST_WINS, 0, 0},
    {"scope_first_set: COLLECT_ALL (the policy decides: nothing set)", call_scope_first_set, GROUPCONC_ESCOPE_POLICY,
     FS_NOT_CUSTOM, GROUPCONC_SCOPE_COLLECT_ALL, 0},
    {"scope_first_set: SHUTDOWN_ON_FAILURE (the policy decides: nothing set)", call_scope_first_set,
     GROUPCONC_ESCOPE_POLICY, FS_NOT_CUSTOM, GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, 0},
    {"scope_first_set: SHUTDOWN_ON_SUCCESS (the policy decides: nothing set)", call_scope_first_set,
     GROUPCONC_ESCOPE_POLICY, FS_NOT_CUSTOM, GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, 0},
    {"scope_fork_count: NULL is 0; refused forks not counted", call_scope_fork_count, OK_, 0, 0, 0},
    {"scope_policy_name: every policy, unknown values", call_scope_policy_name, OK_, 0, 0, 0},
#endif
    /* structured scopes: executor_destroy */
#ifndef GROUPCONC_NO_SCOPES
    {"executor_destroy: a scope open (nothing done)", call_destroy_with_scope, GROUPCONC_EBUSY, XS_OPEN, 0, 0},
    {"executor_destroy: a scope with a running fork (nothing done)", call_destroy_with_scope, GROUPCONC_EBUSY,
     XS_PARKED_FORK, 0, 0},
    {"executor_destroy: a scope joined, not closed", call_destroy_with_scope, GROUPCONC_EBUSY, XS_JOINED, 0, 0},
    {"executor_destroy: a scope open, after shutdown", call_destroy_with_scope, GROUPCONC_EBUSY, XS_AFTER_SHUTDOWN, 0, 0},
    {"executor_destroy: its scope closed first", call_destroy_with_scope, OK_, XS_CLOSED, 0, 0},
    {"executor_destroy: another executor's scope open", call_destroy_with_scope, OK_, XS_OTHER_EXECUTORS_SCOPE, 0, 0},
#endif
    /* the dump */
#ifndef GROUPCONC_NO_DUMP
    {"executor_dump: executor NULL (buf untouched)", call_dump, EINVAL_, DU_NULL_EX, 0, 0},
    {"executor_dump: executor NULL, buf NULL", call_dump, EINVAL_, DU_NULL_EX_NULL_BUF, 0, 0},
    {"executor_dump: buf NULL, size 5", call_dump, EINVAL_, DU_NULL_BUF_SIZE, 5, 0},
    {"executor_dump: buf NULL, size SIZE_MAX", call_dump, EINVAL_, DU_NULL_BUF_SIZE, -1, 0},
    {"executor_dump: buf NULL, size 0 (the size it needs)", call_dump, GROUPCONC_ERANGE, DU_NULL_BUF_ZERO, 0, 0},
    {"executor_dump: size 0 (buf untouched)", call_dump, GROUPCONC_ERANGE, DU_ZERO_SIZE, 0, 0},
    {"executor_dump: size 1 (just the NUL)", call_dump, GROUPCONC_ERANGE, DU_SIZE, 1, 0},
    {"executor_dump: size 16 (a prefix)", call_dump, GROUPCONC_ERANGE, DU_SIZE, 16, 0},
    {"executor_dump: one byte short", call_dump, GROUPCONC_ERANGE, DU_ONE_SHORT, 0, 0},
    {"executor_dump: exactly the size it needs", call_dump, OK_, DU_EXACT, 0, 0},
    {"executor_dump: out_needed NULL, too small", call_dump, GROUPCONC_ERANGE, DU_NULL_NEEDED_SHORT, 0, 0},
    {"executor_dump: out_needed NULL, fits", call_dump, OK_, DU_NULL_NEEDED_EXACT, 0, 0},
#endif
#if !defined(GROUPCONC_NO_DUMP) && !defined(GROUPCONC_NO_SCOPES)
    {"executor_dump: too small, live executor with a scope", call_dump, GROUPCONC_ERANGE, DU_LIVE, 0, 0},
#endif
#ifndef GROUPCONC_NO_DUMP
    {"executor_dump_file: executor NULL (nothing written)", call_dump_file, EINVAL_, DFL_NULL_EX, 0, 0},
    {"executor_dump_file: file NULL", call_dump_file, EINVAL_, DFL_NULL_FILE, 0, 0},
    {"executor_dump_file: both NULL", call_dump_file, EINVAL_, DFL_BOTH_NULL, 0, 0},
    {"executor_dump_file: /dev/full", call_dump_file, GROUPCONC_EIO, DFL_DEV_FULL, 0, 0},
    {"executor_dump_file: a read-only stream", call_dump_file, GROUPCONC_EIO, DFL_READ_ONLY, 0, 0},
    {"executor_dump_file: a temporary file (the whole dump)", call_dump_file, OK_, DFL_OK, 0, 0},
#endif
    /* fleet layer: groupconc_fleet_answer */
    {"fleet_answer: request NULL", call_fleet_answer, EINVAL_, FA_NULL, 0, 0},
    {"fleet_answer: verdict -1 (unanswered)", call_fleet_answer, EINVAL_, FA_VERDICT, -1, 0},
    {"fleet_answer: verdict FLEET_OPEN+1 (unanswered)", call_fleet_answer, EINVAL_, FA_VERDICT, GROUPCONC_FLEET_OPEN + 1, 0},
    {"fleet_answer: verdict INT_MAX (unanswered)", call_fleet_answer, EINVAL_, FA_VERDICT, INT_MAX, 0},
    {"fleet_answer: verdict INT_MIN (unanswered)", call_fleet_answer, EINVAL_, FA_VERDICT, INT_MIN, 0},
    {"fleet_answer: from the resolver (unanswered)", call_fleet_answer, GROUPCONC_EDEADLK, FA_IN_RESOLVER, 0, 0},
    /* fleet layer: groupconc_fleet_notify (a task answered BUSY waits in "fl") */
    {"fleet_notify: ex NULL (not asked again)", call_fleet_notify, EINVAL_, FN_NULL_EX, 0, 0},
    {"fleet_notify: executor without a fleet provider", call_fleet_notify, EINVAL_, FN_NO_PROVIDER, 0, 0},
    {"fleet_notify: executor without a fleet provider, group NULL", call_fleet_notify, EINVAL_, FN_NO_PROVIDER, 1, 0},
    {"fleet_notify: group empty (not asked again)", call_fleet_notify, GROUPCONC_EKEYEMPTY, FN_EMPTY, 0, 0},
    {"fleet_notify: group MAX_KEY_LEN+1 bytes (not asked again)", call_fleet_notify, GROUPCONC_EKEYTOOLONG, FN_LONG, 0, 0},
    {"fleet_notify: group NULL (every BUSY task asked again)", call_fleet_notify, OK_, FN_NULL_GROUP, 0, 0},
    {"fleet_notify: group MAX_KEY_LEN bytes, nothing waits there", call_fleet_notify, OK_, FN_MAX_KEY, 0, 0},
    {"fleet_notify: from the resolver (not asked again)", call_fleet_notify, GROUPCONC_EDEADLK, FN_IN_RESOLVER, 0, 0},
    /* fleet layer: groupconc_fleet_report */
    {"fleet_report: ex NULL", call_fleet_report, EINVAL_, FP_NULL_EX, 0, 0},
    {"fleet_report: reason EFLEET_OPEN (not counted)", call_fleet_report, EINVAL_, FP_REASON, GROUPCONC_EFLEET_OPEN, 0},
    {"fleet_report: reason 0 (not counted)", call_fleet_report, EINVAL_, FP_REASON, 0, 0},
    {"fleet_report: reason -1 (not counted)", call_fleet_report, EINVAL_, FP_REASON, -1, 0},
    {"fleet_report: reason EREJECTED_FLEET (not counted)", call_fleet_report, EINVAL_, FP_REASON,
     GROUPCONC_EREJECTED_FLEET, 0},
    {"fleet_report: reason -41, unknown (not counted)", call_fleet_report, EINVAL_, FP_REASON, -41, 0},
    {"fleet_report: reason INT_MAX (not counted)", call_fleet_report, EINVAL_, FP_REASON, INT_MAX, 0},
    {"fleet_report: group empty (not counted)", call_fleet_report, GROUPCONC_EKEYEMPTY, FP_EMPTY, 0, 0},
    {"fleet_report: group MAX_KEY_LEN+1 bytes (not counted)", call_fleet_report, GROUPCONC_EKEYTOOLONG, FP_LONG, 0, 0},
    {"fleet_report: group NULL, EFLEET_RENEW (counted once)", call_fleet_report, OK_, FP_NULL_GROUP, 0, 0},
    {"fleet_report: group MAX_KEY_LEN bytes, EFLEET_RENEW (counted once)", call_fleet_report, OK_, FP_MAX_KEY, 0, 0},
    {"fleet_report: from the resolver (not counted)", call_fleet_report, GROUPCONC_EDEADLK, FP_IN_RESOLVER, 0, 0},
    {"fleet_report: executor without a fleet provider (not counted)", call_fleet_report, EINVAL_, FP_NO_PROVIDER, 0, 0},
    /* diagnostics */
    {"error codes: values, texts, names distinct", call_codes_distinct, OK_, 0, 0, 0},
    {"error codes: the thirteen new codes (-29 .. -41) by name and value", call_new_codes, OK_, 0, 0, 0},
    {"strerror/errname: unknown 1", call_unknown_code, OK_, 0, 1, 0},
    {"strerror/errname: unknown -42", call_unknown_code, OK_, 0, -42, 0},
    {"strerror/errname: unknown -1000", call_unknown_code, OK_, 0, -1000, 0},
    {"strerror/errname: unknown INT_MIN", call_unknown_code, OK_, 0, INT_MIN, 0},
    {"strerror/errname: unknown INT_MAX", call_unknown_code, OK_, 0, INT_MAX, 0},
    {"status_name: every status, unknown values", call_status_names, OK_, 0, 0, 0},
    {"cancel_outcome/event_type/rejection_policy/release_kind/gate_event_type names", call_enum_names, OK_, 0, 0, 0},
    {"fleet_verdict_name: every verdict, unknown values", call_fleet_verdict_names, OK_, 0, 0, 0},
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
    const char *only = getenv("GROUPCONC_TEST_ONLY"); /* a cmocka test-name pattern, to rerun one */
    if (only && *only) cmocka_set_test_filter(only);
    return _cmocka_run_group_tests("errors", tests, n, NULL, NULL);
}
