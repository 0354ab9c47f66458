/* no_module.c - the implementation with optional modules left out (meson builds it with
   -DGROUPCONC_NO_GATE, -DGROUPCONC_NO_SCOPES, -DGROUPCONC_NO_DUMP, and all three): it compiles
   warning-free and runs a task, and the modules' names are not declared (absent.h). */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "absent.h"
#include "compile_check.h"

int main(void) {
#if defined(GROUPCONC_NO_GATE) && defined(GROUPCONC_NO_SCOPES) && defined(GROUPCONC_NO_DUMP)
    return compile_check_run("no_modules");
#elif defined(GROUPCONC_NO_GATE)
    return compile_check_run("no_gate");
#elif defined(GROUPCONC_NO_SCOPES)
    return compile_check_run("no_scopes");
#elif defined(GROUPCONC_NO_DUMP)
    return compile_check_run("no_dump");
#else
#error "no_module.c: build it with a GROUPCONC_NO_* switch"
#endif
}
