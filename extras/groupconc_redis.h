/* groupconc_redis.h - v1.0.0 - fleet-wide per-group caps for groupconc, kept in Redis - MIT license
                                 (full text at end)

   "Tenant X: at most 20 calls at once to the payments backend, across every instance of the
   service." groupconc.h caps a group inside one process; this header is a fleet provider (section
   [10] of groupconc.h) that holds each group's cap across processes and machines, in a Redis server
   they share. It needs hiredis (Debian libhiredis-dev; it uses only calls that 0.14 and 1.x share,
   tested with 0.14.1) and POSIX threads; groupconc.h itself stays free of both.

   QUICK START
       // in exactly one .c file (groupconc.h's directory on the include path):
       #define GROUPCONC_IMPLEMENTATION
       #include "groupconc.h"
       #define GROUPCONC_REDIS_IMPLEMENTATION
       #include "extras/groupconc_redis.h"
       // link with -lhiredis -lpthread

       groupconc_redis_config rc = groupconc_redis_config_default();
       rc.unix_path = "/run/redis/redis.sock";        // or rc.host / rc.port
       rc.default_cap = 20;                           // per group, across the fleet
       groupconc_redis *redis;
       groupconc_redis_create(&rc, &redis);
       groupconc_policy policy = groupconc_policy_default();
       groupconc_redis_provider(redis, &policy.fleet);
       groupconc_executor *ex;
       groupconc_executor_create(&policy, &ex);       // the provider learns of ex (attach)
       ... groupconc_submit(ex, "tenant-x", ...) as usual ...
       groupconc_executor_destroy(ex);                // every lease back; the provider lets go
       groupconc_redis_destroy(redis);
   (examples/10_fleet.c: two processes sharing one tenant cap, with a merged timeline.)

   CONTENTS
       CONFIGURATION, MODEL, REDIS KEY LAYOUT, FAILURES, THREADS AND CALLBACKS, ERRORS, LIMITATIONS
       [1] error codes  [2] configuration  [3] lifecycle  [4] stats  [5] diagnostics
       Implementation sections: grep -n '====' extras/groupconc_redis.h

   CONFIGURATION
       macro                           where     default       effect
       GROUPCONC_REDIS_IMPLEMENTATION  one TU    -             compile the implementation here
       GROUPCONC_REDIS_STATIC          every TU  -             make every function static
       GROUPCONC_REDIS_API             every TU  extern        decoration of public declarations
       GROUPCONC_REDIS_MALLOC(sz)      impl TU   malloc(sz)    allocator; define MALLOC and FREE
       GROUPCONC_REDIS_FREE(p)         impl TU   free(p)         together or neither (hiredis
                                                                 keeps its own allocator)
       GROUPCONC_REDIS_MAX_KEY_LEN     impl TU   256           longest key in the caps table, bytes
                                                               (keep it >= groupconc's MAX_KEY_LEN)
       GROUPCONC_REDIS_MAX_PREFIX_LEN  every TU  128           longest key prefix, bytes
       GROUPCONC_REDIS_POLL_GROUPS     impl TU   1024          groups the polling fallback names one
                                                               by one; beyond it, it notifies all
       GROUPCONC_REDIS_CHUNK           impl TU   512           most leases one script call carries
       GROUPCONC_REDIS_TEST_ANSWERS(r) impl TU   nothing       test hook: called on provider r's I/O
                                                               thread before it delivers a round
                                                               trip's answers (none held)
   The implementation TU needs the POSIX declarations: compile it with _POSIX_C_SOURCE >= 200809L
   (or _DEFAULT_SOURCE / _GNU_SOURCE), as groupconc.h's own tests and examples do.

   MODEL
       Lease        a task of a capped group runs only while it holds a lease of that group: a member
                    of the group's sorted set in Redis whose score is its expiry (Redis's clock, ms).
                    A group's cap is the most members the set may hold; expired members do not count.
       Acquire      the executor asks when a task holds its group's permits (global in-flight,
                    bulkhead, concurrency; before the global running cap: groupconc.h [10]).
                    The provider never blocks there: it queues the ask for its I/O thread, which
                    sends every queued ask, release and renewal in one pipelined round trip - one
                    script call per group and kind, carrying up to GROUPCONC_REDIS_CHUNK leases - and
                    answers each ask: GRANTED (a lease), or BUSY (the set is full: the task waits in
                    its group's FIFO, a queue node without a thread).
       Atomic       every decision is one Lua script run inside Redis (EVALSHA, scripts loaded with
                    SCRIPT LOAD on each connect; EVAL once after a NOSCRIPT reply), on Redis's clock
                    (redis.call('TIME')): host clocks and their skew play no part.
       Caps         passed by the caller in every script call: every process of the fleet must
                    configure the same cap for a group (the table, then default_cap). A group whose
                    cap is GROUPCONC_UNLIMITED is granted at once, without Redis.
       Renewal      every renew_interval_ns (at most a third of the TTL) the I/O thread extends every
                    lease it holds to now + TTL, in the same kind of round trip. A process that dies
                    stops renewing: its leases expire within one TTL and others take over.
       TTL sizing   a live process that stops longer than the TTL (swap, SIGSTOP or a debugger, VM
                    live migration, a frozen container: no GC here, but the process can still stop)
                    loses its leases like a dead one: another process takes the capacity, and on
                    resume the renewal adds the old leases back, so both run until one finishes (the
                    cap is exceeded meanwhile). The stalled process reports it: one
                    GROUPCONC_EVENT_FLEET with GROUPCONC_EFLEET_RENEW per lease (fleet_renew_failed)
                    and stats.leases_restored. Set lease_ttl_ns above the longest such stall; a
                    longer TTL only delays the take-over after a crash (TTL + poll interval).
       Release      a task's end gives its lease back (ZREM). When that takes a full set below its
                    cap (or leaves it below its cap while processes wait in its queue), the script
                    PUBLISHes "<free>:<group>" on the fleet's channel; every process
                    subscribed there (a second connection, its own thread) that has tasks of that
                    group answered BUSY calls groupconc_fleet_notify for the group once per freed
                    lease, and the executor asks again for that many of them, oldest first. A release
                    also notifies its own process at once (no wait for the round trip through
                    pub/sub), and a grant that leaves slots free notifies once per free slot.
       Polling      leases that expire (a crashed process) announce nothing, and a message can be
                    lost while a connection is down: every poll_interval_ns the provider notifies
                    each contended group (one answered BUSY, until a poll finds none of its tasks
                    waiting) once; past GROUPCONC_REDIS_POLL_GROUPS of them, every group at once
                    (NULL). A grant then notifies once per slot still free. This bounds any missed
                    wake-up to one poll interval and a round trip per freed slot.
       Fairness     (fifo, the default) processes take a group's freed capacity in the order they
                    started waiting for it: an ask answered BUSY puts its process in the group's
                    wait queue in Redis (once per process, keeping its place), and a grant leaves one
                    slot for each process waiting ahead of the asker - so a process whose next ask
                    rides in the same round trip as its release cannot keep the slot from one that
                    waits. A process leaves the queue when all its asks are granted, when a notify
                    or a poll finds no task of the group to ask (its waiters completed, were
                    cancelled, expired or shut down, or the group is paused: a paused group asks
                    nothing and holds no lease; a notify that comes while an ask or answer of
                    this process is on its way is judged once the answers are in, so a task that
                    left while its ask was out keeps no place), or at destroy; leaving publishes
                    the slot kept for it ("<free>:<group>") when the set is below its cap and
                    others wait. One not seen (no ask) for two poll intervals and a command
                    timeout is dropped (a crashed waiter). Inside a process the executor keeps its
                    own FIFO.
       Timeline     a process killed while holding leases: its capacity comes back at most one TTL
                    after its last renewal, and waiting processes ask again within one poll interval
                    after that: TTL + poll interval + a round trip or two after the kill.

   REDIS KEY LAYOUT (prefix = key_prefix, default "groupconc:")
       <prefix>lease:<group>  sorted set: member = lease id "<host>/<pid>/<random>/<seq>",
                              score = expiry in ms on Redis's clock. The key expires (PEXPIRE) when
                              its newest lease would, so an idle group leaves nothing behind.
       <prefix>wait:<group>   sorted set (fifo): member = "<host>/<pid>/<random>/" of a waiting
                              process, score = its place: when it started waiting (us, Redis's
                              clock; past the last place if that is later)
       <prefix>seen:<group>   sorted set (fifo): the same members, score = their last ask (ms);
                              both expire (PEXPIRE) two stale periods after the last wait
       <prefix>freed          pub/sub channel: message "<free>:<group>" when a release took the
                              group's set from full to below its cap, or left it below its cap
                              with processes waiting, or a waiting process left the queue while
                              the set is below its cap (free: the slots now open).
       Nothing else is written. The acquire script touches a group's three keys, the others one or
       two: under Redis Cluster they would have to share a hash slot (not supported: one address).
       Inspect with
           redis-cli ZRANGE groupconc:lease:tenant-x 0 -1 WITHSCORES

   FAILURES (Redis unreachable, an error reply, a command timeout)
       failure policy               an ask that cannot reach Redis is answered
       GROUPCONC_REDIS_FAIL_CLOSED_WAIT    BUSY: the task waits; the provider reconnects with capped
       (the default)                       exponential backoff (backoff_min_ns doubling up to
                                           backoff_max_ns, +-20% jitter), then notifies every group
       GROUPCONC_REDIS_FAIL_CLOSED_REJECT  REJECT: the task completes REJECTED with
                                           GROUPCONC_EREJECTED_FLEET (through the rejection policy;
                                           under GROUPCONC_REJECT_CALLER_RUNS it fires REJECTED with
                                           that reason, then runs holding no lease, counted in the
                                           executor's caller_runs and by its final status;
                                           fail_rejected counts the refusals)
       GROUPCONC_REDIS_FAIL_OPEN           OPEN: the task runs on the local caps alone, holding no
                                           lease; the executor counts it (fleet_open) and reports
                                           GROUPCONC_EVENT_FLEET with GROUPCONC_EFLEET_OPEN
       While Redis is known to be down, asks are answered at once, inside the executor's call, by
       that table. Asks already sent when a connection fails are answered by it too; their lease ids
       are removed from Redis after the reconnect (they may have been granted). Releases wait in the
       queue and are sent after the reconnect (a lease nobody releases expires after its TTL anyway).
       A renewal that fails (no connection, an error reply), or that finds its lease gone (Redis
       restarted empty, or the process stalled past the TTL) is reported per lease with
       groupconc_fleet_report(ex, group, GROUPCONC_EFLEET_RENEW) and counted; the task keeps running.
       A lease found gone is added back, so after Redis restarts empty the sets hold every running
       lease again within one renew interval of the reconnect: caps hold again for new grants within
       one TTL (tasks granted meanwhile by the empty server may exceed the cap until they finish; a
       running task is never stopped).
       Every ask the provider accepted is answered, whatever Redis does: groupconc_executor_destroy
       waits for that.

   THREADS AND CALLBACKS
       Every function is thread-safe, except groupconc_redis_destroy, which must run after
       groupconc_executor_destroy of the executor using the provider, and not concurrently with any
       other call on the provider.
       One provider serves one executor at a time: the executor hands itself over when it is
       created (the provider's attach callback) and takes itself back at the end of
       groupconc_executor_destroy (detach, which waits until no thread of the provider is inside a
       call into it); a second executor created with the same provider while the first lives is
       refused: its groupconc_executor_create returns GROUPCONC_EBUSY (one provider per executor).
       The provider runs two threads: the I/O thread (asks, releases, renewals, polling) and the
       subscriber thread (pub/sub). Both call groupconc_fleet_answer / _notify / _report, so what
       those lead to runs there: the executor's listener, rejection handler, completion callbacks
       and cleanups, and the next asks. Such callbacks must not block for long (they delay every
       admission of this process) and must not call groupconc_redis_destroy. Neither thread holds a
       lock of the provider while it calls into groupconc. They run with SIGPIPE blocked (a write to
       a server that went away fails with EPIPE); the process's own SIGPIPE handling is untouched.
       fork(): create the provider (and the executor) in the process that uses it, after fork.

   ERRORS
       Functions that can fail return GROUPCONC_OK (0) or a negative code: groupconc.h's codes
       (GROUPCONC_EINVAL, ELIMIT, EKEYEMPTY, EKEYTOOLONG, EDUPKEY, ENOMEM, ETHREAD, ETIMEDOUT) and this
       header's own GROUPCONC_REDIS_E* codes (section [1]), which never overlap them.
       groupconc_redis_strerror / groupconc_redis_errname describe both. Problems talking to Redis are
       not API errors: they go to the failure policy, the stats (last_error) and the listener.

   LIMITATIONS
       - The order across the fleet is per process, not per task: the queue in Redis orders waiting
         processes (each keeps one place per group); inside a process the executor's FIFO orders
         its tasks. With fifo = false, the first ask to reach Redis wins (and a process with a
         steady load can keep a group's slots from the others).
       - A waiting process that crashes holds its place for up to two poll intervals and a command
         timeout (stale_ms): slots freed meanwhile go to processes behind it only after that.
       - Freed capacity is announced to every process with waiters; each asks once per freed lease,
         so with P processes waiting on one group a freed lease costs up to P asks (one wins).
       - Caps are not stored in Redis: processes configured with different caps for one group each
         enforce their own against the same set.
       - Sentinel / Cluster are not supported (one address); TLS is not supported (hiredis 0.14 has
         none): use a unix socket, a loopback address or a TLS tunnel.
       - A lease outlives a stalled process by at most one TTL; a process stalled longer (SIGSTOP, a
         VM pause) finds its leases gone, adds them back and reports it (EFLEET_RENEW,
         leases_restored) - meanwhile others may have taken the capacity, and both run until one
         finishes: size the TTL above the longest stall (MODEL, TTL sizing).
       - POSIX only (pthreads, poll, pipes).
*/
#ifndef GROUPCONC_REDIS_H_INCLUDED
#define GROUPCONC_REDIS_H_INCLUDED

#include "groupconc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GROUPCONC_REDIS_VERSION_STRING "1.0.0"

#ifndef GROUPCONC_REDIS_API
#if defined(GROUPCONC_REDIS_STATIC)
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_REDIS_API static __attribute__((unused))
#else
#define GROUPCONC_REDIS_API static
#endif
#else
#define GROUPCONC_REDIS_API extern
#endif
#endif

#ifndef GROUPCONC_REDIS_MAX_PREFIX_LEN
#define GROUPCONC_REDIS_MAX_PREFIX_LEN 128
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- [1] error codes ---------------------------------------------------------------------------
   This header's own codes, beside groupconc.h's (which it returns too, with their meaning). One
   list yields the enum, groupconc_redis_strerror() and groupconc_redis_errname(). Never renumbered. */
#define GROUPCONC_REDIS_ERRNO_MAP(X)                                                                  \
    X(EADDRESS, -1001, "bad Redis address: unix_path empty or too long for a socket path, host empty, or port outside 1..65535") \
    X(EFAILURE, -1002, "unknown failure policy value")                                                \
    X(EPREFIX, -1003, "key prefix longer than GROUPCONC_REDIS_MAX_PREFIX_LEN")                        \
    X(ECREDENTIALS, -1004, "bad credentials: an empty password, or a username without a password")

typedef enum groupconc_redis_error {
#define GROUPCONC_REDIS__ERR_ENUM(name, value, text) GROUPCONC_REDIS_##name = (value),
    GROUPCONC_REDIS_ERRNO_MAP(GROUPCONC_REDIS__ERR_ENUM)
#undef GROUPCONC_REDIS__ERR_ENUM
} groupconc_redis_error;

/* ---- [2] configuration ------------------------------------------------------------------------- */

typedef enum groupconc_redis_failure {
    GROUPCONC_REDIS_FAIL_CLOSED_WAIT = 0, /* answer BUSY; reconnect with backoff; then notify all */
    GROUPCONC_REDIS_FAIL_CLOSED_REJECT,   /* answer REJECT: GROUPCONC_EREJECTED_FLEET */
    GROUPCONC_REDIS_FAIL_OPEN             /* answer OPEN: local caps alone, counted and reported */
} groupconc_redis_failure;

/* One entry of the per-group caps table. */
typedef struct groupconc_redis_cap {
    const char *group;   /* key (copied at create) */
    int cap;             /* >= 1: leases at once across the fleet; or GROUPCONC_UNLIMITED (no fleet
                            cap: granted at once, without Redis) */
} groupconc_redis_cap;

