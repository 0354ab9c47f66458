/* test_trace.c - extras/groupconc_trace.h: recording through a real executor with the user's
   listener chained, the bounded buffer (dropped events counted), the pairing and track layout on
   synthetic events fed to the listener directly (white-box, as sokol's tests do: exact times,
   CALLER_RUNS, tasks without ids, deferred completion on another thread), the key mapping in the
   JSON, bad arguments (one row each, with its code) and the allocation-failure loops (create,
   write, and the listener's copy of a long key). The JSON of a real multi-tenant run is parsed and
   checked by tests/trace/check_trace.py (suite scripts). */
#define GROUPCONC_IMPLEMENTATION
#include "faultutil.h"
#define GROUPCONC_TRACE_MALLOC(sz) fault_malloc(sz)
#define GROUPCONC_TRACE_FREE(p) fault_free(p)
#define GROUPCONC_TRACE_IMPLEMENTATION
#include "extras/groupconc_trace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

static char out[1 << 20];

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* ---- a real executor, the user's listener chained -------------------------------------------- */

static atomic_int seen[5], wrong_user_data;

static void user_listener(const groupconc_event *ev, void *user_data) { /* on the executor's threads */
    if (user_data != (void *)seen) atomic_fetch_add(&wrong_user_data, 1); /* its own, not the trace's */
    atomic_fetch_add(&seen[ev->type], 1);
}

static int job(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value, (void)arg;
    return 0;
}

