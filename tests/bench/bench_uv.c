/* bench_uv.c - the libuv peer: uv_queue_work on the process-wide thread pool, sized with
   UV_THREADPOOL_SIZE before the first libuv call (each measurement is its own process).

   W1: one malloc'd uv_work_t per job, uv_queue_work from the loop thread, the after-work callback
   frees it; uv_run returns when every job is done.
   Per-key limits (W2-W5, W9): keyed.h with no lock at all - submissions and after-work callbacks
   both run on the loop thread, which is how a libuv program keeps shared state. A job embeds its
   uv_work_t; its after-work callback hands the key's slot to the next queued job and queues that
   one. W4 and W9 size the pool to the global cap (UV_THREADPOOL_SIZE=64 / 16), so the pool is the
   global running cap and the keyed layer the per-key cap.
   Several submitting threads (W7): uv_queue_work may only be called on the loop thread, so the
   submitters do what a libuv program does: append the job to a mutex-protected list and
   uv_async_send; the loop thread (serve: uv_run) takes the list in its async callback and queues
   the jobs (through the keyed layer for W7b). */
#include "bench.h"
#include "keyed.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

typedef struct uv_job {
    keyed_job base;
    uv_work_t req;
} uv_job;

#define JOB_OF(r) ((uv_job *)(void *)((char *)(r)-offsetof(uv_job, req)))

static uv_loop_t loop;
static int loop_live;
static bench_cfg cfg;
static keyed_table table;
static int table_live;
static long done_jobs;
static int queue_err;
/* several submitters */
static uv_async_t async;
static int async_live;
static pthread_mutex_t pend_mu = PTHREAD_MUTEX_INITIALIZER;
static keyed_job *pend_head, *pend_tail; /* jobs of uv_job, key name in req.data */
static int submitters_done;

static void plain_work(uv_work_t *req) { bench_task_body((long)(intptr_t)req->data); }

static void plain_after(uv_work_t *req, int status) {
    if (status != 0) queue_err = status;
    done_jobs++;
    free(req);
}

static void keyed_work(uv_work_t *req) { bench_task_body(JOB_OF(req)->base.id); }

static void keyed_after(uv_work_t *req, int status);

static int queue_job(uv_job *j) { return uv_queue_work(&loop, &j->req, keyed_work, keyed_after); }

static void keyed_after(uv_work_t *req, int status) {
    uv_job *j = JOB_OF(req);
    if (status != 0) queue_err = status;
    keyed_job *next = keyed_finish(j->base.key);
    done_jobs++;
    free(j);
    if (next) {
        int rc = queue_job((uv_job *)(void *)next);
        if (rc != 0) queue_err = rc;
    }
}

static void job_after(uv_work_t *req, int status) { /* a plain job queued by the async path */
    if (status != 0) queue_err = status;
    done_jobs++;
    free(JOB_OF(req));
}

/* On the loop thread: queue a job that a submitting thread handed over. */
static void hand_on(uv_job *j) {
    int rc = 0;
    if (!cfg.cap) {
        rc = uv_queue_work(&loop, &j->req, keyed_work, job_after);
    } else {
        keyed_key *k = keyed_table_get(&table, (const char *)j->req.data);
        if (!k)
            rc = UV_ENOMEM;
        else if (keyed_admit(k, &j->base, cfg.cap))
            rc = queue_job(j);
    }
    if (rc != 0) queue_err = rc;
}

static void async_cb(uv_async_t *h) {
    (void)h;
    pthread_mutex_lock(&pend_mu);
    keyed_job *list = pend_head;
    pend_head = pend_tail = NULL;
    int all_done = submitters_done == cfg.submitters;
    pthread_mutex_unlock(&pend_mu);
    while (list) {
        keyed_job *next = list->next;
        hand_on((uv_job *)(void *)list);
        list = next;
    }
    if (all_done && async_live) { /* nothing more will come: let uv_run end when the work does */
        uv_close((uv_handle_t *)&async, NULL);
        async_live = 0;
    }
}

