/* gcroot_gen.c — random llvm.gcroot frontend modules, and what they print.
 *
 *   gcroot-gen [--seed=N] [-O0|-O1|-O2|-O3] [-o FILE]   write a module
 *   gcroot-gen [--seed=N] --expect                      print its expected output
 *
 * From a seed (printed on stderr; from the clock when not given) it builds a
 * program in the style of LLVM's "Accurate Garbage Collection with LLVM":
 * object types with reference and integer fields, functions with
 * gc "shadow-stack" whose references all live in allocas registered with
 * @llvm.gcroot in the entry block (metadata null or a constant), reloaded
 * from their slot at every use, so after every call; allocation through
 * @corral_alloc_slow; loops, ifs, calls between the functions (backward
 * calls, recursion included, only while a depth parameter is above zero),
 * reference stores into fields, lists, call-free list walks, calls of
 * unmanaged C (gcgen_unmanaged_mix, in gen_driver.c). gcgen_run returns a
 * checksum of its integers and of the object graph its roots reach (per-type
 * checksum functions, recursive to a bounded depth); gcgen_thread runs it
 * for the driver. The module goes through LLVM-C only: built with the
 * builder, verified, optimised at -ON by default<ON> as a frontend would.
 *
 * The same program is interpreted here over a model heap: --expect prints
 * the line the driver prints when every thread and round got the right
 * checksum. A program over the work budget (below) is drawn again
 * from the same random stream, so a seed always names one program.
 * scripts/difftest --generator=gcroot builds and runs them (docs/gcroot.md).
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    MAX_TYPES = 5,
    MAX_REF_FIELDS = 4,
    MAX_INT_FIELDS = 3,
    MAX_FUNCTIONS = 7,          /* generated functions besides gcgen_run */
    MAX_INT_PARAMS = 2,
    MAX_REF_PARAMS = 3,
    MAX_VARS = 48,
    MAX_NESTING = 2,            /* ifs and loops inside ifs and loops */
    MAX_BLOCK = 16,             /* statements in a block */
    MID_CHECK_DEPTH = 2,        /* checksum statements in the program */
    FINAL_CHECK_DEPTH = 4,      /* gcgen_run's checksum of its roots */
    /* The work budget of one gcgen_run: */
    MAX_STEPS = 200000,         /* statements, iterations, calls, checksum nodes */
    MAX_OBJECTS = 6000,         /* allocations */
    MIN_OBJECTS = 300,          /* fewer would hardly collect */
    MAX_UNMANAGED_CALLS = 150,  /* CORRAL_GC_STRESS=transitions collects twice per call */
    MAX_ATTEMPTS = 10000,       /* programs drawn for one seed before giving up */
};

#define MIX_MULTIPLIER UINT64_C(0x9E3779B97F4A7C15)
#define NULL_CHECKSUM UINT64_C(0x6E756C6C)

/* Bad arguments, and generator bugs (a module that does not verify). */
static _Noreturn void fatal(const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fprintf(stderr, "gcroot-gen: %s\n", message);
    exit(1);
}

/* ---- the random stream (splitmix64) */

static uint64_t random_state;

