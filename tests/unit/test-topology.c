#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/strbuf.h"
#include "topology/topology.h"

#define FAKE_PATH "/nonexistent/proj/compose.yaml"

static struct topology *parse_ok(const char *yaml) {
        struct topology *t = NULL;
        struct mh_error e = { 0 };
        int r = compose_parse(FAKE_PATH, yaml, strlen(yaml), &t, &e);
        if (r < 0)
                print_message("unexpected error: %s:%u:%u: %s\n", e.path, e.line, e.col, e.msg);
        assert_int_equal(r, 0);
        assert_non_null(t);
        return t;
}

static void expect_error(const char *yaml, unsigned line, unsigned col, const char *msg) {
        struct topology *t = NULL;
        struct mh_error e = { 0 };
        int r = compose_parse(FAKE_PATH, yaml, strlen(yaml), &t, &e);
        if (r >= 0 || !streq(e.msg, msg) || e.line != line || e.col != col)
                print_message("got r=%d %u:%u: %s\nfor:\n%s\n", r, e.line, e.col, e.msg, yaml);
        assert_true(r < 0);
        assert_null(t);
        assert_string_equal(e.msg, msg);
        assert_int_equal(e.line, line);
        assert_int_equal(e.col, col);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_string_equal(e.path, FAKE_PATH);
}

static const struct topo_service *service(const struct topology *t, const char *name) {
        size_t i;
        assert_int_equal(topology_find_service(t, name, &i), 0);
        return &t->services[i];
}

static char *data_path(const char *rel) {
        const char *root = getenv("MAYHEM_TEST_DATA");
        char *p = NULL;
        assert_non_null(root);
        assert_true(asprintf(&p, "%s/compose/%s", root, rel) > 0);
        return p;
}

static int group_setup(void **state) {
        unsetenv("COMPOSE_PROJECT_NAME");
        unsetenv("COMPOSE_PROFILES");
        return 0;
}

/* ---- fields ---- */

static void test_every_field(void **state) {
        struct topology *t = parse_ok("name: demo\n"
                                      "services:\n"
                                      "  api:\n"
                                      "    image: example/api:1.2\n"
                                      "    container_name: the-api\n"
                                      "    ports: ['8080:80']\n"
                                      "    networks:\n"
                                      "      back:\n"
                                      "        aliases: [x]\n"
                                      "      front: ~\n"
                                      "    depends_on:\n"
                                      "      db: {condition: service_healthy, restart: true}\n"
                                      "    cap_add: [NET_ADMIN, cap_sys_ptrace, Cap_Kill]\n"
                                      "    healthcheck:\n"
                                      "      test: curl -f http://localhost/\n"
                                      "      interval: 1m30s\n"
                                      "      timeout: 500ms\n"
                                      "      start_period: 2s\n"
                                      "      retries: 5\n"
                                      "    build: .\n"
                                      "    environment: {A: b}\n"
                                      "  db:\n"
                                      "    image: postgres\n"
                                      "    deploy: {replicas: 1, resources: {limits: {cpus: '1'}}}\n"
                                      "networks:\n"
                                      "  back: {}\n"
                                      "  front:\n");
        assert_string_equal(t->project, "demo");
        assert_string_equal(t->source_path, FAKE_PATH);
        assert_int_equal(t->n_services, 2);
        const struct topo_service *api = &t->services[0];
        assert_string_equal(api->name, "api");
        assert_int_equal(api->line, 3);
        assert_int_equal(api->col, 3);
        assert_string_equal(api->image, "example/api:1.2");
        assert_string_equal(api->container_name, "the-api");
        assert_null(api->network_mode);
        assert_int_equal(api->replicas, 1);
        assert_int_equal(api->n_ports, 1);
        assert_int_equal(api->ports[0].container_port, 80);
        assert_int_equal(api->ports[0].host_port, 8080);
        assert_null(api->ports[0].host_ip);
        assert_string_equal(api->ports[0].protocol, "tcp");
        assert_int_equal(api->n_networks, 2);
        assert_string_equal(api->networks[0], "back");
        assert_string_equal(api->networks[1], "front");
        assert_int_equal(api->n_depends_on, 1);
        assert_string_equal(api->depends_on[0], "db");
        assert_int_equal(api->depends_on_index[0], 1);
        assert_int_equal(api->depends_on_condition[0], TOPO_CONDITION_HEALTHY);
        assert_int_equal(api->n_cap_add, 3);
        assert_string_equal(api->cap_add[0], "NET_ADMIN");
        assert_string_equal(api->cap_add[1], "SYS_PTRACE");
        assert_string_equal(api->cap_add[2], "KILL");
        const struct topo_healthcheck *h = &api->healthcheck;
        assert_true(h->present);
        assert_false(h->disabled);
        assert_int_equal(h->n_test, 2);
        assert_string_equal(h->test[0], "CMD-SHELL");
        assert_string_equal(h->test[1], "curl -f http://localhost/");
        assert_int_equal(h->interval_ms, 90000);
        assert_int_equal(h->timeout_ms, 500);
        assert_int_equal(h->start_period_ms, 2000);
        assert_int_equal(h->retries, 5);

        const struct topo_service *db = &t->services[1];
        assert_null(db->container_name);
        assert_int_equal(db->n_ports, 0);
        assert_int_equal(db->n_networks, 1);
        assert_string_equal(db->networks[0], "default");
        assert_int_equal(db->n_cap_add, 0);
        assert_false(db->healthcheck.present);
        assert_int_equal(db->healthcheck.interval_ms, -1);
        assert_int_equal(db->healthcheck.retries, -1);

        assert_int_equal(t->n_networks, 3);
        assert_string_equal(t->networks[0], "back");
        assert_string_equal(t->networks[1], "front");
        assert_string_equal(t->networks[2], "default");

        assert_int_equal(t->n_containers, 2);
        assert_string_equal(t->containers[0].name, "the-api");
        assert_string_equal(t->containers[1].name, "demo-db-1");
        topology_free(t);
}

static void test_ports_short_forms(void **state) {
        struct topology *t = parse_ok("name: p\n"
                                      "services:\n"
                                      "  s:\n"
                                      "    ports:\n"
                                      "      - \"80\"\n"
                                      "      - 443\n"
                                      "      - 8080:81\n"
                                      "      - \"127.0.0.1:5353:53/udp\"\n"
                                      "      - \"[::1]::9000\"\n"
                                      "      - \"127.0.0.1::7000/sctp\"\n"
                                      "      - \"8000-8002:90-92\"\n"
                                      "      - \"6000-6001\"\n"
                                      "      - \"3000-3005:3000\"\n"
                                      "      - \"0:4000\"\n");
        const struct {
                uint16_t ctr, host;
                const char *ip, *proto;
        } want[] = {
                { 80, 0, NULL, "tcp" },    { 443, 0, NULL, "tcp" },
                { 81, 8080, NULL, "tcp" }, { 53, 5353, "127.0.0.1", "udp" },
                { 9000, 0, "::1", "tcp" }, { 7000, 0, "127.0.0.1", "sctp" },
                { 90, 8000, NULL, "tcp" }, { 91, 8001, NULL, "tcp" },
                { 92, 8002, NULL, "tcp" }, { 6000, 0, NULL, "tcp" },
                { 6001, 0, NULL, "tcp" },  { 3000, 0, NULL, "tcp" },
                { 4000, 0, NULL, "tcp" },
        };
        const struct topo_service *s = &t->services[0];
        assert_int_equal(s->n_ports, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_int_equal(s->ports[i].container_port, want[i].ctr);
                assert_int_equal(s->ports[i].host_port, want[i].host);
                if (want[i].ip)
                        assert_string_equal(s->ports[i].host_ip, want[i].ip);
                else
                        assert_null(s->ports[i].host_ip);
                assert_string_equal(s->ports[i].protocol, want[i].proto);
        }
        topology_free(t);
}

