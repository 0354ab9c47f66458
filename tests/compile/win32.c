/* win32.c - Windows without a backend asked for (built with no backend macro and without
   -pthread): the header must pick the Win32 backend by itself, include neither <pthread.h> nor
   <threads.h>, link without winpthreads, and run a task. */
#if !defined(_WIN32)
#error "build this file for a Windows target"
#endif
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#if !defined(GROUPCONC_USE_WIN32) || defined(GROUPCONC_USE_PTHREADS)
#error "on _WIN32 the header must select the Win32 backend by itself"
#endif
#if defined(WIN_PTHREADS_H) || defined(ONCE_FLAG_INIT)
#error "the Win32 backend included <pthread.h> or <threads.h>"
#endif

#include "compile_check.h"

int main(void) {
    return compile_check_run("win32");
}
