/* groupconc_trace.h - v1.0.0 - a timeline of groupconc's tasks in the Chrome trace-event format
                                 - MIT license (full text at end)

   Records each task's life (submitted, started, finished, rejected, expired: group, task id,
   worker thread) through the executor's listener into a bounded buffer, and writes it as Chrome
   trace-event JSON: open the file in https://ui.perfetto.dev or chrome://tracing and see each
   group's concurrency over time. It uses only groupconc.h's public API, C11 atomics and the
   monotonic clock groupconc stamps results with.

   QUICK START
       // in exactly one .c file (groupconc.h's directory on the include path):
       #define GROUPCONC_IMPLEMENTATION
       #include "groupconc.h"
       #define GROUPCONC_TRACE_IMPLEMENTATION
       #include "extras/groupconc_trace.h"

       groupconc_trace *trace;
       groupconc_trace_create(NULL, &trace);          // NULL: defaults (65536 events)
       groupconc_policy policy = groupconc_policy_default();
       policy.listener = my_listener;                 // optional: still called, after the trace's
       groupconc_trace_attach(trace, &policy);        // before groupconc_executor_create
       groupconc_executor_create(&policy, &ex);
       ... the workload ...
       groupconc_executor_destroy(ex);
       FILE *f = fopen("trace.json", "w");
       groupconc_trace_write_file(trace, f);          // may also be called while tasks run
       fclose(f);
       groupconc_trace_destroy(trace);
   (examples/12_trace.c: a multi-tenant workload; tests/trace/check_trace.py checks its trace.)

   CONTENTS
       CONFIGURATION, WHAT IS RECORDED, THE TRACE, THREADS AND CALLBACKS, ERRORS, LIMITATIONS
       [1] error codes  [2] configuration and lifecycle  [3] output  [4] diagnostics
       Implementation sections: grep -n '====' extras/groupconc_trace.h

   CONFIGURATION
       macro                            where     default      effect
       GROUPCONC_TRACE_IMPLEMENTATION   one TU    -            compile the implementation here
       GROUPCONC_TRACE_STATIC           every TU  -            make every function static
       GROUPCONC_TRACE_API              every TU  extern       decoration of public declarations
       GROUPCONC_TRACE_MALLOC(sz)       impl TU   malloc(sz)   allocator; define MALLOC and FREE
       GROUPCONC_TRACE_FREE(p)          impl TU   free(p)        together or neither
       GROUPCONC_TRACE_INLINE_TEXT      impl TU   48           bytes of group key + task id kept in
                                                               the event itself; longer ones are
                                                               allocated (in the listener)
       GROUPCONC_TRACE_MAX_CAPACITY     every TU  1 << 26      largest config.capacity
   The implementation TU reads CLOCK_MONOTONIC, as groupconc.h does (compile it with
   _POSIX_C_SOURCE >= 200809L, as groupconc.h's tests and examples do; without it both fall back to
   the wall clock); on Windows QueryPerformanceCounter.

   WHAT IS RECORDED
       One event per listener call of type SUBMITTED, STARTED, COMPLETED or REJECTED (FLEET events
       are passed on, not recorded): its group key and task id (copied), the recording thread (the
       worker: threads are numbered 1, 2, ... in the order they first record), the time, and for
       COMPLETED the result's status, reason and run times (start_ns / end_ns). A REJECTED event
       whose reason is GROUPCONC_EEXPIRED_* is shown as "expired".
       The buffer holds config.capacity events; once full, later events are dropped and counted
       (groupconc_trace_stats.dropped, and "dropped" in the JSON's otherData): what was recorded
       stays consistent (every kept event is whole), and a run is drawn only if its STARTED and
       COMPLETED were both kept. A task takes 3 events (submitted, started, completed; 4 under
       CALLER_RUNS). Recording is lock-free: one atomic increment per event, plus an allocation when
       the group key and task id together exceed GROUPCONC_TRACE_INLINE_TEXT bytes (if that fails,
       the event is dropped and counted).

   THE TRACE (Chrome trace-event JSON, "JSON object format"; times in microseconds from the first
   recorded event, 3 decimals)
       process "groupconc" (config.process_name), and in it, per group, in the order the groups
       first appear:
         "<group> slot N" tracks (N = 1, 2, ...): one complete event ("ph":"X") per run, from the
             result's start_ns to end_ns, named by the task id (or the group), args group, task_id,
             worker, status, slot. Runs of a group are put on the lowest slot free at their start,
             so a track never holds two overlapping runs (they nest in any viewer) and a group
             uses as many slots as it had runs at once: never more than its concurrency;
         "<group> caller runs" tracks, the same for tasks that ran under CALLER_RUNS after a
             rejection (they hold no permit and are not counted against the cap);
         "<group> events": instant events ("ph":"i") submitted, rejected (args reason), expired,
             and completed for a task that never ran (args status, reason);
         counter "<group> running" ("ph":"C", args running): the group's running count, updated
             at every start and end (an end and a start at the same instant: the end first).
       otherData: recorded, dropped, capacity, unmatched (runs whose STARTED or COMPLETED is
       missing: dropped, or still running at write time).
       Group keys and task ids are written with the mapping of extras/groupconc_prometheus.h
       (backslash, quote and newline escaped; '%', control bytes and bytes outside well-formed
       UTF-8 as %XX): the JSON is always valid UTF-8 and the mapping is lossless.
       Matching STARTED and COMPLETED: by group and task id (and, among equals, the recording
       thread): give tasks unique ids for an exact picture. With shared or no ids every run is still
       drawn at its true times in its group (from the result), only its worker may be another
       task's of the same key.

   THREADS AND CALLBACKS
       The listener records from any thread, concurrently, without a lock; it calls the chained
       listener (the policy's, from before groupconc_trace_attach) after recording, on the same
       thread, with the same event. groupconc_trace_write / _write_file / _stats_get may run at any
       time, concurrently with recording (events recorded meanwhile may or may not be included),
       from any thread, also from inside the executor's callbacks. groupconc_trace_destroy must run
       after groupconc_executor_destroy of every executor the trace is attached to, and not
       concurrently with any other call on the trace.

   ERRORS
       Functions that can fail return GROUPCONC_OK (0) or a negative code: groupconc.h's
       (GROUPCONC_EINVAL, ELIMIT, ERANGE, ENOMEM, EIO) and this header's GROUPCONC_TRACE_E* codes
       (section [1]), which never overlap them. groupconc_trace_strerror / groupconc_trace_errname
       describe both.

   LIMITATIONS
       - The listener's events carry no task handle: runs are paired with their starts by group
         and task id (see THE TRACE).
       - One buffer, filled once: no wrap-around (a ring that overwrote old events would leave runs
         without their start). Size it for the workload, or write and create a new trace.
       - Writing sorts the events: O(n log n) time and O(n) memory for n recorded events.
*/
#ifndef GROUPCONC_TRACE_H_INCLUDED
#define GROUPCONC_TRACE_H_INCLUDED

