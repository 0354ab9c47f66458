/* fuzz_ops.c - libFuzzer target: random sequences of groupconc API calls, invariants after each.

   Build (run_fuzz.sh): clang -fsanitize=fuzzer,address,undefined ... fuzz_ops.c
   Replay (meson test 'fuzz_replay', any compiler): -DFUZZ_REPLAY_MAIN, then
       fuzz_ops_replay <file-or-dir>... [--random N]
   replays every file given (directories: every file in them), then N pseudo-random inputs.

   Input layout (every byte string is a valid input; missing bytes read as 0):
     8 header bytes, the policy:
       [0] default_concurrency 1 + b%3; the standalone gate's limit {1,2,3,UNL}[(b/3)%4]
                                              [1] default_max_in_flight {UNL,1,2,3}[b%4]
       [2] default_queue_threshold {UNL,0,1,2,4}[b%5]
       [3] global_max_in_flight {UNL,UNL,1,2,3,4}[b%6]   [4] global_queue_threshold {UNL,0,1,3}[b%4]
       [5] rejection: ABORT, DISCARD, CALLER_RUNS, custom handler [b%4]
       [6] max_threads 1 + b%4; keep_alive {0, 1 ms, 10 s}[(b>>2)%3]; bit4: no listener (the library
           takes other paths then; the checks that need events are skipped); bit5: no gate listener
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

   Admission gates (OP_GATE_*): every input has an executor gate on its executor (created after it,
   destroyed before it: groupconc_executor_destroy with the gate alive must return GROUPCONC_EBUSY and
   do nothing) and a standalone gate with the decoded limit (OP_GATE_RESET destroys and re-creates it
   with another, valid or not; destroy with permits out must say EBUSY). The fuzzer keeps every permit
   it was given (and copies of released ones). After every step: its count of held permits equals the
   gates' in_flight (whole gate, and per group of the executor gate: per group-state generation, as an
   evicted group's permits stay with its old state) and groupconc_group_stats / executor_stats
   gate_permits; a standalone gate never holds more than its limit; the gates' totals and the gate
   listener's ADMITTED / REJECTED / RELEASED events equal the fuzzer's acquires OK / refusals / releases
   OK. A standalone try-acquire is refused (EGATE_FULL) exactly when the fuzzer holds `limit` permits.
   An executor gate try-acquire returns ESHUTDOWN exactly after a shutdown; otherwise, when no task
   completed between the stats taken before and after it (nothing else moves permits then: submits
   are the fuzzer's), it is admitted exactly when groupconc_gate_stats_get said available > 0 just
   before, and a refusal names the first layer of the group that is full or has waiters (group /
   executor stats right after). Gate permits and deferred tasks are counted with the running bodies
   against the caps (under one mutex, so the sum never over-counts): group concurrency and in-flight,
   global in-flight. Releasing a stale copy, a re-released or forged permit or the empty permit must
   return GROUPCONC_EPERMIT (NULL or an unknown kind: EINVAL) and change nothing; racing releases of
   one permit from two threads: exactly one returns OK. At the end every permit is released (before
   the final graceful shutdown: a held permit keeps queued tasks from running) and in_flight is 0.

   Deferred completion (OP_SUBMIT_DEFER, OP_DEFER_COMPLETE): a submit (as OP_SUBMIT*, plus a byte
   picking the body variant) whose body, after its behaviour, calls groupconc_context_defer and
   returns GROUPCONC_TASK_PENDING, handing the groupconc_deferred to the fuzzer ("parked"); or
   completes it itself before returning; or defers and returns something else (the handle is void);
   or returns GROUPCONC_TASK_PENDING without deferring (FAILED, error GROUPCONC_TASK_PENDING). Under
   CALLER_RUNS inside submit groupconc_context_defer must say ESTATE (a second call always does).
   OP_DEFER_COMPLETE completes a parked one with rc 0 / GROUPCONC_TASK_CANCELLED / another code (first
   GROUPCONC_TASK_PENDING, which must be refused with EINVAL), on the fuzzer thread or a short-lived
   one (optionally racing a cancel). The task's status / value / error must follow the delivered rc,
   its cleanup must run once and only after the completion, it counts as running (group and executor
   stats) until completed, a cancel of it says FLAGGED and groupconc_deferred_is_cancelled turns true
   (so does a group shutdown / evict / executor shutdown), and it is never true without a cancel
   request. A graceful shutdown cannot finish while one is parked. At the end every parked deferral is
   completed (bodies that defer later complete their own), so nothing hangs; waits that assume
   "every latch open => everything finishes" (OP_WAIT_LONG, execute_all without a deadline) are
   bounded while a permit is held or a deferral may be parked.

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

static const char *const fz_kind_names[] = {"SUCCESS", "FAILURE", "CANCELLED"};
static const char *const fz_gate_event_names[] = {"ADMITTED", "REJECTED", "RELEASED"};

static void name_status(groupconc_status v) { fz_name("status", (int)v, groupconc_status_name(v), fz_status_names, 5); }
static void name_outcome(groupconc_cancel_outcome v) {
    fz_name("cancel outcome", (int)v, groupconc_cancel_outcome_name(v), fz_outcome_names, 3);
}
static void name_event(groupconc_event_type v) { fz_name("event type", (int)v, groupconc_event_type_name(v), fz_event_names, 4); }
static void name_policy(groupconc_rejection_policy v) {
    fz_name("rejection policy", (int)v, groupconc_rejection_policy_name(v), fz_policy_names, 3);
}

static void name_kind(groupconc_release_kind v) {
    fz_name("release kind", (int)v, groupconc_release_kind_name(v), fz_kind_names, 3);
}
static void name_gate_event(groupconc_gate_event_type v) {
    fz_name("gate event type", (int)v, groupconc_gate_event_type_name(v), fz_gate_event_names, 3);
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

/* OP_SUBMIT_DEFER: what the body does after its behaviour (DM_NONE: an ordinary task) */
enum { DM_NONE, DM_PARK, DM_INLINE, DM_VOID, DM_NODEFER };
#define DEFER_FAILURE(s) (5000 + (s)->idx) /* a deferred task's "other" code */
static char defer_values[MAX_SLOTS];   /* a deferred task's value for slot i: &defer_values[i] */

/* the two gates; GX: the executor gate, GS: the standalone gate */
enum { GX, GS };
static int gate_ids[2] = {GX, GS};      /* the gate listener's user_data */
#define MAX_PERMITS (MAX_OPS + 8)
static const int gate_limits[4] = {1, 2, 3, GROUPCONC_UNLIMITED};

/* a permit the fuzzer was given: held until released; kept afterwards as a stale copy */
typedef struct prec {
    groupconc_permit p;
    int gate, group;   /* GX / GS; the group (GX) */
    unsigned gen;      /* the group-state generation it holds permits of (GX) */
    bool held, dead;   /* dead: its gate was destroyed (the copy must not be used any more) */
} prec;

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
    int defer_mode;               /* DM_*: OP_SUBMIT_DEFER's variant */
    bool defer_twice;             /* the body calls groupconc_context_defer twice (the second: ESTATE) */
    unsigned defer_choice;        /* what a body that completes its own deferral delivers (deliver()) */
    groupconc_deferred *dfr;      /* parked: the handle the body handed over (under F.mu) */
    bool dfr_pending;             /* parked and not completed yet (under F.mu) */
    atomic_int defer_live;        /* the body deferred: the task completes through deliver() */
    atomic_int defer_counted;     /* ... and holds permits (counted in H.defer_g while parked) */
    atomic_int delivered;         /* groupconc_deferred_complete was called for it */
    _Atomic(void *) dvalue;       /* the value delivered */
    atomic_int cancel_req;        /* a cancel was requested (cancel, group / executor shutdown) */
    atomic_int dfr_seen_cancelled; /* groupconc_deferred_is_cancelled said true once: it must stay so */
} slot;

static struct {
    groupconc_executor *ex;
    groupconc_group_limits table[2];
    int conc[NG], infl[NG], thr[NG]; /* the resolved limits the stats must report */
    int gcap, gthr, max_threads;
    int rejection;                   /* 0..2 policy, 3 = custom handler */
    unsigned gen[NG];
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
    /* gates */
    groupconc_gate *gate[2];
    int sgate_limit;                 /* GS's limit */
    bool gate_listener;
    prec permits[MAX_PERMITS];
    int npermits;
    long g_ok[2], g_refused[2], g_rel[2][3]; /* since the gate's creation */
    atomic_int gev[2][3];            /* gate listener events, by type */
    int gev_last_reason[2];          /* the last REJECTED event's reason */
    const char *gexp_group;          /* what the next gate event must name (set before each call) */
    int gexp_kind, gexp_error;
    bool auto_complete;              /* (under mu) the end: a body that defers completes its own */
} F;

/* Who holds a group's permits, by group-state generation: running bodies, executor-gate permits,
   parked deferred tasks. Each counts only while it holds them (a body from its start to its return,
   a permit from try-acquire's return to the release call, a deferral from the body's defer to the
   complete call), and the checks read all three under this mutex, so the sum never exceeds the
   holders and must stay within the caps. */
static struct {
    pthread_mutex_t mu;
    int run_g[NG][MAX_GEN], gate_g[NG][MAX_GEN], defer_g[NG][MAX_GEN];
    int run_total, gate_total, defer_total;
} H = {PTHREAD_MUTEX_INITIALIZER, {{0}}, {{0}}, {{0}}, 0, 0, 0};

