#include "completion.h"

#include <string.h>

static const char *const shell_names[_COMPLETION_SHELL_MAX] = {
        [COMPLETION_BASH] = "bash",
        [COMPLETION_ZSH] = "zsh",
        [COMPLETION_FISH] = "fish",
};

const char *completion_shell_to_string(enum completion_shell s) {
        return s < _COMPLETION_SHELL_MAX ? shell_names[s] : NULL;
}

int completion_shell_from_string(const char *s) {
        for (size_t i = 0; i < _COMPLETION_SHELL_MAX; i++)
                if (strcmp(s, shell_names[i]) == 0)
                        return (int)i;
        return -EINVAL;
}

/* What one table function prints for one command path. */
enum completion_list {
        LIST_SUBCOMMANDS,
        LIST_OPTIONS,
        LIST_VALUE_OPTIONS, /* the options that take a value: the next word is theirs */
};

static void write_words(FILE *out, const struct cli_command *cmd, enum completion_list what) {
        const char *sep = "";
        if (what == LIST_SUBCOMMANDS) {
                for (size_t i = 0; cmd->subcommands && cmd->subcommands[i]; i++, sep = " ")
                        fprintf(out, "%s%s", sep, cmd->subcommands[i]->name);
                return;
        }
        for (const struct cli_opt *o = cmd->opts; o && o->name; o++) {
                if (what == LIST_VALUE_OPTIONS && !o->arg)
                        continue;
                fprintf(out, "%s--%s", sep, o->name);
                sep = " ";
                if (o->short_name)
                        fprintf(out, " -%c", o->short_name);
        }
}

/* One case arm per command below (and including) cmd: its path, then the words. */
static void write_arms(
        FILE *out, const struct cli_command *cmd, const char *path, enum completion_list what,
        enum completion_shell shell) {
        if (shell == COMPLETION_FISH)
                fprintf(out, "        case '%s'\n            echo '", path);
        else
                fprintf(out, "        '%s') echo '", path);
        write_words(out, cmd, what);
        fprintf(out, shell == COMPLETION_FISH ? "'\n" : "' ;;\n");
        for (size_t i = 0; cmd->subcommands && cmd->subcommands[i]; i++) {
                char sub[256];
                snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? " " : "", cmd->subcommands[i]->name);
                write_arms(out, cmd->subcommands[i], sub, what, shell);
        }
}

static const char *const list_functions[] = {
        [LIST_SUBCOMMANDS] = "_mayhem_subcommands",
        [LIST_OPTIONS] = "_mayhem_options",
        [LIST_VALUE_OPTIONS] = "_mayhem_value_options",
};

static void write_tables(FILE *out, const struct cli_command *root, enum completion_shell shell) {
        for (size_t w = 0; w < ELEMENTSOF(list_functions); w++) {
                if (shell == COMPLETION_FISH) {
                        fprintf(out, "function %s\n    switch \"$argv[1]\"\n", list_functions[w]);
                        write_arms(out, root, "", w, shell);
                        fprintf(out, "    end\nend\n\n");
                } else {
                        fprintf(out, "%s() {\n    case \"$1\" in\n", list_functions[w]);
                        write_arms(out, root, "", w, shell);
                        fprintf(out, "    esac\n}\n\n");
                }
        }
}

/* The walk over the words typed so far, the same in bash and zsh: options
 * and their values are stepped over, a command word descends. */
