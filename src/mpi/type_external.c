/*
 * MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the
 * "external32" representation (MPI 4.1 §14.5.2), the only data
 * representation the standard defines for them.
 *
 * external32 is big-endian; integers are two's complement of the sizes of
 * the standard's table (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes there,
 * MPI_WCHAR 2: packing keeps the low bytes of the native value, unpacking
 * sign- or zero-extends); floating point is IEEE 754 (MPI_LONG_DOUBLE is
 * binary128, converted from and to the x87 80-bit format: same sign and
 * exponent, the 64-bit significand without its explicit integer bit as the
 * top of the 112-bit fraction; MPI_REAL16 and MPI_COMPLEX32, gfortran's
 * REAL(16) and COMPLEX(16), are binary128 here already, as in op_bind.c:
 * only their bytes are reversed); complex types are two such reals; C and
 * C++ bools are 1 byte.
 *
 * How: the data is packed natively (type_pack.c, type-map order) into a
 * temporary, then converted basic element by basic element along the
 * type's runs (one run per stretch of one basic type). Unpacking reverses
 * both steps.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/type_impl.h"

enum xclass { X_INT, X_UINT, X_FLOAT, X_LDOUBLE };

/* How one basic element travels: `parts` values of class c, each `native`
 * bytes here and `ext` bytes in external32 (complex: 2 parts). */
struct xform {
    MPI_Datatype type;
    enum xclass c;
    unsigned parts, native, ext;
};

static const struct xform xforms[] = {
    { MPI_PACKED, X_UINT, 1, 1, 1 },        { MPI_BYTE, X_UINT, 1, 1, 1 },
    { MPI_CHAR, X_INT, 1, 1, 1 },           { MPI_SIGNED_CHAR, X_INT, 1, 1, 1 },
    { MPI_UNSIGNED_CHAR, X_UINT, 1, 1, 1 }, { MPI_WCHAR, X_UINT, 1, 4, 2 },
    { MPI_SHORT, X_INT, 1, 2, 2 },          { MPI_UNSIGNED_SHORT, X_UINT, 1, 2, 2 },
    { MPI_INT, X_INT, 1, 4, 4 },            { MPI_UNSIGNED, X_UINT, 1, 4, 4 },
    { MPI_LONG, X_INT, 1, sizeof(long), 4 }, { MPI_UNSIGNED_LONG, X_UINT, 1, sizeof(long), 4 },
    { MPI_LONG_LONG_INT, X_INT, 1, 8, 8 },  { MPI_UNSIGNED_LONG_LONG, X_UINT, 1, 8, 8 },
    { MPI_FLOAT, X_FLOAT, 1, 4, 4 },        { MPI_DOUBLE, X_FLOAT, 1, 8, 8 },
    { MPI_LONG_DOUBLE, X_LDOUBLE, 1, 16, 16 },
    { MPI_C_BOOL, X_UINT, 1, 1, 1 },        { MPI_CXX_BOOL, X_UINT, 1, 1, 1 },
    { MPI_INT8_T, X_INT, 1, 1, 1 },         { MPI_INT16_T, X_INT, 1, 2, 2 },
    { MPI_INT32_T, X_INT, 1, 4, 4 },        { MPI_INT64_T, X_INT, 1, 8, 8 },
    { MPI_UINT8_T, X_UINT, 1, 1, 1 },       { MPI_UINT16_T, X_UINT, 1, 2, 2 },
    { MPI_UINT32_T, X_UINT, 1, 4, 4 },      { MPI_UINT64_T, X_UINT, 1, 8, 8 },
    { MPI_AINT, X_INT, 1, 8, 8 },           { MPI_OFFSET, X_INT, 1, 8, 8 },
    { MPI_COUNT, X_INT, 1, 8, 8 },
    { MPI_C_FLOAT_COMPLEX, X_FLOAT, 2, 4, 4 }, { MPI_C_DOUBLE_COMPLEX, X_FLOAT, 2, 8, 8 },
    { MPI_C_LONG_DOUBLE_COMPLEX, X_LDOUBLE, 2, 16, 16 },
    { MPI_CXX_FLOAT_COMPLEX, X_FLOAT, 2, 4, 4 }, { MPI_CXX_DOUBLE_COMPLEX, X_FLOAT, 2, 8, 8 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, X_LDOUBLE, 2, 16, 16 },
    /* Fortran */
    { MPI_CHARACTER, X_UINT, 1, 1, 1 },     { MPI_LOGICAL, X_INT, 1, 4, 4 },
    { MPI_INTEGER, X_INT, 1, 4, 4 },        { MPI_REAL, X_FLOAT, 1, 4, 4 },
    { MPI_DOUBLE_PRECISION, X_FLOAT, 1, 8, 8 }, { MPI_COMPLEX, X_FLOAT, 2, 4, 4 },
    { MPI_DOUBLE_COMPLEX, X_FLOAT, 2, 8, 8 },
    { MPI_INTEGER1, X_INT, 1, 1, 1 },       { MPI_INTEGER2, X_INT, 1, 2, 2 },
    { MPI_INTEGER4, X_INT, 1, 4, 4 },       { MPI_INTEGER8, X_INT, 1, 8, 8 },
    { MPI_REAL4, X_FLOAT, 1, 4, 4 },        { MPI_REAL8, X_FLOAT, 1, 8, 8 },
    { MPI_REAL16, X_FLOAT, 1, 16, 16 },     /* binary128: reversed, not converted */
    { MPI_COMPLEX8, X_FLOAT, 2, 4, 4 },     { MPI_COMPLEX16, X_FLOAT, 2, 8, 8 },
    { MPI_COMPLEX32, X_FLOAT, 2, 16, 16 },
};

