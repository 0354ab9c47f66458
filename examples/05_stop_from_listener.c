/* 05_stop_from_listener.c - stop the executor from a listener once the last job is done.

   Shows:
   - the main thread submits 8 jobs fire-and-forget (no handles) to two groups and does not know
     when they finish; the listener does: it counts COMPLETED events;
   - on the last one the listener calls groupconc_executor_shutdown_graceful. A listener runs on
     the executor's own thread and cannot wait for a shutdown that waits for it, so the call begins
     the graceful shutdown (no new tasks accepted; anything queued would still run) and returns
     GROUPCONC_EDEADLK at once: "begun, not waited";
   - the main thread sees the stop request and finds that a submit now returns GROUPCONC_ESHUTDOWN;
     it calls groupconc_executor_shutdown_graceful itself, which from outside the executor does
     wait (had anything still been queued, it would run to the end here; groupconc_executor_destroy
     alone would wait for it too, since the graceful shutdown has begun), then destroys the
     executor.
   It exits 1 if any call or count differs from the expected output.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o stop_from_listener examples/05_stop_from_listener.c -lpthread
       ./stop_from_listener
   Expected output:
       submit x8: GROUPCONC_OK
       listener: 8 of 8 jobs completed, shutdown_graceful: GROUPCONC_EDEADLK (shutdown begun)
       stats: shutdown true, submitted 8, succeeded 8
       submit after the stop: GROUPCONC_ESHUTDOWN
       shutdown_graceful (main thread): GROUPCONC_OK
       executor_destroy: GROUPCONC_OK
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NJOBS 8

typedef struct app {
    _Atomic(groupconc_executor *) ex; /* set before the first submit */
    atomic_int completed;             /* COMPLETED events seen */
    atomic_int succeeded;             /* ... with status SUCCESS */
    atomic_int stop_calls;            /* how many times the listener asked for the stop */
    atomic_int stop_rc;               /* what shutdown_graceful returned inside the listener */
    atomic_int stop_requested;        /* main thread: time to destroy */
} app;

static void nap(void) {
    struct timespec ts = {0, 1000000}; /* 1 ms */
    nanosleep(&ts, NULL);
}

/* A job: a few ms of "work". */
static int job(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    struct timespec ts = {0, 3000000}; /* 3 ms */
    nanosleep(&ts, NULL);
    return 0;
}

static void on_event(const groupconc_event *ev, void *user_data) {
    app *a = user_data;
    if (ev->type != GROUPCONC_EVENT_COMPLETED) return;
    if (ev->result->status == GROUPCONC_STATUS_SUCCESS) atomic_fetch_add(&a->succeeded, 1);
    if (atomic_fetch_add(&a->completed, 1) + 1 == NJOBS) {
        /* The last job: stop. From inside a callback this cannot wait, so it only begins the
           graceful shutdown and says so with GROUPCONC_EDEADLK. */
        int rc = groupconc_executor_shutdown_graceful(atomic_load(&a->ex), GROUPCONC_FOREVER);
        atomic_store(&a->stop_rc, rc);
        atomic_fetch_add(&a->stop_calls, 1);
        atomic_store(&a->stop_requested, 1);
    }
}

int main(void) {
    static app a; /* static: zero-initialised atomics */
    groupconc_policy policy = groupconc_policy_default();
    policy.default_concurrency = 2;
    policy.listener = on_event;
    policy.listener_user_data = &a;
    int ok = 1;

    groupconc_executor *ex;
    int rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "executor_create: %s\n", groupconc_strerror(rc));
        return EXIT_FAILURE;
    }
    atomic_store(&a.ex, ex);

    int submitted = 0;
    for (int i = 0; i < NJOBS; i++) {
        rc = groupconc_submit(ex, i % 2 ? "reports" : "exports", NULL, job, NULL, NULL);
        if (rc != GROUPCONC_OK) break;
        submitted++;
    }
    printf("submit x%d: %s\n", submitted, groupconc_errname(rc));
    if (submitted != NJOBS) ok = 0;

    /* Wait for the listener's stop request (at most 10 s: a bug must not hang the example). */
    for (int i = 0; i < 10000 && !atomic_load(&a.stop_requested); i++) nap();
    rc = atomic_load(&a.stop_rc);
    printf("listener: %d of %d jobs completed, shutdown_graceful: %s (%s)\n",
           atomic_load(&a.completed), NJOBS, groupconc_errname(rc),
           rc == GROUPCONC_EDEADLK ? "shutdown begun" : "unexpected");
    if (!atomic_load(&a.stop_requested) || rc != GROUPCONC_EDEADLK) ok = 0;

    groupconc_executor_stats st;
    rc = groupconc_executor_stats_get(ex, &st);
    if (rc == GROUPCONC_OK) {
        printf("stats: shutdown %s, submitted %llu, succeeded %llu\n", st.shutdown ? "true" : "false",
               (unsigned long long)st.submitted, (unsigned long long)st.succeeded);
        if (!st.shutdown || st.submitted != NJOBS || st.succeeded != NJOBS) ok = 0;
    } else {
        printf("executor_stats_get: %s\n", groupconc_errname(rc));
        ok = 0;
    }

    rc = groupconc_submit(ex, "exports", NULL, job, NULL, NULL);
    printf("submit after the stop: %s\n", groupconc_errname(rc));
    if (rc != GROUPCONC_ESHUTDOWN) ok = 0;

    /* Outside the executor the same call waits for whatever is left (nothing here: the listener
       stopped after the last job). Destroy alone would cancel queued tasks that had not started. */
    rc = groupconc_executor_shutdown_graceful(ex, GROUPCONC_SEC(30));
    printf("shutdown_graceful (main thread): %s\n", groupconc_errname(rc));
    if (rc != GROUPCONC_OK) ok = 0;

    rc = groupconc_executor_destroy(ex);
    printf("executor_destroy: %s\n", groupconc_errname(rc));
    if (rc != GROUPCONC_OK) ok = 0;
    if (atomic_load(&a.stop_calls) != 1 || atomic_load(&a.succeeded) != NJOBS) ok = 0;
    if (!ok) fprintf(stderr, "05_stop_from_listener: a result differs from the expected output\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