static uint64_t random_word(void)
{
    uint64_t z = (random_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int below(int n)
{
    return (int)(random_word() % (uint64_t)n);
}

static int chance(int percent)
{
    return below(100) < percent;
}

/* ---- the program */

typedef struct object_type {
    int ref_count, int_count;
    int ref_target[MAX_REF_FIELDS]; /* the type of each reference field */
} object_type;

typedef enum var_kind { VAR_INT, VAR_REF } var_kind;

typedef struct variable {
    var_kind kind;
    int type;  /* VAR_REF: its object type */
    int fixed; /* depth and counters: statements never assign them */
} variable;

typedef enum expr_kind {
    EXPR_CONST, EXPR_VAR, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_XOR, EXPR_AND, EXPR_OR,
    EXPR_SHL, EXPR_LSHR,
} expr_kind;

typedef struct expr {
    expr_kind kind;
    uint64_t value; /* EXPR_CONST; the shift amount of EXPR_SHL and EXPR_LSHR */
    int var;        /* EXPR_VAR */
    struct expr *left, *right;
} expr;

typedef enum stmt_kind {
    STMT_ALLOC,     /* target = new type { inits } */
    STMT_PUSH,      /* target = new list type { inits }; target.next = object; object = target */
    STMT_SET_INT,   /* if (object) object.ints[field] = value */
    STMT_GET_INT,   /* target = object ? object.ints[field] : value */
    STMT_SET_REF,   /* if (object) object.refs[field] = source (-1: null) */
    STMT_GET_REF,   /* target = object ? object.refs[field] : null */
    STMT_COPY_REF,  /* target = source */
    STMT_NULL_REF,  /* target = null */
    STMT_ASSIGN,    /* target = value */
    STMT_CALL,      /* target = callee(depth or depth - 1, int_args, ref_args) */
    STMT_UNMANAGED, /* target = gcgen_unmanaged_mix(value, value2) */
    STMT_CHECKSUM,  /* target = mix(target, checksum(object, MID_CHECK_DEPTH)) */
    STMT_IF,        /* if (condition) then_block else else_block */
    STMT_LOOP,      /* for (counter = 0; counter < trips; counter++) then_block */
    STMT_WALK,      /* target = object; for (counter = 0; counter < trips && target; counter++)
                       { accumulator = mix(accumulator, ints[0] or counter); target = target.next } */
} stmt_kind;

typedef enum cond_kind { COND_ODD, COND_NONNULL, COND_LESS } cond_kind;

struct statement;
typedef struct block {
    struct statement *items[MAX_BLOCK];
    int count;
} block;

typedef struct statement {
    stmt_kind kind;
    int target, object, source, field, type;
    expr *value, *value2;
    expr *inits[MAX_INT_FIELDS];
    int callee;
    expr *int_args[MAX_INT_PARAMS];
    int ref_args[MAX_REF_PARAMS]; /* a variable, or -1 for null */
    int trips, counter, accumulator;
    cond_kind cond;               /* COND_NONNULL tests object */
    block then_block, else_block;
} statement;

/* vars[0] is depth (a parameter, a constant in gcgen_run), then the integer
 * parameters, the reference parameters, then locals. */
typedef struct function {
    char name[32];
    int returns_ref, return_type, return_var;
    int int_params, ref_params;
    int ref_param_type[MAX_REF_PARAMS];
    variable vars[MAX_VARS];
    int var_count;
    int null_stores; /* the frontend stores null into its ref locals at entry */
    block body;
} function;

typedef struct program {
    int type_count;
    object_type types[MAX_TYPES];
    int list_type, list_field; /* a type with a field of its own type */
    int function_count;        /* the generated functions; gcgen_run follows them */
    function functions[MAX_FUNCTIONS + 1];
    uint64_t run_depth;        /* gcgen_run's depth */
} program;

/* Every statement and expression of one attempt; freed when it fails. */
typedef struct arena {
    void **items;
    size_t count, capacity;
} arena;

static arena nodes;

static void *arena_new(size_t size)
{
    if (nodes.count == nodes.capacity) {
        nodes.capacity = nodes.capacity ? 2 * nodes.capacity : 1024;
        nodes.items = realloc(nodes.items, nodes.capacity * sizeof *nodes.items);
        if (!nodes.items)
            fatal("out of memory");
    }
    void *item = calloc(1, size);
    if (!item)
        fatal("out of memory");
    return nodes.items[nodes.count++] = item;
}

static void arena_free(void)
{
    for (size_t i = 0; i < nodes.count; i++)
        free(nodes.items[i]);
    nodes.count = 0;
}

/* ---- generation */

static program *prog; /* the program being generated */

static int add_var(function *f, var_kind kind, int type, int fixed)
{
    if (f->var_count == MAX_VARS)
        return -1;
    f->vars[f->var_count] = (variable){kind, type, fixed};
    return f->var_count++;
}

/* A random variable of kind (and type, for references; -1 any), assignable
 * unless reading; -1 when there is none. */
static int pick_var(const function *f, var_kind kind, int type, int assignable)
{
    int found[MAX_VARS], count = 0;
    for (int v = 0; v < f->var_count; v++)
        if (f->vars[v].kind == kind && (kind == VAR_INT || type < 0 || f->vars[v].type == type) &&
            (!assignable || !f->vars[v].fixed))
            found[count++] = v;
    return count ? found[below(count)] : -1;
}

/* A reference variable whose type has reference (want_refs) or integer fields. */
static int pick_owner(const function *f, int want_refs)
{
    int found[MAX_VARS], count = 0;
    for (int v = 0; v < f->var_count; v++) {
        if (f->vars[v].kind != VAR_REF)
            continue;
        const object_type *t = &prog->types[f->vars[v].type];
        if ((want_refs ? t->ref_count : t->int_count) > 0)
            found[count++] = v;
    }
    return count ? found[below(count)] : -1;
}

/* s->object: a reference variable whose type has reference (want_refs) or
 * integer fields; s->field: one of them. -1 when there is none. */
static int pick_field(const function *f, statement *s, int want_refs)
{
    if ((s->object = pick_owner(f, want_refs)) < 0)
        return -1;
    const object_type *t = &prog->types[f->vars[s->object].type];
    s->field = below(want_refs ? t->ref_count : t->int_count);
    return 0;
}

static expr *random_expr(const function *f, int depth)
{
    expr *e = arena_new(sizeof *e);
    int choice = below(depth >= 2 ? 2 : 6);
    if (choice == 0) {
        e->kind = EXPR_CONST;
        e->value = chance(70) ? (uint64_t)below(1000) : random_word();
        return e;
    }
    if (choice == 1) {
        e->kind = EXPR_VAR;
        e->var = pick_var(f, VAR_INT, -1, 0); /* depth is always there */
        return e;
    }
    static const expr_kind ops[] = {EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_XOR, EXPR_AND,
                                    EXPR_OR, EXPR_SHL, EXPR_LSHR};
    e->kind = ops[below(8)];
    e->left = random_expr(f, depth + 1);
    if (e->kind == EXPR_SHL || e->kind == EXPR_LSHR)
        e->value = 1 + (uint64_t)below(63);
    else
        e->right = random_expr(f, depth + 1);
    return e;
}

static expr *const_expr(uint64_t value)
{
    expr *e = arena_new(sizeof *e);
    e->kind = EXPR_CONST;
    e->value = value;
    return e;
}

static void random_inits(const function *f, statement *s, int type)
{
    for (int k = 0; k < prog->types[type].int_count; k++)
        s->inits[k] = random_expr(f, 1);
}

static void random_block(function *f, block *b, int count, int nesting);

/* One statement of f, or NULL when the kind drawn does not fit. */
static statement *random_statement(function *f, int nesting)
{
    statement *s = arena_new(sizeof *s);
    int roll = below(100);
    if (roll < 12) {
        s->kind = STMT_ALLOC;
        s->type = below(prog->type_count);
        s->target = pick_var(f, VAR_REF, s->type, 1);
        if (s->target < 0 && (s->target = add_var(f, VAR_REF, s->type, 0)) < 0)
            return NULL;
        random_inits(f, s, s->type);
    } else if (roll < 20) {
        s->kind = STMT_PUSH;
        s->type = prog->list_type;
        s->object = pick_var(f, VAR_REF, prog->list_type, 1);
        s->target = pick_var(f, VAR_REF, prog->list_type, 1);
        if (s->object < 0 || s->target < 0 || s->object == s->target)
            return NULL;
        random_inits(f, s, s->type);
    } else if (roll < 27) {
        s->kind = STMT_SET_INT;
        if (pick_field(f, s, 0) < 0)
            return NULL;
        s->value = random_expr(f, 0);
    } else if (roll < 34) {
        s->kind = STMT_GET_INT;
        s->target = pick_var(f, VAR_INT, -1, 1);
        if (pick_field(f, s, 0) < 0 || s->target < 0)
            return NULL;
        s->value = const_expr((uint64_t)below(100));
    } else if (roll < 44) {
        s->kind = STMT_SET_REF;
        if (pick_field(f, s, 1) < 0)
            return NULL;
        int type = prog->types[f->vars[s->object].type].ref_target[s->field];
        s->source = chance(10) ? -1 : pick_var(f, VAR_REF, type, 0);
    } else if (roll < 53) {
        s->kind = STMT_GET_REF;
        if (pick_field(f, s, 1) < 0)
            return NULL;
        int type = prog->types[f->vars[s->object].type].ref_target[s->field];
        s->target = pick_var(f, VAR_REF, type, 1);
        if (s->target < 0 && (s->target = add_var(f, VAR_REF, type, 0)) < 0)
            return NULL;
    } else if (roll < 57) {
        s->kind = STMT_COPY_REF;
        if ((s->source = pick_var(f, VAR_REF, -1, 0)) < 0)
            return NULL;
        s->target = pick_var(f, VAR_REF, f->vars[s->source].type, 1);
        if (s->target < 0 || s->target == s->source)
            return NULL;
    } else if (roll < 59) {
        s->kind = STMT_NULL_REF;
        if ((s->target = pick_var(f, VAR_REF, -1, 1)) < 0)
            return NULL;
    } else if (roll < 70) {
        /* An integer from an expression, or from unmanaged C given two. */
        s->kind = roll < 66 ? STMT_ASSIGN : STMT_UNMANAGED;
        if ((s->target = pick_var(f, VAR_INT, -1, 1)) < 0)
            return NULL;
        s->value = random_expr(f, s->kind == STMT_UNMANAGED);
        if (s->kind == STMT_UNMANAGED)
            s->value2 = random_expr(f, 1);
    } else if (roll < 81) {
        s->kind = STMT_CALL;
        if (prog->function_count == 0)
            return NULL;
        s->callee = below(prog->function_count);
        const function *g = &prog->functions[s->callee];
        for (int p = 0; p < g->int_params; p++)
            s->int_args[p] = random_expr(f, 1);
        for (int p = 0; p < g->ref_params; p++)
            s->ref_args[p] = chance(10) ? -1 : pick_var(f, VAR_REF, g->ref_param_type[p], 0);
        s->target = g->returns_ref ? pick_var(f, VAR_REF, g->return_type, 1)
                                   : pick_var(f, VAR_INT, -1, 1);
        if (s->target < 0 && g->returns_ref)
            s->target = add_var(f, VAR_REF, g->return_type, 0);
        if (s->target < 0)
            return NULL;
    } else if (roll < 84) {
        s->kind = STMT_CHECKSUM;
        s->target = pick_var(f, VAR_INT, -1, 1);
        if ((s->object = pick_var(f, VAR_REF, -1, 0)) < 0 || s->target < 0)
            return NULL;
    } else if (roll < 90) {
        if (nesting >= MAX_NESTING)
            return NULL;
        s->kind = STMT_IF;
        s->cond = (cond_kind)below(3);
        if (s->cond == COND_NONNULL && (s->object = pick_var(f, VAR_REF, -1, 0)) < 0)
            return NULL;
        s->value = random_expr(f, 1);
        s->value2 = const_expr((uint64_t)below(1000) - 200);
        random_block(f, &s->then_block, 1 + below(4), nesting + 1);
        if (chance(60))
            random_block(f, &s->else_block, 1 + below(3), nesting + 1);
    } else if (roll < 96) {
        if (nesting >= MAX_NESTING || (s->counter = add_var(f, VAR_INT, -1, 1)) < 0)
            return NULL;
        s->kind = STMT_LOOP;
        s->trips = 1 + below(nesting ? 4 : 8);
        random_block(f, &s->then_block, 1 + below(5), nesting + 1);
    } else {
        s->kind = STMT_WALK;
        s->object = pick_var(f, VAR_REF, prog->list_type, 0);
        s->accumulator = pick_var(f, VAR_INT, -1, 1);
        if (s->object < 0 || s->accumulator < 0 ||
            (s->target = add_var(f, VAR_REF, prog->list_type, 0)) < 0 ||
            (s->counter = add_var(f, VAR_INT, -1, 1)) < 0)
            return NULL;
        s->trips = 1 + below(60);
    }
    return s;
}

static void random_block(function *f, block *b, int count, int nesting)
{
    while (b->count < count) {
        statement *s = random_statement(f, nesting);
        if (s)
            b->items[b->count++] = s;
    }
}

static void random_types(void)
{
    prog->type_count = 2 + below(MAX_TYPES - 1);
    for (int t = 0; t < prog->type_count; t++) {
        object_type *type = &prog->types[t];
        type->ref_count = below(MAX_REF_FIELDS + 1);
        type->int_count = below(MAX_INT_FIELDS + 1);
        if (type->ref_count + type->int_count == 0)
            type->int_count = 1;
        for (int k = 0; k < type->ref_count; k++)
            type->ref_target[k] = below(prog->type_count);
    }
    /* One type makes lists: a field of its own type. */
    prog->list_type = below(prog->type_count);
    object_type *list = &prog->types[prog->list_type];
    if (list->ref_count == 0)
        list->ref_count = 1;
    prog->list_field = below(list->ref_count);
    list->ref_target[prog->list_field] = prog->list_type;
}

/* The signature and locals of function index (gcgen_run when main). */
static void random_frame(function *f, int index, int main)
{
    snprintf(f->name, sizeof f->name, main ? "gcgen_run" : "gcgen_f%d", index);
    f->var_count = 0;
    add_var(f, VAR_INT, -1, 1); /* depth */
    f->int_params = main ? 0 : below(MAX_INT_PARAMS + 1);
    for (int p = 0; p < f->int_params; p++)
        add_var(f, VAR_INT, -1, 0);
    f->ref_params = main ? 0 : below(MAX_REF_PARAMS + 1);
    for (int p = 0; p < f->ref_params; p++)
        add_var(f, VAR_REF, f->ref_param_type[p] = below(prog->type_count), 0);
    f->returns_ref = !main && chance(50);
    f->return_type = below(prog->type_count);
    /* At least one root per function (so none is free of gcroot calls), and
     * the list type and the result type each have a local. */
    add_var(f, VAR_REF, prog->list_type, 0);
    add_var(f, VAR_REF, prog->list_type, 0);
    f->return_var = add_var(f, VAR_REF, f->return_type, 0);
    for (int extra = below(main ? 5 : 3); extra > 0; extra--)
        add_var(f, VAR_REF, below(prog->type_count), 0);
    for (int ints = 1 + below(3); ints > 0; ints--)
        add_var(f, VAR_INT, -1, 0);
    f->null_stores = chance(50);
}

static void random_program(void)
{
    memset(prog, 0, sizeof *prog);
    random_types();
    /* Signatures first: a function may call any other. */
    prog->function_count = 1 + below(MAX_FUNCTIONS);
    for (int i = 0; i < prog->function_count; i++)
        random_frame(&prog->functions[i], i, 0);
    function *run = &prog->functions[prog->function_count];
    random_frame(run, prog->function_count, 1);
    prog->run_depth = 1 + (uint64_t)below(3);
    for (int i = 0; i < prog->function_count; i++)
        random_block(&prog->functions[i], &prog->functions[i].body, 2 + below(8), 0);
    random_block(run, &run->body, 6 + below(10), 0);
}

/* A call from function index to callee passes depth on when it goes forward
 * and depth - 1, only while depth > 0, when it goes back: every chain of
 * calls ends. */
static int call_goes_back(int index, int callee)
{
    return index < prog->function_count && callee <= index;
}

/* ---- the interpreter: what the program computes */

static uint64_t mix(uint64_t hash, uint64_t value)
{
    uint64_t x = (hash ^ value) * MIX_MULTIPLIER;
    return x ^ (x >> 29);
}

/* The same function is in gen_driver.c, as unmanaged C. */
static uint64_t unmanaged_mix(uint64_t a, uint64_t b)
{
    return (a * UINT64_C(0xD6E8FEB86659FD93)) ^ (b + UINT64_C(0x2545F4914F6CDD1D));
}

typedef struct model_object {
    int type;
    uint64_t ints[MAX_INT_FIELDS];
    uint64_t refs[MAX_REF_FIELDS]; /* 0: null; else an object's index + 1 */
} model_object;

typedef struct model {
    model_object *objects;
    size_t count;
    uint64_t steps;
    uint64_t unmanaged_calls;
    int over; /* the budget ran out: the program is drawn again */
} model;

static model heap;

static void step(void)
{
    if (++heap.steps > MAX_STEPS)
        heap.over = 1;
}

static model_object *object_at(uint64_t ref)
{
    return &heap.objects[ref - 1];
}

static uint64_t new_object(int type)
{
    if (heap.count == MAX_OBJECTS) {
        heap.over = 1;
        return 0;
    }
    heap.objects[heap.count] = (model_object){.type = type};
    return ++heap.count;
}

static uint64_t evaluate(const expr *e, const uint64_t *vars)
{
    switch (e->kind) {
    case EXPR_CONST: return e->value;
    case EXPR_VAR: return vars[e->var];
    case EXPR_ADD: return evaluate(e->left, vars) + evaluate(e->right, vars);
    case EXPR_SUB: return evaluate(e->left, vars) - evaluate(e->right, vars);
    case EXPR_MUL: return evaluate(e->left, vars) * evaluate(e->right, vars);
    case EXPR_XOR: return evaluate(e->left, vars) ^ evaluate(e->right, vars);
    case EXPR_AND: return evaluate(e->left, vars) & evaluate(e->right, vars);
    case EXPR_OR: return evaluate(e->left, vars) | evaluate(e->right, vars);
    case EXPR_SHL: return evaluate(e->left, vars) << e->value;
    case EXPR_LSHR: return evaluate(e->left, vars) >> e->value;
    }
    return 0;
}

static uint64_t checksum(uint64_t ref, int type, uint64_t depth)
{
    step();
    if (!ref || heap.over)
        return NULL_CHECKSUM;
    const object_type *t = &prog->types[type];
    uint64_t hash = 0x100 + (uint64_t)type;
    for (int k = 0; k < t->int_count; k++)
        hash = mix(hash, object_at(ref)->ints[k]);
    for (int k = 0; k < t->ref_count; k++) {
        uint64_t child = object_at(ref)->refs[k];
        hash = mix(hash, depth > 0 ? checksum(child, t->ref_target[k], depth - 1) : child != 0);
    }
    return hash;
}

static uint64_t call_function(int index, const uint64_t *args);

static void run_block(int index, const block *b, uint64_t *vars);

static int condition_holds(const statement *s, const uint64_t *vars)
{
    switch (s->cond) {
    case COND_ODD: return (evaluate(s->value, vars) & 1) != 0;
    case COND_NONNULL: return vars[s->object] != 0;
    case COND_LESS: return (int64_t)evaluate(s->value, vars) < (int64_t)s->value2->value;
    }
    return 0;
}

static void run_statement(int index, const statement *s, uint64_t *vars)
{
    const function *f = &prog->functions[index];
    step();
    switch (s->kind) {
    case STMT_ALLOC:
    case STMT_PUSH: {
        uint64_t ref = new_object(s->type);
        if (!ref)
            return;
        for (int k = 0; k < prog->types[s->type].int_count; k++)
            object_at(ref)->ints[k] = evaluate(s->inits[k], vars);
        vars[s->target] = ref;
        if (s->kind == STMT_PUSH) {
            object_at(ref)->refs[prog->list_field] = vars[s->object];
            vars[s->object] = ref;
        }
        return;
    }
    case STMT_SET_INT:
        if (vars[s->object])
            object_at(vars[s->object])->ints[s->field] = evaluate(s->value, vars);
        return;
    case STMT_GET_INT:
        vars[s->target] = vars[s->object] ? object_at(vars[s->object])->ints[s->field]
                                          : s->value->value;
        return;
    case STMT_SET_REF:
        if (vars[s->object])
            object_at(vars[s->object])->refs[s->field] = s->source < 0 ? 0 : vars[s->source];
        return;
    case STMT_GET_REF:
        vars[s->target] = vars[s->object] ? object_at(vars[s->object])->refs[s->field] : 0;
        return;
    case STMT_COPY_REF: vars[s->target] = vars[s->source]; return;
    case STMT_NULL_REF: vars[s->target] = 0; return;
    case STMT_ASSIGN: vars[s->target] = evaluate(s->value, vars); return;
    case STMT_CALL: {
        int back = call_goes_back(index, s->callee);
        if (back && vars[0] == 0)
            return;
        const function *g = &prog->functions[s->callee];
        uint64_t args[1 + MAX_INT_PARAMS + MAX_REF_PARAMS];
        args[0] = back ? vars[0] - 1 : vars[0];
        for (int p = 0; p < g->int_params; p++)
            args[1 + p] = evaluate(s->int_args[p], vars);
        for (int p = 0; p < g->ref_params; p++)
            args[1 + g->int_params + p] = s->ref_args[p] < 0 ? 0 : vars[s->ref_args[p]];
        vars[s->target] = call_function(s->callee, args);
        return;
    }
    case STMT_UNMANAGED:
        heap.unmanaged_calls++;
        vars[s->target] = unmanaged_mix(evaluate(s->value, vars), evaluate(s->value2, vars));
        return;
    case STMT_CHECKSUM:
        vars[s->target] = mix(vars[s->target],
                              checksum(vars[s->object], f->vars[s->object].type, MID_CHECK_DEPTH));
        return;
    case STMT_IF:
        run_block(index, condition_holds(s, vars) ? &s->then_block : &s->else_block, vars);
        return;
    case STMT_LOOP:
        for (vars[s->counter] = 0; vars[s->counter] < (uint64_t)s->trips && !heap.over;
             vars[s->counter]++) {
            step();
            run_block(index, &s->then_block, vars);
        }
        return;
    case STMT_WALK: {
        const object_type *t = &prog->types[prog->list_type];
        vars[s->target] = vars[s->object];
        for (vars[s->counter] = 0; vars[s->counter] < (uint64_t)s->trips && vars[s->target];
             vars[s->counter]++) {
            step();
            model_object *o = object_at(vars[s->target]);
            vars[s->accumulator] = mix(vars[s->accumulator],
                                       t->int_count ? o->ints[0] : vars[s->counter]);
            vars[s->target] = o->refs[prog->list_field];
        }
        return;
    }
    }
}

static void run_block(int index, const block *b, uint64_t *vars)
{
    for (int i = 0; i < b->count && !heap.over; i++)
        run_statement(index, b->items[i], vars);
}

/* The integers of a frame, folded: an int function's result, and where
 * gcgen_run's checksum starts. */
static uint64_t fold_ints(const function *f, const uint64_t *vars)
{
    uint64_t hash = 0;
    for (int v = 0; v < f->var_count; v++)
        if (f->vars[v].kind == VAR_INT)
            hash = mix(hash, vars[v]);
    return hash;
}

/* args: depth, the int parameters, the ref parameters (none for gcgen_run). */
static uint64_t call_function(int index, const uint64_t *args)
{
    const function *f = &prog->functions[index];
    uint64_t vars[MAX_VARS] = {0};
    step();
    int params = 1 + f->int_params + f->ref_params;
    for (int p = 0; p < params; p++)
        vars[p] = args[p];
    run_block(index, &f->body, vars);
    if (index == prog->function_count) {
        uint64_t hash = fold_ints(f, vars);
        for (int v = 0; v < f->var_count; v++)
            if (f->vars[v].kind == VAR_REF)
                hash = mix(hash, checksum(vars[v], f->vars[v].type, FINAL_CHECK_DEPTH));
        return hash;
    }
    return f->returns_ref ? vars[f->return_var] : fold_ints(f, vars);
}

/* gcgen_run's result, or 0 with heap.over set when over the budget. */
static uint64_t run_program(void)
{
    heap.count = 0;
    heap.steps = 0;
    heap.unmanaged_calls = 0;
    heap.over = 0;
    uint64_t depth = prog->run_depth;
    uint64_t result = call_function(prog->function_count, &depth);
    /* Too little to collect often, no GC transition to collect at, or too
     * many (each collects twice under transitions stress). */
    if (heap.count < MIN_OBJECTS || heap.unmanaged_calls == 0 ||
        heap.unmanaged_calls > MAX_UNMANAGED_CALLS)
        heap.over = 1;
    return result;
}

/* ---- emitting the module (LLVM-C) */

typedef struct emitter {
    LLVMContextRef context;
    LLVMModuleRef module;
    LLVMBuilderRef builder;
    LLVMTypeRef i64, i1, ptr, void_type;
    LLVMTypeRef object_types[MAX_TYPES]; /* %gcgen.tN = { header, refs..., ints... } */
    LLVMValueRef layouts[MAX_TYPES];     /* @gcgen_type_R_I, defined by the driver */
    LLVMValueRef metadata[MAX_TYPES];    /* gcroot metadata: the type's name */
    LLVMTypeRef gcroot_type, alloc_type, unmanaged_type, checksum_type;
    LLVMValueRef gcroot, alloc, unmanaged;
    LLVMTypeRef function_types[MAX_FUNCTIONS + 1];
    LLVMValueRef functions[MAX_FUNCTIONS + 1];
    LLVMValueRef checksums[MAX_TYPES];
    /* the function being emitted */
    LLVMValueRef current;
    LLVMValueRef slots[MAX_VARS];
    int index;
} emitter;

static LLVMBasicBlockRef new_block(emitter *e, const char *name)
{
    return LLVMAppendBasicBlockInContext(e->context, e->current, name);
}

static LLVMValueRef load_var(emitter *e, int var)
{
    const function *f = &prog->functions[e->index];
    return LLVMBuildLoad2(e->builder, f->vars[var].kind == VAR_REF ? e->ptr : e->i64,
                          e->slots[var], "");
}

static void store_var(emitter *e, int var, LLVMValueRef value)
{
    LLVMBuildStore(e->builder, value, e->slots[var]);
}

static LLVMValueRef constant(emitter *e, uint64_t value)
{
    return LLVMConstInt(e->i64, value, 0);
}

static LLVMValueRef emit_expr(emitter *e, const expr *x)
{
    LLVMBuilderRef b = e->builder;
    switch (x->kind) {
    case EXPR_CONST: return constant(e, x->value);
    case EXPR_VAR: return load_var(e, x->var);
    case EXPR_SHL: return LLVMBuildShl(b, emit_expr(e, x->left), constant(e, x->value), "");
    case EXPR_LSHR: return LLVMBuildLShr(b, emit_expr(e, x->left), constant(e, x->value), "");
    default: break;
    }
    LLVMValueRef left = emit_expr(e, x->left), right = emit_expr(e, x->right);
    switch (x->kind) {
    case EXPR_ADD: return LLVMBuildAdd(b, left, right, "");
    case EXPR_SUB: return LLVMBuildSub(b, left, right, "");
    case EXPR_MUL: return LLVMBuildMul(b, left, right, "");
    case EXPR_XOR: return LLVMBuildXor(b, left, right, "");
    case EXPR_AND: return LLVMBuildAnd(b, left, right, "");
    default: return LLVMBuildOr(b, left, right, "");
    }
}

static LLVMValueRef emit_mix(emitter *e, LLVMValueRef hash, LLVMValueRef value)
{
    LLVMValueRef x = LLVMBuildMul(e->builder, LLVMBuildXor(e->builder, hash, value, ""),
                                  constant(e, MIX_MULTIPLIER), "");
    return LLVMBuildXor(e->builder, x, LLVMBuildLShr(e->builder, x, constant(e, 29), ""), "mix");
}

/* The address of field (refs first, then ints) of object of type. */
static LLVMValueRef field_address(emitter *e, LLVMValueRef object, int type, int is_ref, int field)
{
    unsigned index = 1 + (unsigned)(is_ref ? field : prog->types[type].ref_count + field);
    return LLVMBuildStructGEP2(e->builder, e->object_types[type], object, index,
                               is_ref ? "ref.field" : "int.field");
}

/* Ends the block being built with a branch to block, and builds there. */
static void continue_at(emitter *e, LLVMBasicBlockRef block)
{
    LLVMBuildBr(e->builder, block);
    LLVMPositionBuilderAtEnd(e->builder, block);
}

/* Branches on object != null: the builder ends in the non-null block; the
 * returned block is where both paths meet (the builder's next stop). */
static LLVMBasicBlockRef branch_if_null(emitter *e, LLVMValueRef object, LLVMBasicBlockRef *nonnull)
{
    *nonnull = new_block(e, "nonnull");
    LLVMBasicBlockRef join = new_block(e, "join");
    LLVMValueRef is_null = LLVMBuildICmp(e->builder, LLVMIntEQ, object, LLVMConstNull(e->ptr), "");
    LLVMBuildCondBr(e->builder, is_null, join, *nonnull);
    LLVMPositionBuilderAtEnd(e->builder, *nonnull);
    return join;
}

static LLVMValueRef emit_alloc(emitter *e, int type)
{
    LLVMValueRef args[] = {e->layouts[type], constant(e, 0)};
    return LLVMBuildCall2(e->builder, e->alloc_type, e->alloc, args, 2, "new");
}

static void emit_block(emitter *e, const block *b);

static void emit_statement(emitter *e, const statement *s)
{
    const function *f = &prog->functions[e->index];
    LLVMBuilderRef b = e->builder;
    switch (s->kind) {
    case STMT_ALLOC:
    case STMT_PUSH: {
        /* The new object goes to its root before anything else happens. */
        store_var(e, s->target, emit_alloc(e, s->type));
        for (int k = 0; k < prog->types[s->type].int_count; k++) {
            LLVMValueRef value = emit_expr(e, s->inits[k]);
            LLVMBuildStore(b, value, field_address(e, load_var(e, s->target), s->type, 0, k));
        }
        if (s->kind == STMT_PUSH) {
            LLVMValueRef node = load_var(e, s->target);
            LLVMBuildStore(b, load_var(e, s->object),
                           field_address(e, node, s->type, 1, prog->list_field));
            store_var(e, s->object, node);
        }
        return;
    }
    case STMT_SET_INT:
    case STMT_SET_REF: {
        LLVMValueRef object = load_var(e, s->object);
        LLVMBasicBlockRef nonnull, join = branch_if_null(e, object, &nonnull);
        int type = f->vars[s->object].type;
        LLVMValueRef value = s->kind == STMT_SET_INT ? emit_expr(e, s->value)
                             : s->source < 0         ? LLVMConstNull(e->ptr)
                                                     : load_var(e, s->source);
        LLVMBuildStore(b, value, field_address(e, object, type, s->kind == STMT_SET_REF, s->field));
        continue_at(e, join);
        return;
    }
    case STMT_GET_INT:
    case STMT_GET_REF: {
        int is_ref = s->kind == STMT_GET_REF;
        LLVMValueRef object = load_var(e, s->object);
        LLVMBasicBlockRef from = LLVMGetInsertBlock(b), nonnull;
        LLVMBasicBlockRef join = branch_if_null(e, object, &nonnull);
        LLVMValueRef loaded = LLVMBuildLoad2(
            b, is_ref ? e->ptr : e->i64,
            field_address(e, object, f->vars[s->object].type, is_ref, s->field), "");
        continue_at(e, join);
        LLVMValueRef phi = LLVMBuildPhi(b, is_ref ? e->ptr : e->i64, "");
        LLVMValueRef values[] = {is_ref ? LLVMConstNull(e->ptr) : constant(e, s->value->value),
                                 loaded};
        LLVMBasicBlockRef blocks[] = {from, nonnull};
        LLVMAddIncoming(phi, values, blocks, 2);
        store_var(e, s->target, phi);
        return;
    }
    case STMT_COPY_REF: store_var(e, s->target, load_var(e, s->source)); return;
    case STMT_NULL_REF: store_var(e, s->target, LLVMConstNull(e->ptr)); return;
    case STMT_ASSIGN: store_var(e, s->target, emit_expr(e, s->value)); return;
    case STMT_CALL: {
        const function *g = &prog->functions[s->callee];
        int back = call_goes_back(e->index, s->callee);
        LLVMValueRef depth = load_var(e, 0);
        LLVMBasicBlockRef join = NULL;
        if (back) {
            LLVMBasicBlockRef call = new_block(e, "recurse");
            join = new_block(e, "recursed");
            LLVMValueRef positive = LLVMBuildICmp(b, LLVMIntSGT, depth, constant(e, 0), "");
            LLVMBuildCondBr(b, positive, call, join);
            LLVMPositionBuilderAtEnd(b, call);
            depth = LLVMBuildSub(b, depth, constant(e, 1), "");
        }
        LLVMValueRef args[1 + MAX_INT_PARAMS + MAX_REF_PARAMS];
        args[0] = depth;
        for (int p = 0; p < g->int_params; p++)
            args[1 + p] = emit_expr(e, s->int_args[p]);
        /* References last, loaded from their roots right before the call. */
        for (int p = 0; p < g->ref_params; p++)
            args[1 + g->int_params + p] =
                s->ref_args[p] < 0 ? LLVMConstNull(e->ptr) : load_var(e, s->ref_args[p]);
        LLVMValueRef result = LLVMBuildCall2(b, e->function_types[s->callee],
                                             e->functions[s->callee], args,
                                             (unsigned)(1 + g->int_params + g->ref_params), "");
        store_var(e, s->target, result);
        if (back)
            continue_at(e, join);
        return;
    }
    case STMT_UNMANAGED: {
        LLVMValueRef args[] = {emit_expr(e, s->value), emit_expr(e, s->value2)};
        store_var(e, s->target,
                  LLVMBuildCall2(b, e->unmanaged_type, e->unmanaged, args, 2, "unmanaged"));
        return;
    }
    case STMT_CHECKSUM: {
        int type = f->vars[s->object].type;
        LLVMValueRef args[] = {load_var(e, s->object), constant(e, MID_CHECK_DEPTH)};
        LLVMValueRef sum = LLVMBuildCall2(b, e->checksum_type, e->checksums[type], args, 2, "");
        store_var(e, s->target, emit_mix(e, load_var(e, s->target), sum));
        return;
    }
    case STMT_IF: {
        LLVMValueRef holds;
        if (s->cond == COND_ODD)
            holds = LLVMBuildTrunc(b, emit_expr(e, s->value), e->i1, "odd");
        else if (s->cond == COND_NONNULL)
            holds = LLVMBuildICmp(b, LLVMIntNE, load_var(e, s->object), LLVMConstNull(e->ptr), "");
        else
            holds = LLVMBuildICmp(b, LLVMIntSLT, emit_expr(e, s->value),
                                  constant(e, s->value2->value), "");
        LLVMBasicBlockRef then_block = new_block(e, "then"), else_block = new_block(e, "else");
        LLVMBasicBlockRef join = new_block(e, "endif");
        LLVMBuildCondBr(b, holds, then_block, else_block);
        LLVMPositionBuilderAtEnd(b, then_block);
        emit_block(e, &s->then_block);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, else_block);
        emit_block(e, &s->else_block);
        continue_at(e, join);
        return;
    }
    case STMT_LOOP:
    case STMT_WALK: {
        int walk = s->kind == STMT_WALK;
        if (walk)
            store_var(e, s->target, load_var(e, s->object));
        store_var(e, s->counter, constant(e, 0));
        LLVMBasicBlockRef test = new_block(e, walk ? "walk" : "loop");
        LLVMBasicBlockRef body = new_block(e, walk ? "walk.body" : "loop.body");
        LLVMBasicBlockRef done = new_block(e, walk ? "walk.done" : "loop.done");
        continue_at(e, test);
        LLVMValueRef more =
            LLVMBuildICmp(b, LLVMIntULT, load_var(e, s->counter), constant(e, (uint64_t)s->trips), "");
        if (walk) {
            LLVMBasicBlockRef check = new_block(e, "walk.cursor");
            LLVMBuildCondBr(b, more, check, done);
            LLVMPositionBuilderAtEnd(b, check);
            more = LLVMBuildICmp(b, LLVMIntNE, load_var(e, s->target), LLVMConstNull(e->ptr), "");
        }
        LLVMBuildCondBr(b, more, body, done);
        LLVMPositionBuilderAtEnd(b, body);
        if (walk) {
            const object_type *t = &prog->types[prog->list_type];
            LLVMValueRef cursor = load_var(e, s->target);
            LLVMValueRef value = t->int_count
                                     ? LLVMBuildLoad2(b, e->i64,
                                                      field_address(e, cursor, prog->list_type, 0, 0), "")
                                     : load_var(e, s->counter);
            store_var(e, s->accumulator, emit_mix(e, load_var(e, s->accumulator), value));
            LLVMValueRef next = LLVMBuildLoad2(
                b, e->ptr, field_address(e, cursor, prog->list_type, 1, prog->list_field), "next");
            store_var(e, s->target, next);
        } else {
            emit_block(e, &s->then_block);
        }
        store_var(e, s->counter, LLVMBuildAdd(b, load_var(e, s->counter), constant(e, 1), ""));
        LLVMBuildBr(b, test);
        LLVMPositionBuilderAtEnd(b, done);
        return;
    }
    }
}

static void emit_block(emitter *e, const block *b)
{
    for (int i = 0; i < b->count; i++)
        emit_statement(e, b->items[i]);
}

static LLVMValueRef emit_fold_ints(emitter *e, const function *f)
{
    LLVMValueRef hash = constant(e, 0);
    for (int v = 0; v < f->var_count; v++)
        if (f->vars[v].kind == VAR_INT)
            hash = emit_mix(e, hash, load_var(e, v));
    return hash;
}

/* The entry block as the document has it: a slot per variable, each
 * reference slot registered with llvm.gcroot, then the parameters stored. */
static void emit_entry(emitter *e, const function *f, int index)
{
    e->current = e->functions[index];
    e->index = index;
    LLVMPositionBuilderAtEnd(e->builder, new_block(e, "entry"));
    for (int v = 0; v < f->var_count; v++) {
        char name[16];
        snprintf(name, sizeof name, v == 0 ? "depth.slot" : f->vars[v].kind == VAR_REF ? "r%d" : "i%d", v);
        e->slots[v] = LLVMBuildAlloca(e->builder, f->vars[v].kind == VAR_REF ? e->ptr : e->i64, name);
    }
    for (int v = 0; v < f->var_count; v++)
        if (f->vars[v].kind == VAR_REF) {
            /* Metadata: the type's name on some roots, null on the others. */
            LLVMValueRef args[] = {e->slots[v], v % 2 ? e->metadata[f->vars[v].type]
                                                      : LLVMConstNull(e->ptr)};
            LLVMBuildCall2(e->builder, e->gcroot_type, e->gcroot, args, 2, "");
        }
    int params = index == prog->function_count ? 0 : 1 + f->int_params + f->ref_params;
    for (int v = 0; v < f->var_count; v++) {
        if (v < params)
            store_var(e, v, LLVMGetParam(e->current, (unsigned)v));
        else if (v == 0)
            store_var(e, v, constant(e, prog->run_depth));
        else if (f->vars[v].kind == VAR_INT)
            store_var(e, v, constant(e, 0));
        else if (f->null_stores)
            store_var(e, v, LLVMConstNull(e->ptr));
    }
}

static void emit_function(emitter *e, int index)
{
    const function *f = &prog->functions[index];
    emit_entry(e, f, index);
    emit_block(e, &f->body);
    LLVMValueRef result;
    if (index == prog->function_count) {
        result = emit_fold_ints(e, f);
        for (int v = 0; v < f->var_count; v++)
            if (f->vars[v].kind == VAR_REF) {
                LLVMValueRef args[] = {load_var(e, v), constant(e, FINAL_CHECK_DEPTH)};
                result = emit_mix(e, result,
                                  LLVMBuildCall2(e->builder, e->checksum_type,
                                                 e->checksums[f->vars[v].type], args, 2, ""));
            }
    } else {
        result = f->returns_ref ? load_var(e, f->return_var) : emit_fold_ints(e, f);
    }
    LLVMBuildRet(e->builder, result);
}

/* gcgen_checksum_tN(object, depth): as checksum() above, object in a root. */
static void emit_checksum(emitter *e, int type)
{
    const object_type *t = &prog->types[type];
    LLVMBuilderRef b = e->builder;
    e->current = e->checksums[type];
    e->index = -1;
    LLVMPositionBuilderAtEnd(b, new_block(e, "entry"));
    LLVMValueRef slot = LLVMBuildAlloca(b, e->ptr, "object.slot");
    LLVMValueRef args[] = {slot, e->metadata[type]};
    LLVMBuildCall2(b, e->gcroot_type, e->gcroot, args, 2, "");
    LLVMBuildStore(b, LLVMGetParam(e->current, 0), slot);
    LLVMValueRef depth = LLVMGetParam(e->current, 1);
    LLVMBasicBlockRef empty = new_block(e, "null"), object = new_block(e, "object");
    LLVMValueRef is_null = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildLoad2(b, e->ptr, slot, ""),
                                         LLVMConstNull(e->ptr), "");
    LLVMBuildCondBr(b, is_null, empty, object);
    LLVMPositionBuilderAtEnd(b, empty);
    LLVMBuildRet(b, constant(e, NULL_CHECKSUM));
    LLVMPositionBuilderAtEnd(b, object);
    LLVMValueRef hash = constant(e, 0x100 + (uint64_t)type);
    for (int k = 0; k < t->int_count; k++) {
        LLVMValueRef self = LLVMBuildLoad2(b, e->ptr, slot, "");
        hash = emit_mix(e, hash, LLVMBuildLoad2(b, e->i64, field_address(e, self, type, 0, k), ""));
    }
    LLVMBasicBlockRef deep = new_block(e, "deep"), shallow = new_block(e, "shallow");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, depth, constant(e, 0), ""), deep, shallow);
    LLVMPositionBuilderAtEnd(b, deep);
    LLVMValueRef deep_hash = hash;
    for (int k = 0; k < t->ref_count; k++) {
        /* Reloaded after each call: the previous call may have moved it. */
        LLVMValueRef self = LLVMBuildLoad2(b, e->ptr, slot, "");
        LLVMValueRef child = LLVMBuildLoad2(b, e->ptr, field_address(e, self, type, 1, k), "");
        LLVMValueRef call_args[] = {child, LLVMBuildSub(b, depth, constant(e, 1), "")};
        deep_hash = emit_mix(e, deep_hash,
                             LLVMBuildCall2(b, e->checksum_type, e->checksums[t->ref_target[k]],
                                            call_args, 2, ""));
    }
    LLVMBuildRet(b, deep_hash);
    LLVMPositionBuilderAtEnd(b, shallow);
    for (int k = 0; k < t->ref_count; k++) {
        LLVMValueRef self = LLVMBuildLoad2(b, e->ptr, slot, "");
        LLVMValueRef child = LLVMBuildLoad2(b, e->ptr, field_address(e, self, type, 1, k), "");
        LLVMValueRef present = LLVMBuildICmp(b, LLVMIntNE, child, LLVMConstNull(e->ptr), "");
        hash = emit_mix(e, hash, LLVMBuildZExt(b, present, e->i64, ""));
    }
    LLVMBuildRet(b, hash);
}

