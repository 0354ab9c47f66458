/* test_prometheus.c - extras/groupconc_prometheus.h: the rendered values against the stats, the
   busiest-first cap with its "%other" sums, the buffer contract (snprintf-style size, truncation),
   the FILE variant, the group label's lossless mapping, bad arguments (one row each, with its
   code) and the allocation-failure loop (both allocators: groupconc's key list and the extra's
   rows). promtool's check of the text is in tests/prometheus/check.py (suite scripts).
   States are built with parked tasks (faultutil.h's latch), never with sleeps. */
#define GROUPCONC_IMPLEMENTATION
#include "faultutil.h"
#define GROUPCONC_PROMETHEUS_MALLOC(sz) fault_malloc(sz)
#define GROUPCONC_PROMETHEUS_FREE(p) fault_free(p)
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION
#include "extras/groupconc_prometheus.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#define BIG (1 << 20)
static char text[BIG], text2[BIG];

/* The value of the sample `series` ("name{labels}"), as text; NULL if absent. */
static const char *sample(const char *t, const char *series, char *out, size_t size) {
    size_t n = strlen(series);
    const char *p = t;
    while ((p = strstr(p, series)) != NULL) {
        if ((p == t || p[-1] == '\n') && p[n] == ' ') {
            const char *e = strchr(p + n + 1, '\n');
            size_t len = e ? (size_t)(e - (p + n + 1)) : strlen(p + n + 1);
            snprintf(out, size, "%.*s", (int)len, p + n + 1);
            return out;
        }
        p += n;
    }
    return NULL;
}

static long long num(const char *t, const char *series) {
    char v[64];
    if (!sample(t, series, v, sizeof v)) {
        print_error("no sample %s\n", series);
        fail();
    }
    return strtoll(v, NULL, 10);
}

static int job(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value;
    return arg ? 7 : 0;
}

/* A state: "a" (concurrency 2): 2 parked, 3 waiting; "b": 4 done, 1 failed; "c" (bulkhead 1,
   no queue, DISCARD): 1 parked, 2 rejected; "d": 1 done. Open `gate` to let it finish. */
