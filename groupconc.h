/* groupconc.h - v0.1.0 - grouped concurrency control for C11 - MIT license (full text at end)

   "At most N at once per key": tasks are submitted under a group key (a tenant, an endpoint, a
   priority class); groups run in parallel; each group has its own concurrency cap, and a global
   in-flight cap, a per-group in-flight cap (bulkhead) and bounded waiting queues keep any one group
   from swamping the process.

   QUICK START
       // in exactly one .c file:
       #define GROUPCONC_IMPLEMENTATION
       #include "groupconc.h"

       groupconc_policy policy = groupconc_policy_default();
       groupconc_executor *ex;
       groupconc_task *task;
       groupconc_result res;
       groupconc_executor_create(&policy, &ex);
       groupconc_submit(ex, "tenant-a", "job-1", my_fn, my_arg, &task);
       groupconc_task_wait(task, &res);          // res.status, res.value, res.error
       groupconc_task_release(task);
       groupconc_executor_destroy(ex);
   (examples/01_quick_start.c is the same program with every return code checked.)

   CONTENTS
       CONFIGURATION, CONCEPTS, THREADS AND CALLBACKS, ERRORS, LIMITATIONS, HISTORY
       [1] error codes  [2] enums  [3] opaque types and callbacks  [4] policy
       [5] executor lifecycle  [6] submit and handles  [7] group control and stats
       [8] diagnostics
       Implementation sections: grep -n '====' groupconc.h

   CONFIGURATION
       macro                      where            default              effect
       GROUPCONC_IMPLEMENTATION   one TU           -                    compile the implementation here
       GROUPCONC_STATIC           every TU         -                    make every function static (private copy per TU)
       GROUPCONC_API              every TU         extern               decoration of public declarations
       GROUPCONC_MALLOC(sz)       impl TU          malloc(sz)           allocator; define MALLOC and FREE together or neither
       GROUPCONC_FREE(p)          impl TU          free(p)
       GROUPCONC_ASSERT(x)        impl TU          assert(x)            internal invariants only, never user input
       GROUPCONC_DEBUG            impl TU          on unless NDEBUG     extra invariant checks (permit counts, queue links)
       GROUPCONC_MAX_KEY_LEN      impl TU          256                  longest accepted group key, bytes
       GROUPCONC_USE_PTHREADS     impl TU          auto                 POSIX threads backend instead of C11 <threads.h>;
                                                                        chosen automatically under ThreadSanitizer and
                                                                        where __STDC_NO_THREADS__ is defined
       GROUPCONC_TEST_THREAD_START_FAILS()  impl TU  0                  test hook: non-zero makes the next worker start fail

   CONCEPTS
       Group keys     any non-empty NUL-terminated string up to GROUPCONC_MAX_KEY_LEN bytes; copied.
                      A group's state is created on first use and cached; its limits are resolved once
                      at creation ("first resolution fixed") and kept until the group is evicted.
       Three layers   acquired in this order, released in reverse, only the permits actually held:
                      1 global in-flight   tasks past layer 1 (waiting at 2/3, ready or running), all groups
                      2 group bulkhead     a group's tasks past layer 2 (waiting at 3, ready or running)
                      3 group concurrency  a group's tasks that hold a run permit (ready or running)
                      Each layer is a fair semaphore with a FIFO of waiting task nodes; a released permit
                      is handed directly to the oldest waiter (no barging). Waiting tasks own no thread.
       Thresholds     a task that cannot get a permit at once waits in that layer's queue if the queue
                      threshold allows, else it is rejected. Global threshold: tasks waiting at layer 1.
                      Group threshold: the group's tasks waiting at layers 2 and 3 together. 0 means
                      "run now or be rejected"; GROUPCONC_UNLIMITED means no bound.
       Worker pool    elastic: threads start on demand up to max_threads and retire after keep_alive_ns
                      idle. Tasks holding all permits wait for a thread in a FIFO ready queue. A worker
                      that finishes a task runs the next ready one without sleeping.
       Handles        groupconc_submit gives a handle (groupconc_task). It stays valid until
                      groupconc_task_release, even after the executor is destroyed. Pass out_task = NULL
                      to submit fire-and-forget (no handle).

   THREADS AND CALLBACKS
       Every function is thread-safe, except that groupconc_executor_destroy must not run concurrently
       with any other call on the same executor or its unfinished handles.
       Listener events, completion callbacks and rejection handlers never run with an internal lock
       held: they may submit, cancel, read stats. The resolver DOES run under the executor lock (so it
       is called exactly once per group creation): it must be quick and must not call into groupconc.
       A task must not wait on its own handle, and must not destroy its own executor.

   ERRORS
       Functions return GROUPCONC_OK (0) or a negative GROUPCONC_E* code; groupconc_strerror() and
       groupconc_errname() describe any code. A task's own outcome is not an API error: it is in
       groupconc_result.status (SUCCESS / FAILED / CANCELLED / REJECTED) and .error.

   LIMITATIONS
       - Cancellation of a running task is cooperative: it sees groupconc_context_is_cancelled().
       - C11 <threads.h> offers only wall-clock timed waits: with that backend a clock jump stretches
         or shortens timed waits (the POSIX backend waits on CLOCK_MONOTONIC).
       - Task timestamps use CLOCK_MONOTONIC. In a strict ISO TU (-std=c11) that includes a system
         header before this one, clock_gettime is not declared and timestamps fall back to
         timespec_get(TIME_UTC): include groupconc.h first in the implementation TU, or define
         _POSIX_C_SOURCE=200809L.
       - Backends: C11 threads and POSIX threads. No Win32 backend yet.

   HISTORY
       0.1.0  first release: executor, three layers, thresholds, rejection policies, listener,
              group control, stats.
*/
#ifndef GROUPCONC_H_INCLUDED
#define GROUPCONC_H_INCLUDED

