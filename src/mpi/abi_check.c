/*
 * The MPICH ABI drop-in's start-up check: a program built against MPICH
 * must not start on rdmach if it uses an MPI function rdmach lacks.
 *
 * Why: the dynamic loader binds functions lazily unless the program was
 * linked with -z now or LD_BIND_NOW is set. A missing variable (or a function
 * whose address is taken) already stops the program at load time with
 * "undefined symbol", but a missing function called through the PLT is only
 * looked up at its first call: the program would run for a while and die in
 * the middle of the job (still "symbol lookup error ... undefined symbol",
 * never a wrong result). To make it fail at start instead, MPI_Init walks the
 * relocations of every loaded object (the program and its libraries), takes
 * each non-weak undefined symbol named MPI_*, PMPI_*, MPIX_* or MPIR_* (or a
 * Fortran binding's mpi_*_ / pmpi_*_, served by libmpichfort.so.12, or a
 * procedure of MPICH's Fortran modules, __mpi_*), and
 * asks the loader whether it resolves. If any does not, the job ends as the
 * loader would end it, naming the symbols, with exit code 127.
 *
 * Weak references are a program's "use it if present" and are skipped.
 * RDMACH_ABI_CHECK=off restores plain lazy binding (for a program that
 * references, but never calls, a function rdmach lacks).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

#define MAX_LISTED 8

/* rdmach builds for x86-64 (mpi.h is MPICH's LP64 ABI): 64-bit ELF. */
_Static_assert(sizeof(void *) == 8, "the ABI check reads 64-bit ELF");

struct scan {
    void *self;                 /* this library's handle, or NULL */
    int missing;
    char obj[256];              /* the first object with a missing symbol */
    const char *names[MAX_LISTED];
};

/* C names, the Fortran bindings' link names (mpi_send_, pmpi_send_,
 * MPI_SEND: gfortran's lower case with a trailing underscore, or upper case)
 * and gfortran's names for the procedures of MPICH's modules
 * (__mpi_sizeofs_MOD_mpi_sizeof_i, __mpi_f08_types_MOD_mpi_status_f2f08),
 * of which rdmach's libmpichfort.so.12 has only some (mpi_f08's, named as
 * MPICH names them: src/binding/gen_f08.py). */
static int is_mpi_name(const char *n)
{
    size_t len = strlen(n);
    int fortran = (len > 0 && n[len - 1] == '_' &&
                   (strncmp(n, "mpi_", 4) == 0 || strncmp(n, "pmpi_", 5) == 0)) ||
                  strncmp(n, "__mpi_", 6) == 0;
    return fortran || strncmp(n, "MPI_", 4) == 0 || strncmp(n, "PMPI_", 5) == 0 ||
           strncmp(n, "MPIX_", 5) == 0 || strncmp(n, "MPIR_", 5) == 0;
}

static int resolves(const struct scan *s, const char *name)
{
    if (dlsym(RTLD_DEFAULT, name))
        return 1;
    /* Loaded with RTLD_LOCAL (e.g. by an interpreter's dlopen), rdmach's own
     * symbols are not in the global scope; the object that needs them was
     * linked against us and sees them. */
    return s->self && dlsym(s->self, name);
}

static void note_missing(struct scan *s, const char *objname, const char *name)
{
    for (int i = 0; i < s->missing && i < MAX_LISTED; i++)
        if (strcmp(s->names[i], name) == 0)
            return;
    if (s->missing == 0)
        snprintf(s->obj, sizeof(s->obj), "%s", objname);
    if (s->missing < MAX_LISTED)
        s->names[s->missing] = name;
    s->missing++;
}

/* dynamic-section addresses: ld.so has relocated most of them to absolute
 * addresses in memory; any still below the load base are offsets. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static void scan_relocs(struct scan *s, const char *objname, const ElfW(Sym) *symtab, const char *strtab,
                        uintptr_t table, size_t bytes, int is_rela)
{
    size_t ent = is_rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    for (size_t off = 0; table && off + ent <= bytes; off += ent) {
        ElfW(Xword) info = is_rela ? ((const ElfW(Rela) *)(table + off))->r_info
                                   : ((const ElfW(Rel) *)(table + off))->r_info;
        size_t idx = ELF64_R_SYM(info);
        if (idx == 0)
            continue;
        const ElfW(Sym) *sym = &symtab[idx];
        if (sym->st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym->st_info) == STB_WEAK)
            continue;
        const char *name = strtab + sym->st_name;
        if (is_mpi_name(name) && !resolves(s, name))
            note_missing(s, objname, name);
    }
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct scan *s = arg;
    const char *objname = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : program_invocation_name;
    if (strstr(objname, "linux-vdso") || strstr(objname, "ld-linux"))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    uintptr_t rela = 0, rel = 0, jmprel = 0;
    size_t relasz = 0, relsz = 0, pltrelsz = 0;
    long pltrel = DT_RELA;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_addr(info, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_addr(info, d->d_un.d_ptr); break;
        case DT_RELA: rela = dyn_addr(info, d->d_un.d_ptr); break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_REL: rel = dyn_addr(info, d->d_un.d_ptr); break;
        case DT_RELSZ: relsz = d->d_un.d_val; break;
        case DT_JMPREL: jmprel = dyn_addr(info, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab)
        return 0;
    scan_relocs(s, objname, symtab, strtab, rela, relasz, 1);
    scan_relocs(s, objname, symtab, strtab, rel, relsz, 0);
    scan_relocs(s, objname, symtab, strtab, jmprel, pltrelsz, pltrel == DT_RELA);
    return 0;
}

void rch_mpi_abi_check(void)
{
    if (!rch_tun.abi_check)
        return;
    struct scan s = { 0 };
    Dl_info self;
    if (dladdr((void *)rch_mpi_abi_check, &self) && self.dli_fname)
        s.self = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    dl_iterate_phdr(scan_object, &s);
    if (s.missing) {
        char msg[1024];
        int n = snprintf(msg, sizeof(msg), "symbol lookup error: %s: undefined symbol%s: ", s.obj,
                         s.missing > 1 ? "s" : "");
        for (int i = 0; i < s.missing && i < MAX_LISTED && n < (int)sizeof(msg); i++)
            n += snprintf(msg + n, sizeof(msg) - (size_t)n, "%s%s", i ? ", " : "", s.names[i]);
        if (n < (int)sizeof(msg))
            snprintf(msg + n, sizeof(msg) - (size_t)n,
                     "%s (the program uses MPI functions rdmach does not provide; RDMACH_ABI_CHECK=off "
                     "lets it run until it calls one)",
                     s.missing > MAX_LISTED ? ", ..." : "");
        rch_boot_abort(127, msg);
    }
    if (s.self)
        dlclose(s.self);
}
