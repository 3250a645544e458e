// Package gpu is the OpenGL 4.3 compute fabric: it runs every WHG1 graph
// whose certificate meets acc32 (integer-operators §7.2) with the GLSL
// compute shaders of package shaders, and computes exactly the integers the
// CPU reference computes (§4).
//
// Use it when a machine has a GL 4.3 driver (a GPU, or Mesa's llvmpipe) and
// the graphs meet acc32; use cpuref for acc64 graphs, for machines without
// GL, and as the reference. The default build makes its context with GLFW
// (an X display; Xvfb will do); a -tags egl build makes it with EGL and no
// display at all (a headless server). A build without cgo holds a stub
// whose Open says "no GPU in this build".
//
// One goroutine locked to one OS thread owns the GL context; every GL call is
// marshalled to it (docs/CONVENTIONS.md §6), and runs only after a check that the
// context is still current and usable: a lost one (its window destroyed,
// its EGL display terminated) is ErrLost from then on, never a crash. Every tensor lives on the device as
// int32: acc32 certifies that every tensor element fits i32 (§7.1), and a
// tensor larger than one storage binding is split across several (§6, §9.4).
package gpu
