#!/usr/bin/env bash
# Runs a static linux/amd64 Go test binary on an emulated Ice Lake CPU
# (AVX-512 F, BW, VL, VNNI) under bochs, for hosts without AVX-512:
#
#   CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -o /tmp/dot.test ./cpuref/dot
#   bash scripts/bochs-avx512.sh /tmp/dot.test -test.v -test.run 'AVX512'
#
# It boots Debian's kernel from a small ISO (isolinux) with an initramfs
# holding scripts/bochs-init as /init, the binary as /test and its arguments
# (one per line, so none may hold a newline). The guest's serial console is
# streamed to stdout; the script exits with the binary's status once the init
# prints "bochs-exit <status>", or 124 after BOCHS_TIMEOUT seconds (default
# 900). The binary runs in / with a tmpfs at /tmp, so tests that read
# testdata/ will not find it.
#
# Environment:
#   BOCHS_TIMEOUT    seconds before giving up (default 900)
#   BOCHS_CPU        bochs CPU model (default corei7_icelake_u)
#   BOCHS_MEGS       guest memory in MiB (default 1024)
#   BOCHS_GUEST_ENV  space-separated NAME=VALUE pairs for the binary (e.g. GOGC=off)
#   BOCHS_KOPTS      more kernel options (a clearcpuid= here replaces the one
#                    below: Linux 6.1 reads only one)
#   BOCHS_VERBOSE=1  show the kernel's boot messages and keep the work dir
#   BOCHS_CACHE      cache of the kernel (default ${XDG_CACHE_HOME:-$HOME/.cache}/waiops-bochs)
#
# Needs Debian's bochs, bochsbios, vgabios, isolinux, syslinux-common,
# genisoimage and cpio (installed here when run as root), Go to build the
# init, and apt access once, to fetch the kernel package into the cache.
#
# Boot to the test takes about 4 to 5 minutes here (bochs runs some tens of
# millions of guest instructions a second); a test runs roughly a hundred
# times slower than on the host, so keep the run's cases to what the kernels
# need. corei7_skylake_x (AVX-512 F/BW/VL, no VNNI) boots too.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 TESTBINARY [ARGS...]" >&2
  exit 2
fi
bin=$1
shift
if [ ! -f "$bin" ]; then
  echo "bochs-avx512: no such file: $bin" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${BOCHS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/waiops-bochs}
timeout=${BOCHS_TIMEOUT:-900}
cpumodel=${BOCHS_CPU:-corei7_icelake_u}
megs=${BOCHS_MEGS:-1024}
verbose=${BOCHS_VERBOSE:-0}

. "$repo/scripts/install.sh"
install_missing bochs-avx512 bochs bochsbios vgabios isolinux syslinux-common genisoimage cpio || exit 2