static int uv_setup(const bench_cfg *c, bench_out *out) {
    cfg = *c;
    done_jobs = 0;
    queue_err = 0;
    char size[16];
    snprintf(size, sizeof size, "%d", c->threads);
    setenv("UV_THREADPOOL_SIZE", size, 1); /* read once, at the first uv_queue_work */
    int rc = uv_loop_init(&loop);
    if (rc != 0) {
        bench_fail(out, "uv_loop_init: %s", uv_strerror(rc));
        return rc;
    }
    loop_live = 1;
    if (c->submitters > 1) {
        pend_head = pend_tail = NULL;
        submitters_done = 0;
        rc = uv_async_init(&loop, &async, async_cb);
        if (rc != 0) {
            bench_fail(out, "uv_async_init: %s", uv_strerror(rc));
            return rc;
        }
        async_live = 1;
    }
    if (c->cap) {
        if (keyed_table_init(&table) != 0) return -1;
        table_live = 1;
    }
    return 0;
}

static int uv_submit(const char *key, long id) {
    if (cfg.submitters > 1) { /* from any thread: hand the job to the loop */
        uv_job *j = malloc(sizeof *j);
        if (!j) return -1;
        j->base.id = id;
        j->base.next = NULL;
        j->req.data = (void *)(uintptr_t)key; /* the caller's key strings outlive the run */
        pthread_mutex_lock(&pend_mu);
        if (pend_tail)
            pend_tail->next = &j->base;
        else
            pend_head = &j->base;
        pend_tail = &j->base;
        pthread_mutex_unlock(&pend_mu);
        return uv_async_send(&async);
    }
    if (!cfg.cap) {
        uv_work_t *req = malloc(sizeof *req);
        if (!req) return -1;
        req->data = (void *)(intptr_t)id;
        int rc = uv_queue_work(&loop, req, plain_work, plain_after);
        if (rc != 0) free(req);
        return rc;
    }
    uv_job *j = malloc(sizeof *j);
    if (!j) return -1;
    j->base.id = id;
    keyed_key *k = keyed_table_get(&table, key);
    if (!k) {
        free(j);
        return -1;
    }
    if (keyed_admit(k, &j->base, cfg.cap)) return queue_job(j);
    return 0;
}

static int uv_wait_all(bench_out *out) {
    int rc = uv_run(&loop, UV_RUN_DEFAULT); /* returns when no request is pending */
    if (queue_err != 0) {
        bench_fail(out, "uv_queue_work: %s", uv_strerror(queue_err));
        return queue_err;
    }
    if (done_jobs != cfg.expect) {
        bench_fail(out, "uv_run returned %d with %ld of %ld jobs done", rc, done_jobs, cfg.expect);
        return -1;
    }
    return 0;
}

static void uv_submitter_done(void) {
    pthread_mutex_lock(&pend_mu);
    submitters_done++;
    pthread_mutex_unlock(&pend_mu);
    uv_async_send(&async);
}

/* W7: the loop, while the submitting threads run; returns when they are done and all work is. */
static int uv_serve(bench_out *out) {
    (void)out;
    uv_run(&loop, UV_RUN_DEFAULT);
    return 0;
}

static long uv_groups(void) { return cfg.cap ? (long)table.count : -1; }

static void uv_teardown(void) {
    if (loop_live) {
        if (async_live) {
            uv_close((uv_handle_t *)&async, NULL);
            async_live = 0;
        }
        uv_run(&loop, UV_RUN_DEFAULT);
        uv_loop_close(&loop);
        loop_live = 0;
    }
    if (table_live) {
        keyed_table_free(&table);
        table_live = 0;
    }
}

const bench_ops bench_ops_uv = {"libuv",     uv_setup,    uv_submit, uv_wait_all,
                                NULL,        uv_groups,   uv_teardown, NULL,
                                uv_serve,    uv_submitter_done};
