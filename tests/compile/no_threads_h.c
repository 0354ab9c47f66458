/* no_threads_h.c - a platform without C11 <threads.h> (macOS, older libcs), simulated by building
   this TU with -D__STDC_NO_THREADS__: the header must pick the POSIX threads backend by itself
   and run a task. */
#ifndef __STDC_NO_THREADS__
#error "build this file with -D__STDC_NO_THREADS__"
#endif
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#if !defined(GROUPCONC_USE_PTHREADS)
#error "without <threads.h> the header must select the POSIX threads backend by itself"
#endif
#if defined(ONCE_FLAG_INIT) || defined(thread_local)
#error "<threads.h> was included although __STDC_NO_THREADS__ is defined"
#endif

#include "compile_check.h"

int main(void) {
    return compile_check_run("no_threads_h");
}
