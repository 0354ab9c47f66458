/* test_groups.c - group control and stats: groupconc_group_shutdown, groupconc_group_evict (limits
   re-resolved), stats of a latched state, submitted counted everywhere, unknown groups, the key
   list, bad input. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

typedef struct answer_resolver {
    atomic_int calls;
    atomic_int answer;
} answer_resolver;

static int answer_fn(const char *group, int *out_concurrency, void *user_data) {
    (void)group;
    answer_resolver *a = (answer_resolver *)user_data;
    atomic_fetch_add(&a->calls, 1);
    *out_concurrency = atomic_load(&a->answer);
    return 0;
}

/* ---- groupconc_group_shutdown ------------------------------------------------------------------- */

static void test_shutdown_group_leaves_others(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 2);
    tu_park pa, pb;
    tu_park_init(&pa, &started, NULL);
    tu_park_init(&pb, &started, NULL);
    pa.cooperative = true;
    groupconc_task *ha = tu_submit(ex, "A", "a-run", tu_park_fn, &pa);
    groupconc_task *hb = tu_submit(ex, "B", "b-run", tu_park_fn, &pb);
    assert_true(tu_latch_wait(&started));
    atomic_int ran_a, ran_b;
    atomic_init(&ran_a, 0);
    atomic_init(&ran_b, 0);
    groupconc_task *qa1 = tu_submit(ex, "A", "a-q1", tu_count_fn, &ran_a);
    groupconc_task *qa2 = tu_submit(ex, "A", "a-q2", tu_count_fn, &ran_a);
    groupconc_task *qb = tu_submit(ex, "B", "b-q", tu_count_fn, &ran_b);

    assert_int_equal(groupconc_group_shutdown(ex, "A"), GROUPCONC_OK);

    /* A's queued tasks are cancelled at once */
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(qa1, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_int_equal(groupconc_task_wait_for(qa2, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    /* A's running task is flagged and stops cooperatively */
    r = tu_wait(ha);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);
    assert_true(atomic_load(&pa.saw_cancel));

    /* B is untouched: still running, still queued, not flagged */
    groupconc_group_stats s = tu_gstats(ex, "B");
    assert_int_equal(s.running, 1);
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.cancelled, 0);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(qb, &done), GROUPCONC_OK);
    assert_false(done);
    tu_park_release(&pb);
    tu_wait_status(hb, GROUPCONC_STATUS_SUCCESS);
    tu_wait_status(qb, GROUPCONC_STATUS_SUCCESS);
    assert_false(atomic_load(&pb.saw_cancel));
    assert_int_equal(atomic_load(&ran_b), 1);

    /* A is usable again, with its state (and counters) kept */
    groupconc_task *again = tu_submit(ex, "A", "a-again", tu_count_fn, &ran_a);
    tu_wait_status(again, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran_a), 1);
    s = tu_gstats(ex, "A");
    assert_int_equal(s.cancelled, 3);
    assert_int_equal(s.submitted, 4);
    assert_int_equal(s.running, 0);
    assert_int_equal(s.in_flight, 0);
    assert_false(tu_xstats(ex).shutdown);

    /* an unknown key is a successful no-op */
    assert_int_equal(groupconc_group_shutdown(ex, "never-used"), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "never-used", &s), GROUPCONC_ENOTFOUND);

    groupconc_task *all[] = {ha, hb, qa1, qa2, qb, again};
    for (size_t i = 0; i < 6; i++) assert_int_equal(groupconc_task_release(all[i]), GROUPCONC_OK);
    tu_park_destroy(&pa);
    tu_park_destroy(&pb);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- groupconc_group_evict ---------------------------------------------------------------------- */

