/* test_wordlock.c - the key table's stripe lock (groupconc.h, "word locks").

   Built with GROUPCONC__WORDLOCK=1 (test_wordlock), on Linux the stripes take a lock of their own,
   one atomic word with a futex for sleepers; by default, and elsewhere, it is the platform mutex
   (test_wordlock_mutex), and the same tests hold. They check:
     - mutual exclusion under contention: threads (more than this machine's 2 cores) add to a plain
       counter under the lock, and no increment is lost;
     - the sleeper's path: a taker that found the lock held past its spins marks the word "slept on"
       (2) and is woken by the holder's unlock; the test waits for the mark (no sleep), lets go, and
       the taker gets through;
     - trylock: refused while held, granted once free; the word is free after every test.
   The public paths that take the stripes (every submit, pause, live limits, the dump) are covered by
   the other suites; this one holds the lock itself to reach the states those cannot pin down. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "testutil.h"

enum { WL_THREADS = 6, WL_ROUNDS = 100000 };

typedef struct wl_shared {
    groupconc__wordlock lock;
    long counter;              /* plain: only the lock keeps it exact */
    atomic_int started, inside;
    atomic_int in_section_max; /* most threads seen inside at once: must stay 1 */
} wl_shared;

static void wl_adder(void *arg) {
    wl_shared *s = (wl_shared *)arg;
    atomic_fetch_add(&s->started, 1);
    while (atomic_load(&s->started) < WL_THREADS) {} /* all contend from the start */
    for (int i = 0; i < WL_ROUNDS; i++) {
        groupconc__wordlock_lock(&s->lock);
        int now = atomic_fetch_add_explicit(&s->inside, 1, memory_order_relaxed) + 1;
        if (now > atomic_load_explicit(&s->in_section_max, memory_order_relaxed))
            atomic_store_explicit(&s->in_section_max, now, memory_order_relaxed);
        s->counter++;
        if ((i & 255) == 0) tu_spin(200); /* a longer hold now and then: others must sleep */
        atomic_fetch_sub_explicit(&s->inside, 1, memory_order_relaxed);
        groupconc__wordlock_unlock(&s->lock);
    }
}

static void test_mutual_exclusion(void **state) {
    (void)state;
    wl_shared s;
    tu_thread th[WL_THREADS];
    memset(&s, 0, sizeof s);
    assert_int_equal(groupconc__wordlock_init(&s.lock), GROUPCONC_OK);
    atomic_init(&s.started, 0);
    atomic_init(&s.inside, 0);
    atomic_init(&s.in_section_max, 0);
    for (int i = 0; i < WL_THREADS; i++) assert_true(tu_thread_start(&th[i], wl_adder, &s));
    for (int i = 0; i < WL_THREADS; i++) tu_thread_join(th[i]);
    assert_int_equal(s.counter, (long)WL_THREADS * WL_ROUNDS);
    assert_int_equal(atomic_load(&s.in_section_max), 1);
    assert_true(groupconc__wordlock_trylock(&s.lock)); /* free again */
    groupconc__wordlock_unlock(&s.lock);
    groupconc__wordlock_destroy(&s.lock);
}

typedef struct wl_sleeper {
    groupconc__wordlock *lock;
    atomic_int trying, got;
} wl_sleeper;

static void wl_taker(void *arg) {
    wl_sleeper *w = (wl_sleeper *)arg;
    atomic_store(&w->trying, 1);
    groupconc__wordlock_lock(w->lock);
    atomic_store(&w->got, 1);
    groupconc__wordlock_unlock(w->lock);
}

static void test_sleeper_is_woken(void **state) {
    (void)state;
    groupconc__wordlock lock;
    wl_sleeper w;
    tu_thread th;
    assert_int_equal(groupconc__wordlock_init(&lock), GROUPCONC_OK);
    w.lock = &lock;
    atomic_init(&w.trying, 0);
    atomic_init(&w.got, 0);
    groupconc__wordlock_lock(&lock);
    assert_false(groupconc__wordlock_trylock(&lock)); /* held: refused */
    assert_true(tu_thread_start(&th, wl_taker, &w));
    while (!atomic_load(&w.trying)) {}
#if defined(GROUPCONC__WORDLOCK_ON)
    /* past its spins the taker marks the word 2 and sleeps in the kernel: wait for the mark */
    while (atomic_load_explicit(&lock, memory_order_acquire) != 2u) tu_spin(100);
#endif
    assert_int_equal(atomic_load(&w.got), 0); /* still held by this thread */
    groupconc__wordlock_unlock(&lock);           /* wakes it */
    tu_thread_join(th);
    assert_int_equal(atomic_load(&w.got), 1);
#if defined(GROUPCONC__WORDLOCK_ON)
    assert_int_equal(atomic_load(&lock), 0u); /* its unlock let go of the mark too */
#endif
    assert_true(groupconc__wordlock_trylock(&lock));
    groupconc__wordlock_unlock(&lock);
    groupconc__wordlock_destroy(&lock);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutual_exclusion),
        cmocka_unit_test(test_sleeper_is_woken),
    };
    return TU_RUN_TESTS(tests);
}
