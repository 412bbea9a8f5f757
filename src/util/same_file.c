/* same_file.c — do two paths name one file (same_file.h)? */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "same_file.h"

/* The file a path names: its inode when it exists, else its folder's real path
 * and its last part. */
static bool file_key(const char *path, char *buf, size_t size, dev_t *dev, ino_t *ino) {
    struct stat st;
    if (stat(path, &st) == 0) {
        *dev = st.st_dev;
        *ino = st.st_ino;
        buf[0] = '\0';
        return true;
    }
    char dir[4096];
    kvp__strlcpy(dir, path, sizeof dir);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else kvp__strlcpy(dir, ".", sizeof dir);
    char real[4096];
    if (!realpath(dir, real)) kvp__strlcpy(real, dir, sizeof real);
    snprintf(buf, size, "%s/%s", real, base);
    *dev = 0;
    *ino = 0;
    return false;
}

bool kvp__same_file(const char *a, const char *b) {
    char ka[8192], kb[8192];
    dev_t da, db;
    ino_t ia, ib;
    bool ea = file_key(a, ka, sizeof ka, &da, &ia), eb = file_key(b, kb, sizeof kb, &db, &ib);
    return ea && eb ? (da == db && ia == ib) : (!ea && !eb && !strcmp(ka, kb));
}
