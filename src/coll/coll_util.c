/* Small helpers shared by the algorithms. */
#include <stdlib.h>
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
    *out = malloc(bytes);
    if (!*out)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a %zu-byte temporary buffer",
                            what, bytes);
    return RDMACH_OK;
}
