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
     (Adding an OP_* changes OP_COUNT and so what every op byte means: the seeds in corpus/ write each
     op as its index, below every later OP_COUNT, so that they keep meaning what they meant.)

   Custom rejection handler (header [5] % 4 == 3): what it decides for a task comes from its submit's
   first argument byte / 30 (execute_all: the call's first byte >> 4, plus the element's index), one of
   D_*: leave the pre-filled REJECTED, SUCCESS with a value, FAILED with an error, CANCELLED, REJECTED,
   a status that is not final (PENDING, 99: must count as REJECTED), arg_taken with SUCCESS or with
   REJECTED. The result, the events, the cleanup (exactly once, or never after arg_taken: then the
   fuzzer takes the argument over itself) and the executor's totals (at every quiet point they equal
   the COMPLETED events by status and reason) must follow the decision.

   OP_SELF_BLOCK submits a task (as OP_SUBMIT* does, plus a third byte: how long to wait) whose body,
   listener events, rejection handler, cleanup and completion callbacks make blocking calls on
   themselves: groupconc_task_wait_for on their own task must return GROUPCONC_EDEADLK (a completion
   callback: GROUPCONC_OK with the same result, the task is done), groupconc_executor_destroy on
   their executor GROUPCONC_EDEADLK, doing nothing (the next check_stats and submit see a running
   executor; also in a completion callback that on_complete runs at once).
   Only bounded waits, only on the task itself: none of these can hang.

   OP_POLICY builds a variant of the decoded policy (its table plus up to two entries, then up to three
   field changes, valid or not) and cross-checks groupconc_policy_check against a model of the rules
   documented in the header (code, field, group, value) and against groupconc_executor_create (same
   code; OK iff create succeeds; an executor so made is destroyed at once). The decoded policy itself
   is checked in fz_setup_policy. Every code an API call returns, and every reason a result or event
   carries, must have its name and message (groupconc_errname / groupconc_strerror, compared with
   GROUPCONC_ERRNO_MAP); every status, cancel outcome, event type and rejection policy value seen must
   have its *_name.

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

/* ==== names: codes, statuses, cancel outcomes, event types, rejection policies =================== */

static const struct {
    int code;
    const char *name, *text;
} fz_codes[] = {
#define FZ_CODE(name, value, text) {value, "GROUPCONC_" #name, text},
    GROUPCONC_ERRNO_MAP(FZ_CODE)
#undef FZ_CODE
};

/* Every code an API call returns (and every reason in a result or event): one of the library's, with
   its name and message. Returns rc. */
static int fz_code(int rc) {
    const char *name = groupconc_errname(rc), *text = groupconc_strerror(rc);
    FZ_CHECK(name && text, "errname / strerror (%d) returned NULL", rc);
    for (size_t i = 0; i < sizeof fz_codes / sizeof fz_codes[0]; i++)
        if (fz_codes[i].code == rc) {
            FZ_CHECK(strcmp(name, fz_codes[i].name) == 0 && strcmp(text, fz_codes[i].text) == 0,
                     "code %d: errname \"%s\", strerror \"%s\" (want %s)", rc, name, text, fz_codes[i].name);
            return rc;
        }
    fz_fail("%d is not a groupconc code (errname \"%s\", strerror \"%s\")", rc, name, text);
}

/* value's *_name must be its enumerator without the prefix, "UNKNOWN" for any other value */
static void fz_name(const char *what, int value, const char *got, const char *const *names, int count) {
    const char *want = value >= 0 && value < count ? names[value] : "UNKNOWN";
    FZ_CHECK(got && strcmp(got, want) == 0, "%s %d: name \"%s\", want \"%s\"", what, value, got ? got : "(null)", want);
}

static const char *const fz_status_names[] = {"PENDING", "SUCCESS", "FAILED", "CANCELLED", "REJECTED"};
static const char *const fz_outcome_names[] = {"DEQUEUED", "FLAGGED", "TOO_LATE"};
static const char *const fz_event_names[] = {"SUBMITTED", "STARTED", "COMPLETED", "REJECTED"};
static const char *const fz_policy_names[] = {"ABORT", "DISCARD", "CALLER_RUNS"};

static void name_status(groupconc_status v) { fz_name("status", (int)v, groupconc_status_name(v), fz_status_names, 5); }
static void name_outcome(groupconc_cancel_outcome v) {
    fz_name("cancel outcome", (int)v, groupconc_cancel_outcome_name(v), fz_outcome_names, 3);
}
static void name_event(groupconc_event_type v) { fz_name("event type", (int)v, groupconc_event_type_name(v), fz_event_names, 4); }
static void name_policy(groupconc_rejection_policy v) {
    fz_name("rejection policy", (int)v, groupconc_rejection_policy_name(v), fz_policy_names, 3);
}

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
#define HANDLER_FAILURE(s) (4300 + (s)->idx) /* what a handler's FAILED decision gives as result.error */

static const char *const group_names[NG] = {"g0", "g1", "g2", "g3", "g4", "g5xxxxxxxxxxxxxxxxxxxxxx"};
static const char too_long_key[] = "g6xxxxxxxxxxxxxxxxxxxxxxx"; /* 25 bytes */

enum { B_NOOP, B_FAIL, B_CHECK_CANCEL, B_COOP, B_STUBBORN, B_COUNT };

/* what the custom rejection handler decides for a task (see the top comment) */
enum { D_DEFAULT, D_SUCCESS, D_FAILED, D_CANCELLED, D_REJECTED, D_PENDING, D_BOGUS, D_TAKE_SUCCESS, D_TAKE_REJECTED,
       D_COUNT };
#define D_BOGUS_STATUS 99

/* the final status a decision must give: anything but SUCCESS / FAILED / CANCELLED counts as REJECTED */
static groupconc_status decided_status(int d) {
    return d == D_SUCCESS || d == D_TAKE_SUCCESS ? GROUPCONC_STATUS_SUCCESS
           : d == D_FAILED                       ? GROUPCONC_STATUS_FAILED
           : d == D_CANCELLED                    ? GROUPCONC_STATUS_CANCELLED
                                                 : GROUPCONC_STATUS_REJECTED;
}

static char handler_values[MAX_SLOTS]; /* a handler's SUCCESS / FAILED value for slot i: &handler_values[i] */

