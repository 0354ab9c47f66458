/* groupconc.h - v1.0.0 - grouped concurrency control for C11 - MIT license (full text at end)

   "At most N at once per key": tasks are submitted under a group key (a tenant, an endpoint, a
   priority class); groups run in parallel; each group has its own concurrency cap, and a global
   in-flight cap, a per-group in-flight cap (bulkhead) and bounded waiting queues keep any one group
   from swamping the process.

   1. QUICK START
       // in exactly one .c file:
       #define GROUPCONC_IMPLEMENTATION
       #include "groupconc.h"

       groupconc_policy policy = groupconc_policy_default();
       groupconc_executor *ex;
       groupconc_task *task;
       groupconc_result res;
       groupconc_executor_create(&policy, &ex);
       groupconc_submit(ex, "tenant-a", "job-1", my_fn, my_arg, &task);
       groupconc_task_wait(task, &res);          // res.status, res.value, res.error, res.reason
       groupconc_task_release(task);
       groupconc_executor_destroy(ex);
   (examples/01_quick_start.c: caps from a resolver, every return code checked; the README shows
   it with what it prints. docs/guide.md: recipes by task. This manual is the reference.)

   CONTENTS
       Manual: 1. QUICK START, 2. CONFIGURATION, 3. CONCEPTS, 4. EVENTS AND COUNTERS, 5. THREADS
       AND CALLBACKS, 6. WHERE CALLBACKS RUN, 7. ERRORS, 8. THE JSON DUMP, 9. LIMITATIONS, 10. HISTORY
       Declarations: [1] error codes  [2] constants and enums  [3] opaque types, results and callbacks
       [4] policy  [5] executor lifecycle  [6] submit and handles  [7] group control and stats
       [8] admission gate  [9] structured scopes and the dump  [10] fleet layer  [11] diagnostics
       Implementation sections: grep -n '====' groupconc.h

   2. CONFIGURATION
       macro                      where            default              effect
       GROUPCONC_IMPLEMENTATION   one TU           -                    compile the implementation here (as C, not C++)
       GROUPCONC_STATIC           every TU         -                    make every function static (private copy per TU:
                                                                        LIMITATIONS)
       GROUPCONC_API              every TU         extern               decoration of public declarations
       GROUPCONC_NO_GATE          every TU         -                    leave the admission gate out (section [8]): its
                                                                        types, functions, groupconc_release_kind_name,
                                                                        groupconc_gate_event_type_name and their code;
                                                                        stats' gate_permits stay (always 0)
       GROUPCONC_NO_SCOPES        every TU         -                    leave structured scopes out (section [9]): their
                                                                        types, functions, groupconc_scope_policy_name
                                                                        and their code; the dump's "scopes" is empty
       GROUPCONC_NO_DUMP          every TU         -                    leave the JSON dump out (section [9]):
                                                                        groupconc_executor_dump[_file], their code, and
                                                                        the declarations' #include <stdio.h>
       GROUPCONC_MALLOC(sz)       impl TU          malloc(sz)           allocator; define MALLOC and FREE together or neither
       GROUPCONC_FREE(p)          impl TU          free(p)
       GROUPCONC_ASSERT(x)        impl TU          assert(x)            internal invariants only, never user input
       GROUPCONC_DEBUG            impl TU          on unless NDEBUG     extra invariant checks (permit counts, queue links)
       GROUPCONC_MAX_KEY_LEN      impl TU          256                  longest accepted group key, bytes (>= 1)
       GROUPCONC_BATCH_MAX        impl TU          16                   most short tasks a worker takes per locked step
                                                                        (>= 1; 1: one at a time; see Worker pool)
       GROUPCONC_SPIN_NS          impl TU          50000                how long an idle worker polls for new tasks
                                                                        before it sleeps, after short tasks (>= 0; 0: never)
       GROUPCONC_USE_WIN32        impl TU          on _WIN32            Win32 backend (SRW locks, condition variables,
                                                                        _beginthreadex, QueryPerformanceCounter); chosen
                                                                        on _WIN32 unless GROUPCONC_USE_PTHREADS is
                                                                        defined; 0 turns it off
       GROUPCONC_USE_PTHREADS     impl TU          auto                 POSIX threads backend instead of C11 <threads.h>;
                                                                        chosen automatically under ThreadSanitizer and
                                                                        where __STDC_NO_THREADS__ is defined; 0 forces
                                                                        C11 threads
       GROUPCONC_TEST_THREAD_START_FAILS()  impl TU  0                  test hook: non-zero makes the next worker start fail
       GROUPCONC_TEST_TASK_PUBLISHED(task)  impl TU  nothing            test hook: called on a worker for each task it ran
                                                                        and published, before it finishes it (a test
                                                                        may block there: a batch left behind)
       GROUPCONC_TEST_WORKER_STARTING()     impl TU  nothing            test hook: called on a new worker's thread before it
                                                                        first takes the executor lock (a test may hold
                                                                        it there: a worker on its way)
       GROUPCONC_TEST_CHAIN_END(k)          impl TU  nothing            test hook: called under the executor lock when a
                                                                        worker's chain ends, with the number of chained
                                                                        tasks it had committed to (a serial run's chain)
   The three GROUPCONC_NO_* switches are independent: the rest of the library does not depend on
   the modules they leave out, and the error codes keep their numbers in every configuration
   (codes used only by a module left out are still defined, never returned). A bad value of a
   numeric macro, or the implementation compiled as C++, stops the build with an #error that
   names it. The internal tunables (spin tries, nap length, batch thresholds, node
   cache) are listed with their reasons in the implementation's "configuration" section.

   3. CONCEPTS
       Group keys     any non-empty NUL-terminated string up to GROUPCONC_MAX_KEY_LEN bytes; copied.
                      A group's state is created on first use and cached; its limits are resolved once
                      at creation ("first resolution fixed") and kept until the group is evicted.
       Group limits   a group's concurrency comes from the policy's table (policy.groups), else the
                      resolver (policy.resolver: a per-key function), else default_concurrency; its
                      in-flight cap, queue threshold and queue deadline from the table, else the
                      policy's defaults. The executor copies the policy, table and keys included.
       Layers         taken in this order, released in reverse, only the permits actually held; each
                      has one name, used by the stats (waiting_*), the reasons (EREJECTED_*,
                      EEXPIRED_*) and the dump:
                      global in-flight   tasks past it (waiting at a later layer, ready or running),
                                         all groups (global_max_in_flight)
                      bulkhead           a group's tasks past it (max_in_flight)
                      concurrency        a group's tasks past it (concurrency); pause shuts it
                      fleet              with policy.fleet only: a lease from the provider, asked for
                                         and answered (section [10]); holds no local permit
                      global running     tasks holding every permit (ready, running, deferred) and
                                         executor gate permits, all groups (global_max_running);
                                         unlimited by default; pause shuts it too
                      Each local layer is a fair semaphore with a FIFO of waiting task nodes; a released permit
                      is handed directly to the oldest waiter (no barging). Waiting tasks own no thread.
       Global caps    which cap for which wish:
                        "at most N running overall"      global_max_running = N (global running): taken
                                                         after the group's permit, FIFO across
                                                         groups, so it never idles while any group
                                                         could run (16 overall, 2 per host: 16 run)
                        "at most N admitted overall"     global_max_in_flight = N (global in-flight, the
                                                         seed's): counts tasks still WAITING at their
                                                         group's layers, so with 16 and 2 per host,
                                                         tasks submitted host by host can run 4 at once
                        "at most N waiting (memory)"     max_waiting = N: a new waiter beyond it is
                                                         refused (GROUPCONC_EREJECTED_WAITING); so
                                                         is a group's first waiter when its queues
                                                         (64 bytes, made on its first wait) cannot
                                                         be allocated where submit could not report
                                                         ENOMEM (the inbox, a fleet grant)
                        "at most N threads"              max_threads = N: the worker pool (it keeps
                                                         to one per CPU until tasks block)
       Fleet layer    policy.fleet: an external provider (extras/groupconc_redis.h: Redis) grants a
                      lease after the group's permits (global in-flight, bulkhead, concurrency), before the global running cap,
                      and gets it back when the task completes: caps that hold across processes
                      (section [10]).
       Live limits    groupconc_group_limits_set / groupconc_executor_limits_set change caps,
                      thresholds and defaults while tasks run: raising hands permits to waiters at
                      once (oldest first); lowering never preempts (what runs drains to the new cap).
       Pause          groupconc_group_pause / groupconc_executor_pause: nothing new starts (the concurrency
                      and global running layers hand out nothing); waiting tasks keep their places; submits still queue.
       Deadlines      a queue deadline (max_wait_ns: per submit, per group, policy default) bounds
                      the wait for permits, not the run: on expiry the task leaves its queue and
                      completes REJECTED with GROUPCONC_EEXPIRED_<layer>. One housekeeper thread per
                      executor (started on first need) watches a heap of deadlines. A task with a
                      deadline costs 16 more bytes and takes the locked submit path.
       Bounded table  max_groups and group_idle_ns: an idle group (nothing waiting, ready, running,
                      no refusal whose outcome CALLER_RUNS or a rejection handler has yet to
                      decide, no gate permit, not paused) is reclaimed after
                      group_idle_ns, or when a new key needs room at max_groups (least recently
                      used first; none idle: GROUPCONC_EGROUPS_FULL). Its limits are resolved
                      again on next use.
       Thresholds     a task that cannot get a permit at once waits in that layer's queue if the queue
                      threshold allows, else it is rejected. Global threshold: tasks waiting at the global in-flight layer.
                      Group threshold: the group's tasks waiting at its bulkhead and concurrency layers together. 0 means
                      "run now or be rejected"; GROUPCONC_UNLIMITED means no bound. Global running has
                      no threshold of its own; max_waiting bounds all queues together.
       Special values every field that reads a value other than a plain number, and how (defaults
                      come from groupconc_policy_default() only: start from it, a zeroed policy is
                      invalid; a live change starts from groupconc_*_limits_keep()):
                        value                 in                                   means
                        GROUPCONC_UNLIMITED   in-flight caps, queue thresholds,    no bound (concurrency
                          (-1)                max_waiting, global caps,            has no unlimited value)
                                              max_groups
                        GROUPCONC_DEFAULT     a field of a groups[] entry or of    not set here: the
                          (-2)                a live group change                  resolver (concurrency
                                                                                   only), else the policy's
                                                                                   default_*
                        GROUPCONC_KEEP (-3)   a field of groupconc_*_limits_set    leave it as it is
                        GROUPCONC_FOREVER     max_wait_ns, default_max_wait_ns,    no deadline / never
                          (-1)                group_idle_ns; every timeout_ns      reclaimed / no end to
                                              (any negative timeout too)           the wait
                        0                     spec.max_wait_ns, groups[] and live  the next level's: the
                                              max_wait_ns                          group's, then the
                                                                                   policy's default
                        0                     a queue threshold, max_waiting       nothing waits: run now
                                                                                   or be rejected
                        0                     a timeout_ns                         do not wait (poll)
                        0                     keep_alive_ns                        an idle worker retires
                                                                                   at once
       Rejection      decided in submit wherever it can be (fail fast); a task that queued at one
                      layer and is refused at a later one is rejected later, through its handle.
                      Its permits are back before any handling runs, and the REJECTED event and
                      result carry the refusing layer's code in `reason` whatever the policy:
                        policy               refused in submit                   refused later
                        ABORT (default)      submit returns the EREJECTED_*      the handle
                                             code, no handle (the listener       completes REJECTED
                                             still sees the task's events)
                        DISCARD              submit returns OK; the handle completes REJECTED
                        CALLER_RUNS          the task runs on the submitting     it runs on a worker
                                             thread, holding no permits          holding no permits
                        reject_handler       decides the outcome (SUCCESS with a value, FAILED,
                                             CANCELLED, or REJECTED); submit returns OK
                      A queue deadline's expiry is a rejection no policy or handler changes.
       Worker pool    sized to the CPUs: workers start on demand up to one per CPU this process may
                      run on (its affinity mask on Linux where the including file defines _GNU_SOURCE,
                      else the online count; Windows: the active processors), never more than
                      max_threads, and retire after keep_alive_ns idle. More start, up to max_threads,
                      only when running tasks block: the housekeeper thread watches while ready tasks
                      wait and every worker is busy. It starts one for each waiting task when a
                      worker sleeps in its task (sleeps, I/O), or in the code that runs on it after
                      the task (its cleanup, COMPLETED event, completion callbacks), and the process
                      used under half a CPU for about 1 ms with no task finishing, or (Linux) since
                      its last look (every 0.25-8 ms); and one for a task running past 10 ms while
                      others finish. On Linux a worker that computes or waits for a CPU never
                      counts as blocked (its state in /proc); elsewhere a long computation counts.
                      A task that knows it will block says so first, groupconc_context_blocking(ctx):
                      a worker starts at once (as Go's runtime does around a blocking call, or Java's
                      ManagedBlocker). On Windows there is no idle-CPU sign (only Linux reads /proc;
                      nor in a strict ISO TU there, see LIMITATIONS):
                      tasks that sleep briefly (a few ms, while others finish: no stall, none past
                      10 ms) get few workers by themselves, so they should call
                      groupconc_context_blocking to get more workers quickly. A worker blocked in a
                      wait of this library inside a task or callback lets one more start, beyond
                      max_threads. The workers beyond one per CPU go once the pool has needed none
                      of them for keep_alive_ns: each retires as it next has nothing to do, also
                      while work keeps trickling in. Until then they run whatever comes, computing
                      tasks too. Tasks holding all permits
                      wait for a thread in a FIFO ready queue. A worker that finishes a task runs the
                      next ready one without sleeping; while tasks are short it takes up to
                      GROUPCONC_BATCH_MAX at a time (see "worker pool" below).
       Submission     with no queue threshold anywhere in the policy (the default), nothing in
                      submit can refuse a task, so submit does not take the executor lock: it pushes
                      the task onto a lock-free inbox, admitted in submission order at the next locked
                      step. With a threshold, submit admits under the executor lock and can refuse at
                      once; so does a submit on the locked path for another reason (max_waiting, a
                      fleet provider, a task with a queue deadline, no worker alive yet, group_idle_ns
                      before the housekeeper runs).
       Handles        groupconc_submit gives a handle (groupconc_task). It stays valid until
                      groupconc_task_release, even after the executor is destroyed; after release it
                      must not be used (like free()). Pass out_task = NULL for fire-and-forget.
       Gate           for work that is not a function on a worker (an event loop's requests):
                      groupconc_gate_try_acquire admits or refuses at once; the caller releases the
                      permit exactly once. An executor gate's permit holds a task's four local
                      layer permits (global in-flight, the group's bulkhead and concurrency, global
                      running): one budget with the tasks (section [8]).
       Deferred       a task body may call groupconc_context_defer and return
                      GROUPCONC_TASK_PENDING: it keeps its permits, frees its worker, and completes
                      when groupconc_deferred_complete is called from any thread.
       Scopes         a scope owns the tasks forked in it: join, shut down (transitively, to the scopes
                      opened inside its forks), close (shuts down unless joined, then waits for
                      every fork); policies collect all, stop at the first failure, or take the
                      first success (section [9]).
       Arguments      the task's `arg` is the caller's. To hand it over, submit with a cleanup
                      (groupconc_submit_spec, spec.cleanup = free): it runs exactly once for every
                      accepted task, after the task function returned or, if it never ran, when the
                      task completes (cancelled, rejected, removed by shutdown / evict / destroy).

   4. EVENTS AND COUNTERS (one table: the listener's events and the stats' totals agree)
       event       fires                                              counter(s)
       SUBMITTED   each submit call with valid arguments on a running  submitted
                   executor, before admission
       REJECTED    a layer refused the task (reason EREJECTED_*), its  -
                   queue deadline passed (EEXPIRED_*), or submit
                   failed after SUBMITTED (ESHUTDOWN, ENOMEM, ETHREAD,
                   EGROUPS_FULL); under CALLER_RUNS the task then runs
       STARTED     the task is about to run (all permits held; holding -
                   none under CALLER_RUNS)
       COMPLETED   exactly once per SUBMITTED, with the final result:  completed = succeeded + failed
                   SUCCESS / FAILED / CANCELLED / REJECTED, also for     + cancelled + rejected_global
                   a task refused in submit (ABORT: no handle)           + rejected_bulkhead
                                                                         + rejected_concurrency
                                                                         + rejected_waiting + expired
                                                                         + rejected_fleet
                                                                         (+ rejected_other: executor)
       FLEET       the provider answered OPEN: the task may run on     fleet_open
                   local caps alone (EFLEET_OPEN); or it reported a    fleet_renew_failed
                   failed lease renewal (EFLEET_RENEW)
       (none)      a task got every permit (it runs or is about to)    admitted
       (none)      a refused task ran under CALLER_RUNS (after its     caller_runs (not in
                   REJECTED event, whose reason names the layer;         completed's sum)
                   counted when the run ends)
       A task counts where its final status puts it: a CALLER_RUNS task or one whose rejection
       handler chose SUCCESS counts as succeeded, once that is decided (the refusal alone never
       counts then: no counter goes down). submitted - completed = tasks still in progress.
       REJECTED with GROUPCONC_EEXPIRED_* counts as expired, with GROUPCONC_EREJECTED_WAITING as
       rejected_waiting. If memory runs out when a group first needs its rare-outcome counters
       (anything but success), that outcome counts in the executor's totals only
       (counts_unattributed). Group counters start again when the group's state is evicted or
       reclaimed; the executor's never do.
       A task's events come in order: SUBMITTED, then STARTED or REJECTED (under CALLER_RUNS:
       REJECTED, then STARTED; a task cancelled before its refusal was reported: no REJECTED),
       then COMPLETED. Its permits are back and its cleanup has run before COMPLETED; COMPLETED
       and the completion callbacks have run before its handle is done. FLEET events are reports
       about the fleet layer, outside that order: an OPEN answer's comes from the thread that
       answered, after the task was handed on, so it may come after the task's STARTED or even
       COMPLETED.

   5. THREADS AND CALLBACKS
       Every function is thread-safe, except that groupconc_executor_destroy must not run concurrently
       with any other call on the same executor or its unfinished handles, but
       groupconc_deferred_complete (destroy waits for a deferred task, which another thread
       completes).
       Listener events, completion callbacks, rejection handlers and cleanups never run with an
       internal lock held: they may submit, cancel, read stats and wait on other tasks. Blocking
       calls made inside a task or callback of the same executor never wait for themselves:
         groupconc_task_wait[_for]   on the task whose body, event, handler, cleanup or completion
                                     callback is running on this thread: GROUPCONC_EDEADLK; on any
                                     other task: waits (a task whose completion this thread runs
                                     next is completed first)
         groupconc_execute_all       works (waits only for the tasks it submitted); on the
                                     housekeeper thread (below): GROUPCONC_EDEADLK, nothing submitted
         groupconc_executor_shutdown_graceful  starts the shutdown, does not wait: GROUPCONC_EDEADLK
         groupconc_executor_destroy  GROUPCONC_EDEADLK, nothing done
         groupconc_executor_shutdown never waits: fine anywhere
       A task that waits keeps its permits meanwhile, and so does its cleanup (permits go after
       it): waiting on a task that needs one of them (a child queued behind it in its own group of
       concurrency 1, or behind a full global cap) waits forever, as with any semaphore; give such
       children a group of their own.
       With a queue deadline or group_idle_ns in use, or once every worker the pool's size allows
       is busy with tasks waiting, each executor has one housekeeper thread:
       expired tasks complete (events, cleanups, callbacks) there. A refusal that a hand-off
       made there causes (a permit that an expired task held, or that a call from its callback
       frees: a cancel, a group shutdown, a raised cap, handed to a waiter its group's queue
       threshold then refuses) is settled on a worker, started for it if none is idle, where its
       rejection handler may wait; only when none can come (every worker busy at max_threads, or
       a thread start failed) on the housekeeper, and so are an executor shutdown's from there. A
       call made there (a retry's submit) leaves what the workers have pending to them. It must
       not block: a wait on a task there returns GROUPCONC_EDEADLK (it would hold up every
       deadline, maybe the one it waits for), and so do groupconc_execute_all (nothing submitted)
       and groupconc_scope_open (a scope's join and close wait); groupconc_task_wait_for with
       timeout 0 (a poll) works, and follow-up work goes in with groupconc_submit (it waits for no
       task; a refusal in that submit is its own, handled there). A fleet provider's acquire may
       be called there too (an expired task's permit took a waiter to the fleet layer): a REJECT
       given inside it is settled on a worker like the refusals above; the events of an OPEN
       answer are emitted there.
       The resolver runs under a lock of the key table, its key's stripe's (under the executor lock
       too when the submit takes the locked path: see Submission in 3. CONCEPTS; or from an executor
       gate's try-acquire or a pause; at max_groups, or from groupconc_group_limits_set, every
       stripe's), so that it is called exactly once per group creation: it must be quick. From a
       resolver, every call that takes its executor or one of that executor's gates, scopes, task
       handles (of unfinished tasks), deferred tasks, permits or fleet requests returns
       GROUPCONC_EDEADLK at once and does nothing (it would wait for the locks held around it); the
       functions that return no code and take no lock work (groupconc_context_is_cancelled / _group /
       _task_id / _executor, groupconc_deferred_is_cancelled, groupconc_scope_fork_count), and so do
       pure functions (strerror, errname, version, *_name, policy default / check, *_limits_keep,
       group_keys_free), a finished task's handle (it belongs to no executor any more), standalone
       gates, and every call on another executor.
   6. WHERE CALLBACKS RUN (the user code a call may run on the calling thread before it returns; each
   function's "Callbacks:" line says the same on "Runs here:", where "anywhere" means anywhere but
   a resolver of the same executor, as above. Another task's code never runs inside a read-only
   call or a gate try-acquire: an event loop may call those freely.)
       code   what it is
       body   a task function: under CALLER_RUNS, the task refused in this very submit
       res    the resolver (a group's state is created)
       ev     listener events
       done   a task's completion: its COMPLETED event, completion callbacks (a scope's
              on_fork_complete), its cleanup if it never ran
       rej    a task's rejection: REJECTED event, rejection handler, then its completion
       fleet  the fleet provider's acquire / release (and what an answer made inside acquire runs)
       gl     the gate listener
       call                                         runs on the calling thread
       group_stats_get, executor_stats_get,         no other task's code: what a busy worker left in
       group_keys_get, gate_stats_get,              its batch is left to the workers. The inbox's
       executor_dump, executor_dump_file            tasks are admitted (this may start a worker
                                                    thread); never the fleet provider (an executor
                                                    with one admits its submits at submit)
       gate_try_acquire                             res (a new key), gl; else as the read-only calls
       gate_create, gate_destroy, scope_open,       nothing
       scope_result, scope_first, scope_first_set,
       scope_fork_count, task_is_done,
       task_release, context_*, deferred_is_cancelled,
       pure functions
       submit, submit_spec, scope_fork              res, ev (SUBMITTED); this task's rej, body or
                                                    done when refused in submit (a fork: its
                                                    on_fork_complete, and the close of scopes its
                                                    body left open); other tasks' done / rej it
                                                    finishes while admitting; fleet
       execute_all                                  as submit, and as task_wait for its own tasks
       task_wait, task_wait_for, scope_join[_for],  other tasks' done / rej (it finishes what
       scope_close                                  workers left, and what this thread owes first);
                                                    fleet; scope_join_for at its timeout and
                                                    scope_close: as scope_shutdown
       task_cancel, group_shutdown, group_evict,    the cancelled tasks' done; other tasks' done /
       executor_shutdown, scope_shutdown            rej (hand-offs, and what it finishes while
                                                    admitting); fleet
       executor_shutdown_graceful, executor_destroy as executor_shutdown; destroy: fleet detach
       task_on_complete                             its callback, if the task is done already
       deferred_complete                            this task's cleanup and done; other tasks' rej
                                                    (hand-offs); fleet
       group_limits_set, executor_limits_set,       other tasks' done / rej (hand-offs, and what it
       group_pause, group_resume, executor_pause,   finishes while admitting); fleet; res
       executor_resume                              (group_limits_set back to DEFAULT, group_pause
                                                    of a new key)
       permit_release                               gl; other tasks' rej (hand-offs); fleet
       executor_create                              fleet attach
       fleet_answer                                 what the verdict leads to: rej / done of its
                                                    task, ev (FLEET), fleet release and acquire
                                                    (its group's next request)
       fleet_notify                                 fleet (acquire)
       fleet_report                                 ev (FLEET)

   7. ERRORS
       Functions return GROUPCONC_OK (0) or a negative GROUPCONC_E* code; groupconc_strerror() and
       groupconc_errname() describe any code. A task's own outcome is not an API error: it is in
       groupconc_result.status (SUCCESS / FAILED / CANCELLED / REJECTED). The task's own code and the
       library's reason never share a field: result.error holds what a FAILED task returned (any
       int, never interpreted), result.reason holds the library's code for REJECTED (the layer, or
       why submit failed) and CANCELLED (GROUPCONC_ECANCELLED). The one reserved return value is
       GROUPCONC_TASK_CANCELLED ("I stopped because I was cancelled"). Any function that takes an
       executor, or one of its gates, scopes, unfinished task handles, deferred tasks, permits or
       fleet requests, returns GROUPCONC_EDEADLK (nothing done) when called from that executor's
       resolver (THREADS AND CALLBACKS), whether or not its Returns line lists it. The codes, their
       values and messages: GROUPCONC_ERRNO_MAP (section [1]).

   8. THE JSON DUMP (groupconc_executor_dump; format "groupconc-dump", version 1: fields are added,
   never renamed, within a version)
       format, version, library   "groupconc-dump", 1, the library's version string
       executor    max_threads, deferred (tasks holding a deferral), then every field of
                   groupconc_executor_stats by its name (GROUPCONC_EXECUTOR_STATS_FIELDS; unlimited
                   caps print as -1, flags as 0/1)
       groups[]    key (and key_hex), then every field of groupconc_group_stats by its name
                   (GROUPCONC_GROUP_STATS_FIELDS)
       tasks[]     each task that waits, is ready, runs or is deferred: group, id (or null), state
                   (waiting_global, waiting_bulkhead, waiting_concurrency, waiting_running,
                   waiting_fleet, ready, running, deferred; and two for tasks a layer refused whose
                   outcome is not final: caller_runs, refused under CALLER_RUNS, its REJECTED event
                   under way (on the thread that refused it: its submitter, or a worker) or its
                   run inside its submit; refused, by an admission where no callback may run or by
                   a hand-off from an expiry, its REJECTED event left to a worker's next locked step. Not listed: a refusal waiting on
                   its refusing thread for the REJECTED events before it, and one a rejection
                   handler is deciding; each is in its group's refusing (and submitted, not yet
                   completed)), age_ns since it first had to wait, from a coarse
                   clock (a few ms: 0 for a short wait; null for a task that never waited, and
                   for running, deferred, caller_runs and refused tasks)
       scopes[]    each open scope: id (opaque), name (or null), parent (its parent's id, or null),
                   policy, shut_down, joined (0/1), age_ns since it was opened (the coarse clock:
                   0 for the first few ms), children (open child scopes), forks[] (index, group,
                   id: its task id or null, status: PENDING until the fork completed)
       Strings and their "_hex" twins: see groupconc_executor_dump (section [9]).

   9. LIMITATIONS
       - Cancellation of a running task is cooperative: it sees groupconc_context_is_cancelled().
       - Using a handle after groupconc_task_release (a second release included) is undefined, as
         with free(): GROUPCONC_ERELEASED is returned only when the library happens to see it.
       - No "wait until idle" short of a graceful shutdown: to wait for fire-and-forget tasks
         without stopping, count them down in their cleanup or in the COMPLETED event.
       - C11 <threads.h> offers only wall-clock timed waits: with that backend a clock jump stretches
         or shortens timed waits (the POSIX backend waits on CLOCK_MONOTONIC but in the case below).
       - Task timestamps use CLOCK_MONOTONIC. In a strict ISO TU (-std=c11) that includes a system
         header before this one, clock_gettime is not declared and timestamps fall back to
         timespec_get(TIME_UTC); with glibc, readlink and pthread_condattr_setclock are not
         declared either (with -pthread too: the POSIX backend's timed waits then use the wall clock),
         and the pool cannot read each worker's state in /proc: as on other systems, a task that
         computes past 10 ms while others finish then counts as blocked and one more worker starts
         for it (CPU-bound tasks of 10 ms or more run beyond one per CPU), and, as on Windows,
         tasks that sleep briefly get few workers unless they call groupconc_context_blocking (2000
         sleeps of 1 ms with 4 allowed at once: most runs stayed at 2 workers and took 14x as long).
         Include groupconc.h first in the implementation TU, or define _POSIX_C_SOURCE=200809L.
       - Backends: C11 threads, POSIX threads and Win32. Atomics are C11 <stdatomic.h> in all three:
         MSVC needs Visual Studio 2022 17.5 or later with /std:c11 /experimental:c11atomics.
       - GROUPCONC_STATIC: each TU's copy has its own process-wide and per-thread state (executor
         numbers, a thread's memos of its task nodes and of its last group, which thread is a
         worker or a scope's owner, the resolver call rule, the inbox's closed mark), so an
         executor and its gates, scopes and handles are used only through the copy that made
         them: passed to another copy's functions they may misbehave (a memo may name a
         destroyed executor's group).
       - Fleet layer: executor gate permits do not pass through it; a provider's REJECT is always
         asynchronous (the task was accepted: under ABORT its handle completes REJECTED), and under
         CALLER_RUNS a refused task runs holding neither local permits nor a lease (but one refused
         past the fleet layer, which only a failed allocation does, keeps its lease); within a process a
         group's BUSY tasks are asked again oldest first, across processes there is no order.
       - Win32 timed waits take whole milliseconds and the system timer's tick (1-16 ms): queue
         deadlines, idle reclaim and timed waits are that much coarser there.
       - Pause stops hand-outs at the concurrency and global running layers: a task already holding every permit (ready,
         waiting only for a worker thread) still starts.
       - A group of a bounded table is idle only with nothing waiting, ready or running; finished
         handles do not keep it, but its counters go with it when it is reclaimed.
       - Deadlines and idle times: deadlines use the precise monotonic clock; idle times a coarse
         one (a few ms), and a reclaim happens up to ~10 ms after the idle time.
       - Short tasks are finished in batches (one key's queue drained in chains of up to 16 tasks):
         permits, handles, callbacks and the COMPLETED event normally follow within ~20 us of the
         return, later if the worker started a long task next and nothing else picked them up (a
         blocked wait always does; in a drain of one key, a task that had a callback or a waiter
         when it returned is completed before its worker starts another). Callbacks run in turn
         on the thread that settles a step: its finished tasks' first, then its refusals' (a
         rejection handler, a REJECTED event). One that takes long holds back those after it (a
         wait from another thread waits too; from inside the callback it completes them first). Any call that takes the executor lock
         (stats, the dump, a submit that must lock) ends the chain it meets, so frequent polling
         slows such a drain. After short tasks an idle
         worker spins up to GROUPCONC_SPIN_NS. A task submitted while one worker runs short tasks
         and another naps can wait up to 100 us if the busy one's task turns out long.
       - While every worker is busy, submitted tasks may wait in the inbox until a worker or a stats
         call admits them; oldest_wait_ns counts from admission, so it can under-report that wait.
       - Admission, hand-off and completion share one executor lock (submits on the inbox path,
         the default: see Submission in 3. CONCEPTS, do not take it; workers take it once per
         batch); with many cores and many busy workers it becomes the bottleneck (on 16 vCPUs it was
         held 76-81 % of a run with one submitter: docs/lock-measurements.md). The key table is 16
         stripes, each with its own lock: submitting threads share one only when their keys share a
         stripe (one key always does: 16 threads submitting to one key on 16 vCPUs ran at 0.46x
         libdispatch's rate with GROUPCONC__SPIN_TRIES at 32, ~0.8x projected at today's 8; 4 of them
         on 2 vCPUs ran at 0.90x in 15f084e's full run, 1.85-1.98x since a thread keeps a memo of its
         last group: docs/performance.md), and a slow resolver, run under one, stalls the submits of
         that stripe's keys meanwhile (of every key, where it runs under all of them: see the
         resolver).
       - The per-group table of live limits (groupconc_group_limits_set) is a sorted array: a new key
         costs O(keys in it), about 30 us at 100,000 keys, and stays until its fields are back to
         GROUPCONC_DEFAULT. Set live limits for tenants, not for every client address.
       - Under CALLER_RUNS a refused task runs holding no permits: no cap counts it, nor the
         stats' running gauge (a re-run waiting for a worker is in ready). Its group is not idle
         from the refusal until the run ends (a shutdown of the group must reach it; so, with a
         rejection handler, until the handler decided): it is not reclaimed, and at max_groups it
         can be why a new key is refused (GROUPCONC_EGROUPS_FULL) although every gauge of the
         group reads 0.
       - When at least one worker exists, a failed start of another is not reported: the task queues
         for the existing workers (ETHREAD only when no worker exists and none can start).
       - The pool's size is the CPU count read at create (a later change of affinity is not seen).
         Blocked tasks are noticed after about 1 ms (a stall) or 10 ms (one long task among moving
         ones), unless the task says so (groupconc_context_blocking); on Linux a task that waits by
         spinning is not seen at all (it runs): such a task must say so first. User code that runs
         on the housekeeper (an expired task's events, cleanup and callbacks; when no worker can
         come, the rejection handler of a refusal its expiry causes) must not block: while it
         does, the pool does not grow either.
       - Gate permits are not tasks: a graceful shutdown does not wait for them.
       - Cancelling a fork through its handle flags that fork only; shutting its scope down also
         reaches the scopes opened inside it.

   10. HISTORY
       1.0.0  API 1.0: one naming scheme (groupconc_group_shutdown / _evict / _keys_get / _keys_free),
              task codes apart from library reasons (result.reason, GROUPCONC_TASK_CANCELLED),
              cleanup functions (groupconc_submit_spec), rejection handlers decide the outcome,
              COMPLETED once per SUBMITTED with per-outcome counters, EDEADLK instead of self-waits,
              execute_all reports true outcomes, groupconc_policy_check, *_name for every enum;
              the admission gate (standalone and executor gates, generation-checked permits),
              deferred completion of executor tasks, structured scopes and the JSON dump;
              beyond the seeds: the work-conserving global running cap (its own layer), max_waiting,
              live limits, pause / resume, queue deadlines, the bounded group table, counters
              (admitted, expired, rejected_waiting); the fleet layer (policy.fleet, groupconc_fleet_*,
              EVENT_FLEET) with extras/groupconc_redis.h; the Win32 backend; optional modules
              (GROUPCONC_NO_GATE, _NO_SCOPES, _NO_DUMP); a worker pool sized to the CPUs that grows
              when tasks block (groupconc_context_blocking to say so first).
       0.1.0  first release: executor, three layers, thresholds, rejection policies, listener,
              group control, stats.
*/
#ifndef GROUPCONC_H_INCLUDED
#define GROUPCONC_H_INCLUDED

#if defined(GROUPCONC_IMPLEMENTATION) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && \
    !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE) && !defined(__cplusplus)
/* Strict ISO mode hides clock_gettime/CLOCK_MONOTONIC; this only helps when no system header was
   included before groupconc.h (see LIMITATIONS). */
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifndef GROUPCONC_NO_DUMP
#include <stdio.h> /* FILE, for groupconc_executor_dump_file */
#endif

#define GROUPCONC_VERSION_MAJOR 1
#define GROUPCONC_VERSION_MINOR 0
#define GROUPCONC_VERSION_PATCH 0
#define GROUPCONC_VERSION_STRING "1.0.0"

#ifndef GROUPCONC_API
#if defined(GROUPCONC_STATIC)
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC_API static __attribute__((unused))
#else
#define GROUPCONC_API static
#endif
#else
#define GROUPCONC_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- [1] error codes --------------------------------------------------------------------------
   One list yields the enum, groupconc_strerror() and groupconc_errname(). Never renumbered. These
   are the library's codes: API return values and result.reason, never a task's own result.error. */
#define GROUPCONC_ERRNO_MAP(X)                                                                        \
    X(OK, 0, "success")                                                                               \
    X(EINVAL, -1, "invalid argument: a required pointer is NULL")                                    \
    X(EKEYEMPTY, -2, "group key is empty")                                                            \
    X(EKEYTOOLONG, -3, "group key is longer than GROUPCONC_MAX_KEY_LEN")                              \
    X(ELIMIT, -4, "invalid limit: a value out of range (for a policy, groupconc_policy_check names the field)") \
    X(EPOLICY, -5, "invalid policy: unknown rejection policy value")                                 \
    X(EDUPKEY, -6, "the per-group limits table names the same group twice")                           \
    X(ESHUTDOWN, -7, "executor is shut down and accepts no new tasks")                                \
    X(EREJECTED_GLOBAL, -8, "rejected at the global in-flight layer: queue threshold reached (a gate: no free permit)") \
    X(EREJECTED_BULKHEAD, -9, "rejected at the group bulkhead layer: queue threshold reached (a gate: no free permit)") \
    X(EREJECTED_CONCURRENCY, -10, "rejected at the group concurrency layer: queue threshold reached (a gate: no free permit)") \
    X(ETIMEDOUT, -11, "timed out")                                                                    \
    X(ENOMEM, -12, "out of memory")                                                                   \
    X(ETHREAD, -13, "could not start a worker thread")                                                \
    X(ERELEASED, -14, "task handle was already released")                                            \
    X(ENOTFOUND, -15, "group not found")                                                              \
    X(ECANCELLED, -16, "task was cancelled")                                                          \
    X(EDEADLK, -17, "refused: called from inside a task or callback of this executor, it would wait for itself") \
    X(EGATE_FULL, -18, "rejected: the gate's limit is reached")                                        \
    X(EPERMIT, -19, "permit not held: released already, or never admitted")                           \
    X(EBUSY, -20, "busy: a gate, a permit or a scope is still there (destroy / release / close it)")  \
    X(ESTATE, -21, "not allowed now: the task is already deferred, or is not running on a worker") \
    X(ENOTOWNER, -22, "not the scope's owner thread, nor inside one of its forks")                  \
    X(ESCOPE_SHUTDOWN, -23, "the scope is shut down or joined: it takes no more forks")              \
    X(ENOTJOINED, -24, "scope closed without a join (it still waited for every fork)")              \
    X(EORDER, -25, "scopes close in reverse order: a scope opened later on this thread is open")    \
    X(EFAILED, -26, "the scope's policy failed: a fork failed, or none succeeded")                  \
    X(ERANGE, -27, "the buffer is too small (the size needed is reported)")                        \
    X(EIO, -28, "writing the output failed")                                                        \
    X(EREJECTED_RUNNING, -29, "rejected at the global running layer: its cap is reached (executor gate)") \
    X(EREJECTED_WAITING, -30, "rejected: the bound on waiting tasks is reached, or no memory to queue it") \
    X(EEXPIRED_GLOBAL, -31, "queue deadline passed while waiting at the global in-flight layer")   \
    X(EEXPIRED_BULKHEAD, -32, "queue deadline passed while waiting at the group bulkhead layer")    \
    X(EEXPIRED_CONCURRENCY, -33, "queue deadline passed while waiting at the group concurrency layer") \
    X(EEXPIRED_RUNNING, -34, "queue deadline passed while waiting at the global running layer") \
    X(EGROUPS_FULL, -35, "the group table is at max_groups and no group is idle")                  \
    X(EPAUSED, -36, "refused: the group or the executor is paused")                                \
    X(EREJECTED_FLEET, -37, "rejected at the fleet layer: the provider refused (its backend unreachable, fail-closed)") \
    X(EEXPIRED_FLEET, -38, "queue deadline passed while waiting at the fleet layer")              \
    X(EFLEET_OPEN, -39, "fleet layer failed open: the task goes on on the local caps alone")          \
    X(EFLEET_RENEW, -40, "a fleet lease renewal failed; the task kept running")                   \
    X(ESCOPE_POLICY, -41, "refused: the scope's policy decides its first fork (only a CUSTOM scope may name it)")

typedef enum groupconc_error {
#define GROUPCONC__ERR_ENUM(name, value, text) GROUPCONC_##name = (value),
    GROUPCONC_ERRNO_MAP(GROUPCONC__ERR_ENUM)
#undef GROUPCONC__ERR_ENUM
} groupconc_error;

/* ---- [2] constants and enums ------------------------------------------------------------------ */

/* "No bound" for in-flight caps and queue thresholds (concurrency has no unlimited value). */
#define GROUPCONC_UNLIMITED (-1)
/* In a per-group limits entry: "not set here, use the resolver / the policy default". */
#define GROUPCONC_DEFAULT (-2)
/* In a live change (groupconc_group_limits_set, groupconc_executor_limits_set): "leave this field
   as it is". */
#define GROUPCONC_KEEP (-3)
/* Timeout value meaning "wait forever" for the *_for / graceful / execute_all functions (any
   negative timeout means the same). */
#define GROUPCONC_FOREVER (-1)
/* Durations are int64_t nanoseconds: GROUPCONC_MS(50), GROUPCONC_SEC(2). */
#define GROUPCONC_US(n) ((int64_t)(n) * 1000)
#define GROUPCONC_MS(n) ((int64_t)(n) * 1000000)
#define GROUPCONC_SEC(n) ((int64_t)(n) * 1000000000)
/* What a task function returns when it stopped because groupconc_context_is_cancelled() said so:
   the task completes CANCELLED. The only return value the library interprets besides 0. */
#define GROUPCONC_TASK_CANCELLED (-2147483647 - 1)
/* What a task function returns after groupconc_context_defer: it completes later, from any thread,
   through groupconc_deferred_complete, and holds its permits until then. */
#define GROUPCONC_TASK_PENDING (-2147483647)

typedef enum groupconc_status {
    GROUPCONC_STATUS_PENDING = 0, /* not finished yet (only seen in a snapshot) */
    GROUPCONC_STATUS_SUCCESS,     /* the task function returned 0 */
    GROUPCONC_STATUS_FAILED,      /* it returned another code: result.error */
    GROUPCONC_STATUS_CANCELLED,   /* cancelled before it started, or it returned GROUPCONC_TASK_CANCELLED */
    GROUPCONC_STATUS_REJECTED     /* refused: result.reason names the layer (or why submit failed) */
} groupconc_status;

typedef enum groupconc_rejection_policy {
    GROUPCONC_REJECT_ABORT = 0,  /* in submit: return the EREJECTED_* code, no handle; later: REJECTED */
    GROUPCONC_REJECT_DISCARD,    /* submit succeeds; the handle completes REJECTED */
    GROUPCONC_REJECT_CALLER_RUNS /* run with no permits: in submit on the caller, later on a worker
                                    (never a task whose queue deadline passed: it stays REJECTED) */
} groupconc_rejection_policy;

typedef enum groupconc_event_type {
    GROUPCONC_EVENT_SUBMITTED = 0, /* a submit call with valid arguments, before admission */
    GROUPCONC_EVENT_STARTED,       /* about to run (all permits held; holding none under CALLER_RUNS) */
    GROUPCONC_EVENT_COMPLETED,     /* final result: exactly once per SUBMITTED */
    GROUPCONC_EVENT_REJECTED,      /* a layer refused it, or submit failed: event.reason says why */
    GROUPCONC_EVENT_FLEET          /* the fleet layer reports: event.reason GROUPCONC_EFLEET_OPEN (the
                                      provider answered OPEN: the task goes on on local caps alone)
                                      or GROUPCONC_EFLEET_RENEW (its lease renewal failed; it keeps
                                      running). Outside a task's event order (4. EVENTS AND COUNTERS) */
} groupconc_event_type;

typedef enum groupconc_cancel_outcome {
    GROUPCONC_CANCEL_DEQUEUED = 0, /* it had not started: removed, permits returned, now CANCELLED */
    GROUPCONC_CANCEL_FLAGGED,      /* it is running: its cancellation flag is set (cooperative); or
                                      it is a CALLER_RUNS refusal whose REJECTED event is under way:
                                      it completes CANCELLED after the event, without running */
    GROUPCONC_CANCEL_TOO_LATE      /* it had already finished, or a layer refused it and its outcome
                                      is not a cancel's to decide (REJECTED is final, or a rejection
                                      handler decides it): unaffected */
} groupconc_cancel_outcome;

/* ---- [3] opaque types, results and callbacks --------------------------------------------------- */

typedef struct groupconc_executor groupconc_executor;
typedef struct groupconc_task groupconc_task;       /* a task handle */
typedef struct groupconc_context groupconc_context; /* what a running task sees of itself */

typedef struct groupconc_result {
    const char *group;       /* the group key; valid while the handle is */
    const char *task_id;     /* as submitted (copied), or NULL */
    groupconc_status status;
    void *value;             /* what the task stored in *out_value (or a rejection handler's value) */
    int error;               /* FAILED: the code the task returned (its own, never interpreted); else 0 */
    int reason;              /* the library's reason: REJECTED: GROUPCONC_EREJECTED_* (the layer or
                                bound; _FLEET: the fleet provider refused), GROUPCONC_EEXPIRED_* (its
                                queue deadline passed at that layer, _FLEET included), or
                                ESHUTDOWN / ENOMEM / ETHREAD / EGROUPS_FULL (submit failed);
                                CANCELLED: GROUPCONC_ECANCELLED; else 0 */
    uint64_t start_ns;       /* monotonic; taken after all permits are held, or, for a task its
                                worker runs right after another, that one's end_ns (one clock read
                                per task; the hand-off between them is not timed). A task that
                                never ran (rejected, or cancelled before it started): the moment
                                that happened, and end_ns == start_ns (zero duration) */
    uint64_t end_ns;         /* monotonic; end - start is the run time, waiting excluded */
} groupconc_result;

/* A task: return 0 for success (optionally storing a value in *out_value), GROUPCONC_TASK_CANCELLED
   if it stopped because groupconc_context_is_cancelled() said so, any other value for failure (it is
   reported as is in result.error). `arg` is what was submitted with it. */
typedef int (*groupconc_task_fn)(groupconc_context *ctx, void **out_value, void *arg);

/* Releases a task's argument: runs exactly once per accepted task (see groupconc_submit_spec).
   `free` has this type. */
typedef void (*groupconc_cleanup_fn)(void *arg);

/* Per-group concurrency resolver: store a value in *out_concurrency and return 0; a non-zero return
   means "failed", and the policy default is used. Results < 1 become 1. Runs under a lock of the
   key table (its key's stripe's; every stripe's at max_groups or from groupconc_group_limits_set)
   and the executor lock when the submit takes the locked path (queue thresholds, max_waiting, a
   fleet provider, a queue deadline, no worker yet: see Submission in the manual), at max_groups,
   from a pause, from groupconc_group_limits_set, or when an executor gate's try-acquire creates
   the group; once per
   creation of a group's state (and again when
   groupconc_group_limits_set puts its concurrency back to GROUPCONC_DEFAULT): be quick, do not call into
   groupconc. */
typedef int (*groupconc_resolver_fn)(const char *group, int *out_concurrency, void *user_data);

typedef struct groupconc_event {
    groupconc_event_type type;
    const char *group;
    const char *task_id;              /* may be NULL */
    int reason;                       /* REJECTED: GROUPCONC_EREJECTED_* (a layer, a bound or the
                                         fleet provider refused it), GROUPCONC_EEXPIRED_* (its queue
                                         deadline passed), or ESHUTDOWN / ENOMEM / ETHREAD /
                                         EGROUPS_FULL (submit failed after SUBMITTED was reported);
                                         FLEET: GROUPCONC_EFLEET_OPEN / _RENEW; else 0 */
    const groupconc_result *result;   /* COMPLETED: the final result; else NULL */
} groupconc_event;

/* Lifecycle listener. Never called with a lock held; may run concurrently on several threads. */
typedef void (*groupconc_listener_fn)(const groupconc_event *event, void *user_data);

typedef struct groupconc_rejection {
    groupconc_executor *executor;
    const char *group;
    const char *task_id;
    groupconc_task_fn fn;             /* so a handler can run it or resubmit it elsewhere (a
                                         scope's fork: the caller's fn, arg, cleanup, no wrapper) */
    void *arg;
    groupconc_cleanup_fn cleanup;     /* the task's cleanup, or NULL */
    int reason;                       /* GROUPCONC_EREJECTED_* */
    bool in_submit;                   /* true: refused synchronously, on the submitting thread */
} groupconc_rejection;

/* What a rejection handler decides. Pre-filled {REJECTED, NULL, 0, false}. */
typedef struct groupconc_reject_result {
    groupconc_status status;          /* GROUPCONC_STATUS_SUCCESS (a fallback or cached value),
                                         _FAILED, _CANCELLED, or _REJECTED (default); anything
                                         else counts as REJECTED */
    void *value;                      /* SUCCESS / FAILED: result.value */
    int error;                        /* FAILED: result.error */
    bool arg_taken;                   /* true: the handler took over `arg` (e.g. resubmitted it with
                                         its cleanup): the task's cleanup is not called */
} groupconc_reject_result;

/* Custom rejection handler: replaces the rejection policy when set, and decides the task's result
   in *out_result. Runs after the task's permits are released, with no lock held; submit returns OK
   with a handle even when it runs in submit. Not called for a task whose queue deadline passed
   (GROUPCONC_EEXPIRED_*): that one completes REJECTED, as under every policy. */
typedef void (*groupconc_reject_fn)(const groupconc_rejection *rejection,
                                    groupconc_reject_result *out_result, void *user_data);

/* Completion callback: runs exactly once, on the thread that completes the task (or at once on the
   registering thread if the task is already done), with no lock held, after the COMPLETED event and
   before the handle is marked done (a wait on the task returns only after its callbacks ran). */
typedef void (*groupconc_complete_fn)(groupconc_task *task, const groupconc_result *result,
                                      void *user_data);

/* The fleet layer (section [10]): an external admission provider, taken after the group's layers
   and before the global running cap. */
typedef enum groupconc_fleet_verdict {
    GROUPCONC_FLEET_GRANTED = 0, /* a lease is held: the task runs; `lease` comes back through release */
    GROUPCONC_FLEET_BUSY,        /* no capacity now: the task waits (FIFO in its group, no thread)
                                    until a notify (naming its group or none), the resume of
                                    its group, or another task of its group answered REJECT or
                                    OPEN asks it again */
    GROUPCONC_FLEET_REJECT,      /* refused (fail-closed): the task completes REJECTED with
                                    GROUPCONC_EREJECTED_FLEET, through the rejection policy */
    GROUPCONC_FLEET_OPEN         /* undecided, failing open (the provider's backend is unreachable):
                                    the task runs on the local caps alone and holds no lease;
                                    counted (fleet_open) and reported (GROUPCONC_EVENT_FLEET) if
                                    the task still waited for the answer (not for one cancelled,
                                    expired or shut down meanwhile: that answer is only taken) */
} groupconc_fleet_verdict;

typedef struct groupconc_fleet_request groupconc_fleet_request; /* one ask: answer it once */

typedef struct groupconc_fleet_provider {
    /* Ask for one lease of `group` for `request`. Answer it exactly once with groupconc_fleet_answer,
       from inside this call or later from any thread; `group` stays valid until then. Called with no
       lock held, on a submitting thread, a worker or the housekeeper: must not block (queue the
       request, answer from the provider's own thread). An answer from inside this call runs what
       it leads to there (a rejection handler, events, completion callbacks; on the housekeeper
       the refusals go to a worker, as in section 5); if that code waits
       (for a task, a scope, a shutdown), acquire is called again on this thread, for the requests
       that wait would otherwise never see made, before this call returns: hold no lock of your
       own while answering. NULL: no fleet layer (the default). */
    void (*acquire)(void *user_data, groupconc_fleet_request *request, const char *group);
    /* Give back a lease of `group`: the task that held it finished, or an answer GRANTED came for a
       task already cancelled. Once per GRANTED answer, with no lock held; must not block. */
    void (*release)(void *user_data, const char *group, uint64_t lease);
    void *user_data;
    /* Optional (NULL: not called). attach: the executor that will ask, at the end of
       groupconc_executor_create; it returns GROUPCONC_OK, from then on the provider may call
       groupconc_fleet_notify / _report on it, or a negative code (GROUPCONC_EBUSY: the provider
       serves another executor already), which executor_create returns, having made nothing (no
       detach follows). detach: from groupconc_executor_destroy of an attached executor, after the
       last request was answered and the last lease given back, before the executor is freed; the
       provider makes no call with `ex` once it returns (it may wait for its threads to leave such
       calls). Both with no lock held. */
    int (*attach)(void *user_data, groupconc_executor *ex);
    void (*detach)(void *user_data, groupconc_executor *ex);
} groupconc_fleet_provider;

/* ---- [4] policy -------------------------------------------------------------------------------- */

typedef struct groupconc_group_limits {
    const char *group;   /* key (copied at executor creation) */
    int concurrency;     /* >= 1, or GROUPCONC_DEFAULT (resolver, then default) */
    int max_in_flight;   /* >= 1, GROUPCONC_UNLIMITED, or GROUPCONC_DEFAULT */
    int queue_threshold; /* >= 0, GROUPCONC_UNLIMITED, or GROUPCONC_DEFAULT */
    int64_t max_wait_ns; /* queue deadline of the group's tasks: > 0 ns, GROUPCONC_FOREVER (none),
                            or 0 / GROUPCONC_DEFAULT (the policy's default_max_wait_ns) */
} groupconc_group_limits;

typedef struct groupconc_policy {
    int default_concurrency;       /* >= 1; default 1 */
    int default_max_in_flight;     /* per group (bulkhead); >= 1 or UNLIMITED; default UNLIMITED.
                                      Here and for the two global caps INT_MAX is UNLIMITED (the
                                      stats report it as GROUPCONC_UNLIMITED) */
    int default_queue_threshold;   /* per group (bulkhead + concurrency); >= 0 or UNLIMITED; default UNLIMITED */
    int global_max_in_flight;      /* global in-flight (counts WAITING tasks too: see CONCEPTS, Global cap);
                                      >= 1 or UNLIMITED; default UNLIMITED */
    int global_queue_threshold;    /* tasks waiting at the global in-flight layer; >= 0 or UNLIMITED; default UNLIMITED */
    const groupconc_group_limits *groups; /* explicit per-group limits (copied); default NULL */
    size_t group_count;            /* entries in groups; default 0 */
    groupconc_resolver_fn resolver;  /* per-group concurrency when not in the table; default NULL */
    void *resolver_user_data;
    groupconc_rejection_policy rejection; /* default GROUPCONC_REJECT_ABORT */
    groupconc_reject_fn reject_handler;   /* replaces `rejection` when set; default NULL */
    void *reject_user_data;
    groupconc_listener_fn listener;       /* lifecycle events; default NULL */
    void *listener_user_data;
    int max_threads;               /* worker threads at most (the cap on running tasks; a worker
                                      blocked in a wait inside a task or callback lets one more
                                      start, so one more may run while it waits); the pool keeps to
                                      one per CPU below it until tasks block (see "Worker pool");
                                      >= 1; default 32 */
    int64_t keep_alive_ns;         /* idle worker retires after this; >= 0; default 10 s */
    /* Beyond the seeds (see CONCEPTS in the top comment). */
    int global_max_running;        /* global running, the work-conserving global cap: tasks holding every
                                      permit (ready, on a worker or deferred) plus executor gate
                                      permits, all groups; taken after the group's concurrency
                                      permit, FIFO across groups; >= 1 or UNLIMITED; default UNLIMITED */
    int max_waiting;               /* tasks waiting at any layer, the fleet layer's too, all together
                                      (a memory bound; a new waiter beyond it is refused:
                                      GROUPCONC_EREJECTED_WAITING); >= 0 or UNLIMITED; default UNLIMITED */
    int64_t default_max_wait_ns;   /* queue deadline: the longest a task may wait for its permits;
                                      > 0 ns or GROUPCONC_FOREVER; default GROUPCONC_FOREVER */
    int max_groups;                /* groups with cached state at most (a new key then reclaims the
                                      least recently used idle group - with max_groups / 256 of them,
                                      at most 64, at once - or is refused with
                                      GROUPCONC_EGROUPS_FULL); >= 1 or UNLIMITED; default UNLIMITED */
    int64_t group_idle_ns;         /* a group idle this long is reclaimed; > 0 ns or
                                      GROUPCONC_FOREVER; default GROUPCONC_FOREVER */
    groupconc_fleet_provider fleet; /* the fleet layer (section [10]); copied; acquire and release
                                      both set, or both NULL (the default: none) */
} groupconc_policy;

/* groupconc_policy_default: the defaults listed in groupconc_policy.
   Returns:       the policy (start from it: a zeroed policy is invalid).
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API groupconc_policy groupconc_policy_default(void);

/* What is wrong with a policy (groupconc_policy_check). */
typedef struct groupconc_policy_problem {
    int code;            /* the code groupconc_executor_create would return (GROUPCONC_OK if none) */
    char field[48];      /* e.g. "default_concurrency", "groups[2].max_in_flight"; "" if none */
    const char *group;   /* for a table entry, its key (points into the caller's policy), or NULL */
    long long value;     /* the offending value (0 for a NULL pointer; GROUPCONC_EDUPKEY: the index
                            of the earlier entry with that key) */
    char message[192];   /* one line for a log, e.g. "default_concurrency = 0: must be >= 1" */
} groupconc_policy_problem;

/* groupconc_policy_check: validate `policy` as groupconc_executor_create does, and say which field
   is wrong (the first one found: the limits, max_threads, keep_alive_ns, then global_max_running,
   max_waiting, default_max_wait_ns, max_groups, group_idle_ns, fleet, rejection, then the table
   in order).
   Params:        out_problem may be NULL (then only the code is returned).
   Returns:       GROUPCONC_OK (valid); GROUPCONC_EINVAL (policy NULL, or groups NULL with
                  group_count > 0, or an entry's key NULL, or only one of fleet.acquire and
                  fleet.release set); GROUPCONC_EKEYEMPTY / EKEYTOOLONG (a
                  table key); GROUPCONC_ELIMIT (a limit out of range); GROUPCONC_EPOLICY (unknown
                  rejection value); GROUPCONC_EDUPKEY (a key twice); GROUPCONC_ENOMEM (the duplicate
                  check could not allocate). out_problem->code is the same.
   Thread safety: any thread; reads the policy only.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API int groupconc_policy_check(const groupconc_policy *policy,
                                         groupconc_policy_problem *out_problem);

/* ---- [5] executor lifecycle ------------------------------------------------------------------- */

/* groupconc_executor_create: validate and copy `policy` (tables and keys included), make an executor.
   Params:        the caller may free or change its policy (and table) afterwards.
   Returns:       GROUPCONC_OK (*out_executor set; else it is set to NULL); GROUPCONC_EINVAL (NULL
                  argument, or group_count > 0 with groups NULL, or an entry's key NULL);
                  GROUPCONC_EKEYEMPTY / EKEYTOOLONG (a table key); GROUPCONC_ELIMIT (a limit below
                  its minimum: groupconc_policy_check names it); GROUPCONC_EPOLICY; GROUPCONC_EDUPKEY;
                  GROUPCONC_ENOMEM; what policy.fleet.attach returned if not OK (a code >= 0 that is
                  not OK: GROUPCONC_EINVAL).
   Thread safety: any thread. No worker is started until the first submit.
   Callbacks:     may be called from any task or callback (of any executor).
                  Runs here: the fleet provider's attach. */
GROUPCONC_API int groupconc_executor_create(const groupconc_policy *policy,
                                            groupconc_executor **out_executor);

/* groupconc_executor_shutdown: stop accepting (later submits return ESHUTDOWN), cancel every task
   that has not started (waiting at a layer or for a thread, or refused under CALLER_RUNS and not
   yet run: it completes CANCELLED once its REJECTED event returns), flag running tasks (deferred
   ones, and CALLER_RUNS runs inside their submit, included). Idempotent.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL).
   Thread safety: any thread, concurrently with any call but destroy.
   Callbacks:     may be called from a task or any callback of this executor: it never waits. The
                  cancelled tasks complete (events, callbacks, cleanups) on this thread before it
                  returns.
                  Runs here (WHERE CALLBACKS RUN): the cancelled tasks' done; other tasks' done /
                  rej; fleet. */
GROUPCONC_API int groupconc_executor_shutdown(groupconc_executor *ex);

/* groupconc_executor_shutdown_graceful: stop accepting, let queued and running tasks finish for up
   to `timeout_ns`; at the timeout, cancel what is left as groupconc_executor_shutdown does.
   Paused groups: a task a pause holds back (waiting, its group or the executor paused) could start
   only after a resume, and what it holds (a global in-flight permit, its group's) may be what
   another group's task waits for. So such tasks are cancelled at once, when the graceful shutdown
   begins (and when the executor is paused during it): the permits they held go to the other
   waiters, which run on; the call then returns GROUPCONC_ETIMEDOUT (not everything finished). A
   paused group's task that already holds every permit (ready) still runs. destroy after a graceful
   shutdown begun from a callback lets the same tasks run.
   Params:        timeout_ns: nanoseconds from the call (GROUPCONC_MS() etc.); 0: cancel at once
                  what has not finished; GROUPCONC_FOREVER (any negative value): no limit.
   Returns:       GROUPCONC_OK (every task finished); GROUPCONC_ETIMEDOUT (some were cancelled or
                  flagged: at the timeout, or held back by a pause); GROUPCONC_EINVAL (ex NULL);
                  GROUPCONC_EDEADLK (see Callbacks).
   Thread safety: any thread, concurrently with any call but destroy.
   Callbacks:     from inside a task or callback of this executor it cannot wait (it would wait for
                  itself): it stops accepting, lets everything queued run on, and returns
                  GROUPCONC_EDEADLK at once; the timeout does not apply. ("Stop once the last job is
                  done" from a listener: call it there; groupconc_executor_destroy from the main
                  thread then waits for the queued tasks, as a graceful shutdown does.)
                  Runs here: as groupconc_executor_shutdown. */
GROUPCONC_API int groupconc_executor_shutdown_graceful(groupconc_executor *ex, int64_t timeout_ns);

/* groupconc_executor_destroy: shut down if not done yet (immediately: queued tasks are cancelled,
   unless a graceful shutdown began, which it lets finish), wait for running tasks to return, join
   the workers, free everything. Unreleased handles stay valid (all done).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL); GROUPCONC_EDEADLK (see Callbacks);
                  GROUPCONC_EBUSY (an executor gate of it still exists, or a scope of it is open
                  that a thread other than ex's workers owns: destroy the gate, close the scope
                  first; nothing done). A scope a running task's body owns closes as that body
                  returns (the shutdown cancels its forks; destroy waits, as for any running
                  task); one ex's workers left open (a body that deferred its completion, a
                  callback outside any body) is freed here: a pointer to it dangles then.
   Thread safety: no other call on `ex` may run concurrently, nor start after it.
   Callbacks:     from inside a task or callback of this executor: GROUPCONC_EDEADLK, nothing done.
                  Runs here: as groupconc_executor_shutdown; the fleet provider's detach. */
GROUPCONC_API int groupconc_executor_destroy(groupconc_executor *ex);

/* ---- [6] submit and handles ------------------------------------------------------------------- */

/* groupconc_submit: run fn(ctx, &value, arg) under `group`'s limits.
   Params:        task_id optional (NULL allowed; copied). out_task may be NULL: fire-and-forget
                  (use groupconc_submit_spec with a cleanup if `arg` must be freed).
   Returns:       GROUPCONC_OK (*out_task set, unless NULL); GROUPCONC_EINVAL (ex, group or fn NULL);
                  GROUPCONC_EKEYEMPTY; GROUPCONC_EKEYTOOLONG; GROUPCONC_ESHUTDOWN;
                  GROUPCONC_EREJECTED_GLOBAL / _BULKHEAD / _CONCURRENCY / _WAITING (ABORT policy,
                  refused in submit: no handle); GROUPCONC_EGROUPS_FULL (a new key, the table at
                  max_groups with no idle group); GROUPCONC_ENOMEM; GROUPCONC_ETHREAD (no worker
                  exists and none could start, or a queue deadline needs the housekeeper thread and
                  it could not start). Under DISCARD, CALLER_RUNS or a custom handler a rejected
                  submit returns OK with a handle. On any error the task was not accepted; after
                  ENOMEM, ETHREAD or ESHUTDOWN a new key's group is not left behind either (its
                  resolver may have run; the next submit of the key resolves it again).
   Thread safety: any thread.
   Callbacks:     may be called from a task and from any callback (listener, completion callback,
                  rejection handler, cleanup). Under CALLER_RUNS a task refused in submit runs on
                  the calling thread before this returns.
                  Runs here (WHERE CALLBACKS RUN): res, ev (SUBMITTED); this task's rej, body or
                  done if refused in submit; other tasks' done / rej it finishes while admitting;
                  fleet. */
GROUPCONC_API int groupconc_submit(groupconc_executor *ex, const char *group, const char *task_id,
                                   groupconc_task_fn fn, void *arg, groupconc_task **out_task);

/* A task, in full (groupconc_submit_spec, groupconc_execute_all). Zero-initialise, then set. */
typedef struct groupconc_task_spec {
    const char *group;            /* required */
    const char *task_id;          /* optional */
    groupconc_task_fn fn;         /* required */
    void *arg;
    groupconc_cleanup_fn cleanup; /* optional: called with arg exactly once if the task is accepted */
    int64_t max_wait_ns;          /* queue deadline of this task: 0 = the group's (else the policy's);
                                     > 0 ns; GROUPCONC_FOREVER = none */
} groupconc_task_spec;

/* groupconc_submit_spec: groupconc_submit, with an argument cleanup.
   Params:        spec->cleanup (may be NULL) runs exactly once for every accepted task, by every
                  route: on the worker right after the task function returns, or, for a task that
                  never ran (cancelled, rejected, removed by group shutdown / evict / executor shutdown
                  / destroy), on the thread that completes it, before its COMPLETED event and its
                  completion callbacks. Never while the task function runs. A rejection handler that
                  sets arg_taken takes the argument over instead.
   Returns:       as groupconc_submit; GROUPCONC_EINVAL also for spec NULL; GROUPCONC_ELIMIT
                  (max_wait_ns negative and not GROUPCONC_FOREVER). On any error the task was not
                  accepted: the cleanup is not called and `arg` is still the caller's.
   Thread safety: any thread.
   Callbacks:     as groupconc_submit. */
GROUPCONC_API int groupconc_submit_spec(groupconc_executor *ex, const groupconc_task_spec *spec,
                                        groupconc_task **out_task);

/* groupconc_task_wait: block until `task` is done; copy its result.
   Params:        out_result: filled on GROUPCONC_OK only; its group / task_id point into the
                  handle (valid until it is released).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (task or out_result NULL); GROUPCONC_EDEADLK (see
                  Callbacks); GROUPCONC_ENOMEM (no condition variable could be made);
                  GROUPCONC_ERELEASED (a released handle, where the library sees it: see Remarks).
   Thread safety: any thread; many waiters on one handle are fine.
   Callbacks:     inside this task's own body, STARTED / REJECTED / COMPLETED event, rejection
                  handler, cleanup or completion callback (also one run at once by a late
                  groupconc_task_on_complete): GROUPCONC_EDEADLK at once. On any other task it
                  waits (also from a completion callback: two tasks whose callbacks wait on each
                  other wait forever); a worker blocked here lets the pool start one more thread, so
                  the tasks it waits for still run.
                  Runs here: other tasks' done / rej (what workers left, what this thread owes
                  first); fleet.
   Remarks:       permits are back, and the COMPLETED event and every completion callback have run,
                  before this returns (so the callbacks' user_data may be freed then). Using a
                  handle after groupconc_task_release is undefined, as with free(). */
GROUPCONC_API int groupconc_task_wait(groupconc_task *task, groupconc_result *out_result);

/* groupconc_task_wait_for: as groupconc_task_wait, for at most `timeout_ns`.
   Params:        timeout_ns: nanoseconds from the call; 0: do not wait (poll); GROUPCONC_FOREVER (any
                  negative value): no limit.
   Returns:       as groupconc_task_wait; GROUPCONC_ETIMEDOUT (the task is NOT cancelled).
   Thread safety: any thread.
   Callbacks:     as groupconc_task_wait. */
GROUPCONC_API int groupconc_task_wait_for(groupconc_task *task, int64_t timeout_ns,
                                          groupconc_result *out_result);

/* groupconc_task_is_done: *out_done = whether the task reached its final state: true exactly when a
   wait would return at once (after its COMPLETED event and completion callbacks ran).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ERELEASED (as in wait).
   Thread safety: any thread; never blocks.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API int groupconc_task_is_done(groupconc_task *task, bool *out_done);

/* groupconc_task_cancel: a task that has not started is dequeued, returns its permits and completes
   CANCELLED (also one a worker had taken but not started: it never runs); a running one is flagged
   (cooperative); a finished one is unaffected. A CALLER_RUNS refusal whose REJECTED event is under
   way on another thread (or on this one: a cancel from its listener) is flagged (FLAGGED): it
   completes CANCELLED, never run, once the event returns, so that COMPLETED follows REJECTED. Any
   other refused task is unaffected (TOO_LATE) even before it is done: its REJECTED outcome is
   final (ABORT, DISCARD, an expired queue deadline), or its rejection handler decides it.
   Params:        out_outcome (may be NULL): DEQUEUED / FLAGGED / TOO_LATE.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (task NULL); GROUPCONC_ERELEASED (as in wait).
   Thread safety: any thread.
   Callbacks:     may be called anywhere, also from the task itself. After DEQUEUED the task is done
                  when this returns: its completion (event, callbacks, cleanup) ran on this thread.
                  Runs here: the task's done (DEQUEUED); other tasks' done / rej; fleet. */
GROUPCONC_API int groupconc_task_cancel(groupconc_task *task, groupconc_cancel_outcome *out_outcome);

/* groupconc_task_on_complete: register fn to run exactly once when the task completes (at once, on
   this thread, if it already has). Several callbacks run in registration order.
   Params:        fn(task, result, user_data): `result` is valid during the call only; user_data is
                  passed as is.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (task or fn NULL); GROUPCONC_ERELEASED (as in
                  wait); GROUPCONC_ENOMEM.
   Thread safety: any thread.
   Callbacks:     may be called anywhere, also from a completion callback of the same task (the
                  new one then runs after the current ones, on the completing thread). The callback
                  runs with no lock held; inside it the result is final and the handle valid
                  (release it there if you like), but the task is marked done only once every
                  callback returned: groupconc_task_is_done reports false there (true in a
                  callback run at once on a finished task), and a wait on the task returns
                  GROUPCONC_EDEADLK either way. One run at once counts as a callback of the
                  task's executor wherever it runs (graceful shutdown and destroy of that executor
                  from it: GROUPCONC_EDEADLK, as at completion), known by its address: after the
                  executor was destroyed, one created later at the same address counts as it.
                  Runs here: fn, if the task is done already. */
GROUPCONC_API int groupconc_task_on_complete(groupconc_task *task, groupconc_complete_fn fn,
                                             void *user_data);

/* groupconc_task_release: give the handle back. A task still running or waiting carries on; its
   result is discarded.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (task NULL); GROUPCONC_ERELEASED (a second release
                  the library happens to see: only while the task has not finished).
   Thread safety: any thread, once per handle.
   Callbacks:     may be called anywhere, also from the task's own completion callback.
                  Runs here: nothing.
   Remarks:       releasing twice, or using the handle after release, is undefined (as free()). */
GROUPCONC_API int groupconc_task_release(groupconc_task *task);

/* groupconc_context_is_cancelled: whether cancellation of the running task was requested (task
   cancel, group shutdown / evict, executor shutdown, execute_all's deadline). Poll it in long tasks
   and return GROUPCONC_TASK_CANCELLED when it says so.
   Returns:       true / false; false for a NULL ctx.
   Thread safety: from the task's own body (ctx is valid only while it runs); it never blocks.
   Callbacks:     the task body only.
                  Runs here: nothing. */
GROUPCONC_API bool groupconc_context_is_cancelled(const groupconc_context *ctx);

/* groupconc_context_group: the running task's group key.
   Returns:       the key (valid while the task runs); NULL for a NULL ctx.
   Thread safety: from the task's own body.
   Callbacks:     the task body only.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_context_group(const groupconc_context *ctx);

/* groupconc_context_task_id: the running task's id, as submitted.
   Returns:       the id (valid while the task runs), or NULL (submitted without one, or a NULL ctx).
   Thread safety: from the task's own body.
   Callbacks:     the task body only.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_context_task_id(const groupconc_context *ctx);

/* groupconc_context_executor: the executor running the task (to submit follow-up work).
   Returns:       the executor; NULL for a NULL ctx.
   Thread safety: from the task's own body.
   Callbacks:     the task body only.
                  Runs here: nothing. */
GROUPCONC_API groupconc_executor *groupconc_context_executor(const groupconc_context *ctx);

/* groupconc_context_blocking: from the task's body, before it blocks (sleeps, waits on I/O, a lock
   or a condition variable of its own): the pool may start one more worker at once for the tasks
   waiting meanwhile, up to max_threads (see "Worker pool"). Without it the pool notices blocked
   tasks later (a stall after about 1 ms, a long task after 10 ms) or, for short sleeps on Windows,
   hardly at all (the same entry). Like Go's runtime around a blocking system call, or Java's
   ForkJoinPool.managedBlock.
   Returns:       GROUPCONC_OK (a second call from the same run changes nothing); GROUPCONC_EINVAL
                  (ctx NULL); GROUPCONC_ESTATE (not on a worker of its executor: a CALLER_RUNS run
                  inside submit, which blocks its submitter whatever the pool does).
   Thread safety: from the task's own body only.
   Callbacks:     the task body only.
                  Runs here: nothing (it may start a thread: the pool's worker).
   Remarks:       the extra room lasts until the body returns. Waits of this library (task_wait,
                  execute_all, a scope's join, ...) make room by themselves: no call needed. */
GROUPCONC_API int groupconc_context_blocking(groupconc_context *ctx);

/* Deferred completion: how an executor task starts asynchronous work (a request on an event loop,
   I/O completed on another thread) without holding a worker thread. The body calls
   groupconc_context_defer, hands the deferred handle to whatever will finish the work, and returns
   GROUPCONC_TASK_PENDING; the worker moves on. The task keeps its permits, counts as running, and
   its handle, callbacks, listener and cleanup behave as for any task, until
   groupconc_deferred_complete delivers its result. */
typedef struct groupconc_deferred groupconc_deferred;

/* groupconc_context_defer: from the task's body: make the task complete later.
   Params:        *out_deferred: the handle to complete it with, exactly once, from any thread
                  (NULL after an error).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ESTATE (already
                  deferred, or a CALLER_RUNS run inside submit, which has no worker to free);
                  GROUPCONC_ENOMEM (the body can still do the work itself and return normally).
   Thread safety: from the task's own body only.
   Callbacks:     the task body only.
                  Runs here: nothing.
   Remarks:       after it, the body must return GROUPCONC_TASK_PENDING. If it returns anything
                  else, the task completes with that, and the deferred handle is void: it must not
                  be completed. A body that returns GROUPCONC_TASK_PENDING without deferring
                  completes FAILED with result.error GROUPCONC_TASK_PENDING. Its cleanup runs when
                  the deferred task is completed (as groupconc_deferred_complete says), never
                  while the work may still use `arg`. */
GROUPCONC_API int groupconc_context_defer(groupconc_context *ctx, groupconc_deferred **out_deferred);

/* groupconc_deferred_complete: deliver a deferred task's result, as if its function returned `rc`
   with *out_value = value now: 0 SUCCESS, GROUPCONC_TASK_CANCELLED CANCELLED, anything else FAILED
   with result.error = rc. Its cleanup runs first, then its permits go to the oldest waiters, then
   it completes (COMPLETED event, waiters, callbacks), all on this thread - or on the worker, if this
   call came before the body returned.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (deferred NULL, or rc GROUPCONC_TASK_PENDING).
   Thread safety: any thread, exactly once per handle; also after the executor began a shutdown
                  (graceful shutdown and destroy wait for deferred tasks, as for running ones).
   Callbacks:     may be called anywhere, also from the task's own body before it returns.
                  Runs here: this task's cleanup and done (on the worker if its body has not
                  returned); other tasks' rej (hand-offs); fleet.
   Remarks:       the handle is freed by this call: using it afterwards (a second complete) is
                  undefined, as with free(). */
GROUPCONC_API int groupconc_deferred_complete(groupconc_deferred *deferred, int rc, void *value);

/* groupconc_deferred_is_cancelled: whether cancellation of the deferred task was requested (task
   cancel, group shutdown / evict, executor shutdown): the work may stop early and complete with
   GROUPCONC_TASK_CANCELLED.
   Returns:       true / false; false for NULL.
   Thread safety: any thread, until the handle is completed.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API bool groupconc_deferred_is_cancelled(const groupconc_deferred *deferred);

/* groupconc_execute_all: submit every spec (with its cleanup), then collect results in input order
   (no fail-fast).
   Params:        timeout_ns: a deadline from the call (GROUPCONC_FOREVER, any negative: none). At
                  the deadline the unfinished tasks are cancelled: one that never started is reported CANCELLED
                  (but a refusal a rejection handler is deciding, which reports the handler's
                  outcome: see groupconc_task_cancel); one that was running is flagged and waited
                  for, and reports its true outcome.
                  out_results[i].group / task_id point into `tasks`.
                  Ownership: once the call gets past its checks (it returns OK, ETIMEDOUT or
                  ESHUTDOWN), it owns every element's `arg` and runs each element's cleanup exactly
                  once, whatever its fate: ran, cancelled, rejected later, or refused in submit (then
                  on the calling thread, before the call returns, and before the element's
                  COMPLETED event, as for any task); a rejection handler that sets
                  arg_taken takes the argument over instead. Any other return code: nothing was
                  submitted, no cleanup ran, every `arg` is still the caller's.
   Returns:       all elements owned, results filled: GROUPCONC_OK; GROUPCONC_ETIMEDOUT (the
                  deadline cut some tasks); GROUPCONC_ESHUTDOWN (the executor was shut down: the
                  refused elements are REJECTED with reason ESHUTDOWN).
                  None owned, nothing submitted, out_results untouched: GROUPCONC_EINVAL (a NULL
                  pointer, or an element with a NULL group / fn); GROUPCONC_EKEYEMPTY / EKEYTOOLONG
                  (an element's key); GROUPCONC_ELIMIT (an element's max_wait_ns); GROUPCONC_EDEADLK
                  (called from this executor's resolver, or from its housekeeper thread: there it
                  could not wait for what it submitted); GROUPCONC_ENOMEM (the condition variable
                  its waits sleep on could not be made; glibc's and Windows' never fail).
                  An element refused in submit is REJECTED with zero duration, error 0 and the
                  submit's code as result.reason: GROUPCONC_EREJECTED_* under ABORT (as an
                  asynchronous rejection reports it), else GROUPCONC_ESHUTDOWN / ENOMEM / ETHREAD /
                  EGROUPS_FULL; the others go on. Past its checks the call allocates nothing
                  itself (no ENOMEM of its own after the first task went in).
   Thread safety: any thread.
   Callbacks:     may be called from a task or callback of this executor (it waits only for the
                  tasks it submitted; a worker blocked here lets one more thread start), except on
                  its housekeeper thread (an expired task's callbacks: EDEADLK, nothing submitted).
                  Runs here: as groupconc_submit, and as groupconc_task_wait; the cleanups of
                  elements refused in submit.
   Remarks:       running tasks are always waited for, so `arg` memory is never used after it
                  returns. */
GROUPCONC_API int groupconc_execute_all(groupconc_executor *ex, const groupconc_task_spec *tasks,
                                        size_t count, int64_t timeout_ns,
                                        groupconc_result *out_results);

/* ---- [7] group control and stats --------------------------------------------------------------- */

/* groupconc_group_shutdown: cancel the group's tasks that have not started, flag its running ones.
   Other groups are untouched; the group stays usable. A key never used: OK (no-op).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex or group NULL); GROUPCONC_EKEYEMPTY;
                  GROUPCONC_EKEYTOOLONG.
   Thread safety: any thread, concurrently with submits to the same group.
   Callbacks:     may be called anywhere; never waits. The cancelled tasks complete on this thread.
                  Runs here: the cancelled tasks' done; other tasks' done / rej; fleet. */
GROUPCONC_API int groupconc_group_shutdown(groupconc_executor *ex, const char *group);

/* groupconc_group_evict: as groupconc_group_shutdown, and drop the group's cached state (its
   counters, and its pause): the next submit creates it afresh (limits resolved again: values set
   with groupconc_group_limits_set are kept in the table) even while the old tasks still run, so
   old and new tasks of the key may briefly overlap. A key never used: OK (no-op).
   Returns:       as groupconc_group_shutdown.
   Thread safety: any thread, concurrently with submits to the same group.
   Callbacks:     may be called anywhere; never waits.
                  Runs here: as groupconc_group_shutdown.
   Remarks:       the old tasks' events still name the key, but their outcomes count only in the
                  executor's totals, not in the new state's group counters. Executor gate permits
                  held in the group stay with the old state too: until they are released, the key's
                  new state does not see them (tasks and permits may exceed its cap meanwhile). */
GROUPCONC_API int groupconc_group_evict(groupconc_executor *ex, const char *group);

typedef struct groupconc_group_stats {
    int concurrency;            /* resolved limits */
    int max_in_flight;          /* or GROUPCONC_UNLIMITED */
    int queue_threshold;        /* or GROUPCONC_UNLIMITED */
    size_t running;             /* on a worker: executing, or taken to run next (a worker takes up
                                   to GROUPCONC_BATCH_MAX short tasks at a time and finishes them
                                   together); a deferred task (groupconc_context_defer) until it
                                   completes; and the executor gates' permits held in the group
                                   (gate_permits); CALLER_RUNS tasks not counted. The tasks that
                                   hold a concurrency permit: running + ready + waiting_running
                                   + waiting_fleet (ready CALLER_RUNS re-runs excepted) */
    size_t ready;               /* hold all permits, waiting for a worker thread (also CALLER_RUNS
                                   re-runs waiting for a worker, which hold none) */
    size_t waiting_global;      /* waiting at the global in-flight layer */
    size_t waiting_bulkhead;    /* waiting at the bulkhead layer */
    size_t waiting_concurrency; /* waiting at the concurrency layer */
    size_t in_flight;           /* past the bulkhead (holding its permit; gate permits too) */
    size_t gate_permits;        /* executor gate permits held in the group (in running too) */
    size_t waiting_running;     /* waiting at the global running layer, holding the group's
                                   concurrency permit */
    bool paused;                /* groupconc_group_pause (the executor's pause is in its stats) */
    int64_t max_wait_ns;        /* the group's queue deadline, or GROUPCONC_FOREVER */
    size_t waiting_fleet;       /* holding the group's permits, at the fleet layer: asked,
                                   answered BUSY, or queued behind those unasked (section [10]) */
    /* Totals since the group's state was created (EVENTS AND COUNTERS in the top comment). */
    uint64_t submitted;         /* SUBMITTED events that reached the group */
    uint64_t admitted;          /* tasks that got every permit (ran, or are ready / running) */
    uint64_t completed;         /* COMPLETED events: the sum of the nine below */
    uint64_t succeeded, failed, cancelled;
    uint64_t rejected_global, rejected_bulkhead, rejected_concurrency; /* final status REJECTED */
    uint64_t rejected_waiting;  /* REJECTED: the max_waiting bound */
    uint64_t expired;           /* REJECTED: the queue deadline passed (GROUPCONC_EEXPIRED_*) */
    uint64_t rejected_fleet;    /* REJECTED: the fleet provider refused (GROUPCONC_EREJECTED_FLEET) */
    uint64_t caller_runs;       /* refused by a layer, then run under CALLER_RUNS (not in completed's
                                   sum: such a task counts where its run's status puts it; which
                                   layer refused it is its REJECTED event's reason) */
    uint64_t oldest_wait_ns;    /* age of the oldest waiting task (0 if none); measured with a
                                   coarse clock where there is one: a few ms resolution */
    size_t refusing;            /* refused by a layer, the outcome not decided yet: a rejection
                                   handler decides it, or CALLER_RUNS (until the task is queued
                                   again, or has run in its submit); in submitted, not yet in
                                   completed, and in no other gauge (the dump lists some of them:
                                   caller_runs, refused). Not counted if memory ran out at the
                                   refusal (counts_unattributed's rule). A CALLER_RUNS re-run on a
                                   worker is in ready until it starts, then in no gauge (it holds
                                   no permits) until it completes */
} groupconc_group_stats;

/* GROUPCONC_GROUP_STATS_FIELDS(X): every field of groupconc_group_stats, in declaration order, as
   X(type, name, kind), kind S (signed: print as long long) or U (unsigned or bool: print as
   unsigned long long); the meaning of each is the struct's comment above. The JSON dump prints
   each group's stats from this list (so every field is in the dump), and the implementation
   checks at compile time that the list covers the struct exactly (same fields, types, offsets and
   size): a field added to the struct and not here fails the build. Usable by programs too (e.g. to
   print or export every field). */
#define GROUPCONC_GROUP_STATS_FIELDS(X)                                                                \
    X(int, concurrency, S) X(int, max_in_flight, S) X(int, queue_threshold, S)                       \
    X(size_t, running, U) X(size_t, ready, U) X(size_t, waiting_global, U)                           \
    X(size_t, waiting_bulkhead, U) X(size_t, waiting_concurrency, U) X(size_t, in_flight, U)         \
    X(size_t, gate_permits, U) X(size_t, waiting_running, U) X(bool, paused, U)                      \
    X(int64_t, max_wait_ns, S) X(size_t, waiting_fleet, U) X(uint64_t, submitted, U)                 \
    X(uint64_t, admitted, U) X(uint64_t, completed, U) X(uint64_t, succeeded, U)                     \
    X(uint64_t, failed, U) X(uint64_t, cancelled, U) X(uint64_t, rejected_global, U)                 \
    X(uint64_t, rejected_bulkhead, U) X(uint64_t, rejected_concurrency, U)                           \
    X(uint64_t, rejected_waiting, U) X(uint64_t, expired, U) X(uint64_t, rejected_fleet, U)          \
    X(uint64_t, caller_runs, U) X(uint64_t, oldest_wait_ns, U) X(size_t, refusing, U)

typedef struct groupconc_executor_stats {
    size_t groups;              /* groups with cached state (with one another thread is creating
                                   at that moment; the dump's count is exact) */
    size_t running;             /* on a worker, or a gate permit (see groupconc_group_stats.running) */
    size_t gate_permits;        /* executor gate permits held, all groups (in running too) */
    size_t ready;               /* hold all permits, waiting for a worker thread */
    size_t waiting;             /* waiting at any layer */
    size_t global_in_flight;    /* tasks past global in-flight (counted even with no cap) */
    int global_max_in_flight;   /* or GROUPCONC_UNLIMITED */
    size_t waiting_running;     /* waiting at global running (in `waiting` too) */
    size_t global_running;      /* global running permits held: ready, running and deferred tasks, gate
                                   permits (counted even with no cap) */
    int global_max_running;     /* or GROUPCONC_UNLIMITED */
    int max_waiting;            /* or GROUPCONC_UNLIMITED */
    int max_groups;             /* or GROUPCONC_UNLIMITED */
    size_t threads;             /* worker threads alive */
    size_t idle_threads;
    bool shutdown;
    bool paused;                /* groupconc_executor_pause */
    size_t paused_groups;       /* groups paused with groupconc_group_pause */
    /* Totals since creation, all groups (evicted ones included). */
    uint64_t submitted, admitted, completed, succeeded, failed, cancelled;
    uint64_t rejected_global, rejected_bulkhead, rejected_concurrency, rejected_waiting, expired;
    uint64_t rejected_other;    /* submit failed after SUBMITTED: ESHUTDOWN (a shutdown that
                                   came while the submit was under way; a submit that finds the
                                   executor shut down is refused before, uncounted), ENOMEM,
                                   ETHREAD, EGROUPS_FULL */
    uint64_t caller_runs;       /* refused, then run under CALLER_RUNS (see groupconc_group_stats) */
    uint64_t groups_reclaimed;  /* idle groups dropped by the bounded table (idle time or max) */
    uint64_t counts_unattributed; /* outcomes counted here but not in their group's stats: memory
                                     ran out when the group first needed its rare counters */
    /* The fleet layer (section [10]). */
    size_t waiting_fleet;       /* at the fleet layer: asked, answered BUSY or queued behind them
                                   unasked (in `waiting` too) */
    uint64_t rejected_fleet;    /* REJECTED: the provider refused (GROUPCONC_EREJECTED_FLEET) */
    uint64_t fleet_open;        /* OPEN answers (GROUPCONC_FLEET_OPEN) to waiting tasks: let through
                                   on local caps alone (one cancelled after the answer, before it
                                   ran, counts too; an answer to a task gone already does not) */
    uint64_t fleet_renew_failed; /* lease renewals that failed (groupconc_fleet_report) */
    size_t refusing;            /* refused, the outcome not decided yet: every group's (see
                                   groupconc_group_stats), evicted ones' too */
} groupconc_executor_stats;

/* GROUPCONC_EXECUTOR_STATS_FIELDS(X): every field of groupconc_executor_stats, in declaration
   order, as GROUPCONC_GROUP_STATS_FIELDS does for groupconc_group_stats (the dump's "executor"
   object prints each one; checked at compile time against the struct). */
#define GROUPCONC_EXECUTOR_STATS_FIELDS(X)                                                             \
    X(size_t, groups, U) X(size_t, running, U) X(size_t, gate_permits, U) X(size_t, ready, U)        \
    X(size_t, waiting, U) X(size_t, global_in_flight, U) X(int, global_max_in_flight, S)             \
    X(size_t, waiting_running, U) X(size_t, global_running, U) X(int, global_max_running, S)         \
    X(int, max_waiting, S) X(int, max_groups, S) X(size_t, threads, U) X(size_t, idle_threads, U)    \
    X(bool, shutdown, U) X(bool, paused, U) X(size_t, paused_groups, U) X(uint64_t, submitted, U)    \
    X(uint64_t, admitted, U) X(uint64_t, completed, U) X(uint64_t, succeeded, U)                     \
    X(uint64_t, failed, U) X(uint64_t, cancelled, U) X(uint64_t, rejected_global, U)                 \
    X(uint64_t, rejected_bulkhead, U) X(uint64_t, rejected_concurrency, U)                           \
    X(uint64_t, rejected_waiting, U) X(uint64_t, expired, U) X(uint64_t, rejected_other, U)          \
    X(uint64_t, caller_runs, U) X(uint64_t, groups_reclaimed, U) X(uint64_t, counts_unattributed, U) \
    X(size_t, waiting_fleet, U) X(uint64_t, rejected_fleet, U) X(uint64_t, fleet_open, U)            \
    X(uint64_t, fleet_renew_failed, U) X(size_t, refusing, U)

/* groupconc_group_stats_get: a snapshot of one group (consistent: taken under the executor lock;
   stale as soon as it returns).
   Params:        group: the key, as submitted; out_stats: filled on GROUPCONC_OK only.
   Returns:       GROUPCONC_OK; GROUPCONC_ENOTFOUND (no cached state for that key, and no entry
                  for it in the executor's per-group table: none in policy.groups nor from
                  groupconc_group_limits_set, or one that a reset to GROUPCONC_DEFAULT removed);
                  GROUPCONC_EINVAL; GROUPCONC_EKEYEMPTY; GROUPCONC_EKEYTOOLONG.
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the resolver (there: GROUPCONC_EDEADLK).
                  Runs here: never another task's code, nor the fleet provider (it may start a
                  worker thread: WHERE CALLBACKS RUN).
   Remarks:       a key with limits set but no state yet (never used, evicted or reclaimed): OK,
                  with the limits its state would start with (the entry's values, else the
                  policy defaults; concurrency GROUPCONC_DEFAULT where the resolver will decide
                  it), max_wait_ns as for a task submitted now, paused false and every count 0. */
GROUPCONC_API int groupconc_group_stats_get(groupconc_executor *ex, const char *group,
                                            groupconc_group_stats *out_stats);

/* groupconc_executor_stats_get: a snapshot of the executor (as groupconc_group_stats_get).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument).
   Thread safety: any thread; after shutdown and until destroy it still reports the groups.
   Callbacks:     may be called anywhere but the resolver (there: GROUPCONC_EDEADLK).
                  Runs here: never another task's code, nor the fleet provider (it may start a
                  worker thread: WHERE CALLBACKS RUN). */
GROUPCONC_API int groupconc_executor_stats_get(groupconc_executor *ex,
                                               groupconc_executor_stats *out_stats);

/* groupconc_group_keys_get: the known group keys (those with cached state), in no particular order.
   Params:        *out_keys: one allocation, (*out_keys)[0 .. *out_count-1] then NULL; free it with
                  groupconc_group_keys_free. Both are set to NULL / 0 on error.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ENOMEM.
   Thread safety: any thread.
   Callbacks:     may be called anywhere except the resolver.
                  Runs here: nothing: never another task's code. */
GROUPCONC_API int groupconc_group_keys_get(groupconc_executor *ex, char ***out_keys,
                                           size_t *out_count);

/* groupconc_group_keys_free: free what groupconc_group_keys_get returned. NULL is a no-op.
   Returns:       nothing.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API void groupconc_group_keys_free(char **keys);

/* ---- live limits, pause and resume ---------------------------------------------------------------
   Limits can change while tasks run. A change is one locked step per group (no waiter sees one
   layer changed and not another). Raising a limit hands permits to the waiters at once, oldest
   first; lowering one never preempts: what holds permits keeps them, and nothing new starts until
   the count is under the new cap. */

/* groupconc_group_limits_keep: a limits entry for `group` with every field GROUPCONC_KEEP.
   Returns:       the entry (set the fields to change, then groupconc_group_limits_set).
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API groupconc_group_limits groupconc_group_limits_keep(const char *group);

/* groupconc_group_limits_set: change a group's limits now, and for its state created later (after
   an evict or a reclaim): the values are recorded in the executor's per-group table.
   Params:        limits->group: the key (copied). Each field: a new value (as in the policy's
                  table), GROUPCONC_KEEP (unchanged), or GROUPCONC_DEFAULT (back to the resolver /
                  the policy's default_* value, resolved again now; not to the key's entry in
                  policy.groups: that entry is the table this call changes). max_wait_ns applies
                  to tasks submitted afterwards. A key with no state yet: only recorded. An entry
                  whose fields are all back to GROUPCONC_DEFAULT (max_wait_ns 0) leaves the table
                  again (a policy.groups entry too).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex, limits or limits->group NULL);
                  GROUPCONC_EKEYEMPTY / EKEYTOOLONG; GROUPCONC_ELIMIT (a value out of range);
                  GROUPCONC_ESHUTDOWN; GROUPCONC_ENOMEM (the table could not grow; nothing changed).
   Thread safety: any thread, concurrently with submits to the group.
   Callbacks:     may be called anywhere but the resolver; never waits. Tasks it hands permits to
                  start on workers. Runs here: other tasks' done / rej; fleet; res (a field back to
                  GROUPCONC_DEFAULT). Remarks: a finite queue threshold set here makes every later
                  submit take the executor lock (the inbox is for executors that never refuse). */
GROUPCONC_API int groupconc_group_limits_set(groupconc_executor *ex, const groupconc_group_limits *limits);

/* Executor-wide limits, for groupconc_executor_limits_set. The default_* fields apply to groups
   created afterwards (a group's limits are resolved once; change an existing group with
   groupconc_group_limits_set); default_max_wait_ns to tasks submitted afterwards. */
typedef struct groupconc_executor_limits {
    int global_max_in_flight, global_queue_threshold, global_max_running, max_waiting;
    int default_concurrency, default_max_in_flight, default_queue_threshold;
    int64_t default_max_wait_ns;
} groupconc_executor_limits;

/* groupconc_executor_limits_keep: every field GROUPCONC_KEEP.
   Returns:       the limits (set the fields to change, then groupconc_executor_limits_set).
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API groupconc_executor_limits groupconc_executor_limits_keep(void);

/* groupconc_executor_limits_set: change the global caps, thresholds and defaults now.
   Params:        each field: a value valid in groupconc_policy, or GROUPCONC_KEEP.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ELIMIT (a value out of
                  range; nothing changed); GROUPCONC_ESHUTDOWN.
   Thread safety: any thread.
   Callbacks:     as groupconc_group_limits_set. */
GROUPCONC_API int groupconc_executor_limits_set(groupconc_executor *ex,
                                                const groupconc_executor_limits *limits);

/* groupconc_group_pause: the group starts nothing new: no task of it is handed a concurrency
   permit (concurrency) or a global running permit, and executor gates refuse it (GROUPCONC_EPAUSED).
   Its waiting tasks keep their places; submits are still admitted to its queues (thresholds
   apply); running tasks run on. A key with no state yet gets it (created paused). Idempotent.
   Remarks:       a task that already holds every permit (ready, waiting only for a worker thread)
                  still starts. Shutdown and cancel still remove a paused group's waiters; a paused
                  group is never reclaimed by the bounded table. With a fleet provider, its waiting
                  tasks ask for no fleet lease and hold none until the resume (section [10]).
                  A pause holds back what waits: a task refused instead of waiting (its queue
                  threshold reached: with a threshold of 0, every new one) still runs under
                  CALLER_RUNS, as any refused task does: in its submit, or, refused later (a
                  task handed a global permit, then refused at the paused group's full queue),
                  on a worker, after its REJECTED event, holding no permits.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL; GROUPCONC_EKEYEMPTY / EKEYTOOLONG;
                  GROUPCONC_ESHUTDOWN; GROUPCONC_ENOMEM; GROUPCONC_EGROUPS_FULL (a new key, table full).
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the resolver; never waits.
                  Runs here: other tasks' done / rej; fleet; res (a new key). */
GROUPCONC_API int groupconc_group_pause(groupconc_executor *ex, const char *group);

/* groupconc_group_resume: undo groupconc_group_pause: free permits go to the waiters, oldest first;
   with a fleet provider, each of its tasks answered BUSY at the fleet layer is asked again.
   A key never used or not paused: OK (no-op).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL; GROUPCONC_EKEYEMPTY / EKEYTOOLONG.
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the resolver; never waits.
                  Runs here: other tasks' done / rej; fleet. */
GROUPCONC_API int groupconc_group_resume(groupconc_executor *ex, const char *group);

/* groupconc_executor_pause / _resume: the same for every group at once (a group paused by
   groupconc_group_pause stays paused after groupconc_executor_resume). Idempotent; allowed after
   shutdown (nothing is left to start then).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL).
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the resolver; never waits.
                  Runs here: other tasks' done / rej; fleet. */
GROUPCONC_API int groupconc_executor_pause(groupconc_executor *ex);
GROUPCONC_API int groupconc_executor_resume(groupconc_executor *ex);

/* ---- [8] admission gate -------------------------------------------------------------------------
   For work that is not a function on a worker thread (an event loop's requests, callbacks, work
   that completes later on another thread): try-acquire says yes or no at once (no waiting, no
   queue), and an admitted caller releases its permit exactly once, with how the work ended.
   A standalone gate has a limit of its own. An executor gate admits against an executor's groups:
   its permit holds a permit of every local layer of the group (global in-flight, bulkhead,
   concurrency, global running; not the fleet), so async work and the group's tasks
   share one budget, and releasing it hands the permits to the oldest waiting tasks.
   Absent with GROUPCONC_NO_GATE. */

#ifndef GROUPCONC_NO_GATE
typedef struct groupconc_gate groupconc_gate;

/* An admitted permit, a value the caller keeps. Identified by its gate, slot and generation: after
   the first release the slot's generation moves on, so a second release (of this value or of any
   copy of it) is detected and refused, never counted twice. try_acquire always writes it: on an
   error it is the "empty" permit {NULL, 0, 0}, whose release is refused too
   (GROUPCONC_EPERMIT). */
typedef struct groupconc_permit {
    groupconc_gate *gate;
    uint32_t slot;
    uint32_t generation;
} groupconc_permit;

/* How the admitted work ended (for the listener and the counters; every kind frees the permit). */
typedef enum groupconc_release_kind {
    GROUPCONC_RELEASE_SUCCESS = 0,
    GROUPCONC_RELEASE_FAILURE,
    GROUPCONC_RELEASE_CANCELLED
} groupconc_release_kind;

typedef enum groupconc_gate_event_type {
    GROUPCONC_GATE_ADMITTED = 0, /* a permit was handed out */
    GROUPCONC_GATE_REJECTED,     /* an attempt was refused: event.reason says by what */
    GROUPCONC_GATE_RELEASED      /* a permit came back: event.kind, event.error */
} groupconc_gate_event_type;

typedef struct groupconc_gate_event {
    groupconc_gate_event_type type;
    groupconc_gate *gate;
    const char *group;           /* an executor gate's group key; NULL for a standalone gate */
    int reason;                  /* REJECTED: GROUPCONC_EGATE_FULL (a standalone gate's limit),
                                    GROUPCONC_EREJECTED_GLOBAL / _BULKHEAD / _CONCURRENCY /
                                    _RUNNING (the first layer with no free permit, or with tasks
                                    waiting), GROUPCONC_EPAUSED, GROUPCONC_EGROUPS_FULL,
                                    GROUPCONC_ESHUTDOWN; else 0 */
    groupconc_release_kind kind; /* RELEASED: as given to groupconc_permit_release */
    int error;                   /* RELEASED: the caller's code, as given (never interpreted) */
} groupconc_gate_event;

/* Gate listener: observability only. Runs after the decision, with no lock held, on the thread
   that acquired or released; may run concurrently on several threads. It may call into the gate
   (acquire, release, stats); nothing it does changes a decision already taken. */
typedef void (*groupconc_gate_listener_fn)(const groupconc_gate_event *event, void *user_data);

typedef struct groupconc_gate_config {
    int limit;                    /* standalone: permits at once, >= 1 or GROUPCONC_UNLIMITED
                                     (INT_MAX counts as unlimited); 0 for an executor gate */
    groupconc_executor *executor; /* set: an executor gate, admitting against its groups */
    groupconc_gate_listener_fn listener; /* optional */
    void *listener_user_data;
} groupconc_gate_config;

/* Totals and a snapshot (groupconc_gate_stats_get). The snapshot is stale as soon as it returns: a
   caller must not test `available` and then acquire (another thread may take the permit in
   between); try-acquire is the only test that counts. */
typedef struct groupconc_gate_stats {
    int limit;              /* standalone: the limit as configured (GROUPCONC_UNLIMITED; a limit
                               of INT_MAX, which admits as unlimited, reads INT_MAX, and
                               `available` counts down from it); executor gate with a group: the
                               group's concurrency; without: GROUPCONC_UNLIMITED */
    int available;          /* permits a try-acquire could take now (GROUPCONC_UNLIMITED: no
                               bound); for a group: the fewest free at its local layers, 0 while
                               tasks wait at the global in-flight, bulkhead or concurrency layer,
                               the group or executor is paused, or the executor is shut down */
    size_t in_flight;       /* this gate's permits held (for a group: in that group) */
    uint64_t admitted, rejected; /* attempts, since creation (the whole gate) */
    uint64_t released_success, released_failure, released_cancelled;
} groupconc_gate_stats;

/* groupconc_gate_create: make a gate.
   Params:        config is copied. An executor gate (config->executor set) must be destroyed
                  before its executor: groupconc_executor_destroy refuses while one exists.
   Returns:       GROUPCONC_OK (*out_gate set; else NULL); GROUPCONC_EINVAL (a NULL argument);
                  GROUPCONC_ELIMIT (standalone with limit < 1 and not UNLIMITED, or an executor gate
                  with a limit other than 0); GROUPCONC_ESHUTDOWN (the executor is shut down);
                  GROUPCONC_ENOMEM.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API int groupconc_gate_create(const groupconc_gate_config *config, groupconc_gate **out_gate);

/* groupconc_gate_destroy: free a gate that has no permit out.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (gate NULL); GROUPCONC_EBUSY (permits are still
                  held: nothing done; release them first).
   Thread safety: no other call on the gate may run concurrently, nor start after it.
   Callbacks:     not from the gate's own listener.
                  Runs here: nothing. */
GROUPCONC_API int groupconc_gate_destroy(groupconc_gate *gate);

/* groupconc_gate_try_acquire: admit one unit of work now, or refuse it now. Never waits, never
   queues: a refused attempt holds nothing and is never admitted later.
   Params:        group: the group key for an executor gate (required; its state is created as a
                  submit would, and stays when the attempt is refused, ENOMEM included: an idle
                  group, which a bounded table reclaims); NULL for a standalone gate.
                  *out_permit is always written.
   Returns:       GROUPCONC_OK (admitted: release *out_permit exactly once); GROUPCONC_EGATE_FULL
                  (standalone: at its limit); GROUPCONC_EREJECTED_GLOBAL / _BULKHEAD /
                  _CONCURRENCY / _RUNNING (executor gate: the first layer with no free permit, or
                  with tasks waiting: a permit never overtakes a queued task; global running is
                  global_max_running); GROUPCONC_EPAUSED (the group or the executor is paused);
                  GROUPCONC_EGROUPS_FULL (a new key at max_groups, no idle group); GROUPCONC_ESHUTDOWN
                  (the executor is shut down); GROUPCONC_EINVAL (gate or out_permit NULL; group NULL
                  for an executor gate, or set for a standalone one); GROUPCONC_EKEYEMPTY /
                  EKEYTOOLONG; GROUPCONC_ENOMEM.
   Thread safety: any thread.
   Callbacks:     may be called anywhere, also from the gate's listener.
                  Runs here: res (a new key), the gate listener; never another task's code, nor
                  the fleet provider (it may start a worker thread). */
GROUPCONC_API int groupconc_gate_try_acquire(groupconc_gate *gate, const char *group,
                                             groupconc_permit *out_permit);

/* groupconc_permit_release: give an admitted permit back, saying how its work ended. An executor
   gate's permits go to the group's oldest waiting tasks, as when a task completes.
   Params:        kind: SUCCESS / FAILURE / CANCELLED; error: any code of the caller's (for the
                  listener; not interpreted).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (permit NULL, or kind unknown: nothing done);
                  GROUPCONC_EPERMIT (not held: released already, or never admitted; nothing done).
   Thread safety: any thread, also one other than the acquirer's; racing releases of one permit:
                  exactly one returns OK.
   Callbacks:     may be called anywhere.
                  Runs here: the gate listener; other tasks' rej (hand-offs); fleet.
   Remarks:       a permit is valid until its gate is destroyed. A slot's generation is 32 bits: a
                  stale copy is recognised unless its slot was reused 2^31 times since. A permit is
                  checked against its own gate's slots: one whose `gate` field was altered to name
                  another gate is not told apart from that gate's permit. */
GROUPCONC_API int groupconc_permit_release(const groupconc_permit *permit,
                                           groupconc_release_kind kind, int error);

/* groupconc_gate_stats_get: totals and a snapshot (see groupconc_gate_stats: not a test to act on).
   Params:        group: for an executor gate, the group to report (NULL: the whole gate: limit and
                  available UNLIMITED, in_flight all its permits); NULL for a standalone gate.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument, or group set for a standalone
                  gate); GROUPCONC_EKEYEMPTY / EKEYTOOLONG; GROUPCONC_ENOTFOUND (no such group).
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing: never another task's code. */
GROUPCONC_API int groupconc_gate_stats_get(groupconc_gate *gate, const char *group,
                                           groupconc_gate_stats *out_stats);
#endif /* !GROUPCONC_NO_GATE */

/* ---- [9] structured scopes and the dump ----------------------------------------------------------
   A scope owns the tasks forked in it (seed 004, JEP 428): fork into any group (its limits still
   apply; a fork is an ordinary task), join, shut down (cancel what remains), close (as JEP 428:
   shuts down unless joined, then waits for every fork). A policy decides what the forks' outcomes
   mean (only CUSTOM lets the callback name the first fork). A scope opened inside a fork's body
   (not in its events) is that fork's scope's child: shutting a scope down shuts its descendants
   down too, and a fork's body closes the scopes it leaves open as it returns (unless it deferred
   its completion: see groupconc_scope_open).
   Scopes are absent with GROUPCONC_NO_SCOPES, the dump with GROUPCONC_NO_DUMP. */

#ifndef GROUPCONC_NO_SCOPES
typedef struct groupconc_scope groupconc_scope;

typedef enum groupconc_scope_policy {
    GROUPCONC_SCOPE_COLLECT_ALL = 0,     /* every result, in fork order; join returns OK */
    GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, /* the first failure (FAILED or REJECTED fork) shuts the scope
                                            down; join returns GROUPCONC_EFAILED, scope_first names it */
    GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS, /* the first success is the scope's result and shuts it down;
                                            join returns GROUPCONC_EFAILED if no fork succeeded */
    GROUPCONC_SCOPE_CUSTOM               /* config.on_fork_complete sees each completion and may call
                                            groupconc_scope_shutdown; join returns OK */
} groupconc_scope_policy;

/* Sees each fork's completion (CUSTOM policy): its index in fork order and its result (valid
   during the call). Runs on the thread that completed the fork, with no lock held; it may call
   groupconc_scope_shutdown, groupconc_scope_first_set, stats and submits. */
typedef void (*groupconc_scope_fn)(groupconc_scope *scope, size_t fork_index,
                                   const groupconc_result *result, void *user_data);

typedef struct groupconc_scope_config {
    groupconc_scope_policy policy;
    groupconc_scope_fn on_fork_complete; /* CUSTOM: required; else optional (called too) */
    void *user_data;
    const char *name;                    /* optional, copied: shown in the dump */
} groupconc_scope_config;

/* groupconc_scope_open: open a scope on `ex`, owned by the calling thread. Opened inside a fork's
   body (of a scope of the same executor), it is that scope's child.
   Params:        config may be NULL (COLLECT_ALL, no name).
   Returns:       GROUPCONC_OK (*out_scope set; else NULL); GROUPCONC_EINVAL (ex or out_scope NULL,
                  CUSTOM without on_fork_complete); GROUPCONC_EPOLICY (unknown policy value);
                  GROUPCONC_ESHUTDOWN (the executor, or the parent scope, is shut down);
                  GROUPCONC_ENOMEM; GROUPCONC_EDEADLK (on ex's housekeeper thread: see Callbacks).
   Thread safety: any thread; the scope belongs to that thread (see groupconc_scope_fork), for
                  good: one whose owner thread ends without closing it passes to no other thread
                  (even one the system gives the same thread id: ENOTOWNER) and keeps ex's
                  destroy at GROUPCONC_EBUSY (but see Remarks: a worker's scopes).
   Callbacks:     from a task body (a fork's: a child scope) or any callback, except on ex's
                  housekeeper thread (an expired task's callbacks): a scope's join and close wait
                  for its forks, and that thread must not block (EDEADLK, nothing opened).
                  Runs here: nothing.
   Remarks:       a scope that a fork's body, or any task body on a worker (or a callback inside
                  such a body: its STARTED event, a CALLER_RUNS run in a submit it makes) opens and
                  has not closed when the body returns is closed then, as groupconc_scope_close
                  does (shut down unless joined, every fork waited for; its result is dropped and
                  the scope freed): a worker's thread owns it, and nobody else could close it. So a
                  fork's child scopes are closed before the fork completes, and the task's run time
                  includes that wait. A body that returns GROUPCONC_TASK_PENDING after deferring
                  its completion leaves them open (their forks may be what delivers it, and go on
                  working after): nobody can close them later, so close them before returning (the
                  close waits for their forks). A CALLER_RUNS run inside submit on the caller's own
                  thread, not a fork, leaves its scopes to that thread. On a worker, a scope opened
                  outside any body (a COMPLETED event, a completion callback) belongs to that
                  worker's thread: after the callback returns, only code that happens to run on
                  that worker later could close it, so close it there. groupconc_executor_destroy frees
                  the scopes of its executor left open on that executor's workers; a scope left
                  open on another executor's worker keeps its executor's destroy at
                  GROUPCONC_EBUSY for ever. */
GROUPCONC_API int groupconc_scope_open(groupconc_executor *ex, const groupconc_scope_config *config,
                                       groupconc_scope **out_scope);

/* groupconc_scope_fork: submit a task into the scope (into spec->group, under its limits).
   Params:        spec as for groupconc_submit_spec; *out_index (may be NULL): the fork's index, its
                  place in fork order. The scope keeps the handle.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument, spec->group or spec->fn NULL);
                  GROUPCONC_ENOTOWNER (not the scope's owner thread, nor inside one of its forks);
                  GROUPCONC_ESCOPE_SHUTDOWN (the scope is shut down or joined: the task never runs,
                  its cleanup is not called); GROUPCONC_EKEYEMPTY / EKEYTOOLONG; GROUPCONC_ELIMIT
                  (spec->max_wait_ns negative and not GROUPCONC_FOREVER: nothing counted); GROUPCONC_ENOMEM
                  (the scope's own bookkeeping: nothing changed); the codes of groupconc_submit_spec
                  (GROUPCONC_EREJECTED_*, ESHUTDOWN, ENOMEM, ETHREAD): the fork was refused there and
                  still counts in the scope, with a REJECTED result whose reason is that code (group
                  and task_id as passed), a failure under SHUTDOWN_ON_FAILURE; *out_index is set
                  (the executor's stats count it as that submit did: see rejected_other); as there,
                  its cleanup is not called and `arg` is still the caller's. Tell the two
                  ENOMEM apart by groupconc_scope_fork_count.
   Thread safety: the owner thread, or a fork of the scope.
   Callbacks:     from the scope's forks and the owner's callbacks.
                  Runs here: as groupconc_submit_spec; a fork refused in submit: its
                  on_fork_complete.
   Remarks:       a fork is the caller's task wherever the caller sees it: a rejection handler gets
                  spec's fn, arg, cleanup, task_id and group (its arg_taken works as for any task),
                  and the listener, the dump and the results show spec's task_id and group. */
GROUPCONC_API int groupconc_scope_fork(groupconc_scope *scope, const groupconc_task_spec *spec,
                                       size_t *out_index);

/* groupconc_scope_join: wait until every fork has completed; then every result is readable without
   blocking (groupconc_scope_result). After a join the scope takes no more forks.
   Returns:       GROUPCONC_OK; GROUPCONC_EFAILED (SHUTDOWN_ON_FAILURE: a fork failed;
                  SHUTDOWN_ON_SUCCESS: none succeeded); GROUPCONC_EINVAL (scope NULL);
                  GROUPCONC_ENOTOWNER; GROUPCONC_EDEADLK (called from one of its own forks, or
                  from a callback that its close runs).
   Thread safety: the owner thread.
   Callbacks:     not from the scope's own forks or their callbacks, nor from a callback that runs
                  inside its close (EDEADLK).
   Remarks:       OK says what the policy decided, no more: a scope shut down from outside (its
                  parent's shutdown, groupconc_scope_shutdown, a join_for that timed out) joins OK
                  with the forks it cancelled CANCELLED. Check a result's status before using its
                  value.
                  Runs here: as groupconc_task_wait (the forks' on_fork_complete among them). */
GROUPCONC_API int groupconc_scope_join(groupconc_scope *scope);

/* groupconc_scope_join_for: as groupconc_scope_join, for at most timeout_ns; on expiry the scope is
   shut down (waiting forks dequeued, running ones flagged) and GROUPCONC_ETIMEDOUT is returned: call
   groupconc_scope_join (or close) to wait for the flagged forks.
   Params:        timeout_ns: nanoseconds; GROUPCONC_FOREVER (any negative): no limit.
   Returns:       as groupconc_scope_join; GROUPCONC_ETIMEDOUT.
   Callbacks:     as groupconc_scope_join; at the timeout also as groupconc_scope_shutdown. */
GROUPCONC_API int groupconc_scope_join_for(groupconc_scope *scope, int64_t timeout_ns);

/* groupconc_scope_shutdown: cancel what remains: dequeue waiting forks (CANCELLED), flag running
   ones, refuse later forks; the same for every descendant scope. Idempotent; never waits. A fork
   whose groupconc_scope_fork was still under way on another thread is cancelled when it would
   start (CANCELLED, no STARTED event, its function not called).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (scope NULL).
   Thread safety: any thread.
   Callbacks:     may be called anywhere (the custom policy's callback included).
                  Runs here: the cancelled forks' done (on_fork_complete too); other tasks' done /
                  rej; fleet. */
GROUPCONC_API int groupconc_scope_shutdown(groupconc_scope *scope);

/* groupconc_scope_close: as JEP 428's close: shut the scope down (as groupconc_scope_shutdown)
   unless it was joined, then wait for every fork (also one that ignores its cancellation), release
   their handles, free the scope. A thread's scopes close in the reverse order of their opening.
   Returns:       GROUPCONC_OK; GROUPCONC_ENOTJOINED (closed without a join: it shut the scope
                  down, waited and freed everything); GROUPCONC_EINVAL (scope NULL);
                  GROUPCONC_ENOTOWNER (not the owner thread: nothing done); GROUPCONC_EORDER (a
                  scope opened after it on this thread is still open: nothing done);
                  GROUPCONC_EDEADLK (from one of its own forks, or from a callback that this close
                  runs: nothing done).
   Thread safety: the owner thread.
   Callbacks:     not from the scope's own forks, nor from a callback inside its own close.
                  Without a join, its shutdown completes the forks it dequeues, of this scope and
                  of its descendant scopes, on the calling thread (their COMPLETED events, cleanups
                  and their scopes' policy callbacks run there): a join or close of this scope from
                  one of them is EDEADLK.
                  Runs here: as groupconc_scope_shutdown (without a join) and
                  groupconc_task_wait.
   Remarks:       a close without a join (an error path) never waits for work nobody will read:
                  forks still waiting are dequeued (CANCELLED, never run), running ones are flagged
                  and waited for; the policy callback sees each of them. After a join it only
                  frees. A child scope that a running fork opened is that fork's to close: the
                  shutdown reaches its forks too, and the wait for the fork waits for its close
                  (at the latest as the fork's body returns: see groupconc_scope_open). A fork
                  whose body deferred its completion may leave its child open: the close then
                  detaches it (its parent becomes none in the dump). */
GROUPCONC_API int groupconc_scope_close(groupconc_scope *scope);

/* groupconc_scope_result: fork `index`'s result.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ENOTFOUND (no such
                  index); GROUPCONC_ETIMEDOUT (that fork has not completed yet: poll, or join first).
                  out_result's group / task_id stay valid until the scope is closed.
   Thread safety: any thread while the scope is open.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API int groupconc_scope_result(groupconc_scope *scope, size_t index,
                                         groupconc_result *out_result);

/* groupconc_scope_first: the fork that decided the scope: SHUTDOWN_ON_FAILURE: the first failure;
   SHUTDOWN_ON_SUCCESS: the first success; CUSTOM: what the callback set (groupconc_scope_first_set).
   "First" is by result.end_ns (the fork that ended first), not by the order completions arrive:
   a task hands its permits on before its completion runs, so a fork that ended earlier can report
   after a later one (the previous task of a cap-1 group). Final once the scope is joined; before,
   an earlier-ended fork that reports late can still take its place.
   Returns:       GROUPCONC_OK (*out_index set); GROUPCONC_ENOTFOUND (none); GROUPCONC_EINVAL.
   Callbacks:     anywhere. Runs here: nothing. */
GROUPCONC_API int groupconc_scope_first(groupconc_scope *scope, size_t *out_index);

/* groupconc_scope_first_set: CUSTOM policy: name the deciding fork (the first call wins).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL; GROUPCONC_ESCOPE_POLICY (the scope's policy is not
                  CUSTOM: it names the first fork itself; nothing changed); GROUPCONC_ENOTFOUND (no
                  such index).
   Callbacks:     anywhere. Runs here: nothing.
   Remarks:       outside CUSTOM a call would contradict the policy (a join's result, which fork
                  shuts the scope down), so it is refused whatever the index, from any thread or
                  callback. */
GROUPCONC_API int groupconc_scope_first_set(groupconc_scope *scope, size_t index);

/* groupconc_scope_fork_count: forks so far (the indexes are 0 .. count-1).
   Returns:       the count; 0 for NULL. Thread safety: any thread. Callbacks: anywhere (from the
                  resolver too). Runs here: nothing. */
GROUPCONC_API size_t groupconc_scope_fork_count(groupconc_scope *scope);

/* groupconc_scope_policy_name: "COLLECT_ALL", "SHUTDOWN_ON_FAILURE", "SHUTDOWN_ON_SUCCESS",
   "CUSTOM"; "UNKNOWN" for any other value.
   Returns:       a static string, never NULL. Thread safety: any thread. Callbacks: anywhere.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_scope_policy_name(groupconc_scope_policy policy);
#endif /* !GROUPCONC_NO_SCOPES */

#ifndef GROUPCONC_NO_DUMP
/* groupconc_executor_dump: the executor's state as JSON (the C form of JEP 428's thread dump):
   version, limits and totals, each group (limits, counters, queue lengths), each waiting, ready,
   running and deferred task (group, id, state, age), and the scope tree (owner, policy, forks;
   empty with GROUPCONC_NO_SCOPES).
   Field names are listed in the manual's section 8, THE JSON DUMP, stable within a "version". The
   "executor" object and each of "groups" carry every field of groupconc_executor_stats /
   groupconc_group_stats (GROUPCONC_*_STATS_FIELDS), with the values the stats getters would return.
   Strict JSON (valid UTF-8) for any bytes: a key, task id or scope name that is valid UTF-8 is a
   JSON string; one that is not is a string with U+FFFD for each byte that starts no valid sequence,
   and beside it a member of the same name with "_hex" appended ("key_hex", "group_hex", "id_hex",
   "name_hex") holding its exact bytes in lowercase hex. That member is there exactly when the bytes
   are not UTF-8: two different keys never print alike (a key is its "_hex" bytes, else its text).
   Params:        buf / size: filled with the dump and a NUL when it fits, else with a truncated,
                  NUL-terminated prefix (buf may be NULL with size 0); *out_needed (may be NULL):
                  the bytes the whole dump takes, NUL included (0 after GROUPCONC_EINVAL).
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL, or buf NULL with size > 0);
                  GROUPCONC_ERANGE (did not fit: call again with *out_needed bytes; on a live
                  executor the state may grow meanwhile: leave room, or loop until OK, as
                  groupconc_executor_dump_file does); GROUPCONC_ENOMEM.
   Thread safety: any thread; a consistent snapshot (taken under the executor's locks).
   Callbacks:     may be called anywhere except the resolver.
                  Runs here: never another task's code, nor the fleet provider (it may start a
                  worker thread: WHERE CALLBACKS RUN). */
GROUPCONC_API int groupconc_executor_dump(groupconc_executor *ex, char *buf, size_t size,
                                          size_t *out_needed);

/* groupconc_executor_dump_file: groupconc_executor_dump, written to `out`.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (a NULL argument); GROUPCONC_ENOMEM; GROUPCONC_EIO
                  (writing failed).
   Thread safety: any thread.
   Callbacks:     as groupconc_executor_dump. */
GROUPCONC_API int groupconc_executor_dump_file(groupconc_executor *ex, FILE *out);
#endif /* !GROUPCONC_NO_DUMP */

/* ---- [10] fleet layer: caps across processes --------------------------------------------------
   With policy.fleet set, a task that holds its group's permits (global in-flight, bulkhead, concurrency) asks the provider for a
   lease (a fleet-wide cap kept elsewhere: extras/groupconc_redis.h keeps it in Redis) before it
   takes the global running cap and runs, and gives the lease back when it completes,
   before its COMPLETED event and before a wait on it returns. So a lease is held while the task
   runs (or is deferred), and, with global_max_running set, while it waits at global running (which is
   work-conserving: it waits only while the executor runs its maximum). A task answered BUSY waits
   in its group's FIFO holding its group's permits, a queue node without a thread and without a
   global running permit, until the provider calls groupconc_fleet_notify for its group (a notify that
   comes while the group's requests are out is remembered: the next BUSY answer is asked again).
   While a group has tasks answered BUSY it asks for one lease at a time; its later tasks queue
   behind them unasked. A task answered REJECT or OPEN took no lease (nor did one cancelled or
   expired while asked): its group's oldest task answered BUSY is asked at once (a provider whose
   backend is down sends no notify).
   Cancellation, shutdown, queue deadlines (GROUPCONC_EEXPIRED_FLEET), stats and the listener cover
   tasks at the fleet layer as at the others. Executor gate permits do not pass through it.
   Pause: a paused group (or executor) asks for no lease and holds none while it waits: its tasks
   answered BUSY are not asked again (notifies pass them by), a task that enters the layer or whose
   lease is granted after the pause waits as BUSY (the lease given back at once), and the resume
   asks again for each of its tasks answered BUSY, oldest first. Its running tasks keep theirs, and
   so does a task granted before the pause that waits at the global running cap (it holds every
   permit below that cap; the pause holds it there).
   A REJECT answer goes through the rejection policy as any layer's refusal: under
   GROUPCONC_REJECT_CALLER_RUNS the task fires REJECTED (reason GROUPCONC_EREJECTED_FLEET) and then
   runs on a worker holding no lease and no permit, counted in caller_runs (and by its run's status):
   with a fail-closed provider and its backend down, every task of a capped group runs so.
   The provider's duties: answer every request exactly once, also while the executor shuts down
   and is destroyed (destroy waits for the answers); notify once per lease freed in the fleet. Its
   own threads may call groupconc_fleet_answer, _notify and _report concurrently with
   groupconc_executor_destroy until its detach callback returns, and never after. */

/* groupconc_fleet_answer: the provider's answer to one request.
   Params:        verdict: GROUPCONC_FLEET_*; lease: the provider's token for GRANTED (given back
                  through release), ignored otherwise. A request is answered exactly once: a second
                  answer is undefined behaviour (the request may be freed by the first), as with free().
   Returns:       GROUPCONC_OK (also when the task was cancelled, expired or shut down meanwhile: a
                  GRANTED lease is then given back through release at once); GROUPCONC_EINVAL
                  (request NULL, or verdict outside the enum: the request stays unanswered);
                  GROUPCONC_EDEADLK (from the resolver: unanswered).
   Thread safety: any thread, including inside the provider's acquire call.
   Callbacks:     runs what the verdict leads to on this thread (a rejection handler, completion
                  callbacks, the listener; on the housekeeper a refusal goes to a worker, see
                  section 5), and the provider's acquire for its group's next request, with no
                  lock held; must not be called with a lock held that those callbacks take.
                  Runs here: rej / done of its task, ev (FLEET), the fleet provider's release and
                  acquire. */
GROUPCONC_API int groupconc_fleet_answer(groupconc_fleet_request *request,
                                         groupconc_fleet_verdict verdict, uint64_t lease);

/* groupconc_fleet_notify: one lease of `group` may be free in the fleet: its oldest task answered
   BUSY is asked again (a new request), unless its group (or the executor) is paused: then nothing
   is asked, and the resume asks again for each of them. Call it once per lease freed.
   Params:        group: a key, or NULL: every task answered BUSY, all groups, is asked again (a
                  provider's polling fallback, or after its backend came back), and every group
                  whose requests are out remembers it (its next BUSY answer asks again at once,
                  as after a named notify that found no BUSY task: section [10]).
   Returns:       GROUPCONC_OK (also when nothing of that group waits); GROUPCONC_EINVAL (ex NULL,
                  or no fleet provider in its policy); GROUPCONC_EKEYEMPTY / EKEYTOOLONG.
   Thread safety: any thread.
   Callbacks:     may be called anywhere but the resolver (there: GROUPCONC_EDEADLK); the asks are
                  made on this thread, after the executor lock is released.
                  Runs here: fleet (acquire, and what an answer made inside it runs). */
GROUPCONC_API int groupconc_fleet_notify(groupconc_executor *ex, const char *group);

/* groupconc_fleet_report: the provider reports a problem to the listener and the stats
   (GROUPCONC_EVENT_FLEET): GROUPCONC_EFLEET_RENEW (a lease renewal failed, the task keeps running:
   counted in fleet_renew_failed). GROUPCONC_EFLEET_OPEN is reported by the executor itself, for
   each GROUPCONC_FLEET_OPEN answer to a task that still waited for it.
   Params:        group: the key concerned (may be NULL); reason: GROUPCONC_EFLEET_RENEW.
   Returns:       GROUPCONC_OK; GROUPCONC_EINVAL (ex NULL, another reason, or no fleet provider in
                  its policy: nothing counted); GROUPCONC_EKEYEMPTY / EKEYTOOLONG (group);
                  GROUPCONC_EDEADLK (from the resolver).
   Thread safety: any thread.
   Callbacks:     the listener runs on this thread, with no lock held.
                  Runs here: ev (FLEET). */
GROUPCONC_API int groupconc_fleet_report(groupconc_executor *ex, const char *group, int reason);

/* ---- [11] diagnostics ---------------------------------------------------------------------------- */

/* groupconc_strerror: the message of a library code (an API return value or result.reason).
   Returns:       a static string, never NULL; "unknown error code" for any other value.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_strerror(int code);

/* groupconc_errname: the name of a library code ("GROUPCONC_EINVAL").
   Returns:       a static string, never NULL; "GROUPCONC_UNKNOWN" for any other value.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_errname(int code);

/* groupconc_version: the implementation's version (compare with GROUPCONC_VERSION_STRING to catch a
   header and an implementation of different versions).
   Returns:       a static string, never NULL.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_version(void);

/* groupconc_status_name, groupconc_cancel_outcome_name, groupconc_event_type_name,
   groupconc_rejection_policy_name, groupconc_release_kind_name, groupconc_gate_event_type_name,
   groupconc_fleet_verdict_name: an enum value's name without its prefix ("SUCCESS", "DEQUEUED",
   "COMPLETED", "CALLER_RUNS", "FAILURE", "ADMITTED", "GRANTED"; the gate's two are absent with
   GROUPCONC_NO_GATE).
   Returns:       a static string, never NULL; "UNKNOWN" for a value outside the enum.
   Thread safety: any thread.
   Callbacks:     may be called anywhere.
                  Runs here: nothing. */
GROUPCONC_API const char *groupconc_status_name(groupconc_status status);
GROUPCONC_API const char *groupconc_cancel_outcome_name(groupconc_cancel_outcome outcome);
GROUPCONC_API const char *groupconc_event_type_name(groupconc_event_type type);
GROUPCONC_API const char *groupconc_rejection_policy_name(groupconc_rejection_policy policy);
#ifndef GROUPCONC_NO_GATE
GROUPCONC_API const char *groupconc_release_kind_name(groupconc_release_kind kind);
GROUPCONC_API const char *groupconc_gate_event_type_name(groupconc_gate_event_type type);
#endif
GROUPCONC_API const char *groupconc_fleet_verdict_name(groupconc_fleet_verdict verdict);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* GROUPCONC_H_INCLUDED */

/* ============================================================================================== */
/* ==== IMPLEMENTATION ========================================================================== */
/* ============================================================================================== */
#if defined(GROUPCONC_IMPLEMENTATION) && !defined(GROUPCONC_IMPLEMENTATION_INCLUDED)
#define GROUPCONC_IMPLEMENTATION_INCLUDED
/* ==== reading the implementation =============================================================== */
/* Sections, in order (grep -n '==== ' groupconc.h), by feature: each public function lives with its
   mechanism. C wants a name declared before its use, so the containers follow the types they link,
   and a few forward declarations (at the top of "submit", and before "task life cycle") let a
   section call one that comes later.
     configuration       the user's macros, checked; the internal tunables, each with its reason
     platform shim       threads, mutexes, condition variables, clocks: C11 <threads.h>, POSIX or Win32;
                         the stripes' and gates' word lock (GROUPCONC__WORDLOCK: Linux, on by
                         default)
     internal types      task node, fair semaphore, group, worker; shards (the per-task queues and
                         counters, each shard with a lock: GROUPCONC__SHARDS, 1 by default, every
                         lock of the executor still all of them); the executor, its
                         fields grouped by owner: table (key table stripes, LRU, node caches),
                         inbox, shards, keeper (housekeeper, deadline heap), pool, fleet
     calling thread      per-thread frames: what user code of this library runs on this thread
     intrusive FIFO, key table   the containers
     groups              counters (hot inline, rare ones in a cold block), limit resolution, the
                         bounded table's LRU list and reclaim, group creation
     task life cycle     the transition tables; every function that moves a task between stages
     layers              admission and hand-off through the five layers, GROUPCONC__L_* (a table:
                         what shuts each, what bounds its queue), refill after a live change, the
                         deadline heap, the pump
     inbox, submit       submitting without the executor lock; the public submit calls, task nodes,
                         the locked path, execute_all
     completion and events   cleanups, results, events, callbacks, rejection handling
     handles             wait, cancel, release, results, completion callbacks
     worker pool         the table of worker states; starting, waking, spinning, napping, batches,
                         helping; worker_main, a loop over its parts (worker_step_locked,
                         worker_run_batch, worker_idle_locked, ...)
     housekeeper         one thread per executor: expires deadlines, reclaims idle groups, watches
                         the pool for blocked tasks (watch_locked)
     executor API        policy and executor life cycle; group control and stats; live limits,
                         pause and resume; diagnostics (names of codes and enums)
     modules             admission gate, structured scopes, each behind its GROUPCONC_NO_* switch (the
                         core calls into neither: the few places that look at their state are under
                         the same switches); fleet layer (the asynchronous layer's protocol and its
                         public calls); the JSON dump (GROUPCONC_NO_DUMP)
   Names: groupconc__* is private. A function named *_locked is called with ex->lock held, *_tlocked
   with a stripe lock of the key table held (its comment says which: the key's, or all); it does not
   release the lock, but for those that say so (spin_locked for a while; worker_sleep_locked,
   worker_idle_locked and wait_quiet_locked while they wait). The key table is GROUPCONC__STRIPES
   stripes, each its own lock and slots; a key's stripe is the low bits of its hash's upper 32 bits
   (its shard's too: "shards"); a thread's memo of
   the group it last found (groupconc__group_memo_find) spares a repeated key's submit the table's
   and the group's cache lines, and a removal from the stripe voids every memo of it. Lock order:
   ex->lock, then the stripe locks in index order, then table.lru_lock (the bounded table's LRU
   list, taken only by executors with max_groups or group_idle_ns); ex->lock, then done_lock;
   ex->lock, then ex->scope_lock, then a scope's lock (the dump; a scope's shutdown reads its forks
   under them while it cancels them as one step); ex->lock, then a gate's lock (a leaf: "admission
   gate"); with more than one shard, the shards' locks, then pool.lock (a leaf);
   table.caches_lock (the list of the threads' node caches) is taken alone or inside a stripe lock.
   ex->lock ("the executor lock": every shard's lock, taken in index order, see "shards"; with one
   shard, shard 0's) is taken only through the functions of "the executor lock" (groupconc__exec_lock,
   _trylock and _wait, let go of through _unlock; with more than one shard also work_wait and
   idle_wait_all, which let go of the shards to wait on pool.lock: .ci/check_lifecycle.py checks
   that no other section does): the first thing each of them does once it holds the lock is to end
   the workers' chains (worker pool, "chains"). A call that must see the whole executor takes it as
   every shard's lock (groupconc__exec_lock_all, lock_all, lock_quiet_all) and lets go of it as such
   (_unlock_all): the same locks for now (step 5a: the per-task kind takes every shard too), the two
   kinds told apart for step 5b, which narrows the per-task kind to one shard
   (docs/lock-measurements.md), and checked in a debug build. Where a datum lives: a group's tasks
   and counts in its shard (groupconc__shard_of), the counts a worker retires over a batch
   (unfinished, retired) executor-wide (with one shard, shard 0's fields; with more, the executor's
   atomics: GROUPCONC__UNFINISHED); a per-task path that names no group (a worker's claim,
   serial step, steal and sleep, kick_locked, the watch) looks at every shard's ready tasks, its
   worker's home shard first.
   A submit takes its key's stripe alone: it finds or creates the group, takes a node and pushes
   onto the inbox under it. Whatever must see the whole table takes every stripe
   (groupconc__table_lock_all): a group is reclaimed only with ex->lock and every stripe held and the
   inbox drained under them; evict takes ex->lock and the group's stripe, drains, removes. Since a
   push happens under the group's stripe lock, no task can be on its way into a group being
   reclaimed or evicted. The count of groups (table.ngroups, atomic) is reserved under the key's
   stripe before a group is made, so that max_groups holds across stripes. User code never runs
   with one of these locks held, except the resolver (under its key's stripe lock, so that it runs
   once per group creation).
   Atomics: every atomic operation names its memory order (clang -Watomic-implicit-seq-cst checks
   this in CI). Most are relaxed, because a lock orders them, or acquire/release (a task's state
   word, the node returns). seq_cst marks the store-then-load pairings, where each side writes one
   variable and then reads the other's, so that at least one side sees the other: P1 and P2 below,
   each end marked in the code, and with more than one shard a third (the idle wait: a retirer
   fetch_subs `unfinished`, then reads `shutdown`; a shutdown waiter stores `shutdown`, fences, then
   reads `unfinished` under pool.lock: groupconc__retire_locked, groupconc__idle_wait_all). A few
   lone seq_cst loads beside them (busy_since, the totals' `unfinished`) read a pairing's variable:
     P1 "inbox"    a submitter pushes onto the inbox (CAS), then reads the worker counters
                   (groupconc__inbox_look) to decide whether it must (or may) lock and kick; a worker
                   raises nidle / nnapping, or lowers nwaking / nstarting / nspinning, then looks
                   at the inbox (groupconc__inbox_pending); the housekeeper clears keeper.watching (the
                   pool's watch), then looks at the inbox likewise. So no push is left unwatched.
                   With more than one shard the sleeper's last look (groupconc__work_wait, under
                   pool.lock) also reads each shard's ready-count mirror (sh->nready, stored seq_cst
                   by GROUPCONC__READY_MIRROR), against a kicker that makes a task ready, then reads
                   nidle.
     P2 "waiters"  a worker publishes a task it ran (nret), then reads nwaiters (groupconc__publish)
                   to decide whether to finish at once; a waiter raises nwaiters, then finishes
                   what was published (groupconc__wait_until, help_locked). So no waiter waits for a
                   task that sits finished-but-unpublished behind a long one. (The waiter then
                   sleeps until ST_DONE, which whoever completes the task sets after its COMPLETED
                   event and completion callbacks: groupconc__mark_done. No seq_cst needed there:
                   both RMW the state word, and a watched task's ST_DONE is set under done_lock,
                   where the waiter registers and sleeps.) */
/* ==== configuration defaults and checks ======================================================== */
/* The user's macros (CONFIGURATION at the top), checked here so that a bad value stops the build
   with a message that names it, then the internal tunables, each with the reason for its value. */

#if defined(__cplusplus)
#error "groupconc: the implementation is C11; compile the file that defines GROUPCONC_IMPLEMENTATION as C (the declarations alone work from C++)"
#define GROUPCONC__CONFIG_BAD 1
#endif

#if defined(GROUPCONC_MALLOC) && defined(GROUPCONC_FREE)
#elif !defined(GROUPCONC_MALLOC) && !defined(GROUPCONC_FREE)
#define GROUPCONC_MALLOC(sz) malloc(sz)
#define GROUPCONC_FREE(p) free(p)
#else
#error "groupconc: define both GROUPCONC_MALLOC and GROUPCONC_FREE, or neither"
#define GROUPCONC__CONFIG_BAD 1
#endif

#ifndef GROUPCONC_ASSERT
#include <assert.h>
#define GROUPCONC_ASSERT(x) assert(x)
#endif

#if !defined(GROUPCONC_DEBUG) && !defined(NDEBUG)
#define GROUPCONC_DEBUG 1
#endif

#ifndef GROUPCONC_MAX_KEY_LEN
#define GROUPCONC_MAX_KEY_LEN 256
#endif
#if (GROUPCONC_MAX_KEY_LEN + 0) < 1
#error "groupconc: GROUPCONC_MAX_KEY_LEN must be >= 1 (the longest accepted group key, in bytes)"
#define GROUPCONC__CONFIG_BAD 1
#endif

#ifndef GROUPCONC_BATCH_MAX
#define GROUPCONC_BATCH_MAX 16
#endif
#if (GROUPCONC_BATCH_MAX + 0) < 1
#error "groupconc: GROUPCONC_BATCH_MAX must be >= 1 (1: a worker takes one task at a time)"
#define GROUPCONC__CONFIG_BAD 1
#endif

/* How long an idle worker polls the inbox before it sleeps: catching a task this way costs nothing,
   while waking a sleeping thread costs the submitter a system call and the task ~5-10 us. */
#ifndef GROUPCONC_SPIN_NS
#define GROUPCONC_SPIN_NS 50000
#endif
#if (GROUPCONC_SPIN_NS + 0) < 0
#error "groupconc: GROUPCONC_SPIN_NS must be >= 0 (0: idle workers never spin)"
#define GROUPCONC__CONFIG_BAD 1
#endif

/* The thread backend: Win32 on _WIN32 unless another one is asked for; otherwise C11 <threads.h>,
   or POSIX threads when asked for, under ThreadSanitizer, or where <threads.h> is missing. */
#if defined(GROUPCONC_USE_WIN32) && (GROUPCONC_USE_WIN32 + 0) == 0
#undef GROUPCONC_USE_WIN32
#elif !defined(GROUPCONC_USE_WIN32) && defined(_WIN32) && !defined(GROUPCONC_USE_PTHREADS)
#define GROUPCONC_USE_WIN32 1
#endif
#if defined(GROUPCONC_USE_WIN32) && !defined(_WIN32)
#error "groupconc: GROUPCONC_USE_WIN32 needs a Windows target (_WIN32)"
#define GROUPCONC__CONFIG_BAD 1
#endif
#if defined(GROUPCONC_USE_WIN32) && defined(GROUPCONC_USE_PTHREADS) && (GROUPCONC_USE_PTHREADS + 0) != 0
#error "groupconc: GROUPCONC_USE_WIN32 and GROUPCONC_USE_PTHREADS both ask for a backend; define one"
#define GROUPCONC__CONFIG_BAD 1
#endif

/* After a configuration #error, the rest would only bury it under follow-on errors. */
#if !defined(GROUPCONC__CONFIG_BAD)

/* Internal tunables (not part of the API; measured on 2-core VMs, SPIN_TRIES also on 16 vCPUs;
   the Win32 and C11 backends' mutexes take SPIN_TRIES too, not measured there):
   GROUPCONC__SPIN_TRIES    trylock attempts before a mutex blocks (a stripe's word lock: one
                            try, then this many that read the word first and write only when it
                            is free): locks are held for a few hundred ns, while sleeping on a
                            contended mutex and being woken costs us. Few: each try is a locked
                            write to the lock's line, so many spinners slow the holder (16
                            submitters of one key on 16 CPUs: its stripe lock held 417 ns instead
                            of 133, W7a 1.1 M tasks/s and 12.9 us of CPU per task at 32 tries,
                            1.9 M and 7.0 us at 8 (medians), the same at 0;
                            docs/lock-measurements.md).
   GROUPCONC__EXEC_SPIN_TRIES  tries more, each after a yield of the CPU, for a worker that finds
                            the executor lock taken (groupconc__exec_mutex_lock_slow): a locked
                            step may admit a whole inbox and hold the lock for microseconds, and a
                            worker that sleeps on it pays a futex wait, a wake and a context switch
                            per hand-off (the two workers of W2, 10,000 cap-1 keys, spent a
                            quarter of their time in futex calls). A yield, not a pause: with
                            more threads than CPUs (four submitters, W7a) a spinning worker took
                            the CPU from the submitters (W7a -23 % at 256 pauses); a yield gives it
                            to them, and returns at once when none waits. Not for other threads:
                            a submitter spinning there took the CPU from the workers (W5 -10 %).
                            See docs/performance.md.
   GROUPCONC__SPIN_PAUSES   cpu-relax pauses between two polls of a spinning worker: a poll steals
                            the inbox's cache line from the submitter.
   GROUPCONC__SHORT_NS      a task that returns within this is "short": the worker doubles how many
                            it takes per locked step (up to GROUPCONC_BATCH_MAX).
   GROUPCONC__BATCH_NS      a batch running longer than this goes back to one task at a time and
                            hands back what it has not started; a worker busy this long counts as
                            possibly stuck (its published tasks may be finished by others).
   GROUPCONC__HELP_NS       nap length of the one idle worker that watches for a stuck busy one.
   GROUPCONC__BLOCKED_NS    no task finished for this long while ready work waits for a worker, and
                            a worker sleeps in a task this old: a stall, the housekeeper's watch
                            starts a worker for each waiting task (1 ms: far above a batch, a lock
                            hand-off or a context switch, below the sleeps and I/O waits it is there
                            for).
   GROUPCONC__STUCK_NS      while other tasks finish, a task that has run this long gets a worker
                            started for it (10 ms: a thread preempted on a loaded machine is back
                            well within it, most of the time; a sleep or a wait this long wastes a
                            CPU for a while). A call to groupconc_context_blocking needs neither.
   GROUPCONC__WATCH_NS      the watch's first interval (how often the housekeeper looks while ready
                            work waits and every worker is busy); it doubles, up to
                            GROUPCONC__WATCH_MAX_NS, while its looks find tasks finishing and none
                            stuck (short tasks pay ~100 looks a second), and drops back at a stuck one.
   GROUPCONC__TIME_SCALE    multiplies the seven times above (1). Only for counting instructions
                            under valgrind, whose clock runs ~100x slower than the code it counts:
                            at 1 most no-op tasks there look long to the pacing, and the count is
                            of a locked step per task, a path no native run of such tasks takes
                            (tests/bench/run.sh builds its callgrind binary with 100).
   GROUPCONC__NODE_CACHE_MAX  task nodes a worker keeps for the submitters: a node freed on a worker
                            and allocated on the submitting thread is malloc's costliest case. A
                            lot is taken whole when a submitter's cache runs dry, so it must
                            outlast a burst: at 1024, 84 % of W1's nodes went through malloc and
                            free (callgrind, 1,240 instructions per task; 4096: 1,120). At most
                            4096 nodes of each size (56 and 72 bytes: a 64- and an 80-byte
                            chunk, 576 KiB) per worker, kept until the worker retires or destroy.
   GROUPCONC__NODE_TRANSIT_MAX  nodes of each size in transit to the submitters (the workers' lots,
                            chained): a worker hands its lot on while fewer are there, so that a
                            second worker's lot is not freed while the first waits to be taken
                            (with one lot in transit, a burst of W1 under callgrind sent a quarter
                            of its nodes through malloc and free: ~50 instructions a task). The
                            transit holds at most this, a lot, and a lot per take under way
                            (groupconc__nodes_return); a submitting thread's cache keeps what it
                            took at once until it used it: 16384 nodes are 1 MiB of 64-byte
                            chunks, 1.25 MiB of 80-byte ones.
   GROUPCONC__NODE_CACHES   submitting threads with a node cache of their own, per executor: each
                            keeps at most what it took from the transit at once; more threads
                            allocate theirs.
   GROUPCONC__SERIAL_MAX    tasks of one group a worker runs in a serial run (worker_serial_locked),
                            its chains' included (a chain starts below it and may pass it by up to
                            15), before it takes a full locked step again: each
                            serial step already checks that no other work is ready or in the inbox
                            (a chain looks at the inbox before each task), so this only bounds what
                            the full step does besides (helping, stealing, waking).
   GROUPCONC__STRIPES       the key table's stripes, each with its own lock (a power of two): four
                            submitters of different keys meet on one stripe 1 time in 16 for each
                            pair, and the calls that take every stripe (a bounded table's reclaim,
                            live changes, stats of all groups) take 16 uncontended locks.
   GROUPCONC__WORDLOCK      1 (the default): on Linux the stripes and the gates take a word lock
                            of their own ("word locks"); 0: the platform mutex. Taken once per
                            submit, it is ~50 of callgrind's instructions per no-op task fewer
                            than glibc's mtx_trylock + mtx_unlock; a gate's pair with 2 threads
                            contending, ~0.8x the time. Off until 2026-12-07: interleaved A/Bs at
                            506e628 read W7a (four submitters of one key, all on its stripe)
                            0.92-0.94 in two of three; with the nodes' chained lots
                            (GROUPCONC__NODE_TRANSIT_MAX), against 03ec571's mutex, W7a 0.97, W1
                            1.28, W2 1.17 (docs/performance.md, "After c20086b's run: the word
                            lock on, and lots chained in transit").
                            tests/test_wordlock.c checks the lock in both settings. */
#ifndef GROUPCONC__WORDLOCK /* a build sets it to 0 for the platform mutex */
#define GROUPCONC__WORDLOCK 1
#endif
#ifndef GROUPCONC__SPIN_TRIES /* the bench's A/B builds set it */
#define GROUPCONC__SPIN_TRIES 8
#endif
#ifndef GROUPCONC__EXEC_SPIN_TRIES /* the bench's A/B builds set it */
#define GROUPCONC__EXEC_SPIN_TRIES 32
#endif
#ifndef GROUPCONC__SPIN_PAUSES
#define GROUPCONC__SPIN_PAUSES 64
#endif
#ifndef GROUPCONC__TIME_SCALE /* the bench's callgrind build: its clock runs ~100x slow (run.sh) */
#define GROUPCONC__TIME_SCALE 1
#endif
#if GROUPCONC__TIME_SCALE < 1
#error "GROUPCONC__TIME_SCALE must be a whole number >= 1 (it multiplies the pacing times)"
#endif
#define GROUPCONC__SHORT_NS (INT64_C(2000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__BATCH_NS (INT64_C(20000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__HELP_NS (INT64_C(100000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__BLOCKED_NS (INT64_C(1000000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__STUCK_NS (INT64_C(10000000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__WATCH_NS (INT64_C(250000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__WATCH_MAX_NS (INT64_C(8000000) * (GROUPCONC__TIME_SCALE))
#define GROUPCONC__NODE_CACHE_MAX 4096
#define GROUPCONC__NODE_TRANSIT_MAX 16384
#define GROUPCONC__SERIAL_MAX 64
#define GROUPCONC__NODE_CACHES 64
#ifndef GROUPCONC__STRIPES /* a build may choose another power of two (the tests' experiments) */
#define GROUPCONC__STRIPES 16
#endif
#if GROUPCONC__STRIPES < 1 || (GROUPCONC__STRIPES & (GROUPCONC__STRIPES - 1)) != 0
#error "GROUPCONC__STRIPES must be a power of two (a key's stripe is its hash's upper 32 bits, masked)"
#endif
#ifndef GROUPCONC__SHARDS /* the executor's shards ("shards"): 1; the tests' builds choose 16 */
#define GROUPCONC__SHARDS 1
#endif
#if GROUPCONC__SHARDS < 1 || GROUPCONC__SHARDS > 256 || (GROUPCONC__SHARDS & (GROUPCONC__SHARDS - 1)) != 0
#error "GROUPCONC__SHARDS must be a power of two from 1 to 256 (a group's shard is a byte)"
#endif

#ifndef GROUPCONC_TEST_THREAD_START_FAILS
#define GROUPCONC_TEST_THREAD_START_FAILS() 0
#endif
#ifndef GROUPCONC_TEST_TASK_PUBLISHED
#define GROUPCONC_TEST_TASK_PUBLISHED(task) ((void)0)
#endif
#ifndef GROUPCONC_TEST_WORKER_STARTING /* a new worker's thread, before it first takes the lock */
#define GROUPCONC_TEST_WORKER_STARTING() ((void)0)
#endif
#ifndef GROUPCONC_TEST_CHAIN_END /* a chain ended (under the lock): k chained tasks committed to */
#define GROUPCONC_TEST_CHAIN_END(k) ((void)0)
#endif

#if defined(GROUPCONC_USE_WIN32)
#undef GROUPCONC_USE_PTHREADS /* defined as 0 at most (checked above) */
#elif !defined(GROUPCONC_USE_PTHREADS)
#if defined(__SANITIZE_THREAD__) || defined(__STDC_NO_THREADS__)
#define GROUPCONC_USE_PTHREADS 1 /* TSan cannot see glibc's C11 threads; no <threads.h> here */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GROUPCONC_USE_PTHREADS 1
#endif
#endif
#if !defined(GROUPCONC_USE_PTHREADS) && defined(__has_include)
#if !__has_include(<threads.h>) /* macOS, mingw: no C11 threads, and no __STDC_NO_THREADS__ either */
#define GROUPCONC_USE_PTHREADS 1
#endif
#endif
#endif
#if defined(GROUPCONC_USE_PTHREADS) && (GROUPCONC_USE_PTHREADS + 0) == 0
#undef GROUPCONC_USE_PTHREADS
#endif

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h> /* snprintf, for groupconc_policy_check's message */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(GROUPCONC_USE_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <errno.h>
#include <process.h> /* _beginthreadex: it sets up the C runtime for the thread, CreateThread does not */
#elif defined(GROUPCONC_USE_PTHREADS)
#include <errno.h>
#include <sched.h> /* sched_yield */
#include <pthread.h>
#else
#include <threads.h>
#endif
#if !defined(_WIN32)
#include <unistd.h> /* sysconf, for the CPU count */
#if defined(__linux__)
#include <fcntl.h>  /* open, for a worker's state in /proc (the pool's watch) */
#include <sched.h>  /* sched_getaffinity, CPU_COUNT: declared where the TU defines _GNU_SOURCE */
/* readlink is declared (POSIX.1-2001): a worker's state can be read in /proc. glibc fixes what it
   declares at the TU's first system header, which may have come before this one (a strict ISO TU:
   then _POSIX_C_SOURCE defined here, or by -pthread's _REENTRANT as 199506L, declares nothing
   more), so ask it what it chose; other C libraries look at the macro in each header. */
#if defined(__GLIBC__)
#if defined(__USE_XOPEN2K)
#define GROUPCONC__PROC 1
#endif
#elif defined(_POSIX_C_SOURCE) && (_POSIX_C_SOURCE + 0) >= 200112L
#define GROUPCONC__PROC 1
#endif
#endif
#endif

#if defined(GROUPCONC_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define GROUPCONC__FN static __attribute__((unused))
#else
#define GROUPCONC__FN static
#endif

/* The hot path's helpers: GROUPCONC__HOT where a call's saving and restoring of registers cost
   more than the work (a no-op task's submit and run made ~25 such calls; inlined, callgrind's count
   fell from ~1080 to ~830 instructions a task: docs/performance.md); GROUPCONC__COLD keeps a rare
   half out of its caller's line. */
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC__HOT GROUPCONC__FN inline __attribute__((always_inline))
#define GROUPCONC__COLD GROUPCONC__FN __attribute__((noinline))
#else
#define GROUPCONC__HOT GROUPCONC__FN
#define GROUPCONC__COLD GROUPCONC__FN
#endif

#if defined(GROUPCONC_STATIC)
#define GROUPCONC__PUBLIC static
#else
#define GROUPCONC__PUBLIC
#endif

/* ==== platform shim: threads, mutexes, condition variables, clock ============================== */
/* Every call into the thread library goes through these wrappers: a new backend is added here, and
   lock/unlock/signal failures (library bugs, not API errors) end in GROUPCONC_ASSERT. */

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define GROUPCONC__CPU_RELAX() __builtin_ia32_pause()
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
#define GROUPCONC__CPU_RELAX() __asm__ __volatile__("yield")
#elif defined(GROUPCONC_USE_WIN32)
#define GROUPCONC__CPU_RELAX() YieldProcessor()
#else
#define GROUPCONC__CPU_RELAX() ((void)0)
#endif
#if defined(__GNUC__) || defined(__clang__)
#define GROUPCONC__PREFETCH(p) __builtin_prefetch(p)
#else
#define GROUPCONC__PREFETCH(p) ((void)0)
#endif

/* The word lock's (below) system call; where there is none, the mutexes stand in for it. */
#if defined(__linux__) && GROUPCONC__WORDLOCK
#include <errno.h>
#include <sys/syscall.h> /* SYS_futex */
#endif
#if defined(__linux__) && GROUPCONC__WORDLOCK && defined(SYS_futex)
#define GROUPCONC__WORDLOCK_ON 1
#endif

#if defined(GROUPCONC_USE_WIN32)
/* QueryPerformanceCounter: monotonic, fixed frequency (read once), system-wide, ~20 ns a read. */
static _Atomic uint64_t groupconc__qpc_hz;
GROUPCONC__FN uint64_t groupconc__now_ns(void) {
    LARGE_INTEGER count, freq;
    uint64_t hz = atomic_load_explicit(&groupconc__qpc_hz, memory_order_relaxed), c;
    if (hz == 0) {
        QueryPerformanceFrequency(&freq); /* cannot fail since Windows XP */
        hz = (uint64_t)freq.QuadPart;
        atomic_store_explicit(&groupconc__qpc_hz, hz, memory_order_relaxed);
    }
    QueryPerformanceCounter(&count);
    c = (uint64_t)count.QuadPart;
    return c / hz * 1000000000u + c % hz * 1000000000u / hz; /* no overflow below 18 GHz */
}
GROUPCONC__FN uint64_t groupconc__coarse_now_ns(void) { return groupconc__now_ns(); }
#else
/* POSIX condition variables wait on CLOCK_MONOTONIC where pthread_condattr_setclock exists: not on
   macOS, not in mingw's winpthreads (it refuses the call), and not where glibc declares no
   POSIX.1-2001 function (a strict ISO TU with a system header first, -pthread's _REENTRANT giving
   only CLOCK_MONOTONIC: LIMITATIONS). */
#if defined(GROUPCONC_USE_PTHREADS) && defined(CLOCK_MONOTONIC) && !defined(__APPLE__) && \
    !defined(_WIN32) && (!defined(__GLIBC__) || defined(__USE_XOPEN2K))
#define GROUPCONC__COND_MONOTONIC 1
#endif
/* Wall clock, for C11 timed waits, for POSIX ones where a condition variable cannot wait on
   CLOCK_MONOTONIC (above), and as the fallback clock. Failure is a platform bug. Only where it is
   used. */
#if !defined(GROUPCONC__COND_MONOTONIC)
static void groupconc__utc_now(struct timespec *ts) {
#if defined(GROUPCONC_USE_PTHREADS) && defined(_WIN32)
    int rc = clock_gettime(CLOCK_REALTIME, ts); /* mingw's msvcrt has no timespec_get */
    GROUPCONC_ASSERT(rc == 0);
#else
    int rc = timespec_get(ts, TIME_UTC);
    GROUPCONC_ASSERT(rc == TIME_UTC);
#endif
    (void)rc;
}
#endif

GROUPCONC__FN uint64_t groupconc__now_ns(void) {
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    int rc = clock_gettime(CLOCK_MONOTONIC, &ts);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
#else
    groupconc__utc_now(&ts); /* see LIMITATIONS: strict ISO TU without POSIX declarations */
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* For the enqueue time behind the oldest-waiter age, taken under the lock: a coarse clock
   (same base, a few ms resolution) costs a fraction of a precise read where it exists. */
GROUPCONC__FN uint64_t groupconc__coarse_now_ns(void) {
#if defined(CLOCK_MONOTONIC_COARSE)
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
    return groupconc__now_ns();
}
#endif

/* The process's CPU time (all its threads), for the pool's watch: whether its threads computed
   while no task finished. 0 where there is no such clock (every stall then counts). */
GROUPCONC__FN uint64_t groupconc__cpu_time_ns(void) {
#if defined(GROUPCONC_USE_WIN32)
    FILETIME c, e, k, u;
    if (!GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u)) return 0;
    return ((((uint64_t)k.dwHighDateTime << 32) | k.dwLowDateTime) +
            (((uint64_t)u.dwHighDateTime << 32) | u.dwLowDateTime)) * 100u;
#elif defined(CLOCK_PROCESS_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#else
    return 0;
#endif
}

/* The CPUs this process may run on, the size the worker pool keeps to while tasks do not block
   (see "worker pool"): the affinity mask where the TU sees it (Linux with _GNU_SOURCE defined before
   the first system header: sched_getaffinity and CPU_COUNT), else the online count (sysconf
   _SC_NPROCESSORS_ONLN); Windows: GetActiveProcessorCount(ALL_PROCESSOR_GROUPS) or GetSystemInfo,
   winpthreads' own count under GROUPCONC_USE_PTHREADS. 0 if unknown: the pool is then sized by
   max_threads alone (started on demand, as before). Read once, at create. */
GROUPCONC__FN size_t groupconc__cpu_count(void) {
#if defined(GROUPCONC_USE_WIN32)
#if defined(ALL_PROCESSOR_GROUPS) && defined(_WIN32_WINNT) && _WIN32_WINNT >= 0x0601
    return (size_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
#else
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (size_t)si.dwNumberOfProcessors;
#endif
#elif defined(_WIN32) && defined(GROUPCONC_USE_PTHREADS)
    int n = pthread_num_processors_np();
    return n > 0 ? (size_t)n : 0;
#else
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return (size_t)CPU_COUNT(&set);
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 0;
#else
    return 0;
#endif
#endif
}

#if defined(GROUPCONC_USE_WIN32)
/* Slim reader/writer locks (exclusive mode) and condition variables: nothing to allocate or free,
   so init cannot fail and destroy has nothing to do. Timed waits take milliseconds, rounded up;
   the system timer may stretch them to its tick (1-16 ms). */
typedef SRWLOCK groupconc__mutex;
typedef CONDITION_VARIABLE groupconc__cond;
typedef HANDLE groupconc__thread;

GROUPCONC__FN int groupconc__mutex_init(groupconc__mutex *m) {
    InitializeSRWLock(m);
    return GROUPCONC_OK;
}
GROUPCONC__FN void groupconc__mutex_destroy(groupconc__mutex *m) { (void)m; }
GROUPCONC__FN void groupconc__mutex_lock(groupconc__mutex *m) {
    int i;
    for (i = 0; i < GROUPCONC__SPIN_TRIES; i++) {
        if (TryAcquireSRWLockExclusive(m)) return;
        GROUPCONC__CPU_RELAX();
    }
    AcquireSRWLockExclusive(m);
}
GROUPCONC__FN bool groupconc__mutex_trylock(groupconc__mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
GROUPCONC__FN void groupconc__thread_yield(void) { (void)SwitchToThread(); }
#if !defined(GROUPCONC_NO_GATE) && !defined(GROUPCONC__WORDLOCK_ON) /* the gate's lock, as there */
GROUPCONC__FN void groupconc__mutex_lock_plain(groupconc__mutex *m) { AcquireSRWLockExclusive(m); }
#endif
GROUPCONC__FN void groupconc__mutex_unlock(groupconc__mutex *m) { ReleaseSRWLockExclusive(m); }
GROUPCONC__FN int groupconc__cond_init(groupconc__cond *c) {
    InitializeConditionVariable(c);
    return GROUPCONC_OK;
}
GROUPCONC__FN void groupconc__cond_destroy(groupconc__cond *c) { (void)c; }
GROUPCONC__FN void groupconc__cond_signal(groupconc__cond *c) { WakeConditionVariable(c); }
GROUPCONC__FN void groupconc__cond_broadcast(groupconc__cond *c) { WakeAllConditionVariable(c); }
GROUPCONC__FN void groupconc__cond_wait(groupconc__cond *c, groupconc__mutex *m) {
    BOOL ok = SleepConditionVariableSRW(c, m, INFINITE, 0);
    GROUPCONC_ASSERT(ok);
    (void)ok;
}
/* Wait until the monotonic time `deadline_ns`; returns false on timeout. A wake-up before the
   deadline that Windows reports as a timeout (its tick rounds) returns true: callers re-check. */
GROUPCONC__FN bool groupconc__cond_wait_until(groupconc__cond *c, groupconc__mutex *m,
                                              uint64_t deadline_ns) {
    uint64_t now = groupconc__now_ns(), left_ms;
    DWORD ms;
    if (deadline_ns <= now) return false;
    left_ms = (deadline_ns - now + 999999u) / 1000000u;
    ms = deadline_ns == UINT64_MAX || left_ms >= (uint64_t)INFINITE ? INFINITE - 1 : (DWORD)left_ms;
    if (SleepConditionVariableSRW(c, m, ms, 0)) return true;
    GROUPCONC_ASSERT(GetLastError() == ERROR_TIMEOUT);
    return groupconc__now_ns() < deadline_ns;
}
typedef struct groupconc__thread_start {
    int (*fn)(void *);
    void *arg;
} groupconc__thread_start;
GROUPCONC__FN unsigned __stdcall groupconc__win32_trampoline(void *p) {
    groupconc__thread_start s = *(groupconc__thread_start *)p;
    GROUPCONC_FREE(p);
    s.fn(s.arg);
    return 0;
}
GROUPCONC__FN int groupconc__thread_start_(groupconc__thread *t, int (*fn)(void *), void *arg) {
    groupconc__thread_start *s;
    uintptr_t h;
    if (GROUPCONC_TEST_THREAD_START_FAILS()) return GROUPCONC_ETHREAD;
    s = (groupconc__thread_start *)GROUPCONC_MALLOC(sizeof *s);
    if (!s) return GROUPCONC_ENOMEM;
    s->fn = fn;
    s->arg = arg;
    h = _beginthreadex(NULL, 0, groupconc__win32_trampoline, s, 0, NULL);
    if (h == 0) {
        int err = errno;
        GROUPCONC_FREE(s);
        return err == ENOMEM ? GROUPCONC_ENOMEM : GROUPCONC_ETHREAD;
    }
    *t = (HANDLE)h;
    return GROUPCONC_OK;
}
GROUPCONC__FN void groupconc__thread_join(groupconc__thread t) {
    DWORD rc = WaitForSingleObject(t, INFINITE);
    GROUPCONC_ASSERT(rc == WAIT_OBJECT_0);
    (void)rc;
    CloseHandle(t);
}
#elif defined(GROUPCONC_USE_PTHREADS)
typedef pthread_mutex_t groupconc__mutex;
typedef pthread_cond_t groupconc__cond;
typedef pthread_t groupconc__thread;

GROUPCONC__FN int groupconc__mutex_init(groupconc__mutex *m) {
    return pthread_mutex_init(m, NULL) == 0 ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}
GROUPCONC__FN void groupconc__mutex_destroy(groupconc__mutex *m) { pthread_mutex_destroy(m); }
GROUPCONC__FN void groupconc__mutex_lock(groupconc__mutex *m) {
    int rc, i;
    for (i = 0; i < GROUPCONC__SPIN_TRIES; i++) {
        if (pthread_mutex_trylock(m) == 0) return;
        GROUPCONC__CPU_RELAX();
    }
    rc = pthread_mutex_lock(m);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
GROUPCONC__FN bool groupconc__mutex_trylock(groupconc__mutex *m) { return pthread_mutex_trylock(m) == 0; }
GROUPCONC__FN void groupconc__thread_yield(void) { (void)sched_yield(); }
/* Without the trylock spin: for locks held a few dozen ns by threads that contend (the gate's). */
#if !defined(GROUPCONC_NO_GATE) && !defined(GROUPCONC__WORDLOCK_ON) /* the gate's lock, as there */
GROUPCONC__FN void groupconc__mutex_lock_plain(groupconc__mutex *m) {
    int rc = pthread_mutex_lock(m);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
#endif
GROUPCONC__FN void groupconc__mutex_unlock(groupconc__mutex *m) {
    int rc = pthread_mutex_unlock(m);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
GROUPCONC__FN int groupconc__cond_init(groupconc__cond *c) {
    pthread_condattr_t attr;
    int rc;
    if (pthread_condattr_init(&attr) != 0) return GROUPCONC_ENOMEM;
#if defined(GROUPCONC__COND_MONOTONIC)
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
#endif
    rc = pthread_cond_init(c, &attr);
    pthread_condattr_destroy(&attr);
    return rc == 0 ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}
GROUPCONC__FN void groupconc__cond_destroy(groupconc__cond *c) { pthread_cond_destroy(c); }
GROUPCONC__FN void groupconc__cond_signal(groupconc__cond *c) {
    int rc = pthread_cond_signal(c);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
GROUPCONC__FN void groupconc__cond_broadcast(groupconc__cond *c) {
    int rc = pthread_cond_broadcast(c);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
GROUPCONC__FN void groupconc__cond_wait(groupconc__cond *c, groupconc__mutex *m) {
    int rc = pthread_cond_wait(c, m);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
/* Wait until the monotonic time `deadline_ns`; returns false on timeout. */
GROUPCONC__FN bool groupconc__cond_wait_until(groupconc__cond *c, groupconc__mutex *m,
                                              uint64_t deadline_ns) {
    struct timespec ts;
    int rc;
#if defined(GROUPCONC__COND_MONOTONIC)
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
#else
    uint64_t now = groupconc__now_ns(), left = deadline_ns > now ? deadline_ns - now : 0, abs;
    struct timespec utc;
    groupconc__utc_now(&utc);
    abs = (uint64_t)utc.tv_sec * 1000000000u + (uint64_t)utc.tv_nsec + left;
    ts.tv_sec = (time_t)(abs / 1000000000u);
    ts.tv_nsec = (long)(abs % 1000000000u);
#endif
    rc = pthread_cond_timedwait(c, m, &ts);
    GROUPCONC_ASSERT(rc == 0 || rc == ETIMEDOUT);
    return rc == 0;
}
typedef struct groupconc__thread_start {
    int (*fn)(void *);
    void *arg;
} groupconc__thread_start;
GROUPCONC__FN void *groupconc__pthread_trampoline(void *p) {
    groupconc__thread_start s = *(groupconc__thread_start *)p;
    GROUPCONC_FREE(p);
    s.fn(s.arg);
    return NULL;
}
GROUPCONC__FN int groupconc__thread_start_(groupconc__thread *t, int (*fn)(void *), void *arg) {
    groupconc__thread_start *s;
    int rc;
    if (GROUPCONC_TEST_THREAD_START_FAILS()) return GROUPCONC_ETHREAD;
    s = (groupconc__thread_start *)GROUPCONC_MALLOC(sizeof *s);
    if (!s) return GROUPCONC_ENOMEM;
    s->fn = fn;
    s->arg = arg;
    rc = pthread_create(t, NULL, groupconc__pthread_trampoline, s);
    if (rc != 0) {
        GROUPCONC_FREE(s);
        return rc == ENOMEM ? GROUPCONC_ENOMEM : GROUPCONC_ETHREAD;
    }
    return GROUPCONC_OK;
}
GROUPCONC__FN void groupconc__thread_join(groupconc__thread t) {
    int rc = pthread_join(t, NULL);
    GROUPCONC_ASSERT(rc == 0);
    (void)rc;
}
#else /* C11 <threads.h> */
typedef mtx_t groupconc__mutex;
typedef cnd_t groupconc__cond;
typedef thrd_t groupconc__thread;

GROUPCONC__FN int groupconc__from_thrd(int rc) {
    return rc == thrd_success ? GROUPCONC_OK : rc == thrd_nomem ? GROUPCONC_ENOMEM : GROUPCONC_ETHREAD;
}
GROUPCONC__FN int groupconc__mutex_init(groupconc__mutex *m) {
    return mtx_init(m, mtx_plain) == thrd_success ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}
GROUPCONC__FN void groupconc__mutex_destroy(groupconc__mutex *m) { mtx_destroy(m); }
GROUPCONC__FN void groupconc__mutex_lock(groupconc__mutex *m) {
    int rc, i;
    for (i = 0; i < GROUPCONC__SPIN_TRIES; i++) {
        if (mtx_trylock(m) == thrd_success) return;
        GROUPCONC__CPU_RELAX();
    }
    rc = mtx_lock(m);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
GROUPCONC__FN bool groupconc__mutex_trylock(groupconc__mutex *m) { return mtx_trylock(m) == thrd_success; }
GROUPCONC__FN void groupconc__thread_yield(void) { thrd_yield(); }
#if !defined(GROUPCONC_NO_GATE) && !defined(GROUPCONC__WORDLOCK_ON) /* the gate's lock, as there */
GROUPCONC__FN void groupconc__mutex_lock_plain(groupconc__mutex *m) {
    int rc = mtx_lock(m);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
#endif
GROUPCONC__FN void groupconc__mutex_unlock(groupconc__mutex *m) {
    int rc = mtx_unlock(m);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
GROUPCONC__FN int groupconc__cond_init(groupconc__cond *c) {
    return cnd_init(c) == thrd_success ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}
GROUPCONC__FN void groupconc__cond_destroy(groupconc__cond *c) { cnd_destroy(c); }
GROUPCONC__FN void groupconc__cond_signal(groupconc__cond *c) {
    int rc = cnd_signal(c);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
GROUPCONC__FN void groupconc__cond_broadcast(groupconc__cond *c) {
    int rc = cnd_broadcast(c);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
GROUPCONC__FN void groupconc__cond_wait(groupconc__cond *c, groupconc__mutex *m) {
    int rc = cnd_wait(c, m);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
/* C11 timed waits take a TIME_UTC deadline: convert "monotonic deadline" to "now UTC + left". */
GROUPCONC__FN bool groupconc__cond_wait_until(groupconc__cond *c, groupconc__mutex *m,
                                              uint64_t deadline_ns) {
    struct timespec ts;
    uint64_t now = groupconc__now_ns(), left = deadline_ns > now ? deadline_ns - now : 0, abs;
    int rc;
    groupconc__utc_now(&ts);
    abs = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + left;
    ts.tv_sec = (time_t)(abs / 1000000000u);
    ts.tv_nsec = (long)(abs % 1000000000u);
    rc = cnd_timedwait(c, m, &ts);
    GROUPCONC_ASSERT(rc == thrd_success || rc == thrd_timedout);
    return rc == thrd_success;
}
GROUPCONC__FN int groupconc__thread_start_(groupconc__thread *t, int (*fn)(void *), void *arg) {
    if (GROUPCONC_TEST_THREAD_START_FAILS()) return GROUPCONC_ETHREAD;
    return groupconc__from_thrd(thrd_create(t, fn, arg));
}
GROUPCONC__FN void groupconc__thread_join(groupconc__thread t) {
    int rc = thrd_join(t, NULL);
    GROUPCONC_ASSERT(rc == thrd_success);
    (void)rc;
}
#endif

/* ---- word locks: the key table's stripes, the gates (GROUPCONC__WORDLOCK) ----
   A lock in one 32-bit word, the futex mutex of Drepper's "Futexes Are Tricky": 0 free, 1 held, 2
   held and maybe slept on. Taking and letting go of a free one is one atomic instruction each,
   inline: a stripe is taken once per submit, and glibc's mtx_trylock + mtx_unlock ran ~100
   instructions in four calls for it (callgrind, W1). Taken as the mutexes are: a few tries, then
   a sleep in the kernel until the holder's unlock wakes one sleeper; unfair as they are (the one
   woken competes with newcomers). Linux only (the futex system call; GROUPCONC__WORDLOCK=0 turns it
   off); otherwise the stripes' and the gates' lock is groupconc__mutex. */
#if defined(GROUPCONC__WORDLOCK_ON)
/* FUTEX_WAIT and FUTEX_WAKE with FUTEX_PRIVATE_FLAG (the kernel's ABI: <linux/futex.h>, which
   not every C library's system ships) */
#define GROUPCONC__FUTEX_WAIT_PRIVATE 128
#define GROUPCONC__FUTEX_WAKE_PRIVATE 129
/* unistd.h declares it only where the TU asked for more than POSIX (_DEFAULT_SOURCE) */
extern long syscall(long number, ...);
#ifndef GROUPCONC__FUTEX_CALL /* tests/test_wordlock.c's nofutex build: a futex that is refused */
#define GROUPCONC__FUTEX_CALL syscall
#endif
typedef _Atomic uint32_t groupconc__wordlock;

GROUPCONC__FN int groupconc__wordlock_init(groupconc__wordlock *l) {
    atomic_init(l, 0u);
    return GROUPCONC_OK;
}
GROUPCONC__FN void groupconc__wordlock_destroy(groupconc__wordlock *l) {
    GROUPCONC_ASSERT(atomic_load_explicit(l, memory_order_relaxed) == 0u); /* nobody holds it */
    (void)l;
}
GROUPCONC__FN bool groupconc__wordlock_trylock(groupconc__wordlock *l) {
    uint32_t free_word = 0u;
    return atomic_compare_exchange_strong_explicit(l, &free_word, 1u, memory_order_acquire,
                                                   memory_order_relaxed);
}
/* Mark the word slept on and sleep until it is free, then hold it. A taker that may have slept
   leaves the word at 2, so that its own unlock wakes the next sleeper, if any (one spare wake-up
   at worst). Where the futex call itself is refused (ENOSYS, EPERM: a seccomp filter), the taker
   yields its CPU between tries instead of sleeping: slower, never stuck, and not a hot spin
   against the holder. */
GROUPCONC__FN void groupconc__wordlock_sleep_take(groupconc__wordlock *l) {
    int saved = errno; /* the caller's: a mutex leaves it alone */
    while (atomic_exchange_explicit(l, 2u, memory_order_acquire) != 0u)
        if (GROUPCONC__FUTEX_CALL(SYS_futex, l, GROUPCONC__FUTEX_WAIT_PRIVATE, 2u, (void *)0, (void *)0, 0) != 0 &&
            errno != EAGAIN && errno != EINTR)
            groupconc__thread_yield();
    errno = saved;
}
/* Held by someone: spin a little (stripe holds are short), then sleep. */
GROUPCONC__FN void groupconc__wordlock_lock_slow(groupconc__wordlock *l) {
    int i;
    for (i = 0; i < GROUPCONC__SPIN_TRIES; i++) {
        GROUPCONC__CPU_RELAX();
        if (atomic_load_explicit(l, memory_order_relaxed) == 0u && groupconc__wordlock_trylock(l)) return;
    }
    groupconc__wordlock_sleep_take(l);
}
GROUPCONC__FN void groupconc__wordlock_lock(groupconc__wordlock *l) {
    if (!groupconc__wordlock_trylock(l)) groupconc__wordlock_lock_slow(l);
}
#ifndef GROUPCONC_NO_GATE
/* Without the spin: the gate's lock (see struct groupconc_gate), as groupconc__mutex_lock_plain. */
GROUPCONC__FN void groupconc__wordlock_lock_plain(groupconc__wordlock *l) {
    if (!groupconc__wordlock_trylock(l)) groupconc__wordlock_sleep_take(l);
}
#endif
GROUPCONC__FN void groupconc__wordlock_unlock(groupconc__wordlock *l) {
    if (atomic_exchange_explicit(l, 0u, memory_order_release) == 2u) {
        int saved = errno;
        (void)GROUPCONC__FUTEX_CALL(SYS_futex, l, GROUPCONC__FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
        errno = saved;
    }
}
#else
typedef groupconc__mutex groupconc__wordlock;
#define groupconc__wordlock_init groupconc__mutex_init
#define groupconc__wordlock_destroy groupconc__mutex_destroy
#define groupconc__wordlock_trylock groupconc__mutex_trylock
#define groupconc__wordlock_lock groupconc__mutex_lock
#define groupconc__wordlock_unlock groupconc__mutex_unlock
#define groupconc__wordlock_lock_plain groupconc__mutex_lock_plain
#endif

/* Relative timeout -> monotonic deadline; GROUPCONC_FOREVER (any negative) -> UINT64_MAX. */
GROUPCONC__FN uint64_t groupconc__deadline(int64_t timeout_ns) {
    uint64_t now;
    if (timeout_ns < 0) return UINT64_MAX;
    now = groupconc__now_ns();
    return (uint64_t)timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + (uint64_t)timeout_ns;
}

/* ==== internal types ============================================================================ */

/* A task's stage, state and bits are defined with their transition table in "task life
   cycle" below. */

typedef struct groupconc__group groupconc__group;
typedef struct groupconc__watch groupconc__watch;

/* t->state's word: 16 bits where 16-bit atomics are lock-free (everywhere this builds: x86, ARM,
   MSVC), else 32 (a 64-byte node then, not 56). The GROUPCONC__ST_* bits use 10. */
#if defined(ATOMIC_SHORT_LOCK_FREE) && ATOMIC_SHORT_LOCK_FREE == 2
typedef uint16_t groupconc__st;
#else
typedef uint32_t groupconc__st;
#endif

/* 56 bytes (a 64-byte malloc chunk) on a 64-bit target for a plain task: a waiting task costs
   nothing else. What only some tasks have lives inline after the struct, in this order: the
   observed block (B_OBSERVED: a handle or a listener can see the result; its watchers and error,
   groupconc__observed), the queue deadline (B_HAS_DEADLINE), the fleet slot (B_FLEET), the cleanup
   function (B_HAS_CLEANUP), then the task id (B_HAS_ID). A node with nothing inline but the
   observed block is 72 bytes (an 80-byte chunk); plain and observed nodes are recycled each in a
   cache of their own size ("task nodes"), nodes with other extras never. */
struct groupconc_task {
    groupconc_task *next, *prev;   /* links in exactly one FIFO (a layer, ready, running, a todo) */
    groupconc__group *group;       /* counted reference */
    union {                        /* the function is dead once it returned (B_RAN) */
        groupconc_task_fn fn;
        uint64_t end_ns;
    };
    union {                        /* likewise its argument, once the value is stored (B_RAN) */
        void *arg;
        void *value;
    };
    uint64_t start_ns;             /* first enqueue while waiting; start once running; else the
                                      moment it was rejected or cancelled (zero duration) */
    _Atomic groupconc__st state;   /* GROUPCONC__ST_* */
    uint16_t bits;                 /* GROUPCONC__B_* */
    uint8_t stage;                 /* GROUPCONC__NEW .. DONE, under the executor lock */
    uint8_t held;                  /* permits held: layers [0, held) */
    uint8_t status;                /* groupconc_status once decided */
    uint8_t reject_code;           /* -reason once refused (GROUPCONC_EREJECTED_* / EEXPIRED_*: every
                                      library code is -1 .. -41; unsigned: no signed char widening),
                                      read through groupconc__reject_reason; never changed after, so
                                      the thread handling the rejection reads it without the lock; it
                                      is result.reason for a REJECTED result */
};
#if defined(ATOMIC_SHORT_LOCK_FREE) && ATOMIC_SHORT_LOCK_FREE == 2 && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct groupconc_task) == 56, "a plain task node is 56 bytes (a 64-byte chunk)");
#endif

/* A refused task's reason (GROUPCONC_EREJECTED_* / EEXPIRED_*). */
GROUPCONC__FN int groupconc__reject_reason(const groupconc_task *t) { return -(int)t->reject_code; }

/* The observed block, inline first after the struct when B_OBSERVED (groupconc__observed_of). 16
   bytes on every target: the extras after it hold uint64_t fields, which 32-bit ARM, MIPS and PPC
   want 8-byte aligned (helper-74). */
typedef struct groupconc__observed {
    union {
        groupconc__watch *watchers; /* guarded by ex->done_lock */
        uint64_t align_;            /* 8 bytes where pointers are 4 */
    };
    int32_t error;                 /* result.error: written only when the status becomes FAILED */
    uint32_t pad;
} groupconc__observed;
_Static_assert(sizeof(struct groupconc_task) % 8 == 0 && sizeof(groupconc__observed) == 16,
               "the inline extras after a node and its observed block stay 8-byte aligned");

/* The context a task function receives is the task itself. */
#define GROUPCONC__TASK(ctx) ((groupconc_task *)(void *)(ctx))
#define GROUPCONC__CTASK(ctx) ((const groupconc_task *)(const void *)(ctx)) /* keeps const (-Wcast-qual) */

struct groupconc__watch {
    groupconc__watch *next;
    groupconc_complete_fn fn;      /* callback node (heap), or NULL for a blocked waiter (stack) */
    void *user_data;
    groupconc__cond *cv;           /* waiter's condition variable */
    bool keep;                     /* a callback node the caller owns (a scope's fork): not freed */
};

typedef struct groupconc__fifo {
    groupconc_task *head, *tail;
    uint32_t count;
} groupconc__fifo;

/* A layer's permits: `used` of `limit`. */
typedef struct groupconc__permits {
    int32_t limit;                 /* INT32_MAX = unlimited */
    int32_t used;
} groupconc__permits;

/* A fair semaphore: a permit is taken at once only when one is free AND nobody waits (no barging);
   a released permit goes straight to the oldest waiter (hand-off). The executor's layers are one
   each; a group's two keep their FIFOs apart, in its queues block (groupconc__group_queues). */
typedef struct groupconc__sem {
    groupconc__fifo waiters;
    groupconc__permits permits;
} groupconc__sem;

/* The totals behind EVENTS AND COUNTERS; under the executor lock. A task is counted once by its
   final status, when that is decided: a refusal at once unless CALLER_RUNS or a handler decides
   the outcome later (groupconc__refusal_counted). */
enum { GROUPCONC__C_SUCCEEDED, GROUPCONC__C_FAILED, GROUPCONC__C_CANCELLED, GROUPCONC__C_REJ_GLOBAL,
       GROUPCONC__C_REJ_BULKHEAD, GROUPCONC__C_REJ_CONCURRENCY, GROUPCONC__C_REJ_WAITING,
       GROUPCONC__C_EXPIRED, GROUPCONC__C_REJ_FLEET, GROUPCONC__C_OUTCOMES };
typedef struct groupconc__counters {
    uint64_t submitted, admitted;
    uint64_t outcome[GROUPCONC__C_OUTCOMES];
    uint64_t caller_runs; /* outside the outcomes: refused, then run under CALLER_RUNS */
    uint64_t rejected_other;      /* submit failed after SUBMITTED (ESHUTDOWN, ENOMEM, ETHREAD,
                                     EGROUPS_FULL): no group may exist, so shard 0's */
    uint64_t groups_reclaimed;    /* idle groups the bounded table dropped: the victim's shard */
    uint64_t unattributed;        /* outcomes whose group's cold counters could not be allocated
                                     (counts_unattributed): the group's shard */
} groupconc__counters;

/* A group's rare counters (every outcome but success), allocated the first time one is needed:
   a group whose tasks all succeed never pays for them. */
typedef struct groupconc__group_cold {
    uint64_t outcome[GROUPCONC__C_OUTCOMES]; /* [GROUPCONC__C_SUCCEEDED] unused: in the group */
    uint64_t caller_runs;                    /* refused, then run under CALLER_RUNS */
    uint64_t undecided;                      /* refused, the outcome not decided yet (B_UNDECIDED):
                                                in the group's submitted (group_submitted); the
                                                group is not idle meanwhile */
    uint64_t swept_ns;                       /* the last group shutdown or evict that found
                                                undecided refusals (the precise clock, under the
                                                lock): a CALLER_RUNS refusal made before it
                                                (t->start_ns <= swept_ns) was in no list the sweep
                                                could flag (its settling thread's batch), so it is
                                                cancelled when that thread lists it. Never goes
                                                back, and never below refused_ns: a second sweep
                                                in the same clock tick, or after the clock stepped
                                                back, still covers every refusal before it */
    uint64_t refused_ns;                     /* the latest stamp (t->start_ns) an undecided refusal
                                                of the group got: each is > swept_ns when made */
} groupconc__group_cold;

/* The bounded table's LRU link, allocated in front of each group of such an executor only (see
   "bounded group table"). Under table.lru_lock, except last_used (atomic: also stored under ex->lock
   when the group goes idle). */
typedef struct groupconc__lru {
    groupconc__group *prev, *next; /* ex->table.lru_head .. lru_tail, oldest `placed` first */
    uint64_t placed;               /* when it was put at the list's tail (non-decreasing along it) */
    _Atomic uint64_t last_used;    /* last lookup or last time it went idle (>= placed) */
} groupconc__lru;

/* A group's fleet-layer counts, allocated in front of it (before its LRU link, if any) only when
   the executor has a fleet provider: the common group does not pay for them. Under ex->lock. */
typedef struct groupconc__group_fleet {
    uint32_t waiting;              /* at the fleet layer (in ex->fleet.layer): asked or BUSY */
    uint32_t busy;                 /* of those, answered BUSY (new ones queue behind them unasked) */
} groupconc__group_fleet;

/* g->keylen for a key of this length or longer (its exact length is then not kept). */
#define GROUPCONC__KEYLEN_LONG 255u

/* g->flags (under ex->lock; GF_LRU and GF_FLEET are fixed at creation). */
#define GROUPCONC__GF_PAUSED 1u    /* groupconc_group_pause */
#define GROUPCONC__GF_LRU 2u       /* a groupconc__lru sits in front of it (bounded table) */
#define GROUPCONC__GF_FLEET 8u     /* a groupconc__group_fleet sits in front of it (a fleet provider) */
#define GROUPCONC__GF_NOTIFIED 4u  /* a fleet notify came while its requests were out: the next
                                      BUSY answer asks again at once (no lost wake-up) */

/* A group's waiters: its own layers' FIFOs, and how many of its tasks wait in the executor's
   (the fleet layer's count has a place of its own, groupconc__group_fleet). Allocated the first time
   one of its tasks has to wait at any of these layers (groupconc__queues_get), kept until the group
   is freed: a group whose tasks never wait does not pay for them. */
typedef struct groupconc__group_queues {
    groupconc__fifo bulkhead;      /* the waiters of g->bulkhead */
    groupconc__fifo conc;          /* the waiters of g->conc */
    uint32_t waiting_global;       /* this group's tasks waiting at global in-flight */
    uint32_t waiting_running;      /* this group's tasks waiting at global running */
} groupconc__group_queues;

/* 74 bytes before the key (75 with more than one shard): with a key of up to 13 bytes, a 96-byte
   malloc chunk (112 up to 29), plus a 64-byte queues block once a task of it has waited. The key
   table keeps the hash, the group its key's length in a byte (a lookup compares it first, then the
   key a word at a time: groupconc__group_key_is). A group keeps no `submitted` count: whenever
   ex->lock is free, every task that reached the group has completed (an outcome counter), is
   waiting, ready or on a worker, or was refused with its outcome still to decide
   (cold->undecided: a handler's, or CALLER_RUNS's), so the stats add those up
   (groupconc__group_submitted). The fields the workers write per task come first, those written
   rarely next to the key: a submitter whose memo misses reads the key (groupconc__table_find),
   and on the line of a per-task counter each such read cost the workers a cache miss (issue 26;
   malloc's 16-byte alignment keeps them apart for half the groups, where they were never apart). */
struct groupconc__group {
    /* written per task (under ex->lock; refs atomic) */
    groupconc__permits bulkhead;   /* GROUPCONC__L_BULKHEAD (its waiters: queues->bulkhead) */
    groupconc__permits conc;       /* GROUPCONC__L_CONCURRENCY (its waiters: queues->conc) */
    uint64_t succeeded;            /* the common outcome; the others live in `cold` */
    uint64_t admitted;             /* tasks that got every permit */
    _Atomic uint32_t refs;         /* the table's, plus one per task and per gate permit */
    uint32_t ready;                /* in its shard's ready (CALLER_RUNS re-runs included) */
    uint32_t running;              /* in its shard's running, holding permits (CALLER_RUNS re-runs
                                      not) */
    /* written rarely */
    int32_t threshold;             /* waiting at bulkhead + concurrency; -1 = unlimited */
    groupconc__group_queues *queues; /* NULL until a task of it first waits (but at the fleet) */
    groupconc__group_cold *cold;   /* NULL until a task of it ends otherwise than SUCCESS */
    groupconc_executor *exec;
    uint8_t flags;                 /* GROUPCONC__GF_* */
    uint8_t keylen;                /* strlen(key), or GROUPCONC__KEYLEN_LONG from that length on */
#if GROUPCONC__SHARDS > 1
    uint8_t shard;                 /* its shard (ex->shards), from its key's hash; never changes */
#endif
    char key[];
};

/* The layers, in the order a task takes them; t->held counts the ones it holds (layers [0, held)).
   One name per layer, in the code and in the text (the manual's layer table, the stats' waiting_*
   fields, the reasons GROUPCONC_EREJECTED_* / EEXPIRED_*). Each is a groupconc__sem. The fleet layer
   is the one asynchronous layer: its permit is not taken but asked for, and the provider's answer
   hands it on (module "fleet layer"); without a provider every task passes it at once. */
typedef enum groupconc__layer_id {
    GROUPCONC__L_GLOBAL = 0,  /* global in-flight: ex->global (global_max_in_flight) */
    GROUPCONC__L_BULKHEAD,    /* group bulkhead: g->bulkhead (max_in_flight) */
    GROUPCONC__L_CONCURRENCY, /* group concurrency: g->conc (concurrency); paused groups take none */
    GROUPCONC__L_FLEET,       /* the fleet: ex->fleet.layer (no local limit: the provider's answer) */
    GROUPCONC__L_RUNNING,     /* global running: ex->run_cap (global_max_running); work-conserving */
    GROUPCONC__LAYERS
} groupconc__layer_id;

/* Batching: a worker that sees tasks finish in under GROUPCONC__SHORT_NS each doubles how many it
   takes per locked step (up to GROUPCONC_BATCH_MAX), and finishes them together at its next one;
   a batch that runs past GROUPCONC__BATCH_NS sends it back to one at a time and hands back what it
   had not started. What it ran is published in self->ret as each task returns, so that nothing
   waits for it behind a long task (groupconc__help_locked), and it does not start another task
   while any thread is blocked in a wait. */
#define GROUPCONC__CHAIN_OFF 0x80000000u /* a worker's chain_word: the chain ended */

#define GROUPCONC__NOT_BUSY UINT64_MAX /* a worker's busy_since: out of its tasks (see groupconc__busy_ns) */
typedef struct groupconc__worker {
    struct groupconc__worker *next;
    groupconc__thread thread;
    groupconc_executor *exec;
    /* Tasks this worker ran and has not finished yet (a batch: see worker_run_batch), published so
       that any thread holding ex->lock can finish them (groupconc__help_locked). Only the owner
       appends (ret[nret] then nret, release); [nfinished, nret) are left to finish, under ex->lock. */
    groupconc_task *ret[GROUPCONC_BATCH_MAX];
    _Atomic unsigned nret;
    unsigned nfinished;
    _Atomic uint64_t busy_since;   /* when the task it runs now started (batches only); 0 idle,
                                      GROUPCONC__NOT_BUSY out of its tasks (groupconc__busy_ns) */
    uint64_t watched;              /* the busy_since the watch started a worker for (under ex->lock) */
    _Atomic int tid;               /* Linux: its thread's id in /proc (0: not known yet) */
    /* Its chain ("serial runs: chains"): chain[0] the task it claimed in a serial step (RUNNING),
       chain[1..chain_len] its group's next waiters, still waiting in every count; it runs them one
       after the other without the lock, each once it wins a CAS on chain_word (the number run,
       GROUPCONC__CHAIN_OFF once whoever takes ex->lock ended the chain). chain and chain_len are
       under ex->lock (chain_len 0: no chain); chain_done: tasks a chain's end finished (DONE), left
       for this worker, or a helper, to complete. */
    _Atomic unsigned chain_word;   /* GROUPCONC__CHAIN_OFF | tasks committed to */
    unsigned chain_len;
    groupconc_task *chain[GROUPCONC_BATCH_MAX];
    groupconc__fifo chain_done;
#if GROUPCONC__SHARDS > 1
    unsigned home;                 /* its home shard (ex->shards): where it looks for ready tasks
                                      first (groupconc__ready_shard_locked); the spawn count masked */
    unsigned claims, turn;         /* its claims, and the shard every GROUPCONC__SHARD_TURN-th one
                                      looks at first (then the next): under the lock */
    unsigned chain_shard;          /* its chain's group's shard, while chain_len > 0 (that shard's
                                      nchains counts it) */
#endif
} groupconc__worker;

typedef struct groupconc__limits_entry {
    char *key;                     /* its own allocation */
    int concurrency, max_in_flight, queue_threshold;
    int64_t max_wait_ns;           /* 0 = the default */
} groupconc__limits_entry;

/* Cache-line padding between fields that different threads write (no false sharing). */
#define GROUPCONC__LINE 64

/* The executor's parts, by owner. Each is a member of groupconc_executor, named for its section. */

/* A submitting thread's recycled task nodes for one executor ("task nodes"). Only its thread touches
   `head`; the executor's list of them is under table.caches_lock, and destroy frees them. */
typedef struct groupconc__node_cache {
    struct groupconc__node_cache *next; /* ex->table.caches */
    const void *owner;             /* its thread's token: the address of its groupconc__my_nodes */
    groupconc_task *head[2];       /* linked by `next`: plain nodes [0], observed ones [1] (each
                                      groupconc__node_size(observed) bytes; no other extra) */
} groupconc__node_cache;

/* One stripe of the key table ("key table"): the groups whose hash's upper 32 bits, masked, name
   it; under its lock. */
typedef struct groupconc__stripe {
    groupconc__wordlock lock;      /* lock order: ex->lock, then the stripes in index order */
    groupconc__group **slots;      /* open addressing, linear probing, backward-shift delete */
    uint32_t *hashes;              /* hashes[i]: 0 if slots[i] is empty, else its key's hash */
    size_t nslots, ngroups;
    uint64_t removals;             /* groups removed from it, ever: a thread's memo of a group it
                                      found here is good while this is unchanged (key table) */
    char pad[GROUPCONC__LINE];     /* two stripes' fields never share a cache line */
} groupconc__stripe;

/* The key table ("key table", "bounded group table"): GROUPCONC__STRIPES stripes, so that
   submitters of different keys do not take one lock. */
typedef struct groupconc__table {
    groupconc__stripe stripes[GROUPCONC__STRIPES];
    _Atomic size_t ngroups;        /* all stripes; changed under the group's stripe lock (a bounded
                                      table reserves its place first: see groupconc__group_get) */
    groupconc__mutex lru_lock;     /* the LRU list (bounded executors only): taken after stripes */
    groupconc__group *lru_head, *lru_tail; /* the bounded table's LRU list, under lru_lock */
    groupconc__mutex caches_lock;  /* the submitting threads' node caches (see "task nodes") */
    groupconc__node_cache *caches; /* under caches_lock; freed by destroy */
    groupconc__node_cache cache0;  /* the first thread's (most executors have one submitter: no
                                      allocation for it) */
    size_t ncaches;                /* at most GROUPCONC__NODE_CACHES */
} groupconc__table;

/* The lock-free side of submit ("inbox"), each word on its own cache line. */
typedef struct groupconc__inbox {
    /* Submitted tasks not yet admitted, newest first (a lock-free stack: submit pushes, whoever
       holds ex->lock next takes them all and admits them in submission order). INBOX_CLOSED once
       the executor shuts down: a push that finds it fails. */
    _Atomic(groupconc_task *) head;
    char pad2[GROUPCONC__LINE];
    _Atomic(groupconc_task *) node_returns[2]; /* nodes the workers freed (lock-free; taken whole),
                                                  plain [0] and observed [1] (groupconc__node_size):
                                                  their lots, chained */
    _Atomic size_t node_transit[2]; /* how many (a bound, not exact: see groupconc__nodes_return) */
    char pad3[GROUPCONC__LINE];
} groupconc__inbox;

/* The housekeeper ("housekeeper") and the deadline heap it serves ("queue deadlines"); under
   ex->lock unless noted. */
typedef struct groupconc__keeper {
    groupconc__thread thread;      /* expires deadlines, reclaims idle groups, watches the pool;
                                      started on first need */
    groupconc__cond cv;            /* with ex->lock */
    _Atomic bool started;          /* read by submit without the lock (is the idle sweep running?) */
    bool stop;
    _Atomic bool watching;         /* it watches the pool for blocked tasks (see "worker pool"):
                                      written under the lock, read by submit (pairing P1) */
    unsigned watch_quiet;          /* looks in a row that found nothing waiting (the second ends it) */
    uint64_t wake;                 /* when it will look next (UINT64_MAX: only when signalled) */
    /* Its watch over the pool (see "worker pool": the pool's size), while `watching`: */
    uint64_t watch_at;             /* its next look */
    uint64_t watch_every;          /* its interval: GROUPCONC__WATCH_NS, doubled while tasks move */
    uint64_t watch_moved_at;       /* the last look that found a task finished since the one before */
    uint64_t watch_retired;        /* ex->retired at the last look */
    uint64_t watch_cpu;            /* the process's CPU time at watch_moved_at */
    uint64_t watch_look_at, watch_look_cpu; /* the time and CPU time of its last look */
    /* Queue deadlines: a binary min-heap of the waiting tasks that have one, by deadline; each such
       task keeps its index. Capacity is reserved at submit. */
    groupconc_task **timers;
    size_t ntimers, ntimers_reserved, timers_cap;
} groupconc__keeper;

/* The worker pool ("worker pool"): under ex->lock unless noted; its counters are written under the
   lock (but nspinning's clearing: see there) and read by submit without it. */
typedef struct groupconc__pool {
    groupconc__cond work_cv;       /* idle workers sleep here (with ex->lock; with more than one
                                      shard, with `lock`) */
#if GROUPCONC__SHARDS > 1
    groupconc__mutex lock;         /* work_cv's mutex: a sleeper lets go of the shards' locks to wait,
                                      and whoever signals work_cv holds this one (lock order: the
                                      shards, then this; never a shard's while holding it) */
#endif
    groupconc__worker *workers;    /* live workers */
    groupconc__worker *zombies;    /* retired workers, to be joined */
#if GROUPCONC__SHARDS > 1
    unsigned spawned;              /* workers started, ever: the next one's home shard, masked */
#endif
    char pad4[GROUPCONC__LINE];
    /* Written under the lock when workers come and go or idle, read by submit without it. */
    _Atomic size_t nthreads, nidle;
    _Atomic size_t nwaking;        /* idle workers signalled that have not taken the lock yet */
    _Atomic size_t nstarting;      /* workers spawned that have not taken the lock yet */
    _Atomic int nspinning;         /* 0 or 1: an idle worker polling before it sleeps; set under
                                      the lock, cleared by the spinner outside it just before it
                                      takes the lock again (P1: then it looks) */
    _Atomic int spin_poke;         /* a ready task counts on the spinner (kick_locked) */
    _Atomic size_t nnapping;       /* idle workers in naps: each looks again within HELP_NS */
    _Atomic int short_tasks;       /* the last batch a worker ran that was short or slow was of
                                      short tasks (its `want` grew): a hint for
                                      groupconc__inbox_look, written when it changes, outside the
                                      lock (groupconc__note_short_tasks) */
    char pad5[GROUPCONC__LINE];
    _Atomic size_t nwaiters;       /* threads blocked in a wait: workers then finish at once */
    _Atomic size_t nblocked;       /* workers blocked in a wait inside a task or callback: the pool
                                      may start this many threads beyond max_threads */
    _Atomic size_t nlocking;       /* threads other than the workers blocked for the executor lock:
                                      a worker does not spin past them (exec_mutex_lock_slow) */
    _Atomic size_t nhinted;        /* running tasks that called groupconc_context_blocking: the
                                      pool may start this many beyond its size (up to max_threads) */
    bool start_failed;             /* the last worker start failed: none may come for a refusal
                                      (groupconc__worker_can_come_locked) */
    _Atomic size_t size;           /* workers kick_locked starts for ready tasks: min(CPUs,
                                      max_threads); max_threads if the housekeeper cannot start */
    /* with more shards, per shard (sh->nchains), a chain being one group's */
#if GROUPCONC__SHARDS == 1
    unsigned nchains;              /* workers with a chain (chain_len > 0): whoever takes ex->lock
                                      ends them first (groupconc__exec_lock) */
#endif
    uint64_t needed_at;            /* when a worker was last started or woken beyond the pool's size
                                      for tasks that block (the coarse clock; under ex->lock;
                                      groupconc__pool_needed_locked): the workers beyond its cap
                                      retire keep_alive_ns later (groupconc__pool_surplus_locked) */
} groupconc__pool;

/* The fleet layer ("module: fleet layer"); under ex->lock. */
typedef struct groupconc__fleet {
    /* GROUPCONC__L_FLEET: its waiters hold their group's permits and ask the provider or were
       answered BUSY, oldest first; no limit (INT32_MAX), `used` = the tasks past it that asked
       (without a provider a task passes it taking nothing). */
    groupconc__sem layer;
    size_t outstanding;            /* requests not answered yet (destroy waits for them) */
    uint64_t open, renew_failed;   /* answers OPEN; renewals the provider reported failed */
} groupconc__fleet;

/* ==== shards ==================================================================================== */
/* The executor's per-task state (its queues of tasks and their counters) is kept in shards, each
   with a lock: a group's tasks live in its shard (groupconc__shard_of: g->shard, fixed when the
   group is made, from its key's hash: the key-table stripe's index, widened by more of the same
   hash bits when there are more shards than stripes), a worker takes tasks from its home shard
   first (groupconc__home_shard), then from the others (groupconc__ready_shard_locked). A call that
   must see everything (stats, the dump, pause, live limits, shutdown, eviction, the housekeeper's
   sweep) takes every shard's lock and reads the sums (GROUPCONC__EACH_SHARD, groupconc__totals_locked).
   docs/lock-measurements.md ("Past two cores") designs the sharded executor and the steps that
   build it. Built so far (steps 1, 2 and 5a): GROUPCONC__SHARDS shards (a power of two; 1 by
   default, the tests' builds use 16), but every lock of either kind takes every shard's lock, in
   index order ("the executor lock", ex->lock in the protocols' text, is all of them; with one
   shard, shard 0's), so that no new race is possible: what more than one shard changes is only
   where each datum lives, and which shards a per-task path must look at (a worker's claim, its
   serial step, steal and sleep, kick_locked and the watch look at every shard's ready tasks).
   Two counts a batch of completions retires without knowing their shards are executor-wide
   (unfinished, retired: with one shard kept in shard 0, as before 5a; with more, the executor's
   atomics). Step 5b narrows the per-task lock to one shard, which needs the protocols
   of "Step 5 on paper" (sleep and wake-up across shards, an atomic unfinished, per-shard chains,
   help by a batch's shard). Built of those so far, each still under every shard's lock, so that
   the narrowing has only the lock functions left to change ("Step 5b, first stages, as built"):
     - sleep and wake-up: with more than one shard, work_cv's mutex is the pool's lock (pool.lock),
       not a shard's: an idle worker takes it while it still holds the shards, lets go of them and
       waits (groupconc__work_wait); every signal and broadcast of work_cv is under it
       (groupconc__work_signal, destroy). Lock order: the shards, then the pool's lock.
     - unfinished and retired: the executor's atomics (groupconc__retire_locked); graceful shutdown
       and destroy wait on idle_cv with the pool's lock (groupconc__idle_wait_all), and whoever
       broadcasts idle_cv holds it (the retirer that takes unfinished to 0 during a shutdown,
       shutdown itself, the fleet's last answer).
     - chains per shard: each shard counts the chains of its groups (sh->nchains, w->chain_shard);
       whoever takes a shard's lock ends that shard's chains (groupconc__chains_end_from_locked:
       every shard, for now).
     - help by shard: a published task's shard is its group's (fixed), and a debug build asserts
       that a helper holds it (sh->held_by, groupconc__help_locked).
     - per-task fields per shard: rejected_other, groups_reclaimed and the unattributed outcomes
       count in the shards' counters (summed for the stats), and the spare queues block is a
       shard's (sh->spare_queues). */
/* GROUPCONC__SHARDS: defined with the tunables ("configuration defaults and checks"), before the
   structs that test it. */

typedef struct groupconc__shard {
#if GROUPCONC__SHARDS > 1
    char pad[GROUPCONC__LINE];     /* each shard on lines of its own: none shared with the one before
                                      (or, for shard 0, with the inbox) */
#endif
    groupconc__mutex lock;         /* taken with every other shard's (see above) */
    groupconc__fifo refused;       /* tasks of its groups a quiet admission or an expiry's
                                      hand-off refused, for the next drain to settle
                                      (groupconc__refusals_defer_locked) */
    groupconc__fifo ready;
    groupconc__fifo running;       /* running tasks (flagged on shutdown / group shutdown) */
    groupconc__fifo deferred;      /* tasks whose body returned PENDING (flagged likewise) */
    groupconc__fifo caller_running; /* CALLER_RUNS tasks outside the queues: refused, their REJECTED
                                      event under way (B_SETTLING), or running inside their submit
                                      (flagged likewise; nothing else reads the list) */
    size_t nrunning;               /* running tasks holding permits */
    size_t waiting_groups;         /* tasks waiting at bulkhead and concurrency, its groups */
    size_t refusing;               /* its groups' cold->undecided, summed (executor stats) */
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
    _Atomic(const char *) held_by; /* the thread holding its lock (GROUPCONC__SHARD_HELD): relaxed,
                                      so that a look at a shard the reader does not hold is no race */
#endif
#if GROUPCONC__SHARDS > 1
    _Atomic size_t nready;         /* ready.count, mirrored (seq_cst) after each change under the lock
                                      (GROUPCONC__READY_MIRROR), for a look without this shard's
                                      lock: the sleeper's (groupconc__work_wait, step 5b) */
    unsigned nchains;              /* workers with a chain of its groups (w->chain_shard): whoever
                                      takes this shard's lock ends them first (a chain is one group's,
                                      so only its shard's holder needs it ended) */
#endif
#if GROUPCONC__SHARDS == 1 /* the executor's (see GROUPCONC__UNFINISHED), here where one shard has
                              had them: beside what the lock holder writes per task */
    size_t unfinished;
    uint64_t retired;
#endif
    groupconc__counters counts;    /* its groups, evicted ones included (submits refused before
                                      they had a group: shard 0's) */
    groupconc__group_queues *spare_queues; /* the next queues block for one of its groups
                                      (groupconc__queues_get; made by submit_prepare_locked) */
} groupconc__shard;

/* The shard of group g (NULL: a task of no group yet: shard 0), of worker w; and every shard, in
   index order (the order their locks are taken in). With one shard every one of them is shard 0, a
   constant offset. groupconc__locked_shard is gone with step 5a: each place that used it names
   its shard(s) now. */
#if GROUPCONC__SHARDS == 1
#define groupconc__shard_of(ex, g) ((void)(g), &(ex)->shards[0])
#define groupconc__home_shard(ex, w) ((void)(w), &(ex)->shards[0])
#else
#define groupconc__shard_of(ex, g) (&(ex)->shards[(g) ? (g)->shard : 0])
#define groupconc__home_shard(ex, w) (&(ex)->shards[(w)->home])
#endif
#define GROUPCONC__EACH_SHARD(ex, sh) for ((sh) = (ex)->shards; (sh) < (ex)->shards + GROUPCONC__SHARDS; (sh)++)
/* The shard of a key's hash: its stripe's index (groupconc__stripe_of) masked, or, with more shards
   than stripes, more of the same bits (so the shard's low bits are still the stripe's). */
/* The executor's two counts of completions (see its fields): with one shard they stay in it, beside
   the fields the lock holder writes per task (the executor's layout as before step 5a). */
#if GROUPCONC__SHARDS == 1
#define GROUPCONC__UNFINISHED(ex) ((ex)->shards[0].unfinished)
#define GROUPCONC__RETIRED(ex) ((ex)->shards[0].retired)
#endif /* more shards: the executor's atomics, each site explicit (step 5b) */
#define GROUPCONC__SHARD_OF_HASH(hash) ((uint8_t)((size_t)((hash) >> 32) & (GROUPCONC__SHARDS - 1)))
/* After each change of a shard's ready queue, under its lock: its mirror (sh->nready), which a
   sleeper reads without the shard's lock. One shard: no mirror. */
#if GROUPCONC__SHARDS > 1
#define GROUPCONC__READY_MIRROR(sh) atomic_store_explicit(&(sh)->nready, (sh)->ready.count, memory_order_seq_cst)
#else
#define GROUPCONC__READY_MIRROR(sh) ((void)(sh))
#endif

struct groupconc_executor {
    /* Read-mostly: everyone reads these, hardly anyone writes them. */
    groupconc_policy policy;       /* copy; policy.groups points at `limits` */
    groupconc__limits_entry *limits; /* sorted by key */
    _Atomic int shutdown;          /* read without the lock as a fast path in submit */
    _Atomic bool inbox_ok;         /* no layer can refuse a task: submit may use the inbox (cleared
                                      for good when a live change adds a threshold) */
    _Atomic bool any_max_wait;     /* a deadline may apply to a task: submit takes the lock; only
                                      ever set. Here, read by every submit: not beside a field the
                                      workers write for each task (false sharing cost W1 ~20 %) */
    uint64_t node_gen;             /* this executor's number, unique in the process: a thread's
                                      memo of its node cache names it ("task nodes") */
    char pad0[GROUPCONC__LINE];

    /* The submitters' side. The key table's stripes have their own locks, so that looking up or
       creating a group never holds up the workers. Lock order: lock, then the
       stripes (in index order), then table.lru_lock. */
    groupconc__table table;
    char pad1[GROUPCONC__LINE];
    groupconc__inbox inbox;

    /* The workers' side. The shards' locks guard everything below unless noted (all of them: see
       "shards"); lock order: the shards (in index order), then done_lock. */
    groupconc__shard shards[GROUPCONC__SHARDS];
#if GROUPCONC__SHARDS > 1
    char pad_shards[GROUPCONC__LINE]; /* the last shard's lines its own too */
#endif
    /* Executor-wide, not per shard: a worker retires (retire_locked) a count of completions it
       gathered outside the lock over a batch whose tasks may be of several shards (it steals), and
       graceful shutdown and destroy wait for the whole count. Atomics (step 5b's first stages), so
       that no shard's lock guards them: `unfinished` added per drained batch or locked submit,
       subtracted per retired batch; whoever takes it to 0 during a shutdown broadcasts idle_cv
       under the pool's lock, which the waiters wait with (groupconc__idle_wait_all). */
#if GROUPCONC__SHARDS > 1
    _Atomic size_t unfinished;     /* accepted tasks not yet completed */
    _Atomic uint64_t retired;      /* tasks completed, ever (the watch: did any finish?): relaxed */
#endif
    groupconc__cond idle_cv;       /* graceful shutdown / destroy wait for ex->unfinished == 0 (with
                                      ex->lock; with more than one shard, with pool.lock) */
    groupconc__mutex done_lock;    /* guards task watchers lists */

    groupconc__sem global;         /* GROUPCONC__L_GLOBAL */
    groupconc__sem run_cap;        /* GROUPCONC__L_RUNNING: the work-conserving global running cap */
    bool paused;                   /* groupconc_executor_pause */
    size_t npaused;                /* groups with GF_PAUSED */
    size_t nlimits_cap;            /* capacity of ex->limits (policy.group_count entries used) */
    groupconc__fleet fleet;
    bool stopping;                 /* destroy: workers exit when nothing is ready */
    bool graceful;                 /* a graceful shutdown began: destroy lets queued tasks finish */
    bool swept;                    /* groupconc_executor_shutdown ran (a graceful one's timeout
                                      included): what has not started is cancelled */
    uint64_t held_back_cut;        /* tasks a pause held back that a graceful shutdown cancelled:
                                      a graceful call during which it grew reports ETIMEDOUT */

    groupconc__keeper keeper;      /* after the fields each task touches: it is seldom read */
#ifndef GROUPCONC_NO_GATE
    struct groupconc_gate *gates;  /* executor gates admitting against its groups */
#endif
#ifndef GROUPCONC_NO_SCOPES
    groupconc__mutex scope_lock;   /* guards `scopes` and the scope tree (see structured scopes) */
    struct groupconc_scope *scopes; /* open scopes */
#endif
    groupconc__pool pool;
#if GROUPCONC_DEBUG
    const char *all_held_by;       /* the thread holding every shard (groupconc__exec_lock_all) */
#endif
};

/* The closed inbox's mark: an address no task has, never read (one for every executor: the mark
   only says "closed"; an object of its own, so no cast drops a qualifier or makes a pointer of an
   integer) */
static groupconc_task groupconc__inbox_closed_mark;
#define GROUPCONC__INBOX_CLOSED(ex) ((void)(ex), &groupconc__inbox_closed_mark)


/* Work collected under the lock and finished after unlocking (events, completion, rejection). */
typedef struct groupconc__batch {
    groupconc__fifo advance;       /* tasks that were just handed a permit and must move on */
    groupconc__fifo todo;          /* tasks to complete outside the lock */
    groupconc__fifo rejected;      /* tasks a layer refused: event, then handler or policy */
    groupconc_task *asks, *asks_tail; /* fleet requests to make outside the lock, oldest first
                                      (linked through their fleet slots) */
} groupconc__batch;

#define GROUPCONC__BATCH_INIT {{NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, NULL, 0}, NULL, NULL}

/* Tasks a worker took from the ready queue and has not started yet, oldest first. It takes more
   than one at a time only while tasks are short (see worker_claim_locked). */
typedef struct groupconc__claims {
    groupconc_task *t[GROUPCONC_BATCH_MAX];
    unsigned head, count;
} groupconc__claims;

/* Task nodes a worker freed, held until it can hand them to the submitters in one piece; and the
   group references of the tasks it completed, let go of together (groupconc__nodes_unref) while
   they are of one group (a serial run: one atomic write per round, not per task). */
typedef struct groupconc__nodes {
    groupconc_task *head[2];       /* plain nodes [0], observed ones [1] (groupconc__node_size) */
    groupconc_task *tail[2];       /* the first freed: links the lot to those in transit */
    size_t count[2];
    groupconc__group *unref;       /* the group they are of (NULL: none held) */
    uint32_t nunref;
} groupconc__nodes;

/* ==== calling thread: what it is inside of ====================================================== */
/* Each thread keeps a stack of frames, one per piece of this library's work in progress on it that
   runs user code: a worker's whole life (the base frame), a task body, an event, a rejection handler,
   a cleanup, completion callbacks, and a list of tasks it is about to settle (complete, or handle a
   rejection of). The blocking calls read it:
     - groupconc__inside(ex): a task or callback of ex is running on this thread, so graceful
       shutdown and destroy would wait for themselves (GROUPCONC_EDEADLK);
     - a wait on the frame's `self` task would wait for itself (GROUPCONC_EDEADLK);
     - a wait on a task in a frame's owed lists settles the list up to that task first, on this
       thread (its completion would otherwise come only after the wait returned);
     - a wait in a worker's base frame gives back the tasks the worker claimed and lets the pool start
       one more thread (ex->pool.nblocked), so that what it waits for can run.
   Frames live on the C stack; only their own thread reads them. */
#if defined(_MSC_VER) && !defined(__clang__)
#define GROUPCONC__TLS __declspec(thread)
#else
#define GROUPCONC__TLS _Thread_local
#endif

typedef struct groupconc__claims groupconc__claims;

typedef struct groupconc__frame {
    struct groupconc__frame *prev;
    groupconc_executor *ex;
    const groupconc_task *self;    /* its body, event, handler or callbacks run in this frame */
    groupconc__fifo *owed_rejected; /* rejections this thread handles next, or NULL */
    groupconc__fifo *owed;         /* completions this thread runs next, or NULL */
    size_t settled;                /* settled early from the owed lists: the owner retires them */
    size_t paid;                   /* tasks groupconc__pay took from the owed lists (it looks for
                                      its task again when a nested wait took some) */
    groupconc__claims *claims;     /* a worker's base frame: the tasks it took and has not started */
    struct groupconc_deferred *deferral; /* a task body's frame: its groupconc_context_defer */
    bool keeper;                   /* the housekeeper's base frame: a blocking wait there would hold
                                      up every deadline, maybe the one it waits for */
    bool blocking;                 /* a task body's frame: it called groupconc_context_blocking
                                      (ex->pool.nhinted raised until the body returns) */
    bool on_worker;                /* a task body's frame, on a worker (not a CALLER_RUNS run in
                                      submit): RUNNING, or committed to in a chain, which ends at
                                      the next lock (its stage is read under the lock only) */
    bool body;                     /* a task body's frame on a worker, or a fork's anywhere: the
                                      scopes it leaves open close as it returns
                                      (groupconc__scopes_left_open) */
} groupconc__frame;

static GROUPCONC__TLS groupconc__frame *groupconc__frames;

/* A thread's memo of its node cache for the executor it last submitted to (see "task nodes"). */
typedef struct groupconc__node_memo {
    uint64_t gen;                  /* the executor's node_gen (0: none yet) */
    groupconc__node_cache *cache;  /* NULL: the executor had no room for one */
} groupconc__node_memo;
static GROUPCONC__TLS groupconc__node_memo groupconc__my_nodes;
static _Atomic uint64_t groupconc__node_gens; /* the last node_gen given out */

/* A thread's memo of the group it last found or made, with a copy of its key ("key table":
   groupconc__group_memo_find). Keys longer than GROUPCONC__MEMO_KEY - 1 bytes are not noted. */
#define GROUPCONC__MEMO_KEY 40
typedef struct groupconc__group_memo {
    uint64_t gen;                  /* the executor's node_gen (0: none) */
    uint64_t removals;             /* its stripe's when it was noted (the stripe: the executor's
                                      for the hash, so the two name it) */
    uint64_t hash;
    groupconc__group *group;
    size_t len;
    char key[GROUPCONC__MEMO_KEY]; /* [0, len): the key, without its terminator */
} groupconc__group_memo;
static GROUPCONC__TLS groupconc__group_memo groupconc__my_group;

/* Calls from a resolver: the one rule, enforced here. A resolver runs under its executor's table
   lock (and maybe its lock too), so any call that would take a lock of that executor would wait
   for itself, or take the locks in the wrong order. The executors whose resolvers are running on
   this thread form a stack (a resolver may call into another executor, whose resolver may run
   then), each entry on the C stack of groupconc__resolve. Every public function that takes an
   executor, or one of its gates, scopes, handles, deferred tasks, permits or fleet requests,
   first maps that object to its executor (a gate's, a scope's, a permit's gate's ex field; a
   handle's through groupconc__task_exec: only live objects are read, the executor pointer is only
   compared) and passes it to GROUPCONC__NOT_IN_RESOLVER: GROUPCONC_EDEADLK if it is on the stack,
   before any lock. A finished task's handle belongs to no executor any more
   (it may outlive it, and nothing done with it takes a lock). Pure functions (names, strerror,
   version, policy default / check) and calls on another executor work. Outside a resolver the
   check is one thread-local load. */
typedef struct groupconc__resolving {
    const groupconc_executor *ex;
    struct groupconc__resolving *prev;
} groupconc__resolving;
static GROUPCONC__TLS groupconc__resolving *groupconc__resolvers;

GROUPCONC__FN bool groupconc__resolving_in(const groupconc_executor *ex) {
    const groupconc__resolving *r;
    for (r = groupconc__resolvers; r; r = r->prev)
        if (r->ex == ex) return true;
    return false;
}
#define GROUPCONC__NOT_IN_RESOLVER(ex) \
    do { if (groupconc__resolvers && groupconc__resolving_in(ex)) return GROUPCONC_EDEADLK; } while (0)

/* Whether this thread is ex's housekeeper (an expired task's event, cleanup or callbacks run
   there): a blocking wait there would hold up every deadline, maybe the one it waits for. */
GROUPCONC__FN bool groupconc__in_keeper(const groupconc_executor *ex) {
    const groupconc__frame *f;
    for (f = groupconc__frames; f; f = f->prev)
        if (f->keeper && f->ex == ex) return true;
    return false;
}

#ifndef GROUPCONC_NO_SCOPES
/* Is this thread one of ex's workers (its base frame names ex, with the worker's claims)? */
GROUPCONC__FN bool groupconc__is_worker_of(const groupconc_executor *ex) {
    const groupconc__frame *f;
    for (f = groupconc__frames; f; f = f->prev)
        if (f->claims && f->ex == ex) return true;
    return false;
}
#endif

GROUPCONC__FN void groupconc__frame_push(groupconc__frame *f, groupconc_executor *ex,
                                         const groupconc_task *self) {
    f->prev = groupconc__frames;
    f->ex = ex;
    f->self = self;
    f->owed_rejected = f->owed = NULL;
    f->settled = f->paid = 0;
    f->claims = NULL;
    f->deferral = NULL;
    f->keeper = false;
    f->blocking = f->on_worker = f->body = false;
    groupconc__frames = f;
}

GROUPCONC__FN void groupconc__frame_pop(const groupconc__frame *f) {
    GROUPCONC_ASSERT(groupconc__frames == f);
    groupconc__frames = f->prev;
}

GROUPCONC__FN bool groupconc__inside(const groupconc_executor *ex) {
    const groupconc__frame *f;
    for (f = groupconc__frames; f; f = f->prev)
        if (f->ex == ex) return true;
    return false;
}

/* ==== intrusive FIFO ============================================================================ */
/* A task sits in at most one FIFO at a time, so its two links serve every queue. */

GROUPCONC__FN void groupconc__fifo_push(groupconc__fifo *q, groupconc_task *t) {
    t->next = NULL;
    t->prev = q->tail;
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    q->count++;
}

GROUPCONC__FN void groupconc__fifo_push_front(groupconc__fifo *q, groupconc_task *t) {
    t->prev = NULL;
    t->next = q->head;
    if (q->head) q->head->prev = t;
    else q->tail = t;
    q->head = t;
    q->count++;
}

GROUPCONC__FN void groupconc__fifo_remove(groupconc__fifo *q, groupconc_task *t) {
    GROUPCONC_ASSERT(q->count > 0);
    if (t->prev) t->prev->next = t->next;
    else q->head = t->next;
    if (t->next) t->next->prev = t->prev;
    else q->tail = t->prev;
    t->next = t->prev = NULL;
    q->count--;
}

/* The head, unlinked: groupconc__fifo_remove without the test of its prev (a head has none). */
GROUPCONC__FN groupconc_task *groupconc__fifo_pop(groupconc__fifo *q) {
    groupconc_task *t = q->head;
    if (!t) return NULL;
    GROUPCONC_ASSERT(q->count > 0 && !t->prev);
    q->head = t->next;
    if (t->next) t->next->prev = NULL;
    else q->tail = NULL;
    t->next = NULL;
    q->count--;
    return t;
}

/* Move all of `from` to the tail of q, in order. */
GROUPCONC__FN void groupconc__fifo_append(groupconc__fifo *q, groupconc__fifo *from);

/* Move q's first n tasks, the last of them `last`, to the tail of `to`, in order. */
GROUPCONC__FN void groupconc__fifo_move_front(groupconc__fifo *q, groupconc_task *last, uint32_t n,
                                              groupconc__fifo *to) {
    groupconc__fifo front;
    GROUPCONC_ASSERT(n > 0 && n <= q->count);
    front.head = q->head;
    front.tail = last;
    front.count = n;
    q->head = last->next;
    if (q->head) q->head->prev = NULL;
    else q->tail = NULL;
    q->count -= n;
    last->next = NULL;
    groupconc__fifo_append(to, &front);
}

GROUPCONC__FN void groupconc__fifo_append(groupconc__fifo *q, groupconc__fifo *from) {
    if (from->count == 0) return;
    if (q->tail) {
        q->tail->next = from->head;
        from->head->prev = q->tail;
    } else {
        q->head = from->head;
    }
    q->tail = from->tail;
    q->count += from->count;
    from->head = from->tail = NULL;
    from->count = 0;
}

/* ==== key table ================================================================================= */

/* Check a key and hash it in one pass (FNV-1a, then a final mix so the low bits spread). Four
   bytes a step while the length limit is four or more bytes away (one limit check a step, not one
   a byte: W2's 8-byte keys cost ~100 instructions a submit byte by byte), each byte read only
   after the one before it was not the NUL. A bad key sets both outputs to 0 too: inlined, its
   callers' compilers then see no path that leaves them unset (gcc -Og warned). */
#define GROUPCONC__FNV_BYTE(h, c) ((h) = ((h) ^ (c)) * 1099511628211u)
GROUPCONC__HOT int groupconc__key_hash(const char *key, size_t *out_len, uint64_t *out_hash) {
    uint64_t h = 14695981039346656037u;
    size_t n = 0;
    unsigned char c = 1;
    while (n + 4 <= GROUPCONC_MAX_KEY_LEN) {
        if ((c = (unsigned char)key[n]) == 0) break;
        GROUPCONC__FNV_BYTE(h, c);
        if ((c = (unsigned char)key[n + 1]) == 0) { n += 1; break; }
        GROUPCONC__FNV_BYTE(h, c);
        if ((c = (unsigned char)key[n + 2]) == 0) { n += 2; break; }
        GROUPCONC__FNV_BYTE(h, c);
        if ((c = (unsigned char)key[n + 3]) == 0) { n += 3; break; }
        GROUPCONC__FNV_BYTE(h, c);
        n += 4;
    }
    /* c is 0 here when the key ended in the four-byte loop (cppcheck misses that break) */
    /* cppcheck-suppress knownConditionTrueFalse */
    while (c != 0 && (c = (unsigned char)key[n]) != 0) { /* the last bytes before the limit */
        if (n == GROUPCONC_MAX_KEY_LEN) break;
        GROUPCONC__FNV_BYTE(h, c);
        n++;
    }
    if (n == 0 || c != 0) {
        *out_len = 0;
        *out_hash = 0;
        return n == 0 ? GROUPCONC_EKEYEMPTY : GROUPCONC_EKEYTOOLONG;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    if ((uint32_t)h == 0) h |= 1; /* 0 marks an empty slot in the key table */
    *out_len = n;
    *out_hash = h;
    return GROUPCONC_OK;
}

/* The key's stripe: the hash's upper 32 bits, masked (a slot comes from its low 32 bits, so both
   spread). */
GROUPCONC__FN groupconc__stripe *groupconc__stripe_of(groupconc_executor *ex, uint64_t hash) {
    return &ex->table.stripes[(size_t)(hash >> 32) & (GROUPCONC__STRIPES - 1)];
}

/* Every stripe, in index order (the lock order), and back. Whoever holds them all sees the whole
   table still, as one lock gave it: no group is created, found for a push, or removed meanwhile. */
GROUPCONC__FN void groupconc__table_lock_all(groupconc_executor *ex) {
    size_t i;
    for (i = 0; i < GROUPCONC__STRIPES; i++) groupconc__wordlock_lock(&ex->table.stripes[i].lock);
}
GROUPCONC__FN void groupconc__table_unlock_all(groupconc_executor *ex) {
    size_t i = GROUPCONC__STRIPES;
    while (i-- > 0) groupconc__wordlock_unlock(&ex->table.stripes[i].lock);
}

/* The table's locks: the stripes' first n (all: GROUPCONC__STRIPES) and lru_lock. */
GROUPCONC__FN void groupconc__table_locks_destroy(groupconc_executor *ex, size_t n) {
    while (n-- > 0) groupconc__wordlock_destroy(&ex->table.stripes[n].lock);
    groupconc__mutex_destroy(&ex->table.lru_lock);
    groupconc__mutex_destroy(&ex->table.caches_lock);
}
GROUPCONC__FN int groupconc__table_init(groupconc_executor *ex) {
    size_t n;
    int rc = groupconc__mutex_init(&ex->table.caches_lock);
    if (rc != GROUPCONC_OK) return rc;
    if ((rc = groupconc__mutex_init(&ex->table.lru_lock)) != GROUPCONC_OK) {
        groupconc__mutex_destroy(&ex->table.caches_lock);
        return rc;
    }
    atomic_init(&ex->table.ngroups, 0);
    /* its number in the threads' node memos: never 0, never given out twice */
    ex->node_gen = atomic_fetch_add_explicit(&groupconc__node_gens, 1, memory_order_relaxed) + 1;
    for (n = 0; n < GROUPCONC__STRIPES; n++) {
        if ((rc = groupconc__wordlock_init(&ex->table.stripes[n].lock)) != GROUPCONC_OK) {
            groupconc__table_locks_destroy(ex, n);
            return rc;
        }
    }
    return GROUPCONC_OK;
}

/* The group after the cursor (*s, *i), stripe by stripe; start at 0, 0. With every stripe held
   (or no other thread left: destroy). */
GROUPCONC__FN groupconc__group *groupconc__table_next(groupconc_executor *ex, size_t *s, size_t *i) {
    for (; *s < GROUPCONC__STRIPES; (*s)++, *i = 0) {
        const groupconc__stripe *st = &ex->table.stripes[*s];
        while (*i < st->nslots) {
            size_t k = (*i)++;
            if (st->hashes[k]) return st->slots[k];
        }
    }
    return NULL;
}

/* Whether a stored key of unknown length is key[0, len) (no NUL in it), byte by byte: the stored
   key's NUL differs from every byte of key, so the loop never reads past a shorter one. For keys
   of GROUPCONC__KEYLEN_LONG bytes or more (groupconc__group_key_is). */
GROUPCONC__FN bool groupconc__key_equal(const char *stored, const char *key, size_t len) {
    size_t i;
    for (i = 0; i < len; i++)
        if (stored[i] != key[i]) return false;
    return stored[len] == '\0';
}

/* Whether stored[0, len) is key[0, len), where both hold len bytes: eight at a time (an unaligned
   load each, through memcpy), the last eight overlapping, and short keys byte by byte. Inline:
   strncmp's or memcmp's call cost W1 30 instructions a task (callgrind), and the byte loop 8 a
   byte: W2's keys ("key-1234") paid ~70 per submit whose memo missed. */
GROUPCONC__HOT bool groupconc__key_same(const char *stored, const char *key, size_t len) {
    uint64_t a, b;
    size_t i;
    if (len < 8) {
        for (i = 0; i < len; i++)
            if (stored[i] != key[i]) return false;
        return true;
    }
    for (i = 0; len - i > 8; i += 8) {
        memcpy(&a, stored + i, sizeof a);
        memcpy(&b, key + i, sizeof b);
        if (a != b) return false;
    }
    memcpy(&a, stored + len - 8, sizeof a);
    memcpy(&b, key + len - 8, sizeof b);
    return a == b;
}

/* dst[0, len) = src[0, len), as groupconc__key_same reads them: eight bytes a move, inline (a
   variable-length memcpy is a call, ~30 instructions for a short key). */
GROUPCONC__HOT void groupconc__key_copy(char *dst, const char *src, size_t len) {
    uint64_t w;
    size_t i;
    if (len < 8) {
        for (i = 0; i < len; i++) dst[i] = src[i];
        return;
    }
    for (i = 0; len - i > 8; i += 8) {
        memcpy(&w, src + i, sizeof w);
        memcpy(dst + i, &w, sizeof w);
    }
    memcpy(&w, src + len - 8, sizeof w);
    memcpy(dst + len - 8, &w, sizeof w);
}

/* Whether g's key is key[0, len): its length byte first (a key table's hash word can match
   another key's), then the bytes. */
GROUPCONC__HOT bool groupconc__group_key_is(const groupconc__group *g, const char *key, size_t len) {
    if (len >= GROUPCONC__KEYLEN_LONG) /* g's length is known to be that long at least */
        return g->keylen == GROUPCONC__KEYLEN_LONG && groupconc__key_equal(g->key, key, len);
    return g->keylen == len && groupconc__key_same(g->key, key, len);
}

/* Beside each slot, the low 32 bits of its key's hash (0 = empty; groupconc__key_hash never gives
   0): a probe compares those and reads a group only on a match, so a new key reads no group (its
   cost: the hash words, and the home slot's line, which its insertion writes); and growing
   re-places every group from its hash word alone, without touching the groups (a million groups
   are 150 MB of scattered memory). Under the stripe's lock. */
GROUPCONC__FN groupconc__group *groupconc__table_find(const groupconc__stripe *st, const char *key,
                                                       size_t len, uint64_t hash) {
    size_t mask = st->nslots - 1, i;
    uint32_t h = (uint32_t)hash, c;
    if (st->nslots == 0) return NULL;
    /* the home slot's group pointer is read on a match and written by a new key's insertion: its
       line comes in beside the hash word's (two misses at once, not one after the other, in a
       table larger than the cache; W5's submit spent a third of its time on the two) */
    GROUPCONC__PREFETCH(&st->slots[(size_t)h & mask]);
    for (i = (size_t)h & mask; (c = st->hashes[i]) != 0; i = (i + 1) & mask) {
        if (c == h && groupconc__group_key_is(st->slots[i], key, len)) return st->slots[i];
    }
    return NULL;
}

GROUPCONC__FN void groupconc__table_place(groupconc__group **slots, uint32_t *hashes, size_t nslots,
                                          groupconc__group *g, uint32_t h) {
    size_t mask = nslots - 1, i = (size_t)h & mask;
    while (hashes[i]) i = (i + 1) & mask;
    hashes[i] = h;
    slots[i] = g;
}

/* The group this thread last found or made under stripe st, if it is key's and no group has left
   st since: then it is still in the table (a removal happens under st's lock, which the caller
   holds, and counts in st->removals), and the lookup reads no line of the table nor of the group.
   Those lines are what workers write per task (the group's counts sit beside its key) and, for a
   busy key, what several submitters share: a submitter that read the key there paid a cache miss
   per submit (issue 26; docs/performance.md). NULL otherwise. Under st's lock. */
GROUPCONC__HOT groupconc__group *groupconc__group_memo_find(const groupconc_executor *ex,
                                                            const groupconc__stripe *st,
                                                            const char *key, size_t len, uint64_t hash) {
    const groupconc__group_memo *m = &groupconc__my_group;
    if (m->hash != hash || m->gen != ex->node_gen || m->removals != st->removals || m->len != len ||
        !groupconc__key_same(m->key, key, len))
        return NULL;
    return m->group;
}

/* Note g (key's, in stripe st) as this thread's memo. Under st's lock. */
GROUPCONC__FN void groupconc__group_memo_note(const groupconc_executor *ex, const groupconc__stripe *st,
                                              groupconc__group *g, const char *key, size_t len,
                                              uint64_t hash) {
    groupconc__group_memo *m = &groupconc__my_group;
    if (len >= GROUPCONC__MEMO_KEY) return;
    m->gen = ex->node_gen;
    m->removals = st->removals;
    m->hash = hash;
    m->group = g;
    m->len = len;
    groupconc__key_copy(m->key, key, len);
}

/* Room for one more group in the stripe: grows at 3/4 load; no fixed maximum of groups (below 2^32
   slots: the hash words hold 32 bits of position). One allocation holds both arrays. Apart from
   the insertion, so that a creation that reclaims first cannot fail after the reclaim. */
GROUPCONC__FN int groupconc__table_reserve(groupconc__stripe *st) {
    size_t n, i, each = sizeof(groupconc__group *) + sizeof(uint32_t);
    groupconc__group **slots;
    uint32_t *hashes;
    if ((st->ngroups + 1) * 4 <= st->nslots * 3) return GROUPCONC_OK;
    n = st->nslots ? st->nslots * 2 : 16;
    if (n - 1 > UINT32_MAX || n > SIZE_MAX / each) return GROUPCONC_ENOMEM;
    slots = (groupconc__group **)GROUPCONC_MALLOC(n * each);
    if (!slots) return GROUPCONC_ENOMEM;
    hashes = (uint32_t *)(void *)(slots + n);
    memset(hashes, 0, n * sizeof *hashes);
    for (i = 0; i < st->nslots; i++)
        if (st->hashes[i]) groupconc__table_place(slots, hashes, n, st->slots[i], st->hashes[i]);
    if (st->slots) GROUPCONC_FREE(st->slots);
    st->slots = slots;
    st->hashes = hashes;
    st->nslots = n;
    return GROUPCONC_OK;
}

/* After groupconc__table_reserve: cannot fail. */
GROUPCONC__FN void groupconc__table_insert(groupconc__stripe *st, groupconc__group *g, uint64_t hash) {
    groupconc__table_place(st->slots, st->hashes, st->nslots, g, (uint32_t)hash);
    st->ngroups++;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. The caller counts the
   group out of table.ngroups. */
GROUPCONC__FN void groupconc__table_remove(groupconc__stripe *st, const groupconc__group *g, uint64_t hash) {
    size_t mask = st->nslots - 1, i = (size_t)(uint32_t)hash & mask, j;
    while (st->slots[i] != g || !st->hashes[i]) i = (i + 1) & mask;
    st->hashes[i] = 0;
    for (j = (i + 1) & mask; st->hashes[j]; j = (j + 1) & mask) {
        size_t home = (size_t)st->hashes[j] & mask;
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            st->slots[i] = st->slots[j];
            st->hashes[i] = st->hashes[j];
            st->hashes[j] = 0;
            i = j;
        }
    }
    st->ngroups--;
    st->removals++; /* every thread's memo of a group of this stripe is stale */
}

/* ==== groups ==================================================================================== */

/* The counter a final status goes to. */
GROUPCONC__FN int groupconc__outcome_index(int status, int reason) {
    switch (status) {
    case GROUPCONC_STATUS_SUCCESS: return GROUPCONC__C_SUCCEEDED;
    case GROUPCONC_STATUS_FAILED: return GROUPCONC__C_FAILED;
    case GROUPCONC_STATUS_CANCELLED: return GROUPCONC__C_CANCELLED;
    default:
        switch (reason) {
        case GROUPCONC_EREJECTED_GLOBAL: return GROUPCONC__C_REJ_GLOBAL;
        case GROUPCONC_EREJECTED_BULKHEAD: return GROUPCONC__C_REJ_BULKHEAD;
        case GROUPCONC_EREJECTED_WAITING: return GROUPCONC__C_REJ_WAITING;
        case GROUPCONC_EREJECTED_FLEET: return GROUPCONC__C_REJ_FLEET;
        case GROUPCONC_EEXPIRED_FLEET:
        case GROUPCONC_EEXPIRED_GLOBAL:
        case GROUPCONC_EEXPIRED_BULKHEAD:
        case GROUPCONC_EEXPIRED_CONCURRENCY:
        case GROUPCONC_EEXPIRED_RUNNING: return GROUPCONC__C_EXPIRED;
        default: return GROUPCONC__C_REJ_CONCURRENCY;
        }
    }
}

GROUPCONC__FN bool groupconc__is_expiry(int reason) {
    return (reason <= GROUPCONC_EEXPIRED_GLOBAL && reason >= GROUPCONC_EEXPIRED_RUNNING) ||
           reason == GROUPCONC_EEXPIRED_FLEET;
}

GROUPCONC__FN uint64_t groupconc__outcomes_sum(const uint64_t *outcome) {
    uint64_t n = 0;
    int i;
    for (i = 0; i < GROUPCONC__C_OUTCOMES; i++) n += outcome[i];
    return n;
}

/* One outcome counter of group g (the success count is inline, the rest in its cold block). */
GROUPCONC__FN uint64_t groupconc__group_outcome(const groupconc__group *g, int which) {
    if (which == GROUPCONC__C_SUCCEEDED) return g->succeeded;
    return g->cold ? g->cold->outcome[which] : 0;
}

GROUPCONC__FN uint64_t groupconc__group_completed(const groupconc__group *g) {
    return g->succeeded + (g->cold ? groupconc__outcomes_sum(g->cold->outcome) : 0);
}

/* g's tasks waiting at global in-flight, bulkhead, concurrency and global running. */
GROUPCONC__FN uint32_t groupconc__waiting_global_of(const groupconc__group *g) {
    return g->queues ? g->queues->waiting_global : 0;
}
GROUPCONC__FN uint32_t groupconc__waiting_bulkhead_of(const groupconc__group *g) {
    return g->queues ? g->queues->bulkhead.count : 0;
}
GROUPCONC__FN uint32_t groupconc__waiting_conc_of(const groupconc__group *g) {
    return g->queues ? g->queues->conc.count : 0;
}
GROUPCONC__FN uint32_t groupconc__waiting_running_of(const groupconc__group *g) {
    return g->queues ? g->queues->waiting_running : 0;
}

GROUPCONC__FN groupconc__lru *groupconc__lru_of(groupconc__group *g) {
    return (groupconc__lru *)(void *)((char *)g - sizeof(groupconc__lru));
}

/* What sits in front of g, and g's fleet counts (GF_FLEET only). */
GROUPCONC__FN size_t groupconc__group_front(const groupconc__group *g) {
    return ((g->flags & GROUPCONC__GF_LRU) ? sizeof(groupconc__lru) : 0) +
           ((g->flags & GROUPCONC__GF_FLEET) ? sizeof(groupconc__group_fleet) : 0);
}
GROUPCONC__FN groupconc__group_fleet *groupconc__gfleet(groupconc__group *g) {
    return (groupconc__group_fleet *)(void *)((char *)g - groupconc__group_front(g));
}
/* Tasks of g at the fleet layer (0 without a provider). */
GROUPCONC__FN uint32_t groupconc__fleet_waiting(const groupconc__group *g) {
    if (!(g->flags & GROUPCONC__GF_FLEET)) return 0;
    return ((const groupconc__group_fleet *)(const void *)((const char *)g - groupconc__group_front(g)))->waiting;
}

/* g's cold block, allocated on first need; NULL if there is no memory for it. Under ex->lock. */
GROUPCONC__FN groupconc__group_cold *groupconc__group_cold_get(groupconc__group *g) {
    if (!g->cold) {
        g->cold = (groupconc__group_cold *)GROUPCONC_MALLOC(sizeof *g->cold);
        if (g->cold) memset(g->cold, 0, sizeof *g->cold);
    }
    return g->cold;
}

/* Add delta (+1 or -1) to one outcome counter of g and of the executor. Under ex->lock. A group's
   first rare outcome allocates its cold block; if that fails the outcome is counted in the
   executor's totals only (counts_unattributed says how many). */
GROUPCONC__HOT void groupconc__count_locked(groupconc_executor *ex, groupconc__group *g, int which,
                                            int delta) {
    groupconc__shard *sh = groupconc__shard_of(ex, g);
    if (which == GROUPCONC__C_SUCCEEDED) {
        g->succeeded += (uint64_t)(int64_t)delta;
    } else {
        if (delta > 0) (void)groupconc__group_cold_get(g);
        if (g->cold && (delta > 0 || g->cold->outcome[which] > 0))
            g->cold->outcome[which] += (uint64_t)(int64_t)delta;
        else
            sh->counts.unattributed += (uint64_t)(int64_t)delta;
    }
    sh->counts.outcome[which] += (uint64_t)(int64_t)delta;
    if (g->flags & GROUPCONC__GF_LRU) /* its idle time counts from its last task's end */
        atomic_store_explicit(&groupconc__lru_of(g)->last_used, groupconc__coarse_now_ns(),
                              memory_order_relaxed);
}

/* A refused task ran under CALLER_RUNS: counted in caller_runs, which keeps the fact that a layer
   (the REJECTED event's reason says which) was passed by; its run's status counts as its outcome
   (the refusal never did: groupconc__refusal_counted). Under ex->lock. The group's count lives in
   its cold block (if that cannot be allocated, the executor's count still has it). */
GROUPCONC__FN void groupconc__count_caller_run_locked(groupconc_executor *ex, groupconc__group *g) {
    groupconc__shard *sh = groupconc__shard_of(ex, g);
    sh->counts.caller_runs++;
    if (groupconc__group_cold_get(g)) g->cold->caller_runs++;
}

GROUPCONC__FN void groupconc__group_free(groupconc__group *g) {
    if (g->cold) GROUPCONC_FREE(g->cold);
    if (g->queues) GROUPCONC_FREE(g->queues);
    GROUPCONC_FREE((char *)g - groupconc__group_front(g)); /* its LRU link and fleet counts too */
}

GROUPCONC__FN void groupconc__group_unref(groupconc__group *g) {
    if (atomic_fetch_sub_explicit(&g->refs, 1, memory_order_acq_rel) == 1) groupconc__group_free(g);
}

/* Let go of the group references a worker's completions held (see groupconc__nodes). */
GROUPCONC__FN void groupconc__nodes_unref_flush(groupconc__nodes *d) {
    if (d->nunref && atomic_fetch_sub_explicit(&d->unref->refs, d->nunref, memory_order_acq_rel) == d->nunref)
        groupconc__group_free(d->unref);
    d->unref = NULL;
    d->nunref = 0;
}

/* One more reference of g to let go of; those of another group first. */
GROUPCONC__FN void groupconc__nodes_unref(groupconc__nodes *d, groupconc__group *g) {
    if (d->unref != g) {
        groupconc__nodes_unref_flush(d);
        d->unref = g;
    }
    d->nunref++;
}

GROUPCONC__FN int groupconc__limits_cmp(const void *a, const void *b) {
    return strcmp(((const groupconc__limits_entry *)a)->key, ((const groupconc__limits_entry *)b)->key);
}

GROUPCONC__FN int32_t groupconc__cap(int v) { return v == GROUPCONC_UNLIMITED ? INT32_MAX : (int32_t)v; }

/* The per-group table's entry for key, or NULL. Under ex->lock or a stripe's lock (live changes
   write the table under ex->lock and every stripe). */
GROUPCONC__FN int groupconc__limits_key_cmp(const void *key, const void *entry) {
    return strcmp((const char *)key, ((const groupconc__limits_entry *)entry)->key);
}

GROUPCONC__FN groupconc__limits_entry *groupconc__limits_find(groupconc_executor *ex, const char *key) {
    if (ex->policy.group_count == 0) return NULL;
    return (groupconc__limits_entry *)bsearch(key, ex->limits, ex->policy.group_count,
                                              sizeof *ex->limits, groupconc__limits_key_cmp);
}

/* Resolve g's concurrency (which == 0), in-flight cap (1) or queue threshold (2): the table entry,
   else (concurrency) the resolver, else the default. The resolver runs here, under the key's stripe
   lock (group creation) or ex->lock and every stripe (a live change). */
GROUPCONC__FN int groupconc__resolve(groupconc_executor *ex, const groupconc__group *g,
                                     const groupconc__limits_entry *e, int which) {
    const groupconc_policy *p = &ex->policy;
    if (which == 0) {
        int conc = p->default_concurrency;
        if (e && e->concurrency != GROUPCONC_DEFAULT) {
            conc = e->concurrency;
        } else if (p->resolver) {
            int r = 0, rc;
            groupconc__resolving self; /* its calls into ex would wait for the locks held here */
            self.ex = ex;
            self.prev = groupconc__resolvers;
            groupconc__resolvers = &self;
            rc = p->resolver(g->key, &r, p->resolver_user_data);
            groupconc__resolvers = self.prev;
            if (rc == 0) conc = r < 1 ? 1 : r;
        }
        return conc;
    }
    if (which == 1)
        return e && e->max_in_flight != GROUPCONC_DEFAULT ? e->max_in_flight : p->default_max_in_flight;
    return e && e->queue_threshold != GROUPCONC_DEFAULT ? e->queue_threshold : p->default_queue_threshold;
}

/* ---- bounded group table: the LRU list (under table.lru_lock, taken after any stripe) ---- */

GROUPCONC__FN void groupconc__lru_unlink(groupconc_executor *ex, groupconc__group *g) {
    groupconc__lru *l = groupconc__lru_of(g);
    if (l->prev) groupconc__lru_of(l->prev)->next = l->next;
    else ex->table.lru_head = l->next;
    if (l->next) groupconc__lru_of(l->next)->prev = l->prev;
    else ex->table.lru_tail = l->prev;
    l->prev = l->next = NULL;
}

#define GROUPCONC__LRU_WALK 64 /* most entries a placement walks before it settles for the tail */

/* Put g (unlinked) in the list at the place `placed` gives it. A lookup places at the tail (now).
   The idle sweep re-places a group whose last task ended after its lookup: that place is near the
   head (both times are old), so it walks from the head, a few steps; past GROUPCONC__LRU_WALK it
   settles for the tail with the tail's time (the list stays sorted; the group is looked at later,
   never earlier, than its idle time). */
GROUPCONC__FN void groupconc__lru_place(groupconc_executor *ex, groupconc__group *g, uint64_t placed) {
    groupconc__lru *l = groupconc__lru_of(g);
    groupconc__group *after = ex->table.lru_tail;
    if (after && groupconc__lru_of(after)->placed > placed) {
        groupconc__group *before = ex->table.lru_head;
        int steps = 0;
        while (before && groupconc__lru_of(before)->placed <= placed && steps++ < GROUPCONC__LRU_WALK)
            before = groupconc__lru_of(before)->next;
        if (before && groupconc__lru_of(before)->placed > placed) {
            after = groupconc__lru_of(before)->prev; /* NULL: g becomes the head */
        } else {
            placed = groupconc__lru_of(after)->placed; /* too far in: at the tail, its time */
        }
    }
    l->placed = placed;
    l->prev = after;
    l->next = after ? groupconc__lru_of(after)->next : ex->table.lru_head;
    if (l->next) groupconc__lru_of(l->next)->prev = g;
    else ex->table.lru_tail = g;
    if (after) groupconc__lru_of(after)->next = g;
    else ex->table.lru_head = g;
}

/* A lookup of g: it goes to the tail, used now. */
GROUPCONC__FN void groupconc__lru_touch(groupconc_executor *ex, groupconc__group *g, uint64_t now) {
    groupconc__lru_unlink(ex, g);
    groupconc__lru_place(ex, g, now);
    atomic_store_explicit(&groupconc__lru_of(g)->last_used, now, memory_order_relaxed);
}

/* Nothing of g is waiting, ready, running (or deferred) or out as a gate permit, and it is not
   paused. Under ex->lock with the inbox drained under g's stripe lock (a push happens under the
   group's stripe lock, so no task of g is on its way in). A CALLER_RUNS re-run on a worker holds no
   permit (held == 0): only the running and deferred lists know it, so under that policy they are
   looked through (a reclaimed group's running task would miss a group shutdown's flag), and the
   list of runs inside their submit; so is its shard's refused, whose rejections are not settled yet. */
GROUPCONC__FN bool groupconc__group_idle_locked(const groupconc_executor *ex, const groupconc__group *g) {
    const groupconc__shard *sh = groupconc__shard_of(ex, g);
    const groupconc_task *t;
    if ((g->flags & GROUPCONC__GF_PAUSED) || groupconc__waiting_global_of(g) != 0 ||
        g->bulkhead.used != 0 || groupconc__waiting_bulkhead_of(g) != 0 || g->conc.used != 0 ||
        g->ready != 0 || (g->cold && g->cold->undecided != 0))
        return false;
    for (t = sh->refused.head; t; t = t->next) /* its rejection is not settled yet */
        if (t->group == g) return false;
    if (ex->policy.rejection != GROUPCONC_REJECT_CALLER_RUNS) return true;
    for (t = sh->running.head; t; t = t->next)
        if (t->group == g && t->held == 0) return false;
    for (t = sh->deferred.head; t; t = t->next)
        if (t->group == g && t->held == 0) return false;
    for (t = sh->caller_running.head; t; t = t->next)
        if (t->group == g) return false;
    return true;
}

/* Drop idle g from the table (as an evict of a group with nothing in it). Its memory lives on while
   finished tasks' handles point at it. Under ex->lock, every stripe and lru_lock. */
GROUPCONC__FN void groupconc__reclaim_tlocked(groupconc_executor *ex, groupconc__group *g) {
    size_t len = 0;
    uint64_t hash = 0; /* set: the key was valid when the group was made (-O3 cannot tell) */
    (void)groupconc__key_hash(g->key, &len, &hash);
    groupconc__table_remove(groupconc__stripe_of(ex, hash), g, hash);
    atomic_fetch_sub_explicit(&ex->table.ngroups, 1, memory_order_relaxed);
    groupconc__lru_unlink(ex, g);
    groupconc__shard_of(ex, g)->counts.groups_reclaimed++;
    groupconc__group_unref(g);
}

GROUPCONC__FN size_t groupconc__drain_locked(groupconc_executor *ex, groupconc__batch *b, bool close);
GROUPCONC__FN size_t groupconc__admit_inbox_locked(groupconc_executor *ex, groupconc__batch *b,
                                                  bool close);
GROUPCONC__FN void groupconc__admit_inbox_quiet_locked(groupconc_executor *ex, groupconc__batch *b);
GROUPCONC__FN bool groupconc__inbox_pending(groupconc_executor *ex);
GROUPCONC__FN int groupconc__kick_locked(groupconc_executor *ex);
GROUPCONC__FN void groupconc__call_helper_locked(groupconc_executor *ex);
GROUPCONC__FN int groupconc__keeper_start_locked(groupconc_executor *ex);

/* How many idle groups a new key at max_groups reclaims at once: the least recently used one it
   needs, and a few more from the LRU end (1/256 of the table, at most 64), so that the next new keys
   find room without taking the executor lock (only this locked step can tell an idle group). */
GROUPCONC__FN size_t groupconc__reclaim_batch(const groupconc_executor *ex) {
    size_t k = (size_t)ex->policy.max_groups / 256;
    return k < 1 ? 1 : k > 64 ? 64 : k;
}

/* The table is at max_groups and a new key comes: reclaim the least recently used idle group (and
   up to reclaim_batch - 1 more, the next least recently used, if idle). Busy ones met on the way go
   to the tail (in use: recently used). Under ex->lock and every stripe; takes lru_lock. */
GROUPCONC__FN int groupconc__reclaim_lru_tlocked(groupconc_executor *ex, groupconc__batch *b) {
    size_t n = atomic_load_explicit(&ex->table.ngroups, memory_order_relaxed);
    size_t want = groupconc__reclaim_batch(ex), got = 0;
    uint64_t now = groupconc__coarse_now_ns();
    groupconc__group *g;
    /* the inbox's tasks keep their groups busy; admitted without helping (a gate's try-acquire
       comes here too: what a busy worker left stays with the workers, see groupconc__lock_quiet) */
    if (groupconc__inbox_pending(ex)) groupconc__admit_inbox_quiet_locked(ex, b);
    groupconc__mutex_lock(&ex->table.lru_lock);
    while (n-- > 0 && got < want && (g = ex->table.lru_head) != NULL) {
        if (groupconc__group_idle_locked(ex, g)) {
            groupconc__reclaim_tlocked(ex, g);
            got++;
        } else if (got > 0) {
            break; /* the one needed is found: extras only while they come idle */
        } else {
            groupconc__lru_touch(ex, g, now);
        }
    }
    groupconc__mutex_unlock(&ex->table.lru_lock);
    return got > 0 ? GROUPCONC_OK : GROUPCONC_EGROUPS_FULL;
}

#define GROUPCONC__NEED_LOCK 2 /* internal: at max_groups, reclaiming needs ex->lock and every stripe */

/* Count a new group into table.ngroups before it is made: false (nothing counted) at max_groups.
   Under the key's stripe lock: two stripes' creations cannot both take the last place. */
GROUPCONC__FN bool groupconc__group_count_in(groupconc_executor *ex) {
    size_t n = atomic_load_explicit(&ex->table.ngroups, memory_order_relaxed);
    do {
        if (ex->policy.max_groups != GROUPCONC_UNLIMITED && n >= (size_t)ex->policy.max_groups) return false;
    } while (!atomic_compare_exchange_weak_explicit(&ex->table.ngroups, &n, n + 1, memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}

/* Make the group of key in stripe st: its block, its place in the stripe, and (full: the table is at
   max_groups; ex->lock and every stripe are held) the reclaim of an idle group, in that order, so
   that a failed call reclaims nothing. Counted in table.ngroups on success. (A submit takes what
   else a new key needs before this: groupconc__submit_reserve_new_tlocked.) */
GROUPCONC__FN int groupconc__group_make(groupconc_executor *ex, groupconc__stripe *st, size_t len,
                                        size_t front, bool full, groupconc__batch *b, char **block) {
    int rc = GROUPCONC_OK;
    *block = (char *)GROUPCONC_MALLOC(front + offsetof(groupconc__group, key) + len + 1);
    if (!*block) rc = GROUPCONC_ENOMEM;
    else rc = groupconc__table_reserve(st);
    if (rc == GROUPCONC_OK && full) {
        rc = groupconc__reclaim_lru_tlocked(ex, b);
        if (rc == GROUPCONC_OK && !groupconc__group_count_in(ex)) rc = GROUPCONC_EGROUPS_FULL;
    }
    if (rc != GROUPCONC_OK) {
        if (*block) GROUPCONC_FREE(*block);
        if (!full) atomic_fetch_sub_explicit(&ex->table.ngroups, 1, memory_order_relaxed);
    }
    return rc;
}

/* Whether groups may be reclaimed (max_groups or group_idle_ns set): each then has an LRU link in
   front of it (GROUPCONC__GF_LRU, fixed at its creation). */
#define GROUPCONC__TABLE_BOUNDED(p) ((p)->max_groups != GROUPCONC_UNLIMITED || (p)->group_idle_ns > 0)

/* Find the group, or create it and resolve its limits once ("first resolution fixed"). Called with
   the key's stripe st locked, and ex->lock too when b is not NULL (the locked submit path, gates,
   pause); `all`: every stripe is held (with ex->lock). The resolver runs there. A bounded table at
   its maximum reclaims an idle group first, which needs ex->lock and every stripe: without them,
   GROUPCONC__NEED_LOCK. *made (if not NULL) is set when this call made the group. */
GROUPCONC__COLD int groupconc__group_create(groupconc_executor *ex, groupconc__stripe *st, const char *key,
                                            size_t len, uint64_t hash, groupconc__batch *b, bool all,
                                            groupconc__group **out, bool *made);
GROUPCONC__HOT int groupconc__group_get(groupconc_executor *ex, groupconc__stripe *st, const char *key,
                                        size_t len, uint64_t hash, groupconc__batch *b, bool all,
                                        groupconc__group **out, bool *made) {
    const groupconc_policy *p = &ex->policy;
    groupconc__group *g = groupconc__group_memo_find(ex, st, key, len, hash);
    if (!g && (g = groupconc__table_find(st, key, len, hash)) != NULL)
        groupconc__group_memo_note(ex, st, g, key, len, hash);
    if (!g) return groupconc__group_create(ex, st, key, len, hash, b, all, out, made);
    if (GROUPCONC__TABLE_BOUNDED(p)) { /* in the LRU (the policy's word: g's lines stay unread) */
        groupconc__mutex_lock(&ex->table.lru_lock);
        groupconc__lru_touch(ex, g, groupconc__coarse_now_ns());
        groupconc__mutex_unlock(&ex->table.lru_lock);
    }
    *out = g;
    return GROUPCONC_OK;
}

/* The making half of groupconc__group_get (key has no group in st; its arguments as there), out of
   line: a submit to a group that exists, every task but its group's first, inlines the lookup only. */
GROUPCONC__COLD int groupconc__group_create(groupconc_executor *ex, groupconc__stripe *st, const char *key,
                                            size_t len, uint64_t hash, groupconc__batch *b, bool all,
                                            groupconc__group **out, bool *made) {
    const groupconc_policy *p = &ex->policy;
    groupconc__limits_entry *e;
    groupconc__group *g;
    bool bounded = GROUPCONC__TABLE_BOUNDED(p), full;
    size_t front = (bounded ? sizeof(groupconc__lru) : 0) + (p->fleet.acquire ? sizeof(groupconc__group_fleet) : 0);
    char *block;
    int rc;
    full = !groupconc__group_count_in(ex);
    if (full && !(b && all)) return GROUPCONC__NEED_LOCK;
    if ((rc = groupconc__group_make(ex, st, len, front, full, b, &block)) != GROUPCONC_OK) return rc;
    g = (groupconc__group *)(void *)(block + front);
    memset(block, 0, front + offsetof(groupconc__group, key));
    memcpy(g->key, key, len);
    g->key[len] = '\0';
    g->keylen = (uint8_t)(len < GROUPCONC__KEYLEN_LONG ? len : GROUPCONC__KEYLEN_LONG);
    g->exec = ex;
    if (made) *made = true;
#if GROUPCONC__SHARDS > 1
    g->shard = GROUPCONC__SHARD_OF_HASH(hash); /* its stripe's, masked: see "shards" */
#endif
    g->flags = (uint8_t)((bounded ? GROUPCONC__GF_LRU : 0u) | (p->fleet.acquire ? GROUPCONC__GF_FLEET : 0u));
    atomic_init(&g->refs, 1); /* the table's */
    e = groupconc__limits_find(ex, g->key);
    g->conc.limit = groupconc__resolve(ex, g, e, 0);
    g->bulkhead.limit = groupconc__cap(groupconc__resolve(ex, g, e, 1));
    g->threshold = groupconc__resolve(ex, g, e, 2);
    groupconc__table_insert(st, g, hash);
    groupconc__group_memo_note(ex, st, g, key, len, hash);
    if (bounded) {
        uint64_t now = groupconc__coarse_now_ns();
        atomic_init(&groupconc__lru_of(g)->last_used, now);
        groupconc__mutex_lock(&ex->table.lru_lock);
        groupconc__lru_place(ex, g, now);
        groupconc__mutex_unlock(&ex->table.lru_lock);
        /* a gate or a pause may create groups before any submit: the idle sweep must run (if it
           cannot start now, the next creation or locked submit tries again) */
        if (b && p->group_idle_ns > 0) (void)groupconc__keeper_start_locked(ex);
    }
    *out = g;
    /* the table holds it; `block` is what is in front of it (freed by groupconc__group_free) */
    /* cppcheck-suppress memleak */
    return GROUPCONC_OK;
}

/* groupconc__group_get under ex->lock (gates, pause): the key's stripe, or every stripe where a
   bounded table at its maximum must reclaim first. Leaves no stripe held. */
GROUPCONC__FN int groupconc__group_get_locked(groupconc_executor *ex, const char *key, size_t len,
                                              uint64_t hash, groupconc__batch *b, groupconc__group **out) {
    groupconc__stripe *st = groupconc__stripe_of(ex, hash);
    int rc;
    groupconc__wordlock_lock(&st->lock);
    rc = groupconc__group_get(ex, st, key, len, hash, b, false, out, NULL);
    groupconc__wordlock_unlock(&st->lock);
    if (rc == GROUPCONC__NEED_LOCK) {
        groupconc__table_lock_all(ex);
        rc = groupconc__group_get(ex, st, key, len, hash, b, true, out, NULL);
        groupconc__table_unlock_all(ex);
    }
    return rc;
}

/* The group of key, or NULL: under ex->lock (no reclaim or evict meanwhile), its stripe's lock
   taken for the lookup. */
GROUPCONC__FN groupconc__group *groupconc__find_locked(groupconc_executor *ex, const char *key,
                                                       size_t len, uint64_t hash) {
    groupconc__stripe *st = groupconc__stripe_of(ex, hash);
    groupconc__group *g;
    groupconc__wordlock_lock(&st->lock);
    g = groupconc__table_find(st, key, len, hash);
    groupconc__wordlock_unlock(&st->lock);
    return g;
}

/* The permits of `layer`. Compares, not a switch: five cases make a jump table, an indirect
   branch on every layer of every task's admission and release (the hot path). */
GROUPCONC__FN groupconc__permits *groupconc__permits_of(groupconc_executor *ex, groupconc__group *g,
                                                        int layer) {
    if (layer == GROUPCONC__L_CONCURRENCY) return &g->conc;
    if (layer == GROUPCONC__L_BULKHEAD) return &g->bulkhead;
    if (layer == GROUPCONC__L_GLOBAL) return &ex->global.permits;
    if (layer == GROUPCONC__L_RUNNING) return &ex->run_cap.permits;
    return &ex->fleet.layer.permits; /* GROUPCONC__L_FLEET */
}

/* What a group without its queues block reads as its FIFOs: empty. Never written (a FIFO is pushed
   only through groupconc__queues_get, and popped only when it has a task). */
static groupconc__fifo groupconc__no_waiters;

/* The FIFO of `layer`'s waiters (for g's own layers, empty while g has no queues block). */
GROUPCONC__FN groupconc__fifo *groupconc__waiters_of(groupconc_executor *ex, groupconc__group *g,
                                                     int layer) {
    if (layer == GROUPCONC__L_CONCURRENCY) return g->queues ? &g->queues->conc : &groupconc__no_waiters;
    if (layer == GROUPCONC__L_BULKHEAD) return g->queues ? &g->queues->bulkhead : &groupconc__no_waiters;
    if (layer == GROUPCONC__L_GLOBAL) return &ex->global.waiters;
    if (layer == GROUPCONC__L_RUNNING) return &ex->run_cap.waiters;
    return &ex->fleet.layer.waiters; /* GROUPCONC__L_FLEET */
}

/* g's queues block, made when a task of g first has to wait (at any layer but the fleet's): the
   spare of its shard if it has one (a direct submit makes sure of one beforehand, see
   groupconc__submit_prepare_locked), else a new one. NULL if memory ran out: that task is refused
   as the memory bound refuses one (GROUPCONC_EREJECTED_WAITING), at submit or, for a task admitted
   later (the inbox, a fleet grant), through the rejection's usual path. Under ex->lock. */
GROUPCONC__FN groupconc__group_queues *groupconc__queues_get(groupconc_executor *ex,
                                                             groupconc__group *g) {
    groupconc__group_queues *q = g->queues;
    groupconc__shard *sh;
    if (q) return q;
    sh = groupconc__shard_of(ex, g);
    if (sh->spare_queues) {
        q = sh->spare_queues;
        sh->spare_queues = NULL;
    } else {
        q = (groupconc__group_queues *)GROUPCONC_MALLOC(sizeof *q);
        if (!q) return NULL;
    }
    memset(q, 0, sizeof *q);
    g->queues = q;
    return q;
}

/* The reason a task refused at `layer` completes with (its queue threshold; the gate's try_acquire). */
GROUPCONC__FN int groupconc__layer_rejected(int layer) {
    switch (layer) {
    case GROUPCONC__L_GLOBAL: return GROUPCONC_EREJECTED_GLOBAL;
    case GROUPCONC__L_BULKHEAD: return GROUPCONC_EREJECTED_BULKHEAD;
    case GROUPCONC__L_CONCURRENCY: return GROUPCONC_EREJECTED_CONCURRENCY;
    case GROUPCONC__L_FLEET: return GROUPCONC_EREJECTED_FLEET; /* the provider's REJECT */
    default: return GROUPCONC_EREJECTED_RUNNING; /* GROUPCONC__L_RUNNING */
    }
}

/* The reason a task whose queue deadline passed while it waited at `layer` completes with. */
GROUPCONC__FN int groupconc__layer_expired(int layer) {
    switch (layer) {
    case GROUPCONC__L_GLOBAL: return GROUPCONC_EEXPIRED_GLOBAL;
    case GROUPCONC__L_BULKHEAD: return GROUPCONC_EEXPIRED_BULKHEAD;
    case GROUPCONC__L_CONCURRENCY: return GROUPCONC_EEXPIRED_CONCURRENCY;
    case GROUPCONC__L_FLEET: return GROUPCONC_EEXPIRED_FLEET;
    default: return GROUPCONC_EEXPIRED_RUNNING; /* GROUPCONC__L_RUNNING */
    }
}

/* A paused group (or executor) is handed no permit at concurrency and global running. Under ex->lock. */
GROUPCONC__FN bool groupconc__paused(const groupconc_executor *ex, const groupconc__group *g) {
    return ex->paused || (g->flags & GROUPCONC__GF_PAUSED) != 0;
}

#if GROUPCONC_DEBUG
/* Invariants of one fair semaphore: never negative, and nobody waits while a permit is free (a
   waiter is always handed the permit first: no lost wake-up, no barging) unless the layer is held
   shut: a paused group or executor. `used` may exceed `limit` after a live lowering (it drains). */
GROUPCONC__FN void groupconc__sem_check(const groupconc__permits *s, const groupconc__fifo *waiters,
                                       bool shut) {
    GROUPCONC_ASSERT(s->used >= 0);
    GROUPCONC_ASSERT(shut || waiters->count == 0 || s->used >= s->limit);
    GROUPCONC_ASSERT((waiters->count == 0) == (waiters->head == NULL));
}
GROUPCONC__FN void groupconc__debug_check(const groupconc_executor *ex, const groupconc__group *g) {
    groupconc__sem_check(&ex->global.permits, &ex->global.waiters, false);
    groupconc__sem_check(&ex->run_cap.permits, &ex->run_cap.waiters, ex->paused || ex->npaused > 0);
    GROUPCONC_ASSERT(groupconc__no_waiters.count == 0 && groupconc__no_waiters.head == NULL);
    if (g) {
        const groupconc__group_queues *q = g->queues;
        groupconc__sem_check(&g->bulkhead, q ? &q->bulkhead : &groupconc__no_waiters, false);
        groupconc__sem_check(&g->conc, q ? &q->conc : &groupconc__no_waiters, groupconc__paused(ex, g));
        GROUPCONC_ASSERT((int64_t)g->running <= g->conc.used);
    }
}
#else
#define groupconc__debug_check(ex, g) ((void)0)
#endif

/* Forward declarations: the sections below call into each other (a task's life cycle hands permits
   on through the semaphores and wakes workers through the pool). */
GROUPCONC__FN void groupconc__release_permits(groupconc_executor *ex, groupconc_task *t,
                                              groupconc__batch *b);
GROUPCONC__FN void groupconc__release_layer(groupconc_executor *ex, groupconc__group *g, int layer,
                                            groupconc__batch *b);
GROUPCONC__FN void groupconc__pump(groupconc_executor *ex, groupconc__batch *b);
GROUPCONC__FN int groupconc__kick_locked(groupconc_executor *ex);
GROUPCONC__FN void groupconc__help_locked(groupconc_executor *ex, groupconc__batch *b, bool all);
GROUPCONC__FN void groupconc__retire_locked(groupconc_executor *ex, size_t n);
GROUPCONC__FN int groupconc__worker_main(void *arg);
GROUPCONC__FN void groupconc__timer_drop(groupconc_executor *ex, groupconc_task *t);
/* The fleet layer's entry and resume (module "fleet layer"): admission and pause call them. */
GROUPCONC__FN void groupconc__fleet_enter_locked(groupconc_executor *ex, groupconc_task *t,
                                                 groupconc__batch *b);
GROUPCONC__FN void groupconc__fleet_resume_locked(groupconc_executor *ex,
                                                  const groupconc__group *g, groupconc__batch *b);
/* Executor gate permits held in group g (NULL: all groups), 0 when the executor has no gate; under
   ex->lock. Without the gate (GROUPCONC_NO_GATE) none is ever out. */
#ifndef GROUPCONC_NO_GATE
GROUPCONC__FN size_t groupconc__gate_permits_locked(groupconc_executor *ex, const groupconc__group *g);
#define GROUPCONC__GATE_PERMITS_LOCKED(ex, g) ((ex)->gates ? groupconc__gate_permits_locked(ex, g) : 0)
#else
#define GROUPCONC__GATE_PERMITS_LOCKED(ex, g) ((void)(ex), (void)(g), (size_t)0)
#endif

#if GROUPCONC_DEBUG
/* Which kind of hold of the executor lock is let go of (see groupconc__exec_lock_all): this
   thread's address, in ex->all_held_by while it holds every shard. */
static GROUPCONC__TLS char groupconc__me;
#define GROUPCONC__ALL_HELD_SET(ex, on) ((ex)->all_held_by = (on) ? &groupconc__me : NULL)
#define GROUPCONC__ALL_HELD_CHECK(ex, on) GROUPCONC_ASSERT(((ex)->all_held_by == &groupconc__me) == (on))
#else
#define GROUPCONC__ALL_HELD_SET(ex, on) ((void)0)
#define GROUPCONC__ALL_HELD_CHECK(ex, on) ((void)0)
#endif
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
/* Which shards this thread holds (sh->held_by: written by each shard's holder just after taking its
   lock and just before letting go of it, read by the holder itself), for the assertions of the
   protocols that will hold only one shard (help: groupconc__help_locked). A relaxed atomic: once
   the lock narrows, a thread asks about shards it does not hold, whose holder writes it meanwhile;
   the answer needs no order (only this thread stores its own address, so it reads its own stores:
   "mine" is exact, "not mine" may be any other holder or none). */
#define GROUPCONC__SHARD_HELD_SET(sh, on) \
    atomic_store_explicit(&(sh)->held_by, (on) ? &groupconc__me : NULL, memory_order_relaxed)
#define GROUPCONC__SHARD_HELD(sh) (atomic_load_explicit(&(sh)->held_by, memory_order_relaxed) == &groupconc__me)
#else
#define GROUPCONC__SHARD_HELD_SET(sh, on) ((void)0)
#endif

/* ---- the executor lock ----
   Every thread takes ex->lock (every shard's, in index order; with one shard, shard 0's: see
   "shards") through these three and lets go of it
   through groupconc__exec_unlock (CI checks that nothing else does): the first to take it while a
   worker runs a chain ends the chain (groupconc__chains_end_locked, "serial runs: chains" in
   "worker pool"), so that whatever it reads or changes under the lock is exact. With more than one
   shard each shard counts its groups' chains, and a taker ends those of the shards it took
   (groupconc__chains_end_from_locked; every shard, for now). */
#if GROUPCONC__SHARDS == 1
GROUPCONC__FN void groupconc__chains_end_locked(groupconc_executor *ex);
#else /* per shard: the chains of the shards it takes (groupconc__chains_end_from_locked) */
GROUPCONC__FN void groupconc__shard_chains_end_locked(groupconc_executor *ex, groupconc__shard *sh);
#endif

/* A worker of ex that is about to sleep on one of ex's locks from inside its batch (a deferred
   task's hand-off, a library call from a body, a callback) shows NOT_BUSY while it waits: the
   housekeeper's watch holds those locks while it looks for workers asleep in their tasks, and would
   take this wait for one (and grow the pool for it: groupconc__asleep_in_task). Its task's start
   is back as soon as it holds the lock, before anyone else can look. Only the worker itself writes
   its busy_since. Off the fast path: only once the lock was found taken. A worker spins for the
   lock first, yielding between tries (GROUPCONC__EXEC_SPIN_TRIES; still busy meanwhile: far below
   what the watch calls asleep), other threads do not, and a worker stops spinning while one of
   them waits (pool.nlocking): spinners that take the lock the moment it is free would keep a woken
   submitter out of it (W8's submitter reclaims under it: -9 % with them barging). */
static GROUPCONC__TLS groupconc__worker *groupconc__my_worker; /* set by worker_main */

GROUPCONC__FN void groupconc__exec_mutex_lock_slow(groupconc_executor *ex, groupconc__mutex *m) {
    groupconc__worker *w = groupconc__my_worker;
    uint64_t since;
    int i;
    if (!w || w->exec != ex) { /* not ex's worker: no spin of its own, and workers let it in */
        atomic_fetch_add_explicit(&ex->pool.nlocking, 1, memory_order_relaxed);
        groupconc__mutex_lock(m);
        atomic_fetch_sub_explicit(&ex->pool.nlocking, 1, memory_order_relaxed);
        return;
    }
    for (i = 0; i < GROUPCONC__EXEC_SPIN_TRIES; i++) { /* a hand-off without a futex */
        groupconc__thread_yield(); /* the CPU to a runnable submitter, if there is one */
        if (atomic_load_explicit(&ex->pool.nlocking, memory_order_relaxed)) break; /* no barging */
        if (groupconc__mutex_trylock(m)) return;
    }
    since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
    if (since == 0 || since == GROUPCONC__NOT_BUSY) { /* idle, or its own step */
        groupconc__mutex_lock(m);
        return;
    }
    atomic_store_explicit(&w->busy_since, GROUPCONC__NOT_BUSY, memory_order_relaxed);
    groupconc__mutex_lock(m);
    atomic_store_explicit(&w->busy_since, since, memory_order_relaxed);
}

GROUPCONC__FN void groupconc__exec_mutex_lock(groupconc_executor *ex, groupconc__mutex *m) {
    if (!groupconc__mutex_trylock(m)) groupconc__exec_mutex_lock_slow(ex, m);
}

#if GROUPCONC__SHARDS == 1
GROUPCONC__FN void groupconc__exec_lock(groupconc_executor *ex) {
    groupconc__exec_mutex_lock(ex, &ex->shards[0].lock);
    if (ex->pool.nchains) groupconc__chains_end_locked(ex);
}

/* The same only if the lock is free: false if it is held. */
GROUPCONC__FN bool groupconc__exec_trylock(groupconc_executor *ex) {
    if (!groupconc__mutex_trylock(&ex->shards[0].lock)) return false;
    if (ex->pool.nchains) groupconc__chains_end_locked(ex);
    return true;
}

/* Wait on cv with ex->lock until signalled or `until` (UINT64_MAX: no limit); false if the time
   came first. */
GROUPCONC__FN bool groupconc__exec_wait(groupconc_executor *ex, groupconc__cond *cv, uint64_t until) {
    bool signalled = true;
    GROUPCONC__ALL_HELD_CHECK(ex, false);
    if (until == UINT64_MAX) groupconc__cond_wait(cv, &ex->shards[0].lock);
    else signalled = groupconc__cond_wait_until(cv, &ex->shards[0].lock, until);
    if (ex->pool.nchains) groupconc__chains_end_locked(ex);
    return signalled;
}

GROUPCONC__FN void groupconc__exec_unlock(groupconc_executor *ex) {
    GROUPCONC__ALL_HELD_CHECK(ex, false);
    groupconc__mutex_unlock(&ex->shards[0].lock);
}
#else
/* Step 5a (see "shards"): the per-task lock is still every shard's, taken in index order and let go
   of in reverse, so it excludes exactly what the one lock did. Shard 0's is taken first, so whoever
   holds it alone keeps every other taker out (the white-box tests rely on that). */
GROUPCONC__FN void groupconc__exec_lock_shards(groupconc_executor *ex, size_t from) {
    size_t i;
    for (i = from; i < GROUPCONC__SHARDS; i++) {
        groupconc__exec_mutex_lock(ex, &ex->shards[i].lock);
        GROUPCONC__SHARD_HELD_SET(&ex->shards[i], true);
    }
}

/* The holder of shards [from, N) (all of them, for now) ends their workers' chains ("serial runs:
   chains"): each shard's own (sh->nchains), so that once the lock narrows a holder of one shard
   ends only the chains whose tasks it can see. */
GROUPCONC__FN void groupconc__chains_end_from_locked(groupconc_executor *ex, size_t from) {
    size_t i;
    for (i = from; i < GROUPCONC__SHARDS; i++)
        if (ex->shards[i].nchains) groupconc__shard_chains_end_locked(ex, &ex->shards[i]);
}

GROUPCONC__FN void groupconc__exec_unlock_shards(groupconc_executor *ex, size_t down_to) {
    size_t i = GROUPCONC__SHARDS;
    while (i-- > down_to) {
        GROUPCONC__SHARD_HELD_SET(&ex->shards[i], false);
        groupconc__mutex_unlock(&ex->shards[i].lock);
    }
}

GROUPCONC__FN void groupconc__exec_lock(groupconc_executor *ex) {
    groupconc__exec_lock_shards(ex, 0);
    groupconc__chains_end_from_locked(ex, 0);
}

/* The same only if every lock is free: false (none held) otherwise. */
GROUPCONC__FN bool groupconc__exec_trylock(groupconc_executor *ex) {
    size_t i;
    for (i = 0; i < GROUPCONC__SHARDS; i++) {
        if (!groupconc__mutex_trylock(&ex->shards[i].lock)) {
            while (i-- > 0) {
                GROUPCONC__SHARD_HELD_SET(&ex->shards[i], false);
                groupconc__mutex_unlock(&ex->shards[i].lock);
            }
            return false;
        }
        GROUPCONC__SHARD_HELD_SET(&ex->shards[i], true);
    }
    groupconc__chains_end_from_locked(ex, 0);
    return true;
}

/* Wait on cv until signalled or `until`: shards N-1..1 let go of, the wait with shard 0's lock
   (whoever signals cv holds every shard's, so holds shard 0's: no signal is lost), then 1..N-1
   taken again in order. */
GROUPCONC__FN bool groupconc__exec_wait(groupconc_executor *ex, groupconc__cond *cv, uint64_t until) {
    bool signalled = true;
    GROUPCONC__ALL_HELD_CHECK(ex, false);
    groupconc__exec_unlock_shards(ex, 1);
    GROUPCONC__SHARD_HELD_SET(&ex->shards[0], false); /* let go of in the wait */
    if (until == UINT64_MAX) groupconc__cond_wait(cv, &ex->shards[0].lock);
    else signalled = groupconc__cond_wait_until(cv, &ex->shards[0].lock, until);
    GROUPCONC__SHARD_HELD_SET(&ex->shards[0], true);
    groupconc__exec_lock_shards(ex, 1);
    groupconc__chains_end_from_locked(ex, 0); /* shard 0's too: let go of in the wait */
    return signalled;
}

GROUPCONC__FN void groupconc__exec_unlock(groupconc_executor *ex) {
    GROUPCONC__ALL_HELD_CHECK(ex, false);
    groupconc__exec_unlock_shards(ex, 0);
}

/* An idle worker's sleep (P1 across shards, "Step 5b" in docs/lock-measurements.md): work_cv's mutex
   is the pool's lock, not a shard's, so that a kick from a thread holding any one shard's lock (5b)
   reaches a sleeper. The sleeper raised nidle (seq_cst) and looked at the inbox before; it takes the
   pool lock while it still holds the shards' (order: shards, then pool), looks once more under it
   at every shard's ready count and at the inbox (either: no sleep, the caller steps again), lets go
   of every shard and waits; woken, it lets go of the pool lock before it takes the shards again, in
   index order. Whoever signals work_cv does so under the pool lock
   (groupconc__work_signal), after making its task ready and reading nidle: it either runs before
   the sleeper's look (which sees its task) or signals once the sleeper waits. The look reads each
   shard's ready count from its mirror (sh->nready, stored seq_cst under the shard's lock after
   each change of its queue), not from the queue: when the lock narrows (5b) a kicker holds only
   its own shard's lock, and the mirror is what a sleeper can read of the others. For now every
   kicker holds every shard, so the mirror equals the count here (a debug build asserts it
   wherever the counts are summed). Returns as groupconc__exec_wait. */
GROUPCONC__FN size_t groupconc__ready_mirrored(groupconc_executor *ex);
GROUPCONC__FN bool groupconc__work_wait(groupconc_executor *ex, uint64_t until) {
    bool signalled = true;
    GROUPCONC__ALL_HELD_CHECK(ex, false);
    groupconc__mutex_lock(&ex->pool.lock);
    if (groupconc__ready_mirrored(ex) != 0 || groupconc__inbox_pending(ex)) { /* P1: since its look */
        groupconc__mutex_unlock(&ex->pool.lock);
        return true;
    }
    groupconc__exec_unlock_shards(ex, 0);
    if (until == UINT64_MAX) groupconc__cond_wait(&ex->pool.work_cv, &ex->pool.lock);
    else signalled = groupconc__cond_wait_until(&ex->pool.work_cv, &ex->pool.lock, until);
    groupconc__mutex_unlock(&ex->pool.lock);
    groupconc__exec_lock_shards(ex, 0);
    groupconc__chains_end_from_locked(ex, 0);
    return signalled;
}

/* Wake one idle worker: under the pool lock, work_cv's mutex (see groupconc__work_wait). Called
   holding shard locks (kick_locked, call_helper_locked). */
GROUPCONC__FN void groupconc__work_signal(groupconc_executor *ex) {
    groupconc__mutex_lock(&ex->pool.lock);
    groupconc__cond_signal(&ex->pool.work_cv);
    groupconc__mutex_unlock(&ex->pool.lock);
}
#endif

/* Every shard's lock made (an error: none is), and destroyed. */
GROUPCONC__FN int groupconc__shard_locks_init(groupconc_executor *ex) {
    size_t i;
    int rc = GROUPCONC_OK;
    for (i = 0; i < GROUPCONC__SHARDS; i++) {
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
        atomic_init(&ex->shards[i].held_by, NULL);
#endif
#if GROUPCONC__SHARDS > 1
        atomic_init(&ex->shards[i].nready, 0);
#endif
        if ((rc = groupconc__mutex_init(&ex->shards[i].lock)) != GROUPCONC_OK) {
            while (i-- > 0) groupconc__mutex_destroy(&ex->shards[i].lock);
            break;
        }
    }
#if GROUPCONC__SHARDS > 1 /* the pool's lock with them (work_cv's mutex: see groupconc__work_wait) */
    if (rc == GROUPCONC_OK && (rc = groupconc__mutex_init(&ex->pool.lock)) != GROUPCONC_OK)
        for (i = 0; i < GROUPCONC__SHARDS; i++) groupconc__mutex_destroy(&ex->shards[i].lock);
#endif
    return rc;
}

GROUPCONC__FN void groupconc__shard_locks_destroy(groupconc_executor *ex) {
    size_t i;
    for (i = 0; i < GROUPCONC__SHARDS; i++) groupconc__mutex_destroy(&ex->shards[i].lock);
#if GROUPCONC__SHARDS > 1
    groupconc__mutex_destroy(&ex->pool.lock);
#endif
}

/* Every shard's lock, in index order, for a call that must see the whole executor ("shards": stats,
   the dump, pause, live limits, group and executor shutdown, eviction, the housekeeper, gates'
   and scopes' cold paths); let go of with groupconc__exec_unlock_all, waited in with _wait_all.
   For now (step 5a) the same locks as groupconc__exec_lock's, at any number of shards: what the
   split says now is which kind each call site is, and a debug build checks that a hold is let go
   of as the kind it was taken as (ex->all_held_by). */
GROUPCONC__FN void groupconc__exec_lock_all(groupconc_executor *ex) {
    groupconc__exec_lock(ex);
    GROUPCONC__ALL_HELD_SET(ex, true);
}

GROUPCONC__FN void groupconc__exec_unlock_all(groupconc_executor *ex) {
    GROUPCONC__ALL_HELD_CHECK(ex, true);
    GROUPCONC__ALL_HELD_SET(ex, false);
    groupconc__exec_unlock(ex);
}

GROUPCONC__FN bool groupconc__exec_wait_all(groupconc_executor *ex, groupconc__cond *cv, uint64_t until) {
    bool signalled;
    GROUPCONC__ALL_HELD_CHECK(ex, true);
    GROUPCONC__ALL_HELD_SET(ex, false);
    signalled = groupconc__exec_wait(ex, cv, until);
    GROUPCONC__ALL_HELD_SET(ex, true);
    return signalled;
}

#if GROUPCONC__SHARDS > 1
/* idle_cv's waits and broadcasts (graceful shutdown and destroy wait for ex->unfinished, destroy for
   the fleet's outstanding requests), with the pool's lock as its mutex: a retirer that takes
   unfinished to 0 holds no shard it could share with the waiter once the lock narrows. The waiter,
   holding every shard, takes the pool lock (order: shards, then pool), looks at `count` once more
   under it (NULL: nothing to look at; a fence orders the look after its own shutdown store, against
   retire_locked's fetch_sub then load of `shutdown`), lets go of the shards and waits; woken, it
   lets go of the pool lock, then takes every shard again. Whoever broadcasts idle_cv holds the pool
   lock (groupconc__idle_broadcast, retire_locked), so nothing it says is lost. Returns as
   groupconc__exec_wait_all (true at once when count reads 0). */
GROUPCONC__FN bool groupconc__idle_wait_all(groupconc_executor *ex, uint64_t until, _Atomic size_t *count) {
    bool signalled = true;
    GROUPCONC__ALL_HELD_CHECK(ex, true);
    groupconc__mutex_lock(&ex->pool.lock);
    atomic_thread_fence(memory_order_seq_cst);
    if (count && atomic_load_explicit(count, memory_order_seq_cst) == 0) {
        groupconc__mutex_unlock(&ex->pool.lock);
        return true;
    }
    GROUPCONC__ALL_HELD_SET(ex, false);
    groupconc__exec_unlock_shards(ex, 0);
    if (until == UINT64_MAX) groupconc__cond_wait(&ex->idle_cv, &ex->pool.lock);
    else signalled = groupconc__cond_wait_until(&ex->idle_cv, &ex->pool.lock, until);
    groupconc__mutex_unlock(&ex->pool.lock);
    groupconc__exec_lock_shards(ex, 0);
    groupconc__chains_end_from_locked(ex, 0);
    GROUPCONC__ALL_HELD_SET(ex, true);
    return signalled;
}

GROUPCONC__FN void groupconc__idle_broadcast(groupconc_executor *ex) {
    groupconc__mutex_lock(&ex->pool.lock);
    groupconc__cond_broadcast(&ex->idle_cv);
    groupconc__mutex_unlock(&ex->pool.lock);
}
#endif

/* ==== task life cycle =========================================================================== */
/* A task's life is kept in three fields of its node:
     stage  GROUPCONC__NEW .. DEFERRED: where it is. Plain; changed only under ex->lock (or by the
            one thread that owns the task), and only through groupconc__set_stage, which checks
            each change against groupconc__stage_next (the rows below) in a debug build.
     state  GROUPCONC__ST_*: atomic bits, read without a lock by the handle functions (done?
            cancelled?), the word on which a worker starting a task and a cancel taking it race,
            and the four references whose last holder frees the node.
     bits   GROUPCONC__B_*: plain flags, written before the task is visible to other threads, or
            under ex->lock, or by the one thread that owns the task at that point.

   Stage transitions. All under ex->lock; "DONE" means out of every queue, permits handed on,
   counted. Completion (cleanup, COMPLETED event, callbacks, ST_DONE) follows with no lock held.
     from      to        who, and why                                          function
     NEW       QUEUED    admission: no free permit at layer `held`, and the    admit,
                         layer's queue threshold lets it wait; or at the       fleet_enter_locked
                         fleet layer, with a provider (asked for, or behind
                         its group's tasks answered BUSY: B_FLEET_BUSY)
     NEW       READY     admission: every layer's permit held                  admit, push_ready
     NEW       REJECTED  admission: the queue threshold is reached             reject_locked
     QUEUED    NEW       a released permit is handed to it (oldest waiter);    release_permits,
                         the pump admits it at its next layer; at the fleet    pump,
                         layer: answered GRANTED (a lease, B_LEASED) or OPEN   groupconc_fleet_answer
     QUEUED    REJECTED  its queue deadline passed (the housekeeper); at the   expire_locked,
                         fleet layer also answered REJECT (EREJECTED_FLEET)    groupconc_fleet_answer
     QUEUED    DONE      task_cancel, group shutdown / evict, executor         unlink_waiting,
     READY     DONE        shutdown: CANCELLED                                 cancel_locked
     READY     RUNNING   a worker claims it (while tasks are short, up to      start_locked
                         GROUPCONC_BATCH_MAX at once)
     RUNNING   READY     its worker gives back a claim it has not started      unclaim_locked
                         (batch too slow, user code next, a blocking wait)
     RUNNING   DONE      a cancel takes a claimed task not yet started         take_or_flag_locked
                         (CANCELLED; the worker lets go, see TAKEN)
     RUNNING   DONE      it returned: its worker, or a helper, finishes it     finish_locked,
                                                                               help_locked
     RUNNING   DEFERRED  its body deferred and returned PENDING before the     run
                         completion came: parked in its shard's deferred,
                         permits kept
     DEFERRED  RUNNING   groupconc_deferred_complete, then as "it returned"    groupconc_deferred_
                                                                               complete
     REJECTED  READY     CALLER_RUNS on a worker: queued again, no permits     settle_rejected
     REJECTED  DONE      task_cancel while its CALLER_RUNS rejection is being  groupconc_task_cancel,
                         handled, before its REJECTED event (CANCELLED); the   settle_rejected,
                         thread handling it, after the event, if it was        submit_rejected
                         flagged meanwhile or an immediate shutdown came
                         (CANCELLED, never run)
   A serial run and a chain (worker pool, "serial runs") move a waiter QUEUED -> NEW -> READY ->
   RUNNING in one locked step (chain_admit_locked, serial_promote_locked; chain_end_locked for the
   tasks a chain committed to, which go on to DONE there), and finish a task RUNNING -> DONE with
   its concurrency permit kept for the next waiter (serial_finish_locked).
   At the fleet layer a QUEUED task changes no stage while it is asked for (ST_FLEET_REF), answered
   BUSY (B_FLEET_BUSY set, or GRANTED while its group is paused: the lease given back at once),
   asked again (a notify naming its group or none, the resume, a REJECT or OPEN answer to another
   task of its group, or a BUSY answer after a notify came while the request was out: GF_NOTIFIED). A task taken there (cancel, shutdown, evict, its deadline)
   leaves as from any layer; the answer that comes later finds it no longer QUEUED.
   A task rejected under ABORT or DISCARD, or with a rejection handler, is completed from REJECTED
   by the thread handling the rejection, which owns it. Under CALLER_RUNS (no handler) that thread
   lists it in its shard's caller_running from its REJECTED event until it is queued again, runs
   (inside submit) or is cancelled, so that a shutdown, a group shutdown or a cancel can flag it
   (B_SETTLING: a cancel only flags it then).

   State bits (t->state; "taker": a cancel, a sweep or an idle worker's steal):
     bit         set by (order)                          cleared by (order)        means
     EXEC_REF    submit (task_init)                      complete (acq_rel)        the executor uses it
     HANDLE_REF  submit with out_task (task_init)        task_release (acq_rel)    the user's handle
     CLAIM_REF   the taker, with TAKEN (acq_rel)         the former holder:        the holder's
                                                         drop_claim_ref (acq_rel)  reference
     STARTED     its worker before running it, fetch_or;  never                    it runs or ran
                 steal_locked with TAKEN; submit before
                 a CALLER_RUNS run in submit (acq_rel)
     TAKEN       take_or_flag_locked / steal_locked CAS; never                     taken from its
                 task_cancel of a REJECTED CALLER_RUNS                             holder
                 task (acq_rel)
     CANCEL      take_or_flag_locked, task_cancel,       never                     flag (cooperative);
                 sweeps of deferred and caller_running,                            on a refusal not
                 a set's step (relaxed)                                            yet run: cancel
     WATCHED     task_wait / on_complete, under          never                     completion looks
                 done_lock (acq_rel)                                               at the watchers
     DONE        mark_done, after the COMPLETED event    never                     result final,
                 and the completion callbacks: a CAS                               callbacks ran
                 while unwatched, else under done_lock
                 (acq_rel: publishes the result); not
                 at all for a task the executor alone
                 holds (complete frees it at once)
     ARG_DONE    release_arg; apply_handler (arg_taken)  never                     cleanup ran or is
                 (fetch_or: exactly one runs it)                                   waived
   The race between starting and taking is decided on this one word: the worker's
   fetch_or(STARTED) and the taker's CAS, which requires STARTED and TAKEN clear, cannot both win.
   The loser lets go: a worker that finds TAKEN drops CLAIM_REF and never runs the task; a cancel
   that finds STARTED only sets CANCEL.
     FLEET_REF   fleet_ask_locked, under the lock, when   groupconc_fleet_answer   the provider's
                 a request goes out (relaxed: the lock)  (acq_rel; relaxed under  reference: a
                                                         the lock for BUSY)       request is out
   References: whoever clears the last of EXEC_REF, HANDLE_REF, CLAIM_REF and FLEET_REF frees the
   node (complete, groupconc_task_release, drop_claim_ref, groupconc_fleet_answer). Each is an
   acq_rel RMW, so the thread that frees has seen every write of the others.

   Bits (t->bits): HAS_ID, HAS_CLEANUP, COUNTED, OBSERVED are set by task_init before the task is
   visible (submit clears COUNTED under the lock for a task refused under ABORT); QUEUED_ONCE by
   admit, under the lock; RAN under the lock when a task that ran is finished (finish_locked: while it
   is listed in its shard's running, others read its bits under the lock), or by the thread that owns
   a task in no other list (a CALLER_RUNS run in submit, listed only in caller_running, which nobody
   reads bits through; a rejection handler's decision); NO_PERMITS under the lock (settle_rejected) or
   by the submitting thread for a CALLER_RUNS run in submit.
   HAS_DEADLINE and FLEET are set by task_init (a queue deadline; a provider in the policy: a fleet
   slot inline); LEASED under the lock by groupconc_fleet_answer (GRANTED), cleared by the
   completing thread when it gives the lease back (DONE, in no list: it owns the bits); FLEET_BUSY
   under the lock while the task waits at the fleet layer unasked (fleet_park_locked), cleared when
   it is asked again or leaves the layer (waiting_dec). SKIPPED under the lock by groupconc__run
   for a fork whose scope was shut down before it started. SETTLING under the lock by the thread
   settling a CALLER_RUNS refusal, from just before its REJECTED event until it is re-queued or
   completed (settle_rejected). UNDECIDED under the lock by reject_locked, for a refusal whose
   outcome a handler or CALLER_RUNS decides; cleared under the lock by the thread that owns it
   when the outcome is counted or the task queued again (groupconc__refusal_decided_locked).
   Whether a task passed the fleet layer is t->held > GROUPCONC__L_FLEET. */

/* t->stage (under ex->lock). */
enum {
    GROUPCONC__NEW = 0, /* inside submit, not yet visible to other threads */
    GROUPCONC__QUEUED,  /* waiting in the FIFO of layer t->held (GROUPCONC__L_*; at the fleet layer,
                           asked for or answered BUSY) */
    GROUPCONC__READY,   /* holds every permit (or none under CALLER_RUNS), in the ready queue */
    GROUPCONC__RUNNING, /* on a thread, linked in its shard's running */
    GROUPCONC__REJECTED, /* refused by a layer, permits returned; rejection handling is pending */
    GROUPCONC__DONE,    /* left the executor's queues; completion may still be in progress */
    GROUPCONC__DEFERRED  /* its body returned GROUPCONC_TASK_PENDING: off its worker, in its
                           shard's deferred, holding its permits until groupconc_deferred_complete */
};

/* t->state bits (atomic: read without the lock by handle functions). */
#define GROUPCONC__ST_DONE 1u         /* terminal; result fields are final */
#define GROUPCONC__ST_WATCHED 2u      /* a waiter or callback was registered: completion must look */
#define GROUPCONC__ST_CANCEL 4u       /* cancellation requested (cooperative) */
#define GROUPCONC__ST_HANDLE_REF 8u   /* the user's handle is alive */
#define GROUPCONC__ST_EXEC_REF 16u    /* the executor still uses the task */
#define GROUPCONC__ST_STARTED 32u     /* its worker committed to running it (one atomic RMW) */
#define GROUPCONC__ST_TAKEN 64u       /* a cancel or sweep completed it, or an idle worker took it over
                                         (steal_locked), while another thread still held it (a worker
                                         that had claimed but not started it, or the thread handling
                                         its CALLER_RUNS rejection): that holder lets go of it by
                                         dropping CLAIM_REF */
#define GROUPCONC__ST_CLAIM_REF 128u  /* the holder's reference, added when the task is taken */
#define GROUPCONC__ST_ARG_DONE 256u   /* its cleanup ran, or must not (a rejection handler took arg):
                                         one fetch_or decides who runs it, exactly once */
#define GROUPCONC__ST_FLEET_REF 512u  /* the fleet provider holds a request for it (under ex->lock) */
#define GROUPCONC__ST_REFS (GROUPCONC__ST_HANDLE_REF | GROUPCONC__ST_EXEC_REF | GROUPCONC__ST_CLAIM_REF | \
                            GROUPCONC__ST_FLEET_REF)

/* t->bits (written before the task is visible, or under the lock). */
#define GROUPCONC__B_HAS_ID 1u        /* task id stored inline after the struct */
#define GROUPCONC__B_NO_PERMITS 2u    /* running under CALLER_RUNS: holds no permits, not counted */
#define GROUPCONC__B_COUNTED 4u       /* counted in ex->unfinished */
#define GROUPCONC__B_RAN 8u           /* the function returned: end_ns and value are valid */
#define GROUPCONC__B_OBSERVED 16u     /* someone can see the result (a handle or a listener): its
                                         times are taken, groupconc__observed is inline first */
#define GROUPCONC__B_QUEUED_ONCE 32u  /* start_ns holds the time it first had to wait */
#define GROUPCONC__B_HAS_CLEANUP 64u  /* a groupconc_cleanup_fn stored inline after the struct */
#define GROUPCONC__B_HAS_DEADLINE 128u /* a groupconc__queue_deadline stored inline first after the struct */
#define GROUPCONC__B_FLEET 256u       /* a groupconc__fleet_slot inline after the deadline (a provider is set) */
#define GROUPCONC__B_LEASED 512u      /* holds a fleet lease (in its slot): given back at completion */
#define GROUPCONC__B_FLEET_BUSY 1024u /* QUEUED at the fleet layer unasked: answered BUSY or the group
                                         paused (counted in gfleet->busy of the group) */
#define GROUPCONC__B_SETTLING 2048u   /* REJECTED under CALLER_RUNS, its REJECTED event under way on the
                                         thread settling it: a cancel only flags it (that thread
                                         completes it CANCELLED after the event, not a re-run) */
#define GROUPCONC__B_SKIPPED 4096u    /* a fork whose scope was shut down before it started: run did
                                         not call it (not a CALLER_RUNS run: caller_runs skips it) */
#define GROUPCONC__B_UNDECIDED 8192u  /* refused, its outcome for a handler or CALLER_RUNS to decide:
                                         in no outcome counter yet, so counted in its group's
                                         cold->undecided (groupconc__refusal_decided_locked) */

/* The stage transitions allowed, as the table "Stage transitions" above lists them: row `from`, bit
   `to`. Every stage change goes through groupconc__set_stage, which checks it against this table
   under GROUPCONC_DEBUG (a debug build: the test suite, the fuzzer, the soak); .ci/check_lifecycle.py
   checks that this table and the comment's rows are the same set, and that the comment names every
   stage, state bit and plain bit defined here. */
#define GROUPCONC__TO(stage) (1u << (stage))
static const uint16_t groupconc__stage_next[] = {
    [GROUPCONC__NEW] = GROUPCONC__TO(GROUPCONC__QUEUED) | GROUPCONC__TO(GROUPCONC__READY) |
        GROUPCONC__TO(GROUPCONC__REJECTED),
    [GROUPCONC__QUEUED] = GROUPCONC__TO(GROUPCONC__NEW) | GROUPCONC__TO(GROUPCONC__REJECTED) |
        GROUPCONC__TO(GROUPCONC__DONE),
    [GROUPCONC__READY] = GROUPCONC__TO(GROUPCONC__RUNNING) | GROUPCONC__TO(GROUPCONC__DONE),
    [GROUPCONC__RUNNING] = GROUPCONC__TO(GROUPCONC__READY) | GROUPCONC__TO(GROUPCONC__DONE) |
        GROUPCONC__TO(GROUPCONC__DEFERRED),
    [GROUPCONC__REJECTED] = GROUPCONC__TO(GROUPCONC__READY) | GROUPCONC__TO(GROUPCONC__DONE),
    [GROUPCONC__DONE] = 0,
    [GROUPCONC__DEFERRED] = GROUPCONC__TO(GROUPCONC__RUNNING),
};
#define GROUPCONC__STAGES (sizeof groupconc__stage_next / sizeof groupconc__stage_next[0])

/* Move t to stage `to` (under ex->lock, or by the one thread that owns t). An illegal transition is
   a bug in this file: a debug build stops at GROUPCONC_ASSERT, naming it. */
GROUPCONC__FN void groupconc__set_stage(groupconc_task *t, unsigned to) {
#if GROUPCONC_DEBUG
    /* an illegal task stage transition: see the life-cycle table */
    GROUPCONC_ASSERT(t->stage < GROUPCONC__STAGES && to < GROUPCONC__STAGES &&
                     (groupconc__stage_next[t->stage] & GROUPCONC__TO(to)) != 0);
#endif
    t->stage = (uint8_t)to;
}

/* A task's queue deadline, inline after the struct when B_HAS_DEADLINE (under ex->lock). */
typedef struct groupconc__queue_deadline {
    uint64_t at_ns;                /* monotonic; 0 = none after all */
    uint32_t index;                /* its place in ex->keeper.timers, or one of: */
    uint32_t pad;
} groupconc__queue_deadline;
#define GROUPCONC__TIMER_NONE UINT32_MAX          /* not in the heap, no reservation */
#define GROUPCONC__TIMER_RESERVED (UINT32_MAX - 1) /* not in the heap, a slot reserved */

/* A task's fleet slot, inline after the deadline when B_FLEET. */
typedef struct groupconc__fleet_slot {
    uint64_t lease;                /* the provider's token while B_LEASED */
    groupconc_task *ask_next;      /* in a batch's (or this thread's) list of requests to make */
} groupconc__fleet_slot;

/* The inline extras, in this order: observed block, deadline, fleet slot, cleanup, task id. */
GROUPCONC__FN size_t groupconc__observed_size(const groupconc_task *t) {
    return (t->bits & GROUPCONC__B_OBSERVED) ? sizeof(groupconc__observed) : 0;
}

/* Only a task someone can see has one: a handle (the only way to wait or register a callback:
   task_init asserts that a handle means B_OBSERVED) or a listener (its COMPLETED event). Reads no
   bits: the handle functions run without the lock while a worker writes them under it. */
GROUPCONC__FN groupconc__observed *groupconc__observed_of(groupconc_task *t) {
    return (groupconc__observed *)(void *)(t + 1);
}

/* A FAILED task's result.error, kept where someone can see it (else nobody reads it). On the
   thread that owns t (its bits are not written meanwhile). */
GROUPCONC__FN void groupconc__set_error(groupconc_task *t, int error) {
    if (t->bits & GROUPCONC__B_OBSERVED) groupconc__observed_of(t)->error = error;
}

GROUPCONC__FN groupconc__queue_deadline *groupconc__deadline_of(groupconc_task *t) {
    return (t->bits & GROUPCONC__B_HAS_DEADLINE)
               ? (groupconc__queue_deadline *)(void *)((char *)(t + 1) + groupconc__observed_size(t))
               : NULL;
}

GROUPCONC__FN groupconc__fleet_slot *groupconc__fleet_of(groupconc_task *t) {
    return (groupconc__fleet_slot *)(void *)((char *)(t + 1) + groupconc__observed_size(t) +
                                             ((t->bits & GROUPCONC__B_HAS_DEADLINE)
                                                  ? sizeof(groupconc__queue_deadline)
                                                  : 0));
}

GROUPCONC__FN size_t groupconc__extras_before_cleanup(const groupconc_task *t) {
    return groupconc__observed_size(t) +
           ((t->bits & GROUPCONC__B_HAS_DEADLINE) ? sizeof(groupconc__queue_deadline) : 0) +
           ((t->bits & GROUPCONC__B_FLEET) ? sizeof(groupconc__fleet_slot) : 0);
}

GROUPCONC__FN const char *groupconc__task_id(const groupconc_task *t) {
    if (!(t->bits & GROUPCONC__B_HAS_ID)) return NULL;
    return (const char *)(t + 1) + groupconc__extras_before_cleanup(t) +
           ((t->bits & GROUPCONC__B_HAS_CLEANUP) ? sizeof(groupconc_cleanup_fn) : 0);
}

GROUPCONC__FN groupconc_cleanup_fn groupconc__cleanup_of(const groupconc_task *t) {
    groupconc_cleanup_fn fn = NULL;
    if (t->bits & GROUPCONC__B_HAS_CLEANUP)
        memcpy(&fn, (const char *)(t + 1) + groupconc__extras_before_cleanup(t), sizeof fn);
    return fn;
}

GROUPCONC__FN void groupconc__task_free(groupconc_task *t) {
    groupconc__group *g = t->group;
    GROUPCONC_FREE(t);
    if (g) groupconc__group_unref(g);
}

/* Whoever clears the last of HANDLE_REF, EXEC_REF and CLAIM_REF frees the task. */
GROUPCONC__FN void groupconc__drop_claim_ref(groupconc_task *t) {
    groupconc__st old = atomic_fetch_and_explicit(&t->state, (groupconc__st)~GROUPCONC__ST_CLAIM_REF,
                                                  memory_order_acq_rel);
    if ((old & GROUPCONC__ST_REFS) == GROUPCONC__ST_CLAIM_REF) groupconc__task_free(t);
}

GROUPCONC__FN void groupconc__push_ready(groupconc_executor *ex, groupconc_task *t) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__set_stage(t, GROUPCONC__READY);
    t->group->ready++;
    groupconc__fifo_push(&sh->ready, t);
    GROUPCONC__READY_MIRROR(sh);
}

/* One task fewer waiting at `layer` (which counts it: the group, or the executor). */
GROUPCONC__FN void groupconc__waiting_dec(groupconc_executor *ex, groupconc_task *w, int layer) {
    groupconc__shard *sh = groupconc__shard_of(ex, w->group);
    if (layer == GROUPCONC__L_GLOBAL) {
        w->group->queues->waiting_global--; /* it waited there: g has its queues */
    } else if (layer == GROUPCONC__L_RUNNING) {
        w->group->queues->waiting_running--;
    } else if (layer == GROUPCONC__L_FLEET) {
        groupconc__group_fleet *gf = groupconc__gfleet(w->group);
        if (--gf->waiting == 0) w->group->flags &= (uint8_t)~GROUPCONC__GF_NOTIFIED;
        if (w->bits & GROUPCONC__B_FLEET_BUSY) {
            gf->busy--;
            w->bits &= (uint16_t)~GROUPCONC__B_FLEET_BUSY;
        }
    } else {
        sh->waiting_groups--; /* bulkhead and concurrency */
    }
}

/* Whether a refusal with `reason` is the task's outcome at once, and counted as such: an expiry (no
   handler, no CALLER_RUNS: a queue deadline is a promise not to run late) or a refusal under ABORT
   or DISCARD. Otherwise a rejection handler or CALLER_RUNS decides the outcome later, and whoever
   settles it counts it then (groupconc__apply_handler, the run's end, a cancel): the counters never
   count an outcome that is still open, nor go down. Meanwhile the task is in its group's
   cold->undecided (B_UNDECIDED), which the group's submitted adds. */
GROUPCONC__FN bool groupconc__refusal_counted(const groupconc_policy *p, int reason) {
    return groupconc__is_expiry(reason) || (!p->reject_handler && p->rejection != GROUPCONC_REJECT_CALLER_RUNS);
}

GROUPCONC__FN void groupconc__reject_locked(groupconc_executor *ex, groupconc_task *t, int reason,
                                            groupconc__batch *b) {
    groupconc__timer_drop(ex, t);
    groupconc__release_permits(ex, t, b); /* before any rejection handling runs */
    t->status = GROUPCONC_STATUS_REJECTED;
    GROUPCONC_ASSERT(reason >= -UINT8_MAX && reason < 0);
    t->reject_code = (uint8_t)-reason; /* result.reason (result.error is a FAILED task's alone) */
    t->start_ns = groupconc__now_ns();
    groupconc__set_stage(t, GROUPCONC__REJECTED);
    if (groupconc__refusal_counted(&ex->policy, reason))
        groupconc__count_locked(ex, t->group, groupconc__outcome_index(GROUPCONC_STATUS_REJECTED, reason), 1);
    else if (groupconc__group_cold_get(t->group)) { /* no memory: the group's submitted dips meanwhile */
        t->group->cold->undecided++;
        groupconc__shard_of(ex, t->group)->refusing++;
        t->bits |= GROUPCONC__B_UNDECIDED;
        if (t->start_ns <= t->group->cold->swept_ns) /* the clock did not move since a sweep: this */
            t->start_ns = t->group->cold->swept_ns + 1; /* refusal comes after it (see swept_ns) */
        if (t->start_ns > t->group->cold->refused_ns) t->group->cold->refused_ns = t->start_ns;
    }
    groupconc__fifo_push(&b->rejected, t);
}

/* A refusal's outcome is decided (counted, or the task is ready for its CALLER_RUNS re-run, in the
   group's gauges again): it leaves the group's undecided. Under ex->lock, by the thread that owns
   the task's bits. */
GROUPCONC__FN void groupconc__refusal_decided_locked(groupconc_task *t) {
    if (!(t->bits & GROUPCONC__B_UNDECIDED)) return;
    t->bits &= (uint16_t)~GROUPCONC__B_UNDECIDED;
    t->group->cold->undecided--;
    groupconc__shard_of(t->group->exec, t->group)->refusing--;
}

/* Take a not-yet-started task out of whatever queue holds it. Permits are not released here, so a
   sweep can unlink all its victims before handing anything on. */
GROUPCONC__FN void groupconc__unlink_waiting(groupconc_executor *ex, groupconc_task *t) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    if (t->stage == GROUPCONC__QUEUED) {
        groupconc__fifo_remove(groupconc__waiters_of(ex, t->group, t->held), t);
        groupconc__waiting_dec(ex, t, t->held);
    } else {
        GROUPCONC_ASSERT(t->stage == GROUPCONC__READY);
        groupconc__fifo_remove(&sh->ready, t);
        GROUPCONC__READY_MIRROR(sh);
        t->group->ready--;
    }
}

GROUPCONC__FN void groupconc__cancel_locked(groupconc_executor *ex, groupconc_task *t,
                                            groupconc__batch *b) {
    groupconc__timer_drop(ex, t);
    groupconc__release_permits(ex, t, b);
    t->status = GROUPCONC_STATUS_CANCELLED;
    t->start_ns = groupconc__now_ns();
    groupconc__set_stage(t, GROUPCONC__DONE);
    groupconc__count_locked(ex, t->group, GROUPCONC__C_CANCELLED, 1);
    groupconc__fifo_push(&b->todo, t);
}

/* A task in its shard's running that its worker has not started yet (ST_STARTED unset) is taken: it
   never runs, is unlinked, and completes CANCELLED through `b`; its worker sees ST_TAKEN and lets go.
   One already started is flagged (cooperative). The CAS and the worker's fetch_or(ST_STARTED) on the
   same word decide which, exactly once. Returns true if taken. Under the lock. */
GROUPCONC__FN bool groupconc__take_or_flag_locked(groupconc_executor *ex, groupconc_task *t,
                                                  groupconc__batch *b) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__st cur = atomic_load_explicit(&t->state, memory_order_acquire);
    for (;;) {
        if (cur & GROUPCONC__ST_STARTED) {
            atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
            return false;
        }
        if (atomic_compare_exchange_weak_explicit(
                &t->state, &cur,
                cur | GROUPCONC__ST_CANCEL | GROUPCONC__ST_TAKEN | GROUPCONC__ST_CLAIM_REF,
                memory_order_acq_rel, memory_order_acquire))
            break;
    }
    groupconc__fifo_remove(&sh->running, t);
    if (!(t->bits & GROUPCONC__B_NO_PERMITS)) {
        sh->nrunning--;
        t->group->running--;
    }
    groupconc__cancel_locked(ex, t, b);
    return true;
}

GROUPCONC__FN void groupconc__sweep_group_queues(groupconc_executor *ex, groupconc__group *h,
                                                 groupconc__fifo *victims) {
    groupconc_task *t;
    if (!h->queues) return;
    while ((t = h->queues->bulkhead.head) != NULL) {
        groupconc__unlink_waiting(ex, t);
        groupconc__fifo_push(victims, t);
    }
    while ((t = h->queues->conc.head) != NULL) {
        groupconc__unlink_waiting(ex, t);
        groupconc__fifo_push(victims, t);
    }
}

/* Move g's tasks (every task when g is NULL) from a queue all groups share (global in-flight's or global running's
   FIFO, the ready queue) to `victims`. */
GROUPCONC__FN void groupconc__sweep_shared(groupconc_executor *ex, groupconc__fifo *q,
                                           const groupconc__group *g, groupconc__fifo *victims) {
    groupconc_task *t, *next;
    for (t = q->head; t; t = next) {
        next = t->next;
        if (!g || t->group == g) {
            groupconc__unlink_waiting(ex, t);
            groupconc__fifo_push(victims, t);
        }
    }
}

/* Cancel every not-started task of group g (all groups when g is NULL) and flag the running ones. */
GROUPCONC__FN void groupconc__sweep_locked(groupconc_executor *ex, groupconc__group *g,
                                           groupconc__batch *b) {
    groupconc__fifo victims = {NULL, NULL, 0};
    groupconc_task *t, *next;
    groupconc__group *each;
    groupconc__shard *sh;
    size_t s = 0, i = 0;
    if (!g || groupconc__waiting_global_of(g) > 0) groupconc__sweep_shared(ex, &ex->global.waiters, g, &victims);
    if (!g || groupconc__waiting_running_of(g) > 0) groupconc__sweep_shared(ex, &ex->run_cap.waiters, g, &victims);
    if (g) {
        groupconc__sweep_group_queues(ex, g, &victims);
    } else {
        groupconc__table_lock_all(ex);
        while ((each = groupconc__table_next(ex, &s, &i)) != NULL)
            groupconc__sweep_group_queues(ex, each, &victims);
        groupconc__table_unlock_all(ex);
    }
    if (g && g->ready > 0) groupconc__sweep_shared(ex, &groupconc__shard_of(ex, g)->ready, g, &victims);
    else if (!g) GROUPCONC__EACH_SHARD(ex, sh) groupconc__sweep_shared(ex, &sh->ready, NULL, &victims);
    if (!g || groupconc__fleet_waiting(g) > 0) groupconc__sweep_shared(ex, &ex->fleet.layer.waiters, g, &victims);
    while ((t = groupconc__fifo_pop(&victims)) != NULL) groupconc__cancel_locked(ex, t, b);
    if (g && g->cold && g->cold->undecided) { /* refusals in settling threads' batches: swept_ns */
        uint64_t now = groupconc__now_ns(), at = g->cold->swept_ns + 1;
        if (at < g->cold->refused_ns) at = g->cold->refused_ns;
        g->cold->swept_ns = now > at ? now : at;
    }
    GROUPCONC__EACH_SHARD(ex, sh) {
        if (g && sh != groupconc__shard_of(ex, g)) continue;
        for (t = sh->running.head; t; t = next) { /* after the queues: what it frees goes nowhere */
            next = t->next;
            if (!g || t->group == g) (void)groupconc__take_or_flag_locked(ex, t, b);
        }
        for (t = sh->deferred.head; t; t = t->next) /* off their workers: only flagged */
            if (!g || t->group == g)
                atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
        for (t = sh->caller_running.head; t; t = t->next) /* on their submitters: likewise */
            if (!g || t->group == g)
                atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
    }
    groupconc__pump(ex, b);
}

/* t was just popped from its shard's ready. */
GROUPCONC__FN void groupconc__start_locked(groupconc_executor *ex, groupconc_task *t) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__set_stage(t, GROUPCONC__RUNNING);
    t->group->ready--;
    groupconc__fifo_push(&sh->running, t);
    if (!(t->bits & GROUPCONC__B_NO_PERMITS)) {
        sh->nrunning++;
        t->group->running++;
    }
}

/* Undo start_locked for tasks the worker took but has not run: back to the head of the ready
   queue, in their order (they keep their place), for an idle or new worker. Under the lock. A task a
   cancel took meanwhile is let go instead. */
GROUPCONC__FN void groupconc__unclaim_locked(groupconc_executor *ex, groupconc__claims *claims) {
    groupconc__shard *sh;
    while (claims->count > 0) {
        groupconc_task *t = claims->t[claims->head + --claims->count]; /* newest first */
        if (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_TAKEN) {
            groupconc__drop_claim_ref(t);
            continue;
        }
        sh = groupconc__shard_of(ex, t->group);
        groupconc__fifo_remove(&sh->running, t);
        if (!(t->bits & GROUPCONC__B_NO_PERMITS)) {
            sh->nrunning--;
            t->group->running--;
        }
        groupconc__set_stage(t, GROUPCONC__READY);
        t->group->ready++;
        groupconc__fifo_push_front(&sh->ready, t);
        GROUPCONC__READY_MIRROR(sh);
    }
    claims->head = 0;
    (void)groupconc__kick_locked(ex);
}

/* User code is next on this thread, outside any task's body (a fleet release, a cleanup, a listener's
   event, completion callbacks, a rejection handler): on a worker of ex between its batches
   (busy_since NOT_BUSY, or 0 after an idle turn) its busy_since takes the clock, as a task's
   start would, so that the watch sees it should that code block (groupconc__asleep_in_task):
   showing NOT_BUSY, a worker asleep in a COMPLETED event or a callback never let the pool grow,
   and a task that would have woken it waited behind it for good (found by a hunt helper). Its
   next batch, or the NOT_BUSY store after it, puts it back. Elsewhere (a body's call, another
   thread): nothing. */
GROUPCONC__FN void groupconc__user_code_next(const groupconc_executor *ex) {
    groupconc__worker *w = groupconc__my_worker;
    uint64_t since;
    if (!w || w->exec != ex) return;
    since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
    if (since == 0 || since == GROUPCONC__NOT_BUSY)
        atomic_store_explicit(&w->busy_since, groupconc__now_ns(), memory_order_relaxed);
}

/* The same before user code runs on a worker (listener, callbacks, rejection handlers), so that it
   may wait on those tasks; and the worker shows that it runs it (groupconc__user_code_next). Takes
   the lock. */
GROUPCONC__FN void groupconc__give_back(groupconc_executor *ex, groupconc__claims *claims) {
    groupconc__user_code_next(ex);
    if (!claims || claims->count == 0) return;
    groupconc__exec_lock(ex);
    groupconc__unclaim_locked(ex, claims);
    groupconc__exec_unlock(ex);
}

/* The task returned: leave the running list, hand its permits on. Under the lock. */
GROUPCONC__HOT void groupconc__finish_locked_inline(groupconc_executor *ex, groupconc_task *t,
                                                    groupconc__batch *b) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    t->bits |= GROUPCONC__B_RAN; /* its value and end time are valid (see groupconc__set_result) */
    groupconc__fifo_remove(&sh->running, t);
    if (!(t->bits & GROUPCONC__B_NO_PERMITS)) {
        sh->nrunning--;
        t->group->running--;
    } else if (!(t->bits & GROUPCONC__B_SKIPPED)) { /* a CALLER_RUNS re-run: it ran */
        groupconc__count_caller_run_locked(ex, t->group);
    }
    groupconc__release_permits(ex, t, b);
    groupconc__pump(ex, b);
    groupconc__debug_check(ex, t->group);
    groupconc__set_stage(t, GROUPCONC__DONE);
    groupconc__count_locked(ex, t->group, groupconc__outcome_index(t->status, 0), 1);
}

/* The one copy for every caller; a worker's batch inlines the body (groupconc__worker_finish_locked). */
GROUPCONC__FN void groupconc__finish_locked(groupconc_executor *ex, groupconc_task *t, groupconc__batch *b) {
    groupconc__finish_locked_inline(ex, t, b);
}

/* ==== layers: admission and hand-off =========================================================== */
/* All of this runs under ex->lock. A layer (GROUPCONC__L_*, in order) is held by a task when it
   comes before t->held. A permit is checked and taken in one locked step (no check-then-act
   window), and a hand-off moves the permit with `used` unchanged (never counted twice).
     layer                     semaphore     shut while                 queue bounded by
     GROUPCONC__L_GLOBAL       ex->global    -                          global_queue_threshold,
                                                                        max_waiting
     GROUPCONC__L_BULKHEAD     g->bulkhead   -                          the group's threshold (its
                                                                        two queues), max_waiting
     GROUPCONC__L_CONCURRENCY  g->conc       the group/executor paused  the same
     GROUPCONC__L_FLEET        ex->fleet.    the group/executor paused  max_waiting (module "fleet
                               layer         (asks nothing)             layer")
     GROUPCONC__L_RUNNING      ex->run_cap   the task's group/executor  max_waiting
                                             paused
   A shut layer hands out nothing: its waiters keep their places. The fleet layer is asynchronous:
   its permit is asked for, not taken, and a release there hands nothing on (next_waiter); only the
   provider's answer moves its waiters (groupconc_fleet_answer). At global running (one FIFO for all
   groups) a released permit goes to the oldest waiter whose group is not paused, and a new task may
   take a free permit past paused waiters: invariant, whenever run_cap has a free permit, every
   waiter in its FIFO belongs to a paused group. `used` may exceed `limit` after a live lowering:
   a release then only counts down (no preemption, nothing new starts until it is under). The
   common task passes the table in one step each way: admitted with every layer free and nobody
   waiting (groupconc__admit_at_once_locked), released with nobody waiting at a layer it holds (the
   top of groupconc__release_permits); the same permits, counted the same way. */

/* Tasks waiting at any layer, the fleet layer's too, all groups: what max_waiting bounds. A task
   moves from the fleet layer to global running without the count growing (else a granted task could pass
   the bound there, never checked again). */
GROUPCONC__FN size_t groupconc__waiting_total(const groupconc_executor *ex) {
    const groupconc__shard *sh;
    size_t n = ex->global.waiters.count + ex->run_cap.waiters.count + ex->fleet.layer.waiters.count;
    GROUPCONC__EACH_SHARD(ex, sh) n += sh->waiting_groups;
    return n;
}

/* The executor's counts over every shard (its calls that see everything hold every shard's lock). */
typedef struct groupconc__totals {
    size_t ready, running, deferred, nrunning, unfinished;
    uint64_t retired;
    groupconc__counters counts;
} groupconc__totals;

GROUPCONC__FN groupconc__totals groupconc__totals_locked(const groupconc_executor *ex) {
    groupconc__totals all;
    const groupconc__shard *sh;
    int i;
    memset(&all, 0, sizeof all);
    GROUPCONC__EACH_SHARD(ex, sh) {
        all.ready += sh->ready.count;
        all.running += sh->running.count;
        all.deferred += sh->deferred.count;
        all.nrunning += sh->nrunning;
        all.counts.submitted += sh->counts.submitted;
        all.counts.admitted += sh->counts.admitted;
        all.counts.caller_runs += sh->counts.caller_runs;
        all.counts.rejected_other += sh->counts.rejected_other;
        all.counts.groups_reclaimed += sh->counts.groups_reclaimed;
        all.counts.unattributed += sh->counts.unattributed;
        for (i = 0; i < GROUPCONC__C_OUTCOMES; i++) all.counts.outcome[i] += sh->counts.outcome[i];
    }
#if GROUPCONC__SHARDS > 1
    all.unfinished = atomic_load_explicit(&ex->unfinished, memory_order_seq_cst); /* executor-wide */
    all.retired = atomic_load_explicit(&ex->retired, memory_order_relaxed);
#else
    all.unfinished = GROUPCONC__UNFINISHED(ex); /* executor-wide (see its field) */
    all.retired = GROUPCONC__RETIRED(ex);
#endif
    return all;
}

/* Ready tasks, every shard's, and running ones likewise (listed in a shard's running: claimed, not
   necessarily started): what a per-task path that names no group looks at (kick_locked, a worker's
   serial step and sleep, the watch). Under the lock. With one shard, shard 0's count itself. */
#if GROUPCONC__SHARDS == 1
#define GROUPCONC__READY_COUNT(ex) ((ex)->shards[0].ready.count)
#define GROUPCONC__RUNNING_COUNT(ex) ((ex)->shards[0].running.count)
#else
#define GROUPCONC__READY_COUNT(ex) groupconc__ready_count_locked(ex)
#define GROUPCONC__RUNNING_COUNT(ex) groupconc__running_count_locked(ex)
GROUPCONC__FN size_t groupconc__ready_count_locked(const groupconc_executor *ex) {
    const groupconc__shard *sh;
    size_t n = 0;
    GROUPCONC__EACH_SHARD(ex, sh) {
        /* each change of a ready queue mirrored (the whole suite checks it at N shards) */
        GROUPCONC_ASSERT(atomic_load_explicit(&sh->nready, memory_order_relaxed) == sh->ready.count);
        n += sh->ready.count;
    }
    return n;
}

/* Every shard's ready tasks as their mirrors say (sh->nready), without their locks: the sleeper's
   look (groupconc__work_wait). seq_cst, against the mirror's store in a kicker. */
GROUPCONC__FN size_t groupconc__ready_mirrored(groupconc_executor *ex) {
    groupconc__shard *sh;
    size_t n = 0;
    GROUPCONC__EACH_SHARD(ex, sh) n += atomic_load_explicit(&sh->nready, memory_order_seq_cst);
    return n;
}

GROUPCONC__FN size_t groupconc__running_count_locked(const groupconc_executor *ex) {
    const groupconc__shard *sh;
    size_t n = 0;
    GROUPCONC__EACH_SHARD(ex, sh) n += sh->running.count;
    return n;
}
#endif

/* Every shard as worker w sees them: its home shard first (k 0), then the others in index order
   after it, wrapping around. */
#if GROUPCONC__SHARDS == 1
#define groupconc__shard_from(ex, w, k) ((void)(w), (void)(k), &(ex)->shards[0])
#else
#define groupconc__shard_from(ex, w, k) (&(ex)->shards[((w)->home + (k)) & (GROUPCONC__SHARDS - 1)])
#endif
#define GROUPCONC__EACH_SHARD_FROM(ex, w, k, sh)                                                      \
    for ((k) = 0; (k) < GROUPCONC__SHARDS && ((sh) = groupconc__shard_from(ex, w, k), 1); (k)++)

/* The shard whose ready tasks worker w takes: its home shard, else the first other one (in the order
   above) with ready tasks; the home shard when none has any. So no worker finds nothing to do while
   any shard has a ready task. But every GROUPCONC__SHARD_TURN-th claim looks first at the next shard
   in turn (w->turn, then the ones after it): a home shard that never runs dry (a group that submits
   again from its tasks) must not keep another shard's ready tasks waiting for ever; each shard is
   looked at first within TURN * SHARDS claims of any one worker (review helper-61). */
#if GROUPCONC__SHARDS == 1
#define groupconc__ready_shard_locked(ex, w) groupconc__home_shard(ex, w)
#else
#define GROUPCONC__SHARD_TURN 8u
GROUPCONC__FN groupconc__shard *groupconc__ready_shard_locked(groupconc_executor *ex, groupconc__worker *w) {
    unsigned first = w->home, k;
    if (++w->claims % GROUPCONC__SHARD_TURN == 0) first = w->turn++ & (GROUPCONC__SHARDS - 1);
    for (k = 0; k < GROUPCONC__SHARDS; k++) {
        groupconc__shard *sh = &ex->shards[(first + k) & (GROUPCONC__SHARDS - 1)];
        if (sh->ready.count) return sh;
    }
    return groupconc__home_shard(ex, w);
}
#endif

/* The waiter of layer `layer` that a free permit goes to: the oldest one not shut out, or NULL. */
GROUPCONC__FN groupconc_task *groupconc__next_waiter(groupconc_executor *ex, groupconc__group *g,
                                                     int layer) {
    groupconc_task *w = groupconc__waiters_of(ex, g, layer)->head;
    if (layer == GROUPCONC__L_FLEET) return NULL; /* asked for: only the provider's answer hands on */
    if (layer == GROUPCONC__L_CONCURRENCY && w && groupconc__paused(ex, g)) return NULL;
    if (layer == GROUPCONC__L_RUNNING) {
        if (ex->paused) return NULL;
        while (w && (w->group->flags & GROUPCONC__GF_PAUSED)) w = w->next;
    }
    return w;
}

/* Give w the permit of its current layer (`used` unchanged by the caller, or raised by one when the
   permit was free): it moves on at the caller's next pump. */
GROUPCONC__FN void groupconc__hand(groupconc_executor *ex, groupconc_task *w, int layer,
                                   groupconc__batch *b) {
    groupconc__fifo_remove(groupconc__waiters_of(ex, w->group, layer), w);
    groupconc__waiting_dec(ex, w, layer);
    GROUPCONC_ASSERT(w->held == layer);
    w->held++;
    groupconc__set_stage(w, GROUPCONC__NEW);
    groupconc__fifo_push(&b->advance, w);
}

/* Return one permit of layer `layer` of group g (a task's, or a gate permit's). A freed permit
   goes to that layer's next waiter, which joins b->advance to try the next layer once the caller
   pumps. */
GROUPCONC__FN void groupconc__release_layer(groupconc_executor *ex, groupconc__group *g, int layer,
                                            groupconc__batch *b) {
    groupconc__permits *s = groupconc__permits_of(ex, g, layer);
    groupconc_task *w = groupconc__waiters_of(ex, g, layer)->count > 0 && s->used <= s->limit
                            ? groupconc__next_waiter(ex, g, layer)
                            : NULL;
    if (w) {
        groupconc__hand(ex, w, layer, b);
    } else {
        s->used--;
        GROUPCONC_ASSERT(s->used >= 0);
    }
}

/* Hand the free permits of layer `layer` to its waiters, oldest first: after a limit was raised or
   a pause lifted. Returns how many were handed; the caller pumps. */
GROUPCONC__FN size_t groupconc__fill_layer(groupconc_executor *ex, groupconc__group *g, int layer,
                                           groupconc__batch *b) {
    groupconc__permits *s = groupconc__permits_of(ex, g, layer);
    groupconc_task *w;
    size_t n = 0;
    while (s->used < s->limit && (w = groupconc__next_waiter(ex, g, layer)) != NULL) {
        s->used++;
        groupconc__hand(ex, w, layer, b);
        n++;
    }
    return n;
}

/* Return every permit t holds, newest layer first, layer by layer (groupconc__release_permits, when
   t holds only some layers or someone waits at one). At the fleet layer only a task with a
   provider took a permit (its answer's hand-off), and a release there hands nothing on
   (next_waiter). */
GROUPCONC__FN void groupconc__release_layers(groupconc_executor *ex, groupconc_task *t,
                                             groupconc__batch *b) {
    if (t->held > GROUPCONC__L_FLEET) {
        while (t->held > GROUPCONC__L_FLEET + 1) groupconc__release_layer(ex, t->group, --t->held, b);
        t->held = GROUPCONC__L_FLEET;
        if (t->bits & GROUPCONC__B_FLEET) ex->fleet.layer.permits.used--;
    }
    while (t->held > 0) groupconc__release_layer(ex, t->group, --t->held, b);
}

/* Return every permit t holds: the common case here, inline, else groupconc__release_layers. */
GROUPCONC__HOT void groupconc__release_permits(groupconc_executor *ex, groupconc_task *t,
                                               groupconc__batch *b) {
    const groupconc__group_queues *q = t->group->queues;
    if (t->held == GROUPCONC__LAYERS && ex->global.waiters.count == 0 && ex->run_cap.waiters.count == 0 &&
        (!q || (q->bulkhead.count == 0 && q->conc.count == 0))) {
        /* the common case in one step: nobody waits at a layer it holds, so each permit is only
           counted down (what release_layer does for each, newest first, without a waiter) */
        ex->run_cap.permits.used--;
        if (t->bits & GROUPCONC__B_FLEET) ex->fleet.layer.permits.used--;
        t->group->conc.used--;
        t->group->bulkhead.used--;
        ex->global.permits.used--;
        GROUPCONC_ASSERT(ex->run_cap.permits.used >= 0 && t->group->conc.used >= 0 &&
                         t->group->bulkhead.used >= 0 && ex->global.permits.used >= 0);
        t->held = 0;
        return;
    }
    groupconc__release_layers(ex, t, b);
}

/* ---- queue deadlines: a binary min-heap of waiting tasks, by deadline ----
   A task with a deadline reserves a heap slot at submit (the only place that can report ENOMEM),
   enters the heap when it first has to wait, and leaves it when it gets its last permit, is
   rejected or cancelled, or expires. The housekeeper thread sleeps until the earliest deadline. */

GROUPCONC__FN void groupconc__timer_set(groupconc_executor *ex, size_t i, groupconc_task *t) {
    ex->keeper.timers[i] = t;
    groupconc__deadline_of(t)->index = (uint32_t)i;
}

GROUPCONC__FN uint64_t groupconc__timer_at(groupconc_executor *ex, size_t i) {
    return groupconc__deadline_of(ex->keeper.timers[i])->at_ns;
}

GROUPCONC__FN void groupconc__timer_sift(groupconc_executor *ex, size_t i) {
    groupconc_task *t = ex->keeper.timers[i];
    uint64_t at = groupconc__deadline_of(t)->at_ns;
    while (i > 0 && groupconc__timer_at(ex, (i - 1) / 2) > at) { /* up */
        groupconc__timer_set(ex, i, ex->keeper.timers[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) { /* down */
        size_t c = 2 * i + 1;
        if (c >= ex->keeper.ntimers) break;
        if (c + 1 < ex->keeper.ntimers && groupconc__timer_at(ex, c + 1) < groupconc__timer_at(ex, c)) c++;
        if (groupconc__timer_at(ex, c) >= at) break;
        groupconc__timer_set(ex, i, ex->keeper.timers[c]);
        i = c;
    }
    groupconc__timer_set(ex, i, t);
}

/* t starts waiting: into the heap (once), and wake the housekeeper if it is now the earliest. */
GROUPCONC__FN void groupconc__timer_add(groupconc_executor *ex, groupconc_task *t) {
    groupconc__queue_deadline *d = groupconc__deadline_of(t);
    if (!d || d->index != GROUPCONC__TIMER_RESERVED) return;
    GROUPCONC_ASSERT(ex->keeper.ntimers < ex->keeper.timers_cap);
    ex->keeper.timers[ex->keeper.ntimers] = t;
    d->index = (uint32_t)ex->keeper.ntimers++;
    groupconc__timer_sift(ex, d->index);
    if (d->at_ns < ex->keeper.wake) groupconc__cond_signal(&ex->keeper.cv);
}

/* t no longer waits for permits: out of the heap, its reservation returned. */
GROUPCONC__FN void groupconc__timer_drop_deadline(groupconc_executor *ex, groupconc_task *t) {
    groupconc__queue_deadline *d = groupconc__deadline_of(t);
    size_t i;
    if (!d || d->index == GROUPCONC__TIMER_NONE) return;
    if (d->index != GROUPCONC__TIMER_RESERVED) {
        i = d->index;
        ex->keeper.ntimers--;
        if (i < ex->keeper.ntimers) {
            groupconc__timer_set(ex, i, ex->keeper.timers[ex->keeper.ntimers]);
            groupconc__timer_sift(ex, i);
        }
    }
    ex->keeper.ntimers_reserved--;
    d->index = GROUPCONC__TIMER_NONE;
}
GROUPCONC__HOT void groupconc__timer_drop(groupconc_executor *ex, groupconc_task *t) {
    /* the check inline, the work out of line: rare */
    if (t->bits & GROUPCONC__B_HAS_DEADLINE) groupconc__timer_drop_deadline(ex, t);
}

/* t holds its group's permits (held == GROUPCONC__L_FLEET): with a provider it waits at the fleet
   layer (true: admission stops here, the answer hands the permit on); without one it passes at
   once, taking nothing (release_permits skips it likewise). Checked where held reaches the layer,
   not on every turn of admit's loop: the common task has no provider. */
GROUPCONC__FN bool groupconc__fleet_pass_locked(groupconc_executor *ex, groupconc_task *t,
                                               groupconc__batch *b) {
    if (t->bits & GROUPCONC__B_FLEET) {
        groupconc__fleet_enter_locked(ex, t, b);
        return true;
    }
    t->held++;
    return false;
}

/* The common admission in one step: a new task whose every layer has a free permit and nobody
   waiting, no pause and no fleet provider takes them all and is ready (what admit's loop below does
   in five turns, tested first, taken after: the same result). False, with nothing done, otherwise. */
GROUPCONC__HOT bool groupconc__admit_at_once_locked(groupconc_executor *ex, groupconc_task *t) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__group *g = t->group;
    const groupconc__group_queues *q = g->queues;
    if ((t->bits & GROUPCONC__B_FLEET) || groupconc__paused(ex, g) ||
        ex->global.permits.used >= ex->global.permits.limit || ex->global.waiters.count ||
        g->bulkhead.used >= g->bulkhead.limit || g->conc.used >= g->conc.limit ||
        (q && (q->bulkhead.count || q->conc.count)) || ex->run_cap.permits.used >= ex->run_cap.permits.limit)
        return false;
    ex->global.permits.used++;
    g->bulkhead.used++;
    g->conc.used++;
    ex->run_cap.permits.used++; /* the fleet layer passed taking nothing (no provider) */
    t->held = GROUPCONC__LAYERS;
    g->admitted++;
    sh->counts.admitted++;
    groupconc__timer_drop(ex, t);
    groupconc__push_ready(ex, t);
    return true;
}

/* Move t through the layers from t->held on: take each permit that is free with nobody waiting
   (and the layer not shut), else wait in that layer's FIFO if its queue bounds allow, else reject. */
GROUPCONC__HOT void groupconc__admit_inline(groupconc_executor *ex, groupconc_task *t, groupconc__batch *b) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__group *g = t->group;
    unsigned held = t->held; /* in a register: t->held is a byte, which every store may alias */
    if (held == 0 && groupconc__admit_at_once_locked(ex, t)) return;
    if (held == GROUPCONC__L_FLEET) { /* handed its concurrency permit (pump): the fleet is next */
        if (groupconc__fleet_pass_locked(ex, t, b)) return;
        held = t->held;
    }
    while (held < GROUPCONC__LAYERS) {
        int layer = (int)held, reason = 0;
        groupconc__permits *s = groupconc__permits_of(ex, g, layer);
        groupconc__fifo *q = groupconc__waiters_of(ex, g, layer);
        bool shut = layer >= GROUPCONC__L_CONCURRENCY && groupconc__paused(ex, g);
        /* global running: a free permit means every waiter there is paused (see the table above) */
        if (!shut && s->used < s->limit && (q->count == 0 || layer == GROUPCONC__L_RUNNING)) {
            s->used++;
            if (++held == GROUPCONC__L_FLEET) {
                t->held = (uint8_t)held;
                if (groupconc__fleet_pass_locked(ex, t, b)) return;
                held = t->held;
            }
            continue;
        }
        t->held = (uint8_t)held; /* what follows reads it: reject_locked, the layer's FIFO */
        if (layer == GROUPCONC__L_GLOBAL) {
            int thr = ex->policy.global_queue_threshold;
            if (thr != GROUPCONC_UNLIMITED && q->count >= (size_t)thr) reason = GROUPCONC_EREJECTED_GLOBAL;
        } else if (layer != GROUPCONC__L_RUNNING) { /* the group's threshold bounds both its queues */
            if (g->threshold != GROUPCONC_UNLIMITED &&
                groupconc__waiting_bulkhead_of(g) + groupconc__waiting_conc_of(g) >= (uint32_t)g->threshold)
                reason = groupconc__layer_rejected(layer);
        }
        /* the memory bound counts a task once: one moving between queues left one just now */
        if (!reason && !(t->bits & GROUPCONC__B_QUEUED_ONCE) && ex->policy.max_waiting != GROUPCONC_UNLIMITED &&
            groupconc__waiting_total(ex) >= (size_t)ex->policy.max_waiting)
            reason = GROUPCONC_EREJECTED_WAITING;
        /* no memory for the group's queues block is the memory bound too (see queues_get) */
        if (!reason && !groupconc__queues_get(ex, g)) reason = GROUPCONC_EREJECTED_WAITING;
        if (reason) {
            groupconc__reject_locked(ex, t, reason, b);
            return;
        }
        if (layer == GROUPCONC__L_GLOBAL) g->queues->waiting_global++;
        else if (layer == GROUPCONC__L_RUNNING) g->queues->waiting_running++;
        else sh->waiting_groups++; /* bulkhead and concurrency */
        if (!(t->bits & GROUPCONC__B_QUEUED_ONCE)) {
            t->bits |= GROUPCONC__B_QUEUED_ONCE; /* the oldest-waiter age counts from here */
            t->start_ns = groupconc__coarse_now_ns();
            groupconc__timer_add(ex, t);
        }
        groupconc__set_stage(t, GROUPCONC__QUEUED);
        groupconc__fifo_push(groupconc__waiters_of(ex, g, layer), t);
        return;
    }
    t->held = (uint8_t)held;
    g->admitted++;
    sh->counts.admitted++;
    groupconc__timer_drop(ex, t);
    groupconc__push_ready(ex, t);
}

/* The one copy for every caller; the inbox's drain inlines the body (groupconc__admit_inbox_locked). */
GROUPCONC__FN void groupconc__admit(groupconc_executor *ex, groupconc_task *t, groupconc__batch *b) {
    groupconc__admit_inline(ex, t, b);
}

/* Hand-offs can cascade (a task handed a global permit may be rejected at its group and pass the
   permit on), so they are processed from a worklist, never by recursion. */
GROUPCONC__FN void groupconc__refusals_defer_locked(groupconc_executor *ex, groupconc__fifo *rejected, bool keeper);

/* The refusals of b->rejected from `before` on (the first `before` stay: a submit's own, the
   housekeeper's expired tasks) left to a worker: groupconc__refusals_defer_locked. */
GROUPCONC__FN void groupconc__refusals_defer_tail_locked(groupconc_executor *ex, groupconc__batch *b, uint32_t before,
                                                         bool keeper) {
    groupconc__fifo first = {0};
    while (before--) groupconc__fifo_push(&first, groupconc__fifo_pop(&b->rejected));
    groupconc__refusals_defer_locked(ex, &b->rejected, keeper);
    groupconc__fifo_append(&first, &b->rejected); /* the ones kept: no worker can come */
    b->rejected = first;
}

GROUPCONC__FN void groupconc__pump_advance(groupconc_executor *ex, groupconc__batch *b) {
    groupconc_task *t;
    uint32_t before = b->rejected.count;
    while ((t = groupconc__fifo_pop(&b->advance)) != NULL) {
        groupconc__admit(ex, t, b);
        groupconc__debug_check(ex, t->group);
    }
    /* the refusals a hand-off made on the housekeeper (the expiry's, or a call's from an expired
       task's callback: a cancel, a shutdown of a group, a raised cap): to a worker, whose thread
       may wait in their handlers; an executor shutdown's stay with its caller */
    if (b->rejected.count != before && groupconc__in_keeper(ex) &&
        !atomic_load_explicit(&ex->shutdown, memory_order_relaxed))
        groupconc__refusals_defer_tail_locked(ex, b, before, true);
}

/* The worklist above, from every locked step: inline, as it is nearly always empty. */
GROUPCONC__HOT void groupconc__pump(groupconc_executor *ex, groupconc__batch *b) {
    if (b->advance.count) groupconc__pump_advance(ex, b);
}

/* ==== inbox: submitting without the executor lock =============================================== */
/* When no layer can refuse a task (no queue thresholds: ex->inbox_ok; only the memory for a group's
   first wait can run out, see groupconc__queues_get), submit has nothing to decide under the
   executor lock. It finds the group under its stripe's lock and pushes the task onto
   ex->inbox.head;
   whoever takes ex->lock next admits the whole inbox in submission order: a worker at each locked
   step, and every API call that looks at queues (groupconc__lock). A submit that finds the inbox
   empty makes sure someone will: when no worker is sure to lock again soon, it locks itself. */

GROUPCONC__FN bool groupconc__inbox_pending(groupconc_executor *ex) {
    /* P1, the worker's end: its counter change comes before this look */
    groupconc_task *head = atomic_load_explicit(&ex->inbox.head, memory_order_seq_cst);
    return head != NULL && head != GROUPCONC__INBOX_CLOSED(ex);
}

/* Admit every task in the inbox, oldest first. Under ex->lock; `close` (shutdown) leaves the inbox
   closed, so that a later push fails. The submitter took no group reference: a group cannot leave
   the table while one of its tasks is in the inbox (evict and reclaim drain under the group's stripe
   lock, and a push happens under that lock with the group found in the table). On the housekeeper
   (an API call from an expired task's callback) it runs no other task's code but the shutdown's:
   it admits as a quiet caller does, the refusals left to a worker. */
GROUPCONC__FN size_t groupconc__refused_count_locked(const groupconc_executor *ex);
GROUPCONC__FN void groupconc__refused_take_locked(groupconc_executor *ex, groupconc__fifo *to);

GROUPCONC__FN size_t groupconc__drain_locked(groupconc_executor *ex, groupconc__batch *b, bool close) {
    bool pending = close || groupconc__inbox_pending(ex);
    /* on the housekeeper (a call from an expired task's callback)? asked only if there is work */
    bool keeper = !close && (pending || groupconc__refused_count_locked(ex)) && groupconc__in_keeper(ex);
    if (!keeper) /* every shard's refusals, settled as ours (every shard is held) */
        groupconc__refused_take_locked(ex, &b->rejected);
    if (!pending) return 0;
    if (keeper) { /* as a quiet admission: no helping (it completes other tasks), and the refusals of
                     others' submits left to a worker */
        uint32_t before = b->rejected.count;
        size_t n = groupconc__admit_inbox_locked(ex, b, false);
        groupconc__refusals_defer_tail_locked(ex, b, before, true);
        return n;
    }
    groupconc__help_locked(ex, b, false); /* a permit it needs may sit with a finished task */
    return groupconc__admit_inbox_locked(ex, b, close);
}

/* groupconc__drain_locked without the help: only admission. */
GROUPCONC__FN size_t groupconc__admit_inbox_locked(groupconc_executor *ex, groupconc__batch *b,
                                                  bool close) {
    groupconc_task *list, *fifo = NULL, *t;
    uint32_t nrun = 0; /* tasks left in the run of one group's tasks whose references are taken */
    size_t n = 0;
    list = atomic_exchange_explicit(&ex->inbox.head, close ? GROUPCONC__INBOX_CLOSED(ex) : NULL,
                                    memory_order_acq_rel);
    if (list == GROUPCONC__INBOX_CLOSED(ex)) return 0;
    while ((t = list) != NULL) { /* newest first -> oldest first */
        list = t->next;
        t->next = fifo;
        fifo = t;
    }
    while ((t = fifo) != NULL) {
        groupconc__group *g = t->group;
        fifo = t->next;
        if (nrun == 0) { /* the first of a run of g's tasks (one busy key): their references in
                            one atomic write, not one each (the lock publishes them) */
            const groupconc_task *u;
            for (nrun = 1, u = fifo; u && u->group == g; u = u->next) nrun++;
            atomic_fetch_add_explicit(&g->refs, nrun, memory_order_relaxed);
#if GROUPCONC__SHARDS > 1
            groupconc__shard_of(ex, g)->counts.submitted += nrun; /* the run's group's shard */
#endif
        }
        nrun--;
        n++;
        groupconc__admit_inline(ex, t, b);
        groupconc__debug_check(ex, g);
    }
#if GROUPCONC__SHARDS > 1
    if (n) atomic_fetch_add_explicit(&ex->unfinished, n, memory_order_seq_cst); /* one per drain */
#else
    GROUPCONC__UNFINISHED(ex) += n; /* executor-wide: see its field */
#endif
#if GROUPCONC__SHARDS == 1
    ex->shards[0].counts.submitted += n; /* one add per drain */
#endif
    return n;
}

GROUPCONC__FN int groupconc__kick_for_locked(groupconc_executor *ex, size_t need);

/* The refusals left to a worker's next drain (every shard's `refused`). Under ex->lock. */
GROUPCONC__FN size_t groupconc__refused_count_locked(const groupconc_executor *ex) {
#if GROUPCONC__SHARDS == 1
    return ex->shards[0].refused.count;
#else
    const groupconc__shard *sh;
    size_t n = 0;
    GROUPCONC__EACH_SHARD(ex, sh) n += sh->refused.count;
    return n;
#endif
}

/* Whether a worker is on its way to the lock: spinning, idle (a kick wakes it), waking or starting.
   Under ex->lock. */
GROUPCONC__FN bool groupconc__worker_on_way_locked(groupconc_executor *ex) {
    return atomic_load_explicit(&ex->pool.nspinning, memory_order_relaxed) ||
           atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed) ||
           atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed) ||
           atomic_load_explicit(&ex->pool.nstarting, memory_order_relaxed);
}

/* Whether a worker will take the lock without finishing its task first: one on its way, or room
   for one more that can start (kick_for_locked starts it, or the watch does once the busy ones
   sleep; not after a start failed). Under ex->lock. */
GROUPCONC__FN bool groupconc__worker_can_come_locked(groupconc_executor *ex) {
    return groupconc__worker_on_way_locked(ex) ||
           (!ex->pool.start_failed &&
            atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) <
                (size_t)ex->policy.max_threads + atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed));
}

/* Every shard's refusals left to a worker, taken into `to` (by a caller that settles them). Under
   ex->lock (every shard). */
GROUPCONC__FN void groupconc__refused_take_locked(groupconc_executor *ex, groupconc__fifo *to) {
    groupconc__shard *sh;
    GROUPCONC__EACH_SHARD(ex, sh)
        if (sh->refused.count) groupconc__fifo_append(to, &sh->refused);
}

GROUPCONC__FN int groupconc__spawn_locked(groupconc_executor *ex);

/* Leave the refusals in `rejected` to the next drain (the shards' refused: each in its group's, where
   group_idle_locked looks for it), and find a thread for them: settling one (its events,
   rejection handler, CALLER_RUNS run, callbacks) runs user code that may wait, which a worker can
   and a quiet caller or the housekeeper cannot. `keeper` (on the housekeeper): the expired tasks
   stay (their completion is the housekeeper's: no handler runs for them); with no worker on its
   way one is started for the others, beyond the pool's size if need be (the busy ones may compute
   for long, or wait for the handler; it retires as a surplus one), and when none can start
   (max_threads reached, a start failed) they stay too: the housekeeper settles them, as its own.
   Under ex->lock (every shard). */
GROUPCONC__FN void groupconc__refusals_defer_locked(groupconc_executor *ex, groupconc__fifo *rejected, bool keeper) {
    groupconc__fifo kept = {0}, defer = {0};
    groupconc_task *t;
    while ((t = groupconc__fifo_pop(rejected)) != NULL)
        groupconc__fifo_push(keeper && groupconc__is_expiry(-(int)t->reject_code) ? &kept : &defer, t);
    groupconc__fifo_append(rejected, &kept);
    if (!defer.count) return;
    if (keeper && !groupconc__worker_on_way_locked(ex) &&
        (!groupconc__worker_can_come_locked(ex) || groupconc__spawn_locked(ex) != GROUPCONC_OK)) {
        groupconc__fifo_append(rejected, &defer); /* no worker can come: settled here */
        return;
    }
    while ((t = groupconc__fifo_pop(&defer)) != NULL)
        groupconc__fifo_push(&groupconc__shard_of(ex, t->group)->refused, t);
    /* a thread for each: an idle worker, a new one, else the watch (every worker may sleep in a
       task that waits for what a handler does) */
    (void)groupconc__kick_for_locked(ex, GROUPCONC__READY_COUNT(ex) + groupconc__refused_count_locked(ex));
}

/* The inbox admitted where no user code may run: groupconc__lock_quiet (the read-only calls, a
   gate's try-acquire), a reclaim at max_groups, the housekeeper's watch. There a task is refused
   only when the memory for its group's queues runs out (see groupconc__queues_get; a threshold
   added live refuses too, for the reclaim). Its rejection and what its permits hand on are done
   here; settling it (events, handler, CALLER_RUNS, callbacks) is left to the next drain
   (its shard's refused), whose thread may run them: an idle worker is called. */
GROUPCONC__FN void groupconc__admit_inbox_quiet_locked(groupconc_executor *ex, groupconc__batch *b) {
    uint32_t before = b->rejected.count; /* the housekeeper's expired tasks stay its own */
    size_t n = groupconc__admit_inbox_locked(ex, b, false);
    if (b->rejected.count != before) {
        groupconc__pump(ex, b); /* a refused task's permits: to waiters */
        /* every one to a worker: a quiet caller settles nothing (the housekeeper takes them back
           when none can come, keeper_main) */
        groupconc__refusals_defer_tail_locked(ex, b, before, false);
    }
    if (n) (void)groupconc__kick_locked(ex);
}

/* Lock the executor for an API call that looks at queues: admit the inbox first. */
GROUPCONC__FN void groupconc__lock(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__exec_lock(ex);
    if (groupconc__drain_locked(ex, b, false)) (void)groupconc__kick_locked(ex);
}

/* The same for a call that must see the whole executor: every shard (groupconc__exec_lock_all). */
GROUPCONC__FN void groupconc__lock_all(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__exec_lock_all(ex);
    if (groupconc__drain_locked(ex, b, false)) (void)groupconc__kick_locked(ex);
}

/* The same only if the lock is free: false (nothing done) if it is held. */
GROUPCONC__FN bool groupconc__lock_try(groupconc_executor *ex, groupconc__batch *b) {
    if (!groupconc__exec_trylock(ex)) return false;
    if (groupconc__drain_locked(ex, b, false)) (void)groupconc__kick_locked(ex);
    return true;
}

GROUPCONC__FN void groupconc__call_helper_locked(groupconc_executor *ex);

/* A worker's busy_since holds a start time or one of two sentinels that are no time at all: 0, idle
   (between batches: its published tasks all finished, nret 0), and GROUPCONC__NOT_BUSY (UINT64_MAX),
   on its way back to the lock after a batch (it finishes what it ran itself). `now - since` on a
   sentinel is no duration: now - UINT64_MAX wraps to now + 1 (a task that seems to have just
   started), now - 0 is the clock's whole reading (one that seems to have run for days); and a start
   stored after the caller read `now` would wrap to nearly 2^64. So every age is taken here: 0 for
   both sentinels and for a start after `now` (that task has only just begun). Callers that give a
   sentinel a meaning of its own (groupconc__others: NOT_BUSY counts as active) test it first. */
GROUPCONC__FN uint64_t groupconc__busy_ns(uint64_t since, uint64_t now) {
    if (since == 0 || since == GROUPCONC__NOT_BUSY || since >= now) return 0;
    return now - since;
}

/* Whether a worker has been in its current task longer than a batch lasts with tasks it ran left
   unfinished: what groupconc__help_locked(ex, b, false) would finish. Under the lock. */
GROUPCONC__FN bool groupconc__help_wanted_locked(groupconc_executor *ex) {
    groupconc__worker *w;
    uint64_t now = 0;
    for (w = ex->pool.workers; w; w = w->next) {
        uint64_t since;
        /* acquire, not an end of P2: a hint under the lock (help_locked does the real reading) */
        if (w->nfinished >= atomic_load_explicit(&w->nret, memory_order_acquire) && w->chain_done.count == 0)
            continue;
        if (!now) now = groupconc__now_ns();
        since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
        /* NOT_BUSY: it finishes them itself (groupconc__busy_ns gives 0 for it) */
        if (groupconc__busy_ns(since, now) >= GROUPCONC__BATCH_NS) return true;
    }
    return false;
}

/* Lock the executor for a call that runs no user code on its thread: the read-only calls (stats,
   dump) and an executor gate's try-acquire ("where callbacks run" in the manual). Unlike
   groupconc__lock it never helps: finishing what a busy worker left in its batch would complete
   those tasks (events, callbacks, cleanups) on this thread. An idle worker is called to take that
   over instead (the busy one finishes it at its next locked step in any case). It admits the inbox
   where no layer can refuse (ex->inbox_ok, never with a fleet provider: groupconc__never_refuses):
   admission then completes and asks nothing, and refuses only a task whose group's queues cannot
   be allocated, which it leaves to a worker (groupconc__admit_inbox_quiet_locked): b stays empty.
   With a threshold added live (a push that raced with it could be refused) the inbox is left to
   the thread its submitter made sure will look at it (groupconc__inbox_look). Admission may
   start a worker (kick). */
GROUPCONC__FN void groupconc__quiet_locked(groupconc_executor *ex, groupconc__batch *b) {
    if (atomic_load_explicit(&ex->inbox_ok, memory_order_relaxed) && groupconc__inbox_pending(ex))
        groupconc__admit_inbox_quiet_locked(ex, b);
    GROUPCONC_ASSERT(b->todo.count == 0 && b->rejected.count == 0 && b->advance.count == 0 && !b->asks);
    if (groupconc__help_wanted_locked(ex)) groupconc__call_helper_locked(ex);
}

GROUPCONC__FN void groupconc__lock_quiet(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__exec_lock(ex);
    groupconc__quiet_locked(ex, b);
}

/* The same for a call that must see the whole executor (stats, the dump): every shard. */
GROUPCONC__FN void groupconc__lock_quiet_all(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__exec_lock_all(ex);
    groupconc__quiet_locked(ex, b);
}

/* After pushing onto an empty inbox: whether a worker will look at it without being told
   (GROUPCONC__LOOK_WATCHED). That is the spinner, or a worker on its way to the lock (woken or
   starting: it drains the inbox first thing, and kicks for what it finds); or a worker that is
   awake in short tasks (each takes the lock again, and looks, before it sleeps) while an idle one
   naps, which looks within GROUPCONC__HELP_NS should the awake one be in a long task after all
   (pool.short_tasks: the last batch's); or every worker there can be, all awake. Otherwise an
   idle worker could start the task sooner, a missing one could be started:
   the submitter locks and kicks (GROUPCONC__LOOK_KICK). In between (GROUPCONC__LOOK_SOONER),
   somebody will look, but an idle worker could start the task sooner: a worker is on its way
   while an idle one has not been woken yet, or one more may start (the one on its way takes one
   task and wakes or starts the next only once it runs: tens of us later on a VM, behind a
   preempted or halted vCPU; 50 us tasks then ran one after the other on one worker, W6); or an
   idle one naps while the awake one's last batch was not of short tasks (it may be in a long
   task: the napper would look only after up to HELP_NS). Then the submitter kicks too if the lock
   is free (a try-lock): each push onto an empty inbox until an idle worker is woken, or the
   pool is full; a kick that finds every ready task covered wakes nobody. A busy lock is most
   likely the woken worker's, about to drain the inbox; blocking behind it could stall the
   submitter for as long as that worker's vCPU is preempted (1.4 ms seen). A worker
   raises nidle and nnapping before its last look at the inbox, and lowers nwaking and nstarting
   before its next one; with the push before these loads (sequentially consistent: pairing P1), one of the two
   sides sees the other. A worker lowers nthreads under every stripe lock. With the pool at its size
   (pool_cap) and every worker busy, a busy worker looks when its task returns, and the
   housekeeper's watch (keeper.watching) looks should none return; the housekeeper clears
   keeper.watching, then looks at the inbox (P1, its end), so that a push is either seen by it or
   finds it unwatched. */
GROUPCONC__FN size_t groupconc__pool_cap(groupconc_executor *ex, size_t blocked);
enum { GROUPCONC__LOOK_WATCHED, GROUPCONC__LOOK_SOONER, GROUPCONC__LOOK_KICK };
GROUPCONC__FN int groupconc__inbox_look(groupconc_executor *ex) {
    size_t idle, waking, n, blocked;
    /* P1, the submitter's end: these loads come after its push (seq_cst CAS) */
    if (atomic_load_explicit(&ex->pool.nspinning, memory_order_seq_cst) > 0) return GROUPCONC__LOOK_WATCHED;
    /* Without this, every push during a wake-up (tens of us) found the inbox empty again - the
       previous one's kick drained it - and locked to kick once more. */
    waking = atomic_load_explicit(&ex->pool.nwaking, memory_order_seq_cst);
    idle = atomic_load_explicit(&ex->pool.nidle, memory_order_seq_cst);
    n = atomic_load_explicit(&ex->pool.nthreads, memory_order_seq_cst);
    blocked = atomic_load_explicit(&ex->pool.nblocked, memory_order_seq_cst);
    if (waking > 0 || atomic_load_explicit(&ex->pool.nstarting, memory_order_seq_cst) > 0)
        return idle > waking || n < groupconc__pool_cap(ex, blocked) ? GROUPCONC__LOOK_SOONER
                                                                     : GROUPCONC__LOOK_WATCHED;
    if (idle == 0) { /* a worker blocked in a wait does not look: it lets one more start instead */
        if (n >= (size_t)ex->policy.max_threads + blocked) return GROUPCONC__LOOK_WATCHED;
        if (n < groupconc__pool_cap(ex, blocked)) return GROUPCONC__LOOK_KICK; /* one may start */
        /* the pool is at its size: a busy worker looks when its task returns, the housekeeper's
           watch within its interval should none return (it clears keeper.watching, then looks) */
        return atomic_load_explicit(&ex->keeper.watching, memory_order_seq_cst) ? GROUPCONC__LOOK_WATCHED
                                                                                : GROUPCONC__LOOK_KICK;
    }
    /* a napper, and an awake worker in short tasks, which comes back to the lock soon (relaxed: a
       hint; a wrong one costs a wake-up or up to HELP_NS). Behind a long task the napper would
       leave the task waiting up to HELP_NS: W6's 50 us tasks waited 35 us at the median, at 50 %
       load, against 29 with a wake-up (GThreadPool 27). */
    if (atomic_load_explicit(&ex->pool.nnapping, memory_order_seq_cst) > 0 && idle < n)
        return atomic_load_explicit(&ex->pool.short_tasks, memory_order_relaxed) ? GROUPCONC__LOOK_WATCHED
                                                                                 : GROUPCONC__LOOK_SOONER;
    return GROUPCONC__LOOK_KICK;
}

/* ==== submit: the public entry points, task nodes, the locked path ============================= */
/* Submit reaches forward: into completion (a task refused or run in submit completes at once), the
   handles (execute_all waits) and the pool (a worker for a ready task, a recycled node). */
GROUPCONC__FN groupconc_task *groupconc__node_get(groupconc_executor *ex, bool observed);
GROUPCONC__FN void groupconc__emit(groupconc_executor *ex, const groupconc_task *self,
                                   groupconc_event_type type, const char *group, const char *task_id,
                                   int reason, const groupconc_result *result);
GROUPCONC__FN void groupconc__emit_refused(groupconc_executor *ex, const char *group,
                                           const char *task_id, int reason);
GROUPCONC__FN void groupconc__flush_and_retire(groupconc_executor *ex, groupconc__batch *b);
GROUPCONC__FN int groupconc__spawn_locked(groupconc_executor *ex);
GROUPCONC__FN void groupconc__pool_needed_locked(groupconc_executor *ex, bool started);
GROUPCONC__FN void groupconc__apply_handler(groupconc_executor *ex, groupconc_task *t, int reason,
                                            bool in_submit);
GROUPCONC__FN void groupconc__fill_result(const groupconc_task *t, groupconc_result *r);
GROUPCONC__FN bool groupconc__run(groupconc_executor *ex, groupconc_task *t, uint64_t start, bool on_worker);
GROUPCONC__FN size_t groupconc__complete(groupconc_executor *ex, groupconc_task *t,
                                         groupconc__claims *claimed, groupconc__nodes *recycle);
GROUPCONC__FN void groupconc__retire(groupconc_executor *ex, size_t n);
GROUPCONC__FN bool groupconc__task_wait_ok(int64_t v);

/* The size of a node with nothing inline but, if `observed`, the observed block: the two sizes the
   node caches keep, one cache each ("task nodes"). */
GROUPCONC__FN size_t groupconc__node_size(bool observed) {
    return sizeof(groupconc_task) + (observed ? sizeof(groupconc__observed) : 0);
}

/* A fresh node for a task of group g. The group reference is taken when it is admitted. */
/* `fleet_slot`: the executor has a fleet provider (ex->policy.fleet.acquire), passed in so that
   submit touches no line of the group that workers write (its first line holds the bulkhead's count):
   the group is only stored here, never read. */
GROUPCONC__HOT void groupconc__task_init(groupconc_task *t, groupconc__group *g,
                                         const groupconc_task_spec *spec, size_t idlen, bool handle,
                                         bool observed, bool deadline_block, uint64_t deadline_at,
                                         bool fleet_slot) {
    char *extra = (char *)(t + 1);
    memset(t, 0, sizeof *t);
    if (observed) { /* first: the handle functions and completion find it at t + 1 */
        memset(extra, 0, sizeof(groupconc__observed));
        extra += sizeof(groupconc__observed);
        t->bits = GROUPCONC__B_OBSERVED; /* someone can see its result: its times are taken */
    }
    if (deadline_block) { /* 8-byte aligned: the struct and the observed block are */
        groupconc__queue_deadline d;
        d.at_ns = deadline_at;
        d.index = deadline_at ? GROUPCONC__TIMER_RESERVED : GROUPCONC__TIMER_NONE;
        d.pad = 0;
        memcpy(extra, &d, sizeof d);
        extra += sizeof d;
        t->bits |= GROUPCONC__B_HAS_DEADLINE;
    }
    if (fleet_slot) { /* 8-byte aligned: so is all before it */
        memset(extra, 0, sizeof(groupconc__fleet_slot));
        extra += sizeof(groupconc__fleet_slot);
        t->bits |= GROUPCONC__B_FLEET;
    }
    if (spec->cleanup) { /* inline after the struct, before the task id */
        memcpy(extra, &spec->cleanup, sizeof spec->cleanup);
        extra += sizeof spec->cleanup;
        t->bits |= GROUPCONC__B_HAS_CLEANUP;
    }
    if (spec->task_id) {
        memcpy(extra, spec->task_id, idlen);
        t->bits |= GROUPCONC__B_HAS_ID;
    }
    t->fn = spec->fn;
    t->arg = spec->arg;
    t->group = g;
    t->bits |= GROUPCONC__B_COUNTED;
    GROUPCONC_ASSERT(observed || !handle); /* a handle sees the result */
    atomic_init(&t->state,
                (groupconc__st)(GROUPCONC__ST_EXEC_REF | (handle ? GROUPCONC__ST_HANDLE_REF : 0u)));
}

/* *t, if the caller has no node yet: a plain one, or one with the observed block alone, recycled
   or new. GROUPCONC_ENOMEM if none. Under a stripe's lock. */
GROUPCONC__HOT int groupconc__node_take(groupconc_executor *ex, bool observed, groupconc_task **t) {
    if (!*t) *t = groupconc__node_get(ex, observed);
    if (!*t) *t = (groupconc_task *)GROUPCONC_MALLOC(groupconc__node_size(observed));
    return *t ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}

/* Shard sh's spare queues block, made if it has none: GROUPCONC_ENOMEM if it cannot be. */
GROUPCONC__FN int groupconc__spare_make(groupconc__shard *sh) {
    if (!sh->spare_queues)
        sh->spare_queues = (groupconc__group_queues *)GROUPCONC_MALLOC(sizeof *sh->spare_queues);
    return sh->spare_queues ? GROUPCONC_OK : GROUPCONC_ENOMEM;
}

/* Undo the making of g, new in this call, which failed after it (no node, no queues block, no
   timer slot, the inbox closed): a refused submit leaves no group behind (a bounded table's place
   is free again). Nobody else has seen g: st's lock has been held since it was made. Under st's
   lock (ex->lock too where it was made under it). */
GROUPCONC__FN void groupconc__group_unmake_tlocked(groupconc_executor *ex, groupconc__stripe *st,
                                                   groupconc__group *g, uint64_t hash) {
    groupconc__table_remove(st, g, hash);
    atomic_fetch_sub_explicit(&ex->table.ngroups, 1, memory_order_relaxed);
    if (g->flags & GROUPCONC__GF_LRU) {
        groupconc__mutex_lock(&ex->table.lru_lock);
        groupconc__lru_unlink(ex, g);
        groupconc__mutex_unlock(&ex->table.lru_lock);
    }
    groupconc__group_unref(g);
}

/* Find or create the group and take a node, under the key's stripe lock st (groupconc__group_get
   says when more is held); *made as there. On failure nothing is left held (a node the caller
   allocated is its own to free; a group made here, to groupconc__group_unmake_tlocked). */
GROUPCONC__HOT int groupconc__prepare_tlocked(groupconc_executor *ex, groupconc__stripe *st,
                                              const char *group, size_t klen, uint64_t hash,
                                              groupconc__batch *b, bool all, bool observed,
                                              groupconc__group **g, groupconc_task **t, bool *made) {
    int rc = groupconc__group_get(ex, st, group, klen, hash, b, all, g, made);
    if (rc == GROUPCONC_OK) rc = groupconc__node_take(ex, observed, t);
    return rc;
}

#define GROUPCONC__NO_WORKER 1 /* internal: take the locked path */

GROUPCONC__FN bool groupconc__any_max_wait(groupconc_executor *ex) {
    return atomic_load_explicit(&ex->any_max_wait, memory_order_relaxed);
}

/* A task's deadline (monotonic ns, 0 = none): its own max wait, else its group's table entry, else
   the policy default. Under a stripe's lock (the table and the default change under all of them). */
GROUPCONC__FN uint64_t groupconc__deadline_at(groupconc_executor *ex, int64_t own, const char *key) {
    int64_t wait = own;
    if (wait == 0) {
        const groupconc__limits_entry *e = groupconc__limits_find(ex, key);
        wait = e && e->max_wait_ns != 0 ? e->max_wait_ns : ex->policy.default_max_wait_ns;
    }
    if (wait <= 0) return 0; /* GROUPCONC_FOREVER */
    return groupconc__deadline(wait);
}

/* Reserve a heap slot for a task with a deadline, and make sure the housekeeper runs. Under ex->lock. */
GROUPCONC__FN int groupconc__timer_reserve_locked(groupconc_executor *ex) {
    int rc = groupconc__keeper_start_locked(ex);
    if (rc != GROUPCONC_OK) return rc;
    if (ex->keeper.ntimers_reserved == ex->keeper.timers_cap) {
        size_t n = ex->keeper.timers_cap ? ex->keeper.timers_cap * 2 : 64;
        groupconc_task **grown;
        if (n > UINT32_MAX - 2 || n > SIZE_MAX / sizeof *grown) return GROUPCONC_ENOMEM;
        grown = (groupconc_task **)GROUPCONC_MALLOC(n * sizeof *grown);
        if (!grown) return GROUPCONC_ENOMEM;
        if (ex->keeper.ntimers) memcpy(grown, ex->keeper.timers, ex->keeper.ntimers * sizeof *grown);
        if (ex->keeper.timers) GROUPCONC_FREE(ex->keeper.timers);
        ex->keeper.timers = grown;
        ex->keeper.timers_cap = n;
    }
    ex->keeper.ntimers_reserved++;
    return GROUPCONC_OK;
}

GROUPCONC__FN void groupconc__release_arg(groupconc_executor *ex, groupconc_task *t);

/* A refused submit's argument, when its caller owns it (groupconc_execute_all: `cleaned` not NULL):
   its cleanup runs here, before the COMPLETED event, as any task's does (EVENTS AND COUNTERS), and
   *cleaned tells the caller not to run it again. A plain submit (NULL) leaves arg to its caller. */
GROUPCONC__FN void groupconc__refused_cleanup(groupconc_executor *ex, const groupconc_task_spec *spec,
                                              bool *cleaned) {
    if (!cleaned) return;
    if (spec->cleanup) {
        groupconc__frame f;
        groupconc__frame_push(&f, ex, NULL);
        spec->cleanup(spec->arg);
        groupconc__frame_pop(&f);
    }
    *cleaned = true;
}

/* Submit failed after SUBMITTED was reported (ESHUTDOWN, ENOMEM, ETHREAD, EGROUPS_FULL): count it,
   then the REJECTED event, the cleanup of an argument the caller owns, the COMPLETED event
   (COMPLETED comes once per SUBMITTED). `locked`: ex->lock is held (released before the events). */
GROUPCONC__FN void groupconc__refused(groupconc_executor *ex, const groupconc_task_spec *spec, int rc,
                                      bool locked, bool *cleaned) {
    if (!locked) groupconc__exec_lock(ex);
    ex->shards[0].counts.submitted++; /* no group may exist: shard 0 (the sums see it) */
    ex->shards[0].counts.rejected_other++;
    groupconc__exec_unlock(ex);
    if (ex->policy.listener) groupconc__emit(ex, NULL, GROUPCONC_EVENT_REJECTED, spec->group, spec->task_id, rc, NULL);
    groupconc__refused_cleanup(ex, spec, cleaned);
    if (ex->policy.listener) groupconc__emit_refused(ex, spec->group, spec->task_id, rc);
}

/* The inbox path (ex->inbox_ok): look the group up and push, without ex->lock, under the key's
   stripe lock. A worker must be alive at the push (one that retires checks the inbox under every
   stripe lock). */
GROUPCONC__FN int groupconc__submit_inbox(groupconc_executor *ex, const groupconc_task_spec *spec,
                                          size_t klen, uint64_t hash, size_t idlen,
                                          groupconc_task **out_task, groupconc_task *t, bool *cleaned) {
    const char *group = spec->group;
    groupconc__group *g = NULL;
    groupconc_task *old = NULL; /* set before use; some gcc -O levels cannot tell */
    groupconc__stripe *st = groupconc__stripe_of(ex, hash);
    bool made = false;
    int rc;
    groupconc__wordlock_lock(&st->lock);
    if (atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) == 0) {
        groupconc__wordlock_unlock(&st->lock);
        return GROUPCONC__NO_WORKER; /* the locked path starts one, or refuses */
    }
    rc = groupconc__prepare_tlocked(ex, st, group, klen, hash, NULL, false,
                                    out_task || ex->policy.listener, &g, &t, &made);
    if (rc == GROUPCONC__NEED_LOCK) { /* at max_groups: reclaiming takes the executor lock */
        groupconc__wordlock_unlock(&st->lock);
        return GROUPCONC__NO_WORKER;
    }
    if (rc == GROUPCONC_OK) {
        groupconc__task_init(t, g, spec, idlen, out_task != NULL, out_task || ex->policy.listener,
                             false, 0, ex->policy.fleet.acquire != NULL);
        old = atomic_load_explicit(&ex->inbox.head, memory_order_relaxed);
        do {
            if (old == GROUPCONC__INBOX_CLOSED(ex)) break;
            t->next = old;
        } while (!atomic_compare_exchange_weak_explicit(&ex->inbox.head, &old, t, memory_order_seq_cst, /* P1 */
                                                        memory_order_relaxed));
        if (old == GROUPCONC__INBOX_CLOSED(ex)) rc = GROUPCONC_ESHUTDOWN;
    }
    if (rc != GROUPCONC_OK && made) groupconc__group_unmake_tlocked(ex, st, g, hash);
    groupconc__wordlock_unlock(&st->lock); /* from here on t may already be running */
    if (rc != GROUPCONC_OK) {
        GROUPCONC_ASSERT(rc != GROUPCONC__NO_WORKER); /* the caller goes on with t after that one */
        if (t) GROUPCONC_FREE(t);
        groupconc__refused(ex, spec, rc, false, cleaned);
        return rc;
    }
    if (out_task) *out_task = t;
    if (old == NULL) {
        int look = groupconc__inbox_look(ex);
        if (look != GROUPCONC__LOOK_WATCHED) {
            groupconc__batch b = GROUPCONC__BATCH_INIT; /* here only: 11 stores a task otherwise */
            if (look == GROUPCONC__LOOK_KICK) groupconc__lock(ex, &b);
            else if (!groupconc__lock_try(ex, &b)) return GROUPCONC_OK; /* SOONER: it is covered */
            (void)groupconc__kick_locked(ex); /* a failure leaves it ready for the live worker */
            groupconc__exec_unlock(ex);
            groupconc__flush_and_retire(ex, &b);
        }
    }
    return GROUPCONC_OK;
}

/* The node of a task with extras (a task id, a cleanup, a queue deadline, a fleet slot; and the
   observed block if `observed`): its own size, the task id's length in *idlen. NULL when out of
   memory. A task with no extra but the observed block takes a recycled node under its stripe's lock
   instead. */
GROUPCONC__FN groupconc_task *groupconc__node_with_extras(const groupconc_executor *ex,
                                                         const groupconc_task_spec *spec,
                                                         bool deadline_block, bool observed,
                                                         size_t *idlen) {
    size_t size = groupconc__node_size(observed);
    *idlen = spec->task_id ? strlen(spec->task_id) + 1 : 0;
    size += *idlen + (spec->cleanup ? sizeof spec->cleanup : 0) +
            (deadline_block ? sizeof(groupconc__queue_deadline) : 0) +
            (ex->policy.fleet.acquire ? sizeof(groupconc__fleet_slot) : 0);
    return (groupconc_task *)GROUPCONC_MALLOC(size);
}

/* A submit of a new key at max_groups, every stripe held (with ex->lock): its node, its shard's
   spare queues block (a new group has none) and, with a queue deadline, its timer slot, all taken
   before the reclaim that makes room, so that a failure reclaims nothing. The inbox is admitted
   first, as the reclaim would (no push can come while every stripe is held): an inbox task that
   must wait takes its shard's spare there, not after this. *reserved: done here (*deadline_at
   set, its slot taken if not 0; the caller gives the slot back should the group's own making
   fail: ENOMEM, EGROUPS_FULL). A table full of busy groups thus refuses after these are taken
   (the node is freed, not recycled; ENOMEM or ETHREAD may come first). */
GROUPCONC__FN int groupconc__submit_reserve_new_tlocked(groupconc_executor *ex, const groupconc_task_spec *spec,
                                                        uint64_t hash, bool deadline_block, bool observed,
                                                        groupconc__batch *b, groupconc_task **t,
                                                        uint64_t *deadline_at, bool *reserved) {
    groupconc__shard *sh = &ex->shards[GROUPCONC__SHARD_OF_HASH(hash)];
    int rc = GROUPCONC_OK;
    if (groupconc__inbox_pending(ex)) groupconc__admit_inbox_quiet_locked(ex, b);
    if (groupconc__node_take(ex, observed, t) != GROUPCONC_OK || groupconc__spare_make(sh) != GROUPCONC_OK)
        return GROUPCONC_ENOMEM;
    if (deadline_block) *deadline_at = groupconc__deadline_at(ex, spec->max_wait_ns, spec->group);
    if (*deadline_at) rc = groupconc__timer_reserve_locked(ex);
    *reserved = rc == GROUPCONC_OK;
    return rc;
}

/* The locked path, before the task is admitted: a worker to run it (none and none can start:
   refuse), the housekeeper where groups may idle, the group and a node (under the key's stripe lock,
   or every stripe where a bounded table at its maximum must reclaim first), and for a task with a
   queue deadline a slot in the heap. Under ex->lock; *deadline_at is 0 for none. */
GROUPCONC__FN int groupconc__submit_prepare_locked(groupconc_executor *ex,
                                                   const groupconc_task_spec *spec,
                                                   size_t klen, uint64_t hash, bool deadline_block,
                                                   bool observed, groupconc__batch *b,
                                                   groupconc__group **g, groupconc_task **t,
                                                   uint64_t *deadline_at) {
    int rc = GROUPCONC_OK;
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) rc = GROUPCONC_ESHUTDOWN;
    else if (atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) == 0)
        rc = groupconc__spawn_locked(ex); /* no worker and none can start: refuse */
    if (rc == GROUPCONC_OK && ex->policy.group_idle_ns > 0)
        (void)groupconc__keeper_start_locked(ex); /* if it cannot start, the next locked submit tries */
    if (rc == GROUPCONC_OK) {
        groupconc__stripe *st = groupconc__stripe_of(ex, hash);
        bool all = false, made = false, reserved = false;
        groupconc__wordlock_lock(&st->lock);
        rc = groupconc__prepare_tlocked(ex, st, spec->group, klen, hash, b, false, observed, g, t, &made);
        if (rc == GROUPCONC__NEED_LOCK) { /* at max_groups: a reclaim needs every stripe */
            groupconc__wordlock_unlock(&st->lock);
            groupconc__table_lock_all(ex);
            all = true;
            rc = groupconc__submit_reserve_new_tlocked(ex, spec, hash, deadline_block, observed, b, t,
                                                       deadline_at, &reserved);
            if (rc == GROUPCONC_OK)
                rc = groupconc__prepare_tlocked(ex, st, spec->group, klen, hash, b, true, observed, g, t, &made);
        }
        if (rc == GROUPCONC_OK && deadline_block && !reserved)
            *deadline_at = groupconc__deadline_at(ex, spec->max_wait_ns, (*g)->key);
        /* the group's queues block, should the task have to wait: its shard's spare ready, or
           refuse now. Only this task's admission can take it before the lock is let go (a task
           handed a permit in this step waited already, so its group has its block; the inbox was
           admitted before, by groupconc__lock or groupconc__submit_reserve_new_tlocked). Taken with
           the stripe still held, as the timer slot is: a group this call made is unmade on failure. */
        if (rc == GROUPCONC_OK && !(*g)->queues) rc = groupconc__spare_make(groupconc__shard_of(ex, *g));
        if (rc == GROUPCONC_OK && *deadline_at && !reserved) /* a slot in the heap and a thread to watch it, or refuse */
            rc = groupconc__timer_reserve_locked(ex);
        if (rc != GROUPCONC_OK && reserved && *deadline_at) ex->keeper.ntimers_reserved--;
        if (rc != GROUPCONC_OK && made) {
            groupconc__group_unmake_tlocked(ex, st, *g, hash);
            *g = NULL;
        }
        if (all) groupconc__table_unlock_all(ex);
        else groupconc__wordlock_unlock(&st->lock);
    }
    return rc;
}

/* A CALLER_RUNS refusal called off before its run began (a cancel, a shutdown, its group's): it
   completes CANCELLED without running, and counts so (its refusal never counted). Under its
   shard's lock; the caller completes it (groupconc__complete) once the lock is let go of. */
GROUPCONC__FN void groupconc__refusal_cancelled_locked(groupconc_executor *ex, groupconc_task *t) {
    t->status = GROUPCONC_STATUS_CANCELLED;
    t->start_ns = groupconc__now_ns();
    groupconc__set_stage(t, GROUPCONC__DONE);
    groupconc__refusal_decided_locked(t);
    groupconc__count_locked(ex, t->group, GROUPCONC__C_CANCELLED, 1);
}

/* Rejected in submit (admission refused it at once); its permits are already back. The REJECTED
   event, then the handler or the policy: ABORT returns the rejection (the task was never accepted),
   CALLER_RUNS runs it here, DISCARD completes it REJECTED. */
GROUPCONC__FN int groupconc__submit_rejected(groupconc_executor *ex, groupconc_task *t,
                                             groupconc__group *g, const char *task_id,
                                             groupconc_task **out_task, bool *cleaned) {
    const groupconc_policy *p = &ex->policy;
    int rc = groupconc__reject_reason(t);
    if (p->listener) groupconc__emit(ex, t, GROUPCONC_EVENT_REJECTED, g->key, task_id, rc, NULL);
    if (p->reject_handler) {
        groupconc__apply_handler(ex, t, rc, true);
    } else if (p->rejection == GROUPCONC_REJECT_ABORT) {
        /* not accepted: no cleanup (arg is still the caller's, unless it is execute_all, which
           owns it: then here, before COMPLETED), no handle */
        if (cleaned) {
            groupconc__release_arg(ex, t);
            *cleaned = true;
        }
        if (p->listener) {
            groupconc_result r;
            groupconc__fill_result(t, &r);
            groupconc__emit(ex, t, GROUPCONC_EVENT_COMPLETED, r.group, r.task_id, 0, &r);
        }
        groupconc__task_free(t);
        return rc;
    } else if (p->rejection == GROUPCONC_REJECT_CALLER_RUNS) {
        /* listed in caller_running since its refusal (submit_direct): a shutdown, or its group's,
           during the event flagged it, and it does not run; else STARTED (a cancel from here on
           only flags it: its handle can leak to another thread only from inside the body, which
           a scope's fork publishes) and it runs here, still listed, so that one flags it then */
        groupconc__shard *sh = groupconc__shard_of(ex, g);
        bool cancelled;
        groupconc__exec_lock(ex);
        t->bits &= (uint16_t)~GROUPCONC__B_SETTLING;
        cancelled = (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_CANCEL) != 0;
        if (cancelled) {
            groupconc__fifo_remove(&sh->caller_running, t);
            groupconc__refusal_cancelled_locked(ex, t);
        } else {
            t->bits |= GROUPCONC__B_NO_PERMITS;
            t->status = GROUPCONC_STATUS_PENDING;
            atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_STARTED, memory_order_acq_rel);
        }
        groupconc__exec_unlock(ex);
        if (!cancelled) {
            (void)groupconc__run(ex, t, 0, false); /* on the submitting thread, holding no permits (no defer) */
            groupconc__exec_lock(ex);
            groupconc__fifo_remove(&sh->caller_running, t);
            t->bits |= GROUPCONC__B_RAN;  /* in no list now: nobody else reads its bits */
            if (!(t->bits & GROUPCONC__B_SKIPPED)) /* else a fork of a shut-down scope: it did not run */
                groupconc__count_caller_run_locked(ex, g);
            groupconc__refusal_decided_locked(t);
            groupconc__count_locked(ex, g, groupconc__outcome_index(t->status, 0), 1);
            groupconc__exec_unlock(ex);
        }
    }
    if (out_task) *out_task = t;
    groupconc__retire(ex, groupconc__complete(ex, t, NULL, NULL));
    return GROUPCONC_OK;
}

/* The locked path (no inbox, a queue deadline, or the inbox path found no worker): the submitting
   thread admits the task under ex->lock itself; a rejection there is handled before returning
   (groupconc__submit_rejected). */
GROUPCONC__FN int groupconc__submit_direct(groupconc_executor *ex, const groupconc_task_spec *spec,
                                           size_t klen, uint64_t hash, size_t idlen, bool deadline_block,
                                           groupconc_task **out_task, groupconc_task *t, bool *cleaned) {
    groupconc__batch b = GROUPCONC__BATCH_INIT; /* here only: the inbox path spares its 11 stores */
    const groupconc_policy *p = &ex->policy;
    groupconc__group *g = NULL;
    groupconc__shard *sh;
    uint64_t deadline_at = 0;
    bool sync_reject;
    int rc;
    groupconc__lock(ex, &b);
    rc = groupconc__submit_prepare_locked(ex, spec, klen, hash, deadline_block, out_task || p->listener, &b,
                                          &g, &t, &deadline_at);
    if (rc != GROUPCONC_OK) {
        if (t) GROUPCONC_FREE(t);
        groupconc__refused(ex, spec, rc, true, cleaned); /* unlocks */
        groupconc__flush_and_retire(ex, &b);
        return rc;
    }
    groupconc__task_init(t, g, spec, idlen, out_task != NULL, out_task || p->listener, deadline_block,
                         deadline_at, p->fleet.acquire != NULL);
    atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed); /* the lock publishes it */
    sh = groupconc__shard_of(ex, g);
    sh->counts.submitted++;
#if GROUPCONC__SHARDS > 1
    atomic_fetch_add_explicit(&ex->unfinished, 1, memory_order_seq_cst);
#else
    GROUPCONC__UNFINISHED(ex)++;
#endif
    groupconc__admit(ex, t, &b);
    groupconc__debug_check(ex, g);
    sync_reject = t->stage == GROUPCONC__REJECTED;
    if (sync_reject) {
        groupconc__fifo_remove(&b.rejected, t); /* its rejection is handled here, synchronously */
        if (!p->reject_handler && p->rejection == GROUPCONC_REJECT_ABORT) {
#if GROUPCONC__SHARDS > 1 /* never accepted: no handle; its COMPLETED event comes below */
            atomic_fetch_sub_explicit(&ex->unfinished, 1, memory_order_seq_cst);
#else
            GROUPCONC__UNFINISHED(ex)--; /* never accepted: no handle; its COMPLETED event comes below */
#endif
            t->bits &= (uint16_t)~GROUPCONC__B_COUNTED;
        } else if (!p->reject_handler && p->rejection == GROUPCONC_REJECT_CALLER_RUNS) {
            /* listed from its refusal on (before any shutdown can come: this lock saw none), so
               that a shutdown or its group's during its REJECTED event or its run reaches it */
            t->bits |= GROUPCONC__B_SETTLING;
            groupconc__fifo_push(&sh->caller_running, t);
        }
    }
    groupconc__pump(ex, &b);
    (void)groupconc__kick_locked(ex); /* a failure here leaves the task ready for the live worker */
    groupconc__exec_unlock(ex);
    groupconc__flush_and_retire(ex, &b);
    if (sync_reject) return groupconc__submit_rejected(ex, t, g, spec->task_id, out_task, cleaned);
    if (out_task) *out_task = t;
    return GROUPCONC_OK;
}

/* `cleaned`: NULL for a plain submit, whose refusal leaves spec->arg to its caller; execute_all's,
   which owns its elements' arguments: a refusal after SUBMITTED runs the cleanup before COMPLETED
   and sets *cleaned (groupconc__refused_cleanup). */
GROUPCONC__FN int groupconc__submit(groupconc_executor *ex, const groupconc_task_spec *spec,
                                    groupconc_task **out_task, bool *cleaned) {
    const groupconc_policy *p;
    const char *group = spec->group, *task_id = spec->task_id;
    groupconc_task *t = NULL;
    size_t klen, idlen = 0;
    uint64_t hash;
    int rc;
    bool deadline_block;
    if (out_task) *out_task = NULL;
    if (!ex || !group || !spec->fn) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if ((rc = groupconc__key_hash(group, &klen, &hash)) != GROUPCONC_OK) return rc;
    if (!groupconc__task_wait_ok(spec->max_wait_ns)) return GROUPCONC_ELIMIT;
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) return GROUPCONC_ESHUTDOWN;
    p = &ex->policy;
    /* any_max_wait is only ever set (under the lock): a stale false only misses a deadline given
       to the group by a live change this very moment */
    deadline_block = spec->max_wait_ns > 0 ||
                     (spec->max_wait_ns == 0 && groupconc__any_max_wait(ex));
    if (task_id || spec->cleanup || deadline_block || p->fleet.acquire) { /* extras: its own size */
        t = groupconc__node_with_extras(ex, spec, deadline_block, out_task || p->listener, &idlen);
        if (!t) return GROUPCONC_ENOMEM;
    }
    if (p->listener) groupconc__emit(ex, NULL, GROUPCONC_EVENT_SUBMITTED, group, task_id, 0, NULL);
    if (atomic_load_explicit(&ex->inbox_ok, memory_order_relaxed) && !deadline_block &&
        (p->group_idle_ns <= 0 || atomic_load_explicit(&ex->keeper.started, memory_order_relaxed))) {
        rc = groupconc__submit_inbox(ex, spec, klen, hash, idlen, out_task, t, cleaned);
        if (rc != GROUPCONC__NO_WORKER) return rc;
    }
    return groupconc__submit_direct(ex, spec, klen, hash, idlen, deadline_block, out_task, t, cleaned);
}

GROUPCONC__PUBLIC int groupconc_submit(groupconc_executor *ex, const char *group, const char *task_id,
                                       groupconc_task_fn fn, void *arg, groupconc_task **out_task) {
    groupconc_task_spec spec;
    spec.group = group;
    spec.task_id = task_id;
    spec.fn = fn;
    spec.arg = arg;
    spec.cleanup = NULL;
    spec.max_wait_ns = 0;
    return groupconc__submit(ex, &spec, out_task, NULL);
}

GROUPCONC__PUBLIC int groupconc_submit_spec(groupconc_executor *ex, const groupconc_task_spec *spec,
                                            groupconc_task **out_task) {
    if (out_task) *out_task = NULL;
    if (!spec) return GROUPCONC_EINVAL;
    return groupconc__submit(ex, spec, out_task, NULL);
}

/* ==== completion and events ===================================================================== */

/* Run the task's cleanup once, on the thread that owns the task at this point (the one that ran it,
   or the one settling it), with no lock held. */
GROUPCONC__FN void groupconc__release_arg_cleanup(groupconc_executor *ex, groupconc_task *t) {
    groupconc__frame f;
    if (atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_ARG_DONE, memory_order_acq_rel) &
        GROUPCONC__ST_ARG_DONE)
        return;
    groupconc__frame_push(&f, ex, t);
    groupconc__cleanup_of(t)(t->arg);
    groupconc__frame_pop(&f);
}
GROUPCONC__HOT void groupconc__release_arg(groupconc_executor *ex, groupconc_task *t) {
    /* the check inline, the work out of line: rare */
    if (t->bits & GROUPCONC__B_HAS_CLEANUP) groupconc__release_arg_cleanup(ex, t);
}

/* Only for a task someone can see (B_OBSERVED: its times were taken, its error kept). */
GROUPCONC__FN void groupconc__fill_result(const groupconc_task *t, groupconc_result *r) {
    bool ran = (t->bits & GROUPCONC__B_RAN) != 0;
    GROUPCONC_ASSERT(t->bits & GROUPCONC__B_OBSERVED);
    r->group = t->group->key;
    r->task_id = groupconc__task_id(t);
    r->status = (groupconc_status)t->status;
    r->value = ran ? t->value : NULL;
    r->error = t->status == GROUPCONC_STATUS_FAILED
                   ? ((const groupconc__observed *)(const void *)(t + 1))->error
                   : 0;
    r->reason = t->status == GROUPCONC_STATUS_REJECTED    ? groupconc__reject_reason(t)
                : t->status == GROUPCONC_STATUS_CANCELLED ? GROUPCONC_ECANCELLED
                                                          : 0;
    r->start_ns = t->start_ns;
    r->end_ns = ran ? t->end_ns : t->start_ns;
}

/* Call the listener, in a frame naming the task the event is about (NULL: none yet). */
GROUPCONC__FN void groupconc__emit(groupconc_executor *ex, const groupconc_task *self,
                                   groupconc_event_type type, const char *group, const char *task_id,
                                   int reason, const groupconc_result *result) {
    groupconc_event ev;
    groupconc__frame f;
    ev.type = type;
    ev.group = group;
    ev.task_id = task_id;
    ev.reason = reason;
    ev.result = result;
    groupconc__frame_push(&f, ex, self);
    ex->policy.listener(&ev, ex->policy.listener_user_data);
    groupconc__frame_pop(&f);
}

/* The COMPLETED event of a task refused in submit (no node left): a REJECTED result. */
GROUPCONC__FN void groupconc__emit_refused(groupconc_executor *ex, const char *group,
                                           const char *task_id, int reason) {
    groupconc_result r;
    memset(&r, 0, sizeof r);
    r.group = group;
    r.task_id = task_id;
    r.status = GROUPCONC_STATUS_REJECTED;
    r.reason = reason;
    r.start_ns = r.end_ns = groupconc__now_ns();
    groupconc__emit(ex, NULL, GROUPCONC_EVENT_COMPLETED, group, task_id, 0, &r);
}

/* A watched task's last step (see groupconc__mark_done): run its completion callbacks, oldest
   first, then those registered meanwhile (by a callback, or another thread), until none is left;
   only then set ST_DONE and wake the blocked waiters, both under done_lock, so that a registration
   either lands in the list before (this loop runs it) or sees ST_DONE (and runs it itself). Waiter
   nodes stay listed until then (a waiter that times out unlinks its own). */
GROUPCONC__FN void groupconc__done_watched(groupconc_executor *ex, groupconc_task *t,
                                           groupconc__claims *claimed) {
    groupconc__observed *ob = groupconc__observed_of(t); /* watched: it has a handle */
    groupconc__watch *w, **pw, *cbs;
    groupconc_result r;
    bool filled = false;
    groupconc__mutex_lock(&ex->done_lock);
    for (;;) {
        cbs = NULL;
        for (pw = &ob->watchers; (w = *pw) != NULL;) { /* newest first: prepending restores order */
            if (w->fn) {
                *pw = w->next;
                w->next = cbs;
                cbs = w;
            } else {
                pw = &w->next;
            }
        }
        if (!cbs) break;
        groupconc__mutex_unlock(&ex->done_lock);
        {
            groupconc__frame f; /* a wait on t from here would wait for itself: EDEADLK */
            groupconc__give_back(ex, claimed);
            if (!filled) groupconc__fill_result(t, &r);
            filled = true;
            groupconc__frame_push(&f, ex, t);
            while (cbs) {
                bool keep;
                w = cbs;
                cbs = w->next;
                keep = w->keep; /* a kept node may be gone once its callback returned */
                w->fn(t, &r, w->user_data);
                if (!keep) GROUPCONC_FREE(w);
            }
            groupconc__frame_pop(&f);
        }
        groupconc__mutex_lock(&ex->done_lock);
    }
    (void)atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_DONE, memory_order_acq_rel); /* publishes
                                                                         the result and the callbacks' work */
    w = ob->watchers; /* only waiters are left: wake them (their cv lives on their stack) */
    ob->watchers = NULL;
    for (; w; w = w->next) groupconc__cond_signal(w->cv);
    groupconc__mutex_unlock(&ex->done_lock);
}

/* Mark t done, after its COMPLETED event and its completion callbacks ran (SPEC: a waiter that
   returns, or sees is-done, can count on both). Unwatched (the common case): one CAS sets ST_DONE,
   which fails should a waiter or callback register meanwhile (ST_WATCHED, set under done_lock);
   watched: groupconc__done_watched. */
GROUPCONC__FN void groupconc__mark_done(groupconc_executor *ex, groupconc_task *t,
                                        groupconc__claims *claimed) {
    groupconc__st cur = atomic_load_explicit(&t->state, memory_order_relaxed);
    while (!(cur & GROUPCONC__ST_WATCHED))
        if (atomic_compare_exchange_weak_explicit(&t->state, &cur, cur | GROUPCONC__ST_DONE,
                                                  memory_order_acq_rel, memory_order_relaxed))
            return; /* release: publishes the result */
    groupconc__done_watched(ex, t, claimed);
}

/* Finish a task that left every queue: its cleanup (if it never ran), COMPLETED event, then its
   completion callbacks, then DONE (waking waiters), then the executor lets go of it. No lock held on entry.
   `claimed` (may be NULL) is the next task the calling worker already took: it is handed back before
   any user code runs here, so a listener or callback may wait on it. Returns 1 if the caller must
   retire t from ex->unfinished, else 0. */
GROUPCONC__HOT size_t groupconc__complete_inline(groupconc_executor *ex, groupconc_task *t,
                                                 groupconc__claims *claimed, groupconc__nodes *recycle) {
    size_t counted = (t->bits & GROUPCONC__B_COUNTED) ? 1 : 0;
    groupconc_result r;
    groupconc__st old;
    if (t->bits & GROUPCONC__B_LEASED) { /* first: the fleet's capacity is the scarcest */
        groupconc__frame f;
        t->bits &= (uint16_t)~GROUPCONC__B_LEASED; /* DONE, in no list: this thread owns its bits */
        groupconc__user_code_next(ex); /* a provider may wait on its server */
        groupconc__frame_push(&f, ex, t);
        ex->policy.fleet.release(ex->policy.fleet.user_data, t->group->key, groupconc__fleet_of(t)->lease);
        groupconc__frame_pop(&f);
    }
    if ((t->bits & (GROUPCONC__B_HAS_CLEANUP | GROUPCONC__B_RAN)) == GROUPCONC__B_HAS_CLEANUP) {
        groupconc__give_back(ex, claimed);
        groupconc__release_arg(ex, t); /* it never ran (or a handler decided): released here */
    }
    if (ex->policy.listener) {
        groupconc__give_back(ex, claimed);
        groupconc__fill_result(t, &r);
        groupconc__emit(ex, t, GROUPCONC_EVENT_COMPLETED, r.group, r.task_id, 0, &r);
    }
    old = atomic_load_explicit(&t->state, memory_order_acquire);
    /* held by the executor alone (no handle, never watched: a fire-and-forget task, out of every
       list now): nobody can reach it any more, so nobody would read its ST_DONE, nor can a
       reference appear; freed at once, with no atomic write. Else: ST_DONE, then let go. */
    if ((old & (GROUPCONC__ST_REFS | GROUPCONC__ST_WATCHED)) != GROUPCONC__ST_EXEC_REF) {
        groupconc__mark_done(ex, t, claimed);
        old = atomic_fetch_and_explicit(&t->state, (groupconc__st)~GROUPCONC__ST_EXEC_REF,
                                        memory_order_acq_rel);
    }
    if ((old & GROUPCONC__ST_REFS) == GROUPCONC__ST_EXEC_REF) {
        if (!recycle) {
            groupconc__task_free(t);
            return counted;
        }
        groupconc__nodes_unref(recycle, t->group); /* a worker's: let go of with the others */
        size_t k = (t->bits & GROUPCONC__B_OBSERVED) ? 1 : 0; /* its size: groupconc__node_size */
        if (!(t->bits & (GROUPCONC__B_HAS_ID | GROUPCONC__B_HAS_CLEANUP | GROUPCONC__B_HAS_DEADLINE |
                         GROUPCONC__B_FLEET)) &&
            recycle->count[k] < GROUPCONC__NODE_CACHE_MAX) { /* handed back to the submitters */
            if (!recycle->head[k]) recycle->tail[k] = t;
            t->next = recycle->head[k];
            recycle->head[k] = t;
            recycle->count[k]++;
        } else {
            GROUPCONC_FREE(t);
        }
    }
    return counted;
}

/* The one copy for every caller; settle's loop (a worker's and flush's) inlines the body. */
GROUPCONC__FN size_t groupconc__complete(groupconc_executor *ex, groupconc_task *t, groupconc__claims *claimed,
                                         groupconc__nodes *recycle) {
    return groupconc__complete_inline(ex, t, claimed, recycle);
}

/* A deferred completion (groupconc_context_defer): the body's handle. Its two flags, under ex->lock,
   settle which side finishes the task: a completion that comes before the body returned leaves
   its result here for the worker (result_in); a body that returns first parks the task in
   its shard's deferred for the completion to finish (parked). The side that comes second frees it. */
struct groupconc_deferred {
    groupconc_task *task;
    void *value;
    int rc;
    bool result_in, parked;
};
/* Store a task's result: its cleanup first (arg and value share a word), then the value and the
status its code means. On the thread that owns the task, with no lock held. B_RAN is set later, under
the lock (finish_locked): the task is still listed in its shard's running, whose tasks' bits the
   stats and the dump read under the lock. */
GROUPCONC__HOT void groupconc__set_result(groupconc_executor *ex, groupconc_task *t, int rc, void *value) {
    groupconc__release_arg(ex, t); /* the body (or the deferred work) no longer uses arg */
    t->value = value;
    if (rc == 0) {
        t->status = GROUPCONC_STATUS_SUCCESS;
    } else if (rc == GROUPCONC_TASK_CANCELLED) {
        t->status = GROUPCONC_STATUS_CANCELLED;
    } else { /* GROUPCONC_TASK_PENDING without a deferral too */
        t->status = GROUPCONC_STATUS_FAILED;
        groupconc__set_error(t, rc);
    }
}

#ifndef GROUPCONC_NO_SCOPES
/* A scope's fork runs as groupconc__fork_body on its fork record (structured scopes, below); the
   caller's function, argument and cleanup are in that record, which lives until the fork's
   completion has been reported (its scope's close waits for it). */
GROUPCONC__FN int groupconc__fork_body(groupconc_context *ctx, void **out_value, void *arg);
GROUPCONC__FN void groupconc__fork_user(void *fork, groupconc_task_fn *fn, void **arg,
                                        groupconc_cleanup_fn *cleanup);
GROUPCONC__FN bool groupconc__fork_starts(groupconc_task *t);
GROUPCONC__FN void groupconc__scopes_left_open(const groupconc__frame *body, int body_rc);
GROUPCONC__FN bool groupconc__scopes_held_locked(groupconc_executor *ex);
GROUPCONC__FN void groupconc__scopes_free(groupconc_executor *ex);
#endif

/* Run t's body on this thread (its owner now), then store its result. `start`: the clock, read with
   nothing run since (the end of the worker's previous task), taken as t's start time; 0: read it.
   Returns false if the body deferred its completion and the task is parked in its shard's deferred (the
   worker is done with it). */
GROUPCONC__HOT bool groupconc__run_inline(groupconc_executor *ex, groupconc_task *t, uint64_t start,
                                          bool on_worker) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    bool timed = (t->bits & GROUPCONC__B_OBSERVED) != 0; /* nobody sees a fire-and-forget's times */
    void *value = NULL;
    groupconc__frame f;
    int rc;
#ifndef GROUPCONC_NO_SCOPES
    if (t->fn == groupconc__fork_body && !groupconc__fork_starts(t)) { /* its scope was shut down */
        t->start_ns = t->end_ns = groupconc__now_ns(); /* never ran: no STARTED event, zero duration */
        groupconc__set_result(ex, t, GROUPCONC_TASK_CANCELLED, NULL);
        groupconc__exec_lock(ex); /* no lock is held here; others read its bits under it */
        t->bits |= GROUPCONC__B_SKIPPED;
        groupconc__exec_unlock(ex);
        return true;
    }
#endif
    groupconc__frame_push(&f, ex, t); /* a wait on t from its own body would wait for itself */
    f.on_worker = on_worker;
#ifndef GROUPCONC_NO_SCOPES
    /* a CALLER_RUNS run in submit, not a fork, is on its caller's thread, which may close what it
       opened later itself (inside another body, that body's return closes it) */
    f.body = on_worker || t->fn == groupconc__fork_body;
#endif
    if (ex->policy.listener)
        groupconc__emit(ex, t, GROUPCONC_EVENT_STARTED, t->group->key, groupconc__task_id(t), 0, NULL);
    if (timed) t->start_ns = start && !ex->policy.listener ? start : groupconc__now_ns(); /* after the event */
    rc = t->fn((groupconc_context *)(void *)t, &value, t->arg);
#ifndef GROUPCONC_NO_SCOPES
    if (f.body) groupconc__scopes_left_open(&f, rc);
#endif
    groupconc__frame_pop(&f);
    if (f.blocking) atomic_fetch_sub_explicit(&ex->pool.nhinted, 1, memory_order_relaxed); /* a hint */
    if (f.deferral) {
        struct groupconc_deferred *d = f.deferral;
        if (rc == GROUPCONC_TASK_PENDING) {
            groupconc__exec_lock(ex);
            if (!d->result_in) { /* park it: the completion finishes it */
                groupconc__fifo_remove(&sh->running, t);
                groupconc__fifo_push(&sh->deferred, t);
                groupconc__set_stage(t, GROUPCONC__DEFERRED);
                d->parked = true;
                groupconc__exec_unlock(ex);
                return false;
            }
            groupconc__exec_unlock(ex);
            rc = d->rc; /* completed before the body returned */
            value = d->value;
        }
        GROUPCONC_FREE(d); /* used, or void: the body returned something else */
    }
    t->end_ns = timed ? groupconc__now_ns() : t->start_ns; /* fn is dead: end_ns shares its word */
    groupconc__set_result(ex, t, rc, value);
    return true;
}

/* The one copy for every caller; a worker's batch loop inlines the body (groupconc__worker_run_batch). */
GROUPCONC__FN bool groupconc__run(groupconc_executor *ex, groupconc_task *t, uint64_t start, bool on_worker) {
    return groupconc__run_inline(ex, t, start, on_worker);
}

/* Run the custom rejection handler for t and apply its decision: the result, the cleanup (unless
   it took arg), and the counters when the outcome is no longer REJECTED. No lock held; t is this
   thread's alone (a cancel leaves a rejected task with a handler alone). A fork's handler sees the
   caller's fn, arg and cleanup, never the scope's wrapper: with arg_taken the fork's cleanup (the
   caller's) is not called, as for any task. */
GROUPCONC__FN void groupconc__apply_handler(groupconc_executor *ex, groupconc_task *t, int reason,
                                            bool in_submit) {
    const groupconc_policy *p = &ex->policy;
    groupconc_rejection rj;
    groupconc_reject_result out;
    groupconc__frame f;
    int status;
    rj.executor = ex;
    rj.group = t->group->key;
    rj.task_id = groupconc__task_id(t);
    rj.fn = t->fn;
    rj.arg = t->arg;
    rj.cleanup = groupconc__cleanup_of(t);
#ifndef GROUPCONC_NO_SCOPES
    if (rj.fn == groupconc__fork_body) groupconc__fork_user(t->arg, &rj.fn, &rj.arg, &rj.cleanup);
#endif
    rj.reason = reason;
    rj.in_submit = in_submit;
    out.status = GROUPCONC_STATUS_REJECTED;
    out.value = NULL;
    out.error = 0;
    out.arg_taken = false;
    groupconc__frame_push(&f, ex, t);
    p->reject_handler(&rj, &out, p->reject_user_data);
    groupconc__frame_pop(&f);
    if (out.arg_taken) atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_ARG_DONE, memory_order_relaxed);
    else groupconc__release_arg(ex, t);
    status = (int)out.status;
    if (status != GROUPCONC_STATUS_SUCCESS && status != GROUPCONC_STATUS_FAILED &&
        status != GROUPCONC_STATUS_CANCELLED) { /* REJECTED, or not a final status: the default stands */
        groupconc__exec_lock(ex);
        groupconc__refusal_decided_locked(t);
        groupconc__count_locked(ex, t->group, groupconc__outcome_index(GROUPCONC_STATUS_REJECTED, reason), 1);
        groupconc__exec_unlock(ex);
        return;
    }
    t->status = (uint8_t)status;
    if (status == GROUPCONC_STATUS_FAILED) groupconc__set_error(t, out.error);
    if (status != GROUPCONC_STATUS_CANCELLED) { /* the value goes where fn and arg were */
        t->value = out.value;
        t->end_ns = t->start_ns;
        t->bits |= GROUPCONC__B_RAN;
    }
    groupconc__exec_lock(ex);
    groupconc__refusal_decided_locked(t);
    groupconc__count_locked(ex, t->group, groupconc__outcome_index(status, 0), 1);
    groupconc__exec_unlock(ex);
}

/* Handle an asynchronous rejection: the REJECTED event, then the handler or the policy. Returns 1 if
   the caller must retire t (it completed), 0 if it went back to the ready queue (CALLER_RUNS) or a
   cancel took it. Under CALLER_RUNS with no handler a cancel may act on it while it waits here
   (see B_SETTLING): only its immutable fields are read here without the lock. */
GROUPCONC__FN size_t groupconc__settle_rejected(groupconc_executor *ex, groupconc_task *t,
                                                groupconc__claims *claimed) {
    const groupconc_policy *p = &ex->policy;
    int reason = groupconc__reject_reason(t);
    bool caller_runs = !groupconc__is_expiry(reason) && !p->reject_handler &&
                       p->rejection == GROUPCONC_REJECT_CALLER_RUNS;
    groupconc__give_back(ex, claimed); /* user code next: it may wait on what we took */
    if (caller_runs) {
        /* a cancel may take it until the REJECTED event begins (then it completes it, with no
           REJECTED event: it was called off first), and only flag it from then on, so that its
           COMPLETED never comes before its REJECTED */
        bool taken;
        groupconc__exec_lock(ex);
        taken = (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_TAKEN) != 0;
        if (!taken) { /* listed meanwhile: a shutdown, or its group's, flags it */
            t->bits |= GROUPCONC__B_SETTLING;
            groupconc__fifo_push(&groupconc__shard_of(ex, t->group)->caller_running, t);
            /* a group shutdown or evict since its refusal did not find it (in our batch): as if */
            if ((t->bits & GROUPCONC__B_UNDECIDED) && t->start_ns <= t->group->cold->swept_ns)
                atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
        }
        groupconc__exec_unlock(ex);
        if (taken) {
            groupconc__drop_claim_ref(t);
            return 0;
        }
    }
    if (p->listener)
        groupconc__emit(ex, t, GROUPCONC_EVENT_REJECTED, t->group->key, groupconc__task_id(t), reason,
                        NULL);
    if (groupconc__is_expiry(reason)) {
        /* a queue deadline is a promise not to run late: no handler, no CALLER_RUNS */
    } else if (p->reject_handler) {
        groupconc__apply_handler(ex, t, reason, false);
    } else if (caller_runs) {
        /* "else on a worker": back to the ready queue holding no permits; or, flagged during the
           event (a cancel, a shutdown or its group's), or after an immediate shutdown came before
           it was listed, CANCELLED here without running. Its refusal never counted as an outcome
           (groupconc__refusal_counted); caller_runs counts it once it has run (finish_locked). */
        bool cancelled;
        groupconc__exec_lock(ex);
        groupconc__fifo_remove(&groupconc__shard_of(ex, t->group)->caller_running, t);
        t->bits &= (uint16_t)~GROUPCONC__B_SETTLING;
        cancelled = (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_CANCEL) != 0 ||
                    ex->swept;
        if (cancelled) {
            groupconc__refusal_cancelled_locked(ex, t);
        } else {
            groupconc__refusal_decided_locked(t);
            t->bits |= GROUPCONC__B_NO_PERMITS;
            t->status = GROUPCONC_STATUS_PENDING;
            groupconc__push_ready(ex, t);
            (void)groupconc__kick_locked(ex);
        }
        groupconc__exec_unlock(ex);
        if (!cancelled) return 0;
    }
    return groupconc__complete(ex, t, NULL, NULL);
}

/* Fleet requests this thread makes once its current ones are made (see groupconc__fleet_ask). */
static GROUPCONC__TLS groupconc_task *groupconc__asks_later, *groupconc__asks_later_tail;
static GROUPCONC__TLS bool groupconc__asking;

/* Make this thread's list of fleet requests, oldest first, with no lock held. */
GROUPCONC__FN void groupconc__fleet_asks_make(void) {
    groupconc_task *t;
    bool outer = groupconc__asking;
    groupconc__asking = true;
    while ((t = groupconc__asks_later) != NULL) {
        groupconc_executor *ex = t->group->exec;
        groupconc__frame f;
        groupconc__asks_later = groupconc__fleet_of(t)->ask_next; /* before: the answer may free t */
        if (!groupconc__asks_later) groupconc__asks_later_tail = NULL;
        groupconc__frame_push(&f, ex, NULL);
        ex->policy.fleet.acquire(ex->policy.fleet.user_data, (groupconc_fleet_request *)(void *)t,
                                 t->group->key);
        groupconc__frame_pop(&f);
    }
    groupconc__asking = outer;
}

/* Put the fleet requests a locked section collected on this thread's list, not made yet: a wait
   before they are made (in a callback the section's settling runs) makes them first
   (groupconc__fleet_asks_before_block). */
GROUPCONC__FN void groupconc__fleet_defer(groupconc__batch *b) {
    if (!b->asks) return;
    if (groupconc__asks_later_tail) groupconc__fleet_of(groupconc__asks_later_tail)->ask_next = b->asks;
    else groupconc__asks_later = b->asks;
    groupconc__asks_later_tail = b->asks_tail;
    b->asks = b->asks_tail = NULL;
}

/* Make this thread's fleet requests, unless an outer call (an acquire that answered at once) is
   making them: a provider that answers inside acquire can lead to more requests (a REJECT hands
   local permits on); they join this thread's list and the outermost call makes them, in order,
   without recursion. */
GROUPCONC__FN void groupconc__fleet_asks_now(void) {
    if (groupconc__asks_later && !groupconc__asking) groupconc__fleet_asks_make();
}

/* Make the fleet requests a locked section collected. */
GROUPCONC__FN void groupconc__fleet_ask(groupconc__batch *b) {
    groupconc__fleet_defer(b);
    groupconc__fleet_asks_now();
}

/* Before this thread blocks (a wait, graceful shutdown, destroy): make the requests it holds back.
   Inside a provider's acquire that answered at once, the code the answer ran (a rejection handler,
   an event, a completion callback) may wait for a task whose request waits in this thread's list,
   which the outer call would make only after acquire returned: nobody else would. So acquire is
   called again on this thread before its first call returned ("fleet layer" in the manual). */
GROUPCONC__FN void groupconc__fleet_asks_before_block(void) {
    if (groupconc__asks_later) groupconc__fleet_asks_make();
}

/* Settle what a locked section collected, with no lock held: complete the finished and cancelled
   tasks, oldest first, then handle the rejections (a rejection handler or a REJECTED listener may
   take long: a task that already returned is not held back behind another's refusal, helper-72).
   Both lists are this thread's debt, named in a frame so that a wait inside one of these callbacks
   settles the task it waits for first (groupconc__pay); a wait on another thread cannot take them
   over (LIMITATIONS). The section's fleet requests (b's) are made between the two, and by any wait
   inside a callback before that (helper-73: a completion callback waiting for the task its end
   handed the group's permit to waited for a request nobody would make). Returns how many tasks
   to retire. */
GROUPCONC__FN size_t groupconc__settle(groupconc_executor *ex, groupconc__batch *b,
                                       groupconc__fifo *rejected, groupconc__fifo *todo,
                                       groupconc__claims *claimed, groupconc__nodes *recycle) {
    groupconc__frame f;
    groupconc_task *t;
    size_t retired = 0;
    groupconc__fleet_defer(b);
    if (rejected->count == 0 && todo->count == 0) {
        groupconc__fleet_asks_now();
        return 0;
    }
    groupconc__frame_push(&f, ex, NULL);
    f.owed_rejected = rejected;
    f.owed = todo;
    while ((t = groupconc__fifo_pop(todo)) != NULL) retired += groupconc__complete_inline(ex, t, claimed, recycle);
    groupconc__fleet_asks_now();
    while ((t = groupconc__fifo_pop(rejected)) != NULL) retired += groupconc__settle_rejected(ex, t, claimed);
    groupconc__fleet_asks_now();
    retired += f.settled;
    groupconc__frame_pop(&f);
    return retired;
}

/* A wait inside a callback on a task this thread owes (frame f's lists): settle the list holding it
   up to and including it, in order. A callback of one it settles on the way may wait on t too
   (or on a later one): that wait pays from the same lists, and may take t before this loop gets
   to it (f->paid tells), so the loop looks again for t after it, and stops once t is gone. */
GROUPCONC__FN bool groupconc__pay(groupconc_executor *ex, groupconc__frame *f, const groupconc_task *t) {
    groupconc__fifo *lists[2];
    int i;
    lists[0] = f->owed_rejected;
    lists[1] = f->owed;
    for (i = 0; i < 2; i++) {
        const groupconc_task *u;
        if (!lists[i]) continue;
        for (u = lists[i]->head; u && u != t; u = u->next) {}
        if (!u) continue;
        for (;;) {
            groupconc_task *v = groupconc__fifo_pop(lists[i]);
            size_t paid = ++f->paid, settled;
            settled = i == 0 ? groupconc__settle_rejected(ex, v, NULL)
                             : groupconc__complete(ex, v, NULL, NULL);
            f->settled += settled; /* after the call: a wait inside it adds its own */
            if (v == t) return true;
            if (f->paid != paid) { /* a callback's wait paid meanwhile */
                for (u = lists[i]->head; u && u != t; u = u->next) {}
                if (!u) return true; /* t among what it settled */
            }
        }
    }
    return false;
}

GROUPCONC__FN size_t groupconc__flush(groupconc_executor *ex, groupconc__batch *b) {
    return groupconc__settle(ex, b, &b->rejected, &b->todo, NULL, NULL);
}

/* From an API call (not a worker, which retires at its next locked step): retire n tasks now. */
GROUPCONC__FN void groupconc__retire(groupconc_executor *ex, size_t n) {
    if (n) {
        groupconc__exec_lock(ex);
        groupconc__retire_locked(ex, n);
        groupconc__exec_unlock(ex);
    }
}

GROUPCONC__FN void groupconc__flush_and_retire(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__retire(ex, groupconc__flush(ex, b));
}

/* ==== handles: waiting, cancelling, results ==================================================== */

GROUPCONC__FN int groupconc__handle_check(groupconc_task *t) {
    if (!t) return GROUPCONC_EINVAL;
    if (!(atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_HANDLE_REF))
        return GROUPCONC_ERELEASED;
    return GROUPCONC_OK;
}

GROUPCONC__FN bool groupconc__is_done(groupconc_task *t) {
    return (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_DONE) != 0;
}

/* The executor a handle belongs to, for GROUPCONC__NOT_IN_RESOLVER: NULL once its task is done (a
   finished handle may outlive its executor; the handle's group reference keeps t->group alive). */
GROUPCONC__FN const groupconc_executor *groupconc__task_exec(groupconc_task *t) {
    return groupconc__is_done(t) ? NULL : t->group->exec;
}

/* Block until done or `deadline` (monotonic ns; UINT64_MAX = none), sleeping on `cv` (one the
   caller made: execute_all makes its one before it submits anything, so that no wait of its can
   fail for memory) or, where NULL, on one made here. A done task never touches its executor, so
   this works after the executor was destroyed. */
GROUPCONC__FN int groupconc__wait_on(groupconc_task *t, uint64_t deadline, groupconc__cond *given) {
    groupconc_executor *ex;
    groupconc__cond own, *cv = given; /* `own` is made below, where none is given */
    groupconc__watch w, **pw;
    groupconc__frame *f;
    groupconc__claims *claims = NULL;
    bool timed_out = false;
    /* its own body, event, handler, cleanup or completion callback: t is marked done only after
       them, so a wait there would wait for itself. A callback that runs at once because t is done
       (on_complete after completion) gets the same answer: the outcome does not depend on timing. */
    for (f = groupconc__frames; f; f = f->prev)
        if (f->self == t) return GROUPCONC_EDEADLK;
    if (groupconc__is_done(t)) return GROUPCONC_OK;
    ex = t->group->exec;
    for (f = groupconc__frames; f; f = f->prev) { /* what this thread is inside of */
        if (f->ex != ex) continue;
        if (f->claims) claims = f->claims;          /* a worker of ex */
        if (groupconc__pay(ex, f, t) && groupconc__is_done(t)) return GROUPCONC_OK;
    }
    if (deadline != UINT64_MAX && groupconc__now_ns() >= deadline) return GROUPCONC_ETIMEDOUT;
    if (groupconc__in_keeper(ex)) return GROUPCONC_EDEADLK; /* it must not block: see keeper_main */
    if (!given) {
        if (groupconc__cond_init(&own) != GROUPCONC_OK) return GROUPCONC_ENOMEM;
        cv = &own;
    }
    /* A worker that ran t may have left it unfinished in a batch while it runs a long task: once
       nwaiters is up, workers finish at once; what was published before, finish here. A worker
       blocking here hands back what it took and lets the pool grow by one (nblocked, read by
       kick_locked and, with the push before it, by groupconc__inbox_look: both seq_cst). */
    atomic_fetch_add_explicit(&ex->pool.nwaiters, 1, memory_order_seq_cst); /* P2, the waiter's end */
    if (claims) atomic_fetch_add_explicit(&ex->pool.nblocked, 1, memory_order_seq_cst);
    {
        groupconc__batch b = GROUPCONC__BATCH_INIT;
        groupconc__lock(ex, &b);
        groupconc__help_locked(ex, &b, true);
        if (claims) groupconc__unclaim_locked(ex, claims); /* kicks */
        (void)groupconc__kick_locked(ex);
        groupconc__exec_unlock(ex);
        groupconc__flush_and_retire(ex, &b);
    }
    groupconc__fleet_asks_before_block();
    groupconc__mutex_lock(&ex->done_lock);
    if (!(atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_WATCHED, memory_order_acq_rel) &
          GROUPCONC__ST_DONE)) {
        groupconc__observed *ob = groupconc__observed_of(t); /* waited on: it has a handle */
        w.fn = NULL;
        w.user_data = NULL;
        w.cv = cv;
        w.next = ob->watchers;
        ob->watchers = &w;
        while (!groupconc__is_done(t)) {
            if (deadline == UINT64_MAX) {
                groupconc__cond_wait(cv, &ex->done_lock);
            } else if (!groupconc__cond_wait_until(cv, &ex->done_lock, deadline)) {
                timed_out = !groupconc__is_done(t);
                break;
            }
        }
        for (pw = &ob->watchers; *pw; pw = &(*pw)->next) /* still listed unless completion took it */
            if (*pw == &w) {
                *pw = w.next;
                break;
            }
    }
    groupconc__mutex_unlock(&ex->done_lock);
    if (claims) atomic_fetch_sub_explicit(&ex->pool.nblocked, 1, memory_order_seq_cst);
    atomic_fetch_sub_explicit(&ex->pool.nwaiters, 1, memory_order_seq_cst); /* t done (the executor lives)
                                                                       or timed out (it must) */
    if (!given) groupconc__cond_destroy(&own);
    return timed_out ? GROUPCONC_ETIMEDOUT : GROUPCONC_OK;
}

GROUPCONC__FN int groupconc__wait_until(groupconc_task *t, uint64_t deadline) {
    return groupconc__wait_on(t, deadline, NULL);
}

GROUPCONC__PUBLIC int groupconc_task_wait_for(groupconc_task *task, int64_t timeout_ns,
                                              groupconc_result *out_result) {
    int rc = groupconc__handle_check(task);
    if (rc != GROUPCONC_OK) return rc;
    if (!out_result) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(groupconc__task_exec(task));
    rc = groupconc__wait_until(task, groupconc__deadline(timeout_ns));
    if (rc == GROUPCONC_OK) groupconc__fill_result(task, out_result);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_task_wait(groupconc_task *task, groupconc_result *out_result) {
    return groupconc_task_wait_for(task, GROUPCONC_FOREVER, out_result);
}

GROUPCONC__PUBLIC int groupconc_task_is_done(groupconc_task *task, bool *out_done) {
    int rc = groupconc__handle_check(task);
    if (rc != GROUPCONC_OK) return rc;
    if (!out_done) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(groupconc__task_exec(task));
    *out_done = groupconc__is_done(task);
    return GROUPCONC_OK;
}

/* A task a cancel can only flag: deferred (off its worker), a CALLER_RUNS run inside submit, on the
   submitting thread now, or a CALLER_RUNS refusal whose REJECTED event is under way (B_SETTLING:
   its COMPLETED must come after it). Under ex->lock. */
GROUPCONC__FN bool groupconc__flag_only_locked(groupconc_task *t) {
    const groupconc_policy *p;
    if (t->stage == GROUPCONC__DEFERRED) return true;
    if (t->stage != GROUPCONC__REJECTED) return false;
    if (atomic_load_explicit(&t->state, memory_order_acquire) & GROUPCONC__ST_STARTED) return true;
    /* its bits are read only where they are written under the lock: a CALLER_RUNS refusal (a
       handler's thread, or an expiry's, owns the bits of its task without the lock) */
    p = &t->group->exec->policy;
    return !groupconc__is_expiry(groupconc__reject_reason(t)) && !p->reject_handler &&
           p->rejection == GROUPCONC_REJECT_CALLER_RUNS && (t->bits & GROUPCONC__B_SETTLING);
}

GROUPCONC__PUBLIC int groupconc_task_cancel(groupconc_task *task,
                                            groupconc_cancel_outcome *out_outcome) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc_cancel_outcome outcome = GROUPCONC_CANCEL_TOO_LATE;
    groupconc_executor *ex;
    bool taken_rejected = false;
    int rc = groupconc__handle_check(task);
    if (rc != GROUPCONC_OK) return rc;
    GROUPCONC__NOT_IN_RESOLVER(groupconc__task_exec(task));
    if (!groupconc__is_done(task)) {
        ex = task->group->exec;
        groupconc__lock(ex, &b); /* it may still be in the inbox */
        if (task->stage == GROUPCONC__QUEUED || task->stage == GROUPCONC__READY) {
            groupconc__unlink_waiting(ex, task);
            groupconc__cancel_locked(ex, task, &b);
            groupconc__pump(ex, &b);
            (void)groupconc__kick_locked(ex);
            outcome = GROUPCONC_CANCEL_DEQUEUED;
        } else if (groupconc__flag_only_locked(task)) {
            atomic_fetch_or_explicit(&task->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
            outcome = GROUPCONC_CANCEL_FLAGGED;
        } else if (task->stage == GROUPCONC__REJECTED && !ex->policy.reject_handler &&
                   ex->policy.rejection == GROUPCONC_REJECT_CALLER_RUNS &&
                   !groupconc__is_expiry(groupconc__reject_reason(task))) { /* an expiry is final: too late */
            /* refused, its CALLER_RUNS re-run not queued yet: call it off and complete it here.
               It may still be linked in the batch of the thread handling its rejection, so its
               links are left alone; that thread sees ST_TAKEN under the lock and lets go. */
            atomic_fetch_or_explicit(&task->state,
                                     GROUPCONC__ST_CANCEL | GROUPCONC__ST_TAKEN | GROUPCONC__ST_CLAIM_REF,
                                     memory_order_acq_rel);
            groupconc__refusal_cancelled_locked(ex, task);
            taken_rejected = true;
            outcome = GROUPCONC_CANCEL_DEQUEUED;
        } else if (task->stage == GROUPCONC__RUNNING) {
            outcome = GROUPCONC_CANCEL_FLAGGED;
            if (groupconc__take_or_flag_locked(ex, task, &b)) { /* its worker had not started it */
                groupconc__pump(ex, &b);
                (void)groupconc__kick_locked(ex);
                outcome = GROUPCONC_CANCEL_DEQUEUED;
            }
        }
        groupconc__exec_unlock(ex);
        groupconc__flush_and_retire(ex, &b);
        if (taken_rejected) groupconc__retire(ex, groupconc__complete(ex, task, NULL, NULL));
    }
    if (out_outcome) *out_outcome = outcome;
    return GROUPCONC_OK;
}

/* ---- cancelling a set of tasks as one step ----
   A scope's shutdown and execute_all's deadline cancel many tasks of one executor. One by one (each
   a groupconc_task_cancel), a running task of the set, flagged first, could return and hand its
   permit to a waiting task of the same set, which then started (its cancel not yet flagged) before
   its own turn came: "dequeued, never run" did not hold. So the set is cancelled under one hold of
   the lock, as a group shutdown's sweep is: every waiting task of the set is taken out of its queue
   first (set_dequeue_locked), then they are cancelled, which releases their permits to waiters
   outside the set (set_cancel_locked), then the running ones are taken or flagged and the deferred
   ones flagged (set_flag_locked), then one pump. The caller then cancels what is left undone one by
   one (a refusal whose CALLER_RUNS re-run is pending: groupconc_task_cancel completes it). */
GROUPCONC__FN void groupconc__set_dequeue_locked(groupconc_executor *ex, groupconc_task *t,
                                                 groupconc__fifo *victims) {
    if (t->stage != GROUPCONC__QUEUED && t->stage != GROUPCONC__READY) return;
    groupconc__unlink_waiting(ex, t); /* its permits stay until every victim is out */
    groupconc__fifo_push(victims, t);
}

GROUPCONC__FN void groupconc__set_cancel_locked(groupconc_executor *ex, groupconc__fifo *victims,
                                                groupconc__batch *b) {
    groupconc_task *t;
    while ((t = groupconc__fifo_pop(victims)) != NULL) groupconc__cancel_locked(ex, t, b);
}

GROUPCONC__FN void groupconc__set_flag_locked(groupconc_executor *ex, groupconc_task *t, groupconc__batch *b) {
    if (t->stage == GROUPCONC__RUNNING)
        (void)groupconc__take_or_flag_locked(ex, t, b);
    else if (groupconc__flag_only_locked(t))
        atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_CANCEL, memory_order_relaxed);
}

/* Unlock after a set's step: hand on what it freed, complete what it cancelled. */
GROUPCONC__FN void groupconc__set_unlock(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__pump(ex, b);
    (void)groupconc__kick_locked(ex);
    groupconc__exec_unlock_all(ex); /* a set's tasks are of any groups: every shard */
    groupconc__flush_and_retire(ex, b);
}

#ifndef GROUPCONC_NO_SCOPES /* only a scope's forks register nodes they own */
/* Register a callback node the caller owns (node->keep). False if the task is already done (the
   caller reports it itself). */
GROUPCONC__FN bool groupconc__watch_add(groupconc_task *task, groupconc__watch *node) {
    groupconc_executor *ex = task->group->exec;
    bool added = false;
    groupconc__mutex_lock(&ex->done_lock);
    if (!(atomic_fetch_or_explicit(&task->state, GROUPCONC__ST_WATCHED, memory_order_acq_rel) &
          GROUPCONC__ST_DONE)) {
        node->next = groupconc__observed_of(task)->watchers;
        groupconc__observed_of(task)->watchers = node;
        added = true;
    }
    groupconc__mutex_unlock(&ex->done_lock);
    return added;
}
#endif

GROUPCONC__PUBLIC int groupconc_task_on_complete(groupconc_task *task, groupconc_complete_fn fn,
                                                 void *user_data) {
    groupconc__watch *node;
    groupconc_executor *ex;
    groupconc_result r;
    int rc = groupconc__handle_check(task);
    if (rc != GROUPCONC_OK) return rc;
    if (!fn) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(groupconc__task_exec(task));
    if (!groupconc__is_done(task)) {
        ex = task->group->exec;
        node = (groupconc__watch *)GROUPCONC_MALLOC(sizeof *node);
        if (!node) return GROUPCONC_ENOMEM;
        node->fn = fn;
        node->user_data = user_data;
        node->cv = NULL;
        node->keep = false;
        groupconc__mutex_lock(&ex->done_lock);
        if (!(atomic_fetch_or_explicit(&task->state, GROUPCONC__ST_WATCHED, memory_order_acq_rel) &
              GROUPCONC__ST_DONE)) {
            node->next = groupconc__observed_of(task)->watchers;
            groupconc__observed_of(task)->watchers = node;
            groupconc__mutex_unlock(&ex->done_lock);
            return GROUPCONC_OK;
        }
        groupconc__mutex_unlock(&ex->done_lock);
        GROUPCONC_FREE(node);
    }
    groupconc__fill_result(task, &r); /* already done: run it now, on this thread */
    {
        groupconc__frame f; /* a callback of the executor, here too (destroy from it: EDEADLK) */
        groupconc__frame_push(&f, task->group->exec, task);
        fn(task, &r, user_data);
        groupconc__frame_pop(&f);
    }
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_task_release(groupconc_task *task) {
    groupconc__st old;
    if (!task) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(groupconc__task_exec(task));
    old = atomic_fetch_and_explicit(&task->state, (groupconc__st)~GROUPCONC__ST_HANDLE_REF,
                                    memory_order_acq_rel);
    if (!(old & GROUPCONC__ST_HANDLE_REF)) return GROUPCONC_ERELEASED;
    if ((old & GROUPCONC__ST_REFS) == GROUPCONC__ST_HANDLE_REF) groupconc__task_free(task);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC bool groupconc_context_is_cancelled(const groupconc_context *ctx) {
    if (!ctx) return false;
    return (atomic_load_explicit(&GROUPCONC__CTASK(ctx)->state, memory_order_relaxed) &
            GROUPCONC__ST_CANCEL) != 0;
}
GROUPCONC__PUBLIC const char *groupconc_context_group(const groupconc_context *ctx) {
    return ctx ? GROUPCONC__CTASK(ctx)->group->key : NULL;
}
GROUPCONC__PUBLIC const char *groupconc_context_task_id(const groupconc_context *ctx) {
    return ctx ? groupconc__task_id(GROUPCONC__CTASK(ctx)) : NULL;
}
GROUPCONC__PUBLIC groupconc_executor *groupconc_context_executor(const groupconc_context *ctx) {
    return ctx ? GROUPCONC__CTASK(ctx)->group->exec : NULL;
}

GROUPCONC__PUBLIC int groupconc_context_defer(groupconc_context *ctx, groupconc_deferred **out_deferred) {
    groupconc_task *t;
    groupconc__frame *f;
    struct groupconc_deferred *d;
    if (out_deferred) *out_deferred = NULL;
    if (!ctx || !out_deferred) return GROUPCONC_EINVAL;
    t = GROUPCONC__TASK(ctx);
    GROUPCONC__NOT_IN_RESOLVER(t->group->exec); /* running: its group is alive */
    for (f = groupconc__frames; f && f->self != t; f = f->prev) {} /* its body's frame (run) */
    /* not its stage: a chain's end may change that meanwhile (QUEUED to RUNNING) */
    if (!f || f->deferral || !f->on_worker) return GROUPCONC_ESTATE;
    d = (struct groupconc_deferred *)GROUPCONC_MALLOC(sizeof *d);
    if (!d) return GROUPCONC_ENOMEM;
    d->task = t;
    d->value = NULL;
    d->rc = 0;
    d->result_in = d->parked = false;
    f->deferral = d;
    *out_deferred = d;
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_deferred_complete(groupconc_deferred *deferred, int rc, void *value) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc_executor *ex;
    groupconc__shard *sh;
    groupconc_task *t;
    if (!deferred || rc == GROUPCONC_TASK_PENDING) return GROUPCONC_EINVAL;
    t = deferred->task;
    ex = t->group->exec;
    sh = groupconc__shard_of(ex, t->group);
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__exec_lock(ex);
    if (!deferred->parked) { /* its body has not returned yet: its worker takes the result */
        deferred->rc = rc;
        deferred->value = value;
        deferred->result_in = true;
        groupconc__exec_unlock(ex);
        return GROUPCONC_OK;
    }
    groupconc__fifo_remove(&sh->deferred, t); /* back among the running, to be finished */
    groupconc__fifo_push(&sh->running, t);
    groupconc__set_stage(t, GROUPCONC__RUNNING);
    groupconc__exec_unlock(ex);
    GROUPCONC_FREE(deferred);
    t->end_ns = (t->bits & GROUPCONC__B_OBSERVED) ? groupconc__now_ns() : t->start_ns;
    groupconc__set_result(ex, t, rc, value); /* its cleanup, on this thread, no lock held */
    groupconc__exec_lock(ex);
    groupconc__finish_locked(ex, t, &b);
    groupconc__fifo_push(&b.todo, t);
    (void)groupconc__kick_locked(ex);
    groupconc__exec_unlock(ex);
    groupconc__flush_and_retire(ex, &b);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC bool groupconc_deferred_is_cancelled(const groupconc_deferred *deferred) {
    if (!deferred) return false;
    return (atomic_load_explicit(&deferred->task->state, memory_order_relaxed) & GROUPCONC__ST_CANCEL) != 0;
}

/* An element of execute_all refused in submit: the call owns its argument all the same (SPEC), so
   its cleanup runs on the calling thread, as a cleanup of this executor (a blocking call from it is
   refused as from any cleanup): in submit, before its COMPLETED event, if it was refused after its
   SUBMITTED (`cleaned`), else here. Its result: REJECTED, the submit's code as the reason. */
GROUPCONC__FN void groupconc__execute_refused(groupconc_executor *ex, const groupconc_task_spec *spec,
                                              int rc, bool cleaned, groupconc_result *r) {
    memset(r, 0, sizeof *r);
    r->status = GROUPCONC_STATUS_REJECTED;
    r->reason = rc;
    r->start_ns = r->end_ns = groupconc__now_ns();
    if (spec->cleanup && !cleaned) { /* refused before SUBMITTED (else submit ran it, before COMPLETED) */
        groupconc__frame f;
        groupconc__frame_push(&f, ex, NULL);
        spec->cleanup(spec->arg);
        groupconc__frame_pop(&f);
    }
}

/* The handles live in out_results[i].value until the results are filled (no allocation: execute_all
   has no ENOMEM of its own, so each of its return codes says whether it owned the arguments). An
   element refused in submit has its result already, with a NULL value. */
GROUPCONC__PUBLIC int groupconc_execute_all(groupconc_executor *ex, const groupconc_task_spec *tasks,
                                            size_t count, int64_t timeout_ns,
                                            groupconc_result *out_results) {
    uint64_t hash;
    uint64_t deadline;
    size_t i, len;
    int rc, result = GROUPCONC_OK;
    groupconc__cond cv; /* every wait below sleeps on it */
    if (!ex || (count > 0 && (!tasks || !out_results))) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    /* it waits for what it submits, and a wait cannot block there: refused before it owns anything */
    if (groupconc__in_keeper(ex)) return GROUPCONC_EDEADLK;
    for (i = 0; i < count; i++) { /* refuse the whole call before submitting anything */
        if (!tasks[i].group || !tasks[i].fn) return GROUPCONC_EINVAL;
        if ((rc = groupconc__key_hash(tasks[i].group, &len, &hash)) != GROUPCONC_OK) return rc;
        if (!groupconc__task_wait_ok(tasks[i].max_wait_ns)) return GROUPCONC_ELIMIT;
    }
    if (count == 0)
        return atomic_load_explicit(&ex->shutdown, memory_order_relaxed) ? GROUPCONC_ESHUTDOWN
                                                                         : GROUPCONC_OK;
    if (groupconc__cond_init(&cv) != GROUPCONC_OK) return GROUPCONC_ENOMEM; /* owns nothing yet */
    deadline = groupconc__deadline(timeout_ns);
    for (i = 0; i < count; i++) { /* from here on, every element's argument is execute_all's */
        groupconc_task *h = NULL;
        bool cleaned = false;
        rc = groupconc__submit(ex, &tasks[i], &h, &cleaned);
        if (rc != GROUPCONC_OK) { /* refused in submit: that element is REJECTED, the rest go on */
            groupconc__execute_refused(ex, &tasks[i], rc, cleaned, &out_results[i]);
            if (rc == GROUPCONC_ESHUTDOWN) result = GROUPCONC_ESHUTDOWN;
        } else {
            out_results[i].value = h;
        }
    }
#define GROUPCONC__EXEC_HANDLE(i) ((groupconc_task *)out_results[i].value)
    for (i = 0; i < count; i++) {
        if (!GROUPCONC__EXEC_HANDLE(i)) continue;
        rc = groupconc__wait_on(GROUPCONC__EXEC_HANDLE(i), deadline, &cv);
        if (rc == GROUPCONC_ETIMEDOUT) {
            /* the deadline: call off everything still unfinished, as one step (see "cancelling a
               set of tasks"), then the leftovers one by one */
            groupconc__batch b = GROUPCONC__BATCH_INIT;
            groupconc__fifo victims = {NULL, NULL, 0};
            size_t j;
            if (result == GROUPCONC_OK) result = GROUPCONC_ETIMEDOUT;
            groupconc__lock_all(ex, &b);
            for (j = i; j < count; j++)
                if (GROUPCONC__EXEC_HANDLE(j)) groupconc__set_dequeue_locked(ex, GROUPCONC__EXEC_HANDLE(j), &victims);
            groupconc__set_cancel_locked(ex, &victims, &b);
            for (j = i; j < count; j++)
                if (GROUPCONC__EXEC_HANDLE(j)) groupconc__set_flag_locked(ex, GROUPCONC__EXEC_HANDLE(j), &b);
            groupconc__set_unlock(ex, &b);
            for (j = i; j < count; j++)
                if (GROUPCONC__EXEC_HANDLE(j) && !groupconc__is_done(GROUPCONC__EXEC_HANDLE(j)))
                    (void)groupconc_task_cancel(GROUPCONC__EXEC_HANDLE(j), NULL);
            break;
        }
    }
    for (i = 0; i < count; i++) {
        groupconc_result *r = &out_results[i];
        groupconc_task *h = GROUPCONC__EXEC_HANDLE(i);
        if (h) {
            /* flagged running tasks return; a task that never started completed CANCELLED in the
               cancel above (or, a refusal whose REJECTED event was under way, completes so on the
               thread handling it), one that ran reports what it returned */
            (void)groupconc__wait_on(h, UINT64_MAX, &cv); /* cannot fail: its sleep is made */
            groupconc__fill_result(h, r);
            (void)groupconc_task_release(h);
        }
        r->group = tasks[i].group;
        r->task_id = tasks[i].task_id;
    }
#undef GROUPCONC__EXEC_HANDLE
    groupconc__cond_destroy(&cv);
    return result;
}

/* ==== worker pool =============================================================================== */
/* Sized to the CPUs: a worker is started on demand (kick_locked, spawn_locked) up to the pool's
   size, one per CPU this process may run on (pool.size: min(CPUs, max_threads), from
   groupconc__cpu_count), plus one for each running task that said it blocks (nhinted,
   groupconc_context_blocking) and one for each worker blocked in a wait inside a task or callback
   (nblocked); a worker retires after keep_alive_ns idle. More start only when running tasks block:
   while ready tasks wait and the pool is at its size, the housekeeper watches (watch_locked, like
   Go's sysmon): it starts one for each waiting task when none finished for GROUPCONC__BLOCKED_NS
   while a worker sleeps in its task (a stall), or one for a task running past GROUPCONC__STUCK_NS
   while others finish; up to max_threads + nblocked. A worker that runs or waits for a CPU (Linux:
   /proc, groupconc__runnable) is never taken for blocked. kick_locked wakes idle workers before it
   starts any. The workers beyond the pool's cap retire as they next go idle once it started or woke
   none beyond its size for keep_alive_ns (pool.needed_at, groupconc__pool_surplus_locked): their own
   keep-alive starts again each time one is woken, which a trickle of work does to each in turn.
   worker_main runs one locked step at a time (worker_step_locked): admit the
   inbox, finish the tasks it ran (hand their permits on), claim the next ready tasks (FIFO), then
   run them unlocked (worker_run_batch). In a serial run (one key's queue drained by one worker,
   nothing else ready) the step is a short one instead (worker_serial_locked): finish the task, move
   its permits straight to its group's next waiter, claim that one; while its tasks are short and
   nobody waits, it also chains the waiters behind that one, to run without the lock (below).
   Chains. A chain is up to want - 1 of a group's next waiters behind the task a serial step
   claimed (chain_start_locked): self->chain[0] is that task, RUNNING; chain[1..chain_len] stay in
   their FIFO and in every count, waiting. The worker runs them one after the other without the
   lock (no locked step, no self->ret store per task), each once it has won it, and nothing else
   touches them: every ex->lock acquisition (groupconc__exec_lock, _trylock, _wait) first ends every
   chain, so that whatever the holder reads or changes is exact, as if each task had had its step.
   chain_word: the number of chained tasks the worker committed to, GROUPCONC__CHAIN_OFF once ended.

   chain step    the worker (its owner)                   whoever takes ex->lock first
   ------------  ---------------------------------------  ---------------------------------------
   start         serial step, under the lock, only while  -
                 nobody waits (nwaiters 0): chain[],
                 chain_len, chain_word 0, nchains++;
                 calls an idle worker to nap (as a batch
                 does) when none naps
   next task     CAS chain_word k -> k + 1 (acq_rel):     -
                 publishes chain[k], which returned, and
                 commits to chain[k + 1] (chain_next);
                 not tried with tasks in the inbox, after
                 a slow batch, or after a watched task
                 (a waiter, a callback: worker_pass)
   no next       publishes its last task in self->ret     -
                 (publish, P2), goes to the lock
   end           its own lock ends it, as anyone's        fetch_or CHAIN_OFF (acq_rel) gives k:
                                                          chain[0..k-1] returned: finished (DONE,
                                                          counted) into self->chain_done, nfinished
                                                          k; chain[k] RUNNING and STARTED (a cancel
                                                          flags it, nobody steals it); the rest are
                                                          plain waiters; nchains-- (chain_end_locked)
   completion    its next step takes chain_done           a waiter or a helper takes chain_done with
                 (w->done), before what it finishes       the published tasks (help_locked)

   A thread that starts to wait raises nwaiters, then takes the lock: the chain ends there, and its
   help completes what the end finished (P2 holds without a store per task). A chained task's body
   sees its stage only under the lock (groupconc_context_defer and _blocking look at its frame).
   An idle worker, in this order: spins (one at a time, and only after short tasks: spin_locked),
   naps in GROUPCONC__HELP_NS steps (one at a time, while another worker runs short tasks or left
   tasks unfinished: it takes over should that worker get stuck), or sleeps until kicked or its
   keep-alive runs out.
   Batches: while tasks are short a worker claims up to GROUPCONC_BATCH_MAX at once and finishes
   them together at its next locked step. What it ran is published as it goes (publish), so that a
   waiter or an idle worker can finish it (help_locked); what it claimed but has not started can be
   taken over by an idle worker (steal_locked) or is handed back (unclaim_locked).

   Worker states. The loop in worker_main: a locked step, then the batch outside the lock or, with
   nothing to do, one idle turn under it (worker_idle_locked: spin, nap or sleep). Slow and blocked
   are conditions of a worker in its loop rather than places in it.

   state     what it does; what the others see of it       moves on when (function)
   --------  --------------------------------------------  ----------------------------------------
   starting  spawned, not at the lock yet: counted in      it holds ex->lock and lowers nstarting
             nthreads and nstarting once its thread        (P1): step (worker_main)
             exists (kick_locked counts it for one ready
             task)
   step      under ex->lock: admits the inbox, finishes    something to run or to settle: batch;
             its last batch, retires completions, claims   nothing: an idle turn
             ready tasks (FIFO), or with none helps a      (worker_step_locked)
             stuck worker and steals from it; busy_since
             is NOT_BUSY (UINT64_MAX) from its batch's
             end: nobody needs to help it (busy_ns). Or,
             in a serial run, the short step: its one
             task finished, its permits moved to its
             group's next waiter, claimed, maybe a
             chain behind it (worker_serial_locked)
   batch     unlocked: settles what the step collected,    every claim run, or a thread waits
             then runs its claims back to back, publishing (publish true): step; past BATCH_NS:
             each (self->ret, P2), then its chain, each    slow, then step; the chain ended, used
             task won by a CAS that publishes the one      up, or the inbox not empty: step
             before; busy_since is its current task's      (worker_settle, worker_run_batch,
             start (NOT_BUSY while it sleeps on ex->lock   worker_pass)
             from inside it: exec_mutex_lock); `want`
             doubles while tasks are short
   slow      its last batch ran past BATCH_NS: the next    a batch within BATCH_NS
             step hands back the claims it did not start   (worker_run_batch clears w->slow)
             (worker_claim_locked) and takes one; no spin.
             Meanwhile an idle worker or a waiter finishes
             what it published (help_locked), an idle one
             steals what it claimed (steal_locked)
   blocked   a task or callback it runs waits for a task:  the wait returns: back in its batch
             its claims are handed back, nwaiters (P2)     (groupconc__wait_until)
             and nblocked raised: the others finish at
             once, the pool may start one more thread
   spinning  the first idle turn since its last batch, not an inbox push, spin_poke (kick_locked,
             slow, no other worker in short tasks: polls   call_helper_locked) or SPIN_NS: step
             the inbox unlocked, as the only spinner       (spin_locked; it may decline: step)
             (nspinning, P1)
   napping   idle while another worker runs short tasks    work_cv signalled (kick_locked,
             or left some unfinished, as the only napper:  call_helper_locked) or HELP_NS: step,
             nidle and nnapping raised (P1), then a last   which may help; keep_alive_ns idle:
             look at the inbox; waits up to HELP_NS        retiring (worker_sleep_locked)
   sleeping  idle otherwise: nidle raised (P1), a last     work_cv signalled: step; keep_alive_ns
             look at the inbox; waits on work_cv until     idle with nothing ready: retiring
             its keep-alive runs out                       (worker_sleep_locked)
   retiring  idle keep_alive_ns, or one beyond the     the inbox empty: gone, nthreads lowered,
             pool's cap as it goes idle once none was      moved to ex->pool.zombies, joined by the next
             needed for keep_alive_ns (pool_surplus):      spawn_locked or by destroy; else: step
             under every stripe lock (where submit         (worker_retire_locked)
             checks for a worker and pushes), it looks
             at the inbox once more
   exiting   an idle turn once destroy set ex->stopping    it returns; destroy joins it
             (and broadcast on work_cv)                    (worker_idle_locked)
   stuck     (a condition) a batch's task has run past      the housekeeper's watch counts it
             BLOCKED_NS (busy_since) while ready tasks      blocked: one more worker starts
             wait and the pool is at its size               (watch_locked); the task returns: batch
   A signalled worker (nwaking raised by whoever signalled) lowers nwaking before its next look at
   the inbox (P1). The keep-alive runs from its first nap or sleep since its last batch. */

/* Start one worker. Called with ex->lock held; the new thread blocks on the lock until we return. */
GROUPCONC__FN int groupconc__spawn_locked(groupconc_executor *ex) {
    groupconc__worker *w;
    int rc;
    while (ex->pool.zombies) { /* reap retired workers: they no longer touch the executor */
        w = ex->pool.zombies;
        ex->pool.zombies = w->next;
        groupconc__thread_join(w->thread);
        GROUPCONC_FREE(w);
    }
    w = (groupconc__worker *)GROUPCONC_MALLOC(sizeof *w);
    ex->pool.start_failed = !w;
    if (!w) return GROUPCONC_ENOMEM;
    w->exec = ex;
    atomic_init(&w->nret, 0);
    atomic_init(&w->busy_since, 0);
    w->watched = 0;
    atomic_init(&w->tid, 0);
    w->nfinished = 0;
    atomic_init(&w->chain_word, GROUPCONC__CHAIN_OFF);
    w->chain_len = 0;
    w->chain_done.head = w->chain_done.tail = NULL;
    w->chain_done.count = 0;
#if GROUPCONC__SHARDS > 1
    w->home = ex->pool.spawned++ & (GROUPCONC__SHARDS - 1);
    w->claims = 0;
    w->turn = w->home + 1;
#endif
    rc = groupconc__thread_start_(&w->thread, groupconc__worker_main, w);
    ex->pool.start_failed = rc != GROUPCONC_OK;
    if (rc != GROUPCONC_OK) {
        GROUPCONC_FREE(w);
        return rc;
    }
    /* Counted once it exists (it lowers nstarting only once it has the lock, after we return): a
       worker counted while its start might still fail let a submit see a worker on its way, or
       any worker at all, and leave its push in the inbox for nobody (inbox_look) */
    atomic_fetch_add_explicit(&ex->pool.nthreads, 1, memory_order_seq_cst);  /* P1 (read by inbox_look) */
    atomic_fetch_add_explicit(&ex->pool.nstarting, 1, memory_order_seq_cst); /* P1 */
    w->next = ex->pool.workers;
    ex->pool.workers = w;
    groupconc__pool_needed_locked(ex, true);
    return GROUPCONC_OK;
}

/* How many workers kick_locked may have: the pool's size, plus the tasks that said they block (up
   to max_threads), plus the workers blocked in a wait (`blocked`, read by the caller). */
GROUPCONC__FN size_t groupconc__pool_cap(groupconc_executor *ex, size_t blocked) {
    size_t max = (size_t)ex->policy.max_threads;
    /* relaxed: a stale value only makes a submitter lock and kick once more, or leaves a push to
       a busy worker or the watch (groupconc__inbox_look) */
    size_t cap = atomic_load_explicit(&ex->pool.size, memory_order_relaxed) +
                 atomic_load_explicit(&ex->pool.nhinted, memory_order_relaxed);
    return (cap < max ? cap : max) + blocked;
}

/* A worker was started (spawn_locked: `started`) or woken (kick_locked): if that makes more awake
   than the pool's size for tasks that block, the pool needed it just now. A start beyond the size
   is for them (the watch's, or the cap that hinted and waiting tasks raise); a wake-up only while
   such tasks are counted (hinted, blocked in a wait): an idle worker woken for a burst of ready
   tasks, which the busy ones would take in turn, does not make itself needed. Under ex->lock. */
GROUPCONC__FN void groupconc__pool_needed_locked(groupconc_executor *ex, bool started) {
    size_t awake = atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) -
                   atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed) +
                   atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed);
    if (awake <= atomic_load_explicit(&ex->pool.size, memory_order_relaxed)) return;
    if (started || atomic_load_explicit(&ex->pool.nhinted, memory_order_relaxed) ||
        atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed))
        ex->pool.needed_at = groupconc__coarse_now_ns();
}

/* A worker with nothing to do is one too many, and retires at once (worker_sleep_locked): the pool
   has more workers than its cap (blocked ones counted) and needed none beyond its size for
   keep_alive_ns. The workers the watch started for tasks that block would otherwise stay as long as
   work trickles in: the idle ones are woken in turn, each one's keep-alive starting again, and
   they run whatever comes next, computing tasks too, beyond one per CPU. */
GROUPCONC__FN bool groupconc__pool_surplus_locked(groupconc_executor *ex, uint64_t now) {
    size_t blocked = atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed);
    return atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) > groupconc__pool_cap(ex, blocked) &&
           now - ex->pool.needed_at >= (uint64_t)ex->policy.keep_alive_ns;
}

/* The pool is at its size, ready tasks wait for a worker: make sure the housekeeper watches
   (started on first need). False if it cannot start: the pool is then sized by max_threads alone
   (pool.size), as a pool without a watch must be. */
GROUPCONC__FN bool groupconc__watch_start_locked(groupconc_executor *ex) {
    uint64_t now;
    if (ex->keeper.stop) return true; /* destroy: nothing is ready any more */
    if (groupconc__keeper_start_locked(ex) != GROUPCONC_OK) {
        atomic_store_explicit(&ex->pool.size, (size_t)ex->policy.max_threads, memory_order_relaxed);
        return false;
    }
    now = groupconc__now_ns();
    atomic_store_explicit(&ex->keeper.watching, true, memory_order_relaxed); /* under the lock, as its clearing */
    ex->keeper.watch_at = now + ex->keeper.watch_every;
    ex->keeper.watch_moved_at = now;
    ex->keeper.watch_retired = groupconc__totals_locked(ex).retired;
    ex->keeper.watch_cpu = groupconc__cpu_time_ns();
    ex->keeper.watch_look_at = now;
    ex->keeper.watch_look_cpu = ex->keeper.watch_cpu;
    ex->keeper.watch_quiet = 0;
    if (ex->keeper.wake != 0 && ex->keeper.wake > ex->keeper.watch_at) /* 0: awake, it looks again */
        groupconc__cond_signal(&ex->keeper.cv);
    return true;
}

/* Give every ready task a thread that will take it: a worker already waking or starting, or the
   spinning one (poked), else an idle one (woken: ~7 us, so only when needed), else a new one up to
   the pool's cap (pool_cap); beyond it the housekeeper's watch starts more if tasks block. Busy
   workers are not woken for: they pick up the next ready task themselves when they finish. The
   ready tasks counted are every shard's (GROUPCONC__READY_COUNT): a worker takes any shard's.
   kick_for_locked gives `need` tasks a thread: the ready ones and the refusals left to a worker
   (groupconc__refusals_defer_locked), which a worker's next step settles. */
GROUPCONC__FN int groupconc__kick_for_locked(groupconc_executor *ex, size_t need) {
    size_t waking = atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed);
    size_t covered = waking + atomic_load_explicit(&ex->pool.nstarting, memory_order_relaxed);
    size_t blocked = atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed);
    int rc = GROUPCONC_OK;
    if (need > covered &&
        atomic_load_explicit(&ex->pool.nspinning, memory_order_relaxed)) {
        atomic_store_explicit(&ex->pool.spin_poke, 1, memory_order_relaxed); /* cheaper than a wake-up */
        covered++;
    }
    while (need > covered &&
           atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed) > waking) { /* written under the lock */
#if GROUPCONC__SHARDS > 1
        groupconc__work_signal(ex);
#else
        groupconc__cond_signal(&ex->pool.work_cv);
#endif
        atomic_fetch_add_explicit(&ex->pool.nwaking, 1, memory_order_seq_cst); /* P1 */
        groupconc__pool_needed_locked(ex, false);
        waking++;
        covered++;
    }
    /* the common cases: every ready task has a thread, or no more can start (busy workers take
       the next ready task themselves) */
    if (need <= covered ||
        atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) >= (size_t)ex->policy.max_threads + blocked)
        return rc;
    for (;;) {
        size_t cap = groupconc__pool_cap(ex, blocked);
        while (need > covered &&
               atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) < cap) {
            rc = groupconc__spawn_locked(ex);
            if (rc != GROUPCONC_OK) return rc; /* tasks stay ready; an existing or later worker takes them */
            covered++;
        }
        if (need <= covered ||
            atomic_load_explicit(&ex->keeper.watching, memory_order_relaxed) ||
            atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) >=
                (size_t)ex->policy.max_threads + blocked ||
            groupconc__watch_start_locked(ex))
            return rc;
        /* no housekeeper: pool.size is max_threads now, start them on demand */
    }
}

GROUPCONC__FN int groupconc__kick_locked(groupconc_executor *ex) {
    return groupconc__kick_for_locked(ex, GROUPCONC__READY_COUNT(ex));
}

/* n completions leave ex->unfinished (executor-wide: a batch's tasks may be of several shards). With
   more than one shard an atomic: the retirer that takes it to 0 while a shutdown is on broadcasts
   idle_cv under the pool's lock, the waiters' mutex (groupconc__idle_wait_all: the waiter reads
   unfinished under that lock after its shutdown store and a seq_cst fence, the retirer reads
   `shutdown` (seq_cst) after its seq_cst fetch_sub: one sees the other. The store itself is
   relaxed, ordered by the shard locks while every retirer holds one; the fence is for 5b). */
GROUPCONC__FN void groupconc__retire_locked(groupconc_executor *ex, size_t n) {
#if GROUPCONC__SHARDS > 1
    size_t before;
    if (!n) return;
    before = atomic_fetch_sub_explicit(&ex->unfinished, n, memory_order_seq_cst);
    GROUPCONC_ASSERT(before >= n);
    atomic_fetch_add_explicit(&ex->retired, n, memory_order_relaxed);
    if (before == n && atomic_load_explicit(&ex->shutdown, memory_order_seq_cst)) {
        groupconc__mutex_lock(&ex->pool.lock);
        groupconc__cond_broadcast(&ex->idle_cv);
        groupconc__mutex_unlock(&ex->pool.lock);
    }
#else
    GROUPCONC_ASSERT(GROUPCONC__UNFINISHED(ex) >= n);
    GROUPCONC__UNFINISHED(ex) -= n;
    GROUPCONC__RETIRED(ex) += n;
    if (n && GROUPCONC__UNFINISHED(ex) == 0 && atomic_load_explicit(&ex->shutdown, memory_order_relaxed))
        groupconc__cond_broadcast(&ex->idle_cv);
#endif
}

/* Poll the inbox (and spin_poke) without the lock for up to GROUPCONC_SPIN_NS, as the only spinner.
   Called and returns with ex->lock held; true if something arrived. Clearing nspinning comes before
   the caller's look at the inbox under the lock (see groupconc__inbox_look); tasks made ready
   meanwhile are seen there too, whether or not a poke reached the spinner. */
GROUPCONC__FN bool groupconc__spin_locked(groupconc_executor *ex) {
    int zero = 0;
    bool found = false;
    uint64_t until;
    unsigned i;
    if (GROUPCONC_SPIN_NS <= 0 || !atomic_load_explicit(&ex->inbox_ok, memory_order_relaxed) ||
        ex->policy.max_threads < 2 ||
        !atomic_compare_exchange_strong_explicit(&ex->pool.nspinning, &zero, 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return false;
    groupconc__exec_unlock(ex);
    until = groupconc__now_ns() + (uint64_t)GROUPCONC_SPIN_NS;
    for (i = 1; !found; i++) {
        unsigned k;
        found = atomic_load_explicit(&ex->inbox.head, memory_order_relaxed) != NULL ||
                atomic_load_explicit(&ex->pool.spin_poke, memory_order_relaxed);
        if (!found && (i & 3) == 0 && groupconc__now_ns() >= until) break;
        for (k = 0; k < GROUPCONC__SPIN_PAUSES; k++) GROUPCONC__CPU_RELAX(); /* a poll steals the line from pushes */
    }
    atomic_store_explicit(&ex->pool.nspinning, 0, memory_order_seq_cst); /* P1: before the caller's look */
    groupconc__exec_lock(ex);
    atomic_store_explicit(&ex->pool.spin_poke, 0, memory_order_relaxed);
    return found;
}

/* A worker that took a batch makes sure another one will look: the spinner, else an idle one. */
GROUPCONC__FN void groupconc__call_helper_locked(groupconc_executor *ex) {
    if (atomic_load_explicit(&ex->pool.nspinning, memory_order_relaxed)) {
        atomic_store_explicit(&ex->pool.spin_poke, 1, memory_order_relaxed);
    } else if (atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed) > /* written under the lock */
               atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed)) {
#if GROUPCONC__SHARDS > 1
        groupconc__work_signal(ex);
#else
        groupconc__cond_signal(&ex->pool.work_cv);
#endif
        atomic_fetch_add_explicit(&ex->pool.nwaking, 1, memory_order_seq_cst); /* P1 */
    }
}

/* A task returned on worker `self`: publish it in self->ret (index i), where a helper may finish it.
   True if a thread is blocked waiting (maybe for it): then the worker finishes at once rather than
   start its next task. Pairs with groupconc__wait_until: each side writes, then reads the other's
   counter (sequentially consistent: pairing P2), so a waiter either sees the task published or is
   seen. */
GROUPCONC__FN bool groupconc__publish(groupconc_executor *ex, groupconc__worker *self,
                                      groupconc_task *t, unsigned i) {
    self->ret[i] = t;
    atomic_store_explicit(&self->nret, i + 1, memory_order_seq_cst);        /* P2, the worker's end */
    return atomic_load_explicit(&ex->pool.nwaiters, memory_order_seq_cst) > 0; /* after the store */
}

/* Finish, on this thread, tasks that workers ran but left unfinished in their batches: their
   permits are handed on now, and their completion runs from b->todo. Under the lock: each task
   under its group's shard's (with more than one shard the record of a published task's shard is
   its group's, t->group->shard, fixed: a batch's claims come from one shard, a stolen task or a
   chain's tasks from one group each; a debug build asserts that the helper holds it, so that a
   helper holding one shard (step 5b) can be told which tasks are its). A waiter
   takes all (`all`); a new task's admission and an idle worker take only those of a worker that
   has been in its current task for longer than a batch lasts, so that nothing it ran before waits
   behind it (a worker that is moving finishes its own, cheaper). */
GROUPCONC__FN void groupconc__help_locked(groupconc_executor *ex, groupconc__batch *b, bool all) {
    groupconc__worker *w;
    uint64_t now = 0;
    for (w = ex->pool.workers; w; w = w->next) {
        unsigned n = atomic_load_explicit(&w->nret, memory_order_seq_cst); /* P2 (and acquires ret[]) */
        if (w->nfinished >= n && w->chain_done.count == 0) continue;
        if (!all) {
            if (!now) now = groupconc__now_ns();
            uint64_t since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
            /* NOT_BUSY (0 from busy_ns): on its way to finish them itself */
            if (groupconc__busy_ns(since, now) < GROUPCONC__BATCH_NS) continue;
        }
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG /* a chain is one group's: its shard (not w->chain_shard,
                                                stale once the chain ended) */
        GROUPCONC_ASSERT(!w->chain_done.count ||
                         GROUPCONC__SHARD_HELD(groupconc__shard_of(ex, w->chain_done.head->group)));
#endif
        groupconc__fifo_append(&b->todo, &w->chain_done); /* finished by a chain's end: complete */
        for (; w->nfinished < n; w->nfinished++) {
            groupconc_task *t = w->ret[w->nfinished];
#if GROUPCONC__SHARDS > 1 && GROUPCONC_DEBUG
            GROUPCONC_ASSERT(GROUPCONC__SHARD_HELD(groupconc__shard_of(ex, t->group)));
#endif
            groupconc__finish_locked(ex, t, b);
            groupconc__fifo_push(&b->todo, t);
        }
    }
}

/* What an idle worker needs to know about the others, under the lock: whether one is running short
   tasks (its current one started less than a batch ago, or it is on its way back to the lock), and
   whether one left tasks it ran unfinished (a batch in progress). Either way one idle worker sleeps
   in naps of GROUPCONC__HELP_NS (the others sleep), ready to take over should that worker get stuck
   in a long task: new tasks need not wake anyone meanwhile (groupconc__inbox_look), and the
   unfinished ones hold permits that a waiting task may need. Only with no other worker running
   short tasks does an idle worker spin: one polling core is enough, and on a machine with few cores
   a second one would take a core from the submitting thread. */
enum { GROUPCONC__OTHER_ACTIVE = 1, GROUPCONC__OTHER_UNFINISHED = 2 };
GROUPCONC__FN unsigned groupconc__others(groupconc_executor *ex, const groupconc__worker *self,
                                         uint64_t now) {
    const groupconc__worker *w;
    unsigned seen = 0;
    for (w = ex->pool.workers; w; w = w->next) {
        uint64_t since;
        if (w == self) continue;
        since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
        /* NOT_BUSY: on its way back from a batch (active, tested before any age); 0: idle */
        if (since == GROUPCONC__NOT_BUSY || (since != 0 && groupconc__busy_ns(since, now) < GROUPCONC__BATCH_NS))
            seen |= GROUPCONC__OTHER_ACTIVE;
        if (w->nfinished < atomic_load_explicit(&w->nret, memory_order_relaxed) || w->chain_done.count)
            seen |= GROUPCONC__OTHER_UNFINISHED;
    }
    return seen;
}

/* A worker with nothing to do takes over a task another worker took in a batch but has not started:
   its owner may be stuck in a long task, which may even be waiting for this one. The owner sees
   ST_TAKEN and lets go (as after a cancel); ST_STARTED makes a later cancel only flag it. */
GROUPCONC__FN groupconc_task *groupconc__steal_locked(groupconc_executor *ex, const groupconc__worker *self) {
    const uint32_t gone = GROUPCONC__ST_STARTED | GROUPCONC__ST_TAKEN;
    groupconc__shard *sh;
    groupconc_task *t;
    unsigned k;
    GROUPCONC__EACH_SHARD_FROM(ex, self, k, sh) { /* its home shard's first */
        for (t = sh->running.head; t; t = t->next) {
            groupconc__st cur = atomic_load_explicit(&t->state, memory_order_acquire);
            while (!(cur & gone))
                if (atomic_compare_exchange_weak_explicit(&t->state, &cur,
                                                          cur | gone | GROUPCONC__ST_CLAIM_REF,
                                                          memory_order_acq_rel, memory_order_acquire))
                    return t;
        }
    }
    return NULL;
}

/* A worker's freed nodes go to the submitters whole, chained to the lots already in transit while
   those are fewer than GROUPCONC__NODE_TRANSIT_MAX, or when none is there: what is cached stays
   bounded (the transit; a lot per worker; what a thread's cache took at once, at most
   GROUPCONC__NODE_CACHES of them) without a counter that every submit would have to write. The
   count is raised before a lot is pushed (under ex->lock: one pusher at a time); a take zeroes it,
   then empties the stack. A lot whose count the zeroing erased but whose push came after the take
   stays uncounted until the next take (one per take under way); lots pushed between the two steps
   are counted but gone, which only holds the next pushes back until the next take (a worker
   pushes onto an empty stack whatever the count says, so the count cannot shut recycling off).
   So the stack holds at most the bound, a lot, and a lot per take under way. Pushes, and takes
   that empty the stack: no node is popped alone, so no ABA. */
GROUPCONC__FN void groupconc__nodes_return(groupconc_executor *ex, groupconc__nodes *d) {
    size_t k;
    for (k = 0; k < 2; k++) { /* plain, observed: each size its own lots */
        groupconc_task *old;
        if (!d->head[k]) continue;
        old = atomic_load_explicit(&ex->inbox.node_returns[k], memory_order_relaxed);
        if (old &&
            atomic_load_explicit(&ex->inbox.node_transit[k], memory_order_relaxed) >= GROUPCONC__NODE_TRANSIT_MAX)
            continue;
        atomic_fetch_add_explicit(&ex->inbox.node_transit[k], d->count[k], memory_order_relaxed);
        do {
            d->tail[k]->next = old;
        } while (!atomic_compare_exchange_weak_explicit(&ex->inbox.node_returns[k], &old, d->head[k],
                                                        memory_order_release, memory_order_relaxed));
        d->head[k] = NULL;
        d->count[k] = 0;
    }
}

GROUPCONC__FN void groupconc__nodes_free(groupconc_task *list) {
    while (list) {
        groupconc_task *t = list;
        list = t->next;
        GROUPCONC_FREE(t);
    }
}

/* ---- task nodes: a cache per submitting thread ----
   A submitting thread takes the nodes the workers returned (their lots, chained in
   inbox.node_returns, taken whole) into a cache of its own for this executor, so that taking a
   node needs no lock and no atomic write. Not a pool per key-table stripe: there a node went back
   to the pool of its key's stripe and waited 16 times longer to be used again, and W2 lost all
   that recycling gains (issue 26, docs/performance.md). A thread finds its cache through a memo in
   its own storage, named by the executor's node_gen (unique in the process: an executor made where
   a destroyed one was is another number), else looks it up or adds it under table.caches_lock; a
   thread that starts at the address of one that ended takes over its cache. Past
   GROUPCONC__NODE_CACHES threads, a thread has none and allocates (memory stays bounded: what one
   take held, per cache). Destroy frees them. */

GROUPCONC__FN groupconc__node_cache *groupconc__node_cache_find(groupconc_executor *ex) {
    groupconc__node_cache *c;
    const void *me = &groupconc__my_nodes;
    bool full;
    groupconc__mutex_lock(&ex->table.caches_lock);
    for (c = ex->table.caches; c && c->owner != me; c = c->next) {}
    if (!c && ex->table.ncaches < GROUPCONC__NODE_CACHES &&
        (c = ex->table.ncaches == 0 ? &ex->table.cache0
                                    : (groupconc__node_cache *)GROUPCONC_MALLOC(sizeof *c)) != NULL) {
        c->owner = me;
        c->head[0] = c->head[1] = NULL;
        c->next = ex->table.caches;
        ex->table.caches = c;
        ex->table.ncaches++;
    }
    full = ex->table.ncaches >= GROUPCONC__NODE_CACHES;
    groupconc__mutex_unlock(&ex->table.caches_lock);
    if (c || full) { /* not after a failed allocation: the next submit tries again */
        groupconc__my_nodes.gen = ex->node_gen;
        groupconc__my_nodes.cache = c;
    }
    return c;
}

/* A recycled node of groupconc__node_size(observed) bytes, or NULL: this thread's cache of that
   size, refilled when empty with the workers' lot. */
GROUPCONC__HOT groupconc_task *groupconc__node_get(groupconc_executor *ex, bool observed) {
    groupconc__node_cache *c = groupconc__my_nodes.gen == ex->node_gen ? groupconc__my_nodes.cache
                                                                       : groupconc__node_cache_find(ex);
    size_t k = observed ? 1 : 0;
    groupconc_task *t;
    if (!c) return NULL;
    t = c->head[k];
    if (!t && atomic_load_explicit(&ex->inbox.node_returns[k], memory_order_relaxed)) {
        atomic_store_explicit(&ex->inbox.node_transit[k], 0, memory_order_relaxed); /* first: see nodes_return */
        t = atomic_exchange_explicit(&ex->inbox.node_returns[k], NULL, memory_order_acq_rel);
    }
    if (t) {
        c->head[k] = t->next;
        if (t->next) GROUPCONC__PREFETCH(t->next); /* last written by a worker: fetch it early */
    }
    return t;
}

/* Every thread's cache of ex, at destroy (no submit can run). */
GROUPCONC__FN void groupconc__node_caches_free(groupconc_executor *ex) {
    while (ex->table.caches) {
        groupconc__node_cache *c = ex->table.caches;
        ex->table.caches = c->next;
        groupconc__nodes_free(c->head[0]);
        groupconc__nodes_free(c->head[1]);
        if (c != &ex->table.cache0) GROUPCONC_FREE(c);
    }
    ex->table.ncaches = 0;
}

/* What a worker keeps from one step of its loop to the next: worker_main's state, shared with the
   parts below (see the table of worker states above). Only its own thread touches it; user code
   that thread runs reaches `mine` through the base frame (groupconc__give_back, wait_until). */
typedef struct groupconc__worker_loop {
    groupconc__worker *self;
    groupconc_executor *ex;
    groupconc__claims mine;            /* taken, not started */
    groupconc_task *stolen;            /* taken over from another worker's batch, started */
    groupconc__fifo done;              /* finished here, to complete after unlocking */
    groupconc__nodes dead;             /* nodes this worker freed, for the submitters */
    size_t to_retire;                  /* tasks completed since the last locked step */
    uint64_t idle_since;               /* keep-alive runs from here (0: not idle) */
    uint64_t last_end;                 /* the clock at the end of its last task when nothing ran since
                                          (its completion ran no user code): the next one's start in
                                          a serial run (0: none, read the clock) */
    uint64_t last_read;                /* its last clock read, `unread` short untimed tasks ago: a
                                          serial run's next round starts from it */
    unsigned unread;                   /* those tasks, carried from round to round (< 4) */
    unsigned want;                     /* how many to claim at a time (doubles while tasks are short) */
    unsigned nran;                     /* published in self->ret this round */
    unsigned serial;                   /* tasks run in serial steps and chains since its last full
                                          step */
    unsigned chain_len, chained;       /* its chain (self->chain): waiters chained, and won
                                          (groupconc__chain_next) */
    bool slow;                         /* the last batch ran past GROUPCONC__BATCH_NS */
    bool spun;                         /* spun since its last step outside the lock */
} groupconc__worker_loop;

/* The tasks this worker ran in its last batch that no helper finished meanwhile: finish them (their
   permits are handed on) and keep them in w->done, to complete after unlocking. Returns how many. */
GROUPCONC__FN unsigned groupconc__worker_finish_locked(groupconc__worker_loop *w, groupconc__batch *b) {
    groupconc__worker *self = w->self;
    unsigned i, ndone = 0;
    for (i = self->nfinished; i < w->nran; i++) { /* what no helper finished meanwhile */
        groupconc__finish_locked_inline(w->ex, self->ret[i], b);
        groupconc__fifo_push(&w->done, self->ret[i]);
        ndone++;
    }
    atomic_store_explicit(&self->nret, 0, memory_order_relaxed);
    self->nfinished = 0;
    return ndone;
}

/* Take the next ready tasks (FIFO within a shard, and every shard looked at first in turn: see
   groupconc__ready_shard_locked; so a busy group cannot starve the others): as many as the last
   batch earned (w->want), but no more than a fair share of the ready queue. A slow worker first
   hands back what it claimed and did not start. */
GROUPCONC__FN void groupconc__worker_claim_locked(groupconc__worker_loop *w) {
    groupconc_executor *ex = w->ex;
    groupconc__shard *sh = groupconc__ready_shard_locked(ex, w->self); /* home first, then the others */
    groupconc__claims *mine = &w->mine;
    size_t share;
    unsigned n;
    groupconc_task *t;
    if (w->slow && mine->count) groupconc__unclaim_locked(ex, mine); /* let others have them */
    if (mine->count != 0) return;
    share = sh->ready.count / (atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) + 1);
    n = share < w->want ? (unsigned)share : w->want;
    mine->head = 0;
    if (n == 0) n = 1;
    while (mine->count < n && (t = groupconc__fifo_pop(&sh->ready)) != NULL) {
        groupconc__start_locked(ex, t);
        mine->t[mine->count++] = t;
    }
    GROUPCONC__READY_MIRROR(sh);
    if (mine->count > 1) groupconc__call_helper_locked(ex); /* see steal_locked */
}

/* A serial run's hand-off (worker_serial_locked, chain_end_locked). t returned and holds every
   permit of its layers while nobody waits at the global, bulkhead or running layer: it is
   finished, its global and bulkhead permits counted down, its concurrency and running-cap permits
   kept for the next waiter (DONE, counted; the caller completes it). `listed`: RUNNING in
   its shard's running (else a chained task that went from its FIFO to here, chain_admit_locked). */
GROUPCONC__FN void groupconc__serial_finish_locked(groupconc_executor *ex, groupconc_task *t, bool listed) {
    groupconc__shard *sh = groupconc__shard_of(ex, t->group);
    groupconc__group *g = t->group;
    t->bits |= GROUPCONC__B_RAN;
    if (listed) {
        groupconc__fifo_remove(&sh->running, t);
        sh->nrunning--;
        g->running--;
    }
    ex->global.permits.used--;
    g->bulkhead.used--;
    t->held = 0;
    groupconc__set_stage(t, GROUPCONC__DONE);
    groupconc__count_locked(ex, g, groupconc__outcome_index(t->status, 0), 1);
}

/* n, the head of its group's concurrency FIFO (holding its global and bulkhead permits, as every
   waiter there does), takes the concurrency and running-cap permits of the task finished before
   it and passes the fleet layer: what admit does, up to the ready queue it skips (RUNNING). */
GROUPCONC__FN void groupconc__chain_admit_locked(groupconc_executor *ex, groupconc_task *n) {
    groupconc__shard *sh = groupconc__shard_of(ex, n->group);
    groupconc__group *g = n->group;
    groupconc_task *head = groupconc__fifo_pop(&g->queues->conc);
    GROUPCONC_ASSERT(head == n);
    (void)head;
    groupconc__waiting_dec(ex, n, GROUPCONC__L_CONCURRENCY);
    groupconc__set_stage(n, GROUPCONC__NEW);
    n->held = GROUPCONC__LAYERS;
    g->admitted++;
    sh->counts.admitted++;
    groupconc__timer_drop(ex, n);
    groupconc__set_stage(n, GROUPCONC__READY);
    groupconc__set_stage(n, GROUPCONC__RUNNING); /* start_locked */
}

/* The same, and n is listed running on this worker (as start_locked lists it). */
GROUPCONC__FN void groupconc__serial_promote_locked(groupconc_executor *ex, groupconc_task *n) {
    groupconc__shard *sh = groupconc__shard_of(ex, n->group);
    groupconc__chain_admit_locked(ex, n);
    groupconc__fifo_push(&sh->running, n);
    sh->nrunning++;
    n->group->running++;
}

/* Start a chain behind n, which this worker just claimed in a serial step: up to max - 1 of its
   group's next waiters (max: w->want, at most GROUPCONC_BATCH_MAX), which it may then run one
   after the other without the lock
   (groupconc__chain_next). They stay waiting in every count until the chain ends. */
GROUPCONC__FN void groupconc__chain_start_locked(groupconc__worker_loop *w, groupconc_task *n, unsigned max) {
    groupconc__worker *self = w->self;
    unsigned len = 0;
    groupconc_task *c;
    self->chain[0] = n;
    for (c = n->group->queues->conc.head; c && len + 1 < max; c = c->next) {
        if (c->bits & (GROUPCONC__B_NO_PERMITS | GROUPCONC__B_FLEET)) break;
        self->chain[++len] = c;
    }
    w->chain_len = len;
    w->chained = 0;
    if (len == 0) return;
    self->chain_len = len;
    atomic_store_explicit(&self->chain_word, 0, memory_order_relaxed); /* read after the unlock */
#if GROUPCONC__SHARDS > 1
    self->chain_shard = n->group->shard; /* a chain is one group's: its shard's holder ends it */
    w->ex->shards[self->chain_shard].nchains++;
#else
    w->ex->pool.nchains++;
#endif
    /* as a batch does (claim_locked): an idle worker naps, to end the chain and complete what it
       finished should this worker's next task be long */
    if (!atomic_load_explicit(&w->ex->pool.nnapping, memory_order_relaxed)) groupconc__call_helper_locked(w->ex);
}

/* End self's chain, under ex->lock (whoever takes it: groupconc__exec_lock). The fetch_or stops
   its worker before its next chained task and says how many it committed to (k). The task before
   each of those returned (its worker published it first): so chain[0] .. chain[k - 1] are
   finished, in order (their global and bulkhead permits counted down, as each holds them), and
   chain[k] takes the concurrency and running-cap permits: RUNNING and STARTED (a cancel only flags
   it, nobody steals it). chain[1] .. chain[k - 1] go from their FIFO to DONE directly: nobody saw
   them RUNNING. The finished ones wait in self->chain_done for their worker or a helper to complete
   them; the chained tasks not committed to are plain waiters again. After this every count, the
   dump and every task's stage are what they would be had each step taken the lock. */
GROUPCONC__FN void groupconc__chain_end_locked(groupconc_executor *ex, groupconc__worker *self) {
    unsigned k = atomic_fetch_or_explicit(&self->chain_word, GROUPCONC__CHAIN_OFF, memory_order_acq_rel);
    groupconc__group *g = self->chain[0]->group;
    uint32_t i, succeeded = 0;
    GROUPCONC_ASSERT(!(k & GROUPCONC__CHAIN_OFF) && k <= self->chain_len && self->nfinished == 0);
    self->chain_len = 0;
#if GROUPCONC__SHARDS > 1
    GROUPCONC_ASSERT(self->chain_shard == g->shard && ex->shards[g->shard].nchains > 0);
#if GROUPCONC_DEBUG /* whoever ends a chain holds its shard (review helper-66) */
    GROUPCONC_ASSERT(GROUPCONC__SHARD_HELD(&ex->shards[self->chain_shard]));
#endif
    ex->shards[self->chain_shard].nchains--;
#else
    ex->pool.nchains--;
#endif
    GROUPCONC_TEST_CHAIN_END(k);
    if (k == 0) return;
    self->nfinished = k; /* published by the CAS that won the next one, never in self->ret */
    groupconc__serial_finish_locked(ex, self->chain[0], true);
    groupconc__fifo_push(&self->chain_done, self->chain[0]);
    for (i = 1; i < k; i++) { /* what chain_admit_locked and serial_finish_locked do, counted once */
        groupconc_task *t = self->chain[i];
        GROUPCONC_ASSERT(t->stage == GROUPCONC__QUEUED && t->held == GROUPCONC__L_CONCURRENCY);
        groupconc__set_stage(t, GROUPCONC__NEW);
        if (t->bits & GROUPCONC__B_HAS_DEADLINE) groupconc__timer_drop(ex, t);
        groupconc__set_stage(t, GROUPCONC__READY);
        groupconc__set_stage(t, GROUPCONC__RUNNING);
        groupconc__set_stage(t, GROUPCONC__DONE);
        t->bits |= GROUPCONC__B_RAN;
        t->held = 0;
        if (t->status == GROUPCONC_STATUS_SUCCESS) succeeded++;
        else groupconc__count_locked(ex, g, groupconc__outcome_index(t->status, 0), 1);
    }
    if (k > 1) {
        uint32_t n = k - 1;
        groupconc__fifo_move_front(&g->queues->conc, self->chain[n], n, &self->chain_done);
        groupconc__shard *sh = groupconc__shard_of(ex, g);
        sh->waiting_groups -= n; /* waiting_dec at concurrency, n times */
        g->admitted += n;
        sh->counts.admitted += n;
        ex->global.permits.used -= (int32_t)n;
        g->bulkhead.used -= (int32_t)n;
        if (succeeded) groupconc__count_locked(ex, g, GROUPCONC__C_SUCCEEDED, (int)succeeded);
    }
    groupconc__serial_promote_locked(ex, self->chain[k]);
    atomic_fetch_or_explicit(&self->chain[k]->state, GROUPCONC__ST_STARTED, memory_order_relaxed);
    groupconc__debug_check(ex, g);
}

#if GROUPCONC__SHARDS > 1
/* The chains of shard sh's groups (its lock held): those of the workers whose chain_shard it is. */
GROUPCONC__FN void groupconc__shard_chains_end_locked(groupconc_executor *ex, groupconc__shard *sh) {
    groupconc__worker *w;
    unsigned idx = (unsigned)(sh - ex->shards);
    for (w = ex->pool.workers; w && sh->nchains; w = w->next)
        if (w->chain_len && w->chain_shard == idx) groupconc__chain_end_locked(ex, w);
}
#else
GROUPCONC__FN void groupconc__chains_end_locked(groupconc_executor *ex) {
    groupconc__worker *w;
    for (w = ex->pool.workers; w && ex->pool.nchains; w = w->next)
        if (w->chain_len) groupconc__chain_end_locked(ex, w);
}
#endif

/* The next task of w's chain, once it won it: NULL if the chain ended (or is used up), or if tasks
   arrived in the inbox (the lock then admits them: a chain would keep them waiting). Winning it
   (the CAS) also publishes the task that just returned: chain_end_locked finishes the k tasks
   before the k-th chained one it is told of, without looking at self->ret. */
GROUPCONC__FN groupconc_task *groupconc__chain_next(groupconc__worker_loop *w) {
    unsigned k = w->chained;
    if (k >= w->chain_len || groupconc__inbox_pending(w->ex) ||
        !atomic_compare_exchange_strong_explicit(&w->self->chain_word, &k, k + 1, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return NULL;
    w->chained = k + 1;
    return w->self->chain[k + 1];
}

/* The next of a batch's claims to run, started (fetch_or STARTED): NULL when none is left. Those a
   cancel, a shutdown or a thief took are let go. */
GROUPCONC__FN groupconc_task *groupconc__worker_next_claim(groupconc__claims *mine) {
    while (mine->count > 0) {
        groupconc_task *t = mine->t[mine->head++];
        groupconc__st st = atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_STARTED, memory_order_acq_rel);
        mine->count--;
        if (!(st & GROUPCONC__ST_TAKEN)) return t;
        groupconc__drop_claim_ref(t);
    }
    return NULL;
}

/* busy_since is the clock t1; true if the batch that began at t0 has run past GROUPCONC__BATCH_NS. */
GROUPCONC__FN bool groupconc__worker_busy(groupconc__worker *self, uint64_t t0, uint64_t t1) {
    atomic_store_explicit(&self->busy_since, t1, memory_order_relaxed);
    return t1 - t0 > GROUPCONC__BATCH_NS;
}

/* t returned on w (its i-th task this batch): hand it on. With nothing claimed left, the next task
   of w's chain (next NULL: none wanted), won in *next, publishes it (chain_next), unless someone
   watches t; else it is published in self->ret. True
   if a thread waits (groupconc__publish). A chain starts only while nobody waits (serial_locked),
   and a thread that starts to wait then takes the lock, which ends it (pairing P2 holds: either
   the waiter ends the chain, or it finds t finished and takes over its completion). */
GROUPCONC__FN bool groupconc__worker_pass(groupconc__worker_loop *w, groupconc_task *t, unsigned i,
                                          groupconc_task **next) {
    /* a watched task (a thread waits, a callback is registered) is finished and completed now */
    if (next && w->mine.count == 0 &&
        !(atomic_load_explicit(&t->state, memory_order_relaxed) & GROUPCONC__ST_WATCHED) &&
        (*next = groupconc__chain_next(w)) != NULL)
        return false;
    return groupconc__publish(w->ex, w->self, t, i);
}

/* A serial run: the one task this worker ran since its last step, t, holds every permit of its own
   layers, and its group's next waiter n at concurrency needs nothing but t's permits (the other
   layers have no waiters, n no fleet slot, the group is not paused, no live lowering is draining),
   while nothing else is ready or in the inbox, and the worker holds no other claim. Then the
   hand-off the full step would make (finish t, release_permits, hand, pump, admit, claim the one
   ready task) comes down to moving t's permits to n (serial_finish_locked, serial_promote_locked),
   which becomes RUNNING in this worker's claims. Everything stays under the lock as before, so
   stats, the dump, pause, live limits, cancel and deadlines see one running task and the rest
   waiting at every moment; n starts only at the worker's fetch_or(STARTED), and a cancel can still
   take it until then. While tasks are short it chains the waiters behind n (chain_start_locked).
   Bounded by GROUPCONC__SERIAL_MAX tasks and by a slow task; anything else (other ready work, a
   waiter elsewhere, a listener) leaves it to the full step. True if it claimed n (t and what a
   chain's end finished are in w->done, to complete). */
GROUPCONC__FN bool groupconc__worker_serial_locked(groupconc__worker_loop *w) {
    groupconc_executor *ex = w->ex;
    groupconc__worker *self = w->self;
    groupconc_task *t, *n;
    groupconc__group *g;
    /* w->mine: a batch a waiter cut short (publish) keeps the claims it did not start, which the
       full step keeps, or lets go of where a cancel or a thief took them */
    if (w->nran != self->nfinished + 1 || w->mine.count != 0 || w->slow ||
        w->serial >= GROUPCONC__SERIAL_MAX || GROUPCONC__READY_COUNT(ex) != 0 || ex->paused ||
        ex->policy.listener || ex->global.waiters.count != 0 || ex->run_cap.waiters.count != 0 ||
        ex->run_cap.permits.used > ex->run_cap.permits.limit)
        return false;
    t = self->ret[self->nfinished]; /* unfinished: no helper took it, it is still ours */
    g = t->group;
    n = groupconc__waiters_of(ex, g, GROUPCONC__L_CONCURRENCY)->head;
    if (!n || (g->flags & GROUPCONC__GF_PAUSED) || g->conc.used > g->conc.limit ||
        groupconc__waiting_bulkhead_of(g) != 0 || t->held != GROUPCONC__LAYERS ||
        ((t->bits | n->bits) & (GROUPCONC__B_NO_PERMITS | GROUPCONC__B_FLEET)) ||
        groupconc__inbox_pending(ex))
        return false;
    groupconc__fifo_append(&w->done, &self->chain_done); /* a chain's end finished them */
    groupconc__serial_finish_locked(ex, t, true);
    groupconc__fifo_push(&w->done, t);
    groupconc__serial_promote_locked(ex, n);
    groupconc__debug_check(ex, g);
    w->mine.head = 0;
    w->mine.t[0] = n;
    w->mine.count = 1;
    atomic_store_explicit(&self->nret, 0, memory_order_relaxed);
    self->nfinished = 0;
    w->nran = 0;
    w->serial += 1 + w->chained;
    groupconc__retire_locked(ex, w->to_retire);
    w->to_retire = 0;
    groupconc__nodes_return(ex, &w->dead);
    /* nwaiters: a waiter raises it before it takes the lock, so a chain it does not see here ends
       at that lock (see worker_pass) */
    if (w->want > 1 && w->serial < GROUPCONC__SERIAL_MAX &&
        atomic_load_explicit(&ex->pool.nwaiters, memory_order_relaxed) == 0)
        groupconc__chain_start_locked(w, n, w->want < GROUPCONC_BATCH_MAX ? w->want : GROUPCONC_BATCH_MAX);
    else w->chain_len = w->chained = 0;
    return true;
}

/* The locked step: admit the inbox, finish the tasks that returned (hand their permits on: the next
   waiter of a group becomes ready), retire the previous completions, take the next ready tasks, or,
   with none and nothing of its own left to finish, help a stuck worker. An inbox drain refuses
   nothing unless a live change added a threshold meanwhile (ex->inbox_ok cleared) or a group's queues
   could not be allocated: such rejections, and those a quiet admission or the housekeeper left (its
   shard's refused), are settled with the rest of the step. True if there is something to do outside
   the lock. */
GROUPCONC__FN bool groupconc__worker_step_locked(groupconc__worker_loop *w, groupconc__batch *b) {
    groupconc_executor *ex = w->ex;
    size_t drained = groupconc__drain_locked(ex, b, false);
    unsigned ndone = w->self->chain_done.count; /* a chain's end finished them, before the rest */
    groupconc__fifo_append(&w->done, &w->self->chain_done);
    ndone += groupconc__worker_finish_locked(w, b);
    groupconc__retire_locked(ex, w->to_retire);
    w->to_retire = 0;
    groupconc__nodes_return(ex, &w->dead);
    w->serial = w->chain_len = w->chained = 0;
    groupconc__worker_claim_locked(w);
    if (w->mine.count == 0 && w->nran == 0 && GROUPCONC__RUNNING_COUNT(ex) > 0) {
        groupconc__help_locked(ex, b, false); /* idle: what a stuck worker left */
        w->stolen = groupconc__steal_locked(ex, w->self); /* any shard's, its home shard's first */
    }
    w->nran = 0;
    if (drained || ndone || b->todo.count) (void)groupconc__kick_locked(ex);
    return w->mine.count != 0 || ndone != 0 || w->stolen || b->todo.count != 0 ||
           b->rejected.count != 0 || b->asks;
}

/* Retiring: idle for keep_alive_ns, or one too many as it goes idle (groupconc__pool_surplus_locked,
   worker_sleep_locked). Under every stripe lock, where submit checks for a worker and
   pushes in one step (under its key's stripe lock): either it sees this worker gone, or this worker
   sees its task (and does not retire: false). A retired worker is joined by the next spawn_locked,
   or by destroy. */
GROUPCONC__FN bool groupconc__worker_retire_locked(groupconc__worker_loop *w) {
    groupconc_executor *ex = w->ex;
    groupconc__worker **pw = &ex->pool.workers;
    bool retire;
    groupconc__table_lock_all(ex);
    retire = !groupconc__inbox_pending(ex);
    if (retire) atomic_fetch_sub_explicit(&ex->pool.nthreads, 1, memory_order_seq_cst);
    groupconc__table_unlock_all(ex);
    if (!retire) return false;
    while (*pw != w->self) pw = &(*pw)->next;
    *pw = w->self->next;
    w->self->next = ex->pool.zombies;
    ex->pool.zombies = w->self;
    return true;
}

/* Napping or sleeping on work_cv, counted idle (and napping), until kicked, the nap's end
   (GROUPCONC__HELP_NS: come back to help a stuck worker) or the keep-alive's. False if the worker
   retired. */
GROUPCONC__FN bool groupconc__worker_sleep_locked(groupconc__worker_loop *w, uint64_t now, bool nap) {
    groupconc_executor *ex = w->ex;
    bool signalled;
    uint64_t until;
    if (GROUPCONC__READY_COUNT(ex) == 0 && groupconc__refused_count_locked(ex) == 0 &&
        groupconc__pool_surplus_locked(ex, groupconc__coarse_now_ns()) && groupconc__worker_retire_locked(w))
        return false; /* one too many (it looked at the inbox under the stripe locks) */
    /* P1, the worker's end: both before its last look at the inbox */
    atomic_fetch_add_explicit(&ex->pool.nidle, 1, memory_order_seq_cst);
    if (nap) atomic_fetch_add_explicit(&ex->pool.nnapping, 1, memory_order_seq_cst);
    if (groupconc__inbox_pending(ex)) {
        atomic_fetch_sub_explicit(&ex->pool.nidle, 1, memory_order_seq_cst);
        if (nap) atomic_fetch_sub_explicit(&ex->pool.nnapping, 1, memory_order_seq_cst);
        return true;
    }
    if (!w->idle_since) w->idle_since = now;
    until = now - w->idle_since < (uint64_t)ex->policy.keep_alive_ns
                ? groupconc__deadline(ex->policy.keep_alive_ns - (int64_t)(now - w->idle_since))
                : now;
    if (nap && until - now > GROUPCONC__HELP_NS)
        until = now + GROUPCONC__HELP_NS; /* a nap: come back to help a stuck worker */
#if GROUPCONC__SHARDS > 1
    signalled = groupconc__work_wait(ex, until);
#else
    signalled = groupconc__exec_wait(ex, &ex->pool.work_cv, until);
#endif
    atomic_fetch_sub_explicit(&ex->pool.nidle, 1, memory_order_seq_cst);
    if (nap) atomic_fetch_sub_explicit(&ex->pool.nnapping, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed))
        atomic_fetch_sub_explicit(&ex->pool.nwaking, 1, memory_order_seq_cst); /* P1: before its next look */
    /* nothing ready nor refused: a kick counted it idle and woke nobody else (kick_for_locked) */
    if (!signalled && GROUPCONC__READY_COUNT(ex) == 0 && groupconc__refused_count_locked(ex) == 0 &&
        !ex->stopping && groupconc__now_ns() - w->idle_since >= (uint64_t)ex->policy.keep_alive_ns)
        return !groupconc__worker_retire_locked(w); /* idle too long */
    return true;
}

/* A locked step found nothing to do: spin, nap or sleep, in that order of preference (see the table
   above). Whatever ends it, the loop takes another locked step before it idles again. False when the
   worker leaves the loop: the executor is stopping, or it retired. */
GROUPCONC__FN bool groupconc__worker_idle_locked(groupconc__worker_loop *w) {
    groupconc_executor *ex = w->ex;
    uint64_t now;
    unsigned others;
    bool nap;
    if (ex->stopping) return false;
    atomic_store_explicit(&w->self->busy_since, 0, memory_order_relaxed); /* idle */
    now = groupconc__now_ns();
    others = groupconc__others(ex, w->self, now);
    /* spinning pays only while tasks are short: behind long ones it takes a core from the threads
       that are about to finish them. Whatever ends the spin (a task, a poke, the time), the loop
       looks at everything again before sleeping. */
    if (!w->slow && !w->spun && !(others & GROUPCONC__OTHER_ACTIVE)) {
        w->spun = true;
        (void)groupconc__spin_locked(ex);
        return true;
    }
    nap = others != 0 && /* one napper is enough; written under the lock */
          atomic_load_explicit(&ex->pool.nnapping, memory_order_relaxed) == 0;
    return groupconc__worker_sleep_locked(w, now, nap);
}

/* Unlocked, before the batch: complete what the step finished (its own tasks first, then what it
   finished by helping), make its fleet requests, handle its rejections. */
GROUPCONC__FN void groupconc__worker_settle(groupconc__worker_loop *w, groupconc__batch *b) {
    groupconc__fifo_append(&w->done, &b->todo); /* finished by helping: after ours */
    w->to_retire += groupconc__settle(w->ex, b, &b->rejected, &w->done, &w->mine, &w->dead);
}

/* After a batch: pool.short_tasks, the hint groupconc__inbox_look reads, says whether it was of short
   tasks; a batch of one task that is neither short nor slow (a few us) leaves it as it is. Written
   only when it changes (one line read per batch). */
GROUPCONC__FN void groupconc__note_short_tasks(groupconc_executor *ex, bool short_tasks, bool slow) {
    if ((short_tasks || slow) &&
        atomic_load_explicit(&ex->pool.short_tasks, memory_order_relaxed) != (int)short_tasks)
        atomic_store_explicit(&ex->pool.short_tasks, short_tasks, memory_order_relaxed);
}

/* After a batch that ran nran tasks, n with those of a serial run's round carried from the last, in
   `took` ns: while they are short (and it was not slow), the next step claims twice as many (up to
   GROUPCONC_BATCH_MAX: w->want), else one; pool.short_tasks says which. */
GROUPCONC__FN void groupconc__worker_pace(groupconc__worker_loop *w, unsigned nran, unsigned n, uint64_t took,
                                          bool slow) {
    if (nran && !slow && took / n < GROUPCONC__SHORT_NS)
        w->want = w->want * 2 > GROUPCONC_BATCH_MAX ? GROUPCONC_BATCH_MAX : w->want * 2;
    else
        w->want = 1;
    groupconc__note_short_tasks(w->ex, w->want > 1, slow);
}

/* Run a batch, unlocked: the stolen task if any, then the claimed ones back to back, each published
   as it returns (groupconc__publish). It stops early when a thread waits (the worker finishes at
   once) or when the batch runs past GROUPCONC__BATCH_NS (slow: what it claimed and did not start is
   handed back at the next step). Returns how many it published; sets w->slow, w->want and
   w->last_end. One clock read per task at most: a task starts at the last read when nothing ran
   since (the batch's start, the previous task's end), and in a serial run at the previous one's
   end (w->last_end); a serial run of short untimed tasks reads it every fourth one, as a batch
   does (w->unread). */
GROUPCONC__FN unsigned groupconc__worker_run_batch(groupconc__worker_loop *w) {
    groupconc_executor *ex = w->ex;
    groupconc__worker *self = w->self;
    groupconc__claims *mine = &w->mine;
    unsigned nran = 0, unread = w->unread, carried = w->unread; /* unread: tasks since t1 was read */
    uint64_t t0 = w->last_end ? w->last_end : carried ? w->last_read : groupconc__now_ns(), t1 = t0;
    uint64_t fresh = carried ? 0 : t0; /* the clock now, when nothing ran since it was read; else 0 */
    bool slow = false, waited_for = false;
    groupconc_task *next = NULL; /* the chained task it won, to run next whatever the time */
    w->unread = 0;
    atomic_store_explicit(&self->busy_since, t0, memory_order_relaxed);
    if (w->stolen) {
        groupconc_task *stolen = w->stolen;
        if (groupconc__run(ex, stolen, fresh, true)) {
            groupconc__publish(ex, self, stolen, nran++);
            GROUPCONC_TEST_TASK_PUBLISHED(stolen);
        }
        w->stolen = NULL;
        fresh = t1 = groupconc__now_ns();
        slow = groupconc__worker_busy(self, t0, t1);
    }
    while (next || (!slow && !waited_for)) {
        groupconc_task *t = next ? next : groupconc__worker_next_claim(mine);
        bool timed, ran;
        next = NULL;
        if (!t) break;
        timed = (t->bits & GROUPCONC__B_OBSERVED) != 0; /* ours now: nobody else writes its bits */
        ran = groupconc__run_inline(ex, t, fresh, true);
        if (ran && timed) t1 = t->end_ns; /* read already; before publishing (a helper may free t) */
        /* its cleanup ran after its end was read */
        fresh = ran && timed && !(t->bits & GROUPCONC__B_HAS_CLEANUP) ? t1 : 0;
        /* a clock read costs as much as a short task's whole overhead: untimed tasks read it
           every fourth one (a long task is then noticed up to three short ones late) */
        if (ran && timed) {
            unread = 0;
            slow = groupconc__worker_busy(self, t0, t1);
        } else if (!ran || ++unread == 4) {
            fresh = t1 = groupconc__now_ns();
            unread = 0;
            slow = groupconc__worker_busy(self, t0, t1);
        }
        if (ran) { /* a slow batch wins no more chained tasks: what it finished waits for the lock */
            waited_for = groupconc__worker_pass(w, t, nran++, slow ? NULL : &next);
            GROUPCONC_TEST_TASK_PUBLISHED(t); /* a test holds the batch here */
        }
    }
    if (unread && nran == 1 && w->want > 1 && !waited_for) { /* a serial run's round, short tasks */
        w->unread = unread; /* the next round reads it (or the next step, which starts afresh) */
        w->last_read = t1;
    } else if (unread) { /* the last ones were not timed yet: a long one makes the batch slow */
        fresh = t1 = groupconc__now_ns();
        slow = t1 - t0 > GROUPCONC__BATCH_NS;
    }
    w->last_end = fresh;
    groupconc__worker_pace(w, nran, nran + carried, t1 - t0, slow);
    w->slow = slow;
    return nran;
}

/* A worker's thread: a locked step, then its batch outside the lock or, with nothing to do, one idle
   turn (spin, nap or sleep) under it; until the executor stops or the worker retires. */
GROUPCONC__FN int groupconc__worker_main(void *arg) {
    groupconc__worker_loop w;
    groupconc__frame base;             /* this thread is a worker of ex (see "calling thread") */
    groupconc_executor *ex;
    memset(&w, 0, sizeof w);
    w.self = (groupconc__worker *)arg;
    w.ex = ex = w.self->exec;
    w.want = 1;
    groupconc__frame_push(&base, ex, NULL);
    base.claims = &w.mine;
    /* w.done is owed in the base frame, as every list of completions is in a frame: a callback
       registered on a chained task after it returned (too late to stop the chain) may wait on a
       later one of the serial step's list, which only this thread would complete (groupconc__pay).
       Set once: set and cleared around each serial step's completions, W3's drain read -5 %. The
       full step's settle owes the same list in a frame of its own, inside this one: found first. */
    base.owed = &w.done;
#if defined(GROUPCONC__PROC)
    { /* its id in /proc, where the watch looks whether it runs (groupconc__runnable) */
        char link[64];
        ssize_t n = readlink("/proc/thread-self", link, sizeof link - 1); /* "<pid>/task/<id>" */
        const char *id;
        long tid = 0;
        if (n > 0) {
            link[n] = '\0';
            id = strrchr(link, '/');
            if (id) tid = strtol(id + 1, NULL, 10);
        }
        if (tid > 0 && tid <= INT_MAX) atomic_store_explicit(&w.self->tid, (int)tid, memory_order_relaxed);
    }
#endif
    groupconc__my_worker = w.self; /* its waits for ex->lock inside a task: groupconc__exec_mutex_lock */
    GROUPCONC_TEST_WORKER_STARTING(); /* a test holds it here: still counted in nstarting */
    groupconc__exec_lock(ex);
    atomic_fetch_sub_explicit(&ex->pool.nstarting, 1, memory_order_seq_cst); /* P1: before its first look */
    for (;;) { /* if / else if, no continue: gcc then sees the batch as the hot path (it inlines) */
        groupconc__batch b = GROUPCONC__BATCH_INIT;
        bool serial = groupconc__worker_serial_locked(&w);
        if (serial || groupconc__worker_step_locked(&w, &b)) {
            groupconc__exec_unlock(ex);
            w.spun = false;
            w.idle_since = 0;
            if (serial) { /* tasks to complete, nothing else */
                groupconc_task *t;
                while ((t = groupconc__fifo_pop(&w.done)) != NULL)
                    w.to_retire += groupconc__complete(ex, t, &w.mine, &w.dead);
                if (base.settled) { /* what a callback's wait completed (base.owed, above) */
                    w.to_retire += base.settled;
                    base.settled = 0;
                }
                /* a completion that runs user code gives the claims back first */
                if (w.mine.count != 1) w.last_end = 0, w.unread = 0;
            } else {
                groupconc__worker_settle(&w, &b);
                w.last_end = 0;
                w.unread = 0;
            }
            groupconc__nodes_unref_flush(&w.dead); /* before user code: it may take long */
            if (w.mine.count || w.stolen) w.nran = groupconc__worker_run_batch(&w);
            /* on its way to finish them itself: nobody needs to help, however long the lock takes */
            atomic_store_explicit(&w.self->busy_since, GROUPCONC__NOT_BUSY, memory_order_relaxed);
            groupconc__exec_lock(ex);
        } else if (!groupconc__worker_idle_locked(&w)) { /* nothing to do */
            break;
        }
    }
    GROUPCONC_ASSERT(w.mine.count == 0 && w.nran == 0);
    groupconc__exec_unlock(ex);
    groupconc__my_worker = NULL;
    groupconc__frame_pop(&base);
    groupconc__nodes_free(w.dead.head[0]);
    groupconc__nodes_free(w.dead.head[1]);
    return 0;
}

/* A task that says it will block: room for one more worker until its body returns (nhinted). */
GROUPCONC__PUBLIC int groupconc_context_blocking(groupconc_context *ctx) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc_executor *ex;
    groupconc_task *t;
    groupconc__frame *f, *base;
    if (!ctx) return GROUPCONC_EINVAL;
    t = GROUPCONC__TASK(ctx);
    ex = t->group->exec;
    GROUPCONC__NOT_IN_RESOLVER(ex); /* running: its group is alive */
    for (f = groupconc__frames; f && f->self != t; f = f->prev) {} /* its body's frame (run) */
    if (!f || !f->on_worker) return GROUPCONC_ESTATE; /* not its stage: see groupconc_context_defer */
    for (base = f->prev; base && !(base->claims && base->ex == ex); base = base->prev) {} /* a worker's */
    if (!base) return GROUPCONC_ESTATE;
    if (f->blocking) return GROUPCONC_OK;
    f->blocking = true;
    groupconc__lock_quiet(ex, &b); /* admits the inbox: what waits now gets its worker */
    atomic_fetch_add_explicit(&ex->pool.nhinted, 1, memory_order_relaxed); /* read under the lock, or a hint */
    (void)groupconc__kick_locked(ex); /* a failure leaves the tasks to the live workers and the watch */
    groupconc__exec_unlock(ex);
    return GROUPCONC_OK;
}

/* ==== housekeeper: queue deadlines, idle groups, the pool's watch ============================== */
/* One thread per executor, started the first time a task has a queue deadline, a group may be
   reclaimed for idleness, or the pool is at its size with tasks waiting (the watch: see "worker
   pool"). It sleeps on keeper.cv (with ex->lock) until the earliest deadline or the
   LRU head's idle time; timer_add signals it when a new deadline comes first. Expired tasks leave
   their queue, hand on what they held, and complete REJECTED (GROUPCONC_EEXPIRED_<layer>) here. */

#define GROUPCONC__COARSE_SLACK_NS 10000000u /* idle times use the coarse clock: look a bit later */

/* Expire every waiting task whose deadline is <= now. Under ex->lock. */
GROUPCONC__FN void groupconc__expire_locked(groupconc_executor *ex, uint64_t now, groupconc__batch *b) {
    while (ex->keeper.ntimers > 0 && groupconc__timer_at(ex, 0) <= now) {
        groupconc_task *t = ex->keeper.timers[0];
        GROUPCONC_ASSERT(t->stage == GROUPCONC__QUEUED);
        groupconc__unlink_waiting(ex, t);
        groupconc__reject_locked(ex, t, groupconc__layer_expired(t->held), b);
        groupconc__pump(ex, b); /* what it handed on moves before the next look at the heap */
    }
}

/* Reclaim the groups idle for group_idle_ns. Under ex->lock, every stripe and lru_lock, the inbox
   drained.
   Returns when to look again (coarse clock), or UINT64_MAX. */
GROUPCONC__FN uint64_t groupconc__sweep_idle_tlocked(groupconc_executor *ex) {
    uint64_t idle = (uint64_t)ex->policy.group_idle_ns, now = groupconc__coarse_now_ns();
    groupconc__group *g;
    while ((g = ex->table.lru_head) != NULL && groupconc__lru_of(g)->placed + idle <= now) {
        uint64_t last = atomic_load_explicit(&groupconc__lru_of(g)->last_used, memory_order_relaxed);
        if (!groupconc__group_idle_locked(ex, g)) {
            groupconc__lru_touch(ex, g, now); /* busy: look again an idle time from now */
        } else if (last + idle <= now) {
            groupconc__reclaim_tlocked(ex, g);
        } else { /* its last task ended recently: its place is by that time */
            groupconc__lru_unlink(ex, g);
            groupconc__lru_place(ex, g, last);
        }
    }
    return g ? groupconc__lru_of(g)->placed + idle + GROUPCONC__COARSE_SLACK_NS : UINT64_MAX;
}

/* Whether worker w's thread runs or waits for a CPU (Linux: state R in /proc/self/task/<id>/stat):
   then it is not blocked, however long its task has run (a loaded machine preempts it). False where
   this cannot be known. The watch reads it only for a worker that looks blocked. */
GROUPCONC__FN bool groupconc__runnable(const groupconc__worker *w) {
#if defined(GROUPCONC__PROC)
    char path[64], buf[512];
    const char *p;
    ssize_t n;
    int fd, tid = atomic_load_explicit(&w->tid, memory_order_relaxed);
    if (tid <= 0) return false;
    (void)snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    n = read(fd, buf, sizeof buf - 1);
    (void)close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* after the command name, which may hold anything */
    return p && p[1] == ' ' && p[2] == 'R';
#else
    (void)w;
    return false;
#endif
}

/* Whether worker w, whose busy_since read `since` (a task's start), sleeps in that task: its thread
   neither runs nor waits for a CPU, and busy_since, read again after /proc, still holds that start.
   The second read is what makes it sound: the watch holds ex->lock, and a worker that ends its batch
   meanwhile stores NOT_BUSY and then sleeps on that lock, which /proc shows as asleep; read only
   before /proc, the start it left would have made that wait a task asleep (on a loaded machine the
   idle-CPU sign then grew a pool of no-op tasks to max_threads). A worker that waits for the lock
   from inside its task (a deferred task's hand-off, a library call from its body) shows NOT_BUSY
   meanwhile too (groupconc__exec_mutex_lock). The store comes before the worker's futex call and
   the keeper's read after its own read() of /proc: both system calls order them. No ABA: the
   keeper holds every shard's lock for the whole look, and a worker stores a start again (maybe the
   same value: run_batch's t0 may be its last end) only after it took that lock. */
GROUPCONC__FN bool groupconc__asleep_in_task(const groupconc__worker *w, uint64_t since) {
    return !groupconc__runnable(w) && atomic_load_explicit(&w->busy_since, memory_order_seq_cst) == since;
}

/* The tasks that wait for a worker: ready ones and refusals left to a worker's drain that no worker
   on its way covers, and, with `stuck` workers, the tasks those claimed in a batch and have not
   started (an idle worker would steal them, a new one will). Under ex->lock. */
GROUPCONC__FN size_t groupconc__unserved_locked(groupconc_executor *ex, size_t stuck) {
    const uint32_t gone = GROUPCONC__ST_STARTED | GROUPCONC__ST_TAKEN;
    size_t covered = atomic_load_explicit(&ex->pool.nwaking, memory_order_relaxed) +
                     atomic_load_explicit(&ex->pool.nstarting, memory_order_relaxed) +
                     (size_t)atomic_load_explicit(&ex->pool.nspinning, memory_order_relaxed);
    size_t ready = GROUPCONC__READY_COUNT(ex) + groupconc__refused_count_locked(ex); /* every shard's */
    size_t n = ready > covered ? ready - covered : 0;
    groupconc__shard *sh;
    groupconc_task *t;
    if (!stuck || atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed)) return n;
    GROUPCONC__EACH_SHARD(ex, sh)
        for (t = sh->running.head; t && n < (size_t)ex->policy.max_threads; t = t->next)
            if (!(atomic_load_explicit(&t->state, memory_order_acquire) & gone)) n++;
    return n;
}

/* The housekeeper's watch over the pool (see "worker pool"): while tasks wait for a worker and the
   pool is at its size, look at the busy workers every watch_every. Two signs of blocked tasks:
     - a stall: no task finished for GROUPCONC__BLOCKED_NS, a worker's task has run that long, and
       the process used less than half a CPU meanwhile (its threads wait, they are not computing
       nor queued for a CPU: a loaded machine that preempts the workers is no reason to add
       threads): one more worker for each waiting task;
     - idle CPUs: since its last look the process used less than half a CPU while tasks waited
       and a worker sleeps in its task: tasks finish, but their workers mostly wait (I/O or sleeps
       shorter than a stall): one more worker for each waiting task;
     - a long task: a worker's task has run past GROUPCONC__STUCK_NS while others finish: one
       more worker for it (once per task: w->watched).
   Up to max_threads + nblocked. The watch ends once two looks in a row find nothing waiting.
   Under ex->lock; b collects what admitting the inbox finished. Returns when to look next
   (UINT64_MAX: ended). */
/* The watch's count of the workers whose task has run past GROUPCONC__BLOCKED_NS asleep (not
   runnable): *blocked (a stall needs one), *stuck (past GROUPCONC__STUCK_NS and not started for yet). */
GROUPCONC__FN void groupconc__watch_count_locked(groupconc_executor *ex, uint64_t now, size_t *blocked,
                                                 size_t *stuck) {
    groupconc__worker *w;
    for (w = ex->pool.workers; w; w = w->next) {
        uint64_t since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
        bool long_task;
        /* idle, NOT_BUSY, or a task started after this look read the clock: age 0 (busy_ns) */
        if (groupconc__busy_ns(since, now) < GROUPCONC__BLOCKED_NS) continue;
        long_task = since != w->watched && groupconc__busy_ns(since, now) >= GROUPCONC__STUCK_NS;
        if ((!long_task && *blocked) || !groupconc__asleep_in_task(w, since)) continue; /* a stall needs one */
        (*blocked)++;
        if (long_task) (*stuck)++;
    }
}

#if defined(GROUPCONC__PROC)
/* Is some worker asleep in its task (not running nor waiting for a CPU)? For the idle-CPU sign. */
GROUPCONC__FN bool groupconc__watch_any_asleep_locked(groupconc_executor *ex, uint64_t now) {
    groupconc__worker *w;
    for (w = ex->pool.workers; w; w = w->next) {
        uint64_t since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
        /* in a task (not idle, not NOT_BUSY, started before `now`) */
        if (groupconc__busy_ns(since, now) > 0 && groupconc__asleep_in_task(w, since)) return true;
    }
    return false;
}
#endif

/* A stall: no task finished for GROUPCONC__BLOCKED_NS while a worker sleeps in a task that old
   (`blocked`), and the process used under half a CPU meanwhile. */
GROUPCONC__FN bool groupconc__watch_stalled(const groupconc_executor *ex, uint64_t now, uint64_t cpu,
                                            size_t blocked) {
    uint64_t quiet = now - ex->keeper.watch_moved_at;
    return blocked && quiet >= GROUPCONC__BLOCKED_NS && cpu - ex->keeper.watch_cpu < quiet / 2;
}

/* Idle CPUs: tasks wait, and since the last look (long enough to tell) the process used under half
   a CPU while a worker sleeps in its task: tasks finish, but their workers mostly wait (I/O or
   sleeps shorter than a stall). Linux only: elsewhere nothing tells a sleeping worker from one
   that computes or waits for a CPU (and Wine's process times are coarse), so it would misfire. */
GROUPCONC__FN bool groupconc__watch_idle_cpus_locked(groupconc_executor *ex, uint64_t now, uint64_t cpu,
                                                    size_t need) {
#if defined(GROUPCONC__PROC)
    uint64_t span = now - ex->keeper.watch_look_at;
    return need && span >= GROUPCONC__WATCH_NS / 2 && cpu - ex->keeper.watch_look_cpu < span / 2 &&
           groupconc__watch_any_asleep_locked(ex, now);
#else
    (void)ex;
    (void)now;
    (void)cpu;
    (void)need;
    return false;
#endif
}

/* Start up to `start` workers (within max_threads + nblocked), the tasks older than `age` counted
   as served. Returns whether any start was tried. */
GROUPCONC__FN bool groupconc__watch_grow_locked(groupconc_executor *ex, uint64_t now, size_t start,
                                                uint64_t age) {
    size_t hard = (size_t)ex->policy.max_threads + atomic_load_explicit(&ex->pool.nblocked, memory_order_relaxed);
    groupconc__worker *w;
    if (!start || atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) >= hard) return false;
    for (w = ex->pool.workers; w; w = w->next) { /* each of their tasks counts once */
        uint64_t since = atomic_load_explicit(&w->busy_since, memory_order_relaxed);
        uint64_t busy = groupconc__busy_ns(since, now); /* 0 for a sentinel: never marked watched */
        if (busy > 0 && busy >= age) w->watched = since;
    }
    while (start-- && atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) < hard &&
           groupconc__spawn_locked(ex) == GROUPCONC_OK) {}
    return true;
}

/* Nothing is waiting for a worker: the first such look keeps watching, the second ends the watch
   (unless a push came meanwhile). Returns when to look next, or 0 to go on looking now. */
GROUPCONC__FN uint64_t groupconc__watch_quiet_locked(groupconc_executor *ex, uint64_t now) {
    if (ex->keeper.watch_quiet++ == 0) {
        ex->keeper.watch_at = now + ex->keeper.watch_every;
        return ex->keeper.watch_at;
    }
    /* P1, the housekeeper's end: a push from now on finds it unwatched, one before is seen */
    atomic_store_explicit(&ex->keeper.watching, false, memory_order_seq_cst);
    if (!groupconc__inbox_pending(ex)) return UINT64_MAX;
    atomic_store_explicit(&ex->keeper.watching, true, memory_order_relaxed);
    return 0;
}

GROUPCONC__FN uint64_t groupconc__watch_locked(groupconc_executor *ex, groupconc__batch *b) {
    uint64_t now = groupconc__now_ns(), cpu, age = GROUPCONC__BLOCKED_NS, next, retired;
    size_t blocked = 0, stuck = 0, need, start = 0;
    if (now < ex->keeper.watch_at) return ex->keeper.watch_at;
    /* tasks pushed while it watched: admitted as lock_quiet does, without helping (what a stuck
       worker finished completes on a worker, not here, where a callback could not wait) */
    if (groupconc__inbox_pending(ex)) groupconc__admit_inbox_quiet_locked(ex, b);
    cpu = groupconc__cpu_time_ns();
    retired = groupconc__totals_locked(ex).retired; /* every shard's: it looks at the whole pool */
    if (retired != ex->keeper.watch_retired) { /* tasks move: the stall's window starts again */
        ex->keeper.watch_retired = retired;
        ex->keeper.watch_moved_at = now;
        ex->keeper.watch_cpu = cpu;
    }
    groupconc__watch_count_locked(ex, now, &blocked, &stuck);
    need = groupconc__unserved_locked(ex, blocked);
    if (need == 0 && (next = groupconc__watch_quiet_locked(ex, now)) != 0) return next;
    ex->keeper.watch_quiet = 0;
    if (groupconc__watch_stalled(ex, now, cpu, blocked) ||
        groupconc__watch_idle_cpus_locked(ex, now, cpu, need)) {
        start = need; /* every waiting task is served */
    } else if (stuck) {
        start = stuck < need ? stuck : need;
        age = GROUPCONC__STUCK_NS; /* the long ones */
    }
    if (groupconc__watch_grow_locked(ex, now, start, age)) {
        ex->keeper.watch_every = GROUPCONC__WATCH_NS;
        ex->keeper.watch_moved_at = now; /* the stall's window starts again: the new ones need time */
        ex->keeper.watch_cpu = cpu;
    } else if (ex->keeper.watch_moved_at == now && !blocked &&
               ex->keeper.watch_every < GROUPCONC__WATCH_MAX_NS) {
        ex->keeper.watch_every *= 2; /* short tasks: look less often */
    }
    ex->keeper.watch_look_at = now;
    ex->keeper.watch_look_cpu = cpu;
    ex->keeper.watch_at = now + ex->keeper.watch_every;
    return ex->keeper.watch_at;
}

GROUPCONC__FN int groupconc__keeper_main(void *arg) {
    groupconc_executor *ex = (groupconc_executor *)arg;
    groupconc__frame base; /* the expired tasks' callbacks run here: they must not block (EDEADLK) */
    groupconc__frame_push(&base, ex, NULL);
    base.keeper = true;
    groupconc__exec_lock_all(ex);
    while (!ex->keeper.stop) {
        groupconc__batch b = GROUPCONC__BATCH_INIT;
        uint64_t wake = UINT64_MAX;
        groupconc__expire_locked(ex, groupconc__now_ns(), &b);
        if (ex->keeper.ntimers > 0) wake = groupconc__timer_at(ex, 0);
        if (ex->policy.group_idle_ns > 0) {
            uint64_t w;
            groupconc__table_lock_all(ex);
            /* no task of a group may be on its way in: the inbox admitted, quietly (a drain would
               help a busy worker and settle refusals here, running other tasks' events, callbacks
               and handlers on this thread, where a wait is EDEADLK and a block stops the watch) */
            if (groupconc__inbox_pending(ex)) groupconc__admit_inbox_quiet_locked(ex, &b);
            groupconc__mutex_lock(&ex->table.lru_lock);
            w = groupconc__sweep_idle_tlocked(ex);
            groupconc__mutex_unlock(&ex->table.lru_lock);
            groupconc__table_unlock_all(ex);
            if (w < wake) wake = w;
            /* a group created from now on is due an idle time from now at the earliest: nobody
               signals its creation, so look again by then */
            w = groupconc__coarse_now_ns() + (uint64_t)ex->policy.group_idle_ns + GROUPCONC__COARSE_SLACK_NS;
            if (w < wake) wake = w;
        }
        if (atomic_load_explicit(&ex->keeper.watching, memory_order_relaxed)) {
            uint64_t w = groupconc__watch_locked(ex, &b);
            if (w < wake) wake = w;
        }
        /* what an expiry's hand-off refused (another group's threshold) settles on a worker, as
           the quiet admission's refusals do: its rejection handler may wait for a task */
        if (b.rejected.count) groupconc__refusals_defer_locked(ex, &b.rejected, true);
        /* deferred, then no worker could come after all (the watch's starts failed, max_threads
           reached): settled here */
        if (!groupconc__worker_can_come_locked(ex)) groupconc__refused_take_locked(ex, &b.rejected);
        if (b.todo.count || b.rejected.count || groupconc__totals_locked(ex).ready) /* every shard held */
            (void)groupconc__kick_locked(ex);
        if (b.todo.count || b.rejected.count || b.asks) { /* asks: fleet requests of tasks it admitted */
            groupconc__exec_unlock_all(ex);
            groupconc__flush_and_retire(ex, &b);
            groupconc__exec_lock_all(ex);
            continue;
        }
        if (atomic_load_explicit(&ex->keeper.watching, memory_order_relaxed) && ex->keeper.watch_at < wake)
            wake = ex->keeper.watch_at; /* its kick above may have started the watch */
        ex->keeper.wake = wake;
        (void)groupconc__exec_wait_all(ex, &ex->keeper.cv, wake);
        ex->keeper.wake = 0; /* awake: it looks again before it sleeps, nobody needs to signal */
    }
    groupconc__exec_unlock_all(ex);
    groupconc__frame_pop(&base);
    return 0;
}

/* Under ex->lock. */
GROUPCONC__FN int groupconc__keeper_start_locked(groupconc_executor *ex) {
    int rc;
    if (atomic_load_explicit(&ex->keeper.started, memory_order_relaxed)) return GROUPCONC_OK;
    rc = groupconc__thread_start_(&ex->keeper.thread, groupconc__keeper_main, ex);
    if (rc == GROUPCONC_OK) atomic_store_explicit(&ex->keeper.started, true, memory_order_relaxed);
    return rc;
}

/* ==== executor API: policy and executor life cycle ============================================= */

GROUPCONC__PUBLIC groupconc_policy groupconc_policy_default(void) {
    groupconc_policy p;
    memset(&p, 0, sizeof p);
    p.default_concurrency = 1;
    p.default_max_in_flight = GROUPCONC_UNLIMITED;
    p.default_queue_threshold = GROUPCONC_UNLIMITED;
    p.global_max_in_flight = GROUPCONC_UNLIMITED;
    p.global_queue_threshold = GROUPCONC_UNLIMITED;
    p.rejection = GROUPCONC_REJECT_ABORT;
    p.max_threads = 32;
    p.keep_alive_ns = 10 * (int64_t)1000000000;
    p.global_max_running = GROUPCONC_UNLIMITED;
    p.max_waiting = GROUPCONC_UNLIMITED;
    p.default_max_wait_ns = GROUPCONC_FOREVER;
    p.max_groups = GROUPCONC_UNLIMITED;
    p.group_idle_ns = GROUPCONC_FOREVER;
    return p;
}

GROUPCONC__FN bool groupconc__cap_ok(int v) { return v >= 1 || v == GROUPCONC_UNLIMITED; }
GROUPCONC__FN bool groupconc__threshold_ok(int v) { return v >= 0 || v == GROUPCONC_UNLIMITED; }

/* Fill *pr (if not NULL) with one problem; returns code. */
GROUPCONC__FN int groupconc__problem(groupconc_policy_problem *pr, int code, const char *field,
                                     long index, const char *group, long long value,
                                     const char *rule) {
    if (!pr) return code;
    pr->code = code;
    pr->group = group;
    pr->value = value;
    if (index >= 0) (void)snprintf(pr->field, sizeof pr->field, "groups[%ld].%s", index, field);
    else (void)snprintf(pr->field, sizeof pr->field, "%s", field);
    if (strncmp(rule, "is NULL", 7) == 0) /* a pointer: no value to show */
        (void)snprintf(pr->message, sizeof pr->message, "%s%s%.40s%s %s", pr->field,
                       group ? " (group \"" : "", group ? group : "", group ? "\")" : "", rule);
    else if (group)
        (void)snprintf(pr->message, sizeof pr->message, "%s (group \"%.40s\") = %lld: %s", pr->field, group,
                 value, rule);
    else
        (void)snprintf(pr->message, sizeof pr->message, "%s = %lld: %s", pr->field, value, rule);
    return code;
}

GROUPCONC__FN int groupconc__strcmp_indirect(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GROUPCONC__FN bool groupconc__max_wait_entry_ok(int64_t v) {
    return v >= 0 || v == GROUPCONC_FOREVER || v == GROUPCONC_DEFAULT;
}

/* A task spec's max_wait_ns: 0 (its group's / the default), > 0, or GROUPCONC_FOREVER. */
GROUPCONC__FN bool groupconc__task_wait_ok(int64_t v) { return v >= 0 || v == GROUPCONC_FOREVER; }

#define GROUPCONC__CAP_RULE "must be >= 1 or GROUPCONC_UNLIMITED"
#define GROUPCONC__THRESHOLD_RULE "must be >= 0 or GROUPCONC_UNLIMITED"

/* The policy's own limits, in the order of the struct; the first bad one is reported. */
GROUPCONC__FN int groupconc__policy_check_limits(const groupconc_policy *p,
                                                 groupconc_policy_problem *pr) {
    if (p->default_concurrency < 1)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "default_concurrency", -1, NULL,
                                  p->default_concurrency, "must be >= 1");
    if (!groupconc__cap_ok(p->default_max_in_flight))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "default_max_in_flight", -1, NULL,
                                  p->default_max_in_flight, GROUPCONC__CAP_RULE);
    if (!groupconc__threshold_ok(p->default_queue_threshold))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "default_queue_threshold", -1, NULL,
                                  p->default_queue_threshold, GROUPCONC__THRESHOLD_RULE);
    if (!groupconc__cap_ok(p->global_max_in_flight))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "global_max_in_flight", -1, NULL,
                                  p->global_max_in_flight, GROUPCONC__CAP_RULE);
    if (!groupconc__threshold_ok(p->global_queue_threshold))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "global_queue_threshold", -1, NULL,
                                  p->global_queue_threshold, GROUPCONC__THRESHOLD_RULE);
    if (p->max_threads < 1)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "max_threads", -1, NULL, p->max_threads,
                                  "must be >= 1");
    if (p->keep_alive_ns < 0)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "keep_alive_ns", -1, NULL, p->keep_alive_ns,
                                  "must be >= 0");
    if (!groupconc__cap_ok(p->global_max_running))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "global_max_running", -1, NULL,
                                  p->global_max_running, GROUPCONC__CAP_RULE);
    if (!groupconc__threshold_ok(p->max_waiting))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "max_waiting", -1, NULL, p->max_waiting,
                                  GROUPCONC__THRESHOLD_RULE);
    if (p->default_max_wait_ns <= 0 && p->default_max_wait_ns != GROUPCONC_FOREVER)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "default_max_wait_ns", -1, NULL,
                                  p->default_max_wait_ns, "must be > 0 or GROUPCONC_FOREVER");
    if (!groupconc__cap_ok(p->max_groups))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "max_groups", -1, NULL, p->max_groups,
                                  GROUPCONC__CAP_RULE);
    if (p->group_idle_ns <= 0 && p->group_idle_ns != GROUPCONC_FOREVER)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "group_idle_ns", -1, NULL, p->group_idle_ns,
                                  "must be > 0 or GROUPCONC_FOREVER");
    return GROUPCONC_OK;
}

/* One entry of the per-group table (groups[at]): its key, then its limits. */
GROUPCONC__FN int groupconc__policy_check_entry(const groupconc_group_limits *e, long at,
                                                groupconc_policy_problem *pr) {
    uint64_t hash;
    size_t len;
    int rc;
    if (!e->group) return groupconc__problem(pr, GROUPCONC_EINVAL, "group", at, NULL, 0, "is NULL");
    if ((rc = groupconc__key_hash(e->group, &len, &hash)) != GROUPCONC_OK)
        return groupconc__problem(pr, rc, "group", at, NULL, 0,
                                  rc == GROUPCONC_EKEYEMPTY ? "is empty"
                                                            : "is longer than GROUPCONC_MAX_KEY_LEN");
    if (e->concurrency < 1 && e->concurrency != GROUPCONC_DEFAULT)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "concurrency", at, e->group, e->concurrency,
                                  "must be >= 1 or GROUPCONC_DEFAULT");
    if (!groupconc__cap_ok(e->max_in_flight) && e->max_in_flight != GROUPCONC_DEFAULT)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "max_in_flight", at, e->group,
                                  e->max_in_flight,
                                  "must be >= 1, GROUPCONC_UNLIMITED or GROUPCONC_DEFAULT");
    if (!groupconc__threshold_ok(e->queue_threshold) && e->queue_threshold != GROUPCONC_DEFAULT)
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "queue_threshold", at, e->group,
                                  e->queue_threshold,
                                  "must be >= 0, GROUPCONC_UNLIMITED or GROUPCONC_DEFAULT");
    if (!groupconc__max_wait_entry_ok(e->max_wait_ns))
        return groupconc__problem(pr, GROUPCONC_ELIMIT, "max_wait_ns", at, e->group, e->max_wait_ns,
                                  "must be > 0, GROUPCONC_FOREVER, 0 or GROUPCONC_DEFAULT");
    return GROUPCONC_OK;
}

/* The same key twice in the per-group table (group_count >= 2): sort pointers to the keys. The
   second entry with a repeated key is reported, its value the first one's index. */
GROUPCONC__FN int groupconc__policy_check_duplicates(const groupconc_policy *p,
                                                     groupconc_policy_problem *pr) {
    const char **keys;
    size_t i;
    int rc;
    if (p->group_count > SIZE_MAX / sizeof *keys) return groupconc__problem(pr, GROUPCONC_ENOMEM, "groups", -1, NULL, 0, "too many entries");
    keys = (const char **)GROUPCONC_MALLOC(p->group_count * sizeof *keys);
    if (!keys)
        return groupconc__problem(pr, GROUPCONC_ENOMEM, "groups", -1, NULL, 0,
                                  "out of memory checking for duplicate keys");
    for (i = 0; i < p->group_count; i++) keys[i] = p->groups[i].group;
    qsort(keys, p->group_count, sizeof *keys, groupconc__strcmp_indirect);
    rc = GROUPCONC_OK;
    for (i = 1; i < p->group_count && rc == GROUPCONC_OK; i++) {
        if (strcmp(keys[i - 1], keys[i]) == 0) {
            size_t j, first = SIZE_MAX;
            for (j = 0; j < p->group_count; j++) { /* report the second entry with that key */
                if (strcmp(p->groups[j].group, keys[i]) != 0) continue;
                if (first == SIZE_MAX) first = j;
                else break;
            }
            rc = groupconc__problem(pr, GROUPCONC_EDUPKEY, "group", (long)j, p->groups[j].group,
                                    (long long)first, "the same key as an earlier entry");
            if (pr) /* the earlier entry by its name, not by "value" */
                (void)snprintf(pr->message, sizeof pr->message, "%s (group \"%.40s\"): the same key as groups[%zu]",
                               pr->field, p->groups[j].group, first);
        }
    }
    GROUPCONC_FREE(keys);
    return rc;
}

/* The first problem, in this order: the policy itself, its limits, the fleet functions, the rejection
   policy, the per-group table (its pointer, each entry in order, then duplicate keys). */
GROUPCONC__FN int groupconc__policy_check(const groupconc_policy *p, groupconc_policy_problem *pr) {
    size_t i;
    int rc;
    if (pr) {
        memset(pr, 0, sizeof *pr);
        pr->code = GROUPCONC_OK;
    }
    if (!p) return groupconc__problem(pr, GROUPCONC_EINVAL, "policy", -1, NULL, 0, "is NULL");
    if ((rc = groupconc__policy_check_limits(p, pr)) != GROUPCONC_OK) return rc;
    if (!p->fleet.acquire != !p->fleet.release)
        return groupconc__problem(pr, GROUPCONC_EINVAL, p->fleet.acquire ? "fleet.release" : "fleet.acquire",
                                  -1, NULL, 0, "is NULL: set both fleet functions, or neither");
    if ((int)p->rejection < (int)GROUPCONC_REJECT_ABORT ||
        (int)p->rejection > (int)GROUPCONC_REJECT_CALLER_RUNS)
        return groupconc__problem(pr, GROUPCONC_EPOLICY, "rejection", -1, NULL, (long long)(int)p->rejection,
                                  "is not a groupconc_rejection_policy value");
    if (p->group_count > 0 && !p->groups)
        return groupconc__problem(pr, GROUPCONC_EINVAL, "groups", -1, NULL, 0,
                                  "is NULL while group_count > 0");
    for (i = 0; i < p->group_count; i++)
        if ((rc = groupconc__policy_check_entry(&p->groups[i], (long)i, pr)) != GROUPCONC_OK) return rc;
    if (p->group_count < 2) return GROUPCONC_OK;
    return groupconc__policy_check_duplicates(p, pr);
}

GROUPCONC__PUBLIC int groupconc_policy_check(const groupconc_policy *policy,
                                             groupconc_policy_problem *out_problem) {
    return groupconc__policy_check(policy, out_problem);
}

/* The per-group table: sorted entries, each key its own allocation (live changes insert). */
GROUPCONC__FN void groupconc__limits_free(groupconc_executor *ex) {
    size_t i;
    for (i = 0; i < ex->policy.group_count; i++) GROUPCONC_FREE(ex->limits[i].key);
    if (ex->limits) GROUPCONC_FREE(ex->limits);
    ex->limits = NULL;
    ex->policy.group_count = 0;
}

GROUPCONC__FN int groupconc__copy_limits(groupconc_executor *ex, const groupconc_policy *p) {
    size_t i, n = p->group_count;
    ex->policy.groups = NULL; /* the copy lives in ex->limits */
    ex->policy.group_count = 0;
    if (n == 0) return GROUPCONC_OK;
    if (n > SIZE_MAX / sizeof *ex->limits) return GROUPCONC_ENOMEM;
    ex->limits = (groupconc__limits_entry *)GROUPCONC_MALLOC(n * sizeof *ex->limits);
    if (!ex->limits) return GROUPCONC_ENOMEM;
    ex->nlimits_cap = n;
    for (i = 0; i < n; i++) {
        const groupconc_group_limits *src = &p->groups[i];
        size_t len = strlen(src->group) + 1;
        groupconc__limits_entry *e = &ex->limits[i];
        e->key = (char *)GROUPCONC_MALLOC(len);
        if (!e->key) {
            groupconc__limits_free(ex);
            return GROUPCONC_ENOMEM;
        }
        memcpy(e->key, src->group, len);
        e->concurrency = src->concurrency;
        e->max_in_flight = src->max_in_flight;
        e->queue_threshold = src->queue_threshold;
        e->max_wait_ns = src->max_wait_ns == GROUPCONC_DEFAULT ? 0 : src->max_wait_ns;
        if (e->max_wait_ns != 0) atomic_store_explicit(&ex->any_max_wait, true, memory_order_relaxed);
        ex->policy.group_count = i + 1;
    }
    qsort(ex->limits, n, sizeof *ex->limits, groupconc__limits_cmp);
    return GROUPCONC_OK;
}

/* True if no layer can refuse a task: no queue threshold anywhere (the global one, the default, or a
   configured group's) and no bound on all waiting tasks. Then submit never has to decide in the
   lock (see "inbox"). */
GROUPCONC__FN bool groupconc__never_refuses(const groupconc_policy *p) {
    size_t i;
    /* A fleet provider may answer from inside acquire (REJECT, OPEN: the task completes or moves
       on there): the admission that asks must run on a thread that may run completions, submit's
       or a worker's, never a read-only call's (groupconc__lock_quiet admits the inbox) */
    if (p->fleet.acquire) return false;
    if (p->global_queue_threshold != GROUPCONC_UNLIMITED) return false;
    if (p->default_queue_threshold != GROUPCONC_UNLIMITED) return false;
    if (p->max_waiting != GROUPCONC_UNLIMITED) return false;
    for (i = 0; i < p->group_count; i++)
        if (p->groups[i].queue_threshold != GROUPCONC_UNLIMITED &&
            p->groups[i].queue_threshold != GROUPCONC_DEFAULT)
            return false;
    return true;
}

GROUPCONC__PUBLIC int groupconc_executor_create(const groupconc_policy *policy,
                                                groupconc_executor **out_executor) {
    groupconc_executor *ex;
    int rc, stage = 0;
    if (out_executor) *out_executor = NULL;
    if (!policy || !out_executor) return GROUPCONC_EINVAL;
    if ((rc = groupconc__policy_check(policy, NULL)) != GROUPCONC_OK) return rc;
    ex = (groupconc_executor *)GROUPCONC_MALLOC(sizeof *ex);
    if (!ex) return GROUPCONC_ENOMEM;
    memset(ex, 0, sizeof *ex);
    ex->policy = *policy;
    ex->global.permits.limit = groupconc__cap(policy->global_max_in_flight);
    ex->run_cap.permits.limit = groupconc__cap(policy->global_max_running);
    ex->fleet.layer.permits.limit = INT32_MAX; /* the provider limits it */
    atomic_init(&ex->any_max_wait, policy->default_max_wait_ns != GROUPCONC_FOREVER);
    ex->keeper.wake = UINT64_MAX;
    atomic_init(&ex->keeper.started, false);
    atomic_init(&ex->shutdown, 0);
    atomic_init(&ex->inbox.head, NULL);
    atomic_init(&ex->inbox.node_returns[0], NULL);
    atomic_init(&ex->inbox.node_returns[1], NULL);
    atomic_init(&ex->inbox.node_transit[0], 0);
    atomic_init(&ex->inbox.node_transit[1], 0);
    atomic_init(&ex->pool.nthreads, 0);
    atomic_init(&ex->pool.nidle, 0);
    atomic_init(&ex->pool.nspinning, 0);
    atomic_init(&ex->pool.spin_poke, 0);
    atomic_init(&ex->pool.nnapping, 0);
    atomic_init(&ex->pool.short_tasks, 0);
    atomic_init(&ex->pool.nwaiters, 0);
    atomic_init(&ex->pool.nwaking, 0);
    atomic_init(&ex->pool.nstarting, 0);
    atomic_init(&ex->pool.nblocked, 0);
    atomic_init(&ex->pool.nhinted, 0);
#if GROUPCONC__SHARDS > 1
    atomic_init(&ex->unfinished, 0);
    atomic_init(&ex->retired, 0);
#endif
    { /* the pool's size: min(CPUs, max_threads); max_threads where the count is unknown (0) */
        size_t ncpu = groupconc__cpu_count(), max = (size_t)policy->max_threads;
        /* cppcheck (no system headers: no CPU count compiled in) sees ncpu as always 0 */
        /* cppcheck-suppress knownConditionTrueFalse */
        atomic_init(&ex->pool.size, ncpu && ncpu < max ? ncpu : max);
    }
    atomic_init(&ex->keeper.watching, false);
    ex->keeper.watch_every = GROUPCONC__WATCH_NS;
    atomic_init(&ex->inbox_ok, groupconc__never_refuses(policy));
    if ((rc = groupconc__copy_limits(ex, policy)) != GROUPCONC_OK) goto fail;
    if ((rc = groupconc__shard_locks_init(ex)) != GROUPCONC_OK) goto fail;
    stage = 1;
    if ((rc = groupconc__mutex_init(&ex->done_lock)) != GROUPCONC_OK) goto fail;
    stage = 2;
    if ((rc = groupconc__cond_init(&ex->pool.work_cv)) != GROUPCONC_OK) goto fail;
    stage = 3;
    if ((rc = groupconc__cond_init(&ex->idle_cv)) != GROUPCONC_OK) goto fail;
    stage = 4;
    if ((rc = groupconc__table_init(ex)) != GROUPCONC_OK) goto fail;
    stage = 5;
#ifndef GROUPCONC_NO_SCOPES
    if ((rc = groupconc__mutex_init(&ex->scope_lock)) != GROUPCONC_OK) goto fail;
    stage = 6;
#endif
    if ((rc = groupconc__cond_init(&ex->keeper.cv)) != GROUPCONC_OK) goto fail;
    stage = 7;
    if (ex->policy.fleet.attach &&
        (rc = ex->policy.fleet.attach(ex->policy.fleet.user_data, ex)) != GROUPCONC_OK) {
        if (rc > 0) rc = GROUPCONC_EINVAL; /* not a library code: the provider's mistake */
        goto fail;
    }
    *out_executor = ex;
    return GROUPCONC_OK;
fail: /* undo in reverse */
    if (stage >= 7) groupconc__cond_destroy(&ex->keeper.cv);
#ifndef GROUPCONC_NO_SCOPES
    if (stage >= 6) groupconc__mutex_destroy(&ex->scope_lock);
#endif
    if (stage >= 5) groupconc__table_locks_destroy(ex, GROUPCONC__STRIPES);
    if (stage >= 4) groupconc__cond_destroy(&ex->idle_cv);
    if (stage >= 3) groupconc__cond_destroy(&ex->pool.work_cv);
    if (stage >= 2) groupconc__mutex_destroy(&ex->done_lock);
    if (stage >= 1) groupconc__shard_locks_destroy(ex);
    groupconc__limits_free(ex);
    GROUPCONC_FREE(ex);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_executor_shutdown(groupconc_executor *ex) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    if (!ex) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__exec_lock_all(ex);
    atomic_store_explicit(&ex->shutdown, 1, memory_order_relaxed); /* the lock orders it */
    ex->swept = true;
    groupconc__drain_locked(ex, &b, true);
    groupconc__sweep_locked(ex, NULL, &b);
    (void)groupconc__kick_locked(ex);
#if GROUPCONC__SHARDS > 1
    if (groupconc__totals_locked(ex).unfinished == 0) groupconc__idle_broadcast(ex);
#else
    if (groupconc__totals_locked(ex).unfinished == 0) groupconc__cond_broadcast(&ex->idle_cv);
#endif
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b);
    return GROUPCONC_OK;
}

#define GROUPCONC__PAUSED_POLL_NS 5000000 /* wait_quiet's look at a paused executor: 5 ms */

/* Is t held back by a pause: waiting (at a layer, or at the fleet layer) with its group or the
   executor paused? Such a task could start only after a resume. */
GROUPCONC__FN bool groupconc__held_back(const groupconc_executor *ex, const groupconc_task *t) {
    return groupconc__paused(ex, t->group) && t->stage != GROUPCONC__READY;
}

/* A graceful shutdown lets run what can run. A task a pause holds back cannot, and what it holds
   (a global in-flight permit, its group's bulkhead permit) may be what another group's task waits
   for: so once a graceful shutdown has begun, the tasks a pause holds back are cancelled at once
   (when it begins, and when the executor is paused during it; a group cannot be paused after
   shutdown), and the permits they held go to the next waiters. A ready task (every permit held)
   still runs. The shutdown then reports ETIMEDOUT (not everything finished). Under ex->lock. */
GROUPCONC__FN void groupconc__cancel_held_back_locked(groupconc_executor *ex, groupconc__batch *b) {
    groupconc__fifo victims = {NULL, NULL, 0};
    groupconc__fifo *shared[3];
    groupconc_task *t, *next;
    groupconc__group *g;
    size_t s = 0, i;
    if (!ex->paused && ex->npaused == 0) return;
    shared[0] = &ex->global.waiters; /* the queues all groups share; then each paused group's own */
    shared[1] = &ex->run_cap.waiters;
    shared[2] = &ex->fleet.layer.waiters;
    for (i = 0; i < 3; i++) {
        for (t = shared[i]->head; t; t = next) {
            next = t->next;
            if (groupconc__held_back(ex, t)) {
                groupconc__unlink_waiting(ex, t);
                groupconc__fifo_push(&victims, t);
            }
        }
    }
    groupconc__table_lock_all(ex);
    for (i = 0; (g = groupconc__table_next(ex, &s, &i)) != NULL;)
        if (groupconc__paused(ex, g)) groupconc__sweep_group_queues(ex, g, &victims);
    groupconc__table_unlock_all(ex);
    if (victims.count == 0) return;
    ex->held_back_cut += victims.count;
    while ((t = groupconc__fifo_pop(&victims)) != NULL) groupconc__cancel_locked(ex, t, b);
    groupconc__pump(ex, b); /* what they held goes to the next waiters, which may start now */
    (void)groupconc__kick_locked(ex);
}

/* Whether a task waits at the fleet layer that no pause holds back: the provider's answer moves it
   on (and what queues behind it in its group), not a resume. */
GROUPCONC__FN bool groupconc__fleet_unheld_locked(const groupconc_executor *ex) {
    const groupconc_task *t;
    for (t = ex->fleet.layer.waiters.head; t; t = t->next)
        if (!groupconc__held_back(ex, t)) return true;
    return false;
}

/* Wait (lock held) until every accepted task completed or the deadline passed. A ready task with no
   worker alive and none startable would never finish: give up on it (the caller sweeps). */
GROUPCONC__FN bool groupconc__wait_quiet_locked(groupconc_executor *ex, uint64_t deadline) {
    groupconc__totals all;
    while ((all = groupconc__totals_locked(ex)).unfinished > 0) {
        uint64_t until = deadline;
        if (atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) == 0 && all.ready > 0 &&
            groupconc__kick_locked(ex) != GROUPCONC_OK &&
            atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed) == 0)
            return false;
        if (ex->paused || ex->npaused > 0) {
            /* tasks of a paused group never start: once nothing else is left, give up on them
               (the caller cancels them). Nobody signals that moment: look every few ms. Not left:
               a task of an unpaused group at the fleet layer (the provider's answer moves it), nor
               one that waits at no layer although no queue lists it (a CALLER_RUNS run or a
               rejection handler inside its submit, a completion running its events and
               callbacks: unfinished counts it until it retires). */
            if (all.nrunning == 0 && all.ready == 0 && all.deferred == 0 && all.running == 0 &&
                all.unfinished <= groupconc__waiting_total(ex) && !groupconc__inbox_pending(ex) &&
                GROUPCONC__GATE_PERMITS_LOCKED(ex, NULL) == 0 && !groupconc__fleet_unheld_locked(ex))
                return false;
            until = groupconc__deadline(GROUPCONC__PAUSED_POLL_NS);
            if (until > deadline) until = deadline;
        }
#if GROUPCONC__SHARDS > 1
        if (!groupconc__idle_wait_all(ex, until, &ex->unfinished) && until == deadline)
#else
        if (!groupconc__exec_wait_all(ex, &ex->idle_cv, until) && until == deadline)
#endif
            return groupconc__totals_locked(ex).unfinished == 0;
    }
    return true;
}

GROUPCONC__PUBLIC int groupconc_executor_shutdown_graceful(groupconc_executor *ex, int64_t timeout_ns) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    uint64_t deadline = groupconc__deadline(timeout_ns);
    uint64_t cut;
    bool all;
    if (!ex) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__exec_lock_all(ex);
    atomic_store_explicit(&ex->shutdown, 1, memory_order_relaxed); /* the lock orders it */
    ex->graceful = true;
    cut = ex->held_back_cut;
    if (groupconc__drain_locked(ex, &b, true)) /* what got in before runs; later pushes fail */
        (void)groupconc__kick_locked(ex);
    groupconc__cancel_held_back_locked(ex, &b); /* they could not run: let the others have theirs */
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b); /* what the drain finished (helping) completes first */
    if (groupconc__inside(ex)) return GROUPCONC_EDEADLK; /* begun; waiting would wait for itself */
    groupconc__fleet_asks_before_block();
    groupconc__exec_lock_all(ex);
    all = groupconc__wait_quiet_locked(ex, deadline);
    if (ex->held_back_cut != cut) all = false; /* cancelled during this call, maybe all at once */
    groupconc__exec_unlock_all(ex);
    if (all) return GROUPCONC_OK;
    groupconc_executor_shutdown(ex);
    return GROUPCONC_ETIMEDOUT;
}

/* An executor gate, or an open scope of ex that a thread other than its workers owns, still
   exists: destroy refuses (gate permits hold its layers; scopes hold fork handles, and only their
   owner can close them). A scope one of its workers owns is the library's: its body closes it as
   it returns (the shutdown lets it), and destroy frees one left open (groupconc__scopes_free).
   Under ex->lock. Neither exists without those modules (GROUPCONC_NO_GATE, GROUPCONC_NO_SCOPES). */
GROUPCONC__FN bool groupconc__gates_or_scopes_locked(groupconc_executor *ex) {
    bool any = false;
#ifndef GROUPCONC_NO_GATE
    if (ex->gates) any = true;
#endif
#ifndef GROUPCONC_NO_SCOPES
    if (groupconc__scopes_held_locked(ex)) any = true;
#endif
    (void)ex;
    return any;
}

GROUPCONC__PUBLIC int groupconc_executor_destroy(groupconc_executor *ex) {
    groupconc__worker *list, *w;
    groupconc__shard *sh;
    groupconc__group *g;
    size_t s = 0, i = 0;
    if (!ex) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (groupconc__inside(ex)) return GROUPCONC_EDEADLK; /* it would free what runs this call */
    groupconc__exec_lock_all(ex);
    if (groupconc__gates_or_scopes_locked(ex)) {
        groupconc__exec_unlock_all(ex);
        return GROUPCONC_EBUSY;
    }
    groupconc__exec_unlock_all(ex);
    groupconc__fleet_asks_before_block();
    groupconc__exec_lock_all(ex);
    if (ex->graceful) /* a graceful shutdown began (maybe from a callback): let it finish */
        (void)groupconc__wait_quiet_locked(ex, UINT64_MAX);
    groupconc__exec_unlock_all(ex);
    groupconc_executor_shutdown(ex);
    groupconc__fleet_asks_before_block();
    groupconc__exec_lock_all(ex);
    while (!groupconc__wait_quiet_locked(ex, UINT64_MAX)) { /* stranded ready tasks: cancel them */
        groupconc__exec_unlock_all(ex);
        groupconc_executor_shutdown(ex);
        groupconc__fleet_asks_before_block();
        groupconc__exec_lock_all(ex);
    }
    while (ex->fleet.outstanding > 0) /* the provider still holds requests: they name this executor */
#if GROUPCONC__SHARDS > 1
        (void)groupconc__idle_wait_all(ex, UINT64_MAX, NULL);
#else
        (void)groupconc__exec_wait_all(ex, &ex->idle_cv, UINT64_MAX);
#endif
    {
        groupconc__totals all = groupconc__totals_locked(ex); /* not called inside the assertion */
        GROUPCONC_ASSERT(ex->global.permits.used == 0 && all.ready == 0 && all.running == 0 &&
                         all.deferred == 0 && ex->fleet.layer.waiters.count == 0);
        (void)all;
    }
    ex->stopping = true;
    ex->keeper.stop = true;
#if GROUPCONC__SHARDS > 1
    groupconc__mutex_lock(&ex->pool.lock); /* work_cv's mutex (see groupconc__work_signal) */
    groupconc__cond_broadcast(&ex->pool.work_cv);
    groupconc__mutex_unlock(&ex->pool.lock);
#else
    groupconc__cond_broadcast(&ex->pool.work_cv);
#endif
    groupconc__cond_signal(&ex->keeper.cv);
    list = ex->pool.workers;
    ex->pool.workers = NULL;
    groupconc__exec_unlock_all(ex);
    if (atomic_load_explicit(&ex->keeper.started, memory_order_relaxed))
        groupconc__thread_join(ex->keeper.thread);
    while (list) { /* after `stopping` no worker retires, so the lists are stable */
        w = list;
        list = w->next;
        groupconc__thread_join(w->thread);
        GROUPCONC_FREE(w);
    }
    while (ex->pool.zombies) {
        w = ex->pool.zombies;
        ex->pool.zombies = w->next;
        groupconc__thread_join(w->thread);
        GROUPCONC_FREE(w);
    }
#ifndef GROUPCONC_NO_SCOPES
    groupconc__scopes_free(ex); /* releases their forks' handles: before the nodes go */
#endif
    /* a waiter that was woken by the last completion may still be leaving done_lock */
    groupconc__mutex_lock(&ex->done_lock);
    groupconc__mutex_unlock(&ex->done_lock);
    if (ex->policy.fleet.detach) /* its threads may still notify until this returns */
        ex->policy.fleet.detach(ex->policy.fleet.user_data, ex);
    while ((g = groupconc__table_next(ex, &s, &i)) != NULL) groupconc__group_unref(g);
    for (s = 0; s < GROUPCONC__STRIPES; s++) {
        if (ex->table.stripes[s].slots) GROUPCONC_FREE(ex->table.stripes[s].slots); /* and hashes */
    }
    groupconc__node_caches_free(ex);
    groupconc__nodes_free(atomic_load_explicit(&ex->inbox.node_returns[0], memory_order_acquire));
    groupconc__nodes_free(atomic_load_explicit(&ex->inbox.node_returns[1], memory_order_acquire));
    groupconc__limits_free(ex);
    GROUPCONC_ASSERT(ex->keeper.ntimers_reserved == 0); /* each task with a deadline gave its slot back */
    if (ex->keeper.timers) GROUPCONC_FREE(ex->keeper.timers);
    GROUPCONC__EACH_SHARD(ex, sh) {
        if (sh->spare_queues) GROUPCONC_FREE(sh->spare_queues);
    }
    groupconc__cond_destroy(&ex->keeper.cv);
#ifndef GROUPCONC_NO_SCOPES
    groupconc__mutex_destroy(&ex->scope_lock);
#endif
    groupconc__table_locks_destroy(ex, GROUPCONC__STRIPES);
    groupconc__cond_destroy(&ex->idle_cv);
    groupconc__cond_destroy(&ex->pool.work_cv);
    groupconc__mutex_destroy(&ex->done_lock);
    groupconc__shard_locks_destroy(ex);
    GROUPCONC_FREE(ex);
    return GROUPCONC_OK;
}

/* ==== executor API: group control and stats ==================================================== */

GROUPCONC__FN int groupconc__group_op(groupconc_executor *ex, const char *group, bool evict) {
    uint64_t hash;
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__group *g;
    groupconc__stripe *st;
    size_t len;
    int rc;
    if (!ex || !group) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if ((rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    st = groupconc__stripe_of(ex, hash);
    groupconc__exec_lock_all(ex);
    groupconc__wordlock_lock(&st->lock); /* no push into g between the drain and the removal */
    if (groupconc__drain_locked(ex, &b, false)) (void)groupconc__kick_locked(ex);
    g = groupconc__table_find(st, group, len, hash);
    if (g) {
        groupconc__sweep_locked(ex, g, &b);
        (void)groupconc__kick_locked(ex);
        if (evict) { /* running tasks keep the old state alive through their references */
            if (g->flags & GROUPCONC__GF_PAUSED) { /* the key's next state starts unpaused */
                g->flags &= (uint8_t)~GROUPCONC__GF_PAUSED;
                ex->npaused--;
            }
            if (g->flags & GROUPCONC__GF_LRU) {
                groupconc__mutex_lock(&ex->table.lru_lock);
                groupconc__lru_unlink(ex, g);
                groupconc__mutex_unlock(&ex->table.lru_lock);
            }
            groupconc__table_remove(st, g, hash);
            atomic_fetch_sub_explicit(&ex->table.ngroups, 1, memory_order_relaxed);
            groupconc__group_unref(g);
        }
    }
    groupconc__wordlock_unlock(&st->lock);
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_group_shutdown(groupconc_executor *ex, const char *group) {
    return groupconc__group_op(ex, group, false);
}

GROUPCONC__PUBLIC int groupconc_group_evict(groupconc_executor *ex, const char *group) {
    return groupconc__group_op(ex, group, true);
}

GROUPCONC__FN int groupconc__limit_out(int32_t limit) {
    return limit == INT32_MAX ? GROUPCONC_UNLIMITED : (int)limit;
}

/* The group's SUBMITTED count: what completed plus what is still in it. Exact under ex->lock with the
   inbox drained: a task is counted in one of these from its admission (in the same locked step that
   reaches the group) to the end (see groupconc__group). A CALLER_RUNS re-run on a worker is in no
   gauge (it holds no permits): those are found in its shard's running, which holds at most BATCH_MAX
   tasks per worker; a refusal whose outcome is not decided yet is in cold->undecided. */
GROUPCONC__FN uint64_t groupconc__group_submitted(const groupconc_executor *ex, const groupconc__group *g) {
    const groupconc__shard *sh = groupconc__shard_of(ex, g);
    uint64_t n = groupconc__group_completed(g) + groupconc__waiting_global_of(g) +
                 groupconc__waiting_bulkhead_of(g) + groupconc__waiting_conc_of(g) + groupconc__waiting_running_of(g) +
                 g->ready + g->running + groupconc__fleet_waiting(g) + (g->cold ? g->cold->undecided : 0);
    const groupconc_task *t;
    /* held == 0 is NO_PERMITS here (held is the lock's; bits may be written by a worker now) */
    for (t = sh->running.head; t; t = t->next)
        if (t->group == g && t->held == 0) n++;
    for (t = sh->deferred.head; t; t = t->next)
        if (t->group == g && t->held == 0) n++;
    return n;
}

/* The stats lists cover the structs exactly: the same fields, in the same order, with the same
   types, offsets and size (GROUPCONC_GROUP_STATS_FIELDS). A field added to a struct and not to its
   list changes the size or an offset (unless it fits in padding: keep the lists in step). */
#define GROUPCONC__STATS_MIRROR(type, name, kind) type name;
typedef struct groupconc__group_stats_mirror {
    GROUPCONC_GROUP_STATS_FIELDS(GROUPCONC__STATS_MIRROR)
} groupconc__group_stats_mirror;
typedef struct groupconc__executor_stats_mirror {
    GROUPCONC_EXECUTOR_STATS_FIELDS(GROUPCONC__STATS_MIRROR)
} groupconc__executor_stats_mirror;
#undef GROUPCONC__STATS_MIRROR
#define GROUPCONC__STATS_CHECK(s, m, type, name)                                                    \
    typedef char groupconc__check_##s##_##name[offsetof(s, name) == offsetof(m, name) &&           \
                                                       sizeof(((s *)0)->name) == sizeof(type)      \
                                                   ? 1 : -1];
#define GROUPCONC__GROUP_STATS_CHECK(type, name, kind)                                              \
    GROUPCONC__STATS_CHECK(groupconc_group_stats, groupconc__group_stats_mirror, type, name)
#define GROUPCONC__EXECUTOR_STATS_CHECK(type, name, kind)                                           \
    GROUPCONC__STATS_CHECK(groupconc_executor_stats, groupconc__executor_stats_mirror, type, name)
GROUPCONC_GROUP_STATS_FIELDS(GROUPCONC__GROUP_STATS_CHECK)
GROUPCONC_EXECUTOR_STATS_FIELDS(GROUPCONC__EXECUTOR_STATS_CHECK)
typedef char groupconc__check_group_stats_size[sizeof(groupconc_group_stats) ==
                                                       sizeof(groupconc__group_stats_mirror) ? 1 : -1];
typedef char groupconc__check_executor_stats_size[sizeof(groupconc_executor_stats) ==
                                                          sizeof(groupconc__executor_stats_mirror) ? 1 : -1];
#undef GROUPCONC__GROUP_STATS_CHECK
#undef GROUPCONC__EXECUTOR_STATS_CHECK
#undef GROUPCONC__STATS_CHECK

/* A task's max wait where its own is 0: the table entry's, else the policy default. Under ex->lock
   (the table and the default change under ex->lock and every stripe lock). */
GROUPCONC__FN int64_t groupconc__entry_max_wait(const groupconc_executor *ex, const groupconc__limits_entry *e) {
    return e && e->max_wait_ns != 0 ? e->max_wait_ns : ex->policy.default_max_wait_ns;
}

/* One group's stats (groupconc_group_stats_get, and each group of the dump). Under ex->lock with the
   inbox admitted; e: g's limits entry or NULL (stable under ex->lock). */
GROUPCONC__FN void groupconc__group_stats_locked(groupconc_executor *ex, const groupconc__group *g,
                                                 const groupconc__limits_entry *e,
                                                 groupconc_group_stats *out_stats) {
    const groupconc_task *t, *oldest = NULL;
    out_stats->concurrency = (int)g->conc.limit;
    out_stats->max_in_flight = groupconc__limit_out(g->bulkhead.limit);
    out_stats->queue_threshold = g->threshold;
    out_stats->gate_permits = GROUPCONC__GATE_PERMITS_LOCKED(ex, g);
    out_stats->running = g->running + out_stats->gate_permits;
    out_stats->ready = g->ready;
    out_stats->waiting_global = groupconc__waiting_global_of(g);
    out_stats->waiting_bulkhead = groupconc__waiting_bulkhead_of(g);
    out_stats->waiting_concurrency = groupconc__waiting_conc_of(g);
    out_stats->waiting_running = groupconc__waiting_running_of(g);
    out_stats->in_flight = (size_t)g->bulkhead.used;
    out_stats->waiting_fleet = groupconc__fleet_waiting(g);
    out_stats->paused = (g->flags & GROUPCONC__GF_PAUSED) != 0;
    out_stats->max_wait_ns = groupconc__entry_max_wait(ex, e);
    out_stats->submitted = groupconc__group_submitted(ex, g);
    out_stats->admitted = g->admitted;
    out_stats->succeeded = g->succeeded;
    out_stats->failed = groupconc__group_outcome(g, GROUPCONC__C_FAILED);
    out_stats->cancelled = groupconc__group_outcome(g, GROUPCONC__C_CANCELLED);
    out_stats->rejected_global = groupconc__group_outcome(g, GROUPCONC__C_REJ_GLOBAL);
    out_stats->rejected_bulkhead = groupconc__group_outcome(g, GROUPCONC__C_REJ_BULKHEAD);
    out_stats->rejected_concurrency = groupconc__group_outcome(g, GROUPCONC__C_REJ_CONCURRENCY);
    out_stats->rejected_waiting = groupconc__group_outcome(g, GROUPCONC__C_REJ_WAITING);
    out_stats->expired = groupconc__group_outcome(g, GROUPCONC__C_EXPIRED);
    out_stats->rejected_fleet = groupconc__group_outcome(g, GROUPCONC__C_REJ_FLEET);
    out_stats->caller_runs = g->cold ? g->cold->caller_runs : 0;
    out_stats->completed = groupconc__group_completed(g);
    out_stats->refusing = g->cold ? (size_t)g->cold->undecided : 0;
    /* the oldest waiter is the head of one of the group's FIFOs (submit time) */
    if (groupconc__waiting_global_of(g))
        for (t = ex->global.waiters.head; t && !oldest; t = t->next)
            if (t->group == g) oldest = t;
    t = g->queues ? g->queues->bulkhead.head : NULL;
    if (t && (!oldest || t->start_ns < oldest->start_ns)) oldest = t;
    t = g->queues ? g->queues->conc.head : NULL;
    if (t && (!oldest || t->start_ns < oldest->start_ns)) oldest = t;
    if (groupconc__waiting_running_of(g)) {
        for (t = ex->run_cap.waiters.head; t && t->group != g; t = t->next) {}
        if (t && (!oldest || t->start_ns < oldest->start_ns)) oldest = t;
    }
    if (groupconc__fleet_waiting(g)) {
        for (t = ex->fleet.layer.waiters.head; t && t->group != g; t = t->next) {}
        if (t && (!oldest || t->start_ns < oldest->start_ns)) oldest = t;
    }
    if (oldest) {
        uint64_t now = groupconc__coarse_now_ns();
        out_stats->oldest_wait_ns = now > oldest->start_ns ? now - oldest->start_ns : 0;
    } else {
        out_stats->oldest_wait_ns = 0;
    }
}

/* A key with a limits entry and no state: the limits its state would start with (concurrency
   GROUPCONC_DEFAULT where the resolver decides: it is not called here), every count 0. Under
   ex->lock. */
GROUPCONC__FN void groupconc__entry_stats_locked(const groupconc_executor *ex, const groupconc__limits_entry *e,
                                                 groupconc_group_stats *out_stats) {
    const groupconc_policy *p = &ex->policy;
    memset(out_stats, 0, sizeof *out_stats);
    out_stats->concurrency = e->concurrency != GROUPCONC_DEFAULT ? e->concurrency
                             : p->resolver                      ? GROUPCONC_DEFAULT
                                                                : p->default_concurrency;
    out_stats->max_in_flight = e->max_in_flight != GROUPCONC_DEFAULT ? e->max_in_flight : p->default_max_in_flight;
    out_stats->queue_threshold =
        e->queue_threshold != GROUPCONC_DEFAULT ? e->queue_threshold : p->default_queue_threshold;
    out_stats->max_wait_ns = groupconc__entry_max_wait(ex, e);
    out_stats->paused = false;
}

GROUPCONC__PUBLIC int groupconc_group_stats_get(groupconc_executor *ex, const char *group,
                                                groupconc_group_stats *out_stats) {
    groupconc__batch b = GROUPCONC__BATCH_INIT; /* fleet asks of the tasks it admitted */
    const groupconc__limits_entry *e;
    groupconc__group *g;
    uint64_t hash;
    size_t len;
    int rc;
    if (!ex || !group || !out_stats) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if ((rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    groupconc__lock_quiet_all(ex, &b); /* runs no other task's code here ("where callbacks run") */
    g = groupconc__find_locked(ex, group, len, hash);
    e = groupconc__limits_find(ex, group); /* it changes under ex->lock only */
    rc = GROUPCONC_OK;
    if (g) groupconc__group_stats_locked(ex, g, e, out_stats);
    else if (e) groupconc__entry_stats_locked(ex, e, out_stats);
    else rc = GROUPCONC_ENOTFOUND;
    groupconc__exec_unlock_all(ex);
    groupconc__fleet_ask(&b);
    return rc;
}

/* The executor's stats (groupconc_executor_stats_get, and the dump's "executor"). Under ex->lock with
   the inbox admitted. */
GROUPCONC__FN void groupconc__executor_stats_locked(groupconc_executor *ex, groupconc_executor_stats *out_stats) {
    const groupconc__totals all = groupconc__totals_locked(ex);
    const groupconc__shard *sh;
    out_stats->groups = atomic_load_explicit(&ex->table.ngroups, memory_order_relaxed);
    out_stats->gate_permits = GROUPCONC__GATE_PERMITS_LOCKED(ex, NULL);
    out_stats->running = all.nrunning + out_stats->gate_permits;
    out_stats->ready = all.ready;
    out_stats->waiting = groupconc__waiting_total(ex); /* the fleet layer's too */
    out_stats->waiting_fleet = ex->fleet.layer.waiters.count;
    out_stats->rejected_fleet = all.counts.outcome[GROUPCONC__C_REJ_FLEET];
    out_stats->fleet_open = ex->fleet.open;
    out_stats->fleet_renew_failed = ex->fleet.renew_failed;
    out_stats->global_in_flight = (size_t)ex->global.permits.used;
    out_stats->global_max_in_flight = groupconc__limit_out(ex->global.permits.limit);
    out_stats->waiting_running = ex->run_cap.waiters.count;
    out_stats->global_running = (size_t)ex->run_cap.permits.used;
    out_stats->global_max_running = groupconc__limit_out(ex->run_cap.permits.limit);
    out_stats->max_waiting = ex->policy.max_waiting;
    out_stats->max_groups = ex->policy.max_groups;
    out_stats->paused = ex->paused;
    out_stats->paused_groups = ex->npaused;
    out_stats->admitted = all.counts.admitted;
    out_stats->rejected_waiting = all.counts.outcome[GROUPCONC__C_REJ_WAITING];
    out_stats->expired = all.counts.outcome[GROUPCONC__C_EXPIRED];
    out_stats->groups_reclaimed = all.counts.groups_reclaimed;
    out_stats->caller_runs = all.counts.caller_runs;
    out_stats->counts_unattributed = all.counts.unattributed;
    out_stats->threads = atomic_load_explicit(&ex->pool.nthreads, memory_order_relaxed); /* the lock */
    out_stats->idle_threads = atomic_load_explicit(&ex->pool.nidle, memory_order_relaxed);
    out_stats->shutdown = atomic_load_explicit(&ex->shutdown, memory_order_relaxed) != 0;
    out_stats->submitted = all.counts.submitted;
    out_stats->succeeded = all.counts.outcome[GROUPCONC__C_SUCCEEDED];
    out_stats->failed = all.counts.outcome[GROUPCONC__C_FAILED];
    out_stats->cancelled = all.counts.outcome[GROUPCONC__C_CANCELLED];
    out_stats->rejected_global = all.counts.outcome[GROUPCONC__C_REJ_GLOBAL];
    out_stats->rejected_bulkhead = all.counts.outcome[GROUPCONC__C_REJ_BULKHEAD];
    out_stats->rejected_concurrency = all.counts.outcome[GROUPCONC__C_REJ_CONCURRENCY];
    out_stats->rejected_other = all.counts.rejected_other;
    out_stats->completed = groupconc__outcomes_sum(all.counts.outcome) + all.counts.rejected_other;
    out_stats->refusing = 0;
    GROUPCONC__EACH_SHARD(ex, sh) out_stats->refusing += sh->refusing;
}

GROUPCONC__PUBLIC int groupconc_executor_stats_get(groupconc_executor *ex,
                                                   groupconc_executor_stats *out_stats) {
    groupconc__batch b = GROUPCONC__BATCH_INIT; /* fleet asks of the tasks it admitted */
    if (!ex || !out_stats) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__lock_quiet_all(ex, &b); /* runs no other task's code here ("where callbacks run") */
    groupconc__executor_stats_locked(ex, out_stats);
    groupconc__exec_unlock_all(ex);
    groupconc__fleet_ask(&b);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_group_keys_get(groupconc_executor *ex, char ***out_keys,
                                               size_t *out_count) {
    size_t s = 0, i = 0, n = 0, bytes;
    char **keys, *text;
    const groupconc__group *g;
    if (out_keys) *out_keys = NULL;
    if (out_count) *out_count = 0;
    if (!ex || !out_keys || !out_count) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__table_lock_all(ex);
    bytes = sizeof(char *);
    while ((g = groupconc__table_next(ex, &s, &i)) != NULL) {
        n++;
        bytes += sizeof(char *) + strlen(g->key) + 1;
    }
    keys = (char **)GROUPCONC_MALLOC(bytes);
    if (!keys) {
        groupconc__table_unlock_all(ex);
        return GROUPCONC_ENOMEM;
    }
    text = (char *)(keys + n + 1);
    n = 0;
    for (s = 0, i = 0; (g = groupconc__table_next(ex, &s, &i)) != NULL;) {
        size_t len = strlen(g->key) + 1;
        memcpy(text, g->key, len);
        keys[n++] = text;
        text += len;
    }
    keys[n] = NULL;
    groupconc__table_unlock_all(ex);
    *out_keys = keys;
    *out_count = n;
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC void groupconc_group_keys_free(char **keys) {
    if (keys) GROUPCONC_FREE(keys);
}

/* ==== executor API: live limits, pause and resume ============================================== */
/* Each change is one step under ex->lock (and every stripe lock for the table): the inbox is admitted
   first, the new values are written, then the layers whose caps rose (or that a resume opened)
   hand their free permits to their waiters, oldest first, and the pump moves those on. Lowering
   writes the cap only: release_layer counts down while used > limit. */

GROUPCONC__PUBLIC groupconc_group_limits groupconc_group_limits_keep(const char *group) {
    groupconc_group_limits l;
    l.group = group;
    l.concurrency = GROUPCONC_KEEP;
    l.max_in_flight = GROUPCONC_KEEP;
    l.queue_threshold = GROUPCONC_KEEP;
    l.max_wait_ns = GROUPCONC_KEEP;
    return l;
}

GROUPCONC__PUBLIC groupconc_executor_limits groupconc_executor_limits_keep(void) {
    groupconc_executor_limits l;
    l.global_max_in_flight = GROUPCONC_KEEP;
    l.global_queue_threshold = GROUPCONC_KEEP;
    l.global_max_running = GROUPCONC_KEEP;
    l.max_waiting = GROUPCONC_KEEP;
    l.default_concurrency = GROUPCONC_KEEP;
    l.default_max_in_flight = GROUPCONC_KEEP;
    l.default_queue_threshold = GROUPCONC_KEEP;
    l.default_max_wait_ns = GROUPCONC_KEEP;
    return l;
}

/* After a change: the local layers of g (NULL: the global ones only; all groups: each) hand out
   what is free (the fleet layer hands out nothing: its permits come from the provider). Under
   ex->lock. */
/* Global running is filled first, before anything handed a permit at the other layers is pumped:
   admit takes a free global running permit without looking at its FIFO (see "layers"), so the tasks already
   waiting there must have had theirs by then. */
GROUPCONC__FN void groupconc__refill_locked(groupconc_executor *ex, groupconc__group *g, groupconc__batch *b) {
    (void)groupconc__fill_layer(ex, g, GROUPCONC__L_RUNNING, b);
    if (g) {
        (void)groupconc__fill_layer(ex, g, GROUPCONC__L_BULKHEAD, b);
        (void)groupconc__fill_layer(ex, g, GROUPCONC__L_CONCURRENCY, b);
    } else {
        (void)groupconc__fill_layer(ex, g, GROUPCONC__L_GLOBAL, b);
    }
    groupconc__pump(ex, b);
    (void)groupconc__kick_locked(ex);
}

GROUPCONC__FN void groupconc__refill_all_tlocked(groupconc_executor *ex, groupconc__batch *b) {
    size_t s = 0, i = 0;
    groupconc__group *g;
    (void)groupconc__fill_layer(ex, NULL, GROUPCONC__L_RUNNING, b);
    (void)groupconc__fill_layer(ex, NULL, GROUPCONC__L_GLOBAL, b);
    while ((g = groupconc__table_next(ex, &s, &i)) != NULL) {
        (void)groupconc__fill_layer(ex, g, GROUPCONC__L_BULKHEAD, b);
        (void)groupconc__fill_layer(ex, g, GROUPCONC__L_CONCURRENCY, b);
    }
    groupconc__pump(ex, b);
    (void)groupconc__kick_locked(ex);
}

/* The table entry for key, inserted (all DEFAULT) if missing. Under ex->lock and every stripe lock. */
GROUPCONC__FN int groupconc__limits_entry_get(groupconc_executor *ex, const char *key, size_t len,
                                              groupconc__limits_entry **out) {
    size_t n = ex->policy.group_count, at = 0, lo = 0, hi = n;
    groupconc__limits_entry *e = groupconc__limits_find(ex, key);
    char *copy;
    if (e) {
        *out = e;
        return GROUPCONC_OK;
    }
    if (n == ex->nlimits_cap) {
        size_t cap = n ? n * 2 : 8;
        groupconc__limits_entry *grown;
        if (cap > SIZE_MAX / sizeof *grown) return GROUPCONC_ENOMEM;
        grown = (groupconc__limits_entry *)GROUPCONC_MALLOC(cap * sizeof *grown);
        if (!grown) return GROUPCONC_ENOMEM;
        if (n) memcpy(grown, ex->limits, n * sizeof *grown);
        if (ex->limits) GROUPCONC_FREE(ex->limits);
        ex->limits = grown;
        ex->nlimits_cap = cap;
    }
    copy = (char *)GROUPCONC_MALLOC(len + 1);
    if (!copy) return GROUPCONC_ENOMEM;
    memcpy(copy, key, len + 1);
    while (lo < hi) { /* the first entry whose key is greater */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ex->limits[mid].key, copy) < 0) lo = mid + 1;
        else hi = mid;
    }
    at = lo;
    memmove(&ex->limits[at + 1], &ex->limits[at], (n - at) * sizeof *ex->limits);
    e = &ex->limits[at];
    e->key = copy;
    e->concurrency = GROUPCONC_DEFAULT;
    e->max_in_flight = GROUPCONC_DEFAULT;
    e->queue_threshold = GROUPCONC_DEFAULT;
    e->max_wait_ns = 0;
    ex->policy.group_count = n + 1;
    *out = e;
    return GROUPCONC_OK;
}

GROUPCONC__FN bool groupconc__keep_or(int v, bool ok) { return v == GROUPCONC_KEEP || ok; }

/* An entry that sets nothing any more leaves the table (so that many short-lived keys reset to
   their defaults do not grow it). Under ex->lock and every stripe lock. */
GROUPCONC__FN void groupconc__limits_entry_trim(groupconc_executor *ex, groupconc__limits_entry *e) {
    size_t at = (size_t)(e - ex->limits), n = ex->policy.group_count;
    if (e->concurrency != GROUPCONC_DEFAULT || e->max_in_flight != GROUPCONC_DEFAULT ||
        e->queue_threshold != GROUPCONC_DEFAULT || e->max_wait_ns != 0)
        return;
    GROUPCONC_FREE(e->key);
    memmove(&ex->limits[at], &ex->limits[at + 1], (n - at - 1) * sizeof *ex->limits);
    ex->policy.group_count = n - 1;
}

GROUPCONC__PUBLIC int groupconc_group_limits_set(groupconc_executor *ex, const groupconc_group_limits *l) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__limits_entry *e;
    groupconc__group *g;
    uint64_t hash;
    size_t len;
    int rc;
    if (!ex || !l || !l->group) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if ((rc = groupconc__key_hash(l->group, &len, &hash)) != GROUPCONC_OK) return rc;
    if (!groupconc__keep_or(l->concurrency, l->concurrency >= 1 || l->concurrency == GROUPCONC_DEFAULT) ||
        !groupconc__keep_or(l->max_in_flight,
                            groupconc__cap_ok(l->max_in_flight) || l->max_in_flight == GROUPCONC_DEFAULT) ||
        !groupconc__keep_or(l->queue_threshold, groupconc__threshold_ok(l->queue_threshold) ||
                                                    l->queue_threshold == GROUPCONC_DEFAULT) ||
        (l->max_wait_ns != GROUPCONC_KEEP && !groupconc__max_wait_entry_ok(l->max_wait_ns)))
        return GROUPCONC_ELIMIT;
    groupconc__lock_all(ex, &b);
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) {
        groupconc__exec_unlock_all(ex);
        groupconc__flush_and_retire(ex, &b);
        return GROUPCONC_ESHUTDOWN;
    }
    groupconc__table_lock_all(ex); /* group creation reads the table under a stripe's lock */
    rc = groupconc__limits_entry_get(ex, l->group, len, &e);
    if (rc == GROUPCONC_OK) {
        if (l->concurrency != GROUPCONC_KEEP) e->concurrency = l->concurrency;
        if (l->max_in_flight != GROUPCONC_KEEP) e->max_in_flight = l->max_in_flight;
        if (l->queue_threshold != GROUPCONC_KEEP) e->queue_threshold = l->queue_threshold;
        if (l->max_wait_ns != GROUPCONC_KEEP) {
            e->max_wait_ns = l->max_wait_ns == GROUPCONC_DEFAULT ? 0 : l->max_wait_ns;
            if (e->max_wait_ns != 0) atomic_store_explicit(&ex->any_max_wait, true, memory_order_relaxed);
        }
        if (e->queue_threshold != GROUPCONC_UNLIMITED && e->queue_threshold != GROUPCONC_DEFAULT)
            atomic_store_explicit(&ex->inbox_ok, false, memory_order_relaxed); /* can refuse now */
        g = groupconc__table_find(groupconc__stripe_of(ex, hash), l->group, len, hash);
        if (g) { /* all three in this one locked step */
            if (l->concurrency != GROUPCONC_KEEP) g->conc.limit = groupconc__resolve(ex, g, e, 0);
            if (l->max_in_flight != GROUPCONC_KEEP)
                g->bulkhead.limit = groupconc__cap(groupconc__resolve(ex, g, e, 1));
            if (l->queue_threshold != GROUPCONC_KEEP) {
                g->threshold = groupconc__resolve(ex, g, e, 2);
                if (g->threshold != GROUPCONC_UNLIMITED)
                    atomic_store_explicit(&ex->inbox_ok, false, memory_order_relaxed);
            }
        }
        groupconc__limits_entry_trim(ex, e); /* e is not used after this */
    } else {
        g = NULL;
    }
    groupconc__table_unlock_all(ex);
    if (g) groupconc__refill_locked(ex, g, &b);
    groupconc__debug_check(ex, g);
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_executor_limits_set(groupconc_executor *ex, const groupconc_executor_limits *l) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc_policy *p;
    if (!ex || !l) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (!groupconc__keep_or(l->global_max_in_flight, groupconc__cap_ok(l->global_max_in_flight)) ||
        !groupconc__keep_or(l->global_queue_threshold, groupconc__threshold_ok(l->global_queue_threshold)) ||
        !groupconc__keep_or(l->global_max_running, groupconc__cap_ok(l->global_max_running)) ||
        !groupconc__keep_or(l->max_waiting, groupconc__threshold_ok(l->max_waiting)) ||
        !groupconc__keep_or(l->default_concurrency, l->default_concurrency >= 1) ||
        !groupconc__keep_or(l->default_max_in_flight, groupconc__cap_ok(l->default_max_in_flight)) ||
        !groupconc__keep_or(l->default_queue_threshold, groupconc__threshold_ok(l->default_queue_threshold)) ||
        (l->default_max_wait_ns != GROUPCONC_KEEP && l->default_max_wait_ns <= 0 &&
         l->default_max_wait_ns != GROUPCONC_FOREVER))
        return GROUPCONC_ELIMIT;
    groupconc__lock_all(ex, &b);
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) {
        groupconc__exec_unlock_all(ex);
        groupconc__flush_and_retire(ex, &b);
        return GROUPCONC_ESHUTDOWN;
    }
    p = &ex->policy;
    groupconc__table_lock_all(ex); /* group creation reads the defaults under a stripe's lock */
    if (l->global_max_in_flight != GROUPCONC_KEEP) {
        p->global_max_in_flight = l->global_max_in_flight;
        ex->global.permits.limit = groupconc__cap(l->global_max_in_flight);
    }
    if (l->global_queue_threshold != GROUPCONC_KEEP) p->global_queue_threshold = l->global_queue_threshold;
    if (l->global_max_running != GROUPCONC_KEEP) {
        p->global_max_running = l->global_max_running;
        ex->run_cap.permits.limit = groupconc__cap(l->global_max_running);
    }
    if (l->max_waiting != GROUPCONC_KEEP) p->max_waiting = l->max_waiting;
    if (l->default_concurrency != GROUPCONC_KEEP) p->default_concurrency = l->default_concurrency;
    if (l->default_max_in_flight != GROUPCONC_KEEP) p->default_max_in_flight = l->default_max_in_flight;
    if (l->default_queue_threshold != GROUPCONC_KEEP) p->default_queue_threshold = l->default_queue_threshold;
    if (l->default_max_wait_ns != GROUPCONC_KEEP) {
        p->default_max_wait_ns = l->default_max_wait_ns;
        if (p->default_max_wait_ns != GROUPCONC_FOREVER)
            atomic_store_explicit(&ex->any_max_wait, true, memory_order_relaxed);
    }
    if (p->global_queue_threshold != GROUPCONC_UNLIMITED || p->max_waiting != GROUPCONC_UNLIMITED ||
        p->default_queue_threshold != GROUPCONC_UNLIMITED)
        atomic_store_explicit(&ex->inbox_ok, false, memory_order_relaxed); /* can refuse now */
    groupconc__table_unlock_all(ex);
    groupconc__refill_locked(ex, NULL, &b);
    groupconc__debug_check(ex, NULL);
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b);
    return GROUPCONC_OK;
}

GROUPCONC__FN int groupconc__pause_op(groupconc_executor *ex, const char *group, bool pause) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__group *g = NULL;
    uint64_t hash = 0; /* set when group is (-O3 cannot tell) */
    size_t len = 0;
    int rc = GROUPCONC_OK;
    if (!ex) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (group && (rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    groupconc__lock_all(ex, &b);
    if (group && pause && atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) {
        rc = GROUPCONC_ESHUTDOWN; /* it could create a group */
    } else if (!group) {
        if (ex->paused != pause) {
            ex->paused = pause;
            if (pause && ex->graceful) groupconc__cancel_held_back_locked(ex, &b); /* see there */
            if (!pause) {
                groupconc__table_lock_all(ex);
                groupconc__refill_all_tlocked(ex, &b);
                groupconc__table_unlock_all(ex);
                groupconc__fleet_resume_locked(ex, NULL, &b);
            }
        }
    } else {
        if (pause) {
            rc = groupconc__group_get_locked(ex, group, len, hash, &b, &g); /* created paused */
        } else {
            g = groupconc__find_locked(ex, group, len, hash);
            if (g && (g->flags & GROUPCONC__GF_LRU) && (g->flags & GROUPCONC__GF_PAUSED)) {
                groupconc__mutex_lock(&ex->table.lru_lock); /* idle from its resume */
                groupconc__lru_touch(ex, g, groupconc__coarse_now_ns());
                groupconc__mutex_unlock(&ex->table.lru_lock);
            }
        }
        if (rc == GROUPCONC_OK && g && ((g->flags & GROUPCONC__GF_PAUSED) != 0) != pause) {
            if (pause) {
                g->flags |= GROUPCONC__GF_PAUSED;
                ex->npaused++;
            } else {
                g->flags &= (uint8_t)~GROUPCONC__GF_PAUSED;
                ex->npaused--;
                groupconc__refill_locked(ex, g, &b);
                groupconc__fleet_resume_locked(ex, g, &b);
            }
        }
    }
    groupconc__debug_check(ex, g);
    groupconc__exec_unlock_all(ex);
    groupconc__flush_and_retire(ex, &b);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_group_pause(groupconc_executor *ex, const char *group) {
    if (!group) return GROUPCONC_EINVAL;
    return groupconc__pause_op(ex, group, true);
}

GROUPCONC__PUBLIC int groupconc_group_resume(groupconc_executor *ex, const char *group) {
    if (!group) return GROUPCONC_EINVAL;
    return groupconc__pause_op(ex, group, false);
}

GROUPCONC__PUBLIC int groupconc_executor_pause(groupconc_executor *ex) {
    return groupconc__pause_op(ex, NULL, true);
}

GROUPCONC__PUBLIC int groupconc_executor_resume(groupconc_executor *ex) {
    return groupconc__pause_op(ex, NULL, false);
}

/* ==== executor API: diagnostics ================================================================ */

GROUPCONC__PUBLIC const char *groupconc_strerror(int code) {
    switch (code) {
#define GROUPCONC__ERR_TEXT(name, value, text) \
    case value: return text;
        GROUPCONC_ERRNO_MAP(GROUPCONC__ERR_TEXT)
#undef GROUPCONC__ERR_TEXT
    default: return "unknown error code";
    }
}

GROUPCONC__PUBLIC const char *groupconc_errname(int code) {
    switch (code) {
#define GROUPCONC__ERR_NAME(name, value, text) \
    case value: return "GROUPCONC_" #name;
        GROUPCONC_ERRNO_MAP(GROUPCONC__ERR_NAME)
#undef GROUPCONC__ERR_NAME
    default: return "GROUPCONC_UNKNOWN";
    }
}

GROUPCONC__PUBLIC const char *groupconc_version(void) { return GROUPCONC_VERSION_STRING; }

GROUPCONC__PUBLIC const char *groupconc_status_name(groupconc_status status) {
    switch (status) {
    case GROUPCONC_STATUS_PENDING: return "PENDING";
    case GROUPCONC_STATUS_SUCCESS: return "SUCCESS";
    case GROUPCONC_STATUS_FAILED: return "FAILED";
    case GROUPCONC_STATUS_CANCELLED: return "CANCELLED";
    case GROUPCONC_STATUS_REJECTED: return "REJECTED";
    }
    return "UNKNOWN";
}

GROUPCONC__PUBLIC const char *groupconc_cancel_outcome_name(groupconc_cancel_outcome outcome) {
    switch (outcome) {
    case GROUPCONC_CANCEL_DEQUEUED: return "DEQUEUED";
    case GROUPCONC_CANCEL_FLAGGED: return "FLAGGED";
    case GROUPCONC_CANCEL_TOO_LATE: return "TOO_LATE";
    }
    return "UNKNOWN";
}

GROUPCONC__PUBLIC const char *groupconc_event_type_name(groupconc_event_type type) {
    switch (type) {
    case GROUPCONC_EVENT_SUBMITTED: return "SUBMITTED";
    case GROUPCONC_EVENT_STARTED: return "STARTED";
    case GROUPCONC_EVENT_COMPLETED: return "COMPLETED";
    case GROUPCONC_EVENT_REJECTED: return "REJECTED";
    case GROUPCONC_EVENT_FLEET: return "FLEET";
    }
    return "UNKNOWN";
}

GROUPCONC__PUBLIC const char *groupconc_rejection_policy_name(groupconc_rejection_policy policy) {
    switch (policy) {
    case GROUPCONC_REJECT_ABORT: return "ABORT";
    case GROUPCONC_REJECT_DISCARD: return "DISCARD";
    case GROUPCONC_REJECT_CALLER_RUNS: return "CALLER_RUNS";
    }
    return "UNKNOWN";
}

#ifndef GROUPCONC_NO_SCOPES
GROUPCONC__PUBLIC const char *groupconc_scope_policy_name(groupconc_scope_policy policy) {
    switch (policy) {
    case GROUPCONC_SCOPE_COLLECT_ALL: return "COLLECT_ALL";
    case GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE: return "SHUTDOWN_ON_FAILURE";
    case GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS: return "SHUTDOWN_ON_SUCCESS";
    case GROUPCONC_SCOPE_CUSTOM: return "CUSTOM";
    }
    return "UNKNOWN";
}
#endif

#ifndef GROUPCONC_NO_GATE
GROUPCONC__PUBLIC const char *groupconc_release_kind_name(groupconc_release_kind kind) {
    switch (kind) {
    case GROUPCONC_RELEASE_SUCCESS: return "SUCCESS";
    case GROUPCONC_RELEASE_FAILURE: return "FAILURE";
    case GROUPCONC_RELEASE_CANCELLED: return "CANCELLED";
    }
    return "UNKNOWN";
}

GROUPCONC__PUBLIC const char *groupconc_gate_event_type_name(groupconc_gate_event_type type) {
    switch (type) {
    case GROUPCONC_GATE_ADMITTED: return "ADMITTED";
    case GROUPCONC_GATE_REJECTED: return "REJECTED";
    case GROUPCONC_GATE_RELEASED: return "RELEASED";
    }
    return "UNKNOWN";
}
#endif

GROUPCONC__PUBLIC const char *groupconc_fleet_verdict_name(groupconc_fleet_verdict verdict) {
    switch (verdict) {
    case GROUPCONC_FLEET_GRANTED: return "GRANTED";
    case GROUPCONC_FLEET_BUSY: return "BUSY";
    case GROUPCONC_FLEET_REJECT: return "REJECT";
    case GROUPCONC_FLEET_OPEN: return "OPEN";
    }
    return "UNKNOWN";
}

/* ==== module: admission gate =================================================================== */
#ifndef GROUPCONC_NO_GATE
/* A gate's permits live in a slot table under the gate's own lock. A slot's generation is odd
   while the slot is held and even while it is free; acquiring and releasing each move it on by
   one, so a permit (slot, generation) matches its slot only until its first release. An executor
   gate's slot also keeps a reference to the group whose four local layer permits it holds (global
   in-flight, bulkhead, concurrency, global running). Lock order: ex->lock, then gate->lock
   (try-acquire, release and the stats take the gate's lock inside the executor's, so that a
   snapshot never sees a slot free while its layers are still held); the gate's lock is a leaf. */

#define GROUPCONC__SLOT_NONE UINT32_MAX

typedef struct groupconc__gate_slot {
    uint32_t generation;           /* odd: held */
    uint32_t next_free;            /* free list, while free */
    groupconc__group *group;       /* executor gate: the group it holds permits of (a reference) */
} groupconc__gate_slot;

/* What a try-acquire or a release touches comes first, together (the block is malloc's, 16-byte
   aligned: they may span two cache lines; no line alignment is asked for). The lock is a word lock
   (4 bytes and inline atomics, not glibc's 40-byte mutex and its calls), taken without spinning
   (groupconc__wordlock_lock_plain): its sections are a few dozen ns, and two threads spinning on
   trylocks make each other slower (an earlier measurement: up to 3x a plain mutex counter with
   the spin). The word lock against the mutex: 2 threads 94-98 ns a pair against 113-129, 1
   thread 33 against 38 (groupconc-gate-bench, 5 interleaved runs; docs/performance.md). */
struct groupconc_gate {
    groupconc__wordlock lock;      /* guards everything below but `next` */
    uint32_t free_head;
    int32_t limit;                 /* standalone; INT32_MAX = unlimited */
    uint32_t nslots;
    groupconc__gate_slot *slots;
    size_t in_flight;
    uint64_t admitted, released[3], rejected;
    groupconc_executor *ex;        /* NULL: standalone */
    groupconc_gate *next;          /* in ex->gates, under ex->lock */
    groupconc_gate_config config;
};

/* A free slot, held now (generation made odd), or SLOT_NONE when the table cannot grow. Under
   gate->lock. */
GROUPCONC__FN uint32_t groupconc__slot_take_glocked(groupconc_gate *gate) {
    uint32_t i;
    if (gate->free_head == GROUPCONC__SLOT_NONE) {
        uint32_t n = gate->nslots ? gate->nslots * 2 : 8, k;
        groupconc__gate_slot *slots;
        if (n <= gate->nslots || n > (1u << 27)) /* 2^27 permits out at once: 2 GB of slots */
            return GROUPCONC__SLOT_NONE;
        slots = (groupconc__gate_slot *)GROUPCONC_MALLOC((size_t)n * sizeof *slots);
        if (!slots) return GROUPCONC__SLOT_NONE;
        if (gate->nslots) memcpy(slots, gate->slots, (size_t)gate->nslots * sizeof *slots);
        for (k = gate->nslots; k < n; k++) { /* the new slots, free, lowest first */
            slots[k].generation = 0;
            slots[k].group = NULL;
            slots[k].next_free = k + 1 < n ? k + 1 : GROUPCONC__SLOT_NONE;
        }
        if (gate->slots) GROUPCONC_FREE(gate->slots);
        gate->free_head = gate->nslots;
        gate->slots = slots;
        gate->nslots = n;
    }
    i = gate->free_head;
    gate->free_head = gate->slots[i].next_free;
    gate->slots[i].generation++;
    return i;
}

GROUPCONC__FN void groupconc__gate_emit(groupconc_gate *gate, groupconc_gate_event_type type,
                                        const char *group, int reason, groupconc_release_kind kind,
                                        int error) {
    groupconc_gate_event ev;
    ev.type = type;
    ev.gate = gate;
    ev.group = group;
    ev.reason = reason;
    ev.kind = kind;
    ev.error = error;
    gate->config.listener(&ev, gate->config.listener_user_data);
}

/* Permits of this executor's gates held in group g (NULL: all groups). Under ex->lock. */
GROUPCONC__FN size_t groupconc__gate_permits_locked(groupconc_executor *ex, const groupconc__group *g) {
    groupconc_gate *gate;
    size_t n = 0;
    uint32_t i;
    for (gate = ex->gates; gate; gate = gate->next) {
        groupconc__wordlock_lock_plain(&gate->lock);
        if (!g) {
            n += gate->in_flight;
        } else {
            for (i = 0; i < gate->nslots; i++)
                if ((gate->slots[i].generation & 1u) && gate->slots[i].group == g) n++;
        }
        groupconc__wordlock_unlock(&gate->lock);
    }
    return n;
}

GROUPCONC__PUBLIC int groupconc_gate_create(const groupconc_gate_config *config, groupconc_gate **out_gate) {
    groupconc_gate *gate;
    groupconc_executor *ex;
    if (out_gate) *out_gate = NULL;
    if (!config || !out_gate) return GROUPCONC_EINVAL;
    ex = config->executor;
    GROUPCONC__NOT_IN_RESOLVER(ex); /* NULL (standalone) is no executor's */
    if (ex ? config->limit != 0 : (config->limit < 1 && config->limit != GROUPCONC_UNLIMITED))
        return GROUPCONC_ELIMIT;
    gate = (groupconc_gate *)GROUPCONC_MALLOC(sizeof *gate);
    if (!gate) return GROUPCONC_ENOMEM;
    memset(gate, 0, sizeof *gate);
    if (groupconc__wordlock_init(&gate->lock) != GROUPCONC_OK) {
        GROUPCONC_FREE(gate);
        return GROUPCONC_ENOMEM;
    }
    gate->config = *config;
    gate->ex = ex;
    gate->free_head = GROUPCONC__SLOT_NONE;
    gate->limit = ex ? INT32_MAX : groupconc__cap(config->limit);
    if (ex) {
        groupconc__exec_lock_all(ex);
        if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) {
            groupconc__exec_unlock_all(ex);
            groupconc__wordlock_destroy(&gate->lock);
            GROUPCONC_FREE(gate);
            return GROUPCONC_ESHUTDOWN;
        }
        gate->next = ex->gates;
        ex->gates = gate;
        groupconc__exec_unlock_all(ex);
    }
    *out_gate = gate;
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_gate_destroy(groupconc_gate *gate) {
    groupconc_executor *ex;
    if (!gate) return GROUPCONC_EINVAL;
    ex = gate->ex;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (ex) groupconc__exec_lock_all(ex);
    groupconc__wordlock_lock_plain(&gate->lock);
    if (gate->in_flight > 0) {
        groupconc__wordlock_unlock(&gate->lock);
        if (ex) groupconc__exec_unlock_all(ex);
        return GROUPCONC_EBUSY;
    }
    groupconc__wordlock_unlock(&gate->lock);
    if (ex) {
        groupconc_gate **pg = &ex->gates;
        while (*pg != gate) pg = &(*pg)->next;
        *pg = gate->next;
        groupconc__exec_unlock_all(ex);
    }
    groupconc__wordlock_destroy(&gate->lock);
    if (gate->slots) GROUPCONC_FREE(gate->slots);
    GROUPCONC_FREE(gate);
    return GROUPCONC_OK;
}

/* A standalone gate: a counter and a slot, under the gate's lock. */
GROUPCONC__FN int groupconc__gate_acquire_alone(groupconc_gate *gate, groupconc_permit *out) {
    uint32_t slot;
    int rc = GROUPCONC_OK;
    groupconc__wordlock_lock_plain(&gate->lock);
    if (gate->in_flight >= (size_t)gate->limit) {
        gate->rejected++;
        rc = GROUPCONC_EGATE_FULL;
    } else if ((slot = groupconc__slot_take_glocked(gate)) == GROUPCONC__SLOT_NONE) {
        rc = GROUPCONC_ENOMEM;
    } else {
        gate->in_flight++;
        gate->admitted++;
        out->gate = gate;
        out->slot = slot;
        out->generation = gate->slots[slot].generation;
    }
    groupconc__wordlock_unlock(&gate->lock);
    if (gate->config.listener && rc != GROUPCONC_ENOMEM)
        groupconc__gate_emit(gate, rc == GROUPCONC_OK ? GROUPCONC_GATE_ADMITTED : GROUPCONC_GATE_REJECTED,
                             NULL, rc, GROUPCONC_RELEASE_SUCCESS, 0);
    return rc;
}

/* An executor gate: a permit at each local layer of the group, taken at once in one locked step
   or not at all; the same no-barging rule as a task's admission (a layer with waiters refuses). */
GROUPCONC__FN int groupconc__gate_acquire_group(groupconc_gate *gate, const char *group,
                                                groupconc_permit *out) {
    groupconc_executor *ex = gate->ex;
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__group *g = NULL;
    uint32_t slot;
    uint64_t hash;
    size_t len;
    int rc, layer;
    if ((rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    /* admits the inbox first: tasks submitted before come first. It leaves what a worker ran but
       left unfinished behind a long task to the workers (finishing it here would run its
       completion on this thread): its permits count as held until then. */
    groupconc__lock_quiet(ex, &b);
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) {
        rc = GROUPCONC_ESHUTDOWN;
    } else {
        rc = groupconc__group_get_locked(ex, group, len, hash, &b, &g);
    }
    if (rc == GROUPCONC_OK && groupconc__paused(ex, g)) rc = GROUPCONC_EPAUSED;
    for (layer = 0; rc == GROUPCONC_OK && layer < GROUPCONC__LAYERS; layer++) {
        const groupconc__permits *s = groupconc__permits_of(ex, g, layer);
        if (layer == GROUPCONC__L_FLEET) continue; /* a gate permit does not pass the fleet layer */
        /* global running: a free permit means its waiters are all paused (see "layers") */
        if ((groupconc__waiters_of(ex, g, layer)->count > 0 && layer != GROUPCONC__L_RUNNING) ||
            s->used >= s->limit)
            rc = groupconc__layer_rejected(layer);
    }
    groupconc__wordlock_lock_plain(&gate->lock);
    if (rc == GROUPCONC_OK) {
        slot = groupconc__slot_take_glocked(gate);
        if (slot == GROUPCONC__SLOT_NONE) {
            rc = GROUPCONC_ENOMEM;
        } else {
            for (layer = 0; layer < GROUPCONC__LAYERS; layer++)
                if (layer != GROUPCONC__L_FLEET) groupconc__permits_of(ex, g, layer)->used++;
            atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed); /* the locks publish it */
            gate->slots[slot].group = g;
            gate->in_flight++;
            gate->admitted++;
            out->gate = gate;
            out->slot = slot;
            out->generation = gate->slots[slot].generation;
            groupconc__debug_check(ex, g);
        }
    } else if (rc != GROUPCONC_ENOMEM) {
        gate->rejected++;
    }
    groupconc__wordlock_unlock(&gate->lock);
    groupconc__exec_unlock(ex);
    groupconc__flush_and_retire(ex, &b);
    if (gate->config.listener && rc != GROUPCONC_ENOMEM)
        groupconc__gate_emit(gate, rc == GROUPCONC_OK ? GROUPCONC_GATE_ADMITTED : GROUPCONC_GATE_REJECTED,
                             group, rc, GROUPCONC_RELEASE_SUCCESS, 0);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_gate_try_acquire(groupconc_gate *gate, const char *group,
                                                 groupconc_permit *out_permit) {
    if (out_permit) {
        out_permit->gate = NULL;
        out_permit->slot = 0;
        out_permit->generation = 0;
    }
    if (!gate || !out_permit || (gate->ex ? !group : group != NULL)) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(gate->ex);
    return gate->ex ? groupconc__gate_acquire_group(gate, group, out_permit)
                    : groupconc__gate_acquire_alone(gate, out_permit);
}

GROUPCONC__PUBLIC int groupconc_permit_release(const groupconc_permit *permit,
                                               groupconc_release_kind kind, int error) {
    groupconc_gate *gate;
    groupconc__group *g = NULL;
    groupconc__gate_slot *s;
    if (!permit || (unsigned)kind > (unsigned)GROUPCONC_RELEASE_CANCELLED) return GROUPCONC_EINVAL;
    groupconc_executor *ex;
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    gate = permit->gate;
    if (!gate || !(permit->generation & 1u)) return GROUPCONC_EPERMIT;
    GROUPCONC__NOT_IN_RESOLVER(gate->ex); /* a valid permit's gate is alive */
    /* An executor gate's release is one locked step under ex->lock too (ex, then gate: the lock
       order), so that a stats snapshot never sees the slot freed and the layers still held. */
    ex = gate->ex;
    if (ex) groupconc__exec_lock(ex);
    groupconc__wordlock_lock_plain(&gate->lock);
    if (permit->slot >= gate->nslots || gate->slots[permit->slot].generation != permit->generation) {
        groupconc__wordlock_unlock(&gate->lock);
        if (ex) groupconc__exec_unlock(ex);
        return GROUPCONC_EPERMIT; /* released already (this or a copy), or never this gate's */
    }
    s = &gate->slots[permit->slot];
    s->generation++; /* even: free; every copy of this permit is stale from here on */
    g = s->group;
    s->group = NULL;
    s->next_free = gate->free_head;
    gate->free_head = permit->slot;
    gate->in_flight--;
    gate->released[kind]++;
    groupconc__wordlock_unlock(&gate->lock);
    if (ex) { /* hand the permits on, as a task's completion does */
        int layer;
        for (layer = GROUPCONC__LAYERS - 1; layer >= 0; layer--)
            if (layer != GROUPCONC__L_FLEET) groupconc__release_layer(ex, g, layer, &b);
        if (g->flags & GROUPCONC__GF_LRU) /* idle time counts from here */
            atomic_store_explicit(&groupconc__lru_of(g)->last_used, groupconc__coarse_now_ns(),
                                  memory_order_relaxed);
        groupconc__pump(ex, &b);
        groupconc__debug_check(ex, g);
        (void)groupconc__kick_locked(ex);
        groupconc__exec_unlock(ex);
        groupconc__flush_and_retire(ex, &b);
    }
    if (gate->config.listener)
        groupconc__gate_emit(gate, GROUPCONC_GATE_RELEASED, g ? g->key : NULL, 0, kind, error);
    if (g) groupconc__group_unref(g);
    return GROUPCONC_OK;
}

/* What an executor gate's try-acquire for g would find free now: the fewest free permits over the
   group's layers and the global ones, GROUPCONC_UNLIMITED if none bounds it, 0 once the executor
   is shut down (a try-acquire says ESHUTDOWN: helper-69, defect 2). Under every shard's lock. */
GROUPCONC__FN int groupconc__gate_available_locked(groupconc_executor *ex, groupconc__group *g) {
    /* INT32_MAX is "no bound" at the global, in-flight and running layers (groupconc__cap), but a
       cap like any other at the concurrency layer (which has no unlimited value) */
    int32_t avail = INT32_MAX;
    bool bounded = false;
    int layer;
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) return 0;
    for (layer = 0; layer < GROUPCONC__LAYERS; layer++) {
        const groupconc__permits *s = groupconc__permits_of(ex, g, layer);
        int32_t free_here;
        if (layer == GROUPCONC__L_FLEET) continue; /* as the gate: a permit here does not pass it */
        if ((groupconc__waiters_of(ex, g, layer)->count > 0 && layer != GROUPCONC__L_RUNNING) ||
            s->used >= s->limit || (layer >= GROUPCONC__L_CONCURRENCY && groupconc__paused(ex, g)))
            free_here = 0;
        else if (s->limit == INT32_MAX && layer != GROUPCONC__L_CONCURRENCY)
            continue;
        else
            free_here = s->limit - s->used;
        bounded = true;
        if (free_here < avail) avail = free_here;
    }
    return bounded ? (int)avail : GROUPCONC_UNLIMITED;
}

GROUPCONC__PUBLIC int groupconc_gate_stats_get(groupconc_gate *gate, const char *group,
                                               groupconc_gate_stats *out_stats) {
    groupconc_executor *ex;
    groupconc__group *g = NULL;
    uint64_t hash = 0; /* set when group is (gcc -O3 cannot see it: -Wmaybe-uninitialized) */
    size_t len = 0;
    int rc;
    if (!gate || !out_stats || (!gate->ex && group)) return GROUPCONC_EINVAL;
    ex = gate->ex;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (group && (rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    if (ex) groupconc__exec_lock_all(ex);
    if (group) {
        g = groupconc__find_locked(ex, group, len, hash);
        if (!g) {
            groupconc__exec_unlock_all(ex);
            return GROUPCONC_ENOTFOUND;
        }
    }
    memset(out_stats, 0, sizeof *out_stats);
    if (g) {
        out_stats->limit = (int)g->conc.limit;
        out_stats->available = groupconc__gate_available_locked(ex, g);
    }
    groupconc__wordlock_lock_plain(&gate->lock);
    if (g) {
        uint32_t i;
        for (i = 0; i < gate->nslots; i++)
            if ((gate->slots[i].generation & 1u) && gate->slots[i].group == g) out_stats->in_flight++;
    } else {
        /* the configured limit tells UNLIMITED from a cap of INT_MAX (both are INT32_MAX here); an
           executor gate has no bound of its own */
        bool unlimited = gate->ex != NULL || gate->config.limit == GROUPCONC_UNLIMITED;
        out_stats->in_flight = gate->in_flight;
        out_stats->limit = unlimited ? GROUPCONC_UNLIMITED : (int)gate->limit;
        out_stats->available = unlimited ? GROUPCONC_UNLIMITED : (int)(gate->limit - (int32_t)gate->in_flight);
    }
    out_stats->admitted = gate->admitted;
    out_stats->rejected = gate->rejected;
    out_stats->released_success = gate->released[GROUPCONC_RELEASE_SUCCESS];
    out_stats->released_failure = gate->released[GROUPCONC_RELEASE_FAILURE];
    out_stats->released_cancelled = gate->released[GROUPCONC_RELEASE_CANCELLED];
    groupconc__wordlock_unlock(&gate->lock);
    if (ex) groupconc__exec_unlock_all(ex);
    return GROUPCONC_OK;
}

#endif /* !GROUPCONC_NO_GATE */

/* ==== module: structured scopes ================================================================ */
#ifndef GROUPCONC_NO_SCOPES
/* A scope keeps one node per fork (its handle, its result once done, and the watcher node that
   reports its completion: no allocation can fail after the submit). Locks: ex->scope_lock guards
   the executor's list of open scopes and the tree (parent, nchildren, shut_down); a scope's own
   lock guards its forks and counts. Order: ex->lock, then ex->scope_lock, then a scope's lock
   (the dump; a shutdown's cancel step, which dequeues and flags the forks under all three); the
   scope locks are never held while a task is submitted, nor while user code runs. A scope lives
   while it is open, plus while anyone holds a reference (a completion callback, a shutdown in
   progress): the last reference frees it. */

typedef struct groupconc__fork {
    groupconc_scope *scope;
    size_t index;
    groupconc_task *task;          /* its handle (set by its body at once, or after submit); NULL
                                      if submit refused it */
    groupconc_task_fn fn;          /* the user's function, argument and cleanup: the task runs */
    void *arg;                     /* groupconc__fork_body(fk), which runs fn(arg) */
    groupconc_cleanup_fn cleanup;
    struct groupconc__fork *outer; /* while its body runs: the fork body it runs inside, if any */
    groupconc__watch watch;        /* reports its completion (kept: not freed by complete) */
    groupconc_result result;       /* valid once done */
    bool done;
    const char *task_id;           /* the caller's id (copied after group) or NULL: a refused fork's
                                      result shows it */
    char group[];                  /* a refused fork's key, for its result */
} groupconc__fork;

struct groupconc_scope {
    groupconc_executor *ex;
    groupconc_scope_policy policy;
    groupconc_scope_fn on_fork_complete;
    void *user_data;
    char *name;
    groupconc__mutex lock;         /* guards forks .. first */
    groupconc__cond cv;            /* a fork completed */
    groupconc__fork **forks;
    size_t nforks, cap, ndone;
    size_t first;                  /* the deciding fork, if has_first */
    bool has_first, failed, joined;
    bool shut_down;                /* under both locks: set with scope_lock and the scope's lock */
    _Atomic uint32_t refs;
    uint64_t owner;                /* its owner thread's token (groupconc__thread_token) */
    uint64_t opened_ns;
    /* under ex->scope_lock */
    groupconc_scope *parent, *next_open, *shutdown_next;
    size_t nchildren;
    groupconc_scope *owner_prev;   /* the scope its owner thread opened before it (still open) */
    const groupconc__frame *body;  /* the task body it was opened in (it closes as that body
                                      returns), or NULL; owner thread only */
    bool closing;                  /* its close is under way: owner thread only */
    bool worker_owned;             /* opened on one of ex's workers: only the library can close
                                      it (destroy frees one left open); set before it is listed */
};

/* The scopes this thread opened and has not closed, newest first (they close in reverse order). */
static GROUPCONC__TLS groupconc_scope *groupconc__scope_top;

/* This thread's token, a number no other thread of the process has had or will have: a scope's
   owner. Not its thread id, which the system gives to a later thread once this one is joined (glibc
   nearly always): a scope whose owner ended without closing it must not pass to that thread. */
static GROUPCONC__TLS uint64_t groupconc__my_token;
static _Atomic uint64_t groupconc__tokens; /* the last token given out */

GROUPCONC__FN uint64_t groupconc__thread_token(void) {
    if (!groupconc__my_token)
        groupconc__my_token = atomic_fetch_add_explicit(&groupconc__tokens, 1, memory_order_relaxed) + 1;
    return groupconc__my_token;
}

/* A task's body returned `body_rc` (groupconc__run; a body frame): the scopes it opened and left
   open are at the top of this thread's list (a body it ran inside it closed its own). Close them, newest first, as groupconc_scope_close does (shut down unless joined,
   every fork waited for): a scope belongs to its thread, and a worker's thread runs other tasks
   next and may exit, so nobody else could; and a fork's child scopes close before the fork
   completes. But a body that deferred its completion (their forks may be what delivers it) leaves
   them open: such a body runs on a worker, never inside another body, so nobody else could close
   them (destroy frees them). groupconc__scopes_left_open (below, inline) calls this when there are any. */
GROUPCONC__FN void groupconc__scopes_close_left(const groupconc__frame *body, int body_rc) {
    groupconc_scope *s = groupconc__scope_top;
    /* deferred: kept even when the deferral is in already, so that what happens to the forks
       never depends on which came first (one that delivered it may still be working, or wait for
       this very task) */
    if (body->deferral && body_rc == GROUPCONC_TASK_PENDING) {
        for (; s && s->body == body; s = s->owner_prev) s->body = NULL; /* this frame is going */
        return;
    }
    while ((s = groupconc__scope_top) != NULL && s->body == body) {
        int rc = groupconc_scope_close(s);
        /* it is the top, opened on this thread in this body: its close cannot be refused (the
           break only keeps a broken invariant from looping for ever in a release build) */
        GROUPCONC_ASSERT(rc == GROUPCONC_OK || rc == GROUPCONC_ENOTJOINED);
        if (rc != GROUPCONC_OK && rc != GROUPCONC_ENOTJOINED) break;
    }
}
GROUPCONC__HOT void groupconc__scopes_left_open(const groupconc__frame *body, int body_rc) {
    const groupconc_scope *s = groupconc__scope_top;
    if (s && s->body == body) groupconc__scopes_close_left(body, body_rc); /* else none: nearly always */
}

/* The fork whose body runs on this thread now (innermost; ->outer for the others). */
static GROUPCONC__TLS groupconc__fork *groupconc__fork_cur;

/* The forks this thread is submitting now (groupconc_scope_fork, innermost first): their events,
   rejection handler and, refused, their completion run inside that submit, before the fork has a
   handle its scope could find; a join or close of the scope from there is EDEADLK too. */
typedef struct groupconc__forking {
    const groupconc__fork *fk;
    struct groupconc__forking *prev;
} groupconc__forking;
static GROUPCONC__TLS groupconc__forking *groupconc__forkings;

/* A fork's body: known as its scope's fork from its first instruction (a scope it opens is the
   scope's child; it may fork into the scope), then the user's function. */
GROUPCONC__FN int groupconc__fork_body(groupconc_context *ctx, void **out_value, void *arg) {
    groupconc__fork *fk = (groupconc__fork *)arg;
    int rc;
    (void)ctx; /* its handle is in fk->task: groupconc__fork_starts set it */
    fk->outer = groupconc__fork_cur;
    groupconc__fork_cur = fk;
    rc = fk->fn(ctx, out_value, fk->arg);
    groupconc__fork_cur = fk->outer;
    return rc;
}

/* A fork is about to start (groupconc__run, before its STARTED event): make its handle known to
   its scope, under the scope's lock, and say whether the scope was shut down first. Then it was
   waiting when the shutdown's cancel step ran, which saw no handle while scope_fork was still
   submitting it (or it started inside that submit, under CALLER_RUNS): it must not run. A
   shutdown that comes later finds the handle (the same lock) and flags it. */
GROUPCONC__FN bool groupconc__fork_starts(groupconc_task *t) {
    groupconc__fork *fk = (groupconc__fork *)t->arg;
    bool shut_down;
    groupconc__mutex_lock(&fk->scope->lock);
    if (!fk->task) fk->task = t;
    shut_down = fk->scope->shut_down;
    groupconc__mutex_unlock(&fk->scope->lock);
    return !shut_down;
}

GROUPCONC__FN void groupconc__fork_cleanup(void *arg) {
    groupconc__fork *fk = (groupconc__fork *)arg;
    if (fk->cleanup) fk->cleanup(fk->arg);
}

/* What the caller passed for the fork (a rejection handler sees it; groupconc__apply_handler). */
GROUPCONC__FN void groupconc__fork_user(void *fork, groupconc_task_fn *fn, void **arg,
                                        groupconc_cleanup_fn *cleanup) {
    const groupconc__fork *fk = (const groupconc__fork *)fork;
    *fn = fk->fn;
    *arg = fk->arg;
    *cleanup = fk->cleanup;
}

GROUPCONC__FN void groupconc__scope_free(groupconc_scope *s) {
    size_t i;
    for (i = 0; i < s->nforks; i++) {
        if (s->forks[i]->task) (void)groupconc_task_release(s->forks[i]->task);
        GROUPCONC_FREE(s->forks[i]);
    }
    if (s->forks) GROUPCONC_FREE(s->forks);
    if (s->name) GROUPCONC_FREE(s->name);
    groupconc__cond_destroy(&s->cv);
    groupconc__mutex_destroy(&s->lock);
    GROUPCONC_FREE(s);
}

GROUPCONC__FN void groupconc__scope_unref(groupconc_scope *s) {
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1) groupconc__scope_free(s);
}

/* Is a scope of ex open that a thread other than ex's workers owns (destroy refuses: only that
   thread can close it)? Under ex->lock (order: lock, then scope_lock). */
GROUPCONC__FN bool groupconc__scopes_held_locked(groupconc_executor *ex) {
    const groupconc_scope *sc;
    bool any = false;
    groupconc__mutex_lock(&ex->scope_lock);
    for (sc = ex->scopes; sc && !any; sc = sc->next_open)
        if (!sc->worker_owned) any = true;
    groupconc__mutex_unlock(&ex->scope_lock);
    return any;
}

/* Destroy, once every task finished and the workers exited: free the scopes they left open (a body
   that deferred its completion keeps them; one opened in a callback outside any body). Their forks
   are done and their owner threads gone: nothing else refers to them. */
GROUPCONC__FN void groupconc__scopes_free(groupconc_executor *ex) {
    groupconc_scope *sc;
    while ((sc = ex->scopes) != NULL) {
        ex->scopes = sc->next_open;
        GROUPCONC_ASSERT(sc->worker_owned && atomic_load_explicit(&sc->refs, memory_order_relaxed) == 1);
        groupconc__scope_unref(sc);
    }
}

/* Is task t one of s's forks? Under s->lock. */
GROUPCONC__FN bool groupconc__scope_has_fork_slocked(const groupconc_scope *s, const groupconc_task *t) {
    size_t i;
    for (i = 0; i < s->nforks; i++)
        if (s->forks[i]->task == t) return true;
    return false;
}

/* Is this thread inside (the body, an event, a callback of) one of s's forks? */
GROUPCONC__FN bool groupconc__inside_scope(groupconc_scope *s) {
    const groupconc__frame *f;
    const groupconc__fork *fk;
    const groupconc__forking *fg;
    bool in = false;
    for (fk = groupconc__fork_cur; fk; fk = fk->outer)
        if (fk->scope == s) return true;
    for (fg = groupconc__forkings; fg; fg = fg->prev)
        if (fg->fk->scope == s) return true;
    groupconc__mutex_lock(&s->lock);
    for (f = groupconc__frames; f && !in; f = f->prev)
        if (f->ex == s->ex && f->self && groupconc__scope_has_fork_slocked(s, f->self)) in = true;
    groupconc__mutex_unlock(&s->lock);
    return in;
}

/* Fork, join and close are for the owner thread, or a fork of the scope. */
GROUPCONC__FN bool groupconc__scope_allowed(groupconc_scope *s) {
    return groupconc__thread_token() == s->owner || groupconc__inside_scope(s);
}

/* Mark s and its open descendants shut down, each with a reference, linked through shutdown_next
   (breadth first: the list is walked while it grows at its tail); a scope already shut down is
   skipped with its subtree (its shutdown covered it). Under ex->scope_lock. */
GROUPCONC__FN groupconc_scope *groupconc__scope_mark_sclocked(groupconc_executor *ex, groupconc_scope *s) {
    groupconc_scope *x, *c, *tail = s;
    if (s->shut_down) return NULL;
    for (x = s; x; x = x->shutdown_next) {
        if (x == s) { /* the others were marked when they were appended */
            groupconc__mutex_lock(&s->lock);
            s->shut_down = true;
            groupconc__mutex_unlock(&s->lock);
            atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); /* scope_lock orders it */
            s->shutdown_next = NULL;
        }
        for (c = ex->scopes; c; c = c->next_open) {
            if (c->parent != x || c->shut_down) continue;
            groupconc__mutex_lock(&c->lock);
            c->shut_down = true;
            groupconc__mutex_unlock(&c->lock);
            atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
            c->shutdown_next = NULL;
            tail->shutdown_next = c;
            tail = c;
        }
    }
    return s;
}

/* Is c `root` or one of root's descendants? Under ex->scope_lock (an open scope's parents are open:
   a close waits for the forks that opened children, which close them as their bodies return, and
   detaches a child left open by a fork whose body deferred its completion). */
GROUPCONC__FN bool groupconc__scope_under_sclocked(const groupconc_scope *c, const groupconc_scope *root) {
    for (; c; c = c->parent)
        if (c == root) return true;
    return false;
}

/* The forks of root and of its open descendants that have a task and have not completed: `pass` 0
   dequeues the waiting ones into *victims, 1 takes or flags the running ones (see "cancelling a set
   of tasks"). Under ex->lock and ex->scope_lock; each scope's lock is taken inside them. */
GROUPCONC__FN void groupconc__scope_forks_locked(groupconc_executor *ex, const groupconc_scope *root, int pass,
                                                 groupconc__fifo *victims, groupconc__batch *b) {
    groupconc_scope *s;
    size_t i;
    for (s = ex->scopes; s; s = s->next_open) {
        if (!groupconc__scope_under_sclocked(s, root)) continue;
        groupconc__mutex_lock(&s->lock);
        for (i = 0; i < s->nforks; i++) {
            groupconc_task *t = s->forks[i]->task;
            if (!t || s->forks[i]->done) continue;
            if (pass == 0) groupconc__set_dequeue_locked(ex, t, victims);
            else groupconc__set_flag_locked(ex, t, b);
        }
        groupconc__mutex_unlock(&s->lock);
    }
}

/* Cancel every fork of root and of its open descendants as one step: no permit that one of them
   frees can start another one that waits. Every shutdown call takes this step, the second of two
   racing ones too (the first may not have reached it yet: returning at once, the second left the
   waiting forks to it, and a permit freed meanwhile started one). */
GROUPCONC__FN void groupconc__scopes_cancel_step(groupconc_executor *ex, const groupconc_scope *root) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__fifo victims = {NULL, NULL, 0};
    groupconc__lock_all(ex, &b);
    groupconc__mutex_lock(&ex->scope_lock); /* lock order: ex->lock, scope_lock, a scope's lock */
    groupconc__scope_forks_locked(ex, root, 0, &victims, &b);
    groupconc__set_cancel_locked(ex, &victims, &b);
    groupconc__scope_forks_locked(ex, root, 1, &victims, &b);
    groupconc__mutex_unlock(&ex->scope_lock);
    groupconc__set_unlock(ex, &b);
}

/* Cancel every fork of s that has not completed, a few at a time, with no lock held: after the
   step above, only what it left (a refusal whose CALLER_RUNS re-run is pending; a fork stored
   since) is still to cancel. */
GROUPCONC__FN void groupconc__scope_cancel_forks(groupconc_scope *s) {
    groupconc_task *batch[32];
    size_t i = 0, n, k;
    for (;;) {
        n = 0;
        groupconc__mutex_lock(&s->lock);
        for (; i < s->nforks && n < 32; i++)
            if (!s->forks[i]->done && s->forks[i]->task) batch[n++] = s->forks[i]->task;
        groupconc__mutex_unlock(&s->lock);
        if (n == 0) break;
        for (k = 0; k < n; k++) (void)groupconc_task_cancel(batch[k], NULL);
    }
}

GROUPCONC__PUBLIC int groupconc_scope_shutdown(groupconc_scope *scope) {
    groupconc_scope *list, *next;
    if (!scope) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    groupconc__mutex_lock(&scope->ex->scope_lock);
    list = groupconc__scope_mark_sclocked(scope->ex, scope);
    groupconc__mutex_unlock(&scope->ex->scope_lock);
    groupconc__scopes_cancel_step(scope->ex, scope); /* also when another call marked it first */
    for (; list; list = next) {
        next = list->shutdown_next;
        groupconc__scope_cancel_forks(list);
        groupconc__scope_unref(list);
    }
    return GROUPCONC_OK;
}

/* A fork completed (a completion callback: no lock held, on the thread that completed it). */
/* The policy decides first, then the callback runs and the shutdown is done, and only then does
   the fork count as done: a join that returns has seen every decision and callback. */
GROUPCONC__FN void groupconc__scope_fork_done(groupconc_scope *s, groupconc__fork *fk,
                                              const groupconc_result *r) {
    bool shut = false, failure, decides;
    groupconc__mutex_lock(&s->lock);
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); /* the lock orders it */
    fk->result = *r;
    failure = r->status == GROUPCONC_STATUS_FAILED || r->status == GROUPCONC_STATUS_REJECTED;
    if (failure) s->failed = true;
    decides = (s->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE && failure) ||
              (s->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS &&
               r->status == GROUPCONC_STATUS_SUCCESS);
    if (decides && !s->has_first) {
        s->has_first = true;
        s->first = fk->index;
        shut = true;
    } else if (decides) {
        /* first by end time, not by report: a finished task hands its permits on before its
           completion runs, so one that ended earlier (the previous task of a cap-1 group) may
           report after a later one */
        const groupconc_result *f = &s->forks[s->first]->result;
        if (r->end_ns < f->end_ns || (r->end_ns == f->end_ns && fk->index < s->first))
            s->first = fk->index;
    }
    groupconc__mutex_unlock(&s->lock);
    if (s->on_fork_complete) s->on_fork_complete(s, fk->index, r, s->user_data);
    if (shut) (void)groupconc_scope_shutdown(s);
    groupconc__mutex_lock(&s->lock);
    fk->done = true;
    s->ndone++;
    groupconc__cond_broadcast(&s->cv);
    groupconc__mutex_unlock(&s->lock);
    groupconc__scope_unref(s);
}

GROUPCONC__FN void groupconc__scope_fork_cb(groupconc_task *task, const groupconc_result *r, void *user_data) {
    groupconc__fork *fk = (groupconc__fork *)user_data;
    (void)task;
    groupconc__scope_fork_done(fk->scope, fk, r);
}

GROUPCONC__PUBLIC int groupconc_scope_open(groupconc_executor *ex, const groupconc_scope_config *config,
                                           groupconc_scope **out_scope) {
    groupconc_scope *s;
    groupconc_scope_config c;
    int rc = GROUPCONC_OK;
    if (out_scope) *out_scope = NULL;
    if (!ex || !out_scope) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    /* its owner must join and close it, both waits: the housekeeper must not own one (a running
       fork that waits for a task only the housekeeper can expire would hang both) */
    if (groupconc__in_keeper(ex)) return GROUPCONC_EDEADLK;
    if (config) c = *config;
    else memset(&c, 0, sizeof c);
    if ((int)c.policy < (int)GROUPCONC_SCOPE_COLLECT_ALL || (int)c.policy > (int)GROUPCONC_SCOPE_CUSTOM)
        return GROUPCONC_EPOLICY;
    if (c.policy == GROUPCONC_SCOPE_CUSTOM && !c.on_fork_complete) return GROUPCONC_EINVAL;
    if (atomic_load_explicit(&ex->shutdown, memory_order_relaxed)) return GROUPCONC_ESHUTDOWN;
    s = (groupconc_scope *)GROUPCONC_MALLOC(sizeof *s);
    if (!s) return GROUPCONC_ENOMEM;
    memset(s, 0, sizeof *s);
    if (c.name) {
        size_t n = strlen(c.name) + 1;
        s->name = (char *)GROUPCONC_MALLOC(n);
        if (!s->name) {
            GROUPCONC_FREE(s);
            return GROUPCONC_ENOMEM;
        }
        memcpy(s->name, c.name, n);
    }
    if (groupconc__mutex_init(&s->lock) != GROUPCONC_OK) {
        if (s->name) GROUPCONC_FREE(s->name);
        GROUPCONC_FREE(s);
        return GROUPCONC_ENOMEM;
    }
    if (groupconc__cond_init(&s->cv) != GROUPCONC_OK) {
        groupconc__mutex_destroy(&s->lock);
        if (s->name) GROUPCONC_FREE(s->name);
        GROUPCONC_FREE(s);
        return GROUPCONC_ENOMEM;
    }
    s->ex = ex;
    s->policy = c.policy;
    s->on_fork_complete = c.on_fork_complete;
    s->user_data = c.user_data;
    s->owner = groupconc__thread_token();
    s->opened_ns = groupconc__now_ns();
    s->worker_owned = groupconc__is_worker_of(ex);
    atomic_init(&s->refs, 1); /* open */
    groupconc__mutex_lock(&ex->scope_lock);
    /* inside a fork's body on this thread: the new scope is that fork's scope's child */
    if (groupconc__fork_cur && groupconc__fork_cur->scope->ex == ex) {
        groupconc_scope *ps = groupconc__fork_cur->scope;
        groupconc__mutex_lock(&ps->lock); /* its forking thread may be storing the task too */
        if (groupconc__fork_cur->task) s->parent = ps; /* a body that runs, not a refused fork's report */
        groupconc__mutex_unlock(&ps->lock);
    }

    if (s->parent && s->parent->shut_down) {
        rc = GROUPCONC_ESHUTDOWN;
    } else {
        if (s->parent) s->parent->nchildren++;
        s->next_open = ex->scopes;
        ex->scopes = s;
    }
    groupconc__mutex_unlock(&ex->scope_lock);
    if (rc != GROUPCONC_OK) {
        groupconc__scope_free(s);
        return rc;
    }
    {
        const groupconc__frame *fr = groupconc__frames;
        while (fr && !fr->body) fr = fr->prev; /* callbacks inside a body belong to that body */
        s->body = fr;
    }
    s->owner_prev = groupconc__scope_top;
    groupconc__scope_top = s;
    *out_scope = s;
    return GROUPCONC_OK;
}

/* A fork that submit refused: it counts, with a REJECTED result whose reason is submit's code. */
GROUPCONC__FN void groupconc__fork_refused(groupconc_scope *scope, groupconc__fork *fk, int rc) {
    groupconc_result r;
    memset(&r, 0, sizeof r);
    r.group = fk->group;
    r.task_id = fk->task_id; /* the caller's, as for a fork that was accepted */
    r.status = GROUPCONC_STATUS_REJECTED;
    r.reason = rc;
    r.start_ns = r.end_ns = groupconc__now_ns();
    /* its completion is reported on this thread: it counts as inside the fork (a join or close from
       the policy callback is EDEADLK, as on a worker) */
    fk->outer = groupconc__fork_cur;
    groupconc__fork_cur = fk;
    groupconc__scope_fork_done(scope, fk, &r);
    groupconc__fork_cur = fk->outer;
}

GROUPCONC__PUBLIC int groupconc_scope_fork(groupconc_scope *scope, const groupconc_task_spec *spec,
                                           size_t *out_index) {
    groupconc__fork *fk;
    groupconc_task *task = NULL;
    size_t klen, idlen, index;
    uint64_t hash;
    int rc;
    bool cancel_now;
    if (!scope || !spec || !spec->group || !spec->fn) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    if ((rc = groupconc__key_hash(spec->group, &klen, &hash)) != GROUPCONC_OK) return rc;
    if (!groupconc__task_wait_ok(spec->max_wait_ns)) return GROUPCONC_ELIMIT;
    if (!groupconc__scope_allowed(scope)) return GROUPCONC_ENOTOWNER;
    groupconc__mutex_lock(&scope->lock); /* refused before anything is allocated (checked again) */
    rc = scope->shut_down || scope->joined ? GROUPCONC_ESCOPE_SHUTDOWN : GROUPCONC_OK;
    groupconc__mutex_unlock(&scope->lock);
    if (rc != GROUPCONC_OK) return rc;
    idlen = spec->task_id ? strlen(spec->task_id) + 1 : 0;
    fk = (groupconc__fork *)GROUPCONC_MALLOC(sizeof *fk + klen + 1 + idlen);
    if (!fk) return GROUPCONC_ENOMEM;
    memset(fk, 0, sizeof *fk);
    memcpy(fk->group, spec->group, klen + 1);
    if (idlen) {
        memcpy(fk->group + klen + 1, spec->task_id, idlen);
        fk->task_id = fk->group + klen + 1;
    }
    fk->scope = scope;
    groupconc__mutex_lock(&scope->lock);
    if (scope->shut_down || scope->joined) {
        groupconc__mutex_unlock(&scope->lock);
        GROUPCONC_FREE(fk);
        return GROUPCONC_ESCOPE_SHUTDOWN;
    }
    if (scope->nforks == scope->cap) {
        size_t n = scope->cap ? scope->cap * 2 : 8;
        groupconc__fork **a = (groupconc__fork **)GROUPCONC_MALLOC(n * sizeof *a);
        if (!a) {
            groupconc__mutex_unlock(&scope->lock);
            GROUPCONC_FREE(fk);
            return GROUPCONC_ENOMEM;
        }
        if (scope->nforks) memcpy(a, scope->forks, scope->nforks * sizeof *a);
        if (scope->forks) GROUPCONC_FREE(scope->forks);
        scope->forks = a;
        scope->cap = n;
    }
    index = fk->index = scope->nforks;
    scope->forks[scope->nforks++] = fk; /* counted now: a join waits for it */
    groupconc__mutex_unlock(&scope->lock);

    fk->fn = spec->fn;
    fk->arg = spec->arg;
    fk->cleanup = spec->cleanup;
    {
        groupconc_task_spec wrapped = *spec; /* runs as groupconc__fork_body(fk) */
        groupconc__forking me;
        wrapped.fn = groupconc__fork_body;
        wrapped.arg = fk;
        wrapped.cleanup = spec->cleanup ? groupconc__fork_cleanup : NULL;
        me.fk = fk;
        me.prev = groupconc__forkings;
        groupconc__forkings = &me;
        rc = groupconc_submit_spec(scope->ex, &wrapped, &task);
        groupconc__forkings = me.prev;
    }
    if (rc != GROUPCONC_OK || !task) { /* refused in submit: a fork with a REJECTED result */
        groupconc__fork_refused(scope, fk, rc);
        if (out_index) *out_index = index;
        return rc;
    }
    groupconc__mutex_lock(&scope->lock);
    fk->task = task; /* its body may have set it already: the same handle */
    cancel_now = scope->shut_down; /* shut down while it was being submitted */
    groupconc__mutex_unlock(&scope->lock);
    fk->watch.fn = groupconc__scope_fork_cb;
    fk->watch.user_data = fk;
    fk->watch.cv = NULL;
    fk->watch.keep = true;
    if (!groupconc__watch_add(task, &fk->watch)) { /* already done: report it here */
        groupconc_result r;
        groupconc__frame f;
        groupconc__fill_result(task, &r);
        groupconc__frame_push(&f, scope->ex, task);
        groupconc__scope_fork_done(scope, fk, &r);
        groupconc__frame_pop(&f);
    } else if (cancel_now) {
        (void)groupconc_task_cancel(task, NULL);
    }
    if (out_index) *out_index = index;
    return GROUPCONC_OK;
}

/* Wait until every fork counted so far has completed, or the deadline; true if all did. A wait on
   a fork's handle first, so that a worker blocked here lets the pool grow (groupconc__wait_until),
   then for its completion report. */
GROUPCONC__FN bool groupconc__scope_wait(groupconc_scope *s, uint64_t deadline) {
    size_t i = 0;
    for (;;) {
        groupconc__fork *fk;
        groupconc__mutex_lock(&s->lock);
        if (i >= s->nforks) {
            bool all = s->ndone == s->nforks;
            groupconc__mutex_unlock(&s->lock);
            if (all) return true;
            i = 0; /* forks added meanwhile (by its forks): look again */
            continue;
        }
        fk = s->forks[i];
        if (fk->done) {
            groupconc__mutex_unlock(&s->lock);
            i++;
            continue;
        }
        if (!fk->task) { /* being submitted by another thread (a fork of the scope) */
            bool ok = true;
            if (deadline == UINT64_MAX) groupconc__cond_wait(&s->cv, &s->lock);
            else ok = groupconc__cond_wait_until(&s->cv, &s->lock, deadline) || fk->done;
            groupconc__mutex_unlock(&s->lock);
            if (!ok) return false;
            continue;
        }
        groupconc__mutex_unlock(&s->lock);
        if (groupconc__wait_until(fk->task, deadline) == GROUPCONC_ETIMEDOUT) return false;
        groupconc__mutex_lock(&s->lock);
        while (!fk->done) { /* its report follows its DONE bit closely */
            if (deadline == UINT64_MAX) {
                groupconc__cond_wait(&s->cv, &s->lock);
            } else if (!groupconc__cond_wait_until(&s->cv, &s->lock, deadline) && !fk->done) {
                groupconc__mutex_unlock(&s->lock);
                return false;
            }
        }
        groupconc__mutex_unlock(&s->lock);
        i++;
    }
}

GROUPCONC__PUBLIC int groupconc_scope_join_for(groupconc_scope *scope, int64_t timeout_ns) {
    int rc = GROUPCONC_OK;
    if (!scope) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    if (groupconc__inside_scope(scope)) return GROUPCONC_EDEADLK;
    if (groupconc__thread_token() != scope->owner) return GROUPCONC_ENOTOWNER;
    if (scope->closing) return GROUPCONC_EDEADLK; /* from a callback inside its close */
    if (!groupconc__scope_wait(scope, groupconc__deadline(timeout_ns))) {
        (void)groupconc_scope_shutdown(scope);
        return GROUPCONC_ETIMEDOUT;
    }
    groupconc__mutex_lock(&scope->lock);
    scope->joined = true; /* no more forks */
    if ((scope->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE && scope->failed) ||
        (scope->policy == GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS && !scope->has_first))
        rc = GROUPCONC_EFAILED;
    groupconc__mutex_unlock(&scope->lock);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_scope_join(groupconc_scope *scope) {
    return groupconc_scope_join_for(scope, GROUPCONC_FOREVER);
}

GROUPCONC__PUBLIC int groupconc_scope_close(groupconc_scope *scope) {
    groupconc_executor *ex;
    groupconc_scope **ps, *c;
    bool joined;
    if (!scope) return GROUPCONC_EINVAL;
    ex = scope->ex;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    if (groupconc__inside_scope(scope)) return GROUPCONC_EDEADLK;
    if (groupconc__thread_token() != scope->owner) return GROUPCONC_ENOTOWNER;
    /* its shutdown and the wait run callbacks on this thread (of the forks it completes, also of
       child scopes): a second close there would free it under the first */
    if (scope->closing) return GROUPCONC_EDEADLK;
    /* a scope opened later on this thread (a child among them, opened by a fork that ran here)
       closes first; a child opened on another thread is its fork's to close: the shutdown below
       reaches it, and the wait for that fork waits for its close (at the latest as its body
       returns: groupconc__scopes_left_open) */
    if (groupconc__scope_top != scope) return GROUPCONC_EORDER;
    scope->closing = true;
    groupconc__mutex_lock(&scope->lock);
    joined = scope->joined; /* only the owner thread sets it */
    groupconc__mutex_unlock(&scope->lock);
    /* NOLINTBEGIN(clang-analyzer-unix.Malloc): the shutdown's unrefs never free the scope here,
       the open reference (dropped below) keeps it; the analyzer does not count references */
    if (!joined) (void)groupconc_scope_shutdown(scope); /* JEP 428: shut down first, then wait */
    (void)groupconc__scope_wait(scope, UINT64_MAX); /* every fork, also one that ignores its cancel */
    groupconc__mutex_lock(&scope->lock);
    scope->joined = true;
    groupconc__mutex_unlock(&scope->lock);
    groupconc__mutex_lock(&ex->scope_lock);
    for (ps = &ex->scopes; *ps != scope; ps = &(*ps)->next_open) {}
    *ps = scope->next_open;
    if (scope->nchildren > 0) /* left open by a fork whose body deferred: it outlives the parent */
        for (c = ex->scopes; c; c = c->next_open)
            if (c->parent == scope) c->parent = NULL;
    if (scope->parent) scope->parent->nchildren--;
    groupconc__mutex_unlock(&ex->scope_lock);
    /* off this thread's list: not always its top now, a callback during the close (of a fork it
       completed) may have opened one since */
    for (ps = &groupconc__scope_top; *ps != scope; ps = &(*ps)->owner_prev) {}
    *ps = scope->owner_prev;
    groupconc__scope_unref(scope);
    /* NOLINTEND(clang-analyzer-unix.Malloc) */
    return joined ? GROUPCONC_OK : GROUPCONC_ENOTJOINED;
}

GROUPCONC__PUBLIC int groupconc_scope_result(groupconc_scope *scope, size_t index,
                                             groupconc_result *out_result) {
    int rc = GROUPCONC_OK;
    if (!scope || !out_result) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    groupconc__mutex_lock(&scope->lock);
    if (index >= scope->nforks) rc = GROUPCONC_ENOTFOUND;
    else if (!scope->forks[index]->done) rc = GROUPCONC_ETIMEDOUT;
    else *out_result = scope->forks[index]->result;
    groupconc__mutex_unlock(&scope->lock);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_scope_first(groupconc_scope *scope, size_t *out_index) {
    int rc = GROUPCONC_OK;
    if (!scope || !out_index) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    groupconc__mutex_lock(&scope->lock);
    if (scope->has_first) *out_index = scope->first;
    else rc = GROUPCONC_ENOTFOUND;
    groupconc__mutex_unlock(&scope->lock);
    return rc;
}

GROUPCONC__PUBLIC int groupconc_scope_first_set(groupconc_scope *scope, size_t index) {
    int rc = GROUPCONC_OK;
    if (!scope) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(scope->ex);
    if (scope->policy != GROUPCONC_SCOPE_CUSTOM) return GROUPCONC_ESCOPE_POLICY; /* set at open */
    groupconc__mutex_lock(&scope->lock);
    if (index >= scope->nforks) {
        rc = GROUPCONC_ENOTFOUND;
    } else if (!scope->has_first) {
        scope->has_first = true;
        scope->first = index;
    }
    groupconc__mutex_unlock(&scope->lock);
    return rc;
}

GROUPCONC__PUBLIC size_t groupconc_scope_fork_count(groupconc_scope *scope) {
    size_t n;
    if (!scope) return 0;
    groupconc__mutex_lock(&scope->lock);
    n = scope->nforks;
    groupconc__mutex_unlock(&scope->lock);
    return n;
}

#endif /* !GROUPCONC_NO_SCOPES */

/* ==== module: fleet layer (the provider's protocol) ============================================ */
/* ---- the fleet layer: an external provider's lease, between concurrency and global running ----
   GROUPCONC__L_FLEET comes after the group's permits (global in-flight, bulkhead, concurrency) and
   before the global running cap: a task answered BUSY must not hold a global running permit, or one
   group whose fleet capacity sits in other processes could stall every group (global running is
   work-conserving). It is the asynchronous layer: a task there is QUEUED in ex->fleet.layer.waiters
   (oldest first, held == GROUPCONC__L_FLEET) like a waiter at any other layer, so unlink, sweeps,
   expiry, stats, the dump and destroy treat it alike; but its permit is asked for: a request goes
   out once the lock is released (from the batch's `asks`; ST_FLEET_REF while it is out), unless
   its group has tasks answered BUSY (B_FLEET_BUSY): then it queues behind them unasked, so the
   group's order holds. groupconc_fleet_notify asks again for a group's oldest BUSY task (for every
   BUSY task when it names no group): a provider notifies once per lease freed, and a freed lease
   costs one request. The answer GRANTED or OPEN hands the task the layer's permit (on to global
   running), REJECT completes it REJECTED (EREJECTED_FLEET), BUSY parks it (B_FLEET_BUSY); after
   REJECT or OPEN (no lease taken; also for a task taken meanwhile) the group's oldest BUSY task is
   asked, unless it is paused (groupconc__fleet_pass_on_locked). A task
   taken meanwhile (cancel, shutdown, its deadline) is no longer QUEUED when its answer comes: a
   lease granted then is given back at once. ST_FLEET_REF keeps the node alive while a request is
   out; ex->fleet.outstanding counts them, and destroy waits for it to reach 0. Without a provider
   the layer is passed at once (admit). */

/* Make t's request once the lock is released (the caller flushes b); t waits at the fleet layer,
   asked for now. Under ex->lock. */
GROUPCONC__FN void groupconc__fleet_ask_locked(groupconc_executor *ex, groupconc_task *t,
                                               groupconc__batch *b) {
    if (t->bits & GROUPCONC__B_FLEET_BUSY) {
        groupconc__gfleet(t->group)->busy--;
        t->bits &= (uint16_t)~GROUPCONC__B_FLEET_BUSY;
    }
    atomic_fetch_or_explicit(&t->state, GROUPCONC__ST_FLEET_REF, memory_order_relaxed); /* the lock orders it */
    ex->fleet.outstanding++;
    groupconc__fleet_of(t)->ask_next = NULL;
    if (b->asks_tail) groupconc__fleet_of(b->asks_tail)->ask_next = t;
    else b->asks = t;
    b->asks_tail = t;
}

/* t waits at the fleet layer unasked (answered BUSY, or its group paused) until a notify, the
   resume or a REJECT / OPEN of its group (groupconc__fleet_pass_on_locked) asks again. Under
   ex->lock. */
GROUPCONC__FN void groupconc__fleet_park_locked(groupconc_task *t) {
    GROUPCONC_ASSERT(!(t->bits & GROUPCONC__B_FLEET_BUSY));
    t->bits |= GROUPCONC__B_FLEET_BUSY;
    groupconc__gfleet(t->group)->busy++;
}

/* Ask again for the oldest task of g answered BUSY (if any). Under ex->lock. */
GROUPCONC__FN void groupconc__fleet_ask_next_locked(groupconc_executor *ex, groupconc__group *g,
                                                    groupconc__batch *b) {
    groupconc_task *t;
    if (groupconc__gfleet(g)->busy == 0) return;
    for (t = ex->fleet.layer.waiters.head; t && !(t->group == g && (t->bits & GROUPCONC__B_FLEET_BUSY)); t = t->next) {}
    GROUPCONC_ASSERT(t != NULL);
    groupconc__fleet_ask_locked(ex, t, b);
}

/* An answer that took no lease (REJECT, OPEN, or one for a task taken meanwhile): the lease a
   notify announced may still be free, so g's oldest task answered BUSY is asked, and takes the
   notify's flag with it (one freed lease, one request). Else that task would wait for a notify
   that a provider whose backend is down never sends (hunt helper-84). Not while g is paused: the
   resume asks. Under ex->lock. */
GROUPCONC__FN void groupconc__fleet_pass_on_locked(groupconc_executor *ex, groupconc__group *g,
                                                   groupconc__batch *b) {
    if (groupconc__gfleet(g)->busy == 0 || groupconc__paused(ex, g)) return;
    g->flags &= (uint8_t)~GROUPCONC__GF_NOTIFIED;
    groupconc__fleet_ask_next_locked(ex, g, b);
}

/* t holds its group's permits (up to concurrency) and has a provider: it waits at the fleet layer.
   Under ex->lock. */
GROUPCONC__FN void groupconc__fleet_enter_locked(groupconc_executor *ex, groupconc_task *t,
                                                 groupconc__batch *b) {
    groupconc__group_fleet *gf = groupconc__gfleet(t->group);
    if (!(t->bits & GROUPCONC__B_QUEUED_ONCE)) { /* a new waiter: the memory bound, as at the others */
        if (ex->policy.max_waiting != GROUPCONC_UNLIMITED &&
            groupconc__waiting_total(ex) >= (size_t)ex->policy.max_waiting) {
            groupconc__reject_locked(ex, t, GROUPCONC_EREJECTED_WAITING, b);
            return;
        }
        t->bits |= GROUPCONC__B_QUEUED_ONCE; /* the oldest-waiter age counts from here */
        t->start_ns = groupconc__coarse_now_ns();
    }
    groupconc__timer_add(ex, t); /* its queue deadline covers this wait too */
    gf->waiting++;
    groupconc__set_stage(t, GROUPCONC__QUEUED);
    groupconc__fifo_push(&ex->fleet.layer.waiters, t);
    if (gf->busy > 0 || groupconc__paused(ex, t->group)) groupconc__fleet_park_locked(t); /* paused: the resume asks */
    else groupconc__fleet_ask_locked(ex, t, b);
}

/* A pause lifted (g, or every group when g is NULL): a paused group asked nothing and held no lease
   (notifies found nothing to ask, a grant was given back), so ask again for each of its tasks
   answered BUSY, oldest first, as a notify naming no group does. Under ex->lock. */
GROUPCONC__FN void groupconc__fleet_resume_locked(groupconc_executor *ex, const groupconc__group *g,
                                                  groupconc__batch *b) {
    groupconc_task *t;
    if (!ex->policy.fleet.acquire) return;
    for (t = ex->fleet.layer.waiters.head; t; t = t->next) {
        if (!(t->bits & GROUPCONC__B_FLEET_BUSY) || (g && t->group != g) || groupconc__paused(ex, t->group))
            continue;
        groupconc__fleet_ask_locked(ex, t, b);
    }
}


GROUPCONC__PUBLIC int groupconc_fleet_answer(groupconc_fleet_request *request,
                                             groupconc_fleet_verdict verdict, uint64_t lease) {
    groupconc_task *t = (groupconc_task *)(void *)request;
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc_executor *ex;
    groupconc__group *g;
    const char *task_id = NULL;
    bool late = false, open = false, keep_ref = false, group_ref = false;
    groupconc__st old;
    if (!t || (int)verdict < (int)GROUPCONC_FLEET_GRANTED || (int)verdict > (int)GROUPCONC_FLEET_OPEN)
        return GROUPCONC_EINVAL;
    g = t->group;
    ex = g->exec;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    groupconc__exec_lock(ex);
    GROUPCONC_ASSERT(t->stage != GROUPCONC__QUEUED ||
                     (t->held == GROUPCONC__L_FLEET && !(t->bits & GROUPCONC__B_FLEET_BUSY)));
    if (t->stage != GROUPCONC__QUEUED) { /* taken meanwhile (cancel, shutdown, deadline) */
        late = verdict == GROUPCONC_FLEET_GRANTED;
        if (verdict == GROUPCONC_FLEET_REJECT || verdict == GROUPCONC_FLEET_OPEN) groupconc__fleet_pass_on_locked(ex, g, &b);
    } else if (verdict == GROUPCONC_FLEET_GRANTED && groupconc__paused(ex, g)) {
        /* paused meanwhile: a paused group holds no lease (it would keep the capacity from every
           other process for the whole pause). Give it back at once and wait as if answered BUSY:
           the resume asks again (groupconc__fleet_resume_locked). */
        late = true;
        groupconc__fleet_park_locked(t);
        atomic_fetch_and_explicit(&t->state, (groupconc__st)~GROUPCONC__ST_FLEET_REF,
                                  memory_order_relaxed); /* as BUSY below */
        keep_ref = true;
        /* t may be freed once the lock is dropped (an evict cancels it, its group goes with it):
           g->key must outlive the release below */
        atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed); /* the lock publishes it */
        group_ref = true;
    } else if (verdict == GROUPCONC_FLEET_BUSY && (g->flags & GROUPCONC__GF_NOTIFIED) &&
               !groupconc__paused(ex, g)) {
        /* a lease was freed while this request was out: ask again at once (a new request that
           keeps the provider's reference) */
        g->flags &= (uint8_t)~GROUPCONC__GF_NOTIFIED;
        groupconc__fleet_ask_locked(ex, t, &b);
        keep_ref = true;
    } else if (verdict == GROUPCONC_FLEET_BUSY) {
        g->flags &= (uint8_t)~GROUPCONC__GF_NOTIFIED; /* paused: the resume asks again */
        groupconc__fleet_park_locked(t);
        /* under the lock, before a notify can ask again; never the last reference (EXEC_REF) */
        atomic_fetch_and_explicit(&t->state, (groupconc__st)~GROUPCONC__ST_FLEET_REF, memory_order_relaxed);
        keep_ref = true;
    } else {
        if (verdict == GROUPCONC_FLEET_REJECT) {
            groupconc__unlink_waiting(ex, t);
            groupconc__reject_locked(ex, t, groupconc__layer_rejected(GROUPCONC__L_FLEET), &b);
        } else {
            if (verdict == GROUPCONC_FLEET_GRANTED) {
                groupconc__fleet_of(t)->lease = lease;
                t->bits |= GROUPCONC__B_LEASED;
            } else {
                ex->fleet.open++;
                open = ex->policy.listener != NULL;
                task_id = groupconc__task_id(t); /* under the lock: a worker may soon write its bits */
            }
            ex->fleet.layer.permits.used++;
            groupconc__hand(ex, t, GROUPCONC__L_FLEET, &b); /* on to global running, then ready */
        }
        groupconc__pump(ex, &b); /* first: a waiter t's refusal let in queues behind the BUSY ones */
        if (verdict != GROUPCONC_FLEET_GRANTED) groupconc__fleet_pass_on_locked(ex, g, &b); /* no lease taken */
        /* answered inside an acquire the housekeeper made (an expired task's permit took t to the
           fleet layer): t's refusal goes to a worker, as the pump's own do there */
        if (b.rejected.count && groupconc__in_keeper(ex) && !atomic_load_explicit(&ex->shutdown, memory_order_relaxed))
            groupconc__refusals_defer_tail_locked(ex, &b, 0, true);
        (void)groupconc__kick_locked(ex);
        groupconc__debug_check(ex, g);
    }
    groupconc__exec_unlock(ex);
    if (late) {
        groupconc__frame f;
        groupconc__frame_push(&f, ex, NULL);
        ex->policy.fleet.release(ex->policy.fleet.user_data, g->key, lease);
        groupconc__frame_pop(&f);
    }
    if (group_ref) groupconc__group_unref(g);
    if (open) /* t (its id) is alive: the provider's reference is still held */
        groupconc__emit(ex, NULL, GROUPCONC_EVENT_FLEET, g->key, task_id, GROUPCONC_EFLEET_OPEN, NULL);
    groupconc__flush_and_retire(ex, &b);
    /* Last: destroy waits for the count, and frees ex once it is 0. */
    groupconc__exec_lock(ex);
    old = keep_ref ? 0u
                   : atomic_fetch_and_explicit(&t->state, (groupconc__st)~GROUPCONC__ST_FLEET_REF,
                                               memory_order_acq_rel);
#if GROUPCONC__SHARDS > 1
    if (--ex->fleet.outstanding == 0) groupconc__idle_broadcast(ex);
#else
    if (--ex->fleet.outstanding == 0) groupconc__cond_broadcast(&ex->idle_cv);
#endif
    groupconc__exec_unlock(ex);
    if (!keep_ref && (old & GROUPCONC__ST_REFS) == GROUPCONC__ST_FLEET_REF) groupconc__task_free(t);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_fleet_notify(groupconc_executor *ex, const char *group) {
    groupconc__batch b = GROUPCONC__BATCH_INIT;
    groupconc__group *g = NULL;
    groupconc_task *t;
    uint64_t hash = 0;
    size_t len = 0;
    int rc;
    if (!ex) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex); /* before the executor's own state is read */
    if (!ex->policy.fleet.acquire) return GROUPCONC_EINVAL;
    if (group && (rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    groupconc__exec_lock(ex);
    if (group) g = groupconc__find_locked(ex, group, len, hash);
    if (g && groupconc__paused(ex, g)) {
        /* a paused group asks nothing (its resume asks for every task answered BUSY); a request
           still out may yet be answered BUSY, decided before this lease was freed: remember the
           notify, so that a BUSY answered after the resume asks again at once */
        if (groupconc__gfleet(g)->waiting > groupconc__gfleet(g)->busy) g->flags |= GROUPCONC__GF_NOTIFIED;
    } else if (g && groupconc__gfleet(g)->busy > 0) {
        groupconc__fleet_ask_next_locked(ex, g, &b);
    } else if (g && groupconc__gfleet(g)->waiting > 0) {
        g->flags |= GROUPCONC__GF_NOTIFIED; /* its requests are out: the next BUSY asks again */
    } else if (!group) {
        for (t = ex->fleet.layer.waiters.head; t; t = t->next) {
            if (!(t->bits & GROUPCONC__B_FLEET_BUSY))
                t->group->flags |= GROUPCONC__GF_NOTIFIED; /* its request is out: remembered, as above */
            else if (!groupconc__paused(ex, t->group))
                groupconc__fleet_ask_locked(ex, t, &b);
        }
    }
    groupconc__exec_unlock(ex);
    groupconc__fleet_ask(&b);
    return GROUPCONC_OK;
}

GROUPCONC__PUBLIC int groupconc_fleet_report(groupconc_executor *ex, const char *group, int reason) {
    uint64_t hash;
    size_t len;
    int rc;
    if (!ex || reason != GROUPCONC_EFLEET_RENEW) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex); /* before the executor's own state is read */
    if (!ex->policy.fleet.acquire) return GROUPCONC_EINVAL;
    if (group && (rc = groupconc__key_hash(group, &len, &hash)) != GROUPCONC_OK) return rc;
    groupconc__exec_lock_all(ex);
    ex->fleet.renew_failed++;
    groupconc__exec_unlock_all(ex);
    if (ex->policy.listener) groupconc__emit(ex, NULL, GROUPCONC_EVENT_FLEET, group, NULL, reason, NULL);
    return GROUPCONC_OK;
}

/* ==== module: the JSON dump ==================================================================== */
#ifndef GROUPCONC_NO_DUMP
/* One pass that writes into the caller's buffer while it fits and counts every byte, so that a
   buffer too small still learns the size it needs. Taken under ex->lock, then every stripe lock and
   scope_lock (and each scope's lock), so it is one consistent snapshot. */

typedef struct groupconc__out {
    char *buf;
    size_t size, len; /* len: bytes produced so far, fitting or not */
} groupconc__out;

GROUPCONC__FN void groupconc__put(groupconc__out *o, const char *s, size_t n) {
    if (o->len + 1 < o->size) { /* room for some of it, and the NUL */
        size_t room = o->size - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

GROUPCONC__FN void groupconc__puts(groupconc__out *o, const char *s) { groupconc__put(o, s, strlen(s)); }

GROUPCONC__FN void groupconc__put_int(groupconc__out *o, long long v) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", v);
    if (n > 0) groupconc__put(o, tmp, (size_t)n);
}

/* One byte of a JSON string: quote, backslash and control bytes escaped; any other as it is. */
GROUPCONC__FN void groupconc__put_byte(groupconc__out *o, unsigned char c) {
    char esc[8];
    switch (c) {
    case '"': groupconc__put(o, "\\\"", 2); break;
    case '\\': groupconc__put(o, "\\\\", 2); break;
    case '\n': groupconc__put(o, "\\n", 2); break;
    case '\r': groupconc__put(o, "\\r", 2); break;
    case '\t': groupconc__put(o, "\\t", 2); break;
    default:
        if (c < 0x20 || c == 0x7f) {
            (void)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
            groupconc__put(o, esc, 6);
        } else {
            groupconc__put(o, (const char *)&c, 1);
        }
    }
}

/* A JSON string of valid UTF-8 (the library's own strings; user strings go through
   groupconc__put_text): quotes, backslashes and control bytes escaped. NULL is null. */
GROUPCONC__FN void groupconc__put_str(groupconc__out *o, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    if (!s) {
        groupconc__puts(o, "null");
        return;
    }
    groupconc__put(o, "\"", 1);
    for (; *p; p++) groupconc__put_byte(o, *p);
    groupconc__put(o, "\"", 1);
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate,
   nothing above U+10FFFF), or 0 if there is none. */
GROUPCONC__FN size_t groupconc__utf8_len(const unsigned char *p) {
    unsigned c = p[0];
    size_t n, i;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c < 0x80) return 1;
    if (c < 0xc2 || c > 0xf4) return 0;
    if (c < 0xe0) {
        n = 2;
    } else if (c < 0xf0) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;      /* overlong */
        else if (c == 0xed) hi = 0x9f; /* surrogates */
    } else {
        n = 4;
        if (c == 0xf0) lo = 0x90;      /* overlong */
        else if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    }
    if (p[1] < lo || p[1] > hi) return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0; /* the NUL stops it here too */
    return n;
}

GROUPCONC__FN bool groupconc__utf8_valid(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n;
    while (*p) {
        if ((n = groupconc__utf8_len(p)) == 0) return false;
        p += n;
    }
    return true;
}

/* A user string (a key, a task id, a scope name: any bytes) as the member `name`, so that the dump
   is strict JSON (valid UTF-8) and two different strings never print alike: valid UTF-8 is
   written as text (groupconc__put_str). Anything else is written as text with each byte that
   starts no well-formed sequence replaced by U+FFFD (for reading only), and beside it a member
   `name`_hex with the exact bytes in lowercase hex: the member is there exactly when the string is
   not UTF-8. NULL is null. Preceded by a comma when `comma`. */
GROUPCONC__FN void groupconc__put_text(groupconc__out *o, const char *name, const char *s, bool comma) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p;
    size_t n;
    if (comma) groupconc__put(o, ",", 1);
    groupconc__put_str(o, name);
    groupconc__put(o, ":", 1);
    if (!s || groupconc__utf8_valid(s)) {
        groupconc__put_str(o, s);
        return;
    }
    groupconc__put(o, "\"", 1);
    for (p = (const unsigned char *)s; *p; p += n) {
        n = groupconc__utf8_len(p);
        if (n == 0) {
            groupconc__puts(o, "\\ufffd");
            n = 1;
        } else if (n == 1) {
            groupconc__put_byte(o, *p);
        } else {
            groupconc__put(o, (const char *)p, n);
        }
    }
    groupconc__puts(o, "\",");
    groupconc__put(o, "\"", 1);
    groupconc__puts(o, name); /* the library's own names: nothing to escape */
    groupconc__puts(o, "_hex\":\"");
    for (p = (const unsigned char *)s; *p; p++) {
        char two[2];
        two[0] = hex[*p >> 4];
        two[1] = hex[*p & 15];
        groupconc__put(o, two, 2);
    }
    groupconc__put(o, "\"", 1);
}

GROUPCONC__FN void groupconc__put_field(groupconc__out *o, const char *name, long long v, bool comma) {
    if (comma) groupconc__put(o, ",", 1);
    groupconc__put_str(o, name);
    groupconc__put(o, ":", 1);
    groupconc__put_int(o, v);
}

GROUPCONC__FN void groupconc__put_ufield(groupconc__out *o, const char *name, unsigned long long v) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", v);
    groupconc__put(o, ",", 1);
    groupconc__put_str(o, name);
    groupconc__put(o, ":", 1);
    if (n > 0) groupconc__put(o, tmp, (size_t)n);
}

/* One task of a queue: group, id, state, and its age where the lock protects its timestamp. */
GROUPCONC__FN void groupconc__dump_task(groupconc__out *o, const groupconc_task *t, const char *state,
                                        uint64_t now, bool *first, bool aged) {
    if (!*first) groupconc__put(o, ",", 1);
    *first = false;
    groupconc__put(o, "{", 1);
    groupconc__put_text(o, "group", t->group->key, false);
    groupconc__put_text(o, "id", groupconc__task_id(t), true);
    groupconc__puts(o, ",\"state\":");
    groupconc__put_str(o, state);
    groupconc__puts(o, ",\"age_ns\":");
    if (aged && (t->bits & GROUPCONC__B_QUEUED_ONCE) && now >= t->start_ns)
        groupconc__put_int(o, (long long)(now - t->start_ns));
    else
        groupconc__puts(o, "null");
    groupconc__put(o, "}", 1);
}

GROUPCONC__FN void groupconc__dump_fifo(groupconc__out *o, const groupconc__fifo *q, const char *state,
                                        uint64_t now, bool *first, bool aged) {
    const groupconc_task *t;
    for (t = q->head; t; t = t->next) groupconc__dump_task(o, t, state, now, first, aged);
}

/* Every stats field, by the lists (GROUPCONC_GROUP_STATS_FIELDS): kind S signed, U unsigned or bool. */
#define GROUPCONC__DUMP_S(o, name, v) groupconc__put_field(o, name, (long long)(v), true)
#define GROUPCONC__DUMP_U(o, name, v) groupconc__put_ufield(o, name, (unsigned long long)(v))
#define GROUPCONC__DUMP_EXECUTOR_FIELD(type, name, kind) GROUPCONC__DUMP_##kind(o, #name, es.name);
#define GROUPCONC__DUMP_GROUP_FIELD(type, name, kind) GROUPCONC__DUMP_##kind(o, #name, gs.name);

GROUPCONC__FN void groupconc__dump_locked(groupconc_executor *ex, groupconc__out *o) {
    uint64_t now = groupconc__coarse_now_ns();
    groupconc_executor_stats es;
    groupconc_group_stats gs;
#ifndef GROUPCONC_NO_SCOPES
    groupconc_scope *sc;
#endif
    const groupconc__group *g;
    const groupconc__shard *sh;
    bool first = true;
    size_t s = 0, i = 0;
    groupconc__puts(o, "{\"format\":\"groupconc-dump\",\"version\":1,\"library\":");
    groupconc__put_str(o, GROUPCONC_VERSION_STRING);
    groupconc__puts(o, ",\"executor\":{");
    groupconc__executor_stats_locked(ex, &es);
    groupconc__put_field(o, "max_threads", ex->policy.max_threads, false);
    groupconc__put_field(o, "deferred", (long long)groupconc__totals_locked(ex).deferred, true);
    GROUPCONC_EXECUTOR_STATS_FIELDS(GROUPCONC__DUMP_EXECUTOR_FIELD)
    groupconc__puts(o, "},\"groups\":[");
    groupconc__table_lock_all(ex);
    while ((g = groupconc__table_next(ex, &s, &i)) != NULL) {
        if (!first) groupconc__put(o, ",", 1);
        first = false;
        groupconc__put(o, "{", 1);
        groupconc__put_text(o, "key", g->key, false);
        groupconc__group_stats_locked(ex, g, groupconc__limits_find(ex, g->key), &gs);
        GROUPCONC_GROUP_STATS_FIELDS(GROUPCONC__DUMP_GROUP_FIELD)
        groupconc__put(o, "}", 1);
    }
    groupconc__puts(o, "],\"tasks\":[");
    first = true;
    groupconc__dump_fifo(o, &ex->global.waiters, "waiting_global", now, &first, true);
    for (s = 0, i = 0; (g = groupconc__table_next(ex, &s, &i)) != NULL;) {
        if (!g->queues) continue;
        groupconc__dump_fifo(o, &g->queues->bulkhead, "waiting_bulkhead", now, &first, true);
        groupconc__dump_fifo(o, &g->queues->conc, "waiting_concurrency", now, &first, true);
    }
    groupconc__table_unlock_all(ex);
    groupconc__dump_fifo(o, &ex->run_cap.waiters, "waiting_running", now, &first, true);
    groupconc__dump_fifo(o, &ex->fleet.layer.waiters, "waiting_fleet", now, &first, true);
    GROUPCONC__EACH_SHARD(ex, sh) groupconc__dump_fifo(o, &sh->ready, "ready", now, &first, true);
    GROUPCONC__EACH_SHARD(ex, sh) /* their times are their workers' */
        groupconc__dump_fifo(o, &sh->running, "running", now, &first, false);
    GROUPCONC__EACH_SHARD(ex, sh) groupconc__dump_fifo(o, &sh->deferred, "deferred", now, &first, false);
    GROUPCONC__EACH_SHARD(ex, sh) /* outside the queues, on their submitting threads */
        groupconc__dump_fifo(o, &sh->caller_running, "caller_runs", now, &first, false);
    GROUPCONC__EACH_SHARD(ex, sh) groupconc__dump_fifo(o, &sh->refused, "refused", now, &first, false);
    groupconc__puts(o, "],\"scopes\":[");
#ifndef GROUPCONC_NO_SCOPES /* without scopes the list is empty */
    first = true;
    groupconc__mutex_lock(&ex->scope_lock);
    for (sc = ex->scopes; sc; sc = sc->next_open) {
        char id[32];
        if (!first) groupconc__put(o, ",", 1);
        first = false;
        (void)snprintf(id, sizeof id, "%p", (const void *)sc);
        groupconc__puts(o, "{\"id\":");
        groupconc__put_str(o, id);
        groupconc__put_text(o, "name", sc->name, true);
        groupconc__puts(o, ",\"parent\":");
        if (sc->parent) {
            (void)snprintf(id, sizeof id, "%p", (const void *)sc->parent);
            groupconc__put_str(o, id);
        } else {
            groupconc__puts(o, "null");
        }
        groupconc__puts(o, ",\"policy\":");
        groupconc__put_str(o, groupconc_scope_policy_name(sc->policy));
        groupconc__mutex_lock(&sc->lock);
        groupconc__put_field(o, "shut_down", sc->shut_down ? 1 : 0, true);
        groupconc__put_field(o, "joined", sc->joined ? 1 : 0, true);
        groupconc__put_field(o, "age_ns", (long long)(now >= sc->opened_ns ? now - sc->opened_ns : 0), true);
        groupconc__put_field(o, "children", (long long)sc->nchildren, true);
        groupconc__puts(o, ",\"forks\":[");
        for (i = 0; i < sc->nforks; i++) {
            const groupconc__fork *fk = sc->forks[i];
            groupconc__puts(o, i ? ",{" : "{");
            groupconc__put_field(o, "index", (long long)i, false);
            groupconc__put_text(o, "group", fk->task ? fk->task->group->key : fk->group, true);
            groupconc__put_text(o, "id", fk->task_id, true); /* the caller's task id, or null */
            groupconc__puts(o, ",\"status\":");
            groupconc__put_str(o, fk->done ? groupconc_status_name(fk->result.status) : "PENDING");
            groupconc__put(o, "}", 1);
        }
        groupconc__mutex_unlock(&sc->lock);
        groupconc__puts(o, "]}");
    }
    groupconc__mutex_unlock(&ex->scope_lock);
#endif
    groupconc__puts(o, "]}\n");
}
#undef GROUPCONC__DUMP_GROUP_FIELD
#undef GROUPCONC__DUMP_EXECUTOR_FIELD
#undef GROUPCONC__DUMP_U
#undef GROUPCONC__DUMP_S

GROUPCONC__PUBLIC int groupconc_executor_dump(groupconc_executor *ex, char *buf, size_t size,
                                              size_t *out_needed) {
    groupconc__out o;
    groupconc__batch b = GROUPCONC__BATCH_INIT; /* fleet asks of the tasks it admitted */
    if (out_needed) *out_needed = 0;
    if (!ex || (!buf && size > 0)) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    o.buf = buf;
    o.size = size;
    o.len = 0;
    groupconc__lock_quiet_all(ex, &b); /* the inbox admitted: every task is in a queue */
    groupconc__dump_locked(ex, &o);
    groupconc__exec_unlock_all(ex);
    groupconc__fleet_ask(&b);
    if (size > 0) buf[o.len < size ? o.len : size - 1] = '\0';
    if (out_needed) *out_needed = o.len + 1;
    return o.len < size ? GROUPCONC_OK : GROUPCONC_ERANGE;
}

GROUPCONC__PUBLIC int groupconc_executor_dump_file(groupconc_executor *ex, FILE *out) {
    size_t need = 0, size;
    char *buf = NULL;
    int rc;
    if (!ex || !out) return GROUPCONC_EINVAL;
    GROUPCONC__NOT_IN_RESOLVER(ex);
    (void)groupconc_executor_dump(ex, NULL, 0, &need);
    for (;;) { /* it may grow between two snapshots: try until one fits */
        if (buf) GROUPCONC_FREE(buf);
        size = need + need / 4 + 64;
        buf = (char *)GROUPCONC_MALLOC(size);
        if (!buf) return GROUPCONC_ENOMEM;
        rc = groupconc_executor_dump(ex, buf, size, &need);
        if (rc != GROUPCONC_ERANGE) break;
    }
    if (fwrite(buf, 1, need - 1, out) != need - 1 || fflush(out) != 0) rc = GROUPCONC_EIO;
    GROUPCONC_FREE(buf);
    return rc;
}

#endif /* !GROUPCONC_NO_DUMP */

#endif /* !GROUPCONC__CONFIG_BAD */
#endif /* GROUPCONC_IMPLEMENTATION */

/*
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
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
