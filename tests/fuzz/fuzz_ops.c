/* fuzz_ops.c - libFuzzer target: random sequences of groupconc API calls, invariants after each.

   Build (run_fuzz.sh): clang -fsanitize=fuzzer,address,undefined ... fuzz_ops.c
   Replay (meson test 'fuzz_replay', any compiler): -DFUZZ_REPLAY_MAIN, then
       fuzz_ops_replay <file-or-dir>... [--random N]
   replays every file given (directories: every file in them), then N pseudo-random inputs.

   Input layout (every byte string is a valid input; missing bytes read as 0):
     8 header bytes, the policy:
       [0] default_concurrency 1 + b%3        [1] default_max_in_flight {UNL,1,2,3}[b%4]
       [2] default_queue_threshold {UNL,0,1,2,4}[b%5]
       [3] global_max_in_flight {UNL,UNL,1,2,3,4}[b%6]   [4] global_queue_threshold {UNL,0,1,3}[b%4]
       [5] rejection: ABORT, DISCARD, CALLER_RUNS, custom handler [b%4]
       [6] max_threads 1 + b%4; keep_alive {0, 1 ms, 10 s}[(b>>2)%3]; bit4: no listener (the library
           takes other paths then; the checks that need events are skipped)
       [7] bit0: table entry g0 {conc 2, in-flight DEFAULT, threshold 1}; bit1: table entry g1
           {conc DEFAULT, in-flight 1, threshold 0}; bit2: resolver (g2 -> 3, g3 -> 0 (=1), g4 -> fails,
           others -> 2); bit3/bit4: latch 0/1 starts open; bits5-6: how the input ends; bit7: the
           listener cancels a task from inside its REJECTED event (callbacks may call into groupconc)
     then operations, one byte each (b % OP_COUNT) followed by its argument bytes (see fz_step).

   Tasks record, in atomics, how many run per group (per group-state generation: an evicted group's
   old tasks may overlap the new state's, as documented) and in total, and check the caps: group
   concurrency and in-flight, global in-flight, max_threads. A task run with no permits (CALLER_RUNS)
   is not counted. Tasks are no-ops, failures, cancellation checks, or wait on one of two latches the
   fuzzer opens and closes (cooperative ones return when cancelled; stubborn ones do not), so queued
   states build up. Every invariant failure aborts with a message saying which.

   At the end: latches open, one of four endings (graceful, bounded + all stats back to zero, shutdown +
   destroy, destroy, graceful 0 + destroy); then every accepted task must have exactly one COMPLETED
   event, every handle must be done with a result consistent with what the task did, every completion
   callback must have run once, and the counting allocator must show zero live blocks. */
#define GROUPCONC_IMPLEMENTATION
#define GROUPCONC_MALLOC(sz) fz_malloc(sz)
#define GROUPCONC_FREE(p) fz_free(p)
#define GROUPCONC_TEST_THREAD_START_FAILS() fz_thread_start_fails()
#define GROUPCONC_MAX_KEY_LEN 24
#include <stddef.h> /* size_t for the prototypes below; sets no feature-test macros */
void *fz_malloc(size_t size);
void fz_free(void *ptr);
int fz_thread_start_fails(void);
#include "groupconc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__) || defined(__clang__)
#define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FZ_PRINTF(a, b)
#endif

static _Noreturn void fz_fail(const char *fmt, ...) FZ_PRINTF(1, 2);
static _Noreturn void fz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz_ops: invariant violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

#define FZ_CHECK(cond, ...)                \
    do {                                   \
        if (!(cond)) fz_fail(__VA_ARGS__); \
    } while (0)

/* ==== counting allocator, failure injection on the fuzzer thread only ========================== */

static atomic_long fz_live;
static atomic_long fz_countdown; /* > 0: the allocation that takes it from 1 to 0 fails */
static atomic_long fz_injected;  /* failures injected so far */
static atomic_int fz_start_fail; /* worker thread starts fail while set */
static _Thread_local int tl_fuzzer_thread;

void *fz_malloc(size_t size) {
    if (tl_fuzzer_thread) {
        long c = atomic_load(&fz_countdown);
        if (c > 0) {
            atomic_store(&fz_countdown, c - 1);
            if (c == 1) {
                atomic_fetch_add(&fz_injected, 1);
                return NULL;
            }
        }
    }
    void *p = malloc(size ? size : 1);
    if (p) atomic_fetch_add(&fz_live, 1);
    return p;
}

void fz_free(void *ptr) {
    if (!ptr) return;
    atomic_fetch_sub(&fz_live, 1);
    free(ptr);
}

int fz_thread_start_fails(void) { return atomic_load(&fz_start_fail); }

/* ==== state ====================================================================================== */

#define NG 6
#define MAX_SLOTS 64
#define MAX_OPS 96
#define MAX_GEN (MAX_OPS + 2)
#define UNL GROUPCONC_UNLIMITED
#define TASK_FAILURE 42

static const char *const group_names[NG] = {"g0", "g1", "g2", "g3", "g4", "g5xxxxxxxxxxxxxxxxxxxxxx"};
static const char too_long_key[] = "g6xxxxxxxxxxxxxxxxxxxxxxx"; /* 25 bytes */

enum { B_NOOP, B_FAIL, B_CHECK_CANCEL, B_COOP, B_STUBBORN, B_COUNT };

typedef struct slot {
    int idx, group, beh, latch;
    unsigned gen;
    char id[8];
    bool named, exec_all, accepted, has_handle, released;
    int submit_rc;
    groupconc_task *h;
    _Atomic(groupconc_task *) hx; /* h, for the listener (set once submit returned) */
    atomic_int listener_cancel;   /* 1 + outcome of a cancel made by the listener */
    atomic_int runs_at_listener_cancel;
    int cancel_seen;   /* bit per groupconc_cancel_outcome */
    int runs_at_too_late; /* runs when cancel first said TOO_LATE */
    int cb_registered;
    bool have_status;
    groupconc_status status;
    atomic_int runs, finished, counted, ret;
    atomic_int ev_submitted, ev_started, ev_completed, ev_rejected, ev_status;
    atomic_int cb_calls, handler_calls;
    bool has_cleanup;             /* submitted with fz_cleanup: it must run exactly once if accepted */
    atomic_int cleanups;
} slot;

static struct {
    groupconc_executor *ex;
    groupconc_group_limits table[2];
    int conc[NG], infl[NG], thr[NG]; /* the resolved limits the stats must report */
    int gcap, gthr, max_threads;
    int rejection;                   /* 0..2 policy, 3 = custom handler */
    unsigned gen[NG];
    atomic_int run_g[NG][MAX_GEN];
    atomic_int run_total;
    slot slots[MAX_SLOTS];
    int nslots;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int latch_open[2];
    bool shutdown_called, swept;
    bool cancel_in_listener;
    bool listener_on;
    atomic_int anon_completed, anon_submitted;
    int anon_min, anon_max;          /* anonymous COMPLETED events expected */
    atomic_int resolver_depth;
    int nops;
} F;

/* outcome counters (fuzzer thread only; printed by the replay program to show what was reached) */
enum { C_ACCEPTED, C_REFUSED_LAYER, C_ENOMEM, C_ETHREAD, C_ESHUTDOWN, C_ASYNC_REJECTED, C_NO_PERMIT_RUNS, C_DEQUEUED,
       C_FLAGGED, C_TOO_LATE, C_EVICT, C_EXEC_ALL, C_EXEC_ALL_CUT, C_GRACEFUL_OK, C_GRACEFUL_TIMEOUT, C_WAIT_TIMEOUT,
       C_COUNT };
