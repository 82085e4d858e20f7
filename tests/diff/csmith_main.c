/* csmith_main.c — runs a Csmith program (its path in DIFF_CSMITH_PROGRAM)
 * with the differential-test harness: under corralc a second thread collects
 * without pause while the program runs; under plain clang it runs alone.
 * The program's own main becomes csmith_main; its output is the checksum. */
#include "diff_shim.h"

#define main csmith_main
#include DIFF_CSMITH_PROGRAM
#undef main

int main(void)
{
    char name[] = "csmith";
    char *argv[] = {name, NULL};
    diff_start();
    int status = csmith_main(1, argv);
    diff_stop();
    return status;
}
