/* 03_three_layers.c - the three layers, queue thresholds and rejection codes, step by step.

   Shows: a global in-flight cap of 4 with a global queue threshold of 1; group "api" with
   concurrency 2, in-flight cap 3 and queue threshold 1; group "report" with concurrency 1 and
   queue threshold 0 ("run now or be rejected"). Tasks park on a gate, so every state is exact:
   which submit is admitted, which waits at which layer, which is refused and with which code, and
   a rejection that happens later, asynchronously, when a waiting task reaches a full layer. At
   the end the counters show every submitted task completed once, by outcome and layer (a task
   refused in submit under ABORT has no handle, but it is still counted).

   The program compares every line it prints with the expected output below (kept in EXPECTED) and
   exits 1 if any line differs or is missing.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o three_layers examples/03_three_layers.c -lpthread
       ./three_layers
   Expected output (exactly):
       api-1      submit: GROUPCONC_OK
       api-2      submit: GROUPCONC_OK
       api-3      submit: GROUPCONC_OK
       api-4      submit: GROUPCONC_EREJECTED_BULKHEAD
       report-1   submit: GROUPCONC_OK
       report-2   submit: GROUPCONC_OK
       report-3   submit: GROUPCONC_EREJECTED_GLOBAL
       global: in flight 4 of 4, waiting 2
       api:    running 2, waiting at concurrency: 1, in flight 3 of 3
       report: running 1, waiting at global in-flight: 1
       api tasks released
       api-1      SUCCESS
       api-2      SUCCESS
       api-3      SUCCESS
       report-2   REJECTED (reason GROUPCONC_EREJECTED_CONCURRENCY)
       report-1   SUCCESS
       global: in flight 0 of 4, waiting 0
       api:    submitted 4, completed 4: succeeded 3, rejected at global/bulkhead/concurrency: 0/1/0
       report: submitted 3, completed 3: succeeded 1, rejected at global/bulkhead/concurrency: 1/0/1
       all:    submitted 7, completed 7: succeeded 4, failed 0, cancelled 0, rejected 3 + other 0
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const EXPECTED[] = {
    "api-1      submit: GROUPCONC_OK",
    "api-2      submit: GROUPCONC_OK",
    "api-3      submit: GROUPCONC_OK",
    "api-4      submit: GROUPCONC_EREJECTED_BULKHEAD",
    "report-1   submit: GROUPCONC_OK",
    "report-2   submit: GROUPCONC_OK",
    "report-3   submit: GROUPCONC_EREJECTED_GLOBAL",
    "global: in flight 4 of 4, waiting 2",
    "api:    running 2, waiting at concurrency: 1, in flight 3 of 3",
    "report: running 1, waiting at global in-flight: 1",
    "api tasks released",
    "api-1      SUCCESS",
    "api-2      SUCCESS",
    "api-3      SUCCESS",
    "report-2   REJECTED (reason GROUPCONC_EREJECTED_CONCURRENCY)",
    "report-1   SUCCESS",
    "global: in flight 0 of 4, waiting 0",
    "api:    submitted 4, completed 4: succeeded 3, rejected at global/bulkhead/concurrency: 0/1/0",
    "report: submitted 3, completed 3: succeeded 1, rejected at global/bulkhead/concurrency: 1/0/1",
    "all:    submitted 7, completed 7: succeeded 4, failed 0, cancelled 0, rejected 3 + other 0",
};
#define NEXPECTED (sizeof EXPECTED / sizeof EXPECTED[0])

static size_t lines;    /* lines printed so far */
static int mismatches;  /* lines that differ from EXPECTED */

/* Print one line and compare it with the next expected one. */
static void say(const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("%s\n", line);
    if (lines >= NEXPECTED) {
        fprintf(stderr, "line %zu is extra: \"%s\"\n", lines + 1, line);
        mismatches++;
    } else if (strcmp(line, EXPECTED[lines]) != 0) {
        fprintf(stderr, "line %zu differs: expected \"%s\"\n", lines + 1, EXPECTED[lines]);
        mismatches++;
    }
    lines++;
}

static atomic_int gate_open[2]; /* 0: "api" tasks, 1: "report" tasks */
static atomic_int arrived;      /* tasks that started running */

static void nap(void) {
    struct timespec ts = {0, 1000000}; /* 1 ms */
    nanosleep(&ts, NULL);
}

/* A task that waits until its gate opens. Polling keeps the example free of extra threading code. */
static int parked(groupconc_context *ctx, void **out_value, void *arg) {
    atomic_int *gate = arg;
    (void)ctx;
    (void)out_value;
    atomic_fetch_add(&arrived, 1);
    while (!atomic_load(gate)) nap();
    return 0;
}

static void check(int rc, const char *what) {
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "%s failed: %s\n", what, groupconc_strerror(rc));
        exit(EXIT_FAILURE);
    }
}

static groupconc_task *submit(groupconc_executor *ex, const char *group, const char *id) {
    groupconc_task *t = NULL;
    int rc = groupconc_submit(ex, group, id, parked, &gate_open[group[0] == 'r'], &t);
    say("%-10s submit: %s", id, groupconc_errname(rc));
    return t; /* NULL when refused: under ABORT a refused submit creates no handle */
}

