/* test_fleet_redis.c - the fleet layer on Redis (extras/groupconc_redis.h), against a real
   redis-server that each test starts on a unix socket in a temporary directory (TCP off) and stops
   at its end (tests/fleetutil.h). A server that cannot start fails the test: it is not skipped.

   One invariant per test:
   - three processes x four submitting threads x 20 groups with fleet caps 1-4: the fleet-wide running
     count of each group (an atomic counter in memory shared across fork) never exceeds its cap, and
     every task completes;
   - kill -9 of a process holding every lease of a group: the others take over within
     TTL + poll interval + KILL_SLACK_MS (and not at once: only the leases' expiry frees them);
   - redis-server killed and restarted mid-run (FAIL_CLOSED_WAIT, FAIL_CLOSED_REJECT): every task
     reaches a terminal state, a lease lost with the data is added back and reported, and the caps
     hold for every task started one TTL after the restart;
   - redis-server absent at start: REJECT completes tasks REJECTED (GROUPCONC_EREJECTED_FLEET); OPEN
     runs them, counted (fleet_open) and reported (GROUPCONC_EVENT_FLEET / GROUPCONC_EFLEET_OPEN);
     WAIT holds them until a server appears, then runs them within the caps;
   - a lease held past several TTLs is renewed and keeps its slot; its release reaches another
     provider through pub/sub; a renewal that fails is reported and the task keeps running;
   - a process under continuous load does not keep a slot from one that waits (the wait queue);
   - TCP on a loopback port the test picks; AUTH (password, username + password, wrong password);
     NOSCRIPT after SCRIPT FLUSH; groups
     without a fleet cap need no Redis; cancel and queue deadline at the fleet layer;
   - bad arguments to every public function;
   - (issue 24) every allocation of the provider fails in turn: no crash, no leak, nothing left in
     Redis; a paused group holds no lease and another process takes it at once; a waiting process
     whose waiters leave (expired, cancelled, group shut down) lets another start in well under a
     poll interval; fail-closed + CALLER_RUNS: REJECTED with the fleet's reason, then the run.
   Waits are latches (in shared memory across processes) or bounded re-checks of counters that
   offer no notification (another process's stats); never a sleep standing in for a state. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

/* The provider's allocator: counts its live blocks and, while armed, fails the n-th allocation made
   by any thread (test_provider_allocation_failures). Unarmed, it is malloc / free. */
#include <stdatomic.h>
#include <stdlib.h>
static atomic_long tr_live, tr_countdown, tr_injected;
static void *tr_malloc(size_t n) {
    long c = atomic_load(&tr_countdown);
    while (c > 0 && !atomic_compare_exchange_weak(&tr_countdown, &c, c - 1)) {
    }
    if (c == 1) {
        atomic_fetch_add(&tr_injected, 1);
        return NULL;
    }
    void *p = malloc(n ? n : 1);
    if (p) atomic_fetch_add(&tr_live, 1);
    return p;
}
static void tr_free(void *p) {
    if (!p) return;
    atomic_fetch_sub(&tr_live, 1);
    free(p);
}
#define GROUPCONC_REDIS_MALLOC(sz) tr_malloc(sz)
#define GROUPCONC_REDIS_FREE(p) tr_free(p)
/* Holds a provider's answers (test_leaving_waiter_*_answer_late): see th_answers. */
static void th_answers(const void *r);
#define GROUPCONC_REDIS_TEST_ANSWERS(r) th_answers(r)
#define GROUPCONC_REDIS_IMPLEMENTATION
#include "extras/groupconc_redis.h"

#include "testutil.h"
#include "fleetutil.h"

/* ---- shared helpers ------------------------------------------------------------------------------ */

/* While th_r names a provider, the next round trip of its I/O thread that has answers waits at
   th_gate before it delivers them (once: th_r is cleared). */
static _Atomic(const void *) th_r;
static tu_latch th_gate;
static void th_answers(const void *r) {
    const void *want = r;
    if (atomic_compare_exchange_strong(&th_r, &want, NULL)) (void)tu_latch_wait(&th_gate);
}

#define TTL_MS 1000          /* lease TTL of the timing tests */
#define POLL_MS 200          /* polling fallback */
#define KILL_SLACK_MS 1500   /* take-over bound beyond TTL + poll: round trips and a loaded 2-core box */

static fu_redis srv;         /* this test's server */

static void start_server(const char *password) {
    memset(&srv, 0, sizeof srv);
    if (fu_redis_start(&srv, password) != 0) {
        print_error("could not start redis-server (install it: apt-get install redis-server):\n%s\n",
                    srv.log);
        fail();
    }
}

static int teardown_server(void **state) {
    (void)state;
    fu_redis_cleanup(&srv);
    return 0;
}

/* A socket path where no server listens (for "absent at start"). */
static void absent_server(void) {
    memset(&srv, 0, sizeof srv);
    const char *tmp = getenv("TMPDIR");
    snprintf(srv.dir, sizeof srv.dir, "%s/gcfleet.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(srv.dir));
    snprintf(srv.sock, sizeof srv.sock, "%s/redis.sock", srv.dir);
}

static groupconc_redis_config base_cfg(void) {
    groupconc_redis_config c = groupconc_redis_config_default();
    c.unix_path = srv.sock;
    c.lease_ttl_ns = GROUPCONC_MS(TTL_MS);
    c.poll_interval_ns = GROUPCONC_MS(POLL_MS);
    c.connect_timeout_ns = GROUPCONC_MS(500);
    c.command_timeout_ns = GROUPCONC_SEC(2);
    c.backoff_min_ns = GROUPCONC_MS(10);
    c.backoff_max_ns = GROUPCONC_MS(200);
    return c;
}

typedef struct fleet_tally {
    atomic_int fleet_open, fleet_renew, fleet_other;
    tu_latch *renew_seen;    /* counted down on each EFLEET_RENEW event, if set */
} fleet_tally;

static void tally_listener(const groupconc_event *ev, void *user_data) {
    fleet_tally *t = (fleet_tally *)user_data;
    if (ev->type != GROUPCONC_EVENT_FLEET) return;
    if (ev->reason == GROUPCONC_EFLEET_OPEN) atomic_fetch_add(&t->fleet_open, 1);
    else if (ev->reason == GROUPCONC_EFLEET_RENEW) {
        atomic_fetch_add(&t->fleet_renew, 1);
        if (t->renew_seen) tu_latch_count_down(t->renew_seen);
    } else atomic_fetch_add(&t->fleet_other, 1);
}

/* A provider and an executor using it (local concurrency `local_conc`), attached. */
typedef struct rig {
    groupconc_redis *r;
    groupconc_executor *ex;
} rig;

static int rig_make(rig *g, const groupconc_redis_config *rc, int local_conc, groupconc_listener_fn listener,
                    void *listener_data) {
    memset(g, 0, sizeof *g);
    int rc_ = groupconc_redis_create(rc, &g->r);
    if (rc_ != GROUPCONC_OK) return rc_;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = local_conc;
    p.max_threads = 16;
    p.listener = listener;
    p.listener_user_data = listener_data;
    if ((rc_ = groupconc_redis_provider(g->r, &p.fleet)) != GROUPCONC_OK) return rc_;
    return groupconc_executor_create(&p, &g->ex); /* attaches the provider */
}

static void rig_free(rig *g) {
    if (g->ex) groupconc_executor_destroy(g->ex); /* detaches the provider */
    if (g->r) groupconc_redis_destroy(g->r);
    g->ex = NULL;
    g->r = NULL;
}

static groupconc_redis_stats rstats(groupconc_redis *r) {
    groupconc_redis_stats s;
    memset(&s, 0, sizeof s);
    groupconc_redis_stats_get(r, &s);
    return s;
}

/* predicates for fu_wait_until */
typedef struct waitfor {
    groupconc_redis *r;
    groupconc_executor *ex;
    uint64_t n;
} waitfor;
static bool p_waiting_fleet(void *a) {
    waitfor *w = (waitfor *)a;
    groupconc_executor_stats s;
    return groupconc_executor_stats_get(w->ex, &s) == GROUPCONC_OK && s.waiting_fleet >= w->n;
}
static bool p_renewals(void *a) {
    waitfor *w = (waitfor *)a;
    return rstats(w->r).renewals >= w->n;
}
static bool p_fail_waited(void *a) {
    waitfor *w = (waitfor *)a;
    return rstats(w->r).fail_waited >= w->n;
}
static bool p_busy(void *a) {
    waitfor *w = (waitfor *)a;
    return rstats(w->r).busy >= w->n;
}
static bool p_subscribed(void *a) {
    waitfor *w = (waitfor *)a;
    return rstats(w->r).subscribed;
}
/* r's command connection is up and it listens on the channel (groupconc_redis_wait_ready waits
   for the first only: a message published before the subscription is lost, and only the poll
   makes up for it). */
static void ready_and_subscribed(groupconc_redis *r) {
    assert_int_equal(groupconc_redis_wait_ready(r, TU_TIMEOUT_NS), GROUPCONC_OK);
    waitfor w = {r, NULL, 0};
    assert_true(fu_wait_until(p_subscribed, &w, TU_TIMEOUT_NS));
}
static bool p_no_leases(void *a) {
    waitfor *w = (waitfor *)a;
    groupconc_redis_stats s = rstats(w->r);
    return s.leases_held == 0 && s.queued == 0;
}

/* ZCARD of a group's lease set (-1 on error). */
/* The size of the group's lease set in Redis, or -1 when it cannot be read. A failed connection or
   command is tried again for up to 2 s: the asan-clang section of the CI run of f3b1004 read -1
   once (test_single_cap_and_local_release, line 794, the machine loaded by that section), a
   transient failure of this test's own client, not a count; a lasting one is reported. */
static long long zcard(const char *group) {
    char key[300];
    snprintf(key, sizeof key, "groupconc:lease:%s", group);
    for (int tries = 0;; tries++) {
        redisContext *c = fu_redis_connect(&srv);
        long long n = c ? fu_redis_int(c, "ZCARD %s", key) : -1;
        if (n < 0 && tries == 199)
            print_error("zcard(%s): %s\n", group, c ? (c->err ? c->errstr : "not an integer reply") : "no connection");
        if (c) redisFree(c);
        if (n >= 0 || tries == 199) return n;
        tu_sleep_ns(10 * TU_MS);
    }
}

/* A pub/sub message made the provider notify its executor. */
static bool p_pubsub_notified(void *r) {
    return rstats((groupconc_redis *)r).notify_pubsub >= 1;
}

/* The group's lease set is empty in Redis. The provider's queue being empty is not enough: the last
   release may still be in the I/O thread's round trip (seen under valgrind on a loaded machine). */
static bool p_zcard_zero(void *group) {
    return zcard((const char *)group) == 0;
}

/* fork: run fn(arg) in a child and _exit with its result. Out of line: the child branch of a fork
   inlined into a big function let gcc 12 -O2 share a stack slot of the parent's live locals (seen
   in bench_fleet.c). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static pid_t spawn(int (*fn)(void *), void *arg) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) _exit(fn(arg));
    return pid;
}

static int reap(pid_t pid) {
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* ---- a task that checks the fleet-wide cap from shared memory ----------------------------------- */

#define NG 20
typedef struct shared_area {
    atomic_int running[NG];
    atomic_int peak[NG];
    atomic_int cap[NG];
    atomic_int violations;
    atomic_int started, completed, rejected_fleet, bad;
    atomic_int renew_events;             /* EFLEET_RENEW seen by the children's listeners */
    _Atomic(int64_t) kill_at_ns;         /* restart test: the server was killed (exempt from here) */
    _Atomic(int64_t) converge_after_ns;  /* ... caps must hold again for starts after this */
    atomic_int stop_submitting;
    atomic_int restored_total;
    fu_xlatch ready;                     /* children count down when set up / holding */
    /* children's provider totals (for the report) */
    _Atomic(uint64_t) round_trips, commands, grants, busy, notify_pubsub, notify_local, notify_poll;
} shared_area;

static shared_area *sh;

typedef struct task_arg {
    int g;       /* group index */
    int spin_us; /* how long it runs */
} task_arg;

static void cap_enter(int g) {
    int v = atomic_fetch_add(&sh->running[g], 1) + 1;
    int old = atomic_load(&sh->peak[g]);
    while (v > old && !atomic_compare_exchange_weak(&sh->peak[g], &old, v)) {
    }
    if (v > atomic_load(&sh->cap[g])) {
        int64_t now = fu_now_ns(), ka = atomic_load(&sh->kill_at_ns), ca = atomic_load(&sh->converge_after_ns);
        /* before a kill: strict; between a kill and convergence: exempt; after: strict */
        if (ka == 0 || (ca != 0 && now > ca)) atomic_fetch_add(&sh->violations, 1);
    }
    atomic_fetch_add(&sh->started, 1);
}
static void cap_leave(int g) { atomic_fetch_sub(&sh->running[g], 1); }

static int capped_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    task_arg *a = (task_arg *)arg;
    cap_enter(a->g);
    tu_sleep_ns((int64_t)a->spin_us * 1000);
    cap_leave(a->g);
    return 0;
}

