/* bench_lockstat.c - groupconc-lockstat: how long groupconc holds its locks, per task, in W1, W2 and
   W5 (issue 16 item 6: the executor lock's hold time per task and hold rate, from which the core
   count at which the one lock saturates can be projected). No change to groupconc.h: this TU
   includes bench_groupconc.c (hence the implementation) with the C11 / POSIX mutex and condition
   calls redirected to wrappers that read the TSC at every acquire and release of each mutex.

   groupconc-lockstat [W1|W2|W5|W7a|W7b ...] [groupconc-bench options: --w1-tasks N, --threads T ...]

   Per lock (the executor's lock, table_lock, done_lock; every other mutex summed): acquisitions per
   task, mean hold (acquire -> release; a condition wait counts as a release and an acquire), hold
   time per task, hold rate = total hold / the measured interval, first submit -> all done (the
   fraction of the run during which the lock was held: 1.0 = saturated), and contention = failed trylocks and blocking lock calls per
   acquisition, and the executor lock's hold-time distribution (log2 buckets). The wrappers add two TSC reads and a table lookup per critical section (the
   overhead line says how much), so rates are a little lower than groupconc-bench's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>
#include <x86intrin.h>

/* ---- the lock table: one slot per mutex address ------------------------------------------------ */

enum { LS_SLOTS = 256 };
typedef struct ls_lock {
    _Atomic(void *) addr;
    uint64_t n;       /* acquisitions (written by the holder) */
    uint64_t hold;    /* TSC ticks held, summed (written by the holder) */
    uint64_t t_acq;   /* TSC at the current acquisition (written by the holder) */
    _Atomic uint64_t busy;   /* failed trylocks (by non-holders) */
    _Atomic uint64_t blocks; /* calls of the blocking lock (by non-holders; may not block) */
    uint32_t hist[40];       /* holds by floor(log2(ticks)) (written by the holder) */
    uint64_t histt[40];      /* ticks held, by the same buckets */
    uint64_t longest;        /* ticks */
    uint64_t cpu_acq;        /* the executor lock only: the holder's CPU time at acquisition, ns */
    uint64_t long_ticks;     /*   ... its holds of >= 4 us: ticks held, summed */
    uint64_t long_cpu;       /*   ... and the holder's CPU time during them, ns (was it running?) */
} ls_lock;
static ls_lock ls_tab[LS_SLOTS];

static ls_lock *ls_find(void *m) {
    size_t h = ((uintptr_t)m >> 4) * 0x9E3779B97F4A7C15u % LS_SLOTS;
    for (size_t i = 0; i < LS_SLOTS; i++) {
        ls_lock *l = &ls_tab[(h + i) % LS_SLOTS];
        void *a = atomic_load_explicit(&l->addr, memory_order_acquire);
        if (a == m) return l;
        if (a == NULL) {
            void *expect = NULL;
            if (atomic_compare_exchange_strong(&l->addr, &expect, m)) return l;
            if (expect == m) return l;
        }
    }
    abort(); /* more than LS_SLOTS mutexes: make the table larger */
}

/* The executor lock's address (set by ls_setup): its holds also read the holder's CPU time
   (CLOCK_THREAD_CPUTIME_ID, a system call, ~0.1-0.2 us, outside the timed hold; the executor lock
   is taken ~0.06 times per task in W1/W2, so that adds ~10-20 ns per task), so that for the long
   holds (>= 4 us, where the reads' own cost does not matter) work done under the lock can be told
   from holds stretched because the holder lost its CPU. */
static void *_Atomic ls_cpu_lock;
static uint64_t ls_long_ticks = UINT64_MAX; /* 4 us in TSC ticks, once calibrated */

