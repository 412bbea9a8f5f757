/* log_redact.c — log text with secrets, addresses, hosts and private paths
 * taken out (log_redact.h). One pass, bounded by the output's size. */
#include "log_redact.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

typedef struct out {
    char *p;
    size_t n, cap;
} out;

static void put(out *o, const char *s, size_t n) {
    for (size_t i = 0; i < n && o->n + 1 < o->cap; i++) o->p[o->n++] = s[i];
    o->p[o->n] = '\0';
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static bool tokch(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

/* An IPv4 address at s (not inside a longer number): its length, else 0. */
static size_t ipv4(const char *s) {
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        size_t d = 0;
        unsigned v = 0;
        while (isdigit((unsigned char)s[i]) && d < 4) v = v * 10 + (unsigned)(s[i++] - '0'), d++;
        if (!d || d > 3 || v > 255) return 0;
        if (part < 3) {
            if (s[i] != '.') return 0;
            i++;
        }
    }
    if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) return 0;
    return i;
}

/* An IPv6 address at s (hex groups and at least two colons, one "::" or
 * seven colons): its length, else 0. */
static size_t ipv6(const char *s) {
    size_t i = 0, colons = 0, hex = 0;
    bool dbl = false;
    while (isxdigit((unsigned char)s[i]) || s[i] == ':') {
        if (s[i] == ':') {
            colons++;
            if (s[i + 1] == ':') dbl = true;
        } else {
            hex++;
        }
        i++;
    }
    if (colons >= 7 || (dbl && colons >= 2 && hex >= 1)) return i;
    return 0;
}

static bool host_suffix(const char *s, size_t n) {
    static const char *const tld[] = {".local", ".internal", ".lan", ".corp", ".com", ".net",
                                      ".org", ".io", ".cluster", NULL};
    for (size_t i = 0; tld[i]; i++) {
        size_t k = strlen(tld[i]);
        if (n > k && !strncmp(s + n - k, tld[i], k)) return true;
    }
    return false;
}

/* A dotted host name at s ("node7.cluster.local"): its length, else 0. */
static size_t host(const char *s) {
    size_t i = 0, dots = 0;
    while (isalnum((unsigned char)s[i]) || s[i] == '-' || (s[i] == '.' && isalnum((unsigned char)s[i + 1]))) {
        if (s[i] == '.') dots++;
        i++;
    }
    return dots >= 1 && host_suffix(s, i) ? i : 0;
}

/* A secret's value after a key word ("api_key=", "--api-key ", "'token': '"). */
static size_t secret_value(const char *s) {
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '=' || s[i] == ':' || s[i] == '\'' || s[i] == '"') i++;
    size_t v = i;
    while (s[i] && s[i] != ' ' && s[i] != '\'' && s[i] != '"' && s[i] != ',' && s[i] != '}' &&
           s[i] != ')')
        i++;
    return i > v ? i : 0;
}

void kvp__log_redact(const char *in, char *buf, size_t cap) {
    out o = {buf, 0, cap};
    if (!cap) return;
    buf[0] = '\0';
    if (!in) return;
    const char *s = in;
    static const char *const keys[] = {"api_key", "api-key", "apikey", "token", "password",
                                       "secret", "HF_TOKEN", "hf_token", NULL};
    while (*s && o.n + 1 < o.cap) {
        bool start = s == in || !tokch(s[-1]);
        size_t n;
        /* tokens with a known prefix */
        if (start && (!strncmp(s, "hf_", 3) || !strncmp(s, "sk-", 3))) {
            n = 3;
            while (tokch(s[n])) n++;
            if (n >= 11) {
                put(&o, s, 3);
                puts_(&o, "<redacted>");
                s += n;
                continue;
            }
        }
        if (!strncmp(s, "Bearer ", 7)) {
            puts_(&o, "Bearer <redacted>");
            s += 7;
            while (*s && *s != ' ' && *s != '"' && *s != '\'') s++;
            continue;
        }
        bool keyed = false;
        for (size_t k = 0; keys[k] && start; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(s, keys[k], kl) || tokch(s[kl])) continue;
            const char *v = s + kl;
            if (*v == '\'' || *v == '"') v++;
            if (*v != '=' && *v != ':' && *v != ' ') continue;
            size_t vn = secret_value(v);
            if (!vn) continue;
            put(&o, s, kl);
            /* keep the separator and quote, drop the value */
            size_t sep = 0;
            while (v[sep] == ' ' || v[sep] == '=' || v[sep] == ':' || v[sep] == '\'' || v[sep] == '"') sep++;
            put(&o, s + kl, (size_t)(v - (s + kl)) + sep);
            puts_(&o, "<redacted>");
            s = v + vn;
            keyed = true;
            break;
        }
        if (keyed) continue;
        if (start && (n = ipv4(s))) {
            puts_(&o, "<ip>");
            s += n;
            continue;
        }
        if (start && isxdigit((unsigned char)*s) && (n = ipv6(s))) {
            puts_(&o, "<ip>");
            s += n;
            continue;
        }
        if (start && (!strncmp(s, "host=", 5) || !strncmp(s, "hostname=", 9) || !strncmp(s, "ip=", 3))) {
            const char *v = strchr(s, '=') + 1;
            size_t vn = strcspn(v, " ,)\"'");
            put(&o, s, (size_t)(v - s));
            puts_(&o, "<host>");
            s = v + vn;
            continue;
        }
        if (!strncmp(s, "://", 3)) {
            puts_(&o, "://");
            s += 3;
            size_t hn = strcspn(s, ":/ \"'");
            if (hn) puts_(&o, "<host>");
            s += hn;
            continue;
        }
        if (start && isalpha((unsigned char)*s) && (n = host(s))) {
            puts_(&o, "<host>");
            s += n;
            continue;
        }
        /* a path of 3+ parts: keep the last two (the model's org/name) */
        if ((*s == '/' || *s == '~') && (s == in || s[-1] == ' ' || s[-1] == '\'' || s[-1] == '"' ||
                                         s[-1] == '=' || s[-1] == '(' || s[-1] == ':')) {
            size_t pn = strcspn(s, " '\",)");
            size_t parts = 0;
            for (size_t i = 0; i < pn; i++)
                if (s[i] == '/') parts++;
            if (parts >= 3) {
                const char *end = s + pn, *q = end;
                int seen = 0;
                while (q > s && seen < 2) {
                    q--;
                    if (*q == '/' && q + 1 < end) seen++;
                }
                puts_(&o, "<path>");
                put(&o, q, (size_t)(end - q));
                s = end;
                continue;
            }
        }
        put(&o, s, 1);
        s++;
    }
}
