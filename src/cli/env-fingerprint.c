#include "env-fingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/fileio.h"
#include "basic/strbuf.h"
#include "topology/topology.h"

#define FINGERPRINT_TEXT_MAX 4096

static const char *or_default(const char *s, const char *dflt) {
        return s && s[0] ? s : dflt;
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void env_fingerprint(const struct env_facts *f, char ret[SHA256_HEX_SIZE]) {
        const char *hosts[ENV_HOSTS_MAX];
        size_t n = f->n_hosts < ENV_HOSTS_MAX ? f->n_hosts : ENV_HOSTS_MAX;
        struct strbuf b = STRBUF_INIT(FINGERPRINT_TEXT_MAX);
        memcpy(hosts, f->hosts, n * sizeof(*hosts));
        qsort(hosts, n, sizeof(*hosts), compare_names);
        for (size_t i = 0; i < n; i++)
                strbuf_printf(&b, "%s|", hosts[i]);
        strbuf_printf(
                &b, "%s|%s|%s|%s", f->compose_digest, or_default(f->profile, "default"),
                or_default(f->policy, "default"), or_default(f->target, ""));
        const char *text = b.data ? b.data : "";
        sha256_hex(text, strlen(text), ret);
        strbuf_done(&b);
}

/* ssh://user@host:port, user@host -> host. */
static void ssh_host(const char *target, char *buf, size_t size) {
        const char *p = strncmp(target, "ssh://", 6) == 0 ? target + 6 : target;
        const char *at = strrchr(p, '@');
        if (at)
                p = at + 1;
        size_t len = strcspn(p, ":/");
        snprintf(buf, size, "%.*s", (int)len, p);
}

int env_facts_collect(
        const char *agent_ssh, const char *compose_path, const char *profile, const char *policy,
        const char *target, char *hostbuf, size_t hostbuf_size, struct env_facts *ret,
        struct mh_error *reterr) {
        struct env_facts f = { .profile = profile, .policy = policy, .target = target };
        if (agent_ssh)
                ssh_host(agent_ssh, hostbuf, hostbuf_size);
        else if (gethostname(hostbuf, hostbuf_size) < 0 || !hostbuf[0])
                snprintf(hostbuf, hostbuf_size, "localhost");
        hostbuf[hostbuf_size - 1] = '\0';
        f.hosts[f.n_hosts++] = hostbuf;
        if (compose_path) {
                _cleanup_free_ char *data = NULL;
                size_t len = 0;
                int r = read_file_bounded(compose_path, COMPOSE_FILE_MAX, &data, &len, reterr);
                if (r < 0)
                        return r;
                sha256_hex(data, len, f.compose_digest);
        }
        *ret = f;
        return 0;
}

json_t *env_facts_json(const struct env_facts *f) {
        char fp[SHA256_HEX_SIZE];
        json_t *hosts = json_array();
        for (size_t i = 0; hosts && i < f->n_hosts && i < ENV_HOSTS_MAX; i++)
                json_array_append_new(hosts, json_string(f->hosts[i]));
        env_fingerprint(f, fp);
        return json_pack(
                "{s:o, s:s, s:s, s:s, s:s, s:s}", "hosts", hosts, "compose_digest", f->compose_digest,
                "profile", or_default(f->profile, "default"), "policy", or_default(f->policy, "default"),
                "target", or_default(f->target, ""), "fingerprint", fp);
}

static const char *text_of(const json_t *j, char *buf, size_t size) {
        if (json_is_string(j))
                snprintf(buf, size, "%.12s", json_string_value(j)[0] ? json_string_value(j) : "(none)");
        else {
                char *d = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
                snprintf(buf, size, "%s", d ? d : "(none)");
                free(d);
        }
        return buf;
}

int env_facts_changes(const json_t *saved, const json_t *now, char *buf, size_t size) {
        static const char *const keys[][2] = {
                { "hosts", "hosts" },           { "compose_digest", "compose file digest" },
                { "profile", "profile" },       { "policy", "policy" },
                { "target", "target profile" },
        };
        int n = 0;
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                const json_t *a = json_object_get(saved, keys[i][0]), *b = json_object_get(now, keys[i][0]);
                char ta[128], tb[128];
                if (json_equal(a, b))
                        continue;
                if (used < size)
                        used += (size_t)snprintf(
                                buf + used, size - used, "%s%s %s -> %s", n ? ", " : "", keys[i][1],
                                text_of(a, ta, sizeof(ta)), text_of(b, tb, sizeof(tb)));
                n++;
        }
        return n;
}
