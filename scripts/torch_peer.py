#!/usr/bin/env python3
"""PyTorch peer of waiops' conv and whole networks: the same 3x3 64->64
conv on the same int8 data, and each network case's float twin, through
cuDNN in fp32, TF32 and fp16, timed with CUDA events, set beside our
figures as time ratios.

Inputs: the files `waiops bench --ops conv3x3_raw --peer-data DIR` writes
(DIR/conv3x3_raw_<side>.bin: six little-endian int32, cin cout h w k runs,
then the int8 input, C x H x W, then the int8 weights, Cout x Cin x k x k),
and one or more bench.json files holding our conv3x3_raw_<side> figures.

For each file and each variant it reports the kernel time (CUDA events
around conv2d alone, data resident, cudnn.benchmark on), an end-to-end time
(int8 host data to the device, conv, int32 result back to the host: what
one waiops decode does), and how far the result is from the exact integer
sums, which it computes in fp64 on the device (exact: every sum is under
2^53). The SHA-256 of those exact sums, as little-endian int64, is the hash
waiops puts in each figure's outputs_sha256, so equal hashes say our GPU
outputs are the exact sums.

The networks (graph_synth4, bmshj2018) come as the float twins `waiops
bench --peer-data DIR` writes for every network case: DIR/<case>.net.json
(the layers: conv_transpose, conv, igdn, relu, with shapes and offsets) and
DIR/<case>.net.f32 (little-endian float32: the input, then each layer's
weights). igdn is x * sqrt(beta + gamma . x^2), the 1x1 contraction a conv.
A twin is float: its output is checked for shape and finiteness, and its
distance from the same twin in fp64 is reported, never compared with ours.

Without torch or CUDA it writes a report that says the peer was skipped,
and exits 0. Timing is floating point by nature; nothing here is an
integer path of the spec.

usage: torch_peer.py --data DIR --out DIR [--bench FILE]... [--runs N] [--device cuda|cpu]
"""

import argparse
import glob
import hashlib
import json
import os
import statistics
import struct
import sys
import time

VARIANTS = ("fp32", "tf32", "fp16", "fp16_nhwc")
NETWORK_OPS = ("graph_synth4", "bmshj2018")


def read_case(path):
    with open(path, "rb") as f:
        b = f.read()
    cin, cout, h, w, k, runs = struct.unpack_from("<6i", b, 0)
    nx, nw = cin * h * w, cout * cin * k * k
    if len(b) != 24 + nx + nw:
        raise ValueError(f"{path}: {len(b)} bytes, want {24 + nx + nw}")
    return dict(cin=cin, cout=cout, h=h, w=w, k=k, runs=runs,
                x=b[24:24 + nx], wt=b[24 + nx:])


def ours(bench_files):
    """case -> fabric -> our figure, from every bench.json named."""
    figs = {}
    for p in bench_files:
        try:
            with open(p) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            print(f"torch_peer: {p}: {e}", file=sys.stderr)
            continue
        for fig in r.get("figures", []):
            if fig.get("op") in ("conv3x3_raw",) + NETWORK_OPS and not fig.get("error"):
                figs.setdefault(fig["case"], {})[fig["fabric"]] = fig
    return figs


def kernel_timer(torch, dev):
    """A function timing one call in ms: CUDA events on a GPU, the wall
    clock on the CPU (--device cpu, for checking this script without one)."""
    if dev.type == "cuda":
        def t(fn):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            y = fn()
            b.record()
            b.synchronize()
            return a.elapsed_time(b), y
    else:
        def t(fn):
            t0 = time.perf_counter()
            y = fn()
            return (time.perf_counter() - t0) * 1e3, y
    return t