#if defined(GROUPCONC_IMPLEMENTATION) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && \
    !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
/* Strict ISO mode hides clock_gettime/CLOCK_MONOTONIC; this only helps when no system header was
   included before groupconc.h (see LIMITATIONS). */
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GROUPCONC_VERSION_MAJOR 0
#define GROUPCONC_VERSION_MINOR 1
#define GROUPCONC_VERSION_PATCH 0
#define GROUPCONC_VERSION_STRING "0.1.0"

#ifndef GROUPCONC_API
#if defined(GROUPCONC_STATIC)
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_API static __attribute__((unused))
#else
#define GROUPCONC_API static
#endif
#else
#define GROUPCONC_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- [1] error codes --------------------------------------------------------------------------
   One list yields the enum, groupconc_strerror() and groupconc_errname(). Never renumbered. */
#define GROUPCONC_ERRNO_MAP(X)                                                                        \
    X(OK, 0, "success")                                                                               \
    X(EINVAL, -1, "invalid argument: a required pointer is NULL")                                    \
    X(EKEYEMPTY, -2, "group key is empty")                                                            \
    X(EKEYTOOLONG, -3, "group key is longer than GROUPCONC_MAX_KEY_LEN")                              \
    X(ELIMIT, -4, "invalid limit: concurrency/in-flight < 1, threshold < 0, or bad pool setting")    \
    X(EPOLICY, -5, "invalid policy: unknown rejection policy value")                                 \
    X(EDUPKEY, -6, "the per-group limits table names the same group twice")                           \
    X(ESHUTDOWN, -7, "executor is shut down and accepts no new tasks")                                \
    X(EREJECTED_GLOBAL, -8, "rejected at layer 1: global queue threshold reached")                    \
    X(EREJECTED_BULKHEAD, -9, "rejected at layer 2: group queue threshold reached (bulkhead)")        \
    X(EREJECTED_CONCURRENCY, -10, "rejected at layer 3: group queue threshold reached (concurrency)") \
    X(ETIMEDOUT, -11, "timed out")                                                                    \
    X(ENOMEM, -12, "out of memory")                                                                   \
    X(ETHREAD, -13, "could not start a worker thread")                                                \
    X(ERELEASED, -14, "task handle was already released")                                            \
    X(ENOTFOUND, -15, "group not found")                                                              \
    X(ECANCELLED, -16, "task was cancelled")

typedef enum groupconc_error {
#define GROUPCONC__ERR_ENUM(name, value, text) GROUPCONC_##name = value,
    GROUPCONC_ERRNO_MAP(GROUPCONC__ERR_ENUM)
#undef GROUPCONC__ERR_ENUM
} groupconc_error;

/* ---- [2] enums ------------------------------------------------------------------------------- */

/* "No bound" for in-flight caps and queue thresholds (concurrency has no unlimited value). */
#define GROUPCONC_UNLIMITED (-1)
/* In a per-group limits entry: "not set here, use the resolver / the policy default". */
#define GROUPCONC_DEFAULT (-2)
/* Timeout value meaning "wait forever" for the *_for / graceful / execute_all functions. */
#define GROUPCONC_FOREVER (-1)