static void hold_add(int which, int g, unsigned gen, int d) { /* which: 0 run, 1 gate, 2 defer */
    pthread_mutex_lock(&H.mu);
    int(*per)[MAX_GEN] = which == 0 ? H.run_g : which == 1 ? H.gate_g : H.defer_g;
    per[g][gen] += d;
    *(which == 0 ? &H.run_total : which == 1 ? &H.gate_total : &H.defer_total) += d;
    pthread_mutex_unlock(&H.mu);
}

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
       A_POLICY_BAD, A_POLICY_NOMEM, A_QUIET_TOTALS, A_HANDLER_LATER, A_GATE_OK, A_GATE_FULL, A_GATE_LAYER,
       A_GATE_SHUTDOWN, A_GATE_NOMEM, A_GATE_EXACT, A_GATE_RELEASED, A_GATE_REL_THREAD, A_GATE_RACE, A_GATE_BAD,
       A_GATE_BUSY, A_GATE_RESET, A_DEFER_PARKED, A_DEFER_INLINE, A_DEFER_VOID, A_DEFER_NODEFER, A_DEFER_ESTATE,
       A_DEFER_DONE, A_DEFER_THREAD, A_DEFER_RACE_CANCEL, A_DEFER_FLAGGED, A_DEFER_AUTO, A_COUNT };
static const char *const acounter_names[A_COUNT] = {
    "self-block: in the task body", "self-block: in a listener event", "self-block: in the rejection handler",
    "self-block: in the cleanup", "self-block: in a completion callback", "  of which ran at once (no destroy)",
    "self-block: a wait on its own handle", "handler: leaves REJECTED", "handler: SUCCESS", "handler: FAILED",
    "handler: CANCELLED", "handler: REJECTED", "handler: PENDING (not final)", "handler: status 99",
    "handler: arg_taken + SUCCESS", "handler: arg_taken + REJECTED", "policy variants valid (created)",
    "policy variants invalid", "policy variants hit ENOMEM", "totals = COMPLETED events (quiet points)",
    "handler: rejected after submit returned", "gate: admitted", "gate: EGATE_FULL (standalone)",
    "gate: refused by a layer", "gate: ESHUTDOWN", "gate: ENOMEM", "gate: acquires checked exactly (no completion)",
    "gate: permits released", "gate: released on another thread", "gate: racing releases (one OK)",
    "gate: bad releases refused", "gate: destroy with permits out (EBUSY)", "gate: standalone gate re-created",
    "defer: parked (returned PENDING)", "defer: completed in its own body", "defer: deferred, returned another code",
    "defer: PENDING without deferring", "defer: ESTATE (CALLER_RUNS in submit)", "defer: parked ones completed",
    "defer: completed on another thread", "defer: completion raced a cancel", "defer: seen flagged (is_cancelled)",
    "defer: completed by the body at the end"};
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

/* ---- deferred completion ---- */

/* Complete s's deferral d with what `choice` says (0 value / 0 NULL / CANCELLED / DEFER_FAILURE / -1 /
   first GROUPCONC_TASK_PENDING, which must be refused, then 0), on any thread. What the task's result
   must then be is recorded first (ret, dvalue, delivered): the cleanup may run inside the call. */
static void deliver(slot *s, groupconc_deferred *d, unsigned choice) {
    static const int rcs[6] = {0, 0, GROUPCONC_TASK_CANCELLED, -3, -1, 0};
    choice %= 6u;
    int rc = choice == 3 ? DEFER_FAILURE(s) : rcs[choice];
    void *value = choice == 1 || choice == 2 ? NULL : &defer_values[s->idx];
    if (choice == 5) {
        int e = fz_code(groupconc_deferred_complete(d, GROUPCONC_TASK_PENDING, value));
        FZ_CHECK(e == GROUPCONC_EINVAL, "task %s: groupconc_deferred_complete(GROUPCONC_TASK_PENDING) returned %s, want EINVAL",
                 s->id, groupconc_errname(e));
        FZ_CHECK(atomic_load(&s->cleanups) == 0, "task %s: cleanup ran after a refused complete", s->id);
    }
    atomic_store(&s->dvalue, value);
    atomic_store(&s->ret, rc);
    atomic_store(&s->delivered, 1);
    if (atomic_load(&s->defer_counted)) hold_add(2, s->group, s->gen, -1); /* before its permits go */
    int e = fz_code(groupconc_deferred_complete(d, rc, value));
    FZ_CHECK(e == GROUPCONC_OK, "task %s: groupconc_deferred_complete(%d): %s", s->id, rc, groupconc_errname(e));
}

/* groupconc_deferred_is_cancelled of s's handle d (not completed yet): never without a cancel request,
   and it stays true once it was */
static bool defer_flag(slot *s, groupconc_deferred *d) {
    bool c = groupconc_deferred_is_cancelled(d);
    FZ_CHECK(!c || atomic_load(&s->cancel_req), "task %s: groupconc_deferred_is_cancelled true, but nothing cancelled it", s->id);
    FZ_CHECK(c || !atomic_load(&s->dfr_seen_cancelled), "task %s: groupconc_deferred_is_cancelled went back to false", s->id);
    if (c) atomic_store(&s->dfr_seen_cancelled, 1);
    return c;
}

