/* test_policy.c - policy defaults and validation, limit resolution (explicit table, resolver,
   default), "first resolution fixed", and the copy of the policy at executor creation. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct resolver_state {
    atomic_int calls;       /* every call */
    atomic_int calls_vip;   /* calls for "vip:*" keys */
    atomic_int answer;      /* for the "changing" resolver */
    atomic_int per_key[32]; /* calls per "fresh-<n>" key */
    atomic_int delay_us;    /* widen the race window in the resolver */
} resolver_state;

static void resolver_state_init(resolver_state *rs) {
    atomic_init(&rs->calls, 0);
    atomic_init(&rs->calls_vip, 0);
    atomic_init(&rs->answer, 0);
    for (int i = 0; i < 32; i++) atomic_init(&rs->per_key[i], 0);
    atomic_init(&rs->delay_us, 0);
}

/* "vip:*" -> 4; anything else: report failure, so the policy default applies. */
static int vip_resolver(const char *group, int *out_concurrency, void *user_data) {
    resolver_state *rs = (resolver_state *)user_data;
    atomic_fetch_add(&rs->calls, 1);
    if (strncmp(group, "vip:", 4) == 0) {
        atomic_fetch_add(&rs->calls_vip, 1);
        *out_concurrency = 4;
        return 0;
    }
    return -1;
}

/* Parks `n` tasks in `group`, waits until `expect_running` of them started. */
static void park_n(groupconc_executor *ex, const char *group, tu_park *parks, groupconc_task **h,
                   int n, tu_latch *started) {
    for (int i = 0; i < n; i++) {
        tu_park_init(&parks[i], started, NULL);
        h[i] = tu_submit(ex, group, NULL, tu_park_fn, &parks[i]);
    }
}

static void release_all(tu_park *parks, groupconc_task **h, int n) {
    for (int i = 0; i < n; i++) tu_park_release(&parks[i]);
    for (int i = 0; i < n; i++) {
        groupconc_result r = tu_wait(h[i]);
        assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
        assert_false(atomic_load(&parks[i].timed_out));
        assert_int_equal(groupconc_task_release(h[i]), GROUPCONC_OK);
        tu_park_destroy(&parks[i]);
    }
}

/* Checks that exactly `cap` tasks of `group` can run at once: parks cap+1 tasks, waits for cap to
   start, checks the last one is waiting at concurrency, then lets them all finish. */
static void assert_runs_exactly(groupconc_executor *ex, const char *group, int cap) {
    tu_park parks[16];
    groupconc_task *h[16];
    tu_latch started;
    assert_true(cap + 1 <= 16);
    tu_latch_init(&started, cap);
    park_n(ex, group, parks, h, cap + 1, &started);
    assert_true(tu_latch_wait(&started));
    groupconc_group_stats s = tu_gstats(ex, group);
    assert_int_equal(s.concurrency, cap);
    assert_int_equal(s.running, (size_t)cap);
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(atomic_load(&parks[cap].ran), 0);
    release_all(parks, h, cap + 1);
    tu_latch_destroy(&started);
}

/* ---- defaults and validation -------------------------------------------------------------------- */