static char gname[NG][16];
static groupconc_redis_cap gcaps[NG];
static void groups_init(void) {
    for (int g = 0; g < NG; g++) {
        snprintf(gname[g], sizeof gname[g], "g%02d", g);
        gcaps[g].group = gname[g];
        gcaps[g].cap = 1 + g % 4;
        atomic_store(&sh->cap[g], gcaps[g].cap);
    }
}

static void export_stats(groupconc_redis *r) {
    groupconc_redis_stats s = rstats(r);
    atomic_fetch_add(&sh->round_trips, s.round_trips);
    atomic_fetch_add(&sh->commands, s.commands);
    atomic_fetch_add(&sh->grants, s.grants);
    atomic_fetch_add(&sh->busy, s.busy);
    atomic_fetch_add(&sh->notify_pubsub, s.notify_pubsub);
    atomic_fetch_add(&sh->notify_local, s.notify_local);
    atomic_fetch_add(&sh->notify_poll, s.notify_poll);
}

/* ---- 3 processes x 4 threads x 20 groups ---------------------------------------------------------- */

#define FLEET_PROCS 3
#define FLEET_THREADS 4
typedef struct submitter {
    groupconc_executor *ex;
    int proc, thread, count;
    task_arg *args;
    groupconc_task **handles;
    int submit_failed;
} submitter;

static void submitter_main(void *p) {
    submitter *s = (submitter *)p;
    uint32_t rng = (uint32_t)(s->proc * 131 + s->thread * 17 + 1);
    for (int i = 0; i < s->count; i++) {
        s->args[i].g = (int)(tu_rand(&rng) % NG);
        s->args[i].spin_us = 200 + (int)(tu_rand(&rng) % 1800);
        if (groupconc_submit(s->ex, gname[s->args[i].g], NULL, capped_fn, &s->args[i], &s->handles[i]) !=
            GROUPCONC_OK) {
            s->handles[i] = NULL;
            s->submit_failed++;
        }
    }
}

static int fleet_child(void *arg) {
    int proc = (int)(intptr_t)arg;
    int per_thread = (int)(150 * tu_stress_scale());
    groupconc_redis_config rc = base_cfg();
    rc.caps = gcaps;
    rc.cap_count = NG;
    rc.lease_ttl_ns = GROUPCONC_SEC(5); /* generous: renewals on a loaded box */
    rig g;
    if (rig_make(&g, &rc, 4, NULL, NULL) != GROUPCONC_OK) return 10;
    fu_xlatch_count_down(&sh->ready);
    if (!fu_xlatch_wait_for(&sh->ready, TU_TIMEOUT_NS)) return 11; /* all start together */
    submitter subs[FLEET_THREADS];
    tu_thread th[FLEET_THREADS];
    for (int t = 0; t < FLEET_THREADS; t++) {
        subs[t] = (submitter){g.ex, proc, t, per_thread, calloc((size_t)per_thread, sizeof(task_arg)),
                              calloc((size_t)per_thread, sizeof(groupconc_task *)), 0};
        if (!subs[t].args || !subs[t].handles || !tu_thread_start(&th[t], submitter_main, &subs[t])) return 12;
    }
    int rc_ = 0;
    for (int t = 0; t < FLEET_THREADS; t++) {
        tu_thread_join(th[t]);
        if (subs[t].submit_failed) rc_ = 13;
        for (int i = 0; i < per_thread; i++) {
            groupconc_result res;
            if (!subs[t].handles[i]) continue;
            if (groupconc_task_wait_for(subs[t].handles[i], GROUPCONC_SEC(120), &res) != GROUPCONC_OK) {
                rc_ = 14;
                continue;
            }
            if (res.status == GROUPCONC_STATUS_SUCCESS) atomic_fetch_add(&sh->completed, 1);
            else atomic_fetch_add(&sh->bad, 1);
            groupconc_task_release(subs[t].handles[i]);
        }
        free(subs[t].args);
        free(subs[t].handles);
    }
    export_stats(g.r);
    groupconc_executor_stats xs;
    groupconc_executor_stats_get(g.ex, &xs);
    if (xs.fleet_open || xs.rejected_fleet) rc_ = 15;
    rig_free(&g);
    return rc_;
}

static void test_three_processes_twenty_groups(void **state) {
    (void)state;
    start_server(NULL);
    sh = (shared_area *)fu_shared_alloc(sizeof *sh);
    assert_non_null(sh);
    groups_init();
    fu_xlatch_init(&sh->ready, FLEET_PROCS);
    int64_t t0 = fu_now_ns();
    pid_t pids[FLEET_PROCS];
    for (int p = 0; p < FLEET_PROCS; p++) pids[p] = spawn(fleet_child, (void *)(intptr_t)p);
    for (int p = 0; p < FLEET_PROCS; p++) assert_int_equal(reap(pids[p]), 0);
    int64_t t1 = fu_now_ns();
    int total = FLEET_PROCS * FLEET_THREADS * (int)(150 * tu_stress_scale());
    printf("  3x4x20: %d tasks in %.2f s; peaks:", total, (double)(t1 - t0) / 1e9);
    for (int g = 0; g < NG; g++) printf(" %d/%d", atomic_load(&sh->peak[g]), gcaps[g].cap);
    uint64_t rt = atomic_load(&sh->round_trips), grants = atomic_load(&sh->grants);
    printf("\n  round trips %llu (%.2f per grant), %.1f commands per round trip, busy %llu, notifies "
           "pubsub %llu local %llu poll %llu\n",
           (unsigned long long)rt, grants ? (double)rt / (double)grants : 0.0,
           rt ? (double)atomic_load(&sh->commands) / (double)rt : 0.0,
           (unsigned long long)atomic_load(&sh->busy), (unsigned long long)atomic_load(&sh->notify_pubsub),
           (unsigned long long)atomic_load(&sh->notify_local), (unsigned long long)atomic_load(&sh->notify_poll));
    assert_int_equal(atomic_load(&sh->violations), 0);
    for (int g = 0; g < NG; g++) assert_true(atomic_load(&sh->peak[g]) <= gcaps[g].cap);
    assert_int_equal(atomic_load(&sh->completed), total);
    assert_int_equal(atomic_load(&sh->bad), 0);
    assert_int_equal((int)grants, total);
    /* every lease was given back */
    for (int g = 0; g < NG; g++) assert_true(zcard(gname[g]) == 0);
    fu_shared_free(sh, sizeof *sh);
    sh = NULL;
}

