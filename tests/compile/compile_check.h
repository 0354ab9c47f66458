/* compile_check.h - shared body of the compile checks in this directory.

   compile_check_run(label) drives the API that the including translation unit sees (extern, or the
   private GROUPCONC_STATIC copy): create an executor, run one task, check its value, destroy.
   It prints "<label>: ok (...)" and returns 0, or prints what went wrong and returns 1.
   Include it after groupconc.h. */
#ifndef COMPILE_CHECK_H
#define COMPILE_CHECK_H

#include <stdio.h>
#include <string.h>

static int compile_check_task(groupconc_context *ctx, void **out_value, void *arg) {
    if (groupconc_context_is_cancelled(ctx)) return GROUPCONC_TASK_CANCELLED;
    *out_value = arg;
    return 0;
}

static int compile_check_fail(const char *label, const char *what, int rc) {
    fprintf(stderr, "%s: %s: %s (%s)\n", label, what, groupconc_errname(rc), groupconc_strerror(rc));
    return 1;
}

static int compile_check_run(const char *label) {
    static int value = 7;
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex = NULL;
    groupconc_task *task = NULL;
    groupconc_result res;
    int rc;

    if (strcmp(groupconc_version(), GROUPCONC_VERSION_STRING) != 0) {
        fprintf(stderr, "%s: header %s, implementation %s\n", label, GROUPCONC_VERSION_STRING,
                groupconc_version());
        return 1;
    }
    rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) return compile_check_fail(label, "executor_create", rc);
    rc = groupconc_submit(ex, "compile-check", label, compile_check_task, &value, &task);
    if (rc != GROUPCONC_OK) {
        groupconc_executor_destroy(ex);
        return compile_check_fail(label, "submit", rc);
    }
    rc = groupconc_task_wait(task, &res);
    if (rc != GROUPCONC_OK) return compile_check_fail(label, "task_wait", rc);
    if (res.status != GROUPCONC_STATUS_SUCCESS || res.value != &value ||
        strcmp(res.group, "compile-check") != 0 || res.end_ns < res.start_ns) {
        fprintf(stderr, "%s: unexpected result: status %s, error %s\n", label,
                groupconc_status_name(res.status), groupconc_errname(res.error));
        return 1;
    }
    rc = groupconc_task_release(task);
    if (rc != GROUPCONC_OK) return compile_check_fail(label, "task_release", rc);
    rc = groupconc_executor_destroy(ex);
    if (rc != GROUPCONC_OK) return compile_check_fail(label, "executor_destroy", rc);
    printf("%s: ok (groupconc %s, __STDC_VERSION__ %ld)\n", label, groupconc_version(),
           (long)__STDC_VERSION__);
    return 0;
}

#endif /* COMPILE_CHECK_H */
