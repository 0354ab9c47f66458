/* test_fleet.c - the fleet layer (section [10]): an external admission provider taken after the four
   local layers, just before a task runs. No Redis: an in-process mock provider keeps a per-group
   lease counter with a cap (GRANTED / BUSY), gives leases back on release and calls
   groupconc_fleet_notify; it answers synchronously inside acquire, or from a provider thread (queue +
   condition variable), or always REJECT, always OPEN, or holds every request until the test answers
   it (HOLD).
     - the fleet cap holds under load (many groups, several submitter threads, sync and async
       answering): never more than the cap of a group runs, the peak reaches it; every task succeeds;
       every lease is given back exactly once, for its own group, and only after the task body
       returned (a deferred task: after groupconc_deferred_complete);
     - FIFO within a group once BUSY (a new task queues behind BUSY ones unasked); a notify asks the
       oldest BUSY task of its group again (one request per freed lease), notify(NULL) every one;
     - cancel of a task whose request is outstanding (the later answer is fine, a GRANTED lease goes
       back at once, its local permits were freed at the cancel) and of a task answered BUSY; every
       verdict arriving after a cancel;
     - queue deadlines at the fleet layer (GROUPCONC_EEXPIRED_FLEET), asked or BUSY, also after a
       wait at the concurrency layer; a group at the fleet layer is not idle (bounded table);
     - the global running cap stays work-conserving: BUSY tasks of one group do not hold it
       against another group's task that could run;
     - REJECT through the rejection policy (ABORT, DISCARD, CALLER_RUNS, a handler), counted in
       rejected_fleet, REJECTED events with GROUPCONC_EREJECTED_FLEET; OPEN: runs, no lease,
       fleet_open, a FLEET event; groupconc_fleet_report;
     - the gauges (waiting_fleet, waiting) and totals;
     - shutdown (immediate, graceful, group, in the middle of a load), destroy waiting for an
       outstanding answer; cancels, deadlines and group shutdowns under load (chaos);
     - bad arguments, policy validation, the names of the new codes and event;
     - pause (group, executor): a paused group asks for no lease and holds none (a late GRANTED is
       given back at once, notifies ask nothing); the resume asks again.
   The mock closes the provider-side lost wake-up itself (a release between its BUSY decision and the
   return of groupconc_fleet_answer makes it notify once more), so the load tests do not depend on
   whether the library remembers a notify that arrives while a request is outstanding; that case is
   a test of its own (named and for all groups: the header promises it, section [10]).
   Known states are built with latches and the mock's counters (and, where the library signals
   nothing, by polling the stats); short timed waits appear only to check that something does NOT
   happen. A mock lives on the heap and tasks find theirs through their executor, so a failed test
   that leaves its executor running does not disturb the next one. FLEET_TEST=<pattern> runs only
   the matching tests. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

#include <limits.h>

/* ==== the mock provider ========================================================================== */

enum { MK_GROUPS = 64, MK_NAME = 64, MK_LEASES = 1 << 17, MK_HELD = 256 };
#define MK_LEASE_BASE ((uint64_t)0x5000000000ull) /* tokens are MK_LEASE_BASE + index: never 0 */

typedef enum mk_decide {
    MK_CAP,    /* GRANTED while the group's leases are under its cap, else BUSY */
    MK_REJECT, /* always REJECT */
    MK_OPEN,   /* always OPEN */
    MK_HOLD    /* keep the request until the test answers it (mk_answer) */
} mk_decide;

typedef enum mk_deliver {
    MK_SYNC, /* answer inside acquire; release calls groupconc_fleet_notify itself */
    MK_ASYNC /* acquire queues; the provider thread answers and sends the notifies */
} mk_deliver;

typedef struct mk_group {
    char name[MK_NAME];
    int cap;
    int held;          /* leases out */
    int active;        /* tasks in their body, or deferred and not completed (the tasks' own count) */
    int peak_active;
    uint64_t gen;      /* releases so far: the lost wake-up check */
    long asks, busy, grants, releases, rejects, opens;
} mk_group;

typedef struct mk_job {
    int kind; /* 0 ask, 1 notify */
    groupconc_fleet_request *req;
    int gi;
} mk_job;

typedef struct mk_held {
    groupconc_fleet_request *req;
    int gi;
    const char *group; /* as passed to acquire (valid until answered) */
} mk_held;

typedef struct mock {
    tu_mutex m;
    tu_cond c;
    mk_decide decide;
    mk_deliver deliver;
    bool track; /* check "a task runs only while its group holds a lease for it" */
    int default_cap;
    groupconc_executor *ex;
    mk_group g[MK_GROUPS];
    int ngroups;
    unsigned char *lease_state; /* 0 never given, 1 out, 2 given back */
    int *lease_group;
    size_t next_lease;
    /* the provider thread's queue */
    mk_job *q;
    size_t qhead, qtail, qcap;
    bool busy_job; /* the provider thread is running a job */
    bool stop;
    bool thread_started;
    tu_thread thread;
    /* HOLD */
    mk_held held[MK_HELD];
    int nheld;
    /* totals */
    long asks, grants, busy, rejects, opens, releases;
    long done_answers;   /* mk_decide_and_answer calls finished (answer returned, re-notify done) */
    long answer_errors;  /* groupconc_fleet_answer returned other than OK (the mock's own answers) */
    long notify_errors;  /* groupconc_fleet_notify returned other than OK */
    long bad_release;    /* unknown lease, a second release, a lease of another group */
    long early_release;  /* a lease given back while its task was still in its body (or deferred) */
    long over_cap;       /* a task body entered with no lease for it */
    long unknown_group;  /* release or a body named a group the mock never saw asked */
} mock;

static mock *mk_new(mk_decide decide, mk_deliver deliver, int cap) {
    /* on the heap, and freed only by mk_finish: a test that fails leaves its executor running, and
       its workers must not reach the next test's mock */
    mock *m = (mock *)calloc(1, sizeof *m);
    assert_non_null(m);
    tu_mutex_init(&m->m);
    tu_cond_init(&m->c);
    m->decide = decide;
    m->deliver = deliver;
    m->track = decide == MK_CAP || decide == MK_HOLD;
    m->default_cap = cap;
    m->lease_state = (unsigned char *)calloc(MK_LEASES, 1);
    m->lease_group = (int *)calloc(MK_LEASES, sizeof(int));
    assert_non_null(m->lease_state);
    assert_non_null(m->lease_group);
    m->qcap = 1024;
    m->q = (mk_job *)calloc(m->qcap, sizeof *m->q);
    assert_non_null(m->q);
    return m;
}

/* The group's slot; created on first sight. Called with m->m held. -1: table full. */
static int mk_gi_locked(mock *m, const char *name, bool create) {
    for (int i = 0; i < m->ngroups; i++)
        if (strcmp(m->g[i].name, name) == 0) return i;
    if (!create || m->ngroups == MK_GROUPS || strlen(name) >= MK_NAME) return -1;
    mk_group *g = &m->g[m->ngroups];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->cap = m->default_cap;
    return m->ngroups++;
}

static void mk_push_locked(mock *m, mk_job j) {
    if (m->qtail - m->qhead == m->qcap) { /* grow: unroll into a new ring */
        mk_job *nq = (mk_job *)calloc(m->qcap * 2, sizeof *nq);
        if (!nq) abort();
        for (size_t i = 0; i < m->qcap; i++) nq[i] = m->q[(m->qhead + i) % m->qcap];
        free(m->q);
        m->q = nq;
        m->qtail = m->qcap;
        m->qhead = 0;
        m->qcap *= 2;
    }
    m->q[m->qtail % m->qcap] = j;
    m->qtail++;
    tu_cond_broadcast(&m->c);
}

static void mk_unregister(mock *m);

static void mk_notify(mock *m, const char *group) {
    int rc = groupconc_fleet_notify(m->ex, group);
    if (rc != GROUPCONC_OK) {
        tu_mutex_lock(&m->m);
        m->notify_errors++;
        tu_mutex_unlock(&m->m);
    }
}

/* Decide (MK_CAP / MK_REJECT / MK_OPEN) and answer, with the mock's lock released for the answer. */
static void mk_decide_and_answer(mock *m, groupconc_fleet_request *req, int gi) {
    groupconc_fleet_verdict v = GROUPCONC_FLEET_BUSY;
    uint64_t lease = 0, gen0 = 0;
    tu_mutex_lock(&m->m);
    mk_group *g = &m->g[gi];
    if (m->decide == MK_REJECT) {
        v = GROUPCONC_FLEET_REJECT;
        g->rejects++, m->rejects++;
    } else if (m->decide == MK_OPEN) {
        v = GROUPCONC_FLEET_OPEN;
        g->opens++, m->opens++;
    } else if (g->held < g->cap && m->next_lease < MK_LEASES) {
        v = GROUPCONC_FLEET_GRANTED;
        size_t idx = m->next_lease++;
        m->lease_state[idx] = 1;
        m->lease_group[idx] = gi;
        lease = MK_LEASE_BASE + idx;
        g->held++;
        g->grants++, m->grants++;
    } else {
        v = GROUPCONC_FLEET_BUSY;
        gen0 = g->gen;
        g->busy++, m->busy++;
    }
    tu_cond_broadcast(&m->c);
    tu_mutex_unlock(&m->m);
    int rc = groupconc_fleet_answer(req, v, lease);
    if (rc != GROUPCONC_OK) {
        tu_mutex_lock(&m->m);
        m->answer_errors++;
        tu_mutex_unlock(&m->m);
    }
    if (v == GROUPCONC_FLEET_BUSY) {
        /* a lease given back between the decision and now may have notified before the library
           knew this task was BUSY: notify once more (what a real provider must do, too) */
        tu_mutex_lock(&m->m);
        bool again = g->gen != gen0;
        tu_mutex_unlock(&m->m);
        if (again) mk_notify(m, g->name);
    }
    tu_mutex_lock(&m->m);
    m->done_answers++;
    tu_cond_broadcast(&m->c);
    tu_mutex_unlock(&m->m);
}

static void mk_acquire(void *user_data, groupconc_fleet_request *request, const char *group) {
    mock *m = (mock *)user_data;
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, true);
    if (gi < 0) abort(); /* the test's own table is too small */
    m->g[gi].asks++;
    m->asks++;
    if (m->decide == MK_HOLD) {
        if (m->nheld == MK_HELD) abort();
        m->held[m->nheld].req = request;
        m->held[m->nheld].gi = gi;
        m->held[m->nheld].group = group;
        m->nheld++;
        tu_cond_broadcast(&m->c);
        tu_mutex_unlock(&m->m);
        return;
    }
    if (m->deliver == MK_ASYNC) {
        mk_job j = {0, request, gi};
        mk_push_locked(m, j);
        tu_mutex_unlock(&m->m);
        return;
    }
    tu_mutex_unlock(&m->m);
    mk_decide_and_answer(m, request, gi);
}

static void mk_release(void *user_data, const char *group, uint64_t lease) {
    mock *m = (mock *)user_data;
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, false);
    if (gi < 0) {
        m->unknown_group++;
        tu_cond_broadcast(&m->c);
        tu_mutex_unlock(&m->m);
        return;
    }
    mk_group *g = &m->g[gi];
    uint64_t idx64 = lease - MK_LEASE_BASE;
    if (lease < MK_LEASE_BASE || idx64 >= (uint64_t)MK_LEASES || m->lease_state[idx64] != 1 ||
        m->lease_group[idx64] != gi) {
        m->bad_release++;
    } else {
        m->lease_state[idx64] = 2;
        g->held--;
        if (m->track && g->active > g->held) m->early_release++;
    }
    g->releases++, m->releases++;
    g->gen++;
    bool notify = m->decide == MK_CAP;
    if (notify && m->deliver == MK_ASYNC) {
        mk_job j = {1, NULL, gi};
        mk_push_locked(m, j);
        notify = false;
    }
    tu_cond_broadcast(&m->c);
    tu_mutex_unlock(&m->m);
    if (notify) mk_notify(m, g->name); /* g->name never moves */
}

static void mk_thread_main(void *arg) {
    mock *m = (mock *)arg;
    tu_mutex_lock(&m->m);
    for (;;) {
        while (m->qhead == m->qtail && !m->stop) tu_cond_wait_until(&m->c, &m->m, tu_now_ns() + 100 * TU_MS);
        if (m->qhead == m->qtail) break; /* stop, and nothing left */
        mk_job j = m->q[m->qhead % m->qcap];
        m->qhead++;
        m->busy_job = true;
        tu_mutex_unlock(&m->m);
        if (j.kind == 0) mk_decide_and_answer(m, j.req, j.gi);
        else mk_notify(m, m->g[j.gi].name);
        tu_mutex_lock(&m->m);
        m->busy_job = false;
        tu_cond_broadcast(&m->c);
    }
    tu_mutex_unlock(&m->m);
}

static groupconc_fleet_provider mk_provider(mock *m) {
    groupconc_fleet_provider p;
    p.acquire = mk_acquire;
    p.release = mk_release;
    p.user_data = m;
    return p;
}

/* After groupconc_executor_create: the executor to notify; start the provider thread (ASYNC). */
static void mk_attach(mock *m, groupconc_executor *ex) {
    tu_mutex_lock(&m->m);
    m->ex = ex;
    tu_mutex_unlock(&m->m);
    if (m->deliver == MK_ASYNC && m->decide != MK_HOLD) {
        assert_true(tu_thread_start(&m->thread, mk_thread_main, m));
        m->thread_started = true;
    }
}

/* Wait (bounded) until the provider thread has nothing queued and runs nothing: no notify of it can
   reach the executor afterwards (call it before destroy, once every task is done). */
static void mk_quiesce(mock *m) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    tu_mutex_lock(&m->m);
    while ((m->qhead != m->qtail || m->busy_job) && tu_now_ns() < deadline)
        tu_cond_wait_until(&m->c, &m->m, deadline);
    bool idle = m->qhead == m->qtail && !m->busy_job;
    tu_mutex_unlock(&m->m);
    assert_true(idle);
}

/* After groupconc_executor_destroy: stop the thread, check the bookkeeping, free. */
static void mk_finish(mock *m) {
    if (m->thread_started) {
        tu_mutex_lock(&m->m);
        m->stop = true;
        tu_cond_broadcast(&m->c);
        tu_mutex_unlock(&m->m);
        tu_thread_join(m->thread);
        m->thread_started = false;
    }
    if (m->answer_errors || m->notify_errors || m->bad_release || m->early_release || m->over_cap ||
        m->unknown_group || m->nheld)
        print_message("mock: answer_errors %ld notify_errors %ld bad_release %ld early_release %ld over_cap %ld "
                      "unknown_group %ld unanswered %d\n",
                      m->answer_errors, m->notify_errors, m->bad_release, m->early_release, m->over_cap,
                      m->unknown_group, m->nheld);
    assert_int_equal(m->answer_errors, 0);
    assert_int_equal(m->notify_errors, 0);
    assert_int_equal(m->bad_release, 0);
    assert_int_equal(m->early_release, 0);
    assert_int_equal(m->over_cap, 0);
    assert_int_equal(m->unknown_group, 0);
    assert_int_equal(m->nheld, 0); /* every held request was answered by the test */
    mk_unregister(m);
    free(m->lease_state);
    free(m->lease_group);
    free(m->q);
    tu_cond_destroy(&m->c);
    tu_mutex_destroy(&m->m);
    free(m);
}

