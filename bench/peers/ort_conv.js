// ONNX Runtime on the conv of `waiops bench --peers ort,ort-qlinear`.
// Usage: node ort_conv.js MODEL.onnx IN OUT [i8|u8] [nchw|nhwc]
// IN is the file conv.c reads (int32 cin, cout, h, w, k, runs; 8-bit x,
// signed or unsigned as the fourth argument says; int8 w). The model
// (written by waiops) has input x, in the layout the fifth argument names,
// and, for ConvInteger, input w [cout, cin, k, k]; its output y is int32
// (ConvInteger) or 8-bit (QLinearConv). x is put in the model's layout
// before the timed runs; y is written to OUT as int32 [cout][h][w]. stdout
// gets the median and the fastest time of the runs in nanoseconds. ORT_THREADS sets intra-op threads
// (default 1).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, inPath, outPath, data = 'i8', layout = 'nchw'] = process.argv.slice(2);
  const buf = fs.readFileSync(inPath);
  const hdr = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + 24));
  const [cin, cout, h, w, k, runs] = hdr;
  const nx = cin * h * w, nw = cout * cin * k * k;
  const X = data === 'u8' ? Uint8Array : Int8Array;
  const xs = new X(buf.buffer.slice(buf.byteOffset + 24, buf.byteOffset + 24 + nx));
  const wt = new Int8Array(buf.buffer.slice(buf.byteOffset + 24 + nx, buf.byteOffset + 24 + nx + nw));
  const nhwc = layout === 'nhwc';
  let x = xs;
  if (nhwc) {
    x = new X(nx);
    for (let c = 0; c < cin; c++) for (let i = 0; i < h * w; i++) x[i * cin + c] = xs[c * h * w + i];
  }
  const threads = parseInt(process.env.ORT_THREADS || '1', 10);
  const sess = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const feeds = { x: new ort.Tensor(data === 'u8' ? 'uint8' : 'int8', x, nhwc ? [1, h, w, cin] : [1, cin, h, w]) };
  if (sess.inputNames.includes('w')) feeds.w = new ort.Tensor('int8', wt, [cout, cin, k, k]);
  let out = await sess.run(feeds); // warm-up
  const ns = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    out = await sess.run(feeds);
    ns.push(Number(process.hrtime.bigint() - t0));
  }
  ns.sort((a, b) => a - b);
  const y = out.y.data, y32 = new Int32Array(cout * h * w);
  for (let o = 0; o < cout; o++) {
    for (let i = 0; i < h * w; i++) y32[o * h * w + i] = nhwc ? y[i * cout + o] : y[o * h * w + i];
  }
  fs.writeFileSync(outPath, Buffer.from(y32.buffer));
  console.log(`${ns[Math.floor(runs / 2)]} ${ns[0]}`);
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