/* gcgen_thread(job): job is { i64 rounds, i64 results[rounds] } in C
 * memory; stores gcgen_run's result for each round. Managed code with no
 * gc "shadow-stack" and no roots: the driver's thread start routine. */
static void emit_thread_entry(emitter *e)
{
    LLVMBuilderRef b = e->builder;
    LLVMTypeRef type = LLVMFunctionType(e->ptr, &e->ptr, 1, 0);
    e->current = LLVMAddFunction(e->module, "gcgen_thread", type);
    LLVMValueRef job = LLVMGetParam(e->current, 0);
    LLVMBasicBlockRef entry = new_block(e, "entry"), test = new_block(e, "test");
    LLVMBasicBlockRef body = new_block(e, "round"), done = new_block(e, "done");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef rounds = LLVMBuildLoad2(b, e->i64, job, "rounds");
    LLVMBuildBr(b, test);
    LLVMPositionBuilderAtEnd(b, test);
    LLVMValueRef round = LLVMBuildPhi(b, e->i64, "i");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, round, rounds, ""), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    int run = prog->function_count;
    LLVMValueRef result = LLVMBuildCall2(b, e->function_types[run], e->functions[run], NULL, 0, "");
    LLVMValueRef next = LLVMBuildAdd(b, round, constant(e, 1), "");
    LLVMBuildStore(b, result, LLVMBuildGEP2(b, e->i64, job, &next, 1, ""));
    LLVMBuildBr(b, test);
    LLVMValueRef incoming[] = {constant(e, 0), next};
    LLVMBasicBlockRef from[] = {entry, body};
    LLVMAddIncoming(round, incoming, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRet(b, LLVMConstNull(e->ptr));
}

