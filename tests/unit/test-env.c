/* SPDX-License-Identifier: MIT */
/* The environment policy, step by step as DESIGN.md orders it:
 *   1. inherit (core / all / none)
 *   2. default excludes (*KEY*, *SECRET*, *TOKEN*, and cordon's *PASSWORD*, *PASSWD*,
 *      *CREDENTIAL*, *PRIVATE*, *_PAT in the name, any case)
 *   3. exclude globs
 *   4. set (then the command's own variables)
 *   5. include_only
 * then the user-environment redirection and the sandbox markers. */
#include <errno.h>

#include "env.h"
#include "plan.h"
#include "tap.h"

#define MAX_VARS 24

/* A realistic parent environment of an agent. */
#define AGENT_ENV                                                                                                      \
        "HOME=/home/ada", "LOGNAME=ada", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash", "USER=ada",           \
                "USERNAME=ada", "TMPDIR=/tmp/ada", "TEMP=/tmp/t", "TMP=/tmp/t2", "LANG=en_US.UTF-8", "LC_ALL=C.UTF-8", \
                "EDITOR=vi", "OPENAI_API_KEY=sk-test", "aws_secret_access_key=wJalr", "GH_TOKEN=ghp_x",                \
                "AWS_REGION=eu-west-1", "NODE_ENV=development", "TERM=xterm"

typedef struct env_case {
        const char *name;
        const char *policy;         /* a JSON config layer, or NULL for the defaults */
        const char *base[MAX_VARS]; /* NULL-terminated */
        const char *extra[4];       /* the command's own "NAME", "VALUE" pairs */
        const char *root;           /* redirect into <root>/runtime-user-env, or NULL */
        const char *backend;        /* markers, or NULL */
        const char *want;           /* the result, one NAME=VALUE per line */
} env_case;

