/* absent.h - the modules left out (GROUPCONC_NO_GATE, GROUPCONC_NO_SCOPES, GROUPCONC_NO_DUMP)
   declare nothing: each of their public names is declared here as something else, which does not
   compile where groupconc.h declared it (a type of another kind, an object for a function, an
   enumerator twice). Include after groupconc.h, from C or C++; without the switches it is empty. */
#ifndef COMPILE_ABSENT_H
#define COMPILE_ABSENT_H

#ifdef GROUPCONC_NO_GATE
typedef int groupconc_gate, groupconc_permit, groupconc_release_kind, groupconc_gate_event_type,
    groupconc_gate_event, groupconc_gate_listener_fn, groupconc_gate_config, groupconc_gate_stats;
enum absent_gate_names {
    GROUPCONC_RELEASE_SUCCESS, GROUPCONC_RELEASE_FAILURE, GROUPCONC_RELEASE_CANCELLED,
    GROUPCONC_GATE_ADMITTED, GROUPCONC_GATE_REJECTED, GROUPCONC_GATE_RELEASED
};
extern int groupconc_gate_create, groupconc_gate_destroy, groupconc_gate_try_acquire,
    groupconc_permit_release, groupconc_gate_stats_get, groupconc_release_kind_name,
    groupconc_gate_event_type_name;
#endif

#ifdef GROUPCONC_NO_SCOPES
typedef int groupconc_scope, groupconc_scope_policy, groupconc_scope_fn, groupconc_scope_config;
enum absent_scope_names {
    GROUPCONC_SCOPE_COLLECT_ALL, GROUPCONC_SCOPE_SHUTDOWN_ON_FAILURE, GROUPCONC_SCOPE_SHUTDOWN_ON_SUCCESS,
    GROUPCONC_SCOPE_CUSTOM
};
extern int groupconc_scope_open, groupconc_scope_fork, groupconc_scope_join, groupconc_scope_join_for,
    groupconc_scope_shutdown, groupconc_scope_close, groupconc_scope_result, groupconc_scope_first,
    groupconc_scope_first_set, groupconc_scope_fork_count, groupconc_scope_policy_name;
#endif

#ifdef GROUPCONC_NO_DUMP
extern int groupconc_executor_dump, groupconc_executor_dump_file;
#endif

#endif /* COMPILE_ABSENT_H */
