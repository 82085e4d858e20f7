/* finding (fixed): any non-empty inline assembly in managed code: corral-opt fails ("Inline asm not supported by this streamer"). */
#include "diff_helpers.h"

int main(void)
{
    uint64_t x = 40;
    diff_start();
    __asm__("addq $2, %0" : "+r"(x));
    diff_stop();
    printf("checksum = %llu\n", (unsigned long long)x);
    return 0;
}
