#include <corral.h>
typedef struct rec CORRAL_REF *recref;
struct rec { corral_header header; recref next; long a, b; };
static const uint32_t refs[] = {offsetof(struct rec, next)};
static const corral_type rec_type = CORRAL_STRUCT_TYPE("rec", struct rec, refs);
static const corral_type longs = CORRAL_DATA_ARRAY_TYPE("long[]", long);
long f(long n) {
    recref r = corral_alloc(&rec_type);
    long CORRAL_REF *p = &r->b;
    corral_ref arr = corral_alloc_array(&longs, n);
    long CORRAL_REF *e = (long CORRAL_REF *)((char CORRAL_REF *)arr + 16);
    for (long i = 0; i < n; i++) { e[i] = i; if (i % 8 == 0) corral_collect(); }
    *p = e[n - 1];
    return r->b + *p;
}