static const char *const counter_names[C_COUNT] = {
    "submits accepted", "submits refused by a layer (ABORT)", "ENOMEM returned", "ETHREAD returned",
    "ESHUTDOWN returned", "accepted tasks later REJECTED", "runs without permits (CALLER_RUNS)", "cancel: DEQUEUED",
    "cancel: FLAGGED", "cancel: TOO_LATE", "evictions", "execute_all calls", "execute_all cut by deadline",
    "graceful shutdown OK", "graceful shutdown timed out", "wait_for timed out"};
static long counters[C_COUNT];
static atomic_long no_permit_runs;

static bool caller_runs(void) { return F.rejection == GROUPCONC_REJECT_CALLER_RUNS; }
static bool aborts(void) { return F.rejection == GROUPCONC_REJECT_ABORT; }

static bool is_layer_code(int e) {
    return e == GROUPCONC_EREJECTED_GLOBAL || e == GROUPCONC_EREJECTED_BULKHEAD ||
           e == GROUPCONC_EREJECTED_CONCURRENCY;
}

static int group_index(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < NG; i++)
        if (strcmp(name, group_names[i]) == 0) return i;
    return -1;
}

static slot *slot_of(const char *task_id) {
    if (!task_id) return NULL;
    FZ_CHECK(task_id[0] == 't', "unknown task id \"%s\"", task_id);
    int n = atoi(task_id + 1); /* slots are set up before their submit: no need to read F.nslots here */
    FZ_CHECK(n >= 0 && n < MAX_SLOTS && strcmp(F.slots[n].id, task_id) == 0, "unknown task id \"%s\"", task_id);
    return &F.slots[n];
}

/* ==== latches ==================================================================================== */

static void latch_set(int l, int open) {
    pthread_mutex_lock(&F.mu);
    F.latch_open[l] = open;
    pthread_cond_broadcast(&F.cv);
    pthread_mutex_unlock(&F.mu);
}

static bool latches_open(void) {
    pthread_mutex_lock(&F.mu);
    bool open = F.latch_open[0] && F.latch_open[1];
    pthread_mutex_unlock(&F.mu);
    return open;
}

/* returns GROUPCONC_ECANCELLED if ctx (cooperative) was cancelled while waiting */
static int latch_wait(int l, groupconc_context *ctx) {
    int rc = 0;
    pthread_mutex_lock(&F.mu);
    while (!F.latch_open[l]) {
        if (ctx) {
            if (groupconc_context_is_cancelled(ctx)) {
                rc = GROUPCONC_TASK_CANCELLED;
                break;
            }
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += 500000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&F.cv, &F.mu, &ts);
        } else {
            pthread_cond_wait(&F.cv, &F.mu);
        }
    }
    pthread_mutex_unlock(&F.mu);
    return rc;
}

/* ==== callbacks ================================================================================== */

static int fz_task(groupconc_context *ctx, void **out_value, void *arg) {
    slot *s = arg;
    FZ_CHECK(atomic_fetch_add(&s->runs, 1) == 0, "task %s ran twice", s->id);
    FZ_CHECK(ctx != NULL, "task %s got a NULL context", s->id);
    FZ_CHECK(groupconc_context_executor(ctx) == F.ex, "task %s: context executor", s->id);
    const char *g = groupconc_context_group(ctx);
    FZ_CHECK(g && strcmp(g, group_names[s->group]) == 0, "task %s: context group \"%s\"", s->id, g ? g : "(null)");
    const char *id = groupconc_context_task_id(ctx);
    if (s->named) FZ_CHECK(id && strcmp(id, s->id) == 0, "task %s: context task id", s->id);
    else FZ_CHECK(id == NULL, "task %s: context task id should be NULL", s->id);
    /* no permits: CALLER_RUNS on the submitting thread, or after a REJECTED event on a worker (an
       anonymous task's events cannot be matched to it: under CALLER_RUNS it is not counted) */
    bool no_permits = tl_fuzzer_thread || atomic_load(&s->ev_rejected) > 0 ||
                      ((!s->named || !F.listener_on) && caller_runs());
    FZ_CHECK(atomic_load(&s->handler_calls) == 0, "task %s ran after the rejection handler took it", s->id);
    if (no_permits) atomic_fetch_add(&no_permit_runs, 1);
    if (!no_permits) {
        if (s->named && F.listener_on)
            FZ_CHECK(atomic_load(&s->ev_started) == 1, "task %s runs before its STARTED event", s->id);
        int g_idx = s->group;
        int in_group = atomic_fetch_add(&F.run_g[g_idx][s->gen], 1) + 1;
        int total = atomic_fetch_add(&F.run_total, 1) + 1;
        atomic_store(&s->counted, 1);
        int cap = F.conc[g_idx];
        if (F.infl[g_idx] != UNL && F.infl[g_idx] < cap) cap = F.infl[g_idx];
        FZ_CHECK(in_group <= cap, "group %s (generation %u): %d tasks running, cap %d (concurrency %d, in-flight %d)",
                 group_names[g_idx], s->gen, in_group, cap, F.conc[g_idx], F.infl[g_idx]);
        FZ_CHECK(F.gcap == UNL || total <= F.gcap, "%d tasks running, global in-flight cap %d", total, F.gcap);
        FZ_CHECK(total <= F.max_threads, "%d tasks running, max_threads %d", total, F.max_threads);
    }
    int rc = 0;
    switch (s->beh) {
    case B_NOOP: break;
    case B_FAIL: rc = TASK_FAILURE; break;
    case B_CHECK_CANCEL: rc = groupconc_context_is_cancelled(ctx) ? GROUPCONC_TASK_CANCELLED : 0; break;
    case B_COOP: rc = tl_fuzzer_thread ? 0 : latch_wait(s->latch, ctx); break;
    case B_STUBBORN:
        if (!tl_fuzzer_thread) (void)latch_wait(s->latch, NULL);
        break;
    default: fz_fail("bad behaviour");
    }
    if (!no_permits) {
        atomic_fetch_sub(&F.run_g[s->group][s->gen], 1);
        atomic_fetch_sub(&F.run_total, 1);
    }
    atomic_store(&s->ret, rc);
    atomic_store(&s->finished, 1);
    *out_value = s;
    return rc;
}

