#!/usr/bin/env bats
# pipelines.bats: the rules every pipeline shares (pipelines/common.mk and
# pipelines/chain), on tiny bakes of pipelines/smoke: the settings stamp
# under bakes from several machines at once, MPIRUN, SUBSTEPS, make movie
# and make wedge.

bats_require_minimum_version 1.5.0
load common

export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bake() {
	make --no-print-directory -C "$ROOT/pipelines/smoke" BIN="$ROOT/${SLUICE_BIN:-bin}" \
		RES=16 FRAMES=2 SIZE=32x32 "$@"
}

# the number of project stages in a frame's provenance
projects() {
	slcinfo "$1" | grep -c '^ *stage\.[0-9]*=project '
}

@test "pipelines: bakes of one directory from several machines at once never race on the settings stamp" {
	# each make in a PID namespace of its own, as on machines sharing the
	# directory: their shells' pids repeat, so a temp named by the pid is
	# shared between them (before common.mk's mktemp, 9 of 36 makes failed
	# and the failing one's make deleted the stamp)
	unshare --pid --fork true 2>/dev/null ||
		skip "unshare --pid needs root here: cannot give each make a pid namespace"
	O=$T/race
	mkdir -p "$O"
	for k in 1 2 3 4 5 6; do
		pids=
		for j in 1 2 3 4 5 6; do
			unshare --pid --fork make --no-print-directory -C "$ROOT/pipelines/smoke" \
				OUT="$O" CONFINEMENT="$k.$j" "$O/settings" "$O/view" >"$T/log.$k.$j" 2>&1 &
			pids="$pids $!"
		done
		for p in $pids; do wait "$p" || { cat "$T"/log.*; fail "a bake of settings $k.* failed"; }; done
	done
	[ -s "$O/settings" ]
	run ls -A "$O"
	refute_output --partial tmp
}

@test "pipelines: MPIRUN at 2 ranks gives the bytes of the serial programs on the same files" {
	[ -x "$ROOT/bin-mpi/advect" ] && [ -x "$ROOT/bin-mpi/project" ] ||
		skip "bin-mpi/ not built (make mpi)"
	command -v mpirun >/dev/null || skip "no mpirun (make deps)"
	# 24 cells at --cfl 1: 12 planes a slab, wider than the ghosts
	k=(RES=24 CFL=1 OUT="$T/out")
	# the launcher, noting what it runs
	printf '#!/bin/sh\necho "$*" >> "%s"\nexec mpirun --oversubscribe -np 2 "$@"\n' \
		"$T/launched" > "$T/launch"
	chmod +x "$T/launch"
	run bake "${k[@]}" MPIRUN="$T/launch" "$T/out/frame-0002.slc"
	assert_success
	mv "$T/out" "$T/mpi"
	# advect and project of each frame, from bin-mpi/, FILE -o FILE
	run cat "$T/launched"
	assert_line --index 0 --regexp "^$ROOT/bin-mpi/advect .* $T/out/frame-0000.slc -o $T/out/frame-0001.slc.1\$"
	assert_line --index 1 "$ROOT/bin-mpi/project $T/out/frame-0001.slc.1 -o $T/out/frame-0001.slc"
	assert_line --index 3 "$ROOT/bin-mpi/project $T/out/frame-0002.slc.1 -o $T/out/frame-0002.slc"
	[ "${#lines[@]}" = 4 ]
	# the serial programs through the same files (no launcher)
	bake "${k[@]}" MPIBIN="$ROOT/${SLUICE_BIN:-bin}" MPIRUN=env "$T/out/frame-0002.slc"
	for f in 0001 0002; do
		cmp "$T/out/frame-$f.slc" "$T/mpi/frame-$f.slc"
	done
	# a plain bake (a pipe) has the same records but for the provenance
	mv "$T/out" "$T/files"
	bake "${k[@]}" "$T/out/frame-0002.slc"
	diff <(slcinfo "$T/out/frame-0002.slc" | sed '1d;/provenance/,$d') \
		<(slcinfo "$T/mpi/frame-0002.slc" | sed '1d;/provenance/,$d')
	run cmp -s "$T/out/frame-0002.slc" "$T/mpi/frame-0002.slc"
	assert_failure
	# no file of the step's stages left
	run ls -A "$T/mpi"
	refute_output --regexp 'slc\.[0-9]'
}