typedef enum groupconc_status {
    GROUPCONC_STATUS_PENDING = 0, /* not finished yet (only seen in a snapshot) */
    GROUPCONC_STATUS_SUCCESS,     /* the task function returned 0 */
    GROUPCONC_STATUS_FAILED,      /* it returned another code (in result.error) */
    GROUPCONC_STATUS_CANCELLED,   /* cancelled while waiting, or returned GROUPCONC_ECANCELLED */
    GROUPCONC_STATUS_REJECTED     /* a layer refused it; result.error names the layer */
} groupconc_status;

typedef enum groupconc_rejection_policy {
    GROUPCONC_REJECT_ABORT = 0,  /* in submit: return the EREJECTED_* code, no handle; later: REJECTED */
    GROUPCONC_REJECT_DISCARD,    /* submit succeeds; the handle completes REJECTED */
    GROUPCONC_REJECT_CALLER_RUNS /* run with no permits: in submit on the caller, later on a worker */
} groupconc_rejection_policy;

typedef enum groupconc_event_type {
    GROUPCONC_EVENT_SUBMITTED = 0, /* accepted by submit, before admission */
    GROUPCONC_EVENT_STARTED,       /* about to run (all permits held; none under CALLER_RUNS) */
    GROUPCONC_EVENT_COMPLETED,     /* terminal result, once per task that has a result */
    GROUPCONC_EVENT_REJECTED       /* a layer refused it: event.reason names the layer */
} groupconc_event_type;

typedef enum groupconc_cancel_outcome {
    GROUPCONC_CANCEL_DEQUEUED = 0, /* it was waiting: removed, permits returned, now CANCELLED */
    GROUPCONC_CANCEL_FLAGGED,      /* it is running: its cancellation flag is set (cooperative) */
    GROUPCONC_CANCEL_TOO_LATE      /* it had already finished: unaffected */
} groupconc_cancel_outcome;

/* ---- [3] opaque types and callbacks ----------------------------------------------------------- */

typedef struct groupconc_executor groupconc_executor;
typedef struct groupconc_task groupconc_task;       /* a task handle */
typedef struct groupconc_context groupconc_context; /* what a running task sees of itself */

typedef struct groupconc_result {
    const char *group;       /* the group key; valid while the handle is */
    const char *task_id;     /* as submitted (copied), or NULL */
    groupconc_status status;
    void *value;             /* what the task stored in *out_value (SUCCESS, or FAILED if it set it) */
    int error;               /* 0; the task's failure code; GROUPCONC_ECANCELLED; GROUPCONC_EREJECTED_* */
    uint64_t start_ns;       /* monotonic; taken after all permits are held (rejected: rejection time) */
    uint64_t end_ns;         /* monotonic; end - start is the run time, waiting excluded */
} groupconc_result;

/* A task: return 0 for success (optionally storing a value in *out_value), GROUPCONC_ECANCELLED if
   it stopped because groupconc_context_is_cancelled() said so, any other code for failure. */
typedef int (*groupconc_task_fn)(groupconc_context *ctx, void **out_value, void *user_data);

/* Per-group concurrency resolver: store a value in *out_concurrency and return 0; a non-zero return
   means "failed", and the policy default is used. Results < 1 become 1. Runs under the executor
   lock, once per creation of a group's state: be quick, do not call into groupconc. */
typedef int (*groupconc_resolver_fn)(const char *group, int *out_concurrency, void *user_data);

typedef struct groupconc_event {
    groupconc_event_type type;
    const char *group;
    const char *task_id;              /* may be NULL */
    int reason;                       /* REJECTED: GROUPCONC_EREJECTED_*, ESHUTDOWN or ENOMEM; else 0 */
    const groupconc_result *result;   /* COMPLETED: the final result; else NULL */
} groupconc_event;

/* Lifecycle listener. Never called with a lock held; may run concurrently on several threads. */
typedef void (*groupconc_listener_fn)(const groupconc_event *event, void *user_data);

typedef struct groupconc_rejection {
    groupconc_executor *executor;
    const char *group;
    const char *task_id;
    groupconc_task_fn fn;             /* so a handler can resubmit the task elsewhere */
    void *arg;
    int reason;                       /* GROUPCONC_EREJECTED_* */
    bool in_submit;                   /* true: refused synchronously, on the submitting thread */
} groupconc_rejection;

