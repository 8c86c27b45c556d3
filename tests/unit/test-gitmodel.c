/* SPDX-License-Identifier: MIT */
/* The git model (src/core/gitmodel.c): git's config syntax as git reads
 * it (each case was checked against `git config -f FILE --list`, and
 * tests/escape/git-model.sh compares them with the real git), HEAD
 * validity, the keys that run programs, benign configs, todo lists. */
#include "gitmodel.h"

#include <errno.h>
#include <string.h>

#include "tap.h"

static bool collect(const char *key, const char *value, void *userdata)
{
        buf_printf(userdata, "%s%s%s\n", key, value ? "=" : "", value ? value : "");
        return true;
}

/* The "key=value" lines git config --list prints, or "ERR" after them. */
static char *parse(const char *text, size_t len)
{
        buf b = {0};
        int r = git_config_parse(text, len, collect, &b);
        if (r < 0)
                buf_printf(&b, "ERR\n");
        buf_put(&b, "", 1);
        return buf_steal(&b);
}

static void expect(const char *text, const char *want)
{
        char *got = parse(text, strlen(text));
        CHECK_STREQ(got, want);
        free(got);
}

static void test_parse(void)
{
        expect("[core]\n\tpager = less\n", "core.pager=less\n");
        expect("[core]pager=evil\n", "core.pager=evil\n"); /* a header and a key on one line */
        expect("[Core \"Sub\"]\n\tKey = \"a b\" ; c\n [x.Y]z\n", "core.Sub.key=a b\nx.y.z\n");
        expect("k=v\n", "k=v\n"); /* before any section */
        expect("[a]\nb = x\\\ny\n", "a.b=xy\n");
        expect("[a]\nb = x\\", "a.b=x\n");
        expect("[ \"x\"]\nb=1\n", ".x.b=1\n");
        expect("[a] b=1\n", "a.b=1\n");
        expect("[a]\n  b  =  \" x \"  y  \n", "a.b= x   y\n");
        expect("\xef\xbb\xbf[a]\nb\n", "a.b\n");
        expect("[a]\r\nb = 1\r\n", "a.b=1\n");
        expect("# c\n; c\n[a] # c\nb = \"#x\" # c\n", "a.b=#x\n");
        expect("[a]\nb = \"x\\ty\\n\\\\\\\"\"\n", "a.b=x\ty\n\\\"\n");
        expect("[a \"s\\\"q\\\\\"]\nk=1\n", "a.s\"q\\.k=1\n");
        expect("[a]\nb-c1 = 1\n", "a.b-c1=1\n");
        /* what git refuses: the keys before stay read */
        expect("[a]\nb = 1\nc = \"open\n", "a.b=1\nERR\n");
        expect("[a]\nb = \\q\n", "ERR\n");
        expect("[]\nb=1\n", "ERR\n");
        expect("[a\nb=1\n", "ERR\n");
        expect("[a \"x\" ]\n", "ERR\n");
        expect("[a]\n1b = 1\n", "ERR\n");
        expect("[a]\nb c = 1\n", "ERR\n");
        expect("\xef\xbb[a]\n", "ERR\n");
        /* a NUL ends the value, as a C string does in git */
        char nul[] = "[a]\nb=1\0x\n";
        char *got = parse(nul, sizeof(nul) - 1);
        CHECK_STREQ(got, "a.b=1\n");
        free(got);
}

static void test_head(void)
{
        CHECK(git_head_valid("ref: refs/heads/main\n", 21, false));
        CHECK(git_head_valid("ref:\t  refs/x", 13, false));
        CHECK(git_head_valid("0123456789abcdef0123456789abcdef01234567\n", 41, false));
        CHECK(git_head_valid("0123456789abcdef0123456789abcdef01234567 trailing", 49, false)); /* a reflog line */
        CHECK(git_head_valid("refs/heads/x", 12, true));
        CHECK(!git_head_valid("ref: heads/main", 15, false));
        CHECK(!git_head_valid("0123456789abcdef0123456789abcdef0123456", 39, false));
        CHECK(!git_head_valid("../refs/x", 9, true));
        CHECK(!git_head_valid("", 0, false));
}

