/* groupconc_prometheus.h - v1.0.0 - groupconc's counters and gauges in the Prometheus text format
                                      - MIT license (full text at end)

   Renders an executor's stats (groupconc_executor_stats_get) and each group's
   (groupconc_group_stats_get) in the Prometheus text exposition format (version 0.0.4), into a
   caller's buffer or a FILE, for a /metrics endpoint or a node_exporter textfile. It uses only
   groupconc.h's public API and the C standard library: no threads, no sockets of its own
   (examples/11_prometheus.c serves it on a loopback HTTP port).

   QUICK START
       // in exactly one .c file (groupconc.h's directory on the include path):
       #define GROUPCONC_IMPLEMENTATION
       #include "groupconc.h"
       #define GROUPCONC_PROMETHEUS_IMPLEMENTATION
       #include "extras/groupconc_prometheus.h"

       char buf[65536];
       size_t needed;
       int rc = groupconc_prometheus_render(ex, NULL, buf, sizeof buf, &needed); // NULL: defaults
       if (rc == GROUPCONC_ERANGE) ... allocate `needed` bytes and call again ...
       // or: groupconc_prometheus_render_file(ex, NULL, stdout);

   CONTENTS
       CONFIGURATION, METRICS, GROUP LABEL, THREADS AND CALLBACKS, ERRORS, LIMITATIONS
       [1] error codes  [2] configuration  [3] rendering  [4] diagnostics
       Implementation sections: grep -n '====' extras/groupconc_prometheus.h

   CONFIGURATION
       macro                                 where     default      effect
       GROUPCONC_PROMETHEUS_IMPLEMENTATION   one TU    -            compile the implementation here
       GROUPCONC_PROMETHEUS_STATIC           every TU  -            make every function static
       GROUPCONC_PROMETHEUS_API              every TU  extern       decoration of public declarations
       GROUPCONC_PROMETHEUS_MALLOC(sz)       impl TU   malloc(sz)   allocator; define MALLOC and FREE
       GROUPCONC_PROMETHEUS_FREE(p)          impl TU   free(p)        together or neither
       GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN   every TU  64           longest metric name prefix, bytes
       (groupconc_group_keys_get allocates with groupconc.h's GROUPCONC_MALLOC.)

   METRICS (prefix P, default "groupconc_"; counters end in _total, times are in seconds, counts of
   tasks end in _tasks; an unlimited limit is +Inf)
       executor, no labels:
         P_tasks_submitted_total, P_tasks_admitted_total                         counter
         P_tasks_completed_total{outcome}                                        counter
             outcome: succeeded failed cancelled rejected_global rejected_bulkhead
                      rejected_concurrency rejected_waiting expired rejected_fleet rejected_other
         P_tasks_caller_runs_total (refused, then run under CALLER_RUNS: outside the outcomes),
         P_groups_reclaimed_total, P_counts_unattributed_total, P_fleet_open_total,
         P_fleet_renew_failed_total                                              counter
         P_running_tasks, P_ready_tasks, P_waiting_tasks (every layer),
         P_waiting_running_tasks (global running), P_waiting_fleet_tasks, P_refusing_tasks
         (refused, the outcome not decided yet), P_global_in_flight_tasks,
         P_global_running_tasks, P_gate_permits, P_threads, P_idle_threads, P_groups,
         P_paused_groups, P_paused (0/1), P_shutdown (0/1), P_groups_listed      gauge
         P_global_max_in_flight_tasks, P_global_max_running_tasks, P_max_waiting_tasks,
         P_max_groups                                                            gauge (limits)
       per group, label group (GROUP LABEL):
         P_group_tasks_submitted_total, P_group_tasks_admitted_total             counter
         P_group_tasks_completed_total{outcome} (the outcomes above but rejected_other),
         P_group_tasks_caller_runs_total                                         counter
         P_group_running_tasks, P_group_ready_tasks, P_group_in_flight_tasks, P_group_refusing_tasks,
         P_group_gate_permits, P_group_paused (0/1), P_group_oldest_wait_seconds  gauge
         P_group_waiting_tasks{layer}: global bulkhead concurrency running fleet  gauge
         P_group_concurrency_tasks, P_group_max_in_flight_tasks,
         P_group_queue_threshold_tasks, P_group_max_wait_seconds                 gauge (limits)
       Busiest first: at most config.max_groups groups are listed by name, ordered by running +
       ready + waiting (then by tasks submitted, then by key). The others are summed into one
       series per metric with group="%other" (no real key renders as "%other": see GROUP LABEL):
       counters and task counts are sums, P_group_paused is the number of paused groups among them,
       P_group_oldest_wait_seconds their maximum; the limits are not written for it. With no group
       left over, no "%other" series is written. P_groups_listed says how many were listed by name.
       Group counters count since the group's state was created (a reclaimed or evicted group
       starts again from 0, and "%other" changes members): Prometheus's rate() treats a decrease as
       a counter reset.

   GROUP LABEL
       Group keys are any bytes but NUL. The label value is the key mapped losslessly to UTF-8:
         - backslash, double quote and newline are escaped as the format says: \\  \"  \n;
         - '%', the other control bytes (0x01-0x1F, 0x7F) and every byte that is not part of a
           well-formed UTF-8 sequence (a stray continuation byte, a truncated or overlong sequence,
           a surrogate, a code point above U+10FFFF) become %XX (two upper-case hex digits);
         - everything else (printable ASCII, well-formed UTF-8) is copied as is.
       So "tenant-a" stays "tenant-a", "50%" becomes "50%25", the byte 0xFF becomes "%FF"; reversing
       it (\\ \" \n, then %XX to the byte) gives the key back. groupconc_prometheus_escape applies it.

   THREADS AND CALLBACKS
       Every function is thread-safe: the render functions read the executor through its stats
       calls (each a consistent snapshot under its lock; the executor's and the groups' snapshots
       are taken one after the other, not at one instant) and hold no lock of their own.

   ERRORS
       Functions that can fail return GROUPCONC_OK (0) or a negative code: groupconc.h's
       (GROUPCONC_EINVAL, ERANGE, ENOMEM, EIO, EDEADLK) and this header's GROUPCONC_PROMETHEUS_E*
       codes (section [1]), which never overlap them. groupconc_prometheus_strerror /
       groupconc_prometheus_errname describe both.

   LIMITATIONS
       - No timestamps on the samples (the scrape time is used) and no exemplars; text format
         0.0.4 only (no OpenMetrics, no protobuf).
       - Sorting the groups costs O(n log n) per render, with one groupconc_group_stats_get per
         group: with a very large group table, lower max_groups does not make the render cheaper.
*/
#ifndef GROUPCONC_PROMETHEUS_H_INCLUDED
#define GROUPCONC_PROMETHEUS_H_INCLUDED