static void declare_runtime(emitter *e)
{
    LLVMTypeRef two_ptrs[] = {e->ptr, e->ptr}, two_ints[] = {e->i64, e->i64};
    LLVMTypeRef alloc_params[] = {e->ptr, e->i64}, checksum_params[] = {e->ptr, e->i64};
    e->gcroot_type = LLVMFunctionType(e->void_type, two_ptrs, 2, 0);
    e->gcroot = LLVMAddFunction(e->module, "llvm.gcroot", e->gcroot_type);
    e->alloc_type = LLVMFunctionType(e->ptr, alloc_params, 2, 0);
    e->alloc = LLVMAddFunction(e->module, "corral_alloc_slow", e->alloc_type);
    e->unmanaged_type = LLVMFunctionType(e->i64, two_ints, 2, 0);
    e->unmanaged = LLVMAddFunction(e->module, "gcgen_unmanaged_mix", e->unmanaged_type);
    e->checksum_type = LLVMFunctionType(e->i64, checksum_params, 2, 0);
    for (int t = 0; t < prog->type_count; t++) {
        const object_type *type = &prog->types[t];
        char name[64];
        LLVMTypeRef fields[1 + MAX_REF_FIELDS + MAX_INT_FIELDS];
        fields[0] = e->ptr; /* the header: the type descriptor */
        for (int k = 0; k < type->ref_count; k++)
            fields[1 + k] = e->ptr;
        for (int k = 0; k < type->int_count; k++)
            fields[1 + type->ref_count + k] = e->i64;
        snprintf(name, sizeof name, "gcgen.t%d", t);
        e->object_types[t] = LLVMStructCreateNamed(e->context, name);
        LLVMStructSetBody(e->object_types[t], fields,
                          (unsigned)(1 + type->ref_count + type->int_count), 0);
        snprintf(name, sizeof name, "gcgen_type_%d_%d", type->ref_count, type->int_count);
        e->layouts[t] = LLVMGetNamedGlobal(e->module, name);
        if (!e->layouts[t]) {
            e->layouts[t] = LLVMAddGlobal(e->module, LLVMInt8TypeInContext(e->context), name);
            LLVMSetGlobalConstant(e->layouts[t], 1);
        }
        snprintf(name, sizeof name, "t%d", t);
        LLVMValueRef text = LLVMConstStringInContext(e->context, name, (unsigned)strlen(name), 0);
        snprintf(name, sizeof name, "gcgen_meta_t%d", t);
        e->metadata[t] = LLVMAddGlobal(e->module, LLVMTypeOf(text), name);
        LLVMSetInitializer(e->metadata[t], text);
        LLVMSetGlobalConstant(e->metadata[t], 1);
        LLVMSetLinkage(e->metadata[t], LLVMPrivateLinkage);
        snprintf(name, sizeof name, "gcgen_checksum_t%d", t);
        e->checksums[t] = LLVMAddFunction(e->module, name, e->checksum_type);
        LLVMSetGC(e->checksums[t], "shadow-stack");
        LLVMSetLinkage(e->checksums[t], LLVMInternalLinkage);
    }
    for (int i = 0; i <= prog->function_count; i++) {
        const function *f = &prog->functions[i];
        LLVMTypeRef params[1 + MAX_INT_PARAMS + MAX_REF_PARAMS];
        unsigned count = i == prog->function_count ? 0 : (unsigned)(1 + f->int_params + f->ref_params);
        for (unsigned p = 0; p < count; p++)
            params[p] = f->vars[p].kind == VAR_REF ? e->ptr : e->i64;
        e->function_types[i] = LLVMFunctionType(f->returns_ref ? e->ptr : e->i64, params, count, 0);
        e->functions[i] = LLVMAddFunction(e->module, f->name, e->function_types[i]);
        LLVMSetGC(e->functions[i], "shadow-stack");
        if (i < prog->function_count)
            LLVMSetLinkage(e->functions[i], LLVMInternalLinkage);
    }
}

