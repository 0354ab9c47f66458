/* 04_fire_and_forget.c - fire-and-forget tasks that own their argument, freed by a cleanup.

   Shows:
   - groupconc_submit_spec with out_task = NULL (no handle to wait on or release) and a cleanup
     function, so that each task's heap-allocated argument is freed exactly once, whatever becomes
     of the task; here the cleanup is free() plus a count, plain `spec.cleanup = free` otherwise;
   - group "mail" runs 1 at a time: the first task stays running until it is cancelled, and 9 more
     queue behind it;
   - groupconc_group_shutdown removes the 9 queued tasks (CANCELLED, their cleanups run on this
     thread before it returns) and flags the running one, which sees
     groupconc_context_is_cancelled() and returns GROUPCONC_TASK_CANCELLED;
   - the group stays usable: 5 more tasks run and succeed;
   - groupconc_executor_shutdown_graceful waits for all of them; the group's counters and the
     cleanup count are checked: 15 accepted, 15 arguments freed, none while its task ran.
   It exits 1 if any call fails or any count differs.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o fire_and_forget examples/04_fire_and_forget.c -lpthread
       ./fire_and_forget
   Expected output:
       submit_spec x10: GROUPCONC_OK (no handles)
       group_shutdown: GROUPCONC_OK (9 arguments freed by then)
       submit_spec x5: GROUPCONC_OK (no handles)
       shutdown_graceful: GROUPCONC_OK
       mail: submitted 15, completed 15: succeeded 5, cancelled 10, failed 0
       messages sent 5, arguments freed 15 of 15 accepted
       executor_destroy: GROUPCONC_OK
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct message {
    int number;
    bool hold;         /* the first one: keep running until cancelled */
    atomic_int in_use; /* set while the task body uses the message */
    char text[32];
} message;

static atomic_int freed;      /* cleanups run */
static atomic_int sent;       /* task bodies that finished their work */
static atomic_int holding;    /* the held task is running */
static atomic_int let_go;     /* main has counted: the held task may return */
static atomic_int freed_busy; /* cleanups that found their message still in use: must stay 0 */

static void nap(void) {
    struct timespec ts = {0, 1000000}; /* 1 ms */
    nanosleep(&ts, NULL);
}

/* The cleanup: spec.cleanup = free would do; this one also counts, and checks it never runs while
   the task body still uses the message. */
static void free_message(void *arg) {
    message *m = arg;
    if (atomic_load(&m->in_use)) atomic_fetch_add(&freed_busy, 1);
    atomic_fetch_add(&freed, 1);
    free(m);
}

static int send_message(groupconc_context *ctx, void **out_value, void *arg) {
    message *m = arg;
    (void)out_value;
    atomic_store(&m->in_use, 1);
    if (m->hold) {
        atomic_store(&holding, 1);
        /* Stay until cancelled, then until main has counted the cleanups (at most 10 s each, so
           that a bug cannot hang the example). */
        for (int i = 0; i < 10000 && !groupconc_context_is_cancelled(ctx); i++) nap();
        for (int i = 0; i < 10000 && !atomic_load(&let_go); i++) nap();
        atomic_store(&m->in_use, 0);
        return groupconc_context_is_cancelled(ctx) ? GROUPCONC_TASK_CANCELLED : -1;
    }
    /* "send" it: a real task would write m->text to a socket here. */
    atomic_fetch_add(&sent, 1);
    atomic_store(&m->in_use, 0);
    return 0;
}

/* Submit `n` messages without handles. Returns how many were accepted. */
static int submit_messages(groupconc_executor *ex, int first, int n) {
    int accepted = 0, rc = GROUPCONC_OK;
    for (int i = 0; i < n; i++) {
        message *m = calloc(1, sizeof *m);
        if (!m) break;
        m->number = first + i;
        m->hold = m->number == 1;
        snprintf(m->text, sizeof m->text, "message %d", m->number);
        groupconc_task_spec spec = {.group = "mail", .fn = send_message, .arg = m,
                                    .cleanup = free_message};
        rc = groupconc_submit_spec(ex, &spec, NULL);
        if (rc != GROUPCONC_OK) {
            free(m); /* not accepted: no cleanup will run, the message is still ours */
            fprintf(stderr, "submit_spec: %s\n", groupconc_strerror(rc));
            break;
        }
        accepted++;
    }
    printf("submit_spec x%d: %s (no handles)\n", accepted, groupconc_errname(rc));
    return accepted;
}

int main(void) {
    groupconc_policy policy = groupconc_policy_default();
    policy.default_concurrency = 1; /* "mail" sends one message at a time */
    groupconc_executor *ex;
    int rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "executor_create: %s\n", groupconc_strerror(rc));
        return EXIT_FAILURE;
    }
    int ok = 1;

    int accepted = submit_messages(ex, 1, 10);
    for (int i = 0; i < 30000 && !atomic_load(&holding); i++) nap(); /* at most ~30 s */
    if (!atomic_load(&holding)) { /* message 1 never started */
        fprintf(stderr, "message 1 did not start\n");
        return EXIT_FAILURE;
    }
    /* message 1 is running, 2..10 wait for the permit */

    rc = groupconc_group_shutdown(ex, "mail");
    printf("group_shutdown: %s (%d arguments freed by then)\n", groupconc_errname(rc),
           atomic_load(&freed));
    if (rc != GROUPCONC_OK || atomic_load(&freed) != 9) ok = 0;
    atomic_store(&let_go, 1); /* the flagged message 1 now returns GROUPCONC_TASK_CANCELLED */

    accepted += submit_messages(ex, 11, 5);

    rc = groupconc_executor_shutdown_graceful(ex, GROUPCONC_SEC(30));
    printf("shutdown_graceful: %s\n", groupconc_errname(rc));
    if (rc != GROUPCONC_OK) ok = 0;

    groupconc_group_stats st;
    rc = groupconc_group_stats_get(ex, "mail", &st);
    if (rc == GROUPCONC_OK) {
        printf("mail: submitted %llu, completed %llu: succeeded %llu, cancelled %llu, failed %llu\n",
               (unsigned long long)st.submitted, (unsigned long long)st.completed,
               (unsigned long long)st.succeeded, (unsigned long long)st.cancelled,
               (unsigned long long)st.failed);
        if (st.submitted != 15 || st.completed != 15 || st.succeeded != 5 || st.cancelled != 10 ||
            st.failed != 0)
            ok = 0;
    } else {
        printf("group_stats_get: %s\n", groupconc_errname(rc));
        ok = 0;
    }

    printf("messages sent %d, arguments freed %d of %d accepted\n", atomic_load(&sent),
           atomic_load(&freed), accepted);
    if (accepted != 15 || atomic_load(&sent) != 5 || atomic_load(&freed) != accepted) ok = 0;
    if (atomic_load(&freed_busy) != 0) {
        printf("%d cleanups ran while their task still used the message\n", atomic_load(&freed_busy));
        ok = 0;
    }

    rc = groupconc_executor_destroy(ex);
    printf("executor_destroy: %s\n", groupconc_errname(rc));
    if (rc != GROUPCONC_OK) ok = 0;
    if (!ok) fprintf(stderr, "04_fire_and_forget: a result differs from the expected output\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
