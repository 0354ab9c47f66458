/* pthreads.c - the POSIX threads backend selected explicitly (built with -DGROUPCONC_USE_PTHREADS). */
#ifndef GROUPCONC_USE_PTHREADS
#error "build this file with -DGROUPCONC_USE_PTHREADS"
#endif
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "compile_check.h"

int main(void) {
    return compile_check_run("pthreads");
}
