// cxx.cpp - C++ sees the declarations only (extern "C", no C-only syntax) and links the
// implementation compiled as C in impl.c. Built as C++11 and C++17; and as C++11 with each
// GROUPCONC_NO_* switch (impl.c built the same way), the module's names undeclared (absent.h).
#include "groupconc.h"

#include "absent.h"

#include <cstdio>
#include <cstring>
#include <string>

#ifdef GROUPCONC_IMPLEMENTATION_INCLUDED
#error "the C++ check must not compile the implementation"
#endif

extern "C" {
static int cxx_task(groupconc_context *ctx, void **out_value, void *arg) {
    if (groupconc_context_is_cancelled(ctx)) return GROUPCONC_TASK_CANCELLED;
    *out_value = arg;
    return 0;
}
}

static int fail(const char *what, int rc) {
    std::fprintf(stderr, "cxx: %s: %s (%s)\n", what, groupconc_errname(rc), groupconc_strerror(rc));
    return 1;
}

int main() {
    static int value = 7;
    groupconc_policy policy = groupconc_policy_default();
    groupconc_executor *ex = nullptr;
    groupconc_task *task = nullptr;
    groupconc_result res;
    std::string version = groupconc_version();
    if (version != GROUPCONC_VERSION_STRING) {
        std::fprintf(stderr, "cxx: header %s, implementation %s\n", GROUPCONC_VERSION_STRING,
                     version.c_str());
        return 1;
    }
    int rc = groupconc_executor_create(&policy, &ex);
    if (rc != GROUPCONC_OK) return fail("executor_create", rc);
    rc = groupconc_submit(ex, "cxx", "cxx-1", cxx_task, &value, &task);
    if (rc != GROUPCONC_OK) return fail("submit", rc);
    rc = groupconc_task_wait(task, &res);
    if (rc != GROUPCONC_OK) return fail("task_wait", rc);
    if (res.status != GROUPCONC_STATUS_SUCCESS || res.value != &value ||
        std::string(res.group) != "cxx") {
        std::fprintf(stderr, "cxx: unexpected result %s\n", groupconc_status_name(res.status));
        return 1;
    }
    rc = groupconc_task_release(task);
    if (rc != GROUPCONC_OK) return fail("task_release", rc);
    rc = groupconc_executor_destroy(ex);
    if (rc != GROUPCONC_OK) return fail("executor_destroy", rc);
    std::printf("cxx: ok (groupconc %s, __cplusplus %ld)\n", groupconc_version(),
                static_cast<long>(__cplusplus));
    return 0;
}
