/* twice.c - the header included once for its declarations, then again with
   GROUPCONC_IMPLEMENTATION: the second pass must add the implementation and nothing else
   (no redefinition of types, enums or macros). */
#include "groupconc.h"

#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#include "groupconc.h" /* a third time: a no-op */

#include "compile_check.h"

int main(void) {
    return compile_check_run("twice");
}
