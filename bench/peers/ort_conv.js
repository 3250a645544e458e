// ONNX Runtime's ConvInteger on the same conv and data as `waiops bench
// --peers ort`. Usage: node ort_conv.js MODEL.onnx IN OUT
// IN is the file conv.c reads (int32 cin, cout, h, w, k, runs; int8 x; int8 w);
// OUT gets the int32 outputs; stdout gets the median time in nanoseconds.
// The model (written by waiops) has inputs x [1,cin,h,w] and w [cout,cin,k,k]
// (int8) and output y (int32). ORT_THREADS sets intra-op threads (default 1).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, inPath, outPath] = process.argv.slice(2);
  const buf = fs.readFileSync(inPath);
  const hdr = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + 24));
  const [cin, cout, h, w, k, runs] = hdr;
  const nx = cin * h * w, nw = cout * cin * k * k;
  const x = new Int8Array(buf.buffer.slice(buf.byteOffset + 24, buf.byteOffset + 24 + nx));
  const wt = new Int8Array(buf.buffer.slice(buf.byteOffset + 24 + nx, buf.byteOffset + 24 + nx + nw));
  const threads = parseInt(process.env.ORT_THREADS || '1', 10);
  const sess = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const feeds = { x: new ort.Tensor('int8', x, [1, cin, h, w]), w: new ort.Tensor('int8', wt, [cout, cin, k, k]) };
  let out = await sess.run(feeds); // warm-up
  const ns = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    out = await sess.run(feeds);
    ns.push(Number(process.hrtime.bigint() - t0));
  }
  ns.sort((a, b) => a - b);
  const y = out.y.data;
  fs.writeFileSync(outPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  console.log(ns[Math.floor(runs / 2)]);
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