/* Every lease given out came back exactly once. */
static void mk_check_all_returned(mock *m) {
    tu_mutex_lock(&m->m);
    long grants = m->grants, releases = m->releases;
    size_t out = 0, n = m->next_lease;
    for (size_t i = 0; i < n; i++)
        if (m->lease_state[i] != 2) out++;
    int held = 0;
    for (int i = 0; i < m->ngroups; i++) held += m->g[i].held;
    tu_mutex_unlock(&m->m);
    if (grants != releases || out || held) print_message("grants %ld releases %ld not returned %zu held %d\n", grants, releases, out, held);
    assert_int_equal(grants, releases);
    assert_int_equal(out, 0);
    assert_int_equal(held, 0);
}

/* Read a counter under the mock's lock. */
static long mk_get(mock *m, const long *field) {
    tu_mutex_lock(&m->m);
    long v = *field;
    tu_mutex_unlock(&m->m);
    return v;
}

/* Wait (bounded) until *field >= want; returns whether it got there. */
static bool mk_wait_long(mock *m, const long *field, long want) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    tu_mutex_lock(&m->m);
    while (*field < want && tu_now_ns() < deadline) tu_cond_wait_until(&m->c, &m->m, deadline);
    bool ok = *field >= want;
    tu_mutex_unlock(&m->m);
    return ok;
}

/* HOLD: wait until at least n requests are held. */
static bool mk_wait_held(mock *m, int n, int64_t timeout_ns) {
    int64_t deadline = tu_now_ns() + timeout_ns;
    tu_mutex_lock(&m->m);
    while (m->nheld < n && tu_now_ns() < deadline) tu_cond_wait_until(&m->c, &m->m, deadline);
    bool ok = m->nheld >= n;
    tu_mutex_unlock(&m->m);
    return ok;
}

static int mk_nheld(mock *m) {
    tu_mutex_lock(&m->m);
    int n = m->nheld;
    tu_mutex_unlock(&m->m);
    return n;
}

/* HOLD: answer held request i (0: the oldest) with v; a GRANTED answer gets a fresh lease, counted
   as held by the group. Returns what groupconc_fleet_answer returned; *out_lease (may be NULL). */
static int mk_answer_at(mock *m, int i, groupconc_fleet_verdict v, uint64_t *out_lease) {
    tu_mutex_lock(&m->m);
    assert_true(i >= 0 && i < m->nheld);
    mk_held h = m->held[i];
    memmove(&m->held[i], &m->held[i + 1], (size_t)(m->nheld - i - 1) * sizeof m->held[0]);
    m->nheld--;
    uint64_t lease = 0;
    mk_group *g = &m->g[h.gi];
    if (v == GROUPCONC_FLEET_GRANTED) {
        size_t idx = m->next_lease++;
        m->lease_state[idx] = 1;
        m->lease_group[idx] = h.gi;
        lease = MK_LEASE_BASE + idx;
        g->held++;
        g->grants++, m->grants++;
    } else if (v == GROUPCONC_FLEET_BUSY) {
        g->busy++, m->busy++;
    } else if (v == GROUPCONC_FLEET_REJECT) {
        g->rejects++, m->rejects++;
    } else if (v == GROUPCONC_FLEET_OPEN) {
        g->opens++, m->opens++;
    }
    tu_mutex_unlock(&m->m);
    if (out_lease) *out_lease = lease;
    return groupconc_fleet_answer(h.req, v, lease);
}

static int mk_answer(mock *m, groupconc_fleet_verdict v) { return mk_answer_at(m, 0, v, NULL); }

/* The group name of held request i. */
static void mk_held_group(mock *m, int i, char *out, size_t size) {
    tu_mutex_lock(&m->m);
    assert_true(i >= 0 && i < m->nheld);
    snprintf(out, size, "%s", m->g[m->held[i].gi].name);
    tu_mutex_unlock(&m->m);
}

/* Set a group's cap without notifying (capacity that appears elsewhere in the fleet). */
static void mk_set_cap(mock *m, const char *group, int cap) {
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, true);
    assert_true(gi >= 0);
    m->g[gi].cap = cap;
    tu_mutex_unlock(&m->m);
}

static mk_group mk_group_get(mock *m, const char *group) {
    mk_group copy;
    memset(&copy, 0, sizeof copy);
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, false);
    if (gi >= 0) copy = m->g[gi];
    tu_mutex_unlock(&m->m);
    return copy;
}

/* A lease token's state: 0 never given, 1 out, 2 given back (a second release is a bad_release). */
static int mk_lease_state(mock *m, uint64_t lease) {
    tu_mutex_lock(&m->m);
    int s = m->lease_state[lease - MK_LEASE_BASE];
    tu_mutex_unlock(&m->m);
    return s;
}

/* ---- the tasks' side of the bookkeeping ----------------------------------------------------------- */

/* Which mock an executor's tasks report to (a task finds its executor through its context). */
enum { MK_REG = 64 };
static struct {
    groupconc_executor *ex;
    mock *m;
} mk_reg[MK_REG];
static tu_mutex mk_reg_lock; /* initialised in main */

static void mk_register(mock *m, groupconc_executor *ex) {
    tu_mutex_lock(&mk_reg_lock);
    int i = 0;
    while (i < MK_REG && mk_reg[i].m) i++;
    if (i == MK_REG) abort();
    mk_reg[i].ex = ex;
    mk_reg[i].m = m;
    tu_mutex_unlock(&mk_reg_lock);
}

static void mk_unregister(mock *m) {
    tu_mutex_lock(&mk_reg_lock);
    for (int i = 0; i < MK_REG; i++)
        if (mk_reg[i].m == m) mk_reg[i].m = NULL, mk_reg[i].ex = NULL;
    tu_mutex_unlock(&mk_reg_lock);
}

static mock *mk_of(groupconc_context *ctx) {
    groupconc_executor *ex = groupconc_context_executor(ctx);
    mock *m = NULL;
    tu_mutex_lock(&mk_reg_lock);
    for (int i = 0; i < MK_REG && !m; i++)
        if (mk_reg[i].m && mk_reg[i].ex == ex) m = mk_reg[i].m;
    tu_mutex_unlock(&mk_reg_lock);
    if (!m) abort(); /* a task of an executor with no mock */
    return m;
}

/* A task body starts: it must hold a lease of its group (with tracking on). */
static void mk_enter(mock *m, const char *group) {
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, false);
    if (gi < 0) {
        m->unknown_group++;
    } else {
        mk_group *g = &m->g[gi];
        g->active++;
        if (g->active > g->peak_active) g->peak_active = g->active;
        if (m->track && g->active > g->held) m->over_cap++;
    }
    tu_cond_broadcast(&m->c);
    tu_mutex_unlock(&m->m);
}

static void mk_leave(mock *m, const char *group) {
    tu_mutex_lock(&m->m);
    int gi = mk_gi_locked(m, group, false);
    if (gi >= 0) m->g[gi].active--;
    tu_cond_broadcast(&m->c);
    tu_mutex_unlock(&m->m);
}

/* Parked task under the bookkeeping: arg is a tu_park. */
static int fpark_fn(groupconc_context *ctx, void **out_value, void *arg) {
    const char *group = groupconc_context_group(ctx);
    mk_enter(mk_of(ctx), group);
    int rc = tu_park_fn(ctx, out_value, arg);
    mk_leave(mk_of(ctx), group);
    return rc;
}

/* Short task under the bookkeeping: arg is the work in microseconds (cast from uintptr_t). */
static int work_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)out_value;
    const char *group = groupconc_context_group(ctx);
    mk_enter(mk_of(ctx), group);
    uintptr_t us = (uintptr_t)arg;
    /* a task that sleeps says so: the pool starts a worker for the next one at once (without the
       hint, 2 ms sleeps may finish too often for the pool's watch to count them blocked) */
    if (us) (void)groupconc_context_blocking(ctx);
    if (us) tu_sleep_ns((int64_t)us * 1000);
    else tu_spin(2000);
    mk_leave(mk_of(ctx), group);
    return 0;
}

/* ==== event recorder (the listener) ============================================================== */

enum { REC_MAX = 8192, REC_STR = 40 };

typedef struct rec_event {
    groupconc_event_type type;
    char group[REC_STR];
    char id[REC_STR];
    bool id_null;
    int reason;
    int status;        /* COMPLETED: result->status */
    int result_reason; /* COMPLETED: result->reason */
} rec_event;

typedef struct recorder {
    tu_mutex m;
    tu_cond c;
    int n;
    bool overflow;
    rec_event ev[REC_MAX];
} recorder;

static recorder *rec_new(void) {
    recorder *r = (recorder *)calloc(1, sizeof *r);
    assert_non_null(r);
    tu_mutex_init(&r->m);
    tu_cond_init(&r->c);
    return r;
}

static void rec_free(recorder *r) {
    assert_false(r->overflow);
    tu_cond_destroy(&r->c);
    tu_mutex_destroy(&r->m);
    free(r);
}

static void rec_listener(const groupconc_event *e, void *user_data) {
    recorder *r = (recorder *)user_data;
    rec_event x;
    memset(&x, 0, sizeof x);
    x.type = e->type;
    snprintf(x.group, sizeof x.group, "%s", e->group ? e->group : "(null)");
    x.id_null = e->task_id == NULL;
    snprintf(x.id, sizeof x.id, "%s", e->task_id ? e->task_id : "");
    x.reason = e->reason;
    if (e->type == GROUPCONC_EVENT_COMPLETED && e->result) {
        x.status = (int)e->result->status;
        x.result_reason = e->result->reason;
    }
    tu_mutex_lock(&r->m);
    if (r->n < REC_MAX) r->ev[r->n++] = x;
    else r->overflow = true;
    tu_cond_broadcast(&r->c);
    tu_mutex_unlock(&r->m);
}

/* Events of `type` (about task `id`, or any task if id is NULL). */
static int rec_count(recorder *r, groupconc_event_type type, const char *id) {
    int n = 0;
    tu_mutex_lock(&r->m);
    for (int i = 0; i < r->n; i++)
        if (r->ev[i].type == type && (!id || strcmp(r->ev[i].id, id) == 0)) n++;
    tu_mutex_unlock(&r->m);
    return n;
}

/* Wait (bounded) until there are at least n events of `type`. */
static bool rec_wait_count(recorder *r, groupconc_event_type type, int n) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        if (rec_count(r, type, NULL) >= n) return true;
        tu_mutex_lock(&r->m);
        if (tu_now_ns() < deadline) tu_cond_wait_until(&r->c, &r->m, tu_now_ns() + 10 * TU_MS);
        tu_mutex_unlock(&r->m);
        if (tu_now_ns() >= deadline) return rec_count(r, type, NULL) >= n;
    }
}

/* Wait (bounded) for an event of `type` about `id` (NULL: any); returns a copy; found = false on
   timeout. */
static rec_event rec_wait(recorder *r, groupconc_event_type type, const char *id, bool *found) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    rec_event out;
    memset(&out, 0, sizeof out);
    *found = false;
    tu_mutex_lock(&r->m);
    for (;;) {
        for (int i = 0; i < r->n && !*found; i++)
            if (r->ev[i].type == type && (!id || strcmp(r->ev[i].id, id) == 0)) {
                out = r->ev[i];
                *found = true;
            }
        if (*found || tu_now_ns() >= deadline) break;
        tu_cond_wait_until(&r->c, &r->m, deadline);
    }
    tu_mutex_unlock(&r->m);
    return out;
}

/* ==== helpers ====================================================================================== */

static groupconc_policy fleet_policy(mock *m, recorder *r) {
    groupconc_policy p = groupconc_policy_default();
    p.fleet = mk_provider(m);
    if (r) {
        p.listener = rec_listener;
        p.listener_user_data = r;
    }
    return p;
}

static groupconc_executor *fleet_executor(const groupconc_policy *p, mock *m) {
    groupconc_executor *ex = tu_executor(p);
    mk_attach(m, ex);
    mk_register(m, ex);
    return ex;
}

/* The executor's totals add up: completed is the sum of the outcome counters (rejected_fleet
   included), and nothing is left in progress. */
static void check_totals_settled(groupconc_executor *ex) {
    groupconc_executor_stats s = tu_xstats(ex);
    uint64_t sum = s.succeeded + s.failed + s.cancelled + s.rejected_global + s.rejected_bulkhead +
                   s.rejected_concurrency + s.rejected_waiting + s.expired + s.rejected_other + s.rejected_fleet;
    if (s.completed != sum || s.submitted != s.completed)
        print_message("submitted %llu completed %llu sum %llu (rejected_fleet %llu expired %llu cancelled %llu)\n",
                      (unsigned long long)s.submitted, (unsigned long long)s.completed, (unsigned long long)sum,
                      (unsigned long long)s.rejected_fleet, (unsigned long long)s.expired,
                      (unsigned long long)s.cancelled);
    assert_int_equal(s.completed, sum);
    assert_int_equal(s.submitted, s.completed);
    assert_int_equal(s.waiting_fleet, 0);
    assert_int_equal(s.waiting, 0);
    assert_int_equal(s.running, 0);
}

static void count_cleanup(void *arg) { atomic_fetch_add(&((tu_park *)arg)->ran, 1000); }

/* Submit a parked task with an id, optionally a cleanup (it adds 1000 to park->ran: a task that ran
   and was cleaned up has ran == 1001, one that never ran 1000) and a queue deadline. */
static groupconc_task *fp_submit(groupconc_executor *ex, const char *group, const char *id, tu_park *p,
                                 bool cleanup, int64_t max_wait_ns) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = group;
    spec.task_id = id;
    spec.fn = fpark_fn;
    spec.arg = p;
    spec.cleanup = cleanup ? count_cleanup : NULL;
    spec.max_wait_ns = max_wait_ns;
    groupconc_task *h = NULL;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &h), GROUPCONC_OK);
    assert_non_null(h);
    return h;
}

static bool started_yet(tu_park *p) { return atomic_load(&p->ran) % 1000 != 0; }

/* Wait (bounded, polling the stats: the library signals nothing here) until `group` has n tasks at
   the fleet layer. */
static bool wait_waiting_fleet(groupconc_executor *ex, const char *group, size_t n) {
    int64_t deadline = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        groupconc_group_stats s;
        if (groupconc_group_stats_get(ex, group, &s) == GROUPCONC_OK && s.waiting_fleet == n) return true;
        if (tu_now_ns() > deadline) return false;
        tu_sleep_ns(TU_MS / 5);
    }
}

/* ==== the fleet cap under load ===================================================================== */

enum { LOAD_GROUPS = 12, LOAD_SUBMITTERS = 4 };

typedef struct load_ctx {
    groupconc_executor *ex;
    groupconc_task **h; /* [LOAD_SUBMITTERS * per] */
    int per;            /* tasks per submitter */
    int index;
    atomic_int submit_errors;
    uintptr_t work_us;
} load_ctx;

typedef struct load_thread {
    load_ctx *lc;
    int index;
} load_thread;

static void load_group_name(char *buf, size_t size, int g) { snprintf(buf, size, "tenant-%02d", g); }

static void load_submitter(void *arg) {
    load_thread *t = (load_thread *)arg;
    load_ctx *lc = t->lc;
    uint32_t seed = 0x1234567u + (uint32_t)t->index * 7919u;
    for (int k = 0; k < lc->per; k++) {
        char key[32];
        load_group_name(key, sizeof key, (int)(tu_rand(&seed) % LOAD_GROUPS));
        groupconc_task *h = NULL;
        int rc = groupconc_submit(lc->ex, key, NULL, work_fn, (void *)lc->work_us, &h);
        if (rc != GROUPCONC_OK) atomic_fetch_add(&lc->submit_errors, 1);
        lc->h[t->index * lc->per + k] = h;
    }
}

