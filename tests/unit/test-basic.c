#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "basic/sha256.h"

static void test_sha256_empty(void **state) {
        char hex[SHA256_HEX_SIZE];
        sha256_hex("", 0, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sha256_empty),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
