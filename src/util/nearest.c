/* nearest.c — "did you mean": edit distance and the k closest names, shared by every
 * lookup that answers an unknown name with suggestions (options, models, GPUs). */
#include <string.h>

#include "util.h"

size_t kvp__edit_distance(const char *a, const char *b) {
    enum { MAX = 128 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAX || lb >= MAX) return SIZE_MAX / 2;
    size_t prev[MAX], cur[MAX];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            int ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            if (ca >= 'A' && ca <= 'Z') ca += 32;
            if (cb >= 'A' && cb <= 'Z') cb += 32;
            size_t sub = prev[j - 1] + (ca != cb), del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t m = sub < del ? sub : del;
            cur[j] = m < ins ? m : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

void kvp__nearest_init(kvp__nearest *n) {
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        n->index[k] = SIZE_MAX;
        n->distance[k] = SIZE_MAX;
    }
}

void kvp__nearest_offer(kvp__nearest *n, size_t index, size_t distance) {
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        if (distance < n->distance[k]) {
            for (int m = KVP_NEAREST_MAX - 1; m > k; m--) {
                n->distance[m] = n->distance[m - 1];
                n->index[m] = n->index[m - 1];
            }
            n->distance[k] = distance;
            n->index[k] = index;
            return;
        }
    }
}
