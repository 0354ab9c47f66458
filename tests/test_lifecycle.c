/* test_lifecycle.c - the checked life cycle (issue 25, item 3): in a debug build every stage change
   goes through groupconc__set_stage, which refuses a transition that the life-cycle table does not
   list. This test names internals on purpose: it drives the setter directly, since no public call
   can make an illegal transition (that is the point).
   - every (from, to) pair: the check fires exactly for the pairs groupconc__stage_next leaves out,
     and a few pairs are pinned by name (the table cannot silently lose or gain them);
   - a death test: with the default assertion (abort), an illegal transition stops the process
     (POSIX: in a forked child, which must die of SIGABRT). */
#define GROUPCONC_DEBUG 1 /* even where the build defines NDEBUG */
#include <setjmp.h>
#include <stdbool.h>
static jmp_buf lc_jump;
static bool lc_trap;     /* an assertion longjmps back instead of aborting */
static int lc_failures;  /* assertions that fired while trapped */
static void lc_assert_failed(void);
#define GROUPCONC_ASSERT(x) ((x) ? (void)0 : lc_assert_failed())
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

#ifndef _WIN32
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

static void lc_assert_failed(void) {
    if (!lc_trap) abort(); /* as assert() does */
    lc_failures++;
    longjmp(lc_jump, 1);
}

/* Whether moving a task from `from` to `to` trips the check. */
static bool transition_refused(unsigned from, unsigned to) {
    static groupconc_task t; /* static: unchanged across the longjmp */
    memset(&t, 0, sizeof t);
    t.stage = (uint8_t)from;
    lc_trap = true;
    int before = lc_failures;
    if (setjmp(lc_jump) == 0) groupconc__set_stage(&t, to);
    lc_trap = false;
    bool refused = lc_failures != before;
    if (!refused && t.stage != to) fail_msg("stage %u -> %u allowed but not written", from, to);
    return refused;
}

static void test_every_pair_against_the_table(void **state) {
    (void)state;
    unsigned allowed = 0;
    for (unsigned from = 0; from < GROUPCONC__STAGES; from++)
        for (unsigned to = 0; to < GROUPCONC__STAGES; to++) {
            bool listed = (groupconc__stage_next[from] & GROUPCONC__TO(to)) != 0;
            if (transition_refused(from, to) == listed)
                fail_msg("stage %u -> %u: listed %d, but the check %s it", from, to, (int)listed,
                         listed ? "refused" : "let through");
            allowed += listed;
        }
    assert_int_equal(GROUPCONC__STAGES, 7);
    assert_int_equal(allowed, 14); /* the rows of the life-cycle table */
    /* out of range on either side is refused too */
    assert_true(transition_refused(GROUPCONC__STAGES, GROUPCONC__NEW));
    assert_true(transition_refused(GROUPCONC__NEW, GROUPCONC__STAGES));
}

static void test_named_transitions(void **state) {
    (void)state;
    /* the path of a task that waited, ran and finished */
    assert_false(transition_refused(GROUPCONC__NEW, GROUPCONC__QUEUED));
    assert_false(transition_refused(GROUPCONC__QUEUED, GROUPCONC__NEW));
    assert_false(transition_refused(GROUPCONC__NEW, GROUPCONC__READY));
    assert_false(transition_refused(GROUPCONC__READY, GROUPCONC__RUNNING));
    assert_false(transition_refused(GROUPCONC__RUNNING, GROUPCONC__DONE));
    /* a waiter refused or expired at its layer (the fleet layer's REJECT too) */
    assert_false(transition_refused(GROUPCONC__QUEUED, GROUPCONC__REJECTED));
    /* never: nothing leaves DONE; a waiting task does not run without its permits; a deferred task
       is not queued again */
    for (unsigned to = 0; to < GROUPCONC__STAGES; to++) assert_true(transition_refused(GROUPCONC__DONE, to));
    assert_true(transition_refused(GROUPCONC__QUEUED, GROUPCONC__RUNNING));
    assert_true(transition_refused(GROUPCONC__QUEUED, GROUPCONC__READY));
    assert_true(transition_refused(GROUPCONC__DEFERRED, GROUPCONC__READY));
    assert_true(transition_refused(GROUPCONC__NEW, GROUPCONC__RUNNING));
}

/* The fleet layer is a layer like the others: a task asked for waits QUEUED at
   GROUPCONC__L_FLEET, holding the layers before it; answered BUSY it stays there (B_FLEET_BUSY, no
   stage of its own); the GRANTED answer hands it the layer's permit and it runs. */