static const struct xform *xform_of(MPI_Datatype t)
{
    for (size_t i = 0; i < sizeof(xforms) / sizeof(xforms[0]); i++)
        if (xforms[i].type == t)
            return &xforms[i];
    return NULL;
}

/* External bytes of one element of t, or -1 if a basic type has no
 * external32 form. */
static MPI_Aint ext_size(const struct rch_mpi_type_obj *o)
{
    MPI_Aint n = 0;
    for (int k = 0; k < o->nruns; k++) {
        const struct xform *x = xform_of(o->runs[k].type);
        if (!x || x->native * x->parts != o->runs[k].esize)
            return -1;
        n += (MPI_Aint)(x->ext * x->parts) * (MPI_Aint)o->runs[k].count;
    }
    return n;
}

/* x87 80-bit (in 16 bytes, little-endian) <-> binary128 big-endian. */
static void ld_to_quad(const unsigned char *in, unsigned char *out)
{
    uint64_t sig;
    uint16_t se;
    memcpy(&sig, in, 8);
    memcpy(&se, in + 8, 2);
    /* fraction: the significand's 63 bits below the integer bit, on top of 112 */
    uint64_t hi = (uint64_t)se << 48 | (sig << 1) >> 16, lo = sig << 49;
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(hi >> (56 - 8 * i));
        out[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
}

static void quad_to_ld(const unsigned char *in, unsigned char *out)
{
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = hi << 8 | in[i];
        lo = lo << 8 | in[8 + i];
    }
    uint16_t se = (uint16_t)(hi >> 48);
    uint64_t frac = (hi << 16) | (lo >> 48);           /* the top 64 of the 112 fraction bits */
    uint64_t sig = (frac >> 1) | ((se & 0x7fffu) ? 1ull << 63 : 0);
    memset(out, 0, 16);
    memcpy(out, &sig, 8);
    memcpy(out + 8, &se, 2);
}

/* One value of x: native (little-endian) <-> external32. */
static void to_ext(const struct xform *x, const unsigned char *in, unsigned char *out)
{
    if (x->c == X_LDOUBLE) {
        ld_to_quad(in, out);
        return;
    }
    for (unsigned i = 0; i < x->ext; i++)   /* the low ext bytes, most significant first */
        out[i] = in[x->ext - 1 - i];
}

static void from_ext(const struct xform *x, const unsigned char *in, unsigned char *out)
{
    if (x->c == X_LDOUBLE) {
        quad_to_ld(in, out);
        return;
    }
    for (unsigned i = 0; i < x->ext; i++)
        out[i] = in[x->ext - 1 - i];
    unsigned char fill = x->c == X_INT && (in[0] & 0x80) ? 0xff : 0;
    for (unsigned i = x->ext; i < x->native; i++)
        out[i] = fill;
}

