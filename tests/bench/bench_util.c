/* bench_util.c - clock, /proc readers, counters and the W2 checker shared by all implementations. */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

bench_shard bench_shards[BENCH_SHARDS];
_Atomic unsigned bench_next_shard;
_Thread_local int bench_my_shard = -1;

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_cpu_ns(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

uint64_t bench_thread_cpu_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

long long bench_status_field(const char *name) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    size_t len = strlen(name);
    long long v = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            char *end = NULL;
            v = strtoll(line + len + 1, &end, 10);
            if (end && strstr(end, "kB")) v *= 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

int bench_reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int rc = fputs("5", f) < 0 ? -1 : 0;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

void bench_fail(bench_out *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->err, sizeof out->err, fmt, ap);
    va_end(ap);
    out->ok = 0;
}

char **bench_keys_make(long count, const char *prefix) {
    size_t width = strlen(prefix) + 12;
    char **keys = malloc((size_t)count * sizeof *keys);
    char *block = malloc((size_t)count * width);
    if (!keys || !block) {
        free(keys);
        free(block);
        return NULL;
    }
    for (long i = 0; i < count; i++) {
        keys[i] = block + (size_t)i * width;
        snprintf(keys[i], width, "%s%07ld", prefix, i);
    }
    return keys;
}

void bench_keys_free(char **keys) {
    if (keys) free(keys[0]);
    free(keys);
}

void bench_touch(void *p, size_t n) {
    volatile char *c = p;
    for (size_t i = 0; i < n; i += 4096) c[i] = c[i];
}

uint64_t bench_count_total(void) {
    uint64_t t = 0;
    for (int i = 0; i < BENCH_SHARDS; i++) t += atomic_load(&bench_shards[i].n);
    return t;
}

void bench_count_reset(void) {
    for (int i = 0; i < BENCH_SHARDS; i++) atomic_store(&bench_shards[i].n, 0);
}

int bench_w2check_init(bench_w2check *c, long nkeys) {
    c->keys = calloc((size_t)nkeys, sizeof *c->keys);
    c->nkeys = nkeys;
    atomic_store(&c->overlap, 0);
    atomic_store(&c->misorder, 0);
    return c->keys ? 0 : -1;
}

void bench_w2check_free(bench_w2check *c) {
    free(c->keys);
    c->keys = NULL;
}

void bench_w2check_task(bench_w2check *c, long i) {
    bench_keycheck *k = &c->keys[i % c->nkeys];
    if (atomic_fetch_add_explicit(&k->in_flight, 1, memory_order_acq_rel) != 0)
        atomic_fetch_add(&c->overlap, 1);
    long seq = i / c->nkeys;
    if (atomic_load_explicit(&k->next_seq, memory_order_relaxed) != seq)
        atomic_fetch_add(&c->misorder, 1);
    atomic_store_explicit(&k->next_seq, seq + 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&k->in_flight, 1, memory_order_acq_rel);
}

struct bench_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started, open;
};

bench_gate *bench_gate_create(void) {
    bench_gate *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    return g;
}

