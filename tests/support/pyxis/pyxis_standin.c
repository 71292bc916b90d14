/*
 * A stand-in for NVIDIA's pyxis SPANK plugin (srun --container-image=...) for perfsweep's tests on
 * the single-node Slurm of tests/support/slurm. Pyxis is not packaged for Debian; this plugin is
 * loaded by the real srun and slurmstepd exactly like pyxis (plugstack.conf), so srun itself parses
 * and rejects options, and the job steps run in the real allocation. It registers pyxis' srun
 * options and implements the ones perfsweep relies on with pyxis' meaning:
 *
 *   --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH   (enroot's syntax: a registry other than
 *       Docker Hub is separated by '#'; ghcr.io/nvidia/jax:TAG names Docker Hub's
 *       "ghcr.io/nvidia/jax" and fails, as with real pyxis)
 *   --container-name=NAME       a named container is created once per job and reused by later
 *                               steps of the same job (its files persist: pyxis' job scope)
 *   --container-mounts=SRC:DST[:FLAGS][,...]   bind mounts (FLAGS: ro or rw)
 *   --container-workdir=PATH
 *   --container-remap-root, --no-container-remap-root, --container-mount-home,
 *   --no-container-mount-home, --container-writable, --container-readonly,
 *   --container-entrypoint, --no-container-entrypoint, --container-save=PATH,
 *   --container-env=NAME[,NAME...]: accepted (no effect here)
 *
 * Images are directories laid out by tests/support/jax_toolbox/make-image.sh: the plugin argument
 * images=DIR holds one root file system per image, named as the fake docker names them (the docker
 * reference with '/' and ':' as '_'); Docker Hub images are looked up as docker.io/IMAGE. The
 * container is a copy of it under state=DIR; the task runs chrooted into it in a private mount
 * namespace with this machine's /usr (less /usr/local), /etc, /dev and /proc bound in, like the
 * fake docker. plugstack.conf: "required /path/pyxis_standin.so images=DIR state=DIR".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

SPANK_PLUGIN(pyxis, 1);

static char *opt_image, *opt_name, *opt_mounts, *opt_workdir;
static char images_dir[1024], state_dir[1024];

static int set_string(char** dst, const char* arg) {
    free(*dst);
    *dst = arg ? strdup(arg) : NULL;
    return 0;
}

static int cb(int val, const char* optarg, int remote) {
    (void)remote;
    switch (val) {
    case 1:
        return set_string(&opt_image, optarg);
    case 2:
        return set_string(&opt_name, optarg);
    case 3:
        return set_string(&opt_mounts, optarg);
    case 4:
        return set_string(&opt_workdir, optarg);
    default:
        return 0;
    }
}

struct spank_option spank_options[] = {
    {"container-image", "[USER@][REGISTRY#]IMAGE[:TAG]|PATH", "[pyxis] the image to use", 1, 1, cb},
    {"container-name", "NAME", "[pyxis] name of the container (kept for the job)", 1, 2, cb},
    {"container-mounts", "SRC:DST[:FLAGS][,SRC:DST...]", "[pyxis] bind mounts", 1, 3, cb},
    {"container-workdir", "PATH", "[pyxis] working directory inside the container", 1, 4, cb},
    {"container-save", "PATH", "[pyxis] save the container (accepted)", 1, 5, cb},
    {"container-env", "NAME[,NAME...]", "[pyxis] variables from the host (accepted)", 1, 6, cb},
    {"container-remap-root", NULL, "[pyxis] root inside the container (accepted)", 0, 7, cb},
    {"no-container-remap-root", NULL, "[pyxis] (accepted)", 0, 8, cb},
    {"container-mount-home", NULL, "[pyxis] (accepted)", 0, 9, cb},
    {"no-container-mount-home", NULL, "[pyxis] (accepted)", 0, 10, cb},
    {"container-writable", NULL, "[pyxis] (accepted)", 0, 11, cb},
    {"container-readonly", NULL, "[pyxis] (accepted)", 0, 12, cb},
    {"container-entrypoint", NULL, "[pyxis] (accepted)", 0, 13, cb},
    {"no-container-entrypoint", NULL, "[pyxis] (accepted)", 0, 14, cb},
    SPANK_OPTIONS_TABLE_END};

int slurm_spank_init(spank_t sp, int ac, char** av) {
    (void)sp;
    for (int i = 0; i < ac; ++i) {
        if (strncmp(av[i], "images=", 7) == 0)
            snprintf(images_dir, sizeof images_dir, "%s", av[i] + 7);
        else if (strncmp(av[i], "state=", 6) == 0)
            snprintf(state_dir, sizeof state_dir, "%s", av[i] + 6);
        else {
            slurm_error("pyxis: unknown plugin argument '%s'", av[i]);
            return -1;
        }
    }
    return 0;
}

/* enroot's reference syntax: [USER@][REGISTRY#]IMAGE[:TAG]. Fills `key` with the fake docker
 * name of the image (REGISTRY/IMAGE:TAG, Docker Hub as docker.io/IMAGE:TAG, '/' ':' as '_'). */
