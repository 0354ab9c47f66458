/* after_stdio.c - a strict ISO TU (-std=c11, no feature macro) that includes a system header
   before the implementation (LIMITATIONS): glibc then declares no POSIX.1-2001 function, and the
   header must call none (readlink, for the pool's look at /proc, was called undeclared: an error
   with -Werror=implicit-function-declaration, GCC 14's and clang 16's default). Built without
   -pthread's _REENTRANT, which changes what glibc declares. */
#undef _POSIX_C_SOURCE /* the build's own -D, which would hide the case */
#include <stdio.h>
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "compile_check.h"

int main(void) {
    return compile_check_run("after_stdio");
}
