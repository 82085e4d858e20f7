/* torture_main.c — runs one of GCC's C torture programs (its path in
 * TORTURE_PROGRAM) with the differential-test harness, for
 * scripts/gcc-torture: under corralc a second thread collects without pause
 * while the program runs; under plain clang it runs alone. The program's
 * own main becomes torture_main, called with no arguments or with
 * (argc, argv) as TORTURE_MAIN_ARGS says (0 or 2). A renamed main has no
 * implicit "return 0", so its result is ignored: the programs report a
 * wrong result by abort(). */
#include "diff_shim.h"

#define main torture_main
#include TORTURE_PROGRAM
#undef main

int main(void)
{
    diff_start();
#if TORTURE_MAIN_ARGS == 2
    char name[] = "torture";
    char *argv[] = {name, NULL};
    torture_main(1, argv);
#else
    torture_main();
#endif
    diff_stop();
    return 0;
}