@test "pipelines: MPIRUN runs clothstep and hairstep too: drape and curly at 2 ranks as serial on the same files" {
	[ -x "$ROOT/bin-mpi/clothstep" ] && [ -x "$ROOT/bin-mpi/hairstep" ] ||
		skip "bin-mpi/ not built (make mpi)"
	command -v mpirun >/dev/null || skip "no mpirun (make deps)"
	for p in "drape RES=8" "curly STRANDS=10 SEGMENTS=6"; do
		set -- $p
		m=(make --no-print-directory -C "$ROOT/pipelines/$1" OUT="$T/out" FRAMES=1 "${@:2}")
		"${m[@]}" MPIRUN="mpirun --oversubscribe -np 2" "$T/out/frame-0001.slc"
		mv "$T/out" "$T/mpi-$1"
		"${m[@]}" MPIBIN="$ROOT/${SLUICE_BIN:-bin}" MPIRUN=env "$T/out/frame-0001.slc"
		cmp "$T/out/frame-0001.slc" "$T/mpi-$1/frame-0001.slc"
		run slcinfo "$T/out/frame-0001.slc"
		assert_output --partial " -o $T/out/frame-0001.slc $T/out/frame-0000.slc"
		rm -rf "$T/out"
	done
}

@test "pipelines: a failed stage under MPIRUN leaves no frame and no stage file" {
	# a launcher whose advect succeeds and whose project fails
	printf '#!/bin/sh\ncase "$1" in */project) exit 1 ;; esac\nexec "$@"\n' > "$T/launch"
	chmod +x "$T/launch"
	run bake OUT="$T/f" MPIBIN="$ROOT/${SLUICE_BIN:-bin}" MPIRUN="$T/launch" "$T/f/frame-0001.slc"
	assert_failure
	assert_output --partial "frame-0001.slc] Error 1"
	[ -f "$T/f/frame-0000.slc" ]
	run ls -A "$T/f"
	refute_output --partial frame-0001
}

@test "pipelines: SUBSTEPS=2 projects twice a frame: another finite bake of whole frames" {
	bake OUT="$T/one" "$T/one/frame-0002.slc"
	bake OUT="$T/two" SUBSTEPS=2 "$T/two/frame-0002.slc" "$T/two/frame-0002.png"
	for f in 0001 0002; do
		slc_finite "$T/two/frame-$f.slc"
		run cmp -s "$T/one/frame-$f.slc" "$T/two/frame-$f.slc"
		assert_failure
	done
	[ "$(projects "$T/one/frame-0002.slc")" = 2 ]
	[ "$(projects "$T/two/frame-0002.slc")" = 4 ]
	# each projection over half a frame; the frame ends at the same time
	run slcinfo "$T/two/frame-0002.slc"
	assert_output --partial "project 0.1.0 --dt 0.0208333333333"
	t1=$(slcinfo "$T/one/frame-0002.slc" | sed -n 's/^ *time=//p')
	t2=$(slcinfo "$T/two/frame-0002.slc" | sed -n 's/^ *time=//p')
	awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(a - b < 1e-9 && b - a < 1e-9 && a > 0.08) }'
	# the passes' frames are gone: only whole frames are files
	run ls -A "$T/two"
	refute_output --partial sub
	refute_output --partial frame-0003
}

@test "pipelines: paddle with SUBSTEPS=2 places its wheel at the end of each projected step" {
	make --no-print-directory -C "$ROOT/pipelines/paddle" OUT="$T/p" RES=16 FRAMES=1 SIZE=32x18 \
		SUBSTEPS=2 "$T/p/frame-0001.slc"
	slc_finite "$T/p/frame-0001.slc"
	# the wheel half a frame on (90 degrees/s: 1.875 degrees) and a frame on
	run slcinfo "$T/p/paddle-0000-1of2.slc"
	assert_output --partial "--time 0.0208333333333 "
	run slcinfo "$T/p/paddle-0000-2of2.slc"
	assert_output --partial "--time 0.0416666666667 "
	run ls -A "$T/p"
	refute_output --partial sub
}

