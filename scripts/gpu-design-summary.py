#!/usr/bin/env python3
# scripts/gpu-design-summary.py RUN_DIR: the before/after tables of
# docs/bench/gpu-design/ from RUN_DIR/{before,new}-{1,2}/bench.json (two
# `waiops bench --fabric all --split` runs of each binary, alternating):
# each case's median per round, the ratio of the best rounds, whether
# every output hashed the same, and each GPU figure's GL time split with
# its host share and host nanoseconds per element uploaded and read back
# (io_elems where the binary reports it: narrow I/O packs several a word).
import json,sys
base=sys.argv[1]
rows={}
for b in ['before','new']:
  for r in ['1','2']:
    d=json.load(open(f'{base}/{b}-{r}/bench.json'))
    for f in d['figures']:
      key=(f['case'],f['fabric'])
      rows.setdefault(key,{}).setdefault(b,[]).append(f)
def ms(ns): return f"{ns/1e6:.1f} ms"
print("| case | fabric | before r1 | before r2 | after r1 | after r2 | speed-up, best round of each | equal |")
print("|---|---|---|---|---|---|---|---|")
for (case,fab),v in rows.items():
  b=[f['median_ns'] for f in v['before']]; a=[f['median_ns'] for f in v['new']]
  eq=all(f['equal_to_first'] for f in v['before']+v['new'])
  sha={f['outputs_sha256'] for f in v['before']+v['new']}
  print(f"| {case} | {fab} | {ms(b[0])} | {ms(b[1])} | {ms(a[0])} | {ms(a[1])} | {min(b)/min(a):.2f}× | {eq and len(sha)==1} |")
print()
print("| case | binary | round | total | upload | alloc | dispatches | dispatch+kernel host time | readback | host | host share | host ns/elem in+out | device memory |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (case,fab),v in rows.items():
  if fab!='gpu': continue
  for b in ['before','new']:
    for i,f in enumerate(v[b]):
      s=f['gpu_split']
      host=s['total_ns']-s['upload_ns']-s['alloc_ns']-s['dispatch_ns']-s['wait_ns']-s['readback_ns']
      n=s.get('io_elems') or (s['upload_bytes']+s['readback_bytes'])//4  # elements; before narrow I/O, one i32 word each
      dm=s.get('device_bytes')
      print(f"| {case} | {b} | {i+1} | {ms(s['total_ns'])} | {s['upload_ns']/1e3:.1f} µs | {s['alloc_ns']/1e3:.1f} µs | {s['dispatches']} | {ms(s['dispatch_ns'])} | {s['readback_ns']/1e3:.1f} µs | {ms(host)} | {100*host/s['total_ns']:.1f} % | {host/max(n,1):.1f} | {'' if dm is None else f'{dm/2**20:.1f} MiB'} |")
