/* bench_workloads.c - the five workloads, written once against bench_ops so that groupconc and the
   peers run exactly the same submission sequence and measurement points. */
#include "bench.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

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
    bench_cfg cfg = {BENCH_W1, p->w1_threads, 0, 0, n, handles};
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
    bench_cfg cfg = {BENCH_W2, p->w2_threads, 1, 0, n, 0};
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
    bench_cfg cfg = {BENCH_W3, p->w3_threads, 1, 0, n + 1, handles};
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
    bench_cfg cfg = {w, p->w4_global, p->w4_cap, p->w4_global, n, 0};
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
    bench_cfg cfg = {BENCH_W5, p->w5_threads, 1, 0, n, 0};
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
    default: bench_fail(out, "unknown workload"); break;
    }
}