typedef struct groupconc_redis_config {
    const char *unix_path;        /* Redis unix socket; when set, host and port are ignored;
                                     default NULL (TCP) */
    const char *host;             /* TCP host (name or address); default "127.0.0.1" */
    int port;                     /* 1..65535; default 6379 */
    const char *username;         /* AUTH username (Redis 6 ACL); NULL: none; default NULL */
    const char *password;         /* AUTH password; NULL: no AUTH; default NULL */
    const char *key_prefix;       /* prepended to every key and the channel (copied; may be "");
                                     NULL: the default, "groupconc:" */
    int default_cap;              /* cap of a group not in the table: >= 1, or GROUPCONC_UNLIMITED
                                     (only the table's groups are fleet-capped); default 1 */
    const groupconc_redis_cap *caps; /* per-group caps (copied); default NULL */
    size_t cap_count;             /* entries in caps; default 0 */
    int64_t lease_ttl_ns;         /* a lease not renewed expires after this; 10 ms .. 1 day, whole
                                     ms (rounded up); default 10 s. Keep it above the longest stall
                                     of a live process (swap, SIGSTOP, VM migration): a holder
                                     stopped longer loses its leases to others, and both run after
                                     it resumes (EFLEET_RENEW, leases_restored; MODEL, TTL sizing) */
    int64_t renew_interval_ns;    /* leases are renewed this often: > 0 and <= lease_ttl_ns / 3; 0:
                                     lease_ttl_ns / 3; default 0 */
    int64_t poll_interval_ns;     /* polling fallback: >= 1 ms; default 1 s */
    int64_t connect_timeout_ns;   /* >= 1 ms; default 1 s */
    int64_t command_timeout_ns;   /* one round trip at most (else the connection counts as down);
                                     >= 1 ms; default 1 s */
    int64_t backoff_min_ns;       /* first reconnect delay: >= 1 ms; default 50 ms */
    int64_t backoff_max_ns;       /* longest reconnect delay: >= backoff_min_ns; default 2 s */
    groupconc_redis_failure on_failure; /* default GROUPCONC_REDIS_FAIL_CLOSED_WAIT */
    int batch_max;                /* most asks sent in one round trip: >= 1; default 1024 */
    bool fifo;                    /* processes take a group's freed capacity in the order they
                                     started waiting (a queue per group in Redis); false: the
                                     first ask to reach Redis wins; default true */
} groupconc_redis_config;

/* groupconc_redis_config_default: the defaults listed in groupconc_redis_config.
   Returns:       the configuration (start from it: a zeroed one is invalid).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_REDIS_API groupconc_redis_config groupconc_redis_config_default(void);

/* What is wrong with a configuration (groupconc_redis_config_check). */
typedef struct groupconc_redis_problem {
    int code;            /* the code groupconc_redis_create would return (GROUPCONC_OK if none) */
    char field[48];      /* e.g. "lease_ttl_ns", "caps[2].cap"; "" if none */
    char message[192];   /* one line for a log */
} groupconc_redis_problem;

/* groupconc_redis_config_check: validate `config` as groupconc_redis_create does, and name the first
   wrong field (address, credentials, prefix, default_cap, the times, on_failure, batch_max, then
   the table in order).
   Params:        out_problem may be NULL (then only the code is returned).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (config NULL, caps NULL with cap_count > 0, a table
                  key NULL); GROUPCONC_REDIS_EADDRESS; GROUPCONC_REDIS_ECREDENTIALS;
                  GROUPCONC_REDIS_EPREFIX; GROUPCONC_ELIMIT (a number out of range);
                  GROUPCONC_REDIS_EFAILURE; GROUPCONC_EKEYEMPTY / EKEYTOOLONG (a table key);
                  GROUPCONC_EDUPKEY (a key twice). out_problem->code is the same.
   Thread safety: any thread; reads the configuration only.
   Callbacks:     may be called anywhere. */
GROUPCONC_REDIS_API int groupconc_redis_config_check(const groupconc_redis_config *config,
                                                     groupconc_redis_problem *out_problem);

/* ---- [3] lifecycle ----------------------------------------------------------------------------- */

typedef struct groupconc_redis groupconc_redis; /* one provider: one executor, one Redis */

/* groupconc_redis_create: validate and copy `config`, start the I/O and subscriber threads, which
   connect to Redis in the background (an unreachable Redis is not an error here: asks meet the
   failure policy until it is reachable).
   Returns:       GROUPCONC_OK (*out set; else *out is NULL); every code of
                  groupconc_redis_config_check; GROUPCONC_EINVAL (out NULL); GROUPCONC_ENOMEM;
                  GROUPCONC_ETHREAD (a thread or the wake-up pipe could not be made).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_REDIS_API int groupconc_redis_create(const groupconc_redis_config *config,
                                               groupconc_redis **out);

/* groupconc_redis_provider: the provider to put in policy.fleet before groupconc_executor_create
   (acquire, release, attach and detach: the executor tells the provider when it may and when it
   must no longer call groupconc_fleet_notify / _report on it).
   Returns:       GROUPCONC_OK (*out_provider filled); GROUPCONC_EINVAL (an argument NULL).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_REDIS_API int groupconc_redis_provider(groupconc_redis *redis,
                                                 groupconc_fleet_provider *out_provider);

/* groupconc_redis_wait_ready: wait until the command connection is up (connected, authenticated,
   scripts loaded). It does not wait for the pub/sub connection (groupconc_redis_stats.subscribed):
   until that is up, a task waiting for a fleet slot hears of a freed one when it comes up (every
   task answered BUSY is asked again then: groupconc_fleet_notify with NULL) or at its poll, not at
   once.
   Params:        timeout_ns: 0 polls; GROUPCONC_FOREVER (any negative value): no limit.
   Returns:       GROUPCONC_OK (up now; it may go down any time); GROUPCONC_ETIMEDOUT;
                  GROUPCONC_EINVAL (redis NULL).
   Thread safety: any thread.
   Callbacks:     do not wait from the executor's callbacks: they may run on the I/O thread. */
GROUPCONC_REDIS_API int groupconc_redis_wait_ready(groupconc_redis *redis, int64_t timeout_ns);

/* groupconc_redis_destroy: stop the threads (sending the releases still queued, if Redis is up),
   answer by the failure policy any ask still queued (GROUPCONC_REDIS_FAIL_CLOSED_WAIT answers
   REJECT here: nothing would notify it), close the connections, free everything. Leases still
   held expire in Redis after their TTL.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (redis NULL); GROUPCONC_EBUSY (an executor created
                  with this provider is not destroyed yet: nothing is done, destroy it first).
   Thread safety: after groupconc_executor_destroy of the executor using the provider (it makes no
                  more calls into it); no other call on `redis` concurrently. It waits at
                  most one connect or command timeout for a thread in a round trip.
   Callbacks:     not from the executor's callbacks (they may run on the provider's threads). */
GROUPCONC_REDIS_API int groupconc_redis_destroy(groupconc_redis *redis);

/* ---- [4] stats --------------------------------------------------------------------------------- */

typedef struct groupconc_redis_stats {
    bool connected;             /* the command connection is up (scripts loaded) */
    bool subscribed;            /* the pub/sub connection is up */
    size_t leases_held;         /* leases this process holds now */
    size_t queued;              /* asks, releases and clean-ups waiting for the next round trip */
    /* Totals since create. */
    uint64_t acquires;          /* asks from the executor */
    uint64_t grants;            /* GRANTED answers with a lease (Redis said yes) */
    uint64_t unlimited;         /* GRANTED at once: the group has no fleet cap */
    uint64_t busy;              /* BUSY answers: the group's set was full */
    uint64_t releases;          /* leases given back by the executor */
    uint64_t releases_gone;     /* a release found its lease gone already (expired, lost) */
    uint64_t round_trips;       /* pipelined round trips of the I/O thread */
    uint64_t commands;          /* commands sent in them (commands / round_trips: per round trip) */
    uint64_t noscript;          /* script calls resent with EVAL after a NOSCRIPT reply */
    uint64_t renewals;          /* leases renewed (every TTL/3, and once at each (re)connect) */
    uint64_t renew_failed;      /* renewals that failed or found the lease gone (each reported as
                                   GROUPCONC_EFLEET_RENEW) */
    uint64_t leases_restored;   /* of those, leases found gone and added back */
    uint64_t connects;          /* command connections made (the first one included) */
    uint64_t reconnects;        /* of those, after a failure */
    uint64_t connect_failures;  /* connect / AUTH / SCRIPT LOAD attempts that failed */
    uint64_t failures;          /* round trips that failed (connection lost, timeout, error reply) */
    uint64_t fail_open;         /* OPEN answers (FAIL_OPEN) */
    uint64_t fail_rejected;     /* REJECT answers (FAIL_CLOSED_REJECT, or any policy at destroy) */
    uint64_t fail_waited;       /* BUSY answers because Redis was unreachable (FAIL_CLOSED_WAIT) */
    uint64_t notify_pubsub;     /* groupconc_fleet_notify calls: a pub/sub message */
    uint64_t notify_local;      /* ... a local release */
    uint64_t notify_poll;       /* ... the polling fallback (a group, or all) */
    uint64_t notify_reconnect;  /* ... a (re)connect: all groups */
    char last_error[128];       /* the last problem with Redis ("" if none yet): for a log. Kept
                                   after recovery: `connected` says whether Redis is up now */
} groupconc_redis_stats;

/* groupconc_redis_stats_get: a snapshot of the provider's state and totals.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (an argument NULL).
   Thread safety: any thread.
   Callbacks:     may be called anywhere. */
GROUPCONC_REDIS_API int groupconc_redis_stats_get(groupconc_redis *redis,
                                                  groupconc_redis_stats *out_stats);

/* ---- [5] diagnostics --------------------------------------------------------------------------- */

/* groupconc_redis_strerror: the message of this header's codes and of groupconc.h's.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_REDIS_API const char *groupconc_redis_strerror(int code);

/* groupconc_redis_errname: "GROUPCONC_REDIS_EADDRESS", or groupconc_errname's answer.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_REDIS_API const char *groupconc_redis_errname(int code);

/* groupconc_redis_failure_name: "FAIL_CLOSED_WAIT", "FAIL_CLOSED_REJECT", "FAIL_OPEN"; "UNKNOWN".
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere. */
GROUPCONC_REDIS_API const char *groupconc_redis_failure_name(groupconc_redis_failure failure);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GROUPCONC_REDIS_H_INCLUDED */

/* ================================================================================================
   IMPLEMENTATION
   ================================================================================================ */
#if defined(GROUPCONC_REDIS_IMPLEMENTATION) && !defined(GROUPCONC_REDIS_IMPLEMENTATION_INCLUDED)
#define GROUPCONC_REDIS_IMPLEMENTATION_INCLUDED

#if defined(__cplusplus)
#error "groupconc_redis.h: compile the implementation as C (C11), not C++"
#endif

/* ==== configuration ==== */

#if defined(GROUPCONC_REDIS_MALLOC) != defined(GROUPCONC_REDIS_FREE)
#error "groupconc_redis.h: define GROUPCONC_REDIS_MALLOC and GROUPCONC_REDIS_FREE together, or neither"
#endif
#ifndef GROUPCONC_REDIS_MALLOC
#define GROUPCONC_REDIS_MALLOC(sz) malloc(sz)
#define GROUPCONC_REDIS_FREE(p) free(p)
#endif
#ifndef GROUPCONC_REDIS_MAX_KEY_LEN
#define GROUPCONC_REDIS_MAX_KEY_LEN 256
#endif
#ifndef GROUPCONC_REDIS_POLL_GROUPS
#define GROUPCONC_REDIS_POLL_GROUPS 1024
#endif
#ifndef GROUPCONC_REDIS_CHUNK
#define GROUPCONC_REDIS_CHUNK 512
#endif
#ifndef GROUPCONC_REDIS_TEST_ANSWERS /* a test holds the answers here (none delivered yet) */
#define GROUPCONC_REDIS_TEST_ANSWERS(r) ((void)0)
#endif
#if GROUPCONC_REDIS_MAX_KEY_LEN < 1
#error "GROUPCONC_REDIS_MAX_KEY_LEN must be >= 1"
#endif
#if GROUPCONC_REDIS_MAX_PREFIX_LEN < 0
#error "GROUPCONC_REDIS_MAX_PREFIX_LEN must be >= 0"
#endif
#if GROUPCONC_REDIS_POLL_GROUPS < 1
#error "GROUPCONC_REDIS_POLL_GROUPS must be >= 1"
#endif
#if GROUPCONC_REDIS_CHUNK < 1
#error "GROUPCONC_REDIS_CHUNK must be >= 1"
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_REDIS__PRIVATE static __attribute__((unused))
#else
#define GROUPCONC_REDIS__PRIVATE static
#endif

/* ==== Lua scripts ====
   Each runs atomically inside Redis, on Redis's clock. `now` is ms. Older servers (< 5) replicate
   scripts verbatim and refuse writes after TIME unless told to replicate effects: hence the first
   line (a no-op since Redis 7). */

#define GROUPCONC_REDIS__LUA_NOW                                                                    \
    "if redis.replicate_commands then redis.replicate_commands() end\n"                           \
    "local t = redis.call('TIME')\n"                                                                \
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"

/* acquire: KEYS: lease set, wait queue, last-seen set; ARGV: cap, ttl_ms, instance id, stale_ms
   (0: no queue), lease ids in FIFO order. Drops expired leases and waiting processes not seen for
   stale_ms; leaves one slot to each process waiting ahead of this one (the oldest first: a process
   that asks without waiting is behind all of them); grants while below the cap. If some ids were
   refused, this process joins the queue at its end if not in it yet (position: Redis's clock in
   us, past the last one's, so that two joins in one ms keep their order) and is seen now; if all
   were granted, it leaves the queue. Returns {k, free}: the first k ids were granted; `free` slots
   remain for this process. */
static const char groupconc_redis__lua_acquire[] =
    GROUPCONC_REDIS__LUA_NOW
    "local cap = tonumber(ARGV[1])\n"
    "local ttl = tonumber(ARGV[2])\n"
    "local me = ARGV[3]\n"
    "local stale = tonumber(ARGV[4])\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
    "local n = redis.call('ZCARD', KEYS[1])\n"
    "local ahead = 0\n"
    "local rank = false\n"
    "if stale > 0 then\n"
    "  local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - stale)\n"
    "  for _, w in ipairs(gone) do\n"
    "    redis.call('ZREM', KEYS[2], w)\n"
    "    redis.call('ZREM', KEYS[3], w)\n"
    "  end\n"
    "  rank = redis.call('ZRANK', KEYS[2], me)\n"
    "  if rank then ahead = rank else ahead = redis.call('ZCARD', KEYS[2]) end\n"
    "end\n"
    "local k = 0\n"
    "for i = 5, #ARGV do\n"
    "  if n + ahead >= cap then break end\n"
    "  n = n + redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])\n"
    "  k = k + 1\n"
    "end\n"
    "if k > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end\n"
    "if stale > 0 then\n"
    "  if k < #ARGV - 4 then\n"
    "    if not rank then\n"
    "      local pos = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
    "      local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')\n"
    "      if last[2] and tonumber(last[2]) >= pos then pos = tonumber(last[2]) + 1 end\n"
    "      redis.call('ZADD', KEYS[2], pos, me)\n"
    "    end\n"
    "    redis.call('ZADD', KEYS[3], now, me)\n"
    "    redis.call('PEXPIRE', KEYS[2], 2 * stale)\n"
    "    redis.call('PEXPIRE', KEYS[3], 2 * stale)\n"
    "  else\n"
    "    redis.call('ZREM', KEYS[2], me)\n"
    "    redis.call('ZREM', KEYS[3], me)\n"
    "  end\n"
    "end\n"
    "local free = cap - n - ahead\n"
    "if free < 0 then free = 0 end\n"
    "return {k, free}\n";

/* release: KEYS: lease set, wait queue; ARGV: cap, channel, group, lease ids. Removes them (and
   expired ones); when that took a full set below its cap, or left it below its cap with processes
   waiting in the queue (their slots are kept for them), publishes "<free>:<group>" (free: the slots
   now open). Returns how many of the ids were still there. */
static const char groupconc_redis__lua_release[] =
    GROUPCONC_REDIS__LUA_NOW
    "local cap = tonumber(ARGV[1])\n"
    "local n0 = redis.call('ZCARD', KEYS[1])\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
    "local removed = 0\n"
    "for i = 4, #ARGV do removed = removed + redis.call('ZREM', KEYS[1], ARGV[i]) end\n"
    "local n1 = redis.call('ZCARD', KEYS[1])\n"
    "if n1 < cap and (n0 >= cap or redis.call('ZCARD', KEYS[2]) > 0) then\n"
    "  redis.call('PUBLISH', ARGV[2], (cap - n1) .. ':' .. ARGV[3])\n"
    "end\n"
    "return removed\n";

/* renew: KEYS[1] lease set; ARGV: ttl_ms, lease ids. Sets each to expire at now + ttl, adding it
   back if it is gone. Returns per id 1 (it was gone: added back) or 0 (renewed). */
static const char groupconc_redis__lua_renew[] =
    GROUPCONC_REDIS__LUA_NOW
    "local ttl = tonumber(ARGV[1])\n"
    "local out = {}\n"
    "for i = 2, #ARGV do out[i - 1] = redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end\n"
    "if #out > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end\n"
    "return out\n";

/* leave: KEYS: wait queue, last-seen set, lease set; ARGV: instance id, cap, channel, group. This
   process waits no more. If it was in the queue, the set is below its cap and others still wait,
   publishes "<free>:<group>" as release does: a slot kept for it is theirs now. */
static const char groupconc_redis__lua_leave[] =
    GROUPCONC_REDIS__LUA_NOW
    "local was = redis.call('ZREM', KEYS[1], ARGV[1])\n"
    "redis.call('ZREM', KEYS[2], ARGV[1])\n"
    "if was == 1 and redis.call('ZCARD', KEYS[1]) > 0 then\n"
    "  local cap = tonumber(ARGV[2])\n"
    "  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)\n"
    "  local n = redis.call('ZCARD', KEYS[3])\n"
    "  if n < cap then redis.call('PUBLISH', ARGV[3], (cap - n) .. ':' .. ARGV[4]) end\n"
    "end\n"
    "return was\n";

enum { GROUPCONC_REDIS__ACQ = 0, GROUPCONC_REDIS__REL = 1, GROUPCONC_REDIS__RENEW = 2, GROUPCONC_REDIS__LEAVE = 3 };
#define GROUPCONC_REDIS__SCRIPTS 4