static void fz_listener(const groupconc_event *ev, void *user_data) {
    FZ_CHECK(user_data == &F, "listener user_data");
    FZ_CHECK(ev && ev->group, "event without a group");
    int g = group_index(ev->group);
    FZ_CHECK(g >= 0, "event for unknown group \"%s\"", ev->group);
    slot *s = slot_of(ev->task_id);
    if (s) FZ_CHECK(s->group == g, "event group %s for task %s of %s", ev->group, s->id, group_names[s->group]);
    switch (ev->type) {
    case GROUPCONC_EVENT_SUBMITTED:
        FZ_CHECK(ev->reason == 0 && ev->result == NULL, "SUBMITTED event carries a reason/result");
        if (s) FZ_CHECK(atomic_fetch_add(&s->ev_submitted, 1) == 0, "task %s: two SUBMITTED events", s->id);
        else atomic_fetch_add(&F.anon_submitted, 1);
        break;
    case GROUPCONC_EVENT_STARTED:
        FZ_CHECK(ev->reason == 0 && ev->result == NULL, "STARTED event carries a reason/result");
        if (s) FZ_CHECK(atomic_fetch_add(&s->ev_started, 1) == 0, "task %s: two STARTED events", s->id);
        break;
    case GROUPCONC_EVENT_COMPLETED: {
        const groupconc_result *r = ev->result;
        FZ_CHECK(r != NULL, "COMPLETED event without a result");
        FZ_CHECK(r->status >= GROUPCONC_STATUS_SUCCESS && r->status <= GROUPCONC_STATUS_REJECTED,
                 "COMPLETED with status %d", (int)r->status);
        FZ_CHECK(r->group && strcmp(r->group, ev->group) == 0, "COMPLETED result group differs from the event's");
        FZ_CHECK((r->task_id == NULL) == (ev->task_id == NULL) && (!r->task_id || strcmp(r->task_id, ev->task_id) == 0),
                 "COMPLETED result task id differs from the event's");
        FZ_CHECK(r->end_ns >= r->start_ns, "COMPLETED: end before start");
        if (r->status == GROUPCONC_STATUS_REJECTED)
            FZ_CHECK(r->start_ns == r->end_ns, "REJECTED result with a non-zero duration");
        if (s) {
            FZ_CHECK(atomic_fetch_add(&s->ev_completed, 1) == 0, "task %s: two COMPLETED events", s->id);
            atomic_store(&s->ev_status, (int)r->status);
        } else {
            atomic_fetch_add(&F.anon_completed, 1);
        }
        break;
    }
    case GROUPCONC_EVENT_REJECTED:
        FZ_CHECK(is_layer_code(ev->reason) || ev->reason == GROUPCONC_ESHUTDOWN || ev->reason == GROUPCONC_ENOMEM ||
                     ev->reason == GROUPCONC_ETHREAD,
                 "REJECTED event with reason %s", groupconc_errname(ev->reason));
        if (s) {
            FZ_CHECK(atomic_fetch_add(&s->ev_rejected, 1) == 0, "task %s: two REJECTED events", s->id);
            FZ_CHECK(!atomic_load(&s->counted), "task %s: REJECTED event after it started holding permits", s->id);
            groupconc_task *h = atomic_load(&s->hx);
            if (F.cancel_in_listener && h) { /* the executor still holds the task: safe even if released */
                groupconc_cancel_outcome o = GROUPCONC_CANCEL_DEQUEUED;
                atomic_store(&s->runs_at_listener_cancel, atomic_load(&s->runs));
                int rc = groupconc_task_cancel(h, &o);
                FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ERELEASED, "cancel in listener: %s", groupconc_errname(rc));
                if (rc == GROUPCONC_OK) atomic_store(&s->listener_cancel, 1 + (int)o);
            }
        }
        break;
    default: fz_fail("event type %d", (int)ev->type);
    }
}

static void fz_reject_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    (void)out; /* REJECTED stays */
    FZ_CHECK(user_data == &F && rj && rj->executor == F.ex && rj->fn == fz_task, "rejection handler arguments");
    slot *s = rj->arg;
    FZ_CHECK(s >= F.slots && s < F.slots + F.nslots, "rejection handler: unknown arg");
    FZ_CHECK(strcmp(rj->group, group_names[s->group]) == 0, "rejection handler: group");
    FZ_CHECK(is_layer_code(rj->reason), "rejection handler reason %s", groupconc_errname(rj->reason));
    if (rj->in_submit) FZ_CHECK(tl_fuzzer_thread, "in_submit rejection not on the submitting thread");
    FZ_CHECK(atomic_load(&s->runs) == 0, "rejection handler for task %s that ran", s->id);
    FZ_CHECK(atomic_fetch_add(&s->handler_calls, 1) == 0, "rejection handler called twice for %s", s->id);
}

static void fz_on_complete(groupconc_task *task, const groupconc_result *r, void *user_data) {
    slot *s = user_data;
    FZ_CHECK(task == s->h, "completion callback for %s got another handle", s->id);
    FZ_CHECK(r && r->status >= GROUPCONC_STATUS_SUCCESS && r->status <= GROUPCONC_STATUS_REJECTED,
             "completion callback status");
    atomic_fetch_add(&s->cb_calls, 1);
}

static int fz_resolver(const char *group, int *out, void *user_data) {
    FZ_CHECK(user_data == &F, "resolver user_data");
    FZ_CHECK(atomic_fetch_add(&F.resolver_depth, 1) == 0, "resolver called concurrently");
    int g = group_index(group);
    FZ_CHECK(g >= 0, "resolver for unknown group");
    int rc = 0;
    switch (g) {
    case 2: *out = 3; break;
    case 3: *out = 0; break;
    case 4: rc = -1; break;
    default: *out = 2; break;
    }
    atomic_fetch_sub(&F.resolver_depth, 1);
    return rc;
}

/* ==== reading input ============================================================================== */

typedef struct reader {
    const uint8_t *p;
    size_t n, i;
} reader;

static unsigned rd(reader *r) { return r->i < r->n ? r->p[r->i++] : 0u; }

/* The cleanup of a task submitted with one: never while the task body runs. */
static void fz_cleanup(void *arg) {
    slot *s = arg;
    FZ_CHECK(s >= F.slots && s < F.slots + F.nslots, "cleanup: unknown arg");
    FZ_CHECK(atomic_load(&s->runs) == atomic_load(&s->finished), "task %s: cleanup while its body runs", s->id);
    atomic_fetch_add(&s->cleanups, 1);
}

/* ==== checks ===================================================================================== */

static void check_result(slot *s, const groupconc_result *r) {
    FZ_CHECK(!s->has_cleanup || atomic_load(&s->cleanups) == 1, "task %s: done with %d cleanups", s->id,
             atomic_load(&s->cleanups));
    FZ_CHECK(r->group && strcmp(r->group, group_names[s->group]) == 0, "task %s: result group", s->id);
    if (s->named) FZ_CHECK(r->task_id && strcmp(r->task_id, s->id) == 0, "task %s: result task id", s->id);
    else FZ_CHECK(r->task_id == NULL, "task %s: result task id should be NULL", s->id);
    FZ_CHECK(r->end_ns >= r->start_ns, "task %s: end before start", s->id);
    if (s->named && F.listener_on)
        FZ_CHECK(atomic_load(&s->ev_completed) == 1, "task %s: handle done before its COMPLETED event", s->id);
    int runs = atomic_load(&s->runs);
    switch (r->status) {
    case GROUPCONC_STATUS_SUCCESS:
        FZ_CHECK(runs == 1 && atomic_load(&s->finished) && atomic_load(&s->ret) == 0, "task %s: SUCCESS without a successful run", s->id);
        FZ_CHECK(r->value == s && r->error == 0, "task %s: SUCCESS value/error", s->id);
        break;
    case GROUPCONC_STATUS_FAILED:
        FZ_CHECK(runs == 1 && atomic_load(&s->ret) == TASK_FAILURE && r->error == TASK_FAILURE,
                 "task %s: FAILED without a failed run (error %d)", s->id, r->error);
        break;
    case GROUPCONC_STATUS_CANCELLED:
        FZ_CHECK(r->reason == GROUPCONC_ECANCELLED, "task %s: CANCELLED with error %s", s->id, groupconc_errname(r->reason));
        FZ_CHECK(runs == 0 || atomic_load(&s->ret) == GROUPCONC_TASK_CANCELLED, "task %s: ran to %d but reported CANCELLED", s->id,
                 atomic_load(&s->ret));
        break;
    case GROUPCONC_STATUS_REJECTED:
        FZ_CHECK(runs == 0, "task %s: REJECTED but it ran", s->id);
        FZ_CHECK(is_layer_code(r->reason), "task %s: REJECTED with error %s", s->id, groupconc_errname(r->reason));
        FZ_CHECK(r->start_ns == r->end_ns, "task %s: REJECTED with a duration", s->id);
        FZ_CHECK(!caller_runs(), "task %s: REJECTED under CALLER_RUNS (it should have run)", s->id);
        break;
    default: fz_fail("task %s: result status %d", s->id, (int)r->status);
    }
    if (s->have_status) FZ_CHECK(s->status == r->status, "task %s: status changed", s->id);
    s->have_status = true;
    s->status = r->status;
}