/* ---- kill -9 of a process holding leases ---------------------------------------------------------- */

static int hold_forever_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    fu_xlatch_count_down(&sh->ready);
    for (;;) pause(); /* until kill -9 */
    return 0;
}

static int holder_child(void *arg) {
    (void)arg;
    groupconc_redis_cap cap = {"hot", 3};
    groupconc_redis_config rc = base_cfg();
    rc.caps = &cap;
    rc.cap_count = 1;
    rig g;
    if (rig_make(&g, &rc, 3, NULL, NULL) != GROUPCONC_OK) return 10;
    for (int i = 0; i < 3; i++)
        if (groupconc_submit(g.ex, "hot", NULL, hold_forever_fn, NULL, NULL) != GROUPCONC_OK) return 11;
    for (;;) pause();
    return 0;
}

typedef struct start_rec {
    _Atomic(int64_t) at_ns;
    tu_latch *started;
} start_rec;

static int record_start_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    start_rec *s = (start_rec *)arg;
    atomic_store(&s->at_ns, fu_now_ns());
    tu_latch_count_down(s->started);
    return 0;
}

static void test_kill9_takeover(void **state) {
    (void)state;
    start_server(NULL);
    sh = (shared_area *)fu_shared_alloc(sizeof *sh);
    assert_non_null(sh);
    fu_xlatch_init(&sh->ready, 3);
    pid_t holder = spawn(holder_child, NULL);
    bool holding = fu_xlatch_wait_for(&sh->ready, TU_TIMEOUT_NS);
    if (!holding) kill(holder, SIGKILL);
    assert_true(holding);
    assert_int_equal(zcard("hot"), 3);

    groupconc_redis_cap cap = {"hot", 3};
    groupconc_redis_config rc = base_cfg();
    rc.caps = &cap;
    rc.cap_count = 1;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 3, NULL, NULL), GROUPCONC_OK);
    tu_latch started;
    tu_latch_init(&started, 3);
    start_rec rec[3];
    groupconc_task *h[3];
    for (int i = 0; i < 3; i++) {
        atomic_init(&rec[i].at_ns, 0);
        rec[i].started = &started;
        h[i] = tu_submit(g.ex, "hot", NULL, record_start_fn, &rec[i]);
    }
    /* all three wait at the fleet layer: the holder's leases fill the cap */
    waitfor w = {g.r, g.ex, 3};
    assert_true(fu_wait_until(p_waiting_fleet, &w, TU_TIMEOUT_NS));
    /* The holder keeps its slots past their first TTL by renewing them: nothing of ours runs for
       1.5 TTL (a sleep here checks that something does NOT happen). */
    tu_sleep_ns(GROUPCONC_MS(TTL_MS) * 3 / 2);
    assert_int_equal(tu_latch_count(&started), 3);
    assert_int_equal(zcard("hot"), 3);
    int64_t t_kill = fu_now_ns();
    kill(holder, SIGKILL);
    assert_int_equal(reap(holder), 128 + SIGKILL);
    assert_true(tu_latch_wait_for(&started, TU_TIMEOUT_NS));
    int64_t first = INT64_MAX, last = 0;
    for (int i = 0; i < 3; i++) {
        int64_t at = atomic_load(&rec[i].at_ns);
        if (at < first) first = at;
        if (at > last) last = at;
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    int64_t bound = GROUPCONC_MS(TTL_MS + POLL_MS + KILL_SLACK_MS);
    printf("  kill -9: first take-over after %.0f ms, all three after %.0f ms (bound %.0f ms = TTL %d + "
           "poll %d + %d)\n",
           (double)(first - t_kill) / 1e6, (double)(last - t_kill) / 1e6, (double)bound / 1e6, TTL_MS,
           POLL_MS, KILL_SLACK_MS);
    /* nothing frees a slot at the kill itself, only the leases' expiry: its last renewal was a
       renew interval (TTL/3) before the kill at most, or later if its renewals ran late on a loaded
       box (hence the loose lower bound) */
    assert_true(first - t_kill >= GROUPCONC_MS(TTL_MS) / 3);
    assert_true(last - t_kill <= bound);
    tu_latch_destroy(&started);
    rig_free(&g);
    fu_shared_free(sh, sizeof *sh);
    sh = NULL;
}

/* ---- redis-server killed and restarted mid-run ---------------------------------------------------- */

#define RS_PROCS 2
#define RS_GROUPS 10 /* g00..g09: caps 1..4 */

typedef struct rs_child_arg {
    int proc;
    groupconc_redis_failure policy;
} rs_child_arg;

static groupconc_redis *rs_provider; /* in the child: the long tasks watch its stats */

/* Holds its lease across the restart: returns once its provider added a lost lease back. */
static int long_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    task_arg *a = (task_arg *)arg;
    cap_enter(a->g);
    fu_xlatch_count_down(&sh->ready);
    int64_t deadline = fu_now_ns() + GROUPCONC_SEC(60);
    while (rstats(rs_provider).leases_restored == 0 && fu_now_ns() < deadline) tu_sleep_ns(TU_MS * 5);
    cap_leave(a->g);
    return 0;
}

static void rs_listener(const groupconc_event *ev, void *user_data) {
    (void)user_data;
    if (ev->type == GROUPCONC_EVENT_FLEET && ev->reason == GROUPCONC_EFLEET_RENEW)
        atomic_fetch_add(&sh->renew_events, 1);
}

static int restart_child(void *p) {
    rs_child_arg *a = (rs_child_arg *)p;
    groupconc_redis_cap caps[RS_GROUPS + 1];
    char longname[16];
    snprintf(longname, sizeof longname, "long-%d", a->proc);
    for (int g = 0; g < RS_GROUPS; g++) caps[g] = gcaps[g];
    caps[RS_GROUPS].group = longname;
    caps[RS_GROUPS].cap = 2;
    groupconc_redis_config rc = base_cfg();
    rc.caps = caps;
    rc.cap_count = RS_GROUPS + 1;
    rc.on_failure = a->policy;
    rig g;
    if (rig_make(&g, &rc, 4, rs_listener, NULL) != GROUPCONC_OK) return 10;
    rs_provider = g.r;
    /* two long tasks (their own group: no contention), then a stream of short ones */
    task_arg long_args[2] = {{NG - 1, 0}, {NG - 1, 0}}; /* counted in a group of cap 4 (g19): 2 per process */
    groupconc_task *long_h[2];
    for (int i = 0; i < 2; i++)
        if (groupconc_submit(g.ex, longname, NULL, long_fn, &long_args[i], &long_h[i]) != GROUPCONC_OK) return 11;
    int max = 20000, n = 0, rc_ = 0;
    task_arg *args = calloc((size_t)max, sizeof *args);
    groupconc_task **h = calloc((size_t)max, sizeof *h);
    if (!args || !h) return 12;
    uint32_t rng = (uint32_t)a->proc * 7919u + 3u;
    while (n < max && (!atomic_load(&sh->stop_submitting) || n < 200)) {
        args[n].g = (int)(tu_rand(&rng) % RS_GROUPS);
        args[n].spin_us = 500 + (int)(tu_rand(&rng) % 1500);
        if (groupconc_submit(g.ex, gname[args[n].g], NULL, capped_fn, &args[n], &h[n]) != GROUPCONC_OK) {
            rc_ = 13;
            break;
        }
        n++;
        tu_sleep_ns(TU_MS); /* a steady stream, so that tasks arrive before, during and after the outage */
    }
    for (int i = 0; i < n + 2; i++) {
        groupconc_task *t = i < n ? h[i] : long_h[i - n];
        groupconc_result res;
        if (groupconc_task_wait_for(t, GROUPCONC_SEC(120), &res) != GROUPCONC_OK) {
            rc_ = 14; /* a task that never reached a terminal state */
            continue;
        }
        if (res.status == GROUPCONC_STATUS_SUCCESS) atomic_fetch_add(&sh->completed, 1);
        else if (res.status == GROUPCONC_STATUS_REJECTED && res.reason == GROUPCONC_EREJECTED_FLEET &&
                 a->policy == GROUPCONC_REDIS_FAIL_CLOSED_REJECT)
            atomic_fetch_add(&sh->rejected_fleet, 1);
        else atomic_fetch_add(&sh->bad, 1);
        groupconc_task_release(t);
    }
    groupconc_redis_stats s = rstats(g.r);
    atomic_fetch_add(&sh->restored_total, (int)s.leases_restored);
    if (s.renew_failed == 0 || s.reconnects == 0) rc_ = 15;
    groupconc_executor_stats xs;
    groupconc_executor_stats_get(g.ex, &xs);
    if (xs.fleet_renew_failed != s.renew_failed) rc_ = 16; /* every failure reported once */
    rig_free(&g);
    free(args);
    free(h);
    return rc_;
}

static bool p_renew_events(void *a) { return atomic_load(&sh->renew_events) >= (int)(intptr_t)a; }
static bool p_started(void *a) { return atomic_load(&sh->started) >= (int)(intptr_t)a; }