/* ==== types ====

   Who owns what. One mutex (r->mu) guards every field below that is not marked otherwise; it is
   never held while calling into groupconc (answer, notify, report) or hiredis.

   A lease node moves through these states; its group holds one reference per node:
     state      where                         who moves it on
     QUEUED     r->queue (an ask)             I/O thread takes it into a batch (SENT), or marks it
                                              DOWN-answered when the connection fails
     SENT       the I/O thread's batch        I/O thread: GRANTED -> HELD; BUSY -> freed; failure ->
                                              CLEANUP (its id may be in Redis)
     HELD       r->leases hash, g->held list  release(): -> RELQ (and a local notify)
     RELQ       r->queue (a release)          I/O thread: -> RELSENT
     RELSENT    the I/O thread's batch        I/O thread: replied -> freed; failure -> RELQ again
     CLEANUP    r->queue (a release of an     like RELQ (no stats, no publish wanted but harmless)
                id of unknown outcome)
     LEAVEQ     r->queue (no lease: leave     I/O thread: sent with the group's wait queue's
                the group's wait queue)       `leave` script, then freed (not sent: queued again)
   The queue is one FIFO of QUEUED, RELQ and CLEANUP nodes; a batch sends releases first. */

enum {
    GROUPCONC_REDIS__QUEUED = 0,
    GROUPCONC_REDIS__SENT,
    GROUPCONC_REDIS__HELD,
    GROUPCONC_REDIS__RELQ,
    GROUPCONC_REDIS__RELSENT,
    GROUPCONC_REDIS__CLEANUP,
    GROUPCONC_REDIS__LEAVEQ
};

typedef struct groupconc_redis__group groupconc_redis__group;

typedef struct groupconc_redis__lease {
    struct groupconc_redis__lease *qnext;        /* queue, or the batch command's list */
    struct groupconc_redis__lease *hnext;        /* r->lease_buckets chain (HELD) */
    struct groupconc_redis__lease *gprev, *gnext; /* g->held list (HELD) */
    groupconc_redis__group *g;
    groupconc_fleet_request *req;                /* QUEUED / SENT: the ask to answer */
    uint64_t seq;                                /* lease id's last part; the executor's token */
    uint64_t freed_at_send;                      /* g->freed_seq when the ask was sent */
    int state;
} groupconc_redis__lease;

struct groupconc_redis__group {
    groupconc_redis__group *next;                /* r->group_buckets chain */
    groupconc_redis__group *busy_next;           /* r->busy list (busy_listed) */
    groupconc_redis__lease *held;                /* HELD leases, doubly linked */
    size_t held_count;
    size_t refs;                                 /* nodes + busy_listed + the I/O thread's pins */
    uint64_t hash;
    uint64_t freed_seq;                          /* leases freed: + 1 per local release, + free per
                                                    pub/sub message */
    uint64_t asks;                               /* asks received (the poll compares it) */
    size_t asking;                               /* asks queued or sent, not answered yet */
    int cap;
    bool busy_listed;                            /* contended: on r->busy (holds a reference) from
                                                    its first BUSY answer until a poll's notify
                                                    finds no task of it answered BUSY */
    bool recheck;                                /* listed, and a notify asked nothing while asks
                                                    or answers were on their way: judged again
                                                    once they are in (unlist_recheck) */
    uint64_t recheck_asks;                       /* g->asks at that notify */
    /* I/O thread only (valid while batch_id matches the current batch): */
    uint64_t batch_id;
    int cmd_acq, cmd_rel, cmd_leave;             /* index of this batch's open commands, or -1 */
    size_t key_len, zkey_len, wkey_len, skey_len;
    char *zkey;                                  /* "<prefix>lease:<key>" */
    char *wkey;                                  /* "<prefix>wait:<key>" */
    char *skey;                                  /* "<prefix>seen:<key>" */
    char key[];                                  /* the group key, NUL-terminated */
};

typedef struct groupconc_redis__capent {
    const char *key;   /* into r->cap_keys */
    int cap;
} groupconc_redis__capent;

/* One command of a batch. */
typedef struct groupconc_redis__cmd {
    int kind;
    groupconc_redis__group *g;                   /* pinned (a reference) until the batch ends */
    groupconc_redis__lease *first, *last;        /* ACQ / REL: nodes in order (qnext) */
    uint64_t *seqs;                              /* RENEW: lease seqs (owned) */
    size_t n;
    redisReply *reply;                           /* NULL: none (connection failed before it) */
    bool eval;                                   /* resent as EVAL after NOSCRIPT */
} groupconc_redis__cmd;

typedef struct groupconc_redis__pin_t {
    groupconc_redis__group *g;                   /* a reference, dropped after the batch */
    int what;                                    /* GROUPCONC_REDIS__PIN_* */
    unsigned count;                              /* NOTIFY: how many times (one per lease freed) */
    uint64_t asks;                               /* POLL: g->asks before the notify */
} groupconc_redis__pin_t;

typedef struct groupconc_redis__answer {
    groupconc_fleet_request *req;
    groupconc_fleet_verdict verdict;
    uint64_t lease;
} groupconc_redis__answer;

struct groupconc_redis { /* NOLINT(clang-analyzer-optin.performance.Padding): grouped by guard */
    /* configuration (immutable after create) */
    char *unix_path, *host, *username, *password, *prefix, *channel;
    size_t prefix_len, channel_len;
    int port;
    int default_cap;
    groupconc_redis__capent *caps;               /* sorted by key */
    size_t cap_count;
    char *cap_keys;
    int64_t ttl_ms, renew_ns, poll_ns, connect_ns, command_ns, backoff_min_ns, backoff_max_ns;
    groupconc_redis_failure on_failure;
    int batch_max;
    int64_t stale_ms;                            /* a waiting process not seen this long is dropped
                                                    from the queues (0: no queues, fifo off) */
    char instance[128];                          /* "<host>/<pid>/<random>/" */
    size_t instance_len;

    pthread_mutex_t mu;
    pthread_cond_t io_cond;                      /* the I/O thread waits here */
    pthread_cond_t ready_cond;                   /* groupconc_redis_wait_ready waits here; and
                                                    the detach callback, for ex_users == 0 */
    pthread_t io_thread, sub_thread;
    bool sync_made, io_started, sub_started;
    int wake_fd[2];                              /* wakes the subscriber thread (stop, resubscribe) */
    groupconc_executor *ex;                      /* under mu: the attach callback sets it, detach
                                                    clears it */
    size_t ex_users;                             /* calls into ex in flight (see ex_enter) */
    size_t answering;                            /* answers decided, not delivered yet (under mu;
                                                    see unlist_idle) */
    size_t rechecks;                             /* groups with recheck set (under mu) */

    /* guarded by mu */
    bool stop;
    bool io_waiting;                             /* the I/O thread sleeps on io_cond */
    int state;                                   /* GROUPCONC_REDIS__UP / _CONNECTING / _DOWN */
    uint64_t up_epoch;                           /* bumped at every successful connect */
    bool sub_connected;
    bool sub_reset;                              /* the subscriber should reconnect */
    groupconc_redis__lease *q_head, *q_tail;     /* the queue */
    size_t q_count, q_asks;
    groupconc_redis__group **group_buckets;
    size_t group_nbuckets, group_count;
    groupconc_redis__lease **lease_buckets;
    size_t lease_nbuckets, lease_count;
    uint64_t next_seq;
    groupconc_redis__group *busy;                /* contended groups (see busy_listed) */
    size_t busy_count;
    bool poll_all;                               /* more contended groups than the list takes (or
                                                    no memory): the poll notifies NULL */
    int64_t next_poll_ns;                        /* valid while busy or poll_all */
    int64_t next_renew_ns;
    groupconc_redis_stats st;
    uint32_t rng;

    /* I/O thread only */
    redisContext *c;
    char sha[GROUPCONC_REDIS__SCRIPTS][41];
    uint64_t batch_id;
    int64_t backoff_ns, next_connect_ns;
    bool ever_connected;
    groupconc_redis__cmd *cmds;
    size_t cmds_cap;
    groupconc_redis__answer *answers;
    size_t answers_cap, answers_n;
    groupconc_redis__pin_t *pins;                /* groups to notify / report after a batch */
    size_t pins_cap, pins_n;
    char *scratch;                               /* lease id strings of one command */
    size_t scratch_cap;
    const char **argv;
    size_t *argvlen;                             /* same capacity as argv */
    size_t argv_cap;
};

enum { GROUPCONC_REDIS__CONNECTING = 0, GROUPCONC_REDIS__UP, GROUPCONC_REDIS__DOWN };
/* what a pinned group is for, after a batch */
enum { GROUPCONC_REDIS__PIN_NOTIFY = 1, GROUPCONC_REDIS__PIN_REPORT = 2, GROUPCONC_REDIS__PIN_POLL = 4 };
/* Most notifies one event makes for a group (each asks again for one task answered BUSY). */
#define GROUPCONC_REDIS__NOTIFY_MAX 64u

/* ==== small helpers ==== */

GROUPCONC_REDIS__PRIVATE int64_t groupconc_redis__now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

GROUPCONC_REDIS__PRIVATE struct timeval groupconc_redis__tv(int64_t ns) {
    struct timeval tv;
    tv.tv_sec = (time_t)(ns / 1000000000);
    tv.tv_usec = (suseconds_t)((ns % 1000000000) / 1000);
    return tv;
}

GROUPCONC_REDIS__PRIVATE char *groupconc_redis__strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = (char *)GROUPCONC_REDIS_MALLOC(n);
    if (p) memcpy(p, s, n);
    return p;
}

GROUPCONC_REDIS__PRIVATE uint64_t groupconc_redis__hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

GROUPCONC_REDIS__PRIVATE uint32_t groupconc_redis__rand(groupconc_redis *r) {
    uint32_t x = r->rng ? r->rng : 0x9e3779b9u; /* xorshift32; under mu or on the I/O thread */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->rng = x;
    return x;
}

/* Wait on `c` until the monotonic deadline (the conds use CLOCK_MONOTONIC). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m,
                                                               int64_t deadline_ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / 1000000000);
    ts.tv_nsec = (long)(deadline_ns % 1000000000);
    pthread_cond_timedwait(c, m, &ts);
}

GROUPCONC_REDIS__PRIVATE bool groupconc_redis__grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *q = GROUPCONC_REDIS_MALLOC(n * elem);
    if (!q) return false;
    if (*p) {
        memcpy(q, *p, *cap * elem);
        GROUPCONC_REDIS_FREE(*p);
    }
    *p = q;
    *cap = n;
    return true;
}

/* ==== configuration check ==== */

GROUPCONC_REDIS__PRIVATE int groupconc_redis__problem(groupconc_redis_problem *p, int code,
                                                      const char *field, const char *fmt,
                                                      long long v) {
    if (p) {
        p->code = code;
        (void)snprintf(p->field, sizeof p->field, "%s", field);
        (void)snprintf(p->message, sizeof p->message, fmt, field, v);
    }
    return code;
}

GROUPCONC_REDIS__PRIVATE int groupconc_redis__cap_cmp(const void *a, const void *b) {
    return strcmp(((const groupconc_redis__capent *)a)->key, ((const groupconc_redis__capent *)b)->key);
}

GROUPCONC_REDIS_API groupconc_redis_config groupconc_redis_config_default(void) {
    groupconc_redis_config c;
    memset(&c, 0, sizeof c);
    c.unix_path = NULL;
    c.host = "127.0.0.1";
    c.port = 6379;
    c.key_prefix = NULL;
    c.default_cap = 1;
    c.lease_ttl_ns = 10 * (int64_t)1000000000;
    c.renew_interval_ns = 0;
    c.poll_interval_ns = 1000000000;
    c.connect_timeout_ns = 1000000000;
    c.command_timeout_ns = 1000000000;
    c.backoff_min_ns = 50 * (int64_t)1000000;
    c.backoff_max_ns = 2 * (int64_t)1000000000;
    c.on_failure = GROUPCONC_REDIS_FAIL_CLOSED_WAIT;
    c.batch_max = 1024;
    c.fifo = true;
    return c;
}

/* The address: a unix socket path that fits sockaddr_un, else a host and a port. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_address(const groupconc_redis_config *c,
                                                            groupconc_redis_problem *p) {
    if (c->unix_path) {
        size_t n = strlen(c->unix_path);
        if (n == 0 || n >= sizeof(((struct sockaddr_un *)0)->sun_path))
            return groupconc_redis__problem(p, GROUPCONC_REDIS_EADDRESS, "unix_path",
                                            "%s: %lld bytes (1 .. 107)", (long long)n);
        return GROUPCONC_OK;
    }
    if (!c->host || !*c->host)
        return groupconc_redis__problem(p, GROUPCONC_REDIS_EADDRESS, "host",
                                        "%s is empty and unix_path is not set%.0lld", 0);
    if (c->port < 1 || c->port > 65535)
        return groupconc_redis__problem(p, GROUPCONC_REDIS_EADDRESS, "port",
                                        "%s = %lld: must be 1..65535", c->port);
    return GROUPCONC_OK;
}

/* AUTH: no password, or a non-empty one; a username only beside a password. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_credentials(const groupconc_redis_config *c,
                                                                groupconc_redis_problem *p) {
    if (c->password && !*c->password)
        return groupconc_redis__problem(p, GROUPCONC_REDIS_ECREDENTIALS, "password",
                                        "%s is empty (NULL: no AUTH)%.0lld", 0);
    if (c->username && (!*c->username || !c->password))
        return groupconc_redis__problem(p, GROUPCONC_REDIS_ECREDENTIALS, "username",
                                        "%s is empty, or set without a password%.0lld", 0);
    return GROUPCONC_OK;
}

/* One time field's range, lo <= value <= hi (GROUPCONC_ELIMIT outside), for the table below. */
typedef struct groupconc_redis__time_range {
    const char *field;
    int64_t value, lo, hi;
    const char *fmt;   /* the message: "%s" the field, "%lld" the value */
} groupconc_redis__time_range;

/* The times, in the order config_check reports them: a table, so that each range reads in one
   line (INT64_MAX: no upper bound). */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_times(const groupconc_redis_config *c,
                                                          groupconc_redis_problem *p) {
    const int64_t ms = 1000000;
    const groupconc_redis__time_range t[] = {
        {"lease_ttl_ns", c->lease_ttl_ns, 10 * ms, (int64_t)86400 * 1000 * ms,
         "%s = %lld: must be 10 ms .. 1 day"},
        {"renew_interval_ns", c->renew_interval_ns, 0, c->lease_ttl_ns / 3,
         "%s = %lld: must be 0 (TTL/3) or > 0 and <= lease_ttl_ns / 3"},
        {"poll_interval_ns", c->poll_interval_ns, ms, INT64_MAX, "%s = %lld: must be >= 1 ms"},
        {"connect_timeout_ns", c->connect_timeout_ns, ms, INT64_MAX, "%s = %lld: must be >= 1 ms"},
        {"command_timeout_ns", c->command_timeout_ns, ms, INT64_MAX, "%s = %lld: must be >= 1 ms"},
        {"backoff_min_ns", c->backoff_min_ns, ms, INT64_MAX, "%s = %lld: must be >= 1 ms"},
        {"backoff_max_ns", c->backoff_max_ns, c->backoff_min_ns, INT64_MAX,
         "%s = %lld: must be >= backoff_min_ns"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].value < t[i].lo || t[i].value > t[i].hi)
            return groupconc_redis__problem(p, GROUPCONC_ELIMIT, t[i].field, t[i].fmt,
                                            (long long)t[i].value);
    return GROUPCONC_OK;
}

