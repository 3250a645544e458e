#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine (as root) and starts
# a virtual X server for the GL fabric when no display is set. Source it:
#   . scripts/setup.sh
# Packages: a C compiler for cgo (without one Go builds no GL fabric), Xvfb
# and Mesa (llvmpipe) for GL 4.3+, the X11/GL -dev headers that go-gl/glfw
# compiles against, EGL (headers, Mesa's EGL) for the headless -tags egl
# build, and qemu-user-static to run the CPU fabric built for arm64, riscv64
# and s390x (big-endian), and xwd (x11-apps) and xdotool, with which the
# viewer's tests screenshot its window and press its keys, and zstd, the
# stock decoder carriage/dcz's tests hold every coded body to, and
# glslang-tools and spirv-tools, with which gpu's TestOpCountTable counts
# the operations per MAC of each shader variant from SPIR-V.
. "$(dirname "${BASH_SOURCE[0]}")/install.sh"
install_missing setup gcc libc6-dev xvfb xauth libgl1-mesa-dri libgl-dev libx11-dev libxcursor-dev \
  libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev libglx-mesa0 mesa-utils libegl-dev \
  libegl-mesa0 qemu-user-static x11-apps xdotool zstd glslang-tools spirv-tools || true
if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null 2>&1; then
  # -displayfd: Xvfb picks a free display and writes its number once ready.
  dfile=$(mktemp)
  Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$dfile" >/dev/null 2>&1 &
  export WAIOPS_XVFB_PID=$!
  for _ in $(seq 100); do [ -s "$dfile" ] && break; sleep 0.1; done
  if [ -s "$dfile" ]; then export DISPLAY=":$(head -n1 "$dfile")"; fi
  rm -f "$dfile"
fi
