/* 02_multi_tenant.c - per-tenant caps from a resolver and a table, drawn as a timeline.

   Shows:
   - a resolver that gives VIP tenants ("vip:acme", "vip:globex") 4 tasks at once; it reports
     "no answer" for any other tenant, which then gets the policy default of 1;
   - the explicit per-group table giving the "db-write" group 2 at once;
   - every task sleeps a few ms; all are submitted at once, and an ASCII timeline drawn from each
     result's start_ns/end_ns shows the caps at work: per tenant, no more bars overlap than its cap;
   - the peak concurrency observed per group, checked against the cap: it must never be exceeded,
     and with this many tasks submitted at once every group must reach it;
   - the group's counters agree: every task submitted, completed and succeeded.
   The demo exits 0 only if every call returned GROUPCONC_OK, every task succeeded, and every group
   ran exactly up to its cap; otherwise it says what differed and exits 1. Reaching a cap needs the
   tasks to overlap in time, which the OS decides: on a busy machine a round where a group fell
   short of its cap (and none went over) is run again, up to 3 rounds.

   Build and run from the repository root (nothing but a C11 compiler needed):
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o demo examples/02_multi_tenant.c -lpthread
       ./demo
   Expected output (the bars shift a little from run to run; "..." marks rows left out here):
       executor_create: GROUPCONC_OK
       submit x26: GROUPCONC_OK
       task_wait x26: GROUPCONC_OK (26 SUCCESS)

       '#' running, '.' waiting for a permit (all 26 tasks were submitted at 0 ms); 1 column = 1 ms
       group / task        0         10        20        30        40
                           |         |         |         |         |
       vip:acme            concurrency 4
         acme-1            ####################
         ...
         acme-4            ####################
         acme-5            ....................####################
         ...
         acme-8            ....................####################
       vip:globex          concurrency 4
         ...
       tenant:initech      concurrency 1
         initech-1         ############
         initech-2         ............############
         initech-3         ........................############
       tenant:hooli        concurrency 1
         ...
       db-write            concurrency 2
         write-1           ##########
         write-2           ##########
         write-3           ..........##########
         write-4           ..........##########
         write-5           ....................##########
         write-6           ....................##########
       peak concurrency observed (from the recorded start/end times):
         vip:acme          4 of 4
         vip:globex        4 of 4
         tenant:initech    1 of 1
         tenant:hooli      1 of 1
         db-write          2 of 2
       executor_destroy: GROUPCONC_OK
*/
/* The header comes first: in a strict -std=c11 build it turns on the POSIX declarations
   (clock_gettime, nanosleep) before any system header is read. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct demo_task {
    const char *group;
    const char *id;
    int ms; /* how long the task sleeps */
} demo_task;

static const demo_task TASKS[] = {
    {"vip:acme", "acme-1", 20},   {"vip:acme", "acme-2", 20},   {"vip:acme", "acme-3", 20},
    {"vip:acme", "acme-4", 20},   {"vip:acme", "acme-5", 20},   {"vip:acme", "acme-6", 20},
    {"vip:acme", "acme-7", 20},   {"vip:acme", "acme-8", 20},
    {"vip:globex", "globex-1", 15}, {"vip:globex", "globex-2", 15}, {"vip:globex", "globex-3", 15},
    {"vip:globex", "globex-4", 15}, {"vip:globex", "globex-5", 15}, {"vip:globex", "globex-6", 15},
    {"tenant:initech", "initech-1", 12}, {"tenant:initech", "initech-2", 12},
    {"tenant:initech", "initech-3", 12},
    {"tenant:hooli", "hooli-1", 10}, {"tenant:hooli", "hooli-2", 10}, {"tenant:hooli", "hooli-3", 10},
    {"db-write", "write-1", 10},  {"db-write", "write-2", 10},  {"db-write", "write-3", 10},
    {"db-write", "write-4", 10},  {"db-write", "write-5", 10},  {"db-write", "write-6", 10},
};
#define NTASKS (sizeof TASKS / sizeof TASKS[0])

static const char *const GROUPS[] = {"vip:acme", "vip:globex", "tenant:initech", "tenant:hooli",
                                     "db-write"};
/* The cap each group must get: resolver (VIP), policy default (others), table (db-write). */
static const int EXPECTED_CAP[] = {4, 4, 1, 1, 2};
#define NGROUPS (sizeof GROUPS / sizeof GROUPS[0])

#define MAX_COLUMNS 64

/* VIP tenants run 4 at once. Returning non-zero means "no answer": the policy default applies. */
static int vip_resolver(const char *group, int *out_concurrency, void *user_data) {
    (void)user_data;
    if (strncmp(group, "vip:", 4) == 0) {
        *out_concurrency = 4;
        return 0;
    }
    return -1;
}

