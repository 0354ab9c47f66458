/* fuzz_ops.c - libFuzzer target: random sequences of groupconc API calls, invariants after each.

   Build (run_fuzz.sh): clang -fsanitize=fuzzer,address,undefined ... fuzz_ops.c
   Replay (meson test 'fuzz_replay', any compiler): -DFUZZ_REPLAY_MAIN, then
       fuzz_ops_replay <file-or-dir>... [--random N]
   replays every file given (directories: every file in them), then N pseudo-random inputs.
   FUZZ_TRACE=1 in the environment prints the decoded policy and each op with its bytes (either build).

   Input layout (every byte string is a valid input; missing bytes read as 0):
     8 header bytes, the policy:
       [0] default_concurrency 1 + b%3; the standalone gate's limit {1,2,3,UNL}[(b/3)%4]
                                              [1] default_max_in_flight {UNL,1,2,3}[b%4]
       [2] default_queue_threshold {UNL,0,1,2,4}[b%5]
       [3] global_max_in_flight {UNL,UNL,1,2,3,4}[b%6]   [4] global_queue_threshold {UNL,0,1,3}[b%4];
           fx = b >> 2 (0 and 63: no fleet provider, so the seeds written before keep their meaning):
           the fleet layer (see "Fleet layer" below)
       [5] rejection: ABORT, DISCARD, CALLER_RUNS, custom handler [b%4]; ext = b >> 2 (0 and 63: none of
           these, so the seeds written before keep their meaning): max_groups {UNL,2,3,5}[ext&3],
           group_idle_ns {none,1,3,5 ms}[(ext>>2)&3], default_max_wait_ns {none,none,4,15 ms}[(ext>>4)&3],
           and then global_max_running {UNL,1,2,3}[([1]>>2)%4], max_waiting {UNL,0,2,5}[([1]>>4)%4], the
           table entry g1's max_wait_ns {0 (default),3 ms,none}[([3]/6)%3]
       [6] max_threads 1 + b%4; keep_alive {0, 1 ms, 10 s}[(b>>2)%3]; bit4: no listener (the library
           takes other paths then; the checks that need events are skipped); bit5: no gate listener
       [7] bit0: table entry g0 {conc 2, in-flight DEFAULT, threshold 1}; bit1: table entry g1
           {conc DEFAULT, in-flight 1, threshold 0}; bit2: resolver (g2 -> 3, g3 -> 0 (=1), g4 -> fails,
           others -> 2); bit3/bit4: latch 0/1 starts open; bits5-6: how the input ends; bit7: the
           listener cancels a task from inside its REJECTED event (callbacks may call into groupconc)
     then operations, one byte each (b % OP_COUNT) followed by its argument bytes (see fz_step).
     (Adding an OP_* changes OP_COUNT and so what every op byte means: the seeds in corpus/ write each
     op as its index, below every later OP_COUNT, so that they keep meaning what they meant.)
     With a module left out (GROUPCONC_NO_GATE / _SCOPES / _DUMP) its ops do nothing and its checks
     are left out; OP_COUNT and every op's number stay.

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

   Structured scopes and the dump (OP_SCOPE_*, OP_DUMP*, issue 14). The fuzzer opens scopes (each
   policy; CUSTOM with a callback that records, dumps, first_sets and shuts down at the first failure,
   first_sets every completion, or shuts down at once; a decoded name with quotes, backslashes, control
   bytes, UTF-8) and keeps them on its own stack; forks into them (a decoded group, and a body that
   succeeds, fails, parks cooperatively until the fuzzer releases it or it is cancelled, forks into its
   own scope, or opens a child scope, forks into it (success, failure or a park), joins it (or not)
   and closes it, or leaves it open for the library to close as the body returns); shuts scopes down (also from another thread); joins with a short deadline, or
   without one when the wait must end (the scope is joined or shut down, or every latch is open and
   nothing blocks: no held permit, parked deferral, unreleased park or child scope body, which keeps
   its permits while its nested fork may wait for them); closes the top (a scope below it must say
   EORDER, nothing done; the top never: a child scope of its forks closes first, by that fork); queries results,
   first and fork_count, first_set (outside CUSTOM: ESCOPE_POLICY, nothing set), and every bad
   argument; calls fork / join / join_for / close from a
   short-lived foreign thread (ENOTOWNER, nothing done). A fork body checks that join, join_for and
   close of its own scope say EDEADLK. Invariants: every fork index has exactly one fork record, every
   fork ends once (one COMPLETED event, its cleanup once if accepted and never if refused, its body at
   most once and never after ESCOPE_SHUTDOWN or a refusal), and its result follows what its body did
   (or the rejection handler decided, or why it never ran); a fork into a scope shut down or joined
   says ESCOPE_SHUTDOWN, and one that says so unasked finds the scope shut by its policy or callback;
   after a join every result is final, the callback ran once per fork, and the join's code and
   scope_first follow the policy (COLLECT_ALL: OK, no first; SHUTDOWN_ON_FAILURE: EFAILED iff a fork
   FAILED or was REJECTED, first names one; SHUTDOWN_ON_SUCCESS: OK iff one succeeded, first names
   it; CUSTOM: OK, first is an index the callback passed to first_set); close says ENOTJOINED iff no
   join returned and returns with every fork done. The dump into a decoded size (0, 1, 64, needed - 1,
   needed, needed + 1, 64 KiB) says OK iff it fits, ERANGE otherwise, always NUL-terminated where the
   size allows, needed consistent; what fits is parsed as JSON and compared with what the fuzzer knows
   (executor.shutdown; per scope: name, parent, policy, joined, shut_down, at least its forks); the
   same for dump_file into a tmpfile (and EIO for /dev/full and a read-only stream). At the end every
   scope still open is shut down, joined and closed from the top, after groupconc_executor_destroy
   said EBUSY. Forks made inside fork bodies submit from other threads: the checks that count on the
   fuzzer's submits alone (gate_exact, the group count) skip when one was under way (wsub_mark).

   Live limits, pause and resume, queue deadlines, the bounded table (beyond the seeds; OP_GROUP_LIMITS,
   OP_EXEC_LIMITS, OP_GROUP_PAUSE, OP_GROUP_RESUME, OP_EXEC_PAUSE, OP_EXEC_RESUME, OP_SUBMIT_DEADLINE,
   and the policy's ext fields above). The fuzzer models the executor's per-group table and defaults
   (LV): a group state's limits are resolved when it is made (first use, after an evict, after an idle
   group was reclaimed - unseen) from its entry and the defaults then, and change with
   groupconc_group_limits_set (KEEP / DEFAULT / values, ELIMIT for bad ones, nothing changed); so it
   keeps the set of limit triples each state may have, and every group stats snapshot (and dump) must
   name one (its max_wait_ns: the entry's, else the current default). Lowering never preempts: every
   cap (group concurrency and in-flight, threshold, global in-flight, global running, max_waiting) is
   checked against a high-water mark, raised before a call that may raise the cap and lowered to the
   cap in force only once a snapshot showed the count at or under it - so a count never grows past
   max(old, new) and drains to the new one (task bodies read the marks with their counts under one
   lock). A dump right after each live change (and every parsed dump) is one snapshot of every gauge:
   no layer has a free permit while a task that could take it waits (a paused group's concurrency
   and global running layers excepted; at the global running cap a free permit means every waiter is
   of a paused group), the groups' waiting
   counts add up to the executor's, the executor's limits and pauses are the ones set. Pause: while a
   group (or the executor) is paused its admitted count (tasks handed their last permit) does not
   move; a task submitted after a pause returned that starts holding permits before a resume (or an
   evict) began is a violation (resume epochs, moved on before the call); executor gates refuse it
   with EPAUSED exactly while paused, gate_stats say available 0; stats paused / paused_groups agree
   with the fuzzer's pauses (an evict drops the group's). Bodies started holding permits never
   outnumber the tasks admitted (executor; per group state with an unbounded table); global running
   == running + ready (gate permits and deferred tasks included) without CALLER_RUNS. Deadlines: a
   task that expires ends REJECTED with GROUPCONC_EEXPIRED_<layer> (its REJECTED event says so), only
   if a deadline could apply (its own max_wait_ns, or a group / default deadline set before its
   submit), never ran, never reached a rejection handler or CALLER_RUNS, was accepted (cleanup once,
   COMPLETED once), expired no sooner than its own max_wait_ns after its submit, and at the global
   in-flight / running layer only if a global in-flight / running cap (or a pause) ever made it wait
   there. Bounded table:
   EGROUPS_FULL (submit, fork, execute_all element, gate, pause) only with max_groups, and then with
   the table full; never more groups than max_groups; groups_reclaimed only with a bounded table; the
   refusals are counted in rejected_other (SUBMITTED, REJECTED and COMPLETED events say
   EGROUPS_FULL). The totals: completed = every outcome (rejected_waiting, expired included) +
   rejected_other, submitted == completed when every task finished, and (with a listener) equal to
   the COMPLETED events by status and reason. At the end every pause is lifted first.

   Fleet layer (section [10]; header [4] >> 2 = fx; OP_FLEET_ANSWER / _NOTIFY / _REPORT, appended).
   fx installs an in-harness provider with a fleet cap per key (1-3: 1 + (key + (fx >> 3) % 4) % 3;
   offset 3: the end's answers come from the provider's thread during shutdown / destroy). fx bit 0:
   requests are kept pending (OP_FLEET_ANSWER: oldest / newest, verdict from its byte) or answered in
   acquire by rule (fx >> 1) % 4 (GRANTED else BUSY, GRANTED else OPEN, cycle G/B/R/O, cycle G/R/O/G);
   bit 5: release notifies. GRANTED only below the harness's own count for the key (else BUSY / OPEN).
   Checked: the count never exceeds the cap; release gets only granted tokens, once, with their group;
   bodies holding permits of a key never outnumber its leases + OPEN answers; an outstanding request
   is never asked again; REJECTED / EREJECTED_FLEET only asynchronously, through the rejection policy;
   waiting_fleet >= held requests + known BUSY while nothing can take a task out, and comes down to
   the held requests when the key had no BUSY answer; fleet_renew_failed == OK reports == RENEW events;
   fleet_open / rejected_fleet within the OPEN / REJECT answers (and equal where exact), OPEN events
   once per task; leases all back at quiet points; bad arguments refused; attach once from create,
   detach once from the final destroy after the last answer and lease; at the end every request is
   answered (GRANTED below the cap, else OPEN), then notify(NULL); after destroy grants == releases.

   The pool's hint (OP_SUBMIT_HINT, appended: 53; the pair matrix's feature "blocking"): a submit as
   OP_SUBMIT* (same two bytes) whose body first says it blocks, groupconc_context_blocking, twice: on
   a worker both calls say OK and the pool counts the body (pool.nhinted >= 1 while it runs); run
   inside the fuzzer's submit (CALLER_RUNS) both say ESTATE. A failed thread start on its behalf
   (OP_THREAD_FAIL) changes neither code. After the final graceful shutdown with every latch open
   (ending 0) pool.nhinted is 0: every hint ended with its body.

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

/* The clock of F.cv's deadlines: winpthreads (mingw-w64) condition variables take CLOCK_REALTIME
   ones only (pthread_condattr_setclock fails there). */
#if defined(_WIN32)
#define FZ_CV_CLOCK CLOCK_REALTIME
#else
#define FZ_CV_CLOCK CLOCK_MONOTONIC
#endif

#if defined(__MINGW32__)
#define FZ_PRINTF(a, b) __attribute__((format(gnu_printf, a, b))) /* mingw's C99 printf (%zu) */
#elif defined(__GNUC__) || defined(__clang__)
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
static const char *const fz_event_names[] = {"SUBMITTED", "STARTED", "COMPLETED", "REJECTED", "FLEET"};
static const char *const fz_policy_names[] = {"ABORT", "DISCARD", "CALLER_RUNS"};

#ifndef GROUPCONC_NO_GATE
static const char *const fz_kind_names[] = {"SUCCESS", "FAILURE", "CANCELLED"};
static const char *const fz_gate_event_names[] = {"ADMITTED", "REJECTED", "RELEASED"};
#endif

static void name_status(groupconc_status v) { fz_name("status", (int)v, groupconc_status_name(v), fz_status_names, 5); }
static void name_outcome(groupconc_cancel_outcome v) {
    fz_name("cancel outcome", (int)v, groupconc_cancel_outcome_name(v), fz_outcome_names, 3);
}
static void name_event(groupconc_event_type v) { fz_name("event type", (int)v, groupconc_event_type_name(v), fz_event_names, 5); }
static void name_policy(groupconc_rejection_policy v) {
    fz_name("rejection policy", (int)v, groupconc_rejection_policy_name(v), fz_policy_names, 3);
}

#ifndef GROUPCONC_NO_GATE
static void name_kind(groupconc_release_kind v) {
    fz_name("release kind", (int)v, groupconc_release_kind_name(v), fz_kind_names, 3);
}
static void name_gate_event(groupconc_gate_event_type v) {
    fz_name("gate event type", (int)v, groupconc_gate_event_type_name(v), fz_gate_event_names, 3);
}
#endif

/* ==== counting allocator, failure injection on the fuzzer thread only ========================== */

static atomic_long fz_live;
static atomic_long fz_countdown; /* > 0: the allocation that takes it from 1 to 0 fails */
static atomic_long fz_injected;  /* failures injected so far */
static atomic_int fz_start_fail; /* worker thread starts fail while set */
static _Thread_local int tl_fuzzer_thread;
static _Thread_local int tl_no_inject; /* the fuzzer's own probe (fz_group_stats): nothing injected */

void *fz_malloc(size_t size) {
    if (tl_fuzzer_thread && !tl_no_inject) {
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
#ifndef GROUPCONC_NO_GATE
static int gate_ids[2] = {GX, GS};      /* the gate listener's user_data */
#endif
#define MAX_PERMITS (MAX_OPS + 8)
static const int gate_limits[4] = {1, 2, 3, GROUPCONC_UNLIMITED};

/* a permit the fuzzer was given: held until released; kept afterwards as a stale copy */
typedef struct prec {
#ifndef GROUPCONC_NO_GATE
    groupconc_permit p;
#endif
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
    bool hint;                    /* OP_SUBMIT_HINT: its body calls groupconc_context_blocking first */
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
    int64_t max_wait;             /* OP_SUBMIT_DEADLINE: spec.max_wait_ns (0: the group's / the policy's) */
    uint64_t t0;                  /* monotonic ns just before its submit */
    bool deadline_possible;       /* a queue deadline may apply to it (it may expire) */
    atomic_int ev_reason;         /* its COMPLETED event's result.reason */
    atomic_int ev_rej_reason;     /* its REJECTED event's reason */
    int pz_g, pz_x;               /* submitted while its group / the executor was paused: the resume
                                     epoch then (-1: not paused): it must not start before a resume */
    atomic_int ev_fleet;          /* its FLEET events (EFLEET_OPEN): at most one */
} slot;

static struct {
    groupconc_executor *ex;
    groupconc_group_limits table[2];
    int max_threads;                 /* (the limits: see LV below) */
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
    atomic_int ev_rej_waiting, ev_expired, ev_rej_fleet;
    /* gates */
#ifndef GROUPCONC_NO_GATE
    groupconc_gate *gate[2];
#endif
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

/* ---- live limits, pause, queue deadlines, the bounded table (beyond the seeds) ----
   Limits change while tasks run (OP_GROUP_LIMITS, OP_EXEC_LIMITS). Lowering never preempts: what
   holds permits keeps them, and nothing new is handed out while the count is at or over the new cap.
   So the bound the holders are checked against is a high-water mark (HI below): raised to the new
   cap before a call that may raise it, and lowered to the cap in force only once a snapshot (taken
   under the executor lock) showed the count at or under it - from then on nothing can push the
   count past it without another raise. Between the two it is max(old, new): "never grows past".

   A group state's limits are resolved when it is created (first use, after an evict, and - with a
   bounded table - after an idle group was reclaimed, at a moment the fuzzer cannot see) from the
   table entry and the executor's defaults in force then. So the fuzzer keeps, per group, the set of
   limit triples the current state may have (LV.plaus): every group stats snapshot must name one of
   them, and narrows the set to it (plus, with a bounded table, what a state created now would get). */
typedef struct lim3 {
    int conc, infl, thr;
} lim3;
#define MAX_PLAUS 16

static struct lv_model {
    /* the executor's current values (the policy's, then OP_EXEC_LIMITS') */
    int def_conc, def_infl, def_thr, gin, gthr, grun, mwait, max_groups;
    int64_t def_mw, idle_ns;
    bool bounded, resolver;
    /* the executor's per-group table, as the fuzzer knows it (the policy's entries, then
       OP_GROUP_LIMITS'): DEFAULT fields resolve to the resolver / the defaults; mw 0 = the default */
    struct lv_ent {
        bool present;
        int conc, infl, thr;
        int64_t mw;
    } ent[NG];
    lim3 plaus[NG][MAX_PLAUS]; /* the limits group g's current state may have */
    int nplaus[NG];
    bool exists[NG];           /* the last look found its state, and nothing dropped it since */
    bool gpaused[NG], xpaused; /* groupconc_group_pause (the current state), groupconc_executor_pause */
    bool adm_known[NG], xadm_known;
    uint64_t adm[NG], xadm;    /* admitted counts once paused: they must not move while paused */
    bool any_deadline;         /* a task submitted with max_wait 0 may have a deadline from now on */
    bool ever_gin, ever_grun;  /* a finite global in-flight / running cap was ever in force */
    bool ever_mwait;           /* max_waiting was ever bounded */
    bool ever_paused;          /* a group or the executor was ever paused */
    long groups_full;          /* submits (and forks, execute_all elements) the fuzzer saw refused EGROUPS_FULL */
} LV;

/* the high-water marks (under H.mu: the task bodies read them with their counts) */
static struct {
    int conc[NG][MAX_GEN], infl[NG][MAX_GEN]; /* per group-state generation */
    int thr[NG];                              /* the current state's waiting at bulkhead + concurrency */
    int gin, grun, gthr, mwait;
    atomic_int starts[NG][MAX_GEN];           /* bodies started holding permits (top-level tasks, forks) */
    atomic_int starts_total;
    /* Resume epochs: moved on BEFORE every call that may end a pause (group resume or evict, executor
       resume). A task submitted after a pause returned cannot be admitted while the pause lasts (only
       tasks that already held every permit start then): if its body starts holding permits and reads
       the epoch of its submit, the start came before the resume began - a start while paused. */
    atomic_int gepoch[NG], xepoch;
} HI;

/* ---- the fleet layer (section [10]): the harness's provider (see "Fleet layer" in the top comment) ----
   Requests are kept in `pend` (the pending mode) or answered inside acquire (the synchronous mode,
   and everything from the end on). Leases are the harness's tokens; their count per key (under H.mu,
   read with the running bodies in cap_check) never exceeds the key's cap. */
#define FL_MAX_PEND 512
#define FL_MAX_LEASES 2048
#define FL_TOKEN_BASE UINT64_C(0xF1EE700000000000)
enum { FLR_GRANT_ELSE_BUSY, FLR_GRANT_ELSE_OPEN, FLR_CYCLE, FLR_GROR }; /* the synchronous mode's rule */
typedef struct fl_req {
    groupconc_fleet_request *rq;
    int g;
} fl_req;
static pthread_mutex_t fl_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    /* fixed for the input (the header) */
    bool on, sync, release_notifies;
    bool late_end;                 /* the end's answers come from the provider's thread, during shutdown and
                                      destroy (joined in detach) */
    int rule, cap[NG];
    pthread_t end_thread;
    bool end_started, end_joined;
    _Atomic(groupconc_executor *) main_ex; /* the fuzzer's executor (its attach) */
    /* under fl_mu */
    fl_req pend[FL_MAX_PEND];      /* requests held, oldest first (the pending mode) */
    int npend, pend_g[NG];
    fl_req busy[FL_MAX_PEND];      /* answered BUSY, not asked again since (kept while nothing can take them) */
    int nbusy, busy_g[NG];
    bool dirty[NG];                /* a BUSY answer for the key: tasks of it may wait BUSY (asked or not) */
    bool ending;                   /* the end: every request answered at once, never BUSY */
    int answering;                 /* answers made on other threads (inside acquire, the end's), in progress */
    unsigned seq;                  /* the cycles' position */
    long asks, verdicts[4];
    long open_sure, open_unsure, rej_sure, rej_unsure; /* sure: nothing could have taken the task */
    /* under H.mu */
    int count[NG];                 /* leases held now, per key */
    long opens_g[NG];              /* OPEN answers for the key (tasks that may run without a lease) */
    int nleases;
    struct {
        int g;
        bool released;
    } lease[FL_MAX_LEASES];        /* token FL_TOKEN_BASE + i */
    long grants, releases;
    /* the fuzzer thread */
    bool removed;                  /* a cancel, shutdown, evict or execute_all since the list last emptied */
    bool expect_main, destroying;  /* the fuzzer's executor is being created / destroyed for good */
    long renews;                   /* groupconc_fleet_report calls that said OK */
    const char *report_key;        /* what the RENEW event must name */
    atomic_long ev_open, ev_renew; /* FLEET events by reason */
    atomic_int attach_main, detach_main, attach_other, detach_other;
} FL;

static int capv(int v) { return v == GROUPCONC_UNLIMITED ? INT32_MAX : v; }
static int imax(int a, int b) { return a > b ? a : b; }

/* what a state of group g created now would get (the resolver: g2 3, g3 0 (= 1), g4 fails, others 2) */
static lim3 lv_want(int g) {
    lim3 x;
    bool e = LV.ent[g].present;
    if (e && LV.ent[g].conc != GROUPCONC_DEFAULT) x.conc = LV.ent[g].conc;
    else if (LV.resolver) x.conc = g == 2 ? 3 : g == 3 ? 1 : g == 4 ? LV.def_conc : 2;
    else x.conc = LV.def_conc;
    x.infl = e && LV.ent[g].infl != GROUPCONC_DEFAULT ? LV.ent[g].infl : LV.def_infl;
    x.thr = e && LV.ent[g].thr != GROUPCONC_DEFAULT ? LV.ent[g].thr : LV.def_thr;
    return x;
}

static bool lim_eq(lim3 a, lim3 b) { return a.conc == b.conc && a.infl == b.infl && a.thr == b.thr; }

static void plaus_add(int g, lim3 x) {
    for (int i = 0; i < LV.nplaus[g]; i++)
        if (lim_eq(LV.plaus[g][i], x)) return;
    FZ_CHECK(LV.nplaus[g] < MAX_PLAUS, "fuzzer: too many plausible limit triples for group %s", group_names[g]);
    LV.plaus[g][LV.nplaus[g]++] = x;
}

static bool plaus_has(int g, lim3 x) {
    for (int i = 0; i < LV.nplaus[g]; i++)
        if (lim_eq(LV.plaus[g][i], x)) return true;
    return false;
}

/* the high-water marks of g's current state cover every triple it may have (before a call that may
   raise a cap) */
static void lv_raise(int g) {
    pthread_mutex_lock(&H.mu);
    for (int i = 0; i < LV.nplaus[g]; i++) {
        lim3 x = LV.plaus[g][i];
        HI.conc[g][F.gen[g]] = imax(HI.conc[g][F.gen[g]], x.conc);
        HI.infl[g][F.gen[g]] = imax(HI.infl[g][F.gen[g]], capv(x.infl));
        HI.thr[g] = imax(HI.thr[g], capv(x.thr));
    }
    pthread_mutex_unlock(&H.mu);
}

static void lv_graise(void) {
    pthread_mutex_lock(&H.mu);
    HI.gin = imax(HI.gin, capv(LV.gin));
    HI.grun = imax(HI.grun, capv(LV.grun));
    HI.gthr = imax(HI.gthr, capv(LV.gthr));
    HI.mwait = imax(HI.mwait, capv(LV.mwait));
    pthread_mutex_unlock(&H.mu);
    if (LV.gin != GROUPCONC_UNLIMITED) LV.ever_gin = true;
    if (LV.grun != GROUPCONC_UNLIMITED) LV.ever_grun = true;
    if (LV.mwait != GROUPCONC_UNLIMITED) LV.ever_mwait = true;
}

/* a snapshot of g's state (under the executor lock) showed these counts: where they are at or under
   every cap the state may have, nothing can take them past it any more (no preemption, no hand-out
   over the cap), so the high-water mark comes down to it */
static void lv_drain(int g, size_t used3, size_t used2, size_t wait23) {
    int mc = 0, mi = 0, mt = 0;
    for (int i = 0; i < LV.nplaus[g]; i++) {
        mc = imax(mc, LV.plaus[g][i].conc);
        mi = imax(mi, capv(LV.plaus[g][i].infl));
        mt = imax(mt, capv(LV.plaus[g][i].thr));
    }
    pthread_mutex_lock(&H.mu);
    if (used3 <= (size_t)mc) HI.conc[g][F.gen[g]] = mc;
    if (used2 <= (size_t)mi) HI.infl[g][F.gen[g]] = mi;
    if (wait23 <= (size_t)mt) HI.thr[g] = mt;
    pthread_mutex_unlock(&H.mu);
}

static void lv_gdrain(const groupconc_executor_stats *es) {
    pthread_mutex_lock(&H.mu);
    if (es->global_in_flight <= (size_t)capv(LV.gin)) HI.gin = capv(LV.gin);
    if (es->global_running <= (size_t)capv(LV.grun)) HI.grun = capv(LV.grun);
    if (es->waiting <= (size_t)capv(LV.gthr)) HI.gthr = capv(LV.gthr); /* the global cap's waiters are among them */
    if (es->waiting <= (size_t)capv(LV.mwait)) HI.mwait = capv(LV.mwait);
    pthread_mutex_unlock(&H.mu);
}

/* g's state may have been dropped (evict) or may not exist: the next one gets what lv_want says */
static void lv_fresh(int g) {
    LV.nplaus[g] = 0;
    plaus_add(g, lv_want(g));
    LV.exists[g] = false;
    lv_raise(g);
}

/* ---- structured scopes (issue 14): what the fuzzer knows of its scopes and forks ---- */

#define MAX_SREC 64    /* scope records per input: the fuzzer's scopes and the child scopes its forks open */
#define MAX_OPEN 6     /* the fuzzer's open scopes at most (its own stack: they close from the top) */
#define MAX_FREC 200   /* fork records per input: the fuzzer's forks and the forks made inside fork bodies */
#define MAX_SFORKS 48  /* forks per scope at most (the fuzzer stops forking into a scope there) */

/* a fork body: success, failure, a cooperative park (returns when released or cancelled), a fork
   into its own scope, a child scope (open, fork into it, join, close) */
enum { K_OK, K_FAIL, K_PARK, K_FORK_IN_FORK, K_CHILD_SCOPE, K_COUNT };
/* a scope's on_fork_complete: none; records (and finds join / join_for / close of its scope refused:
   EDEADLK); dumps into a small buffer; CUSTOM: first_set and shutdown at the first failure; first_set
   at every completion; shutdown at the first completion */
enum { CBM_NONE, CBM_OBSERVE, CBM_DUMP, CBM_SHUT_ON_FAIL, CBM_FIRST_EACH, CBM_SHUT_AT_ONCE };
/* a fork record: not forked (yet); forked, with an index in its scope; refused with no fork (no index) */
enum { FS_NONE, FS_COUNTED, FS_NOFORK };

struct frec;

typedef struct srec {
    int idx;
#ifndef GROUPCONC_NO_SCOPES
    _Atomic(groupconc_scope *) s;  /* while open */
    groupconc_scope_policy policy;
#endif
    int cb_mode;
    bool has_name, child;          /* child: opened inside a fork body (by the body) */
    char name[48];
    /* the fuzzer's own scopes (fuzzer thread only) */
    bool open, joined, known_shut, closed;
    int reserved;                  /* fork records aimed at it (its forks stay below MAX_SFORKS) */
    /* a child scope: what its body saw */
    atomic_int opened, closed_by_body;
    /* the callback: calls and status per fork index; the indexes first_set was called with */
    atomic_int cb_calls[MAX_SFORKS], cb_status[MAX_SFORKS], first_ok[MAX_SFORKS];
    atomic_int any_first_ok, cb_shutdown;
    _Atomic(struct frec *) by_index[MAX_SFORKS]; /* the record of each fork index */
} srec;

typedef struct frec {
    int idx, kind, group, decision;
    unsigned gen;
    char id[8];                    /* "f<n>": the task id of its fork */
    bool top;                      /* forked by the fuzzer thread (its body is counted against the caps) */
    bool has_cleanup, child_join_for, child_no_join, child_left_open;
    srec *sc;                      /* the scope it is forked into */
    struct frec *parent;           /* a nested fork: the fork whose body makes it */
    struct frec *nested;           /* K_FORK_IN_FORK / K_CHILD_SCOPE: the fork its body makes */
    srec *child;                   /* K_CHILD_SCOPE: the scope its body opens */
    atomic_int state, fork_rc, index;
    atomic_int runs, finished, ret, counted, released, cleanups, handler_calls;
    atomic_int ev_submitted, ev_started, ev_completed, ev_rejected;
    bool deadline_possible;        /* a queue deadline may apply to it (forks are made with max_wait 0) */
    int pz_g, pz_x;                /* as slot's: forked while paused (the fuzzer's forks) */
    atomic_int ev_fleet;           /* its FLEET events (EFLEET_OPEN): at most one */
} frec;

static struct {
    srec sr[MAX_SREC];
    int nsr;
    frec fr[MAX_FREC];
    int nfr;
    srec *stack[MAX_OPEN];         /* the fuzzer's open scopes, oldest first */
    int nopen;
    atomic_int parks_all;          /* the end: every park returns at once */
    atomic_int blocked_ever;       /* fork bodies that waited on a worker (each may let the pool grow by one) */
    atomic_long wsub_total;        /* forks made inside fork bodies (gate_exact: permits taken without a completion) */
    atomic_int wsub_inflight;
} SC;

#ifndef GROUPCONC_NO_SCOPES
static char fork_values[MAX_FREC]; /* a rejection handler's SUCCESS / FAILED value for fork i */
#endif

/* Forks made in fork bodies submit from other threads (a new group, permits taken with no completion).
   A check that needs the fuzzer's submits alone takes wsub_mark() before its first snapshot and asks
   wsub_still() after its last: no such fork was under way at the mark, and none began since. */
static long wsub_mark(void) {
    long total = atomic_load(&SC.wsub_total); /* first: a fork that begins after this read changes it */
    return atomic_load(&SC.wsub_inflight) ? -1 : total;
}

static bool wsub_still(long mark) { return mark >= 0 && atomic_load(&SC.wsub_total) == mark; }

static frec *frec_of(const char *task_id) {
    if (!task_id || task_id[0] != 'f') return NULL;
    int n = atoi(task_id + 1); /* records are set up before their fork: SC.nfr is not read here */
    FZ_CHECK(n >= 0 && n < MAX_FREC && strcmp(SC.fr[n].id, task_id) == 0, "unknown fork id \"%s\"", task_id);
    return &SC.fr[n];
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
       A_DEFER_DONE, A_DEFER_THREAD, A_DEFER_RACE_CANCEL, A_DEFER_FLAGGED, A_DEFER_AUTO, A_SC_OPEN, A_SC_OPEN_SHUTDOWN,
       A_SC_OPEN_BAD, A_SC_FORK_OK, A_SC_FORK_REFUSED, A_SC_FORK_SHUT, A_SC_FORK_NOMEM, A_SC_FIF, A_SC_CHILD_OPEN,
       A_SC_CHILD_CLOSED, A_SC_CHILD_LEFT_OPEN, A_SC_SHUTDOWN, A_SC_POLICY_SHUT, A_SC_CB_SHUT, A_SC_FIRST_SET, A_SC_JOIN, A_SC_JOIN_EFAILED,
       A_SC_JOIN_TIMEOUT, A_SC_CLOSE_OK, A_SC_CLOSE_NOTJOINED, A_SC_CLOSE_EORDER, A_SC_FOREIGN, A_SC_PARK_RELEASED,
       A_SC_PARK_CANCELLED, A_SC_DESTROY_BUSY, A_SC_HANDLER, A_DUMP_OK, A_DUMP_ERANGE, A_DUMP_FILE_OK, A_DUMP_FILE_EIO,
       A_LV_LIMITS_OK, A_LV_LIMITS_BAD, A_LV_XLIMITS_OK, A_LV_XLIMITS_BAD, A_LV_PAUSE, A_LV_RESUME, A_LV_XPAUSE, A_LV_XRESUME,
       A_LV_DEADLINE_SUBMIT, A_LV_EXPIRED, A_LV_EXPIRED_GLOBAL, A_LV_EXPIRED_BULKHEAD, A_LV_EXPIRED_CONC, A_LV_EXPIRED_RUNNING, A_LV_GROUPS_FULL, A_LV_REJ_WAITING, A_LV_OVER_CAP, A_LV_DRAINED, A_LV_RECLAIMED, A_LV_MADE_BETWEEN,
       A_LV_PAUSED_CHECKED, A_LV_GATE_PAUSED, A_LV_GATE_RUNNING, A_LV_DUMP_LIVE,
       A_FL_ASK_PENDING, A_FL_ASK_SYNC, A_FL_GRANTED, A_FL_BUSY, A_FL_REJECT, A_FL_OPEN, A_FL_CAPPED, A_FL_RELEASED,
       A_FL_LATE, A_FL_NOTIFY, A_FL_REPORT, A_FL_BAD, A_FL_REJECTED, A_FL_EXPIRED, A_FL_OPEN_EVENT, A_FL_WAIT_EXACT,
       A_FL_WAIT_RETRY, A_FL_END_ANSWERED, A_FL_ATTACH_OTHER, A_FL_HELD_CHECKED, A_HINT_OK, A_HINT_ESTATE, A_COUNT };
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
    "defer: completed by the body at the end", "scope: opened", "scope: open ESHUTDOWN", "scope: open, bad arguments",
    "scope: forks accepted", "scope: forks refused by submit (index)", "scope: forks ESCOPE_SHUTDOWN",
    "scope: ENOMEM (open, or a fork with no index)", "scope: forks made in a fork", "scope: child scopes opened in a fork",
    "scope: child scopes closed in a fork", "scope: child scopes left open by a fork (closed for it)", "scope: shut down by the fuzzer", "scope: found shut by policy / callback",
    "scope: callback shutdowns", "scope: callback first_set", "scope: joins OK", "scope: joins EFAILED",
    "scope: join_for ETIMEDOUT", "scope: close OK", "scope: close ENOTJOINED", "scope: close EORDER",
    "scope: foreign thread refused", "scope: parks released", "scope: parks cancelled", "scope: destroy EBUSY (scope open)",
    "scope: forks decided by the rejection handler",
    "dump: OK (parsed)", "dump: ERANGE", "dump_file: OK (parsed)", "dump_file: EIO",
    "live: group limits set", "live: group limits refused (bad arguments)", "live: executor limits set",
    "live: executor limits refused (bad arguments)", "live: group paused", "live: group resumed", "live: executor paused",
    "live: executor resumed", "deadline: submits with max_wait_ns", "deadline: expired results checked", "deadline:   at the global in-flight cap",
    "deadline:   at the bulkhead", "deadline:   at concurrency", "deadline:   at the global running cap",
    "bounded: EGROUPS_FULL (submit, fork, gate, pause)", "max_waiting: EREJECTED_WAITING results",
    "live: a count over the cap in force (lowered)", "live: high-water mark drained to a lower cap",
    "bounded: groups reclaimed (stats)", "stats: a group made between its stats and the key list", "pause: admitted counts held still", "gate: EPAUSED",
    "gate: EREJECTED_RUNNING", "dump: gauges checked (no idle permit with waiters)",
    "fleet: requests kept pending", "fleet: requests answered in acquire", "fleet: GRANTED", "fleet: BUSY",
    "fleet: REJECT", "fleet: OPEN", "fleet: GRANTED wanted at the cap", "fleet: leases released",
    "fleet: a late GRANTED given back at once", "fleet: notify", "fleet: report RENEW", "fleet: bad arguments refused",
    "fleet: EREJECTED_FLEET results", "fleet: EEXPIRED_FLEET results", "fleet: FLEET OPEN events",
    "fleet: waiting_fleet >= held requests (> 0)", "fleet: waiting_fleet caught up after a wait",
    "fleet: requests answered at the end", "fleet: attach / detach (OP_POLICY executors)",
    "fleet: bodies checked against the leases", "hint: OK on a worker (counted in nhinted)",
    "hint: ESTATE (CALLER_RUNS in submit)"};
static atomic_long acounters[A_COUNT];

static bool caller_runs(void) { return F.rejection == GROUPCONC_REJECT_CALLER_RUNS; }
static bool aborts(void) { return F.rejection == GROUPCONC_REJECT_ABORT; }

/* a layer's refusal of a task (what the rejection policy / handler gets): a queue threshold, or the
   bound on all waiting tasks (max_waiting) */
static bool is_layer_code(int e) {
    return e == GROUPCONC_EREJECTED_GLOBAL || e == GROUPCONC_EREJECTED_BULKHEAD ||
           e == GROUPCONC_EREJECTED_CONCURRENCY || e == GROUPCONC_EREJECTED_WAITING;
}

/* a queue deadline passed (never handed to a rejection handler, never run under CALLER_RUNS) */
static bool is_expiry(int e) {
    return e == GROUPCONC_EEXPIRED_GLOBAL || e == GROUPCONC_EEXPIRED_BULKHEAD || e == GROUPCONC_EEXPIRED_CONCURRENCY ||
           e == GROUPCONC_EEXPIRED_RUNNING || (e == GROUPCONC_EEXPIRED_FLEET && FL.on);
}

/* the fleet provider refused the task (asynchronously: never from submit), only with a provider */
static bool is_fleet_reject(int e) { return e == GROUPCONC_EREJECTED_FLEET && FL.on; }

/* a refusal an accepted task can end with, or a rejection handler be given: a layer's, the fleet's */
static bool is_rej_code(int e) { return is_layer_code(e) || is_fleet_reject(e); }

#ifndef GROUPCONC_NO_GATE
/* an executor gate's refusal by its group's state: a layer (1-4), a pause, the bounded table */
static bool is_gate_refusal(int e) {
    return e == GROUPCONC_EREJECTED_GLOBAL || e == GROUPCONC_EREJECTED_BULKHEAD || e == GROUPCONC_EREJECTED_CONCURRENCY ||
           e == GROUPCONC_EREJECTED_RUNNING || e == GROUPCONC_EPAUSED || e == GROUPCONC_EGROUPS_FULL;
}
#endif

static int group_index(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < NG; i++)
        if (strcmp(name, group_names[i]) == 0) return i;
    return -1;
}

