/*
 * hf_cache.c — resolve a Hugging Face id ("ORG/NAME") from the local Hugging
 * Face cache, the way huggingface_hub lays it out:
 *
 *   <hub>/models--ORG--NAME/refs/main            the commit hash of "main"
 *   <hub>/models--ORG--NAME/snapshots/<hash>/config.json   (a symlink into blobs/)
 *   <hub>/models--ORG--NAME/blobs/<sha>
 *
 * <hub> is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub,
 * else $HOME/.cache/huggingface/hub. refs/main decides the snapshot; without
 * it, the most recently modified snapshot that has a config.json.
 *
 * Called by kvp_model_open (catalog.c) for names that are neither paths nor
 * catalogue entries. KVP_NOT_FOUND means "not in the cache" (the caller then
 * reports the closest catalogue names); any other error is about a cache entry
 * that exists but cannot be used, and is reported as is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_internal.h"

#define HF_PATH_MAX 4096
#define HF_MAX_SNAPSHOTS 10000

/* "ORG/NAME" with plain characters: no second slash, no "..", no leading
 * dot (which would escape the cache folder). */
static bool is_hf_id(const char *name) {
    const char *slash = strchr(name, '/');
    if (!slash || slash == name || !slash[1] || strchr(slash + 1, '/')) return false;
    if (name[0] == '.' || slash[1] == '.' || strstr(name, "..")) return false;
    for (const char *p = name; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || c == '/';
        if (!ok) return false;
    }
    return strlen(name) < 256;
}

static bool hub_root(char *out, size_t size) {
    const char *v = getenv("HF_HUB_CACHE");
    if (v && *v) return snprintf(out, size, "%s", v) < (int)size;
    v = getenv("HF_HOME");
    if (v && *v) return snprintf(out, size, "%s/hub", v) < (int)size;
    v = getenv("XDG_CACHE_HOME");
    if (v && *v) return snprintf(out, size, "%s/huggingface/hub", v) < (int)size;
    v = getenv("HOME");
    if (v && *v) return snprintf(out, size, "%s/.cache/huggingface/hub", v) < (int)size;
    return false;
}

/* stat a snapshot's config.json: KVP_OK when it is a readable file; a loop
 * or a dangling link is an error naming the path. */
static kvp_status check_config(const char *path, kvp_error *err) {
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISREG(sb.st_mode)) return KVP_OK;
        return kvp__fail(err, KVP_IO, path, NULL, "%s", kvp__not_regular_reason(sb.st_mode));
    }
    if (errno == ELOOP)
        return kvp__fail(err, KVP_IO, path, NULL,
                         "symlink loop in the Hugging Face cache (too many levels of links)");
    struct stat lsb;
    if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode))
        return kvp__fail(err, KVP_IO, path, NULL,
                         "dangling symlink in the Hugging Face cache (its blob is missing: an "
                         "interrupted download?)");
    return KVP_NOT_FOUND;
}

static kvp_status from_ref(const char *repo, const kvp_allocator *alc, char *out, size_t size,
                           bool *used, kvp_error *err) {
    *used = false;
    char ref_path[HF_PATH_MAX];
    if (snprintf(ref_path, sizeof ref_path, "%s/refs/main", repo) >= (int)sizeof ref_path)
        return kvp__fail(err, KVP_IO, repo, NULL, "path too long");
    struct stat ref_sb;
    if (stat(ref_path, &ref_sb) != 0 && errno == ENOENT)
        return KVP_OK; /* no refs/main: fall back to the snapshots */
    char *text = NULL;
    kvp_status rst = kvp__read_file(ref_path, 4096, alc, &text, NULL, err);
    if (rst != KVP_OK) return rst;
    char hash[128] = "";
    bool ok = text[0] != '\0';
    kvp__strlcpy(hash, text, sizeof hash);
    kvp__free(alc, text);
    hash[strcspn(hash, " \t\r\n")] = '\0';
    if (!ok || !hash[0] || strchr(hash, '/') || strstr(hash, ".."))
        return kvp__fail(err, KVP_IO, ref_path, NULL,
                         "expected a commit hash, found '%s'", hash);
    if (snprintf(out, size, "%s/snapshots/%s/config.json", repo, hash) >= (int)size)
        return kvp__fail(err, KVP_IO, repo, NULL, "path too long");
    kvp_status st = check_config(out, err);
    if (st == KVP_NOT_FOUND)
        return kvp__fail(err, KVP_IO, ref_path, NULL,
                         "refs/main names snapshot %s, which has no config.json", hash);
    if (st == KVP_OK) *used = true;
    return st;
}

