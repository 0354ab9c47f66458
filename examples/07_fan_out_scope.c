/* 07_fan_out_scope.c - a request handler that fans out to three backends in a structured scope.

   Shows:
   - groupconc_scope_open with SHUTDOWN_ON_FAILURE: one request forks three calls, each into its
     backend's group with its own cap ("users" 2, "orders" 2, "stock" 1), so the caps hold however
     many requests fan out at once;
   - the happy path: all three succeed, groupconc_scope_join returns OK, every result is read
     without blocking (groupconc_scope_result);
   - the failing path: "stock" fails at once; the scope shuts down: the slow "users" and "orders"
     calls (which watch groupconc_context_is_cancelled) are flagged and stop, or dequeued if they
     had not started; join returns GROUPCONC_EFAILED and groupconc_scope_first names the failure;
   - groupconc_scope_close always waits for every fork: no fork outlives its request.
   It exits 1 if any outcome differs from the expected output below.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o fan_out examples/07_fan_out_scope.c -lpthread
       ./fan_out
   Expected output:
       request 1: join OK
         users: SUCCESS "alice"
         orders: SUCCESS "3 orders"
         stock: SUCCESS "in stock"
       request 2: join GROUPCONC_EFAILED (first failure: fork 2, stock)
         users: CANCELLED
         orders: CANCELLED
         stock: FAILED (error 503)
*/
#define _POSIX_C_SOURCE 200809L
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct call {
    const char *answer; /* what the backend returns on success */
    int fail_with;      /* non-zero: fail at once with this code */
    int slow_ms;        /* how long it takes (checking for cancellation every ms) */
} call;

static int backend_call(groupconc_context *ctx, void **out_value, void *arg) {
    const call *c = (const call *)arg;
    struct timespec ms = {0, 1000000};
    if (c->fail_with) return c->fail_with;
    for (int i = 0; i < c->slow_ms; i++) {
        if (groupconc_context_is_cancelled(ctx)) return GROUPCONC_TASK_CANCELLED;
        nanosleep(&ms, NULL);
    }
    *out_value = (void *)c->answer;
    return 0;
}

static const char *backends[3] = {"users", "orders", "stock"};

/* One request: fan out, join, print, close. Returns the join code, or -100 on a surprise. */
static int handle_request(groupconc_executor *ex, int n, const call calls[3], char *report, size_t len) {
    groupconc_scope_config cfg = {GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, NULL, NULL, "request"};
    groupconc_scope *scope;
    size_t used = 0, first;
    int rc = groupconc_scope_open(ex, &cfg, &scope);
    if (rc != GROUPCONC_OK) return -100;
    for (int i = 0; i < 3; i++) {
        groupconc_task_spec spec = {backends[i], NULL, backend_call, (void *)&calls[i], NULL, 0};
        if (groupconc_scope_fork(scope, &spec, NULL) != GROUPCONC_OK) return -100;
    }
    rc = groupconc_scope_join(scope);
    used += (size_t)snprintf(report + used, len - used, "request %d: join %s", n,
                             rc == GROUPCONC_OK ? "OK" : groupconc_errname(rc));
    if (groupconc_scope_first(scope, &first) == GROUPCONC_OK)
        used += (size_t)snprintf(report + used, len - used, " (first failure: fork %zu, %s)", first,
                                 backends[first]);
    used += (size_t)snprintf(report + used, len - used, "\n");
    for (size_t i = 0; i < 3; i++) {
        groupconc_result r;
        if (groupconc_scope_result(scope, i, &r) != GROUPCONC_OK) return -100; /* never blocks */
        used += (size_t)snprintf(report + used, len - used, "  %s: %s", r.group,
                                 groupconc_status_name(r.status));
        if (r.status == GROUPCONC_STATUS_SUCCESS)
            used += (size_t)snprintf(report + used, len - used, " \"%s\"", (const char *)r.value);
        if (r.status == GROUPCONC_STATUS_FAILED)
            used += (size_t)snprintf(report + used, len - used, " (error %d)", r.error);
        used += (size_t)snprintf(report + used, len - used, "\n");
    }
    if (groupconc_scope_close(scope) != GROUPCONC_OK) return -100; /* waits for every fork */
    return rc;
}

int main(void) {
    groupconc_group_limits caps[] = {{"users", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
                                     {"orders", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
                                     {"stock", 1, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0}};
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex;
    char report[1024], all[2048] = "";
    policy.groups = caps;
    policy.group_count = 3;
    policy.max_threads = 4;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return EXIT_FAILURE;

    const call good[3] = {{"alice", 0, 5}, {"3 orders", 0, 5}, {"in stock", 0, 1}};
    const call bad[3] = {{"alice", 0, 5000}, {"3 orders", 0, 5000}, {NULL, 503, 0}};
    int rc1 = handle_request(ex, 1, good, report, sizeof report);
    strcat(all, report);
    int rc2 = handle_request(ex, 2, bad, report, sizeof report);
    strcat(all, report);
    fputs(all, stdout);
    fflush(stdout);

    const char *expected =
        "request 1: join OK\n"
        "  users: SUCCESS \"alice\"\n"
        "  orders: SUCCESS \"3 orders\"\n"
        "  stock: SUCCESS \"in stock\"\n"
        "request 2: join GROUPCONC_EFAILED (first failure: fork 2, stock)\n"
        "  users: CANCELLED\n"
        "  orders: CANCELLED\n"
        "  stock: FAILED (error 503)\n";
    int ok = rc1 == GROUPCONC_OK && rc2 == GROUPCONC_EFAILED && strcmp(all, expected) == 0;
    if (groupconc_executor_destroy(ex) != GROUPCONC_OK) ok = 0;
    if (!ok) fputs("FAILED: the output differs from the expected output\n", stderr);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
