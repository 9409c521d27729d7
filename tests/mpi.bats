#!/usr/bin/env bats
# mpi.bats: the MPI builds (make MPI=1: bin-mpi/, build-mpi/tests/) over
# 1..4 ranks on one machine (--oversubscribe; as root in CI): the C tests
# of lib/comm/, and advect's and project's frames byte-identical to the
# serial programs'.

load common

MPI_BIN="$ROOT/bin-mpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1

mpi() {
	local np=$1
	shift
	mpirun --oversubscribe -np "$np" "$@"
}

STEP=(--source source --buoyancy 0.1,4 --confinement 0.3 --dt 0.04)

@test "mpi: the halo, ordered sums and slabs of lib/comm at 1, 2, 3 and 4 ranks" {
	for np in 1 2 3 4; do
		run mpi "$np" "$ROOT/build-mpi/tests/test_comm"
		assert_success
		refute_output --partial "not ok"
		assert_output --partial "1..52"
	done
}

# three frames of smoke: advect then project (serial, or MPI over np
# ranks: smoke3 DIR SCHEME NP), in $T/$dir with the same file names
# (provenance)
smoke3() {
	local dir=$1 scheme=$2 np=${3:-0} adv=(advect) proj=(project)
	if [ "$np" -gt 0 ]; then
		adv=(mpi "$np" "$MPI_BIN/advect")
		proj=(mpi "$np" "$MPI_BIN/project")
	fi
	mkdir -p "$T/$dir" && cd "$T/$dir" || return 1
	cp "$T/f0.slc" f0.slc
	for f in 1 2 3; do
		"${adv[@]}" "${STEP[@]}" --scheme "$scheme" "f$((f - 1)).slc" -o "a$f.slc" || return 1
		"${proj[@]}" "a$f.slc" -o "f$f.slc" || return 1
	done
}

@test "mpi: three smoke frames (sl, maccormack, bfecc) advected and projected at 1-4 ranks identical to serial" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	for scheme in sl maccormack bfecc; do
		smoke3 "serial-$scheme" "$scheme"
		for np in 1 2 3 4; do
			# bfecc needs 9 ghost planes at --cfl 1: 32 cells at 4 ranks are too thin
			[ "$scheme" = bfecc ] && [ "$np" = 4 ] && continue
			run smoke3 "mpi$np-$scheme" "$scheme" "$np"
			assert_success
			for f in 1 2 3; do
				cmp "$T/serial-$scheme/a$f.slc" "$T/mpi$np-$scheme/a$f.slc"
				cmp "$T/serial-$scheme/f$f.slc" "$T/mpi$np-$scheme/f$f.slc"
			done
		done
	done
}

@test "mpi: three smoke frames with a dynamic rigid body across the slab faces at 1-4 ranks identical to serial" {
	# a spinning, moving ball over k planes 14-24: cut by the slab faces
	# of 2 (16), 3 (21) and 4 (16, 24) ranks
	{ mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 &&
		mkprim ball --res 32 --box 1,1,1 --radius 0.15 --center 0.45,0.5,0.6 --density 500 \
			--spin 0,0,3 --velocity 0.3,0,-0.5 --motion dynamic; } | slccat -o "$T/f0.slc"
	smoke3 serial maccormack
	run slcinfo "$T/serial/f3.slc"
	assert_output --partial "regions=1"
	for np in 1 2 3 4; do
		run smoke3 "mpi$np" maccormack "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
	# the body moved (its P line: min, max and mean) and its velocity
	# changed through the coupling
	p0=$(slcinfo "$T/f0.slc" | grep -A1 "particles 'rigid'" | tail -1)
	p3=$(slcinfo "$T/serial/f3.slc" | grep -A1 "particles 'rigid'" | tail -1)
	[ "$p0" != "$p3" ]
	v0=$(slcinfo "$T/f0.slc" | grep -A4 "particles 'rigid'" | grep " v ")
	v3=$(slcinfo "$T/serial/f3.slc" | grep -A4 "particles 'rigid'" | grep " v ")
	[ "$v0" != "$v3" ]
}

