/* 01_quick_start.c - per-group caps: VIP tenants run 4 tasks at once, every other tenant 1.

   The resolver gives each group its cap the first time the group is used. Eight tasks are
   submitted, four to "vip:acme" and four to "tenant:bob"; each is waited for and released; then
   each group's stats show its cap and the tasks it ran. Every return code is checked: the first
   one that is not GROUPCONC_OK stops the program, which prints its name and exits 1.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o quick_start examples/01_quick_start.c -lpthread && ./quick_start
   It prints:
       vip:acme: 4 at once, 4 tasks succeeded
       tenant:bob: 1 at once, 4 tasks succeeded
       GROUPCONC_OK
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#include <stdio.h>
#include <string.h>

/* Asked once per group, when the group is first used: how many of its tasks may run at once. */
static int vip_4_others_1(const char *group, int *out_concurrency, void *user_data) {
    (void)user_data;
    *out_concurrency = strncmp(group, "vip:", 4) == 0 ? 4 : 1;
    return 0; /* 0: use *out_concurrency */
}

/* A task: returns 0 for SUCCESS, any other value for FAILED (its parameters are unused here). */
static int work(groupconc_context *ctx, void **out_value, void *arg) {
    return (void)ctx, (void)out_value, (void)arg, 0;
}

int main(void) {
    const char *groups[2] = {"vip:acme", "tenant:bob"};
    groupconc_policy policy = groupconc_policy_default(); /* every group: 1 task at once, */
    policy.resolver = vip_4_others_1;                     /* unless the resolver says more */
    groupconc_executor *ex;
    groupconc_task *tasks[8];
    groupconc_result res;
    groupconc_group_stats st;
    int rc = groupconc_executor_create(&policy, &ex);
    for (int i = 0; i < 8 && rc == GROUPCONC_OK; i++) /* 4 per group, all before any wait */
        rc = groupconc_submit(ex, groups[i % 2], NULL, work, NULL, &tasks[i]);
    for (int i = 0; i < 8 && rc == GROUPCONC_OK; i++) /* then wait for each, and release it */
        if ((rc = groupconc_task_wait(tasks[i], &res)) == GROUPCONC_OK) rc = groupconc_task_release(tasks[i]);
    for (int g = 0; g < 2 && rc == GROUPCONC_OK; g++)
        if ((rc = groupconc_group_stats_get(ex, groups[g], &st)) == GROUPCONC_OK)
            printf("%s: %d at once, %d tasks succeeded\n", groups[g], st.concurrency, (int)st.succeeded);
    if (rc == GROUPCONC_OK) rc = groupconc_executor_destroy(ex);
    printf("%s\n", groupconc_errname(rc));
    return rc == GROUPCONC_OK ? 0 : 1;
}
