/* bench.h - shared declarations of the groupconc benchmark (tests/bench/README.md).

   Every measurement runs in a forked child process (bench.c): its RSS figures, libuv's process-wide
   thread pool (sized once by UV_THREADPOOL_SIZE) and GLib's shared threads start fresh each time.
   An implementation fills a bench_out with up to BENCH_MAX_METRICS numbers whose meaning depends on
   the workload (see the BENCH_M_* names below). */
#ifndef BENCH_H_INCLUDED
#define BENCH_H_INCLUDED

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum { BENCH_MAX_METRICS = 12 };

/* BENCH_DISPATCH is built only with the meson option dispatch_prefix (BENCH_HAVE_DISPATCH). */
typedef enum bench_impl {
    BENCH_GROUPCONC = 0,
    BENCH_GLIB,
    BENCH_UV,
    BENCH_DISPATCH,
    BENCH_IMPL_COUNT
} bench_impl;

/* Workloads. W4, W6 and W7 run twice (two key counts, two loads, two shapes); W1 and W3 have a
   handle variant for groupconc; W8 and W1d run on groupconc only (the peers have no bounded table,
   and W1d counts groupconc's own worker threads). The
   BENCH_C* workloads are the cost curves: W5 and W2 at other key counts (--curves). */
typedef enum bench_workload {
    BENCH_W1 = 0, /* dispatch overhead */
    BENCH_W2,     /* per-key serialization */
    BENCH_W3,     /* memory per waiting task + drain */
    BENCH_W4A,    /* makespan, many keys */
    BENCH_W4B,    /* makespan, few keys */
    BENCH_W5,     /* many groups */
    BENCH_W6A,    /* submit -> start latency, Poisson arrivals at the low load (10 %) */
    BENCH_W6B,    /*   ... at the high load (50 %) */
    BENCH_W7A,    /* W1 with several submitting threads */
    BENCH_W7B,    /* W2 with several submitting threads */
    BENCH_W8,     /* bounded group table: 10M distinct keys, max_groups + group_idle_ns */
    BENCH_W9,     /* crawler: per-host cap 2, global running cap 16, 20 ms tasks */
    BENCH_W1D,    /* W1's tasks on groupconc_policy_default()'s pool: peak worker threads */
    BENCH_C5A,    /* cost curve: W5 at curve_w5_keys[0] keys (10^4) */
    BENCH_C5B,    /*   ... [1] (10^5) */
    BENCH_C5C,    /*   ... [2] (4 * 10^6); 10^6 is W5 itself */
    BENCH_C2A,    /* cost curve: W2 at curve_w2_keys[0] keys (10) */
    BENCH_C2B,    /*   ... [1] (10^3); 10^4 is W2 itself */
    BENCH_C2C,    /*   ... [2] (10^5) */
    BENCH_WORKLOAD_COUNT
} bench_workload;

