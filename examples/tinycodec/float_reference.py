#!/usr/bin/env python3
"""Float reference for the tinycodec example: run an ONNX synthesis graph
on a latent in float64 and measure pictures against the original.

It reads the ONNX file itself (python3-onnx) and evaluates its nodes with
torch in float64, so it checks the exported file, not the training code.
It knows the ops torch.onnx.export writes for this example and a few more
(Conv, ConvTranspose, Pow, Mul, Div, Sqrt, Add, Sub, Max, Unsqueeze,
Relu, Identity, Constant); any other op stops it with the op's name.

    /usr/bin/python3 examples/tinycodec/float_reference.py \\
        examples/tinycodec/synthesis.onnx examples/tinycodec/heldout/chelsea.npy \\
        --original examples/tinycodec/heldout/chelsea.png \\
        [--compare exact.json ...] [--out float.png] [--latent-json in.json]

prints JSON: the float decode's PSNR against the original and, for each
--compare picture, its PSNR against the original and against the float
decode, its max |difference| from the float decode in 8-bit steps, and the
share of samples that differ from it. Pictures are 8-bit RGB; a float
picture in [0, 1] becomes clamp(floor(255 v + 1/2), 0, 255). A --compare
picture is a PNG; a .json, the output of `waiops run` (a list of §14.1
tensors, the first [3, H, W] of 0..255 samples); or a .npy [1,3,H,W] or
[3,H,W] in [0, 1] (or 0..255 with --compare-scale 255).

--latent-json writes the latent as `waiops run --inputs` reads it, so an
imported graph's exact decode is

    waiops run G.whg1 --inputs in.json --fabric cpu > exact.json
"""

import argparse
import json
import math
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper
from PIL import Image


BINARY = {"Pow": torch.pow, "Mul": torch.mul, "Div": torch.div, "Add": torch.add, "Sub": torch.sub,
          "Max": torch.maximum}


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def conv(x, w, b, a):
    pads = list(a.get("pads", [0, 0, 0, 0]))
    x = F.pad(x, (pads[1], pads[3], pads[0], pads[2]))
    return F.conv2d(x, w, b, stride=tuple(a.get("strides", [1, 1])),
                    dilation=tuple(a.get("dilations", [1, 1])), groups=a.get("group", 1))


def conv_transpose(x, w, b, a):
    # Full transposed convolution with the output padding, then drop the
    # pads: ONNX's pads may differ at the two ends, torch's may not.
    stride = a.get("strides", [1, 1])
    pads = list(a.get("pads", [0, 0, 0, 0]))
    y = F.conv_transpose2d(x, w, b, stride=tuple(stride), padding=0,
                           output_padding=tuple(a.get("output_padding", [0, 0])),
                           groups=a.get("group", 1), dilation=tuple(a.get("dilations", [1, 1])))
    return y[:, :, pads[0]:y.shape[2] - pads[2], pads[1]:y.shape[3] - pads[3]]


def run(model, latent):
    """Evaluate the graph on latent (float64 tensor); the first output."""
    env = {t.name: torch.from_numpy(numpy_helper.to_array(t).astype(np.float64)) for t in model.graph.initializer}
    env[model.graph.input[0].name] = latent
    for node in model.graph.node:
        a = attrs(node)
        x = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Constant":
            y = torch.from_numpy(numpy_helper.to_array(a["value"]).astype(np.float64))
        elif op == "Conv":
            y = conv(x[0], x[1], x[2] if len(x) > 2 else None, a)
        elif op == "ConvTranspose":
            y = conv_transpose(x[0], x[1], x[2] if len(x) > 2 else None, a)
        elif op in BINARY:
            y = BINARY[op](x[0], x[1])
        elif op == "Unsqueeze":  # opset 13: the axes are an input
            y = x[0]
            for axis in sorted(int(v) for v in x[1].flatten()):
                y = y.unsqueeze(axis)
        elif op == "Sqrt":
            y = torch.sqrt(x[0])
        elif op == "Relu":
            y = torch.relu(x[0])
        elif op == "Identity":
            y = x[0]
        else:
            sys.exit(f"float_reference: node {node.name!r}: op {op} is not known here")
        env[node.output[0]] = y
    return env[model.graph.output[0].name]


def load_latent(path):
    """An .npy latent as float64 [1, M, h, w]."""
    latent = np.load(path).astype(np.float64)
    return latent[None] if latent.ndim == 3 else latent


def float_decode(model, latent):
    """The ONNX model's float64 decode of latent [1, M, h, w], as 8-bit RGB."""
    with torch.no_grad():
        return to_uint8(run(model, torch.from_numpy(latent)).numpy())


def write_latent_json(path, latent):
    """latent [1, M, h, w] as `waiops run --inputs` reads it: a list of one
    §14.1 tensor, integers as canonical decimal strings."""
    if not np.array_equal(latent, np.round(latent)):
        sys.exit(f"{path}: a latent holds whole numbers")
    with open(path, "w") as f:
        json.dump([{"data": [str(int(v)) for v in latent.flatten()],
                    "shape": [str(d) for d in latent.shape[1:]]}], f)


def to_uint8(v):
    """[1, 3, H, W] or [3, H, W] float in [0, 1] -> H x W x 3 uint8."""
    v = np.asarray(v, dtype=np.float64).reshape(-1, *np.shape(v)[-2:])
    return np.clip(np.floor(v * 255 + 0.5), 0, 255).astype(np.uint8).transpose(1, 2, 0)


def load_picture(path, scale):
    if path.endswith(".json"):
        with open(path) as f:
            t = json.load(f)[0]
        v = np.asarray([int(x) for x in t["data"]], dtype=np.int64).reshape([int(d) for d in t["shape"]])
        return np.clip(v, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    if path.endswith(".npy"):
        v = np.load(path).astype(np.float64)
        return to_uint8(v / 255.0 if scale == "255" else v)
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.uint8)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("latent", help=".npy, [1, M, h, w] or [M, h, w]")
    p.add_argument("--original", help="the original picture (PNG)")
    p.add_argument("--compare", action="append", default=[], help="another decode to measure (PNG or .npy)")
    p.add_argument("--compare-scale", choices=("1", "255"), default="1", help="range of a .npy --compare")
    p.add_argument("--out", help="write the float decode here (PNG)")
    p.add_argument("--latent-json", help="write the latent here as `waiops run --inputs` JSON")
    args = p.parse_args()

    latent = load_latent(args.latent)
    if args.latent_json:
        write_latent_json(args.latent_json, latent)
    dec = float_decode(onnx.load(args.model), latent)
    if args.out:
        Image.fromarray(dec).save(args.out)
    res = {"model": args.model, "latent": args.latent, "shape": list(dec.shape)}
    orig = None
    if args.original:
        orig = load_picture(args.original, "1")
        res["float_psnr_db"] = round(psnr(dec, orig), 3)
    for path in args.compare:
        other = load_picture(path, args.compare_scale)
        diff = np.abs(other.astype(np.int32) - dec.astype(np.int32))
        r = {"psnr_vs_float_db": round(psnr(other, dec), 3), "max_abs_diff_vs_float": int(diff.max()),
             "share_differing_vs_float": round(float(np.mean(diff != 0)), 6)}
        if orig is not None:
            r["psnr_db"] = round(psnr(other, orig), 3)
        res[path] = r
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
