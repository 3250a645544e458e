/* oneDNN's int8 convolution (3x3, stride 1, zero padding, s32 sums), the
 * peer of `waiops bench --peers onednn`. Build against Debian's libdnnl-dev:
 *   gcc -O2 -o onednn_conv onednn_conv.c -ldnnl
 * Usage: onednn_conv IN OUT u8|s8
 * IN is the file conv.c reads (int32 cin, cout, h, w, k, runs; 8-bit
 * x[cin][h][w]; int8 wt[cout][cin][k][k]); the third argument says whether
 * x's bytes are unsigned (u8s8s32) or signed (s8s8s32: oneDNN adds 128 to
 * each input and subtracts 128·Σw again, in integers, so the sums stay
 * exact). The source, weights and destination layouts are "any": oneDNN
 * picks them (NHWC and blocked weights for its brgemm kernels), and the
 * data is put in them once, before the timed runs, as a network keeps its
 * activations in the library's layout. Threads: OMP_NUM_THREADS.
 * Writes int32 y[cout][h][w] to OUT and prints the median and the fastest
 * time of the runs in nanoseconds, then the implementation oneDNN picked. */
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(f)                                                               \
	do {                                                                       \
		dnnl_status_t s_ = (f);                                                \
		if (s_ != dnnl_success) {                                              \
			fprintf(stderr, "%s: oneDNN status %d\n", #f, (int)s_);            \
			exit(1);                                                           \
		}                                                                      \
	} while (0)

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

static dnnl_engine_t eng;
static dnnl_stream_t str;

/* reorder copies memory from into memory to (different layouts). */
static void reorder(dnnl_memory_t from, dnnl_memory_t to) {
	const dnnl_memory_desc_t *fm, *tm;
	CHECK(dnnl_memory_get_memory_desc(from, &fm));
	CHECK(dnnl_memory_get_memory_desc(to, &tm));
	dnnl_primitive_desc_t pd;
	CHECK(dnnl_reorder_primitive_desc_create(&pd, fm, eng, tm, eng, NULL));
	dnnl_primitive_t r;
	CHECK(dnnl_primitive_create(&r, pd));
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
	CHECK(dnnl_primitive_execute(r, str, 2, args));
	CHECK(dnnl_stream_wait(str));
	dnnl_primitive_destroy(r);
	dnnl_primitive_desc_destroy(pd);
}

/* placed is memory in the layout the conv picked for what, filled from a
 * plain-layout memory user when user is not NULL. */
static dnnl_memory_t placed(dnnl_primitive_desc_t pd, dnnl_query_t what, dnnl_memory_t user) {
	dnnl_memory_t m;
	CHECK(dnnl_memory_create(&m, dnnl_primitive_desc_query_md(pd, what, 0), eng, DNNL_MEMORY_ALLOCATE));
	if (user) reorder(user, m);
	return m;
}

int main(int argc, char **argv) {
	if (argc != 4 || (strcmp(argv[3], "u8") && strcmp(argv[3], "s8"))) {
		fprintf(stderr, "usage: onednn_conv IN OUT u8|s8\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	int32_t hdr[6];
	if (!f || fread(hdr, 4, 6, f) != 6) { fprintf(stderr, "bad input\n"); return 2; }
	int cin = hdr[0], cout = hdr[1], h = hdr[2], w = hdr[3], k = hdr[4], runs = hdr[5];
	size_t nx = (size_t)cin * h * w, nw = (size_t)cout * cin * k * k, ny = (size_t)cout * h * w;
	uint8_t *x = malloc(nx), *wt = malloc(nw);
	int32_t *y = malloc(ny * 4);
	long long *ns = malloc(sizeof(long long) * (runs > 0 ? runs : 1));
	if (fread(x, 1, nx, f) != nx || fread(wt, 1, nw, f) != nw) { fprintf(stderr, "short input\n"); return 2; }
	fclose(f);
	dnnl_data_type_t xt = strcmp(argv[3], "u8") ? dnnl_s8 : dnnl_u8;

	CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
	CHECK(dnnl_stream_create(&str, eng, dnnl_stream_default_flags));
	dnnl_dims_t xd = {1, cin, h, w}, wd = {cout, cin, k, k}, yd = {1, cout, h, w};
	dnnl_dims_t strides = {1, 1}, pad = {k / 2, k / 2};
	dnnl_memory_desc_t xany, wany, yany, xuser, wuser, yuser;
	CHECK(dnnl_memory_desc_init_by_tag(&xany, 4, xd, xt, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&wany, 4, wd, dnnl_s8, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&yany, 4, yd, dnnl_s32, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&xuser, 4, xd, xt, dnnl_nchw));
	CHECK(dnnl_memory_desc_init_by_tag(&wuser, 4, wd, dnnl_s8, dnnl_oihw));
	CHECK(dnnl_memory_desc_init_by_tag(&yuser, 4, yd, dnnl_s32, dnnl_nchw));
	dnnl_convolution_desc_t cd;
	CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
		&xany, &wany, NULL, &yany, strides, pad, pad));
	dnnl_primitive_desc_t pd;
	CHECK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
	const char *impl = "?";
	CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));

	dnnl_memory_t xu, wu, yu;
	CHECK(dnnl_memory_create(&xu, &xuser, eng, x));
	CHECK(dnnl_memory_create(&wu, &wuser, eng, wt));
	CHECK(dnnl_memory_create(&yu, &yuser, eng, y));
	dnnl_memory_t xm = placed(pd, dnnl_query_src_md, xu), wm = placed(pd, dnnl_query_weights_md, wu);
	dnnl_memory_t ym = placed(pd, dnnl_query_dst_md, NULL);
	dnnl_primitive_t conv;
	CHECK(dnnl_primitive_create(&conv, pd));
	dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
	for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		CHECK(dnnl_primitive_execute(conv, str, 3, args));
		CHECK(dnnl_stream_wait(str));
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (r >= 0) ns[r] = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	}
	reorder(ym, yu);
	qsort(ns, runs, sizeof(long long), cmp);
	FILE *o = fopen(argv[2], "wb");
	if (!o || fwrite(y, 4, ny, o) != ny || fclose(o)) { fprintf(stderr, "cannot write %s\n", argv[2]); return 1; }
	if (runs > 0) printf("%lld %lld %s\n", ns[runs / 2], ns[0], impl);
	return 0;
}