static LLVMTargetMachineRef host_target_machine(LLVMModuleRef module)
{
    LLVMInitializeNativeTarget();
    char *triple = LLVMGetDefaultTargetTriple(), *message = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &message))
        fatal("no target for %s: %s", triple, message);
    LLVMTargetMachineRef machine = LLVMCreateTargetMachine(
        target, triple, "", "", LLVMCodeGenLevelDefault, LLVMRelocPIC, LLVMCodeModelDefault);
    LLVMSetTarget(module, triple);
    LLVMTargetDataRef data = LLVMCreateTargetDataLayout(machine);
    char *layout = LLVMCopyStringRepOfTargetData(data);
    LLVMSetDataLayout(module, layout);
    LLVMDisposeMessage(layout);
    LLVMDisposeTargetData(data);
    LLVMDisposeMessage(triple);
    return machine;
}

/* The module of the program, optimised by default<O level> unless level is 0. */
static char *emit_module(uint64_t seed, int level, uint64_t expected)
{
    emitter e = {0};
    e.context = LLVMContextCreate();
    char id[64];
    snprintf(id, sizeof id, "gcroot-gen seed %" PRIu64, seed);
    e.module = LLVMModuleCreateWithNameInContext(id, e.context);
    LLVMTargetMachineRef machine = host_target_machine(e.module);
    e.builder = LLVMCreateBuilderInContext(e.context);
    e.i64 = LLVMInt64TypeInContext(e.context);
    e.i1 = LLVMInt1TypeInContext(e.context);
    e.ptr = LLVMPointerTypeInContext(e.context, 0);
    e.void_type = LLVMVoidTypeInContext(e.context);
    declare_runtime(&e);
    for (int t = 0; t < prog->type_count; t++)
        emit_checksum(&e, t);
    for (int i = 0; i <= prog->function_count; i++)
        emit_function(&e, i);
    emit_thread_entry(&e);
    char *message = NULL;
    if (LLVMVerifyModule(e.module, LLVMReturnStatusAction, &message))
        fatal("seed %" PRIu64 ": the module does not verify (a generator bug): %s", seed, message);
    LLVMDisposeMessage(message);
    if (level > 0) {
        char pipeline[32];
        snprintf(pipeline, sizeof pipeline, "default<O%d>", level);
        LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
        LLVMErrorRef error = LLVMRunPasses(e.module, pipeline, machine, options);
        LLVMDisposePassBuilderOptions(options);
        if (error)
            fatal("%s: %s", pipeline, LLVMGetErrorMessage(error));
    }
    char *ir = LLVMPrintModuleToString(e.module);
    size_t size = strlen(ir) + 512;
    char *text = malloc(size);
    if (!text)
        fatal("out of memory");
    snprintf(text, size,
             "; llvm.gcroot frontend module from gcroot-gen --seed=%" PRIu64 " -O%d\n"
             "; expected output: checksum 0x%016" PRIx64 "\n"
             "; built and run by: scripts/difftest --generator=gcroot --seed=%" PRIu64
             " --seeds=1\n%s",
             seed, level, expected, seed, ir);
    LLVMDisposeMessage(ir);
    LLVMDisposeBuilder(e.builder);
    LLVMDisposeModule(e.module);
    LLVMDisposeTargetMachine(machine);
    LLVMContextDispose(e.context);
    return text;
}