/* group_stats_get of group g, ENOTFOUND for a key with no state: the call answers OK (the limits,
   every count 0) for a key with limits set and no state (issue 23), and the invariants here are
   about states. Whether it has state: group_keys_get just after, with no allocation failure
   injected into that probe (the inputs' countdowns stay as they were). A group made or reclaimed
   between the two calls is the race the callers already allow for (forks made in fork bodies, the
   idle sweep). */
static int fz_group_stats(int g, groupconc_group_stats *gs) {
    int rc = groupconc_group_stats_get(F.ex, group_names[g], gs);
    if (rc != GROUPCONC_OK) return rc;
    char **keys = NULL;
    size_t n = 0;
    bool has = false;
    tl_no_inject = 1;
    int krc = groupconc_group_keys_get(F.ex, &keys, &n);
    tl_no_inject = 0;
    FZ_CHECK(krc == GROUPCONC_OK, "group_keys (probe): %s", groupconc_errname(krc));
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], group_names[g]) == 0) has = true;
    groupconc_group_keys_free(keys);
    return has ? GROUPCONC_OK : GROUPCONC_ENOTFOUND;
}

static slot *slot_of(const char *task_id) {
    if (!task_id || task_id[0] == 'f') return NULL; /* a fork (frec_of) */
    FZ_CHECK(task_id[0] == 't', "unknown task id \"%s\"", task_id);
    int n = atoi(task_id + 1); /* slots are set up before their submit: no need to read F.nslots here */
    FZ_CHECK(n >= 0 && n < MAX_SLOTS && strcmp(F.slots[n].id, task_id) == 0, "unknown task id \"%s\"", task_id);
    return &F.slots[n];
}

/* A body starts holding permits of group g (generation gen): the caps in force, read with the counts
   under one lock (so the high-water marks and the counts are of one moment). */
static void cap_check(const char *what, const char *id, int g, unsigned gen, int pz_g, int pz_x) {
    pthread_mutex_lock(&H.mu);
    int in_group = ++H.run_g[g][gen], total = ++H.run_total;
    int gate_g = H.gate_g[g][gen], defer_g = H.defer_g[g][gen];
    int holders = total + H.gate_total + H.defer_total;
    int hc = HI.conc[g][gen], hin = HI.infl[g][gen], hgin = HI.gin, hgrun = HI.grun;
    /* the fleet layer: every body holding permits (and every parked deferral) of the key holds a lease,
       but those that passed with OPEN (releases follow the body's return, both under this mutex) */
    int lease_hold = 0, leases = 0;
    long opens = 0;
    if (FL.on) {
        for (int k = 0; k < MAX_GEN; k++) lease_hold += H.run_g[g][k] + H.defer_g[g][k];
        leases = FL.count[g];
        opens = FL.opens_g[g];
    }
    pthread_mutex_unlock(&H.mu);
    if (FL.on) {
        FZ_CHECK(lease_hold <= leases + opens, "%s %s: %d bodies running / deferred holding permits of group %s, which holds %d fleet "
                 "leases and had %ld OPEN answers (a task runs holding its lease)", what, id, lease_hold, group_names[g], leases, opens);
        atomic_fetch_add(&acounters[A_FL_HELD_CHECKED], 1);
    }
    atomic_fetch_add(&HI.starts[g][gen], 1);
    atomic_fetch_add(&HI.starts_total, 1);
    FZ_CHECK(pz_g < 0 || atomic_load(&HI.gepoch[g]) != pz_g, "%s %s started holding permits of group %s, which was paused before "
             "its submit and not resumed since", what, id, group_names[g]);
    FZ_CHECK(pz_x < 0 || atomic_load(&HI.xepoch) != pz_x, "%s %s (group %s) started holding permits while the executor is paused "
             "(paused before its submit, not resumed since)", what, id, group_names[g]);
    FZ_CHECK(in_group + gate_g + defer_g <= hc && in_group + gate_g + defer_g <= hin,
             "group %s (generation %u): %s %s makes %d bodies running + %d gate permits + %d parked deferred tasks, over the "
             "caps in force (concurrency %d, in-flight %d, the highest since they last drained)",
             group_names[g], gen, what, id, in_group, gate_g, defer_g, hc, hin == INT32_MAX ? -1 : hin);
    FZ_CHECK(holders <= hgin, "%s %s: %d bodies running + gate permits + parked deferred tasks, global in-flight cap %d", what, id,
             holders, hgin);
    FZ_CHECK(holders <= hgrun, "%s %s: %d bodies running + gate permits + parked deferred tasks, global running cap %d", what, id,
             holders, hgrun);
    int extra = atomic_load(&SC.blocked_ever); /* fork bodies that waited on a worker: one more thread each */
    FZ_CHECK(total <= F.max_threads + extra, "%s %s: %d bodies running, max_threads %d (+%d)", what, id, total, F.max_threads, extra);
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
            clock_gettime(FZ_CV_CLOCK, &ts);
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

/* ==== features touched (FUZZ_FEATURES) ==========================================================
   Which of the pair matrix's 18 features (CONTRIBUTING.md, "The pair matrix") an input put in play:
   set where the feature acts (a rejection reached the policy or handler, the resolver ran, the fleet
   provider was asked, an op of the feature ran, a policy field of it is set), printed at the end of
   each input when FUZZ_FEATURES is set in the environment ("fuzz_ops: features tasks execall ...");
   tests/fuzz/check_pair_seeds.py checks that each corpus seed pair-<a>-<b> touches both. */
enum {
    FT_TASKS, FT_EXECALL, FT_REJECT, FT_LISTENER, FT_RESOLVER, FT_DEFERRED, FT_GATE, FT_SCOPE, FT_DEADLINE,
    FT_PAUSE, FT_LIVE, FT_BOUNDED, FT_RUNCAP, FT_FLEET, FT_GROUPSHUT, FT_SHUTDOWN, FT_DUMP, FT_BLOCKING, FT_COUNT
};
static const char *const ft_names[FT_COUNT] = {"tasks", "execall", "reject", "listener", "resolver", "deferred",
                                               "gate", "scope", "deadline", "pause", "live", "bounded", "runcap",
                                               "fleet", "groupshut", "shutdown", "dump", "blocking"};
static atomic_uint fz_feat;
static void ft_mark(int f) { atomic_fetch_or_explicit(&fz_feat, 1u << f, memory_order_relaxed); }

/* OP_SUBMIT_HINT: the body says it blocks, twice (the second call changes nothing): OK on a worker,
   and the pool counts this body until it returns; ESTATE inside the fuzzer's submit (CALLER_RUNS:
   not on a worker of the executor). The executor's lock is not held here: nhinted is read as the
   hint the pool reads it (relaxed); this body's own unit keeps it at 1 or more. */
static void hint_check(slot *s, groupconc_context *ctx) {
    int want = tl_fuzzer_thread ? GROUPCONC_ESTATE : GROUPCONC_OK;
    int rc1 = fz_code(groupconc_context_blocking(ctx));
    int rc2 = fz_code(groupconc_context_blocking(ctx));
    FZ_CHECK(rc1 == want && rc2 == want, "task %s: groupconc_context_blocking said %s, then %s; want %s", s->id,
             groupconc_errname(rc1), groupconc_errname(rc2), groupconc_errname(want));
    if (want == GROUPCONC_OK)
        FZ_CHECK(atomic_load_explicit(&F.ex->pool.nhinted, memory_order_relaxed) >= 1,
                 "task %s: hinted, but the pool counts no hinted task", s->id);
    ft_mark(FT_BLOCKING);
    atomic_fetch_add(&acounters[want == GROUPCONC_OK ? A_HINT_OK : A_HINT_ESTATE], 1);
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
        atomic_store(&s->counted, 1);
        cap_check("task", s->id, s->group, s->gen, s->pz_g, s->pz_x);
    }
    if (s->self_block) {
        FZ_CHECK(groupconc_context_executor(ctx) == F.ex, "task %s: context executor", s->id);
        self_block(s, atomic_load(&s->hx), "body", A_SELF_BODY);
    }
    if (s->hint) hint_check(s, ctx);
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

/* A FLEET event: RENEW from groupconc_fleet_report (on the reporting thread: the fuzzer's, naming the
   group it passed, maybe NULL); OPEN for a task answered OPEN (its group and id, once per task). */
static void fl_event(const groupconc_event *ev) {
    name_event(ev->type);
    fz_code(ev->reason);
    FZ_CHECK(ev->result == NULL, "FLEET event with a result");
    if (ev->reason == GROUPCONC_EFLEET_RENEW) {
        FZ_CHECK(tl_fuzzer_thread && ev->task_id == NULL, "FLEET RENEW event off the reporting thread, or with task id \"%s\"",
                 ev->task_id ? ev->task_id : "(null)");
        FZ_CHECK(FL.report_key ? ev->group && strcmp(ev->group, FL.report_key) == 0 : ev->group == NULL,
                 "FLEET RENEW event names group \"%s\", the report named %s", ev->group ? ev->group : "(null)",
                 FL.report_key ? FL.report_key : "(null)");
        atomic_fetch_add(&FL.ev_renew, 1);
        return;
    }
    FZ_CHECK(ev->reason == GROUPCONC_EFLEET_OPEN, "FLEET event with reason %s", groupconc_errname(ev->reason));
    FZ_CHECK(FL.on, "FLEET OPEN event without a fleet provider");
    int g = group_index(ev->group);
    FZ_CHECK(g >= 0, "FLEET OPEN event for unknown group \"%s\"", ev->group ? ev->group : "(null)");
    slot *s = slot_of(ev->task_id);
    frec *fk = s ? NULL : frec_of(ev->task_id);
    if (s) {
        FZ_CHECK(s->group == g, "FLEET OPEN event group %s for task %s of %s", ev->group, s->id, group_names[s->group]);
        FZ_CHECK(atomic_fetch_add(&s->ev_fleet, 1) == 0, "task %s: two FLEET OPEN events (it passed the fleet layer twice)", s->id);
        if (s->self_block) self_block(s, NULL, "FLEET event", A_SELF_EVENT); /* a callback of the executor: destroy refused */
    }
    if (fk) {
        FZ_CHECK(fk->group == g, "FLEET OPEN event group %s for fork %s of %s", ev->group, fk->id, group_names[fk->group]);
        FZ_CHECK(atomic_fetch_add(&fk->ev_fleet, 1) == 0, "fork %s: two FLEET OPEN events", fk->id);
    }
    atomic_fetch_add(&FL.ev_open, 1);
    atomic_fetch_add(&acounters[A_FL_OPEN_EVENT], 1);
}

/* the reason of a REJECTED event or result: a layer or bound refused (the rejection policies apply),
   or a queue deadline passed */
static void ft_reason(int reason) {
    if (reason == GROUPCONC_EREJECTED_GLOBAL || reason == GROUPCONC_EREJECTED_BULKHEAD ||
        reason == GROUPCONC_EREJECTED_CONCURRENCY || reason == GROUPCONC_EREJECTED_RUNNING ||
        reason == GROUPCONC_EREJECTED_WAITING || reason == GROUPCONC_EREJECTED_FLEET)
        ft_mark(FT_REJECT);
    if (reason == GROUPCONC_EEXPIRED_GLOBAL || reason == GROUPCONC_EEXPIRED_BULKHEAD ||
        reason == GROUPCONC_EEXPIRED_CONCURRENCY || reason == GROUPCONC_EEXPIRED_RUNNING ||
        reason == GROUPCONC_EEXPIRED_FLEET)
        ft_mark(FT_DEADLINE);
}

static void fz_listener(const groupconc_event *ev, void *user_data) {
    FZ_CHECK(user_data == &F, "listener user_data");
    FZ_CHECK(ev != NULL, "listener: NULL event");
    ft_mark(FT_LISTENER);
    if (ev->type == GROUPCONC_EVENT_REJECTED) ft_reason(ev->reason);
    if (ev->type == GROUPCONC_EVENT_FLEET) {
        fl_event(ev);
        return;
    }
    FZ_CHECK(ev->group, "event without a group");
    int g = group_index(ev->group);
    FZ_CHECK(g >= 0, "event for unknown group \"%s\"", ev->group);
    slot *s = slot_of(ev->task_id);
    frec *fk = s ? NULL : frec_of(ev->task_id);
    if (s) FZ_CHECK(s->group == g, "event group %s for task %s of %s", ev->group, s->id, group_names[s->group]);
    if (fk) FZ_CHECK(fk->group == g, "event group %s for fork %s of %s", ev->group, fk->id, group_names[fk->group]);
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
        else if (fk) FZ_CHECK(atomic_fetch_add(&fk->ev_submitted, 1) == 0, "fork %s: two SUBMITTED events", fk->id);
        else atomic_fetch_add(&F.anon_submitted, 1);
        break;
    case GROUPCONC_EVENT_STARTED:
        FZ_CHECK(ev->reason == 0 && ev->result == NULL, "STARTED event carries a reason/result");
        if (s) FZ_CHECK(atomic_fetch_add(&s->ev_started, 1) == 0, "task %s: two STARTED events", s->id);
        if (fk) FZ_CHECK(atomic_fetch_add(&fk->ev_started, 1) == 0, "fork %s: two STARTED events", fk->id);
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
                             : r->reason == GROUPCONC_EREJECTED_WAITING     ? &F.ev_rej_waiting
                             : is_fleet_reject(r->reason)                   ? &F.ev_rej_fleet
                             : is_expiry(r->reason)                         ? &F.ev_expired
                                                                             : &F.ev_rej_other,
                             1);
        if (s) {
            FZ_CHECK(atomic_fetch_add(&s->ev_completed, 1) == 0, "task %s: two COMPLETED events", s->id);
            atomic_store(&s->ev_status, (int)r->status);
            atomic_store(&s->ev_reason, r->reason);
        } else if (fk) {
            FZ_CHECK(atomic_fetch_add(&fk->ev_completed, 1) == 0, "fork %s: two COMPLETED events", fk->id);
        } else {
            atomic_fetch_add(&F.anon_completed, 1);
        }
        break;
    }
    case GROUPCONC_EVENT_REJECTED:
        FZ_CHECK(is_rej_code(ev->reason) || is_expiry(ev->reason) || ev->reason == GROUPCONC_ESHUTDOWN ||
                     ev->reason == GROUPCONC_ENOMEM || ev->reason == GROUPCONC_ETHREAD || ev->reason == GROUPCONC_EGROUPS_FULL,
                 "REJECTED event with reason %s", groupconc_errname(ev->reason));
        if (ev->reason == GROUPCONC_EGROUPS_FULL)
            FZ_CHECK(LV.max_groups != UNL, "REJECTED event with EGROUPS_FULL, but the table is not bounded by max_groups");
        if (is_expiry(ev->reason)) {
            if (s) FZ_CHECK(s->deadline_possible, "task %s: REJECTED event %s, but no queue deadline applies to it", s->id,
                            groupconc_errname(ev->reason));
            if (fk) FZ_CHECK(fk->deadline_possible, "fork %s: REJECTED event %s, but no queue deadline applies to it", fk->id,
                             groupconc_errname(ev->reason));
        }
        if (fk) {
            FZ_CHECK(atomic_fetch_add(&fk->ev_rejected, 1) == 0, "fork %s: two REJECTED events", fk->id);
            FZ_CHECK(!atomic_load(&fk->counted), "fork %s: REJECTED event after it started holding permits", fk->id);
        }
        if (s) {
            FZ_CHECK(atomic_fetch_add(&s->ev_rejected, 1) == 0, "task %s: two REJECTED events", s->id);
            atomic_store(&s->ev_rej_reason, ev->reason);
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
#ifndef GROUPCONC_NO_SCOPES
static void fz_fork_reject(const groupconc_rejection *rj, groupconc_reject_result *out);
#endif

static void fz_reject_handler(const groupconc_rejection *rj, groupconc_reject_result *out, void *user_data) {
    FZ_CHECK(user_data == &F && rj && out && rj->executor == F.ex, "rejection handler arguments");
    ft_mark(FT_REJECT);
#ifndef GROUPCONC_NO_SCOPES
    if (rj->task_id && rj->task_id[0] == 'f') { /* a fork: its fn / arg are the library's wrapper */
        fz_fork_reject(rj, out);
        return;
    }
#endif
    FZ_CHECK(user_data == &F && rj && out && rj->executor == F.ex && rj->fn == fz_task, "rejection handler arguments");
    slot *s = rj->arg;
    /* MAX_SLOTS, not F.nslots: the fuzzer thread may be adding a slot now (its own is set up) */
    FZ_CHECK(s >= F.slots && s < F.slots + MAX_SLOTS, "rejection handler: unknown arg");
    FZ_CHECK(strcmp(rj->group, group_names[s->group]) == 0, "rejection handler: group");
    FZ_CHECK(s->named ? rj->task_id && strcmp(rj->task_id, s->id) == 0 : rj->task_id == NULL, "rejection handler %s: task id", s->id);
    FZ_CHECK(rj->cleanup == (s->has_cleanup ? fz_cleanup : NULL), "rejection handler %s: cleanup", s->id);
    FZ_CHECK(is_rej_code(fz_code(rj->reason)), "rejection handler reason %s", groupconc_errname(rj->reason));
    if (is_fleet_reject(rj->reason)) FZ_CHECK(!rj->in_submit, "rejection handler %s: EREJECTED_FLEET in submit", s->id);
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
        /* the task is marked done only after its callbacks: a wait on it would wait for itself
           (EDEADLK, also in a callback run at once on a finished task); is_done says false at
           completion, true in a callback run at once */
        groupconc_result again;
        bool done = false;
        int rc = fz_code(groupconc_task_wait_for(task, self_timeouts[s->self_timeout], &again));
        FZ_CHECK(rc == GROUPCONC_EDEADLK || (rc == GROUPCONC_ERELEASED && atomic_load(&s->release_started)),
                 "task %s: wait_for on its own handle in its completion callback: %s", s->id, groupconc_errname(rc));
        rc = fz_code(groupconc_task_is_done(task, &done));
        FZ_CHECK((rc == GROUPCONC_OK && done == (tl_registering != 0)) ||
                     (rc == GROUPCONC_ERELEASED && atomic_load(&s->release_started)),
                 "task %s: is_done in its completion callback: %s, done %d", s->id, groupconc_errname(rc), (int)done);
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
    ft_mark(FT_RESOLVER);
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

/* An expired task (result REJECTED with GROUPCONC_EEXPIRED_*): a deadline applied to it, it never
   ran, no rejection handler saw it, it was accepted (its cleanup ran once, COMPLETED once), the layer
   it waited at could make it wait, and with its own max_wait_ns it expired no sooner than that after
   its submit (the library and the fuzzer read the same monotonic clock). */
static void check_expired(slot *s, const groupconc_result *r) {
    FZ_CHECK(s->deadline_possible, "task %s: expired (%s), but no queue deadline applies to it (max_wait %lld)", s->id,
             groupconc_errname(r->reason), (long long)s->max_wait);
    FZ_CHECK(atomic_load(&s->runs) == 0 && atomic_load(&s->handler_calls) == 0, "task %s: expired (%s), but it ran (%d) / went to "
             "the rejection handler (%d)", s->id, groupconc_errname(r->reason), atomic_load(&s->runs), atomic_load(&s->handler_calls));
    FZ_CHECK(r->value == NULL && r->error == 0, "task %s: expired with value %p error %d", s->id, r->value, r->error);
    if (s->max_wait > 0)
        FZ_CHECK(r->end_ns >= s->t0 + (uint64_t)s->max_wait, "task %s: expired %.3f ms after its submit, its max_wait is %.3f ms",
                 s->id, (double)(r->end_ns - s->t0) / 1e6, (double)s->max_wait / 1e6);
    if (r->reason == GROUPCONC_EEXPIRED_GLOBAL)
        FZ_CHECK(LV.ever_gin, "task %s: expired waiting at the global in-flight cap, but none was ever set", s->id);
    if (r->reason == GROUPCONC_EEXPIRED_RUNNING)
        FZ_CHECK(LV.ever_grun || LV.ever_paused, "task %s: expired waiting at the global running cap, but none "
                 "was ever set and nothing was paused", s->id);
    atomic_fetch_add(&acounters[A_LV_EXPIRED], 1);
    if (r->reason == GROUPCONC_EEXPIRED_FLEET) atomic_fetch_add(&acounters[A_FL_EXPIRED], 1);
    else atomic_fetch_add(&acounters[A_LV_EXPIRED_GLOBAL + (GROUPCONC_EEXPIRED_GLOBAL - r->reason)], 1);
    if (s->named && F.listener_on)
        FZ_CHECK(atomic_load(&s->ev_rejected) == 1 && atomic_load(&s->ev_rej_reason) == r->reason,
                 "task %s: expired (%s): %d REJECTED events (reason %s)", s->id, groupconc_errname(r->reason),
                 atomic_load(&s->ev_rejected), groupconc_errname(atomic_load(&s->ev_rej_reason)));
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
        FZ_CHECK(r->status != GROUPCONC_STATUS_REJECTED || is_expiry(r->reason),
                 "task %s: REJECTED (%s) under a rejection handler that never ran for it", s->id, groupconc_errname(r->reason));
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
        FZ_CHECK(r->start_ns == r->end_ns, "task %s: REJECTED with a duration", s->id);
        if (is_expiry(r->reason)) { /* its queue deadline passed: never ran, no handler, no CALLER_RUNS */
            check_expired(s, r);
            break;
        }
        FZ_CHECK(is_rej_code(r->reason), "task %s: REJECTED with error %s", s->id, groupconc_errname(r->reason));
        FZ_CHECK(!caller_runs(), "task %s: REJECTED under CALLER_RUNS (it should have run)", s->id);
        if (is_fleet_reject(r->reason)) {
            if (s->named && F.listener_on)
                FZ_CHECK(atomic_load(&s->ev_rejected) == 1 && atomic_load(&s->ev_rej_reason) == r->reason,
                         "task %s: REJECTED by the fleet: %d REJECTED events (reason %s)", s->id, atomic_load(&s->ev_rejected),
                         groupconc_errname(atomic_load(&s->ev_rej_reason)));
            atomic_fetch_add(&acounters[A_FL_REJECTED], 1);
        }
        if (r->reason == GROUPCONC_EREJECTED_WAITING) {
            /* the memory bound: max_waiting, or no memory for a group's queues at its first wait */
            FZ_CHECK(LV.ever_mwait || atomic_load(&fz_injected) > 0,
                     "task %s: EREJECTED_WAITING, but max_waiting was never bounded and no allocation failed", s->id);
            atomic_fetch_add(&acounters[A_LV_REJ_WAITING], 1);
        }
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

#ifndef GROUPCONC_NO_GATE
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

/* the executor gate's view of group g, whose group stats said found / not found (ws0: the count of
   forks made in fork bodies before those stats, -1 if one was under way: they may create the group) */
static void check_gate_group(int g, bool found, const groupconc_group_stats *gs, long ws0) {
    if (!F.gate[GX]) return;
    groupconc_gate_stats st;
    memset(&st, 0xA5, sizeof st);
    int rc = fz_code(groupconc_gate_stats_get(F.gate[GX], group_names[g], &st));
    size_t held = held_cur(g);
    if (!found && rc == GROUPCONC_OK && !wsub_still(ws0))
        return; /* created meanwhile by a fork made in a fork body */
    if (found && rc == GROUPCONC_ENOTFOUND && LV.bounded && held == 0)
        return; /* reclaimed meanwhile (idle) */
    if (!found) {
        FZ_CHECK(rc == GROUPCONC_ENOTFOUND, "gate_stats(%s): %s, but group_stats says ENOTFOUND", group_names[g], groupconc_errname(rc));
        FZ_CHECK(held == 0, "group %s has no state, but the fuzzer holds %zu of its permits", group_names[g], held);
        return;
    }
    FZ_CHECK(rc == GROUPCONC_OK, "gate_stats(%s) of a known group: %s", group_names[g], groupconc_errname(rc));
    FZ_CHECK(st.in_flight == held && gs->gate_permits == held,
             "group %s: gate in_flight %zu, group gate_permits %zu, the fuzzer holds %zu", group_names[g], st.in_flight,
             gs->gate_permits, held);
    /* its concurrency (a bounded table may have made a new state since, with the limits one made now gets) */
    bool limit_ok = st.limit == gs->concurrency;
    for (int i = 0; i < LV.nplaus[g] && LV.bounded; i++) limit_ok |= st.limit == LV.plaus[g][i].conc;
    /* the stats read a limits entry with no state yet (GROUPCONC_DEFAULT: the resolver decides), and
       the group was made, with the resolver's concurrency, before the gate's stats were read */
    limit_ok |= gs->concurrency == GROUPCONC_DEFAULT && LV.resolver;
    FZ_CHECK(limit_ok, "gate_stats(%s): limit %d, concurrency %d", group_names[g], st.limit, gs->concurrency);
    FZ_CHECK(st.available >= 0 && st.available <= st.limit, "gate_stats(%s): available %d, limit %d", group_names[g], st.available,
             st.limit);
    if (LV.xpaused || LV.gpaused[g]) FZ_CHECK(st.available == 0, "gate_stats(%s): available %d while paused", group_names[g], st.available);
}
#endif

/* The group stats of g (found) against the limits its state may have, the caps in force, the pause;
   then narrow what its limits may be, and drain its high-water marks. */
static void check_group_live(int g, const groupconc_group_stats *gs) {
    lim3 t = {gs->concurrency, gs->max_in_flight, gs->queue_threshold};
    if (!plaus_has(g, t)) {
        char buf[400];
        int n = 0;
        for (int i = 0; i < LV.nplaus[g] && n < 300; i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " %d/%d/%d", LV.plaus[g][i].conc, LV.plaus[g][i].infl, LV.plaus[g][i].thr);
        if (!LV.nplaus[g]) snprintf(buf, sizeof buf, " (none)");
        fz_fail("group %s limits %d/%d/%d (concurrency / in-flight / threshold), expected one of:%s", group_names[g], t.conc, t.infl,
                t.thr, buf);
    }
    /* the queue deadline it reports: its table entry's, else the executor's default (both current) */
    int64_t mw = LV.ent[g].present && LV.ent[g].mw != 0 ? LV.ent[g].mw : LV.def_mw;
    FZ_CHECK(gs->max_wait_ns == mw, "group %s: max_wait_ns %lld, expected %lld", group_names[g], (long long)gs->max_wait_ns, (long long)mw);
    FZ_CHECK(gs->paused == LV.gpaused[g],
             "group %s: stats say paused %d, the fuzzer paused it: %d", group_names[g], (int)gs->paused, (int)LV.gpaused[g]);
    size_t used3 = gs->in_flight - gs->waiting_concurrency, wait23 = gs->waiting_bulkhead + gs->waiting_concurrency;
    pthread_mutex_lock(&H.mu);
    int hc = HI.conc[g][F.gen[g]], hin = HI.infl[g][F.gen[g]], ht = HI.thr[g], hgthr = HI.gthr;
    pthread_mutex_unlock(&H.mu);
    /* lowering never preempts: the counts may be over the cap now in force, never over the highest
       cap in force since they last drained */
    FZ_CHECK(used3 <= (size_t)hc && gs->running <= (size_t)hc, "group %s: %zu tasks past concurrency (%zu running), over every "
             "concurrency cap in force since they last drained (%d; now %d)", group_names[g], used3, gs->running, hc, gs->concurrency);
    FZ_CHECK(gs->in_flight <= (size_t)hin, "group %s: in-flight %zu, over every cap in force since it last drained (%d; now %d)",
             group_names[g], gs->in_flight, hin, gs->max_in_flight);
    FZ_CHECK(wait23 <= (size_t)ht, "group %s: %zu waiting at bulkhead + concurrency, over every threshold in force since (%d; now %d)",
             group_names[g], wait23, ht, gs->queue_threshold);
    FZ_CHECK(gs->waiting_global <= (size_t)hgthr, "group %s: %zu waiting at the global cap, over every global threshold since (%d; now %d)",
             group_names[g], gs->waiting_global, hgthr, LV.gthr);
    if (!caller_runs())
        FZ_CHECK(gs->running + gs->ready <= (size_t)hc, "group %s: running %zu + ready %zu > concurrency %d (highest since drained)",
                 group_names[g], gs->running, gs->ready, hc);
    if (used3 > (size_t)gs->concurrency || (gs->max_in_flight != UNL && gs->in_flight > (size_t)gs->max_in_flight))
        atomic_fetch_add(&acounters[A_LV_OVER_CAP], 1);
    /* a pause: nothing of it is admitted (handed its last permit) while paused */
    if (LV.xpaused || LV.gpaused[g]) {
        if (LV.adm_known[g])
            FZ_CHECK(gs->admitted <= LV.adm[g], "group %s: admitted went from %llu to %llu while paused (group %d, executor %d)",
                     group_names[g], (unsigned long long)LV.adm[g], (unsigned long long)gs->admitted, (int)LV.gpaused[g],
                     (int)LV.xpaused);
        LV.adm[g] = gs->admitted; /* (lower: a state made afresh, after an evict or a reclaim) */
        LV.adm_known[g] = true;
        atomic_fetch_add(&acounters[A_LV_PAUSED_CHECKED], 1);
    }
    /* narrow: this state has t; with a bounded table it may be replaced by one made now */
    LV.nplaus[g] = 0;
    plaus_add(g, t);
    if (LV.bounded) plaus_add(g, lv_want(g));
    LV.exists[g] = true;
    lv_raise(g);
    int before = hc;
    lv_drain(g, used3, gs->in_flight, wait23);
    pthread_mutex_lock(&H.mu);
    if (HI.conc[g][F.gen[g]] < before) atomic_fetch_add(&acounters[A_LV_DRAINED], 1);
    pthread_mutex_unlock(&H.mu);
}

static void fl_check_stats(const groupconc_executor_stats *es, long ev_open0, bool all_quiet);

static void check_stats(bool all_quiet) {
    groupconc_executor_stats es;
    long ev_open0 = atomic_load(&FL.ev_open); /* before the stats: each of them was counted before */
    size_t parked_g[NG];
    size_t parked_lo = parked_counted(parked_g); /* before the stats: all of these are still parked */
    size_t gx = held_count(GX);
    long ws0 = wsub_mark(); /* forks made in fork bodies */
    int starts_total = atomic_load(&HI.starts_total); /* before the stats: each of them was admitted before */
    int starts_g[NG];
    for (int g = 0; g < NG; g++) starts_g[g] = atomic_load(&HI.starts[g][F.gen[g]]);
    memset(&es, 0xA5, sizeof es);
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &es)) == GROUPCONC_OK, "executor_stats failed");
    size_t parked_hi = parked_total(); /* after: every task parked at the stats is in here (also those the
                                           fuzzer cannot tell hold permits: anonymous under CALLER_RUNS) */
    int extra = atomic_load(&SC.blocked_ever); /* each fork body that waited on a worker may have added one */
    FZ_CHECK(es.threads <= (size_t)(F.max_threads + extra), "%zu threads, max %d (+%d)", es.threads, F.max_threads, extra);
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
    /* the limits in force (only the fuzzer changes them) */
    FZ_CHECK(es.global_max_in_flight == LV.gin && es.global_max_running == LV.grun && es.max_waiting == LV.mwait &&
                 es.max_groups == LV.max_groups,
             "executor limits: global_max_in_flight %d global_max_running %d max_waiting %d max_groups %d, expected %d / %d / %d / %d",
             es.global_max_in_flight, es.global_max_running, es.max_waiting, es.max_groups, LV.gin, LV.grun, LV.mwait, LV.max_groups);
    pthread_mutex_lock(&H.mu);
    int hgin = HI.gin, hgrun = HI.grun, hmwait = HI.mwait;
    pthread_mutex_unlock(&H.mu);
    FZ_CHECK(es.global_in_flight <= (size_t)hgin, "global in-flight %zu, over every cap in force since it last drained (%d; now %d)",
             es.global_in_flight, hgin, LV.gin);
    FZ_CHECK(es.global_running <= (size_t)hgrun, "global running %zu, over every running cap in force since it last drained (%d; now %d)",
             es.global_running, hgrun, LV.grun);
    /* max_waiting counts the tasks at the fleet layer too (a granted one moves on to the running cap
       without being checked again: the count must not grow there) */
    FZ_CHECK(es.waiting_fleet <= es.waiting, "waiting_fleet %zu > waiting %zu", es.waiting_fleet, es.waiting);
    FZ_CHECK(es.waiting <= (size_t)hmwait, "%zu tasks waiting (%zu of them at the fleet layer), over every "
             "max_waiting in force since they last drained (%d; now %d)", es.waiting, es.waiting_fleet, hmwait, LV.mwait);
    FZ_CHECK(es.waiting_running <= es.waiting, "waiting at the running cap %zu > waiting %zu", es.waiting_running, es.waiting);
    FZ_CHECK(es.running <= es.global_in_flight, "running %zu > global in-flight %zu", es.running, es.global_in_flight);
    if (!caller_runs()) {
        FZ_CHECK(es.running + es.ready <= es.global_in_flight, "running %zu + ready %zu > global in-flight %zu", es.running,
                 es.ready, es.global_in_flight);
        /* the running cap is held by exactly what holds every permit: ready, running (deferred too), gate permits */
        FZ_CHECK(es.global_running == es.running + es.ready, "global running %zu, running %zu + ready %zu", es.global_running,
                 es.running, es.ready);
    }
    FZ_CHECK(es.shutdown == F.shutdown_called, "stats shutdown %d", (int)es.shutdown);
    if (F.swept) FZ_CHECK(es.waiting == 0, "%zu tasks waiting after shutdown", es.waiting);
    FZ_CHECK(es.completed == es.succeeded + es.failed + es.cancelled + es.rejected_global + es.rejected_bulkhead +
                                 es.rejected_concurrency + es.rejected_waiting + es.expired + es.rejected_fleet + es.rejected_other,
             "executor completed %llu is not the sum of its outcomes", (unsigned long long)es.completed);
    FZ_CHECK(es.completed <= es.submitted, "executor completed %llu > submitted %llu", (unsigned long long)es.completed,
             (unsigned long long)es.submitted);
    FZ_CHECK(es.admitted <= es.submitted, "executor admitted %llu > submitted %llu", (unsigned long long)es.admitted,
             (unsigned long long)es.submitted);
    /* a task run under CALLER_RUNS is counted when its run begins, and in completed once it ends */
    FZ_CHECK(es.caller_runs <= es.submitted, "executor caller_runs %llu > submitted %llu",
             (unsigned long long)es.caller_runs, (unsigned long long)es.submitted);
    FZ_CHECK((uint64_t)starts_total <= es.admitted, "%d bodies started holding permits, %llu tasks admitted", starts_total,
             (unsigned long long)es.admitted);
    FZ_CHECK(es.rejected_other >= (uint64_t)LV.groups_full, "rejected_other %llu, the fuzzer saw %ld EGROUPS_FULL refusals",
             (unsigned long long)es.rejected_other, LV.groups_full);
    /* the bounded table */
    FZ_CHECK(LV.max_groups == UNL || es.groups <= (size_t)LV.max_groups, "%zu groups, max_groups %d", es.groups, LV.max_groups);
    if (!LV.bounded) FZ_CHECK(es.groups_reclaimed == 0, "%llu groups reclaimed, the table is not bounded",
                              (unsigned long long)es.groups_reclaimed);
    else if (es.groups_reclaimed) atomic_fetch_add(&acounters[A_LV_RECLAIMED], 1);
    /* pause */
    int npaused = 0;
    for (int g = 0; g < NG; g++) npaused += LV.gpaused[g];
    FZ_CHECK(es.paused == LV.xpaused && es.paused_groups == (size_t)npaused,
             "executor stats: paused %d, paused_groups %zu; the fuzzer paused the executor: %d, %d groups (their states live)",
             (int)es.paused, es.paused_groups, (int)LV.xpaused, npaused);
    if (LV.xpaused) {
        if (LV.xadm_known)
            FZ_CHECK(es.admitted == LV.xadm, "executor admitted went from %llu to %llu while the executor is paused",
                     (unsigned long long)LV.xadm, (unsigned long long)es.admitted);
        LV.xadm = es.admitted;
        LV.xadm_known = true;
    }
    if (all_quiet) {
        /* every task finished: only gate permits hold anything */
        FZ_CHECK(es.running == gx && es.ready == 0 && es.waiting == 0 && es.global_in_flight == gx && es.global_running == gx,
                 "after every task finished: running %zu ready %zu waiting %zu global in-flight %zu global running %zu (%zu gate "
                 "permits held)",
                 es.running, es.ready, es.waiting, es.global_in_flight, es.global_running, gx);
        FZ_CHECK(parked_hi == 0, "every task finished, but %zu deferred tasks are parked", parked_hi);
        FZ_CHECK(es.submitted == es.completed, "every task finished: submitted %llu, completed %llu", (unsigned long long)es.submitted,
                 (unsigned long long)es.completed);
        FZ_CHECK(es.refusing == 0, "every task finished, but %zu refusals' outcomes are open", es.refusing);
        FZ_CHECK(es.caller_runs <= es.completed, "every task finished: caller_runs %llu > completed %llu",
                 (unsigned long long)es.caller_runs, (unsigned long long)es.completed);
        /* every task is done, every event has run: the totals are the COMPLETED events by final status
           (a rejection handler's decision included) and the SUBMITTED events */
        if (F.listener_on) {
            unsigned long long want[12] = {
                (unsigned)atomic_load(&F.ev_count[GROUPCONC_EVENT_SUBMITTED]),
                (unsigned)atomic_load(&F.ev_count[GROUPCONC_EVENT_COMPLETED]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_SUCCESS]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_FAILED]),
                (unsigned)atomic_load(&F.ev_done[GROUPCONC_STATUS_CANCELLED]),
                (unsigned)atomic_load(&F.ev_rej_global),
                (unsigned)atomic_load(&F.ev_rej_bulkhead),
                (unsigned)atomic_load(&F.ev_rej_concurrency),
                (unsigned)atomic_load(&F.ev_rej_other),
                (unsigned)atomic_load(&F.ev_rej_waiting),
                (unsigned)atomic_load(&F.ev_expired),
                (unsigned)atomic_load(&F.ev_rej_fleet)};
            unsigned long long got[12] = {es.submitted,       es.completed,       es.succeeded,
                                          es.failed,          es.cancelled,       es.rejected_global,
                                          es.rejected_bulkhead, es.rejected_concurrency, es.rejected_other,
                                          es.rejected_waiting, es.expired,     es.rejected_fleet};
            static const char *const what[12] = {"submitted", "completed", "succeeded", "failed", "cancelled",
                                                 "rejected_global", "rejected_bulkhead", "rejected_concurrency",
                                                 "rejected_other", "rejected_waiting", "expired", "rejected_fleet"};
            for (int i = 0; i < 12; i++)
                FZ_CHECK(got[i] == want[i], "all quiet: executor %s = %llu, events say %llu (policy %d)", what[i], got[i],
                         want[i], F.rejection);
            atomic_fetch_add(&acounters[A_QUIET_TOTALS], 1);
        }
    }
    size_t found = 0;
    for (int g = 0; g < NG; g++) {
        groupconc_group_stats gs;
        long gws0 = wsub_mark();
        int rc = fz_code(fz_group_stats(g, &gs));
#ifndef GROUPCONC_NO_GATE
        check_gate_group(g, rc != GROUPCONC_ENOTFOUND, &gs, gws0);
#endif
        if (rc == GROUPCONC_ENOTFOUND) {
            FZ_CHECK(!LV.gpaused[g], "group %s is paused, but has no state (a paused group is never reclaimed)", group_names[g]);
            lv_fresh(g); /* (a fork made in a fork body may make it now: with these limits) */
            continue;
        }
        FZ_CHECK(rc == GROUPCONC_OK, "group_stats(%s): %s", group_names[g], groupconc_errname(rc));
        if (gs.concurrency == GROUPCONC_DEFAULT) {
            /* the stats read g's limits entry while g had no state (a state's concurrency is >= 1;
               GROUPCONC_DEFAULT: the resolver will decide), and the key list read after them has g:
               made in between, which only a fork made in a fork body does */
            FZ_CHECK(LV.resolver && !wsub_still(gws0), "group_stats(%s): a limits entry with no state (concurrency "
                     "GROUPCONC_DEFAULT), but group_keys lists it and nothing could have made it since (resolver %d)",
                     group_names[g], (int)LV.resolver);
            atomic_fetch_add(&acounters[A_LV_MADE_BETWEEN], 1);
            lv_fresh(g);
            continue;
        }
        found++;
        size_t gheld = held_cur(g);
        FZ_CHECK(gs.running >= gheld + parked_g[g], "group %s: running %zu < %zu gate permits + %zu parked deferred tasks",
                 group_names[g], gs.running, gheld, parked_g[g]);
        FZ_CHECK(gs.running <= gs.in_flight, "group %s: running %zu > in-flight %zu", group_names[g], gs.running, gs.in_flight);
        if (!caller_runs())
            FZ_CHECK(gs.in_flight == gs.waiting_concurrency + gs.waiting_fleet + gs.waiting_running + gs.ready + gs.running,
                     "group %s: in-flight %zu != waiting at concurrency %zu + at the fleet layer %zu + at the running cap %zu + ready %zu + "
                     "running %zu", group_names[g], gs.in_flight, gs.waiting_concurrency, gs.waiting_fleet, gs.waiting_running,
                     gs.ready, gs.running);
        if (!FL.on) FZ_CHECK(gs.waiting_fleet == 0 && gs.rejected_fleet == 0, "group %s: waiting_fleet %zu, rejected_fleet %llu "
                             "without a fleet provider", group_names[g], gs.waiting_fleet, (unsigned long long)gs.rejected_fleet);
        size_t waiting = gs.waiting_global + gs.waiting_bulkhead + gs.waiting_concurrency + gs.waiting_running + gs.waiting_fleet;
        if (waiting == 0) FZ_CHECK(gs.oldest_wait_ns == 0, "group %s: oldest wait %llu with nobody waiting", group_names[g],
                                   (unsigned long long)gs.oldest_wait_ns);
        if (F.swept) FZ_CHECK(waiting == 0, "group %s: %zu waiting after shutdown", group_names[g], waiting);
        FZ_CHECK(gs.completed == gs.succeeded + gs.failed + gs.cancelled + gs.rejected_global + gs.rejected_bulkhead +
                                     gs.rejected_concurrency + gs.rejected_waiting + gs.expired + gs.rejected_fleet,
                 "group %s: completed %llu is not the sum of its outcomes", group_names[g], (unsigned long long)gs.completed);
        if (es.counts_unattributed == 0) /* (an outcome that found no memory for its group's counter is not in submitted) */
            FZ_CHECK(gs.admitted <= gs.submitted && gs.completed <= gs.submitted, "group %s: submitted %llu, admitted %llu, completed %llu",
                 group_names[g], (unsigned long long)gs.submitted, (unsigned long long)gs.admitted, (unsigned long long)gs.completed);
        if (!LV.bounded)
            FZ_CHECK((uint64_t)starts_g[g] <= gs.admitted, "group %s: %d bodies started holding its permits, %llu admitted",
                     group_names[g], starts_g[g], (unsigned long long)gs.admitted);
        if (all_quiet)
            FZ_CHECK(gs.running == gheld && gs.ready == 0 && waiting == 0 && gs.in_flight == gheld,
                     "group %s after every task finished: running %zu ready %zu waiting %zu in-flight %zu (%zu gate permits held)",
                     group_names[g], gs.running, gs.ready, waiting, gs.in_flight, gheld);
        check_group_live(g, &gs);
    }
    /* (a fork made in a fork body meanwhile may have created a group) */
    if (wsub_still(ws0))
        FZ_CHECK(found <= es.groups, "found %zu groups, stats say %zu", found, es.groups);
    lv_gdrain(&es);