@test "mpi: three smoke frames with vortex particles seeded, moved and forcing at 1-4 ranks identical to serial" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	STEP+=(--vortex-seed 120 --seed 3)
	smoke3 serial maccormack
	run slcinfo "$T/serial/f3.slc"
	assert_output --partial "particles 'vortex'"
	refute_output --partial "point 0 "
	for np in 1 2 3 4; do
		run smoke3 "mpi$np" maccormack "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

@test "mpi: vortex particles seeded, culled by a moving ball, migrated and forcing across the slab faces at 2-4 ranks identical to serial" {
	# the source's particles (z 0.42 .. 0.58: across the face of 2
	# ranks), pushed along +z by the source's velocity across the faces
	# at z = 0.5, rise into a ball moving along -z through k planes
	# 14-24 (a few culled in every frame)
	{ mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 &&
		mkprim ball --res 32 --box 1,1,1 --radius 0.15 --center 0.45,0.3,0.55 --density 500 \
			--spin 0,0,3 --velocity 0.3,0,-0.5 --motion dynamic; } | slccat -o "$T/f0.slc"
	STEP+=(--vortex-seed 300 --seed 3 --source-velocity 0,0,1.5)
	smoke3 serial maccormack
	run slcinfo "$T/serial/a3.slc"
	assert_output --partial "particles 'vortex'"
	for np in 2 3 4; do
		run smoke3 "mpi$np" maccormack "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

# three frames of a liquid frame f0.slc in $T: advect --seed 1 (or
# $ADV) then project, serial or over NP ranks (liquid3 DIR NP), as
# pipelines/drop
liquid3() {
	local dir=$1 np=${2:-0} adv=(advect) proj=(project)
	if [ "$np" -gt 0 ]; then
		adv=(mpi "$np" "$MPI_BIN/advect")
		proj=(mpi "$np" "$MPI_BIN/project")
	fi
	mkdir -p "$T/$dir" && cd "$T/$dir" || return 1
	cp "$T/f0.slc" f0.slc
	for f in 1 2 3; do
		"${adv[@]}" ${ADV:---seed 1} "f$((f - 1)).slc" -o "a$f.slc" || return 1
		"${proj[@]}" "a$f.slc" -o "f$f.slc" || return 1
	done
}

@test "mpi: three frames of the drop (particle level set, spray) at 1-4 ranks identical to serial" {
	mkprim pool --res 32 -o "$T/f0.slc"
	liquid3 serial
	run slcinfo "$T/serial/f3.slc"
	assert_output --partial "particles 'pls_pos'"
	assert_output --partial "particles 'spray'"
	for np in 1 2 3 4; do
		run liquid3 "mpi$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

@test "mpi: three drop frames of the splash (spray made, flying and landing over every slab) at 2-4 ranks identical to serial" {
	mkprim pool --res 32 -o "$T/p0.slc"
	for f in 1 2 3 4; do
		advect --seed 1 "$T/p$((f - 1)).slc" | project -o "$T/p$f.slc"
	done
	cp "$T/p4.slc" "$T/f0.slc"
	liquid3 serial
	# hundreds of spray particles spread over z 0.1 .. 0.9: every slab
	run slcinfo "$T/serial/f3.slc"
	assert_output --regexp "particles 'spray'[^\n]*"$'\n'"  P +f32 x3 point [0-9]{3,}  min 0\.[0-2]"
	for np in 2 3 4; do
		run liquid3 "mpi$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

@test "mpi: markers seeded, reseeded and trimmed per rank (--reseed 1, 2 per cell) at 2-4 ranks identical to serial" {
	# frame 0 seeds, frames 1 and 2 reseed: 2 markers a box, trimmed
	# past 4 (hundreds of them in the boxes the surface crowds)
	mkprim pool --res 32 -o "$T/f0.slc"
	ADV="--seed 2 --reseed 1 --pls-per-cell 2"
	liquid3 serial
	for np in 2 3 4; do
		run liquid3 "mpi$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
		done
	done
}

@test "mpi: marker particles crossing the slab faces migrate to their new owners, the frame identical to serial" {
	# gravity tilted along k sloshes the pool's surface over the slab
	# faces (z = 0.5 at 2 ranks, 0.25, 0.5, 0.75 at 4)
	G=(--seed 1 --gravity 0,-9.81,8)
	mkprim pool --res 32 -o "$T/p0.slc"
	for f in 1 2; do
		advect "${G[@]}" "$T/p$((f - 1)).slc" | project -o "$T/p$f.slc"
	done
	mkdir -p "$T/s" && (cd "$T/s" && advect -v "${G[@]}" ../p2.slc -o a.slc 2> log)
	for np in 2 3 4; do
		mkdir -p "$T/m$np"
		(cd "$T/m$np" && mpi "$np" "$MPI_BIN/advect" -v "${G[@]}" ../p2.slc -o a.slc 2> log)
		cmp "$T/s/a.slc" "$T/m$np/a.slc"
		n=$(sed -n "s/^advect: \([0-9]*\) marker particles moved into another rank's slab$/\1/p" \
			"$T/m$np/log")
		[ "$n" -gt 1000 ]
		# the same counts as one process
		diff <(grep "marker particles," "$T/s/log") <(grep "marker particles," "$T/m$np/log")
	done
}

@test "mpi: a floating ball in a pool with a drop (liquid and rigid body across slab faces) at 2 and 3 ranks identical to serial" {
	{ mkprim pool --res 24 --depth 0.6 --drop-center 0.5,0.1,0.5 --drop-radius 0.05 &&
		mkprim ball --res 24 --radius 0.12 --center 0.5,0.3,0.55 --density 100 \
			--motion dynamic; } | slccat -o "$T/f0.slc"
	liquid3 serial
	for np in 2 3; do
		run liquid3 "mpi$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/mpi$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

@test "mpi: a slab too thin for its ghost planes is refused, naming --cfl" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	run mpi 4 "$MPI_BIN/advect" "${STEP[@]}" --scheme bfecc "$T/f0.slc" -o "$T/out.slc"
	assert_failure
	assert_output --partial "a slab of 8 cells along k at 4 ranks, thinner than 9 ghost planes and one: lower --cfl"
	[ ! -e "$T/out.slc" ]
}

@test "mpi: a substep longer than the ghost planes hold is refused, naming --cfl" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	# a frame of velocity 16 m/s along k: 20 cells in one step of 0.04 s,
	# more than the 15 ghost planes of two slabs of 16
	advect --gravity 0,0,400 --dt 0.04 --cfl 0 "$T/f0.slc" -o "$T/fast.slc"
	run mpi 2 "$MPI_BIN/advect" --gravity 0,0,0 --dt 0.04 --cfl 0 --scheme sl "$T/fast.slc" -o "$T/out.slc"
	assert_failure
	assert_output --partial "ghost planes, the slabs hold"
	assert_output --partial "lower --cfl"
}

@test "mpi: over two ranks advect needs FILE and -o FILE (exit 2), not over one" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	run mpi 2 "$MPI_BIN/advect" --dt 0.04 "$T/f0.slc"
	assert_failure 2
	assert_output --partial "give FILE and -o FILE"
	run bash -c "mpirun --oversubscribe -np 2 '$MPI_BIN/advect' --dt 0.04 -o '$T/o.slc' < /dev/null"
	assert_failure 2
	advect --dt 0.04 < "$T/f0.slc" > "$T/serial.slc"
	# one process started without mpirun (MPI's singleton start): a pipe
	# stage like the serial program; mpirun itself forwards standard
	# input unreliably (Open MPI 4.1 crashes in its forwarding handler)
	"$MPI_BIN/advect" --dt 0.04 < "$T/f0.slc" > "$T/one.slc"
	cmp "$T/serial.slc" "$T/one.slc"
}

@test "mpi: project of 37 planes (uneven slabs) at 1-4 ranks identical to serial" {
	mkprim smoke --res 37 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	advect "${STEP[@]}" "$T/f0.slc" -o "$T/a.slc"
	mkdir -p "$T/s" && (cd "$T/s" && project ../a.slc -o g.slc)
	for np in 1 2 3 4; do
		mkdir -p "$T/m$np"
		(cd "$T/m$np" && mpi "$np" "$MPI_BIN/project" ../a.slc -o g.slc)
		cmp "$T/s/g.slc" "$T/m$np/g.slc"
	done
}

@test "mpi: two enclosed regions split across every slab: numbered and solved as serial at 1-4 ranks" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.3,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	# a solid wall across x: two closed halves, each over every k slab
	mkprim box --size 0.1,2,2 --center 0.5,0.5,0.5 -o "$T/wall.slc"
	mklevelset --like "$T/f0.slc" "$T/f0.slc" "$T/wall.slc" -o "$T/g0.slc"
	advect "${STEP[@]}" "$T/g0.slc" -o "$T/a.slc"
	mkdir -p "$T/s" && (cd "$T/s" && project ../a.slc -o g.slc)
	run slcinfo "$T/s/g.slc"
	assert_output --partial "regions=2"
	assert_output --partial "enclosed=2"
	for np in 1 2 3 4; do
		mkdir -p "$T/m$np"
		(cd "$T/m$np" && mpi "$np" "$MPI_BIN/project" ../a.slc -o g.slc)
		cmp "$T/s/g.slc" "$T/m$np/g.slc"
	done
}

