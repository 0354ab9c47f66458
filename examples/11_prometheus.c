/* 11_prometheus.c - serve the executor's metrics to a Prometheus scrape (extras/groupconc_prometheus.h).

   Shows:
   - a multi-tenant workload held in a known state: tenant "acme" (concurrency 2) has 2 tasks
     running (parked) and 3 waiting, "globex" ran 4 tasks (one failed), "initech" (bulkhead 1)
     had 2 of its 3 tasks refused (DISCARD policy: completed REJECTED);
   - a minimal HTTP server on a loopback address (127.0.0.1; the port given, or one the OS picks)
     that answers one GET with groupconc_prometheus_render_file's text (Content-Type
     "text/plain; version=0.0.4", what Prometheus expects);
   - without arguments the program scrapes itself (a second thread is the HTTP client) and checks
     that the scraped values are the executor's stats: submitted, succeeded, failed, the bulkhead
     rejections, acme's running and waiting tasks. With --serve [PORT] it waits for one scrape
     from outside instead (curl, Prometheus, tests/prometheus/check.py) and prints the stats it
     served, for the scraper to compare.
   It exits 1 if a call fails, the scrape does not arrive (30 s) or a value differs.

   Build and run from the repository root (POSIX sockets):
       cc -std=c11 -Wall -Wextra -pedantic -O2 -D_POSIX_C_SOURCE=200809L -I. -o prom \
           examples/11_prometheus.c -lpthread
       ./prom                        # serves and scrapes itself
       ./prom --serve 9464 &         # then: curl -s http://127.0.0.1:9464/metrics
   Expected output (self-scrape; the port varies):
       listening on 127.0.0.1:PORT
       scraped 200 OK, NNNN bytes; e.g.:
         groupconc_tasks_submitted_total 12
         groupconc_group_running_tasks{group="acme"} 2
         groupconc_group_waiting_tasks{group="acme",layer="concurrency"} 3
       values agree with the stats: submitted 12, succeeded 3, failed 1, rejected_bulkhead 2
       done
*/
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION
#include "extras/groupconc_prometheus.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the workload ---------------------------------------------------------------------------- */

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open, parked;

static int park(groupconc_context *ctx, void **out_value, void *arg) { /* acme: wait for the gate */
    (void)ctx, (void)out_value, (void)arg;
    pthread_mutex_lock(&gate_mu);
    parked++;
    pthread_cond_broadcast(&gate_cv);
    while (!gate_open) pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    return 0;
}

static int job(groupconc_context *ctx, void **out_value, void *arg) { /* arg non-NULL: fails */
    (void)ctx, (void)out_value;
    return arg ? 42 : 0;
}

static int build_state(groupconc_executor *ex) {
    groupconc_task *t;
    groupconc_result r;
    int i, rc = GROUPCONC_OK;
    static int fail_flag = 1;
    for (i = 0; i < 4 && rc == GROUPCONC_OK; i++) { /* globex: 4 done, one failed */
        rc = groupconc_submit(ex, "globex", NULL, job, i == 3 ? &fail_flag : NULL, &t);
        if (rc == GROUPCONC_OK) {
            groupconc_task_wait(t, &r);
            groupconc_task_release(t);
        }
    }
    for (i = 0; i < 5 && rc == GROUPCONC_OK; i++) /* acme: 2 running, 3 waiting */
        rc = groupconc_submit(ex, "acme", NULL, park, NULL, NULL);
    if (rc != GROUPCONC_OK) return rc;
    pthread_mutex_lock(&gate_mu);
    while (parked < 2) pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    /* initech: bulkhead 1, no queue: its first task holds the permit (parked), the next two are
       refused at the bulkhead (DISCARD: they complete REJECTED). */
    rc = groupconc_submit(ex, "initech", NULL, park, NULL, NULL);
    for (i = 0; i < 2 && rc == GROUPCONC_OK; i++) rc = groupconc_submit(ex, "initech", NULL, job, NULL, NULL);
    if (rc != GROUPCONC_OK) return rc;
    pthread_mutex_lock(&gate_mu);
    while (parked < 3) pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    return GROUPCONC_OK;
}