static void test_classify(void)
{
        CHECK_INTEQ(git_key_classify("include.path", "x"), GIT_KEY_INCLUDE);
        CHECK_INTEQ(git_key_classify("includeif.gitdir:~/w/.path", "x"), GIT_KEY_INCLUDE);
        CHECK_INTEQ(git_key_classify("include.x.path", "x"), GIT_KEY_DATA);
        CHECK_INTEQ(git_key_classify("core.hookspath", "x"), GIT_KEY_HOOKS);
        CHECK_INTEQ(git_key_classify("core.fsmonitor", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("core.sshcommand", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("alias.st", "!x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("filter.lfs.smudge", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("diff.pdf.textconv", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("difftool.kd.path", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("credential.https://x.helper", "x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("submodule.s.update", "!x"), GIT_KEY_PROGRAM);
        CHECK_INTEQ(git_key_classify("submodule.s.update", "rebase"), GIT_KEY_DATA);
        CHECK_INTEQ(git_key_classify("submodule.s.path", "a/b"), GIT_KEY_DATA);
        CHECK_INTEQ(git_key_classify("core.attributesfile", "x"), GIT_KEY_FILE);
        CHECK_INTEQ(git_key_classify("user.name", "x"), GIT_KEY_DATA);
}

static void expect_program(const char *key, const char *value, const char *want)
{
        char *got = git_program_path(key, value);
        if (want)
                CHECK_STREQ(got, want);
        else
                CHECK(!got);
        free(got);
}

static void test_program_path(void)
{
        expect_program("core.fsmonitor", ".git/hooks/fsmonitor-watchman", ".git/hooks/fsmonitor-watchman");
        expect_program("core.fsmonitor", "true", NULL);
        expect_program("core.pager", "less -R", NULL);
        expect_program("core.pager", "./tools/pager --x", "./tools/pager");
        expect_program("alias.st", "!./s.sh status", "./s.sh");
        expect_program("alias.st", "! \"/w/my tool\" x", "/w/my tool");
        expect_program("alias.st", "status -s", NULL);
        expect_program("core.sshcommand", "~/bin/ssh -v", "~/bin/ssh");
        expect_program("core.editor", "vim;./x", NULL);
}

static void expect_expand(const char *value, const char *base, const char *want)
{
        char *got = git_expand_path(value, base, "/home/u");
        if (want)
                CHECK_STREQ(got, want);
        else
                CHECK(!got);
        free(got);
}

static void test_expand(void)
{
        expect_expand("../..", "/w/r/.git/worktrees/wt", "/w/r/.git");
        expect_expand("../../../x", "/a/b", "/x");
        expect_expand("./a/./b/../c", "/w", "/w/a/c");
        expect_expand("~/x", "/w", "/home/u/x");
        expect_expand("/abs//p/", "/w", "/abs/p");
        expect_expand("~other/x", "/w", NULL);
        expect_expand("%(prefix)/etc", "/w", NULL);
        expect_expand("rel", NULL, NULL);
        expect_expand("..", "/", "/");
        const char gd[] = "/w/r/wt/.git\n", cfg[] = "[core]\n\tworktree = ../../../s\n";
        char *wt = git_worktree_of("/w/r/.git/worktrees/wt", gd, sizeof(gd) - 1, NULL, 0);
        CHECK_STREQ(wt, "/w/r/wt");
        free(wt);
        wt = git_worktree_of("/w/r/.git/modules/s", NULL, 0, cfg, sizeof(cfg) - 1);
        CHECK_STREQ(wt, "/w/r/s");
        free(wt);
        CHECK(!git_worktree_of("/w/bare", NULL, 0, "[core]\n\tbare = true\n", 22));
}

static void expect_benign(const char *text, bool want)
{
        bool got = git_config_benign(text, strlen(text));
        if (got != want)
                printf("# benign(%s) = %d\n", text, got);
        CHECK(got == want);
}

static void test_benign(void)
{
        /* what git init and git clone write */
        expect_benign("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
                      "\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://example.org/r.git\n"
                      "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n"
                      "\tmerge = refs/heads/main\n",
                      true);
        expect_benign("[user]\nname = A\nemail = a@b\n[remote \"o\"]\nurl = git@h:r\nurl = ../other\n", true);
        expect_benign("[core]\nworktree = ../sub\n", false); /* a link on the way: anywhere */
        expect_benign("[core]\nworktree = ../../../../../home/u\n", false);
        expect_benign("[core]\nworktree = /etc\n", false);
        expect_benign("[core]\nfsmonitor = x\n", false);
        expect_benign("[core]\npager = less\n", false);
        expect_benign("[core]\nhooksPath = h\n", false);
        expect_benign("[include]\npath = x\n", false);
        expect_benign("[remote \"o\"]\nurl = ext::sh -c x\n", false);
        expect_benign("[remote \"o\"]\nurl = evil::x\n", false);
        expect_benign("[remote \"o\"]\nurl = -oProxyCommand=x\n", false);
        expect_benign("[remote \"o\"]\nuploadpack = x\n", false);
        expect_benign("[remote]\nurl = x\n", false);
        expect_benign("[submodule \"s\"]\nupdate = !x\n", false);
        expect_benign("[alias]\nst = status\n", false);
        expect_benign("[core]\nbare = false\n[core\n", false); /* git refuses it */
        expect_benign("[color \"diff\"]\nmeta = blue\n[advice]\ndetachedHead = false\n", true);
        expect_benign("", true);
}

static void test_todo(void)
{
        const char *t1 = "pick 1234 a\n# exec comment\nreword 5678 b\n";
        CHECK(!git_todo_runs_program(t1, strlen(t1)));
        const char *t2 = "pick 1234 a\n  exec make\n";
        CHECK(git_todo_runs_program(t2, strlen(t2)));
        const char *t3 = "x\tmake\n";
        CHECK(git_todo_runs_program(t3, strlen(t3)));
        const char *t4 = "execute\n";
        CHECK(git_todo_runs_program(t4, strlen(t4)));
        CHECK(git_strategy_builtin("ort") && !git_strategy_builtin("evil") && !git_strategy_builtin(NULL));
}

static void test_hooks(void)
{
        CHECK(git_hook_inert("pre-commit.sample", true));
        CHECK(!git_hook_inert("pre-commit.sample", false));
        CHECK(!git_hook_inert("pre-commit", true));
        CHECK(!git_hook_inert(".sample", true));
}

static bool dump_one(const char *key, const char *value, void *userdata)
{
        (void)userdata;
        /* git config --list -z: KEY NL VALUE NUL, or KEY NUL */
        fputs(key, stdout);
        if (value)
                printf("\n%s", value);
        fputc('\0', stdout);
        return true;
}

/* --dump FILE: the variables as `git config -f FILE --list -z` prints
 * them, exit 128 where git refuses the file (tests/escape/git-model.sh). */
static int dump(const char *path)
{
        char *text = tap_read_file(path);
        if (!text)
                return 2;
        FILE *f = fopen(path, "rb");
        long n = 0;
        if (f && fseek(f, 0, SEEK_END) == 0)
                n = ftell(f);
        if (f)
                fclose(f);
        int r = git_config_parse(text, n > 0 ? (size_t)n : 0, dump_one, NULL);
        free(text);
        return r < 0 ? 128 : 0;
}

int main(int argc, char **argv)
{
        if (argc == 3 && strcmp(argv[1], "--dump") == 0)
                return dump(argv[2]);
        tap_run("config syntax as git reads it", test_parse);
        tap_run("HEAD as git validates it", test_head);
        tap_run("keys that run programs or read files", test_classify);
        tap_run("the program a value names", test_program_path);
        tap_run("paths as git expands them, work trees", test_expand);
        tap_run("benign configs: what init and clone write", test_benign);
        tap_run("todo lists that run programs", test_todo);
        tap_run("hooks git never runs", test_hooks);
        printf("1..%d\n", tap_n);
        return tap_any_failed;
}
