/* A plain C int8 convolution (3x3, stride 1, zero padding, int32 sums), the
 * CPU reference point of `waiops bench --peers c`. Build:
 *   gcc -O3 -march=native -o conv conv.c
 * Usage: conv IN OUT [i8|u8]
 * Input file (little-endian): int32 cin, cout, h, w, k, runs; 8-bit
 * x[cin][h][w], signed (i8, the default) or unsigned (u8);
 * int8 wt[cout][cin][k][k]. Writes int32 y[cout][h][w] to the output file and
 * prints the median and the fastest time of the runs in nanoseconds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* conv reads x's bytes as uint8_t when u is set, as int8_t otherwise. */
static void conv(int cin, int cout, int h, int w, int k, const void *x, int u, const int8_t *wt, int32_t *y) {
	int p = k / 2;
	memset(y, 0, sizeof(int32_t) * (size_t)cout * h * w);
	for (int o = 0; o < cout; o++)
		for (int c = 0; c < cin; c++)
			for (int i = 0; i < k; i++)
				for (int j = 0; j < k; j++) {
					int32_t wv = wt[((o * cin + c) * k + i) * k + j];
					for (int yy = 0; yy < h; yy++) {
						int sy = yy + i - p;
						if (sy < 0 || sy >= h) continue;
						size_t row = ((size_t)c * h + sy) * w;
						int32_t *yr = y + ((size_t)o * h + yy) * w;
						int x0 = p - j > 0 ? p - j : 0;
						int x1 = w + p - j < w ? w + p - j : w;
						if (u) {
							const uint8_t *xr = (const uint8_t *)x + row;
							for (int xx = x0; xx < x1; xx++) yr[xx] += wv * xr[xx + j - p];
						} else {
							const int8_t *xr = (const int8_t *)x + row;
							for (int xx = x0; xx < x1; xx++) yr[xx] += wv * xr[xx + j - p];
						}
					}
				}
}

int main(int argc, char **argv) {
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "i8") && strcmp(argv[3], "u8"))) {
		fprintf(stderr, "usage: conv IN OUT [i8|u8]\n");
		return 2;
	}
	int u = argc == 4 && !strcmp(argv[3], "u8");
	FILE *f = fopen(argv[1], "rb");
	int32_t hdr[6];
	if (!f || fread(hdr, 4, 6, f) != 6) { fprintf(stderr, "bad input\n"); return 2; }
	int cin = hdr[0], cout = hdr[1], h = hdr[2], w = hdr[3], k = hdr[4], runs = hdr[5];
	size_t nx = (size_t)cin * h * w, nw = (size_t)cout * cin * k * k, ny = (size_t)cout * h * w;
	int8_t *x = malloc(nx), *wt = malloc(nw);
	int32_t *y = malloc(ny * 4);
	if (fread(x, 1, nx, f) != nx || fread(wt, 1, nw, f) != nw) { fprintf(stderr, "short input\n"); return 2; }
	fclose(f);
	long long *ns = malloc(sizeof(long long) * runs);
	conv(cin, cout, h, w, k, x, u, wt, y); /* warm-up */
	for (int r = 0; r < runs; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		conv(cin, cout, h, w, k, x, u, wt, y);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns[r] = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	}
	qsort(ns, runs, sizeof(long long), cmp);
	FILE *o = fopen(argv[2], "wb");
	fwrite(y, 4, ny, o);
	fclose(o);
	printf("%lld %lld\n", ns[runs / 2], ns[0]);
	return 0;
}