/* Metric slots, per workload. */
enum {
    BENCH_M_RATE = 0,      /* W1, W2, W5: tasks/s (first submit -> all done) */
    BENCH_M_W3_BYTES = 0,  /* W3: (peak RSS - baseline) / N */
    BENCH_M_W3_THREADS = 1,/* W3: worker threads alive while N tasks wait */
    BENCH_M_W3_DRAIN = 2,  /* W3: tasks/s after the blocker is released */
    BENCH_M_W3_RSSBYTES = 3,/* W3: (current RSS - baseline) / N, same moment */
    BENCH_M_W4_RATIO = 0,  /* W4: makespan / ideal */
    BENCH_M_W4_MS = 1,     /* W4: makespan, ms */
    BENCH_M_W5_RETAINED = 1,/* W5: (RSS after all done and malloc_trim - baseline) / N */
    BENCH_M_W5_PEAK = 2,   /* W5: (peak RSS - baseline) / N */
    BENCH_M_W5_GROUPS = 3, /* W5: groups cached at the end (verification) */
    BENCH_M_SUBMIT_CPU = 4,/* W1, W2, W5, W8: CPU time of the submitting thread in its loop, per task */
    BENCH_M_CPU = 5,       /* W1, W2, W5, W6, W7, W8: CPU time (user + sys, all threads) per task, ns */
    /* W6 (BENCH_M_CPU as above) */
    BENCH_M_W6_P50 = 0,    /* W6: submit -> start latency, ns: median */
    BENCH_M_W6_P99 = 1,    /*     ... 99th percentile */
    BENCH_M_W6_P999 = 2,   /*     ... 99.9th percentile */
    BENCH_M_W6_LOAD = 3,   /* W6: achieved arrival rate / capacity, percent */
    BENCH_M_W6_LATE = 6,   /* W6: the submitter's lateness behind the schedule, ns: 99th percentile */
    BENCH_M_W6_MAX = 7,    /* W6: largest latency, ns */
    BENCH_M_W6_CONC = 8,   /* W6: tasks running when one starts (itself included), mean */
    /* W8 (BENCH_M_RATE, BENCH_M_SUBMIT_CPU and BENCH_M_CPU as above) */
    BENCH_M_W8_RSS1 = 1,   /* W8: peak RSS (VmHWM), bytes, after the first checkpoint (keys / 10) */
    BENCH_M_W8_RSS2 = 2,   /*     ... after keys / 2 */
    BENCH_M_W8_RSS3 = 3,   /*     ... after all keys */
    BENCH_M_W8_GROWTH = 6, /* W8: RSS3 / RSS1 ("flat": close to 1) */
    BENCH_M_W8_BASE = 7,   /* W8: VmRSS before the first submit, bytes */
    BENCH_M_W8_RECLAIMED = 8,/* W8: groups_reclaimed at the end */
    BENCH_M_W8_GROUPS = 9, /* W8: groups cached at the end */
    BENCH_M_W8_FULL = 10,  /* W8: submits refused with BENCH_EFULL (retried) */
    /* W9 */
    BENCH_M_W9_RATIO = 0,  /* W9: makespan / ideal */
    BENCH_M_W9_MS = 1,     /* W9: makespan, ms */
    BENCH_M_W9_MAXRUN = 2, /* W9: most task bodies running at once, all hosts */
    BENCH_M_W9_MAXHOST = 3,/* W9: most task bodies of one host running at once */
    /* W1d (BENCH_M_CPU as above) */
    BENCH_M_W1D_PEAK = 0,  /* W1d: most worker threads alive (side-thread samples + the end read) */
    BENCH_M_W1D_END = 1,   /* W1d: worker threads alive when every task has run */
    BENCH_M_W1D_RATE = 2,  /* W1d: tasks/s (first submit -> every task has run) */
    BENCH_M_W1D_SAMPLES = 3,/* W1d: samples the side thread took */
    BENCH_M_W1D_CPUS = 6   /* W1d: CPUs this process may run on (sched_getaffinity) */
};

typedef struct bench_params {
    int runs;
    int timeout_s;
    long w1_tasks;
    int w1_threads;
    long w2_tasks;
    long w2_keys;
    int w2_threads;
    long w3_tasks;
    int w3_threads;
    long w4_tasks;
    long w4_keys_a, w4_keys_b;
    int w4_cap;
    int w4_global;
    int w4_sleep_us;
    long w5_keys;
    int w5_threads;
    int handles;   /* variant: groupconc keeps a handle per task (W1, W3) */
    long w8_keys;        /* distinct keys, one no-op task each */
    long w8_max_groups;  /* policy.max_groups */
    long w8_idle_ms;     /* policy.group_idle_ns, in ms */
    int w8_runs;         /* W8 runs in the first w8_runs runs only (0: every run; ~6 s each) */
    int w6_runs;         /* W6a and W6b run this many times (default 11), the others `runs`: their
                            p99 is bimodal on a VM (stalls of 1-5 ms in some runs), and a median
                            of 5 of it was a coin toss */
    long w9_hosts;
    long w9_per_host;    /* tasks per host, submitted host by host */
    int w9_cap;          /* per host */
    int w9_global;       /* running at once, all hosts */
    int w9_sleep_us;
    int w6_task_us;      /* W6: each task spins this long (capacity = w6_threads * 1e6 / w6_task_us /s) */
    int w6_threads;
    int w6_load_lo, w6_load_hi;  /* percent of capacity */
    long w6_tasks_lo, w6_tasks_hi;
    long w6_warmup;      /* latencies of the first tasks are not counted */
    int w7_submitters;
    long curve_w5_keys[3];
    long curve_w2_keys[3];
    int curve_runs;      /* curves run in the first curve_runs runs only */
} bench_params;

