/* 08_hedged_request.c - a hedged request: ask three replicas, take the first answer.

   Shows:
   - groupconc_scope_open with SHUTDOWN_ON_SUCCESS: the same read goes to three replicas, each its
     own group; the first success is the scope's result (groupconc_scope_first) and the scope shuts
     down: the slower replicas' calls see groupconc_context_is_cancelled() and stop early;
   - a replica that fails does not end the race: only a success does;
   - when every replica fails, groupconc_scope_join returns GROUPCONC_EFAILED and every failure is
     there to read;
   - groupconc_scope_close waits for the cancelled calls: none outlives the request.
   It exits 1 if any outcome differs from the expected output below.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o hedged examples/08_hedged_request.c -lpthread
       ./hedged
   Expected output:
       read 1: OK, answer "v42" from replica-b (fork 1)
         replica-a: CANCELLED
         replica-b: SUCCESS
         replica-c: FAILED (error 500)
       read 2: GROUPCONC_EFAILED, no replica answered
         replica-a: FAILED (error 503)
         replica-b: FAILED (error 503)
         replica-c: FAILED (error 503)
*/
#define _POSIX_C_SOURCE 200809L
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct replica_call {
    int delay_ms;     /* how long the replica takes */
    int fail_with;    /* non-zero: it fails with this code after the delay */
    const char *answer;
} replica_call;

static int read_replica(groupconc_context *ctx, void **out_value, void *arg) {
    const replica_call *c = (const replica_call *)arg;
    struct timespec ms = {0, 1000000};
    /* a network call waits: said first, the pool starts a worker for the next replica at once (the
       pool keeps to one worker per CPU while tasks compute) */
    if (c->delay_ms > 0) (void)groupconc_context_blocking(ctx);
    for (int i = 0; i < c->delay_ms; i++) {
        if (groupconc_context_is_cancelled(ctx)) return GROUPCONC_TASK_CANCELLED; /* lost the race */
        nanosleep(&ms, NULL);
    }
    if (c->fail_with) return c->fail_with;
    *out_value = (void *)c->answer;
    return 0;
}

static const char *replicas[3] = {"replica-a", "replica-b", "replica-c"};

static int hedged_read(groupconc_executor *ex, int n, const replica_call calls[3], char *out, size_t len) {
    groupconc_scope_config cfg = {GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, NULL, NULL, "hedged read"};
    groupconc_scope *scope;
    size_t used = 0, first;
    groupconc_result r;
    int rc;
    if (groupconc_scope_open(ex, &cfg, &scope) != GROUPCONC_OK) return -100;
    for (int i = 0; i < 3; i++) {
        groupconc_task_spec spec = {replicas[i], NULL, read_replica, (void *)&calls[i], NULL, 0};
        if (groupconc_scope_fork(scope, &spec, NULL) != GROUPCONC_OK) return -100;
    }
    rc = groupconc_scope_join(scope);
    if (rc == GROUPCONC_OK && groupconc_scope_first(scope, &first) == GROUPCONC_OK &&
        groupconc_scope_result(scope, first, &r) == GROUPCONC_OK)
        used += (size_t)snprintf(out + used, len - used, "read %d: OK, answer \"%s\" from %s (fork %zu)\n",
                                 n, (const char *)r.value, r.group, first);
    else
        used += (size_t)snprintf(out + used, len - used, "read %d: %s, no replica answered\n", n,
                                 groupconc_errname(rc));
    for (size_t i = 0; i < 3; i++) {
        if (groupconc_scope_result(scope, i, &r) != GROUPCONC_OK) return -100;
        used += (size_t)snprintf(out + used, len - used, "  %s: %s", r.group, groupconc_status_name(r.status));
        if (r.status == GROUPCONC_STATUS_FAILED)
            used += (size_t)snprintf(out + used, len - used, " (error %d)", r.error);
        used += (size_t)snprintf(out + used, len - used, "\n");
    }
    if (groupconc_scope_close(scope) != GROUPCONC_OK) return -100;
    return rc;
}

int main(void) {
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex;
    char one[512], all[1024] = "";
    policy.max_threads = 4;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return EXIT_FAILURE;
    /* a: slow; b: answers after 50 ms; c: fails at once (a failure does not end the race) */
    const replica_call race[3] = {{5000, 0, "v41"}, {50, 0, "v42"}, {0, 500, NULL}};
    const replica_call down[3] = {{1, 503, NULL}, {2, 503, NULL}, {3, 503, NULL}};
    int rc1 = hedged_read(ex, 1, race, one, sizeof one);
    strcat(all, one);
    int rc2 = hedged_read(ex, 2, down, one, sizeof one);
    strcat(all, one);
    fputs(all, stdout);
    fflush(stdout);
    const char *expected =
        "read 1: OK, answer \"v42\" from replica-b (fork 1)\n"
        "  replica-a: CANCELLED\n"
        "  replica-b: SUCCESS\n"
        "  replica-c: FAILED (error 500)\n"
        "read 2: GROUPCONC_EFAILED, no replica answered\n"
        "  replica-a: FAILED (error 503)\n"
        "  replica-b: FAILED (error 503)\n"
        "  replica-c: FAILED (error 503)\n";
    int ok = rc1 == GROUPCONC_OK && rc2 == GROUPCONC_EFAILED && strcmp(all, expected) == 0;
    if (groupconc_executor_destroy(ex) != GROUPCONC_OK) ok = 0;
    if (!ok) fputs("FAILED: the output differs from the expected output\n", stderr);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
