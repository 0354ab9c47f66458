/* bench_fleet.c - what a fleet-wide cap on Redis (extras/groupconc_redis.h) costs, beside the same
   workload with local caps only, in the same run.

   It starts its own redis-server on a unix socket in a temporary directory (tests/fleetutil.h) and
   runs each workload with 1 and with 3 processes (fork; they start together on a shared latch):
     local      no fleet provider: the executor alone
     fleet      the Redis provider on every group
   Workloads:
     serial     empty tasks one at a time (submit, wait, next): the admission latency of a lone task,
                submit to start - for the fleet, one round trip to Redis (and the I/O thread's wake-up)
     empty      N empty tasks over 8 groups submitted at once, fleet cap far above the load (Redis
                always grants): throughput and cost per task when asks share round trips
     sleep1ms   M tasks that sleep 1 ms over 8 groups, local concurrency 4, fleet cap 4 per group:
                with 3 processes the fleet cap holds the whole fleet to 32 at once, as one process
                (ideal: 8 x 4 / 1 ms = 32 000 tasks/s whatever the number of processes), while the
                local caps alone let each process run 32
   Per run: wall time, throughput (all processes together), time per task (wall time / tasks of
   one process), submit-to-start latency (mean, p50, p99; for bursts mostly queueing), Redis round
   trips per admitted task and commands per round trip; then the ratios fleet / local. Build: meson (tests/bench/meson.build, 'groupconc-fleet-bench', needs hiredis);
   run: <builddir>/tests/bench/groupconc-fleet-bench [--quick]. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_REDIS_IMPLEMENTATION
#include "extras/groupconc_redis.h"

#include <stdatomic.h>

#include "../fleetutil.h"

#define GROUPS 8
#define MAX_PROCS 3

typedef struct proc_result {
    double wall_s;
    double lat_mean_us, lat_p50_us, lat_p99_us;
    uint64_t tasks, grants, round_trips, commands;
    int failed;
} proc_result;

typedef struct shared_bench {
    fu_xlatch ready;
    proc_result res[MAX_PROCS];
    pid_t pids[MAX_PROCS];
} shared_bench;

typedef struct job {
    int64_t submitted_ns;
    int64_t started_ns;
    int sleep_us;
} job;

static int job_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    job *j = (job *)arg;
    j->started_ns = fu_now_ns();
    if (j->sleep_us) {
        struct timespec ts = {0, (long)j->sleep_us * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct workload {
    const char *name;
    bool serial;     /* one task at a time */
    int tasks;       /* per process */
    int sleep_us;
    int local_conc;  /* per group */
    int fleet_cap;   /* per group, across the fleet */
} workload;

