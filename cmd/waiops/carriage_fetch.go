package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/serve"
	"github.com/waiops/waiops/carriage/store"
)

func init() {
	commands["prior fetch"] = command{summary: "fetch a set by digest from set roots over HTTP and hold it (prior-carriage §15, §16)", runCtx: runPriorFetch}
	commands["prior fetch-tree"] = command{summary: "fetch a set by range from several sources, each piece verified on arrival (prior-carriage §19.2)", runCtx: runPriorFetchTree}
	commands["prior serve"] = command{summary: "serve a store as a set root over HTTP (prior-carriage §15, §16, §18.1)", runCtx: runPriorServe}
	commands["prior dcz"] = command{summary: "code a successor as dcz against its predecessor (prior-carriage §16, RFC 9842)", run: runPriorDcz}
}

// progressFloor is the smallest transfer that shows a progress bar.
const progressFloor = 4 << 20

// progress is a fetcher's Progress: a bar on stderr for a transfer of more
// than progressFloor bytes when stderr is a terminal, and nothing otherwise.
func progress(stderr io.Writer) func(total int64) fetch.Meter {
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	return func(total int64) fetch.Meter {
		if total <= progressFloor {
			return nil
		}
		return progressbar.NewOptions64(total, progressbar.OptionSetWriter(f), progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish(), progressbar.OptionSetDescription("fetching"))
	}
}

// reporter prints each attempt that fails on stderr: `root <url>: <code>`,
// `coded <url>: <code>`, `piece <i> <url>: <code>` or, for a run of
// pieces asked in one request, `pieces <i>-<j> <url>: <code>`.
func reporter(stderr io.Writer) func(fetch.Attempt) {
	return func(a fetch.Attempt) {
		switch {
		case a.Kind == "piece" && a.Pieces > 1:
			fmt.Fprintf(stderr, "pieces %d-%d %s: %s\n", a.Piece, a.Piece+a.Pieces-1, a.URL, a.Code())
			return
		case a.Kind == "piece":
			fmt.Fprintf(stderr, "piece %d %s: %s\n", a.Piece, a.URL, a.Code())
			return
		}
		fmt.Fprintf(stderr, "%s %s: %s\n", a.Kind, a.URL, a.Code())
	}
}

// digestArg reads a digest: 64 lower-case hexadecimal digits.
func digestArg(what, s string) ([32]byte, error) {
	var d [32]byte
	if len(s) != 64 || strings.ToLower(s) != s {
		return d, fmt.Errorf("%s %q is not 64 lower-case hexadecimal digits", what, s)
	}
	_, err := hex.Decode(d[:], []byte(s))
	if err != nil {
		return d, fmt.Errorf("%s %q is not 64 lower-case hexadecimal digits", what, s)
	}
	return d, nil
}

// limitFlags are the limits `prior fetch` and `prior fetch-tree` share
// (the bound and timeout of docs/READINGS.md D-H3).
type limitFlags struct {
	maxBytes *string
	timeout  *time.Duration
	minRate  *int64
	deadline *time.Duration
}

const limitUsage = "[--max-bytes N] [--timeout DUR] [--min-rate N] [--deadline DUR]"

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	return &limitFlags{
		maxBytes: fs.String("max-bytes", "", "the byte bound, inclusive: a set of more bytes is refused without reading past the bound (default 16 GiB, 2^34)"),
		timeout:  fs.Duration("timeout", fetch.DefaultTimeout, "how long a request may stay silent, or below --min-rate"),
		minRate:  fs.Int64("min-rate", fetch.DefaultMinRate, "the bytes a second each --timeout of a response must bring (0: silence alone counts)"),
		deadline: fs.Duration("deadline", 0, "how long one request's whole transfer may take (0: no deadline)"),
	}
}

// fetcher is the fetcher the flags say, or a usage error.
func (l *limitFlags) fetcher(dir string, stderr io.Writer) (*fetch.Fetcher, error) {
	var bound uint64
	if *l.maxBytes != "" {
		var err error
		if bound, err = strconv.ParseUint(*l.maxBytes, 10, 64); err != nil || bound == 0 {
			return nil, fmt.Errorf("--max-bytes %q is not an integer of 1 to 2^64 - 1", *l.maxBytes)
		}
	}
	if *l.minRate < 0 || *l.deadline < 0 {
		return nil, fmt.Errorf("--min-rate and --deadline take no negative value")
	}
	rate := *l.minRate
	if rate == 0 {
		rate = -1 // the fetcher's "silence alone"
	}
	return &fetch.Fetcher{Store: store.Store(dir), Timeout: *l.timeout, MinRate: rate, Deadline: *l.deadline,
		MaxBytes: bound, Report: reporter(stderr), Progress: progress(stderr)}, nil
}