static groupconc_fleet_request *lc_request;
static int lc_asks, lc_releases;
static void lc_acquire(void *user_data, groupconc_fleet_request *request, const char *group) {
    (void)user_data;
    (void)group;
    lc_request = request; /* answered by the test, on its thread */
    lc_asks++;
}
static void lc_release(void *user_data, const char *group, uint64_t lease) {
    (void)user_data;
    (void)group;
    assert_int_equal(lease, 42);
    lc_releases++;
}

static void test_fleet_layer_in_the_array(void **state) {
    (void)state;
    groupconc_policy p = groupconc_policy_default();
    p.fleet.acquire = lc_acquire;
    p.fleet.release = lc_release;
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = tu_submit(ex, "g", "x", tu_count_fn, &ran); /* asked from submit */
    assert_int_equal(lc_asks, 1);
    groupconc__mutex_lock(&ex->shards[0].lock);
    assert_int_equal(t->stage, GROUPCONC__QUEUED);
    assert_int_equal(t->held, GROUPCONC__L_FLEET);
    assert_ptr_equal(ex->fleet.layer.waiters.head, t);
    assert_false(t->bits & GROUPCONC__B_FLEET_BUSY);
    groupconc__mutex_unlock(&ex->shards[0].lock);
    assert_int_equal(groupconc_fleet_answer(lc_request, GROUPCONC_FLEET_BUSY, 0), GROUPCONC_OK);
    groupconc__mutex_lock(&ex->shards[0].lock);
    assert_int_equal(t->stage, GROUPCONC__QUEUED);
    assert_int_equal(t->held, GROUPCONC__L_FLEET);
    assert_true(t->bits & GROUPCONC__B_FLEET_BUSY);
    groupconc__mutex_unlock(&ex->shards[0].lock);
    assert_int_equal(tu_gstats(ex, "g").waiting_fleet, 1);
    assert_int_equal(groupconc_fleet_notify(ex, "g"), GROUPCONC_OK); /* asked again */
    assert_int_equal(lc_asks, 2);
    groupconc__mutex_lock(&ex->shards[0].lock);
    assert_false(t->bits & GROUPCONC__B_FLEET_BUSY);
    groupconc__mutex_unlock(&ex->shards[0].lock);
    assert_int_equal(groupconc_fleet_answer(lc_request, GROUPCONC_FLEET_GRANTED, 42), GROUPCONC_OK);
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(lc_releases, 1);
    groupconc__mutex_lock(&ex->shards[0].lock);
    assert_int_equal(ex->fleet.layer.permits.used, 0); /* the layer's permit handed back with the others */
    assert_int_equal(ex->fleet.layer.waiters.count, 0);
    groupconc__mutex_unlock(&ex->shards[0].lock);
    groupconc_task_release(t);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
}

/* The real thing: no trap, the default failure (abort) in a child process. */
static void test_illegal_transition_aborts(void **state) {
    (void)state;
#ifdef _WIN32
    skip(); /* no fork; the trapped checks above cover the table */
#else
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static groupconc_task t;
        signal(SIGABRT, SIG_DFL);
        t.stage = GROUPCONC__DONE;
        groupconc__set_stage(&t, GROUPCONC__RUNNING); /* must not return */
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
#endif
}

/* And the whole executor still runs with the check on (the suite covers every path; this is the
   smallest one here, so that this file alone shows the setter is wired in). */
static void test_executor_runs_checked(void **state) {
    (void)state;
    int before = lc_failures; /* the trapped checks above counted theirs */
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex = tu_executor(&p);
    atomic_int ran;
    atomic_init(&ran, 0);
    groupconc_task *t = tu_submit(ex, "g", "x", tu_count_fn, &ran);
    groupconc_result r = tu_wait(t);
    assert_int_equal(r.status, GROUPCONC_STATUS_SUCCESS);
    assert_int_equal(atomic_load(&ran), 1);
    groupconc_task_release(t);
    assert_int_equal(groupconc_executor_destroy(ex), GROUPCONC_OK);
    assert_int_equal(lc_failures, before); /* (untrapped, one would have aborted anyway) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pair_against_the_table),
        cmocka_unit_test(test_named_transitions),
        cmocka_unit_test(test_fleet_layer_in_the_array),
        cmocka_unit_test(test_illegal_transition_aborts),
        cmocka_unit_test(test_executor_runs_checked),
    };
    return TU_RUN_TESTS(tests);
}
