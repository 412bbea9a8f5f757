/* test_report_xml.h — a minimal well-formedness checker for the SVG and HTML
 * kvplan writes (no XML library: the project takes no new dependencies).
 *
 * Checks: tags balance and nest (a stack of names), one root element,
 * attributes are name="value" with no raw '<' in values, text holds no raw
 * '<', every '&' starts a known entity (&amp; &lt; &gt; &quot; &#NN;),
 * <!DOCTYPE ...> and comments are skipped. Returns NULL when well formed,
 * else a static message naming what went wrong. */
#ifndef TEST_REPORT_XML_H
#define TEST_REPORT_XML_H

#include <stdio.h>
#include <string.h>

static char xml_check_msg[256];

static inline const char *xml_bad(const char *what, const char *s, const char *p) {
    snprintf(xml_check_msg, sizeof xml_check_msg, "%s at offset %ld", what, (long)(p - s));
    return xml_check_msg;
}

static inline int xml_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == ':' || c == '.';
}

static inline const char *xml_entity(const char *s, const char *p, const char **end) {
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++)
        if (strncmp(p, ents[i], strlen(ents[i])) == 0) {
            *end = p + strlen(ents[i]);
            return NULL;
        }
    if (p[1] == '#') {
        const char *q = p + 2;
        while (*q >= '0' && *q <= '9') q++;
        if (q > p + 2 && *q == ';') {
            *end = q + 1;
            return NULL;
        }
    }
    return xml_bad("bad entity", s, p);
}

/* Well-formedness of `s`; NULL when fine. */
static inline const char *xml_check(const char *s) {
    char stack[64][48];
    int depth = 0, roots = 0;
    const char *p = s;
    while (*p) {
        if (*p == '<') {
            if (strncmp(p, "<!--", 4) == 0) {
                const char *e = strstr(p, "-->");
                if (!e) return xml_bad("unterminated comment", s, p);
                p = e + 3;
                continue;
            }
            if (p[1] == '!' || p[1] == '?') {
                const char *e = strchr(p, '>');
                if (!e) return xml_bad("unterminated declaration", s, p);
                p = e + 1;
                continue;
            }
            int closing = p[1] == '/';
            const char *n = p + 1 + closing, *ne = n;
            while (xml_name_char(*ne)) ne++;
            if (ne == n || (size_t)(ne - n) >= sizeof stack[0]) return xml_bad("bad tag name", s, p);
            char name[48];
            memcpy(name, n, (size_t)(ne - n));
            name[ne - n] = '\0';
            const char *q = ne;
            if (closing) {
                while (*q == ' ' || *q == '\n') q++;
                if (*q != '>') return xml_bad("junk in closing tag", s, q);
                if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
                    return xml_bad("closing tag does not match", s, p);
                depth--;
                p = q + 1;
                continue;
            }
            /* attributes */
            for (;;) {
                while (*q == ' ' || *q == '\n' || *q == '\t') q++;
                if (*q == '>' || (q[0] == '/' && q[1] == '>')) break;
                const char *an = q;
                while (xml_name_char(*q)) q++;
                if (q == an) return xml_bad("bad attribute name", s, q);
                if (*q != '=' || q[1] != '"') return xml_bad("attribute without =\"", s, q);
                q += 2;
                while (*q && *q != '"') {
                    if (*q == '<') return xml_bad("raw < in attribute", s, q);
                    if (*q == '&') {
                        const char *e, *bad = xml_entity(s, q, &e);
                        if (bad) return bad;
                        q = e;
                        continue;
                    }
                    q++;
                }
                if (*q != '"') return xml_bad("unterminated attribute", s, q);
                q++;
            }
            if (depth == 0) roots++;
            if (roots > 1) return xml_bad("second root element", s, p);
            if (*q == '/') {
                p = q + 2;
                continue;
            }
            if (depth >= 64) return xml_bad("nesting too deep", s, p);
            memcpy(stack[depth++], name, sizeof name);
            p = q + 1;
            continue;
        }
        if (*p == '&') {
            const char *e, *bad = xml_entity(s, p, &e);
            if (bad) return bad;
            p = e;
            continue;
        }
        if (*p == '>') return xml_bad("raw > in text", s, p);
        if (depth == 0 && !(*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
            return xml_bad("text outside the root element", s, p);
        p++;
    }
    if (depth != 0) return xml_bad("unclosed element", s, p);
    if (roots != 1) return xml_bad("no root element", s, p);
    return NULL;
}

/* Occurrences of `needle` in `hay`. */
static inline size_t xml_count(const char *hay, const char *needle) {
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) n++;
    return n;
}

#endif
