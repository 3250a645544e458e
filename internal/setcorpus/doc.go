// Package setcorpus generates the §14.3 corpus of vectors/certificates
// (integer-operators §13, §14.3): small parameter sets of every lowering,
// made from a fixed-seed sequence so that they are the same bytes on every
// machine (Sets, and their parts SynthSmall, HyperNets, …), each set
// lowered with its certificate and source files (CorpusFiles), and every
// lowered graph with decodes to run (GraphCases, for vectors/graphs). It
// also gives the sample sets the benchmarks decode (SampleSynth,
// SampleWorld). Only the corpus tooling, benchmarks and tests import it; it
// lives outside drivers so that a decoder does not link it.
package setcorpus
