// Package tinycodec is the example codec's synthesis transform (README.md)
// as files inside the binary, for `waiops bench`: its ONNX, its
// calibration latents and its held-out latents.
package tinycodec

import "embed"

// Files holds synthesis.onnx, calib/*.npy and heldout/*.npy, at those paths.
//
//go:embed synthesis.onnx calib/*.npy heldout/*.npy
var Files embed.FS