static int image_key(const char* ref, char* key, size_t n) {
    const char *s = ref, *at = strchr(ref, '@'), *hash;
    char registry[512] = "docker.io", image[1024], tag[256] = "latest", full[2048];
    if (at)
        s = at + 1;
    hash = strchr(s, '#');
    if (hash) {
        snprintf(registry, sizeof registry, "%.*s", (int)(hash - s), s);
        s = hash + 1;
    }
    const char* colon = strrchr(s, ':');
    if (colon) {
        snprintf(image, sizeof image, "%.*s", (int)(colon - s), s);
        snprintf(tag, sizeof tag, "%s", colon + 1);
    } else {
        snprintf(image, sizeof image, "%s", s);
    }
    if (!*image)
        return -1;
    for (const char* p = image; *p; ++p)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || strchr("/._-", *p)))
            return -1;
    for (const char* p = tag; *p; ++p)
        if (!(isalnum((unsigned char)*p) || strchr("._:-", *p)))
            return -1;
    snprintf(full, sizeof full, "%s/%s:%s", registry, image, tag);
    snprintf(key, n, "%s", full);
    for (char* p = key; *p; ++p)
        if (*p == '/' || *p == ':')
            *p = '_';
    return 0;
}

static int run(char* const argv[]) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int mkdirs(const char* path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char* p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int bind(const char* src, const char* dst, int ro) {
    struct stat st;
    if (stat(src, &st) < 0) {
        slurm_error("pyxis: mount source %s: %s", src, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (mkdirs(dst) < 0)
            return -1;
    } else if (access(dst, F_OK) < 0) {
        int fd = open(dst, O_CREAT | O_WRONLY, 0644);
        if (fd >= 0)
            close(fd);
    }
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0 ||
        (ro && mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)) {
        slurm_error("pyxis: mount %s on %s: %s", src, dst, strerror(errno));
        return -1;
    }
    return 0;
}

/* Bind this machine's system directories into `root`, as the fake docker does. */
static int bind_system(const char* root) {
    DIR* d = opendir("/");
    struct dirent* e;
    char host[4096], inside[4096], link[4096];
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        const char* n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        snprintf(host, sizeof host, "/%s", n);
        snprintf(inside, sizeof inside, "%s/%s", root, n);
        ssize_t len = readlink(host, link, sizeof link - 1);
        if (len >= 0) {
            link[len] = 0;
            if (access(inside, F_OK) < 0 && symlink(link, inside) < 0 && errno != EEXIST)
                return closedir(d), -1;
        } else if (!strcmp(n, "usr")) {
            DIR* u = opendir("/usr");
            struct dirent* f;
            while (u && (f = readdir(u))) {
                if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, "..") ||
                    !strcmp(f->d_name, "local"))
                    continue;
                snprintf(host, sizeof host, "/usr/%s", f->d_name);
                snprintf(inside, sizeof inside, "%s/usr/%s", root, f->d_name);
                len = readlink(host, link, sizeof link - 1);
                if (len >= 0) {
                    link[len] = 0;
                    if (access(inside, F_OK) < 0)
                        (void)symlink(link, inside);
                } else if (bind(host, inside, 1) < 0) {
                    closedir(u);
                    return closedir(d), -1;
                }
            }
            if (u)
                closedir(u);
        } else if (!strcmp(n, "etc") || !strcmp(n, "dev") || !strcmp(n, "proc")) {
            if (bind(host, inside, !strcmp(n, "etc")) < 0)
                return closedir(d), -1;
        }
    }
    closedir(d);
    return 0;
}

