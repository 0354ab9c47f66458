/* bench_groupconc.c - groupconc as a user would drive it: one executor per run, groupconc_submit
   per job (fire-and-forget with out_task NULL, or keeping every handle), and
   groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER) to wait for everything.
   Per-key limits are the executor's own groups (default_concurrency = the cap); W1 has one group
   whose concurrency is far above anything that can run (no effective cap), so max_threads bounds it.
   W4 sets global_max_in_flight = the global cap and max_threads = the same number.
   W8 sets max_groups and group_idle_ns (the bounded table); W9 sets global_max_running (the
   work-conserving global running cap) and leaves max_threads at its default (32, above the
   cap), so that the running cap, not the pool, is what bounds it. W1d is W1's shape (one group, no
   effective cap) with max_threads and keep_alive_ns left at groupconc_policy_default()'s: it
   counts the worker threads the default pool starts (bench_groupconc_threads, from a side thread). */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "bench.h"

#include <limits.h>
#include <stdlib.h>

static groupconc_executor *ex;
static bench_cfg cfg;
static groupconc_task **handles;
static long nhandles;

static int task_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    bench_task_body((long)(intptr_t)arg);
    return 0;
}

static int gc_setup(const bench_cfg *c, bench_out *out) {
    cfg = *c;
    groupconc_policy policy = groupconc_policy_default();
    if (!c->default_pool) policy.max_threads = c->threads;
    policy.default_concurrency = c->cap ? c->cap : INT_MAX / 2;
    if (c->global) policy.global_max_in_flight = c->global;
    if (c->run_cap) {
        policy.global_max_running = c->run_cap;
        policy.max_threads = groupconc_policy_default().max_threads;
        if (policy.max_threads < c->run_cap) policy.max_threads = c->run_cap;
    }
    if (c->max_groups) policy.max_groups = (int)c->max_groups;
    if (c->group_idle_ns) policy.group_idle_ns = c->group_idle_ns;
    int rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) {
        bench_fail(out, "groupconc_executor_create: %s", groupconc_errname(rc));
        return rc;
    }
    nhandles = 0;
    if (c->handles) {
        /* the caller's array of handle pointers is touched now, so it is part of the baseline */
        handles = calloc((size_t)c->expect, sizeof *handles);
        if (!handles) {
            bench_fail(out, "out of memory");
            return -1;
        }
        bench_touch(handles, (size_t)c->expect * sizeof *handles);
    }
    return 0;
}

static int gc_submit(const char *key, long id) {
    groupconc_task **slot = cfg.handles ? &handles[nhandles] : NULL;
    int rc = groupconc_submit(ex, key, NULL, task_fn, (void *)(intptr_t)id, slot);
    if (rc == GROUPCONC_OK && slot) nhandles++;
    return rc == GROUPCONC_EGROUPS_FULL ? BENCH_EFULL : rc;
}

static int gc_wait_all(bench_out *out) {
    int rc = groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER);
    if (rc != GROUPCONC_OK) bench_fail(out, "shutdown_graceful: %s", groupconc_errname(rc));
    return rc;
}

static int gc_collect(bench_out *out) {
    int bad = 0, rc = 0;
    for (long i = 0; i < nhandles; i++) {
        groupconc_result res;
        rc = groupconc_task_wait(handles[i], &res);
        if (rc != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS) bad++;
        groupconc_task_release(handles[i]);
    }
    nhandles = 0;
    if (bad) {
        bench_fail(out, "%d handles did not report SUCCESS", bad);
        return -1;
    }
    return 0;
}

static long gc_groups(void) {
    groupconc_executor_stats st;
    if (groupconc_executor_stats_get(ex, &st) != GROUPCONC_OK) return -1;
    return (long)st.groups;
}

static long gc_reclaimed(void) {
    groupconc_executor_stats st;
    if (groupconc_executor_stats_get(ex, &st) != GROUPCONC_OK) return -1;
    return (long)st.groups_reclaimed;
}

long bench_groupconc_threads(void) {
    groupconc_executor_stats st;
    if (groupconc_executor_stats_get(ex, &st) != GROUPCONC_OK) return -1;
    return (long)st.threads;
}

static void gc_teardown(void) {
    if (ex) groupconc_executor_destroy(ex);
    ex = NULL;
    for (long i = 0; i < nhandles; i++) groupconc_task_release(handles[i]);
    free(handles);
    handles = NULL;
    nhandles = 0;
}

const bench_ops bench_ops_groupconc = {"groupconc", gc_setup,  gc_submit,   gc_wait_all,
                                       gc_collect,  gc_groups, gc_teardown, gc_reclaimed,
                                       NULL,        NULL};
