/* static_b.c - the second GROUPCONC_STATIC copy (see static_a.c). */
#define GROUPCONC_STATIC
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include "compile_check.h"

int static_b_run(void);

int static_b_run(void) {
    return compile_check_run("static_b");
}