// runPriorFetch is `waiops prior fetch DIGEST --store DIR [--root URL]...
// [--hint URL]... [--origin URL] [--listing] [--form F] [--predecessor DIGEST]
// [--max-bytes N] [--timeout DUR] [--min-rate N] [--deadline DUR]`: `held
// <digest>` on stdout once the set is held at DIR/<digest>; each root
// passed over on stderr. --form is the pin's declared form, checked by §2
// before any request.
func runPriorFetch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior fetch", stderr)
	setUsage(fs, "DIGEST --store DIR [--root URL]... [--hint URL]... [--origin URL] [--listing] [--form F] [--predecessor DIGEST] "+limitUsage)
	dir := fs.String("store", "", "the content-addressed store: DIR/<sha256> for each resource held")
	var roots, hints paths
	fs.Var(&roots, "root", "a configured set root, asked first (repeatable; an http or https URL ending in /)")
	fs.Var(&hints, "hint", "a location hint, a set root asked after the configured ones (repeatable)")
	origin := fs.String("origin", "", "the origin, whose well-known root /.well-known/wai-sets/ is asked last")
	listing := fs.Bool("listing", false, "the digest names a wai.prior.set listing: fetch it, then each file it names that the store lacks")
	form := fs.String("form", "", "the pin's declared form (prior-carriage §2): wai.prior.set fetches a listing; sealed sets and tree heads are form_unreadable here")
	predHex := fs.String("predecessor", "", "a held set to name as a dcz dictionary (prior-carriage §16); with --listing, a held listing whose files are named path by path")
	limits := addLimitFlags(fs)
	pos, ok := positionals(fs, args, 1, func() bool { return *dir != "" && *limits.timeout > 0 })
	if !ok {
		return 2
	}
	d, err := digestArg("DIGEST", pos[0])
	if err != nil {
		return usageError(fs, err)
	}
	isListing, err := fetch.PinForm(*form)
	if err != nil {
		return fail(err, stderr)
	}
	if *listing && *form != "" && !isListing {
		return usageError(fs, fmt.Errorf("--listing names a wai.prior.set, not form %s", *form))
	}
	*listing = *listing || isListing
	var pred *[32]byte
	if *predHex != "" {
		p, err := digestArg("--predecessor", *predHex)
		if err != nil {
			return usageError(fs, err)
		}
		pred = &p
	}
	f, err := limits.fetcher(*dir, stderr)
	if err != nil {
		return usageError(fs, err)
	}
	all, err := fetch.Roots(roots, hints, *origin)
	if err != nil {
		return usageError(fs, err)
	}
	if *listing {
		_, err = f.FetchListing(ctx, d, all, pred)
	} else {
		err = f.Fetch(ctx, d, all, pred)
	}
	if err != nil {
		return failCtx(ctx, err, stderr)
	}
	fmt.Fprintf(stdout, "held %x\n", d)
	return 0
}

