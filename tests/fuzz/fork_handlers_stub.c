/* fork_handlers_stub.c — fuzz_stackmap links the stackmap registry and its
 * liburcu guard (threads/rcu_fork.c) alone, without the thread registry and
 * coordinator that threads/fork.c's handlers stop and restart. The fuzzer
 * runs on one thread and never forks: there is nothing to install. */
#include "fork.h"

void fork_handlers_install(void)
{
}