/* The scalars after the credentials: prefix, default_cap, the times, on_failure, batch_max. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_scalars(const groupconc_redis_config *c,
                                                            groupconc_redis_problem *p) {
    if (c->key_prefix && strlen(c->key_prefix) > GROUPCONC_REDIS_MAX_PREFIX_LEN)
        return groupconc_redis__problem(p, GROUPCONC_REDIS_EPREFIX, "key_prefix",
                                        "%s: %lld bytes, more than GROUPCONC_REDIS_MAX_PREFIX_LEN",
                                        (long long)strlen(c->key_prefix));
    if (c->default_cap < 1 && c->default_cap != GROUPCONC_UNLIMITED)
        return groupconc_redis__problem(p, GROUPCONC_ELIMIT, "default_cap",
                                        "%s = %lld: must be >= 1 or GROUPCONC_UNLIMITED",
                                        c->default_cap);
    int rc = groupconc_redis__check_times(c, p);
    if (rc != GROUPCONC_OK) return rc;
    if ((unsigned)c->on_failure > (unsigned)GROUPCONC_REDIS_FAIL_OPEN)
        return groupconc_redis__problem(p, GROUPCONC_REDIS_EFAILURE, "on_failure",
                                        "%s = %lld: unknown failure policy", (long long)c->on_failure);
    if (c->batch_max < 1)
        return groupconc_redis__problem(p, GROUPCONC_ELIMIT, "batch_max", "%s = %lld: must be >= 1",
                                        c->batch_max);
    return GROUPCONC_OK;
}

/* caps[i]: a key that groupconc could use (not NULL, not empty, not too long) and a valid cap. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_cap_entry(const groupconc_redis_cap *e, size_t i,
                                                              groupconc_redis_problem *p) {
    char field[48];
    (void)snprintf(field, sizeof field, "caps[%zu].group", i);
    if (!e->group) return groupconc_redis__problem(p, GROUPCONC_EINVAL, field, "%s is NULL%.0lld", 0);
    size_t n = strlen(e->group);
    if (n == 0) return groupconc_redis__problem(p, GROUPCONC_EKEYEMPTY, field, "%s is empty%.0lld", 0);
    if (n > GROUPCONC_REDIS_MAX_KEY_LEN)
        return groupconc_redis__problem(p, GROUPCONC_EKEYTOOLONG, field,
                                        "%s: %lld bytes, more than GROUPCONC_REDIS_MAX_KEY_LEN",
                                        (long long)n);
    (void)snprintf(field, sizeof field, "caps[%zu].cap", i);
    if (e->cap < 1 && e->cap != GROUPCONC_UNLIMITED)
        return groupconc_redis__problem(p, GROUPCONC_ELIMIT, field,
                                        "%s = %lld: must be >= 1 or GROUPCONC_UNLIMITED", e->cap);
    return GROUPCONC_OK;
}

/* A key twice in the table (checked after every entry is valid): sort a copy of the keys, each
   with its index, and name the later of the first equal pair found. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_cap_dups(const groupconc_redis_config *c,
                                                             groupconc_redis_problem *p) {
    groupconc_redis__capent *tmp = (groupconc_redis__capent *)GROUPCONC_REDIS_MALLOC(
        c->cap_count * sizeof *tmp);
    if (!tmp) return groupconc_redis__problem(p, GROUPCONC_ENOMEM, "caps",
                                              "%s: no memory for the duplicate check%.0lld", 0);
    for (size_t i = 0; i < c->cap_count; i++) {
        tmp[i].key = c->caps[i].group;
        tmp[i].cap = (int)i;
    }
    qsort(tmp, c->cap_count, sizeof *tmp, groupconc_redis__cap_cmp);
    int dup = -1;
    for (size_t i = 1; i < c->cap_count && dup < 0; i++)
        if (strcmp(tmp[i - 1].key, tmp[i].key) == 0)
            dup = tmp[i].cap > tmp[i - 1].cap ? tmp[i].cap : tmp[i - 1].cap;
    GROUPCONC_REDIS_FREE(tmp);
    if (dup < 0) return GROUPCONC_OK;
    char field[48];
    (void)snprintf(field, sizeof field, "caps[%d].group", dup);
    return groupconc_redis__problem(p, GROUPCONC_EDUPKEY, field,
                                    "%s names a group already in the table%.0lld", 0);
}

/* The caps table: present if counted, each entry in order, then duplicates. */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__check_caps(const groupconc_redis_config *c,
                                                         groupconc_redis_problem *p) {
    if (c->cap_count > 0 && !c->caps)
        return groupconc_redis__problem(p, GROUPCONC_EINVAL, "caps",
                                        "%s is NULL with cap_count = %lld", (long long)c->cap_count);
    for (size_t i = 0; i < c->cap_count; i++) {
        int rc = groupconc_redis__check_cap_entry(&c->caps[i], i, p);
        if (rc != GROUPCONC_OK) return rc;
    }
    return c->cap_count > 1 ? groupconc_redis__check_cap_dups(c, p) : GROUPCONC_OK;
}

/* Each part reports the first bad field it finds; the parts run in the documented order. */
GROUPCONC_REDIS_API int groupconc_redis_config_check(const groupconc_redis_config *c,
                                                     groupconc_redis_problem *p) {
    if (p) memset(p, 0, sizeof *p);
    if (!c) return groupconc_redis__problem(p, GROUPCONC_EINVAL, "config", "%s is NULL%.0lld", 0);
    int rc = groupconc_redis__check_address(c, p);
    if (rc == GROUPCONC_OK) rc = groupconc_redis__check_credentials(c, p);
    if (rc == GROUPCONC_OK) rc = groupconc_redis__check_scalars(c, p);
    if (rc == GROUPCONC_OK) rc = groupconc_redis__check_caps(c, p);
    if (rc == GROUPCONC_OK && p) p->code = GROUPCONC_OK;
    return rc;
}

/* ==== groups and leases (under mu) ==== */

GROUPCONC_REDIS__PRIVATE int groupconc_redis__cap_of(const groupconc_redis *r, const char *key) {
    size_t lo = 0, hi = r->cap_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, r->caps[mid].key);
        if (c == 0) return r->caps[mid].cap;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return r->default_cap;
}

GROUPCONC_REDIS__PRIVATE groupconc_redis__group *groupconc_redis__group_find(groupconc_redis *r,
                                                                             const char *key,
                                                                             size_t len, uint64_t h) {
    if (!r->group_nbuckets) return NULL;
    for (groupconc_redis__group *g = r->group_buckets[h & (r->group_nbuckets - 1)]; g; g = g->next)
        if (g->hash == h && g->key_len == len && memcmp(g->key, key, len) == 0) return g;
    return NULL;
}

/* Find or make the group's entry and take a reference on it; NULL: no memory. */
GROUPCONC_REDIS__PRIVATE groupconc_redis__group *groupconc_redis__group_ref(groupconc_redis *r,
                                                                            const char *key, int cap) {
    size_t len = strlen(key);
    uint64_t h = groupconc_redis__hash(key, len);
    groupconc_redis__group *g = groupconc_redis__group_find(r, key, len, h);
    if (g) {
        g->refs++;
        return g;
    }
    if (r->group_count + 1 > r->group_nbuckets) { /* grow: load factor <= 1 */
        size_t nb = r->group_nbuckets ? r->group_nbuckets * 2 : 64;
        groupconc_redis__group **b = (groupconc_redis__group **)GROUPCONC_REDIS_MALLOC(nb * sizeof *b);
        if (!b) return NULL;
        memset(b, 0, nb * sizeof *b);
        for (size_t i = 0; i < r->group_nbuckets; i++) {
            groupconc_redis__group *x = r->group_buckets[i];
            while (x) {
                groupconc_redis__group *nx = x->next;
                x->next = b[x->hash & (nb - 1)];
                b[x->hash & (nb - 1)] = x;
                x = nx;
            }
        }
        GROUPCONC_REDIS_FREE(r->group_buckets);
        r->group_buckets = b;
        r->group_nbuckets = nb;
    }
    size_t zlen = r->prefix_len + 6 + len; /* "<prefix>lease:<key>" */
    size_t wlen = r->prefix_len + 5 + len; /* "<prefix>wait:<key>", "<prefix>seen:<key>" */
    g = (groupconc_redis__group *)GROUPCONC_REDIS_MALLOC(sizeof *g + len + 1 + zlen + 1 + 2 * (wlen + 1));
    if (!g) return NULL;
    memset(g, 0, sizeof *g);
    memcpy(g->key, key, len + 1);
    g->key_len = len;
    g->zkey = g->key + len + 1;
    g->wkey = g->zkey + zlen + 1;
    g->skey = g->wkey + wlen + 1;
    const char *kinds[3] = {"lease:", "wait:", "seen:"};
    char *dst[3] = {g->zkey, g->wkey, g->skey};
    for (int i = 0; i < 3; i++) {
        size_t kl = strlen(kinds[i]);
        memcpy(dst[i], r->prefix, r->prefix_len);
        memcpy(dst[i] + r->prefix_len, kinds[i], kl);
        memcpy(dst[i] + r->prefix_len + kl, key, len + 1);
    }
    g->zkey_len = zlen;
    g->wkey_len = g->skey_len = wlen;
    g->hash = h;
    g->cap = cap;
    g->refs = 1;
    g->cmd_acq = g->cmd_rel = g->cmd_leave = -1;
    size_t bi = h & (r->group_nbuckets - 1);
    g->next = r->group_buckets[bi];
    r->group_buckets[bi] = g;
    r->group_count++;
    return g;
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__group_unref(groupconc_redis *r, groupconc_redis__group *g) {
    if (--g->refs > 0) return;
    groupconc_redis__group **pp = &r->group_buckets[g->hash & (r->group_nbuckets - 1)];
    while (*pp != g) pp = &(*pp)->next;
    *pp = g->next;
    r->group_count--;
    GROUPCONC_REDIS_FREE(g);
}

/* g was answered BUSY: it is contended until a poll finds no task of it answered BUSY. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__busy_add(groupconc_redis *r, groupconc_redis__group *g,
                                                        int64_t now) {
    if (g->busy_listed) return;
    if (!r->busy && !r->poll_all) r->next_poll_ns = now + r->poll_ns;
    if (r->busy_count >= GROUPCONC_REDIS_POLL_GROUPS) {
        r->poll_all = true;
        return;
    }
    g->busy_listed = true;
    g->refs++;
    g->busy_next = r->busy;
    r->busy = g;
    r->busy_count++;
}

GROUPCONC_REDIS__PRIVATE bool groupconc_redis__lease_insert(groupconc_redis *r, groupconc_redis__lease *l) {
    if (r->lease_count + 1 > r->lease_nbuckets) {
        size_t nb = r->lease_nbuckets ? r->lease_nbuckets * 2 : 256;
        groupconc_redis__lease **b = (groupconc_redis__lease **)GROUPCONC_REDIS_MALLOC(nb * sizeof *b);
        if (b) {
            memset(b, 0, nb * sizeof *b);
            for (size_t i = 0; i < r->lease_nbuckets; i++) {
                groupconc_redis__lease *x = r->lease_buckets[i];
                while (x) {
                    groupconc_redis__lease *nx = x->hnext;
                    x->hnext = b[x->seq & (nb - 1)];
                    b[x->seq & (nb - 1)] = x;
                    x = nx;
                }
            }
            GROUPCONC_REDIS_FREE(r->lease_buckets);
            r->lease_buckets = b;
            r->lease_nbuckets = nb;
        } else if (!r->lease_nbuckets) {
            return false; /* longer chains are fine; no table at all is not */
        }
    }
    size_t bi = l->seq & (r->lease_nbuckets - 1);
    l->hnext = r->lease_buckets[bi];
    r->lease_buckets[bi] = l;
    r->lease_count++;
    groupconc_redis__group *g = l->g;
    l->gprev = NULL;
    l->gnext = g->held;
    if (g->held) g->held->gprev = l;
    g->held = l;
    g->held_count++;
    l->state = GROUPCONC_REDIS__HELD;
    return true;
}

GROUPCONC_REDIS__PRIVATE groupconc_redis__lease *groupconc_redis__lease_take(groupconc_redis *r,
                                                                             uint64_t seq) {
    if (!r->lease_nbuckets) return NULL;
    groupconc_redis__lease **pp = &r->lease_buckets[seq & (r->lease_nbuckets - 1)];
    while (*pp && (*pp)->seq != seq) pp = &(*pp)->hnext;
    groupconc_redis__lease *l = *pp;
    if (!l) return NULL;
    *pp = l->hnext;
    r->lease_count--;
    groupconc_redis__group *g = l->g;
    if (l->gprev) l->gprev->gnext = l->gnext;
    else g->held = l->gnext;
    if (l->gnext) l->gnext->gprev = l->gprev;
    g->held_count--;
    return l;
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__push(groupconc_redis *r, groupconc_redis__lease *l) {
    l->qnext = NULL;
    if (r->q_tail) r->q_tail->qnext = l;
    else r->q_head = l;
    r->q_tail = l;
    r->q_count++;
    if (l->state == GROUPCONC_REDIS__QUEUED) r->q_asks++;
    if (r->io_waiting) pthread_cond_signal(&r->io_cond);
}

/* This process has no task of g answered BUSY any more: leave g's wait queue in Redis (under mu).
   Without memory for the node, its entry goes stale instead. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__leave(groupconc_redis *r, groupconc_redis__group *g) {
    if (!r->stale_ms) return;
    groupconc_redis__lease *l = (groupconc_redis__lease *)GROUPCONC_REDIS_MALLOC(sizeof *l);
    if (!l) return;
    memset(l, 0, sizeof *l);
    l->g = g;
    g->refs++;
    l->state = GROUPCONC_REDIS__LEAVEQ;
    groupconc_redis__push(r, l);
}

/* A notify of g asked nothing: no task of g here is answered BUSY any more (they left: done,
   cancelled, expired, shut down), or its group is paused (a paused group asks nothing). g is no
   longer contended: off the busy list, and out of g's wait queue in Redis at once, so that a slot
   kept for this process goes to the next one (the leave script publishes it). An ask queued or
   sent (asking), or an answer on its way to the executor (answering: a BUSY answer not delivered
   yet leaves a task that the notify could not ask), keeps it listed for now: g is judged again
   once they are in (unlist_recheck; else a task that left meanwhile - cancelled, expired, shut
   down while its ask was out - would keep this process's place ahead of the others until the
   poll). Under mu; the caller holds a reference on g. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__unlist_idle(groupconc_redis *r, groupconc_redis__group *g,
                                                           uint64_t asks_before) {
    if (!g->busy_listed || g->asks != asks_before) return;
    if (g->asking != 0 || r->answering != 0) {
        if (!g->recheck) r->rechecks++;
        g->recheck = true;
        g->recheck_asks = asks_before;
        return;
    }
    if (g->recheck) {
        g->recheck = false;
        r->rechecks--;
    }
    groupconc_redis__group **pp = &r->busy;
    while (*pp != g) pp = &(*pp)->busy_next;
    *pp = g->busy_next;
    r->busy_count--;
    g->busy_listed = false;
    g->refs--; /* the list's reference: never the last, the caller holds one */
    groupconc_redis__leave(r, g);
}

/* No answer is on its way to the executor now: judge the groups whose notify asked nothing while
   asks or answers were out (unlist_idle), those with none out any more. One that asked nothing
   since has no task answered BUSY: a task answered BUSY after that notify asks again at once (the
   executor remembers a notify that came while its request was out), unless its group is paused
   (which leaves the queue as well). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__unlist_recheck(groupconc_redis *r) {
    if (r->rechecks == 0 || r->answering != 0) return;
    groupconc_redis__group **pp = &r->busy;
    while (*pp) {
        groupconc_redis__group *g = *pp;
        if (!g->recheck || g->asking != 0) {
            pp = &g->busy_next;
            continue;
        }
        if (g->asks != g->recheck_asks) { /* it asked since: its answers decide */
            g->recheck = false;
            r->rechecks--;
            pp = &g->busy_next;
            continue;
        }
        g->refs++;
        groupconc_redis__unlist_idle(r, g, g->recheck_asks); /* off the list: *pp is the next one */
        groupconc_redis__group_unref(r, g);
    }
}

/* The failure policy's answer to an ask that cannot reach Redis (counted). */
GROUPCONC_REDIS__PRIVATE groupconc_fleet_verdict groupconc_redis__fail_verdict(groupconc_redis *r,
                                                                               bool at_destroy) {
    switch (r->on_failure) {
    case GROUPCONC_REDIS_FAIL_OPEN: r->st.fail_open++; return GROUPCONC_FLEET_OPEN;
    case GROUPCONC_REDIS_FAIL_CLOSED_WAIT:
        if (!at_destroy) {
            r->st.fail_waited++;
            return GROUPCONC_FLEET_BUSY;
        }
        r->st.fail_rejected++;
        return GROUPCONC_FLEET_REJECT;
    case GROUPCONC_REDIS_FAIL_CLOSED_REJECT:
    default: r->st.fail_rejected++; return GROUPCONC_FLEET_REJECT;
    }
}

/* last_error = what[: detail], cut to fit. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__set_error(groupconc_redis *r, const char *what,
                                                         const char *detail) {
    size_t cap = sizeof r->st.last_error - 1, n = 0;
    const char *parts[3] = {what, detail ? ": " : NULL, detail};
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) continue;
        size_t k = strlen(parts[i]);
        if (k > cap - n) k = cap - n;
        memcpy(r->st.last_error + n, parts[i], k);
        n += k;
    }
    r->st.last_error[n] = '\0';
}

/* The executor, for a notify or report: NULL before attach and after detach. Every call into it
   is bracketed by ex_enter / ex_leave, so that the detach callback can wait until none is in
   flight: after it returns, the executor is freed. */
