// Package devframe lets the module's own viewer reach the GL frame behind
// a decoder.DeviceFrame, which package decoder keeps out of its public
// API (an application shows frames through decoder alone).
package devframe

import "github.com/waiops/waiops/gpu"

// Of returns the GL frame behind a *decoder.DeviceFrame (nil for any other
// value); package decoder sets it at init.
var Of func(f any) *gpu.Frame
