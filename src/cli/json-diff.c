#include "json-diff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_LEN 1024

struct differ {
        json_t *added, *removed, *changed;
        size_t n;
        bool truncated;
};

static void add(struct differ *d, json_t *list, const char *path, json_t *entry) {
        if (d->n >= JSON_DIFF_MAX) {
                d->truncated = true;
                json_decref(entry);
                return;
        }
        d->n++;
        json_array_append_new(list, entry ? entry : json_string(path));
}

static void walk(struct differ *d, const json_t *a, const json_t *b, char *path, size_t len);

/* key: an object member ("a.key", or "key" at the root); else array index i ("a[i]"). */
static void child(
        struct differ *d, const json_t *a, const json_t *b, char *path, size_t len, const char *key,
        size_t index) {
        int n = key ? snprintf(path + len, PATH_MAX_LEN - len, "%s%s", len ? "." : "", key)
                    : snprintf(path + len, PATH_MAX_LEN - len, "[%zu]", index);
        size_t end = n < 0 ? len : len + (size_t)n;
        if (end >= PATH_MAX_LEN)
                end = PATH_MAX_LEN - 1;
        if (!a)
                add(d, d->added, path, NULL);
        else if (!b)
                add(d, d->removed, path, NULL);
        else
                walk(d, a, b, path, end);
        path[len] = '\0';
}

static int compare_keys(const void *x, const void *y) {
        return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Both objects' keys, sorted, each once. */
static const char **union_keys(const json_t *a, const json_t *b, size_t *ret_n) {
        size_t cap = json_object_size(a) + json_object_size(b), n = 0;
        const char **keys = calloc(cap ? cap : 1, sizeof(*keys)), *k;
        json_t *v;
        if (!keys)
                return NULL;
        json_object_foreach((json_t *)a, k, v) keys[n++] = k;
        json_object_foreach((json_t *)b, k, v) if (!json_object_get(a, k)) keys[n++] = k;
        qsort(keys, n, sizeof(*keys), compare_keys);
        *ret_n = n;
        return keys;
}

static void walk(struct differ *d, const json_t *a, const json_t *b, char *path, size_t len) {
        if (json_is_object(a) && json_is_object(b)) {
                size_t n = 0;
                const char **keys = union_keys(a, b, &n);
                for (size_t i = 0; keys && i < n; i++)
                        child(d, json_object_get(a, keys[i]), json_object_get(b, keys[i]), path, len,
                              keys[i], 0);
                free(keys);
                return;
        }
        if (json_is_array(a) && json_is_array(b)) {
                size_t n = json_array_size(a) > json_array_size(b) ? json_array_size(a) : json_array_size(b);
                for (size_t i = 0; i < n; i++)
                        child(d, json_array_get(a, i), json_array_get(b, i), path, len, NULL, i);
                return;
        }
        if (!json_equal(a, b))
                add(d, d->changed, path,
                    json_pack("{s:s, s:O, s:O}", "path", len ? path : "(root)", "old", a, "new", b));
}

json_t *json_diff(const json_t *old, const json_t *new) {
        char path[PATH_MAX_LEN] = "";
        struct differ d = { .added = json_array(), .removed = json_array(), .changed = json_array() };
        json_t *out =
                json_pack("{s:o, s:o, s:o}", "added", d.added, "removed", d.removed, "changed", d.changed);
        if (!out)
                return NULL;
        walk(&d, old, new, path, 0);
        if (d.truncated)
                json_object_set_new(out, "truncated", json_true());
        return out;
}

size_t json_diff_count(const json_t *diff) {
        return json_array_size(json_object_get(diff, "added")) +
               json_array_size(json_object_get(diff, "removed")) +
               json_array_size(json_object_get(diff, "changed"));
}

/* The value at a path json_diff() wrote ("a.b[2].c"); NULL when absent. */
static const json_t *at_path(const json_t *j, const char *path) {
        char key[PATH_MAX_LEN];
        while (j && *path) {
                if (*path == '[') {
                        char *end;
                        unsigned long i = strtoul(path + 1, &end, 10);
                        j = json_array_get(j, i);
                        path = *end == ']' ? end + 1 : end;
                } else {
                        size_t n = strcspn(path, ".[");
                        snprintf(key, sizeof(key), "%.*s", (int)n, path);
                        j = json_object_get(j, key);
                        path += n;
                }
                if (*path == '.')
                        path++;
        }
        return j;
}

static void print_value(FILE *out, const json_t *v) {
        char *text = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
        fprintf(out, "%.200s%s", text ? text : "null", text && strlen(text) > 200 ? "..." : "");
        free(text);
}

void json_diff_print(FILE *out, const json_t *diff, const json_t *old, const json_t *new) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(diff, "removed"), i, e) {
                fprintf(out, "- %s: ", json_string_value(e));
                print_value(out, at_path(old, json_string_value(e)));
                fputc('\n', out);
        }
        json_array_foreach(json_object_get(diff, "added"), i, e) {
                fprintf(out, "+ %s: ", json_string_value(e));
                print_value(out, at_path(new, json_string_value(e)));
                fputc('\n', out);
        }
        json_array_foreach(json_object_get(diff, "changed"), i, e) {
                fprintf(out, "~ %s: ", json_string_value(json_object_get(e, "path")));
                print_value(out, json_object_get(e, "old"));
                fputs(" -> ", out);
                print_value(out, json_object_get(e, "new"));
                fputc('\n', out);
        }
        if (json_is_true(json_object_get(diff, "truncated")))
                fprintf(out, "(more than %d differences; the rest not shown)\n", JSON_DIFF_MAX);
}

void json_diff_paths(const json_t *diff, size_t n, char *buf, size_t size) {
        static const char *const lists[] = { "changed", "added", "removed" };
        size_t used = 0, shown = 0, total = json_diff_count(diff);
        buf[0] = '\0';
        for (size_t l = 0; l < 3; l++) {
                size_t i;
                json_t *e;
                json_array_foreach(json_object_get(diff, lists[l]), i, e) {
                        const char *p = json_is_string(e) ? json_string_value(e)
                                                          : json_string_value(json_object_get(e, "path"));
                        if (shown >= n || used >= size)
                                break;
                        used += (size_t)snprintf(buf + used, size - used, "%s%s", shown ? ", " : "", p);
                        shown++;
                }
        }
        if (total > shown && used < size)
                snprintf(buf + used, size - used, " and %zu more", total - shown);
}