#include "groupconc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GROUPCONC_PROMETHEUS_VERSION_STRING "1.0.0"

#ifndef GROUPCONC_PROMETHEUS_API
#if defined(GROUPCONC_PROMETHEUS_STATIC)
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_PROMETHEUS_API static __attribute__((unused))
#else
#define GROUPCONC_PROMETHEUS_API static
#endif
#else
#define GROUPCONC_PROMETHEUS_API extern
#endif
#endif

#ifndef GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN
#define GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN 64
#endif

/* config.max_groups: list every group by name (no "%other" series). */
#define GROUPCONC_PROMETHEUS_ALL_GROUPS ((size_t)-1)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- [1] error codes ---------------------------------------------------------------------------
   This header's own codes, beside groupconc.h's (which it returns too, with their meaning). One
   list yields the enum, groupconc_prometheus_strerror() and groupconc_prometheus_errname(). Never
   renumbered. */
#define GROUPCONC_PROMETHEUS_ERRNO_MAP(X)                                                             \
    X(EPREFIX, -1101, "metric name prefix: a character outside [a-zA-Z0-9_:], or a leading digit")   \
    X(EPREFIXLEN, -1102, "metric name prefix longer than GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN")

typedef enum groupconc_prometheus_error {
#define GROUPCONC_PROMETHEUS__ERR_ENUM(name, value, text) GROUPCONC_PROMETHEUS_##name = (value),
    GROUPCONC_PROMETHEUS_ERRNO_MAP(GROUPCONC_PROMETHEUS__ERR_ENUM)
#undef GROUPCONC_PROMETHEUS__ERR_ENUM
} groupconc_prometheus_error;

/* ---- [2] configuration ------------------------------------------------------------------------- */

typedef struct groupconc_prometheus_config {
    const char *prefix;  /* prepended to every metric name: [a-zA-Z_:][a-zA-Z0-9_:]* or "", at most
                            GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN bytes; NULL: the default;
                            default "groupconc_". ':' is valid but reserved by Prometheus for
                            recording rules (promtool check metrics reports it): prefer
                            [a-zA-Z0-9_] */
    size_t max_groups;   /* groups listed by name, busiest first; the rest summed as "%other";
                            0: all summed; GROUPCONC_PROMETHEUS_ALL_GROUPS: all listed; default 50 */
    bool help;           /* write a # HELP line per metric (# TYPE lines always); default true */
} groupconc_prometheus_config;

/* groupconc_prometheus_config_default: the defaults listed in groupconc_prometheus_config.
   Returns:       the configuration (a NULL config pointer in the calls below means the same).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_PROMETHEUS_API groupconc_prometheus_config groupconc_prometheus_config_default(void);

/* ---- [3] rendering ----------------------------------------------------------------------------- */

/* groupconc_prometheus_render: the executor's and its groups' metrics (METRICS), as text.
   Params:        config may be NULL (the defaults). buf / size: filled with the text and a NUL when
                  it fits, else with a truncated, NUL-terminated prefix (buf may be NULL with size
                  0: only measure); *out_needed (may be NULL): the bytes the whole text takes, NUL
                  included (0 after an error other than GROUPCONC_ERANGE), as snprintf reports.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL, or buf NULL with size > 0);
                  GROUPCONC_PROMETHEUS_EPREFIX / _EPREFIXLEN (config->prefix);
                  GROUPCONC_ERANGE (did not fit: call again with *out_needed bytes; the groups may
                  have changed meanwhile, so leave some room); GROUPCONC_ENOMEM;
                  GROUPCONC_EDEADLK (called from the executor's resolver).
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the executor's resolver; from a task or a listener it
                  works (the stats calls take the executor's lock briefly). */
GROUPCONC_PROMETHEUS_API int groupconc_prometheus_render(groupconc_executor *ex,
                                                         const groupconc_prometheus_config *config,
                                                         char *buf, size_t size, size_t *out_needed);

/* groupconc_prometheus_render_file: groupconc_prometheus_render, written to `out` (not flushed).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex or out NULL); GROUPCONC_PROMETHEUS_EPREFIX /
                  _EPREFIXLEN; GROUPCONC_ENOMEM; GROUPCONC_EIO (fwrite failed: part of the text may
                  have been written); GROUPCONC_EDEADLK (from the resolver).
   Thread safety: any thread (writes to `out` as one stdio stream: do not share it unlocked).
   Callbacks:     as groupconc_prometheus_render. */
