/* colormap.c: viridis and a cool-to-warm diverging map (see colormap.h). */
#include "render/colormap.h"

#include <math.h>

/* Viridis control points: entries 0, 8, 16, ..., 248 and 255 of the
 * 256-entry table published with the map (S. van der Walt and N. Smith,
 * "viridis", matplotlib 1.5, _cm_listed.py, released CC0), interpolated
 * linearly in between; the error against the full table is below 0.005. */
#define VIRIDIS_N 33
static const double viridis_idx[VIRIDIS_N] = {
	0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88,
	96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184,
	192, 200, 208, 216, 224, 232, 240, 248, 255,
};
static const double viridis_rgb[VIRIDIS_N][3] = {
	{0.267004, 0.004874, 0.329415},
	{0.277018, 0.050344, 0.375715},
	{0.282327, 0.094955, 0.417331},
	{0.282884, 0.135920, 0.453427},
	{0.278826, 0.175490, 0.483397},
	{0.270595, 0.214069, 0.507052},
	{0.258965, 0.251537, 0.524736},
	{0.244972, 0.287675, 0.537260},
	{0.229739, 0.322361, 0.545706},
	{0.214298, 0.355619, 0.551184},
	{0.199430, 0.387607, 0.554642},
	{0.185556, 0.418570, 0.556753},
	{0.172719, 0.448791, 0.557885},
	{0.160665, 0.478540, 0.558115},
	{0.149039, 0.508051, 0.557250},
	{0.137770, 0.537492, 0.554906},
	{0.127568, 0.566949, 0.550556},
	{0.120565, 0.596422, 0.543611},
	{0.120638, 0.625828, 0.533488},
	{0.132268, 0.655014, 0.519661},
	{0.157851, 0.683765, 0.501686},
	{0.196571, 0.711827, 0.479221},
	{0.246070, 0.738910, 0.452024},
	{0.304148, 0.764704, 0.419943},
	{0.369214, 0.788888, 0.382914},
	{0.440137, 0.811138, 0.340967},
	{0.515992, 0.831158, 0.294279},
	{0.595839, 0.848717, 0.243329},
	{0.678489, 0.863742, 0.189503},
	{0.762373, 0.876424, 0.137064},
	{0.845561, 0.887322, 0.099702},
	{0.926106, 0.897330, 0.104071},
	{0.993248, 0.906157, 0.143936},
};

static double
clamp01(double t)
{
	if (!(t > 0))
		return 0;
	return t < 1 ? t : 1;
}

void
cmap_viridis(double t, double rgb[3])
{
	double s = clamp01(t) * 255, w;
	int k = 0, c;

	while (k < VIRIDIS_N - 2 && s > viridis_idx[k + 1])
		k++;
	w = (s - viridis_idx[k]) / (viridis_idx[k + 1] - viridis_idx[k]);
	for (c = 0; c < 3; c++)
		rgb[c] = (1 - w) * viridis_rgb[k][c] + w * viridis_rgb[k + 1][c];
}

