/* wind.c: an example stage built against the installed libsluice: a wind
 * that drags a frame's velocity toward its own over the frame.
 *
 *   wind [--wind WX,WY,WZ] [--rate K] [FILE] > OUT
 *
 * Reads one frame (FILE or stdin), and on every face of the MAC velocity
 * (grid records 'u', 'v', 'w', staggered on x, y and z faces) applies the
 * drag du/dt = K (wind - u) over the scene's frame length dt, solved
 * exactly over the frame:
 *
 *     u <- wind + (u - wind) exp(-K dt)
 *
 * which for K dt small is the explicit step u += dt K (wind - u), and
 * unlike it never overshoots the wind however large K dt is.  K is in 1/s
 * (default 1), the wind in m/s (default 1,0,0).  Every other record is
 * passed on exactly as it was read.  Put it between advect and project,
 * so that project makes the dragged velocity divergence-free:
 *
 *     advect < f0.slc | wind --wind 2,0,0 --rate 0.5 | project > f1.slc
 *
 * Build: make -C examples (cc $(pkg-config --cflags --libs sluice)).
 * Exit 0, 1 on a data error (named, as `wind: <input>: message`), 2 on a
 * usage error.
 */
#include <sluice/sluice.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The velocity's records, one per axis, and the faces each lives on. */
static const char *const VEL[3] = { "u", "v", "w" };
static const uint32_t FACE[3] = { SLC_FACE_X, SLC_FACE_Y, SLC_FACE_Z };

static void
usage(FILE *to)
{
	fputs("usage: wind [--wind WX,WY,WZ] [--rate K] [FILE] > OUT\n"
	      "drag a frame's MAC velocity toward the wind over the scene's dt:\n"
	      "u <- wind + (u - wind) exp(-K dt) on every face\n"
	      "  --wind WX,WY,WZ  wind velocity, m/s (default 1,0,0)\n"
	      "  --rate K         drag rate, 1/s, K >= 0 (default 1)\n"
	      "  --help           show this and exit\n", to);
}

static void
die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "wind: %s '%s'\n", msg, arg);
	usage(stderr);
	exit(2);
}

/* Parse a finite number filling the whole of s; 0 or -1. */
static int
number(const char *s, char **end, double *v)
{
	errno = 0;
	*v = strtod(s, end);
	return *end == s || errno || !isfinite(*v) ? -1 : 0;
}

/* Drag the samples of grid record r (one float channel, on the faces of
 * its axis a) toward wind over a frame whose decay is exp(-K dt).  0, or
 * -1 with err. */
static int
drag(slc_rec *r, int a, double wind, double decay, slc_err *err)
{
	field f;
	size_t n, s;

	if (field_from_rec(&f, r, NULL, err))
		return -1;
	if ((uint32_t)f.stagger != FACE[a])
		return slc_fail(err, "grid '%s' is %s, not %s", VEL[a],
				slc_stagger_name((uint32_t)f.stagger),
				slc_stagger_name(FACE[a]));
	n = field_count(&f);
	for (s = 0; s < n; s++)
		f.a[s] = (float)(wind + ((double)f.a[s] - wind) * decay);
	return 0;
}

/* Read the frame from in, drag its velocity, write it to out.  0, or -1
 * with err. */
static int
run(FILE *in, FILE *out, const double wind[3], double rate, slc_err *err)
{
	slc_frame F;
	slc_reader *rd;
	slc_writer *w = NULL;
	slc_rec *vel[3] = { NULL, NULL, NULL };
	slc_scene S = { 0, 0, NAN };
	double decay;
	size_t i;
	int a, rc = -1;

	slc_frame_init(&F);
	rd = slc_reader_open(in, err);
	if (!rd)
		return -1;
	/* records kept encoded until used: the ones passed on cost nothing */
	slc_reader_defer(rd, 1);
	if (slc_frame_read(&F, rd, err) ||
	    slc_scene_read(slc_frame_find(&F, "scene", SLC_META), &S, err))
		goto done;
	if (isnan(S.dt)) {
		slc_fail(err, "no scene record with a frame length dt");
		goto done;
	}
	decay = exp(-rate * S.dt);
	for (a = 0; a < 3; a++) {
		if (slc_frame_get(&F, VEL[a], SLC_GRID, &vel[a], err))
			goto done;
		if (!vel[a]) {
			slc_fail(err, "no grid record '%s' (the velocity)", VEL[a]);
			goto done;
		}
		if (drag(vel[a], a, wind[a], decay, err))
			goto done;
	}
	w = slc_writer_open(out, 0, err);
	if (!w)
		goto done;
	/* the frame in its order: the changed records encoded from their
	 * channels, every other one exactly as it was read */
	for (i = 0; i < F.n; i++) {
		slc_rec *r = F.r[i];
		int changed = r == vel[0] || r == vel[1] || r == vel[2];

		if ((changed ? slc_write : slc_write_raw)(w, r, err))
			goto done;
	}
	rc = slc_writer_close(w, err);
	w = NULL;
done:
	if (w)
		slc_writer_abort(w);     /* no end record: visibly cut short */
	slc_reader_close(rd);
	slc_frame_free(&F);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "wind", required_argument, NULL, 'w' },
		{ "rate", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	double wind[3] = { 1, 0, 0 }, rate = 1;
	const char *path = NULL, *label = "<stdin>";
	FILE *in = stdin;
	slc_err err;
	char *end;
	int c, a;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			end = optarg;
			for (a = 0; a < 3; a++)
				if ((a && *end++ != ',') || number(end, &end, &wind[a]))
					die_usage("--wind wants three numbers WX,WY,WZ, not", optarg);
			if (*end)
				die_usage("--wind wants three numbers WX,WY,WZ, not", optarg);
			break;
		case 'k':
			if (number(optarg, &end, &rate) || *end || rate < 0)
				die_usage("--rate wants a number >= 0, not", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1)
		die_usage("one input at most, not also", argv[optind + 1]);
	if (optind < argc && strcmp(argv[optind], "-")) {
		path = label = argv[optind];
		in = fopen(path, "rb");
		if (!in) {
			fprintf(stderr, "wind: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	if (run(in, stdout, wind, rate, &err)) {
		fprintf(stderr, "wind: %s: %s\n", label, err.msg);
		return 1;
	}
	if (in != stdin)
		fclose(in);
	return 0;
}
