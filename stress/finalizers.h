/* finalizers.h — the interface between finalizers' managed and plain C halves. */
#ifndef CORRAL_STRESS_FINALIZERS_H
#define CORRAL_STRESS_FINALIZERS_H

#include <corral.h>

typedef struct child CORRAL_REF *childref;
struct child {
    corral_header header;
    long value;
};

/* Finalizable: its finalizer reads id, check and the child's value. */
typedef struct resource CORRAL_REF *resourceref;
struct resource {
    corral_header header;
    childref child;
    long id;
    long check; /* ~id */
};

enum { MAX_RESOURCES = 1 << 18 };

extern const corral_type resource_type;
extern const corral_type child_type;

/* Per id: how many times its finalizer ran (written by finalizers). */
CORRAL_LEAF long finalized_count(long id);
/* Finalizers that found the object or its child unreadable. */
CORRAL_LEAF long finalizer_corruptions(void);

#endif /* CORRAL_STRESS_FINALIZERS_H */