static void test_evict_reresolves(void **state) {
    (void)state;
    answer_resolver ar;
    atomic_init(&ar.calls, 0);
    atomic_init(&ar.answer, 2);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = answer_fn;
    p.resolver_user_data = &ar;
    groupconc_executor *ex = tu_executor(&p);

    groupconc_task *t = tu_submit(ex, "e", NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(t);
    assert_int_equal(tu_gstats(ex, "e").concurrency, 2);
    assert_int_equal(atomic_load(&ar.calls), 1);

    atomic_store(&ar.answer, 3);
    t = tu_submit(ex, "e", NULL, tu_noop_fn, NULL); /* live group: no new resolution */
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(t);
    assert_int_equal(tu_gstats(ex, "e").concurrency, 2);
    assert_int_equal(atomic_load(&ar.calls), 1);

    assert_int_equal(groupconc_group_evict(ex, "e"), GROUPCONC_OK);
    groupconc_group_stats s;
    assert_int_equal(groupconc_group_stats_get(ex, "e", &s), GROUPCONC_ENOTFOUND); /* nothing in flight */
    assert_int_equal(tu_xstats(ex).groups, 0);

    /* next use: resolved afresh, the new limit is in force */
    tu_latch started;
    tu_latch_init(&started, 3);
    tu_park parks[4];
    groupconc_task *h[4];
    for (int i = 0; i < 4; i++) {
        tu_park_init(&parks[i], &started, NULL);
        h[i] = tu_submit(ex, "e", NULL, tu_park_fn, &parks[i]);
    }
    assert_true(tu_latch_wait(&started));
    assert_int_equal(atomic_load(&ar.calls), 2);
    s = tu_gstats(ex, "e");
    assert_int_equal(s.concurrency, 3);
    assert_int_equal(s.running, 3);
    assert_int_equal(s.waiting_concurrency, 1);
    assert_int_equal(s.submitted, 4); /* counters start again with the new state */
    for (int i = 0; i < 4; i++) tu_park_release(&parks[i]);
    for (int i = 0; i < 4; i++) {
        tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(h[i]);
        tu_park_destroy(&parks[i]);
    }
    tu_latch_destroy(&started);

    assert_int_equal(groupconc_group_evict(ex, "never-used"), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A submitting thread's memo of the group it last found (groupconc__group_memo_find, "key
   table") never outlives the group: after an evict by another thread, after a reclaim, and across
   executors (a destroyed one and the next, which may get its address), the next submit of the same
   key from the same thread gets a fresh group (its counters start again, its limit is resolved
   again). Keys of 39 bytes (the longest noted, with its terminator) and of 40 (not noted). Under
   ASan a stale memo is a use after free. */
typedef struct evict_arg {
    groupconc_executor *ex;
    const char *key;
    int rc;
} evict_arg;

static void evict_main(void *arg) {
    evict_arg *a = (evict_arg *)arg;
    a->rc = groupconc_group_evict(a->ex, a->key);
}

static void test_memo_never_outlives_its_group(void **state) {
    (void)state;
    char k39[40], k40[41];
    memset(k39, 'k', sizeof k39 - 1);
    k39[sizeof k39 - 1] = '\0';
    memset(k40, 'k', sizeof k40 - 1);
    k40[sizeof k40 - 1] = '\0';
    const char *keys[] = {"m", k39, k40};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        answer_resolver ar;
        atomic_init(&ar.calls, 0);
        atomic_init(&ar.answer, 2);
        groupconc_policy p = groupconc_policy_default();
        p.resolver = answer_fn;
        p.resolver_user_data = &ar;
        p.max_threads = 1;
        groupconc_executor *ex = tu_executor(&p);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 2; i++) { /* the second submit finds the group through the memo */
                groupconc_task *t = tu_submit(ex, keys[k], NULL, tu_noop_fn, NULL);
                tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
                groupconc_task_release(t);
            }
            assert_int_equal(tu_gstats(ex, keys[k]).submitted, 2);
            assert_int_equal(atomic_load(&ar.calls), round + 1);
            evict_arg a = {ex, keys[k], INT_MIN};
            tu_thread th;
            assert_true(tu_thread_start(&th, evict_main, &a)); /* another thread's evict */
            tu_thread_join(th);
            assert_int_equal(a.rc, GROUPCONC_OK);
            assert_int_equal(tu_xstats(ex).groups, 0);
        }
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

        /* a reclaim for room (max_groups 1) between two submits of the key */
        p = groupconc_policy_default();
        p.max_groups = 1;
        ex = tu_executor(&p);
        for (int round = 0; round < 20; round++) {
            const char *other = (round % 2) ? "other-a" : "other-b";
            for (int i = 0; i < 2; i++) {
                groupconc_task *t = tu_submit(ex, keys[k], NULL, tu_noop_fn, NULL);
                tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
                groupconc_task_release(t);
            }
            assert_int_equal(tu_gstats(ex, keys[k]).submitted, 2);
            groupconc_task *t = tu_submit(ex, other, NULL, tu_noop_fn, NULL); /* reclaims keys[k] */
            tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(t);
            groupconc_group_stats s;
            assert_int_equal(groupconc_group_stats_get(ex, keys[k], &s), GROUPCONC_ENOTFOUND);
        }
        assert_int_equal(tu_xstats(ex).groups_reclaimed, 39);
        assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);

        /* executor after executor, the key submitted twice to each */
        p = groupconc_policy_default();
        for (int round = 0; round < 20; round++) {
            ex = tu_executor(&p);
            for (int i = 0; i < 2; i++) {
                groupconc_task *t = tu_submit(ex, keys[k], NULL, tu_noop_fn, NULL);
                tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
                groupconc_task_release(t);
            }
            assert_int_equal(tu_gstats(ex, keys[k]).submitted, 2);
            assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
        }
    }
}