GROUPCONC_PROMETHEUS_API int groupconc_prometheus_render_file(groupconc_executor *ex,
                                                              const groupconc_prometheus_config *config,
                                                              FILE *out);

/* groupconc_prometheus_escape: a group key as its label value (GROUP LABEL), without the quotes.
   Params:        buf / size / out_needed: as groupconc_prometheus_render.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (key NULL, or buf NULL with size > 0);
                  GROUPCONC_ERANGE (did not fit: *out_needed bytes are needed).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_PROMETHEUS_API int groupconc_prometheus_escape(const char *key, char *buf, size_t size,
                                                         size_t *out_needed);

/* ---- [4] diagnostics --------------------------------------------------------------------------- */

/* groupconc_prometheus_strerror: the message of this header's codes and of groupconc.h's.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_PROMETHEUS_API const char *groupconc_prometheus_strerror(int code);

/* groupconc_prometheus_errname: "GROUPCONC_PROMETHEUS_EPREFIX", or groupconc_errname's answer.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_PROMETHEUS_API const char *groupconc_prometheus_errname(int code);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GROUPCONC_PROMETHEUS_H_INCLUDED */

/* ================================================================================================
   IMPLEMENTATION
   ================================================================================================ */
#if defined(GROUPCONC_PROMETHEUS_IMPLEMENTATION) && !defined(GROUPCONC_PROMETHEUS_IMPLEMENTATION_INCLUDED)
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION_INCLUDED

#if defined(__cplusplus)
#error "groupconc_prometheus.h: compile the implementation as C (C11), not C++"
#endif

/* ==== configuration ==== */

#if defined(GROUPCONC_PROMETHEUS_MALLOC) != defined(GROUPCONC_PROMETHEUS_FREE)
#error "groupconc_prometheus.h: define GROUPCONC_PROMETHEUS_MALLOC and GROUPCONC_PROMETHEUS_FREE together, or neither"
#endif
#ifndef GROUPCONC_PROMETHEUS_MALLOC
#define GROUPCONC_PROMETHEUS_MALLOC(sz) malloc(sz)
#define GROUPCONC_PROMETHEUS_FREE(p) free(p)
#endif
#if GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN < 0
#error "GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN must be >= 0"
#endif

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_PROMETHEUS__PRIVATE static __attribute__((unused))
#else
#define GROUPCONC_PROMETHEUS__PRIVATE static
#endif

/* ==== output: a buffer (snprintf-style) or a FILE ==== */

typedef struct groupconc_prometheus__out {
    char *buf;     /* buffer mode: receives at most size - 1 bytes and a NUL */
    size_t size;
    size_t len;    /* bytes of the whole text so far (written or not) */
    FILE *file;    /* file mode when set */
    int err;       /* GROUPCONC_EIO once a write failed */
} groupconc_prometheus__out;

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__put(groupconc_prometheus__out *o,
                                                            const char *s, size_t n) {
    if (o->file) {
        if (o->err == GROUPCONC_OK && n > 0 && fwrite(s, 1, n, o->file) != n) o->err = GROUPCONC_EIO;
    } else if (o->size > 0 && o->len < o->size - 1) {
        size_t room = o->size - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__puts(groupconc_prometheus__out *o,
                                                             const char *s) {
    groupconc_prometheus__put(o, s, strlen(s));
}

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__put_u64(groupconc_prometheus__out *o,
                                                                uint64_t v) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    groupconc_prometheus__put(o, tmp, (size_t)n);
}

/* Nanoseconds as seconds, exactly (no floating point): "1.250000000". */
GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__put_seconds(groupconc_prometheus__out *o,
                                                                    uint64_t ns) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
                     (unsigned long long)(ns % 1000000000u));
    groupconc_prometheus__put(o, tmp, (size_t)n);
}

/* ==== the group label's mapping (GROUP LABEL) ==== */

/* Length of the well-formed UTF-8 sequence at s (1..4; s[0] >= 0x80), or 0 if it is not one
   (Unicode 15, table 3-7: no overlongs, no surrogates, nothing above U+10FFFF). */
