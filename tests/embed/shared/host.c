/* host.c — a plain C program linked with libcorral.so that runs managed
 * code from a corralc -shared library: loaded with dlopen (argv[1]), or,
 * built with -DHOST_LINKED, linked at start-up, where the library's
 * constructor registers its stackmaps before corral_init.
 * Prints "wrong W collections N moved M". */
#include <corral.h>
#include <dlfcn.h>
#include <stdio.h>

void *managed_library_run(void *rounds);

static void *(*find_run(int argc, char **argv))(void *)
{
#ifdef HOST_LINKED
    (void)argc;
    (void)argv;
    return managed_library_run;
#else
    void *library = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (!library) {
        fprintf(stderr, "dlopen: %s\n", argc > 1 ? dlerror() : "no library named");
        return NULL;
    }
    return (void *(*)(void *))dlsym(library, "managed_library_run");
#endif
}

int main(int argc, char **argv)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    void *(*run)(void *) = find_run(argc, argv);
    if (!run)
        return 2;
    corral_enter_unmanaged();
    long wrong = (long)corral_call_managed(run, (void *)20);
    corral_leave_unmanaged();
    corral_stats stats;
    corral_get_stats(&stats);
    printf("wrong %ld collections %llu moved %llu\n", wrong,
           (unsigned long long)stats.collections, (unsigned long long)stats.bytes_moved);
    corral_thread_detach();
    return 0;
}
