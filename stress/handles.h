/* handles.h — the interface between handles' managed and plain C halves. */
#ifndef CORRAL_STRESS_HANDLES_H
#define CORRAL_STRESS_HANDLES_H

#include <corral.h>

typedef struct cell CORRAL_REF *cellref;
struct cell {
    corral_header header;
    cellref next;
    cellref other;
    long value;
};

extern const corral_type cell_type;

/* Plain C, entered UNMANAGED (an unmanaged call from managed code): becomes
 * MANAGED, runs a small interpreter that holds every reference in handles,
 * polls and collects, and returns UNMANAGED. Returns 0, or the number of
 * wrong values it found. seed drives its choices. */
long c_interpret(long steps, unsigned long seed);
/* Plain C: a global root the C side writes and managed code reads. */
extern corral_ref c_global;

#endif /* CORRAL_STRESS_HANDLES_H */
