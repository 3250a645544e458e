#!/usr/bin/env python3
"""Train the tiny learned image codec of examples/tinycodec and write its
files: the synthesis transform as ONNX (three IGDN export forms), calibration
and held-out latents as .npy, the held-out pictures and their float decodes
as PNG, and float.json with the float decode's PSNR against each original.

The codec is Balle-style (Balle, Laparra, Simoncelli, "End-to-end optimized
image compression", ICLR 2017), small enough to train on one CPU core in
about ten minutes:

    g_a: Conv 5x5/2 (3->N) GDN, Conv 5x5/2 (N->N) GDN, Conv 5x5/2 (N->M)
    g_s: ConvT 5x5/2 (M->N) IGDN, ConvT 5x5/2 (N->N) IGDN, ConvT 5x5/2 (N->3)

The latents are round(g_a(x)), whole numbers; g_s maps them back to RGB in
[0, 1]. The rate term is a factorised entropy model: each latent channel has
a zero-mean Laplace density with a learned scale, integrated over the
quantisation bin, evaluated on y + U(-1/2, 1/2); the distortion term decodes
the rounded latents (straight-through gradient), so g_s is trained on the
integers it will meet.

GDN (Balle, Laparra, Simoncelli, ICLR 2016) divides each channel by a norm
of all channels at the same position:

    y_i = x_i / sqrt(beta_i + sum_j gamma_ij x_j^2)

and its inverse IGDN multiplies by that norm instead. beta must stay
positive and gamma non-negative, so both are stored as square roots:
beta = b*b + BETA_FLOOR, gamma = g*g. Products and sums of initialisers are
what torch 1.13's constant folding folds (it leaves Max, Clip and Pow alone),
so with do_constant_folding=True the exported graph holds beta and gamma
themselves. The norm is computed as x^2 -> 1x1 conv with gamma as weights
and beta as bias -> square root, and IGDN is then exported in one of two
forms (--gdn-form picks which one the training graph uses; the export
writes both, synthesis.onnx and synthesis-div.onnx):

    mul: x * sqrt(n)          x^2 as Pow(x, 2)   Pow, Conv, Sqrt, Mul
    div: x / rsqrt(n)         x^2 as Mul(x, x)   Mul, Conv, Sqrt, Div(1, .), Div

(torch exports rsqrt as Div(1, Sqrt(n)); ONNX has no Rsqrt.) GDN in g_a uses
the matching forms x * rsqrt(n) and x / sqrt(n); g_a is not exported.

A third file, synthesis-bounded.onnx, is the mul form with the
parametrisation CompressAI-style models use instead: the stored value is
the root of (beta + PEDESTAL), bounded from below with Max and squared with
Pow, less the pedestal. Constant folding leaves those ops in the graph, on
initialisers only, as it does in such models' exports; an importer has to
evaluate them to find beta and gamma.

Data: random crops of pictures that ship with Go ($GOROOT/src/image/...,
BSD) and with Debian's python3-skimage (skimage/data, each CC0, public
domain or without known restrictions). Two other skimage pictures are held out and never cropped for
training. Everything is seeded; with the same torch build and thread count
a run repeats. Needs Debian's python3-torch, python3-numpy, python3-pil and,
for the pictures, python3-skimage; python3-onnx only for the graph check.

    /usr/bin/python3 scripts/train-tiny-codec.py --out examples/tinycodec
"""

import argparse
import copy
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

GOROOT = os.environ.get("GOROOT", "/usr/local/go")
SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"

# Training pictures, each with its licence. Grey ones are used as RGB with
# three equal channels.
TRAIN = [
    GOROOT + "/src/image/testdata/video-001.png",  # Go, BSD-3-Clause
    GOROOT + "/src/image/png/testdata/benchRGB.png",  # Go, BSD-3-Clause
    SKIMAGE + "/coffee.png",  # CC0 (Rachel Michetti)
    SKIMAGE + "/rocket.jpg",  # public domain (SpaceX)
    SKIMAGE + "/camera.png",  # CC0 (Lav Varshney)
    SKIMAGE + "/coins.png",  # no known copyright restrictions
    SKIMAGE + "/brick.png",  # CC0 (CC0Textures)
    SKIMAGE + "/grass.png",  # CC0 (CC0Textures)
    SKIMAGE + "/gravel.png",  # CC0 (CC0Textures)
]