/* Custom rejection handler: replaces the rejection policy when set. Runs after the task's permits
   are released, with no lock held. Afterwards the task completes REJECTED (submit returns OK). */
typedef void (*groupconc_reject_fn)(const groupconc_rejection *rejection, void *user_data);

/* Completion callback: runs exactly once, on the thread that completes the task (or at once on the
   registering thread if the task is already done), with no lock held. */
typedef void (*groupconc_complete_fn)(groupconc_task *task, const groupconc_result *result,
                                      void *user_data);

/* ---- [4] policy -------------------------------------------------------------------------------- */

typedef struct groupconc_group_limits {
    const char *group;   /* key (copied at executor creation) */
    int concurrency;     /* >= 1, or GROUPCONC_DEFAULT (resolver, then default) */
    int max_in_flight;   /* >= 1, GROUPCONC_UNLIMITED, or GROUPCONC_DEFAULT */
    int queue_threshold; /* >= 0, GROUPCONC_UNLIMITED, or GROUPCONC_DEFAULT */
} groupconc_group_limits;

typedef struct groupconc_policy {
    int default_concurrency;       /* >= 1; default 1 */
    int default_max_in_flight;     /* per group (layer 2); >= 1 or UNLIMITED; default UNLIMITED */
    int default_queue_threshold;   /* per group (layers 2+3); >= 0 or UNLIMITED; default UNLIMITED */
    int global_max_in_flight;      /* layer 1; >= 1 or UNLIMITED; default UNLIMITED */
    int global_queue_threshold;    /* tasks waiting at layer 1; >= 0 or UNLIMITED; default UNLIMITED */
    const groupconc_group_limits *groups; /* explicit per-group limits (copied); default NULL */
    size_t group_count;            /* entries in groups; default 0 */
    groupconc_resolver_fn resolver;  /* per-group concurrency when not in the table; default NULL */
    void *resolver_user_data;
    groupconc_rejection_policy rejection; /* default GROUPCONC_REJECT_ABORT */
    groupconc_reject_fn reject_handler;   /* replaces `rejection` when set; default NULL */
    void *reject_user_data;
    groupconc_listener_fn listener;       /* lifecycle events; default NULL */
    void *listener_user_data;
    int max_threads;               /* worker threads at most; >= 1; default 32 */
    int64_t keep_alive_ns;         /* idle worker retires after this; >= 0; default 10 s */
} groupconc_policy;

/* groupconc_policy_default: the defaults listed above. */
GROUPCONC_API groupconc_policy groupconc_policy_default(void);

/* ---- [5] executor lifecycle ------------------------------------------------------------------- */

/* groupconc_executor_create: validate and copy `policy` (tables and keys included), make an executor.
   Returns: OK (*out_executor set); EINVAL (NULL argument, or group_count > 0 with groups NULL or an
            entry's key NULL); EKEYEMPTY / EKEYTOOLONG (a table key); ELIMIT (a limit below its
            minimum); EPOLICY (unknown rejection value); EDUPKEY; ENOMEM.
   Thread safety: any thread. No worker is started until the first submit. */
GROUPCONC_API int groupconc_executor_create(const groupconc_policy *policy,
                                            groupconc_executor **out_executor);

/* groupconc_executor_shutdown: stop accepting (later submits return ESHUTDOWN), cancel every task
   that has not started (waiting at a layer or for a thread), flag running tasks. Idempotent.
   Returns: OK; EINVAL. */
GROUPCONC_API int groupconc_executor_shutdown(groupconc_executor *ex);

/* groupconc_executor_shutdown_graceful: stop accepting, let queued and running tasks finish for up to
   `timeout_ns` (GROUPCONC_FOREVER: no limit); at the timeout, cancel what is left as
   groupconc_executor_shutdown does.
   Returns: OK (every task finished); ETIMEDOUT (some were cancelled/flagged); EINVAL.
   Callbacks: do not call it from a task of this executor (it would wait for itself). */
GROUPCONC_API int groupconc_executor_shutdown_graceful(groupconc_executor *ex, int64_t timeout_ns);

/* groupconc_executor_destroy: shut down if not done yet, wait for running tasks to return, join the
   workers, free everything. Unreleased handles stay valid (all done). NULL is a no-op returning EINVAL.
   Returns: OK; EINVAL.
   Thread safety: no other call on `ex` may run concurrently; never call it from one of its tasks. */
