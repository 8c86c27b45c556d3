/* SPDX-License-Identifier: MIT */
/* The model of what git reads and runs (gitmodel.h), from git 2.39's
 * setup.c (validate_headref, is_git_directory), config.c
 * (git_parse_source, git_config_include), sequencer.c (parse_insn_line)
 * and hook.c. docs/threat-model.md cites each rule. */
#include "gitmodel.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

const git_entry GIT_ENTRIES[] = {
        {"config", false, true, GIT_RULE_CONFIG, NULL},
        {"config.worktree", false, true, GIT_RULE_CONFIG, NULL},
        {"hooks", true, true, GIT_RULE_HOOKS, NULL},
        /* git dies on an empty commondir; "." is the repository itself */
        {"commondir", false, true, GIT_RULE_POINTER, ".\n"},
        {"info", true, true, GIT_RULE_DATA, NULL},
        {"rebase-merge", true, false, GIT_RULE_TODO, NULL},
        {"sequencer", true, false, GIT_RULE_TODO, NULL},
};
const size_t GIT_N_ENTRIES = ARRAY_SIZE(GIT_ENTRIES);
const char *const GIT_NESTED[] = {"modules", "worktrees", NULL};

/* git's own ctype (git-compat-util.h): ASCII only, whatever the locale */
static bool a_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool a_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool a_alnum(int c) { return a_alpha(c) || (c >= '0' && c <= '9'); }
static int a_lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool git_head_valid(const char *text, size_t len, bool link)
{
        if (link)
                return len >= 5 && memcmp(text, "refs/", 5) == 0;
        if (len >= 4 && memcmp(text, "ref:", 4) == 0) {
                size_t i = 4;
                while (i < len && a_space((unsigned char)text[i]))
                        i++;
                return len - i >= 5 && memcmp(text + i, "refs/", 5) == 0;
        }
        /* get_oid_hex reads the first 40 digits and looks no further: a
         * reflog line passes (logs/HEAD), as it does for git */
        size_t n = 0;
        while (n < len && n < 40 && is_hex(text[n]))
                n++;
        return n == 40;
}

/* ---- the config parser --------------------------------------------------------------- */

typedef struct cfg_reader {
        const char *p, *end;
        buf key;   /* the section part, then the whole key */
        buf value;
        size_t base; /* length of the section part with its '.' */
} cfg_reader;

#define CFG_EOF (-1)

/* The next character, a CRLF read as LF; CFG_EOF at the end. */
static int cfg_next(cfg_reader *r)
{
        if (r->p >= r->end)
                return CFG_EOF;
        int c = (unsigned char)*r->p++;
        if (c == '\r' && r->p < r->end && *r->p == '\n')
                c = (unsigned char)*r->p++;
        return c;
}

static bool key_char(int c) { return c != CFG_EOF && (a_alnum(c) || c == '-'); }

/* A '"subsection"]' after the blanks that follow the section's name. */
static int cfg_subsection(cfg_reader *r, int c)
{
        while (c != '\n' && c != CFG_EOF && a_space(c))
                c = cfg_next(r);
        if (c != '"')
                return -EINVAL;
        buf_put(&r->key, ".", 1);
        for (;;) {
                c = cfg_next(r);
                if (c == '\n' || c == CFG_EOF)
                        return -EINVAL;
                if (c == '"')
                        break;
                if (c == '\\' && ((c = cfg_next(r)) == '\n' || c == CFG_EOF))
                        return -EINVAL;
                char ch = (char)c;
                buf_put(&r->key, &ch, 1);
        }
        return cfg_next(r) == ']' ? 0 : -EINVAL;
}

/* "[section]", "[section.sub]" or '[section "sub"]', after the '['. */
static int cfg_section(cfg_reader *r)
{
        r->key.len = 0;
        for (;;) {
                int c = cfg_next(r);
                if (c == CFG_EOF)
                        return -EINVAL;
                if (c == ']')
                        break;
                if (a_space(c)) {
                        int e = cfg_subsection(r, c);
                        if (e < 0)
                                return e;
                        break;
                }
                if (!key_char(c) && c != '.')
                        return -EINVAL;
                char ch = (char)a_lower(c);
                buf_put(&r->key, &ch, 1);
        }
        if (r->key.len == 0)
                return -EINVAL;
        buf_put(&r->key, ".", 1);
        r->base = r->key.len;
        return 0;
}

