# Sourced by the stand-in build-jax.sh scripts: "compiles" a JAX and an XLA source tree.
# Nothing is compiled; the result records exactly which trees were built (HEAD of each and a hash
# of any change on top, e.g. a cherry-picked fix) and the speed the benchmark will report, read
# from the sources (xla/speed.txt times jax/factor.txt). Like a real toolchain, the image's
# toolchain level (share/toolchain) refuses XLA trees written for an older one (xla/build/toolchain).
# Like bazel, a build leaves its output base under $HOME/.cache/bazel (`bazel clean --expunge`
# removes it) and JAX's configuration in .jax_configure.bazelrc of the JAX tree.
standin=/usr/local/share/perfsweep-standin
site=/usr/local/lib/perfsweep-standin/site

standin_tree() { # DIR -> "SHA" or "SHA+DIFFHASH"
    local sha diff
    sha=$(git -c "safe.directory=*" -C "$1" rev-parse HEAD) || return 1
    diff=$(git -c "safe.directory=*" -C "$1" diff HEAD -- . ':(exclude)build/requirements.in')
    if [ -n "$diff" ]; then
        echo "$sha+$(printf %s "$diff" | sha1sum | cut -c1-8)"
    else
        echo "$sha"
    fi
}

# standin_compile JAX_DIR XLA_DIR CACHE OUT_FILE: CACHE is a --disk_cache directory, a remote
# cache URL (http://, grpc://: not emulated) or "" (none).
standin_compile() {
    local jax=$1 xla=$2 cache=$3 out=$4 tc need tree key speed
    for d in "$jax" "$xla"; do
        [ -d "$d/.git" ] || { echo "ERROR: no source tree at $d" >&2; return 1; }
    done
    tc=$(cat "$standin/toolchain")
    need=$(cat "$xla/build/toolchain" 2>/dev/null || echo 1)
    if [ "$need" -lt "$tc" ]; then
        echo "ERROR: external/xla: this XLA tree (build/toolchain $need) does not compile with the" \
             "image's toolchain $tc: error: no member named 'legacy_layout' in 'xla::Shape'" >&2
        return 1
    fi
    tree="jax=$(standin_tree "$jax") xla=$(standin_tree "$xla")" || return 1
    speed=$(awk -v a="$(cat "$xla/speed.txt")" -v b="$(cat "$jax/factor.txt")" \
        'BEGIN { printf "%.4f", a * b }') || return 1
    key=$(printf %s "$tree" | sha1sum | cut -c1-16)
    case $cache in
        "" | http://* | grpc://*) ;;
        *)
            mkdir -p "$cache/standin"
            if [ -e "$cache/standin/$key" ]; then
                echo "INFO: bazel cache hit for $key ($cache)"
            else
                echo "INFO: bazel cache miss for $key ($cache)"
                echo "$tree" > "$cache/standin/$key"
            fi
            ;;
    esac
    mkdir -p "$HOME/.cache/bazel/_bazel_root/standin"
    echo "$tree" > "$HOME/.cache/bazel/_bazel_root/standin/last-build"
    echo "build --action_env=PYTHON_BIN_PATH=/usr/bin/python3" > "$jax/.jax_configure.bazelrc"
    echo "built: $tree speed=$speed toolchain=$tc"
    mkdir -p "$(dirname "$out")"
    echo "$tree speed=$speed toolchain=$tc" > "$out"
}

# standin_install BUILD_INFO_FILE: what `pip install` of a wheel makes importable (a copy).
standin_install() {
    mkdir -p "$site" && rm -f "$site/jaxlib.info" && cp "$1" "$site/jaxlib.info"
}

# standin_install_editable BUILD_INFO_FILE: what `pip install -e` of the package directory makes
# importable (today's build-jax.sh): the directory itself, so whatever it holds later is what the
# benchmark imports.
standin_install_editable() {
    mkdir -p "$site" && ln -sfn "$1" "$site/jaxlib.info"
}