/* Fleet caps 1..4 (by group), local concurrency 8 > every cap; 4 submitter threads. */
static void run_load(mk_deliver deliver) {
    const int per = (int)(300 * tu_stress_scale()) + 1;
    mock *m = mk_new(MK_CAP, deliver, 1);
    for (int g = 0; g < LOAD_GROUPS; g++) {
        char key[32];
        load_group_name(key, sizeof key, g);
        mk_set_cap(m, key, 1 + g % 4);
    }
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 8;
    p.max_threads = 48;
    groupconc_executor *ex = fleet_executor(&p, m);
    load_ctx lc;
    memset(&lc, 0, sizeof lc);
    lc.ex = ex;
    lc.per = per;
    lc.work_us = 2000; /* long enough that a group reaches its cap even under TSan */
    atomic_init(&lc.submit_errors, 0);
    lc.h = (groupconc_task **)calloc((size_t)(per * LOAD_SUBMITTERS), sizeof *lc.h);
    assert_non_null(lc.h);
    tu_thread th[LOAD_SUBMITTERS];
    load_thread lt[LOAD_SUBMITTERS];
    for (int i = 0; i < LOAD_SUBMITTERS; i++) {
        lt[i].lc = &lc;
        lt[i].index = i;
        assert_true(tu_thread_start(&th[i], load_submitter, &lt[i]));
    }
    for (int i = 0; i < LOAD_SUBMITTERS; i++) tu_thread_join(th[i]);
    assert_int_equal(atomic_load(&lc.submit_errors), 0);
    int n = per * LOAD_SUBMITTERS;
    for (int i = 0; i < n; i++) {
        groupconc_result r = tu_wait(lc.h[i]);
        if (r.status != GROUPCONC_STATUS_SUCCESS)
            print_message("task %d: %s reason %s\n", i, groupconc_status_name(r.status), groupconc_errname(r.reason));
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(groupconc_task_release(lc.h[i]), GROUPCONC_OK);
    }
    /* every task waited for: every lease is back (release runs before the task's completion is
       visible) */
    mk_check_all_returned(m);
    for (int g = 0; g < LOAD_GROUPS; g++) {
        char key[32];
        load_group_name(key, sizeof key, g);
        mk_group mg = mk_group_get(m, key);
        groupconc_group_stats gs = tu_gstats(ex, key);
        print_message("%s cap %d: peak %d, asks %ld, busy %ld, grants %ld\n", key, mg.cap, mg.peak_active, mg.asks,
                      mg.busy, mg.grants);
        assert_true(mg.peak_active <= mg.cap);
        assert_int_equal(mg.peak_active, mg.cap); /* under this load every group reaches its cap */
        assert_int_equal((long)gs.succeeded, mg.grants);
        assert_int_equal(gs.waiting_fleet, 0);
    }
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.succeeded, (uint64_t)n);
    assert_int_equal(xs.fleet_open, 0);
    assert_int_equal(xs.rejected_fleet, 0);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    free(lc.h);
}

static void test_cap_holds_under_load_sync(void **state) {
    (void)state;
    run_load(MK_SYNC);
}

static void test_cap_holds_under_load_async(void **state) {
    (void)state;
    run_load(MK_ASYNC);
}

/* ==== a lease is held only while the task runs ========================================================= */

typedef struct defer_box {
    tu_latch deferred; /* counted down just before the body returns PENDING */
    groupconc_deferred *handle;
} defer_box;

static int defer_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)out_value;
    defer_box *b = (defer_box *)arg;
    mk_enter(mk_of(ctx), groupconc_context_group(ctx));
    if (groupconc_context_defer(ctx, &b->handle) != GROUPCONC_OK) {
        mk_leave(mk_of(ctx), groupconc_context_group(ctx));
        return 1; /* the test sees FAILED */
    }
    tu_latch_count_down(&b->deferred);
    return GROUPCONC_TASK_PENDING;
}

/* Fleet cap 1, local concurrency 2: a parked task holds the lease; the second one waits BUSY; the
   lease comes back only when the first returns (checked by the mock at each release: no task of the
   group may still be in its body). The same with a deferred task: its lease comes back at
   groupconc_deferred_complete, not when its body returned. */
static void test_lease_held_while_running(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 2;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    tu_park a, b;
    tu_park_init(&a, &started, &order);
    tu_park_init(&b, &started, &order);
    groupconc_task *ha = fp_submit(ex, "run", "a", &a, false, 0);
    assert_true(tu_latch_wait(&started));
    groupconc_task *hb = fp_submit(ex, "run", "b", &b, false, 0);
    assert_true(mk_wait_long(m, &m->busy, 1));
    assert_false(started_yet(&b));
    assert_int_equal(mk_get(m, &m->releases), 0);
    assert_int_equal(tu_gstats(ex, "run").waiting_fleet, 1);
    tu_latch_add(&started, 1);
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(mk_get(m, &m->releases), 1);
    assert_true(tu_latch_wait(&started)); /* b granted after a's release */
    tu_park_release(&b);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(mk_get(m, &m->releases), 2);

    /* deferred: d defers and returns; e waits BUSY until d completes */
    defer_box box;
    tu_latch_init(&box.deferred, 1);
    box.handle = NULL;
    groupconc_task *hd = tu_submit(ex, "run", "d", defer_fn, &box);
    assert_true(tu_latch_wait(&box.deferred));
    tu_park e;
    tu_latch_add(&started, 1);
    tu_park_init(&e, &started, &order);
    groupconc_task *he = fp_submit(ex, "run", "e", &e, false, 0);
    assert_true(mk_wait_long(m, &m->busy, 2));
    /* d's body has returned: give the library every chance to release d's lease wrongly */
    assert_false(tu_latch_wait_for(&started, 50 * TU_MS));
    assert_int_equal(mk_get(m, &m->releases), 2);
    assert_false(started_yet(&e));
    assert_int_equal(tu_gstats(ex, "run").running, 1); /* d, deferred */
    assert_int_equal(tu_gstats(ex, "run").waiting_fleet, 1);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(hd, &done), GROUPCONC_OK);
    assert_false(done);
    mk_leave(m, "run");
    assert_int_equal(groupconc_deferred_complete(box.handle, 0, NULL), GROUPCONC_OK);
    tu_wait_status(hd, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(mk_get(m, &m->releases), 3);
    assert_true(tu_latch_wait(&started)); /* e granted after d's release */
    tu_park_release(&e);
    tu_wait_status(he, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    groupconc_task *all[] = {ha, hb, hd, he};
    for (int i = 0; i < 4; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&e);
    tu_latch_destroy(&box.deferred);
    tu_latch_destroy(&started);
}

/* ==== FIFO once BUSY ================================================================================= */

/* Fleet cap 1, local concurrency 8: A holds the lease; B1 is answered BUSY, B2..B5 queue behind it;
   each release notifies, the oldest BUSY task is asked again, and they run in submission order. */
static void run_fifo(mk_deliver deliver) {
    enum { NB = 5 };
    mock *m = mk_new(MK_CAP, deliver, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 8;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    tu_park pk[NB + 1];
    groupconc_task *h[NB + 1];
    for (int i = 0; i <= NB; i++) tu_park_init(&pk[i], &started, &order);
    h[0] = fp_submit(ex, "fifo", "A", &pk[0], false, 0);
    assert_true(tu_latch_wait(&started));
    /* B1 is asked and answered BUSY; B2 .. B5 then queue behind it unasked */
    for (int i = 1; i <= NB; i++) {
        char id[16];
        snprintf(id, sizeof id, "B%d", i);
        h[i] = fp_submit(ex, "fifo", id, &pk[i], false, 0);
        if (i == 1) assert_true(mk_wait_long(m, &m->done_answers, 2));
        else assert_true(wait_waiting_fleet(ex, "fifo", (size_t)i));
    }
    /* every answer finished before the next release: no release falls between a BUSY decision and
       its answer, so the mock never notifies twice and the asks are exact */
    long answered = 2;
    assert_int_equal(mk_get(m, &m->asks), 2);
    assert_int_equal(tu_gstats(ex, "fifo").waiting_fleet, NB);
    for (int i = 0; i <= NB; i++) {
        tu_latch_add(&started, i < NB ? 1 : 0);
        tu_park_release(&pk[i]);
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        if (i < NB) {
            assert_true(tu_latch_wait(&started)); /* the next one started */
            assert_int_equal(atomic_load(&pk[i + 1].start_seq), i + 1);
            for (int j = i + 2; j <= NB; j++) assert_false(started_yet(&pk[j]));
            answered += 1; /* a notify asks the oldest BUSY task again (once per lease freed) */
            assert_true(mk_wait_long(m, &m->done_answers, answered));
        }
    }
    for (int i = 0; i <= NB; i++) assert_int_equal(atomic_load(&pk[i].start_seq), i);
    /* asks: A and B1, then one per release while a task was BUSY (A, B1 .. B4): a freed lease
       costs one request */
    assert_int_equal(mk_get(m, &m->asks), 2 + NB);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i <= NB; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    tu_latch_destroy(&started);
}

static void test_fifo_once_busy_sync(void **state) {
    (void)state;
    run_fifo(MK_SYNC);
}

static void test_fifo_once_busy_async(void **state) {
    (void)state;
    run_fifo(MK_ASYNC);
}

/* A new task of a group whose tasks wait BUSY does not overtake them, even when the fleet has room
   for it when it asks (capacity appeared elsewhere, not yet notified): "FIFO in its group". */
static void test_fifo_new_task_behind_busy(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 8;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    tu_park a, b, n;
    tu_park_init(&a, &started, &order);
    tu_park_init(&b, &started, &order);
    tu_park_init(&n, &started, &order);
    groupconc_task *ha = fp_submit(ex, "nb", "A", &a, false, 0);
    assert_true(tu_latch_wait(&started));
    groupconc_task *hb = fp_submit(ex, "nb", "B", &b, false, 0);
    assert_true(mk_wait_long(m, &m->busy, 1));
    mk_set_cap(m, "nb", 2); /* room for one more, nobody told */
    tu_latch_add(&started, 1);
    groupconc_task *hn = fp_submit(ex, "nb", "N", &n, false, 0);
    /* N must not run before B: wait for either to start */
    bool any = tu_latch_wait_for(&started, 200 * TU_MS);
    bool n_first = started_yet(&n) && !started_yet(&b);
    print_message("new task behind BUSY: %s (asks %ld)\n",
                  !any ? "nothing started before the notify" : n_first ? "N overtook B" : "B first", mk_get(m, &m->asks));
    assert_false(n_first);
    assert_int_equal(groupconc_fleet_notify(ex, "nb"), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started)); /* one of them (B) runs now */
    assert_true(started_yet(&b));
    tu_latch_add(&started, 1);
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    assert_true(tu_latch_wait(&started));
    assert_true(started_yet(&n));
    assert_true(atomic_load(&b.start_seq) < atomic_load(&n.start_seq));
    tu_park_release(&b);
    tu_park_release(&n);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(hn, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hb), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hn), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&n);
    tu_latch_destroy(&started);
}

/* ==== cancellation ===================================================================================== */

/* Local concurrency 1: A is asked (the request held), B waits at concurrency. Cancel A: DEQUEUED,
   CANCELLED, its cleanup ran, its local permits go to B (B is asked). The late GRANTED answer for A
   returns OK and its lease goes back through release before the answer returns. */
static void test_cancel_while_asked(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 1;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a, b;
    tu_park_init(&a, &started, NULL);
    tu_park_init(&b, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "c", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    groupconc_task *hb = fp_submit(ex, "c", "B", &b, true, 0);
    groupconc_group_stats gs = tu_gstats(ex, "c");
    assert_int_equal(gs.waiting_fleet, 1);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.running, 0);
    assert_false(mk_wait_held(m, 2, 20 * TU_MS)); /* B holds no local permit: not asked */

    groupconc_cancel_outcome out = GROUPCONC_CANCEL_TOO_LATE;
    assert_int_equal(groupconc_task_cancel(ha, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    groupconc_result r = tu_wait(ha);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_int_equal(atomic_load(&a.ran), 1000); /* never ran, cleaned up once */
    assert_true(mk_wait_held(m, 2, TU_TIMEOUT_NS)); /* B got A's local permits and is asked */
    gs = tu_gstats(ex, "c");
    assert_int_equal(gs.waiting_fleet, 1); /* B only: A left the fleet layer at the cancel */
    assert_int_equal(gs.waiting_concurrency, 0);
    assert_int_equal(gs.cancelled, 1);

    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK); /* A's */
    assert_int_equal(mk_lease_state(m, lease), 2); /* given back at once */
    assert_int_equal(mk_get(m, &m->releases), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, "A"), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, "A"), 1);
    assert_int_equal(atomic_load(&a.ran), 1000);

    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK); /* B's */
    assert_true(tu_latch_wait(&started));
    tu_park_release(&b);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&b.ran), 1001);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hb), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Every verdict arriving for a cancelled task: OK, and nothing follows but the release of a GRANTED
   lease: no REJECTED event, no rejection handler, no fleet_open / rejected_fleet, one COMPLETED. */
static atomic_int handler_calls;
static void counting_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    (void)rj, (void)out, (void)ud;
    atomic_fetch_add(&handler_calls, 1);
}

static void test_answers_after_cancel(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 4;
    p.reject_handler = counting_handler;
    atomic_store(&handler_calls, 0);
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park pk[4];
    groupconc_task *h[4];
    const char *ids[4] = {"g", "b", "r", "o"};
    for (int i = 0; i < 4; i++) {
        tu_park_init(&pk[i], NULL, NULL);
        h[i] = fp_submit(ex, "ac", ids[i], &pk[i], true, 0);
    }
    assert_true(mk_wait_held(m, 4, TU_TIMEOUT_NS));
    assert_int_equal(tu_xstats(ex).waiting_fleet, 4);
    for (int i = 0; i < 4; i++) {
        groupconc_cancel_outcome out = GROUPCONC_CANCEL_TOO_LATE;
        assert_int_equal(groupconc_task_cancel(h[i], &out), GROUPCONC_OK);
        assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
        tu_wait_status(h[i], GROUPCONC_STATUS_CANCELLED);
    }
    assert_int_equal(tu_xstats(ex).waiting_fleet, 0);
    assert_int_equal(tu_xstats(ex).waiting, 0);
    /* the held requests are in submission order: answer each with its verdict */
    char grp[MK_NAME];
    mk_held_group(m, 0, grp, sizeof grp);
    assert_string_equal(grp, "ac");
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_REJECT), GROUPCONC_OK);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_OPEN), GROUPCONC_OK);
    /* a notify now finds nothing (the BUSY answer came for a cancelled task) */
    assert_int_equal(groupconc_fleet_notify(ex, "ac"), GROUPCONC_OK);
    assert_false(mk_wait_held(m, 1, 20 * TU_MS));
    assert_int_equal(atomic_load(&handler_calls), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, NULL), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, NULL), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, NULL), 4);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.cancelled, 4);
    assert_int_equal(xs.rejected_fleet, 0);
    assert_int_equal(xs.fleet_open, 0); /* the OPEN answer came for a cancelled task: nothing ran */
    assert_int_equal(mk_get(m, &m->releases), 1);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(atomic_load(&pk[i].ran), 1000);
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    rec_free(rec);
}