static groupconc_executor *state(counter *gate) {
    static int failing = 1;
    groupconc_group_limits limits[] = {{"a", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
                                       {"c", 1, 1, 0, 0}};
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_task *t;
    groupconc_result r;
    int i;
    p.default_concurrency = 4;
    p.groups = limits;
    p.group_count = 2;
    p.rejection = GROUPCONC_REJECT_DISCARD;
    p.global_max_running = 100;
    counter_init(gate);
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    for (i = 0; i < 4; i++) {
        assert_int_equal(groupconc_submit(ex, "b", NULL, job, i == 0 ? &failing : NULL, &t), GROUPCONC_OK);
        assert_int_equal(groupconc_task_wait(t, &r), GROUPCONC_OK);
        groupconc_task_release(t);
    }
    assert_int_equal(groupconc_submit(ex, "d", NULL, job, NULL, &t), GROUPCONC_OK);
    assert_int_equal(groupconc_task_wait(t, &r), GROUPCONC_OK);
    groupconc_task_release(t);
    for (i = 0; i < 5; i++) assert_int_equal(groupconc_submit(ex, "a", NULL, task_park, gate, NULL), GROUPCONC_OK);
    assert_true(counter_wait(gate, 2));
    assert_int_equal(groupconc_submit(ex, "c", NULL, task_park, gate, NULL), GROUPCONC_OK);
    assert_true(counter_wait(gate, 3));
    for (i = 0; i < 2; i++) assert_int_equal(groupconc_submit(ex, "c", NULL, job, NULL, NULL), GROUPCONC_OK);
    return ex;
}

static void finish(groupconc_executor *ex, counter *gate) {
    latch_open(gate);
    assert_int_equal(groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    counter_destroy(gate);
}

static void test_values_match_stats(void **st) {
    (void)st;
    counter gate;
    groupconc_executor *ex = state(&gate);
    groupconc_executor_stats es;
    groupconc_group_stats a, b, c;
    char v[64];
    size_t needed;
    assert_int_equal(groupconc_prometheus_render(ex, NULL, text, sizeof text, &needed), GROUPCONC_OK);
    assert_int_equal(needed, strlen(text) + 1);
    assert_int_equal(groupconc_executor_stats_get(ex, &es), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "a", &a), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "b", &b), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "c", &c), GROUPCONC_OK);
    /* the state is as built, and the text says the same */
    assert_int_equal(es.submitted, 13);
    assert_int_equal(num(text, "groupconc_tasks_submitted_total"), es.submitted);
    assert_int_equal(num(text, "groupconc_tasks_admitted_total"), es.admitted);
    assert_int_equal(num(text, "groupconc_tasks_completed_total{outcome=\"succeeded\"}"), es.succeeded);
    assert_int_equal(num(text, "groupconc_tasks_completed_total{outcome=\"failed\"}"), 1);
    assert_int_equal(num(text, "groupconc_tasks_completed_total{outcome=\"rejected_bulkhead\"}"), 2);
    assert_int_equal(num(text, "groupconc_tasks_completed_total{outcome=\"rejected_other\"}"), 0);
    assert_int_equal(num(text, "groupconc_running_tasks"), 3);
    assert_int_equal(num(text, "groupconc_running_tasks"), es.running);
    assert_int_equal(num(text, "groupconc_waiting_tasks"), 3);
    assert_int_equal(num(text, "groupconc_refusing_tasks"), 0); /* refusals here are DISCARD's: decided at once */
    assert_int_equal(num(text, "groupconc_group_refusing_tasks{group=\"a\"}"), 0);
    assert_int_equal(num(text, "groupconc_threads"), es.threads);
    assert_int_equal(num(text, "groupconc_groups"), 4);
    assert_int_equal(num(text, "groupconc_groups_listed"), 4);
    assert_int_equal(num(text, "groupconc_paused"), 0);
    assert_int_equal(num(text, "groupconc_global_max_running_tasks"), 100);
    assert_string_equal(sample(text, "groupconc_global_max_in_flight_tasks", v, sizeof v), "+Inf");
    assert_int_equal(num(text, "groupconc_group_running_tasks{group=\"a\"}"), a.running);
    assert_int_equal(num(text, "groupconc_group_running_tasks{group=\"a\"}"), 2);
    assert_int_equal(num(text, "groupconc_group_waiting_tasks{group=\"a\",layer=\"concurrency\"}"), 3);
    assert_int_equal(num(text, "groupconc_group_waiting_tasks{group=\"a\",layer=\"bulkhead\"}"), 0);
    assert_int_equal(num(text, "groupconc_group_concurrency_tasks{group=\"a\"}"), 2);
    assert_int_equal(num(text, "groupconc_group_tasks_submitted_total{group=\"b\"}"), b.submitted);
    assert_int_equal(num(text, "groupconc_group_tasks_completed_total{group=\"b\",outcome=\"failed\"}"), 1);
    assert_int_equal(num(text, "groupconc_group_tasks_completed_total{group=\"b\",outcome=\"succeeded\"}"), 3);
    assert_int_equal(num(text, "groupconc_group_tasks_completed_total{group=\"c\",outcome=\"rejected_bulkhead\"}"),
                     c.rejected_bulkhead);
    assert_int_equal(c.rejected_bulkhead, 2);
    assert_int_equal(num(text, "groupconc_group_max_in_flight_tasks{group=\"c\"}"), 1);
    assert_int_equal(num(text, "groupconc_group_queue_threshold_tasks{group=\"c\"}"), 0);
    assert_string_equal(sample(text, "groupconc_group_max_in_flight_tasks{group=\"a\"}", v, sizeof v), "+Inf");
    assert_string_equal(sample(text, "groupconc_group_max_wait_seconds{group=\"a\"}", v, sizeof v), "+Inf");
    assert_non_null(strstr(text, "# TYPE groupconc_tasks_completed_total counter\n"));
    assert_non_null(strstr(text, "# TYPE groupconc_group_running_tasks gauge\n"));
    assert_non_null(strstr(text, "# HELP groupconc_tasks_submitted_total "));
    assert_null(strstr(text, "%other\"}")); /* all four listed (default cap 50) */
    /* the busiest first: a (5 there), then c (1 running), then b (more submitted than d), d */
    {
        const char *pa = strstr(text, "groupconc_group_tasks_submitted_total{group=\"a\"}");
        const char *pc = strstr(text, "groupconc_group_tasks_submitted_total{group=\"c\"}");
        const char *pb = strstr(text, "groupconc_group_tasks_submitted_total{group=\"b\"}");
        const char *pd = strstr(text, "groupconc_group_tasks_submitted_total{group=\"d\"}");
        assert_true(pa && pc && pb && pd);
        assert_true(pa < pc && pc < pb && pb < pd);
    }
    finish(ex, &gate);
}