/* The end of an OP_SUBMIT_DEFER body (its behaviour returned rc; its running count is already down). */
static int defer_tail(groupconc_context *ctx, slot *s, int rc, bool no_permits, void **out_value) {
    *out_value = s;
    if (s->defer_mode == DM_NODEFER) { /* PENDING without a deferral: FAILED with that code */
        atomic_store(&s->ret, GROUPCONC_TASK_PENDING);
        atomic_store(&s->finished, 1);
        atomic_fetch_add(&acounters[A_DEFER_NODEFER], 1);
        return GROUPCONC_TASK_PENDING;
    }
    groupconc_deferred *d = (groupconc_deferred *)(void *)&F; /* must be set to NULL on failure */
    int e = fz_code(groupconc_context_defer(ctx, &d));
    if (tl_fuzzer_thread) { /* CALLER_RUNS inside submit: no worker to free */
        FZ_CHECK(e == GROUPCONC_ESTATE && d == NULL, "task %s: groupconc_context_defer in a CALLER_RUNS run inside submit: %s",
                 s->id, groupconc_errname(e));
        atomic_fetch_add(&acounters[A_DEFER_ESTATE], 1);
        atomic_store(&s->ret, rc);
        atomic_store(&s->finished, 1);
        return rc;
    }
    FZ_CHECK(e == GROUPCONC_OK && d != NULL, "task %s: groupconc_context_defer on a worker: %s", s->id, groupconc_errname(e));
    if (s->defer_twice) {
        groupconc_deferred *d2 = (groupconc_deferred *)(void *)&F;
        e = fz_code(groupconc_context_defer(ctx, &d2));
        FZ_CHECK(e == GROUPCONC_ESTATE && d2 == NULL, "task %s: a second groupconc_context_defer returned %s, want ESTATE", s->id,
                 groupconc_errname(e));
    }
    (void)defer_flag(s, d);
    if (s->defer_mode == DM_VOID) { /* returns something else: completes with it, d is void */
        atomic_store(&s->ret, rc);
        atomic_store(&s->finished, 1);
        atomic_fetch_add(&acounters[A_DEFER_VOID], 1);
        return rc;
    }
    atomic_store(&s->defer_live, 1);
    atomic_store(&s->ret, GROUPCONC_TASK_PENDING); /* until delivered */
    atomic_store(&s->finished, 1);
    if (s->defer_mode == DM_PARK) {
        if (!no_permits) {
            atomic_store(&s->defer_counted, 1);
            hold_add(2, s->group, s->gen, 1);
        }
        pthread_mutex_lock(&F.mu);
        bool park = !F.auto_complete;
        if (park) {
            s->dfr = d;
            s->dfr_pending = true;
        }
        pthread_mutex_unlock(&F.mu);
        atomic_fetch_add(&acounters[park ? A_DEFER_PARKED : A_DEFER_AUTO], 1);
        if (park) return GROUPCONC_TASK_PENDING; /* the fuzzer owns d now */
    } else {
        atomic_fetch_add(&acounters[A_DEFER_INLINE], 1);
    }
    deliver(s, d, s->defer_choice); /* before the body returns: its worker finishes the task */
    return GROUPCONC_TASK_PENDING;
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
        pthread_mutex_lock(&H.mu);
        int in_group = ++H.run_g[g_idx][s->gen], total = ++H.run_total;
        int gate_g = H.gate_g[g_idx][s->gen], defer_g = H.defer_g[g_idx][s->gen];
        int holders = total + H.gate_total + H.defer_total;
        pthread_mutex_unlock(&H.mu);
        atomic_store(&s->counted, 1);
        int cap = F.conc[g_idx];
        if (F.infl[g_idx] != UNL && F.infl[g_idx] < cap) cap = F.infl[g_idx];
        FZ_CHECK(in_group + gate_g + defer_g <= cap,
                 "group %s (generation %u): %d tasks running + %d gate permits + %d parked deferred tasks, cap %d "
                 "(concurrency %d, in-flight %d)",
                 group_names[g_idx], s->gen, in_group, gate_g, defer_g, cap, F.conc[g_idx], F.infl[g_idx]);
        FZ_CHECK(F.gcap == UNL || holders <= F.gcap,
                 "%d tasks running + gate permits + parked deferred tasks, global in-flight cap %d", holders, F.gcap);
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
    if (!no_permits) hold_add(0, s->group, s->gen, -1);
    if (s->defer_mode != DM_NONE) return defer_tail(ctx, s, rc, no_permits, out_value);
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
                atomic_store(&s->cancel_req, 1);
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
    /* MAX_SLOTS, not F.nslots: the fuzzer thread may be adding a slot now (its own is set up) */
    FZ_CHECK(s >= F.slots && s < F.slots + MAX_SLOTS, "rejection handler: unknown arg");
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
    /* MAX_SLOTS, not F.nslots: the fuzzer thread may be adding a slot now (its own is set up) */
    FZ_CHECK(s >= F.slots && s < F.slots + MAX_SLOTS, "cleanup: unknown arg");
    FZ_CHECK(atomic_load(&s->runs) == atomic_load(&s->finished), "task %s: cleanup while its body runs", s->id);
    FZ_CHECK(!atomic_load(&s->taken), "task %s: cleanup ran although the rejection handler took the argument", s->id);
    FZ_CHECK(!atomic_load(&s->defer_live) || atomic_load(&s->delivered), "task %s: cleanup before its deferred completion",
             s->id);
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
    bool delivered = atomic_load(&s->delivered) != 0;
    void *want_value = delivered ? atomic_load(&s->dvalue) : (void *)s;
    FZ_CHECK(!atomic_load(&s->defer_live) || delivered, "task %s: done, but its deferral was never completed", s->id);
    if (decided) check_decided(s, r, "task");
    else if (F.rejection == 3)
        FZ_CHECK(r->status != GROUPCONC_STATUS_REJECTED, "task %s: REJECTED under a rejection handler that never ran for it", s->id);
    switch (decided ? GROUPCONC_STATUS_PENDING : r->status) {
    case GROUPCONC_STATUS_PENDING: break; /* decided by the handler: checked above */
    case GROUPCONC_STATUS_SUCCESS:
        FZ_CHECK(runs == 1 && atomic_load(&s->finished) && atomic_load(&s->ret) == 0, "task %s: SUCCESS without a successful run%s",
                 s->id, delivered ? " (deferred)" : "");
        FZ_CHECK(r->value == want_value && r->error == 0 && r->reason == 0, "task %s: SUCCESS value %p (want %p) / error %d / reason %s",
                 s->id, r->value, want_value, r->error, groupconc_errname(r->reason));
        break;
    case GROUPCONC_STATUS_FAILED: {
        int ret = atomic_load(&s->ret);
        FZ_CHECK(runs == 1 && r->error == ret && r->reason == 0 &&
                     (s->defer_mode != DM_NONE ? ret != 0 && ret != GROUPCONC_TASK_CANCELLED : ret == TASK_FAILURE),
                 "task %s: FAILED without a failed run (error %d, returned / delivered %d, reason %s)", s->id, r->error, ret,
                 groupconc_errname(r->reason));
        if (delivered) FZ_CHECK(r->value == want_value, "task %s: deferred FAILED with value %p, delivered %p", s->id, r->value, want_value);
        break;
    }
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

/* ---- gate and deferral bookkeeping (fuzzer thread) ---- */

/* permits the fuzzer holds of gate w */
static size_t held_count(int w) {
    size_t n = 0;
    for (int i = 0; i < F.npermits; i++)
        if (F.permits[i].held && F.permits[i].gate == w) n++;
    return n;
}

/* executor-gate permits held in group g's current state */
static size_t held_cur(int g) {
    size_t n = 0;
    for (int i = 0; i < F.npermits; i++) {
        const prec *p = &F.permits[i];
        if (p->held && p->gate == GX && p->group == g && p->gen == F.gen[g]) n++;
    }
    return n;
}

/* parked deferrals of tasks holding permits: all, and per group's current state (only the fuzzer
   completes them, so between two calls the set only grows) */
static size_t parked_counted(size_t per_group[NG]) {
    size_t n = 0;
    if (per_group) memset(per_group, 0, NG * sizeof per_group[0]);
    pthread_mutex_lock(&F.mu);
    for (int i = 0; i < F.nslots; i++) {
        slot *s = &F.slots[i];
        if (!s->dfr_pending || !atomic_load(&s->defer_counted)) continue;
        n++;
        if (per_group && s->gen == F.gen[s->group]) per_group[s->group]++;
    }
    pthread_mutex_unlock(&F.mu);
    return n;
}

static size_t parked_total(void) {
    size_t n = 0;
    pthread_mutex_lock(&F.mu);
    for (int i = 0; i < F.nslots; i++) n += F.slots[i].dfr_pending;
    pthread_mutex_unlock(&F.mu);
    return n;
}

/* both gates' totals against the fuzzer's own counts and the gate listener's events */
static void check_gates(void) {
    for (int w = 0; w < 2; w++) {
        if (!F.gate[w]) continue;
        groupconc_gate_stats st;
        memset(&st, 0xA5, sizeof st);
        int rc = fz_code(groupconc_gate_stats_get(F.gate[w], NULL, &st));
        FZ_CHECK(rc == GROUPCONC_OK, "gate_stats(%s gate): %s", w == GX ? "executor" : "standalone", groupconc_errname(rc));
        size_t held = held_count(w);
        const char *what = w == GX ? "executor gate" : "standalone gate";
        FZ_CHECK(st.in_flight == held, "%s: in_flight %zu, the fuzzer holds %zu permits", what, st.in_flight, held);
        FZ_CHECK(st.admitted == (uint64_t)F.g_ok[w] && st.rejected == (uint64_t)F.g_refused[w],
                 "%s: admitted %llu rejected %llu, the fuzzer saw %ld OK and %ld refusals", what,
                 (unsigned long long)st.admitted, (unsigned long long)st.rejected, F.g_ok[w], F.g_refused[w]);
        FZ_CHECK(st.released_success == (uint64_t)F.g_rel[w][0] && st.released_failure == (uint64_t)F.g_rel[w][1] &&
                     st.released_cancelled == (uint64_t)F.g_rel[w][2],
                 "%s: released %llu/%llu/%llu, the fuzzer released %ld/%ld/%ld", what, (unsigned long long)st.released_success,
                 (unsigned long long)st.released_failure, (unsigned long long)st.released_cancelled, F.g_rel[w][0], F.g_rel[w][1],
                 F.g_rel[w][2]);
        if (w == GS) {
            FZ_CHECK(st.limit == F.sgate_limit, "standalone gate: limit %d, created with %d", st.limit, F.sgate_limit);
            FZ_CHECK(F.sgate_limit == UNL || held <= (size_t)F.sgate_limit, "standalone gate: %zu permits held, limit %d", held,
                     F.sgate_limit);
            FZ_CHECK(st.available == (F.sgate_limit == UNL ? UNL : F.sgate_limit - (int)held),
                     "standalone gate: available %d, limit %d, held %zu", st.available, F.sgate_limit, held);
        } else {
            FZ_CHECK(st.limit == UNL && st.available == UNL, "executor gate (whole): limit %d available %d, want UNLIMITED",
                     st.limit, st.available);
        }
        if (F.gate_listener) {
            long rel = F.g_rel[w][0] + F.g_rel[w][1] + F.g_rel[w][2];
            FZ_CHECK(atomic_load(&F.gev[w][GROUPCONC_GATE_ADMITTED]) == F.g_ok[w] &&
                         atomic_load(&F.gev[w][GROUPCONC_GATE_REJECTED]) == F.g_refused[w] &&
                         atomic_load(&F.gev[w][GROUPCONC_GATE_RELEASED]) == rel,
                     "%s listener: ADMITTED %d REJECTED %d RELEASED %d, the fuzzer saw %ld / %ld / %ld", what,
                     atomic_load(&F.gev[w][GROUPCONC_GATE_ADMITTED]), atomic_load(&F.gev[w][GROUPCONC_GATE_REJECTED]),
                     atomic_load(&F.gev[w][GROUPCONC_GATE_RELEASED]), F.g_ok[w], F.g_refused[w], rel);
        }
    }
}

/* the executor gate's view of group g, whose group stats said found / not found */
static void check_gate_group(int g, bool found, const groupconc_group_stats *gs) {
    if (!F.gate[GX]) return;
    groupconc_gate_stats st;
    memset(&st, 0xA5, sizeof st);
    int rc = fz_code(groupconc_gate_stats_get(F.gate[GX], group_names[g], &st));
    size_t held = held_cur(g);
    if (!found) {
        FZ_CHECK(rc == GROUPCONC_ENOTFOUND, "gate_stats(%s): %s, but group_stats says ENOTFOUND", group_names[g], groupconc_errname(rc));
        FZ_CHECK(held == 0, "group %s has no state, but the fuzzer holds %zu of its permits", group_names[g], held);
        return;
    }
    FZ_CHECK(rc == GROUPCONC_OK, "gate_stats(%s) of a known group: %s", group_names[g], groupconc_errname(rc));
    FZ_CHECK(st.in_flight == held && gs->gate_permits == held,
             "group %s: gate in_flight %zu, group gate_permits %zu, the fuzzer holds %zu", group_names[g], st.in_flight,
             gs->gate_permits, held);
    FZ_CHECK(st.limit == F.conc[g], "gate_stats(%s): limit %d, concurrency %d", group_names[g], st.limit, F.conc[g]);
    FZ_CHECK(st.available >= 0 && st.available <= F.conc[g], "gate_stats(%s): available %d, concurrency %d", group_names[g],
             st.available, F.conc[g]);
}

static void check_stats(bool all_quiet) {
    groupconc_executor_stats es;
    size_t parked_g[NG];
    size_t parked_lo = parked_counted(parked_g); /* before the stats: all of these are still parked */
    size_t gx = held_count(GX);
    memset(&es, 0xA5, sizeof es);
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &es)) == GROUPCONC_OK, "executor_stats failed");
    size_t parked_hi = parked_total(); /* after: every task parked at the stats is in here (also those the
                                           fuzzer cannot tell hold permits: anonymous under CALLER_RUNS) */
    FZ_CHECK(es.threads <= (size_t)F.max_threads, "%zu threads, max %d", es.threads, F.max_threads);
    FZ_CHECK(es.idle_threads <= es.threads, "idle threads %zu > threads %zu", es.idle_threads, es.threads);
    /* "running" counts what a worker took to run next too: up to GROUPCONC_BATCH_MAX per worker
       (what actually executes at once is checked against max_threads by the task bodies); and gate
       permits and parked deferred tasks, which hold no thread */
    FZ_CHECK(es.running <= es.threads * GROUPCONC_BATCH_MAX + gx + parked_hi,
             "running %zu > threads %zu x batch + %zu gate permits + %zu parked deferred tasks", es.running, es.threads, gx,
             parked_hi);
    FZ_CHECK(es.gate_permits == gx, "executor gate_permits %zu, the fuzzer holds %zu", es.gate_permits, gx);
    FZ_CHECK(es.running >= gx + parked_lo, "executor running %zu < %zu gate permits + %zu parked deferred tasks", es.running,
             gx, parked_lo);
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
        /* every task finished: only gate permits hold anything */
        FZ_CHECK(es.running == gx && es.ready == 0 && es.waiting == 0 && es.global_in_flight == gx,
                 "after every task finished: running %zu ready %zu waiting %zu global in-flight %zu (%zu gate permits held)",
                 es.running, es.ready, es.waiting, es.global_in_flight, gx);
        FZ_CHECK(parked_hi == 0, "every task finished, but %zu deferred tasks are parked", parked_hi);
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
        check_gate_group(g, rc != GROUPCONC_ENOTFOUND, &gs);
        if (rc == GROUPCONC_ENOTFOUND) continue;
        FZ_CHECK(rc == GROUPCONC_OK, "group_stats(%s): %s", group_names[g], groupconc_errname(rc));
        found++;
        size_t gheld = held_cur(g);
        FZ_CHECK(gs.running >= gheld + parked_g[g], "group %s: running %zu < %zu gate permits + %zu parked deferred tasks",
                 group_names[g], gs.running, gheld, parked_g[g]);
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
            FZ_CHECK(gs.running == gheld && gs.ready == 0 && waiting == 0 && gs.in_flight == gheld,
                     "group %s after every task finished: running %zu ready %zu waiting %zu in-flight %zu (%zu gate permits held)",
                     group_names[g], gs.running, gs.ready, waiting, gs.in_flight, gheld);
    }
    FZ_CHECK(found <= es.groups, "found %zu groups, stats say %zu", found, es.groups);
    check_gates();
}

