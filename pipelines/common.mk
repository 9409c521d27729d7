# pipelines/common.mk: what every pipeline does the same way, so that a
# fix lands once and a scene is its knobs and its frame rule.  A
# pipelines/NAME/Makefile sets its knobs (FRAMES, FPS, RES, ...), includes
# this file, then writes its first frame and its frame rule.  It gives:
#
#   ROOT BIN MPIBIN OUT   the tree, its programs, where the bake goes
#   MKPRIM ADVECT ...     every program of $(BIN)
#   NUMS PAIRS            the frame numbers 0000..LAST_FRAME (FRAMES unless
#                         set before the include), and N:N-1 for
#                         every frame after the first
#   $(call each_step,R)   $(eval $(call R,N,N-1)) for every pair: the frame rule
#   $(CHAIN) IN STAGE '|' STAGE ... -o OUT
#                         one frame's stages (pipelines/chain): a pipe, or
#                         through files with MPIRUN; a heavy stage is
#                         written @advect, @project, @clothstep, @hairstep
#   $(call stamp,NAME,VAR) the stamp $(OUT)/NAME, rewritten only when $(VAR)
#                         changes, that what VAR shapes depends on
#   $(call picture,DEPS)  $(OUT)/frame-NNNN.png from $(OUT)/frame-NNNN.slc
#                         and DEPS by $(DRAW) (rasterize $(CAMERA) unless set);
#                         MOVIE_STEM (before the include) names other than frame
#   make movie            $(OUT)/movie.mp4: the pictures as H.264 at the scene's fps
#   make wedge KNOB=RES VALUES="32 48 64"
#                         one bake per value, each in $(OUT)/wedge-KNOB-VALUE;
#                         SLURM=1: as job arrays on a Slurm cluster
#   make frames           the frames alone (no pictures)
#   make clean
#
# and the knobs every pipeline has:
#
#   MPIRUN="mpirun -np 4" the heavy stages over MPI ranks from $(MPIBIN)/
#                         (make MPI=1), through files (FILE -o FILE, never a
#                         pipe into the launcher); under Slurm MPIRUN="srun
#                         -n 4" inside an allocation.  The frames are the
#                         bytes of the serial programs run on the same files
#                         (a pipe's provenance names no files, so the frames
#                         of a plain bake differ from them in that record only)
#   SUBSTEPS=N            a fluid: N projected steps per frame, advect over
#                         1/N of the frame then project, N times; the bake's
#                         frames, pictures and meshes are of whole frames only
#
# Every file is a target written atomically; .DELETE_ON_ERROR removes
# anything a failed command leaves, and make -j is safe.

COMMON_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
ROOT := $(abspath $(COMMON_DIR)/..)
PIPELINE := $(notdir $(CURDIR))
BIN ?= $(ROOT)/bin
MPIBIN ?= $(ROOT)/bin-mpi
# an MPI launcher ("mpirun -np 4", "srun -n 4"): the heavy stages run under
# it from $(MPIBIN), through files
MPIRUN ?=
OUT ?= out
FPS ?= 24
SUBSTEPS ?= 1
MOVIE_STEM ?= frame
export BIN MPIBIN MPIRUN SUBSTEPS

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DELETE_ON_ERROR:
# a shared machine: idle OpenMP threads sleep instead of spinning
export OMP_WAIT_POLICY ?= passive

MKPRIM := $(BIN)/mkprim
MKLEVELSET := $(BIN)/mklevelset
SLCCAT := $(BIN)/slccat
SLCCONV := $(BIN)/slcconv
SLCINFO := $(BIN)/slcinfo
ADVECT := $(BIN)/advect
PROJECT := $(BIN)/project
SURFACER := $(BIN)/surfacer
RASTERIZE := $(BIN)/rasterize
CLOTHSTEP := $(BIN)/clothstep
HAIRSTEP := $(BIN)/hairstep
HAIRGOAL := $(BIN)/hairgoal
SHELLCOUPLE := $(BIN)/shellcouple
KDSMBAKE := $(BIN)/kdsmbake
VOFSTEP := $(BIN)/vofstep
CHAIN := $(COMMON_DIR)/chain
FFMPEG ?= ffmpeg

