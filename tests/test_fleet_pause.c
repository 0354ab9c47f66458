/* test_fleet_pause.c - the fleet layer where it meets pause, evict and the read-only calls: three
   defects a review of the issue 23 / 24 fixes found, each with the state built deterministically
   (a provider that holds its requests, latches, no sleeps):
     - a GRANTED answer that arrives for a paused group gives the lease back; an evict meanwhile
       freed the group, and the release read its key (ASan: heap-use-after-free in fleet_answer);
     - a notify that came while the group was paused, with a request still out, was forgotten: a
       BUSY answer after the resume waited for the next freed lease (or a poll) instead of asking;
     - a read-only call (stats, dump) that admitted the inbox asked the provider on its own thread,
       where an answer made inside acquire (REJECT, OPEN) completed another task: an executor with a
       provider now admits at submit, so the ask is the submitter's.
   And one an adversarial hunt found: with any group paused, a graceful shutdown gave up at once on
   a task of an unpaused group waiting at the fleet layer for its lease, and cancelled it. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

/* ---- a provider that holds its requests ---------------------------------------------------- */

typedef struct held_provider {
    tu_mutex mu;
    groupconc_fleet_request *req[8];
    int nreq;
    atomic_int asks, releases;
    atomic_int key_ok;           /* release saw the key it should have */
    const char *key;             /* the key release should see */
    tu_latch in_release, go_release; /* release blocks until the test says go */
    bool block_release;
    groupconc_fleet_verdict inline_verdict; /* GRANTED (0): hold; else answer inside acquire */
    tu_thread_id asker[8];       /* the thread of each ask */
} held_provider;

static held_provider *hp_new(const char *key) {
    held_provider *h = (held_provider *)calloc(1, sizeof *h);
    assert_non_null(h);
    tu_mutex_init(&h->mu);
    h->key = key;
    atomic_init(&h->key_ok, 1);
    tu_latch_init(&h->in_release, 1);
    tu_latch_init(&h->go_release, 1);
    return h;
}

static void hp_free(held_provider *h) {
    tu_latch_destroy(&h->in_release);
    tu_latch_destroy(&h->go_release);
    tu_mutex_destroy(&h->mu);
    free(h);
}

static void hp_acquire(void *ud, groupconc_fleet_request *req, const char *group) {
    held_provider *h = (held_provider *)ud;
    (void)group;
    int n = atomic_fetch_add(&h->asks, 1);
    if (n < 8) h->asker[n] = tu_self();
    if (h->inline_verdict != GROUPCONC_FLEET_GRANTED) {
        (void)groupconc_fleet_answer(req, h->inline_verdict, 0);
        return;
    }
    tu_mutex_lock(&h->mu);
    if (h->nreq < 8) h->req[h->nreq++] = req;
    tu_mutex_unlock(&h->mu);
}

static void hp_release(void *ud, const char *group, uint64_t lease) {
    held_provider *h = (held_provider *)ud;
    (void)lease;
    if (h->block_release) {
        tu_latch_count_down(&h->in_release);
        (void)tu_latch_wait(&h->go_release);
    }
    if (strcmp(group, h->key) != 0) atomic_store(&h->key_ok, 0); /* read after the evict */
    atomic_fetch_add(&h->releases, 1);
}

static groupconc_fleet_request *hp_take(held_provider *h) {
    int64_t end = tu_now_ns() + TU_TIMEOUT_NS;
    for (;;) {
        groupconc_fleet_request *r = NULL;
        tu_mutex_lock(&h->mu);
        if (h->nreq > 0) r = h->req[--h->nreq];
        tu_mutex_unlock(&h->mu);
        if (r || tu_now_ns() > end) return r;
        tu_sleep_ns(TU_MS / 2); /* bounded by the clock above */
    }
}

static groupconc_executor *hp_executor(held_provider *h) {
    groupconc_policy p = groupconc_policy_default();
    p.fleet.acquire = hp_acquire;
    p.fleet.release = hp_release;
    p.fleet.user_data = h;
    return tu_executor(&p);
}

typedef struct answer_arg {
    groupconc_fleet_request *req;
    groupconc_fleet_verdict verdict;
    int rc;
} answer_arg;

static void answer_main(void *p) {
    answer_arg *a = (answer_arg *)p;
    a->rc = groupconc_fleet_answer(a->req, a->verdict, 7);
}

/* ---- tests --------------------------------------------------------------------------------------- */

/* A GRANTED answer for a paused group gives the lease back with the group's key; an evict that runs
   while the provider's release is in progress cancels the task and frees the group: the key must
   still be readable there. */
static void test_paused_grant_release_outlives_evict(void **state) {
    (void)state;
    static const char key[] = "some-group-key-of-some-length";
    held_provider *h = hp_new(key);
    h->block_release = true;
    groupconc_executor *ex = hp_executor(h);
    assert_int_equal(groupconc_submit(ex, key, NULL, tu_noop_fn, NULL, NULL), GROUPCONC_OK);
    groupconc_fleet_request *req = hp_take(h);
    assert_non_null(req);
    assert_int_equal(groupconc_group_pause(ex, key), GROUPCONC_OK);
    answer_arg a = {req, GROUPCONC_FLEET_GRANTED, -1};
    tu_thread th;
    assert_true(tu_thread_start(&th, answer_main, &a));
    assert_true(tu_latch_wait(&h->in_release)); /* the answer is in release, the lock dropped */
    assert_int_equal(groupconc_group_evict(ex, key), GROUPCONC_OK); /* cancels the task */
    tu_latch_open(&h->go_release);
    tu_thread_join(th);
    assert_int_equal(a.rc, GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->releases), 1);
    assert_int_equal(atomic_load(&h->key_ok), 1);
    groupconc_executor_stats xs = tu_xstats(ex);
    assert_int_equal(xs.cancelled, 1);
    assert_int_equal(xs.completed, 1);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    hp_free(h);
}