/* rc of a call that documents no ENOMEM / may return ENOMEM only when a failure was injected */
static void check_nomem(int rc, long injected_before, const char *what) {
    if (rc == GROUPCONC_ENOMEM)
        FZ_CHECK(atomic_load(&fz_injected) > injected_before, "%s returned ENOMEM with no allocation failing", what);
}

/* ==== operations ================================================================================= */

/* a parked deferral: its task, its handle, what to deliver */
typedef struct dfr_job {
    slot *s;
    groupconc_deferred *d;
    unsigned choice;
} dfr_job;

static int parked_list(int g, dfr_job *out, bool take);
static void check_flagged(const dfr_job *list, int n, const char *by);
static void mark_cancel_requested(int g);
static bool blockers(void);

enum {
    OP_SUBMIT0, OP_SUBMIT1, OP_SUBMIT2, OP_SUBMIT3, OP_SUBMIT4, OP_BAD_SUBMIT, OP_CANCEL, OP_WAIT_FOR, OP_IS_DONE,
    OP_ON_COMPLETE, OP_RELEASE, OP_SHUTDOWN_GROUP, OP_EVICT, OP_STATS, OP_KEYS, OP_LATCH_OPEN, OP_LATCH_CLOSE,
    OP_EXEC_ALL, OP_SHUTDOWN, OP_GRACEFUL, OP_OOM, OP_THREAD_FAIL, OP_WAIT_LONG, OP_POLICY, OP_SELF_BLOCK,
    /* issue 13: admission gates, deferred completion (appended: the seeds' op bytes keep their meaning) */
    OP_GATE_ACQUIRE, OP_GATE_RELEASE, OP_GATE_BAD_RELEASE, OP_GATE_STATS, OP_GATE_RESET, OP_SUBMIT_DEFER, OP_DEFER_COMPLETE,
    OP_COUNT
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
   OP_SELF_BLOCK: b3 % 4 picks self_timeouts; OP_SUBMIT_DEFER: b3 % 8 the body variant (0-4 DM_PARK,
   5 DM_INLINE, 6 DM_VOID, 7 DM_NODEFER), bit 3 a second groupconc_context_defer, (b3 >> 4) % 6 what
   DM_INLINE delivers (deliver()) */
enum { SUB_PLAIN, SUB_SELF_BLOCK, SUB_DEFER };
static void op_submit(reader *r, int mode) {
    bool self_block = mode == SUB_SELF_BLOCK;
    unsigned b1 = rd(r), b2 = rd(r);
    int group = (int)(b1 % NG);
    int beh = (int)((b1 / NG) % B_COUNT);
    bool handle = (b2 & 6u) != 6u;
    bool named = (b2 & 0x38u) != 0x38u;
    bool cb = (b2 & 0x40u) != 0;
    bool with_cleanup = (b2 & 0x80u) != 0;
    unsigned b3 = mode != SUB_PLAIN ? rd(r) : 0u;
    slot *s = new_slot(group, beh, (int)(b2 & 1u), named);
    if (!s) return;
    if (mode == SUB_DEFER) {
        static const int modes[8] = {DM_PARK, DM_PARK, DM_PARK, DM_PARK, DM_PARK, DM_INLINE, DM_VOID, DM_NODEFER};
        s->defer_mode = modes[b3 % 8u];
        s->defer_twice = (b3 & 8u) != 0;
        s->defer_choice = (b3 >> 4) % 6u;
    }
    s->decision = (int)(b1 / 30u) % D_COUNT;
    s->self_block = self_block;
    s->self_timeout = self_block ? (int)(b3 % 4u) : 0;
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
    atomic_store(&s->cancel_req, 1);
    int rc = fz_code(groupconc_task_cancel(s->h, &o));
    FZ_CHECK(rc == GROUPCONC_OK, "cancel: %s", groupconc_errname(rc));
    FZ_CHECK(o == GROUPCONC_CANCEL_DEQUEUED || o == GROUPCONC_CANCEL_FLAGGED || o == GROUPCONC_CANCEL_TOO_LATE,
             "cancel outcome %d", (int)o);
    name_outcome(o);
    pthread_mutex_lock(&F.mu);
    bool parked = s->dfr_pending;
    dfr_job pj = {s, s->dfr, 0};
    pthread_mutex_unlock(&F.mu);
    if (parked) { /* a parked deferred task is running: flagged, and its deferral sees it */
        FZ_CHECK(o == GROUPCONC_CANCEL_FLAGGED, "cancel of parked deferred task %s said %s, want FLAGGED", s->id,
                 groupconc_cancel_outcome_name(o));
        check_flagged(&pj, 1, "a cancel that said FLAGGED");
    }
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
    if (blockers()) { /* a held permit or a parked deferral may keep it waiting: only a short look */
        int rc = fz_code(groupconc_task_wait_for(s->h, 1000000, &res));
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "wait_for: %s", groupconc_errname(rc));
        if (rc == GROUPCONC_OK) check_result(s, &res);
        return;
    }
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
    dfr_job parked[MAX_SLOTS];
    int np = parked_list(g, parked, false);
    mark_cancel_requested(g);
    int rc = fz_code(evict ? groupconc_group_evict(F.ex, group_names[g]) : groupconc_group_shutdown(F.ex, group_names[g]));
    FZ_CHECK(rc == GROUPCONC_OK, "%s(%s): %s", evict ? "groupconc_group_evict" : "groupconc_group_shutdown", group_names[g],
             groupconc_errname(rc));
    check_flagged(parked, np, evict ? "group evict" : "group shutdown");
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
    if (timeout == GROUPCONC_FOREVER && (!latches_open() || blockers())) timeout = 3000000;
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

/* ---- admission gates and deferred completion ---------------------------------------------------- */

static _Thread_local int tl_helper_thread; /* a short-lived thread of the fuzzer's (releases, completions) */

/* Gate listener: on the thread that acquired or released, with what that call asked for; it may call
   into the gate (a whole-gate snapshot here). Counts events by type (check_gates compares them). */
static void fz_gate_listener(const groupconc_gate_event *ev, void *user_data) {
    FZ_CHECK(user_data == &gate_ids[GX] || user_data == &gate_ids[GS], "gate listener user_data");
    int w = *(const int *)user_data;
    FZ_CHECK(ev && ev->gate == F.gate[w], "gate event for another gate");
    FZ_CHECK(tl_fuzzer_thread || tl_helper_thread, "gate event on a thread that neither acquired nor released");
    name_gate_event(ev->type);
    fz_code(ev->reason);
    if (w == GS) FZ_CHECK(ev->group == NULL, "standalone gate event names group \"%s\"", ev->group);
    else FZ_CHECK(ev->group && F.gexp_group && strcmp(ev->group, F.gexp_group) == 0, "executor gate event names group \"%s\", want %s",
                  ev->group ? ev->group : "(null)", F.gexp_group ? F.gexp_group : "(null)");
    switch (ev->type) {
    case GROUPCONC_GATE_ADMITTED: FZ_CHECK(ev->reason == 0, "ADMITTED gate event with reason %s", groupconc_errname(ev->reason)); break;
    case GROUPCONC_GATE_REJECTED:
        FZ_CHECK(w == GS ? ev->reason == GROUPCONC_EGATE_FULL : is_layer_code(ev->reason) || ev->reason == GROUPCONC_ESHUTDOWN,
                 "REJECTED gate event with reason %s", groupconc_errname(ev->reason));
        F.gev_last_reason[w] = ev->reason;
        break;
    case GROUPCONC_GATE_RELEASED:
        name_kind(ev->kind);
        FZ_CHECK(ev->reason == 0 && (int)ev->kind == F.gexp_kind && ev->error == F.gexp_error,
                 "RELEASED gate event: reason %s kind %d error %d, released with kind %d error %d", groupconc_errname(ev->reason),
                 (int)ev->kind, ev->error, F.gexp_kind, F.gexp_error);
        break;
    default: fz_fail("gate event type %d", (int)ev->type);
    }
    groupconc_gate_stats st;
    int rc = fz_code(groupconc_gate_stats_get(ev->gate, NULL, &st));
    FZ_CHECK(rc == GROUPCONC_OK, "gate_stats from the gate listener: %s", groupconc_errname(rc));
    if (ev->type == GROUPCONC_GATE_ADMITTED) FZ_CHECK(st.in_flight >= 1, "ADMITTED gate event, in_flight 0");
    atomic_fetch_add(&F.gev[w][ev->type], 1);
}

static bool permit_empty(const groupconc_permit *p) { return p->gate == NULL && p->slot == 0 && p->generation == 0; }

/* a held (or a released, not dead) permit record, from b */
static prec *pick_permit(unsigned b, bool held) {
    for (int k = 0; k < F.npermits; k++) {
        prec *p = &F.permits[((int)b + k) % F.npermits];
        if (p->held == held && !p->dead) return p;
    }
    return NULL;
}

/* what a refused or bad call must leave as it was: both gates' totals and the listener's counts */
typedef struct gate_snap {
    groupconc_gate_stats st[2];
    int ev[2][3];
} gate_snap;

static void gate_snapshot(gate_snap *x) {
    memset(x, 0, sizeof *x);
    for (int w = 0; w < 2; w++) {
        FZ_CHECK(fz_code(groupconc_gate_stats_get(F.gate[w], NULL, &x->st[w])) == GROUPCONC_OK, "gate_stats");
        for (int k = 0; k < 3; k++) x->ev[w][k] = atomic_load(&F.gev[w][k]);
    }
}

static void gate_unchanged(const gate_snap *a, const char *what) {
    gate_snap b;
    gate_snapshot(&b);
    for (int w = 0; w < 2; w++) {
        const groupconc_gate_stats *x = &a->st[w], *y = &b.st[w];
        FZ_CHECK(x->in_flight == y->in_flight && x->admitted == y->admitted && x->rejected == y->rejected &&
                     x->released_success == y->released_success && x->released_failure == y->released_failure &&
                     x->released_cancelled == y->released_cancelled && x->available == y->available,
                 "%s changed the %s gate's stats", what, w == GX ? "executor" : "standalone");
        for (int k = 0; k < 3; k++)
            FZ_CHECK(a->ev[w][k] == b.ev[w][k], "%s caused a gate listener event (type %d)", what, k);
    }
}

/* An executor-gate try-acquire for group g returned rc (not ENOMEM, executor running). e1: executor
   stats taken before (they admit the inbox; only the fuzzer submits, so nothing joins it after),
   before: the group's gate stats then (brc: OK or ENOTFOUND). If no task completed since e1, no
   permit moved but the one this call took: the decision must match the stats. */
static void gate_exact(int g, int rc, int brc, const groupconc_gate_stats *before, const groupconc_executor_stats *e1) {
    groupconc_group_stats gs[NG];
    bool found[NG];
    for (int k = 0; k < NG; k++) {
        int grc = fz_code(groupconc_group_stats_get(F.ex, group_names[k], &gs[k]));
        FZ_CHECK(grc == GROUPCONC_OK || grc == GROUPCONC_ENOTFOUND, "group_stats(%s): %s", group_names[k], groupconc_errname(grc));
        found[k] = grc == GROUPCONC_OK;
    }
    groupconc_executor_stats e3;
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &e3)) == GROUPCONC_OK, "executor_stats");
    /* a permit moves only with a completion (+1 succeeded / failed / cancelled, never taken back) */
    if (e1->succeeded != e3.succeeded || e1->failed != e3.failed || e1->cancelled != e3.cancelled ||
        e1->completed != e3.completed)
        return;
    atomic_fetch_add(&acounters[A_GATE_EXACT], 1);
    FZ_CHECK(found[g], "group %s has no state after a try-acquire that got to its layers (%s)", group_names[g], groupconc_errname(rc));
    if (brc == GROUPCONC_OK)
        FZ_CHECK((rc == GROUPCONC_OK) == (before->available != 0),
                 "group %s: gate_stats said available %d just before, try_acquire returned %s (nothing completed between)",
                 group_names[g], before->available, groupconc_errname(rc));
    const groupconc_group_stats *x = &gs[g];
    size_t wait_global = 0;
    for (int k = 0; k < NG; k++)
        if (found[k]) wait_global += gs[k].waiting_global;
    size_t used[3] = {e3.global_in_flight, x->in_flight, x->in_flight - x->waiting_concurrency};
    size_t waiters[3] = {wait_global, x->waiting_bulkhead, x->waiting_concurrency};
    int limit[3] = {F.gcap, F.infl[g], F.conc[g]};
    bool full[3];
    for (int l = 0; l < 3; l++) full[l] = waiters[l] > 0 || (limit[l] != UNL && used[l] >= (size_t)limit[l]);
    if (rc == GROUPCONC_OK) {
        for (int l = 0; l < 3; l++)
            FZ_CHECK(waiters[l] == 0 && (limit[l] == UNL || used[l] <= (size_t)limit[l]),
                     "group %s: gate permit admitted, layer %d now has %zu used (limit %d) and %zu tasks waiting", group_names[g],
                     l + 1, used[l], limit[l], waiters[l]);
        return;
    }
    int L = rc == GROUPCONC_EREJECTED_GLOBAL ? 0 : rc == GROUPCONC_EREJECTED_BULKHEAD ? 1 : 2;
    for (int l = 0; l <= L; l++)
        FZ_CHECK(full[l] == (l == L),
                 "group %s: try_acquire refused with %s, but layer %d has %zu used (limit %d) and %zu waiting (nothing completed)",
                 group_names[g], groupconc_errname(rc), l + 1, used[l], limit[l], waiters[l]);
}

