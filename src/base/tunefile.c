/*
 * Tuning files (docs/TUNING.md): one reader for the whole file. It checks the
 * header ('rdmach-tuning 1'), cuts comments, splits each line at blanks and
 * hands it on: `tunable NAME VALUE` lines (values measured by rdmach-tune:
 * the large-message strategy within a node, ...) are the base layer's, every
 * other row goes to the caller's row function (src/coll's collective rows).
 * Every error names path:line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"

/* A `tunable NAME VALUE` line, applied unless the environment set NAME. */
static rdmach_status_t tunable_line(const char *path, int lineno, char **f, int nf)
{
    char why[1100];
    if (nf != 3)
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: expected 'tunable NAME VALUE', "
                            "found %s%d fields", path, lineno, nf > 3 ? "more than " : "", nf > 3 ? 3 : nf);
    snprintf(why, sizeof(why), "tuning file %s:%d", path, lineno);
    rdmach_status_t st = rch_base_tun_set(f[1], f[2], RCH_TUN_FROM_FILE, why);
    if (st != RDMACH_OK) {
        char cause[512];     /* the message is rebuilt in the same buffer */
        snprintf(cause, sizeof(cause), "%s", rdmach_last_error());
        st = rch_base_err(RDMACH_ERR_CONFIG, "%s: %s", why, cause);
    }
    return st;
}

/* Cut a comment and split at blanks; *nf = fields found, up to
 * RCH_TUNE_FILE_FIELDS + 1 so that "too many" is detectable. */
static int split(char *line, char **f)
{
    char *hash = strchr(line, '#'), *save = NULL;
    int nf = 0;
    if (hash)
        *hash = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && nf <= RCH_TUNE_FILE_FIELDS;
         t = strtok_r(NULL, " \t\r\n", &save))
        f[nf++] = t;
    return nf;
}

rdmach_status_t rch_base_tune_file_read(const char *path, int apply_tunables, rch_tune_row_fn row, void *ctx)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s: cannot open it: %s", path,
                            strerror(errno));
    char line[1024], *f[RCH_TUNE_FILE_FIELDS + 1];
    int lineno = 0, header = 0;
    rdmach_status_t st = RDMACH_OK;
    while (st == RDMACH_OK && fgets(line, sizeof(line), fp)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(fp)) {
            st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: line longer than %zu "
                              "characters", path, lineno, sizeof(line) - 2);
            break;
        }
        int nf = split(line, f);
        if (nf == 0)
            continue;
        if (!header) {
            header = 1;
            if (nf != 2 || strcmp(f[0], "rdmach-tuning") != 0)
                st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: expected the header "
                                  "'rdmach-tuning 1' before any row", path, lineno);
            else if (strcmp(f[1], "1") != 0)
                st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: format version '%s' is "
                                  "not supported (this rdmach reads version 1)", path, lineno, f[1]);
            continue;
        }
        if (strcmp(f[0], "tunable") == 0) {
            if (apply_tunables)
                st = tunable_line(path, lineno, f, nf);
        } else if (row) {
            st = row(ctx, path, lineno, f, nf);
        }
    }
    if (st == RDMACH_OK && ferror(fp))
        st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s: read error after line %d", path, lineno);
    if (st == RDMACH_OK && !header)
        st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: no 'rdmach-tuning 1' header "
                          "(the file is empty)", path, lineno);
    fclose(fp);
    return st;
}

rdmach_status_t rch_base_tun_file(const char *path)
{
    return rch_base_tune_file_read(path, 1, NULL, NULL);
}