// runPriorFetchTree is `waiops prior fetch-tree HEAD.wtr1 --store DIR
// --source URL [--source URL]... [--max-bytes N] [--timeout DUR] [--min-rate
// N] [--deadline DUR]`: `held <inner>` on stdout once the set is held at
// DIR/<inner>; each failed attempt at a piece, or a run of pieces, on
// stderr.
func runPriorFetchTree(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior fetch-tree", stderr)
	setUsage(fs, "HEAD.wtr1 --store DIR --source URL [--source URL]... "+limitUsage)
	dir := fs.String("store", "", "the content-addressed store: the set is held at DIR/<inner>")
	var sources paths
	fs.Var(&sources, "source", "a set root that serves the set by range at <source><inner> (repeatable, in the order pieces are asked)")
	limits := addLimitFlags(fs)
	pos, ok := positionals(fs, args, 1, func() bool { return *dir != "" && len(sources) != 0 && *limits.timeout > 0 })
	if !ok {
		return 2
	}
	for _, s := range sources {
		if err := fetch.CheckRoot(s); err != nil {
			return usageError(fs, err)
		}
	}
	f, err := limits.fetcher(*dir, stderr)
	if err != nil {
		return usageError(fs, err)
	}
	h, err := readHead(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	if err := f.FetchTree(ctx, h, sources); err != nil {
		return failCtx(ctx, err, stderr)
	}
	fmt.Fprintf(stdout, "held %x\n", h.Inner)
	return 0
}

// runPriorServe is `waiops prior serve --store DIR [--addr 127.0.0.1:PORT]
// [--origin] [--metrics-addr ADDR] [--grace DUR] [--codings N]
// [--coding-bytes N] [--cache-bytes N] [--write-idle DUR] [--idle-timeout
// DUR] [--access-log]` (DIR may stand as the one positional argument
// instead, the older form): it prints `serving <root>` (and `metrics
// <url>`) on stdout, an access log line per response on stderr, and serves
// until SIGINT or SIGTERM, then lets the responses in flight finish for up
// to --grace. Its ordinary end is that stop: a clean shutdown exits 0.
func runPriorServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior serve", stderr)
	setUsage(fs, "--store DIR [--addr 127.0.0.1:PORT] [--origin] [--metrics-addr ADDR] [--grace DUR] [--codings N] [--coding-bytes N] [--cache-bytes N] [--write-idle DUR] [--idle-timeout DUR] [--max-conns N] [--access-log]   (or: prior serve DIR ...)")
	dir := fs.String("store", "", "the content-addressed store to serve, DIR/<sha256> for each resource, as prior fetch holds them")
	addr := fs.String("addr", "127.0.0.1:0", "the address to listen on (port 0: any free port)")
	origin := fs.Bool("origin", false, "serve as the sets' origin: sets whose terms say redistribute false are served too (prior-carriage §18.1)")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at /metrics on this address (none when empty)")
	grace := fs.Duration("grace", 10*time.Second, "on SIGINT or SIGTERM, how long responses in flight may take to finish")
	codings := fs.Int("codings", 2, "the most dcz codings made at once; a request past it gets the identity body")
	codingBytes := fs.Int64("coding-bytes", 1<<30, "the most memory the dcz codings running are charged together")
	cacheBytes := fs.Int64("cache-bytes", 256<<20, "the most bytes of coded bodies kept")
	writeIdle := fs.Duration("write-idle", 30*time.Second, "how long a client may take to read 1 MiB before its connection is closed")
	idle := fs.Duration("idle-timeout", serve.IdleTimeout, "how long a keep-alive connection may wait for its next request")
	maxConns := fs.Int("max-conns", 1024, "the most connections open at once; one past it waits to be accepted until another closes")
	accessLog := fs.Bool("access-log", true, "write a line per response on stderr")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	switch {
	case len(pos) > 1 || len(pos) == 1 && *dir != "" && *dir != pos[0]:
		return usageError(fs, fmt.Errorf("give the store once, as --store DIR or as DIR"))
	case len(pos) == 1:
		*dir = pos[0]
	case *dir == "":
		return usageError(fs, fmt.Errorf("give the store: --store DIR"))
	}
	for _, bad := range []bool{*grace <= 0, *codings <= 0, *codingBytes <= 0, *cacheBytes <= 0, *writeIdle <= 0, *idle <= 0, *maxConns <= 0} {
		if bad {
			return usageError(fs, errors.New("--grace, --codings, --coding-bytes, --cache-bytes, --write-idle, --idle-timeout and --max-conns must be positive"))
		}
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		return fail(fmt.Errorf("%s is not a directory", *dir), stderr)
	}
	cfg := serve.Config{Store: store.Store(*dir), Origin: *origin, Codings: *codings, CodingBytes: *codingBytes,
		CacheBytes: *cacheBytes, WriteIdle: *writeIdle}
	if *accessLog {
		cfg.AccessLog = stderr
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The bounds are the memory the server means to use: the garbage
		// collector works harder near them instead of letting the heap
		// double past them (an operator's GOMEMLIMIT wins).
		debug.SetMemoryLimit(*codingBytes + *cacheBytes + 256<<20)
	}
	ln, err := serve.Listen(*addr, *maxConns)
	if err != nil {
		return fail(err, stderr)
	}
	h := serve.NewServer(cfg)
	var mln net.Listener
	if *metricsAddr != "" {
		if mln, err = net.Listen("tcp", *metricsAddr); err != nil {
			ln.Close()
			return fail(err, stderr)
		}
	}
	fmt.Fprintf(stdout, "serving http://%s%s\n", ln.Addr(), fetch.WellKnown)
	if mln != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", h.Metrics())
		go serve.Run(ctx, serve.HTTPServer(mux, *idle), mln, *grace)
		fmt.Fprintf(stdout, "metrics http://%s/metrics\n", mln.Addr())
	}
	err = serve.Run(ctx, serve.HTTPServer(h, *idle), ln, *grace)
	if errors.Is(err, serve.ErrGrace) {
		// Stopping was asked for, and the server stopped: a note, not a failure.
		fmt.Fprintf(stderr, "prior serve: %v\n", err)
		return 0
	}
	if err != nil {
		return fail(err, stderr)
	}
	return 0
}

// runPriorDcz is `waiops prior dcz --dictionary PRED IN OUT`: OUT (- for
// stdout) is IN coded as dcz against PRED (the 40-byte header, then one Zstandard frame
// with PRED as its raw dictionary).
func runPriorDcz(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior dcz", stderr)
	setUsage(fs, "--dictionary PRED IN OUT")
	dict := fs.String("dictionary", "", "the predecessor, the dictionary the coding names")
	pos, ok := positionals(fs, args, 2, func() bool { return *dict != "" })
	if !ok {
		return 2
	}
	pred, err := os.ReadFile(*dict)
	if err != nil {
		return fail(err, stderr)
	}
	in, err := os.Open(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	defer in.Close()
	if err := writeResult(pos[1], stdout, func(w io.Writer) error { return dcz.Encode(w, pred, in) }); err != nil {
		return fail(err, stderr)
	}
	return 0
}