/* ---- main */

static const char usage[] =
    "usage: gcroot-gen [--seed=N] [-O0|-O1|-O2|-O3] [-o FILE] [--expect]\n"
    "  --seed=N   the program (default: from the clock; printed on stderr)\n"
    "  -ON        optimise the module by LLVM's default<ON> pipeline, as a frontend would\n"
    "  -o FILE    write the module there (default: standard output)\n"
    "  --expect   print what the program prints (its checksum line) instead\n";

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL) % 1000000;
    int level = 0, expect = 0;
    const char *output = NULL;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (strncmp(argv[i], "--seed=", 7) == 0) {
            seed = strtoull(argv[i] + 7, &end, 10);
            if (*end || end == argv[i] + 7)
                fatal("--seed: '%s' is not a number\n%s", argv[i] + 7, usage);
        } else if (argv[i][0] == '-' && argv[i][1] == 'O' && argv[i][2] >= '0' &&
                   argv[i][2] <= '3' && !argv[i][3]) {
            level = argv[i][2] - '0';
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (strcmp(argv[i], "--expect") == 0) {
            expect = 1;
        } else {
            fatal("unknown argument '%s'\n%s", argv[i], usage);
        }
    }
    fprintf(stderr, "gcroot-gen: seed %" PRIu64 " (replay with --seed=%" PRIu64 ")\n", seed, seed);
    static program generated;
    prog = &generated;
    heap.objects = calloc(MAX_OBJECTS, sizeof *heap.objects);
    if (!heap.objects)
        fatal("out of memory");
    random_state = seed;
    uint64_t expected = 0;
    int attempt = 0;
    for (;; attempt++) {
        if (attempt == MAX_ATTEMPTS)
            fatal("seed %" PRIu64 ": no program within the budget in %d attempts", seed, attempt);
        arena_free();
        random_program();
        expected = run_program();
        if (!heap.over)
            break;
    }
    if (expect) {
        printf("checksum 0x%016" PRIx64 "\n", expected);
        return 0;
    }
    char *text = emit_module(seed, level, expected);
    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out)
        fatal("cannot write %s", output);
    fputs(text, out);
    if (output && fclose(out) != 0)
        fatal("cannot write %s", output);
    free(text);
    return 0;
}
