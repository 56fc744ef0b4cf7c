#pragma once

/* For tests only: evidence_open() with a different list of migrations, so a
 * test can make a database "from the future" (one migration more than this
 * build knows) through the real open path. migrations[i] is a NULL-terminated
 * list of statements bringing the schema to version i + 1. */

#include <stddef.h>

#include "evidence/evidence.h"

int evidence_open_migrations(
        const char *path, const char *const *const *migrations, size_t n_migrations, struct evidence **ret,
        struct mh_error *reterr);

/* This build's migrations, for building such a list. */
extern const char *const *const evidence_migrations[];
extern const size_t evidence_n_migrations;
