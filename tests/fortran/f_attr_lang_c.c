/*
 * f_attr_lang_c.c: the C half of f_attr_lang.F90 — reads from C the
 * attributes the Fortran half sets, and sets from C those it reads (MPI 4.1
 * §19.3.7). Handles come as Fortran INTEGERs, flags go back as 1/0.
 */
#include <stddef.h>
#include <mpi.h>

/* Set from Fortran with an INTEGER(KIND=MPI_ADDRESS_KIND): C gets the
 * address of the value, not the value. */
void c_comm_get_aint(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0;
    int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &p, &flag);
    *ok = rc == MPI_SUCCESS && flag && p && (MPI_Aint)p != *expected && *p == *expected;
}

void c_type_get_aint(MPI_Fint *type, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0;
    int rc = MPI_Type_get_attr(MPI_Type_f2c(*type), *key, &p, &flag);
    *ok = rc == MPI_SUCCESS && flag && p && (MPI_Aint)p != *expected && *p == *expected;
}

void c_win_get_aint(MPI_Fint *win, MPI_Fint *key, MPI_Aint *expected, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0;
    int rc = MPI_Win_get_attr(MPI_Win_f2c(*win), *key, &p, &flag);
    *ok = rc == MPI_SUCCESS && flag && p && (MPI_Aint)p != *expected && *p == *expected;
}

/* Set from Fortran with MPI_ATTR_PUT (an INTEGER): C gets the address of
 * an int holding it, by MPI_Attr_get and MPI_Comm_get_attr alike. */
void c_comm_get_int(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *expected, MPI_Fint *ok)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Fint *p = NULL, *q = NULL;
    int f1 = 0, f2 = 0;
    int rc1 = MPI_Attr_get(c, *key, &p, &f1);
    int rc2 = MPI_Comm_get_attr(c, *key, &q, &f2);
    *ok = rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && f1 && f2 && p && q && *p == *expected && *q == *expected;
}

/* Set from C: a pointer to a C int. Fortran gets the address as an
 * integer: *addr, and *low its low-order INTEGER (MPI_ATTR_GET). */
static int cvalue = 17, cvalue_win = 18;

void c_comm_set_ptr(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *addr, MPI_Fint *low, MPI_Fint *ok)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int rc = MPI_Comm_set_attr(c, *key, &cvalue);
    *addr = (MPI_Aint)&cvalue;
    *low = (MPI_Fint)(MPI_Aint)&cvalue;
    int *p = NULL, flag = 0;   /* C to C: the pointer itself */
    MPI_Comm_get_attr(c, *key, &p, &flag);
    *ok = rc == MPI_SUCCESS && flag && p == &cvalue;
}

void c_win_set_ptr(MPI_Fint *win, MPI_Fint *key, MPI_Aint *addr, MPI_Fint *ok)
{
    *ok = MPI_Win_set_attr(MPI_Win_f2c(*win), *key, &cvalue_win) == MPI_SUCCESS;
    *addr = (MPI_Aint)&cvalue_win;
}

/* A C attribute's pointer, read from C (after a copy from Fortran). */
void c_comm_get_ptr(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *ok)
{
    int *p = NULL, flag = 0;
    int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &p, &flag);
    *ok = rc == MPI_SUCCESS && flag && p == &cvalue && *p == 17;
}

/* A keyval created in C with MPI_COMM_DUP_FN. */
void c_create_dup_keyval(MPI_Fint *key)
{
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    *key = k;
}