static const env_case CASES[] = {
        /* ---- step 1: inherit */
        {.name = "core keeps Codex's nine core names, the locale and the terminal",
         .base = {AGENT_ENV},
         .want = "HOME=/home/ada\nLANG=en_US.UTF-8\nLC_ALL=C.UTF-8\nLOGNAME=ada\nPATH=/usr/local/bin:/usr/bin:/bin\n"
                 "SHELL=/bin/bash\nTEMP=/tmp/t\nTERM=xterm\nTMP=/tmp/t2\nTMPDIR=/tmp/ada\nUSER=ada\nUSERNAME=ada\n"},
        {.name = "core: every LC_* category, LANGUAGE, COLORTERM, TZ, NO_COLOR; not LC_ alone nor LCX",
         .base = {"LC_CTYPE=C.UTF-8", "LC_MESSAGES=fr_FR.UTF-8", "LANGUAGE=fr:en", "COLORTERM=truecolor",
                  "TZ=Europe/Paris", "NO_COLOR=1", "LC_=x", "LCX=y", "lc_all=C", "TERMINFO=/t"},
         .want = "COLORTERM=truecolor\nLANGUAGE=fr:en\nLC_CTYPE=C.UTF-8\nLC_MESSAGES=fr_FR.UTF-8\nNO_COLOR=1\n"
                 "TZ=Europe/Paris\n"},
        {.name = "core: the default excludes still apply to the locale names",
         .base = {"LC_TOKEN=x", "LANG=C.UTF-8"},
         .want = "LANG=C.UTF-8\n"},
        {.name = "core is case-sensitive: path and Home are not core",
         .base = {"path=/x", "Home=/h", "PATH=/bin"},
         .want = "PATH=/bin\n"},
        {.name = "all clones the parent (minus the default excludes)",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {AGENT_ENV},
         .want = "AWS_REGION=eu-west-1\nEDITOR=vi\nHOME=/home/ada\nLANG=en_US.UTF-8\nLC_ALL=C.UTF-8\nLOGNAME=ada\n"
                 "NODE_ENV=development\nPATH=/usr/local/bin:/usr/bin:/bin\nSHELL=/bin/bash\nTEMP=/tmp/t\n"
                 "TERM=xterm\nTMP=/tmp/t2\nTMPDIR=/tmp/ada\nUSER=ada\nUSERNAME=ada\n"},
        {.name = "none starts empty",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"none\"}}",
         .base = {AGENT_ENV},
         .want = ""},
        {.name = "none, then set",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"none\", \"set\": {\"PATH\": \"/bin\"}}}",
         .base = {AGENT_ENV},
         .want = "PATH=/bin\n"},

        /* ---- step 2: default excludes, on the name only, any case */
        {.name = "OPENAI_API_KEY, aws_secret_access_key and GH_TOKEN are dropped by default",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"include_only\": [\"OPENAI*\", \"aws_s*\", "
                   "\"GH*\"]}}",
         .base = {AGENT_ENV},
         .want = ""},
        {.name = "... and kept with ignore_default_excludes",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"ignore_default_excludes\": true, "
                   "\"include_only\": [\"OPENAI*\", \"aws_s*\", \"GH*\"]}}",
         .base = {AGENT_ENV},
         .want = "GH_TOKEN=ghp_x\nOPENAI_API_KEY=sk-test\naws_secret_access_key=wJalr\n"},
        {.name = "KEY, SECRET, TOKEN anywhere in the name, any case; values do not matter",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"MyKey=1", "keyring=1", "MONKEY=1", "Secretary=1", "client_secret=1", "token=1", "TOKENIZER=1",
                  "NOTE=my KEY is a SECRET TOKEN", "KE_Y=1", "TOKE=1", "SECRE=1"},
         .want = "KE_Y=1\nNOTE=my KEY is a SECRET TOKEN\nSECRE=1\nTOKE=1\n"},
        {.name = "cordon's addition: PASSWORD, PASSWD, CREDENTIAL, PRIVATE anywhere, *_PAT, any case",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"DB_PASSWORD=1", "mysql_passwd=1", "MY_CREDENTIALS=1", "GOOGLE_APPLICATION_CREDENTIALS=1",
                  "SSH_PRIVATE=1", "GH_PAT=1", "gitlab_pat=1", "PATH=/bin", "PATTERN=1", "PAT=1", "PASS=1",
                  "PAT_X=1"},
         .want = "PASS=1\nPAT=1\nPATH=/bin\nPATTERN=1\nPAT_X=1\n"},
        {.name = "... kept, all of them, with ignore_default_excludes",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"ignore_default_excludes\": true}}",
         .base = {"DB_PASSWORD=1", "GH_PAT=1", "MY_CREDENTIALS=1", "OPENAI_API_KEY=1"},
         .want = "DB_PASSWORD=1\nGH_PAT=1\nMY_CREDENTIALS=1\nOPENAI_API_KEY=1\n"},
        {.name = "exclude applies to core names too",
         .policy = "{\"shell_environment_policy\": {\"exclude\": [\"USER*\"]}}",
         .base = {"USER=a", "USERNAME=a", "PATH=/bin"},
         .want = "PATH=/bin\n"},

        /* ---- step 3: exclude globs, case-insensitive, * and ? */
        {.name = "exclude globs: case-insensitive, * and ?",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"exclude\": [\"aws_*\", \"?ITHUB*\", "
                   "\"*_pass\"]}}",
         .base = {"AWS_REGION=1", "aws_profile=1", "Aws_Cli=1", "AWSX=1", "GITHUB_USER=1", "XGITHUB=1", "github=1",
                  "DB_PASS=1", "DB_PASSX=1", "PATH=/bin"},
         .want = "AWSX=1\nDB_PASSX=1\nPATH=/bin\nXGITHUB=1\n"},
        {.name = "exclude applies to the inherited names only, before set",
         .policy = "{\"shell_environment_policy\": {\"exclude\": [\"PATH\"], \"set\": {\"PATH\": \"/opt/bin\"}}}",
         .base = {"PATH=/bin", "HOME=/h"},
         .want = "HOME=/h\nPATH=/opt/bin\n"},

        /* ---- step 4: set always wins */
        {.name = "set wins over inherit, default excludes and exclude",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"core\", \"exclude\": [\"NPM_*\"], \"set\": "
                   "{\"GH_TOKEN\": \"from-set\", \"NPM_CONFIG\": \"x\", \"PATH\": \"/set/bin\", \"EMPTY\": \"\", "
                   "\"EQ\": \"a=b=c\"}}}",
         .base = {"PATH=/bin", "GH_TOKEN=host"},
         .want = "EMPTY=\nEQ=a=b=c\nGH_TOKEN=from-set\nNPM_CONFIG=x\nPATH=/set/bin\n"},
        {.name = "the command's own variables come after set",
         .policy = "{\"shell_environment_policy\": {\"set\": {\"X\": \"set\", \"Y\": \"set\"}}}",
         .base = {"PATH=/bin"},
         .extra = {"X", "command", "Z_TOKEN", "command"},
         .want = "PATH=/bin\nX=command\nY=set\nZ_TOKEN=command\n"},

        /* ---- step 5: include_only last */
        {.name = "include_only runs last: it filters set as well",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"include_only\": [\"path\", \"LC_*\"], "
                   "\"set\": {\"FOO\": \"1\", \"LC_X\": \"1\"}}}",
         .base = {AGENT_ENV},
         .extra = {"BAR", "2"},
         .want = "LC_ALL=C.UTF-8\nLC_X=1\nPATH=/usr/local/bin:/usr/bin:/bin\n"},
        {.name = "include_only does not bring back what the default excludes dropped",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"include_only\": [\"*\"]}}",
         .base = {"GH_TOKEN=x", "PATH=/bin"},
         .want = "PATH=/bin\n"},
        {.name = "an empty include_only keeps everything",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"include_only\": []}}",
         .base = {"A=1", "B=2"},
         .want = "A=1\nB=2\n"},

        /* ---- the two usage patterns of the Codex policy */
        {.name = "Codex pattern 1: inherit all + include_only",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"include_only\": [\"PATH\", \"HOME\", "
                   "\"LANG\", \"LC_*\", \"TERM\"]}}",
         .base = {AGENT_ENV},
         .want = "HOME=/home/ada\nLANG=en_US.UTF-8\nLC_ALL=C.UTF-8\nPATH=/usr/local/bin:/usr/bin:/bin\n"
                 "TERM=xterm\n"},
        {.name = "Codex pattern 2: default core + set",
         .policy = "{\"shell_environment_policy\": {\"set\": {\"CI\": \"1\", \"NODE_ENV\": \"test\"}}}",
         .base = {AGENT_ENV},
         .want = "CI=1\nHOME=/home/ada\nLANG=en_US.UTF-8\nLC_ALL=C.UTF-8\nLOGNAME=ada\nNODE_ENV=test\n"
                 "PATH=/usr/local/bin:/usr/bin:/bin\nSHELL=/bin/bash\nTEMP=/tmp/t\nTERM=xterm\nTMP=/tmp/t2\n"
                 "TMPDIR=/tmp/ada\nUSER=ada\nUSERNAME=ada\n"},

        /* ---- redirection and markers */
        {.name = "redirection into <root>/runtime-user-env, after set and include_only",
         .policy = "{\"shell_environment_policy\": {\"set\": {\"HOME\": \"/set\", \"XDG_CACHE_HOME\": \"/c\"}, "
                   "\"include_only\": [\"PATH\"]}}",
         .base = {AGENT_ENV, "XDG_CONFIG_HOME=/home/ada/.config"},
         .root = "/srv/cordon",
         .backend = "linux",
         .want = "CORDON_SANDBOX=linux\nCORDON_SANDBOX_NETWORK_DISABLED=1\n"
                 "HOME=/srv/cordon/runtime-user-env/home\nPATH=/usr/local/bin:/usr/bin:/bin\n"
                 "TMPDIR=/srv/cordon/runtime-user-env/tmp\nXDG_CACHE_HOME=/srv/cordon/runtime-user-env/cache\n"
                 "XDG_CONFIG_HOME=/srv/cordon/runtime-user-env/config\n"
                 "XDG_STATE_HOME=/srv/cordon/runtime-user-env/state\n"},
        {.name = "redirection with inherit none",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"none\"}}",
         .base = {AGENT_ENV},
         .root = "/r",
         .want = "HOME=/r/runtime-user-env/home\nTMPDIR=/r/runtime-user-env/tmp\n"
                 "XDG_CACHE_HOME=/r/runtime-user-env/cache\nXDG_CONFIG_HOME=/r/runtime-user-env/config\n"
                 "XDG_STATE_HOME=/r/runtime-user-env/state\n"},
        {.name = "markers: network loopback is disabled too",
         .policy = "{\"isolation\": {\"network\": \"loopback\"}, \"shell_environment_policy\": {\"inherit\": "
                   "\"none\"}}",
         .backend = "landlock",
         .want = "CORDON_SANDBOX=landlock\nCORDON_SANDBOX_NETWORK_DISABLED=1\n"},
        {.name = "markers: no NETWORK_DISABLED with network full, nor an inherited one",
         .policy = "{\"isolation\": {\"network\": \"full\"}, \"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"CORDON_SANDBOX_NETWORK_DISABLED=1", "CORDON_SANDBOX_NETWORK=proxy"},
         .backend = "linux",
         .want = "CORDON_SANDBOX=linux\n"},
        {.name = "markers: network proxy points every client at the proxy, over inherited values",
         .policy = "{\"isolation\": {\"network_allow\": [\"example.org\"]}, \"shell_environment_policy\": "
                   "{\"inherit\": \"all\"}}",
         .base = {"HTTPS_PROXY=http://corp:8080", "CORDON_SANDBOX_NETWORK_DISABLED=1", "JAVA_TOOL_OPTIONS=-Xmx1g",
                  "GIT_SSH_COMMAND=ssh -i key", "NODE_USE_ENV_PROXY=0"},
         .backend = "linux",
         .want = "ALL_PROXY=socks5h://127.0.0.1:3128\nCARGO_HTTP_PROXY=http://127.0.0.1:3128\n"
                 "CORDON_PROXY_CONNECT=case $1 in *:*) h=\"[$1]\";; *) h=$1;; esac; exec "
                 "3<>/dev/tcp/127.0.0.1/3128 || exit 1; printf 'CONNECT %s:%s HTTP/1.1\\r\\nHost: "
                 "%s:%s\\r\\n\\r\\n' \"$h\" \"$2\" \"$h\" \"$2\" >&3; read -r v s r <&3; while read -r l <&3 && [ "
                 "-n \"${l%$'\\r'}\" ]; do :; done; [ \"$s\" = 200 ] || { cat <&3 >&2; exit 1; }; cat <&3 & exec "
                 "cat >&3\n"
                 "CORDON_SANDBOX=linux\nCORDON_SANDBOX_NETWORK=proxy\n"
                 "GIT_SSH_COMMAND=ssh -o \"ProxyCommand=bash -c \\\"\\$CORDON_PROXY_CONNECT\\\" connect %h %p\"\n"
                 "HTTPS_PROXY=http://127.0.0.1:3128\nHTTP_PROXY=http://127.0.0.1:3128\n"
                 "JAVA_TOOL_OPTIONS=-Xmx1g -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
                 "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128 "
                 "-Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]\n"
                 "NODE_USE_ENV_PROXY=1\n"
                 "NO_PROXY=localhost,127.0.0.1,::1\nPIP_PROXY=http://127.0.0.1:3128\n"
                 "YARN_HTTPS_PROXY=http://127.0.0.1:3128\nYARN_HTTP_PROXY=http://127.0.0.1:3128\n"
                 "all_proxy=socks5h://127.0.0.1:3128\nhttp_proxy=http://127.0.0.1:3128\n"
                 "https_proxy=http://127.0.0.1:3128\nno_proxy=localhost,127.0.0.1,::1\n"
                 "npm_config_https_proxy=http://127.0.0.1:3128\nnpm_config_proxy=http://127.0.0.1:3128\n"},
        {.name = "markers replace inherited ones",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\", \"set\": {\"CORDON_SANDBOX\": \"x\"}}}",
         .base = {"CORDON_SANDBOX=outer", "CORDON_SANDBOX_NETWORK_DISABLED=0"},
         .backend = "linux",
         .want = "CORDON_SANDBOX=linux\nCORDON_SANDBOX_NETWORK_DISABLED=1\n"},

        /* ---- pass: a named variable on purpose */
        {.name = "pass: a name the default excludes would drop, and only it",
         .policy = "{\"shell_environment_policy\": {\"pass\": [\"GH_TOKEN\"]}}",
         .base = {"GH_TOKEN=ghp_x", "OPENAI_API_KEY=sk", "PATH=/bin"},
         .want = "GH_TOKEN=ghp_x\nPATH=/bin\n"},
        {.name = "pass wins over exclude, include_only and inherit none; set still wins over it",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"none\", \"exclude\": [\"GH_*\", \"A\"], "
                   "\"include_only\": [\"PATH\"], \"pass\": [\"GH_TOKEN\", \"A\"], \"set\": {\"A\": \"set\"}}}",
         .base = {"GH_TOKEN=ghp_x", "A=base", "PATH=/bin", "GH_OTHER=y"},
         .want = "GH_TOKEN=ghp_x\n"},
        {.name = "pass: exact names (case-sensitive; a glob is refused: test-config), absent ones stay absent",
         .policy = "{\"shell_environment_policy\": {\"pass\": [\"gh_token\", \"MISSING\"]}}",
         .base = {"GH_TOKEN=ghp_x", "PATH=/bin"},
         .want = "PATH=/bin\n"},
        {.name = "pass: the first of duplicates, as getenv sees it",
         .policy = "{\"shell_environment_policy\": {\"pass\": [\"MY_SECRET\"]}}",
         .base = {"MY_SECRET=1", "MY_SECRET=2"},
         .want = "MY_SECRET=1\n"},

        /* ---- odd inputs */
        {.name = "sorted by name: '=' does not disturb the order",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"A_=5", "B=6", "AB=4", "A0=2", "A=1", "A1=3", "a=7", "_=8", "Z=0"},
         .want = "A=1\nA0=2\nA1=3\nAB=4\nA_=5\nB=6\nZ=0\n_=8\na=7\n"},
        {.name = "entries without '=' and with an empty name are ignored",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"JUNK", "=value", "PATH=/bin", "", "HOME"},
         .want = "PATH=/bin\n"},
        {.name = "duplicates: the first wins (as getenv sees it)",
         .policy = "{\"shell_environment_policy\": {\"inherit\": \"all\"}}",
         .base = {"PATH=/first", "X=1", "PATH=/second", "X=2"},
         .want = "PATH=/first\nX=1\n"},
        {.name = "duplicates with core", .base = {"HOME=/a", "HOME=/b"}, .want = "HOME=/a\n"},
        {.name = "no base environment at all", .base = {NULL}, .want = ""},
};

