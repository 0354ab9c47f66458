/* bench_workloads.c - the workloads, written once against bench_ops so that groupconc and the
   peers run exactly the same submission sequence and measurement points. */
#include "bench.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double rate(long n, uint64_t t0, uint64_t t1) {
    return t1 > t0 ? (double)n * 1e9 / (double)(t1 - t0) : 0.0;
}

static double per_task(uint64_t c0, uint64_t c1, long n) {
    return n > 0 ? (double)(c1 - c0) / (double)n : 0.0;
}

static int must(int rc, bench_out *out, const char *what) {
    if (rc != 0 && out->err[0] == '\0') bench_fail(out, "%s failed (%d)", what, rc);
    return rc;
}

static void run_w1(const bench_ops *ops, const bench_params *p, int handles, bench_out *out) {
    long n = p->w1_tasks;
    bench_cfg cfg = {BENCH_W1, p->w1_threads, 0, 0, n, handles, 0, 0, 0, 1, 0};
    if (must(ops->setup(&cfg, out), out, "setup")) return;
    int rc = 0;
    uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns(), s0 = bench_thread_cpu_ns();
    for (long i = 0; i < n && rc == 0; i++) rc = ops->submit("w1", i);
    uint64_t s1 = bench_thread_cpu_ns();
    /* "Run 1M jobs and wait": with handles, wait on each (and release it); otherwise the
       implementation's own way of waiting for everything. */
    int by_handles = handles && ops->collect;
    if (rc == 0) rc = by_handles ? ops->collect(out) : ops->wait_all(out);
    uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
    if (rc == 0 && by_handles) rc = ops->wait_all(out);
    ops->teardown();
    if (must(rc, out, "W1 run")) return;
    out->m[BENCH_M_RATE] = rate(n, t0, t1);
    out->m[BENCH_M_CPU] = per_task(c0, c1, n);
    out->m[BENCH_M_SUBMIT_CPU] = per_task(s0, s1, n);
    bench_verify(p, BENCH_W1, n, out);
}

/* W1d: W1's tasks (w1_tasks no-op tasks, one group with no effective cap, fire-and-forget) on an
   executor whose pool is groupconc_policy_default()'s: max_threads and keep_alive_ns are not set.
   A side thread samples bench_groupconc_threads() (groupconc_executor_stats_get's `threads`) every
   ~100 us from before the first submit until shutdown has returned; when every task has run, the
   main thread reads it once more. Workers retire only after keep_alive_ns (10 s by default) idle,
   so the largest reading is the peak. CPU count: the CPUs this process may run on. */
typedef struct w1d_sampler {
    _Atomic int stop;
    long max;
    long samples;
} w1d_sampler;

static void *w1d_sample(void *v) {
    w1d_sampler *s = v;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        long t = bench_groupconc_threads();
        if (t > s->max) s->max = t;
        s->samples++;
        bench_sleep_us(100);
    }
    return NULL;
}

static void run_w1d(const bench_ops *ops, const bench_params *p, bench_out *out) {
    long n = p->w1_tasks;
    if (strcmp(ops->name, "groupconc") != 0) {
        bench_fail(out, "W1d counts groupconc's worker threads (groupconc only)");
        return;
    }
    bench_cfg cfg = {BENCH_W1D, p->w1_threads, 0, 0, n, 0, 0, 0, 0, 1, 1};
    if (must(ops->setup(&cfg, out), out, "setup")) return;
    w1d_sampler s = {0, 0, 0};
    pthread_t th;
    if (pthread_create(&th, NULL, w1d_sample, &s) != 0) {
        bench_fail(out, "pthread_create failed");
        ops->teardown();
        return;
    }
    int rc = 0;
    uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns();
    for (long i = 0; i < n && rc == 0; i++) rc = ops->submit("w1", i);
    /* every task has run (the workers have not retired: keep_alive_ns), before shutdown */
    while (rc == 0 && bench_count_total() < (uint64_t)n) bench_sleep_us(100);
    uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
    long end = bench_groupconc_threads();
    if (rc == 0) rc = ops->wait_all(out);
    atomic_store_explicit(&s.stop, 1, memory_order_release);
    pthread_join(th, NULL);
    ops->teardown();
    if (must(rc, out, "W1d run")) return;
    out->m[BENCH_M_W1D_PEAK] = (double)(end > s.max ? end : s.max);
    out->m[BENCH_M_W1D_END] = (double)end;
    out->m[BENCH_M_W1D_RATE] = rate(n, t0, t1);
    out->m[BENCH_M_W1D_SAMPLES] = (double)s.samples;
    out->m[BENCH_M_W1D_CPUS] = (double)bench_cpu_count();
    out->m[BENCH_M_CPU] = per_task(c0, c1, n);
    bench_verify(p, BENCH_W1D, n, out);
}

