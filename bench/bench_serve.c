/*
 * bench_serve.c — `kvplan serve` on one core: requests per second of POST
 * /api/v1/plan (or /api/v1/cost when the library answers no plan), and the
 * server's CPU per request as a ratio to the same question answered in
 * process (kvp_json_call, what `kvplan plan --json` runs).
 * Run: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
 *      && ./build-rel/bench/bench_serve ./build-rel/kvplan [requests]
 * The server runs with --threads 1 pinned to CPU 0, the client on another CPU
 * when there is one; the server's CPU time is read from /proc/PID/stat, so
 * the client's own cost is not counted in the ratio; the in-process side is
 * measured in CPU time too.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kvplan/json.h"

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* utime + stime of `pid`, seconds. */
static double cpu_s(pid_t pid) {
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void pin(size_t cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

/* One keep-alive request; returns the HTTP status, or -1. */
static int roundtrip(int fd, const char *req, size_t req_len, char *buf, size_t cap) {
    if (write(fd, req, req_len) != (ssize_t)req_len) return -1;
    size_t got = 0, want = 0;
    for (;;) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n <= 0) return -1;
        got += (size_t)n;
        buf[got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (!end) continue;
        if (!want) {
            char *cl = strcasestr(buf, "Content-Length:");
            if (!cl) return -1;
            want = (size_t)(end + 4 - buf) + strtoul(cl + 15, NULL, 10);
        }
        if (got >= want) break;
    }
    return atoi(buf + 9);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_serve KVPLAN [requests]\n");
        return 2;
    }
    long requests = argc > 2 ? atol(argv[2]) : 2000;
    const char *cmd = strstr(kvp_json_commands(), "plan") ? "plan" : "cost";
    const char *body = !strcmp(cmd, "plan")
                           ? "{\"model\": \"llama-3.1-8b\", \"gpu\": \"H100 SXM 80GB\", \"policy\": "
                             "\"vllm\", \"max_seq_len\": 32768}"
                           : "{\"model\": \"llama-3.1-8b\", \"tp\": 2}";
    int out[2];
    if (pipe(out)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        pin(0);
        dup2(out[1], 1);
        close(out[0]);
        execl(argv[1], argv[1], "serve", "--port", "0", "--threads", "1", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char url[128] = "";
    ssize_t n = read(out[0], url, sizeof url - 1);
    if (n <= 0) {
        fprintf(stderr, "bench_serve: %s serve printed no URL\n", argv[1]);
        return 1;
    }
    url[n] = '\0';
    unsigned port = 0;
    if (sscanf(url, "http://127.0.0.1:%u/", &port) != 1) return 1;
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) pin(1);

    char req[1024];
    int req_len = snprintf(req, sizeof req,
                           "POST /api/v1/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: "
                           "application/json\r\nContent-Length: %zu\r\n\r\n%s",
                           cmd, port, strlen(body), body);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        perror("connect");
        return 1;
    }
    static char buf[1 << 20];
    for (int i = 0; i < 50; i++) /* warm up */
        if (roundtrip(fd, req, (size_t)req_len, buf, sizeof buf) != 200) {
            fprintf(stderr, "bench_serve: POST /api/v1/%s answered: %.300s\n", cmd, buf);
            return 1;
        }
    double c0 = cpu_s(pid), t0 = now_s();
    for (long i = 0; i < requests; i++)
        if (roundtrip(fd, req, (size_t)req_len, buf, sizeof buf) != 200) return 1;
    double wall = now_s() - t0, server_cpu = cpu_s(pid) - c0;
    close(fd);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);

    /* The same question in process, on one core; CPU time, as the server's
     * (a loaded machine shares the core: wall time would count the others). */
    pin(0);
    double i0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < requests; i++) {
        char *json = NULL;
        kvp_error err;
        if (kvp_json_call(cmd, body, &json, &err) != KVP_OK) {
            fprintf(stderr, "bench_serve: %s\n", err.message);
            return 1;
        }
        kvp_json_free(json);
    }
    double inproc = (clock_s(CLOCK_THREAD_CPUTIME_ID) - i0) / (double)requests;
    printf("POST /api/v1/%s, one keep-alive client, server on one core (--threads 1):\n", cmd);
    printf("  %ld requests in %.2f s = %.0f requests/s; server CPU %.1f us/request\n", requests,
           wall, (double)requests / wall, 1e6 * server_cpu / (double)requests);
    printf("  one core's capacity at that CPU cost: %.0f requests/s\n",
           (double)requests / server_cpu);
    printf("  in process (kvp_json_call): %.1f us CPU/call\n", 1e6 * inproc);
    printf("  server cost per request / in-process plan = %.2f\n",
           server_cpu / (double)requests / inproc);
    return 0;
}