static void restart_run(groupconc_redis_failure policy) {
    start_server(NULL);
    sh = (shared_area *)fu_shared_alloc(sizeof *sh);
    assert_non_null(sh);
    groups_init();
    fu_xlatch_init(&sh->ready, 2 * RS_PROCS); /* every long task running */
    rs_child_arg args[RS_PROCS];
    pid_t pids[RS_PROCS];
    for (int p = 0; p < RS_PROCS; p++) {
        args[p] = (rs_child_arg){p, policy};
        pids[p] = spawn(restart_child, &args[p]);
    }
    assert_true(fu_xlatch_wait_for(&sh->ready, TU_TIMEOUT_NS));
    assert_true(fu_wait_until(p_started, (void *)(intptr_t)100, TU_TIMEOUT_NS)); /* mid-run */
    atomic_store(&sh->kill_at_ns, fu_now_ns());
    fu_redis_kill(&srv, SIGKILL);
    /* the outage was noticed: renewals of the long tasks failed and were reported */
    assert_true(fu_wait_until(p_renew_events, (void *)(intptr_t)(2 * RS_PROCS), TU_TIMEOUT_NS));
    int started_down = atomic_load(&sh->started);
    assert_int_equal(fu_redis_start(&srv, NULL), 0); /* empty: every lease is gone */
    atomic_store(&sh->converge_after_ns, fu_now_ns() + GROUPCONC_MS(TTL_MS));
    assert_true(fu_wait_until(p_started, (void *)(intptr_t)(started_down + 200), TU_TIMEOUT_NS));
    atomic_store(&sh->stop_submitting, 1);
    for (int p = 0; p < RS_PROCS; p++) assert_int_equal(reap(pids[p]), 0);
    printf("  restart (%s): %d succeeded, %d rejected (fleet), %d renew events, %d leases restored\n",
           groupconc_redis_failure_name(policy), atomic_load(&sh->completed), atomic_load(&sh->rejected_fleet),
           atomic_load(&sh->renew_events), atomic_load(&sh->restored_total));
    assert_int_equal(atomic_load(&sh->bad), 0);
    assert_int_equal(atomic_load(&sh->violations), 0);
    assert_true(atomic_load(&sh->restored_total) >= RS_PROCS); /* the long tasks' leases came back */
    if (policy == GROUPCONC_REDIS_FAIL_CLOSED_WAIT) assert_int_equal(atomic_load(&sh->rejected_fleet), 0);
    fu_shared_free(sh, sizeof *sh);
    sh = NULL;
}

static void test_restart_wait(void **state) {
    (void)state;
    restart_run(GROUPCONC_REDIS_FAIL_CLOSED_WAIT);
}

static void test_restart_reject(void **state) {
    (void)state;
    restart_run(GROUPCONC_REDIS_FAIL_CLOSED_REJECT);
}

/* ---- redis-server absent at start ------------------------------------------------------------------- */

static int count_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    tu_peak *p = (tu_peak *)arg;
    tu_peak_enter(p);
    tu_sleep_ns(TU_MS * 2);
    tu_peak_leave(p);
    return 0;
}

static void test_absent_reject(void **state) {
    (void)state;
    absent_server();
    groupconc_redis_config rc = base_cfg();
    rc.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_REJECT;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    tu_peak peak;
    tu_peak_init(&peak);
    groupconc_task *h[5];
    for (int i = 0; i < 5; i++) h[i] = tu_submit(g.ex, "t", NULL, count_fn, &peak);
    for (int i = 0; i < 5; i++) {
        groupconc_result res = tu_wait(h[i]);
        assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res.reason, GROUPCONC_EREJECTED_FLEET);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(tu_peak_max(&peak), 0);
    assert_int_equal(tu_xstats(g.ex).rejected_fleet, 5);
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.fail_rejected, 5);
    assert_true(s.connect_failures >= 1);
    assert_false(s.connected);
    assert_true(s.last_error[0] != '\0');
    assert_int_equal(groupconc_redis_wait_ready(g.r, 0), GROUPCONC_ETIMEDOUT);
    rig_free(&g);
}

static void test_absent_open(void **state) {
    (void)state;
    absent_server();
    groupconc_redis_config rc = base_cfg();
    rc.on_failure = GROUPCONC_REDIS_FAIL_OPEN;
    fleet_tally tally;
    memset(&tally, 0, sizeof tally);
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, tally_listener, &tally), GROUPCONC_OK);
    tu_peak peak;
    tu_peak_init(&peak);
    groupconc_task *h[5];
    for (int i = 0; i < 5; i++) h[i] = tu_submit(g.ex, "t", NULL, count_fn, &peak);
    for (int i = 0; i < 5; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(tu_xstats(g.ex).fleet_open, 5);
    assert_int_equal(atomic_load(&tally.fleet_open), 5);
    assert_int_equal(rstats(g.r).fail_open, 5);
    assert_int_equal(rstats(g.r).grants, 0);
    rig_free(&g);
}

static void test_absent_wait_then_server(void **state) {
    (void)state;
    absent_server();
    groupconc_redis_config rc = base_cfg();
    rc.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_WAIT;
    groupconc_redis_cap cap = {"t", 2};
    rc.caps = &cap;
    rc.cap_count = 1;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    tu_peak peak;
    tu_peak_init(&peak);
    groupconc_task *h[6];
    for (int i = 0; i < 6; i++) h[i] = tu_submit(g.ex, "t", NULL, count_fn, &peak);
    /* every task waits at the fleet layer: the first asked is answered BUSY by the failure policy,
       the others queue behind it unasked (the core keeps the group's order); none runs */
    waitfor w = {g.r, g.ex, 4}; /* local concurrency 4: four hold their local permits */
    assert_true(fu_wait_until(p_waiting_fleet, &w, TU_TIMEOUT_NS));
    waitfor w1 = {g.r, g.ex, 1};
    assert_true(fu_wait_until(p_fail_waited, &w1, TU_TIMEOUT_NS));
    assert_int_equal(tu_peak_max(&peak), 0);
    assert_true(rstats(g.r).connect_failures >= 1);
    /* a server appears: the provider reconnects (backoff <= 200 ms) and every task runs, 2 at once */
    char dir[128];
    snprintf(dir, sizeof dir, "%s", srv.dir);
    assert_int_equal(fu_redis_start(&srv, NULL), 0);
    assert_string_equal(dir, srv.dir);
    assert_int_equal(groupconc_redis_wait_ready(g.r, TU_TIMEOUT_NS), GROUPCONC_OK);
    for (int i = 0; i < 6; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_true(tu_peak_max(&peak) <= 2);
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.grants, 6);
    assert_int_equal(s.connects, 1);
    assert_int_equal(tu_xstats(g.ex).rejected_fleet, 0);
    rig_free(&g);
}

/* ---- one process: caps, renewals, pub/sub, renewal failure ---------------------------------------- */

static void test_single_cap_and_local_release(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.default_cap = 2;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 8, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_wait_ready(g.r, TU_TIMEOUT_NS), GROUPCONC_OK);
    tu_parkset ps;
    tu_ps_init(&ps, 2);
    for (int i = 0; i < 6; i++) tu_ps_submit(&ps, g.ex, "acct");
    assert_true(tu_latch_wait(&ps.started));
    waitfor w = {g.r, g.ex, 4};
    assert_true(fu_wait_until(p_waiting_fleet, &w, TU_TIMEOUT_NS));
    assert_int_equal(zcard("acct"), 2);
    assert_int_equal(atomic_load(&ps.order), 2);
    /* one finishes: the oldest waiter takes its lease (a local release notifies at once) */
    tu_ps_expect(&ps, 1);
    tu_ps_finish(&ps, 0);
    assert_true(tu_latch_wait(&ps.started));
    assert_int_equal(atomic_load(&ps.p[2].start_seq), 2); /* FIFO inside the process */
    assert_int_equal(zcard("acct"), 2);
    tu_ps_expect(&ps, 3);
    tu_ps_finish_all(&ps);
    waitfor w0 = {g.r, g.ex, 0};
    assert_true(fu_wait_until(p_no_leases, &w0, TU_TIMEOUT_NS));
    assert_true(fu_wait_until(p_zcard_zero, (void *)"acct", TU_TIMEOUT_NS));
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.grants, 6);
    assert_int_equal(s.releases, 6);
    assert_true(s.notify_local >= 1);
    assert_int_equal(s.releases_gone, 0);
    rig_free(&g);
}

