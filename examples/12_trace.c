/* 12_trace.c - a multi-tenant workload as a timeline you can open in Perfetto
   (extras/groupconc_trace.h).

   Shows:
   - groupconc_trace_attach chaining to the application's own listener (it still sees every event:
     here it counts the COMPLETED ones);
   - 4 tenants with their caps: "vip:acme" 4 at once, "globex" 2, "initech" 1 with at most 2
     waiting (DISCARD: the rest are rejected), "batch" 1 with a 3 ms queue deadline (tasks that
     wait longer expire); 72 tasks with unique ids, each working 1-4 ms, submitted at once from
     two threads;
   - the trace written as Chrome trace-event JSON: one track per concurrency slot of each tenant
     (runs nest, never overlap on a track), an events track (submitted, rejected, expired) and a
     counter of each tenant's running tasks. Open it in https://ui.perfetto.dev (Open trace file)
     or chrome://tracing.
   It prints one line per tenant (its cap and task count, for tests/trace/check_trace.py, which
   checks the JSON) and exits 1 if an event was dropped, the chained listener missed a task, or a
   count differs.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -D_POSIX_C_SOURCE=200809L -I. -o trace \
           examples/12_trace.c -lpthread
       ./trace trace.json            # no argument: the trace goes to a temporary file
   Expected output (numbers of rejected / expired tasks vary a little):
       group "vip:acme" cap 4 tasks 24
       group "globex" cap 2 tasks 16
       group "initech" cap 1 tasks 16
       group "batch" cap 1 tasks 16
       72 tasks: 52 succeeded, 13 rejected, 7 expired; the listener saw 72 completions
       trace: 216 events recorded, 0 dropped, written to trace.json (61440 bytes)
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_TRACE_IMPLEMENTATION
#include "extras/groupconc_trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NTASKS 72

static const struct tenant {
    const char *name;
    int cap;
    int tasks;
} tenants[] = {{"vip:acme", 4, 24}, {"globex", 2, 16}, {"initech", 1, 16}, {"batch", 1, 16}};

static atomic_int completions; /* the application's own listener */

static void app_listener(const groupconc_event *ev, void *user_data) {
    (void)user_data;
    if (ev->type == GROUPCONC_EVENT_COMPLETED) atomic_fetch_add_explicit(&completions, 1, memory_order_relaxed);
}

static int work(groupconc_context *ctx, void **out_value, void *arg) { /* arg: ms of work */
    struct timespec ts = {0, (long)(size_t)arg * 1000000L};
    (void)ctx, (void)out_value;
    nanosleep(&ts, NULL); /* stands in for I/O */
    return 0;
}

typedef struct submitter {
    groupconc_executor *ex;
    int half;                    /* this thread submits every other task */
    groupconc_task *tasks[NTASKS];
    int rc;
} submitter;

static char ids[NTASKS][32];

static void *submit_half(void *arg) {
    submitter *s = (submitter *)arg;
    int i = 0, t, k;
    for (t = 0; t < 4; t++)
        for (k = 0; k < tenants[t].tasks; k++, i++) {
            if (i % 2 != s->half) continue;
            snprintf(ids[i], sizeof ids[i], "%s-%d", tenants[t].name, k + 1);
            s->rc |= groupconc_submit(s->ex, tenants[t].name, ids[i], work, (void *)(size_t)(1 + i % 4),
                                      &s->tasks[i]);
        }
    return NULL;
}

int main(int argc, char **argv) {
    groupconc_group_limits limits[] = {
        {"vip:acme", 4, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"globex", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"initech", 1, GROUPCONC_DEFAULT, 2, 0},
        {"batch", 1, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, GROUPCONC_MS(3)},
    };
    groupconc_policy policy = groupconc_policy_default();
    groupconc_trace *trace;
    groupconc_trace_stats ts;
    groupconc_executor *ex;
    submitter s[2];
    pthread_t th[2];
    int i, t, ok = 0, rejected = 0, expired = 0, failed = 0;
    FILE *f;
    long bytes;
    policy.groups = limits;
    policy.group_count = 4;
    policy.rejection = GROUPCONC_REJECT_DISCARD;
    policy.max_threads = 8;
    policy.listener = app_listener; /* the trace calls it after recording */
    if (groupconc_trace_create(NULL, &trace) != GROUPCONC_OK || groupconc_trace_attach(trace, &policy) != GROUPCONC_OK ||
        groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) {
        printf("setup failed\n");
        return 1;
    }
    memset(s, 0, sizeof s);
    for (i = 0; i < 2; i++) {
        s[i].ex = ex;
        s[i].half = i;
        pthread_create(&th[i], NULL, submit_half, &s[i]);
    }
    for (i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (i = 0; i < NTASKS; i++) {
        groupconc_result r;
        groupconc_task *task = s[i % 2].tasks[i];
        if (s[i % 2].rc != GROUPCONC_OK || groupconc_task_wait(task, &r) != GROUPCONC_OK) return 1;
        if (r.status == GROUPCONC_STATUS_SUCCESS) ok++;
        else if (r.reason <= GROUPCONC_EEXPIRED_GLOBAL && r.reason >= GROUPCONC_EEXPIRED_RUNNING) expired++;
        else if (r.status == GROUPCONC_STATUS_REJECTED) rejected++;
        groupconc_task_release(task);
    }
    groupconc_executor_destroy(ex);
    for (t = 0; t < 4; t++) printf("group \"%s\" cap %d tasks %d\n", tenants[t].name, tenants[t].cap, tenants[t].tasks);
    printf("%d tasks: %d succeeded, %d rejected, %d expired; the listener saw %d completions\n", NTASKS, ok,
           rejected, expired, atomic_load(&completions));
    f = argc > 1 ? fopen(argv[1], "w") : tmpfile();
    if (!f || groupconc_trace_write_file(trace, f) != GROUPCONC_OK) return 1;
    bytes = ftell(f);
    fclose(f);
    groupconc_trace_stats_get(trace, &ts);
    printf("trace: %zu events recorded, %llu dropped, written to %s (%ld bytes)\n", ts.recorded,
           (unsigned long long)ts.dropped, argc > 1 ? argv[1] : "a temporary file", bytes);
    if (ok + rejected + expired != NTASKS || atomic_load(&completions) != NTASKS || ts.dropped != 0 ||
        ts.recorded < 3 * NTASKS || ok < 40)
        failed = 1;
    groupconc_trace_destroy(trace);
    printf(failed ? "FAILED\n" : "done\n");
    return failed;
}