# Held-out pictures: name -> (path, how it becomes a 256x256 picture).
HELDOUT = {
    "astronaut": (SKIMAGE + "/astronaut.png", "resize"),  # 512x512, NASA, public domain
    "chelsea": (SKIMAGE + "/chelsea.png", "crop-resize"),  # 451x300 cat, CC0 (S. van der Walt)
}
HELDOUT_SIDE = 256

BETA_FLOOR = 1e-6  # keeps the norm away from zero
PEDESTAL = 2.0 ** -18  # the bounded parametrisation's offset (see bounded())
CALIB_FILES = 8
CALIB_SIDE = 128


class GDN(nn.Module):
    """GDN (inverse=False) or IGDN (inverse=True) over C channels, in the
    export form `form` ("mul" or "div"), as the module docstring describes."""

    def __init__(self, channels, inverse, form="mul", gamma_init=0.1):
        super().__init__()
        self.inverse = inverse
        self.form = form
        self.beta_root = nn.Parameter(torch.full((channels,), math.sqrt(1.0 - BETA_FLOOR)))
        self.gamma_root = nn.Parameter(math.sqrt(gamma_init) * torch.eye(channels))
        self.register_buffer("beta_bound", torch.tensor(math.sqrt(BETA_FLOOR + PEDESTAL)), persistent=False)
        self.register_buffer("gamma_bound", torch.tensor(math.sqrt(PEDESTAL)), persistent=False)
        self.is_bounded = False

    def bounded(self):
        """Switch to the bound-then-square parametrisation with the same
        beta and gamma (up to float32 rounding); for export only."""
        with torch.no_grad():
            beta, gamma = self.beta(), self.gamma()
            self.beta_root.copy_(torch.sqrt(beta + PEDESTAL))
            self.gamma_root.copy_(torch.sqrt(gamma + PEDESTAL))
        self.is_bounded = True

    def beta(self):
        if self.is_bounded:
            return torch.max(self.beta_root, self.beta_bound) ** 2 - PEDESTAL
        return self.beta_root * self.beta_root + BETA_FLOOR

    def gamma(self):
        if self.is_bounded:
            return torch.max(self.gamma_root, self.gamma_bound) ** 2 - PEDESTAL
        return self.gamma_root * self.gamma_root

    def forward(self, x):
        square = x ** 2 if self.form == "mul" else x * x
        g = self.gamma()
        norm = F.conv2d(square, g[:, :, None, None], self.beta())
        if self.form == "mul":
            scale = torch.sqrt(norm) if self.inverse else torch.rsqrt(norm)
            return x * scale
        scale = torch.rsqrt(norm) if self.inverse else torch.sqrt(norm)
        return x / scale


def analysis(n, m, form):
    return nn.Sequential(
        nn.Conv2d(3, n, 5, 2, 2), GDN(n, False, form),
        nn.Conv2d(n, n, 5, 2, 2), GDN(n, False, form),
        nn.Conv2d(n, m, 5, 2, 2),
    )


def synthesis(n, m, form):
    # padding 2 with output_padding 1 doubles each side exactly.
    return nn.Sequential(
        nn.ConvTranspose2d(m, n, 5, 2, 2, 1), GDN(n, True, form),
        nn.ConvTranspose2d(n, n, 5, 2, 2, 1), GDN(n, True, form),
        nn.ConvTranspose2d(n, 3, 5, 2, 2, 1),
    )


class Laplace(nn.Module):
    """Factorised entropy model: a zero-mean Laplace per latent channel;
    bits(y) = -log2 of its mass on [y - 1/2, y + 1/2]."""

    def __init__(self, m):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(m))

    def bits(self, y):
        b = torch.exp(self.log_scale)[None, :, None, None]

        def cdf(t):
            return 0.5 + 0.5 * torch.sign(t) * (1 - torch.exp(-t.abs() / b))

        # the mass is symmetric in y; work on -|y| so the difference of
        # CDFs is of small numbers, not of two values near one
        a = -y.abs()
        mass = cdf(a + 0.5) - cdf(a - 0.5)
        return -torch.log2(mass.clamp_min(1e-9)).sum()


def load_rgb(path):
    """A picture as float32 [3, H, W] in [0, 1]."""
    im = Image.open(path).convert("RGB")
    return torch.from_numpy(np.asarray(im, dtype=np.float32) / 255.0).permute(2, 0, 1).contiguous()