/* b: the standalone gate if b % 4 == 3, else the executor gate for group (b >> 2) % NG */
static void op_gate_acquire(reader *r) {
    unsigned b = rd(r);
    int w = (b & 3u) == 3u ? GS : GX;
    int g = (int)((b >> 2) % NG);
    const char *key = w == GX ? group_names[g] : NULL;
    if (F.npermits >= MAX_PERMITS) return;
    groupconc_gate *gate = F.gate[w];
    size_t held_before = held_count(w);
    groupconc_executor_stats e1;
    groupconc_gate_stats before;
    int brc = GROUPCONC_ENOTFOUND;
    if (w == GX) {
        FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &e1)) == GROUPCONC_OK, "executor_stats");
        brc = fz_code(groupconc_gate_stats_get(gate, key, &before));
        FZ_CHECK(brc == GROUPCONC_OK || brc == GROUPCONC_ENOTFOUND, "gate_stats(%s): %s", key, groupconc_errname(brc));
    }
    int ev[3];
    for (int k = 0; k < 3; k++) ev[k] = atomic_load(&F.gev[w][k]);
    F.gexp_group = key;
    long inj = atomic_load(&fz_injected);
    groupconc_permit p;
    memset(&p, 0xA5, sizeof p);
    int rc = fz_code(groupconc_gate_try_acquire(gate, key, &p));
    check_nomem(rc, inj, "gate_try_acquire");
    if (rc == GROUPCONC_OK) {
        FZ_CHECK(p.gate == gate && (p.generation & 1u), "try_acquire OK: permit {%p, %u, %u}", (void *)p.gate, p.slot, p.generation);
        for (int i = 0; i < F.npermits; i++)
            FZ_CHECK(!(F.permits[i].held && F.permits[i].gate == w && F.permits[i].p.slot == p.slot),
                     "try_acquire gave slot %u, which a held permit has", p.slot);
    } else {
        FZ_CHECK(permit_empty(&p), "try_acquire returned %s, the permit is not the empty one", groupconc_errname(rc));
    }
    bool refused = rc != GROUPCONC_OK && rc != GROUPCONC_ENOMEM;
    if (F.gate_listener) {
        FZ_CHECK(atomic_load(&F.gev[w][GROUPCONC_GATE_ADMITTED]) == ev[0] + (rc == GROUPCONC_OK) &&
                     atomic_load(&F.gev[w][GROUPCONC_GATE_REJECTED]) == ev[1] + refused &&
                     atomic_load(&F.gev[w][GROUPCONC_GATE_RELEASED]) == ev[2],
                 "try_acquire %s: gate events do not follow", groupconc_errname(rc));
        if (refused) FZ_CHECK(F.gev_last_reason[w] == rc, "REJECTED gate event reason %s, try_acquire returned %s",
                              groupconc_errname(F.gev_last_reason[w]), groupconc_errname(rc));
    }
    if (w == GS) {
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_EGATE_FULL || rc == GROUPCONC_ENOMEM, "standalone try_acquire: %s",
                 groupconc_errname(rc));
        bool room = F.sgate_limit == UNL || held_before < (size_t)F.sgate_limit;
        if (rc != GROUPCONC_ENOMEM)
            FZ_CHECK((rc == GROUPCONC_OK) == room, "standalone gate (limit %d, %zu held): try_acquire returned %s", F.sgate_limit,
                     held_before, groupconc_errname(rc));
    } else if (F.shutdown_called) {
        FZ_CHECK(rc == GROUPCONC_ESHUTDOWN, "executor gate after shutdown: try_acquire returned %s", groupconc_errname(rc));
    } else {
        FZ_CHECK(rc == GROUPCONC_OK || is_layer_code(rc) || rc == GROUPCONC_ENOMEM, "executor gate try_acquire: %s",
                 groupconc_errname(rc));
        if (rc != GROUPCONC_ENOMEM) gate_exact(g, rc, brc, &before, &e1);
    }
    atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_GATE_OK : rc == GROUPCONC_EGATE_FULL ? A_GATE_FULL
                                : rc == GROUPCONC_ESHUTDOWN ? A_GATE_SHUTDOWN : rc == GROUPCONC_ENOMEM ? A_GATE_NOMEM
                                                                                                 : A_GATE_LAYER], 1);
    if (refused) F.g_refused[w]++;
    if (rc != GROUPCONC_OK) return;
    F.g_ok[w]++;
    F.permits[F.npermits++] = (prec){p, w, g, F.gen[g], true, false};
    if (w == GX) hold_add(1, g, F.gen[g], 1);
}

