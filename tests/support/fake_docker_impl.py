"""A stand-in for `docker`/`podman` for the tests: records every call and emulates the few
subcommands perfsweep uses. Install tests/support/fake_docker (which runs this module) on PATH
under the name `docker` or `podman`.

Environment:
  FAKE_DOCKER_LOG    file that receives one JSON array (the argv, argv[0] = tool name) per call
  FAKE_DOCKER_STATE  directory holding `images` (local images), `remote` (pullable images) and
                     `containers` (running kept containers), one name per line
`run` (without -d) and `exec` execute the command on this machine with the -e environment, so
real benchmark scripts produce real output. As with a real engine, the command does not run as a
child of the CLI: it runs in its own session (and, under a run cgroup, outside it), without the
CLI's PERFSWEEP_RUN_COOKIE, so killing the CLI (even with SIGKILL) leaves the "container"
running until `rm -f` kills it. `run` proxies SIGINT/SIGTERM/SIGHUP/SIGQUIT to the container
(docker's --sig-proxy default) and ends every process of the container when its main process
exits; `exec` proxies nothing (docker exec does not). Every process of a container carries
FAKE_DOCKER_CONTAINER=NAME in its environment, which is how `rm -f` and `stop` find them (a real
engine uses the container's cgroup). `containers` lists every container that exists: a `run
--rm` container from its start to its end.
  FAKE_DOCKER_STATE/env.json (optional) simulates each image's environment:
    {"IMAGE": {"labels": {"NAME": "VALUE", ...}, "probe": "key=value lines"}, ...}
  `image inspect --format '{{json .Config.Labels}}'` answers the labels; perfsweep's built-in
  environment probe (`sh -c` with the perfsweep-env-probe marker) run in that image prints "probe"
  instead of probing this machine.
  FAKE_DOCKER_STATE/rootfs/IMAGE_KEY (optional; IMAGE_KEY = the image with '/' and ':' as '_') is
  that image's root file system (tests/support/jax_toolbox/make-image.sh lays out JAX-Toolbox
  ones). Then `exec`/`run` execute the command chrooted into the container's tree, in a private
  mount namespace (needs root), and the container's writes stay in FAKE_DOCKER_STATE/containers.d/
  NAME (`rm` and `--rm` delete it). A `run` container's tree is an overlay of the image mounted in
  its main process's namespace (its writes in NAME/upper; a copy of the image where overlayfs
  cannot be mounted), and `exec` into it joins that namespace (refused once the main process has
  ended: "is not running"); `run -d` copies the image to NAME and each `exec` sets up its own
  namespace over that copy. In both: the image's /opt, /root, /tmp and /usr/local are its own,
  this machine's /usr (less /usr/local), /etc, /dev and /proc are bound in read-only, and each
  -v SRC:DST[:ro] is bind-mounted at DST (SRC must be absolute and is created if missing, as
  docker does). Mounts are fixed when the container starts, like docker's.
  FAKE_DOCKER_STATE/rootfs/IMAGE_KEY.entrypoint (optional, a JSON array) is the image's
  ENTRYPOINT: `run` runs the command through it (a CUDA base image's banner comes first) unless
  --entrypoint replaces it; `exec` does not use it, as with docker. --init is accepted (no PID 1
  is emulated: a `run -d` container has no process of its own). The GPUs of
  --gpus / --device nvidia.com/gpu=I reach the container's processes (`run`, and `exec` in a
  `run -d` container) as FAKE_DOCKER_GPUS ("0", "0,1", "all", "count=2"); unset without any.
"""
import _signal as signal  # signal's own module imports enum (13 ms of CPU a call)
import fcntl
import os
import sys
import time
import warnings  # noqa: F401 (os.execvpe imports it lazily, after the chroot it cannot)