static void run_tasks(groupconc_trace *trace, int n, bool chain) {
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    char id[16];
    if (chain) {
        p.listener = user_listener;
        p.listener_user_data = (void *)seen;
    }
    p.default_concurrency = 2;
    assert_int_equal(groupconc_trace_attach(trace, &p), GROUPCONC_OK);
    assert_int_equal(groupconc_trace_attach(trace, &p), GROUPCONC_TRACE_EATTACHED);
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "t%d", i);
        assert_int_equal(groupconc_submit(ex, i % 2 ? "odd" : "even", id, job, NULL, NULL), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_records_and_chains(void **st) {
    (void)st;
    groupconc_trace *trace;
    groupconc_trace_stats ts;
    size_t needed;
    for (int i = 0; i < 5; i++) atomic_store(&seen[i], 0);
    assert_int_equal(groupconc_trace_create(NULL, &trace), GROUPCONC_OK);
    run_tasks(trace, 10, true);
    assert_int_equal(atomic_load(&seen[GROUPCONC_EVENT_SUBMITTED]), 10);
    assert_int_equal(atomic_load(&seen[GROUPCONC_EVENT_STARTED]), 10);
    assert_int_equal(atomic_load(&seen[GROUPCONC_EVENT_COMPLETED]), 10);
    assert_int_equal(atomic_load(&wrong_user_data), 0);
    assert_int_equal(groupconc_trace_stats_get(trace, &ts), GROUPCONC_OK);
    assert_int_equal(ts.recorded, 30);
    assert_int_equal(ts.dropped, 0);
    assert_int_equal(ts.capacity, 65536);
    assert_int_equal(groupconc_trace_write(trace, out, sizeof out, &needed), GROUPCONC_OK);
    assert_int_equal(needed, strlen(out) + 1);
    assert_non_null(strstr(out, "\"recorded\":30,\"dropped\":0,"));
    assert_non_null(strstr(out, "\"unmatched\":0,"));
    assert_int_equal(count(out, "\"ph\":\"X\""), 10);
    assert_int_equal(count(out, "\"name\":\"submitted\""), 10);
    assert_int_equal(count(out, "\"name\":\"even running\""), 10); /* a start and an end per run */
    assert_non_null(strstr(out, "{\"name\":\"t3\",\"cat\":\"task\",\"ph\":\"X\""));
    assert_non_null(strstr(out, "\"args\":{\"name\":\"odd slot 1\"}"));
    assert_null(strstr(out, "odd slot 3")); /* concurrency 2 */
    assert_int_equal(groupconc_trace_destroy(trace), GROUPCONC_OK);
}

static void test_bounded_drops(void **st) {
    (void)st;
    groupconc_trace_config c = groupconc_trace_config_default();
    groupconc_trace *trace;
    groupconc_trace_stats ts;
    c.capacity = 5;
    c.process_name = "svc \"x\"";
    assert_int_equal(groupconc_trace_create(&c, &trace), GROUPCONC_OK);
    run_tasks(trace, 4, false); /* 12 events, 5 kept */
    assert_int_equal(groupconc_trace_stats_get(trace, &ts), GROUPCONC_OK);
    assert_int_equal(ts.recorded, 5);
    assert_int_equal(ts.dropped, 7);
    assert_int_equal(groupconc_trace_write(trace, out, sizeof out, NULL), GROUPCONC_OK);
    assert_non_null(strstr(out, "\"recorded\":5,\"dropped\":7,\"capacity\":5,"));
    assert_non_null(strstr(out, "\"args\":{\"name\":\"svc \\\"x\\\"\"}"));
    assert_int_equal(groupconc_trace_destroy(trace), GROUPCONC_OK);
}

/* ---- synthetic events: exact pairing and layout ---------------------------------------------- */

static void feed(groupconc_trace *t, groupconc_event_type type, const char *group, const char *id,
                 groupconc_status status, int reason, uint64_t start, uint64_t end) {
    groupconc_result r;
    groupconc_event ev;
    memset(&r, 0, sizeof r);
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.group = group;
    ev.task_id = id;
    ev.reason = type == GROUPCONC_EVENT_REJECTED ? reason : 0;
    if (type == GROUPCONC_EVENT_COMPLETED) {
        r.group = group;
        r.task_id = id;
        r.status = status;
        r.reason = reason;
        r.start_ns = start;
        r.end_ns = end;
        ev.result = &r;
    }
    groupconc_trace__listener(&ev, t);
}

typedef struct other_thread {
    groupconc_trace *t;
} other_thread;

static void *complete_elsewhere(void *arg) { /* a deferred task completes on another thread */
    other_thread *o = (other_thread *)arg;
    feed(o->t, GROUPCONC_EVENT_COMPLETED, "g", "deferred", GROUPCONC_STATUS_SUCCESS, 0, 5000000, 9000000);
    return NULL;
}

static void test_layout(void **st) {
    (void)st;
    groupconc_trace *t;
    pthread_t th;
    other_thread o;
    const uint64_t ms = 1000000;
    assert_int_equal(groupconc_trace_create(NULL, &t), GROUPCONC_OK);
    o.t = t;
    /* g, cap 2: a [1,4] ms, b [2,3], c [3,6] (b's slot is free again at 3: slot 2), deferred [5,9] */
    feed(t, GROUPCONC_EVENT_SUBMITTED, "g", "a", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "g", "b", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "g", "c", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "g", "deferred", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "g", "a", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "g", "b", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "g", "b", GROUPCONC_STATUS_SUCCESS, 0, 2 * ms, 3 * ms);
    feed(t, GROUPCONC_EVENT_STARTED, "g", "c", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "g", "a", GROUPCONC_STATUS_FAILED, 0, 1 * ms, 4 * ms);
    feed(t, GROUPCONC_EVENT_STARTED, "g", "deferred", 0, 0, 0, 0);
    assert_int_equal(pthread_create(&th, NULL, complete_elsewhere, &o), 0);
    pthread_join(th, NULL);
    feed(t, GROUPCONC_EVENT_COMPLETED, "g", "c", GROUPCONC_STATUS_SUCCESS, 0, 3 * ms, 6 * ms);
    /* h: rejected (ABORT), expired, CALLER_RUNS, and two runs without ids */
    feed(t, GROUPCONC_EVENT_SUBMITTED, "h", "r", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_REJECTED, "h", "r", 0, GROUPCONC_EREJECTED_BULKHEAD, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "h", "r", GROUPCONC_STATUS_REJECTED, GROUPCONC_EREJECTED_BULKHEAD, 2 * ms, 2 * ms);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "h", "x", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_REJECTED, "h", "x", 0, GROUPCONC_EEXPIRED_CONCURRENCY, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "h", "x", GROUPCONC_STATUS_REJECTED, GROUPCONC_EEXPIRED_CONCURRENCY, 3 * ms, 3 * ms);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "h", "cr", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_REJECTED, "h", "cr", 0, GROUPCONC_EREJECTED_CONCURRENCY, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "h", "cr", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "h", "cr", GROUPCONC_STATUS_SUCCESS, 0, 4 * ms, 8 * ms);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "h", NULL, 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "h", NULL, 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "h", NULL, GROUPCONC_STATUS_SUCCESS, 0, 4 * ms, 5 * ms);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "h", NULL, 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "h", NULL, 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "h", NULL, GROUPCONC_STATUS_CANCELLED, GROUPCONC_ECANCELLED, 5 * ms, 7 * ms);
    /* k: started, not finished at write time */
    feed(t, GROUPCONC_EVENT_SUBMITTED, "k", "open", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "k", "open", 0, 0, 0, 0);
    assert_int_equal(groupconc_trace_write(t, out, sizeof out, NULL), GROUPCONC_OK);
    assert_non_null(strstr(out, "\"unmatched\":1,"));
    /* runs: times from the results, relative to the earliest (1 ms), on the lowest free slot */
    assert_non_null(strstr(out, "{\"name\":\"a\",\"cat\":\"task\",\"ph\":\"X\",\"dur\":3000.000,\"ts\":0.000,\"pid\":1,\"tid\":1100001,"));
    assert_non_null(strstr(out, "{\"name\":\"b\",\"cat\":\"task\",\"ph\":\"X\",\"dur\":1000.000,\"ts\":1000.000,\"pid\":1,\"tid\":1100002,"));
    assert_non_null(strstr(out, "{\"name\":\"c\",\"cat\":\"task\",\"ph\":\"X\",\"dur\":3000.000,\"ts\":2000.000,\"pid\":1,\"tid\":1100002,"));
    assert_non_null(strstr(out, "{\"name\":\"deferred\",\"cat\":\"task\",\"ph\":\"X\",\"dur\":4000.000,\"ts\":4000.000,\"pid\":1,\"tid\":1100001,"));
    assert_non_null(strstr(out, "\"status\":\"FAILED\",\"slot\":1}"));
    assert_null(strstr(out, "g slot 3"));
    /* the deferred run's worker is its STARTED thread's (this one), not the completing thread's */
    {
        const char *d = strstr(out, "{\"name\":\"deferred\",\"cat\":\"task\"");
        const char *a = strstr(out, "{\"name\":\"a\",\"cat\":\"task\"");
        assert_non_null(d);
        assert_non_null(a);
        assert_memory_equal(strstr(d, "\"worker\":"), strstr(a, "\"worker\":"), 12);
    }
    /* h: the CALLER_RUNS run on its own track, the never-ran ones as instants */
    assert_non_null(strstr(out, "{\"name\":\"cr\",\"cat\":\"caller_runs\",\"ph\":\"X\",\"dur\":4000.000,\"ts\":3000.000,\"pid\":1,\"tid\":2200001,"));
    assert_non_null(strstr(out, "\"args\":{\"name\":\"h caller runs 1\"}"));
    assert_non_null(strstr(out, "{\"name\":\"rejected\",\"cat\":\"rejected\",\"ph\":\"i\",\"s\":\"t\""));
    assert_non_null(strstr(out, "{\"name\":\"expired\",\"cat\":\"expired\",\"ph\":\"i\",\"s\":\"t\""));
    assert_non_null(strstr(out, "\"reason\":\"GROUPCONC_EEXPIRED_CONCURRENCY\""));
    assert_int_equal(count(out, "{\"name\":\"completed\""), 2); /* r and x */
    assert_int_equal(count(out, "{\"name\":\"h\",\"cat\":\"task\",\"ph\":\"X\""), 2); /* no ids: named by group */
    assert_non_null(strstr(out, "\"status\":\"CANCELLED\",\"slot\":"));
    /* counters: g goes 1 2 1 2 1 2 1 0 (ends before starts at a tie), never above 2 */
    assert_int_equal(count(out, "{\"name\":\"g running\""), 8);
    assert_int_equal(count(out, "{\"name\":\"g running\",\"ph\":\"C\",\"ts\":2000.000,\"pid\":1,\"args\":{\"running\":1}}"), 1);
    assert_null(strstr(out, "{\"running\":3}"));
    assert_int_equal(count(out, "{\"name\":\"h running\""), 4); /* the CALLER_RUNS run not counted */
    assert_int_equal(groupconc_trace_destroy(t), GROUPCONC_OK);
}