/* The value after '=': blanks around it dropped, quotes, escapes,
 * comments; false where git refuses it. */
static bool cfg_value(cfg_reader *r)
{
        bool quote = false, comment = false;
        size_t spaces = 0;
        r->value.len = 0;
        for (;;) {
                int c = cfg_next(r);
                if (c == '\n' || c == CFG_EOF)
                        return !quote;
                if (comment)
                        continue;
                if (a_space(c) && !quote) {
                        spaces += r->value.len > 0;
                        continue;
                }
                if (!quote && (c == ';' || c == '#')) {
                        comment = true;
                        continue;
                }
                for (; spaces; spaces--)
                        buf_put(&r->value, " ", 1);
                if (c == '\\') {
                        c = cfg_next(r);
                        if (c == '\n' || c == CFG_EOF) /* git reads the end as a newline */
                                continue;
                        c = c == 't' ? '\t' : c == 'b' ? '\b' : c == 'n' ? '\n' : c == '\\' || c == '"' ? c : -1;
                        if (c < 0)
                                return false;
                } else if (c == '"') {
                        quote = !quote;
                        continue;
                }
                char ch = (char)c;
                buf_put(&r->value, &ch, 1);
        }
}

/* A variable whose name starts with |c|; 0, 1 (stopped) or -errno. */
static int cfg_variable(cfg_reader *r, int c, git_config_fn fn, void *userdata)
{
        r->key.len = r->base;
        do {
                char ch = (char)a_lower(c);
                buf_put(&r->key, &ch, 1);
                c = cfg_next(r);
        } while (key_char(c));
        while (c == ' ' || c == '\t')
                c = cfg_next(r);
        bool has_value = c != '\n' && c != CFG_EOF;
        if (has_value && (c != '=' || !cfg_value(r)))
                return -EINVAL;
        buf_put(&r->key, "", 1);
        buf_put(&r->value, "", 1);
        if (r->key.oom || r->value.oom)
                return -ENOMEM;
        r->key.len--;
        r->value.len--;
        return fn(r->key.data, has_value ? r->value.data : NULL, userdata) ? 0 : 1;
}

int git_config_parse(const char *data, size_t len, git_config_fn fn, void *userdata)
{
        cfg_reader r = {.p = data, .end = data + len};
        if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
                r.p += 3;
        int e = 0;
        bool comment = false;
        for (int c; e == 0 && (c = cfg_next(&r)) != CFG_EOF;) {
                if (c == '\n')
                        comment = false;
                else if (comment || a_space(c))
                        continue;
                else if (c == '#' || c == ';')
                        comment = true;
                else if (c == '[')
                        e = cfg_section(&r);
                else if (a_alpha(c))
                        e = cfg_variable(&r, c, fn, userdata);
                else
                        e = -EINVAL;
        }
        free(r.key.data);
        free(r.value.data);
        return r.key.oom || r.value.oom ? -ENOMEM : e;
}

/* ---- keys ---------------------------------------------------------------------------- */

/* The parts of |key|: section, subsection (may be empty and contain '.'),
 * name. */
typedef struct key_parts {
        const char *section, *sub, *name;
        size_t section_len, sub_len;
} key_parts;

static key_parts split_key(const char *key)
{
        key_parts k = {.section = key, .name = strrchr(key, '.')};
        const char *dot = strchr(key, '.');
        k.name = k.name ? k.name + 1 : key;
        k.section_len = dot ? (size_t)(dot - key) : 0;
        k.sub = dot ? dot + 1 : key;
        k.sub_len = dot && k.name > dot + 1 ? (size_t)(k.name - 1 - (dot + 1)) : 0;
        return k;
}

static bool section_is(const key_parts *k, const char *s)
{
        return strlen(s) == k->section_len && strncmp(k->section, s, k->section_len) == 0;
}

/* Names of variables that hold a command, in any section: git's
 * (diff.X.command, merge.X.driver, filter.X.clean, difftool.X.cmd, ...)
 * and the same words of tools that read git's config. */
