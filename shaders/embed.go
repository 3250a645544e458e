// Package shaders holds the GLSL 4.30 compute shaders of the GPU fabric, one
// per operator of wai-ops/1-i32 (integer-operators §9.1), named
// <op>[_<variant>].comp, and common.glsl, the integer arithmetic every shader
// shares (§2, §5.1, §7.3). Package gpu prepends the version line, the
// variant's #defines, common.glsl and the storage bindings to each shader.
//
// Two shaders are no operator: rgba8.comp lays a frame out as RGBA8 bytes
// for the viewer (gpu.Program.DecodeFrame), and wire.comp packs a graph
// output at its certified width for the host (gpu/wire.go) where its
// producer cannot store it packed (another operator reads it).
//
// Only package gpu should read these; they hold no floating-point type
// (§6: no floating-point arithmetic for any value of a graph operator).
package shaders

import "embed"

// FS holds every *.comp shader and common.glsl.
//
//go:embed *.comp common.glsl
var FS embed.FS