static void test_key_mapping(void **st) {
    (void)st;
    groupconc_trace *t;
    char longkey[200];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    assert_int_equal(groupconc_trace_create(NULL, &t), GROUPCONC_OK);
    feed(t, GROUPCONC_EVENT_SUBMITTED, "q\"b\\n\nl 50% \xff caf\xc3\xa9 \x01", "id\t1", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_SUBMITTED, longkey, longkey, 0, 0, 0, 0); /* past the inline text */
    assert_int_equal(groupconc_trace_write(t, out, sizeof out, NULL), GROUPCONC_OK);
    assert_non_null(strstr(out, "\"group\":\"q\\\"b\\\\n\\nl 50%25 %FF caf\xc3\xa9 %01\",\"task_id\":\"id%091\""));
    assert_non_null(strstr(out, longkey));
    assert_int_equal(groupconc_trace_destroy(t), GROUPCONC_OK);
}

/* ---- bad arguments ---------------------------------------------------------------------------- */

static void test_bad_arguments(void **st) {
    (void)st;
    groupconc_trace_config c = groupconc_trace_config_default();
    groupconc_trace *t = (groupconc_trace *)&c;
    groupconc_policy p = groupconc_policy_default();
    groupconc_trace_stats ts;
    char small[16];
    size_t needed = 99;
    FILE *f;
    assert_int_equal(groupconc_trace_create(NULL, NULL), GROUPCONC_EINVAL);
    c.capacity = 0;
    assert_int_equal(groupconc_trace_create(&c, &t), GROUPCONC_ELIMIT);
    assert_null(t);
    c.capacity = GROUPCONC_TRACE_MAX_CAPACITY + 1;
    assert_int_equal(groupconc_trace_create(&c, &t), GROUPCONC_ELIMIT);
    assert_int_equal(groupconc_trace_create(NULL, &t), GROUPCONC_OK);
    assert_int_equal(groupconc_trace_attach(NULL, &p), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_attach(t, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_write(NULL, out, sizeof out, &needed), GROUPCONC_EINVAL);
    assert_int_equal(needed, 0);
    assert_int_equal(groupconc_trace_write(t, NULL, 5, &needed), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_write(t, small, sizeof small, &needed), GROUPCONC_ERANGE);
    assert_true(needed > sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(groupconc_trace_write(t, NULL, 0, &needed), GROUPCONC_ERANGE);
    assert_int_equal(groupconc_trace_write(t, out, needed, NULL), GROUPCONC_OK);
    assert_int_equal(groupconc_trace_write_file(NULL, stdout), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_write_file(t, NULL), GROUPCONC_EINVAL);
    f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_int_equal(groupconc_trace_write_file(t, f), GROUPCONC_EIO);
    fclose(f);
    assert_int_equal(groupconc_trace_stats_get(NULL, &ts), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_stats_get(t, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_trace_destroy(NULL), GROUPCONC_OK);
    assert_string_equal(groupconc_trace_errname(GROUPCONC_TRACE_EATTACHED), "GROUPCONC_TRACE_EATTACHED");
    assert_string_equal(groupconc_trace_errname(GROUPCONC_ELIMIT), "GROUPCONC_ELIMIT");
    assert_non_null(strstr(groupconc_trace_strerror(GROUPCONC_TRACE_EATTACHED), "attached"));
    assert_int_equal(groupconc_trace_destroy(t), GROUPCONC_OK);
}

/* ---- allocation failures ---------------------------------------------------------------------- */

static void test_oom_loops(void **st) {
    (void)st;
    long base = live_blocks(), n;
    int rc = GROUPCONC_ENOMEM;
    groupconc_trace *t = NULL;
    groupconc_trace_stats ts;
    char longkey[100];
    size_t needed;
    for (n = 1; n < 50 && rc != GROUPCONC_OK; n++) { /* create: three allocations */
        oom_arm(n, false, false);
        rc = groupconc_trace_create(NULL, &t);
        oom_disarm();
        if (rc == GROUPCONC_OK) break;
        assert_int_equal(rc, GROUPCONC_ENOMEM);
        assert_null(t);
        assert_int_equal(live_blocks(), base);
    }
    assert_int_equal(rc, GROUPCONC_OK);
    assert_true(n > 3);
    /* the listener's copy of a long key: the event is dropped and counted, nothing leaks */
    memset(longkey, 'x', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    feed(t, GROUPCONC_EVENT_SUBMITTED, "g", "a", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_STARTED, "g", "a", 0, 0, 0, 0);
    feed(t, GROUPCONC_EVENT_COMPLETED, "g", "a", GROUPCONC_STATUS_SUCCESS, 0, 1000, 2000);
    oom_arm(1, false, false);
    feed(t, GROUPCONC_EVENT_SUBMITTED, longkey, NULL, 0, 0, 0, 0);
    assert_int_equal(oom_disarm(), 1);
    feed(t, GROUPCONC_EVENT_SUBMITTED, longkey, NULL, 0, 0, 0, 0); /* allocated */
    assert_int_equal(groupconc_trace_stats_get(t, &ts), GROUPCONC_OK);
    assert_int_equal(ts.recorded, 4);
    assert_int_equal(ts.dropped, 1);
    /* write: every allocation failing in turn gives ENOMEM and an empty buffer */
    for (n = 1, rc = GROUPCONC_ENOMEM; n < 50 && rc != GROUPCONC_OK; n++) {
        long live = live_blocks();
        out[0] = 'x';
        oom_arm(n, false, false);
        rc = groupconc_trace_write(t, out, sizeof out, &needed);
        oom_disarm();
        assert_int_equal(live_blocks(), live);
        if (rc == GROUPCONC_OK) break;
        assert_int_equal(rc, GROUPCONC_ENOMEM);
        assert_int_equal(out[0], '\0');
        assert_int_equal(needed, 0);
    }
    assert_int_equal(rc, GROUPCONC_OK);
    assert_true(n > 9); /* nine scratch arrays */
    assert_non_null(strstr(out, "\"dropped\":1,"));
    assert_int_equal(groupconc_trace_destroy(t), GROUPCONC_OK);
    assert_int_equal(live_blocks(), base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_and_chains),
        cmocka_unit_test(test_bounded_drops),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_key_mapping),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_oom_loops),
    };
    const char *only = getenv("GROUPCONC_TEST_ONLY"); /* a cmocka test-name pattern, to rerun one */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
