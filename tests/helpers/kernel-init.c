/* SPDX-License-Identifier: MIT */
/* The init of make check-kernels' guests (scripts/check-kernels.sh builds
 * it static with musl into the initramfs): loads the modules in /m in
 * order (virtio, 9p: Debian's own, from the kernel's package), mounts the
 * host's root read-only over 9p (mount tag "hostroot"), gives it what a
 * system has writable (/dev with its /dev/fd links, /proc, /sys, cgroup2,
 * /tmp, /run, /var/tmp, /dev/shm, /dev/pts, loopback up), moves it over the initramfs' root,
 * runs /guest.sh (copied from the initramfs to its /run) in it with bash,
 * prints its status and powers off. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what, int e) { fprintf(stderr, "kernel-init: %s: %s\n", what, strerror(e)); }

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void load_modules(void)
{
        struct dirent **v;
        int n = scandir("/m", &v, NULL, by_name);
        for (int i = 0; i < n; i++) {
                char path[512];
                if (v[i]->d_name[0] == '.') {
                        free(v[i]);
                        continue;
                }
                snprintf(path, sizeof(path), "/m/%s", v[i]->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd >= 0 && syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
                        say(path, errno);
                if (fd >= 0)
                        close(fd);
                free(v[i]);
        }
        if (n >= 0)
                free(v);
}

static void mnt(const char *src, const char *dst, const char *type, unsigned long flags, const char *data)
{
        mkdir(dst, 0755);
        if (mount(src, dst, type, flags, data) < 0)
                say(dst, errno);
}

static void loopback_up(void)
{
        int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct ifreq ifr = {0};
        strcpy(ifr.ifr_name, "lo");
        if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
                return;
        ifr.ifr_flags |= IFF_UP;
        (void)ioctl(s, SIOCSIFFLAGS, &ifr);
        close(s);
}

/* /guest.sh into the guest's /run, which the chroot sees */
static void copy_script(void)
{
        char buf[65536];
        int in = open("/guest.sh", O_RDONLY | O_CLOEXEC);
        int out = open("/r/run/cordon-guest.sh", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n)
                        break;
        if (in >= 0)
                close(in);
        if (out >= 0)
                close(out);
}

int main(void)
{
        mnt("devtmpfs", "/dev", "devtmpfs", 0, NULL);
        int con = open("/dev/console", O_RDWR);
        if (con >= 0) {
                dup2(con, 0);
                dup2(con, 1);
                dup2(con, 2);
        }
        mnt("proc", "/proc", "proc", 0, NULL);
        load_modules();
        mnt("hostroot", "/r", "9p", MS_RDONLY, "trans=virtio,version=9p2000.L,msize=262144,cache=loose");
        mnt("devtmpfs", "/r/dev", "devtmpfs", 0, NULL);
        /* what udev makes on a system: bash's <(...) opens /dev/fd/N */
        (void)symlink("/proc/self/fd", "/r/dev/fd");
        (void)symlink("/proc/self/fd/0", "/r/dev/stdin");
        (void)symlink("/proc/self/fd/1", "/r/dev/stdout");
        (void)symlink("/proc/self/fd/2", "/r/dev/stderr");
        mnt("devpts", "/r/dev/pts", "devpts", 0, "newinstance,ptmxmode=0666,mode=620");
        mnt("tmpfs", "/r/dev/shm", "tmpfs", 0, "mode=1777");
        mnt("proc", "/r/proc", "proc", 0, NULL);
        mnt("sysfs", "/r/sys", "sysfs", 0, NULL);
        mnt("cgroup2", "/r/sys/fs/cgroup", "cgroup2", 0, NULL);
        mnt("tmpfs", "/r/tmp", "tmpfs", 0, "mode=1777");
        mnt("tmpfs", "/r/var/tmp", "tmpfs", 0, "mode=1777");
        mnt("tmpfs", "/r/run", "tmpfs", 0, "mode=0755");
        mnt("tmpfs", "/r/root", "tmpfs", 0, "mode=0700");
        mnt("tmpfs", "/r/var/cache/cordon", "tmpfs", 0, "mode=0755");
        /* the host's root once more, whole: a tree under /tmp or /root,
         * which the tmpfs above hide, is seen at /run/host/PATH (one
         * virtio channel: a bind, not a second 9p mount) */
        mnt("/r", "/r/run/host", NULL, MS_BIND, NULL); /* not recursive: the 9p root alone */
        copy_script();
        loopback_up();
        pid_t pid = fork();
        if (pid == 0) {
                setsid(); /* pid 1's session and group are 0: not one a test can name */
                /* the host's root moved over the initramfs, as switch_root
                 * does: in a chroot the kernel refuses user namespaces */
                if (chdir("/r") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0) {
                        say("moving the root", errno);
                        _exit(127);
                }
                char *argv[] = {"bash", "/run/cordon-guest.sh", NULL};
                char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                                "TERM=dumb", "LANG=C.UTF-8", NULL};
                execve("/bin/bash", argv, envp);
                _exit(127);
        }
        int st = 0;
        for (pid_t w; (w = wait(&st)) != pid;)
                if (w < 0 && errno == ECHILD)
                        break;
        printf("CORDON-GUEST-EXIT %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        fflush(stdout);
        sync();
        reboot(RB_POWER_OFF);
        return 0;
}