#ifndef GROUPCONC_NO_GATE
    check_gates();
#endif
    fl_check_stats(&es, ev_open0, all_quiet);
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
    /* issue 14: structured scopes and the dump (appended) */
    OP_SCOPE_OPEN, OP_SCOPE_FORK, OP_SCOPE_SHUTDOWN, OP_SCOPE_JOIN_FOR, OP_SCOPE_JOIN, OP_SCOPE_CLOSE, OP_SCOPE_QUERY,
    OP_SCOPE_FOREIGN, OP_SCOPE_RELEASE, OP_DUMP, OP_DUMP_FILE,
    /* beyond the seeds: live limits, pause and resume, queue deadlines (appended) */
    OP_GROUP_LIMITS, OP_EXEC_LIMITS, OP_GROUP_PAUSE, OP_GROUP_RESUME, OP_EXEC_PAUSE, OP_EXEC_RESUME, OP_SUBMIT_DEADLINE,
    /* the fleet layer (appended: 50, 51, 52) */
    OP_FLEET_ANSWER, OP_FLEET_NOTIFY, OP_FLEET_REPORT,
    /* the pool's hint, groupconc_context_blocking (appended: 53) */
    OP_SUBMIT_HINT,
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
    s->deadline_possible = LV.any_deadline; /* submitted with max_wait 0: the group's, else the policy's */
    s->pz_g = LV.gpaused[group] ? atomic_load(&HI.gepoch[group]) : -1;
    s->pz_x = LV.xpaused ? atomic_load(&HI.xepoch) : -1;
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
enum { SUB_PLAIN, SUB_SELF_BLOCK, SUB_DEFER, SUB_DEADLINE, SUB_HINT }; /* SUB_HINT: no b3 */
/* OP_SUBMIT_DEADLINE: b3 % 8 picks spec.max_wait_ns: short (1-20 ms: some expire while they wait),
   0 (the group's, else the policy's), GROUPCONC_FOREVER (none), or -5 (ELIMIT, nothing done) */
static const int64_t deadline_waits[8] = {1000000, 2000000, 5000000, 10000000, 20000000, 0, GROUPCONC_FOREVER, -5};

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void op_submit(reader *r, int mode) {
    bool self_block = mode == SUB_SELF_BLOCK;
    unsigned b1 = rd(r), b2 = rd(r);
    int group = (int)(b1 % NG);
    int beh = (int)((b1 / NG) % B_COUNT);
    bool handle = (b2 & 6u) != 6u;
    bool named = (b2 & 0x38u) != 0x38u;
    bool cb = (b2 & 0x40u) != 0;
    bool with_cleanup = (b2 & 0x80u) != 0;
    unsigned b3 = mode != SUB_PLAIN && mode != SUB_HINT ? rd(r) : 0u;
    slot *s = new_slot(group, beh, (int)(b2 & 1u), named);
    if (!s) return;
    if (mode == SUB_DEFER) {
        static const int modes[8] = {DM_PARK, DM_PARK, DM_PARK, DM_PARK, DM_PARK, DM_INLINE, DM_VOID, DM_NODEFER};
        s->defer_mode = modes[b3 % 8u];
        s->defer_twice = (b3 & 8u) != 0;
        s->defer_choice = (b3 >> 4) % 6u;
    }
    s->decision = (int)(b1 / 30u) % D_COUNT;
    if (mode == SUB_DEADLINE) {
        s->max_wait = deadline_waits[b3 % 8u];
        s->deadline_possible = s->max_wait > 0 || (s->max_wait == 0 && LV.any_deadline);
        atomic_fetch_add(&acounters[A_LV_DEADLINE_SUBMIT], 1);
    }
    s->self_block = self_block;
    s->hint = mode == SUB_HINT;
    s->self_timeout = self_block ? (int)(b3 % 4u) : 0;
    long inj = atomic_load(&fz_injected);
    groupconc_task *h = NULL;
    int rc;
    s->t0 = mono_ns();
    if (with_cleanup || mode == SUB_DEADLINE) {
        groupconc_task_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.group = group_names[group];
        spec.task_id = named ? s->id : NULL;
        spec.fn = fz_task;
        spec.arg = s;
        spec.cleanup = with_cleanup ? fz_cleanup : NULL;
        spec.max_wait_ns = s->max_wait;
        s->has_cleanup = with_cleanup;
        rc = fz_code(groupconc_submit_spec(F.ex, &spec, handle ? &h : NULL));
    } else {
        rc = fz_code(groupconc_submit(F.ex, group_names[group], named ? s->id : NULL, fz_task, s, handle ? &h : NULL));
    }
    s->submit_rc = rc;
    check_nomem(rc, inj, "submit");
    if (rc != GROUPCONC_ELIMIT && rc != GROUPCONC_EGROUPS_FULL) /* (those two: A_LV_* below) */
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
    FZ_CHECK(s->max_wait >= 0 || s->max_wait == GROUPCONC_FOREVER ? rc != GROUPCONC_ELIMIT : rc == GROUPCONC_ELIMIT,
             "submit with max_wait_ns %lld returned %s", (long long)s->max_wait, groupconc_errname(rc));
    if (rc == GROUPCONC_ELIMIT) { /* refused before anything: no event */
        FZ_CHECK(atomic_load(&s->ev_submitted) == 0, "submit refused ELIMIT, but SUBMITTED was reported");
        return;
    }
    if (rc == GROUPCONC_EREJECTED_WAITING) atomic_fetch_add(&acounters[A_LV_REJ_WAITING], 1);
    if (rc == GROUPCONC_EGROUPS_FULL) { /* a new key, the table at max_groups and no group idle */
        FZ_CHECK(LV.max_groups != UNL, "submit returned EGROUPS_FULL without max_groups");
        LV.groups_full++;
        atomic_fetch_add(&acounters[A_LV_GROUPS_FULL], 1);
        if (s->named && F.listener_on)
            FZ_CHECK(atomic_load(&s->ev_rejected) == 1 && atomic_load(&s->ev_rej_reason) == GROUPCONC_EGROUPS_FULL &&
                         atomic_load(&s->ev_completed) == 1 && atomic_load(&s->ev_status) == GROUPCONC_STATUS_REJECTED &&
                         atomic_load(&s->ev_reason) == GROUPCONC_EGROUPS_FULL,
                     "task %s refused EGROUPS_FULL: its REJECTED / COMPLETED events do not say so", s->id);
        return;
    }
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
    if (evict) atomic_fetch_add(&HI.gepoch[g], 1); /* the key's next state is not paused */
    int rc = fz_code(evict ? groupconc_group_evict(F.ex, group_names[g]) : groupconc_group_shutdown(F.ex, group_names[g]));
    FZ_CHECK(rc == GROUPCONC_OK, "%s(%s): %s", evict ? "groupconc_group_evict" : "groupconc_group_shutdown", group_names[g],
             groupconc_errname(rc));
    check_flagged(parked, np, evict ? "group evict" : "group shutdown");
    if (evict && F.gen[g] + 1 < MAX_GEN) F.gen[g]++;
    if (evict) { /* a new state, when next used: not paused, the limits one made now gets, nobody waiting */
        counters[C_EVICT]++;
        LV.gpaused[g] = false;
        LV.adm_known[g] = false;
        pthread_mutex_lock(&H.mu);
        HI.thr[g] = 0; /* its waiters were swept with it */
        pthread_mutex_unlock(&H.mu);
        lv_fresh(g);
    }
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
    memset(specs, 0, sizeof specs);
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
            if (is_rej_code(x->reason)) { /* (the fleet's: after submit accepted it, so its cleanup ran) */
                FZ_CHECK(!caller_runs(), "execute_all %s: REJECTED (%s) under CALLER_RUNS", s->id, groupconc_errname(x->reason));
                if (is_fleet_reject(x->reason)) {
                    FZ_CHECK(!s->named || !F.listener_on || atomic_load(&s->ev_completed) == 1,
                             "execute_all %s (REJECTED by the fleet) returned before its COMPLETED event", s->id);
                    check_cleanup(s, "rejected by the fleet in execute_all");
                    atomic_fetch_add(&acounters[A_FL_REJECTED], 1);
                }
            } else if (is_expiry(x->reason)) { /* accepted, then its queue deadline passed */
                check_expired(s, x);
                FZ_CHECK(!s->named || !F.listener_on || atomic_load(&s->ev_completed) == 1,
                         "execute_all %s (expired) returned before its COMPLETED event", s->id);
                check_cleanup(s, "expired in execute_all");
            } else {
                FZ_CHECK((x->reason == GROUPCONC_ESHUTDOWN && F.shutdown_called) ||
                             (x->reason == GROUPCONC_ETHREAD && atomic_load(&fz_start_fail)) ||
                             (x->reason == GROUPCONC_ENOMEM && atomic_load(&fz_injected) > inj) ||
                             (x->reason == GROUPCONC_EGROUPS_FULL && LV.max_groups != UNL),
                         "execute_all %s: REJECTED with %s", s->id, groupconc_errname(x->reason));
                if (x->reason == GROUPCONC_EGROUPS_FULL) LV.groups_full++;
            }
            break;
        default: fz_fail("execute_all %s: status %d", s->id, (int)x->status);
        }
        FZ_CHECK(atomic_load(&s->ev_completed) <= 1, "execute_all %s: COMPLETED twice", s->id);
        if (x->status != GROUPCONC_STATUS_REJECTED || decided || is_expiry(x->reason) || is_fleet_reject(x->reason)) {
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
    /* beyond the seeds (OP_POLICY keeps the decoded values, which are valid; the model has them all) */
    if (!cap_ok(p->global_max_running))
        return want_bad(w, GROUPCONC_ELIMIT, "global_max_running", NULL, p->global_max_running, true, true);
    if (!threshold_ok(p->max_waiting)) return want_bad(w, GROUPCONC_ELIMIT, "max_waiting", NULL, p->max_waiting, true, true);
    if (p->default_max_wait_ns <= 0 && p->default_max_wait_ns != GROUPCONC_FOREVER)
        return want_bad(w, GROUPCONC_ELIMIT, "default_max_wait_ns", NULL, p->default_max_wait_ns, true, true);
    if (!cap_ok(p->max_groups)) return want_bad(w, GROUPCONC_ELIMIT, "max_groups", NULL, p->max_groups, true, true);
    if (p->group_idle_ns <= 0 && p->group_idle_ns != GROUPCONC_FOREVER)
        return want_bad(w, GROUPCONC_ELIMIT, "group_idle_ns", NULL, p->group_idle_ns, true, true);
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
        snprintf(f, sizeof f, "groups[%zu].max_wait_ns", i);
        if (e->max_wait_ns < 0 && e->max_wait_ns != GROUPCONC_FOREVER && e->max_wait_ns != GROUPCONC_DEFAULT)
            return want_bad(w, GROUPCONC_ELIMIT, f, e->group, e->max_wait_ns, true, true);
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
    if (a % 3u >= 1) tab[n++] = (groupconc_group_limits){"g2", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0};
    if (a % 3u >= 2) tab[n++] = (groupconc_group_limits){"g3", 1, UNL, 0, 0};
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
    int att0 = atomic_load(&FL.attach_other), det0 = atomic_load(&FL.detach_other);
    int rc_create = fz_code(groupconc_executor_create(qp, &ex2));
    /* the fleet provider (the decoded policy's) is attached to it iff create says OK, before it returns */
    int want_att = att0 + (rc_create == GROUPCONC_OK && qp && qp->fleet.acquire ? 1 : 0);
    FZ_CHECK(atomic_load(&FL.attach_other) == want_att, "fleet attach: %d calls for a policy variant's executor (create %s)",
             atomic_load(&FL.attach_other) - att0, groupconc_errname(rc_create));
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
        FZ_CHECK(atomic_load(&FL.detach_other) == det0 + (want_att - att0), "fleet detach: %d calls for a destroyed variant's executor, "
                 "%d attaches", atomic_load(&FL.detach_other) - det0, want_att - att0);
        if (want_att > att0) atomic_fetch_add(&acounters[A_FL_ATTACH_OTHER], 1);
        atomic_fetch_add(&acounters[A_POLICY_OK], 1);
    } else {
        FZ_CHECK(ex2 == NULL, "executor_create returned %s but left *out_executor set", groupconc_errname(rc_create));
        if (!nomem) atomic_fetch_add(&acounters[A_POLICY_BAD], 1);
    }
}

/* ---- admission gates and deferred completion ---------------------------------------------------- */

static _Thread_local int tl_helper_thread; /* a short-lived thread of the fuzzer's (releases, completions) */

