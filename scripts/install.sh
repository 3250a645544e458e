# install_missing WHO PKG...: installs the Debian packages of PKG... that
# are not installed, when run as root; otherwise names them on stderr as
# "WHO: missing packages (install as root): ..." and returns 1. Source it.
# It leaves the packages still not installed in the global variable missing
# (empty when none), which scripts/conform.sh reads to say what to install.
install_missing() {
  local who=$1 p
  missing=""
  shift
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  [ -n "$missing" ] || return 0
  if [ "$(id -u)" != 0 ]; then
    echo "$who: missing packages (install as root):$missing" >&2
    return 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  # shellcheck disable=SC2086 # one word a package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  missing=""
}
