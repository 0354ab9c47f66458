/* bench.c - groupconc against GLib's GThreadPool, libuv's work queue and (when built with
   run.sh --with-dispatch PREFIX) libdispatch, side by side in one run.

   groupconc-bench [options]              run every workload R times, interleaved, print the tables
   groupconc-bench hotpath MODE N [T]     N no-op tasks the W1 way, in this process (callgrind)
   groupconc-bench one WORKLOAD MODE      one measurement in this process (perf, callgrind)
                                          MODE: groupconc, groupconc-handles, glib, uv, dispatch

   For run in 1..R, for workload, for implementation (the order rotates every run): fork a child that
   runs one measurement and pipes its numbers back. See README.md in this directory. */
#include "bench.h"

#include "groupconc.h"

#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#ifdef BENCH_HAVE_DISPATCH
enum { HAVE_DISPATCH = 1 };
#else
enum { HAVE_DISPATCH = 0 };
#endif
#ifndef BENCH_DISPATCH_PREFIX
#define BENCH_DISPATCH_PREFIX "?"
#endif

/* ---- measurements ---------------------------------------------------------------------------- */

typedef struct bench_job {
    bench_workload w;
    bench_impl impl;
    int handles;
} bench_job;

/* Every workload on every implementation (W8, W1d: groupconc only); W1 and W3 also with handles. */
static bench_job jobs[4 * BENCH_WORKLOAD_COUNT + 2];
static int njobs;

static void build_jobs(void) {
    njobs = 0;
    for (int w = 0; w < BENCH_WORKLOAD_COUNT; w++) {
        jobs[njobs++] = (bench_job){(bench_workload)w, BENCH_GROUPCONC, w == BENCH_W3};
        if (w == BENCH_W1 || w == BENCH_W3)
            jobs[njobs++] = (bench_job){(bench_workload)w, BENCH_GROUPCONC, w == BENCH_W1};
        if (w == BENCH_W8 || w == BENCH_W1D) continue;
        for (int i = BENCH_GLIB; i < BENCH_IMPL_COUNT; i++)
            jobs[njobs++] = (bench_job){(bench_workload)w, (bench_impl)i, 0};
    }
}

static const char *const workload_names[BENCH_WORKLOAD_COUNT] = {
    "W1", "W2", "W3", "W4a", "W4b", "W5", "W6a", "W6b", "W7a",
    "W7b", "W8", "W9", "W1d", "C5a", "C5b", "C5c", "C2a", "C2b", "C2c"};
static const char *const impl_names[BENCH_IMPL_COUNT] = {"groupconc", "glib", "uv", "dispatch"};
static const char *const impl_titles[BENCH_IMPL_COUNT] = {"groupconc", "GThreadPool", "libuv",
                                                          "libdispatch"};
static const char *const ratio_titles[BENCH_IMPL_COUNT] = {"", "gc/glib", "gc/uv", "gc/disp"};
static int impl_on[BENCH_IMPL_COUNT] = {1, 1, 1, HAVE_DISPATCH};

static int is_curve(bench_workload w) { return w >= BENCH_C5A && w <= BENCH_C2C; }

static const bench_ops *ops_of(bench_impl impl) {
    switch (impl) {
    case BENCH_GROUPCONC: return &bench_ops_groupconc;
    case BENCH_GLIB: return &bench_ops_glib;
    case BENCH_UV: return &bench_ops_uv;
#ifdef BENCH_HAVE_DISPATCH
    case BENCH_DISPATCH: return &bench_ops_dispatch;
#endif
    default: return NULL;
    }
}

static int find_job(bench_workload w, bench_impl impl, int handles) {
    for (int i = 0; i < njobs; i++)
        if (jobs[i].w == w && jobs[i].impl == impl && jobs[i].handles == handles) return i;
    return -1;
}

/* ---- table rows ------------------------------------------------------------------------------ */

typedef enum fmt_kind { FMT_RATE, FMT_BYTES, FMT_RATIO, FMT_COUNT, FMT_NS, FMT_MB, FMT_US, FMT_PCT } fmt_kind;
/* The targets (issue 26 item 5; README.md "Targets" lists them): every row whose kind is not T_NONE
   or T_INFO_VS_W5 is one, and counts as met, missed or n/a in the "targets:" line. */
typedef enum target_kind {
    T_NONE,
    T_BEST_MIN,     /* median over runs of gc / (best peer of the run: highest) >= t */
    T_BEST_LOW_MAX, /* median over runs of gc / (best peer of the run: lowest) <= t */
    T_DISPATCH_MIN, /* median over runs of gc / libdispatch >= t; n/a without libdispatch */
    T_ABS_MAX,      /* median(gc) <= t */
    T_HALF_W1,      /* median(gc) >= median(W1 groupconc fire-and-forget) / t */
    T_CPUS_PLUS1,   /* max(gc) over the runs <= the CPU count (W1d's BENCH_M_W1D_CPUS) + 1 */
    T_INFO_VS_W5    /* no target: show the median of gc / (W5 groupconc, same run) */
} target_kind;

typedef struct bench_row {
    const char *label; /* "%s": W8's checkpoint, or the curve's key count */
    bench_workload w;
    int gc_handles;
    int metric;
    fmt_kind fmt;
    target_kind target;
    double t;
    const char *target_text;
} bench_row;

