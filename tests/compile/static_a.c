/* static_a.c + static_b.c - two GROUPCONC_STATIC copies of the implementation linked into one
   program (stb's stb_static.c). Each TU has its own private copy: no symbol clashes at link time,
   no unused-function warnings, and each copy runs a task. This file has main(). */
#define GROUPCONC_STATIC
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "compile_check.h"

int static_b_run(void); /* in static_b.c */

int main(void) {
    int failed = compile_check_run("static_a");
    failed |= static_b_run();
    return failed;
}