/* Fleet cap 1, local concurrency 2: A runs, B is BUSY, C waits at concurrency. Cancel B: DEQUEUED,
   CANCELLED, its local permits go to C (C is asked, answered BUSY). */
static void run_cancel_busy(mk_deliver deliver) {
    mock *m = mk_new(MK_CAP, deliver, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 2;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    atomic_int order;
    atomic_init(&order, 0);
    tu_park a, b, c;
    tu_park_init(&a, &started, &order);
    tu_park_init(&b, &started, &order);
    tu_park_init(&c, &started, &order);
    groupconc_task *ha = fp_submit(ex, "cb", "A", &a, true, 0);
    assert_true(tu_latch_wait(&started));
    groupconc_task *hb = fp_submit(ex, "cb", "B", &b, true, 0);
    assert_true(mk_wait_long(m, &m->busy, 1));
    groupconc_task *hc = fp_submit(ex, "cb", "C", &c, true, 0);
    groupconc_group_stats gs = tu_gstats(ex, "cb");
    assert_int_equal(gs.waiting_fleet, 1);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.running, 1);
    groupconc_cancel_outcome out = GROUPCONC_CANCEL_TOO_LATE;
    assert_int_equal(groupconc_task_cancel(hb, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    groupconc_result r = tu_wait(hb);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(r.reason, GROUPCONC_ECANCELLED);
    assert_int_equal(atomic_load(&b.ran), 1000);
    assert_true(mk_wait_long(m, &m->busy, 2)); /* C asked: B's local permits were freed */
    gs = tu_gstats(ex, "cb");
    assert_int_equal(gs.waiting_fleet, 1);
    assert_int_equal(gs.waiting_concurrency, 0);
    tu_latch_add(&started, 1);
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    assert_true(tu_latch_wait(&started));
    assert_true(started_yet(&c));
    tu_park_release(&c);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    assert_int_equal(mk_get(m, &m->grants), 2);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hb), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hc), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&c);
    tu_latch_destroy(&started);
}

static void test_cancel_busy_sync(void **state) {
    (void)state;
    run_cancel_busy(MK_SYNC);
}

static void test_cancel_busy_async(void **state) {
    (void)state;
    run_cancel_busy(MK_ASYNC);
}

/* ==== queue deadlines ================================================================================== */

/* BUSY: cap 1 held by A; B (max_wait 40 ms) waits BUSY and expires: REJECTED, EEXPIRED_FLEET, counted in
   expired, REJECTED event with that reason, the handler not called, not before its deadline. */
static void test_deadline_while_busy(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 4;
    p.reject_handler = counting_handler;
    atomic_store(&handler_calls, 0);
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a, b;
    tu_park_init(&a, &started, NULL);
    tu_park_init(&b, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "dl", "A", &a, true, 0);
    assert_true(tu_latch_wait(&started));
    int64_t t0 = tu_now_ns();
    groupconc_task *hb = fp_submit(ex, "dl", "B", &b, true, 40 * TU_MS);
    groupconc_result r = tu_wait(hb);
    int64_t waited = tu_now_ns() - t0;
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_FLEET);
    assert_true(waited >= 40 * TU_MS);
    assert_int_equal(mk_get(m, &m->busy), 1);
    assert_int_equal(atomic_load(&b.ran), 1000);
    assert_int_equal(atomic_load(&handler_calls), 0);
    bool found = false;
    rec_event e = rec_wait(rec, GROUPCONC_EVENT_REJECTED, "B", &found);
    assert_true(found);
    assert_int_equal(e.reason, GROUPCONC_EEXPIRED_FLEET);
    e = rec_wait(rec, GROUPCONC_EVENT_COMPLETED, "B", &found);
    assert_true(found);
    assert_int_equal(e.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(e.result_reason, GROUPCONC_EEXPIRED_FLEET);
    groupconc_group_stats gs = tu_gstats(ex, "dl");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.rejected_fleet, 0);
    assert_int_equal(gs.waiting_fleet, 0);
    assert_int_equal(tu_xstats(ex).expired, 1);
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    /* a's release notifies: nothing is BUSY any more */
    assert_int_equal(mk_get(m, &m->asks), 2);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hb), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* Asked: the request is held past the deadline (the group's max_wait_ns, from the policy table):
   REJECTED with EEXPIRED_FLEET; the late GRANTED answer: OK, the lease goes back at once. */
static void test_deadline_while_asked(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    groupconc_group_limits gl = {"da", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 30 * TU_MS};
    p.groups = &gl;
    p.group_count = 1;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park a;
    tu_park_init(&a, NULL, NULL);
    int64_t t0 = tu_now_ns();
    groupconc_task *ha = fp_submit(ex, "da", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    groupconc_result r = tu_wait(ha);
    assert_true(tu_now_ns() - t0 >= 30 * TU_MS);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_FLEET);
    assert_int_equal(atomic_load(&a.ran), 1000);
    groupconc_group_stats gs = tu_gstats(ex, "da");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.waiting_fleet, 0);
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    tu_park_destroy(&a);
}

/* ==== REJECT ============================================================================================= */

typedef struct handler_box {
    atomic_int calls;
    atomic_int reason;
    atomic_int in_submit;
    groupconc_status decide; /* what the handler answers */
} handler_box;

static void box_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    handler_box *b = (handler_box *)ud;
    atomic_fetch_add(&b->calls, 1);
    atomic_store(&b->reason, rj->reason);
    atomic_store(&b->in_submit, rj->in_submit ? 1 : 0);
    out->status = b->decide;
    if (b->decide == GROUPCONC_STATUS_SUCCESS) out->value = b;
}

/* One REJECT answer under `policy` (and the handler when `box` is set); the local permit (local
   concurrency 1) is freed for the next task, which the mock (still REJECT) refuses too. */
static void run_reject(mk_deliver deliver, groupconc_rejection_policy policy, handler_box *box) {
    mock *m = mk_new(MK_REJECT, deliver, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 1;
    p.rejection = policy;
    if (box) {
        p.reject_handler = box_handler;
        p.reject_user_data = box;
    }
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park a, b;
    tu_park_init(&a, NULL, NULL);
    tu_park_init(&b, NULL, NULL);
    a.cooperative = b.cooperative = true;
    tu_park_release(&a); /* if it runs (CALLER_RUNS, handler choices), it returns at once */
    tu_park_release(&b);
    groupconc_task *ha = fp_submit(ex, "rj", "A", &a, true, 0);
    groupconc_task *hb = fp_submit(ex, "rj", "B", &b, true, 0);
    groupconc_result ra = tu_wait(ha), rb = tu_wait(hb);
    bool runs = policy == GROUPCONC_REJECT_CALLER_RUNS && !box;
    groupconc_status want = GROUPCONC_STATUS_REJECTED;
    if (runs) want = GROUPCONC_STATUS_SUCCESS;
    if (box) want = box->decide;
    assert_int_equal(ra.status, want);
    assert_int_equal(rb.status, want);
    if (want == GROUPCONC_STATUS_REJECTED) {
        assert_int_equal(ra.reason, GROUPCONC_EREJECTED_FLEET);
        assert_int_equal(rb.reason, GROUPCONC_EREJECTED_FLEET);
    }
    assert_int_equal(atomic_load(&a.ran), runs ? 1001 : 1000);
    assert_int_equal(atomic_load(&b.ran), runs ? 1001 : 1000);
    if (box) {
        assert_int_equal(atomic_load(&box->calls), 2);
        assert_int_equal(atomic_load(&box->reason), GROUPCONC_EREJECTED_FLEET);
        if (deliver == MK_ASYNC) assert_int_equal(atomic_load(&box->in_submit), 0); /* the provider's thread */
        else print_message("handler after a REJECT answered inside acquire: in_submit %d\n", atomic_load(&box->in_submit));
    }
    /* a REJECTED event with the fleet's reason for each; a STARTED only for a CALLER_RUNS run (it
       holds no permits: "none under CALLER_RUNS" is about permits) */
    bool found = false;
    rec_event e = rec_wait(rec, GROUPCONC_EVENT_REJECTED, "A", &found);
    assert_true(found);
    assert_int_equal(e.reason, GROUPCONC_EREJECTED_FLEET);
    assert_string_equal(e.group, "rj");
    e = rec_wait(rec, GROUPCONC_EVENT_REJECTED, "B", &found);
    assert_true(found);
    assert_int_equal(e.reason, GROUPCONC_EREJECTED_FLEET);
    e = rec_wait(rec, GROUPCONC_EVENT_COMPLETED, "A", &found);
    assert_true(found);
    assert_int_equal(e.status, want);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, NULL), runs ? 2 : 0);
    assert_int_equal(mk_get(m, &m->asks), 2);
    assert_int_equal(mk_get(m, &m->releases), 0);
    groupconc_group_stats gs = tu_gstats(ex, "rj");
    groupconc_executor_stats xs = tu_xstats(ex);
    uint64_t want_rf = want == GROUPCONC_STATUS_REJECTED ? 2 : 0;
    assert_int_equal(gs.rejected_fleet, want_rf);
    assert_int_equal(xs.rejected_fleet, want_rf);
    assert_int_equal(tu_rejected(gs), 0);
    assert_int_equal(gs.waiting_fleet, 0);
    if (want == GROUPCONC_STATUS_SUCCESS) assert_int_equal(xs.succeeded, 2);
    if (want == GROUPCONC_STATUS_FAILED) assert_int_equal(xs.failed, 2);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hb), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    rec_free(rec);
}

static void test_reject_discard_sync(void **state) {
    (void)state;
    run_reject(MK_SYNC, GROUPCONC_REJECT_DISCARD, NULL);
}

static void test_reject_discard_async(void **state) {
    (void)state;
    run_reject(MK_ASYNC, GROUPCONC_REJECT_DISCARD, NULL);
}

/* ABORT: the submit was accepted (submit never returns EREJECTED_FLEET): the handle completes
   REJECTED ("later: REJECTED"), also when the answer comes inside the submit's acquire. */
static void test_reject_abort_sync(void **state) {
    (void)state;
    run_reject(MK_SYNC, GROUPCONC_REJECT_ABORT, NULL);
}

static void test_reject_abort_async(void **state) {
    (void)state;
    run_reject(MK_ASYNC, GROUPCONC_REJECT_ABORT, NULL);
}

/* CALLER_RUNS: the refused task runs without permits (on a worker) and holds no lease. */
static void test_reject_caller_runs(void **state) {
    (void)state;
    run_reject(MK_ASYNC, GROUPCONC_REJECT_CALLER_RUNS, NULL);
}

static void test_reject_handler_keeps_rejected(void **state) {
    (void)state;
    handler_box box;
    atomic_init(&box.calls, 0);
    atomic_init(&box.reason, 0);
    atomic_init(&box.in_submit, -1);
    box.decide = GROUPCONC_STATUS_REJECTED;
    run_reject(MK_SYNC, GROUPCONC_REJECT_ABORT, &box);
}

static void test_reject_handler_success(void **state) {
    (void)state;
    handler_box box;
    atomic_init(&box.calls, 0);
    atomic_init(&box.reason, 0);
    atomic_init(&box.in_submit, -1);
    box.decide = GROUPCONC_STATUS_SUCCESS;
    run_reject(MK_ASYNC, GROUPCONC_REJECT_ABORT, &box);
}

/* ==== OPEN and report ====================================================================================== */

static void run_open(mk_deliver deliver) {
    mock *m = mk_new(MK_OPEN, deliver, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 2;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park pk[3];
    groupconc_task *h[3];
    const char *ids[3] = {"o1", "o2", "o3"};
    for (int i = 0; i < 3; i++) {
        tu_park_init(&pk[i], &started, NULL);
        h[i] = fp_submit(ex, "open", ids[i], &pk[i], true, 0);
    }
    /* local concurrency 2 still holds: two run, the third waits at the concurrency layer */
    assert_true(tu_latch_wait(&started));
    assert_false(started_yet(&pk[2]));
    assert_int_equal(tu_gstats(ex, "open").running, 2);
    tu_latch_add(&started, 1);
    tu_park_release(&pk[0]);
    tu_wait_status(h[0], GROUPCONC_STATUS_SUCCESS);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&pk[1]);
    tu_park_release(&pk[2]);
    for (int i = 0; i < 3; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(atomic_load(&pk[i].ran), 1001);
    }
    assert_true(rec_wait_count(rec, GROUPCONC_EVENT_FLEET, 3));
    for (int i = 0; i < 3; i++) {
        bool found = false;
        rec_event e = rec_wait(rec, GROUPCONC_EVENT_FLEET, NULL, &found);
        assert_true(found);
        assert_int_equal(e.reason, GROUPCONC_EFLEET_OPEN);
        assert_string_equal(e.group, "open");
        if (rec_count(rec, GROUPCONC_EVENT_FLEET, ids[i]) != 1)
            print_message("no FLEET event names task %s (task_id NULL: %d)\n", ids[i], e.id_null);
        assert_int_equal(rec_count(rec, GROUPCONC_EVENT_FLEET, ids[i]), 1);
        assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, ids[i]), 1);
    }
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_FLEET, NULL), 3);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_REJECTED, NULL), 0);
    assert_int_equal(mk_get(m, &m->releases), 0); /* no lease, nothing given back */
    assert_int_equal(mk_get(m, &m->asks), 3);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.fleet_open, 3);
    assert_int_equal(xs.succeeded, 3);
    assert_int_equal(xs.rejected_fleet, 0);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    tu_latch_destroy(&started);
    rec_free(rec);
}

static void test_open_sync(void **state) {
    (void)state;
    run_open(MK_SYNC);
}

static void test_open_async(void **state) {
    (void)state;
    run_open(MK_ASYNC);
}

static void test_report(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    groupconc_executor *ex = fleet_executor(&p, m);
    assert_int_equal(groupconc_fleet_report(ex, "rn", GROUPCONC_EFLEET_RENEW), GROUPCONC_OK);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_FLEET, NULL), 1); /* on this thread, before it returns */
    bool found = false;
    rec_event e = rec_wait(rec, GROUPCONC_EVENT_FLEET, NULL, &found);
    assert_true(found);
    assert_int_equal(e.reason, GROUPCONC_EFLEET_RENEW);
    assert_string_equal(e.group, "rn");
    assert_int_equal(tu_xstats(ex).fleet_renew_failed, 1);
    assert_int_equal(groupconc_fleet_report(ex, NULL, GROUPCONC_EFLEET_RENEW), GROUPCONC_OK);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_FLEET, NULL), 2);
    assert_int_equal(tu_xstats(ex).fleet_renew_failed, 2);
    /* other reasons, a NULL executor: EINVAL, nothing reported or counted */
    const int bad[] = {GROUPCONC_EFLEET_OPEN, GROUPCONC_OK, GROUPCONC_EREJECTED_FLEET, GROUPCONC_EEXPIRED_FLEET,
                       GROUPCONC_EINVAL, 1, -41, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(groupconc_fleet_report(ex, "rn", bad[i]), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_fleet_report(NULL, "rn", GROUPCONC_EFLEET_RENEW), GROUPCONC_EINVAL);
    char long_key[GROUPCONC_MAX_KEY_LEN + 2];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    assert_int_equal(groupconc_fleet_report(ex, "", GROUPCONC_EFLEET_RENEW), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_fleet_report(ex, long_key, GROUPCONC_EFLEET_RENEW), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_FLEET, NULL), 2);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.fleet_renew_failed, 2);
    assert_int_equal(xs.fleet_open, 0);
    assert_int_equal(xs.submitted, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    rec_free(rec);
}

