// Package certify is the bounds pass and the bounds certificate of
// integer-operators §8: it gives every tensor, scalar and named
// intermediate of a WHG1 graph an exact interval, decides which profiles
// (acc32, acc64) and which subset (wai-ops/1-npu, §9.2) a parameter set
// meets, writes the canonical certificate of §8.5, computes admissible
// ranges (§8.4), and loads a graph against a profile (§10.5 step 8, §8.6).
//
// A sink, the planner and the vector generator use Load or Certify; a fabric
// reads the certified intervals to choose its widths. Nothing here runs a
// graph: the pass reads only the graph's bytes, never a payload.
package certify