static char *join(char *const *env)
{
        buf b = {0};
        buf_put(&b, "", 0);
        for (size_t i = 0; env && env[i]; i++)
                buf_printf(&b, "%s\n", env[i]);
        return buf_steal(&b);
}

static void test_env_cases(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(CASES); i++) {
                const env_case *t = &CASES[i];
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                if (t->policy && cordon_config_load_string(c, t->policy, t->name, &e) < 0) {
                        printf("# %s: %s\n", t->name, cordon_error_message(e));
                        CHECK(!"the policy loads");
                        cordon_error_free(e);
                        cordon_config_free(c);
                        continue;
                }
                env_kv extra[2] = {{0}};
                size_t n_extra = 0;
                for (size_t k = 0; k + 1 < ARRAY_SIZE(t->extra) && t->extra[k]; k += 2)
                        extra[n_extra++] = (env_kv){(char *)t->extra[k], (char *)t->extra[k + 1]};
                env_input in = {
                        .base = t->base,
                        .extra = extra,
                        .n_extra = n_extra,
                        .instance_root = t->root,
                        .backend = t->backend,
                };
                char **env = NULL;
                int r = env_build(c, &in, &env);
                CHECK_INTEQ(r, 0);
                _cleanup_free_ char *got = join(env);
                if (!streq(got, t->want))
                        printf("# case: %s\n", t->name);
                CHECK_STREQ(got, t->want);
                strv_free(env);
                cordon_config_free(c);
        }
}

