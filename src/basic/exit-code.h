#pragma once

/* Process exit codes, identical to the reference's cli/exit_codes.py so that
 * scripts written against it keep working. */
enum mh_exit {
        MH_EXIT_SUCCESS = 0,
        MH_EXIT_GENERAL_FAILURE = 1,
        MH_EXIT_USAGE_ERROR = 2,
        MH_EXIT_CONFIG_ERROR = 3,
        MH_EXIT_VALIDATION_ERROR = 4,
        MH_EXIT_SAFETY_REFUSAL = 5,
        MH_EXIT_EXPERIMENT_FAILURE = 6,
        MH_EXIT_RECOVERY_FAILURE = 7,
        MH_EXIT_AGENT_ERROR = 8,
        MH_EXIT_TOOLKIT_ERROR = 9,
        MH_EXIT_AMBIGUOUS_COMMAND = 10,
        _MH_EXIT_MAX,
};

const char *mh_exit_to_string(enum mh_exit e);
int mh_exit_from_string(const char *s);