static void test_ports_long_form(void **state) {
        struct topology *t = parse_ok("name: p\n"
                                      "services:\n"
                                      "  s:\n"
                                      "    ports:\n"
                                      "      - target: 80\n"
                                      "        published: \"8080\"\n"
                                      "        host_ip: 127.0.0.1\n"
                                      "        protocol: udp\n"
                                      "        mode: host\n"
                                      "      - target: 443\n"
                                      "        published: 9443\n"
                                      "      - target: 22\n"
                                      "      - {target: 25, published: 2500-2510}\n");
        const struct topo_service *s = &t->services[0];
        assert_int_equal(s->n_ports, 4);
        assert_int_equal(s->ports[0].container_port, 80);
        assert_int_equal(s->ports[0].host_port, 8080);
        assert_string_equal(s->ports[0].host_ip, "127.0.0.1");
        assert_string_equal(s->ports[0].protocol, "udp");
        assert_int_equal(s->ports[1].host_port, 9443);
        assert_string_equal(s->ports[1].protocol, "tcp");
        assert_int_equal(s->ports[2].container_port, 22);
        assert_int_equal(s->ports[2].host_port, 0);
        assert_int_equal(s->ports[3].container_port, 25);
        assert_int_equal(s->ports[3].host_port, 0);
        topology_free(t);
}

static void test_ports_limit(void **state) {
        struct topology *t = parse_ok("name: p\nservices:\n  s:\n    ports: ['1-999', '2000']\n");
        assert_int_equal(t->services[0].n_ports, 1000);
        assert_int_equal(t->services[0].ports[998].container_port, 999);
        topology_free(t);
        expect_error(
                "name: p\nservices:\n  s:\n    ports: ['1-999', '2000', '2001']\n", 4, 30,
                "services.s.ports[2]: more than 1000 ports (a range counts each port)");
}

static void test_networks_and_mode(void **state) {
        struct topology *t = parse_ok("name: p\n"
                                      "services:\n"
                                      "  a: {networks: [front, default]}\n"
                                      "  b: {network_mode: host}\n"
                                      "  c: {network_mode: 'service:a'}\n"
                                      "  d: {networks: []}\n"
                                      "networks: {front: {driver: bridge}}\n");
        assert_int_equal(t->services[0].n_networks, 2);
        assert_string_equal(t->services[0].networks[1], "default");
        assert_string_equal(t->services[1].network_mode, "host");
        assert_int_equal(t->services[1].n_networks, 0);
        assert_string_equal(t->services[2].network_mode, "service:a");
        assert_int_equal(t->services[3].n_networks, 1);
        assert_string_equal(t->services[3].networks[0], "default");
        assert_int_equal(t->n_networks, 2);
        topology_free(t);

        /* Nobody on the default network: it is not listed. */
        t = parse_ok(
                "name: p\nservices:\n  a: {networks: [x]}\n  b: {network_mode: none}\nnetworks: {x: ~}\n");
        assert_int_equal(t->n_networks, 1);
        assert_string_equal(t->networks[0], "x");
        topology_free(t);
}

static void test_depends_on_forms(void **state) {
        struct topology *t = parse_ok("name: p\n"
                                      "services:\n"
                                      "  web: {depends_on: [api, cache]}\n"
                                      "  api:\n"
                                      "    depends_on:\n"
                                      "      db: {condition: service_completed_successfully}\n"
                                      "      cache: {condition: service_started, required: false}\n"
                                      "      mig: ~\n"
                                      "  db: {}\n"
                                      "  cache: {}\n"
                                      "  mig: {}\n");
        const struct topo_service *web = service(t, "web"), *api = service(t, "api");
        assert_int_equal(web->n_depends_on, 2);
        assert_int_equal(web->depends_on_index[0], 1);
        assert_int_equal(web->depends_on_index[1], 3);
        assert_int_equal(web->depends_on_condition[0], TOPO_CONDITION_STARTED);
        assert_int_equal(api->n_depends_on, 3);
        assert_int_equal(api->depends_on_condition[0], TOPO_CONDITION_COMPLETED);
        assert_int_equal(api->depends_on_condition[1], TOPO_CONDITION_STARTED);
        assert_int_equal(api->depends_on_condition[2], TOPO_CONDITION_STARTED);
        assert_string_equal(api->depends_on[2], "mig");
        assert_string_equal(topo_condition_to_string(TOPO_CONDITION_HEALTHY), "service_healthy");
        assert_int_equal(topo_condition_from_string("service_started"), TOPO_CONDITION_STARTED);
        topology_free(t);
}

static void test_healthcheck_forms(void **state) {
        struct topology *t = parse_ok("name: p\n"
                                      "services:\n"
                                      "  a:\n"
                                      "    healthcheck:\n"
                                      "      test: [CMD, pg_isready, -U, postgres]\n"
                                      "      retries: 0\n"
                                      "  b: {healthcheck: {test: [NONE]}}\n"
                                      "  c: {healthcheck: {disable: true}}\n"
                                      "  d: {healthcheck: {interval: '0', timeout: 1h, disable: 'no'}}\n"
                                      "  e: {healthcheck: ~}\n");
        const struct topo_healthcheck *a = &t->services[0].healthcheck;
        assert_true(a->present);
        assert_false(a->disabled);
        assert_int_equal(a->n_test, 4);
        assert_string_equal(a->test[0], "CMD");
        assert_string_equal(a->test[3], "postgres");
        assert_int_equal(a->retries, 0);
        assert_int_equal(a->interval_ms, -1);
        assert_true(t->services[1].healthcheck.disabled);
        assert_true(t->services[2].healthcheck.disabled);
        assert_int_equal(t->services[2].healthcheck.n_test, 0);
        const struct topo_healthcheck *d = &t->services[3].healthcheck;
        assert_false(d->disabled);
        assert_int_equal(d->interval_ms, 0);
        assert_int_equal(d->timeout_ms, 3600000);
        assert_false(t->services[4].healthcheck.present);
        topology_free(t);
}

/* ---- interpolation ---- */

