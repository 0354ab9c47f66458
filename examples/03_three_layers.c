/* 03_three_layers.c - the three layers, queue thresholds and rejection codes, step by step.

   Shows: a global in-flight cap of 4 with a global queue threshold of 1; group "api" with
   concurrency 2, in-flight cap 3 and queue threshold 1; group "report" with concurrency 1 and
   queue threshold 0 ("run now or be rejected"). Tasks park on a gate, so every state is exact:
   which submit is admitted, which waits at which layer, which is refused and with which code, and
   a rejection that happens later, asynchronously, when a waiting task reaches a full layer.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -o three_layers examples/03_three_layers.c -lpthread
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
       api:    running 2, waiting at layer 3: 1, in flight 3 of 3
       report: running 1, waiting at layer 1: 1
       api tasks released
       api-1      SUCCESS
       api-2      SUCCESS
       api-3      SUCCESS
       report-2   REJECTED (GROUPCONC_EREJECTED_CONCURRENCY)
       report-1   SUCCESS
       global: in flight 0 of 4, waiting 0
*/
#define GROUPCONC_IMPLEMENTATION
#include "../groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_int gate_open[2]; /* 0: "api" tasks, 1: "report" tasks */
static atomic_int arrived;      /* tasks that started running */

static void nap(void) {
    struct timespec ts = {0, 1000000}; /* 1 ms */
    nanosleep(&ts, NULL);
}

/* A task that waits until its gate opens. Polling keeps the example free of extra threading code. */
static int parked(groupconc_context *ctx, void **out_value, void *user_data) {
    atomic_int *gate = user_data;
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

static int mismatches;

static groupconc_task *submit(groupconc_executor *ex, const char *group, const char *id, int want) {
    groupconc_task *t = NULL;
    int rc = groupconc_submit(ex, group, id, parked, &gate_open[group[0] == 'r'], &t);
    printf("%-10s submit: %s\n", id, groupconc_errname(rc));
    if (rc != want) mismatches++;
    return t; /* NULL when refused: under ABORT a refused submit creates no handle */
}

static void report(groupconc_task *t, groupconc_status want) {
    groupconc_result r;
    if (!t) return;
    check(groupconc_task_wait(t, &r), "wait");
    if (r.status != want) mismatches++;
    if (r.status == GROUPCONC_STATUS_REJECTED)
        printf("%-10s %s (%s)\n", r.task_id, groupconc_status_name(r.status), groupconc_errname(r.error));
    else
        printf("%-10s %s\n", r.task_id, groupconc_status_name(r.status));
    check(groupconc_task_release(t), "release");
}

int main(void) {
    static const groupconc_group_limits table[] = {
        /* group     concurrency  max_in_flight  queue_threshold */
        {"api", 2, 3, 1},
        {"report", 1, GROUPCONC_DEFAULT, 0},
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

    /* layers 1, 2, 3 all have a free permit: runs */
    t[0] = submit(ex, "api", "api-1", GROUPCONC_OK);
    /* runs too (api concurrency 2) */
    t[1] = submit(ex, "api", "api-2", GROUPCONC_OK);
    /* layer 3 full: waits there, using the api queue (1 of 1) */
    t[2] = submit(ex, "api", "api-3", GROUPCONC_OK);
    /* layer 2 full (3 in flight) and the api queue is full: refused in submit */
    t[3] = submit(ex, "api", "api-4", GROUPCONC_EREJECTED_BULKHEAD);
    /* the 4th global permit: runs */
    t[4] = submit(ex, "report", "report-1", GROUPCONC_OK);
    /* layer 1 full: waits there, using the global queue (1 of 1) */
    t[5] = submit(ex, "report", "report-2", GROUPCONC_OK);
    /* layer 1 full and the global queue is full: refused in submit */
    t[6] = submit(ex, "report", "report-3", GROUPCONC_EREJECTED_GLOBAL);
    while (atomic_load(&arrived) < 3) nap(); /* api-1, api-2, report-1 are running */

    check(groupconc_executor_stats_get(ex, &es), "executor_stats");
    check(groupconc_group_stats_get(ex, "api", &api), "group_stats api");
    check(groupconc_group_stats_get(ex, "report", &rep), "group_stats report");
    printf("global: in flight %zu of %d, waiting %zu\n", es.global_in_flight, es.global_max_in_flight,
           es.waiting);
    printf("api:    running %zu, waiting at layer 3: %zu, in flight %zu of %d\n", api.running,
           api.waiting_concurrency, api.in_flight, api.max_in_flight);
    printf("report: running %zu, waiting at layer 1: %zu\n", rep.running, rep.waiting_global);

    /* The first api task to finish hands its global permit to report-2, which then needs a layer-3
       permit of "report" (held by report-1) with a queue threshold of 0: rejected, asynchronously. */
    atomic_store(&gate_open[0], 1);
    printf("api tasks released\n");
    report(t[0], GROUPCONC_STATUS_SUCCESS);
    report(t[1], GROUPCONC_STATUS_SUCCESS);
    report(t[2], GROUPCONC_STATUS_SUCCESS);
    report(t[3], GROUPCONC_STATUS_SUCCESS);
    report(t[5], GROUPCONC_STATUS_REJECTED);
    atomic_store(&gate_open[1], 1);
    report(t[4], GROUPCONC_STATUS_SUCCESS);
    report(t[6], GROUPCONC_STATUS_SUCCESS);

    check(groupconc_executor_stats_get(ex, &es), "executor_stats");
    printf("global: in flight %zu of %d, waiting %zu\n", es.global_in_flight, es.global_max_in_flight,
           es.waiting);
    if (es.global_in_flight != 0 || es.waiting != 0) mismatches++;
    check(groupconc_executor_destroy(ex), "executor_destroy");
    if (mismatches) fprintf(stderr, "%d results differ from the expected output above\n", mismatches);
    return mismatches ? EXIT_FAILURE : EXIT_SUCCESS;
}