#ifndef GROUPCONC_NO_GATE
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
        FZ_CHECK(w == GS ? ev->reason == GROUPCONC_EGATE_FULL : is_gate_refusal(ev->reason) || ev->reason == GROUPCONC_ESHUTDOWN,
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
static void gate_exact(int g, int rc, int brc, const groupconc_gate_stats *before, const groupconc_executor_stats *e1, long ws0) {
    groupconc_group_stats gs[NG];
    bool found[NG];
    for (int k = 0; k < NG; k++) {
        int grc = fz_code(fz_group_stats(k, &gs[k]));
        FZ_CHECK(grc == GROUPCONC_OK || grc == GROUPCONC_ENOTFOUND, "group_stats(%s): %s", group_names[k], groupconc_errname(grc));
        found[k] = grc == GROUPCONC_OK;
    }
    groupconc_executor_stats e3;
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &e3)) == GROUPCONC_OK, "executor_stats");
    /* a permit moves only with a completion (+1 succeeded / failed / cancelled, never taken back) */
    if (e1->succeeded != e3.succeeded || e1->failed != e3.failed || e1->cancelled != e3.cancelled ||
        e1->completed != e3.completed)
        return;
    /* nor with a fork made inside a fork body (a submit that is not the fuzzer's) */
    if (!wsub_still(ws0)) return;
    atomic_fetch_add(&acounters[A_GATE_EXACT], 1);
    if (rc == GROUPCONC_EGROUPS_FULL) { /* a new key, the table full of busy groups: no state made */
        FZ_CHECK(!found[g] && LV.max_groups != UNL, "try_acquire(%s): EGROUPS_FULL, but the group has a state (%d) / max_groups %d",
                 group_names[g], (int)found[g], LV.max_groups);
        if (LV.idle_ns <= 0) /* nothing reclaims by idle time: only a new key at the maximum */
            FZ_CHECK(e3.groups == (size_t)LV.max_groups, "try_acquire(%s): EGROUPS_FULL with %zu groups, max_groups %d", group_names[g],
                     e3.groups, LV.max_groups);
        return;
    }
    /* (with an idle time a refused group may have been reclaimed since) */
    if (!found[g] && rc != GROUPCONC_OK && LV.idle_ns > 0) return;
    FZ_CHECK(found[g], "group %s has no state after a try-acquire that got to its layers (%s)", group_names[g], groupconc_errname(rc));
    if (rc == GROUPCONC_EPAUSED) return; /* checked by the caller */
    if (brc == GROUPCONC_OK)
        FZ_CHECK((rc == GROUPCONC_OK) == (before->available != 0),
                 "group %s: gate_stats said available %d just before, try_acquire returned %s (nothing completed between)",
                 group_names[g], before->available, groupconc_errname(rc));
    const groupconc_group_stats *x = &gs[g];
    size_t wait_global = 0;
    for (int k = 0; k < NG; k++)
        if (found[k]) wait_global += gs[k].waiting_global;
    /* the global running cap takes a free permit past waiters: they are all of paused groups */
    size_t used[4] = {e3.global_in_flight, x->in_flight, x->in_flight - x->waiting_concurrency, e3.global_running};
    size_t waiters[4] = {wait_global, x->waiting_bulkhead, x->waiting_concurrency, 0};
    int limit[4] = {e3.global_max_in_flight, x->max_in_flight, x->concurrency, e3.global_max_running};
    static const char *const layer_name[4] = {"global in-flight", "the bulkhead", "concurrency", "global running"};
    bool full[4];
    for (int l = 0; l < 4; l++) full[l] = waiters[l] > 0 || (limit[l] != UNL && used[l] >= (size_t)limit[l]);
    if (rc == GROUPCONC_OK) {
        for (int l = 0; l < 4; l++)
            FZ_CHECK(waiters[l] == 0 && (limit[l] == UNL || used[l] <= (size_t)limit[l]),
                     "group %s: gate permit admitted, %s now has %zu used (limit %d) and %zu tasks waiting", group_names[g],
                     layer_name[l], used[l], limit[l], waiters[l]);
        return;
    }
    int L = rc == GROUPCONC_EREJECTED_GLOBAL ? 0 : rc == GROUPCONC_EREJECTED_BULKHEAD ? 1 : rc == GROUPCONC_EREJECTED_CONCURRENCY ? 2 : 3;
    for (int l = 0; l <= L; l++)
        FZ_CHECK(full[l] == (l == L),
                 "group %s: try_acquire refused with %s, but %s has %zu used (limit %d) and %zu waiting (nothing completed)",
                 group_names[g], groupconc_errname(rc), layer_name[l], used[l], limit[l], waiters[l]);
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
    long ws0 = wsub_mark();
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
        FZ_CHECK(rc == GROUPCONC_OK || is_gate_refusal(rc) || rc == GROUPCONC_ENOMEM, "executor gate try_acquire: %s",
                 groupconc_errname(rc));
        /* a pause (only the fuzzer pauses and resumes) refuses every try-acquire of the group; the
           bounded table's refusal comes first, for a new key */
        bool paused = LV.xpaused || LV.gpaused[g];
        if (rc != GROUPCONC_ENOMEM)
            FZ_CHECK(paused ? rc == GROUPCONC_EPAUSED || rc == GROUPCONC_EGROUPS_FULL : rc != GROUPCONC_EPAUSED,
                     "executor gate try_acquire(%s): %s, the group is %spaused (executor paused: %d)", key, groupconc_errname(rc),
                     paused ? "" : "not ", (int)LV.xpaused);
        if (rc == GROUPCONC_EPAUSED) atomic_fetch_add(&acounters[A_LV_GATE_PAUSED], 1);
        if (rc == GROUPCONC_EREJECTED_RUNNING) atomic_fetch_add(&acounters[A_LV_GATE_RUNNING], 1);
        if (rc == GROUPCONC_EGROUPS_FULL) {
            FZ_CHECK(LV.max_groups != UNL, "executor gate try_acquire: EGROUPS_FULL without max_groups");
            atomic_fetch_add(&acounters[A_LV_GROUPS_FULL], 1);
        }
        if (rc != GROUPCONC_ENOMEM) gate_exact(g, rc, brc, &before, &e1, ws0);
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
#endif

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
    bool group_op = strncmp(by, "group ", 6) == 0;
    for (int i = 0; i < n; i++) {
        /* a CALLER_RUNS run on a worker holds no permits: its group is not idle meanwhile, so a
           bounded table does not reclaim it and a group shutdown / evict reaches it */
        (void)group_op;
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


#ifndef GROUPCONC_NO_SCOPES
/* ---- structured scopes (issue 14) ---------------------------------------------------------------- */

static bool all_waits_end(void);

/* a cooperative park: returns 0 when released (or at the end), GROUPCONC_TASK_CANCELLED when cancelled */
static int park_wait(frec *f, groupconc_context *ctx) {
    int rc = 0;
    pthread_mutex_lock(&F.mu);
    while (!atomic_load(&f->released) && !atomic_load(&SC.parks_all)) {
        if (groupconc_context_is_cancelled(ctx)) {
            rc = GROUPCONC_TASK_CANCELLED;
            break;
        }
        struct timespec ts;
        clock_gettime(FZ_CV_CLOCK, &ts);
        ts.tv_nsec += 500000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&F.cv, &F.mu, &ts);
    }
    pthread_mutex_unlock(&F.mu);
    atomic_fetch_add(&acounters[rc ? A_SC_PARK_CANCELLED : A_SC_PARK_RELEASED], 1);
    return rc;
}

static void park_release(frec *f) {
    pthread_mutex_lock(&F.mu);
    atomic_store(&f->released, 1);
    pthread_cond_broadcast(&F.cv);
    pthread_mutex_unlock(&F.mu);
}

static void parks_release_all(void) {
    for (int i = 0; i < SC.nfr; i++)
        if (SC.fr[i].kind == K_PARK) park_release(&SC.fr[i]);
}

/* The cleanup of a fork submitted with one: never while its body runs. */
static void fz_fork_cleanup(void *arg) {
    frec *f = arg;
    FZ_CHECK(f >= SC.fr && f < SC.fr + MAX_FREC, "fork cleanup: unknown arg");
    FZ_CHECK(atomic_load(&f->runs) == atomic_load(&f->finished), "fork %s: cleanup while its body runs", f->id);
    FZ_CHECK(atomic_fetch_add(&f->cleanups, 1) == 0, "fork %s: cleanup ran twice", f->id);
}

static int fz_fork_task(groupconc_context *ctx, void **out_value, void *arg);

/* A fork with a foreign thread: refused (ENOTOWNER), so it never runs. */
static int fz_never_task(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    fz_fail("a fork made from a foreign thread (ENOTOWNER) ran");
}

/* Fork f into scope s (record c), from the fuzzer thread or from a fork body. Records its index
   (by_index: every fork index has exactly one record) and checks the code against what a fork can
   return from here. */
static int do_fork(frec *f, srec *c, groupconc_scope *s) {
    groupconc_task_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.group = group_names[f->group];
    spec.task_id = f->id;
    spec.fn = fz_fork_task;
    spec.arg = f;
    spec.cleanup = f->has_cleanup ? fz_fork_cleanup : NULL;
    bool in_body = !tl_fuzzer_thread;
    /* max_wait 0: the group's deadline, else the policy's (a fork in a fork body: whenever it runs) */
    f->deadline_possible = in_body || LV.any_deadline;
    if (in_body) {
        atomic_fetch_add(&SC.wsub_inflight, 1);
        atomic_fetch_add(&SC.wsub_total, 1);
    }
    size_t idx = (size_t)-1;
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_scope_fork(s, &spec, &idx));
    if (in_body) atomic_fetch_sub(&SC.wsub_inflight, 1);
    atomic_store(&f->fork_rc, rc);
    bool counted = idx != (size_t)-1;
    if (counted) {
        FZ_CHECK(idx < MAX_SFORKS, "fork %s: index %zu, but at most %d forks were aimed at scope %d", f->id, idx, MAX_SFORKS, c->idx);
        atomic_store(&f->index, (int)idx);
        atomic_store(&f->state, FS_COUNTED);
        frec *prev = atomic_exchange(&c->by_index[idx], f);
        FZ_CHECK(prev == NULL, "scope %d: fork index %zu given to %s and %s", c->idx, idx, prev ? prev->id : "", f->id);
    } else {
        atomic_store(&f->state, FS_NOFORK);
    }
    switch (rc) {
    case GROUPCONC_OK: FZ_CHECK(counted, "fork %s: OK without an index", f->id); break;
    case GROUPCONC_ESCOPE_SHUTDOWN: FZ_CHECK(!counted, "fork %s: ESCOPE_SHUTDOWN, but it got index %zu", f->id, idx); break;
    case GROUPCONC_ENOMEM:
        FZ_CHECK(tl_fuzzer_thread && atomic_load(&fz_injected) > inj, "fork %s: ENOMEM with no allocation failing", f->id);
        break;
    case GROUPCONC_ESHUTDOWN: FZ_CHECK(counted, "fork %s: ESHUTDOWN (refused by submit) without an index", f->id); break;
    case GROUPCONC_ETHREAD: FZ_CHECK(counted, "fork %s: ETHREAD (refused by submit) without an index", f->id); break;
    case GROUPCONC_EGROUPS_FULL: /* a new key, the table at max_groups and none idle: refused by submit */
        FZ_CHECK(counted && LV.max_groups != UNL, "fork %s: EGROUPS_FULL (index %s, max_groups %d)", f->id, counted ? "set" : "not set",
                 LV.max_groups);
        if (tl_fuzzer_thread) LV.groups_full++;
        break;
    default:
        FZ_CHECK(is_layer_code(rc) && aborts() && counted, "fork %s: groupconc_scope_fork returned %s (index %s)", f->id,
                 groupconc_errname(rc), counted ? "set" : "not set");
    }
    /* not accepted (no fork, or refused by submit): never runs, the cleanup is not called */
    if (rc != GROUPCONC_OK)
        FZ_CHECK(atomic_load(&f->runs) == 0 && atomic_load(&f->cleanups) == 0, "fork %s refused (%s), but it ran / was cleaned up",
                 f->id, groupconc_errname(rc));
    if (!counted) atomic_fetch_add(&acounters[rc == GROUPCONC_ESCOPE_SHUTDOWN ? A_SC_FORK_SHUT : A_SC_FORK_NOMEM], 1);
    else atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_SC_FORK_OK : A_SC_FORK_REFUSED], 1);
    return rc;
}

/* A fork's result (its fork is done): what its body did, or the rejection handler decided, or why
   it never ran; its cleanup and events. */
static void check_fork_result(frec *f, const groupconc_result *r) {
    int frc = atomic_load(&f->fork_rc);
    bool refused = frc != GROUPCONC_OK; /* by submit: a fork with a REJECTED result, never accepted */
    name_status(r->status);
    fz_code(r->reason);
    FZ_CHECK(r->group && strcmp(r->group, group_names[f->group]) == 0, "fork %s: result group \"%s\"", f->id,
             r->group ? r->group : "(null)");
    /* the caller's id, refused by submit or not */
    FZ_CHECK(r->task_id && strcmp(r->task_id, f->id) == 0, "fork %s: result task id \"%s\" (refused by submit: %d)", f->id,
             r->task_id ? r->task_id : "(null)", (int)refused);
    FZ_CHECK(r->end_ns >= r->start_ns, "fork %s: end before start", f->id);
    int runs = atomic_load(&f->runs);
    if (atomic_load(&f->handler_calls)) {
        groupconc_status want = decided_status(f->decision);
        FZ_CHECK(r->status == want && runs == 0, "fork %s: the handler decided %d, result %s, runs %d", f->id, f->decision,
                 groupconc_status_name(r->status), runs);
        if (want == GROUPCONC_STATUS_SUCCESS || want == GROUPCONC_STATUS_FAILED)
            FZ_CHECK(r->value == &fork_values[f->idx] && r->error == (want == GROUPCONC_STATUS_FAILED ? 4400 + f->idx : 0),
                     "fork %s: the handler's value / error not in its result", f->id);
    } else {
        switch (r->status) {
        case GROUPCONC_STATUS_SUCCESS:
            FZ_CHECK(runs == 1 && atomic_load(&f->finished) && atomic_load(&f->ret) == 0 && r->value == f && r->error == 0,
                     "fork %s: SUCCESS without a successful run (runs %d)", f->id, runs);
            break;
        case GROUPCONC_STATUS_FAILED:
            FZ_CHECK(runs == 1 && atomic_load(&f->ret) == TASK_FAILURE && r->error == TASK_FAILURE,
                     "fork %s: FAILED (%d) without a failed run (runs %d)", f->id, r->error, runs);
            break;
        case GROUPCONC_STATUS_CANCELLED:
            FZ_CHECK(r->reason == GROUPCONC_ECANCELLED, "fork %s: CANCELLED with reason %s", f->id, groupconc_errname(r->reason));
            FZ_CHECK(runs == 0 || atomic_load(&f->ret) == GROUPCONC_TASK_CANCELLED, "fork %s: ran to %d but is CANCELLED", f->id,
                     atomic_load(&f->ret));
            break;
        case GROUPCONC_STATUS_REJECTED:
            FZ_CHECK(runs == 0 && r->start_ns == r->end_ns, "fork %s: REJECTED, but it ran (%d) / has a duration", f->id, runs);
            if (refused) FZ_CHECK(r->reason == frc, "fork %s: refused with %s, result reason %s", f->id, groupconc_errname(frc),
                                  groupconc_errname(r->reason));
            else if (is_expiry(r->reason)) /* its queue deadline passed: no handler, no CALLER_RUNS */
                FZ_CHECK(f->deadline_possible && r->value == NULL && r->error == 0,
                         "fork %s: expired (%s), but no queue deadline applies to it", f->id, groupconc_errname(r->reason));
            else FZ_CHECK(is_rej_code(r->reason) && !caller_runs() && F.rejection != 3,
                          "fork %s: accepted, then REJECTED with %s (policy %d)", f->id, groupconc_errname(r->reason), F.rejection);
            break;
        default: fz_fail("fork %s: result status %d", f->id, (int)r->status);
        }
    }
    if (f->has_cleanup)
        FZ_CHECK(atomic_load(&f->cleanups) == (refused ? 0 : 1), "fork %s (%s): %d cleanups", f->id, refused ? "refused" : "accepted",
                 atomic_load(&f->cleanups));
    if (F.listener_on) {
        if (refused) FZ_CHECK(atomic_load(&f->ev_completed) == atomic_load(&f->ev_submitted) && atomic_load(&f->ev_started) == 0,
                              "fork %s refused: %d SUBMITTED, %d COMPLETED events", f->id, atomic_load(&f->ev_submitted),
                              atomic_load(&f->ev_completed));
        else FZ_CHECK(atomic_load(&f->ev_completed) == 1 && atomic_load(&f->ev_started) == runs,
                      "fork %s done: %d COMPLETED, %d STARTED events, %d runs", f->id, atomic_load(&f->ev_completed),
                      atomic_load(&f->ev_started), runs);
    }
}

/* After a join (or join_for) of s (record c) returned rc (not ETIMEDOUT): every fork is done and has
   exactly one record, its callback ran once for it, and rc and groupconc_scope_first follow the
   policy. Any thread (also a fork body, for its child scope). */
static void check_joined(srec *c, groupconc_scope *s, int rc, const char *who) {
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_EFAILED, "%s join of scope %d: %s", who, c->idx, groupconc_errname(rc));
    size_t n = groupconc_scope_fork_count(s);
    FZ_CHECK(n <= MAX_SFORKS, "scope %d: %zu forks", c->idx, n);
    bool any_fail = false, any_success = false;
    groupconc_status st[MAX_SFORKS];
    for (size_t i = 0; i < n; i++) {
        groupconc_result r;
        int e = fz_code(groupconc_scope_result(s, i, &r));
        FZ_CHECK(e == GROUPCONC_OK, "scope %d joined (%s), fork %zu: groupconc_scope_result %s", c->idx, groupconc_errname(rc), i,
                 groupconc_errname(e));
        FZ_CHECK(r.status >= GROUPCONC_STATUS_SUCCESS && r.status <= GROUPCONC_STATUS_REJECTED, "scope %d fork %zu: status %d after the join",
                 c->idx, i, (int)r.status);
        st[i] = r.status;
        any_fail |= r.status == GROUPCONC_STATUS_FAILED || r.status == GROUPCONC_STATUS_REJECTED;
        any_success |= r.status == GROUPCONC_STATUS_SUCCESS;
        frec *f = atomic_load(&c->by_index[i]);
        FZ_CHECK(f != NULL, "scope %d: fork index %zu has no fork (%zu forks)", c->idx, i, n);
        FZ_CHECK(atomic_load(&f->index) == (int)i && f->sc == c, "scope %d fork %zu: record %s says index %d", c->idx, i, f->id,
                 atomic_load(&f->index));
        check_fork_result(f, &r);
        if (c->cb_mode != CBM_NONE)
            FZ_CHECK(atomic_load(&c->cb_calls[i]) == 1 && atomic_load(&c->cb_status[i]) == (int)r.status,
                     "scope %d fork %zu: on_fork_complete ran %d times (status %d, result %s)", c->idx, i, atomic_load(&c->cb_calls[i]),
                     atomic_load(&c->cb_status[i]), groupconc_status_name(r.status));
    }
    for (size_t i = n; i < MAX_SFORKS; i++)
        FZ_CHECK(atomic_load(&c->by_index[i]) == NULL && atomic_load(&c->cb_calls[i]) == 0,
                 "scope %d: index %zu recorded, but fork_count says %zu", c->idx, i, n);
    size_t first = (size_t)-1;
    int frc = fz_code(groupconc_scope_first(s, &first));
    FZ_CHECK(frc == GROUPCONC_OK || frc == GROUPCONC_ENOTFOUND, "scope_first: %s", groupconc_errname(frc));
    if (frc == GROUPCONC_OK) FZ_CHECK(first < n, "scope %d: scope_first %zu of %zu forks", c->idx, first, n);
    const char *pn = groupconc_scope_policy_name(c->policy);
    switch (c->policy) {
    case GROUPCONC_SCOPE_COLLECT_ALL:
        FZ_CHECK(rc == GROUPCONC_OK && frc == GROUPCONC_ENOTFOUND, "%s scope %d: join %s, scope_first %s", pn, c->idx,
                 groupconc_errname(rc), groupconc_errname(frc));
        break;
    case GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE:
        FZ_CHECK((rc == GROUPCONC_EFAILED) == any_fail && (frc == GROUPCONC_OK) == any_fail,
                 "%s scope %d: join %s, scope_first %s, a fork failed: %d", pn, c->idx, groupconc_errname(rc), groupconc_errname(frc),
                 (int)any_fail);
        if (frc == GROUPCONC_OK)
            FZ_CHECK(st[first] == GROUPCONC_STATUS_FAILED || st[first] == GROUPCONC_STATUS_REJECTED, "%s scope %d: scope_first %zu is %s",
                     pn, c->idx, first, groupconc_status_name(st[first]));
        break;
    case GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS:
        FZ_CHECK((rc == GROUPCONC_OK) == any_success && (frc == GROUPCONC_OK) == any_success,
                 "%s scope %d: join %s, scope_first %s, a fork succeeded: %d", pn, c->idx, groupconc_errname(rc), groupconc_errname(frc),
                 (int)any_success);
        if (frc == GROUPCONC_OK)
            FZ_CHECK(st[first] == GROUPCONC_STATUS_SUCCESS, "%s scope %d: scope_first %zu is %s", pn, c->idx, first,
                     groupconc_status_name(st[first]));
        break;
    default:
        FZ_CHECK(rc == GROUPCONC_OK, "CUSTOM scope %d: join %s", c->idx, groupconc_errname(rc));
        FZ_CHECK((frc == GROUPCONC_OK) == (atomic_load(&c->any_first_ok) != 0), "CUSTOM scope %d: scope_first %s, first_set called: %d",
                 c->idx, groupconc_errname(frc), atomic_load(&c->any_first_ok));
        if (frc == GROUPCONC_OK)
            FZ_CHECK(atomic_load(&c->first_ok[first]), "CUSTOM scope %d: scope_first %zu, never passed to first_set", c->idx, first);
    }
    /* joined: it takes no more forks */
    groupconc_task_spec spec = {group_names[0], NULL, fz_never_task, NULL, NULL, 0};
    size_t idx = (size_t)-1;
    int e = fz_code(groupconc_scope_fork(s, &spec, &idx));
    FZ_CHECK(e == GROUPCONC_ESCOPE_SHUTDOWN && idx == (size_t)-1, "scope %d: fork after its join: %s", c->idx, groupconc_errname(e));
    FZ_CHECK(groupconc_scope_fork_count(s) == n, "scope %d: fork_count changed after its join", c->idx);
    atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_SC_JOIN : A_SC_JOIN_EFAILED], 1);
}

/* on_fork_complete: once per fork, with a result that is final; what cb_mode says */
static void fz_scope_cb(groupconc_scope *scope, size_t index, const groupconc_result *r, void *user_data) {
    srec *c = user_data;
    FZ_CHECK(c >= SC.sr && c < SC.sr + MAX_SREC, "scope callback: unknown user_data");
    FZ_CHECK(scope && scope == atomic_load(&c->s), "scope callback of scope %d: another scope", c->idx);
    FZ_CHECK(index < MAX_SFORKS && index < groupconc_scope_fork_count(scope), "scope %d callback: index %zu", c->idx, index);
    FZ_CHECK(r && r->status >= GROUPCONC_STATUS_SUCCESS && r->status <= GROUPCONC_STATUS_REJECTED, "scope %d callback: status", c->idx);
    name_status(r->status);
    fz_code(r->reason);
    atomic_store(&c->cb_status[index], (int)r->status);
    FZ_CHECK(atomic_fetch_add(&c->cb_calls[index], 1) == 0, "scope %d: on_fork_complete twice for fork %zu", c->idx, index);
    int rc;
    switch (c->cb_mode) {
    case CBM_OBSERVE: /* a fork's callback counts as inside the fork, on any thread that reports it */
        rc = fz_code(groupconc_scope_join(scope));
        FZ_CHECK(rc == GROUPCONC_EDEADLK, "scope %d callback: join of its scope: %s, want EDEADLK", c->idx, groupconc_errname(rc));
        rc = fz_code(groupconc_scope_join_for(scope, 1000000));
        FZ_CHECK(rc == GROUPCONC_EDEADLK, "scope %d callback: join_for of its scope: %s, want EDEADLK", c->idx, groupconc_errname(rc));
        rc = fz_code(groupconc_scope_close(scope));
        FZ_CHECK(rc == GROUPCONC_EDEADLK, "scope %d callback: close of its scope: %s, want EDEADLK", c->idx, groupconc_errname(rc));
        break;
#ifndef GROUPCONC_NO_DUMP
    case CBM_DUMP: { /* "anywhere except the resolver": a small buffer never holds the dump */
        char b[40];
        size_t need = 0;
        rc = fz_code(groupconc_executor_dump(F.ex, b, sizeof b, &need));
        FZ_CHECK(rc == GROUPCONC_ERANGE && need > sizeof b && strlen(b) == sizeof b - 1,
                 "dump from a scope callback into %zu bytes: %s, needed %zu, strlen %zu", sizeof b, groupconc_errname(rc), need, strlen(b));
        break;
    }
#endif
    case CBM_SHUT_ON_FAIL:
        if (r->status != GROUPCONC_STATUS_FAILED && r->status != GROUPCONC_STATUS_REJECTED) break;
        /* fall through */
    case CBM_FIRST_EACH:
        atomic_store(&c->first_ok[index], 1); /* before: the fuzzer may read scope_first at once */
        atomic_store(&c->any_first_ok, 1);
        rc = fz_code(groupconc_scope_first_set(scope, index));
        FZ_CHECK(rc == GROUPCONC_OK, "scope %d callback: first_set(%zu): %s", c->idx, index, groupconc_errname(rc));
        rc = fz_code(groupconc_scope_first_set(scope, MAX_SFORKS + 1000));
        FZ_CHECK(rc == GROUPCONC_ENOTFOUND, "scope %d callback: first_set(no such index): %s", c->idx, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SC_FIRST_SET], 1);
        if (c->cb_mode == CBM_FIRST_EACH) break;
        /* fall through */
    case CBM_SHUT_AT_ONCE:
        atomic_store(&c->cb_shutdown, 1); /* before: a fork refused after it must find it set */
        rc = fz_code(groupconc_scope_shutdown(scope));
        FZ_CHECK(rc == GROUPCONC_OK, "scope %d callback: scope_shutdown: %s", c->idx, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SC_CB_SHUT], 1);
        break;
    default: break;
    }
}

static groupconc_scope_config scope_config(srec *c) {
    groupconc_scope_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.policy = c->policy;
    cfg.on_fork_complete = c->cb_mode != CBM_NONE ? fz_scope_cb : NULL;
    cfg.user_data = c;
    cfg.name = c->has_name ? c->name : NULL;
    return cfg;
}

/* K_FORK_IN_FORK: fork into its own scope; join and close of it are refused here (EDEADLK); a dump
   from a task body */
static void body_fork_in_fork(frec *f) {
    groupconc_scope *s = atomic_load(&f->sc->s);
    (void)do_fork(f->nested, f->sc, s);
    atomic_fetch_add(&acounters[A_SC_FIF], 1);
    int rc = fz_code(groupconc_scope_join(s));
    FZ_CHECK(rc == GROUPCONC_EDEADLK, "fork %s: join of its own scope: %s, want EDEADLK", f->id, groupconc_errname(rc));
    rc = fz_code(groupconc_scope_join_for(s, 1000000));
    FZ_CHECK(rc == GROUPCONC_EDEADLK, "fork %s: join_for of its own scope: %s, want EDEADLK", f->id, groupconc_errname(rc));
    rc = fz_code(groupconc_scope_close(s));
    FZ_CHECK(rc == GROUPCONC_EDEADLK, "fork %s: close of its own scope: %s, want EDEADLK", f->id, groupconc_errname(rc));
#ifndef GROUPCONC_NO_DUMP
    char b[64];
    size_t need = 0;
    rc = fz_code(groupconc_executor_dump(F.ex, b, sizeof b, &need));
    FZ_CHECK(rc == GROUPCONC_ERANGE && need > sizeof b && strlen(b) == sizeof b - 1, "dump from a fork body: %s, needed %zu",
             groupconc_errname(rc), need);
#endif
}

/* K_CHILD_SCOPE: open a child scope, fork into it, join it (or not), close it */
static void body_child_scope(frec *f) {
    srec *c = f->child;
    groupconc_scope_config cfg = scope_config(c);
    groupconc_scope *cs = (groupconc_scope *)(void *)&F; /* must be NULL after an error */
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_scope_open(F.ex, &cfg, &cs));
    if (rc != GROUPCONC_OK) { /* the executor or this fork's scope is shut down */
        FZ_CHECK(cs == NULL, "fork %s: scope_open %s left the scope set", f->id, groupconc_errname(rc));
        FZ_CHECK(rc == GROUPCONC_ESHUTDOWN || (rc == GROUPCONC_ENOMEM && tl_fuzzer_thread && atomic_load(&fz_injected) > inj),
                 "fork %s: child scope_open: %s", f->id, groupconc_errname(rc));
        atomic_store(&f->nested->state, FS_NOFORK);
        return;
    }
    atomic_store(&c->s, cs);
    atomic_store(&c->opened, 1);
    atomic_fetch_add(&acounters[A_SC_CHILD_OPEN], 1);
    (void)do_fork(f->nested, c, cs);
    /* the parent cannot be closed from inside its fork */
    groupconc_scope *ps = atomic_load(&f->sc->s);
    rc = fz_code(groupconc_scope_close(ps));
    FZ_CHECK(rc == GROUPCONC_EDEADLK, "fork %s: close of its own scope (with a child open): %s", f->id, groupconc_errname(rc));
    /* a wait on a worker lets the pool grow by one thread */
    if (!tl_fuzzer_thread) atomic_fetch_add(&SC.blocked_ever, 1);
    if (f->child_left_open) { /* closed as this body returns (shut down, its fork waited for), before
                                 this fork completes: the parent's close never finds it open;
                                 c->s stays for its callbacks, nothing else reads a child's */
        atomic_store(&c->closed_by_body, 1);
        atomic_fetch_add(&acounters[A_SC_CHILD_LEFT_OPEN], 1);
        return;
    }
    int jr = GROUPCONC_ETIMEDOUT;
    bool joined = false;
    if (f->child_no_join) {
        if (tl_fuzzer_thread) FZ_CHECK(fz_code(groupconc_scope_shutdown(cs)) == GROUPCONC_OK, "child scope_shutdown");
    } else {
        /* on the fuzzer thread (a CALLER_RUNS run in its submit) nobody releases a park: bounded */
        if (tl_fuzzer_thread || f->child_join_for) jr = fz_code(groupconc_scope_join_for(cs, tl_fuzzer_thread ? 2000000 : 300000));
        if (jr == GROUPCONC_ETIMEDOUT) jr = fz_code(groupconc_scope_join(cs));
        check_joined(c, cs, jr, "child");
        joined = true;
    }
    rc = fz_code(groupconc_scope_close(cs));
    FZ_CHECK(rc == (joined ? GROUPCONC_OK : GROUPCONC_ENOTJOINED), "fork %s: close of its child scope: %s (joined %d)", f->id,
             groupconc_errname(rc), (int)joined);
    frec *n = f->nested;
    FZ_CHECK(atomic_load(&n->runs) == 0 || atomic_load(&n->finished), "fork %s: child scope closed, its fork %s still runs", f->id, n->id);
    atomic_store(&c->s, NULL);
    atomic_store(&c->closed_by_body, 1);
    atomic_fetch_add(&acounters[A_SC_CHILD_CLOSED], 1);
}

/* a running body counts against the caps (as fz_task's does) */
static void fork_hold(frec *f) {
    atomic_store(&f->counted, 1);
    cap_check("fork", f->id, f->group, f->gen, f->pz_g, f->pz_x);
}