@test "mpi: project refuses MIC(0) over two ranks (exit 1, naming --precond), runs it over one" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	advect "${STEP[@]}" "$T/f0.slc" -o "$T/a.slc"
	run mpi 2 "$MPI_BIN/project" --precond mic0 "$T/a.slc" -o "$T/g.slc"
	assert_failure 1
	assert_output --partial "MIC(0) preconditioner runs on one MPI rank only: use --precond mg"
	[ ! -e "$T/g.slc" ]
	mpi 1 "$MPI_BIN/project" --precond mic0 "$T/a.slc" -o "$T/g.slc"
}

@test "mpi: over two ranks project needs FILE and -o FILE (exit 2)" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	run mpi 2 "$MPI_BIN/project" "$T/f0.slc"
	assert_failure 2
	assert_output --partial "give FILE and -o FILE"
}

# ---- project on larger grids: the multigrid's coarse levels cut in k
# slabs (lib/fluid/mg.c: while every rank's slab of a level keeps 4
# planes), the thinner ones gathered ----

# project $T/a.slc serially in $T/s and over 1..4 ranks in $T/mNP (the
# same file names: provenance), each cmp-identical to serial; -v's 'mpi'
# line of 2 and 4 ranks in $T/v2, $T/v4
project_1to4() {
	mkdir -p "$T/s" && (cd "$T/s" && project -v ../a.slc -o g.slc 2> /dev/null) || return 1
	for np in 1 2 3 4; do
		mkdir -p "$T/m$np"
		(cd "$T/m$np" && mpi "$np" "$MPI_BIN/project" -v ../a.slc -o g.slc) 2> "$T/v$np" ||
			{ cat "$T/v$np"; return 1; }
		cmp "$T/s/g.slc" "$T/m$np/g.slc" || return 1
	done
}

