/* replay_schedule — a single-threaded managed program whose collections
 * come only from CORRAL_GC_STRESS: run twice with one CORRAL_GC_SEED it must
 * collect at the same allocations (stress_modes.t compares the CORRAL_LOG=
 * stress,gc lines). Objects of 1..3 KiB with CORRAL_TLAB_SIZE=4k make many
 * allocations take the slow path, where the stress schedule is consulted. */
#include <corral.h>
#include <stdio.h>

static const corral_type blob_type = CORRAL_DATA_ARRAY_TYPE("long[] blob", long);
static const corral_type window_type = CORRAL_REF_ARRAY_TYPE("blob[] window");

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    corral_ref window = corral_alloc_array(&window_type, 8);
    long checksum = 0;
    for (long i = 0; i < 3000; i++) {
        uint64_t length = 100 + (uint64_t)(i * 7919 % 300);
        corral_ref blob = corral_alloc_array(&blob_type, length);
        long CORRAL_REF *elements = (long CORRAL_REF *)((char CORRAL_REF *)blob + 16);
        elements[0] = i;
        ((corral_ref CORRAL_REF *)((char CORRAL_REF *)window + 16))[i % 8] = blob;
    }
    for (long i = 0; i < 8; i++) {
        corral_ref blob = ((corral_ref CORRAL_REF *)((char CORRAL_REF *)window + 16))[i];
        checksum += ((long CORRAL_REF *)((char CORRAL_REF *)blob + 16))[0];
    }
    corral_stats stats;
    corral_get_stats(&stats);
    printf("checksum %ld, %llu collections\n", checksum, (unsigned long long)stats.collections);
    return checksum == 2999L * 3000 / 2 - 2991L * 2992 / 2 ? 0 : 1;
}
