/* colormap.h: colour maps for pictures of scalar fields, and the sRGB
 * transfer function.
 *
 * Maps take t in [0, 1] (clamped; NaN maps to the t = 0 end) and return
 * sRGB-encoded components in [0, 1], the values a PNG stores.  Shading is
 * done in linear light: convert with srgb_to_linear / linear_to_srgb.
 */
#ifndef SLC_COLORMAP_H
#define SLC_COLORMAP_H

/* Perceptually uniform sequential map (viridis: dark blue, green, yellow)
 * for densities, speeds and other one-signed quantities. */
void cmap_viridis(double t, double rgb[3]);

/* Diverging map (Moreland's cool to warm): blue at 0, near-white grey at
 * 0.5, red at 1; for signed quantities such as level sets, with the zero
 * of the quantity at t = 0.5. */
void cmap_diverging(double t, double rgb[3]);

/* The sRGB transfer function (IEC 61966-2-1) and its inverse, on [0, 1]. */
double srgb_to_linear(double c);
double linear_to_srgb(double c);

#endif