typedef struct rel_job {
    groupconc_permit p;
    groupconc_release_kind kind;
    int error, rc;
} rel_job;

static void *rel_thread(void *arg) {
    rel_job *j = arg;
    tl_helper_thread = 1;
    j->rc = fz_code(groupconc_permit_release(&j->p, j->kind, j->error));
    return NULL;
}

/* b1: which held permit, and the error code; b2 % 3: kind, (b2 / 3) % 4: on this thread (0, 1), on a
   short-lived thread (2), two threads racing with copies of it (3: exactly one OK) */
static void op_gate_release(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r);
    prec *rec = pick_permit(b1, true);
    if (!rec) return;
    groupconc_release_kind kind = (groupconc_release_kind)(b2 % 3u);
    int error = (int)(b1 * 2654435761u), how = (int)((b2 / 3u) % 4u), w = rec->gate;
    F.gexp_group = w == GX ? group_names[rec->group] : NULL;
    F.gexp_kind = (int)kind;
    F.gexp_error = error;
    rec->held = false; /* the fuzzer's counts go down before the permits do */
    if (w == GX) hold_add(1, rec->group, rec->gen, -1);
    rel_job j[2] = {{rec->p, kind, error, 99}, {rec->p, kind, error, 99}};
    pthread_t th[2];
    int started = 0;
    if (how >= 2) {
        for (; started < (how == 3 ? 2 : 1); started++)
            if (pthread_create(&th[started], NULL, rel_thread, &j[started]) != 0) break;
    }
    if (started == 0) j[0].rc = fz_code(groupconc_permit_release(&rec->p, kind, error));
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (started == 2) {
        FZ_CHECK((j[0].rc == GROUPCONC_OK && j[1].rc == GROUPCONC_EPERMIT) || (j[1].rc == GROUPCONC_OK && j[0].rc == GROUPCONC_EPERMIT),
                 "racing releases of one permit returned %s and %s (want one OK, one EPERMIT)", groupconc_errname(j[0].rc),
                 groupconc_errname(j[1].rc));
        atomic_fetch_add(&acounters[A_GATE_RACE], 1);
    } else {
        FZ_CHECK(j[0].rc == GROUPCONC_OK, "release of a held permit: %s", groupconc_errname(j[0].rc));
        if (started) atomic_fetch_add(&acounters[A_GATE_REL_THREAD], 1);
    }
    F.g_rel[w][kind]++;
    atomic_fetch_add(&acounters[A_GATE_RELEASED], 1);
}

/* b % 7: a released permit (its slot maybe held again by a newer one), the empty permit, a held one
   with another odd generation, with an even one, with a slot out of range (all EPERMIT), NULL, an
   unknown kind (EINVAL); b >> 3 picks the permit. Nothing may change. */
static void op_gate_bad_release(reader *r) {
    unsigned b = rd(r);
    gate_snap snap;
    gate_snapshot(&snap);
    groupconc_permit p = {NULL, 0, 0};
    groupconc_release_kind kind = GROUPCONC_RELEASE_SUCCESS;
    int want = GROUPCONC_EPERMIT;
    prec *held = pick_permit(b >> 3, true), *stale = pick_permit(b >> 3, false);
    switch (b % 7u) {
    case 0: if (stale) p = stale->p; break;
    case 1: break;
    case 2: if (held) p = held->p, p.generation += 2; break;
    case 3: if (held) p = held->p, p.generation += 1; break;
    case 4: if (held) p = held->p, p.slot += 1u << 30; break;
    case 5: want = GROUPCONC_EINVAL; break;
    default:
        if (held) p = held->p;
        kind = (groupconc_release_kind)((b & 8u) ? 3 : -1);
        want = GROUPCONC_EINVAL;
        name_kind(kind);
        break;
    }
    int rc = fz_code(groupconc_permit_release(b % 7u == 5 ? NULL : &p, kind, 7));
    FZ_CHECK(rc == want, "bad release %u returned %s, want %s", b % 7u, groupconc_errname(rc), groupconc_errname(want));
    gate_unchanged(&snap, "a refused release");
    atomic_fetch_add(&acounters[A_GATE_BAD], 1);
}

/* the documented codes of bad arguments to the gate calls (nothing may change); b % NG: a group */
static void op_gate_stats(reader *r) {
    const char *key = group_names[rd(r) % NG];
    gate_snap snap;
    gate_snapshot(&snap);
    groupconc_gate_stats st;
    groupconc_permit p;
    groupconc_gate *x;
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    static const struct { int gate; int key; int want; } st_cases[5] = {
        {-1, 0, GROUPCONC_EINVAL}, {GS, 1, GROUPCONC_EINVAL}, {GX, 2, GROUPCONC_EKEYEMPTY}, {GX, 3, GROUPCONC_EKEYTOOLONG},
        {GX, 4, GROUPCONC_EINVAL}};
    for (int i = 0; i < 5; i++) {
        const char *k = st_cases[i].key == 1 ? key : st_cases[i].key == 2 ? "" : st_cases[i].key == 3 ? too_long_key : NULL;
        groupconc_gate *gate = st_cases[i].gate < 0 ? NULL : F.gate[st_cases[i].gate];
        int rc = fz_code(groupconc_gate_stats_get(gate, k, st_cases[i].key == 4 ? NULL : &st));
        FZ_CHECK(rc == st_cases[i].want, "gate_stats bad case %d: %s, want %s", i, groupconc_errname(rc), groupconc_errname(st_cases[i].want));
    }
    static const struct { int gate; int key; int want; } acq_cases[6] = {
        {-1, 1, GROUPCONC_EINVAL}, {GX, 0, GROUPCONC_EINVAL}, {GS, 1, GROUPCONC_EINVAL}, {GX, 2, GROUPCONC_EKEYEMPTY},
        {GX, 3, GROUPCONC_EKEYTOOLONG}, {GX, 4, GROUPCONC_EINVAL}};
    for (int i = 0; i < 6; i++) {
        const char *k = acq_cases[i].key == 1 || acq_cases[i].key == 4 ? key : acq_cases[i].key == 2 ? "" : acq_cases[i].key == 3 ? too_long_key : NULL;
        groupconc_gate *gate = acq_cases[i].gate < 0 ? NULL : F.gate[acq_cases[i].gate];
        memset(&p, 0xA5, sizeof p);
        int rc = fz_code(groupconc_gate_try_acquire(gate, k, acq_cases[i].key == 4 ? NULL : &p));
        FZ_CHECK(rc == acq_cases[i].want, "try_acquire bad case %d: %s, want %s", i, groupconc_errname(rc),
                 groupconc_errname(acq_cases[i].want));
        if (acq_cases[i].key != 4) FZ_CHECK(permit_empty(&p), "try_acquire bad case %d: the permit is not the empty one", i);
    }
    x = (groupconc_gate *)(void *)&F;
    FZ_CHECK(fz_code(groupconc_gate_create(NULL, &x)) == GROUPCONC_EINVAL && x == NULL, "gate_create(NULL config)");
    FZ_CHECK(fz_code(groupconc_gate_create(&c, NULL)) == GROUPCONC_EINVAL, "gate_create(NULL out)");
    FZ_CHECK(fz_code(groupconc_gate_destroy(NULL)) == GROUPCONC_EINVAL, "gate_destroy(NULL)");
    FZ_CHECK(fz_code(groupconc_deferred_complete(NULL, 0, NULL)) == GROUPCONC_EINVAL, "deferred_complete(NULL)");
    FZ_CHECK(!groupconc_deferred_is_cancelled(NULL), "deferred_is_cancelled(NULL)");
    FZ_CHECK(fz_code(groupconc_context_defer(NULL, &(groupconc_deferred *){NULL})) == GROUPCONC_EINVAL, "context_defer(NULL)");
    for (int v = -1; v <= 3; v++) {
        name_kind((groupconc_release_kind)v);
        name_gate_event((groupconc_gate_event_type)v);
    }
    gate_unchanged(&snap, "bad gate arguments");
}