void bench_gate_destroy(bench_gate *g) {
    if (!g) return;
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

void bench_gate_enter_and_wait(bench_gate *g) {
    pthread_mutex_lock(&g->mu);
    g->started = 1;
    pthread_cond_broadcast(&g->cv);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void bench_gate_wait_started(bench_gate *g) {
    pthread_mutex_lock(&g->mu);
    while (!g->started) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void bench_gate_open(bench_gate *g) {
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

int bench_w9check_init(bench_w9check *c, long hosts, long per_host) {
    c->host_running = calloc((size_t)hosts, sizeof *c->host_running);
    c->hosts = hosts;
    c->per_host = per_host;
    atomic_store(&c->running, 0);
    atomic_store(&c->max_running, 0);
    atomic_store(&c->max_host, 0);
    return c->host_running ? 0 : -1;
}

void bench_w9check_free(bench_w9check *c) {
    free((void *)c->host_running);
    c->host_running = NULL;
}

static void raise_max(_Atomic int *max, int v) {
    int m = atomic_load_explicit(max, memory_order_relaxed);
    while (v > m && !atomic_compare_exchange_weak_explicit(max, &m, v, memory_order_relaxed,
                                                           memory_order_relaxed)) {
    }
}

/* Task id (host h = id / per_host): count it in while it sleeps, out before it returns (so the
   counts never exceed what the implementation's permits allow). */
static void bench_w9_task(bench_w9check *c, long id, int sleep_us) {
    _Atomic int *h = &c->host_running[(id / c->per_host) % c->hosts];
    raise_max(&c->max_running, atomic_fetch_add(&c->running, 1) + 1);
    raise_max(&c->max_host, atomic_fetch_add(h, 1) + 1);
    bench_sleep_us(sleep_us);
    atomic_fetch_sub(h, 1);
    atomic_fetch_sub(&c->running, 1);
}

double bench_w4_ideal_ns(long tasks, long keys, int cap, int global, int sleep_us) {
    /* Lower bound on the makespan: the global cap (or all keys at their caps, if fewer) limits the
       width, and the busiest key needs ceil(its tasks / cap) rounds on its own. */
    long width = keys * cap < global ? keys * cap : global;
    long rounds_width = (tasks + width - 1) / width;
    long per_key = (tasks + keys - 1) / keys;
    long rounds_key = (per_key + cap - 1) / cap;
    long rounds = rounds_width > rounds_key ? rounds_width : rounds_key;
    return (double)rounds * sleep_us * 1000.0;
}

bench_workload bench_cur;
bench_w2check bench_check;
bench_w9check bench_w9;
bench_w6data bench_w6;
bench_gate *bench_blocker;
int bench_sleep_task_us;

void bench_task_body(long id) {
    switch (bench_cur) {
    case BENCH_W2:
    case BENCH_W7B:
    case BENCH_C2A:
    case BENCH_C2B:
    case BENCH_C2C:
        bench_w2check_task(&bench_check, id);
        break;
    case BENCH_W6A:
    case BENCH_W6B: {
        uint64_t t = bench_now_ns();
        bench_w6.start_ns[id] = t;
        int r = atomic_fetch_add_explicit(&bench_w6.running, 1, memory_order_relaxed) + 1;
        atomic_fetch_add_explicit(&bench_w6.running_sum, r, memory_order_relaxed);
        uint64_t until = t + bench_w6.spin_ns;
        while (bench_now_ns() < until) {
        }
        atomic_fetch_sub_explicit(&bench_w6.running, 1, memory_order_relaxed);
        break;
    }
    case BENCH_W3:
        if (id < 0) {
            bench_gate_enter_and_wait(bench_blocker);
            return; /* the blocker is not counted */
        }
        break;
    case BENCH_W4A:
    case BENCH_W4B:
        bench_sleep_us(bench_sleep_task_us);
        break;
    case BENCH_W9:
        bench_w9_task(&bench_w9, id, bench_sleep_task_us);
        break;
    default:
        break;
    }
    bench_count_one();
}

void bench_verify(const bench_params *p, bench_workload w, long expected, bench_out *out) {
    (void)p;
    uint64_t got = bench_count_total();
    if (got != (uint64_t)expected) {
        bench_fail(out, "ran %llu tasks, expected %ld", (unsigned long long)got, expected);
        return;
    }
    if (w == BENCH_W2 || w == BENCH_W7B || w == BENCH_C2A || w == BENCH_C2B || w == BENCH_C2C) {
        long ov = atomic_load(&bench_check.overlap), mis = atomic_load(&bench_check.misorder);
        if (ov || mis) {
            bench_fail(out, "per-key check failed: %ld overlaps, %ld out of order", ov, mis);
            return;
        }
    }
    out->ok = 1;
}

long bench_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}