/* Evicting while a task runs: its queued peers are cancelled, it is flagged, and a new submit gets
   fresh state at once (documented overlap: it may run beside the old task). */
static void test_evict_while_running(void **state) {
    (void)state;
    answer_resolver ar;
    atomic_init(&ar.calls, 0);
    atomic_init(&ar.answer, 1);
    groupconc_policy p = groupconc_policy_default();
    p.resolver = answer_fn;
    p.resolver_user_data = &ar;
    groupconc_executor *ex = tu_executor(&p);

    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park old;
    tu_park_init(&old, &started, NULL); /* ignores its flag */
    groupconc_task *ho = tu_submit(ex, "ev", NULL, tu_park_fn, &old);
    assert_true(tu_latch_wait(&started));
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *hq = tu_submit(ex, "ev", NULL, tu_count_fn, &ran);

    atomic_store(&ar.answer, 2);
    assert_int_equal(groupconc_group_evict(ex, "ev"), GROUPCONC_OK);
    groupconc_result r;
    assert_int_equal(groupconc_task_wait_for(hq, 0, &r), GROUPCONC_OK);
    assert_int_equal(r.status, GROUPCONC_STATUS_CANCELLED);

    groupconc_task *hn = tu_submit(ex, "ev", NULL, tu_count_fn, &ran);
    tu_wait_status(hn, GROUPCONC_STATUS_SUCCESS); /* while the old task still runs */
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(atomic_load(&ar.calls), 2);
    groupconc_group_stats s = tu_gstats(ex, "ev");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(s.submitted, 1);
    bool done = true;
    assert_int_equal(groupconc_task_is_done(ho, &done), GROUPCONC_OK);
    assert_false(done);

    tu_park_release(&old);
    r = tu_wait(ho);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS); /* it returned 0 */
    assert_true(atomic_load(&old.saw_cancel));
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.global_in_flight, 0);
    assert_int_equal(xs.running, 0);
    groupconc_task_release(ho);
    groupconc_task_release(hq);
    groupconc_task_release(hn);
    tu_park_destroy(&old);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* ---- stats -------------------------------------------------------------------------------------- */