/* b % 6: the standalone gate's new limit {1, 2, 3, UNL, 0, -5} (the last two: ELIMIT, then
   gate_limits[(b >> 3) % 4]); bit 6: a second executor gate with limit 2 (ELIMIT), else 0 (OK, or
   ESHUTDOWN after a shutdown; destroyed at once). A gate with permits out: destroy says EBUSY. */
static void op_gate_reset(reader *r) {
    static const int limits[6] = {1, 2, 3, UNL, 0, -5};
    unsigned b = rd(r);
    int lim = limits[b % 6u], rc;
    long inj = atomic_load(&fz_injected);
    if (held_count(GX) > 0) {
        rc = fz_code(groupconc_gate_destroy(F.gate[GX]));
        FZ_CHECK(rc == GROUPCONC_EBUSY, "destroy of the executor gate with %zu permits out: %s", held_count(GX), groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_GATE_BUSY], 1);
    }
    groupconc_gate_config c;
    memset(&c, 0, sizeof c);
    c.executor = F.ex;
    c.limit = (b & 0x40u) ? 2 : 0;
    groupconc_gate *x = (groupconc_gate *)(void *)&F;
    rc = fz_code(groupconc_gate_create(&c, &x));
    check_nomem(rc, inj, "gate_create");
    int want = c.limit ? GROUPCONC_ELIMIT : F.shutdown_called ? GROUPCONC_ESHUTDOWN : GROUPCONC_OK;
    FZ_CHECK(rc == want || rc == GROUPCONC_ENOMEM, "second executor gate (limit %d): %s, want %s", c.limit, groupconc_errname(rc),
             groupconc_errname(want));
    if (rc == GROUPCONC_OK) {
        FZ_CHECK(x && x != F.gate[GX], "gate_create OK without a gate");
        FZ_CHECK(fz_code(groupconc_gate_destroy(x)) == GROUPCONC_OK, "destroy of an unused executor gate");
    } else {
        FZ_CHECK(x == NULL, "gate_create returned %s but set the gate", groupconc_errname(rc));
    }
    if (held_count(GS) > 0) {
        rc = fz_code(groupconc_gate_destroy(F.gate[GS]));
        FZ_CHECK(rc == GROUPCONC_EBUSY, "destroy of the standalone gate with %zu permits out: %s", held_count(GS), groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_GATE_BUSY], 1);
        return;
    }
    rc = fz_code(groupconc_gate_destroy(F.gate[GS]));
    FZ_CHECK(rc == GROUPCONC_OK, "destroy of the standalone gate with no permit out: %s", groupconc_errname(rc));
    F.gate[GS] = NULL;
    for (int i = 0; i < F.npermits; i++)
        if (F.permits[i].gate == GS) F.permits[i].dead = true;
    F.g_ok[GS] = F.g_refused[GS] = 0;
    for (int k = 0; k < 3; k++) {
        F.g_rel[GS][k] = 0;
        atomic_store(&F.gev[GS][k], 0);
    }
    memset(&c, 0, sizeof c);
    if (F.gate_listener) {
        c.listener = fz_gate_listener;
        c.listener_user_data = &gate_ids[GS];
    }
    for (;;) {
        c.limit = lim;
        x = (groupconc_gate *)(void *)&F;
        inj = atomic_load(&fz_injected);
        rc = fz_code(groupconc_gate_create(&c, &x));
        check_nomem(rc, inj, "gate_create");
        bool valid = lim >= 1 || lim == UNL;
        FZ_CHECK(rc == (valid ? GROUPCONC_OK : GROUPCONC_ELIMIT) || rc == GROUPCONC_ENOMEM, "standalone gate_create(limit %d): %s",
                 lim, groupconc_errname(rc));
        if (rc == GROUPCONC_OK) break;
        FZ_CHECK(x == NULL, "gate_create returned %s but set the gate", groupconc_errname(rc));
        if (!valid) lim = gate_limits[(b >> 3) % 4u]; /* an injected failure happens once: the retry works */
    }
    F.gate[GS] = x;
    F.sgate_limit = lim;
    atomic_fetch_add(&acounters[A_GATE_RESET], 1);
}

static void *dfr_thread(void *arg) {
    dfr_job *j = arg;
    tl_helper_thread = 1;
    deliver(j->s, j->d, j->choice);
    return NULL;
}

/* the end: completes a list of parked deferrals after a moment (while the fuzzer waits in a graceful
   shutdown, which must wait for them) */
typedef struct dfr_list {
    dfr_job job[MAX_SLOTS];
    int n;
} dfr_list;

static void *dfr_list_thread(void *arg) {
    dfr_list *l = arg;
    tl_helper_thread = 1;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    for (int i = 0; i < l->n; i++) deliver(l->job[i].s, l->job[i].d, l->job[i].choice);
    return NULL;
}

/* the parked deferrals (of group g's current state; g < 0: all), taken off the list if `take` */
static int parked_list(int g, dfr_job *out, bool take) {
    int n = 0;
    pthread_mutex_lock(&F.mu);
    for (int i = 0; i < F.nslots; i++) {
        slot *s = &F.slots[i];
        if (!s->dfr_pending || (g >= 0 && (s->group != g || s->gen != F.gen[g]))) continue;
        out[n++] = (dfr_job){s, s->dfr, (unsigned)i};
        if (take) {
            s->dfr_pending = false;
            s->dfr = NULL;
        }
    }
    pthread_mutex_unlock(&F.mu);
    return n;
}

/* after a cancel request that reached them (they were parked before it): flagged */
static void check_flagged(const dfr_job *list, int n, const char *by) {
    for (int i = 0; i < n; i++) {
        FZ_CHECK(defer_flag(list[i].s, list[i].d), "deferred task %s: groupconc_deferred_is_cancelled false after %s", list[i].s->id, by);
        atomic_fetch_add(&acounters[A_DEFER_FLAGGED], 1);
    }
}

static void mark_cancel_requested(int g) { /* g < 0: every task */
    for (int i = 0; i < F.nslots; i++)
        if (g < 0 || F.slots[i].group == g) atomic_store(&F.slots[i].cancel_req, 1);
}

/* b1 picks a parked deferral; b2 % 6: what to deliver (deliver()), (b2 / 6) % 4: on this thread (0, 1),
   on a short-lived thread (2), on one while this thread cancels the task (3: FLAGGED or TOO_LATE) */
static void op_defer_complete(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r);
    slot *s = NULL;
    groupconc_deferred *d = NULL;
    pthread_mutex_lock(&F.mu);
    for (int k = 0; k < F.nslots && !s; k++) {
        slot *x = &F.slots[((int)b1 + k) % F.nslots];
        if (x->dfr_pending) {
            s = x;
            d = x->dfr;
            x->dfr_pending = false;
            x->dfr = NULL;
        }
    }
    pthread_mutex_unlock(&F.mu);
    if (!s) return;
    bool c = defer_flag(s, d);
    if (s->cancel_seen & (1 << GROUPCONC_CANCEL_FLAGGED))
        FZ_CHECK(c, "task %s: a cancel said FLAGGED, groupconc_deferred_is_cancelled says false", s->id);
    unsigned choice = b2 % 6u, how = (b2 / 6u) % 4u;
    dfr_job j = {s, d, choice};
    pthread_t th;
    bool threaded = how >= 2 && pthread_create(&th, NULL, dfr_thread, &j) == 0;
    if (!threaded) deliver(s, d, choice);
    if (threaded && how == 3 && s->has_handle && !s->released) {
        groupconc_cancel_outcome o = (groupconc_cancel_outcome)99;
        atomic_store(&s->cancel_req, 1);
        int rc = fz_code(groupconc_task_cancel(s->h, &o));
        FZ_CHECK(rc == GROUPCONC_OK, "cancel: %s", groupconc_errname(rc));
        name_outcome(o);
        FZ_CHECK(o == GROUPCONC_CANCEL_FLAGGED || o == GROUPCONC_CANCEL_TOO_LATE,
                 "task %s: cancel racing its deferred completion said %s", s->id, groupconc_cancel_outcome_name(o));
        if (o == GROUPCONC_CANCEL_TOO_LATE && !(s->cancel_seen & (1 << o))) s->runs_at_too_late = atomic_load(&s->runs);
        s->cancel_seen |= 1 << o;
        atomic_fetch_add(&acounters[A_DEFER_RACE_CANCEL], 1);
    }
    if (threaded) {
        pthread_join(th, NULL);
        atomic_fetch_add(&acounters[A_DEFER_THREAD], 1);
    }
    atomic_fetch_add(&acounters[A_DEFER_DONE], 1);
    if (s->has_handle && !s->released) { /* delivered: it completes now (or as soon as its body returned) */
        groupconc_result res;
        int rc = fz_code(groupconc_task_wait_for(s->h, INT64_C(5000000000), &res));
        FZ_CHECK(rc == GROUPCONC_OK, "deferred task %s not done within 5 s of its completion: %s", s->id, groupconc_errname(rc));
        check_result(s, &res);
    }
}

/* Could a wait for "everything, every latch open" block on something only the fuzzer releases: a
   held executor-gate permit, or a deferred task that is (or may yet be) parked? */