def heldout_picture(path, how):
    im = Image.open(path).convert("RGB")
    if how == "crop-resize":  # centre square, then down to the side
        w, h = im.size
        s = min(w, h)
        im = im.crop(((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s))
    return im.resize((HELDOUT_SIDE, HELDOUT_SIDE), Image.LANCZOS)


def training_pool():
    """Each training picture at full size and, when large, halved too, so
    crops see more than one scale."""
    pool = []
    for path in TRAIN:
        if not os.path.exists(path):
            sys.exit(f"missing training picture {path} (install python3-skimage; set GOROOT)")
        x = load_rgb(path)
        pool.append(x)
        if min(x.shape[1:]) >= 256:
            pool.append(F.avg_pool2d(x[None], 2)[0])
    return pool


def random_batch(pool, gen, batch, side):
    out = torch.empty(batch, 3, side, side)
    for k in range(batch):
        x = pool[int(torch.randint(len(pool), (1,), generator=gen))]
        i = int(torch.randint(x.shape[1] - side + 1, (1,), generator=gen))
        j = int(torch.randint(x.shape[2] - side + 1, (1,), generator=gen))
        c = x[:, i:i + side, j:j + side]
        if torch.rand(1, generator=gen) < 0.5:
            c = c.flip(2)
        c = c[torch.randperm(3, generator=gen)]  # colour variety from few colour pictures
        out[k] = c
    return out


def psnr8(a, b):
    """PSNR in dB between two uint8 arrays of the same shape, peak 255."""
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def to_uint8(x):
    """[1, 3, H, W] float in [0, 1] -> HxWx3 uint8, rounded half up, clamped."""
    return np.clip(np.floor(x[0].permute(1, 2, 0).double().numpy() * 255 + 0.5), 0, 255).astype(np.uint8)


def train(args):
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    g_a = analysis(args.n, args.m, args.gdn_form)
    g_s = synthesis(args.n, args.m, args.gdn_form)
    ent = Laplace(args.m)
    params = list(g_a.parameters()) + list(g_s.parameters()) + list(ent.parameters())
    opt = torch.optim.Adam(params, lr=args.lr)
    pool = training_pool()
    start = time.time()
    step = 0
    log = []
    # A step count, not the clock, ends the run, so that a seed repeats it;
    # --seconds only caps a run on a slow machine (float.json says if it did).
    while step < args.steps and time.time() - start < args.seconds:
        if step == int(0.8 * args.steps):
            for g in opt.param_groups:  # a last, finer stretch
                g["lr"] = args.lr / 5
        x = random_batch(pool, gen, args.batch, args.crop)
        y = g_a(x)
        noisy = y + (torch.rand(y.shape, generator=gen) - 0.5)
        rounded = y + (torch.round(y) - y).detach()
        x_hat = g_s(rounded)
        mse = F.mse_loss(x_hat, x)
        bpp = ent.bits(noisy) / (x.shape[0] * x.shape[2] * x.shape[3])
        loss = args.lmbda * 255 ** 2 * mse + bpp
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 250 == 0:
            rec = dict(step=step, seconds=round(time.time() - start, 1), loss=round(loss.item(), 4),
                       bpp=round(bpp.item(), 4), psnr=round(10 * math.log10(1 / mse.item()), 2))
            log.append(rec)
            print(json.dumps(rec), flush=True)
    return g_a, g_s, ent, dict(steps=step, seconds=round(time.time() - start, 1), log=log, capped=step < args.steps)


def export_synthesis(g_s_trained, n, m, form, bounded, path):
    """Write g_s in export form `form` (bounded: with the bounded
    parametrisation) to path: latent [1, M, h, w] -> picture
    [1, 3, 8h, 8w], h and w left free."""
    g_s = synthesis(n, m, form)
    g_s.load_state_dict(g_s_trained.state_dict())
    if bounded:
        for layer in g_s:
            if isinstance(layer, GDN):
                layer.bounded()
    g_s.eval()
    with torch.no_grad():
        torch.onnx.export(g_s, torch.zeros(1, m, 16, 16), path, opset_version=13,
                          do_constant_folding=True, export_params=True,
                          input_names=["latent"], output_names=["picture"],
                          dynamic_axes={"latent": {2: "h", 3: "w"}, "picture": {2: "H", 3: "W"}})
    try:
        import onnx
    except ImportError:
        print("python3-onnx missing: the exported graph was not checked", file=sys.stderr)
        return
    model = onnx.load(path)
    ops = [node.op_type for node in model.graph.node]
    allowed = {"ConvTranspose", "Conv", "Pow", "Mul", "Sqrt", "Div", "Constant"}
    if bounded:
        allowed |= {"Max", "Sub", "Unsqueeze", "Identity"}
    if not set(ops) <= allowed:
        sys.exit(f"{path}: unexpected ops {sorted(set(ops) - allowed)}: the reparametrisation did not fold")
    if any(init.data_type != onnx.TensorProto.FLOAT for init in model.graph.initializer):
        sys.exit(f"{path}: an initialiser is not float32")
    print(f"{path}: {os.path.getsize(path)} bytes, ops {' '.join(ops)}")


def save_latent(path, y):
    np.save(path, y.numpy().astype(np.float32))


def write_outputs(args, g_a, g_s, ent, info):
    out = args.out
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    os.makedirs(os.path.join(out, "heldout"), exist_ok=True)
    g_a.eval()
    g_s.eval()
    for form, bounded, name in (("mul", False, "synthesis.onnx"), ("div", False, "synthesis-div.onnx"),
                                ("mul", True, "synthesis-bounded.onnx")):
        export_synthesis(g_s, args.n, args.m, form, bounded, os.path.join(out, name))

    # Calibration latents: fixed 128x128 crops of the training pictures.
    gen = torch.Generator().manual_seed(args.seed + 1)
    pool = training_pool()
    with torch.no_grad():
        for k in range(CALIB_FILES):
            x = random_batch(pool, gen, 1, CALIB_SIDE)
            save_latent(os.path.join(out, "calib", f"calib-{k}.npy"), torch.round(g_a(x)))

    # The float decode in float64, as the importer's float evaluator does it.
    g_s64 = copy.deepcopy(g_s).double()
    report = dict(seed=args.seed, n=args.n, m=args.m, lmbda=args.lmbda, crop=args.crop,
                  batch=args.batch, threads=torch.get_num_threads(), torch=torch.__version__,
                  lr=args.lr, train_steps=info["steps"], train_seconds=info["seconds"],
                  stopped_by_time_cap=info["capped"],
                  final=info["log"][-1] if info["log"] else None, heldout={})
    with torch.no_grad():
        for name, (path, how) in HELDOUT.items():
            im = heldout_picture(path, how)
            im.save(os.path.join(out, "heldout", f"{name}.png"), optimize=True)
            orig = np.asarray(im, dtype=np.uint8)
            x = torch.from_numpy(orig.astype(np.float32) / 255.0).permute(2, 0, 1)[None]
            y = torch.round(g_a(x))
            save_latent(os.path.join(out, "heldout", f"{name}.npy"), y)
            dec = to_uint8(g_s64(y.double()))
            Image.fromarray(dec).save(os.path.join(out, "heldout", f"{name}.float.png"), optimize=True)
            bits = ent.bits(y).item()
            report["heldout"][name] = dict(
                picture=f"heldout/{name}.png", latent=f"heldout/{name}.npy", latent_shape=list(y.shape),
                latent_min=int(y.min()), latent_max=int(y.max()),
                float_decode=f"heldout/{name}.float.png", float_psnr_db=round(psnr8(dec, orig), 3),
                estimated_bpp=round(bits / (HELDOUT_SIDE * HELDOUT_SIDE), 4))
    with open(os.path.join(out, "float.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(json.dumps(report["heldout"], indent=1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="examples/tinycodec", help="folder for the example's files")
    p.add_argument("--steps", type=int, default=2500, help="training steps")
    p.add_argument("--seconds", type=float, default=900, help="cap on the training time")
    p.add_argument("--seed", type=int, default=20261207)
    p.add_argument("--n", type=int, default=48, help="hidden channels N")
    p.add_argument("--m", type=int, default=32, help="latent channels M")
    p.add_argument("--lmbda", type=float, default=0.01, help="rate-distortion trade-off (MSE on 0..255)")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--crop", type=int, default=64)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--threads", type=int, default=1, help="torch threads (one: on a shared machine a second spins)")
    p.add_argument("--gdn-form", choices=("mul", "div"), default="mul",
                   help="GDN/IGDN form of the training graph (both forms are exported)")
    p.add_argument("--checkpoint", default="", help="also save the trained state here (.pt)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    g_a, g_s, ent, info = train(args)
    if args.checkpoint:
        torch.save(dict(g_a=g_a.state_dict(), g_s=g_s.state_dict(), ent=ent.state_dict(), args=vars(args)),
                   args.checkpoint)
    write_outputs(args, g_a, g_s, ent, info)


if __name__ == "__main__":
    main()
