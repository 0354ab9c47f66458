/* test_wordlock.c - the key table's stripe lock (groupconc.h, "word locks").

   Built with GROUPCONC__WORDLOCK=1 (test_wordlock; the default), on Linux the stripes take a lock
   of their own, one atomic word with a futex for sleepers; with 0, and elsewhere, it is the
   platform mutex (test_wordlock_mutex), and the same tests hold. They check:
     - mutual exclusion under contention: threads (more than this machine's 2 cores) add to a plain
       counter under the lock, and no increment is lost; now and then a holder keeps the lock for
       100 us, so that the others go to sleep (with the word lock: a holder saw the word marked 2);
     - the sleeper's path: the test holds the lock until the taker sleeps in the kernel (its state
       in /proc is S; with the word lock the word is marked 2 first), lets go, and the taker gets
       through within a bound (a lost wake-up fails instead of hanging);
     - trylock: refused while held, granted once free; the word is free after every test;
     - the same for groupconc__wordlock_lock_plain, the gates' taker (no spin before the sleep),
       alone and beside takers that spin;
     - without the gate (GROUPCONC_NO_GATE) the plain taker is not built: its cases skip;
     - built as test_wordlock_nofutex (WL_NOFUTEX, GROUPCONC__FUTEX_CALL: every futex call fails with ENOSYS,
       as under a seccomp filter that forbids it), the same again: takers yield instead of
       sleeping, and nobody is stuck.
   The public paths that take the stripes (every submit, pause, live limits, the dump) are covered by
   the other suites; this one holds the lock itself to reach the states those cannot pin down. */
#if defined(WL_NOFUTEX) /* the nofutex build: every futex call refused, as by seccomp */
#include <errno.h>
#include <stdatomic.h>
static atomic_long wl_refusals;
static long wl_futex_refused(long number, ...) {
    (void)number;
    atomic_fetch_add(&wl_refusals, 1);
    errno = ENOSYS;
    return -1;
}
#endif
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

#include <errno.h>

#if GROUPCONC__WORDLOCK && defined(__linux__) && !defined(GROUPCONC__WORDLOCK_ON)
#error "GROUPCONC__WORDLOCK=1 on Linux, yet the word lock is not built: this test would test the mutex"
#endif
#if defined(__linux__)
#include <unistd.h> /* readlink */
#endif

#define WL_BOUND_NS (10 * 1000000000LL) /* what a state may take to appear on a loaded machine */

enum { WL_THREADS = 6, WL_ROUNDS = 100000 };

typedef struct wl_shared {
    groupconc__wordlock lock;
    long counter;              /* plain: only the lock keeps it exact */
    atomic_int started, inside;
    atomic_int in_section_max; /* most threads seen inside at once: must stay 1 */
    atomic_int saw_sleeper;    /* a holder found the word marked 2 (word lock only) */
    tu_latch done;             /* counted down by each adder at its end */
} wl_shared;

/* How the tests take the lock: 0 groupconc__wordlock_lock (the stripes'), 1
   groupconc__wordlock_lock_plain (the gates'), 2 each adder one or the other by its parity. */
static int wl_taking;

static void wl_take(groupconc__wordlock *lock, int who) {
    bool plain = wl_taking == 1 || (wl_taking == 2 && (who & 1));
#ifndef GROUPCONC_NO_GATE
    if (plain) {
        groupconc__wordlock_lock_plain(lock);
        return;
    }
#endif
    (void)plain; /* without the gate never true: those cases skip (wl_skip_without_gate) */
    groupconc__wordlock_lock(lock);
}

/* Without the gate (GROUPCONC_NO_GATE, the CI's modules section) the plain taker is not built:
   its cases are skipped, and say so. */
static void wl_skip_without_gate(void) {
#ifdef GROUPCONC_NO_GATE
    if (wl_taking != 0) skip();
#endif
}