/* The work: sleep for the task's number of milliseconds. It says so first: the pool (one worker
   per CPU while tasks compute) then starts a worker for the next task at once. */
static int sleepy_task(groupconc_context *ctx, void **out_value, void *arg) {
    const demo_task *t = arg;
    struct timespec ts = {0, (long)t->ms * 1000000L};
    (void)out_value;
    (void)groupconc_context_blocking(ctx);
    while (nanosleep(&ts, &ts) != 0) {
        /* interrupted by a signal: sleep for the rest */
    }
    return 0;
}

static int check(int rc, const char *what) {
    if (rc != GROUPCONC_OK) {
        printf("%s: %s (%s)\n", what, groupconc_errname(rc), groupconc_strerror(rc));
    }
    return rc == GROUPCONC_OK;
}

/* Most tasks of `group` whose [start, end) intervals overlap at one instant. */
static int peak_concurrency(const char *group, const groupconc_result *res) {
    int peak = 0;
    for (size_t i = 0; i < NTASKS; i++) {
        if (strcmp(TASKS[i].group, group) != 0) continue;
        int n = 0;
        for (size_t j = 0; j < NTASKS; j++) {
            if (strcmp(TASKS[j].group, group) == 0 && res[j].start_ns <= res[i].start_ns &&
                res[i].start_ns < res[j].end_ns) {
                n++;
            }
        }
        if (n > peak) peak = n;
    }
    return peak;
}

static void print_timeline(const groupconc_result *res, const int *caps) {
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < NTASKS; i++) {
        if (res[i].start_ns < t0) t0 = res[i].start_ns;
        if (res[i].end_ns > t1) t1 = res[i].end_ns;
    }
    /* A round column width (0.5, 1, 2, 5, 10, ... ms) that fits the run into MAX_COLUMNS. */
    static const uint64_t steps[] = {500000u, 1000000u, 2000000u, 5000000u, 10000000u, 20000000u,
                                     50000000u, 100000000u, 1000000000u};
    uint64_t step = steps[0];
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        step = steps[s];
        if ((t1 - t0) / step < MAX_COLUMNS) break;
    }
    size_t columns = (size_t)((t1 - t0) / step) + 1;
    if (columns > MAX_COLUMNS) columns = MAX_COLUMNS;

    printf("\n'#' running, '.' waiting for a permit (all %zu tasks were submitted at 0 ms); "
           "1 column = %g ms\n", NTASKS, (double)step / 1e6);
    char ticks[MAX_COLUMNS + 16], labels[MAX_COLUMNS + 16];
    memset(ticks, ' ', sizeof ticks);
    memset(labels, ' ', sizeof labels);
    for (size_t c = 0; c < columns; c += 10) {
        char num[16];
        int len = snprintf(num, sizeof num, "%g", (double)(c * step) / 1e6);
        ticks[c] = '|';
        memcpy(labels + c, num, (size_t)len);
    }
    ticks[columns] = '\0';
    size_t end = columns + 8;
    while (end > 0 && labels[end - 1] == ' ') end--;
    labels[end] = '\0';
    printf("%-20s%s\n%-20s%s\n", "group / task", labels, "", ticks);

    for (size_t g = 0; g < NGROUPS; g++) {
        printf("%-20sconcurrency %d\n", GROUPS[g], caps[g]);
        for (size_t i = 0; i < NTASKS; i++) {
            if (strcmp(TASKS[i].group, GROUPS[g]) != 0) continue;
            char bar[MAX_COLUMNS + 1];
            size_t from = (size_t)((res[i].start_ns - t0) / step);
            size_t to = (size_t)((res[i].end_ns - t0) / step); /* floor: back-to-back bars touch */
            if (to <= from) to = from + 1;
            if (to > columns) to = columns;
            memset(bar, ' ', sizeof bar);
            memset(bar, '.', from);
            memset(bar + from, '#', to - from);
            bar[to] = '\0';
            printf("  %-18s%s\n", TASKS[i].id, bar);
        }
    }
}

/* One round: a fresh executor, all tasks submitted at once, waited for, checked, and drawn.
   Returns ROUND_OK, ROUND_FAILED, or ROUND_SHORT: every check held but some group never ran as many
   tasks at once as its cap allows (its tasks did not overlap in time: the OS ran the workers late,
   a busy machine). A cap exceeded is always ROUND_FAILED. A short round that may be run again
   (`last` false) prints one line instead of its timeline. */
enum { ROUND_OK, ROUND_FAILED, ROUND_SHORT };

