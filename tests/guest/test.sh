#!/usr/bin/env bash
# cgroup2-guest: the sandbox suite on a cgroup v2-only host, compared with this host's.
# Boots Debian's own kernel (linux-image-amd64) in QEMU with software emulation and
# cgroup_no_v1=all; the guest's root is this host's root filesystem (9p, read-only) under an
# overlay with a tmpfs on top, so nothing is installed in it but what the project's own
# scripts install (tests/guest/guest.sh). Then the verdict cases, case by case: the guest's
# must equal the host's. Needs root. README.md beside this file.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/guest
OUT=${GUEST_OUT:-${PRUTOR_VAR:-$ROOT/var}/guest}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-600}   # seconds the guest may run
GUEST_MEMORY_MB=${GUEST_MEMORY_MB:-2048}
GUEST_CPUS=${GUEST_CPUS:-2}
t0=$SECONDS
[ "$(id -u)" = 0 ] || { echo "tests/guest/test.sh: run as root" >&2; exit 2; }

# 1. QEMU, Debian's kernel, a static busybox (about a minute on a clean machine)
need=()
for p in qemu-system-x86 linux-image-amd64 busybox-static cpio; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || { echo "FAIL apt-get install ${need[*]}"; exit 1; }
fi
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -1)
kver=${kernel#/boot/vmlinuz-}
[ -n "$kernel" ] && [ -d "/lib/modules/$kver" ] || { echo "FAIL no Debian kernel with modules in /boot and /lib/modules"; exit 1; }
echo "packages ready ($((SECONDS - t0)) s); guest kernel $kver"

# 2. the host's side: the sandbox suite here, keeping its compiled test programs for the guest
rm -rf "$OUT"
mkdir -p "$OUT/programs"
t=$SECONDS
SANDBOX_VERDICTS=$OUT/host.verdicts SANDBOX_TEST_PROGRAMS=$OUT/programs bash "$ROOT/sandbox/test.sh" > "$OUT/host.log" 2>&1
host_rc=$?
echo "host: sandbox/test.sh $(tail -1 "$OUT/host.log") ($((SECONDS - t)) s)"

# 3. the initramfs: busybox, the modules for 9p and overlay (in dependency order), /init
ird=$OUT/initramfs
mkdir -p "$ird/bin" "$ird/modules" "$ird/proc" "$ird/sys" "$ird/dev"
cp /bin/busybox "$ird/bin/busybox"
cp "$HERE/init" "$ird/init"
for m in virtio_pci 9pnet_virtio 9p overlay; do modprobe -S "$kver" --show-depends "$m"; done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
  while read -r ko; do
    cp "$ko" "$ird/modules/"
    basename "$ko" >> "$ird/modules/order"
  done
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/initramfs.gz"

# 4. the guest (software emulation always: /dev/kvm may be absent in CI, and KVM guests hung here;
#    the plain qemu64 CPU: no vector extensions to emulate, sandbox/install.sh built in 48 s
#    against 63 s with -cpu max, one run each under a busy host)
echo "booting the guest (tcg, $GUEST_CPUS CPUs, $GUEST_MEMORY_MB MB)"
t=$SECONDS
timeout -k 5 "$GUEST_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64 -smp "$GUEST_CPUS" -m "$GUEST_MEMORY_MB" \
  -nographic -no-reboot -monitor none -serial stdio -nic none \
  -kernel "$kernel" -initrd "$OUT/initramfs.gz" \
  -append "console=ttyS0 quiet panic=-1 cgroup_no_v1=all prutor.script=$HERE/guest.sh prutor.out=$OUT" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
  </dev/null > "$OUT/console.log" 2>&1
qemu_rc=$?
grep '^guest' "$OUT/console.log"
echo "guest: ran $((SECONDS - t)) s (qemu exit $qemu_rc)"

# 5. verdicts, case by case
failed=0
[ "$host_rc" = 0 ] || { echo "FAIL the sandbox suite on this host:"; grep '^FAIL' "$OUT/host.log"; failed=1; }
if [ "$(cat "$OUT/guest.rc" 2>/dev/null)" != 0 ]; then
  echo "FAIL the sandbox suite in the v2 guest:"; grep '^FAIL' "$OUT/guest.log" 2>/dev/null || tail -20 "$OUT/console.log"
  failed=1
fi
fields() { grep -o 'status=[a-z_]*\|signal=[0-9]*\|oom=[0-9]*\|peak_kb=[-0-9]*\|cgroups=[a-z0-9]*' <<<"$1" | cut -d= -f2 | paste -sd/; }
printf '%-9s %-18s %-18s %-34s %s\n' case host guest "host: status/signal/oom/peak_kb/cgroups" guest
while read -r name hv hrest; do
  gline=$(grep "^$name " "$OUT/guest.verdicts" 2>/dev/null)
  gv=$(cut -d' ' -f2 <<<"$gline")
  mark=
  [ "$gv" = "$hv" ] || { mark="  <-- DIFFERS"; failed=1; }
  printf '%-9s %-18s %-18s %-34s %s%s\n' "$name" "$hv" "${gv:-(none)}" "$(fields "$hrest")" "$(fields "$gline")" "$mark"
done < "$OUT/host.verdicts"
[ -s "$OUT/host.verdicts" ] || { echo "FAIL no verdicts from this host"; failed=1; }
grep -q 'cgroups=v2' "$OUT/guest.verdicts" 2>/dev/null && ! grep -vq 'cgroups=v2' "$OUT/guest.verdicts" ||
  { echo "FAIL the guest's steps did not all run with cgroup v2"; failed=1; }
echo "cgroup2-guest: $((SECONDS - t0)) s in all; $([ "$failed" = 0 ] && echo "verdicts equal, case by case" || echo FAILED)"
exit "$failed"