static uint64_t ls_thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ls_acquired(ls_lock *l) {
    l->cpu_acq = atomic_load_explicit(&l->addr, memory_order_relaxed) ==
                         atomic_load_explicit(&ls_cpu_lock, memory_order_relaxed)
                     ? ls_thread_cpu()
                     : 0;
    l->t_acq = __rdtsc();
    l->n++;
}
static void ls_released(ls_lock *l) {
    uint64_t d = __rdtsc() - l->t_acq;
    if (l->cpu_acq && d >= ls_long_ticks) {
        l->long_ticks += d;
        l->long_cpu += ls_thread_cpu() - l->cpu_acq;
    }
    l->hold += d;
    int b = d ? 63 - __builtin_clzll(d) : 0;
    if (b > 39) b = 39;
    l->hist[b]++;
    l->histt[b] += d;
    if (d > l->longest) l->longest = d;
}

/* The share of the hold time spent in holds of at least ns nanoseconds (bucket resolution). */
static double ls_long_share(const ls_lock *l, double ns, double tsc_per_ns) {
    uint64_t all = 0, big = 0;
    for (int i = 0; i < 40; i++) {
        all += l->histt[i];
        if ((double)(1ull << i) / tsc_per_ns >= ns) big += l->histt[i];
    }
    return all ? (double)big / (double)all : 0;
}

/* The hold time (ns) below which a fraction q of the holds fell (upper edge of the log2 bucket). */
static double ls_hold_pctl(const ls_lock *l, double q, double tsc_per_ns) {
    uint64_t n = 0, seen = 0;
    for (int i = 0; i < 40; i++) n += l->hist[i];
    for (int i = 0; i < 40; i++) {
        seen += l->hist[i];
        if (n && (double)seen >= q * (double)n) return (double)(2ull << i) / tsc_per_ns;
    }
    return 0;
}

/* The header uses one of the two families (C11 threads, or POSIX with GROUPCONC_USE_PTHREADS);
   the other's wrappers go unused, which clang's -Wunused-function reports even when inline. */
#if defined(__GNUC__) || defined(__clang__)
#define LS_MAYBE_UNUSED __attribute__((unused))
#else
#define LS_MAYBE_UNUSED
#endif