#include "groupconc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GROUPCONC_TRACE_VERSION_STRING "1.0.0"

#ifndef GROUPCONC_TRACE_API
#if defined(GROUPCONC_TRACE_STATIC)
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_TRACE_API static __attribute__((unused))
#else
#define GROUPCONC_TRACE_API static
#endif
#else
#define GROUPCONC_TRACE_API extern
#endif
#endif

#ifndef GROUPCONC_TRACE_MAX_CAPACITY
#define GROUPCONC_TRACE_MAX_CAPACITY ((size_t)1 << 26)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- [1] error codes ---------------------------------------------------------------------------
   This header's own codes, beside groupconc.h's (which it returns too, with their meaning). One
   list yields the enum, groupconc_trace_strerror() and groupconc_trace_errname(). Never
   renumbered. */
#define GROUPCONC_TRACE_ERRNO_MAP(X)                                                                  \
    X(EATTACHED, -1201, "the trace is attached to a policy already (one attach per trace)")

typedef enum groupconc_trace_error {
#define GROUPCONC_TRACE__ERR_ENUM(name, value, text) GROUPCONC_TRACE_##name = (value),
    GROUPCONC_TRACE_ERRNO_MAP(GROUPCONC_TRACE__ERR_ENUM)
#undef GROUPCONC_TRACE__ERR_ENUM
} groupconc_trace_error;

/* ---- [2] configuration and lifecycle ----------------------------------------------------------- */

typedef struct groupconc_trace_config {
    size_t capacity;          /* events kept: 1 .. GROUPCONC_TRACE_MAX_CAPACITY; default 65536
                                 (about 120 bytes each) */
    const char *process_name; /* the process's name in the viewer (copied); NULL: "groupconc";
                                 default NULL */
} groupconc_trace_config;

typedef struct groupconc_trace groupconc_trace;

/* groupconc_trace_config_default: the defaults listed in groupconc_trace_config.
   Returns:       the configuration (a NULL config in groupconc_trace_create means the same).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API groupconc_trace_config groupconc_trace_config_default(void);

/* groupconc_trace_create: a trace with an empty buffer of config->capacity events.
   Params:        config may be NULL (the defaults).
   Returns:       GROUPCONC_OK (*out set; else *out is NULL); GROUPCONC_EINVAL (out NULL);
                  GROUPCONC_ELIMIT (capacity 0 or above GROUPCONC_TRACE_MAX_CAPACITY);
                  GROUPCONC_ENOMEM.
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API int groupconc_trace_create(const groupconc_trace_config *config,
                                               groupconc_trace **out);

/* groupconc_trace_attach: make `policy` record into the trace: policy->listener and
   policy->listener_user_data (NULL or the caller's own) become the chained listener, called after
   each recording, and the policy's listener becomes the trace's. Then create the executor with it.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (an argument NULL); GROUPCONC_TRACE_EATTACHED (this
                  trace was attached before: nothing changed).
   Thread safety: any thread, not concurrently with another attach of the same trace.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API int groupconc_trace_attach(groupconc_trace *trace, groupconc_policy *policy);

/* groupconc_trace_destroy: free the trace and what it recorded. NULL is a no-op.
   Returns:       GROUPCONC_OK.
   Thread safety: after groupconc_executor_destroy of the executor(s) it is attached to; no other
                  call on `trace` concurrently.
   Callbacks:     not from the executor's callbacks. */
GROUPCONC_TRACE_API int groupconc_trace_destroy(groupconc_trace *trace);

/* ---- [3] output -------------------------------------------------------------------------------- */

typedef struct groupconc_trace_stats {
    size_t capacity;     /* as configured */
    size_t recorded;     /* events in the buffer */
    uint64_t dropped;    /* events not recorded: the buffer was full, or their text's allocation
                            failed */
} groupconc_trace_stats;

/* groupconc_trace_stats_get: how much was recorded and dropped.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (an argument NULL).
   Thread safety: any thread, also while recording.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API int groupconc_trace_stats_get(groupconc_trace *trace,
                                                  groupconc_trace_stats *out_stats);

/* groupconc_trace_write: the recorded events as Chrome trace-event JSON (THE TRACE).
   Params:        buf / size: filled with the JSON and a NUL when it fits, else with a truncated,
                  NUL-terminated prefix (buf may be NULL with size 0: only measure); *out_needed
                  (may be NULL): the bytes the whole text takes, NUL included (0 after an error
                  other than GROUPCONC_ERANGE), as snprintf reports.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (trace NULL, or buf NULL with size > 0);
                  GROUPCONC_ERANGE (did not fit: call again with *out_needed bytes, more if tasks
                  are still running); GROUPCONC_ENOMEM.
   Thread safety: any thread, also while recording.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API int groupconc_trace_write(groupconc_trace *trace, char *buf, size_t size,
                                              size_t *out_needed);

/* groupconc_trace_write_file: groupconc_trace_write, to `out` (not flushed).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (an argument NULL); GROUPCONC_ENOMEM (nothing
                  written); GROUPCONC_EIO (fwrite failed: part of the text may have been written).
   Thread safety: any thread, also while recording.
   Callbacks:     may be called anywhere. */
GROUPCONC_TRACE_API int groupconc_trace_write_file(groupconc_trace *trace, FILE *out);

/* ---- [4] diagnostics --------------------------------------------------------------------------- */