static const char *const PROGRAM_NAMES[] = {
        "command", "cmd", "driver", "textconv", "clean", "smudge", "process", "program", "helper",
        "editor", "pager", "sshcommand", "askpass", "gitproxy", "fsmonitor", "uploadpack", "receivepack",
        "packobjectshook", "alternaterefscommand", "defaultkeycommand", "difffilter", "external", "browser",
        "smtpserver", "tocmd", "cccmd", "headercmd", "sendmailcmd",
};
/* Sections whose X.path is a program (difftool.X.path, ...). */
static const char *const PROGRAM_PATH_SECTIONS[] = {"difftool", "mergetool", "man", "browser", "guitool"};

git_key_kind git_key_classify(const char *key, const char *value)
{
        key_parts k = split_key(key);
        if (streq(key, "include.path") || (section_is(&k, "includeif") && k.sub_len && streq(k.name, "path")))
                return GIT_KEY_INCLUDE;
        if (streq(key, "core.hookspath"))
                return GIT_KEY_HOOKS;
        if (streq(key, "core.attributesfile"))
                return GIT_KEY_FILE;
        if (section_is(&k, "alias") || section_is(&k, "pager"))
                return GIT_KEY_PROGRAM; /* "!cmd" runs a shell; pager.X a pager */
        if (streq(key, "submodule.update") || (section_is(&k, "submodule") && streq(k.name, "update")))
                return value && value[0] == '!' ? GIT_KEY_PROGRAM : GIT_KEY_DATA;
        for (size_t i = 0; i < ARRAY_SIZE(PROGRAM_NAMES); i++)
                if (streq(k.name, PROGRAM_NAMES[i]))
                        return GIT_KEY_PROGRAM;
        for (size_t i = 0; k.sub_len && streq(k.name, "path") && i < ARRAY_SIZE(PROGRAM_PATH_SECTIONS); i++)
                if (section_is(&k, PROGRAM_PATH_SECTIONS[i]))
                        return GIT_KEY_PROGRAM;
        return GIT_KEY_DATA;
}

/* "true", "1", ...: core.fsmonitor's builtin daemon, not a program. */
static bool is_bool_word(const char *v)
{
        static const char *const W[] = {"true", "false", "yes", "no", "on", "off", "1", "0", ""};
        for (size_t i = 0; i < ARRAY_SIZE(W); i++)
                if (strcasecmp(v, W[i]) == 0)
                        return true;
        return false;
}

char *git_program_path(const char *key, const char *value)
{
        if (!value || (streq(key, "core.fsmonitor") && is_bool_word(value)))
                return NULL;
        const char *v = value;
        while (*v == '!' || a_space((unsigned char)*v))
                v++;
        /* the first word as sh would read it, its quotes dropped */
        buf w = {0};
        char quote = 0;
        for (; *v && (quote || !a_space((unsigned char)*v)); v++) {
                if (!quote && (*v == '"' || *v == '\'')) {
                        quote = *v;
                        continue;
                }
                if (quote && *v == quote) {
                        quote = 0;
                        continue;
                }
                if (!quote && strchr(";|&<>()`$", *v))
                        break;
                buf_put(&w, v, 1);
        }
        char *word = buf_steal(&w);
        if (word && (strchr(word, '/') || strncmp(word, "~/", 2) == 0))
                return word;
        free(word);
        return NULL;
}

/* ---- benign configs ------------------------------------------------------------------- */

/* What git init, clone, remote add, config user.*, worktree add and
 * submodule init write, and settings that run nothing: "section.name"
 * or "section.*.name" (any subsection). Everything else is not benign. */
