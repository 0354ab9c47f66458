/* bench_glib.c - the GLib peer: GThreadPool, used as its documentation shows.

   W1 (no per-key limit): g_thread_pool_new(func, NULL, threads, FALSE), one g_thread_pool_push per
   job with the job number as the data pointer (no allocation), and g_thread_pool_free(pool, FALSE,
   TRUE) to wait for all of them.
   Per-key limits (W2-W5, W9): keyed.h under one GMutex. A job is a malloc'd keyed_job pushed to the
   pool when its key is below the cap, else queued in the key's FIFO; the pool function runs it,
   then under the mutex hands the key's slot to the next queued job and pushes that one. Waiting for
   all jobs: a done counter under the same mutex and a GCond. W9 (the crawler): a pool of 16 threads
   (max_threads) is the global running cap, the keyed layer the per-host cap 2. */
#include "bench.h"
#include "keyed.h"

#include <glib.h>

static GThreadPool *pool;
static bench_cfg cfg;
static GMutex mu;
static GCond cv;
static keyed_table table;
static long done_jobs;
static int table_live;

static void plain_fn(gpointer data, gpointer user_data) {
    (void)user_data;
    bench_task_body((long)GPOINTER_TO_SIZE(data) - 1);
}

static void keyed_fn(gpointer data, gpointer user_data) {
    (void)user_data;
    keyed_job *j = data;
    bench_task_body(j->id);
    g_mutex_lock(&mu);
    keyed_job *next = keyed_finish(j->key);
    if (++done_jobs == cfg.expect) g_cond_signal(&cv);
    g_mutex_unlock(&mu);
    free(j);
    if (next) g_thread_pool_push(pool, next, NULL);
}

static int glib_setup(const bench_cfg *c, bench_out *out) {
    cfg = *c;
    done_jobs = 0;
    GError *err = NULL;
    pool = g_thread_pool_new(c->cap ? keyed_fn : plain_fn, NULL, c->threads, FALSE, &err);
    if (!pool) {
        bench_fail(out, "g_thread_pool_new: %s", err ? err->message : "?");
        if (err) g_error_free(err);
        return -1;
    }
    if (c->cap) {
        g_mutex_init(&mu);
        g_cond_init(&cv);
        if (keyed_table_init(&table) != 0) return -1;
        table_live = 1;
    }
    return 0;
}

static int glib_submit(const char *key, long id) {
    if (!cfg.cap) return g_thread_pool_push(pool, GSIZE_TO_POINTER((gsize)(id + 1)), NULL) ? 0 : -1;
    keyed_job *j = malloc(sizeof *j);
    if (!j) return -1;
    j->id = id;
    g_mutex_lock(&mu);
    keyed_key *k = keyed_table_get(&table, key);
    keyed_job *run = k ? keyed_admit(k, j, cfg.cap) : NULL;
    g_mutex_unlock(&mu);
    if (!k) {
        free(j);
        return -1;
    }
    if (run) g_thread_pool_push(pool, run, NULL);
    return 0;
}

static int glib_wait_all(bench_out *out) {
    (void)out;
    if (!cfg.cap) {
        g_thread_pool_free(pool, FALSE, TRUE); /* waits for every queued job */
        pool = NULL;
        return 0;
    }
    g_mutex_lock(&mu);
    while (done_jobs < cfg.expect) g_cond_wait(&cv, &mu);
    g_mutex_unlock(&mu);
    return 0;
}

static long glib_groups(void) { return cfg.cap ? (long)table.count : -1; }

static void glib_teardown(void) {
    if (pool) g_thread_pool_free(pool, FALSE, TRUE);
    pool = NULL;
    if (table_live) {
        keyed_table_free(&table);
        g_mutex_clear(&mu);
        g_cond_clear(&cv);
        table_live = 0;
    }
}

const bench_ops bench_ops_glib = {"GThreadPool", glib_setup, glib_submit, glib_wait_all, NULL,
                                  glib_groups, glib_teardown, NULL, NULL, NULL};