/* OP_SELF_BLOCK: how long a task's own code waits on itself (a correct library returns at once) */
static const int64_t self_timeouts[4] = {0, 100000, 10000000, 50000000}; /* bounded: a wrong library fails, never hangs */

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
    int decision;                 /* D_*: what the rejection handler decides (set before submit) */
    atomic_int taken;             /* the handler took the argument (arg_taken): the fuzzer released it */
    atomic_int rj_reason;         /* the reason the handler was given */
    bool self_block;              /* OP_SELF_BLOCK: its own code waits on itself and destroys (EDEADLK) */
    int self_timeout;             /* index into self_timeouts */
    atomic_int release_started;   /* groupconc_task_release was called (a callback may then see ERELEASED) */
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
    groupconc_policy policy;         /* as decoded (OP_POLICY varies it) */
    size_t table_len;
    /* every event by type; COMPLETED by final status and, for REJECTED, reason (compared with the
       executor's totals at quiet points) */
    atomic_int ev_count[4];
    atomic_int ev_done[5], ev_rej_global, ev_rej_bulkhead, ev_rej_concurrency, ev_rej_other;
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

/* counters bumped on any thread */
enum { A_SELF_BODY, A_SELF_EVENT, A_SELF_HANDLER, A_SELF_CLEANUP, A_SELF_CALLBACK, A_SELF_AT_ONCE, A_SELF_WAITED,
       A_HANDLER_DEFAULT, A_HANDLER_SUCCESS, A_HANDLER_FAILED, A_HANDLER_CANCELLED, A_HANDLER_REJECTED,
       A_HANDLER_PENDING, A_HANDLER_BOGUS, A_HANDLER_TAKE_SUCCESS, A_HANDLER_TAKE_REJECTED, A_POLICY_OK,
       A_POLICY_BAD, A_POLICY_NOMEM, A_QUIET_TOTALS, A_HANDLER_LATER, A_COUNT };
static const char *const acounter_names[A_COUNT] = {
    "self-block: in the task body", "self-block: in a listener event", "self-block: in the rejection handler",
    "self-block: in the cleanup", "self-block: in a completion callback", "  of which ran at once (no destroy)",
    "self-block: a wait on its own handle", "handler: leaves REJECTED", "handler: SUCCESS", "handler: FAILED",
    "handler: CANCELLED", "handler: REJECTED", "handler: PENDING (not final)", "handler: status 99",
    "handler: arg_taken + SUCCESS", "handler: arg_taken + REJECTED", "policy variants valid (created)",
    "policy variants invalid", "policy variants hit ENOMEM", "totals = COMPLETED events (quiet points)",
    "handler: rejected after submit returned"};
static atomic_long acounters[A_COUNT];

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

static void fz_cleanup(void *arg);

static _Thread_local int tl_registering; /* the fuzzer thread is in groupconc_task_on_complete */

/* OP_SELF_BLOCK, from inside the code of task s (`where`): destroying its executor is refused
   (EDEADLK) and does nothing (the executor still answers; check_stats and the next submit then see
   it running, not shut down); a wait on its own handle `own` (NULL: not known here yet) is refused
   too. A handle the fuzzer released meanwhile may say ERELEASED (the executor still holds the task). */
static void self_block(slot *s, groupconc_task *own, const char *where, int counter) {
    groupconc_executor_stats es;
    int rc = fz_code(groupconc_executor_destroy(F.ex));
    FZ_CHECK(rc == GROUPCONC_EDEADLK, "task %s: groupconc_executor_destroy from its own %s returned %s, want GROUPCONC_EDEADLK",
             s->id, where, groupconc_errname(rc));
    rc = fz_code(groupconc_executor_stats_get(F.ex, &es));
    FZ_CHECK(rc == GROUPCONC_OK, "task %s: stats after the refused destroy in its %s: %s", s->id, where, groupconc_errname(rc));
    if (own) {
        groupconc_result res;
        rc = fz_code(groupconc_task_wait_for(own, self_timeouts[s->self_timeout], &res));
        FZ_CHECK(rc == GROUPCONC_EDEADLK || (rc == GROUPCONC_ERELEASED && atomic_load(&s->release_started)),
                 "task %s: groupconc_task_wait_for(own task, %lld ns) from its own %s returned %s, want GROUPCONC_EDEADLK",
                 s->id, (long long)self_timeouts[s->self_timeout], where, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SELF_WAITED], 1);
    }
    atomic_fetch_add(&acounters[counter], 1);
}

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
    if (s->self_block) {
        FZ_CHECK(groupconc_context_executor(ctx) == F.ex, "task %s: context executor", s->id);
        self_block(s, atomic_load(&s->hx), "body", A_SELF_BODY);
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
    name_event(ev->type);
    if ((int)ev->type >= 0 && (int)ev->type < 4) atomic_fetch_add(&F.ev_count[ev->type], 1);
    fz_code(ev->reason);
    if (ev->result) {
        name_status(ev->result->status);
        fz_code(ev->result->reason);
    }
    /* SUBMITTED comes before submit returns the handle: only the destroy is tried there */
    if (s && s->self_block)
        self_block(s, ev->type == GROUPCONC_EVENT_SUBMITTED ? NULL : atomic_load(&s->hx), groupconc_event_type_name(ev->type),
                   A_SELF_EVENT);
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
        atomic_fetch_add(&F.ev_done[r->status], 1);
        if (r->status == GROUPCONC_STATUS_REJECTED)
            atomic_fetch_add(r->reason == GROUPCONC_EREJECTED_GLOBAL       ? &F.ev_rej_global
                             : r->reason == GROUPCONC_EREJECTED_BULKHEAD     ? &F.ev_rej_bulkhead
                             : r->reason == GROUPCONC_EREJECTED_CONCURRENCY ? &F.ev_rej_concurrency
                                                                             : &F.ev_rej_other,
                             1);
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
                int rc = fz_code(groupconc_task_cancel(h, &o));
                FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ERELEASED, "cancel in listener: %s", groupconc_errname(rc));
                if (rc == GROUPCONC_OK) {
                    name_outcome(o);
                    atomic_store(&s->listener_cancel, 1 + (int)o);
                }
            }
        }
        break;
    default: fz_fail("event type %d", (int)ev->type);
    }
}

/* Decides per s->decision; the outcome is checked by check_decided (from check_result and
   op_exec_all), the executor's totals by check_stats. */