/* C11 */
LS_MAYBE_UNUSED static inline int ls_mtx_trylock(mtx_t *m) {
    int rc = mtx_trylock(m);
    ls_lock *l = ls_find(m);
    if (rc == thrd_success)
        ls_acquired(l);
    else
        atomic_fetch_add_explicit(&l->busy, 1, memory_order_relaxed);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_mtx_lock(mtx_t *m) {
    ls_lock *l = ls_find(m);
    atomic_fetch_add_explicit(&l->blocks, 1, memory_order_relaxed);
    int rc = mtx_lock(m);
    if (rc == thrd_success) ls_acquired(l);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_mtx_unlock(mtx_t *m) {
    ls_released(ls_find(m));
    return mtx_unlock(m);
}
LS_MAYBE_UNUSED static inline int ls_cnd_wait(cnd_t *c, mtx_t *m) {
    ls_lock *l = ls_find(m);
    ls_released(l);
    int rc = cnd_wait(c, m);
    ls_acquired(l);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_cnd_timedwait(cnd_t *c, mtx_t *m, const struct timespec *ts) {
    ls_lock *l = ls_find(m);
    ls_released(l);
    int rc = cnd_timedwait(c, m, ts);
    ls_acquired(l);
    return rc;
}
/* POSIX (GROUPCONC_USE_PTHREADS) */
LS_MAYBE_UNUSED static inline int ls_pthread_mutex_trylock(pthread_mutex_t *m) {
    int rc = pthread_mutex_trylock(m);
    ls_lock *l = ls_find(m);
    if (rc == 0)
        ls_acquired(l);
    else
        atomic_fetch_add_explicit(&l->busy, 1, memory_order_relaxed);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_pthread_mutex_lock(pthread_mutex_t *m) {
    ls_lock *l = ls_find(m);
    atomic_fetch_add_explicit(&l->blocks, 1, memory_order_relaxed);
    int rc = pthread_mutex_lock(m);
    if (rc == 0) ls_acquired(l);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_pthread_mutex_unlock(pthread_mutex_t *m) {
    ls_released(ls_find(m));
    return pthread_mutex_unlock(m);
}
LS_MAYBE_UNUSED static inline int ls_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    ls_lock *l = ls_find(m);
    ls_released(l);
    int rc = pthread_cond_wait(c, m);
    ls_acquired(l);
    return rc;
}
LS_MAYBE_UNUSED static inline int ls_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                     const struct timespec *ts) {
    ls_lock *l = ls_find(m);
    ls_released(l);
    int rc = pthread_cond_timedwait(c, m, ts);
    ls_acquired(l);
    return rc;
}

#define mtx_trylock(m) ls_mtx_trylock(m)
#define mtx_lock(m) ls_mtx_lock(m)
#define mtx_unlock(m) ls_mtx_unlock(m)
#define cnd_wait(c, m) ls_cnd_wait(c, m)
#define cnd_timedwait(c, m, t) ls_cnd_timedwait(c, m, t)
#define pthread_mutex_trylock(m) ls_pthread_mutex_trylock(m)
#define pthread_mutex_lock(m) ls_pthread_mutex_lock(m)
#define pthread_mutex_unlock(m) ls_pthread_mutex_unlock(m)
#define pthread_cond_wait(c, m) ls_pthread_cond_wait(c, m)
#define pthread_cond_timedwait(c, m, t) ls_pthread_cond_timedwait(c, m, t)

/* The key table's stripes may take a word lock of their own on Linux (groupconc.h, "word locks"),
   which no wrapper sees: here they take the platform mutex, whose holds the wrappers count. */
#undef GROUPCONC__WORDLOCK
#define GROUPCONC__WORDLOCK 0

/* groupconc itself (GROUPCONC_IMPLEMENTATION) and the bench's groupconc ops, with `ex` in scope */
#include "bench_groupconc.c"

#undef mtx_trylock
#undef mtx_lock
#undef mtx_unlock
#undef cnd_wait
#undef cnd_timedwait
#undef pthread_mutex_trylock
#undef pthread_mutex_lock
#undef pthread_mutex_unlock
#undef pthread_cond_wait
#undef pthread_cond_timedwait

/* ---- the executor's lock addresses, taken at setup -------------------------------------------- */

static void *lk_exec, *lk_done;
static char *lk_table, *lk_table_end; /* the key table's stripes: their locks, counted as one */

static inline int ls_setup(const bench_cfg *c, bench_out *out) {
    int rc = gc_setup(c, out);
    if (rc == 0) {
        atomic_store(&ls_cpu_lock, (void *)&ex->shards[0].lock);
        lk_exec = &ex->shards[0].lock; /* the executor lock (one shard) */
        lk_table = (char *)&ex->table.stripes[0];
        lk_table_end = (char *)&ex->table.stripes[GROUPCONC__STRIPES];
        lk_done = &ex->done_lock;
    }
    return rc;
}

static const bench_ops ls_ops = {"groupconc", ls_setup,  gc_submit,   gc_wait_all, gc_collect,
                                 gc_groups,   gc_teardown, gc_reclaimed, NULL,      NULL};

/* ---- main -------------------------------------------------------------------------------------- */

static double tsc_per_ns;

static void calibrate(void) {
    uint64_t t0 = bench_now_ns(), c0 = __rdtsc();
    bench_sleep_us(200000);
    uint64_t t1 = bench_now_ns(), c1 = __rdtsc();
    tsc_per_ns = (double)(c1 - c0) / (double)(t1 - t0);
    ls_long_ticks = (uint64_t)(4000.0 * tsc_per_ns);
}

static void print_lock(const char *name, uint64_t n, uint64_t hold, uint64_t busy, uint64_t blocks,
                       long tasks, double wall_ns) {
    double hold_ns = (double)hold / tsc_per_ns;
    printf("  %-22s %8.3f %9.1f %10.1f %9.3f %9.3f %9.3f\n", name, (double)n / (double)tasks,
           n ? hold_ns / (double)n : 0.0, hold_ns / (double)tasks, hold_ns / wall_ns,
           n ? (double)busy / (double)n : 0.0, n ? (double)blocks / (double)n : 0.0);
}

static int workload_of(const char *s, bench_workload *w, long *tasks, const bench_params *p) {
    static const struct {
        const char *name;
        bench_workload w;
    } names[] = {{"W1", BENCH_W1}, {"W2", BENCH_W2}, {"W5", BENCH_W5}, {"W7a", BENCH_W7A},
                 {"W7b", BENCH_W7B}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *w = names[i].w;
            *tasks = *w == BENCH_W1 || *w == BENCH_W7A ? p->w1_tasks
                     : *w == BENCH_W5                  ? p->w5_keys
                                                       : p->w2_tasks;
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    bench_params p = {
        .runs = 1, .w1_tasks = 1000000, .w1_threads = 2, .w2_tasks = 1000000, .w2_keys = 10000,
        .w2_threads = 2, .w5_keys = 1000000, .w5_threads = 2, .w7_submitters = 4,
    };
    const char *wl[8];
    int nwl = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--w1-tasks") == 0 && v) p.w1_tasks = atol(argv[++i]);
        else if (strcmp(a, "--w2-tasks") == 0 && v) p.w2_tasks = atol(argv[++i]);
        else if (strcmp(a, "--w2-keys") == 0 && v) p.w2_keys = atol(argv[++i]);
        else if (strcmp(a, "--w5-keys") == 0 && v) p.w5_keys = atol(argv[++i]);
        else if (strcmp(a, "--w7-submitters") == 0 && v) p.w7_submitters = atoi(argv[++i]);
        else if (strcmp(a, "--threads") == 0 && v)
            p.w1_threads = p.w2_threads = p.w5_threads = atoi(argv[++i]);
        else if (a[0] != '-' && nwl < 8) wl[nwl++] = a;
        else {
            fprintf(stderr,
                    "usage: groupconc-lockstat [W1|W2|W5|W7a|W7b ...] [--w1-tasks N] [--w2-tasks N]"
                    " [--w2-keys K] [--w5-keys N] [--w7-submitters T] [--threads T]\n");
            return 2;
        }
    }
    if (nwl == 0) {
        wl[nwl++] = "W1";
        wl[nwl++] = "W2";
        wl[nwl++] = "W5";
    }
    calibrate();
    uint64_t o0 = __rdtsc();
    for (int i = 0; i < 1000000; i++) {
        ls_lock *l = ls_find(&ls_tab[0]);
        ls_acquired(l);
        ls_released(l);
    }
    double overhead = (double)(__rdtsc() - o0) / tsc_per_ns / 1e6;
    memset(ls_tab, 0, sizeof ls_tab);
    printf("groupconc-lockstat: TSC %.3f GHz; instrumentation ~%.0f ns per critical section "
           "(uncontended); %d workers\n",
           tsc_per_ns, overhead, p.w1_threads);
    int status = 0;
    for (int k = 0; k < nwl; k++) {
        bench_workload w;
        long tasks;
        if (!workload_of(wl[k], &w, &tasks, &p)) {
            fprintf(stderr, "groupconc-lockstat: unknown workload %s\n", wl[k]);
            return 2;
        }
        memset(ls_tab, 0, sizeof ls_tab);
        bench_out out;
        memset(&out, 0, sizeof out);
        bench_run(&ls_ops, w, &p, 0, &out);
        if (!out.ok) {
            printf("%s: FAILED: %s\n", wl[k], out.err);
            status = 1;
            continue;
        }
        /* the hold rate's denominator: the measured interval (first submit -> all done); the few
           acquisitions outside it (create, shutdown) are counted in the holds */
        double wall = out.m[BENCH_M_RATE] > 0 ? (double)tasks * 1e9 / out.m[BENCH_M_RATE] : 1;
        printf("\n%s: %ld tasks, %.2fM tasks/s, %.1f ms first submit -> all done\n", wl[k], tasks,
               out.m[BENCH_M_RATE] / 1e6, wall / 1e6);
        printf("  %-22s %8s %9s %10s %9s %9s %9s\n", "lock", "acq/task", "hold ns", "ns/task",
               "hold rate", "busy/acq", "block/acq");
        uint64_t on = 0, oh = 0, ob = 0, obl = 0;
        ls_lock *ex_l = NULL, *dn_l = NULL;
        static ls_lock tb_sum; /* every stripe's lock, added up */
        ls_lock *tb_l = NULL;
        memset(&tb_sum, 0, sizeof tb_sum);
        for (int i = 0; i < LS_SLOTS; i++) {
            ls_lock *l = &ls_tab[i];
            void *a = atomic_load(&l->addr);
            if (!a) continue;
            if (a == lk_exec) ex_l = l;
            else if ((char *)a >= lk_table && (char *)a < lk_table_end) {
                tb_l = &tb_sum;
                tb_sum.n += l->n;
                tb_sum.hold += l->hold;
                atomic_fetch_add(&tb_sum.busy, atomic_load(&l->busy));
                atomic_fetch_add(&tb_sum.blocks, atomic_load(&l->blocks));
            } else if (a == lk_done) dn_l = l;
            else {
                on += l->n;
                oh += l->hold;
                ob += atomic_load(&l->busy);
                obl += atomic_load(&l->blocks);
            }
        }
        static const ls_lock zero;
        const ls_lock *show[3] = {ex_l ? ex_l : &zero, tb_l ? tb_l : &zero, dn_l ? dn_l : &zero};
        const char *names[3] = {"executor lock", "table stripes", "done_lock"};
        for (int i = 0; i < 3; i++)
            print_lock(names[i], show[i]->n, show[i]->hold, atomic_load(&show[i]->busy),
                       atomic_load(&show[i]->blocks), tasks, wall);
        print_lock("other mutexes", on, oh, ob, obl, tasks, wall);
        if (ex_l && ex_l->n)
            printf("  executor lock holds (log2 buckets, upper edges): p50 < %.0f ns, p90 < %.0f ns, "
                   "p99 < %.0f ns; longest %.1f us; holds >= 4 us: %.0f%% of the held time\n",
                   ls_hold_pctl(ex_l, 0.5, tsc_per_ns), ls_hold_pctl(ex_l, 0.9, tsc_per_ns),
                   ls_hold_pctl(ex_l, 0.99, tsc_per_ns), (double)ex_l->longest / tsc_per_ns / 1e3,
                   100.0 * ls_long_share(ex_l, 4096.0, tsc_per_ns));
        if (ex_l && ex_l->long_ticks)
            printf("  executor lock holds >= 4 us: the holder's CPU time / time held = %.2f (1.00: work "
                   "under the lock, e.g. a large inbox admitted at once; less: the holder lost its "
                   "CPU while holding)\n",
                   (double)ex_l->long_cpu / ((double)ex_l->long_ticks / tsc_per_ns));
        if (ex_l && ex_l->n) {
            double per_task = (double)ex_l->hold / tsc_per_ns / (double)tasks;
            double bound = 1e9 / per_task;
            double per_worker = out.m[BENCH_M_RATE] / p.w1_threads;
            printf("  executor lock: held %.1f ns per task => it saturates at %.2fM tasks/s; at "
                   "this run's %.2fM tasks/s per worker that is ~%.1f workers\n",
                   per_task, bound / 1e6, per_worker / 1e6, bound / per_worker);
        }
    }
    return status;
}