static void check_stats(bool all_quiet) {
    groupconc_executor_stats es;
    memset(&es, 0xA5, sizeof es);
    FZ_CHECK(groupconc_executor_stats_get(F.ex, &es) == GROUPCONC_OK, "executor_stats failed");
    FZ_CHECK(es.threads <= (size_t)F.max_threads, "%zu threads, max %d", es.threads, F.max_threads);
    FZ_CHECK(es.idle_threads <= es.threads, "idle threads %zu > threads %zu", es.idle_threads, es.threads);
    /* "running" counts what a worker took to run next too: up to GROUPCONC_BATCH_MAX per worker
       (what actually executes at once is checked against max_threads by the task bodies) */
    FZ_CHECK(es.running <= es.threads * GROUPCONC_BATCH_MAX, "running %zu > threads %zu x batch",
             es.running, es.threads);
    FZ_CHECK(es.global_max_in_flight == F.gcap, "global_max_in_flight %d, policy %d", es.global_max_in_flight, F.gcap);
    FZ_CHECK(F.gcap == UNL || es.global_in_flight <= (size_t)F.gcap, "global in-flight %zu > cap %d", es.global_in_flight, F.gcap);
    FZ_CHECK(es.running <= es.global_in_flight, "running %zu > global in-flight %zu", es.running, es.global_in_flight);
    if (!caller_runs())
        FZ_CHECK(es.running + es.ready <= es.global_in_flight, "running %zu + ready %zu > global in-flight %zu", es.running,
                 es.ready, es.global_in_flight);
    FZ_CHECK(es.shutdown == F.shutdown_called, "stats shutdown %d", (int)es.shutdown);
    if (F.swept) FZ_CHECK(es.waiting == 0, "%zu tasks waiting after shutdown", es.waiting);
    if (all_quiet) {
        FZ_CHECK(es.running == 0 && es.ready == 0 && es.waiting == 0 && es.global_in_flight == 0,
                 "after everything finished: running %zu ready %zu waiting %zu global in-flight %zu", es.running, es.ready,
                 es.waiting, es.global_in_flight);
    }
    size_t found = 0;
    for (int g = 0; g < NG; g++) {
        groupconc_group_stats gs;
        int rc = groupconc_group_stats_get(F.ex, group_names[g], &gs);
        if (rc == GROUPCONC_ENOTFOUND) continue;
        FZ_CHECK(rc == GROUPCONC_OK, "group_stats(%s): %s", group_names[g], groupconc_errname(rc));
        found++;
        FZ_CHECK(gs.concurrency == F.conc[g] && gs.max_in_flight == F.infl[g] && gs.queue_threshold == F.thr[g],
                 "group %s limits %d/%d/%d, expected %d/%d/%d", group_names[g], gs.concurrency, gs.max_in_flight,
                 gs.queue_threshold, F.conc[g], F.infl[g], F.thr[g]);
        FZ_CHECK(gs.running <= (size_t)gs.concurrency, "group %s: running %zu > concurrency %d", group_names[g], gs.running,
                 gs.concurrency);
        FZ_CHECK(gs.running <= gs.in_flight, "group %s: running %zu > in-flight %zu", group_names[g], gs.running, gs.in_flight);
        FZ_CHECK(F.infl[g] == UNL || gs.in_flight <= (size_t)F.infl[g], "group %s: in-flight %zu > cap %d", group_names[g],
                 gs.in_flight, F.infl[g]);
        if (!caller_runs()) {
            FZ_CHECK(gs.running + gs.ready <= (size_t)gs.concurrency, "group %s: running %zu + ready %zu > concurrency %d",
                     group_names[g], gs.running, gs.ready, gs.concurrency);
            FZ_CHECK(gs.in_flight == gs.waiting_concurrency + gs.ready + gs.running,
                     "group %s: in-flight %zu != waiting at layer 3 %zu + ready %zu + running %zu", group_names[g],
                     gs.in_flight, gs.waiting_concurrency, gs.ready, gs.running);
        }
        size_t waiting = gs.waiting_global + gs.waiting_bulkhead + gs.waiting_concurrency;
        FZ_CHECK(F.thr[g] == UNL || gs.waiting_bulkhead + gs.waiting_concurrency <= (size_t)F.thr[g],
                 "group %s: %zu waiting at layers 2+3, threshold %d", group_names[g],
                 gs.waiting_bulkhead + gs.waiting_concurrency, F.thr[g]);
        FZ_CHECK(F.gthr == UNL || gs.waiting_global <= (size_t)F.gthr, "group %s: %zu waiting at layer 1, threshold %d",
                 group_names[g], gs.waiting_global, F.gthr);
        if (waiting == 0) FZ_CHECK(gs.oldest_wait_ns == 0, "group %s: oldest wait %llu with nobody waiting", group_names[g],
                                   (unsigned long long)gs.oldest_wait_ns);
        if (F.swept) FZ_CHECK(waiting == 0, "group %s: %zu waiting after shutdown", group_names[g], waiting);
        if (all_quiet)
            FZ_CHECK(gs.running == 0 && gs.ready == 0 && waiting == 0 && gs.in_flight == 0,
                     "group %s after everything finished: running %zu ready %zu waiting %zu in-flight %zu", group_names[g],
                     gs.running, gs.ready, waiting, gs.in_flight);
    }
    FZ_CHECK(found <= es.groups, "found %zu groups, stats say %zu", found, es.groups);
}

/* rc of a call that documents no ENOMEM / may return ENOMEM only when a failure was injected */
static void check_nomem(int rc, long injected_before, const char *what) {
    if (rc == GROUPCONC_ENOMEM)
        FZ_CHECK(atomic_load(&fz_injected) > injected_before, "%s returned ENOMEM with no allocation failing", what);
}

/* ==== operations ================================================================================= */

enum {
    OP_SUBMIT0, OP_SUBMIT1, OP_SUBMIT2, OP_SUBMIT3, OP_SUBMIT4, OP_BAD_SUBMIT, OP_CANCEL, OP_WAIT_FOR, OP_IS_DONE,
    OP_ON_COMPLETE, OP_RELEASE, OP_SHUTDOWN_GROUP, OP_EVICT, OP_STATS, OP_KEYS, OP_LATCH_OPEN, OP_LATCH_CLOSE,
    OP_EXEC_ALL, OP_SHUTDOWN, OP_GRACEFUL, OP_OOM, OP_THREAD_FAIL, OP_WAIT_LONG, OP_COUNT
};