static void fz_reject_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    FZ_CHECK(user_data == &F && rj && out && rj->executor == F.ex && rj->fn == fz_task, "rejection handler arguments");
    slot *s = rj->arg;
    FZ_CHECK(s >= F.slots && s < F.slots + F.nslots, "rejection handler: unknown arg");
    FZ_CHECK(strcmp(rj->group, group_names[s->group]) == 0, "rejection handler: group");
    FZ_CHECK(s->named ? rj->task_id && strcmp(rj->task_id, s->id) == 0 : rj->task_id == NULL, "rejection handler %s: task id", s->id);
    FZ_CHECK(rj->cleanup == (s->has_cleanup ? fz_cleanup : NULL), "rejection handler %s: cleanup", s->id);
    FZ_CHECK(is_layer_code(fz_code(rj->reason)), "rejection handler reason %s", groupconc_errname(rj->reason));
    if (rj->in_submit) FZ_CHECK(tl_fuzzer_thread, "in_submit rejection not on the submitting thread");
    FZ_CHECK(atomic_load(&s->runs) == 0, "rejection handler for task %s that ran", s->id);
    FZ_CHECK(atomic_load(&s->cleanups) == 0, "rejection handler for task %s after its cleanup ran", s->id);
    FZ_CHECK(out->status == GROUPCONC_STATUS_REJECTED && out->value == NULL && out->error == 0 && !out->arg_taken,
             "rejection handler %s: *out not pre-filled {REJECTED, NULL, 0, false}", s->id);
    FZ_CHECK(atomic_fetch_add(&s->handler_calls, 1) == 0, "rejection handler called twice for %s", s->id);
    atomic_store(&s->rj_reason, rj->reason);
    if (!rj->in_submit) atomic_fetch_add(&acounters[A_HANDLER_LATER], 1);
    if (s->self_block) self_block(s, rj->in_submit ? NULL : atomic_load(&s->hx), "rejection handler", A_SELF_HANDLER);
    void *value = &handler_values[s->idx];
    switch (s->decision) {
    case D_DEFAULT: break;
    case D_SUCCESS: *out = (groupconc_reject_result){GROUPCONC_STATUS_SUCCESS, value, 77, false}; break; /* error ignored */
    case D_FAILED: *out = (groupconc_reject_result){GROUPCONC_STATUS_FAILED, value, HANDLER_FAILURE(s), false}; break;
    case D_CANCELLED: *out = (groupconc_reject_result){GROUPCONC_STATUS_CANCELLED, value, 77, false}; break;
    case D_REJECTED: *out = (groupconc_reject_result){GROUPCONC_STATUS_REJECTED, value, 77, false}; break;
    case D_PENDING: *out = (groupconc_reject_result){GROUPCONC_STATUS_PENDING, value, 77, false}; break;
    case D_BOGUS:
        name_status((groupconc_status)D_BOGUS_STATUS);
        *out = (groupconc_reject_result){(groupconc_status)D_BOGUS_STATUS, value, 77, false};
        break;
    case D_TAKE_SUCCESS: *out = (groupconc_reject_result){GROUPCONC_STATUS_SUCCESS, value, 0, true}; break;
    case D_TAKE_REJECTED: out->arg_taken = true; break;
    default: fz_fail("decision %d", s->decision);
    }
    /* arg_taken: the argument is the fuzzer's again, its bookkeeping releases it (the cleanup must not) */
    if (out->arg_taken) atomic_store(&s->taken, 1);
    atomic_fetch_add(&acounters[A_HANDLER_DEFAULT + s->decision], 1);
}

static void fz_on_complete(groupconc_task *task, const groupconc_result *r, void *user_data) {
    slot *s = user_data;
    FZ_CHECK(task == s->h, "completion callback for %s got another handle", s->id);
    FZ_CHECK(r && r->status >= GROUPCONC_STATUS_SUCCESS && r->status <= GROUPCONC_STATUS_REJECTED,
             "completion callback status");
    name_status(r->status);
    fz_code(r->reason);
    if (s->self_block) {
        /* the task is done: a wait on it returns at once, with the same result */
        groupconc_result again;
        int rc = fz_code(groupconc_task_wait_for(task, self_timeouts[s->self_timeout], &again));
        FZ_CHECK(rc == GROUPCONC_OK || (rc == GROUPCONC_ERELEASED && atomic_load(&s->release_started)),
                 "task %s: wait_for on its own handle in its completion callback: %s", s->id, groupconc_errname(rc));
        if (rc == GROUPCONC_OK)
            FZ_CHECK(again.status == r->status && again.value == r->value && again.error == r->error &&
                         again.reason == r->reason && again.start_ns == r->start_ns && again.end_ns == r->end_ns,
                     "task %s: wait_for in its completion callback gave another result", s->id);
        /* also in a callback that groupconc_task_on_complete runs at once (the task was already
           done): it is a callback of the executor too */
        if (tl_registering) atomic_fetch_add(&acounters[A_SELF_AT_ONCE], 1);
        rc = fz_code(groupconc_executor_destroy(F.ex));
        FZ_CHECK(rc == GROUPCONC_EDEADLK, "task %s: destroy from its completion callback returned %s, want GROUPCONC_EDEADLK",
                 s->id, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SELF_CALLBACK], 1);
    }
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
    FZ_CHECK(!atomic_load(&s->taken), "task %s: cleanup ran although the rejection handler took the argument", s->id);
    if (s->self_block) self_block(s, atomic_load(&s->hx), "cleanup", A_SELF_CLEANUP);
    atomic_fetch_add(&s->cleanups, 1);
}

/* ==== checks ===================================================================================== */

/* The cleanup of a finished accepted task ran exactly once, unless the rejection handler took the
   argument (then never: the fuzzer's bookkeeping released it). */
static void check_cleanup(slot *s, const char *when) {
    if (!s->has_cleanup) return;
    int c = atomic_load(&s->cleanups), t = atomic_load(&s->taken);
    FZ_CHECK(t ? c == 0 : c == 1, "task %s %s: %d cleanups (argument %s by the rejection handler)", s->id, when, c,
             t ? "taken" : "not taken");
}