static void test_stats_latched_state(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"s", 3, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    enum { N = 8 };
    tu_latch started;
    tu_latch_init(&started, 3);
    tu_park parks[N];
    groupconc_task *h[N];
    for (int i = 0; i < N; i++) {
        tu_park_init(&parks[i], &started, NULL);
        h[i] = tu_submit(ex, "s", NULL, tu_park_fn, &parks[i]);
    }
    assert_true(tu_latch_wait(&started));
    tu_sleep_ns(30 * TU_MS); /* give the oldest waiter an age well above the coarse clock's tick */

    groupconc_group_stats s = tu_gstats(ex, "s");
    assert_int_equal(s.concurrency, 3);
    assert_int_equal(s.max_in_flight, GROUPCONC_UNLIMITED);
    assert_int_equal(s.queue_threshold, GROUPCONC_UNLIMITED);
    assert_int_equal(s.running, 3);
    assert_int_equal(s.ready, 0);
    assert_int_equal(s.waiting_global, 0);
    assert_int_equal(s.waiting_bulkhead, 0);
    assert_int_equal(s.waiting_concurrency, 5);
    assert_int_equal(s.in_flight, 8);
    assert_int_equal(s.submitted, 8);
    assert_int_equal(tu_rejected(s), 0);
    assert_int_equal(s.completed, 0);
    assert_int_equal(s.cancelled, 0);
    assert_true(s.oldest_wait_ns >= (uint64_t)(20 * TU_MS));
    assert_true(s.oldest_wait_ns < (uint64_t)(600 * TU_SEC));

    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.groups, 1);
    assert_int_equal(xs.running, 3);
    assert_int_equal(xs.ready, 0);
    assert_int_equal(xs.waiting, 5);
    assert_int_equal(xs.global_in_flight, 8);
    assert_int_equal(xs.global_max_in_flight, GROUPCONC_UNLIMITED);
    assert_true(xs.threads >= 3);
    assert_true(xs.threads <= 32);
    assert_false(xs.shutdown);

    for (int i = 0; i < N; i++) tu_park_release(&parks[i]);
    for (int i = 0; i < N; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    s = tu_gstats(ex, "s");
    assert_int_equal(s.running, 0);
    assert_int_equal(s.waiting_concurrency, 0);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.completed, 8);
    assert_int_equal(s.oldest_wait_ns, 0);
    xs = tu_xstats(ex);
    assert_int_equal(xs.running, 0);
    assert_int_equal(xs.waiting, 0);
    assert_int_equal(xs.global_in_flight, 0);
    for (int i = 0; i < N; i++) {
        groupconc_task_release(h[i]);
        tu_park_destroy(&parks[i]);
    }
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* A group's `submitted` counts its tasks wherever they are: waiting at each of the three layers,
   ready for a thread, running, and done (the group keeps no separate count: it adds these up). */