/* A NULL base (no environment) works like an empty one. */
static void test_env_null_base(void)
{
        cordon_config *c = cordon_config_new();
        env_input in = {.base = NULL, .instance_root = "/r", .backend = "linux"};
        char **env = NULL;
        CHECK_INTEQ(env_build(c, &in, &env), 0);
        CHECK_INTEQ(strv_len(env), 7);
        CHECK_STREQ(env_get(env, "HOME"), "/r/runtime-user-env/home");
        CHECK_STREQ(env_get(env, "CORDON_SANDBOX"), "linux");
        CHECK(env_get(env, "PATH") == NULL);
        CHECK(env_get(env, "HOM") == NULL);
        CHECK(env_get(env, "HOMEX") == NULL);
        strv_free(env);
        cordon_config_free(c);
}

/* The landlock backend's proxy port, chosen at start, replaces PROXY_PORT
 * in the proxy variables only: not in NO_PROXY ("::1"), not in a user's
 * variable that happens to name 3128. */
static void test_env_proxy_port(void)
{
        const char *const env[] = {"ALL_PROXY=socks5h://127.0.0.1:3128", "HTTPS_PROXY=http://127.0.0.1:3128",
                                   "MINE=http://127.0.0.1:3128", "NO_PROXY=localhost,127.0.0.1,::1",
                                   "PIP_PROXY=http://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128", NULL};
        char **got = env_with_proxy_port(env, 40001);
        CHECK(got != NULL);
        CHECK_STREQ(env_get(got, "ALL_PROXY"), "socks5h://127.0.0.1:40001");
        CHECK_STREQ(env_get(got, "HTTPS_PROXY"), "http://127.0.0.1:40001");
        CHECK_STREQ(env_get(got, "http_proxy"), "http://127.0.0.1:40001");
        CHECK_STREQ(env_get(got, "PIP_PROXY"), "http://127.0.0.1:40001");
        CHECK_STREQ(env_get(got, "MINE"), "http://127.0.0.1:3128");
        CHECK_STREQ(env_get(got, "NO_PROXY"), "localhost,127.0.0.1,::1");
        CHECK(got && got[6] == NULL);
        strv_free(got);
        /* the runtimes' knobs: every port of the value, after the policy's own */
        const char *const knobs[] = {"JAVA_TOOL_OPTIONS=-Xmx1g -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
                                     "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128 "
                                     "-Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]",
                                     "NODE_USE_ENV_PROXY=1", "JAVA_TOOL_OPTIONS2=-Dhttp.proxyPort=3128", NULL};
        got = env_with_proxy_port(knobs, 40001);
        CHECK(got != NULL);
        CHECK_STREQ(env_get(got, "JAVA_TOOL_OPTIONS"),
                    "-Xmx1g -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=40001 -Dhttps.proxyHost=127.0.0.1 "
                    "-Dhttps.proxyPort=40001 -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]");
        CHECK_STREQ(env_get(got, "NODE_USE_ENV_PROXY"), "1");
        CHECK_STREQ(env_get(got, "JAVA_TOOL_OPTIONS2"), "-Dhttp.proxyPort=3128");
        strv_free(got);
        /* a value that only ends like ours keeps its port */
        const char *const mine[] = {"JAVA_TOOL_OPTIONS=-Dx=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128", NULL};
        got = env_with_proxy_port(mine, 40001);
        CHECK(got != NULL);
        CHECK_STREQ(env_get(got, "JAVA_TOOL_OPTIONS"), "-Dx=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128");
        strv_free(got);
}