#define INFO T_NONE, 0, "(info)"
static const bench_row rows[] = {
    {"W1 dispatch, tasks/s (fire-and-forget)", BENCH_W1, 0, BENCH_M_RATE, FMT_RATE, T_BEST_MIN, 1.5,
     ">= 1.5x best peer"},
    {"W1 dispatch, tasks/s (handles: wait+release)", BENCH_W1, 1, BENCH_M_RATE, FMT_RATE, INFO},
    {"W1 CPU per task, ns (user+sys, all threads)", BENCH_W1, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W1 submitting thread's CPU per task, ns", BENCH_W1, 0, BENCH_M_SUBMIT_CPU, FMT_NS, INFO},
    {"W2 per-key serial, tasks/s", BENCH_W2, 0, BENCH_M_RATE, FMT_RATE, T_BEST_MIN, 1.5,
     ">= 1.5x best peer"},
    {"W2 CPU per task, ns (user+sys, all threads)", BENCH_W2, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W3 bytes per waiting task (with handle)", BENCH_W3, 1, BENCH_M_W3_BYTES, FMT_BYTES, INFO},
    {"W3 bytes per waiting task (fire-and-forget)", BENCH_W3, 0, BENCH_M_W3_BYTES, FMT_BYTES,
     T_ABS_MAX, 80, "<= 80 B"},
    {"W3 worker threads alive while waiting", BENCH_W3, 1, BENCH_M_W3_THREADS, FMT_COUNT, INFO},
    {"W3 drain of one key, tasks/s (handles)", BENCH_W3, 1, BENCH_M_W3_DRAIN, FMT_RATE, INFO},
    {"W3 drain of one key, tasks/s (fire-and-forget)", BENCH_W3, 0, BENCH_M_W3_DRAIN, FMT_RATE,
     T_DISPATCH_MIN, 0.5, ">= 0.5x libdispatch (serial queue)"},
    {"W4a makespan / ideal (many keys)", BENCH_W4A, 0, BENCH_M_W4_RATIO, FMT_RATIO, T_ABS_MAX, 1.05,
     "<= 1.05, no blocking hint (max_threads = global cap)"},
    {"W4b makespan / ideal (few keys)", BENCH_W4B, 0, BENCH_M_W4_RATIO, FMT_RATIO, T_ABS_MAX, 1.05,
     "<= 1.05, no blocking hint (max_threads = global cap)"},
    {"W5 many groups, tasks/s", BENCH_W5, 0, BENCH_M_RATE, FMT_RATE, T_DISPATCH_MIN, 1.0,
     ">= 1.0x libdispatch's best variant"},
    {"W5 many groups, tasks/s (vs groupconc's W1)", BENCH_W5, 0, BENCH_M_RATE, FMT_RATE, T_HALF_W1,
     2.0, ">= 0.5x own W1"},
    {"W5 CPU per task, ns (user+sys, all threads)", BENCH_W5, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W5 submitting thread's CPU per task, ns", BENCH_W5, 0, BENCH_M_SUBMIT_CPU, FMT_NS, INFO},
    {"W5 bytes per group (retained)", BENCH_W5, 0, BENCH_M_W5_RETAINED, FMT_BYTES, T_ABS_MAX, 128,
     "<= 128 B"},
    {"W5 peak bytes per task+group", BENCH_W5, 0, BENCH_M_W5_PEAK, FMT_BYTES, INFO},
    {"W6a latency p50, us (low load)", BENCH_W6A, 0, BENCH_M_W6_P50, FMT_US, INFO},
    {"W6a latency p99, us", BENCH_W6A, 0, BENCH_M_W6_P99, FMT_US, T_BEST_LOW_MAX, 1.0,
     "<= best peer's"},
    {"W6a latency p99.9, us", BENCH_W6A, 0, BENCH_M_W6_P999, FMT_US, INFO},
    {"W6a latency max, us", BENCH_W6A, 0, BENCH_M_W6_MAX, FMT_US, INFO},
    {"W6a achieved load, % of capacity", BENCH_W6A, 0, BENCH_M_W6_LOAD, FMT_PCT, INFO},
    {"W6a submitter behind schedule p99, us", BENCH_W6A, 0, BENCH_M_W6_LATE, FMT_US, INFO},
    {"W6a CPU per task, ns (task itself: spin)", BENCH_W6A, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W6a tasks running when one starts, mean", BENCH_W6A, 0, BENCH_M_W6_CONC, FMT_RATIO, INFO},
    {"W6b latency p50, us (high load)", BENCH_W6B, 0, BENCH_M_W6_P50, FMT_US, INFO},
    {"W6b latency p99, us", BENCH_W6B, 0, BENCH_M_W6_P99, FMT_US, T_BEST_LOW_MAX, 1.0,
     "<= best peer's"},
    {"W6b latency p99.9, us", BENCH_W6B, 0, BENCH_M_W6_P999, FMT_US, INFO},
    {"W6b latency max, us", BENCH_W6B, 0, BENCH_M_W6_MAX, FMT_US, INFO},
    {"W6b achieved load, % of capacity", BENCH_W6B, 0, BENCH_M_W6_LOAD, FMT_PCT, INFO},
    {"W6b submitter behind schedule p99, us", BENCH_W6B, 0, BENCH_M_W6_LATE, FMT_US, INFO},
    {"W6b CPU per task, ns (task itself: spin)", BENCH_W6B, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W6b tasks running when one starts, mean", BENCH_W6B, 0, BENCH_M_W6_CONC, FMT_RATIO, INFO},
    {"W7a W1 from %s submitters, tasks/s", BENCH_W7A, 0, BENCH_M_RATE, FMT_RATE, T_DISPATCH_MIN,
     1.0, ">= 1.0x libdispatch"},
    {"W7a CPU per task, ns (user+sys, all threads)", BENCH_W7A, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W7b W2 from %s submitters, tasks/s", BENCH_W7B, 0, BENCH_M_RATE, FMT_RATE, T_DISPATCH_MIN,
     1.0, ">= 1.0x libdispatch"},
    {"W7b CPU per task, ns (user+sys, all threads)", BENCH_W7B, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W8 bounded table, tasks/s", BENCH_W8, 0, BENCH_M_RATE, FMT_RATE, T_INFO_VS_W5, 0, "(info)"},
    {"W8 CPU per task, ns (user+sys, all threads)", BENCH_W8, 0, BENCH_M_CPU, FMT_NS, T_INFO_VS_W5,
     0, "(info)"},
    {"W8 submitting thread's CPU per task, ns", BENCH_W8, 0, BENCH_M_SUBMIT_CPU, FMT_NS, INFO},
    {"W8 RSS before the first submit, MB", BENCH_W8, 0, BENCH_M_W8_BASE, FMT_MB, INFO},
    {"W8 peak RSS (VmHWM) after %s keys, MB", BENCH_W8, 0, BENCH_M_W8_RSS1, FMT_MB, INFO},
    {"W8 peak RSS (VmHWM) after %s keys, MB", BENCH_W8, 0, BENCH_M_W8_RSS2, FMT_MB, INFO},
    {"W8 peak RSS (VmHWM) after %s keys, MB", BENCH_W8, 0, BENCH_M_W8_RSS3, FMT_MB, INFO},
    {"W8 peak RSS after all keys / after the first", BENCH_W8, 0, BENCH_M_W8_GROWTH, FMT_RATIO,
     T_NONE, 0, "(info; flat: close to 1)"},
    {"W8 groups cached at the end", BENCH_W8, 0, BENCH_M_W8_GROUPS, FMT_COUNT, T_NONE, 0,
     "(info; checked <= max_groups)"},
    {"W8 groups reclaimed (LRU at max, or idle)", BENCH_W8, 0, BENCH_M_W8_RECLAIMED, FMT_COUNT,
     T_NONE, 0, "(info; checked + cached = keys)"},
    {"W8 submits refused EGROUPS_FULL (retried)", BENCH_W8, 0, BENCH_M_W8_FULL, FMT_COUNT, T_NONE,
     0, "(info; yield + retry)"},
    {"W9 crawler makespan / ideal", BENCH_W9, 0, BENCH_M_W9_RATIO, FMT_RATIO, T_ABS_MAX, 1.1,
     "<= 1.1, default pool (>= the running cap), no blocking hint"},
    {"W9 crawler makespan, ms", BENCH_W9, 0, BENCH_M_W9_MS, FMT_COUNT, INFO},
    {"W9 most tasks running at once, all hosts", BENCH_W9, 0, BENCH_M_W9_MAXRUN, FMT_COUNT, T_NONE,
     0, "(info; checked <= global cap)"},
    {"W9 most tasks of one host running at once", BENCH_W9, 0, BENCH_M_W9_MAXHOST, FMT_COUNT, T_NONE,
     0, "(info; checked <= per-host cap)"},
    {"W1d peak worker threads (%s no-op, default)", BENCH_W1D, 0, BENCH_M_W1D_PEAK, FMT_COUNT,
     T_CPUS_PLUS1, 0, "<= CPU count + 1"},
    {"W1d worker threads when all have run", BENCH_W1D, 0, BENCH_M_W1D_END, FMT_COUNT, INFO},
    {"W1d tasks/s (default policy's pool)", BENCH_W1D, 0, BENCH_M_W1D_RATE, FMT_RATE, INFO},
    {"W1d CPU per task, ns (user+sys, all threads)", BENCH_W1D, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W1d thread-count samples (every ~100 us)", BENCH_W1D, 0, BENCH_M_W1D_SAMPLES, FMT_COUNT, INFO},
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* The cost curves: W5 and W2 at several key counts (W5's and W2's own key counts included). */
static const bench_row curve_rows[] = {
    {"W5 at %s keys, tasks/s", BENCH_C5A, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W5 at %s keys, CPU per task, ns", BENCH_C5A, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W5 at %s keys, bytes per group", BENCH_C5A, 0, BENCH_M_W5_RETAINED, FMT_BYTES, INFO},
    {"W5 at %s keys, tasks/s", BENCH_C5B, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W5 at %s keys, CPU per task, ns", BENCH_C5B, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W5 at %s keys, bytes per group", BENCH_C5B, 0, BENCH_M_W5_RETAINED, FMT_BYTES, INFO},
    {"W5 at %s keys, tasks/s", BENCH_W5, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W5 at %s keys, CPU per task, ns", BENCH_W5, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W5 at %s keys, bytes per group", BENCH_W5, 0, BENCH_M_W5_RETAINED, FMT_BYTES, INFO},
    {"W5 at %s keys, tasks/s", BENCH_C5C, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W5 at %s keys, CPU per task, ns", BENCH_C5C, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W5 at %s keys, bytes per group", BENCH_C5C, 0, BENCH_M_W5_RETAINED, FMT_BYTES, INFO},
    {"W2 at %s keys, tasks/s", BENCH_C2A, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W2 at %s keys, CPU per task, ns", BENCH_C2A, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W2 at %s keys, tasks/s", BENCH_C2B, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W2 at %s keys, CPU per task, ns", BENCH_C2B, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W2 at %s keys, tasks/s", BENCH_W2, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W2 at %s keys, CPU per task, ns", BENCH_W2, 0, BENCH_M_CPU, FMT_NS, INFO},
    {"W2 at %s keys, tasks/s", BENCH_C2C, 0, BENCH_M_RATE, FMT_RATE, INFO},
    {"W2 at %s keys, CPU per task, ns", BENCH_C2C, 0, BENCH_M_CPU, FMT_NS, INFO},
};
enum { NCURVE_ROWS = sizeof curve_rows / sizeof curve_rows[0] };
#undef INFO

/* ---- options --------------------------------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: groupconc-bench [options]\n"
            "       groupconc-bench hotpath MODE N [THREADS]   (W1 with N tasks, in this process)\n"
            "       groupconc-bench one WORKLOAD MODE [options] (W1..W9, W4a, W4b, W6a, W6b, W7a,\n"
            "                                                   W7b, W1d, C5a..C5c, C2a..C2c; in\n"
            "                                                   this process; W8, W1d: groupconc\n"
            "                                                   only)\n"
            "       groupconc-bench capacity [T]   (k spinning threads' work per second against\n"
            "                                       one's, k = 1, 2, 4 .. T; and the steal time)\n"
            "       MODE: groupconc, groupconc-handles, glib, uv%s\n"
            "  --runs R          repetitions of every measurement (default 5)\n"
            "  --only LIST       workloads, e.g. W1,W3,W4 (a prefix: W4 = W4a,W4b; W1 = W1,W1d; C = the\n"
            "                    curves). W1d: W1's tasks on the default policy's pool (peak\n"
            "                    worker threads; --w1-tasks and --scale size it)\n"
            "  --curves          add the cost curves (C5a..C5c, C2a..C2c) to the run (default: on)\n"
            "  --no-curves       leave them out\n"
            "  --curve-runs R    curves run in the first R runs only (default 2)\n"
            "  --no-dispatch     leave libdispatch out even though it is built in\n"
            "  --peers LIST      the peers beside groupconc, e.g. glib,dispatch (default: all built\n"
            "                    in: glib,uv%s; none: groupconc alone)\n"
            "  --scale F         multiply every task/key count by F (quick runs: 0.1)\n"
            "  --threads T       workers for W1, W2, W3, W5, W6, W7 (default 2)\n"
            "  --w1-tasks N      (1000000)   --w2-tasks N (1000000)  --w2-keys K (10000)\n"
            "  --w3-tasks N      (1000000)   --w3-threads T (2)\n"
            "  --w4-tasks N      (2000)      --w4-keys-a K (200)     --w4-keys-b K (20)\n"
            "  --w4-cap C        (2)         --w4-global G (64)      --w4-sleep-us U (5000)\n"
            "  --w5-keys N       (1000000)\n"
            "  --w6-task-us U    (50: capacity = threads * 1e6 / U tasks/s)\n"
            "  --w6-load-lo P    (10)        --w6-load-hi P (50)     percent of capacity\n"
            "  --w6-tasks-lo N   (6000)      --w6-tasks-hi N (20000) --w6-warmup N (500)\n"
            "  --w7-submitters T (4)\n"
            "  --curve-w5-keys A,B,C (10000,100000,4000000)  --curve-w2-keys A,B,C (10,1000,100000)\n"
            "  --w8-keys N       (10000000)  --w8-max-groups G (100000) --w8-idle-ms T (1000)\n"
            "  --w8-runs R       (all: W8 runs in the first R runs only; ~6 s each)\n"
            "  --w6-runs R       (11: W6a and W6b run R times, ~1-2 s each; their p99 is bimodal)\n"
            "  --w9-hosts H      (50)        --w9-per-host N (8)      --w9-sleep-us U (20000)\n"
            "  --w9-cap C        (2)         --w9-global G (16)\n"
            "  --scale F scales W1, W2, W3, W5, W6, W8 and the curves (keys); W4 and W9 (sleeps) not\n"
            "  --timeout S       per measurement, seconds (default 180)\n"
            "  --raw             also print every measurement\n",
            HAVE_DISPATCH ? ", dispatch" : "", HAVE_DISPATCH ? ",dispatch" : "");
}

/* --peers LIST: which of glib, uv, dispatch run beside groupconc ("none": groupconc alone). */
static int parse_peers(const char *list) {
    for (int i = 1; i < BENCH_IMPL_COUNT; i++) impl_on[i] = 0;
    if (strcmp(list, "none") == 0) return 0;
    const char *s = list;
    do {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int i = 1; i < BENCH_IMPL_COUNT; i++)
            if (strlen(impl_names[i]) == len && strncmp(s, impl_names[i], len) == 0) {
                if (i == BENCH_DISPATCH && !HAVE_DISPATCH) {
                    fprintf(stderr, "groupconc-bench: --peers: libdispatch is not built in\n");
                    return -1;
                }
                impl_on[i] = found = 1;
            }
        if (!found) {
            fprintf(stderr, "groupconc-bench: --peers: unknown peer '%.*s' (glib, uv, dispatch)\n",
                    (int)len, s);
            return -1;
        }
        s += len;
    } while (*s++ == ','); /* "" and "a,,b" and "a," name an empty peer: unknown */
    return 0;
}

static long parse_long(const char *s, const char *opt) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v <= 0) {
        fprintf(stderr, "groupconc-bench: bad value for %s: %s\n", opt, s);
        exit(2);
    }
    return v;
}

static void parse_three(const char *s, const char *opt, long out[3]) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    int i = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        if (i < 3) out[i++] = parse_long(t, opt);
    if (i != 3) {
        fprintf(stderr, "groupconc-bench: %s wants three numbers, e.g. 10,1000,100000\n", opt);
        exit(2);
    }
}

/* ---- one measurement in a child process ------------------------------------------------------ */

static void measure(const bench_job *j, const bench_params *p, bench_out *res) {
    memset(res, 0, sizeof *res);
    int fds[2];
    if (pipe(fds) != 0) {
        bench_fail(res, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        bench_fail(res, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        alarm((unsigned)p->timeout_s);
        bench_out out;
        memset(&out, 0, sizeof out);
        bench_run(ops_of(j->impl), j->w, p, j->handles, &out);
        ssize_t wr = write(fds[1], &out, sizeof out);
        _exit(wr == (ssize_t)sizeof out ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof *res) {
        ssize_t r = read(fds[0], (char *)res + got, sizeof *res - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof *res) {
        memset(res, 0, sizeof *res);
        if (WIFSIGNALED(status))
            bench_fail(res, "%s (signal %d)",
                       WTERMSIG(status) == SIGALRM ? "timed out" : "crashed", WTERMSIG(status));
        else
            bench_fail(res, "child exited %d without a result", WEXITSTATUS(status));
    }
}

/* ---- statistics ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct summary {
    int n;
    double med, min, max;
} summary;

static summary summarize(const double *v, int n) {
    summary s = {n, NAN, NAN, NAN};
    if (n == 0) return s;
    double *c = malloc((size_t)n * sizeof *c);
    if (!c) return s;
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    s.min = c[0];
    s.max = c[n - 1];
    s.med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return s;
}

/* ---- machine check: how much parallel CPU this machine really gives ---------------------------- */

static void *spin_fn(void *arg) {
    volatile uint64_t x = 0;
    uint64_t n = *(const uint64_t *)arg;
    for (uint64_t i = 0; i < n; i++) x += i;
    return (void *)(uintptr_t)x; /* read x: keeps the loop and quiets "set but not used" */
}

/* n iterations of spin_fn on each of k threads at once (k = 1: on this thread), ns; 0 on error. */
static uint64_t spin_ns(int k) {
    enum { K_MAX = 256 };
    uint64_t n = 50000000;
    pthread_t th[K_MAX];
    if (k < 1 || k > K_MAX) return 0;
    uint64_t t0 = bench_now_ns();
    if (k == 1) {
        spin_fn(&n);
        return bench_now_ns() - t0;
    }
    int started = 0;
    for (; started < k; started++)
        if (pthread_create(&th[started], NULL, spin_fn, &n) != 0) break;
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    uint64_t t1 = bench_now_ns();
    return started == k ? t1 - t0 : 0;
}

/* Time n iterations on one thread, then on each of two threads at once: ~2.0 means two cores of
   throughput, ~1.0 means the two vCPUs share one core's worth. Joined before any fork. */
static double parallel_capacity(void) {
    uint64_t one = spin_ns(1), two = spin_ns(2);
    return one && two ? 2.0 * (double)one / (double)two : NAN;
}

/* k threads' work per second against one's: the fastest of 3 single-thread tries (a disturbed
   one only reads slower) against the median of 3 k-thread tries (one try is ~50 ms: a noisy VM's
   minute shows in one, seldom in two). */
static double parallel_capacity_k(int k) {
    double one[3], many[3];
    for (int i = 0; i < 3; i++) one[i] = (double)spin_ns(1);
    for (int i = 0; i < 3; i++) many[i] = (double)spin_ns(k);
    summary s1 = summarize(one, 3), sk = summarize(many, 3);
    return s1.min > 0 && sk.min > 0 ? (double)k * s1.min / sk.med : NAN; /* spin_ns: 0 on error */
}

/* The machine's steal and busy jiffies from /proc/stat's "cpu" line (0 where it cannot be read). */
static void cpu_jiffies(unsigned long long *busy, unsigned long long *steal, unsigned long long *all) {
    unsigned long long v[8] = {0};
    *busy = *steal = *all = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) == 8) {
        for (int i = 0; i < 8; i++) *all += v[i];
        *busy = v[0] + v[1] + v[2] + v[5] + v[6];
        *steal = v[7];
    }
    fclose(f);
}

/* "capacity [T]": k spinning threads' throughput against one, for k = 1, 2, 4, .. T (default: the
   CPU count), and the steal time the hypervisor reported meanwhile: what parallelism this machine
   really gives (scaling.sh prints it beside its table). */
static int capacity_cmd(const char **pos, int npos) {
    long t = npos >= 2 ? parse_long(pos[1], "T") : bench_cpu_count();
    if (t < 1 || t > 256) {
        fprintf(stderr, "groupconc-bench: capacity: T must be 1..256\n");
        return 2;
    }
    printf("parallel capacity (%ld CPUs): k spinning threads do x times the work per second of 1 "
           "(k = k real cores; the median of 3 against the fastest of 3 single runs):",
           bench_cpu_count());
    unsigned long long b0, s0, a0, b1, s1, a1;
    cpu_jiffies(&b0, &s0, &a0);
    for (long k = 1;; k = k * 2 < t ? k * 2 : t) { /* 1, 2, 4 .. and t itself */
        printf(" k=%ld %.2fx", k, k == 1 ? 1.0 : parallel_capacity_k((int)k));
        fflush(stdout);
        if (k == t) break;
    }
    cpu_jiffies(&b1, &s1, &a1);
    double all = (double)(a1 - a0);
    printf("; the machine's steal %.1f%%, busy %.1f%% (all its CPUs)\n", all > 0 ? 100.0 * (double)(s1 - s0) / all : 0,
           all > 0 ? 100.0 * (double)(b1 - b0) / all : 0);
    return 0;
}

/* 1-minute load average, or -1. */
static double loadavg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

/* ---- formatting ------------------------------------------------------------------------------ */

static void fmt_value(char *buf, size_t len, double v, fmt_kind f) {
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    switch (f) {
    case FMT_RATE:
        if (v >= 1e6)
            snprintf(buf, len, "%.2fM", v / 1e6);
        else
            snprintf(buf, len, "%.0fk", v / 1e3);
        break;
    case FMT_BYTES: snprintf(buf, len, "%.1f", v); break;
    case FMT_RATIO: snprintf(buf, len, "%.3f", v); break;
    case FMT_COUNT: snprintf(buf, len, "%.0f", v); break;
    case FMT_NS: snprintf(buf, len, "%.0f", v); break;
    case FMT_MB: snprintf(buf, len, "%.1f", v / 1048576.0); break;
    case FMT_US: snprintf(buf, len, v >= 1e6 ? "%.0f" : "%.1f", v / 1000.0); break;
    case FMT_PCT: snprintf(buf, len, "%.1f", v); break;
    }
}

static void fmt_summary(char *buf, size_t len, summary s, fmt_kind f) {
    if (s.n == 0) {
        snprintf(buf, len, "n/a");
        return;
    }
    char a[32], b[32], c[32];
    fmt_value(a, sizeof a, s.med, f);
    fmt_value(b, sizeof b, s.min, f);
    fmt_value(c, sizeof c, s.max, f);
    if (s.n == 1)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s [%s..%s]", a, b, c);
}

/* ---- main ------------------------------------------------------------------------------------ */

static bench_out *results; /* [job * runs + run] */
static int nruns;      /* max(--runs, --w6-runs) when W6 is on, else --runs */
static int base_runs;  /* --runs: every workload but W6 runs in runs 0 .. base_runs-1 */
static int w6_runs;    /* W6a and W6b run in runs 0 .. w6_runs-1 */
static int w8_runs;    /* W8 runs in runs 0 .. w8_runs-1 only */
static int curve_runs; /* the curves likewise */

static int runs_in(bench_workload w, int run) {
    if (w == BENCH_W6A || w == BENCH_W6B) return run < w6_runs;
    if (w == BENCH_W8) return run < w8_runs;
    if (is_curve(w)) return run < curve_runs;
    return run < base_runs;
}

/* "1M", "500k", "12345" */
static void fmt_count(char *buf, size_t len, long n) {
    if (n >= 1000000 && n % 1000000 == 0)
        snprintf(buf, len, "%ldM", n / 1000000);
    else if (n >= 1000 && n % 1000 == 0)
        snprintf(buf, len, "%ldk", n / 1000);
    else
        snprintf(buf, len, "%ld", n);
}

/* The number a row's "%s" stands for: W8's checkpoint (keys / 10, keys / 2, all keys), a curve's
   (or W5's, W2's) key count, W7's submitters. */
static long label_number(const bench_row *row, const bench_params *p) {
    long n = p->w8_keys;
    switch (row->w) {
    case BENCH_W8:
        return row->metric == BENCH_M_W8_RSS1   ? (n / 10 > 0 ? n / 10 : 1)
               : row->metric == BENCH_M_W8_RSS2 ? (n / 2 > 0 ? n / 2 : 1)
                                                : n;
    case BENCH_W5: return p->w5_keys;
    case BENCH_W2: return p->w2_keys;
    case BENCH_C5A:
    case BENCH_C5B:
    case BENCH_C5C: return p->curve_w5_keys[row->w - BENCH_C5A];
    case BENCH_C2A:
    case BENCH_C2B:
    case BENCH_C2C: return p->curve_w2_keys[row->w - BENCH_C2A];
    case BENCH_W7A:
    case BENCH_W7B: return p->w7_submitters;
    case BENCH_W1D: return p->w1_tasks;
    default: return 0;
    }
}

static void fmt_label(char *buf, size_t len, const bench_row *row, const bench_params *p) {
    char at[32], first[32];
    fmt_count(at, sizeof at, label_number(row, p));
    const char *hole = strstr(row->label, "%s");
    if (row->w == BENCH_W8 && row->metric == BENCH_M_W8_GROWTH) {
        fmt_count(first, sizeof first, p->w8_keys / 10 > 0 ? p->w8_keys / 10 : 1);
        fmt_count(at, sizeof at, p->w8_keys);
        snprintf(buf, len, "W8 peak RSS after %s keys / after %s", at, first);
    } else if (hole) {
        snprintf(buf, len, "%.*s%s%s", (int)(hole - row->label), row->label, at, hole + 2);
    } else {
        snprintf(buf, len, "%s", row->label);
    }
}

static bench_out *res_at(int job, int run) { return &results[job * nruns + run]; }

/* values of metric m for job over the runs where it is valid (NaN-free), and per-run values */
static int values(int job, int metric, double *out) {
    int n = 0;
    if (job < 0) return 0;
    for (int r = 0; r < nruns; r++)
        if (runs_in(jobs[job].w, r) && res_at(job, r)->ok) out[n++] = res_at(job, r)->m[metric];
    return n;
}

static summary ratio_summary(int gc, int peer, int metric) {
    double v[256];
    int n = 0;
    if (gc >= 0 && peer >= 0)
        for (int r = 0; r < nruns && n < 256; r++)
            if (runs_in(jobs[gc].w, r) && res_at(gc, r)->ok && res_at(peer, r)->ok &&
                res_at(peer, r)->m[metric] > 0)
                v[n++] = res_at(gc, r)->m[metric] / res_at(peer, r)->m[metric];
    return summarize(v, n);
}

/* Per run: gc / the best of the peers that are on (highest if high, else lowest); runs where any
   of them failed are left out. */
static summary ratio_best_summary(bench_workload w, int metric, int high) {
    double v[256];
    int n = 0;
    int gc = find_job(w, BENCH_GROUPCONC, 0);
    for (int r = 0; r < nruns && n < 256 && gc >= 0; r++) {
        if (!runs_in(w, r) || !res_at(gc, r)->ok) continue;
        double best = NAN;
        int ok = 1;
        for (int i = BENCH_GLIB; i < BENCH_IMPL_COUNT; i++) {
            if (!impl_on[i]) continue;
            int j = find_job(w, (bench_impl)i, 0);
            if (j < 0 || !res_at(j, r)->ok) {
                ok = 0;
                break;
            }
            double x = res_at(j, r)->m[metric];
            if (isnan(best) || (high ? x > best : x < best)) best = x;
        }
        if (ok && best > 0) v[n++] = res_at(gc, r)->m[metric] / best;
    }
    return summarize(v, n);
}

/* ---- the tables ------------------------------------------------------------------------------ */

enum { W_LABEL = 46, W_CELL = 26, W_RATIO = 7 };

static void print_header(void) {
    printf("%-*s", W_LABEL, "metric");
    for (int i = 0; i < BENCH_IMPL_COUNT; i++)
        if (impl_on[i]) printf(" | %-*s", W_CELL, impl_titles[i]);
    for (int i = BENCH_GLIB; i < BENCH_IMPL_COUNT; i++)
        if (impl_on[i]) printf(" | %-*s", W_RATIO, ratio_titles[i]);
    printf(" | %s\n", "target: result");
    int width = W_LABEL + 3 + 30;
    for (int i = 0; i < BENCH_IMPL_COUNT; i++)
        if (impl_on[i]) width += 3 + W_CELL + (i ? 3 + W_RATIO : 0);
    char line[400];
    memset(line, '-', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    printf("%.*s\n", width < (int)sizeof line - 1 ? width : (int)sizeof line - 1, line);
}

static double w1_gc_median(void) {
    double v[256];
    summary s = summarize(v, values(find_job(BENCH_W1, BENCH_GROUPCONC, 0), BENCH_M_RATE, v));
    return s.n ? s.med : NAN;
}

/* The CPU count W1d's children saw (they inherit this process's affinity), or -1. */
static double w1d_cpus(void) {
    double v[256];
    summary s = summarize(v, values(find_job(BENCH_W1D, BENCH_GROUPCONC, 0), BENCH_M_W1D_CPUS, v));
    return s.n ? s.max : -1;
}

typedef struct tally {
    int met, missed, na;
} tally;

static void print_rows(const bench_row *table, int nrows, const bench_params *p, const int *only,
                       tally *tl) {
    for (int i = 0; i < nrows; i++) {
        const bench_row *row = &table[i];
        if (!only[row->w]) continue;
        int gc = find_job(row->w, BENCH_GROUPCONC, row->gc_handles);
        char cell[BENCH_IMPL_COUNT][128], ratio[BENCH_IMPL_COUNT][16], tgt[128], label[128];
        int any_peer = 0;
        double v[256];
        summary sg = summarize(v, values(gc, row->metric, v));
        for (int k = 0; k < BENCH_IMPL_COUNT; k++) {
            int j = k == 0 ? gc : find_job(row->w, (bench_impl)k, 0);
            if (k && j >= 0) any_peer = 1;
            summary s = summarize(v, values(j, row->metric, v));
            fmt_summary(cell[k], sizeof cell[k], s, row->fmt);
            snprintf(ratio[k], sizeof ratio[k], "-");
            if (k && j >= 0) {
                summary rs = ratio_summary(gc, j, row->metric);
                if (rs.n) snprintf(ratio[k], sizeof ratio[k], "%.2f", rs.med);
            }
        }
        if (!any_peer) { /* no peer runs this workload */
            for (int k = 1; k < BENCH_IMPL_COUNT; k++) cell[k][0] = '\0';
            snprintf(cell[1], sizeof cell[1], "(groupconc only)");
        }
        fmt_label(label, sizeof label, row, p);
        int pass = -1; /* -1: no target or no data */
        char detail[48] = "";
        const char *suffix = "";
        switch (row->target) {
        case T_NONE: break;
        case T_BEST_MIN:
        case T_BEST_LOW_MAX: {
            int high = row->target == T_BEST_MIN;
            summary rb = ratio_best_summary(row->w, row->metric, high);
            if (rb.n) {
                pass = high ? rb.med >= row->t : rb.med <= row->t;
                snprintf(detail, sizeof detail, " (%.2fx)", rb.med);
            }
            if (!impl_on[BENCH_DISPATCH]) suffix = ", no libdispatch";
            break;
        }
        case T_DISPATCH_MIN:
            if (impl_on[BENCH_DISPATCH]) {
                summary rd = ratio_summary(gc, find_job(row->w, BENCH_DISPATCH, 0), row->metric);
                if (rd.n) pass = rd.med >= row->t;
            }
            break;
        case T_ABS_MAX:
            if (sg.n) pass = sg.med <= row->t;
            break;
        case T_CPUS_PLUS1: {
            double cpus = w1d_cpus();
            if (sg.n && cpus > 0) {
                pass = sg.max <= cpus + 1;
                snprintf(detail, sizeof detail, " (peak %.0f, CPU count %.0f)", sg.max, cpus);
            }
            break;
        }
        case T_INFO_VS_W5: {
            summary rw = ratio_summary(gc, find_job(BENCH_W5, BENCH_GROUPCONC, 0), row->metric);
            if (rw.n) snprintf(detail, sizeof detail, "; W8/W5 %.2f", rw.med);
            break;
        }
        case T_HALF_W1: {
            double w1 = w1_gc_median();
            if (sg.n && !isnan(w1)) {
                pass = sg.med * row->t >= w1;
                snprintf(detail, sizeof detail, " (%.2fx)", sg.med / w1);
            }
            break;
        }
        }
        if (row->target == T_NONE)
            snprintf(tgt, sizeof tgt, "%s", row->target_text);
        else if (row->target == T_INFO_VS_W5) /* "(info; W8/W5 1.32)" */
            snprintf(tgt, sizeof tgt, "(info%s)", detail);
        else if (row->target == T_DISPATCH_MIN && !impl_on[BENCH_DISPATCH])
            snprintf(tgt, sizeof tgt, "%s: n/a (no libdispatch)", row->target_text);
        else
            snprintf(tgt, sizeof tgt, "%s%s%s: %s", row->target_text, suffix, detail,
                     pass < 0 ? "n/a" : pass ? "MET" : "MISSED");
        if (row->target != T_NONE && row->target != T_INFO_VS_W5) {
            if (pass == 1) tl->met++;
            else if (pass == 0) tl->missed++;
            else tl->na++;
        }
        printf("%-*s", W_LABEL, label);
        for (int k = 0; k < BENCH_IMPL_COUNT; k++)
            if (impl_on[k]) printf(" | %-*s", W_CELL, cell[k]);
        for (int k = 1; k < BENCH_IMPL_COUNT; k++)
            if (impl_on[k]) printf(" | %-*s", W_RATIO, ratio[k]);
        printf(" | %s\n", tgt);
    }
}

/* "hotpath MODE N [THREADS]" (W1 with N tasks) and "one WORKLOAD MODE": one measurement in this
   process, for callgrind / perf. MODE: groupconc, groupconc-handles, glib, uv, dispatch. */
static int single(bench_params *p, const char **pos, int npos) {
    int hot = strcmp(pos[0], "hotpath") == 0;
    if ((!hot && strcmp(pos[0], "one") != 0) || npos < 3) {
        usage(stderr);
        return 2;
    }
    bench_workload w = BENCH_W1;
    const char *mode = hot ? pos[1] : pos[2];
    if (hot) {
        p->w1_tasks = parse_long(pos[2], "N");
        if (npos >= 4) p->w1_threads = (int)parse_long(pos[3], "THREADS");
    } else {
        int found = 0;
        for (int i = 0; i < BENCH_WORKLOAD_COUNT; i++)
            if (strcasecmp(pos[1], workload_names[i]) == 0) {
                w = (bench_workload)i;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "groupconc-bench: unknown workload %s\n", pos[1]);
            return 2;
        }
    }
    const bench_ops *ops = NULL;
    int handles = 0;
    if (strcmp(mode, "groupconc") == 0) {
        ops = &bench_ops_groupconc;
    } else if (strcmp(mode, "groupconc-handles") == 0) {
        ops = &bench_ops_groupconc;
        handles = 1;
    } else {
        for (int i = BENCH_GLIB; i < BENCH_IMPL_COUNT; i++)
            if (strcmp(mode, impl_names[i]) == 0) ops = ops_of((bench_impl)i);
    }
    if (!ops) {
        fprintf(stderr, "groupconc-bench: unknown implementation %s%s\n", mode,
                strcmp(mode, "dispatch") == 0 ? " (not built: run.sh --with-dispatch PREFIX)" : "");
        return 2;
    }
    bench_out out;
    memset(&out, 0, sizeof out);
    bench_run(ops, w, p, handles, &out);
    printf("%s %s %s:", pos[0], workload_names[w], mode);
    for (int m = 0; m < BENCH_MAX_METRICS; m++) printf(" m%d=%.6g", m, out.m[m]);
    printf(" %s%s\n", out.ok ? "ok" : "FAILED: ", out.ok ? "" : out.err);
    return out.ok ? 0 : 1;
}

/* --only: a workload is chosen by its name or a prefix of it ("W4": W4a and W4b; "C": the curves) */
static int name_matches(const char *t, const char *name) {
    return strncasecmp(t, name, strlen(t)) == 0;
}

int main(int argc, char **argv) {
    bench_params p = {
        .runs = 5, .timeout_s = 180,
        .w1_tasks = 1000000, .w1_threads = 2,
        .w2_tasks = 1000000, .w2_keys = 10000, .w2_threads = 2,
        .w3_tasks = 1000000, .w3_threads = 2,
        .w4_tasks = 2000, .w4_keys_a = 200, .w4_keys_b = 20, .w4_cap = 2, .w4_global = 64,
        .w4_sleep_us = 5000,
        .w5_keys = 1000000, .w5_threads = 2,
        .handles = 0,
        .w8_keys = 10000000, .w8_max_groups = 100000, .w8_idle_ms = 1000, .w8_runs = 0,
        .w9_hosts = 50, .w9_per_host = 8, .w9_cap = 2, .w9_global = 16, .w9_sleep_us = 20000,
        .w6_task_us = 50, .w6_threads = 2, .w6_load_lo = 10, .w6_load_hi = 50,
        .w6_tasks_lo = 6000, .w6_tasks_hi = 20000, .w6_warmup = 500, .w6_runs = 11,
        .w7_submitters = 4,
        .curve_w5_keys = {10000, 100000, 4000000},
        .curve_w2_keys = {10, 1000, 100000},
        .curve_runs = 2,
    };
    int only[BENCH_WORKLOAD_COUNT];
    for (int w = 0; w < BENCH_WORKLOAD_COUNT; w++) only[w] = 1;
    int curves = -1; /* -1: default, 0: --no-curves, 1: --curves */
    int raw = 0;
    double scale = 1.0;
    const char *pos[4] = {NULL, NULL, NULL, NULL};
    int npos = 0;
    build_jobs();

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && ++i)
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--raw") == 0) {
            raw = 1;
        } else if (strcmp(a, "--curves") == 0) {
            curves = 1;
        } else if (strcmp(a, "--no-curves") == 0) {
            curves = 0;
        } else if (strcmp(a, "--no-dispatch") == 0) {
            impl_on[BENCH_DISPATCH] = 0;
        } else if (OPT("--peers")) {
            if (parse_peers(v) != 0) return 2;
        } else if (OPT("--runs")) {
            p.runs = (int)parse_long(v, a);
        } else if (OPT("--timeout")) {
            p.timeout_s = (int)parse_long(v, a);
        } else if (OPT("--scale")) {
            scale = atof(v);
            if (!(scale > 0)) {
                fprintf(stderr, "groupconc-bench: bad --scale\n");
                return 2;
            }
        } else if (OPT("--threads")) {
            p.w1_threads = p.w2_threads = p.w3_threads = p.w5_threads = p.w6_threads =
                (int)parse_long(v, a);
        } else if (OPT("--w1-tasks")) {
            p.w1_tasks = parse_long(v, a);
        } else if (OPT("--w2-tasks")) {
            p.w2_tasks = parse_long(v, a);
        } else if (OPT("--w2-keys")) {
            p.w2_keys = parse_long(v, a);
        } else if (OPT("--w3-tasks")) {
            p.w3_tasks = parse_long(v, a);
        } else if (OPT("--w3-threads")) {
            p.w3_threads = (int)parse_long(v, a);
        } else if (OPT("--w4-tasks")) {
            p.w4_tasks = parse_long(v, a);
        } else if (OPT("--w4-keys-a")) {
            p.w4_keys_a = parse_long(v, a);
        } else if (OPT("--w4-keys-b")) {
            p.w4_keys_b = parse_long(v, a);
        } else if (OPT("--w4-cap")) {
            p.w4_cap = (int)parse_long(v, a);
        } else if (OPT("--w4-global")) {
            p.w4_global = (int)parse_long(v, a);
        } else if (OPT("--w4-sleep-us")) {
            p.w4_sleep_us = (int)parse_long(v, a);
        } else if (OPT("--w5-keys")) {
            p.w5_keys = parse_long(v, a);
        } else if (OPT("--w6-task-us")) {
            p.w6_task_us = (int)parse_long(v, a);
        } else if (OPT("--w6-load-lo")) {
            p.w6_load_lo = (int)parse_long(v, a);
        } else if (OPT("--w6-load-hi")) {
            p.w6_load_hi = (int)parse_long(v, a);
        } else if (OPT("--w6-tasks-lo")) {
            p.w6_tasks_lo = parse_long(v, a);
        } else if (OPT("--w6-tasks-hi")) {
            p.w6_tasks_hi = parse_long(v, a);
        } else if (OPT("--w6-warmup")) {
            p.w6_warmup = parse_long(v, a);
        } else if (OPT("--w7-submitters")) {
            p.w7_submitters = (int)parse_long(v, a);
        } else if (OPT("--curve-w5-keys")) {
            parse_three(v, a, p.curve_w5_keys);
        } else if (OPT("--curve-w2-keys")) {
            parse_three(v, a, p.curve_w2_keys);
        } else if (OPT("--curve-runs")) {
            p.curve_runs = (int)parse_long(v, a);
        } else if (OPT("--w8-keys")) {
            p.w8_keys = parse_long(v, a);
        } else if (OPT("--w8-max-groups")) {
            p.w8_max_groups = parse_long(v, a);
        } else if (OPT("--w8-idle-ms")) {
            p.w8_idle_ms = parse_long(v, a);
        } else if (OPT("--w8-runs")) {
            p.w8_runs = (int)parse_long(v, a);
        } else if (OPT("--w6-runs")) {
            p.w6_runs = (int)parse_long(v, a);
        } else if (OPT("--w9-hosts")) {
            p.w9_hosts = parse_long(v, a);
        } else if (OPT("--w9-per-host")) {
            p.w9_per_host = parse_long(v, a);
        } else if (OPT("--w9-cap")) {
            p.w9_cap = (int)parse_long(v, a);
        } else if (OPT("--w9-global")) {
            p.w9_global = (int)parse_long(v, a);
        } else if (OPT("--w9-sleep-us")) {
            p.w9_sleep_us = (int)parse_long(v, a);
        } else if (OPT("--only")) {
            for (int w = 0; w < BENCH_WORKLOAD_COUNT; w++) only[w] = 0;
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int hit = 0;
                for (int w = 0; w < BENCH_WORKLOAD_COUNT; w++)
                    if (name_matches(t, workload_names[w])) {
                        only[w] = 1;
                        hit = 1;
                    }
                if (!hit) {
                    fprintf(stderr, "groupconc-bench: unknown workload %s\n", t);
                    return 2;
                }
            }
        } else if (a[0] != '-' && npos < 4) {
            pos[npos++] = a;
        } else {
            usage(stderr);
            return 2;
        }
#undef OPT
    }
    if (scale != 1.0) {
        p.w1_tasks = (long)fmax(1, (double)p.w1_tasks * scale);
        p.w2_tasks = (long)fmax(1, (double)p.w2_tasks * scale);
        p.w2_keys = (long)fmax(1, (double)p.w2_keys * scale);
        p.w3_tasks = (long)fmax(1, (double)p.w3_tasks * scale);
        p.w5_keys = (long)fmax(1, (double)p.w5_keys * scale);
        p.w6_tasks_lo = (long)fmax(10, (double)p.w6_tasks_lo * scale);
        p.w6_tasks_hi = (long)fmax(10, (double)p.w6_tasks_hi * scale);
        p.w6_warmup = (long)fmax(1, (double)p.w6_warmup * scale);
        p.w8_keys = (long)fmax(1, (double)p.w8_keys * scale);
        p.w8_max_groups = (long)fmax(1, (double)p.w8_max_groups * scale);
        for (int i = 0; i < 3; i++) {
            p.curve_w5_keys[i] = (long)fmax(1, (double)p.curve_w5_keys[i] * scale);
            p.curve_w2_keys[i] = (long)fmax(1, (double)p.curve_w2_keys[i] * scale);
        }
    }
    if (p.w8_max_groups > INT_MAX) p.w8_max_groups = INT_MAX;
    if (p.w7_submitters > 64) p.w7_submitters = 64;
    if (npos > 0 && strcmp(pos[0], "capacity") == 0) return capacity_cmd(pos, npos);
    if (npos > 0) return single(&p, pos, npos);
    /* the curves: on by default; --only picks them by name (C, C5, C2a...); --curves adds them to
       an --only list, --no-curves takes them out */
    for (int w = BENCH_C5A; w <= BENCH_C2C; w++)
        if (curves >= 0) only[w] = curves;
    if (only[BENCH_W8] && !only[BENCH_W5]) {
        /* W8's throughput target is against groupconc's W5 in the same run */
        only[BENCH_W5] = 1;
        fprintf(stderr, "groupconc-bench: W8 is compared with W5 in the same run: W5 added\n");
    }
    if (p.runs > 256) p.runs = 256;
    if (p.w8_runs <= 0 || p.w8_runs > p.runs) p.w8_runs = p.runs; /* default: every run */
    if (p.curve_runs > p.runs) p.curve_runs = p.runs;
    if (p.w6_runs <= 0) p.w6_runs = p.runs;
    if (p.w6_runs > 256) p.w6_runs = 256;
    base_runs = p.runs;
    w6_runs = only[BENCH_W6A] || only[BENCH_W6B] ? p.w6_runs : 0;
    nruns = w6_runs > p.runs ? w6_runs : p.runs;
    w8_runs = p.w8_runs;
    curve_runs = p.curve_runs;
    results = calloc((size_t)njobs * (size_t)nruns, sizeof *results);
    if (!results) return 1;

    printf("groupconc %s", groupconc_version());
    if (impl_on[BENCH_GLIB])
        printf(" vs GLib %u.%u.%u GThreadPool", glib_major_version, glib_minor_version,
               glib_micro_version);
    if (impl_on[BENCH_UV]) printf(" vs libuv %s work queue", uv_version_string());
    if (impl_on[BENCH_DISPATCH])
        printf(" vs libdispatch (swift-corelibs, %s)", BENCH_DISPATCH_PREFIX);
    else if (HAVE_DISPATCH)
        printf(" (libdispatch built in, left out: --no-dispatch)");
    printf("; %ld CPUs (of %ld online); %d runs (W6a, W6b: %d); groupconc built %s\n",
           bench_cpu_count(), sysconf(_SC_NPROCESSORS_ONLN), p.runs, w6_runs,
#ifdef NDEBUG
           "with NDEBUG"
#else
           "WITHOUT NDEBUG (GROUPCONC_DEBUG checks on)"
#endif
    );
    printf("W1 %ld no-op tasks, 1 group, %d workers | W2 %ld tasks over %ld keys, cap 1, %d workers"
           " | W3 %ld tasks behind a blocked key, %d workers\n"
           "W4 %ld x %d us sleeps, cap %d per key, global %d, keys %ld / %ld | W5 %ld keys x 1 task, "
           "%d workers\n",
           p.w1_tasks, p.w1_threads, p.w2_tasks, p.w2_keys, p.w2_threads, p.w3_tasks, p.w3_threads,
           p.w4_tasks, p.w4_sleep_us, p.w4_cap, p.w4_global, p.w4_keys_a, p.w4_keys_b, p.w5_keys,
           p.w5_threads);
    double capacity = (double)p.w6_threads * 1e6 / p.w6_task_us;
    printf("W6 submit->start latency: tasks spin %d us on %d workers (capacity %.0fk/s), Poisson "
           "arrivals at %d%% (%ld tasks) and %d%% (%ld tasks), first %ld left out | W7 W1 and W2 "
           "from %d submitting threads\n",
           p.w6_task_us, p.w6_threads, capacity / 1e3, p.w6_load_lo, p.w6_tasks_lo, p.w6_load_hi,
           p.w6_tasks_hi, p.w6_warmup, p.w7_submitters);
    printf("W8 %ld keys x 1 task, max_groups %ld, group_idle %ld ms, %d workers, groupconc only, "
           "runs 1..%d | W9 %ld hosts x %ld x %d us sleeps, host by host, cap %d per host, %d "
           "running overall\n",
           p.w8_keys, p.w8_max_groups, p.w8_idle_ms, p.w5_threads, p.w8_runs, p.w9_hosts,
           p.w9_per_host, p.w9_sleep_us, p.w9_cap, p.w9_global);
    if (impl_on[BENCH_DISPATCH] && bench_cpu_count() != p.w1_threads)
        printf("NOTE: libdispatch sizes its pool by the CPU count (%ld: the affinity mask; "
               "taskset sets it), not by --threads (%d)\n",
               bench_cpu_count(), p.w1_threads);
    double load0 = loadavg();
    printf("parallel capacity: 2 spinning threads do %.2fx the work per second of 1 "
           "(2.00 = two real cores); load average before: %.2f\n",
           parallel_capacity(), load0);
    fflush(stdout);

    int failures = 0;
    uint64_t start = bench_now_ns();
    for (int r = 0; r < nruns; r++) {
        for (int w = 0; w < BENCH_WORKLOAD_COUNT; w++) {
            if (!only[w] || !runs_in((bench_workload)w, r)) continue;
            /* this workload's measurements, in an order that rotates every run */
            int idx[8], n = 0;
            for (int j = 0; j < njobs && n < 8; j++)
                if (jobs[j].w == (bench_workload)w && impl_on[jobs[j].impl]) idx[n++] = j;
            for (int k = 0; k < n; k++) {
                int j = idx[(k + r) % n];
                bench_out *res = res_at(j, r);
                measure(&jobs[j], &p, res);
                if (!res->ok) failures++;
                fprintf(stderr, "[%5.1fs] run %d/%d %-3s %-9s%s %s%s\n",
                        (double)(bench_now_ns() - start) / 1e9, r + 1, nruns, workload_names[w],
                        impl_names[jobs[j].impl], jobs[j].handles ? " (handles)" : "",
                        res->ok ? "ok" : "FAILED: ", res->ok ? "" : res->err);
                if (raw) {
                    printf("raw run=%d %s %s%s ok=%d", r + 1, workload_names[w],
                           impl_names[jobs[j].impl], jobs[j].handles ? "-handles" : "", res->ok);
                    for (int m = 0; m < BENCH_MAX_METRICS; m++) printf(" m%d=%.6g", m, res->m[m]);
                    printf("%s%s\n", res->ok ? "" : " err=", res->ok ? "" : res->err);
                }
            }
        }
    }

    /* ---- the tables ---- */
    printf("\nmedian [min..max] over %d runs (W6a, W6b: %d); ratio = median of per-run groupconc/peer "
           "(throughput: higher is better; CPU, bytes, threads, makespan, latency: lower is "
           "better); best peer: per run\n\n",
           base_runs, w6_runs);
    print_header();
    tally tl = {0, 0, 0};
    print_rows(rows, NROWS, &p, only, &tl);
    int any_curve = 0;
    for (int w = BENCH_C5A; w <= BENCH_C2C; w++) any_curve |= only[w];
    if (any_curve) {
        printf("\ncost curves (runs 1..%d; the W5 and W2 rows at their own key counts are W5's and "
               "W2's, runs 1..%d): W5 = N distinct keys x 1 task; W2 = %ld tasks round-robin over "
               "N keys, cap 1; %d workers\n\n",
               curve_runs, nruns, p.w2_tasks, p.w5_threads);
        print_header();
        print_rows(curve_rows, NCURVE_ROWS, &p, only, &tl);
    }
    int blank = 1;
    if (only[BENCH_W4A] || only[BENCH_W4B]) {
        double ia = bench_w4_ideal_ns(p.w4_tasks, p.w4_keys_a, p.w4_cap, p.w4_global, p.w4_sleep_us);
        double ib = bench_w4_ideal_ns(p.w4_tasks, p.w4_keys_b, p.w4_cap, p.w4_global, p.w4_sleep_us);
        printf("\nW4 ideal makespan: %.0f ms (%ld keys), %.0f ms (%ld keys)\n", ia / 1e6, p.w4_keys_a,
               ib / 1e6, p.w4_keys_b);
        blank = 0;
    }
    if (only[BENCH_W6A] || only[BENCH_W6B]) {
        printf("%sW6 capacity %.0fk tasks/s = %d workers / %d us (computed); latency = the task's "
               "first clock read - the clock read just before its submit; p99 target: <= the "
               "lowest peer p99 of the same run\n",
               blank ? "\n" : "", capacity / 1e3, p.w6_threads, p.w6_task_us);
        blank = 0;
        /* every implementation's tasks found (nearly) all workers busy: the machine, not the
           offered load, was the bound, and the latencies measure a growing queue */
        for (int w = BENCH_W6A; w <= BENCH_W6B; w++) {
            if (!only[w]) continue;
            int saturated = 1, any = 0;
            for (int i = 0; i < BENCH_IMPL_COUNT; i++) {
                if (!impl_on[i]) continue;
                double v[256];
                summary sc = summarize(v, values(find_job((bench_workload)w, (bench_impl)i, 0),
                                                 BENCH_M_W6_CONC, v));
                if (!sc.n) continue;
                any = 1;
                if (sc.med < 0.95 * p.w6_threads) saturated = 0;
            }
            if (any && saturated)
                printf("NOTE: %s ran saturated for every implementation (tasks running when one "
                       "starts ~ %d): the machine did not have %d free CPUs, so its latencies "
                       "measure a growing queue, not wake-ups; rerun on a quiet machine\n",
                       workload_names[w], p.w6_threads, p.w6_threads);
        }
    }
    if (only[BENCH_W8]) {
        printf("%sW8 ran in runs 1..%d of %d; its tasks/s ratio is to groupconc's W5 of the same run\n",
               blank ? "\n" : "", w8_runs, nruns);
        blank = 0;
    }
    if (only[BENCH_W9]) {
        double i9 = bench_w4_ideal_ns(p.w9_hosts * p.w9_per_host, p.w9_hosts, p.w9_cap, p.w9_global,
                                      p.w9_sleep_us);
        printf("%sW9 ideal makespan: %.0f ms (%ld tasks x %d us / %d, or one host's %ld tasks / %d "
               "if longer); peers: a pool of %d threads + keyed.h at %d per host\n",
               blank ? "\n" : "", i9 / 1e6, p.w9_hosts * p.w9_per_host, p.w9_sleep_us, p.w9_global,
               p.w9_per_host, p.w9_cap, p.w9_global, p.w9_cap);
        blank = 0;
    }
    if (only[BENCH_W1D]) {
        /* the thread-count target, spelled out (the W1d row above is the same figure) */
        double v[256];
        summary st =
            summarize(v, values(find_job(BENCH_W1D, BENCH_GROUPCONC, 0), BENCH_M_W1D_PEAK, v));
        double cpus = w1d_cpus();
        char count[32];
        if (p.w1_tasks == 1000000)
            snprintf(count, sizeof count, "1e6");
        else
            fmt_count(count, sizeof count, p.w1_tasks);
        if (st.n && cpus > 0)
            printf("%speak worker threads (%s no-op, default policy): %.0f (CPU count %.0f) \u2264 "
                   "%.0f+1: %s\n",
                   blank ? "\n" : "", count, st.max, cpus, cpus, st.max <= cpus + 1 ? "MET" : "MISSED");
        else
            printf("%speak worker threads (%s no-op, default policy): not measured: n/a\n",
                   blank ? "\n" : "", count);
        blank = 0;
    }
    double load1 = loadavg();
    printf("\ntargets: %d met, %d missed, %d n/a%s; measurements failed: %d; load average after: "
           "%.2f\n",
           tl.met, tl.missed, tl.na, tl.na && !impl_on[BENCH_DISPATCH] ? " (no libdispatch)" : "",
           failures, load1);
    if (load0 > 1.0 || load1 > 2.2)
        printf("WARNING: other processes were using the CPUs (load average %.2f before, %.2f after, "
               "this benchmark adds ~1): timings are unreliable; bytes and callgrind counts are not "
               "affected\n",
               load0, load1);
    if (failures) {
        printf("failed measurements:\n");
        for (int j = 0; j < njobs; j++)
            for (int r = 0; r < nruns; r++)
                if (only[jobs[j].w] && impl_on[jobs[j].impl] && runs_in(jobs[j].w, r) &&
                    !res_at(j, r)->ok)
                    printf("  run %d %s %s%s: %s\n", r + 1, workload_names[jobs[j].w],
                           impl_names[jobs[j].impl], jobs[j].handles ? " (handles)" : "",
                           res_at(j, r)->err);
    }
    free(results);
    return failures ? 1 : 0;
}