GROUPCONC_REDIS__PRIVATE groupconc_executor *groupconc_redis__ex_enter(groupconc_redis *r) {
    pthread_mutex_lock(&r->mu);
    groupconc_executor *ex = r->ex;
    if (ex) r->ex_users++;
    pthread_mutex_unlock(&r->mu);
    return ex;
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__ex_leave(groupconc_redis *r, const groupconc_executor *ex) {
    if (!ex) return;
    pthread_mutex_lock(&r->mu);
    if (--r->ex_users == 0) pthread_cond_broadcast(&r->ready_cond);
    pthread_mutex_unlock(&r->mu);
}

/* ==== provider callbacks (on the executor's threads) ==== */

GROUPCONC_REDIS__PRIVATE void groupconc_redis__acquire(void *user_data, groupconc_fleet_request *req,
                                                       const char *group) {
    groupconc_redis *r = (groupconc_redis *)user_data;
    int cap = groupconc_redis__cap_of(r, group);
    pthread_mutex_lock(&r->mu);
    r->st.acquires++;
    if (cap == GROUPCONC_UNLIMITED) {
        r->st.unlimited++;
        pthread_mutex_unlock(&r->mu);
        groupconc_fleet_answer(req, GROUPCONC_FLEET_GRANTED, 0);
        return;
    }
    groupconc_redis__lease *l = NULL;
    groupconc_redis__group *g = groupconc_redis__group_ref(r, group, cap);
    if (g) g->asks++;
    if (g && r->state != GROUPCONC_REDIS__DOWN && !r->stop) {
        l = (groupconc_redis__lease *)GROUPCONC_REDIS_MALLOC(sizeof *l);
        if (l) {
            memset(l, 0, sizeof *l);
            l->g = g; /* the node takes the reference */
            g->asking++;
            l->req = req;
            l->seq = ++r->next_seq;
            l->state = GROUPCONC_REDIS__QUEUED;
            groupconc_redis__push(r, l);
            pthread_mutex_unlock(&r->mu);
            return;
        }
    }
    /* Redis known down (or no memory, or stopping): answer at once by the failure policy. */
    if (g && r->state != GROUPCONC_REDIS__DOWN && !r->stop)
        groupconc_redis__set_error(r, "out of memory queueing an ask", NULL);
    groupconc_fleet_verdict v = groupconc_redis__fail_verdict(r, r->stop);
    uint64_t epoch = r->up_epoch;
    if (v == GROUPCONC_FLEET_BUSY) {
        if (g) groupconc_redis__busy_add(r, g, groupconc_redis__now_ns());
        else r->poll_all = true;
        if (!r->busy && r->poll_all) r->next_poll_ns = groupconc_redis__now_ns() + r->poll_ns;
        /* the I/O thread may sleep past that poll (nothing was contended when it went to sleep) */
        if (r->io_waiting) pthread_cond_signal(&r->io_cond);
    }
    if (g) groupconc_redis__group_unref(r, g);
    r->answering++;
    pthread_mutex_unlock(&r->mu);
    groupconc_fleet_answer(req, v, 0);
    pthread_mutex_lock(&r->mu);
    r->answering--;
    groupconc_redis__unlist_recheck(r);
    /* The reconnect notifies every BUSY task; if it ran before this answer landed (up_epoch moved
       meanwhile), the poll asks for the group at once instead. */
    if (v == GROUPCONC_FLEET_BUSY && r->up_epoch != epoch) {
        r->next_poll_ns = groupconc_redis__now_ns();
        if (r->io_waiting) pthread_cond_signal(&r->io_cond);
    }
    pthread_mutex_unlock(&r->mu);
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__release(void *user_data, const char *group, uint64_t lease) {
    groupconc_redis *r = (groupconc_redis *)user_data;
    if (lease == 0) return; /* a grant of a group without a fleet cap */
    pthread_mutex_lock(&r->mu);
    groupconc_redis__lease *l = groupconc_redis__lease_take(r, lease);
    if (!l) {
        pthread_mutex_unlock(&r->mu);
        return; /* not ours (a misuse): nothing to give back */
    }
    r->st.releases++;
    groupconc_redis__group *g = l->g;
    /* The I/O thread compares freed_seq around a BUSY answer: bumping it here makes an ask of this
       group whose BUSY answer is still on its way get notified again (it missed this notify). */
    g->freed_seq++;
    bool notify = g->busy_listed;
    uint64_t asks = g->asks;
    l->state = GROUPCONC_REDIS__RELQ;
    l->req = NULL;
    groupconc_redis__push(r, l);
    if (notify) {
        r->st.notify_local++;
        g->refs++; /* the node's may go with the I/O thread's next round trip */
    }
    pthread_mutex_unlock(&r->mu);
    if (!notify) return;
    /* The oldest local task answered BUSY is asked again now: its ask queues behind this release,
       so the same or the next round trip frees the lease before it asks. */
    groupconc_executor *ex = groupconc_redis__ex_enter(r);
    if (ex) groupconc_fleet_notify(ex, group);
    pthread_mutex_lock(&r->mu);
    if (ex) groupconc_redis__unlist_idle(r, g, asks);
    groupconc_redis__group_unref(r, g);
    pthread_mutex_unlock(&r->mu);
    groupconc_redis__ex_leave(r, ex);
}

/* ==== connections (I/O and subscriber threads) ==== */

/* Connect and authenticate; NULL on failure with the reason in err. */
GROUPCONC_REDIS__PRIVATE redisContext *groupconc_redis__connect(groupconc_redis *r, char *err,
                                                                size_t errlen) {
    struct timeval tv = groupconc_redis__tv(r->connect_ns);
    redisContext *c = r->unix_path ? redisConnectUnixWithTimeout(r->unix_path, tv)
                                   : redisConnectWithTimeout(r->host, r->port, tv);
    if (!c) {
        (void)snprintf(err, errlen, "connect: out of memory");
        return NULL;
    }
    if (c->err) {
        (void)snprintf(err, errlen, "connect: %s", c->errstr);
        redisFree(c);
        return NULL;
    }
    if (redisSetTimeout(c, groupconc_redis__tv(r->command_ns)) != REDIS_OK) {
        (void)snprintf(err, errlen, "setting the timeout: %s", c->errstr);
        redisFree(c);
        return NULL;
    }
    if (!r->unix_path) redisEnableKeepAlive(c);
    if (r->password) {
        const char *argv[3];
        size_t lens[3];
        int argc = 0;
        argv[argc] = "AUTH";
        lens[argc++] = 4;
        if (r->username) {
            argv[argc] = r->username;
            lens[argc++] = strlen(r->username);
        }
        argv[argc] = r->password;
        lens[argc++] = strlen(r->password);
        redisReply *rep = (redisReply *)redisCommandArgv(c, argc, argv, lens);
        if (!rep || rep->type == REDIS_REPLY_ERROR) {
            (void)snprintf(err, errlen, "AUTH: %s", rep ? rep->str : c->errstr);
            if (rep) freeReplyObject(rep);
            redisFree(c);
            return NULL;
        }
        freeReplyObject(rep);
    }
    return c;
}

/* The command connection: connect, then SCRIPT LOAD the three scripts (pipelined). */
GROUPCONC_REDIS__PRIVATE redisContext *groupconc_redis__connect_cmd(groupconc_redis *r, char *err,
                                                                    size_t errlen) {
    redisContext *c = groupconc_redis__connect(r, err, errlen);
    if (!c) return NULL;
    const char *scripts[GROUPCONC_REDIS__SCRIPTS] = {groupconc_redis__lua_acquire,
                                                     groupconc_redis__lua_release,
                                                     groupconc_redis__lua_renew, groupconc_redis__lua_leave};
    for (int i = 0; i < GROUPCONC_REDIS__SCRIPTS; i++) {
        const char *argv[3] = {"SCRIPT", "LOAD", scripts[i]};
        size_t lens[3] = {6, 4, strlen(scripts[i])};
        redisAppendCommandArgv(c, 3, argv, lens);
    }
    bool ok = true;
    for (int i = 0; i < GROUPCONC_REDIS__SCRIPTS; i++) {
        redisReply *rep = NULL;
        if (redisGetReply(c, (void **)&rep) != REDIS_OK || !rep) {
            (void)snprintf(err, errlen, "SCRIPT LOAD: %s", c->errstr);
            ok = false;
            break;
        }
        if (rep->type != REDIS_REPLY_STRING || rep->len != 40) {
            (void)snprintf(err, errlen, "SCRIPT LOAD: %s",
                     rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
            ok = false;
        } else {
            memcpy(r->sha[i], rep->str, 40);
            r->sha[i][40] = '\0';
        }
        freeReplyObject(rep);
        if (!ok) break;
    }
    if (!ok) {
        redisFree(c);
        return NULL;
    }
    return c;
}

/* ==== the I/O thread ====

   One loop: connect when down (capped exponential backoff); else take what is queued (at most
   batch_max asks, every release), the renewals when due, send it all in one pipelined round trip,
   then answer, notify and report with no lock held; poll busy groups when due; sleep on io_cond
   until something is queued or a timer is due. */

GROUPCONC_REDIS__PRIVATE void groupconc_redis__member(groupconc_redis *r, uint64_t seq, char *out,
                                                      size_t *out_len) {
    memcpy(out, r->instance, r->instance_len);
    int n = snprintf(out + r->instance_len, 24, "%llx", (unsigned long long)seq);
    *out_len = r->instance_len + (size_t)n;
}

/* Pin g for after the batch (a reference): notify it `count` times, report a renewal, or poll it.
   false: no memory (the caller drops what it wanted). Under mu. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__pin(groupconc_redis *r, groupconc_redis__group *g, int what,
                                                   unsigned count) {
    if (!groupconc_redis__grow((void **)&r->pins, &r->pins_cap, r->pins_n + 1, sizeof *r->pins))
        return false;
    r->pins[r->pins_n].g = g;
    r->pins[r->pins_n].what = what;
    r->pins[r->pins_n].count = count > GROUPCONC_REDIS__NOTIFY_MAX ? GROUPCONC_REDIS__NOTIFY_MAX : count;
    r->pins[r->pins_n].asks = g->asks;
    r->pins_n++;
    g->refs++;
    return true;
}

GROUPCONC_REDIS__PRIVATE bool groupconc_redis__answer_add(groupconc_redis *r, groupconc_fleet_request *req,
                                                          groupconc_fleet_verdict v, uint64_t lease) {
    if (!groupconc_redis__grow((void **)&r->answers, &r->answers_cap, r->answers_n + 1,
                               sizeof *r->answers))
        return false;
    r->answers[r->answers_n].req = req;
    r->answers[r->answers_n].verdict = v;
    r->answers[r->answers_n].lease = lease;
    r->answers_n++;
    r->answering++; /* delivered by flush */
    return true;
}

/* Deliver the answers, then run the pinned notifies / reports / polls, with no lock held; then
   drop the pins. A polled group whose notify made no ask has no task answered BUSY any more: it is
   no longer contended. I/O thread only. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__flush(groupconc_redis *r, bool notify_all) {
    if (r->answers_n) GROUPCONC_REDIS_TEST_ANSWERS(r);
    for (size_t i = 0; i < r->answers_n; i++)
        groupconc_fleet_answer(r->answers[i].req, r->answers[i].verdict, r->answers[i].lease);
    if (r->answers_n) {
        pthread_mutex_lock(&r->mu);
        r->answering -= r->answers_n;
        groupconc_redis__unlist_recheck(r); /* the answers are in */
        pthread_mutex_unlock(&r->mu);
    }
    r->answers_n = 0;
    groupconc_executor *ex = notify_all || r->pins_n ? groupconc_redis__ex_enter(r) : NULL;
    if (ex && notify_all) groupconc_fleet_notify(ex, NULL);
    for (size_t i = 0; i < r->pins_n; i++) {
        const groupconc_redis__pin_t *pin = &r->pins[i];
        if (!ex) continue;
        if (pin->what & GROUPCONC_REDIS__PIN_REPORT)
            groupconc_fleet_report(ex, pin->g->key, GROUPCONC_EFLEET_RENEW);
        if ((pin->what & GROUPCONC_REDIS__PIN_POLL) && !notify_all) groupconc_fleet_notify(ex, pin->g->key);
        if (pin->what & GROUPCONC_REDIS__PIN_NOTIFY)
            for (unsigned k = 0; k < pin->count; k++) groupconc_fleet_notify(ex, pin->g->key);
    }
    if (r->pins_n) {
        pthread_mutex_lock(&r->mu);
        for (size_t i = 0; i < r->pins_n; i++) {
            groupconc_redis__group *g = r->pins[i].g;
            /* a poll's or a notify's: the asks made inside groupconc_fleet_notify would have moved
               g->asks (the pin recorded it before); unlisted if they did not */
            if ((r->pins[i].what & (GROUPCONC_REDIS__PIN_POLL | GROUPCONC_REDIS__PIN_NOTIFY)) && ex &&
                !((r->pins[i].what & GROUPCONC_REDIS__PIN_POLL) && notify_all))
                groupconc_redis__unlist_idle(r, g, r->pins[i].asks);
            groupconc_redis__group_unref(r, g);
        }
        pthread_mutex_unlock(&r->mu);
        r->pins_n = 0;
    }
    groupconc_redis__ex_leave(r, ex);
}

/* Build the argv of one command into r->argv / r->argvlen (lease ids into r->scratch, which
   hiredis copies at append time); false: no memory.
     ACQ    EVALSHA sha 3 <lease> <wait> <seen> <cap> <ttl_ms> <instance> <stale_ms> <id>...
     REL    EVALSHA sha 2 <lease> <wait> <cap> <channel> <group> <id>...
     RENEW  EVALSHA sha 1 <lease> <ttl_ms> <id>...
     LEAVE  EVALSHA sha 3 <wait> <seen> <lease> <instance> <cap> <channel> <group>
   (EVAL <body> instead of EVALSHA <sha> after a NOSCRIPT reply.) */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__build(groupconc_redis *r, const groupconc_redis__cmd *cmd,
                                                     int *out_argc) {
    static const char *const bodies[GROUPCONC_REDIS__SCRIPTS] = {
        groupconc_redis__lua_acquire, groupconc_redis__lua_release, groupconc_redis__lua_renew,
        groupconc_redis__lua_leave};
    size_t ids = cmd->kind == GROUPCONC_REDIS__LEAVE ? 0 : cmd->n;
    size_t argc = 10 + ids; /* the longest fixed part: ACQ's and LEAVE's */
    size_t member_max = r->instance_len + 17; /* + up to 16 hex digits and a NUL */
    if (!groupconc_redis__grow((void **)&r->scratch, &r->scratch_cap, 96 + ids * member_max, 1))
        return false;
    /* argvlen first, on a copy of the capacity: argv_cap records both only once both have grown (a
       failed second grow must not leave argv_cap saying argvlen is big enough). */
    size_t argvlen_cap = r->argv_cap;
    if (!groupconc_redis__grow((void **)&r->argvlen, &argvlen_cap, argc, sizeof *r->argvlen)) return false;
    if (!groupconc_redis__grow((void **)&r->argv, &r->argv_cap, argc, sizeof *r->argv)) return false;
    const groupconc_redis__group *g = cmd->g;
    char *num = r->scratch; /* the numbers use the first 96 bytes, 24 each */
    int a = 0, nl;
#define GROUPCONC_REDIS__ARG(p, n) (r->argv[a] = (p), r->argvlen[a] = (n), a++)
#define GROUPCONC_REDIS__NUM(fmt, v) \
    (nl = snprintf(num, 24, fmt, v), GROUPCONC_REDIS__ARG(num, (size_t)nl), num += 24)
    if (cmd->eval) {
        GROUPCONC_REDIS__ARG("EVAL", 4);
        GROUPCONC_REDIS__ARG(bodies[cmd->kind], strlen(bodies[cmd->kind]));
    } else {
        GROUPCONC_REDIS__ARG("EVALSHA", 7);
        GROUPCONC_REDIS__ARG(r->sha[cmd->kind], 40);
    }
    switch (cmd->kind) {
    case GROUPCONC_REDIS__ACQ:
        GROUPCONC_REDIS__ARG("3", 1);
        GROUPCONC_REDIS__ARG(g->zkey, g->zkey_len);
        GROUPCONC_REDIS__ARG(g->wkey, g->wkey_len);
        GROUPCONC_REDIS__ARG(g->skey, g->skey_len);
        GROUPCONC_REDIS__NUM("%d", g->cap);
        GROUPCONC_REDIS__NUM("%lld", (long long)r->ttl_ms);
        GROUPCONC_REDIS__ARG(r->instance, r->instance_len);
        GROUPCONC_REDIS__NUM("%lld", (long long)r->stale_ms);
        break;
    case GROUPCONC_REDIS__REL:
        GROUPCONC_REDIS__ARG("2", 1);
        GROUPCONC_REDIS__ARG(g->zkey, g->zkey_len);
        GROUPCONC_REDIS__ARG(g->wkey, g->wkey_len);
        GROUPCONC_REDIS__NUM("%d", g->cap);
        GROUPCONC_REDIS__ARG(r->channel, r->channel_len);
        GROUPCONC_REDIS__ARG(g->key, g->key_len);
        break;
    case GROUPCONC_REDIS__RENEW:
        GROUPCONC_REDIS__ARG("1", 1);
        GROUPCONC_REDIS__ARG(g->zkey, g->zkey_len);
        GROUPCONC_REDIS__NUM("%lld", (long long)r->ttl_ms);
        break;
    default: /* LEAVE */
        GROUPCONC_REDIS__ARG("3", 1);
        GROUPCONC_REDIS__ARG(g->wkey, g->wkey_len);
        GROUPCONC_REDIS__ARG(g->skey, g->skey_len);
        GROUPCONC_REDIS__ARG(g->zkey, g->zkey_len);
        GROUPCONC_REDIS__ARG(r->instance, r->instance_len);
        GROUPCONC_REDIS__NUM("%d", g->cap);
        GROUPCONC_REDIS__ARG(r->channel, r->channel_len);
        GROUPCONC_REDIS__ARG(g->key, g->key_len);
        break;
    }
    char *s = r->scratch + 96;
    size_t len;
    if (cmd->kind == GROUPCONC_REDIS__RENEW) {
        for (size_t i = 0; i < cmd->n; i++, s += member_max) {
            groupconc_redis__member(r, cmd->seqs[i], s, &len);
            GROUPCONC_REDIS__ARG(s, len);
        }
    } else if (cmd->kind != GROUPCONC_REDIS__LEAVE) {
        for (groupconc_redis__lease *l = cmd->first; l; l = l == cmd->last ? NULL : l->qnext, s += member_max) {
            groupconc_redis__member(r, l->seq, s, &len);
            GROUPCONC_REDIS__ARG(s, len);
        }
    }
#undef GROUPCONC_REDIS__NUM
#undef GROUPCONC_REDIS__ARG
    *out_argc = a;
    return true;
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__disconnect(groupconc_redis *r, const char *why,
                                                          const char *detail) {
    if (r->c) {
        redisFree(r->c);
        r->c = NULL;
    }
    pthread_mutex_lock(&r->mu);
    r->st.connected = false;
    if (why) {
        r->st.failures++;
        groupconc_redis__set_error(r, why, detail);
    }
    r->state = GROUPCONC_REDIS__DOWN;
    pthread_mutex_unlock(&r->mu);
    r->next_connect_ns = groupconc_redis__now_ns(); /* first retry at once, then back off */
    r->backoff_ns = 0;
}

static redisReply groupconc_redis__sent_mark; /* a command's reply until the real one is read */

/* Send cmds[0..n) pipelined and read the replies into cmds[i].reply (NULL where none came: the
   connection failed, or no memory to build the command). false: the connection failed (it is
   closed and the state is DOWN). */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__round_trip(groupconc_redis *r, size_t n) {
    size_t sent = 0;
    for (size_t i = 0; i < n; i++) r->cmds[i].reply = NULL;
    for (size_t i = 0; i < n; i++) {
        int argc;
        if (!groupconc_redis__build(r, &r->cmds[i], &argc)) continue;
        if (redisAppendCommandArgv(r->c, argc, r->argv, r->argvlen) != REDIS_OK) continue;
        r->cmds[i].reply = &groupconc_redis__sent_mark; /* "sent": replaced by its reply below */
        sent++;
    }
    pthread_mutex_lock(&r->mu);
    r->st.round_trips++;
    r->st.commands += sent;
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < n; i++) {
        if (!r->cmds[i].reply) continue;
        redisReply *rep = NULL;
        if (redisGetReply(r->c, (void **)&rep) != REDIS_OK || !rep) {
            int e = errno; /* the socket's read timeout: EAGAIN (hiredis 0.14 reports it as I/O) */
            char detail[160];
            bool timed_out = r->c->err == REDIS_ERR_IO && (e == EAGAIN || e == EWOULDBLOCK);
#ifdef REDIS_ERR_TIMEOUT
            timed_out = timed_out || r->c->err == REDIS_ERR_TIMEOUT; /* hiredis 1.x */
#endif
            if (timed_out)
                (void)snprintf(detail, sizeof detail, "no reply within command_timeout_ns");
            else
                (void)snprintf(detail, sizeof detail, "%s", r->c->errstr[0] ? r->c->errstr : "no reply");
            for (size_t j = i; j < n; j++) r->cmds[j].reply = NULL;
            groupconc_redis__disconnect(r, "round trip failed", detail);
            return false;
        }
        r->cmds[i].reply = rep;
    }
    return true;
}