static bool blockers(void) {
    if (held_count(GX) > 0) return true;
    for (int i = 0; i < F.nslots; i++) {
        slot *s = &F.slots[i];
        if (s->defer_mode != DM_PARK || !s->accepted || atomic_load(&s->delivered)) continue;
        if (atomic_load(&s->runs) && atomic_load(&s->finished) && !atomic_load(&s->defer_live)) continue; /* did not defer */
        bool done = false;
        if (s->has_handle && !s->released && groupconc_task_is_done(s->h, &done) == GROUPCONC_OK && done) continue;
        return true;
    }
    return false;
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
    case OP_SUBMIT0: case OP_SUBMIT1: case OP_SUBMIT2: case OP_SUBMIT3: case OP_SUBMIT4: op_submit(r, SUB_PLAIN); break;
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
    case OP_SHUTDOWN: {
        dfr_job parked[MAX_SLOTS];
        int np = parked_list(-1, parked, false);
        mark_cancel_requested(-1);
        rc = fz_code(groupconc_executor_shutdown(F.ex));
        FZ_CHECK(rc == GROUPCONC_OK, "shutdown: %s", groupconc_errname(rc));
        mark_swept();
        check_flagged(parked, np, "executor shutdown");
        break;
    }
    case OP_GRACEFUL: {
        static const int64_t timeouts[3] = {0, 200000, 2000000};
        dfr_job parked[MAX_SLOTS];
        int np = parked_list(-1, parked, false);
        mark_cancel_requested(-1);
        rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, timeouts[rd(r) % 3u]));
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "shutdown_graceful: %s", groupconc_errname(rc));
        FZ_CHECK(np == 0 || rc == GROUPCONC_ETIMEDOUT, "shutdown_graceful returned %s with %d deferred tasks parked",
                 groupconc_errname(rc), np);
        check_flagged(parked, np, "a graceful shutdown that timed out");
        counters[rc == GROUPCONC_OK ? C_GRACEFUL_OK : C_GRACEFUL_TIMEOUT]++;
        mark_swept();
        if (rc == GROUPCONC_OK) check_stats(true); /* every task finished: every permit is back */
        break;
    }
    case OP_OOM: atomic_store(&fz_countdown, (long)(1 + rd(r) % 8u)); break;
    case OP_THREAD_FAIL: atomic_store(&fz_start_fail, (int)(rd(r) & 1u)); break;
    case OP_WAIT_LONG: op_wait_long(r); break;
    case OP_POLICY: op_policy(r); break;
    case OP_SELF_BLOCK: op_submit(r, SUB_SELF_BLOCK); break;
    case OP_GATE_ACQUIRE: op_gate_acquire(r); break;
    case OP_GATE_RELEASE: op_gate_release(r); break;
    case OP_GATE_BAD_RELEASE: op_gate_bad_release(r); break;
    case OP_GATE_STATS: op_gate_stats(r); break;
    case OP_GATE_RESET: op_gate_reset(r); break;
    case OP_SUBMIT_DEFER: op_submit(r, SUB_DEFER); break;
    case OP_DEFER_COMPLETE: op_defer_complete(r); break;
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
    F.sgate_limit = gate_limits[(h[0] / 3u) % 4u];
    F.gate_listener = (h[6] & 0x20u) == 0;
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
    for (int v = -1; v <= 3; v++) {
        name_kind((groupconc_release_kind)v);
        name_gate_event((groupconc_gate_event_type)v);
    }
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

/* the end: every held permit back (kinds and errors varied), on the fuzzer thread */
static void release_all_permits(void) {
    for (int i = 0; i < F.npermits; i++) {
        prec *p = &F.permits[i];
        if (!p->held) continue;
        groupconc_release_kind kind = (groupconc_release_kind)(i % 3);
        F.gexp_group = p->gate == GX ? group_names[p->group] : NULL;
        F.gexp_kind = (int)kind;
        F.gexp_error = -i;
        p->held = false;
        if (p->gate == GX) hold_add(1, p->group, p->gen, -1);
        int rc = fz_code(groupconc_permit_release(&p->p, kind, -i));
        FZ_CHECK(rc == GROUPCONC_OK, "final release of a held permit: %s", groupconc_errname(rc));
        F.g_rel[p->gate][kind]++;
    }
}

static void fz_finish(unsigned ending) {
    atomic_store(&fz_countdown, 0);
    atomic_store(&fz_start_fail, 0);
    latch_set(0, 1);
    latch_set(1, 1);
    int rc;
    if (ending == 1 || ending == 3) { /* stop first: the parked deferred tasks are flagged */
        dfr_job parked[MAX_SLOTS];
        int np = parked_list(-1, parked, false);
        mark_cancel_requested(-1);
        if (ending == 1) {
            FZ_CHECK(fz_code(groupconc_executor_shutdown(F.ex)) == GROUPCONC_OK, "final shutdown");
        } else {
            rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, 0));
            FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT, "final shutdown_graceful(0): %s", groupconc_errname(rc));
            FZ_CHECK(np == 0 || rc == GROUPCONC_ETIMEDOUT, "final shutdown_graceful(0) returned OK with %d deferred tasks parked", np);
        }
        mark_swept();
        check_flagged(parked, np, "the final shutdown");
        check_stats(false);
    }
    /* from here on every deferral completes: the parked ones below, later ones in their own bodies;
       and every permit comes back (a held one would keep queued tasks waiting) */
    static dfr_list fin;
    pthread_mutex_lock(&F.mu);
    F.auto_complete = true;
    pthread_mutex_unlock(&F.mu);
    fin.n = parked_list(-1, fin.job, true);
    release_all_permits();
    if (ending == 0) {
        /* every latch is open: everything must finish (bounded, so a lost permit fails instead of
           hanging); the parked deferrals are completed by another thread meanwhile */
        pthread_t th;
        bool threaded = fin.n > 0 && pthread_create(&th, NULL, dfr_list_thread, &fin) == 0;
        if (!threaded)
            for (int i = 0; i < fin.n; i++) deliver(fin.job[i].s, fin.job[i].d, fin.job[i].choice);
        rc = fz_code(groupconc_executor_shutdown_graceful(F.ex, INT64_C(10000000000)));
        if (threaded) pthread_join(th, NULL);
        FZ_CHECK(rc == GROUPCONC_OK, "final shutdown_graceful with every latch open did not finish in 10 s: %s",
                 groupconc_errname(rc));
        mark_swept();
        check_stats(true);
    } else {
        for (int i = 0; i < fin.n; i++) deliver(fin.job[i].s, fin.job[i].d, fin.job[i].choice);
    }
    /* the executor gate still exists: destroy is refused and does nothing (stats still answer, with
       the shutdown state as it was) */
    rc = fz_code(groupconc_executor_destroy(F.ex));
    FZ_CHECK(rc == GROUPCONC_EBUSY, "executor destroy with its gate alive: %s, want GROUPCONC_EBUSY", groupconc_errname(rc));
    check_stats(ending == 0);
    for (int w = 0; w < 2; w++) {
        rc = fz_code(groupconc_gate_destroy(F.gate[w]));
        FZ_CHECK(rc == GROUPCONC_OK, "destroy of the %s gate, every permit released: %s", w == GX ? "executor" : "standalone",
                 groupconc_errname(rc));
        F.gate[w] = NULL;
    }
    mark_cancel_requested(-1); /* destroy shuts down (flags what runs) unless that was done */
    rc = fz_code(groupconc_executor_destroy(F.ex));
    FZ_CHECK(rc == GROUPCONC_OK, "destroy: %s", groupconc_errname(rc));
    for (int i = 0; i < F.nslots; i++) {
        slot *s = &F.slots[i];
        int runs = atomic_load(&s->runs), completed = atomic_load(&s->ev_completed);
        FZ_CHECK(!s->dfr_pending && (!atomic_load(&s->defer_live) || atomic_load(&s->delivered)),
                 "deferred task %s never completed", s->id);
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
    FZ_CHECK(H.run_total == 0 && H.gate_total == 0 && H.defer_total == 0,
             "after destroy: %d bodies running, %d gate permits, %d deferred tasks parked", H.run_total, H.gate_total, H.defer_total);
    long live = atomic_load(&fz_live);
    FZ_CHECK(live == 0, "%ld blocks live after destroy and release of every handle", live);
}

static void fz_reset(void) {
    F.ex = NULL;
    F.nslots = 0;
    memset(F.slots, 0, sizeof F.slots);
    memset(F.gen, 0, sizeof F.gen);
    pthread_mutex_lock(&H.mu);
    memset(H.run_g, 0, sizeof H.run_g);
    memset(H.gate_g, 0, sizeof H.gate_g);
    memset(H.defer_g, 0, sizeof H.defer_g);
    H.run_total = H.gate_total = H.defer_total = 0;
    pthread_mutex_unlock(&H.mu);
    F.gate[GX] = F.gate[GS] = NULL;
    F.npermits = 0;
    memset(F.permits, 0, sizeof F.permits);
    for (int w = 0; w < 2; w++) {
        F.g_ok[w] = F.g_refused[w] = 0;
        F.gev_last_reason[w] = 0;
        for (int k = 0; k < 3; k++) {
            F.g_rel[w][k] = 0;
            atomic_store(&F.gev[w][k], 0);
        }
    }
    F.gexp_group = NULL;
    F.gexp_kind = F.gexp_error = 0;
    pthread_mutex_lock(&F.mu);
    F.auto_complete = false;
    pthread_mutex_unlock(&F.mu);
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
    for (int w = 0; w < 2; w++) { /* the executor gate, the standalone gate */
        groupconc_gate_config gc;
        memset(&gc, 0, sizeof gc);
        gc.executor = w == GX ? F.ex : NULL;
        gc.limit = w == GX ? 0 : F.sgate_limit;
        if (F.gate_listener) {
            gc.listener = fz_gate_listener;
            gc.listener_user_data = &gate_ids[w];
        }
        rc = fz_code(groupconc_gate_create(&gc, &F.gate[w]));
        FZ_CHECK(rc == GROUPCONC_OK && F.gate[w], "gate_create (%s): %s", w == GX ? "executor" : "standalone", groupconc_errname(rc));
    }
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