static void test_interpolation(void **state) {
        setenv("MH_TAG", "1.4", 1);
        setenv("MH_EMPTY", "", 1);
        setenv("MH_PORT", "9090", 1);
        setenv("MH_N", "3", 1);
        unsetenv("MH_UNSET");
        struct topology *t = parse_ok(
                "name: ${MH_PROJECT:-interp}\n"
                "services:\n"
                "  a:\n"
                "    image: \"registry/app:${MH_TAG}\"\n"
                "    ports: ['${MH_PORT}:80', '$MH_PORT-9091:81-82']\n"
                "    deploy: {replicas: '${MH_N}'}\n"
                "    cap_add: ['${MH_UNSET:-NET_RAW}']\n"
                "    healthcheck:\n"
                "      test: ['CMD', 'echo', '$$HOME', '${MH_EMPTY-unused}', '${MH_EMPTY:-used}',\n"
                "             '${MH_UNSET}x', 'cost: 5$', '$1', '${MH_UNSET:-${MH_TAG}}',\n"
                "             '${MH_TAG:+set}', '${MH_UNSET+set}', '${MH_EMPTY?fine}', '${MH_UNSET-}']\n"
                "      interval: ${MH_UNSET:-5s}\n");
        const struct topo_service *a = &t->services[0];
        assert_string_equal(t->project, "interp");
        assert_string_equal(a->image, "registry/app:1.4");
        assert_int_equal(a->ports[0].host_port, 9090);
        assert_int_equal(a->ports[2].host_port, 9091);
        assert_int_equal(a->ports[2].container_port, 82);
        assert_int_equal(a->replicas, 3);
        assert_string_equal(a->cap_add[0], "NET_RAW");
        const char *want[] = { "CMD", "echo", "$HOME", "", "used", "x", "cost: 5$",
                               "$1",  "1.4",  "set",   "", "",     "" };
        assert_int_equal(a->healthcheck.n_test, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(a->healthcheck.test[i], want[i]);
        assert_int_equal(a->healthcheck.interval_ms, 5000);
        topology_free(t);
}

static void test_interpolation_errors(void **state) {
        setenv("MH_EMPTY", "", 1);
        unsetenv("MH_UNSET");
        expect_error(
                "name: p\nservices:\n  a:\n    image: ${MH_UNSET:?set MH_UNSET to the tag}\n", 4, 12,
                "services.a.image: required variable MH_UNSET is missing a value: set MH_UNSET to the tag");
        expect_error(
                "name: p\nservices:\n  a:\n    image: ${MH_EMPTY:?}\n", 4, 12,
                "services.a.image: required variable MH_EMPTY is missing a value");
        expect_error(
                "name: p\nservices:\n  a:\n    image: ${MH_UNSET?}\n", 4, 12,
                "services.a.image: required variable MH_UNSET is missing a value");
        expect_error(
                "name: p\nservices:\n  a:\n    image: \"app:${MH_TAG\"\n", 4, 12,
                "services.a.image: unterminated '${' in 'app:${MH_TAG'");
        expect_error(
                "name: p\nservices:\n  a:\n    image: \"app:${MH_TAG:-${X}\"\n", 4, 12,
                "services.a.image: unterminated '${' in 'app:${MH_TAG:-${X}'");
        expect_error(
                "name: p\nservices:\n  a:\n    image: \"${1TAG}\"\n", 4, 12,
                "services.a.image: invalid interpolation '${1TAG}' in '${1TAG}'");
        expect_error(
                "name: p\nservices:\n  a:\n    image: \"${A:}\"\n", 4, 12,
                "services.a.image: invalid interpolation '${A:}' in '${A:}'");
        expect_error(
                "name: p\nservices:\n  a:\n    image: \"${A B}\"\n", 4, 12,
                "services.a.image: invalid interpolation '${A B}' in '${A B}'");
        expect_error(
                "name: p\nservices:\n  a:\n    ports: ['${MH_UNSET:-x}:80']\n", 4, 13,
                "services.a.ports[0]: invalid port 'x:80'");
        expect_error(
                "name: p\nservices:\n  a:\n    image: "
                "'${A:-${B:-${C:-${D:-${E:-${F:-${G:-${H:-${I:-${J}}}}}}}}}}'\n",
                4, 12,
                "services.a.image: interpolation nested deeper than 8 levels in "
                "'${A:-${B:-${C:-${D:-${E:-${F:-${G:-${H:-${I:-${J}}}}}}}}}}'");
}

static void test_interpolation_length_limit(void **state) {
        struct strbuf b = STRBUF_INIT(0);
        char *big = malloc(40000);
        assert_non_null(big);
        memset(big, 'x', 39999);
        big[39999] = '\0';
        setenv("MH_BIG", big, 1);
        free(big);
        assert_int_equal(strbuf_puts(&b, "name: p\nservices:\n  a:\n    image: ${MH_BIG}${MH_BIG}\n"), 0);
        expect_error(b.data, 4, 12, "services.a.image: longer than 65536 bytes after interpolation");
        strbuf_done(&b);
        unsetenv("MH_BIG");
}

/* ---- names ---- */

static void test_container_naming(void **state) {
        struct topology *t = parse_ok("name: shop\n"
                                      "services:\n"
                                      "  web: {deploy: {replicas: 3}}\n"
                                      "  worker: {scale: 2}\n"
                                      "  both: {scale: 2, deploy: {replicas: 2}}\n"
                                      "  off: {scale: 0}\n"
                                      "  db: {container_name: main-db, deploy: {replicas: 1}}\n");
        const char *want[] = { "shop-web-1",    "shop-web-2",  "shop-web-3",  "shop-worker-1",
                               "shop-worker-2", "shop-both-1", "shop-both-2", "main-db" };
        assert_int_equal(t->n_containers, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(t->containers[i].name, want[i]);
        assert_int_equal(t->containers[2].replica, 3);
        assert_int_equal(t->containers[2].service, 0);
        assert_int_equal(t->containers[7].service, 4);
        assert_int_equal(service(t, "worker")->first_container, 3);
        assert_int_equal(service(t, "off")->replicas, 0);
        assert_ptr_equal(topology_find_container(t, "shop-worker-2"), &t->containers[4]);
        assert_null(topology_find_container(t, "shop-worker-3"));
        topology_free(t);
}

static void test_project_name(void **state) {
        struct topology *t = parse_ok("name: My_Shop.v2\nservices: {a: {}}\n");
        assert_string_equal(t->project, "my_shopv2");
        assert_string_equal(t->containers[0].name, "my_shopv2-a-1");
        topology_free(t);

        setenv("COMPOSE_PROJECT_NAME", "FromEnv", 1);
        t = parse_ok("name: ignored\nservices: {a: {}}\n");
        assert_string_equal(t->project, "fromenv");
        topology_free(t);
        setenv("COMPOSE_PROJECT_NAME", "-bad", 1);
        struct mh_error e = { 0 };
        assert_int_equal(compose_parse("x.yaml", "services: {a: {}}", 17, &t, &e), -EINVAL);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_string_equal(
                e.msg, "COMPOSE_PROJECT_NAME='-bad' is no project name (lowercased and stripped of all "
                       "but a-z, 0-9, '_' and '-', it must start with a letter or digit)");
        unsetenv("COMPOSE_PROJECT_NAME");

        /* Without either, the directory: FAKE_PATH does not exist, so its name is taken as written. */
        t = parse_ok("services: {a: {}}\n");
        assert_string_equal(t->project, "proj");
        topology_free(t);
        expect_error(
                "name: '__'\nservices: {a: {}}\n", 1, 7,
                "name: '__' is no project name (lowercased and stripped of all but a-z, 0-9, '_' and '-', "
                "it "
                "must start with a letter or digit)");
}

static void test_load_from_directory(void **state) {
        _cleanup_free_ char *path = data_path("shop/compose.yaml");
        struct topology *t = NULL;
        struct mh_error e = { 0 };
        unsetenv("SHOP_TAG");
        assert_int_equal(compose_load(path, &t, &e), 0);
        assert_string_equal(t->project, "shop");
        assert_int_equal(t->n_services, 4);
        assert_int_equal(t->n_containers, 5);
        assert_string_equal(service(t, "api")->image, "shop/api:latest");
        assert_string_equal(service(t, "api")->cap_add[0], "NET_ADMIN");
        assert_int_equal(service(t, "web")->n_ports, 2);
        assert_non_null(topology_find_container(t, "shop-api-2"));
        assert_non_null(topology_find_container(t, "shop-db"));
        assert_int_equal(t->n_networks, 2);
        topology_free(t);

        assert_int_equal(compose_load("/nonexistent/compose.yaml", &t, &e), -ENOENT);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
}

/* ---- finding the file ---- */

static void touch(const char *dir, const char *name) {
        _cleanup_free_ char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fclose(f);
}

static void test_find_default(void **state) {
        char dir[] = "/tmp/mh-topo-XXXXXX";
        struct mh_error e = { 0 };
        char *p = NULL;

        assert_non_null(mkdtemp(dir));
        assert_int_equal(compose_find_default(dir, &p, &e), -ENOENT);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_non_null(
                strstr(e.msg, "looked for compose.yaml, compose.yml, docker-compose.yml and "
                              "docker-compose.yaml); name one with -c FILE"));
        const char *order[] = { "docker-compose.yaml", "docker-compose.yml", "compose.yml", "compose.yaml" };
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                _cleanup_free_ char *want = NULL;
                touch(dir, order[i]);
                assert_true(asprintf(&want, "%s/%s", dir, order[i]) > 0);
                assert_int_equal(compose_find_default(dir, &p, &e), 0);
                assert_string_equal(p, want);
                free(p);
        }
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                _cleanup_free_ char *f = NULL;
                assert_true(asprintf(&f, "%s/%s", dir, order[i]) > 0);
                unlink(f);
        }
        rmdir(dir);

        _cleanup_free_ char *legacy = data_path("legacy");
        assert_int_equal(compose_find_default(legacy, &p, &e), 0);
        assert_non_null(strstr(p, "legacy/docker-compose.yml"));
        free(p);
}

