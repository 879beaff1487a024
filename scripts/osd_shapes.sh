#!/usr/bin/env bash
# Subdivides OpenSubdiv's regression shapes with meshmatrix and with the reference (OpenSubdiv
# for Loop, Catmull-Clark and bilinear) through oracle_check, and tallies the results by group.
#
#   scripts/osd_shapes.sh [--backend host|cuda] [--levels 2] DIR
#
# DIR/catmark_*.obj run as catmull-clark, DIR/loop_*.obj as loop, DIR/bilinear_*.obj as
# bilinear (the shapes are in
# ../shared/meshes/opensubdiv of the project's workspace). oracle_check is taken from the build
# folder $BUILD (default: build) as $BUILD/tests/oracle_check.
# Groups: "non-manifold" (the name has "nonman", or meshmatrix refused with MMX_ERR_MESH about
# manifoldness), else "tagged" (the file has 't' lines: creases, corners, holes, Chaikin,
# boundary modes), else "untagged". Both sides honour the tags (OpenSubdiv through
# oracle_osd_refine_tagged; hierarchical edits are refused: ORACLE_REFUSED), and texture
# coordinates are compared where the shape has them. Each tagged shape is run a second time
# with --ignore-tags (both sides smooth everywhere, edge-only boundaries): that table tells a
# wrong smooth result from a wrong sharp feature.
# Prints one line per shape (tagged shapes a second one, group "tagged,ign"), then a table per
# group, then the --ignore-tags table. Exit status 0 when every untagged shape agrees, 1
# otherwise, 2 for usage errors.
set -uo pipefail

usage() {
    echo "usage: $0 [--backend host|cuda] [--levels N] DIR" >&2
    exit 2
}

backend=host
levels=2
dir=
while [ $# -gt 0 ]; do
    case "$1" in
    --backend) [ $# -ge 2 ] || usage; backend=$2; shift 2 ;;
    --levels) [ $# -ge 2 ] || usage; levels=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) [ -z "$dir" ] || usage; dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || usage
[ -d "$dir" ] || { echo "$0: $dir is not a folder" >&2; exit 2; }
case "$backend" in host | cuda) ;; *) usage ;; esac
case "$levels" in '' | *[!0-9]*) usage ;; esac

build=${BUILD:-build}
check=$build/tests/oracle_check
[ -x "$check" ] || {
    echo "$0: $check not found (build first; set BUILD to the build folder)" >&2
    exit 2
}

groups=(untagged tagged non-manifold)
results=(AGREE DIFFER MMX_REFUSED ORACLE_REFUSED ERROR)
declare -A count
for g in "${groups[@]}" "tagged,ign"; do
    count[$g,all]=0
    for r in "${results[@]}"; do count[$g,$r]=0; done
done

# run SCHEME FILE [OPTION...]: sets line (oracle_check's result line) and result (its first word).
run() {
    local scheme=$1 f=$2
    shift 2
    line=$("$check" --backend "$backend" --scheme "$scheme" --levels "$levels" "$@" "$f" \
        2>/dev/null | head -n 1)
    [ -n "$line" ] || line="ERROR oracle_check printed nothing (crashed?)"
    result=${line%% *}
    case " ${results[*]} " in *" $result "*) ;; *) result=ERROR ;; esac
}

# table TITLE GROUP...: the counts of each group.
table() {
    echo
    printf '%-13s %6s %6s %6s %12s %15s %6s\n' "$1" count AGREE DIFFER MMX_REFUSED \
        ORACLE_REFUSED ERROR
    shift
    local g
    for g in "$@"; do
        printf '%-13s %6d %6d %6d %12d %15d %6d\n' "$g" "${count[$g,all]}" "${count[$g,AGREE]}" \
            "${count[$g,DIFFER]}" "${count[$g,MMX_REFUSED]}" "${count[$g,ORACLE_REFUSED]}" \
            "${count[$g,ERROR]}"
    done
}

start=$(date +%s.%N)
shopt -s nullglob
n=0
for f in "$dir"/catmark_*.obj "$dir"/loop_*.obj "$dir"/bilinear_*.obj; do
    name=$(basename "$f" .obj)
    case "$name" in catmark_*) scheme=catmull-clark ;; bilinear_*) scheme=bilinear ;; *) scheme=loop ;; esac
    run "$scheme" "$f"
    if [[ $name == *nonman* ]] ||
        { [[ $result == MMX_REFUSED ]] && [[ $line == *MMX_ERR_MESH* ]] &&
            grep -qiE 'manifold|fans' <<<"$line"; }; then
        group=non-manifold
    elif grep -q '^t ' "$f"; then
        group=tagged
    else
        group=untagged
    fi
    count[$group,all]=$((count[$group,all] + 1))
    count[$group,$result]=$((count[$group,$result] + 1))
    n=$((n + 1))
    printf '%-13s %-32s %s\n' "$group" "$name" "$line"
    if [ "$group" = tagged ]; then
        run "$scheme" "$f" --ignore-tags
        count[tagged,ign,all]=$((count[tagged,ign,all] + 1))
        count[tagged,ign,$result]=$((count[tagged,ign,$result] + 1))
        printf '%-13s %-32s %s\n' "tagged,ign" "$name" "$line"
    fi
done
end=$(date +%s.%N)

table group "${groups[@]}"
table "ignore-tags" "tagged,ign"
echo "(tagged shapes again with both sides ignoring the tags)"
awk -v n="$n" -v l="$levels" -v b="$backend" -v s="$start" -v e="$end" \
    'BEGIN { printf "%d shapes, %d levels, backend %s, %.1f s\n", n, l, b, e - s }'

[ $n -gt 0 ] && [ "${count[untagged,AGREE]}" -eq "${count[untagged,all]}" ]