static void test_stats_submitted_everywhere(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = 1;
    p.default_max_in_flight = 2;
    p.global_max_in_flight = 4;
    p.max_threads = 1;
    groupconc_executor *ex = tu_executor(&p);
    tu_latch started;
    tu_latch_init(&started, 1);
    tu_park blocker;
    tu_park_init(&blocker, &started, NULL);
    groupconc_task *h[7];
    h[0] = tu_submit(ex, "a", NULL, tu_park_fn, &blocker); /* runs on the only thread */
    assert_true(tu_latch_wait(&started));
    h[1] = tu_submit(ex, "a", NULL, tu_noop_fn, NULL); /* waits at a's concurrency layer */
    h[2] = tu_submit(ex, "a", NULL, tu_noop_fn, NULL); /* waits at a's bulkhead (2 in flight) */
    h[3] = tu_submit(ex, "b", NULL, tu_noop_fn, NULL); /* all permits, no thread: ready */
    h[4] = tu_submit(ex, "a", NULL, tu_noop_fn, NULL); /* global cap 4 reached: waits for a permit */
    groupconc_group_stats a = tu_gstats(ex, "a"), b = tu_gstats(ex, "b");
    assert_int_equal(a.running, 1);
    assert_int_equal(a.waiting_concurrency, 1);
    assert_int_equal(a.waiting_bulkhead, 1);
    assert_int_equal(a.waiting_global, 1);
    assert_int_equal(a.submitted, 4);
    assert_int_equal(a.completed, 0);
    assert_int_equal(b.ready, 1);
    assert_int_equal(b.submitted, 1);
    assert_int_equal(b.completed, 0);
    groupconc_cancel_outcome out;
    assert_int_equal(groupconc_task_cancel(h[4], &out), GROUPCONC_OK);
    assert_int_equal(out, GROUPCONC_CANCEL_DEQUEUED);
    a = tu_gstats(ex, "a");
    assert_int_equal(a.submitted, 4); /* the cancelled one moved to `cancelled` */
    assert_int_equal(a.cancelled, 1);
    assert_int_equal(a.waiting_global, 0);
    tu_park_release(&blocker);
    for (int i = 0; i < 4; i++) tu_wait_status(h[i], GROUPCONC_STATUS_SUCCESS);
    a = tu_gstats(ex, "a");
    b = tu_gstats(ex, "b");
    assert_int_equal(a.submitted, 4);
    assert_int_equal(a.succeeded, 3);
    assert_int_equal(a.completed, 4);
    assert_int_equal(a.running + a.ready + a.in_flight, 0);
    assert_int_equal(b.submitted, 1);
    assert_int_equal(b.completed, 1);
    for (int i = 0; i < 5; i++) groupconc_task_release(h[i]);
    tu_park_destroy(&blocker);
    tu_latch_destroy(&started);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_stats_unknown_group(void **state) {
    (void)state;
    groupconc_group_limits table[] = {{"configured", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0}};
    groupconc_policy p = groupconc_policy_default();
    p.groups = table;
    p.group_count = 1;
    groupconc_executor *ex = tu_executor(&p);
    groupconc_group_stats s;
    assert_int_equal(groupconc_group_stats_get(ex, "nobody", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(tu_xstats(ex).groups, 0);
    groupconc_task *t = tu_submit(ex, "somebody", NULL, tu_noop_fn, NULL);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    groupconc_task_release(t);
    assert_int_equal(groupconc_group_stats_get(ex, "somebody", &s), GROUPCONC_OK);
    assert_int_equal(groupconc_group_stats_get(ex, "nobody", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_group_stats_get(ex, "somebodyX", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_group_stats_get(ex, "somebod", &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(tu_xstats(ex).groups, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static bool keys_contain(char **keys, size_t n, const char *k) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], k) == 0) return true;
    return false;
}

static void test_group_keys(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    char **keys = NULL;
    size_t n = 99;
    assert_int_equal(groupconc_group_keys_get(ex, &keys, &n), GROUPCONC_OK);
    assert_int_equal(n, 0);
    groupconc_group_keys_free(keys);
    const char *names[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 2; j++) {
            groupconc_task *t = tu_submit(ex, names[i], NULL, tu_noop_fn, NULL);
            tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(t);
        }
    }
    assert_int_equal(groupconc_group_keys_get(ex, &keys, &n), GROUPCONC_OK);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) assert_true(keys_contain(keys, n, names[i]));
    groupconc_group_keys_free(keys);
    assert_int_equal(groupconc_group_evict(ex, "beta"), GROUPCONC_OK);
    assert_int_equal(groupconc_group_keys_get(ex, &keys, &n), GROUPCONC_OK);
    assert_int_equal(n, 2);
    assert_false(keys_contain(keys, n, "beta"));
    groupconc_group_keys_free(keys);
    groupconc_group_keys_free(NULL);
    assert_int_equal(groupconc_group_keys_get(NULL, &keys, &n), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_keys_get(ex, NULL, &n), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_keys_get(ex, &keys, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* Two keys whose hashes agree in the 32 bits the key table keeps, the stored one shorter: the
   table must compare the keys themselves, and never read past the stored one (ASan builds). */
static void test_hash_collision_keys(void **state) {
    (void)state;
    const char *shorter = "x26431", *longer = "longer-key-55078"; /* low 32 bits 0x273c0127 */
    size_t len;
    uint64_t h1, h2;
    assert_int_equal(groupconc__key_hash(shorter, &len, &h1), GROUPCONC_OK);
    assert_int_equal(groupconc__key_hash(longer, &len, &h2), GROUPCONC_OK);
    assert_int_equal((uint32_t)h1, (uint32_t)h2); /* the pair still collides */
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    const char *order[] = {shorter, longer, longer, shorter, shorter};
    for (int i = 0; i < 5; i++) {
        groupconc_task *t = tu_submit(ex, order[i], NULL, tu_noop_fn, NULL);
        tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
        groupconc_task_release(t);
    }
    groupconc_group_stats s;
    assert_int_equal(groupconc_group_stats_get(ex, shorter, &s), GROUPCONC_OK);
    assert_int_equal(s.submitted, 3);
    assert_int_equal(groupconc_group_stats_get(ex, longer, &s), GROUPCONC_OK);
    assert_int_equal(s.submitted, 2);
    assert_int_equal(groupconc_group_evict(ex, shorter), GROUPCONC_OK); /* removal in a collision chain */
    assert_int_equal(groupconc_group_stats_get(ex, shorter, &s), GROUPCONC_ENOTFOUND);
    assert_int_equal(groupconc_group_stats_get(ex, longer, &s), GROUPCONC_OK);
    assert_int_equal(s.submitted, 2);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* FNV-1a byte by byte and the final mix, as groupconc__key_hash's comment says: its four-byte
   steps must give the same hash and length, and refuse the same keys. */
static int reference_key_hash(const char *key, size_t *out_len, uint64_t *out_hash) {
    uint64_t h = 14695981039346656037u;
    size_t n = 0;
    while (key[n] != '\0' && n < GROUPCONC_MAX_KEY_LEN) h = (h ^ (unsigned char)key[n++]) * 1099511628211u;
    if (n == 0 || key[n] != '\0') return n == 0 ? GROUPCONC_EKEYEMPTY : GROUPCONC_EKEYTOOLONG;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    if ((uint32_t)h == 0) h |= 1;
    *out_len = n;
    *out_hash = h;
    return GROUPCONC_OK;
}

/* The key hash at every length up to past the limit; the key copy and compare at every length
   and every place a byte can differ, at odd alignments: the word loop, the overlapping last word,
   the short keys' byte loop. */
static void test_key_compare(void **state) {
    (void)state;
    char abuf[GROUPCONC_MAX_KEY_LEN + 8], bbuf[GROUPCONC_MAX_KEY_LEN + 8];
    char *a = abuf + 1, *b = bbuf + 3;
    for (size_t len = 0; len <= GROUPCONC_MAX_KEY_LEN + 2; len++) {
        size_t l1 = 0, l2 = 0;
        uint64_t h1 = 0, h2 = 0;
        for (size_t i = 0; i < len; i++) a[i] = (char)('a' + (i * 7 + len) % 26);
        a[len] = '\0';
        int rc = reference_key_hash(a, &l2, &h2);
        assert_int_equal(groupconc__key_hash(a, &l1, &h1), rc);
        assert_int_equal(rc, len == 0 ? GROUPCONC_EKEYEMPTY
                                      : len > GROUPCONC_MAX_KEY_LEN ? GROUPCONC_EKEYTOOLONG : GROUPCONC_OK);
        if (rc == GROUPCONC_OK) {
            assert_int_equal(l1, l2);
            assert_int_equal(h1, h2);
        }
    }
    for (size_t len = 0; len <= GROUPCONC_MAX_KEY_LEN; len++) {
        for (size_t i = 0; i < len; i++) a[i] = b[i] = (char)('a' + i % 26);
        assert_true(groupconc__key_same(a, b, len));
        memset(bbuf, '#', sizeof bbuf); /* the copy (the memo's): len bytes, none around them */
        groupconc__key_copy(b, a, len);
        assert_true(groupconc__key_same(a, b, len));
        assert_int_equal(b[-1], '#');
        assert_int_equal(b[len], '#');
        for (size_t pos = 0; pos < len; pos++) {
            b[pos] = '#';
            assert_false(groupconc__key_same(a, b, len));
            b[pos] = a[pos];
        }
    }
    /* a group's key against the same key, a prefix of it and one byte longer: the length byte
       decides before any byte is read (in the long keys' byte loop, the NUL) */
    memset(a, 'k', GROUPCONC_MAX_KEY_LEN + 1);
    for (size_t len = 1; len <= GROUPCONC_MAX_KEY_LEN; len++) {
        groupconc__group *g = (groupconc__group *)malloc(offsetof(groupconc__group, key) + len + 1);
        assert_non_null(g);
        memset(g->key, 'k', len);
        g->key[len] = '\0';
        g->keylen = (uint8_t)(len < GROUPCONC__KEYLEN_LONG ? len : GROUPCONC__KEYLEN_LONG);
        assert_true(groupconc__group_key_is(g, a, len));
        assert_false(groupconc__group_key_is(g, a, len - 1));
        assert_false(groupconc__group_key_is(g, a, len + 1));
        free(g);
    }
}

/* Keys of every length up to GROUPCONC_MAX_KEY_LEN, each a prefix of the longer ones, and for each
   a twin of the same length that differs in one byte (at the first, the last or a middle place):
   every one is a group of its own, found again by the second round. Past GROUPCONC__KEYLEN_LONG
   bytes the groups keep no exact length (255 and 256 both read "long"): their keys are compared to
   the NUL. */
static void test_key_lengths(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    char key[GROUPCONC_MAX_KEY_LEN + 1], twin[GROUPCONC_MAX_KEY_LEN + 1];
    groupconc_group_stats s;
    char **keys;
    size_t n, len;
    for (int round = 0; round < 2; round++) {
        for (len = 1; len <= GROUPCONC_MAX_KEY_LEN; len++) {
            size_t pos = len % 3 == 0 ? 0 : len % 3 == 1 ? len - 1 : len / 2;
            memset(key, 'k', len);
            key[len] = '\0';
            memcpy(twin, key, len + 1);
            twin[pos] = 'T';
            groupconc_task *t = tu_submit(ex, key, NULL, tu_noop_fn, NULL);
            groupconc_task *u = tu_submit(ex, twin, NULL, tu_noop_fn, NULL);
            tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
            tu_wait_status(u, GROUPCONC_STATUS_SUCCESS);
            groupconc_task_release(t);
            groupconc_task_release(u);
        }
    }
    for (len = 1; len <= GROUPCONC_MAX_KEY_LEN; len++) {
        memset(key, 'k', len);
        key[len] = '\0';
        assert_int_equal(groupconc_group_stats_get(ex, key, &s), GROUPCONC_OK);
        assert_int_equal(s.submitted, 2);
    }
    assert_int_equal(groupconc_group_keys_get(ex, &keys, &n), GROUPCONC_OK);
    assert_int_equal(n, 2 * GROUPCONC_MAX_KEY_LEN);
    groupconc_group_keys_free(keys);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

static void test_group_functions_bad_input(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    char longkey[GROUPCONC_MAX_KEY_LEN + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    groupconc_group_stats s;
    groupconc_executor_stats xs;
    assert_int_equal(groupconc_group_stats_get(NULL, "g", &s), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_stats_get(ex, NULL, &s), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_stats_get(ex, "g", NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_stats_get(ex, "", &s), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_group_stats_get(ex, longkey, &s), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_executor_stats_get(NULL, &xs), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_executor_stats_get(ex, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_shutdown(NULL, "g"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_shutdown(ex, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_shutdown(ex, ""), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_group_shutdown(ex, longkey), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(groupconc_group_evict(NULL, "g"), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_evict(ex, NULL), GROUPCONC_EINVAL);
    assert_int_equal(groupconc_group_evict(ex, ""), GROUPCONC_EKEYEMPTY);
    assert_int_equal(groupconc_group_evict(ex, longkey), GROUPCONC_EKEYTOOLONG);
    assert_int_equal(tu_xstats(ex).groups, 0);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shutdown_group_leaves_others),
        cmocka_unit_test(test_evict_reresolves),
        cmocka_unit_test(test_evict_while_running),
        cmocka_unit_test(test_memo_never_outlives_its_group),
        cmocka_unit_test(test_stats_latched_state),
        cmocka_unit_test(test_stats_submitted_everywhere),
        cmocka_unit_test(test_stats_unknown_group),
        cmocka_unit_test(test_group_keys),
        cmocka_unit_test(test_hash_collision_keys),
        cmocka_unit_test(test_key_compare),
        cmocka_unit_test(test_key_lengths),
        cmocka_unit_test(test_group_functions_bad_input),
    };
    return TU_RUN_TESTS(tests);
}