/* ---- profiles ---- */

static const char *const profiles_yaml = "name: p\n"
                                         "services:\n"
                                         "  web: {image: w}\n"
                                         "  db: {image: d, profiles: [dev]}\n"
                                         "  tools: {container_name: tools-1, profiles: [debug, dev]}\n";

static void test_profiles(void **state) {
        const struct topo_container *c = NULL;
        struct mh_error e = { 0 };

        struct topology *t = parse_ok(profiles_yaml); /* COMPOSE_PROFILES unset: no profile is active */
        assert_int_equal(t->n_services, 1);
        assert_string_equal(t->services[0].name, "web");
        assert_int_equal(t->n_inactive, 2);
        assert_string_equal(t->inactive[1].profiles, "debug, dev");
        assert_int_equal(topology_resolve(t, "tools-1", &c, &e), -ENOENT);
        assert_string_equal(
                e.msg, "'tools-1' is service 'tools' of " FAKE_PATH ", left out: none of its profiles "
                       "(debug, dev) is active (set COMPOSE_PROFILES)");
        assert_int_equal(topology_resolve(t, "db", &c, &e), -ENOENT);
        topology_free(t);

        static const struct {
                const char *profiles;
                size_t services;
        } cases[] = { { "dev", 3 }, { " debug , x", 2 }, { "*", 3 }, { "", 1 }, { ",,", 1 } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                setenv("COMPOSE_PROFILES", cases[i].profiles, 1);
                t = parse_ok(profiles_yaml);
                if (t->n_services != cases[i].services)
                        fail_msg("COMPOSE_PROFILES='%s': %zu services", cases[i].profiles, t->n_services);
                assert_int_equal(t->n_services + t->n_inactive, 3);
                if (t->n_services > 1)
                        assert_int_equal(topology_resolve(t, "tools-1", &c, &e), 0);
                topology_free(t);
        }
        unsetenv("COMPOSE_PROFILES");
        expect_error(
                "services:\n  web: {depends_on: [db]}\n  db: {profiles: [dev]}\n", 2, 22,
                "services.web.depends_on[0]: service 'db' is left out: none of its profiles (dev) is "
                "active (COMPOSE_PROFILES)");
        expect_error(
                "services:\n  web: {profiles: ['-x']}\n", 2, 20,
                "services.web.profiles[0]: invalid profile name '-x' (compose takes "
                "[a-zA-Z0-9][a-zA-Z0-9_.-]+)");
        expect_error(
                "services:\n  web: {profiles: dev}\n", 2, 19,
                "services.web.profiles: expected a list, not a scalar");
}

/* ---- .env ---- */