static kvp_status newest_snapshot(const char *repo, char *out, size_t size, kvp_error *err) {
    char snap_dir[HF_PATH_MAX];
    if (snprintf(snap_dir, sizeof snap_dir, "%s/snapshots", repo) >= (int)sizeof snap_dir)
        return kvp__fail(err, KVP_IO, repo, NULL, "path too long");
    DIR *d = opendir(snap_dir);
    if (!d)
        return kvp__fail(err, KVP_IO, repo, NULL,
                         "Hugging Face cache folder has no snapshots/ (an interrupted "
                         "download?)");
    char best[HF_PATH_MAX] = "";
    struct timespec best_time = {0, 0};
    kvp_status st = KVP_OK;
    unsigned seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && seen < HF_MAX_SNAPSHOTS) {
        if (e->d_name[0] == '.') continue;
        seen++;
        char cand[HF_PATH_MAX];
        if (snprintf(cand, sizeof cand, "%s/%s/config.json", snap_dir, e->d_name) >=
            (int)sizeof cand)
            continue;
        kvp_error local;
        kvp_status cs = check_config(cand, &local);
        if (cs != KVP_OK) {
            if (cs != KVP_NOT_FOUND && !best[0]) {
                st = cs; /* remember a broken snapshot in case none is usable */
                if (err) *err = local;
            }
            continue;
        }
        char dir_path[HF_PATH_MAX];
        snprintf(dir_path, sizeof dir_path, "%s/%s", snap_dir, e->d_name);
        struct stat sb;
        if (stat(dir_path, &sb) != 0) continue;
        /* newest modification; ties broken by name so the choice is stable */
        bool newer = !best[0] || sb.st_mtim.tv_sec > best_time.tv_sec ||
                     (sb.st_mtim.tv_sec == best_time.tv_sec &&
                      (sb.st_mtim.tv_nsec > best_time.tv_nsec ||
                       (sb.st_mtim.tv_nsec == best_time.tv_nsec && strcmp(cand, best) > 0)));
        if (newer) {
            kvp__strlcpy(best, cand, sizeof best);
            best_time = sb.st_mtim;
        }
    }
    closedir(d);
    if (best[0]) {
        if (strlen(best) >= size) return kvp__fail(err, KVP_IO, repo, NULL, "path too long");
        kvp__strlcpy(out, best, size);
        if (err) kvp_error_clear(err);
        return KVP_OK;
    }
    if (st != KVP_OK) return st;
    return kvp__fail(err, KVP_IO, repo, NULL,
                     "Hugging Face cache folder has no snapshot with a config.json (download "
                     "it with: huggingface-cli download %s config.json)",
                     strstr(repo, "models--") ? strstr(repo, "models--") + 8 : repo);
}

kvp_status kvp__model_resolve_extra(const char *name, const kvp_allocator *alc, char *path_out,
                                    size_t path_size, kvp_error *err) {
    if (path_size) path_out[0] = '\0';
    if (!name || !is_hf_id(name)) return KVP_NOT_FOUND;
    char root[HF_PATH_MAX];
    if (!hub_root(root, sizeof root)) return KVP_NOT_FOUND;
    char repo[HF_PATH_MAX];
    int n = snprintf(repo, sizeof repo, "%s/models--", root);
    if (n < 0 || (size_t)n >= sizeof repo) return KVP_NOT_FOUND;
    /* ORG/NAME -> models--ORG--NAME */
    for (const char *p = name; *p && (size_t)n + 3 < sizeof repo; p++) {
        if (*p == '/') {
            repo[n++] = '-';
            repo[n++] = '-';
        } else {
            repo[n++] = *p;
        }
    }
    repo[n] = '\0';
    struct stat sb;
    if (stat(repo, &sb) != 0) {
        if (errno == ELOOP)
            return kvp__fail(err, KVP_IO, repo, name, "symlink loop in the Hugging Face cache");
        return KVP_NOT_FOUND;
    }
    if (!S_ISDIR(sb.st_mode)) return kvp__fail(err, KVP_IO, repo, name, "not a folder");
    bool used = false;
    kvp_status st = from_ref(repo, alc, path_out, path_size, &used, err);
    if (st != KVP_OK || used) return st;
    return newest_snapshot(repo, path_out, path_size, err);
}