static void test_env_core_names(void)
{
        static const char *const want[] = {"HOME", "LOGNAME",  "PATH", "SHELL",     "USER", "USERNAME",
                                           "TMPDIR", "TEMP",  "TMP",  "LANG",      "LANGUAGE", "TERM",
                                           "COLORTERM", "TZ", "NO_COLOR"};
        CHECK_INTEQ(strv_len((char *const *)ENV_CORE_NAMES), ARRAY_SIZE(want));
        for (size_t i = 0; i < ARRAY_SIZE(want) && ENV_CORE_NAMES[i]; i++)
                CHECK_STREQ(ENV_CORE_NAMES[i], want[i]);
}

/* The same through the CLI's setters (the command-line layer). */
static void test_env_setters(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_set_inherit(c, CORDON_INHERIT_ALL), 0);
        CHECK_INTEQ(cordon_config_env_exclude(c, "lang", &e), 0);
        CHECK_INTEQ(cordon_config_env_set(c, "NEW", "1", &e), 0);
        CHECK_INTEQ(cordon_config_env_include_only(c, "*A*", &e), 0);
        CHECK_INTEQ(cordon_config_env_include_only(c, "NEW", &e), 0);
        static const char *const base[] = {AGENT_ENV, NULL};
        env_input in = {.base = base};
        char **env = NULL;
        CHECK_INTEQ(env_build(c, &in, &env), 0);
        _cleanup_free_ char *got = join(env);
        CHECK_STREQ(got, "AWS_REGION=eu-west-1\nLC_ALL=C.UTF-8\nLOGNAME=ada\nNEW=1\nPATH=/usr/local/bin:/usr/bin:/bin\n"
                         "USERNAME=ada\n");
        strv_free(env);
        env = NULL;
        CHECK_INTEQ(cordon_config_set_ignore_default_excludes(c, true), 0);
        CHECK_INTEQ(env_build(c, &in, &env), 0);
        CHECK_STREQ(env_get(env, "OPENAI_API_KEY"), "sk-test");
        CHECK_STREQ(env_get(env, "aws_secret_access_key"), "wJalr");
        CHECK(env_get(env, "GH_TOKEN") == NULL); /* no 'A' in the name: include_only */
        strv_free(env);
        cordon_error_free(e);
        cordon_config_free(c);
}