typedef struct bench_out {
    double m[BENCH_MAX_METRICS];
    int ok;          /* 1: measured and verified */
    char err[160];   /* why not ok */
} bench_out;

/* ---- helpers (bench_util.c) ---- */
uint64_t bench_now_ns(void);
/* CPU time of this process (user + sys, all threads), ns. */
uint64_t bench_cpu_ns(void);
uint64_t bench_thread_cpu_ns(void); /* the calling thread's CPU time */
void bench_sleep_us(long us);
/* The CPUs this process may run on: its affinity mask, else the online count (libdispatch sizes
   its pool by the same count). */
long bench_cpu_count(void);
/* Fields of /proc/self/status, in bytes (kB * 1024) or as a count; -1 when missing. */
long long bench_status_field(const char *name);
/* Reset VmHWM to the current RSS (/proc/self/clear_refs "5"); returns 0 on success. */
int bench_reset_peak(void);
void bench_fail(bench_out *out, const char *fmt, ...);
/* Keys "key-0000000" .. into one block: keys[i] points into it. Free with bench_keys_free. */
char **bench_keys_make(long count, const char *prefix);
void bench_keys_free(char **keys);
/* Touch every page of a block so that its pages are in the baseline RSS. */
void bench_touch(void *p, size_t n);

/* Per-thread completion counters (one writer per slot, so no contended atomics in the measured
   path); the sum is read after the run to verify that every task ran exactly once. */
enum { BENCH_SHARDS = 256 };
typedef struct bench_shard {
    _Atomic uint64_t n;
    char pad[64 - sizeof(uint64_t)];
} bench_shard;
extern bench_shard bench_shards[BENCH_SHARDS];
extern _Atomic unsigned bench_next_shard;
extern _Thread_local int bench_my_shard;
static inline void bench_count_one(void) {
    if (bench_my_shard < 0)
        bench_my_shard = (int)(atomic_fetch_add(&bench_next_shard, 1u) % BENCH_SHARDS);
    _Atomic uint64_t *c = &bench_shards[bench_my_shard].n;
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}
uint64_t bench_count_total(void);
void bench_count_reset(void);

/* W2 verification: per-key in-flight counter (must never exceed 1) and next expected sequence
   number. Padded to a cache line so that neighbouring keys do not share one. */
typedef struct bench_keycheck {
    _Atomic int in_flight;
    _Atomic long next_seq;
    char pad[64 - sizeof(int) - sizeof(long)];
} bench_keycheck;
typedef struct bench_w2check {
    bench_keycheck *keys;
    long nkeys;
    _Atomic long overlap;   /* times a key had 2+ tasks at once */
    _Atomic long misorder;  /* times a key's task ran out of submission order */
} bench_w2check;
int bench_w2check_init(bench_w2check *c, long nkeys);
void bench_w2check_free(bench_w2check *c);
/* Task index i (0-based, round-robin: key i % nkeys, sequence i / nkeys). */
void bench_w2check_task(bench_w2check *c, long i);

/* A gate the W3 blocker task waits on. */
typedef struct bench_gate bench_gate;
bench_gate *bench_gate_create(void);
void bench_gate_destroy(bench_gate *g);
void bench_gate_enter_and_wait(bench_gate *g); /* blocker: say "started", wait for open */
void bench_gate_wait_started(bench_gate *g);   /* main: wait until the blocker runs */
void bench_gate_open(bench_gate *g);

/* W9 verification: task bodies running at once, overall and per host (task id / per_host). */
typedef struct bench_w9check {
    _Atomic int *host_running;
    long hosts, per_host;
    _Atomic int running;
    _Atomic int max_running;
    _Atomic int max_host;
} bench_w9check;
int bench_w9check_init(bench_w9check *c, long hosts, long per_host);
void bench_w9check_free(bench_w9check *c);

/* W6: per-task timestamps (preallocated) and the spin length. */
typedef struct bench_w6data {
    uint64_t *submit_ns; /* written by the submitter just before submit */
    uint64_t *start_ns;  /* written by the task first thing */
    uint64_t spin_ns;
    _Atomic int running;       /* task bodies running now */
    _Atomic long running_sum;  /* sum over tasks of `running` when each started (itself included) */
} bench_w6data;