/* groupconc_trace_strerror: the message of this header's codes and of groupconc.h's.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_TRACE_API const char *groupconc_trace_strerror(int code);

/* groupconc_trace_errname: "GROUPCONC_TRACE_EATTACHED", or groupconc_errname's answer.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_TRACE_API const char *groupconc_trace_errname(int code);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GROUPCONC_TRACE_H_INCLUDED */

/* ================================================================================================
   IMPLEMENTATION
   ================================================================================================ */
#if defined(GROUPCONC_TRACE_IMPLEMENTATION) && !defined(GROUPCONC_TRACE_IMPLEMENTATION_INCLUDED)
#define GROUPCONC_TRACE_IMPLEMENTATION_INCLUDED

#if defined(__cplusplus)
#error "groupconc_trace.h: compile the implementation as C (C11), not C++"
#endif

/* ==== configuration ==== */

#if defined(GROUPCONC_TRACE_MALLOC) != defined(GROUPCONC_TRACE_FREE)
#error "groupconc_trace.h: define GROUPCONC_TRACE_MALLOC and GROUPCONC_TRACE_FREE together, or neither"
#endif
#ifndef GROUPCONC_TRACE_MALLOC
#define GROUPCONC_TRACE_MALLOC(sz) malloc(sz)
#define GROUPCONC_TRACE_FREE(p) free(p)
#endif
#ifndef GROUPCONC_TRACE_INLINE_TEXT
#define GROUPCONC_TRACE_INLINE_TEXT 48
#endif
#if GROUPCONC_TRACE_INLINE_TEXT < 2
#error "GROUPCONC_TRACE_INLINE_TEXT must be >= 2"
#endif

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* groupconc.h's clock choice, mirrored: QueryPerformanceCounter with its Win32 backend (the default
   on Windows), else CLOCK_MONOTONIC (the POSIX backend on mingw-w64 included). */
#if defined(_WIN32) && ((defined(GROUPCONC_USE_WIN32) && (GROUPCONC_USE_WIN32 + 0) != 0) ||            \
                        (!defined(GROUPCONC_USE_WIN32) && !defined(GROUPCONC_USE_PTHREADS)))
#define GROUPCONC_TRACE__QPC 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_TRACE__PRIVATE static __attribute__((unused))
#else
#define GROUPCONC_TRACE__PRIVATE static
#endif

/* ==== types ==== */

enum { /* what an event records (groupconc_event_type, narrowed) */
    GROUPCONC_TRACE__SUBMITTED = 1,
    GROUPCONC_TRACE__STARTED,
    GROUPCONC_TRACE__COMPLETED,
    GROUPCONC_TRACE__REJECTED
};

typedef struct groupconc_trace__event {
    _Atomic uint32_t state;        /* 0: being written; 1: whole; 2: lost (no memory for its text).
                                      Stored with release after the fields; read with acquire */
    uint8_t type;                  /* GROUPCONC_TRACE__* */
    uint8_t status;                /* COMPLETED: groupconc_status */
    bool has_id;                   /* a task id was given */
    int32_t reason;                /* REJECTED: event.reason; COMPLETED: result.reason */
    uint32_t worker;               /* the recording thread's number */
    uint32_t glen, idlen;          /* lengths of the group key and the task id */
    uint64_t ts;                   /* when it was recorded (monotonic ns) */
    uint64_t start_ns, end_ns;     /* COMPLETED: the result's */
    char *text;                    /* group, NUL, task id, NUL: inline_text or an allocation */
    char inline_text[GROUPCONC_TRACE_INLINE_TEXT];
} groupconc_trace__event;

struct groupconc_trace {
    groupconc_trace__event *events;   /* capacity slots */
    size_t capacity;
    _Atomic size_t next;               /* slots claimed (may pass capacity: those are dropped) */
    _Atomic uint64_t dropped;
    atomic_bool attached;
    groupconc_listener_fn chain;       /* the policy's listener before attach, or NULL */
    void *chain_user_data;
    char *process_name;
};

/* ==== clock and threads ==== */

/* The clock groupconc stamps results with (groupconc.h's groupconc__now_ns): the instants recorded
   here and the runs' start_ns / end_ns share one time line. */
GROUPCONC_TRACE__PRIVATE uint64_t groupconc_trace__now_ns(void) {
#if defined(GROUPCONC_TRACE__QPC)
    LARGE_INTEGER count, freq;
    uint64_t c, hz;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&count);
    c = (uint64_t)count.QuadPart;
    hz = (uint64_t)freq.QuadPart;
    return c / hz * 1000000000u + c % hz * 1000000000u / hz;
#else
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC); /* groupconc.h's fallback too (a strict ISO TU without POSIX) */
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static _Atomic uint32_t groupconc_trace__threads; /* threads numbered so far */
static _Thread_local uint32_t groupconc_trace__thread_no;

GROUPCONC_TRACE__PRIVATE uint32_t groupconc_trace__worker(void) {
    if (groupconc_trace__thread_no == 0) /* relaxed: only a unique number is needed */
        groupconc_trace__thread_no = atomic_fetch_add_explicit(&groupconc_trace__threads, 1, memory_order_relaxed) + 1;
    return groupconc_trace__thread_no;
}

/* ==== recording (the listener) ==== */

