/* 06_event_loop_gate.c - an event loop admitting requests per tenant through an executor gate.

   Shows:
   - a single-threaded poll() loop with timers, like a proxy in front of a backend: each tick, every
     tenant wants to send requests; a request occupies the backend for 15 ms (a timer);
   - groupconc_gate_try_acquire against the executor's groups: "at most 2 in flight per tenant,
     reject at once beyond that" - no waiting, no queue, the loop never blocks;
   - tenant "flood" asks for 20 requests every tick and is refused beyond its 2; tenants "alpha",
     "beta" and "gamma" ask for 1 each tick and are never refused: the flood does not touch them;
   - groupconc_permit_release when a request's timer fires (SUCCESS), and the gate's counters;
   - the same budget holds for executor tasks of the tenant (not used here: see docs/guide.md, "The
     gate on an event loop").
   It prints a per-tenant table and exits 1 if a tenant ever had more than 2 in flight, a quiet
   tenant was refused, the flood was never refused, or a permit was lost.

   Build and run from the repository root:
       cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o event_loop examples/06_event_loop_gate.c -lpthread
       ./event_loop
   Output (the flood's admitted / refused split depends on timing; the checks do not):
       tenant   wanted  admitted  refused  max in flight
       alpha        15        15        0              2
       beta         15        15        0              2
       gamma        15        15        0              2
       flood       300        16      284              2
       gate: admitted 61, refused 284, released 61, in flight 0
       ok: no tenant over 2 in flight, the quiet ones never refused
*/
#define _POSIX_C_SOURCE 200809L
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TENANTS = 4, MAX_REQUESTS = 64, TICKS = 15, TICK_MS = 10, SERVICE_MS = 15, PER_TENANT = 2 };

typedef struct tenant {
    const char *name;
    int per_tick; /* requests it wants each tick */
    int wanted, admitted, refused, in_flight, max_in_flight;
} tenant;

typedef struct request { /* one in flight: the permit, and when the backend answers */
    groupconc_permit permit;
    tenant *who;
    long long due_ms;
    int used;
} request;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(void) {
    tenant tenants[TENANTS] = {
        {"alpha", 1, 0, 0, 0, 0, 0}, {"beta", 1, 0, 0, 0, 0, 0},
        {"gamma", 1, 0, 0, 0, 0, 0}, {"flood", 20, 0, 0, 0, 0, 0}};
    request reqs[MAX_REQUESTS] = {0};
    groupconc_policy policy = groupconc_policy_default();
    groupconc_gate_config config = {0};
    groupconc_executor *ex;
    groupconc_gate *gate;
    int rc, ok = 1, pending = 0, i, tick = 0;
    long long next_tick;

    policy.default_concurrency = PER_TENANT; /* the per-tenant budget, shared with any task */
    rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "executor_create: %s\n", groupconc_strerror(rc));
        return EXIT_FAILURE;
    }
    config.executor = ex; /* admit against its groups */
    rc = groupconc_gate_create(&config, &gate);
    if (rc != GROUPCONC_OK) {
        fprintf(stderr, "gate_create: %s\n", groupconc_strerror(rc));
        return EXIT_FAILURE;
    }

    next_tick = now_ms();
    while (tick < TICKS || pending > 0) {
        long long now = now_ms(), wake = tick < TICKS ? next_tick : now + 1000;
        /* timers: backend answers that are due free their permits */
        for (i = 0; i < MAX_REQUESTS; i++) {
            if (!reqs[i].used || reqs[i].due_ms > now) continue;
            rc = groupconc_permit_release(&reqs[i].permit, GROUPCONC_RELEASE_SUCCESS, 0);
            if (rc != GROUPCONC_OK) {
                fprintf(stderr, "permit_release: %s\n", groupconc_strerror(rc));
                ok = 0;
            }
            reqs[i].who->in_flight--;
            reqs[i].used = 0;
            pending--;
        }
        /* a tick: every tenant tries to send what it wants; admission is decided at once */
        if (tick < TICKS && now >= next_tick) {
            for (int t = 0; t < TENANTS; t++) {
                for (int k = 0; k < tenants[t].per_tick; k++) {
                    request *slot = NULL;
                    for (i = 0; i < MAX_REQUESTS && !slot; i++)
                        if (!reqs[i].used) slot = &reqs[i];
                    tenants[t].wanted++;
                    if (!slot) { /* the loop's own table is full: cannot happen with 2 per tenant */
                        ok = 0;
                        continue;
                    }
                    rc = groupconc_gate_try_acquire(gate, tenants[t].name, &slot->permit);
                    if (rc == GROUPCONC_EREJECTED_CONCURRENCY) { /* over its budget: refused now */
                        tenants[t].refused++;
                        continue;
                    }
                    if (rc != GROUPCONC_OK) {
                        fprintf(stderr, "try_acquire: %s\n", groupconc_strerror(rc));
                        ok = 0;
                        continue;
                    }
                    slot->used = 1; /* "send" it: the backend answers in SERVICE_MS */
                    slot->who = &tenants[t];
                    slot->due_ms = now + SERVICE_MS;
                    pending++;
                    tenants[t].admitted++;
                    if (++tenants[t].in_flight > tenants[t].max_in_flight)
                        tenants[t].max_in_flight = tenants[t].in_flight;
                }
            }
            tick++;
            /* from when this tick really ran, not when it was due: a late tick (a loaded machine)
               followed by an on-time one would put a quiet tenant's third request in flight
               before its first was answered */
            next_tick = now + TICK_MS;
        }
        for (i = 0; i < MAX_REQUESTS; i++) /* sleep in poll() until the next timer or tick */
            if (reqs[i].used && reqs[i].due_ms < wake) wake = reqs[i].due_ms;
        now = now_ms();
        if (wake > now) poll(NULL, 0, (int)(wake - now));
    }

    printf("tenant   wanted  admitted  refused  max in flight\n");
    for (int t = 0; t < TENANTS; t++) {
        tenant *x = &tenants[t];
        printf("%-8s %6d  %8d  %7d  %13d\n", x->name, x->wanted, x->admitted, x->refused,
               x->max_in_flight);
        if (x->max_in_flight > PER_TENANT || x->in_flight != 0) ok = 0;
        if (x->per_tick == 1 && (x->refused != 0 || x->admitted != TICKS)) ok = 0; /* untouched */
    }
    if (tenants[3].refused == 0 || tenants[3].admitted == 0) ok = 0; /* the flood was held back */

    groupconc_gate_stats st;
    rc = groupconc_gate_stats_get(gate, NULL, &st);
    printf("gate: admitted %llu, refused %llu, released %llu, in flight %zu\n",
           (unsigned long long)st.admitted, (unsigned long long)st.rejected,
           (unsigned long long)st.released_success, st.in_flight);
    if (rc != GROUPCONC_OK || st.in_flight != 0 || st.admitted != st.released_success) ok = 0;

    if (groupconc_gate_destroy(gate) != GROUPCONC_OK || groupconc_executor_destroy(ex) != GROUPCONC_OK)
        ok = 0;
    puts(ok ? "ok: no tenant over 2 in flight, the quiet ones never refused"
            : "FAILED: see the table above");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
