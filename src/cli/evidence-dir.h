#pragma once

/* --evidence-dir DIR: a run's evidence envelope (what `mayhem inspect
 * history RUN_ID --json` prints), or a plan's, written to DIR/<id>.json
 * (DIR created when missing; the file written whole, then renamed into
 * place, so a reader never sees half of one). */

#include <jansson.h>
#include <stddef.h>

#include "basic/error.h"

/* doc is not stolen. ret_path (size bytes) gets the file's path. Exit 3
 * when DIR or the file cannot be written. */
int evidence_dir_write(
        const char *dir, const char *id, const json_t *doc, char *ret_path, size_t size,
        struct mh_error *reterr);
