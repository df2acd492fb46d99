/*
 * MPI_Status_c2f08, MPI_Status_f082c, MPI_Status_f082f, MPI_Status_f2f08
 * (MPI-4.1 19.3.5) on a status a receive filled: source, tag and error
 * survive every conversion, and so do what lives in the hidden fields, the
 * count (MPI_Get_count: the 7 doubles sent; MPI_Get_elements_x: 2^33 set
 * with MPI_Status_set_elements_x) and the cancelled flag. The MPI_F08_status
 * fields are MPICH's names and order (checked against the INTEGER array's
 * MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR). Then the errors: NULL or ignored
 * arguments are MPI_ERR_ARG.
 */
#include "mpi_test.h"

static int me, p;

/* C -> F08 -> INTEGER array -> F08 -> C. */
static void around(const MPI_Status *in, MPI_Status *out, MPI_F08_status *f08, MPI_Fint *f)
{
    MPI_F08_status back;
    MPI_OK(MPI_Status_c2f08(in, f08));
    MPI_OK(MPI_Status_f082f(f08, f));
    memset(&back, 0xff, sizeof(back));
    MPI_OK(MPI_Status_f2f08(f, &back));
    CHECK(memcmp(&back, f08, sizeof(back)) == 0, "f2f08(f082f(s)) differs from s");
    memset(out, 0xff, sizeof(*out));
    MPI_OK(MPI_Status_f082c(&back, out));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "MPI_F08_status is %zu bytes",
          sizeof(MPI_F08_status));
    double out[7] = { 1, 2, 3, 4, 5, 6, 7 }, in[7];
    int from = (me + p - 1) % p, to = (me + 1) % p, tag = 40 + me;
    MPI_Status st, c;
    MPI_F08_status f08;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_OK(MPI_Sendrecv(out, 7, MPI_DOUBLE, to, 40 + to, in, 7, MPI_DOUBLE, from, tag, MPI_COMM_WORLD, &st));
    st.MPI_ERROR = MPI_ERR_PENDING;   /* a value the receive left alone, to see it carried */
    around(&st, &c, &f08, f);
    CHECK(f08.MPI_SOURCE == from && f08.MPI_TAG == tag && f08.MPI_ERROR == MPI_ERR_PENDING,
          "c2f08: source %d tag %d error %d", f08.MPI_SOURCE, f08.MPI_TAG, f08.MPI_ERROR);
    CHECK(f[MPI_F_SOURCE] == from && f[MPI_F_TAG] == tag && f[MPI_F_ERROR] == MPI_ERR_PENDING,
          "f082f: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    CHECK(c.MPI_SOURCE == from && c.MPI_TAG == tag && c.MPI_ERROR == MPI_ERR_PENDING,
          "f082c: source %d tag %d error %d", c.MPI_SOURCE, c.MPI_TAG, c.MPI_ERROR);
    int n = -1, flag = 1;
    MPI_OK(MPI_Get_count(&c, MPI_DOUBLE, &n));
    MPI_OK(MPI_Test_cancelled(&c, &flag));
    CHECK(n == 7 && !flag, "after the round trip: count %d, cancelled %d", n, flag);
    /* the hidden fields: a count beyond 32 bits, and cancelled */
    MPI_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)1 << 33));
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    around(&st, &c, &f08, f);
    MPI_Count big = 0;
    MPI_OK(MPI_Get_elements_x(&c, MPI_BYTE, &big));
    MPI_OK(MPI_Test_cancelled(&c, &flag));
    CHECK(big == (MPI_Count)1 << 33 && flag, "after the round trip: %lld elements, cancelled %d", (long long)big,
          flag);
    /* errors */
    CHECK(mt_class(MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08)) == MPI_ERR_ARG, "c2f08(MPI_STATUS_IGNORE)");
    CHECK(mt_class(MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE)) == MPI_ERR_ARG, "c2f08(, MPI_F08_STATUS_IGNORE)");
    CHECK(mt_class(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &c)) == MPI_ERR_ARG, "f082c(MPI_F08_STATUS_IGNORE)");
    CHECK(mt_class(MPI_Status_f082c(&f08, MPI_STATUS_IGNORE)) == MPI_ERR_ARG, "f082c(, MPI_STATUS_IGNORE)");
    CHECK(mt_class(MPI_Status_f082f(NULL, f)) == MPI_ERR_ARG, "f082f(NULL)");
    CHECK(mt_class(MPI_Status_f082f(&f08, NULL)) == MPI_ERR_ARG, "f082f(, NULL)");
    CHECK(mt_class(MPI_Status_f2f08(NULL, &f08)) == MPI_ERR_ARG, "f2f08(NULL)");
    CHECK(mt_class(MPI_Status_f2f08(f, MPI_F08_STATUSES_IGNORE)) == MPI_ERR_ARG, "f2f08(, MPI_F08_STATUSES_IGNORE)");
    MPI_Finalize();
    if (me == 0)
        printf("status_f08: %d ranks ok\n", p);
    return 0;
}