static slot *new_slot(int group, int beh, int latch, bool named) {
    if (F.nslots >= MAX_SLOTS) return NULL;
    slot *s = &F.slots[F.nslots];
    s->idx = F.nslots++;
    snprintf(s->id, sizeof s->id, "t%u", (unsigned)s->idx % 1000u);
    s->group = group;
    s->beh = beh;
    s->latch = latch;
    s->named = named;
    s->gen = F.gen[group];
    return s;
}

static slot *pick_handle(unsigned b) {
    if (F.nslots == 0) return NULL;
    for (int k = 0; k < F.nslots; k++) {
        slot *s = &F.slots[((int)b + k) % F.nslots];
        if (s->has_handle && !s->released) return s;
    }
    return NULL;
}

static void op_submit(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r);
    int group = (int)(b1 % NG);
    int beh = (int)((b1 / NG) % B_COUNT);
    bool handle = (b2 & 6u) != 6u;
    bool named = (b2 & 0x38u) != 0x38u;
    bool cb = (b2 & 0x40u) != 0;
    bool with_cleanup = (b2 & 0x80u) != 0;
    slot *s = new_slot(group, beh, (int)(b2 & 1u), named);
    if (!s) return;
    long inj = atomic_load(&fz_injected);
    groupconc_task *h = NULL;
    int rc;
    if (with_cleanup) {
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = group_names[group];
        spec.task_id = named ? s->id : NULL;
        spec.fn = fz_task;
        spec.arg = s;
        spec.cleanup = fz_cleanup;
        s->has_cleanup = true;
        rc = groupconc_submit_spec(F.ex, &spec, handle ? &h : NULL);
    } else {
        rc = groupconc_submit(F.ex, group_names[group], named ? s->id : NULL, fz_task, s, handle ? &h : NULL);
    }
    s->submit_rc = rc;
    check_nomem(rc, inj, "submit");
    counters[rc == GROUPCONC_OK ? C_ACCEPTED : is_layer_code(rc) ? C_REFUSED_LAYER : rc == GROUPCONC_ENOMEM ? C_ENOMEM
             : rc == GROUPCONC_ETHREAD ? C_ETHREAD : C_ESHUTDOWN]++;
    if (rc == GROUPCONC_OK) {
        s->accepted = true;
        if (!named) {
            F.anon_min++;
            F.anon_max++;
        }
        if (handle) {
            FZ_CHECK(h != NULL, "submit OK without a handle");
            s->h = h;
            atomic_store(&s->hx, h);
            s->has_handle = true;
            if (cb) {
                inj = atomic_load(&fz_injected);
                int crc = groupconc_task_on_complete(h, fz_on_complete, s);
                check_nomem(crc, inj, "on_complete");
                FZ_CHECK(crc == GROUPCONC_OK || crc == GROUPCONC_ENOMEM, "on_complete: %s", groupconc_errname(crc));
                if (crc == GROUPCONC_OK) s->cb_registered++;
            }
        }
        return;
    }
    FZ_CHECK(h == NULL, "submit returned %s but set a handle", groupconc_errname(rc));
    FZ_CHECK(atomic_load(&s->runs) == 0, "submit returned %s but the task ran", groupconc_errname(rc));
    if (is_layer_code(rc)) FZ_CHECK(aborts(), "submit returned %s under rejection policy %d", groupconc_errname(rc), F.rejection);
    else if (rc == GROUPCONC_ESHUTDOWN) FZ_CHECK(F.shutdown_called, "submit: ESHUTDOWN before shutdown");
    else if (rc == GROUPCONC_ETHREAD) FZ_CHECK(atomic_load(&fz_start_fail), "submit: ETHREAD while starts work");
    else FZ_CHECK(rc == GROUPCONC_ENOMEM, "submit returned %s", groupconc_errname(rc));
}

static void op_bad_submit(reader *r) {
    unsigned b = rd(r) % 4u;
    groupconc_task *h = NULL;
    static const int want[4] = {GROUPCONC_EKEYEMPTY, GROUPCONC_EKEYTOOLONG, GROUPCONC_EINVAL, GROUPCONC_EINVAL};
    int rc = groupconc_submit(F.ex, b == 0 ? "" : b == 1 ? too_long_key : b == 2 ? NULL : "g0", NULL,
                              b == 3 ? NULL : fz_task, NULL, &h);
    FZ_CHECK(rc == want[b], "bad submit %u returned %s, want %s", b, groupconc_errname(rc), groupconc_errname(want[b]));
    FZ_CHECK(h == NULL, "bad submit set a handle");
}

static void op_cancel(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    groupconc_cancel_outcome o = (groupconc_cancel_outcome)99;
    int rc = groupconc_task_cancel(s->h, &o);
    FZ_CHECK(rc == GROUPCONC_OK, "cancel: %s", groupconc_errname(rc));
    FZ_CHECK(o == GROUPCONC_CANCEL_DEQUEUED || o == GROUPCONC_CANCEL_FLAGGED || o == GROUPCONC_CANCEL_TOO_LATE,
             "cancel outcome %d", (int)o);
    if (o == GROUPCONC_CANCEL_TOO_LATE && !(s->cancel_seen & (1 << o))) s->runs_at_too_late = atomic_load(&s->runs);
    s->cancel_seen |= 1 << o;
    counters[o == GROUPCONC_CANCEL_DEQUEUED ? C_DEQUEUED : o == GROUPCONC_CANCEL_FLAGGED ? C_FLAGGED : C_TOO_LATE]++;
    /* DEQUEUED: completed CANCELLED before cancel returns. (TOO_LATE may be said a moment before the
       handle is marked done: checked at the end, where the task must not have run after it.) */
    if (o == GROUPCONC_CANCEL_DEQUEUED) {
        groupconc_result res;
        rc = groupconc_task_wait_for(s->h, 0, &res);
        FZ_CHECK(rc == GROUPCONC_OK, "task %s not done right after cancel said DEQUEUED", s->id);
        check_result(s, &res);
        FZ_CHECK(res.status == GROUPCONC_STATUS_CANCELLED && atomic_load(&s->runs) == 0,
                 "task %s dequeued but %s / ran %d", s->id, groupconc_status_name(res.status), atomic_load(&s->runs));
    }
}

static void op_wait_for(reader *r) {
    static const int64_t timeouts[4] = {0, 20000, 200000, 1000000};
    unsigned b = rd(r);
    slot *s = pick_handle(b);
    if (!s) return;
    groupconc_result res;
    int rc = groupconc_task_wait_for(s->h, timeouts[(b >> 6) & 3u], &res);
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "wait_for: %s", groupconc_errname(rc));
    if (rc == GROUPCONC_ETIMEDOUT) counters[C_WAIT_TIMEOUT]++;
    if (rc == GROUPCONC_OK) check_result(s, &res);
}

static void op_wait_long(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s || !latches_open()) return;
    groupconc_result res;
    int rc = groupconc_task_wait_for(s->h, INT64_C(5000000000), &res);
    FZ_CHECK(rc == GROUPCONC_OK, "task %s not finished within 5 s with every latch open: %s", s->id, groupconc_errname(rc));
    check_result(s, &res);
}