GROUPCONC_API int groupconc_executor_destroy(groupconc_executor *ex);

/* ---- [6] submit and handles ------------------------------------------------------------------- */

/* groupconc_submit: run fn(ctx, &value, arg) under `group`'s limits.
   `task_id` is optional (NULL allowed; copied). `out_task` may be NULL: fire-and-forget.
   Returns: OK (*out_task set, unless NULL); EINVAL (ex, group or fn NULL); EKEYEMPTY; EKEYTOOLONG;
            ESHUTDOWN; EREJECTED_GLOBAL / EREJECTED_BULKHEAD / EREJECTED_CONCURRENCY (ABORT policy,
            refused in submit: no handle); ENOMEM; ETHREAD (no worker exists and none could start).
   Under DISCARD, CALLER_RUNS or a custom handler a rejected submit returns OK with a handle.
   Thread safety: any thread, including tasks and callbacks. */
GROUPCONC_API int groupconc_submit(groupconc_executor *ex, const char *group, const char *task_id,
                                   groupconc_task_fn fn, void *arg, groupconc_task **out_task);

/* groupconc_task_wait: block until `task` is done; copy its result.
   Returns: OK; EINVAL (NULL); ERELEASED (released handle, where detectable).
   Permits are back and the COMPLETED event has run before this returns. */
GROUPCONC_API int groupconc_task_wait(groupconc_task *task, groupconc_result *out_result);

/* groupconc_task_wait_for: as groupconc_task_wait, at most `timeout_ns` (0 = poll).
   Returns: OK; ETIMEDOUT (the task is NOT cancelled and keeps going); EINVAL; ERELEASED. */
GROUPCONC_API int groupconc_task_wait_for(groupconc_task *task, int64_t timeout_ns,
                                          groupconc_result *out_result);

/* groupconc_task_is_done: *out_done = whether the task reached its terminal state.
   Returns: OK; EINVAL; ERELEASED. */
GROUPCONC_API int groupconc_task_is_done(groupconc_task *task, bool *out_done);

/* groupconc_task_cancel: waiting task -> dequeued, permits returned, CANCELLED; running -> flagged;
   finished -> unaffected. *out_outcome (may be NULL) says which.
   Returns: OK; EINVAL; ERELEASED. */
GROUPCONC_API int groupconc_task_cancel(groupconc_task *task, groupconc_cancel_outcome *out_outcome);

/* groupconc_task_on_complete: register fn to run exactly once when the task completes (at once on
   this thread if it already has). Several callbacks run in registration order.
   Returns: OK; EINVAL; ERELEASED; ENOMEM. */
GROUPCONC_API int groupconc_task_on_complete(groupconc_task *task, groupconc_complete_fn fn,
                                             void *user_data);

/* groupconc_task_release: give the handle back. A task still running or waiting carries on; its
   result is discarded. Returns: OK; EINVAL; ERELEASED (second release, while detectable). */
GROUPCONC_API int groupconc_task_release(groupconc_task *task);

/* Inside a task function. All accept NULL (false / NULL). */
GROUPCONC_API bool groupconc_context_is_cancelled(const groupconc_context *ctx);
GROUPCONC_API const char *groupconc_context_group(const groupconc_context *ctx);
GROUPCONC_API const char *groupconc_context_task_id(const groupconc_context *ctx);
GROUPCONC_API groupconc_executor *groupconc_context_executor(const groupconc_context *ctx);

typedef struct groupconc_task_spec {
    const char *group;
    const char *task_id; /* optional */
    groupconc_task_fn fn;
    void *arg;
} groupconc_task_spec;

/* groupconc_execute_all: submit every spec, then collect results in input order (no fail-fast).
   A task rejected in submit is reported REJECTED with the layer's code (ENOMEM/ETHREAD/ESHUTDOWN if
   submit failed for that reason). At `timeout_ns` after the call (GROUPCONC_FOREVER: none) the
   unfinished tasks are cancelled and reported CANCELLED; running ones are flagged and this call
   still waits for them to return, so `arg` memory is never used after it returns.
   result.group / task_id point into `tasks`.
   Returns: OK; ETIMEDOUT (the deadline cut some tasks); EINVAL (NULL, or an element has a NULL
            group/fn: nothing is submitted); EKEYEMPTY / EKEYTOOLONG (an element's key: nothing is
            submitted); ENOMEM (nothing submitted). */
