/* dump_state.c - builds a known, latched state and prints groupconc_executor_dump of it to stdout;
   tests/dump/check_dump.py parses it with python3's json module and checks it field by field.
   The state: max_threads 1, group "run \"q\" \\ \x01 é" (concurrency 1) with one running task
   (id "r1") and two waiting at its concurrency layer (ids "w1", "w2"); group "other" with one task
   ready for the busy thread (id "ready1"); a scope "outer" (SHUTDOWN_ON_FAILURE) whose only fork is
   the running task. Exit 0 once the state was dumped and everything shut down cleanly.
   Beside them (issue 23): an executor gate's permit held in group "626164fffe" (the hex of the next
   key: no two keys may print alike); group "bad\xff\xfe" (not UTF-8) paused, with one task waiting
   at its concurrency layer (id "id\x80", not UTF-8 either); group "deadline" (queue deadline 60 s
   by live limits) with one task ready ("d1") and one waiting at its concurrency layer ("d2"); a
   second scope named "s\xc3(" (not UTF-8), no forks. Three lines: the stats (every field, by
   GROUPCONC_*_STATS_FIELDS) taken just before the dump, as {"executor": {...}, "groups": {"<key in
   hex>": {...}}}; the dump; the stats again, just after it. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parked task and main meet on one condition variable: `started` once the task runs, `go` to
   let it return. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started, go;

static void set_flag(int *flag) {
    pthread_mutex_lock(&mu);
    *flag = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void wait_flag(const int *flag) {
    pthread_mutex_lock(&mu);
    while (!*flag) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static int park_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    set_flag(&started);
    wait_flag(&go);
    return 0;
}

static int noop_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 0;
}

#define KEY "run \"q\" \\ \x01 \xc3\xa9"
#define BAD_KEY "bad\xff\xfe"
#define HEX_KEY "626164fffe" /* BAD_KEY's bytes in hex */

#define PRINT_S(type, name, kind) printf("%s\"%s\":%lld", first++ ? "," : "", #name, (long long)st.name);
#define PRINT_U(type, name, kind) printf("%s\"%s\":%llu", first++ ? "," : "", #name, (unsigned long long)st.name);
#define PRINT_FIELD(type, name, kind) PRINT_##kind(type, name, kind)

/* {"executor": {...}, "groups": {"<hex key>": {...}}}: every stats field; 0 on success */
static int print_stats(groupconc_executor *ex) {
    groupconc_executor_stats es;
    char **keys;
    size_t n;
    int first = 0;
    if (groupconc_executor_stats_get(ex, &es) != GROUPCONC_OK) return 1;
    {
        const groupconc_executor_stats st = es;
        printf("{\"executor\":{");
        GROUPCONC_EXECUTOR_STATS_FIELDS(PRINT_FIELD)
        printf("},\"groups\":{");
    }
    if (groupconc_group_keys_get(ex, &keys, &n) != GROUPCONC_OK) return 1;
    for (size_t i = 0; i < n; i++) {
        groupconc_group_stats st;
        if (groupconc_group_stats_get(ex, keys[i], &st) != GROUPCONC_OK) return 1;
        printf("%s\"", i ? "," : "");
        for (const unsigned char *p = (const unsigned char *)keys[i]; *p; p++) printf("%02x", *p);
        printf("\":{");
        first = 0;
        GROUPCONC_GROUP_STATS_FIELDS(PRINT_FIELD)
        printf("}");
    }
    printf("}}");
    groupconc_group_keys_free(keys);
    return 0;
}

int main(void) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_scope *scope;
    groupconc_scope_config sc = {GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, NULL, NULL, "outer"};
    groupconc_task_spec fork = {KEY, "r1", park_fn, NULL, NULL, 0};
    groupconc_task *w1, *w2, *rd, *pw, *d1, *d2;
    groupconc_scope *scope2;
    groupconc_scope_config sc2 = {GROUPCONC_SCOPE_COLLECT_ALL, NULL, NULL, "s\xc3("};
    groupconc_gate_config gc = {0, NULL, NULL, NULL};
    groupconc_gate *gate;
    groupconc_permit permit;
    groupconc_result res;
    groupconc_group_limits dl = groupconc_group_limits_keep("deadline");
    int rc;
    p.max_threads = 1;
    if (groupconc_executor_create(&p, &ex) != GROUPCONC_OK) return 1;
    gc.executor = ex;
    if (groupconc_gate_create(&gc, &gate) != GROUPCONC_OK) return 1;
    if (groupconc_scope_open(ex, &sc, &scope) != GROUPCONC_OK) return 1;
    if (groupconc_scope_fork(scope, &fork, NULL) != GROUPCONC_OK) return 1;
    wait_flag(&started); /* meson's timeout bounds a hang */
    if (groupconc_submit(ex, KEY, "w1", noop_fn, NULL, &w1) != GROUPCONC_OK ||
        groupconc_submit(ex, KEY, "w2", noop_fn, NULL, &w2) != GROUPCONC_OK ||
        groupconc_submit(ex, "other", "ready1", noop_fn, NULL, &rd) != GROUPCONC_OK)
        return 1;
    dl.max_wait_ns = GROUPCONC_SEC(60);
    if (groupconc_gate_try_acquire(gate, HEX_KEY, &permit) != GROUPCONC_OK ||
        groupconc_group_pause(ex, BAD_KEY) != GROUPCONC_OK ||
        groupconc_submit(ex, BAD_KEY, "id\x80", noop_fn, NULL, &pw) != GROUPCONC_OK ||
        groupconc_group_limits_set(ex, &dl) != GROUPCONC_OK ||
        groupconc_submit(ex, "deadline", "d1", noop_fn, NULL, &d1) != GROUPCONC_OK ||
        groupconc_submit(ex, "deadline", "d2", noop_fn, NULL, &d2) != GROUPCONC_OK ||
        groupconc_scope_open(ex, &sc2, &scope2) != GROUPCONC_OK)
        return 1;
    if (print_stats(ex) != 0) return 1;
    printf("\n");
    fflush(stdout);
    rc = groupconc_executor_dump_file(ex, stdout);
    if (rc != GROUPCONC_OK || print_stats(ex) != 0) return 1;
    printf("\n");
    fflush(stdout);
    set_flag(&go);
    if (groupconc_scope_join(scope2) != GROUPCONC_OK || groupconc_scope_close(scope2) != GROUPCONC_OK ||
        groupconc_permit_release(&permit, GROUPCONC_RELEASE_SUCCESS, 0) != GROUPCONC_OK ||
        groupconc_group_resume(ex, BAD_KEY) != GROUPCONC_OK || groupconc_scope_join(scope) != GROUPCONC_OK ||
        groupconc_scope_close(scope) != GROUPCONC_OK)
        return 1;
    if (groupconc_task_wait(pw, &res) != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS ||
        groupconc_task_wait(d2, &res) != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS)
        return 1;
    groupconc_task_release(w1);
    groupconc_task_release(w2);
    groupconc_task_release(rd);
    groupconc_task_release(pw);
    groupconc_task_release(d1);
    groupconc_task_release(d2);
    if (groupconc_gate_destroy(gate) != GROUPCONC_OK) return 1;
    return groupconc_executor_destroy(ex) == GROUPCONC_OK ? 0 : 1;
}
