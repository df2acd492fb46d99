/*
 * Attributes across languages (MPI 4.1 §19.3.7): what the C library exports
 * for the Fortran bindings (fort_special.c, in the Fortran library), under
 * MPICH's names and signatures (its libmpich.so.12 exports the same).
 *
 * An attribute remembers how it was set: from C (a pointer), from Fortran
 * with an INTEGER (MPI_ATTR_PUT) or with an INTEGER(KIND=MPI_ADDRESS_KIND)
 * (MPI_COMM/TYPE/WIN_SET_ATTR). The stored value is the pointer or the
 * integer, either way in a void *. What a getter receives:
 *
 *   set from \ got by   C (MPIR_ATTR_PTR)         Fortran (_INT or _AINT)
 *   C                   the pointer               the pointer as an integer
 *   Fortran             the address of the value  the value
 *
 * (a Fortran INTEGER getter, MPI_ATTR_GET, truncates: the binding's part).
 * C copy and delete callbacks of an attribute set from Fortran get the
 * address of (a copy of) the value, as the getter would; a keyval whose
 * callbacks are Fortran procedures has proxies (MPII_Keyval_set_proxy) that
 * pass them the stored value as it is. The predefined keys are C's here:
 * the getters return their address whatever the out type (the Fortran
 * binding maps the Fortran keys and reads the value).
 */
#ifndef RCH_MPI_ATTR_LANG_H
#define RCH_MPI_ATTR_LANG_H

#include <mpi.h>

/* MPICH's values: bit 0 set for the Fortran (integer) kinds. */
typedef enum {
    MPIR_ATTR_PTR = 0,
    MPIR_ATTR_AINT = 1,
    MPIR_ATTR_INT = 3
} MPIR_Attr_type;

#define MPII_ATTR_KIND(a) ((a) & 0x1)

RDMACH_MPI_PUBLIC int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, MPIR_Attr_type type);
RDMACH_MPI_PUBLIC int MPII_Type_set_attr(MPI_Datatype dtype, int keyval, void *value, MPIR_Attr_type type);
RDMACH_MPI_PUBLIC int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, MPIR_Attr_type type);
RDMACH_MPI_PUBLIC int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag,
                                         MPIR_Attr_type out_type);
RDMACH_MPI_PUBLIC int MPII_Type_get_attr(MPI_Datatype dtype, int keyval, void *value, int *flag,
                                         MPIR_Attr_type out_type);
RDMACH_MPI_PUBLIC int MPII_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag,
                                        MPIR_Attr_type out_type);

/* How a keyval's callbacks are called: user_function is the copy or delete
 * function given at its creation, attrib the stored value, attrib_type how
 * it was set. Handles of all kinds are ints (MPI_Comm in the prototypes). */
typedef int(MPII_Attr_copy_proxy)(MPI_Comm_copy_attr_function *user_function, int handle, int keyval,
                                  void *extra_state, MPIR_Attr_type attrib_type, void *attrib,
                                  void **attrib_copy, int *flag);
typedef int(MPII_Attr_delete_proxy)(MPI_Comm_delete_attr_function *user_function, int handle, int keyval,
                                    MPIR_Attr_type attrib_type, void *attrib, void *extra_state);
RDMACH_MPI_PUBLIC void MPII_Keyval_set_proxy(int keyval, MPII_Attr_copy_proxy copy_proxy,
                                             MPII_Attr_delete_proxy delete_proxy);

#endif