static const char *const BENIGN_KEYS[] = {
        "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
        "core.symlinks", "core.ignorecase", "core.precomposeunicode", "core.autocrlf", "core.eol",
        "core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
        "core.abbrev", "core.compression", "core.loosecompression", "core.bigfilethreshold",
        "core.untrackedcache", "core.splitindex", "core.commitgraph", "core.multipackindex",
        "core.checkstat", "core.trustctime", "core.preloadindex", "core.warnambiguousrefs",
        /* not core.worktree: a link on its way (checked by no lexical
         * rule) would point the host's checkout at any directory */
        "extensions.objectformat", "extensions.worktreeconfig",
        "extensions.preciousobjects", "extensions.noop", "extensions.partialclone",
        "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.mirror",
        "remote.*.tagopt", "remote.*.prune", "remote.*.prunetags", "remote.*.skipdefaultupdate",
        "remote.*.skipfetchall", "remote.*.promisor", "remote.*.partialclonefilter",
        "branch.*.remote", "branch.*.pushremote", "branch.*.merge", "branch.*.rebase",
        "branch.*.description", "submodule.*.url", "submodule.*.active", "submodule.*.branch",
        "submodule.*.fetchrecursesubmodules", "submodule.*.ignore", "submodule.active",
        "user.name", "user.email", "user.signingkey", "author.name", "author.email",
        "committer.name", "committer.email", "init.defaultbranch", "pull.rebase", "pull.ff",
        "push.default", "push.autosetupremote", "fetch.prune", "fetch.prunetags", "merge.ff",
        "rebase.autosquash", "rebase.autostash", "gc.auto", "gc.autodetach", "gc.autopacklimit",
        "lfs.repositoryformatversion", "advice.*", "color.*",
};

static bool key_matches(const key_parts *k, const char *key, const char *pattern)
{
        size_t n = strlen(pattern);
        const char *star = strstr(pattern, ".*.");
        if (star) {
                size_t sec = (size_t)(star - pattern);
                return k->sub_len > 0 && k->section_len == sec && strncmp(key, pattern, sec) == 0 &&
                       streq(k->name, star + 3);
        }
        if (n >= 2 && streq(pattern + n - 2, ".*")) /* the whole section */
                return k->section_len == n - 2 && strncmp(key, pattern, n - 2) == 0;
        return streq(key, pattern);
}

/* A URL git reaches without a transport helper ("helper::address",
 * which runs git-remote-helper) nor an option ("-o..."). */
static bool plain_url(const char *v)
{
        if (!v || v[0] == '-')
                return false;
        const char *rest = v[0] == '[' ? strchr(v, ']') : v; /* [::1]:repo */
        return rest && !strstr(rest, "::") && strncmp(v, "ext:", 4) != 0;
}

static bool benign_key(const char *key, const char *value, void *userdata)
{
        bool *benign = userdata;
        key_parts k = split_key(key);
        bool listed = false;
        for (size_t i = 0; !listed && i < ARRAY_SIZE(BENIGN_KEYS); i++)
                listed = key_matches(&k, key, BENIGN_KEYS[i]);
        if (listed && (streq(k.name, "url") || streq(k.name, "pushurl")))
                listed = plain_url(value);
        *benign = listed;
        return listed;
}

bool git_config_benign(const char *data, size_t len)
{
        bool benign = true;
        return git_config_parse(data, len, benign_key, &benign) == 0 && benign;
}

/* ---- the sequencer ------------------------------------------------------------------------ */

/* A todo line's command word |w| (|n| bytes) runs a program: exec, or its
 * abbreviation x. */
static bool runs_program(const char *w, size_t n)
{
        return (n == 4 && memcmp(w, "exec", 4) == 0) || (n == 1 && w[0] == 'x');
}

bool git_todo_runs_program(const char *data, size_t len)
{
        for (size_t i = 0; i < len;) {
                size_t eol = i;
                while (eol < len && data[eol] != '\n')
                        eol++;
                size_t b = i;
                while (b < eol && (data[b] == ' ' || data[b] == '\t'))
                        b++;
                size_t w = b;
                while (w < eol && data[w] != ' ' && data[w] != '\t' && data[w] != '\r')
                        w++;
                /* git matches "exec" as a prefix ("execX" is an error
                 * there): any word that starts so counts, and a NUL */
                if (runs_program(data + b, w - b) || (w - b >= 4 && memcmp(data + b, "exec", 4) == 0) ||
                    memchr(data + i, '\0', eol - i))
                        return true;
                i = eol + 1;
        }
        return false;
}

