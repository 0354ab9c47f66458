/* 10_fleet.c - one tenant cap shared by two processes, held in Redis (extras/groupconc_redis.h).

   Shows:
   - two processes (A and B, fork) each run an executor whose local cap for "tenant-a" is 3, so
     each alone would run 3 of its tasks at once - 6 together;
   - both use the Redis fleet provider with a fleet-wide cap of 3 for "tenant-a": a task runs only
     while it holds one of the tenant's 3 leases in Redis, whichever process it is in;
   - every task records when it starts and ends, and the fleet-wide running count, in memory shared
     by both processes; the parent prints the merged timeline: the count never exceeds 3, and the
     two processes take turns with the slots (a lease freed in one process is announced to the
     other by Redis pub/sub);
   - the provider's numbers: leases granted, asks answered "busy", Redis round trips.
   It exits 0 only if every task succeeded, the fleet-wide count never exceeded 3 and reached it;
   otherwise it says what differed and exits 1.

   Needs hiredis and a Redis server: either the path of a Redis unix socket as the argument, or
   redis-server installed (it then starts its own on a unix socket in a temporary directory, TCP
   off, and stops it at the end). Build and run from the repository root (POSIX):
       cc -std=c11 -O2 -D_DEFAULT_SOURCE -I. -o fleet examples/10_fleet.c -lhiredis -lpthread
       ./fleet                          # or: ./fleet /run/redis/redis.sock
   Expected output (times shift from run to run; "..." marks lines left out here):
       redis-server started on /tmp/gcfleet.XXXXXX/redis.sock
       A and B: 6 tasks each for "tenant-a", local cap 3 per process, fleet cap 3

       merged timeline ('#' per task running fleet-wide; fleet cap 3)
          t ms  proc  event            fleet  A  B
           0.3  A     start  A-1       1      1  0  #
           0.4  B     start  B-1       2      1  1  ##
           0.5  A     start  A-2       3      2  1  ###
          40.6  A     end    A-1       2      1  1  ##
          40.9  B     start  B-2       3      1  2  ###
          ...
       peak fleet-wide: 3 of cap 3 (each process alone may run 3: 6 without the fleet cap)
       A: 6 succeeded, 6 leases, 9 busy answers, 21 Redis round trips
       B: 6 succeeded, 6 leases, 11 busy answers, 19 Redis round trips
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_REDIS_IMPLEMENTATION
#include "extras/groupconc_redis.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TENANT "tenant-a"
#define FLEET_CAP 3
#define LOCAL_CAP 3
#define TASKS_PER_PROC 6
#define TASK_MS 40
#define MAX_EVENTS (2 * 2 * TASKS_PER_PROC)

typedef struct event {
    int64_t t_ns;
    char proc;      /* 'A' or 'B' */
    int task;       /* 1.. */
    bool start;
    int fleet, a, b; /* running after the event: fleet-wide, in A, in B */
} event;

typedef struct shared {
    atomic_int running, running_a, running_b;
    atomic_int n_events;
    event events[MAX_EVENTS];
    atomic_int ready;                     /* both processes set up: go */
    /* per process: succeeded, grants, busy answers, round trips */
    int succeeded[2];
    unsigned long long grants[2], busy[2], round_trips[2];
} shared;

static shared *sh;
static int64_t t0_ns;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Record a start or end, with the counts right after it (under one lock-free slot). */
static void record(char proc, int task, bool start) {
    atomic_int *mine = proc == 'A' ? &sh->running_a : &sh->running_b;
    int d = start ? 1 : -1;
    int fleet = atomic_fetch_add(&sh->running, d) + d;
    atomic_fetch_add(mine, d);
    int i = atomic_fetch_add(&sh->n_events, 1);
    if (i >= MAX_EVENTS) return;
    sh->events[i] = (event){now_ns(), proc, task, start, fleet, atomic_load(&sh->running_a),
                            atomic_load(&sh->running_b)};
}

typedef struct job {
    char proc;
    int task;
} job;

