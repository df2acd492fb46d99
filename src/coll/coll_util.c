/* Small helpers shared by the algorithms. */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"

int rch_coll_always(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    (void)c;
    (void)a;
    return 1;
}

rdmach_status_t rch_coll_alloc(void **out, size_t bytes, const char *what)
{
    *out = NULL;
    if (bytes == 0)
        return RDMACH_OK;
    *out = rch_coll_scratch(bytes);
    if (!*out)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a %zu-byte temporary buffer",
                            what, bytes);
    return RDMACH_OK;
}

/* An allreduce's send vector copied to the receive buffer (the whole
 * reduction of one rank; nothing in place). */
void rch_coll_allreduce_copy(const struct rch_coll_args *a)
{
    if (a->sbuf != RCH_COLL_IN_PLACE && a->sbuf != a->rbuf && a->count)
        memcpy(a->rbuf, a->sbuf, a->count * a->op->elem_size);
}