/* A result decided by the rejection handler (it ran for s): what s->decision asked for. */
static void check_decided(slot *s, const groupconc_result *r, const char *what) {
    groupconc_status want = decided_status(s->decision);
    int rj_reason = atomic_load(&s->rj_reason);
    FZ_CHECK(r->status == want, "%s %s: handler decided %d, final status %s (want %s)", what, s->id, s->decision,
             groupconc_status_name(r->status), groupconc_status_name(want));
    FZ_CHECK(atomic_load(&s->runs) == 0, "%s %s: ran after the handler decided", what, s->id);
    FZ_CHECK(atomic_load(&s->taken) == (s->decision == D_TAKE_SUCCESS || s->decision == D_TAKE_REJECTED),
             "%s %s: arg_taken bookkeeping", what, s->id);
    switch (want) {
    case GROUPCONC_STATUS_SUCCESS:
        FZ_CHECK(r->value == &handler_values[s->idx] && r->error == 0 && r->reason == 0,
                 "%s %s: handler SUCCESS gave value %p error %d reason %s", what, s->id, r->value, r->error,
                 groupconc_errname(r->reason));
        break;
    case GROUPCONC_STATUS_FAILED:
        FZ_CHECK(r->value == &handler_values[s->idx] && r->error == HANDLER_FAILURE(s) && r->reason == 0,
                 "%s %s: handler FAILED gave value %p error %d reason %s", what, s->id, r->value, r->error,
                 groupconc_errname(r->reason));
        break;
    case GROUPCONC_STATUS_CANCELLED:
        FZ_CHECK(r->error == 0 && r->reason == GROUPCONC_ECANCELLED, "%s %s: handler CANCELLED gave error %d reason %s", what,
                 s->id, r->error, groupconc_errname(r->reason));
        break;
    default:
        FZ_CHECK(r->error == 0 && r->reason == rj_reason && r->start_ns == r->end_ns,
                 "%s %s: handler left REJECTED, gave error %d reason %s (handler saw %s)", what, s->id, r->error,
                 groupconc_errname(r->reason), groupconc_errname(rj_reason));
    }
}

static void check_result(slot *s, const groupconc_result *r) {
    check_cleanup(s, "done");
    name_status(r->status);
    fz_code(r->reason);
    FZ_CHECK(r->group && strcmp(r->group, group_names[s->group]) == 0, "task %s: result group", s->id);
    if (s->named) FZ_CHECK(r->task_id && strcmp(r->task_id, s->id) == 0, "task %s: result task id", s->id);
    else FZ_CHECK(r->task_id == NULL, "task %s: result task id should be NULL", s->id);
    FZ_CHECK(r->end_ns >= r->start_ns, "task %s: end before start", s->id);
    if (s->named && F.listener_on)
        FZ_CHECK(atomic_load(&s->ev_completed) == 1, "task %s: handle done before its COMPLETED event", s->id);
    int runs = atomic_load(&s->runs);
    bool decided = atomic_load(&s->handler_calls) != 0;
    if (decided) check_decided(s, r, "task");
    else if (F.rejection == 3)
        FZ_CHECK(r->status != GROUPCONC_STATUS_REJECTED, "task %s: REJECTED under a rejection handler that never ran for it", s->id);
    switch (decided ? GROUPCONC_STATUS_PENDING : r->status) {
    case GROUPCONC_STATUS_PENDING: break; /* decided by the handler: checked above */
    case GROUPCONC_STATUS_SUCCESS:
        FZ_CHECK(runs == 1 && atomic_load(&s->finished) && atomic_load(&s->ret) == 0, "task %s: SUCCESS without a successful run", s->id);
        FZ_CHECK(r->value == s && r->error == 0 && r->reason == 0, "task %s: SUCCESS value/error/reason", s->id);
        break;
    case GROUPCONC_STATUS_FAILED:
        FZ_CHECK(runs == 1 && atomic_load(&s->ret) == TASK_FAILURE && r->error == TASK_FAILURE && r->reason == 0,
                 "task %s: FAILED without a failed run (error %d, reason %s)", s->id, r->error, groupconc_errname(r->reason));
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
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &es)) == GROUPCONC_OK, "executor_stats failed");
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
    FZ_CHECK(es.completed == es.succeeded + es.failed + es.cancelled + es.rejected_global + es.rejected_bulkhead +
                                 es.rejected_concurrency + es.rejected_other,
             "executor completed %llu is not the sum of its outcomes", (unsigned long long)es.completed);
    if (all_quiet) {
        FZ_CHECK(es.running == 0 && es.ready == 0 && es.waiting == 0 && es.global_in_flight == 0,
                 "after everything finished: running %zu ready %zu waiting %zu global in-flight %zu", es.running, es.ready,
                 es.waiting, es.global_in_flight);
        /* every task is done, every event has run: the totals are the COMPLETED events by final status
           (a rejection handler's decision included) and the SUBMITTED events */
        if (F.listener_on) {
            unsigned long long want[9] = {
                (unsigned)atomic_load(&F.ev_count[GROUPCONC_EVENT_SUBMITTED]),
                (unsigned)atomic_load(&F.ev_count[GROUPCONC_EVENT_COMPLETED]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_SUCCESS]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_FAILED]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_CANCELLED]),
                (unsigned)atomic_load(&F.ev_rej_global),
                (unsigned)atomic_load(&F.ev_rej_bulkhead),
                (unsigned)atomic_load(&F.ev_rej_concurrency),
                (unsigned)atomic_load(&F.ev_rej_other)};
            unsigned long long got[9] = {es.submitted,       es.completed,       es.succeeded,
                                         es.failed,          es.cancelled,       es.rejected_global,
                                         es.rejected_bulkhead, es.rejected_concurrency, es.rejected_other};
            static const char *const what[9] = {"submitted", "completed", "succeeded", "failed", "cancelled",
                                                "rejected_global", "rejected_bulkhead", "rejected_concurrency",
                                                "rejected_other"};
            for (int i = 0; i < 9; i++)
                FZ_CHECK(got[i] == want[i], "all quiet: executor %s = %llu, events say %llu (policy %d)", what[i], got[i],
                         want[i], F.rejection);
            atomic_fetch_add(&acounters[A_QUIET_TOTALS], 1);
        }
    }
    size_t found = 0;
    for (int g = 0; g < NG; g++) {
        groupconc_group_stats gs;
        int rc = fz_code(groupconc_group_stats_get(F.ex, group_names[g], &gs));
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
    OP_EXEC_ALL, OP_SHUTDOWN, OP_GRACEFUL, OP_OOM, OP_THREAD_FAIL, OP_WAIT_LONG, OP_POLICY, OP_SELF_BLOCK, OP_COUNT
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

/* b1: group % NG, behaviour / NG % B_COUNT, the handler's decision / 30 (D_*); b2: latch (bit 0), no
   handle (bits 1-2 both set), anonymous (bits 3-5 all set), completion callback (bit 6), cleanup (bit 7);
   OP_SELF_BLOCK: b3 % 4 picks self_timeouts */
static void op_submit(reader *r, bool self_block) {
    unsigned b1 = rd(r), b2 = rd(r);
    int group = (int)(b1 % NG);
    int beh = (int)((b1 / NG) % B_COUNT);
    bool handle = (b2 & 6u) != 6u;
    bool named = (b2 & 0x38u) != 0x38u;
    bool cb = (b2 & 0x40u) != 0;
    bool with_cleanup = (b2 & 0x80u) != 0;
    unsigned b3 = self_block ? rd(r) : 0u;
    slot *s = new_slot(group, beh, (int)(b2 & 1u), named);
    if (!s) return;
    s->decision = (int)(b1 / 30u) % D_COUNT;
    s->self_block = self_block;
    s->self_timeout = (int)(b3 % 4u);
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
        rc = fz_code(groupconc_submit_spec(F.ex, &spec, handle ? &h : NULL));
    } else {
        rc = fz_code(groupconc_submit(F.ex, group_names[group], named ? s->id : NULL, fz_task, s, handle ? &h : NULL));
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
                tl_registering = 1;
                int crc = fz_code(groupconc_task_on_complete(h, fz_on_complete, s));
                tl_registering = 0;
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
    int rc = fz_code(groupconc_submit(F.ex, b == 0 ? "" : b == 1 ? too_long_key : b == 2 ? NULL : "g0", NULL,
                              b == 3 ? NULL : fz_task, NULL, &h));
    FZ_CHECK(rc == want[b], "bad submit %u returned %s, want %s", b, groupconc_errname(rc), groupconc_errname(want[b]));
    FZ_CHECK(h == NULL, "bad submit set a handle");
}

static void op_cancel(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    groupconc_cancel_outcome o = (groupconc_cancel_outcome)99;
    int rc = fz_code(groupconc_task_cancel(s->h, &o));
    FZ_CHECK(rc == GROUPCONC_OK, "cancel: %s", groupconc_errname(rc));
    FZ_CHECK(o == GROUPCONC_CANCEL_DEQUEUED || o == GROUPCONC_CANCEL_FLAGGED || o == GROUPCONC_CANCEL_TOO_LATE,
             "cancel outcome %d", (int)o);
    name_outcome(o);
    if (o == GROUPCONC_CANCEL_TOO_LATE && !(s->cancel_seen & (1 << o))) s->runs_at_too_late = atomic_load(&s->runs);
    s->cancel_seen |= 1 << o;
    counters[o == GROUPCONC_CANCEL_DEQUEUED ? C_DEQUEUED : o == GROUPCONC_CANCEL_FLAGGED ? C_FLAGGED : C_TOO_LATE]++;
    /* DEQUEUED: completed CANCELLED before cancel returns. (TOO_LATE may be said a moment before the
       handle is marked done: checked at the end, where the task must not have run after it.) */
    if (o == GROUPCONC_CANCEL_DEQUEUED) {
        groupconc_result res;
        rc = fz_code(groupconc_task_wait_for(s->h, 0, &res));
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
    int rc = fz_code(groupconc_task_wait_for(s->h, timeouts[(b >> 6) & 3u], &res));
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "wait_for: %s", groupconc_errname(rc));
    if (rc == GROUPCONC_ETIMEDOUT) counters[C_WAIT_TIMEOUT]++;
    if (rc == GROUPCONC_OK) check_result(s, &res);
}

static void op_wait_long(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s || !latches_open()) return;
    groupconc_result res;
    int rc = fz_code(groupconc_task_wait_for(s->h, INT64_C(5000000000), &res));
    FZ_CHECK(rc == GROUPCONC_OK, "task %s not finished within 5 s with every latch open: %s", s->id, groupconc_errname(rc));
    check_result(s, &res);
}