/* W2, and the W2 cost curve (C2*: other key counts). */
static void run_w2(const bench_ops *ops, bench_workload w, long k, const bench_params *p,
                   bench_out *out) {
    long n = p->w2_tasks;
    char **keys = bench_keys_make(k, "key-");
    if (!keys || bench_w2check_init(&bench_check, k) != 0) {
        bench_keys_free(keys);
        bench_fail(out, "out of memory");
        return;
    }
    bench_cfg cfg = {w, p->w2_threads, 1, 0, n, 0, 0, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup") == 0) {
        uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns(), s0 = bench_thread_cpu_ns();
        for (long i = 0; i < n && rc == 0; i++) rc = ops->submit(keys[i % k], i);
        uint64_t s1 = bench_thread_cpu_ns();
        if (rc == 0) rc = ops->wait_all(out);
        uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
        ops->teardown();
        if (must(rc, out, "W2 run") == 0) {
            out->m[BENCH_M_RATE] = rate(n, t0, t1);
            out->m[BENCH_M_CPU] = per_task(c0, c1, n);
            out->m[BENCH_M_SUBMIT_CPU] = per_task(s0, s1, n);
            bench_verify(p, w, n, out);
        }
    }
    bench_w2check_free(&bench_check);
    bench_keys_free(keys);
}