GROUPCONC_PROMETHEUS__PRIVATE size_t groupconc_prometheus__utf8_len(const unsigned char *s) {
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xBF;
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
    if (s[1] < lo || s[1] > hi) return 0; /* also stops at the NUL */
    for (i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__escape(groupconc_prometheus__out *o,
                                                               const char *key) {
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)key;
    while (*s) {
        unsigned char c = *s;
        size_t n = 1;
        if (c == '\\') groupconc_prometheus__put(o, "\\\\", 2);
        else if (c == '"') groupconc_prometheus__put(o, "\\\"", 2);
        else if (c == '\n') groupconc_prometheus__put(o, "\\n", 2);
        else if (c >= 0x80 && (n = groupconc_prometheus__utf8_len(s)) > 0)
            groupconc_prometheus__put(o, (const char *)s, n);
        else if (c == '%' || c < 0x20 || c >= 0x7F) {
            char pct[3];
            pct[0] = '%';
            pct[1] = hex[c >> 4];
            pct[2] = hex[c & 15];
            groupconc_prometheus__put(o, pct, 3);
            n = 1;
        } else
            groupconc_prometheus__put(o, (const char *)s, 1);
        s += n;
    }
}

/* ==== the metrics: one table per kind ==== */

typedef enum groupconc_prometheus__kind {
    GROUPCONC_PROMETHEUS__SIZE,    /* size_t count */
    GROUPCONC_PROMETHEUS__U64,     /* uint64_t count */
    GROUPCONC_PROMETHEUS__BOOL,    /* bool: 0 / 1 */
    GROUPCONC_PROMETHEUS__LIMIT,   /* int limit: GROUPCONC_UNLIMITED is +Inf */
    GROUPCONC_PROMETHEUS__AGE_NS,  /* uint64_t ns, as seconds */
    GROUPCONC_PROMETHEUS__WAIT_NS  /* int64_t ns, as seconds; negative (GROUPCONC_FOREVER) is +Inf */
} groupconc_prometheus__kind;

typedef struct groupconc_prometheus__metric {
    const char *name;    /* after the prefix */
    const char *type;    /* "counter" / "gauge" */
    const char *help;
    const char *label;   /* an extra label's name ("outcome", "layer"), or NULL */
    const char *value;   /* that label's value */
    size_t offset;       /* of the field in the stats struct */
    groupconc_prometheus__kind kind;
} groupconc_prometheus__metric;

#define GROUPCONC_PROMETHEUS__E(field) offsetof(groupconc_executor_stats, field)
#define GROUPCONC_PROMETHEUS__G(field) offsetof(groupconc_group_stats, field)
#define GROUPCONC_PROMETHEUS__DONE "tasks that reached a final state, by outcome"

/* Samples of one metric are consecutive entries with the same name (the first carries the help). */
static const groupconc_prometheus__metric groupconc_prometheus__executor_metrics[] = {
    {"tasks_submitted_total", "counter", "submit calls with valid arguments (SUBMITTED events)", NULL, NULL, GROUPCONC_PROMETHEUS__E(submitted), GROUPCONC_PROMETHEUS__U64},
    {"tasks_admitted_total", "counter", "tasks that got every permit", NULL, NULL, GROUPCONC_PROMETHEUS__E(admitted), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", GROUPCONC_PROMETHEUS__DONE, "outcome", "succeeded", GROUPCONC_PROMETHEUS__E(succeeded), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "failed", GROUPCONC_PROMETHEUS__E(failed), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "cancelled", GROUPCONC_PROMETHEUS__E(cancelled), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_global", GROUPCONC_PROMETHEUS__E(rejected_global), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_bulkhead", GROUPCONC_PROMETHEUS__E(rejected_bulkhead), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_concurrency", GROUPCONC_PROMETHEUS__E(rejected_concurrency), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_waiting", GROUPCONC_PROMETHEUS__E(rejected_waiting), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "expired", GROUPCONC_PROMETHEUS__E(expired), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_fleet", GROUPCONC_PROMETHEUS__E(rejected_fleet), GROUPCONC_PROMETHEUS__U64},
    {"tasks_completed_total", "counter", NULL, "outcome", "rejected_other", GROUPCONC_PROMETHEUS__E(rejected_other), GROUPCONC_PROMETHEUS__U64},
    {"tasks_caller_runs_total", "counter", "refused tasks that ran under CALLER_RUNS (not in tasks_completed_total's outcomes)", NULL, NULL, GROUPCONC_PROMETHEUS__E(caller_runs), GROUPCONC_PROMETHEUS__U64},
    {"groups_reclaimed_total", "counter", "idle groups dropped by the bounded group table", NULL, NULL, GROUPCONC_PROMETHEUS__E(groups_reclaimed), GROUPCONC_PROMETHEUS__U64},
    {"counts_unattributed_total", "counter", "outcomes counted in the executor's totals only (no memory for the group's)", NULL, NULL, GROUPCONC_PROMETHEUS__E(counts_unattributed), GROUPCONC_PROMETHEUS__U64},
    {"fleet_open_total", "counter", "tasks let through on the local caps alone (fleet layer failed open)", NULL, NULL, GROUPCONC_PROMETHEUS__E(fleet_open), GROUPCONC_PROMETHEUS__U64},
    {"fleet_renew_failed_total", "counter", "fleet lease renewals that failed", NULL, NULL, GROUPCONC_PROMETHEUS__E(fleet_renew_failed), GROUPCONC_PROMETHEUS__U64},
    {"running_tasks", "gauge", "tasks on a worker, and gate permits held", NULL, NULL, GROUPCONC_PROMETHEUS__E(running), GROUPCONC_PROMETHEUS__SIZE},
    {"ready_tasks", "gauge", "tasks holding every permit, waiting for a worker thread", NULL, NULL, GROUPCONC_PROMETHEUS__E(ready), GROUPCONC_PROMETHEUS__SIZE},
    {"waiting_tasks", "gauge", "tasks waiting at any layer", NULL, NULL, GROUPCONC_PROMETHEUS__E(waiting), GROUPCONC_PROMETHEUS__SIZE},
    {"waiting_running_tasks", "gauge", "tasks waiting at the global running layer", NULL, NULL, GROUPCONC_PROMETHEUS__E(waiting_running), GROUPCONC_PROMETHEUS__SIZE},
    {"waiting_fleet_tasks", "gauge", "tasks waiting at the fleet layer", NULL, NULL, GROUPCONC_PROMETHEUS__E(waiting_fleet), GROUPCONC_PROMETHEUS__SIZE},
    {"refusing_tasks", "gauge", "refused tasks whose outcome a rejection handler or CALLER_RUNS has yet to decide", NULL, NULL, GROUPCONC_PROMETHEUS__E(refusing), GROUPCONC_PROMETHEUS__SIZE},
    {"global_in_flight_tasks", "gauge", "tasks past the global in-flight layer", NULL, NULL, GROUPCONC_PROMETHEUS__E(global_in_flight), GROUPCONC_PROMETHEUS__SIZE},
    {"global_running_tasks", "gauge", "global running permits held", NULL, NULL, GROUPCONC_PROMETHEUS__E(global_running), GROUPCONC_PROMETHEUS__SIZE},
    {"gate_permits", "gauge", "executor gate permits held", NULL, NULL, GROUPCONC_PROMETHEUS__E(gate_permits), GROUPCONC_PROMETHEUS__SIZE},
    {"threads", "gauge", "worker threads alive", NULL, NULL, GROUPCONC_PROMETHEUS__E(threads), GROUPCONC_PROMETHEUS__SIZE},
    {"idle_threads", "gauge", "worker threads alive and idle", NULL, NULL, GROUPCONC_PROMETHEUS__E(idle_threads), GROUPCONC_PROMETHEUS__SIZE},
    {"groups", "gauge", "groups with cached state", NULL, NULL, GROUPCONC_PROMETHEUS__E(groups), GROUPCONC_PROMETHEUS__SIZE},
    {"paused_groups", "gauge", "groups paused with groupconc_group_pause", NULL, NULL, GROUPCONC_PROMETHEUS__E(paused_groups), GROUPCONC_PROMETHEUS__SIZE},
    {"paused", "gauge", "1 while the executor is paused", NULL, NULL, GROUPCONC_PROMETHEUS__E(paused), GROUPCONC_PROMETHEUS__BOOL},
    {"shutdown", "gauge", "1 once the executor is shut down", NULL, NULL, GROUPCONC_PROMETHEUS__E(shutdown), GROUPCONC_PROMETHEUS__BOOL},
    {"global_max_in_flight_tasks", "gauge", "the global in-flight limit", NULL, NULL, GROUPCONC_PROMETHEUS__E(global_max_in_flight), GROUPCONC_PROMETHEUS__LIMIT},
    {"global_max_running_tasks", "gauge", "the global running limit", NULL, NULL, GROUPCONC_PROMETHEUS__E(global_max_running), GROUPCONC_PROMETHEUS__LIMIT},
    {"max_waiting_tasks", "gauge", "limit on tasks waiting at any layer", NULL, NULL, GROUPCONC_PROMETHEUS__E(max_waiting), GROUPCONC_PROMETHEUS__LIMIT},
    {"max_groups", "gauge", "limit on groups with cached state", NULL, NULL, GROUPCONC_PROMETHEUS__E(max_groups), GROUPCONC_PROMETHEUS__LIMIT},
};

static const groupconc_prometheus__metric groupconc_prometheus__group_metrics[] = {
    {"group_tasks_submitted_total", "counter", "SUBMITTED events of the group", NULL, NULL, GROUPCONC_PROMETHEUS__G(submitted), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_admitted_total", "counter", "the group's tasks that got every permit", NULL, NULL, GROUPCONC_PROMETHEUS__G(admitted), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", "the group's " GROUPCONC_PROMETHEUS__DONE, "outcome", "succeeded", GROUPCONC_PROMETHEUS__G(succeeded), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "failed", GROUPCONC_PROMETHEUS__G(failed), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "cancelled", GROUPCONC_PROMETHEUS__G(cancelled), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "rejected_global", GROUPCONC_PROMETHEUS__G(rejected_global), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "rejected_bulkhead", GROUPCONC_PROMETHEUS__G(rejected_bulkhead), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "rejected_concurrency", GROUPCONC_PROMETHEUS__G(rejected_concurrency), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "rejected_waiting", GROUPCONC_PROMETHEUS__G(rejected_waiting), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "expired", GROUPCONC_PROMETHEUS__G(expired), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_completed_total", "counter", NULL, "outcome", "rejected_fleet", GROUPCONC_PROMETHEUS__G(rejected_fleet), GROUPCONC_PROMETHEUS__U64},
    {"group_tasks_caller_runs_total", "counter", "the group's refused tasks that ran under CALLER_RUNS", NULL, NULL, GROUPCONC_PROMETHEUS__G(caller_runs), GROUPCONC_PROMETHEUS__U64},
    {"group_running_tasks", "gauge", "the group's tasks on a worker, and its gate permits", NULL, NULL, GROUPCONC_PROMETHEUS__G(running), GROUPCONC_PROMETHEUS__SIZE},
    {"group_ready_tasks", "gauge", "the group's tasks holding every permit, waiting for a worker", NULL, NULL, GROUPCONC_PROMETHEUS__G(ready), GROUPCONC_PROMETHEUS__SIZE},
    {"group_waiting_tasks", "gauge", "the group's waiting tasks, by layer", "layer", "global", GROUPCONC_PROMETHEUS__G(waiting_global), GROUPCONC_PROMETHEUS__SIZE},
    {"group_waiting_tasks", "gauge", NULL, "layer", "bulkhead", GROUPCONC_PROMETHEUS__G(waiting_bulkhead), GROUPCONC_PROMETHEUS__SIZE},
    {"group_waiting_tasks", "gauge", NULL, "layer", "concurrency", GROUPCONC_PROMETHEUS__G(waiting_concurrency), GROUPCONC_PROMETHEUS__SIZE},
    {"group_waiting_tasks", "gauge", NULL, "layer", "running", GROUPCONC_PROMETHEUS__G(waiting_running), GROUPCONC_PROMETHEUS__SIZE},
    {"group_waiting_tasks", "gauge", NULL, "layer", "fleet", GROUPCONC_PROMETHEUS__G(waiting_fleet), GROUPCONC_PROMETHEUS__SIZE},
    {"group_in_flight_tasks", "gauge", "the group's tasks past its bulkhead", NULL, NULL, GROUPCONC_PROMETHEUS__G(in_flight), GROUPCONC_PROMETHEUS__SIZE},
    {"group_refusing_tasks", "gauge", "the group's refused tasks whose outcome is not decided yet", NULL, NULL, GROUPCONC_PROMETHEUS__G(refusing), GROUPCONC_PROMETHEUS__SIZE},
    {"group_gate_permits", "gauge", "executor gate permits held in the group", NULL, NULL, GROUPCONC_PROMETHEUS__G(gate_permits), GROUPCONC_PROMETHEUS__SIZE},
    {"group_paused", "gauge", "1 while the group is paused (%other: how many are)", NULL, NULL, GROUPCONC_PROMETHEUS__G(paused), GROUPCONC_PROMETHEUS__BOOL},
    {"group_oldest_wait_seconds", "gauge", "age of the group's oldest waiting task (%other: the oldest)", NULL, NULL, GROUPCONC_PROMETHEUS__G(oldest_wait_ns), GROUPCONC_PROMETHEUS__AGE_NS},
    {"group_concurrency_tasks", "gauge", "the group's concurrency limit", NULL, NULL, GROUPCONC_PROMETHEUS__G(concurrency), GROUPCONC_PROMETHEUS__LIMIT},
    {"group_max_in_flight_tasks", "gauge", "the group's bulkhead limit (max_in_flight)", NULL, NULL, GROUPCONC_PROMETHEUS__G(max_in_flight), GROUPCONC_PROMETHEUS__LIMIT},
    {"group_queue_threshold_tasks", "gauge", "the group's queue threshold", NULL, NULL, GROUPCONC_PROMETHEUS__G(queue_threshold), GROUPCONC_PROMETHEUS__LIMIT},
    {"group_max_wait_seconds", "gauge", "the group's queue deadline", NULL, NULL, GROUPCONC_PROMETHEUS__G(max_wait_ns), GROUPCONC_PROMETHEUS__WAIT_NS},
};

#undef GROUPCONC_PROMETHEUS__E
#undef GROUPCONC_PROMETHEUS__G
#undef GROUPCONC_PROMETHEUS__DONE

/* One field of a stats struct, as a number (limits: -1 for unlimited). */
GROUPCONC_PROMETHEUS__PRIVATE int64_t groupconc_prometheus__field(const void *stats,
                                                                 const groupconc_prometheus__metric *m) {
    const char *p = (const char *)stats + m->offset;
    size_t z;
    uint64_t u;
    int64_t i64;
    int i;
    bool b;
    switch (m->kind) {
    case GROUPCONC_PROMETHEUS__SIZE: memcpy(&z, p, sizeof z); return (int64_t)z;
    case GROUPCONC_PROMETHEUS__U64:
    case GROUPCONC_PROMETHEUS__AGE_NS: memcpy(&u, p, sizeof u); return (int64_t)u;
    case GROUPCONC_PROMETHEUS__BOOL: memcpy(&b, p, sizeof b); return b ? 1 : 0;
    case GROUPCONC_PROMETHEUS__LIMIT: memcpy(&i, p, sizeof i); return i < 0 ? -1 : i;
    case GROUPCONC_PROMETHEUS__WAIT_NS: memcpy(&i64, p, sizeof i64); return i64 < 0 ? -1 : i64;
    }
    return 0;
}

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__value(groupconc_prometheus__out *o,
                                                              groupconc_prometheus__kind kind,
                                                              int64_t v) {
    if (v < 0) groupconc_prometheus__puts(o, "+Inf"); /* only limits are negative: unlimited */
    else if (kind == GROUPCONC_PROMETHEUS__AGE_NS || kind == GROUPCONC_PROMETHEUS__WAIT_NS)
        groupconc_prometheus__put_seconds(o, (uint64_t)v);
    else
        groupconc_prometheus__put_u64(o, (uint64_t)v);
}

/* "# HELP P<name> ...\n# TYPE P<name> <type>\n" before the first sample of a metric. */
GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__head(groupconc_prometheus__out *o,
                                                             const char *prefix, bool help,
                                                             const groupconc_prometheus__metric *m) {
    if (help) {
        groupconc_prometheus__puts(o, "# HELP ");
        groupconc_prometheus__puts(o, prefix);
        groupconc_prometheus__puts(o, m->name);
        groupconc_prometheus__puts(o, " ");
        groupconc_prometheus__puts(o, m->help);
        groupconc_prometheus__puts(o, "\n");
    }
    groupconc_prometheus__puts(o, "# TYPE ");
    groupconc_prometheus__puts(o, prefix);
    groupconc_prometheus__puts(o, m->name);
    groupconc_prometheus__puts(o, " ");
    groupconc_prometheus__puts(o, m->type);
    groupconc_prometheus__puts(o, "\n");
}

/* One sample line: P<name>{group="...",<label>="<value>"} <v>. group NULL: no group label;
   other: the "%other" series. */
GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__sample(groupconc_prometheus__out *o,
                                                               const char *prefix,
                                                               const groupconc_prometheus__metric *m,
                                                               const char *group, bool other,
                                                               int64_t v) {
    bool labels = group || other || m->label;
    groupconc_prometheus__puts(o, prefix);
    groupconc_prometheus__puts(o, m->name);
    if (labels) groupconc_prometheus__puts(o, "{");
    if (other) groupconc_prometheus__puts(o, "group=\"%other\"");
    else if (group) {
        groupconc_prometheus__puts(o, "group=\"");
        groupconc_prometheus__escape(o, group);
        groupconc_prometheus__puts(o, "\"");
    }
    if (m->label) {
        if (group || other) groupconc_prometheus__puts(o, ",");
        groupconc_prometheus__puts(o, m->label);
        groupconc_prometheus__puts(o, "=\"");
        groupconc_prometheus__puts(o, m->value);
        groupconc_prometheus__puts(o, "\"");
    }
    if (labels) groupconc_prometheus__puts(o, "}");
    groupconc_prometheus__puts(o, " ");
    groupconc_prometheus__value(o, m->kind, v);
    groupconc_prometheus__puts(o, "\n");
}

/* ==== groups: collect, order busiest first ==== */

typedef struct groupconc_prometheus__row {
    const char *key;               /* into the keys array */
    groupconc_group_stats stats;
    uint64_t busy;                 /* running + ready + waiting, all layers */
} groupconc_prometheus__row;

GROUPCONC_PROMETHEUS__PRIVATE int groupconc_prometheus__busier(const void *a, const void *b) {
    const groupconc_prometheus__row *x = (const groupconc_prometheus__row *)a;
    const groupconc_prometheus__row *y = (const groupconc_prometheus__row *)b;
    if (x->busy != y->busy) return x->busy > y->busy ? -1 : 1;
    if (x->stats.submitted != y->stats.submitted) return x->stats.submitted > y->stats.submitted ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The groups' stats, busiest first, in *out_rows (allocated; NULL when none). A group reclaimed
   between the key list and its stats is left out. */
GROUPCONC_PROMETHEUS__PRIVATE int groupconc_prometheus__collect(groupconc_executor *ex, char ***out_keys,
                                                               groupconc_prometheus__row **out_rows,
                                                               size_t *out_count) {
    char **keys = NULL;
    size_t nkeys = 0, i, n = 0;
    groupconc_prometheus__row *rows = NULL;
    int rc = groupconc_group_keys_get(ex, &keys, &nkeys);
    if (rc != GROUPCONC_OK) goto fail;
    if (nkeys > 0) {
        if (nkeys > (size_t)-1 / sizeof *rows) { rc = GROUPCONC_ENOMEM; goto fail; }
        rows = (groupconc_prometheus__row *)GROUPCONC_PROMETHEUS_MALLOC(nkeys * sizeof *rows);
        if (!rows) { rc = GROUPCONC_ENOMEM; goto fail; }
    }
    for (i = 0; i < nkeys; i++) {
        groupconc_group_stats *st = &rows[n].stats;
        rc = groupconc_group_stats_get(ex, keys[i], st);
        if (rc == GROUPCONC_ENOTFOUND) continue;
        if (rc != GROUPCONC_OK) goto fail;
        rows[n].key = keys[i];
        rows[n].busy = (uint64_t)st->running + st->ready + st->waiting_global + st->waiting_bulkhead +
                       st->waiting_concurrency + st->waiting_running + st->waiting_fleet;
        n++;
    }
    if (n > 1) qsort(rows, n, sizeof *rows, groupconc_prometheus__busier);
    *out_keys = keys;
    *out_rows = rows;
    *out_count = n;
    return GROUPCONC_OK;
fail:
    if (rows) GROUPCONC_PROMETHEUS_FREE(rows);
    groupconc_group_keys_free(keys);
    return rc;
}

/* ==== rendering ==== */

GROUPCONC_PROMETHEUS__PRIVATE int groupconc_prometheus__check(const groupconc_prometheus_config *c) {
    const char *p = c->prefix ? c->prefix : "groupconc_";
    size_t i, n = strlen(p);
    if (n > GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN) return GROUPCONC_PROMETHEUS_EPREFIXLEN;
    for (i = 0; i < n; i++) {
        char ch = p[i];
        bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':';
        if (!alpha && !(i > 0 && ch >= '0' && ch <= '9')) return GROUPCONC_PROMETHEUS_EPREFIX;
    }
    return GROUPCONC_OK;
}

GROUPCONC_PROMETHEUS__PRIVATE void groupconc_prometheus__groups(groupconc_prometheus__out *o,
                                                               const char *prefix, bool help,
                                                               const groupconc_prometheus__row *rows,
                                                               size_t n, size_t listed) {
    size_t m, i, count = sizeof groupconc_prometheus__group_metrics / sizeof groupconc_prometheus__group_metrics[0];
    for (m = 0; m < count; m++) {
        const groupconc_prometheus__metric *d = &groupconc_prometheus__group_metrics[m];
        int64_t other = 0;
        if (d->help) groupconc_prometheus__head(o, prefix, help, d);
        for (i = 0; i < n; i++) {
            int64_t v = groupconc_prometheus__field(&rows[i].stats, d);
            if (i < listed) groupconc_prometheus__sample(o, prefix, d, rows[i].key, false, v);
            else if (d->kind == GROUPCONC_PROMETHEUS__AGE_NS) { if (v > other) other = v; }
            else other += v;
        }
        if (n > listed && d->kind != GROUPCONC_PROMETHEUS__LIMIT && d->kind != GROUPCONC_PROMETHEUS__WAIT_NS)
            groupconc_prometheus__sample(o, prefix, d, NULL, true, other);
    }
}

GROUPCONC_PROMETHEUS__PRIVATE int groupconc_prometheus__render(groupconc_executor *ex,
                                                              const groupconc_prometheus_config *config,
                                                              groupconc_prometheus__out *o) {
    groupconc_prometheus_config c = config ? *config : groupconc_prometheus_config_default();
    const char *prefix = c.prefix ? c.prefix : "groupconc_";
    groupconc_executor_stats es;
    groupconc_prometheus__row *rows = NULL;
    char **keys = NULL;
    size_t n = 0, listed, m, count = sizeof groupconc_prometheus__executor_metrics / sizeof groupconc_prometheus__executor_metrics[0];
    int rc = groupconc_prometheus__check(&c);
    if (rc != GROUPCONC_OK) return rc;
    rc = groupconc_executor_stats_get(ex, &es);
    if (rc != GROUPCONC_OK) return rc;
    rc = groupconc_prometheus__collect(ex, &keys, &rows, &n);
    if (rc != GROUPCONC_OK) return rc;
    listed = n < c.max_groups ? n : c.max_groups;
    for (m = 0; m < count; m++) {
        const groupconc_prometheus__metric *d = &groupconc_prometheus__executor_metrics[m];
        if (d->help) groupconc_prometheus__head(o, prefix, c.help, d);
        groupconc_prometheus__sample(o, prefix, d, NULL, false, groupconc_prometheus__field(&es, d));
    }
    {
        static const groupconc_prometheus__metric listed_metric = {
            "groups_listed", "gauge", "groups listed by name in the group metrics (the rest: group=\"%other\")",
            NULL, NULL, 0, GROUPCONC_PROMETHEUS__SIZE};
        groupconc_prometheus__head(o, prefix, c.help, &listed_metric);
        groupconc_prometheus__sample(o, prefix, &listed_metric, NULL, false, (int64_t)listed);
    }
    groupconc_prometheus__groups(o, prefix, c.help, rows, n, listed);
    if (rows) GROUPCONC_PROMETHEUS_FREE(rows);
    groupconc_group_keys_free(keys);
    return o->err;
}

/* ==== public API ==== */

GROUPCONC_PROMETHEUS_API groupconc_prometheus_config groupconc_prometheus_config_default(void) {
    groupconc_prometheus_config c;
    memset(&c, 0, sizeof c);
    c.prefix = "groupconc_";
    c.max_groups = 50;
    c.help = true;
    return c;
}

GROUPCONC_PROMETHEUS_API int groupconc_prometheus_render(groupconc_executor *ex,
                                                         const groupconc_prometheus_config *config,
                                                         char *buf, size_t size, size_t *out_needed) {
    groupconc_prometheus__out o;
    int rc;
    if (out_needed) *out_needed = 0;
    if (!ex || (!buf && size > 0)) return GROUPCONC_EINVAL;
    memset(&o, 0, sizeof o);
    o.buf = buf;
    o.size = size;
    rc = groupconc_prometheus__render(ex, config, &o);
    if (rc != GROUPCONC_OK) {
        if (size > 0) buf[0] = '\0';
        return rc;
    }
    if (out_needed) *out_needed = o.len + 1;
    if (size > 0) buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len < size ? GROUPCONC_OK : GROUPCONC_ERANGE;
}

GROUPCONC_PROMETHEUS_API int groupconc_prometheus_render_file(groupconc_executor *ex,
                                                              const groupconc_prometheus_config *config,
                                                              FILE *out) {
    groupconc_prometheus__out o;
    if (!ex || !out) return GROUPCONC_EINVAL;
    memset(&o, 0, sizeof o);
    o.file = out;
    return groupconc_prometheus__render(ex, config, &o);
}

GROUPCONC_PROMETHEUS_API int groupconc_prometheus_escape(const char *key, char *buf, size_t size,
                                                         size_t *out_needed) {
    groupconc_prometheus__out o;
    if (out_needed) *out_needed = 0;
    if (!key || (!buf && size > 0)) return GROUPCONC_EINVAL;
    memset(&o, 0, sizeof o);
    o.buf = buf;
    o.size = size;
    groupconc_prometheus__escape(&o, key);
    if (out_needed) *out_needed = o.len + 1;
    if (size > 0) buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len < size ? GROUPCONC_OK : GROUPCONC_ERANGE;
}

/* ==== diagnostics ==== */

GROUPCONC_PROMETHEUS_API const char *groupconc_prometheus_strerror(int code) {
    switch (code) {
#define GROUPCONC_PROMETHEUS__ERR_TEXT(name, value, text) \
    case value: return text;
        GROUPCONC_PROMETHEUS_ERRNO_MAP(GROUPCONC_PROMETHEUS__ERR_TEXT)
#undef GROUPCONC_PROMETHEUS__ERR_TEXT
    default: return groupconc_strerror(code);
    }
}

GROUPCONC_PROMETHEUS_API const char *groupconc_prometheus_errname(int code) {
    switch (code) {
#define GROUPCONC_PROMETHEUS__ERR_NAME(name, value, text) \
    case value: return "GROUPCONC_PROMETHEUS_" #name;
        GROUPCONC_PROMETHEUS_ERRNO_MAP(GROUPCONC_PROMETHEUS__ERR_NAME)
#undef GROUPCONC_PROMETHEUS__ERR_NAME
    default: return groupconc_errname(code);
    }
}

#endif /* GROUPCONC_PROMETHEUS_IMPLEMENTATION */

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