static void op_is_done(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    bool done = false;
    FZ_CHECK(fz_code(groupconc_task_is_done(s->h, &done)) == GROUPCONC_OK, "is_done failed");
    if (done) {
        groupconc_result res;
        FZ_CHECK(fz_code(groupconc_task_wait_for(s->h, 0, &res)) == GROUPCONC_OK, "is_done true but wait_for(0) times out");
        check_result(s, &res);
    }
}

static void op_on_complete(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    long inj = atomic_load(&fz_injected);
    tl_registering = 1;
    int rc = fz_code(groupconc_task_on_complete(s->h, fz_on_complete, s));
    tl_registering = 0;
    check_nomem(rc, inj, "on_complete");
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOMEM, "on_complete: %s", groupconc_errname(rc));
    if (rc == GROUPCONC_OK) s->cb_registered++;
}

static void op_release(reader *r) {
    slot *s = pick_handle(rd(r));
    if (!s) return;
    atomic_store(&s->release_started, 1);
    int rc = fz_code(groupconc_task_release(s->h));
    FZ_CHECK(rc == GROUPCONC_OK, "release: %s", groupconc_errname(rc));
    s->released = true;
}

static void op_group(reader *r, bool evict) {
    int g = (int)(rd(r) % NG);
    int rc = fz_code(evict ? groupconc_group_evict(F.ex, group_names[g]) : groupconc_group_shutdown(F.ex, group_names[g]));
    FZ_CHECK(rc == GROUPCONC_OK, "%s(%s): %s", evict ? "groupconc_group_evict" : "groupconc_group_shutdown", group_names[g],
             groupconc_errname(rc));
    if (evict && F.gen[g] + 1 < MAX_GEN) F.gen[g]++;
    if (evict) counters[C_EVICT]++;
}