/* An error reply that says the server cannot serve now (not a problem of one key): reconnect. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__server_error(const redisReply *rep) {
    static const char *const codes[] = {"LOADING", "READONLY", "NOAUTH", "NOPERM", "MASTERDOWN",
                                        "BUSY", "MISCONF", "OOM", "CLUSTERDOWN", "TRYAGAIN",
                                        "NOREPLICAS", "MOVED", "ASK"};
    if (!rep || rep->type != REDIS_REPLY_ERROR || !rep->str) return false;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        size_t n = strlen(codes[i]);
        if (strncmp(rep->str, codes[i], n) == 0 && (rep->str[n] == ' ' || rep->str[n] == '\0'))
            return true;
    }
    return false;
}

/* Answer req: in the list that flush delivers, or, without memory for the list, at once - with mu
   dropped around this one answer, since no lock may be held while calling into groupconc. Under
   mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__give_answer(groupconc_redis *r, groupconc_fleet_request *req,
                                                           groupconc_fleet_verdict v, uint64_t lease) {
    if (groupconc_redis__answer_add(r, req, v, lease)) return;
    r->answering++;
    pthread_mutex_unlock(&r->mu);
    groupconc_fleet_answer(req, v, lease);
    pthread_mutex_lock(&r->mu);
    r->answering--;
}

/* Answer an ask by the failure policy and keep its id for a clean-up (it may be in Redis). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__fail_ask(groupconc_redis *r, groupconc_redis__lease *l,
                                                        bool cleanup, int64_t now) {
    groupconc_fleet_verdict v = groupconc_redis__fail_verdict(r, false);
    if (v == GROUPCONC_FLEET_BUSY) groupconc_redis__busy_add(r, l->g, now);
    groupconc_redis__give_answer(r, l->req, v, 0);
    l->req = NULL;
    if (cleanup) {
        l->state = GROUPCONC_REDIS__CLEANUP;
        groupconc_redis__push(r, l);
    } else {
        groupconc_redis__group_unref(r, l->g);
        GROUPCONC_REDIS_FREE(l);
    }
}

GROUPCONC_REDIS__PRIVATE bool groupconc_redis__is_noscript(const redisReply *rep) {
    return rep && rep->type == REDIS_REPLY_ERROR && rep->str && strncmp(rep->str, "NOSCRIPT", 8) == 0;
}

/* The acquire script's reply {k, free}: the first k ids were granted, `free` slots remain. *k is -1
   when there is no such reply (none: the connection failed; an error reply, counted by apply; or
   an unexpected one, counted here). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__acq_reply(groupconc_redis *r, const redisReply *rep,
                                                         long long *k, long long *free_after) {
    *k = -1;
    *free_after = 0;
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
        rep->element[0]->type == REDIS_REPLY_INTEGER && rep->element[1]->type == REDIS_REPLY_INTEGER) {
        *k = rep->element[0]->integer;
        *free_after = rep->element[1]->integer;
    } else if (rep && rep->type != REDIS_REPLY_ERROR) {
        r->st.failures++;
        groupconc_redis__set_error(r, "unexpected reply to the acquire script", NULL);
    }
}

/* Redis granted l's id: track it (HELD) and answer GRANTED. Without memory to track it, the ask is
   answered by the failure policy and the id given back (a clean-up). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__grant(groupconc_redis *r, groupconc_redis__lease *l,
                                                     int64_t now) {
    groupconc_fleet_request *req = l->req;
    l->req = NULL;
    if (!groupconc_redis__lease_insert(r, l)) {
        l->req = req;
        groupconc_redis__fail_ask(r, l, true, now);
        return;
    }
    r->st.grants++;
    groupconc_redis__give_answer(r, req, GROUPCONC_FLEET_GRANTED, l->seq);
}

/* Redis refused l's id (g's set is full): answer BUSY, g is contended; the node goes. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__refuse(groupconc_redis *r, groupconc_redis__group *g,
                                                      groupconc_redis__lease *l, int64_t now) {
    r->st.busy++;
    groupconc_redis__busy_add(r, g, now);
    groupconc_redis__give_answer(r, l->req, GROUPCONC_FLEET_BUSY, 0);
    g->refs--; /* the node's reference: never the last, the command pins g */
    GROUPCONC_REDIS_FREE(l);
}

/* Notifies after an acquire command's answers (once per lease freed, each asks for one BUSY task):
   - leases freed (pub/sub, local releases) since these asks were sent were announced while they
     were not BUSY yet: those notifies found nobody; make them again;
   - a grant that left slots free: more tasks answered BUSY earlier may take them. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__acq_renotify(groupconc_redis *r, groupconc_redis__group *g,
                                                            size_t busy, uint64_t freed_at_send,
                                                            long long k, long long free_after) {
    unsigned n = 0;
    uint64_t missed = g->freed_seq - freed_at_send;
    if (busy && missed) n += (unsigned)(missed < busy ? missed : busy);
    if (k > 0 && free_after > 0 && g->busy_listed)
        n += free_after > (long long)GROUPCONC_REDIS__NOTIFY_MAX ? GROUPCONC_REDIS__NOTIFY_MAX
                                                                 : (unsigned)free_after;
    if (n) groupconc_redis__pin(r, g, GROUPCONC_REDIS__PIN_NOTIFY, n);
}

/* An acquire command's reply: its asks in order, the first k granted, the rest BUSY; with no
   usable reply, each by the failure policy. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__apply_acquire(groupconc_redis *r, groupconc_redis__cmd *cmd,
                                                             int64_t now) {
    long long k, free_after;
    groupconc_redis__acq_reply(r, cmd->reply, &k, &free_after);
    groupconc_redis__group *g = cmd->g; /* pinned by the command */
    uint64_t freed_at_send = cmd->first->freed_at_send;
    size_t idx = 0, busy = 0;
    groupconc_redis__lease *l = cmd->first, *next;
    for (; l; l = next, idx++) {
        next = l == cmd->last ? NULL : l->qnext;
        g->asking--;
        if (k < 0) {
            /* no answer from Redis: the failure policy; the id may have been granted */
            groupconc_redis__fail_ask(r, l, cmd->reply == NULL, now);
        } else if ((long long)idx < k) {
            groupconc_redis__grant(r, l, now);
        } else {
            busy++;
            groupconc_redis__refuse(r, g, l, now);
        }
    }
    groupconc_redis__acq_renotify(r, g, busy, freed_at_send, k, free_after);
}

/* A release command's reply: the leases it did not find count as gone (clean-ups excluded: those
   are expected to be gone). Its nodes are freed; with no reply (connection lost), queued again to
   be sent after the reconnect. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__apply_release(groupconc_redis *r, groupconc_redis__cmd *cmd) {
    const redisReply *rep = cmd->reply;
    if (rep && rep->type == REDIS_REPLY_INTEGER && (size_t)rep->integer < cmd->n) {
        size_t real = 0;
        for (groupconc_redis__lease *x = cmd->first; x; x = x == cmd->last ? NULL : x->qnext)
            if (x->state == GROUPCONC_REDIS__RELSENT) real++;
        size_t removed = (size_t)rep->integer;
        if (removed < real) r->st.releases_gone += real - removed;
    }
    groupconc_redis__lease *l = cmd->first, *next;
    for (; l; l = next) {
        next = l == cmd->last ? NULL : l->qnext;
        if (rep == NULL) {
            /* connection lost: send it again after the reconnect */
            l->state = l->state == GROUPCONC_REDIS__RELSENT ? GROUPCONC_REDIS__RELQ
                                                            : GROUPCONC_REDIS__CLEANUP;
            groupconc_redis__push(r, l);
        } else {
            /* done (or an error reply: the lease expires on its own) */
            groupconc_redis__group_unref(r, l->g);
            GROUPCONC_REDIS_FREE(l);
        }
    }
}

/* A leave command's reply: done (an error reply: a stale entry goes after stale_ms). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__apply_leave(groupconc_redis *r, groupconc_redis__cmd *cmd) {
    groupconc_redis__lease *l = cmd->first, *next;
    for (; l; l = next) {
        next = l == cmd->last ? NULL : l->qnext;
        if (cmd->reply == NULL && l->g->asking == 0 && !l->g->busy_listed) {
            /* not sent (connection lost, no memory): again, next round */
            groupconc_redis__push(r, l);
            continue;
        }
        /* sent; or not sent while the group asks again meanwhile (pushed at the tail, the
           LEAVE would follow that ask and take the process out of the queue its waiting
           task stands in: dropped, the queue entry is wanted) */
        groupconc_redis__group_unref(r, l->g);
        GROUPCONC_REDIS_FREE(l);
    }
}

/* A renew command's reply: per lease renewed, restored (found gone, added back) or failed (no
   usable reply); each restored or failed one is reported after the batch. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__apply_renew(groupconc_redis *r,
                                                           const groupconc_redis__cmd *cmd) {
    const redisReply *rep = cmd->reply;
    bool arr = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == cmd->n;
    size_t failed = 0, restored = 0;
    for (size_t j = 0; j < cmd->n; j++) {
        if (!arr) failed++;
        else if (rep->element[j]->type == REDIS_REPLY_INTEGER && rep->element[j]->integer == 1)
            restored++;
    }
    r->st.renewals += cmd->n - failed - restored;
    r->st.renew_failed += failed + restored;
    r->st.leases_restored += restored;
    for (size_t j = 0; j < failed + restored; j++)
        groupconc_redis__pin(r, cmd->g, GROUPCONC_REDIS__PIN_REPORT, 0);
}

/* Process one batch's replies (under mu). Returns true if an error reply says the server cannot
   serve now (then the caller reconnects). */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__apply(groupconc_redis *r, size_t ncmds, int64_t now) {
    bool error_reply = false;
    for (size_t i = 0; i < ncmds; i++) {
        groupconc_redis__cmd *cmd = &r->cmds[i];
        const redisReply *rep = cmd->reply;
        if (rep && rep->type == REDIS_REPLY_ERROR) {
            if (groupconc_redis__server_error(rep)) error_reply = true;
            r->st.failures++;
            groupconc_redis__set_error(r, "error reply", rep->str);
        }
        switch (cmd->kind) {
        case GROUPCONC_REDIS__ACQ: groupconc_redis__apply_acquire(r, cmd, now); break;
        case GROUPCONC_REDIS__REL: groupconc_redis__apply_release(r, cmd); break;
        case GROUPCONC_REDIS__LEAVE: groupconc_redis__apply_leave(r, cmd); break;
        default: groupconc_redis__apply_renew(r, cmd); break; /* RENEW */
        }
    }
    return error_reply;
}

/* Release the batch's command resources (replies, renew arrays, group pins of the commands). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__cmds_free(groupconc_redis *r, size_t ncmds) {
    for (size_t i = 0; i < ncmds; i++) {
        if (r->cmds[i].reply) freeReplyObject(r->cmds[i].reply);
        r->cmds[i].reply = NULL;
        if (r->cmds[i].seqs) GROUPCONC_REDIS_FREE(r->cmds[i].seqs);
        r->cmds[i].seqs = NULL;
    }
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < ncmds; i++) groupconc_redis__group_unref(r, r->cmds[i].g);
    pthread_mutex_unlock(&r->mu);
}

/* A new command for g of `kind` (pins g); NULL: no memory. Under mu. */
GROUPCONC_REDIS__PRIVATE groupconc_redis__cmd *groupconc_redis__cmd_new(groupconc_redis *r, size_t *ncmds,
                                                                        groupconc_redis__group *g, int kind) {
    if (!groupconc_redis__grow((void **)&r->cmds, &r->cmds_cap, *ncmds + 1, sizeof *r->cmds)) return NULL;
    groupconc_redis__cmd *cmd = &r->cmds[(*ncmds)++];
    memset(cmd, 0, sizeof *cmd);
    cmd->kind = kind;
    cmd->g = g;
    g->refs++;
    return cmd;
}

/* The command of this batch that l joins: g's open one of l's kind (ACQ for an ask, LEAVE, else
   REL), or a new one when there is none yet or it holds GROUPCONC_REDIS_CHUNK nodes already; NULL:
   no memory. The group's command indexes are reset at its first node of batch `bid`. Under mu. */
GROUPCONC_REDIS__PRIVATE groupconc_redis__cmd *groupconc_redis__cmd_for(groupconc_redis *r, size_t *ncmds,
                                                                        const groupconc_redis__lease *l,
                                                                        uint64_t bid) {
    groupconc_redis__group *g = l->g;
    bool ask = l->state == GROUPCONC_REDIS__QUEUED;
    bool leave = l->state == GROUPCONC_REDIS__LEAVEQ;
    if (g->batch_id != bid) {
        g->batch_id = bid;
        g->cmd_acq = g->cmd_rel = g->cmd_leave = -1;
    }
    int *slot = ask ? &g->cmd_acq : leave ? &g->cmd_leave : &g->cmd_rel;
    int kind = ask ? GROUPCONC_REDIS__ACQ : leave ? GROUPCONC_REDIS__LEAVE : GROUPCONC_REDIS__REL;
    groupconc_redis__cmd *cmd = *slot >= 0 ? &r->cmds[*slot] : NULL;
    if (!cmd || cmd->n >= GROUPCONC_REDIS_CHUNK) {
        cmd = groupconc_redis__cmd_new(r, ncmds, g, kind);
        if (cmd) *slot = (int)(*ncmds - 1);
    }
    return cmd;
}

/* Move l (after prev in the queue, *pp pointing at it) from the queue to the end of cmd: an ask
   is SENT (remembering g->freed_seq), a release RELSENT. Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__queue_to_cmd(groupconc_redis *r, groupconc_redis__lease **pp,
                                                            groupconc_redis__lease *prev,
                                                            groupconc_redis__cmd *cmd) {
    groupconc_redis__lease *l = *pp;
    *pp = l->qnext;
    if (r->q_tail == l) r->q_tail = prev;
    r->q_count--;
    if (l->state == GROUPCONC_REDIS__QUEUED) {
        r->q_asks--;
        l->state = GROUPCONC_REDIS__SENT;
        l->freed_at_send = l->g->freed_seq;
    } else if (l->state == GROUPCONC_REDIS__RELQ) {
        l->state = GROUPCONC_REDIS__RELSENT;
    }
    l->qnext = NULL;
    if (cmd->last) cmd->last->qnext = l;
    else cmd->first = l;
    cmd->last = l;
    cmd->n++;
}

/* Releases, clean-ups and leaves (all), asks (up to batch_max) from the queue into r->cmds; what
   is left stays queued (asks past batch_max; everything from the first node without memory for
   its command on). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__take_queue(groupconc_redis *r, size_t *ncmds, uint64_t bid) {
    int asks = 0;
    groupconc_redis__lease **pp = &r->q_head, *prev = NULL;
    while (*pp) {
        groupconc_redis__lease *l = *pp;
        bool ask = l->state == GROUPCONC_REDIS__QUEUED;
        if (ask && asks >= r->batch_max) {
            prev = l;
            pp = &l->qnext;
            continue;
        }
        groupconc_redis__cmd *cmd = groupconc_redis__cmd_for(r, ncmds, l, bid);
        if (!cmd) break; /* no memory: the rest waits for the next batch */
        if (ask) asks++;
        groupconc_redis__queue_to_cmd(r, pp, prev, cmd);
    }
}