/* W4 ideal makespan in ns for tasks spread round-robin over keys. */
double bench_w4_ideal_ns(long tasks, long keys, int cap, int global, int sleep_us);

/* The body every implementation's task runs, by workload (set bench_cur first):
   W1, W5: count; W2: the W2 check, then count; W3: id < 0 is the blocker (waits on bench_blocker),
   others count; W4: sleep bench_sleep_task_us, then count; W8: count; W9: the W9 check around a
   sleep of bench_sleep_task_us, then count; W6: record the start time, spin bench_w6.spin_ns, count;
   W7a / W7b and the curves: as W1 / W2 / W5. */
extern bench_workload bench_cur;
extern bench_w2check bench_check;
extern bench_w9check bench_w9;
extern bench_w6data bench_w6;
extern bench_gate *bench_blocker;
extern int bench_sleep_task_us;
void bench_task_body(long id);
/* Common verification after a run: every task counted once, W2 check clean. */
void bench_verify(const bench_params *p, bench_workload w, long expected, bench_out *out);

/* ---- implementations ---- */

/* submit's answer when a bounded group table is full of busy groups (groupconc: GROUPCONC_EGROUPS_FULL,
   "at max_groups and no group is idle"): nothing was submitted; the caller may retry. */
enum { BENCH_EFULL = 1 };

/* What one run asks of an implementation (one run per process, so implementations keep their
   state in file-scope variables). */
typedef struct bench_cfg {
    bench_workload w;
    int threads;  /* worker threads (pool size / max_threads) */
    int cap;      /* per-key concurrency; 0: no per-key limit at all (W1: the plain pool) */
    int global;   /* global cap on running tasks; 0: none beyond `threads` */
    long expect;  /* tasks that will be submitted (blocker included) */
    int handles;  /* groupconc: keep a handle per task */
    int run_cap;  /* groupconc: policy.global_max_running (0: unlimited); the peers' pool size
                     (`threads`) is their running cap */
    long max_groups;       /* groupconc: policy.max_groups (0: unlimited) */
    int64_t group_idle_ns; /* groupconc: policy.group_idle_ns (0: forever) */
    int submitters;        /* threads calling submit at once (W7); 0 or 1: the calling thread only */
    int default_pool;      /* groupconc: leave max_threads (and keep_alive_ns) at
                              groupconc_policy_default()'s (W1d); `threads` is then ignored */
} bench_cfg;

typedef struct bench_ops {
    const char *name;
    int (*setup)(const bench_cfg *cfg, bench_out *out);
    int (*submit)(const char *key, long id);        /* runs bench_task_body(id) under key's limits;
                                                       BENCH_EFULL: refused for now (W8) */
    int (*wait_all)(bench_out *out);                /* until every submitted task has finished */
    int (*collect)(bench_out *out);                 /* handles: wait + check + release; may be NULL */
    long (*groups)(void);                           /* cached key states, -1 if unknown */
    void (*teardown)(void);
    long (*reclaimed)(void);                        /* groups dropped by a bounded table (W8);
                                                       NULL: no bounded table (the peers) */
    /* Several submitters (W7), both may be NULL: serve runs on the thread that called setup while
       the submitting threads run, until each has called submitter_done and everything they
       submitted has been handed on (libuv: the loop, which alone may call uv_queue_work). */
    int (*serve)(bench_out *out);
    void (*submitter_done)(void);
} bench_ops;

extern const bench_ops bench_ops_groupconc;
/* groupconc's worker threads alive now (groupconc_executor_stats_get's `threads`), -1 if unknown;
   any thread may call it between bench_ops_groupconc's setup and teardown (W1d's sampler). */
long bench_groupconc_threads(void);
extern const bench_ops bench_ops_glib;
extern const bench_ops bench_ops_uv;
#ifdef BENCH_HAVE_DISPATCH
extern const bench_ops bench_ops_dispatch;
#endif

/* Run workload w with ops in this process (bench_workloads.c). */
void bench_run(const bench_ops *ops, bench_workload w, const bench_params *p, int handles,
               bench_out *out);

#endif
