/* callback_reach.c — whether a managed function's address may reach C.
 *
 * C that calls a managed function must call it through its entry
 * (callbacks.c), and then every call through the address pays the entry's
 * check. An interpreter's dispatch table, `static const handler table[] =
 * {op_add, ...}` read only by `table[op](...)` in managed code, holds
 * addresses only managed code calls: those functions keep their own
 * address. Every other address may reach C and becomes the entry.
 *
 *   use of the address (or of what carries it)      may reach C?
 *   callee of a call in managed code                no
 *   icmp                                            no
 *   cast, select, phi, extractvalue, insertvalue,   as that value's uses
 *     constant aggregate
 *   stored into, or the initializer of, a local     as that memory's uses: only
 *     or an internal global                           loads, stores into it, memset
 *                                                     and icmp in managed code;
 *                                                     a load of a pointer (or of a
 *                                                     word) as the loaded value
 *   anything else: an argument, a return, C code,   yes
 *     an external global, memory whose address
 *     escapes
 *
 * A function that is not internal may be taken by address in another file:
 * yes, unless the module is the whole program. Cycles (a loaded address
 * stored back) are followed once, optimistically: every use is checked
 * where it is first met.
 */
#include "pass.h"
#include "util.h"

typedef struct {
    const polls_pass *pass;
    ptr_table followed; /* values and memory already followed */
} reach_walk;

static int value_may_reach_c(reach_walk *walk, LLVMValueRef value);

/* Whether the value is met for the first time (and now followed). */
static int first_visit(reach_walk *walk, LLVMValueRef value)
{
    if (ptr_table_contains(&walk->followed, value))
        return 0;
    ptr_table_put(&walk->followed, value, 1);
    return 1;
}

static int in_managed_code(const polls_pass *pass, LLVMValueRef inst)
{
    LLVMValueRef function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst));
    return (function_flags(pass, function) & FUNCTION_MANAGED) != 0;
}

/* A call whose only use of value is as the callee. */
static int only_calls(LLVMValueRef call, LLVMValueRef value)
{
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++)
        if (LLVMGetOperand(call, i) == value)
            return 0;
    return LLVMGetCalledValue(call) == value;
}

/* A loaded type that can carry an address: a pointer, or a word (clang
 * moves pointers in i64) or anything wider. */
static int may_hold_address(LLVMTypeRef type)
{
    switch (LLVMGetTypeKind(type)) {
    case LLVMIntegerTypeKind:
        return LLVMGetIntTypeWidth(type) >= 64;
    case LLVMHalfTypeKind:
    case LLVMBFloatTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
        return 0;
    default:
        return 1;
    }
}

/* The uses of an address into memory that holds function addresses. */
static int address_uses_may_reach_c(reach_walk *walk, LLVMValueRef address)
{
    for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAConstantExpr(user)) {
            LLVMOpcode opcode = LLVMGetConstOpcode(user);
            if ((opcode == LLVMGetElementPtr || opcode == LLVMBitCast) &&
                LLVMGetOperand(user, 0) == address && !address_uses_may_reach_c(walk, user))
                continue;
            return 1;
        }
        if (!LLVMIsAInstruction(user) || !in_managed_code(walk->pass, user))
            return 1;
        if (LLVMIsALoadInst(user)) {
            if (may_hold_address(LLVMTypeOf(user)) && value_may_reach_c(walk, user))
                return 1;
        } else if (LLVMIsAStoreInst(user)) {
            if (LLVMGetOperand(user, 0) == address)
                return 1; /* the memory's address is stored: it escapes */
        } else if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) ||
                   LLVMIsAPHINode(user) || LLVMIsASelectInst(user)) {
            if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) != address)
                return 1;
            if (first_visit(walk, user) && address_uses_may_reach_c(walk, user))
                return 1;
        } else if (is_call_site(user)) {
            /* Zeroing, or the end of a local's life; a memcpy out copies them. */
            if (!calls_function_prefixed(user, "llvm.memset.") &&
                !calls_function_prefixed(user, "llvm.lifetime."))
                return 1;
        } else if (!LLVMIsAICmpInst(user)) {
            return 1;
        }
    }
    return 0;
}

/* Memory the value is stored into: a local or an internal global, or NULL. */
static LLVMValueRef memory_of(LLVMValueRef address)
{
    LLVMValueRef base = strip_address(address);
    if (LLVMIsAAllocaInst(base) || (LLVMIsAGlobalVariable(base) && has_internal_linkage(base)))
        return base;
    return NULL;
}

static int memory_may_reach_c(reach_walk *walk, LLVMValueRef memory)
{
    return first_visit(walk, memory) && address_uses_may_reach_c(walk, memory);
}

static int value_may_reach_c(reach_walk *walk, LLVMValueRef value)
{
    if (!first_visit(walk, value))
        return 0;
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAGlobalVariable(user)) { /* value is its initializer */
            if (has_internal_linkage(user) && !memory_may_reach_c(walk, user))
                continue;
            return 1;
        }
        if (LLVMIsABlockAddress(user))
            continue; /* a label of the function, not its address */
        if (LLVMIsAConstantExpr(user)) {
            LLVMOpcode opcode = LLVMGetConstOpcode(user);
            if ((opcode == LLVMBitCast || opcode == LLVMAddrSpaceCast) &&
                !value_may_reach_c(walk, user))
                continue;
            return 1;
        }
        if (LLVMIsAConstantStruct(user) || LLVMIsAConstantArray(user) ||
            LLVMIsAConstantVector(user)) {
            if (!value_may_reach_c(walk, user))
                continue;
            return 1;
        }
        if (!LLVMIsAInstruction(user) || !in_managed_code(walk->pass, user))
            return 1;
        if (is_call_site(user)) {
            if (!only_calls(user, value))
                return 1;
        } else if (LLVMIsAStoreInst(user)) {
            LLVMValueRef memory = memory_of(LLVMGetOperand(user, 1));
            if (LLVMGetOperand(user, 0) != value || !memory || memory_may_reach_c(walk, memory))
                return 1;
        } else if (LLVMIsACastInst(user) || LLVMIsAPHINode(user) || LLVMIsASelectInst(user) ||
                   LLVMIsAExtractValueInst(user) || LLVMIsAInsertValueInst(user)) {
            if (value_may_reach_c(walk, user))
                return 1;
        } else if (!LLVMIsAICmpInst(user)) {
            return 1;
        }
    }
    return 0;
}

int function_address_may_reach_c(const polls_pass *pass, LLVMValueRef function)
{
    /* In a whole program, C in other files may not take a managed function's
     * address (docs/managed-c.md, rule 5): this module sees every use. */
    if (!has_internal_linkage(function) && !pass->options.whole_program)
        return 1;
    reach_walk walk = {.pass = pass};
    ptr_table_init(&walk.followed);
    int reaches = value_may_reach_c(&walk, function);
    ptr_table_free(&walk.followed);
    return reaches;
}