static void test_renewal_keeps_slot_and_pubsub_wakes(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.lease_ttl_ns = GROUPCONC_MS(300); /* renewed every 100 ms */
    rc.poll_interval_ns = GROUPCONC_SEC(30); /* the wake-up must come by pub/sub */
    rc.default_cap = 1;
    rig a, b;
    assert_int_equal(rig_make(&a, &rc, 4, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(rig_make(&b, &rc, 4, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_wait_ready(b.r, TU_TIMEOUT_NS), GROUPCONC_OK);
    waitfor wsub = {b.r, b.ex, 0};
    assert_true(fu_wait_until(p_subscribed, &wsub, TU_TIMEOUT_NS));
    tu_parkset pa;
    tu_ps_init(&pa, 1);
    tu_ps_submit(&pa, a.ex, "one");
    assert_true(tu_latch_wait(&pa.started));
    tu_latch bstarted;
    tu_latch_init(&bstarted, 1);
    start_rec rec = {0, &bstarted};
    groupconc_task *hb = tu_submit(b.ex, "one", NULL, record_start_fn, &rec);
    waitfor wb = {b.r, b.ex, 1};
    assert_true(fu_wait_until(p_waiting_fleet, &wb, TU_TIMEOUT_NS));
    /* held for more than 3 TTLs: renewed, never lost, B still waits */
    waitfor wa = {a.r, a.ex, 4};
    assert_true(fu_wait_until(p_renewals, &wa, TU_TIMEOUT_NS));
    assert_int_equal(tu_latch_count(&bstarted), 1);
    assert_int_equal(zcard("one"), 1);
    groupconc_redis_stats sa = rstats(a.r);
    assert_int_equal(sa.renew_failed, 0);
    assert_int_equal(sa.leases_restored, 0);
    /* A finishes: its release publishes, B's subscriber notifies, B runs (the poll is 30 s away) */
    int64_t t0 = fu_now_ns();
    tu_ps_finish_all(&pa);
    assert_true(tu_latch_wait_for(&bstarted, GROUPCONC_SEC(10)));
    printf("  pub/sub wake-up across providers: %.1f ms\n", (double)(atomic_load(&rec.at_ns) - t0) / 1e6);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(hb);
    assert_true(rstats(b.r).notify_pubsub >= 1);
    tu_latch_destroy(&bstarted);
    rig_free(&a);
    rig_free(&b);
}

static void test_renewal_failure_reported(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.lease_ttl_ns = GROUPCONC_MS(300);
    tu_latch renew_seen;
    tu_latch_init(&renew_seen, 2);
    fleet_tally tally;
    memset(&tally, 0, sizeof tally);
    tally.renew_seen = &renew_seen;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, tally_listener, &tally), GROUPCONC_OK);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, g.ex, "r");
    assert_true(tu_latch_wait(&ps.started));
    fu_redis_kill(&srv, SIGKILL);
    assert_true(tu_latch_wait(&renew_seen)); /* reported (twice: it keeps trying) */
    assert_int_equal(atomic_load(&ps.p[0].ran), 1);
    assert_false(atomic_load(&ps.p[0].saw_cancel)); /* the task keeps running, untouched */
    tu_ps_finish_all(&ps);
    groupconc_redis_stats s = rstats(g.r);
    assert_true(s.renew_failed >= 2);
    assert_true(tu_xstats(g.ex).fleet_renew_failed >= 2);
    assert_false(s.connected);
    /* destroy with Redis down: the release cannot be sent; it is dropped (the lease expires) */
    rig_free(&g);
    tu_latch_destroy(&renew_seen);
}

/* ---- fairness between processes ------------------------------------------------------------------- */

typedef struct order_rec {
    atomic_int *seq;
    atomic_int at; /* start order, -1: not yet */
} order_rec;

static int ordered_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    order_rec *o = (order_rec *)arg;
    atomic_store(&o->at, atomic_fetch_add(o->seq, 1));
    tu_sleep_ns(TU_MS * 5);
    return 0;
}

/* A provider under continuous load (its next ask rides in the same round trip as its release)
   must not keep a slot from another that waits: with the wait queue, B's task runs right after the
   task of A that was running when B started to wait. (Two providers in one process: two instance
   ids, as two processes.) */