static void report(groupconc_task *t) {
    groupconc_result r;
    if (!t) return;
    check(groupconc_task_wait(t, &r), "wait");
    if (r.status == GROUPCONC_STATUS_REJECTED)
        say("%-10s %s (reason %s)", r.task_id, groupconc_status_name(r.status),
            groupconc_errname(r.reason));
    else
        say("%-10s %s", r.task_id, groupconc_status_name(r.status));
    check(groupconc_task_release(t), "release");
}

static void counters(groupconc_executor *ex, const char *label, const char *group) {
    groupconc_group_stats s;
    check(groupconc_group_stats_get(ex, group, &s), "group_stats");
    say("%-7s submitted %llu, completed %llu: succeeded %llu, rejected at global/bulkhead/concurrency: %llu/%llu/%llu",
        label, (unsigned long long)s.submitted, (unsigned long long)s.completed,
        (unsigned long long)s.succeeded, (unsigned long long)s.rejected_global,
        (unsigned long long)s.rejected_bulkhead, (unsigned long long)s.rejected_concurrency);
}

int main(void) {
    static const groupconc_group_limits table[] = {
        /* group     concurrency  max_in_flight  queue_threshold */
        {"api", 2, 3, 1, 0},
        {"report", 1, GROUPCONC_DEFAULT, 0, 0},
    };
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_executor_stats es;
    groupconc_group_stats api, rep;
    groupconc_task *t[7];

    policy.global_max_in_flight = 4;
    policy.global_queue_threshold = 1;
    policy.groups = table;
    policy.group_count = 2;
    policy.rejection = GROUPCONC_REJECT_ABORT;
    check(groupconc_executor_create(&policy, &ex), "executor_create");

    /* global in-flight, bulkhead and concurrency all have a free permit: runs */
    t[0] = submit(ex, "api", "api-1");
    /* runs too (api concurrency 2) */
    t[1] = submit(ex, "api", "api-2");
    /* concurrency full: waits there, using the api queue (1 of 1) */
    t[2] = submit(ex, "api", "api-3");
    /* bulkhead full (3 in flight) and the api queue is full: refused in submit */
    t[3] = submit(ex, "api", "api-4");
    /* the 4th global permit: runs */
    t[4] = submit(ex, "report", "report-1");
    /* global in-flight full: waits there, using the global queue (1 of 1) */
    t[5] = submit(ex, "report", "report-2");
    /* global in-flight full and the global queue is full: refused in submit */
    t[6] = submit(ex, "report", "report-3");
    while (atomic_load(&arrived) < 3) nap(); /* api-1, api-2, report-1 are running */

    check(groupconc_executor_stats_get(ex, &es), "executor_stats");
    check(groupconc_group_stats_get(ex, "api", &api), "group_stats api");
    check(groupconc_group_stats_get(ex, "report", &rep), "group_stats report");
    say("global: in flight %zu of %d, waiting %zu", es.global_in_flight, es.global_max_in_flight,
        es.waiting);
    say("api:    running %zu, waiting at concurrency: %zu, in flight %zu of %d", api.running,
        api.waiting_concurrency, api.in_flight, api.max_in_flight);
    say("report: running %zu, waiting at global in-flight: %zu", rep.running, rep.waiting_global);

    /* The first api task to finish hands its global permit to report-2, which then needs a concurrency
       permit of "report" (held by report-1) with a queue threshold of 0: rejected, asynchronously. */
    atomic_store(&gate_open[0], 1);
    say("api tasks released");
    report(t[0]);
    report(t[1]);
    report(t[2]);
    report(t[3]);
    report(t[5]);
    atomic_store(&gate_open[1], 1);
    report(t[4]);
    report(t[6]);

    check(groupconc_executor_stats_get(ex, &es), "executor_stats");
    say("global: in flight %zu of %d, waiting %zu", es.global_in_flight, es.global_max_in_flight,
        es.waiting);
    counters(ex, "api:", "api");
    counters(ex, "report:", "report");
    say("all:    submitted %llu, completed %llu: succeeded %llu, failed %llu, cancelled %llu, "
        "rejected %llu + other %llu",
        (unsigned long long)es.submitted, (unsigned long long)es.completed,
        (unsigned long long)es.succeeded, (unsigned long long)es.failed,
        (unsigned long long)es.cancelled,
        (unsigned long long)(es.rejected_global + es.rejected_bulkhead + es.rejected_concurrency),
        (unsigned long long)es.rejected_other);
    check(groupconc_executor_destroy(ex), "executor_destroy");

    if (lines < NEXPECTED) {
        fprintf(stderr, "%zu expected lines are missing, from: \"%s\"\n", NEXPECTED - lines,
                EXPECTED[lines]);
        mismatches++;
    }
    if (mismatches) fprintf(stderr, "%d lines differ from the expected output\n", mismatches);
    return mismatches ? EXIT_FAILURE : EXIT_SUCCESS;
}
