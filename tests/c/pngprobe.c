/* pngprobe: decode a PNG for the Bats tests of rasterize and say what it
 * holds.
 *
 *   pngprobe FILE size             -> "W H"
 *   pngprobe FILE pixel X Y        -> "R G B" of pixel (X, Y), 0..255
 *   pngprobe FILE bbox R,G,B       -> "N X0 Y0 X1 Y1": how many pixels
 *                                     differ from the colour R,G,B (the
 *                                     background) and their bounding box
 *                                     ("0 -1 -1 -1 -1" when none does)
 * Exit 1 when the file is not a readable PNG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pngio.h"

int
main(int argc, char **argv)
{
	FILE *f;
	uint8_t *rgb;
	int w, h, x, y;
	slc_err err;

	if (argc < 3) {
		fprintf(stderr, "usage: pngprobe FILE size|pixel X Y|bbox R,G,B\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || pngio_read_rgb8(f, &w, &h, &rgb, &err)) {
		fprintf(stderr, "pngprobe: %s: %s\n", argv[1], f ? err.msg : "cannot open");
		return 1;
	}
	fclose(f);
	if (!strcmp(argv[2], "size")) {
		printf("%d %d\n", w, h);
	} else if (!strcmp(argv[2], "pixel") && argc == 5) {
		x = atoi(argv[3]);
		y = atoi(argv[4]);
		if (x < 0 || y < 0 || x >= w || y >= h)
			return 2;
		printf("%d %d %d\n", rgb[3 * (x + w * y)], rgb[3 * (x + w * y) + 1],
		       rgb[3 * (x + w * y) + 2]);
	} else if (!strcmp(argv[2], "bbox") && argc == 4) {
		int c[3], n = 0, x0 = -1, y0 = -1, x1 = -1, y1 = -1;

		if (sscanf(argv[3], "%d,%d,%d", &c[0], &c[1], &c[2]) != 3)
			return 2;
		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++) {
				const uint8_t *p = rgb + 3 * (x + (size_t)w * y);

				if (p[0] == c[0] && p[1] == c[1] && p[2] == c[2])
					continue;
				if (!n++) {
					x0 = x1 = x;
					y0 = y1 = y;
				}
				x0 = x < x0 ? x : x0;
				x1 = x > x1 ? x : x1;
				y0 = y < y0 ? y : y0;
				y1 = y > y1 ? y : y1;
			}
		printf("%d %d %d %d %d\n", n, x0, y0, x1, y1);
	} else {
		return 2;
	}
	free(rgb);
	return 0;
}
