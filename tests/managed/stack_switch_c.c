/* stack_switch_c.c — plain C for test_stack_switch.c: a switch routine of
 * an embedder's own (corral_stack_suspend around a swap the pass does not
 * see), a fiber whose start routine is C, and the broken switches the
 * runtime must name. */
#include <corral.h>
#include <pthread.h>
#include <ucontext.h>

/* An embedder's switch: its managed frames set aside, then swapped. */
void c_switch(ucontext_t *from, ucontext_t *to)
{
    corral_suspended_stack saved;
    corral_stack_suspend(&saved, from);
    swapcontext(from, to);
    corral_stack_resume(&saved);
}

/* Broken: swaps stacks without telling the runtime. */
void c_switch_unannounced(ucontext_t *from, ucontext_t *to)
{
    swapcontext(from, to);
}

/* A fiber whose start routine is C: it enters managed code itself. */
static void *(*c_fiber_body)(void *);
static void c_fiber_start(void)
{
    corral_call_managed(c_fiber_body, NULL);
}

void c_make_fiber(ucontext_t *context, void *stack, size_t size, ucontext_t *link,
                  void *(*body)(void *))
{
    c_fiber_body = body;
    getcontext(context);
    context->uc_stack.ss_sp = stack;
    context->uc_stack.ss_size = size;
    context->uc_link = link;
    makecontext(context, c_fiber_start, 0);
}

/* Broken: resumes a suspended stack on another thread, which must attach. */
typedef struct foreign_resume {
    ucontext_t *from, *to;
} foreign_resume;

static void *resume_elsewhere(void *argument)
{
    foreign_resume *resume = argument;
    corral_thread_attach();
    corral_enter_unmanaged();
    swapcontext(resume->from, resume->to);
    return NULL;
}

void c_resume_on_another_thread(ucontext_t *from, ucontext_t *to)
{
    foreign_resume resume = {from, to};
    pthread_t thread;
    pthread_create(&thread, NULL, resume_elsewhere, &resume);
    pthread_join(thread, NULL);
}
