/*
 * Rewriting other objects' relocations of a few functions so that their
 * calls reach a hook (net_reloc.c: how, what is and is not covered).
 * Used by the registration cache's memory monitor (net_memhook.c).
 * Not thread-safe: the caller serializes patch and restore.
 */
#ifndef RCH_RDMA_NET_RELOC_H
#define RCH_RDMA_NET_RELOC_H

struct rch_net_reloc_hook {
    const char *name;        /* the function's symbol name */
    void *hook;              /* what calls to it reach instead */
    void *next;              /* the definition the process binds to; the hook calls it */
};

/* 1 if this build can patch relocations (ELF64 x86_64/aarch64). */
int rch_net_reloc_supported(void);
/* Patch every loaded object not yet patched; returns the slots rewritten now. */
int rch_net_reloc_patch(const struct rch_net_reloc_hook *hooks, int nhooks);
/* Put back every slot patched. */
void rch_net_reloc_restore(void);

#endif