# The tests start this hundreds of times, so it imports little: shutil and ctypes where they are
# needed, neither json nor hashlib (with re and OpenSSL they were 30 ms of CPU a call, as much as
# python's own start): JSON through json's C scanner and encoder (_json, what json.loads and
# json.dumps use), SHA-256 from the interpreter's builtin module.
try:
    import _json

    class _Decoding:
        """What _json's scanner reads from json.JSONDecoder: its defaults."""
        strict, object_hook, object_pairs_hook = True, None, None
        parse_float, parse_int = float, int
        parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"),
                          "NaN": float("nan")}.__getitem__

    def _unserializable(o):
        raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

    _scan = _json.make_scanner(_Decoding())
    _encode = _json.make_encoder({}, _unserializable, _json.encode_basestring_ascii, None, ": ",
                                 ", ", False, False, True)

    def json_dumps(value):
        """json.dumps(value) (its default options)."""
        return "".join(_encode(value, 0))

    def json_loads(text):
        """json.loads(text); a malformed text raises json's own error."""
        body = text.strip(" \t\n\r")
        try:
            value, end = _scan(body, 0)
        except StopIteration:
            end = -1
        if end != len(body):
            import json
            return json.loads(text)  # raises json.JSONDecodeError with the place
        return value
except (ImportError, AttributeError):  # not CPython: the json module
    import json
    json_dumps, json_loads = json.dumps, json.loads


def json_file(path):
    with open(path) as f:
        return json_loads(f.read())


def sha256_hex(text):
    try:
        from _sha2 import sha256  # python >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(text.encode()).hexdigest()


tool = os.path.basename(sys.argv[0])
args = sys.argv[1:]
with open(os.environ["FAKE_DOCKER_LOG"], "a") as log:
    log.write(json_dumps([tool] + args) + "\n")
state = os.environ["FAKE_DOCKER_STATE"]


def read(name):
    try:
        with open(os.path.join(state, name)) as f:
            return [l.rstrip("\n") for l in f if l.strip()]
    except FileNotFoundError:
        return []


def write(name, items):
    tmp = os.path.join(state, name + ".tmp.%d" % os.getpid())
    with open(tmp, "w") as f:
        f.write("".join(i + "\n" for i in items))
    os.replace(tmp, os.path.join(state, name))