static void wl_adder(void *arg) {
    wl_shared *s = (wl_shared *)arg;
    int who = atomic_fetch_add(&s->started, 1);
    while (atomic_load(&s->started) < WL_THREADS) tu_yield(); /* all contend from the start */
    for (int i = 0; i < WL_ROUNDS; i++) {
        wl_take(&s->lock, who);
        int now = atomic_fetch_add_explicit(&s->inside, 1, memory_order_relaxed) + 1;
        if (now > atomic_load_explicit(&s->in_section_max, memory_order_relaxed))
            atomic_store_explicit(&s->in_section_max, now, memory_order_relaxed);
        s->counter++;
        if ((i & 1023) == 0) tu_sleep_ns(100000); /* a long hold now and then: others sleep */
#if defined(GROUPCONC__WORDLOCK_ON)
        if (atomic_load_explicit(&s->lock, memory_order_relaxed) == 2u)
            atomic_store_explicit(&s->saw_sleeper, 1, memory_order_relaxed);
#endif
        atomic_fetch_sub_explicit(&s->inside, 1, memory_order_relaxed);
        groupconc__wordlock_unlock(&s->lock);
    }
    tu_latch_count_down(&s->done);
}

static void test_mutual_exclusion(void **state) {
    wl_taking = *(int *)*state;
    wl_skip_without_gate();
#if defined(WL_NOFUTEX)
    atomic_store(&wl_refusals, 0); /* this test's own refusals count below */
#endif
    wl_shared s;
    tu_thread th[WL_THREADS];
    memset(&s, 0, sizeof s);
    assert_int_equal(groupconc__wordlock_init(&s.lock), GROUPCONC_OK);
    atomic_init(&s.started, 0);
    atomic_init(&s.inside, 0);
    atomic_init(&s.in_section_max, 0);
    atomic_init(&s.saw_sleeper, 0);
    tu_latch_init(&s.done, WL_THREADS);
    for (int i = 0; i < WL_THREADS; i++) assert_true(tu_thread_start(&th[i], wl_adder, &s));
    /* a lost wake-up leaves an adder asleep: fail within a bound rather than hang in the joins */
    assert_true(tu_latch_wait_for(&s.done, 6 * WL_BOUND_NS));
    for (int i = 0; i < WL_THREADS; i++) tu_thread_join(th[i]);
    tu_latch_destroy(&s.done);
    assert_int_equal(s.counter, (long)WL_THREADS * WL_ROUNDS);
    assert_int_equal(atomic_load(&s.in_section_max), 1);
#if defined(GROUPCONC__WORDLOCK_ON)
    assert_int_equal(atomic_load(&s.saw_sleeper), 1); /* the sleep path was taken */
#endif
#if defined(WL_NOFUTEX)
    assert_true(atomic_load(&wl_refusals) > 0); /* and its futex refused: the takers yielded */
#endif
    assert_true(groupconc__wordlock_trylock(&s.lock)); /* free again */
    groupconc__wordlock_unlock(&s.lock);
    groupconc__wordlock_destroy(&s.lock);
}

typedef struct wl_sleeper {
    groupconc__wordlock *lock;
    atomic_int trying, got;
    int errno_after; /* errno as the taker found it after its take (it set ERANGE before) */
    char task[64]; /* "<pid>/task/<tid>": the taker's thread in /proc (Linux) */
} wl_sleeper;

static void wl_taker(void *arg) {
    wl_sleeper *w = (wl_sleeper *)arg;
#if defined(__linux__)
    ssize_t n = readlink("/proc/thread-self", w->task, sizeof w->task - 1);
    w->task[n > 0 ? n : 0] = '\0';
#endif
    atomic_store(&w->trying, 1);
    errno = ERANGE; /* the taker's own: a lock leaves it alone, slept or not */
    wl_take(w->lock, 1);
    w->errno_after = errno;
    atomic_store(&w->got, 1);
    groupconc__wordlock_unlock(w->lock);
}

