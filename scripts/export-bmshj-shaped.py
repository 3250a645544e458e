#!/usr/bin/env python3
"""Write a bmshj2018-shaped synthesis transform as ONNX, with calibration
latents, for `waiops import`'s size and speed check (README, Bring your own network).

The shape is bmshj2018-factorized's g_s (Balle et al., ICLR 2018) with
N = 128, M = 192:

    ConvT 5x5/2 (192->128) IGDN, ConvT 5x5/2 (128->128) IGDN,
    ConvT 5x5/2 (128->128) IGDN, ConvT 5x5/2 (128->3)

so a latent [1, 192, 32, 48] decodes to a 768x512 picture [1, 3, 512, 768].
The weights are random (seeded), not trained: torch's default init, then
each layer's weights and bias rescaled on the first calibration latent so
that its output has mean 0 and standard deviation 1 (the last: mean 1/2,
deviation 1/4, a picture's range). IGDN starts as in training,
beta = 1, gamma = 0.1 I, plus a small seeded non-negative spread off the
diagonal so that every gamma_ij is used. The IGDN module and its export
forms are scripts/train-tiny-codec.py's.

Calibration latents look like a trained model's: whole numbers drawn from
a zero-mean Laplace per channel, the channel scales log-uniform in
[0.05, 8] so that many channels are nearly all zero, as in trained codecs.

    /usr/bin/python3 scripts/export-bmshj-shaped.py /tmp/bmshj.onnx --calib /tmp/bmshj-calib

The ONNX file is about 6 MB; it is not committed.
"""

import argparse
import importlib.util
import math
import os

import numpy as np
import torch
import torch.nn as nn

N, M = 128, 192
LATENT_H, LATENT_W = 32, 48  # 512 x 768 picture


def tiny_codec():
    """scripts/train-tiny-codec.py as a module (its name is not an identifier)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train-tiny-codec.py")
    spec = importlib.util.spec_from_file_location("train_tiny_codec", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def synthesis(form):
    tc = tiny_codec()
    layers = []
    for k, (cin, cout) in enumerate(((M, N), (N, N), (N, N), (N, 3))):
        layers.append(nn.ConvTranspose2d(cin, cout, 5, 2, 2, 1))
        if k < 3:
            layers.append(tc.GDN(cout, True, form))
    return nn.Sequential(*layers)


def latents(gen, count):
    scale = torch.exp(torch.empty(M).uniform_(math.log(0.05), math.log(8.0), generator=gen))
    out = []
    for _ in range(count):
        u = torch.rand(1, M, LATENT_H, LATENT_W, generator=gen) - 0.5
        lap = -scale[None, :, None, None] * torch.sign(u) * torch.log1p(-2 * u.abs())
        out.append(torch.round(lap))
    return out


def normalise(g_s, latent, gen):
    """Rescale each ConvTranspose so that its output on latent is standardised."""
    x = latent
    with torch.no_grad():
        for layer in g_s:
            if isinstance(layer, nn.ConvTranspose2d):
                y = layer(x)
                last = layer.out_channels == 3
                mean, std = y.mean(dim=(0, 2, 3)), y.std(dim=(0, 2, 3))
                target_std, target_mean = (0.25, 0.5) if last else (1.0, 0.0)
                f = target_std / std
                layer.weight.mul_(f[None, :, None, None])
                layer.bias.copy_((layer.bias - mean) * f + target_mean)
            else:  # IGDN: spread gamma off the diagonal
                c = layer.gamma_root.shape[0]
                off = 0.01 * torch.rand(c, c, generator=gen)
                layer.gamma_root.copy_(torch.sqrt(0.1 * torch.eye(c) + off * (1 - torch.eye(c))))
            x = layer(x)
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="the ONNX file to write")
    p.add_argument("--calib", help="folder for the calibration latents (.npy)")
    p.add_argument("--count", type=int, default=4, help="how many calibration latents")
    p.add_argument("--seed", type=int, default=2018)
    p.add_argument("--gdn-form", choices=("mul", "div"), default="mul",
                   help="IGDN export form: x*sqrt(n) or x/rsqrt(n) (see train-tiny-codec.py)")
    p.add_argument("--static", action="store_true", help="fix the input shape at [1, 192, 32, 48]")
    args = p.parse_args()

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    g_s = synthesis(args.gdn_form)
    lat = latents(gen, max(args.count, 1))
    pic = normalise(g_s, lat[0], gen)
    g_s.eval()
    axes = None if args.static else {"latent": {2: "h", 3: "w"}, "picture": {2: "H", 3: "W"}}
    with torch.no_grad():
        torch.onnx.export(g_s, lat[0], args.out, opset_version=13, do_constant_folding=True,
                          input_names=["latent"], output_names=["picture"], dynamic_axes=axes)
    print(f"{args.out}: {os.path.getsize(args.out)} bytes; output {list(pic.shape)}, "
          f"range [{pic.min().item():.3f}, {pic.max().item():.3f}]")
    if args.calib:
        os.makedirs(args.calib, exist_ok=True)
        for k, y in enumerate(lat[:args.count]):
            np.save(os.path.join(args.calib, f"calib-{k}.npy"), y.numpy().astype(np.float32))
        print(f"{args.calib}: {args.count} latents [1, {M}, {LATENT_H}, {LATENT_W}], "
              f"range [{int(min(y.min() for y in lat))}, {int(max(y.max() for y in lat))}]")


if __name__ == "__main__":
    main()
