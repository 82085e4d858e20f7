/* Plain C (compiled normally, never by corral-opt): the far side of the
 * transitions the ttsp benchmark times. */
#include <stdint.h>

/* Reached through a GC-transition wrapper. */
uint64_t unmanaged_nop(uint64_t x)
{
    __asm__ volatile("" : "+r"(x)); /* keep the call and its argument */
    return x + 1;
}

/* Declared CORRAL_LEAF by the caller: a direct call, no transition. */
uint64_t leaf_nop(uint64_t x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}