static void op_is_done(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    bool done = false;
    FZ_CHECK(groupconc_task_is_done(s->h, &done) == GROUPCONC_OK, "is_done failed");
    if (done) {
        groupconc_result res;
        FZ_CHECK(groupconc_task_wait_for(s->h, 0, &res) == GROUPCONC_OK, "is_done true but wait_for(0) times out");
        check_result(s, &res);
    }
}

static void op_on_complete(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    long inj = atomic_load(&fz_injected);
    int rc = groupconc_task_on_complete(s->h, fz_on_complete, s);
    check_nomem(rc, inj, "on_complete");
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOMEM, "on_complete: %s", groupconc_errname(rc));
    if (rc == GROUPCONC_OK) s->cb_registered++;
}

static void op_release(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    int rc = groupconc_task_release(s->h);
    FZ_CHECK(rc == GROUPCONC_OK, "release: %s", groupconc_errname(rc));
    s->released = true;
}

static void op_group(reader *r, bool evict) {
    int g = (int)(rd(r) % NG);
    int rc = evict ? groupconc_group_evict(F.ex, group_names[g]) : groupconc_group_shutdown(F.ex, group_names[g]);
    FZ_CHECK(rc == GROUPCONC_OK, "%s(%s): %s", evict ? "evict_group" : "shutdown_group", group_names[g], groupconc_errname(rc));
    if (evict && F.gen[g] + 1 < MAX_GEN) F.gen[g]++;
    if (evict) counters[C_EVICT]++;
}

static void op_keys(void) {
    char **keys = NULL;
    size_t n = 0;
    long inj = atomic_load(&fz_injected);
    int rc = groupconc_group_keys_get(F.ex, &keys, &n);
    check_nomem(rc, inj, "group_keys");
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOMEM, "group_keys: %s", groupconc_errname(rc));
    if (rc != GROUPCONC_OK) return;
    FZ_CHECK(n <= NG, "group_keys: %zu keys", n);
    for (size_t i = 0; i < n; i++) {
        FZ_CHECK(group_index(keys[i]) >= 0, "group_keys: unknown key");
        for (size_t j = 0; j < i; j++) FZ_CHECK(strcmp(keys[i], keys[j]) != 0, "group_keys: duplicate key %s", keys[i]);
    }
    groupconc_group_keys_free(keys);
}

static void op_exec_all(reader *r) {
    static const int64_t timeouts[4] = {0, 300000, 3000000, GROUPCONC_FOREVER};
    unsigned b = rd(r);
    size_t n = 1 + b % 4u;
    int64_t timeout = timeouts[(b >> 2) & 3u];
    if (timeout == GROUPCONC_FOREVER && !latches_open()) timeout = 3000000;
    groupconc_task_spec specs[4];
    slot *sl[4];
    for (size_t i = 0; i < n; i++) {
        unsigned e = rd(r);
        static const int behs[4] = {B_NOOP, B_FAIL, B_CHECK_CANCEL, B_COOP};
        sl[i] = new_slot((int)(e % NG), behs[(e / NG) % 4u], (int)((e >> 5) & 1u), (e & 0x80u) == 0);
        if (!sl[i]) return;
        sl[i]->exec_all = true;
        specs[i].group = group_names[sl[i]->group];
        specs[i].task_id = sl[i]->named ? sl[i]->id : NULL;
        specs[i].fn = fz_task;
        specs[i].arg = sl[i];
        specs[i].cleanup = fz_cleanup;
        sl[i]->has_cleanup = true;
    }
    groupconc_result res[4];
    long inj = atomic_load(&fz_injected);
    int rc = groupconc_execute_all(F.ex, specs, n, timeout, res);
    counters[C_EXEC_ALL]++;
    if (rc == GROUPCONC_ETIMEDOUT) counters[C_EXEC_ALL_CUT]++;
    check_nomem(rc, inj, "execute_all");
    if (rc == GROUPCONC_ENOMEM) {
        for (size_t i = 0; i < n; i++)
            FZ_CHECK(atomic_load(&sl[i]->runs) == 0 && atomic_load(&sl[i]->ev_submitted) == 0,
                     "execute_all ENOMEM but element %zu was submitted", i);
        return;
    }
    FZ_CHECK(rc == GROUPCONC_OK || (rc == GROUPCONC_ETIMEDOUT && timeout != GROUPCONC_FOREVER) ||
                 (rc == GROUPCONC_ESHUTDOWN && F.shutdown_called),
             "execute_all: %s", groupconc_errname(rc));
    for (size_t i = 0; i < n; i++) {
        slot *s = sl[i];
        groupconc_result *x = &res[i];
        FZ_CHECK(x->group == specs[i].group && x->task_id == specs[i].task_id, "execute_all result %zu: group/task_id pointers", i);
        int runs = atomic_load(&s->runs);
        switch (x->status) {
        case GROUPCONC_STATUS_SUCCESS:
            FZ_CHECK(runs == 1 && atomic_load(&s->ret) == 0 && x->value == s, "execute_all %s: SUCCESS without a run", s->id);
            break;
        case GROUPCONC_STATUS_FAILED:
            FZ_CHECK(runs == 1 && x->error == TASK_FAILURE, "execute_all %s: FAILED (%d) without a failed run", s->id, x->error);
            break;
        case GROUPCONC_STATUS_CANCELLED:
            FZ_CHECK(x->reason == GROUPCONC_ECANCELLED, "execute_all %s: CANCELLED with %s", s->id, groupconc_errname(x->reason));
            if (rc == GROUPCONC_OK)
                FZ_CHECK(runs == 1 && atomic_load(&s->ret) == GROUPCONC_TASK_CANCELLED,
                         "execute_all %s: CANCELLED although the call returned OK (no deadline cut)", s->id);
            break;
        case GROUPCONC_STATUS_REJECTED:
            FZ_CHECK(runs == 0, "execute_all %s: REJECTED but it ran", s->id);
            FZ_CHECK(x->start_ns == x->end_ns, "execute_all %s: REJECTED with a duration", s->id);
            if (is_layer_code(x->reason)) {
                FZ_CHECK(!caller_runs(), "execute_all %s: REJECTED (%s) under CALLER_RUNS", s->id, groupconc_errname(x->reason));
            } else {
                FZ_CHECK((x->reason == GROUPCONC_ESHUTDOWN && F.shutdown_called) ||
                             (x->reason == GROUPCONC_ETHREAD && atomic_load(&fz_start_fail)) ||
                             (x->reason == GROUPCONC_ENOMEM && atomic_load(&fz_injected) > inj),
                         "execute_all %s: REJECTED with %s", s->id, groupconc_errname(x->reason));
            }
            break;
        default: fz_fail("execute_all %s: status %d", s->id, (int)x->status);
        }
        FZ_CHECK(atomic_load(&s->ev_completed) <= 1, "execute_all %s: COMPLETED twice", s->id);
        if (x->status != GROUPCONC_STATUS_REJECTED) {
            FZ_CHECK(!s->named || !F.listener_on || atomic_load(&s->ev_completed) == 1, "execute_all %s returned before its COMPLETED event", s->id);
            s->accepted = true;
            if (!s->named) {
                F.anon_min++;
                F.anon_max++;
            }
        } else if (!s->named) {
            F.anon_max++; /* an element rejected after submit accepted it reports COMPLETED too */
        }
    }
}

static void mark_swept(void) {
    F.shutdown_called = true;
    F.swept = true;
}

