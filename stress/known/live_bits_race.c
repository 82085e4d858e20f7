/* live_bits_race — known bug (found by alloc_loops under alloc:1,move-all):
 * with two or more GC workers, the tail of an object that starts in one
 * region and ends in the next can lose its live bits, so compaction slides
 * another object over it.
 *
 * compact.c set_live_in_region ORs the live bits of its own region's words
 * with a plain `bits[w] |= mask`, while the worker that owns the previous
 * region ORs the spilled tail of an object into the same word atomically:
 * a lost update. The array's last elements (fewer than 64 granules) then
 * read another object's header and fields.
 *
 *   corralc -O2 -o live_bits_race stress/known/live_bits_race.c
 *   CORRAL_GC_STRESS=move-all CORRAL_GC_THREADS=8 ./live_bits_race   # "bad elements: N" (most runs)
 *   CORRAL_GC_STRESS=move-all CORRAL_GC_THREADS=1 ./live_bits_race   # always 0
 */
#include <corral.h>
#include <stdio.h>

static const corral_type numbers_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);
static const corral_type ring_type = CORRAL_REF_ARRAY_TYPE("ring");

enum { RING = 512 };

static long value_of(long sequence, long i)
{
    return sequence * 1000003 + i;
}

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    corral_ref ring = corral_alloc_array(&ring_type, RING);
    long bad = 0;
    for (long sequence = 0; sequence < 20000; sequence++) {
        corral_ref CORRAL_REF *slots = (corral_ref CORRAL_REF *)((char CORRAL_REF *)ring + 16);
        long slot = sequence % RING;
        corral_ref old = slots[slot];
        if (old) {
            long length = (long)((corral_array_header CORRAL_REF *)old)->length;
            long CORRAL_REF *elements = (long CORRAL_REF *)((char CORRAL_REF *)old + 16);
            for (long i = 0; i < length; i++)
                bad += elements[i] != value_of(sequence - RING, i);
        }
        long length = 16 + (sequence * 7919) % 900; /* up to 7 KiB: many straddle regions */
        corral_ref array = corral_alloc_array(&numbers_type, (uint64_t)length);
        long CORRAL_REF *elements = (long CORRAL_REF *)((char CORRAL_REF *)array + 16);
        for (long i = 0; i < length; i++)
            elements[i] = value_of(sequence, i);
        ((corral_ref CORRAL_REF *)((char CORRAL_REF *)ring + 16))[slot] = array;
        if (sequence % 4 == 0)
            corral_collect();
    }
    printf("bad elements: %ld\n", bad);
    return bad != 0;
}
