// Plain C++ (compiled by the C++ compiler, not by corralc) that invoke.ll
// invokes through a GC-transition wrapper: it throws i, a long, when i is a
// multiple of 3, and returns 2i otherwise. It holds no references.
extern "C" long gcroot_throw_if(long i);

extern "C" long gcroot_throw_if(long i)
{
    if (i % 3 == 0)
        throw i;
    return 2 * i;
}
