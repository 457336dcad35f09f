#!/usr/bin/env bash
# Builds the Dockerfile and serves from the image (API-CONTRACT "What one instance needs").
#
# - podman (Debian's package) is installed with apt-get when missing.
# - The base image is $BUN_IMAGE (default oven/bun:1.4). When it is neither present nor
#   pullable (no image registry is reachable on the CI machine), a stand-in is made from
#   Debian packages (libc6, busybox-static) and the npm Bun binary, imported with `podman import`.
# - `podman build --isolation=chroot`, then the image's filesystem is run: container runtimes
#   cannot start here (cgroups v1 hybrid), so its CMD runs with `chroot --userspec` under the
#   image's USER, ENV and WORKDIR, in a private mount namespace (proc and dev mounted there).
# - /status/health, /login and /docs-ui.html must answer 200, from a process of a non-root uid.
# Exit status: 0 served; 1 failed. Everything it made is removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.bun/bin:/usr/local/bin:$PATH"

BUN_IMAGE=${BUN_IMAGE:-oven/bun:1.4}
STANDIN=localhost/cls-bun-standin:1.4
TAG=localhost/course-learning-service:ci-$$
work=$(mktemp -d /tmp/cls-container-XXXXXX)
pid=""
ctr=""

log() { printf '\n== container: %s\n' "$*"; }
# Every process under $1 (unshare -> chroot -> sh -> bun), deepest last.
tree() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; tree "$c"; done; }
cleanup() {
  set +e
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # unshare ignores SIGTERM while it waits, and chroot --userspec clears the child's
    # parent-death signal: stop the service itself, by its pid, then what is left.
    local procs; procs=$(tree "$pid")
    [ -n "$procs" ] && kill -TERM $procs 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    procs=$(tree "$pid")
    [ -n "$procs" ] && kill -KILL $procs 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  [ -n "$ctr" ] && podman rm -f "$ctr" >/dev/null 2>&1
  podman rmi -f "$TAG" >/dev/null 2>&1
  [ "${KEEP_STANDIN:-}" = 1 ] || podman rmi -f "$STANDIN" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  for attempt in 1 2 3; do
    if apt-get update -qq && apt-get install -y -qq "$@" >/dev/null; then return 0; fi
    echo "apt-get failed (attempt $attempt); retrying" >&2
    sleep $((attempt * 5))
  done
  return 1
}

if ! command -v podman >/dev/null 2>&1; then
  log "installing podman"
  apt_install podman
fi

# A base image with Bun at /usr/local/bin/bun and an unprivileged `bun` user (uid 1000),
# like oven/bun's, from Debian packages: libc6 (Bun's only shared libraries) and
# busybox-static (the shell and tools the Dockerfile's RUN lines use).
make_standin() {
  local root="$work/standin" debs="$work/debs" bun_bin
  bun_bin=$(readlink -f "$(command -v bun)")
  mkdir -p "$root"/{bin,usr/local/bin,etc,tmp,home/bun,proc,dev,sys} "$debs"
  (cd "$debs" && apt-get download libc6 busybox-static >/dev/null 2>&1) || { apt-get update -qq && (cd "$debs" && apt-get download libc6 busybox-static >/dev/null); }
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$root"; done
  # Debian's merged /usr: /lib64 and /lib are where the loader and libraries are looked for.
  for l in lib lib64 sbin; do [ -e "$root/$l" ] || [ ! -d "$root/usr/$l" ] || ln -s "usr/$l" "$root/$l"; done
  [ -e "$root/bin/busybox" ] || ln -s ../usr/bin/busybox "$root/bin/busybox" 2>/dev/null || true
  local bb="$root/bin/busybox"; [ -x "$bb" ] || bb="$root/usr/bin/busybox"
  for applet in $("$bb" --list); do [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"; done
  [ -e "$root/bin/busybox" ] || cp "$bb" "$root/bin/busybox"
  cp "$bun_bin" "$root/usr/local/bin/bun"
  ln -sf bun "$root/usr/local/bin/bunx"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nbun:x:1000:1000::/home/bun:/bin/sh\n' >"$root/etc/passwd"
  printf 'root:x:0:\nbun:x:1000:\n' >"$root/etc/group"
  # This machine's trust: its egress may re-sign TLS with a CA of its own (NODE_EXTRA_CA_CERTS),
  # which `bun install` in the build must accept too.
  local ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt} ca_env=()
  if [ -f "$ca" ]; then
    install -D -m 644 "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
    ca_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
  fi
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  chown -R 1000:1000 "$root/home/bun"
  tar -C "$root" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/usr/local/bin/bun"]' "${ca_env[@]}" - "$STANDIN" >/dev/null
}

