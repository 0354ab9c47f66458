/* 09_crawler.c - "at most 2 per host, 16 overall", changed while it runs.

   Shows:
   - the work-conserving global running cap: policy.global_max_running = 16 with 2 per host
     (default_concurrency); 40 hosts x 4 fetches of 20 ms, submitted host by host, run 16 at a
     time from first to last (a peak counter in the task checks it), and the makespan stays close
     to the ideal, total work / 16;
   - live limits: half-way, groupconc_executor_limits_set raises the cap to 24, and the crawl goes
     on 24 at a time (the peak after the change is checked too);
   - pause: host "slow.example" is paused before its fetches are submitted; they queue, start
     nothing while the others run, and run after groupconc_group_resume;
   - queue deadlines: a "best effort" fetch with max_wait_ns = 5 ms, behind the paused host's own
     queue, expires: REJECTED with result.reason GROUPCONC_EEXPIRED_CONCURRENCY (the layer it
     waited at), and it never ran.
   It exits 1 if a cap is exceeded, a cap is never reached, or an outcome differs.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o crawler examples/09_crawler.c -lpthread
       ./crawler
   Expected output (the makespan figures vary a little from run to run):
       phase 1: 80 fetches over 20 hosts, cap 16: peak 16
       phase 2: cap raised to 24 while running: peak 24
       paused host: 0 started while paused, 4 after resume
       best effort fetch: REJECTED (GROUPCONC_EEXPIRED_CONCURRENCY), ran: no
       makespan 0.10 s for an ideal of 0.10 s (ratio 1.0x)
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

enum { HOSTS = 20, PER_HOST = 4, FETCH_MS = 20 };

static atomic_int running, peak;
static atomic_int slow_started;
static atomic_bool best_effort_ran;

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

static uint64_t now_ns(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fetch(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    int now = atomic_fetch_add(&running, 1) + 1, p = atomic_load(&peak);
    while (now > p && !atomic_compare_exchange_weak(&peak, &p, now)) {}
    if (arg) atomic_fetch_add(&slow_started, 1);
    sleep_ms(FETCH_MS);
    atomic_fetch_sub(&running, 1);
    return 0;
}

static int best_effort(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    atomic_store(&best_effort_ran, true);
    return 0;
}

/* Submit PER_HOST fetches to each of `hosts` hosts, host by host, fire-and-forget. */
static int crawl(groupconc_executor *ex, int first_host, int hosts) {
    char host[32];
    for (int h = first_host; h < first_host + hosts; h++) {
        snprintf(host, sizeof host, "host-%02d.example", h);
        for (int i = 0; i < PER_HOST; i++)
            if (groupconc_submit(ex, host, NULL, fetch, NULL, NULL) != GROUPCONC_OK) return 1;
    }
    return 0;
}

/* Wait until the executor has no task left (the counters say so). */
static void drain(groupconc_executor *ex) {
    groupconc_executor_stats st;
    do {
        sleep_ms(2);
        groupconc_executor_stats_get(ex, &st);
    } while (st.completed < st.submitted);
}

int main(void) {
    groupconc_policy policy = groupconc_policy_default();
    policy.default_concurrency = 2; /* at most 2 at once per host */
    policy.global_max_running = 16; /* at most 16 at once, all hosts together */
    groupconc_executor *ex;
    int bad = 0;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return 1;

    /* Phase 1: the crawler case. */
    uint64_t t0 = now_ns();
    if (crawl(ex, 0, HOSTS)) return 1;
    drain(ex);
    double took = (double)(now_ns() - t0) / 1e9;
    double ideal = (double)HOSTS * PER_HOST * FETCH_MS / 1000.0 / 16;
    printf("phase 1: %d fetches over %d hosts, cap 16: peak %d\n", HOSTS * PER_HOST, HOSTS,
           atomic_load(&peak));
    bad |= atomic_load(&peak) != 16;

    /* Phase 2: raise the cap while a crawl runs. */
    atomic_store(&peak, 0);
    if (crawl(ex, HOSTS, HOSTS)) return 1;
    groupconc_executor_limits lim = groupconc_executor_limits_keep();
    lim.global_max_running = 24;
    if (groupconc_executor_limits_set(ex, &lim) != GROUPCONC_OK) return 1;
    drain(ex);
    printf("phase 2: cap raised to 24 while running: peak %d\n", atomic_load(&peak));
    bad |= atomic_load(&peak) != 24;

    /* Pause one host: its fetches queue and start nothing until it is resumed. */
    static int marker; /* a non-NULL arg marks the slow host's fetches */
    if (groupconc_group_pause(ex, "slow.example") != GROUPCONC_OK) return 1;
    for (int i = 0; i < PER_HOST; i++)
        if (groupconc_submit(ex, "slow.example", NULL, fetch, &marker, NULL) != GROUPCONC_OK) return 1;
    /* A best-effort fetch that may wait 5 ms at most: the paused host's queue holds it. */
    groupconc_task_spec spec = {0};
    spec.group = "slow.example";
    spec.fn = best_effort;
    spec.max_wait_ns = GROUPCONC_MS(5);
    groupconc_task *t;
    if (groupconc_submit_spec(ex, &spec, &t) != GROUPCONC_OK) return 1;
    groupconc_result r;
    if (groupconc_task_wait(t, &r) != GROUPCONC_OK) return 1;
    int while_paused = atomic_load(&slow_started);
    groupconc_group_resume(ex, "slow.example");
    drain(ex);
    printf("paused host: %d started while paused, %d after resume\n", while_paused,
           atomic_load(&slow_started) - while_paused);
    bad |= while_paused != 0 || atomic_load(&slow_started) != PER_HOST;
    printf("best effort fetch: %s (%s), ran: %s\n", groupconc_status_name(r.status),
           groupconc_errname(r.reason), atomic_load(&best_effort_ran) ? "yes" : "no");
    bad |= r.status != GROUPCONC_STATUS_REJECTED || r.reason != GROUPCONC_EEXPIRED_CONCURRENCY ||
           atomic_load(&best_effort_ran);
    groupconc_task_release(t);

    printf("makespan %.2f s for an ideal of %.2f s (ratio %.1fx)\n", took, ideal, took / ideal);
    if (groupconc_executor_destroy(ex) != GROUPCONC_OK) return 1;
    return bad ? 1 : 0;
}
