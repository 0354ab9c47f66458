/* impl.c - the implementation alone, as a user's "groupconc.c" would be. Linked into the C++
   check (cxx.cpp), and the translation unit that cppcheck and clang-tidy analyse in .ci/run. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