static void op_keys(void) {
    char **keys = NULL;
    size_t n = 0;
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_group_keys_get(F.ex, &keys, &n));
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
        sl[i]->decision = (b >> 4) ? (int)(((b >> 4) + i) % D_COUNT) : D_DEFAULT;
    }
    groupconc_result res[4];
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_execute_all(F.ex, specs, n, timeout, res));
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
        name_status(x->status);
        fz_code(x->reason);
        bool decided = atomic_load(&s->handler_calls) != 0;
        if (decided) check_decided(s, x, "execute_all");
        switch (decided ? GROUPCONC_STATUS_PENDING : x->status) {
        case GROUPCONC_STATUS_PENDING: break; /* decided by the handler: checked above */
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
        if (x->status != GROUPCONC_STATUS_REJECTED || decided) {
            FZ_CHECK(!s->named || !F.listener_on || atomic_load(&s->ev_completed) == 1, "execute_all %s returned before its COMPLETED event", s->id);
            check_cleanup(s, "returned by execute_all");
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

/* ---- OP_POLICY: groupconc_policy_check against the documented rules and groupconc_executor_create */

typedef struct want_problem {
    int code;
    char field[48];      /* "" for EDUPKEY (which pair is reported is not specified: checked apart) */
    const char *group;   /* for a table entry's limit */
    long long value;
    bool check_group, check_value;
} want_problem;

static bool cap_ok(int v) { return v >= 1 || v == UNL; }
static bool threshold_ok(int v) { return v >= 0 || v == UNL; }

static int want_bad(want_problem *w, int code, const char *field, const char *group, long long value, bool check_group,
                    bool check_value) {
    w->code = code;
    snprintf(w->field, sizeof w->field, "%s", field);
    w->group = group;
    w->value = value;
    w->check_group = check_group;
    w->check_value = check_value;
    return code;
}

/* The rules of groupconc_policy / groupconc_group_limits as the header states them, in the order
   groupconc_policy_check reports them: the limits, max_threads, keep_alive_ns, rejection, then the
   table in order (key, concurrency, max_in_flight, queue_threshold), then duplicate keys. */
static int model_policy(const groupconc_policy *p, want_problem *w) {
    char f[48];
    memset(w, 0, sizeof *w);
    if (p->default_concurrency < 1) return want_bad(w, GROUPCONC_ELIMIT, "default_concurrency", NULL, p->default_concurrency, true, true);
    if (!cap_ok(p->default_max_in_flight))
        return want_bad(w, GROUPCONC_ELIMIT, "default_max_in_flight", NULL, p->default_max_in_flight, true, true);
    if (!threshold_ok(p->default_queue_threshold))
        return want_bad(w, GROUPCONC_ELIMIT, "default_queue_threshold", NULL, p->default_queue_threshold, true, true);
    if (!cap_ok(p->global_max_in_flight))
        return want_bad(w, GROUPCONC_ELIMIT, "global_max_in_flight", NULL, p->global_max_in_flight, true, true);
    if (!threshold_ok(p->global_queue_threshold))
        return want_bad(w, GROUPCONC_ELIMIT, "global_queue_threshold", NULL, p->global_queue_threshold, true, true);
    if (p->max_threads < 1) return want_bad(w, GROUPCONC_ELIMIT, "max_threads", NULL, p->max_threads, true, true);
    if (p->keep_alive_ns < 0) return want_bad(w, GROUPCONC_ELIMIT, "keep_alive_ns", NULL, p->keep_alive_ns, true, true);
    if ((int)p->rejection < 0 || (int)p->rejection > 2)
        return want_bad(w, GROUPCONC_EPOLICY, "rejection", NULL, (int)p->rejection, true, true); /* the int it is */
    if (p->group_count > 0 && !p->groups) return want_bad(w, GROUPCONC_EINVAL, "groups", NULL, 0, true, true);
    for (size_t i = 0; i < p->group_count; i++) {
        const groupconc_group_limits *e = &p->groups[i];
        snprintf(f, sizeof f, "groups[%zu].group", i);
        if (!e->group) return want_bad(w, GROUPCONC_EINVAL, f, NULL, 0, false, true);
        if (!e->group[0]) return want_bad(w, GROUPCONC_EKEYEMPTY, f, NULL, 0, false, false);
        if (strlen(e->group) > GROUPCONC_MAX_KEY_LEN) return want_bad(w, GROUPCONC_EKEYTOOLONG, f, NULL, 0, false, false);
        snprintf(f, sizeof f, "groups[%zu].concurrency", i);
        if (e->concurrency < 1 && e->concurrency != GROUPCONC_DEFAULT)
            return want_bad(w, GROUPCONC_ELIMIT, f, e->group, e->concurrency, true, true);
        snprintf(f, sizeof f, "groups[%zu].max_in_flight", i);
        if (!cap_ok(e->max_in_flight) && e->max_in_flight != GROUPCONC_DEFAULT)
            return want_bad(w, GROUPCONC_ELIMIT, f, e->group, e->max_in_flight, true, true);
        snprintf(f, sizeof f, "groups[%zu].queue_threshold", i);
        if (!threshold_ok(e->queue_threshold) && e->queue_threshold != GROUPCONC_DEFAULT)
            return want_bad(w, GROUPCONC_ELIMIT, f, e->group, e->queue_threshold, true, true);
    }
    for (size_t i = 1; i < p->group_count; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->groups[i].group, p->groups[j].group) == 0) return want_bad(w, GROUPCONC_EDUPKEY, "", NULL, 0, false, false);
    return GROUPCONC_OK;
}

/* what policy_check filled in for p (rc is what it returned; not ENOMEM here) */
static void check_problem(const groupconc_policy *p, int rc, const groupconc_policy_problem *pr, const want_problem *w) {
    FZ_CHECK(rc == w->code && pr->code == rc, "policy_check returned %s (problem.code %s, field \"%.48s\"), the rules say %s (%s)",
             groupconc_errname(rc), groupconc_errname(pr->code), pr->field, groupconc_errname(w->code), w->field);
    FZ_CHECK(memchr(pr->field, 0, sizeof pr->field) && memchr(pr->message, 0, sizeof pr->message),
             "policy_check: field / message not NUL-terminated");
    if (rc == GROUPCONC_OK) {
        FZ_CHECK(pr->field[0] == 0 && pr->group == NULL, "policy_check OK but names field \"%s\"", pr->field);
        return;
    }
    FZ_CHECK(pr->field[0] && pr->message[0], "policy_check %s without a field or message", groupconc_errname(rc));
    if (rc == GROUPCONC_EDUPKEY) { /* "groups[j].group", the same key as groups[value], value < j */
        unsigned j = 0;
        char f[48] = "";
        if (sscanf(pr->field, "groups[%u]", &j) == 1) snprintf(f, sizeof f, "groups[%u].group", j);
        FZ_CHECK(strcmp(f, pr->field) == 0 && j < p->group_count &&
                     pr->value >= 0 && pr->value < (long long)j &&
                     strcmp(p->groups[j].group, p->groups[pr->value].group) == 0 && pr->group == p->groups[j].group,
                 "policy_check EDUPKEY: field \"%s\", value %lld, group %s", pr->field, pr->value, pr->group ? pr->group : "(null)");
        return;
    }
    FZ_CHECK(strcmp(pr->field, w->field) == 0, "policy_check %s names field \"%s\", the rules say \"%s\" (message \"%s\")",
             groupconc_errname(rc), pr->field, w->field, pr->message);
    if (w->check_group) FZ_CHECK(pr->group == w->group, "policy_check %s: group %p, want %p", w->field, (const void *)pr->group, (const void *)w->group);
    if (w->check_value) FZ_CHECK(pr->value == w->value, "policy_check %s: value %lld, want %lld", w->field, pr->value, w->value);
}

/* a: extra table entries a % 3, changes (a >> 2) % 4, policy NULL if (a >> 4) == 15; then two bytes
   per change: which field (m % 11) and its new value / entry (v) */
static void op_policy(reader *r) {
    static const int concs[6] = {0, 1, 3, -1, GROUPCONC_DEFAULT, INT32_MIN};
    static const int caps[7] = {0, 1, 5, UNL, GROUPCONC_DEFAULT, -3, INT32_MIN};
    static const int thrs[7] = {0, 4, UNL, GROUPCONC_DEFAULT, -3, INT32_MIN, INT32_MAX};
    static const int threads[5] = {0, 1, 3, -1, INT32_MIN};
    static const int64_t keeps[4] = {0, 5, -1, INT64_MIN};
    static const int rejections[6] = {0, 1, 2, 3, -1, 100};
    static const int e_vals[3][5] = {{GROUPCONC_DEFAULT, 0, -1, 2, INT32_MIN},
                                     {GROUPCONC_DEFAULT, UNL, 0, -3, 2},
                                     {GROUPCONC_DEFAULT, UNL, 0, -3, 5}};
    const char *const keys[7] = {NULL, "", too_long_key, group_names[5], "g0", "g1", "g4"};
    unsigned a = rd(r);
    groupconc_group_limits tab[4];
    size_t n = 0;
    for (size_t i = 0; i < F.table_len; i++) tab[n++] = F.table[i];
    if (a % 3u >= 1) tab[n++] = (groupconc_group_limits){"g2", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT};
    if (a % 3u >= 2) tab[n++] = (groupconc_group_limits){"g3", 1, UNL, 0};
    groupconc_policy q = F.policy;
    q.groups = n ? tab : NULL;
    q.group_count = n;
    for (unsigned k = (a >> 2) % 4u; k > 0; k--) {
        unsigned m = rd(r) % 11u, v = rd(r);
        switch (m) {
        case 0: q.default_concurrency = concs[v % 6u]; break;
        case 1: q.default_max_in_flight = caps[v % 7u]; break;
        case 2: q.default_queue_threshold = thrs[v % 7u]; break;
        case 3: q.global_max_in_flight = caps[v % 7u]; break;
        case 4: q.global_queue_threshold = thrs[v % 7u]; break;
        case 5: q.max_threads = threads[v % 5u]; break;
        case 6: q.keep_alive_ns = keeps[v % 4u]; break;
        case 7:
            q.rejection = (groupconc_rejection_policy)rejections[v % 6u];
            name_policy(q.rejection);
            break;
        case 8:
            if (v % 3u == 0) q.groups = NULL;
            else if (v % 3u == 1) q.group_count = 0;
            else q.groups = NULL, q.group_count = 1;
            break;
        case 9:
            if (n) tab[v % n].group = keys[(v / 4u) % 7u];
            break;
        default:
            if (n) {
                groupconc_group_limits *e = &tab[v % n];
                int val = e_vals[(v / 4u) % 3u][(v / 12u) % 5u];
                if ((v / 4u) % 3u == 0) e->concurrency = val;
                else if ((v / 4u) % 3u == 1) e->max_in_flight = val;
                else e->queue_threshold = val;
            }
            break;
        }
    }
    const groupconc_policy *qp = (a >> 4) == 15u ? NULL : &q;
    want_problem w;
    if (qp) model_policy(qp, &w);
    else want_bad(&w, GROUPCONC_EINVAL, "", NULL, 0, false, false);
    long inj = atomic_load(&fz_injected);
    groupconc_policy_problem pr;
    memset(&pr, 0x5A, sizeof pr);
    int rc_plain = fz_code(groupconc_policy_check(qp, NULL));
    int rc = fz_code(groupconc_policy_check(qp, &pr));
    groupconc_executor *ex2 = (groupconc_executor *)(void *)&F; /* must be set to NULL on failure */
    int rc_create = fz_code(groupconc_executor_create(qp, &ex2));
    bool nomem = rc_plain == GROUPCONC_ENOMEM || rc == GROUPCONC_ENOMEM || rc_create == GROUPCONC_ENOMEM;
    if (nomem) {
        FZ_CHECK(atomic_load(&fz_injected) > inj, "policy_check / create returned ENOMEM with no allocation failing");
        atomic_fetch_add(&acounters[A_POLICY_NOMEM], 1);
    }
    if (rc_plain != GROUPCONC_ENOMEM)
        FZ_CHECK(rc_plain == w.code, "policy_check(policy, NULL) returned %s, the rules say %s", groupconc_errname(rc_plain),
                 groupconc_errname(w.code));
    if (rc == GROUPCONC_ENOMEM) FZ_CHECK(pr.code == rc && pr.field[0], "policy_check ENOMEM: problem not filled");
    else if (qp) check_problem(qp, rc, &pr, &w);
    else FZ_CHECK(rc == GROUPCONC_EINVAL && pr.code == rc && pr.field[0], "policy_check(NULL): %s, field \"%.48s\"",
                  groupconc_errname(rc), pr.field);
    /* create validates the same way: the same code, an executor iff OK */
    if (rc_create != GROUPCONC_ENOMEM)
        FZ_CHECK(rc_create == w.code, "executor_create returned %s, policy_check (and the rules) %s", groupconc_errname(rc_create),
                 groupconc_errname(w.code));
    if (rc_create == GROUPCONC_OK) {
        FZ_CHECK(ex2 != NULL && ex2 != F.ex && ex2 != (groupconc_executor *)(void *)&F, "executor_create OK without an executor");
        int rc_d = fz_code(groupconc_executor_destroy(ex2));
        FZ_CHECK(rc_d == GROUPCONC_OK, "destroy of an unused executor: %s", groupconc_errname(rc_d));
        atomic_fetch_add(&acounters[A_POLICY_OK], 1);
    } else {
        FZ_CHECK(ex2 == NULL, "executor_create returned %s but left *out_executor set", groupconc_errname(rc_create));
        if (!nomem) atomic_fetch_add(&acounters[A_POLICY_BAD], 1);
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
    case OP_SUBMIT0: case OP_SUBMIT1: case OP_SUBMIT2: case OP_SUBMIT3: case OP_SUBMIT4: op_submit(r, false); break;
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
        rc = fz_code(groupconc_executor_shutdown(F.ex));
        FZ_CHECK(rc == GROUPCONC_OK, "shutdown: %s", groupconc_errname(rc));
        mark_swept();
        break;
    case OP_GRACEFUL: {
        static const int64_t timeouts[3] = {0, 200000, 2000000};
        rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, timeouts[rd(r) % 3u]));
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "shutdown_graceful: %s", groupconc_errname(rc));
        counters[rc == GROUPCONC_OK ? C_GRACEFUL_OK : C_GRACEFUL_TIMEOUT]++;
        mark_swept();
        if (rc == GROUPCONC_OK) check_stats(true); /* every task finished: every permit is back */
        break;
    }
    case OP_OOM: atomic_store(&fz_countdown, (long)(1 + rd(r) % 8u)); break;
    case OP_THREAD_FAIL: atomic_store(&fz_start_fail, (int)(rd(r) & 1u)); break;
    case OP_WAIT_LONG: op_wait_long(r); break;
    case OP_POLICY: op_policy(r); break;
    case OP_SELF_BLOCK: op_submit(r, true); break;
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
    F.table_len = nt;
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
    F.policy = *p;
    /* the decoded policy is valid: policy_check says so (and names nothing); create is checked next */
    groupconc_policy_problem pr;
    memset(&pr, 0x5A, sizeof pr);
    int rc = fz_code(groupconc_policy_check(p, &pr));
    FZ_CHECK(rc == GROUPCONC_OK && pr.code == GROUPCONC_OK && pr.field[0] == 0 && pr.group == NULL,
             "policy_check of the decoded policy: %s, field \"%.48s\"", groupconc_errname(rc), pr.field);
    FZ_CHECK(fz_code(groupconc_policy_check(p, NULL)) == GROUPCONC_OK, "policy_check(decoded policy, NULL)");
    name_policy(p->rejection);
    if (F.rejection < 3) name_policy((groupconc_rejection_policy)F.rejection);
    /* diagnostics that take no input from a call */
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", GROUPCONC_VERSION_MAJOR, GROUPCONC_VERSION_MINOR, GROUPCONC_VERSION_PATCH);
    const char *v = groupconc_version();
    FZ_CHECK(v && strcmp(v, GROUPCONC_VERSION_STRING) == 0 && strcmp(v, version) == 0, "groupconc_version \"%s\", header %s",
             v ? v : "(null)", GROUPCONC_VERSION_STRING);
    int not_codes[4] = {1, 0, INT32_MIN, INT32_MAX}; /* [1]: one below the lowest code */
    for (size_t i = 0; i < sizeof fz_codes / sizeof fz_codes[0]; i++)
        if (fz_codes[i].code - 1 < not_codes[1]) not_codes[1] = fz_codes[i].code - 1;
    for (int i = 0; i < 4; i++) {
        const char *name = groupconc_errname(not_codes[i]), *text = groupconc_strerror(not_codes[i]);
        FZ_CHECK(name && text && strcmp(name, "GROUPCONC_UNKNOWN") == 0 && strcmp(text, "unknown error code") == 0,
                 "errname / strerror of %d (no code): \"%s\" / \"%s\"", not_codes[i], name ? name : "(null)", text ? text : "(null)");
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
        rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, INT64_C(10000000000)));
        FZ_CHECK(rc == GROUPCONC_OK, "final shutdown_graceful with every latch open did not finish in 10 s: %s",
                 groupconc_errname(rc));
        mark_swept();
        check_stats(true);
        break;
    case 1:
        FZ_CHECK(fz_code(groupconc_executor_shutdown(F.ex)) == GROUPCONC_OK, "final shutdown");
        mark_swept();
        check_stats(false);
        break;
    case 2: break;
    default:
        rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, 0));
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "final shutdown_graceful(0): %s", groupconc_errname(rc));
        mark_swept();
        break;
    }
    rc = fz_code(groupconc_executor_destroy(F.ex));
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
        if (s->accepted) check_cleanup(s, "accepted, after destroy");
        else if (s->has_cleanup)
            FZ_CHECK(atomic_load(&s->cleanups) == 0 && atomic_load(&s->taken) == 0, "refused task %s: %d cleanups", s->id,
                     atomic_load(&s->cleanups));
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
            FZ_CHECK(fz_code(groupconc_task_is_done(s->h, &done)) == GROUPCONC_OK && done, "task %s not done after destroy", s->id);
            groupconc_result res;
            FZ_CHECK(fz_code(groupconc_task_wait(s->h, &res)) == GROUPCONC_OK, "wait after destroy");
            check_result(s, &res);
            FZ_CHECK(fz_code(groupconc_task_release(s->h)) == GROUPCONC_OK, "release after destroy");
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
    for (int i = 0; i < 4; i++) atomic_store(&F.ev_count[i], 0);
    for (int i = 0; i < 5; i++) atomic_store(&F.ev_done[i], 0);
    atomic_store(&F.ev_rej_global, 0);
    atomic_store(&F.ev_rej_bulkhead, 0);
    atomic_store(&F.ev_rej_concurrency, 0);
    atomic_store(&F.ev_rej_other, 0);
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
    int rc = fz_code(groupconc_executor_create(&p, &F.ex));
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
    for (int i = 0; i < A_COUNT; i++) printf("  %-40s %ld\n", acounter_names[i], atomic_load(&acounters[i]));
    return files == 0 && random_inputs == 0 ? 1 : 0;
}
#endif