base="$BUN_IMAGE"
if [ "${KEEP_STANDIN:-}" = 1 ] && ! podman image exists "$BUN_IMAGE" && podman image exists "$STANDIN"; then
  base="$STANDIN"
elif ! podman image exists "$BUN_IMAGE" && ! timeout 60 podman pull -q "$BUN_IMAGE" >/dev/null 2>&1; then
  log "$BUN_IMAGE is not reachable: building a stand-in base from Debian packages and the npm Bun binary"
  make_standin
  base="$STANDIN"
fi

log "podman build (base $base)"
started=$(date +%s)
podman build -q --format docker --layers=false --isolation=chroot --build-arg "BUN_IMAGE=$base" -t "$TAG" . >/dev/null
size=$(podman image inspect --format '{{.Size}}' "$TAG")
echo "built in $(( $(date +%s) - started )) s; image size $(( size / 1000000 )) MB"

# The image's runtime configuration, as a container runtime would apply it.
user=$(podman image inspect --format '{{.Config.User}}' "$TAG")
workdir=$(podman image inspect --format '{{.Config.WorkingDir}}' "$TAG")
mapfile -t envs < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$TAG" | sed '/^$/d')
mapfile -t cmd < <(podman image inspect --format '{{range .Config.Cmd}}{{println .}}{{end}}' "$TAG" | sed '/^$/d')
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || { echo "the image runs as root (USER '$user')" >&2; exit 1; }

root="$work/rootfs"
mkdir -p "$root"
ctr=$(podman create "$TAG" 2>/dev/null)
podman export "$ctr" | tar -C "$root" -x
podman rm "$ctr" >/dev/null 2>&1; ctr=""
uid=$(chroot "$root" /bin/sh -c "id -u $user" 2>/dev/null || awk -F: -v u="$user" '$1==u{print $3}' "$root/etc/passwd")
gid=$(chroot "$root" /bin/sh -c "id -g $user" 2>/dev/null || awk -F: -v u="$user" '$1==u{print $4}' "$root/etc/passwd")

port=$(bun -e "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() }); console.log(s.port); s.stop(true)")
url="http://127.0.0.1:$port"
log "running ${cmd[*]} as $user ($uid:$gid) in $workdir on port $port"
quoted_cmd=$(printf '%q ' "${cmd[@]}")
home=$(awk -F: -v u="$uid" '$3==u{print $6}' "$root/etc/passwd")
quoted_env=$(printf '%q ' "HOME=${home:-/}" "${envs[@]}" "PORT=$port" "HOST=127.0.0.1")
unshare --mount --fork sh -c "
  mount --make-rprivate / &&
  mount -t proc proc '$root/proc' &&
  mount --bind /dev '$root/dev' &&
  exec chroot --userspec=$uid:$gid '$root' env -i $quoted_env /bin/sh -c 'cd $workdir && exec $quoted_cmd'
" >"$work/out.log" 2>&1 &
pid=$!

deadline=$(( $(date +%s) + 120 ))
until curl -fsS -o /dev/null "$url/status/health" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "the service exited:" >&2; cat "$work/out.log" >&2; exit 1; fi
  if [ "$(date +%s)" -gt "$deadline" ]; then echo "not healthy within 120 s:" >&2; cat "$work/out.log" >&2; exit 1; fi
  sleep 0.5
done
status=0
for path in /status/health /login /docs-ui.html; do
  code=$(curl -sS -o /dev/null -w '%{http_code}' "$url$path" || echo 000)
  echo "GET $path -> $code"
  [ "$code" = 200 ] || status=1
done
# The listening process's real uid: the image's user, not root.
server_pid=$(ss -Hltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2)
server_uid=$(awk '/^Uid:/{print $2}' "/proc/$server_pid/status")
peak=$(awk '/^VmHWM:/{print $2}' "/proc/$server_pid/status")
echo "serving process uid $server_uid, peak RSS $(( peak / 1024 )) MB"
[ "$server_uid" = "$uid" ] && [ "$server_uid" != 0 ] || status=1
[ "$status" = 0 ] || { echo "container check failed; service output:" >&2; cat "$work/out.log" >&2; }
exit $status