static const char *group_names[GROUPS] = {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"};
static fu_redis srv;

/* One process's run: submit every task from one thread, wait for all. */
static proc_result run_one(const workload *w, bool fleet, shared_bench *sh) {
    proc_result pr;
    memset(&pr, 0, sizeof pr);
    groupconc_redis *r = NULL;
    groupconc_policy p = groupconc_policy_default();
    p.default_concurrency = w->local_conc;
    p.max_threads = w->sleep_us ? GROUPS * w->local_conc : 4;
    if (fleet) {
        groupconc_redis_config rc = groupconc_redis_config_default();
        rc.unix_path = srv.sock;
        rc.default_cap = w->fleet_cap;
        if (groupconc_redis_create(&rc, &r) != GROUPCONC_OK || groupconc_redis_provider(r, &p.fleet) != GROUPCONC_OK) {
            pr.failed = 1;
            return pr;
        }
    }
    groupconc_executor *ex = NULL;
    if (groupconc_executor_create(&p, &ex) != GROUPCONC_OK ||
        (r && groupconc_redis_wait_ready(r, GROUPCONC_SEC(10)) != GROUPCONC_OK)) {
        pr.failed = 1;
        return pr;
    }
    job *jobs = calloc((size_t)w->tasks, sizeof *jobs);
    groupconc_task **h = calloc((size_t)w->tasks, sizeof *h);
    int64_t *lat = calloc((size_t)w->tasks, sizeof *lat);
    if (!jobs || !h || !lat) {
        pr.failed = 1;
        return pr;
    }
    if (sh) { /* every process starts at once */
        fu_xlatch_count_down(&sh->ready);
        fu_xlatch_wait_for(&sh->ready, GROUPCONC_SEC(60));
    }
    int64_t t0 = fu_now_ns();
    for (int i = 0; i < w->tasks; i++) {
        jobs[i].sleep_us = w->sleep_us;
        jobs[i].submitted_ns = fu_now_ns();
        if (groupconc_submit(ex, group_names[i % GROUPS], NULL, job_fn, &jobs[i], &h[i]) != GROUPCONC_OK) pr.failed++;
        if (w->serial && h[i]) {
            groupconc_result res;
            if (groupconc_task_wait(h[i], &res) != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS) pr.failed++;
            groupconc_task_release(h[i]);
            h[i] = NULL;
        }
    }
    for (int i = 0; i < w->tasks; i++) {
        groupconc_result res;
        if (!h[i]) continue;
        if (groupconc_task_wait(h[i], &res) != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS) pr.failed++;
        groupconc_task_release(h[i]);
    }
    int64_t t1 = fu_now_ns();
    double sum = 0;
    for (int i = 0; i < w->tasks; i++) {
        lat[i] = jobs[i].started_ns - jobs[i].submitted_ns;
        sum += (double)lat[i];
    }
    qsort(lat, (size_t)w->tasks, sizeof *lat, cmp_i64);
    pr.wall_s = (double)(t1 - t0) / 1e9;
    pr.tasks = (uint64_t)w->tasks;
    pr.lat_mean_us = sum / w->tasks / 1e3;
    pr.lat_p50_us = (double)lat[w->tasks / 2] / 1e3;
    pr.lat_p99_us = (double)lat[(size_t)((double)w->tasks * 0.99)] / 1e3;
    if (r) {
        groupconc_redis_stats s;
        groupconc_redis_stats_get(r, &s);
        pr.grants = s.grants;
        pr.round_trips = s.round_trips;
        pr.commands = s.commands;
        if (getenv("BENCH_FLEET_VERBOSE"))
            fprintf(stderr, "    [pid %d] grants %llu busy %llu rt %llu notify pubsub %llu local %llu poll %llu reconnect %llu\n",
                    (int)getpid(), (unsigned long long)s.grants, (unsigned long long)s.busy,
                    (unsigned long long)s.round_trips, (unsigned long long)s.notify_pubsub,
                    (unsigned long long)s.notify_local, (unsigned long long)s.notify_poll,
                    (unsigned long long)s.notify_reconnect);
    }
    groupconc_executor_destroy(ex);
    if (r) groupconc_redis_destroy(r);
    free(jobs);
    free(h);
    free(lat);
    return pr;
}

typedef struct summary {
    double tput, wall, per_task_us, lat_mean, lat_p50, lat_p99, rt_per_task, cmds_per_rt;
    int failed;
} summary;

/* A child of a 3-process run: its own function, out of line, never returning. The pids live in
   the shared block, not in run()'s frame: gcc 12 -O2 gave run()'s pid array and its result copies
   one stack slot (stack-slot sharing around the fork; -fstack-reuse=none avoided it), and the
   parent then waited for garbage pids. */
#if defined(__GNUC__)
__attribute__((noinline, noreturn))
#endif
static void child_main(const workload *w, bool fleet, shared_bench *sh, int p) {
    sh->res[p] = run_one(w, fleet, sh);
    _exit(0);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static summary run(const workload *w, bool fleet, int procs) {
    summary s;
    memset(&s, 0, sizeof s);
    /* Results (and pids) live in the shared block for 1 process too: no array of results in this
       frame (see child_main). */
    shared_bench *sh = (shared_bench *)fu_shared_alloc(sizeof *sh);
    if (!sh) {
        s.failed = 1;
        return s;
    }
    const proc_result *res = sh->res;
    if (procs == 1) {
        sh->res[0] = run_one(w, fleet, NULL);
    } else {
        fu_xlatch_init(&sh->ready, procs);
        fflush(stdout);
        for (int p = 0; p < procs; p++) {
            pid_t pid = fork();
            if (pid == 0) child_main(w, fleet, sh, p);
            sh->pids[p] = pid;
        }
        for (int p = 0; p < procs; p++) {
            int st = 0;
            pid_t got;
            while ((got = waitpid(sh->pids[p], &st, 0)) < 0 && errno == EINTR) {
            }
            if (got != sh->pids[p])
                fprintf(stderr, "waitpid(%d) = %d: %s\n", (int)sh->pids[p], (int)got, strerror(errno));
            if (got != sh->pids[p] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) sh->res[p].failed++;
        }
    }
    uint64_t tasks = 0, grants = 0, rts = 0, cmds = 0;
    for (int p = 0; p < procs; p++) {
        tasks += res[p].tasks;
        grants += res[p].grants;
        rts += res[p].round_trips;
        cmds += res[p].commands;
        if (res[p].wall_s > s.wall) s.wall = res[p].wall_s;
        s.lat_mean += res[p].lat_mean_us / procs;
        s.lat_p50 += res[p].lat_p50_us / procs;
        if (res[p].lat_p99_us > s.lat_p99) s.lat_p99 = res[p].lat_p99_us;
        s.failed += res[p].failed;
    }
    s.tput = s.wall > 0 ? (double)tasks / s.wall : 0;
    s.per_task_us = s.wall * 1e6 / (double)w->tasks;
    fu_shared_free(sh, sizeof *sh);
    s.rt_per_task = grants ? (double)rts / (double)grants : 0;
    s.cmds_per_rt = rts ? (double)cmds / (double)rts : 0;
    return s;
}

static void print_row(const char *wname, const char *mode, int procs, const summary *s) {
    printf("%-9s %-6s %d  %7.3f s %9.0f /s %8.2f %9.1f %9.1f %9.1f", wname, mode, procs, s->wall, s->tput,
           s->per_task_us, s->lat_mean, s->lat_p50, s->lat_p99);
    if (s->rt_per_task > 0) printf("   %6.3f  %7.1f", s->rt_per_task, s->cmds_per_rt);
    else printf("        -        -");
    printf("%s\n", s->failed ? "  FAILED" : "");
}

int main(int argc, char **argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (fu_redis_start(&srv, NULL) != 0) {
        fprintf(stderr, "could not start redis-server:\n%s\n", srv.log);
        return 1;
    }
    workload ws[3] = {
        {"serial", true, quick ? 500 : 5000, 0, 64, 1 << 20},
        {"empty", false, quick ? 5000 : 40000, 0, 64, 1 << 20},
        {"sleep1ms", false, quick ? 1000 : 6000, 1000, 4, 4},
    };
    printf("groupconc %s, fleet provider on Redis (unix socket), %d groups\n", groupconc_version(), GROUPS);
    printf("workload  mode   P     wall   throughput  us/task  lat mean   lat p50   lat p99   rt/task  cmds/rt\n");
    printf("                              (all procs)  (1 proc)     (us, submit -> start)\n");
    int failed = 0;
    for (int wi = 0; wi < 3; wi++) {
        summary s[2][2]; /* [fleet][procs == 3] */
        for (int f = 0; f < 2; f++)
            for (int pi = 0; pi < 2; pi++) {
                s[f][pi] = run(&ws[wi], f == 1, pi ? 3 : 1);
                print_row(ws[wi].name, f ? "fleet" : "local", pi ? 3 : 1, &s[f][pi]);
                failed += s[f][pi].failed;
            }
        for (int pi = 0; pi < 2; pi++) {
            if (ws[wi].serial)
                printf("  %s, %d proc: fleet/local latency %.1fx: admission +%.1f us per task (p50 "
                       "submit -> start), %.3f round trips per admitted task\n",
                       ws[wi].name, pi ? 3 : 1, s[0][pi].lat_p50 > 0 ? s[1][pi].lat_p50 / s[0][pi].lat_p50 : 0,
                       s[1][pi].lat_p50 - s[0][pi].lat_p50, s[1][pi].rt_per_task);
            else
                printf("  %s, %d proc: fleet/local throughput %.2f: +%.2f us per task (wall time / "
                       "tasks), %.3f round trips per admitted task\n",
                       ws[wi].name, pi ? 3 : 1, s[0][pi].tput > 0 ? s[1][pi].tput / s[0][pi].tput : 0,
                       s[1][pi].per_task_us - s[0][pi].per_task_us, s[1][pi].rt_per_task);
        }
        if (ws[wi].sleep_us) {
            double ideal = (double)GROUPS * ws[wi].fleet_cap * 1e6 / ws[wi].sleep_us;
            printf("  %s: fleet cap %d x %d groups allows %.0f tasks/s fleet-wide; fleet got %.0f (1 proc) "
                   "and %.0f (3 procs) = %.0f%% / %.0f%% of it\n",
                   ws[wi].name, ws[wi].fleet_cap, GROUPS, ideal, s[1][0].tput, s[1][1].tput,
                   100 * s[1][0].tput / ideal, 100 * s[1][1].tput / ideal);
        }
    }
    fu_redis_cleanup(&srv);
    return failed ? 1 : 0;
}
