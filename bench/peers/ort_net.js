// ONNX Runtime, fp32, on a network's float model (a float twin, or the
// ONNX an imported network came from), for `waiops bench --peers
// ort-float`. Usage: node ort_net.js MODEL.onnx IN [OUT]
// The model's first input is fed and its first output read.
// IN: four int32 (c, h, w, runs), then the float32 input [1, c, h, w].
// OUT, when given, gets the float32 output (bench compares an imported
// network's with ours; its tests read a twin's).
// stdout gets one JSON line: the median time in
// ns, the output's dims, how many of its elements are not finite, and this
// process's resident set before the session was made and at its peak
// (VmRSS and VmHWM of /proc/self/status, in KiB; 0 where there is none).
// ORT_THREADS sets intra-op threads (default 1).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

function status(key) {
  try {
    const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp('^' + key + ':\\s+(\\d+)', 'm'));
    return m ? parseInt(m[1], 10) : 0;
  } catch (e) {
    return 0;
  }
}

async function main() {
  const [model, inPath, outPath] = process.argv.slice(2);
  const buf = fs.readFileSync(inPath);
  const [c, h, w, runs] = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + 16));
  const x = new Float32Array(buf.buffer.slice(buf.byteOffset + 16, buf.byteOffset + 16 + 4 * c * h * w));
  const threads = parseInt(process.env.ORT_THREADS || '1', 10);
  const baseKiB = status('VmRSS');
  const sess = await ort.InferenceSession.create(model, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const feeds = { [sess.inputNames[0]]: new ort.Tensor('float32', x, [1, c, h, w]) };
  const name = sess.outputNames[0];
  let out = await sess.run(feeds); // warm-up
  const ns = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    out = await sess.run(feeds);
    ns.push(Number(process.hrtime.bigint() - t0));
  }
  ns.sort((a, b) => a - b);
  const y = out[name].data;
  let nonfinite = 0;
  for (let i = 0; i < y.length; i++) {
    if (!Number.isFinite(y[i])) nonfinite++;
  }
  if (outPath) fs.writeFileSync(outPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  console.log(JSON.stringify({ median_ns: ns[Math.floor(runs / 2)], dims: out[name].dims, nonfinite,
    base_rss_kib: baseKiB, peak_rss_kib: status('VmHWM') }));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