static int fz_fork_task(groupconc_context *ctx, void **out_value, void *arg) {
    frec *f = arg;
    FZ_CHECK(f >= SC.fr && f < SC.fr + MAX_FREC, "fork body: unknown arg");
    FZ_CHECK(atomic_fetch_add(&f->runs, 1) == 0, "fork %s ran twice", f->id);
    FZ_CHECK(ctx != NULL && groupconc_context_executor(ctx) == F.ex, "fork %s: context", f->id);
    const char *g = groupconc_context_group(ctx), *id = groupconc_context_task_id(ctx);
    FZ_CHECK(g && strcmp(g, group_names[f->group]) == 0 && id && strcmp(id, f->id) == 0, "fork %s: context group / id", f->id);
    FZ_CHECK(atomic_load(&f->handler_calls) == 0, "fork %s ran after the rejection handler took it", f->id);
    FZ_CHECK(atomic_load(&f->cleanups) == 0, "fork %s runs after its cleanup", f->id);
    /* as fz_task: no permits on the submitting thread (CALLER_RUNS) or after a REJECTED event; the
       forks made in bodies are not counted (their group state generation is not known there) */
    bool no_permits = !f->top || tl_fuzzer_thread || atomic_load(&f->ev_rejected) > 0 || (!F.listener_on && caller_runs());
    if (!no_permits) {
        if (F.listener_on) FZ_CHECK(atomic_load(&f->ev_started) == 1, "fork %s runs before its STARTED event", f->id);
        fork_hold(f);
    }
    int rc = 0;
    switch (f->kind) {
    case K_OK: break;
    case K_FAIL: rc = TASK_FAILURE; break;
    case K_PARK: rc = tl_fuzzer_thread ? 0 : park_wait(f, ctx); break; /* the fuzzer thread cannot release itself */
    case K_FORK_IN_FORK: body_fork_in_fork(f); break;
    case K_CHILD_SCOPE: body_child_scope(f); break;
    default: fz_fail("fork kind %d", f->kind);
    }
    if (atomic_load(&f->counted)) hold_add(0, f->group, f->gen, -1);
    atomic_store(&f->ret, rc);
    atomic_store(&f->finished, 1);
    *out_value = f;
    return rc;
}

/* the custom rejection handler, for a fork: decides SUCCESS / FAILED / CANCELLED / leaves it (never
   arg_taken: the argument it is given is the library's, not the fork's) */
static void fz_fork_reject(const groupconc_rejection *rj, groupconc_reject_result *out) {
    frec *f = frec_of(rj->task_id);
    FZ_CHECK(strcmp(rj->group, group_names[f->group]) == 0, "rejection handler, fork %s: group", f->id);
    FZ_CHECK(is_rej_code(fz_code(rj->reason)), "rejection handler, fork %s: reason %s", f->id, groupconc_errname(rj->reason));
    FZ_CHECK(atomic_load(&f->runs) == 0 && atomic_load(&f->cleanups) == 0, "rejection handler for fork %s that ran", f->id);
    FZ_CHECK(out->status == GROUPCONC_STATUS_REJECTED && out->value == NULL && out->error == 0 && !out->arg_taken,
             "rejection handler, fork %s: *out not pre-filled", f->id);
    FZ_CHECK(atomic_fetch_add(&f->handler_calls, 1) == 0, "rejection handler twice for fork %s", f->id);
    void *value = &fork_values[f->idx];
    atomic_fetch_add(&acounters[A_SC_HANDLER], 1);
    switch (f->decision) {
    case D_SUCCESS: *out = (groupconc_reject_result){GROUPCONC_STATUS_SUCCESS, value, 0, false}; break;
    case D_FAILED: *out = (groupconc_reject_result){GROUPCONC_STATUS_FAILED, value, 4400 + f->idx, false}; break;
    case D_CANCELLED: *out = (groupconc_reject_result){GROUPCONC_STATUS_CANCELLED, value, 0, false}; break;
    default: break;
    }
}

/* ---- the fuzzer's scopes ---- */

static srec *new_srec(void) {
    if (SC.nsr >= MAX_SREC) return NULL;
    srec *c = &SC.sr[SC.nsr];
    c->idx = SC.nsr++;
    return c;
}

static frec *new_frec(int kind, int group, srec *into) {
    if (SC.nfr >= MAX_FREC) return NULL;
    frec *f = &SC.fr[SC.nfr];
    f->idx = SC.nfr++;
    snprintf(f->id, sizeof f->id, "f%u", (unsigned)f->idx % 1000u);
    f->kind = kind;
    f->group = group;
    f->sc = into;
    f->pz_g = f->pz_x = -1;
    atomic_store(&f->index, -1);
    return f;
}

/* b % 4: no name, "", a name with quotes, backslashes, control bytes and UTF-8, or (b >> 2) % 6 bytes
   of the input (0 read as 1); "#<record>" is appended (names are unique: the dump check finds them) */
static void decode_name(srec *c, unsigned b, reader *r) {
    char base[16] = "";
    switch (b % 4u) {
    case 0: c->has_name = false; return;
    case 1: break;
    case 2: snprintf(base, sizeof base, "%s", "q\"b\\s\x01\n\t\x7f\xc3\xa9/"); break;
    default:
        for (unsigned i = 0, n = (b >> 2) % 6u; i < n; i++) {
            unsigned x = rd(r);
            base[i] = (char)(x ? x : 1u);
        }
        break;
    }
    snprintf(c->name, sizeof c->name, "%s#%d", base, c->idx);
    c->has_name = true;
}

static int decode_cb_mode(groupconc_scope_policy policy, unsigned v) {
    static const int custom[5] = {CBM_OBSERVE, CBM_DUMP, CBM_SHUT_ON_FAIL, CBM_FIRST_EACH, CBM_SHUT_AT_ONCE};
    static const int other[4] = {CBM_NONE, CBM_OBSERVE, CBM_NONE, CBM_DUMP};
    return policy == GROUPCONC_SCOPE_CUSTOM ? custom[v % 5u] : other[v % 4u];
}

static srec *pick_open(unsigned b) { return SC.nopen ? SC.stack[b % (unsigned)SC.nopen] : NULL; }

/* a join or close of c cannot block for good: it is joined or shut down (what remains is cancelled or
   flagged: the parks are cooperative, the child scopes shut down with it), or everything finishes
   anyway (every latch open, no blocker: no held permit, parked deferral or unreleased park) */
static bool wait_ends(const srec *c) { return c->joined || c->known_shut || all_waits_end(); }

static void scope_shut(srec *c, const char *why) {
    int rc = fz_code(groupconc_scope_shutdown(atomic_load(&c->s)));
    FZ_CHECK(rc == GROUPCONC_OK, "scope_shutdown (%s): %s", why, groupconc_errname(rc));
    c->known_shut = true;
    atomic_fetch_add(&acounters[A_SC_SHUTDOWN], 1);
}

/* b1: policy b1 % 4, the callback (b1 >> 2) (decode_cb_mode), b1 >> 5: 0-5 this config, 6 config NULL,
   7 bad arguments ((b2 >> 5) % 5: policy 4, policy -1, CUSTOM without callback, ex NULL, out NULL);
   b2 % 4 the name (decode_name) */
static void op_scope_open(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r);
    srec tmp;
    memset(&tmp, 0, sizeof tmp);
    srec *c = SC.nopen < MAX_OPEN ? new_srec() : NULL;
    if (!c) c = &tmp; /* decode anyway: the same bytes are read either way */
    c->policy = (groupconc_scope_policy)(b1 % 4u);
    c->cb_mode = decode_cb_mode(c->policy, b1 >> 2);
    decode_name(c, b2, r);
    if (c == &tmp) return;
    unsigned variant = b1 >> 5;
    groupconc_scope_config cfg = scope_config(c);
    groupconc_scope *s = (groupconc_scope *)(void *)&F; /* must be NULL after an error */
    if (variant == 7) {
        unsigned bad = (b2 >> 5) % 5u;
        int want = bad <= 1 ? GROUPCONC_EPOLICY : GROUPCONC_EINVAL, rc;
        if (bad == 0) cfg.policy = (groupconc_scope_policy)4;
        if (bad == 1) cfg.policy = (groupconc_scope_policy)-1;
        if (bad == 2) cfg.policy = GROUPCONC_SCOPE_CUSTOM, cfg.on_fork_complete = NULL;
        if (bad == 4) {
            rc = fz_code(groupconc_scope_open(F.ex, &cfg, NULL));
        } else {
            rc = fz_code(groupconc_scope_open(bad == 3 ? NULL : F.ex, &cfg, &s));
            FZ_CHECK(s == NULL, "scope_open(bad argument %u) left the scope set", bad);
        }
        FZ_CHECK(rc == want, "scope_open(bad argument %u): %s, want %s", bad, groupconc_errname(rc), groupconc_errname(want));
        atomic_fetch_add(&acounters[A_SC_OPEN_BAD], 1);
        return;
    }
    if (variant == 6) { /* config NULL: COLLECT_ALL, no callback, no name */
        c->policy = GROUPCONC_SCOPE_COLLECT_ALL;
        c->cb_mode = CBM_NONE;
        c->has_name = false;
    }
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_scope_open(F.ex, variant == 6 ? NULL : &cfg, &s));
    check_nomem(rc, inj, "scope_open");
    if (rc != GROUPCONC_OK) {
        FZ_CHECK(s == NULL, "scope_open %s left the scope set", groupconc_errname(rc));
        FZ_CHECK(F.shutdown_called ? rc == GROUPCONC_ESHUTDOWN : rc == GROUPCONC_ENOMEM, "scope_open: %s (executor shut down: %d)",
                 groupconc_errname(rc), (int)F.shutdown_called);
        atomic_fetch_add(&acounters[rc == GROUPCONC_ESHUTDOWN ? A_SC_OPEN_SHUTDOWN : A_SC_FORK_NOMEM], 1);
        return;
    }
    FZ_CHECK(!F.shutdown_called && s != NULL && s != (groupconc_scope *)(void *)&F, "scope_open OK after a shutdown / no scope");
    FZ_CHECK(groupconc_scope_fork_count(s) == 0, "a new scope has forks");
    atomic_store(&c->s, s);
    c->open = true;
    SC.stack[SC.nopen++] = c;
    atomic_fetch_add(&acounters[A_SC_OPEN], 1);
}

/* b1: the scope (b1 % open), the rejection handler's decision (b1 >> 4) % 4 (D_DEFAULT .. D_CANCELLED);
   b2: group b2 % NG, body (b2 / NG) % K_COUNT, the nested fork's decision (b2 / 30) % 4; b3: the
   nested fork's body (fork in fork: b3 % 2 OK / FAIL; child scope: b3 % 3 OK / FAIL / PARK), the child
   scope's policy (b3 >> 2) % 4 and callback (b3 >> 4); b4: the nested fork's group (b4 >> 3) % NG,
   cleanups (bit 7: the fork, bit 6: the nested one), the child's join: bits 2-1: 10 join_for first,
   01 no join (close only), 11 neither join nor close (left open: closed as the body returns); bits
   0+5 its name */
static void op_scope_fork(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r), b3 = rd(r), b4 = rd(r);
    srec *c = pick_open(b1);
    if (!c) return;
    int kind = (int)((b2 / NG) % K_COUNT), group = (int)(b2 % NG);
    int need = kind == K_FORK_IN_FORK ? 2 : 1;
    if (c->reserved + need > MAX_SFORKS || SC.nfr + 2 > MAX_FREC || (kind == K_CHILD_SCOPE && SC.nsr >= MAX_SREC)) return;
    static const int decisions[4] = {D_DEFAULT, D_SUCCESS, D_FAILED, D_CANCELLED};
    frec *f = new_frec(kind, group, c);
    f->top = true;
    f->gen = F.gen[group];
    f->pz_g = LV.gpaused[group] ? atomic_load(&HI.gepoch[group]) : -1;
    f->pz_x = LV.xpaused ? atomic_load(&HI.xepoch) : -1;
    f->decision = decisions[(b1 >> 4) % 4u];
    f->has_cleanup = (b4 & 0x80u) != 0;
    if (kind == K_FORK_IN_FORK || kind == K_CHILD_SCOPE) {
        srec *into = c;
        int nk = (int)(b3 % 2u);
        if (kind == K_CHILD_SCOPE) {
            static const int nks[3] = {K_OK, K_FAIL, K_PARK};
            into = new_srec();
            into->child = true;
            into->policy = (groupconc_scope_policy)((b3 >> 2) % 4u);
            into->cb_mode = decode_cb_mode(into->policy, b3 >> 4);
            decode_name(into, (b4 & 1u) | ((b4 >> 4) & 2u), r);
            f->child = into;
            f->child_left_open = (b4 & 6u) == 6u; /* no join, no close: the library closes it */
            f->child_join_for = (b4 & 6u) == 4u;
            f->child_no_join = (b4 & 6u) == 2u;
            nk = nks[b3 % 3u];
        }
        frec *n = new_frec(nk, (int)((b4 >> 3) % NG), into);
        n->parent = f;
        n->has_cleanup = (b4 & 0x40u) != 0;
        n->decision = decisions[(b2 / (NG * K_COUNT)) % 4u];
        f->nested = n;
    }
    c->reserved += need;
    bool expect_shut = c->known_shut || c->joined;
    int rc = do_fork(f, c, atomic_load(&c->s));
    if (rc != GROUPCONC_OK && f->nested) atomic_store(&f->nested->state, FS_NOFORK); /* its body never runs */
    if (expect_shut) {
        FZ_CHECK(rc == GROUPCONC_ESCOPE_SHUTDOWN, "fork into scope %d (%s): %s, want ESCOPE_SHUTDOWN (refused before any allocation)",
                 c->idx, c->joined ? "joined" : "shut down", groupconc_errname(rc));
    } else if (rc == GROUPCONC_ESCOPE_SHUTDOWN) { /* it shut itself down: its policy or its callback */
        size_t first;
        int frc = fz_code(groupconc_scope_first(atomic_load(&c->s), &first));
        bool by_policy = (c->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE || c->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS) &&
                         frc == GROUPCONC_OK;
        FZ_CHECK(by_policy || atomic_load(&c->cb_shutdown), "fork into scope %d: ESCOPE_SHUTDOWN, but nothing shut it down", c->idx);
        c->known_shut = true;
        atomic_fetch_add(&acounters[A_SC_POLICY_SHUT], 1);
    }
    if (rc == GROUPCONC_ESHUTDOWN) FZ_CHECK(F.shutdown_called, "fork: ESHUTDOWN before a shutdown");
    if (F.shutdown_called)
        FZ_CHECK(rc == GROUPCONC_ESHUTDOWN || rc == GROUPCONC_ESCOPE_SHUTDOWN || rc == GROUPCONC_ENOMEM, "fork after the executor's shutdown: %s",
                 groupconc_errname(rc));
    if (rc == GROUPCONC_ETHREAD) FZ_CHECK(atomic_load(&fz_start_fail), "fork: ETHREAD while thread starts work");
}

/* b % open: the scope; bit 7: from a short-lived thread (any thread may) */
static void *shut_thread(void *arg) {
    int *rc = arg;
    *rc = groupconc_scope_shutdown(atomic_load(&SC.stack[rc[1]]->s));
    return NULL;
}

static void op_scope_shutdown(reader *r) {
    unsigned b = rd(r);
    srec *c = pick_open(b);
    if (!c) return;
    pthread_t th;
    int arg[2] = {99, (int)(b % (unsigned)SC.nopen)};
    if ((b & 0x80u) && pthread_create(&th, NULL, shut_thread, arg) == 0) {
        pthread_join(th, NULL);
        FZ_CHECK(fz_code(arg[0]) == GROUPCONC_OK, "scope_shutdown from another thread: %s", groupconc_errname(arg[0]));
        c->known_shut = true;
        atomic_fetch_add(&acounters[A_SC_SHUTDOWN], 1);
        return;
    }
    scope_shut(c, "op");
    /* idempotent */
    FZ_CHECK(fz_code(groupconc_scope_shutdown(atomic_load(&c->s))) == GROUPCONC_OK, "second scope_shutdown");
}

static void joined_now(srec *c, int rc) {
    if (rc == GROUPCONC_ETIMEDOUT) { /* the deadline shut it down */
        c->known_shut = true;
        atomic_fetch_add(&acounters[A_SC_JOIN_TIMEOUT], 1);
        return;
    }
    c->joined = true;
    check_joined(c, atomic_load(&c->s), rc, "fuzzer");
}

/* b % open: the scope; (b >> 4) % 4: the timeout */
static void op_scope_join_for(reader *r) {
    static const int64_t timeouts[4] = {0, 20000, 300000, 2000000};
    unsigned b = rd(r);
    srec *c = pick_open(b);
    if (!c) return;
    int rc = fz_code(groupconc_scope_join_for(atomic_load(&c->s), timeouts[(b >> 4) % 4u]));
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_EFAILED || rc == GROUPCONC_ETIMEDOUT, "scope_join_for: %s", groupconc_errname(rc));
    FZ_CHECK(rc != GROUPCONC_ETIMEDOUT || !c->joined, "join_for of a joined scope timed out");
    joined_now(c, rc);
}

/* b % open: the scope; bit 7: release every park first; when it could block: bit 6 shut it down
   first, else a bounded join_for (1 ms) instead */
static void op_scope_join(reader *r) {
    unsigned b = rd(r);
    srec *c = pick_open(b);
    if (!c) return;
    if (b & 0x80u) parks_release_all();
    if (!wait_ends(c)) {
        if (!(b & 0x40u)) {
            int rc = fz_code(groupconc_scope_join_for(atomic_load(&c->s), 1000000));
            FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_EFAILED || rc == GROUPCONC_ETIMEDOUT, "scope_join_for: %s", groupconc_errname(rc));
            joined_now(c, rc);
            return;
        }
        scope_shut(c, "before a join");
    }
    joined_now(c, fz_code(groupconc_scope_join(atomic_load(&c->s))));
}

/* c closed (OK or ENOTJOINED): every fork of it done; its records say so */
static void closed_now(srec *c) {
    for (int i = 0; i < SC.nfr; i++) {
        frec *f = &SC.fr[i];
        if (f->sc != c) continue;
        int st = atomic_load(&f->state), runs = atomic_load(&f->runs);
        FZ_CHECK(runs == 0 || atomic_load(&f->finished), "scope %d closed, its fork %s still runs", c->idx, f->id);
        if (st != FS_COUNTED) {
            FZ_CHECK(runs == 0 && atomic_load(&f->cleanups) == 0, "fork %s: no fork (%s), but it ran / was cleaned up", f->id,
                     groupconc_errname(atomic_load(&f->fork_rc)));
            continue;
        }
        bool accepted = atomic_load(&f->fork_rc) == GROUPCONC_OK;
        if (f->has_cleanup) FZ_CHECK(atomic_load(&f->cleanups) == (accepted ? 1 : 0), "fork %s: %d cleanups after the close", f->id,
                                     atomic_load(&f->cleanups));
        if (F.listener_on && accepted) FZ_CHECK(atomic_load(&f->ev_completed) == 1, "fork %s: %d COMPLETED events after the close", f->id,
                                                atomic_load(&f->ev_completed));
        if (f->child && atomic_load(&f->child->opened))
            FZ_CHECK(atomic_load(&f->child->closed_by_body), "fork %s: its child scope is still open after the close", f->id);
    }
    c->open = false;
    c->closed = true;
    atomic_store(&c->s, NULL);
}

/* b bit 0 (with two or more open): close one below the top: EORDER, nothing done; else the top:
   shut down first if it could block; bit 1: join first */
static void op_scope_close(reader *r) {
    unsigned b = rd(r);
    if (SC.nopen == 0) return;
    if ((b & 1u) && SC.nopen >= 2) {
        srec *c = SC.stack[(b >> 1) % (unsigned)(SC.nopen - 1)];
        int rc = fz_code(groupconc_scope_close(atomic_load(&c->s)));
        FZ_CHECK(rc == GROUPCONC_EORDER, "close of scope %d below the top: %s, want EORDER", c->idx, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SC_CLOSE_EORDER], 1);
        return;
    }
    srec *c = SC.stack[SC.nopen - 1];
    if (!wait_ends(c)) scope_shut(c, "before a close");
    if ((b & 2u) && !c->joined) joined_now(c, fz_code(groupconc_scope_join(atomic_load(&c->s))));
    /* never EORDER: a child scope a running fork opened is that fork's to close, and the close
       waits for the fork (closed_now checks that the body closed it) */
    int rc = fz_code(groupconc_scope_close(atomic_load(&c->s)));
    FZ_CHECK(rc == (c->joined ? GROUPCONC_OK : GROUPCONC_ENOTJOINED), "close of scope %d (joined %d): %s", c->idx, (int)c->joined,
             groupconc_errname(rc));
    atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_SC_CLOSE_OK : A_SC_CLOSE_NOTJOINED], 1);
    SC.nopen--;
    closed_now(c);
}

/* b1 % open: the scope; the result of index b2 % (count + 2) (b1 bit 6: polled for up to 5 ms until that
   fork is done: lets fork bodies get going); scope_first against the policy; first_set of no such
   index; b1 bit 7: the bad arguments of every scope function, and the policy names */
static void op_scope_query(reader *r) {
    unsigned b1 = rd(r), b2 = rd(r);
    srec *c = pick_open(b1);
    if (c) {
        groupconc_scope *s = atomic_load(&c->s);
        size_t n = groupconc_scope_fork_count(s), idx = b2 % (n + 2);
        groupconc_result res;
        int rc = fz_code(groupconc_scope_result(s, idx, &res));
        for (int k = 0; k < 50 && (b1 & 0x40u) && rc == GROUPCONC_ETIMEDOUT; k++) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
            rc = fz_code(groupconc_scope_result(s, idx, &res));
        }
        size_t n2 = groupconc_scope_fork_count(s); /* forks made in fork bodies meanwhile */
        FZ_CHECK(n2 >= n, "fork_count went down");
        if (idx >= n2) FZ_CHECK(rc == GROUPCONC_ENOTFOUND, "scope_result(%zu of %zu): %s", idx, n2, groupconc_errname(rc));
        else FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ETIMEDOUT || (rc == GROUPCONC_ENOTFOUND && idx >= n),
                      "scope_result(%zu of %zu): %s", idx, n2, groupconc_errname(rc));
        frec *f = idx < MAX_SFORKS ? atomic_load(&c->by_index[idx]) : NULL;
        if (rc == GROUPCONC_OK && f) check_fork_result(f, &res);
        if (c->joined) FZ_CHECK(rc != GROUPCONC_ETIMEDOUT, "scope %d joined, fork %zu not done", c->idx, idx);
        size_t first = (size_t)-1;
        rc = fz_code(groupconc_scope_first(s, &first));
        FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOTFOUND, "scope_first: %s", groupconc_errname(rc));
        if (rc == GROUPCONC_OK) {
            FZ_CHECK(first < groupconc_scope_fork_count(s) && c->policy != GROUPCONC_SCOPE_COLLECT_ALL, "scope_first %zu (%s scope)", first,
                     groupconc_scope_policy_name(c->policy));
            if (c->policy == GROUPCONC_SCOPE_CUSTOM) FZ_CHECK(atomic_load(&c->first_ok[first]), "scope_first %zu never set", first);
            if (c->policy != GROUPCONC_SCOPE_CUSTOM && groupconc_scope_result(s, first, &res) == GROUPCONC_OK) {
                bool fail = res.status == GROUPCONC_STATUS_FAILED || res.status == GROUPCONC_STATUS_REJECTED;
                FZ_CHECK(c->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE ? fail : res.status == GROUPCONC_STATUS_SUCCESS,
                         "%s scope: scope_first %zu is %s", groupconc_scope_policy_name(c->policy), first, groupconc_status_name(res.status));
            }
        }
        /* outside CUSTOM the policy names the first fork: refused whatever the index, nothing set
           (the join's checks then find scope_first as the policy decided it) */
        int want = c->policy == GROUPCONC_SCOPE_CUSTOM ? GROUPCONC_ENOTFOUND : GROUPCONC_ESCOPE_POLICY;
        rc = fz_code(groupconc_scope_first_set(s, MAX_SFORKS + 1000));
        FZ_CHECK(rc == want, "first_set(no such index): %s", groupconc_errname(rc));
        if (c->policy != GROUPCONC_SCOPE_CUSTOM && n2 > 0) {
            rc = fz_code(groupconc_scope_first_set(s, idx % n2));
            FZ_CHECK(rc == GROUPCONC_ESCOPE_POLICY, "%s scope: first_set(%zu): %s", groupconc_scope_policy_name(c->policy), idx % n2,
                     groupconc_errname(rc));
        }
    }
    if (!(b1 & 0x80u)) return;
    groupconc_scope *s = c ? atomic_load(&c->s) : NULL;
    groupconc_result res;
    size_t x = 7;
    FZ_CHECK(fz_code(groupconc_scope_result(NULL, 0, &res)) == GROUPCONC_EINVAL, "scope_result(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_first(NULL, &x)) == GROUPCONC_EINVAL, "scope_first(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_first_set(NULL, 0)) == GROUPCONC_EINVAL, "scope_first_set(NULL)");
    FZ_CHECK(groupconc_scope_fork_count(NULL) == 0, "scope_fork_count(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_join(NULL)) == GROUPCONC_EINVAL, "scope_join(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_join_for(NULL, 0)) == GROUPCONC_EINVAL, "scope_join_for(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_shutdown(NULL)) == GROUPCONC_EINVAL, "scope_shutdown(NULL)");
    FZ_CHECK(fz_code(groupconc_scope_close(NULL)) == GROUPCONC_EINVAL, "scope_close(NULL)");
    groupconc_task_spec spec = {group_names[0], NULL, fz_never_task, NULL, NULL, 0};
    size_t idx = (size_t)-1;
    FZ_CHECK(fz_code(groupconc_scope_fork(NULL, &spec, &idx)) == GROUPCONC_EINVAL, "scope_fork(NULL scope)");
    if (s) {
        FZ_CHECK(fz_code(groupconc_scope_result(s, 0, NULL)) == GROUPCONC_EINVAL, "scope_result(NULL out)");
        FZ_CHECK(fz_code(groupconc_scope_first(s, NULL)) == GROUPCONC_EINVAL, "scope_first(NULL out)");
        FZ_CHECK(fz_code(groupconc_scope_fork(s, NULL, &idx)) == GROUPCONC_EINVAL, "scope_fork(NULL spec)");
        static const int want[4] = {GROUPCONC_EINVAL, GROUPCONC_EKEYEMPTY, GROUPCONC_EKEYTOOLONG, GROUPCONC_EINVAL};
        for (int i = 0; i < 4; i++) {
            groupconc_task_spec bad = spec;
            bad.group = i == 0 ? NULL : i == 1 ? "" : i == 2 ? too_long_key : group_names[0];
            if (i == 3) bad.fn = NULL;
            int rc = fz_code(groupconc_scope_fork(s, &bad, &idx));
            FZ_CHECK(rc == want[i], "scope_fork(bad spec %d): %s, want %s", i, groupconc_errname(rc), groupconc_errname(want[i]));
        }
        FZ_CHECK(idx == (size_t)-1, "a refused bad fork set its index");
    }
    static const char *const pnames[4] = {"COLLECT_ALL", "SHUTDOWN_ON_FAILURE", "SHUTDOWN_ON_SUCCESS", "CUSTOM"};
    for (int v = -1; v <= 5; v++) {
        const char *got = groupconc_scope_policy_name((groupconc_scope_policy)v), *want = v >= 0 && v < 4 ? pnames[v] : "UNKNOWN";
        FZ_CHECK(got && strcmp(got, want) == 0, "scope_policy_name(%d): \"%s\", want \"%s\"", v, got ? got : "(null)", want);
    }
}

/* fork / join / join_for / close from a thread that is neither the owner nor inside a fork:
   ENOTOWNER, nothing done; the queries answer there; b bit 7: a shutdown there too (any thread may) */
typedef struct foreign_job {
    groupconc_scope *s;
    bool shut;
    int fork_rc, join_rc, join_for_rc, close_rc, shut_rc;
    size_t idx;
} foreign_job;

static void *foreign_thread(void *arg) {
    foreign_job *j = arg;
    groupconc_task_spec spec = {group_names[1], NULL, fz_never_task, NULL, NULL, 0};
    j->fork_rc = groupconc_scope_fork(j->s, &spec, &j->idx);
    j->join_rc = groupconc_scope_join(j->s);
    j->join_for_rc = groupconc_scope_join_for(j->s, 0);
    j->close_rc = groupconc_scope_close(j->s);
    size_t first;
    groupconc_result res;
    (void)groupconc_scope_fork_count(j->s);
    (void)groupconc_scope_first(j->s, &first);
    (void)groupconc_scope_result(j->s, 0, &res);
    if (j->shut) j->shut_rc = groupconc_scope_shutdown(j->s);
    return NULL;
}

static void op_scope_foreign(reader *r) {
    unsigned b = rd(r);
    srec *c = pick_open(b);
    if (!c) return;
    foreign_job j = {atomic_load(&c->s), (b & 0x80u) != 0, 99, 99, 99, 99, 99, (size_t)-1};
    pthread_t th;
    if (pthread_create(&th, NULL, foreign_thread, &j) != 0) return;
    pthread_join(th, NULL);
    FZ_CHECK(fz_code(j.fork_rc) == GROUPCONC_ENOTOWNER && j.idx == (size_t)-1, "scope_fork from a foreign thread: %s",
             groupconc_errname(j.fork_rc));
    FZ_CHECK(fz_code(j.join_rc) == GROUPCONC_ENOTOWNER, "scope_join from a foreign thread: %s", groupconc_errname(j.join_rc));
    FZ_CHECK(fz_code(j.join_for_rc) == GROUPCONC_ENOTOWNER, "scope_join_for from a foreign thread: %s", groupconc_errname(j.join_for_rc));
    FZ_CHECK(fz_code(j.close_rc) == GROUPCONC_ENOTOWNER, "scope_close from a foreign thread: %s", groupconc_errname(j.close_rc));
    if (j.shut) {
        FZ_CHECK(fz_code(j.shut_rc) == GROUPCONC_OK, "scope_shutdown from a foreign thread: %s", groupconc_errname(j.shut_rc));
        c->known_shut = true;
    }
    atomic_fetch_add(&acounters[A_SC_FOREIGN], 1);
}

/* bit 0: every park; else the (b >> 1)-th park not released yet */
static void op_scope_release(reader *r) {
    unsigned b = rd(r);
    if (b & 1u) {
        parks_release_all();
        return;
    }
    int n = 0, pick = -1;
    for (int i = 0; i < SC.nfr; i++)
        if (SC.fr[i].kind == K_PARK && !atomic_load(&SC.fr[i].released)) n++;
    if (n == 0) return;
    int k = (int)((b >> 1) % (unsigned)n);
    for (int i = 0; i < SC.nfr && pick < 0; i++)
        if (SC.fr[i].kind == K_PARK && !atomic_load(&SC.fr[i].released) && k-- == 0) pick = i;
    park_release(&SC.fr[pick]);
}
#endif

#ifndef GROUPCONC_NO_DUMP
/* ---- the dump: a small JSON parser (values, strings with their escapes decoded) that keeps what the
   checks need: executor.shutdown, and per scope its name, parent, policy, shut_down, joined, forks */

typedef struct jscope {
    bool has_name, parent_null;
    char name[64], policy[64];
    long long shut_down, joined;
    int nforks;
} jscope;

/* the executor's and the groups' gauges and limits (beyond the seeds: one locked snapshot) */
enum { JX_GIN, JX_GMAXIN, JX_GRUN, JX_GMAXRUN, JX_WRUN, JX_WAITING, JX_PAUSED, JX_MAXWAIT, JX_MAXGROUPS, JX_WFLEET, JX_RENEW,
       JX_COUNT };
static const char *const jx_names[JX_COUNT] = {"global_in_flight", "global_max_in_flight", "global_running", "global_max_running",
                                               "waiting_running", "waiting", "paused", "max_waiting", "max_groups", "waiting_fleet",
                                               "fleet_renew_failed"};
enum { JG_CONC, JG_INFL, JG_THR, JG_INFLIGHT, JG_WG, JG_WB, JG_WC, JG_WR, JG_PAUSED, JG_WF, JG_COUNT };
static const char *const jg_names[JG_COUNT] = {"concurrency", "max_in_flight", "queue_threshold", "in_flight", "waiting_global",
                                               "waiting_bulkhead", "waiting_concurrency", "waiting_running", "paused", "waiting_fleet"};
#define J_ABSENT (-9999)

typedef struct jgroup {
    char key[64];
    long long v[JG_COUNT];
} jgroup;

typedef struct jparse {
    const char *p, *end;
    bool ok;
    long long shutdown;
    int nscopes;
    jscope sc[MAX_SREC + 8];
    long long ex[JX_COUNT];
    int ngroups, cur_group;
    jgroup gr[NG + 4];
} jparse;

