/* fuzz_slc: libFuzzer target for the stream reader.  Reads every record of
 * the input, validates it and re-encodes it raw, with zlib and with zstd;
 * any crash, leak or undefined behaviour is a bug in lib/core/slc.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>
#include <zlib.h>

#include "core/slc.h"

/* With the first byte odd, the rest of the input has the crc of every
 * record it can frame recomputed, so that mutations get past the checksum
 * and reach the descriptor, zlib, zstd and validation code. */
static uint8_t *
fix_crcs(const uint8_t *data, size_t size)
{
	uint8_t *b = malloc(size ? size : 1);
	size_t at = 0;

	memcpy(b, data, size);
	while (size - at >= 48) {
		uint32_t desc_len, crc;
		uint64_t stored, n;

		memcpy(&desc_len, b + at + 24, 4);
		memcpy(&stored, b + at + 32, 8);
		n = 48 + (uint64_t)desc_len + stored;
		if (n > size - at || size - at - n < 4)
			break;
		crc = (uint32_t)crc32(0, b + at, (uInt)n);
		memcpy(b + at + n, &crc, 4);
		at += (size_t)n + 4;
	}
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f, *o;
	slc_reader *rd;
	slc_writer *w;
	slc_rec r;
	slc_err err;
	char *out = NULL;
	size_t outlen;
	uint32_t enc;

	uint8_t *fixed = NULL;

	if (size < 2)
		return 0;
	if (data[0] & 1)
		data = fixed = fix_crcs(data + 1, size - 1);
	else
		data++;
	size--;
	f = fmemopen((void *)data, size, "rb");
	o = open_memstream(&out, &outlen);
	if (!f || !o)
		abort();
	rd = slc_reader_open(f, &err);
	w = slc_writer_open(o, 0, &err);
	while (slc_read(rd, &r, &err) > 0) {
		slc_write_raw(w, &r, &err);
		for (enc = SLC_RAW; enc < SLC_ENCODING_COUNT; enc++) {
			FILE *n = fopen("/dev/null", "wb");
			slc_writer *wn = slc_writer_open_enc(n, enc, enc != SLC_RAW, &err);

			slc_write(wn, &r, &err);
			slc_writer_close(wn, &err);
			fclose(n);
		}
		slc_rec_free(&r);
	}
	slc_writer_close(w, &err);
	slc_reader_close(rd);
	fclose(f);
	fclose(o);
	free(out);
	free(fixed);
	return 0;
}