/* ==== the gauges ============================================================================================= */

/* HOLD, local concurrency 2: t1 and t2 asked, t3 at concurrency: waiting_fleet 2 (group and
   executor), waiting 3; t1 BUSY: still 2; t2 GRANTED: 1, running 1; t2 done: t3 joins the fleet
   layer behind t1, unasked (2); a notify asks t1 again (a new request), the next one t3. */
static void test_stats_waiting_fleet(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 2;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park pk[3];
    groupconc_task *h[3];
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "t%d", i + 1);
        tu_park_init(&pk[i], &started, NULL);
        h[i] = fp_submit(ex, "st", id, &pk[i], false, 0);
    }
    assert_true(mk_wait_held(m, 2, TU_TIMEOUT_NS));
    groupconc_group_stats gs = tu_gstats(ex, "st");
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(gs.waiting_fleet, 2);
    assert_int_equal(gs.waiting_concurrency, 1);
    assert_int_equal(gs.running, 0);
    assert_int_equal(gs.ready, 0);
    assert_int_equal(xs.waiting_fleet, 2);
    assert_int_equal(xs.waiting, 3);
    assert_int_equal(xs.running, 0);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK); /* t1 */
    assert_int_equal(tu_gstats(ex, "st").waiting_fleet, 2);
    assert_int_equal(tu_xstats(ex).waiting, 3);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK); /* t2 */
    assert_true(tu_latch_wait(&started));
    assert_true(started_yet(&pk[1]));
    gs = tu_gstats(ex, "st");
    xs = tu_xstats(ex);
    assert_int_equal(gs.waiting_fleet, 1);
    assert_int_equal(gs.running, 1);
    assert_int_equal(xs.waiting_fleet, 1);
    assert_int_equal(xs.waiting, 2);
    tu_park_release(&pk[1]);
    tu_wait_status(h[1], GROUPCONC_STATUS_SUCCESS);
    assert_true(wait_waiting_fleet(ex, "st", 2)); /* t3, queued behind t1 */
    assert_int_equal(tu_gstats(ex, "st").waiting_concurrency, 0);
    assert_int_equal(tu_xstats(ex).waiting, 2);
    assert_int_equal(mk_nheld(m), 0);
    assert_int_equal(mk_get(m, &m->asks), 2);
    tu_latch_add(&started, 1);
    assert_int_equal(groupconc_fleet_notify(ex, "st"), GROUPCONC_OK);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS)); /* t1 asked again: one notify, one request */
    assert_int_equal(mk_get(m, &m->asks), 3);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    assert_true(started_yet(&pk[0]));
    assert_false(started_yet(&pk[2]));
    tu_latch_add(&started, 1);
    assert_int_equal(groupconc_fleet_notify(ex, "st"), GROUPCONC_OK);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS)); /* t3 */
    assert_int_equal(mk_get(m, &m->asks), 4);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&pk[0]);
    tu_park_release(&pk[2]);
    tu_wait_status(h[0], GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(h[2], GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    gs = tu_gstats(ex, "st");
    assert_int_equal(gs.succeeded, 3);
    assert_int_equal(gs.admitted, 3);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    tu_latch_destroy(&started);
}

/* ==== notify ================================================================================================= */

/* Three groups of cap 1, each with a runner and a BUSY task, and n1 a second BUSY task; capacity
   appears silently in all three (cap 2). A notify of n1 asks n1's oldest BUSY task only (one
   request per freed lease); notify(NULL) asks every BUSY task of every group. */
static void test_notify_one_and_all(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 4;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 3);
    tu_park pk[7];
    groupconc_task *h[7];
    const char *grp[7] = {"n1", "n2", "n3", "n1", "n2", "n3", "n1"};
    for (int i = 0; i < 7; i++) tu_park_init(&pk[i], &started, NULL);
    for (int i = 0; i < 3; i++) h[i] = fp_submit(ex, grp[i], NULL, &pk[i], false, 0);
    assert_true(tu_latch_wait(&started));
    for (int i = 3; i < 6; i++) h[i] = fp_submit(ex, grp[i], NULL, &pk[i], false, 0);
    assert_true(mk_wait_long(m, &m->done_answers, 6));
    h[6] = fp_submit(ex, grp[6], NULL, &pk[6], false, 0);
    assert_true(wait_waiting_fleet(ex, "n1", 2)); /* behind pk[3], unasked */
    assert_int_equal(mk_get(m, &m->asks), 6);
    assert_int_equal(tu_xstats(ex).waiting_fleet, 4);
    /* nothing waits in an unknown group */
    assert_int_equal(groupconc_fleet_notify(ex, "never-used"), GROUPCONC_OK);
    assert_int_equal(mk_get(m, &m->asks), 6);
    mk_set_cap(m, "n1", 2);
    mk_set_cap(m, "n2", 2);
    mk_set_cap(m, "n3", 2);
    tu_latch_add(&started, 1);
    assert_int_equal(groupconc_fleet_notify(ex, "n1"), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    assert_true(started_yet(&pk[3]));
    assert_int_equal(mk_get(m, &m->asks), 7);
    assert_false(started_yet(&pk[4]));
    assert_false(started_yet(&pk[5]));
    assert_false(started_yet(&pk[6]));
    assert_int_equal(tu_xstats(ex).waiting_fleet, 3);
    tu_latch_add(&started, 2);
    assert_int_equal(groupconc_fleet_notify(ex, NULL), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    assert_true(mk_wait_long(m, &m->done_answers, 10));
    assert_true(started_yet(&pk[4]));
    assert_true(started_yet(&pk[5]));
    assert_false(started_yet(&pk[6])); /* asked, answered BUSY: n1 holds its 2 */
    assert_int_equal(mk_get(m, &m->asks), 10);
    assert_int_equal(tu_xstats(ex).waiting_fleet, 1);
    for (int i = 0; i < 7; i++) tu_park_release(&pk[i]);
    for (int i = 0; i < 7; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    /* nothing BUSY anywhere: notify(NULL) and notify(group) ask nobody */
    long asks = mk_get(m, &m->asks);
    assert_int_equal(groupconc_fleet_notify(ex, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_fleet_notify(ex, "n1"), GROUPCONC_OK);
    assert_int_equal(mk_get(m, &m->asks), asks);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    tu_latch_destroy(&started);
}

/* Two tasks of one group under HOLD, local concurrency 4: A answered BUSY, B queued behind it
   unasked, then a notify that asks A again (its answer still to come). */
typedef struct busy_pair {
    mock *m;
    groupconc_executor *ex;
    tu_latch started;
    tu_park a, b;
    groupconc_task *ha, *hb;
} busy_pair;

static void busy_pair_setup(busy_pair *bp, const char *key, bool track) {
    bp->m = mk_new(MK_HOLD, MK_SYNC, 1);
    bp->m->track = track;
    groupconc_policy p = fleet_policy(bp->m, NULL);
    p.default_concurrency = 4;
    bp->ex = fleet_executor(&p, bp->m);
    tu_latch_init(&bp->started, 1);
    tu_park_init(&bp->a, &bp->started, NULL);
    tu_park_init(&bp->b, &bp->started, NULL);
    bp->ha = fp_submit(bp->ex, key, "A", &bp->a, false, 0);
    assert_true(mk_wait_held(bp->m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(bp->m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    bp->hb = fp_submit(bp->ex, key, "B", &bp->b, false, 0);
    assert_true(wait_waiting_fleet(bp->ex, key, 2));
    assert_int_equal(mk_get(bp->m, &bp->m->asks), 1); /* B behind A, unasked */
    assert_int_equal(groupconc_fleet_notify(bp->ex, key), GROUPCONC_OK);
    assert_int_equal(mk_get(bp->m, &bp->m->asks), 2); /* A again */
}

/* B asked and granted; both let go once they run. */
static void busy_pair_grant_b(busy_pair *bp) {
    assert_int_equal(mk_get(bp->m, &bp->m->asks), 3); /* B asked */
    assert_true(mk_wait_held(bp->m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(bp->m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&bp->started));
    tu_park_release(&bp->a);
    tu_park_release(&bp->b);
}

/* B succeeded, everything settled; all freed. */
static void busy_pair_end(busy_pair *bp) {
    tu_wait_status(bp->hb, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(bp->m);
    check_totals_settled(bp->ex);
    assert_int_equal(groupconc_executor_destroy(bp->ex), GROUPCONC_OK);
    mk_finish(bp->m);
    assert_int_equal(groupconc_task_release(bp->ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(bp->hb), GROUPCONC_OK);
    tu_park_destroy(&bp->a);
    tu_park_destroy(&bp->b);
    tu_latch_destroy(&bp->started);
}

/* A re-asked task answered REJECT or OPEN took no lease: the one the notify announced is still
   free, so the group's next task answered BUSY is asked at once. Before, it waited for the next
   notify, which a provider whose backend is down (the reason for REJECT / OPEN) never sends (hunt
   helper-84). A GRANTED answer takes the lease: B is asked only at the next notify. */
static void reasked_answer_asks_next(groupconc_fleet_verdict v) {
    busy_pair bp;
    busy_pair_setup(&bp, "rn", v != GROUPCONC_FLEET_OPEN); /* A runs without a lease after OPEN */
    assert_int_equal(mk_answer(bp.m, v), GROUPCONC_OK);
    if (v == GROUPCONC_FLEET_GRANTED) { /* A holds the lease: B waits for the next notify */
        assert_int_equal(mk_get(bp.m, &bp.m->asks), 2);
        assert_int_equal(groupconc_fleet_notify(bp.ex, "rn"), GROUPCONC_OK);
    }
    busy_pair_grant_b(&bp);
    groupconc_result ra = tu_wait(bp.ha);
    if (v == GROUPCONC_FLEET_REJECT) {
        assert_int_equal(ra.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(ra.reason, GROUPCONC_EREJECTED_FLEET);
    } else {
        assert_int_equal(ra.status, GROUPCONC_STATUS_SUCCESS);
    }
    busy_pair_end(&bp);
}

/* The same when the re-asked task was cancelled while its request was out (or its deadline
   passed): the late REJECT or OPEN took no lease either, so B is asked (review of the change
   above: the late answer asked nobody). */
static void taken_then_answer_asks_next(groupconc_fleet_verdict v) {
    busy_pair bp;
    busy_pair_setup(&bp, "rt", true);
    groupconc_cancel_outcome how;
    assert_int_equal(groupconc_task_cancel(bp.ha, &how), GROUPCONC_OK);
    assert_int_equal(how, GROUPCONC_CANCEL_DEQUEUED);
    tu_wait_status(bp.ha, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(mk_get(bp.m, &bp.m->asks), 2); /* the cancel asks nobody: A's answer is to come */
    assert_int_equal(mk_answer(bp.m, v), GROUPCONC_OK); /* late */
    busy_pair_grant_b(&bp);
    tu_wait_status(bp.hb, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&bp.a.ran), 0);
    busy_pair_end(&bp);
}

static void test_cancelled_then_reject_asks_next(void **state) {
    (void)state;
    taken_then_answer_asks_next(GROUPCONC_FLEET_REJECT);
}

static void test_cancelled_then_open_asks_next(void **state) {
    (void)state;
    taken_then_answer_asks_next(GROUPCONC_FLEET_OPEN);
}

static void test_reasked_reject_asks_next(void **state) {
    (void)state;
    reasked_answer_asks_next(GROUPCONC_FLEET_REJECT);
}

static void test_reasked_open_asks_next(void **state) {
    (void)state;
    reasked_answer_asks_next(GROUPCONC_FLEET_OPEN);
}

static void test_reasked_granted_asks_nobody(void **state) {
    (void)state;
    reasked_answer_asks_next(GROUPCONC_FLEET_GRANTED);
}

/* A notify that arrives while the group's task is asked (its request outstanding) and before the
   provider's BUSY answer is processed: the provider's answer and its pub/sub message race in any
   real provider. The notify is remembered (section [10]): the BUSY answer asks again at once. The
   same for a notify naming no group (hunt helper-84: it was not remembered, and the task waited
   for the next notify). */
static void notify_while_asked(const char *notify_group) {
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a;
    tu_park_init(&a, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "wa", "A", &a, false, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(groupconc_fleet_notify(ex, notify_group), GROUPCONC_OK);
    assert_int_equal(mk_get(m, &m->asks), 1); /* its request is out: nothing asked yet */
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    /* asked again within the answer (MK_SYNC: on this thread) */
    assert_int_equal(mk_get(m, &m->asks), 2);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_latch_destroy(&started);
}

static void test_notify_while_asked(void **state) {
    (void)state;
    notify_while_asked("wa");
}

static void test_notify_all_while_asked(void **state) {
    (void)state;
    notify_while_asked(NULL);
}

/* ==== shutdown and destroy ======================================================================================= */

/* HOLD, local concurrency 5: R runs (granted, cooperative), two tasks BUSY, two asked. Shutdown:
   the four waiting are CANCELLED at once (on this thread), R is flagged and returns CANCELLED, its
   lease goes back. The two late answers: GRANTED (released at once) and BUSY: both OK. */
static void test_shutdown_immediate(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 5;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park pk[5];
    groupconc_task *h[5];
    for (int i = 0; i < 5; i++) tu_park_init(&pk[i], &started, NULL);
    pk[0].cooperative = true;
    h[0] = fp_submit(ex, "sd", "R", &pk[0], true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    for (int i = 1; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof id, "w%d", i);
        h[i] = fp_submit(ex, "sd", id, &pk[i], true, 0);
    }
    assert_true(mk_wait_held(m, 4, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    assert_int_equal(mk_nheld(m), 2);
    assert_int_equal(tu_xstats(ex).waiting_fleet, 4);
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    for (int i = 1; i < 5; i++) {
        bool done = false;
        assert_int_equal(groupconc_task_is_done(h[i], &done), GROUPCONC_OK);
        assert_true(done); /* completed on this thread, before shutdown returned */
        groupconc_result r = tu_wait(h[i]);
        assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
        assert_int_equal(atomic_load(&pk[i].ran), 1000);
    }
    groupconc_result r = tu_wait(h[0]);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED); /* cooperative */
    assert_int_equal(mk_get(m, &m->releases), 1);
    assert_int_equal(tu_xstats(ex).waiting_fleet, 0);
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    /* notify after shutdown: fine, asks nobody */
    assert_int_equal(groupconc_fleet_notify(ex, "sd"), GROUPCONC_OK);
    assert_int_equal(mk_nheld(m), 0);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_COMPLETED, NULL), 5);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* groupconc_group_shutdown cancels the group's tasks at the fleet layer (BUSY and asked alike),
   not another group's. */
static void test_group_shutdown(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 4;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park pk[3];
    groupconc_task *h[3];
    const char *grp[3] = {"gs-a", "gs-a", "gs-b"};
    for (int i = 0; i < 3; i++) {
        tu_park_init(&pk[i], NULL, NULL);
        h[i] = fp_submit(ex, grp[i], NULL, &pk[i], true, 0);
    }
    assert_true(mk_wait_held(m, 3, TU_TIMEOUT_NS));
    /* answer the first request of gs-a BUSY */
    for (int i = 0; i < 3; i++) {
        char g[MK_NAME];
        mk_held_group(m, i, g, sizeof g);
        if (strcmp(g, "gs-a") == 0) {
            assert_int_equal(mk_answer_at(m, i, GROUPCONC_FLEET_BUSY, NULL), GROUPCONC_OK);
            break;
        }
    }
    assert_int_equal(groupconc_group_shutdown(ex, "gs-a"), GROUPCONC_OK);
    tu_wait_status(h[0], GROUPCONC_STATUS_CANCELLED);
    tu_wait_status(h[1], GROUPCONC_STATUS_CANCELLED);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(h[2], &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(tu_gstats(ex, "gs-a").waiting_fleet, 0);
    assert_int_equal(tu_gstats(ex, "gs-b").waiting_fleet, 1);
    /* answer what is left: gs-a's GRANTED (given back), gs-b's GRANTED (runs) */
    tu_park_release(&pk[2]);
    while (mk_nheld(m) > 0) assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    tu_wait_status(h[2], GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&pk[i]);
    }
}

/* A graceful shutdown waits for the tasks at the fleet layer that get granted (cap 1, async). */
static void test_shutdown_graceful_waits(void **state) {
    (void)state;
    enum { N = 12 };
    mock *m = mk_new(MK_CAP, MK_ASYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 4;
    groupconc_executor *ex = fleet_executor(&p, m);
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) h[i] = tu_submit(ex, i % 2 ? "gr-a" : "gr-b", NULL, work_fn, (void *)(uintptr_t)500);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    for (int i = 0; i < N; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    assert_int_equal(mk_get(m, &m->grants), N);
    assert_int_equal(mk_group_get(m, "gr-a").peak_active, 1);
    check_totals_settled(ex);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    for (int i = 0; i < N; i++) assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
}

/* A graceful shutdown whose timeout passes while a task is asked: ETIMEDOUT, the task CANCELLED;
   the late GRANTED answer: released at once. */
static void test_shutdown_graceful_timeout_while_asked(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park a;
    tu_park_init(&a, NULL, NULL);
    groupconc_task *ha = fp_submit(ex, "gt", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, 50 * TU_MS), GROUPCONC_ETIMEDOUT);
    tu_wait_status(ha, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(atomic_load(&a.ran), 1000);
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    tu_park_destroy(&a);
}

/* destroy waits until every outstanding request is answered: a thread answers GRANTED only after
   destroy began (the task's COMPLETED event, CANCELLED by destroy's shutdown, runs inside destroy)
   and a pause; destroy returns only after that answer was taken and its lease given back through
   release (the answer call itself may still be returning). */
typedef struct late_answer {
    mock *m;
    tu_latch destroy_began;
    atomic_int answered;  /* 1: about to answer, 2: the answer returned */
    atomic_int answer_rc;
    atomic_int lease_state_after;
} late_answer;

static late_answer *g_late;

static void late_listener(const groupconc_event *e, void *user_data) {
    (void)user_data;
    if (e->type == GROUPCONC_EVENT_COMPLETED && g_late) tu_latch_count_down(&g_late->destroy_began);
}

static void late_answer_thread(void *arg) {
    late_answer *la = (late_answer *)arg;
    if (!tu_latch_wait(&la->destroy_began)) return;
    tu_sleep_ns(50 * TU_MS); /* let destroy block, if it waits */
    uint64_t lease = 0;
    atomic_store(&la->answered, 1);
    int rc = mk_answer_at(la->m, 0, GROUPCONC_FLEET_GRANTED, &lease);
    atomic_store(&la->answer_rc, rc);
    atomic_store(&la->lease_state_after, mk_lease_state(la->m, lease));
    atomic_store(&la->answered, 2);
}

static void test_destroy_waits_for_answers(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    late_answer la;
    la.m = m;
    tu_latch_init(&la.destroy_began, 1);
    atomic_init(&la.answered, 0);
    atomic_init(&la.answer_rc, -100);
    atomic_init(&la.lease_state_after, -1);
    g_late = &la;
    groupconc_policy p = fleet_policy(m, NULL);
    p.listener = late_listener;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_park a;
    tu_park_init(&a, NULL, NULL);
    groupconc_task *ha = fp_submit(ex, "dw", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    tu_thread th;
    assert_true(tu_thread_start(&th, late_answer_thread, &la));
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    int answered = atomic_load(&la.answered);
    long released = mk_get(m, &m->releases);
    tu_thread_join(th);
    g_late = NULL;
    assert_true(tu_latch_wait_for(&la.destroy_began, 0));
    assert_true(answered >= 1); /* destroy waited for the answer (it may still be returning) */
    assert_int_equal(released, 1); /* the late lease went back before destroy returned: the provider
                                      gets no call after destroy */
    assert_int_equal(atomic_load(&la.answered), 2);
    assert_int_equal(atomic_load(&la.answer_rc), GROUPCONC_OK);
    assert_int_equal(atomic_load(&la.lease_state_after), 2);
    tu_wait_status(ha, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(atomic_load(&a.ran), 1000);
    mk_check_all_returned(m);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_latch_destroy(&la.destroy_began);
}

/* A task with a deadline first waits at concurrency, then moves to the fleet layer with the
   deadline it had (it counts from submit) and expires there (EEXPIRED_FLEET); its sibling that is
   granted in time runs to the end although its deadline passes while it runs. */
static void test_deadline_from_concurrency_to_fleet(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 1;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a, b, c;
    tu_park_init(&a, &started, NULL);
    tu_park_init(&b, &started, NULL);
    tu_park_init(&c, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "d3", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    int64_t t0 = tu_now_ns();
    groupconc_task *hb = fp_submit(ex, "d3", "B", &b, true, 60 * TU_MS); /* waits at concurrency */
    assert_int_equal(tu_gstats(ex, "d3").waiting_concurrency, 1);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK); /* A runs */
    assert_true(tu_latch_wait(&started));
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS); /* B moves to the fleet layer, asked */
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    groupconc_result r = tu_wait(hb);
    assert_true(tu_now_ns() - t0 >= 60 * TU_MS);
    assert_int_equal(r.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(r.reason, GROUPCONC_EEXPIRED_FLEET);
    assert_int_equal(atomic_load(&b.ran), 1000);
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2);
    /* C: a deadline of 30 ms, granted at once, runs past it */
    tu_latch_add(&started, 1);
    groupconc_task *hc = fp_submit(ex, "d3", "C", &c, true, 30 * TU_MS);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    assert_false(tu_latch_wait_for(&b.go, 60 * TU_MS)); /* a pause past C's deadline (b.go stays shut) */
    tu_park_release(&c);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    groupconc_group_stats gs = tu_gstats(ex, "d3");
    assert_int_equal(gs.expired, 1);
    assert_int_equal(gs.succeeded, 2);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    groupconc_task *all[] = {ha, hb, hc};
    for (int i = 0; i < 3; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&c);
    tu_latch_destroy(&started);
}

/* The bounded table: a group whose task is at the fleet layer is not idle (its local permits are
   held), so group_idle_ns does not reclaim it, and max_groups 1 refuses a second key meanwhile. */
static void test_fleet_group_not_idle(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    p.group_idle_ns = 10 * TU_MS;
    p.max_groups = 1;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a;
    tu_park_init(&a, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "idle", "A", &a, false, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_false(tu_latch_wait_for(&started, 100 * TU_MS)); /* well past the idle time */
    assert_int_equal(tu_xstats(ex).groups_reclaimed, 0);
    assert_int_equal(tu_gstats(ex, "idle").waiting_fleet, 1);
    groupconc_task *hx = NULL;
    assert_int_equal(groupconc_submit(ex, "other", NULL, tu_noop_fn, NULL, &hx), GROUPCONC_EGROUPS_FULL);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_latch_destroy(&started);
}

/* The global running cap (global_max_running) is work-conserving: "it never idles while any group
   could run". Two tasks of "hot" wait BUSY at the fleet layer (its fleet capacity is elsewhere); a
   task of "cold", whose lease is free, must still run under a running cap of 2. */
static void test_runcap_not_held_by_busy_tasks(void **state) {
    (void)state;
    mock *m = mk_new(MK_CAP, MK_SYNC, 1);
    mk_set_cap(m, "hot", 0);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 4;
    p.global_max_running = 2;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a, b, c;
    tu_park_init(&a, &started, NULL);
    tu_park_init(&b, &started, NULL);
    tu_park_init(&c, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "hot", "a", &a, false, 0);
    groupconc_task *hb = fp_submit(ex, "hot", "b", &b, false, 0);
    assert_true(wait_waiting_fleet(ex, "hot", 2));
    groupconc_task *hc = fp_submit(ex, "cold", "c", &c, false, 0);
    bool cold_ran = tu_latch_wait_for(&started, 2 * TU_SEC);
    groupconc_executor_stats xs = tu_xstats(ex);
    print_message("cold %s; global_running %zu, waiting_running %zu, waiting_fleet %zu\n",
                  cold_ran ? "ran" : "did NOT run", xs.global_running, xs.waiting_running, xs.waiting_fleet);
    /* clean up either way: capacity for hot, then everything finishes */
    mk_set_cap(m, "hot", 2);
    assert_int_equal(groupconc_fleet_notify(ex, NULL), GROUPCONC_OK);
    tu_park_release(&a);
    tu_park_release(&b);
    tu_park_release(&c);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    groupconc_task *all[] = {ha, hb, hc};
    for (int i = 0; i < 3; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&b);
    tu_park_destroy(&c);
    tu_latch_destroy(&started);
    assert_true(cold_ran);
}

/* ==== chaos: cancels, deadlines, group shutdowns under load; the bookkeeping must hold =================== */

typedef struct chaos_ctx {
    groupconc_executor *ex;
    groupconc_task **h;
    int per;
    atomic_int submit_errors;
} chaos_ctx;

typedef struct chaos_thread {
    chaos_ctx *cc;
    int index;
} chaos_thread;

static void chaos_submitter(void *arg) {
    chaos_thread *t = (chaos_thread *)arg;
    chaos_ctx *cc = t->cc;
    uint32_t seed = 0xabcdefu + (uint32_t)t->index * 104729u;
    for (int k = 0; k < cc->per; k++) {
        char key[32];
        load_group_name(key, sizeof key, (int)(tu_rand(&seed) % 6));
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = key;
        spec.fn = work_fn;
        spec.arg = (void *)(uintptr_t)(tu_rand(&seed) % 3 * 100);
        uint32_t dice = tu_rand(&seed) % 10;
        if (dice == 0) spec.max_wait_ns = (int64_t)(1 + tu_rand(&seed) % 5) * TU_MS;
        groupconc_task *h = NULL;
        int rc = groupconc_submit_spec(cc->ex, &spec, &h);
        if (rc != GROUPCONC_OK) atomic_fetch_add(&cc->submit_errors, 1);
        cc->h[t->index * cc->per + k] = h;
        if (h && dice == 1) groupconc_task_cancel(h, NULL);
        if (dice == 2 && k % 50 == 0) groupconc_group_shutdown(cc->ex, key);
    }
}

static void run_chaos(mk_deliver deliver) {
    const int per = (int)(400 * tu_stress_scale()) + 1;
    mock *m = mk_new(MK_CAP, deliver, 2);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 5;
    p.max_threads = 24;
    groupconc_executor *ex = fleet_executor(&p, m);
    chaos_ctx cc;
    cc.ex = ex;
    cc.per = per;
    atomic_init(&cc.submit_errors, 0);
    cc.h = (groupconc_task **)calloc((size_t)(per * LOAD_SUBMITTERS), sizeof *cc.h);
    assert_non_null(cc.h);
    tu_thread th[LOAD_SUBMITTERS];
    chaos_thread ct[LOAD_SUBMITTERS];
    for (int i = 0; i < LOAD_SUBMITTERS; i++) {
        ct[i].cc = &cc;
        ct[i].index = i;
        assert_true(tu_thread_start(&th[i], chaos_submitter, &ct[i]));
    }
    for (int i = 0; i < LOAD_SUBMITTERS; i++) tu_thread_join(th[i]);
    assert_int_equal(atomic_load(&cc.submit_errors), 0);
    int n = per * LOAD_SUBMITTERS, counts[5] = {0};
    for (int i = 0; i < n; i++) {
        groupconc_result r = tu_wait(cc.h[i]);
        bool expected = r.status == GROUPCONC_STATUS_SUCCESS || r.status == GROUPCONC_STATUS_CANCELLED ||
                        (r.status == GROUPCONC_STATUS_REJECTED &&
                         (r.reason == GROUPCONC_EEXPIRED_FLEET || r.reason == GROUPCONC_EEXPIRED_CONCURRENCY));
        if (!expected) print_message("task %d: %s, reason %s\n", i, groupconc_status_name(r.status), groupconc_errname(r.reason));
        assert_true(expected);
        counts[r.status]++;
        assert_int_equal(groupconc_task_release(cc.h[i]), GROUPCONC_OK);
    }
    print_message("chaos (%s): %d succeeded, %d cancelled, %d rejected; %ld asks, %ld busy\n",
                  deliver == MK_SYNC ? "sync" : "async", counts[GROUPCONC_STATUS_SUCCESS],
                  counts[GROUPCONC_STATUS_CANCELLED], counts[GROUPCONC_STATUS_REJECTED], mk_get(m, &m->asks),
                  mk_get(m, &m->busy));
    mk_check_all_returned(m);
    check_totals_settled(ex);
    for (int g = 0; g < 6; g++) {
        char key[32];
        load_group_name(key, sizeof key, g);
        assert_true(mk_group_get(m, key).peak_active <= 2);
    }
    /* every success held a lease; a lease granted to a task cancelled or expired meanwhile went back
       without a run */
    assert_true(tu_xstats(ex).succeeded <= (uint64_t)mk_get(m, &m->grants));
    assert_int_equal(tu_xstats(ex).succeeded, (uint64_t)counts[GROUPCONC_STATUS_SUCCESS]);
    mk_quiesce(m);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    free(cc.h);
}

static void test_chaos_sync(void **state) {
    (void)state;
    run_chaos(MK_SYNC);
}

static void test_chaos_async(void **state) {
    (void)state;
    run_chaos(MK_ASYNC);
}

/* An immediate shutdown in the middle of a load (async provider, submitters still running): every
   accepted task ends SUCCESS or CANCELLED, later submits get ESHUTDOWN, every lease comes back
   (also those granted to tasks the shutdown cancelled while their requests were out). */
typedef struct sd_ctx {
    groupconc_executor *ex;
    groupconc_task **h;
    int per;
    atomic_int accepted, refused, other_errors;
    tu_latch half;     /* counted down by each submitter half-way */
    tu_latch shut;     /* opened by the test once it shut the executor down */
} sd_ctx;

typedef struct sd_thread {
    sd_ctx *sc;
    int index;
} sd_thread;

static void sd_submitter(void *arg) {
    sd_thread *t = (sd_thread *)arg;
    sd_ctx *sc = t->sc;
    uint32_t seed = 0x77u + (uint32_t)t->index * 31337u;
    for (int k = 0; k < sc->per; k++) {
        if (k == sc->per / 2) {
            tu_latch_count_down(&sc->half);
            (void)tu_latch_wait(&sc->shut);
        }
        char key[32];
        load_group_name(key, sizeof key, (int)(tu_rand(&seed) % 4));
        groupconc_task *h = NULL;
        int rc = groupconc_submit(sc->ex, key, NULL, work_fn, (void *)(uintptr_t)(tu_rand(&seed) % 2 * 300), &h);
        if (rc == GROUPCONC_OK) atomic_fetch_add(&sc->accepted, 1);
        else if (rc == GROUPCONC_ESHUTDOWN) atomic_fetch_add(&sc->refused, 1);
        else atomic_fetch_add(&sc->other_errors, 1);
        sc->h[t->index * sc->per + k] = h;
    }
}

static void test_shutdown_under_load(void **state) {
    (void)state;
    const int per = (int)(300 * tu_stress_scale()) + 2;
    mock *m = mk_new(MK_CAP, MK_ASYNC, 2);
    groupconc_policy p = fleet_policy(m, NULL);
    p.default_concurrency = 6;
    p.max_threads = 16;
    groupconc_executor *ex = fleet_executor(&p, m);
    sd_ctx sc;
    sc.ex = ex;
    sc.per = per;
    atomic_init(&sc.accepted, 0);
    atomic_init(&sc.refused, 0);
    atomic_init(&sc.other_errors, 0);
    tu_latch_init(&sc.half, LOAD_SUBMITTERS);
    tu_latch_init(&sc.shut, 1);
    sc.h = (groupconc_task **)calloc((size_t)(per * LOAD_SUBMITTERS), sizeof *sc.h);
    assert_non_null(sc.h);
    tu_thread th[LOAD_SUBMITTERS];
    sd_thread st[LOAD_SUBMITTERS];
    for (int i = 0; i < LOAD_SUBMITTERS; i++) {
        st[i].sc = &sc;
        st[i].index = i;
        assert_true(tu_thread_start(&th[i], sd_submitter, &st[i]));
    }
    assert_true(tu_latch_wait(&sc.half));
    assert_int_equal(groupconc_executor_shutdown(ex), GROUPCONC_OK);
    tu_latch_open(&sc.shut);
    for (int i = 0; i < LOAD_SUBMITTERS; i++) tu_thread_join(th[i]);
    assert_int_equal(atomic_load(&sc.other_errors), 0);
    int n = per * LOAD_SUBMITTERS, ok = 0, cancelled = 0;
    for (int i = 0; i < n; i++) {
        if (!sc.h[i]) continue;
        groupconc_result r = tu_wait(sc.h[i]);
        if (r.status == GROUPCONC_STATUS_SUCCESS) ok++;
        else if (r.status == GROUPCONC_STATUS_CANCELLED) cancelled++;
        else print_message("task %d: %s %s\n", i, groupconc_status_name(r.status), groupconc_errname(r.reason));
        assert_int_equal(groupconc_task_release(sc.h[i]), GROUPCONC_OK);
    }
    print_message("shutdown under load: %d accepted (%d succeeded, %d cancelled), %d refused\n",
                  atomic_load(&sc.accepted), ok, cancelled, atomic_load(&sc.refused));
    assert_int_equal(ok + cancelled, atomic_load(&sc.accepted));
    assert_int_equal(atomic_load(&sc.accepted), LOAD_SUBMITTERS * (per / 2));
    assert_int_equal(atomic_load(&sc.refused), LOAD_SUBMITTERS * (per - per / 2));
    /* requests still out when the shutdown came are answered by the provider thread: wait for it */
    mk_quiesce(m);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    tu_latch_destroy(&sc.half);
    tu_latch_destroy(&sc.shut);
    free(sc.h);
}

/* ==== executor gates do not pass through the fleet layer ================================================== */

#ifndef GROUPCONC_NO_GATE
static void test_gate_bypasses_fleet(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    groupconc_executor *ex = fleet_executor(&p, m);
    groupconc_gate_config gc;
    memset(&gc, 0, sizeof gc);
    gc.executor = ex;
    groupconc_gate *gate = NULL;
    assert_int_equal(groupconc_gate_create(&gc, &gate), GROUPCONC_OK);
    groupconc_permit pm;
    assert_int_equal(groupconc_gate_try_acquire(gate, "gb", &pm), GROUPCONC_OK);
    assert_int_equal(mk_get(m, &m->asks), 0);
    assert_int_equal(tu_gstats(ex, "gb").waiting_fleet, 0);
    assert_int_equal(groupconc_permit_release(&pm, GROUPCONC_RELEASE_SUCCESS, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_gate_destroy(gate), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
}
#endif

/* ==== bad arguments, policy, names ============================================================================ */

static void test_bad_arguments(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = fleet_policy(m, NULL);
    groupconc_executor *ex = fleet_executor(&p, m);
    /* answer */
    assert_int_equal(groupconc_fleet_answer(NULL, GROUPCONC_FLEET_GRANTED, 1), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_fleet_answer(NULL, GROUPCONC_FLEET_BUSY, 0), GROUPCONC_EINVAL);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a;
    tu_park_init(&a, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "ba", "A", &a, false, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    groupconc_fleet_request *req = m->held[0].req; /* read under no lock: nothing else touches it now */
    const int bad_verdicts[] = {-1, 4, 5, 100, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad_verdicts / sizeof bad_verdicts[0]; i++)
        assert_int_equal(groupconc_fleet_answer(req, (groupconc_fleet_verdict)bad_verdicts[i], 7), GROUPCONC_EINVAL);
    /* the request stays unanswered: the task still waits, and a valid answer works */
    bool done = true;
    assert_int_equal(groupconc_task_is_done(ha, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(tu_gstats(ex, "ba").waiting_fleet, 1);
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    mk_check_all_returned(m);
    /* notify */
    char long_key[GROUPCONC_MAX_KEY_LEN + 2], max_key[GROUPCONC_MAX_KEY_LEN + 1];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    memset(max_key, 'k', sizeof max_key - 1);
    max_key[sizeof max_key - 1] = '\0';
    assert_int_equal(groupconc_fleet_notify(NULL, "ba"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_fleet_notify(NULL, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_fleet_notify(ex, ""), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_fleet_notify(ex, long_key), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_fleet_notify(ex, max_key), GROUPCONC_OK);
    assert_int_equal(mk_get(m, &m->asks), 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    /* an executor without a provider */
    groupconc_policy plain = groupconc_policy_default();
    groupconc_executor *ex2 = tu_executor(&plain);
    assert_int_equal(groupconc_fleet_notify(ex2, "ba"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_fleet_notify(ex2, NULL), GROUPCONC_EINVAL);
    groupconc_executor_stats xs = tu_xstats(ex2);
    assert_int_equal(xs.waiting_fleet, 0);
    assert_int_equal(xs.fleet_open + xs.rejected_fleet + xs.fleet_renew_failed, 0);
    assert_int_equal(groupconc_executor_destroy(ex2), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_latch_destroy(&started);
}

static void test_policy_half_provider(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    groupconc_policy p = groupconc_policy_default();
    assert_null(p.fleet.acquire);
    assert_null(p.fleet.release);
    assert_null(p.fleet.user_data);
    for (int which = 0; which < 2; which++) {
        p.fleet = mk_provider(m);
        if (which == 0) p.fleet.release = NULL;
        else p.fleet.acquire = NULL;
        groupconc_executor *ex = (groupconc_executor *)&p; /* must be overwritten with NULL */
        assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_EINVAL);
        assert_null(ex);
        groupconc_policy_problem prob;
        memset(&prob, 0, sizeof prob);
        assert_int_equal(groupconc_policy_check(&p, &prob), GROUPCONC_EINVAL);
        assert_int_equal(prob.code, GROUPCONC_EINVAL);
        print_message("half provider (%s NULL): field \"%s\", message \"%s\"\n", which == 0 ? "release" : "acquire",
                      prob.field, prob.message);
        assert_non_null(strstr(prob.field, "fleet"));
        assert_true(prob.message[0] != '\0');
    }
    /* both set, user_data NULL: valid */
    p.fleet = mk_provider(m);
    p.fleet.user_data = NULL;
    assert_int_equal(groupconc_policy_check(&p, NULL), GROUPCONC_OK);
    mk_finish(m);
}

static void test_names(void **state) {
    (void)state;
    const struct {
        int code, value;
        const char *name;
    } codes[] = {
        {GROUPCONC_EREJECTED_FLEET, -37, "GROUPCONC_EREJECTED_FLEET"},
        {GROUPCONC_EEXPIRED_FLEET, -38, "GROUPCONC_EEXPIRED_FLEET"},
        {GROUPCONC_EFLEET_OPEN, -39, "GROUPCONC_EFLEET_OPEN"},
        {GROUPCONC_EFLEET_RENEW, -40, "GROUPCONC_EFLEET_RENEW"},
    };
    const char *unknown = groupconc_strerror(-1000);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_equal(codes[i].code, codes[i].value);
        assert_string_equal(groupconc_errname(codes[i].code), codes[i].name);
        const char *text = groupconc_strerror(codes[i].code);
        assert_non_null(text);
        assert_true(text[0] != '\0');
        assert_string_not_equal(text, unknown);
        for (int other = 0; other >= -40; other--)
            if (other != codes[i].code) assert_string_not_equal(groupconc_strerror(other), text);
    }
    assert_non_null(strstr(groupconc_strerror(GROUPCONC_EREJECTED_FLEET), "fleet"));
    assert_string_equal(groupconc_errname(-1000), "GROUPCONC_UNKNOWN");
    assert_string_equal(groupconc_event_type_name(GROUPCONC_EVENT_FLEET), "FLEET");
    assert_int_equal(GROUPCONC_EVENT_FLEET, 4);
    assert_string_equal(groupconc_event_type_name((groupconc_event_type)5), "UNKNOWN");
    assert_int_equal(GROUPCONC_FLEET_GRANTED, 0);
    assert_int_equal(GROUPCONC_FLEET_BUSY, 1);
    assert_int_equal(GROUPCONC_FLEET_REJECT, 2);
    assert_int_equal(GROUPCONC_FLEET_OPEN, 3);
}

/* ==== the housekeeper's admissions ============================================================== */

/* With group_idle_ns set, the housekeeper drains the inbox too, and a task it admits may reach the
   fleet layer: its request must be made (it was collected and dropped: 18 of 2000 were lost, and
   destroy would have waited for them for good). Found by the fuzzer. Quick tasks of one group keep
   the workers busy, so that the housekeeper's sweeps find tasks in the inbox. */
typedef struct keeper_probe {
    tu_mutex m;
    tu_cond cv;
    groupconc_fleet_request *held[2100];
    int nheld;
} keeper_probe;

static void kp_acquire(void *ud, groupconc_fleet_request *rq, const char *group) {
    keeper_probe *k = ud;
    if (group[0] == 'q') { /* the quick group passes at once */
        assert_int_equal(groupconc_fleet_answer(rq, GROUPCONC_FLEET_OPEN, 0), GROUPCONC_OK);
        return;
    }
    tu_mutex_lock(&k->m);
    if (k->nheld < (int)(sizeof k->held / sizeof k->held[0])) k->held[k->nheld] = rq;
    k->nheld++;
    tu_cond_broadcast(&k->cv);
    tu_mutex_unlock(&k->m);
}

static void kp_release(void *ud, const char *group, uint64_t lease) {
    (void)ud;
    (void)group;
    (void)lease;
    fail_msg("no lease was granted");
}

static int kp_quick(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 0;
}

static void test_keeper_admissions_ask(void **state) {
    (void)state;
    enum { ROUNDS = 2000 };
    static keeper_probe k; /* large: not on the stack */
    memset(&k, 0, sizeof k);
    tu_mutex_init(&k.m);
    tu_cond_init(&k.cv);
    groupconc_policy p = groupconc_policy_default();
    p.group_idle_ns = GROUPCONC_MS(1); /* the housekeeper runs, and drains the inbox */
    p.fleet.acquire = kp_acquire;
    p.fleet.release = kp_release;
    p.fleet.user_data = &k;
    groupconc_executor *ex = tu_executor(&p);
    for (int round = 0; round < ROUNDS; round++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", round);
        for (int q = 0; q < 20; q++) assert_int_equal(groupconc_submit(ex, "q", NULL, kp_quick, NULL, NULL), GROUPCONC_OK);
        assert_int_equal(groupconc_submit(ex, key, NULL, kp_quick, NULL, NULL), GROUPCONC_OK);
        tu_sleep_ns(100000 + (round % 5) * 100000); /* pacing, so that sweeps meet pushes */
    }
    int64_t deadline = tu_now_ns() + 10 * TU_SEC; /* every request, asked by whoever admitted it */
    tu_mutex_lock(&k.m);
    while (k.nheld < ROUNDS && tu_now_ns() < deadline) tu_cond_wait_until(&k.cv, &k.m, deadline);
    int n = k.nheld;
    tu_mutex_unlock(&k.m);
    groupconc_executor_stats es = tu_xstats(ex);
    assert_int_equal(n, ROUNDS);
    assert_true(es.waiting_fleet >= ROUNDS); /* + a quick task passing through (asked outside the lock) */
    for (int i = 0; i < n; i++) assert_int_equal(groupconc_fleet_answer(k.held[i], GROUPCONC_FLEET_OPEN, 0), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, TU_TIMEOUT_NS), GROUPCONC_OK);
    es = tu_xstats(ex);
    assert_int_equal(es.succeeded, (uint64_t)ROUNDS * 21);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_cond_destroy(&k.cv);
    tu_mutex_destroy(&k.m);
}

/* An expired task's permit takes a waiter to the fleet layer: the housekeeper asks for it, and a
   provider that answers REJECT inside that acquire refused it on the housekeeper. Its rejection
   handler ran there (helper-82 F2), where a wait returns EDEADLK and a block holds up every
   deadline; now that refusal goes to a worker too. Global in-flight 2: e1 runs until S runs, e2
   waits at e's concurrency (holding the second permit) with a short deadline, w ("f", whose
   provider refuses) waits at global; e2 expires, its permit goes to w, w's request is made on the
   housekeeper and refused inside it. The handler submits S and waits for it. Tried again with a
   longer deadline when e2 expired before w was queued (then the submitter's thread asked). */
typedef struct keeper_refusal {
    tu_latch started, release;
    atomic_int handled, wait_rc, s_status, asked_by_main;
    tu_thread_id main_thread;
} keeper_refusal;

static void kr_acquire(void *ud, groupconc_fleet_request *rq, const char *group) {
    keeper_refusal *k = ud;
    if (strcmp(group, "f") != 0) { /* e1, S: pass */
        assert_int_equal(groupconc_fleet_answer(rq, GROUPCONC_FLEET_OPEN, 0), GROUPCONC_OK);
        return;
    }
    if (tu_same_thread(tu_self(), k->main_thread)) atomic_store(&k->asked_by_main, 1);
    assert_int_equal(groupconc_fleet_answer(rq, GROUPCONC_FLEET_REJECT, 0), GROUPCONC_OK);
}

static void kr_release(void *ud, const char *group, uint64_t lease) {
    (void)ud;
    (void)group;
    (void)lease;
    fail_msg("no lease was granted");
}

static int kr_held(groupconc_context *ctx, void **out_value, void *arg) {
    keeper_refusal *k = arg;
    (void)ctx;
    (void)out_value;
    tu_latch_count_down(&k->started);
    assert_true(tu_latch_wait(&k->release));
    return 0;
}

static int kr_s(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    tu_latch_open(&((keeper_refusal *)arg)->release);
    return 0;
}

static void kr_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    keeper_refusal *k = user_data;
    groupconc_task *s;
    groupconc_result r;
    int rc;
    (void)out;
    assert_int_equal(rj->reason, GROUPCONC_EREJECTED_FLEET);
    atomic_fetch_add(&k->handled, 1);
    assert_int_equal(groupconc_submit(rj->executor, "s", "S", kr_s, k, &s), GROUPCONC_OK);
    rc = groupconc_task_wait(s, &r);
    atomic_store(&k->wait_rc, rc);
    if (rc == GROUPCONC_OK) atomic_store(&k->s_status, (int)r.status);
    else tu_latch_open(&k->release); /* on the housekeeper: let e1 end all the same */
    groupconc_task_release(s);
}

static bool keeper_refusal_run(int64_t max_wait) {
    keeper_refusal k;
    groupconc_group_limits lim[1] = {{"e", 1, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_task_spec spec = {0};
    groupconc_executor *ex;
    groupconc_task *e1, *e2, *w;
    groupconc_result res;
    tu_latch_init(&k.started, 1);
    tu_latch_init(&k.release, 1);
    atomic_init(&k.handled, 0);
    atomic_init(&k.wait_rc, 1);
    atomic_init(&k.s_status, -1);
    atomic_init(&k.asked_by_main, 0);
    k.main_thread = tu_self();
    p.max_threads = 4;
    p.global_max_in_flight = 2;
    p.groups = lim;
    p.group_count = 1;
    p.reject_handler = kr_handler;
    p.reject_user_data = &k;
    p.fleet.acquire = kr_acquire;
    p.fleet.release = kr_release;
    p.fleet.user_data = &k;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "e", "e1", kr_held, &k, &e1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&k.started));
    spec.group = "e";
    spec.task_id = "e2";
    spec.fn = tu_noop_fn;
    spec.max_wait_ns = max_wait;
    assert_int_equal(groupconc_submit_spec(ex, &spec, &e2), GROUPCONC_OK);
    assert_int_equal(groupconc_submit(ex, "f", "w", tu_noop_fn, NULL, &w), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(e2, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EEXPIRED_CONCURRENCY);
    /* polled: a wait on w could settle its refusal on this thread (a waiter finishes what it can) */
    int64_t until = tu_now_ns() + 10 * TU_SEC;
    bool done = false;
    while (assert_int_equal(groupconc_task_is_done(w, &done), GROUPCONC_OK), !done && tu_now_ns() < until)
        tu_sleep_ns(TU_MS);
    assert_true(done);
    assert_int_equal(groupconc_task_wait(w, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_FLEET);
    assert_int_equal(atomic_load(&k.handled), 1);
    bool shape = !atomic_load(&k.asked_by_main);
    if (shape) {
        assert_int_equal(atomic_load(&k.wait_rc), GROUPCONC_OK); /* EDEADLK on the housekeeper */
        assert_int_equal(atomic_load(&k.s_status), GROUPCONC_STATUS_SUCCESS);
    }
    assert_int_equal(groupconc_task_wait(e1, &res), GROUPCONC_OK);
    assert_int_equal(res.status, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(e1);
    groupconc_task_release(e2);
    groupconc_task_release(w);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    tu_latch_destroy(&k.release);
    tu_latch_destroy(&k.started);
    return shape;
}

static void test_keeper_ask_refusal_on_worker(void **state) {
    (void)state;
    int64_t max_wait = GROUPCONC_MS(20);
    for (int tries = 0; !keeper_refusal_run(max_wait); tries++) {
        assert_true(tries < 4);
        max_wait *= 4;
    }
}

/* ==== pause (issue 24) ============================================================================== */

/* A paused group asks for no lease and holds none: a GRANTED answer that comes after the pause is
   given back at once (the task waits as BUSY, not at the running cap holding the lease); notifies,
   for the group or for all, ask nothing while it is paused; the resume asks again. The same for an
   executor pause, with a task answered BUSY before it. */
static void test_pause_holds_no_lease(void **state) {
    (void)state;
    mock *m = mk_new(MK_HOLD, MK_SYNC, 1);
    recorder *rec = rec_new();
    groupconc_policy p = fleet_policy(m, rec);
    p.default_concurrency = 4;
    groupconc_executor *ex = fleet_executor(&p, m);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park a, c;
    tu_park_init(&a, &started, NULL);
    tu_park_init(&c, &started, NULL);
    groupconc_task *ha = fp_submit(ex, "pz", "A", &a, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(groupconc_group_pause(ex, "pz"), GROUPCONC_OK);
    uint64_t lease = 0;
    assert_int_equal(mk_answer_at(m, 0, GROUPCONC_FLEET_GRANTED, &lease), GROUPCONC_OK);
    assert_int_equal(mk_lease_state(m, lease), 2); /* given back at once */
    assert_int_equal(mk_get(m, &m->releases), 1);
    groupconc_group_stats gs = tu_gstats(ex, "pz");
    assert_int_equal(gs.waiting_fleet, 1); /* waits at the fleet layer, answered BUSY in effect */
    assert_int_equal(gs.waiting_running, 0);
    assert_int_equal(gs.running, 0);
    assert_int_equal(groupconc_fleet_notify(ex, "pz"), GROUPCONC_OK);
    assert_int_equal(groupconc_fleet_notify(ex, NULL), GROUPCONC_OK);
    assert_false(mk_wait_held(m, 1, 20 * TU_MS)); /* paused: nothing asked */
    assert_int_equal(mk_get(m, &m->asks), 1);
    assert_int_equal(groupconc_group_resume(ex, "pz"), GROUPCONC_OK);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS)); /* asked again */
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&a);
    tu_wait_status(ha, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&a.ran), 1001);

    /* an executor pause, with a task answered BUSY before it */
    tu_latch_add(&started, 1);
    groupconc_task *hc = fp_submit(ex, "pz", "C", &c, true, 0);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_BUSY), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_pause(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_fleet_notify(ex, "pz"), GROUPCONC_OK);
    assert_int_equal(groupconc_fleet_notify(ex, NULL), GROUPCONC_OK);
    assert_false(mk_wait_held(m, 1, 20 * TU_MS));
    assert_int_equal(tu_gstats(ex, "pz").waiting_fleet, 1);
    assert_int_equal(groupconc_executor_resume(ex), GROUPCONC_OK);
    assert_true(mk_wait_held(m, 1, TU_TIMEOUT_NS));
    assert_int_equal(mk_answer(m, GROUPCONC_FLEET_GRANTED), GROUPCONC_OK);
    assert_true(tu_latch_wait(&started));
    tu_park_release(&c);
    tu_wait_status(hc, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, "A"), 1);
    assert_int_equal(rec_count(rec, GROUPCONC_EVENT_STARTED, "C"), 1);
    mk_check_all_returned(m);
    check_totals_settled(ex);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    mk_finish(m);
    assert_int_equal(groupconc_task_release(ha), GROUPCONC_OK);
    assert_int_equal(groupconc_task_release(hc), GROUPCONC_OK);
    tu_park_destroy(&a);
    tu_park_destroy(&c);
    tu_latch_destroy(&started);
    rec_free(rec);
}

/* ==== a wait inside an answer given inside acquire ========================================== */

/* A provider that answers inside acquire runs what the answer leads to there: a rejection handler or
   a COMPLETED event that waits for another task of the fleet (a fallback), whose request this
   thread would make only after acquire returned. That wait hung (wait) or timed out with the
   fallback never run (execute_all); now a thread about to block first makes the requests it holds
   back, calling acquire again on this thread. Modes: 0 the handler waits on the fallback's handle;
   1 the COMPLETED event runs the fallback through execute_all; 2 the handler opens a scope, forks
   the fallback and joins. */
typedef struct inline_box {
    groupconc_executor *ex;
    int mode;
    atomic_int acquires, releases, depth, max_depth;
    atomic_int rc, fallback_status, fallback_ran;
} inline_box;

static void inline_acquire(void *ud, groupconc_fleet_request *req, const char *group) {
    inline_box *b = (inline_box *)ud;
    int d = atomic_fetch_add(&b->depth, 1) + 1;
    if (d > atomic_load(&b->max_depth)) atomic_store(&b->max_depth, d);
    atomic_fetch_add(&b->acquires, 1);
    bool capped = strcmp(group, "capped") == 0;
    assert_int_equal(groupconc_fleet_answer(req, capped ? GROUPCONC_FLEET_REJECT : GROUPCONC_FLEET_GRANTED,
                                            capped ? 0 : 1),
                     GROUPCONC_OK);
    atomic_fetch_sub(&b->depth, 1);
}

static void inline_release(void *ud, const char *group, uint64_t lease) {
    inline_box *b = (inline_box *)ud;
    assert_string_equal(group, "fallback");
    assert_int_equal(lease, 1);
    atomic_fetch_add(&b->releases, 1);
}

static int fallback_fn(groupconc_context *ctx, void **out_value, void *arg) {
    inline_box *b = (inline_box *)arg;
    (void)ctx;
    atomic_fetch_add(&b->fallback_ran, 1);
    *out_value = b;
    return 0;
}

/* The fallback, run the mode's way; its wait's code in b->rc, its status in b->fallback_status. */
static void inline_fallback(inline_box *b) {
    groupconc_result r;
    memset(&r, 0, sizeof r);
    if (b->mode == 0) {
        groupconc_task *t = NULL;
        assert_int_equal(groupconc_submit(b->ex, "fallback", "fb", fallback_fn, b, &t), GROUPCONC_OK);
        atomic_store(&b->rc, groupconc_task_wait_for(t, TU_TIMEOUT_NS, &r));
        groupconc_task_release(t);
    } else if (b->mode == 1) {
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = "fallback";
        spec.fn = fallback_fn;
        spec.arg = b;
        atomic_store(&b->rc, groupconc_execute_all(b->ex, &spec, 1, TU_TIMEOUT_NS, &r));
    } else {
#ifndef GROUPCONC_NO_SCOPES
        groupconc_scope *s = NULL;
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = "fallback";
        spec.fn = fallback_fn;
        spec.arg = b;
        assert_int_equal(groupconc_scope_open(b->ex, NULL, &s), GROUPCONC_OK);
        assert_int_equal(groupconc_scope_fork(s, &spec, NULL), GROUPCONC_OK);
        atomic_store(&b->rc, groupconc_scope_join_for(s, TU_TIMEOUT_NS));
        assert_int_equal(groupconc_scope_result(s, 0, &r), GROUPCONC_OK);
        assert_int_equal(groupconc_scope_close(s), GROUPCONC_OK);
#endif
    }
    atomic_store(&b->fallback_status, (int)r.status);
}

static void inline_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *ud) {
    inline_box *b = (inline_box *)ud;
    assert_int_equal(rj->reason, GROUPCONC_EREJECTED_FLEET);
    inline_fallback(b);
    out->status = GROUPCONC_STATUS_SUCCESS;
}

static void inline_listener(const groupconc_event *e, void *ud) {
    if (e->type == GROUPCONC_EVENT_COMPLETED && strcmp(e->group, "capped") == 0) inline_fallback((inline_box *)ud);
}

static void test_wait_inside_an_answer_inside_acquire(void **state) {
    (void)state;
#ifndef GROUPCONC_NO_SCOPES
    const int modes = 3;
#else
    const int modes = 2; /* no scopes in this build */
#endif
    for (int mode = 0; mode < modes; mode++) {
        inline_box b;
        memset(&b, 0, sizeof b);
        b.mode = mode;
        atomic_init(&b.rc, 1);
        atomic_init(&b.fallback_status, -1);
        groupconc_policy p = groupconc_policy_default();
        p.fleet.acquire = inline_acquire;
        p.fleet.release = inline_release;
        p.fleet.user_data = &b;
        if (mode == 1) {
            p.listener = inline_listener;
            p.listener_user_data = &b;
        } else {
            p.reject_handler = inline_handler;
            p.reject_user_data = &b;
        }
        groupconc_executor *ex = b.ex = tu_executor(&p);
        groupconc_task *t = tu_submit(ex, "capped", "A", tu_noop_fn, NULL);
        groupconc_result r = tu_wait(t);
        assert_int_equal(r.status, mode == 1 ? GROUPCONC_STATUS_REJECTED : GROUPCONC_STATUS_SUCCESS);
        if (atomic_load(&b.rc) != GROUPCONC_OK)
            fail_msg("mode %d: the fallback's wait: %s", mode, groupconc_errname(atomic_load(&b.rc)));
        assert_int_equal(atomic_load(&b.fallback_status), GROUPCONC_STATUS_SUCCESS);
        assert_int_equal(atomic_load(&b.fallback_ran), 1);
        assert_int_equal(atomic_load(&b.acquires), 2);
        assert_int_equal(atomic_load(&b.max_depth), 2); /* the fallback's acquire inside A's */
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        assert_int_equal(atomic_load(&b.releases), 1);
        assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_policy_half_provider),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_lease_held_while_running),
        cmocka_unit_test(test_fifo_once_busy_sync),
        cmocka_unit_test(test_fifo_once_busy_async),
        cmocka_unit_test(test_fifo_new_task_behind_busy),
        cmocka_unit_test(test_cancel_while_asked),
        cmocka_unit_test(test_answers_after_cancel),
        cmocka_unit_test(test_cancel_busy_sync),
        cmocka_unit_test(test_cancel_busy_async),
        cmocka_unit_test(test_deadline_while_busy),
        cmocka_unit_test(test_deadline_while_asked),
        cmocka_unit_test(test_deadline_from_concurrency_to_fleet),
        cmocka_unit_test(test_fleet_group_not_idle),
        cmocka_unit_test(test_runcap_not_held_by_busy_tasks),
        cmocka_unit_test(test_reject_discard_sync),
        cmocka_unit_test(test_reject_discard_async),
        cmocka_unit_test(test_reject_abort_sync),
        cmocka_unit_test(test_reject_abort_async),
        cmocka_unit_test(test_reject_caller_runs),
        cmocka_unit_test(test_reject_handler_keeps_rejected),
        cmocka_unit_test(test_reject_handler_success),
        cmocka_unit_test(test_open_sync),
        cmocka_unit_test(test_open_async),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_stats_waiting_fleet),
        cmocka_unit_test(test_notify_one_and_all),
        cmocka_unit_test(test_reasked_reject_asks_next),
        cmocka_unit_test(test_reasked_open_asks_next),
        cmocka_unit_test(test_reasked_granted_asks_nobody),
        cmocka_unit_test(test_cancelled_then_reject_asks_next),
        cmocka_unit_test(test_cancelled_then_open_asks_next),
        cmocka_unit_test(test_notify_while_asked),
        cmocka_unit_test(test_notify_all_while_asked),
        cmocka_unit_test(test_shutdown_immediate),
        cmocka_unit_test(test_group_shutdown),
        cmocka_unit_test(test_shutdown_graceful_waits),
        cmocka_unit_test(test_shutdown_graceful_timeout_while_asked),
        cmocka_unit_test(test_destroy_waits_for_answers),
        cmocka_unit_test(test_wait_inside_an_answer_inside_acquire),
#ifndef GROUPCONC_NO_GATE
        cmocka_unit_test(test_gate_bypasses_fleet),
#endif
        cmocka_unit_test(test_cap_holds_under_load_sync),
        cmocka_unit_test(test_cap_holds_under_load_async),
        cmocka_unit_test(test_chaos_sync),
        cmocka_unit_test(test_chaos_async),
        cmocka_unit_test(test_shutdown_under_load),
        cmocka_unit_test(test_keeper_admissions_ask),
        cmocka_unit_test(test_keeper_ask_refusal_on_worker),
        cmocka_unit_test(test_pause_holds_no_lease),
    };
    /* FLEET_TEST=<pattern>: run only the matching tests (cmocka's filter) */
    tu_mutex_init(&mk_reg_lock);
    if (getenv("FLEET_TEST")) cmocka_set_test_filter(getenv("FLEET_TEST"));
    return TU_RUN_TESTS(tests);
}