GROUPCONC_TRACE__PRIVATE void groupconc_trace__record(groupconc_trace *t, const groupconc_event *ev,
                                                     uint8_t type) {
    size_t i = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed); /* a slot of its own */
    groupconc_trace__event *e;
    const char *group = ev->group ? ev->group : "";
    size_t glen = strlen(group), idlen = ev->task_id ? strlen(ev->task_id) : 0;
    if (i >= t->capacity) {
        atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
        return;
    }
    e = &t->events[i];
    e->type = type;
    e->has_id = ev->task_id != NULL;
    e->reason = ev->reason;
    e->worker = groupconc_trace__worker();
    e->ts = groupconc_trace__now_ns();
    e->status = 0;
    e->start_ns = e->end_ns = 0;
    if (ev->result) {
        e->status = (uint8_t)ev->result->status;
        e->reason = ev->result->reason;
        e->start_ns = ev->result->start_ns;
        e->end_ns = ev->result->end_ns;
    }
    e->glen = (uint32_t)glen;
    e->idlen = (uint32_t)idlen;
    if (glen + idlen + 2 <= sizeof e->inline_text) e->text = e->inline_text;
    else if ((e->text = (char *)GROUPCONC_TRACE_MALLOC(glen + idlen + 2)) == NULL) {
        atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
        atomic_store_explicit(&e->state, 2, memory_order_release);
        return;
    }
    memcpy(e->text, group, glen + 1);
    if (idlen) memcpy(e->text + glen + 1, ev->task_id, idlen);
    e->text[glen + 1 + idlen] = '\0';
    atomic_store_explicit(&e->state, 1, memory_order_release); /* the writer's acquire load pairs */
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__listener(const groupconc_event *ev, void *user_data) {
    groupconc_trace *t = (groupconc_trace *)user_data;
    switch (ev->type) {
    case GROUPCONC_EVENT_SUBMITTED: groupconc_trace__record(t, ev, GROUPCONC_TRACE__SUBMITTED); break;
    case GROUPCONC_EVENT_STARTED: groupconc_trace__record(t, ev, GROUPCONC_TRACE__STARTED); break;
    case GROUPCONC_EVENT_COMPLETED: groupconc_trace__record(t, ev, GROUPCONC_TRACE__COMPLETED); break;
    case GROUPCONC_EVENT_REJECTED: groupconc_trace__record(t, ev, GROUPCONC_TRACE__REJECTED); break;
    case GROUPCONC_EVENT_FLEET: break;
    }
    if (t->chain) t->chain(ev, t->chain_user_data);
}

/* ==== output: a buffer (snprintf-style) or a FILE ==== */

typedef struct groupconc_trace__out {
    char *buf;     /* buffer mode: receives at most size - 1 bytes and a NUL */
    size_t size;
    size_t len;    /* bytes of the whole text so far (written or not) */
    FILE *file;    /* file mode when set */
    int err;       /* GROUPCONC_EIO once a write failed */
} groupconc_trace__out;

GROUPCONC_TRACE__PRIVATE void groupconc_trace__put(groupconc_trace__out *o, const char *s, size_t n) {
    if (o->file) {
        if (o->err == GROUPCONC_OK && n > 0 && fwrite(s, 1, n, o->file) != n) o->err = GROUPCONC_EIO;
    } else if (o->size > 0 && o->len < o->size - 1) {
        size_t room = o->size - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__puts(groupconc_trace__out *o, const char *s) {
    groupconc_trace__put(o, s, strlen(s));
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__putu(groupconc_trace__out *o, uint64_t v) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    groupconc_trace__put(o, tmp, (size_t)n);
}

/* ns as microseconds with 3 decimals */
GROUPCONC_TRACE__PRIVATE void groupconc_trace__putus(groupconc_trace__out *o, uint64_t ns) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu.%03llu", (unsigned long long)(ns / 1000u),
                     (unsigned long long)(ns % 1000u));
    groupconc_trace__put(o, tmp, (size_t)n);
}