/* The work: 40 ms of sleep, as a remote call would. It says so first (groupconc_context_blocking):
   the pool, one worker per CPU while tasks compute, then starts a worker for the next task at once,
   so that a process holding all three leases runs all three. */
static int tenant_task(groupconc_context *ctx, void **out_value, void *arg) {
    const job *j = arg;
    (void)out_value;
    (void)groupconc_context_blocking(ctx);
    record(j->proc, j->task, true);
    struct timespec ts = {0, (long)TASK_MS * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
    record(j->proc, j->task, false);
    return 0;
}

static int check(int rc, const char *what) {
    if (rc != GROUPCONC_OK) printf("%s: %s (%s)\n", what, groupconc_redis_errname(rc), groupconc_redis_strerror(rc));
    return rc == GROUPCONC_OK;
}

/* One process: a provider with the tenant's fleet cap, an executor using it, 6 tasks. */
static int run_process(int idx, const char *socket_path) {
    char proc = idx == 0 ? 'A' : 'B';
    groupconc_redis_cap cap = {TENANT, FLEET_CAP};
    groupconc_redis_config rc = groupconc_redis_config_default();
    rc.unix_path = socket_path;
    rc.caps = &cap;
    rc.cap_count = 1;
    groupconc_redis *redis = NULL;
    if (!check(groupconc_redis_create(&rc, &redis), "groupconc_redis_create")) return 1;
    groupconc_policy policy = groupconc_policy_default();
    policy.default_concurrency = LOCAL_CAP;
    groupconc_executor *ex = NULL;
    if (!check(groupconc_redis_provider(redis, &policy.fleet), "groupconc_redis_provider") ||
        !check(groupconc_executor_create(&policy, &ex), "groupconc_executor_create") ||
        !check(groupconc_redis_wait_ready(redis, GROUPCONC_SEC(10)), "groupconc_redis_wait_ready"))
        return 1;
    /* start together: each process announces it is ready, then waits for the other */
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < 2) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    job jobs[TASKS_PER_PROC];
    groupconc_task *tasks[TASKS_PER_PROC];
    for (int i = 0; i < TASKS_PER_PROC; i++) {
        jobs[i] = (job){proc, i + 1};
        if (!check(groupconc_submit(ex, TENANT, NULL, tenant_task, &jobs[i], &tasks[i]), "groupconc_submit"))
            return 1;
    }
    int ok = 0;
    for (int i = 0; i < TASKS_PER_PROC; i++) {
        groupconc_result res;
        if (check(groupconc_task_wait(tasks[i], &res), "groupconc_task_wait") &&
            res.status == GROUPCONC_STATUS_SUCCESS)
            ok++;
        groupconc_task_release(tasks[i]);
    }
    groupconc_redis_stats st;
    groupconc_redis_stats_get(redis, &st);
    sh->succeeded[idx] = ok;
    sh->grants[idx] = (unsigned long long)st.grants;
    sh->busy[idx] = (unsigned long long)st.busy;
    sh->round_trips[idx] = (unsigned long long)st.round_trips;
    groupconc_executor_destroy(ex); /* gives back every lease; the provider lets go of ex */
    groupconc_redis_destroy(redis);
    return ok == TASKS_PER_PROC ? 0 : 1;
}

/* ---- a private redis-server, when no socket path is given ---------------------------------------- */

static char server_dir[128];
static char server_sock[192];
static pid_t server_pid;