enum { J_OTHER, J_ROOT, J_EXECUTOR, J_EXEC_FIELD, J_SCOPES, J_SCOPE, J_SCOPE_FIELD, J_FORKS, J_GROUPS, J_GROUP, J_GROUP_FIELD };

static void j_ws(jparse *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

static bool j_lit(jparse *j, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0) return j->ok = false;
    j->p += n;
    return true;
}

static int j_hex(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }

/* a string: its bytes (escapes decoded, \u as UTF-8) into out (cut at cap - 1), NUL-terminated */
static bool j_string(jparse *j, char *out, size_t cap) {
    size_t n = 0;
    if (j->p >= j->end || *j->p != '"') return j->ok = false;
    j->p++;
    for (;;) {
        if (j->p >= j->end) return j->ok = false;
        unsigned char ch = (unsigned char)*j->p++;
        char buf[4];
        size_t k = 1;
        if (ch == '"') break;
        if (ch < 0x20) return j->ok = false; /* raw control bytes are not JSON */
        buf[0] = (char)ch;
        if (ch == '\\') {
            if (j->p >= j->end) return j->ok = false;
            char e = *j->p++;
            switch (e) {
            case '"': case '\\': case '/': buf[0] = e; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    int h = j->p < j->end ? j_hex(*j->p++) : -1;
                    if (h < 0) return j->ok = false;
                    v = v * 16u + (unsigned)h;
                }
                if (v < 0x80) buf[0] = (char)v;
                else if (v < 0x800) buf[0] = (char)(0xC0 | (v >> 6)), buf[1] = (char)(0x80 | (v & 0x3F)), k = 2;
                else buf[0] = (char)(0xE0 | (v >> 12)), buf[1] = (char)(0x80 | ((v >> 6) & 0x3F)), buf[2] = (char)(0x80 | (v & 0x3F)), k = 3;
                break;
            }
            default: return j->ok = false;
            }
        }
        for (size_t i = 0; i < k; i++)
            if (out && n + 1 < cap) out[n++] = buf[i];
    }
    if (out && cap) out[n] = 0;
    return true;
}

static bool j_number(jparse *j, long long *v) {
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') return j->ok = false;
    while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' || *j->p == 'E' || *j->p == '+' || *j->p == '-'))
        j->p++;
    if (v) {
        char tmp[32];
        size_t n = (size_t)(j->p - s) < sizeof tmp - 1 ? (size_t)(j->p - s) : sizeof tmp - 1;
        memcpy(tmp, s, n);
        tmp[n] = 0;
        *v = strtoll(tmp, NULL, 10);
    }
    return true;
}

static bool j_value(jparse *j, int role, jscope *cur, const char *key, int depth);

static bool j_container(jparse *j, int role, jscope *cur, int depth) {
    bool obj = *j->p == '{';
    char close = obj ? '}' : ']';
    j->p++;
    j_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return true;
    }
    for (;;) {
        char key[32] = "";
        j_ws(j);
        if (obj) {
            if (!j_string(j, key, sizeof key)) return false;
            j_ws(j);
            if (!j_lit(j, ":")) return false;
        }
        int sub = J_OTHER;
        jscope *next = NULL;
        if (role == J_ROOT && strcmp(key, "executor") == 0) sub = J_EXECUTOR;
        if (role == J_ROOT && strcmp(key, "scopes") == 0) sub = J_SCOPES;
        if (role == J_ROOT && strcmp(key, "groups") == 0) sub = J_GROUPS;
        if (role == J_GROUPS) {
            sub = J_GROUP;
            j->cur_group = j->ngroups < NG + 4 ? j->ngroups : -1;
            if (j->cur_group >= 0) {
                memset(&j->gr[j->cur_group], 0, sizeof j->gr[0]);
                for (int k = 0; k < JG_COUNT; k++) j->gr[j->cur_group].v[k] = J_ABSENT;
            }
            j->ngroups++;
        }
        if (role == J_GROUP) sub = J_GROUP_FIELD;
        if (role == J_EXECUTOR) sub = J_EXEC_FIELD;
        if (role == J_SCOPES) {
            sub = J_SCOPE;
            next = j->nscopes < MAX_SREC + 8 ? &j->sc[j->nscopes] : NULL;
            j->nscopes++;
            if (next) memset(next, 0, sizeof *next), next->shut_down = next->joined = -1;
        }
        if (role == J_SCOPE) sub = strcmp(key, "forks") == 0 ? J_FORKS : J_SCOPE_FIELD, next = cur;
        if (role == J_FORKS && cur) cur->nforks++;
        j_ws(j);
        if (!j_value(j, sub, next, key, depth + 1)) return false;
        j_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        return j_lit(j, close == '}' ? "}" : "]");
    }
}

/* a value whose role (where it is) is `role`; its key in the object that holds it is `key` */
static bool j_value(jparse *j, int role, jscope *cur, const char *key, int depth) {
    if (depth > 12 || j->p >= j->end) return j->ok = false;
    char c = *j->p;
    if (c == '{' || c == '[') {
        bool want_obj = role == J_ROOT || role == J_EXECUTOR || role == J_SCOPE || role == J_GROUP,
             want_arr = role == J_SCOPES || role == J_FORKS || role == J_GROUPS;
        if ((want_obj && c != '{') || (want_arr && c != '[')) return j->ok = false; /* the schema's shape */
        return j_container(j, role, cur, depth);
    }
    if (role == J_ROOT || role == J_EXECUTOR || role == J_SCOPE || role == J_SCOPES || role == J_FORKS || role == J_GROUPS ||
        role == J_GROUP)
        return j->ok = false;
    jgroup *jg = role == J_GROUP_FIELD && j->cur_group >= 0 ? &j->gr[j->cur_group] : NULL;
    jscope *s = role == J_SCOPE_FIELD ? cur : NULL; /* a scalar directly in a scope object */
    if (c == '"') {
        char buf[64];
        if (!j_string(j, buf, sizeof buf)) return false;
        if (s && strcmp(key, "name") == 0) s->has_name = true, memcpy(s->name, buf, sizeof buf);
        if (s && strcmp(key, "name_hex") == 0) { /* a name that is not UTF-8: its exact bytes */
            size_t n = 0;
            for (const char *h = buf; h[0] && h[1] && n + 1 < sizeof s->name; h += 2)
                s->name[n++] = (char)(j_hex(h[0]) * 16 + j_hex(h[1]));
            s->name[n] = 0;
        }
        if (s && strcmp(key, "policy") == 0) snprintf(s->policy, sizeof s->policy, "%s", buf);
        if (jg && strcmp(key, "key") == 0) snprintf(jg->key, sizeof jg->key, "%s", buf);
        return true;
    }
    if (c == 'n') {
        if (s && strcmp(key, "parent") == 0) s->parent_null = true;
        return j_lit(j, "null");
    }
    if (c == 't') return j_lit(j, "true");
    if (c == 'f') return j_lit(j, "false");
    long long v = 0;
    if (!j_number(j, &v)) return false;
    if (s && strcmp(key, "shut_down") == 0) s->shut_down = v;
    if (s && strcmp(key, "joined") == 0) s->joined = v;
    if (role == J_EXEC_FIELD && strcmp(key, "shutdown") == 0) j->shutdown = v;
    for (int k = 0; k < JX_COUNT && role == J_EXEC_FIELD; k++)
        if (strcmp(key, jx_names[k]) == 0) j->ex[k] = v;
    for (int k = 0; k < JG_COUNT && jg; k++)
        if (strcmp(key, jg_names[k]) == 0) jg->v[k] = v;
    return true;
}

static long long jlim(int v) { return v == UNL ? -1 : v; }

/* One locked snapshot of every gauge (beyond the seeds): the limits in force, the pauses, the sums,
   and no permit idle while a task that could take it waits (a raise or a resume hands free permits
   out at once, a release hands its permit to the oldest waiter): a layer with waiters is at or over
   its cap - unless shut by a pause (concurrency and global running); at the global running cap (one
   FIFO for all groups) a free permit means every waiter there is of a paused group. */
static void check_dump_live(const jparse *j, const char *how) {
    for (int k = 0; k < JX_COUNT; k++)
        FZ_CHECK(j->ex[k] != J_ABSENT, "%s: executor.%s missing", how, jx_names[k]);
    FZ_CHECK(j->ex[JX_GMAXIN] == jlim(LV.gin) && j->ex[JX_GMAXRUN] == jlim(LV.grun) && j->ex[JX_MAXWAIT] == LV.mwait &&
                 j->ex[JX_MAXGROUPS] == LV.max_groups && j->ex[JX_PAUSED] == (LV.xpaused ? 1 : 0),
             "%s: executor limits %lld/%lld, max_waiting %lld, max_groups %lld, paused %lld; expected %d/%d, %d, %d, %d", how,
             j->ex[JX_GMAXIN], j->ex[JX_GMAXRUN], j->ex[JX_MAXWAIT], j->ex[JX_MAXGROUPS], j->ex[JX_PAUSED], LV.gin, LV.grun, LV.mwait,
             LV.max_groups, (int)LV.xpaused);
    FZ_CHECK(j->ngroups <= NG && (LV.max_groups == UNL || j->ngroups <= LV.max_groups), "%s: %d groups (max_groups %d)", how,
             j->ngroups, LV.max_groups);
    long long wg = 0, wr = 0, waiting = 0, wf = 0;
    bool free4 = j->ex[JX_GMAXRUN] < 0 || j->ex[JX_GRUN] < j->ex[JX_GMAXRUN];
    for (int i = 0; i < j->ngroups && i < NG; i++) {
        const jgroup *x = &j->gr[i];
        int g = group_index(x->key);
        FZ_CHECK(g >= 0, "%s: a group \"%s\" nobody used", how, x->key);
        for (int k = 0; k < JG_COUNT; k++) FZ_CHECK(x->v[k] != J_ABSENT, "%s: group %s: %s missing", how, x->key, jg_names[k]);
        lim3 t = {(int)x->v[JG_CONC], x->v[JG_INFL] < 0 ? UNL : (int)x->v[JG_INFL], (int)x->v[JG_THR]};
        FZ_CHECK(plaus_has(g, t), "%s: group %s limits %d/%d/%d, not one it may have", how, x->key, t.conc, t.infl, t.thr);
        FZ_CHECK(x->v[JG_PAUSED] == (LV.gpaused[g] ? 1 : 0), "%s: group %s paused %lld, the fuzzer paused it: %d", how, x->key,
                 x->v[JG_PAUSED], (int)LV.gpaused[g]);
        bool shut = LV.xpaused || LV.gpaused[g];
        long long used3 = x->v[JG_INFLIGHT] - x->v[JG_WC];
        FZ_CHECK(x->v[JG_WB] == 0 || (x->v[JG_INFL] >= 0 && x->v[JG_INFLIGHT] >= x->v[JG_INFL]),
                 "%s: group %s: %lld waiting at the bulkhead, %lld in flight, cap %lld: a permit idles", how, x->key, x->v[JG_WB],
                 x->v[JG_INFLIGHT], x->v[JG_INFL]);
        FZ_CHECK(shut || x->v[JG_WC] == 0 || used3 >= x->v[JG_CONC], "%s: group %s (not paused): %lld waiting at concurrency, %lld past "
                 "it, concurrency %lld: a permit idles", how, x->key, x->v[JG_WC], used3, x->v[JG_CONC]);
        FZ_CHECK(shut || !free4 || x->v[JG_WR] == 0, "%s: group %s (not paused): %lld waiting at the running cap, global running %lld of %lld: "
                 "a permit idles", how, x->key, x->v[JG_WR], j->ex[JX_GRUN], j->ex[JX_GMAXRUN]);
        wg += x->v[JG_WG];
        wr += x->v[JG_WR];
        wf += x->v[JG_WF];
        waiting += x->v[JG_WG] + x->v[JG_WB] + x->v[JG_WC] + x->v[JG_WR] + x->v[JG_WF];
        FZ_CHECK(FL.on || x->v[JG_WF] == 0, "%s: group %s: waiting_fleet %lld without a fleet provider", how, x->key, x->v[JG_WF]);
    }
    FZ_CHECK(wf == j->ex[JX_WFLEET], "%s: the groups' waiting_fleet (%lld) is not the executor's (%lld)", how, wf, j->ex[JX_WFLEET]);
    FZ_CHECK(j->ex[JX_RENEW] == FL.renews, "%s: fleet_renew_failed %lld, the fuzzer reported %ld", how, j->ex[JX_RENEW], FL.renews);
    FZ_CHECK(wg == 0 || (j->ex[JX_GMAXIN] >= 0 && j->ex[JX_GIN] >= j->ex[JX_GMAXIN]), "%s: %lld waiting at the global cap, global in-flight "
             "%lld of %lld: a permit idles", how, wg, j->ex[JX_GIN], j->ex[JX_GMAXIN]);
    FZ_CHECK(wr == j->ex[JX_WRUN] && waiting == j->ex[JX_WAITING], "%s: the groups' waiting (%lld, at the running cap %lld) is not the "
             "executor's (%lld, %lld)", how, waiting, wr, j->ex[JX_WAITING], j->ex[JX_WRUN]);
    atomic_fetch_add(&acounters[A_LV_DUMP_LIVE], 1);
}

/* a whole dump (len bytes, then a NUL): JSON, and what it says agrees with what the fuzzer knows */
static void check_dump(const char *text, size_t len, const char *how) {
    static jparse j;
    memset(&j, 0, sizeof j);
    j.p = text;
    j.end = text + len;
    j.ok = true;
    j.shutdown = -1;
    for (int k = 0; k < JX_COUNT; k++) j.ex[k] = J_ABSENT;
    FZ_CHECK(strlen(text) == len, "%s: the dump has a NUL inside (strlen %zu, %zu bytes)", how, strlen(text), len);
    FZ_CHECK(len > 0 && text[len - 1] == '\n', "%s: the dump does not end with a newline", how);
    for (const unsigned char *u = (const unsigned char *)text; *u;) { /* strict UTF-8, whatever the names */
        size_t n = *u < 0x80 ? 1 : (*u & 0xE0) == 0xC0 && *u >= 0xC2 ? 2 : (*u & 0xF0) == 0xE0 ? 3
                 : (*u & 0xF8) == 0xF0 && *u <= 0xF4 ? 4 : 0;
        FZ_CHECK(n > 0, "%s: the dump is not UTF-8 (byte %zu: 0x%02x)", how, (size_t)(u - (const unsigned char *)text), *u);
        for (size_t i = 1; i < n; i++)
            FZ_CHECK((u[i] & 0xC0) == 0x80, "%s: the dump is not UTF-8 (byte %zu)", how, (size_t)(u - (const unsigned char *)text) + i);
        u += n;
    }
    j_ws(&j);
    bool ok = j.p < j.end && *j.p == '{' && j_value(&j, J_ROOT, NULL, "", 0) && j.ok;
    j_ws(&j);
    FZ_CHECK(ok && j.p == j.end, "%s: the dump is not one JSON object (stopped at byte %zu of %zu: \"%.40s\")", how,
             (size_t)(j.p - text), len, j.p);
    FZ_CHECK(j.shutdown == (F.shutdown_called ? 1 : 0), "%s: executor.shutdown %lld, the fuzzer shut it down: %d", how, j.shutdown,
             (int)F.shutdown_called);
    FZ_CHECK(j.nscopes <= MAX_SREC + 8, "%s: %d scopes in the dump", how, j.nscopes);
    int roots = 0;
    for (int i = 0; i < j.nscopes; i++) {
        const jscope *e = &j.sc[i];
        roots += e->parent_null;
        if (!e->has_name) continue;
        const char *hash = strrchr(e->name, '#');
        int k = hash ? atoi(hash + 1) : -1;
        FZ_CHECK(k >= 0 && k < SC.nsr && SC.sr[k].has_name && strcmp(SC.sr[k].name, e->name) == 0, "%s: a scope named \"%s\" that nobody opened",
                 how, e->name);
        const srec *c = &SC.sr[k];
#ifndef GROUPCONC_NO_SCOPES
        FZ_CHECK(strcmp(e->policy, groupconc_scope_policy_name(c->policy)) == 0, "%s: scope %d policy \"%s\", opened with %s", how, k, e->policy,
                 groupconc_scope_policy_name(c->policy));
#endif
        FZ_CHECK(e->parent_null == !c->child, "%s: scope %d (%s) parent %s", how, k, c->child ? "child" : "the fuzzer's",
                 e->parent_null ? "null" : "set");
        if (c->child) continue;
        FZ_CHECK(c->open, "%s: scope %d is in the dump, but it was closed", how, k);
        FZ_CHECK(e->joined == (c->joined ? 1 : 0), "%s: scope %d joined %lld, the fuzzer joined it: %d", how, k, e->joined, (int)c->joined);
        if (c->known_shut) FZ_CHECK(e->shut_down == 1, "%s: scope %d was shut down, the dump says shut_down %lld", how, k, e->shut_down);
        int mine = 0;
        for (int f = 0; f < SC.nfr; f++)
            mine += SC.fr[f].sc == c && SC.fr[f].top && atomic_load(&SC.fr[f].state) == FS_COUNTED;
        FZ_CHECK(e->nforks >= mine, "%s: scope %d has %d forks in the dump, the fuzzer made %d", how, k, e->nforks, mine);
    }
    FZ_CHECK(roots == SC.nopen, "%s: %d scopes without a parent in the dump, the fuzzer has %d open", how, roots, SC.nopen);
    check_dump_live(&j, how);
}

/* b % 8: buf NULL / size 0, size 1, 64, needed - 1, needed, needed + 1, 64 KiB, bad arguments */
static void op_dump(reader *r) {
    unsigned b = rd(r) % 8u;
    size_t need = 0, size;
    long inj = atomic_load(&fz_injected);
    int rc;
    if (b == 7) {
        char small[8];
        need = 99;
        FZ_CHECK(fz_code(groupconc_executor_dump(NULL, small, sizeof small, &need)) == GROUPCONC_EINVAL && need == 0, "dump(NULL executor)");
        need = 99;
        FZ_CHECK(fz_code(groupconc_executor_dump(F.ex, NULL, 5, &need)) == GROUPCONC_EINVAL && need == 0, "dump(NULL buffer, size 5)");
        FZ_CHECK(fz_code(groupconc_executor_dump_file(F.ex, NULL)) == GROUPCONC_EINVAL, "dump_file(NULL file)");
        FZ_CHECK(fz_code(groupconc_executor_dump_file(NULL, stderr)) == GROUPCONC_EINVAL, "dump_file(NULL executor)");
        return;
    }
    if (b >= 3 && b <= 5) {
        rc = fz_code(groupconc_executor_dump(F.ex, NULL, 0, &need));
        check_nomem(rc, inj, "dump");
        if (rc == GROUPCONC_ENOMEM) return;
        FZ_CHECK(rc == GROUPCONC_ERANGE && need > 1, "dump(NULL, 0): %s, needed %zu", groupconc_errname(rc), need);
    }
    static const size_t sizes[7] = {0, 1, 64, 0, 0, 0, 65536};
    size = b >= 3 && b <= 5 ? need + b - 4 : sizes[b];
    char *buf = size ? malloc(size) : NULL;
    if (size && !buf) return;
    if (buf) memset(buf, 'x', size);
    need = 0;
    inj = atomic_load(&fz_injected);
    rc = fz_code(groupconc_executor_dump(F.ex, buf, size, &need));
    check_nomem(rc, inj, "dump");
    if (rc != GROUPCONC_ENOMEM) {
        FZ_CHECK(need > 1, "dump: needed %zu", need);
        FZ_CHECK(rc == (need <= size ? GROUPCONC_OK : GROUPCONC_ERANGE), "dump into %zu bytes, %zu needed: %s", size, need,
                 groupconc_errname(rc));
        if (size) {
            size_t want = rc == GROUPCONC_OK ? need - 1 : size - 1;
            const char *nul = memchr(buf, 0, size);
            FZ_CHECK(nul && (size_t)(nul - buf) == want, "dump into %zu bytes (%zu needed): %s NUL at %zu, want %zu", size, need,
                     nul ? "the" : "no", nul ? (size_t)(nul - buf) : size, want);
        }
        if (rc == GROUPCONC_OK) check_dump(buf, need - 1, "dump");
        atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_DUMP_OK : A_DUMP_ERANGE], 1);
    }
    free(buf);
}

/* b % 3: to a tmpfile (read back: one JSON object), to /dev/full (EIO), to a read-only stream (EIO) */
static void op_dump_file(reader *r) {
    unsigned b = rd(r) % 3u;
    FILE *f = b == 0 ? tmpfile() : b == 1 ? fopen("/dev/full", "w") : fopen("/dev/null", "r");
    if (!f) return;
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_executor_dump_file(F.ex, f));
    check_nomem(rc, inj, "dump_file");
    if (rc != GROUPCONC_ENOMEM) {
        FZ_CHECK(rc == (b == 0 ? GROUPCONC_OK : GROUPCONC_EIO), "dump_file (%s): %s", b == 0 ? "tmpfile" : b == 1 ? "/dev/full" : "read-only",
                 groupconc_errname(rc));
        atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_DUMP_FILE_OK : A_DUMP_FILE_EIO], 1);
    }
    if (b == 0 && rc == GROUPCONC_OK) {
        long n = ftell(f);
        FZ_CHECK(n > 0, "dump_file wrote %ld bytes", n);
        char *buf = malloc((size_t)n + 1);
        rewind(f);
        if (buf) {
            FZ_CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n, "reading the dump back");
            buf[n] = 0;
            check_dump(buf, (size_t)n, "dump_file");
            free(buf);
        }
    }
    fclose(f);
}
#endif

#ifndef GROUPCONC_NO_SCOPES
/* the end: every scope the fuzzer has open is shut down (its parks are released), joined and closed,
   from the top; destroy said EBUSY before */
static void close_all_scopes(void) {
    while (SC.nopen > 0) {
        srec *c = SC.stack[SC.nopen - 1];
        if (!c->known_shut) scope_shut(c, "the end");
        if (!c->joined) joined_now(c, fz_code(groupconc_scope_join(atomic_load(&c->s))));
        int rc = fz_code(groupconc_scope_close(atomic_load(&c->s)));
        FZ_CHECK(rc == GROUPCONC_OK, "the end: close of scope %d (shut down, joined): %s", c->idx, groupconc_errname(rc));
        SC.nopen--;
        closed_now(c);
    }
}
#endif

/* the end, after destroy: every fork record reached exactly one end */
static void check_forks_final(void) {
    for (int i = 0; i < SC.nfr; i++) {
        frec *f = &SC.fr[i];
        int st = atomic_load(&f->state), runs = atomic_load(&f->runs);
        FZ_CHECK(runs == 0 || atomic_load(&f->finished), "fork %s still runs after destroy", f->id);
        if (st != FS_COUNTED) {
            FZ_CHECK(runs == 0 && atomic_load(&f->cleanups) == 0 && atomic_load(&f->ev_submitted) == 0,
                     "fork %s: no fork (%s), but it ran / was cleaned up / submitted", f->id, groupconc_errname(atomic_load(&f->fork_rc)));
            continue;
        }
        bool accepted = atomic_load(&f->fork_rc) == GROUPCONC_OK;
        if (f->has_cleanup) FZ_CHECK(atomic_load(&f->cleanups) == (accepted ? 1 : 0), "fork %s: %d cleanups at the end", f->id,
                                     atomic_load(&f->cleanups));
        if (F.listener_on) {
            if (accepted) FZ_CHECK(atomic_load(&f->ev_completed) == 1 && atomic_load(&f->ev_started) == runs,
                                   "fork %s: %d COMPLETED / %d STARTED events, %d runs", f->id, atomic_load(&f->ev_completed),
                                   atomic_load(&f->ev_started), runs);
            else FZ_CHECK(atomic_load(&f->ev_completed) == atomic_load(&f->ev_submitted) && runs == 0,
                          "fork %s refused: %d SUBMITTED, %d COMPLETED", f->id, atomic_load(&f->ev_submitted), atomic_load(&f->ev_completed));
        }
    }
    for (int i = 0; i < SC.nsr; i++) {
        srec *c = &SC.sr[i];
        if (c->child) FZ_CHECK(!atomic_load(&c->opened) || atomic_load(&c->closed_by_body), "child scope %d never closed", i);
        else FZ_CHECK(!c->open, "scope %d still open at the end", i);
    }
}

/* Could a fork keep a wait for "everything" going for good? A park until the fuzzer releases it; a
   child scope body always: it keeps its permits while it joins its child scope, so its nested fork may
   wait for them (the same group, a tight global cap) until a shutdown cuts it. */
static bool scope_blockers(void) {
    for (int i = 0; i < SC.nfr; i++) {
        frec *f = &SC.fr[i];
        bool parks = f->kind == K_PARK && !atomic_load(&f->released) && !atomic_load(&SC.parks_all);
        bool child = f->kind == K_CHILD_SCOPE;
        if ((!parks && !child) || atomic_load(&f->finished) || atomic_load(&f->state) == FS_NOFORK) continue;
        const frec *top = f->parent ? f->parent : f;
        if (atomic_load(&top->state) == FS_NOFORK) continue;
        if (top->sc->joined || top->sc->closed) continue; /* every fork of it is done */
        return true;
    }
    return false;
}

/* Could a wait for "everything, every latch open" block on something only the fuzzer releases: a
   held executor-gate permit, a deferred task that is (or may yet be) parked, a fork (scope_blockers),
   or failing thread starts (a ready task waits for a worker: with keep-alive 0 none may be left)? */