static int container_mounts(const char* root) {
    if (!opt_mounts)
        return 0;
    char *list = strdup(opt_mounts), *save = NULL, *spec;
    int rc = 0;
    for (spec = strtok_r(list, ",", &save); spec && rc == 0; spec = strtok_r(NULL, ",", &save)) {
        char *src = spec, *dst = strchr(spec, ':'), *flags = NULL, target[4096];
        if (dst) {
            *dst++ = 0;
            flags = strchr(dst, ':');
            if (flags)
                *flags++ = 0;
        } else {
            dst = src;
        }
        if (*src != '/' || *dst != '/') {
            slurm_error("pyxis: invalid mount '%s': paths must be absolute", spec);
            rc = -1;
            break;
        }
        if (flags && strcmp(flags, "ro") && strcmp(flags, "rw")) {
            slurm_error("pyxis: invalid mount flags '%s' (the stand-in knows ro and rw)", flags);
            rc = -1;
            break;
        }
        snprintf(target, sizeof target, "%s%s", root, dst);
        rc = bind(src, target, flags && !strcmp(flags, "ro"));
    }
    free(list);
    return rc;
}

/* Runs in the task, as root, before the user's command is executed. */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    if (!opt_image)
        return 0;
    uint32_t job = 0, step = 0, task = 0;
    spank_get_item(sp, S_JOB_ID, &job);
    spank_get_item(sp, S_JOB_STEPID, &step);
    spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
    char key[2048], image[4096], jobdir[2048], root[4096];
    if (image_key(opt_image, key, sizeof key) < 0) {
        slurm_error("pyxis: invalid image reference '%s' (expected [USER@][REGISTRY#]IMAGE[:TAG])",
                    opt_image);
        return -1;
    }
    snprintf(image, sizeof image, "%s/%s", images_dir, key);
    snprintf(jobdir, sizeof jobdir, "%s/%u", state_dir, (unsigned)job);
    for (const char* p = opt_name ? opt_name : ""; *p; ++p)
        if (!(isalnum((unsigned char)*p) || strchr("_.-", *p))) {
            slurm_error("pyxis: invalid container name '%s'", opt_name);
            return -1;
        }
    if (opt_name && strlen(opt_name) < 1024)
        snprintf(root, sizeof root, "%s/%.1023s", jobdir, opt_name);
    else
        snprintf(root, sizeof root, "%s/step-%u-task-%u", jobdir, step, task);
    if (access(root, F_OK) < 0) {
        struct stat st;
        slurm_info("pyxis: importing docker image: %s", opt_image);
        if (stat(image, &st) < 0 || !S_ISDIR(st.st_mode)) {
            slurm_error("pyxis: child failed with error code: 1");
            slurm_error("pyxis: failed to import docker image");
            slurm_error("pyxis: printing enroot log file:");
            slurm_error("pyxis:     [ERROR] URL for image %s returned error code: 404 Not Found",
                        opt_image);
            return -1;
        }
        if (mkdirs(jobdir) < 0)
            return -1;
        char* cp[] = {"cp", "-a", image, root, NULL};
        if (run(cp) < 0) {
            slurm_error("pyxis: failed to create container filesystem %s", root);
            return -1;
        }
        slurm_info("pyxis: creating container filesystem: %s", opt_name ? opt_name : "(unnamed)");
    } else {
        slurm_info("pyxis: reusing existing container filesystem");
    }
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        slurm_error("pyxis: mount namespace: %s", strerror(errno));
        return -1;
    }
    if (bind_system(root) < 0 || container_mounts(root) < 0)
        return -1;
    if (chroot(root) < 0 || chdir(opt_workdir ? opt_workdir : "/") < 0) {
        slurm_error("pyxis: cannot enter the container (%s): %s", opt_workdir ? opt_workdir : "/",
                    strerror(errno));
        return -1;
    }
    spank_setenv(sp, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
    spank_setenv(sp, "HOME", "/root", 1);
    return 0;
}