static void write_text(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

static void remove_text(const char *dir, const char *name) {
        _cleanup_free_ char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        assert_int_equal(unlink(p), 0);
}

/* A real compose file and .env in a directory: the .env supplies what the
 * environment does not, COMPOSE_PROJECT_NAME and COMPOSE_PROFILES included. */
static void test_dotenv_files(void **state) {
        char dir[] = "/tmp/mh-topo-env-XXXXXX";
        _cleanup_free_ char *compose = NULL;
        struct topology *t = NULL;
        struct mh_error e = { 0 };

        assert_non_null(mkdtemp(dir));
        assert_true(asprintf(&compose, "%s/compose.yaml", dir) > 0);
        write_text(
                dir, "compose.yaml",
                "services:\n"
                "  api: {image: '${REGISTRY}/api:${TAG:-latest}', container_name: '${API_NAME}'}\n"
                "  dbg: {image: busybox, profiles: [debug]}\n");
        write_text(
                dir, ".env",
                "# the project's variables\n"
                "REGISTRY=registry.local:5000 # a comment\n"
                "export TAG='1.2'\r\n"
                "API_NAME=\"first\"\n"
                "API_NAME=\"api-one\"\n"
                "\n"
                "COMPOSE_PROJECT_NAME=fromdotenv\n"
                "COMPOSE_PROFILES=debug\n");
        unsetenv("TAG");
        unsetenv("REGISTRY");
        unsetenv("API_NAME");
        if (compose_load(compose, &t, &e) < 0)
                fail_msg("%s:%u:%u: %s", e.path, e.line, e.col, e.msg);
        assert_string_equal(t->project, "fromdotenv");
        assert_string_equal(service(t, "api")->image, "registry.local:5000/api:1.2");
        assert_string_equal(service(t, "api")->container_name, "api-one");
        assert_int_equal(t->n_services, 2);
        topology_free(t);

        setenv("TAG", "from-env", 1); /* the environment wins over .env */
        setenv("COMPOSE_PROFILES", "other", 1);
        assert_int_equal(compose_load(compose, &t, &e), 0);
        assert_string_equal(service(t, "api")->image, "registry.local:5000/api:from-env");
        assert_int_equal(t->n_services, 1);
        topology_free(t);
        unsetenv("TAG");
        unsetenv("COMPOSE_PROFILES");

        write_text(dir, ".env", "REGISTRY=x\nnot a line\n");
        t = NULL;
        assert_int_equal(compose_load(compose, &t, &e), -EINVAL);
        assert_null(t);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_int_equal(e.line, 2);
        assert_int_equal(e.col, 5);
        assert_non_null(strstr(e.path, "/.env"));
        assert_string_equal(e.msg, "expected '=' after the variable name");

        remove_text(dir, ".env"); /* none at all is fine: the variables are then empty */
        assert_int_equal(compose_load(compose, &t, &e), 0);
        assert_string_equal(service(t, "api")->image, "/api:latest");
        assert_null(service(t, "api")->container_name);
        topology_free(t);
        remove_text(dir, "compose.yaml");
        assert_int_equal(rmdir(dir), 0);
}

static void test_dotenv_parser(void **state) {
        static const struct {
                const char *text;
                unsigned line, col;
                const char *msg; /* NULL: parses */
                size_t len;      /* 0: strlen(text) */
        } cases[] = {
                { "", 0, 0, NULL, 0 },
                { "# only a comment\n\n   \n", 0, 0, NULL, 0 },
                { "A=1\nB = two words \n", 0, 0, NULL, 0 },
                { "=1\n", 1, 1, "expected KEY=VALUE (a name of letters, digits, '_', '.', '-')", 0 },
                { "1A=1\n", 1, 1, "expected KEY=VALUE (a name of letters, digits, '_', '.', '-')", 0 },
                { "A\n", 1, 2, "expected '=' after the variable name", 0 },
                { "A='open\nB=1\n", 1, 8, "unterminated quoted value (a value must end on its own line)",
                  0 },
                { "A=\"x\" y\n", 1, 7, "unexpected text after the closing quote", 0 },
                { "A=1\nB=\0\n", 2, 1, "NUL byte in the line", 8 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct compose_dotenv *env = NULL;
                struct mh_error e = { 0 };
                size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
                int r = compose_dotenv_parse(".env", cases[i].text, len, &env, &e);
                if (!cases[i].msg) {
                        if (r < 0)
                                fail_msg("case %zu: %u:%u: %s", i, e.line, e.col, e.msg);
                        compose_dotenv_free(env);
                        continue;
                }
                if (r >= 0 || e.line != cases[i].line || e.col != cases[i].col ||
                    !streq(e.msg, cases[i].msg))
                        fail_msg("case %zu: r=%d %u:%u: %s", i, r, e.line, e.col, e.msg);
                assert_null(env);
                assert_string_equal(e.path, ".env");
        }

        struct compose_dotenv *env = NULL;
        struct mh_error e = { 0 };
        const char *text =
                "A = spaced out  # note\nexport B=\"tab\\there\"\nC='$literal \\n'\nD=x#not-a-comment\n"
                "A=again\n";
        assert_int_equal(compose_dotenv_parse(".env", text, strlen(text), &env, &e), 0);
        assert_int_equal(compose_dotenv_size(env), 4);
        assert_string_equal(compose_dotenv_get(env, "A", 1), "again");
        assert_string_equal(compose_dotenv_get(env, "Bxyz", 1), "tab\there");
        assert_string_equal(compose_dotenv_get(env, "C", 1), "$literal \\n");
        assert_string_equal(compose_dotenv_get(env, "D", 1), "x#not-a-comment");
        assert_null(compose_dotenv_get(env, "E", 1));
        assert_null(compose_dotenv_get(env, "AB", 2));
        compose_dotenv_free(env);

        /* Bounded: the file, one value, the number of variables. */
        struct strbuf big = STRBUF_INIT(4u * COMPOSE_DOTENV_MAX);
        assert_int_equal(strbuf_puts(&big, "A="), 0);
        for (size_t i = 0; i <= COMPOSE_DOTENV_VALUE_MAX; i++)
                assert_int_equal(strbuf_putc(&big, 'x'), 0);
        assert_int_equal(compose_dotenv_parse(".env", big.data, big.len, &env, &e), -EINVAL);
        assert_string_equal(e.msg, "value longer than the limit in bytes of 65536");
        big.len = 0;
        for (unsigned i = 0; i <= COMPOSE_DOTENV_VARS_MAX; i++)
                assert_int_equal(strbuf_printf(&big, "V%u=1\n", i), 0);
        assert_int_equal(compose_dotenv_parse(".env", big.data, big.len, &env, &e), -EINVAL);
        assert_string_equal(e.msg, "more variables than the limit of 10000");
        assert_int_equal(e.line, COMPOSE_DOTENV_VARS_MAX + 1);
        while (big.len <= COMPOSE_DOTENV_MAX)
                assert_int_equal(strbuf_puts(&big, "# padding padding padding\n"), 0);
        assert_int_equal(compose_dotenv_parse(".env", big.data, big.len, &env, &e), -EFBIG);
        strbuf_done(&big);
}

/* ---- keys we do not follow ---- */

static void test_unknown_keys_warn(void **state) {
        struct topology *t = parse_ok("name: k\n"
                                      "include: [other.yaml]\n"
                                      "x-anchors: {}\n"
                                      "volumez: {}\n"
                                      "services:\n"
                                      "  web:\n"
                                      "    image: w\n"
                                      "    imagee: typo\n"
                                      "    restart: always\n"
                                      "    environment: {A: b}\n"
                                      "    x-private: 1\n"
                                      "    frobnicate: 1\n"
                                      "    extends: {service: base}\n");
        static const char *const want[] = {
                FAKE_PATH ":4:1: volumez: not a compose top-level key; ignored (did you mean 'volumes'?)",
                FAKE_PATH ":2:1: include: not supported: the services of included files are not in the "
                          "topology (merge them into this file, or pass the file that defines the targets "
                          "with -c)",
                FAKE_PATH ":8:5: services.web.imagee: not a compose service key; ignored (did you mean "
                          "'image'?)",
                FAKE_PATH ":12:5: services.web.frobnicate: not a compose service key; ignored",
                FAKE_PATH ":13:5: services.web.extends: not followed: what the service would inherit "
                          "(image, ports, networks, ...) is not read; write it in the service",
        };
        assert_int_equal(t->n_warnings, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(t->warnings[i], want[i]);
        assert_int_equal(t->n_services, 1); /* nothing else changed */
        topology_free(t);

        t = parse_ok("services:\n  a: {image: x, restart: always}\n");
        assert_int_equal(t->n_warnings, 0);
        topology_free(t);

        /* Bounded: the last line says the rest are not shown. */
        struct strbuf y = STRBUF_INIT(1u << 20);
        assert_int_equal(strbuf_puts(&y, "services:\n  a:\n"), 0);
        for (unsigned i = 0; i < 2 * COMPOSE_WARNINGS_MAX; i++)
                assert_int_equal(strbuf_printf(&y, "    k%u: 1\n", i), 0);
        t = parse_ok(y.data);
        assert_int_equal(t->n_warnings, COMPOSE_WARNINGS_MAX);
        assert_non_null(strstr(
                t->warnings[COMPOSE_WARNINGS_MAX - 1], "more than 99 warnings; the rest are not shown"));
        topology_free(t);
        strbuf_done(&y);
}

/* ---- resolve ---- */

static const char *const resolve_yaml = "name: r\n"
                                        "services:\n"
                                        "  api: {deploy: {replicas: 3}}\n"
                                        "  db: {container_name: postgres}\n"
                                        "  cache: {}\n"
                                        "  off: {scale: 0}\n";

static void test_resolve(void **state) {
        struct topology *t = parse_ok(resolve_yaml);
        const struct topo_container *c = NULL;
        struct mh_error e = { 0 };

        assert_int_equal(topology_resolve(t, "postgres", &c, &e), 0);
        assert_string_equal(c->name, "postgres");
        assert_int_equal(topology_resolve(t, "db", &c, &e), 0); /* the service, one container */
        assert_string_equal(c->name, "postgres");
        assert_int_equal(topology_resolve(t, "cache", &c, &e), 0);
        assert_string_equal(c->name, "r-cache-1");
        assert_int_equal(topology_resolve(t, "r-api-2", &c, &e), 0);
        assert_int_equal(c->replica, 2);

        assert_int_equal(topology_resolve(t, "api", &c, &e), -EINVAL);
        assert_string_equal(
                e.msg, "service 'api' has 3 containers; name one of them: r-api-1, r-api-2, r-api-3");
        assert_string_equal(e.id, "ambiguous_target");
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);

        assert_int_equal(topology_resolve(t, "off", &c, &e), -ENOENT);
        assert_string_equal(e.msg, "service 'off' has no containers (it is scaled to 0)");

        assert_int_equal(topology_resolve(t, "postgress", &c, &e), -ENOENT);
        assert_string_equal(
                e.msg, "no container or service named 'postgress' in " FAKE_PATH
                       " (known: r-api-1, r-api-2, r-api-3, postgres, r-cache-1); did you mean "
                       "'postgres'?");
        assert_int_equal(topology_resolve(t, "zzzzzz", &c, &e), -ENOENT);
        assert_string_equal(
                e.msg, "no container or service named 'zzzzzz' in " FAKE_PATH
                       " (known: r-api-1, r-api-2, r-api-3, postgres, r-cache-1)");
        assert_string_equal(e.id, "unknown_target");
        topology_free(t);
}

static void test_resolve_many(void **state) {
        struct topology *t = parse_ok("name: m\nservices:\n  w: {scale: 12}\n  solo: {}\n");
        const struct topo_container *c = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(topology_resolve(t, "w", &c, &e), -EINVAL);
        assert_string_equal(
                e.msg, "service 'w' has 12 containers; name one of them: m-w-1, m-w-2, m-w-3, m-w-4, "
                       "m-w-5, m-w-6, m-w-7, m-w-8, m-w-9, m-w-10, … and 2 more");
        assert_int_equal(topology_resolve(t, "m-w-13", &c, &e), -ENOENT);
        assert_string_equal(
                e.msg, "no container or service named 'm-w-13' in " FAKE_PATH
                       " (known: m-w-1, m-w-2, m-w-3, m-w-4, m-w-5, m-w-6, m-w-7, m-w-8, m-w-9, m-w-10, "
                       "… and 3 more); did you mean 'm-w-1'?");
        topology_free(t);

        t = parse_ok("name: m\nservices: {}\n");
        assert_int_equal(topology_resolve(t, "x", &c, &e), -ENOENT);
        assert_string_equal(
                e.msg, "no container or service named 'x' in " FAKE_PATH " (it defines no containers)");
        topology_free(t);
}

/* ---- graph ---- */

static void test_dependents(void **state) {
        /* web -> api -> {db, cache}; worker -> db; admin -> web; lone */
        struct topology *t = parse_ok("name: g\n"
                                      "services:\n"
                                      "  admin: {depends_on: [web]}\n"
                                      "  web: {depends_on: [api]}\n"
                                      "  api: {depends_on: [db, cache]}\n"
                                      "  worker: {depends_on: {db: {condition: service_healthy}}}\n"
                                      "  db: {}\n"
                                      "  cache: {}\n"
                                      "  lone: {}\n");
        size_t out[16], db, cache, lone, admin;
        assert_int_equal(topology_find_service(t, "db", &db), 0);
        assert_int_equal(topology_find_service(t, "cache", &cache), 0);
        assert_int_equal(topology_find_service(t, "lone", &lone), 0);
        assert_int_equal(topology_find_service(t, "admin", &admin), 0);
        assert_int_equal(topology_find_service(t, "nope", &lone), -ENOENT);

        size_t n = topology_dependents(t, db, out, ELEMENTSOF(out));
        assert_int_equal(n, 4);
        /* In dependency order (breadth first from the leaves): api before web before admin. */
        assert_string_equal(t->services[out[0]].name, "worker");
        assert_string_equal(t->services[out[1]].name, "api");
        assert_string_equal(t->services[out[2]].name, "web");
        assert_string_equal(t->services[out[3]].name, "admin");
        assert_int_equal(topology_dependents(t, cache, out, ELEMENTSOF(out)), 3);
        assert_int_equal(topology_dependents(t, admin, out, ELEMENTSOF(out)), 0);
        assert_int_equal(topology_dependents(t, lone, out, ELEMENTSOF(out)), 0);
        /* A short buffer still learns the total. */
        out[1] = 999;
        assert_int_equal(topology_dependents(t, db, out, 1), 4);
        assert_string_equal(t->services[out[0]].name, "worker");
        assert_int_equal(out[1], 999);
        assert_int_equal(topology_dependents(t, 100, out, ELEMENTSOF(out)), 0);
        topology_free(t);
}

static void test_json(void **state) {
        struct topology *t = parse_ok(resolve_yaml);
        json_t *j = NULL;
        assert_int_equal(topology_to_json(t, &j), 0);
        assert_string_equal(json_string_value(json_object_get(j, "project")), "r");
        assert_int_equal(json_array_size(json_object_get(j, "services")), 4);
        assert_int_equal(json_array_size(json_object_get(j, "containers")), 5);
        json_t *api = json_array_get(json_object_get(j, "services"), 0);
        assert_int_equal(json_integer_value(json_object_get(api, "replicas")), 3);
        assert_true(json_is_null(json_object_get(api, "image")));
        assert_true(json_is_null(json_object_get(api, "healthcheck")));
        assert_int_equal(json_array_size(json_object_get(api, "containers")), 3);
        json_decref(j);
        topology_free(t);

        t = parse_ok("name: j\n"
                     "services:\n"
                     "  a: {image: x, depends_on: {b: {condition: service_healthy}}, ports: "
                     "['127.0.0.1:1:2/udp'],\n"
                     "      healthcheck: {test: 'true', interval: 1s}}\n"
                     "  b: {}\n");
        assert_int_equal(topology_to_json(t, &j), 0);
        char *s = json_dumps(json_object_get(j, "edges"), JSON_COMPACT);
        assert_string_equal(s, "[{\"from\":\"a\",\"to\":\"b\",\"condition\":\"service_healthy\"}]");
        free(s);
        api = json_array_get(json_object_get(j, "services"), 0);
        s = json_dumps(json_object_get(api, "ports"), JSON_COMPACT);
        assert_string_equal(
                s,
                "[{\"container_port\":2,\"host_port\":1,\"host_ip\":\"127.0.0.1\",\"protocol\":\"udp\"}]");
        free(s);
        s = json_dumps(json_object_get(api, "healthcheck"), JSON_COMPACT);
        assert_string_equal(
                s, "{\"disabled\":false,\"test\":[\"CMD-SHELL\",\"true\"],\"interval_ms\":1000,"
                   "\"timeout_ms\":null,\"start_period_ms\":null,\"retries\":null}");
        free(s);
        s = json_dumps(json_object_get(j, "networks"), JSON_COMPACT);
        assert_string_equal(s, "[\"default\"]");
        free(s);
        json_decref(j);
        topology_free(t);
}

/* ---- size ---- */

static void test_thousand_services(void **state) {
        struct strbuf b = STRBUF_INIT(0);
        struct timespec t0, t1;
        assert_int_equal(strbuf_puts(&b, "name: big\nservices:\n"), 0);
        for (unsigned i = 0; i < 1000; i++)
                assert_int_equal(
                        strbuf_printf(
                                &b,
                                "  svc%u:\n    image: img\n    ports: ['%u:80']\n"
                                "    depends_on: [svc%u]\n    deploy: {replicas: 2}\n",
                                i, 10000 + i, i ? i - 1 : 999),
                        0);
        /* svc0 depends on svc999: make it a chain by dropping that edge. */
        char *edge = strstr(b.data, "[svc999]");
        memcpy(edge, "[]      ", 8);

        struct topology *t = NULL;
        struct mh_error e = { 0 };
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(compose_parse(FAKE_PATH, b.data, b.len, &t, &e), 0);
        const struct topo_container *c = NULL;
        for (unsigned i = 0; i < 1000; i++) {
                char name[32];
                snprintf(name, sizeof(name), "big-svc%u-2", i);
                assert_int_equal(topology_resolve(t, name, &c, &e), 0);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        print_message("1000 services, 2000 containers: parsed and resolved in %.1f ms\n", ms);
        assert_int_equal(t->n_containers, 2000);
        size_t *out = malloc(1000 * sizeof(size_t));
        assert_int_equal(topology_dependents(t, 0, out, 1000), 999);
        assert_int_equal(out[998], 999);
        free(out);
        topology_free(t);
        strbuf_done(&b);

        /* One over the service limit. */
        b = STRBUF_INIT(0);
        assert_int_equal(strbuf_puts(&b, "name: big\nservices:\n"), 0);
        for (unsigned i = 0; i <= TOPOLOGY_SERVICES_MAX; i++)
                assert_int_equal(strbuf_printf(&b, "  s%u: {}\n", i), 0);
        expect_error(b.data, 3, 3, "services: more than 10000 services");
        strbuf_done(&b);
}

/* ---- malformed files: exact position and message ---- */

static void test_malformed(void **state) {
        static const struct {
                const char *yaml;
                unsigned line, col;
                const char *msg;
        } cases[] = {
                { "- a\n- b\n", 1, 1, "expected a mapping at the top level, not a list" },
                { "name: x\nvolumes: {}\n", 1, 1, "no services: mapping at the top level" },
                { "name: x\nservices: [a, b]\n", 2, 11, "services: expected a mapping, not a list" },
                { "name: x\nservices:\n  api: nginx\n", 3, 8,
                  "services.api: expected a mapping, not a scalar" },
                { "name: x\nservices:\n  api:\n", 3, 7, "services.api: expected a mapping, not null" },
                { "name: x\nservices:\n  'bad name': {}\n", 3, 3,
                  "services.bad name: invalid service name (compose takes [a-zA-Z0-9._-]+, at most 255 "
                  "characters)" },
                { "name: x\nservices:\n  api:\n    ports:\n      - \"8080:80\"\n      - \"80:abc\"\n", 6, 9,
                  "services.api.ports[1]: invalid port '80:abc'" },
                { "name: x\nservices:\n  api:\n    ports: ['70000:80']\n", 4, 13,
                  "services.api.ports[0]: invalid port '70000:80': port numbers go from 1 to 65535" },
                { "name: x\nservices:\n  api:\n    ports: ['8000-8002:80-81']\n", 4, 13,
                  "services.api.ports[0]: invalid port '8000-8002:80-81': "
                  "the host and container ranges differ in length" },
                { "name: x\nservices:\n  api:\n    ports: ['8080:80-81']\n", 4, 13,
                  "services.api.ports[0]: invalid port '8080:80-81': "
                  "a container range needs a host range of the same length" },
                { "name: x\nservices:\n  api:\n    ports: ['80/http']\n", 4, 13,
                  "services.api.ports[0]: invalid port '80/http': the protocol must be tcp, udp or sctp" },
                { "name: x\nservices:\n  api:\n    ports: ['1.2.3:80:80']\n", 4, 13,
                  "services.api.ports[0]: invalid port '1.2.3:80:80': the host address is not an IP "
                  "address" },
                { "name: x\nservices:\n  api:\n    ports: ['0']\n", 4, 13,
                  "services.api.ports[0]: invalid port '0': port numbers go from 1 to 65535" },
                { "name: x\nservices:\n  api:\n    ports: ['1:2:3:4']\n", 4, 13,
                  "services.api.ports[0]: invalid port '1:2:3:4'" },
                { "name: x\nservices:\n  api:\n    ports: [[80]]\n", 4, 13,
                  "services.api.ports[0]: expected a port or a mapping, not a list" },
                { "name: x\nservices:\n  api:\n    ports:\n      - published: 80\n", 5, 9,
                  "services.api.ports[0]: missing 'target', the container port" },
                { "name: x\nservices:\n  api:\n    ports:\n      - target: 80\n        protocol: http\n", 6,
                  19, "services.api.ports[0].protocol: protocol must be tcp, udp or sctp, not 'http'" },
                { "name: x\nservices:\n  api:\n    ports:\n      - target: 80\n        host_ip: localhost\n",
                  6, 18, "services.api.ports[0].host_ip: 'localhost' is not an IP address" },
                { "name: x\nservices:\n  api:\n    ports:\n      - {target: 80, published: 8x}\n", 5, 33,
                  "services.api.ports[0].published: invalid published port '8x'" },
                { "name: x\nservices:\n  api:\n    ports: 80\n", 4, 12,
                  "services.api.ports: expected a list, not a scalar" },
                { "name: x\nservices:\n  api:\n    depends_on: [dbb]\n  db: {}\n", 4, 18,
                  "services.api.depends_on[0]: unknown service 'dbb'; did you mean 'db'?" },
                { "name: x\nservices:\n  api:\n    depends_on:\n      redis: {condition: service_started}\n",
                  5, 7, "services.api.depends_on.redis: unknown service 'redis'" },
                { "name: x\nservices:\n  api:\n    depends_on:\n      db: {condition: healthy}\n  db: {}\n",
                  5, 23,
                  "services.api.depends_on.db.condition: expected service_started, service_healthy or "
                  "service_completed_successfully, not 'healthy'" },
                { "name: x\nservices:\n  api:\n    depends_on: [db, db]\n  db: {}\n", 4, 22,
                  "services.api.depends_on[1]: 'db' is listed twice" },
                { "name: x\nservices:\n  api:\n    depends_on: db\n", 4, 17,
                  "services.api.depends_on: expected a list or a mapping, not a scalar" },
                { "name: x\nservices:\n"
                  "  a: {depends_on: [b]}\n  b: {depends_on: [c]}\n  c: {depends_on: [a]}\n",
                  3, 19, "services.a.depends_on: dependency cycle: a -> b -> c -> a" },
                { "name: x\nservices:\n  a: {depends_on: [a]}\n", 3, 19,
                  "services.a.depends_on: dependency cycle: a -> a" },
                { "name: x\nservices:\n  api:\n    networks: [back]\nnetworks:\n  bak:\n", 4, 16,
                  "services.api.networks[0]: undefined network 'back'; did you mean 'bak'?" },
                { "name: x\nservices:\n  api:\n    networks: {front: [x]}\nnetworks: {front: ~}\n", 4, 23,
                  "services.api.networks.front: expected a mapping, not a list" },
                { "name: x\nservices:\n  api:\n    network_mode: host\n    networks: [default]\n", 5, 15,
                  "services.api.networks: cannot be combined with network_mode" },
                { "name: x\nservices: {a: {}}\nnetworks: [a]\n", 3, 11,
                  "networks: expected a mapping, not a list" },
                { "name: x\nservices:\n  api:\n    cap_add: NET_ADMIN\n", 4, 14,
                  "services.api.cap_add: expected a list, not a scalar" },
                { "name: x\nservices:\n  api:\n    cap_add: [NET_ADMIN, 'SYS TIME']\n", 4, 26,
                  "services.api.cap_add[1]: invalid capability 'SYS TIME'" },
                { "name: x\nservices:\n  api:\n    healthcheck:\n      interval: 10x\n", 5, 17,
                  "services.api.healthcheck.interval: invalid duration '10x' (use e.g. 500ms, 30s, 1m30s)" },
                { "name: x\nservices:\n  api:\n    healthcheck:\n      retries: many\n", 5, 16,
                  "services.api.healthcheck.retries: expected a whole number from 0 to 2147483647, not "
                  "'many'" },
                { "name: x\nservices:\n  api:\n    healthcheck:\n      disable: maybe\n", 5, 16,
                  "services.api.healthcheck.disable: expected true or false, not 'maybe'" },
                { "name: x\nservices:\n  api:\n    healthcheck:\n      test: [RUN, x]\n", 5, 14,
                  "services.api.healthcheck.test[0]: expected NONE, CMD or CMD-SHELL, not 'RUN'" },
                { "name: x\nservices:\n  api:\n    healthcheck: true\n", 4, 18,
                  "services.api.healthcheck: expected a mapping, not a scalar" },
                { "name: x\nservices:\n  api:\n    deploy:\n      replicas: 1001\n", 5, 17,
                  "services.api.deploy.replicas: expected a whole number from 0 to 1000, not '1001'" },
                { "name: x\nservices:\n  api:\n    deploy: 3\n", 4, 13,
                  "services.api.deploy: expected a mapping, not a scalar" },
                { "name: x\nservices:\n  api:\n    scale: -1\n", 4, 12,
                  "services.api.scale: expected a whole number from 0 to 1000, not '-1'" },
                { "name: x\nservices:\n  api:\n    deploy: {replicas: 2}\n    scale: 3\n", 5, 12,
                  "services.api.scale: 3 differs from deploy.replicas: 2" },
                { "name: x\nservices:\n  api:\n    container_name: api\n    scale: 3\n", 4, 21,
                  "services.api.container_name: 'api' names one container, but the service has 3 replicas" },
                { "name: x\nservices:\n  api:\n    container_name: /api\n", 4, 21,
                  "services.api.container_name: invalid container name '/api' (docker takes "
                  "[a-zA-Z0-9][a-zA-Z0-9_.-]+)" },
                { "name: x\nservices:\n  api: {}\n  db:\n    container_name: x-api-1\n", 5, 21,
                  "services.db.container_name: container name 'x-api-1' is used by service 'api' and by "
                  "service 'db'" },
                { "name: x\nservices:\n  a: {container_name: same}\n  b: {container_name: same}\n", 4, 23,
                  "services.b.container_name: container name 'same' is used by service 'a' and by service "
                  "'b'" },
                { "name: x\nservices:\n  api:\n    image: [nginx]\n", 4, 12,
                  "services.api.image: expected a string, not a list" },
                { "name: [x]\nservices: {}\n", 1, 7, "name: expected a string, not a list" },
                { "name: x\nservices:\n  api: {image: a\n", 4, 1,
                  "YAML syntax error: did not find expected ',' or '}' while parsing a flow mapping" },
                { "name: x\nservices:\n  api: {}\n  api: {}\n", 4, 3, "duplicate key 'api'" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                expect_error(cases[i].yaml, cases[i].line, cases[i].col, cases[i].msg);
}

static void test_oversized_input(void **state) {
        struct topology *t = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(compose_parse("big.yaml", "", (size_t)COMPOSE_FILE_MAX + 1, &t, &e), -EFBIG);
        assert_null(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_field),
                cmocka_unit_test(test_ports_short_forms),
                cmocka_unit_test(test_ports_long_form),
                cmocka_unit_test(test_ports_limit),
                cmocka_unit_test(test_networks_and_mode),
                cmocka_unit_test(test_depends_on_forms),
                cmocka_unit_test(test_healthcheck_forms),
                cmocka_unit_test(test_interpolation),
                cmocka_unit_test(test_interpolation_errors),
                cmocka_unit_test(test_interpolation_length_limit),
                cmocka_unit_test(test_container_naming),
                cmocka_unit_test(test_project_name),
                cmocka_unit_test(test_load_from_directory),
                cmocka_unit_test(test_find_default),
                cmocka_unit_test(test_profiles),
                cmocka_unit_test(test_dotenv_files),
                cmocka_unit_test(test_dotenv_parser),
                cmocka_unit_test(test_unknown_keys_warn),
                cmocka_unit_test(test_resolve),
                cmocka_unit_test(test_resolve_many),
                cmocka_unit_test(test_dependents),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_thousand_services),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_oversized_input),
        };
        return cmocka_run_group_tests(tests, group_setup, NULL);
}