static bool blockers(void) {
    if (held_count(GX) > 0 || scope_blockers() || atomic_load(&fz_start_fail)) return true;
    /* the fleet layer: a request only the fuzzer answers, or a BUSY answer nothing may follow with a
       notify (the synchronous rules that never say BUSY, or only at the cap with release notifying,
       keep every task moving) */
    if (FL.on && !FL.ending &&
        (!FL.sync || FL.rule == FLR_CYCLE || (FL.rule == FLR_GRANT_ELSE_BUSY && !FL.release_notifies)))
        return true;
    if (LV.xpaused) return true; /* a paused group's waiters hold permits others may wait for */
    for (int g = 0; g < NG; g++)
        if (LV.gpaused[g]) return true;
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

#ifndef GROUPCONC_NO_SCOPES
static bool all_waits_end(void) { return latches_open() && !blockers(); }
#endif

static void mark_swept(void) {
    F.shutdown_called = true;
    F.swept = true;
}

/* ---- the fleet layer: the harness's provider and its ops ---------------------------------------- */

/* Could a task at the fleet layer be taken out now or later without an answer (so that the
   provider's list no longer names only tasks there)? A cancel, a shutdown, an evict, execute_all
   (FL.removed, until the list empties), a queue deadline, a fork (a scope's policy or callback may
   shut it down at any time). Fuzzer thread. */
static bool fl_removal_possible(void) {
    if (FL.removed || FL.ending || F.shutdown_called || LV.any_deadline || SC.nfr > 0) return true;
    for (int i = 0; i < F.nslots; i++)
        if (F.slots[i].deadline_possible) return true;
    return false;
}

/* Something took (or may take) tasks out of the fleet layer: the BUSY ones the harness knows of may be
   gone (their pointers reused). Fuzzer thread, before the call. */
static void fl_removed(void) {
    if (!FL.on) return;
    FL.removed = true;
    pthread_mutex_lock(&fl_mu);
    FL.nbusy = 0;
    memset(FL.busy_g, 0, sizeof FL.busy_g);
    pthread_mutex_unlock(&fl_mu);
}

/* The verdict for a request of key g, wanted `want` (GRANTED only under the cap: else `alt`), with its
   lease reserved (count and token, under H.mu) before the answer is made. sure: nothing could take
   the task meanwhile (the lower bounds of fleet_open / rejected_fleet). Under fl_mu. */
static groupconc_fleet_verdict fl_decide_locked(int g, groupconc_fleet_request *rq, groupconc_fleet_verdict want,
                                                groupconc_fleet_verdict alt, uint64_t *lease, bool sure) {
    *lease = 0;
    if (want == GROUPCONC_FLEET_GRANTED) {
        pthread_mutex_lock(&H.mu);
        if (FL.count[g] < FL.cap[g] && FL.nleases < FL_MAX_LEASES) {
            int i = FL.nleases++;
            FL.lease[i].g = g;
            FL.lease[i].released = false;
            FL.count[g]++;
            FL.grants++;
            *lease = FL_TOKEN_BASE + (uint64_t)i;
        } else {
            want = alt;
            atomic_fetch_add(&acounters[A_FL_CAPPED], 1);
        }
        FZ_CHECK(FL.count[g] <= FL.cap[g], "fleet: group %s holds %d leases, its cap is %d", group_names[g], FL.count[g], FL.cap[g]);
        pthread_mutex_unlock(&H.mu);
    }
    switch (want) {
    case GROUPCONC_FLEET_GRANTED: atomic_fetch_add(&acounters[A_FL_GRANTED], 1); break;
    case GROUPCONC_FLEET_BUSY:
        FL.dirty[g] = true;
        if (sure && FL.nbusy < FL_MAX_PEND) { /* (a late BUSY leaves no task behind: not kept) */
            FL.busy[FL.nbusy++] = (fl_req){rq, g};
            FL.busy_g[g]++;
        }
        atomic_fetch_add(&acounters[A_FL_BUSY], 1);
        break;
    case GROUPCONC_FLEET_REJECT:
        *(sure ? &FL.rej_sure : &FL.rej_unsure) += 1;
        atomic_fetch_add(&acounters[A_FL_REJECT], 1);
        break;
    default:
        *(sure ? &FL.open_sure : &FL.open_unsure) += 1;
        pthread_mutex_lock(&H.mu);
        FL.opens_g[g]++;
        pthread_mutex_unlock(&H.mu);
        atomic_fetch_add(&acounters[A_FL_OPEN], 1);
    }
    FL.verdicts[want]++;
    return want;
}

static _Thread_local uint64_t tl_granting; /* the lease this thread's answer GRANTED is giving */

static void fl_answer(groupconc_fleet_request *rq, groupconc_fleet_verdict v, uint64_t lease) {
    uint64_t outer = tl_granting;
    tl_granting = v == GROUPCONC_FLEET_GRANTED ? lease : 0;
    int rc = fz_code(groupconc_fleet_answer(rq, v, lease));
    tl_granting = outer;
    FZ_CHECK(rc == GROUPCONC_OK, "groupconc_fleet_answer(verdict %d): %s", (int)v, groupconc_errname(rc));
}

/* acquire: an outstanding request is never asked again; kept (the pending mode) or answered here by the
   rule (the synchronous mode; every request from the end on: GRANTED under the cap, else OPEN) */
static void fl_acquire(void *user_data, groupconc_fleet_request *rq, const char *group) {
    FZ_CHECK(user_data == &FL && rq != NULL, "fleet acquire: user_data %p, request %p", user_data, (void *)rq);
    ft_mark(FT_FLEET);
    int g = group_index(group);
    FZ_CHECK(g >= 0, "fleet acquire for unknown group \"%s\"", group ? group : "(null)");
    pthread_mutex_lock(&fl_mu);
    FL.asks++;
    for (int i = 0; i < FL.npend; i++)
        FZ_CHECK(FL.pend[i].rq != rq, "fleet: request %p (group %s) asked again while the provider still holds it", (void *)rq, group);
    for (int i = 0; i < FL.nbusy; i++)
        if (FL.busy[i].rq == rq) { /* a task answered BUSY, asked again */
            FL.busy_g[FL.busy[i].g]--;
            FL.busy[i] = FL.busy[--FL.nbusy];
            break;
        }
    if (!FL.sync && !FL.ending) {
        FZ_CHECK(FL.npend < FL_MAX_PEND, "fuzzer: more than %d fleet requests pending", FL_MAX_PEND);
        FL.pend[FL.npend++] = (fl_req){rq, g};
        FL.pend_g[g]++;
        pthread_mutex_unlock(&fl_mu);
        atomic_fetch_add(&acounters[A_FL_ASK_PENDING], 1);
        return;
    }
    static const groupconc_fleet_verdict cycle[4] = {GROUPCONC_FLEET_GRANTED, GROUPCONC_FLEET_BUSY, GROUPCONC_FLEET_REJECT,
                                                     GROUPCONC_FLEET_OPEN};
    static const groupconc_fleet_verdict gror[4] = {GROUPCONC_FLEET_GRANTED, GROUPCONC_FLEET_REJECT, GROUPCONC_FLEET_OPEN,
                                                    GROUPCONC_FLEET_GRANTED};
    groupconc_fleet_verdict want = GROUPCONC_FLEET_GRANTED, alt = GROUPCONC_FLEET_OPEN;
    if (!FL.ending) {
        switch (FL.rule) {
        case FLR_GRANT_ELSE_BUSY: alt = GROUPCONC_FLEET_BUSY; break;
        case FLR_GRANT_ELSE_OPEN: break;
        case FLR_CYCLE: want = cycle[FL.seq++ % 4u], alt = GROUPCONC_FLEET_BUSY; break;
        default: want = gror[FL.seq++ % 4u]; break;
        }
    }
    uint64_t lease;
    groupconc_fleet_verdict v = fl_decide_locked(g, rq, want, alt, &lease, false);
    FL.answering++;
    pthread_mutex_unlock(&fl_mu);
    atomic_fetch_add(&acounters[A_FL_ASK_SYNC], 1);
    fl_answer(rq, v, lease);
    pthread_mutex_lock(&fl_mu);
    FL.answering--;
    pthread_mutex_unlock(&fl_mu);
}

/* release: a token granted, not released before, of the group it was granted for; the count drops
   (and, with fx bit 5, the group is notified: one lease freed) */
static void fl_release(void *user_data, const char *group, uint64_t lease) {
    FZ_CHECK(user_data == &FL, "fleet release: user_data");
    int g = group_index(group);
    FZ_CHECK(g >= 0, "fleet release for unknown group \"%s\"", group ? group : "(null)");
    pthread_mutex_lock(&H.mu);
    uint64_t i = lease - FL_TOKEN_BASE;
    bool known = lease >= FL_TOKEN_BASE && i < (uint64_t)FL.nleases;
    bool twice = known && FL.lease[i].released;
    int lg = known ? FL.lease[i].g : -1;
    if (known && !twice && lg == g) {
        FL.lease[i].released = true;
        FL.count[g]--;
        FL.releases++;
    }
    int count = FL.count[g];
    pthread_mutex_unlock(&H.mu);
    FZ_CHECK(known, "fleet release of lease %#llx (group %s), which was never granted", (unsigned long long)lease, group);
    FZ_CHECK(!twice, "fleet release of lease %#llx (group %s) twice", (unsigned long long)lease, group);
    FZ_CHECK(lg == g, "fleet release of lease %#llx under group %s, granted for %s", (unsigned long long)lease, group,
             group_names[lg]);
    FZ_CHECK(count >= 0, "fleet: group %s holds %d leases", group, count);
    atomic_fetch_add(&acounters[A_FL_RELEASED], 1);
    if (lease == tl_granting) atomic_fetch_add(&acounters[A_FL_LATE], 1); /* given back inside its own answer */
    if (FL.release_notifies) {
        groupconc_executor *ex = atomic_load(&FL.main_ex);
        int rc = fz_code(groupconc_fleet_notify(ex, group));
        FZ_CHECK(rc == GROUPCONC_OK, "groupconc_fleet_notify(%s) from the release callback: %s", group, groupconc_errname(rc));
    }
}

static int fl_attach(void *user_data, groupconc_executor *ex) {
    FZ_CHECK(user_data == &FL && ex != NULL, "fleet attach: arguments");
    if (FL.expect_main) {
        FZ_CHECK(atomic_fetch_add(&FL.attach_main, 1) == 0, "fleet attach called twice for the fuzzer's executor");
        atomic_store(&FL.main_ex, ex);
    } else {
        FZ_CHECK(ex != atomic_load(&FL.main_ex), "fleet attach for the fuzzer's executor again");
        atomic_fetch_add(&FL.attach_other, 1);
    }
    return GROUPCONC_OK;
}

static void fl_end_join(void);

/* detach: once, from the destroy that frees the executor, after the last answer and lease */
static void fl_detach(void *user_data, groupconc_executor *ex) {
    FZ_CHECK(user_data == &FL && ex != NULL, "fleet detach: arguments");
    if (ex != atomic_load(&FL.main_ex)) {
        atomic_fetch_add(&FL.detach_other, 1);
        return;
    }
    FZ_CHECK(FL.destroying && tl_fuzzer_thread, "fleet detach of the fuzzer's executor outside its final destroy");
    FZ_CHECK(atomic_fetch_add(&FL.detach_main, 1) == 0, "fleet detach called twice");
    fl_end_join(); /* the provider's thread leaves its calls with ex before detach returns */
    pthread_mutex_lock(&fl_mu);
    int npend = FL.npend;
    pthread_mutex_unlock(&fl_mu);
    pthread_mutex_lock(&H.mu);
    long out = FL.grants - FL.releases;
    pthread_mutex_unlock(&H.mu);
    FZ_CHECK(npend == 0 && out == 0, "fleet detach with %d requests unanswered, %ld leases not given back", npend, out);
}

/* waiting_fleet of each group against the requests the provider holds: at least those (and the
   BUSY ones it knows of) while nothing can take a task out; down to them, after at most a moment
   (an ask is made once the library's lock is released), when the group had no BUSY answer */
static void fl_check_waiting(void) {
    bool exact = !fl_removal_possible(), pending_mode = !FL.sync && !FL.ending;
    for (int g = 0; g < NG; g++) {
        for (int tries = 0;; tries++) {
            pthread_mutex_lock(&fl_mu);
            int p0 = FL.pend_g[g], b0 = FL.busy_g[g];
            bool dirty = FL.dirty[g];
            pthread_mutex_unlock(&fl_mu);
            groupconc_group_stats gs;
            int rc = fz_code(fz_group_stats(g, &gs));
            FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOTFOUND, "group_stats(%s): %s", group_names[g], groupconc_errname(rc));
            size_t wf = rc == GROUPCONC_OK ? gs.waiting_fleet : 0;
            pthread_mutex_lock(&fl_mu);
            int p1 = FL.pend_g[g];
            dirty |= FL.dirty[g];
            pthread_mutex_unlock(&fl_mu);
            if (exact && pending_mode) {
                FZ_CHECK(wf >= (size_t)(p0 + b0), "group %s: waiting_fleet %zu (group %s), but the provider holds %d of its requests and "
                         "answered %d of its tasks BUSY (nothing could take them out)", group_names[g], wf,
                         rc == GROUPCONC_OK ? "found" : "not found", p0, b0);
                if (p0 + b0 > 0 && tries == 0) atomic_fetch_add(&acounters[A_FL_WAIT_EXACT], 1);
            }
            /* a paused group asks nothing: its tasks wait at the fleet layer unasked (one that
               entered while paused, or whose grant was given back) until the resume asks again */
            if (LV.xpaused || LV.gpaused[g]) break;
            if (dirty || wf <= (size_t)p1 || FL.ending) { /* (the end's answers may come later, on purpose) */
                if (tries) atomic_fetch_add(&acounters[A_FL_WAIT_RETRY], 1);
                break;
            }
            FZ_CHECK(tries < 5000, "group %s: waiting_fleet %zu stays above the %d requests the provider holds for 5 s (no BUSY "
                     "answer for it: every task there is being asked)", group_names[g], wf, p1);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    if (FL.removed && pending_mode) { /* the list emptied: no request of a task taken out is left */
        pthread_mutex_lock(&fl_mu);
        if (FL.npend == 0) FL.removed = false;
        pthread_mutex_unlock(&fl_mu);
    }
}

/* The fleet's counters in executor stats es (taken before; ev_open0: FLEET OPEN events before es) */
static void fl_check_stats(const groupconc_executor_stats *es, long ev_open0, bool all_quiet) {
    FZ_CHECK(es->fleet_renew_failed == (uint64_t)FL.renews, "fleet_renew_failed %llu, the fuzzer reported %ld renewals",
             (unsigned long long)es->fleet_renew_failed, FL.renews);
    if (F.listener_on)
        FZ_CHECK(atomic_load(&FL.ev_renew) == FL.renews, "%ld FLEET RENEW events, %ld reports", atomic_load(&FL.ev_renew), FL.renews);
    if (!FL.on) {
        FZ_CHECK(es->waiting_fleet == 0 && es->rejected_fleet == 0 && es->fleet_open == 0,
                 "without a fleet provider: waiting_fleet %zu rejected_fleet %llu fleet_open %llu", es->waiting_fleet,
                 (unsigned long long)es->rejected_fleet, (unsigned long long)es->fleet_open);
        return;
    }
    pthread_mutex_lock(&fl_mu);
    long open_sure = FL.open_sure, open_all = FL.open_sure + FL.open_unsure, rej_sure = FL.rej_sure,
         rej_all = FL.rej_sure + FL.rej_unsure;
    bool pending_mode = !FL.sync && !FL.ending;
    /* the leases with the answers under way (a lease is reserved under fl_mu with the answer counted) */
    int answering = FL.answering;
    pthread_mutex_lock(&H.mu);
    int sum = 0;
    for (int g = 0; g < NG; g++) {
        FZ_CHECK(FL.count[g] >= 0 && FL.count[g] <= FL.cap[g], "fleet: group %s holds %d leases, cap %d", group_names[g], FL.count[g],
                 FL.cap[g]);
        sum += FL.count[g];
    }
    long out = FL.grants - FL.releases;
    pthread_mutex_unlock(&H.mu);
    pthread_mutex_unlock(&fl_mu);
    FZ_CHECK(es->fleet_open <= (uint64_t)open_all, "fleet_open %llu, the provider answered OPEN %ld times",
             (unsigned long long)es->fleet_open, open_all);
    FZ_CHECK(es->rejected_fleet <= (uint64_t)rej_all, "rejected_fleet %llu, the provider answered REJECT %ld times",
             (unsigned long long)es->rejected_fleet, rej_all);
    if (F.listener_on) FZ_CHECK((uint64_t)ev_open0 <= es->fleet_open, "%ld FLEET OPEN events before stats that say fleet_open %llu",
                                ev_open0, (unsigned long long)es->fleet_open);
    if (pending_mode) { /* every answer was made on the fuzzer thread (or a thread it joined) */
        FZ_CHECK(es->fleet_open >= (uint64_t)open_sure, "fleet_open %llu, but %ld OPEN answers went to tasks nothing could take out",
                 (unsigned long long)es->fleet_open, open_sure);
        if (F.rejection <= 1) /* (the handler's decision or CALLER_RUNS's run moves the count) */
            FZ_CHECK(es->rejected_fleet >= (uint64_t)rej_sure, "rejected_fleet %llu, but %ld REJECT answers went to tasks nothing "
                     "could take out (policy %d)", (unsigned long long)es->rejected_fleet, rej_sure, F.rejection);
        if (F.listener_on)
            FZ_CHECK(atomic_load(&FL.ev_open) == (long)es->fleet_open, "%ld FLEET OPEN events, fleet_open %llu",
                     atomic_load(&FL.ev_open), (unsigned long long)es->fleet_open);
    }
    FZ_CHECK(sum == out, "fleet: %d leases held by the counts, %ld granted and not released", sum, out);
    /* every task finished: each lease went back at its completion, a late one inside its answer */
    if (all_quiet && answering == 0)
        FZ_CHECK(out == 0, "every task finished, but %ld fleet leases were not given back", out);
    fl_check_waiting();
}

/* b: bit 0 the newest (else the oldest) pending request; bits 1-2 the verdict (GRANTED - BUSY when
   the key holds its cap of leases -, BUSY, REJECT, OPEN); bits 3-4 how many: 1, 1, 2, all; b >> 5:
   6 each answered on a short-lived thread, 7 a bad call (bit 0: request NULL, else a verdict outside
   the enum for the oldest: EINVAL, and it stays pending) */
typedef struct fl_job {
    groupconc_fleet_request *rq;
    groupconc_fleet_verdict v;
    uint64_t lease;
} fl_job;

static void *fl_answer_thread(void *arg) {
    fl_job *j = arg;
    tl_helper_thread = 1;
    fl_answer(j->rq, j->v, j->lease);
    return NULL;
}

static void op_fleet_answer(reader *r) {
    unsigned b = rd(r);
    if ((b >> 5) == 7u) {
        groupconc_fleet_request *rq = NULL;
        if (!(b & 1u)) {
            pthread_mutex_lock(&fl_mu);
            rq = FL.npend ? FL.pend[0].rq : NULL;
            pthread_mutex_unlock(&fl_mu);
            if (!rq) return;
        }
        int rc = fz_code(groupconc_fleet_answer(rq, (groupconc_fleet_verdict)(rq ? ((b & 2u) ? -1 : 4) : 0), 0));
        FZ_CHECK(rc == GROUPCONC_EINVAL, "groupconc_fleet_answer with %s: %s, want EINVAL", rq ? "a verdict outside the enum" : "NULL",
                 groupconc_errname(rc));
        if (rq) { /* it stays unanswered: still the oldest held */
            pthread_mutex_lock(&fl_mu);
            bool still = FL.npend > 0 && FL.pend[0].rq == rq;
            pthread_mutex_unlock(&fl_mu);
            FZ_CHECK(still, "a refused groupconc_fleet_answer: its request was asked again");
        }
        atomic_fetch_add(&acounters[A_FL_BAD], 1);
        return;
    }
    static const int counts[4] = {1, 1, 2, FL_MAX_PEND};
    bool threaded = (b >> 5) == 6u, sure = !fl_removal_possible();
    groupconc_fleet_verdict want = (groupconc_fleet_verdict)((b >> 1) & 3u);
    for (int k = 0; k < counts[(b >> 3) & 3u]; k++) {
        fl_job j;
        pthread_mutex_lock(&fl_mu);
        if (FL.npend == 0) {
            pthread_mutex_unlock(&fl_mu);
            break;
        }
        int i = (b & 1u) ? FL.npend - 1 : 0;
        fl_req q = FL.pend[i];
        memmove(&FL.pend[i], &FL.pend[i + 1], (size_t)(FL.npend - i - 1) * sizeof FL.pend[0]);
        FL.npend--;
        FL.pend_g[q.g]--;
        j.rq = q.rq;
        j.v = fl_decide_locked(q.g, q.rq, want, GROUPCONC_FLEET_BUSY, &j.lease, sure);
        pthread_mutex_unlock(&fl_mu);
        pthread_t th;
        if (threaded && pthread_create(&th, NULL, fl_answer_thread, &j) == 0) pthread_join(th, NULL);
        else fl_answer(j.rq, j.v, j.lease);
    }
}

/* b % (NG + 1): the group (NG: NULL, every BUSY task asked again); b >> 4 == 15: a bad call (b % 4:
   executor NULL, key "", key too long, key NULL on an executor without a provider - or, with one, a
   valid NULL notify) */
static void op_fleet_notify(reader *r) {
    unsigned b = rd(r);
    int want = FL.on ? GROUPCONC_OK : GROUPCONC_EINVAL, rc;
    if ((b >> 4) == 15u && b % 4u != 3u) {
        static const int bad_want[3] = {GROUPCONC_EINVAL, GROUPCONC_EKEYEMPTY, GROUPCONC_EKEYTOOLONG};
        rc = fz_code(groupconc_fleet_notify(b % 4u == 0 ? NULL : F.ex, b % 4u == 1 ? "" : too_long_key));
        int w = FL.on || b % 4u == 0 ? bad_want[b % 4u] : GROUPCONC_EINVAL;
        FZ_CHECK(rc == w, "groupconc_fleet_notify, bad call %u: %s, want %s", b % 4u, groupconc_errname(rc), groupconc_errname(w));
        atomic_fetch_add(&acounters[A_FL_BAD], 1);
        return;
    }
    int g = (int)(b % (NG + 1u));
    const char *key = g < NG ? group_names[g] : NULL;
    pthread_mutex_lock(&fl_mu);
    bool clear = !key && FL.on && !FL.sync && !FL.ending; /* only the fuzzer answers: every BUSY one is asked now */
    pthread_mutex_unlock(&fl_mu);
    rc = fz_code(groupconc_fleet_notify(F.ex, key));
    FZ_CHECK(rc == want, "groupconc_fleet_notify(%s): %s, want %s", key ? key : "NULL", groupconc_errname(rc), groupconc_errname(want));
    if (clear) {
        pthread_mutex_lock(&fl_mu);
        memset(FL.dirty, 0, sizeof FL.dirty);
        FL.nbusy = 0;
        memset(FL.busy_g, 0, sizeof FL.busy_g);
        pthread_mutex_unlock(&fl_mu);
    }
    atomic_fetch_add(&acounters[A_FL_NOTIFY], 1);
}

/* b % (NG + 1): the group (NG: NULL); b >> 4 == 15: a bad call (b % 4: executor NULL, reason
   EFLEET_OPEN, reason 0, key "") - EINVAL / EKEYEMPTY, nothing counted, no event */
static void op_fleet_report(reader *r) {
    unsigned b = rd(r);
    long ev = atomic_load(&FL.ev_renew);
    int rc;
    if ((b >> 4) == 15u) {
        static const int bad_want[4] = {GROUPCONC_EINVAL, GROUPCONC_EINVAL, GROUPCONC_EINVAL, GROUPCONC_EKEYEMPTY};
        unsigned k = b % 4u;
        int want = FL.on ? bad_want[k] : GROUPCONC_EINVAL; /* no provider: EINVAL before the key */
        rc = fz_code(groupconc_fleet_report(k == 0 ? NULL : F.ex, k == 3 ? "" : group_names[0],
                                            k == 1 ? GROUPCONC_EFLEET_OPEN : k == 2 ? 0 : GROUPCONC_EFLEET_RENEW));
        FZ_CHECK(rc == want, "groupconc_fleet_report, bad call %u: %s, want %s", k, groupconc_errname(rc),
                 groupconc_errname(want));
        FZ_CHECK(atomic_load(&FL.ev_renew) == ev, "a refused groupconc_fleet_report reported an event");
        atomic_fetch_add(&acounters[A_FL_BAD], 1);
        return;
    }
    int g = (int)(b % (NG + 1u));
    FL.report_key = g < NG ? group_names[g] : NULL;
    rc = fz_code(groupconc_fleet_report(F.ex, FL.report_key, GROUPCONC_EFLEET_RENEW));
    if (!FL.on) { /* an executor without a provider: refused, nothing counted */
        FZ_CHECK(rc == GROUPCONC_EINVAL, "groupconc_fleet_report without a provider: %s", groupconc_errname(rc));
        FZ_CHECK(atomic_load(&FL.ev_renew) == ev, "a refused groupconc_fleet_report reported an event");
        atomic_fetch_add(&acounters[A_FL_BAD], 1);
        return;
    }
    FZ_CHECK(rc == GROUPCONC_OK, "groupconc_fleet_report(%s, EFLEET_RENEW): %s", FL.report_key ? FL.report_key : "NULL",
             groupconc_errname(rc));
    FL.renews++;
    if (F.listener_on) FZ_CHECK(atomic_load(&FL.ev_renew) == ev + 1, "groupconc_fleet_report returned before its FLEET event");
    atomic_fetch_add(&acounters[A_FL_REPORT], 1);
}

/* The end: the provider answers every request it holds (GRANTED under the cap, else OPEN) and each new
   one at once; once no answer decided before is still being made, every BUSY task is asked again.
   With FL.late_end that is done by the provider's own thread, a moment later, while the fuzzer goes on
   to shut down and destroy (which must wait for the answers); detach joins it. */
static fl_req fl_held[FL_MAX_PEND];
static int fl_nheld;

static void fl_end_answer(void) {
    int n = fl_nheld;
    fl_req *held = fl_held;
    for (int i = 0; i < n; i++) {
        uint64_t lease;
        pthread_mutex_lock(&fl_mu);
        groupconc_fleet_verdict v = fl_decide_locked(held[i].g, held[i].rq, GROUPCONC_FLEET_GRANTED, GROUPCONC_FLEET_OPEN, &lease, false);
        FL.answering++; /* (a late lease is given back inside the answer) */
        pthread_mutex_unlock(&fl_mu);
        fl_answer(held[i].rq, v, lease);
        pthread_mutex_lock(&fl_mu);
        FL.answering--;
        pthread_mutex_unlock(&fl_mu);
        atomic_fetch_add(&acounters[A_FL_END_ANSWERED], 1);
    }
    for (int tries = 0;; tries++) {
        pthread_mutex_lock(&fl_mu);
        int answering = FL.answering;
        pthread_mutex_unlock(&fl_mu);
        if (answering == 0) break;
        FZ_CHECK(tries < 10000, "the end: %d fleet answers made inside acquire still under way after 10 s", answering);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    int rc = fz_code(groupconc_fleet_notify(atomic_load(&FL.main_ex), NULL));
    FZ_CHECK(rc == GROUPCONC_OK, "the end: groupconc_fleet_notify(NULL): %s", groupconc_errname(rc));
}

static void *fl_end_thread(void *arg) {
    (void)arg;
    tl_helper_thread = 1;
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    fl_end_answer();
    return NULL;
}

static void fl_end_join(void) {
    if (FL.end_started && !FL.end_joined) {
        pthread_join(FL.end_thread, NULL);
        FL.end_joined = true;
    }
}

static void fl_end(void) {
    if (!FL.on) return;
    pthread_mutex_lock(&fl_mu);
    FL.ending = true;
    fl_nheld = FL.npend;
    memcpy(fl_held, FL.pend, (size_t)fl_nheld * sizeof fl_held[0]);
    FL.npend = 0;
    memset(FL.pend_g, 0, sizeof FL.pend_g);
    pthread_mutex_unlock(&fl_mu);
    if (FL.late_end && pthread_create(&FL.end_thread, NULL, fl_end_thread, NULL) == 0) FL.end_started = true;
    else fl_end_answer();
}

/* After the executor was destroyed: detach once, every request answered, every lease released once. */
static void fl_final(void) {
    fl_end_join();
    if (!FL.on) {
        FZ_CHECK(atomic_load(&FL.attach_main) == 0 && atomic_load(&FL.detach_main) == 0, "fleet attach / detach without a provider");
        return;
    }
    FZ_CHECK(atomic_load(&FL.attach_main) == 1 && atomic_load(&FL.detach_main) == 1, "fleet: attach called %d times, detach %d times",
             atomic_load(&FL.attach_main), atomic_load(&FL.detach_main));
    FZ_CHECK(FL.npend == 0 && FL.answering == 0, "fleet: %d requests pending, %d answers under way after destroy", FL.npend,
             FL.answering);
    FZ_CHECK(FL.grants == FL.releases, "fleet: %ld leases granted, %ld released", FL.grants, FL.releases);
    for (int i = 0; i < FL.nleases; i++)
        FZ_CHECK(FL.lease[i].released, "fleet: lease %d (group %s) never released", i, group_names[FL.lease[i].g]);
    for (int g = 0; g < NG; g++) FZ_CHECK(FL.count[g] == 0, "fleet: group %s still holds %d leases", group_names[g], FL.count[g]);
}

/* ---- live limits, pause and resume (beyond the seeds) ------------------------------------------ */

/* right after a live change: one snapshot of every gauge (check_dump_live): what a raise or a resume
   freed went to the waiters at once */
static void live_dump(const char *why) {
#ifdef GROUPCONC_NO_DUMP
    (void)why; /* no dump to look at */
#else
    size_t need = 0, size = 65536;
    char *buf = malloc(size);
    if (!buf) return;
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_executor_dump(F.ex, buf, size, &need));
    check_nomem(rc, inj, "dump");
    if (rc == GROUPCONC_OK) check_dump(buf, need - 1, why);
    else FZ_CHECK(rc == GROUPCONC_ENOMEM || (rc == GROUPCONC_ERANGE && need > size), "dump after %s: %s", why, groupconc_errname(rc));
    free(buf);
#endif
}

/* the key of a bad call (b % 5): ex NULL, the argument NULL, key NULL, "", too long */
static const int bad_key_want[5] = {GROUPCONC_EINVAL, GROUPCONC_EINVAL, GROUPCONC_EINVAL, GROUPCONC_EKEYEMPTY, GROUPCONC_EKEYTOOLONG};
static const char *bad_key(unsigned b) { return b % 5u == 2 ? NULL : b % 5u == 3 ? "" : b % 5u == 4 ? too_long_key : group_names[0]; }

/* b1 % NG: the group; b1 >> 5 == 7: a bad call (b2 % 5, bad_key), nothing may change; else
   b2 % 8 concurrency {KEEP, DEFAULT, 1, 2, 3, 4, 0, -5}, (b2 >> 3) % 8 max_in_flight {KEEP, DEFAULT,
   UNL, 1, 2, 3, 0, KEEP}, b3 % 8 queue_threshold {KEEP, DEFAULT, UNL, 0, 1, 2, 4, -7}, (b3 >> 3) % 8
   max_wait_ns {KEEP, DEFAULT, 0, FOREVER, 2 ms, 5 ms, 15 ms, -9} (0, -5, -7, -9: ELIMIT, nothing done).
   The model: the table entry takes every field that is not KEEP; the group's state, if it has one,
   resolves those fields again now (DEFAULT: the resolver / the executor's defaults in force now);
   a state made later (evict, reclaim, first use) resolves them all from the entry. */
static void op_group_limits(reader *r) {
    static const int concs[8] = {GROUPCONC_KEEP, GROUPCONC_DEFAULT, 1, 2, 3, 4, 0, -5};
    static const int infls[8] = {GROUPCONC_KEEP, GROUPCONC_DEFAULT, UNL, 1, 2, 3, 0, GROUPCONC_KEEP};
    static const int thrs[8] = {GROUPCONC_KEEP, GROUPCONC_DEFAULT, UNL, 0, 1, 2, 4, -7};
    static const int64_t mws[8] = {GROUPCONC_KEEP, GROUPCONC_DEFAULT, 0, GROUPCONC_FOREVER, 2000000, 5000000, 15000000, -9};
    unsigned b1 = rd(r), b2 = rd(r), b3 = rd(r);
    int g = (int)(b1 % NG);
    groupconc_group_limits l = groupconc_group_limits_keep(group_names[g]);
    FZ_CHECK(l.group == group_names[g] && l.concurrency == GROUPCONC_KEEP && l.max_in_flight == GROUPCONC_KEEP &&
                 l.queue_threshold == GROUPCONC_KEEP && l.max_wait_ns == GROUPCONC_KEEP,
             "groupconc_group_limits_keep: not every field KEEP");
    if ((b1 >> 5) == 7u) {
        unsigned k = b2 % 5u;
        l.group = bad_key(k);
        l.concurrency = 1;
        int rc = fz_code(groupconc_group_limits_set(k == 0 ? NULL : F.ex, k == 1 ? NULL : &l));
        FZ_CHECK(rc == bad_key_want[k], "group_limits_set bad call %u: %s, want %s", k, groupconc_errname(rc),
                 groupconc_errname(bad_key_want[k]));
        atomic_fetch_add(&acounters[A_LV_LIMITS_BAD], 1);
        return;
    }
    l.concurrency = concs[b2 % 8u];
    l.max_in_flight = infls[(b2 >> 3) % 8u];
    l.queue_threshold = thrs[b3 % 8u];
    l.max_wait_ns = mws[(b3 >> 3) % 8u];
    bool valid = l.concurrency != 0 && l.concurrency != -5 && l.max_in_flight != 0 && l.queue_threshold != -7 && l.max_wait_ns != -9;
    /* the model, changed before the call (the high-water marks must cover a raise at once); put back
       if the call changes nothing */
    bool applies = valid && !F.shutdown_called;
    static lim3 saved_plaus[MAX_PLAUS];
    int saved_n = LV.nplaus[g];
    memcpy(saved_plaus, LV.plaus[g], sizeof saved_plaus);
    struct lv_ent saved_ent = LV.ent[g];
    bool saved_any = LV.any_deadline;
    if (applies) {
        if (!LV.ent[g].present) {
            LV.ent[g].present = true;
            LV.ent[g].conc = LV.ent[g].infl = LV.ent[g].thr = GROUPCONC_DEFAULT;
            LV.ent[g].mw = 0;
        }
        if (l.concurrency != GROUPCONC_KEEP) LV.ent[g].conc = l.concurrency;
        if (l.max_in_flight != GROUPCONC_KEEP) LV.ent[g].infl = l.max_in_flight;
        if (l.queue_threshold != GROUPCONC_KEEP) LV.ent[g].thr = l.queue_threshold;
        if (l.max_wait_ns != GROUPCONC_KEEP) LV.ent[g].mw = l.max_wait_ns == GROUPCONC_DEFAULT ? 0 : l.max_wait_ns;
        if (LV.ent[g].mw != 0) LV.any_deadline = true; /* before: a task submitted during the call may get it */
        lim3 w = lv_want(g);
        lim3 old[MAX_PLAUS];
        int n = LV.nplaus[g];
        memcpy(old, LV.plaus[g], sizeof old);
        LV.nplaus[g] = 0;
        for (int i = 0; i < n; i++) {
            lim3 x = old[i];
            if (l.concurrency != GROUPCONC_KEEP) x.conc = w.conc;
            if (l.max_in_flight != GROUPCONC_KEEP) x.infl = w.infl;
            if (l.queue_threshold != GROUPCONC_KEEP) x.thr = w.thr;
            plaus_add(g, x);
        }
        if (LV.bounded || !LV.exists[g]) plaus_add(g, w);
        lv_raise(g);
    }
    long inj = atomic_load(&fz_injected);
    int rc = fz_code(groupconc_group_limits_set(F.ex, &l));
    check_nomem(rc, inj, "group_limits_set");
    int want = !valid ? GROUPCONC_ELIMIT : F.shutdown_called ? GROUPCONC_ESHUTDOWN : GROUPCONC_OK;
    FZ_CHECK(rc == want || (want == GROUPCONC_OK && rc == GROUPCONC_ENOMEM),
             "group_limits_set(%s: %d/%d/%d, max_wait %lld): %s, want %s", group_names[g], l.concurrency, l.max_in_flight,
             l.queue_threshold, (long long)l.max_wait_ns, groupconc_errname(rc), groupconc_errname(want));
    if (rc != GROUPCONC_OK && applies) { /* nothing changed (the high-water marks may stay up: they drain) */
        LV.nplaus[g] = saved_n;
        memcpy(LV.plaus[g], saved_plaus, sizeof saved_plaus);
        LV.ent[g] = saved_ent;
        LV.any_deadline = saved_any || LV.any_deadline; /* (a deadline possible is only ever set) */
    }
    atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_LV_LIMITS_OK : A_LV_LIMITS_BAD], 1);
    if (rc == GROUPCONC_OK) live_dump("a dump after group_limits_set");
}

/* b1 % 8: global_max_in_flight {KEEP, UNL, 1, 2, 3, 5, 0, KEEP}; (b1 >> 3) % 8: global_queue_threshold
   {KEEP, UNL, 0, 1, 3, KEEP, -4, KEEP}; b2 % 8: global_max_running {KEEP, UNL, 1, 2, 3, 4, 0, KEEP};
   (b2 >> 3) % 8: max_waiting {KEEP, UNL, 0, 1, 2, 5, -4, KEEP}; b3: the defaults for groups made later
   (concurrency b3 % 4 {KEEP, 1, 2, 3}, in-flight (b3 >> 2) % 4 {KEEP, UNL, 1, 2}, threshold (b3 >> 4) % 4
   {KEEP, UNL, 0, 2}, max_wait (b3 >> 6) {KEEP, FOREVER, 3 ms, 10 ms}); (b2 >> 6) == 3: one default
   out of range instead (ELIMIT), and with (b1 >> 6) == 3 too: a NULL argument (EINVAL). Existing groups
   keep their limits; a state made later resolves with the new defaults. */
