/* bench_workloads.c - the workloads, written once against bench_ops so that groupconc and the
   peers run exactly the same submission sequence and measurement points. */
#include "bench.h"

#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    bench_cfg cfg = {BENCH_W1, p->w1_threads, 0, 0, n, handles, 0, 0, 0};
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

static void run_w2(const bench_ops *ops, const bench_params *p, bench_out *out) {
    long n = p->w2_tasks, k = p->w2_keys;
    char **keys = bench_keys_make(k, "key-");
    if (!keys || bench_w2check_init(&bench_check, k) != 0) {
        bench_keys_free(keys);
        bench_fail(out, "out of memory");
        return;
    }
    bench_cfg cfg = {BENCH_W2, p->w2_threads, 1, 0, n, 0, 0, 0, 0};
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
            bench_verify(p, BENCH_W2, n, out);
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
    bench_cfg cfg = {BENCH_W3, p->w3_threads, 1, 0, n + 1, handles, 0, 0, 0};
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
    bench_cfg cfg = {w, p->w4_global, p->w4_cap, p->w4_global, n, 0, 0, 0, 0};
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

static void run_w5(const bench_ops *ops, const bench_params *p, bench_out *out) {
    long n = p->w5_keys;
    char **keys = bench_keys_make(n, "key-");
    if (!keys) {
        bench_fail(out, "out of memory");
        return;
    }
    bench_cfg cfg = {BENCH_W5, p->w5_threads, 1, 0, n, 0, 0, 0, 0};
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
            bench_verify(p, BENCH_W5, n, out);
            if (out->ok && groups >= 0 && groups != n)
                bench_fail(out, "%ld groups cached, expected %ld", groups, n);
        }
    }
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
                     (int64_t)p->w8_idle_ms * 1000000};
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
    bench_cfg cfg = {BENCH_W9, p->w9_global, p->w9_cap, 0, n, 0, p->w9_global, 0, 0};
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
    case BENCH_W2: run_w2(ops, p, out); break;
    case BENCH_W3: run_w3(ops, p, handles, out); break;
    case BENCH_W4A:
    case BENCH_W4B: run_w4(ops, w, p, out); break;
    case BENCH_W5: run_w5(ops, p, out); break;
    case BENCH_W8: run_w8(ops, p, out); break;
    case BENCH_W9: run_w9(ops, p, out); break;
    default: bench_fail(out, "unknown workload"); break;
    }
}