/* --pass-env and cordon_config_env_pass: the validator of the config's
 * "pass", with the same words. */
static void test_env_pass_setter(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_env_pass(c, "GH_TOKEN", &e), 0);
        CHECK_INTEQ(cordon_config_env_pass(c, "GH_TOKEN", &e), 0); /* once */
        CHECK(e == NULL);
        CHECK_INTEQ(cordon_config_env_pass(c, "GH_TOKEN=x", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "pass-env: \"GH_TOKEN=x\" takes a variable name, whose value comes from "
                                             "cordon's environment (to give a variable a value, use set: --set "
                                             "NAME=VALUE)");
        CHECK_INTEQ(cordon_config_env_pass(c, "", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "pass-env: \"\" must be a variable name, not empty");
        CHECK_INTEQ(cordon_config_env_pass(c, NULL, NULL), -EINVAL);
        static const char *const base[] = {AGENT_ENV, NULL};
        env_input in = {.base = base};
        char **env = NULL;
        CHECK_INTEQ(env_build(c, &in, &env), 0);
        CHECK_STREQ(env_get(env, "GH_TOKEN"), "ghp_x");
        CHECK(env_get(env, "OPENAI_API_KEY") == NULL); /* the other secrets stay out */
        CHECK(env_get(env, "aws_secret_access_key") == NULL);
        CHECK_INTEQ((int)strv_len(env), 13);
        strv_free(env);
        cordon_error_free(e);
        cordon_config_free(c);
}

/* Through plan_build: the markers and the redirection follow the plan's
 * backend, and disappear when isolation is disabled. */
static cordon_plan *env_plan(const char *json, const char *const *base_env)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        if (json && cordon_config_load_string(c, json, "t.json", &e) < 0) {
                printf("# %s\n", cordon_error_message(e));
                cordon_error_free(e);
                cordon_config_free(c);
                return NULL;
        }
        host_info h = {.root = "/nonexistent/cordon-test-root",
                       .uid = 1000,
                       .gid = 1000,
                       .user = "ada",
                       .group = "ada",
                       .home = "/home/ada",
                       .cwd = "/",
                       .environ = (char *const *)base_env};
        cordon_plan *p = NULL;
        int r = plan_build(c, NULL, &h, &p, &e);
        if (r < 0)
                printf("# plan_build: %s\n", cordon_error_message(e));
        cordon_error_free(e);
        cordon_config_free(c);
        return p;
}

