/* fleetutil.h - a private redis-server for the fleet tests and the fleet benchmark.

   fu_redis_start() starts `redis-server` (or $GROUPCONC_REDIS_SERVER) on a unix socket in a fresh
   temporary directory, with TCP off (--port 0; or on 127.0.0.1 only, at a port fu_free_port
   picked, when r->tcp_port is set), nothing saved, and waits until it logs that it is
   ready to accept connections (its stdout is a pipe read here: no sleeping, no polling of the
   socket).
   fu_redis_kill() stops it (any signal; SIGKILL for a crash) and reaps it; fu_redis_start() again
   restarts it on the same socket, empty. fu_redis_cleanup() stops it and removes the directory.
   A server that cannot start is an error the caller turns into a failure (never a skip).

   Also: memory shared across fork() (fu_shared_alloc), and a latch and a wait that work across
   processes (process-shared, robust mutex and a CLOCK_MONOTONIC condition variable).

   POSIX only; no cmocka here (the benchmark uses it too). */
#ifndef GROUPCONC_FLEETUTIL_H
#define GROUPCONC_FLEETUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

typedef struct fu_redis {
    pid_t pid;              /* 0: not running */
    char dir[128];          /* the temporary directory ("" before the first start) */
    char sock[192];         /* dir/redis.sock */
    char password[64];      /* "" : no requirepass */
    int tcp_port;           /* > 0: also listen on 127.0.0.1:tcp_port (else TCP is off) */
    char log[2048];         /* what the server printed before it was ready (or failed) */
} fu_redis;

static inline int64_t fu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* Start (or restart, on the same socket) the server; requirepass `password` if not NULL.
   Returns 0, or -1 with the reason in r->log. */
