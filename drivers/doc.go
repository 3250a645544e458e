// Package drivers holds the canonical lowerings of integer-operators §13
// and the capability drivers that decode through them, as two parts of one
// package.
//
// The lowerings (Lower; lower.go, int_synth.go, whm.go, whm_lower.go,
// world.go, jpegai.go, cert.go) read a parameter set in its source form
// (int_synth.json, WHM1, WAM1, WMB1, the world/1 pair, the jpegai-int/1
// bundle members), run the §13 load checks with each capability's refusal
// codes, and write exactly one WHG1 byte sequence per role (§13.0), with
// the set's bounds certificate (§8.5). Each role keeps its parsed graph and
// its own part of that certificate, so that a fabric.Loader loads it with
// nothing parsed or certified again.
//
// The capability drivers (drive_synth.go: int_synth; drive_world.go:
// world/1; drive_jpegai.go: the jpegai-int/1 scale path) lower their set,
// load its graphs through a fabric.Loader (a fabric, or a plan.Session
// that routes each graph) and turn payloads into outputs: frames as [3, H,
// W] tensors, scale planes. They stay in this package beside the
// lowerings because each runs the lowering it follows and needs its
// unexported parts (a set's refusal recoding, the networks' afrac, the
// norm tables), which a second package would have to export for this one
// caller; applications reach both through package decoder.
//
// The native readers (WHM1, WAM1, WMB1) follow docs/READINGS.md D-D, and the
// int_synth payload layout too; the payload texts they stand for are not
// held (D-G). Encode* write the same forms, for tests and for the §14.3
// corpus, which internal/setcorpus generates. Applications use package
// decoder; tools that only run graphs use plan or a fabric.
package drivers
