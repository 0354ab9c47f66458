/* std.c - the implementation compiled in another configuration and run: meson builds it with
   c_std=c17, with c_std=c2x, with -DNDEBUG (assertions and GROUPCONC_DEBUG off), and with
   -DGROUPCONC__WORDLOCK=0 (the stripes on the platform mutex; the word lock is the default). */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "compile_check.h"

int main(void) {
#ifdef NDEBUG
    return compile_check_run("ndebug");
#else
    return compile_check_run("std");
#endif
}