double
srgb_to_linear(double c)
{
	c = clamp01(c);
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double
linear_to_srgb(double c)
{
	c = clamp01(c);
	return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

/* --- Moreland's diverging map -----------------------------------------
 * K. Moreland, "Diverging Color Maps for Scientific Visualization", ISVC
 * 2009: the two end colours are converted to the polar form Msh of CIELAB
 * (M = |Lab|, s = acos(L/M), h = atan2(b, a)) and interpolated there,
 * through an unsaturated white of magnitude max(M1, M2, 88) when the hues
 * differ by more than 60 degrees, with the hue of an unsaturated end
 * spun so that the lightness stays monotone (§"Interpolation"). */

/* end colours of the paper's cool to warm map, sRGB 8-bit */
static const double cool_rgb[3] = {59 / 255.0, 76 / 255.0, 192 / 255.0};
static const double warm_rgb[3] = {180 / 255.0, 4 / 255.0, 38 / 255.0};
/* D65 reference white, CIE 1931 2 degree observer */
static const double white_xyz[3] = {0.95047, 1.0, 1.08883};
#define MSH_MID_MIN 88.0        /* Moreland: lightest white magnitude */
#define MSH_SAT_MIN 0.05        /* below this saturation a hue is moot */

static double
lab_f(double t)
{
	const double d = 6.0 / 29;

	return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29;
}

static double
lab_finv(double u)
{
	const double d = 6.0 / 29;

	return u > d ? u * u * u : 3 * d * d * (u - 4.0 / 29);
}

static void
srgb_to_msh(const double rgb[3], double msh[3])
{
	double r = srgb_to_linear(rgb[0]), g = srgb_to_linear(rgb[1]);
	double b = srgb_to_linear(rgb[2]);
	/* linear sRGB to XYZ (IEC 61966-2-1 primaries, D65) */
	double x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
	double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
	double z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
	double fx = lab_f(x / white_xyz[0]), fy = lab_f(y / white_xyz[1]);
	double fz = lab_f(z / white_xyz[2]);
	double L = 116 * fy - 16, A = 500 * (fx - fy), B = 200 * (fy - fz);

	msh[0] = sqrt(L * L + A * A + B * B);
	msh[1] = msh[0] > 0 ? acos(L / msh[0]) : 0;
	msh[2] = atan2(B, A);
}

static void
msh_to_srgb(const double msh[3], double rgb[3])
{
	double L = msh[0] * cos(msh[1]);
	double A = msh[0] * sin(msh[1]) * cos(msh[2]);
	double B = msh[0] * sin(msh[1]) * sin(msh[2]);
	double fy = (L + 16) / 116, fx = fy + A / 500, fz = fy - B / 200;
	double x = white_xyz[0] * lab_finv(fx), y = white_xyz[1] * lab_finv(fy);
	double z = white_xyz[2] * lab_finv(fz);

	rgb[0] = linear_to_srgb(3.2404542 * x - 1.5371385 * y - 0.4985314 * z);
	rgb[1] = linear_to_srgb(-0.9692660 * x + 1.8760108 * y + 0.0415560 * z);
	rgb[2] = linear_to_srgb(0.0556434 * x - 0.2040259 * y + 1.0572252 * z);
}

static double
adjust_hue(const double msh[3], double m_unsat)
{
	double spin;

	if (msh[0] >= m_unsat)
		return msh[2];
	spin = msh[1] * sqrt(m_unsat * m_unsat - msh[0] * msh[0]) /
	       (msh[0] * sin(msh[1]));
	return msh[2] > -M_PI / 3 ? msh[2] + spin : msh[2] - spin;
}

void
cmap_diverging(double t, double rgb[3])
{
	double a[3], b[3], m[3];
	int c;

	t = clamp01(t);
	srgb_to_msh(cool_rgb, a);
	srgb_to_msh(warm_rgb, b);
	if (a[1] > MSH_SAT_MIN && b[1] > MSH_SAT_MIN &&
	    fabs(a[2] - b[2]) > M_PI / 3) {
		double mid = fmax(fmax(a[0], b[0]), MSH_MID_MIN);

		if (t < 0.5) {
			b[0] = mid, b[1] = 0, b[2] = 0;
			t = 2 * t;
		} else {
			a[0] = mid, a[1] = 0, a[2] = 0;
			t = 2 * t - 1;
		}
	}
	if (a[1] < MSH_SAT_MIN && b[1] > MSH_SAT_MIN)
		a[2] = adjust_hue(b, a[0]);
	else if (b[1] < MSH_SAT_MIN && a[1] > MSH_SAT_MIN)
		b[2] = adjust_hue(a, b[0]);
	for (c = 0; c < 3; c++)
		m[c] = (1 - t) * a[c] + t * b[c];
	msh_to_srgb(m, rgb);
}