ifneq ($(shell echo '$(SUBSTEPS)' | grep -qx '[1-9][0-9]*' || echo no),)
$(error SUBSTEPS=$(SUBSTEPS): expected a whole number >= 1)
endif

ifneq ($(FRAMES),)
# the last frame's number (kdsm's frames are 0..FRAMES-1)
LAST_FRAME ?= $(FRAMES)
NUMS := $(shell seq -f %04g 0 $(LAST_FRAME))
# "N:N-1" for every frame after the first
PAIRS := $(shell i=1; while [ $$i -le $(FRAMES) ]; do printf '%04d:%04d ' $$i $$((i - 1)); i=$$((i + 1)); done)
# a bake keeps every file it makes: the poses and keys made by pattern
# rules are not removed as intermediates (without frames, as in gallery,
# a missing file is remade even when what depends on it is up to date)
.SECONDARY:
endif
# the frame rule $(1) made for every pair
each_step = $(foreach p,$(PAIRS),$(eval $(call $(1),$(word 1,$(subst :, ,$(p))),$(word 2,$(subst :, ,$(p))))))

# a scene whose frame is not one advect and one project (cloth, hair,
# coupled stages) refuses SUBSTEPS, saying why: $(call no_substeps,WHY)
no_substeps = $(if $(filter-out 1,$(SUBSTEPS)),$(error SUBSTEPS=$(SUBSTEPS): pipelines/$(PIPELINE) $(1)))

.DEFAULT_GOAL := all
.PHONY: all clean movie wedge frames FORCE

# rewritten only when the settings change, so that only then what depends
# on them is made again (make looks at the time of a file after its
# recipe); through a temp of a name no other writer has (mktemp), so that
# two bakes of one directory at once, on this machine or on two sharing
# the directory (where a shell's pid is no longer unique), never rename
# each other's stamp away
sh_quote = '$(subst ','\'',$(1))'
define stamp
$(OUT)/$(1): FORCE | $(OUT)
	@echo $$(call sh_quote,$$($(2))) | cmp -s - $$@ || { t=$$$$(mktemp $$@.tmp.XXXXXX) && \
	    chmod 644 $$$$t && echo $$(call sh_quote,$$($(2))) > $$$$t && mv $$$$t $$@; }
endef

# frame to picture: $(OUT)/$(MOVIE_STEM)-NNNN.png from its frame and the
# prerequisites $(1) (the view stamp) by $(DRAW), rasterize with the
# pipeline's $(CAMERA) unless it says otherwise ($< the frame, $@ the
# picture): $(eval $(call picture,$(OUT)/view))
DRAW ?= $(RASTERIZE) $(CAMERA) -o $@ $<
define picture
$(OUT)/$(MOVIE_STEM)-%.png: $(OUT)/$(MOVIE_STEM)-%.slc $(1)
	$$(DRAW)
endef

# the movie: every picture of $(OUT)/$(MOVIE_STEM)-NNNN.png in order, at
# the frame rate of the first frame's scene (its fps; $(FPS) when it has
# none), H.264 in yuv420p for any player, padded to even sizes as that
# needs
MOVIE_PNGS = $(foreach n,$(NUMS),$(OUT)/$(MOVIE_STEM)-$(n).png)
movie: $(OUT)/movie.mp4
$(OUT)/movie.mp4: $(MOVIE_PNGS)
	@[ -n '$(MOVIE_PNGS)' ] || { echo "$(PIPELINE): no frames to make a movie of" >&2; exit 1; }
	@command -v $(FFMPEG) >/dev/null || { echo "$(PIPELINE): make movie needs ffmpeg (make deps)" >&2; exit 1; }
	fps=$$($(SLCINFO) $(OUT)/$(MOVIE_STEM)-$(firstword $(NUMS)).slc 2>/dev/null | sed -n 's/^ *fps=//p' | head -n 1); \
	t=$$(mktemp $@.tmp.XXXXXX) && chmod 644 $$t && \
	$(FFMPEG) -nostdin -loglevel error -y -framerate $${fps:-$(FPS)} -start_number $(firstword $(NUMS)) \
	    -i $(OUT)/$(MOVIE_STEM)-%04d.png -frames:v $(words $(MOVIE_PNGS)) \
	    -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264 -pix_fmt yuv420p -f mp4 $$t && \
	mv $$t $@ || { rm -f $$t; exit 1; }