/* Start redis-server on a unix socket in a fresh directory; wait until it says it is ready. */
static int start_server(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(server_dir, sizeof server_dir, "%s/gcfleet.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(server_dir)) return -1;
    snprintf(server_sock, sizeof server_sock, "%s/redis.sock", server_dir);
    int fds[2];
    if (pipe(fds) != 0) return -1;
    server_pid = fork();
    if (server_pid < 0) return -1;
    if (server_pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", server_sock,
               "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", server_dir,
               "--logfile", "", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char log[4096];
    size_t used = 0;
    int ready = 0;
    while (!ready) {
        struct pollfd p = {fds[0], POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0) break;
        ssize_t n = read(fds[0], log + used, sizeof log - 1 - used);
        if (n <= 0) break;
        used += (size_t)n;
        log[used] = '\0';
        ready = strstr(log, "eady to accept connections") != NULL; /* "Ready ..." / "now ready ..." */
        if (used > sizeof log / 2) { /* keep the tail */
            memmove(log, log + used / 2, used - used / 2 + 1);
            used -= used / 2;
        }
    }
    close(fds[0]);
    if (!ready) {
        kill(server_pid, SIGKILL);
        waitpid(server_pid, NULL, 0);
        server_pid = 0;
        return -1;
    }
    return 0;
}

static void stop_server(void) {
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
    }
    unlink(server_sock);
    char path[256];
    snprintf(path, sizeof path, "%s/dump.rdb", server_dir);
    unlink(path);
    rmdir(server_dir);
}

static int by_time(const void *a, const void *b) {
    const event *x = a, *y = b;
    return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

int main(int argc, char **argv) {
    const char *socket_path = argc > 1 ? argv[1] : NULL;
    if (!socket_path) {
        if (start_server() != 0) {
            printf("could not start redis-server (apt-get install redis-server), and no socket path given\n");
            return 1;
        }
        socket_path = server_sock;
        printf("redis-server started on %s\n", socket_path);
    }
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    memset(sh, 0, sizeof *sh);
    printf("A and B: %d tasks each for \"%s\", local cap %d per process, fleet cap %d\n\n", TASKS_PER_PROC,
           TENANT, LOCAL_CAP, FLEET_CAP);
    fflush(stdout);
    t0_ns = now_ns();
    pid_t pids[2];
    for (int i = 0; i < 2; i++) {
        pids[i] = fork();
        if (pids[i] == 0) _exit(run_process(i, socket_path));
    }
    int failed = 0;
    for (int i = 0; i < 2; i++) {
        int st = 0;
        if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) failed = 1;
    }
    if (argc <= 1) stop_server();

    int n = atomic_load(&sh->n_events);
    if (n > MAX_EVENTS) n = MAX_EVENTS;
    qsort(sh->events, (size_t)n, sizeof sh->events[0], by_time);
    int64_t base = n ? sh->events[0].t_ns : t0_ns;
    printf("merged timeline ('#' per task running fleet-wide; fleet cap %d)\n", FLEET_CAP);
    printf("   t ms  proc  event            fleet  A  B\n");
    int peak = 0;
    for (int i = 0; i < n; i++) {
        const event *e = &sh->events[i];
        char bar[16];
        int k = e->fleet < 0 ? 0 : e->fleet > 15 ? 15 : e->fleet;
        memset(bar, '#', (size_t)k);
        bar[k] = '\0';
        printf("  %5.1f  %c     %-5s  %c-%d       %d      %d  %d  %s\n", (double)(e->t_ns - base) / 1e6, e->proc,
               e->start ? "start" : "end", e->proc, e->task, e->fleet, e->a, e->b, bar);
        if (e->fleet > peak) peak = e->fleet;
    }
    printf("peak fleet-wide: %d of cap %d (each process alone may run %d: %d without the fleet cap)\n", peak,
           FLEET_CAP, LOCAL_CAP, 2 * LOCAL_CAP);
    for (int i = 0; i < 2; i++)
        printf("%c: %d succeeded, %llu leases, %llu busy answers, %llu Redis round trips\n", 'A' + i,
               sh->succeeded[i], sh->grants[i], sh->busy[i], sh->round_trips[i]);
    if (failed || n != MAX_EVENTS) {
        printf("FAILED: a process failed or a task did not run\n");
        return 1;
    }
    if (peak > FLEET_CAP) {
        printf("FAILED: %d ran at once across the two processes, above the fleet cap %d\n", peak, FLEET_CAP);
        return 1;
    }
    if (peak < FLEET_CAP) {
        printf("FAILED: the fleet never ran %d at once (12 tasks were waiting)\n", FLEET_CAP);
        return 1;
    }
    return 0;
}