static int demo_round(const groupconc_policy *policy, int last) {
    groupconc_executor *ex;
    int rc = groupconc_executor_create(policy, &ex);
    if (!check(rc, "executor_create")) return ROUND_FAILED;
    printf("executor_create: %s\n", groupconc_errname(rc));

    int ok = 1;
    size_t submitted = 0;
    groupconc_task *handles[NTASKS];
    for (size_t i = 0; i < NTASKS; i++) {
        rc = groupconc_submit(ex, TASKS[i].group, TASKS[i].id, sleepy_task, (void *)&TASKS[i],
                              &handles[i]);
        if (!check(rc, "submit")) {
            ok = 0;
            break;
        }
        submitted++;
    }
    printf("submit x%zu: %s\n", submitted, ok ? "GROUPCONC_OK" : "FAILED");

    groupconc_result res[NTASKS];
    size_t successes = 0, waited = 0;
    for (size_t i = 0; i < submitted; i++) {
        rc = groupconc_task_wait(handles[i], &res[i]);
        if (check(rc, "task_wait")) {
            waited++;
            if (res[i].status == GROUPCONC_STATUS_SUCCESS) {
                successes++;
            } else {
                printf("%s: %s (error %d, reason %s)\n", TASKS[i].id,
                       groupconc_status_name(res[i].status), res[i].error,
                       groupconc_errname(res[i].reason));
            }
        }
        if (!check(groupconc_task_release(handles[i]), "task_release")) ok = 0;
    }
    printf("task_wait x%zu: %s (%zu SUCCESS)\n", waited,
           waited == NTASKS ? "GROUPCONC_OK" : "FAILED", successes);
    if (successes != NTASKS) ok = 0;

    /* The limits each group's state was created with (resolver, table, or default), and its
       counters: every task of the group submitted, completed and succeeded. */
    int caps[NGROUPS];
    for (size_t g = 0; g < NGROUPS; g++) {
        groupconc_group_stats st;
        caps[g] = 0;
        if (!check(groupconc_group_stats_get(ex, GROUPS[g], &st), "group_stats_get")) {
            ok = 0;
            continue;
        }
        caps[g] = st.concurrency;
        if (st.concurrency != EXPECTED_CAP[g]) {
            printf("%s: concurrency %d, expected %d\n", GROUPS[g], st.concurrency, EXPECTED_CAP[g]);
            ok = 0;
        }
        uint64_t n = 0;
        for (size_t i = 0; i < NTASKS; i++) {
            if (strcmp(TASKS[i].group, GROUPS[g]) == 0) n++;
        }
        if (st.submitted != n || st.completed != n || st.succeeded != n) {
            printf("%s: counters submitted %llu, completed %llu, succeeded %llu; expected %llu each\n",
                   GROUPS[g], (unsigned long long)st.submitted, (unsigned long long)st.completed,
                   (unsigned long long)st.succeeded, (unsigned long long)n);
            ok = 0;
        }
    }

    int verdict = ok ? ROUND_OK : ROUND_FAILED;
    if (ok) {
        int peaks[NGROUPS], exceeded = 0, short_of = 0;
        for (size_t g = 0; g < NGROUPS; g++) {
            peaks[g] = peak_concurrency(GROUPS[g], res);
            exceeded |= peaks[g] > caps[g];
            short_of |= peaks[g] < caps[g];
        }
        verdict = exceeded ? ROUND_FAILED : short_of ? ROUND_SHORT : ROUND_OK;
        if (verdict == ROUND_SHORT && !last) {
            printf("a group's tasks never ran as many at once as its cap allows (the OS ran the workers "
                   "late: a busy machine); once more\n");
        } else {
            print_timeline(res, caps);
            printf("peak concurrency observed (from the recorded start/end times):\n");
            for (size_t g = 0; g < NGROUPS; g++) {
                printf("  %-18s%d of %d%s\n", GROUPS[g], peaks[g], caps[g],
                       peaks[g] > caps[g]   ? "  <-- CAP EXCEEDED"
                       : peaks[g] < caps[g] ? "  <-- cap never reached"
                                            : "");
            }
        }
    }

    rc = groupconc_executor_destroy(ex);
    if (check(rc, "executor_destroy")) {
        printf("executor_destroy: %s\n", groupconc_errname(rc));
    } else {
        verdict = ROUND_FAILED;
    }
    return verdict;
}

int main(void) {
    static const groupconc_group_limits table[] = {
        {"db-write", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
    };
    groupconc_policy policy = groupconc_policy_default();
    policy.default_concurrency = 1; /* every tenant the resolver does not answer for */
    policy.resolver = vip_resolver;
    policy.groups = table;
    policy.group_count = sizeof table / sizeof table[0];

    /* Reaching every cap needs the tasks to overlap in time, which the OS decides: a short round is
       run again, up to 3 rounds. */
    int verdict = ROUND_SHORT;
    for (int round = 1; round <= 3 && verdict == ROUND_SHORT; round++) verdict = demo_round(&policy, round == 3);
    return verdict == ROUND_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}