static void test_env_through_plan(void)
{
        static const char *const environ_[] = {"HOME=/home/ada", "PATH=/bin", "OPENAI_API_KEY=sk", "LANG=C", NULL};
        cordon_plan *p = env_plan(NULL, environ_);
        CHECK(p != NULL);
        if (p) {
                _cleanup_free_ char *got = join((char *const *)cordon_plan_env(p));
                CHECK_STREQ(got, "CORDON_SANDBOX=linux\nCORDON_SANDBOX_NETWORK_DISABLED=1\n"
                                 "HOME=/home/ada/.cordon/runtime-user-env/home\nLANG=C\nPATH=/bin\n"
                                 "TMPDIR=/home/ada/.cordon/runtime-user-env/tmp\n"
                                 "XDG_CACHE_HOME=/home/ada/.cordon/runtime-user-env/cache\n"
                                 "XDG_CONFIG_HOME=/home/ada/.cordon/runtime-user-env/config\n"
                                 "XDG_STATE_HOME=/home/ada/.cordon/runtime-user-env/state\n");
                CHECK_STREQ(cordon_plan_backend(p), "linux");
        }
        cordon_plan_free(p);

        /* $CORDON_HOME of the caller picks the instance root */
        static const char *const environ2[] = {"HOME=/home/ada", "CORDON_HOME=/srv/ch", NULL};
        p = env_plan("{\"isolation\": {\"network\": \"full\", \"backend\": \"landlock\"}}", environ2);
        CHECK(p != NULL);
        if (p) {
                _cleanup_free_ char *got = join((char *const *)cordon_plan_env(p));
                CHECK_STREQ(got, "CORDON_SANDBOX=landlock\nHOME=/srv/ch/runtime-user-env/home\n"
                                 "TMPDIR=/srv/ch/runtime-user-env/tmp\nXDG_CACHE_HOME=/srv/ch/runtime-user-env/cache\n"
                                 "XDG_CONFIG_HOME=/srv/ch/runtime-user-env/config\n"
                                 "XDG_STATE_HOME=/srv/ch/runtime-user-env/state\n");
        }
        cordon_plan_free(p);

        /* isolation disabled: the policy still applies, no redirection, no markers */
        p = env_plan("{\"isolation\": {\"enabled\": false}, \"shell_environment_policy\": {\"inherit\": \"all\"}}",
                     environ_);
        CHECK(p != NULL);
        if (p) {
                _cleanup_free_ char *got = join((char *const *)cordon_plan_env(p));
                CHECK_STREQ(got, "HOME=/home/ada\nLANG=C\nPATH=/bin\n");
                CHECK_STREQ(cordon_plan_backend(p), "none");
        }
        cordon_plan_free(p);
}

int main(void)
{
        RUN(test_env_cases);
        RUN(test_env_null_base);
        RUN(test_env_core_names);
        RUN(test_env_proxy_port);
        RUN(test_env_setters);
        RUN(test_env_pass_setter);
        RUN(test_env_through_plan);
        return TAP_DONE();
}
