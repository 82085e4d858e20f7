/* Signal handlers in managed code (polls/signal_handlers.c), installed with
 * signal() and with sigaction() (sa_sigaction, the struct on the stack),
 * fired by a 200-microsecond timer while the program allocates: with a
 * collection at every allocation most signals land while this thread is
 * inside a collection (PARKED), others in managed code or in usleep
 * (UNMANAGED). Each handler counts and writes a byte to a non-blocking
 * pipe (a C call, made directly). Until 2026-11-29 the handler's own poll
 * stopped the program at the first signal that landed in a collection: "a
 * safepoint poll on thread 1 while it is PARKED". Built with corralc at
 * -O0..-O3. */
#include <corral.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "corral_test.h"
#include "trees.h"

static volatile sig_atomic_t ticks, written;
static int pipe_ends[2];

static void on_alarm(int signal)
{
    (void)signal;
    ticks++;
    if (write(pipe_ends[1], "t", 1) == 1)
        written++;
}

static void on_alarm_with_info(int signal, siginfo_t *info, void *context)
{
    (void)context;
    ticks += info->si_signo == signal;
    if (write(pipe_ends[1], "i", 1) == 1)
        written++;
}

static void start_timer(long microseconds)
{
    if (pipe(pipe_ends) != 0 || fcntl(pipe_ends[1], F_SETFL, O_NONBLOCK) != 0)
        bail_out("pipe for the handlers");
    struct itimerval every = {{0, microseconds}, {0, microseconds}};
    setitimer(ITIMER_REAL, &every, NULL);
}

static void stop_timer(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
}

/* Lists built and summed while the signals land; returns how many sums
 * were wrong. */
static long allocate_under_signals(long rounds)
{
    long wrong = 0;
    for (long round = 0; round < rounds; round++) {
        noderef list = NULL;
        long expected = 0;
        for (long i = 0; i < 50; i++) {
            noderef n = new_node(i); /* collects: every object moves */
            n->left = list;
            list = n;
            expected += i;
        }
        if (round % 8 == 0)
            usleep(50); /* UNMANAGED: a signal may land in C */
        long sum = 0;
        for (noderef k = list; k; k = k->left)
            sum += k->value;
        wrong += sum != expected;
    }
    return wrong;
}

static void with_signal(void *arg)
{
    test_start(arg, true);
    signal(SIGALRM, on_alarm);
    start_timer(200);
    long wrong = allocate_under_signals(tap_work(400));
    stop_timer();
    is_int(wrong, 0, "lists built under a collection at every allocation add up");
    ok(ticks > 10 && written > 0, "signal(): the handler ran %d times, wrote %d bytes", (int)ticks,
       (int)written);
}

static void with_sigaction(void *arg)
{
    test_start(arg, true);
    struct sigaction action = {0};
    action.sa_sigaction = on_alarm_with_info;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    start_timer(200);
    long wrong = allocate_under_signals(tap_work(400));
    stop_timer();
    is_int(wrong, 0, "lists built under a collection at every allocation add up");
    ok(ticks > 10 && written > 0, "sigaction(), SA_SIGINFO: the handler ran %d times, wrote %d "
       "bytes", (int)ticks, (int)written);
}

static void *mutator(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)allocate_under_signals(tap_work(150));
}

static void on_three_threads(void *arg)
{
    test_start(arg, true);
    signal(SIGALRM, on_alarm);
    start_timer(200);
    pthread_t threads[3];
    for (int t = 0; t < 3; t++)
        pthread_create(&threads[t], NULL, mutator, NULL);
    long wrong = allocate_under_signals(tap_work(150));
    for (int t = 0; t < 3; t++) {
        void *result;
        pthread_join(threads[t], &result);
        wrong += (long)(intptr_t)result;
    }
    stop_timer();
    is_int(wrong, 0, "4 threads' lists add up");
    ok(ticks > 10, "the handler ran %d times, on whichever thread the signal found",
       (int)ticks);
}

int main(void)
{
    plan(3);
    tap_subtest("signal() handler", 120, with_signal,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison");
    tap_subtest("sigaction() handler", 120, with_sigaction,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:1,mixed:4,move-all,poison");
    tap_subtest("signals on 4 threads", 120, on_three_threads,
                "CORRAL_HEAP_MIN=1M CORRAL_GC_STRESS=alloc:random:4,move-all,poison");
    return done_testing();
}
