#!/usr/bin/env bash
# Installs the peers `waiops bench --peers` runs beside ours (as root, on
# Debian): gcc for the C loop and the oneDNN peer, libdnnl-dev (oneDNN 2.6)
# for `onednn`, Node.js and npm, and onnxruntime-node into bench/peers/
# for `ort`, `ort-qlinear` and `ort-float`. Nothing in the tests or in
# `bench --quick` needs them: a peer not installed is skipped with a note.
#   scripts/peers.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/install.sh"
install_missing peers gcc libc6-dev libdnnl-dev nodejs
# Debian's nodejs comes without npm; NodeSource's, as on this machine, with.
command -v npm >/dev/null || install_missing peers npm
# The package's install script would fetch more from a host this machine
# cannot reach; its CPU library ships inside the package without it.
cd "$root/bench/peers"
[ -d node_modules/onnxruntime-node ] || npm install --ignore-scripts --no-save onnxruntime-node@1.30.0 >&2
