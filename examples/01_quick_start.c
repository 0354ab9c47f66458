/* 01_quick_start.c - the smallest complete groupconc program.

   Shows: create an executor with the default policy, submit one task to group "tenant-a", wait for
   its result, release the handle, destroy the executor; every return code is checked and printed.
   Exits non-zero if a call fails or the result is not SUCCESS with the value 42.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o quick_start examples/01_quick_start.c -lpthread
       ./quick_start
   Expected output:
       executor_create: GROUPCONC_OK
       submit: GROUPCONC_OK
       task_wait: GROUPCONC_OK
       job-1 in tenant-a: SUCCESS, value 42
       task_release: GROUPCONC_OK
       executor_destroy: GROUPCONC_OK
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdio.h>
#include <stdlib.h>

/* A task: store a result value, return 0 for success. */
static int answer(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    *out_value = arg;
    return 0;
}

static void check(int rc, const char *what) {
    printf("%s: %s\n", what, groupconc_errname(rc));
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "%s failed: %s\n", what, groupconc_strerror(rc));
        exit(EXIT_FAILURE);
    }
}

int main(void) {
    static int value = 42;
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *task;
    groupconc_result res;

    check(groupconc_executor_create(&policy, &ex), "executor_create");
    check(groupconc_submit(ex, "tenant-a", "job-1", answer, &value, &task), "submit");
    check(groupconc_task_wait(task, &res), "task_wait");
    int ok = res.status == GROUPCONC_STATUS_SUCCESS && res.value == &value;
    printf("%s in %s: %s, value %d\n", res.task_id, res.group, groupconc_status_name(res.status),
           ok ? *(const int *)res.value : 0);
    check(groupconc_task_release(task), "task_release");
    check(groupconc_executor_destroy(ex), "executor_destroy");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