static void test_cap_sums_the_rest(void **st) {
    (void)st;
    counter gate;
    groupconc_executor *ex = state(&gate);
    groupconc_prometheus_config cfg = groupconc_prometheus_config_default();
    char v[64];
    cfg.max_groups = 2; /* a and c listed; b and d summed */
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, NULL), GROUPCONC_OK);
    assert_int_equal(num(text, "groupconc_groups_listed"), 2);
    assert_int_equal(num(text, "groupconc_group_tasks_submitted_total{group=\"a\"}"), 5);
    assert_null(sample(text, "groupconc_group_tasks_submitted_total{group=\"b\"}", v, sizeof v));
    assert_int_equal(num(text, "groupconc_group_tasks_submitted_total{group=\"%other\"}"), 5); /* 4 + 1 */
    assert_int_equal(num(text, "groupconc_group_tasks_completed_total{group=\"%other\",outcome=\"succeeded\"}"), 4);
    assert_int_equal(num(text, "groupconc_group_tasks_completed_total{group=\"%other\",outcome=\"failed\"}"), 1);
    assert_int_equal(num(text, "groupconc_group_paused{group=\"%other\"}"), 0);
    assert_null(sample(text, "groupconc_group_concurrency_tasks{group=\"%other\"}", v, sizeof v)); /* no limits */
    assert_null(sample(text, "groupconc_group_max_wait_seconds{group=\"%other\"}", v, sizeof v));
    cfg.max_groups = 0; /* every group summed */
    cfg.prefix = "app:gc_";
    cfg.help = false;
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, NULL), GROUPCONC_OK);
    assert_int_equal(num(text, "app:gc_groups_listed"), 0);
    assert_int_equal(num(text, "app:gc_group_tasks_submitted_total{group=\"%other\"}"), 13);
    assert_int_equal(num(text, "app:gc_group_running_tasks{group=\"%other\"}"), 3);
    assert_int_equal(num(text, "app:gc_group_waiting_tasks{group=\"%other\",layer=\"concurrency\"}"), 3);
    assert_null(strstr(text, "# HELP"));
    assert_non_null(strstr(text, "# TYPE app:gc_group_running_tasks gauge\n"));
    assert_null(strstr(text, "groupconc_"));
    finish(ex, &gate);
}

/* What moves between two renders on its own: the oldest waiter's age grows, and the worker threads
   (threads, idle_threads) start, nap and retire with the machine's load: zero their values' digits
   so that two texts compare. */
static void mask_ages(char *t) {
    static const char *const moving[] = {"oldest_wait_seconds{", "threads "};
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++) {
        char *p = t;
        while ((p = strstr(p, moving[i])) != NULL) {
            p = strchr(p, ' ');
            for (p++; *p && *p != '\n'; p++)
                if (*p >= '1' && *p <= '9') *p = '0';
        }
    }
}

static void test_buffer_and_file(void **st) {
    (void)st;
    counter gate;
    groupconc_executor *ex = state(&gate);
    size_t needed = 0, n2 = 0;
    FILE *f;
    assert_int_equal(groupconc_prometheus_render(ex, NULL, NULL, 0, &needed), GROUPCONC_ERANGE);
    assert_true(needed > 1000);
    assert_int_equal(groupconc_prometheus_render(ex, NULL, text, needed, &n2), GROUPCONC_OK);
    assert_int_equal(n2, needed);
    assert_int_equal(strlen(text), needed - 1);
    memset(text2, 'x', sizeof text2);
    assert_int_equal(groupconc_prometheus_render(ex, NULL, text2, needed - 1, &n2), GROUPCONC_ERANGE);
    assert_int_equal(n2, needed);
    assert_int_equal(strlen(text2), needed - 2); /* a NUL-terminated prefix */
    mask_ages(text);
    mask_ages(text2);
    assert_memory_equal(text, text2, needed - 2);
    assert_int_equal(groupconc_prometheus_render(ex, NULL, text2, 1, &n2), GROUPCONC_ERANGE);
    assert_int_equal(text2[0], '\0');
    /* the FILE variant writes the same text */
    f = tmpfile();
    assert_non_null(f);
    assert_int_equal(groupconc_prometheus_render_file(ex, NULL, f), GROUPCONC_OK);
    rewind(f);
    memset(text2, 0, sizeof text2);
    assert_int_equal(fread(text2, 1, sizeof text2 - 1, f), needed - 1);
    mask_ages(text2);
    assert_string_equal(text, text2);
    fclose(f);
    /* a stream that cannot be written: GROUPCONC_EIO */
    f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_int_equal(groupconc_prometheus_render_file(ex, NULL, f), GROUPCONC_EIO);
    fclose(f);
    finish(ex, &gate);
}