@test "pipelines: SUBSTEPS is refused where a frame is not one advect and one project" {
	run make -C "$ROOT/pipelines/drape" OUT="$T/d" SUBSTEPS=2
	assert_failure
	assert_output --partial "SUBSTEPS=2: pipelines/drape is cloth"
	run bake OUT="$T/s" SUBSTEPS=0
	assert_failure
	assert_output --partial "SUBSTEPS=0: expected a whole number >= 1"
}

@test "pipelines: make movie is an H.264 MP4 of every picture at the scene's fps" {
	command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null ||
		skip "no ffmpeg: make movie needs it (make deps)"
	# odd sizes: the movie pads them to even ones
	run bake OUT="$T/m" FRAMES=5 SIZE=49x33 -j2 movie
	assert_success
	run ffprobe -v error -select_streams v:0 -count_frames \
		-show_entries stream=codec_name,r_frame_rate,nb_read_frames,width,height \
		-of default=nw=1 "$T/m/movie.mp4"
	assert_success
	assert_line codec_name=h264
	assert_line r_frame_rate=24/1
	assert_line nb_read_frames=6
	assert_line width=50
	assert_line height=34
	run ls -A "$T/m"
	refute_output --partial tmp
}

@test "pipelines: a wedge of two values bakes each as a plain bake of that value" {
	run bake OUT="$T/w" -j2 wedge KNOB=RES VALUES="12 16"
	assert_success
	for r in 12 16; do
		d=$T/w/wedge-RES-$r
		grep -q "^RES=$r " "$d/settings"
		mv "$d" "$T/member"
		# a plain bake of the same knob into the same directory
		bake OUT="$d" RES=$r
		for f in frame-0000.slc frame-0001.slc frame-0002.slc frame-0002.png; do
			cmp "$d/$f" "$T/member/$f"
		done
		rm -rf "$T/member"
	done
	run cmp -s "$T/w/wedge-RES-12/frame-0002.slc" "$T/w/wedge-RES-16/frame-0002.slc"
	assert_failure
	run bake OUT="$T/w" wedge
	assert_failure
	assert_output --partial "make wedge KNOB=NAME VALUES='V1 V2 ...': no KNOB"
	run bake OUT="$T/w" wedge KNOB=RES
	assert_failure
	assert_output --partial "no VALUES"
}