/* Whether the thread /proc/<task> is asleep (state S): blocked in the kernel, here on the lock.
   Without /proc (or its thread-self) there is nothing to read: true, and the test goes on. */
static bool wl_asleep(const char *task) {
#if defined(__linux__)
    char path[96], buf[512], *close_paren;
    FILE *f;
    size_t n;
    if (!task[0]) return true;
    snprintf(path, sizeof path, "/proc/%s/stat", task);
    if (!(f = fopen(path, "r"))) return true;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    close_paren = strrchr(buf, ')'); /* "tid (comm) S ...": comm may hold anything */
    return close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
#else
    (void)task;
    return true;
#endif
}

/* cond(arg) within WL_BOUND_NS, polled with yields (no sleep decides anything). */
static bool wl_until(bool (*cond)(wl_sleeper *), wl_sleeper *w) {
    int64_t end = tu_now_ns() + WL_BOUND_NS;
    while (!cond(w)) {
        if (tu_now_ns() > end) return false;
        tu_yield();
    }
    return true;
}
static bool wl_trying(wl_sleeper *w) { return atomic_load(&w->trying) != 0; }
static bool wl_got(wl_sleeper *w) { return atomic_load(&w->got) != 0; }
static bool wl_sleeping(wl_sleeper *w) {
#if defined(GROUPCONC__WORDLOCK_ON)
    /* past its spins the taker marks the word 2, then sleeps in the kernel */
    if (atomic_load_explicit(w->lock, memory_order_acquire) != 2u) return false;
#endif
#if defined(WL_NOFUTEX)
    (void)wl_asleep;
    return atomic_load(&wl_refusals) > 0; /* no sleep to see: it yields between its tries */
#else
    return wl_asleep(w->task);
#endif
}

static void test_sleeper_is_woken(void **state) {
    wl_taking = *(int *)*state;
    wl_skip_without_gate();
#if defined(WL_NOFUTEX)
    atomic_store(&wl_refusals, 0);
#endif
    groupconc__wordlock lock;
    wl_sleeper w;
    tu_thread th;
    assert_int_equal(groupconc__wordlock_init(&lock), GROUPCONC_OK);
    w.lock = &lock;
    atomic_init(&w.trying, 0);
    atomic_init(&w.got, 0);
    w.task[0] = '\0';
    groupconc__wordlock_lock(&lock);
    assert_false(groupconc__wordlock_trylock(&lock)); /* held: refused */
    assert_true(tu_thread_start(&th, wl_taker, &w));
    assert_true(wl_until(wl_trying, &w));
    assert_true(wl_until(wl_sleeping, &w));
    assert_int_equal(atomic_load(&w.got), 0); /* still held by this thread */
    groupconc__wordlock_unlock(&lock);           /* wakes it */
    assert_true(wl_until(wl_got, &w));          /* a lost wake-up fails here, not by a timeout */
    tu_thread_join(th);
    assert_int_equal(w.errno_after, ERANGE);
#if defined(GROUPCONC__WORDLOCK_ON)
    assert_int_equal(atomic_load(&lock), 0u); /* its unlock let go of the mark too */
#endif
    assert_true(groupconc__wordlock_trylock(&lock));
    groupconc__wordlock_unlock(&lock);
    groupconc__wordlock_destroy(&lock);
}

int main(void) {
    static int spin = 0, plain = 1, mixed = 2;
    const struct CMUnitTest tests[] = {
        {"test_mutual_exclusion", test_mutual_exclusion, NULL, NULL, &spin},
        {"test_mutual_exclusion_plain", test_mutual_exclusion, NULL, NULL, &plain},
        {"test_mutual_exclusion_mixed", test_mutual_exclusion, NULL, NULL, &mixed},
        {"test_sleeper_is_woken", test_sleeper_is_woken, NULL, NULL, &spin},
        {"test_sleeper_is_woken_plain", test_sleeper_is_woken, NULL, NULL, &plain},
    };
    return TU_RUN_TESTS(tests);
}
