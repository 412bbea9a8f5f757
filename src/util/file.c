/* file.c — bounded whole-file reads: a hostile file far larger than any config is refused
 * before it is read, and a file that grows while read is cut at the bound and refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

kvp_status kvp__read_file(const char *path, size_t max_bytes, const kvp_allocator *alc,
                          char **out_buf, size_t *out_len, kvp_error *err) {
    *out_buf = NULL;
    if (out_len) *out_len = 0;
    /* Opened non-blocking so that a FIFO nobody writes cannot hang the open (it then
     * reads as empty); blocking is restored for the reads. fstat on the open file
     * also closes the window between checking a path and reading it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "is a directory, expected a file");
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
        /* /dev/zero would be read up to the size limit before being refused. */
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "is a device, expected a file");
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max_bytes) {
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL,
                         "file is %llu bytes, larger than the %zu-byte limit for this kind of input",
                         (unsigned long long)st.st_size, max_bytes);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot open: %s", strerror(e));
    }
    size_t cap = 4096, len = 0;
    char *buf = kvp__malloc(alc, cap + 1);
    if (!buf) {
        fclose(f);
        return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory reading the file");
    }
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
