/* The agent's target-side DNS view (agent/probe-dns.h) and probe.run's
 * request checks (agent/probe-request.h): hosts, resolv.conf search and
 * ndots, the A/AAAA codec against hand-built answers, and hostile fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/probe-dns.h"
#include "agent/probe-request.h"

static void test_hosts(void **state) {
        static const char hosts[] = "127.0.0.1\tlocalhost\n# 10.0.0.9 web\n::1 localhost ip6-localhost\n"
                                    "172.18.0.3\tabc123 ck14-B  # trailing\n10.1.1.1 other\n";
        struct dns_addrs a;
        hosts_lookup(hosts, strlen(hosts), "ck14-b", &a);
        assert_int_equal(a.n, 1);
        assert_int_equal(a.family[0], AF_INET);
        assert_memory_equal(a.addr[0], "\xac\x12\x00\x03", 4);
        hosts_lookup(hosts, strlen(hosts), "web", &a); /* commented out */
        assert_int_equal(a.n, 0);
        hosts_lookup(hosts, strlen(hosts), "trailing", &a); /* after '#' */
        assert_int_equal(a.n, 0);
        hosts_lookup(hosts, strlen(hosts), "localhost", &a);
        assert_int_equal(a.n, 2);
        assert_int_equal(a.family[1], AF_INET6);
}

static void test_resolv_search_ndots(void **state) {
        static const char conf[] = "search old.example\nnameserver 127.0.0.11\nnameserver not-an-ip\n"
                                   "search svc.local corp.example bad..name\noptions edns0 ndots:2\n";
        struct resolv_view v;
        char names[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1];
        resolv_view_parse(conf, strlen(conf), &v);
        assert_int_equal(v.ns.n, 1);
        assert_string_equal(v.ns.addr[0], "127.0.0.11");
        assert_int_equal(v.n_search, 2); /* the last line wins; the bad domain is dropped */
        assert_int_equal(v.ndots, 2);
        assert_int_equal(resolv_candidates(&v, "api", names), 3); /* fewer dots: search first */
        assert_string_equal(names[0], "api.svc.local");
        assert_string_equal(names[1], "api.corp.example");
        assert_string_equal(names[2], "api");
        assert_int_equal(resolv_candidates(&v, "a.b.c", names), 3); /* enough dots: as written first */
        assert_string_equal(names[0], "a.b.c");
        assert_int_equal(resolv_candidates(&v, "abs.example.", names), 1);
        assert_string_equal(names[0], "abs.example");
        assert_int_equal(resolv_candidates(&v, "bad name", names), 0);
        resolv_view_parse("options ndots:99\n", 17, &v);
        assert_int_equal(v.ndots, DNS_NDOTS_MAX);
        assert_int_equal(v.ns.n, 0);
}

/* An answer to q (our query, qlen bytes) with the given records appended. */
static size_t answer(uint8_t *buf, const uint8_t *q, int qlen, uint8_t rcode, int n_a) {
        memcpy(buf, q, (size_t)qlen);
        buf[2] |= 0x80;
        buf[3] = rcode;
        buf[7] = (uint8_t)n_a;
        size_t at = (size_t)qlen;
        for (int i = 0; i < n_a; i++) {
                static const uint8_t rr[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 7 };
                memcpy(buf + at, rr, sizeof(rr));
                at += sizeof(rr);
        }
        return at;
}

static void test_codec(void **state) {
        uint8_t q[300], a[600];
        struct dns_addrs got = { 0 };
        int qlen = dns_query_build("ck14-web.example", 0x1234, DNS_TYPE_A, q, sizeof(q));
        assert_int_equal(qlen, 12 + 1 + 8 + 1 + 7 + 1 + 4);
        assert_memory_equal(
                q + 12,
                "\x08"
                "ck14-web"
                "\x07"
                "example"
                "\x00",
                18);
        assert_int_equal(dns_query_build("x", 1, DNS_TYPE_A, q, 10), -EINVAL);
        assert_int_equal(dns_query_build("a..b", 1, DNS_TYPE_A, q, sizeof(q)), -EINVAL);

        size_t len = answer(a, q, qlen, 0, 2);
        assert_int_equal(dns_answer_parse(a, len, 0x1234, DNS_TYPE_A, &got), 0);
        assert_int_equal(got.n, 2);
        assert_memory_equal(got.addr[0], "\x0a\x00\x00\x07", 4);
        got.n = 0;
        assert_int_equal(dns_answer_parse(a, len, 0x9999, DNS_TYPE_A, &got), -EPROTO);     /* not our id */
        assert_int_equal(dns_answer_parse(a, len - 1, 0x1234, DNS_TYPE_A, &got), -EPROTO); /* cut short */
        len = answer(a, q, qlen, 3, 0);
        assert_int_equal(dns_answer_parse(a, len, 0x1234, DNS_TYPE_A, &got), -ENOENT);
        len = answer(a, q, qlen, 2, 0);
        assert_int_equal(dns_answer_parse(a, len, 0x1234, DNS_TYPE_A, &got), -EAGAIN);
        len = answer(a, q, qlen, 0, 0);
        assert_int_equal(dns_answer_parse(a, len, 0x1234, DNS_TYPE_A, &got), 0);
        assert_int_equal(got.n, 0); /* NODATA */
        /* a name of pointers to itself ends: no loop */
        len = answer(a, q, qlen, 0, 1);
        a[qlen] = 0xc0;
        a[qlen + 1] = (uint8_t)qlen;
        assert_true(dns_answer_parse(a, len, 0x1234, DNS_TYPE_A, &got) <= 0);
}