static void fz_step(reader *r) {
    unsigned op = rd(r) % OP_COUNT;
    long inj = atomic_load(&fz_injected);
    int rc;
    switch (op) {
    case OP_SUBMIT0: case OP_SUBMIT1: case OP_SUBMIT2: case OP_SUBMIT3: case OP_SUBMIT4: op_submit(r); break;
    case OP_BAD_SUBMIT: op_bad_submit(r); break;
    case OP_CANCEL: op_cancel(r); break;
    case OP_WAIT_FOR: op_wait_for(r); break;
    case OP_IS_DONE: op_is_done(r); break;
    case OP_ON_COMPLETE: op_on_complete(r); break;
    case OP_RELEASE: op_release(r); break;
    case OP_SHUTDOWN_GROUP: op_group(r, false); break;
    case OP_EVICT: op_group(r, true); break;
    case OP_STATS: break; /* check_stats runs after every step anyway */
    case OP_KEYS: op_keys(); break;
    case OP_LATCH_OPEN: latch_set((int)(rd(r) & 1u), 1); break;
    case OP_LATCH_CLOSE: latch_set((int)(rd(r) & 1u), 0); break;
    case OP_EXEC_ALL: op_exec_all(r); break;
    case OP_SHUTDOWN:
        rc = groupconc_executor_shutdown(F.ex);
        FZ_CHECK(rc == GROUPCONC_OK, "shutdown: %s", groupconc_errname(rc));
        mark_swept();
        break;
    case OP_GRACEFUL: {
        static const int64_t timeouts[3] = {0, 200000, 2000000};
        rc = groupconc_executor_shutdown_graceful(F.ex, timeouts[rd(r) % 3u]);
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "shutdown_graceful: %s", groupconc_errname(rc));
        counters[rc == GROUPCONC_OK ? C_GRACEFUL_OK : C_GRACEFUL_TIMEOUT]++;
        mark_swept();
        if (rc == GROUPCONC_OK) check_stats(true); /* every task finished: every permit is back */
        break;
    }
    case OP_OOM: atomic_store(&fz_countdown, (long)(1 + rd(r) % 8u)); break;
    case OP_THREAD_FAIL: atomic_store(&fz_start_fail, (int)(rd(r) & 1u)); break;
    case OP_WAIT_LONG: op_wait_long(r); break;
    default: fz_fail("op %u", op);
    }
    (void)inj;
    check_stats(false);
}

/* ==== one input ================================================================================== */

static void fz_setup_policy(reader *r, groupconc_policy *p) {
    static const int infl[4] = {UNL, 1, 2, 3};
    static const int thr[5] = {UNL, 0, 1, 2, 4};
    static const int gcap[6] = {UNL, UNL, 1, 2, 3, 4};
    static const int gthr[4] = {UNL, 0, 1, 3};
    static const int64_t keep[3] = {0, 1000000, INT64_C(10000000000)};
    unsigned h[8];
    for (int i = 0; i < 8; i++) h[i] = rd(r);
    *p = groupconc_policy_default();
    p->default_concurrency = 1 + (int)(h[0] % 3u);
    p->default_max_in_flight = infl[h[1] % 4u];
    p->default_queue_threshold = thr[h[2] % 5u];
    p->global_max_in_flight = gcap[h[3] % 6u];
    p->global_queue_threshold = gthr[h[4] % 4u];
    F.rejection = (int)(h[5] % 4u);
    if (F.rejection == 3) {
        p->rejection = GROUPCONC_REJECT_ABORT;
        p->reject_handler = fz_reject_handler;
        p->reject_user_data = &F;
    } else {
        p->rejection = (groupconc_rejection_policy)F.rejection;
    }
    p->max_threads = 1 + (int)(h[6] % 4u);
    p->keep_alive_ns = keep[(h[6] >> 2) % 3u];
    size_t nt = 0;
    if (h[7] & 1u) F.table[nt++] = (groupconc_group_limits){"g0", 2, GROUPCONC_DEFAULT, 1};
    if (h[7] & 2u) F.table[nt++] = (groupconc_group_limits){"g1", GROUPCONC_DEFAULT, 1, 0};
    p->groups = nt ? F.table : NULL;
    p->group_count = nt;
    if (h[7] & 4u) {
        p->resolver = fz_resolver;
        p->resolver_user_data = &F;
    }
    F.listener_on = (h[6] & 0x10u) == 0;
    if (F.listener_on) {
        p->listener = fz_listener;
        p->listener_user_data = &F;
    }
    F.cancel_in_listener = (h[7] & 0x80u) != 0;
    F.latch_open[0] = (h[7] >> 3) & 1u;
    F.latch_open[1] = (h[7] >> 4) & 1u;
    F.gcap = p->global_max_in_flight;
    F.gthr = p->global_queue_threshold;
    F.max_threads = p->max_threads;
    /* expected resolution: explicit table value, else resolver (failure -> default, < 1 -> 1), else default */
    for (int g = 0; g < NG; g++) {
        const groupconc_group_limits *e = NULL;
        for (size_t i = 0; i < nt; i++)
            if (strcmp(F.table[i].group, group_names[g]) == 0) e = &F.table[i];
        int conc = p->default_concurrency;
        if (e && e->concurrency != GROUPCONC_DEFAULT) conc = e->concurrency;
        else if (p->resolver) conc = g == 2 ? 3 : g == 3 ? 1 : g == 4 ? p->default_concurrency : 2;
        F.conc[g] = conc;
        F.infl[g] = e && e->max_in_flight != GROUPCONC_DEFAULT ? e->max_in_flight : p->default_max_in_flight;
        F.thr[g] = e && e->queue_threshold != GROUPCONC_DEFAULT ? e->queue_threshold : p->default_queue_threshold;
    }
}

