/*
 * Tables of invalid calls for the conformance tests: each entry the call's
 * return code, the error class MPI 4.1 9.4 gives it, and the function and
 * argument its message must name (the argument as a word outside the
 * function's name: "tag" in "MPI_Status_get_tag: ..." does not count).
 * Every mismatch of a table is printed, then the test fails.
 */
#ifndef RDMACH_TESTS_MPI_CONF_TABLE_H
#define RDMACH_TESTS_MPI_CONF_TABLE_H

#include <ctype.h>
#include "mpi_test.h"

static int conf_checks;     /* checks made, for the test's summary line */

struct conf_bad {
    int rc, cls;
    const char *fn, *arg;
};

#define CONF_N(a) (sizeof(a) / sizeof((a)[0]))
#define CONF_TRUE(cond, ...) do { conf_checks++; CHECK(cond, __VA_ARGS__); } while (0)

static inline int conf_is_word(char c)
{
    return c == '_' || isalnum((unsigned char)c);
}

static inline int conf_names_word(const char *msg, const char *fn, const char *word)
{
    char m[MPI_MAX_ERROR_STRING];
    snprintf(m, sizeof m, "%s", msg);
    for (char *f = strstr(m, fn); f; f = strstr(f, fn))
        memset(f, ' ', strlen(fn));
    size_t n = strlen(word);
    for (const char *w = strstr(m, word); w; w = strstr(w + 1, word))
        if (!conf_is_word(w == m ? ' ' : w[-1]) && !conf_is_word(w[n]))
            return 1;
    return 0;
}

static inline void conf_expect_all(const struct conf_bad *b, size_t n)
{
    int wrong = 0;
    for (size_t k = 0; k < n; k++) {
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0, cls = mt_class(b[k].rc);
        MPI_Error_string(b[k].rc, msg, &len);
        conf_checks += 3;
        if (cls != b[k].cls || !strstr(msg, b[k].fn) || !conf_names_word(msg, b[k].fn, b[k].arg)) {
            fprintf(stderr, "[rank %d] %s (entry %zu): class %d, expected %d; the message must name %s and %s: %s\n",
                    mt_rank, b[k].fn, k, cls, b[k].cls, b[k].fn, b[k].arg, msg);
            wrong++;
        }
    }
    CHECK(wrong == 0, "%d of %zu calls raised the wrong error", wrong, n);
}

#endif