static void test_fifo_between_processes(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.default_cap = 1;
    rig a, b;
    assert_int_equal(rig_make(&a, &rc, 1, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(rig_make(&b, &rc, 1, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_wait_ready(b.r, TU_TIMEOUT_NS), GROUPCONC_OK);
    waitfor wsub = {b.r, b.ex, 0};
    assert_true(fu_wait_until(p_subscribed, &wsub, TU_TIMEOUT_NS));
    atomic_int seq;
    atomic_init(&seq, 0);
    enum { NA = 12 };
    order_rec ra[NA], rb;
    groupconc_task *ha[NA], *hb;
    tu_parkset first;
    tu_ps_init(&first, 1);
    tu_ps_submit(&first, a.ex, "fair"); /* A holds the slot... */
    assert_true(tu_latch_wait(&first.started));
    for (int i = 0; i < NA; i++) { /* ...and has plenty more queued behind it (locally) */
        ra[i].seq = &seq;
        atomic_init(&ra[i].at, -1);
        ha[i] = tu_submit(a.ex, "fair", NULL, ordered_fn, &ra[i]);
    }
    rb.seq = &seq;
    atomic_init(&rb.at, -1);
    hb = tu_submit(b.ex, "fair", NULL, ordered_fn, &rb);
    /* B's ask was answered BUSY: B is in the group's wait queue in Redis (waiting_fleet alone
       would count its ask before Redis answered it) */
    waitfor wb = {b.r, b.ex, 1};
    assert_true(fu_wait_until(p_busy, &wb, TU_TIMEOUT_NS));
    tu_ps_finish_all(&first);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    for (int i = 0; i < NA; i++) {
        tu_wait_status(ha[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(ha[i]);
    }
    groupconc_task_release(hb);
    printf("  fifo: B's task started %d-th of %d after A's first\n", atomic_load(&rb.at) + 1, NA + 1);
    assert_int_equal(atomic_load(&rb.at), 0); /* first after the slot freed */
    rig_free(&a);
    rig_free(&b);
}

/* ---- AUTH, NOSCRIPT, no-cap groups, cancel and deadline ------------------------------------------- */

static void run_three(rig *g, const char *group) {
    tu_peak peak;
    tu_peak_init(&peak);
    groupconc_task *h[3];
    for (int i = 0; i < 3; i++) h[i] = tu_submit(g->ex, group, NULL, count_fn, &peak);
    for (int i = 0; i < 3; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(tu_peak_max(&peak), 1);
}

static void test_auth(void **state) {
    (void)state;
    start_server("s3cret pass");
    groupconc_redis_config rc = base_cfg();
    rc.password = "s3cret pass";
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    run_three(&g, "a");
    assert_int_equal(rstats(g.r).grants, 3);
    rig_free(&g);

    rc.username = "default"; /* Redis 6 ACL form: AUTH <user> <pass> */
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    run_three(&g, "a");
    rig_free(&g);

    rc.username = NULL;
    rc.password = "wrong";
    rc.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_REJECT;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    groupconc_task *h = tu_submit(g.ex, "a", NULL, tu_noop_fn, NULL);
    groupconc_result res = tu_wait(h);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_FLEET);
    groupconc_task_release(h);
    groupconc_redis_stats s = rstats(g.r);
    assert_non_null(strstr(s.last_error, "AUTH"));
    assert_false(s.connected);
    rig_free(&g);

    rc.password = NULL; /* none: NOAUTH on SCRIPT LOAD */
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    h = tu_submit(g.ex, "a", NULL, tu_noop_fn, NULL);
    res = tu_wait(h);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_FLEET);
    groupconc_task_release(h);
    rig_free(&g);
}

static void test_tcp_loopback(void **state) {
    (void)state;
    memset(&srv, 0, sizeof srv);
    srv.tcp_port = fu_free_port();
    assert_true(srv.tcp_port > 0);
    if (fu_redis_start(&srv, "tcp-pass") != 0) {
        print_error("could not start redis-server on 127.0.0.1:%d:\n%s\n", srv.tcp_port, srv.log);
        fail();
    }
    groupconc_redis_config rc = base_cfg();
    rc.unix_path = NULL;
    rc.host = "127.0.0.1";
    rc.port = srv.tcp_port;
    rc.password = "tcp-pass";
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    run_three(&g, "over-tcp");
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.grants, 3);
    assert_true(s.connected);
    rig_free(&g);
}

static void test_noscript_falls_back_to_eval(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    run_three(&g, "n");
    redisContext *c = fu_redis_connect(&srv);
    assert_non_null(c);
    redisReply *rep = (redisReply *)redisCommand(c, "SCRIPT FLUSH");
    assert_non_null(rep);
    freeReplyObject(rep);
    redisFree(c);
    run_three(&g, "n");
    groupconc_redis_stats s = rstats(g.r);
    assert_true(s.noscript >= 1);
    assert_int_equal(s.grants, 6);
    assert_int_equal(s.reconnects, 0);
    rig_free(&g);
}

static void test_uncapped_groups_need_no_redis(void **state) {
    (void)state;
    absent_server(); /* no server at all */
    groupconc_redis_config rc = base_cfg();
    rc.default_cap = GROUPCONC_UNLIMITED;
    groupconc_redis_cap cap = {"capped", 1};
    rc.caps = &cap;
    rc.cap_count = 1;
    rc.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_REJECT;
    rig g;
    assert_int_equal(rig_make(&g, &rc, 8, NULL, NULL), GROUPCONC_OK);
    tu_parkset ps;
    tu_ps_init(&ps, 8);
    for (int i = 0; i < 8; i++) tu_ps_submit(&ps, g.ex, "free");
    assert_true(tu_latch_wait(&ps.started)); /* all 8 at once: no fleet cap */
    groupconc_task *h = tu_submit(g.ex, "capped", NULL, tu_noop_fn, NULL);
    groupconc_result res = tu_wait(h);
    assert_int_equal(res.reason, GROUPCONC_EREJECTED_FLEET);
    groupconc_task_release(h);
    tu_ps_finish_all(&ps);
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.unlimited, 8);
    assert_int_equal(s.round_trips, 0);
    rig_free(&g);
}

static void test_cancel_and_deadline_at_fleet_layer(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rig g;
    assert_int_equal(rig_make(&g, &rc, 4, NULL, NULL), GROUPCONC_OK);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, g.ex, "c");
    assert_true(tu_latch_wait(&ps.started));
    groupconc_task *b = tu_submit(g.ex, "c", NULL, tu_noop_fn, NULL);
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = "c";
    spec.fn = tu_noop_fn;
    spec.max_wait_ns = GROUPCONC_MS(150);
    groupconc_task *d = NULL;
    assert_int_equal(groupconc_submit_spec(g.ex, &spec, &d), GROUPCONC_OK);
    waitfor w = {g.r, g.ex, 2};
    assert_true(fu_wait_until(p_waiting_fleet, &w, TU_TIMEOUT_NS));
    groupconc_cancel_outcome out;
    assert_int_equal(groupconc_task_cancel(b, &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    tu_wait_status(b, GROUPCONC_STATUS_CANCELLED);
    groupconc_result res = tu_wait(d);
    assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
    assert_int_equal(res.reason, GROUPCONC_EEXPIRED_FLEET);
    groupconc_task_release(b);
    groupconc_task_release(d);
    /* one more waits; it runs once the holder finishes (a local release notifies it) */
    groupconc_task *e = tu_submit(g.ex, "c", NULL, tu_noop_fn, NULL);
    waitfor w1 = {g.r, g.ex, 1};
    assert_true(fu_wait_until(p_waiting_fleet, &w1, TU_TIMEOUT_NS));
    tu_park_release(&ps.p[0]);
    tu_wait_status(ps.h[0], GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(e, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(e);
    groupconc_task_release(ps.h[0]);
    tu_park_destroy(&ps.p[0]);
    tu_latch_destroy(&ps.started);
    waitfor w0 = {g.r, g.ex, 0};
    assert_true(fu_wait_until(p_no_leases, &w0, TU_TIMEOUT_NS));
    assert_true(fu_wait_until(p_zcard_zero, (void *)"c", TU_TIMEOUT_NS));
    rig_free(&g);
}

/* ---- bad arguments ---------------------------------------------------------------------------------- */

static void expect_problem(const groupconc_redis_config *c, int code, const char *field) {
    groupconc_redis_problem p;
    assert_int_equal(groupconc_redis_config_check(c, &p), code);
    assert_int_equal(p.code, code);
    if (field) assert_string_equal(p.field, field);
    assert_true(p.message[0] != '\0');
    groupconc_redis *r = (groupconc_redis *)(uintptr_t)1;
    assert_int_equal(groupconc_redis_create(c, &r), code);
    assert_null(r);
}

static void test_bad_arguments(void **state) {
    (void)state;
    groupconc_redis_config c = groupconc_redis_config_default();
    groupconc_redis_problem p;
    assert_int_equal(groupconc_redis_config_check(&c, &p), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_config_check(&c, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_config_check(NULL, &p), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_redis_create(&c, NULL), GROUPCONC_EINVAL);
    groupconc_redis *r = (groupconc_redis *)(uintptr_t)1;
    assert_int_equal(groupconc_redis_create(NULL, &r), GROUPCONC_EINVAL);
    assert_null(r);

    c = groupconc_redis_config_default(); c.host = NULL; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "host");
    c = groupconc_redis_config_default(); c.host = ""; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "host");
    c = groupconc_redis_config_default(); c.port = 0; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "port");
    c = groupconc_redis_config_default(); c.port = 65536; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "port");
    c = groupconc_redis_config_default(); c.unix_path = ""; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "unix_path");
    char longpath[200];
    memset(longpath, 'p', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    c = groupconc_redis_config_default(); c.unix_path = longpath; expect_problem(&c, GROUPCONC_REDIS_EADDRESS, "unix_path");
    c = groupconc_redis_config_default(); c.password = ""; expect_problem(&c, GROUPCONC_REDIS_ECREDENTIALS, "password");
    c = groupconc_redis_config_default(); c.username = "u"; expect_problem(&c, GROUPCONC_REDIS_ECREDENTIALS, "username");
    char longprefix[GROUPCONC_REDIS_MAX_PREFIX_LEN + 2];
    memset(longprefix, 'x', sizeof longprefix - 1);
    longprefix[sizeof longprefix - 1] = '\0';
    c = groupconc_redis_config_default(); c.key_prefix = longprefix; expect_problem(&c, GROUPCONC_REDIS_EPREFIX, "key_prefix");
    c = groupconc_redis_config_default(); c.default_cap = 0; expect_problem(&c, GROUPCONC_ELIMIT, "default_cap");
    c = groupconc_redis_config_default(); c.default_cap = -5; expect_problem(&c, GROUPCONC_ELIMIT, "default_cap");
    c = groupconc_redis_config_default(); c.lease_ttl_ns = GROUPCONC_MS(9); expect_problem(&c, GROUPCONC_ELIMIT, "lease_ttl_ns");
    c = groupconc_redis_config_default(); c.lease_ttl_ns = GROUPCONC_SEC(86401); expect_problem(&c, GROUPCONC_ELIMIT, "lease_ttl_ns");
    c = groupconc_redis_config_default(); c.renew_interval_ns = c.lease_ttl_ns / 3 + 1; expect_problem(&c, GROUPCONC_ELIMIT, "renew_interval_ns");
    c = groupconc_redis_config_default(); c.renew_interval_ns = -1; expect_problem(&c, GROUPCONC_ELIMIT, "renew_interval_ns");
    c = groupconc_redis_config_default(); c.poll_interval_ns = 0; expect_problem(&c, GROUPCONC_ELIMIT, "poll_interval_ns");
    c = groupconc_redis_config_default(); c.connect_timeout_ns = 0; expect_problem(&c, GROUPCONC_ELIMIT, "connect_timeout_ns");
    c = groupconc_redis_config_default(); c.command_timeout_ns = 0; expect_problem(&c, GROUPCONC_ELIMIT, "command_timeout_ns");
    c = groupconc_redis_config_default(); c.backoff_min_ns = 0; expect_problem(&c, GROUPCONC_ELIMIT, "backoff_min_ns");
    c = groupconc_redis_config_default(); c.backoff_max_ns = c.backoff_min_ns - 1; expect_problem(&c, GROUPCONC_ELIMIT, "backoff_max_ns");
    c = groupconc_redis_config_default(); c.on_failure = (groupconc_redis_failure)7; expect_problem(&c, GROUPCONC_REDIS_EFAILURE, "on_failure");
    c = groupconc_redis_config_default(); c.batch_max = 0; expect_problem(&c, GROUPCONC_ELIMIT, "batch_max");
    c = groupconc_redis_config_default(); c.cap_count = 1; expect_problem(&c, GROUPCONC_EINVAL, "caps");
    groupconc_redis_cap caps[3] = {{"a", 1}, {"b", 2}, {"a", 3}};
    c = groupconc_redis_config_default(); c.caps = caps; c.cap_count = 3; expect_problem(&c, GROUPCONC_EDUPKEY, "caps[2].group");
    caps[2].group = NULL; expect_problem(&c, GROUPCONC_EINVAL, "caps[2].group");
    caps[2].group = ""; expect_problem(&c, GROUPCONC_EKEYEMPTY, "caps[2].group");
    char longkey[GROUPCONC_REDIS_MAX_KEY_LEN + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    caps[2].group = longkey; expect_problem(&c, GROUPCONC_EKEYTOOLONG, "caps[2].group");
    caps[2].group = "c"; caps[1].cap = 0; expect_problem(&c, GROUPCONC_ELIMIT, "caps[1].cap");
    caps[1].cap = GROUPCONC_UNLIMITED;
    assert_int_equal(groupconc_redis_config_check(&c, NULL), GROUPCONC_OK);
    c = groupconc_redis_config_default(); c.default_cap = GROUPCONC_UNLIMITED;
    assert_int_equal(groupconc_redis_config_check(&c, NULL), GROUPCONC_OK);

    /* the other functions */
    groupconc_fleet_provider fp;
    assert_int_equal(groupconc_redis_provider(NULL, &fp), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_redis_wait_ready(NULL, 0), GROUPCONC_EINVAL);
    groupconc_redis_stats st;
    assert_int_equal(groupconc_redis_stats_get(NULL, &st), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_redis_destroy(NULL), GROUPCONC_EINVAL);
    absent_server();
    c = base_cfg();
    assert_int_equal(groupconc_redis_create(&c, &r), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_provider(r, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_redis_stats_get(r, NULL), GROUPCONC_EINVAL);
    groupconc_policy pol = groupconc_policy_default();
    assert_int_equal(groupconc_redis_provider(r, &pol.fleet), GROUPCONC_OK);
    assert_ptr_equal(pol.fleet.user_data, r);
    assert_non_null(pol.fleet.acquire);
    assert_non_null(pol.fleet.release);
    assert_non_null(pol.fleet.attach);
    assert_non_null(pol.fleet.detach);
    /* one executor after another (attach, detach, attach again); a second one at the same time
       is refused (its tasks answered BUSY would never be notified) */
    groupconc_executor *ex = tu_executor(&pol);
    groupconc_executor *ex2 = (groupconc_executor *)(uintptr_t)1;
    assert_int_equal(groupconc_executor_create(&pol, &ex2), GROUPCONC_EBUSY);
    assert_null(ex2);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    ex = tu_executor(&pol);
    /* the provider while its executor lives: refused, nothing done (the executor still works) */
    assert_int_equal(groupconc_redis_destroy(r), GROUPCONC_EBUSY);
    assert_int_equal(groupconc_redis_stats_get(r, &st), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(groupconc_redis_destroy(r), GROUPCONC_OK);

    /* diagnostics */
    assert_string_equal(groupconc_redis_errname(GROUPCONC_REDIS_EADDRESS), "GROUPCONC_REDIS_EADDRESS");
    assert_string_equal(groupconc_redis_errname(GROUPCONC_REDIS_ECREDENTIALS), "GROUPCONC_REDIS_ECREDENTIALS");
    assert_string_equal(groupconc_redis_errname(GROUPCONC_ELIMIT), groupconc_errname(GROUPCONC_ELIMIT));
    assert_string_equal(groupconc_redis_strerror(GROUPCONC_ENOMEM), groupconc_strerror(GROUPCONC_ENOMEM));
    assert_non_null(groupconc_redis_strerror(-123456));
    assert_true(strstr(groupconc_redis_strerror(GROUPCONC_REDIS_EFAILURE), "failure policy") != NULL);
    assert_string_equal(groupconc_redis_failure_name(GROUPCONC_REDIS_FAIL_OPEN), "FAIL_OPEN");
    assert_string_equal(groupconc_redis_failure_name((groupconc_redis_failure)9), "UNKNOWN");
    /* the codes never overlap groupconc.h's */
#define CHECK_DISTINCT(name, value, text) assert_true(strcmp(groupconc_errname(value), "GROUPCONC_" #name) != 0);
    GROUPCONC_REDIS_ERRNO_MAP(CHECK_DISTINCT)
#undef CHECK_DISTINCT
}

/* ---- issue 24: allocation failures, pause, a leaving waiter, CALLER_RUNS ------------------------ */

/* Redis's DBSIZE (-1 on error). */
static long long dbsize(void) {
    redisContext *c = fu_redis_connect(&srv);
    if (!c) return -1;
    redisReply *rep = (redisReply *)redisCommand(c, "DBSIZE");
    long long v = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
    if (rep) freeReplyObject(rep);
    redisFree(c);
    return v;
}
static bool p_db_empty(void *unused) {
    (void)unused;
    return dbsize() == 0;
}

/* Every allocation of the provider fails in turn (the k-th one of any thread, k = 1, 2, ... until a
   run makes no failure): 40 tasks of a group with fleet cap 2 each time. Whatever failed, every task
   completes (FAIL_CLOSED_WAIT: a failed ask waits and is asked again by the poll), nothing of the
   provider's is left allocated after destroy, and nothing is left in Redis. (Growing the argument
   vectors once recorded the new capacity for both before the second grow succeeded: the next command
   wrote through a NULL or too small argvlen, a SIGSEGV in the I/O thread.) */
static void test_provider_allocation_failures(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.default_cap = 2;
    rc.poll_interval_ns = GROUPCONC_MS(50); /* a failed ask waits one poll: keep the loop quick */
    enum { NT = 40 };
    long k;
    long failed_runs = 0;
    for (k = 1; k <= 20000; k++) {
        assert_int_equal(atomic_load(&tr_live), 0);
        atomic_store(&tr_injected, 0);
        atomic_store(&tr_countdown, k);
        rig g;
        int rc_ = rig_make(&g, &rc, 8, NULL, NULL);
        if (rc_ == GROUPCONC_OK) {
            groupconc_task *h[NT];
            for (int i = 0; i < NT; i++) h[i] = tu_submit(g.ex, "oom", NULL, tu_noop_fn, NULL);
            for (int i = 0; i < NT; i++) {
                tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
                assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
            }
            waitfor w0 = {g.r, g.ex, 0};
            assert_true(fu_wait_until(p_no_leases, &w0, TU_TIMEOUT_NS));
        } else {
            assert_int_equal(rc_, GROUPCONC_ENOMEM); /* in groupconc_redis_create */
            assert_null(g.ex);
        }
        rig_free(&g);
        atomic_store(&tr_countdown, 0);
        long injected = atomic_load(&tr_injected);
        assert_int_equal(atomic_load(&tr_live), 0);
        assert_true(fu_wait_until(p_zcard_zero, (void *)"oom", TU_TIMEOUT_NS));
        if (injected == 0) break; /* a whole run below k allocations: each one has failed once */
        failed_runs++;
    }
    assert_true(k <= 20000);
    assert_true(failed_runs >= 20);
    print_message("provider allocation failures: %ld runs with one failure\n", failed_runs);
    /* the wait queues' keys too: a leave lost for memory goes stale and expires (2 stale periods) */
    assert_true(fu_wait_until(p_db_empty, NULL, TU_TIMEOUT_NS));
}

/* A task start time in a latch (tu_park does the rest). */
static int64_t start_bound_ns(void) { return tu_under_valgrind() ? GROUPCONC_MS(2500) : GROUPCONC_SEC(1); }

/* A paused group holds no fleet lease. Process A (a provider and an executor) holds the only lease
   of a group (fleet cap 1) with a second task answered BUSY; process B waits behind it. A pauses the
   group and its running task ends: its waiting task must not take the lease (it could not run), so
   B's task starts well within the poll interval (5 s), A holds no lease while paused (ZCARD counts
   B's only, then none), and A's task runs after the resume. */
static void test_paused_group_holds_no_lease(void **state) {
    (void)state;
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.poll_interval_ns = GROUPCONC_SEC(5); /* no help from the polls */
    rig a, b;
    assert_int_equal(rig_make(&a, &rc, 4, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(rig_make(&b, &rc, 4, NULL, NULL), GROUPCONC_OK);
    ready_and_subscribed(a.r);
    ready_and_subscribed(b.r);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, a.ex, "pz"); /* a1: the lease */
    assert_true(tu_latch_wait(&ps.started));
    tu_latch a2_started, b1_started;
    tu_latch_init(&a2_started, 1);
    tu_latch_init(&b1_started, 1);
    tu_park a2, b1;
    tu_park_init(&a2, &a2_started, NULL);
    tu_park_init(&b1, &b1_started, NULL);
    groupconc_task *ha2 = tu_submit(a.ex, "pz", NULL, tu_park_fn, &a2);
    waitfor wa = {a.r, a.ex, 1};
    assert_true(fu_wait_until(p_busy, &wa, TU_TIMEOUT_NS)); /* A waits in the group's queue */
    groupconc_task *hb1 = tu_submit(b.ex, "pz", NULL, tu_park_fn, &b1);
    waitfor wb = {b.r, b.ex, 1};
    assert_true(fu_wait_until(p_busy, &wb, TU_TIMEOUT_NS)); /* B behind it */
    assert_int_equal(groupconc_group_pause(a.ex, "pz"), GROUPCONC_OK);
    tu_ps_finish(&ps, 0); /* a1's lease is freed */
    int64_t t0 = fu_now_ns();
    assert_true(tu_latch_wait_for(&b1_started, start_bound_ns()));
    print_message("B started %.0f ms after A's holder finished (A paused)\n", (double)(fu_now_ns() - t0) / 1e6);
    assert_int_equal(atomic_load(&a2.ran), 0);
    assert_int_equal(tu_gstats(a.ex, "pz").waiting_fleet, 1);
    assert_int_equal(rstats(a.r).leases_held, 0);
    assert_int_equal(zcard("pz"), 1); /* B's */
    tu_park_release(&b1);
    tu_wait_status(hb1, GROUPCONC_STATUS_SUCCESS);
    assert_true(fu_wait_until(p_zcard_zero, (void *)"pz", TU_TIMEOUT_NS)); /* still paused: none */
    waitfor wb0 = {b.r, b.ex, 0};
    assert_true(fu_wait_until(p_no_leases, &wb0, TU_TIMEOUT_NS));
    assert_int_equal(zcard("pz"), 0);
    assert_int_equal(rstats(a.r).leases_held, 0);
    assert_int_equal(atomic_load(&a2.ran), 0);
    /* the resume asks again: A's task runs */
    assert_int_equal(groupconc_group_resume(a.ex, "pz"), GROUPCONC_OK);
    assert_true(tu_latch_wait(&a2_started));
    assert_int_equal(zcard("pz"), 1);
    tu_park_release(&a2);
    tu_wait_status(ha2, GROUPCONC_STATUS_SUCCESS);
    waitfor wa0 = {a.r, a.ex, 0};
    assert_true(fu_wait_until(p_no_leases, &wa0, TU_TIMEOUT_NS));
    assert_true(fu_wait_until(p_zcard_zero, (void *)"pz", TU_TIMEOUT_NS));
    groupconc_task_release(ha2);
    groupconc_task_release(hb1);
    groupconc_task_release(ps.h[0]);
    tu_park_destroy(&ps.p[0]);
    tu_park_destroy(&a2);
    tu_park_destroy(&b1);
    tu_latch_destroy(&ps.started);
    tu_latch_destroy(&a2_started);
    tu_latch_destroy(&b1_started);
    rig_free(&b);
    rig_free(&a);
}

/* A waiting process whose waiters leave (queue deadline, cancel, group shut down) leaves the group's
   wait queue in Redis and announces it: process A waits first, B behind it; A's task goes; when the
   holder (process H) finishes, B starts in under 1 s although the polls come every 5 s.
   late: A's BUSY answer is held in A's provider (counted, not delivered) until after the holder's
   freed lease reached A, whose notify then found nothing to ask while that answer was on its way:
   A must leave the queue once the answer lands (its task is gone), not at the next poll - B asks
   once meanwhile and finds A still ahead. */
enum { LEAVE_EXPIRE, LEAVE_CANCEL, LEAVE_SHUTDOWN };
static void leaving_waiter_run(int how, bool late) {
    start_server(NULL);
    groupconc_redis_config rc = base_cfg();
    rc.poll_interval_ns = GROUPCONC_SEC(5);
    rig h, a, b;
    assert_int_equal(rig_make(&h, &rc, 4, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(rig_make(&a, &rc, 4, NULL, NULL), GROUPCONC_OK);
    assert_int_equal(rig_make(&b, &rc, 4, NULL, NULL), GROUPCONC_OK);
    ready_and_subscribed(h.r);
    ready_and_subscribed(a.r);
    ready_and_subscribed(b.r);
    tu_parkset ps;
    tu_ps_init(&ps, 1);
    tu_ps_submit(&ps, h.ex, "lv");
    assert_true(tu_latch_wait(&ps.started));
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = "lv";
    spec.fn = tu_noop_fn;
    if (how == LEAVE_EXPIRE) spec.max_wait_ns = GROUPCONC_MS(300);
    if (late) {
        tu_latch_init(&th_gate, 1);
        atomic_store(&th_r, (const void *)a.r);
    }
    groupconc_task *ta = NULL;
    assert_int_equal(groupconc_submit_spec(a.ex, &spec, &ta), GROUPCONC_OK);
    waitfor wa = {a.r, a.ex, 1};
    assert_true(fu_wait_until(p_busy, &wa, TU_TIMEOUT_NS)); /* A first in the queue */
    tu_latch b_started;
    tu_latch_init(&b_started, 1);
    tu_park pb;
    tu_park_init(&pb, &b_started, NULL);
    groupconc_task *tb = tu_submit(b.ex, "lv", NULL, tu_park_fn, &pb);
    waitfor wb = {b.r, b.ex, 1};
    assert_true(fu_wait_until(p_busy, &wb, TU_TIMEOUT_NS)); /* B behind A */
    groupconc_result res;
    if (how == LEAVE_EXPIRE) {
        res = tu_wait(ta);
        assert_int_equal(res.status, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(res.reason, GROUPCONC_EEXPIRED_FLEET);
    } else if (how == LEAVE_CANCEL) {
        groupconc_cancel_outcome out;
        assert_int_equal(groupconc_task_cancel(ta, &out), GROUPCONC_OK);
        assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
        tu_wait_status(ta, GROUPCONC_STATUS_CANCELLED);
    } else {
        assert_int_equal(groupconc_group_shutdown(a.ex, "lv"), GROUPCONC_OK);
        res = tu_wait(ta);
        assert_true(res.status == GROUPCONC_STATUS_CANCELLED || res.status == GROUPCONC_STATUS_REJECTED);
    }
    assert_int_equal(tu_xstats(a.ex).waiting_fleet, 0);
    assert_int_equal(atomic_load(&pb.ran), 0);
    tu_ps_finish(&ps, 0); /* the holder's lease is freed */
    if (late) {
        waitfor wb2 = {b.r, b.ex, 2};
        assert_true(fu_wait_until(p_busy, &wb2, TU_TIMEOUT_NS)); /* B asked: A still ahead */
        assert_true(fu_wait_until(p_pubsub_notified, a.r, TU_TIMEOUT_NS));
        tu_sleep_ns(GROUPCONC_MS(50)); /* A's notify (it asks nothing) is done */
        assert_int_equal(atomic_load(&pb.ran), 0);
        tu_latch_open(&th_gate); /* A's answer lands */
    }
    int64_t t0 = fu_now_ns();
    assert_true(tu_latch_wait_for(&b_started, start_bound_ns()));
    print_message("leave (%d): B started %.0f ms after %s\n", how, (double)(fu_now_ns() - t0) / 1e6,
                  late ? "A's answer landed" : "the holder finished");
    tu_park_release(&pb);
    tu_wait_status(tb, GROUPCONC_STATUS_SUCCESS);
    waitfor w0 = {b.r, b.ex, 0};
    assert_true(fu_wait_until(p_no_leases, &w0, TU_TIMEOUT_NS));
    assert_true(fu_wait_until(p_zcard_zero, (void *)"lv", TU_TIMEOUT_NS));
    groupconc_task_release(ta);
    groupconc_task_release(tb);
    groupconc_task_release(ps.h[0]);
    tu_park_destroy(&ps.p[0]);
    tu_park_destroy(&pb);
    tu_latch_destroy(&ps.started);
    tu_latch_destroy(&b_started);
    if (late) tu_latch_destroy(&th_gate);
    rig_free(&b);
    rig_free(&a);
    rig_free(&h);
}

static void test_leaving_waiter_expired(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_EXPIRE, false);
}
static void test_leaving_waiter_cancelled(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_CANCEL, false);
}
static void test_leaving_waiter_group_shutdown(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_SHUTDOWN, false);
}
static void test_leaving_waiter_expired_answer_late(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_EXPIRE, true);
}
static void test_leaving_waiter_cancelled_answer_late(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_CANCEL, true);
}
static void test_leaving_waiter_group_shutdown_answer_late(void **state) {
    (void)state;
    leaving_waiter_run(LEAVE_SHUTDOWN, true);
}

/* Fail-closed with CALLER_RUNS (Redis unreachable): each refused task fires REJECTED with
   GROUPCONC_EREJECTED_FLEET, then runs holding no permits and no lease; it counts where its final
   status puts it (succeeded), and the provider counts the refusals (fail_rejected). */
typedef struct cr_tally {
    atomic_int rejected_fleet, rejected_other, started, completed, fleet;
} cr_tally;
static void cr_listener(const groupconc_event *ev, void *user_data) {
    cr_tally *t = (cr_tally *)user_data;
    switch (ev->type) {
    case GROUPCONC_EVENT_REJECTED:
        atomic_fetch_add(ev->reason == GROUPCONC_EREJECTED_FLEET ? &t->rejected_fleet : &t->rejected_other, 1);
        break;
    case GROUPCONC_EVENT_STARTED: atomic_fetch_add(&t->started, 1); break;
    case GROUPCONC_EVENT_COMPLETED: atomic_fetch_add(&t->completed, 1); break;
    case GROUPCONC_EVENT_FLEET: atomic_fetch_add(&t->fleet, 1); break;
    default: break;
    }
}

static void test_fail_closed_caller_runs(void **state) {
    (void)state;
    absent_server();
    groupconc_redis_config rc = base_cfg();
    rc.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_REJECT;
    cr_tally tally;
    memset(&tally, 0, sizeof tally);
    rig g;
    memset(&g, 0, sizeof g);
    assert_int_equal(groupconc_redis_create(&rc, &g.r), GROUPCONC_OK);
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 4;
    p.rejection = GROUPCONC_REJECT_CALLER_RUNS;
    p.listener = cr_listener;
    p.listener_user_data = &tally;
    assert_int_equal(groupconc_redis_provider(g.r, &p.fleet), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_create(&p, &g.ex), GROUPCONC_OK);
    atomic_int runs;
    atomic_init(&runs, 0);
    groupconc_task *h[4];
    for (int i = 0; i < 4; i++) h[i] = tu_submit(g.ex, "cr", NULL, tu_count_fn, &runs);
    for (int i = 0; i < 4; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
    }
    assert_int_equal(atomic_load(&runs), 4);
    assert_int_equal(atomic_load(&tally.rejected_fleet), 4); /* the refusal, then the run */
    assert_int_equal(atomic_load(&tally.rejected_other), 0);
    assert_int_equal(atomic_load(&tally.fleet), 0);          /* not a fail-open */
    assert_int_equal(atomic_load(&tally.completed), 4);
    groupconc_executor_stats xs = tu_xstats(g.ex);
    assert_int_equal(xs.succeeded, 4);
    assert_int_equal(xs.rejected_fleet, 0); /* counted where the final status puts it */
    assert_int_equal(xs.caller_runs, 4);    /* and that a layer was passed by */
    assert_int_equal(xs.completed, 4);      /* caller_runs is outside completed's sum */
    assert_int_equal(xs.fleet_open, 0);
    groupconc_group_stats gs;
    assert_int_equal(groupconc_group_stats_get(g.ex, "cr", &gs), GROUPCONC_OK);
    assert_int_equal(gs.caller_runs, 4);
    assert_int_equal(gs.succeeded, 4);
    assert_int_equal(gs.rejected_fleet, 0);
    groupconc_redis_stats s = rstats(g.r);
    assert_int_equal(s.fail_rejected, 4);
    assert_int_equal(s.grants, 0);
    assert_int_equal(s.leases_held, 0);
    rig_free(&g);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* GROUPCONC_FLEET_TEST=<glob>: run only the matching tests */
    const char *only = getenv("GROUPCONC_FLEET_TEST");
    if (only && *only) cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_bad_arguments, teardown_server),
        cmocka_unit_test_teardown(test_single_cap_and_local_release, teardown_server),
        cmocka_unit_test_teardown(test_renewal_keeps_slot_and_pubsub_wakes, teardown_server),
        cmocka_unit_test_teardown(test_renewal_failure_reported, teardown_server),
        cmocka_unit_test_teardown(test_fifo_between_processes, teardown_server),
        cmocka_unit_test_teardown(test_auth, teardown_server),
        cmocka_unit_test_teardown(test_tcp_loopback, teardown_server),
        cmocka_unit_test_teardown(test_noscript_falls_back_to_eval, teardown_server),
        cmocka_unit_test_teardown(test_uncapped_groups_need_no_redis, teardown_server),
        cmocka_unit_test_teardown(test_cancel_and_deadline_at_fleet_layer, teardown_server),
        cmocka_unit_test_teardown(test_absent_reject, teardown_server),
        cmocka_unit_test_teardown(test_absent_open, teardown_server),
        cmocka_unit_test_teardown(test_absent_wait_then_server, teardown_server),
        cmocka_unit_test_teardown(test_three_processes_twenty_groups, teardown_server),
        cmocka_unit_test_teardown(test_kill9_takeover, teardown_server),
        cmocka_unit_test_teardown(test_restart_wait, teardown_server),
        cmocka_unit_test_teardown(test_restart_reject, teardown_server),
        cmocka_unit_test_teardown(test_provider_allocation_failures, teardown_server),
        cmocka_unit_test_teardown(test_paused_group_holds_no_lease, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_expired, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_cancelled, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_group_shutdown, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_expired_answer_late, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_cancelled_answer_late, teardown_server),
        cmocka_unit_test_teardown(test_leaving_waiter_group_shutdown_answer_late, teardown_server),
        cmocka_unit_test_teardown(test_fail_closed_caller_runs, teardown_server),
    };
    return TU_RUN_TESTS(tests);
}