bool git_strategy_builtin(const char *name)
{
        static const char *const S[] = {"ort", "recursive", "resolve", "octopus", "ours", "subtree"};
        for (size_t i = 0; name && i < ARRAY_SIZE(S); i++)
                if (streq(name, S[i]))
                        return true;
        return false;
}

/* ---- hooks ------------------------------------------------------------------------------------ */

bool git_hook_inert(const char *name, bool regular)
{
        size_t n = strlen(name);
        return regular && n > 7 && streq(name + n - 7, ".sample");
}

/* ---- the paths a config names ------------------------------------------------------------ */

char *git_expand_path(const char *value, const char *base, const char *home)
{
        _cleanup_free_ char *joined = NULL;
        if (strncmp(value, "~/", 2) == 0)
                joined = home ? path_join(home, value + 2) : NULL;
        else if (value[0] == '/')
                joined = strdup(value);
        else if (value[0] != '~' && strncmp(value, "%(prefix)/", 10) != 0 && base && base[0] == '/')
                joined = path_join(base, value);
        if (!joined)
                return NULL;
        /* lexically: "a/../b" is "b" (whoever opens it walks each part) */
        buf out = {0};
        for (const char *c = joined; *c;) {
                while (*c == '/')
                        c++;
                size_t n = strcspn(c, "/");
                if (n == 2 && c[0] == '.' && c[1] == '.') {
                        while (out.len && out.data[--out.len] != '/')
                                ;
                        if (out.data)
                                out.data[out.len] = '\0';
                } else if (n && !(n == 1 && c[0] == '.')) {
                        buf_put(&out, "/", 1);
                        buf_put(&out, c, n);
                }
                c += n;
        }
        if (out.len == 0)
                buf_put(&out, "/", 1);
        return buf_steal(&out);
}

typedef struct paths_ctx {
        const git_config_origin *o;
        git_path_fn fn;
        void *userdata;
} paths_ctx;

static void emit(const paths_ctx *c, git_key_kind kind, const char *value, const char *base)
{
        char *p = git_expand_path(value, base, c->o->home);
        if (p)
                c->fn(kind, p, c->userdata);
        free(p);
}

static bool path_key(const char *key, const char *value, void *userdata)
{
        const paths_ctx *c = userdata;
        git_key_kind kind = git_key_classify(key, value);
        if (kind == GIT_KEY_DATA || !value)
                return true;
        if (kind == GIT_KEY_INCLUDE) {
                emit(c, kind, value, c->o->file_dir);
                return true;
        }
        _cleanup_free_ char *program = kind == GIT_KEY_PROGRAM ? git_program_path(key, value) : NULL;
        const char *v = kind == GIT_KEY_PROGRAM ? program : value;
        if (!v)
                return true;
        if (c->o->worktree)
                emit(c, kind, v, c->o->worktree);
        if (c->o->gitdir && (!c->o->worktree || (v[0] != '/' && v[0] != '~')))
                emit(c, kind, v, c->o->gitdir);
        return true;
}

void git_config_paths(const char *data, size_t len, const git_config_origin *o, git_path_fn fn, void *userdata)
{
        paths_ctx c = {o, fn, userdata};
        (void)git_config_parse(data, len, path_key, &c); /* git dies on what follows an error */
}

static bool worktree_key(const char *key, const char *value, void *userdata)
{
        if (streq(key, "core.worktree") && value) {
                free(*(char **)userdata);
                *(char **)userdata = strdup(value); /* the last one wins */
        }
        return true;
}

char *git_worktree_of(const char *gitdir, const char *gitdir_file, size_t gitdir_len, const char *config,
                      size_t config_len)
{
        if (gitdir_file && gitdir_len) {
                _cleanup_free_ char *line = strndup(gitdir_file, strcspn(gitdir_file, "\r\n"));
                _cleanup_free_ char *dotgit = line && line[0] ? git_expand_path(line, gitdir, NULL) : NULL;
                if (dotgit)
                        return path_dirname(dotgit);
        }
        _cleanup_free_ char *value = NULL;
        if (config)
                (void)git_config_parse(config, config_len, worktree_key, &value);
        return value && value[0] != '~' ? git_expand_path(value, gitdir, NULL) : NULL;
}
