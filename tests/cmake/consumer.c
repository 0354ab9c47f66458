/* consumer.c - the program of the CMake consumer project (tests/cmake/CMakeLists.txt): groupconc.h
   and an extra header found through the target groupconc::groupconc alone; runs tasks in two groups
   and renders their metrics. Exits 0 when every task succeeded and the metrics name both groups. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION
#include "extras/groupconc_prometheus.h"

#include <stdio.h>
#include <string.h>

static int work(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    *out_value = arg;
    return 0;
}

int main(void) {
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *tasks[8];
    groupconc_result r;
    char text[16384];
    int ok = 0, i;
    policy.default_concurrency = 2;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return 1;
    for (i = 0; i < 8; i++)
        if (groupconc_submit(ex, i % 2 ? "tenant-a" : "tenant-b", NULL, work, NULL, &tasks[i]) != GROUPCONC_OK)
            return 1;
    for (i = 0; i < 8; i++) {
        if (groupconc_task_wait(tasks[i], &r) == GROUPCONC_OK && r.status == GROUPCONC_STATUS_SUCCESS) ok++;
        groupconc_task_release(tasks[i]);
    }
    if (groupconc_prometheus_render(ex, NULL, text, sizeof text, NULL) != GROUPCONC_OK) return 1;
    groupconc_executor_destroy(ex);
    printf("groupconc %s: %d of 8 tasks succeeded\n", groupconc_version(), ok);
    return ok == 8 && strstr(text, "group=\"tenant-a\"") && strstr(text, "group=\"tenant-b\"") ? 0 : 1;
}