/* Length of the well-formed UTF-8 sequence at s (s[0] >= 0x80), or 0 (as groupconc_prometheus.h). */
GROUPCONC_TRACE__PRIVATE size_t groupconc_trace__utf8_len(const unsigned char *s, size_t avail) {
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t n, i;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (n > avail || s[1] < lo || s[1] > hi) return 0;
    for (i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

/* A JSON string (quoted) holding `n` bytes of s, mapped as THE TRACE says; `suffix` appended. */
GROUPCONC_TRACE__PRIVATE void groupconc_trace__str(groupconc_trace__out *o, const char *s, size_t n,
                                                  const char *suffix) {
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    groupconc_trace__put(o, "\"", 1);
    while (p < end) {
        unsigned char c = *p;
        size_t k = 1;
        if (c == '\\') groupconc_trace__put(o, "\\\\", 2);
        else if (c == '"') groupconc_trace__put(o, "\\\"", 2);
        else if (c == '\n') groupconc_trace__put(o, "\\n", 2);
        else if (c >= 0x80 && (k = groupconc_trace__utf8_len(p, (size_t)(end - p))) > 0)
            groupconc_trace__put(o, (const char *)p, k);
        else if (c == '%' || c < 0x20 || c >= 0x7F) {
            char pct[3];
            pct[0] = '%';
            pct[1] = hex[c >> 4];
            pct[2] = hex[c & 15];
            groupconc_trace__put(o, pct, 3);
            k = 1;
        } else
            groupconc_trace__put(o, (const char *)p, 1);
        p += k;
    }
    if (suffix) groupconc_trace__puts(o, suffix);
    groupconc_trace__put(o, "\"", 1);
}

/* ==== writing: pair the events, lay out the tracks ==== */

typedef struct groupconc_trace__run {
    const groupconc_trace__event *start, *done; /* STARTED, COMPLETED */
    uint32_t group;                             /* index into the writer's groups */
    bool caller_runs;
    uint32_t slot;                              /* 1-based, per group and kind */
} groupconc_trace__run;

typedef struct groupconc_trace__writer {
    const groupconc_trace *t;
    const groupconc_trace__event **ev;   /* whole events, recording order */
    size_t n;
    const groupconc_trace__event **key;  /* the same, by (group, id, recording order) */
    uint32_t *group_of;                  /* per event of `ev`: its group's index (first appearance) */
    uint32_t ngroups;
    const groupconc_trace__event **group_first; /* per group: its first event (for the key) */
    groupconc_trace__run *runs;
    size_t nruns, unmatched;
    uint64_t t0;
    uint64_t *ends;                      /* scratch: per open slot, its run's end */
    void *blocks[12];                    /* what to free */
    size_t nblocks;
} groupconc_trace__writer;

GROUPCONC_TRACE__PRIVATE int groupconc_trace__cmp_key(const void *a, const void *b) {
    const groupconc_trace__event *x = *(const groupconc_trace__event *const *)a;
    const groupconc_trace__event *y = *(const groupconc_trace__event *const *)b;
    int c = strcmp(x->text, y->text);
    if (c) return c;
    if (x->has_id != y->has_id) return x->has_id ? 1 : -1;
    c = strcmp(x->text + x->glen + 1, y->text + y->glen + 1);
    if (c) return c;
    return x < y ? -1 : x > y; /* recording order: slots are claimed in causal order */
}

GROUPCONC_TRACE__PRIVATE bool groupconc_trace__same_key(const groupconc_trace__event *x,
                                                       const groupconc_trace__event *y) {
    return x->has_id == y->has_id && strcmp(x->text, y->text) == 0 &&
           strcmp(x->text + x->glen + 1, y->text + y->glen + 1) == 0;
}

GROUPCONC_TRACE__PRIVATE int groupconc_trace__cmp_run(const void *a, const void *b) {
    const groupconc_trace__run *x = (const groupconc_trace__run *)a, *y = (const groupconc_trace__run *)b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->caller_runs != y->caller_runs) return x->caller_runs ? 1 : -1;
    if (x->done->start_ns != y->done->start_ns) return x->done->start_ns < y->done->start_ns ? -1 : 1;
    return x->done < y->done ? -1 : x->done > y->done;
}

GROUPCONC_TRACE__PRIVATE void *groupconc_trace__alloc(groupconc_trace__writer *w, size_t count, size_t size) {
    void *p;
    if (count == 0) count = 1;
    if (count > (size_t)-1 / size) return NULL;
    p = GROUPCONC_TRACE_MALLOC(count * size);
    if (p) w->blocks[w->nblocks++] = p;
    return p;
}

/* Pair the runs within one block of events of one key, [from, to) of w->key. */
GROUPCONC_TRACE__PRIVATE void groupconc_trace__pair_block(groupconc_trace__writer *w, size_t from, size_t to,
                                                         const groupconc_trace__event **open,
                                                         bool *open_cr) {
    size_t i, j, nopen = 0, pending_rejects = 0;
    for (i = from; i < to; i++) {
        const groupconc_trace__event *e = w->key[i];
        if (e->type == GROUPCONC_TRACE__REJECTED) pending_rejects++;
        else if (e->type == GROUPCONC_TRACE__STARTED) {
            open_cr[nopen] = pending_rejects > 0; /* ran after its rejection: CALLER_RUNS */
            if (pending_rejects) pending_rejects--;
            open[nopen++] = e;
        } else if (e->type == GROUPCONC_TRACE__COMPLETED) {
            bool ran = e->end_ns > e->start_ns ||
                       (nopen > 0 && e->status != GROUPCONC_STATUS_REJECTED && e->end_ns == e->start_ns &&
                        e->status != GROUPCONC_STATUS_CANCELLED);
            if (!ran) {
                if (pending_rejects) pending_rejects--;
                continue;
            }
            if (nopen == 0) { w->unmatched++; continue; } /* its STARTED was dropped */
            for (j = 0; j < nopen && open[j]->worker != e->worker; j++) {
            }
            if (j == nopen) j = 0; /* completed elsewhere (deferred): the oldest start */
            w->runs[w->nruns].start = open[j];
            w->runs[w->nruns].done = e;
            w->runs[w->nruns].caller_runs = open_cr[j];
            w->runs[w->nruns].group = 0; /* set by the caller */
            w->nruns++;
            memmove(&open[j], &open[j + 1], (nopen - j - 1) * sizeof open[0]);
            memmove(&open_cr[j], &open_cr[j + 1], (nopen - j - 1) * sizeof open_cr[0]);
            nopen--;
        }
    }
    w->unmatched += nopen; /* still running, or their COMPLETED was dropped */
}

GROUPCONC_TRACE__PRIVATE int groupconc_trace__prepare(groupconc_trace__writer *w) {
    const groupconc_trace *t = w->t;
    size_t claimed = atomic_load_explicit(&((groupconc_trace *)t)->next, memory_order_relaxed);
    size_t i, n = claimed < t->capacity ? claimed : t->capacity, from;
    const groupconc_trace__event **open;
    bool *open_cr;
    uint32_t g;
    w->ev = (const groupconc_trace__event **)groupconc_trace__alloc(w, n, sizeof *w->ev);
    w->key = (const groupconc_trace__event **)groupconc_trace__alloc(w, n, sizeof *w->key);
    w->group_of = (uint32_t *)groupconc_trace__alloc(w, n, sizeof *w->group_of);
    w->group_first = (const groupconc_trace__event **)groupconc_trace__alloc(w, n, sizeof *w->group_first);
    w->runs = (groupconc_trace__run *)groupconc_trace__alloc(w, n, sizeof *w->runs);
    w->ends = (uint64_t *)groupconc_trace__alloc(w, n, sizeof *w->ends);
    open = (const groupconc_trace__event **)groupconc_trace__alloc(w, n, sizeof *open);
    open_cr = (bool *)groupconc_trace__alloc(w, n, sizeof *open_cr);
    if (w->nblocks < 8) return GROUPCONC_ENOMEM;
    w->t0 = UINT64_MAX;
    for (i = 0; i < n; i++) { /* acquire: pairs with the recording's release store */
        const groupconc_trace__event *e = &t->events[i];
        if (atomic_load_explicit(&((groupconc_trace__event *)e)->state, memory_order_acquire) != 1) continue;
        w->ev[w->n] = e;
        w->key[w->n++] = e;
        if (e->ts < w->t0) w->t0 = e->ts;
        if (e->type == GROUPCONC_TRACE__COMPLETED && e->start_ns < w->t0 && e->start_ns > 0) w->t0 = e->start_ns;
    }
    if (w->t0 == UINT64_MAX) w->t0 = 0;
    qsort(w->key, w->n, sizeof *w->key, groupconc_trace__cmp_key);
    for (from = 0; from < w->n; from = i) {
        for (i = from + 1; i < w->n && groupconc_trace__same_key(w->key[from], w->key[i]); i++) {
        }
        groupconc_trace__pair_block(w, from, i, open, open_cr);
    }
    /* groups in order of first appearance: a linear scan per new group over those seen (the
       sorted key array would give order by name; first appearance reads better in a viewer) */
    for (i = 0; i < w->n; i++) {
        for (g = 0; g < w->ngroups && strcmp(w->group_first[g]->text, w->ev[i]->text) != 0; g++) {
        }
        if (g == w->ngroups) w->group_first[w->ngroups++] = w->ev[i];
        w->group_of[i] = g;
    }
    for (i = 0; i < w->nruns; i++) { /* a run's group: that of its STARTED event */
        size_t lo = 0, hi = w->n;
        const groupconc_trace__event *s = w->runs[i].start;
        while (lo < hi) { /* w->ev is in slot order, so binary search by address */
            size_t mid = lo + (hi - lo) / 2;
            if (w->ev[mid] < s) lo = mid + 1;
            else hi = mid;
        }
        w->runs[i].group = w->group_of[lo];
    }
    qsort(w->runs, w->nruns, sizeof *w->runs, groupconc_trace__cmp_run);
    return GROUPCONC_OK;
}

/* Slots: each run of a (group, kind) goes to the lowest slot whose last run ended by its start. */
GROUPCONC_TRACE__PRIVATE void groupconc_trace__slots(groupconc_trace__writer *w) {
    size_t i = 0, j, k;
    while (i < w->nruns) {
        size_t nslots = 0;
        for (j = i; j < w->nruns && w->runs[j].group == w->runs[i].group &&
                    w->runs[j].caller_runs == w->runs[i].caller_runs; j++) {
        }
        for (; i < j; i++) {
            for (k = 0; k < nslots && w->ends[k] > w->runs[i].done->start_ns; k++) {
            }
            if (k == nslots) nslots++;
            w->ends[k] = w->runs[i].done->end_ns;
            w->runs[i].slot = (uint32_t)k + 1;
        }
    }
}

/* The track (tid) of a run: per group, 1 + its events track, then its slots, then caller runs. */
#define GROUPCONC_TRACE__TID(group, kind, slot) \
    ((uint64_t)(group) * 1000000u + (uint64_t)(kind) * 100000u + (uint64_t)(slot))

GROUPCONC_TRACE__PRIVATE void groupconc_trace__meta(groupconc_trace__out *o, uint64_t tid,
                                                   const groupconc_trace__event *g, const char *suffix) {
    groupconc_trace__puts(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":");
    groupconc_trace__putu(o, tid);
    groupconc_trace__puts(o, ",\"args\":{\"name\":");
    groupconc_trace__str(o, g->text, g->glen, suffix);
    groupconc_trace__puts(o, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":");
    groupconc_trace__putu(o, tid);
    groupconc_trace__puts(o, ",\"args\":{\"sort_index\":");
    groupconc_trace__putu(o, tid);
    groupconc_trace__puts(o, "}}");
}

/* The tracks' names. Slots are handed out lowest first, so slot k first appears after slots
   1 .. k-1: a run whose slot is above the highest so far in its (group, kind) opens a track. */
GROUPCONC_TRACE__PRIVATE void groupconc_trace__tracks(groupconc_trace__writer *w, groupconc_trace__out *o) {
    size_t i;
    uint32_t g, top = 0;
    char suffix[40];
    groupconc_trace__puts(o, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":");
    groupconc_trace__str(o, w->t->process_name, strlen(w->t->process_name), NULL);
    groupconc_trace__puts(o, "}}");
    for (g = 0; g < w->ngroups; g++)
        groupconc_trace__meta(o, GROUPCONC_TRACE__TID(g + 1, 0, 0), w->group_first[g], " events");
    for (i = 0; i < w->nruns; i++) {
        const groupconc_trace__run *r = &w->runs[i];
        if (i == 0 || r->group != w->runs[i - 1].group || r->caller_runs != w->runs[i - 1].caller_runs) top = 0;
        if (r->slot <= top) continue;
        top = r->slot;
        (void)snprintf(suffix, sizeof suffix, r->caller_runs ? " caller runs %u" : " slot %u", (unsigned)r->slot);
        groupconc_trace__meta(o, GROUPCONC_TRACE__TID(r->group + 1, r->caller_runs ? 2u : 1u, r->slot),
                              w->group_first[r->group], suffix);
    }
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__common(groupconc_trace__writer *w, groupconc_trace__out *o,
                                                     const groupconc_trace__event *e, uint64_t ts,
                                                     uint64_t tid) {
    groupconc_trace__puts(o, ",\"ts\":");
    groupconc_trace__putus(o, ts >= w->t0 ? ts - w->t0 : 0);
    groupconc_trace__puts(o, ",\"pid\":1,\"tid\":");
    groupconc_trace__putu(o, tid);
    groupconc_trace__puts(o, ",\"args\":{\"group\":");
    groupconc_trace__str(o, e->text, e->glen, NULL);
    if (e->has_id) {
        groupconc_trace__puts(o, ",\"task_id\":");
        groupconc_trace__str(o, e->text + e->glen + 1, e->idlen, NULL);
    }
    groupconc_trace__puts(o, ",\"worker\":");
    groupconc_trace__putu(o, e->worker);
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__runs(groupconc_trace__writer *w, groupconc_trace__out *o) {
    size_t i;
    for (i = 0; i < w->nruns; i++) {
        const groupconc_trace__run *r = &w->runs[i];
        const groupconc_trace__event *d = r->done;
        groupconc_trace__puts(o, ",\n{\"name\":");
        if (d->has_id) groupconc_trace__str(o, d->text + d->glen + 1, d->idlen, NULL);
        else groupconc_trace__str(o, d->text, d->glen, NULL);
        groupconc_trace__puts(o, r->caller_runs ? ",\"cat\":\"caller_runs\",\"ph\":\"X\",\"dur\":"
                                                : ",\"cat\":\"task\",\"ph\":\"X\",\"dur\":");
        groupconc_trace__putus(o, d->end_ns - d->start_ns);
        groupconc_trace__common(w, o, r->start, d->start_ns,
                                GROUPCONC_TRACE__TID(r->group + 1, r->caller_runs ? 2u : 1u, r->slot));
        groupconc_trace__puts(o, ",\"status\":\"");
        groupconc_trace__puts(o, groupconc_status_name((groupconc_status)d->status));
        groupconc_trace__puts(o, "\",\"slot\":");
        groupconc_trace__putu(o, r->slot);
        groupconc_trace__puts(o, "}}");
    }
}

GROUPCONC_TRACE__PRIVATE bool groupconc_trace__expired(int reason) {
    return reason == GROUPCONC_EEXPIRED_GLOBAL || reason == GROUPCONC_EEXPIRED_BULKHEAD ||
           reason == GROUPCONC_EEXPIRED_CONCURRENCY || reason == GROUPCONC_EEXPIRED_RUNNING ||
           reason == GROUPCONC_EEXPIRED_FLEET;
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__instants(groupconc_trace__writer *w, groupconc_trace__out *o) {
    size_t i;
    for (i = 0; i < w->n; i++) {
        const groupconc_trace__event *e = w->ev[i];
        const char *name;
        if (e->type == GROUPCONC_TRACE__SUBMITTED) name = "submitted";
        else if (e->type == GROUPCONC_TRACE__REJECTED) name = groupconc_trace__expired(e->reason) ? "expired" : "rejected";
        else if (e->type == GROUPCONC_TRACE__COMPLETED && e->end_ns == e->start_ns) name = "completed";
        else continue;
        groupconc_trace__puts(o, ",\n{\"name\":\"");
        groupconc_trace__puts(o, name);
        groupconc_trace__puts(o, "\",\"cat\":\"");
        groupconc_trace__puts(o, name);
        groupconc_trace__puts(o, "\",\"ph\":\"i\",\"s\":\"t\"");
        groupconc_trace__common(w, o, e, e->type == GROUPCONC_TRACE__COMPLETED ? e->end_ns : e->ts,
                                GROUPCONC_TRACE__TID(w->group_of[i] + 1, 0, 0));
        if (e->type == GROUPCONC_TRACE__COMPLETED) {
            groupconc_trace__puts(o, ",\"status\":\"");
            groupconc_trace__puts(o, groupconc_status_name((groupconc_status)e->status));
            groupconc_trace__puts(o, "\"");
        }
        if (e->type != GROUPCONC_TRACE__SUBMITTED) {
            groupconc_trace__puts(o, ",\"reason\":\"");
            groupconc_trace__puts(o, groupconc_errname(e->reason));
            groupconc_trace__puts(o, "\"");
        }
        groupconc_trace__puts(o, "}}");
    }
}

/* Counter "<group> running": a +1 at each counted run's start, -1 at its end; ends first at a tie. */
typedef struct groupconc_trace__step {
    uint64_t at;
    int delta;
} groupconc_trace__step;

GROUPCONC_TRACE__PRIVATE int groupconc_trace__cmp_step(const void *a, const void *b) {
    const groupconc_trace__step *x = (const groupconc_trace__step *)a, *y = (const groupconc_trace__step *)b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return x->delta - y->delta;
}

GROUPCONC_TRACE__PRIVATE void groupconc_trace__counters(groupconc_trace__writer *w, groupconc_trace__out *o,
                                                       groupconc_trace__step *steps) {
    size_t i = 0, j, k, ns;
    while (i < w->nruns) {
        const groupconc_trace__event *g = w->group_first[w->runs[i].group];
        long running = 0;
        for (j = i, ns = 0; j < w->nruns && w->runs[j].group == w->runs[i].group; j++) {
            if (w->runs[j].caller_runs) continue;
            steps[ns].at = w->runs[j].done->start_ns;
            steps[ns++].delta = 1;
            steps[ns].at = w->runs[j].done->end_ns;
            steps[ns++].delta = -1;
        }
        qsort(steps, ns, sizeof *steps, groupconc_trace__cmp_step);
        for (k = 0; k < ns; k++) {
            running += steps[k].delta;
            groupconc_trace__puts(o, ",\n{\"name\":");
            groupconc_trace__str(o, g->text, g->glen, " running");
            groupconc_trace__puts(o, ",\"ph\":\"C\",\"ts\":");
            groupconc_trace__putus(o, steps[k].at >= w->t0 ? steps[k].at - w->t0 : 0);
            groupconc_trace__puts(o, ",\"pid\":1,\"args\":{\"running\":");
            groupconc_trace__putu(o, (uint64_t)running);
            groupconc_trace__puts(o, "}}");
        }
        i = j;
    }
}

GROUPCONC_TRACE__PRIVATE int groupconc_trace__write(groupconc_trace *t, groupconc_trace__out *o) {
    groupconc_trace__writer w;
    int rc;
    size_t i;
    memset(&w, 0, sizeof w);
    w.t = t;
    rc = groupconc_trace__prepare(&w);
    if (rc == GROUPCONC_OK) {
        groupconc_trace__step *steps =
            (groupconc_trace__step *)groupconc_trace__alloc(&w, 2 * (w.nruns + 1), sizeof *steps);
        if (!steps) rc = GROUPCONC_ENOMEM;
        else {
            groupconc_trace__slots(&w);
            groupconc_trace__puts(o, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"recorded\":");
            groupconc_trace__putu(o, w.n);
            groupconc_trace__puts(o, ",\"dropped\":");
            groupconc_trace__putu(o, atomic_load_explicit(&t->dropped, memory_order_relaxed));
            groupconc_trace__puts(o, ",\"capacity\":");
            groupconc_trace__putu(o, t->capacity);
            groupconc_trace__puts(o, ",\"unmatched\":");
            groupconc_trace__putu(o, w.unmatched);
            groupconc_trace__puts(o, ",\"version\":\"" GROUPCONC_TRACE_VERSION_STRING "\"},\n\"traceEvents\":[\n");
            groupconc_trace__tracks(&w, o);
            groupconc_trace__runs(&w, o);
            groupconc_trace__instants(&w, o);
            groupconc_trace__counters(&w, o, steps);
            groupconc_trace__puts(o, "\n]}\n");
            rc = o->err;
        }
    }
    for (i = 0; i < w.nblocks; i++) GROUPCONC_TRACE_FREE(w.blocks[i]);
    return rc;
}

/* ==== public API ==== */

GROUPCONC_TRACE_API groupconc_trace_config groupconc_trace_config_default(void) {
    groupconc_trace_config c;
    memset(&c, 0, sizeof c);
    c.capacity = 65536;
    return c;
}

GROUPCONC_TRACE_API int groupconc_trace_create(const groupconc_trace_config *config,
                                               groupconc_trace **out) {
    groupconc_trace_config c = config ? *config : groupconc_trace_config_default();
    const char *name = c.process_name ? c.process_name : "groupconc";
    size_t i, nlen = strlen(name);
    groupconc_trace *t;
    if (!out) return GROUPCONC_EINVAL;
    *out = NULL;
    if (c.capacity == 0 || c.capacity > GROUPCONC_TRACE_MAX_CAPACITY) return GROUPCONC_ELIMIT;
    t = (groupconc_trace *)GROUPCONC_TRACE_MALLOC(sizeof *t);
    if (!t) return GROUPCONC_ENOMEM;
    memset(t, 0, sizeof *t);
    t->events = (groupconc_trace__event *)GROUPCONC_TRACE_MALLOC(c.capacity * sizeof *t->events);
    t->process_name = (char *)GROUPCONC_TRACE_MALLOC(nlen + 1);
    if (!t->events || !t->process_name) goto fail;
    memcpy(t->process_name, name, nlen + 1);
    for (i = 0; i < c.capacity; i++) {
        atomic_init(&t->events[i].state, 0);
        t->events[i].text = NULL;
    }
    t->capacity = c.capacity;
    atomic_init(&t->next, 0);
    atomic_init(&t->dropped, 0);
    atomic_init(&t->attached, false);
    *out = t;
    return GROUPCONC_OK;
fail:
    if (t->process_name) GROUPCONC_TRACE_FREE(t->process_name);
    if (t->events) GROUPCONC_TRACE_FREE(t->events);
    GROUPCONC_TRACE_FREE(t);
    return GROUPCONC_ENOMEM;
}

GROUPCONC_TRACE_API int groupconc_trace_attach(groupconc_trace *trace, groupconc_policy *policy) {
    bool was = false;
    if (!trace || !policy) return GROUPCONC_EINVAL;
    if (!atomic_compare_exchange_strong_explicit(&trace->attached, &was, true, memory_order_relaxed,
                                                 memory_order_relaxed)) /* the executor's create publishes */
        return GROUPCONC_TRACE_EATTACHED;
    trace->chain = policy->listener;
    trace->chain_user_data = policy->listener_user_data;
    policy->listener = groupconc_trace__listener;
    policy->listener_user_data = trace;
    return GROUPCONC_OK;
}

GROUPCONC_TRACE_API int groupconc_trace_destroy(groupconc_trace *trace) {
    size_t i, n;
    if (!trace) return GROUPCONC_OK;
    n = atomic_load_explicit(&trace->next, memory_order_relaxed);
    if (n > trace->capacity) n = trace->capacity;
    for (i = 0; i < n; i++) {
        groupconc_trace__event *e = &trace->events[i];
        if (atomic_load_explicit(&e->state, memory_order_acquire) == 1 && e->text != e->inline_text)
            GROUPCONC_TRACE_FREE(e->text);
    }
    GROUPCONC_TRACE_FREE(trace->events);
    GROUPCONC_TRACE_FREE(trace->process_name);
    GROUPCONC_TRACE_FREE(trace);
    return GROUPCONC_OK;
}

GROUPCONC_TRACE_API int groupconc_trace_stats_get(groupconc_trace *trace,
                                                  groupconc_trace_stats *out_stats) {
    size_t n;
    if (!trace || !out_stats) return GROUPCONC_EINVAL;
    n = atomic_load_explicit(&trace->next, memory_order_relaxed);
    out_stats->capacity = trace->capacity;
    out_stats->dropped = atomic_load_explicit(&trace->dropped, memory_order_relaxed);
    /* claimed slots, less those whose text could not be allocated (counted in dropped) */
    n = n < trace->capacity ? n : trace->capacity;
    {
        size_t i, lost = 0;
        for (i = 0; i < n; i++)
            if (atomic_load_explicit(&trace->events[i].state, memory_order_acquire) == 2) lost++;
        out_stats->recorded = n - lost;
    }
    return GROUPCONC_OK;
}

GROUPCONC_TRACE_API int groupconc_trace_write(groupconc_trace *trace, char *buf, size_t size,
                                              size_t *out_needed) {
    groupconc_trace__out o;
    int rc;
    if (out_needed) *out_needed = 0;
    if (!trace || (!buf && size > 0)) return GROUPCONC_EINVAL;
    memset(&o, 0, sizeof o);
    o.buf = buf;
    o.size = size;
    rc = groupconc_trace__write(trace, &o);
    if (rc != GROUPCONC_OK) {
        if (size > 0) buf[0] = '\0';
        return rc;
    }
    if (out_needed) *out_needed = o.len + 1;
    if (size > 0) buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len < size ? GROUPCONC_OK : GROUPCONC_ERANGE;
}

GROUPCONC_TRACE_API int groupconc_trace_write_file(groupconc_trace *trace, FILE *out) {
    groupconc_trace__out o;
    if (!trace || !out) return GROUPCONC_EINVAL;
    memset(&o, 0, sizeof o);
    o.file = out;
    return groupconc_trace__write(trace, &o);
}

/* ==== diagnostics ==== */

GROUPCONC_TRACE_API const char *groupconc_trace_strerror(int code) {
    switch (code) {
#define GROUPCONC_TRACE__ERR_TEXT(name, value, text) \
    case value: return text;
        GROUPCONC_TRACE_ERRNO_MAP(GROUPCONC_TRACE__ERR_TEXT)
#undef GROUPCONC_TRACE__ERR_TEXT
    default: return groupconc_strerror(code);
    }
}

GROUPCONC_TRACE_API const char *groupconc_trace_errname(int code) {
    switch (code) {
#define GROUPCONC_TRACE__ERR_NAME(name, value, text) \
    case value: return "GROUPCONC_TRACE_" #name;
        GROUPCONC_TRACE_ERRNO_MAP(GROUPCONC_TRACE__ERR_NAME)
#undef GROUPCONC_TRACE__ERR_NAME
    default: return groupconc_errname(code);
    }
}

#endif /* GROUPCONC_TRACE_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
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
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