GROUPCONC_API int groupconc_execute_all(groupconc_executor *ex, const groupconc_task_spec *tasks,
                                        size_t count, int64_t timeout_ns,
                                        groupconc_result *out_results);

/* ---- [7] group control and stats --------------------------------------------------------------- */

/* groupconc_shutdown_group: cancel the group's tasks that have not started, flag its running ones.
   Other groups are untouched; the group stays usable. Unknown key: OK (no-op).
   Returns: OK; EINVAL; EKEYEMPTY; EKEYTOOLONG. */
GROUPCONC_API int groupconc_shutdown_group(groupconc_executor *ex, const char *group);

/* groupconc_evict_group: as groupconc_shutdown_group, and drop the group's cached state: the next
   submit creates it afresh (limits resolved again) even while the old tasks still run, so old and
   new tasks of the key may briefly overlap. Unknown key: OK (no-op).
   Returns: OK; EINVAL; EKEYEMPTY; EKEYTOOLONG. */
GROUPCONC_API int groupconc_evict_group(groupconc_executor *ex, const char *group);

typedef struct groupconc_group_stats {
    int concurrency;            /* resolved limits */
    int max_in_flight;          /* or GROUPCONC_UNLIMITED */
    int queue_threshold;        /* or GROUPCONC_UNLIMITED */
    size_t running;             /* executing now (CALLER_RUNS tasks not counted) */
    size_t ready;               /* hold all permits, waiting for a worker thread */
    size_t waiting_global;      /* waiting at layer 1 */
    size_t waiting_bulkhead;    /* waiting at layer 2 */
    size_t waiting_concurrency; /* waiting at layer 3 */
    size_t in_flight;           /* past layer 2 (holding a bulkhead permit) */
    uint64_t submitted, rejected, completed, cancelled; /* totals since the group's state was created */
    uint64_t oldest_wait_ns;    /* age of the oldest waiting task (0 if none) */
} groupconc_group_stats;

typedef struct groupconc_executor_stats {
    size_t groups;              /* groups with cached state */
    size_t running;             /* executing now */
    size_t ready;               /* hold all permits, waiting for a worker thread */
    size_t waiting;             /* waiting at any layer */
    size_t global_in_flight;    /* tasks past layer 1 (counted even with no global cap) */
    int global_max_in_flight;   /* or GROUPCONC_UNLIMITED */
    size_t threads;             /* worker threads alive */
    size_t idle_threads;
    bool shutdown;
} groupconc_executor_stats;

/* Stats are consistent snapshots taken under the executor lock, but stale as soon as they return.
   groupconc_group_stats returns ENOTFOUND for a group with no cached state; also EINVAL, EKEYEMPTY,
   EKEYTOOLONG. groupconc_executor_stats returns OK or EINVAL. */
GROUPCONC_API int groupconc_group_stats_get(groupconc_executor *ex, const char *group,
                                            groupconc_group_stats *out_stats);
GROUPCONC_API int groupconc_executor_stats_get(groupconc_executor *ex,
                                               groupconc_executor_stats *out_stats);

/* groupconc_group_keys: the known group keys, as one block: (*out_keys)[0 .. *out_count-1].
   Free it with groupconc_keys_free. Returns: OK; EINVAL; ENOMEM. */
GROUPCONC_API int groupconc_group_keys(groupconc_executor *ex, char ***out_keys, size_t *out_count);
GROUPCONC_API void groupconc_keys_free(char **keys);

/* ---- [8] diagnostics ---------------------------------------------------------------------------- */

GROUPCONC_API const char *groupconc_strerror(int code); /* never NULL */
GROUPCONC_API const char *groupconc_errname(int code);  /* "GROUPCONC_EINVAL", ...; never NULL */
GROUPCONC_API const char *groupconc_version(void);      /* the implementation's version string */
GROUPCONC_API const char *groupconc_status_name(groupconc_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* GROUPCONC_H_INCLUDED */

/* ============================================================================================== */
/* ==== IMPLEMENTATION ========================================================================== */
/* ============================================================================================== */
#if defined(GROUPCONC_IMPLEMENTATION) && !defined(GROUPCONC_IMPLEMENTATION_INCLUDED)
#define GROUPCONC_IMPLEMENTATION_INCLUDED
/*@@IMPL@@*/
#endif /* GROUPCONC_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the groupconc authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