static void op_exec_limits(reader *r) {
    static const int gins[8] = {GROUPCONC_KEEP, UNL, 1, 2, 3, 5, 0, GROUPCONC_KEEP};
    static const int gthrs[8] = {GROUPCONC_KEEP, UNL, 0, 1, 3, GROUPCONC_KEEP, -4, GROUPCONC_KEEP};
    static const int gruns[8] = {GROUPCONC_KEEP, UNL, 1, 2, 3, 4, 0, GROUPCONC_KEEP};
    static const int mwaits[8] = {GROUPCONC_KEEP, UNL, 0, 1, 2, 5, -4, GROUPCONC_KEEP};
    static const int dconcs[4] = {GROUPCONC_KEEP, 1, 2, 3};
    static const int dinfls[4] = {GROUPCONC_KEEP, UNL, 1, 2};
    static const int dthrs[4] = {GROUPCONC_KEEP, UNL, 0, 2};
    static const int64_t dmws[4] = {GROUPCONC_KEEP, GROUPCONC_FOREVER, 3000000, 10000000};
    unsigned b1 = rd(r), b2 = rd(r), b3 = rd(r);
    groupconc_executor_limits l = groupconc_executor_limits_keep();
    FZ_CHECK(l.global_max_in_flight == GROUPCONC_KEEP && l.global_queue_threshold == GROUPCONC_KEEP &&
                 l.global_max_running == GROUPCONC_KEEP && l.max_waiting == GROUPCONC_KEEP && l.default_concurrency == GROUPCONC_KEEP &&
                 l.default_max_in_flight == GROUPCONC_KEEP && l.default_queue_threshold == GROUPCONC_KEEP &&
                 l.default_max_wait_ns == GROUPCONC_KEEP,
             "groupconc_executor_limits_keep: not every field KEEP");
    if ((b1 >> 6) == 3u && (b2 >> 6) == 3u) {
        int rc = fz_code(groupconc_executor_limits_set((b3 & 1u) ? NULL : F.ex, (b3 & 1u) ? &l : NULL));
        FZ_CHECK(rc == GROUPCONC_EINVAL, "executor_limits_set with a NULL argument: %s", groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_LV_XLIMITS_BAD], 1);
        return;
    }
    l.global_max_in_flight = gins[b1 % 8u];
    l.global_queue_threshold = gthrs[(b1 >> 3) % 8u];
    l.global_max_running = gruns[b2 % 8u];
    l.max_waiting = mwaits[(b2 >> 3) % 8u];
    l.default_concurrency = dconcs[b3 % 4u];
    l.default_max_in_flight = dinfls[(b3 >> 2) % 4u];
    l.default_queue_threshold = dthrs[(b3 >> 4) % 4u];
    l.default_max_wait_ns = dmws[(b3 >> 6) % 4u];
    if ((b2 >> 6) == 3u) {
        switch (b3 % 4u) {
        case 0: l.default_concurrency = 0; break;
        case 1: l.default_max_in_flight = 0; break;
        case 2: l.default_queue_threshold = -4; break;
        default: l.default_max_wait_ns = 0; break;
        }
    }
    bool valid = l.global_max_in_flight != 0 && l.global_queue_threshold != -4 && l.global_max_running != 0 && l.max_waiting != -4 &&
                 l.default_concurrency != 0 && l.default_max_in_flight != 0 && l.default_queue_threshold != -4 &&
                 l.default_max_wait_ns != 0;
    bool applies = valid && !F.shutdown_called;
    static struct lv_model saved;
    saved = LV;
    if (applies) {
        if (l.global_max_in_flight != GROUPCONC_KEEP) LV.gin = l.global_max_in_flight;
        if (l.global_queue_threshold != GROUPCONC_KEEP) LV.gthr = l.global_queue_threshold;
        if (l.global_max_running != GROUPCONC_KEEP) LV.grun = l.global_max_running;
        if (l.max_waiting != GROUPCONC_KEEP) LV.mwait = l.max_waiting;
        if (l.default_concurrency != GROUPCONC_KEEP) LV.def_conc = l.default_concurrency;
        if (l.default_max_in_flight != GROUPCONC_KEEP) LV.def_infl = l.default_max_in_flight;
        if (l.default_queue_threshold != GROUPCONC_KEEP) LV.def_thr = l.default_queue_threshold;
        if (l.default_max_wait_ns != GROUPCONC_KEEP) LV.def_mw = l.default_max_wait_ns;
        if (LV.def_mw != GROUPCONC_FOREVER) LV.any_deadline = true;
        lv_graise();
        for (int g = 0; g < NG; g++) /* a state made from now on gets the new defaults */
            if (LV.bounded || !LV.exists[g]) {
                plaus_add(g, lv_want(g));
                lv_raise(g);
            }
    }
    int rc = fz_code(groupconc_executor_limits_set(F.ex, &l));
    int want = !valid ? GROUPCONC_ELIMIT : F.shutdown_called ? GROUPCONC_ESHUTDOWN : GROUPCONC_OK;
    FZ_CHECK(rc == want, "executor_limits_set: %s, want %s", groupconc_errname(rc), groupconc_errname(want));
    if (rc != GROUPCONC_OK && applies) {
        bool any = LV.any_deadline;
        LV = saved;
        LV.any_deadline |= any;
    }
    atomic_fetch_add(&acounters[rc == GROUPCONC_OK ? A_LV_XLIMITS_OK : A_LV_XLIMITS_BAD], 1);
    if (rc == GROUPCONC_OK) live_dump("a dump after executor_limits_set");
}

/* b % NG: the group; (b >> 5) == 7: a bad call ((b >> 3) % 5 ... only the keys: bad_key 2-4, or ex
   NULL / group NULL). pause: OK (a state is made if it has none: created paused), ESHUTDOWN after a
   shutdown, EGROUPS_FULL (a new key, the table full), ENOMEM (injected); resume: always OK. While
   paused nothing of the group is admitted (its admitted count holds still: check_group_live), and an
   executor gate refuses it (EPAUSED). */
static void op_group_pause(reader *r, bool pause) {
    unsigned b = rd(r);
    int g = (int)(b % NG);
    if ((b >> 5) == 7u) {
        unsigned k = (b >> 2) % 5u;
        const char *key = k == 1 ? NULL : bad_key(k);
        int want = k == 1 ? GROUPCONC_EINVAL : bad_key_want[k];
        int rc = fz_code(pause ? groupconc_group_pause(k == 0 ? NULL : F.ex, key) : groupconc_group_resume(k == 0 ? NULL : F.ex, key));
        FZ_CHECK(rc == want, "group_%s bad call %u: %s, want %s", pause ? "pause" : "resume", k, groupconc_errname(rc),
                 groupconc_errname(want));
        return;
    }
    if (!pause) {
        atomic_fetch_add(&HI.gepoch[g], 1); /* before: what it lets start must see the pause ended */
        int rc = fz_code(groupconc_group_resume(F.ex, group_names[g]));
        FZ_CHECK(rc == GROUPCONC_OK, "group_resume(%s): %s", group_names[g], groupconc_errname(rc));
        LV.gpaused[g] = false;
        LV.adm_known[g] = false;
        atomic_fetch_add(&acounters[A_LV_RESUME], 1);
        live_dump("a dump after group_resume");
        return;
    }
    long inj = atomic_load(&fz_injected);
    long ws0 = wsub_mark();
    int rc = fz_code(groupconc_group_pause(F.ex, group_names[g]));
    check_nomem(rc, inj, "group_pause");
    if (F.shutdown_called) {
        FZ_CHECK(rc == GROUPCONC_ESHUTDOWN, "group_pause(%s) after a shutdown: %s", group_names[g], groupconc_errname(rc));
        return;
    }
    FZ_CHECK(rc == GROUPCONC_OK || rc == GROUPCONC_ENOMEM || (rc == GROUPCONC_EGROUPS_FULL && LV.max_groups != UNL),
             "group_pause(%s): %s", group_names[g], groupconc_errname(rc));
    if (rc == GROUPCONC_EGROUPS_FULL) {
        atomic_fetch_add(&acounters[A_LV_GROUPS_FULL], 1);
        groupconc_executor_stats es;
        FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &es)) == GROUPCONC_OK, "executor_stats");
        if (LV.idle_ns <= 0 && wsub_still(ws0)) /* only a new key at the maximum reclaims */
            FZ_CHECK(es.groups == (size_t)LV.max_groups, "group_pause(%s): EGROUPS_FULL with %zu groups, max_groups %d", group_names[g],
                     es.groups, LV.max_groups);
        return;
    }
    if (rc != GROUPCONC_OK) return;
    LV.ever_paused = true;
    if (!LV.gpaused[g]) LV.adm_known[g] = false;
    LV.gpaused[g] = true;
    /* from here on nothing of it is admitted: the count now is the one to hold */
    groupconc_group_stats gs;
    rc = fz_code(fz_group_stats(g, &gs));
    FZ_CHECK(rc == GROUPCONC_OK && gs.paused, "group %s just paused: group_stats %s, paused %d", group_names[g], groupconc_errname(rc),
             rc == GROUPCONC_OK ? (int)gs.paused : -1);
    if (LV.adm_known[g]) FZ_CHECK(gs.admitted <= LV.adm[g], "group %s: admitted moved while paused", group_names[g]);
    LV.adm[g] = gs.admitted;
    LV.adm_known[g] = true;
    atomic_fetch_add(&acounters[A_LV_PAUSE], 1);
    live_dump("a dump after group_pause");
}

/* b bit 0: a NULL executor first (EINVAL); bit 1: twice (idempotent). Always OK, also after a
   shutdown (a group paused by itself stays paused after the executor's resume). */
static void op_exec_pause(reader *r, bool pause) {
    unsigned b = rd(r);
    if (b & 1u) {
        int rc = fz_code(pause ? groupconc_executor_pause(NULL) : groupconc_executor_resume(NULL));
        FZ_CHECK(rc == GROUPCONC_EINVAL, "executor_%s(NULL): %s", pause ? "pause" : "resume", groupconc_errname(rc));
    }
    if (!pause) atomic_fetch_add(&HI.xepoch, 1); /* before: what it lets start must see the pause ended */
    for (int k = 0; k < ((b & 2u) ? 2 : 1); k++) {
        int rc = fz_code(pause ? groupconc_executor_pause(F.ex) : groupconc_executor_resume(F.ex));
        FZ_CHECK(rc == GROUPCONC_OK, "executor_%s: %s", pause ? "pause" : "resume", groupconc_errname(rc));
    }
    if (!pause) {
        LV.xpaused = false;
        LV.xadm_known = false;
        for (int g = 0; g < NG; g++) LV.adm_known[g] = LV.adm_known[g] && LV.gpaused[g];
        atomic_fetch_add(&acounters[A_LV_XRESUME], 1);
        live_dump("a dump after executor_resume");
        return;
    }
    LV.ever_paused = true;
    if (!LV.xpaused)
        for (int g = 0; g < NG; g++) LV.adm_known[g] = LV.adm_known[g] && LV.gpaused[g];
    LV.xpaused = true;
    groupconc_executor_stats es;
    FZ_CHECK(fz_code(groupconc_executor_stats_get(F.ex, &es)) == GROUPCONC_OK && es.paused, "executor just paused: stats say not");
    if (LV.xadm_known) FZ_CHECK(es.admitted == LV.xadm, "executor admitted moved while paused");
    LV.xadm = es.admitted;
    LV.xadm_known = true;
    atomic_fetch_add(&acounters[A_LV_XPAUSE], 1);
    live_dump("a dump after executor_pause");
}

/* the end: every pause lifted (a paused group's waiters would never finish) */
static void resume_all(void) {
    atomic_fetch_add(&HI.xepoch, 1);
    for (int g = 0; g < NG; g++) atomic_fetch_add(&HI.gepoch[g], 1);
    int rc = fz_code(groupconc_executor_resume(F.ex));
    FZ_CHECK(rc == GROUPCONC_OK, "the end: executor_resume: %s", groupconc_errname(rc));
    for (int g = 0; g < NG; g++) {
        rc = fz_code(groupconc_group_resume(F.ex, group_names[g]));
        FZ_CHECK(rc == GROUPCONC_OK, "the end: group_resume(%s): %s", group_names[g], groupconc_errname(rc));
        LV.gpaused[g] = false;
        LV.adm_known[g] = false;
    }
    LV.xpaused = false;
    LV.xadm_known = false;
}

/* FUZZ_TRACE=1 (replay or libFuzzer): each op and its argument bytes on stderr, to read a reproducer */
static const char *const op_names[OP_COUNT] = {
    "SUBMIT0", "SUBMIT1", "SUBMIT2", "SUBMIT3", "SUBMIT4", "BAD_SUBMIT", "CANCEL", "WAIT_FOR", "IS_DONE", "ON_COMPLETE",
    "RELEASE", "SHUTDOWN_GROUP", "EVICT", "STATS", "KEYS", "LATCH_OPEN", "LATCH_CLOSE", "EXEC_ALL", "SHUTDOWN", "GRACEFUL", "OOM",
    "THREAD_FAIL", "WAIT_LONG", "POLICY", "SELF_BLOCK", "GATE_ACQUIRE", "GATE_RELEASE", "GATE_BAD_RELEASE", "GATE_STATS",
    "GATE_RESET", "SUBMIT_DEFER", "DEFER_COMPLETE", "SCOPE_OPEN", "SCOPE_FORK", "SCOPE_SHUTDOWN", "SCOPE_JOIN_FOR", "SCOPE_JOIN",
    "SCOPE_CLOSE", "SCOPE_QUERY", "SCOPE_FOREIGN", "SCOPE_RELEASE", "DUMP", "DUMP_FILE", "GROUP_LIMITS", "EXEC_LIMITS",
    "GROUP_PAUSE", "GROUP_RESUME", "EXEC_PAUSE", "EXEC_RESUME", "SUBMIT_DEADLINE", "FLEET_ANSWER", "FLEET_NOTIFY", "FLEET_REPORT", "SUBMIT_HINT"};
static int fz_trace = -1;

/* the feature an op puts in play (FUZZ_FEATURES) */
static void ft_op(unsigned op) {
    switch (op) {
    case OP_SUBMIT0: case OP_SUBMIT1: case OP_SUBMIT2: case OP_SUBMIT3: case OP_SUBMIT4: case OP_CANCEL:
    case OP_WAIT_FOR: case OP_IS_DONE: case OP_ON_COMPLETE: case OP_RELEASE: case OP_SELF_BLOCK: ft_mark(FT_TASKS); break;
    case OP_EXEC_ALL: ft_mark(FT_EXECALL); break;
    case OP_SUBMIT_DEFER: case OP_DEFER_COMPLETE: ft_mark(FT_DEFERRED); break;
    case OP_GATE_ACQUIRE: case OP_GATE_RELEASE: ft_mark(FT_GATE); break;
    case OP_SCOPE_OPEN: case OP_SCOPE_FORK: case OP_SCOPE_SHUTDOWN: case OP_SCOPE_JOIN_FOR: case OP_SCOPE_JOIN:
    case OP_SCOPE_CLOSE: ft_mark(FT_SCOPE); break;
    case OP_SUBMIT_DEADLINE: ft_mark(FT_DEADLINE); break;
    case OP_GROUP_PAUSE: case OP_EXEC_PAUSE: ft_mark(FT_PAUSE); break;
    case OP_GROUP_LIMITS: case OP_EXEC_LIMITS: ft_mark(FT_LIVE); break;
    case OP_SHUTDOWN_GROUP: case OP_EVICT: ft_mark(FT_GROUPSHUT); break;
    case OP_SHUTDOWN: case OP_GRACEFUL: ft_mark(FT_SHUTDOWN); break;
    case OP_DUMP: case OP_DUMP_FILE: ft_mark(FT_DUMP); break;
    default: break;
    }
}

static void fz_step(reader *r) {
    size_t at = r->i;
    unsigned op = rd(r) % OP_COUNT;
    long inj = atomic_load(&fz_injected);
    int rc;
    if (fz_trace < 0) fz_trace = getenv("FUZZ_TRACE") != NULL;
    /* these may take tasks out of the fleet layer with their requests still out (see fl_removal_possible) */
    if (op == OP_CANCEL || op == OP_SHUTDOWN_GROUP || op == OP_EVICT || op == OP_SHUTDOWN || op == OP_GRACEFUL || op == OP_EXEC_ALL)
        fl_removed();
    ft_op(op);
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
#ifndef GROUPCONC_NO_GATE
    case OP_GATE_ACQUIRE: op_gate_acquire(r); break;
    case OP_GATE_RELEASE: op_gate_release(r); break;
    case OP_GATE_BAD_RELEASE: op_gate_bad_release(r); break;
    case OP_GATE_STATS: op_gate_stats(r); break;
    case OP_GATE_RESET: op_gate_reset(r); break;
#else /* the gate is left out: its ops do nothing */
    case OP_GATE_ACQUIRE: case OP_GATE_RELEASE: case OP_GATE_BAD_RELEASE: case OP_GATE_STATS: case OP_GATE_RESET: break;
#endif
    case OP_SUBMIT_DEFER: op_submit(r, SUB_DEFER); break;
    case OP_DEFER_COMPLETE: op_defer_complete(r); break;
#ifndef GROUPCONC_NO_SCOPES
    case OP_SCOPE_OPEN: op_scope_open(r); break;
    case OP_SCOPE_FORK: op_scope_fork(r); break;
    case OP_SCOPE_SHUTDOWN: op_scope_shutdown(r); break;
    case OP_SCOPE_JOIN_FOR: op_scope_join_for(r); break;
    case OP_SCOPE_JOIN: op_scope_join(r); break;
    case OP_SCOPE_CLOSE: op_scope_close(r); break;
    case OP_SCOPE_QUERY: op_scope_query(r); break;
    case OP_SCOPE_FOREIGN: op_scope_foreign(r); break;
    case OP_SCOPE_RELEASE: op_scope_release(r); break;
#else /* scopes are left out: their ops do nothing */
    case OP_SCOPE_OPEN: case OP_SCOPE_FORK: case OP_SCOPE_SHUTDOWN: case OP_SCOPE_JOIN_FOR: case OP_SCOPE_JOIN:
    case OP_SCOPE_CLOSE: case OP_SCOPE_QUERY: case OP_SCOPE_FOREIGN: case OP_SCOPE_RELEASE: break;
#endif
#ifndef GROUPCONC_NO_DUMP
    case OP_DUMP: op_dump(r); break;
    case OP_DUMP_FILE: op_dump_file(r); break;
#else /* the dump is left out: its ops do nothing */
    case OP_DUMP: case OP_DUMP_FILE: break;
#endif
    case OP_GROUP_LIMITS: op_group_limits(r); break;
    case OP_EXEC_LIMITS: op_exec_limits(r); break;
    case OP_GROUP_PAUSE: op_group_pause(r, true); break;
    case OP_GROUP_RESUME: op_group_pause(r, false); break;
    case OP_EXEC_PAUSE: op_exec_pause(r, true); break;
    case OP_EXEC_RESUME: op_exec_pause(r, false); break;
    case OP_SUBMIT_DEADLINE: op_submit(r, SUB_DEADLINE); break;
    case OP_FLEET_ANSWER: op_fleet_answer(r); break;
    case OP_FLEET_NOTIFY: op_fleet_notify(r); break;
    case OP_FLEET_REPORT: op_fleet_report(r); break;
    case OP_SUBMIT_HINT: op_submit(r, SUB_HINT); break;
    default: fz_fail("op %u", op);
    }
    (void)inj;
    if (fz_trace) {
        fprintf(stderr, "fuzz_ops: op %2u %-16s bytes", op, op_names[op]);
        for (size_t k = at + 1; k < r->i; k++) fprintf(stderr, " %u", (unsigned)r->p[k]);
        pthread_mutex_lock(&fl_mu);
        pthread_mutex_lock(&H.mu);
        fprintf(stderr, "  (fleet pending %d, leases out %ld)\n", FL.npend, FL.grants - FL.releases);
        pthread_mutex_unlock(&H.mu);
        pthread_mutex_unlock(&fl_mu);
    }
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
    if (h[7] & 1u) F.table[nt++] = (groupconc_group_limits){"g0", 2, GROUPCONC_DEFAULT, 1, 0};
    if (h[7] & 2u) F.table[nt++] = (groupconc_group_limits){"g1", GROUPCONC_DEFAULT, 1, 0, 0};
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
    /* beyond the seeds: h[5] >> 2 (0 and 63 off: the seeds written before keep their meaning) turns on
       the global running cap (h[1] >> 2), max_waiting (h[1] >> 4), max_groups (ext bits 0-1: fewer than
       the NG keys), group_idle_ns (bits 2-3: 1-5 ms), the default queue deadline (bits 4-5) and a
       deadline for the table's g1 (h[3] / 6) */
    unsigned ext = h[5] >> 2;
    if (ext != 0 && ext != 63) {
        static const int gruns[4] = {UNL, 1, 2, 3};
        static const int mwaits[4] = {UNL, 0, 2, 5};
        static const int maxg[4] = {UNL, 2, 3, 5};
        static const int64_t idles[4] = {GROUPCONC_FOREVER, 1000000, 3000000, 5000000};
        static const int64_t dmws[4] = {GROUPCONC_FOREVER, GROUPCONC_FOREVER, 4000000, 15000000};
        static const int64_t g1mws[3] = {0, 3000000, GROUPCONC_FOREVER};
        p->global_max_running = gruns[(h[1] >> 2) % 4u];
        p->max_waiting = mwaits[(h[1] >> 4) % 4u];
        p->max_groups = maxg[ext & 3u];
        p->group_idle_ns = idles[(ext >> 2) & 3u];
        p->default_max_wait_ns = dmws[(ext >> 4) & 3u];
        for (size_t i = 0; i < nt; i++)
            if (strcmp(F.table[i].group, "g1") == 0) F.table[i].max_wait_ns = g1mws[(h[3] / 6u) % 3u];
    }
    /* the fleet layer: h[4] >> 2 (0 and 63 off: the seeds written before keep their meaning) installs the
       harness's provider; bit 0 synchronous, bits 1-2 its rule, bits 3-4 the caps, bit 5 release notifies */
    unsigned fx = h[4] >> 2;
    FL.on = fx != 0 && fx != 63;
    if (FL.on) {
        FL.sync = (fx & 1u) != 0;
        FL.rule = (int)((fx >> 1) & 3u);
        for (int g = 0; g < NG; g++) FL.cap[g] = 1 + (g + (int)((fx >> 3) & 3u)) % 3;
        FL.late_end = ((fx >> 3) & 3u) == 3u; /* (the caps of offset 3 are offset 0's) */
        FL.release_notifies = (fx & 32u) != 0;
        p->fleet.acquire = fl_acquire;
        p->fleet.release = fl_release;
        p->fleet.attach = fl_attach;
        p->fleet.detach = fl_detach;
        p->fleet.user_data = &FL;
    }
    F.max_threads = p->max_threads;
    /* what the fuzzer knows of the limits from here on (see LV) */
    LV.def_conc = p->default_concurrency;
    LV.def_infl = p->default_max_in_flight;
    LV.def_thr = p->default_queue_threshold;
    LV.def_mw = p->default_max_wait_ns;
    LV.gin = p->global_max_in_flight;
    LV.gthr = p->global_queue_threshold;
    LV.grun = p->global_max_running;
    LV.mwait = p->max_waiting;
    LV.max_groups = p->max_groups;
    LV.idle_ns = p->group_idle_ns;
    LV.bounded = p->max_groups != UNL || p->group_idle_ns > 0;
    LV.resolver = p->resolver != NULL;
    LV.any_deadline = p->default_max_wait_ns != GROUPCONC_FOREVER;
    for (size_t i = 0; i < nt; i++) {
        int g = group_index(F.table[i].group);
        LV.ent[g].present = true;
        LV.ent[g].conc = F.table[i].concurrency;
        LV.ent[g].infl = F.table[i].max_in_flight;
        LV.ent[g].thr = F.table[i].queue_threshold;
        LV.ent[g].mw = F.table[i].max_wait_ns == GROUPCONC_DEFAULT ? 0 : F.table[i].max_wait_ns;
        if (LV.ent[g].mw != 0) LV.any_deadline = true;
    }
    lv_graise();
    for (int g = 0; g < NG; g++) lv_fresh(g);
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
#ifndef GROUPCONC_NO_GATE
    for (int v = -1; v <= 3; v++) {
        name_kind((groupconc_release_kind)v);
        name_gate_event((groupconc_gate_event_type)v);
    }
#endif
    for (int v = -1; v <= 5; v++) name_event((groupconc_event_type)v);
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

#ifndef GROUPCONC_NO_GATE
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
#endif

static void fz_finish(unsigned ending) {
    atomic_store(&fz_countdown, 0);
    atomic_store(&fz_start_fail, 0);
    resume_all(); /* before anything waits: a paused group's tasks would wait for good */
    latch_set(0, 1);
    latch_set(1, 1);
    pthread_mutex_lock(&F.mu); /* every park returns: the forks finish (the scopes are closed below) */
    atomic_store(&SC.parks_all, 1);
    pthread_cond_broadcast(&F.cv);
    pthread_mutex_unlock(&F.mu);
    fl_end(); /* the provider answers everything from here on (destroy waits for the answers) */
#ifndef GROUPCONC_NO_SCOPES
    for (int i = 0; i < SC.nopen; i++) /* a child scope body may wait for good (scope_blockers): cut it */
        for (int k = 0; k < SC.nfr; k++)
            if (SC.fr[k].sc == SC.stack[i] && SC.fr[k].kind == K_CHILD_SCOPE && !SC.stack[i]->known_shut &&
                atomic_load(&SC.fr[k].state) == FS_COUNTED && !atomic_load(&SC.fr[k].finished))
                scope_shut(SC.stack[i], "the end, a child scope body may wait");
#endif
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
#ifndef GROUPCONC_NO_GATE
    release_all_permits();
#endif
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
        /* every body returned: each hint's unit went with it (under the lock the graceful wait took) */
        FZ_CHECK(atomic_load_explicit(&F.ex->pool.nhinted, memory_order_relaxed) == 0,
                 "every task finished, but the pool still counts %zu hinted tasks",
                 atomic_load_explicit(&F.ex->pool.nhinted, memory_order_relaxed));
        mark_swept();
        check_stats(true);
    } else {
        for (int i = 0; i < fin.n; i++) deliver(fin.job[i].s, fin.job[i].d, fin.job[i].choice);
    }
#ifndef GROUPCONC_NO_GATE
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
#endif
#ifndef GROUPCONC_NO_SCOPES
    if (SC.nopen > 0) { /* scopes hold their forks' handles: destroy is refused, nothing done */
        rc = fz_code(groupconc_executor_destroy(F.ex));
        FZ_CHECK(rc == GROUPCONC_EBUSY, "executor destroy with %d scopes open: %s, want GROUPCONC_EBUSY", SC.nopen, groupconc_errname(rc));
        atomic_fetch_add(&acounters[A_SC_DESTROY_BUSY], 1);
        check_stats(ending == 0);
        close_all_scopes();
    }
#endif
    mark_cancel_requested(-1); /* destroy shuts down (flags what runs) unless that was done */
    FL.destroying = true;
    rc = fz_code(groupconc_executor_destroy(F.ex));
    FL.destroying = false;
    FZ_CHECK(rc == GROUPCONC_OK, "destroy: %s", groupconc_errname(rc));
    fl_final();
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
    check_forks_final();
    long live = atomic_load(&fz_live);
    FZ_CHECK(live == 0, "%ld blocks live after destroy and release of every handle", live);
}

static void fz_reset(void) {
    F.ex = NULL;
    pthread_mutex_lock(&fl_mu);
    pthread_mutex_lock(&H.mu);
    memset(&FL, 0, sizeof FL);
    pthread_mutex_unlock(&H.mu);
    pthread_mutex_unlock(&fl_mu);
    atomic_store(&F.ev_rej_fleet, 0);
    memset(&LV, 0, sizeof LV);
    pthread_mutex_lock(&H.mu);
    memset(HI.conc, 0, sizeof HI.conc);
    memset(HI.infl, 0, sizeof HI.infl);
    memset(HI.thr, 0, sizeof HI.thr);
    HI.gin = HI.grun = HI.gthr = HI.mwait = 0;
    for (int g = 0; g < NG; g++)
        for (int k = 0; k < MAX_GEN; k++) atomic_store(&HI.starts[g][k], 0);
    atomic_store(&HI.starts_total, 0);
    pthread_mutex_unlock(&H.mu);
    memset(&SC, 0, sizeof SC);
    F.nslots = 0;
    memset(F.slots, 0, sizeof F.slots);
    memset(F.gen, 0, sizeof F.gen);
    pthread_mutex_lock(&H.mu);
    memset(H.run_g, 0, sizeof H.run_g);
    memset(H.gate_g, 0, sizeof H.gate_g);
    memset(H.defer_g, 0, sizeof H.defer_g);
    H.run_total = H.gate_total = H.defer_total = 0;
    pthread_mutex_unlock(&H.mu);
#ifndef GROUPCONC_NO_GATE
    F.gate[GX] = F.gate[GS] = NULL;
#endif
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
    atomic_store(&F.ev_rej_waiting, 0);
    atomic_store(&F.ev_expired, 0);
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
#if !defined(_WIN32)
        pthread_condattr_setclock(&attr, FZ_CV_CLOCK);
#endif
        pthread_cond_init(&F.cv, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&F.mu, NULL);
        initialised = 1;
    }
    tl_fuzzer_thread = 1;
    fz_reset();
    atomic_store(&fz_feat, 0u);
    reader r = {data, size, 0};
    groupconc_policy p;
    fz_setup_policy(&r, &p);
    if (p.max_groups != UNL || p.group_idle_ns != GROUPCONC_FOREVER) ft_mark(FT_BOUNDED);
    if (p.global_max_running != UNL) ft_mark(FT_RUNCAP);
    if (p.default_max_wait_ns != GROUPCONC_FOREVER) ft_mark(FT_DEADLINE);
    unsigned ending = (size > 7 ? (unsigned)data[7] >> 5 : 0u) & 3u;
    if (getenv("FUZZ_TRACE"))
        fprintf(stderr, "fuzz_ops: policy conc %d infl %d thr %d gin %d gthr %d grun %d max_waiting %d max_groups %d rejection %d "
                "threads %d listener %d; fleet %s (caps %d %d %d %d %d %d, release notifies %d); ending %u\n",
                p.default_concurrency, p.default_max_in_flight, p.default_queue_threshold, p.global_max_in_flight,
                p.global_queue_threshold, p.global_max_running, p.max_waiting, p.max_groups, F.rejection, p.max_threads,
                (int)F.listener_on, !FL.on ? "off" : FL.sync ? (const char *[]){"sync GRANTED else BUSY", "sync GRANTED else OPEN",
                "sync cycle G/B/R/O", "sync cycle G/R/O/G"}[FL.rule] : "pending", FL.cap[0], FL.cap[1], FL.cap[2], FL.cap[3],
                FL.cap[4], FL.cap[5], (int)FL.release_notifies, ending);
    FL.expect_main = true;
    int rc = fz_code(groupconc_executor_create(&p, &F.ex));
    FL.expect_main = false;
    FZ_CHECK(rc == GROUPCONC_OK, "create with a valid policy: %s", groupconc_errname(rc));
    if (FL.on)
        FZ_CHECK(atomic_load(&FL.attach_main) == 1 && atomic_load(&FL.main_ex) == F.ex, "fleet attach: %d calls, executor %s",
                 atomic_load(&FL.attach_main), atomic_load(&FL.main_ex) == F.ex ? "right" : "wrong");
#ifndef GROUPCONC_NO_GATE
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
#endif
    while (r.i < r.n && F.nops < MAX_OPS) {
        F.nops++;
        fz_step(&r);
    }
    fz_finish(ending);
    ft_mark(FT_SHUTDOWN); /* every ending shuts the executor down (and destroys it) */
    if (getenv("FUZZ_FEATURES")) {
        unsigned m = atomic_load(&fz_feat);
        fprintf(stderr, "fuzz_ops: features");
        for (int i = 0; i < FT_COUNT; i++)
            if (m & (1u << i)) fprintf(stderr, " %s", ft_names[i]);
        fprintf(stderr, "\n");
    }
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