static void test_policy_defaults(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    assert_int_equal(p.default_concurrency, 1);
    assert_int_equal(p.default_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(p.default_queue_threshold, GROUPCONC_UNLIMITED);
    assert_int_equal(p.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(p.global_queue_threshold, GROUPCONC_UNLIMITED);
    assert_null(p.groups);
    assert_int_equal(p.group_count, 0);
    assert_null(p.resolver);
    assert_int_equal(p.rejection, GROUPCONC_REJECT_ABORT);
    assert_null(p.reject_handler);
    assert_null(p.listener);
    assert_int_equal(p.max_threads, 32);
    assert_true(p.keep_alive_ns == (int64_t)10 * TU_SEC);

    /* The defaults make a working executor whose groups get concurrency 1. */
    groupconc_executor *ex = tu_executor(&p);
    groupconc_task *t = tu_submit(ex, "g", NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_group_stats s = tu_gstats(ex, "g");
    assert_int_equal(s.concurrency, 1);
    assert_int_equal(s.max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(s.queue_threshold, GROUPCONC_UNLIMITED);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static int create_code(const groupconc_policy *p) {
    groupconc_executor *ex = NULL;
    int rc = groupconc_executor_create(p, &ex);
    if (rc == GROUPCONC_OK) groupconc_executor_destroy(ex);
    return rc;
}

static void test_policy_validation(void **state) {
    (void)state;
    groupconc_executor *ex = NULL;
    groupconc_policy p = groupconc_policy_default();

    assert_int_equal(groupconc_executor_create(NULL, &ex), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_create(&p, NULL), GROUPCONC_EINVAL);

    struct {
        int field; /* which field to set */
        int value;
        int want;
    } cases[] = {
        {0, 0, GROUPCONC_ELIMIT},  {0, -1, GROUPCONC_ELIMIT}, {0, 1, GROUPCONC_OK},
        {1, 0, GROUPCONC_ELIMIT},  {1, -2, GROUPCONC_ELIMIT}, {1, GROUPCONC_UNLIMITED, GROUPCONC_OK},
        {1, 1, GROUPCONC_OK},      {2, -2, GROUPCONC_ELIMIT}, {2, -5, GROUPCONC_ELIMIT},
        {2, 0, GROUPCONC_OK},      {2, GROUPCONC_UNLIMITED, GROUPCONC_OK},
        {3, 0, GROUPCONC_ELIMIT},  {3, -3, GROUPCONC_ELIMIT}, {3, 1, GROUPCONC_OK},
        {4, -2, GROUPCONC_ELIMIT}, {4, 0, GROUPCONC_OK},      {5, 0, GROUPCONC_ELIMIT},
        {5, -1, GROUPCONC_ELIMIT}, {5, 1, GROUPCONC_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = groupconc_policy_default();
        switch (cases[i].field) {
        case 0: p.default_concurrency = cases[i].value; break;
        case 1: p.default_max_in_flight = cases[i].value; break;
        case 2: p.default_queue_threshold = cases[i].value; break;
        case 3: p.global_max_in_flight = cases[i].value; break;
        case 4: p.global_queue_threshold = cases[i].value; break;
        default: p.max_threads = cases[i].value; break;
        }
        int rc = create_code(&p);
        if (rc != cases[i].want)
            print_error("case %zu: field %d value %d: got %s want %s\n", i, cases[i].field,
                        cases[i].value, groupconc_errname(rc), groupconc_errname(cases[i].want));
        assert_int_equal(rc, cases[i].want);
    }

    p = groupconc_policy_default();
    p.keep_alive_ns = -1;
    assert_int_equal(create_code(&p), GROUPCONC_ELIMIT);
    p.keep_alive_ns = 0;
    assert_int_equal(create_code(&p), GROUPCONC_OK);

    p = groupconc_policy_default();
    p.rejection = (groupconc_rejection_policy)99;
    assert_int_equal(create_code(&p), GROUPCONC_EPOLICY);

    /* the per-group table */
    groupconc_group_limits t[2] = {
        {"a", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
        {"b", GROUPCONC_DEFAULT, 3, 0, 0},
    };
    p = groupconc_policy_default();
    p.groups = t;
    p.group_count = 2;
    assert_int_equal(create_code(&p), GROUPCONC_OK);
    p.groups = NULL;
    assert_int_equal(create_code(&p), GROUPCONC_EINVAL);
    p.groups = t;
    t[1].group = "a";
    assert_int_equal(create_code(&p), GROUPCONC_EDUPKEY);
    t[1].group = NULL;
    assert_int_equal(create_code(&p), GROUPCONC_EINVAL);
    t[1].group = "";
    assert_int_equal(create_code(&p), GROUPCONC_EKEYEMPTY);
    char longkey[300];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    t[1].group = longkey;
    assert_int_equal(create_code(&p), GROUPCONC_EKEYTOOLONG);
    t[1].group = "b";
    t[1].concurrency = 0;
    assert_int_equal(create_code(&p), GROUPCONC_ELIMIT);
    t[1].concurrency = GROUPCONC_UNLIMITED; /* concurrency has no "unlimited" */
    assert_int_equal(create_code(&p), GROUPCONC_ELIMIT);
    t[1].concurrency = GROUPCONC_DEFAULT;
    t[1].max_in_flight = 0;
    assert_int_equal(create_code(&p), GROUPCONC_ELIMIT);
    t[1].max_in_flight = GROUPCONC_UNLIMITED;
    t[1].queue_threshold = -7;
    assert_int_equal(create_code(&p), GROUPCONC_ELIMIT);
    t[1].queue_threshold = GROUPCONC_UNLIMITED;
    assert_int_equal(create_code(&p), GROUPCONC_OK);
}

/* ---- resolution --------------------------------------------------------------------------------- */

static void test_resolver_vip(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = vip_resolver;
    p.resolver_user_data = &rs;
    groupconc_executor *ex = tu_executor(&p);

    assert_runs_exactly(ex, "vip:acme", 4);
    assert_runs_exactly(ex, "basic", 1);
    assert_int_equal(groupconc_group_stats_get(ex, "vip:zed", &(groupconc_group_stats){0}),
                     GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_resolver_vip_lookups(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = vip_resolver;
    p.resolver_user_data = &rs;
    groupconc_executor *ex = tu_executor(&p);
    const char *keys[] = {"vip:1", "vip:", "vipx", "VIP:1", "free", "x"};
    const int want[] = {4, 4, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++) {
        groupconc_task *t = tu_submit(ex, keys[i], NULL, tu_noop_fn, NULL);
        tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t);
        assert_int_equal(tu_gstats(ex, keys[i]).concurrency, want[i]);
    }
    assert_int_equal(atomic_load(&rs.calls), 6);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_table_overrides_resolver(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    groupconc_group_limits table[] = {
        {"vip:gold", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},      /* explicit beats resolver (4) */
        {"vip:silver", GROUPCONC_DEFAULT, 5, GROUPCONC_DEFAULT, 0},    /* concurrency from resolver */
        {"plain", GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 5, 0},          /* resolver fails: default */
        {"fixed", 3, GROUPCONC_UNLIMITED, GROUPCONC_UNLIMITED, 0},
    };
    groupconc_policy p = groupconc_policy_default();
    p.resolver = vip_resolver;
    p.resolver_user_data = &rs;
    p.default_concurrency = 2;
    p.default_max_in_flight = 7;
    p.default_queue_threshold = 9;
    p.groups = table;
    p.group_count = 4;
    groupconc_executor *ex = tu_executor(&p);

    assert_runs_exactly(ex, "vip:gold", 2);
    assert_runs_exactly(ex, "vip:silver", 4);
    assert_runs_exactly(ex, "plain", 2);
    assert_runs_exactly(ex, "fixed", 3);
    assert_runs_exactly(ex, "vip:other", 4);

    groupconc_group_stats s = tu_gstats(ex, "vip:gold");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.max_in_flight, 7);
    assert_int_equal(s.queue_threshold, 9);
    s = tu_gstats(ex, "vip:silver");
    assert_int_equal(s.max_in_flight, 5);
    assert_int_equal(s.queue_threshold, 9);
    s = tu_gstats(ex, "plain");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.max_in_flight, 7);
    assert_int_equal(s.queue_threshold, 5);
    s = tu_gstats(ex, "fixed");
    assert_int_equal(s.max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(s.queue_threshold, GROUPCONC_UNLIMITED);
    s = tu_gstats(ex, "vip:other");
    assert_int_equal(s.concurrency, 4);
    assert_int_equal(s.max_in_flight, 7);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* resolver: "fail:*" reports failure, "zero" -> 0, "neg" -> -7, "big" -> 6 */
static int odd_resolver(const char *group, int *out_concurrency, void *user_data) {
    resolver_state *rs = (resolver_state *)user_data;
    atomic_fetch_add(&rs->calls, 1);
    if (strncmp(group, "fail:", 5) == 0) {
        *out_concurrency = 5; /* must be ignored: the call failed */
        return 1;
    }
    if (strcmp(group, "zero") == 0) {
        *out_concurrency = 0;
        return 0;
    }
    if (strcmp(group, "neg") == 0) {
        *out_concurrency = -7;
        return 0;
    }
    *out_concurrency = 6;
    return 0;
}

static void test_resolver_failure_uses_default(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = odd_resolver;
    p.resolver_user_data = &rs;
    p.default_concurrency = 3;
    groupconc_executor *ex = tu_executor(&p);
    assert_runs_exactly(ex, "fail:a", 3);
    assert_runs_exactly(ex, "big", 6);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_resolver_below_one_becomes_one(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = odd_resolver;
    p.resolver_user_data = &rs;
    p.default_concurrency = 3; /* so "became 1" cannot be confused with "used the default" */
    groupconc_executor *ex = tu_executor(&p);
    assert_runs_exactly(ex, "zero", 1);
    assert_runs_exactly(ex, "neg", 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* "fresh-<n>" keys: counts calls per key, answers `answer`, optionally dawdles. */
static int counting_resolver(const char *group, int *out_concurrency, void *user_data) {
    resolver_state *rs = (resolver_state *)user_data;
    atomic_fetch_add(&rs->calls, 1);
    int k = atoi(group + 6);
    if (strncmp(group, "fresh-", 6) == 0 && k >= 0 && k < 32) atomic_fetch_add(&rs->per_key[k], 1);
    int d = atomic_load(&rs->delay_us);
    if (d > 0) tu_sleep_ns((int64_t)d * 1000);
    *out_concurrency = atomic_load(&rs->answer);
    return 0;
}

typedef struct racer {
    groupconc_executor *ex;
    tu_latch *gate;
    const char *key;
    atomic_int *ok;
    groupconc_task *task;
    int rc;
} racer;

static void racer_main(void *arg) {
    racer *r = (racer *)arg;
    tu_latch_wait(r->gate);
    r->rc = groupconc_submit(r->ex, r->key, NULL, tu_count_fn, r->ok, &r->task);
}

static void test_first_resolution_fixed(void **state) {
    (void)state;
    resolver_state rs;
    resolver_state_init(&rs);
    atomic_store(&rs.answer, 2);
    atomic_store(&rs.delay_us, 500);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = counting_resolver;
    p.resolver_user_data = &rs;
    groupconc_executor *ex = tu_executor(&p);

    /* 8 threads hit each new group at the same moment: the resolver runs once per group. */
    enum { KEYS = 12, THREADS = 8 };
    atomic_int ran;
    atomic_init(&ran, 0);
    for (int k = 0; k < KEYS; k++) {
        char key[32];
        snprintf(key, sizeof key, "fresh-%d", k);
        tu_latch gate;
        tu_latch_init(&gate, 1);
        racer rc[THREADS];
        tu_thread th[THREADS];
        for (int i = 0; i < THREADS; i++) {
            rc[i] = (racer){ex, &gate, key, &ran, NULL, -100};
            assert_true(tu_thread_start(&th[i], racer_main, &rc[i]));
        }
        tu_latch_open(&gate);
        for (int i = 0; i < THREADS; i++) tu_thread_join(th[i]);
        for (int i = 0; i < THREADS; i++) {
            assert_int_equal(rc[i].rc, GROUPCONC_OK);
            tu_wait_status(rc[i].task, GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(rc[i].task);
        }
        tu_latch_destroy(&gate);
        assert_int_equal(atomic_load(&rs.per_key[k]), 1);
        groupconc_group_stats s = tu_gstats(ex, key);
        assert_int_equal(s.concurrency, 2);
        assert_int_equal(s.submitted, THREADS);
    }
    assert_int_equal(atomic_load(&ran), KEYS * THREADS);
    assert_int_equal(atomic_load(&rs.calls), KEYS);

    /* The resolver's answer changes: the live group keeps its first resolution. */
    atomic_store(&rs.answer, 5);
    atomic_store(&rs.delay_us, 0);
    assert_runs_exactly(ex, "fresh-0", 2);
    assert_int_equal(atomic_load(&rs.per_key[0]), 1);
    assert_int_equal(tu_gstats(ex, "fresh-0").concurrency, 2);
    /* a group created after the change gets the new answer */
    assert_runs_exactly(ex, "fresh-20", 5);
    assert_int_equal(atomic_load(&rs.calls), KEYS + 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_policy_is_copied(void **state) {
    (void)state;
    char key[32] = "copied-key";
    groupconc_group_limits *table = (groupconc_group_limits *)malloc(sizeof *table);
    assert_non_null(table);
    *table = (groupconc_group_limits){key, 3, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0};
    groupconc_policy *p = (groupconc_policy *)malloc(sizeof *p);
    assert_non_null(p);
    *p = groupconc_policy_default();
    p->groups = table;
    p->group_count = 1;
    groupconc_executor *ex = tu_executor(p);

    /* scribble over the caller's copies and free them */
    strcpy(key, "other-key");
    table->concurrency = 7;
    p->default_concurrency = 9;
    free(table);
    free(p);

    assert_runs_exactly(ex, "copied-key", 3);
    assert_runs_exactly(ex, "other-key", 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_defaults),
        cmocka_unit_test(test_policy_validation),
        cmocka_unit_test(test_resolver_vip),
        cmocka_unit_test(test_resolver_vip_lookups),
        cmocka_unit_test(test_table_overrides_resolver),
        cmocka_unit_test(test_resolver_failure_uses_default),
        cmocka_unit_test(test_resolver_below_one_becomes_one),
        cmocka_unit_test(test_first_resolution_fixed),
        cmocka_unit_test(test_policy_is_copied),
    };
    return TU_RUN_TESTS(tests);
}