static void esc(const char *key, const char *want) {
    char out[256];
    size_t needed = 0;
    assert_int_equal(groupconc_prometheus_escape(key, out, sizeof out, &needed), GROUPCONC_OK);
    assert_string_equal(out, want);
    assert_int_equal(needed, strlen(want) + 1);
}

/* Reverse the mapping; returns the length. */
static size_t unescape(const char *s, unsigned char *out) {
    size_t n = 0;
    while (*s) {
        if (*s == '\\') {
            out[n++] = (unsigned char)(s[1] == 'n' ? '\n' : s[1]);
            s += 2;
        } else if (*s == '%') {
            unsigned v;
            assert_int_equal(sscanf(s + 1, "%2X", &v), 1);
            out[n++] = (unsigned char)v;
            s += 3;
        } else
            out[n++] = (unsigned char)*s++;
    }
    return n;
}

static void test_label_mapping(void **st) {
    (void)st;
    char key[4], out[64];
    unsigned char back[16];
    unsigned a, b;
    esc("tenant-a", "tenant-a");
    esc("back\\slash", "back\\\\slash");
    esc("quo\"te", "quo\\\"te");
    esc("new\nline", "new\\nline");
    esc("50%", "50%25");
    esc("%other", "%25other");
    esc("tab\t", "tab%09");
    esc("\x7f", "%7F");
    esc("caf\xc3\xa9", "caf\xc3\xa9");
    esc("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
    esc("\xff\xfe", "%FF%FE");
    esc("\xc3", "%C3");                   /* truncated */
    esc("\xc0\xaf", "%C0%AF");            /* overlong */
    esc("\xed\xa0\x80", "%ED%A0%80");     /* a surrogate */
    esc("\xf4\x90\x80\x80", "%F4%90%80%80"); /* above U+10FFFF */
    esc("\xe2\x82", "%E2%82");
    /* every key of one or two bytes maps back to itself */
    for (a = 1; a < 256; a++)
        for (b = 0; b < 256; b++) {
            key[0] = (char)a;
            key[1] = (char)b;
            key[2] = '\0';
            assert_int_equal(groupconc_prometheus_escape(key, out, sizeof out, NULL), GROUPCONC_OK);
            assert_int_equal(unescape(out, back), b ? 2 : 1);
            assert_memory_equal(back, key, b ? 2 : 1);
        }
}

/* ---- bad arguments: one row each, with its code ---------------------------------------------- */

static void test_bad_arguments(void **st) {
    (void)st;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    groupconc_prometheus_config cfg = groupconc_prometheus_config_default();
    char buf[8], longp[GROUPCONC_PROMETHEUS_MAX_PREFIX_LEN + 2];
    size_t needed = 99;
    assert_int_equal(groupconc_executor_create(&p, &ex), GROUPCONC_OK);
    assert_int_equal(groupconc_prometheus_render(NULL, NULL, text, sizeof text, &needed), GROUPCONC_EINVAL);
    assert_int_equal(needed, 0);
    assert_int_equal(groupconc_prometheus_render(ex, NULL, NULL, 10, &needed), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_prometheus_render_file(NULL, NULL, stdout), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_prometheus_render_file(ex, NULL, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_prometheus_render(ex, NULL, buf, sizeof buf, &needed), GROUPCONC_ERANGE);
    assert_true(needed > sizeof buf);
    assert_int_equal(strlen(buf), sizeof buf - 1);
    cfg.prefix = "9lives_";
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, &needed), GROUPCONC_PROMETHEUS_EPREFIX);
    assert_int_equal(needed, 0);
    assert_int_equal(text[0], '\0');
    cfg.prefix = "my-app_";
    assert_int_equal(groupconc_prometheus_render_file(ex, &cfg, stdout), GROUPCONC_PROMETHEUS_EPREFIX);
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    cfg.prefix = longp;
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, NULL), GROUPCONC_PROMETHEUS_EPREFIXLEN);
    longp[sizeof longp - 2] = '\0'; /* exactly the longest */
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, NULL), GROUPCONC_OK);
    cfg.prefix = ""; /* allowed: the names still start with a letter */
    assert_int_equal(groupconc_prometheus_render(ex, &cfg, text, sizeof text, NULL), GROUPCONC_OK);
    assert_non_null(strstr(text, "\ntasks_submitted_total 0\n"));
    assert_int_equal(groupconc_prometheus_escape(NULL, buf, sizeof buf, &needed), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_prometheus_escape("x", NULL, 1, &needed), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_prometheus_escape("a\"b\"c", buf, 4, &needed), GROUPCONC_ERANGE);
    assert_int_equal(needed, 8);
    assert_string_equal(buf, "a\\\"");
    assert_int_equal(groupconc_prometheus_escape("x", NULL, 0, &needed), GROUPCONC_ERANGE);
    assert_int_equal(needed, 2);
    assert_string_equal(groupconc_prometheus_errname(GROUPCONC_PROMETHEUS_EPREFIX), "GROUPCONC_PROMETHEUS_EPREFIX");
    assert_string_equal(groupconc_prometheus_errname(GROUPCONC_PROMETHEUS_EPREFIXLEN), "GROUPCONC_PROMETHEUS_EPREFIXLEN");
    assert_string_equal(groupconc_prometheus_errname(GROUPCONC_ERANGE), "GROUPCONC_ERANGE");
    assert_non_null(strstr(groupconc_prometheus_strerror(GROUPCONC_PROMETHEUS_EPREFIXLEN), "longer"));
    assert_string_equal(groupconc_prometheus_strerror(GROUPCONC_ENOMEM), groupconc_strerror(GROUPCONC_ENOMEM));
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- allocation failures: ENOMEM, nothing written, nothing leaked --------------------------- */

