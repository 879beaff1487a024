#!/usr/bin/env bash
# A relocatable Open MPI for a machine that has none (the GPU machine): run it here, where
# apt reaches Debian's packages, and carry .mpikit/ there.
#
#   scripts/mpi_kit.sh [--nccl] [KIT]        (KIT: default .mpikit in the repository root)
#   source .mpikit/env.sh                    (PATH, LD_LIBRARY_PATH, OPAL_PREFIX, PKG_CONFIG_PATH,
#                                             the single-node MCA settings)
#   meson setup build -Dmpi=enabled && mpirun -n 2 build/tests/test_dist
#
# What it takes: openmpi-bin, libopenmpi3, openmpi-common, and the closure of their Depends
# (walked below with apt-cache depends, no Recommends) less what a minimal Debian 12 or Ubuntu
# 24.04 base already has (the list `base`: libc, libgcc, libstdc++, zlib, PAM, SELinux, the
# packaging tools), ssh (a single node launches no remote daemon) and hwloc's optional plugins;
# plus the headers and libmpi.so of libopenmpi-dev (no dependencies: mpi.h needs nothing else)
# for building: 22 packages, 27 MB unpacked. Each is fetched with `apt-get download` and
# unpacked with `dpkg -x`; nothing is installed. Run `apt-get update` once before.
# Relocation: Open MPI finds its help files, plugins and wrapper data under OPAL_PREFIX, which
# env.sh sets to the kit's usr (Debian's prefix; OPAL_SYSCONFDIR its etc/openmpi); its pkg-config
# files are rewritten to point into the kit, so meson's dependency('mpi') finds the kit's MPI.
#
# --nccl also unpacks PyPI's nvidia-nccl-cu13 wheel into KIT/nccl (include/, lib/): configure
# with -Dnccl=enabled -Dnccl_home=KIT/nccl (env.sh sets NCCL_HOME when it is there). It is
# large (345 MB unpacked), so it is apart from the kit's 27 MB; where a machine has PyTorch,
# its site-packages/nvidia/nccl serves as well (-Dnccl_home=...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nccl=0
kit=
for a in "$@"; do
    case $a in
        --nccl) nccl=1 ;;
        -h|--help) sed -n 2,25p "$0"; exit 0 ;;
        *) kit=$a ;;
    esac
done
kit=${kit:-$root/.mpikit}
mkdir -p "$kit"
kit=$(cd "$kit" && pwd)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

top="openmpi-bin libopenmpi3 openmpi-common"
# The closure of Depends, walked here (first of each alternative), not into what a minimal
# Debian 12 / Ubuntu 24.04 base has (the C and C++ runtimes, zlib, the packaging tools), not into
# ssh (one node launches no remote daemon) nor hwloc's optional plugins (X11, OpenCL, libxml2
# with ICU's 30 MB: topology detection works without them).
base=" libc6 libgcc-s1 libstdc++6 zlib1g gcc-12-base dpkg tar passwd adduser debconf cdebconf
       debconf-2.0 install-info readline-common libdebian-installer4 libnewt0.52 libslang2
       libtextwrap1 openssh-client ssh-client rsh-client libhwloc-plugins libpam0g libpam-modules
       libpam-modules-bin libsemanage2 libsemanage-common libsepol2 libaudit1 libaudit-common
       libselinux1 libcap-ng0 libacl1 libdb5.3 libcrypt1 libpcre2-8-0 libtinfo6 libreadline8 "
seen=" "
todo=$top
pkgs=
while [ -n "$todo" ]; do
    next=
    for p in $todo; do
        case "$seen$base" in *" $p "*) continue ;; esac
        seen="$seen$p "
        pkgs="$pkgs $p"
        deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
                   --no-replaces --no-enhances "$p" 2>/dev/null |
               awk 'alt { alt = 0; next } /^ *\|?(Pre)?Depends:/ { if ($1 ~ /^\|/) alt = 1; print $2 }' |
               grep -v '^<' || true)
        if [ -z "$deps" ] && ! apt-cache show "$p" >/dev/null 2>&1; then
            echo "mpi_kit: apt-cache knows no $p: run apt-get update first" >&2
            exit 1
        fi
        next="$next $deps"
    done
    todo=$next