/* Renewals: one command per group (and chunk) holding leases. A group's renewals stop at the first
   chunk without memory (its leases are renewed next time, well within the TTL). Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__take_renewals(groupconc_redis *r, size_t *ncmds) {
    for (size_t b = 0; b < r->group_nbuckets; b++) {
        for (groupconc_redis__group *g = r->group_buckets[b]; g; g = g->next) {
            groupconc_redis__lease *l = g->held;
            while (l) {
                size_t n = 0;
                for (groupconc_redis__lease *x = l; x && n < GROUPCONC_REDIS_CHUNK; x = x->gnext) n++;
                uint64_t *seqs = (uint64_t *)GROUPCONC_REDIS_MALLOC(n * sizeof *seqs);
                groupconc_redis__cmd *cmd =
                    seqs ? groupconc_redis__cmd_new(r, ncmds, g, GROUPCONC_REDIS__RENEW) : NULL;
                if (!cmd) {
                    if (seqs) GROUPCONC_REDIS_FREE(seqs);
                    break;
                }
                cmd->seqs = seqs;
                for (size_t i = 0; i < n; i++, l = l->gnext) seqs[i] = l->seq;
                cmd->n = n;
            }
        }
    }
}

/* Releases first (their capacity serves the asks behind them), then leaves (before asks that may
   put this process back in the queue), renewals, asks; stable otherwise. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__order_cmds(groupconc_redis *r, size_t ncmds) {
    static const int order[4] = {GROUPCONC_REDIS__REL, GROUPCONC_REDIS__LEAVE, GROUPCONC_REDIS__RENEW,
                                 GROUPCONC_REDIS__ACQ};
    size_t w = 0;
    for (int pass = 0; pass < 4; pass++) {
        int want = order[pass];
        for (size_t i = w; i < ncmds; i++) {
            if (r->cmds[i].kind != want) continue;
            if (i != w) { /* rotate cmds[w..i] right by one to keep order */
                groupconc_redis__cmd t = r->cmds[i];
                memmove(&r->cmds[w + 1], &r->cmds[w], (i - w) * sizeof t);
                r->cmds[w] = t;
            }
            w++;
        }
    }
}

/* Take the queue's releases and up to batch_max asks, and the renewals when due, into r->cmds
   (releases first). Under mu. Returns the number of commands. */
GROUPCONC_REDIS__PRIVATE size_t groupconc_redis__take(groupconc_redis *r, bool renew, int64_t now) {
    size_t ncmds = 0;
    uint64_t bid = ++r->batch_id;
    groupconc_redis__take_queue(r, &ncmds, bid);
    if (renew) {
        groupconc_redis__take_renewals(r, &ncmds);
        r->next_renew_ns = now + r->renew_ns;
    }
    if (ncmds > 1) groupconc_redis__order_cmds(r, ncmds);
    return ncmds;
}

/* After a failed connect: asks still queued meet the failure policy (under mu). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__fail_queued_asks(groupconc_redis *r, int64_t now) {
    groupconc_redis__lease **pp = &r->q_head, *prev = NULL;
    while (*pp) {
        groupconc_redis__lease *l = *pp;
        if (l->state != GROUPCONC_REDIS__QUEUED) {
            prev = l;
            pp = &l->qnext;
            continue;
        }
        *pp = l->qnext;
        if (r->q_tail == l) r->q_tail = prev;
        r->q_count--;
        r->q_asks--;
        l->g->asking--;
        groupconc_redis__fail_ask(r, l, false, now);
    }
}

/* The polling fallback (under mu, which it drops around the notifies): every contended group is
   notified once (its oldest task answered BUSY is asked again); past GROUPCONC_REDIS_POLL_GROUPS
   of them, every task answered BUSY is (NULL). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__poll(groupconc_redis *r) {
    bool all = r->poll_all;
    r->poll_all = false;
    for (groupconc_redis__group *g = r->busy; g; g = g->busy_next)
        if (!groupconc_redis__pin(r, g, GROUPCONC_REDIS__PIN_POLL, 0)) all = true;
    r->st.notify_poll += all ? 1 : r->pins_n;
    r->next_poll_ns = groupconc_redis__now_ns() + r->poll_ns;
    pthread_mutex_unlock(&r->mu);
    groupconc_redis__flush(r, all);
    pthread_mutex_lock(&r->mu);
}

GROUPCONC_REDIS__PRIVATE void groupconc_redis__try_connect(groupconc_redis *r) {
    char err[160] = "";
    redisContext *c = groupconc_redis__connect_cmd(r, err, sizeof err);
    int64_t now = groupconc_redis__now_ns();
    pthread_mutex_lock(&r->mu);
    if (!c) {
        r->st.connect_failures++;
        groupconc_redis__set_error(r, err, NULL);
        r->state = GROUPCONC_REDIS__DOWN;
        groupconc_redis__fail_queued_asks(r, now);
        /* capped exponential backoff with +-20% jitter */
        r->backoff_ns = r->backoff_ns ? r->backoff_ns * 2 : r->backoff_min_ns;
        if (r->backoff_ns > r->backoff_max_ns) r->backoff_ns = r->backoff_max_ns;
        int64_t j = r->backoff_ns / 5;
        int64_t d = r->backoff_ns - j + (j > 0 ? (int64_t)(groupconc_redis__rand(r) % (uint64_t)(2 * j + 1)) : 0);
        r->next_connect_ns = now + d;
        pthread_mutex_unlock(&r->mu);
        groupconc_redis__flush(r, false);
        pthread_mutex_lock(&r->mu);
        return;
    }
    r->c = c;
    r->state = GROUPCONC_REDIS__UP;
    r->st.connected = true;
    r->st.connects++;
    if (r->ever_connected) {
        r->st.reconnects++;
        /* the subscriber may hold a stale connection to the old server: make it reconnect */
        r->sub_reset = true;
        if (write(r->wake_fd[1], "r", 1) < 0) {
            /* the pipe is full: the subscriber is being woken anyway */
        }
    }
    r->ever_connected = true;
    r->backoff_ns = 0;
    r->up_epoch++;
    r->next_renew_ns = now; /* renew (and restore lost leases) at once */
    /* Every task answered BUSY is asked again (flush below: NULL): messages may have been missed
       meanwhile. The contended groups stay listed; the polls unlist those with nobody waiting. */
    r->poll_all = false;
    r->st.notify_reconnect++;
    pthread_cond_broadcast(&r->ready_cond);
    pthread_mutex_unlock(&r->mu);
    groupconc_redis__flush(r, true);
    pthread_mutex_lock(&r->mu);
}

/* Down: held leases cannot be renewed. When renewals are due, each held lease counts as a failed
   renewal and is reported (pinned, then flush); no memory for a pin drops the rest of its group's
   reports. Under mu (dropped around the flush). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__report_unrenewed(groupconc_redis *r, int64_t now) {
    for (size_t b = 0; b < r->group_nbuckets; b++)
        for (groupconc_redis__group *g = r->group_buckets[b]; g; g = g->next)
            for (size_t i = 0; i < g->held_count; i++) {
                r->st.renew_failed++;
                if (!groupconc_redis__pin(r, g, GROUPCONC_REDIS__PIN_REPORT, 0)) break;
            }
    r->next_renew_ns = now + r->renew_ns;
    pthread_mutex_unlock(&r->mu);
    groupconc_redis__flush(r, false);
    pthread_mutex_lock(&r->mu);
}

/* One turn of the I/O loop while the command connection is not up: connect when the backoff
   allows, else report the renewals due, else sleep until one of the two. Under mu, on return too.
   Returns true when the thread should end (stop asked). */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__io_down(groupconc_redis *r, int64_t now) {
    if (r->stop) return true;
    if (now >= r->next_connect_ns) {
        pthread_mutex_unlock(&r->mu);
        groupconc_redis__try_connect(r); /* returns holding mu */
        return false;
    }
    if (r->lease_count > 0 && now >= r->next_renew_ns) {
        groupconc_redis__report_unrenewed(r, now);
        return false;
    }
    int64_t until = r->next_connect_ns;
    if (r->lease_count > 0 && r->next_renew_ns < until) until = r->next_renew_ns;
    r->io_waiting = true;
    groupconc_redis__cond_wait_until(&r->io_cond, &r->mu, until);
    r->io_waiting = false;
    return false;
}

/* Up with nothing to send: sleep until something is queued, or the next renewal or poll is due.
   Under mu. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__io_idle(groupconc_redis *r, int64_t now) {
    int64_t until = r->lease_count > 0 ? r->next_renew_ns : now + (int64_t)3600 * 1000000000;
    if ((r->busy || r->poll_all) && r->next_poll_ns < until) until = r->next_poll_ns;
    r->io_waiting = true;
    groupconc_redis__cond_wait_until(&r->io_cond, &r->mu, until);
    r->io_waiting = false;
}

/* After stop: one more round only while releases (or clean-ups, leaves) are queued, and at most 100
   of them (100: memory that never comes back); it takes no asks (destroy answers them). Under mu.
   Returns whether to run that round. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__last_round(groupconc_redis *r, int *last_rounds) {
    bool rel = false;
    for (groupconc_redis__lease *l = r->q_head; l; l = l->qnext)
        if (l->state != GROUPCONC_REDIS__QUEUED) rel = true;
    if (!rel || ++*last_rounds > 100) return false;
    r->batch_max = 0; /* take no asks */
    return true;
}

/* NOSCRIPT (the script cache was flushed): resend those commands with EVAL, one by one (each its
   own round trip). Returns false if the connection failed (it is closed and the state is DOWN).
   No lock held. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__resend_noscript(groupconc_redis *r, size_t ncmds) {
    for (size_t i = 0; i < ncmds; i++) {
        if (!groupconc_redis__is_noscript(r->cmds[i].reply)) continue;
        freeReplyObject(r->cmds[i].reply);
        r->cmds[i].reply = NULL;
        r->cmds[i].eval = true;
        int argc;
        redisReply *rep = NULL;
        if (!groupconc_redis__build(r, &r->cmds[i], &argc) ||
            redisAppendCommandArgv(r->c, argc, r->argv, r->argvlen) != REDIS_OK ||
            redisGetReply(r->c, (void **)&rep) != REDIS_OK || !rep) {
            groupconc_redis__disconnect(r, "round trip failed (EVAL)",
                                        r->c && r->c->errstr[0] ? r->c->errstr : NULL);
            return false;
        }
        r->cmds[i].reply = rep;
        pthread_mutex_lock(&r->mu);
        r->st.noscript++;
        r->st.round_trips++;
        r->st.commands++;
        pthread_mutex_unlock(&r->mu);
    }
    return true;
}

/* One batch: take what is due, send it in one round trip (NOSCRIPT ones again with EVAL), apply
   the replies, then answer, notify and report with no lock held. Under mu, on return too. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__io_round(groupconc_redis *r, bool renew, int64_t now) {
    size_t ncmds = groupconc_redis__take(r, renew, now);
    pthread_mutex_unlock(&r->mu);
    if (ncmds == 0) { /* no memory for a command: wait a little */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&r->mu);
        return; /* at stop: the last rounds try again (bounded by last_round) */
    }
    bool ok = groupconc_redis__round_trip(r, ncmds);
    if (ok) ok = groupconc_redis__resend_noscript(r, ncmds);
    now = groupconc_redis__now_ns();
    pthread_mutex_lock(&r->mu);
    bool error_reply = groupconc_redis__apply(r, ncmds, now);
    if (!ok) groupconc_redis__fail_queued_asks(r, now);
    pthread_mutex_unlock(&r->mu);
    groupconc_redis__cmds_free(r, ncmds);
    groupconc_redis__flush(r, false);
    if (ok && error_reply) {
        /* LOADING, READONLY, OOM, NOAUTH, ...: the server cannot serve now; reconnect (with
           backoff) and check it again. The reason is in last_error already. */
        groupconc_redis__disconnect(r, NULL, NULL);
    }
    pthread_mutex_lock(&r->mu);
}

GROUPCONC_REDIS__PRIVATE void *groupconc_redis__io_main(void *arg) {
    groupconc_redis *r = (groupconc_redis *)arg;
    int last_rounds = 0; /* rounds since stop: a round that fails for memory is tried again */
    pthread_mutex_lock(&r->mu);
    for (;;) {
        int64_t now = groupconc_redis__now_ns();
        if (r->state != GROUPCONC_REDIS__UP) {
            if (groupconc_redis__io_down(r, now)) break;
            continue;
        }
        bool renew = r->lease_count > 0 && now >= r->next_renew_ns;
        bool poll = (r->busy || r->poll_all) && now >= r->next_poll_ns;
        if (poll && !r->stop) {
            groupconc_redis__poll(r);
            continue;
        }
        if (r->stop) {
            /* last round: send the releases still queued (asks are answered by destroy) */
            if (!groupconc_redis__last_round(r, &last_rounds)) break;
            renew = false;
        } else if (r->q_count == 0 && !renew) {
            groupconc_redis__io_idle(r, now);
            continue;
        }
        groupconc_redis__io_round(r, renew, now);
    }
    r->state = GROUPCONC_REDIS__DOWN;
    r->st.connected = false;
    pthread_mutex_unlock(&r->mu);
    if (r->c) {
        redisFree(r->c);
        r->c = NULL;
    }
    return NULL;
}

/* ==== the subscriber thread ==== */

/* Wait on the wake pipe up to `ns` (negative: forever); true if stop was asked. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__sub_wait(groupconc_redis *r, int fd, int64_t ns,
                                                        bool *out_readable) {
    struct pollfd p[2];
    int n = 0;
    p[n].fd = r->wake_fd[0];
    p[n].events = POLLIN;
    p[n++].revents = 0;
    if (fd >= 0) {
        p[n].fd = fd;
        p[n].events = POLLIN;
        p[n++].revents = 0;
    }
    int timeout = ns < 0 ? -1 : (int)((ns + 999999) / 1000000);
    int rc = poll(p, (nfds_t)n, timeout);
    if (out_readable) *out_readable = rc > 0 && n > 1 && (p[1].revents & (POLLIN | POLLHUP | POLLERR));
    if (rc > 0 && (p[0].revents & POLLIN)) {
        char buf[64];
        while (read(r->wake_fd[0], buf, sizeof buf) > 0) {
        }
    }
    pthread_mutex_lock(&r->mu);
    bool stop = r->stop;
    pthread_mutex_unlock(&r->mu);
    return stop;
}

/* A message "<free>:<group>": `free` leases of the group were freed. Each local task answered
   BUSY may take one: notify the group once per lease (at most GROUPCONC_REDIS__NOTIFY_MAX). A
   group that is not contended here has no task answered BUSY: nothing to do (but an ask of it on
   its way to Redis learns of the lease through freed_seq). */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__on_message(groupconc_redis *r, const char *msg, size_t len) {
    unsigned long free_n = 0;
    size_t i = 0;
    while (i < len && i < 12 && msg[i] >= '0' && msg[i] <= '9') free_n = free_n * 10 + (unsigned long)(msg[i++] - '0');
    if (i == 0 || i >= len || msg[i] != ':') return; /* not one of ours */
    const char *group = msg + i + 1;
    len -= i + 1;
    if (len == 0 || len > GROUPCONC_REDIS_MAX_KEY_LEN || free_n == 0) return;
    char key[GROUPCONC_REDIS_MAX_KEY_LEN + 1];
    memcpy(key, group, len);
    key[len] = '\0';
    if (strlen(key) != len) return; /* an embedded NUL: not a key of ours */
    if (free_n > GROUPCONC_REDIS__NOTIFY_MAX) free_n = GROUPCONC_REDIS__NOTIFY_MAX;
    pthread_mutex_lock(&r->mu);
    groupconc_redis__group *g = groupconc_redis__group_find(r, key, len, groupconc_redis__hash(key, len));
    if (g) g->freed_seq += free_n;
    bool notify = (g && g->busy_listed) || r->poll_all;
    if (notify) r->st.notify_pubsub++;
    uint64_t asks = 0;
    if (notify && g && g->busy_listed) {
        g->refs++; /* kept until the notifies are made */
        asks = g->asks;
    } else {
        g = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    if (!notify) return;
    groupconc_executor *ex = groupconc_redis__ex_enter(r);
    if (ex)
        for (unsigned long k = 0; k < free_n; k++) groupconc_fleet_notify(ex, key);
    if (g) {
        pthread_mutex_lock(&r->mu);
        if (ex) groupconc_redis__unlist_idle(r, g, asks); /* nobody here to take it: leave the queue */
        groupconc_redis__group_unref(r, g);
        pthread_mutex_unlock(&r->mu);
    }
    groupconc_redis__ex_leave(r, ex);
}

GROUPCONC_REDIS__PRIVATE void *groupconc_redis__sub_main(void *arg) {
    groupconc_redis *r = (groupconc_redis *)arg;
    int64_t backoff = 0;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        bool stop = r->stop;
        r->sub_reset = false;
        pthread_mutex_unlock(&r->mu);
        if (stop) break;
        char err[160] = "";
        redisContext *c = groupconc_redis__connect(r, err, sizeof err);
        if (c) {
            const char *argv[2] = {"SUBSCRIBE", r->channel};
            size_t lens[2] = {9, r->channel_len};
            redisReply *rep = (redisReply *)redisCommandArgv(c, 2, argv, lens);
            if (!rep || rep->type != REDIS_REPLY_ARRAY) {
                (void)snprintf(err, sizeof err, "SUBSCRIBE: %s",
                         rep && rep->type == REDIS_REPLY_ERROR ? rep->str : c->errstr);
                redisFree(c);
                c = NULL;
            }
            if (rep) freeReplyObject(rep);
        }
        if (!c) {
            backoff = backoff ? backoff * 2 : r->backoff_min_ns;
            if (backoff > r->backoff_max_ns) backoff = r->backoff_max_ns;
            if (groupconc_redis__sub_wait(r, -1, backoff, NULL)) break;
            continue;
        }
        backoff = 0;
        pthread_mutex_lock(&r->mu);
        r->sub_connected = true;
        r->st.subscribed = true;
        pthread_mutex_unlock(&r->mu);
        /* Messages sent while not subscribed are lost: every BUSY task is asked again. */
        groupconc_executor *ex = groupconc_redis__ex_enter(r);
        if (ex) groupconc_fleet_notify(ex, NULL);
        groupconc_redis__ex_leave(r, ex);
        bool stop_now = false;
        for (;;) {
            bool readable = false;
            if (groupconc_redis__sub_wait(r, c->fd, -1, &readable)) {
                stop_now = true;
                break;
            }
            pthread_mutex_lock(&r->mu);
            bool reset = r->sub_reset;
            pthread_mutex_unlock(&r->mu);
            if (reset) break;
            if (!readable) continue;
            if (redisBufferRead(c) != REDIS_OK) break;
            redisReply *rep = NULL;
            bool bad = false;
            while (redisGetReplyFromReader(c, (void **)&rep) == REDIS_OK && rep) {
                if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 3 &&
                    rep->element[0]->type == REDIS_REPLY_STRING && strcmp(rep->element[0]->str, "message") == 0 &&
                    rep->element[2]->type == REDIS_REPLY_STRING)
                    groupconc_redis__on_message(r, rep->element[2]->str, rep->element[2]->len);
                freeReplyObject(rep);
                rep = NULL;
            }
            if (c->err) bad = true;
            if (bad) break;
        }
        redisFree(c);
        pthread_mutex_lock(&r->mu);
        r->sub_connected = false;
        r->st.subscribed = false;
        pthread_mutex_unlock(&r->mu);
        if (stop_now) break;
    }
    return NULL;
}