static void run_w3(const bench_ops *ops, const bench_params *p, int handles, bench_out *out) {
    long n = p->w3_tasks;
    bench_blocker = bench_gate_create();
    if (!bench_blocker) {
        bench_fail(out, "out of memory");
        return;
    }
    bench_cfg cfg = {BENCH_W3, p->w3_threads, 1, 0, n + 1, handles, 0, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup")) goto done;
    rc = ops->submit("w3", -1); /* the blocker */
    if (must(rc, out, "submit blocker")) goto teardown;
    bench_gate_wait_started(bench_blocker);

    long long base = bench_status_field("VmRSS");
    int peak_ok = bench_reset_peak() == 0;
    for (long i = 0; i < n && rc == 0; i++) rc = ops->submit("w3", i);
    long long peak = bench_status_field("VmHWM");
    long long cur = bench_status_field("VmRSS");
    long long threads = bench_status_field("Threads");
    if (!peak_ok || peak < cur) peak = cur;
    if (rc != 0) {
        bench_gate_open(bench_blocker);
        ops->wait_all(out);
        must(rc, out, "W3 submit");
        goto teardown;
    }
    out->m[BENCH_M_W3_BYTES] = (double)(peak - base) / (double)n;
    out->m[BENCH_M_W3_RSSBYTES] = (double)(cur - base) / (double)n;
    out->m[BENCH_M_W3_THREADS] = (double)(threads - 1); /* minus the main thread */

    uint64_t t0 = bench_now_ns();
    bench_gate_open(bench_blocker);
    rc = ops->wait_all(out);
    uint64_t t1 = bench_now_ns();
    out->m[BENCH_M_W3_DRAIN] = rate(n, t0, t1);
    if (rc == 0 && ops->collect) rc = ops->collect(out);
    must(rc, out, "W3 drain");
teardown:
    ops->teardown();
    if (rc == 0) bench_verify(p, BENCH_W3, n, out);
done:
    bench_gate_destroy(bench_blocker);
    bench_blocker = NULL;
}

static void run_w4(const bench_ops *ops, bench_workload w, const bench_params *p, bench_out *out) {
    long n = p->w4_tasks, k = w == BENCH_W4A ? p->w4_keys_a : p->w4_keys_b;
    char **keys = bench_keys_make(k, "key-");
    if (!keys) {
        bench_fail(out, "out of memory");
        return;
    }
    bench_sleep_task_us = p->w4_sleep_us;
    bench_cfg cfg = {w, p->w4_global, p->w4_cap, p->w4_global, n, 0, 0, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup") == 0) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < n && rc == 0; i++) rc = ops->submit(keys[i % k], i);
        if (rc == 0) rc = ops->wait_all(out);
        uint64_t t1 = bench_now_ns();
        ops->teardown();
        if (must(rc, out, "W4 run") == 0) {
            double ideal = bench_w4_ideal_ns(n, k, p->w4_cap, p->w4_global, p->w4_sleep_us);
            out->m[BENCH_M_W4_RATIO] = (double)(t1 - t0) / ideal;
            out->m[BENCH_M_W4_MS] = (double)(t1 - t0) / 1e6;
            bench_verify(p, w, n, out);
        }
    }
    bench_keys_free(keys);
}

/* W5, and the W5 cost curve (C5*: other key counts). */
static void run_w5(const bench_ops *ops, bench_workload w, long n, const bench_params *p,
                   bench_out *out) {
    char **keys = bench_keys_make(n, "key-");
    if (!keys) {
        bench_fail(out, "out of memory");
        return;
    }
    bench_cfg cfg = {w, p->w5_threads, 1, 0, n, 0, 0, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup") == 0) {
        malloc_trim(0);
        long long base = bench_status_field("VmRSS");
        int peak_ok = bench_reset_peak() == 0;
        uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns(), s0 = bench_thread_cpu_ns();
        for (long i = 0; i < n && rc == 0; i++) rc = ops->submit(keys[i], i);
        uint64_t s1 = bench_thread_cpu_ns();
        if (rc == 0) rc = ops->wait_all(out);
        uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
        long long peak = bench_status_field("VmHWM");
        /* Retained state: task memory is free again by now; give it back to the kernel so that
           RSS shows what the groups themselves keep. */
        malloc_trim(0);
        long long cur = bench_status_field("VmRSS");
        if (!peak_ok || peak < cur) peak = cur;
        long groups = ops->groups();
        ops->teardown();
        if (must(rc, out, "W5 run") == 0) {
            out->m[BENCH_M_RATE] = rate(n, t0, t1);
            out->m[BENCH_M_CPU] = per_task(c0, c1, n);
            out->m[BENCH_M_SUBMIT_CPU] = per_task(s0, s1, n);
            out->m[BENCH_M_W5_RETAINED] = (double)(cur - base) / (double)n;
            out->m[BENCH_M_W5_PEAK] = (double)(peak - base) / (double)n;
            out->m[BENCH_M_W5_GROUPS] = (double)groups;
            bench_verify(p, w, n, out);
            if (out->ok && groups >= 0 && groups != n)
                bench_fail(out, "%ld groups cached, expected %ld", groups, n);
        }
    }
    bench_keys_free(keys);
}

/* W6: submit -> start latency under Poisson arrivals. Tasks spin w6_task_us each on w6_threads
   workers, so the capacity is w6_threads * 1e6 / w6_task_us tasks/s (computed, not measured: 40k/s
   by default); arrivals come at load% of it from this one thread, whose inter-arrival gaps are
   exponential, drawn up front from a fixed seed (the same schedule for every implementation and
   run). The submitter sleeps to each arrival time with clock_nanosleep(TIMER_ABSTIME) and a 1 us
   timer slack rather than spinning: on 2 CPUs a spinning submitter would take a core from the
   workers. Latency = the task's first clock read - the clock read just before its submit call (so
   the submitter's own lateness is not counted; it is reported apart). The first w6_warmup tasks are
   left out (thread start-up). Percentiles: nearest rank. */
static uint64_t w6_rng;
static double w6_uniform(void) { /* xorshift64*, (0, 1] */
    w6_rng ^= w6_rng >> 12;
    w6_rng ^= w6_rng << 25;
    w6_rng ^= w6_rng >> 27;
    uint64_t r = w6_rng * (uint64_t)2685821657736338717u;
    return ((double)(r >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pctl(const uint64_t *sorted, long n, double q) {
    if (n <= 0) return 0;
    long r = (long)ceil(q * (double)n);
    if (r < 1) r = 1;
    if (r > n) r = n;
    return (double)sorted[r - 1];
}

static void run_w6(const bench_ops *ops, bench_workload w, const bench_params *p, bench_out *out) {
    long n = w == BENCH_W6A ? p->w6_tasks_lo : p->w6_tasks_hi;
    int load = w == BENCH_W6A ? p->w6_load_lo : p->w6_load_hi;
    double capacity = (double)p->w6_threads * 1e6 / (double)p->w6_task_us;
    double mean_gap_ns = 1e9 / (capacity * load / 100.0);
    uint64_t *sched = malloc((size_t)n * sizeof *sched);
    uint64_t *late = malloc((size_t)n * sizeof *late);
    bench_w6.submit_ns = calloc((size_t)n, sizeof *bench_w6.submit_ns);
    bench_w6.start_ns = calloc((size_t)n, sizeof *bench_w6.start_ns);
    bench_w6.spin_ns = (uint64_t)p->w6_task_us * 1000u;
    atomic_store(&bench_w6.running, 0);
    atomic_store(&bench_w6.running_sum, 0);
    if (!sched || !late || !bench_w6.submit_ns || !bench_w6.start_ns) {
        bench_fail(out, "out of memory");
        goto done;
    }
    bench_touch(bench_w6.submit_ns, (size_t)n * sizeof *bench_w6.submit_ns);
    bench_touch(bench_w6.start_ns, (size_t)n * sizeof *bench_w6.start_ns);
    w6_rng = (uint64_t)0x9E3779B97F4A7C15u ^ (uint64_t)(unsigned)load;
    double at = 0;
    for (long i = 0; i < n; i++) {
        at += -log(w6_uniform()) * mean_gap_ns;
        sched[i] = (uint64_t)at;
    }
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* this thread's sleeps: 1 us slack, not 50 */
    bench_cfg cfg = {w, p->w6_threads, 0, 0, n, 0, 0, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup")) goto done;
    uint64_t c0 = bench_cpu_ns();
    uint64_t t0 = bench_now_ns() + 1000000; /* first arrival 1 ms from now */
    uint64_t first = 0, last = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        uint64_t due = t0 + sched[i];
        if (bench_now_ns() < due) {
            struct timespec ts = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
            }
        }
        uint64_t s = bench_now_ns();
        late[i] = s > due ? s - due : 0;
        bench_w6.submit_ns[i] = s;
        if (i == 0) first = s;
        last = s;
        rc = ops->submit("w6", i);
    }
    if (rc == 0) rc = ops->wait_all(out);
    uint64_t c1 = bench_cpu_ns();
    ops->teardown();
    if (must(rc, out, "W6 run")) goto done;
    bench_verify(p, w, n, out);
    if (!out->ok) goto done;
    long skip = p->w6_warmup < n / 2 ? p->w6_warmup : n / 2, m = n - skip;
    uint64_t *lat = sched; /* reuse */
    for (long i = 0; i < m; i++) {
        uint64_t a = bench_w6.submit_ns[skip + i], b = bench_w6.start_ns[skip + i];
        lat[i] = b > a ? b - a : 0;
    }
    qsort(lat, (size_t)m, sizeof *lat, cmp_u64);
    qsort(late + skip, (size_t)m, sizeof *late, cmp_u64);
    out->m[BENCH_M_W6_P50] = pctl(lat, m, 0.50);
    out->m[BENCH_M_W6_P99] = pctl(lat, m, 0.99);
    out->m[BENCH_M_W6_P999] = pctl(lat, m, 0.999);
    out->m[BENCH_M_W6_MAX] = (double)lat[m - 1];
    out->m[BENCH_M_W6_LOAD] =
        last > first ? 100.0 * (double)(n - 1) * 1e9 / (double)(last - first) / capacity : 0;
    out->m[BENCH_M_W6_LATE] = pctl(late + skip, m, 0.99);
    out->m[BENCH_M_CPU] = per_task(c0, c1, n);
    out->m[BENCH_M_W6_CONC] = (double)atomic_load(&bench_w6.running_sum) / (double)n;
done:
    free(sched);
    free(late);
    free(bench_w6.submit_ns);
    free(bench_w6.start_ns);
    bench_w6.submit_ns = bench_w6.start_ns = NULL;
}

/* W7: W1 (W7a) or W2 (W7b) from w7_submitters threads at once. W7a: thread t submits the ids
   [t*N/T, (t+1)*N/T) to the one group. W7b: thread t owns the keys k with k % T == t and submits
   their tasks in W2's round-robin order, so every key has one submitter and W2's per-key order
   check holds unchanged. The clock starts when the first thread leaves a barrier (each submitter
   reads it too: on few CPUs the main thread may run again only after the submitters are done);
   ends when all is done. */
typedef struct w7_arg {
    const bench_ops *ops;
    char **keys; /* W7b */
    long nkeys, n;
    int t, nt;
    pthread_barrier_t *bar;
    uint64_t start_ns; /* when it left the barrier */
    int rc;
} w7_arg;

static void *w7_thread(void *v) {
    w7_arg *a = v;
    const bench_ops *ops = a->ops;
    int rc = 0;
    pthread_barrier_wait(a->bar);
    a->start_ns = bench_now_ns();
    if (!a->keys) {
        long lo = (long)((double)a->n * a->t / a->nt), hi = (long)((double)a->n * (a->t + 1) / a->nt);
        for (long i = lo; i < hi && rc == 0; i++) rc = ops->submit("w1", i);
    } else {
        for (long base = 0; base < a->n && rc == 0; base += a->nkeys)
            for (long k = a->t; k < a->nkeys && base + k < a->n && rc == 0; k += a->nt)
                rc = ops->submit(a->keys[k], base + k);
    }
    a->rc = rc;
    if (ops->submitter_done) ops->submitter_done();
    return NULL;
}

static void run_w7(const bench_ops *ops, bench_workload w, const bench_params *p, bench_out *out) {
    int nt = p->w7_submitters;
    int shaped2 = w == BENCH_W7B;
    long n = shaped2 ? p->w2_tasks : p->w1_tasks, k = shaped2 ? p->w2_keys : 0;
    char **keys = NULL;
    if (shaped2) {
        keys = bench_keys_make(k, "key-");
        if (!keys || bench_w2check_init(&bench_check, k) != 0) {
            bench_keys_free(keys);
            bench_fail(out, "out of memory");
            return;
        }
    }
    w7_arg *args = calloc((size_t)nt, sizeof *args);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    pthread_barrier_t bar;
    if (!args || !th || pthread_barrier_init(&bar, NULL, (unsigned)nt + 1) != 0) {
        bench_fail(out, "out of memory");
        goto done;
    }
    bench_cfg cfg = {w, shaped2 ? p->w2_threads : p->w1_threads, shaped2 ? 1 : 0, 0, n, 0, 0, 0, 0,
                     nt, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup") == 0) {
        for (int t = 0; t < nt; t++) {
            args[t] = (w7_arg){ops, keys, k, n, t, nt, &bar, 0, 0};
            if (pthread_create(&th[t], NULL, w7_thread, &args[t]) != 0)
                abort(); /* the measuring child dies: reported as a failed measurement */
        }
        uint64_t c0 = bench_cpu_ns();
        pthread_barrier_wait(&bar);
        uint64_t t0 = bench_now_ns();
        if (ops->serve) rc = ops->serve(out);
        for (int t = 0; t < nt; t++) {
            pthread_join(th[t], NULL);
            if (rc == 0) rc = args[t].rc;
            if (args[t].start_ns < t0) t0 = args[t].start_ns;
        }
        if (rc == 0) rc = ops->wait_all(out);
        uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
        ops->teardown();
        if (must(rc, out, "W7 run") == 0) {
            out->m[BENCH_M_RATE] = rate(n, t0, t1);
            out->m[BENCH_M_CPU] = per_task(c0, c1, n);
            bench_verify(p, w, n, out);
        }
    }
    pthread_barrier_destroy(&bar);
done:
    free(args);
    free(th);
    if (shaped2) bench_w2check_free(&bench_check);
    bench_keys_free(keys);
}

/* W8: the bounded table. w8_keys distinct keys "key-0000000".. (as W5's), one no-op task each,
   fire-and-forget, on an executor with max_groups and group_idle_ns set. The keys are formatted on
   the fly into one stack buffer (a decimal odometer: no array of 10M strings to dominate RSS, and
   cheaper than snprintf per key). Peak RSS is read at three checkpoints: after keys / 10, keys / 2
   and all keys have been submitted. */
static void odometer_next(char *digits, int width) {
    for (int j = width - 1; j >= 0; j--) {
        if (digits[j] < '9') {
            digits[j]++;
            return;
        }
        digits[j] = '0';
    }
}

static long long peak_now(int peak_ok) {
    long long hwm = peak_ok ? bench_status_field("VmHWM") : -1;
    long long cur = bench_status_field("VmRSS");
    return hwm > cur ? hwm : cur;
}

static void run_w8(const bench_ops *ops, const bench_params *p, bench_out *out) {
    long n = p->w8_keys;
    if (!ops->reclaimed) {
        bench_fail(out, "W8 needs a bounded group table (groupconc only)");
        return;
    }
    long ck[3] = {n / 10 > 0 ? n / 10 : 1, n / 2 > 0 ? n / 2 : 1, n};
    long long rss[3] = {0, 0, 0};
    int width = 7;
    for (long m = n - 1; m >= 10000000; m /= 10) width++;
    char key[32] = "key-";
    memset(key + 4, '0', (size_t)width);
    key[4 + width] = '\0';

    bench_cfg cfg = {BENCH_W8, p->w5_threads, 1, 0, n, 0, 0, p->w8_max_groups,
                     (int64_t)p->w8_idle_ms * 1000000, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup")) return;
    malloc_trim(0);
    long long base = bench_status_field("VmRSS");
    int peak_ok = bench_reset_peak() == 0;
    long i = 0;
    int c = 0;
    uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns(), s0 = bench_thread_cpu_ns();
    long full = 0;
    for (; i < n; i++) {
        /* Every group busy (tasks submitted faster than 2 workers run them: the backlog reached
           max_groups): what a user of a bounded table does, give the workers the CPU and retry. */
        while ((rc = ops->submit(key, i)) == BENCH_EFULL) {
            full++;
            sched_yield();
        }
        if (rc != 0) break;
        odometer_next(key + 4, width);
        while (c < 3 && i + 1 == ck[c]) rss[c++] = peak_now(peak_ok);
    }
    uint64_t s1 = bench_thread_cpu_ns();
    int submit_rc = rc;
    if (rc == 0) rc = ops->wait_all(out);
    uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
    long groups = ops->groups();
    long reclaimed = ops->reclaimed();
    ops->teardown();
    if (submit_rc != 0) {
        bench_fail(out, "submit of key %ld failed (%d)", i, submit_rc);
        return;
    }
    if (must(rc, out, "W8 run")) return;
    out->m[BENCH_M_RATE] = rate(n, t0, t1);
    out->m[BENCH_M_CPU] = per_task(c0, c1, n);
    out->m[BENCH_M_SUBMIT_CPU] = per_task(s0, s1, n);
    out->m[BENCH_M_W8_RSS1] = (double)rss[0];
    out->m[BENCH_M_W8_RSS2] = (double)rss[1];
    out->m[BENCH_M_W8_RSS3] = (double)rss[2];
    out->m[BENCH_M_W8_GROWTH] = rss[0] > 0 ? (double)rss[2] / (double)rss[0] : 0.0;
    out->m[BENCH_M_W8_BASE] = (double)base;
    out->m[BENCH_M_W8_RECLAIMED] = (double)reclaimed;
    out->m[BENCH_M_W8_GROUPS] = (double)groups;
    out->m[BENCH_M_W8_FULL] = (double)full;
    bench_verify(p, BENCH_W8, n, out);
    if (out->ok && (groups < 0 || groups > p->w8_max_groups))
        bench_fail(out, "%ld groups cached, max_groups %ld", groups, p->w8_max_groups);
    else if (out->ok && groups + reclaimed != n)
        bench_fail(out, "%ld groups cached + %ld reclaimed != %ld keys", groups, reclaimed, n);
}

/* W9: the crawler. w9_hosts hosts x w9_per_host tasks that each sleep w9_sleep_us, submitted host
   by host, at most w9_cap per host and w9_global overall. Makespan: first submit -> all done. */
static void run_w9(const bench_ops *ops, const bench_params *p, bench_out *out) {
    long hosts = p->w9_hosts, per = p->w9_per_host, n = hosts * per;
    char **keys = bench_keys_make(hosts, "host-");
    if (!keys || bench_w9check_init(&bench_w9, hosts, per) != 0) {
        bench_keys_free(keys);
        bench_fail(out, "out of memory");
        return;
    }
    bench_sleep_task_us = p->w9_sleep_us;
    /* the peers: a pool of w9_global threads + the keyed layer at w9_cap; groupconc:
       default_concurrency = w9_cap, global_max_running = w9_global */
    bench_cfg cfg = {BENCH_W9, p->w9_global, p->w9_cap, 0, n, 0, p->w9_global, 0, 0, 1, 0};
    int rc = ops->setup(&cfg, out);
    if (must(rc, out, "setup") == 0) {
        uint64_t t0 = bench_now_ns();
        for (long h = 0; h < hosts && rc == 0; h++)
            for (long j = 0; j < per && rc == 0; j++) rc = ops->submit(keys[h], h * per + j);
        if (rc == 0) rc = ops->wait_all(out);
        uint64_t t1 = bench_now_ns();
        ops->teardown();
        if (must(rc, out, "W9 run") == 0) {
            double ideal = bench_w4_ideal_ns(n, hosts, p->w9_cap, p->w9_global, p->w9_sleep_us);
            int maxrun = atomic_load(&bench_w9.max_running), maxhost = atomic_load(&bench_w9.max_host);
            out->m[BENCH_M_W9_RATIO] = (double)(t1 - t0) / ideal;
            out->m[BENCH_M_W9_MS] = (double)(t1 - t0) / 1e6;
            out->m[BENCH_M_W9_MAXRUN] = maxrun;
            out->m[BENCH_M_W9_MAXHOST] = maxhost;
            bench_verify(p, BENCH_W9, n, out);
            if (out->ok && (maxrun > p->w9_global || maxhost > p->w9_cap))
                bench_fail(out, "caps exceeded: %d running at once (cap %d), %d of one host (cap %d)",
                           maxrun, p->w9_global, maxhost, p->w9_cap);
        }
    }
    bench_w9check_free(&bench_w9);
    bench_keys_free(keys);
}

void bench_run(const bench_ops *ops, bench_workload w, const bench_params *p, int handles,
               bench_out *out) {
    bench_cur = w;
    bench_count_reset();
    out->ok = 0;
    out->err[0] = '\0';
    switch (w) {
    case BENCH_W1: run_w1(ops, p, handles, out); break;
    case BENCH_W2: run_w2(ops, w, p->w2_keys, p, out); break;
    case BENCH_W3: run_w3(ops, p, handles, out); break;
    case BENCH_W4A:
    case BENCH_W4B: run_w4(ops, w, p, out); break;
    case BENCH_W5: run_w5(ops, w, p->w5_keys, p, out); break;
    case BENCH_W6A:
    case BENCH_W6B: run_w6(ops, w, p, out); break;
    case BENCH_W7A:
    case BENCH_W7B: run_w7(ops, w, p, out); break;
    case BENCH_C5A:
    case BENCH_C5B:
    case BENCH_C5C: run_w5(ops, w, p->curve_w5_keys[w - BENCH_C5A], p, out); break;
    case BENCH_C2A:
    case BENCH_C2B:
    case BENCH_C2C: run_w2(ops, w, p->curve_w2_keys[w - BENCH_C2A], p, out); break;
    case BENCH_W8: run_w8(ops, p, out); break;
    case BENCH_W9: run_w9(ops, p, out); break;
    case BENCH_W1D: run_w1d(ops, p, out); break;
    default: bench_fail(out, "unknown workload"); break;
    }
}
