#!/usr/bin/env python3
"""The example's quality figures: import synthesis.onnx with `waiops
import` at each activation width, decode every held-out latent exactly with
`waiops run` on each fabric asked for, check that the fabrics' outputs are
byte-equal, and measure each decode against the original picture and the
float decode (float_reference.py's float64 evaluation of the same ONNX).

    /usr/bin/python3 examples/tinycodec/measure.py [--fabrics cpu,gpu] [--acts i16,i8]

Run from anywhere inside the repository; it builds cmd/waiops into a
temporary folder unless --waiops names a binary. It prints a Markdown
table (the README's) and, with --json, writes the figures there. It exits
1 if two fabrics' outputs differ.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import float_reference as ref  # noqa: E402


def call(cmd, out=subprocess.DEVNULL, cwd=None):
    """Run cmd; on failure show its stderr and stop."""
    r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, cwd=cwd, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=os.path.join(HERE, "synthesis.onnx"))
    p.add_argument("--acts", default="i16,i8", help="activation widths to import at")
    p.add_argument("--fabrics", default="cpu", help="fabrics to decode on (waiops run --fabric)")
    p.add_argument("--waiops", help="a built waiops binary (default: go build ./cmd/waiops)")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--keep", help="keep the graphs, reports and decodes in this folder")
    args = p.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="tinycodec-")
    os.makedirs(work, exist_ok=True)
    root = os.path.dirname(os.path.dirname(HERE))
    waiops = args.waiops
    if not waiops:
        waiops = os.path.join(work, "waiops")
        call(["go", "build", "-o", waiops, "./cmd/waiops"], cwd=root)

    heldout = os.path.join(HERE, "heldout")
    names = sorted(f[:-4] for f in os.listdir(heldout) if f.endswith(".npy"))
    model = onnx.load(args.model)
    figures = {"model": os.path.relpath(args.model, root), "pictures": {}}
    dec, orig = {}, {}
    for name in names:
        lat = ref.load_latent(os.path.join(heldout, name + ".npy"))
        ref.write_latent_json(os.path.join(work, name + ".in.json"), lat)
        dec[name] = ref.float_decode(model, lat)
        orig[name] = ref.load_picture(os.path.join(heldout, name + ".png"), "1")
        figures["pictures"][name] = {"float_psnr_db": round(ref.psnr(dec[name], orig[name]), 3), "exact": {}}

    same = True
    for acts in args.acts.split(","):
        graph = os.path.join(work, f"synthesis-{acts}.whg1")
        call([waiops, "import", args.model, "--calib", os.path.join(HERE, "calib"), "--held", heldout,
              "--acts", acts, "--out", graph, "--report", os.path.join(work, f"report-{acts}")])
        for name in names:
            outs = {}
            for fabric in args.fabrics.split(","):
                out = os.path.join(work, f"{name}.{acts}.{fabric}.json")
                with open(out, "w") as f:
                    call([waiops, "run", graph, "--inputs", os.path.join(work, name + ".in.json"),
                          "--fabric", fabric], out=f)
                with open(out, "rb") as f:
                    outs[fabric] = f.read()
            equal = len(set(outs.values())) == 1
            same &= equal
            first = os.path.join(work, f"{name}.{acts}.{args.fabrics.split(',')[0]}.json")
            exact = ref.load_picture(first, "1")
            diff = np.abs(exact.astype(np.int32) - dec[name].astype(np.int32))
            figures["pictures"][name]["exact"][acts] = {
                "psnr_db": round(ref.psnr(exact, orig[name]), 3),
                "psnr_vs_float_db": round(ref.psnr(exact, dec[name]), 3),
                "max_abs_diff_vs_float": int(diff.max()),
                "share_differing_vs_float": round(float(np.mean(diff != 0)), 6),
                "fabrics": sorted(outs), "fabrics_byte_equal": equal}

    acts_list = args.acts.split(",")
    print("| picture | float decode | " + " | ".join(f"exact, --acts {a}" for a in acts_list) + " |")
    print("|---|---:|" + "---:|" * len(acts_list))
    for name, fig in figures["pictures"].items():
        cells = [f"{fig['exact'][a]['psnr_db']:.2f} dB ({fig['exact'][a]['psnr_vs_float_db']:.1f} dB vs float)"
                 for a in acts_list]
        print(f"| {name} | {fig['float_psnr_db']:.2f} dB | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
            f.write("\n")
    if not same:
        print("fabrics' outputs differ", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
