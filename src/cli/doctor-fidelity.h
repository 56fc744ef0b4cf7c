#pragma once

/* `mayhem doctor --fidelity` (doctor-fidelity.c): rows of {fault, requested,
 * achieved, tolerance, delivery, measured, within, run_exit, hold_s}, each
 * also handed to on_row (when not NULL) as soon as it is measured, with
 * where, the throwaway container's name, image, engine and address, which
 * ret_where also gets. Everything it created is removed before it returns,
 * on failure too. */

#include <jansson.h>
#include <stddef.h>

#include "basic/error.h"
#include "engine/engine.h"

typedef void doctor_fidelity_row_fn(const char *where, const json_t *row, void *userdata);

int doctor_fidelity(
        enum engine_kind kind, doctor_fidelity_row_fn *on_row, void *userdata, json_t **ret_rows,
        char *ret_where, size_t where_size, struct mh_error *reterr);