@test "mpi: project of 64^3 smoke with a dynamic rigid body across slab faces: 4 of 5 levels cut at 2 ranks, 3 at 4, identical to serial at 1-4" {
	# the ball over k planes 26-51: cut by the slab faces of 2 (32), 3
	# (21, 42) and 4 (32, 48) ranks, and by those of the cut coarse levels
	{ mkprim smoke --res 64 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 &&
		mkprim ball --res 64 --box 1,1,1 --radius 0.2 --center 0.45,0.5,0.6 --density 500 \
			--spin 0,0,3 --velocity 0.3,0,-0.5 --motion dynamic; } | slccat -o "$T/f0.slc"
	advect "${STEP[@]}" "$T/f0.slc" -o "$T/a.slc"
	run project_1to4
	assert_success
	# 64, 32, 16, 8 planes cut over 2 ranks (slabs of 32 .. 4), the 4^3
	# level solved whole; over 4 ranks slabs of 16, 8, 4, then gathered
	run cat "$T/v2"
	assert_output --partial "mpi ranks=2 levels=5 cut=4 iterations="
	assert_output --regexp "comm_s=[0-9]+\.[0-9]{6}"
	run cat "$T/v4"
	assert_output --partial "mpi ranks=4 levels=5 cut=3 iterations="
	# the body's velocity changed through the coupling
	v0=$(slcinfo "$T/a.slc" | grep -A4 "particles 'rigid'" | grep " v ")
	v1=$(slcinfo "$T/s/g.slc" | grep -A4 "particles 'rigid'" | grep " v ")
	[ "$v0" != "$v1" ]
}

