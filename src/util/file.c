/* file.c — the one way kvplan opens an input file: only a regular file is read (a FIFO,
 * a device, a socket or a directory is refused before any call could block), a file past
 * the limit of its kind is refused from its size before it is read (sparse files
 * included), and a file that grows while read is cut at the bound and refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *kvp__not_regular_reason(unsigned int st_mode) {
    mode_t mode = (mode_t)st_mode;
    if (S_ISREG(mode)) return NULL;
    if (S_ISDIR(mode)) return "is a directory, expected a file";
    if (S_ISFIFO(mode)) return "is a FIFO (named pipe), expected a regular file";
    if (S_ISSOCK(mode)) return "is a socket, expected a regular file";
    /* /dev/zero would be read up to the size limit before being refused. */
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, expected a file";
    return "is not a regular file";
}

kvp_status kvp__open_regular(const char *path, uint64_t max_bytes, FILE **out,
                             uint64_t *out_size, kvp_error *err) {
    *out = NULL;
    if (out_size) *out_size = 0;
    if (!path || !*path) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no file name");
    /* Opened non-blocking so that a FIFO nobody writes cannot hang the open; fstat
     * on the open descriptor (not a stat of the path first) so the file checked is
     * the file read. Blocking is restored only once it is known to be regular. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        struct stat sb;
        /* A socket cannot be opened at all (ENXIO): say what it is. */
        const char *what = stat(path, &sb) == 0 ? kvp__not_regular_reason(sb.st_mode) : NULL;
        if (what) return kvp__fail(err, KVP_IO, path, NULL, "%s", what);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(e));
    }
    const char *why = kvp__not_regular_reason(st.st_mode);
    if (why) {
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "%s", why);
    }
    /* st_size, not the bytes read: a sparse file of 2 GiB is refused without
     * reading (or allocating) any of it. */
    if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL,
                         "file is %llu bytes, larger than the %llu-byte limit for this kind of "
                         "input",
                         (unsigned long long)st.st_size, (unsigned long long)max_bytes);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(e));
    }
    *out = f;
    if (out_size) *out_size = (uint64_t)st.st_size;
    return KVP_OK;
}

bool kvp__is_regular_file(const char *path) {
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

kvp_status kvp__read_file(const char *path, size_t max_bytes, const kvp_allocator *alc,
                          char **out_buf, size_t *out_len, kvp_error *err) {
    *out_buf = NULL;
    if (out_len) *out_len = 0;
    FILE *f = NULL;
    kvp_status s = kvp__open_regular(path, (uint64_t)max_bytes, &f, NULL, err);
    if (s != KVP_OK) return s;
    size_t cap = 4096, len = 0;
    char *buf = kvp__malloc(alc, cap + 1);
    if (!buf) {
        fclose(f);
        return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory reading the file");
    }
    /* A regular file can still grow while it is read (or be a procfs file that
     * reports size 0): the loop stops one byte past the bound and refuses. */
    for (;;) {
        if (len == cap) {
            if (cap >= max_bytes + 1) break;
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = kvp__realloc(alc, buf, ncap + 1);
            if (!nb) {
                kvp__free(alc, buf);
                fclose(f);
                return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory reading the file");
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
        kvp__free(alc, buf);
        return kvp__fail(err, KVP_IO, path, NULL, "read error");
    }
    if (len > max_bytes) {
        kvp__free(alc, buf);
        return kvp__fail(err, KVP_IO, path, NULL,
                         "file is larger than the %zu-byte limit for this kind of input", max_bytes);
    }
    if (len == 0) {
        kvp__free(alc, buf);
        return kvp__fail(err, KVP_IO, path, NULL, "file is empty");
    }
    buf[len] = '\0';
    *out_buf = buf;
    if (out_len) *out_len = len;
    return KVP_OK;
}

bool kvp__utf8_valid(const char *s, size_t len, size_t *bad_offset) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        size_t n;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            cp = c & 0x07;
        } else {
            goto bad;
        }
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (p[i + k] & 0xC0) != 0x80) goto bad;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            goto bad;
        i += n + 1;
        continue;
    bad:
        if (bad_offset) *bad_offset = i;
        return false;
    }
    return true;
}

const char *kvp__model_dir(const char *model, char *buf, size_t size) {
    struct stat st;
    if (!model || stat(model, &st) != 0) return NULL;
    kvp__strlcpy(buf, model, size);
    if (!S_ISDIR(st.st_mode)) {
        char *slash = strrchr(buf, '/');
        if (slash)
            *slash = '\0';
        else
            kvp__strlcpy(buf, ".", size);
    }
    return buf;
}