/* ---- HTTP: one request, one answer ------------------------------------------------------------ */

static int listen_loopback(int port, int *out_port) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    *out_port = ntohs(a.sin_port);
    return fd;
}

/* Accept one connection (30 s at most), read its request head, answer with the metrics. */
static int serve_one(int lfd, groupconc_executor *ex) {
    struct pollfd p = {lfd, POLLIN, 0};
    char req[2048], *body = NULL, head[256];
    size_t got = 0, needed = 0;
    int fd, rc, ok = 0;
    if (poll(&p, 1, 30000) != 1) return -1;
    fd = accept(lfd, NULL, NULL);
    if (fd < 0) return -1;
    while (got < sizeof req - 1) { /* until the blank line that ends the request head */
        ssize_t n = read(fd, req + got, sizeof req - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n")) break;
    }
    rc = groupconc_prometheus_render(ex, NULL, NULL, 0, &needed); /* measure, then render */
    if (rc == GROUPCONC_ERANGE) {
        needed += 4096; /* room for groups that appear meanwhile */
        body = malloc(needed);
        rc = body ? groupconc_prometheus_render(ex, NULL, body, needed, &needed) : GROUPCONC_ENOMEM;
    }
    if (rc == GROUPCONC_OK && strncmp(req, "GET ", 4) == 0) {
        int n = snprintf(head, sizeof head,
                         "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n", strlen(body));
        ok = write(fd, head, (size_t)n) == n && write(fd, body, strlen(body)) == (ssize_t)strlen(body);
    } else {
        static const char err[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n";
        fprintf(stderr, "render: %s\n", groupconc_prometheus_strerror(rc));
        if (write(fd, err, sizeof err - 1) < 0) perror("write");
    }
    free(body);
    close(fd);
    return ok ? 0 : -1;
}

/* ---- the self-scrape (a client thread) -------------------------------------------------------- */

typedef struct scrape {
    int port;
    char *text; /* the whole response, NUL-terminated */
    size_t len;
} scrape;

static void *scraper(void *arg) {
    scrape *s = (scrape *)arg;
    struct sockaddr_in a;
    static const char get[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n";
    size_t cap = 1 << 16;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)s->port);
    s->text = malloc(cap);
    if (fd < 0 || !s->text || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        write(fd, get, sizeof get - 1) != (ssize_t)(sizeof get - 1)) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    for (;;) {
        ssize_t n;
        if (s->len + 1 == cap) {
            char *bigger = realloc(s->text, cap * 2);
            if (!bigger) break;
            s->text = bigger;
            cap *= 2;
        }
        n = read(fd, s->text + s->len, cap - 1 - s->len);
        if (n <= 0) break;
        s->len += (size_t)n;
    }
    s->text[s->len] = '\0';
    close(fd);
    return NULL;
}

/* The value of the sample line that starts with `series` + ' ', or -1. */
static long long value_of(const char *text, const char *series) {
    size_t n = strlen(series);
    const char *p = text;
    while ((p = strstr(p, series)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ') return strtoll(p + n + 1, NULL, 10);
        p += n;
    }
    return -1;
}

static int check(const char *text, const groupconc_executor_stats *es) {
    struct { const char *series; long long want; } rows[] = {
        {"groupconc_tasks_submitted_total", (long long)es->submitted},
        {"groupconc_tasks_completed_total{outcome=\"succeeded\"}", (long long)es->succeeded},
        {"groupconc_tasks_completed_total{outcome=\"failed\"}", (long long)es->failed},
        {"groupconc_tasks_completed_total{outcome=\"rejected_bulkhead\"}", (long long)es->rejected_bulkhead},
        {"groupconc_running_tasks", (long long)es->running},
        {"groupconc_group_running_tasks{group=\"acme\"}", 2},
        {"groupconc_group_waiting_tasks{group=\"acme\",layer=\"concurrency\"}", 3},
        {"groupconc_group_tasks_completed_total{group=\"globex\",outcome=\"failed\"}", 1},
        {"groupconc_group_tasks_completed_total{group=\"initech\",outcome=\"rejected_bulkhead\"}", 2},
    };
    size_t i;
    int bad = 0;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        long long got = value_of(text, rows[i].series);
        if (got != rows[i].want) {
            printf("  %s: scraped %lld, expected %lld\n", rows[i].series, got, rows[i].want);
            bad = 1;
        }
    }
    return bad;
}

int main(int argc, char **argv) {
    groupconc_policy policy = groupconc_policy_default();
    groupconc_group_limits limits[] = {{"acme", 2, GROUPCONC_DEFAULT, GROUPCONC_DEFAULT, 0},
                                       {"initech", 1, 1, 0, 0}};
    groupconc_executor *ex;
    groupconc_executor_stats es;
    int serve = argc > 1 && strcmp(argv[1], "--serve") == 0;
    int port = serve && argc > 2 ? atoi(argv[2]) : 0, lfd, rc, failed = 0;
    policy.default_concurrency = 4;
    policy.groups = limits;
    policy.group_count = 2;
    policy.rejection = GROUPCONC_REJECT_DISCARD;
    policy.max_threads = 8;
    if ((rc = groupconc_executor_create(&policy, &ex)) != GROUPCONC_OK ||
        (rc = build_state(ex)) != GROUPCONC_OK) {
        printf("setup: %s\n", groupconc_strerror(rc));
        return 1;
    }
    lfd = listen_loopback(port, &port);
    if (lfd < 0) {
        perror("listen on 127.0.0.1");
        return 1;
    }
    printf("listening on 127.0.0.1:%d\n", port);
    fflush(stdout);
    groupconc_executor_stats_get(ex, &es); /* nothing moves until the gate opens */
    if (serve) {
        failed = serve_one(lfd, ex) != 0;
        printf("served one scrape: submitted %llu, succeeded %llu, failed %llu, rejected_bulkhead %llu,"
               " running %zu, waiting %zu\n", (unsigned long long)es.submitted,
               (unsigned long long)es.succeeded, (unsigned long long)es.failed,
               (unsigned long long)es.rejected_bulkhead, es.running, es.waiting);
    } else {
        scrape s = {port, NULL, 0};
        pthread_t th;
        const char *body;
        pthread_create(&th, NULL, scraper, &s);
        failed = serve_one(lfd, ex) != 0;
        pthread_join(th, NULL);
        body = s.text ? strstr(s.text, "\r\n\r\n") : NULL;
        if (failed || !body || strncmp(s.text, "HTTP/1.1 200 OK", 15) != 0) {
            printf("scrape failed\n");
            failed = 1;
        } else {
            body += 4;
            printf("scraped 200 OK, %zu bytes; e.g.:\n", strlen(body));
            printf("  groupconc_tasks_submitted_total %lld\n", value_of(body, "groupconc_tasks_submitted_total"));
            printf("  groupconc_group_running_tasks{group=\"acme\"} %lld\n",
                   value_of(body, "groupconc_group_running_tasks{group=\"acme\"}"));
            printf("  groupconc_group_waiting_tasks{group=\"acme\",layer=\"concurrency\"} %lld\n",
                   value_of(body, "groupconc_group_waiting_tasks{group=\"acme\",layer=\"concurrency\"}"));
            failed = check(body, &es);
            if (!failed)
                printf("values agree with the stats: submitted %llu, succeeded %llu, failed %llu,"
                       " rejected_bulkhead %llu\n", (unsigned long long)es.submitted,
                       (unsigned long long)es.succeeded, (unsigned long long)es.failed,
                       (unsigned long long)es.rejected_bulkhead);
        }
        free(s.text);
    }
    close(lfd);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER);
    groupconc_executor_destroy(ex);
    printf(failed ? "FAILED\n" : "done\n");
    return failed;
}