class Locked:
    """Serializes read-modify-write of the state files between concurrent calls."""

    def __enter__(self):
        self.f = open(os.path.join(state, ".lock"), "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def add_container(name, image):
    with Locked():
        write("containers", read("containers") + [name])
        write("container-images", read("container-images") + [name + " " + image])


def drop_container(name):
    with Locked():
        write("containers", [c for c in read("containers") if c != name])
        write("container-images",
              [l for l in read("container-images") if l.partition(" ")[0] != name])


def container_pids(name):
    """Processes of container `name`: those whose environment carries its marker."""
    marker = ("FAKE_DOCKER_CONTAINER=" + name).encode()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                if marker in f.read().split(b"\0"):
                    out.append(int(d))
        except OSError:
            pass
    return out


def kill_container(name, sig=signal.SIGKILL, grace=0.0):
    """SIGTERM-then-SIGKILL (grace > 0) or SIGKILL every process of the container."""
    if grace > 0:
        for p in container_pids(name):
            try:
                os.kill(p, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.time() + grace
        while container_pids(name) and time.time() < deadline:
            time.sleep(0.05)
    for _ in range(100):
        pids = container_pids(name)
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, sig)
            except OSError:
                pass
        time.sleep(0.01)


def fail(msg, code=1):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


def digest(image):
    return "sha256:" + sha256_hex(image)


def environment(image):
    path = os.path.join(state, "env.json")
    if not os.path.exists(path):
        return None
    return json_file(path).get(image)


def container_image(name):
    for line in read("container-images"):
        n, _, image = line.partition(" ")
        if n == name:
            return image
    return None


def probe_fixture(image, cmd):
    """The built-in environment probe answers from env.json when the image has a "probe"."""
    if len(cmd) == 3 and cmd[:2] == ["sh", "-c"] and "perfsweep-env-probe" in cmd[2]:
        env = environment(image)
        if env is not None and "probe" in env:
            sys.stdout.write(env["probe"])
            sys.exit(0)


def rootfs_of(image):
    path = os.path.join(state, "rootfs", image.replace("/", "_").replace(":", "_"))
    return path if image and os.path.isdir(path) else None


def entrypoint_of(image):
    """The image's ENTRYPOINT (rootfs/IMAGE_KEY.entrypoint, a JSON array), [] without one."""
    path = rootfs_of(image).rstrip("/") + ".entrypoint"
    if not os.path.exists(path):
        return []
    return json_file(path)


def container_dir(name):
    return os.path.join(state, "containers.d", name)


def drop_tree(name):
    """Remove a container's copy of its image's root file system (if it has one)."""
    if os.path.isdir(container_dir(name)):
        import shutil
        shutil.rmtree(container_dir(name), ignore_errors=True)
        os.remove(container_dir(name) + ".json")


def gpus_of(opts):
    """The GPUs `--gpus` (docker: all, N, device=I,J, quoted or not) or `--device
    nvidia.com/gpu=I` (podman, CDI) give the container, as "all", "count=N" or "I,J"; "" for
    none. Processes of the container see it as FAKE_DOCKER_GPUS: what the NVIDIA runtime would
    make visible."""
    out = []
    for o, v in opts:
        if o == "--gpus":
            v = v.strip('"')
            out.append(v[len("device="):] if v.startswith("device=") else
                       v if v == "all" else "count=" + v)
        elif o == "--device" and v.startswith("nvidia.com/gpu="):
            out.append(v[len("nvidia.com/gpu="):])
    return ",".join(out)


def check_mounts(mounts):
    for spec in mounts:
        src = spec.split(":")[0]
        if not src.startswith("/"):
            fail("docker: Error response from daemon: create %s: \"%s\" includes invalid "
                 "characters for a local volume name" % (src, src), 125)
        if len(spec.split(":")) < 2 or len(spec.split(":")) > 3:
            fail("docker: Error response from daemon: invalid volume specification: '%s'" % spec, 125)


MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18


def enter(root, mounts, image=None, join=None):
    """Chroot into `root` inside a private mount namespace with the system and -v mounts; with
    `image`, `root` is first mounted as an overlay of that tree (writes go to the container's
    upper directory next to `root`). With `join` (a pid), enter that process's mount namespace,
    where all of that is already in place, instead."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)

    def mount(src, dst, flags):
        if libc.mount(src.encode() if src else None, dst.encode(), None, flags, None) != 0:
            fail("%s: mount %s on %s: %s" % (tool, src, dst, os.strerror(ctypes.get_errno())), 125)

    def bind(src, dst, ro):
        if os.path.isdir(src):
            os.makedirs(dst, exist_ok=True)
        elif not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "a").close()
        mount(src, dst, MS_BIND | MS_REC)
        if ro:
            mount(None, dst, MS_BIND | MS_REMOUNT | MS_RDONLY)

    if join:
        try:
            fd = os.open("/proc/%d/ns/mnt" % join, os.O_RDONLY)
        except OSError:
            fail("Error response from daemon: container is not running", 126)
        if libc.setns(fd, 0x00020000) != 0:  # CLONE_NEWNS
            fail("%s: setns: %s" % (tool, os.strerror(ctypes.get_errno())), 126)
        os.close(fd)
        os.chroot(root)
        os.chdir("/")
        return
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
        fail("%s: unshare(CLONE_NEWNS): %s (the image emulation needs root)" %
             (tool, os.strerror(ctypes.get_errno())), 125)
    mount(None, "/", MS_REC | MS_PRIVATE)
    if image:
        top = os.path.dirname(root)
        layers = "lowerdir=%s,upperdir=%s,workdir=%s,volatile" % (
            image, os.path.join(top, "upper"), os.path.join(top, "work"))
        # volatile: no sync of the upper file system when the namespace ends (a whole-disk
        # sync in the last process's exit took 35-140 ms); a container's writes need none.
        if libc.mount(b"overlay", root.encode(), b"overlay", 0, layers.encode()) != 0:
            import shutil  # no overlayfs here (or not on this file system): a copy of the tree
            shutil.copytree(image, root, symlinks=True, dirs_exist_ok=True)
    for entry in sorted(os.listdir("/")):
        host, inside = "/" + entry, os.path.join(root, entry)
        if os.path.islink(host):
            if not os.path.lexists(inside):
                os.symlink(os.readlink(host), inside)
        elif entry == "usr":
            for sub in sorted(os.listdir("/usr")):
                if sub == "local":
                    continue
                if os.path.islink("/usr/" + sub):
                    if not os.path.lexists(os.path.join(inside, sub)):
                        os.symlink(os.readlink("/usr/" + sub), os.path.join(inside, sub))
                else:
                    bind("/usr/" + sub, os.path.join(inside, sub), True)
        elif entry in ("etc", "dev", "proc"):
            bind(host, inside, entry == "etc")
    for spec in mounts:
        parts = spec.split(":")
        src, dst = parts[0], parts[1]
        if not os.path.exists(src):
            os.makedirs(src)
        bind(src, os.path.join(root, dst.lstrip("/")), len(parts) > 2 and "ro" in parts[2].split(","))
    os.chroot(root)
    os.chdir("/")


def start_in_container(name, cmd, env_pairs, workdir, root=None, mounts=(), image=None,
                       join=None, ready=None):
    """Start `cmd` as a process of container `name`: its own session, outside the caller's
    cgroup and cookie, with the -e environment (chrooted into `root` with `mounts` when the image
    has a root file system; `image` and `join` as enter() takes them); returns its pid. With
    `ready` (a pipe's write end) the process writes a byte there once it is inside its tree."""
    env = dict(os.environ)
    for k in ("PERFSWEEP_RUN_COOKIE", "PERFSWEEP_CGROUP"):
        env.pop(k, None)
    for kv in env_pairs:
        k, _, v = kv.partition("=")
        env[k] = v
    env["FAKE_DOCKER_CONTAINER"] = name
    cgroup = os.environ.get("PERFSWEEP_CGROUP")
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if cgroup:  # containers live in the engine's cgroups, not in the CLI's
                try:
                    with open(os.path.join(os.path.dirname(cgroup), "cgroup.procs"), "w") as f:
                        f.write("0")
                except OSError:
                    pass
            if root:
                enter(root, mounts, image, join)
                if ready is not None:
                    os.write(ready, b"1")
                    os.close(ready)
                env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
                env["HOME"] = "/root"
                if workdir and not os.path.isdir(workdir):
                    sys.stderr.write("OCI runtime exec failed: chdir to cwd (\"%s\"): no such file "
                                     "or directory\n" % workdir)
                    os._exit(126)
            if workdir and os.path.isdir(workdir):
                os.chdir(workdir)
            os.execvpe(cmd[0], cmd, env)
        except OSError as e:
            sys.stderr.write("%s: exec failed: %s\n" % (tool, e))
        os._exit(126)
    return pid


def wait_status(pid):
    """Wait for `pid`; its exit status the way docker reports it (128+N for signal N)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def parse_options(rest, with_value):
    opts, env, workdir, i = [], [], None, 0
    mounts = []
    while i < len(rest) and rest[i].startswith("-"):
        o = rest[i]
        if o in with_value:
            v = rest[i + 1]
            if o == "-e":
                env.append(v)
            if o == "-w":
                workdir = v
            if o == "-v":
                mounts.append(v)
            opts.append((o, v))
            i += 2
        else:
            opts.append((o, None))
            i += 1
    return opts, env, workdir, rest[i:], mounts


if not args:
    fail("usage")
sub, rest = args[0], args[1:]
if sub == "image" and rest and rest[0] == "inspect":
    image = rest[-1]
    if image not in read("images"):
        fail("Error: No such image: " + image)
    fmt = rest[2] if len(rest) > 2 and rest[1] == "--format" else ""
    if ".Config.Labels" in fmt:
        print(json_dumps((environment(image) or {}).get("labels")))
        sys.exit(0)
    print(image.split(":")[0] + "@" + digest(image) if "RepoDigests" in fmt else digest("id" + image))
elif sub == "manifest" and rest and rest[0] == "inspect":
    image = rest[-1]
    if image not in read("remote"):
        fail("no such manifest: " + image)
    print(json_dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json"}))
elif sub == "pull":
    image = rest[-1]
    if image not in read("remote"):
        fail("Error response from daemon: manifest unknown: " + image)
    write("images", read("images") + [image])
    print(digest(image))
elif sub == "rmi":
    image = rest[-1]
    if image not in read("images"):
        fail("Error: No such image: " + image)
    write("images", [i for i in read("images") if i != image])
elif sub == "run":
    opts, env, workdir, rest2, mounts = parse_options(
        rest, {"--name", "--gpus", "--device", "-v", "-e", "-w", "--entrypoint"})
    if not rest2:
        fail("\"docker run\" requires at least 1 argument.")
    image, cmd = rest2[0], rest2[1:]
    if image not in read("images"):
        fail("Unable to find image '%s' locally" % image, 125)
    check_mounts(mounts)
    named = dict(o for o in opts if o[1] is not None)
    name = named.get("--name", "anon-%d" % os.getpid())
    root, image_tree = rootfs_of(image), None
    if root:
        if os.path.exists(container_dir(name)):
            fail("docker: Error response from daemon: Conflict. The container name \"/%s\" is "
                 "already in use" % name, 125)
        overlay = ("-d", None) not in opts
        if overlay:
            # One process tree, one mount namespace (exec joins it): the tree is an overlay of
            # the image mounted there, its writes in upper/ (no copy: a third of a call's CPU).
            for d in ("upper", "work", "root"):
                os.makedirs(os.path.join(container_dir(name), d))
            image_tree = root
        else:
            # Kept: each exec sets up its own namespace, so they share a copy of the tree.
            import shutil
            shutil.copytree(root, container_dir(name), symlinks=True)
        with open(container_dir(name) + ".json", "w") as f:
            f.write(json_dumps({"mounts": mounts, "workdir": workdir, "gpus": gpus_of(opts),
                                "overlay": overlay}))
        root = os.path.join(container_dir(name), "root") if overlay else container_dir(name)
    if ("-d", None) in opts:
        add_container(name, image)
        print(sha256_hex(name))
        sys.exit(0)
    probe_fixture(image, cmd)
    if "--entrypoint" in named:  # docker: the entrypoint replaced (empty: none)
        cmd = ([named["--entrypoint"]] if named["--entrypoint"] else []) + cmd
    elif root:
        cmd = entrypoint_of(image) + cmd
    add_container(name, image)
    if gpus_of(opts):
        env = env + ["FAKE_DOCKER_GPUS=" + gpus_of(opts)]
    ready = os.pipe() if image_tree else (None, None)
    pid = start_in_container(name, cmd, env, workdir, root, mounts, image_tree, None, ready[1])
    if image_tree:  # once its tree is in place, `exec` joins the main process's namespace
        os.close(ready[1])
        if os.read(ready[0], 1):
            with open(container_dir(name) + "/pid.tmp", "w") as f:
                f.write(str(pid))
            os.replace(container_dir(name) + "/pid.tmp", container_dir(name) + "/pid")
        os.close(ready[0])

    def proxy(sig, _frame):
        try:
            os.killpg(pid, sig)
        except OSError:
            pass

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, proxy)
    code = wait_status(pid)
    kill_container(name)  # the main process ended: so does the container
    if ("--rm", None) in opts:
        drop_container(name)
        drop_tree(name)
    sys.exit(code)
elif sub == "exec":
    opts, env, workdir, rest2, _ = parse_options(rest, {"-e", "-w"})
    name, cmd = rest2[0], rest2[1:]
    if name not in read("containers"):
        fail("Error response from daemon: No such container: " + name)
    probe_fixture(container_image(name), cmd)
    root, mounts, join = None, [], None
    if os.path.isdir(container_dir(name)):
        root = container_dir(name)
        saved = json_file(root + ".json")
        mounts = saved["mounts"]
        if saved.get("overlay"):  # a `run` container: into its main process's namespace
            root = os.path.join(container_dir(name), "root")
            try:
                with open(container_dir(name) + "/pid") as f:
                    join = int(f.read())
                with open("/proc/%d/environ" % join, "rb") as f:
                    alive = ("FAKE_DOCKER_CONTAINER=" + name).encode() in f.read().split(b"\0")
            except (OSError, ValueError):
                alive = False
            if not alive:
                fail("Error response from daemon: container %s is not running" % name)
        if saved.get("gpus"):  # the container's devices, for every process in it
            env = env + ["FAKE_DOCKER_GPUS=" + saved["gpus"]]
        workdir = workdir or saved["workdir"]
    sys.exit(wait_status(start_in_container(name, cmd, env, workdir, root, mounts, None, join)))
elif sub in ("stop", "rm"):
    name = rest[-1]
    if name not in read("containers"):
        fail("Error response from daemon: No such container: " + name)
    if sub == "stop":
        t = rest[rest.index("-t") + 1] if "-t" in rest else "10"
        kill_container(name, grace=float(t))
    else:
        if "-f" not in rest and container_pids(name):
            fail("Error response from daemon: cannot remove a running container " + name)
        kill_container(name)
        drop_container(name)
        drop_tree(name)
else:
    fail("fake %s: unsupported command %s" % (tool, " ".join(args)))