static void fz_finish(unsigned ending) {
    atomic_store(&fz_countdown, 0);
    atomic_store(&fz_start_fail, 0);
    latch_set(0, 1);
    latch_set(1, 1);
    int rc;
    switch (ending) {
    case 0:
        /* every latch is open: everything must finish (bounded, so a lost permit fails instead of hanging) */
        rc = groupconc_executor_shutdown_graceful(F.ex, INT64_C(10000000000));
        FZ_CHECK(rc == GROUPCONC_OK, "final shutdown_graceful with every latch open did not finish in 10 s: %s",
                 groupconc_errname(rc));
        mark_swept();
        check_stats(true);
        break;
    case 1:
        FZ_CHECK(groupconc_executor_shutdown(F.ex) == GROUPCONC_OK, "final shutdown");
        mark_swept();
        check_stats(false);
        break;
    case 2: break;
    default:
        rc = groupconc_executor_shutdown_graceful(F.ex, 0);
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "final shutdown_graceful(0): %s", groupconc_errname(rc));
        mark_swept();
        break;
    }
    rc = groupconc_executor_destroy(F.ex);
    FZ_CHECK(rc == GROUPCONC_OK, "destroy: %s", groupconc_errname(rc));
    for (int i = 0; i < F.nslots; i++) {
        slot *s = &F.slots[i];
        int runs = atomic_load(&s->runs), completed = atomic_load(&s->ev_completed);
        if (s->named && F.listener_on)
            FZ_CHECK(atomic_load(&s->ev_started) == runs, "task %s: %d STARTED events, %d runs", s->id,
                     atomic_load(&s->ev_started), runs);
        FZ_CHECK(runs == 0 || atomic_load(&s->finished), "task %s still running after destroy", s->id);
        FZ_CHECK(atomic_load(&s->handler_calls) == 0 || runs == 0, "task %s ran and was handed to the rejection handler", s->id);
        if (s->accepted && atomic_load(&s->ev_rejected)) counters[C_ASYNC_REJECTED]++;
        if (s->exec_all) continue; /* checked when execute_all returned */
        if (s->accepted) {
            if (s->named && F.listener_on) FZ_CHECK(completed == 1, "accepted task %s: %d COMPLETED events", s->id, completed);
        } else {
            FZ_CHECK(runs == 0, "refused task %s ran", s->id);
            /* COMPLETED once per SUBMITTED, also for a refused submit; never STARTED */
            FZ_CHECK(completed == atomic_load(&s->ev_submitted) && atomic_load(&s->ev_started) == 0,
                     "refused task %s (%s): %d SUBMITTED, %d COMPLETED, %d STARTED events", s->id,
                     groupconc_errname(s->submit_rc), atomic_load(&s->ev_submitted), completed,
                     atomic_load(&s->ev_started));
        }
        /* the cleanup: exactly once for an accepted task, never for a refused one (arg stays ours) */
        if (s->has_cleanup)
            FZ_CHECK(atomic_load(&s->cleanups) == (s->accepted ? 1 : 0), "task %s (%s): %d cleanups", s->id,
                     s->accepted ? "accepted" : "refused", atomic_load(&s->cleanups));
        if (s->cancel_seen & (1 << GROUPCONC_CANCEL_DEQUEUED))
            FZ_CHECK(runs == 0 && (!s->named || !F.listener_on || atomic_load(&s->ev_status) == GROUPCONC_STATUS_CANCELLED),
                     "task %s dequeued, then ran", s->id);
        if (s->cancel_seen & (1 << GROUPCONC_CANCEL_FLAGGED)) FZ_CHECK(runs == 1, "task %s flagged while running but never ran", s->id);
        int lc = atomic_load(&s->listener_cancel) - 1;
        if (lc == GROUPCONC_CANCEL_TOO_LATE)
            FZ_CHECK(runs == atomic_load(&s->runs_at_listener_cancel),
                     "task %s: cancel (from its REJECTED event) said TOO_LATE (already finished), then the task ran (policy %d)",
                     s->id, F.rejection);
        if (lc == GROUPCONC_CANCEL_DEQUEUED) FZ_CHECK(runs == 0, "task %s: dequeued from its REJECTED event, then ran", s->id);
        if (s->cancel_seen & (1 << GROUPCONC_CANCEL_TOO_LATE))
            FZ_CHECK(runs == s->runs_at_too_late, "task %s: cancel said TOO_LATE (already finished), then the task ran (policy %d)",
                     s->id, F.rejection);
        if (s->has_handle && !s->released) {
            bool done = false;
            FZ_CHECK(groupconc_task_is_done(s->h, &done) == GROUPCONC_OK && done, "task %s not done after destroy", s->id);
            groupconc_result res;
            FZ_CHECK(groupconc_task_wait(s->h, &res) == GROUPCONC_OK, "wait after destroy");
            check_result(s, &res);
            FZ_CHECK(groupconc_task_release(s->h) == GROUPCONC_OK, "release after destroy");
            s->released = true;
        }
        if (s->has_handle)
            FZ_CHECK(atomic_load(&s->cb_calls) == s->cb_registered, "task %s: %d completion callbacks ran, %d registered", s->id,
                     atomic_load(&s->cb_calls), s->cb_registered);
    }
    int anon = atomic_load(&F.anon_completed);
    if (F.listener_on)
        FZ_CHECK(anon == atomic_load(&F.anon_submitted) && anon >= F.anon_min,
                 "anonymous COMPLETED events %d, SUBMITTED %d (accepted at least %d)", anon,
                 atomic_load(&F.anon_submitted), F.anon_min);
    FZ_CHECK(atomic_load(&F.run_total) == 0, "running count %d after destroy", atomic_load(&F.run_total));
    long live = atomic_load(&fz_live);
    FZ_CHECK(live == 0, "%ld blocks live after destroy and release of every handle", live);
}

static void fz_reset(void) {
    F.ex = NULL;
    F.nslots = 0;
    memset(F.slots, 0, sizeof F.slots);
    memset(F.gen, 0, sizeof F.gen);
    for (int g = 0; g < NG; g++)
        for (int k = 0; k < MAX_GEN; k++) atomic_store(&F.run_g[g][k], 0);
    atomic_store(&F.run_total, 0);
    atomic_store(&F.anon_completed, 0);
    atomic_store(&F.anon_submitted, 0);
    atomic_store(&F.resolver_depth, 0);
    F.anon_min = F.anon_max = 0;
    F.shutdown_called = F.swept = false;
    F.nops = 0;
    atomic_store(&fz_countdown, 0);
    atomic_store(&fz_start_fail, 0);
    atomic_store(&fz_live, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int initialised;
    if (!initialised) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&F.cv, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&F.mu, NULL);
        initialised = 1;
    }
    tl_fuzzer_thread = 1;
    fz_reset();
    reader r = {data, size, 0};
    groupconc_policy p;
    fz_setup_policy(&r, &p);
    unsigned ending = (size > 7 ? (unsigned)data[7] >> 5 : 0u) & 3u;
    int rc = groupconc_executor_create(&p, &F.ex);
    FZ_CHECK(rc == GROUPCONC_OK, "create with a valid policy: %s", groupconc_errname(rc));
    while (r.i < r.n && F.nops < MAX_OPS) {
        F.nops++;
        fz_step(&r);
    }
    fz_finish(ending);
    tl_fuzzer_thread = 0;
    return 0;
}

/* ==== replay main ================================================================================ */
#ifdef FUZZ_REPLAY_MAIN
#include <dirent.h>
#include <sys/stat.h>

static long replayed;
static const char *save_path; /* FUZZ_REPLAY_SAVE: each input is written here before it runs */

static void run_input(const uint8_t *buf, size_t n) {
    if (save_path) {
        FILE *f = fopen(save_path, "wb");
        if (f) {
            fwrite(buf, 1, n, f);
            fclose(f);
        }
    }
    LLVMFuzzerTestOneInput(buf, n);
}

static void replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_ops_replay: cannot open %s\n", path);
        exit(2);
    }
    uint8_t buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    run_input(buf, n);
    replayed++;
}

static void replay_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz_ops_replay: no such file or directory: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) exit(2);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        replay_path(full);
    }
    closedir(d);
}

int main(int argc, char **argv) {
    long random_inputs = 0;
    save_path = getenv("FUZZ_REPLAY_SAVE");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--random") == 0 && i + 1 < argc) random_inputs = atol(argv[++i]);
        else replay_path(argv[i]);
    }
    long files = replayed;
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (long k = 0; k < random_inputs; k++) {
        uint8_t buf[256];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = 8 + (size_t)(x % 200u);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)(x >> 32);
        }
        run_input(buf, n);
        replayed++;
    }
    printf("fuzz_ops_replay: %ld corpus files, %ld random inputs, all invariants held\n", files, replayed - files);
    counters[C_NO_PERMIT_RUNS] = atomic_load(&no_permit_runs);
    for (int i = 0; i < C_COUNT; i++) printf("  %-40s %ld\n", counter_names[i], counters[i]);
    return files == 0 && random_inputs == 0 ? 1 : 0;
}
#endif