# The kernel: Debian's current linux-image-amd64, only its vmlinuz (the
# drivers we need, 8250 serial and initramfs, are built in).
mkdir -p "$cache"
if [ ! -s "$cache/vmlinuz" ]; then
  kpkg=$(apt-cache depends linux-image-amd64 | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
  if [ -z "$kpkg" ]; then
    echo "bochs-avx512: apt-cache knows no linux-image-amd64 (run apt-get update)" >&2
    exit 2
  fi
  dl=$(mktemp -d "$cache/dl.XXXXXX")
  (cd "$dl" && apt-get download -qq "$kpkg" 2>/dev/null)
  dpkg-deb --fsys-tarfile "$dl"/*.deb | tar -x -C "$dl" --wildcards './boot/vmlinuz-*'
  mv "$dl"/boot/vmlinuz-* "$cache/vmlinuz.tmp"
  mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
  echo "$kpkg" >"$cache/vmlinuz.pkg"
  rm -rf "$dl"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bochs-avx512.XXXXXX")
bpid=""
cleanup() {
  if [ -n "$bpid" ]; then kill "$bpid" 2>/dev/null || true; fi
  if [ "$verbose" = 1 ]; then echo "bochs-avx512: work dir kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The initramfs: /init, /test, /args, /env; uncompressed cpio, since the
# emulated CPU would spend longer inflating it than the BIOS spends reading.
mkdir -p "$work/root" "$work/iso/isolinux"
(cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags=-s -o "$work/root/init" ./scripts/bochs-init)
cp "$bin" "$work/root/test"
chmod 755 "$work/root/test"
: >"$work/root/args"
for a in "$@"; do printf '%s\n' "$a" >>"$work/root/args"; done
: >"$work/root/env"
for kv in ${BOCHS_GUEST_ENV:-}; do printf '%s\n' "$kv" >>"$work/root/env"; done
(cd "$work/root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$work/iso/initrd"

# Boot options: quiet unless verbose; no KASLR or mitigations, one CPU, and no
# PCI scan (the serial port is a legacy ISA device). bochs 2.7's Ice Lake
# reports CPUID 0xD wrongly for PKRU (offset 0) and gives the standard size as
# the compacted one, so Linux would turn XSAVE off; clearing pku (515), xsaves
# (323) and xsavec (321) leaves x87/SSE/AVX/opmask/ZMM (XCR0 0xe7) in the
# standard format, which checks out. With FSRM (580) the kernel's memcpy is a
# bare rep movsb, which bochs's Ice Lake gets wrong somewhere early in boot:
# the boot stalls in a loop of nested faults after "Mountpoint-cache hash
# table entries" (seen under bochs's debugger), and clearing it boots to
# /init. rdpid (534) is cleared too, from the same hunt (not shown needed).
kopts="console=ttyS0,115200 mitigations=off nokaslr nosmp pci=off tsc=reliable clearcpuid=515,323,321,534,580 lsm=capability idle=halt lapic=notscdeadline nohz=off"
kopts="$kopts ${BOCHS_KOPTS:-}"
if [ "$verbose" = 1 ]; then kopts="$kopts loglevel=7"; else kopts="$kopts quiet loglevel=0"; fi
cp "$cache/vmlinuz" "$work/iso/vmlinuz"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$work/iso/isolinux/"
cat >"$work/iso/isolinux/isolinux.cfg" <<EOF
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  APPEND initrd=/initrd $kopts
EOF
genisoimage -quiet -o "$work/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
  -no-emul-boot -boot-load-size 4 -boot-info-table -J -R "$work/iso"

# ips is bochs's emulated instructions per guest second, set near what it
# manages here so the guest clock roughly follows the wall clock.
cat >"$work/bochsrc" <<EOF
config_interface: textconfig
display_library: rfb, options="timeout=0"
memory: guest=$megs, host=$megs
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
cpu: model=$cpumodel, count=1, ips=${BOCHS_IPS:-50000000}, reset_on_triple_fault=0
ata0-master: type=cdrom, path=$work/boot.iso, status=inserted
boot: cdrom
speaker: enabled=0
sound: driver=dummy
com1: enabled=1, mode=file, dev=$work/serial.out
clock: sync=none, time0=local
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
: >"$work/serial.out"

start=$SECONDS
printf 'c\n' >"$work/dbgcmds"
bochs -q -f "$work/bochsrc" -rc "$work/dbgcmds" </dev/null >"$work/bochs.out" 2>&1 &
bpid=$!

# Stream the serial file line by line until the marker, bochs's end or the
# timeout; read -t returns a partial line on timeout, kept in pending.
rc=""
pending=""
while :; do
  if IFS= read -r -t 1 line; then
    line=${pending}${line}
    pending=""
    line=${line%$'\r'}
    # The kernel's own messages may interleave with the init's on the
    # console, so the marker is looked for anywhere in a line.
    if [[ $line =~ bochs-exit\ ([0-9]+) ]]; then
      rc=${BASH_REMATCH[1]}
      break
    fi
    printf '%s\n' "$line"
  else
    st=$?
    if [ $st -gt 128 ]; then
      pending=${pending}${line}
    fi
    if [ $((SECONDS - start)) -ge "$timeout" ]; then
      echo "bochs-avx512: timed out after ${timeout}s" >&2
      rc=124
      break
    fi
    if ! kill -0 "$bpid" 2>/dev/null; then
      [ -z "$pending" ] || printf '%s\n' "$pending"
      echo "bochs-avx512: bochs ended without the exit marker; its last words:" >&2
      tail -n 20 "$work/bochs.out" "$work/bochs.log" >&2 || true
      rc=125
      break
    fi
  fi
done < <(tail -n +1 -F --pid="$bpid" "$work/serial.out" 2>/dev/null)
echo "bochs-avx512: exit status $rc after $((SECONDS - start))s of bochs" >&2
exit "$rc"