@test "mpi: project of 64^3 smoke in two enclosed halves split across every slab of the cut levels: identical to serial at 1-4 ranks" {
	mkprim smoke --res 64 --box 1,1,1 --center 0.3,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	# a solid wall across x: two closed halves, each over every k slab
	mkprim box --size 0.1,2,2 --center 0.5,0.5,0.5 -o "$T/wall.slc"
	mklevelset --like "$T/f0.slc" "$T/f0.slc" "$T/wall.slc" -o "$T/g0.slc"
	advect "${STEP[@]}" "$T/g0.slc" -o "$T/a.slc"
	run project_1to4
	assert_success
	run slcinfo "$T/s/g.slc"
	assert_output --partial "regions=2"
	assert_output --partial "enclosed=2"
	run cat "$T/v3"
	assert_output --partial "mpi ranks=3 levels=5 cut=3 iterations="
}

@test "mpi: project of a 64^3 pool with a drop and a floating ball (free surface, two regions): identical to serial at 1-4 ranks" {
	{ mkprim pool --res 64 --depth 0.5 --drop-center 0.5,0.75,0.45 --drop-radius 0.12 &&
		mkprim ball --res 64 --radius 0.12 --center 0.5,0.45,0.6 --density 300 \
			--motion dynamic; } | slccat -o "$T/f0.slc"
	advect --seed 1 "$T/f0.slc" -o "$T/a.slc"
	run project_1to4
	assert_success
	run slcinfo "$T/s/g.slc"
	assert_output --partial "regions=2"
	run cat "$T/v2"
	assert_output --partial "mpi ranks=2 levels=5 cut=4 iterations="
}

# --- --mpi-io: raw grid records read and written in place (MPI-IO) ---

# three frames of the frame $T/f0.slc, advect (with STEP) then project,
# serial or with --mpi-io over NP ranks (io3 DIR NP [OPTION]...: options
# of both), in $T/DIR with the same file names (provenance)
io3() {
	local dir=$1 np=$2 adv=(advect) proj=(project)
	shift 2
	if [ "$np" -gt 0 ]; then
		adv=(mpi "$np" "$MPI_BIN/advect" --mpi-io)
		proj=(mpi "$np" "$MPI_BIN/project" --mpi-io)
	fi
	mkdir -p "$T/$dir" && cd "$T/$dir" || return 1
	cp "$T/f0.slc" f0.slc
	for f in 1 2 3; do
		"${adv[@]}" "${STEP[@]}" "$@" "f$((f - 1)).slc" -o "a$f.slc" || return 1
		"${proj[@]}" "$@" "a$f.slc" -o "f$f.slc" || return 1
	done
}

@test "mpi-io: three smoke frames (37 planes, uneven slabs) with --mpi-io at 1-4 ranks identical to serial" {
	mkprim smoke --res 37 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	STEP+=(--scheme maccormack)
	io3 serial 0
	for np in 1 2 3 4; do
		run io3 "io$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/a$f.slc" "$T/io$np/a$f.slc"
			cmp "$T/serial/f$f.slc" "$T/io$np/f$f.slc"
		done
	done
}