# a wedge: the bake once per value of one knob, each in its own directory
# $(OUT)/wedge-KNOB-VALUE (the goal WEDGE_GOAL, all by default), side by
# side under make -j
KNOB ?=
VALUES ?=
WEDGE_GOAL ?= all
ifneq ($(filter wedge,$(MAKECMDGOALS)),)
ifeq ($(strip $(KNOB)),)
$(error make wedge KNOB=NAME VALUES='V1 V2 ...': no KNOB)
endif
ifneq ($(words $(KNOB)),1)
$(error KNOB=$(KNOB): one knob's name)
endif
ifeq ($(strip $(VALUES)),)
$(error make wedge KNOB=$(KNOB) VALUES='V1 V2 ...': no VALUES)
endif
endif
WEDGE_DIRS := $(foreach v,$(VALUES),$(OUT)/wedge-$(KNOB)-$(v))
# the frames alone, the heavy part of a bake
frames: $(foreach n,$(NUMS),$(OUT)/$(MOVIE_STEM)-$(n).slc)
ifeq ($(SLURM),)
wedge: $(WEDGE_DIRS)
.PHONY: $(WEDGE_DIRS)
$(foreach v,$(VALUES),$(eval $(OUT)/wedge-$(KNOB)-$(v): ; +$$(MAKE) --no-print-directory $(KNOB)=$(v) OUT=$$@ KNOB= VALUES= $(WEDGE_GOAL)))
else
# on a Slurm cluster (SLURM=1, sbatch on PATH): every member a task of a
# job array baking its frames (SBATCH="-n 4" with MPIRUN="srun -n 4" runs
# the heavy stages over the task's allocation), then a second array whose
# task i follows task i of the first (aftercorr) and makes the rest of
# WEDGE_GOAL, pictures and meshes (SBATCH_POST: its sbatch options); make
# waits for it (sbatch --wait) and fails unless every task of it completed
# (one whose member's frames failed is cancelled, never run).  A task runs make here with
# this make's command line (MAKEFLAGS, without its jobserver and -j), the
# member's knob and directory; its log is $(OUT)/slurm-JOB_TASK.out
SBATCH ?=
SBATCH_POST ?=
WEDGE_JOB = set -- $(VALUES); shift $$SLURM_ARRAY_TASK_ID; \
	MAKEFLAGS=$$(echo " $$MAKEFLAGS" | sed "s/ --jobserver-[a-z]*=[^ ]*//g; s/ -j[0-9]*//g"); \
	export MAKEFLAGS; exec $(MAKE) --no-print-directory -C $(CURDIR) \
	$(KNOB)=$$1 OUT=$(abspath $(OUT))/wedge-$(KNOB)-$$1 KNOB= VALUES= SLURM=
wedge: | $(OUT)
	bake=$$(sbatch --parsable --array=0-$(words $(wordlist 2,$(words $(VALUES)),$(VALUES))) \
	    -J $(PIPELINE)-frames -o '$(abspath $(OUT))/slurm-%A_%a.out' $(SBATCH) \
	    --wrap '$(WEDGE_JOB) frames') && \
	post=$$(sbatch --wait --parsable --array=0-$(words $(wordlist 2,$(words $(VALUES)),$(VALUES))) \
	    --dependency=aftercorr:$${bake%%;*} --kill-on-invalid-dep=yes \
	    -J $(PIPELINE)-post -o '$(abspath $(OUT))/slurm-%A_%a.out' $(SBATCH_POST) \
	    --wrap '$(WEDGE_JOB) $(WEDGE_GOAL)'); \
	states=$$(scontrol -o show job $${post%%;*} | grep -o 'JobState=[A-Z_]*' | sort -u); \
	[ "$$states" = JobState=COMPLETED ] || \
	{ echo "$(PIPELINE): wedge: tasks of job $${post%%;*} ended" $$states "(logs: $(OUT)/slurm-*.out)" >&2; exit 1; }
endif

$(OUT):
	mkdir -p $@

clean:
	rm -rf $(OUT)