static void test_oom_loop(void **st) {
    (void)st;
    counter gate;
    groupconc_executor *ex = state(&gate);
    long base = live_blocks(), n, injected = 0;
    int rc = GROUPCONC_ENOMEM;
    size_t needed;
    FILE *f;
    for (n = 1; n < 100 && rc != GROUPCONC_OK; n++) {
        text[0] = 'x';
        oom_arm(n, false, false);
        rc = groupconc_prometheus_render(ex, NULL, text, sizeof text, &needed);
        injected += oom_disarm();
        assert_int_equal(live_blocks(), base);
        if (rc == GROUPCONC_OK) break;
        assert_int_equal(rc, GROUPCONC_ENOMEM);
        assert_int_equal(text[0], '\0');
        assert_int_equal(needed, 0);
    }
    assert_int_equal(rc, GROUPCONC_OK);
    assert_true(injected >= 2); /* the key list (groupconc's allocator) and the rows (the extra's) */
    f = tmpfile();
    assert_non_null(f);
    for (n = 1, rc = GROUPCONC_ENOMEM; n < 100 && rc != GROUPCONC_OK; n++) {
        oom_arm(n, false, false);
        rc = groupconc_prometheus_render_file(ex, NULL, f);
        oom_disarm();
        assert_int_equal(live_blocks(), base);
        assert_true(rc == GROUPCONC_OK || rc == GROUPCONC_ENOMEM);
        if (rc == GROUPCONC_ENOMEM) assert_int_equal(ftell(f), 0); /* nothing written */
    }
    assert_int_equal(rc, GROUPCONC_OK);
    fclose(f);
    finish(ex, &gate);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_match_stats),
        cmocka_unit_test(test_cap_sums_the_rest),
        cmocka_unit_test(test_buffer_and_file),
        cmocka_unit_test(test_label_mapping),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_oom_loop),
    };
    const char *only = getenv("GROUPCONC_TEST_ONLY"); /* a cmocka test-name pattern, to rerun one */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