# a one-machine Slurm in $T/slurm: munged, slurmctld and slurmd started
# here on their own socket, ports and directories, stopped by stop_slurm
start_slurm() {
	local d=$T/slurm h
	h=$(hostname -s)
	mkdir -p "$d/state" "$d/spool" "$d/log"
	head -c 1024 /dev/urandom > "$d/munge.key"
	chmod 600 "$d/munge.key"
	cat > "$d/slurm.conf" <<-EOF
		ClusterName=sluicetest
		SlurmctldHost=$h(127.0.0.1)
		SlurmctldPort=${SLURM_TEST_PORT:-16917}
		SlurmdPort=$((${SLURM_TEST_PORT:-16917} + 1))
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		AuthInfo=socket=$d/munge.sock
		CredType=cred/munge
		StateSaveLocation=$d/state
		SlurmdSpoolDir=$d/spool
		SlurmctldPidFile=$d/slurmctld.pid
		SlurmdPidFile=$d/slurmd.pid
		SlurmctldLogFile=$d/log/slurmctld.log
		SlurmdLogFile=$d/log/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		JobCompType=jobcomp/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		MpiDefault=pmix
		ReturnToService=2
		NodeName=$h NodeAddr=127.0.0.1 CPUs=$(nproc --all) State=UNKNOWN
		PartitionName=local Nodes=$h Default=YES MaxTime=INFINITE State=UP
	EOF
	export SLURM_CONF=$d/slurm.conf
	munged -F -f --socket="$d/munge.sock" --key-file="$d/munge.key" --log-file="$d/log/munged.log" \
		--pid-file="$d/munged.pid" --seed-file="$d/munged.seed" >/dev/null 2>&1 &
	echo $! > "$d/pids"
	sleep 1
	slurmctld -D -f "$SLURM_CONF" >"$d/log/ctld.out" 2>&1 &
	echo $! >> "$d/pids"
	slurmd -D -f "$SLURM_CONF" >"$d/log/d.out" 2>&1 &
	echo $! >> "$d/pids"
	for _ in $(seq 40); do
		sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
		sleep 0.5
	done
	cat "$d"/log/* >&2
	return 1
}

stop_slurm() {
	[ -f "$T/slurm/pids" ] || return 0
	kill $(tac "$T/slurm/pids") 2>/dev/null
	for p in $(cat "$T/slurm/pids"); do
		while kill -0 "$p" 2>/dev/null; do sleep 0.2; done
	done
	rm -f "$T/slurm/pids"
}

teardown() {
	stop_slurm
	rm -rf "$T"
}

@test "pipelines: a wedge of three values on a one-machine Slurm: each member as its plain bake, MPI stages under srun, a failed member failing make" {
	for c in munged slurmctld slurmd sbatch sinfo; do
		command -v "$c" >/dev/null || skip "no $c: a Slurm wedge needs slurmctld, slurmd and munge (make deps)"
	done
	[ "$(id -u)" = 0 ] || skip "the one-machine Slurm of this test runs as root"
	start_slurm
	date +%s.%N > "$T/t0"
	run timeout 300 make --no-print-directory -C "$ROOT/pipelines/smoke" BIN="$ROOT/${SLUICE_BIN:-bin}" \
		RES=16 SIZE=32x32 OUT="$T/w" FRAMES=1 wedge KNOB=RES VALUES="12 14 16" SLURM=1
	assert_success
	echo "# wedge took $(awk -v a="$(cat "$T/t0")" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') s" >&3
	for r in 12 14 16; do
		d=$T/w/wedge-RES-$r
		grep -q "^RES=$r " "$d/settings"
		mv "$d" "$T/member"
		bake OUT="$d" FRAMES=1 RES=$r
		for f in frame-0000.slc frame-0001.slc frame-0001.png; do
			cmp "$d/$f" "$T/member/$f"
		done
		rm -rf "$T/member"
	done
	# the frames in one job array, the pictures in a second one after it
	jobs=($(ls "$T"/w/slurm-*.out | sed 's/.*slurm-\([0-9]*\)_.*/\1/' | sort -un))
	[ "${#jobs[@]}" = 2 ]
	[ "$(ls "$T"/w/slurm-"${jobs[0]}"_*.out | wc -l)" = 3 ]
	run cat "$T"/w/slurm-"${jobs[0]}"_*.out
	assert_output --partial "@advect"
	refute_output --partial rasterize
	run cat "$T"/w/slurm-"${jobs[1]}"_*.out
	assert_output --partial rasterize
	refute_output --partial "@advect"
	# MPI stages under srun in each task's allocation of two tasks, through
	# a launcher noting what it runs: the bytes of the serial programs
	if [ -x "$ROOT/bin-mpi/advect" ]; then
		printf '#!/bin/sh\necho "$*" >> "%s"\nexec srun -n 2 "$@"\n' "$T/launched" > "$T/launch"
		chmod +x "$T/launch"
		run timeout 300 make --no-print-directory -C "$ROOT/pipelines/smoke" \
			BIN="$ROOT/${SLUICE_BIN:-bin}" SIZE=32x32 OUT="$T/m" FRAMES=1 CFL=1 \
			wedge KNOB=RES VALUES="24" SLURM=1 SBATCH="-n 2" MPIRUN="$T/launch"
		assert_success
		run cat "$T/launched"
		assert_line --index 0 --regexp "^$ROOT/bin-mpi/advect "
		assert_line --index 1 --regexp "^$ROOT/bin-mpi/project "
		mv "$T/m/wedge-RES-24" "$T/member"
		bake OUT="$T/m/wedge-RES-24" FRAMES=1 CFL=1 RES=24 MPIBIN="$ROOT/${SLUICE_BIN:-bin}" \
			MPIRUN=env "$T/m/wedge-RES-24/frame-0001.slc"
		cmp "$T/m/wedge-RES-24/frame-0001.slc" "$T/member/frame-0001.slc"
	fi
	# a member whose frames fail: its pictures' task never runs, and make says so
	run timeout 300 make --no-print-directory -C "$ROOT/pipelines/smoke" BIN="$ROOT/${SLUICE_BIN:-bin}" \
		SIZE=32x32 OUT="$T/f" FRAMES=1 wedge KNOB=RES VALUES="12 x" SLURM=1
	assert_failure
	assert_output --partial "smoke: wedge: tasks of job"
	assert_output --partial "JobState=CANCELLED"
	[ -f "$T/f/wedge-RES-12/frame-0001.png" ]
}
