/* handles_c.c — an interpreter in plain C: references only in handles
 * (updated by the collector), corral_poll() in its loop, allocation through
 * the inline fast path, explicit collections, a global root. */
#include <stdio.h>

#include "handles.h"

static const uint32_t cell_refs[] = {offsetof(struct cell, next), offsetof(struct cell, other)};
const corral_type cell_type = CORRAL_STRUCT_TYPE("cell", struct cell, cell_refs);

corral_ref c_global;

static unsigned long next_random(unsigned long *state)
{
    *state = *state * 6364136223846793005ul + 1442695040888963407ul;
    return *state >> 33;
}

/* Registers: the interpreter's values, each a handle. */
enum { REGISTERS = 8 };

long c_interpret(long steps, unsigned long seed)
{
    corral_leave_unmanaged();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle registers[REGISTERS];
    long expected[REGISTERS]; /* sum of values on each register's list */
    for (int r = 0; r < REGISTERS; r++) {
        registers[r] = corral_handle_new(NULL);
        expected[r] = 0;
    }
    long wrong = 0;
    for (long step = 0; step < steps; step++) {
        int r = (int)(next_random(&seed) % REGISTERS);
        int s = (int)(next_random(&seed) % REGISTERS);
        switch (next_random(&seed) % 6) {
        case 0:
        case 1: { /* push: a raw reference lives only until the next GC point */
            struct cell *c = corral_alloc(&cell_type);
            c->value = step;
            c->next = *registers[r];
            *registers[r] = c;
            expected[r] += step;
            break;
        }
        case 2: /* pop */
            if (*registers[r]) {
                struct cell *c = *registers[r];
                expected[r] -= c->value;
                *registers[r] = c->next;
            }
            break;
        case 3: { /* a nested scope with a temporary handle */
            corral_handle_scope inner = corral_handle_scope_open();
            corral_handle temporary = corral_handle_new(corral_alloc(&cell_type));
            ((struct cell *)*temporary)->other = *registers[s];
            corral_alloc(&cell_type); /* may collect: temporary is updated */
            if (*registers[s] && ((struct cell *)*temporary)->other != *registers[s])
                wrong++;
            corral_handle_scope_close(inner);
            break;
        }
        case 4: { /* walk and check a list */
            long sum = 0;
            for (struct cell *c = *registers[r]; c; c = c->next)
                sum += c->value;
            if (sum != expected[r]) {
                fprintf(stderr, "torture: handles: register %d holds %ld, expected %ld\n", r,
                        sum, expected[r]);
                wrong++;
            }
            break;
        }
        default:
            if (step % 64 == 5)
                corral_collect();
            else if (step % 16 == 0)
                c_global = *registers[r];
            break;
        }
        corral_poll(); /* an interpreter's safepoint */
    }
    for (int r = 0; r < REGISTERS; r++) {
        long sum = 0;
        for (struct cell *c = *registers[r]; c; c = c->next)
            sum += c->value;
        if (sum != expected[r])
            wrong++;
    }
    corral_handle_scope_close(scope);
    corral_enter_unmanaged();
    return wrong;
}
