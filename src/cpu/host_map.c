/* Element-wise maps with the host's scalar rules (host_map.h). */
#include "host_map.h"

#include "host_loops.h"

clb__operand clb__operand_of(void *handle, clb_dtype dtype)
{
    clb__operand o = {(char *)handle, clb_dtype_size(dtype), dtype, clb__loader(dtype),
                 clb__storer(dtype)};
    return o;
}

clb__value clb__operand_read(const clb__operand *o, int64_t offset, clb_dtype as)
{
    clb__value v = o->load(o->base + offset * (int64_t)o->itemsize);
    return clb__convert(v, o->dtype, as);
}

void clb__operand_write(const clb__operand *o, int64_t offset, clb__value v, clb_dtype from)
{
    o->store(o->base + offset * (int64_t)o->itemsize, clb__convert(v, from, o->dtype));
}

typedef struct map_state {
    const clb__map_op *op;
    clb__operand out;
    clb__operand in[3];
    clb_dtype as[3]; /* what each input is converted to before the op */
} map_state;

static clb__value map_input(const map_state *s, const int64_t *offsets, int k)
{
    return clb__operand_read(&s->in[k], offsets[k + 1], s->as[k]);
}

static void unary_visit(const int64_t *offsets, void *user)
{
    const map_state *s = user;
    clb_unary_op op = (clb_unary_op)s->op->op;
    clb__value r = clb__unary_eval(op, s->op->compute, map_input(s, offsets, 0));
    clb__operand_write(&s->out, offsets[0], r, clb__unary_eval_dtype(op, s->op->compute));
}

static void binary_visit(const int64_t *offsets, void *user)
{
    const map_state *s = user;
    clb_binary_op op = (clb_binary_op)s->op->op;
    clb__value r = clb__binary_eval(op, s->op->compute, map_input(s, offsets, 0),
                                    map_input(s, offsets, 1));
    clb__operand_write(&s->out, offsets[0], r, clb__binary_eval_dtype(op, s->op->compute));
}

static void where_visit(const int64_t *offsets, void *user)
{
    const map_state *s = user;
    int chosen = map_input(s, offsets, 0).i ? 1 : 2;
    clb__operand_write(&s->out, offsets[0], map_input(s, offsets, chosen), s->op->compute);
}

void clb__host_map_run(const clb__map_op *op, const clb__plan *plan, void *const *handles)
{
    clb__host_loop_fn loop = clb__host_loops_enabled ? clb__host_loop_find(op) : NULL;
    if (loop) {
        clb__host_loop_run(loop, clb_dtype_size(op->out), plan, handles);
        return;
    }
    map_state s = {.op = op, .out = clb__operand_of(handles[0], op->out)};
    int nin = plan->nops - 1;
    for (int k = 0; k < nin; k++) {
        s.in[k] = clb__operand_of(handles[k + 1], op->in[k]);
        s.as[k] = op->compute;
    }
    clb__plan_visit_fn visit = unary_visit;
    if (op->kind == CLB__MAP_BINARY)
        visit = binary_visit;
    if (op->kind == CLB__MAP_WHERE) {
        visit = where_visit;
        s.as[0] = CLB_BOOL; /* the condition is read for its truthiness */
    }
    clb__plan_for_each(plan, visit, &s);
}
