/* dump_state.c - builds a known, latched state and prints groupconc_executor_dump of it to stdout;
   tests/dump/check_dump.py parses it with python3's json module and checks it field by field.
   The state: max_threads 1, group "run \"q\" \\ \x01 é" (concurrency 1) with one running task
   (id "r1") and two waiting at its concurrency layer (ids "w1", "w2"); group "other" with one task
   ready for the busy thread (id "ready1"); a scope "outer" (SHUTDOWN_ON_FAILURE) whose only fork is
   the running task. Exit 0 once the state was dumped and everything shut down cleanly. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int started, go;

static int park_fn(groupconc_context *ctx, void **out_value, void *arg) {
    struct timespec ts = {0, 1000000};
    (void)ctx;
    (void)out_value;
    (void)arg;
    atomic_store(&started, 1);
    for (int i = 0; i < 30000 && !atomic_load(&go); i++) nanosleep(&ts, NULL);
    return 0;
}

static int noop_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 0;
}

#define KEY "run \"q\" \\ \x01 \xc3\xa9"

int main(void) {
    struct timespec ts = {0, 1000000};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_scope *scope;
    groupconc_scope_config sc = {GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, NULL, NULL, "outer"};
    groupconc_task_spec fork = {KEY, "r1", park_fn, NULL, NULL, 0};
    groupconc_task *w1, *w2, *rd;
    int rc;
    p.max_threads = 1;
    if (groupconc_executor_create(&p, &ex) != GROUPCONC_OK) return 1;
    if (groupconc_scope_open(ex, &sc, &scope) != GROUPCONC_OK) return 1;
    if (groupconc_scope_fork(scope, &fork, NULL) != GROUPCONC_OK) return 1;
    for (int i = 0; i < 30000 && !atomic_load(&started); i++) nanosleep(&ts, NULL);
    if (groupconc_submit(ex, KEY, "w1", noop_fn, NULL, &w1) != GROUPCONC_OK ||
        groupconc_submit(ex, KEY, "w2", noop_fn, NULL, &w2) != GROUPCONC_OK ||
        groupconc_submit(ex, "other", "ready1", noop_fn, NULL, &rd) != GROUPCONC_OK)
        return 1;
    rc = groupconc_executor_dump_file(ex, stdout);
    atomic_store(&go, 1);
    if (rc != GROUPCONC_OK || groupconc_scope_join(scope) != GROUPCONC_OK ||
        groupconc_scope_close(scope) != GROUPCONC_OK)
        return 1;
    groupconc_task_release(w1);
    groupconc_task_release(w2);
    groupconc_task_release(rd);
    return groupconc_executor_destroy(ex) == GROUPCONC_OK ? 0 : 1;
}