static int parse(const char *json, char *msg, size_t size) {
        json_t *j = json_loads(json, JSON_ALLOW_NUL, NULL);
        struct agent_probe_req r;
        assert_non_null(j);
        int x = agent_probe_req_from_json(j, &r, msg, size);
        json_decref(j);
        return x;
}

static void test_request_checks(void **state) {
        char msg[256];
        struct agent_probe_req r = { 0 };
        assert_int_equal(
                parse("{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://ck14-web:8080/a?b\"}", msg,
                      sizeof(msg)),
                0);
        assert_int_equal(agent_probe_url_parse("http://[::1]:81/x", &r, msg, sizeof(msg)), 0);
        assert_string_equal(r.host, "::1");
        assert_int_equal(r.port, 81);
        assert_string_equal(r.path, "/x");
        assert_int_equal(agent_probe_url_parse("http://web", &r, msg, sizeof(msg)), 0);
        assert_string_equal(r.path, "/");
        assert_int_equal(r.port, 80);
        static const char *const hostile[] = {
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"https://web/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://u@web/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web/a b\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web/\\r\\nX: y\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web:0/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web:65536/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://we_b$/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web/\",\"method\":\"DELETE\"}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web/\",\"expected_status\":99}",
                "{\"type\":\"http\",\"timeout_ms\":2000,\"url\":\"http://web/"
                "\",\"expected_status\":\"200\"}",
                "{\"type\":\"http\",\"timeout_ms\":0,\"url\":\"http://web/\"}",
                "{\"type\":\"http\",\"timeout_ms\":60001,\"url\":\"http://web/\"}",
                "{\"type\":\"http\",\"timeout_ms\":2.5,\"url\":\"http://web/\"}",
                "{\"type\":\"tcp\",\"timeout_ms\":2000,\"host\":\"web\",\"port\":70000}",
                "{\"type\":\"tcp\",\"timeout_ms\":2000,\"host\":\"-;rm\",\"port\":80}",
                "{\"type\":\"tcp\",\"timeout_ms\":2000,\"port\":80}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":[]}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":\"/bin/sh -c x\"}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":[\"\"]}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":[\"/bin/cat\", 7]}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":[\"/bin/c\\u0000at\"]}",
                "{\"type\":\"exec\",\"timeout_ms\":2000,\"cmd\":[\"/bin/true\"],\"expected_exit_code\":256}",
                "{\"type\":\"metric\",\"timeout_ms\":2000}",
                "{\"timeout_ms\":2000}",
                "[]",
                "{\"type\":\"file\",\"timeout_ms\":1000,\"path\":\"etc/hosts\"}",
                "{\"type\":\"file\",\"timeout_ms\":1000,\"path\":\"/etc/hosts\",\"contains\":\"\"}",
                "{\"type\":\"file\",\"timeout_ms\":1000,\"path\":\"/etc/hosts\",\"contains\":\"a\\u0000b\"}",
                "{\"type\":\"file\",\"timeout_ms\":1000,\"path\":\"/etc/hosts\",\"contains\":7}",
                "{\"type\":\"process\",\"timeout_ms\":1000}",
                "{\"type\":\"process\",\"timeout_ms\":1000,\"name\":\"a\",\"pid\":1}",
                "{\"type\":\"process\",\"timeout_ms\":1000,\"pid\":0}",
                "{\"type\":\"process\",\"timeout_ms\":1000,\"pid\":4194305}",
                "{\"type\":\"process\",\"timeout_ms\":1000,\"name\":\"a\\nb\"}",
        };
        for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
                msg[0] = '\0';
                if (parse(hostile[i], msg, sizeof(msg)) != -EINVAL)
                        fail_msg("accepted %s", hostile[i]);
                assert_non_null(strstr(msg, "probe.run: "));
        }
        assert_int_equal(
                parse("{\"type\":\"process\",\"timeout_ms\":1000,\"name\":\"a-very-long-process-name\"}",
                      msg, sizeof(msg)),
                0);
        char many[1024];
        size_t at = (size_t)snprintf(
                many, sizeof(many), "{\"type\":\"exec\",\"timeout_ms\":1000,\"cmd\":[\"a\"");
        for (int i = 0; i < 64; i++)
                at += (size_t)snprintf(many + at, sizeof(many) - at, ",\"a\"");
        snprintf(many + at, sizeof(many) - at, "]}");
        assert_int_equal(parse(many, msg, sizeof(msg)), -EINVAL); /* 65 arguments */
        assert_int_equal(
                parse("{\"type\":\"exec\",\"timeout_ms\":1000,\"cmd\":[\"/bin/cat\",\"/etc/hosts\"]}", msg,
                      sizeof(msg)),
                0);
        char long_host[300];
        memset(long_host, 'a', sizeof(long_host) - 1);
        long_host[sizeof(long_host) - 1] = '\0';
        char json[512];
        snprintf(
                json, sizeof(json), "{\"type\":\"tcp\",\"timeout_ms\":1,\"host\":\"%s\",\"port\":1}",
                long_host);
        assert_int_equal(parse(json, msg, sizeof(msg)), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hosts),
                cmocka_unit_test(test_resolv_search_ndots),
                cmocka_unit_test(test_codec),
                cmocka_unit_test(test_request_checks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
