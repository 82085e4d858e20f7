/* Plain C (compiled with cc, not corralc): calls from calls_c.ll reach it
 * through GC-transition wrappers. It holds no references. */
long plain_mix(long i);
long plain_add(long sum, long value);
long plain_expected(long n);

long plain_mix(long i)
{
    return (i * 2654435761L) % 1000003;
}

long plain_add(long sum, long value)
{
    return sum + value;
}

long plain_expected(long n)
{
    long sum = 0;
    for (long i = 1; i <= n; i++)
        sum += plain_mix(i);
    return sum;
}
