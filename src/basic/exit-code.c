#include "exit-code.h"
#include "string-table.h"

static const char *const mh_exit_table[_MH_EXIT_MAX] = {
        [MH_EXIT_SUCCESS] = "success",
        [MH_EXIT_GENERAL_FAILURE] = "general_failure",
        [MH_EXIT_USAGE_ERROR] = "usage_error",
        [MH_EXIT_CONFIG_ERROR] = "config_error",
        [MH_EXIT_VALIDATION_ERROR] = "validation_error",
        [MH_EXIT_SAFETY_REFUSAL] = "safety_refusal",
        [MH_EXIT_EXPERIMENT_FAILURE] = "experiment_failure",
        [MH_EXIT_RECOVERY_FAILURE] = "recovery_failure",
        [MH_EXIT_AGENT_ERROR] = "agent_error",
        [MH_EXIT_TOOLKIT_ERROR] = "toolkit_error",
        [MH_EXIT_AMBIGUOUS_COMMAND] = "ambiguous_command",
};

DEFINE_STRING_TABLE_LOOKUP(mh_exit, enum mh_exit)