static inline int fu_redis_start(fu_redis *r, const char *password) {
    if (!r->dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(r->dir, sizeof r->dir, "%s/gcfleet.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(r->dir)) {
            snprintf(r->log, sizeof r->log, "mkdtemp %s: %s", r->dir, strerror(errno));
            r->dir[0] = '\0';
            return -1;
        }
        snprintf(r->sock, sizeof r->sock, "%s/redis.sock", r->dir);
    }
    if (password) snprintf(r->password, sizeof r->password, "%s", password);
    const char *server = getenv("GROUPCONC_REDIS_SERVER");
    if (!server || !*server) server = "redis-server";
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->log, sizeof r->log, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->log, sizeof r->log, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        const char *argv[32];
        int a = 0;
        argv[a++] = server;
        char port[16];
        snprintf(port, sizeof port, "%d", r->tcp_port > 0 ? r->tcp_port : 0);
        argv[a++] = "--port";
        argv[a++] = port; /* 0: no TCP at all, the unix socket only */
        argv[a++] = "--bind";
        argv[a++] = "127.0.0.1"; /* loopback only, never another address */
        argv[a++] = "--unixsocket";
        argv[a++] = r->sock;
        argv[a++] = "--unixsocketperm";
        argv[a++] = "700";
        argv[a++] = "--save";
        argv[a++] = "";
        argv[a++] = "--appendonly";
        argv[a++] = "no";
        argv[a++] = "--dir";
        argv[a++] = r->dir;
        argv[a++] = "--daemonize";
        argv[a++] = "no";
        argv[a++] = "--logfile";
        argv[a++] = "";
        argv[a++] = "--loglevel";
        argv[a++] = "notice";
        if (r->password[0]) {
            argv[a++] = "--requirepass";
            argv[a++] = r->password;
        }
        argv[a] = NULL;
        execvp(server, (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", server, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    r->log[0] = '\0';
    bool ready = false;
    int64_t deadline = fu_now_ns() + (int64_t)20 * 1000000000;
    while (!ready) {
        int64_t left = deadline - fu_now_ns();
        if (left <= 0) break;
        struct pollfd p = {fds[0], POLLIN, 0};
        int rc = poll(&p, 1, (int)(left / 1000000) + 1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) break;
        ssize_t n = read(fds[0], r->log + used, sizeof r->log - 1 - used);
        if (n <= 0) break; /* EOF: it exited */
        used += (size_t)n;
        r->log[used] = '\0';
        /* 7.2+: "Ready to accept connections unix"; 7.0 on a socket: "The server is now ready to
           accept connections at <path>" */
        if (strstr(r->log, "eady to accept connections")) ready = true;
        if (used == sizeof r->log - 1) { /* keep the tail */
            memmove(r->log, r->log + used / 2, used - used / 2 + 1);
            used -= used / 2;
        }
    }
    /* Redis ignores SIGPIPE: once the pipe is closed, its later log lines go nowhere. */
    close(fds[0]);
    if (!ready) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    r->pid = pid;
    return 0;
}

/* A free TCP port on 127.0.0.1 (bound, read, closed: another process could take it before the
   server does, which then fails to start and says so). 0 on failure. */
static inline int fu_free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    int port = 0;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

/* Stop the server with `sig` (SIGKILL: a crash) and reap it. */
static inline void fu_redis_kill(fu_redis *r, int sig) {
    if (r->pid <= 0) return;
    kill(r->pid, sig);
    waitpid(r->pid, NULL, 0);
    r->pid = 0;
}

static inline void fu_redis_cleanup(fu_redis *r) {
    char path[256];
    fu_redis_kill(r, SIGKILL);
    if (!r->dir[0]) return;
    unlink(r->sock);
    snprintf(path, sizeof path, "%s/dump.rdb", r->dir);
    unlink(path);
    rmdir(r->dir);
    r->dir[0] = '\0';
}

/* A direct connection for checks (ZCARD, SCRIPT FLUSH); NULL on failure. */
static inline redisContext *fu_redis_connect(const fu_redis *r) {
    struct timeval tv = {5, 0};
    redisContext *c = redisConnectUnixWithTimeout(r->sock, tv);
    if (!c || c->err) {
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    if (r->password[0]) {
        redisReply *rep = (redisReply *)redisCommand(c, "AUTH %s", r->password);
        bool ok = rep && rep->type != REDIS_REPLY_ERROR;
        if (rep) freeReplyObject(rep);
        if (!ok) {
            redisFree(c);
            return NULL;
        }
    }
    return c;
}

/* An integer command's reply (ZCARD key ...), or -1. */
static inline long long fu_redis_int(redisContext *c, const char *fmt, const char *arg) {
    redisReply *rep = (redisReply *)redisCommand(c, fmt, arg);
    long long v = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
    if (rep) freeReplyObject(rep);
    return v;
}

/* ---- memory and synchronisation across fork() ---------------------------------------------------- */

static inline void *fu_shared_alloc(size_t size) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    memset(p, 0, size);
    return p;
}
static inline void fu_shared_free(void *p, size_t size) {
    if (p) munmap(p, size);
}

/* A count-down latch in shared memory. Robust: a process killed while holding the mutex does not
   block the others. */
typedef struct fu_xlatch {
    pthread_mutex_t m;
    pthread_cond_t c;
    long count;
} fu_xlatch;

static inline void fu_xlatch_init(fu_xlatch *l, long count) {
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&l->m, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->c, &ca);
    pthread_condattr_destroy(&ca);
    l->count = count;
}
static inline void fu_xlatch__lock(fu_xlatch *l) {
    if (pthread_mutex_lock(&l->m) == EOWNERDEAD) pthread_mutex_consistent(&l->m);
}
static inline void fu_xlatch_count_down(fu_xlatch *l) {
    fu_xlatch__lock(l);
    if (l->count > 0 && --l->count == 0) pthread_cond_broadcast(&l->c);
    pthread_mutex_unlock(&l->m);
}
static inline void fu_xlatch_open(fu_xlatch *l) {
    fu_xlatch__lock(l);
    l->count = 0;
    pthread_cond_broadcast(&l->c);
    pthread_mutex_unlock(&l->m);
}
/* true when the count reached 0 within timeout_ns. */
static inline bool fu_xlatch_wait_for(fu_xlatch *l, int64_t timeout_ns) {
    int64_t deadline = fu_now_ns() + timeout_ns;
    fu_xlatch__lock(l);
    while (l->count > 0) {
        if (fu_now_ns() >= deadline) break;
        struct timespec ts = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
        if (pthread_cond_timedwait(&l->c, &l->m, &ts) == EOWNERDEAD) pthread_mutex_consistent(&l->m);
    }
    bool done = l->count <= 0;
    pthread_mutex_unlock(&l->m);
    return done;
}

/* Wait until pred(arg) holds, for state that offers no notification (another process's counters,
   a provider's stats): re-checks with naps growing from 100 us to 10 ms. true if it held in time. */
static inline bool fu_wait_until(bool (*pred)(void *), void *arg, int64_t timeout_ns) {
    int64_t deadline = fu_now_ns() + timeout_ns;
    long nap = 100000;
    for (;;) {
        if (pred(arg)) return true;
        if (fu_now_ns() >= deadline) return false;
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        if (nap < 10000000) nap *= 2;
    }
}

#endif /* GROUPCONC_FLEETUTIL_H */
