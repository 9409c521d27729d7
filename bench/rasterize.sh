#!/bin/sh
# rasterize: seconds per 512x512 picture of a 128^3 smoke volume (ray
# marching with single scattering) and of a 128^3 level set (ray-marched
# zero level set), best of 3 runs.  Wall time on all the threads OpenMP is
# given, and CPU time (user + system): on a shared machine the CPU time is
# the steadier figure.
cd "$(dirname "$0")/.." || exit 2
g=build/tests/gen_render
d=bench/out/rasterize
mkdir -p "$d"
[ -x "$g" ] && [ -x bin/rasterize ] || { echo "build first: make"; exit 1; }
$g smoke "$d/smoke.slc" 128 || exit 1
$g sphere "$d/phi.slc" 128 || exit 1
best() {   # "wall cpu", best of 3, for: rasterize ARGS...
	b=
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$d/time" bin/rasterize "$@" || exit 1
		b=$(awk -v b="$b" '{w=$1; c=$2+$3; split(b, o, " ");
			if (b == "" || w < o[1]) o[1] = w; if (b == "" || c < o[2]) o[2] = c;
			print o[1], o[2]}' "$d/time")
	done
	echo "$b"
}
row() {   # NAME ARGS...
	name=$1
	shift
	set -- $(best "$@")
	printf '%-22s %8s %10s %8s %10.2f %10.2f\n' "$name" 128^3 512x512 "$th" "$1" "$2"
}
th=${OMP_NUM_THREADS:-$(nproc)}
printf '%-22s %8s %10s %8s %10s %10s\n' picture grid size threads "wall s" "cpu s"
row "smoke volume" --size 512x512 -o "$d/smoke.png" "$d/smoke.slc"
row "level set surface" --size 512x512 -o "$d/phi.png" "$d/phi.slc"
row "two level set slices" --size 512x512 --slice x=50% --slice z=50% -o "$d/slice.png" "$d/phi.slc"
rm -f "$d"/*.slc "$d/time"
echo "(per image, including reading the 8 MiB stream; load average now: $(cut -d' ' -f1 /proc/loadavg); pictures in $d)"