@test "mpi-io: zlib records go through rank 0, raw ones in place, --zlib output through rank 0: identical to serial at 1-3 ranks" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/raw.slc"
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 --zlib 6 -o "$T/z.slc"
	# u, v, w, temperature raw; density and source one zlib stream each
	slccat --only scene,u,v,w,temperature "$T/raw.slc" -o "$T/p1.slc"
	slccat --only density,source "$T/z.slc" -o "$T/p2.slc"
	cat "$T/p1.slc" "$T/p2.slc" > "$T/f0.slc"
	run slcinfo "$T/f0.slc"
	assert_output --partial "grid 'u' time 0, raw"
	assert_output --partial "grid 'density' time 0, zlib"
	for z in 0 6; do
		io3 "serial$z" 0 --zlib "$z"
		for np in 1 2 3; do
			run io3 "io$np-$z" "$np" --zlib "$z"
			assert_success
			for f in 1 2 3; do
				cmp "$T/serial$z/a$f.slc" "$T/io$np-$z/a$f.slc"
				cmp "$T/serial$z/f$f.slc" "$T/io$np-$z/f$f.slc"
			done
		done
	done
	run slcinfo "$T/serial6/f3.slc"
	assert_output --partial "grid 'u' time 0.12, zlib"
}

@test "mpi-io: a damaged byte in the last rank's planes is refused on every rank count with the serial message, no output" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	# one byte of the last sample of 'w' (record 3) flipped
	python3 - "$T/f0.slc" "$T/bad.slc" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = 0
for rec in range(4):
    desc, stored = struct.unpack_from("<I", b, at + 24)[0], struct.unpack_from("<Q", b, at + 32)[0]
    if rec == 3:
        b[at + 48 + desc + 32 * 32 * 33 * 4 - 2] ^= 0x10
    at += 48 + desc + stored + 4
open(sys.argv[2], "wb").write(b)
PY
	run advect "${STEP[@]}" "$T/bad.slc" -o "$T/s.slc"
	assert_failure 1
	assert_output --partial "record 3 at byte"
	msg=$(printf '%s\n' "$output" | grep "crc mismatch")
	[ -n "$msg" ]
	# "advect: " may reach mpirun's output apart from the rest
	msg=${msg#advect: }
	for np in 1 2 4; do
		run mpi "$np" "$MPI_BIN/advect" --mpi-io "${STEP[@]}" "$T/bad.slc" -o "$T/m.slc"
		assert_failure
		assert_output --partial "$msg"
		[ "$(printf '%s\n' "$output" | grep -c "crc mismatch")" = 1 ]
		[ ! -e "$T/m.slc" ]
		run mpi "$np" "$MPI_BIN/project" --mpi-io "$T/bad.slc" -o "$T/m.slc"
		assert_failure
		assert_output --partial "crc mismatch"
		[ ! -e "$T/m.slc" ]
	done
}

@test "mpi-io: a NaN in a raw record read in place is refused as serial (same sample, same counts)" {
	mkprim smoke --res 32 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	# two NaNs, the first in the last rank's planes at 2 ranks
	python3 "$BATS_TEST_DIRNAME/slcpoke.py" "$T/f0.slc" "$T/n1.slc" set temperature temperature 30000 0 nan
	python3 "$BATS_TEST_DIRNAME/slcpoke.py" "$T/n1.slc" "$T/nan.slc" set temperature temperature 31000 0 nan
	run advect "${STEP[@]}" "$T/nan.slc" -o "$T/s.slc"
	assert_failure 1
	msg=$(printf '%s\n' "$output" | grep "NaN")
	[ -n "$msg" ]
	msg=${msg#advect: }
	for np in 1 2 3; do
		run mpi "$np" "$MPI_BIN/advect" --mpi-io "${STEP[@]}" "$T/nan.slc" -o "$T/m.slc"
		assert_failure
		assert_output --partial "$msg"
		[ ! -e "$T/m.slc" ]
	done
}

@test "mpi-io: --mpi-io needs FILE and -o FILE, a regular file" {
	mkprim smoke --res 16 --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$T/f0.slc"
	run mpi 1 "$MPI_BIN/advect" --mpi-io --dt 0.04 "$T/f0.slc"
	assert_failure 2
	assert_output --partial "--mpi-io reads FILE and writes -o FILE in place"
	run mpi 2 "$MPI_BIN/project" --mpi-io "$T/f0.slc" -o /dev/null
	assert_failure 1
	assert_output --partial "not a regular file"
}
