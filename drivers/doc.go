// Package drivers holds the canonical lowerings of integer-operators §13
// and the capability drivers that decode through them.
//
// A lowering reads a parameter set in its source form (int_synth.json, WHM1,
// WAM1, WMB1, the world/1 pair, the jpegai-int/1 bundle members), runs the
// §13 load checks with each capability's refusal codes, and writes exactly
// one WHG1 byte sequence per role (§13.0), with the set's bounds certificate
// (§8.5). Use Lower for that, CorpusFiles for the §14.3 corpus, and the
// Decode* functions to turn a set and a payload into frames.
//
// The native readers (WHM1, WAM1, WMB1) follow docs/READINGS.md D-D, and the
// int_synth payload layout too; the payload texts they stand for are not
// held (D-G). Tools that only run graphs should use plan or a
// fabric directly, not this package.
package drivers