/* count elements of o: native packed bytes <-> external32 bytes. */
static void convert(const struct rch_mpi_type_obj *o, int count, unsigned char *native, unsigned char *ext,
                    int to_external)
{
    for (int e = 0; e < count; e++)
        for (int k = 0; k < o->nruns; k++) {
            const struct xform *x = xform_of(o->runs[k].type);
            size_t n = o->runs[k].count * x->parts;
            for (size_t j = 0; j < n; j++, native += x->native, ext += x->ext) {
                if (to_external)
                    to_ext(x, native, ext);
                else
                    from_ext(x, ext, native);
            }
        }
}

/* The checks all three calls share; the type's external size per element in *per. */
static int check(const char *fn, const char *datarep, int count, MPI_Datatype dt, MPI_Aint *per,
                 struct rch_mpi_type_obj **out)
{
    int rc;
    char d[96];
    if ((rc = rch_mpi_check_init(fn)))
        return rc;
    if (!datarep || strcmp(datarep, "external32") != 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: data representation '%s' in argument datarep: only "
                           "\"external32\" is defined", fn, datarep ? datarep : "(null)");
    if (count < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    struct rch_mpi_type_obj *o = rch_mpi_type_arg(fn, "datatype", dt, &rc);
    if (!o)
        return rc;
    if (!o->t.committed)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: datatype %s is not committed", fn,
                           rch_mpi_type_describe(dt, d, sizeof(d)));
    if ((*per = ext_size(o)) < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: datatype %s holds a type with no external32 form",
                           fn, rch_mpi_type_describe(dt, d, sizeof(d)));
    *out = o;
    return MPI_SUCCESS;
}

static int check_room(const char *fn, const MPI_Aint *position, MPI_Aint size, MPI_Aint need, const char *what)
{
    if (!position)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument position", fn);
    if (*position < 0 || *position > size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: position %ld outside the %ld-byte buffer", fn,
                           (long)*position, (long)size);
    if (need > size - *position)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TRUNCATE, "%s: %ld bytes of external32 data, %ld left in %s", fn,
                           (long)need, (long)(size - *position), what);
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pack_external_size";
    struct rch_mpi_type_obj *o;
    MPI_Aint per;
    int rc = check(fn, datarep, incount, datatype, &per, &o);
    if (rc)
        return rc;
    if (!size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument size", fn);
    *size = per * incount;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Aint outsize, MPI_Aint *position)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pack_external";
    struct rch_mpi_type_obj *o;
    MPI_Aint per;
    int rc = check(fn, datarep, incount, datatype, &per, &o);
    if (rc || (rc = check_room(fn, position, outsize, per * incount, "outbuf")))
        return rc;
    if (per * incount == 0)
        return MPI_SUCCESS;
    if (!inbuf || !outbuf)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: NULL pointer in argument %s", fn,
                           inbuf ? "outbuf" : "inbuf");
    unsigned char *tmp = malloc((size_t)incount * o->t.size);
    if (!tmp)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for %zu bytes", fn,
                           (size_t)incount * o->t.size);
    rch_mpi_type_pack(inbuf, incount, &o->t, tmp);
    convert(o, incount, tmp, (unsigned char *)outbuf + *position, 1);
    free(tmp);
    *position += per * incount;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                         void *outbuf, int outcount, MPI_Datatype datatype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Unpack_external";
    struct rch_mpi_type_obj *o;
    MPI_Aint per;
    int rc = check(fn, datarep, outcount, datatype, &per, &o);
    if (rc || (rc = check_room(fn, position, insize, per * outcount, "inbuf")))
        return rc;
    if (per * outcount == 0)
        return MPI_SUCCESS;
    if (!inbuf || !outbuf)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: NULL pointer in argument %s", fn,
                           inbuf ? "outbuf" : "inbuf");
    size_t bytes = (size_t)outcount * o->t.size;
    unsigned char *tmp = malloc(bytes);
    if (!tmp)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for %zu bytes", fn, bytes);
    convert(o, outcount, tmp, (unsigned char *)inbuf + *position, 0);
    rch_mpi_type_unpack(tmp, bytes, outbuf, outcount, &o->t);
    free(tmp);
    *position += per * outcount;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external
