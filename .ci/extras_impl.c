/* extras_impl.c - the extras' implementations in one translation unit, for cppcheck (section
   cppcheck of .ci/run); groupconc.h's own implementation is analysed by itself (tests/compile/
   impl.c). Not built: it needs hiredis's headers, which cppcheck does not read. */
#define GROUPCONC_REDIS_IMPLEMENTATION
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION
#define GROUPCONC_TRACE_IMPLEMENTATION
#include "groupconc.h"
#include "extras/groupconc_redis.h"
#include "extras/groupconc_prometheus.h"
#include "extras/groupconc_trace.h"
