/* test_file_reader.c — the one input-file reader (src/util/file.c): only regular files
 * are read; a FIFO (with or without a writer), a socket, a device and a directory are
 * refused by name without blocking; the size bound is checked from the file's size
 * (a sparse file is refused without being read) and again while reading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "util.h"

static char g_dir[64];

static void path_of(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", g_dir, name);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/kvp_file_reader_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_bytes(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Read PATH with a bound of MAX bytes, expecting a KVP_IO refusal naming PATH whose
 * message contains WANT. The error is poisoned first so a stale one cannot pass. */
static void expect_refused(const char *path, size_t max, const char *want) {
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    char *buf = (char *)&err;
    size_t len = 77;
    assert_int_equal(kvp__read_file(path, max, NULL, &buf, &len, &err), KVP_IO);
    assert_null(buf);
    assert_int_equal(len, 0);
    assert_string_equal(err.file, path);
    if (!strstr(err.message, want)) fail_msg("'%s' lacks '%s'", err.message, want);
}

static void test_regular_file_is_read_whole(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "ok.json");
    write_bytes(p, "{\"a\": 1}", 8);
    char *buf = NULL;
    size_t len = 0;
    kvp_error err;
    /* A file of exactly the bound is read: 8 bytes with an 8-byte limit. */
    assert_int_equal(kvp__read_file(p, 8, NULL, &buf, &len, &err), KVP_OK);
    assert_int_equal(len, 8);
    assert_string_equal(buf, "{\"a\": 1}");
    kvp__free(NULL, buf);
    /* One byte past it is refused from the size, before reading: 8 > 7. */
    expect_refused(p, 7, "file is 8 bytes, larger than the 7-byte limit");
}

static void test_fifo_without_writer_is_refused(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "silent.fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    /* Would block for ever in a blocking open or read; refused before either. */
    expect_refused(p, 1024, "is a FIFO (named pipe), expected a regular file");
    FILE *f = (FILE *)1;
    kvp_error err;
    assert_int_equal(kvp__open_regular(p, UINT64_MAX, &f, NULL, &err), KVP_IO);
    assert_null(f);
    assert_false(kvp__is_regular_file(p));
}

static void test_fifo_with_writer_is_refused(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "fed.fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    /* Held open read-write, so a writer exists and data is waiting. */
    int fd = open(p, O_RDWR | O_NONBLOCK);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "{}", 2), 2);
    expect_refused(p, 1024, "is a FIFO");
    close(fd);
}

static void test_socket_device_directory_are_refused(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", p);
    assert_int_equal(bind(s, (struct sockaddr *)&addr, sizeof addr), 0);
    /* open(2) of a socket fails with ENXIO: the message still says what it is. */
    expect_refused(p, 1024, "is a socket, expected a regular file");
    close(s);
    expect_refused("/dev/null", 1024, "is a device");
    expect_refused("/dev/zero", 1024, "is a device");
    expect_refused(g_dir, 1024, "is a directory");
    char link[128];
    path_of(link, sizeof link, "zero.json");
    assert_int_equal(symlink("/dev/zero", link), 0);
    expect_refused(link, 1024, "is a device");
}

static void test_sparse_file_refused_from_its_size(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "sparse.jsonl");
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    /* 3 GiB of holes: 3221225472 bytes. Refused from st_size, no byte read. */
    assert_int_equal(ftruncate(fd, (off_t)3 << 30), 0);
    close(fd);
    expect_refused(p, (size_t)1 << 31,
                   "file is 3221225472 bytes, larger than the 2147483648-byte limit");
    /* The open-only reader (headers read piecewise) has no bound with UINT64_MAX. */
    FILE *f = NULL;
    uint64_t size = 0;
    kvp_error err;
    assert_int_equal(kvp__open_regular(p, UINT64_MAX, &f, &size, &err), KVP_OK);
    assert_int_equal(size, UINT64_C(3) << 30);
    fclose(f);
    assert_true(kvp__is_regular_file(p));
}

static void test_empty_and_missing(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "empty.json");
    write_bytes(p, "", 0);
    expect_refused(p, 1024, "file is empty");
    path_of(p, sizeof p, "missing.json");
    expect_refused(p, 1024, "cannot open: No such file or directory");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_file_is_read_whole),
        cmocka_unit_test(test_fifo_without_writer_is_refused),
        cmocka_unit_test(test_fifo_with_writer_is_refused),
        cmocka_unit_test(test_socket_device_directory_are_refused),
        cmocka_unit_test(test_sparse_file_refused_from_its_size),
        cmocka_unit_test(test_empty_and_missing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