/* ==== public API ==== */

/* create's copies of the configuration's strings, in this order (the allocation-failure test fails
   each allocation in turn): the prefix, the channel "<prefix>freed", the address, the password,
   the username. Every allocation is tried even after one failed (destroy frees what was made).
   Returns false if one failed. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__copy_strings(groupconc_redis *r,
                                                            const groupconc_redis_config *config) {
    const char *prefix = config->key_prefix ? config->key_prefix : "groupconc:";
    r->prefix_len = strlen(prefix);
    r->prefix = groupconc_redis__strdup(prefix);
    r->channel_len = r->prefix_len + 5;
    r->channel = (char *)GROUPCONC_REDIS_MALLOC(r->channel_len + 1);
    if (r->channel) {
        memcpy(r->channel, prefix, r->prefix_len);
        memcpy(r->channel + r->prefix_len, "freed", 6);
    }
    bool ok = r->prefix && r->channel;
    if (config->unix_path) {
        r->unix_path = groupconc_redis__strdup(config->unix_path);
        ok = ok && r->unix_path;
    } else {
        r->host = groupconc_redis__strdup(config->host);
        ok = ok && r->host;
    }
    if (config->password) {
        r->password = groupconc_redis__strdup(config->password);
        ok = ok && r->password;
    }
    if (config->username) {
        r->username = groupconc_redis__strdup(config->username);
        ok = ok && r->username;
    }
    return ok;
}

/* create's copy of the caps table: the entries, then their keys in one block, sorted by key for
   cap_of's binary search. Both allocations are tried (destroy frees what was made). Returns false
   if one failed. */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__copy_caps(groupconc_redis *r,
                                                         const groupconc_redis_config *config) {
    size_t total = 0;
    for (size_t i = 0; i < config->cap_count; i++) total += strlen(config->caps[i].group) + 1;
    r->caps = (groupconc_redis__capent *)GROUPCONC_REDIS_MALLOC(config->cap_count * sizeof *r->caps);
    r->cap_keys = (char *)GROUPCONC_REDIS_MALLOC(total);
    if (!r->caps || !r->cap_keys) return false;
    char *k = r->cap_keys;
    for (size_t i = 0; i < config->cap_count; i++) {
        size_t n = strlen(config->caps[i].group) + 1;
        memcpy(k, config->caps[i].group, n);
        r->caps[i].key = k;
        r->caps[i].cap = config->caps[i].cap;
        k += n;
    }
    r->cap_count = config->cap_count;
    qsort(r->caps, r->cap_count, sizeof *r->caps, groupconc_redis__cap_cmp);
    return true;
}

/* create's copy of the numbers (checked already), and what follows from them. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__copy_numbers(groupconc_redis *r,
                                                            const groupconc_redis_config *config) {
    r->port = config->port;
    r->default_cap = config->default_cap;
    r->ttl_ms = (config->lease_ttl_ns + 999999) / 1000000;
    r->renew_ns = config->renew_interval_ns ? config->renew_interval_ns : config->lease_ttl_ns / 3;
    r->poll_ns = config->poll_interval_ns;
    r->connect_ns = config->connect_timeout_ns;
    r->command_ns = config->command_timeout_ns;
    r->backoff_min_ns = config->backoff_min_ns;
    r->backoff_max_ns = config->backoff_max_ns;
    r->on_failure = config->on_failure;
    r->batch_max = config->batch_max;
    /* A process with tasks answered BUSY asks at every poll at least: two polls and a round trip
       without an ask mean it is gone. */
    r->stale_ms = config->fifo ? (2 * config->poll_interval_ns + config->command_timeout_ns) / 1000000 + 100 : 0;
}

/* The lease id's prefix: host, pid and 64 random bits, so ids never collide across the fleet (nor
   across restarts of one pid); the jitter's generator is seeded from the same bits. */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__make_instance(groupconc_redis *r) {
    uint64_t rnd = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &rnd, sizeof rnd) != (ssize_t)sizeof rnd) rnd = 0;
        close(fd);
    }
    rnd ^= (uint64_t)groupconc_redis__now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)r;
    char host[64] = "host";
    if (gethostname(host, sizeof host) != 0) (void)snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    for (char *h = host; *h; h++)
        if (*h == '/' || *h == ' ') *h = '_';
    int n = snprintf(r->instance, sizeof r->instance, "%s/%ld/%016llx/", host, (long)getpid(),
                     (unsigned long long)rnd);
    r->instance_len = (size_t)n < sizeof r->instance ? (size_t)n : sizeof r->instance - 1;
    r->rng = (uint32_t)(rnd ^ (rnd >> 32));
    if (!r->rng) r->rng = 1;
}

/* The mutex and the conds (on CLOCK_MONOTONIC: the timed waits take monotonic deadlines), then the
   subscriber's wake-up pipe, both ends non-blocking and close-on-exec. Returns false if the pipe
   could not be made (its fds are -1 then). */
GROUPCONC_REDIS__PRIVATE bool groupconc_redis__make_sync(groupconc_redis *r) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->io_cond, &ca);
    pthread_cond_init(&r->ready_cond, &ca);
    pthread_condattr_destroy(&ca);
    r->sync_made = true;
    if (pipe(r->wake_fd) != 0) {
        r->wake_fd[0] = r->wake_fd[1] = -1;
        return false;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(r->wake_fd[i], F_SETFL, fcntl(r->wake_fd[i], F_GETFL) | O_NONBLOCK);
        fcntl(r->wake_fd[i], F_SETFD, FD_CLOEXEC);
    }
    return true;
}

/* Start the I/O thread, then the subscriber thread. Only the two threads touch the sockets. They
   start with SIGPIPE blocked (inherited), so that a write to a server that went away fails with
   EPIPE instead of killing the process (hiredis uses write(), not send(MSG_NOSIGNAL)); a SIGPIPE
   raised by such a write is thread-directed: it stays pending on that thread and reaches no other.
   The caller's signal mask is restored. Returns pthread_create's code (0: both started). */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__start_threads(groupconc_redis *r) {
    sigset_t pipe_set, old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    int trc = pthread_create(&r->io_thread, NULL, groupconc_redis__io_main, r);
    r->io_started = trc == 0;
    if (trc == 0) {
        trc = pthread_create(&r->sub_thread, NULL, groupconc_redis__sub_main, r);
        r->sub_started = trc == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    return trc;
}

GROUPCONC_REDIS_API int groupconc_redis_create(const groupconc_redis_config *config, groupconc_redis **out) {
    if (out) *out = NULL;
    int rc = groupconc_redis_config_check(config, NULL);
    if (rc != GROUPCONC_OK) return rc;
    if (!out) return GROUPCONC_EINVAL;
    groupconc_redis *r = (groupconc_redis *)GROUPCONC_REDIS_MALLOC(sizeof *r);
    if (!r) return GROUPCONC_ENOMEM;
    memset(r, 0, sizeof *r);
    r->wake_fd[0] = r->wake_fd[1] = -1;
    bool ok = groupconc_redis__copy_strings(r, config);
    if (ok && config->cap_count) ok = groupconc_redis__copy_caps(r, config);
    if (!ok) {
        groupconc_redis_destroy(r);
        return GROUPCONC_ENOMEM;
    }
    groupconc_redis__copy_numbers(r, config);
    r->state = GROUPCONC_REDIS__CONNECTING;
    groupconc_redis__make_instance(r);
    if (!groupconc_redis__make_sync(r) || groupconc_redis__start_threads(r) != 0) {
        groupconc_redis_destroy(r);
        return GROUPCONC_ETHREAD;
    }
    *out = r;
    return GROUPCONC_OK;
}

/* The attach callback: groupconc_executor_create hands the executor over (no lock held). A second
   executor while one is attached is refused: its executor_create returns GROUPCONC_EBUSY (its
   tasks answered BUSY would never be notified). */
GROUPCONC_REDIS__PRIVATE int groupconc_redis__attach(void *user_data, groupconc_executor *ex) {
    groupconc_redis *r = (groupconc_redis *)user_data;
    int rc = GROUPCONC_OK;
    pthread_mutex_lock(&r->mu);
    if (!r->ex) r->ex = ex;
    else rc = GROUPCONC_EBUSY;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* The detach callback: groupconc_executor_destroy takes the executor back, after its last request
   was answered and its last lease given back. No call into it may follow: wait for the calls in
   flight (a notify or report on the I/O or subscriber thread, a local-release notify). */
/* ex is not const: the type of the policy's detach callback */
/* cppcheck-suppress constParameter */
GROUPCONC_REDIS__PRIVATE void groupconc_redis__detach(void *user_data, groupconc_executor *ex) {
    groupconc_redis *r = (groupconc_redis *)user_data;
    pthread_mutex_lock(&r->mu);
    if (r->ex == ex) {
        r->ex = NULL;
        while (r->ex_users > 0) pthread_cond_wait(&r->ready_cond, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
}

GROUPCONC_REDIS_API int groupconc_redis_provider(groupconc_redis *redis,
                                                 groupconc_fleet_provider *out_provider) {
    if (!redis || !out_provider) return GROUPCONC_EINVAL;
    out_provider->acquire = groupconc_redis__acquire;
    out_provider->release = groupconc_redis__release;
    out_provider->user_data = redis;
    out_provider->attach = groupconc_redis__attach;
    out_provider->detach = groupconc_redis__detach;
    return GROUPCONC_OK;
}

GROUPCONC_REDIS_API int groupconc_redis_wait_ready(groupconc_redis *redis, int64_t timeout_ns) {
    if (!redis) return GROUPCONC_EINVAL;
    int64_t deadline = timeout_ns < 0 ? INT64_MAX : groupconc_redis__now_ns() + timeout_ns;
    pthread_mutex_lock(&redis->mu);
    while (redis->state != GROUPCONC_REDIS__UP && !redis->stop) {
        int64_t now = groupconc_redis__now_ns();
        if (now >= deadline) break;
        int64_t until = deadline - now > (int64_t)3600 * 1000000000 ? now + (int64_t)3600 * 1000000000 : deadline;
        groupconc_redis__cond_wait_until(&redis->ready_cond, &redis->mu, until);
    }
    bool up = redis->state == GROUPCONC_REDIS__UP;
    pthread_mutex_unlock(&redis->mu);
    return up ? GROUPCONC_OK : GROUPCONC_ETIMEDOUT;
}

GROUPCONC_REDIS_API int groupconc_redis_stats_get(groupconc_redis *redis, groupconc_redis_stats *out_stats) {
    if (!redis || !out_stats) return GROUPCONC_EINVAL;
    pthread_mutex_lock(&redis->mu);
    *out_stats = redis->st;
    out_stats->leases_held = redis->lease_count;
    out_stats->queued = redis->q_count;
    pthread_mutex_unlock(&redis->mu);
    return GROUPCONC_OK;
}

GROUPCONC_REDIS_API int groupconc_redis_destroy(groupconc_redis *r) {
    if (!r) return GROUPCONC_EINVAL;
    if (r->sync_made) { /* its executor would call release on freed memory */
        pthread_mutex_lock(&r->mu);
        bool attached = r->ex != NULL;
        pthread_mutex_unlock(&r->mu);
        if (attached) return GROUPCONC_EBUSY;
    }
    if (r->io_started || r->sub_started) {
        pthread_mutex_lock(&r->mu);
        /* leave the wait queues (sent in the I/O thread's last round, if Redis is up) */
        for (groupconc_redis__group *g = r->busy; g; g = g->busy_next) groupconc_redis__leave(r, g);
        r->stop = true;
        pthread_cond_broadcast(&r->io_cond);
        pthread_cond_broadcast(&r->ready_cond);
        pthread_mutex_unlock(&r->mu);
        if (write(r->wake_fd[1], "s", 1) < 0) {
            /* full: the subscriber wakes anyway */
        }
        if (r->io_started) pthread_join(r->io_thread, NULL);
        if (r->sub_started) pthread_join(r->sub_thread, NULL);
    }
    /* Whatever is left: asks are answered (REJECT for the closed policies: nothing would notify a
       BUSY task now), releases and clean-ups dropped (their leases expire in Redis). */
    groupconc_redis__lease *l = r->q_head;
    r->q_head = r->q_tail = NULL;
    while (l) {
        groupconc_redis__lease *next = l->qnext;
        if (l->state == GROUPCONC_REDIS__QUEUED && l->req) {
            groupconc_fleet_verdict v = groupconc_redis__fail_verdict(r, true);
            groupconc_fleet_answer(l->req, v, 0);
        }
        GROUPCONC_REDIS_FREE(l);
        l = next;
    }
    for (size_t b = 0; b < r->lease_nbuckets; b++) {
        groupconc_redis__lease *x = r->lease_buckets[b];
        while (x) {
            groupconc_redis__lease *nx = x->hnext;
            GROUPCONC_REDIS_FREE(x);
            x = nx;
        }
    }
    for (size_t b = 0; b < r->group_nbuckets; b++) {
        groupconc_redis__group *g = r->group_buckets[b];
        while (g) {
            groupconc_redis__group *ng = g->next;
            GROUPCONC_REDIS_FREE(g);
            g = ng;
        }
    }
    if (r->sync_made) {
        pthread_cond_destroy(&r->io_cond);
        pthread_cond_destroy(&r->ready_cond);
        pthread_mutex_destroy(&r->mu);
    }
    if (r->wake_fd[0] >= 0) close(r->wake_fd[0]);
    if (r->wake_fd[1] >= 0) close(r->wake_fd[1]);
    if (r->c) redisFree(r->c);
    GROUPCONC_REDIS_FREE(r->lease_buckets);
    GROUPCONC_REDIS_FREE(r->group_buckets);
    GROUPCONC_REDIS_FREE(r->cmds);
    GROUPCONC_REDIS_FREE(r->answers);
    GROUPCONC_REDIS_FREE(r->pins);
    GROUPCONC_REDIS_FREE(r->scratch);
    GROUPCONC_REDIS_FREE(r->argv);
    GROUPCONC_REDIS_FREE(r->argvlen);
    GROUPCONC_REDIS_FREE(r->caps);
    GROUPCONC_REDIS_FREE(r->cap_keys);
    GROUPCONC_REDIS_FREE(r->unix_path);
    GROUPCONC_REDIS_FREE(r->host);
    GROUPCONC_REDIS_FREE(r->username);
    GROUPCONC_REDIS_FREE(r->password);
    GROUPCONC_REDIS_FREE(r->prefix);
    GROUPCONC_REDIS_FREE(r->channel);
    GROUPCONC_REDIS_FREE(r);
    return GROUPCONC_OK;
}

/* ==== diagnostics ==== */

GROUPCONC_REDIS_API const char *groupconc_redis_strerror(int code) {
    switch (code) {
#define GROUPCONC_REDIS__ERR_STR(name, value, text) \
    case value: return text;
        GROUPCONC_REDIS_ERRNO_MAP(GROUPCONC_REDIS__ERR_STR)
#undef GROUPCONC_REDIS__ERR_STR
    default: return groupconc_strerror(code);
    }
}

GROUPCONC_REDIS_API const char *groupconc_redis_errname(int code) {
    switch (code) {
#define GROUPCONC_REDIS__ERR_NAME(name, value, text) \
    case value: return "GROUPCONC_REDIS_" #name;
        GROUPCONC_REDIS_ERRNO_MAP(GROUPCONC_REDIS__ERR_NAME)
#undef GROUPCONC_REDIS__ERR_NAME
    default: return groupconc_errname(code);
    }
}

GROUPCONC_REDIS_API const char *groupconc_redis_failure_name(groupconc_redis_failure failure) {
    switch (failure) {
    case GROUPCONC_REDIS_FAIL_CLOSED_WAIT: return "FAIL_CLOSED_WAIT";
    case GROUPCONC_REDIS_FAIL_CLOSED_REJECT: return "FAIL_CLOSED_REJECT";
    case GROUPCONC_REDIS_FAIL_OPEN: return "FAIL_OPEN";
    }
    return "UNKNOWN";
}

#endif /* GROUPCONC_REDIS_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the groupconc authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