static const char bash_body[] =
        "_mayhem() {\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' i w\n"
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "        w=${COMP_WORDS[i]}\n"
        "        if [[ $w == -* ]]; then\n"
        "            [[ \" $(_mayhem_value_options \"$cmdpath\") \" == *\" $w \"* ]] && ((i++))\n"
        "        elif [[ \" $(_mayhem_subcommands \"$cmdpath\") \" == *\" $w \"* ]]; then\n"
        "            cmdpath=${cmdpath:+$cmdpath }$w\n"
        "        fi\n"
        "    done\n"
        "    local prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "    if ((COMP_CWORD > 1)) && [[ \" $(_mayhem_value_options \"$cmdpath\") \" == *\" $prev \"* ]]; "
        "then\n"
        "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "    elif [[ $cur == -* ]]; then\n"
        "        COMPREPLY=($(compgen -W \"$(_mayhem_options \"$cmdpath\")\" -- \"$cur\"))\n"
        "    elif [[ -n $(_mayhem_subcommands \"$cmdpath\") ]]; then\n"
        "        COMPREPLY=($(compgen -W \"$(_mayhem_subcommands \"$cmdpath\")\" -- \"$cur\"))\n"
        "    else\n"
        "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "    fi\n"
        "}\n"
        "complete -F _mayhem mayhem\n";

static const char zsh_body[] =
        "_mayhem() {\n"
        "    local cmdpath='' i w prev cur=${words[CURRENT]}\n"
        "    for ((i = 2; i < CURRENT; i++)); do\n"
        "        w=${words[i]}\n"
        "        if [[ $w == -* ]]; then\n"
        "            [[ \" $(_mayhem_value_options \"$cmdpath\") \" == *\" $w \"* ]] && ((i++))\n"
        "        elif [[ \" $(_mayhem_subcommands \"$cmdpath\") \" == *\" $w \"* ]]; then\n"
        "            cmdpath=${cmdpath:+$cmdpath }$w\n"
        "        fi\n"
        "    done\n"
        "    prev=${words[CURRENT-1]}\n"
        "    if ((CURRENT > 2)) && [[ \" $(_mayhem_value_options \"$cmdpath\") \" == *\" $prev \"* ]]; "
        "then\n"
        "        _files\n"
        "    elif [[ $cur == -* ]]; then\n"
        "        compadd -- ${=$(_mayhem_options \"$cmdpath\")}\n"
        "    elif [[ -n $(_mayhem_subcommands \"$cmdpath\") ]]; then\n"
        "        compadd -- ${=$(_mayhem_subcommands \"$cmdpath\")}\n"
        "    else\n"
        "        _files\n"
        "    fi\n"
        "}\n"
        "if [[ $funcstack[1] == _mayhem ]]; then\n"
        "    _mayhem \"$@\"\n"
        "else\n"
        "    compdef _mayhem mayhem\n"
        "fi\n";

static const char fish_body[] =
        "function _mayhem_complete\n"
        "    set -l words (commandline -opc)\n"
        "    set -l cur (commandline -ct)\n"
        "    set -l cmdpath ''\n"
        "    set -l skip 0\n"
        "    for w in $words[2..-1]\n"
        "        if test $skip = 1\n"
        "            set skip 0\n"
        "        else if string match -q -- '-*' $w\n"
        "            contains -- $w (string split -- ' ' (_mayhem_value_options $cmdpath)); and set skip 1\n"
        "        else if contains -- $w (string split -- ' ' (_mayhem_subcommands $cmdpath))\n"
        "            set cmdpath (string trim \"$cmdpath $w\")\n"
        "        end\n"
        "    end\n"
        "    if test $skip = 1\n"
        "        __fish_complete_path $cur\n"
        "    else if string match -q -- '-*' $cur\n"
        "        string split -- ' ' (_mayhem_options $cmdpath)\n"
        "    else if test -n \"$(_mayhem_subcommands $cmdpath)\"\n"
        "        string split -- ' ' (_mayhem_subcommands $cmdpath)\n"
        "    else\n"
        "        __fish_complete_path $cur\n"
        "    end\n"
        "end\n"
        "complete -c mayhem -f -a '(_mayhem_complete)'\n";

void completion_write(FILE *out, const struct cli_command *root, enum completion_shell shell) {
        if (shell == COMPLETION_ZSH)
                fprintf(out, "#compdef mayhem\n");
        fprintf(out,
                "# %s completion for mayhem, generated by `mayhem completion %s` from its command "
                "table.\n\n",
                completion_shell_to_string(shell), completion_shell_to_string(shell));
        write_tables(out, root, shell);
        fputs(shell == COMPLETION_BASH ? bash_body : shell == COMPLETION_ZSH ? zsh_body : fish_body, out);
}
