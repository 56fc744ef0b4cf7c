#pragma once

/* `mayhem doctor --fidelity` (doctor-fidelity.c): rows of {fault, requested,
 * achieved, tolerance, delivery, within, run_exit, hold_s}; ret_where names
 * the throwaway container. Everything it created is removed before it
 * returns, on failure too. */

#include <jansson.h>
#include <stddef.h>

#include "basic/error.h"
#include "engine/engine.h"

int doctor_fidelity(
        enum engine_kind kind, json_t **ret_rows, char *ret_where, size_t where_size,
        struct mh_error *reterr);
