/* libuv_gate.c - groupconc's admission gate and deferred completion on a libuv event loop.

   Shows:
   - per-tenant admission on the loop thread: groupconc_gate_try_acquire against an executor's
     groups ("2 in flight per tenant"), refused at once beyond that, never blocking the loop;
   - each admitted request is a uv_timer (the backend's answer arrives 5 ms later); its callback
     releases the permit (groupconc_permit_release);
   - the same tenant's executor tasks share the budget: a task of tenant "alpha" defers its
     completion (groupconc_context_defer), asks the loop to finish the work (uv_async_send), and
     returns GROUPCONC_TASK_PENDING without holding a worker; the loop completes it
     (groupconc_deferred_complete). While it is pending it holds one of alpha's two permits.
   It exits 1 if a tenant ever had more than 2 in flight (requests and tasks together), a permit
   was lost, or the task did not complete SUCCESS.

   Built by meson when libuv is found (examples/meson.build); by hand, from the repository root:
       cc -std=c11 -Wall -Wextra -O2 -I. -o libuv_gate examples/integrations/libuv_gate.c -luv -lpthread
*/
#define _POSIX_C_SOURCE 200809L
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

enum { PER_TENANT = 2, TICKS = 20, TENANTS = 3 };

typedef struct tenant {
    const char *name;
    int per_tick;
    int admitted, refused, in_flight, max_in_flight;
} tenant;

typedef struct request {
    uv_timer_t timer;
    groupconc_permit permit;
    tenant *who;
} request;

static tenant tenants[TENANTS] = {{"alpha", 1, 0, 0, 0, 0}, {"beta", 1, 0, 0, 0, 0}, {"flood", 10, 0, 0, 0, 0}};
static groupconc_gate *gate;
static groupconc_executor *ex;
static uv_loop_t *loop;
static uv_timer_t ticker;
static uv_async_t wakeup;            /* a worker asks the loop to finish deferred work */
static _Atomic(groupconc_deferred *) handoff;
static int ticks, failures;

static void request_closed(uv_handle_t *h) { free(h->data); }

static void request_done(uv_timer_t *t) { /* the backend answered: free the permit */
    request *r = (request *)t->data;
    if (groupconc_permit_release(&r->permit, GROUPCONC_RELEASE_SUCCESS, 0) != GROUPCONC_OK) failures++;
    r->who->in_flight--;
    uv_close((uv_handle_t *)&r->timer, request_closed);
}

static void tick(uv_timer_t *t) {
    (void)t;
    for (int i = 0; i < TENANTS; i++) {
        for (int k = 0; k < tenants[i].per_tick; k++) {
            request *r = (request *)malloc(sizeof *r);
            if (!r) {
                failures++;
                continue;
            }
            int rc = groupconc_gate_try_acquire(gate, tenants[i].name, &r->permit);
            if (rc != GROUPCONC_OK) { /* refused now: the loop moves on */
                if (rc != GROUPCONC_EREJECTED_CONCURRENCY) failures++;
                tenants[i].refused++;
                free(r);
                continue;
            }
            r->who = &tenants[i];
            tenants[i].admitted++;
            if (++tenants[i].in_flight > tenants[i].max_in_flight)
                tenants[i].max_in_flight = tenants[i].in_flight;
            uv_timer_init(loop, &r->timer);
            r->timer.data = r;
            uv_timer_start(&r->timer, request_done, 5, 0);
        }
    }
    if (++ticks == TICKS) uv_timer_stop(&ticker);
}

/* An executor task of tenant "alpha" whose work finishes on the loop. */
static int alpha_task(groupconc_context *ctx, void **out_value, void *arg) {
    groupconc_deferred *d;
    (void)out_value;
    (void)arg;
    if (groupconc_context_defer(ctx, &d) != GROUPCONC_OK) return -1; /* could do it here instead */
    atomic_store(&handoff, d);
    uv_async_send(&wakeup); /* the one libuv call that is safe from another thread */
    return GROUPCONC_TASK_PENDING;
}

static void finish_deferred(uv_async_t *a) {
    (void)a;
    groupconc_deferred *d = atomic_exchange(&handoff, NULL);
    if (d && groupconc_deferred_complete(d, 0, "done on the loop") != GROUPCONC_OK) failures++;
    uv_close((uv_handle_t *)&wakeup, NULL);
}

int main(void) {
    groupconc_policy policy = groupconc_policy_default();
    groupconc_gate_config config = {0};
    groupconc_task *task;
    groupconc_result res;
    policy.default_concurrency = PER_TENANT;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return EXIT_FAILURE;
    config.executor = ex;
    if (groupconc_gate_create(&config, &gate) != GROUPCONC_OK) return EXIT_FAILURE;
    loop = uv_default_loop();
    uv_async_init(loop, &wakeup, finish_deferred);
    uv_timer_init(loop, &ticker);
    uv_timer_start(&ticker, tick, 0, 2);
    if (groupconc_submit(ex, "alpha", "deferred", alpha_task, NULL, &task) != GROUPCONC_OK)
        return EXIT_FAILURE;
    uv_run(loop, UV_RUN_DEFAULT);

    if (groupconc_task_wait(task, &res) != GROUPCONC_OK || res.status != GROUPCONC_STATUS_SUCCESS)
        failures++;
    else
        printf("alpha's deferred task: %s, \"%s\"\n", groupconc_status_name(res.status), (const char *)res.value);
    groupconc_task_release(task);
    printf("tenant   admitted  refused  max in flight (requests)\n");
    for (int i = 0; i < TENANTS; i++) {
        printf("%-8s %8d  %7d  %13d\n", tenants[i].name, tenants[i].admitted, tenants[i].refused,
               tenants[i].max_in_flight);
        if (tenants[i].max_in_flight > PER_TENANT || tenants[i].in_flight != 0) failures++;
    }
    if (tenants[2].refused == 0) failures++; /* the flood was held back */
    groupconc_gate_stats st;
    if (groupconc_gate_stats_get(gate, NULL, &st) != GROUPCONC_OK || st.in_flight != 0) failures++;
    if (groupconc_gate_destroy(gate) != GROUPCONC_OK || groupconc_executor_destroy(ex) != GROUPCONC_OK)
        failures++;
    uv_loop_close(loop);
    puts(failures ? "FAILED" : "ok");
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