/* A request is out when the group is paused; a lease is freed (notify) during the pause; after the
   resume the provider answers BUSY (it decided before the lease was freed): the task asks again at
   once, as it would have without the pause. */
static void test_notify_during_pause_remembered(void **state) {
    (void)state;
    held_provider *h = hp_new("np");
    groupconc_executor *ex = hp_executor(h);
    groupconc_task *t = tu_submit(ex, "np", "t", tu_noop_fn, NULL);
    groupconc_fleet_request *req = hp_take(h);
    assert_non_null(req);
    assert_int_equal(atomic_load(&h->asks), 1);
    assert_int_equal(groupconc_group_pause(ex, "np"), GROUPCONC_OK);
    assert_int_equal(groupconc_fleet_notify(ex, "np"), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->asks), 1); /* paused: nothing asked */
    assert_int_equal(groupconc_group_resume(ex, "np"), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->asks), 1); /* the request is still out: nothing to re-ask */
    assert_int_equal(groupconc_fleet_answer(req, GROUPCONC_FLEET_BUSY, 0), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->asks), 2); /* the notify was remembered: asked again */
    req = hp_take(h);
    assert_non_null(req);
    assert_int_equal(groupconc_fleet_answer(req, GROUPCONC_FLEET_GRANTED, 3), GROUPCONC_OK);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->releases), 1);
    hp_free(h);
}

/* With a provider, the ask of a new task is made by submit, on the submitting thread, before it
   returns: a read-only call never asks (a provider answering inside acquire would complete the
   task there). The provider rejects inline; the stats and the dump see it all done. */
static void test_read_only_calls_never_ask(void **state) {
    (void)state;
    held_provider *h = hp_new("ro");
    h->inline_verdict = GROUPCONC_FLEET_REJECT;
    groupconc_executor *ex = hp_executor(h);
    tu_thread_id me = tu_self();
    for (int i = 0; i < 4; i++) {
        groupconc_task *t = tu_submit(ex, "ro", NULL, tu_noop_fn, NULL);
        assert_int_equal(atomic_load(&h->asks), i + 1); /* asked in submit */
        assert_true(tu_same_thread(h->asker[i], me));
        groupconc_group_stats gs = tu_gstats(ex, "ro");
        assert_int_equal(gs.rejected_fleet, (uint64_t)i + 1);
#ifndef GROUPCONC_NO_DUMP
        size_t need = 0;
        assert_int_equal(groupconc_executor_dump(ex, NULL, 0, &need), GROUPCONC_ERANGE);
        assert_int_equal(atomic_load(&h->asks), i + 1);
#endif
        tu_wait_status(t, GROUPCONC_STATUS_REJECTED);
        assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    }
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    hp_free(h);
}

/* Only tasks a pause holds back are given up on by a graceful shutdown: a task of an unpaused group
   waiting at the fleet layer moves on with the provider's answer, whichever group is paused (here
   one that never had a task). The graceful call waits for it, and it runs. */
static void test_graceful_waits_for_fleet_beside_a_pause(void **state) {
    (void)state;
    held_provider *h = hp_new("f");
    groupconc_executor *ex = hp_executor(h);
    assert_int_equal(groupconc_group_pause(ex, "empty"), GROUPCONC_OK);
    groupconc_task *t = tu_submit(ex, "f", "t", tu_noop_fn, NULL);
    groupconc_fleet_request *req = hp_take(h);
    assert_non_null(req);
    tu_graceful a;
    tu_graceful_start(&a, ex);
    int64_t end = tu_now_ns() + TU_TIMEOUT_NS;
    while (!tu_xstats(ex).shutdown && tu_now_ns() < end) tu_sleep_ns(TU_MS / 2); /* it began */
    assert_true(tu_xstats(ex).shutdown);
    /* it must still wait: before the fix it returned ETIMEDOUT within a few ms, the task cancelled */
    assert_false(tu_latch_wait_for(&a.done, 200 * TU_MS));
    bool done = true;
    assert_int_equal(groupconc_task_is_done(t, &done), GROUPCONC_OK);
    assert_false(done);
    assert_int_equal(groupconc_fleet_answer(req, GROUPCONC_FLEET_GRANTED, 1), GROUPCONC_OK);
    assert_true(tu_latch_wait(&a.done));
    assert_int_equal(tu_graceful_join(&a), GROUPCONC_OK);
    tu_wait_status(t, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(groupconc_task_release(t), GROUPCONC_OK);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(atomic_load(&h->releases), 1);
    hp_free(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paused_grant_release_outlives_evict),
        cmocka_unit_test(test_notify_during_pause_remembered),
        cmocka_unit_test(test_read_only_calls_never_ask),
        cmocka_unit_test(test_graceful_waits_for_fleet_beside_a_pause),
    };
    return TU_RUN_TESTS(tests);
}