def sync(torch, dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def measure(torch, c, runs, dev):
    """Every variant on one case; returns the case's result dict. A variant
    that fails (no fp16 conv on a CPU, say) records its error and leaves
    the others."""
    import numpy as np

    F = torch.nn.functional
    x8 = np.frombuffer(c["x"], dtype=np.int8).reshape(1, c["cin"], c["h"], c["w"])
    w8 = np.frombuffer(c["wt"], dtype=np.int8).reshape(c["cout"], c["cin"], c["k"], c["k"])
    pad = c["k"] // 2
    xd = torch.from_numpy(x8.copy()).to(dev)
    wd = torch.from_numpy(w8.copy()).to(dev)
    exact = F.conv2d(xd.double(), wd.double(), padding=pad)
    exact_i64 = exact.round().to(torch.int64)
    sha = hashlib.sha256(exact_i64.cpu().numpy().astype("<i8").tobytes()).hexdigest()
    macs = c["cout"] * c["h"] * c["w"] * c["cin"] * c["k"] * c["k"]
    res = dict(case=f"conv3x3_raw_{c['h']}", side=c["h"], macs=macs,
               exact_sha256=sha, variants={}, errors={})
    timed = kernel_timer(torch, dev)
    torch.backends.cudnn.benchmark = True
    for v in VARIANTS:
        torch.backends.cudnn.allow_tf32 = v == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = v == "tf32"
        dt = torch.float16 if v.startswith("fp16") else torch.float32
        fmt = torch.channels_last if v.endswith("nhwc") else torch.contiguous_format
        try:
            xv = xd.to(dt).contiguous(memory_format=fmt)
            wv = wd.to(dt).contiguous(memory_format=fmt)
            for _ in range(3):  # warm-up: cudnn.benchmark picks its algorithm here
                y = F.conv2d(xv, wv, padding=pad)
            sync(torch, dev)
            ms = []
            for _ in range(runs):
                t, y = timed(lambda: F.conv2d(xv, wv, padding=pad))
                ms.append(t)
            diff = (y.double() - exact).abs()
            finite = torch.isfinite(diff)
            e2e = []
            for _ in range(max(1, runs // 2)):
                sync(torch, dev)
                t0 = time.perf_counter()
                xh = torch.from_numpy(x8.copy()).to(dev).to(dt).contiguous(memory_format=fmt)
                out = F.conv2d(xh, wv, padding=pad).round().to(torch.int32).cpu()
                e2e.append((time.perf_counter() - t0) * 1e3)
            del out
        except Exception as e:  # noqa: BLE001: one variant's failure keeps the rest
            res["errors"][v] = repr(e)
            continue
        med = statistics.median(ms)
        res["variants"][v] = dict(
            runs=runs, kernel_median_ms=med, kernel_min_ms=min(ms),
            mac_per_s=macs / (med / 1e3), e2e_median_ms=statistics.median(e2e),
            mismatches=int((diff != 0).sum().item()),
            nonfinite=int((~finite).sum().item()),
            max_abs_err=float(diff[finite].max().item()) if bool(finite.any()) else None)
    torch.backends.cudnn.allow_tf32 = True
    return res


def exact_python(c):
    """The exact sums in plain Python, for small cases without torch: the
    SHA-256 of the int64 little-endian sums (C x H x W), as measure gives."""
    cin, cout, h, w, k = c["cin"], c["cout"], c["h"], c["w"], c["k"]
    x = struct.unpack(f"{len(c['x'])}b", c["x"])
    wt = struct.unpack(f"{len(c['wt'])}b", c["wt"])
    p = k // 2
    out = bytearray()
    for o in range(cout):
        plane = [0] * (h * w)
        for ci in range(cin):
            for i in range(k):
                for j in range(k):
                    wv = wt[((o * cin + ci) * k + i) * k + j]
                    if wv == 0:
                        continue
                    for yy in range(max(0, p - i), min(h, h + p - i)):
                        row = (ci * h + yy + i - p) * w
                        for xx in range(max(0, p - j), min(w, w + p - j)):
                            plane[yy * w + xx] += wv * x[row + xx + j - p]
        out += struct.pack(f"<{h * w}q", *plane)
    return hashlib.sha256(bytes(out)).hexdigest()


def read_net(path):
    """A float twin: its description and its float32 blob, as Python floats
    left unread until torch needs them (the bytes)."""
    with open(path) as f:
        d = json.load(f)
    blob_path = path[:-len(".json")] + ".f32"
    with open(blob_path, "rb") as f:
        d["blob"] = f.read()
    n = d["in"]["C"] * d["in"]["H"] * d["in"]["W"]
    for l in d["layers"]:
        if l["op"] in ("conv_transpose", "conv"):
            n += l["cin"] * l["cout"] * l["k"][0] * l["k"][1] // max(1, l.get("groups") or 1)
        elif l["op"] == "igdn":
            n += l["cin"] * l["cin"] + l["cin"]
    if len(d["blob"]) != 4 * n:
        raise ValueError(f"{blob_path}: {len(d['blob'])} bytes, want {4 * n}")
    return d


def net_params(torch, d, dev, dt):
    """The twin's input and each layer's tensors, on dev in dtype dt."""
    flat = torch.frombuffer(bytearray(d["blob"]), dtype=torch.float32)

    def take(off, n, shape):
        return flat[off:off + n].reshape(shape).to(dev).to(dt)

    i = d["in"]
    x = take(0, i["C"] * i["H"] * i["W"], (1, i["C"], i["H"], i["W"]))
    ps = []
    for l in d["layers"]:
        op, cin, cout = l["op"], l["cin"], l["cout"]
        if op == "conv_transpose":
            ps.append(dict(w=take(l["w_off"], cin * cout * l["k"][0] * l["k"][1], (cin, cout, l["k"][0], l["k"][1]))))
        elif op == "conv":
            g = l.get("groups") or 1
            ps.append(dict(w=take(l["w_off"], cout * cin // g * l["k"][0] * l["k"][1], (cout, cin // g, l["k"][0], l["k"][1]))))
        elif op == "igdn":
            ps.append(dict(g=take(l["w_off"], cin * cin, (cin, cin, 1, 1)), b=take(l["b_off"], cin, (cin,))))
        else:
            ps.append({})
    return x, ps


def net_forward(F, torch, d, ps, x):
    """The float twin: conv_transpose, conv, relu, and igdn as
    x * sqrt(beta + gamma . x^2) (the sum a 1x1 conv)."""
    for l, p in zip(d["layers"], ps):
        op = l["op"]
        if op == "conv_transpose":
            x = F.conv_transpose2d(x, p["w"], stride=tuple(l["stride"]), padding=tuple(l["pad"]),
                                   output_padding=tuple(l.get("out_pad") or (0, 0)))
        elif op == "conv":
            x = F.conv2d(x, p["w"], stride=tuple(l["stride"]), padding=tuple(l["pad"]), groups=l.get("groups") or 1)
        elif op == "igdn":
            x = x * torch.sqrt(F.conv2d(x * x, p["g"], p["b"]))
        elif op == "relu":
            x = F.relu(x)
        else:
            raise ValueError(f"{d['case']}: no float layer {op}")
    return x


def measure_net(torch, d, runs, dev):
    """Every variant on one float twin: the forward pass's time (CUDA
    events, data resident), end to end (float input from the host, output
    back), the output's shape and finiteness, and its largest distance from
    the same twin in fp64, relative to the fp64 output's largest magnitude."""
    F = torch.nn.functional
    o = d["out"]
    shape = [1, o["C"], o["H"], o["W"]]
    res = dict(case=d["case"], out=shape, variants={}, errors={})
    with torch.no_grad():
        x64, p64 = net_params(torch, d, dev, torch.float64)
        ref = net_forward(F, torch, d, p64, x64)
        top = float(ref.abs().max().item()) or 1.0
        host = x64.float().cpu()
        del p64
        timed = kernel_timer(torch, dev)
        torch.backends.cudnn.benchmark = True
        for v in VARIANTS:
            torch.backends.cudnn.allow_tf32 = v == "tf32"
            torch.backends.cuda.matmul.allow_tf32 = v == "tf32"
            dt = torch.float16 if v.startswith("fp16") else torch.float32
            fmt = torch.channels_last if v.endswith("nhwc") else torch.contiguous_format
            try:
                xv, ps = net_params(torch, d, dev, dt)
                xv = xv.contiguous(memory_format=fmt)
                ps = [{k: t.contiguous(memory_format=fmt) if t.dim() == 4 else t for k, t in p.items()} for p in ps]
                for _ in range(3):  # warm-up: cudnn.benchmark picks its algorithms here
                    y = net_forward(F, torch, d, ps, xv)
                sync(torch, dev)
                ms = []
                for _ in range(runs):
                    t, y = timed(lambda: net_forward(F, torch, d, ps, xv))
                    ms.append(t)
                e2e = []
                for _ in range(max(1, runs // 2)):
                    sync(torch, dev)
                    t0 = time.perf_counter()
                    xh = host.to(dev).to(dt).contiguous(memory_format=fmt)
                    out = net_forward(F, torch, d, ps, xh).float().cpu()
                    e2e.append((time.perf_counter() - t0) * 1e3)
                del out
            except Exception as e:  # noqa: BLE001: one variant's failure keeps the rest
                res["errors"][v] = repr(e)
                continue
            yd = y.double()
            finite = torch.isfinite(yd)
            med = statistics.median(ms)
            res["variants"][v] = dict(
                runs=runs, kernel_median_ms=med, kernel_min_ms=min(ms), e2e_median_ms=statistics.median(e2e),
                shape_ok=list(y.shape) == shape, nonfinite=int((~finite).sum().item()),
                max_rel_err=float(((yd - ref).abs()[finite].max().item()) / top) if bool(finite.any()) else None)
        torch.backends.cudnn.allow_tf32 = True
    return res


def markdown_nets(rep):
    """The whole-network section of torch_peer.md."""
    if not rep.get("networks"):
        return []
    L = ["# Whole networks: float twins", "",
         "Each network case's float twin (same layers and shapes, fp32 weights, igdn as x*sqrt(beta + gamma.x^2)); "
         "its output is float, checked for shape and finiteness, with its largest distance from the twin in fp64 "
         "(relative to that output's largest magnitude). Ratios are our exact decode's time over the twin's.", ""]
    for c in rep["networks"]:
        L += [f"## {c['case']} (output {'x'.join(str(v) for v in c.get('out', []))})", ""]
        if c.get("variants"):
            L += ["| variant | forward median | forward min | end to end | shape | not finite | max rel err vs fp64 |",
                  "|---|---|---|---|---|---|---|"]
            for v, p in c["variants"].items():
                err = "-" if p["max_rel_err"] is None else f"{p['max_rel_err']:.2e}"
                L.append(f"| {v} | {p['kernel_median_ms']:.3f} ms | {p['kernel_min_ms']:.3f} ms | "
                         f"{p['e2e_median_ms']:.2f} ms | {'ok' if p['shape_ok'] else 'WRONG'} | {p['nonfinite']} | {err} |")
            L.append("")
        for v, e in c.get("errors", {}).items():
            L.append(f"- {v} failed: {e}")
        if c.get("error"):
            L.append(f"- failed: {c['error']}")
        for r in c.get("ratios", []):
            kern = f"{r['ours_kernel_ms']:.3f} ms" if r["ours_kernel_ms"] else "not measured"
            L.append(f"- ours on {r['fabric']}: {r['ours_median_ms']:.2f} ms a decode, kernel {kern}")
            for v in VARIANTS:
                if f"ours_over_{v}_kernel" in r:
                    s = f"  - ours / {v}: decode over forward {r[f'ours_over_{v}_kernel']:.2f}, end to end {r[f'ours_over_{v}_e2e']:.2f}"
                    if f"ours_kernel_over_{v}_kernel" in r:
                        s += f", kernel over forward {r[f'ours_kernel_over_{v}_kernel']:.2f}"
                    L.append(s)
        L.append("")
    return L


def ratios(res, figs):
    """Our time over the peer's, per our fabric and variant (over 1: we are slower)."""
    out = []
    for fabric, fig in sorted(figs.get(res["case"], {}).items()):
        split = fig.get("gpu_split") or {}
        kern = split.get("kernel_ns", 0)
        if kern < 1000 * max(1, split.get("dispatches", 1)):
            kern = 0  # not measured (llvmpipe reads 1 ns a dispatch)
        row = dict(fabric=fabric, ours_median_ms=fig["median_ns"] / 1e6,
                   ours_kernel_ms=kern / 1e6 if kern else None,
                   ours_exact=fig.get("outputs_sha256") == res["exact_sha256"] if "exact_sha256" in res else None)
        for v, pv in res.get("variants", {}).items():
            row[f"ours_over_{v}_kernel"] = fig["median_ns"] / 1e6 / pv["kernel_median_ms"]
            row[f"ours_over_{v}_e2e"] = fig["median_ns"] / 1e6 / pv["e2e_median_ms"]
            if kern:
                row[f"ours_kernel_over_{v}_kernel"] = kern / 1e6 / pv["kernel_median_ms"]
        out.append(row)
    return out


def markdown(rep):
    L = ["# PyTorch peer: conv 3x3 64->64, same int8 data", ""]
    if rep.get("skipped"):
        L += [f"Skipped: {rep['skipped']}.", ""]
    for k in ("torch", "cuda", "cudnn", "device"):
        if rep.get(k):
            L.append(f"- {k}: {rep[k]}")
    L.append("")
    for c in rep["cases"]:
        L += [f"## {c['case']} ({c.get('macs', 0) / 1e9:.2f} G MAC)", ""]
        if c.get("variants"):
            L += ["| variant | kernel median | kernel MAC/s | end to end | elements off the exact sums | max abs err |",
                  "|---|---|---|---|---|---|"]
            for v, p in c["variants"].items():
                L.append(f"| {v} | {p['kernel_median_ms']:.3f} ms | {p['mac_per_s'] / 1e9:.1f} G | "
                         f"{p['e2e_median_ms']:.2f} ms | {p['mismatches']} ({p['nonfinite']} not finite) | {p['max_abs_err']} |")
            L.append("")
        for v, e in c.get("errors", {}).items():
            L.append(f"- {v} failed: {e}")
        if c.get("error"):
            L.append(f"- failed: {c['error']}")
        for r in c.get("ratios", []):
            kern = f"{r['ours_kernel_ms']:.3f} ms" if r["ours_kernel_ms"] else "not measured"
            exact = {True: "yes", False: "NO", None: "not checked"}[r["ours_exact"]]
            L.append(f"- ours on {r['fabric']}: {r['ours_median_ms']:.2f} ms a decode, kernel {kern}, "
                     f"outputs are the exact sums: {exact}")
            for v in VARIANTS:
                if f"ours_over_{v}_kernel" in r:
                    s = f"  - ours / {v}: decode over kernel {r[f'ours_over_{v}_kernel']:.2f}, end to end {r[f'ours_over_{v}_e2e']:.2f}"
                    if f"ours_kernel_over_{v}_kernel" in r:
                        s += f", kernel over kernel {r[f'ours_kernel_over_{v}_kernel']:.2f}"
                    L.append(s)
        L.append("")
    L += markdown_nets(rep)
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bench", action="append", default=[])
    ap.add_argument("--runs", type=int, default=0, help="timed runs (default: the files' runs field)")
    ap.add_argument("--device", default="cuda",
                    help="cuda (the peer), or cpu to check this script where there is no GPU")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    files = sorted(glob.glob(os.path.join(a.data, "conv3x3_raw_*.bin")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    nets = sorted(glob.glob(os.path.join(a.data, "*.net.json")))
    rep = dict(cases=[], networks=[])
    figs = ours(a.bench)
    torch = None
    try:
        import numpy  # noqa: F401
        import torch
        if a.device == "cuda" and not torch.cuda.is_available():
            rep["skipped"] = "torch has no CUDA device"
            torch = None
    except ImportError as e:
        rep["skipped"] = f"no {e.name} in this python3"
    if torch is not None:
        rep.update(torch=torch.__version__, cuda=torch.version.cuda, cudnn=str(torch.backends.cudnn.version()),
                   device=torch.cuda.get_device_name(0) if a.device == "cuda" else "cpu (a check of this script, not a peer)")
    if not files and not nets:
        rep.setdefault("skipped", f"no conv3x3_raw_*.bin nor *.net.json in {a.data}")
    status = 0
    for p in files:
        c = read_case(p)
        if torch is None:
            res = dict(case=f"conv3x3_raw_{c['h']}", side=c["h"],
                       macs=c["cout"] * c["h"] * c["w"] * c["cin"] * c["k"] * c["k"])
            if c["h"] * c["w"] <= 16 * 16:  # small enough to check our outputs without torch
                res["exact_sha256"] = exact_python(c)
        else:
            try:
                res = measure(torch, c, a.runs or max(c["runs"], 5), torch.device(a.device))
            except Exception as e:  # one case's failure keeps the others
                res = dict(case=f"conv3x3_raw_{c['h']}", side=c["h"], error=repr(e))
                status = 1
        res["ratios"] = ratios(res, figs)
        rep["cases"].append(res)
        print(f"torch_peer: {res['case']} done", file=sys.stderr, flush=True)
    for p in nets:
        try:
            d = read_net(p)
        except (OSError, ValueError) as e:
            rep["networks"].append(dict(case=os.path.basename(p), error=repr(e)))
            status = 1
            continue
        o = d["out"]
        res = dict(case=d["case"], out=[1, o["C"], o["H"], o["W"]])
        if torch is not None:
            try:
                res = measure_net(torch, d, a.runs or max(d.get("runs", 0), 5), torch.device(a.device))
            except Exception as e:  # one network's failure keeps the others
                res["error"] = repr(e)
                status = 1
        res["ratios"] = ratios(res, figs)
        rep["networks"].append(res)
        print(f"torch_peer: {d['case']} done", file=sys.stderr, flush=True)
    with open(os.path.join(a.out, "torch_peer.json"), "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    with open(os.path.join(a.out, "torch_peer.md"), "w") as f:
        f.write(markdown(rep))
    print(f"torch_peer: {len(rep['cases'])} cases and {len(rep['networks'])} networks written to {a.out}"
          + (f" (skipped: {rep['skipped']})" if rep.get("skipped") else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
