/* call_pins.c — pins that compiled code takes for the duration of one call.
 *
 * The pass (polls/varargs_pins.c) brackets a call that passes references
 * through "..." with these: the copies in the va_list save area are invisible
 * to stackmaps, so their objects must neither move nor die until the call
 * returns. Null is common there (an optional argument) and pins nothing.
 */
#include <corral.h>
#include <corral/jit.h>

void corral_pin_for_call(corral_ref object)
{
    if (object)
        corral_pin(object);
}

void corral_unpin_after_call(corral_ref object)
{
    if (object)
        corral_unpin(object);
}