done
pkgs="$pkgs libopenmpi-dev"
echo "mpi_kit: downloading$pkgs"
mkdir -p "$work/debs"
(cd "$work/debs" && apt-get download $pkgs 2>/dev/null)
rm -rf "$kit/usr" "$kit/etc" "$kit/lib"
for p in $pkgs; do
    deb=$(ls "$work/debs/${p}"_*.deb | head -1)
    dpkg -x "$deb" "$kit"
done
# Keep what a run or a build reads; drop the documentation and manual pages.
rm -rf "$kit/usr/share/doc" "$kit/usr/share/man" "$kit/usr/share/lintian" "$kit/usr/lib/$triplet/fortran"
lib=$kit/usr/lib/$triplet
ompi=$lib/openmpi
# Debian points some links at /etc or at absolute paths: make the library links relative.
for l in $(find "$kit" -type l); do
    t=$(readlink "$l")
    case $t in
        /usr/*|/lib/*|/etc/*)
            if [ -e "$kit$t" ]; then ln -sfn "$(realpath --relative-to="$(dirname "$l")" "$kit$t")" "$l"; fi ;;
    esac
done
# Debian names the programs through alternatives (mpirun -> mpirun.openmpi): the plain names.
for b in "$kit"/usr/bin/*.openmpi; do
    ln -sfn "$(basename "$b")" "${b%.openmpi}"
done
# pkg-config files pointing into the kit wherever it is (pcfiledir: the .pc file's folder).
mkdir -p "$kit/pkgconfig"
for pc in "$lib"/pkgconfig/ompi*.pc "$ompi"/lib/pkgconfig/ompi*.pc; do
    [ -e "$pc" ] || continue
    sed -e 's#^prefix=.*#prefix=${pcfiledir}/../usr#' "$pc" >"$kit/pkgconfig/$(basename "$pc")"
done
cat >"$kit/env.sh" <<EOF
# Generated by scripts/mpi_kit.sh: the relocated Open MPI of this folder, for one node.
kit=\$(cd "\$(dirname "\${BASH_SOURCE[0]:-\$0}")" && pwd)
export OPAL_PREFIX=\$kit/usr
export OPAL_SYSCONFDIR=\$kit/etc/openmpi
export PATH=\$kit/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$kit/usr/lib/$triplet:\$kit/lib/$triplet:\$kit/usr/lib/$triplet/openmpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH=\$kit/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One node: shared memory and self only, no network interfaces probed, no remote launcher.
export OMPI_MCA_btl=self,vader
export OMPI_MCA_pml=ob1
export OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm=isolated
export OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_oob=tcp
export OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mca_base_component_show_load_errors=0
export PMIX_MCA_gds=hash
export PMIX_MCA_psec=native
if [ -d "\$kit/nccl/lib" ]; then
    export NCCL_HOME=\$kit/nccl
    export LD_LIBRARY_PATH=\$kit/nccl/lib:\$LD_LIBRARY_PATH
fi
EOF
if [ $nccl = 1 ]; then
    venv=$work/venv
    python3 -m venv "$venv"
    "$venv/bin/pip" download --no-deps -q -d "$work/whl" nvidia-nccl-cu13
    rm -rf "$kit/nccl"
    mkdir -p "$work/unz"
    python3 -m zipfile -e "$work"/whl/*.whl "$work/unz"
    mv "$work/unz/nvidia/nccl" "$kit/nccl"
    # The wheel ships libnccl.so.2 only: the link-time name next to it.
    [ -e "$kit/nccl/lib/libnccl.so" ] || ln -s libnccl.so.2 "$kit/nccl/lib/libnccl.so"
fi
echo "mpi_kit: $(du -sh --exclude=nccl "$kit" | cut -f1) in $kit (NCCL: $(du -sh "$kit/nccl" 2>/dev/null | cut -f1 || echo none))"
echo "mpi_kit: source $kit/env.sh"
